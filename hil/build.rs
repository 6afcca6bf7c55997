//! Builds the QEMU lockstep plugin (`qemu-plugin/lockstep.c`) into a shared
//! object that bench carries inside itself and writes next to each QEMU it
//! starts (`backend/qemu/plugin.rs`). The C compiler is the host's, as the
//! `cc` crate finds it.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let source = PathBuf::from("qemu-plugin/lockstep.c");
    println!("cargo:rerun-if-changed={}", source.display());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let plugin = out.join("bench-lockstep.so");
    let compiler = cc::Build::new().cargo_metadata(false).get_compiler();
    let mut command: Command = compiler.to_command();
    command.args(["-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror", "-o"]);
    command.arg(&plugin).arg(&source);
    let status = command.status().unwrap_or_else(|error| {
        panic!("building the QEMU lockstep plugin: cannot run the C compiler {command:?}: {error}; install a C compiler (Debian: apt-get install gcc)")
    });
    assert!(status.success(), "building the QEMU lockstep plugin failed ({status}): {command:?}");
}
