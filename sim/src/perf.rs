//! The simulator's throughput, measured: presses per second on one core
//! and on two, against the goals. `bench perf` and `cargo bench -p
//! bench-sim --bench throughput` both print this; the goals are read by a
//! person or a CI job from the ratios, never asserted in a timed test.
//!
//! Wall-clock time is read here to measure a run, never inside one: the
//! games played are the same whatever the machine's speed.
//!
//! Where a press's cost goes (callgrind, instructions per press, abstract
//! moves; README "Performance" has the figures): the invariant oracles of
//! both clocks cost about 430 of 2 930; the ideal clock's press, its oracle
//! and the drift sample 740 more. A simulator with no ideal clock and no
//! oracles would still run at a third of the 20 M/s goal: at about 14 G
//! instructions/s per core the goal leaves about 700 instructions for a
//! press, and the two clock cores' presses alone cost about 530. In legal
//! mode the 6.10 searches cost about 3 700 a press (each ruled flag runs the
//! full search, `chasolver-fast`) and the moves about 2 100, which caps it
//! near 1.6 M/s.
//!
//! Measured and kept: the sorted-vector queue (`queue.rs`), the brownout
//! backup copied only when the clock changes between presses
//! (`game/mod.rs`), decisions drawn as geometric gaps (`sample::Trials`),
//! the core's small queries inlined across the crate boundary. Measured
//! without gain: a binary heap or a ring buffer for the queue, inserting by
//! swaps, a cached device-time answer, 16-byte events, `codegen-units = 1`
//! alone. Fat LTO (with one codegen unit) gained 12 % here; it is now the
//! release profile (`Cargo.toml`): 173 of legal mode's 8 153 instructions
//! a press on `legal-blitz` (`scripts/legal-cost`), for about 30 s more on
//! a clean release build on two cores.

use std::path::Path;
use std::time::Instant as WallClock;

use crate::board::MateSearches;
use crate::defects::DefectSet;
use crate::press_model;
use crate::run::{self, RunOptions};
use crate::scenario::{Scenario, ScenarioError};

/// Abstract moves, full rules, the oracles and every defect on.
pub const ABSTRACT_SCENARIO: &str = r#"
description = "throughput: abstract moves, all oracles, every defect"
control = "300+2"
games = 2000
seed = 1
[players]
think = { distribution = "skewed", min_ms = 100, max_ms = 12000 }
time_trouble = { below_ms = 20000, percent = 10 }
[board]
ends_per_move = "1/120"
[device]
drift_ppm = 40
drift_walk_ppm = 10
jitter_us = 300
bounce = { chance = "1/20", min_ms = 1, max_ms = 40 }
missed_press = "1/300"
double_press = "1/200"
stuck_button = { chance = "1/1000", min_ms = 200, max_ms = 2000 }
brownout = { chance = "1/3000" }
display_freeze = { chance = "1/500", min_ms = 500, max_ms = 3000 }
[expect]
agreement_min_percent = 0
"#;

/// Random legal moves on a real board: checkmate, stalemate, dead positions
/// and the flag rulings' "can the opponent still mate" on the position.
pub const LEGAL_SCENARIO: &str = r#"
description = "throughput: random legal moves, all invariant oracles"
control = "180"
games = 500
seed = 1
moves = "legal"
[players]
think = { distribution = "uniform", min_ms = 300, max_ms = 2500 }
[expect]
agreement_min_percent = 0
"#;

/// The goals, per core: abstract moves with every defect, the invariants
/// and the independent model on, and legal moves; two threads against one;
/// and the independent model's cost, as the throughput with it against
/// the throughput without.
pub const ABSTRACT_GOAL_PER_CORE: f64 = 20e6;
pub const LEGAL_GOAL_PER_CORE: f64 = 2e6;
pub const JOBS2_GOAL_RATIO: f64 = 1.8;
pub const MODEL_GOAL_RATIO: f64 = 0.5;
/// Paired runs behind each ratio (jobs 2 / jobs 1, model on / off).
const PAIRS: usize = 5;
/// Runs behind each presses/s figure: one run swings by a tenth or more on
/// a shared machine, the median of a few much less.
const FIGURE_RUNS: usize = 3;

/// Which measurements to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Abstract moves on one thread, as `bench sim` plays them by default:
    /// the independent model on. The headline figure.
    Abstract,
    /// The same without the independent model, and the ratio of the two
    /// (the median of five pairs).
    Model,
    /// Abstract moves on one thread and on two, and their ratio (the
    /// median of five pairs).
    Jobs2,
    /// Legal moves (a quarter of the games).
    Legal,
    /// The trivial press model on bench's event queue, the figure that
    /// `scripts/peers` sets beside NeXosim's and SimPy's, and the whole
    /// simulator on the same model.
    Peers,
}

impl Measure {
    pub const ALL: [Measure; 5] = [Measure::Abstract, Measure::Model, Measure::Jobs2, Measure::Legal, Measure::Peers];

    pub const fn name(self) -> &'static str {
        match self {
            Measure::Abstract => "abstract",
            Measure::Model => "model",
            Measure::Jobs2 => "jobs2",
            Measure::Legal => "legal",
            Measure::Peers => "peers",
        }
    }

    /// A measurement by name; `tick`, the name the model's measurement had
    /// when the model was a tick model, still names it.
    pub fn parse(name: &str) -> Option<Measure> {
        match name {
            "tick" => Some(Measure::Model),
            _ => Measure::ALL.into_iter().find(|measure| measure.name() == name),
        }
    }
}

/// One timed run.
#[derive(Clone, Copy, Debug)]
pub struct Figure {
    pub games: u64,
    pub jobs: usize,
    pub presses: u64,
    pub seconds: f64,
    /// Legal moves: the full 6.10 searches run, and those that gave up.
    pub mate_searches: MateSearches,
}

impl Figure {
    pub fn presses_per_s(&self) -> f64 {
        self.presses as f64 / self.seconds.max(f64::MIN_POSITIVE)
    }
}

/// Plays `games` games of `scenario` (seed 1) on `jobs` threads, timed.
/// `model_oracle`: with the independent model, as `bench sim` by default.
pub fn time_run(scenario: &Scenario, games: u64, jobs: usize, model_oracle: bool) -> Figure {
    let options = RunOptions { seed: 1, games: 0..games, jobs, swarm: false, model_oracle, disabled: DefectSet::NONE };
    let started = WallClock::now();
    let summary = run::run(scenario, &options, &|_| {});
    let seconds = started.elapsed().as_secs_f64();
    Figure { games, jobs, presses: summary.presses, seconds, mate_searches: summary.mate_searches }
}

/// The median of `FIGURE_RUNS` timed runs (by presses/s), with the
/// slowest and fastest rates.
fn median_run(scenario: &Scenario, games: u64, jobs: usize, model_oracle: bool) -> (Figure, f64, f64) {
    let mut figures: Vec<Figure> = (0..FIGURE_RUNS).map(|_| time_run(scenario, games, jobs, model_oracle)).collect();
    figures.sort_by(|a, b| a.presses_per_s().total_cmp(&b.presses_per_s()));
    let (slowest, fastest) = (figures[0].presses_per_s(), figures[figures.len() - 1].presses_per_s());
    (figures[figures.len() / 2], slowest, fastest)
}

/// Makes the measurements asked for with `games` abstract games (a quarter
/// of them for legal moves) and gives each printed line to `print` as it
/// comes.
pub fn measure(games: u64, only: Option<Measure>, print: &mut dyn FnMut(String)) -> Result<(), ScenarioError> {
    let wanted = |measure: Measure| only.is_none_or(|only| only == measure);
    let abstract_scenario = Scenario::parse(ABSTRACT_SCENARIO, Path::new("throughput.toml"))?;
    let legal_scenario = Scenario::parse(LEGAL_SCENARIO, Path::new("throughput-legal.toml"))?;
    if wanted(Measure::Abstract) {
        let (figure, slowest, fastest) = median_run(&abstract_scenario, games, 1, true);
        print(median_line("abstract, invariants + model, defects", figure, slowest, fastest));
        let per_core = figure.presses_per_s() / 1e6;
        print(against_goal(per_core, ABSTRACT_GOAL_PER_CORE / 1e6, "M presses/s per core (abstract)"));
    }
    if wanted(Measure::Model) {
        let (figure, slowest, fastest) = median_run(&abstract_scenario, games, 1, false);
        print(median_line("abstract, invariants, defects, no model", figure, slowest, fastest));
        // The same machine drift for both of a pair: one with the model, one without, in turn.
        let ratio = median_ratio(|| {
            let without = time_run(&abstract_scenario, games, 1, false).presses_per_s();
            time_run(&abstract_scenario, games, 1, true).presses_per_s() / without
        });
        print(ratio_line("model on / model off", ratio));
        print(against_goal(ratio.0, MODEL_GOAL_RATIO, "x (independent model on / off)"));
    }
    if wanted(Measure::Jobs2) {
        let figure = time_run(&abstract_scenario, games, 2, true);
        print(figure_line("abstract, invariants + model, defects", figure));
        // One short run each swings by a tenth on a shared machine: the
        // ratio is the median of pairs run one after the other, as the
        // machine's speed drifts alike for both of a pair.
        let ratio = median_ratio(|| {
            let one = time_run(&abstract_scenario, games, 1, true).presses_per_s();
            time_run(&abstract_scenario, games, 2, true).presses_per_s() / one
        });
        print(ratio_line("jobs 2 / jobs 1", ratio));
        print(against_goal(ratio.0, JOBS2_GOAL_RATIO, "x (jobs 2 / jobs 1)"));
    }
    if wanted(Measure::Legal) {
        // A quarter of the games, and never none: a figure of nothing played
        // would read as a figure of zero.
        let (figure, slowest, fastest) = median_run(&legal_scenario, (games / 4).max(1), 1, false);
        print(median_line("legal moves (chess + chasolver), invariants", figure, slowest, fastest));
        print(against_goal(figure.presses_per_s() / 1e6, LEGAL_GOAL_PER_CORE / 1e6, "M presses/s per core (legal)"));
        let searches = figure.mate_searches;
        print(format!("  6.10 searches: {}, {} gave up (ruled \"can mate\")", searches.searched, searches.gave_up));
    }
    if wanted(Measure::Peers) {
        let (line, queue_rate) = peers_line(games);
        print(line);
        // The queue is not the simulator: the simulator's figure on the same
        // model, so no one reads the queue's ratio to a peer as bench sim's.
        let scenario = Scenario::parse(press_model::SCENARIO, Path::new("press_model.toml"))?;
        let (figure, slowest, fastest) = median_run(&scenario, games, 1, true);
        print(median_line("trivial press model, bench sim (clock, oracles, model)", figure, slowest, fastest));
        print(format!(
            "  the queue alone runs {:.0}x the simulator's presses/s: set a peer beside the simulator's line, not the queue's",
            queue_rate / figure.presses_per_s().max(f64::MIN_POSITIVE)
        ));
    }
    Ok(())
}

/// Bench's figure on the trivial press model: as many games as `games`
/// (about 260 events each), the median of `FIGURE_RUNS` runs; and its rate,
/// events/s.
fn peers_line(games: u64) -> (String, f64) {
    let mut runs: Vec<(press_model::Tally, f64)> = (0..FIGURE_RUNS)
        .map(|_| {
            let started = WallClock::now();
            let tally = press_model::run(games);
            (tally, tally.events as f64 / started.elapsed().as_secs_f64().max(f64::MIN_POSITIVE))
        })
        .collect();
    runs.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (tally, rate) = runs[runs.len() / 2];
    let line = format!(
        "{:<44} {} games, {} events: {:.3} M events/s (median of {FIGURE_RUNS}); NeXosim's and SimPy's beside it: scripts/peers",
        "trivial press model, bench's event queue",
        tally.games,
        tally.events,
        rate / 1e6
    );
    (line, rate)
}

/// The median of [`PAIRS`] ratios, with the lowest and highest.
fn median_ratio(mut pair: impl FnMut() -> f64) -> (f64, f64, f64) {
    let mut ratios: Vec<f64> = (0..PAIRS).map(|_| pair()).collect();
    ratios.sort_by(f64::total_cmp);
    (ratios[ratios.len() / 2], ratios[0], ratios[ratios.len() - 1])
}

/// A ratio's line: the median of its pairs, and their range.
fn ratio_line(label: &str, (median, low, high): (f64, f64, f64)) -> String {
    format!("{label} = {median:.2}x (median of {PAIRS} pairs, {low:.2}-{high:.2})")
}

/// One measurement's line: what, how many, how fast.
fn figure_line(label: &str, figure: Figure) -> String {
    format!(
        "{label:<44} jobs {}: {} games, {} presses in {:.3} s = {:.3} M presses/s",
        figure.jobs,
        figure.games,
        figure.presses,
        figure.seconds,
        figure.presses_per_s() / 1e6
    )
}

/// A median run's line, with the range of the runs.
fn median_line(label: &str, figure: Figure, slowest: f64, fastest: f64) -> String {
    format!("{} (median of {FIGURE_RUNS} runs, {:.3}-{:.3})", figure_line(label, figure), slowest / 1e6, fastest / 1e6)
}

/// One line saying how far a figure is from its goal (`bench perf --only
/// hil` prints its goal with it too).
pub fn against_goal(measured: f64, goal: f64, unit: &str) -> String {
    let verdict = if measured >= goal { "met" } else { "NOT met" };
    format!("  goal >= {goal} {unit}: {measured:.2} measured, {:.0} % of the goal, {verdict}", 100.0 * measured / goal)
}
