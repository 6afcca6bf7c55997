//! `bench completions SHELL`: a completion script for the shell, generated
//! from the same clap definitions the binary parses.

use crate::exit::{Exit, Failure, Result};

#[derive(Debug, clap::Args)]
pub struct Cmd {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

impl Cmd {
    pub fn run(self, mut command: clap::Command) -> Result {
        let mut script = Vec::new();
        clap_complete::generate(self.shell, &mut command, "bench", &mut script);
        let script = String::from_utf8(script)
            .map_err(|error| Failure::infrastructure(anyhow::anyhow!("the completion script is not UTF-8: {error}")))?;
        super::print(&script)?;
        Ok(Exit::Pass)
    }
}
