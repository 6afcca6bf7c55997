/*
 * game.h: the clock, counted in whole milliseconds, for the time controls
 * this firmware runs: one to five stages (6.2b), each "N moves in T" but
 * the last, each with nothing, a Fischer increment (6.2a) or a time delay
 * (6.2b) per move.
 *
 *   NOT_STARTED --start (6.5)--> RUNNING(White) --press (6.8a)--> RUNNING(Black) ...
 *                                  |    ^
 *                                pause resume (6.13)
 *                                  v    |
 *                                PAUSED(side)
 *
 * game_advance counts the running display down to an instant and lets
 * every rule due on the way happen at its own instant: the delay runs out
 * before the main time runs, a flag falls when the main time reaches zero
 * (6.3). A flag in a stage before the last opens the next stage at once,
 * its time added to the zero left (a cumulative clock: the arbiter rules
 * the flag); a flag in the last stage leaves the display at zero. A rule
 * due at an instant comes before a press at that instant.
 *
 * Flags and stage changes are queued as events for the caller to report.
 */
#ifndef GAME_H
#define GAME_H

#include <stdint.h>

#define STAGES_MAX 5u

enum bonus_kind { BONUS_NONE, BONUS_INCREMENT, BONUS_DELAY };

typedef struct {
    uint32_t moves;   /* moves of the stage; 0 in the last (the rest of the game) */
    uint32_t time_ms; /* given when the stage opens */
    uint8_t bonus;    /* enum bonus_kind */
    uint32_t bonus_ms;
} stage;

typedef struct {
    stage stages[STAGES_MAX];
    uint32_t count;
} time_control;

typedef struct {
    uint32_t main_ms;  /* the big number */
    uint32_t delay_ms; /* time delay left for the move in progress */
    uint32_t moves;    /* completed moves (6.15) */
    uint32_t stage;    /* 0-based: the period of the contract */
    uint32_t flag;     /* 0, or the flag's order in the game (1 first) */
    int frozen;        /* flagged in the last stage: stays at zero */
} display;

enum event_kind { EVENT_FLAG, EVENT_STAGE };

typedef struct {
    uint8_t kind; /* enum event_kind */
    uint8_t side;
    uint8_t cause;   /* EVENT_STAGE: BENCH_CAUSE_* */
    uint32_t at_ms;  /* the instant of the flag or change */
    uint32_t from;   /* EVENT_FLAG: the stage it fell in; EVENT_STAGE: the stage left */
    uint32_t to;     /* EVENT_STAGE: the stage entered */
    uint32_t sequence;
    uint32_t moves;
    uint32_t main_ms; /* EVENT_STAGE: the display right after the change */
} game_event;

/* Events one call can queue: each stage can flag and change once per side. */
#define GAME_EVENTS_MAX (4u * STAGES_MAX)

typedef struct {
    time_control control;
    display sides[2];
    uint8_t phase;   /* enum bench_phase */
    uint8_t running; /* the side whose clock runs, or will on resume */
    uint32_t flags_fallen;
    uint32_t counted_to_ms; /* the displays are counted up to this instant */
    game_event events[GAME_EVENTS_MAX];
    uint32_t event_count;
} game;

/* A new game under `control`, not started. */
void game_new(game *g, const time_control *control);

/* Counts the running display down to `now_ms` (never backwards). */
void game_advance(game *g, uint32_t now_ms);

/* 6.5: White's clock starts at `at_ms`. A BENCH_STATUS_*. */
uint8_t game_start(game *g, uint32_t at_ms);

/* 6.8a: `side` presses at `at_ms`. A BENCH_RESULT_*. */
uint8_t game_press(game *g, uint8_t side, uint32_t at_ms);

/* 6.13: the arbiter stops or restarts the clocks at `at_ms`. BENCH_STATUS_*. */
uint8_t game_pause(game *g, uint32_t at_ms);
uint8_t game_resume(game *g, uint32_t at_ms);

/* Takes the oldest queued event: 1 and *event, or 0. */
int game_take_event(game *g, game_event *event);

/* Reads `text` (len bytes, bench's notation, hil/CONTRACT.md section 4):
   -1 and *control, or the 0-based offset of the first byte refused. */
int time_control_parse(const char *text, uint32_t len, time_control *control);

#endif
