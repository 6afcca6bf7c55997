//! Calls tried now and then on a copy of the ideal clock, drawn from a
//! stream of their own: the game plays exactly as it would without them,
//! and only a wrong answer shows, as a violation. Two families:
//!
//! - **Wrong calls**, which the rules refuse: a press by the player whose
//!   clock is not running (6.8a), a call dated before the latest one, a
//!   start of a started clock (6.5), a resume of one not stopped (6.13), an
//!   arbiter's setting beyond the longest time a control allows or naming a
//!   period the control lacks (6.11, 6.14). Each must be refused with the
//!   error that names what is wrong, in a message that names it too (the
//!   article, the sides, the numbers), hand on no transition, and leave the
//!   clock as it was; the independent model, given the calls it takes, must
//!   refuse them too.
//! - **What-ifs**, calls a game seldom makes: an arbiter's act with numbers
//!   drawn at random (a replacement clock, 6.11; a time set, added or taken
//!   away, a move counter set, 6.14, 13.4), a move made in no time, and
//!   time let run far ahead, past many deadlines in one call. The copy must
//!   keep the invariants and its account, agree with the independent model
//!   put through the same (after a press, in the per-move rules applied
//!   too), show then what it foresaw for then (a reading ahead of the
//!   latest call is a projection), and no call may hand on more than
//!   `TRANSITIONS_MAX` transitions.

use std::fmt;

use chessclock::{
    BySide, Clock, ClockError, Duration, Instant, Noting, Phase, Replacement, Side, TimeAdjustment, TimeControl,
    TRANSITIONS_MAX,
};
use chessclock_tick_model::notation::display_text;
use chessclock_tick_model::{EventClock, TickError};

use super::Game;
use crate::oracle::{self, Account, Before, ClockOracle, Op, Violation};
use crate::rng::Stream;
use crate::sample::{self, Ratio};

/// How often an accepted call of the ideal clock is followed by a try.
pub(super) const PROBE_CHANCE: Ratio = Ratio { numerator: 1, denominator: 32 };

const WRONG_CALL_CHECK: &str = "the clock refuses what the rules refuse";
const WHAT_IF_CHECK: &str = "a copy put through a what-if agrees with the model";

/// A call the clock must refuse, as made on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WrongCall {
    Press(Side, Instant),
    Start(Instant),
    Resume(Instant),
    Pause(Instant),
    SetTime(Side, Duration, Instant),
    Adjust(Side, TimeAdjustment, Instant),
    Replace(Replacement, Instant),
}

impl WrongCall {
    fn apply(self, clock: &mut Noting<'_, Account>) -> Result<(), ClockError> {
        match self {
            WrongCall::Press(side, at) => clock.press(side, at),
            WrongCall::Start(at) => clock.start(at),
            WrongCall::Resume(at) => clock.resume(at),
            WrongCall::Pause(at) => clock.pause(at),
            WrongCall::SetTime(side, time, at) => clock.set_time(side, time, at),
            WrongCall::Adjust(side, adjustment, at) => clock.adjust_time(side, adjustment, at),
            WrongCall::Replace(settings, at) => clock.replace(settings, at),
        }
    }

    /// The independent model's answer, for the calls whose refusal it
    /// decides the same way (the limits on arbiter settings are the core's).
    fn model_answer(self, model: &EventClock) -> Option<Result<(), TickError>> {
        let mut model = *model;
        Some(match self {
            WrongCall::Press(side, at) => model.press(side, at),
            WrongCall::Start(at) => model.start(at),
            WrongCall::Resume(at) => model.resume(at),
            WrongCall::Pause(at) => model.pause(at),
            WrongCall::SetTime(..) | WrongCall::Adjust(..) | WrongCall::Replace(..) => return None,
        })
    }
}

/// Draws one wrong call for `clock` as it is at `at` (its latest call),
/// with the refusal the rules give it; `None` when the drawn kind has no
/// wrong form in this state.
fn draw(stream: &mut Stream, clock: &Clock, at: Instant) -> Option<(WrongCall, ClockError)> {
    let phase = clock.phase();
    let side = if sample::below(stream, 2) == 0 { Side::White } else { Side::Black };
    Some(match (sample::below(stream, 6), phase) {
        (0, Phase::Running(running)) => {
            let pressed = running.opponent();
            (WrongCall::Press(pressed, at), ClockError::NotRunning { pressed, running })
        }
        (0, Phase::Paused(_)) => (WrongCall::Press(side, at), ClockError::Paused),
        (1, Phase::Running(running)) if at.as_us() > 0 => {
            let earlier = Instant::from_us(sample::below(stream, at.as_us()));
            (WrongCall::Press(running, earlier), ClockError::TimeWentBackwards { last: at, at: earlier })
        }
        (1, Phase::Paused(_)) if at.as_us() > 0 => {
            let earlier = Instant::from_us(sample::below(stream, at.as_us()));
            (WrongCall::Resume(earlier), ClockError::TimeWentBackwards { last: at, at: earlier })
        }
        (2, Phase::Running(_) | Phase::Paused(_)) => (WrongCall::Start(at), ClockError::AlreadyStarted),
        (3, Phase::Running(_)) => (WrongCall::Resume(at), ClockError::NotPaused),
        (3, Phase::Paused(_)) => (WrongCall::Pause(at), ClockError::Paused),
        (4, Phase::Running(_) | Phase::Paused(_)) => {
            let over_us = sample::between(stream, 1, 1_000_000);
            let time = Duration::from_us(Duration::CONTROL_MAX.as_us().saturating_add(over_us));
            if sample::below(stream, 2) == 0 {
                (WrongCall::SetTime(side, time, at), ClockError::TimeTooLong { time })
            } else {
                let shown = clock.remaining(side, at).ok()?;
                let amount = Duration::from_us(time.as_us().saturating_sub(shown.as_us()));
                let adjustment = TimeAdjustment::Add(amount);
                (
                    WrongCall::Adjust(side, adjustment, at),
                    ClockError::TimeTooLong { time: shown.saturating_add(amount) },
                )
            }
        }
        (5, Phase::Running(_) | Phase::Paused(_)) => {
            let final_period = clock.control().final_period();
            let period = final_period.saturating_add(1).saturating_add(sample::below(stream, 3) as u32);
            let mut periods = BySide::both(0);
            *periods.get_mut(side) = period;
            let settings = Replacement {
                main: BySide::both(Duration::ZERO),
                moves: BySide::both(0),
                period: periods,
                period_moves: BySide::both(0),
            };
            (WrongCall::Replace(settings, at), ClockError::NoSuchPeriod { period, final_period })
        }
        _ => return None,
    })
}

/// The model's refusal names the same fault as the core's.
fn same_fault(model: TickError, core: ClockError) -> bool {
    matches!(
        (model, core),
        (TickError::NotStarted, ClockError::NotStarted)
            | (TickError::AlreadyStarted, ClockError::AlreadyStarted)
            | (TickError::Paused, ClockError::Paused)
            | (TickError::NotPaused, ClockError::NotPaused)
            | (TickError::NotRunning, ClockError::NotRunning { .. })
            | (TickError::TimeWentBackwards, ClockError::TimeWentBackwards { .. })
    )
}

/// What a refusal's message must name, written here rather than read from
/// the core: the rule's article, the sides' names, the numbers involved
/// (times as a display writes them); every message says something.
fn message_fault(error: ClockError) -> Option<String> {
    let name = |side| match side {
        Side::White => "White",
        Side::Black => "Black",
    };
    let words: Vec<String> = match error {
        ClockError::NotRunning { pressed, running } => {
            vec![name(pressed).into(), name(running).into(), "6.8a".into()]
        }
        ClockError::Paused => vec!["6.13".into()],
        ClockError::TimeWentBackwards { last, at } => vec![last.as_us().to_string(), at.as_us().to_string()],
        ClockError::TimeTooLong { time } => vec![display_text(time.as_us())],
        ClockError::NoSuchPeriod { period, final_period } => vec![period.to_string(), final_period.to_string()],
        ClockError::NotStarted | ClockError::AlreadyStarted | ClockError::Finished | ClockError::NotPaused => {
            Vec::new()
        }
    };
    crate::oracle::refusal_fault(&error, &error.to_string(), &words)
}

/// A number per kind of refusal, below 16.
fn refusal_kind(error: ClockError) -> u32 {
    match error {
        ClockError::NotStarted => 0,
        ClockError::AlreadyStarted => 1,
        ClockError::Finished => 2,
        ClockError::Paused => 3,
        ClockError::NotPaused => 4,
        ClockError::NotRunning { .. } => 5,
        ClockError::TimeWentBackwards { .. } => 6,
        ClockError::TimeTooLong { .. } => 7,
        ClockError::NoSuchPeriod { .. } => 8,
    }
}

/// What is wrong with the answers to `call`, if anything.
/// `read_message`: whether to read the refusal's message too (once a
/// game per kind of refusal is enough: the text is the kind's).
fn judge(
    call: WrongCall,
    expected: ClockError,
    read_message: bool,
    clock: &Clock,
    model: Option<&EventClock>,
) -> Option<String> {
    let mut tried = *clock;
    let mut account = Account::default();
    let answer = call.apply(&mut tried.noting(&mut account));
    if answer != Err(expected) {
        return Some(format!("{call:?}: the clock answered {answer:?}, the rules {expected:?}"));
    }
    if let Some(fault) = read_message.then(|| message_fault(expected)).flatten() {
        return Some(format!("{call:?}: {fault}"));
    }
    if tried != *clock || account.handed() > 0 {
        return Some(format!("{call:?} was refused but changed the clock or handed on a transition"));
    }
    match model.and_then(|model| call.model_answer(model)) {
        Some(Err(refusal)) if !same_fault(refusal, expected) => {
            Some(format!("{call:?}: the clock refused it as {expected:?}, the model as {refusal:?}"))
        }
        Some(Ok(())) => Some(format!("{call:?}: the clock refused it as {expected:?}, the model took it")),
        Some(Err(_)) | None => None,
    }
}

/// Settings a replacement clock may be given (6.11): for each side a
/// period the control has, a big number up to the control's first time,
/// a move counter, and Canadian moves made in the period (ignored
/// elsewhere).
fn draw_settings(stream: &mut Stream, control: &TimeControl) -> Replacement {
    let final_period = u64::from(control.final_period());
    let time_max_us = control.initial_time().as_us().max(1_000_000);
    let period_moves_max = match control {
        TimeControl::Canadian { moves, .. } => u64::from(*moves),
        TimeControl::Stages(_) | TimeControl::Hourglass { .. } | TimeControl::ByoYomi { .. } => 50,
    };
    let mut draw_side = || {
        let period = sample::between(stream, 0, final_period) as u32;
        let main = Duration::from_us(sample::between(stream, 0, time_max_us));
        let moves = sample::below(stream, 200) as u32;
        let period_moves = sample::below(stream, period_moves_max) as u32;
        (main, moves, period, period_moves)
    };
    let (white, black) = (draw_side(), draw_side());
    Replacement {
        main: BySide::new(white.0, black.0),
        moves: BySide::new(white.1, black.1),
        period: BySide::new(white.2, black.2),
        period_moves: BySide::new(white.3, black.3),
    }
}

/// Every time the control can give one display, and then some: how far
/// ahead a look may go (no bonus counted).
fn horizon_us(control: &TimeControl) -> u64 {
    control.time_max_us(0)
}

/// An arbiter's act a what-if starts with (6.11, 6.14, 13.4), with
/// numbers drawn for `clock` at `at`; `None`: no act, only the look ahead.
fn draw_act(stream: &mut Stream, clock: &Clock, at: Instant) -> Option<Act> {
    let control = clock.control();
    let side = if sample::below(stream, 2) == 0 { Side::White } else { Side::Black };
    let time_max_us = control.initial_time().as_us().max(1_000_000);
    let time = Duration::from_us(sample::between(stream, 0, time_max_us));
    // Now and then up to the longest time an arbiter may set, exactly.
    let to_the_limit = sample::below(stream, 8) == 0;
    let shown = clock.remaining(side, at).unwrap_or(Duration::ZERO);
    Some(match sample::below(stream, 6) {
        0 => Act::Replace(draw_settings(stream, control)),
        1 if to_the_limit => Act::SetTime(side, Duration::CONTROL_MAX),
        1 => Act::SetTime(side, time),
        2 if to_the_limit => Act::Adjust(side, TimeAdjustment::Add(Duration::CONTROL_MAX.saturating_sub(shown))),
        2 if sample::below(stream, 2) == 0 => Act::Adjust(side, TimeAdjustment::Add(time)),
        2 => Act::Adjust(side, TimeAdjustment::Subtract(time)),
        3 => Act::SetMoves(side, sample::below(stream, 200) as u32),
        4 => Act::PressAtOnce(clock.running()?),
        _ => return None,
    })
}

/// An arbiter's act, as both the core and the model take it.
#[derive(Clone, Copy, Debug)]
enum Act {
    Replace(Replacement),
    SetTime(Side, Duration),
    Adjust(Side, TimeAdjustment),
    SetMoves(Side, u32),
    /// Not the arbiter's: the player whose clock runs presses at once, a
    /// move in no time.
    PressAtOnce(Side),
}

impl Act {
    /// The refusal the act gets on `clock` at `at`: a time set beyond
    /// the longest a control allows (6.14 settings, checked side by side,
    /// White first), or none.
    fn refusal(self, clock: &Clock, at: Instant) -> Option<ClockError> {
        let too_long = |time: Duration| (time > Duration::CONTROL_MAX).then_some(ClockError::TimeTooLong { time });
        let shown = |side| clock.remaining(side, at).unwrap_or(Duration::ZERO);
        match self {
            Act::Replace(settings) => too_long(settings.main.white).or_else(|| too_long(settings.main.black)),
            Act::SetTime(_, time) => too_long(time),
            Act::Adjust(side, TimeAdjustment::Add(amount)) => too_long(shown(side).saturating_add(amount)),
            Act::Adjust(side, TimeAdjustment::Subtract(amount)) => too_long(shown(side).saturating_sub(amount)),
            Act::SetMoves(..) | Act::PressAtOnce(_) => None,
        }
    }

    fn on_core(self, clock: &mut Noting<'_, Account>, at: Instant) -> Result<(), ClockError> {
        match self {
            Act::Replace(settings) => clock.replace(settings, at),
            Act::SetTime(side, time) => clock.set_time(side, time, at),
            Act::Adjust(side, adjustment) => clock.adjust_time(side, adjustment, at),
            Act::SetMoves(side, moves) => clock.set_moves(side, moves, at),
            Act::PressAtOnce(side) => clock.press(side, at),
        }
    }

    fn on_model(self, model: &mut EventClock, at: Instant) -> Result<(), TickError> {
        match self {
            Act::Replace(settings) => model.replace(&settings, at),
            Act::SetTime(side, time) => model.set_time(side, time, at),
            Act::Adjust(side, adjustment) => model.adjust_time(side, adjustment, at),
            Act::SetMoves(side, moves) => model.set_moves(side, moves, at),
            Act::PressAtOnce(side) => model.press(side, at),
        }
    }
}

/// What is wrong with a what-if on a copy of `clock`: mostly an arbiter's
/// act with drawn numbers, then a look far ahead.
fn what_if(
    stream: &mut Stream,
    clock: &Clock,
    oracle: &ClockOracle,
    model: Option<&EventClock>,
    at: Instant,
) -> Option<String> {
    let mut tried = *clock;
    let mut model = model.copied();
    let mut account = Account::default();
    // The invariants and the account hold on a copy as on the clock.
    let mut invariants = oracle.for_a_copy();
    if let Some(act) = draw_act(stream, clock, at) {
        let step = Step::Act(act);
        let before = Before::of(&tried);
        let answer = act.on_core(&mut tried.noting(&mut account), at);
        match (answer, act.refusal(clock, at)) {
            (Ok(()), None) => {}
            // Beyond the longest time (a display that banked more by its
            // increments): refused, and nothing changes.
            (Err(error), Some(expected)) if error == expected && tried == *clock => return None,
            (answer, expected) => {
                return Some(format!("{step}: the clock answered {answer:?}, the rules {expected:?}"))
            }
        }
        let op = match act {
            Act::PressAtOnce(side) => Op::Press(side),
            Act::Replace(_) | Act::SetTime(..) | Act::Adjust(..) | Act::SetMoves(..) => Op::Arbiter,
        };
        invariants.check(0, &before, &tried, op);
        invariants.check_account(0, &before, &tried, op, &account);
        if let Some(broken) = invariants.violations().first() {
            return Some(format!("{step}: {}: {}", broken.check, broken.detail));
        }
        if let Some(model) = model.as_mut() {
            if let Err(error) = act.on_model(model, at) {
                return Some(format!("{step}: the model refused it: {error:?}"));
            }
        }
        if let Some(wrong) = after_step(step, &tried, model.as_ref(), &account, at) {
            return Some(wrong);
        }
    }
    // Half the looks stay short of most deadlines, half go past them all.
    let far_us = if sample::below(stream, 2) == 0 { 2_000_000 } else { horizon_us(clock.control()).saturating_mul(2) };
    let span_us = sample::between(stream, 1, far_us.saturating_add(1_000_000));
    let later = Instant::from_us(at.as_us().saturating_add(span_us));
    let step = Step::Ahead { span_us };
    let foreseen = Side::BOTH.map(|side| (tried.remaining(side, later), tried.reading(side, later)));
    let before = Before::of(&tried);
    account.begin_call();
    if let Err(error) = tried.noting(&mut account).settle(later) {
        return Some(format!("{step}: refused: {error}"));
    }
    invariants.check(0, &before, &tried, Op::Settle(None));
    invariants.check_account(0, &before, &tried, Op::Settle(None), &account);
    if let Some(broken) = invariants.violations().first() {
        return Some(format!("{step}: {}: {}", broken.check, broken.detail));
    }
    let shown = Side::BOTH.map(|side| (tried.remaining(side, later), tried.reading(side, later)));
    if foreseen != shown {
        return Some(format!("{step}: the clock foresaw {foreseen:?} for then, and showed {shown:?}"));
    }
    if let Some(model) = model.as_mut() {
        if let Err(error) = model.run_until(later) {
            return Some(format!("{step}: the model refused it: {error:?}"));
        }
    }
    after_step(step, &tried, model.as_ref(), &account, later)
}

/// One step of a what-if, named only when something is wrong with it.
#[derive(Clone, Copy, Debug)]
enum Step {
    Act(Act),
    Ahead { span_us: u64 },
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Act(act) => write!(f, "the arbiter's {act:?}"),
            Step::Ahead { span_us } => write!(f, "time let run {span_us} us ahead"),
        }
    }
}

/// After one step of a what-if: the transitions' bound, and the model.
fn after_step(step: Step, tried: &Clock, model: Option<&EventClock>, account: &Account, at: Instant) -> Option<String> {
    if account.handed() > TRANSITIONS_MAX {
        return Some(format!("{step} handed on {} transitions, at most {TRANSITIONS_MAX} promised", account.handed()));
    }
    let model = model?;
    let moved = matches!(step, Step::Act(Act::PressAtOnce(_))).then(|| oracle::move_disagreement(model, account));
    let disagreement = moved.flatten().or_else(|| oracle::compare(model, tried, at, true))?;
    Some(format!("{step}: {disagreement}"))
}

impl Game<'_> {
    /// After an accepted call of the ideal clock, sometimes: one wrong call
    /// or what-if tried on a copy of it. After a call that dropped a flag,
    /// always a what-if: a flagged display is where an arbiter's setting
    /// does the most, and games reach it seldom.
    #[inline]
    pub(super) fn maybe_probe(&mut self, at: Instant, flag_fell: bool) {
        // Part of the independent model's checking: off with it.
        if self.spec.model_oracle && (self.streams.probe.strikes() || flag_fell) {
            self.probe(at, flag_fell);
        }
    }

    #[cold]
    #[inline(never)]
    fn probe(&mut self, at: Instant, what_if_only: bool) {
        let stream = &mut self.streams.probe.stream;
        let (clock, model) = (&self.ideal.clock, self.ideal.model.model());
        let (check, wrong) = if what_if_only || sample::below(stream, 3) == 0 {
            (WHAT_IF_CHECK, what_if(stream, clock, &self.ideal.oracle, model, at))
        } else {
            let Some((call, expected)) = draw(stream, clock, at) else { return };
            let kind = 1 << refusal_kind(expected);
            let read_message = self.ideal.refusals_read & kind == 0;
            self.ideal.refusals_read |= kind;
            (WRONG_CALL_CHECK, judge(call, expected, read_message, clock, model))
        };
        if let Some(detail) = wrong {
            self.ideal.model_violations.push(Violation { at_us: self.now_us, clock: "ideal", check, detail });
        }
    }
}

#[cfg(test)]
mod tests {
    use chessclock::notation::parse;

    use super::*;
    use crate::rng::Actor;

    fn clock(text: &str) -> Clock {
        Clock::new(parse(text).expect("a valid control"))
    }

    /// Every kind in every state a game reaches, many times: the core and
    /// the model refuse each wrong call as the rules say.
    #[test]
    fn the_core_refuses_every_wrong_call_as_the_rules_say() {
        for text in ["300+2", "40/5400+d30:1800", "3600(5x30)", "600(20/300)", "*180"] {
            let mut running = clock(text);
            let mut model = EventClock::new(running.control());
            let at = Instant::from_us(2_500_000);
            running.start(Instant::from_us(0)).expect("starts");
            running.press(Side::White, at).expect("White moves");
            model.start(Instant::from_us(0)).expect("starts");
            model.press(Side::White, at).expect("White moves");
            let mut paused = running;
            paused.pause(at).expect("pauses");
            let mut paused_model = model;
            paused_model.pause(at).expect("pauses");
            let mut stream = Stream::new(1, 0, Actor::Probe);
            let mut tried = 0;
            for _ in 0..400 {
                for (clock, model) in [(&running, &model), (&paused, &paused_model)] {
                    if let Some((call, expected)) = draw(&mut stream, clock, at) {
                        tried += 1;
                        assert_eq!(judge(call, expected, true, clock, Some(model)), None, "{text}");
                    }
                }
            }
            assert!(tried > 500, "{text}: {tried} tries");
        }
    }

    /// Replacements with drawn settings and long looks ahead, from a
    /// running clock of every control kind: the core agrees with the model
    /// and keeps its transition bound.
    #[test]
    fn what_ifs_agree_with_the_model_on_every_control_kind() {
        for text in ["300+2", "40/5400+d30:1800", "10/20:20", "300+b3", "120(5x10)", "600(20/300)", "*180"] {
            let mut clock = clock(text);
            let mut model = EventClock::new(clock.control());
            let at = Instant::from_us(2_500_000);
            clock.start(Instant::from_us(0)).expect("starts");
            clock.press(Side::White, at).expect("White moves");
            model.start(Instant::from_us(0)).expect("starts");
            model.press(Side::White, at).expect("White moves");
            // And once Black's flag shows: the display keeps running in a
            // staged control, and stands at zero after a final flag.
            let (mut flagged, mut flagged_model) = (clock, model);
            let late = Instant::from_us(100_000_000_000);
            flagged.settle(late).expect("settles");
            flagged_model.run_until(late).expect("runs");
            assert!(flagged.flag(Side::Black).is_some(), "{text}");
            let mut stream = Stream::new(1, 0, Actor::Probe);
            for _ in 0..2_000 {
                assert_eq!(what_if(&mut stream, &clock, &ClockOracle::new("ideal"), Some(&model), at), None, "{text}");
                assert_eq!(
                    what_if(&mut stream, &flagged, &ClockOracle::new("ideal"), Some(&flagged_model), late),
                    None,
                    "{text}, flagged"
                );
            }
        }
    }

    /// A what-if reports a model that shows something else.
    #[test]
    fn a_what_if_that_disagrees_is_reported() {
        let mut clock = clock("300+2");
        clock.start(Instant::from_us(0)).expect("starts");
        let other = EventClock::new(&parse("180+2").expect("a valid control"));
        let mut stream = Stream::new(1, 0, Actor::Probe);
        let reported = (0..20).filter(|_| {
            what_if(&mut stream, &clock, &ClockOracle::new("ideal"), Some(&other), Instant::from_us(0)).is_some()
        });
        assert_eq!(reported.count(), 20);
    }

    /// The judge can fail: an answer that is not the refusal, a refusal
    /// of another kind, and a model that takes the call are each reported.
    #[test]
    fn a_wrong_answer_is_reported() {
        let mut clock = clock("300+2");
        clock.start(Instant::from_us(0)).expect("starts");
        let at = Instant::from_us(1_000);
        clock.settle(at).expect("settles");
        let model = EventClock::new(clock.control());
        // White runs: a press by White is accepted, not refused.
        let accepted = WrongCall::Press(Side::White, at);
        assert!(judge(
            accepted,
            ClockError::NotRunning { pressed: Side::White, running: Side::Black },
            true,
            &clock,
            None
        )
        .is_some());
        let press = WrongCall::Press(Side::Black, at);
        let right = ClockError::NotRunning { pressed: Side::Black, running: Side::White };
        assert_eq!(judge(press, right, true, &clock, None), None);
        assert!(judge(press, ClockError::Paused, true, &clock, None).is_some());
        // A model never started refuses as not started: another fault.
        assert!(judge(press, right, true, &clock, Some(&model)).is_some());
    }
}
