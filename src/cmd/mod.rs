//! One module per subcommand. Each has a `Cmd` (its clap arguments) and a
//! `Cmd::run` that returns an [`Exit`](crate::exit::Exit) or a
//! [`Failure`](crate::exit::Failure); printing of errors and the exit code
//! are left to `main`.

pub mod boards;
pub mod gate;
pub mod hil;
pub mod report;
pub mod scenarios;
pub mod sim;
pub mod timecontrol;

use std::io::{self, Write};

use anyhow::Context;

/// Writes a command's report to stdout. A closed pipe (`bench … | head`) is
/// not a failure; any other write error is an infrastructure failure.
pub fn print(text: &str) -> crate::exit::Result<()> {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => Err(error).context("writing to stdout")?,
        Ok(()) | Err(_) => Ok(()),
    }
}
