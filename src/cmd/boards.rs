//! `bench boards`: the board profiles (`hil/boards/*.toml`), one line each.

use std::fmt::Write as _;

use bench_hil::board::{self, BoardProfile};

use crate::exit::{Exit, Failure, Result};

#[derive(Debug, clap::Args)]
pub struct Cmd {}

impl Cmd {
    pub fn run(self) -> Result {
        let dir = board::board_dir();
        let files = board::board_files(&dir).map_err(Failure::usage)?;
        let mut out = String::new();
        let mut invalid = Vec::new();
        let width = files
            .iter()
            .filter_map(|file| file.file_stem().map(|stem| stem.to_string_lossy().chars().count()))
            .max()
            .unwrap_or(0);
        for file in &files {
            let name = file.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
            match BoardProfile::load(file) {
                Ok(profile) => {
                    let _ = writeln!(
                        out,
                        "{name:<width$}  {:<6} {:<14} {:>4} MHz  {}",
                        profile.backend.name(),
                        profile.chip,
                        profile.core_clock_hz / 1_000_000,
                        profile.description
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
            "\nRun on one with `bench hil --board NAME`; `--wiring` shows its jumpers. Files are in {}.",
            dir.display()
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
