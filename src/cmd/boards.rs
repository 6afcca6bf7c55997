//! `bench boards`: the board profiles (`hil/boards/*.toml`), one line each.

use std::path::Path;

use bench_hil::board::{self, BoardProfile};

use crate::exit::{Failure, Result};

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
                    megahertz(profile.core_clock_hz),
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

/// A clock rate in MHz, with the decimals it needs (`84`, `12.5`, `16.384`).
fn megahertz(hz: u32) -> String {
    let whole = hz / 1_000_000;
    let fraction = hz % 1_000_000;
    if fraction == 0 {
        return whole.to_string();
    }
    let digits = format!("{fraction:06}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::megahertz;

    #[test]
    fn megahertz_keeps_the_decimals_a_rate_has() {
        assert_eq!(megahertz(84_000_000), "84");
        assert_eq!(megahertz(12_500_000), "12.5");
        assert_eq!(megahertz(16_384_000), "16.384");
        assert_eq!(megahertz(32_768), "0.032768");
    }
}
