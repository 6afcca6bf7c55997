//! `chessclock`: the reference model of a chess clock.
//!
//! Everything bench knows about the rules lives here, once: the simulator
//! runs games against it, the hardware-in-the-loop harness compares firmware
//! with it, and the reference firmware runs it on a microcontroller.
//!
//! - [`time`]: integer microseconds in newtypes.
//! - [`control`]: time controls (6.2), validated on construction;
//!   [`notation`]: their text form (the PGN `TimeControl` tag and extensions).
//! - [`clock`]: the event-driven clock state machine (6.1–6.15).
//! - [`correspondence`]: the correspondence clock (whole days) and its
//!   overstepping claims procedure (seed `004_…`).
//! - [`laws`]: pure functions from clock and board facts to a ruling that
//!   names its article (6.3, 6.6–6.12); [`rules`]: rule sets as data.
//! - [`transitions`]: which rules a clock applied, counted (rule coverage).
//!
//! **Architecture Invariant:** the core never reads a clock, allocates,
//! uses floats or panics. Every call carries its instant; impossible calls
//! return typed errors and leave the state unchanged.
#![no_std]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::float_arithmetic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]
#![warn(missing_debug_implementations)]

pub mod clock;
pub mod control;
pub mod correspondence;
pub mod laws;
pub mod notation;
pub mod placement;
pub mod planted;
pub mod rules;
pub mod side;
pub mod time;
pub mod transitions;

pub use clock::{
    Clock, ClockError, Deadline, DeadlineKind, FlagFall, Ledger, Noting, Phase, Reading, Replacement, TRANSITIONS_MAX,
};
pub use control::{Bonus, ControlError, Stage, StageLength, Stages, TimeControl, PERIODS_MAX, STAGES_MAX};
pub use laws::{
    rule_on_both_flags, rule_on_flag, Article, BothFlagsFacts, FlagFacts, GameEnd, Observation, Outcome, Ruling,
};
pub use placement::{Button, Placement};
pub use rules::RuleSet;
pub use side::{BySide, Side};
pub use time::{Duration, Instant, TimeAdjustment};
pub use transitions::{Changes, PeriodCause, PeriodChange, Transition, TransitionEvent, TransitionSink, Transitions};
