//! The input log: what the players and the arbiter did to the device clock
//! in one game, in true time, and how the game on the device ended.
//!
//! ```text
//!   players ──press──────────────────┐
//!   arbiter ──pause / resume─────────┼──▶ InputLog ──▶ bench hil's schedule
//!           ──adjust / set / moves───┤                 (the board's presses and
//!           ──replace (6.11)─────────┘                  arbiter commands)
//!   device game over ──────────────────▶ Ending
//! ```
//!
//! Kept only when [`super::GameSpec::record_inputs`] asks for it, so `bench
//! sim` pays nothing for it. An entry is logged where the act is made, before
//! the device's defects: a press the device misses is still in the log, and
//! a perfect device ([`crate::scenario::Device::perfect`]) receives exactly
//! the logged inputs at their logged instants. That is what lets `bench hil`
//! take its schedule from the simulator instead of deriving the game again.
//!
//! Not logged: the device's own faults (bounce, double presses, brownouts:
//! a perfect device has none), and the arbiter's stop of the ideal clock
//! while a device that lost its state is repaired (the device is dark then;
//! the replacement that follows is logged).

use chessclock::{BySide, Duration, FlagFall, Replacement, Ruling, Side, TimeAdjustment};

use crate::outcome::GameResult;

/// One act on the device clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A player presses their button. `move_number` is the mover's move
    /// (1-based) the press completes; `None` for a press that puts a clock
    /// running on the wrong side right.
    Press { side: Side, move_number: Option<u32> },
    /// The arbiter stops the clocks (6.13).
    Pause,
    /// The arbiter starts the clocks again after a pause (6.13).
    Resume,
    /// The arbiter adds time to or removes it from `side` (6.14, 13.4).
    Adjust { side: Side, adjustment: TimeAdjustment },
    /// The arbiter sets both move counters (6.14).
    SetMoves { moves: BySide<u32> },
    /// The arbiter sets `side`'s big number (6.14).
    SetTime { side: Side, time: Duration },
    /// The arbiter replaces the clock with one set to `settings`, running
    /// `running`'s display (6.11).
    Replace { settings: Replacement, running: Side },
}

/// An input and its true instant, µs after the clocks started (6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedInput {
    pub at_us: u64,
    pub input: Input,
}

/// What ended the game on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndedBy {
    /// A move ended the game on the board (5.1, 5.2); it needs no press (6.8a).
    Board { side: Side, move_number: u32, end: chessclock::GameEnd },
    /// Both players made the scenario's `board.max_moves`.
    MoveBound,
    /// A ruling on a noticed flag, or on both flags (6.9, 6.10, 6.12).
    Flag { ruling: Ruling },
    /// A player (or both) absent beyond the default time (6.7).
    DefaultTime { ruling: Ruling },
    /// The game's event bound was reached, or nothing was left to happen:
    /// adjudicated as the move bound is.
    EventBound,
}

/// How and when the game on the device ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    /// True µs after the start.
    pub at_us: u64,
    pub result: GameResult,
    pub by: EndedBy,
    /// The flags the device clock showed at the end, White's first.
    pub flags: Vec<FlagFall>,
}

/// The inputs of one game, in the order they were made (instants never go
/// back), and its ending.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputLog {
    pub inputs: Vec<TimedInput>,
    /// `None` only while the game is played.
    pub ending: Option<Ending>,
}

impl InputLog {
    /// Completed moves per side: presses that complete a move.
    pub fn moves(&self) -> BySide<u32> {
        let mut moves = BySide::both(0);
        for entry in &self.inputs {
            if let Input::Press { side, move_number: Some(number) } = entry.input {
                *moves.get_mut(side) = number;
            }
        }
        moves
    }
}
