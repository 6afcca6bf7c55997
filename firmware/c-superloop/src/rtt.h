/*
 * rtt.h: the SEGGER RTT control block with bench's two channels, written
 * by hand from bench_contract.h's layout (hil/CONTRACT.md section 2), for a
 * firmware without SEGGER's RTT library.
 *
 *   up   `bench`      records, target to host, 16 KiB, mode no-block-skip
 *   down `bench-ctl`  command lines, host to target, 128 bytes
 */
#ifndef RTT_H
#define RTT_H

#include <stddef.h>
#include <stdint.h>

/* About 30 s of this firmware's records (11 a second): under QEMU's fast
   guest clock that is 2 s of host time between two reads by bench before
   a record is dropped; 4 KiB once lost records on a busy host. */
#define RTT_UP_BUFFER_BYTES (16u * 1024u)
/* One longest command line and its newline, and then some. */
#define RTT_DOWN_BUFFER_BYTES 128u

/* Builds the control block. Call once at boot, before the first record. */
void rtt_init(void);

/* Writes `len` bytes to `bench` whole, or nothing if they do not fit
   (no-block-skip: the stream never holds half a record, and the firmware
   never waits for the host). Returns 1 if written. */
int rtt_write_up(const void *bytes, uint32_t len);

/* The next byte of `bench-ctl`: 1 and *byte, or 0 when it is empty. */
int rtt_read_down(uint8_t *byte);

#endif
