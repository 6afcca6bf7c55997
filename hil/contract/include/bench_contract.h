/*
 * bench_contract.h: the bench firmware contract (hil/CONTRACT.md), for
 * firmware written in C or C++.
 *
 * The same constants and layout as the Rust crate bench-contract
 * (hil/contract/src); hil/contract/tests/c_header.rs compiles this header
 * and compares every value, offset and size with the crate, so the two
 * cannot drift apart. C99 or later, or C++11 or later. No allocation, no
 * library calls; static inline helpers bench_record_init (a record to fill),
 * bench_command_parse (a bench-ctl line to a command) and
 * bench_command_arguments (an arbiter command's `w N` / `b +N`).
 * hil/CONTRACT.md section 10 shows them in use, and firmware/c-example/ is
 * a whole firmware built on this header.
 *
 * Records are 48 bytes, little-endian, every field naturally aligned, so
 * the structs below need no packing: on a little-endian target fill a
 * bench_record and write its 48 bytes as they are.
 */
#ifndef BENCH_CONTRACT_H
#define BENCH_CONTRACT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The structs are the wire format only in the target's memory order. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "bench_contract.h: the records are little-endian; a big-endian target must encode them field by field"
#endif

/* A compile-time check that works in C99 (no _Static_assert there), C11 and C++11. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define BENCH_STATIC_ASSERT(condition, message) static_assert(condition, message)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define BENCH_STATIC_ASSERT(condition, message) _Static_assert(condition, message)
#else
#define BENCH_CONCAT_(a, b) a##b
#define BENCH_CONCAT(a, b) BENCH_CONCAT_(a, b)
#define BENCH_STATIC_ASSERT(condition, message) \
    typedef char BENCH_CONCAT(bench_static_assert_line_, __LINE__)[(condition) ? 1 : -1]
#endif

/* ---- Versions and sizes (CONTRACT.md, top and §2) ------------------------ */

/* Announced in Hello.contract_version. 2 adds Press.edge_hw_counter; 3 adds
   the Capabilities record, the arbiter's commands (set, adjust, moves) and
   the press result BENCH_RESULT_NOT_APPLIED. */
#define BENCH_CONTRACT_VERSION 3
/* The first version with a Capabilities record right after Hello. */
#define BENCH_CONTRACT_VERSION_CAPABILITIES 3
/* The oldest version the harness still runs. */
#define BENCH_CONTRACT_VERSION_MIN 1
/* Every record on the up-channel is this many bytes. */
#define BENCH_RECORD_SIZE 48
/* Smallest buffers the contract allows, in bytes (§2). */
#define BENCH_UP_BUFFER_MIN 1024
#define BENCH_DOWN_BUFFER_MIN 98
/* Longest command line, not counting its '\n' (§4). */
#define BENCH_COMMAND_LINE_MAX 96

/* ---- RTT (§2) ------------------------------------------------------------ */

/* Channel names, found by name at any index. */
#define BENCH_UP_CHANNEL "bench"       /* records, target to host, mode no-block-skip */
#define BENCH_DOWN_CHANNEL "bench-ctl" /* command lines, host to target */

/* bench finds the control block by this ELF symbol, or by scanning RAM for the id. */
#define BENCH_RTT_SYMBOL "_SEGGER_RTT"
/* The 16-byte id: "SEGGER RTT" and six NULs (the literal's own NUL is the sixth). */
#define BENCH_RTT_ID "SEGGER RTT\0\0\0\0\0"
#define BENCH_RTT_ID_SIZE 16

/* Control block offsets; descriptors follow, up-channels first. */
#define BENCH_RTT_OFFSET_MAX_UP 16
#define BENCH_RTT_OFFSET_MAX_DOWN 20
#define BENCH_RTT_OFFSET_DESCRIPTORS 24
/* Channel descriptor size and offsets. */
#define BENCH_RTT_DESCRIPTOR_SIZE 24
#define BENCH_RTT_DESCRIPTOR_NAME 0
#define BENCH_RTT_DESCRIPTOR_BUFFER 4
#define BENCH_RTT_DESCRIPTOR_SIZE_FIELD 8
#define BENCH_RTT_DESCRIPTOR_WRITE 12
#define BENCH_RTT_DESCRIPTOR_READ 16
#define BENCH_RTT_DESCRIPTOR_FLAGS 20
/* Descriptor flags bits 0-1: what a writer does when the ring is full. */
#define BENCH_RTT_MODE_MASK 3u
#define BENCH_RTT_MODE_NO_BLOCK_SKIP 0u /* the `bench` up-channel's mode */
#define BENCH_RTT_MODE_NO_BLOCK_TRIM 1u
#define BENCH_RTT_MODE_BLOCK_IF_FULL 2u
/* A block scanned from RAM with more channels than this is not accepted. */
#define BENCH_RTT_CHANNELS_MAX 16

/* Only for firmware without SEGGER's RTT library (which has its own
   _SEGGER_RTT). Pointers are 4 bytes on the 32-bit targets bench supports.
   The ring is empty when write == read; a writer copies its bytes, then
   stores the new write offset; a reader copies, then stores the new read
   offset. The id is written last, so a half-built block is never matched. */
#ifndef BENCH_RTT_UP_CHANNELS
#define BENCH_RTT_UP_CHANNELS 1
#endif
#ifndef BENCH_RTT_DOWN_CHANNELS
#define BENCH_RTT_DOWN_CHANNELS 1
#endif

typedef struct {
    const char *name;        /*  0 NUL-terminated; 0 for an unused channel */
    char *buffer;            /*  4 the ring */
    uint32_t size;           /*  8 bytes; it holds at most size - 1 */
    volatile uint32_t write; /* 12 moved only by the writer (target for up, host for down) */
    volatile uint32_t read;  /* 16 moved only by the reader */
    uint32_t flags;          /* 20 BENCH_RTT_MODE_* */
} bench_rtt_descriptor;

typedef struct {
    char id[BENCH_RTT_ID_SIZE];                       /*  0 BENCH_RTT_ID */
    int32_t max_up;                                   /* 16 */
    int32_t max_down;                                 /* 20 */
    bench_rtt_descriptor up[BENCH_RTT_UP_CHANNELS];   /* 24 */
    bench_rtt_descriptor down[BENCH_RTT_DOWN_CHANNELS]; /* 24 + 24 * max_up */
} bench_rtt_control_block;

#if UINTPTR_MAX == 0xFFFFFFFFu
BENCH_STATIC_ASSERT(sizeof(bench_rtt_descriptor) == BENCH_RTT_DESCRIPTOR_SIZE, "RTT descriptor size");
BENCH_STATIC_ASSERT(offsetof(bench_rtt_descriptor, buffer) == BENCH_RTT_DESCRIPTOR_BUFFER, "RTT descriptor buffer");
BENCH_STATIC_ASSERT(offsetof(bench_rtt_descriptor, size) == BENCH_RTT_DESCRIPTOR_SIZE_FIELD, "RTT descriptor size field");
BENCH_STATIC_ASSERT(offsetof(bench_rtt_descriptor, write) == BENCH_RTT_DESCRIPTOR_WRITE, "RTT descriptor write");
BENCH_STATIC_ASSERT(offsetof(bench_rtt_descriptor, read) == BENCH_RTT_DESCRIPTOR_READ, "RTT descriptor read");
BENCH_STATIC_ASSERT(offsetof(bench_rtt_descriptor, flags) == BENCH_RTT_DESCRIPTOR_FLAGS, "RTT descriptor flags");
BENCH_STATIC_ASSERT(offsetof(bench_rtt_control_block, max_up) == BENCH_RTT_OFFSET_MAX_UP, "RTT max_up");
BENCH_STATIC_ASSERT(offsetof(bench_rtt_control_block, max_down) == BENCH_RTT_OFFSET_MAX_DOWN, "RTT max_down");
BENCH_STATIC_ASSERT(offsetof(bench_rtt_control_block, up) == BENCH_RTT_OFFSET_DESCRIPTORS, "RTT descriptors");
BENCH_STATIC_ASSERT(offsetof(bench_rtt_control_block, down) ==
                        BENCH_RTT_OFFSET_DESCRIPTORS + BENCH_RTT_DESCRIPTOR_SIZE * BENCH_RTT_UP_CHANNELS,
                    "RTT down descriptors");
#endif

/* ---- Record header (§3 "Header") ----------------------------------------- */

#define BENCH_OFFSET_KIND 0
#define BENCH_OFFSET_SIDE 1
#define BENCH_OFFSET_DROPPED 2
#define BENCH_OFFSET_SEQ 4
#define BENCH_OFFSET_AT_US 8
#define BENCH_OFFSET_PAYLOAD 16

/* Header byte 0. */
enum bench_kind {
    BENCH_HELLO = 1,
    BENCH_PRESS = 2,
    BENCH_FLAG = 3,
    BENCH_PERIOD = 4,
    BENCH_SNAPSHOT = 5,
    BENCH_TIME_BASE = 6,
    BENCH_ACK = 7,
    BENCH_CAPABILITIES = 8 /* contract 3 */
};

/* Header byte 1: a player, the pause button (Press only), or none. An Ack
   names the side its arbiter command acted on (contract 3). */
enum bench_side {
    BENCH_WHITE = 0,
    BENCH_BLACK = 1,
    BENCH_PAUSE_BUTTON = 2,
    BENCH_NO_SIDE = 0xFF
};

typedef struct {     /* every record starts with this */
    uint8_t kind;    /*  0 enum bench_kind */
    uint8_t side;    /*  1 enum bench_side */
    uint16_t dropped; /* 2 records dropped so far, saturating at 65535 */
    uint32_t seq;    /*  4 0 for the first record after boot, +1 per record produced (sent or dropped) */
    uint64_t at_us;  /*  8 firmware clock: the instant the record is about */
} bench_header;

/* ---- Kind 1, Hello: the first record after boot, side none (§3) ---------- */

/* Hello.buttons bits. */
#define BENCH_BUTTON_WHITE 0x01u
#define BENCH_BUTTON_BLACK 0x02u
#define BENCH_BUTTON_PAUSE 0x04u
#define BENCH_BUTTONS_PLAYERS (BENCH_BUTTON_WHITE | BENCH_BUTTON_BLACK)
#define BENCH_BUTTONS_PAUSE (BENCH_BUTTONS_PLAYERS | BENCH_BUTTON_PAUSE)

typedef struct {
    bench_header h;
    uint16_t contract_version; /* 16 BENCH_CONTRACT_VERSION */
    uint16_t record_size;      /* 18 BENCH_RECORD_SIZE */
    uint32_t tick_us;          /* 20 the firmware clock's resolution */
    uint32_t hw_counter_hz;    /* 24 rate of the TimeBase counter */
    uint8_t hw_counter_bits;   /* 28 it wraps at 2^bits */
    uint8_t buttons;           /* 29 BENCH_BUTTON_* */
    uint16_t reserved;         /* 30 */
    uint32_t debounce_us;      /* 32 */
    uint32_t firmware_version; /* 36 opaque to bench */
    char firmware_name[8];     /* 40 ASCII, NUL-padded */
} bench_hello;

/* ---- Kind 2, Press: every debounced press of a started game; side = the button */

/* Press.result. */
enum bench_press_result {
    BENCH_RESULT_ACCEPTED = 0,
    BENCH_RESULT_NOT_RUNNING = 1, /* the other side's clock runs (6.8a) */
    BENCH_RESULT_NOT_STARTED = 2,
    BENCH_RESULT_PAUSED = 3, /* stopped by the arbiter (6.13) */
    BENCH_RESULT_FINISHED = 4,
    BENCH_RESULT_OTHER = 5,
    /* Contract 3: seen but not applied (a polling firmware that noticed a
       release with no press before it, a queue that was full). Counted,
       never silent. */
    BENCH_RESULT_NOT_APPLIED = 6
};

typedef struct {
    bench_header h;           /* at_us: the edge */
    uint8_t result;           /* 16 enum bench_press_result */
    uint8_t reserved;         /* 17 */
    uint16_t bounces;         /* 18 edges swallowed as bounce since the previous accepted press */
    uint32_t moves;           /* 20 pressing side's completed moves after the press (0 for pause) */
    uint64_t remaining_us;    /* 24 pressing side's display after the press (0 for pause) */
    uint64_t handled_at_us;   /* 32 when the firmware applied it */
    uint64_t edge_hw_counter; /* 40 hardware counter read in the edge interrupt (version 2) */
} bench_press;

/* ---- Kind 3, Flag: a flag fell (6.3); at_us = the instant it reached zero - */

typedef struct {
    bench_header h;
    uint32_t period;         /* 16 the period the flag fell in */
    uint32_t sequence;       /* 20 1 first flag of the game, 2 the next */
    uint64_t observed_at_us; /* 24 when the firmware noticed it */
    uint32_t moves;          /* 32 completed moves of this side */
    uint32_t reserved;       /* 36 */
    uint64_t reserved2;      /* 40 */
} bench_flag;

/* ---- Kind 4, Period: a side's period changed; at_us = the change --------- */

/* Period.cause. */
enum bench_period_cause {
    BENCH_CAUSE_MOVES_COMPLETED = 0,  /* 6.2b, at a press, for the side that pressed */
    BENCH_CAUSE_FLAG_OPENED_NEXT = 1, /* 6.3 */
    BENCH_CAUSE_OVERTIME_BEGINS = 2,
    BENCH_CAUSE_PERIOD_LOST = 3 /* byo-yomi */
};

typedef struct {
    bench_header h;
    uint32_t from;         /* 16 */
    uint32_t to;           /* 20 */
    uint8_t cause;         /* 24 enum bench_period_cause */
    uint8_t reserved[3];   /* 25 */
    uint32_t moves;        /* 28 completed moves of the side */
    uint64_t remaining_us; /* 32 the side's display right after the change */
    uint64_t reserved2;    /* 40 */
} bench_period;

/* ---- Kind 5, Snapshot: both displays; side = the running (or resuming) side */

/* Snapshot.phase. */
enum bench_phase {
    BENCH_PHASE_NOT_STARTED = 0,
    BENCH_PHASE_RUNNING = 1,
    BENCH_PHASE_PAUSED = 2, /* 6.13 */
    BENCH_PHASE_FINISHED = 3
};

/* Snapshot.flags bits: whose flag shows. */
#define BENCH_SNAPSHOT_FLAG_WHITE 0x01u
#define BENCH_SNAPSHOT_FLAG_BLACK 0x02u

typedef struct {
    bench_header h;
    uint64_t remaining_white_us; /* 16 the big number on White's display */
    uint64_t remaining_black_us; /* 24 */
    uint32_t moves_white;        /* 32 (6.15) */
    uint32_t moves_black;        /* 36 */
    uint32_t delay_us;           /* 40 delay left of the running side's move, saturating */
    uint8_t period_white;        /* 44 saturating at 255 */
    uint8_t period_black;        /* 45 */
    uint8_t phase;               /* 46 enum bench_phase */
    uint8_t flags;               /* 47 BENCH_SNAPSHOT_FLAG_* */
} bench_snapshot;

/* ---- Kind 6, TimeBase: firmware clock and hardware counter, side none ---- */

/* TimeBase.flags bit 0: sampled at the first observation of a counter increment. */
#define BENCH_TIME_BASE_EDGE 0x01u

typedef struct {
    bench_header h;
    uint64_t hw_counter;    /* 16 zero-extended */
    uint32_t ticks;         /* 24 the firmware's raw tick count, low 32 bits */
    uint8_t flags;          /* 28 BENCH_TIME_BASE_EDGE */
    uint8_t reserved[3];    /* 29 */
    uint32_t dropped_total; /* 32 records dropped so far, exact */
    uint8_t reserved2[12];  /* 36 */
} bench_time_base;

/* ---- Kind 7, Ack: the answer to one bench-ctl line, side none (§3, §4) --- */

/* Ack.command. */
enum bench_command {
    BENCH_COMMAND_UNKNOWN = 0, /* the line was not a command */
    BENCH_COMMAND_TC = 1,
    BENCH_COMMAND_START = 2,
    BENCH_COMMAND_RESET = 3,
    BENCH_COMMAND_PAUSE = 4,
    BENCH_COMMAND_RESUME = 5,
    BENCH_COMMAND_SET_TIME = 6,    /* contract 3: `set w 300000000` (6.11, 6.14) */
    BENCH_COMMAND_ADJUST_TIME = 7, /* contract 3: `adjust b +60000000` (6.8d, 13.4) */
    BENCH_COMMAND_SET_MOVES = 8,   /* contract 3: `moves w 40` (6.14) */
    BENCH_COMMAND_REPLACE = 9      /* contract 3: `replace w 281000000 12 0 0 b 300000000 11 0 0` (6.11) */
};

/* Ack.status. */
enum bench_ack_status {
    BENCH_STATUS_OK = 0,
    BENCH_STATUS_UNKNOWN_COMMAND = 1,
    BENCH_STATUS_LINE_TOO_LONG = 2,    /* longer than BENCH_COMMAND_LINE_MAX, discarded whole */
    BENCH_STATUS_BAD_TIME_CONTROL = 3, /* error_position: byte offset in the tc text */
    BENCH_STATUS_NOT_ALLOWED = 4,
    /* Contract 3: an arbiter command's argument is not a side and a number
       (error_position: byte offset after the command word and its space), or
       a time the clock cannot show. */
    BENCH_STATUS_BAD_ARGUMENT = 5,
    /* Contract 3: a command the firmware knows but its Capabilities leave out. */
    BENCH_STATUS_UNSUPPORTED = 6
};

typedef struct {
    bench_header h;          /* at_us: when it took effect; side: an arbiter command's side */
    uint8_t command;         /* 16 enum bench_command */
    uint8_t status;          /* 17 enum bench_ack_status */
    uint16_t error_position; /* 18 */
    uint32_t commands;       /* 20 lines received since boot, this one included */
    uint64_t initial_us;     /* 24 the configured control's initial time per side (0 if none) */
    uint32_t final_period;   /* 32 (0 if none) */
    uint8_t reserved[12];    /* 36 */
} bench_ack;

/* ---- Kind 8, Capabilities: what the clock supports, right after Hello (seq 1),
   side none (contract 3). bench skips, with the reason in its report, a
   scenario that needs what the clock leaves out. ------------------------- */

/* Capabilities.controls bits: the kinds of time control the clock runs. A
   control needs the bit of each feature it uses: `40/5400+30:1800` needs
   STAGES, INCREMENT and PLAIN. */
#define BENCH_CONTROL_PLAIN 0x01u      /* sudden death, `300` */
#define BENCH_CONTROL_INCREMENT 0x02u  /* Fischer increment, `300+2` (6.2a) */
#define BENCH_CONTROL_DELAY 0x04u      /* time delay, `300+d5` (6.2b) */
#define BENCH_CONTROL_BRONSTEIN 0x08u  /* Bronstein delay, `300+b3` */
#define BENCH_CONTROL_STAGES 0x10u     /* more than one stage, `40/5400:1800` (6.2b, 6.3) */
#define BENCH_CONTROL_HOURGLASS 0x20u  /* `*180` */
#define BENCH_CONTROL_BYO_YOMI 0x40u   /* `3600(5x30)` */
#define BENCH_CONTROL_CANADIAN 0x80u   /* `600(20/300)` */
#define BENCH_CONTROLS_ALL 0xFFu

/* Capabilities.arbiter bits: the arbiter's functions the clock has. */
#define BENCH_ARBITER_PAUSE 0x01u       /* `pause` / `resume` (6.13) */
#define BENCH_ARBITER_SET_TIME 0x02u    /* `set` (6.11, 6.14) */
#define BENCH_ARBITER_ADJUST_TIME 0x04u /* `adjust` (6.8d, 13.4) */
#define BENCH_ARBITER_SET_MOVES 0x08u   /* `moves` (6.14) */
#define BENCH_ARBITER_REPLACE 0x10u     /* `replace` (6.11) */
#define BENCH_ARBITER_ALL 0x1Fu

/* Capabilities.flag_order: whether the displays show which flag fell first.
   6.12 rules a game where both flags fell by their order only when they do. */
#define BENCH_FLAG_ORDER_NOT_SHOWN 0u
#define BENCH_FLAG_ORDER_SHOWN 1u

typedef struct {
    bench_header h;
    uint32_t controls;     /* 16 BENCH_CONTROL_* */
    uint32_t arbiter;      /* 20 BENCH_ARBITER_* */
    uint8_t flag_order;    /* 24 BENCH_FLAG_ORDER_* */
    uint8_t reserved[3];   /* 25 */
    /* Ranges and resolutions (0 declares nothing: the contract's default). */
    uint32_t time_max_s;            /* 28 longest time held, whole seconds; 0 any */
    uint32_t setting_step_us;       /* 32 times accepted in settings are multiples; 0 any us */
    uint32_t display_step_us;       /* 36 a Snapshot's displays step by this; 0 a tick */
    uint32_t display_fine_below_us; /* 40 below this, displays step by a tick; 0 never */
    uint32_t button_poll_us;        /* 44 buttons read this often; 0 at the edge or each tick */
} bench_capabilities;

/* A firmware of contract 1 or 2 sends no Capabilities record: bench takes it
   to run every control, to have pause and resume, and to show the flag order. */

/* ---- Any record ---------------------------------------------------------- */

typedef union {
    bench_header h;
    bench_hello hello;
    bench_press press;
    bench_flag flag;
    bench_period period;
    bench_snapshot snapshot;
    bench_time_base time_base;
    bench_ack ack;
    bench_capabilities capabilities;
    uint8_t bytes[BENCH_RECORD_SIZE];
} bench_record;

BENCH_STATIC_ASSERT(sizeof(bench_header) == BENCH_OFFSET_PAYLOAD, "bench_header size");
BENCH_STATIC_ASSERT(offsetof(bench_header, side) == BENCH_OFFSET_SIDE, "bench_header.side");
BENCH_STATIC_ASSERT(offsetof(bench_header, dropped) == BENCH_OFFSET_DROPPED, "bench_header.dropped");
BENCH_STATIC_ASSERT(offsetof(bench_header, seq) == BENCH_OFFSET_SEQ, "bench_header.seq");
BENCH_STATIC_ASSERT(offsetof(bench_header, at_us) == BENCH_OFFSET_AT_US, "bench_header.at_us");
BENCH_STATIC_ASSERT(sizeof(bench_hello) == BENCH_RECORD_SIZE, "bench_hello size");
BENCH_STATIC_ASSERT(offsetof(bench_hello, firmware_name) == 40, "bench_hello.firmware_name");
BENCH_STATIC_ASSERT(sizeof(bench_press) == BENCH_RECORD_SIZE, "bench_press size");
BENCH_STATIC_ASSERT(offsetof(bench_press, edge_hw_counter) == 40, "bench_press.edge_hw_counter");
BENCH_STATIC_ASSERT(sizeof(bench_flag) == BENCH_RECORD_SIZE, "bench_flag size");
BENCH_STATIC_ASSERT(offsetof(bench_flag, observed_at_us) == 24, "bench_flag.observed_at_us");
BENCH_STATIC_ASSERT(sizeof(bench_period) == BENCH_RECORD_SIZE, "bench_period size");
BENCH_STATIC_ASSERT(offsetof(bench_period, moves) == 28, "bench_period.moves");
BENCH_STATIC_ASSERT(sizeof(bench_snapshot) == BENCH_RECORD_SIZE, "bench_snapshot size");
BENCH_STATIC_ASSERT(offsetof(bench_snapshot, flags) == 47, "bench_snapshot.flags");
BENCH_STATIC_ASSERT(sizeof(bench_time_base) == BENCH_RECORD_SIZE, "bench_time_base size");
BENCH_STATIC_ASSERT(offsetof(bench_time_base, dropped_total) == 32, "bench_time_base.dropped_total");
BENCH_STATIC_ASSERT(sizeof(bench_ack) == BENCH_RECORD_SIZE, "bench_ack size");
BENCH_STATIC_ASSERT(offsetof(bench_ack, final_period) == 32, "bench_ack.final_period");
BENCH_STATIC_ASSERT(sizeof(bench_capabilities) == BENCH_RECORD_SIZE, "bench_capabilities size");
BENCH_STATIC_ASSERT(offsetof(bench_capabilities, flag_order) == 24, "bench_capabilities.flag_order");
BENCH_STATIC_ASSERT(offsetof(bench_capabilities, button_poll_us) == 44, "bench_capabilities.button_poll_us");
BENCH_STATIC_ASSERT(sizeof(bench_record) == BENCH_RECORD_SIZE, "bench_record size");

/* Starts a record: every byte zero (reserved bytes must be), then kind, side
   and at_us. The sender fills seq and dropped when it writes the record. */
static inline void bench_record_init(bench_record *record, uint8_t kind, uint8_t side, uint64_t at_us)
{
    size_t i;
    for (i = 0; i < BENCH_RECORD_SIZE; i++) {
        record->bytes[i] = 0;
    }
    record->h.kind = kind;
    record->h.side = side;
    record->h.at_us = at_us;
}

/* ---- Commands on bench-ctl (§4) ------------------------------------------ */

/* The lines, without their '\n'. `tc` is followed by the time-control text,
   the arbiter's commands (contract 3) by a side and a number:
   `set w 300000000`, `adjust b +60000000`, `moves w 40`; `replace` by each
   side's letter and four numbers, White's first (main time in us, completed
   moves, stage or period from 0, Canadian moves made in the current block):
   `replace w 281000000 12 0 0 b 300000000 11 0 0`. */
#define BENCH_COMMAND_TEXT_TC "tc "
#define BENCH_COMMAND_TEXT_TC_LEN 3
#define BENCH_COMMAND_TEXT_START "start"
#define BENCH_COMMAND_TEXT_RESET "reset"
#define BENCH_COMMAND_TEXT_PAUSE "pause"
#define BENCH_COMMAND_TEXT_RESUME "resume"
#define BENCH_COMMAND_TEXT_SET_TIME "set "
#define BENCH_COMMAND_TEXT_SET_TIME_LEN 4
#define BENCH_COMMAND_TEXT_ADJUST_TIME "adjust "
#define BENCH_COMMAND_TEXT_ADJUST_TIME_LEN 7
#define BENCH_COMMAND_TEXT_SET_MOVES "moves "
#define BENCH_COMMAND_TEXT_SET_MOVES_LEN 6
#define BENCH_COMMAND_TEXT_REPLACE "replace "
#define BENCH_COMMAND_TEXT_REPLACE_LEN 8
/* The side letters of an arbiter command's argument. */
#define BENCH_ARGUMENT_WHITE 'w'
#define BENCH_ARGUMENT_BLACK 'b'
/* bench_command_arguments's answer when the arguments are good. */
#define BENCH_ARGUMENTS_OK (-1)

/* One side's numbers in a `replace` command (6.11). */
typedef struct {
    uint64_t main_us;      /* the time left in the side's stage or period */
    uint32_t moves;        /* completed moves (the 6.15 counter) */
    uint32_t period;       /* the stage or overtime period, 0-based */
    uint32_t period_moves; /* Canadian overtime: moves made in the current block; else 0 */
} bench_replace_side;

/* One line, as bench_command_parse read it. */
typedef struct {
    uint8_t command;         /* enum bench_command: the command the line's word names */
    uint8_t status;          /* enum bench_ack_status: BENCH_STATUS_OK if the line is a whole command */
    uint16_t error_position; /* BENCH_STATUS_BAD_ARGUMENT: offset in the text after the command word and its space */
    uint8_t side;            /* set, adjust, moves: BENCH_WHITE or BENCH_BLACK; otherwise BENCH_NO_SIDE */
    uint8_t subtract;        /* adjust: 1 takes the amount away (stopping at 0), 0 adds it */
    uint64_t number;         /* set: the time in us; adjust: the amount in us; moves: the move count */
    const char *text;        /* tc: the time-control text, text_len bytes, not NUL-terminated */
    size_t text_len;
    bench_replace_side replace[2]; /* replace: [BENCH_WHITE] and [BENCH_BLACK]; otherwise zero */
} bench_command_line;

/* Whether line[0..len) starts with the NUL-terminated `text`; exact: and has nothing after it. */
static inline int bench_line_matches_(const char *line, size_t len, const char *text, int exact)
{
    size_t i;
    for (i = 0; text[i] != '\0'; i++) {
        if (i >= len || line[i] != text[i]) {
            return 0;
        }
    }
    return !exact || i == len;
}

/* An arbiter command's arguments, text[0..len): a side letter, one space
   and a decimal number that fits 64 bits; with `is_signed` a '+' or '-'
   before the number. Returns BENCH_ARGUMENTS_OK and fills *side
   (BENCH_WHITE/BENCH_BLACK), *subtract (1 for '-') and *number, or else the
   offset of the first byte that is wrong: 0 the side, 1 the space, 2 the
   sign (or the first digit), the first non-digit, or the digit at which the
   number no longer fits. Bench's own parser answers the same positions. */
static inline int bench_command_arguments(const char *text, size_t len, int is_signed, uint8_t *side,
                                          uint8_t *subtract, uint64_t *number)
{
    size_t digits_from = 2;
    size_t i;
    uint64_t value = 0;
    if (len < 1 || (text[0] != BENCH_ARGUMENT_WHITE && text[0] != BENCH_ARGUMENT_BLACK)) {
        return 0;
    }
    if (len < 2 || text[1] != ' ') {
        return 1;
    }
    *subtract = 0;
    if (is_signed) {
        if (len < 3 || (text[2] != '+' && text[2] != '-')) {
            return 2;
        }
        *subtract = text[2] == '-';
        digits_from = 3;
    }
    if (len <= digits_from) {
        return (int)digits_from;
    }
    for (i = digits_from; i < len; i++) {
        uint64_t digit = (uint64_t)(text[i] - '0');
        if (text[i] < '0' || text[i] > '9' || value > (UINT64_MAX - digit) / 10u) {
            return (int)i;
        }
        value = value * 10u + digit;
    }
    *side = text[0] == BENCH_ARGUMENT_WHITE ? BENCH_WHITE : BENCH_BLACK;
    *number = value;
    return BENCH_ARGUMENTS_OK;
}

/* The arbiter command `out->command` with its arguments at line[0..len). */
static inline uint8_t bench_command_arbiter_(const char *line, size_t len, int is_signed, bench_command_line *out)
{
    int position = bench_command_arguments(line, len, is_signed, &out->side, &out->subtract, &out->number);
    /* `moves` counts in 32 bits: a larger number is wrong from its first digit. */
    if (position == BENCH_ARGUMENTS_OK && out->command == BENCH_COMMAND_SET_MOVES && out->number > UINT32_MAX) {
        position = 2;
    }
    if (position != BENCH_ARGUMENTS_OK) {
        out->side = BENCH_NO_SIDE;
        out->subtract = 0;
        out->number = 0;
        out->status = BENCH_STATUS_BAD_ARGUMENT;
        out->error_position = (uint16_t)position;
    }
    return out->status;
}

/* Both sides' numbers set to 0 (field by field: no memset in a freestanding build). */
static inline void bench_replace_clear_(bench_replace_side sides[2])
{
    int side;
    for (side = BENCH_WHITE; side <= BENCH_BLACK; side++) {
        sides[side].main_us = 0;
        sides[side].moves = 0;
        sides[side].period = 0;
        sides[side].period_moves = 0;
    }
}

/* The decimal number at text[*at..len) up to the next space or the end,
   which must fit `max`; moves *at past it. Returns BENCH_ARGUMENTS_OK, or
   the offset of the first byte that is wrong (for a number past `max`, its
   first digit). */
static inline int bench_decimal_(const char *text, size_t len, size_t *at, uint64_t max, uint64_t *number)
{
    size_t from = *at;
    uint64_t value = 0;
    for (; *at < len && text[*at] != ' '; (*at)++) {
        uint64_t digit = (uint64_t)(text[*at] - '0');
        if (text[*at] < '0' || text[*at] > '9' || value > (UINT64_MAX - digit) / 10u) {
            return (int)*at;
        }
        value = value * 10u + digit;
    }
    if (*at == from) {
        return (int)from;
    }
    if (value > max) {
        return (int)from;
    }
    *number = value;
    return BENCH_ARGUMENTS_OK;
}

/* `replace`'s arguments, text[0..len): `w`, four numbers, ` b`, four
   numbers, one space between any two. Returns BENCH_ARGUMENTS_OK and fills
   sides[BENCH_WHITE] and sides[BENCH_BLACK], or the offset of the first
   byte that is wrong, as bench's own parser does. */
static inline int bench_replace_arguments(const char *text, size_t len, bench_replace_side sides[2])
{
    size_t at = 0;
    int side;
    for (side = BENCH_WHITE; side <= BENCH_BLACK; side++) {
        uint64_t numbers[4];
        int i;
        if (side == BENCH_BLACK) {
            if (at >= len || text[at] != ' ') {
                return (int)at;
            }
            at++;
        }
        if (at >= len || text[at] != (side == BENCH_WHITE ? BENCH_ARGUMENT_WHITE : BENCH_ARGUMENT_BLACK)) {
            return (int)at;
        }
        at++;
        for (i = 0; i < 4; i++) {
            int position;
            if (at >= len || text[at] != ' ') {
                return (int)at;
            }
            at++;
            position = bench_decimal_(text, len, &at, i == 0 ? UINT64_MAX : UINT32_MAX, &numbers[i]);
            if (position != BENCH_ARGUMENTS_OK) {
                return position;
            }
        }
        sides[side].main_us = numbers[0];
        sides[side].moves = (uint32_t)numbers[1];
        sides[side].period = (uint32_t)numbers[2];
        sides[side].period_moves = (uint32_t)numbers[3];
    }
    return at == len ? BENCH_ARGUMENTS_OK : (int)at;
}

/* Reads one line (`line` without its '\n', a '\r' before it allowed) into
   *out and returns out->status: BENCH_STATUS_OK for a command (its code in
   out->command, its arguments in the other fields), else the Ack status to
   answer with, and out->command the command the line's word names
   (BENCH_COMMAND_UNKNOWN if none). For tc the firmware's notation parser
   judges out->text (bench's own parser also refuses a text that is not
   UTF-8, which no notation is). A line collected into a buffer of
   BENCH_COMMAND_LINE_MAX + 1 bytes that overflowed is
   BENCH_STATUS_LINE_TOO_LONG without calling this. */
static inline uint8_t bench_command_parse(const char *line, size_t len, bench_command_line *out)
{
    static const struct {
        const char *word;
        size_t word_len;
        uint8_t command;
        int is_signed;
    } arbiter[3] = {
        {BENCH_COMMAND_TEXT_SET_TIME, BENCH_COMMAND_TEXT_SET_TIME_LEN, BENCH_COMMAND_SET_TIME, 0},
        {BENCH_COMMAND_TEXT_ADJUST_TIME, BENCH_COMMAND_TEXT_ADJUST_TIME_LEN, BENCH_COMMAND_ADJUST_TIME, 1},
        {BENCH_COMMAND_TEXT_SET_MOVES, BENCH_COMMAND_TEXT_SET_MOVES_LEN, BENCH_COMMAND_SET_MOVES, 0},
    };
    size_t i;
    if (len > 0 && line[len - 1] == '\r') {
        len--;
    }
    out->command = BENCH_COMMAND_UNKNOWN;
    out->status = BENCH_STATUS_OK;
    out->error_position = 0;
    out->side = BENCH_NO_SIDE;
    out->subtract = 0;
    out->number = 0;
    out->text = line;
    out->text_len = 0;
    bench_replace_clear_(out->replace);
    if (len > BENCH_COMMAND_LINE_MAX) {
        out->status = BENCH_STATUS_LINE_TOO_LONG;
        return out->status;
    }
    if (bench_line_matches_(line, len, BENCH_COMMAND_TEXT_TC, 0)) {
        out->command = BENCH_COMMAND_TC;
        out->text = line + BENCH_COMMAND_TEXT_TC_LEN;
        out->text_len = len - BENCH_COMMAND_TEXT_TC_LEN;
        return out->status;
    }
    for (i = 0; i < 3; i++) {
        if (bench_line_matches_(line, len, arbiter[i].word, 0)) {
            out->command = arbiter[i].command;
            return bench_command_arbiter_(line + arbiter[i].word_len, len - arbiter[i].word_len,
                                          arbiter[i].is_signed, out);
        }
    }
    if (bench_line_matches_(line, len, BENCH_COMMAND_TEXT_REPLACE, 0)) {
        int position = bench_replace_arguments(line + BENCH_COMMAND_TEXT_REPLACE_LEN,
                                               len - BENCH_COMMAND_TEXT_REPLACE_LEN, out->replace);
        out->command = BENCH_COMMAND_REPLACE;
        if (position != BENCH_ARGUMENTS_OK) {
            bench_replace_clear_(out->replace);
            out->status = BENCH_STATUS_BAD_ARGUMENT;
            out->error_position = (uint16_t)position;
        }
        return out->status;
    }
    if (bench_line_matches_(line, len, BENCH_COMMAND_TEXT_START, 1)) {
        out->command = BENCH_COMMAND_START;
    } else if (bench_line_matches_(line, len, BENCH_COMMAND_TEXT_RESET, 1)) {
        out->command = BENCH_COMMAND_RESET;
    } else if (bench_line_matches_(line, len, BENCH_COMMAND_TEXT_PAUSE, 1)) {
        out->command = BENCH_COMMAND_PAUSE;
    } else if (bench_line_matches_(line, len, BENCH_COMMAND_TEXT_RESUME, 1)) {
        out->command = BENCH_COMMAND_RESUME;
    } else {
        out->status = BENCH_STATUS_UNKNOWN_COMMAND;
    }
    return out->status;
}

#ifdef __cplusplus
}
#endif

#endif /* BENCH_CONTRACT_H */
