//! Differential test: the event-driven core ([`chessclock::Clock`]) against
//! the independent model's event reading ([`chessclock_tick_model::EventClock`]),
//! to the microsecond, on any instant and every call the core takes: the
//! players' presses (6.8a), pauses (6.13), the arbiter's time adjustments
//! (6.14, 13.4), set times (6.11, 6.14), move counters (6.14) and
//! replacement clocks (6.11).
//!
//! After every call both sides must agree exactly: the big number, the flag
//! (instant, period, sequence), the move counter, the period and, in
//! Canadian overtime, the moves made in the period. The tick reading's own
//! differential test (`differential.rs`) covers whole milliseconds; this
//! one is where off-millisecond instants and arbiter settings are checked.

use chessclock::{Bonus, BySide, Clock, Duration, Instant, Replacement, Side, Stage, TimeAdjustment, TimeControl};
use chessclock_tick_model::EventClock;
use proptest::prelude::*;

/// One call of a random game; gaps in microseconds.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// The running side presses after this long.
    Press(u64),
    /// The side not running presses: both must refuse.
    WrongPress(u64),
    Pause(u64),
    Resume(u64),
    /// Time passes; both are compared at the new instant.
    Observe(u64),
    /// 6.14, 13.4: `add` or take away this much.
    Adjust {
        gap_us: u64,
        white: bool,
        add: bool,
        amount_us: u64,
    },
    /// 6.11, 6.14: the big number set.
    SetTime {
        gap_us: u64,
        white: bool,
        shown_us: u64,
    },
    /// 6.14: the move counter set.
    SetMoves {
        gap_us: u64,
        white: bool,
        moves: u32,
    },
    /// 6.11: a replacement clock, from the numbers shown now, changed by
    /// `shift_us` on White's side and with `period_bump` added to Black's period.
    Replace {
        gap_us: u64,
        shift_us: u64,
        period_bump: u32,
    },
}

struct Game {
    core: Clock,
    model: EventClock,
    now_us: u64,
    log: Vec<String>,
}

fn side_of(white: bool) -> Side {
    if white {
        Side::White
    } else {
        Side::Black
    }
}

impl Game {
    fn new(control: TimeControl) -> Game {
        Game { core: Clock::new(control), model: EventClock::new(&control), now_us: 0, log: Vec::new() }
    }

    fn at(&mut self, gap_us: u64) -> Instant {
        self.now_us += gap_us;
        Instant::from_us(self.now_us)
    }

    /// The same call on both; they must both accept it or both refuse it.
    fn call(&mut self, what: String, core: bool, model: bool) -> Result<(), String> {
        self.log.push(what);
        if core != model {
            return Err(self.fail(format!("the core {} and the model {}", verdict(core), verdict(model))));
        }
        self.compare()
    }

    fn fail(&self, what: String) -> String {
        format!("{what}\ncontrol {:?}\ncalls:\n  {}", self.core.control(), self.log.join("\n  "))
    }

    /// Compares the two at the latest call's instant, both settled there (a
    /// refused call lets no time pass on either).
    fn compare(&mut self) -> Result<(), String> {
        let at = Instant::from_us(self.now_us);
        if self.core.settle(at).is_err() {
            return Err(self.fail(format!("the core cannot settle at {at:?}")));
        }
        self.model.run_until(at).map_err(|error| self.fail(format!("the model cannot read {at:?}: {error:?}")))?;
        for side in Side::BOTH {
            let core_shown = self.core.remaining(side, at).map_err(|error| self.fail(format!("{error}")))?;
            let core_flag = self.core.flag(side).map(|flag| (flag.at, flag.period, flag.sequence));
            let model_flag = self.model.flag(side).map(|flag| (flag.at, flag.period, flag.sequence));
            let canadian_overtime =
                matches!(self.core.control(), TimeControl::Canadian { .. }) && self.core.period(side) > 0;
            let core = (
                core_shown,
                core_flag,
                self.core.moves(side),
                self.core.period(side),
                if canadian_overtime { self.core.period_moves(side) } else { 0 },
            );
            let model = (
                self.model.shown(side),
                model_flag,
                self.model.moves(side),
                self.model.period(side),
                if canadian_overtime { self.model.period_moves(side) } else { 0 },
            );
            if core != model {
                return Err(self.fail(format!(
                    "{side} at {} us: core (shown, flag, moves, period, period moves) {core:?}, model {model:?}",
                    self.now_us
                )));
            }
        }
        Ok(())
    }

    fn step(&mut self, step: Step) -> Result<(), String> {
        match step {
            Step::Press(gap_us) | Step::WrongPress(gap_us) => {
                let at = self.at(gap_us);
                let running = self.core.running().or(self.model.running()).unwrap_or(Side::White);
                let side = if matches!(step, Step::Press(_)) { running } else { running.opponent() };
                let core = self.core.press(side, at).is_ok();
                let model = self.model.press(side, at).is_ok();
                self.call(format!("press {side} at {} us", at.as_us()), core, model)
            }
            Step::Pause(gap_us) => {
                let at = self.at(gap_us);
                let (core, model) = (self.core.pause(at).is_ok(), self.model.pause(at).is_ok());
                self.call(format!("pause at {} us", at.as_us()), core, model)
            }
            Step::Resume(gap_us) => {
                let at = self.at(gap_us);
                let (core, model) = (self.core.resume(at).is_ok(), self.model.resume(at).is_ok());
                self.call(format!("resume at {} us", at.as_us()), core, model)
            }
            Step::Observe(gap_us) => {
                let at = self.at(gap_us);
                let (core, model) = (self.core.settle(at).is_ok(), self.model.run_until(at).is_ok());
                self.call(format!("observe at {} us", at.as_us()), core, model)
            }
            Step::Adjust { gap_us, white, add, amount_us } => {
                let (at, side) = (self.at(gap_us), side_of(white));
                let amount = Duration::from_us(amount_us);
                let adjustment = if add { TimeAdjustment::Add(amount) } else { TimeAdjustment::Subtract(amount) };
                let core = self.core.adjust_time(side, adjustment, at).is_ok();
                let model = self.model.adjust_time(side, adjustment, at).is_ok();
                self.call(format!("adjust {side} {adjustment:?} at {} us", at.as_us()), core, model)
            }
            Step::SetTime { gap_us, white, shown_us } => {
                let (at, side) = (self.at(gap_us), side_of(white));
                let shown = Duration::from_us(shown_us);
                let core = self.core.set_time(side, shown, at).is_ok();
                let model = self.model.set_time(side, shown, at).is_ok();
                self.call(format!("set {side} to {shown_us} us at {} us", at.as_us()), core, model)
            }
            Step::SetMoves { gap_us, white, moves } => {
                let (at, side) = (self.at(gap_us), side_of(white));
                let core = self.core.set_moves(side, moves, at).is_ok();
                let model = self.model.set_moves(side, moves, at).is_ok();
                self.call(format!("set {side}'s moves to {moves} at {} us", at.as_us()), core, model)
            }
            Step::Replace { gap_us, shift_us, period_bump } => self.replace(gap_us, shift_us, period_bump),
        }
    }

    fn replace(&mut self, gap_us: u64, shift_us: u64, period_bump: u32) -> Result<(), String> {
        let at = self.at(gap_us);
        if self.core.settle(at).is_err() {
            return Ok(());
        }
        let shown = |side| self.core.remaining(side, at).unwrap_or(Duration::ZERO);
        let final_period = self.core.control().final_period();
        let settings = Replacement {
            main: BySide::new(Duration::from_us(shown(Side::White).as_us() + shift_us), shown(Side::Black)),
            moves: BySide::new(self.core.moves(Side::White), self.core.moves(Side::Black)),
            period: BySide::new(
                self.core.period(Side::White),
                (self.core.period(Side::Black) + period_bump).min(final_period),
            ),
            period_moves: BySide::new(self.core.period_moves(Side::White), self.core.period_moves(Side::Black)),
        };
        let core = self.core.replace(settings, at).is_ok();
        let model = self.model.replace(&settings, at).is_ok();
        self.call(format!("replace with {settings:?} at {} us", at.as_us()), core, model)
    }
}

fn verdict(accepted: bool) -> &'static str {
    if accepted {
        "accepted"
    } else {
        "refused"
    }
}

/// A gap between calls: now and then none, mostly up to a few seconds,
/// any microsecond.
fn gap_us() -> impl Strategy<Value = u64> {
    prop_oneof![1 => Just(0u64), 2 => 0u64..2_000, 8 => 0u64..3_000_000]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        12 => gap_us().prop_map(Step::Press),
        1 => gap_us().prop_map(Step::WrongPress),
        1 => gap_us().prop_map(Step::Pause),
        1 => gap_us().prop_map(Step::Resume),
        2 => gap_us().prop_map(Step::Observe),
        2 => (gap_us(), any::<bool>(), any::<bool>(), 0u64..2_000_000)
            .prop_map(|(gap_us, white, add, amount_us)| Step::Adjust { gap_us, white, add, amount_us }),
        1 => (gap_us(), any::<bool>(), prop_oneof![Just(0u64), 0u64..4_000_000])
            .prop_map(|(gap_us, white, shown_us)| Step::SetTime { gap_us, white, shown_us }),
        1 => (gap_us(), any::<bool>(), 0u32..12)
            .prop_map(|(gap_us, white, moves)| Step::SetMoves { gap_us, white, moves }),
        1 => (gap_us(), 0u64..1_000_000, 0u32..2)
            .prop_map(|(gap_us, shift_us, period_bump)| Step::Replace { gap_us, shift_us, period_bump }),
    ]
}

/// A time of any microsecond: now and then zero, usually up to seconds.
fn time() -> impl Strategy<Value = Duration> {
    prop_oneof![1 => Just(0u64), 3 => 1u64..200_000, 12 => 200_000u64..5_000_000].prop_map(Duration::from_us)
}

fn bonus() -> impl Strategy<Value = Bonus> {
    let amount = || (0u64..900_000).prop_map(Duration::from_us);
    prop_oneof![
        Just(Bonus::None),
        amount().prop_map(Bonus::Increment),
        amount().prop_map(Bonus::Delay),
        amount().prop_map(Bonus::Bronstein),
    ]
}

/// Every kind of control: stages (one to three, any bonus), hourglass,
/// byo-yomi and Canadian overtime.
fn control() -> impl Strategy<Value = TimeControl> {
    let stage = (1u32..=4, time(), bonus());
    let staged = (prop::collection::vec(stage, 0..=2), time(), bonus()).prop_map(|(early, last, last_bonus)| {
        let mut stages: Vec<Stage> =
            early.into_iter().map(|(moves, time, bonus)| Stage::moves(moves, time, bonus)).collect();
        stages.push(Stage::rest_of_game(last, last_bonus));
        TimeControl::stages(&stages).expect("valid")
    });
    let period = || (50_000u64..1_500_000).prop_map(Duration::from_us);
    prop_oneof![
        4 => staged,
        1 => time().prop_map(|time| TimeControl::hourglass(time).expect("valid")),
        1 => (time(), 1u32..=4, period())
            .prop_map(|(main, periods, period)| TimeControl::byo_yomi(main, periods, period).expect("valid")),
        1 => (time(), 1u32..=4, period())
            .prop_map(|(main, moves, period)| TimeControl::canadian(main, moves, period).expect("valid")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// 6.1-6.14: the core and the event reading agree on every call,
    /// to the microsecond, arbiter settings included.
    #[test]
    fn the_core_agrees_with_the_event_model_on_every_call(
        control in control(),
        start_us in 0u64..5_000,
        steps in prop::collection::vec(step(), 1..60),
    ) {
        let mut game = Game::new(control);
        let at = game.at(start_us);
        let core = game.core.start(at).is_ok();
        let model = game.model.start(at).is_ok();
        game.call(format!("start at {start_us} us"), core, model).map_err(TestCaseError::fail)?;
        for step in steps {
            game.step(step).map_err(TestCaseError::fail)?;
        }
    }
}
