//! A run plays exactly its games, whatever their numbers: the last slice of
//! u64::MAX games ends at u64::MAX, where a shared counter bumped once per
//! thread past the end used to wrap to 0 and play on for ever.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bench_sim::run::{self, Controls, RunOptions};
use bench_sim::scenario::Scenario;

const SHORT: &str = "description = \"short games\"\ncontrol = \"10+1\"\nseed = 3\n\
                     [players]\nthink = { distribution = \"uniform\", min_ms = 500, max_ms = 900 }\n";

#[test]
fn the_last_games_of_u64_max_are_played_once_each() {
    let scenario = Scenario::parse(SHORT, Path::new("short.toml")).expect("the scenario parses");
    for (games, jobs) in [(1u64, 2usize), (1, 4), (3, 2), (5, 3)] {
        let mut options = RunOptions::scenario(&scenario, jobs);
        options.model_oracle = false;
        options.games = u64::MAX - games..u64::MAX;
        // Without a bound the test would hang: stop once more games are
        // done than the run has (progress comes every 64 games at most).
        let done = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let progress = |finished: u64| {
            done.fetch_max(finished, Ordering::Relaxed);
            if finished > games {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let summary = run::run_with(
            &scenario,
            &options,
            &Controls { progress: &progress, check_determinism: false, stop: Some(&stop) },
        );
        assert_eq!(summary.games, games, "{games} games on {jobs} threads");
        assert_eq!(done.load(Ordering::Relaxed), games);
    }
}
