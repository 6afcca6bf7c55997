//! `bench-sim`: the deterministic discrete-event simulator.
//!
//! A game is a pure function of (scenario, seed, game index). Randomness
//! comes from [`rng::Stream`]s, one per (game, actor), through the integer
//! helpers of [`sample`] only.

pub mod board;
pub mod calibrate;
pub mod coverage;
pub mod ddmin;
pub mod defects;
pub mod game;
pub mod legal;
pub mod legal_moves;
pub mod oracle;
pub mod outcome;
pub mod perf;
pub mod player;
pub mod postal;
pub mod press_model;
pub mod queue;
pub mod replay;
pub mod rng;
pub mod run;
pub mod sample;
pub mod scenario;
pub mod shrink;
pub mod timebase;
pub mod toml_location;
pub mod written;
