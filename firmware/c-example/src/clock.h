/*
 * clock.h: a minimal chess clock, sudden death with or without a Fischer
 * increment, in the terms of FIDE Article 6.
 *
 *   NOT_STARTED --start (6.5)--> RUNNING(White) --press(White) (6.8a)--> RUNNING(Black) ...
 *                                  |      ^
 *                                pause  resume (6.13)
 *                                  v      |
 *                                PAUSED(side)
 *
 * Every call carries the instant it happens at, and first settles the time
 * that passed since the previous call. Ordering rule for equal instants: a
 * flag due at an instant falls before a call made at that instant, so a
 * press at the exact instant the display reaches zero is late (6.3). This
 * is bench's model's rule too, which the comparison relies on.
 *
 * After a flag (6.3) the display stands at zero and the game goes on as far
 * as the clock is concerned: the arbiter, or the players, decide what the
 * flag means (6.9, 6.10). Presses still complete moves, without increment.
 */
#ifndef CLOCK_H
#define CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* The largest time a control may set, as in bench's notation (1 000 000 s). */
#define CONTROL_TIME_MAX_US 1000000000000ull

typedef struct {
    uint64_t main_us;      /* each side's time for the game */
    uint64_t increment_us; /* added after each completed move (6.2a); 0: sudden death */
} time_control;

/* A flag: whose (BENCH_WHITE/BENCH_BLACK) and when. */
typedef struct {
    uint8_t side;
    uint32_t sequence; /* 1 the first flag of the game, 2 the next (6.12) */
    uint64_t at_us;
} flag_fall;

typedef struct {
    time_control control;
    uint8_t phase;                /* enum bench_phase */
    uint8_t side;                 /* the side whose clock runs, or resumes when paused */
    uint64_t remaining_us[2];     /* by BENCH_WHITE / BENCH_BLACK */
    uint32_t moves[2];            /* completed moves (6.15) */
    uint32_t flag_sequence[2];    /* 0: no flag; else flag_fall.sequence */
    uint32_t flags_fallen;
    uint64_t settled_at_us;       /* the clock is up to date to this instant */
} chess_clock;

/* Reads a `tc` text this clock can run: `S` or `S+I`, seconds with up to six
   decimals (`300`, `300+2`, `0.5+0.000001`), spaces around the whole text
   allowed. Returns -1 and fills *control, or the byte offset of the first
   thing it cannot run (BENCH_STATUS_BAD_TIME_CONTROL's error_position). */
int time_control_parse(const char *text, size_t len, time_control *control);

/* A new game under `control`, not started. */
void clock_new(chess_clock *clock, const time_control *control);

/* Brings the clock up to `at_us`; 1 and *flag if a flag fell on the way. */
int clock_settle(chess_clock *clock, uint64_t at_us, flag_fall *flag);

/* 6.5: White's clock starts. Returns an Ack status. */
uint8_t clock_start(chess_clock *clock, uint64_t at_us);

/* 6.8a: `side` presses, completing its move, at the instant the clock is
   settled to: the caller settles first (clock_settle), which reports a flag
   that fell before the press. Returns a BENCH_RESULT_*. */
uint8_t clock_press(chess_clock *clock, uint8_t side);

/* 6.13a: the arbiter stops the clocks, at the instant the clock is settled
   to (the caller settles first, as for a press). Returns an Ack status. */
uint8_t clock_pause(chess_clock *clock);

/* 6.13c: the arbiter restarts the clock that was running; the paused time
   is nobody's. Returns an Ack status. */
uint8_t clock_resume(chess_clock *clock, uint64_t at_us);

#endif
