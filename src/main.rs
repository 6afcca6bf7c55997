//! `bench`: the test bench for chess-clock firmware.
//!
//! This file only declares the command line and maps outcomes to exit codes
//! ([`exit`]); each subcommand lives in its own file under `cmd/`.

mod catalog;
mod cmd;
mod exit;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

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
    /// report.json, index.html, summary.md, junit.xml and drift plots to the
    /// report directory, then applies the default gate to it (see `bench gate`):
    /// exit 0 pass, 1 fail.
    ///
    ///   bench sim --scenario both-flags
    ///   bench sim --scenario both-flags --seed 7 --game 12 --trace
    ///   bench sim --scenario blitz-3-2 --swarm --seed 12 --game 5 --shrink
    ///   bench sim --replay reports/blitz-3-2-12/shrunk-blitz-3-2-12-game-5.replay.toml
    ///   bench sim --scenario drift-stress --games 100000 --shard 3/8
    ///   bench sim --scenario my-clock.toml --calibrate
    #[command(verbatim_doc_comment)]
    Sim(cmd::sim::Cmd),

    /// List the shipped scenarios, one line each
    Scenarios(cmd::scenarios::Cmd),
    /// List the board profiles (hil/boards/*.toml), one line each
    Boards(cmd::boards::Cmd),

    /// Play seeded games of a scenario on a board running clock firmware, and compare
    ///
    /// Starts the board (`--board qemu`: QEMU's lm3s6965evb, no hardware; `--board
    /// stm32`: a NUCLEO-F401RE on its ST-LINK, flashed and verified first, presses
    /// as GPIO edges over jumper wires: `--wiring`), sets the scenario's time control
    /// over the firmware's RTT channel, presses the buttons as the scenario's players
    /// would (the same think times as `bench sim` for the same seed), and replays the
    /// presses the firmware saw through the clock model: every time, flag, stage
    /// change, move count and result must match within one firmware tick of the
    /// firmware's own state, and the rounding it accumulates within a bound of its
    /// own (hil/CONTRACT.md §9); the largest difference of each is reported. Measures
    /// the firmware clock's drift, the board's oscillator against host time (probe
    /// boards) and the press latency. Writes report.json, index.html, summary.md,
    /// junit.xml and plots. Exit 0 pass, 1 a mismatch or drift beyond tolerance,
    /// 2 usage, 3 the board or the firmware failed (the report is marked incomplete).
    ///
    /// Without --scenario it plays the release suite (scenarios/release/: every kind
    /// of time control, each scenario to its own report under
    /// reports/hil-suite-release/); each report lists the rules of the clock model
    /// the games went through, and fails a scenario that never reached its own.
    ///
    /// Probes: with one attached, it is used without flags. With several, name them
    /// with --probe VID:PID:SERIAL (`probe-rs list` shows them); repeat --probe for a
    /// board farm: game g is played on the (g mod N)-th probe named, all boards at
    /// once, and the report lists every game in game order. A board that fails
    /// (unplugged, firmware silent) loses the game it was playing and does not play
    /// its later ones; the other boards' games are kept, and the run exits 3.
    ///
    ///   bench hil                                   (the release suite)
    ///   bench hil --scenario both-flags --games 3
    ///   bench hil --scenario release/3-stages --firmware FIRMWARE.elf --shrink
    ///   bench hil --replay reports/blitz-3-2-12/shrunk-blitz-3-2-12-game-5.replay.toml
    ///   bench hil --firmware ~/.cache/bench/target/firmware/defect-systick-off-by-one.elf  (scripts/build-firmware)
    ///   bench hil --board stm32 --games 20 --probe 0483:374b:066DFF --probe 0483:374b:0671FF
    #[command(verbatim_doc_comment)]
    Hil(Box<cmd::hil::Cmd>),

    /// Gate a release on a report: thresholds, and regressions against a baseline
    ///
    /// Reads only REPORT's report.json (a folder or the file). Prints each rule
    /// with its measured and allowed value. Exit 0 pass, 1 a rule failed, 2 a bad
    /// input: no report, a truncated or corrupted one, another schema version, an
    /// interrupted run's, a bad rules file. Rules: reports/README.md, "The gate";
    /// without --rules, the defaults (gate.example.toml holds the same).
    ///
    ///   bench gate reports/both-flags-1
    ///   bench gate reports/both-flags-1 --rules gate.toml --baseline old/report.json
    #[command(verbatim_doc_comment)]
    Gate(cmd::gate::Cmd),

    /// Work on written reports: merge the shards of a sweep
    Report(cmd::report::Cmd),

    /// Measure the simulator's throughput on this machine (or with --only hil the emulated board's speed), against its goals
    ///
    /// Times seeded runs of two built-in scenarios (abstract moves with every
    /// defect and invariant oracle on; random legal moves) on one thread and on
    /// two, and prints presses per second (each the median of three runs, with
    /// their range) and each goal's share: 20 M presses/s per core abstract,
    /// 2 M legal, two threads at least 1.8x one. Figures only:
    /// exit 0 whatever they are (a gate on timing would fail on a busy machine).
    ///
    /// `--only hil` times the emulated board in lockstep instead, and only when
    /// asked (it takes minutes: plain `bench perf` leaves it out). It runs this
    /// bench as `bench hil --board qemu` on the release suite, then on one game
    /// of blitz-3-2, each into a scratch folder, and prints for each the guest
    /// seconds played, the wall seconds taken and their ratio against the goal
    /// of 10x real time, and the lockstep stops (record, tick) per guest second
    /// with the host milliseconds each took (the reports' run.json). QEMU or the
    /// reference image missing: exit 3 with bench hil's message; a run whose
    /// gate fails: its figures, its reports kept, exit 1. --games is refused.
    ///
    ///   bench perf
    ///   bench perf --games 40000 --only jobs2
    ///   bench perf --only hil
    #[command(verbatim_doc_comment)]
    Perf(cmd::perf::Cmd),

    /// Print a completion script for bash, zsh, fish, elvish or PowerShell
    ///
    ///   bench completions bash > ~/.local/share/bash-completion/completions/bench
    ///   bench completions zsh > ~/.zfunc/_bench     (with fpath+=~/.zfunc in ~/.zshrc)
    ///   bench completions fish > ~/.config/fish/completions/bench.fish
    #[command(verbatim_doc_comment)]
    Completions(cmd::completions::Cmd),
}

fn main() -> ExitCode {
    let outcome = match Cli::parse() {
        Cli::Timecontrol(cmd) => cmd.run(),
        Cli::Sim(cmd) => cmd.run(),
        Cli::Scenarios(cmd) => cmd.run(),
        Cli::Boards(cmd) => cmd.run(),
        Cli::Hil(cmd) => cmd.run(),
        Cli::Perf(cmd) => cmd.run(),
        Cli::Gate(cmd) => cmd.run(),
        Cli::Report(cmd) => cmd.run(),
        Cli::Completions(cmd) => cmd.run(Cli::command()),
    };
    match outcome {
        Ok(exit) => exit.into(),
        Err(failure) => {
            // Errors quote files and arguments: nothing in them may hide.
            cmd::note(&format!("error: {}", bench_report::format::visible::visible(&format!("{:#}", failure.error))));
            failure.exit.into()
        }
    }
}
