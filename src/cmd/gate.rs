//! `bench gate`: a report (simulation or hardware in the loop) against the
//! release rules, and against a baseline report of the same kind. Exit 0
//! pass, 1 a rule failed, 2 a bad input (no report, a truncated or
//! corrupted one, another schema version, an interrupted run's, a bad rules
//! file).

use std::path::PathBuf;

use crate::exit::{Exit, Failure, Result};
use bench_report::gate::{self, Rules};

#[derive(Debug, clap::Args)]
pub struct Cmd {
    /// The report: a `report.json` of `bench sim` or `bench hil`, or a
    /// report folder.
    #[arg(value_name = "REPORT")]
    report: PathBuf,
    /// A report to compare with (the last release's): fails on regressions
    /// beyond the tolerances of the rules' [baseline] table.
    // Help text, not rustdoc: `[baseline]` is the TOML table's name.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, value_name = "REPORT")]
    baseline: Option<PathBuf>,
    /// The rules (TOML; schema in reports/README.md, example in
    /// gate.example.toml) [default: the built-in rules, the same as
    /// gate.example.toml].
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
}

impl Cmd {
    pub fn run(self) -> Result {
        let rules = match &self.rules {
            Some(path) => Rules::load(path).map_err(Failure::usage)?,
            None => Rules::defaults(),
        };
        let report = gate::load_complete(&self.report).map_err(Failure::usage)?;
        let measured = report.measurements();
        let baseline = match &self.baseline {
            Some(path) => Some((gate::report_path(path), gate::load_complete(path).map_err(Failure::usage)?)),
            None => None,
        };
        let baseline_measured = baseline.as_ref().map(|(path, report)| (path.as_path(), report.measurements()));
        let verdicts = gate::evaluate(&measured, &rules, baseline_measured.as_ref().map(|(_, measured)| measured))
            .map_err(|message| Failure::usage(anyhow::anyhow!(message)))?;
        let text = gate::render(
            &gate::report_path(&self.report),
            &measured,
            baseline_measured.as_ref().map(|(path, measured)| (*path, measured)),
            &verdicts,
        );
        super::print(&text)?;
        Ok(if gate::passed(&verdicts) { Exit::Pass } else { Exit::GateFailed })
    }
}
