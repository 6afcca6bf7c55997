//! `bench hil --shrink`: the run's first failing game reduced to the fewest
//! presses and arbiter commands that still fail on the firmware **the same
//! way**, on the emulated board in lockstep (where every run of the same
//! input is the same run), then written as a replay file and played once
//! more for its report.
//!
//! The game's script (the players' moves and the arbiter's acts, as the
//! schedule made them) is reduced by `bench_sim::shrink::reduce`, the
//! simulator's shrinking: each step is a run of the firmware, and it
//! counts only if the game's first mismatch keeps its quantity
//! ([`first_cause`]), so shrinking never slides to another bug. With
//! `--jobs N`, delta debugging's candidates play on N emulators at once;
//! the shrunk case, and the runs it is counted in, are `--jobs 1`'s.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::anyhow;
use bench_hil::backend::probe::ProbeBackend;
use bench_hil::judge::compare::{Mismatch, Quantity};
use bench_hil::schedule::{GameSlice, Games};
use bench_hil::session::{GameRun, RunOptions};
use bench_sim::game::Script;
use bench_sim::replay::Replay;
use bench_sim::scenario::Scenario;
use bench_sim::shrink;

use super::{Cmd, Played, Ran};
use crate::exit::{Exit, Failure, Result};

/// Emulator runs a shrink may make unless `--shrink-budget` says otherwise.
pub const BUDGET_DEFAULT: u32 = 300;

/// What a game fails of, for shrinking: its first mismatch's quantity
/// (`snapshot.flag.black`, `period_change.moves`, …). The comparison lists
/// causes first (presses, flags, stage changes, commands, results, earliest
/// first) and snapshots after, so this is where the difference began.
pub fn first_cause(run: &GameRun) -> Option<Quantity> {
    first_mismatch(run).map(|mismatch| mismatch.quantity)
}

pub(super) fn first_mismatch(run: &GameRun) -> Option<&Mismatch> {
    match &run.comparison {
        Some(Ok(comparison)) => comparison.mismatches.first(),
        _ => None,
    }
}

/// The failing game and what it is played with.
pub(super) struct Failing<'a> {
    pub scenario: &'a Scenario,
    /// The scenario file's text, for the replay file.
    pub scenario_toml: String,
    pub seed: u64,
    pub elf: &'a Path,
    pub options: RunOptions,
    pub run: &'a GameRun,
    /// The game's script: the schedule's, or the replay file's.
    pub script: Script,
    /// Where the replay file and the shrunk game's report go.
    pub out_dir: &'a Path,
}

/// What a shrink found, and how its runs went.
struct Search {
    reduction: shrink::Reduction,
    /// The scenario with a lower move bound or a shorter control that the
    /// case still fails with.
    shorter: Option<Scenario>,
    runs: Runs,
}

impl Search {
    /// The runs it took: on several emulators, as one emulator would have
    /// made them (the same whatever --jobs), and those played in all.
    fn runs_text(&self, jobs: usize, wall_s: f64) -> String {
        match jobs {
            1 => format!("{} runs of the emulator ({wall_s:.0} s)", self.runs.made),
            _ => format!(
                "{} runs of the emulator ({} played on {jobs} emulators at once, {wall_s:.0} s)",
                self.reduction.tests, self.runs.made
            ),
        }
    }
}

/// How a shrink's runs went.
struct Runs {
    made: u32,
    /// The emulator could not play a run: shrinking stops there.
    infrastructure: Option<String>,
}

impl Runs {
    /// Whether a candidate's run failed with `cause`; a run the emulator
    /// could not play (or a thread that died) stops the shrink.
    fn fails_the_same(&mut self, played: Option<Played>, cause: Quantity) -> bool {
        let Some(played) = played else {
            self.infrastructure.get_or_insert_with(|| "a run's thread panicked".to_string());
            return false;
        };
        match played.runs.first() {
            Some(run) if run.error.as_ref().is_none_or(|error| error.is_firmware_failure()) => {
                first_cause(run) == Some(cause)
            }
            _ => {
                let why = played.error.unwrap_or_else(|| "the emulator played no game".to_string());
                self.infrastructure.get_or_insert(why);
                false
            }
        }
    }
}

impl Cmd {
    /// Shrinks `failing`'s game, writes its replay file and plays it once
    /// more for its report; exit 1 (the failure reproduces), or 3 when the
    /// emulator failed.
    pub(super) fn shrink_failure<B: ProbeBackend>(&self, failing: Failing<'_>, probes: &B) -> Result<Ran> {
        let game = failing.run.schedule.game;
        let Some(cause) = first_cause(failing.run) else {
            super::super::print(&format!(
                "--shrink: game {game} failed without a mismatch of the comparison (an error or a check of the \
                 run as a whole): nothing to shrink\n"
            ))?;
            return Ok(Ran::Judged(Exit::GateFailed));
        };
        let stop = failing.options.stop.clone().unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
        let started = Instant::now();
        let search = self.search(&failing, cause, &stop);
        let wall_s = started.elapsed().as_secs_f64();
        let played_scenario = search.shorter.as_ref().unwrap_or(failing.scenario);
        let path = write_replay_file(&failing, played_scenario, &search.reduction.script)?;
        let shrunk = one_game(played_scenario, &failing, game, &search.reduction.script)
            .schedule(game)
            .map_err(Failure::usage)?;
        let how = if let Some(why) = &search.runs.infrastructure {
            format!("stopped: the emulator failed ({why}); the smallest case found so far")
        } else if stop.load(Ordering::Relaxed) {
            "interrupted: the smallest case found so far".to_string()
        } else if search.reduction.budget_spent {
            format!("the budget of {} runs ran out: it fails, but may not be minimal", self.shrink_budget)
        } else {
            "1-minimal: leaving out any one press or command loses that mismatch".to_string()
        };
        let cause_text = first_mismatch(failing.run).map_or_else(|| cause.key().to_string(), ToString::to_string);
        let mut control = String::new();
        if let Some(scenario) = &search.shorter {
            let (bound, scenario_bound) = (scenario.board.max_moves, failing.scenario.board.max_moves);
            if bound != scenario_bound {
                control.push_str(&format!("\n  move bound: {bound} a side (the scenario's {scenario_bound})"));
            }
            if scenario.control != failing.scenario.control {
                control.push_str(&format!(
                    "\n  control: {} (the scenario's {}, main times halved)",
                    scenario.control.text, failing.scenario.control.text
                ));
            }
        }
        let summary = format!(
            "shrunk game {game} in {}: {} presses and {} arbiter commands reproduce it (from {} and {}); \
             {how}\n  first mismatch: {cause_text}{control}\nreplay file: {}\n",
            search.runs_text(usize::from(self.jobs), wall_s),
            shrunk.presses.len(),
            shrunk.commands.len(),
            failing.run.schedule.presses.len(),
            failing.run.schedule.commands.len(),
            path.display(),
        );
        super::super::print(&summary)?;
        if search.runs.infrastructure.is_some() {
            return Err(Failure::infrastructure(anyhow!("the emulator failed while shrinking")));
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(Ran::Judged(Exit::GateFailed));
        }
        self.report_shrunk(&path, failing.out_dir, game, probes)
    }

    /// The search for the smallest case: the script reduced, then a
    /// shorter control where the failure allows and the script reduced
    /// again under it, with a progress bar.
    fn search(&self, failing: &Failing<'_>, cause: Quantity, stop: &AtomicBool) -> Search {
        let game = failing.run.schedule.game;
        let quiet = Cmd { quiet: true, ..self.clone() };
        let bar = super::progress_bar(u64::from(self.shrink_budget), "runs", "{msg}");
        let original = failing.script.len();
        let mut runs = Runs { made: 0, infrastructure: None };
        let jobs = usize::from(self.jobs);
        // Whether each script of a batch fails the same way, played with
        // `scenario` (the failing run's, or one with a shorter control).
        let mut try_batch = |scenario: &Scenario, batch: &[Script]| {
            if stop.load(Ordering::Relaxed) || runs.infrastructure.is_some() {
                return vec![false; batch.len()];
            }
            let shortest = batch.iter().map(Script::len).min().unwrap_or(0);
            bar.set_message(format!("shrinking game {game}: trying {shortest} of {original} moves and acts"));
            let play = |candidate: &Script| {
                quiet.play(failing.elf, &one_game(scenario, failing, game, candidate), failing.options.clone())
            };
            let played: Vec<Option<Played>> = match batch {
                [candidate] => vec![Some(play(candidate))],
                _ => std::thread::scope(|scope| {
                    let runs: Vec<_> = batch.iter().map(|candidate| scope.spawn(move || play(candidate))).collect();
                    runs.into_iter().map(|run| run.join().ok()).collect()
                }),
            };
            runs.made += u32::try_from(batch.len()).unwrap_or(u32::MAX);
            bar.set_position(u64::from(runs.made));
            played.into_iter().map(|played| runs.fails_the_same(played, cause)).collect::<Vec<bool>>()
        };
        let budget = self.shrink_budget;
        // The move bound bisected first, as the simulator's shrink does: a
        // game cut after fewer moves a side ends on its bound, where a
        // script cut short ends on a flag (which a defect may rule on
        // differently: another first mismatch).
        let with_bound = |max_moves| {
            let mut scenario = failing.scenario.clone();
            scenario.board.max_moves = max_moves;
            scenario
        };
        let mut bisections = 0u32;
        let bound = shrink::lowest_failing_bound(failing.scenario.board.max_moves, |max_moves| {
            if bisections >= budget {
                return false;
            }
            bisections += 1;
            try_batch(&with_bound(max_moves), std::slice::from_ref(&failing.script)).first() == Some(&true)
        });
        let bounded = (bound < failing.scenario.board.max_moves).then(|| with_bound(bound));
        let base = bounded.as_ref().unwrap_or(failing.scenario);
        let left = budget.saturating_sub(bisections);
        let mut reduction =
            shrink::reduce_in_batches(failing.script.clone(), left, jobs, |batch| try_batch(base, batch));
        reduction.tests = reduction.tests.saturating_add(bisections);
        let mut shorter: Option<Scenario> = bounded.clone();
        while reduction.tests < budget {
            let current = shorter.as_ref().unwrap_or(failing.scenario);
            let Some(control) = current.control.with_main_times_halved() else { break };
            let candidate = Scenario { control, ..current.clone() };
            reduction.tests += 1;
            if try_batch(&candidate, std::slice::from_ref(&reduction.script)).first() != Some(&true) {
                break;
            }
            shorter = Some(candidate);
        }
        let shortened = shorter.as_ref().is_some_and(|scenario| scenario.control != base.control);
        if let (Some(scenario), true) = (&shorter, shortened) {
            let left = budget.saturating_sub(reduction.tests);
            let again =
                shrink::reduce_in_batches(reduction.script.clone(), left, jobs, |batch| try_batch(scenario, batch));
            reduction = shrink::Reduction { tests: reduction.tests.saturating_add(again.tests), ..again };
        }
        bar.finish_and_clear();
        Search { reduction, shorter, runs }
    }

    /// The shrunk game played once more from its replay file, for its
    /// report, as `bench hil --replay FILE` plays it.
    fn report_shrunk<B: ProbeBackend>(&self, path: &Path, out_dir: &Path, game: u64, probes: &B) -> Result<Ran> {
        let dir: PathBuf = out_dir.join(format!("shrunk-game-{game}"));
        let mut replayed = self.clone();
        replayed.scenario = None;
        replayed.replay = Some(path.to_path_buf());
        replayed.run.out = Some(dir.clone());
        replayed.run.force = true;
        replayed.records = None;
        replayed.shrink = false;
        super::super::print(&format!("the shrunk game, played from its replay file into {}:\n", dir.display()))?;
        replayed.run_scenario(probes)
    }
}

/// Writes the shrunk case's replay file into the failing run's folder.
fn write_replay_file(failing: &Failing<'_>, played_scenario: &Scenario, script: &Script) -> Result<PathBuf> {
    let game = failing.run.schedule.game;
    let replay = Replay {
        scenario: failing.scenario.clone(),
        scenario_toml: failing.scenario_toml.clone(),
        seed: failing.seed,
        game,
        swarm: false,
        disabled: bench_sim::defects::DefectSet::NONE,
        max_moves: played_scenario.board.max_moves,
        control: bench_sim::replay::control_override(played_scenario, &failing.scenario_toml),
        script: script.clone(),
        cause: first_mismatch(failing.run).map(ToString::to_string),
    };
    let path =
        failing.out_dir.join(format!("shrunk-{}-{}-game-{game}.replay.toml", failing.scenario.name, failing.seed));
    std::fs::write(&path, replay.to_toml())
        .map_err(|error| Failure::infrastructure(anyhow!("writing the replay file {}: {error}", path.display())))?;
    Ok(path)
}

/// Game `game` of `scenario` (the failing run's, or with a shorter control)
/// with the failing run's seed, played from `script`.
fn one_game<'s>(scenario: &'s Scenario, failing: &Failing<'_>, game: u64, script: &'s Script) -> Games<'s> {
    Games {
        scenario,
        seed: failing.seed,
        script: Some(script),
        slice: GameSlice { first: game, step: 1, end: game.saturating_add(1) },
    }
}
