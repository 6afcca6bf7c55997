//! Properties of the clock over random call sequences, for every kind of
//! time control. Each property states an invariant of the clock; the call
//! sequences include wrong calls (wrong side, time going backwards, resume
//! while running, …) that must be rejected without any change.

use chessclock::{
    Bonus, BySide, Changes, Clock, ClockError, DeadlineKind, Duration, Instant, Noting, Phase, Replacement, Side,
    Stage, TimeAdjustment, TimeControl, Transition, TransitionEvent, TransitionSink, TRANSITIONS_MAX,
};
use proptest::prelude::*;

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

fn bonus() -> impl Strategy<Value = Bonus> {
    prop_oneof![
        Just(Bonus::None),
        (0u64..3_000).prop_map(|us| Bonus::Increment(ms(us))),
        (0u64..3_000).prop_map(|us| Bonus::Delay(ms(us))),
        (0u64..3_000).prop_map(|us| Bonus::Bronstein(ms(us))),
    ]
}

fn staged() -> impl Strategy<Value = TimeControl> {
    prop::collection::vec((1u32..5, 0u64..5_000, bonus()), 1..=4).prop_map(|stages| {
        let last = stages.len() - 1;
        let stages: Vec<Stage> = stages
            .into_iter()
            .enumerate()
            .map(|(index, (moves, time_ms, bonus))| {
                if index == last {
                    Stage::rest_of_game(ms(time_ms), bonus)
                } else {
                    Stage::moves(moves, ms(time_ms), bonus)
                }
            })
            .collect();
        TimeControl::stages(&stages).unwrap()
    })
}

fn control() -> impl Strategy<Value = TimeControl> {
    prop_oneof![
        staged(),
        (0u64..8_000).prop_map(|time| TimeControl::hourglass(ms(time)).unwrap()),
        (0u64..3_000, 1u32..4, 1u64..2_000).prop_map(|(main, periods, period)| TimeControl::byo_yomi(
            ms(main),
            periods,
            ms(period)
        )
        .unwrap()),
        (0u64..3_000, 1u32..4, 1u64..3_000).prop_map(|(main, moves, period)| TimeControl::canadian(
            ms(main),
            moves,
            ms(period)
        )
        .unwrap()),
    ]
}

/// One call to the clock, `gap_us` after the previous one (`back` makes it
/// earlier instead, which must be rejected).
#[derive(Clone, Debug)]
enum Call {
    Start,
    Press(Side),
    PressRunning,
    Settle,
    Pause,
    Resume,
    Add(Side, u64),
    Subtract(Side, u64),
    SetMoves(Side, u32),
    SetTime(Side, u64),
    Replace(Replacement),
    Finish,
}

#[derive(Clone, Debug)]
struct Step {
    call: Call,
    gap_us: u64,
    back: bool,
}

fn side() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::White), Just(Side::Black)]
}

/// A replacement clock's settings; a period the control lacks is refused.
fn replacement() -> impl Strategy<Value = Replacement> {
    let side = (0u64..3_000_000, 0u32..12, 0u32..4, 0u32..3);
    (side.clone(), side).prop_map(|(white, black)| Replacement {
        main: BySide::new(Duration::from_us(white.0), Duration::from_us(black.0)),
        moves: BySide::new(white.1, black.1),
        period: BySide::new(white.2, black.2),
        period_moves: BySide::new(white.3, black.3),
    })
}

fn step() -> impl Strategy<Value = Step> {
    let call = prop_oneof![
        1 => Just(Call::Start),
        12 => Just(Call::PressRunning),
        2 => side().prop_map(Call::Press),
        3 => Just(Call::Settle),
        1 => Just(Call::Pause),
        1 => Just(Call::Resume),
        1 => (side(), 0u64..2_000_000).prop_map(|(side, us)| Call::Add(side, us)),
        1 => (side(), 0u64..2_000_000).prop_map(|(side, us)| Call::Subtract(side, us)),
        1 => (side(), 0u32..12).prop_map(|(side, moves)| Call::SetMoves(side, moves)),
        1 => (side(), 0u64..2_000_000).prop_map(|(side, us)| Call::SetTime(side, us)),
        1 => replacement().prop_map(Call::Replace),
    ];
    let finish = prop_oneof![50 => Just(false), 1 => Just(true)];
    (call, finish, 0u64..1_500_000, prop::bool::weighted(0.03)).prop_map(|(call, finish, gap_us, back)| Step {
        call: if finish { Call::Finish } else { call },
        gap_us,
        back,
    })
}

fn game() -> impl Strategy<Value = (TimeControl, Vec<Step>)> {
    (control(), prop::collection::vec(step(), 1..80))
}

/// Applies `step` at `at` and returns the result.
fn apply(clock: &mut Clock, step: &Step, at: Instant) -> Result<(), ClockError> {
    let running = clock.running();
    apply_noting(&mut clock.noting(&mut ()), running, step, at)
}

/// Applies `step` at `at` through a clock that hands its transitions to a
/// sink; `running` is the side running before it.
fn apply_noting<S: TransitionSink>(
    clock: &mut Noting<'_, S>,
    running: Option<Side>,
    step: &Step,
    at: Instant,
) -> Result<(), ClockError> {
    match step.call {
        Call::Start => clock.start(at),
        Call::Press(side) => clock.press(side, at),
        Call::PressRunning => clock.press(running.unwrap_or(Side::White), at),
        Call::Settle => clock.settle(at),
        Call::Pause => clock.pause(at),
        Call::Resume => clock.resume(at),
        Call::Add(side, us) => clock.adjust_time(side, TimeAdjustment::Add(Duration::from_us(us)), at),
        Call::Subtract(side, us) => clock.adjust_time(side, TimeAdjustment::Subtract(Duration::from_us(us)), at),
        Call::SetMoves(side, moves) => clock.set_moves(side, moves, at),
        Call::SetTime(side, us) => clock.set_time(side, Duration::from_us(us), at),
        Call::Replace(settings) => clock.replace(settings, at),
        Call::Finish => clock.finish(at),
    }
}

/// When `step` calls: `gap_us` after `now`, or before it when it goes back.
fn step_instant(now: Instant, step: &Step) -> Instant {
    if step.back {
        Instant::from_us(now.as_us().saturating_sub(step.gap_us.max(1)))
    } else {
        now.after(Duration::from_us(step.gap_us))
    }
}

/// Walks a game, handing each successful call's before/after to `check`.
fn walk(control: TimeControl, steps: &[Step], mut check: impl FnMut(&Clock, &Step, &Clock, Instant)) {
    let mut clock = Clock::new(control);
    let mut now = Instant::from_us(1_000_000);
    for step in steps {
        let at = step_instant(now, step);
        let before = clock;
        match apply(&mut clock, step, at) {
            Ok(()) => {
                now = at;
                check(&before, step, &clock, at);
            }
            Err(_) => assert_eq!(clock, before, "a rejected {step:?} changed the clock"),
        }
    }
}

/// Every transition a call hands on, in order.
#[derive(Default)]
struct Log(Vec<TransitionEvent>);

impl TransitionSink for Log {
    fn note(&mut self, event: TransitionEvent) {
        self.0.push(event);
    }
}

/// Walks a game with every call handing its transitions to a fresh [`Log`]
/// and a running [`Changes`]; `check` gets each call's before and after,
/// whether it succeeded, and what the call handed on.
fn walk_noting(control: TimeControl, steps: &[Step], mut check: impl FnMut(&Clock, &Clock, bool, &Log, Changes)) {
    let mut clock = Clock::new(control);
    let mut now = Instant::from_us(1_000_000);
    for step in steps {
        let at = step_instant(now, step);
        let before = clock;
        let mut log = Log::default();
        let running = clock.running();
        let result = apply_noting(&mut clock.noting(&mut log), running, step, at);
        let mut changes = Changes::NONE;
        let mut again = before;
        let again_result = apply_noting(&mut again.noting(&mut changes), running, step, at);
        assert_eq!((again, again_result.is_ok()), (clock, result.is_ok()), "a sink changed what {step:?} did");
        if result.is_ok() {
            now = at;
        }
        check(&before, &clock, result.is_ok(), &log, changes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// The transitions a call hands on tell everything it changed, so no
    /// caller needs to compare states: one per count (a refused call hands
    /// none), in time order within the call, each period change continuing
    /// from the last, ending on the display's period, every new flag
    /// handed on, and a cause exactly when the period changed. `Changes`
    /// sums them up as the state would say.
    #[test]
    fn transitions_handed_on_tell_what_a_call_changed((control, steps) in game()) {
        walk_noting(control, &steps, |before, after, ok, log, changes| {
            if !ok {
                assert!(log.0.is_empty(), "a refused call handed on {:?}", log.0);
                assert_eq!(changes, Changes::NONE);
                return;
            }
            assert!(log.0.len() <= TRANSITIONS_MAX);
            for transition in Transition::ALL {
                let counted = after.transitions().count(transition) - before.transitions().count(transition);
                let handed = log.0.iter().filter(|event| event.transition == transition).count();
                // A replacement sets both displays: one per display, counted once.
                let per_count = if transition == Transition::Replacement { 2 } else { 1 };
                assert_eq!(handed, per_count * counted as usize, "{}", transition.key());
            }
            let mut last_at = before.settled_at();
            for event in &log.0 {
                assert!(last_at <= event.at && event.at <= after.settled_at(), "{event:?} out of order");
                last_at = event.at;
                assert_eq!(event.cause.is_some(), event.period_from != event.period_to, "{event:?}");
                let flag_rule = matches!(event.transition, Transition::FlagFinal | Transition::FlagEarlierStage);
                assert_eq!(event.flag.is_some(), flag_rule, "{event:?}");
            }
            for side in Side::BOTH {
                let mut period = before.period(side);
                for event in log.0.iter().filter(|event| event.side == side) {
                    assert_eq!(event.period_from, period, "{event:?} does not continue from period {period}");
                    period = event.period_to;
                }
                assert_eq!(period, after.period(side), "{side}: the transitions end elsewhere than the display");
                let last_flag = log.0.iter().rev().find_map(|event| event.flag.filter(|flag| flag.side == side));
                let new_flag = after.flag(side).filter(|flag| Some(*flag) != before.flag(side));
                if new_flag.is_some() {
                    assert_eq!(last_flag, new_flag, "{side}: a new flag not handed on");
                }
                assert_eq!(changes.flag(side), last_flag);
                let period_change = changes.period(side).map(|change| (change.from, change.to));
                let state_change = (before.period(side) != after.period(side))
                    .then_some((before.period(side), after.period(side)));
                assert_eq!(period_change, state_change, "{side}");
            }
        });
    }

    /// Errors never change state (checked inside `walk`), and the phase is
    /// what the calls made it: exactly one display runs once started and
    /// not paused.
    #[test]
    fn errors_change_nothing_and_one_display_runs((control, steps) in game()) {
        walk(control, &steps, |before, step, after, _| {
            match (&step.call, after.phase()) {
                (Call::Start, phase) => assert_eq!(phase, Phase::Running(Side::White)),
                (Call::Press(_) | Call::PressRunning, Phase::Running(side)) => {
                    assert_eq!(Some(side.opponent()), before.running());
                }
                (Call::Pause, phase) => assert!(matches!(phase, Phase::Paused(_))),
                (Call::Resume, phase) => assert!(matches!(phase, Phase::Running(_))),
                (Call::Finish, phase) => assert_eq!(phase, Phase::Finished),
                (Call::Press(_) | Call::PressRunning, phase) => panic!("after a press the phase is {phase:?}"),
                (_, phase) => assert_eq!(phase, before.phase()),
            }
        });
    }

    /// Between calls, the running display only counts down and the other
    /// one stands still (in an hourglass it gains what the runner loses).
    /// The one exception is a new period beginning: the next stage's time
    /// after a stage flag, or a fresh overtime period.
    #[test]
    fn time_only_decreases_while_running((control, steps) in game(), probes in prop::collection::vec(0u64..3_000_000, 1..6)) {
        walk(control, &steps, |_, _, clock, at| {
            let Some(runner) = clock.running() else { return };
            let waiter = runner.opponent();
            let look = |probe_at| {
                let reading = clock.reading(runner, probe_at).unwrap();
                (clock.remaining(runner, probe_at).unwrap(), clock.remaining(waiter, probe_at).unwrap(), reading.period)
            };
            let mut previous = look(at);
            let mut probe_at = at;
            for gap in &probes {
                probe_at = probe_at.after(Duration::from_us(*gap));
                let now = look(probe_at);
                if now.2 == previous.2 {
                    assert!(now.0 <= previous.0, "running display went up: {previous:?} -> {now:?}");
                }
                match clock.control() {
                    TimeControl::Hourglass { .. } => {
                        let runner_loss = previous.0.as_us() - now.0.as_us();
                        let waiter_flagged = clock.reading(waiter, probe_at).unwrap().flag.is_some();
                        assert_eq!(now.1.as_us() - previous.1.as_us(), if waiter_flagged { 0 } else { runner_loss });
                    }
                    _ => assert_eq!(now.1, previous.1, "waiting display changed"),
                }
                previous = now;
            }
        });
    }

    /// Looking ahead never differs from getting there: `remaining` and
    /// `reading` at a later instant (answered by shortcuts when nothing
    /// happens before then) equal what a copy settled to that instant shows.
    #[test]
    fn queries_ahead_match_a_settled_copy((control, steps) in game(), probes in prop::collection::vec(0u64..4_000_000, 1..6)) {
        walk(control, &steps, |_, _, clock, at| {
            // Random instants ahead, and the edges of the next transition.
            let mut probe_ats: Vec<Instant> = probes
                .iter()
                .scan(at, |probe_at, gap| {
                    *probe_at = probe_at.after(Duration::from_us(*gap));
                    Some(*probe_at)
                })
                .collect();
            if let Some(deadline) = clock.next_deadline() {
                probe_ats.extend([deadline.at, deadline.at.after(Duration::from_us(1))]);
                if deadline.at > at {
                    probe_ats.push(Instant::from_us(deadline.at.as_us() - 1));
                }
            }
            for probe_at in probe_ats {
                let mut settled = *clock;
                settled.settle(probe_at).unwrap();
                for side in Side::BOTH {
                    assert_eq!(
                        clock.remaining(side, probe_at).unwrap(),
                        settled.remaining(side, probe_at).unwrap(),
                        "{side} remaining at {probe_at:?}"
                    );
                    assert_eq!(clock.reading(side, probe_at).unwrap(), settled.reading(side, probe_at).unwrap());
                    assert_eq!(settled.main_time(side), settled.reading(side, probe_at).unwrap().main);
                    assert_eq!(settled.shown(side), settled.remaining(side, probe_at).unwrap());
                }
            }
        });
    }

    /// Flags fall at exactly `next_deadline`: not a microsecond earlier.
    #[test]
    fn flags_fall_exactly_at_the_deadline((control, steps) in game()) {
        walk(control, &steps, |_, _, clock, _| {
            let Some(deadline) = clock.next_deadline() else { return };
            let side = deadline.side;
            if deadline.at > clock.settled_at() {
                let mut just_before = *clock;
                just_before.settle(Instant::from_us(deadline.at.as_us() - 1)).unwrap();
                assert_eq!(just_before.flag(side), clock.flag(side), "flag before its deadline");
                assert_eq!(just_before.period(side), clock.period(side), "transition before its deadline");
            }
            let mut at_deadline = *clock;
            at_deadline.settle(deadline.at).unwrap();
            match deadline.kind {
                DeadlineKind::Flag { period } => {
                    // A non-final stage's flag opens the next stage; one with
                    // no time in it flags at the same instant, and the clock
                    // shows the latest flag of the chain.
                    let flag = at_deadline.flag(side).expect("the flag fell at its deadline");
                    assert_eq!(flag.at, deadline.at);
                    assert!(flag.period >= period, "flag in period {} for a deadline in {period}", flag.period);
                    if let TimeControl::Stages(stages) = at_deadline.control() {
                        for opened in period + 1..=flag.period {
                            let time = stages.as_slice()[opened as usize].time;
                            assert_eq!(time, Duration::ZERO, "stage {opened} had time but flagged at once");
                        }
                    }
                }
                DeadlineKind::DelayEnds => {
                    assert_eq!(at_deadline.reading(side, deadline.at).unwrap().delay, Duration::ZERO);
                    if at_deadline.period(side) == clock.period(side) {
                        let before = clock.remaining(side, clock.settled_at()).unwrap();
                        assert_eq!(at_deadline.remaining(side, deadline.at).unwrap(), before, "the delay charged main time");
                    }
                }
                DeadlineKind::OvertimeBegins | DeadlineKind::PeriodLost { .. } => {
                    assert!(at_deadline.period(side) >= 1);
                    // A chain of transitions may complete at the same instant
                    // (an exhausted period right after main time): any new
                    // flag is still exactly at the deadline.
                    if at_deadline.flag(side) != clock.flag(side) {
                        assert_eq!(at_deadline.flag(side).map(|flag| flag.at), Some(deadline.at));
                    }
                }
            }
        });
    }

    /// The ledger balances: every microsecond a display ran went somewhere,
    /// and the main time is what was credited minus what was charged.
    #[test]
    fn time_balances((control, steps) in game()) {
        walk(control, &steps, |_, _, clock, _| {
            for side in Side::BOTH {
                let ledger = clock.ledger(side);
                let spent = ledger.charged.as_us() + ledger.delay_used.as_us() + ledger.overtime_used.as_us() + ledger.after_flag.as_us();
                assert_eq!(ledger.elapsed.as_us(), spent);
                let main = clock.reading(side, clock.settled_at()).unwrap().main;
                assert_eq!(
                    i128::from(main.as_us()),
                    i128::from(ledger.credited.as_us()) + i128::from(ledger.arbiter_added.as_us())
                        - i128::from(ledger.arbiter_removed.as_us()) - i128::from(ledger.charged.as_us()),
                );
            }
        });
    }

    /// The same balance computed from outside: with no arbiter calls, a
    /// Fischer control's display shows initial + stage times + increments
    /// minus the running time the calls themselves imply.
    #[test]
    fn fischer_display_matches_externally_counted_time(
        increment_ms in 0u64..2_000,
        initial_ms in 1u64..20_000,
        thinks in prop::collection::vec(0u64..3_000_000, 1..60),
    ) {
        let control = TimeControl::sudden_death(ms(initial_ms), Bonus::Increment(ms(increment_ms))).unwrap();
        let mut clock = Clock::new(control);
        clock.start(Instant::EPOCH).unwrap();
        let mut now = Instant::EPOCH;
        let mut used_us = [0u64; 2];
        let mut moves = [0u64; 2];
        for think in thinks {
            let side = clock.running().unwrap();
            let index = if side == Side::White { 0 } else { 1 };
            now = now.after(Duration::from_us(think));
            clock.press(side, now).unwrap();
            used_us[index] += think;
            moves[index] += 1;
            for (index, side) in Side::BOTH.into_iter().enumerate() {
                let expected = (initial_ms * 1_000 + moves[index] * increment_ms * 1_000) as i128 - used_us[index] as i128;
                let shown = clock.remaining(side, now).unwrap().as_us() as i128;
                match clock.flag(side) {
                    None => prop_assert_eq!(shown, expected),
                    Some(flag) => {
                        prop_assert_eq!(shown, 0);
                        prop_assert!(flag.at <= now);
                    }
                }
            }
        }
    }

    /// Time-delay mode never banks: a move never ends with more main time
    /// than it started with, and each move starts with the full delay.
    #[test]
    fn delay_never_banks(delay_ms in 0u64..3_000, initial_ms in 0u64..10_000, thinks in prop::collection::vec(0u64..4_000_000, 1..40)) {
        let delay = ms(delay_ms);
        let mut clock = Clock::new(TimeControl::sudden_death(ms(initial_ms), Bonus::Delay(delay)).unwrap());
        clock.start(Instant::EPOCH).unwrap();
        let mut now = Instant::EPOCH;
        for think in thinks {
            let side = clock.running().unwrap();
            let reading = clock.reading(side, now).unwrap();
            if reading.flag.is_none() {
                prop_assert_eq!(reading.delay, delay);
            }
            let main_before = reading.main;
            now = now.after(Duration::from_us(think));
            clock.press(side, now).unwrap();
            let main_after = clock.remaining(side, now).unwrap();
            prop_assert!(main_after <= main_before);
            prop_assert_eq!(main_after, main_before.saturating_sub(Duration::from_us(think).saturating_sub(delay)));
        }
    }

    /// Stages switch when the player completes the stage's move count, or
    /// when the stage's time runs out (the flag opens the next stage); never
    /// otherwise.
    #[test]
    fn stage_switches_at_the_right_count(control in staged(), thinks in prop::collection::vec(0u64..3_000_000, 1..40)) {
        let mut clock = Clock::new(control);
        clock.start(Instant::EPOCH).unwrap();
        let mut now = Instant::EPOCH;
        for think in thinks {
            let side = clock.running().unwrap();
            let before = clock;
            now = now.after(Duration::from_us(think));
            clock.press(side, now).unwrap();
            let control = clock.control();
            let by_count = (0..=control.final_period())
                .take_while(|period| control.moves_required_by_end_of(*period).is_some_and(|required| clock.moves(side) >= required))
                .count() as u32;
            let period = clock.period(side);
            prop_assert!(period >= before.period(side));
            prop_assert!(period >= by_count.min(control.final_period()), "stage {period} behind the count {by_count}");
            if clock.flag(side).is_none() {
                prop_assert_eq!(period, by_count.min(control.final_period()));
            } else {
                prop_assert!(period <= control.final_period());
            }
            // The opponent's stage moves only by a flag that fell the instant
            // its clock started: a stage with no time left in it.
            let opponent = side.opponent();
            if clock.period(opponent) != before.period(opponent) {
                prop_assert!(clock.period(opponent) > before.period(opponent));
                let flag = clock.flag(opponent);
                prop_assert!(flag.is_some_and(|flag| flag.at == now), "the waiting player's stage moved: {flag:?}");
            }
        }
    }
}

/// A stage with no time in it flags the player whose clock starts in it at
/// once, and (not the final stage) opens the next stage at that instant.
#[test]
fn a_stage_without_time_flags_its_player_as_the_clock_starts() {
    let control = chessclock::notation::parse("1/0:60").expect("one move in no time, then a minute");
    let mut clock = Clock::new(control);
    clock.start(Instant::EPOCH).unwrap();
    assert_eq!(clock.flag(Side::White).map(|flag| (flag.at, flag.period)), Some((Instant::EPOCH, 0)));
    assert_eq!(clock.period(Side::White), 1, "the flag opened the next stage");
    clock.press(Side::White, Instant::EPOCH).unwrap();
    assert_eq!(clock.flag(Side::Black).map(|flag| (flag.at, flag.period, flag.sequence)), Some((Instant::EPOCH, 0, 2)));
    assert_eq!(clock.period(Side::Black), 1);
}

/// A display is read no earlier than the clock's latest call: an earlier
/// instant is refused on either display, the running one included, rather
/// than answered from a projection backwards.
#[test]
fn a_reading_before_the_latest_call_is_refused_on_either_display() {
    let mut clock = Clock::new(TimeControl::sudden_death(Duration::from_secs(60), Bonus::None).unwrap());
    clock.start(Instant::EPOCH).unwrap();
    clock.press(Side::White, Instant::from_us(5_000_000)).unwrap();
    let earlier = Instant::from_us(4_000_000);
    for side in [Side::White, Side::Black] {
        let went_backwards =
            |result: Result<(), ClockError>| matches!(result, Err(ClockError::TimeWentBackwards { .. }));
        assert!(went_backwards(clock.remaining(side, earlier).map(|_| ())), "{side:?}: remaining");
        assert!(went_backwards(clock.reading(side, earlier).map(|_| ())), "{side:?}: reading");
    }
}
