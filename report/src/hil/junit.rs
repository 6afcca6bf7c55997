//! `junit.xml` of a hardware-in-the-loop report.

use std::fmt::Write as _;

use super::{Folder, GameInfo as HilGame, Report as HilReport};
use crate::check::check_cases;
use crate::files::{Content, Written};
use crate::format::junit::{Case, CaseFailure, Suite, Suites};

/// `junit.xml`.
pub fn render_file<'s>(folder: &'s Folder, _: &Written) -> anyhow::Result<Content<'s>> {
    Ok(Content::Bytes(crate::format::junit::render(&hil_suites(&folder.report)).into_bytes()))
}

/// The JUnit document of a hardware-in-the-loop report: suite `checks`
/// with one case per check (every game played to its end, the firmware
/// matches the clock model, accounting drift within tolerance), suite
/// `games` with one case per game played and compared; a failing game's
/// failure names each mismatch with its press index and both values.
pub fn hil_suites(report: &HilReport) -> Suites {
    let prefix = format!("bench.hil.{}", report.scenario.name);
    let firmware = &report.firmware;
    let checks = Suite {
        name: format!("{prefix}.checks"),
        properties: vec![
            ("scenario".into(), report.scenario.name.clone()),
            ("scenario_file".into(), report.scenario.file.clone()),
            ("scenario_sha256".into(), report.scenario.sha256.clone()),
            ("seed".into(), report.seed.to_string()),
            ("games_requested".into(), report.games.requested.to_string()),
            ("games_played".into(), report.games.played.to_string()),
            ("command".into(), report.command.clone()),
            ("complete".into(), report.complete.to_string()),
            ("verdict".into(), report.verdict.clone()),
            ("board".into(), report.board.kind.clone()),
            ("board_description".into(), report.board.description.clone()),
            ("firmware_file".into(), firmware.file.clone()),
            ("firmware_sha256".into(), firmware.sha256.clone()),
            ("firmware_name".into(), firmware.name.clone().unwrap_or_default()),
            ("firmware_version".into(), firmware.version.map(|version| version.to_string()).unwrap_or_default()),
            ("bench_version".into(), report.bench_version.clone()),
        ],
        cases: check_cases(
            &format!("{prefix}.checks"),
            &report.checks,
            &format!(
                "{} ({} mismatches; {} of {} games passed)",
                report.command, report.mismatches.total, report.games.passed, report.games.requested
            ),
        ),
    };
    let games = Suite {
        name: format!("{prefix}.games"),
        properties: vec![
            ("mismatches_total".into(), report.mismatches.total.to_string()),
            ("games_played".into(), report.games.played.to_string()),
            ("games_complete".into(), report.games.complete.to_string()),
            ("games_passed".into(), report.games.passed.to_string()),
        ],
        cases: report
            .games_detail
            .iter()
            .map(|game| Case {
                classname: format!("{prefix}.games"),
                name: format!("game {}", game.game),
                failure: (!game.passed).then(|| game_failure(report, game)),
            })
            .collect(),
    };
    Suites { name: format!("bench hil {} on {}", report.scenario.name, report.board.kind), suites: vec![checks, games] }
}

fn press(index: Option<u64>) -> String {
    index.map_or_else(|| "before the first press".to_string(), |index| format!("press {index}"))
}

fn game_failure(report: &HilReport, game: &HilGame) -> CaseFailure {
    let mut reasons = game.run_problems();
    if game.mismatches_total > 0 {
        let quantities: Vec<String> =
            game.mismatches_by_quantity.iter().map(|(quantity, count)| format!("{quantity} {count}")).collect();
        reasons.push(format!("{} mismatches ({})", game.mismatches_total, quantities.join(", ")));
    }
    if reasons.is_empty() {
        reasons.push("incomplete".into());
    }
    let mut text = String::new();
    for reason in &reasons {
        let _ = writeln!(text, "{reason}");
    }
    for mismatch in &game.mismatches {
        let _ = writeln!(
            text,
            "{} at {} us ({}): model {}, firmware {}",
            press(mismatch.press_index),
            mismatch.at_us,
            mismatch.quantity,
            mismatch.model,
            mismatch.firmware
        );
    }
    let listed = game.mismatches.len() as u64;
    if game.mismatches_total > listed {
        let _ = writeln!(text, "… {} more (report.json lists the first {listed})", game.mismatches_total - listed);
    }
    if let (Some(model), Some(firmware)) = (&game.model, &game.firmware) {
        let _ = writeln!(text, "result: model {}, firmware {}", model.result, firmware.result);
    }
    let _ = writeln!(text, "replay: {}", report.command);
    if let Some(file) = &game.replay_file {
        let _ = writeln!(text, "replay file: {file}");
    }
    CaseFailure { message: reasons.join("; "), kind: "game".into(), text }
}
