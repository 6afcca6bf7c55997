/*
 * board.h: the TI Stellaris LM3S6965 as QEMU's lm3s6965evb models it.
 *
 * - Firmware clock: SysTick on the 12.5 MHz system clock (the reset clock,
 *   no PLL), one interrupt per millisecond; now_us() is the tick count plus
 *   the cycles already run in the current tick.
 * - Free-running hardware counter (the contract's TimeBase counter): general
 *   purpose timer 0 times out once a second and its interrupt counts the
 *   timeouts. QEMU models neither DWT CYCCNT nor reads of a timer's count,
 *   so counted timeouts are the counter (hil/CONTRACT.md section 5).
 * - Buttons: port E, PE0 White, PE1 Black, PE2 pause; inputs with
 *   pull-ups, active low. QEMU drives them from the keys up, down, left.
 */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

/* System clock out of reset as QEMU derives it from RCC (no PLL set up). */
#define SYSCLK_HZ 12500000u
/* The firmware clock's tick: Hello.tick_us, and bench's tolerance (section 9). */
#define TICK_US 1000u
#define CYCLES_PER_TICK (SYSCLK_HZ / (1000000u / TICK_US))
/* SysTick counts RELOAD..0, so a tick lasts RELOAD + 1 cycles. */
#define SYSTICK_RELOAD (CYCLES_PER_TICK - 1u)

/* The TimeBase counter: one count a second, 32 bits (Hello fields). */
#define HW_COUNTER_HZ 1u
#define HW_COUNTER_BITS 32u

/* Port E pins of the buttons. */
#define PIN_WHITE (1u << 0)
#define PIN_BLACK (1u << 1)
#define PIN_PAUSE (1u << 2)
#define BUTTON_PINS (PIN_WHITE | PIN_BLACK | PIN_PAUSE)

/* Sets up SysTick, timer 0 and port E and enables their interrupts. */
void board_init(void);

/* The firmware clock: microseconds since board_init, never going backwards. */
uint64_t now_us(void);

/* The raw tick count, low 32 bits (TimeBase.ticks). */
uint32_t board_ticks(void);

/* The free-running counter: timer 0's timeouts so far. */
uint32_t hw_counter(void);

/* The latest counter edge not taken yet: 1 and its count and instant, or 0. */
int take_counter_edge(uint32_t *counter, uint64_t *at_us);

/* Port E's pending edges (cleared by the call) and the pins' levels now. */
uint32_t take_button_edges(uint32_t *levels);

/* Interrupts off, returning the previous state; and back. */
uint32_t interrupts_disable(void);
void interrupts_restore(uint32_t primask);

#endif
