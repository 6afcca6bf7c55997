/*
 * board.c: the LM3S6965 registers the superloop uses, at the addresses of
 * the data sheet.
 */
#include "board.h"

#include "bench_contract.h"

#define REG(address) (*(volatile uint32_t *)(address))

#define SYSCTL_RCGC1 REG(0x400FE104u)
#define SYSCTL_RCGC2 REG(0x400FE108u)
#define RCGC1_TIMER0 (1u << 16)
#define RCGC2_GPIOE (1u << 4)

#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define SYST_CSR_ENABLE (1u << 0)
#define SYST_CSR_TICKINT (1u << 1)
#define SYST_CSR_CLKSOURCE_CORE (1u << 2)

/* Port E (APB aperture). DATA at offset 0x3FC reads all eight pins. */
#define GPIOE_BASE 0x40024000u
#define GPIOE_DATA_ALL REG(GPIOE_BASE + 0x3FCu)
#define GPIOE_DIR REG(GPIOE_BASE + 0x400u)
#define GPIOE_IS REG(GPIOE_BASE + 0x404u)
#define GPIOE_IBE REG(GPIOE_BASE + 0x408u)
#define GPIOE_IEV REG(GPIOE_BASE + 0x40Cu)
#define GPIOE_IM REG(GPIOE_BASE + 0x410u)
#define GPIOE_RIS REG(GPIOE_BASE + 0x414u)
#define GPIOE_ICR REG(GPIOE_BASE + 0x41Cu)
#define GPIOE_PUR REG(GPIOE_BASE + 0x510u)
#define GPIOE_DEN REG(GPIOE_BASE + 0x51Cu)

#define GPTM0_CFG REG(0x40030000u)
#define GPTM0_TAMR REG(0x40030004u)
#define GPTM0_CTL REG(0x4003000Cu)
#define GPTM0_IMR REG(0x40030018u)
#define GPTM0_RIS REG(0x4003001Cu)
#define GPTM0_ICR REG(0x40030024u)
#define GPTM0_TAILR REG(0x40030028u)
#define GPTM_CFG_32_BIT 0x0u
#define GPTM_TAMR_PERIODIC 0x2u
#define GPTM_INT_TATO (1u << 0)
#define GPTM_CTL_TAEN (1u << 0)

BENCH_STATIC_ASSERT(SYSTICK_RELOAD < (1u << 24), "SysTick is a 24-bit counter");
BENCH_STATIC_ASSERT(SYSCLK_HZ % 1000u == 0, "a millisecond is a whole number of cycles");

static volatile uint32_t millis_count;

/* Vector 15, the only interrupt: bench's lockstep stops here near a press
   and steps out of it (hil/CONTRACT.md section 7). */
void systick_handler(void)
{
    millis_count = millis_count + 1u;
}

uint32_t millis(void)
{
    return millis_count; /* one aligned word: read whole */
}

uint32_t pins_closed(void)
{
    return ~GPIOE_DATA_ALL & BUTTON_PINS; /* active low */
}

uint32_t pins_closed_since_last_call(void)
{
    uint32_t latched = GPIOE_RIS & BUTTON_PINS;
    GPIOE_ICR = latched;
    return latched;
}

int second_elapsed(void)
{
    if (!(GPTM0_RIS & GPTM_INT_TATO)) {
        return 0;
    }
    GPTM0_ICR = GPTM_INT_TATO;
    return 1;
}

void board_init(void)
{
    SYSCTL_RCGC1 |= RCGC1_TIMER0;
    SYSCTL_RCGC2 |= RCGC2_GPIOE;
    (void)SYSCTL_RCGC2; /* a few cycles before the peripherals answer */

    GPIOE_DIR &= ~BUTTON_PINS;
    GPIOE_PUR |= BUTTON_PINS;
    GPIOE_DEN |= BUTTON_PINS;
    GPIOE_IM &= ~BUTTON_PINS;  /* never an interrupt: the loop polls */
    GPIOE_IS &= ~BUTTON_PINS;  /* edges, not levels */
    GPIOE_IBE &= ~BUTTON_PINS; /* one edge ... */
    GPIOE_IEV &= ~BUTTON_PINS; /* ... the falling one: the contact closes */
    GPIOE_ICR = BUTTON_PINS;

    GPTM0_CTL = 0u;
    GPTM0_CFG = GPTM_CFG_32_BIT;
    GPTM0_TAMR = GPTM_TAMR_PERIODIC;
    GPTM0_TAILR = SYSCLK_HZ / HW_COUNTER_HZ; /* QEMU's period is the load value */
    GPTM0_IMR = 0u;
    GPTM0_ICR = GPTM_INT_TATO;
    GPTM0_CTL = GPTM_CTL_TAEN;

    SYST_RVR = SYSTICK_RELOAD;
    SYST_CVR = 0u;
    SYST_CSR = SYST_CSR_CLKSOURCE_CORE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
}
