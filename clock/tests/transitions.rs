//! Rule coverage: each transition is counted where its article applies, and
//! only there. Test names cite the article.

mod support;

use chessclock::notation::parse;
use chessclock::{
    BySide, Changes, Clock, Duration, Instant, PeriodCause, PeriodChange, Replacement, TimeAdjustment, TimeControl,
    Transition, TransitionEvent, TransitionSink, PERIODS_MAX, TRANSITIONS_MAX,
};
use support::{at_ms, at_s, secs, started, Side::Black, Side::White};

fn clock(control: &str) -> Clock {
    started(parse(control).unwrap())
}

fn count(clock: &Clock, transition: Transition) -> u32 {
    clock.transitions().count(transition)
}

/// Only the listed transitions happened, with these counts.
fn assert_counts(clock: &Clock, expected: &[(Transition, u32)]) {
    for (transition, counted) in clock.transitions().iter() {
        let wanted = expected.iter().find(|(listed, _)| *listed == transition).map_or(0, |(_, count)| *count);
        assert_eq!(counted, wanted, "{} ({})", transition.key(), transition.article());
    }
}

#[test]
fn a6_5_and_a6_8a_start_and_presses_are_counted() {
    let mut clock = clock("60");
    clock.press(White, at_s(1)).unwrap();
    clock.press(Black, at_s(2)).unwrap();
    // A refused press (not the running side) is no transition.
    assert!(clock.press(Black, at_s(3)).is_err());
    assert_counts(&clock, &[(Transition::Start, 1), (Transition::Press, 2)]);
}

#[test]
fn a6_2_fischer_increment_counted_per_move() {
    let mut clock = clock("60+2");
    clock.press(White, at_s(1)).unwrap();
    clock.press(Black, at_s(2)).unwrap();
    assert_counts(&clock, &[(Transition::Start, 1), (Transition::Press, 2), (Transition::Increment, 2)]);
}

#[test]
fn a6_2b_delay_unused_and_used_up_are_told_apart() {
    let mut clock = clock("60+d5");
    clock.press(White, at_s(3)).unwrap(); // within the delay
    clock.press(Black, at_s(10)).unwrap(); // 7 s: the delay ran out first
    assert_counts(
        &clock,
        &[(Transition::Start, 1), (Transition::Press, 2), (Transition::DelayUnused, 1), (Transition::DelayUsedUp, 1)],
    );
}

#[test]
fn a6_2_bronstein_whole_move_and_capped_are_told_apart() {
    let mut clock = clock("60+b3");
    clock.press(White, at_s(2)).unwrap(); // 2 s ≤ 3 s: all of it back
    clock.press(Black, at_s(7)).unwrap(); // 5 s > 3 s: 3 s back
    assert_eq!(count(&clock, Transition::BronsteinWholeMove), 1);
    assert_eq!(count(&clock, Transition::BronsteinCapped), 1);
}

#[test]
fn a6_2b_stage_switch_by_move_count() {
    let mut clock = clock("2/60:30");
    for (second, side) in [(1, White), (2, Black), (3, White)] {
        clock.press(side, at_s(second)).unwrap();
    }
    assert_eq!(count(&clock, Transition::StageByMoves), 1, "White's second move completes the stage");
    assert_eq!(count(&clock, Transition::FlagEarlierStage), 0);
}

#[test]
fn a6_12a_flag_in_an_earlier_stage_then_a6_3_final_flag() {
    let mut clock = clock("2/10:5");
    clock.settle(at_s(10)).unwrap();
    assert_eq!(count(&clock, Transition::FlagEarlierStage), 1);
    assert_eq!(count(&clock, Transition::FlagFinal), 0);
    clock.settle(at_s(15)).unwrap();
    assert_eq!(count(&clock, Transition::FlagFinal), 1);
    assert_eq!(count(&clock, Transition::BothFlags), 0, "Black has no flag");
}

#[test]
fn a6_12_a_flag_while_the_opponents_flag_is_shown() {
    let mut clock = clock("2/10:5");
    clock.settle(at_s(10)).unwrap(); // White's stage-one flag
    clock.press(White, at_ms(10_500)).unwrap();
    clock.settle(at_ms(20_499)).unwrap();
    assert_eq!(count(&clock, Transition::BothFlags), 0);
    clock.settle(at_ms(20_500)).unwrap(); // Black's stage-one flag
    assert_eq!(count(&clock, Transition::FlagEarlierStage), 2);
    assert_eq!(count(&clock, Transition::BothFlags), 1);
}

#[test]
fn a6_2_byo_yomi_overtime_period_renewed_and_lost() {
    let mut clock = clock("1(3x5)");
    clock.press(White, at_s(3)).unwrap(); // 1 s main, then 2 s of the first period
    assert_eq!(count(&clock, Transition::OvertimeBegins), 1);
    assert_eq!(count(&clock, Transition::ByoYomiPeriodRenewed), 1);
    clock.press(Black, at_s(4)).unwrap(); // within main time
    clock.settle(at_s(9)).unwrap(); // White's period of 5 s runs out
    assert_eq!(count(&clock, Transition::ByoYomiPeriodLost), 1);
}

#[test]
fn a6_2_canadian_block_reset_after_the_blocks_moves() {
    let mut clock = clock("1(2/20)");
    let mut at_second = 2;
    for _ in 0..2 {
        clock.press(White, at_s(at_second)).unwrap();
        clock.press(Black, at_s(at_second + 2)).unwrap();
        at_second += 4;
    }
    assert_eq!(count(&clock, Transition::OvertimeBegins), 2);
    assert_eq!(count(&clock, Transition::CanadianBlockReset), 2, "each side made its block of 2 moves");
}

#[test]
fn a6_2_hourglass_transfer_per_move_that_took_time() {
    let mut clock = clock("*60");
    clock.press(White, at_s(2)).unwrap();
    clock.press(Black, at_s(2)).unwrap(); // an instant move passes nothing
    assert_eq!(count(&clock, Transition::HourglassTransfer), 1);
}

#[test]
fn a6_13_a6_14_a6_15_a13_4_a6_11_arbiter_calls_are_counted() {
    let mut clock = clock("60");
    clock.pause(at_s(1)).unwrap();
    clock.set_time(White, secs(30), at_s(1)).unwrap();
    clock.adjust_time(Black, TimeAdjustment::Add(secs(2)), at_s(1)).unwrap();
    clock.set_moves(Black, 3, at_s(1)).unwrap();
    let settings = Replacement {
        main: BySide::both(secs(20)),
        moves: BySide::both(3),
        period: BySide::both(0),
        period_moves: BySide::both(0),
    };
    clock.replace(settings, at_s(1)).unwrap();
    clock.resume(at_s(2)).unwrap();
    // Refused calls change nothing, counts included.
    assert!(clock.adjust_time(White, TimeAdjustment::Add(Duration::CONTROL_MAX), at_s(2)).is_err());
    assert!(clock.start(Instant::from_us(2_000_000)).is_err());
    assert_counts(
        &clock,
        &[
            (Transition::Start, 1),
            (Transition::Pause, 1),
            (Transition::SetTime, 1),
            (Transition::AdjustTime, 1),
            (Transition::SetMoves, 1),
            (Transition::Replacement, 1),
            (Transition::Resume, 1),
        ],
    );
}

/// Every transition the calls hand on, in order.
#[derive(Default)]
struct Log(Vec<TransitionEvent>);

impl TransitionSink for Log {
    fn note(&mut self, event: TransitionEvent) {
        self.0.push(event);
    }
}

fn change(from: u32, to: u32, cause: PeriodCause) -> Option<PeriodChange> {
    Some(PeriodChange { from, to, cause })
}

#[test]
fn a6_2b_and_a6_12a_a_stage_change_names_its_cause() {
    let mut clock = clock("1/60:60");
    let mut changes = Changes::NONE;
    clock.noting(&mut changes).press(White, at_s(1)).unwrap();
    assert_eq!(changes.period(White), change(0, 1, PeriodCause::MovesCompleted), "6.2b: the stage's move made");
    assert_eq!(changes.period(Black), None);
    // Black's first stage (60 s from 1 s) runs out before its move: 6.3
    // flag, and the next stage opens so play goes on (6.12a).
    let mut changes = Changes::NONE;
    clock.noting(&mut changes).settle(at_s(62)).unwrap();
    assert_eq!(changes.period(Black), change(0, 1, PeriodCause::FlagOpenedNext));
    assert_eq!(changes.flag(Black).map(|flag| (flag.at, flag.period)), Some((at_s(61), 0)));
}

#[test]
fn a6_2_byo_yomi_transitions_are_handed_on_each_at_its_own_instant() {
    let mut clock = clock("1(3x5)");
    let mut log = Log::default();
    clock.noting(&mut log).settle(at_s(13)).unwrap();
    let handed: Vec<_> = log
        .0
        .iter()
        .map(|event| (event.transition, event.at, event.period_from, event.period_to, event.cause))
        .collect();
    assert_eq!(
        handed,
        [
            (Transition::OvertimeBegins, at_s(1), 0, 1, Some(PeriodCause::OvertimeBegins)),
            (Transition::ByoYomiPeriodLost, at_s(6), 1, 2, Some(PeriodCause::PeriodLost)),
            (Transition::ByoYomiPeriodLost, at_s(11), 2, 3, Some(PeriodCause::PeriodLost)),
        ]
    );
    // Summed up for one record: from the first period to the last, with the
    // first change's cause.
    let mut changes = Changes::NONE;
    for event in &log.0 {
        changes.note(*event);
    }
    assert_eq!(changes.period(White), change(0, 3, PeriodCause::OvertimeBegins));
}

#[test]
fn a6_11_a_replacement_hands_on_each_display_s_period() {
    let mut clock = clock("60(3x5)");
    let settings = Replacement {
        main: BySide::both(secs(5)),
        moves: BySide::both(0),
        period: BySide::new(2, 0),
        period_moves: BySide::both(0),
    };
    let mut log = Log::default();
    clock.noting(&mut log).replace(settings, at_s(1)).unwrap();
    let handed: Vec<_> =
        log.0.iter().map(|event| (event.side, event.period_from, event.period_to, event.cause)).collect();
    assert_eq!(handed, [(White, 0, 2, Some(PeriodCause::OvertimeBegins)), (Black, 0, 0, None)]);
    assert_eq!(count(&clock, Transition::Replacement), 1, "one replacement, counted once");
}

#[test]
fn a13_4_a_refused_adjustment_hands_on_nothing_though_a_flag_was_due() {
    let mut clock = clock("1/60:60");
    let before = clock;
    let mut log = Log::default();
    // White's first stage ran out at 60 s; the adjustment is refused, so
    // the flag is not applied by it either.
    let refused = clock.noting(&mut log).adjust_time(White, TimeAdjustment::Add(Duration::CONTROL_MAX), at_s(70));
    assert!(refused.is_err());
    assert!(log.0.is_empty(), "{:?}", log.0);
    assert_eq!(clock, before);
}

#[test]
fn a6_2_one_call_across_every_byo_yomi_period_stays_within_the_bound() {
    // The most one settling can pass: main time, then every period of the
    // longest byo-yomi, each a microsecond long, then the flag.
    let control = TimeControl::byo_yomi(Duration::from_us(1), PERIODS_MAX, Duration::from_us(1)).unwrap();
    let mut clock = support::started(control);
    let mut log = Log::default();
    clock.noting(&mut log).settle(at_s(1)).unwrap();
    let lost = log.0.iter().filter(|event| event.transition == Transition::ByoYomiPeriodLost).count();
    assert_eq!(lost, PERIODS_MAX as usize - 1);
    assert!(log.0.iter().any(|event| event.transition == Transition::FlagFinal));
    assert!(log.0.len() <= TRANSITIONS_MAX, "{} transitions, the bound says {TRANSITIONS_MAX}", log.0.len());
}
