//! The boards a `Target` stands for: the emulator, real boards through a
//! debug probe or a GDB server, and in-memory fakes for tests (built only for tests and
//! the cargo feature `fake`, never into `bench`).

#[cfg(any(test, feature = "fake"))]
pub mod fake;
#[cfg(any(test, feature = "fake"))]
pub mod fake_probes;
pub mod gdb;
pub mod probe;
pub mod qemu;
