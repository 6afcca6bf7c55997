//! `bench report`: work on written reports. `bench report merge` joins the
//! shards of one sweep into one report: the unsharded run's for `bench
//! sim`, the farm of the shards' boards for `bench hil`.

use std::path::PathBuf;

use crate::catalog;
use crate::exit::{Exit, Failure, Result};
use bench_report::gate;
use bench_report::merge::{self, MergeError};

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
    /// writes (same scenario, seed, --games and options). A scenario is its
    /// name and its file's sha256: shards run from different folders or
    /// machines merge. Shards are read one at a time. Refused, exit code 2,
    /// when the reports are not every shard of one sweep: another scenario
    /// (name or sha256), seed, bench version, option or --games; shards
    /// missing or given twice (all named); an interrupted shard. The scenario
    /// file is read again to judge the whole sweep: the first of --scenario,
    /// the paths the shards name and the scenario directories' file of its
    /// name whose sha256 is the shards'. Like `bench sim`, exits 0 when the
    /// merged report passes the default gate and 1 when it fails; with
    /// --partial and shards missing, 1 (the report is marked incomplete).
    ///
    /// HIL shards (`bench hil --shard I/N`: games g with g mod N = I - 1,
    /// each shard a boot of its own) merge into the report of the farm
    /// whose boards are the shards: every game's entry as its shard wrote
    /// it, the boards in shard order, the deciding board's drift, latency
    /// percentiles over every press; --scenario is not needed.
    ///
    ///   bench report merge reports/drift-stress-1-shard-*-of-8
    ///   bench report merge reports/hil-blitz-3-2-1-shard-*-of-4
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
    /// The scenario file the shards ran [default: the first with their
    /// sha256 of the paths their reports name (relative to the current
    /// folder) and the scenario directories' file of that name]. Simulation
    /// shards only: HIL shards carry what the merge checks.
    #[arg(long, value_name = "PATH")]
    scenario: Option<PathBuf>,
    /// With shards missing, merge those there are into a report marked
    /// incomplete (`"complete": false`, exit 1) instead of refusing (exit 2).
    /// Shards given twice are refused still.
    #[arg(long)]
    partial: bool,
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
        let request = merge::MergeRequest {
            shards: &self.shards,
            scenario: merge::ScenarioSource { given: self.scenario.as_deref(), by_name: &catalog::files_named },
            out: &out,
            partial: self.partial,
        };
        let merged = merge::merge(&request).map_err(failure)?;
        let what = format!(
            "merged {} of {} shards of `{}` (seed {}, games 0..{}) into {}",
            merged.shards,
            merged.shard_count,
            merged.scenario,
            merged.seed,
            merged.games,
            out.display()
        );
        if !merged.complete() {
            let missing: Vec<String> =
                merged.missing.iter().map(|index| format!("{index}/{}", merged.shard_count)).collect();
            super::print(&format!(
                "{what}\npartial: shards missing: {}; {} of {} games played: the report is marked incomplete\n",
                missing.join(", "),
                merged.games_played,
                merged.games
            ))?;
            return Ok(Exit::GateFailed);
        }
        // The same gate, through the same function, as `bench sim` and
        // `bench hil` apply to their own reports.
        let (passed, gate_text) = gate::apply_defaults(&out).map_err(Failure::infrastructure)?;
        let text = format!("{what}\n{gate_text}");
        super::print(&text)?;
        Ok(if passed { Exit::Pass } else { Exit::GateFailed })
    }
}
