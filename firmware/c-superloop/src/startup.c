/*
 * startup.c: the vector table and the reset handler (Cortex-M3). The one
 * interrupt is SysTick: everything else is polled by the superloop.
 */
#include <stddef.h>
#include <stdint.h>

extern uint32_t _stack_top, _data_start, _data_end, _data_load, _bss_start, _bss_end;

int main(void);
void systick_handler(void);
void reset_handler(void);

/* A fault: stop where a debugger (and bench, which breaks on vector 3)
   finds it. */
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
    halt_handler();
}

/* The compiler copies and clears structs with these, even freestanding. */
void *memcpy(void *to, const void *from, size_t len);
void *memset(void *to, int value, size_t len);

void *memcpy(void *to, const void *from, size_t len)
{
    uint8_t *out = to;
    const uint8_t *in = from;
    while (len-- > 0u) {
        *out++ = *in++;
    }
    return to;
}

void *memset(void *to, int value, size_t len)
{
    uint8_t *out = to;
    while (len-- > 0u) {
        *out++ = (uint8_t)value;
    }
    return to;
}

typedef void (*vector)(void);

/* Word 0 is the initial stack pointer. Device interrupts stay unused. */
__attribute__((section(".vectors"), used)) static const vector vectors[16] = {
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
    [15] = systick_handler,
};
