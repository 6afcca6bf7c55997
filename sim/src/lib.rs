//! `bench-sim`: the deterministic discrete-event simulator.
//!
//! A game is a pure function of (scenario, seed, game index). Randomness
//! comes from [`rng::Stream`]s, one per (game, actor), through the integer
//! helpers of [`sample`] only.

pub mod queue;
pub mod rng;
pub mod sample;
