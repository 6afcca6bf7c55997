//! Oracles: invariants checked on every event a clock sees, and the
//! differential check of the ideal clock against the independent model.
//! A violated oracle fails the game.
//!
//! - **Invariants**, on every call of both clocks. On the ideal clock's
//!   also "the clock's account agrees": its transitions, as `Changes`, tell
//!   what the displays show, a call hands at most `TRANSITIONS_MAX`, and at
//!   the end its counts are the transitions it handed on. These compare
//!   states before and after on purpose: they check the clock from
//!   outside and never take its word.
//! - **The independent model** ([`ModelOracle`]: `EventClock` shadowing the
//!   ideal clock, every call, arbiter settings and pauses included): after
//!   each the two agree to the microsecond (big number, flag, moves,
//!   period; the delay, periods left and Canadian moves left under controls
//!   that show them; the first flag when both show one; after a press, the
//!   per-move rules applied). It stops at its first disagreement (one
//!   violation fails the game), so in a passing run its coverage, the calls
//!   and the whole games it checked, is 100 %, and the report says so
//!   (`oracle_coverage`).
//!
//! The second rulings (`game/rulings.rs`), the probes (`game/probes.rs`)
//! and the written forms (`crate::written`) are the model's checking too:
//! `--no-model-oracle` turns them off with it.

use chessclock::{
    Bonus, BySide, Changes, Clock, ClockError, Deadline, DeadlineKind, Duration, Instant, PeriodCause, Phase,
    Replacement, Side, TimeAdjustment, TimeControl, Transition, TransitionEvent, TransitionSink, TRANSITIONS_MAX,
};
use chessclock_tick_model::EventClock;

fn flag_sequence(clock: &Clock, side: Side) -> u32 {
    clock.flag(side).map_or(0, |flag| flag.sequence)
}

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// True time of the event, in microseconds since the scheduled start.
    pub at_us: u64,
    /// `device` or `ideal`.
    pub clock: &'static str,
    /// The invariant's name.
    pub check: &'static str,
    pub detail: String,
}

/// What was done to the clock between the two states an oracle compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Start,
    Press(Side),
    /// Time passed up to the given deadline (or to an arbitrary instant).
    Settle(Option<Deadline>),
    Pause,
    Resume,
    /// An arbiter setting (6.11, 6.14, 13.4) or a brownout restore: the
    /// clock's numbers may change in any way the arbiter chose.
    Arbiter,
    /// The game is over: the clock stops for good.
    Finish,
}

/// What the invariants need of a clock's state before a call: a few numbers
/// rather than a copy of the whole clock, taken at every call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Before {
    running: Option<Side>,
    /// The big number of each display at the latest call.
    shown_us: BySide<u64>,
    main_us: BySide<u64>,
    period: BySide<u32>,
    /// The sequence number of the flag each display shows (0: none): a
    /// flag that falls gets a new one.
    flag_sequence: BySide<u32>,
}

impl Before {
    pub fn of(clock: &Clock) -> Before {
        Before {
            running: clock.running(),
            shown_us: BySide::new(clock.shown(Side::White).as_us(), clock.shown(Side::Black).as_us()),
            main_us: BySide::new(clock.main_time(Side::White).as_us(), clock.main_time(Side::Black).as_us()),
            period: BySide::new(clock.period(Side::White), clock.period(Side::Black)),
            flag_sequence: BySide::new(flag_sequence(clock, Side::White), flag_sequence(clock, Side::Black)),
        }
    }
}

/// Where a checked clock hands its transitions: each call's summary (what
/// the account check reads), how many the call handed, and the tally of
/// the game's, which the clock's own counts must equal.
#[derive(Clone, Copy, Debug, Default)]
pub struct Account {
    pub changes: Changes,
    handed: usize,
    /// Per [`Transition`], in [`Transition::ALL`]'s order: kept here, not in
    /// a [`chessclock::Transitions`], so the count compared is not read
    /// through the code it checks.
    tally: [u32; Transition::ALL.len()],
    /// The same for the call under way.
    call_tally: [u16; Transition::ALL.len()],
}

impl Account {
    /// A call begins: its summary starts empty.
    #[inline]
    pub fn begin_call(&mut self) {
        // As the firmware does between its records: what the calls before
        // said is taken, and the summary starts afresh.
        self.changes.take();
        self.handed = 0;
        self.call_tally = [0; Transition::ALL.len()];
    }

    /// How many `transition`s the call under way handed on.
    pub fn in_call(&self, transition: Transition) -> u32 {
        self.call_tally.get(transition as usize).copied().map_or(0, u32::from)
    }

    /// Transitions handed on since the call began.
    pub fn handed(&self) -> usize {
        self.handed
    }
}

impl TransitionSink for Account {
    #[inline]
    fn note(&mut self, event: TransitionEvent) {
        self.changes.note(event);
        self.handed = self.handed.saturating_add(1);
        if let Some(count) = self.tally.get_mut(event.transition as usize) {
            *count = count.saturating_add(1);
        }
        if let Some(count) = self.call_tally.get_mut(event.transition as usize) {
            *count = count.saturating_add(1);
        }
    }
}

/// The invariants of one clock, checked between consecutive states.
#[derive(Debug)]
pub struct ClockOracle {
    name: &'static str,
    /// An arbiter replaced periods or counters: stage positions no longer
    /// follow from the move count alone.
    arbiter_touched: bool,
    violations: Vec<Violation>,
}

impl ClockOracle {
    pub fn new(name: &'static str) -> ClockOracle {
        ClockOracle { name, arbiter_touched: false, violations: Vec::new() }
    }

    /// A fresh oracle for a copy of the clock `self` watches: what the
    /// arbiter's settings made moot stays moot.
    pub fn for_a_copy(&self) -> ClockOracle {
        ClockOracle { name: self.name, arbiter_touched: self.arbiter_touched, violations: Vec::new() }
    }

    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The violations found so far; the oracle keeps none.
    pub fn take_violations(&mut self) -> Vec<Violation> {
        std::mem::take(&mut self.violations)
    }

    #[cold]
    pub fn fail(&mut self, at_us: u64, check: &'static str, detail: String) {
        // One report per invariant is enough to fail a game; keep memory bounded.
        if self.violations.len() < 16 {
            self.violations.push(Violation { at_us, clock: self.name, check, detail });
        }
    }

    /// Checks the step `before` → `after` made by `op`. `true_us` only
    /// labels violations. Inlined so that `op`, mostly known at the call,
    /// picks its checks there rather than travelling through memory.
    #[inline]
    pub fn check(&mut self, true_us: u64, before: &Before, after: &Clock, op: Op) {
        if op == Op::Arbiter {
            self.arbiter_touched = true;
        }
        self.check_phase(true_us, after, op);
        self.check_balance(true_us, after);
        match op {
            Op::Settle(deadline) => {
                self.check_counting_down(true_us, before, after);
                if let Some(deadline) = deadline {
                    self.check_deadline(true_us, after, deadline);
                }
            }
            Op::Press(side) => self.check_press(true_us, before, after, side),
            Op::Start | Op::Pause | Op::Resume | Op::Arbiter | Op::Finish => {}
        }
    }

    /// The clock's own account of a call (its transitions, summed up in
    /// `changes`: what the reference firmware reports and the HIL model
    /// expects) agrees with what the displays show before and after it:
    /// every new flag, every period change, and the period change's cause
    /// as this oracle reads it from the call (the presser's own stage by
    /// its moves, a stage opened by a flag, overtime entered from main
    /// time, otherwise a period lost).
    /// A call hands at most `TRANSITIONS_MAX` transitions, the bound a
    /// caller that keeps them in a list relies on.
    #[inline]
    pub fn check_account(&mut self, true_us: u64, before: &Before, after: &Clock, op: Op, account: &Account) {
        if account.handed > TRANSITIONS_MAX {
            let detail = format!("{op:?} handed {} transitions, at most {TRANSITIONS_MAX} promised", account.handed);
            self.fail(true_us, "the clock's account agrees", detail);
        }
        let changes = &account.changes;
        // Most calls change no period and drop no flag, and say so.
        let unchanged = |side| {
            *before.period.get(side) == after.period(side)
                && *before.flag_sequence.get(side) == flag_sequence(after, side)
        };
        if *changes == Changes::NONE && unchanged(Side::White) && unchanged(Side::Black) {
            return;
        }
        self.check_account_per_side(true_us, before, after, op, changes);
    }

    #[cold]
    #[inline(never)]
    fn check_account_per_side(&mut self, true_us: u64, before: &Before, after: &Clock, op: Op, changes: &Changes) {
        for side in Side::BOTH {
            let new_flag = after.flag(side).filter(|flag| flag.sequence != *before.flag_sequence.get(side));
            if changes.flag(side) != new_flag {
                self.fail_account(
                    true_us,
                    side,
                    format!("flag {:?}, the display shows {new_flag:?}", changes.flag(side)),
                );
            }
            let (from, to) = (*before.period.get(side), after.period(side));
            // The cause of the first change, when a call made several (time
            // run past many deadlines): overtime's periods change only by
            // time or the arbiter; a stage, by its count, its flag or the
            // arbiter.
            let overtime = matches!(after.control(), TimeControl::ByoYomi { .. } | TimeControl::Canadian { .. });
            let expected = (from != to).then(|| {
                let cause = match op {
                    Op::Press(presser) if presser == side => PeriodCause::MovesCompleted,
                    _ if overtime && from == 0 => PeriodCause::OvertimeBegins,
                    _ if !overtime && new_flag.is_some() => PeriodCause::FlagOpenedNext,
                    _ => PeriodCause::PeriodLost,
                };
                (from, to, cause)
            });
            let told = changes.period(side).map(|change| (change.from, change.to, change.cause));
            if told != expected {
                self.fail_account(true_us, side, format!("period change {told:?}, the displays show {expected:?}"));
            }
        }
    }

    /// A finished clock takes no more calls: a press of either side, a
    /// pause, a start, a finish, each tried on a copy, is refused as
    /// `Finished`.
    pub fn check_finished(&mut self, true_us: u64, clock: &Clock, at: Instant) {
        type Try = fn(&mut Clock, Instant) -> Result<(), ClockError>;
        let tries: [(&str, Try); 6] = [
            ("White's press", |clock, at| clock.press(Side::White, at)),
            ("Black's press", |clock, at| clock.press(Side::Black, at)),
            ("a pause", |clock, at| clock.pause(at)),
            ("a start", |clock, at| clock.start(at)),
            ("a second finish", |clock, at| clock.finish(at)),
            ("a second finish, its transitions noted", |clock, at| clock.noting(&mut ()).finish(at)),
        ];
        for (what, call) in tries {
            let mut tried = *clock;
            let answer = call(&mut tried, at);
            if answer != Err(ClockError::Finished) || tried != *clock {
                let detail = format!("{what} after the game's end: {answer:?}");
                self.fail(true_us, "the clock stops at the game's end", detail);
            }
        }
    }

    /// At the game's end: the transitions the clock counted (the coverage
    /// the reports show) are those it handed on, kind by kind.
    pub fn check_tally(&mut self, true_us: u64, clock: &Clock, account: &Account) {
        for (transition, handed) in Transition::ALL.into_iter().zip(account.tally) {
            let counted = clock.transitions().count(transition);
            if counted != handed {
                let detail = format!("{}: counted {counted}, handed on {handed}", transition.key());
                self.fail(true_us, "the clock's counts agree with its account", detail);
            }
        }
    }

    #[cold]
    fn fail_account(&mut self, true_us: u64, side: Side, detail: String) {
        self.fail(true_us, "the clock's account agrees", format!("{side}: {detail}"));
    }

    /// Exactly one display runs once started and not paused; none once the
    /// game is over.
    #[inline]
    fn check_phase(&mut self, true_us: u64, after: &Clock, op: Op) {
        let expected_running = matches!(op, Op::Start | Op::Press(_) | Op::Resume);
        if expected_running && after.running().is_none() {
            self.fail_phase(true_us, after, op);
        }
        if op == Op::Pause && after.running().is_some() {
            self.fail(true_us, "one display runs", "a display still runs after a pause".into());
        }
        if op == Op::Finish && after.phase() != Phase::Finished {
            let detail = format!("after the game's end the phase is {:?}", after.phase());
            self.fail(true_us, "the clock stops at the game's end", detail);
        }
    }

    #[cold]
    fn fail_phase(&mut self, true_us: u64, after: &Clock, op: Op) {
        self.fail(true_us, "one display runs", format!("after {op:?} the phase is {:?}", after.phase()));
    }

    /// Every microsecond a display ran is accounted for, and main time is
    /// what was credited minus what was charged.
    fn check_balance(&mut self, true_us: u64, after: &Clock) {
        for side in Side::BOTH {
            let ledger = after.ledger(side);
            let spent = u128::from(ledger.charged.as_us())
                + u128::from(ledger.delay_used.as_us())
                + u128::from(ledger.overtime_used.as_us())
                + u128::from(ledger.after_flag.as_us());
            if u128::from(ledger.elapsed.as_us()) != spent {
                self.fail(true_us, "time balances", format!("{side}: ran {:?}, accounted {spent} us", ledger.elapsed));
            }
            let main = i128::from(after.main_time(side).as_us());
            let expected = i128::from(ledger.credited.as_us()) + i128::from(ledger.arbiter_added.as_us())
                - i128::from(ledger.arbiter_removed.as_us())
                - i128::from(ledger.charged.as_us());
            if main != expected {
                self.fail(true_us, "time balances", format!("{side}: main {main} us, ledger says {expected} us"));
            }
        }
    }

    /// While time passes, the running display only counts down and the other
    /// stands still (an hourglass moves what one loses to the other).
    fn check_counting_down(&mut self, true_us: u64, before: &Before, after: &Clock) {
        let Some(runner) = before.running else { return };
        let waiter = runner.opponent();
        let (runner_before, runner_after) = (*before.shown_us.get(runner), after.shown(runner).as_us());
        let (waiter_before, waiter_after) = (*before.shown_us.get(waiter), after.shown(waiter).as_us());
        let same_period = *before.period.get(runner) == after.period(runner);
        if same_period && runner_after > runner_before {
            self.fail(true_us, "time only decreases", format!("{runner}: {runner_before} -> {runner_after} us"));
        }
        // An arbiter's replacement clock keeps the control: the one after is the one before.
        let waiter_gain = match after.control() {
            TimeControl::Hourglass { .. } if after.flag(waiter).is_none() => runner_before.saturating_sub(runner_after),
            _ => 0,
        };
        if same_period && waiter_after != waiter_before + waiter_gain {
            self.fail(
                true_us,
                "waiting display stands still",
                format!("{waiter}: {waiter_before} -> {waiter_after} us"),
            );
        }
    }

    /// A flag falls at exactly the deadline the clock announced. The flag
    /// shown may be of a later period: a stage with no time, opened by
    /// this flag, flags at the same instant.
    fn check_deadline(&mut self, true_us: u64, after: &Clock, deadline: Deadline) {
        if after.settled_at() < deadline.at {
            return;
        }
        if let DeadlineKind::Flag { period } = deadline.kind {
            match after.flag(deadline.side) {
                Some(flag) if flag.at == deadline.at && flag.period >= period => {}
                other => self.fail(
                    true_us,
                    "flag at its deadline",
                    format!(
                        "{} expected at {} us in period {period}, clock shows {other:?}",
                        deadline.side,
                        deadline.at.as_us()
                    ),
                ),
            }
        }
    }

    /// A press: delay never banks; the stage follows the move count.
    fn check_press(&mut self, true_us: u64, before: &Before, after: &Clock, side: Side) {
        let flagged = after.flag(side).is_some();
        if let TimeControl::Stages(stages) = after.control() {
            let period_before = *before.period.get(side);
            let period = usize::try_from(period_before).unwrap_or(usize::MAX);
            let delay_stage = matches!(stages.get(period).map(|stage| stage.bonus), Some(Bonus::Delay(_)));
            let main_before = *before.main_us.get(side);
            let main_after = after.main_time(side).as_us();
            if delay_stage && !flagged && after.period(side) == period_before && main_after > main_before {
                self.fail(true_us, "delay never banks", format!("{side}: main {main_before} -> {main_after} us"));
            }
            let control = after.control();
            let by_count = (0..=control.final_period())
                .take_while(|period| {
                    control.moves_required_by_end_of(*period).is_some_and(|required| after.moves(side) >= required)
                })
                .count();
            let by_count = u32::try_from(by_count).unwrap_or(u32::MAX).min(control.final_period());
            let period = after.period(side);
            if period < by_count && !self.arbiter_touched {
                self.fail(
                    true_us,
                    "stage switches at its count",
                    format!("{side}: stage {period}, count says {by_count}"),
                );
            }
            if period != by_count && !flagged && !self.arbiter_touched {
                self.fail(
                    true_us,
                    "stage switches at its count",
                    format!("{side}: stage {period} without a flag, count says {by_count}"),
                );
            }
        }
    }
}

/// A call the independent model can follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    Start,
    Press(Side),
    /// Time passed up to the call's instant.
    Settle,
    Pause,
    Resume,
    /// 6.14, 13.4: the arbiter adds or takes away time.
    Adjust(Side, TimeAdjustment),
    /// 6.14: the arbiter sets a side's big number.
    SetTime(Side, Duration),
    /// 6.14: the arbiter sets a side's move counter.
    SetMoves(Side, u32),
}

impl Call {
    /// The call behind `op`, when `op` says all of it: an arbiter's
    /// setting does not say which.
    pub fn of(op: Op) -> Option<Call> {
        match op {
            Op::Start => Some(Call::Start),
            Op::Press(side) => Some(Call::Press(side)),
            Op::Settle(_) => Some(Call::Settle),
            Op::Pause => Some(Call::Pause),
            Op::Resume => Some(Call::Resume),
            Op::Arbiter | Op::Finish => None,
        }
    }
}

/// How much of one game the independent model checked: every call the
/// ideal clock accepted, and those the model followed and compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModelCoverage {
    pub calls: u64,
    pub checked: u64,
}

impl ModelCoverage {
    /// Every call of the game was checked (and there was one).
    pub fn whole_game(&self) -> bool {
        self.calls > 0 && self.checked == self.calls
    }
}

/// The independent model's reach over a run, for the report: the ideal
/// clock's calls and how many it checked, and the games played on a chess
/// clock (a postal game has none) and how many it checked from start to end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OracleCoverage {
    pub calls: u64,
    pub calls_checked: u64,
    pub games: u64,
    pub games_checked: u64,
}

impl OracleCoverage {
    pub fn add_game(&mut self, game: &ModelCoverage) {
        self.calls += game.calls;
        self.calls_checked += game.checked;
        if game.calls > 0 {
            self.games += 1;
            self.games_checked += u64::from(game.whole_game());
        }
    }

    pub fn merge(&mut self, other: &OracleCoverage) {
        self.calls += other.calls;
        self.calls_checked += other.calls_checked;
        self.games += other.games;
        self.games_checked += other.games_checked;
    }
}

/// The ideal clock shadowed by the independent model's event reading
/// (`chessclock-tick-model`'s `EventClock`, written from the rules, not
/// from the core): the same calls, arbiter settings included, at any
/// instant; after each, both displays must agree to the microsecond — big
/// number, flag (instant, period, sequence), move counter and period.
#[derive(Debug)]
pub struct ModelOracle {
    /// `None`: switched off, or stopped at its first disagreement (one
    /// violation fails the game; what follows it would repeat it).
    model: Option<EventClock>,
    coverage: ModelCoverage,
    /// The control shows more than the big number: a delay (6.2b), the
    /// byo-yomi periods left or the Canadian moves left, compared too.
    reads_more: bool,
}

impl ModelOracle {
    pub fn new(control: &TimeControl) -> ModelOracle {
        let reads_more = match control {
            TimeControl::Stages(stages) => stages.as_slice().iter().any(|stage| matches!(stage.bonus, Bonus::Delay(_))),
            TimeControl::ByoYomi { .. } | TimeControl::Canadian { .. } => true,
            TimeControl::Hourglass { .. } => false,
        };
        ModelOracle { model: Some(EventClock::new(control)), coverage: ModelCoverage::default(), reads_more }
    }

    /// No shadowing at all (`--no-model-oracle`: the bare simulator).
    pub fn disabled() -> ModelOracle {
        ModelOracle { model: None, coverage: ModelCoverage::default(), reads_more: false }
    }

    pub fn is_active(&self) -> bool {
        self.model.is_some()
    }

    /// The model as it follows the game (`None`: switched off or stopped).
    pub fn model(&self) -> Option<&EventClock> {
        self.model.as_ref()
    }

    pub fn coverage(&self) -> ModelCoverage {
        self.coverage
    }

    /// Mirrors `call` (`None`: one the model cannot follow) at `at`, and
    /// compares with `clock`, which has just accepted it.
    #[inline]
    pub fn follow(
        &mut self,
        true_us: u64,
        call: Option<Call>,
        at: Instant,
        clock: &Clock,
        account: &Account,
        violations: &mut Vec<Violation>,
    ) {
        self.coverage.calls += 1;
        let Some(model) = self.model.as_mut() else { return };
        let Some(call) = call else {
            self.model = None;
            return;
        };
        let result = match call {
            Call::Start => model.start(at),
            Call::Press(side) => model.press(side, at),
            Call::Pause => model.pause(at),
            Call::Resume => model.resume(at),
            Call::Settle => model.run_until(at),
            Call::Adjust(side, adjustment) => model.adjust_time(side, adjustment, at),
            Call::SetTime(side, time) => model.set_time(side, time, at),
            Call::SetMoves(side, moves) => model.set_moves(side, moves, at),
        };
        let disagreement = match result {
            Ok(()) if matches!(call, Call::Press(_)) => {
                move_disagreement(model, account).or_else(|| compare(model, clock, at, self.reads_more))
            }
            Ok(()) => compare(model, clock, at, self.reads_more),
            Err(error) => Some(format!("the model refused {call:?}: {error:?}")),
        };
        match disagreement {
            None => self.coverage.checked += 1,
            Some(detail) => {
                violations.push(Violation {
                    at_us: true_us,
                    clock: "ideal",
                    check: "independent model agrees",
                    detail,
                });
                self.model = None;
            }
        }
    }
}

/// 6.11: the replacement clock shows what the arbiter set. The
/// independent model, built the same way (started at `at`, Black's turn
/// handed over when `black_runs`, then given `settings`), must agree with
/// `clock` in everything it shows; `None` when it does.
pub fn replacement_disagrees(clock: &Clock, settings: &Replacement, black_runs: bool, at: Instant) -> Option<String> {
    let mut model = EventClock::new(clock.control());
    let built = model
        .start(at)
        .and_then(|()| if black_runs { model.press(Side::White, at) } else { Ok(()) })
        .and_then(|()| model.replace(settings, at));
    match built {
        Ok(()) => compare(&model, clock, at, true),
        Err(error) => Some(format!("the model refused the replacement {settings:?}: {error:?}")),
    }
}

/// How a refusal's `message` fails to say why, if it does: it says
/// nothing, or leaves out one of `words` (a side, an article, a number).
pub fn refusal_fault(error: &impl core::fmt::Debug, message: &str, words: &[String]) -> Option<String> {
    let missing: Vec<&String> = words.iter().filter(|word| !message.contains(word.as_str())).collect();
    (message.trim().is_empty() || !missing.is_empty())
        .then(|| format!("the refusal {error:?} says {message:?}, which does not name {missing:?}"))
}

/// What the model and the core show after a call, side by side; `None`
/// when they agree. The rest of a reading (the delay of 6.2b, byo-yomi
/// periods left, Canadian moves left) is read only when `reads_more`;
/// which flag fell first (6.3) only when both show one.
#[inline]
pub fn compare(model: &EventClock, clock: &Clock, at: Instant, reads_more: bool) -> Option<String> {
    if clock.settled_at() != model.now() {
        return Some(format!("the core's time is {:?}, the model's {:?}", clock.settled_at(), model.now()));
    }
    for side in Side::BOTH {
        let core_flag = clock.flag(side).map(|flag| (flag.at, flag.period, flag.sequence));
        let model_flag = model.flag(side).map(|flag| (flag.at, flag.period, flag.sequence));
        if clock.remaining(side, at).ok() != Some(model.shown(side))
            || clock.shown(side) != model.shown(side)
            || core_flag != model_flag
            || clock.moves(side) != model.moves(side)
            || clock.period(side) != model.period(side)
            || clock.period_moves(side) != model.period_moves(side)
            || (reads_more && !reading_agrees(model, clock, side, at))
        {
            return Some(disagreement(side, model, clock, at));
        }
    }
    if let (Some(white), Some(black)) = (model.flag(Side::White), model.flag(Side::Black)) {
        let first = if white.sequence < black.sequence { Side::White } else { Side::Black };
        let core_first = clock.first_flag().map(|flag| flag.side);
        if core_first != Some(first) {
            return Some(format!(
                "both flags shown: the core shows {core_first:?}'s as the first, the model {first}'s"
            ));
        }
    }
    None
}

/// A press: the per-move rules the core says it applied (its transitions)
/// are those the model applied; `None` when they are.
#[inline]
pub fn move_disagreement(model: &EventClock, account: &Account) -> Option<String> {
    let done = model.last_move();
    let said = [
        (Transition::Increment, u32::from(done.increment)),
        (Transition::DelayUnused, u32::from(done.delay_unused)),
        (Transition::BronsteinWholeMove, u32::from(done.bronstein_whole_move)),
        (Transition::BronsteinCapped, u32::from(done.bronstein_capped)),
        (Transition::StageByMoves, done.stages_by_moves),
        (Transition::ByoYomiPeriodRenewed, u32::from(done.byo_yomi_renewed)),
        (Transition::CanadianBlockReset, u32::from(done.canadian_reset)),
        (Transition::HourglassTransfer, u32::from(done.hourglass_transfer)),
    ];
    let differs = said.iter().any(|&(transition, times)| account.in_call(transition) != times);
    differs.then(|| {
        let told: Vec<(&str, u32)> = said.iter().map(|&(kind, _)| (kind.key(), account.in_call(kind))).collect();
        format!("the press applied {told:?} by the core's account, the model applied {done:?}")
    })
}

/// The parts of a reading beyond the big number, flag, moves and period.
fn reading_agrees(model: &EventClock, clock: &Clock, side: Side, at: Instant) -> bool {
    clock.reading(side, at).is_ok_and(|reading| {
        reading.delay == model.delay_shown(side)
            && reading.periods_left == model.periods_left(side)
            && reading.period_moves_left == model.period_moves_left(side)
    })
}

#[cold]
fn disagreement(side: Side, model: &EventClock, clock: &Clock, at: Instant) -> String {
    format!(
        "{side} at {} us: core shows {:?} us ({} us as of its latest call), flag {:?}, {} moves, period {} ({} moves \
         in it), reading {:?}; the model {:?} us, flag {:?}, {} moves, period {} ({} moves in it), delay {} us, periods \
         left {}, period moves left {}",
        at.as_us(),
        clock.remaining(side, at).map(|time| time.as_us()),
        clock.shown(side).as_us(),
        clock.flag(side).map(|flag| (flag.at.as_us(), flag.period, flag.sequence)),
        clock.moves(side),
        clock.period(side),
        clock.period_moves(side),
        clock.reading(side, at),
        model.shown(side).as_us(),
        model.flag(side).map(|flag| (flag.at.as_us(), flag.period, flag.sequence)),
        model.moves(side),
        model.period(side),
        model.period_moves(side),
        model.delay_shown(side).as_us(),
        model.periods_left(side),
        model.period_moves_left(side),
    )
}

#[cfg(test)]
mod tests {
    use chessclock::notation::parse;

    use super::*;

    /// The account check reads a period change's cause from the call
    /// itself, not from the clock's own account: a clock whose stage ends
    /// by its moves (6.2b) but says "period lost" is caught; one that says
    /// "moves completed" is not.
    #[test]
    fn a_stage_change_told_with_the_wrong_cause_is_caught() {
        let control = parse("2/60:30").expect("a valid control");
        let mut clock = Clock::new(control);
        let second = |n: u64| Instant::from_us(n * 1_000_000);
        clock.start(second(0)).expect("starts");
        for (side, at) in [(Side::White, 1), (Side::Black, 2)] {
            clock.press(side, second(at)).expect("a move");
        }
        let before = Before::of(&clock);
        clock.press(Side::White, second(3)).expect("White's second move ends the stage");
        assert_eq!(clock.period(Side::White), 1, "the stage changed");
        for (cause, caught) in [(PeriodCause::MovesCompleted, false), (PeriodCause::PeriodLost, true)] {
            let mut account = Account::default();
            account.begin_call();
            account.note(TransitionEvent {
                transition: Transition::StageByMoves,
                period_from: 0,
                period_to: 1,
                cause: Some(cause),
                at: second(3),
                ..event(Transition::Press)
            });
            let mut oracle = ClockOracle::new("test");
            oracle.check_account(3_000_000, &before, &clock, Op::Press(Side::White), &account);
            assert_eq!(!oracle.violations().is_empty(), caught, "{cause:?}: {:?}", oracle.violations());
        }
    }

    fn event(transition: Transition) -> TransitionEvent {
        TransitionEvent {
            transition,
            side: Side::White,
            at: Instant::from_us(1_000_000),
            period_from: 0,
            period_to: 0,
            cause: None,
            flag: None,
        }
    }

    /// A Bronstein move shorter than the bonus gives back its whole time
    /// (6.2): an account that says "capped" is reported, the right one not.
    #[test]
    fn a_press_must_apply_the_per_move_rule_the_model_applies() {
        let control = parse("300+b3").expect("a valid control");
        let mut model = EventClock::new(&control);
        model.start(Instant::from_us(0)).expect("starts");
        model.press(Side::White, Instant::from_us(1_000_000)).expect("White moves");
        let mut account = Account::default();
        account.begin_call();
        account.note(event(Transition::Press));
        account.note(event(Transition::BronsteinCapped));
        assert!(move_disagreement(&model, &account).is_some());
        account.begin_call();
        account.note(event(Transition::Press));
        account.note(event(Transition::BronsteinWholeMove));
        assert_eq!(move_disagreement(&model, &account), None);
        // Counted for the game, not only the call.
        assert_eq!(account.tally[Transition::BronsteinWholeMove as usize], 1);
        assert_eq!(account.in_call(Transition::BronsteinCapped), 0);
    }
}
