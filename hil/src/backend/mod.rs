//! The boards a `Target` stands for: the emulator, and real boards through
//! a debug probe or a GDB server. Their doubles for tests are in
//! `crate::testing`.

pub mod gdb;
pub mod probe;
pub mod qemu;
