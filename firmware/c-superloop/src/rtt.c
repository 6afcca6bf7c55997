/*
 * rtt.c (as in firmware/c-example): a ring per channel. The writer copies its bytes, then stores the
 * new write offset; the reader copies, then stores the new read offset; so
 * each side only ever moves its own offset and sees whole data.
 */
#include "rtt.h"

#include "bench_contract.h"

BENCH_STATIC_ASSERT(RTT_UP_BUFFER_BYTES >= BENCH_UP_BUFFER_MIN, "the contract's smallest up buffer");
BENCH_STATIC_ASSERT(RTT_DOWN_BUFFER_BYTES >= BENCH_DOWN_BUFFER_MIN, "the contract's smallest down buffer");

/* bench finds the block by this symbol (BENCH_RTT_SYMBOL) in the ELF. It
   lives in .bss: zero until rtt_init, so a half-built block has no id. */
__attribute__((used)) bench_rtt_control_block _SEGGER_RTT;

static char up_buffer[RTT_UP_BUFFER_BYTES];
static char down_buffer[RTT_DOWN_BUFFER_BYTES];

/* Keeps the compiler from moving memory accesses across it (a single
   core needs no hardware barrier: the host reads memory through the debug
   port, which sees every store in order). */
#define COMPILER_BARRIER() __asm volatile("" ::: "memory")

/* An empty ring. No-block-skip: the `bench` channel's mode (a record that
   does not fit is dropped whole); the host ignores a down channel's mode. */
static void channel_init(bench_rtt_descriptor *channel, const char *name, char *buffer, uint32_t size)
{
    channel->name = name;
    channel->buffer = buffer;
    channel->size = size;
    channel->write = 0;
    channel->read = 0;
    channel->flags = BENCH_RTT_MODE_NO_BLOCK_SKIP;
}

void rtt_init(void)
{
    static const char id[BENCH_RTT_ID_SIZE] = BENCH_RTT_ID;
    bench_rtt_control_block *block = &_SEGGER_RTT;

    block->max_up = BENCH_RTT_UP_CHANNELS;
    block->max_down = BENCH_RTT_DOWN_CHANNELS;
    channel_init(&block->up[0], BENCH_UP_CHANNEL, up_buffer, RTT_UP_BUFFER_BYTES);
    channel_init(&block->down[0], BENCH_DOWN_CHANNEL, down_buffer, RTT_DOWN_BUFFER_BYTES);
    COMPILER_BARRIER();
    /* The id last, and back to front: a host scanning RAM for it never
       matches a block whose descriptors are not written yet. */
    for (int i = BENCH_RTT_ID_SIZE - 1; i >= 0; i--) {
        ((volatile char *)block->id)[i] = id[i];
    }
}

int rtt_write_up(const void *bytes, uint32_t len)
{
    bench_rtt_descriptor *up = &_SEGGER_RTT.up[0];
    uint32_t write = up->write;
    uint32_t read = up->read;
    /* The ring holds at most size - 1 bytes: write == read means empty. */
    uint32_t used = write >= read ? write - read : up->size - read + write;
    if (up->size - 1u - used < len) {
        return 0;
    }
    const uint8_t *from = bytes;
    for (uint32_t i = 0; i < len; i++) {
        up->buffer[write] = (char)from[i];
        write = write + 1u == up->size ? 0u : write + 1u;
    }
    COMPILER_BARRIER();
    up->write = write; /* one store per record: bench's lockstep stops on it */
    return 1;
}

int rtt_read_down(uint8_t *byte)
{
    bench_rtt_descriptor *down = &_SEGGER_RTT.down[0];
    uint32_t read = down->read;
    if (read == down->write) {
        return 0;
    }
    COMPILER_BARRIER();
    *byte = (uint8_t)down->buffer[read];
    COMPILER_BARRIER();
    down->read = read + 1u == down->size ? 0u : read + 1u;
    return 1;
}
