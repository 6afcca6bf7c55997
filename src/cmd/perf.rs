//! `bench perf`: the simulator's throughput on this machine, against the
//! goals (`bench_sim::perf`; the same lines as `cargo bench -p bench-sim`).

use bench_sim::perf::{self, Measure};

use crate::exit::{Exit, Failure, Result};

#[derive(Debug, clap::Args)]
pub struct Cmd {
    /// Abstract games per measurement; the legal-moves line plays a quarter
    /// of them (at least one). More games, steadier figures.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    games: u64,

    /// Make only one measurement.
    #[arg(long, value_enum)]
    only: Option<Only>,
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
}

impl Only {
    fn measure(self) -> Measure {
        match self {
            Only::Abstract => Measure::Abstract,
            Only::Jobs2 => Measure::Jobs2,
            Only::Model => Measure::Model,
            Only::Legal => Measure::Legal,
            Only::Peers => Measure::Peers,
        }
    }
}

impl Cmd {
    pub fn run(self) -> Result {
        let mut printed = Ok(());
        let mut print = |line: String| {
            if printed.is_ok() {
                printed = super::print(&format!("{line}\n"));
            }
        };
        perf::measure(self.games, self.only.map(Only::measure), &mut print).map_err(Failure::infrastructure)?;
        printed?;
        Ok(Exit::Pass)
    }
}
