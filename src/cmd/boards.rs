//! `bench boards`: the board profiles (`hil/boards/*.toml`), one line each.

use std::path::Path;

use bench_hil::board::{self, BoardProfile};

use crate::exit::{Failure, Result};
use bench_report::format::markdown::decimal;

#[derive(Debug, clap::Args)]
pub struct Cmd {}

impl Cmd {
    pub fn run(self) -> Result {
        let dir = board::board_dir();
        let files = board::board_files(&dir).map_err(Failure::usage)?;
        let describe = |file: &Path| {
            BoardProfile::load(file).map(|profile| {
                format!(
                    "{:<6} {:<14} {:>6} MHz  {}",
                    profile.backend.name(),
                    profile.chip,
                    decimal(u64::from(profile.core_clock_hz), 6),
                    profile.description
                )
            })
        };
        let footer = format!(
            "Run on one with `bench hil --board NAME`; `--wiring` shows its jumpers. Files are in {}.",
            dir.display()
        );
        super::print_file_list(&files, describe, &footer)
    }
}
