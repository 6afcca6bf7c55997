//! An independent model of the chess-clock rules, written from the
//! specification rather than from the event-driven core, with two readings
//! of the same rules:
//!
//! - [`TickClock`] works the way a firmware main loop with a 1 kHz SysTick
//!   would: time is a count of whole milliseconds and only ever moves
//!   forward one tick at a time. After every tick, and after every call that
//!   changes which display runs, the loop looks at the running display and
//!   applies whatever is due (delay used up, flag, overtime, byo-yomi period
//!   lost). A call at instant `t` is handled after the tick that ends at
//!   `t`, so a transition due at `t` always comes first. The core's
//!   differential test compares against it.
//! - [`EventClock`] keeps the same rules in microseconds and lets time pass
//!   straight to the next boundary of the running display (between two,
//!   a display only counts down), so it follows any instant, any control
//!   and the arbiter's settings at the cost of a few operations a call: the
//!   simulator's independent-model oracle.
//!
//! [`notation`] is a third independent reading, of the written forms: the
//! time-control text and a time as a display writes it. [`rulings`] is a
//! second reading of the rulings on a fallen flag (6.3, 6.9, 6.10, 6.12).
//! [`EventClock`] also says which per-move rules its latest press applied
//! ([`MoveRules`]), for the simulator to compare with the core's.
//!
//! Only `chessclock`'s types (controls, sides, durations, error kinds) are
//! used here, never its clock, laws or parser (the notation's tests call
//! the parser, to compare).

mod model;
pub mod notation;
pub mod rulings;

use chessclock::{Duration, Instant, Replacement, Side, TimeAdjustment, TimeControl};
use model::{Advance, Model, Settings};

pub use model::{MoveRules, TickError};

/// Whole milliseconds of a duration; the tick reading only takes controls
/// made of whole milliseconds.
pub fn ms(duration: Duration) -> u64 {
    assert_eq!(duration.as_us() % 1_000, 0, "the tick model needs whole milliseconds, got {duration:?}");
    duration.as_us() / 1_000
}

fn us(duration: Duration) -> u64 {
    duration.as_us()
}

/// A flag as the tick model saw it fall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickFlag {
    pub at_ms: u64,
    pub period: u32,
    pub sequence: u32,
}

/// The 1 kHz tick reading.
#[derive(Clone, Debug)]
pub struct TickClock {
    model: Model,
}

impl TickClock {
    pub fn new(control: &TimeControl) -> TickClock {
        TickClock { model: Model::new(control, ms, Advance::Tick) }
    }

    pub fn start(&mut self, at_ms: u64) -> Result<(), TickError> {
        self.model.start(at_ms)
    }

    pub fn press(&mut self, side: Side, at_ms: u64) -> Result<(), TickError> {
        self.model.press(side, at_ms)
    }

    pub fn pause(&mut self, at_ms: u64) -> Result<(), TickError> {
        self.model.pause(at_ms)
    }

    pub fn resume(&mut self, at_ms: u64) -> Result<(), TickError> {
        self.model.resume(at_ms)
    }

    /// Lets the ticks up to `at_ms` happen (an observation, not a call).
    pub fn run_until(&mut self, at_ms: u64) -> Result<(), TickError> {
        self.model.run_until(at_ms)
    }

    /// The big number, in milliseconds.
    pub fn remaining_ms(&self, side: Side) -> u64 {
        self.model.shown(side)
    }

    pub fn moves(&self, side: Side) -> u32 {
        self.model.moves(side)
    }

    pub fn period(&self, side: Side) -> u32 {
        self.model.period(side)
    }

    pub fn flag(&self, side: Side) -> Option<TickFlag> {
        self.model.flag(side).map(|flag| TickFlag { at_ms: flag.at, period: flag.period, sequence: flag.sequence })
    }

    pub fn running(&self) -> Option<Side> {
        self.model.running()
    }

    pub fn is_paused(&self) -> bool {
        self.model.is_paused()
    }
}

/// A flag as the event reading saw it fall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventFlag {
    pub at: Instant,
    pub period: u32,
    pub sequence: u32,
}

/// The event reading: any instant, to the microsecond; time passes to the
/// next boundary in one step. It takes every call the core takes, the
/// arbiter's included.
#[derive(Clone, Copy, Debug)]
pub struct EventClock {
    model: Model,
}

impl EventClock {
    pub fn new(control: &TimeControl) -> EventClock {
        EventClock { model: Model::new(control, us, Advance::Skip) }
    }

    /// 6.5.
    pub fn start(&mut self, at: Instant) -> Result<(), TickError> {
        self.model.start(at.as_us())
    }

    /// 6.8a.
    pub fn press(&mut self, side: Side, at: Instant) -> Result<(), TickError> {
        self.model.press(side, at.as_us())
    }

    /// 6.13a.
    pub fn pause(&mut self, at: Instant) -> Result<(), TickError> {
        self.model.pause(at.as_us())
    }

    /// 6.13c.
    pub fn resume(&mut self, at: Instant) -> Result<(), TickError> {
        self.model.resume(at.as_us())
    }

    /// Lets the time up to `at` pass (an observation, not a call).
    pub fn run_until(&mut self, at: Instant) -> Result<(), TickError> {
        self.model.run_until(at.as_us())
    }

    /// 6.14, 13.4: time added to or taken from `side`'s big number.
    pub fn adjust_time(&mut self, side: Side, adjustment: TimeAdjustment, at: Instant) -> Result<(), TickError> {
        self.model.adjust(side, adjustment, 1, at.as_us())
    }

    /// 6.11, 6.14: `side`'s big number set.
    pub fn set_time(&mut self, side: Side, shown: Duration, at: Instant) -> Result<(), TickError> {
        self.model.set_time(side, shown.as_us(), at.as_us())
    }

    /// 6.14: `side`'s move counter set.
    pub fn set_moves(&mut self, side: Side, moves: u32, at: Instant) -> Result<(), TickError> {
        self.model.set_moves(side, moves, at.as_us())
    }

    /// 6.11: the clock replaced by one showing `settings`.
    pub fn replace(&mut self, settings: &Replacement, at: Instant) -> Result<(), TickError> {
        let both = |by: &chessclock::BySide<u32>| [*by.get(Side::White), *by.get(Side::Black)];
        let settings = Settings {
            shown: [settings.main.get(Side::White).as_us(), settings.main.get(Side::Black).as_us()],
            moves: both(&settings.moves),
            period: both(&settings.period),
            period_moves: both(&settings.period_moves),
        };
        self.model.replace(&settings, at.as_us())
    }

    /// The instant up to which time has passed.
    pub fn now(&self) -> Instant {
        Instant::from_us(self.model.now())
    }

    /// The big number: main time, or in overtime the current period's time.
    pub fn shown(&self, side: Side) -> Duration {
        Duration::from_us(self.model.shown(side))
    }

    pub fn moves(&self, side: Side) -> u32 {
        self.model.moves(side)
    }

    /// 6.2b time-delay mode: the running display's extra time left for
    /// this move (none on a waiting or paused display).
    pub fn delay_shown(&self, side: Side) -> Duration {
        Duration::from_us(self.model.delay_shown(side))
    }

    /// What the latest press did besides counting the move (the per-move
    /// rules of 6.2, byo-yomi and Canadian periods, the hourglass).
    pub fn last_move(&self) -> MoveRules {
        self.model.last_move()
    }

    /// Byo-yomi: periods still to use, the running one included (0 after
    /// the final flag, and under other controls).
    pub fn periods_left(&self, side: Side) -> u32 {
        self.model.periods_left(side)
    }

    /// Canadian overtime: moves still to make in the running period (0 in
    /// main time, and under other controls).
    pub fn period_moves_left(&self, side: Side) -> u32 {
        self.model.period_moves_left(side)
    }

    pub fn period(&self, side: Side) -> u32 {
        self.model.period(side)
    }

    /// Canadian overtime: moves made in the current period.
    pub fn period_moves(&self, side: Side) -> u32 {
        self.model.period_moves(side)
    }

    pub fn flag(&self, side: Side) -> Option<EventFlag> {
        self.model.flag(side).map(|flag| EventFlag {
            at: Instant::from_us(flag.at),
            period: flag.period,
            sequence: flag.sequence,
        })
    }

    pub fn running(&self) -> Option<Side> {
        self.model.running()
    }

    pub fn is_paused(&self) -> bool {
        self.model.is_paused()
    }
}
