/*
 * time_control.c: bench's notation (clock/src/notation.rs) for the controls
 * this clock runs, in whole seconds up to 9:59:59:
 *
 *   control = stage *( ":" stage )          ; 1 to 5 stages
 *   stage   = [ moves "/" ] seconds [ "+" seconds | "+d" seconds ]
 *
 * Refused, at the byte where the clock stops reading (the position goes
 * back in the Ack): a fraction of a second (at its '.'), a time longer than
 * TIME_MAX_S (where the number starts), a Bronstein delay (its 'b'), an
 * hourglass ('*'), overtime ('('), and what bench's notation refuses, at
 * bench's position: a stage of no moves (its count), a last stage with a
 * move count or a "rest of the game" before the last (the stage's start).
 */
#include "bench_contract.h"
#include "game.h"
#include "limits.h"

#define NOT_A_DIGIT 10u
#define MOVES_MAX 100000u

typedef struct {
    const char *text;
    uint32_t at;
    uint32_t end;
} reader;

static uint32_t digit(const reader *r)
{
    if (r->at >= r->end || r->text[r->at] < '0' || r->text[r->at] > '9') {
        return NOT_A_DIGIT;
    }
    return (uint32_t)(r->text[r->at] - '0');
}

static int next_is(const reader *r, char c)
{
    return r->at < r->end && r->text[r->at] == c;
}

/* A whole number not above `max`: -1 and *number, or the error's offset. */
static int whole_number(reader *r, uint32_t max, uint32_t *number)
{
    uint32_t start = r->at;
    uint32_t value = 0;
    if (digit(r) == NOT_A_DIGIT) {
        return (int)r->at;
    }
    for (uint32_t d = digit(r); d != NOT_A_DIGIT; d = digit(r)) {
        if (value > (max - d) / 10u) {
            return (int)start;
        }
        value = value * 10u + d;
        r->at++;
    }
    *number = value;
    return -1;
}

/* Whole seconds up to TIME_MAX_S, in ms. */
static int seconds(reader *r, uint32_t *ms)
{
    uint32_t value;
    int error = whole_number(r, TIME_MAX_S, &value);
    if (error >= 0) {
        return error;
    }
    if (next_is(r, '.')) {
        return (int)r->at; /* the clock is set in whole seconds */
    }
    *ms = value * 1000u;
    return -1;
}

static int bonus(reader *r, stage *s)
{
    s->bonus = BONUS_NONE;
    s->bonus_ms = 0;
    if (!next_is(r, '+')) {
        return -1;
    }
    r->at++;
    s->bonus = BONUS_INCREMENT;
    if (next_is(r, 'd')) {
        r->at++;
        s->bonus = BONUS_DELAY;
    }
    return seconds(r, &s->bonus_ms);
}

/* One stage; *has_count says whether it had "moves/". */
static int one_stage(reader *r, stage *s, int *has_count, uint32_t *count_at)
{
    uint32_t first;
    uint32_t start = r->at;
    int error = whole_number(r, TIME_MAX_S > MOVES_MAX ? TIME_MAX_S : MOVES_MAX, &first);
    if (error >= 0) {
        return error;
    }
    *has_count = next_is(r, '/');
    if (*has_count) {
        r->at++;
        s->moves = first;
        *count_at = start;
        error = seconds(r, &s->time_ms);
    } else {
        r->at = start;
        s->moves = 0;
        error = seconds(r, &s->time_ms);
    }
    return error >= 0 ? error : bonus(r, s);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

int time_control_parse(const char *text, uint32_t len, time_control *control)
{
    reader r = {text, 0, len};
    uint32_t starts[STAGES_MAX], count_at[STAGES_MAX];
    int has_count[STAGES_MAX];
    while (r.end > 0u && is_space(text[r.end - 1u])) {
        r.end--;
    }
    while (r.at < r.end && is_space(text[r.at])) {
        r.at++;
    }
    if (r.at == r.end) {
        return (int)len; /* empty: missing from the end, as bench says */
    }
    control->count = 0;
    for (;;) {
        if (control->count == STAGES_MAX) {
            return (int)r.at; /* a sixth stage */
        }
        uint32_t index = control->count;
        starts[index] = r.at;
        int error = one_stage(&r, &control->stages[index], &has_count[index], &count_at[index]);
        if (error >= 0) {
            return error;
        }
        control->count++;
        if (!next_is(&r, ':')) {
            break;
        }
        r.at++;
    }
    if (r.at != r.end) {
        return (int)r.at; /* '(' overtime, or anything else */
    }
    for (uint32_t i = 0; i < control->count; i++) {
        int last = i + 1u == control->count;
        if (has_count[i] && control->stages[i].moves == 0u) {
            return (int)count_at[i];
        }
        if (has_count[i] == last) {
            return (int)starts[i]; /* the last stage is the rest of the game, and only it */
        }
    }
    return -1;
}
