//! The release suite (`scenarios/release/`) reaches the states and the
//! player behaviour a rule table cannot list (every transition and kind
//! is checked in `sim/tests/release_suite.rs`): a game after a game
//! ended in each way, on the same boot, and presses at the edges the Laws
//! and the contract allow. Computed from the schedules `bench hil` plays
//! (the scenario's own seed and games), so a scenario edited so that it
//! no longer reaches one fails here, before any board runs.

use std::collections::BTreeSet;
use std::path::Path;

use bench_hil::schedule::{schedule, Schedule, ScheduleEnd};
use bench_sim::scenario::Scenario;
use chessclock::{Clock, Duration, Instant, Side};

fn release_suite() -> Vec<(Scenario, Vec<Schedule>)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/release");
    let suite = Scenario::load_folder(&folder).unwrap_or_else(|error| panic!("{error}"));
    suite
        .into_iter()
        .map(|scenario| {
            let games = (0..scenario.games)
                .map(|game| schedule(&scenario, scenario.seed, game).unwrap_or_else(|error| panic!("{error}")))
                .collect();
            (scenario, games)
        })
        .collect()
}

/// How a game ended, as the firmware is left by it: the state `reset`
/// must clear before the next game. The match lists every way a schedule
/// can end, so a new one does not build until it is named here.
fn ending(game: &Schedule) -> &'static str {
    match game.end {
        ScheduleEnd::Board { .. } => "on the board (5.1, 5.2), the clock running",
        ScheduleEnd::MoveBound => "at the move bound, the clock running",
        ScheduleEnd::Flag { .. } => {
            let sides: BTreeSet<Side> = game.flags.iter().map(|flag| flag.side).collect();
            if sides.len() == 2 {
                "both flags down (6.12)"
            } else {
                "a flag down (6.10)"
            }
        }
        ScheduleEnd::DefaultTime { .. } => "a player absent beyond the default time (6.7)",
    }
}

const EVERY_ENDING: [&str; 5] = [
    "on the board (5.1, 5.2), the clock running",
    "at the move bound, the clock running",
    "both flags down (6.12)",
    "a flag down (6.10)",
    "a player absent beyond the default time (6.7)",
];

/// A firmware's `reset` must leave nothing of the game before (contract
/// §4): a flag still shown, a clock still running. `bench hil` plays a
/// scenario's games on one boot, so a game that follows another in the
/// same scenario is played after `reset` from the state that one left.
#[test]
fn a_game_follows_a_game_ended_in_each_way_on_the_same_boot() {
    let mut followed = BTreeSet::new();
    for (_, games) in release_suite() {
        for game in games.iter().rev().skip(1) {
            followed.insert(ending(game));
        }
    }
    let missing: Vec<&str> = EVERY_ENDING.into_iter().filter(|end| !followed.contains(end)).collect();
    assert!(
        missing.is_empty(),
        "no release scenario plays a game after one that ended {missing:?}: give one more `games`"
    );
}

/// A press with 1 ms left on the mover's clock, which is in time (6.3 a)),
/// the other side of the edge from a press as the time runs out: the
/// firmware must not take its own flag first. Found on the model clock
/// replaying the schedule's presses (scenarios with arbiter commands or a
/// pause are left out: their presses alone do not give the times).
#[test]
fn a_release_scenario_presses_in_the_last_millisecond() {
    let last_ms = Duration::from_us(1_000);
    let mut found = Vec::new();
    for (scenario, games) in release_suite() {
        for game in &games {
            let plain = game.commands.is_empty() && game.presses.iter().all(|press| press.move_number > 0);
            if !plain {
                continue;
            }
            let mut clock = Clock::new(scenario.control.control);
            clock.start(Instant::EPOCH).expect("the clock starts");
            for press in &game.presses {
                let at = Instant::from_us(press.offset_us);
                let left = clock.remaining(press.side, at).expect("a time left");
                if clock.flag(press.side).is_none() && left > Duration::ZERO && left <= last_ms {
                    found.push(format!(
                        "{} game {} {} move {}",
                        scenario.name, game.game, press.side, press.move_number
                    ));
                }
                if clock.press(press.side, at).is_err() {
                    break;
                }
            }
        }
    }
    assert!(found.len() >= 2, "no release scenario presses in the last millisecond of a clock: {found:?}");
}

/// A reply as soon as the opponent's button is up: the fastest two presses
/// of a game come, since the harness never presses a button while the
/// other is down (hold 30–60 ms) nor within its firmware's declared
/// debounce window.
#[test]
fn a_release_scenario_replies_as_soon_as_the_opponents_button_is_up() {
    const SOON_US: u64 = 10_000;
    let mut found = Vec::new();
    for (scenario, games) in release_suite() {
        for game in &games {
            for pair in game.presses.windows(2) {
                let released_us = pair[0].offset_us + pair[0].hold_us;
                if pair[1].side != pair[0].side && (released_us..=released_us + SOON_US).contains(&pair[1].offset_us) {
                    found.push(format!(
                        "{} game {} {}: {} µs",
                        scenario.name,
                        game.game,
                        pair[1].side,
                        pair[1].offset_us - released_us
                    ));
                }
            }
        }
    }
    assert!(!found.is_empty(), "no release scenario replies within {SOON_US} µs of the opponent's release");
}
