//! One or more named tests per article of FIDE Laws Article 6 (2005-era
//! numbering, `shared/seeds/TRANSLATION.md`). Each test name cites the
//! article it checks.

mod support;

use chessclock::laws::{rule_on_absence, rule_on_both_flags, rule_on_flag, BothFlagsFacts, FlagFacts};
use chessclock::{
    Article, Bonus, Button, Clock, ClockError, DeadlineKind, Duration, GameEnd, Observation, Outcome, Placement,
    Replacement, RuleSet, Side, Stage, TimeAdjustment, TimeControl,
};
use chessclock::{BySide, Instant, Ruling};
use support::{at_ms, at_s, ms, secs, started, Side::Black, Side::White};

/// 6.7 on `player`'s arrival at `arrived_at`, the opponent there from the
/// scheduled start.
fn rule_on_arrival(rules: &RuleSet, player: Side, scheduled_start: Instant, arrived_at: Instant) -> Ruling {
    let mut arrived = BySide::both(Some(scheduled_start));
    *arrived.get_mut(player) = Some(arrived_at);
    rule_on_absence(rules, scheduled_start, arrived, arrived_at)
}

fn flag_facts(clock: &Clock, side: Side) -> FlagFacts {
    let flag = clock.flag(side).expect("the flag is shown");
    FlagFacts {
        flag,
        observation: Observation::ObservedByArbiter,
        moves_required: clock.control().moves_required_by_end_of(flag.period),
        moves_made: clock.moves(side),
        game_end: None,
        opponent_can_checkmate: true,
    }
}

fn two_stage_40_moves() -> TimeControl {
    // 2 moves in 10 s, then the rest in 5 s: small numbers, same rules as 40/90'.
    TimeControl::stages(&[Stage::moves(2, secs(10), Bonus::None), Stage::rest_of_game(secs(5), Bonus::None)]).unwrap()
}

#[test]
fn a6_1_only_one_display_runs_at_a_time() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::None).unwrap());
    clock.press(White, at_s(2)).unwrap();
    assert_eq!(clock.remaining(White, at_s(10)).unwrap(), secs(58), "White's display stopped at the press");
    assert_eq!(clock.remaining(Black, at_s(10)).unwrap(), secs(52), "Black's display ran from the press");
}

#[test]
fn a6_2a_fischer_increment_added_with_each_move() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::Increment(secs(2))).unwrap());
    clock.press(White, at_s(5)).unwrap();
    assert_eq!(clock.remaining(White, at_s(5)).unwrap(), secs(57));
}

#[test]
fn a6_2a_required_moves_in_allotted_time_then_next_stage() {
    let mut clock = started(two_stage_40_moves());
    clock.press(White, at_s(1)).unwrap();
    clock.press(Black, at_s(2)).unwrap();
    assert_eq!(clock.period(White), 0, "one move made, two required");
    clock.press(White, at_s(3)).unwrap();
    assert_eq!(clock.period(White), 1, "second move completes stage 1");
    assert_eq!(clock.period(Black), 0, "each player's stage advances on their own moves");
}

#[test]
fn a6_2b_saved_time_carries_into_next_stage() {
    let mut clock = started(two_stage_40_moves());
    clock.press(White, at_s(1)).unwrap();
    clock.press(Black, at_s(2)).unwrap();
    clock.press(White, at_s(4)).unwrap();
    // White used 1 + 2 = 3 s of 10: 7 s saved plus the 5 s of stage 2.
    assert_eq!(clock.remaining(White, at_s(4)).unwrap(), secs(12));
}

#[test]
fn a6_2b_delay_main_time_unchanged_when_pressed_within_delay() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::Delay(secs(5))).unwrap());
    clock.press(White, at_s(4)).unwrap();
    assert_eq!(clock.remaining(White, at_s(4)).unwrap(), secs(60));
}

#[test]
fn a6_2b_delay_main_time_runs_only_after_extra_time_used() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::Delay(secs(5))).unwrap());
    assert_eq!(clock.reading(White, at_s(3)).unwrap().delay, secs(2));
    assert_eq!(clock.remaining(White, at_s(3)).unwrap(), secs(60));
    clock.press(White, at_s(8)).unwrap();
    assert_eq!(clock.remaining(White, at_s(8)).unwrap(), secs(57));
}

#[test]
fn a6_2b_delay_unused_extra_time_is_not_banked() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::Delay(secs(5))).unwrap());
    clock.press(White, at_s(1)).unwrap();
    clock.press(Black, at_s(2)).unwrap();
    // White's next move gets 5 s of delay again, not 5 + 4 unused.
    let deadline = clock.next_deadline().unwrap();
    assert_eq!(deadline.kind, DeadlineKind::DelayEnds);
    assert_eq!(deadline.at, at_s(7));
}

#[test]
fn a6_2b_bronstein_gives_back_time_used_up_to_delay() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::Bronstein(secs(5))).unwrap());
    clock.press(White, at_s(3)).unwrap();
    assert_eq!(clock.remaining(White, at_s(3)).unwrap(), secs(60), "3 s used, 3 s given back");
    clock.press(Black, at_s(11)).unwrap();
    assert_eq!(clock.remaining(Black, at_s(11)).unwrap(), secs(57), "8 s used, 5 s given back");
}

#[test]
fn a6_3_flag_in_non_final_stage_with_required_moves_made_is_harmless() {
    // The clock missed a press, so it believes White made 1 move; the
    // scoresheet shows the 2 required moves were made.
    let mut clock = started(two_stage_40_moves());
    clock.press(White, at_s(1)).unwrap();
    clock.press(Black, at_s(2)).unwrap();
    clock.settle(at_s(11)).unwrap();
    let flag = clock.flag(White).expect("stage 1 ran out");
    assert_eq!((flag.at, flag.period), (at_s(11), 0));
    let facts = FlagFacts { moves_made: 2, ..flag_facts(&clock, White) };
    assert_eq!(rule_on_flag(&facts).outcome, Outcome::Continue);
    assert_eq!(rule_on_flag(&facts).article, Article::A6_3);
}

#[test]
fn a6_3_flag_in_non_final_stage_without_required_moves_loses() {
    let mut clock = started(two_stage_40_moves());
    clock.press(White, at_s(1)).unwrap();
    clock.press(Black, at_s(2)).unwrap();
    clock.settle(at_s(11)).unwrap();
    let ruling = rule_on_flag(&flag_facts(&clock, White));
    assert_eq!(ruling.outcome, Outcome::Win(Black));
    assert_eq!(ruling.article, Article::A6_10);
}

#[test]
fn a6_3_flag_in_non_final_stage_opens_next_stage_so_play_can_go_on() {
    let mut clock = started(two_stage_40_moves());
    clock.settle(at_s(10)).unwrap();
    assert_eq!(clock.period(White), 1);
    assert_eq!(clock.remaining(White, at_s(10)).unwrap(), secs(5));
    clock.press(White, at_s(12)).unwrap();
    assert_eq!(clock.remaining(White, at_s(12)).unwrap(), secs(3));
}

#[test]
fn a6_4_placement_decides_which_button_is_whites() {
    assert_eq!(Placement::WHITE_ON_LEFT.side_of(Button::Left), White);
    assert_eq!(Placement::WHITE_ON_LEFT.side_of(Button::Right), Black);
    assert_eq!(Placement::WHITE_ON_RIGHT.side_of(Button::Left), Black);
    for placement in [Placement::WHITE_ON_LEFT, Placement::WHITE_ON_RIGHT] {
        for side in Side::BOTH {
            assert_eq!(placement.side_of(placement.button_of(side)), side);
        }
    }
}

#[test]
fn a6_5_whites_clock_starts_at_the_scheduled_time() {
    let mut clock = Clock::new(TimeControl::sudden_death(secs(60), Bonus::None).unwrap());
    assert_eq!(clock.press(White, at_s(0)), Err(ClockError::NotStarted));
    clock.start(at_s(100)).unwrap();
    assert_eq!(clock.running(), Some(White));
    assert_eq!(clock.remaining(White, at_s(130)).unwrap(), secs(30));
    assert_eq!(clock.remaining(Black, at_s(130)).unwrap(), secs(60));
}

#[test]
fn a6_6_white_loses_the_time_until_arrival() {
    let scheduled = at_s(0);
    let mut clock = Clock::new(TimeControl::sudden_death(secs(3600), Bonus::None).unwrap());
    clock.start(scheduled).unwrap();
    // Nobody is there; White arrives after 20 minutes and moves at once.
    let arrival = at_s(1200);
    assert_eq!(rule_on_arrival(&RuleSet::FIDE_2005, White, scheduled, arrival).outcome, Outcome::Continue);
    clock.press(White, arrival).unwrap();
    assert_eq!(clock.remaining(White, arrival).unwrap(), secs(2400));
    assert_eq!(clock.remaining(Black, arrival).unwrap(), secs(3600));
}

#[test]
fn a6_7_arriving_more_than_default_time_late_loses_fide_2005() {
    let rules = RuleSet::by_name("fide-2005").unwrap();
    let start = at_s(0);
    assert_eq!(rule_on_arrival(&rules, Black, start, at_s(3600)).outcome, Outcome::Continue, "exactly one hour");
    let late = rule_on_arrival(&rules, Black, start, at_ms(3_600_001));
    assert_eq!(late.outcome, Outcome::Win(White));
    assert_eq!(late.article, Article::A6_7);
}

#[test]
fn a6_7_both_players_absent_beyond_the_default_time_both_lose() {
    let rules = RuleSet::FIDE_2005;
    let start = at_s(0);
    let at = at_ms(3_600_001);
    let both_absent = chessclock::BySide::new(None, None);
    assert_eq!(rule_on_absence(&rules, start, both_absent, at).outcome, Outcome::BothLose);
    let white_came = chessclock::BySide::new(Some(at_s(1_000)), None);
    assert_eq!(rule_on_absence(&rules, start, white_came, at).outcome, Outcome::Win(White));
    assert_eq!(rule_on_absence(&rules, start, both_absent, at_s(3_600)).outcome, Outcome::Continue, "exactly one hour");
    assert_eq!(rule_on_absence(&rules, start, both_absent, at).article, Article::A6_7);
}

#[test]
fn a6_7_default_time_zero_fide_2023() {
    let rules = RuleSet::by_name("fide-2023").unwrap();
    let start = at_s(10);
    assert_eq!(rule_on_arrival(&rules, White, start, at_s(10)).outcome, Outcome::Continue);
    assert_eq!(rule_on_arrival(&rules, White, start, at_ms(10_001)).outcome, Outcome::Win(Black));
    assert!(RuleSet::by_name("fide-1999").is_none());
}

#[test]
fn a6_8a_time_until_the_press_is_the_movers() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::None).unwrap());
    clock.press(White, at_ms(7_250)).unwrap();
    assert_eq!(clock.remaining(White, at_s(30)).unwrap(), ms(52_750));
    assert_eq!(clock.moves(White), 1, "the move completes on the press");
}

#[test]
fn a6_8a_only_the_running_side_can_stop_its_clock() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::None).unwrap());
    let before = clock;
    assert_eq!(clock.press(Black, at_s(1)), Err(ClockError::NotRunning { pressed: Black, running: White }));
    assert_eq!(clock, before, "an error changes nothing");
}

#[test]
fn a6_8a_game_ending_move_needs_no_press() {
    // White mates without pressing; White's flag then falls, unnoticed until later.
    let mut clock = started(TimeControl::sudden_death(secs(10), Bonus::None).unwrap());
    clock.settle(at_s(11)).unwrap();
    let facts = FlagFacts { game_end: Some(GameEnd::Checkmate { winner: White }), ..flag_facts(&clock, White) };
    let ruling = rule_on_flag(&facts);
    assert_eq!(ruling.outcome, Outcome::Win(White));
    assert_eq!(ruling.article, Article::A5_1);
    let stalemate = FlagFacts { game_end: Some(GameEnd::Stalemate), ..facts };
    assert_eq!(rule_on_flag(&stalemate).outcome, Outcome::Draw);
    assert_eq!(rule_on_flag(&stalemate).article, Article::A5_2);
}

#[test]
fn a6_8d_arbiter_adjusts_the_clock_equitably() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::None).unwrap());
    clock.adjust_time(Black, TimeAdjustment::Add(secs(30)), at_s(5)).unwrap();
    assert_eq!(clock.remaining(Black, at_s(5)).unwrap(), secs(90));
    assert_eq!(clock.ledger(Black).arbiter_added, secs(30));
}

#[test]
fn a6_9_unnoticed_flag_is_not_a_fact() {
    let mut clock = started(TimeControl::sudden_death(secs(10), Bonus::None).unwrap());
    clock.settle(at_s(12)).unwrap();
    let unnoticed = FlagFacts { observation: Observation::Unnoticed, ..flag_facts(&clock, White) };
    assert_eq!(rule_on_flag(&unnoticed).outcome, Outcome::Continue);
    assert_eq!(rule_on_flag(&unnoticed).article, Article::A6_9);
    let claimed = FlagFacts { observation: Observation::ClaimedBy(Black), ..unnoticed };
    assert_eq!(rule_on_flag(&claimed).outcome, Outcome::Win(Black));
}

#[test]
fn a6_10_flag_fall_loses() {
    let mut clock = started(TimeControl::sudden_death(secs(10), Bonus::None).unwrap());
    clock.press(White, at_s(1)).unwrap();
    clock.settle(at_s(11)).unwrap();
    let flag = clock.flag(Black).unwrap();
    assert_eq!((flag.at, flag.period), (at_s(11), 0));
    let ruling = rule_on_flag(&flag_facts(&clock, Black));
    assert_eq!(ruling, chessclock::Ruling { outcome: Outcome::Win(White), article: Article::A6_10 });
}

#[test]
fn a6_10_flag_fall_draws_when_opponent_cannot_checkmate() {
    let mut clock = started(TimeControl::sudden_death(secs(10), Bonus::None).unwrap());
    clock.settle(at_s(10)).unwrap();
    let facts = FlagFacts { opponent_can_checkmate: false, ..flag_facts(&clock, White) };
    assert_eq!(rule_on_flag(&facts).outcome, Outcome::Draw);
    assert_eq!(rule_on_flag(&facts).article, Article::A6_10);
}

#[test]
fn a6_10_press_at_the_flag_instant_is_too_late() {
    let mut clock = started(TimeControl::sudden_death(secs(10), Bonus::Increment(secs(5))).unwrap());
    clock.press(White, at_s(10)).unwrap();
    assert_eq!(clock.flag(White).map(|flag| flag.at), Some(at_s(10)));
    assert_eq!(clock.remaining(White, at_s(10)).unwrap(), Duration::ZERO, "frozen: no increment after the flag");
}

/// 6.11 in Canadian overtime: the arbiter also sets how many of the
/// period's moves are made, or the new clock would ask for them again.
#[test]
fn a6_11_replacement_in_canadian_overtime_keeps_the_period_s_moves() {
    let mut clock = started(chessclock::notation::parse("10(3/20)").unwrap());
    clock.settle(at_s(11)).unwrap(); // White's main time ends at 10 s: 3 moves in 20 s.
    assert_eq!(clock.period(White), 1);
    clock.press(White, at_s(12)).unwrap();
    clock.press(Black, at_s(13)).unwrap();
    let settings = Replacement {
        main: chessclock::BySide::new(secs(18), secs(9)),
        moves: chessclock::BySide::new(1, 1),
        period: chessclock::BySide::new(1, 0),
        period_moves: chessclock::BySide::new(2, 0),
    };
    clock.replace(settings, at_s(14)).unwrap();
    assert_eq!(clock.period_moves(White), 2);
    clock.press(White, at_s(15)).unwrap(); // The period's third move: a fresh 20 s.
    assert_eq!(clock.remaining(White, at_s(15)).unwrap(), secs(20));
}

/// 6.11 across a change of bonus: a new clock, started in a delay stage
/// and set by the arbiter into a stage without delay, gives the running
/// move no delay (and a move set into a delay stage gets that stage's).
#[test]
fn a6_11_replacement_starts_the_running_move_under_the_set_period_s_bonus() {
    let control = chessclock::notation::parse("2/10+d2:20").unwrap();
    let mut clock = started(control);
    assert_eq!(clock.reading(White, at_s(0)).unwrap().delay, secs(2));
    let settings = Replacement {
        main: chessclock::BySide::new(secs(15), secs(12)),
        moves: chessclock::BySide::new(3, 3),
        period: chessclock::BySide::new(1, 1),
        period_moves: chessclock::BySide::new(0, 0),
    };
    clock.replace(settings, at_s(1)).unwrap();
    assert_eq!(clock.reading(White, at_s(1)).unwrap().delay, Duration::ZERO);
    assert_eq!(clock.remaining(White, at_s(2)).unwrap(), secs(14), "no delay: the main time runs at once");
    let back = Replacement { period: chessclock::BySide::new(0, 0), moves: chessclock::BySide::new(1, 1), ..settings };
    clock.replace(back, at_s(3)).unwrap();
    assert_eq!(clock.reading(White, at_s(3)).unwrap().delay, secs(2));
}

#[test]
fn a6_11_replacement_clock_shows_the_arbiters_times() {
    let mut clock = started(two_stage_40_moves());
    clock.press(White, at_s(1)).unwrap();
    clock.pause(at_s(2)).unwrap();
    let settings = Replacement {
        main: chessclock::BySide::new(secs(8), secs(4)),
        moves: chessclock::BySide::new(1, 0),
        period: chessclock::BySide::new(0, 1),
        period_moves: chessclock::BySide::new(0, 0),
    };
    clock.replace(settings, at_s(30)).unwrap();
    clock.resume(at_s(40)).unwrap();
    assert_eq!(clock.remaining(White, at_s(41)).unwrap(), secs(8));
    assert_eq!(clock.remaining(Black, at_s(41)).unwrap(), secs(3));
    assert_eq!((clock.moves(White), clock.period(Black)), (1, 1));
    let impossible = Replacement { period: chessclock::BySide::new(0, 2), ..settings };
    assert_eq!(clock.replace(impossible, at_s(42)), Err(ClockError::NoSuchPeriod { period: 2, final_period: 1 }));
    // The move counters are the arbiter's too (6.15), and stages switch by
    // them (6.2a: here 2 moves in the first stage).
    let counted =
        Replacement { moves: chessclock::BySide::new(0, 7), period: chessclock::BySide::new(0, 0), ..settings };
    clock.replace(counted, at_s(43)).unwrap();
    assert_eq!((clock.moves(White), clock.moves(Black)), (0, 7));
    clock.press(Black, at_s(44)).unwrap();
    assert_eq!((clock.moves(Black), clock.period(Black)), (8, 1), "Black's 8th move is past the first stage");
    clock.press(White, at_s(45)).unwrap();
    assert_eq!((clock.moves(White), clock.period(White)), (1, 0), "White's first counted move stays in it");
}

#[test]
fn a6_12a_both_flags_order_unknown_in_non_final_stage_game_continues() {
    let mut clock = started(two_stage_40_moves());
    clock.press(White, at_s(1)).unwrap();
    clock.settle(at_s(12)).unwrap(); // Black's stage 1 runs out at 11 s.
    clock.press(Black, at_s(13)).unwrap();
    clock.settle(at_s(23)).unwrap(); // White: 9 s left at 13 s, flags at 22 s.
    assert!(clock.flag(White).is_some() && clock.flag(Black).is_some());
    assert!(!clock.control().is_final_period(0));
    let ruling = rule_on_both_flags(&BothFlagsFacts { in_order: None, in_final_period: false, game_end: None });
    assert_eq!(ruling.outcome, Outcome::Continue);
    assert_eq!(ruling.article, Article::A6_12a);
}

#[test]
fn a6_12b_both_flags_order_unknown_in_final_stage_draw() {
    let mut clock = started(TimeControl::sudden_death(secs(10), Bonus::None).unwrap());
    clock.press(White, at_s(2)).unwrap();
    clock.press(Black, at_s(3)).unwrap();
    clock.settle(at_s(20)).unwrap();
    clock.press(White, at_s(20)).unwrap();
    clock.settle(at_s(40)).unwrap();
    let (white, black) = (clock.flag(White).unwrap(), clock.flag(Black).unwrap());
    assert!(clock.control().is_final_period(white.period) && clock.control().is_final_period(black.period));
    let ruling = rule_on_both_flags(&BothFlagsFacts { in_order: None, in_final_period: true, game_end: None });
    assert_eq!(ruling.outcome, Outcome::Draw);
    assert_eq!(ruling.article, Article::A6_12b);
}

#[test]
fn a6_12_digital_clock_shows_which_flag_fell_first() {
    let mut clock = started(TimeControl::sudden_death(secs(10), Bonus::None).unwrap());
    clock.press(White, at_s(2)).unwrap();
    clock.settle(at_s(15)).unwrap(); // Black flags at 12 s.
    clock.press(Black, at_s(15)).unwrap();
    clock.settle(at_s(30)).unwrap(); // White had 8 s: flags at 23 s.
    let first = clock.first_flag().unwrap();
    assert_eq!((first.side, first.at), (Black, at_s(12)));
    let in_order = Some([flag_facts(&clock, Black), flag_facts(&clock, White)]);
    let ruling = rule_on_both_flags(&BothFlagsFacts { in_order, in_final_period: true, game_end: None });
    assert_eq!(ruling.outcome, Outcome::Win(White));
}

/// 6.3 then 6.10: the order is known, the first flag fell in a stage whose
/// moves its player had made, so it decides nothing; the second, in the
/// final stage, loses. (6.12 is for an order that cannot be established.)
#[test]
fn a6_3_a6_10_with_the_order_known_a_harmless_first_flag_leaves_the_second_to_decide() {
    let mut clock = started(two_stage_40_moves());
    clock.press(White, at_s(1)).unwrap();
    clock.settle(at_s(12)).unwrap(); // Black's stage 1 (10 s) runs out at 11 s.
    clock.press(Black, at_s(13)).unwrap();
    clock.press(White, at_s(14)).unwrap();
    clock.press(Black, at_s(15)).unwrap(); // Black's 2nd move: stage 1's moves made.
    clock.settle(at_s(30)).unwrap(); // White: 13 s from 15 s on, flags at 28 s in the final stage.
    let (white, black) = (clock.flag(White).unwrap(), clock.flag(Black).unwrap());
    assert_eq!((black.period, white.period), (0, 1));
    let first = flag_facts(&clock, Black);
    let second = flag_facts(&clock, White);
    assert_eq!(rule_on_flag(&first).article, Article::A6_3, "Black's flag alone decides nothing");
    let ruling =
        rule_on_both_flags(&BothFlagsFacts { in_order: Some([first, second]), in_final_period: false, game_end: None });
    assert_eq!(ruling, rule_on_flag(&second));
    assert_eq!((ruling.outcome, ruling.article), (Outcome::Win(Black), Article::A6_10));
}

#[test]
fn a6_13_arbiter_pause_stops_both_clocks() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::None).unwrap());
    clock.pause(at_s(10)).unwrap();
    assert_eq!(clock.press(White, at_s(11)), Err(ClockError::Paused));
    assert_eq!(clock.next_deadline(), None);
    assert_eq!(clock.remaining(White, at_s(500)).unwrap(), secs(50));
    clock.resume(at_s(500)).unwrap();
    assert_eq!(clock.remaining(White, at_s(505)).unwrap(), secs(45));
    assert_eq!(clock.resume(at_s(506)), Err(ClockError::NotPaused));
}

#[test]
fn a6_13_pause_keeps_the_delay_in_progress() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::Delay(secs(5))).unwrap());
    clock.pause(at_s(2)).unwrap();
    clock.resume(at_s(100)).unwrap();
    assert_eq!(clock.reading(White, at_s(101)).unwrap().delay, secs(2));
}

#[test]
fn a6_14_arbiter_sets_times_and_move_counter() {
    let mut clock = started(two_stage_40_moves());
    clock.press(White, at_s(1)).unwrap();
    clock.set_time(Black, secs(3), at_s(2)).unwrap();
    clock.set_moves(Black, 1, at_s(2)).unwrap();
    assert_eq!(clock.remaining(Black, at_s(2)).unwrap(), secs(3));
    clock.press(Black, at_s(3)).unwrap();
    assert_eq!(clock.moves(Black), 2);
    assert_eq!(clock.period(Black), 1, "the corrected counter completes stage 1");
    assert_eq!(clock.remaining(Black, at_s(3)).unwrap(), secs(7));
}

#[test]
fn a6_14_arbiter_setting_clears_a_shown_flag() {
    let mut clock = started(TimeControl::sudden_death(secs(10), Bonus::None).unwrap());
    clock.settle(at_s(10)).unwrap();
    assert!(clock.flag(White).is_some());
    clock.set_time(White, secs(5), at_s(11)).unwrap();
    assert_eq!(clock.flag(White), None);
    assert_eq!(clock.remaining(White, at_s(12)).unwrap(), secs(4));
}

#[test]
fn a6_15_move_counter_counts_each_players_moves() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::None).unwrap());
    for second in 1..=5 {
        let side = if second % 2 == 1 { White } else { Black };
        clock.press(side, at_s(second)).unwrap();
    }
    assert_eq!((clock.moves(White), clock.moves(Black)), (3, 2));
}

#[test]
fn a13_4_penalty_less_time_stops_at_zero() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::None).unwrap());
    clock.press(White, at_s(1)).unwrap();
    clock.adjust_time(White, TimeAdjustment::Subtract(secs(120)), at_s(2)).unwrap();
    assert_eq!(clock.remaining(White, at_s(2)).unwrap(), Duration::ZERO);
    clock.press(Black, at_s(3)).unwrap();
    assert_eq!(clock.flag(White).map(|flag| flag.at), Some(at_s(3)), "a zero display flags as soon as it runs");
}

/// 6.2 / 6.3 / 6.10: byo-yomi periods are allotted times; one settling
/// across every period of the longest control (`1(100x1)`: 1 s main time,
/// then `PERIODS_MAX` periods of 1 s) loses each period at its instant and
/// lets the flag fall at the end of the last one, however many deadlines one
/// call passes; the time after the flag still runs on the frozen display.
#[test]
fn a6_3_a6_10_one_settling_across_every_byo_yomi_period_flags_in_the_last() {
    let periods = chessclock::PERIODS_MAX;
    let control = TimeControl::byo_yomi(secs(1), periods, secs(1)).unwrap();
    let mut clock = started(control);
    clock.settle(at_s(150)).unwrap();
    let last = periods;
    assert_eq!(clock.period(White), last, "every period but the last lost");
    let flag = clock.flag(White).expect("the last period ran out at 101 s");
    assert_eq!((flag.at, flag.period), (at_s(1 + u64::from(periods)), last));
    assert_eq!(clock.settled_at(), at_s(150));
    assert_eq!(clock.ledger(White).elapsed, secs(150), "the 150 s White's display ran");
    assert_eq!(clock.ledger(White).after_flag, secs(150 - 1 - u64::from(periods)));
}

/// 6.11: every indication of the clock is conclusive: what a display shows
/// is asked of an instant the clock has reached, never of one it has
/// already left behind (its display has moved on since).
#[test]
fn a6_11_a_reading_before_the_clock_s_last_instant_is_refused() {
    let mut clock = started(TimeControl::sudden_death(secs(60), Bonus::None).unwrap());
    clock.settle(at_s(10)).unwrap();
    for side in [White, Black] {
        let refused = |result: Result<Duration, ClockError>| {
            assert_eq!(result, Err(ClockError::TimeWentBackwards { last: at_s(10), at: at_s(5) }), "{side:?}");
        };
        refused(clock.remaining(side, at_s(5)));
        refused(clock.reading(side, at_s(5)).map(|reading| reading.main));
    }
    assert_eq!(clock.remaining(White, at_s(10)), Ok(secs(50)), "the clock's own instant is fine");
}
