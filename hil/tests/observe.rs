//! Observe mode's first half on the emulated board: the `observed` image
//! (the reference clock with no contract code, `firmware/boards/lm3s6965/src/observed.rs`)
//! read through `firmware/observed.toml`, in lockstep, while its buttons are
//! pressed. Never skipped: `scripts/check` installs QEMU and the toolchain.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::Duration;

use bench_hil::backend::qemu::{QemuConfig, QemuTarget};
use bench_hil::board::BoardProfile;
use bench_hil::observe::{Layout, ObserveMap, Observed};
use bench_hil::target::{StepPlan, Stop};
use bench_hil::{ButtonId, Target, TargetError};
use chessclock::{BySide, Side};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `scripts/build-firmware observed` (seconds when nothing changed).
fn observed_image() -> PathBuf {
    let output = Process::new(root().join("scripts/build-firmware"))
        .arg("observed")
        .current_dir(root())
        // The firmware's toolchain (maybe Debian's) must not see the host's.
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("scripts/build-firmware runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    PathBuf::from(stdout.lines().last().expect("the image's path"))
}

/// Lets the halted board run `ms` of its own ticks.
fn run_for_ms(target: &mut QemuTarget, ms: u32) -> Result<(), TargetError> {
    let plan = StepPlan { watch: None, tick: true, skip_ticks: 0 };
    let mut left = ms;
    while left > 0 {
        if let Some(Stop::Tick { ticks }) = target.step(&plan, Duration::from_secs(60))? {
            left = left.saturating_sub(ticks);
        }
    }
    Ok(())
}

/// A press held 80 ms, then `after_ms` more of the clock running.
fn press(target: &mut QemuTarget, button: ButtonId, after_ms: u32) -> Result<(), TargetError> {
    target.set_button(button, true)?;
    run_for_ms(target, 80)?;
    target.set_button(button, false)?;
    run_for_ms(target, after_ms)
}

fn read(target: &mut QemuTarget, layout: &Layout) -> Observed {
    layout.read(|address, buffer| target.read_memory(address, buffer)).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn the_map_reads_the_uninstrumented_clock_as_it_plays() {
    let elf = observed_image();
    let bytes = std::fs::read(&elf).expect("read the image");
    assert!(
        !bytes.windows(b"SEGGER RTT".len()).any(|window| window == b"SEGGER RTT"),
        "the observed image has no RTT control block"
    );
    let map = ObserveMap::load(&root().join("firmware/observed.toml")).unwrap_or_else(|error| panic!("{error}"));
    let profile = BoardProfile::load(&root().join("hil/boards/qemu.toml")).unwrap_or_else(|error| panic!("{error}"));
    let ram = profile.memory.map(|memory| memory.ram);
    let layout = map.resolve(&bytes, &elf, ram).unwrap_or_else(|error| panic!("{error}"));
    let mut target = QemuTarget::launch(&elf, QemuConfig::default()).unwrap_or_else(|error| panic!("{error}"));
    target.reset_and_run().unwrap_or_else(|error| panic!("{error}"));
    let target = &mut target;
    run_for_ms(target, 500).expect("boot");

    let before = read(target, &layout);
    assert_eq!(before.remaining_us, BySide::new(5_000_000, 5_000_000), "{before:?}");
    assert_eq!((before.running, before.moves), (None, Some(BySide::new(0, 0))), "{before:?}");

    // 6.5: Black's press starts White's clock.
    press(target, ButtonId::Black, 2_000).expect("Black starts the clock");
    let running = read(target, &layout);
    assert_eq!(running.running, Some(Side::White), "{running:?}");
    let used_us = 5_000_000 - running.remaining_us.white;
    // From the press's edge to the reading: the 80 ms hold and 2 s, give or
    // take the debounce and a tick.
    assert!((2_000_000..=2_150_000).contains(&used_us), "White used {used_us} µs");

    // White moves: Black's clock runs, White gets the 2 s increment (6.2).
    press(target, ButtonId::White, 1_000).expect("White moves");
    let after = read(target, &layout);
    assert_eq!(after.running, Some(Side::Black), "{after:?}");
    assert_eq!(after.moves.map(|moves| moves.white), Some(1), "{after:?}");
    assert!(after.remaining_us.white > running.remaining_us.white, "the increment: {after:?}");
    assert!(after.remaining_us.black < 5_000_000 - 1_000_000, "{after:?}");
    assert_eq!(after.flag, BySide::new(false, false));
}
