//! `bench scenarios`: the shipped scenarios, one line each.

use std::fmt::Write as _;

use bench_sim::scenario::Scenario;

use crate::catalog;
use crate::exit::{Exit, Failure, Result};

#[derive(Debug, clap::Args)]
pub struct Cmd {}

impl Cmd {
    pub fn run(self) -> Result {
        let files = catalog::scenario_files().map_err(Failure::usage)?;
        let mut out = String::new();
        let mut invalid = Vec::new();
        let width = files
            .iter()
            .filter_map(|file| file.file_stem().map(|stem| stem.to_string_lossy().chars().count()))
            .max()
            .unwrap_or(0);
        for file in &files {
            let name = file.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
            match Scenario::load(file) {
                Ok(scenario) => {
                    let _ = writeln!(
                        out,
                        "{name:<width$}  {:<20} {:>6} games  {}",
                        scenario.control.label(),
                        scenario.games,
                        scenario.description
                    );
                }
                Err(error) => {
                    let _ = writeln!(out, "{name:<width$}  (invalid: see below)");
                    invalid.push(error);
                }
            }
        }
        let _ = writeln!(
            out,
            "\nRun one with `bench sim --scenario NAME`; files are in {}.",
            catalog::scenario_dir().display()
        );
        super::print(&out)?;
        if invalid.is_empty() {
            Ok(Exit::Pass)
        } else {
            let messages: Vec<String> = invalid.iter().map(ToString::to_string).collect();
            Err(Failure::usage(anyhow::anyhow!("{}", messages.join("\n"))))
        }
    }
}
