//! The release suite's verdict over its scenarios (`bench hil` with no
//! `--scenario`): what passed, what failed, and first of all which rules
//! of the clock model were **not tested** on this firmware.
//!
//! A scenario the firmware announces it cannot run is skipped, and the
//! rules it exists for (its `exercises`) go untested unless another
//! scenario that was played exercises them. A firmware that runs 2 of the
//! suite's scenarios must not pass the suite as if it ran them all: an
//! untested rule fails the suite unless the run waives it by name
//! (`bench hil --waive RULE`), so a release decision on a clock that lacks
//! byo-yomi says so in writing.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use chessclock::Transition;

use crate::format::junit::{self, Case, CaseFailure, Suite, Suites};
use crate::{atomic, files};

/// Written in a HIL suite's folder: the suite's summary.
pub const SUITE_MD: &str = "suite.md";
/// Written in a report folder instead of the report's own files
/// ([`files::FILES`]) when nothing was played there: why.
pub const SKIPPED_MD: &str = "skipped.md";

/// Writes the suite's `suite.md` and `junit.xml` into its folder `base`.
pub fn write_suite(base: &Path, verdict: &Verdict) -> anyhow::Result<()> {
    for (file, text) in [(SUITE_MD, &verdict.markdown), (files::JUNIT_XML, &verdict.junit)] {
        std::fs::create_dir_all(base)
            .map_err(anyhow::Error::from)
            .and_then(|()| atomic::write_bytes(base, file, text.as_bytes()).map(|_| ()))
            .with_context(|| format!("writing {}", base.join(file).display()))?;
    }
    Ok(())
}

/// A scenario's folder when the firmware cannot run it: `skipped.md` says
/// `why`, and no report.
pub fn write_skipped(out_dir: &Path, scenario: &str, why: &dyn std::fmt::Display) -> anyhow::Result<()> {
    let text = format!(
        "# SKIPPED: `{scenario}`\n\nNothing was played: {why}. A firmware announces what it supports in its \
         Capabilities record (hil/CONTRACT.md, contract 3).\n"
    );
    write_nothing_played(out_dir, &text)
}

/// A scenario's folder holding `text` in `skipped.md` and no report: an
/// earlier run's report there is removed, so no gate or CI reads it as
/// this run's.
pub fn write_nothing_played(out_dir: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::create_dir_all(out_dir)?;
    for stale in [files::REPORT_JSON, files::JUNIT_XML, files::SUMMARY_MD, files::INDEX_HTML] {
        atomic::remove_if_exists(out_dir, stale)?;
    }
    atomic::write_bytes(out_dir, SKIPPED_MD, text.as_bytes()).map(|_| ())
}

/// How one scenario of the suite went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    Failed,
    /// Not played: the firmware cannot run it, for this reason.
    Skipped(String),
}

/// One scenario of the suite and the rules it exists for.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub outcome: Outcome,
    /// Its `[expect] exercises`: transition keys of the clock model.
    pub exercises: Vec<String>,
}

/// A rule no played scenario tested, and the skipped scenarios that would have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Untested {
    pub rule: String,
    pub article: &'static str,
    /// Skipped scenarios that exercise it, each with why it was skipped.
    pub skipped: Vec<(String, String)>,
    pub waived: bool,
}

/// The suite's verdict, in every form it is shown in.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// Every played scenario passed, something was played, and every
    /// untested rule is waived.
    pub passed: bool,
    pub untested: Vec<Untested>,
    /// For the console: the untested rules first, then the scenarios.
    pub console: String,
    /// `suite.md`.
    pub markdown: String,
    /// `junit.xml` of the suite: one case per untested rule, then one per scenario.
    pub junit: String,
}

/// The article a transition key names, or "" for a key the core does not know.
fn article(rule: &str) -> &'static str {
    Transition::from_key(rule).map_or("", Transition::article)
}

/// Rules exercised by a skipped scenario and by no played one, in the
/// order of the model's transitions (unknown keys last, by name).
pub fn untested(entries: &[Entry], waived: &[String]) -> Vec<Untested> {
    let played = |rule: &str| {
        entries.iter().any(|entry| {
            !matches!(entry.outcome, Outcome::Skipped(_)) && entry.exercises.iter().any(|exercised| exercised == rule)
        })
    };
    let mut by_rule: BTreeMap<(usize, String), Vec<(String, String)>> = BTreeMap::new();
    for entry in entries {
        let Outcome::Skipped(why) = &entry.outcome else { continue };
        for rule in entry.exercises.iter().filter(|rule| !played(rule)) {
            let order = Transition::ALL.iter().position(|t| t.key() == rule).unwrap_or(Transition::ALL.len());
            by_rule.entry((order, rule.clone())).or_default().push((entry.name.clone(), why.clone()));
        }
    }
    by_rule
        .into_iter()
        .map(|((_, rule), skipped)| Untested { waived: waived.contains(&rule), article: article(&rule), rule, skipped })
        .collect()
}

/// The suite's verdict on `entries`, with `waived` rules (transition keys)
/// not held against it.
pub fn verdict(entries: &[Entry], waived: &[String]) -> Verdict {
    let untested = untested(entries, waived);
    let count = |wanted: fn(&Outcome) -> bool| entries.iter().filter(|entry| wanted(&entry.outcome)).count();
    let passed_count = count(|outcome| *outcome == Outcome::Passed);
    let failed: Vec<&str> =
        entries.iter().filter(|entry| entry.outcome == Outcome::Failed).map(|entry| entry.name.as_str()).collect();
    let skipped_count = count(|outcome| matches!(outcome, Outcome::Skipped(_)));
    let unwaived = untested.iter().filter(|rule| !rule.waived).count();
    let nothing_played = passed_count == 0 && failed.is_empty();
    let passed = failed.is_empty() && !nothing_played && unwaived == 0;

    let mut line = format!("suite release: {passed_count} of {} scenarios passed", entries.len());
    if skipped_count > 0 {
        let _ = write!(line, ", {skipped_count} skipped (the firmware cannot run them)");
    }
    if !failed.is_empty() {
        let _ = write!(line, " (failed: {})", failed.join(", "));
    }
    if nothing_played {
        line.push_str(": nothing was played, so nothing passed");
    }
    let not_tested = not_tested_text(&untested, unwaived);
    let mut console = not_tested.clone();
    console.push_str(&line);
    console.push('\n');
    for entry in entries {
        if let Outcome::Skipped(why) = &entry.outcome {
            let _ = writeln!(console, "  skipped {}: {why}", entry.name);
        }
    }
    Verdict {
        passed,
        markdown: markdown(entries, &untested, &line, unwaived),
        junit: junit_text(entries, &untested),
        untested,
        console,
    }
}

/// The console's first lines: each untested rule with its article and
/// where it would have been tested; empty when every rule was tested.
fn not_tested_text(untested: &[Untested], unwaived: usize) -> String {
    if untested.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "NOT TESTED on this firmware: {} rule{} of the suite ({unwaived} not waived)\n",
        untested.len(),
        if untested.len() == 1 { "" } else { "s" }
    );
    for rule in untested {
        let scenarios: Vec<&str> = rule.skipped.iter().map(|(name, _)| name.as_str()).collect();
        let _ = writeln!(
            text,
            "  {} {} ({}): scenario {} skipped",
            if rule.waived { "waived  " } else { "UNTESTED" },
            rule.rule,
            rule.article,
            scenarios.join(", ")
        );
    }
    if unwaived > 0 {
        let rules: Vec<&str> = untested.iter().filter(|rule| !rule.waived).map(|rule| rule.rule.as_str()).collect();
        let _ = writeln!(
            text,
            "  the suite fails on untested rules; a release that accepts them says so: --waive {}",
            rules.join(",")
        );
    }
    text
}

fn markdown(entries: &[Entry], untested: &[Untested], line: &str, unwaived: usize) -> String {
    let mut out = format!("# {line}\n\n");
    if !untested.is_empty() {
        let _ = writeln!(out, "## Not tested on this firmware ({unwaived} not waived)\n");
        out.push_str("| rule | article | waived | scenarios skipped, and why |\n|---|---|---|---|\n");
        for rule in untested {
            let why: Vec<String> = rule.skipped.iter().map(|(name, why)| format!("`{name}`: {why}")).collect();
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                rule.rule,
                rule.article,
                if rule.waived { "yes" } else { "**no**" },
                why.join("; ")
            );
        }
        out.push('\n');
    }
    out.push_str("## Scenarios\n\n| scenario | verdict | why |\n|---|---|---|\n");
    for entry in entries {
        let (verdict, why) = match &entry.outcome {
            Outcome::Passed => ("pass", ""),
            Outcome::Failed => ("FAIL", ""),
            Outcome::Skipped(why) => ("skipped", why.as_str()),
        };
        let _ = writeln!(out, "| `{}` | {verdict} | {why} |", entry.name);
    }
    out
}

fn junit_text(entries: &[Entry], untested: &[Untested]) -> String {
    let rules = untested
        .iter()
        .map(|rule| Case {
            classname: "not-tested".to_string(),
            name: format!("{} ({})", rule.rule, rule.article),
            failure: (!rule.waived).then(|| CaseFailure {
                message: format!("{} was not tested on this firmware and is not waived", rule.rule),
                kind: "not-tested".to_string(),
                text: rule.skipped.iter().map(|(name, why)| format!("{name} skipped: {why}\n")).collect(),
            }),
        })
        .collect();
    let scenarios = entries
        .iter()
        .map(|entry| Case {
            classname: "scenario".to_string(),
            name: entry.name.clone(),
            failure: match &entry.outcome {
                Outcome::Passed => None,
                Outcome::Failed => Some(CaseFailure {
                    message: format!("{} failed its gate", entry.name),
                    kind: "scenario".to_string(),
                    text: format!("its report: {}/\n", entry.name),
                }),
                Outcome::Skipped(why) => Some(CaseFailure {
                    message: format!("{} was skipped: {why}", entry.name),
                    kind: "skipped".to_string(),
                    text: format!("{why}\n"),
                }),
            },
        })
        .collect();
    junit::render(&Suites {
        name: "bench hil suite release".to_string(),
        suites: vec![
            Suite { name: "not tested".to_string(), properties: Vec::new(), cases: rules },
            Suite { name: "scenarios".to_string(), properties: Vec::new(), cases: scenarios },
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, outcome: Outcome, exercises: &[&str]) -> Entry {
        Entry { name: name.to_string(), outcome, exercises: exercises.iter().map(ToString::to_string).collect() }
    }

    fn skipped(why: &str) -> Outcome {
        Outcome::Skipped(why.to_string())
    }

    fn suite() -> Vec<Entry> {
        vec![
            entry("1-fischer", Outcome::Passed, &["press", "increment"]),
            entry("5-byo-yomi", skipped("no byo-yomi"), &["overtime.begins", "byo-yomi.period-lost"]),
            entry("6-canadian", skipped("no Canadian"), &["overtime.begins", "canadian.block-reset"]),
            entry("9-two-games", Outcome::Passed, &["increment"]),
        ]
    }

    #[test]
    fn a_rule_only_skipped_scenarios_exercise_fails_the_suite_and_is_listed_first() {
        let verdict = verdict(&suite(), &[]);
        assert!(!verdict.passed);
        let rules: Vec<&str> = verdict.untested.iter().map(|rule| rule.rule.as_str()).collect();
        assert_eq!(rules, ["overtime.begins", "byo-yomi.period-lost", "canadian.block-reset"]);
        assert_eq!(verdict.untested[0].skipped.len(), 2, "both scenarios that would test it");
        assert!(verdict.console.starts_with("NOT TESTED on this firmware: 3 rules"), "{}", verdict.console);
        assert!(verdict.console.contains("--waive overtime.begins,byo-yomi.period-lost,canadian.block-reset"));
        let not_tested = verdict.markdown.find("## Not tested").expect("a not-tested section");
        assert!(not_tested < verdict.markdown.find("## Scenarios").expect("scenarios"), "{}", verdict.markdown);
        assert!(verdict.junit.contains("failures=\"5\""), "3 rules and 2 skipped scenarios:\n{}", verdict.junit);
        assert!(verdict.junit.find("not-tested").expect("rules") < verdict.junit.find("\"scenario\"").expect("x"));
    }

    #[test]
    fn every_untested_rule_waived_passes_and_still_says_what_was_not_tested() {
        let waived: Vec<String> =
            ["overtime.begins", "byo-yomi.period-lost", "canadian.block-reset"].map(String::from).to_vec();
        let verdict = verdict(&suite(), &waived);
        assert!(verdict.passed, "{}", verdict.console);
        assert!(verdict.console.starts_with("NOT TESTED on this firmware: 3 rules of the suite (0 not waived)"));
        assert!(verdict.junit.contains("failures=\"2\""), "the skipped scenarios still show:\n{}", verdict.junit);
        let partly = verdict_of(&waived[..2]);
        assert!(!partly.passed, "one rule left unwaived fails");
    }

    fn verdict_of(waived: &[String]) -> Verdict {
        verdict(&suite(), waived)
    }

    #[test]
    fn a_rule_a_played_scenario_exercises_is_tested_even_if_a_skipped_one_also_names_it() {
        let entries = vec![
            entry("1-fischer", Outcome::Passed, &["increment"]),
            entry("4-flag", skipped("no flag"), &["increment"]),
        ];
        let verdict = verdict(&entries, &[]);
        assert!(verdict.untested.is_empty());
        assert!(verdict.passed);
        assert!(!verdict.console.contains("NOT TESTED"));
    }

    #[test]
    fn a_failed_scenario_or_nothing_played_fails_whatever_is_waived() {
        let failed = vec![entry("1-fischer", Outcome::Failed, &["increment"])];
        assert!(!verdict(&failed, &[]).passed);
        let none = vec![entry("5-byo-yomi", skipped("no byo-yomi"), &["byo-yomi.period-lost"])];
        let all = verdict(&none, &["byo-yomi.period-lost".to_string()]);
        assert!(!all.passed && all.console.contains("nothing was played"), "{}", all.console);
    }
}
