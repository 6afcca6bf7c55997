//! `coverage` in every report kind: the rules a run went through, one entry
//! per transition of the clock model, in the model's order, zeros included
//! (what a run never exercised is the point of the list).

use bench_sim::coverage::{Coverage, Covered};
use chessclock::Transition;
use serde::{Deserialize, Serialize};

use crate::format::html::{Block, Row, Section, Table};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The transition's name (`increment`, `flag.final`, …).
    pub rule: String,
    /// The article it applies.
    pub article: String,
    /// Times it happened.
    pub count: u64,
    /// Games it happened in.
    pub games: u64,
}

pub fn entries(coverage: &Coverage) -> Vec<Entry> {
    coverage
        .iter()
        .map(|(transition, covered)| Entry {
            rule: transition.key().into(),
            article: transition.article().into(),
            count: covered.count,
            games: covered.games,
        })
        .collect()
}

/// A report's entries read back; an unknown rule or a rule listed twice is
/// an error (a report bench did not write).
pub fn from_entries(entries: &[Entry]) -> Result<Coverage, String> {
    let mut coverage = Coverage::default();
    let mut seen = Vec::new();
    for entry in entries {
        let transition = Transition::from_key(&entry.rule)
            .ok_or_else(|| format!("coverage names an unknown rule `{}`", entry.rule))?;
        if seen.contains(&transition) {
            return Err(format!("coverage lists `{}` twice", entry.rule));
        }
        if entry.games > entry.count {
            return Err(format!("coverage of `{}`: {} games but only {} times", entry.rule, entry.games, entry.count));
        }
        seen.push(transition);
        coverage.set(transition, Covered { count: entry.count, games: entry.games });
    }
    Ok(coverage)
}

const NONE_COUNTED: &str = "No rule coverage in this report (written before bench counted it).";

fn never_exercised(entries: &[Entry]) -> String {
    let never: Vec<&str> = entries.iter().filter(|entry| entry.count == 0).map(|entry| entry.rule.as_str()).collect();
    if never.is_empty() {
        "Every rule of the model was exercised.".into()
    } else {
        format!("Never exercised: {}.", never.join(", "))
    }
}

/// The `## Rule coverage` section of `summary.md`: the rules exercised,
/// with their counts, then the rules never exercised. No blank line after.
pub fn markdown(entries: &[Entry]) -> Vec<String> {
    let mut lines = vec!["## Rule coverage".to_string(), String::new()];
    if entries.is_empty() {
        lines.push(NONE_COUNTED.into());
        return lines;
    }
    lines.push("| Rule | Article | Times | Games |".into());
    lines.push("| --- | --- | ---: | ---: |".into());
    for entry in entries.iter().filter(|entry| entry.count > 0) {
        lines.push(format!("| {} | {} | {} | {} |", entry.rule, entry.article, entry.count, entry.games));
    }
    lines.push(String::new());
    lines.push(never_exercised(entries));
    lines
}

/// The rule coverage section of `index.html`.
pub fn html_section(entries: &[Entry]) -> Section {
    let mut blocks = Vec::new();
    if entries.is_empty() {
        blocks.push(Block::Paragraph(NONE_COUNTED.into()));
    } else {
        blocks.push(Block::Table(Table {
            header: vec!["Rule".into(), "Article".into(), "Times".into(), "Games".into()],
            numeric: vec![false, false, true, true],
            rows: entries
                .iter()
                .filter(|entry| entry.count > 0)
                .map(|entry| Row {
                    cells: vec![
                        entry.rule.clone(),
                        entry.article.clone(),
                        entry.count.to_string(),
                        entry.games.to_string(),
                    ],
                    bad: false,
                })
                .collect(),
        }));
        blocks.push(Block::Paragraph(never_exercised(entries)));
    }
    Section { id: "coverage", heading: "Rule coverage".into(), blocks }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_back_to_the_same_coverage_and_bad_ones_are_refused() {
        let mut coverage = Coverage::default();
        coverage.set(Transition::Increment, Covered { count: 7, games: 2 });
        let written = entries(&coverage);
        assert_eq!(written.len(), Transition::ALL.len());
        assert_eq!(from_entries(&written), Ok(coverage));

        let mut twice = written.clone();
        twice.push(written[0].clone());
        assert!(from_entries(&twice).unwrap_err().contains("twice"));
        let mut unknown = written.clone();
        unknown[0].rule = "teleport".into();
        assert!(from_entries(&unknown).unwrap_err().contains("unknown rule `teleport`"));
        let mut impossible = written;
        impossible[0].games = impossible[0].count + 1;
        assert!(from_entries(&impossible).is_err());
    }
}
