//! Games whose times run to days: the device's time base looks ahead at
//! most `timebase::AHEAD_MAX` minutes, and a deadline beyond that is found
//! by looking again at the horizon, at the same instant as if found at once.

use std::path::Path;

use bench_sim::defects::DefectSet;
use bench_sim::game::{self, GameSpec};
use bench_sim::scenario::Scenario;

fn first_game(text: &str) -> game::GameRecord {
    let scenario = Scenario::parse(text, Path::new("long.toml")).expect("the scenario parses");
    game::play(GameSpec {
        scenario: &scenario,
        seed: 1,
        game: 0,
        swarm: false,
        trace: true,
        model_oracle: true,
        disabled: DefectSet::default(),
        record_inputs: false,
        script: None,
    })
}

/// White thinks 55 h on a 100 000 s (27.8 h) clock running 250 ppm fast:
/// the device's flag falls 1 667 minutes ahead, past the look-ahead, at
/// the first instant its time reaches 100 000 s.
#[test]
fn a_flag_beyond_the_look_ahead_falls_at_its_exact_instant() {
    let record = first_game(
        "description = \"a flag days ahead\"\ncontrol = \"100000\"\nseed = 1\n\
         [players]\nthink = { distribution = \"uniform\", min_ms = 200000000, max_ms = 200000000 }\n\
         [board]\ncannot_mate = 0\n[device]\ndrift_ppm = 250\n",
    );
    let trace = record.trace.clone().unwrap_or_default().join("\n");
    assert_eq!(record.device.to_string(), "0-1 (6.10)", "{trace}");
    // device_us = true_us · 1 000 250 / 10⁶, rounded down: the first true
    // microsecond whose device time reaches 10¹¹ µs.
    let flag_true_us = (100_000_000_000u128 * 1_000_000).div_ceil(1_000_250) as u64;
    assert!(trace.contains(&format!("{flag_true_us:>14} ")), "no event at {flag_true_us}:\n{trace}");
}

/// A 1 000 000 s increment banks days at every move, so every deadline lies
/// past the look-ahead. Before the bound each press drew and kept a segment
/// per minute up to it: 400 moves took 17 s and 210 MB, 10 000 hours.
#[test]
fn ten_thousand_moves_on_a_million_second_increment_finish() {
    let record = first_game(
        "description = \"a long control\"\ncontrol = \"1000000+1000000\"\nseed = 1\n\
         [players]\nthink = { distribution = \"skewed\", min_ms = 300, max_ms = 11000 }\n\
         [board]\nends_per_move = 0\nmax_moves = 10000\n[device]\ndrift_ppm = 50\ndrift_walk_ppm = 10\n",
    );
    assert!(record.violations.is_empty(), "{:?}", record.violations);
    assert_eq!(record.moves.white, 10_000);
}
