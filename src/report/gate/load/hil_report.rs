//! What a whole hardware-in-the-loop report (`bench.hil.report/1`) always
//! satisfies.

use crate::report::hil::{self, Report};

/// What a whole hardware-in-the-loop report always satisfies.
pub(super) fn check(report: &Report) -> Result<(), String> {
    let all_passed = report.checks.iter().all(|check| check.passed);
    let expected = if report.complete && all_passed { "pass" } else { "fail" };
    if report.verdict != expected {
        return Err(format!("verdict `{}` but the checks and completeness say `{expected}`", report.verdict));
    }
    let games = &report.games;
    if games.played > games.requested
        || games.complete > games.played
        || games.passed > games.complete
        || report.games_detail.len() as u64 != games.played
    {
        return Err(format!(
            "games: {} requested, {} played, {} complete, {} passed, {} detailed do not add up",
            games.requested,
            games.played,
            games.complete,
            games.passed,
            report.games_detail.len()
        ));
    }
    let detail = |predicate: fn(&hil::GameInfo) -> bool| {
        report.games_detail.iter().filter(|game| predicate(game)).count() as u64
    };
    if detail(|game| game.complete) != games.complete || detail(|game| game.passed) != games.passed {
        return Err("games.complete or games.passed differ from games_detail".into());
    }
    if report.complete && games.requested == 0 {
        return Err("complete, yet a run of no games".into());
    }
    if report.complete && (games.played != games.requested || games.complete != games.played) {
        return Err(format!("complete, yet {} of {} games played to their end", games.complete, games.requested));
    }
    let per_game = report.games_detail.iter().map(|game| game.mismatches_total).fold(0u64, u64::saturating_add);
    let by_quantity = report.mismatches.by_quantity.values().fold(0u64, |sum, count| sum.saturating_add(*count));
    if report.mismatches.total != per_game || report.mismatches.total != by_quantity {
        return Err(format!(
            "mismatches.total {} but the games have {per_game} and by_quantity {by_quantity}",
            report.mismatches.total
        ));
    }
    let percentiles_in_order = |latency: &hil::LatencyInfo| {
        latency.min_us <= latency.p50_us
            && latency.p50_us <= latency.p90_us
            && latency.p90_us <= latency.p99_us
            && latency.p99_us <= latency.max_us
    };
    if !report.latency.as_ref().is_none_or(percentiles_in_order) {
        return Err("latency percentiles are not in order (min <= p50 <= p90 <= p99 <= max)".into());
    }
    if !report.drift.measured && report.drift.ppm.is_some() {
        return Err("drift: not measured, yet a `ppm`".into());
    }
    // Empty in a report from before the histogram; else every fixed bin,
    // holding every press the percentiles count.
    if !report.latency_histogram.is_empty() {
        let edges: Vec<u64> = report.latency_histogram.iter().map(|bin| bin.from_us).collect();
        if edges != bench_hil::run::LATENCY_BIN_EDGES_US {
            return Err(format!(
                "latency_histogram: bins from {edges:?} µs, not bench's {:?}",
                bench_hil::run::LATENCY_BIN_EDGES_US
            ));
        }
        let binned = report.latency_histogram.iter().map(|bin| bin.presses).fold(0u64, u64::saturating_add);
        let presses = report.latency.map_or(0, |latency| latency.count);
        if binned != presses {
            return Err(format!("latency_histogram holds {binned} presses, latency.count {presses}"));
        }
    }
    Ok(())
}
