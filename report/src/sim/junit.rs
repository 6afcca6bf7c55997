//! `junit.xml` of a simulation report.

use std::fmt::Write as _;

use super::report::Report;
use super::Folder;
use crate::check::check_cases;
use crate::files::{Content, Written};
use crate::format::junit::{Case, CaseFailure, Suite, Suites};

/// `junit.xml`.
pub fn render_file<'s>(folder: &'s Folder, _: &Written) -> anyhow::Result<Content<'s>> {
    Ok(Content::Bytes(crate::format::junit::render(&sim_suites(&folder.report)).into_bytes()))
}

/// The JUnit document of a simulation report: suite `checks` with one case
/// per check (the scenario's expectations, and that every game was played),
/// suite `games` with one case per kept failing game (its replay command in
/// the failure text; none when no game failed).
pub fn sim_suites(report: &Report) -> Suites {
    let prefix = format!("bench.sim.{}", report.scenario.name);
    let checks = Suite {
        name: format!("{prefix}.checks"),
        properties: vec![
            ("scenario".into(), report.scenario.name.clone()),
            ("scenario_file".into(), report.scenario.file.clone()),
            ("scenario_sha256".into(), report.scenario.sha256.clone()),
            ("seed".into(), report.seed.to_string()),
            ("games".into(), format!("{}..{}", report.games.start, report.games.end)),
            ("games_played".into(), report.games.played.to_string()),
            ("command".into(), report.command.clone()),
            ("complete".into(), report.complete.to_string()),
            ("verdict".into(), report.verdict.clone()),
            ("run_hash".into(), report.run_hash.clone()),
            ("bench_version".into(), report.bench_version.clone()),
        ],
        cases: check_cases(
            &format!("{prefix}.checks"),
            &report.checks,
            &format!("{} ({} of {} games failed)", report.command, report.games_failed, report.games.played),
        ),
    };
    let kept = report.failures.len() as u64;
    let mut games = Suite {
        name: format!("{prefix}.games"),
        properties: vec![
            ("games_failed".into(), report.games_failed.to_string()),
            ("failures_listed".into(), kept.to_string()),
            ("failures_kept_max".into(), report.failures_kept_max.to_string()),
        ],
        cases: Vec::new(),
    };
    for failure in &report.failures {
        let mut text = String::new();
        for reason in &failure.reasons {
            let _ = writeln!(text, "{reason}");
        }
        let _ = writeln!(text, "replay: {}", failure.replay);
        if let Some(file) = &failure.replay_file {
            let _ = writeln!(text, "replay file: {file}");
        }
        games.cases.push(Case {
            classname: format!("{prefix}.games"),
            name: format!("game {}", failure.game),
            failure: Some(CaseFailure { message: failure.reasons.join("; "), kind: "game".into(), text }),
        });
    }
    Suites { name: format!("bench sim {}", report.scenario.name), suites: vec![checks, games] }
}
