//! Every board's reference firmware (`firmware/boards/*/`, built by
//! `scripts/build-firmware --board NAME`), checked by reading the ELF
//! against the board's profile (`hil/boards/NAME.toml`): the harness's own
//! check before anything runs (`image::check`, as `bench hil` does), the
//! vector table in flash with a stack pointer in RAM and a Thumb reset
//! vector, and the contract's RTT control block in RAM. An image built for
//! another board is refused. `BENCH_BOARD_ELF_DIR` names a folder of
//! prebuilt images instead (`NAME.elf` per board).

use std::path::{Path, PathBuf};
use std::process::Command;

use bench_hil::board::BoardProfile;
use bench_hil::image::{self, Purpose};
use object::{Object, ObjectSection, ObjectSymbol};

/// The boards bench builds a reference firmware for: every shipped profile
/// with a `[firmware]` table, by name, sorted.
fn boards() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("hil/boards/ is readable")
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.strip_suffix(".toml").map(String::from))
        .filter(|name| profile(name).firmware.is_some())
        .collect();
    names.sort();
    names
}

/// The shipped board profile `hil/boards/NAME.toml`.
fn profile(name: &str) -> BoardProfile {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards").join(format!("{name}.toml"));
    BoardProfile::load(&file).unwrap_or_else(|error| panic!("the {name} profile loads: {error}"))
}

/// Board `name`'s normal image, built by `scripts/build-firmware --board
/// NAME normal` (seconds when nothing changed). Boards are built one after
/// the other by the one test that asks for them all.
fn build_image(name: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os("BENCH_BOARD_ELF_DIR") {
        return PathBuf::from(dir).join(format!("{name}.elf"));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = Command::new(root.join("scripts/build-firmware"))
        .args(["--board", name, "normal"])
        .current_dir(&root)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("scripts/build-firmware runs");
    assert!(
        output.status.success(),
        "scripts/build-firmware --board {name} normal failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let path = PathBuf::from(stdout.lines().last().expect("build-firmware printed the image's path"));
    let expected = profile(name).firmware.expect("a [firmware] table").image;
    assert!(path.ends_with(&expected), "board {name}'s image is {}, its profile says {expected}", path.display());
    path
}

/// Whether the image at `path` would run on the board of `profile`: the
/// harness's check, then the reset state the core reads from the vector
/// table (which the harness does not check: a stack pointer past the end of
/// a smaller RAM only faults once the core runs).
fn fits(profile: &BoardProfile, path: &Path, bytes: &[u8]) -> Result<(), String> {
    image::check(profile, path, bytes, Purpose::Contract)?;
    let memory = profile.memory.as_ref().ok_or("the profile has no memory map")?;
    let file = object::File::parse(bytes).map_err(|error| error.to_string())?;
    let vectors = file.section_by_name(".vector_table").ok_or("no .vector_table section")?;
    let table = vectors.data().map_err(|error| error.to_string())?;
    let word = |index: usize| -> Result<u64, String> {
        let bytes: [u8; 4] = table.get(index * 4..index * 4 + 4).ok_or("a short vector table")?.try_into().unwrap();
        Ok(u64::from(u32::from_le_bytes(bytes)))
    };
    let (stack, reset) = (word(0)?, word(1)?);
    if !memory.flash.contains(vectors.address(), table.len() as u64) {
        return Err(format!("the vector table at {:#x} is outside the flash", vectors.address()));
    }
    if !memory.ram.contains(stack.saturating_sub(4), 4) {
        return Err(format!("the initial stack pointer {stack:#x} is outside the RAM"));
    }
    if reset & 1 != 1 || !memory.flash.contains(reset & !1, 2) {
        return Err(format!("the reset vector {reset:#x} is not a Thumb address in flash"));
    }
    let rtt = file.symbols().find(|symbol| symbol.name() == Ok("_SEGGER_RTT")).ok_or("no _SEGGER_RTT")?;
    if !memory.ram.contains(rtt.address(), 16) {
        return Err(format!("_SEGGER_RTT at {:#x} is outside the RAM", rtt.address()));
    }
    Ok(())
}

/// Whether board `a`'s memory map lies inside board `b`'s: only then can an
/// image linked for `a` pass `b`'s checks (QEMU's lm3s6965evb inside the
/// nRF52840's, both with flash at 0 and RAM at 0x2000_0000).
fn map_within(a: &BoardProfile, b: &BoardProfile) -> bool {
    let (a, b) = (a.memory.as_ref().expect("a memory map"), b.memory.as_ref().expect("a memory map"));
    b.flash.contains(u64::from(a.flash.start), u64::from(a.flash.size))
        && b.ram.contains(u64::from(a.ram.start), u64::from(a.ram.size))
}

/// Each board's reference image fits its own profile, and is refused by
/// every other board's whose memory map does not hold its own.
#[test]
fn each_board_image_fits_its_profile_and_no_other() {
    let boards = boards();
    for wanted in ["qemu", "stm32", "nrf52840-dk", "pico"] {
        assert!(boards.iter().any(|name| name == wanted), "no reference firmware for {wanted}: {boards:?}");
    }
    let images: Vec<(String, PathBuf, Vec<u8>)> = boards
        .iter()
        .map(|name| {
            let path = build_image(name);
            let bytes = std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            (name.clone(), path, bytes)
        })
        .collect();
    for (built_for, path, bytes) in &images {
        for board in &boards {
            let verdict = fits(&profile(board), path, bytes);
            if board == built_for {
                assert_eq!(verdict, Ok(()), "board {board} refuses its own image {}", path.display());
            } else if !map_within(&profile(built_for), &profile(board)) {
                assert!(verdict.is_err(), "board {board} accepts {built_for}'s image {}", path.display());
            }
        }
    }
}

/// The emulator's profile refuses the STM32 image before QEMU starts: it is
/// linked at 0x0800_0000, where the lm3s6965evb has no flash, and would
/// lock the emulated core up at reset.
#[test]
fn the_qemu_board_refuses_the_stm32_image() {
    let path = build_image("stm32");
    let bytes = std::fs::read(&path).expect("the image is readable");
    let error =
        image::check(&profile("qemu"), &path, &bytes, Purpose::Contract).expect_err("an STM32 image is not a QEMU one");
    assert!(error.contains("outside lm3s6965evb's flash") && error.contains("another chip"), "{error}");
}
