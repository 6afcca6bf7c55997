/*
 * board.c: the LM3S6965's registers, written at the addresses of its data
 * sheet. Only what this firmware uses is here.
 */
#include "board.h"

#define REG(address) (*(volatile uint32_t *)(address))

/* System control: run-mode clock gating. */
#define SYSCTL_RCGC1 REG(0x400FE104u)
#define SYSCTL_RCGC2 REG(0x400FE108u)
#define RCGC1_TIMER0 (1u << 16)
#define RCGC2_GPIOE (1u << 4)

/* SysTick and the interrupt controller (every Cortex-M3). */
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define SYST_CSR_ENABLE (1u << 0)
#define SYST_CSR_TICKINT (1u << 1)
#define SYST_CSR_CLKSOURCE_CORE (1u << 2)
#define SCB_ICSR REG(0xE000ED04u)
#define ICSR_PENDSTSET (1u << 26)
#define NVIC_ISER0 REG(0xE000E100u)
#define NVIC_ICPR0 REG(0xE000E280u)

/* Device interrupt numbers (data sheet, interrupt table). */
#define IRQ_GPIOE 4u
#define IRQ_TIMER0A 19u

/* General-purpose timer 0. */
#define GPTM0_CFG REG(0x40030000u)
#define GPTM0_TAMR REG(0x40030004u)
#define GPTM0_CTL REG(0x4003000Cu)
#define GPTM0_IMR REG(0x40030018u)
#define GPTM0_ICR REG(0x40030024u)
#define GPTM0_TAILR REG(0x40030028u)
#define GPTM_CFG_32_BIT 0x0u
#define GPTM_TAMR_PERIODIC 0x2u
#define GPTM_INT_TATO (1u << 0) /* timer A time-out */
#define GPTM_CTL_TAEN (1u << 0)
/* Cycles between two timeouts: one second. QEMU's period is exactly the
   load value (on silicon it is one cycle more: 0.08 ppm). */
#define COUNTER_PERIOD_CYCLES (SYSCLK_HZ / HW_COUNTER_HZ)

/* GPIO port E (APB aperture). DATA is masked by address bits 9:2: reading at
   offset 0x3FC gives all eight pins. */
#define GPIOE_BASE 0x40024000u
#define GPIOE_DATA_ALL REG(GPIOE_BASE + 0x3FCu)
#define GPIOE_DIR REG(GPIOE_BASE + 0x400u)
#define GPIOE_IS REG(GPIOE_BASE + 0x404u)
#define GPIOE_IBE REG(GPIOE_BASE + 0x408u)
#define GPIOE_IM REG(GPIOE_BASE + 0x410u)
#define GPIOE_MIS REG(GPIOE_BASE + 0x418u)
#define GPIOE_ICR REG(GPIOE_BASE + 0x41Cu)
#define GPIOE_PUR REG(GPIOE_BASE + 0x510u)
#define GPIOE_DEN REG(GPIOE_BASE + 0x51Cu)

_Static_assert(SYSTICK_RELOAD < (1u << 24), "SysTick is a 24-bit counter");
_Static_assert(SYSCLK_HZ % (1000000u / TICK_US) == 0, "a tick is a whole number of cycles");

/* Ticks since board_init: 64 bits, so read with interrupts off. */
static volatile uint64_t ticks;
/* Timer 0 timeouts (seconds), and the latest one the main loop has not taken. */
static volatile uint32_t seconds;
static volatile int counter_edge_pending;
static volatile uint32_t counter_edge_count;
static volatile uint64_t counter_edge_at_us;

uint32_t interrupts_disable(void)
{
    uint32_t primask;
    __asm volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
    return primask;
}

void interrupts_restore(uint32_t primask)
{
    __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
}

/* Vector 15. Kept tiny: bench's lockstep stops here at every tick near a
   press and steps out of it (hil/CONTRACT.md section 7). */
void systick_handler(void)
{
    ticks = ticks + 1u;
}

/* Timer 0 timeout, once a second: stamp first, then count, so the stamp is
   the edge to within the interrupt's entry whatever the main loop does. */
void timer0a_handler(void)
{
    uint64_t at_us = now_us();
    GPTM0_ICR = GPTM_INT_TATO;
    seconds = seconds + 1u;
    counter_edge_count = seconds;
    counter_edge_at_us = at_us;
    counter_edge_pending = 1;
}

uint64_t now_us(void)
{
    uint32_t primask = interrupts_disable();
    uint64_t tick_count = ticks;
    /* A wrap the handler has not counted yet shows as a pending SysTick. Read
       the counter on both sides of that check: if the wrap came in between,
       the second reading is after it. */
    uint32_t before = SYST_CVR;
    uint32_t pending = SCB_ICSR & ICSR_PENDSTSET;
    uint32_t after = SYST_CVR;
    interrupts_restore(primask);
    uint32_t current = before;
    if (pending) {
        tick_count += 1u;
        current = after;
    }
    /* The tick ends when the counter steps from 1 to 0; QEMU shows 0 for the
       first cycle of the next tick, and RELOAD for the second. */
    uint32_t elapsed_cycles = current == 0u ? 0u : SYSTICK_RELOAD + 1u - current;
    uint32_t within_tick_us = elapsed_cycles * TICK_US / CYCLES_PER_TICK;
    if (within_tick_us > TICK_US - 1u) {
        within_tick_us = TICK_US - 1u;
    }
    return tick_count * TICK_US + within_tick_us;
}

uint32_t board_ticks(void)
{
    uint32_t primask = interrupts_disable();
    uint32_t low = (uint32_t)ticks;
    interrupts_restore(primask);
    return low;
}

uint32_t hw_counter(void)
{
    return seconds;
}

int take_counter_edge(uint32_t *counter, uint64_t *at_us)
{
    uint32_t primask = interrupts_disable();
    int pending = counter_edge_pending;
    *counter = counter_edge_count;
    *at_us = counter_edge_at_us;
    counter_edge_pending = 0;
    interrupts_restore(primask);
    return pending;
}

uint32_t take_button_edges(uint32_t *levels)
{
    uint32_t edges = GPIOE_MIS & BUTTON_PINS;
    GPIOE_ICR = edges;
    *levels = GPIOE_DATA_ALL & BUTTON_PINS;
    return edges;
}

static void timer0_init(void)
{
    GPTM0_CTL = 0u;
    GPTM0_CFG = GPTM_CFG_32_BIT;
    GPTM0_TAMR = GPTM_TAMR_PERIODIC;
    GPTM0_TAILR = COUNTER_PERIOD_CYCLES;
    GPTM0_ICR = GPTM_INT_TATO;
    GPTM0_IMR = GPTM_INT_TATO;
    GPTM0_CTL = GPTM_CTL_TAEN;
}

/* Inputs with pull-ups, an interrupt on both edges: the closing edge is the
   press (6.8a), the opening edge tells a press from a chatter of one. */
static void buttons_pins_init(void)
{
    GPIOE_DIR &= ~BUTTON_PINS;
    GPIOE_PUR |= BUTTON_PINS;
    GPIOE_DEN |= BUTTON_PINS;
    GPIOE_IS &= ~BUTTON_PINS; /* edge, not level */
    GPIOE_IBE |= BUTTON_PINS; /* both edges */
    GPIOE_ICR = BUTTON_PINS;
    GPIOE_IM |= BUTTON_PINS;
}

void board_init(void)
{
    SYSCTL_RCGC1 |= RCGC1_TIMER0;
    SYSCTL_RCGC2 |= RCGC2_GPIOE;
    /* Silicon needs a few cycles after gating a peripheral's clock on
       before its registers answer: this read spends them. */
    (void)SYSCTL_RCGC2;

    timer0_init();
    buttons_pins_init();

    SYST_RVR = SYSTICK_RELOAD;
    SYST_CVR = 0u; /* any write clears it */
    SYST_CSR = SYST_CSR_CLKSOURCE_CORE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;

    NVIC_ICPR0 = (1u << IRQ_GPIOE) | (1u << IRQ_TIMER0A);
    NVIC_ISER0 = (1u << IRQ_GPIOE) | (1u << IRQ_TIMER0A);
}
