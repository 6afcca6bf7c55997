//! Simulator throughput: presses per second, per core and on two cores,
//! each against its goal (`bench_sim::perf`, which `bench perf` prints too).
//!
//! `cargo bench -p bench-sim --bench throughput`. Set `BENCH_PERF_GAMES` to
//! change the game count (default 2000) and `BENCH_PERF_ONLY` to one of
//! `abstract`, `model`, `jobs2`, `legal`, `peers` to run one measurement (handy under
//! `perf record` or callgrind).

use bench_sim::perf::{self, Measure};

fn main() {
    let games: u64 = std::env::var("BENCH_PERF_GAMES").ok().and_then(|games| games.parse().ok()).unwrap_or(2_000);
    let only = std::env::var("BENCH_PERF_ONLY").ok().map(|name| {
        Measure::parse(&name)
            .unwrap_or_else(|| panic!("BENCH_PERF_ONLY={name}: use abstract, model, jobs2, legal or peers"))
    });
    perf::measure(games, only, &mut |line| println!("{line}")).expect("the benchmark scenarios parse");
}
