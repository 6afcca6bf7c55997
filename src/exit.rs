//! Exit codes: a product contract. Scripts and CI branch on them, so they
//! are defined here, once; commands return an [`Exit`] or a [`Failure`]
//! that carries one.

use std::process::ExitCode;

/// How a run of `bench` ended, and the process exit code that says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 0: the command did what was asked; a gate passed.
    Pass,
    /// 1: a gate ran and failed.
    GateFailed,
    /// 2: the command line or an input was wrong, and nothing was run.
    /// Clap's own usage errors exit with 2 too.
    Usage,
    /// 3: bench itself could not do its work (I/O, a tool, a board).
    Infrastructure,
}

impl Exit {
    pub const fn code(self) -> u8 {
        match self {
            Exit::Pass => 0,
            Exit::GateFailed => 1,
            Exit::Usage => 2,
            Exit::Infrastructure => 3,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

/// The `--help` text that documents the contract.
pub const HELP: &str = "\
Exit codes:
  0  pass
  1  gate failed
  2  usage or input error
  3  infrastructure failure";

/// An error that ends a command, and the exit code it ends it with.
#[derive(Debug)]
pub struct Failure {
    pub exit: Exit,
    pub error: anyhow::Error,
}

impl Failure {
    /// The user's command line or input is wrong (exit 2).
    pub fn usage(error: impl Into<anyhow::Error>) -> Failure {
        Failure { exit: Exit::Usage, error: error.into() }
    }

    /// Bench could not do its work (exit 3).
    pub fn infrastructure(error: impl Into<anyhow::Error>) -> Failure {
        Failure { exit: Exit::Infrastructure, error: error.into() }
    }
}

/// `?` on any other error: something bench depends on failed (exit 3).
/// Input errors must say so with [`Failure::usage`].
impl<E: Into<anyhow::Error>> From<E> for Failure {
    fn from(error: E) -> Failure {
        Failure::infrastructure(error)
    }
}

/// What a command returns.
pub type Result<T = Exit> = std::result::Result<T, Failure>;
