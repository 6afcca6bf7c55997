//! What a whole simulation report (`bench.sim.report/1`) always satisfies:
//! its games add up, no count is larger than what it counts from, its drift
//! is a clock's, and each check is what its numbers give.

use std::collections::BTreeSet;

use bench_sim::coverage::EXERCISES_CHECK;
use bench_sim::run::{self, class_check, AGREEMENT_CHECK, DETERMINISM_CHECK, ORACLE_CHECK, TIME_ERROR_CHECK};

use super::{at_most, impossible, sum, Problem, DRIFT_PPB_MAX, DRIFT_PPM_MAX};
use crate::check::CheckInfo;
use crate::sim::report::{Report, COMPLETE_CHECK};

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
    shard(report)?;
    counts(report)?;
    failures(report)?;
    drift(report)?;
    checks(report)?;
    failed_games(report)?;
    super::coverage(&report.coverage, report.games.played)?;
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

/// `--shard I/N`: 1 <= I <= N, and the games are the I-th of N slices of
/// `games.total` (`bench_sim::run::shard_range`); without it, all of them.
fn shard(report: &Report) -> Result<(), Problem> {
    let games = &report.games;
    let (expected, whose) = match &report.shard {
        Some(shard) => {
            if shard.index == 0 {
                return Err(impossible("shard.index", "is 0, but shards count from 1"));
            }
            at_most("shard.index", shard.index, shard.count, "shard.count")?;
            let slice = run::shard_range(games.total, shard.index, shard.count).unwrap_or(0..0);
            (slice, format!("shard {}/{} of games.total ({})", shard.index, shard.count, games.total))
        }
        None => (0..games.total, format!("an unsharded run of games.total ({})", games.total)),
    };
    if (games.start, games.end) != (expected.start, expected.end) {
        return Err(Problem::Inconsistent(format!(
            "games {}..{}, but {whose} plays games {}..{}",
            games.start, games.end, expected.start, expected.end
        )));
    }
    Ok(())
}

/// Every count of games is at most the games played, and the counts of
/// which each game adds exactly one add up to them.
fn counts(report: &Report) -> Result<(), Problem> {
    let played = report.games.played;
    at_most("agreement.agreeing", report.agreement.agreeing, report.agreement.games, "agreement.games")?;
    let searches = &report.mate_searches;
    at_most("mate_searches.gave_up", searches.gave_up, searches.searched, "mate_searches.searched")?;
    let oracle = &report.oracle_coverage;
    at_most("oracle_coverage.calls_checked", oracle.calls_checked, oracle.calls, "oracle_coverage.calls")?;
    at_most("oracle_coverage.games", oracle.games, played, PLAYED)?;
    at_most("oracle_coverage.games_checked", oracle.games_checked, oracle.games, "oracle_coverage.games")?;
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

/// Every check agrees with the numbers it summarises: judged again from
/// them as `bench_sim::run::judge` judges, it passes or fails as the report
/// says. The checks are the ones a run makes, each once; the expected
/// classes' checks in the classes' order.
fn checks(report: &Report) -> Result<(), Problem> {
    let mut names = BTreeSet::new();
    let mut classes = report.expected_classes.iter();
    for check in &report.checks {
        // Two expectations may share a class; the other checks are made once.
        let is_class = classes.as_slice().first().is_some_and(|class| class_check(&class.class) == check.name);
        if !names.insert(check.name.as_str()) && !is_class {
            return Err(Problem::Inconsistent(format!("check `{}` is there twice", check.name)));
        }
        let judged = match check.name.as_str() {
            ORACLE_CHECK => report.games_with_violations == 0,
            AGREEMENT_CHECK => {
                let minimum = u128::from(expected_number(check, ">= ", " %")?);
                u128::from(report.agreement.agreeing) * 100 >= minimum * u128::from(report.games.played)
            }
            TIME_ERROR_CHECK => report.max_time_error_us <= expected_number(check, "<= ", " us")?,
            COMPLETE_CHECK => {
                report.complete && Some(report.games.played) == report.games.end.checked_sub(report.games.start)
            }
            DETERMINISM_CHECK => report.nondeterministic_games == 0,
            EXERCISES_CHECK => super::exercises_judged(check, &report.coverage),
            name => {
                let class = classes.next().filter(|class| class_check(&class.class) == name).ok_or_else(|| {
                    Problem::Inconsistent(format!("check `{name}` is not one a run makes, or not in its place"))
                })?;
                let (count, played) = (u128::from(class.games), u128::from(report.games.played));
                count * 100 >= u128::from(class.min_percent) * played
                    && count * 100 <= u128::from(class.max_percent) * played
            }
        };
        if judged != check.passed {
            return Err(super::contradicted(&check.name, check.passed));
        }
    }
    let mut required = vec![ORACLE_CHECK, AGREEMENT_CHECK, COMPLETE_CHECK];
    if report.options.check_determinism {
        required.push(DETERMINISM_CHECK);
    }
    let missing: Vec<String> = required
        .into_iter()
        .filter(|name| !names.contains(name))
        .map(str::to_string)
        .chain(classes.map(|class| class_check(&class.class)))
        .collect();
    if !missing.is_empty() {
        return Err(Problem::Inconsistent(format!("no check `{}`", missing.join("`, `"))));
    }
    if names.contains(DETERMINISM_CHECK) && !report.options.check_determinism {
        return Err(Problem::Inconsistent(format!("check `{DETERMINISM_CHECK}`, yet no --check-determinism")));
    }
    Ok(())
}

/// The number in a check's `expected`, written `{prefix}N{suffix}` by
/// `bench_sim::run::judge`.
fn expected_number(check: &CheckInfo, prefix: &str, suffix: &str) -> Result<u64, Problem> {
    check
        .expected
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix(suffix))
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            Problem::Inconsistent(format!(
                "check `{}` expects `{}`, not `{prefix}N{suffix}`",
                check.name, check.expected
            ))
        })
}

/// The games that failed against what fails a game: each game with an
/// oracle violation, a time error beyond the bound, and (when full
/// agreement is expected) a result unlike the ideal clock's.
fn failed_games(report: &Report) -> Result<(), Problem> {
    let failed = report.games_failed;
    if report.nondeterministic_games > 0 && !report.options.check_determinism {
        return Err(Problem::Inconsistent(format!(
            "{} nondeterministic games without --check-determinism",
            report.nondeterministic_games
        )));
    }
    let mut at_least = vec![("an oracle violation (games_with_violations)", report.games_with_violations)];
    for check in &report.checks {
        match check.name.as_str() {
            TIME_ERROR_CHECK if !check.passed => {
                at_least.push(("a time error beyond the bound (max_time_error_us)", 1));
            }
            AGREEMENT_CHECK if expected_number(check, ">= ", " %")? == 100 => {
                // counts() has refused agreeing above games: never clamps.
                let disagreeing = report.agreement.games.saturating_sub(report.agreement.agreeing);
                at_least.push(("a result unlike the ideal clock's, where all must agree (agreement)", disagreeing));
            }
            _ => {}
        }
    }
    if let Some((why, count)) = at_least.into_iter().find(|(_, count)| *count > failed) {
        return Err(Problem::Inconsistent(format!("games_failed is {failed}, yet {count} games had {why}")));
    }
    Ok(())
}
