/*
 * bench's lockstep plugin for QEMU 7.2 (TCG plugin API version 1).
 *
 * It stops the emulated core where bench asks (after a write to the
 * firmware's record channel, at a SysTick exception, at reset) by blocking
 * the vCPU thread inside a plugin callback until bench answers on a UNIX
 * socket. While it blocks, guest time stands still and the core is not idle,
 * so QEMU neither moves guest time on (as a debugger stop does under
 * `-icount sleep=off`) nor flushes translated code (as a single step does):
 * a stop is invisible to the firmware, and cheap. bench reads and writes
 * memory and sets GPIO lines through qtest meanwhile (hil/LOCKSTEP.md).
 *
 * It also counts every executed instruction: under `-icount shift=N` that
 * count, times 2^N ns, is the machine's own clock.
 *
 * Arguments: sock=PATH (bench listens there), reset=ADDR, systick=ADDR
 * (the vector table's entries, Thumb bit cleared; 0 for none).
 *
 * Protocol, one text line each way:
 *   plugin -> bench  "KIND INSNS TICKS SLEEPS\n" at each stop: KIND is R
 *                    (reset handler entered), T (SysTick exception entered),
 *                    W (the watched bytes written); INSNS the instructions
 *                    executed since QEMU started; TICKS the SysTick
 *                    exceptions taken since then; SLEEPS the WFI/WFE
 *                    instructions executed (guest time then also moves
 *                    without instructions).
 *   bench -> plugin  "WATCH_ADDR WATCH_LEN TICKS\n": where to stop next
 *                    (writes to [WATCH_ADDR, WATCH_ADDR + WATCH_LEN), and
 *                    at the TICKS-th SysTick exception from now, none when
 *                    TICKS is 0). A reset always stops.
 * When the socket closes the core runs on without stops.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The part of QEMU 7.2's qemu-plugin.h (API version 1) this plugin uses. */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef uint32_t qemu_plugin_meminfo_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr,
                                          void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, enum qemu_plugin_op op, void *ptr,
                                                uint64_t imm);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static int bench_fd = -1;
static uint64_t reset_address, systick_address;
static uint64_t insns, ticks, sleeps;
static uint64_t watch_address, watch_len;
/* SysTick exceptions until the next tick stop; 0: none. */
static uint64_t ticks_to_stop;

/* Reads one line of at most `size - 1` bytes; false when bench is gone. */
static bool read_line(char *line, size_t size) {
    size_t used = 0;
    while (used + 1 < size) {
        char byte;
        if (read(bench_fd, &byte, 1) != 1) {
            return false;
        }
        if (byte == '\n') {
            line[used] = '\0';
            return true;
        }
        line[used++] = byte;
    }
    return false;
}

/* Tells bench where the core stands and waits for the next plan. */
static void stop(char kind) {
    if (bench_fd < 0) {
        return;
    }
    char message[96];
    int length = snprintf(message, sizeof message, "%c %llu %llu %llu\n", kind, (unsigned long long)insns,
                          (unsigned long long)ticks, (unsigned long long)sleeps);
    char plan[96];
    unsigned long long address, len, tick_count;
    if (write(bench_fd, message, (size_t)length) != length || !read_line(plan, sizeof plan) ||
        sscanf(plan, "%llx %llx %llu", &address, &len, &tick_count) != 3) {
        close(bench_fd);
        bench_fd = -1;
        return;
    }
    watch_address = address;
    watch_len = len;
    ticks_to_stop = tick_count;
}

static void on_reset(unsigned int vcpu, void *userdata) {
    (void)vcpu;
    (void)userdata;
    stop('R');
}

static void on_systick(unsigned int vcpu, void *userdata) {
    (void)vcpu;
    (void)userdata;
    ticks++;
    if (ticks_to_stop > 0 && --ticks_to_stop == 0) {
        stop('T');
    }
}

static void on_sleep(unsigned int vcpu, void *userdata) {
    (void)vcpu;
    (void)userdata;
    sleeps++;
}

/* Called after the access: the write is complete at the stop. QEMU 7.2
 * calls it for loads too, whatever the registration asked. */
static void on_store(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata) {
    (void)vcpu;
    (void)userdata;
    if (vaddr - watch_address < watch_len && qemu_plugin_mem_is_store(info)) {
        stop('W');
    }
}

/* Thumb WFI and WFE, 16-bit (BF30, BF20) and 32-bit (F3AF 8003, 8002). */
static bool is_sleep(const struct qemu_plugin_insn *insn) {
    const uint8_t *bytes = qemu_plugin_insn_data(insn);
    size_t size = qemu_plugin_insn_size(insn);
    if (size == 2) {
        uint16_t half = (uint16_t)(bytes[0] | bytes[1] << 8);
        return half == 0xbf30 || half == 0xbf20;
    }
    if (size == 4) {
        uint16_t first = (uint16_t)(bytes[0] | bytes[1] << 8);
        uint16_t second = (uint16_t)(bytes[2] | bytes[3] << 8);
        return first == 0xf3af && (second == 0x8003 || second == 0x8002);
    }
    return false;
}

static void on_translation(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t count = qemu_plugin_tb_n_insns(tb);
    for (size_t index = 0; index < count; index++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, index);
        uint64_t address = qemu_plugin_insn_vaddr(insn) & ~1ull;
        /* Before the stop callbacks: a stop's count includes its instruction. */
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &insns, 1);
        if (address == reset_address) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_reset, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        if (address == systick_address) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_systick, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        if (is_sleep(insn)) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_sleep, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        qemu_plugin_register_vcpu_mem_cb(insn, on_store, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_W, NULL);
    }
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc,
                                                               char **argv) {
    (void)info;
    const char *socket_path = NULL;
    for (int index = 0; index < argc; index++) {
        const char *argument = argv[index];
        if (strncmp(argument, "sock=", 5) == 0) {
            socket_path = argument + 5;
        } else if (strncmp(argument, "reset=", 6) == 0) {
            reset_address = strtoull(argument + 6, NULL, 0);
        } else if (strncmp(argument, "systick=", 8) == 0) {
            systick_address = strtoull(argument + 8, NULL, 0);
        } else {
            fprintf(stderr, "bench lockstep plugin: unknown argument %s\n", argument);
            return 1;
        }
    }
    if (socket_path == NULL) {
        fprintf(stderr, "bench lockstep plugin: no sock=PATH argument\n");
        return 1;
    }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(socket_path) >= sizeof address.sun_path) {
        fprintf(stderr, "bench lockstep plugin: socket path too long: %s\n", socket_path);
        return 1;
    }
    strcpy(address.sun_path, socket_path);
    bench_fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (bench_fd < 0 || connect(bench_fd, (struct sockaddr *)&address, sizeof address) != 0) {
        perror("bench lockstep plugin: connecting to bench");
        return 1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translation);
    return 0;
}
