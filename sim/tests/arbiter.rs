//! The arbiter's settings reach the device and the ideal clock alike: on a
//! perfect device (no drift, no jitter, no input defect) both clocks must
//! show the same times and reach the same result whatever the arbiter does.

use std::path::Path;

use bench_sim::run::{self, RunOptions};
use bench_sim::scenario::Scenario;
use bench_sim::shrink::DefectSet;

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
    let options = RunOptions {
        seed: scenario.seed,
        games: 0..200,
        jobs: 2,
        swarm: false,
        tick_oracle: false,
        disabled: DefectSet::NONE,
    };
    let summary = run::run(&scenario, &options, &|_| {});
    assert!(summary.defects.adjustments >= 1_000, "adjustments must be frequent: {:?}", summary.defects);
    assert_eq!(summary.games_with_violations, 0);
    assert_eq!(summary.max_time_error_us, 0, "the device's times differ from the ideal clock's");
    assert_eq!(summary.agreeing, summary.games, "results differ in {} games", summary.games - summary.agreeing);
}
