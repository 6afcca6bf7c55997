//! Firmware that breaks the contract gets a prompt verdict that names what
//! it did, never a wait of minutes: each test plants one fault in a copy of
//! the C example (`firmware/c-example/`) and runs it on QEMU in lockstep.
//! Needs `make`, `arm-none-eabi-gcc` and `qemu-system-arm`
//! (scripts/install-deps installs them); never skipped.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

mod support;
use support::{bench, planted_c_example, temp_dir, text};

/// One emulator at a time: each keeps a core busy.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `bench hil --board qemu` on `elf`: one game of the release suite's
/// first scenario, with a silence limit of 2 s of guest time; the exit
/// code and what it printed.
fn hil(elf: &Path, out: &Path) -> (Option<i32>, String) {
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/release/1-fischer.toml");
    let args = [
        "hil",
        "--board",
        "qemu",
        "--firmware",
        elf.to_str().expect("utf-8"),
        "--scenario",
        scenario.to_str().expect("utf-8"),
        "--games",
        "1",
        "--silence-timeout",
        "2",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    let output = bench(&args);
    (output.status.code(), text(&output))
}

/// Plants `plants` in the C example, runs it, and requires exit 3 with
/// every one of `said` in the output.
fn fails_naming(name: &str, plants: &[(&str, &str, &str)], said: &[&str]) {
    let _serial = serial();
    let dir = temp_dir(name);
    let elf = planted_c_example(&dir, plants);
    let (code, output) = hil(&elf, &dir.join("report"));
    assert_eq!(code, Some(3), "{output}");
    for words in said {
        assert!(output.contains(words), "`{words}` not said:\n{output}");
    }
}

const SEND: &str = "if (!rtt_write_up(record->bytes, BENCH_RECORD_SIZE)) {";

/// RTT set up, and not one record written: no Hello within the silence
/// limit of guest time. (Before, nothing stopped the emulator while no
/// record came: 5 minutes of host time, then "emulator problem".)
#[test]
fn a_firmware_that_writes_no_record_has_no_hello_after_the_silence_limit() {
    fails_naming(
        "no-record",
        &[("src/main.c", SEND, "if (record->bytes[0] != 0) { /* planted: nothing is written */")],
        &["went silent", "of guest time while waiting for the Hello record", "no record at all"],
    );
}

/// Capabilities and a TimeBase a second, but never a Hello: the records
/// that come do not make up for it. (Before, silence counted from the
/// latest record, so the wait never ended.)
#[test]
fn a_firmware_that_sends_everything_but_a_hello_is_named() {
    fails_naming(
        "no-hello",
        &[("src/main.c", "    send_hello();\n", "    (void)send_hello; /* planted: no Hello */\n")],
        &["the Hello record did not come within", "of guest time, though the firmware sent", "other records"],
    );
}

/// A jump to an address that holds no code after Hello: the core takes a
/// HardFault and loops in its handler, with SysTick masked. The emulator
/// stops at the handler, and the run ends at once naming the fault and
/// the faulting address. (Before: 5 minutes, then "a firmware tick did not
/// arrive".)
#[test]
fn a_firmware_that_hard_faults_is_stopped_at_its_fault_handler() {
    fails_naming(
        "hard-fault",
        &[(
            "src/main.c",
            "    send_time_base(hw_counter(), now_us(), 0);\n",
            "    send_time_base(hw_counter(), now_us(), 0);\n    ((void (*)(void))0xFFFFFFF1u)(); /* planted */\n",
        )],
        &["error: the firmware faulted: the core took a HardFault", "faulting PC 0xfffffff0"],
    );
}

/// A Hello whose debounce window is 4 295 s: refused naming the field.
/// (Before: two presses registered, then a wait of 4 295 s.)
#[test]
fn a_hello_with_an_implausible_debounce_is_refused_naming_the_field() {
    fails_naming(
        "debounce",
        &[("src/main.c", "record.hello.debounce_us = DEBOUNCE_US;", "record.hello.debounce_us = 0xFFFFFFFFu;")],
        &["debounce_us = 4294967295"],
    );
}

/// An Ack whose status is no status of the contract: the record is named,
/// with its bytes. (Before: "went silent … waiting for the Ack" while
/// records kept coming.)
#[test]
fn an_ack_with_an_unknown_status_is_named() {
    fails_naming(
        "ack-status",
        &[("src/main.c", "record.ack.status = status;", "record.ack.status = (uint8_t)(status + 200u);")],
        &["does not decode", "kind byte 7", "Ack record"],
    );
}

/// An Ack stamped 2^64 − 256 µs: the record and its stamp are named.
/// (Before: "nothing new for 18446744073709.5 s".)
#[test]
fn an_ack_stamped_past_the_silence_limit_is_named() {
    fails_naming(
        "ack-stamp",
        &[(
            "src/main.c",
            "bench_record_init(&record, BENCH_ACK, line.side, at_us);",
            "bench_record_init(&record, BENCH_ACK, line.side, UINT64_C(0xFFFFFFFFFFFFFF00));",
        )],
        &["Ack record seq", "is stamped 18446744073709.551360 s", "silence limit"],
    );
}
