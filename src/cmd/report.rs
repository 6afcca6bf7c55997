//! `bench report`: work on written reports. `bench report merge` joins the
//! shards of one sweep into the report the unsharded run writes.

use std::path::PathBuf;

use crate::exit::{Exit, Failure, Result};
use bench_report::gate;
use bench_report::sim::merge::{self, MergeError};

#[derive(Debug, clap::Args)]
pub struct Cmd {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Join the shards of one sweep (`bench sim --shard I/N` runs) into one report
    ///
    /// The merged report.json is byte-identical to the one the unsharded run
    /// writes (same scenario, seed, --games and options). Refused, exit code 2,
    /// when the reports are not every shard of one sweep: another scenario
    /// (name, file or sha256), seed, bench version, option or --games; a shard
    /// missing, given twice or interrupted. The scenario file is read again to
    /// judge the whole sweep; it must be the one the shards ran (sha256).
    /// Like `bench sim`, exits 0 when the merged report passes the default
    /// gate and 1 when it fails.
    ///
    ///   bench report merge reports/drift-stress-1-shard-*-of-8
    #[command(verbatim_doc_comment)]
    Merge(MergeCmd),
}

#[derive(Debug, clap::Args)]
struct MergeCmd {
    /// The shards' report folders (or their report.json files), in any order.
    #[arg(value_name = "DIR", required = true)]
    shards: Vec<PathBuf>,
    /// Where to write the merged report [default: reports/<scenario>-<seed>,
    /// where the unsharded run writes it].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The scenario file the shards ran [default: the path their reports
    /// name, relative to the current folder].
    #[arg(long, value_name = "PATH")]
    scenario: Option<PathBuf>,
    /// Replace the report in --out even when it is another run's (exit 2
    /// without it); the unsharded run of the same sweep may be replaced.
    #[arg(long)]
    force: bool,
}

impl Cmd {
    pub fn run(self) -> Result {
        match self.action {
            Action::Merge(merge) => merge.run(),
        }
    }
}

fn failure(error: MergeError) -> Failure {
    match error {
        MergeError::Input(error) => Failure::usage(error),
        MergeError::Write(error) => Failure::infrastructure(error),
    }
}

impl MergeCmd {
    fn run(self) -> Result {
        let first = self.shards.first().ok_or_else(|| Failure::usage(anyhow::anyhow!("no shard given")))?;
        let out = match &self.out {
            Some(out) => out.clone(),
            None => merge::default_out_dir(first).map_err(failure)?,
        };
        // Before any shard is merged: a folder that cannot take the merged
        // report, or that holds another run's, is named now.
        let command = merge::merged_command(first).map_err(failure)?;
        super::refuse_to_replace_another_run(&out, &command, self.force)?;
        super::check_out_dir(&out)?;
        let merged = merge::merge(&self.shards, self.scenario.as_deref(), &out).map_err(failure)?;
        // The same gate, through the same function, as `bench sim` and
        // `bench hil` apply to their own reports.
        let (passed, gate_text) = gate::apply_defaults(&out).map_err(Failure::infrastructure)?;
        let text = format!(
            "merged {} shards of `{}` (seed {}, games 0..{}) into {}\n{gate_text}",
            merged.shards,
            merged.scenario,
            merged.seed,
            merged.games,
            out.display()
        );
        super::print(&text)?;
        Ok(if passed { Exit::Pass } else { Exit::GateFailed })
    }
}
