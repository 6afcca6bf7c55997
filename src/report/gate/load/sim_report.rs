//! What a whole simulation report (`bench.sim.report/1`) always satisfies.

use crate::report::json::Report;

/// What a whole simulation report always satisfies.
pub(super) fn check(report: &Report) -> Result<(), String> {
    let all_passed = report.checks.iter().all(|check| check.passed);
    let expected = if all_passed { "pass" } else { "fail" };
    if report.verdict != expected {
        return Err(format!("verdict `{}` but the checks say `{expected}`", report.verdict));
    }
    let games = &report.games;
    let planned = games.end.checked_sub(games.start).ok_or("games.end is before games.start")?;
    if games.played > planned || games.end > games.total {
        return Err(format!(
            "games {}..{} of {} with {} played do not add up",
            games.start, games.end, games.total, games.played
        ));
    }
    if report.complete && games.played != planned {
        return Err(format!("complete, yet {} of {planned} games played", games.played));
    }
    if report.complete && planned == 0 {
        // bench never writes one: a gate on it would pass having checked nothing.
        return Err("complete, yet a run of no games".into());
    }
    if report.agreement.games != games.played || report.agreement.agreeing > report.agreement.games {
        return Err(format!(
            "agreement {} of {} over {} games played",
            report.agreement.agreeing, report.agreement.games, games.played
        ));
    }
    if report.games_failed < report.failures.len() as u64 || report.games_failed > games.played {
        return Err(format!(
            "{} failing games listed, {} failed, {} played",
            report.failures.len(),
            report.games_failed,
            games.played
        ));
    }
    if report.run_hash.len() != 16 || u64::from_str_radix(&report.run_hash, 16).is_err() {
        return Err(format!("run_hash `{}` is not 16 hex digits", report.run_hash));
    }
    Ok(())
}
