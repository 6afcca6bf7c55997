//! The arbiter's settings reach the device and the ideal clock alike: on a
//! perfect device (no drift, no jitter, no input defect) both clocks must
//! show the same times and reach the same result whatever the arbiter does.

use std::path::Path;

use bench_sim::defects::Struck;
use bench_sim::run::{self, RunOptions, Summary};
use bench_sim::scenario::Scenario;

/// Frequent adjustments (6.14, 13.4), pauses (6.13) and counter
/// corrections on a staged control, large enough to make flags fall.
const BUSY_ARBITER: &str = r#"
description = "a busy arbiter on a perfect device"
control = "20/300+5:120+5"
seed = 3
[players]
think = { distribution = "skewed", min_ms = 1000, max_ms = 40000 }
[arbiter]
adjust = { chance = "1/4", min_ms = 10000, max_ms = 90000 }
pause = { chance = "1/10", min_ms = 1000, max_ms = 20000 }
set_moves = "1/8"
[expect]
agreement_min_percent = 100
time_error_max_us = 0
"#;

#[test]
fn arbiter_settings_land_on_both_clocks_alike() {
    let scenario = Scenario::parse(BUSY_ARBITER, Path::new("arbiter.toml")).expect("the scenario parses");
    let summary = perfect_device_agrees(&scenario, 200, "busy arbiter");
    assert!(summary.defects.get(Struck::Adjustment) >= 1_000, "adjustments must be frequent: {:?}", summary.defects);
}

/// Plays the first `games` of `scenario` and checks that in every one the
/// device shows the ideal clock's times and reaches its result, and that
/// the independent model followed the ideal clock through every one of the
/// arbiter's settings to the end of every game.
fn perfect_device_agrees(scenario: &Scenario, games: u64, label: &str) -> Summary {
    let options = RunOptions { games: 0..games, ..RunOptions::scenario(scenario, 2) };
    let summary = run::run(scenario, &options, &|_| {});
    assert_eq!(summary.games_with_violations, 0, "{label}");
    let coverage = summary.oracle_coverage;
    assert_eq!((coverage.games_checked, coverage.games), (games, games), "{label}: {coverage:?}");
    assert_eq!(coverage.calls_checked, coverage.calls, "{label}: {coverage:?}");
    assert_eq!(summary.max_time_error_us, 0, "{label}: the device's times differ from the ideal clock's");
    let differ = summary.games - summary.agreeing;
    assert_eq!(differ, 0, "{label}: results differ in {differ} games");
    summary
}

/// Every arbiter habit at once and often, replacements (6.11) above all,
/// on controls where flags are common: flags ruled before a replacement,
/// flags showing on the clock replaced, flags after it on the new clock,
/// stage switches by the replaced counters, Canadian periods under way.
fn replacing_arbiter(control: &str, shows_first_flag: bool) -> String {
    format!(
        r#"
description = "an arbiter who often replaces a perfect clock"
control = "{control}"
seed = 5
[players]
think = {{ distribution = "skewed", min_ms = 200, max_ms = 9000 }}
[arbiter]
clock_shows_first_flag = {shows_first_flag}
flag_noticed = "1/2"
notice_delay = {{ chance = "1/2", min_ms = 0, max_ms = 4000 }}
pause = {{ chance = "1/12", min_ms = 1000, max_ms = 20000 }}
adjust = {{ chance = "1/10", min_ms = 1000, max_ms = 15000 }}
set_moves = "1/9"
replace_clock = "1/6"
[expect]
agreement_min_percent = 100
"#
    )
}

#[test]
fn a_replaced_perfect_clock_reaches_the_ideal_clock_s_results() {
    let controls = ["10/20:20", "5/10+1:5/10:10", "30(5/20)", "30(3x5)", "*60", "60+1"];
    // With the order of flags unknown, 6.12 a) lets play go on with a
    // display frozen in its final period, which a replacement sets to zero.
    for (control, shows_first_flag) in controls.iter().flat_map(|control| [(*control, true), (*control, false)]) {
        let text = replacing_arbiter(control, shows_first_flag);
        let scenario = Scenario::parse(&text, Path::new("replace.toml")).expect("the scenario parses");
        let control = format!("{control} (clock shows the first flag: {shows_first_flag})");
        let summary = perfect_device_agrees(&scenario, 1_000, &control);
        let defects = &summary.defects;
        assert!(defects.get(Struck::Replacement) >= 1_000, "{control}: replacements must be frequent: {defects:?}");
    }
}

/// Found by the property below: a flag that opens a final stage with no
/// time makes the final flag fall at the same instant, and the clock shows
/// that one; the "flag at its deadline" oracle wanted the first.
#[test]
fn a_flag_opening_a_stage_with_no_time_is_followed_by_its_flag_at_once() {
    let text = "description = \"zero final stage\"\ncontrol = \"2/0.1:0\"\nseed = 9\n\
                [players]\nthink = { distribution = \"skewed\", min_ms = 100, max_ms = 1000 }\n";
    let scenario = Scenario::parse(text, Path::new("zero-final.toml")).expect("the scenario parses");
    perfect_device_agrees(&scenario, 20, "2/0.1:0");
}
