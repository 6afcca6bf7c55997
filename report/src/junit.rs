//! `junit.xml`: the report for a CI system's test view (GitLab, Jenkins,
//! GitHub test reporters, Azure): one test case per check, and one per
//! failing game with its replay command (simulation) or per compared game
//! (hardware in the loop).
//!
//! Two layers, like `index.html`: [`Suites`] is the generic JUnit document
//! (any report kind builds one), [`render`] writes it with every string
//! escaped, and [`sim_suites`] and [`hil_suites`] build a simulation
//! report's and a hardware-in-the-loop report's.
//!
//! The dialect is the common subset every reader accepts: `<testsuites>`
//! holding `<testsuite name tests failures errors skipped>` with
//! `<properties>` and `<testcase classname name>`, a failing case holding
//! `<failure message type>` with the details as text. No `time` or
//! `timestamp`: the file is a function of `report.json` alone, byte for
//! byte.

use std::fmt::Write as _;

use super::hil::{GameInfo as HilGame, Report as HilReport};
use super::json::{CheckInfo, Report};

/// A JUnit document.
pub struct Suites {
    pub name: String,
    pub suites: Vec<Suite>,
}

pub struct Suite {
    pub name: String,
    pub properties: Vec<(String, String)>,
    pub cases: Vec<Case>,
}

pub struct Case {
    pub classname: String,
    pub name: String,
    pub failure: Option<CaseFailure>,
}

pub struct CaseFailure {
    /// One line: what failed, measured against expected.
    pub message: String,
    /// The kind of failure (`check`, `game`).
    pub kind: String,
    /// The details, several lines.
    pub text: String,
}

/// The document's text: UTF-8, XML 1.0, two-space indent, final newline.
pub fn render(document: &Suites) -> String {
    let cases = |suite: &Suite| suite.cases.len();
    let failures = |suite: &Suite| suite.cases.iter().filter(|case| case.failure.is_some()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">",
        attribute(&document.name),
        document.suites.iter().map(cases).sum::<usize>(),
        document.suites.iter().map(failures).sum::<usize>()
    );
    for suite in &document.suites {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">",
            attribute(&suite.name),
            cases(suite),
            failures(suite)
        );
        if !suite.properties.is_empty() {
            out.push_str("    <properties>\n");
            for (name, value) in &suite.properties {
                let _ = writeln!(out, "      <property name=\"{}\" value=\"{}\"/>", attribute(name), attribute(value));
            }
            out.push_str("    </properties>\n");
        }
        for case in &suite.cases {
            let head = format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                attribute(&case.classname),
                attribute(&case.name)
            );
            match &case.failure {
                None => {
                    let _ = writeln!(out, "{head}/>");
                }
                Some(failure) => {
                    let _ = writeln!(
                        out,
                        "{head}>\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                        attribute(&failure.message),
                        attribute(&failure.kind),
                        text(&failure.text)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Character data: `& < >` as references; characters XML 1.0 does not
/// allow (most control characters) as visible `[U+XXXX]`.
pub fn text(value: &str) -> String {
    escape(value, false)
}

/// An attribute value in double quotes: as [`text`], plus `" '`, and line
/// breaks and tabs as character references (a parser would otherwise
/// normalise them to spaces).
pub fn attribute(value: &str) -> String {
    escape(value, true)
}

fn escape(value: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' if attribute => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' | '\t' => out.push(c),
            // `\r` in text would be normalised away; everything else below
            // U+0020 is not allowed in XML 1.0, nor are U+FFFE and U+FFFF.
            // Bidirectional overrides are allowed, but would reverse what
            // a CI page shows: visible like every other control.
            c if (c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' || crate::visible::is_hidden_control(c)) => {
                let _ = write!(out, "[U+{:04X}]", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
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
        games.cases.push(Case {
            classname: format!("{prefix}.games"),
            name: format!("game {}", failure.game),
            failure: Some(CaseFailure { message: failure.reasons.join("; "), kind: "game".into(), text }),
        });
    }
    Suites { name: format!("bench sim {}", report.scenario.name), suites: vec![checks, games] }
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

/// One case per check; a failing one's text ends with `report_line`: the
/// command that made the report and how its games went.
fn check_cases(classname: &str, checks: &[CheckInfo], report_line: &str) -> Vec<Case> {
    checks
        .iter()
        .map(|check| Case {
            classname: classname.to_string(),
            name: check.name.clone(),
            failure: (!check.passed).then(|| CaseFailure {
                message: format!("measured {}; expected {}", check.measured, check.expected),
                kind: "check".into(),
                text: format!(
                    "check: {}\nmeasured: {}\nexpected: {}\nreport: {report_line}\n",
                    check.name, check.measured, check.expected
                ),
            }),
        })
        .collect()
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
    CaseFailure { message: reasons.join("; "), kind: "game".into(), text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_keeps_the_document_well_formed() {
        assert_eq!(text("a < b && c > d"), "a &lt; b &amp;&amp; c &gt; d");
        assert_eq!(attribute("say \"hi\"\n'x'\t"), "say &quot;hi&quot;&#10;&apos;x&apos;&#9;");
        assert_eq!(text("bell\u{7}\r"), "bell[U+0007][U+000D]");
        assert_eq!(text("\u{FFFF}é"), "[U+FFFF]é");
    }

    #[test]
    fn hostile_strings_parse_back_unchanged() {
        let hostile = "]]><!-- \"quoted\" 'single' & <tag attr=\"x\"> \u{1} end";
        let document = Suites {
            name: hostile.into(),
            suites: vec![Suite {
                name: hostile.into(),
                properties: vec![(hostile.into(), hostile.into())],
                cases: vec![Case {
                    classname: hostile.into(),
                    name: hostile.into(),
                    failure: Some(CaseFailure { message: hostile.into(), kind: "check".into(), text: hostile.into() }),
                }],
            }],
        };
        let xml = render(&document);
        let parsed = roxmltree::Document::parse(&xml).expect("well-formed XML");
        let shown = hostile.replace('\u{1}', "[U+0001]");
        let case = parsed.descendants().find(|node| node.has_tag_name("testcase")).expect("a test case");
        assert_eq!(case.attribute("name"), Some(shown.as_str()));
        let failure = case.first_element_child().expect("a failure");
        assert_eq!(failure.attribute("message"), Some(shown.as_str()));
        assert_eq!(failure.text(), Some(shown.as_str()));
    }

    // ---- hardware-in-the-loop suites ----

    use crate::hil::tests::{sample_report, with_mismatches};

    /// A test case: its name, and its failure's message and text.
    type ReadCase = (String, Option<(String, String)>);

    /// (suite name, its cases) of `xml`, checking the counts every reader
    /// relies on.
    fn read(xml: &str) -> Vec<(String, Vec<ReadCase>)> {
        let document = roxmltree::Document::parse(xml).expect("well-formed XML");
        let root = document.root_element();
        assert_eq!(root.tag_name().name(), "testsuites");
        let number = |node: roxmltree::Node, name: &str| -> usize {
            node.attribute(name).and_then(|value| value.parse().ok()).expect("a count attribute")
        };
        let (mut all_cases, mut all_failures) = (0, 0);
        let mut suites = Vec::new();
        for suite in root.children().filter(|node| node.has_tag_name("testsuite")) {
            let mut cases = Vec::new();
            for case in suite.children().filter(|node| node.has_tag_name("testcase")) {
                let failure = case.children().find(|node| node.has_tag_name("failure")).map(|failure| {
                    (
                        failure.attribute("message").unwrap_or_default().to_string(),
                        failure.text().unwrap_or_default().to_string(),
                    )
                });
                cases.push((case.attribute("name").unwrap_or_default().to_string(), failure));
            }
            let failures = cases.iter().filter(|(_, failure)| failure.is_some()).count();
            assert_eq!(number(suite, "tests"), cases.len());
            assert_eq!(number(suite, "failures"), failures);
            all_cases += cases.len();
            all_failures += failures;
            suites.push((suite.attribute("name").unwrap_or_default().to_string(), cases));
        }
        assert_eq!(number(root, "tests"), all_cases);
        assert_eq!(number(root, "failures"), all_failures);
        suites
    }

    #[test]
    fn a_hil_report_has_a_case_per_check_and_per_compared_game() {
        let report = with_mismatches(sample_report(), 60);
        let xml = render(&hil_suites(&report));
        let suites = read(&xml);
        assert_eq!(suites.len(), 2);
        let (checks_name, checks) = &suites[0];
        assert_eq!(checks_name, "bench.hil.blitz-3-2.checks");
        let names: Vec<&str> = checks.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "every game played to its end",
                "the firmware matches the clock model",
                "accounting drift within tolerance"
            ]
        );
        let (message, _) = checks[1].1.as_ref().expect("the match check failed");
        assert_eq!(
            message,
            "measured 60 mismatches in 2 compared games; expected 0 mismatches, within one firmware tick"
        );
        assert!(checks[0].1.is_none() && checks[2].1.is_none());

        let (games_name, games) = &suites[1];
        assert_eq!(games_name, "bench.hil.blitz-3-2.games");
        assert_eq!(games.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(), ["game 0", "game 1"]);
        assert!(games[0].1.is_none(), "game 0 matched");
        let (message, text) = games[1].1.as_ref().expect("game 1 failed");
        assert_eq!(message, "60 mismatches (press.remaining_us 60)");
        assert!(text.contains("press 3 at 3500000 us (press.remaining_us): model 58.500000 s, firmware 58.000000 s"));
        assert!(text.contains("press 52 at"), "every listed mismatch");
        assert!(text.contains("… 10 more (report.json lists the first 50)"), "{text}");
        assert!(text.contains("replay: bench hil --board qemu --scenario blitz-3-2 --seed 12 --games 2"), "{text}");
        assert!(xml.contains(&format!("<property name=\"firmware_sha256\" value=\"{}\"/>", report.firmware.sha256)));
    }

    #[test]
    fn a_passing_hil_report_has_no_failure_and_an_incomplete_game_says_why() {
        let xml = render(&hil_suites(&sample_report()));
        assert!(read(&xml).iter().flat_map(|(_, cases)| cases).all(|(_, failure)| failure.is_none()), "{xml}");
        let mut report = sample_report();
        if let Some(game) = report.games_detail.last_mut() {
            (game.complete, game.passed, game.error) = (false, false, Some("the firmware went silent".into()));
        }
        let suites = read(&render(&hil_suites(&report)));
        let (message, _) = suites[1].1[1].1.as_ref().expect("the game failed");
        assert_eq!(message, "did not play to its end: the firmware went silent");
    }
}
