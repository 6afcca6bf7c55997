//! Report folders of bench's runs, and the release gate that reads them
//! back. Organised by report kind (`sim/`, `hil/`, `postal/`), with the
//! renderers every kind shares under `format/` and the release gate under
//! `gate/`; `merge.rs` holds what `bench report merge` does alike for
//! both kinds. Every file a folder holds is a row of [`files::FILES`]. The
//! files and their schema are documented for users in `reports/README.md`.
//! No CLI code and no console output: the commands in `src/` call these
//! writers and print. Errors are `anyhow` here (bench-hil's are
//! `thiserror` enums).
//!
//! **Atomic:** every file is written to a temporary file in the folder and
//! renamed into place ([`atomic`]). `report.json` is removed first and
//! written last, and it names the other files with their SHA-256: a folder with a
//! `report.json` holds a whole report, and a run that died part-way leaves
//! no `report.json` at all. (A temporary folder renamed into place
//! was the other choice; it cannot replace an existing report folder
//! atomically, since a rename onto a non-empty directory fails, and it
//! would hide a half-written report from whoever looks for one.)

pub mod atomic;
pub mod check;
pub mod coverage;
pub mod files;
pub mod format;
pub mod gate;
pub mod hil;
pub mod merge;
pub mod postal;
pub mod replays;
#[cfg(any(test, feature = "testing"))]
pub mod schema;
pub mod sim;
pub mod suite;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::files::REPORT_JSON;

/// The command of the run whose report `dir` holds, when it holds a whole
/// one (`report.json` that reads as JSON with a `command`), of any kind:
/// what a new run in `dir` would replace. A folder with no such file holds
/// no report to lose (a run that died part-way leaves none).
pub fn command_of_report_in(dir: &Path) -> Option<String> {
    let path = dir.join(REPORT_JSON);
    // Only a regular file: reading a FIFO would wait for a writer forever
    // (the run refuses such a folder: it would replace the FIFO).
    if !std::fs::metadata(&path).is_ok_and(|metadata| metadata.is_file()) {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let report: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    report.get("command")?.as_str().map(str::to_string)
}

/// Why `dir` may not take the report of the run `command`: it holds the
/// report of another run, which the new one would replace. The same
/// command may: a rerun (after editing the scenario or rebuilding the
/// firmware) is meant to replace its report.
pub fn another_runs_report(dir: &Path, command: &str) -> Option<String> {
    let theirs = command_of_report_in(dir).filter(|theirs| theirs != command)?;
    Some(format!(
        "the report folder {} holds the report of another run (`{theirs}`): give --out a folder for this run \
         (`{command}`), or --force to replace that report",
        dir.display()
    ))
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_is_lower_case_hex() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
