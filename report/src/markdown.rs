//! `summary.md`: the report for a person, in a terminal or on a CI page.
//! Verdict first, then the checks, the failures with their replay commands,
//! results, defects. Rendered from the same [`Report`] as `report.json`, so
//! the two never disagree.

use std::collections::BTreeSet;

use bench_sim::game::DefectCounts;

use super::json::Report;
use super::{DRIFT_PNG, DRIFT_SVG};

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
    for coverage_line in super::coverage::markdown(&report.coverage) {
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

/// The failing games, each with its reasons and replay command.
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
            super::html::ppm(range.min),
            super::html::ppm(range.max)
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
            super::html::percent(expected.games, report.games.played),
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

/// Inline code that survives backticks in `text`.
pub(crate) fn code(text: &str) -> String {
    let text = escape_text(text);
    let mut fence = String::from("`");
    while text.contains(fence.as_str()) {
        fence.push('`');
    }
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// A table cell: one line, pipes escaped.
pub(crate) fn cell(text: &str) -> String {
    escape_text(text).replace('|', "\\|")
}

/// Free text on one line (a reason or a description cannot break the
/// layout), with no hidden control character ([`crate::visible`]).
fn escape_text(text: &str) -> String {
    crate::visible::visible(&text.replace(['\n', '\r', '\t'], " ")).into_owned()
}

/// `1234567` → `1.234567 s`; under a second, in ms or µs.
pub(crate) fn micros(value_us: u64) -> String {
    if value_us >= 1_000_000 {
        format!("{}.{:06} s", value_us / 1_000_000, value_us % 1_000_000)
    } else if value_us >= 1_000 && value_us % 1_000 == 0 {
        format!("{} ms", value_us / 1_000)
    } else {
        format!("{value_us} µs")
    }
}

/// A signed measurement with `decimals` decimals: `+1.23`, `-0.50`, and
/// `0.00` for anything that rounds to zero, which `{:+.2}` shows as
/// `-0.00` or `+0.00`: a sign on nothing reads as a direction.
pub fn signed(value: f64, decimals: usize) -> String {
    let text = format!("{value:+.decimals$}");
    if text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// `2812500` → `2.8125 s`.
pub(crate) fn seconds(value_us: u64) -> String {
    format!("{} s", decimal(value_us, 6))
}

/// `units` counted in 10^-`decimals`, as a decimal number with only the
/// digits it needs: `decimal(12_500_000, 6)` is `12.5`, `decimal(84, 0)` is `84`.
pub fn decimal(units: u64, decimals: u32) -> String {
    let scale = 10u64.pow(decimals);
    let fraction = format!("{:0width$}", units % scale, width = decimals as usize);
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        format!("{}", units / scale)
    } else {
        format!("{}.{fraction}", units / scale)
    }
}

/// Numbers as a compact list: runs of three or more as ranges
/// (`0, 2, 4–8`), in ascending order, each once; `none` when empty.
pub(crate) fn number_ranges(numbers: &[u64]) -> String {
    let mut sorted = numbers.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut rest = sorted.as_slice();
    while let Some(&first) = rest.first() {
        // Sorted and distinct, so a step of one is a run of consecutive numbers.
        let run = 1 + rest.windows(2).take_while(|pair| pair[1] - pair[0] == 1).count();
        let (run_numbers, after) = rest.split_at(run);
        match run_numbers {
            [a, b] => parts.extend([a.to_string(), b.to_string()]),
            [a, .., last] => parts.push(format!("{a}–{last}")),
            _ => parts.push(first.to_string()),
        }
        rest = after;
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(", ")
    }
}

/// Sorts article numbers as numbers (`5.2` before `13.4`), the other
/// classes after them by name.
pub(crate) fn article_key(text: &str) -> (u8, Vec<u64>, String) {
    let number: String = text.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    let parts: Option<Vec<u64>> = number.split('.').map(|part| part.parse().ok()).collect();
    match parts {
        Some(parts) if !number.is_empty() => (0, parts, text.to_string()),
        _ => (1, Vec::new(), text.to_string()),
    }
}

/// The sentence on legal-move mode's 6.10 searches (None: none ran), for
/// `summary.md` and the console alike: a flag ruled "can mate" because the
/// search gave up is a ruling the reader should know rests on that reading.
pub fn mate_searches_sentence(searched: u64, gave_up: u64) -> Option<String> {
    (searched > 0).then(|| {
        format!(
            "6.10 searches on the real position: {searched}; {gave_up} gave up ({}) and were ruled \"can mate\".",
            super::html::percent(gave_up, searched)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_escapes_pipes_and_newlines() {
        assert_eq!(cell("a | b\nc"), "a \\| b c");
    }

    #[test]
    fn code_survives_backticks() {
        assert_eq!(code("bench sim"), "`bench sim`");
        assert_eq!(code("oracle `x`"), "`` oracle `x` ``");
        assert_eq!(code("`x`"), "`` `x` ``");
    }

    #[test]
    fn articles_sort_as_numbers() {
        let mut classes = vec!["move-bound", "13.4", "6.12 b)", "5.1", "6.10", "6.12 a)", "6.3"];
        classes.sort_by_key(|class| article_key(class));
        assert_eq!(classes, vec!["5.1", "6.3", "6.10", "6.12 a)", "6.12 b)", "13.4", "move-bound"]);
    }

    #[test]
    fn numbers_read_as_compact_ranges() {
        assert_eq!(number_ranges(&[0, 2, 4, 5, 6, 7, 8]), "0, 2, 4–8");
        assert_eq!(number_ranges(&[3, 1, 2, 2, 9, 10]), "1–3, 9, 10");
        assert_eq!(number_ranges(&[7]), "7");
        assert_eq!(number_ranges(&[u64::MAX - 2, u64::MAX - 1, u64::MAX]), format!("{}–{}", u64::MAX - 2, u64::MAX));
        assert_eq!(number_ranges(&[]), "none");
    }

    #[test]
    fn a_signed_value_that_rounds_to_zero_has_no_sign() {
        assert_eq!(signed(-0.001, 2), "0.00");
        assert_eq!(signed(0.004, 2), "0.00");
        assert_eq!(signed(-0.0, 3), "0.000");
        assert_eq!(signed(-0.005_1, 2), "-0.01");
        assert_eq!(signed(1.234_6, 3), "+1.235");
        assert_eq!(signed(-12.0, 0), "-12");
    }

    #[test]
    fn decimal_keeps_the_digits_a_number_has() {
        assert_eq!(decimal(84_000_000, 6), "84");
        assert_eq!(decimal(12_500_000, 6), "12.5");
        assert_eq!(decimal(32_768, 6), "0.032768");
        assert_eq!(decimal(995_000, 4), "99.5");
        assert_eq!(decimal(84, 0), "84");
    }

    #[test]
    fn durations_read_in_their_unit() {
        assert_eq!(micros(750), "750 µs");
        assert_eq!(micros(3_000), "3 ms");
        assert_eq!(micros(3_001), "3001 µs");
        assert_eq!(micros(2_812_500), "2.812500 s");
        assert_eq!(seconds(3_000_000), "3 s");
        assert_eq!(seconds(2_812_500), "2.8125 s");
        assert_eq!(seconds(500), "0.0005 s");
    }
}
