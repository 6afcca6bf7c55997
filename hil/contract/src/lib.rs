//! `bench-contract`: what a clock firmware adds so bench can test it —
//! version 3 of the contract in `hil/CONTRACT.md`, as code.
//!
//! - [`record`]: the fixed-size little-endian records of the RTT up-channel
//!   [`UP_CHANNEL`] (`bench`), with [`Record::encode`] and [`Record::decode`].
//! - [`command`]: the text commands of the down-channel [`DOWN_CHANNEL`]
//!   (`bench-ctl`) and a line buffer that collects them.
//! - [`rtt`]: the SEGGER RTT control block layout, so a host can find and
//!   read the channels over plain memory access.
//!
//! The firmware encodes, the harness decodes; both use this crate, so the
//! layout is written once. `CONTRACT.md` gives the same layout as tables,
//! and `include/bench_contract.h` as a C header for firmware written in C or
//! C++ (`firmware/c-example/` uses it); the golden-byte tests here,
//! `tests/c_header.rs` and `tests/c_structs.rs` pin all three.
//!
//! **API Boundary:** no dependency, no allocation, no panics: it builds for
//! the host and for any Cortex-M target. (The feature `serde`, off in the
//! firmware, lets `bench hil --records` write records as JSON.) A change to
//! this crate is a contract version: [`CONTRACT_VERSION`] is the newest,
//! and the harness still runs firmware from [`CONTRACT_VERSION_MIN`] on.
//!
//! Every command line the harness sends is written by
//! [`Command::encode`](command::Command::encode); only the Ack probe
//! (`bench_hil::session::acks`) writes lines by hand, the ones a firmware
//! must refuse.
#![cfg_attr(not(test), no_std)]
#![warn(missing_debug_implementations)]
#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod command;
pub mod record;
pub mod rtt;

pub use command::{Adjustment, Command, CommandError, LineBuffer, LineEvent, ReplaceSide, COMMAND_LINE_MAX};
pub use record::{
    Ack, AckStatus, Body, Button, Capabilities, CommandCode, DecodeError, Flag, Hello, Kind, PeriodCause, PeriodChange,
    Phase, Press, PressResult, Ranges, Record, Side, Snapshot, TimeBase, ARBITER_ADJUST_TIME, ARBITER_ALL,
    ARBITER_PAUSE, ARBITER_REPLACE, ARBITER_SET_MOVES, ARBITER_SET_TIME, BUTTONS_PAUSE, BUTTONS_PLAYERS, BUTTON_BLACK,
    BUTTON_PAUSE, BUTTON_WHITE, CONTROLS_ALL, CONTROL_BRONSTEIN, CONTROL_BYO_YOMI, CONTROL_CANADIAN, CONTROL_DELAY,
    CONTROL_HOURGLASS, CONTROL_INCREMENT, CONTROL_PLAIN, CONTROL_STAGES,
};

/// The contract version a firmware announces in its [`Hello`] record.
///
/// - 1: the records and commands of `CONTRACT.md`.
/// - 2: as 1, and a Press record carries the hardware counter read at the
///   edge ([`Press::edge_hw_counter`], bytes reserved in 1).
/// - 3: as 2, and a [`Capabilities`] record right after Hello; the arbiter's
///   commands `set`, `adjust` and `moves` (their Ack names the side); the
///   press result [`PressResult::NotApplied`]; the pause button is pressed.
pub const CONTRACT_VERSION: u16 = 3;

/// The first contract version with a [`Capabilities`] record and the
/// arbiter's commands.
pub const CONTRACT_VERSION_CAPABILITIES: u16 = 3;

/// The oldest contract version the harness still runs: a version-1
/// firmware is tested as before, without the board-side press latency.
pub const CONTRACT_VERSION_MIN: u16 = 1;

const _: () = assert!(CONTRACT_VERSION_MIN <= CONTRACT_VERSION_CAPABILITIES);
const _: () = assert!(CONTRACT_VERSION_CAPABILITIES <= CONTRACT_VERSION);

/// Every record on the up-channel is exactly this many bytes.
pub const RECORD_SIZE: usize = 48;

/// Name of the RTT up-channel (firmware to host) that carries the records.
pub const UP_CHANNEL: &str = "bench";

/// Name of the RTT down-channel (host to firmware) that carries commands.
pub const DOWN_CHANNEL: &str = "bench-ctl";

/// Smallest up-channel buffer the contract allows, in bytes: 21 records.
/// The host must drain the buffer faster than the firmware fills it; with
/// snapshots every 100 ms the reference firmware writes about 12 records/s.
pub const UP_BUFFER_MIN: usize = 1024;

/// Smallest down-channel buffer, in bytes: one longest command line and its
/// newline fit (a ring buffer holds one byte less than its size).
pub const DOWN_BUFFER_MIN: usize = COMMAND_LINE_MAX + 2;

const _: () = assert!(RECORD_SIZE % 8 == 0, "records keep u64 fields aligned when packed back to back");
const _: () = assert!(UP_BUFFER_MIN >= 16 * RECORD_SIZE);
const _: () = assert!(RECORD_SIZE <= u16::MAX as usize);
