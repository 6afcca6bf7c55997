//! Differential test: the event-driven core ([`chessclock::Clock`]) against an
//! independent 1 kHz tick model ([`chessclock_tick_model::TickClock`], in `clock/tick-model`) of the same rules.
//!
//! Both get the same calls (start, presses by the running side at random
//! gaps or at the core's next deadline ± 1 ms, pauses and resumes, presses by
//! the wrong side or during a pause, which must be rejected and change
//! nothing). After every call, and at a few observation instants between
//! calls, both sides' displays must agree: the big number within one tick,
//! the flag (presence, instant within one tick, period, sequence), the move
//! counter and the period index.
//!
//! Every control and call instant is a whole number of milliseconds, so the
//! two models can agree.
//!
//! Each kind of control gets [`CASES`] random games, and the test also
//! checks that those games met the edge cases of that kind (a press at the
//! flag instant, as the delay ends, as a byo-yomi period runs out, a stage
//! change by move count, …), so a generator that stops reaching them fails.
//! Named tests below pin the same edge cases down with the numbers the
//! specification gives.

use std::cell::RefCell;
use std::collections::BTreeMap;

use chessclock::{Bonus, Clock, ClockError, DeadlineKind, Duration, Instant, Phase, Side, Stage, TimeControl};
use chessclock_tick_model::{TickClock, TickError};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};

/// One tick, in microseconds: the tolerance of every time comparison.
const TICK_US: u64 = 1_000;

fn d(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

fn at(ms: u64) -> Instant {
    Instant::from_us(ms * 1_000)
}

// ---------------------------------------------------------------------------
// The driver
// ---------------------------------------------------------------------------

/// When a call happens.
#[derive(Clone, Copy, Debug)]
enum When {
    /// This many milliseconds after the previous call.
    Gap(u64),
    /// At the core's next deadline plus this many milliseconds (-1, 0 or 1);
    /// after a short gap when there is none.
    Deadline(i8),
}

/// One step of a random game.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// The running side presses.
    Press(When),
    /// The side that is not running presses: the core must refuse.
    WrongPress(When),
    /// The arbiter pauses; `hold` ms later the paused side tries to press
    /// (refused), and then the arbiter resumes.
    Pause { when: When, hold: u64 },
    /// Nobody calls; both displays are read at this instant.
    Observe(When),
}

/// Both models, the calls so far, and the comparison after each call.
struct Game {
    control: TimeControl,
    core: Clock,
    model: TickClock,
    now_ms: u64,
    log: Vec<String>,
    /// How often each edge case came up, to check the generators reach them.
    seen: BTreeMap<&'static str, u32>,
}

impl Game {
    fn new(control: TimeControl) -> Game {
        Game {
            control,
            core: Clock::new(control),
            model: TickClock::new(&control),
            now_ms: 0,
            log: Vec::new(),
            seen: BTreeMap::new(),
        }
    }

    fn saw(&mut self, event: &'static str) {
        *self.seen.entry(event).or_default() += 1;
    }

    /// Notes the edge cases a call at `at_ms` meets, before it is made.
    fn note_call(&mut self, call: &'static str, at_ms: u64) {
        let Some(side) = self.core.running() else { return };
        if let Some(deadline) = self.core.next_deadline() {
            if deadline.at == at(at_ms) {
                self.saw(match (call, deadline.kind) {
                    ("press", DeadlineKind::Flag { .. }) => "press at the flag instant",
                    ("press", DeadlineKind::DelayEnds) => "press as the delay ends",
                    ("press", DeadlineKind::OvertimeBegins) => "press as overtime begins",
                    ("press", DeadlineKind::PeriodLost { .. }) => "press as a period runs out",
                    (_, DeadlineKind::DelayEnds) => "pause as the delay ends",
                    _ => "pause at a deadline",
                });
            }
        }
        let Ok(reading) = self.core.reading(side, at(at_ms)) else { return };
        if call == "pause" && !reading.delay.is_zero() {
            let full = match self.control {
                TimeControl::Stages(stages) => stages.get(reading.period as usize).map(|stage| stage.bonus.amount()),
                _ => None,
            };
            if full.is_some_and(|full| reading.delay < full) {
                self.saw("pause in the middle of a delay");
            }
        }
        if call != "press" {
            return;
        }
        if reading.flag.is_some_and(|flag| self.control.is_final_period(flag.period)) {
            self.saw("press by a flagged side");
        }
        match self.control {
            TimeControl::ByoYomi { .. } if reading.period > 0 && reading.flag.is_none() => {
                self.saw("press keeps a byo-yomi period");
            }
            TimeControl::Canadian { .. } if reading.period > 0 && reading.flag.is_none() => {
                self.saw(if reading.period_moves_left == 1 {
                    "press completes a Canadian period"
                } else {
                    "press in Canadian overtime"
                });
            }
            _ => {}
        }
    }

    /// Notes the edge cases seen after a call.
    fn note_after(&mut self, before: &Clock) {
        for side in Side::BOTH {
            let flag = self.core.flag(side);
            if flag.is_some() && flag != before.flag(side) {
                let final_period = flag.is_some_and(|flag| self.control.is_final_period(flag.period));
                self.saw(if final_period { "flag in the final period" } else { "flag in an earlier stage" });
            }
            let (was, is) = (before.period(side), self.core.period(side));
            if is > was {
                let by_press = before.running() == Some(side) && self.core.running() != Some(side);
                match self.control {
                    TimeControl::Stages(_) if flag == before.flag(side) && by_press => self.saw("stage by move count"),
                    TimeControl::ByoYomi { .. } if was > 0 => self.saw("byo-yomi period lost"),
                    TimeControl::ByoYomi { .. } | TimeControl::Canadian { .. } => self.saw("overtime begins"),
                    _ => {}
                }
            }
        }
    }

    fn fail(&self, what: String) -> String {
        let mut message = format!("{what}\ncontrol: {:?}\ncalls so far:\n", self.control);
        for (index, line) in self.log.iter().enumerate() {
            message.push_str(&format!("  {index:>3}: {line}\n"));
        }
        message
    }

    fn instant(&self, when: When) -> u64 {
        match when {
            When::Gap(gap) => self.now_ms + gap,
            When::Deadline(offset) => match self.core.next_deadline() {
                Some(deadline) => {
                    let deadline_ms = deadline.at.as_us() / 1_000;
                    deadline_ms.saturating_add_signed(i64::from(offset)).max(self.now_ms)
                }
                None => self.now_ms + 37,
            },
        }
    }

    fn start(&mut self, at_ms: u64) -> Result<(), String> {
        let before = self.core;
        let core = self.core.start(at(at_ms));
        let model = self.model.start(at_ms);
        self.log.push(format!("start @ {at_ms} ms -> core {core:?}, model {model:?}"));
        self.now_ms = at_ms;
        if core.is_err() || model.is_err() {
            return Err(self.fail("start refused".into()));
        }
        self.note_after(&before);
        self.compare_settled(at_ms)
    }

    fn press(&mut self, at_ms: u64) -> Result<(), String> {
        let side = self.core.running().ok_or_else(|| self.fail("press: the core has no running side".into()))?;
        if self.model.running() != Some(side) {
            return Err(self.fail(format!("running side: core {side}, model {:?}", self.model.running())));
        }
        self.note_call("press", at_ms);
        let before = self.core;
        let core = self.core.press(side, at(at_ms));
        let model = self.model.press(side, at_ms);
        self.log.push(format!("press {side} @ {at_ms} ms -> core {core:?}, model {model:?}"));
        self.now_ms = at_ms;
        if core.is_err() || model.is_err() {
            return Err(self.fail("press by the running side refused".into()));
        }
        self.note_after(&before);
        self.compare_settled(at_ms)
    }

    /// A press by `side`, which is not running: both must refuse it and the
    /// core must be exactly as it was.
    fn refused_press(&mut self, side: Side, at_ms: u64) -> Result<(), String> {
        let before = self.core;
        let model_before = self.model.clone();
        let core = self.core.press(side, at(at_ms));
        let model = self.model.press(side, at_ms);
        self.log.push(format!("press {side} @ {at_ms} ms (not allowed) -> core {core:?}, model {model:?}"));
        let expected_core = match before.phase() {
            Phase::Running(running) => Err(ClockError::NotRunning { pressed: side, running }),
            Phase::Paused(_) => Err(ClockError::Paused),
            other => return Err(self.fail(format!("refused_press in phase {other:?}"))),
        };
        let expected_model = if self.model.is_paused() { TickError::Paused } else { TickError::NotRunning };
        if core != expected_core {
            return Err(self.fail(format!("core answered {core:?}, expected {expected_core:?}")));
        }
        if model != Err(expected_model) {
            return Err(self.fail(format!("model answered {model:?}, expected {expected_model:?}")));
        }
        if self.core != before {
            return Err(self.fail("a refused press changed the core".into()));
        }
        self.saw(if self.model.is_paused() { "press while paused refused" } else { "wrong-side press refused" });
        // The model is unchanged too (it did not even run its ticks).
        self.model = model_before;
        // Both are still as they were: compare at the last call's instant.
        self.compare_settled(self.now_ms)
    }

    fn pause(&mut self, at_ms: u64) -> Result<(), String> {
        self.note_call("pause", at_ms);
        let before = self.core;
        let core = self.core.pause(at(at_ms));
        let model = self.model.pause(at_ms);
        self.log.push(format!("pause @ {at_ms} ms -> core {core:?}, model {model:?}"));
        self.now_ms = at_ms;
        if core.is_err() || model.is_err() {
            return Err(self.fail("pause refused".into()));
        }
        self.note_after(&before);
        self.compare_settled(at_ms)
    }

    fn resume(&mut self, at_ms: u64) -> Result<(), String> {
        let before = self.core;
        let core = self.core.resume(at(at_ms));
        let model = self.model.resume(at_ms);
        self.log.push(format!("resume @ {at_ms} ms -> core {core:?}, model {model:?}"));
        self.now_ms = at_ms;
        if core.is_err() || model.is_err() {
            return Err(self.fail("resume refused".into()));
        }
        self.note_after(&before);
        self.compare_settled(at_ms)
    }

    /// Reads both displays at a later instant without a call: the core
    /// projects, the model runs a copy of itself forward.
    fn observe(&self, at_ms: u64) -> Result<(), String> {
        let mut ahead = self.model.clone();
        ahead.run_until(at_ms).map_err(|error| self.fail(format!("model refused to run ahead: {error:?}")))?;
        self.compare(&ahead, at_ms, false).map_err(|what| self.fail(format!("observation @ {at_ms} ms: {what}")))
    }

    fn compare_settled(&self, at_ms: u64) -> Result<(), String> {
        self.compare(&self.model, at_ms, true).map_err(|what| self.fail(what))
    }

    /// Compares both sides of the core at `at_ms` with `model`. `settled`:
    /// the core's own state is at `at_ms` too (after a call), so its plain
    /// getters must agree as well.
    fn compare(&self, model: &TickClock, at_ms: u64, settled: bool) -> Result<(), String> {
        for side in Side::BOTH {
            let remaining = self.core.remaining(side, at(at_ms)).map_err(|e| format!("core.remaining: {e:?}"))?;
            let reading = self.core.reading(side, at(at_ms)).map_err(|e| format!("core.reading: {e:?}"))?;
            let model_us = model.remaining_ms(side) * 1_000;
            if remaining.as_us().abs_diff(model_us) > TICK_US {
                return Err(format!(
                    "{side} remaining: core {} us, model {model_us} us (reading {reading:?})",
                    remaining.as_us()
                ));
            }
            if reading.moves != model.moves(side) {
                return Err(format!("{side} moves: core {}, model {}", reading.moves, model.moves(side)));
            }
            if reading.period != model.period(side) {
                return Err(format!("{side} period: core {}, model {}", reading.period, model.period(side)));
            }
            match (reading.flag, model.flag(side)) {
                (None, None) => {}
                (Some(core), Some(tick)) => {
                    if core.side != side
                        || core.at.as_us().abs_diff(tick.at_ms * 1_000) > TICK_US
                        || core.period != tick.period
                        || core.sequence != tick.sequence
                    {
                        return Err(format!("{side} flag: core {core:?}, model {tick:?}"));
                    }
                }
                (core, tick) => return Err(format!("{side} flag: core {core:?}, model {tick:?}")),
            }
            if settled {
                if self.core.settled_at() != at(at_ms) {
                    return Err(format!("core settled at {:?}, expected {at_ms} ms", self.core.settled_at()));
                }
                if self.core.flag(side) != reading.flag
                    || self.core.moves(side) != reading.moves
                    || self.core.period(side) != reading.period
                {
                    return Err(format!("{side}: core getters disagree with core.reading {reading:?}"));
                }
            }
        }
        if settled && self.core.running() != model.running() {
            return Err(format!("running: core {:?}, model {:?}", self.core.running(), model.running()));
        }
        Ok(())
    }

    fn step(&mut self, step: Step) -> Result<(), String> {
        match step {
            Step::Press(when) => {
                let at_ms = self.instant(when);
                self.press(at_ms)
            }
            Step::WrongPress(when) => {
                let at_ms = self.instant(when);
                let side = self.core.running().map_or(Side::White, Side::opponent);
                self.refused_press(side, at_ms)
            }
            Step::Pause { when, hold } => {
                let at_ms = self.instant(when);
                self.pause(at_ms)?;
                let paused = self.core.phase();
                let Phase::Paused(side) = paused else {
                    return Err(self.fail(format!("after pause the core is {paused:?}")));
                };
                let middle = at_ms + hold / 2;
                self.observe(middle)?;
                self.refused_press(side, middle)?;
                self.resume(at_ms + hold)
            }
            Step::Observe(when) => {
                let at_ms = self.instant(when);
                self.observe(at_ms)
            }
        }
    }
}

/// Plays one random game on both models; returns the edge cases it met.
fn play(control: TimeControl, start_ms: u64, steps: &[Step]) -> Result<BTreeMap<&'static str, u32>, String> {
    let mut game = Game::new(control);
    game.start(start_ms)?;
    for step in steps {
        game.step(*step)?;
    }
    Ok(game.seen)
}

// ---------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------

fn when() -> impl Strategy<Value = When> {
    prop_oneof![
        2 => Just(When::Gap(0)),
        3 => (1u64..40).prop_map(When::Gap),
        10 => (40u64..350).prop_map(When::Gap),
        3 => (350u64..900).prop_map(When::Gap),
        4 => (-1i8..=1).prop_map(When::Deadline),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        16 => when().prop_map(Step::Press),
        2 => when().prop_map(Step::WrongPress),
        2 => (when(), 0u64..400).prop_map(|(when, hold)| Step::Pause { when, hold }),
        3 => when().prop_map(Step::Observe),
    ]
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(step(), 1..40)
}

/// A main time: now and then zero, usually hundreds of ms to a few seconds.
fn main_ms() -> impl Strategy<Value = u64> {
    prop_oneof![1 => Just(0u64), 3 => 1u64..200, 12 => 200u64..2500]
}

fn bonus() -> impl Strategy<Value = Bonus> {
    prop_oneof![
        Just(Bonus::None),
        (0u64..500).prop_map(|ms| Bonus::Increment(d(ms))),
        (0u64..600).prop_map(|ms| Bonus::Delay(d(ms))),
        (0u64..600).prop_map(|ms| Bonus::Bronstein(d(ms))),
    ]
}

fn sudden_death() -> impl Strategy<Value = TimeControl> {
    main_ms().prop_map(|ms| TimeControl::sudden_death(d(ms), Bonus::None).expect("valid"))
}

fn fischer() -> impl Strategy<Value = TimeControl> {
    (main_ms(), 0u64..500)
        .prop_map(|(ms, inc)| TimeControl::sudden_death(d(ms), Bonus::Increment(d(inc))).expect("valid"))
}

fn delay() -> impl Strategy<Value = TimeControl> {
    (main_ms(), 0u64..600)
        .prop_map(|(ms, delay)| TimeControl::sudden_death(d(ms), Bonus::Delay(d(delay))).expect("valid"))
}

fn bronstein() -> impl Strategy<Value = TimeControl> {
    (main_ms(), 0u64..600)
        .prop_map(|(ms, delay)| TimeControl::sudden_death(d(ms), Bonus::Bronstein(d(delay))).expect("valid"))
}

fn multi_stage() -> impl Strategy<Value = TimeControl> {
    let stage = (2u32..=5, main_ms(), bonus());
    (prop::collection::vec(stage, 1..=2), main_ms(), bonus()).prop_map(|(early, last_ms, last_bonus)| {
        let mut stages: Vec<Stage> =
            early.into_iter().map(|(moves, ms, bonus)| Stage::moves(moves, d(ms), bonus)).collect();
        stages.push(Stage::rest_of_game(d(last_ms), last_bonus));
        TimeControl::stages(&stages).expect("valid")
    })
}

fn hourglass() -> impl Strategy<Value = TimeControl> {
    main_ms().prop_map(|ms| TimeControl::hourglass(d(ms)).expect("valid"))
}

fn byo_yomi() -> impl Strategy<Value = TimeControl> {
    (main_ms(), 1u32..=4, 50u64..800)
        .prop_map(|(main, periods, period)| TimeControl::byo_yomi(d(main), periods, d(period)).expect("valid"))
}

fn canadian() -> impl Strategy<Value = TimeControl> {
    (main_ms(), 1u32..=4, 100u64..1500)
        .prop_map(|(main, moves, period)| TimeControl::canadian(d(main), moves, d(period)).expect("valid"))
}

/// Random games per kind of control; `PROPTEST_CASES` overrides it for a
/// longer run.
const CASES: u32 = 256;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(CASES)
}

/// Runs [`CASES`] (or `PROPTEST_CASES`) random games of one kind of control, then checks that the
/// games reached each of `expected` at least once (so the generators really
/// make flags fall, periods run out and stages change).
fn differential(control: impl Strategy<Value = TimeControl>, expected: &[&str]) {
    let cases = cases();
    let config = ProptestConfig { cases, source_file: Some(file!()), ..ProptestConfig::default() };
    let seen: RefCell<BTreeMap<&'static str, u32>> = RefCell::new(BTreeMap::new());
    let result = TestRunner::new(config).run(&(control, 0u64..50, steps()), |(control, start, steps)| {
        let events = play(control, start, &steps).map_err(TestCaseError::fail)?;
        let mut seen = seen.borrow_mut();
        for (event, count) in events {
            *seen.entry(event).or_default() += count;
        }
        Ok(())
    });
    if let Err(error) = result {
        panic!("the core and the tick model disagree:\n{error}");
    }
    let seen = seen.into_inner();
    println!("edge cases met in {cases} games: {seen:#?}");
    for event in expected {
        assert!(seen.contains_key(event), "no random game met \"{event}\"; met: {seen:#?}");
    }
}

const ALWAYS: [&str; 3] = ["flag in the final period", "wrong-side press refused", "press while paused refused"];

fn with_always(more: &[&'static str]) -> Vec<&'static str> {
    ALWAYS.iter().chain(more).copied().collect()
}

#[test]
fn sudden_death_agrees() {
    differential(sudden_death(), &with_always(&["press at the flag instant", "press by a flagged side"]));
}

#[test]
fn fischer_agrees() {
    differential(fischer(), &with_always(&["press at the flag instant", "press by a flagged side"]));
}

#[test]
fn delay_agrees() {
    differential(
        delay(),
        &with_always(&["press at the flag instant", "press as the delay ends", "pause in the middle of a delay"]),
    );
}

#[test]
fn bronstein_agrees() {
    differential(bronstein(), &with_always(&["press at the flag instant", "press by a flagged side"]));
}

#[test]
fn multi_stage_agrees() {
    differential(multi_stage(), &with_always(&["stage by move count", "flag in an earlier stage"]));
}

#[test]
fn hourglass_agrees() {
    differential(hourglass(), &with_always(&["press at the flag instant", "press by a flagged side"]));
}

#[test]
fn byo_yomi_agrees() {
    differential(
        byo_yomi(),
        &with_always(&[
            "overtime begins",
            "byo-yomi period lost",
            "press keeps a byo-yomi period",
            "press as a period runs out",
        ]),
    );
}

#[test]
fn canadian_agrees() {
    differential(
        canadian(),
        &with_always(&["overtime begins", "press completes a Canadian period", "press at the flag instant"]),
    );
}

// ---------------------------------------------------------------------------
// Hand-written edge cases: each runs through both models (compared after
// every call) and checks the numbers the specification gives.
// ---------------------------------------------------------------------------

/// What one display must show, exactly, on both models.
#[derive(Clone, Copy, Debug)]
struct Shows {
    remaining: u64,
    moves: u32,
    period: u32,
    /// `(instant, period)` of the flag.
    flag: Option<(u64, u32)>,
}

fn shows(remaining: u64, moves: u32, period: u32, flag: Option<(u64, u32)>) -> Shows {
    Shows { remaining, moves, period, flag }
}

fn game(control: Result<TimeControl, chessclock::ControlError>) -> Game {
    Game::new(control.expect("valid control"))
}

impl Game {
    fn ok(&self, result: Result<(), String>) {
        if let Err(message) = result {
            panic!("{message}");
        }
    }

    /// `side` (which must be running) presses at `at_ms`.
    fn press_by(&mut self, side: Side, at_ms: u64) {
        assert_eq!(self.core.running(), Some(side), "{}", self.fail(format!("{side} should be running")));
        let result = self.press(at_ms);
        self.ok(result);
    }

    /// The side that is not running presses at `at_ms`: refused.
    fn press_wrong(&mut self, at_ms: u64) {
        let side = self.core.running().map_or(Side::White, Side::opponent);
        let result = self.refused_press(side, at_ms);
        self.ok(result);
    }

    fn begin(&mut self, at_ms: u64) {
        let result = self.start(at_ms);
        self.ok(result);
    }

    fn stop(&mut self, at_ms: u64) {
        let result = self.pause(at_ms);
        self.ok(result);
    }

    fn restart(&mut self, at_ms: u64) {
        let result = self.resume(at_ms);
        self.ok(result);
    }

    /// Both models show `expected` on `side`'s display at `at_ms` (no later
    /// than the next call; later than the last one is a projection).
    fn check(&self, side: Side, at_ms: u64, expected: Shows) {
        let result = self.observe(at_ms);
        self.ok(result);
        let reading = self.core.reading(side, at(at_ms)).expect("reading");
        let remaining = self.core.remaining(side, at(at_ms)).expect("remaining");
        let core = Shows {
            remaining: remaining.as_us(),
            moves: reading.moves,
            period: reading.period,
            flag: reading.flag.map(|flag| (flag.at.as_us(), flag.period)),
        };
        let want = Shows {
            remaining: expected.remaining * 1_000,
            flag: expected.flag.map(|(at_ms, period)| (at_ms * 1_000, period)),
            ..expected
        };
        let same = |a: &Shows, b: &Shows| {
            a.remaining == b.remaining && a.moves == b.moves && a.period == b.period && a.flag == b.flag
        };
        assert!(
            same(&core, &want),
            "{}",
            self.fail(format!("core {side} @ {at_ms} ms: {core:?} (us), expected {want:?}"))
        );
        let mut ahead = self.model.clone();
        ahead.run_until(at_ms).expect("forward");
        let model = Shows {
            remaining: ahead.remaining_ms(side),
            moves: ahead.moves(side),
            period: ahead.period(side),
            flag: ahead.flag(side).map(|flag| (flag.at_ms, flag.period)),
        };
        assert!(
            same(&model, &expected),
            "{}",
            self.fail(format!("model {side} @ {at_ms} ms: {model:?}, expected {expected:?}"))
        );
    }
}

use Side::{Black, White};

#[test]
fn sudden_death_press_at_the_flag_instant_is_late() {
    let mut g = game(TimeControl::sudden_death(d(1000), Bonus::None));
    g.begin(10);
    g.check(White, 1009, shows(1, 0, 0, None));
    g.check(White, 1010, shows(0, 0, 0, Some((1010, 0))));
    g.press_by(White, 1010);
    g.check(White, 1010, shows(0, 1, 0, Some((1010, 0))));
    g.press_wrong(1100);
    g.press_by(Black, 1510);
    g.check(Black, 1510, shows(500, 1, 0, None));
    // Frozen at zero for the rest of the game; presses still switch and count.
    g.check(White, 3000, shows(0, 1, 0, Some((1010, 0))));
    g.press_by(White, 3000);
    g.check(White, 3000, shows(0, 2, 0, Some((1010, 0))));
    g.check(Black, 3000, shows(500, 1, 0, None));
}

/// A player may think for days on a display frozen after its final flag
/// (6.12 lets play go on); the tick model's main loop must not step through
/// each millisecond of that (ten years here: 3·10^11 ticks, which would not
/// finish), and both models still agree afterwards.
#[test]
fn frozen_display_waits_out_ten_years_in_one_step() {
    const TEN_YEARS_MS: u64 = 10 * 365 * 24 * 3_600 * 1_000;
    let mut g = game(TimeControl::sudden_death(d(1000), Bonus::None));
    g.begin(0);
    g.check(White, TEN_YEARS_MS, shows(0, 0, 0, Some((1000, 0))));
    g.press_by(White, TEN_YEARS_MS);
    g.check(Black, TEN_YEARS_MS, shows(1000, 0, 0, None));
    g.check(White, TEN_YEARS_MS, shows(0, 1, 0, Some((1000, 0))));
}

#[test]
fn sudden_death_press_one_ms_before_the_flag_is_in_time() {
    let mut g = game(TimeControl::sudden_death(d(1000), Bonus::None));
    g.begin(0);
    g.press_by(White, 999);
    g.check(White, 999, shows(1, 1, 0, None));
}

#[test]
fn sudden_death_zero_time_flags_as_the_display_starts() {
    let mut g = game(TimeControl::sudden_death(Duration::ZERO, Bonus::None));
    g.begin(5);
    g.check(White, 5, shows(0, 0, 0, Some((5, 0))));
    g.check(Black, 5, shows(0, 0, 0, None));
    g.press_by(White, 5);
    g.check(Black, 5, shows(0, 0, 0, Some((5, 0))));
    assert_eq!(g.core.flag(White).map(|flag| flag.sequence), Some(1));
    assert_eq!(g.core.flag(Black).map(|flag| flag.sequence), Some(2));
}

#[test]
fn fischer_adds_the_increment_but_not_after_a_flag() {
    let mut g = game(TimeControl::sudden_death(d(1000), Bonus::Increment(d(200))));
    g.begin(0);
    g.press_by(White, 300);
    g.check(White, 300, shows(900, 1, 0, None));
    g.press_by(Black, 1100);
    g.check(Black, 1100, shows(400, 1, 0, None));
    g.check(White, 1999, shows(1, 1, 0, None));
    g.check(White, 2000, shows(0, 1, 0, Some((2000, 0))));
    g.press_by(White, 2300);
    g.check(White, 2300, shows(0, 2, 0, Some((2000, 0))));
    g.press_by(Black, 2400);
    g.check(Black, 2400, shows(400 - 100 + 200, 2, 0, None));
}

#[test]
fn delay_press_exactly_as_the_delay_ends_uses_no_main_time() {
    let mut g = game(TimeControl::sudden_death(d(1000), Bonus::Delay(d(500))));
    g.begin(0);
    g.press_by(White, 500);
    g.check(White, 500, shows(1000, 1, 0, None));
    g.press_by(Black, 1001);
    g.check(Black, 1001, shows(999, 1, 0, None));
    // Unused delay is not banked.
    g.press_by(White, 1101);
    g.check(White, 1101, shows(1000, 2, 0, None));
}

#[test]
fn delay_pause_in_the_middle_of_a_delay_keeps_what_is_left() {
    let mut g = game(TimeControl::sudden_death(d(1000), Bonus::Delay(d(500))));
    g.begin(0);
    g.stop(200);
    g.press_wrong(300);
    g.check(White, 4000, shows(1000, 0, 0, None));
    g.restart(5000);
    // 200 ms of the delay used before the pause, 300 ms after: all of it.
    g.check(White, 5300, shows(1000, 0, 0, None));
    g.check(White, 5301, shows(999, 0, 0, None));
    g.press_by(White, 5301);
    g.check(White, 5301, shows(999, 1, 0, None));
}

#[test]
fn delay_flag_falls_after_delay_and_main_time() {
    let mut g = game(TimeControl::sudden_death(d(300), Bonus::Delay(d(100))));
    g.begin(0);
    g.check(White, 399, shows(1, 0, 0, None));
    g.press_by(White, 400);
    g.check(White, 400, shows(0, 1, 0, Some((400, 0))));
    g.press_by(Black, 450);
    g.check(Black, 450, shows(300, 1, 0, None));
    // Frozen: no delay for the flagged side either.
    g.check(White, 460, shows(0, 1, 0, Some((400, 0))));
}

#[test]
fn bronstein_gives_back_the_time_used_up_to_the_delay() {
    let mut g = game(TimeControl::sudden_death(d(1000), Bonus::Bronstein(d(300))));
    g.begin(0);
    g.press_by(White, 200);
    g.check(White, 200, shows(1000, 1, 0, None));
    g.press_by(Black, 700);
    g.check(Black, 700, shows(800, 1, 0, None));
    // The time used before a pause counts for the refund.
    g.stop(800);
    g.restart(2000);
    g.press_by(White, 2150);
    g.check(White, 2150, shows(1000, 2, 0, None));
}

#[test]
fn stages_switch_exactly_at_the_required_move_count() {
    let mut g = game(TimeControl::stages(&[
        Stage::moves(2, d(1000), Bonus::None),
        Stage::moves(3, d(700), Bonus::Increment(d(50))),
        Stage::rest_of_game(d(500), Bonus::Increment(d(100))),
    ]));
    g.begin(0);
    g.press_by(White, 100);
    g.check(White, 100, shows(900, 1, 0, None));
    g.press_by(Black, 150);
    g.press_by(White, 250);
    // Move 2 completes stage 1: the saved 800 ms carry, plus stage 2's 700.
    g.check(White, 250, shows(1500, 2, 1, None));
    g.check(Black, 250, shows(950, 1, 0, None));
    g.press_by(Black, 300);
    g.check(Black, 300, shows(1600, 2, 1, None));
    // Stage 2's increment from move 3 on; move 5 completes stage 2.
    g.press_by(White, 400);
    g.check(White, 400, shows(1450, 3, 1, None));
    g.press_by(Black, 400);
    g.press_by(White, 400);
    g.press_by(Black, 400);
    g.check(White, 400, shows(1500, 4, 1, None));
    // Move 5 completes stage 2: its increment first, then stage 3's time.
    g.press_by(White, 500);
    g.check(White, 500, shows(1400 + 50 + 500, 5, 2, None));
    g.press_by(Black, 500);
    g.press_by(White, 600);
    g.check(White, 600, shows(1850 + 100, 6, 2, None));
}

#[test]
fn stages_flag_in_an_early_stage_opens_the_next_once() {
    let mut g =
        game(TimeControl::stages(&[Stage::moves(2, d(300), Bonus::None), Stage::rest_of_game(d(1000), Bonus::None)]));
    g.begin(0);
    g.check(White, 299, shows(1, 0, 0, None));
    // At 300 the flag falls in stage 1 (index 0) and stage 2 begins now.
    g.check(White, 300, shows(1000, 0, 1, Some((300, 0))));
    g.press_by(White, 300);
    g.check(White, 300, shows(1000, 1, 1, Some((300, 0))));
    g.press_by(Black, 400);
    g.press_by(White, 500);
    // The move count reaches stage 1's 2 moves: nothing more is added.
    g.check(White, 500, shows(900, 2, 1, Some((300, 0))));
    g.press_by(Black, 600);
    // Final flag: 900 ms from 600.
    g.check(White, 1500, shows(0, 2, 1, Some((1500, 1))));
    g.press_by(White, 1600);
    g.check(White, 1600, shows(0, 3, 1, Some((1500, 1))));
    assert_eq!(g.core.flag(White).map(|flag| flag.sequence), Some(2));
}

#[test]
fn hourglass_flows_and_stops_at_a_frozen_display() {
    let mut g = game(TimeControl::hourglass(d(1000)));
    g.begin(0);
    g.press_by(White, 300);
    g.check(White, 300, shows(700, 1, 0, None));
    g.check(Black, 300, shows(1300, 0, 0, None));
    g.press_by(Black, 400);
    g.check(Black, 400, shows(1200, 1, 0, None));
    g.check(White, 400, shows(800, 1, 0, None));
    g.check(White, 1200, shows(0, 1, 0, Some((1200, 0))));
    g.check(Black, 1200, shows(2000, 1, 0, None));
    // The frozen side's display no longer runs, so nothing flows from it...
    g.check(Black, 1500, shows(2000, 1, 0, None));
    g.press_by(White, 1500);
    // ...and nothing flows to it.
    g.check(Black, 1800, shows(1700, 1, 0, None));
    g.check(White, 1800, shows(0, 2, 0, Some((1200, 0))));
}

#[test]
fn byo_yomi_period_lost_then_kept() {
    let mut g = game(TimeControl::byo_yomi(d(500), 3, d(200)));
    g.begin(0);
    g.check(White, 499, shows(1, 0, 0, None));
    // Main time out: overtime, no flag.
    g.check(White, 500, shows(200, 0, 1, None));
    g.check(White, 700, shows(200, 0, 2, None));
    g.press_by(White, 850);
    g.check(White, 850, shows(200, 1, 2, None));
    g.press_by(Black, 950);
    // A press at the instant period 2 runs out is too late for period 2.
    g.press_by(White, 1150);
    g.check(White, 1150, shows(200, 2, 3, None));
    g.press_by(Black, 1200);
    g.check(White, 1399, shows(1, 2, 3, None));
    g.press_by(White, 1400);
    g.check(White, 1400, shows(0, 3, 3, Some((1400, 3))));
    g.check(Black, 1400, shows(350, 2, 0, None));
}

#[test]
fn canadian_resets_after_the_required_moves() {
    let mut g = game(TimeControl::canadian(d(300), 2, d(1000)));
    g.begin(0);
    g.press_by(White, 100);
    g.check(White, 100, shows(200, 1, 0, None));
    g.press_by(Black, 150);
    g.check(White, 350, shows(1000, 1, 1, None));
    g.press_by(White, 450);
    g.check(White, 450, shows(900, 2, 1, None));
    g.press_by(Black, 500);
    g.check(White, 599, shows(801, 2, 1, None));
    // Second move in this overtime period: back to the full period.
    g.press_by(White, 600);
    g.check(White, 600, shows(1000, 3, 1, None));
    g.press_by(Black, 650);
    g.check(White, 1649, shows(1, 3, 1, None));
    g.press_by(White, 1650);
    g.check(White, 1650, shows(0, 4, 1, Some((1650, 1))));
}

#[test]
fn canadian_zero_main_time_starts_in_overtime() {
    let mut g = game(TimeControl::canadian(Duration::ZERO, 1, d(400)));
    g.begin(0);
    g.check(White, 0, shows(400, 0, 1, None));
    g.press_by(White, 399);
    g.check(White, 399, shows(400, 1, 1, None));
}

#[test]
fn bronstein_press_at_the_flag_instant_gives_nothing_back() {
    let mut g = game(TimeControl::sudden_death(d(500), Bonus::Bronstein(d(300))));
    g.begin(0);
    g.press_by(White, 500);
    g.check(White, 500, shows(0, 1, 0, Some((500, 0))));
    g.press_by(Black, 600);
    g.check(Black, 600, shows(500, 1, 0, None));
    g.check(White, 700, shows(0, 1, 0, Some((500, 0))));
}

#[test]
fn stages_the_new_stage_delay_applies_from_the_next_move() {
    let mut g = game(TimeControl::stages(&[
        Stage::moves(1, d(500), Bonus::None),
        Stage::rest_of_game(d(500), Bonus::Delay(d(200))),
    ]));
    g.begin(0);
    g.press_by(White, 100);
    g.check(White, 100, shows(900, 1, 1, None));
    g.press_by(Black, 200);
    g.check(Black, 200, shows(900, 1, 1, None));
    g.check(White, 400, shows(900, 1, 1, None));
    g.check(White, 450, shows(850, 1, 1, None));
    g.press_by(White, 450);
    g.check(White, 450, shows(850, 2, 1, None));
}

#[test]
fn hourglass_press_at_the_flag_instant_is_late() {
    let mut g = game(TimeControl::hourglass(d(500)));
    g.begin(0);
    g.press_by(White, 500);
    g.check(White, 500, shows(0, 1, 0, Some((500, 0))));
    g.check(Black, 500, shows(1000, 0, 0, None));
    g.check(Black, 700, shows(800, 0, 0, None));
    g.check(White, 700, shows(0, 1, 0, Some((500, 0))));
}

#[test]
fn byo_yomi_zero_main_time_starts_in_the_first_period() {
    let mut g = game(TimeControl::byo_yomi(Duration::ZERO, 2, d(300)));
    g.begin(0);
    g.check(White, 0, shows(300, 0, 1, None));
    // One millisecond before the period runs out keeps it.
    g.press_by(White, 299);
    g.check(White, 299, shows(300, 1, 1, None));
    g.check(Black, 299, shows(300, 0, 1, None));
    g.check(Black, 598, shows(1, 0, 1, None));
    g.press_by(Black, 599);
    g.check(Black, 599, shows(300, 1, 2, None));
    g.check(White, 899, shows(300, 1, 2, None));
    g.check(White, 1199, shows(0, 1, 2, Some((1199, 2))));
}

#[test]
fn canadian_press_as_overtime_begins_is_the_first_overtime_move() {
    let mut g = game(TimeControl::canadian(d(300), 2, d(1000)));
    g.begin(0);
    g.press_by(White, 300);
    g.check(White, 300, shows(1000, 1, 1, None));
    g.press_by(Black, 400);
    g.check(White, 499, shows(901, 1, 1, None));
    g.press_by(White, 500);
    g.check(White, 500, shows(1000, 2, 1, None));
}
