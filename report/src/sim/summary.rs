//! `summary.md`: the report for a person, in a terminal or on a CI page.
//! Verdict first, then the checks, the failures with their replay commands,
//! results, defects. Rendered from the same [`Report`] as `report.json`, so
//! the two never disagree.

use std::collections::BTreeSet;

use bench_sim::defects::DefectCounts;

use super::report::Report;
use super::Folder;
use crate::files::{Content, Written};
use crate::files::{DRIFT_PNG, DRIFT_SVG};
use crate::format::html::{percent, ppm};
use crate::format::markdown::{article_key, cell, code, escape_text, micros, seconds};

/// `summary.md`.
pub fn render_file<'s>(folder: &'s Folder, _: &Written) -> anyhow::Result<Content<'s>> {
    Ok(Content::Bytes(render(&folder.report, &folder.command_line).into_bytes()))
}

/// Renders `summary.md`. `command_line` is the run's command as typed.
pub fn render(report: &Report, command_line: &str) -> String {
    let mut out = String::new();
    let mut line = |text: &str| {
        out.push_str(text);
        out.push('\n');
    };
    verdict_and_run(&mut line, report, command_line);
    checks_section(&mut line, report);
    failures_section(&mut line, report);
    results_section(&mut line, report);
    articles_section(&mut line, report);
    for coverage_line in crate::coverage::markdown(&report.coverage) {
        line(&coverage_line);
    }
    line("");
    oracle_and_defects_sections(&mut line, report);
    drift_section(&mut line, report);
    out
}

/// The verdict, then what was run: scenario, file, control, seed, command.
fn verdict_and_run(line: &mut impl FnMut(&str), report: &Report, command_line: &str) {
    let failed = report.checks.iter().filter(|check| !check.passed).count();
    let verdict = if report.verdict == "pass" { "PASS" } else { "FAIL" };
    line(&format!("# {verdict}: simulation of `{}`", escape_text(&report.scenario.name)));
    line("");
    if report.verdict == "pass" {
        line(&format!("**{verdict}**: all {} checks passed.", report.checks.len()));
    } else {
        line(&format!("**{verdict}**: {failed} of {} checks failed.", report.checks.len()));
    }
    if !report.complete {
        line("");
        line(&format!(
            "**INCOMPLETE**: the run was interrupted after {} of {} games; every number below covers those \
             games only.",
            report.games.played,
            report.games.end.saturating_sub(report.games.start)
        ));
    }
    line("");
    line(&format!("- Scenario: {}", escape_text(&report.scenario.description)));
    line(&format!(
        "- File: {} (sha256 {})",
        code(&report.scenario.file),
        code(report.scenario.sha256.get(..16).unwrap_or(&report.scenario.sha256))
    ));
    line(&format!("- Control: {}, rules {}", code(&report.scenario.control), code(&report.scenario.rules)));
    let shard = match &report.shard {
        Some(shard) => format!(", shard {}/{}", shard.index, shard.count),
        None => String::new(),
    };
    line(&format!(
        "- Seed {}, games {}..{} ({} played){shard}, swarm {}",
        report.seed,
        report.games.start,
        report.games.end,
        report.games.played,
        if report.swarm { "on" } else { "off" }
    ));
    line(&format!("- Command: {}", code(command_line)));
    line(&format!("- Run hash: {}, bench {}", code(&report.run_hash), report.bench_version));
    line("");
}

/// Every check with its measured and expected value.
fn checks_section(line: &mut impl FnMut(&str), report: &Report) {
    line("## Checks");
    line("");
    line("| Check | Result | Measured | Expected |");
    line("| --- | --- | --- | --- |");
    for check in &report.checks {
        line(&format!(
            "| {} | {} | {} | {} |",
            cell(&check.name),
            if check.passed { "pass" } else { "**FAIL**" },
            cell(&check.measured),
            cell(&check.expected)
        ));
    }
    line("");
}

/// The failing games, each with its reasons, replay command and replay file.
fn failures_section(line: &mut impl FnMut(&str), report: &Report) {
    line("## Failures");
    line("");
    if report.failures.is_empty() {
        line("No game failed.");
    } else {
        let kept = report.failures.len() as u64;
        if kept >= report.failures_kept_max {
            line(&format!("The {kept} lowest-numbered failing games (there may be more):"));
        } else {
            line(&format!("Failing games ({kept}):"));
        }
        line("");
        for failure in &report.failures {
            let reasons: Vec<String> = failure.reasons.iter().map(|reason| escape_text(reason)).collect();
            line(&format!("- **Game {}**: {}", failure.game, reasons.join("; ")));
            line(&format!("  - replay: {}", code(&failure.replay)));
            if let Some(file) = &failure.replay_file {
                line(&format!("  - replay file: {}", code(file)));
            }
        }
    }
    line("");
}

/// Games by how they ended, on the device and the ideal clock, and the outcomes.
fn results_section(line: &mut impl FnMut(&str), report: &Report) {
    line("## Results");
    line("");
    line(
        "Games by how they ended (the article of the final ruling, or who won), on the simulated device and on a \
         perfect clock given the same presses.",
    );
    line("");
    line("| Class | Device | Ideal clock |");
    line("| --- | ---: | ---: |");
    let classes: BTreeSet<&String> = report.results.device.keys().chain(report.results.ideal.keys()).collect();
    let mut classes: Vec<&String> = classes.into_iter().collect();
    classes.sort_by_key(|class| article_key(class));
    for class in classes {
        let device = report.results.device.get(class).copied().unwrap_or(0);
        let ideal = report.results.ideal.get(class).copied().unwrap_or(0);
        line(&format!("| {} | {device} | {ideal} |", cell(class)));
    }
    line("");
    expected_classes(line, report);
    let outcomes = &report.outcomes;
    line(&format!(
        "Outcomes on the device: White won {}, Black won {}, drawn {}. Device and ideal clock agree in {} of {} \
         games. Largest device-ideal time error at a press: {}.",
        outcomes.white,
        outcomes.black,
        outcomes.draw,
        report.agreement.agreeing,
        report.agreement.games,
        micros(report.max_time_error_us)
    ));
    line("");
}

/// The articles applied, with the games each was applied in.
fn articles_section(line: &mut impl FnMut(&str), report: &Report) {
    line("## Articles applied");
    line("");
    if report.articles.is_empty() {
        line("No article was applied.");
    } else {
        line("| Article | Games |");
        line("| --- | ---: |");
        let mut articles: Vec<(&String, &u64)> = report.articles.iter().collect();
        articles.sort_by_key(|(article, _)| article_key(article));
        for (article, games) in articles {
            line(&format!("| {} | {games} |", cell(article)));
        }
    }
    line("");
}

/// What the oracle checked, and the defects and interventions counted.
fn oracle_and_defects_sections(line: &mut impl FnMut(&str), report: &Report) {
    line("## Oracle coverage");
    line("");
    line(&report.oracle_coverage.sentence());
    line("");

    line("## Defects");
    line("");
    line("| Defect or intervention | Count |");
    line("| --- | ---: |");
    for (name, count) in defect_rows(&report.defects) {
        line(&format!("| {name} | {count} |"));
    }
    line("");
    line(&format!(
        "{} presses, {} events, {} games with oracle violations.",
        report.presses, report.events, report.games_with_violations
    ));
    line("");
    if let Some(sentence) = mate_searches_sentence(report.mate_searches.searched, report.mate_searches.gave_up) {
        line(&sentence);
        line("");
    }
}

/// The drift envelope plot and the time base's rate error.
fn drift_section(line: &mut impl FnMut(&str), report: &Report) {
    line("## Drift");
    line("");
    line(&format!(
        "Device display minus ideal display, and device time minus true time, across games \
         ({} buckets of {} with samples): [{DRIFT_SVG}]({DRIFT_SVG}), [{DRIFT_PNG}]({DRIFT_PNG}).",
        report.drift_envelope.buckets.len(),
        seconds(report.drift_envelope.bucket_us)
    ));
    line("");
    line(&match report.drift_ppb {
        Some(range) => format!(
            "Device time base rate error since each game's start (positive: fast; samples 10 s or more into a game): {} to {}.",
            ppm(range.min),
            ppm(range.max)
        ),
        None => "Device time base rate error: not measured (no sample 10 s or more into a game).".into(),
    });
    line("");
    line(&format!("![drift]({DRIFT_SVG})"));
}

/// What an article class of `[[expect.result]]` counts, where its games are
/// shown: unlike a final result, a ruling that lets play go on is counted.
pub(crate) const ARTICLE_CLASSES: &str = "An article class counts every game in which the device applied that \
     article, also when play went on (6.3, 6.12 a)); a game can be in more than one class, so the classes can \
     add up to more than the games. `white`, `black`, `draw` and `move-bound` count how games ended.";

/// The classes the scenario expects, each with its games and share: every
/// `games in class` check has its row here, a ruling that let play go on
/// (which no game ends with) included.
fn expected_classes(line: &mut impl FnMut(&str), report: &Report) {
    if report.expected_classes.is_empty() {
        return;
    }
    line("Classes the scenario expects (`[[expect.result]]`), on the device:");
    line("");
    line("| Class | Games | Share | Expected |");
    line("| --- | ---: | ---: | --- |");
    for expected in &report.expected_classes {
        line(&format!(
            "| {} | {} | {} | {} % to {} % |",
            cell(&expected.class),
            expected.games,
            percent(expected.games, report.games.played),
            expected.min_percent,
            expected.max_percent
        ));
    }
    line("");
    line(ARTICLE_CLASSES);
    line("");
}

/// Each defect and arbiter intervention by name, with its count: the
/// device's defects first, then the arbiter's interventions.
pub(crate) fn defect_rows(defects: &DefectCounts) -> impl Iterator<Item = (&'static str, u64)> + '_ {
    defects.iter().map(|(kind, count)| (kind.label(), count))
}

/// The sentence on legal-move mode's 6.10 searches (None: none ran), for
/// `summary.md` and the console alike: a flag ruled "can mate" because the
/// search gave up is a ruling the reader should know rests on that reading.
pub fn mate_searches_sentence(searched: u64, gave_up: u64) -> Option<String> {
    (searched > 0).then(|| {
        format!(
            "6.10 searches on the real position: {searched}; {gave_up} gave up ({}) and were ruled \"can mate\".",
            percent(gave_up, searched)
        )
    })
}
