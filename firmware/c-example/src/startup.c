/*
 * startup.c: the vector table and the reset handler, for the LM3S6965
 * (Cortex-M3, 38 device interrupts).
 *
 * The core starts by loading the stack pointer from word 0 of the table
 * and jumping to word 1. reset_handler prepares memory the way C expects
 * it (initialised data copied from flash, the rest zeroed) and calls main.
 */
#include <stdint.h>

#include "buttons.h"

extern uint32_t _stack_top, _data_start, _data_end, _data_load, _bss_start, _bss_end;

int main(void);
void systick_handler(void);
void timer0a_handler(void);
void reset_handler(void);

/* A fault or an interrupt nobody enabled: stop here, where a debugger
   finds it, rather than run on in an unknown state. bench reports a
   firmware that stops sending records. */
static void halt_handler(void)
{
    for (;;) {
    }
}

void reset_handler(void)
{
    uint32_t *from = &_data_load;
    for (uint32_t *to = &_data_start; to < &_data_end;) {
        *to++ = *from++;
    }
    for (uint32_t *to = &_bss_start; to < &_bss_end;) {
        *to++ = 0;
    }
    main();
    halt_handler(); /* main never returns */
}

#define DEVICE_INTERRUPTS 38
#define IRQ(n) (16 + (n))

typedef void (*vector)(void);

/* Word 0 is the initial stack pointer, not a function: the cast is the
   usual way to put it in the table. */
__attribute__((section(".vectors"), used)) static const vector vectors[IRQ(DEVICE_INTERRUPTS)] = {
    [0] = (vector)(uintptr_t)&_stack_top,
    [1] = reset_handler,
    [2] = halt_handler,  /* NMI */
    [3] = halt_handler,  /* HardFault */
    [4] = halt_handler,  /* MemManage */
    [5] = halt_handler,  /* BusFault */
    [6] = halt_handler,  /* UsageFault */
    [11] = halt_handler, /* SVCall */
    [12] = halt_handler, /* DebugMonitor */
    [14] = halt_handler, /* PendSV */
    [15] = systick_handler, /* bench's lockstep stops here at every tick near a press */
    [IRQ(4)] = gpioe_handler,
    [IRQ(19)] = timer0a_handler,
};
