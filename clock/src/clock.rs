//! The clock state machine: two displays, only one running at a time (6.1).
//!
//! ```text
//!   NotStarted --start--> Running(White) --press(White)--> Running(Black) --press(Black)--> ...
//!                            |    ^                              |    ^
//!                          pause resume (6.13)                 pause resume
//!                            v    |                              v    |
//!                          Paused(White)                       Paused(Black)
//!   any --finish--> Finished
//! ```
//!
//! The clock is event-driven: every call carries the instant it happens at,
//! and the clock first *settles* the time that passed since the previous call,
//! applying each transition (delay used up, flag, byo-yomi period lost) at its
//! exact instant. [`Clock::next_deadline`] says when the next transition is
//! due, so a simulator schedules it instead of polling.
//!
//! Ordering rule for equal instants: transitions due at an instant happen
//! before a call made at that instant. A press at the exact instant the flag
//! falls is late; a press at the exact instant a byo-yomi period runs out has
//! lost that period; a press at the exact instant a delay runs out has used
//! all of the delay and none of the main time.
//!
//! Rules the clock applies, and where:
//! - 6.2b saved time carries into the next stage: `advance_stages`.
//! - 6.2b time-delay mode: `begin_move` gives the delay, `consume` spends it
//!   before the main time, `complete_move` banks nothing.
//! - 6.3/6.10 a flag in the final period freezes that display at zero; a flag
//!   in an earlier stage records the flag and opens the next stage, as a
//!   mechanical clock's cumulative dial would, so play can go on (6.12a).
//! - 6.5 White's clock starts: `start`. 6.8a the press completes the move:
//!   `press`. 6.11/6.14 arbiter settings: `set_time`, `adjust_time`,
//!   `set_moves`, `replace`. 6.13 `pause`/`resume`. 6.15 move counter.

use crate::control::{Bonus, TimeControl, PERIODS_MAX, STAGES_MAX};
use crate::planted::{self, Mutant};
use crate::side::{BySide, Side};
use crate::time::{Duration, Instant, TimeAdjustment};
use crate::transitions::{PeriodCause, Transition, TransitionEvent, TransitionSink, Transitions};

/// Where the clock is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    NotStarted,
    /// This side's display counts down.
    Running(Side),
    /// Stopped by the arbiter (6.13); resuming restarts this side.
    Paused(Side),
    /// The game is over; the clock takes no more presses.
    Finished,
}

/// A flag that fell: whose, when, in which period (see
/// [`TimeControl::final_period`] for how periods are numbered).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlagFall {
    pub side: Side,
    pub at: Instant,
    pub period: u32,
    /// 1 for the first flag of the game, 2 for the next, …: decides which fell
    /// first even when two fall at the same instant (an arbiter setting).
    pub sequence: u32,
}

/// What the next transition of the running display will be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeadlineKind {
    /// Time-delay mode: the fixed extra time of this move is used up; the
    /// main time starts to run.
    DelayEnds,
    /// The display reaches zero: a flag falls in this period.
    Flag { period: u32 },
    /// Byo-yomi or Canadian: main time is used up and overtime begins (no flag).
    OvertimeBegins,
    /// Byo-yomi: a period runs out and the next one begins (no flag).
    PeriodLost { period: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Deadline {
    pub at: Instant,
    pub side: Side,
    pub kind: DeadlineKind,
}

/// A call the clock cannot accept. The clock is unchanged by a call that
/// returns an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockError {
    NotStarted,
    AlreadyStarted,
    /// The game is over (checkmate, flag ruled, …): no more presses.
    Finished,
    /// The arbiter has stopped the clocks (6.13).
    Paused,
    NotPaused,
    /// Only the player whose clock runs can stop it (6.8a).
    NotRunning {
        pressed: Side,
        running: Side,
    },
    /// Calls must come in time order.
    TimeWentBackwards {
        last: Instant,
        at: Instant,
    },
    /// An arbiter setting above [`Duration::CONTROL_MAX`].
    TimeTooLong {
        time: Duration,
    },
    /// An arbiter setting names a period the control does not have.
    NoSuchPeriod {
        period: u32,
        final_period: u32,
    },
}

impl core::fmt::Display for ClockError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ClockError::NotStarted => f.write_str("the clock has not been started"),
            ClockError::AlreadyStarted => f.write_str("the clock is already started"),
            ClockError::Finished => f.write_str("the game is over; the clock takes no more presses"),
            ClockError::Paused => f.write_str("the clock is paused by the arbiter (6.13)"),
            ClockError::NotPaused => f.write_str("the clock is not paused"),
            ClockError::NotRunning { pressed, running } => {
                write!(f, "{pressed} pressed, but {running}'s clock is running (6.8a)")
            }
            ClockError::TimeWentBackwards { last, at } => {
                write!(f, "call at {} us is earlier than the previous call at {} us", at.as_us(), last.as_us())
            }
            ClockError::TimeTooLong { time } => {
                write!(f, "{time} is longer than the longest supported time, {}", Duration::CONTROL_MAX)
            }
            ClockError::NoSuchPeriod { period, final_period } => {
                write!(f, "period {period} does not exist; the last period is {final_period}")
            }
        }
    }
}

/// Where each side's time came from and went, for audits and invariants:
///
/// `elapsed = charged + delay_used + overtime_used + after_flag` and
/// `main = credited + arbiter_added - arbiter_removed - charged`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ledger {
    /// Time this side's display ran.
    pub elapsed: Duration,
    /// Main time spent.
    pub charged: Duration,
    /// Time absorbed by the fixed extra time of time-delay mode (6.2b).
    pub delay_used: Duration,
    /// Byo-yomi / Canadian overtime spent.
    pub overtime_used: Duration,
    /// Time run while the display stood frozen at zero after a final flag.
    pub after_flag: Duration,
    /// Main time given by the control: stage times, increments, Bronstein
    /// refunds, hourglass gains.
    pub credited: Duration,
    pub arbiter_added: Duration,
    pub arbiter_removed: Duration,
}

/// One side's display.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Display {
    main: Duration,
    /// Time-delay mode: fixed extra time left for the move in progress.
    delay_left: Duration,
    /// Running time of the move in progress (Bronstein refunds from it).
    move_elapsed: Duration,
    period: u32,
    /// Byo-yomi / Canadian: time left in the current overtime period.
    period_left: Duration,
    /// Canadian: moves made in the current overtime period.
    period_moves: u32,
    moves: u32,
    flag: Option<FlagFall>,
    /// Flagged in the final period: stays at zero, earns no bonus.
    frozen: bool,
    ledger: Ledger,
}

impl Display {
    fn new(main: Duration) -> Display {
        Display {
            main,
            delay_left: Duration::ZERO,
            move_elapsed: Duration::ZERO,
            period: 0,
            period_left: Duration::ZERO,
            period_moves: 0,
            moves: 0,
            flag: None,
            frozen: false,
            ledger: Ledger { credited: main, ..Ledger::default() },
        }
    }

    fn credit(&mut self, amount: Duration) {
        self.main = self.main.saturating_add(amount);
        self.ledger.credited = self.ledger.credited.saturating_add(amount);
    }

    /// An arbiter sets the main time; the ledger records the difference.
    fn set_main(&mut self, main: Duration) {
        if main >= self.main {
            self.ledger.arbiter_added = self.ledger.arbiter_added.saturating_add(main.saturating_sub(self.main));
        } else {
            self.ledger.arbiter_removed = self.ledger.arbiter_removed.saturating_add(self.main.saturating_sub(main));
        }
        self.main = main;
        if !main.is_zero() {
            self.frozen = false;
            self.flag = None;
        }
    }

    /// The period first: it is a plain number, while the control's kind is
    /// a niche in its first stage, and this is asked several times a press.
    #[inline]
    fn in_overtime(&self, control: &TimeControl) -> bool {
        self.period > 0 && matches!(control, TimeControl::ByoYomi { .. } | TimeControl::Canadian { .. })
    }

    /// The big number: main time, or in overtime the current period's time.
    #[inline]
    fn shown(&self, control: &TimeControl) -> Duration {
        if self.in_overtime(control) {
            self.period_left
        } else {
            self.main
        }
    }

    /// An arbiter sets the big number. In overtime that is the current
    /// period's time (main time is over and stays zero there).
    fn set_shown(&mut self, control: &TimeControl, shown: Duration) {
        if self.in_overtime(control) {
            self.period_left = shown;
            if !shown.is_zero() {
                self.frozen = false;
                self.flag = None;
            }
        } else {
            self.set_main(shown);
        }
    }
}

/// What a display shows at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reading {
    /// Main thinking time left.
    pub main: Duration,
    /// Time-delay mode, running side only: extra time left for this move.
    pub delay: Duration,
    /// Period number (see [`TimeControl::final_period`]).
    pub period: u32,
    /// Byo-yomi / Canadian overtime: time left in the current period.
    pub period_left: Duration,
    /// Byo-yomi: periods left, the current one included.
    pub periods_left: u32,
    /// Canadian overtime: moves still to make in the current period.
    pub period_moves_left: u32,
    /// Completed moves (6.15).
    pub moves: u32,
    pub flag: Option<FlagFall>,
}

/// Arbiter-chosen settings for a replacement clock (6.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Replacement {
    pub main: BySide<Duration>,
    pub moves: BySide<u32>,
    pub period: BySide<u32>,
    /// Canadian overtime: moves already made in the current period (the
    /// period's time is `main`). Ignored outside Canadian overtime.
    pub period_moves: BySide<u32>,
}

/// Deadlines one run of a display can pass: every stage can flag once,
/// every byo-yomi period can be lost once, plus a delay end, overtime start
/// and final flag.
const DEADLINES_PER_RUN_MAX: u32 = PERIODS_MAX + STAGES_MAX as u32 + 4;
// `Clock::run` is bounded by it, and a run that hit the bound would leave
// time unspent: the longest byo-yomi passes overtime's start, every period
// but the last and the final flag (PERIODS_MAX + 1 deadlines), stages a
// delay's end and every stage's flag (STAGES_MAX + 1); then one more turn
// spends the rest. (clock/tests/articles.rs
// a6_3_a6_10_one_settling_across_every_byo_yomi_period_flags_in_the_last)
const _: () = assert!(DEADLINES_PER_RUN_MAX >= PERIODS_MAX + 2);
const _: () = assert!(DEADLINES_PER_RUN_MAX >= STAGES_MAX as u32 + 2);

/// Transitions one call can hand a [`TransitionSink`]: a call runs the
/// displays at most twice, each deadline is at most two transitions (a flag
/// and 6.12's both flags), and a press adds its own (the press, its bonus,
/// a renewed period, each stage its count completes).
pub const TRANSITIONS_MAX: usize = 4 * DEADLINES_PER_RUN_MAX as usize + 3 + STAGES_MAX;

/// A chess clock running one time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clock {
    control: TimeControl,
    phase: Phase,
    /// Instant of the latest call; time up to here is settled.
    settled_at: Instant,
    displays: BySide<Display>,
    flags_fallen: u32,
    transitions: Transitions,
}

impl Clock {
    pub fn new(control: TimeControl) -> Clock {
        let initial = control.initial_time();
        Clock {
            control,
            phase: Phase::NotStarted,
            settled_at: Instant::EPOCH,
            displays: BySide::both(Display::new(initial)),
            flags_fallen: 0,
            transitions: Transitions::default(),
        }
    }

    #[inline]
    pub fn control(&self) -> &TimeControl {
        &self.control
    }

    #[inline]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The instant of the latest call: the clock's notion of "now".
    #[inline]
    pub fn settled_at(&self) -> Instant {
        self.settled_at
    }

    #[inline]
    pub fn running(&self) -> Option<Side> {
        match self.phase {
            Phase::Running(side) => Some(side),
            Phase::NotStarted | Phase::Paused(_) | Phase::Finished => None,
        }
    }

    /// Completed moves of `side`, as the clock counted them (6.15).
    #[inline]
    pub fn moves(&self, side: Side) -> u32 {
        self.displays.get(side).moves
    }

    #[inline]
    pub fn period(&self, side: Side) -> u32 {
        self.displays.get(side).period
    }

    /// Canadian overtime: moves `side` has made in its current period.
    #[inline]
    pub fn period_moves(&self, side: Side) -> u32 {
        self.displays.get(side).period_moves
    }

    /// The flag `side`'s display shows, if any.
    #[inline]
    pub fn flag(&self, side: Side) -> Option<FlagFall> {
        self.displays.get(side).flag
    }

    /// Which shown flag fell first, as the equipment standard requires a
    /// clock to show (6.3).
    pub fn first_flag(&self) -> Option<FlagFall> {
        match (self.flag(Side::White), self.flag(Side::Black)) {
            (Some(white), Some(black)) => Some(if white.sequence <= black.sequence { white } else { black }),
            (Some(flag), None) | (None, Some(flag)) => Some(flag),
            (None, None) => None,
        }
    }

    /// The big number on `side`'s display as of the latest call
    /// (`remaining(side, settled_at())` without the time checks).
    #[inline]
    pub fn shown(&self, side: Side) -> Duration {
        self.displays.get(side).shown(&self.control)
    }

    /// `side`'s main time as of the latest call (`reading(side,
    /// settled_at()).main`, without building the whole reading).
    #[inline]
    pub fn main_time(&self, side: Side) -> Duration {
        self.displays.get(side).main
    }

    #[inline]
    pub fn ledger(&self, side: Side) -> &Ledger {
        &self.displays.get(side).ledger
    }

    /// The rules this clock applied so far, counted (rule coverage).
    pub fn transitions(&self) -> &Transitions {
        &self.transitions
    }

    /// 6.5: at the time set for the start, White's clock is started.
    pub fn start(&mut self, at: Instant) -> Result<(), ClockError> {
        self.start_noting(at, &mut ())
    }

    /// 6.8a: `side` stops its clock, completing its move, and starts the
    /// opponent's. The time up to the press is the mover's.
    pub fn press(&mut self, side: Side, at: Instant) -> Result<(), ClockError> {
        self.press_noting(side, at, &mut ())
    }

    /// 6.13a: the arbiter stops the clocks.
    pub fn pause(&mut self, at: Instant) -> Result<(), ClockError> {
        self.pause_noting(at, &mut ())
    }

    /// 6.13c: the arbiter restarts the clock that was running.
    pub fn resume(&mut self, at: Instant) -> Result<(), ClockError> {
        self.resume_noting(at, &mut ())
    }

    /// The calls that apply rules, handing each transition to `sink` as
    /// well as counting it: `clock.noting(&mut changes).press(side, at)`.
    pub fn noting<'a, S: TransitionSink + ?Sized>(&'a mut self, sink: &'a mut S) -> Noting<'a, S> {
        Noting { clock: self, sink }
    }

    fn start_noting<S: TransitionSink + ?Sized>(&mut self, at: Instant, sink: &mut S) -> Result<(), ClockError> {
        match self.phase {
            Phase::NotStarted => {}
            Phase::Finished => return Err(ClockError::Finished),
            Phase::Running(_) | Phase::Paused(_) => return Err(ClockError::AlreadyStarted),
        }
        // Nothing runs before the start: this settling only checks the
        // instant, so a refused start changes nothing.
        self.settle_noting(at, sink)?;
        self.phase = Phase::Running(Side::White);
        self.begin_move(Side::White);
        self.note(sink, Transition::Start, Side::White, self.period(Side::White));
        self.settle_noting(at, sink)
    }

    fn press_noting<S: TransitionSink + ?Sized>(
        &mut self,
        side: Side,
        at: Instant,
        sink: &mut S,
    ) -> Result<(), ClockError> {
        match self.phase {
            Phase::Running(running) if running == side => {}
            Phase::Running(running) => return Err(ClockError::NotRunning { pressed: side, running }),
            Phase::NotStarted => return Err(ClockError::NotStarted),
            Phase::Paused(_) => return Err(ClockError::Paused),
            Phase::Finished => return Err(ClockError::Finished),
        }
        self.settle_noting(at, sink)?;
        self.note(sink, Transition::Press, side, self.period(side));
        self.complete_move(side, sink);
        self.phase = Phase::Running(side.opponent());
        self.begin_move(side.opponent());
        // Transitions due at once (a stage or delay of zero) fall now.
        self.run(side.opponent(), at, sink);
        Ok(())
    }

    fn pause_noting<S: TransitionSink + ?Sized>(&mut self, at: Instant, sink: &mut S) -> Result<(), ClockError> {
        let side = match self.phase {
            Phase::Running(side) => side,
            Phase::NotStarted => return Err(ClockError::NotStarted),
            Phase::Paused(_) => return Err(ClockError::Paused),
            Phase::Finished => return Err(ClockError::Finished),
        };
        self.settle_noting(at, sink)?;
        self.phase = Phase::Paused(side);
        self.note(sink, Transition::Pause, side, self.period(side));
        Ok(())
    }

    fn resume_noting<S: TransitionSink + ?Sized>(&mut self, at: Instant, sink: &mut S) -> Result<(), ClockError> {
        let side = match self.phase {
            Phase::Paused(side) => side,
            Phase::NotStarted => return Err(ClockError::NotStarted),
            Phase::Running(_) => return Err(ClockError::NotPaused),
            Phase::Finished => return Err(ClockError::Finished),
        };
        self.settle_noting(at, sink)?;
        self.phase = Phase::Running(side);
        self.note(sink, Transition::Resume, side, self.period(side));
        self.settle_noting(at, sink)
    }

    /// The game is over (result decided by the laws); the clock stops for good.
    pub fn finish(&mut self, at: Instant) -> Result<(), ClockError> {
        self.finish_noting(at, &mut ())
    }

    fn finish_noting<S: TransitionSink + ?Sized>(&mut self, at: Instant, sink: &mut S) -> Result<(), ClockError> {
        if self.phase == Phase::Finished {
            return Err(ClockError::Finished);
        }
        self.settle_noting(at, sink)?;
        if !planted::on(Mutant::FinishKeepsRunning) {
            self.phase = Phase::Finished;
        }
        Ok(())
    }

    /// Brings the clock up to `at`, applying every transition due by then at
    /// its exact instant. Needed only to observe a deadline as it passes;
    /// every other call settles first.
    pub fn settle(&mut self, at: Instant) -> Result<(), ClockError> {
        self.settle_noting(at, &mut ())
    }

    fn settle_noting<S: TransitionSink + ?Sized>(&mut self, at: Instant, sink: &mut S) -> Result<(), ClockError> {
        self.check_time_order(at)?;
        if let Phase::Running(side) = self.phase {
            self.run(side, at, sink);
        }
        self.settled_at = at;
        Ok(())
    }

    /// The next instant at which the running display changes more than by
    /// counting down: a delay runs out, a flag falls, overtime begins or a
    /// byo-yomi period is lost. `None` when no display runs or the running
    /// display is frozen after its final flag.
    #[inline]
    pub fn next_deadline(&self) -> Option<Deadline> {
        let side = self.running()?;
        let (after, kind) = self.next_transition(side)?;
        Some(Deadline { at: self.settled_at.after(after), side, kind })
    }

    /// What `side`'s display shows at `at` (not earlier than the latest call).
    pub fn reading(&self, side: Side, at: Instant) -> Result<Reading, ClockError> {
        if self.unchanged_until(side, at)? {
            return Ok(self.reading_now(side));
        }
        let mut projected = *self;
        projected.settle(at)?;
        Ok(projected.reading_now(side))
    }

    /// The big number on `side`'s display at `at`: the main time, or in
    /// byo-yomi / Canadian overtime the time left in the current period.
    #[inline]
    pub fn remaining(&self, side: Side, at: Instant) -> Result<Duration, ClockError> {
        if self.unchanged_until(side, at)? {
            return Ok(self.displays.get(side).shown(&self.control));
        }
        if let Some(shown) = self.running_shown_before_transition(side, at) {
            return Ok(shown);
        }
        self.remaining_projected(side, at)
    }

    /// `remaining` when a transition may come first: a copy of the clock
    /// run forward. Kept out of line so the common answers stay cheap.
    #[cold]
    #[inline(never)]
    fn remaining_projected(&self, side: Side, at: Instant) -> Result<Duration, ClockError> {
        let mut projected = *self;
        projected.settle(at)?;
        Ok(projected.displays.get(side).shown(&self.control))
    }

    /// The running `side`'s big number at `at` when no transition comes
    /// before then: the display only counts down, so no projection (a copy
    /// of the clock run forward) is needed. `None` when one might.
    #[inline]
    fn running_shown_before_transition(&self, side: Side, at: Instant) -> Option<Duration> {
        if self.running() != Some(side) {
            return None;
        }
        let available = at.since(self.settled_at);
        let (after, _) = self.next_transition(side)?;
        if available >= after {
            return None;
        }
        // What `consume` would spend, read off without changing anything.
        let display = self.displays.get(side);
        Some(if !display.delay_left.is_zero() {
            display.shown(&self.control)
        } else if display.in_overtime(&self.control) {
            display.period_left.saturating_sub(available)
        } else {
            display.main.saturating_sub(available)
        })
    }

    /// Whether `side`'s display shows at `at` what it shows now, so a
    /// query needs no projection: nothing has run since, or `side` is not
    /// running and (outside an hourglass) a waiting display stands still.
    #[inline]
    fn unchanged_until(&self, side: Side, at: Instant) -> Result<bool, ClockError> {
        self.check_time_order(at)?;
        let hourglass = matches!(self.control, TimeControl::Hourglass { .. });
        Ok(at == self.settled_at || (self.running() != Some(side) && !hourglass))
    }

    /// 6.11 / 6.14: the arbiter sets `side`'s main time. A display set above
    /// zero no longer shows a flag. A display set to zero flags as soon as it
    /// runs.
    pub fn set_time(&mut self, side: Side, main: Duration, at: Instant) -> Result<(), ClockError> {
        self.set_time_noting(side, main, at, &mut ())
    }

    /// 6.8d / 13.4: the arbiter adds time (a penalty's "extra time for the
    /// opponent") or subtracts it ("less time for the offender"); subtracting
    /// stops at zero.
    pub fn adjust_time(&mut self, side: Side, adjustment: TimeAdjustment, at: Instant) -> Result<(), ClockError> {
        self.adjust_time_noting(side, adjustment, at, &mut ())
    }

    /// 6.14: the arbiter adjusts the move counter. Stage changes follow from
    /// the counter at the next press.
    pub fn set_moves(&mut self, side: Side, moves: u32, at: Instant) -> Result<(), ClockError> {
        self.set_moves_noting(side, moves, at, &mut ())
    }

    /// 6.11: a defective clock is replaced; the new one shows what the
    /// arbiter decided. Flags are cleared; the side that was running keeps
    /// running (or stays paused).
    pub fn replace(&mut self, settings: Replacement, at: Instant) -> Result<(), ClockError> {
        self.replace_noting(settings, at, &mut ())
    }

    fn set_time_noting<S: TransitionSink + ?Sized>(
        &mut self,
        side: Side,
        main: Duration,
        at: Instant,
        sink: &mut S,
    ) -> Result<(), ClockError> {
        check_arbiter_time(main)?;
        self.settle_noting(at, sink)?;
        let control = self.control;
        self.displays.get_mut(side).set_shown(&control, main);
        self.note(sink, Transition::SetTime, side, self.period(side));
        self.settle_noting(at, sink)
    }

    fn adjust_time_noting<S: TransitionSink + ?Sized>(
        &mut self,
        side: Side,
        adjustment: TimeAdjustment,
        at: Instant,
        sink: &mut S,
    ) -> Result<(), ClockError> {
        // Checked on what the display will show at `at`, before anything
        // changes: a refused adjustment changes nothing and hands nothing on.
        let shown = self.remaining(side, at)?;
        let adjusted = match adjustment {
            TimeAdjustment::Add(amount) => shown.saturating_add(amount),
            TimeAdjustment::Subtract(amount) if planted::on(Mutant::PenaltyAdds) => shown.saturating_add(amount),
            TimeAdjustment::Subtract(amount) => shown.saturating_sub(amount),
        };
        check_arbiter_time(adjusted)?;
        self.settle_noting(at, sink)?;
        let control = self.control;
        self.displays.get_mut(side).set_shown(&control, adjusted);
        self.note(sink, Transition::AdjustTime, side, self.period(side));
        self.settle_noting(at, sink)
    }

    fn set_moves_noting<S: TransitionSink + ?Sized>(
        &mut self,
        side: Side,
        moves: u32,
        at: Instant,
        sink: &mut S,
    ) -> Result<(), ClockError> {
        self.settle_noting(at, sink)?;
        self.displays.get_mut(side).moves = moves;
        self.note(sink, Transition::SetMoves, side, self.period(side));
        Ok(())
    }

    fn replace_noting<S: TransitionSink + ?Sized>(
        &mut self,
        settings: Replacement,
        at: Instant,
        sink: &mut S,
    ) -> Result<(), ClockError> {
        let final_period = self.control.final_period();
        for side in Side::BOTH {
            check_arbiter_time(*settings.main.get(side))?;
            let period = *settings.period.get(side);
            if period > final_period {
                return Err(ClockError::NoSuchPeriod { period, final_period });
            }
        }
        self.settle_noting(at, sink)?;
        let periods_before = BySide::new(self.period(Side::White), self.period(Side::Black));
        for side in Side::BOTH {
            let control = self.control;
            let display = self.displays.get_mut(side);
            display.period = *settings.period.get(side);
            // 6.15 counter: stages switch by it, so it is the arbiter's too.
            display.moves = *settings.moves.get(side);
            let canadian = matches!(control, TimeControl::Canadian { .. });
            display.period_moves =
                if canadian && display.in_overtime(&control) { *settings.period_moves.get(side) } else { 0 };
            if display.in_overtime(&control) {
                display.set_main(Duration::ZERO);
                display.period_left = *settings.main.get(side);
            } else {
                display.set_main(*settings.main.get(side));
                display.period_left = Duration::ZERO;
            }
            display.frozen = false;
            display.flag = None;
            display.delay_left = Duration::ZERO;
        }
        // The new clock starts the running move afresh, under the bonus of
        // the period the arbiter set (not the one the clock was in).
        if let Phase::Running(side) | Phase::Paused(side) = self.phase {
            self.begin_move(side);
        }
        // One replacement, counted once; each display's new period handed on.
        self.transitions.note(Transition::Replacement);
        for side in Side::BOTH {
            self.hand(sink, Transition::Replacement, side, *periods_before.get(side), None);
        }
        self.settle_noting(at, sink)
    }

    /// Counts `transition`, applied to `side`'s display, and hands it to
    /// `sink`; called once the rule has changed the display, with the
    /// period the display was in before.
    #[inline]
    fn note<S: TransitionSink + ?Sized>(&mut self, sink: &mut S, transition: Transition, side: Side, period_from: u32) {
        self.transitions.note(transition);
        self.hand(sink, transition, side, period_from, None);
    }

    /// Hands `transition` to `sink` without counting it.
    #[inline]
    fn hand<S: TransitionSink + ?Sized>(
        &self,
        sink: &mut S,
        transition: Transition,
        side: Side,
        period_from: u32,
        flag: Option<FlagFall>,
    ) {
        let period_to = self.period(side);
        let cause = period_cause(transition, period_from, period_to, &self.control);
        sink.note(TransitionEvent { transition, side, at: self.settled_at, period_from, period_to, cause, flag });
    }

    #[inline]
    fn check_time_order(&self, at: Instant) -> Result<(), ClockError> {
        if at < self.settled_at {
            return Err(ClockError::TimeWentBackwards { last: self.settled_at, at });
        }
        Ok(())
    }

    fn reading_now(&self, side: Side) -> Reading {
        let display = self.displays.get(side);
        let (periods_left, period_moves_left) = match self.control {
            TimeControl::ByoYomi { periods, .. } => {
                let left = if display.frozen { 0 } else { periods.saturating_sub(display.period.saturating_sub(1)) };
                (left, 0)
            }
            TimeControl::Canadian { moves, .. } if display.period > 0 => {
                (0, moves.saturating_sub(display.period_moves))
            }
            TimeControl::Canadian { .. } | TimeControl::Stages(_) | TimeControl::Hourglass { .. } => (0, 0),
        };
        Reading {
            main: display.main,
            delay: if self.running() == Some(side) { display.delay_left } else { Duration::ZERO },
            period: display.period,
            period_left: display.period_left,
            periods_left,
            period_moves_left,
            moves: display.moves,
            flag: display.flag,
        }
    }

    /// The bonus of the stage `side` is in (none outside staged controls).
    fn bonus(&self, side: Side) -> Bonus {
        match &self.control {
            TimeControl::Stages(stages) => {
                let period = usize::try_from(self.displays.get(side).period).unwrap_or(usize::MAX);
                stages.get(period).map_or(Bonus::None, |stage| stage.bonus)
            }
            TimeControl::Hourglass { .. } | TimeControl::ByoYomi { .. } | TimeControl::Canadian { .. } => Bonus::None,
        }
    }

    fn begin_move(&mut self, side: Side) {
        let delay = match self.bonus(side) {
            Bonus::Delay(delay) => delay,
            Bonus::None | Bonus::Increment(_) | Bonus::Bronstein(_) => Duration::ZERO,
        };
        let display = self.displays.get_mut(side);
        display.move_elapsed = Duration::ZERO;
        display.delay_left = if display.frozen { Duration::ZERO } else { delay };
    }

    fn complete_move<S: TransitionSink + ?Sized>(&mut self, side: Side, sink: &mut S) {
        let bonus = self.bonus(side);
        let control = self.control;
        let display = self.displays.get_mut(side);
        display.moves = display.moves.saturating_add(1);
        let mut bonus_rule = None;
        let mut period_rule = None;
        if !display.frozen {
            bonus_rule = match bonus {
                Bonus::Increment(increment) => {
                    display.credit(increment);
                    if planted::on(Mutant::IncrementTwice) {
                        display.credit(increment);
                    }
                    Some(Transition::Increment)
                }
                Bonus::Bronstein(delay) => {
                    let whole_move = display.move_elapsed <= delay;
                    let refund =
                        if planted::on(Mutant::BronsteinFullDelay) { delay } else { display.move_elapsed.min(delay) };
                    display.credit(refund);
                    Some(if whole_move { Transition::BronsteinWholeMove } else { Transition::BronsteinCapped })
                }
                // 6.2b: unused extra time is not banked.
                Bonus::Delay(_) if !display.delay_left.is_zero() => {
                    if planted::on(Mutant::DelayBanks) {
                        display.credit(display.delay_left);
                    }
                    Some(Transition::DelayUnused)
                }
                Bonus::Delay(_) | Bonus::None => None,
            };
            period_rule = match control {
                TimeControl::ByoYomi { period, .. } if display.period > 0 => {
                    if !planted::on(Mutant::ByoYomiNotRenewed) {
                        display.period_left = period;
                    }
                    Some(Transition::ByoYomiPeriodRenewed)
                }
                TimeControl::Canadian { moves, period, .. } if display.period > 0 => {
                    display.period_moves = display.period_moves.saturating_add(1);
                    let early = u32::from(planted::on(Mutant::CanadianBlockEarly));
                    (display.period_moves.saturating_add(early) >= moves).then(|| {
                        display.period_moves = 0;
                        display.period_left = period;
                        Transition::CanadianBlockReset
                    })
                }
                TimeControl::Hourglass { .. } if !display.move_elapsed.is_zero() => Some(Transition::HourglassTransfer),
                TimeControl::Stages(_)
                | TimeControl::ByoYomi { .. }
                | TimeControl::Canadian { .. }
                | TimeControl::Hourglass { .. } => None,
            };
        }
        let period = self.period(side);
        for rule in [bonus_rule, period_rule].into_iter().flatten() {
            self.note(sink, rule, side, period);
        }
        if !self.displays.get(side).frozen {
            if let TimeControl::Stages(_) = control {
                self.advance_stages(side, sink);
            }
        }
        let display = self.displays.get_mut(side);
        display.move_elapsed = Duration::ZERO;
        display.delay_left = Duration::ZERO;
    }

    /// 6.2b: each stage completed by `side`'s move count adds the next
    /// stage's time to what `side` saved.
    fn advance_stages<S: TransitionSink + ?Sized>(&mut self, side: Side, sink: &mut S) {
        for _ in 0..STAGES_MAX {
            let display = self.displays.get_mut(side);
            if self.control.is_final_period(display.period) {
                return;
            }
            match self.control.moves_required_by_end_of(display.period) {
                Some(required) if display.moves >= required => {}
                Some(_) | None => return,
            }
            let period_from = display.period;
            open_next_stage(display, &self.control);
            self.note(sink, Transition::StageByMoves, side, period_from);
        }
    }

    /// Time from `settled_at` to the running display's next transition.
    #[inline]
    fn next_transition(&self, side: Side) -> Option<(Duration, DeadlineKind)> {
        let display = self.displays.get(side);
        if display.frozen {
            return None;
        }
        if !display.delay_left.is_zero() {
            return Some((display.delay_left, DeadlineKind::DelayEnds));
        }
        if !display.in_overtime(&self.control) {
            let kind = match self.control {
                TimeControl::ByoYomi { .. } | TimeControl::Canadian { .. } => DeadlineKind::OvertimeBegins,
                TimeControl::Stages(_) | TimeControl::Hourglass { .. } => DeadlineKind::Flag { period: display.period },
            };
            return Some((display.main, kind));
        }
        let kind = match self.control {
            TimeControl::ByoYomi { .. } if !self.control.is_final_period(display.period) => {
                DeadlineKind::PeriodLost { period: display.period }
            }
            // Byo-yomi's last period, Canadian blocks (each is the last: the
            // time runs out only if the block's moves are not made).
            TimeControl::ByoYomi { .. } | TimeControl::Canadian { .. } => DeadlineKind::Flag { period: display.period },
            // Never reached (no overtime), named so a new kind must say.
            TimeControl::Stages(_) | TimeControl::Hourglass { .. } => DeadlineKind::Flag { period: display.period },
        };
        Some((display.period_left, kind))
    }

    /// Lets `side`'s display run from `settled_at` to `at`.
    fn run<S: TransitionSink + ?Sized>(&mut self, side: Side, at: Instant, sink: &mut S) {
        for _ in 0..DEADLINES_PER_RUN_MAX {
            let available = at.since(self.settled_at);
            match self.next_transition(side) {
                Some((after, kind)) if after <= available => {
                    self.consume(side, after);
                    self.settled_at = self.settled_at.after(after);
                    self.apply(side, kind, sink);
                }
                Some(_) | None => {
                    // Spending nothing changes nothing (a press settles twice
                    // at one instant).
                    if !available.is_zero() {
                        self.consume(side, available);
                    }
                    self.settled_at = at;
                    return;
                }
            }
        }
    }

    /// Spends `spent` of running time on `side`'s display; never crosses a
    /// transition (the caller stops at each).
    fn consume(&mut self, side: Side, spent: Duration) {
        let control = &self.control;
        let display = self.displays.get_mut(side);
        display.ledger.elapsed = display.ledger.elapsed.saturating_add(spent);
        display.move_elapsed = display.move_elapsed.saturating_add(spent);
        if display.frozen {
            display.ledger.after_flag = display.ledger.after_flag.saturating_add(spent);
        } else if !display.delay_left.is_zero() {
            display.delay_left = display.delay_left.saturating_sub(spent);
            display.ledger.delay_used = display.ledger.delay_used.saturating_add(spent);
        } else if !display.in_overtime(control) {
            display.main = display.main.saturating_sub(spent);
            display.ledger.charged = display.ledger.charged.saturating_add(spent);
            if let TimeControl::Hourglass { .. } = control {
                let opponent = self.displays.get_mut(side.opponent());
                if !opponent.frozen && !planted::on(Mutant::HourglassNoGain) {
                    opponent.credit(spent);
                }
            }
        } else {
            display.period_left = display.period_left.saturating_sub(spent);
            display.ledger.overtime_used = display.ledger.overtime_used.saturating_add(spent);
        }
    }

    // Out of line on the host: inlined, its transitions' bookkeeping was set
    // up on every `run`, and most runs (each press settles twice) cross
    // none. The firmware's size-optimised build is left to decide (its
    // images, and what bench measures of them, stay as they were).
    #[cfg_attr(not(target_os = "none"), inline(never))]
    fn apply<S: TransitionSink + ?Sized>(&mut self, side: Side, kind: DeadlineKind, sink: &mut S) {
        let control = self.control;
        let period_from = self.period(side);
        match kind {
            DeadlineKind::DelayEnds => self.note(sink, Transition::DelayUsedUp, side, period_from),
            DeadlineKind::OvertimeBegins => {
                let display = self.displays.get_mut(side);
                display.period = 1;
                display.period_moves = 0;
                display.period_left = match control {
                    TimeControl::ByoYomi { period, .. } | TimeControl::Canadian { period, .. } => period,
                    TimeControl::Stages(_) | TimeControl::Hourglass { .. } => Duration::ZERO,
                };
                self.note(sink, Transition::OvertimeBegins, side, period_from);
            }
            DeadlineKind::PeriodLost { .. } => {
                let display = self.displays.get_mut(side);
                display.period = display.period.saturating_add(1);
                if let TimeControl::ByoYomi { period, .. } = control {
                    display.period_left = period;
                }
                self.note(sink, Transition::ByoYomiPeriodLost, side, period_from);
            }
            DeadlineKind::Flag { period } => {
                self.flags_fallen = self.flags_fallen.saturating_add(1);
                let flag = FlagFall { side, at: self.settled_at, period, sequence: self.flags_fallen };
                if self.displays.get(side.opponent()).flag.is_some() {
                    self.note(sink, Transition::BothFlags, side, period_from);
                }
                let final_period = control.is_final_period(period);
                let display = self.displays.get_mut(side);
                display.flag = Some(flag);
                if final_period {
                    display.frozen = true;
                    display.delay_left = Duration::ZERO;
                } else {
                    // The stage ran out before its moves were made: the next
                    // stage's time starts now, as on a mechanical clock whose
                    // dial is cumulative; the laws decide what the flag means.
                    open_next_stage(display, &control);
                }
                let transition = if final_period { Transition::FlagFinal } else { Transition::FlagEarlierStage };
                self.transitions.note(transition);
                self.hand(sink, transition, side, period_from, Some(flag));
            }
        }
    }
}

/// Why a period changed, from the transition that changed it: the one
/// place a period change gets its cause. `None` when the period stayed.
fn period_cause(transition: Transition, from: u32, to: u32, control: &TimeControl) -> Option<PeriodCause> {
    if from == to {
        return None;
    }
    Some(match transition {
        Transition::StageByMoves => PeriodCause::MovesCompleted,
        Transition::FlagEarlierStage => PeriodCause::FlagOpenedNext,
        Transition::OvertimeBegins => PeriodCause::OvertimeBegins,
        Transition::ByoYomiPeriodLost => PeriodCause::PeriodLost,
        // An arbiter's new clock (6.11) sets periods outright: reported as
        // the change it amounts to, overtime entered from main time or a
        // period left. No other transition changes a period.
        Transition::Replacement
        | Transition::Start
        | Transition::Press
        | Transition::Increment
        | Transition::DelayUnused
        | Transition::DelayUsedUp
        | Transition::BronsteinWholeMove
        | Transition::BronsteinCapped
        | Transition::FlagFinal
        | Transition::BothFlags
        | Transition::ByoYomiPeriodRenewed
        | Transition::CanadianBlockReset
        | Transition::HourglassTransfer
        | Transition::Pause
        | Transition::Resume
        | Transition::SetTime
        | Transition::AdjustTime
        | Transition::SetMoves => match control {
            TimeControl::ByoYomi { .. } | TimeControl::Canadian { .. } if from == 0 => PeriodCause::OvertimeBegins,
            TimeControl::ByoYomi { .. }
            | TimeControl::Canadian { .. }
            | TimeControl::Stages(_)
            | TimeControl::Hourglass { .. } => PeriodCause::PeriodLost,
        },
    })
}

/// A clock borrowed with a [`TransitionSink`]: the calls that apply rules,
/// each handing its transitions to the sink ([`Clock::noting`]).
#[derive(Debug)]
pub struct Noting<'a, S: TransitionSink + ?Sized> {
    clock: &'a mut Clock,
    sink: &'a mut S,
}

impl<S: TransitionSink + ?Sized> Noting<'_, S> {
    /// [`Clock::start`].
    pub fn start(&mut self, at: Instant) -> Result<(), ClockError> {
        self.clock.start_noting(at, self.sink)
    }

    /// [`Clock::press`].
    pub fn press(&mut self, side: Side, at: Instant) -> Result<(), ClockError> {
        self.clock.press_noting(side, at, self.sink)
    }

    /// [`Clock::pause`].
    pub fn pause(&mut self, at: Instant) -> Result<(), ClockError> {
        self.clock.pause_noting(at, self.sink)
    }

    /// [`Clock::resume`].
    pub fn resume(&mut self, at: Instant) -> Result<(), ClockError> {
        self.clock.resume_noting(at, self.sink)
    }

    /// [`Clock::finish`].
    pub fn finish(&mut self, at: Instant) -> Result<(), ClockError> {
        self.clock.finish_noting(at, self.sink)
    }

    /// [`Clock::settle`].
    pub fn settle(&mut self, at: Instant) -> Result<(), ClockError> {
        self.clock.settle_noting(at, self.sink)
    }

    /// [`Clock::set_time`].
    pub fn set_time(&mut self, side: Side, main: Duration, at: Instant) -> Result<(), ClockError> {
        self.clock.set_time_noting(side, main, at, self.sink)
    }

    /// [`Clock::adjust_time`].
    pub fn adjust_time(&mut self, side: Side, adjustment: TimeAdjustment, at: Instant) -> Result<(), ClockError> {
        self.clock.adjust_time_noting(side, adjustment, at, self.sink)
    }

    /// [`Clock::set_moves`].
    pub fn set_moves(&mut self, side: Side, moves: u32, at: Instant) -> Result<(), ClockError> {
        self.clock.set_moves_noting(side, moves, at, self.sink)
    }

    /// [`Clock::replace`].
    pub fn replace(&mut self, settings: Replacement, at: Instant) -> Result<(), ClockError> {
        self.clock.replace_noting(settings, at, self.sink)
    }
}

/// 6.2b, 6.3: `display` moves on to its control's next stage and is
/// credited that stage's time, whether its moves were made or its time ran
/// out: the one place a stage's time is added. Only stages have a next
/// stage; overtime periods are entered by their deadlines.
fn open_next_stage(display: &mut Display, control: &TimeControl) {
    let TimeControl::Stages(stages) = control else { return };
    display.period = display.period.saturating_add(1);
    let next_time = usize::try_from(display.period)
        .ok()
        .and_then(|period| stages.get(period))
        .map_or(Duration::ZERO, |stage| stage.time);
    if !planted::on(Mutant::StageTimeLost) {
        display.credit(next_time);
    }
}

fn check_arbiter_time(time: Duration) -> Result<(), ClockError> {
    if time > Duration::CONTROL_MAX {
        return Err(ClockError::TimeTooLong { time });
    }
    Ok(())
}
