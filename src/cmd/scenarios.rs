//! `bench scenarios`: the shipped scenarios, one line each.

use std::path::Path;

use bench_sim::scenario::Scenario;

use crate::catalog;
use crate::exit::{Failure, Result};

#[derive(Debug, clap::Args)]
pub struct Cmd {}

impl Cmd {
    pub fn run(self) -> Result {
        let files = catalog::scenario_files().map_err(Failure::usage)?;
        let describe = |file: &Path| {
            Scenario::load(file).map(|scenario| {
                format!("{:<20} {:>6} games  {}", scenario.control.label(), scenario.games, scenario.description)
            })
        };
        let footer =
            format!("Run one with `bench sim --scenario NAME`; files are in {}.", catalog::scenario_dirs_text());
        super::print_file_list(&files, describe, &footer)
    }
}
