//! Every test double of `bench-hil`, in one place and never in `bench`:
//! compiled for this crate's tests and with the cargo feature `fake`
//! (`bench`'s tests turn it on).
//!
//! - [`board`]: a `Target` in memory, RTT rings laid out as the contract
//!   says, button edges on its own clock, failure injection;
//! - [`firmware`]: the reference firmware's game logic on the host (crate
//!   `bench-firmware-game`), with its rule defects as a run-time value;
//! - [`probes`]: a probe backend of fake boards running that firmware, for
//!   everything above probe-rs (selection, flashing, the farm, `bench hil`);
//! - [`gdb_server`]: the server side of the GDB remote protocol, and a
//!   scripted server over a flash it keeps;
//! - [`qmp_server`]: the server side of QEMU's QMP.

pub mod board;
pub mod firmware;
pub mod gdb_server;
pub mod probes;
pub mod qmp_server;
