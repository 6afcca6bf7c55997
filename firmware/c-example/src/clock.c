/*
 * clock.c: the clock and its time-control parser.
 */
#include "clock.h"

#include "bench_contract.h"

#define MICROS_PER_SECOND 1000000ull
#define DECIMALS_MAX 6

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Seconds at text[*at..len): digits, optionally '.' and 1 to 6 digits, at
   most CONTROL_TIME_MAX_US. Returns -1 and moves *at past them, or the
   offset of the error (a number too large: where it starts). */
static int parse_seconds(const char *text, size_t len, size_t *at, uint64_t *us)
{
    size_t start = *at, i = *at;
    uint64_t seconds = 0, fraction_us = 0, scale = MICROS_PER_SECOND;
    if (i >= len || text[i] < '0' || text[i] > '9') {
        return (int)i;
    }
    for (; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
        seconds = seconds * 10u + (uint64_t)(text[i] - '0');
        if (seconds > CONTROL_TIME_MAX_US / MICROS_PER_SECOND) {
            return (int)start;
        }
    }
    if (i < len && text[i] == '.') {
        size_t decimals = 0;
        for (i++; i < len && text[i] >= '0' && text[i] <= '9'; i++, decimals++) {
            if (decimals == DECIMALS_MAX) {
                return (int)i; /* the microsecond is the clock's resolution */
            }
            scale /= 10u;
            fraction_us += scale * (uint64_t)(text[i] - '0');
        }
        if (decimals == 0) {
            return (int)i;
        }
    }
    *us = seconds * MICROS_PER_SECOND + fraction_us;
    if (*us > CONTROL_TIME_MAX_US) {
        return (int)start;
    }
    *at = i;
    return -1;
}

int time_control_parse(const char *text, size_t len, time_control *control)
{
    size_t at = 0, written_len = len;
    int error;
    while (len > 0 && is_space(text[len - 1])) {
        len--;
    }
    while (at < len && is_space(text[at])) {
        at++;
    }
    if (at == len) {
        return (int)written_len; /* nothing but spaces: missing from the end */
    }
    control->increment_us = 0;
    error = parse_seconds(text, len, &at, &control->main_us);
    if (error >= 0) {
        return error;
    }
    if (at < len && text[at] == '+') {
        at++;
        /* `+d` delay, `+b` Bronstein: other clocks; this one has only the
           Fischer increment, so they are refused at their letter. */
        error = parse_seconds(text, len, &at, &control->increment_us);
        if (error >= 0) {
            return error;
        }
    }
    /* Anything more (`/` moves of a stage, `:` a next stage, `(` overtime)
       is a control this clock does not run. */
    return at == len ? -1 : (int)at;
}

void clock_new(chess_clock *clock, const time_control *control)
{
    clock->control = *control;
    clock->phase = BENCH_PHASE_NOT_STARTED;
    clock->side = BENCH_WHITE;
    for (int side = 0; side < 2; side++) {
        clock->remaining_us[side] = control->main_us;
        clock->moves[side] = 0;
        clock->flag_sequence[side] = 0;
    }
    clock->flags_fallen = 0;
    clock->settled_at_us = 0;
}

int clock_settle(chess_clock *clock, uint64_t at_us, flag_fall *flag)
{
    int fell = 0;
    if (at_us <= clock->settled_at_us && clock->phase != BENCH_PHASE_RUNNING) {
        return 0;
    }
    if (at_us < clock->settled_at_us) {
        at_us = clock->settled_at_us; /* never backwards */
    }
    uint8_t side = clock->side;
    uint64_t elapsed_us = at_us - clock->settled_at_us;
    if (clock->phase == BENCH_PHASE_RUNNING && clock->flag_sequence[side] == 0) {
        if (elapsed_us >= clock->remaining_us[side]) {
            /* 6.3: the flag falls at the instant the display reaches zero,
               which may be before this call. */
            flag->side = side;
            flag->at_us = clock->settled_at_us + clock->remaining_us[side];
            flag->sequence = ++clock->flags_fallen;
            clock->flag_sequence[side] = flag->sequence;
            clock->remaining_us[side] = 0;
            fell = 1;
        } else {
            clock->remaining_us[side] -= elapsed_us;
        }
    }
    clock->settled_at_us = at_us;
    return fell;
}

uint8_t clock_start(chess_clock *clock, uint64_t at_us)
{
    if (clock->phase != BENCH_PHASE_NOT_STARTED) {
        return BENCH_STATUS_NOT_ALLOWED;
    }
    clock->phase = BENCH_PHASE_RUNNING;
    clock->side = BENCH_WHITE;
    clock->settled_at_us = at_us;
    return BENCH_STATUS_OK;
}

uint8_t clock_press(chess_clock *clock, uint8_t side)
{
    switch (clock->phase) {
    case BENCH_PHASE_NOT_STARTED:
        return BENCH_RESULT_NOT_STARTED;
    case BENCH_PHASE_PAUSED:
        return BENCH_RESULT_PAUSED; /* 6.13: the arbiter has stopped the clocks */
    case BENCH_PHASE_RUNNING:
        break;
    default:
        return BENCH_RESULT_FINISHED;
    }
    if (side != clock->side) {
        return BENCH_RESULT_NOT_RUNNING; /* 6.8a: only the running clock can be stopped */
    }
    clock->moves[side]++;
    if (clock->flag_sequence[side] == 0) {
        clock->remaining_us[side] += clock->control.increment_us; /* 6.2a */
    }
    clock->side = side == BENCH_WHITE ? BENCH_BLACK : BENCH_WHITE;
    return BENCH_RESULT_ACCEPTED;
}

uint8_t clock_pause(chess_clock *clock)
{
    if (clock->phase != BENCH_PHASE_RUNNING) {
        return BENCH_STATUS_NOT_ALLOWED;
    }
    clock->phase = BENCH_PHASE_PAUSED;
    return BENCH_STATUS_OK;
}

uint8_t clock_resume(chess_clock *clock, uint64_t at_us)
{
    if (clock->phase != BENCH_PHASE_PAUSED) {
        return BENCH_STATUS_NOT_ALLOWED;
    }
    if (at_us > clock->settled_at_us) {
        clock->settled_at_us = at_us; /* paused time is nobody's */
    }
    clock->phase = BENCH_PHASE_RUNNING;
    return BENCH_STATUS_OK;
}
