//! Judges the clock core this program was built with, the way `bench sim`
//! would: every shipped scenario (`scenarios/*.toml`) with its own games and
//! seed and every oracle on, judged against its expectations; then each
//! over-the-board scenario under `--swarm` on a few seeds, where only the
//! oracles count (a swarm's defect mixes are not the scenario's own, so its
//! other expectations do not hold). Stops at the first failure.
//!
//! `scripts/mutants --judge sim` builds it against each mutant of
//! `clock/src` (`cargo build --release -p bench-sim --example judge_core`):
//! the independent model is not mutated, so a wrong core shows as a failed
//! check. Exit codes: 0 every check passed, 1 one failed (printed), 2 a
//! scenario file could not be read; a panic (101) is a crash.

use std::path::PathBuf;
use std::process::ExitCode;

use bench_sim::run::{self, RunOptions};
use bench_sim::scenario::Scenario;

/// Seeds of the swarm runs, and games per run.
const SWARM_SEEDS: [u64; 3] = [1, 2, 3];
const SWARM_GAMES: u64 = 40;

fn main() -> ExitCode {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.filter_map(Result::ok).map(|entry| entry.path()).collect(),
        Err(error) => {
            eprintln!("{}: {error}", dir.display());
            return ExitCode::from(2);
        }
    };
    files.retain(|file| file.extension().is_some_and(|extension| extension == "toml"));
    files.sort();
    let mut scenarios = Vec::new();
    for file in &files {
        match Scenario::load(file) {
            Ok(scenario) => scenarios.push(scenario),
            Err(error) => {
                eprintln!("{error}");
                return ExitCode::from(2);
            }
        }
    }
    for scenario in &scenarios {
        let options = RunOptions::scenario(scenario, 1);
        let summary = run::run(scenario, &options, &|_| {});
        if let Some(check) = run::judge(scenario, &summary).into_iter().find(|check| !check.passed) {
            println!("killed by {}: {}: {} (expected {})", scenario.name, check.name, check.measured, check.expected);
            return ExitCode::from(1);
        }
    }
    for scenario in scenarios.iter().filter(|scenario| scenario.correspondence.is_none()) {
        for seed in SWARM_SEEDS {
            let options = RunOptions { seed, games: 0..SWARM_GAMES, swarm: true, ..RunOptions::scenario(scenario, 1) };
            let summary = run::run(scenario, &options, &|_| {});
            if summary.games_with_violations > 0 {
                let first = summary.failures.first().map(|failure| failure.reasons.join("; ")).unwrap_or_default();
                println!("killed by {} --swarm --seed {seed}: {first}", scenario.name);
                return ExitCode::from(1);
            }
        }
    }
    println!("survived: {} scenarios and their swarms passed", scenarios.len());
    ExitCode::SUCCESS
}
