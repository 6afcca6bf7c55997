//! The NUCLEO-F401RE build of the reference firmware (`scripts/build-firmware
//! --board stm32`, thumbv7em-none-eabihf), checked by reading the ELF: it
//! fits the board's flash and RAM, its vector table sits at the start of
//! flash with a stack pointer in RAM and a Thumb reset vector in flash, the
//! contract's RTT control block is there, and the harness's own pre-flash
//! check (`probe::check_image` against `hil/boards/stm32.toml`) accepts it.
//! `BENCH_STM32_ELF` names a prebuilt image instead.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use bench_hil::backend::probe::check_image;
use bench_hil::board::BoardProfile;
use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol};

/// The image, built once per test process: two builds at once would race
/// on the same output files.
fn image() -> PathBuf {
    static IMAGE: OnceLock<PathBuf> = OnceLock::new();
    IMAGE.get_or_init(build_image).clone()
}

fn build_image() -> PathBuf {
    if let Some(path) = std::env::var_os("BENCH_STM32_ELF") {
        return PathBuf::from(path);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = Command::new(root.join("scripts/build-firmware"))
        .args(["--board", "stm32", "normal"])
        .current_dir(&root)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("scripts/build-firmware runs");
    assert!(
        output.status.success(),
        "scripts/build-firmware --board stm32 normal failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    PathBuf::from(stdout.lines().last().expect("build-firmware printed the image's path"))
}

/// The shipped board profile `hil/boards/NAME.toml`.
fn profile(name: &str) -> BoardProfile {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards").join(format!("{name}.toml"));
    BoardProfile::load(&file).unwrap_or_else(|error| panic!("the {name} profile loads: {error}"))
}

#[test]
fn the_stm32_image_fits_and_keeps_the_contract() {
    let path = image();
    let bytes = std::fs::read(&path).expect("the image is readable");
    let profile = profile("stm32");
    let memory = profile.memory.expect("the stm32 profile has a memory map");
    check_image(&profile, &path, &bytes).expect("the harness accepts the image");

    let file = object::File::parse(bytes.as_slice()).expect("an ELF");
    assert_eq!(file.architecture(), object::Architecture::Arm);
    let flash_used: u64 = file.segments().map(|segment| segment.file_range().1).filter(|size| *size > 0).sum();
    assert!(flash_used <= u64::from(memory.flash.size), "{flash_used} bytes do not fit the flash");

    let vectors = file.section_by_name(".vector_table").expect("a .vector_table section");
    assert_eq!(vectors.address(), u64::from(memory.flash.start), "the vector table starts the flash");
    let table = vectors.data().expect("the vector table's bytes");
    let word = |index: usize| {
        let bytes: [u8; 4] = table[index * 4..index * 4 + 4].try_into().expect("4 bytes");
        u64::from(u32::from_le_bytes(bytes))
    };
    assert!(memory.ram.contains(word(0).saturating_sub(4), 4), "initial SP {:#x} is in RAM", word(0));
    assert_eq!(word(1) & 1, 1, "the reset vector is a Thumb address");
    assert!(memory.flash.contains(word(1) & !1, 2), "reset vector {:#x} is in flash", word(1));
    assert!(table.len() >= 4 * (16 + 11), "the table reaches EXTI4 (IRQ 10)");

    let rtt = file.symbols().find(|symbol| symbol.name() == Ok("_SEGGER_RTT")).expect("the RTT control block");
    assert!(memory.ram.contains(rtt.address(), 16), "_SEGGER_RTT at {:#x} is in RAM", rtt.address());
}

/// The emulator's profile refuses the STM32 image before QEMU starts: it is
/// linked at 0x0800_0000, where the lm3s6965evb has no flash, and would
/// lock the emulated core up at reset.
#[test]
fn the_qemu_board_refuses_the_stm32_image() {
    let path = image();
    let bytes = std::fs::read(&path).expect("the image is readable");
    let profile = profile("qemu");
    let error = check_image(&profile, &path, &bytes).expect_err("an STM32 image is not a QEMU one");
    assert!(error.contains("outside lm3s6965evb's flash") && error.contains("another chip"), "{error}");
}
