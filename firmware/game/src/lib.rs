//! The reference firmware's game logic, without the board: commands from the
//! host, presses from the buttons and deadlines from the clock core, turned
//! into `chessclock` calls and bench contract records.
//!
//! ```text
//!   command line ---> Game::command --+
//!   debounced edge -> Game::press ----+--> chessclock::Clock --> records --> Outputs
//!   instant (now) --> Game::advance --+                                     (RTT, or a Vec)
//! ```
//!
//! Two programs run it: the reference firmware (`firmware/`), whose board
//! reads the time, stamps the edges and carries the records over RTT, and
//! the HIL harness's fake firmware (`bench_hil::testing::firmware`),
//! which plays the same logic on the host. Written once so that the fake
//! cannot drift from what the firmware does.
//!
//! No hardware access: time comes in as an [`Instant`](chessclock::Instant),
//! records and the buttons' arming go out through [`Outputs`]. The rule
//! defects are a run-time [`Defects`] value; the firmware builds its value
//! from cargo features, as constants. Their code is compiled only with the
//! feature `defect-hooks` (default on; the normal firmware image is built
//! without it).
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

mod defects;
mod game;

pub use defects::{Defects, HOOKS_COMPILED};
pub use game::{Edge, Game, Outputs, CAPABILITIES, TRANSITIONS_PER_ADVANCE_MAX};
