//! The emulated board end to end: the reference firmware (built with
//! `scripts/build-firmware`, or taken from `BENCH_FIRMWARE_ELF`) in
//! `QemuTarget`, read and commanded through `RttReader`, pressed through
//! `set_button`; and the faults the harness must survive: QEMU killed, the
//! gdb socket closed, a firmware that never answers.
//!
//! Never skipped: without `qemu-system-arm` these tests fail with the
//! install hint (`scripts/check` installs it). One QEMU at a time: each
//! busy-loops a core (the firmware polls, `-icount …,sleep=off`).
//!
//! Timings go to stderr: `cargo test -p bench-hil --test qemu -- --nocapture`.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use bench_contract::{AckStatus, Body, Button, Command, CommandCode, Kind, PressResult, Record};
use bench_hil::backend::qemu::{QemuConfig, QemuTarget};
use bench_hil::board::BoardProfile;
use bench_hil::image;
use bench_hil::judge::compare::Comparison;
use bench_hil::schedule;
use bench_hil::session::rtt::{ControlBlockLocation, RttError, RttReader};
use bench_hil::session::{GameRun, RunOptions, Session};
use bench_hil::{ButtonId, Target, TargetError};
use bench_sim::scenario::Scenario;

const WAIT: Duration = Duration::from_secs(5);

/// One emulator at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The reference firmware's normal image: `BENCH_FIRMWARE_ELF`, or built
/// (incrementally: seconds when nothing changed) by `scripts/build-firmware`.
fn firmware() -> &'static Path {
    static ELF: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let elf = ELF.get_or_init(|| match std::env::var_os("BENCH_FIRMWARE_ELF") {
        Some(path) => Ok(PathBuf::from(path)),
        None => build_image("normal"),
    });
    match elf {
        Ok(path) => path,
        Err(error) => panic!("{error}"),
    }
}

/// The `defect-no-debounce` image: next to `BENCH_FIRMWARE_ELF` if that is
/// set, else built by `scripts/build-firmware`.
fn no_debounce_firmware() -> &'static Path {
    static ELF: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let elf = ELF.get_or_init(|| match std::env::var_os("BENCH_FIRMWARE_ELF") {
        Some(path) => Ok(PathBuf::from(path).with_file_name("defect-no-debounce.elf")),
        None => build_image("defect-no-debounce"),
    });
    match elf {
        Ok(path) => path,
        Err(error) => panic!("{error}"),
    }
}

fn build_image(name: &str) -> Result<PathBuf, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let started = Instant::now();
    let output = Process::new(root.join("scripts/build-firmware"))
        .arg(name)
        .current_dir(&root)
        // cargo points this at the host toolchain's libraries for tests;
        // the firmware's toolchain (maybe Debian's) must not see them.
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .map_err(|error| format!("running scripts/build-firmware: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "scripts/build-firmware {name} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let path = stdout.lines().last().map(PathBuf::from).ok_or("scripts/build-firmware printed no path")?;
    eprintln!("firmware: {} (build-firmware took {:.1} s)", path.display(), started.elapsed().as_secs_f64());
    Ok(path)
}

/// A booted firmware: QEMU started, RTT attached, Hello read.
struct Board {
    target: QemuTarget,
    reader: RttReader,
    hello: Record,
    boot: Duration,
}

/// The board running freely (not in lockstep): these tests drive the
/// backend's parts by hand, with the VM running between calls.
fn boot() -> Board {
    boot_image(firmware(), QemuConfig { lockstep: false, ..QemuConfig::default() })
}

fn boot_image(elf: &Path, config: QemuConfig) -> Board {
    let location = ControlBlockLocation::from_elf(elf).unwrap_or_else(|error| panic!("{error}"));
    assert!(matches!(location, ControlBlockLocation::Address(_)), "{location:?}");
    boot_at(elf, &location, config)
}

/// Boots `elf`, looking for its RTT control block at `location`.
fn boot_at(elf: &Path, location: &ControlBlockLocation, config: QemuConfig) -> Board {
    let started = Instant::now();
    let mut target = QemuTarget::launch(elf, config).unwrap_or_else(|error| panic!("{error}"));
    target.reset_and_run().unwrap_or_else(|error| panic!("{error}"));
    let mut reader = RttReader::attach_within(&mut target, location, WAIT).unwrap_or_else(|error| panic!("{error}"));
    let hello = reader
        .wait_for(&mut target, WAIT, "Hello", |record| record.body.kind() == Kind::Hello)
        .unwrap_or_else(|error| panic!("{error}"));
    Board { target, reader, hello, boot: started.elapsed() }
}

fn median_ms(samples: &mut [Duration]) -> f64 {
    samples.sort();
    samples.get(samples.len() / 2).map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)
}

fn p90_ms(samples: &mut [Duration]) -> f64 {
    samples.sort();
    samples.get(samples.len() * 9 / 10).map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)
}

#[test]
fn presses_come_back_as_press_records_with_the_right_sides() {
    let _one = serial();
    let Board { mut target, mut reader, hello, boot } = boot();
    let target = &mut target;
    eprintln!("{} — pid {:?}, gdb port {:?}", target.describe(), target.pid(), target.gdb_port());
    eprintln!("boot to Hello: {:.1} ms (QEMU start, reset, RTT attach, first poll)", boot.as_secs_f64() * 1e3);
    let Body::Hello(fields) = hello.body else { unreachable!() };
    assert_eq!(hello.seq, 0);
    assert_eq!((fields.contract_version, fields.record_size), (bench_contract::CONTRACT_VERSION, 48));
    assert_eq!(&fields.firmware_name, b"benchref");

    // Memory access while the VM runs: halt, read, continue.
    let control_block = reader.control_block();
    let mut samples = Vec::new();
    for _ in 0..50 {
        let mut bytes = [0u8; 8];
        let started = Instant::now();
        target.read_memory(control_block, &mut bytes).unwrap();
        samples.push(started.elapsed());
        assert_eq!(&bytes, b"SEGGER R");
        thread::sleep(Duration::from_millis(2));
    }
    assert!(target.is_running(), "reads must leave the VM running");
    eprintln!(
        "halt + read 8 bytes + continue: median {:.3} ms, p90 {:.3} ms",
        median_ms(&mut samples),
        p90_ms(&mut samples)
    );
    let mut polls = Vec::new();
    for _ in 0..30 {
        let started = Instant::now();
        reader.poll(target).unwrap();
        polls.push(started.elapsed());
        thread::sleep(Duration::from_millis(3));
    }
    eprintln!(
        "one RTT poll (offsets, records, read offset): median {:.3} ms, p90 {:.3} ms",
        median_ms(&mut polls),
        p90_ms(&mut polls)
    );

    let started = Instant::now();
    let ack = reader.command(target, &Command::TimeControl("300+2"), WAIT).unwrap();
    eprintln!("command `tc 300+2` to its Ack: {:.2} ms", started.elapsed().as_secs_f64() * 1e3);
    assert!(ack.is_ok(), "{ack:?}");
    assert_eq!((ack.ack.command, ack.ack.initial_us), (CommandCode::TimeControl, 300_000_000));
    let start = reader.command(target, &Command::Start, WAIT).unwrap();
    assert!(start.is_ok(), "{start:?}");
    assert_eq!(start.ack.commands, ack.ack.commands + 1);
    let refused = reader.command_line(target, b"fly", WAIT).unwrap();
    assert_eq!(refused.ack.status, AckStatus::UnknownCommand);

    let sides = [ButtonId::White, ButtonId::Black, ButtonId::White, ButtonId::Black, ButtonId::White, ButtonId::Black];
    let mut presses = Vec::new();
    let mut latencies = Vec::new();
    for side in sides {
        reader.take_records();
        let started = Instant::now();
        target.set_button(side, true).unwrap();
        let press = reader
            .wait_for(target, WAIT, "a Press record", |record| record.body.kind() == Kind::Press)
            .unwrap_or_else(|error| panic!("{side:?}: {error}"));
        latencies.push(started.elapsed());
        target.set_button(side, false).unwrap();
        presses.push(press);
        // Well past the firmware's 20 ms debounce (guest time, whatever the
        // host's load) before the next press: a later periodic record.
        let after_us = press.at_us + 30_000;
        reader
            .wait_for(target, WAIT, "30 ms of guest time", |record| record.at_us >= after_us)
            .unwrap_or_else(|error| panic!("{error}"));
    }
    eprintln!(
        "key press to its Press record: median {:.2} ms, max {:.2} ms",
        median_ms(&mut latencies.clone()),
        latencies.iter().max().map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)
    );
    let mut last_at = start.at_us;
    for (index, (press, side)) in presses.iter().zip(sides).enumerate() {
        let Body::Press(fields) = press.body else { unreachable!() };
        let expected = if side == ButtonId::White { Button::White } else { Button::Black };
        assert_eq!(fields.button, expected, "press {index}: {press:?}");
        assert_eq!(fields.result, PressResult::Accepted, "press {index}: {press:?}");
        assert_eq!(fields.moves as usize, index / 2 + 1, "press {index}");
        assert!(press.at_us > last_at, "press {index} at {} µs, not after {last_at} µs", press.at_us);
        assert!(fields.handled_at_us >= press.at_us);
        last_at = press.at_us;
    }
    eprintln!(
        "guest µs of the presses after start: {:?}",
        presses.iter().map(|press| press.at_us - start.at_us).collect::<Vec<_>>()
    );

    reader.poll(target).unwrap();
    let stats = reader.stats();
    assert_eq!(stats.first_seq, Some(0));
    assert_eq!((stats.unexplained_missing(), stats.undecodable_count, stats.restarts), (0, 0, 0), "{stats:?}");
    eprintln!("{} records, {} gaps, dropped {}", stats.records, stats.gaps.len(), stats.dropped);
}

/// `hil/CONTRACT.md` §2: without symbols, bench scans RAM for the control
/// block. A stripped image passes the image check bench hil makes before
/// QEMU starts, and boots as far as its Hello through the scan.
#[test]
fn a_stripped_image_is_run_and_its_control_block_found_by_scanning_ram() {
    let _one = serial();
    let stripped = std::env::temp_dir().join(format!("bench-qemu-test-{}-stripped.elf", std::process::id()));
    let status = Process::new("arm-none-eabi-strip")
        .arg("--strip-all")
        .arg("-o")
        .arg(&stripped)
        .arg(firmware())
        .status()
        .unwrap_or_else(|error| {
            panic!("arm-none-eabi-strip: {error}; scripts/install-deps installs it (gcc-arm-none-eabi)")
        });
    assert!(status.success(), "arm-none-eabi-strip {}: {status}", firmware().display());
    let bytes = std::fs::read(&stripped).expect("the stripped image");
    assert!(!bytes.windows(b"_SEGGER_RTT".len()).any(|window| window == b"_SEGGER_RTT"), "stripped of its symbols");
    let boards = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards/qemu.toml");
    let profile = BoardProfile::load(&boards).unwrap_or_else(|error| panic!("{error}"));
    let checked = image::check(&profile, &stripped, &bytes, image::Purpose::Contract)
        .unwrap_or_else(|error| panic!("bench hil would refuse it: {error}"));
    let Some(location @ ControlBlockLocation::Scan { .. }) = checked.rtt else {
        panic!("no symbol, yet not a scan: {:?}", checked.rtt)
    };
    assert_eq!(ControlBlockLocation::from_elf(&stripped).ok(), Some(location.clone()), "the run scans the same RAM");
    let board = boot_at(&stripped, &location, QemuConfig { lockstep: false, ..QemuConfig::default() });
    let _ = std::fs::remove_file(&stripped);
    eprintln!("stripped image: control block at {:#010x}, Hello after {:?}", board.reader.control_block(), board.boot);
    assert_eq!(board.hello.seq, 0);
    assert!(matches!(board.hello.body, Body::Hello(_)), "{:?}", board.hello);
}

#[test]
fn a_reset_restarts_the_firmware_with_a_new_hello() {
    let _one = serial();
    let Board { mut target, mut reader, .. } = boot();
    let ack = reader.command(&mut target, &Command::TimeControl("60"), WAIT).unwrap();
    assert!(ack.is_ok());
    let started = Instant::now();
    target.reset_and_run().unwrap();
    reader.take_records();
    let hello = reader
        .wait_for(&mut target, WAIT, "Hello after the reset", |record| record.body.kind() == Kind::Hello)
        .unwrap_or_else(|error| panic!("{error}"));
    eprintln!("reset to Hello: {:.1} ms", started.elapsed().as_secs_f64() * 1e3);
    assert_eq!(hello.seq, 0);
    assert_eq!(reader.stats().restarts, 1);
    // The line count starts again: `start` without a control is refused.
    let refused = reader.command(&mut target, &Command::Start, WAIT).unwrap();
    assert_eq!((refused.ack.status, refused.ack.commands), (AckStatus::NotAllowed, 1));
}

#[test]
fn a_killed_qemu_is_disconnected_at_once() {
    let _one = serial();
    let Board { mut target, mut reader, .. } = boot();
    let pid = target.pid().expect("QEMU runs");
    let status = Process::new("kill").args(["-KILL", &pid.to_string()]).status().unwrap();
    assert!(status.success());
    let started = Instant::now();
    let error = loop {
        match reader.poll(&mut target) {
            Err(error) => break error,
            Ok(_) => assert!(started.elapsed() < Duration::from_secs(1), "still polling 1 s after the kill"),
        }
    };
    let noticed = started.elapsed();
    eprintln!("QEMU killed: noticed in {:.1} ms: {error}", noticed.as_secs_f64() * 1e3);
    assert!(error.is_disconnected(), "{error}");
    assert!(noticed < Duration::from_millis(500), "took {noticed:?}");
    assert!(error.to_string().contains("exited") && error.to_string().contains("signal: 9"), "{error}");
    let error = target.set_button(ButtonId::White, true).unwrap_err();
    assert!(matches!(error, TargetError::Disconnected { .. }), "{error}");
    let error = reader.command(&mut target, &Command::Start, WAIT).unwrap_err();
    assert!(error.is_disconnected(), "{error}");
}

#[test]
fn a_closed_gdb_socket_is_a_clear_error() {
    let _one = serial();
    let Board { mut target, mut reader, .. } = boot();
    // QEMU closes the gdbstub's socket: its chardev is deleted.
    target.qmp().unwrap().human_monitor_command("gdbserver none").unwrap();
    let started = Instant::now();
    let error = reader.poll(&mut target).unwrap_err();
    eprintln!("gdb socket closed: noticed in {:.1} ms: {error}", started.elapsed().as_secs_f64() * 1e3);
    assert!(error.is_disconnected(), "{error}");
    let message = error.to_string();
    assert!(message.contains("gdbstub") && message.contains("closed the connection"), "{message}");
    assert!(message.contains("still runs"), "{message}");
    assert!(started.elapsed() < Duration::from_millis(500));
}

#[test]
fn a_firmware_that_never_answers_times_out() {
    let _one = serial();
    let Board { mut target, mut reader, .. } = boot();
    let short = Duration::from_millis(300);

    // The wrong address: no control block there, ever.
    let started = Instant::now();
    let error = RttReader::attach_within(&mut target, &ControlBlockLocation::Address(0x2000_0000), short).unwrap_err();
    assert!(matches!(error, RttError::NoControlBlock { .. }), "{error}");
    assert!(started.elapsed() < short * 4, "{:?}", started.elapsed());

    // A halted VM: guest time stands still, nothing is written. What it
    // wrote before the halt (a TimeBase a second) is read first.
    target.halt().unwrap();
    reader.poll(&mut target).unwrap();
    reader.take_records();
    let started = Instant::now();
    let error = reader.wait_for(&mut target, short, "a Press record", |record| record.body.kind() == Kind::Press);
    let error = error.unwrap_err();
    assert!(matches!(error, RttError::Timeout { .. }), "{error}");
    let error = reader.command(&mut target, &Command::TimeControl("60"), short).unwrap_err();
    assert!(matches!(error, RttError::Timeout { .. }), "{error}");
    assert!(started.elapsed() < short * 4, "{:?}", started.elapsed());
    assert_eq!(reader.inbox().len(), 0, "a halted firmware wrote records");
    // A key on a halted VM still gets through (the target resumes for it)
    // and the VM is halted again.
    target.set_button(ButtonId::White, true).unwrap();
    assert!(!target.is_running());
    // Resumed, the firmware answers the line that waited in the ring.
    target.resume().unwrap();
    let ack = reader
        .wait_for(&mut target, WAIT, "the Ack of the waiting line", |record| record.body.kind() == Kind::Ack)
        .unwrap_or_else(|error| panic!("{error}"));
    eprintln!("the line written while halted was answered after resume: {ack:?}");
}

/// A game of `30+1` whose every press bounces (1–3 extra closing edges,
/// 2–4 ms apart in guest time), played through the run.
fn bounced_game(elf: &Path) -> GameRun {
    let text = r#"
description = "every press bounces"
control = "30+1"
games = 1
seed = 7

[players]
think = { distribution = "uniform", min_ms = 300, max_ms = 900 }

[board]
ends_per_move = 0
max_moves = 6

[device]
bounce = { chance = "1/1", max_ms = 12 }
"#;
    let scenario = Scenario::parse(text, Path::new("bounce.toml")).unwrap_or_else(|error| panic!("{error}"));
    let schedule = schedule::schedule(&scenario, scenario.seed, 0).unwrap_or_else(|error| panic!("{error}"));
    assert!(schedule.presses.iter().all(|press| !press.bounce.is_none()));
    let Board { mut target, mut reader, .. } = boot_image(elf, QemuConfig::default());
    let started = Instant::now();
    let mut session = Session::new(&mut target, &mut reader, RunOptions::default());
    let run = session.play(&schedule, &mut |_| {}).judged();
    eprintln!(
        "{}: {} presses with {} bounce edges, {:.1} s of guest time in {:.1} s",
        elf.display(),
        run.sent.len(),
        run.bounce_edges_sent(),
        run.guest_us as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    assert!(run.error.is_none(), "{:?}", run.error);
    assert_eq!(run.sent.len(), schedule.presses.len());
    for (sent, scheduled) in run.sent.iter().zip(&schedule.presses) {
        assert_eq!(sent.bounce, scheduled.bounce, "the bounce fits the 20 ms window and was made");
    }
    run
}

fn comparison(run: &GameRun) -> &Comparison {
    match &run.comparison {
        Some(Ok(comparison)) => comparison,
        other => panic!("no comparison: {other:?}"),
    }
}

#[test]
fn bounce_inside_the_debounce_window_is_swallowed_by_the_reference_firmware() {
    let _one = serial();
    let run = bounced_game(firmware());
    let comparison = comparison(&run);
    assert!(run.passed(), "{:#?}", comparison.first_of_each);
    assert_eq!(comparison.presses, run.sent.len(), "one Press record per physical press");
    // Bounce is reported with the next press of the same button; a
    // button's last press has none after it.
    let reported_later: u64 = run
        .sent
        .iter()
        .enumerate()
        .filter(|(index, press)| run.sent.iter().skip(index + 1).any(|later| later.button == press.button))
        .map(|(_, press)| press.bounce.edges())
        .sum();
    assert!(reported_later > 0);
    assert_eq!(run.bounces_reported(), reported_later, "every bounce edge reached the firmware and was counted");
}

#[test]
fn a_firmware_without_debounce_fails_naming_each_extra_press() {
    let _one = serial();
    let run = bounced_game(no_debounce_firmware());
    let comparison = comparison(&run);
    assert!(run.complete() && !run.passed());
    assert_eq!(comparison.presses as u64, run.sent.len() as u64 + run.bounce_edges_sent(), "each edge a press");
    // The extra presses inside the debounce window, found from the records
    // alone: each is one `press.bounce`, and nothing else differs.
    let presses: Vec<u64> =
        run.records.iter().filter(|record| matches!(record.body, Body::Press(_))).map(|record| record.at_us).collect();
    let gaps: Vec<u64> = presses.windows(2).map(|pair| pair[1] - pair[0]).filter(|gap| *gap < 20_000).collect();
    eprintln!("bounce edge gaps, µs: {gaps:?}");
    assert!(!gaps.is_empty() && gaps.len() as u64 <= run.bounce_edges_sent(), "{gaps:?}");
    assert_eq!(comparison.by_quantity.get("press.bounce").copied(), Some(gaps.len()));
    assert_eq!(comparison.mismatch_count, gaps.len(), "{:#?}", comparison.mismatches);
    let first = comparison.first_of_each.first().expect("a mismatch").to_string();
    eprintln!("first: {first}");
    assert!(first.starts_with("press.bounce at ") && first.contains("(press 1)"), "{first}");
    assert!(first.contains("after White's press 0") && first.contains("debounce window"), "{first}");
    // The extra edges come 2 or 4 ms after the one before, in guest time (the
    // firmware stamps each in its interrupt, a few µs after it). In lockstep
    // each edge is made at a tick stop: to the tick, whatever the host's load.
    let off: Vec<&u64> = gaps.iter().filter(|gap| gap.abs_diff(2_000).min(gap.abs_diff(4_000)) > 1_000 + 20).collect();
    assert!(off.is_empty(), "gaps more than a tick from 2 or 4 ms: {off:?} of {gaps:?}");
}
