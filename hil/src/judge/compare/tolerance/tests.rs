//! The policy on a game of 200 presses at scattered microseconds, played by
//! the reference firmware's game logic and then turned into the records of
//! a firmware that keeps its displays otherwise (rounded, leaning, one
//! press wrong). Each test fails if the policy goes back to judging every
//! time against the model alone, or stops seeing the fault planted.

use bench_contract::{Body, Button, Record};
use chessclock::Side;

use super::{ceil_sqrt, Tolerance, ROUNDING_BOUND_TICKS};
use crate::judge::compare::{compare, Comparison, Quantity};
use crate::testing::firmware::{play, Defects, TICK_US};

const CONTROL: &str = "300+2";
const PRESSES: usize = 200;

/// 200 alternating presses, White first, 0.4–1.6 s apart at scattered
/// microseconds (a fixed linear congruential sequence), and the game's
/// length after the start, µs. No flag falls: 100 moves of about 1 s a
/// side on 300 s with 2 s added a move.
fn presses() -> (Vec<(Button, u64)>, u64) {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut at_us = 0;
    let presses = (0..PRESSES)
        .map(|index| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            at_us += 400_000 + (state >> 33) % 1_200_000;
            (if index % 2 == 0 { Button::White } else { Button::Black }, at_us)
        })
        .collect();
    (presses, at_us + 1_000_000)
}

/// How the firmware under test keeps a side's display after a press, from
/// the exact one and its own difference so far (µs): the new difference.
type Keep = dyn Fn(usize, u64, i64) -> i64;

/// Rounds the display to the nearest `quantum_us` (ties up).
fn rounding(quantum_us: u64) -> impl Fn(usize, u64, i64) -> i64 {
    move |_, exact_us, difference_us| {
        let held_us = exact_us.saturating_add_signed(difference_us);
        let rounded_us = (held_us + quantum_us / 2) / quantum_us * quantum_us;
        difference_us + (i64::try_from(rounded_us).expect("small") - i64::try_from(held_us).expect("small"))
    }
}

/// What the firmware's records became, with the test's own account.
struct Played {
    records: Vec<Record>,
    /// Per press: the firmware's difference from the exact display before
    /// and after it, µs.
    differences: Vec<(i64, i64)>,
}

/// The exact game's records as a firmware that keeps its displays by
/// `keep` reports them: every Press and Snapshot of a side carries the
/// side's difference so far.
fn played(keep: &Keep) -> Played {
    let (presses, until_us) = presses();
    let mut records = play(Defects::default(), CONTROL, &presses, until_us);
    let mut difference = [0i64; 2];
    let mut differences = Vec::new();
    for record in &mut records {
        match &mut record.body {
            Body::Press(press) => {
                let slot = match press.button {
                    Button::White => 0,
                    Button::Black => 1,
                    Button::Pause => continue,
                };
                let before = difference[slot];
                difference[slot] = keep(differences.len(), press.remaining_us, before);
                differences.push((before, difference[slot]));
                press.remaining_us = press.remaining_us.saturating_add_signed(difference[slot]);
            }
            Body::Snapshot(snapshot) => {
                snapshot.remaining_white_us = snapshot.remaining_white_us.saturating_add_signed(difference[0]);
                snapshot.remaining_black_us = snapshot.remaining_black_us.saturating_add_signed(difference[1]);
            }
            Body::Flag(_) | Body::Period(_) => panic!("the game has no flag and no period change"),
            _ => {}
        }
    }
    assert_eq!(differences.len(), PRESSES);
    Played { records, differences }
}

fn compared(played: &Played) -> Comparison {
    compare(CONTROL, u64::from(TICK_US), &played.records).expect("the control parses")
}

fn largest(comparison: &Comparison, key: &str) -> u64 {
    *comparison.largest_us.get(key).unwrap_or_else(|| panic!("{key} in {:?}", comparison.largest_us))
}

/// A firmware that holds its displays in whole milliseconds, rounding at
/// every press: each press is within half a tick of the model carried from
/// the firmware's own state, but the difference from the model alone
/// walks past a tick (every snapshot after that would have been a
/// mismatch). No mismatch; the walk is reported as the rounding, exactly.
#[test]
fn a_clock_that_rounds_at_every_press_matches_and_reports_the_rounding_it_accumulated() {
    let played = played(&rounding(1_000));
    let walked_us = played.differences.iter().map(|&(_, after)| after.unsigned_abs()).max().expect("presses");
    assert!(walked_us > u64::from(TICK_US), "the premise: the rounding walks past a tick ({walked_us} µs)");
    let comparison = compared(&played);
    assert!(comparison.passed(), "{:#?}", comparison.mismatches);
    assert_eq!(largest(&comparison, "rounding.accumulated_us"), walked_us);
    let local_us = played.differences.iter().map(|&(before, after)| (after - before).unsigned_abs()).max();
    assert_eq!(Some(largest(&comparison, "press.remaining_us")), local_us);
    assert!(largest(&comparison, "press.remaining_us") <= 500, "rounding to the nearest ms");
    assert!(largest(&comparison, "snapshot.remaining_us.white") <= 500);
}

/// The same firmware with one press a second off (a bonus given twice, a
/// wrong subtraction): exactly one mismatch, at that press, and its
/// largest difference is the planted one give or take the rounding.
/// The wrong second is not rounding: the accumulated figure stays the walk.
#[test]
fn one_press_planted_a_second_off_is_exactly_one_mismatch_at_that_press() {
    const PLANTED: usize = 123;
    for planted_us in [1_000_000i64, -1_000_000] {
        let round = rounding(1_000);
        let keep = move |press: usize, exact_us: u64, difference_us: i64| {
            round(press, exact_us, difference_us) + if press == PLANTED { planted_us } else { 0 }
        };
        let played = played(&keep);
        let comparison = compared(&played);
        let keys: Vec<&str> = comparison.by_quantity.keys().copied().collect();
        assert_eq!(keys, ["press.remaining_us"], "{planted_us}: {:#?}", comparison.mismatches);
        assert_eq!(comparison.mismatch_count, 1, "{planted_us}");
        let mismatch = comparison.mismatches.first().expect("the mismatch");
        assert_eq!(mismatch.press_index, Some(PLANTED), "{mismatch}");
        // Judged from the firmware's state before it, or the model's,
        // whichever is nearer.
        let (before, after) = played.differences[PLANTED];
        let judged_us = (after - before).unsigned_abs().min(after.unsigned_abs());
        assert_eq!(largest(&comparison, "press.remaining_us"), judged_us, "{planted_us}");
        assert!(largest(&comparison, "rounding.accumulated_us") < 10_000, "{planted_us}: the second is not rounding");
    }
}

/// On an exact firmware the largest difference is the planted one, to the
/// microsecond, and every display after it is judged from the firmware's
/// own (wrong) state: no snapshot differs.
#[test]
fn the_largest_difference_is_the_planted_one() {
    for planted_us in [1_000_000i64, -1_234_567, 1_001] {
        let keep =
            move |press: usize, _: u64, difference_us: i64| difference_us + if press == 40 { planted_us } else { 0 };
        let comparison = compared(&played(&keep));
        assert_eq!(comparison.mismatch_count, 1, "{planted_us}: {:#?}", comparison.mismatches);
        assert_eq!(largest(&comparison, "press.remaining_us"), planted_us.unsigned_abs());
        assert_eq!(largest(&comparison, "snapshot.remaining_us.white"), 0, "{planted_us}");
        assert_eq!(largest(&comparison, "snapshot.remaining_us.black"), 0, "{planted_us}");
        assert_eq!(largest(&comparison, "rounding.accumulated_us"), 0, "{planted_us}");
    }
}

/// A firmware that loses 0.9 ms at every press — within a tick each, so no
/// press mismatch — leans one way: its rounding crosses 6 ticks × ⌈√n⌉
/// at each side's 47th press (42.3 ms > 42 ms), one mismatch per side.
#[test]
fn a_clock_that_loses_a_little_at_every_press_fails_on_its_accumulated_rounding() {
    let keep = |_: usize, _: u64, difference_us: i64| difference_us - 900;
    let comparison = compared(&played(&keep));
    let keys: Vec<&str> = comparison.by_quantity.keys().copied().collect();
    assert_eq!(keys, ["rounding.accumulated_us"], "{:#?}", comparison.mismatches);
    let at: Vec<Option<usize>> = comparison.mismatches.iter().map(|mismatch| mismatch.press_index).collect();
    assert_eq!(at, [Some(92), Some(93)], "White's and Black's 47th presses");
    let first = comparison.mismatches.first().expect("a mismatch");
    assert_eq!(
        (first.model.as_str(), first.firmware.as_str()),
        ("White's rounding within ±42.000 ms (6 ticks × ⌈√47⌉ after 47 presses)", "-42.300 ms accumulated")
    );
    assert_eq!(largest(&comparison, "rounding.accumulated_us"), 90_000, "100 presses a side");
    assert_eq!(largest(&comparison, "press.remaining_us"), 900);
}

/// Half a millisecond lost a press is within the bound for a game's
/// length (the bound grows as √n, the loss as n: it would cross at the
/// 157th press of a side).
#[test]
fn a_smaller_lean_stays_within_the_bound_for_a_games_length() {
    let keep = |_: usize, _: u64, difference_us: i64| difference_us - 500;
    let comparison = compared(&played(&keep));
    assert!(comparison.passed(), "{:#?}", comparison.mismatches);
    assert_eq!(largest(&comparison, "rounding.accumulated_us"), 50_000);
}

/// The bound's arithmetic and the two ways a value can match.
#[test]
fn the_bound_and_the_anchors() {
    let roots: Vec<u64> = (0..=10).map(ceil_sqrt).collect();
    assert_eq!(roots, [0, 1, 2, 2, 2, 3, 3, 3, 3, 3, 4]);
    assert_eq!(ROUNDING_BOUND_TICKS, 6);
    let mut tolerance = Tolerance::new(1_000);
    // White's first press 3 ms long: a mismatch, and White's anchor.
    let verdict = tolerance.press(Side::White, 5, 58_500_000, 58_503_000);
    assert!(!verdict.within);
    assert_eq!(verdict.difference_us, 3_000);
    assert_eq!((tolerance.anchor_at(Side::White, 5), tolerance.anchor_at(Side::White, 6)), (0, 3_000));
    assert_eq!(tolerance.anchor_at(Side::Black, 6), 0);
    // A display after it: judged from the firmware's state, or the model's.
    assert_eq!(tolerance.judged_us(Side::White, 6, 58_000_000, 58_003_400), 400);
    assert_eq!(tolerance.judged_us(Side::White, 6, 58_000_000, 58_000_200), 200);
    assert!(!tolerance.judge(Quantity::Remaining(Side::White), Side::White, 6, 58_000_000, 58_001_600));
    assert_eq!(tolerance.largest_us.get("snapshot.remaining_us.white"), Some(&1_400));
    // A new game (`reset` at record 9) starts from the model again.
    tolerance.restart(9);
    assert_eq!((tolerance.anchor_at(Side::White, 9), tolerance.anchor_at(Side::White, 10)), (3_000, 0));
    assert!(!tolerance.judge(Quantity::Remaining(Side::White), Side::White, 10, 60_000_000, 60_003_000));
}
