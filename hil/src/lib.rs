//! `bench-hil`: hardware in the loop, by concern.
//!
//! - [`target`]: the `Target` abstraction every backend implements; [`board`]: board profiles;
//!   [`image`]: a firmware image checked against a board profile before anything runs.
//! - [`backend`]: the boards behind a `Target` — [`backend::qemu`] (the emulator, through its
//!   own private gdbstub, QMP and qtest clients), [`backend::probe`] (real boards through
//!   probe-rs), [`backend::gdb`] (real boards through any GDB server).
//! - `testing`, for tests only (`cfg(test)`, cargo feature `fake`): every test double — a board
//!   in memory, fake probes, the reference firmware's logic on the host, scripted GDB and QMP
//!   servers.
//! - [`session`]: playing games on a board — the RTT link ([`session::rtt`]: records up,
//!   commands down), the session that presses buttons and sends commands on schedule, the
//!   Ack probe, and [`session::farm`]: one or several probes, games spread over them.
//! - [`judge`]: what a run shows — [`judge::compare`] (the firmware's records against the
//!   clock model) and [`judge::drift`] (time-base fits).
//! - [`schedule`]: the presses and commands of a scenario's game (from `bench_sim::game`);
//!   [`needs`]: what a scenario needs of a firmware, against its Capabilities record;
//!   [`observe`]: an uninstrumented firmware's state, read from RAM where a map file says.
pub mod target;

pub mod backend;
pub mod board;
#[cfg(test)]
mod generated_controls;
pub mod image;
pub mod judge;
pub mod needs;
pub mod observe;
pub mod schedule;
pub mod session;
#[cfg(any(test, feature = "fake"))]
pub mod testing;

pub use target::{ButtonId, Capabilities, CounterReading, EdgeWindow, Target, TargetError};
