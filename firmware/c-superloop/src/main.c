/*
 * main.c: a chess clock written as a superloop, the way many clocks are:
 * one interrupt (SysTick counts milliseconds), everything else polled.
 *
 *   for (;;) {
 *     every 10 ms:   read the buttons, count the clock to now, apply the
 *                    presses the poll saw, update the displays
 *     every turn:    command lines from bench-ctl; the TimeBase counter
 *     90 ms after the last Snapshot's stamp: a Snapshot of the displays
 *                    as last updated (so stamps are never 100 ms apart)
 *   }
 *
 * It implements version 3 of the bench firmware contract
 * (hil/CONTRACT.md, bench_contract.h) and declares what it lacks in its
 * Capabilities record: whole-second settings up to 9:59:59, displays in
 * whole seconds from 10 s up, buttons read every 10 ms (section 11).
 */
#include "bench_contract.h"
#include "board.h"
#include "game.h"
#include "limits.h"
#include "rtt.h"

#define SNAPSHOT_EVERY_MS 100u
#define BUTTON_COUNT 3u

#define CONTROLS (BENCH_CONTROL_PLAIN | BENCH_CONTROL_INCREMENT | BENCH_CONTROL_DELAY | BENCH_CONTROL_STAGES)
#define ARBITER_FUNCTIONS BENCH_ARBITER_PAUSE
/* Two flag lamps, no memory of which fell first. */
#define FLAG_ORDER BENCH_FLAG_ORDER_NOT_SHOWN

static const char firmware_name[8] = {'s', 'u', 'p', 'e', 'r', 'l', 'o', 'p'};
#define FIRMWARE_VERSION 1u

/* FIDE 6.4: this board's placement of the buttons. */
static const struct {
    uint32_t pin;
    uint8_t button;
} placement[BUTTON_COUNT] = {
    {PIN_WHITE, BENCH_WHITE},
    {PIN_BLACK, BENCH_BLACK},
    {PIN_PAUSE, BENCH_PAUSE_BUTTON},
};

static struct {
    int down;         /* a press was taken and the contact not yet seen open */
    uint16_t bounces; /* closings seen while down, since the last press */
} buttons[BUTTON_COUNT];

static uint32_t seq;
static uint32_t dropped_total;
static uint32_t commands;
static uint32_t seconds_counted; /* the TimeBase counter */
static int has_control;
static game clock_game;
static uint32_t display_ms; /* the instant the displays were last updated */
static uint32_t last_snapshot_ms; /* the latest Snapshot's stamp */

static uint64_t us(uint32_t ms)
{
    return (uint64_t)ms * 1000u;
}

static void send(bench_record *record)
{
    record->h.seq = seq++;
    record->h.dropped = dropped_total > UINT16_MAX ? UINT16_MAX : (uint16_t)dropped_total;
    if (!rtt_write_up(record->bytes, BENCH_RECORD_SIZE)) {
        dropped_total++;
    }
}

static void send_hello(void)
{
    bench_record record;
    bench_record_init(&record, BENCH_HELLO, BENCH_NO_SIDE, us(millis()));
    record.hello.contract_version = BENCH_CONTRACT_VERSION;
    record.hello.record_size = BENCH_RECORD_SIZE;
    record.hello.tick_us = TICK_US;
    record.hello.hw_counter_hz = HW_COUNTER_HZ;
    record.hello.hw_counter_bits = HW_COUNTER_BITS;
    record.hello.buttons = BENCH_BUTTONS_PAUSE;
    /* Debounced by the poll: two closings inside one poll are one press. */
    record.hello.debounce_us = POLL_MS * 1000u;
    record.hello.firmware_version = FIRMWARE_VERSION;
    for (int i = 0; i < 8; i++) {
        record.hello.firmware_name[i] = firmware_name[i];
    }
    send(&record);
}

static void send_capabilities(void)
{
    bench_record record;
    bench_record_init(&record, BENCH_CAPABILITIES, BENCH_NO_SIDE, us(millis()));
    record.capabilities.controls = CONTROLS;
    record.capabilities.arbiter = ARBITER_FUNCTIONS;
    record.capabilities.flag_order = FLAG_ORDER;
    record.capabilities.time_max_s = TIME_MAX_S;
    record.capabilities.setting_step_us = 1000000u;
    record.capabilities.display_step_us = 1000000u;
    record.capabilities.display_fine_below_us = FINE_BELOW_MS * 1000u;
    record.capabilities.button_poll_us = POLL_MS * 1000u;
    send(&record);
}

static void send_time_base(uint32_t now_ms, int edge)
{
    bench_record record;
    bench_record_init(&record, BENCH_TIME_BASE, BENCH_NO_SIDE, us(now_ms));
    record.time_base.hw_counter = seconds_counted;
    record.time_base.ticks = now_ms;
    record.time_base.flags = edge ? BENCH_TIME_BASE_EDGE : 0u;
    record.time_base.dropped_total = dropped_total;
    send(&record);
}

/* What a display shows of `ms`: whole seconds, cut down, from
   FINE_BELOW_MS up; milliseconds below. */
static uint64_t shown_us(uint32_t ms)
{
    return ms >= FINE_BELOW_MS ? us(ms / 1000u * 1000u) : us(ms);
}

/* The displays as last updated, stamped with that instant. */
static void send_snapshot(void)
{
    const game *g = &clock_game;
    int running = g->phase == BENCH_PHASE_RUNNING || g->phase == BENCH_PHASE_PAUSED;
    bench_record record;
    bench_record_init(&record, BENCH_SNAPSHOT, running ? g->running : BENCH_NO_SIDE, us(display_ms));
    record.snapshot.remaining_white_us = shown_us(g->sides[BENCH_WHITE].main_ms);
    record.snapshot.remaining_black_us = shown_us(g->sides[BENCH_BLACK].main_ms);
    record.snapshot.moves_white = g->sides[BENCH_WHITE].moves;
    record.snapshot.moves_black = g->sides[BENCH_BLACK].moves;
    record.snapshot.delay_us = g->phase == BENCH_PHASE_RUNNING ? (uint32_t)us(g->sides[g->running].delay_ms) : 0u;
    record.snapshot.period_white = (uint8_t)g->sides[BENCH_WHITE].stage;
    record.snapshot.period_black = (uint8_t)g->sides[BENCH_BLACK].stage;
    record.snapshot.phase = g->phase;
    record.snapshot.flags = (g->sides[BENCH_WHITE].flag ? BENCH_SNAPSHOT_FLAG_WHITE : 0u) |
                            (g->sides[BENCH_BLACK].flag ? BENCH_SNAPSHOT_FLAG_BLACK : 0u);
    send(&record);
    last_snapshot_ms = display_ms;
}

/* Flag and Period records for what the clock queued; 1 if any. `now_ms`:
   when the loop noticed. */
static int report_events(uint32_t now_ms)
{
    game_event event;
    int reported = 0;
    while (game_take_event(&clock_game, &event)) {
        bench_record record;
        bench_record_init(&record, event.kind == EVENT_FLAG ? BENCH_FLAG : BENCH_PERIOD, event.side, us(event.at_ms));
        if (event.kind == EVENT_FLAG) {
            record.flag.period = event.from;
            record.flag.sequence = event.sequence;
            record.flag.observed_at_us = us(now_ms > event.at_ms ? now_ms : event.at_ms);
            record.flag.moves = event.moves;
        } else {
            record.period.from = event.from;
            record.period.to = event.to;
            record.period.cause = event.cause;
            record.period.moves = event.moves;
            record.period.remaining_us = us(event.main_ms);
        }
        send(&record);
        reported = 1;
    }
    return reported;
}

/* Counts the clock to `now_ms` and shows it. */
static void update_displays(uint32_t now_ms)
{
    game_advance(&clock_game, now_ms);
    display_ms = now_ms;
    if (report_events(now_ms)) {
        send_snapshot();
    }
}

/* The pause button toggles the arbiter's stop (6.13). */
static uint8_t toggle_pause(uint32_t at_ms)
{
    if (clock_game.phase == BENCH_PHASE_RUNNING) {
        return game_pause(&clock_game, at_ms) == BENCH_STATUS_OK ? BENCH_RESULT_ACCEPTED : BENCH_RESULT_OTHER;
    }
    if (clock_game.phase == BENCH_PHASE_PAUSED) {
        return game_resume(&clock_game, at_ms) == BENCH_STATUS_OK ? BENCH_RESULT_ACCEPTED : BENCH_RESULT_OTHER;
    }
    return BENCH_RESULT_FINISHED;
}

/* A press the poll at `at_ms` saw (6.8a: the move is complete then). */
static void handle_press(uint32_t index, uint32_t at_ms)
{
    uint8_t button = placement[index].button;
    uint8_t result;
    if (button == BENCH_PAUSE_BUTTON) {
        result = toggle_pause(at_ms);
    } else {
        result = game_press(&clock_game, button, at_ms);
    }
    bench_record record;
    bench_record_init(&record, BENCH_PRESS, button, us(at_ms));
    record.press.result = result;
    record.press.bounces = buttons[index].bounces;
    if (button != BENCH_PAUSE_BUTTON) {
        record.press.moves = clock_game.sides[button].moves;
        record.press.remaining_us = us(clock_game.sides[button].main_ms);
    }
    record.press.handled_at_us = us(millis());
    record.press.edge_hw_counter = seconds_counted;
    send(&record);
    buttons[index].bounces = 0;
    (void)report_events(at_ms);
    send_snapshot();
}

/* The 10 ms poll: which buttons closed since the last one, the clock
   counted to now, the presses applied in that order (a flag due by now
   falls before a press now), the displays updated. */
static void poll(uint32_t now_ms)
{
    uint32_t closed = pins_closed();
    uint32_t closed_since = pins_closed_since_last_call();
    uint32_t pressed = 0;
    for (uint32_t i = 0; i < BUTTON_COUNT; i++) {
        uint32_t pin = placement[i].pin;
        int closing_seen = ((closed | closed_since) & pin) != 0u;
        if (!buttons[i].down && closing_seen) {
            buttons[i].down = 1;
            pressed |= 1u << i;
        } else if (buttons[i].down && (closed_since & pin)) {
            if (buttons[i].bounces < UINT16_MAX) {
                buttons[i].bounces++; /* closed again before it was seen open */
            }
        } else if (buttons[i].down && !closing_seen) {
            buttons[i].down = 0;
        }
    }
    if (!has_control) {
        return;
    }
    update_displays(now_ms);
    /* 6.5: presses count from the start. */
    if (clock_game.phase == BENCH_PHASE_NOT_STARTED) {
        return;
    }
    for (uint32_t i = 0; i < BUTTON_COUNT; i++) {
        if (pressed & (1u << i)) {
            handle_press(i, now_ms);
        }
    }
}

/* A command's effect at `now_ms`; its Ack status. */
static uint8_t execute(const bench_command_line *line, uint32_t now_ms, uint16_t *error_position)
{
    time_control control;
    int position;
    switch (line->command) {
    case BENCH_COMMAND_TC:
        position = time_control_parse(line->text, (uint32_t)line->text_len, &control);
        if (position >= 0) {
            *error_position = (uint16_t)position;
            return BENCH_STATUS_BAD_TIME_CONTROL;
        }
        game_new(&clock_game, &control);
        has_control = 1;
        return BENCH_STATUS_OK;
    case BENCH_COMMAND_RESET:
        if (!has_control) {
            return BENCH_STATUS_NOT_ALLOWED;
        }
        control = clock_game.control;
        game_new(&clock_game, &control);
        return BENCH_STATUS_OK;
    case BENCH_COMMAND_START:
        return has_control ? game_start(&clock_game, now_ms) : BENCH_STATUS_NOT_ALLOWED;
    case BENCH_COMMAND_PAUSE:
        return has_control ? game_pause(&clock_game, now_ms) : BENCH_STATUS_NOT_ALLOWED;
    case BENCH_COMMAND_RESUME:
        return has_control ? game_resume(&clock_game, now_ms) : BENCH_STATUS_NOT_ALLOWED;
    default:
        return BENCH_STATUS_UNSUPPORTED; /* set, adjust, moves, replace: no arbiter menu */
    }
}

/* One bench-ctl line: exactly one Ack, then a Snapshot of what it did. */
static void handle_line(const char *text, uint32_t len, int too_long, uint32_t now_ms)
{
    bench_command_line line;
    uint16_t error_position = 0;
    uint8_t status;
    commands++;
    if (has_control) {
        update_displays(now_ms);
    }
    if (too_long) {
        (void)bench_command_parse("", 0, &line);
        status = BENCH_STATUS_LINE_TOO_LONG;
    } else if (bench_command_parse(text, len, &line) != BENCH_STATUS_OK) {
        status = line.status;
        error_position = line.error_position;
    } else {
        status = execute(&line, now_ms, &error_position);
    }
    bench_record record;
    bench_record_init(&record, BENCH_ACK, line.side, us(now_ms));
    record.ack.command = line.command;
    record.ack.status = status;
    record.ack.error_position = error_position;
    record.ack.commands = commands;
    record.ack.initial_us = has_control ? us(clock_game.control.stages[0].time_ms) : 0u;
    record.ack.final_period = has_control ? clock_game.control.count - 1u : 0u;
    send(&record);
    if (has_control) {
        display_ms = now_ms;
        (void)report_events(now_ms);
        send_snapshot();
    }
}

/* bench-ctl bytes into lines; a line longer than the contract's is
   discarded whole and answered BENCH_STATUS_LINE_TOO_LONG. */
static struct {
    char bytes[BENCH_COMMAND_LINE_MAX + 1];
    uint32_t len;
    int overflowed;
} pending_line;

static int line_complete(void)
{
    uint8_t byte;
    for (uint32_t i = 0; i < RTT_DOWN_BUFFER_BYTES && rtt_read_down(&byte); i++) {
        if (byte == '\n') {
            return 1;
        }
        if (pending_line.len < sizeof pending_line.bytes) {
            pending_line.bytes[pending_line.len++] = (char)byte;
        } else {
            pending_line.overflowed = 1;
        }
    }
    return 0;
}

int main(void)
{
    board_init();
    rtt_init();
    send_hello();
    send_capabilities();
    send_time_base(millis(), 0);
    uint32_t next_poll_ms = 0;

    /* The one loop that runs forever; each turn does a bounded amount of
       work. It never sleeps: under bench's emulator a core in WFI loses
       SysTicks (firmware/SMOKE.md). */
    for (;;) {
        uint32_t now_ms = millis();
        if ((int32_t)(now_ms - next_poll_ms) >= 0) {
            poll(now_ms);
            next_poll_ms = now_ms + POLL_MS;
        }
        if (line_complete()) {
            handle_line(pending_line.bytes, pending_line.len, pending_line.overflowed, millis());
            pending_line.len = 0;
            pending_line.overflowed = 0;
        }
        if (second_elapsed()) {
            seconds_counted++;
            send_time_base(millis(), 1);
        }
        /* The stamp is the last poll, up to a poll before now: sent a poll
           early, Snapshots are never further apart than the interval. */
        if (has_control && millis() - last_snapshot_ms >= SNAPSHOT_EVERY_MS - POLL_MS) {
            send_snapshot();
        }
    }
}
