//! A check a report judged itself (a scenario expectation, that every game
//! was played, that the firmware matches the model, …): the `checks` entry
//! both report kinds carry, and how each format shows it.

use serde::{Deserialize, Serialize};

use crate::format::html::{Block, Row, Table};
use crate::format::junit::{Case, CaseFailure};

/// An entry of `checks` in every report kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckInfo {
    pub name: String,
    pub passed: bool,
    pub measured: String,
    pub expected: String,
}

/// Every check of a report, failing ones marked.
pub fn checks_table(checks: &[CheckInfo]) -> Block {
    Block::Table(Table {
        header: vec!["Result".into(), "Check".into(), "Measured".into(), "Expected".into()],
        numeric: vec![],
        rows: checks
            .iter()
            .map(|check| Row {
                cells: vec![
                    if check.passed { "pass" } else { "FAIL" }.into(),
                    check.name.clone(),
                    check.measured.clone(),
                    check.expected.clone(),
                ],
                bad: !check.passed,
            })
            .collect(),
    })
}

/// One case per check; a failing one's text ends with `report_line`: the
/// command that made the report and how its games went.
pub fn check_cases(classname: &str, checks: &[CheckInfo], report_line: &str) -> Vec<Case> {
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
