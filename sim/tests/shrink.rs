//! Shrinking finds the known minimal case: in a game whose only harmful
//! defect is a missed press, shrinking keeps the missed press, switches off
//! everything else, and cuts the game right after the first missed press.

use std::path::Path;

use bench_sim::run::failure_reasons;
use bench_sim::scenario::Scenario;
use bench_sim::shrink::{play_variant, shrink, Defect, DefectSet, Target};

/// Any time error fails a game; only missed presses cause one (the other
/// defects change what players see or stop both clocks alike).
const SCENARIO: &str = r#"
description = "shrink target"
control = "120+1"
games = 50
[players]
think = { distribution = "uniform", min_ms = 500, max_ms = 3000 }
[device]
missed_press = "1/15"
display_freeze = { chance = "1/5", min_ms = 500, max_ms = 2000 }
[arbiter]
pause = { chance = "1/8", min_ms = 1000, max_ms = 5000 }
[expect]
time_error_max_us = 0
agreement_min_percent = 0
"#;

#[test]
fn shrinking_keeps_only_the_missed_press_and_cuts_the_game_after_it() {
    let scenario = Scenario::parse(SCENARIO, Path::new("shrink.toml")).unwrap();
    let failing = (0..scenario.games)
        .find(|game| {
            let target = Target { scenario: &scenario, seed: 3, game: *game, swarm: false, tick_oracle: false };
            !failure_reasons(&scenario, &play_variant(target, DefectSet::NONE, scenario.board.max_moves, false))
                .is_empty()
        })
        .expect("some game has a missed press");
    let target = Target { scenario: &scenario, seed: 3, game: failing, swarm: false, tick_oracle: false };
    let shrunk = shrink(target).expect("the game fails, so it shrinks");

    assert!(!shrunk.disabled.contains(Defect::MissedPress), "the missed press is the cause: {}", shrunk.disabled);
    for harmless in [Defect::DisplayFreeze, Defect::Pause] {
        assert!(shrunk.disabled.contains(harmless), "{harmless:?} is not needed: {}", shrunk.disabled);
    }
    let trace = shrunk.record.trace.as_ref().unwrap();
    assert!(trace.iter().any(|line| line.contains("press missed")), "the shrunk trace shows the missed press");
    assert!(!failure_reasons(&scenario, &shrunk.record).is_empty());

    // Minimal: one move fewer per player and the failure is gone.
    let shorter = play_variant(target, shrunk.disabled, shrunk.max_moves - 1, false);
    assert!(failure_reasons(&scenario, &shorter).is_empty(), "max_moves {} is not minimal", shrunk.max_moves);
}

#[test]
fn a_passing_game_has_nothing_to_shrink() {
    let scenario = Scenario::parse(SCENARIO, Path::new("shrink.toml")).unwrap();
    let clean = Scenario {
        device: DefectSet::NONE.with(Defect::MissedPress).apply_to_device(scenario.device),
        ..scenario.clone()
    };
    let target = Target { scenario: &clean, seed: 3, game: 0, swarm: false, tick_oracle: false };
    assert!(shrink(target).is_none());
}
