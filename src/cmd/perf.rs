//! `bench perf`: the simulator's throughput on this machine, against the
//! goals (`bench_sim::perf`; the same lines as `cargo bench -p bench-sim`),
//! and with `--only hil` the emulated board's speed in lockstep (`hil.rs`).

use anyhow::anyhow;
use bench_sim::perf::{self, Measure};

use crate::exit::{Exit, Failure, Result};

mod hil;

/// `--games` unless given.
const DEFAULT_GAMES: u64 = 10_000;

#[derive(Debug, clap::Args)]
pub struct Cmd {
    /// Abstract games per measurement [default: 10000]; the legal-moves
    /// line plays a quarter of them (at least one). More games, steadier
    /// figures. Not for `--only hil`, whose runs play the scenarios' own games.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    games: Option<u64>,

    /// Make only one measurement.
    #[arg(long, value_enum)]
    only: Option<Only>,

    /// `--only hil` on one game of this scenario alone, instead of the
    /// release suite and blitz-3-2 (a short check of the measurement).
    #[arg(long, value_name = "NAME|PATH", hide = true)]
    scenario: Option<String>,
}

/// `--only`'s values: [`Measure`]'s, for clap.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Only {
    /// Abstract moves, every defect and oracle on (the independent model
    /// too, as `bench sim` plays by default), one thread
    Abstract,
    /// The same without the independent model, and the ratio of the two
    #[value(alias = "tick")]
    Model,
    /// The same on one thread and on two, and their ratio
    Jobs2,
    /// Random legal moves (chess + chasolver)
    Legal,
    /// The trivial press model on bench's event queue (scripts/peers sets NeXosim's and SimPy's beside it)
    Peers,
    /// The emulated board in lockstep (`bench hil --board qemu`: the release
    /// suite on one emulator, then on one per core, then blitz-3-2, one
    /// game): minutes, so only when asked
    Hil,
}

impl Only {
    /// The simulator's measurement; `None` for the emulated board's.
    fn measure(self) -> Option<Measure> {
        match self {
            Only::Abstract => Some(Measure::Abstract),
            Only::Jobs2 => Some(Measure::Jobs2),
            Only::Model => Some(Measure::Model),
            Only::Legal => Some(Measure::Legal),
            Only::Peers => Some(Measure::Peers),
            Only::Hil => None,
        }
    }
}

impl Cmd {
    pub fn run(self) -> Result {
        match self.only {
            Some(Only::Hil) => self.measure_hil(),
            _ if self.scenario.is_some() => {
                Err(Failure::usage(anyhow!("--scenario is for `--only hil`: give --only hil, or leave --scenario out")))
            }
            only => self.measure_simulator(only.and_then(Only::measure)),
        }
    }

    /// The simulator's measurements: `only` one, or all of them.
    fn measure_simulator(&self, only: Option<Measure>) -> Result {
        let mut printed = Ok(());
        let mut print = |line: String| {
            if printed.is_ok() {
                printed = super::print(&format!("{line}\n"));
            }
        };
        perf::measure(self.games.unwrap_or(DEFAULT_GAMES), only, &mut print).map_err(Failure::infrastructure)?;
        printed?;
        Ok(Exit::Pass)
    }

    /// `--only hil`: the runs' own games, so `--games` is refused rather
    /// than silently ignored.
    fn measure_hil(&self) -> Result {
        if let Some(games) = self.games {
            return Err(Failure::usage(anyhow!(
                "--games {games} sets the simulator's games; `--only hil` times the release suite's scenarios \
                 with their own games and one game of blitz-3-2: leave --games out"
            )));
        }
        hil::measure(self.scenario.as_deref(), &mut |line| super::print(&format!("{line}\n")))
    }
}
