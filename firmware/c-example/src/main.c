/*
 * main.c: a chess clock that bench can test, in plain C.
 *
 * It runs sudden death and Fischer increment (clock.c) and implements
 * version 3 of the bench firmware contract (hil/CONTRACT.md,
 * hil/contract/include/bench_contract.h): presses in from the buttons,
 * records out over the RTT up-channel `bench`, command lines in over
 * `bench-ctl`.
 *
 *   SysTick 1 kHz --> now_us() <-- port E edge interrupt --> buttons (debounce, queue)
 *                        |                                          |
 *   bench-ctl --> handle_line      handle_press <-------------------+
 *                        |              |
 *                  clock.c (settle: flags at their instants)
 *                        |
 *                 bench: Hello, Capabilities, Press, Flag, Snapshot, TimeBase, Ack
 *
 * One image plays every game: bench writes `reset`, `tc TEXT`, `start`,
 * presses the buttons, and writes the next control.
 */
#include "bench_contract.h"
#include "board.h"
#include "buttons.h"
#include "clock.h"
#include "rtt.h"

/* Snapshots of both displays while a control is set, besides those after
   every event: bench's lockstep needs a record at least every 100 ms. */
#define SNAPSHOT_INTERVAL_US 100000u
/* Command lines handled per turn of the main loop. */
#define LINES_PER_TURN_MAX 4u

/* What this clock runs and does (the Capabilities record). */
#define CONTROLS (BENCH_CONTROL_PLAIN | BENCH_CONTROL_INCREMENT)
#define ARBITER_FUNCTIONS BENCH_ARBITER_PAUSE
/* The display marks the side whose flag fell first (the clock keeps the
   order, flag_fall.sequence), so a game in which both flags fell is ruled
   by that order (6.12). A clock with only two flag lamps would announce
   BENCH_FLAG_ORDER_NOT_SHOWN. */
#define FLAG_ORDER BENCH_FLAG_ORDER_SHOWN

static const char firmware_name[8] = {'c', 'e', 'x', 'a', 'm', 'p', 'l', 'e'};
#define FIRMWARE_VERSION 1u

static uint32_t seq;           /* records produced, sent or dropped */
static uint32_t dropped_total; /* records dropped: the up buffer was full */
static uint32_t commands;      /* command lines received */
static int has_control;        /* a `tc` was accepted: a game to show */
static chess_clock clock;

static uint64_t later(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Numbers every record and writes it whole, or counts it dropped: the
   firmware never waits for the host. */
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
    bench_record_init(&record, BENCH_HELLO, BENCH_NO_SIDE, now_us());
    record.hello.contract_version = BENCH_CONTRACT_VERSION;
    record.hello.record_size = BENCH_RECORD_SIZE;
    record.hello.tick_us = TICK_US;
    record.hello.hw_counter_hz = HW_COUNTER_HZ;
    record.hello.hw_counter_bits = HW_COUNTER_BITS;
    record.hello.buttons = BENCH_BUTTONS_PAUSE;
    record.hello.debounce_us = DEBOUNCE_US;
    record.hello.firmware_version = FIRMWARE_VERSION;
    for (int i = 0; i < 8; i++) {
        record.hello.firmware_name[i] = firmware_name[i];
    }
    send(&record);
}

/* Contract 3: right after Hello. bench skips, with a reason, the scenarios
   whose controls are not in it, and tests the arbiter functions it has. */
static void send_capabilities(void)
{
    bench_record record;
    bench_record_init(&record, BENCH_CAPABILITIES, BENCH_NO_SIDE, now_us());
    record.capabilities.controls = CONTROLS;
    record.capabilities.arbiter = ARBITER_FUNCTIONS;
    record.capabilities.flag_order = FLAG_ORDER;
    send(&record);
}

static void send_time_base(uint32_t counter, uint64_t at_us, int edge)
{
    bench_record record;
    bench_record_init(&record, BENCH_TIME_BASE, BENCH_NO_SIDE, at_us);
    record.time_base.hw_counter = counter;
    record.time_base.ticks = board_ticks();
    record.time_base.flags = edge ? BENCH_TIME_BASE_EDGE : 0u;
    record.time_base.dropped_total = dropped_total;
    send(&record);
}

/* Both displays at the instant the clock is settled to. */
static void send_snapshot(void)
{
    bench_record record;
    uint8_t running = clock.phase == BENCH_PHASE_RUNNING || clock.phase == BENCH_PHASE_PAUSED;
    bench_record_init(&record, BENCH_SNAPSHOT, running ? clock.side : BENCH_NO_SIDE, clock.settled_at_us);
    record.snapshot.remaining_white_us = clock.remaining_us[BENCH_WHITE];
    record.snapshot.remaining_black_us = clock.remaining_us[BENCH_BLACK];
    record.snapshot.moves_white = clock.moves[BENCH_WHITE];
    record.snapshot.moves_black = clock.moves[BENCH_BLACK];
    record.snapshot.phase = clock.phase;
    record.snapshot.flags = (clock.flag_sequence[BENCH_WHITE] ? BENCH_SNAPSHOT_FLAG_WHITE : 0u) |
                            (clock.flag_sequence[BENCH_BLACK] ? BENCH_SNAPSHOT_FLAG_BLACK : 0u);
    send(&record);
}

/* Settles the clock up to `at_us` and reports a flag that fell on the way,
   at the instant it fell (6.3) and the instant it was noticed. */
static int settle(uint64_t at_us)
{
    flag_fall flag;
    if (!clock_settle(&clock, at_us, &flag)) {
        return 0;
    }
    bench_record record;
    bench_record_init(&record, BENCH_FLAG, flag.side, flag.at_us);
    record.flag.period = 0; /* sudden death has one period, the last */
    record.flag.sequence = flag.sequence;
    record.flag.observed_at_us = later(now_us(), flag.at_us);
    record.flag.moves = clock.moves[flag.side];
    send(&record);
    return 1;
}

/* The pause button toggles the arbiter's stop (6.13). */
static uint8_t toggle_pause(void)
{
    if (clock.phase == BENCH_PHASE_PAUSED) {
        return clock_resume(&clock, clock.settled_at_us) == BENCH_STATUS_OK ? BENCH_RESULT_ACCEPTED
                                                                           : BENCH_RESULT_OTHER;
    }
    if (clock.phase == BENCH_PHASE_RUNNING) {
        return clock_pause(&clock) == BENCH_STATUS_OK ? BENCH_RESULT_ACCEPTED : BENCH_RESULT_OTHER;
    }
    return clock.phase == BENCH_PHASE_NOT_STARTED ? BENCH_RESULT_NOT_STARTED : BENCH_RESULT_FINISHED;
}

/* One press from the queue, applied at its edge (6.8a). */
static void handle_press(const button_press *press)
{
    /* The queue is drained before the loop settles past its presses, so the
       edge is never behind the clock; `later` only guards that. */
    uint64_t at_us = later(press->at_us, clock.settled_at_us);
    if (settle(at_us)) {
        send_snapshot(); /* a flag fell before the press: the press is late */
    }
    uint8_t result;
    if (!press->applied) {
        result = BENCH_RESULT_NOT_APPLIED;
    } else if (press->button == BENCH_PAUSE_BUTTON) {
        result = toggle_pause();
    } else {
        result = clock_press(&clock, press->button);
    }
    bench_record record;
    bench_record_init(&record, BENCH_PRESS, press->button, at_us);
    record.press.result = result;
    record.press.bounces = press->bounces;
    if (press->button != BENCH_PAUSE_BUTTON) {
        record.press.moves = clock.moves[press->button];
        record.press.remaining_us = clock.remaining_us[press->button];
    }
    record.press.handled_at_us = later(now_us(), at_us);
    record.press.edge_hw_counter = press->hw_counter;
    send(&record);
    (void)settle(at_us); /* an opponent with no time left flags at once */
    send_snapshot();
}

/* A new game under the control set, not started: presses count from `start`. */
static void new_game(const time_control *control)
{
    buttons_arm(0);
    clock_new(&clock, control);
    has_control = 1;
}

/* What a command does; its Ack status. `at_us`: the instant it takes effect. */
static uint8_t execute(const bench_command_line *line, uint64_t at_us, uint16_t *error_position)
{
    time_control control;
    int position;
    switch (line->command) {
    case BENCH_COMMAND_TC:
        position = time_control_parse(line->text, line->text_len, &control);
        if (position >= 0) {
            *error_position = (uint16_t)position;
            return BENCH_STATUS_BAD_TIME_CONTROL;
        }
        new_game(&control);
        return BENCH_STATUS_OK;
    case BENCH_COMMAND_RESET:
        if (!has_control) {
            return BENCH_STATUS_NOT_ALLOWED;
        }
        new_game(&clock.control);
        return BENCH_STATUS_OK;
    case BENCH_COMMAND_START:
        if (!has_control || clock_start(&clock, at_us) != BENCH_STATUS_OK) {
            return BENCH_STATUS_NOT_ALLOWED;
        }
        buttons_arm(1); /* 6.5: White's clock runs; presses count from now */
        return BENCH_STATUS_OK;
    case BENCH_COMMAND_PAUSE:
        return has_control ? clock_pause(&clock) : BENCH_STATUS_NOT_ALLOWED;
    case BENCH_COMMAND_RESUME:
        return has_control ? clock_resume(&clock, at_us) : BENCH_STATUS_NOT_ALLOWED;
    default:
        /* set, adjust, moves, replace: this clock has no arbiter menu for them, and
           its Capabilities say so. */
        return BENCH_STATUS_UNSUPPORTED;
    }
}

/* One bench-ctl line (too_long: it overflowed the buffer and was
   discarded), answered by exactly one Ack and followed by a Snapshot. */
static void handle_line(const char *text, size_t len, int too_long, uint64_t now)
{
    bench_command_line line;
    uint16_t error_position = 0;
    uint8_t status;
    commands++;
    if (has_control && settle(now)) {
        send_snapshot();
    }
    uint64_t at_us = has_control ? later(now, clock.settled_at_us) : now;
    if (too_long) {
        (void)bench_command_parse("", 0, &line); /* no command, no side */
        status = BENCH_STATUS_LINE_TOO_LONG;
    } else if (bench_command_parse(text, len, &line) != BENCH_STATUS_OK) {
        status = line.status;
        error_position = line.error_position;
    } else {
        status = execute(&line, at_us, &error_position);
    }
    bench_record record;
    bench_record_init(&record, BENCH_ACK, line.side, at_us);
    record.ack.command = line.command;
    record.ack.status = status;
    record.ack.error_position = error_position;
    record.ack.commands = commands;
    record.ack.initial_us = has_control ? clock.control.main_us : 0u;
    record.ack.final_period = 0; /* sudden death: period 0 is the last */
    send(&record);
    if (has_control) {
        if (at_us > clock.settled_at_us) {
            (void)settle(at_us);
        }
        send_snapshot();
    }
}

/* Collects bench-ctl bytes into lines: one longest line and a '\r' fit, a
   longer line is discarded whole (BENCH_STATUS_LINE_TOO_LONG). */
static struct {
    char bytes[BENCH_COMMAND_LINE_MAX + 1];
    size_t len;
    int overflowed;
} line_buffer;

/* Reads bench-ctl up to the end of a line; 1 if one ended. */
static int next_line(void)
{
    uint8_t byte;
    for (uint32_t i = 0; i < RTT_DOWN_BUFFER_BYTES && rtt_read_down(&byte); i++) {
        if (byte == '\n') {
            return 1;
        }
        if (line_buffer.len < sizeof line_buffer.bytes) {
            line_buffer.bytes[line_buffer.len++] = (char)byte;
        } else {
            line_buffer.overflowed = 1;
        }
    }
    return 0;
}

/* The next time a periodic job is due: one interval after the last due
   time, or after `now` if the loop fell more than an interval behind. */
static uint64_t next_due(uint64_t due_us, uint64_t now, uint64_t interval_us)
{
    return due_us + interval_us > now ? due_us + interval_us : now + interval_us;
}

int main(void)
{
    board_init();
    rtt_init();
    send_hello();
    send_capabilities();
    send_time_base(hw_counter(), now_us(), 0);
    uint64_t next_snapshot_us = SNAPSHOT_INTERVAL_US;

    /* The one loop that runs forever. Each turn does a bounded amount of
       work: at most PRESS_QUEUE_CAPACITY presses and LINES_PER_TURN_MAX
       lines. It never sleeps: under bench's emulator (QEMU -icount,
       sleep=off) a core waiting in WFI loses every other SysTick
       (firmware/SMOKE.md); a board on batteries would sleep here. */
    for (;;) {
        uint64_t now = now_us();
        button_press press;
        /* Presses first: each is applied at its own edge, before a command
           or the loop settles the clock to this turn's instant. */
        for (uint32_t i = 0; i < PRESS_QUEUE_CAPACITY && buttons_take(&press); i++) {
            if (has_control) {
                handle_press(&press);
            }
        }
        for (uint32_t i = 0; i < LINES_PER_TURN_MAX && next_line(); i++) {
            handle_line(line_buffer.bytes, line_buffer.len, line_buffer.overflowed, now);
            line_buffer.len = 0;
            line_buffer.overflowed = 0;
        }
        if (has_control && settle(now)) {
            send_snapshot();
        }
        if (has_control && now >= next_snapshot_us) {
            send_snapshot();
            next_snapshot_us = next_due(next_snapshot_us, now, SNAPSHOT_INTERVAL_US);
        }
        uint32_t counter;
        uint64_t counter_at_us;
        if (take_counter_edge(&counter, &counter_at_us)) {
            send_time_base(counter, counter_at_us, 1);
        }
    }
}
