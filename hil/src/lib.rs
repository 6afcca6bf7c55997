//! `bench-hil`: hardware in the loop.
//!
//! - [`target`]: the `Target` abstraction every backend implements; [`board`]: board profiles.
//! - [`probe`]: real boards through probe-rs; [`farm`]: one or several probes, games spread over them.
//! - [`qemu`]: the emulator backend, speaking to QEMU through its own private gdbstub and QMP clients (`gdb.rs`, `qmp.rs`).
//! - [`rtt`]: the one RTT reader (records up, commands down) over any `Target`.
//! - [`fake`]: an in-memory `Target` for unit tests; `fake_probes` (cargo feature `fake`): a
//!   probe backend of fake boards running a model of the reference firmware.
//! - [`needs`]: what a scenario needs of a firmware, against its Capabilities record.
//! - [`observe`]: an uninstrumented firmware's state, read from RAM where a map file says.
//! - [`schedule`]: the presses of a scenario's game; [`run`]: playing them on a board;
//!   [`compare`]: the firmware's records against the clock model; [`drift`]: time-base fits.
pub mod target;

pub mod board;
pub mod compare;
pub mod drift;
pub mod fake;
#[cfg(any(test, feature = "fake"))]
pub mod fake_probes;
pub mod farm;
mod gdb;
#[cfg(test)]
mod generated_controls;
pub mod needs;
pub mod observe;
pub mod probe;
pub mod qemu;
mod qmp;
mod qtest;
pub mod rtt;
pub mod run;
pub mod schedule;

pub use target::{ButtonId, Capabilities, CounterReading, EdgeWindow, Target, TargetError};
