//! Puts `memory.x` where cortex-m-rt's `link.x` finds it and links with
//! `link.x`. The link argument lives here rather than in `.cargo/config.toml`
//! because scripts/build-thumb runs cargo from the repository root, where
//! this crate's cargo config is not read.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"));
    fs::write(out.join("memory.x"), include_bytes!("memory.x")).expect("OUT_DIR is writable");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
}
