//! Simulator throughput: presses per second, per core and on all cores.
//!
//! `cargo bench -p bench-sim --bench throughput` prints one line per
//! configuration. Performance goals are checked here, by a person or a CI
//! job reading the ratios, never in timed unit tests.
//!
//! Set `BENCH_PERF_GAMES` to change the game count (default 2000) and
//! `BENCH_PERF_ONLY` to one of `abstract`, `jobs2`, `tick`, `legal` to run
//! one configuration (handy under `perf record`).

use std::path::Path;
use std::time::Instant as WallClock;

use bench_sim::run::{self, RunOptions};
use bench_sim::scenario::Scenario;

/// Abstract moves, full rules, the invariant oracles and every defect on.
const DEFECTS: &str = r#"
description = "throughput: abstract moves, all invariant oracles, every defect"
control = "300+2"
games = 2000
seed = 1
[players]
think = { distribution = "skewed", min_ms = 100, max_ms = 12000 }
time_trouble = { below_ms = 20000, percent = 10 }
[board]
ends_per_move = "1/120"
[device]
drift_ppm = 40
drift_walk_ppm = 10
jitter_us = 300
bounce = { chance = "1/20", min_ms = 1, max_ms = 40 }
missed_press = "1/300"
double_press = "1/200"
stuck_button = { chance = "1/1000", min_ms = 200, max_ms = 2000 }
brownout = { chance = "1/3000" }
display_freeze = { chance = "1/500", min_ms = 500, max_ms = 3000 }
[expect]
agreement_min_percent = 0
"#;

/// Random legal moves on a real board: checkmate, stalemate, dead positions
/// and the flag rulings' "can the opponent still mate" on the position.
const LEGAL: &str = r#"
description = "throughput: random legal moves, all invariant oracles"
control = "180"
games = 500
seed = 1
moves = "legal"
[players]
think = { distribution = "uniform", min_ms = 300, max_ms = 2500 }
[expect]
agreement_min_percent = 0
"#;

/// The issue's goals, per core: abstract moves with every defect and the
/// invariants on, and legal moves.
const ABSTRACT_GOAL_PER_CORE: f64 = 20e6;
const LEGAL_GOAL_PER_CORE: f64 = 2e6;
const JOBS2_GOAL_RATIO: f64 = 1.8;

/// One line saying how far a figure is from its goal.
fn against_goal(what: &str, measured: f64, goal: f64) {
    let verdict = if measured >= goal { "met" } else { "NOT met" };
    println!("  goal {what} >= {goal:.3e}: measured {:.2} of it ({verdict})", measured / goal);
}

fn measure(label: &str, scenario: &Scenario, games: u64, jobs: usize, tick_oracle: bool) -> f64 {
    let options = RunOptions { seed: 1, games: 0..games, jobs, swarm: false, tick_oracle };
    let started = WallClock::now();
    let summary = run::run(scenario, &options, &|_| {});
    let seconds = started.elapsed().as_secs_f64();
    let presses_per_s = summary.presses as f64 / seconds;
    println!(
        "{label:<44} jobs {jobs}: {games} games, {} presses in {seconds:.3} s = {:.3} M presses/s",
        summary.presses,
        presses_per_s / 1e6
    );
    presses_per_s
}

fn main() {
    let games: u64 = std::env::var("BENCH_PERF_GAMES").ok().and_then(|games| games.parse().ok()).unwrap_or(2_000);
    let only = std::env::var("BENCH_PERF_ONLY").ok();
    let wanted = |name: &str| only.as_deref().is_none_or(|only| only == name);
    let scenario = Scenario::parse(DEFECTS, Path::new("throughput.toml")).expect("the benchmark scenario parses");
    let legal = Scenario::parse(LEGAL, Path::new("throughput-legal.toml")).expect("the legal scenario parses");
    let one = wanted("abstract").then(|| measure("abstract, invariants, defects", &scenario, games, 1, false));
    if let Some(one) = one {
        against_goal("abstract presses/s per core", one, ABSTRACT_GOAL_PER_CORE);
    }
    let two = wanted("jobs2").then(|| measure("abstract, invariants, defects", &scenario, games, 2, false));
    if let (Some(one), Some(two)) = (one, two) {
        println!("jobs 2 / jobs 1 = {:.2}x", two / one);
        against_goal("jobs 2 / jobs 1", two / one, JOBS2_GOAL_RATIO);
    }
    if wanted("tick") {
        measure("abstract, invariants + tick model, defects", &scenario, games / 10, 1, true);
    }
    if wanted("legal") {
        let legal = measure("legal moves (chess + chasolver), invariants", &legal, games / 4, 1, false);
        against_goal("legal presses/s per core", legal, LEGAL_GOAL_PER_CORE);
    }
}
