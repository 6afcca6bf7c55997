/*
 * game.c: the clock of game.h, in whole milliseconds.
 */
#include "game.h"

#include "bench_contract.h"

static uint8_t opponent(uint8_t side)
{
    return side == BENCH_WHITE ? BENCH_BLACK : BENCH_WHITE;
}

static int is_last_stage(const game *g, uint32_t stage_index)
{
    return stage_index + 1u >= g->control.count;
}

/* Moves a side must have completed by the end of `stage_index` (6.2b):
   the stages' counts up to it, added. */
static uint32_t moves_by_end_of(const game *g, uint32_t stage_index)
{
    uint32_t moves = 0;
    for (uint32_t i = 0; i <= stage_index && i < g->control.count; i++) {
        moves += g->control.stages[i].moves;
    }
    return moves;
}

static void queue(game *g, const game_event *event)
{
    if (g->event_count < GAME_EVENTS_MAX) {
        g->events[g->event_count++] = *event;
    }
}

static void queue_stage_change(game *g, uint8_t side, uint32_t from, uint8_t cause, uint32_t at_ms)
{
    const display *d = &g->sides[side];
    game_event event = {EVENT_STAGE, side, cause, at_ms, from, d->stage, 0, d->moves, d->main_ms};
    queue(g, &event);
}

/* 6.2b: the next stage's time is added to what the side saved. */
static void open_next_stage(game *g, uint8_t side)
{
    display *d = &g->sides[side];
    d->stage++;
    d->main_ms += g->control.stages[d->stage].time_ms;
}

/* 6.3: `side`'s main time reached zero at `at_ms`. */
static void flag_falls(game *g, uint8_t side, uint32_t at_ms)
{
    display *d = &g->sides[side];
    d->flag = ++g->flags_fallen;
    game_event flag = {EVENT_FLAG, side, 0, at_ms, d->stage, 0, d->flag, d->moves, 0};
    queue(g, &flag);
    if (is_last_stage(g, d->stage)) {
        d->frozen = 1;
        d->delay_ms = 0;
        return;
    }
    uint32_t from = d->stage;
    open_next_stage(g, side);
    queue_stage_change(g, side, from, BENCH_CAUSE_FLAG_OPENED_NEXT, at_ms);
}

/* The delay of the stage `side` is in, given at the start of each move. */
static void begin_move(game *g, uint8_t side)
{
    display *d = &g->sides[side];
    const stage *current = &g->control.stages[d->stage];
    d->delay_ms = !d->frozen && current->bonus == BONUS_DELAY ? current->bonus_ms : 0u;
}

void game_new(game *g, const time_control *control)
{
    g->control = *control;
    for (int side = 0; side < 2; side++) {
        display *d = &g->sides[side];
        d->main_ms = control->stages[0].time_ms;
        d->delay_ms = 0;
        d->moves = 0;
        d->stage = 0;
        d->flag = 0;
        d->frozen = 0;
    }
    g->phase = BENCH_PHASE_NOT_STARTED;
    g->running = BENCH_WHITE;
    g->flags_fallen = 0;
    g->counted_to_ms = 0;
    g->event_count = 0;
}

void game_advance(game *g, uint32_t now_ms)
{
    if (now_ms < g->counted_to_ms) {
        return;
    }
    if (g->phase == BENCH_PHASE_RUNNING) {
        display *d = &g->sides[g->running];
        uint32_t at_ms = g->counted_to_ms;
        uint32_t left_ms = now_ms - at_ms;
        /* Each turn ends the delay or a stage: bounded by the stages. */
        for (uint32_t turn = 0; turn <= STAGES_MAX && !d->frozen; turn++) {
            uint32_t delay_used_ms = d->delay_ms < left_ms ? d->delay_ms : left_ms;
            d->delay_ms -= delay_used_ms;
            left_ms -= delay_used_ms;
            at_ms += delay_used_ms;
            if (d->delay_ms > 0u) {
                break;
            }
            if (left_ms < d->main_ms) {
                d->main_ms -= left_ms;
                break;
            }
            at_ms += d->main_ms;
            left_ms -= d->main_ms;
            d->main_ms = 0;
            flag_falls(g, g->running, at_ms);
        }
    }
    g->counted_to_ms = now_ms;
}

uint8_t game_start(game *g, uint32_t at_ms)
{
    if (g->phase != BENCH_PHASE_NOT_STARTED) {
        return BENCH_STATUS_NOT_ALLOWED;
    }
    g->phase = BENCH_PHASE_RUNNING;
    g->running = BENCH_WHITE;
    g->counted_to_ms = at_ms;
    begin_move(g, BENCH_WHITE);
    game_advance(g, at_ms); /* a stage of no time flags at once */
    return BENCH_STATUS_OK;
}

/* The move `side` completed: its bonus, then the stages its count completes. */
static void complete_move(game *g, uint8_t side, uint32_t at_ms)
{
    display *d = &g->sides[side];
    d->moves++;
    if (!d->frozen) {
        const stage *current = &g->control.stages[d->stage];
        if (current->bonus == BONUS_INCREMENT) {
            d->main_ms += current->bonus_ms; /* 6.2a */
        }
        /* A delay left unused is not kept (6.2b). */
        uint32_t from = d->stage;
        while (!is_last_stage(g, d->stage) && d->moves >= moves_by_end_of(g, d->stage)) {
            open_next_stage(g, side);
        }
        if (d->stage != from) {
            queue_stage_change(g, side, from, BENCH_CAUSE_MOVES_COMPLETED, at_ms);
        }
    }
    d->delay_ms = 0;
}

uint8_t game_press(game *g, uint8_t side, uint32_t at_ms)
{
    game_advance(g, at_ms);
    switch (g->phase) {
    case BENCH_PHASE_NOT_STARTED:
        return BENCH_RESULT_NOT_STARTED;
    case BENCH_PHASE_PAUSED:
        return BENCH_RESULT_PAUSED;
    case BENCH_PHASE_RUNNING:
        break;
    default:
        return BENCH_RESULT_FINISHED;
    }
    if (side != g->running) {
        return BENCH_RESULT_NOT_RUNNING; /* 6.8a */
    }
    complete_move(g, side, at_ms);
    g->running = opponent(side);
    begin_move(g, g->running);
    game_advance(g, at_ms); /* an opponent with no time left flags at once */
    return BENCH_RESULT_ACCEPTED;
}

uint8_t game_pause(game *g, uint32_t at_ms)
{
    if (g->phase != BENCH_PHASE_RUNNING) {
        return BENCH_STATUS_NOT_ALLOWED;
    }
    game_advance(g, at_ms);
    g->phase = BENCH_PHASE_PAUSED;
    return BENCH_STATUS_OK;
}

uint8_t game_resume(game *g, uint32_t at_ms)
{
    if (g->phase != BENCH_PHASE_PAUSED) {
        return BENCH_STATUS_NOT_ALLOWED;
    }
    if (at_ms > g->counted_to_ms) {
        g->counted_to_ms = at_ms; /* paused time is nobody's */
    }
    g->phase = BENCH_PHASE_RUNNING;
    return BENCH_STATUS_OK;
}

int game_take_event(game *g, game_event *event)
{
    if (g->event_count == 0u) {
        return 0;
    }
    *event = g->events[0];
    for (uint32_t i = 1; i < g->event_count; i++) {
        g->events[i - 1u] = g->events[i];
    }
    g->event_count--;
    return 1;
}
