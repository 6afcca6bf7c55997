//! Puts `memory.x` where cortex-m-rt's `link.x` finds it and links with
//! `link.x`. The link argument lives here rather than in `.cargo/config.toml`
//! because scripts/build-thumb runs cargo from the repository root, where the
//! firmware's cargo config is not read.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"));
    // The board's memory map: the NUCLEO-F401RE with `board-stm32`. Neither
    // file is called memory.x: the linker looks in the package directory
    // before OUT_DIR, and would take that one for every board.
    let memory: &[u8] = if env::var_os("CARGO_FEATURE_BOARD_STM32").is_some() {
        include_bytes!("memory-stm32f401.x")
    } else {
        include_bytes!("memory-lm3s6965.x")
    };
    fs::write(out.join("memory.x"), memory).expect("OUT_DIR is writable");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory-lm3s6965.x");
    println!("cargo:rerun-if-changed=memory-stm32f401.x");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
}
