/*
 * buttons.h: closing edge -> timestamp -> debounce -> a queue the main loop
 * drains.
 *
 * A press is stamped at its edge, in the interrupt handler, not when the
 * main loop gets to it: the move is complete when the clock is pressed
 * (FIDE 6.8a), and bench compares the stamp with the instant it made the
 * edge. A closing edge closer than DEBOUNCE_US to the button's last
 * accepted press is bounce: counted, and reported with the next press.
 */
#ifndef BUTTONS_H
#define BUTTONS_H

#include <stdint.h>

/* Edges on one button closer than this to its last accepted press are
   bounce (Hello.debounce_us; bench makes bounce inside this window). */
#define DEBOUNCE_US 20000u

/* Presses waiting for the main loop, which drains the queue on every turn
   (well under a millisecond); a debounced button gives at most one press per
   20 ms, so three buttons cannot fill 16. */
#define PRESS_QUEUE_CAPACITY 16u

/* A button by whose it is: bench_contract.h's BENCH_WHITE, BENCH_BLACK,
   BENCH_PAUSE_BUTTON (the pins are placed in buttons.c, FIDE 6.4). */
typedef struct {
    uint8_t button;
    uint8_t applied;     /* 0: it found the queue full; reported as not applied */
    uint16_t bounces;    /* edges swallowed as bounce since the button's previous press */
    uint32_t hw_counter; /* the TimeBase counter, read first in the interrupt */
    uint64_t at_us;      /* the closing edge */
} button_press;

/* Starts (a game began, 6.5) or stops (a new control, reset) registering
   presses; stopping forgets queued presses and the debounce history. */
void buttons_arm(int armed);

/* The oldest press not taken yet: 1 and *press, or 0. */
int buttons_take(button_press *press);

/* Port E's interrupt handler (vector 16 + 4). */
void gpioe_handler(void);

#endif
