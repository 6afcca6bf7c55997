/*
 * board.h: what the superloop needs of QEMU's lm3s6965evb (TI Stellaris
 * LM3S6965, Cortex-M3), and nothing else.
 *
 * - millis(): SysTick interrupts once a millisecond on the 12.5 MHz reset
 *   clock and its handler counts. That is the firmware's only interrupt and
 *   its only sense of time.
 * - Buttons: port E, PE0 White, PE1 Black, PE2 pause; inputs with pull-ups,
 *   active low (QEMU's keys up, down, left). Read by polling: the pins'
 *   levels, and the port's edge detector, which latches a closing edge in
 *   its raw status register whether or not its interrupt is enabled (it is
 *   not).
 * - The TimeBase counter: general-purpose timer 0 times out once a second;
 *   the loop polls its raw status and counts. QEMU models neither DWT nor
 *   reads of a timer's count (hil/CONTRACT.md section 5). The watchdog is
 *   never touched: bench keeps its own time with it on QEMU.
 */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

/* System clock out of reset, as QEMU derives it (no PLL set up). */
#define SYSCLK_HZ 12500000u
#define TICK_MS 1u
#define TICK_US (TICK_MS * 1000u)
#define SYSTICK_RELOAD (SYSCLK_HZ / 1000u * TICK_MS - 1u)

/* The TimeBase counter: one count a second, 32 bits. */
#define HW_COUNTER_HZ 1u
#define HW_COUNTER_BITS 32u

/* Port E pins of the buttons. */
#define PIN_WHITE (1u << 0)
#define PIN_BLACK (1u << 1)
#define PIN_PAUSE (1u << 2)
#define BUTTON_PINS (PIN_WHITE | PIN_BLACK | PIN_PAUSE)

/* Sets up SysTick, port E (inputs, edge detector on closing edges, no
   interrupt) and timer 0 (no interrupt). */
void board_init(void);

/* Milliseconds since board_init. Wraps after 49 days; a game is shorter. */
uint32_t millis(void);

/* The button pins whose contact is closed now (BUTTON_PINS bits). */
uint32_t pins_closed(void);

/* The button pins that closed at least once since the last call (the edge
   detector's latch), cleared by the call. */
uint32_t pins_closed_since_last_call(void);

/* 1 if timer 0 timed out since the last call (cleared by the call), else 0.
   Once a second. */
int second_elapsed(void);

#endif
