//! `bench`: the test bench for chess-clock firmware.
//!
//! This file only declares the command line and maps outcomes to exit codes
//! ([`exit`]); each subcommand lives in its own file under `cmd/`.

mod catalog;
mod cmd;
mod exit;
pub mod report;

use std::process::ExitCode;

use clap::Parser;

/// Test bench for chess-clock firmware: rule model, simulator, hardware in the loop, release gate.
#[derive(Debug, Parser)]
#[command(name = "bench", version, after_help = exit::HELP, after_long_help = exit::HELP)]
enum Cli {
    /// Explain a time control in words, to check a clock's settings against it
    ///
    /// TEXT is a PGN `TimeControl` tag value, with bench's extensions. Fields are
    /// separated by `:`, one per stage; times are in seconds, to the microsecond:
    ///
    ///   40/5400+30:1800+30  40 moves in 90 min, then the rest in 30 min, +30 s per move
    ///   300+2               the whole game in 5 min, +2 s increment per move (Fischer)
    ///   5400+d5             90 min, 5 s delay per move (6.2b time-delay mode, US delay)
    ///   300+b3              5 min, Bronstein delay of up to 3 s per move
    ///   *180                hourglass (sand clock), 3 min each
    ///   3600(5x30)          1 h, then byo-yomi: 5 periods of 30 s
    ///   600(20/300)         10 min, then Canadian overtime: 20 moves in 5 min, repeating
    ///
    /// `?` (unknown) and `-` (no time control) are PGN values a clock cannot run.
    /// An invalid TEXT is shown with a caret under the offending character, exit code 2.
    #[command(verbatim_doc_comment)]
    Timecontrol(cmd::timecontrol::Cmd),

    /// Simulate seeded games of a scenario against the clock core, with clock defects
    ///
    /// Plays the scenario's games on a simulated clock device (drift, bounce,
    /// missed presses, brownouts, …) and on a perfect clock, checks every event
    /// against the rules, and judges the run by the scenario's expectations.
    /// One seed reproduces a run bit for bit, whatever --jobs is. Writes
    /// report.json, summary.md and drift plots to the report directory.
    ///
    ///   bench sim --scenario both-flags
    ///   bench sim --scenario both-flags --seed 7 --game 12 --trace
    ///   bench sim --scenario defects --shrink
    ///   bench sim --scenario drift-stress --games 100000 --shard 3/8
    #[command(verbatim_doc_comment)]
    Sim(cmd::sim::Cmd),

    /// List the shipped scenarios, one line each
    Scenarios(cmd::scenarios::Cmd),
}

fn main() -> ExitCode {
    let outcome = match Cli::parse() {
        Cli::Timecontrol(cmd) => cmd.run(),
        Cli::Sim(cmd) => cmd.run(),
        Cli::Scenarios(cmd) => cmd.run(),
    };
    match outcome {
        Ok(exit) => exit.into(),
        Err(failure) => {
            eprintln!("error: {:#}", failure.error);
            failure.exit.into()
        }
    }
}
