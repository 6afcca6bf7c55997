//! What a whole simulation report (`bench.sim.report/1`) always satisfies:
//! its games add up, and no count is larger than what it counts from.

use super::{at_most, impossible, sum, Problem, DRIFT_PPB_MAX, DRIFT_PPM_MAX};
use crate::report::json::Report;

const PLAYED: &str = "games.played";

/// Whether the field at `path` may be negative: the drift, and the
/// envelope's offsets and errors; every other number is a count, a time or
/// a hash.
pub(super) fn signed(path: &str) -> bool {
    path.starts_with("drift_ppb.")
        || (path.starts_with("drift_envelope.buckets[") && (path.contains(".offset_") || path.contains(".error_")))
}

/// What a whole simulation report always satisfies.
pub(super) fn check(report: &Report) -> Result<(), Problem> {
    let all_passed = report.checks.iter().all(|check| check.passed);
    let expected = if all_passed { "pass" } else { "fail" };
    if report.verdict != expected {
        return Err(Problem::Inconsistent(format!("verdict `{}` but the checks say `{expected}`", report.verdict)));
    }
    games(report)?;
    counts(report)?;
    failures(report)?;
    drift(report)?;
    if report.run_hash.len() != 16 || u64::from_str_radix(&report.run_hash, 16).is_err() {
        return Err(Problem::Inconsistent(format!("run_hash `{}` is not 16 hex digits", report.run_hash)));
    }
    Ok(())
}

/// The run's range of games, and how many of them were played.
fn games(report: &Report) -> Result<(), Problem> {
    let games = &report.games;
    let planned = games
        .end
        .checked_sub(games.start)
        .ok_or_else(|| impossible("games.end", format!("is {}, before games.start ({})", games.end, games.start)))?;
    at_most("games.end", games.end, games.total, "games.total")?;
    at_most("games.played", games.played, planned, "games.end - games.start")?;
    if report.complete && games.played != planned {
        return Err(Problem::Inconsistent(format!("complete, yet {} of {planned} games played", games.played)));
    }
    if report.complete && planned == 0 {
        // bench never writes one: a gate on it would pass having checked nothing.
        return Err(Problem::Inconsistent("complete, yet a run of no games".into()));
    }
    if report.agreement.games != games.played {
        return Err(Problem::Inconsistent(format!(
            "agreement over {} games, {} games played",
            report.agreement.games, games.played
        )));
    }
    Ok(())
}

/// Every count of games is at most the games played, and the counts of
/// which each game adds exactly one add up to them.
fn counts(report: &Report) -> Result<(), Problem> {
    let played = report.games.played;
    at_most("agreement.agreeing", report.agreement.agreeing, report.agreement.games, "agreement.games")?;
    let outcomes = &report.outcomes;
    for (field, count) in [
        ("games_with_violations", report.games_with_violations),
        ("games_failed", report.games_failed),
        ("nondeterministic_games", report.nondeterministic_games),
        ("outcomes.white", outcomes.white),
        ("outcomes.black", outcomes.black),
        ("outcomes.draw", outcomes.draw),
    ] {
        at_most(field, count, played, PLAYED)?;
    }
    // One outcome per game at most (both players forfeited: none).
    let field = "outcomes.white + outcomes.black + outcomes.draw";
    at_most(field, sum(field, [outcomes.white, outcomes.black, outcomes.draw])?, played, PLAYED)?;
    for (table, counts) in [
        ("results.device", &report.results.device),
        ("results.ideal", &report.results.ideal),
        ("articles", &report.articles),
    ] {
        for (key, count) in counts {
            at_most(&format!("{table}.{key}"), *count, played, PLAYED)?;
        }
    }
    // Every game ends in exactly one result class, on each clock.
    for (table, counts) in [("results.device", &report.results.device), ("results.ideal", &report.results.ideal)] {
        let total = sum(table, counts.values().copied())?;
        if total != played {
            return Err(Problem::Inconsistent(format!("{table} counts {total} games, {played} played")));
        }
    }
    for (index, class) in report.expected_classes.iter().enumerate() {
        let field = |key: &str| format!("expected_classes[{index}].{key}");
        at_most(&field("games"), class.games, played, PLAYED)?;
        if class.max_percent > 100 {
            return Err(impossible(field("max_percent"), format!("is {} %, more than 100 %", class.max_percent)));
        }
        at_most(&field("min_percent"), class.min_percent, class.max_percent, &field("max_percent"))?;
    }
    Ok(())
}

/// The failing games listed: the lowest-numbered of the run's, as many as
/// failed up to `failures_kept_max`, each once and in order.
fn failures(report: &Report) -> Result<(), Problem> {
    let listed = u64::try_from(report.failures.len()).unwrap_or(u64::MAX);
    if listed > report.failures_kept_max {
        return Err(impossible(
            "failures",
            format!("lists {listed} games, more than failures_kept_max ({})", report.failures_kept_max),
        ));
    }
    if listed != report.games_failed.min(report.failures_kept_max) {
        return Err(Problem::Inconsistent(format!(
            "{listed} failing games listed, {} failed, at most {} listed",
            report.games_failed, report.failures_kept_max
        )));
    }
    let games = report.games.start..report.games.end;
    let mut previous: Option<u64> = None;
    for (index, failure) in report.failures.iter().enumerate() {
        let field = format!("failures[{index}].game");
        if !games.contains(&failure.game) {
            return Err(impossible(
                field,
                format!("is {}, not a game of the run ({}..{})", failure.game, games.start, games.end),
            ));
        }
        if previous.is_some_and(|previous| previous >= failure.game) {
            return Err(impossible(field, format!("is {}, after a later game or again", failure.game)));
        }
        previous = Some(failure.game);
    }
    Ok(())
}

/// The device time base's rate error, a range of ppb, and its envelope.
fn drift(report: &Report) -> Result<(), Problem> {
    if let Some(range) = report.drift_ppb {
        if range.min > range.max {
            return Err(impossible("drift_ppb.min", format!("is {}, above drift_ppb.max ({})", range.min, range.max)));
        }
        for (field, ppb) in [("drift_ppb.min", range.min), ("drift_ppb.max", range.max)] {
            if ppb.unsigned_abs() > DRIFT_PPB_MAX {
                return Err(impossible(
                    field,
                    format!("is {ppb} ppb, beyond ±{DRIFT_PPM_MAX:e} ppm: no clock drifts that far"),
                ));
            }
        }
    }
    let envelope = &report.drift_envelope;
    for (index, bucket) in envelope.buckets.iter().enumerate() {
        let field = |key: &str| format!("drift_envelope.buckets[{index}].{key}");
        if bucket.index >= envelope.buckets_total {
            return Err(impossible(
                field("index"),
                format!("is {}, not one of drift_envelope.buckets_total ({})", bucket.index, envelope.buckets_total),
            ));
        }
        let ranges = [
            ("offset_min_us", bucket.offset_min_us, bucket.offset_max_us),
            ("error_min_us.white", bucket.error_min_us.white, bucket.error_max_us.white),
            ("error_min_us.black", bucket.error_min_us.black, bucket.error_max_us.black),
        ];
        for (key, min, max) in ranges {
            if min > max {
                return Err(impossible(field(key), format!("is {min}, above its maximum ({max})")));
            }
        }
    }
    Ok(())
}
