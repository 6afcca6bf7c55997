//! The game: commands from the host, presses from the buttons and deadlines
//! from the clock core, turned into clock calls and contract records.
//!
//! ```text
//!   bench-ctl line --command--> Game --Ack, Snapshot--------------------> Outputs
//!   button edge ----press-----> Game --Press, Period, Snapshot----------> Outputs
//!   main loop tick --advance--> Game --Flag, Period, Snapshot (on change)-> Outputs
//! ```
//!
//! Every rule is the core's (`chessclock`): this file only decides *when* to
//! call it. Ordering: transitions due at or before an instant are settled
//! (and reported, each at its own instant) before a call at that instant, as
//! the core orders them — so a press at the flag instant is late.
//! The rule defects hook in here through [`Defects`], and only with the
//! feature `defect-hooks`: the normal firmware image is built without it, so
//! no hook's code is in it (a change to a hook cannot change that image).

use bench_contract::{
    self as contract, Ack, AckStatus, Adjustment, Body, Button, Capabilities, Command, CommandCode, Flag, PeriodCause,
    PeriodChange, Press, PressResult, ReplaceSide, Snapshot, ARBITER_ALL, CONTROLS_ALL,
};
use chessclock::{
    notation, BySide, Changes, Clock, ClockError, Duration, Instant, Phase, Replacement, Side, TimeAdjustment,
    TimeControl,
};

use crate::Defects;

/// `increment_before_flag_check`: a side whose increment is already in its
/// time, waiting for its press to take it back out. Nothing without the
/// hooks.
#[cfg(feature = "defect-hooks")]
type CountedIncrement = Option<(Side, Duration)>;
#[cfg(not(feature = "defect-hooks"))]
type CountedIncrement = NothingCounted;
#[cfg(feature = "defect-hooks")]
const NOTHING_COUNTED: CountedIncrement = None;
#[cfg(not(feature = "defect-hooks"))]
const NOTHING_COUNTED: CountedIncrement = NothingCounted;

/// Without the hooks no increment is ever counted early: nothing to keep.
#[cfg(not(feature = "defect-hooks"))]
#[derive(Clone, Copy, Debug)]
struct NothingCounted;

/// Deadlines reported one by one, each at its instant, per [`Game::advance`].
/// More than this many in one call (byo-yomi periods of microseconds) are
/// still applied, then reported together at the call's instant.
pub const TRANSITIONS_PER_ADVANCE_MAX: u32 = 8;

/// What the reference firmware announces after Hello (contract 3): every
/// control and arbiter function, and displays that show which flag fell
/// first (the core keeps the order, 6.12).
pub const CAPABILITIES: Capabilities = Capabilities {
    controls: CONTROLS_ALL,
    arbiter: ARBITER_ALL,
    shows_flag_order: true,
    ranges: bench_contract::Ranges::UNDECLARED,
};

/// Where the game's effects go: the board's record stream and its buttons.
pub trait Outputs {
    /// Sends one record about instant `at_us`; never blocks.
    fn emit(&mut self, at_us: u64, body: Body);
    /// Arms or disarms the buttons: edges count from the start of a game
    /// (6.5) and no longer once a new one is set up.
    fn arm_buttons(&mut self, armed: bool);
}

/// A debounced press, as the buttons hand it over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Whose button, with the board's placement (6.4) applied, or pause.
    pub button: Button,
    /// The edge, not the moment it is handled: the move is complete when
    /// the clock is pressed (6.8a).
    pub at: Instant,
    /// The free-running hardware counter read with `at` (contract 2).
    pub hw_counter: u64,
    /// Edges of this button swallowed as bounce since its previous press.
    pub bounces: u16,
}

/// One board's game: the time control as run, the clock, and what the
/// records have said so far.
#[derive(Debug)]
pub struct Game {
    #[cfg(feature = "defect-hooks")]
    defects: Defects,
    /// The control as the firmware runs it (see [`Defects::control_as_run`]).
    control: Option<TimeControl>,
    clock: Option<Clock>,
    started_at: Option<Instant>,
    /// What the clock's calls changed since the records last said, from
    /// the transitions the core hands on.
    changes: Changes,
    /// Command lines received since boot.
    commands: u32,
    counted_increment: CountedIncrement,
}

impl Game {
    /// A game with the rule `defects`; without the feature `defect-hooks`
    /// they are ignored (the normal image's are all off).
    pub const fn new(defects: Defects) -> Game {
        #[cfg(not(feature = "defect-hooks"))]
        let _ = defects;
        Game {
            #[cfg(feature = "defect-hooks")]
            defects,
            control: None,
            clock: None,
            started_at: None,
            changes: Changes::NONE,
            commands: 0,
            counted_increment: NOTHING_COUNTED,
        }
    }

    /// Handles one command line (`Err` for a line that was too long) at `now`.
    pub fn command(&mut self, line: Result<&[u8], ()>, now: Instant, out: &mut impl Outputs) {
        self.commands = self.commands.wrapping_add(1);
        self.advance(now, out);
        let at = self.clock.map_or(now, |clock| later(now, clock.settled_at()));
        let mut side = None;
        let (code, outcome) = match line.map(Command::parse) {
            Err(()) => (CommandCode::Unknown, Err((AckStatus::LineTooLong, 0))),
            Ok(Err(error)) => (error.command, Err((error.status, error.position))),
            Ok(Ok(command)) => {
                side = command.side();
                (command.code(), self.apply(command, at, out))
            }
        };
        let (status, error_position) = match outcome {
            Ok(()) => (AckStatus::Ok, 0),
            Err(error) => error,
        };
        let ack = Ack {
            command: code,
            status,
            error_position,
            commands: self.commands,
            initial_us: self.control.map_or(0, |control| control.initial_time().as_us()),
            final_period: self.control.map_or(0, |control| control.final_period()),
            side,
        };
        out.emit(at.as_us(), Body::Ack(ack));
        // An arbiter's setting can clear a flag or make one due at once.
        if let Game { clock: Some(clock), changes, .. } = self {
            report(changes.take(), clock, at, at, out);
        }
        self.snapshot(at, out);
    }

    fn apply(&mut self, command: Command<'_>, at: Instant, out: &mut impl Outputs) -> Result<(), (AckStatus, u16)> {
        const NOT_ALLOWED: (AckStatus, u16) = (AckStatus::NotAllowed, 0);
        match command {
            Command::TimeControl(text) => {
                let control = notation::parse(text)
                    .map_err(|error| (AckStatus::BadTimeControl, u16::try_from(error.position).unwrap_or(u16::MAX)))?;
                #[cfg(feature = "defect-hooks")]
                let control = self.defects.control_as_run(control);
                self.control = Some(control);
                self.new_game(out);
                Ok(())
            }
            Command::Reset if self.control.is_some() => {
                self.new_game(out);
                Ok(())
            }
            Command::Reset => Err(NOT_ALLOWED),
            Command::Start => {
                let clock = self.clock.as_mut().ok_or(NOT_ALLOWED)?;
                clock.noting(&mut self.changes).start(at).map_err(|_| NOT_ALLOWED)?;
                self.started_at = Some(at);
                out.arm_buttons(true);
                Ok(())
            }
            Command::Pause => {
                let clock = self.clock.as_mut().ok_or(NOT_ALLOWED)?;
                clock.noting(&mut self.changes).pause(at).map_err(|_| NOT_ALLOWED)
            }
            Command::Resume => {
                let clock = self.clock.as_mut().ok_or(NOT_ALLOWED)?;
                clock.noting(&mut self.changes).resume(at).map_err(|_| NOT_ALLOWED)
            }
            Command::SetTime { side, time_us } => {
                let clock = self.clock.as_mut().ok_or(NOT_ALLOWED)?;
                let time = Duration::from_us(time_us);
                clock.noting(&mut self.changes).set_time(core_side(side), time, at).map_err(arbiter_refusal)
            }
            Command::AdjustTime { side, adjustment } => {
                let clock = self.clock.as_mut().ok_or(NOT_ALLOWED)?;
                let adjustment = match adjustment {
                    Adjustment::Add(amount_us) => TimeAdjustment::Add(Duration::from_us(amount_us)),
                    Adjustment::Subtract(amount_us) => TimeAdjustment::Subtract(Duration::from_us(amount_us)),
                };
                clock.noting(&mut self.changes).adjust_time(core_side(side), adjustment, at).map_err(arbiter_refusal)
            }
            Command::SetMoves { side, moves } => {
                let clock = self.clock.as_mut().ok_or(NOT_ALLOWED)?;
                clock.noting(&mut self.changes).set_moves(core_side(side), moves, at).map_err(arbiter_refusal)
            }
            Command::Replace { white, black } => {
                let clock = self.clock.as_mut().ok_or(NOT_ALLOWED)?;
                clock.noting(&mut self.changes).replace(replacement(white, black), at).map_err(arbiter_refusal)
            }
        }
    }

    fn new_game(&mut self, out: &mut impl Outputs) {
        out.arm_buttons(false);
        self.clock = self.control.map(Clock::new);
        self.started_at = None;
        self.changes = Changes::NONE;
        self.counted_increment = NOTHING_COUNTED;
    }

    /// Whether a time control is set: a game to show, started or not.
    pub fn has_game(&self) -> bool {
        self.clock.is_some()
    }

    /// The instant a press with its edge at `edge_at` is applied at, or
    /// `None` if the game ignores it (no game started, or pressed before
    /// the game began).
    pub fn press_instant(&self, edge_at: Instant) -> Option<Instant> {
        let (Some(started_at), Some(settled_at)) = (self.started_at, self.clock.as_ref().map(Clock::settled_at)) else {
            return None;
        };
        // Edges are stamped in time order and drained before the loop
        // settles past them, so `edge_at` is never behind the clock; `later`
        // only guards the invariant.
        (edge_at >= started_at).then_some(later(edge_at, settled_at))
    }

    /// Applies one debounced press, stamped at its edge; `handled_at` is now.
    pub fn press(&mut self, edge: Edge, handled_at: Instant, out: &mut impl Outputs) {
        let Some(at) = self.press_instant(edge.at) else { return };
        self.advance(at, out);
        let Game { clock: Some(clock), changes, counted_increment, .. } = self else { return };
        let phase = clock.phase();
        let mut noting = clock.noting(changes);
        let (side, outcome) = match edge.button {
            Button::Pause => {
                let outcome = match phase {
                    Phase::Paused(_) => noting.resume(at),
                    Phase::NotStarted | Phase::Running(_) | Phase::Finished => noting.pause(at),
                };
                (None, outcome)
            }
            Button::White => (Some(Side::White), noting.press(Side::White, at)),
            Button::Black => (Some(Side::Black), noting.press(Side::Black, at)),
        };
        #[cfg(feature = "defect-hooks")]
        if let (Ok(()), Some(side), Some((counted_side, increment))) = (outcome, side, *counted_increment) {
            if side == counted_side {
                // The defect's increment was in the time before the press;
                // the press added its own: take one back out.
                let _ = noting.adjust_time(side, TimeAdjustment::Subtract(increment), at);
                *counted_increment = None;
            }
        }
        let result = match outcome {
            Ok(()) => PressResult::Accepted,
            Err(ClockError::NotRunning { .. }) => PressResult::NotRunning,
            Err(ClockError::NotStarted) => PressResult::NotStarted,
            Err(ClockError::Paused) => PressResult::Paused,
            Err(ClockError::Finished) => PressResult::Finished,
            Err(_) => PressResult::Other,
        };
        let (moves, remaining_us) =
            side.map_or((0, 0), |side| (clock.moves(side), shown(clock, side, at, *counted_increment).as_us()));
        let press = Press {
            button: edge.button,
            result,
            bounces: edge.bounces,
            moves,
            remaining_us,
            handled_at_us: later(handled_at, at).as_us(),
            edge_hw_counter: edge.hw_counter,
        };
        out.emit(at.as_us(), Body::Press(press));
        report(changes.take(), clock, at, handled_at, out);
        self.snapshot(at, out);
    }

    /// Settles the clock up to `now`, reporting each flag and period change
    /// at its own instant, and a snapshot if anything changed.
    pub fn advance(&mut self, now: Instant, out: &mut impl Outputs) {
        #[cfg(feature = "defect-hooks")]
        let defects = self.defects;
        let Game { clock: Some(clock), changes, .. } = self else { return };
        let mut changed = false;
        for _ in 0..TRANSITIONS_PER_ADVANCE_MAX {
            let Some(deadline) = clock.next_deadline() else { break };
            #[cfg(feature = "defect-hooks")]
            if defects.flags_on_rounded_display(&deadline, now) {
                let at = later(now, clock.settled_at());
                if clock.noting(changes).set_time(deadline.side, Duration::ZERO, at).is_err() {
                    break;
                }
                changed |= report(changes.take(), clock, at, now, out);
                continue;
            }
            if deadline.at > now {
                break;
            }
            #[cfg(feature = "defect-hooks")]
            if let (Some(increment), None) =
                (defects.increment_counted_before_flag(clock, &deadline), self.counted_increment)
            {
                let at = clock.settled_at();
                if clock.noting(changes).adjust_time(deadline.side, TimeAdjustment::Add(increment), at).is_ok() {
                    self.counted_increment = Some((deadline.side, increment));
                    continue;
                }
            }
            if clock.noting(changes).settle(deadline.at).is_err() {
                break;
            }
            changed |= report(changes.take(), clock, deadline.at, now, out);
        }
        let at = later(now, clock.settled_at());
        if clock.noting(changes).settle(at).is_ok() {
            changed |= report(changes.take(), clock, at, now, out);
        }
        #[cfg(feature = "defect-hooks")]
        if let Some((side, _)) = self.counted_increment {
            if clock.flag(side).is_some() {
                self.counted_increment = None; // the late flag fell: the increment was spent
            }
        }
        if changed {
            self.snapshot(now, out);
        }
    }

    /// Both displays at `now` (not before the clock's latest call).
    pub fn snapshot(&self, now: Instant, out: &mut impl Outputs) {
        let Some(clock) = &self.clock else { return };
        let at = later(now, clock.settled_at());
        let (phase, side) = match clock.phase() {
            Phase::NotStarted => (contract::Phase::NotStarted, None),
            Phase::Running(side) => (contract::Phase::Running, Some(side)),
            Phase::Paused(side) => (contract::Phase::Paused, Some(side)),
            Phase::Finished => (contract::Phase::Finished, None),
        };
        let delay = clock.running().and_then(|side| clock.reading(side, at).ok()).map_or(Duration::ZERO, |r| r.delay);
        let period = |side| u8::try_from(clock.period(side)).unwrap_or(u8::MAX);
        let snapshot = Snapshot {
            phase,
            side: side.map(contract_side),
            remaining_white_us: shown(clock, Side::White, at, self.counted_increment).as_us(),
            remaining_black_us: shown(clock, Side::Black, at, self.counted_increment).as_us(),
            moves_white: clock.moves(Side::White),
            moves_black: clock.moves(Side::Black),
            delay_us: u32::try_from(delay.as_us()).unwrap_or(u32::MAX),
            period_white: period(Side::White),
            period_black: period(Side::Black),
            flag_white: clock.flag(Side::White).is_some(),
            flag_black: clock.flag(Side::Black).is_some(),
        };
        out.emit(at.as_us(), Body::Snapshot(snapshot));
    }
}

/// Emits a Flag record for each flag `changes` says fell and a Period
/// record for each period it says changed, at `at`; `now` is when the
/// firmware saw them. Returns whether anything was emitted.
fn report(changes: Changes, clock: &Clock, at: Instant, now: Instant, out: &mut impl Outputs) -> bool {
    let mut emitted = false;
    for side in Side::BOTH {
        if let Some(flag) = changes.flag(side) {
            let record = Flag {
                side: contract_side(side),
                period: flag.period,
                sequence: flag.sequence,
                observed_at_us: later(now, flag.at).as_us(),
                moves: clock.moves(side),
            };
            out.emit(flag.at.as_us(), Body::Flag(record));
            emitted = true;
        }
        if let Some(change) = changes.period(side) {
            let record = PeriodChange {
                side: contract_side(side),
                from: change.from,
                to: change.to,
                cause: contract_cause(change.cause),
                moves: clock.moves(side),
                remaining_us: clock.remaining(side, clock.settled_at()).map_or(0, Duration::as_us),
            };
            out.emit(at.as_us(), Body::Period(record));
            emitted = true;
        }
    }
    emitted
}

/// The core's period cause as the contract writes it.
fn contract_cause(cause: chessclock::PeriodCause) -> PeriodCause {
    match cause {
        chessclock::PeriodCause::MovesCompleted => PeriodCause::MovesCompleted,
        chessclock::PeriodCause::FlagOpenedNext => PeriodCause::FlagOpenedNext,
        chessclock::PeriodCause::OvertimeBegins => PeriodCause::OvertimeBegins,
        chessclock::PeriodCause::PeriodLost => PeriodCause::PeriodLost,
    }
}

/// The big number on `side`'s display at `at`, as the firmware shows it.
fn shown(
    clock: &Clock,
    side: Side,
    at: Instant,
    #[cfg_attr(not(feature = "defect-hooks"), allow(unused_variables))] counted_increment: CountedIncrement,
) -> Duration {
    let remaining = clock.remaining(side, at).unwrap_or(Duration::ZERO);
    #[cfg(feature = "defect-hooks")]
    if let Some((counted_side, increment)) = counted_increment {
        // The defect's increment is in the core's time but not yet earned:
        // the display (clamped at zero) does not show it.
        if counted_side == side {
            return remaining.saturating_sub(increment);
        }
    }
    remaining
}

fn later(a: Instant, b: Instant) -> Instant {
    a.max(b)
}

/// `replace`'s numbers as the core's settings for a new clock (6.11).
fn replacement(white: ReplaceSide, black: ReplaceSide) -> Replacement {
    let both = |number: fn(&ReplaceSide) -> u32| BySide::new(number(&white), number(&black));
    Replacement {
        main: BySide::new(Duration::from_us(white.main_us), Duration::from_us(black.main_us)),
        moves: both(|side| side.moves),
        period: both(|side| side.period),
        period_moves: both(|side| side.period_moves),
    }
}

/// A time the clock cannot show, or a period its control does not have,
/// is the argument's fault; anything else (a finished game) is the
/// moment's.
fn arbiter_refusal(error: ClockError) -> (AckStatus, u16) {
    match error {
        ClockError::TimeTooLong { .. } | ClockError::NoSuchPeriod { .. } => (AckStatus::BadArgument, 0),
        _ => (AckStatus::NotAllowed, 0),
    }
}

fn core_side(side: contract::Side) -> Side {
    match side {
        contract::Side::White => Side::White,
        contract::Side::Black => Side::Black,
    }
}

fn contract_side(side: Side) -> contract::Side {
    match side {
        Side::White => contract::Side::White,
        Side::Black => contract::Side::Black,
    }
}
