//! `summary.md` of a HIL run.

use super::Folder;
use super::{MismatchInfo, Report, BOARD_COLUMNS, MISMATCHES_LISTED};
use crate::files::{Content, Written, DRIFT_SVG};
use crate::format::markdown::{cell, code, signed};

fn seconds(us: u64) -> String {
    bench_hil::judge::compare::seconds(us)
}

/// `summary.md`.
pub fn render_file<'s>(folder: &'s Folder, _: &Written) -> anyhow::Result<Content<'s>> {
    Ok(Content::Bytes(render_summary(&folder.report).into_bytes()))
}

/// `summary.md`: verdict first, then checks, games, boards (of a probe run
/// or a farm), mismatches, timing.
pub fn render_summary(report: &Report) -> String {
    let mut out = String::new();
    let mut line = |text: &str| {
        out.push_str(text);
        out.push('\n');
    };
    verdict_and_run(&mut line, report);
    checks_section(&mut line, report);
    games_section(&mut line, report);
    if report.shows_boards() {
        boards_section(&mut line, report);
    }
    if report.mismatches.total > 0 {
        mismatches_section(&mut line, report);
    }
    timing_section(&mut line, report);
    out
}

/// The verdict (and why a run is incomplete), then the board, firmware,
/// scenario and command.
fn verdict_and_run(line: &mut impl FnMut(&str), report: &Report) {
    let verdict = if report.verdict == "pass" { "PASS" } else { "FAIL" };
    line(&format!(
        "# {verdict}: `{}` on {} ({})",
        cell(&report.scenario.name),
        report.board.kind,
        cell(&report.firmware.file)
    ));
    line("");
    let failed = report.checks.iter().filter(|check| !check.passed).count();
    if report.verdict == "pass" {
        line(&format!("**{verdict}**: all {} checks passed.", report.checks.len()));
    } else {
        line(&format!("**{verdict}**: {failed} of {} checks failed.", report.checks.len()));
    }
    if !report.complete {
        line("");
        let why = report
            .error
            .clone()
            .or_else(|| report.games_detail.iter().find_map(|game| game.error.clone()))
            .unwrap_or_else(|| "records were lost".to_string());
        line(&format!(
            "**INCOMPLETE**: {} of {} games played to their end ({}); every number below covers what was seen.",
            report.games.complete,
            report.games.requested,
            cell(&why)
        ));
    }
    line("");
    line(&format!("- Board: {} — {}", report.board.kind, cell(&report.board.description)));
    let firmware = match (&report.firmware.name, report.firmware.version, report.firmware.tick_us) {
        (Some(name), Some(version), Some(tick)) => format!(", `{}` v{version}, tick {tick} µs", cell(name)),
        _ => ", no Hello record".to_string(),
    };
    line(&format!(
        "- Firmware: {} (sha256 {}){firmware}",
        code(&report.firmware.file),
        code(report.firmware.sha256.get(..16).unwrap_or(&report.firmware.sha256))
    ));
    if let Some(capabilities) = &report.firmware.capabilities {
        line(&format!("- Clock: {}", capabilities_text(capabilities)));
    }
    line(&format!("- Scenario: {} — {}", code(&report.scenario.name), cell(&report.scenario.description)));
    line(&format!(
        "- Control: {}, seed {}, games {}",
        code(&report.scenario.control),
        report.seed,
        report.games.requested
    ));
    line(&format!("- Command: {}", code(&report.command)));
    line("");
}

/// Every check, then the largest difference of each time quantity.
fn checks_section(line: &mut impl FnMut(&str), report: &Report) {
    line("## Checks");
    line("");
    line("| | check | measured | expected |");
    line("|---|---|---|---|");
    for check in &report.checks {
        line(&format!(
            "| {} | {} | {} | {} |",
            if check.passed { "PASS" } else { "**FAIL**" },
            cell(&check.name),
            cell(&check.measured),
            cell(&check.expected)
        ));
    }
    let largest = report.largest_differences();
    if !largest.is_empty() {
        line("");
        let items: Vec<String> = largest.iter().map(|(key, text)| format!("{} {text}", code(key))).collect();
        line(&format!(
            "Largest differences, each judged from the firmware's own state after its side's last press \
             (`rounding.accumulated_us`: the rounding that added up): {}.",
            items.join(" · ")
        ));
    }
    line("");
}

/// One row per game, then the rule coverage.
fn games_section(line: &mut impl FnMut(&str), report: &Report) {
    line("## Games");
    line("");
    line("| game | played | presses sent / registered | guest time | schedule end | result (model) | result (firmware) | mismatches |");
    line("|---|---|---|---|---|---|---|---|");
    for game in &report.games_detail {
        let played = match (&game.error, game.complete) {
            (Some(error), _) => format!("**incomplete**: {}", cell(error)),
            (None, false) => "**incomplete**: records lost".to_string(),
            (None, true) => "yes".to_string(),
        };
        line(&format!(
            "| {} | {played} | {} / {} of {} | {} | {} | {} | {} | {} |",
            game.game,
            game.presses_sent,
            game.presses_registered,
            game.presses_scheduled,
            seconds(game.guest_us),
            cell(&game.schedule_end),
            game.model.as_ref().map_or("—".to_string(), |side| cell(&side.result)),
            game.firmware.as_ref().map_or("—".to_string(), |side| cell(&side.result)),
            game.mismatches_total
        ));
    }
    line("");
    let replays: Vec<String> = (report.games_detail.iter())
        .filter_map(|game| game.replay_file.as_ref().map(|file| format!("game {}: {}", game.game, code(file))))
        .collect();
    if !replays.is_empty() {
        line(&format!("Replay files of the failing games (`bench hil --replay FILE`): {}.", replays.join(" · ")));
        line("");
    }
    for coverage_line in super::super::coverage::markdown(&report.coverage) {
        line(&coverage_line);
    }
}

/// The boards of a probe run or a farm, and the oscillator fit.
fn boards_section(line: &mut impl FnMut(&str), report: &Report) {
    line("");
    line("## Boards");
    line("");
    line(&format!("| {} |", BOARD_COLUMNS.map(|column| column.to_lowercase()).join(" | ")));
    line(&format!("|{}", "---|".repeat(BOARD_COLUMNS.len())));
    for board in &report.boards {
        line(&format!("| {} |", board.table_cells().map(|text| cell(&text)).join(" | ")));
    }
    if let Some(fit) = report.oscillator_fit_text() {
        line("");
        line(&format!("The board's oscillator: its cycle counter against host monotonic time. {fit}."));
    }
}

/// The mismatches: totals, where each quantity first differed, and the
/// first of each game.
fn mismatches_section(line: &mut impl FnMut(&str), report: &Report) {
    line("");
    line("## Mismatches");
    line("");
    let totals: Vec<String> =
        report.mismatches.by_quantity.iter().map(|(key, value)| format!("{} {value}", code(key))).collect();
    line(&format!("{} in all: {}.", report.mismatches.total, totals.join(" · ")));
    line("");
    line("Where each difference began (the first mismatch of each quantity):");
    line("");
    mismatch_table(
        line,
        &mut report.games_detail.iter().flat_map(|game| game.first_of_each.iter().map(move |m| (game.game, m))),
    );
    line("");
    line(&format!("The first {MISMATCHES_LISTED} of each game, in the order found:"));
    line("");
    mismatch_table(
        line,
        &mut report.games_detail.iter().flat_map(|game| game.mismatches.iter().map(move |m| (game.game, m))),
    );
}

/// A table of mismatches, each with its game.
fn mismatch_table(line: &mut dyn FnMut(&str), rows: &mut dyn Iterator<Item = (u64, &MismatchInfo)>) {
    line("| game | press | at | quantity | model | firmware |");
    line("|---|---|---|---|---|---|");
    for (game, mismatch) in rows {
        line(&format!(
            "| {game} | {} | {} | {} | {} | {} |",
            mismatch.press_index.map_or("before the first".to_string(), |index| index.to_string()),
            seconds(mismatch.at_us),
            code(&mismatch.quantity),
            cell(&mismatch.model),
            cell(&mismatch.firmware)
        ));
    }
}

/// Accounting drift, press latency (and on a board, its own), records.
fn timing_section(line: &mut impl FnMut(&str), report: &Report) {
    line("");
    line("## Timing");
    line("");
    let drift = &report.drift;
    match (drift.ppm, drift.ci_half_ppm) {
        (Some(ppm), Some(half)) => line(&format!(
            "- Accounting drift (firmware clock against {}): **{} ppm ± {half:.2}** ({:.0} % CI; {} of {} samples over {:.1} s; residual sd {:.1} µs, max {:.1} µs); tolerance ±{} ppm.",
            drift.reference,
            signed(ppm, 2),
            drift.confidence.unwrap_or(0.0) * 100.0,
            drift.used,
            drift.samples,
            drift.span_s.unwrap_or(0.0),
            drift.residual_sd_us.unwrap_or(0.0),
            drift.residual_max_us.unwrap_or(0.0),
            drift.tolerance_ppm
        )),
        _ => line(&format!(
            "- Accounting drift: not measured ({}).",
            cell(drift.error.as_deref().unwrap_or("no samples"))
        )),
    }
    if let Some(note) = &drift.note {
        line(&format!("  Note: {}", cell(note)));
    }
    match &report.latency {
        Some(latency) => line(&format!(
            "- Press latency, edge to registered (the firmware's `handled_at_us − at_us`, {} presses): p50 {} µs, p90 {} µs, p99 {} µs, max {} µs.",
            latency.count, latency.p50_us, latency.p90_us, latency.p99_us, latency.max_us
        )),
        None => line("- Press latency: no presses."),
    }
    if let Some(board) = &report.board_latency {
        let (latency, bracket) = (&board.latency, &board.bracket);
        line(&format!(
            "- Press latency on the board (the cycle counter read before the pin write to the firmware's edge stamp, an upper bound; {} presses): p50 {} µs, p90 {} µs, p99 {} µs, max {} µs; write bracket p50 {} µs, p99 {} µs, max {} µs; {} bracketed presses without a Press record.",
            latency.count,
            latency.p50_us,
            latency.p90_us,
            latency.p99_us,
            latency.max_us,
            bracket.p50_us,
            bracket.p99_us,
            bracket.max_us,
            board.unmatched
        ));
    }
    line(&format!("- Records: {} read, {} missing from the sequence.", report.records.total, report.records.lost));
    line("");
    line(&format!("![drift]({DRIFT_SVG})"));
}

/// What the firmware supports, in words: the controls, the arbiter's
/// functions and the kind of clock 6.12 asks about.
pub fn capabilities_text(capabilities: &super::CapabilitiesInfo) -> String {
    let list = |items: &[String]| if items.is_empty() { "none".to_string() } else { items.join(", ") };
    format!(
        "controls {}; arbiter {}; {} which flag fell first (6.12){}",
        list(&capabilities.controls),
        list(&capabilities.arbiter),
        if capabilities.shows_flag_order { "shows" } else { "does not show" },
        if capabilities.announced { "" } else { " — assumed: no Capabilities record before contract 3" }
    )
}
