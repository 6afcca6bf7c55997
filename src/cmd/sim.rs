//! `bench sim`: seeded games against the clock core, judged by the
//! scenario's expectations.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use bench_sim::calibrate::{self, Expectation};
use bench_sim::defects::DefectSet;
use bench_sim::game::{self, GameSpec};
use bench_sim::replay::{self, Replay};
use bench_sim::run::{self, Check, Controls, RunOptions, Summary};
use bench_sim::scenario::Scenario;
use bench_sim::shrink::{self, Shrunk, Target, Variant};

use super::game_runs::{default_out_dir, progress_bar, RunOrigin};
use super::run_args::RunArgs;
use super::shard::{self, ShardArg};
use super::shell_word;
use crate::catalog;
use crate::exit::{Exit, Failure, Result};
use bench_report::replays::ReplayText;
use bench_report::sim::{RunFacts, SimReportInput};
use bench_report::{self as report, gate};

#[derive(Debug, clap::Args)]
#[command(
    mut_arg("out", |arg| arg.help("Report directory [default: reports/<scenario>-<seed>]")),
    mut_arg("force", |arg| arg.help(
        "Replace the report in the report folder even when it is another run's (another scenario, seed, \
         --games or option; with --game on a postal scenario, another game's plot and timeline). Without it \
         such a folder is refused (exit 2); a rerun of the same command replaces its own report",
    )),
    mut_arg("max_moves", |arg| arg.help(
        "Play with at most this many moves per player, 1 to 10 000",
    )),
)]
pub struct Cmd {
    /// A scenario name (see `bench scenarios`) or a path to a scenario file.
    #[arg(long, short, value_name = "NAME|PATH", required_unless_present = "replay")]
    scenario: Option<String>,
    /// The scenario file's text, for the replay files --shrink writes.
    #[arg(skip)]
    scenario_toml: String,
    #[command(flatten)]
    run: RunArgs,
    /// Threads to run games on [default: all cores]. Results do not depend on it.
    #[arg(long, short, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Run only slice I of N of the games (1-based), e.g. `--shard 2/8`.
    /// `auto` reads I and N from a scheduler's environment: a Slurm job
    /// array (SLURM_ARRAY_TASK_ID, _MIN, _COUNT), a Kubernetes Indexed Job
    /// (JOB_COMPLETION_INDEX, and BENCH_SHARD_COUNT set in the Job spec),
    /// GitLab CI parallel: (CI_NODE_INDEX, CI_NODE_TOTAL), else BENCH_SHARD=I/N;
    /// exactly one of them (exit 2 otherwise). The report's command names
    /// the shard found, `--shard I/N`.
    #[arg(long = "shard", id = "shard", value_name = "I/N|auto", value_parser = shard::parse)]
    shard_arg: Option<ShardArg>,
    /// The slice `--shard` names, `auto` resolved.
    #[arg(skip)]
    shard: Option<(u64, u64)>,
    /// Play only game G (0-based) and print its result; with --trace, every event.
    #[arg(long, value_name = "G")]
    game: Option<u64>,
    /// With --game: print the game's full event trace.
    #[arg(long, requires = "game")]
    trace: bool,
    /// Reduce a failing game (--game G, --replay FILE, or the run's first
    /// failure) to the fewest moves, arbiter acts, device faults and
    /// defects that still fail with the same first cause (the same oracle
    /// and check), print its trace, and write it as a replay file (in
    /// --out, else the run's report folder, else beside --replay's file).
    #[arg(long)]
    shrink: bool,
    /// With --shrink: the most games shrinking may play. When they run out
    /// the case still fails but may not be minimal, and says so.
    #[arg(long, value_name = "GAMES", requires = "shrink", default_value_t = shrink::BUDGET_DEFAULT,
          value_parser = clap::value_parser!(u32).range(1..))]
    shrink_budget: u32,
    /// Play the game of a replay file (one game's moves, arbiter acts and
    /// device faults, with its scenario inside; --shrink writes them) and
    /// print its trace; exit 1 when it fails. With --shrink, shrink it.
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "scenario", "game", "shard", "calibrate", "swarm", "disable", "check_determinism", "seed", "games",
        "max_moves", "force",
    ])]
    replay: Option<PathBuf>,
    /// Play every game twice and fail on any difference.
    #[arg(long)]
    check_determinism: bool,
    /// Draw each game's defect mix from the seed: a hunt for oracle
    /// violations. The scenario's other expectations assume its own mix, so
    /// they usually fail under --swarm (scenarios/README.md, "Swarm runs").
    #[arg(long)]
    swarm: bool,
    /// Skip the independent-model oracle, which checks the ideal clock
    /// against a second, independently written model of the rules (faster;
    /// the invariants still run). `--no-tick-oracle` is its old name.
    #[arg(long, alias = "no-tick-oracle")]
    no_model_oracle: bool,
    /// Play with these defects switched off, comma-separated, e.g. `bounce,drift` (an
    /// unknown name lists them all; --shrink prints the list a failure needs).
    #[arg(long, value_name = "LIST", value_parser = parse_defects)]
    disable: Option<DefectSet>,
    /// For scenario authors: play --games games (default 20 000), measure
    /// each expected share, and print the range a run of the scenario's own
    /// `games` fails by chance less than once in 10 000 a side; exit 1 when
    /// a written range is narrower. Writes no report; the oracles run as in
    /// any run, and a game that violates one fails the calibration.
    #[arg(long, conflicts_with_all = ["game", "shrink", "shard", "check_determinism", "swarm", "out", "force"])]
    calibrate: bool,
}

/// Games a calibration plays unless --games says otherwise: enough that
/// the measured share is off by well under a percentage point.
const CALIBRATION_GAMES: u64 = 20_000;

fn parse_defects(text: &str) -> std::result::Result<DefectSet, String> {
    DefectSet::parse(text)
}

impl Cmd {
    pub fn run(mut self) -> Result {
        self.shard = match self.shard_arg {
            None => None,
            Some(ShardArg::Given(index, count)) => Some((index, count)),
            Some(ShardArg::Auto) => Some(shard::from_env(|name| std::env::var(name).ok()).map_err(Failure::usage)?),
        };
        if let Some(path) = self.replay.clone() {
            return self.replay_game(&path);
        }
        let argument = self.scenario.clone().unwrap_or_default();
        let (mut scenario, file) = catalog::find(&argument).map_err(Failure::usage)?;
        // Read as the scenario was: a replay file carries the text.
        self.scenario_toml = std::fs::read_to_string(&file).unwrap_or_default();
        if scenario.correspondence.is_some() {
            let over_the_board = [
                ("--swarm", self.swarm),
                ("--disable", self.disable.is_some()),
                ("--max-moves", self.run.max_moves.is_some()),
                ("--shrink", self.shrink),
            ];
            if let Some((flag, _)) = over_the_board.into_iter().find(|(_, given)| *given) {
                return Err(Failure::usage(anyhow::anyhow!(
                    "{flag} is for over-the-board scenarios: `{}` is a postal game, with no clock device and no \
                     defects (its length is correspondence.moves)",
                    scenario.name
                )));
            }
        }
        if let Some(max_moves) = self.run.max_moves {
            scenario.board.max_moves = max_moves;
        }
        if self.run.games == Some(0) {
            return Err(Failure::usage(anyhow::anyhow!(
                "--games must be at least 1: a run of no games checks nothing"
            )));
        }
        let seed = self.run.seed.unwrap_or(scenario.seed);
        if let Some(game) = self.game {
            self.refuse_what_one_game_cannot_honour(&scenario)?;
            return self.one_game(&scenario, seed, game);
        }
        if self.calibrate {
            return self.calibrate(&scenario, seed);
        }
        self.many_games(&scenario, &file, seed)
    }

    /// `--game G` replays one game: options about a run's games would be
    /// silently dropped, so they are refused (exit 2) before it is played.
    fn refuse_what_one_game_cannot_honour(&self, scenario: &Scenario) -> Result<()> {
        let why = if let Some((index, count)) = self.shard {
            format!("--shard {index}/{count} picks a slice of a run's games, and --game one game: give one of them")
        } else if self.run.force && scenario.correspondence.is_none() {
            "--force replaces a run's report, and --game on an over-the-board scenario writes none".to_string()
        } else if self.run.out.is_some() && scenario.correspondence.is_none() && !self.shrink {
            "--out names a run's report folder, and --game on an over-the-board scenario writes no report: it \
             prints the game (--trace: every event); drop --game for a report"
                .to_string()
        } else {
            return Ok(());
        };
        Err(Failure::usage(anyhow::anyhow!("{why} (nothing was run)")))
    }

    fn disabled(&self) -> DefectSet {
        self.disable.unwrap_or_default()
    }

    fn target<'a>(&self, scenario: &'a Scenario, seed: u64, game: u64) -> Target<'a> {
        Target { scenario, seed, game, swarm: self.swarm, model_oracle: !self.no_model_oracle }
    }

    /// The scenario as it was named.
    fn scenario_argument(&self) -> String {
        self.scenario.clone().unwrap_or_default()
    }

    /// The command that replays game `game` with its trace.
    fn replay_command(&self, seed: u64, game: u64, disabled: DefectSet, max_moves: Option<u32>) -> String {
        let mut command = format!(
            "bench sim --scenario {} --seed {seed} --game {game} --trace",
            shell_word(&self.scenario_argument())
        );
        if self.swarm {
            command.push_str(" --swarm");
        }
        if !disabled.is_empty() {
            let _ = write!(command, " --disable {disabled}");
        }
        if let Some(max_moves) = max_moves {
            let _ = write!(command, " --max-moves {max_moves}");
        }
        command
    }

    /// The command that reproduces this run's report.json: every option
    /// that changes results, none that does not (--jobs, --out).
    fn reproduce_command(&self, seed: u64, games: u64) -> String {
        let mut command =
            format!("bench sim --scenario {} --seed {seed} --games {games}", shell_word(&self.scenario_argument()));
        if let Some((index, count)) = self.shard {
            let _ = write!(command, " --shard {index}/{count}");
        }
        for (flag, on) in [
            ("--swarm", self.swarm),
            ("--check-determinism", self.check_determinism),
            ("--no-model-oracle", self.no_model_oracle),
        ] {
            if on {
                let _ = write!(command, " {flag}");
            }
        }
        if let Some(disabled) = self.disable.filter(|disabled| !disabled.is_empty()) {
            let _ = write!(command, " --disable {disabled}");
        }
        if let Some(max_moves) = self.run.max_moves {
            let _ = write!(command, " --max-moves {max_moves}");
        }
        command
    }

    /// `--game G` must be a game of the run: of `--games N` when given (`--game 3
    /// --games 2` names a game that run does not have), else of the scenario's.
    fn refuse_a_game_beyond_the_run(&self, scenario: &Scenario, game: u64) -> Result<()> {
        let why = match self.run.games {
            Some(games) if game >= games => format!(
                "--game {game}: --games {games} has games 0..{games}: give a game below {games}, or more --games \
                 (nothing was run)"
            ),
            None if game >= scenario.games => {
                format!("--game {game}: the scenario has games 0..{} (use --games to go further)", scenario.games)
            }
            _ => return Ok(()),
        };
        Err(Failure::usage(anyhow::anyhow!("{why}")))
    }

    /// A postal game's report folder, checked before the game is played:
    /// one that holds another game's plot and timeline is not replaced
    /// silently. `None` for an over-the-board game, which writes none.
    fn postal_game_dir(&self, scenario: &Scenario, seed: u64, game: u64) -> Result<Option<PathBuf>> {
        if scenario.correspondence.is_none() {
            return Ok(None);
        }
        let dir = self.run.out.clone().unwrap_or_else(|| postal_game_dir(scenario, seed, game));
        super::refuse_a_file_as_out_dir(&dir)?;
        let another = report::postal::another_games_files(&dir, &scenario.name, seed, game);
        if let Some(why) = another.filter(|_| !self.run.force) {
            return Err(Failure::usage(anyhow::anyhow!("{why} (nothing was run)")));
        }
        super::prepare_out_dir(&dir)?;
        Ok(Some(dir))
    }

    fn one_game(&self, scenario: &Scenario, seed: u64, game: u64) -> Result {
        self.refuse_a_game_beyond_the_run(scenario, game)?;
        if self.shrink {
            return self.shrink_game(scenario, seed, game);
        }
        let postal_dir = self.postal_game_dir(scenario, seed, game)?;
        let spec = GameSpec {
            scenario,
            seed,
            game,
            swarm: self.swarm,
            trace: self.trace,
            model_oracle: !self.no_model_oracle,
            disabled: self.disabled(),
            record_inputs: false,
            script: None,
        };
        let record = game::play(spec);
        let mut out = String::new();
        if self.trace {
            out.push_str(TRACE_HEADER);
        }
        for line in record.trace.iter().flatten() {
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(
            out,
            "game {game} (seed {seed}): device {}, ideal clock {}; {} moves, {} presses, max time error {} us, trace {:016x}",
            record.device,
            record.ideal,
            record.moves.white + record.moves.black,
            record.presses,
            record.max_time_error_us,
            record.trace_hash
        );
        let mut reasons = run::failure_reasons(scenario, &record);
        if self.check_determinism {
            reasons.extend(played_twice(&mut out, spec, &record));
        }
        for reason in &reasons {
            let _ = writeln!(out, "  FAIL {reason}");
        }
        if let (Some(postal), Some(dir)) = (&scenario.correspondence, postal_dir) {
            // The day-by-day accounting and the claims timeline of this game.
            let played = bench_sim::postal::play(postal, seed, game);
            let report = report::postal::PostalGame { scenario: &scenario.name, seed, game, record: &played };
            report::postal::write_postal_game(&dir, &report).map_err(Failure::infrastructure)?;
            let _ = writeln!(out, "accounting plot and claims timeline: {}", dir.display());
        }
        super::print(&out)?;
        Ok(if reasons.is_empty() { Exit::Pass } else { Exit::GateFailed })
    }

    /// The replay file of each failing game the summary keeps, played
    /// again for its script (a correspondence game has none).
    fn failure_replays(&self, scenario: &Scenario, seed: u64, summary: &Summary) -> Vec<ReplayText> {
        if scenario.correspondence.is_some() {
            return Vec::new();
        }
        let max_moves = scenario.board.max_moves;
        let disabled = self.disabled();
        let replay_of = |game| {
            let target = self.target(scenario, seed, game);
            let record = shrink::play_variant(target, Variant { disabled, max_moves, script: None }, false);
            let replay = Replay {
                scenario: scenario.clone(),
                scenario_toml: self.scenario_toml.clone(),
                seed,
                game,
                swarm: self.swarm,
                disabled,
                max_moves,
                control: replay::control_override(scenario, &self.scenario_toml),
                cause: shrink::first_cause(scenario, &record).map(|cause| cause.to_string()),
                script: record.script.unwrap_or_default(),
            };
            ReplayText { game, toml: replay.to_toml() }
        };
        summary.failures.iter().map(|failure| replay_of(failure.game)).collect()
    }

    fn shrink_game(&self, scenario: &Scenario, seed: u64, game: u64) -> Result {
        let target = self.target(scenario, seed, game);
        let Some(shrunk) = shrink::shrink(target, self.shrink_budget) else {
            super::print(&format!("game {game} (seed {seed}) does not fail: nothing to shrink\n"))?;
            return Ok(Exit::Pass);
        };
        let dir = self.run.out.clone().unwrap_or_else(|| default_out_dir("", scenario, seed, None));
        self.report_shrunk(target, &shrunk, &self.scenario_toml, &dir)
    }

    /// Prints a shrunk game's trace and what it fails of, and writes its
    /// replay file in `dir`.
    fn report_shrunk(&self, target: Target<'_>, shrunk: &Shrunk, scenario_toml: &str, dir: &Path) -> Result {
        let replay = Replay {
            scenario: target.scenario.clone(),
            scenario_toml: scenario_toml.to_string(),
            seed: target.seed,
            game: target.game,
            swarm: target.swarm,
            disabled: shrunk.disabled,
            max_moves: shrunk.max_moves,
            control: shrunk.control.clone().or_else(|| replay::control_override(target.scenario, scenario_toml)),
            script: shrunk.script.clone(),
            cause: Some(shrunk.cause.to_string()),
        };
        let name = format!("shrunk-{}-{}-game-{}.replay.toml", target.scenario.name, target.seed, target.game);
        let path = dir.join(name);
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&path, replay.to_toml()))
            .with_context(|| format!("writing the replay file {}", path.display()))
            .map_err(Failure::infrastructure)?;
        let mut out = String::from(TRACE_HEADER);
        for line in shrunk.record.trace.iter().flatten() {
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out, "{}", shrunk_summary(target, shrunk));
        for reason in &shrunk.reasons {
            let _ = writeln!(out, "  FAIL {reason}");
        }
        let _ = writeln!(out, "replay file: {}", path.display());
        let _ = writeln!(out, "replay: bench sim --replay {}", shell_word(&path.display().to_string()));
        super::print(&out)?;
        Ok(Exit::GateFailed)
    }

    /// `--replay FILE`: plays the file's game with its trace, or shrinks it.
    fn replay_game(&self, path: &Path) -> Result {
        let replay = Replay::load(path).map_err(|error| Failure::usage(anyhow::anyhow!("{error}")))?;
        let scenario = replay.played_scenario();
        let target = Target {
            scenario: &scenario,
            seed: replay.seed,
            game: replay.game,
            swarm: replay.swarm,
            model_oracle: !self.no_model_oracle,
        };
        let start = Variant { disabled: replay.disabled, max_moves: replay.max_moves, script: Some(&replay.script) };
        if self.shrink {
            let Some(shrunk) = shrink::shrink_from(target, start, self.shrink_budget) else {
                super::print(&format!("{} does not fail: nothing to shrink\n", path.display()))?;
                return Ok(Exit::Pass);
            };
            let beside = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let dir = self.run.out.clone().unwrap_or(beside);
            return self.report_shrunk(target, &shrunk, &replay.scenario_toml, &dir);
        }
        let record = shrink::play_variant(target, start, true);
        let mut out = String::from(TRACE_HEADER);
        for line in record.trace.iter().flatten() {
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(
            out,
            "replayed {} ({} game {}, seed {}): device {}, ideal clock {}; {} moves, {} presses, max time error {} us",
            path.display(),
            scenario.name,
            replay.game,
            replay.seed,
            record.device,
            record.ideal,
            record.moves.white + record.moves.black,
            record.presses,
            record.max_time_error_us,
        );
        let reasons = run::failure_reasons(&scenario, &record);
        for reason in &reasons {
            let _ = writeln!(out, "  FAIL {reason}");
        }
        super::print(&out)?;
        Ok(if reasons.is_empty() { Exit::Pass } else { Exit::GateFailed })
    }

    fn jobs(&self) -> usize {
        self.jobs.map_or_else(|| std::thread::available_parallelism().map_or(1, usize::from), usize::from)
    }

    fn calibrate(&self, scenario: &Scenario, seed: u64) -> Result {
        let games = self.run.games.unwrap_or(CALIBRATION_GAMES);
        let options = RunOptions {
            seed,
            games: 0..games,
            jobs: self.jobs(),
            swarm: false,
            // The oracles only check: with them the shares are the same, and
            // a wrong core is caught while calibrating too.
            model_oracle: !self.no_model_oracle,
            disabled: self.disabled(),
        };
        let bar = progress_bar(games, "games", "{rate} eta {eta}");
        let summary = run::run(scenario, &options, &|done| bar.set_position(done));
        bar.finish_and_clear();
        let calibrations = calibrate::calibrate(scenario, &summary);
        let mut out = render_calibration(scenario, seed, &summary, &calibrations);
        let mut failed = calibrations.iter().any(|calibration| calibration.too_narrow);
        if let Some(bound) = scenario.expect.time_error_max_us {
            let above = summary.max_time_error_us > bound;
            let _ = writeln!(
                out,
                "  largest device-ideal time error over {games} games: {} us; written bound {bound} us{}",
                summary.max_time_error_us,
                if above { "  EXCEEDED" } else { "" }
            );
            failed |= above;
        }
        if let Some(first) = summary.failures.first().filter(|_| summary.games_with_violations > 0) {
            let _ = writeln!(
                out,
                "{} games violated an oracle; replay one: {}",
                summary.games_with_violations,
                self.replay_command(seed, first.game, self.disabled(), self.run.max_moves)
            );
            failed = true;
        }
        let _ = writeln!(out, "calibration: {}", if failed { "FAIL" } else { "PASS" });
        super::print(&out)?;
        Ok(if failed { Exit::GateFailed } else { Exit::Pass })
    }

    fn many_games(&self, scenario: &Scenario, file: &Path, seed: u64) -> Result {
        let games = self.run.games.unwrap_or(scenario.games);
        let range = self.games_to_play(games)?;
        let jobs = self.jobs();
        let options = RunOptions {
            seed,
            games: range.clone(),
            jobs,
            swarm: self.swarm,
            model_oracle: !self.no_model_oracle,
            disabled: self.disabled(),
        };
        let out_dir = self.run.out.clone().unwrap_or_else(|| default_out_dir("", scenario, seed, self.shard));
        let command = self.reproduce_command(seed, games);
        super::refuse_to_replace_another_run(&out_dir, &command, self.run.force)?;
        super::prepare_out_dir(&out_dir)?;
        let stop = super::stop_on_interrupt("sim");
        let started = std::time::Instant::now();
        let summary = self.play_with_progress(scenario, &options, &stop);
        let complete = summary.games == range.end - range.start;
        let mut checks = run::judge(scenario, &summary);
        if self.check_determinism {
            checks.push(run::determinism_check(&summary));
        }
        let replay = |game| self.replay_command(seed, game, self.disabled(), self.run.max_moves);
        let replays = self.failure_replays(scenario, seed, &summary);
        let parts = ReportParts {
            scenario,
            file,
            seed,
            range,
            games_total: games,
            options: self.report_options(),
            shard: self.shard,
            swarm: self.swarm,
            summary: &summary,
            checks: &checks,
            replay: &replay,
            replays: &replays,
            command,
            complete,
            wall_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            jobs,
        };
        let written = write_reports(&out_dir, &parts);
        // The gate reads the report just written, as `bench gate` would: the
        // exit code is the default gate's verdict.
        let gated = match &written {
            Ok(()) if complete => Some(gate::apply_defaults(&out_dir)),
            _ => None,
        };
        let passed = match &gated {
            Some(Ok((passed, _))) => *passed,
            _ => checks.iter().all(|check| check.passed),
        };
        let mut out = console_after_run(&parts, &out_dir, &written, gated.as_ref());
        if self.shrink {
            if let Some(first) = summary.failures.first() {
                super::print(&out)?;
                return self.shrink_game(scenario, seed, first.game);
            }
            out.push_str(nothing_to_shrink(passed));
        }
        super::print(&out)?;
        written.map_err(Failure::infrastructure)?;
        if !complete {
            return Err(Failure::infrastructure(anyhow::anyhow!("the run was interrupted")));
        }
        if let Some(Err(error)) = gated {
            return Err(Failure::infrastructure(error));
        }
        Ok(if passed { Exit::Pass } else { Exit::GateFailed })
    }

    /// The games of this run: all `games`, or the `--shard`'s slice of them,
    /// which must not be empty.
    fn games_to_play(&self, games: u64) -> std::result::Result<std::ops::Range<u64>, Failure> {
        let range = match self.shard {
            Some((index, count)) => run::shard_range(games, index, count).unwrap_or(0..0),
            None => 0..games,
        };
        if let (true, Some((index, count))) = (range.is_empty(), self.shard) {
            // A gate on a slice of no games would pass having checked nothing.
            return Err(Failure::usage(anyhow::anyhow!(
                "shard {index}/{count} of {games} games has no game: split {games} games into at most {games} shards"
            )));
        }
        Ok(range)
    }

    /// Plays the run's games with a progress bar until done or `stop`.
    fn play_with_progress(&self, scenario: &Scenario, options: &RunOptions, stop: &AtomicBool) -> Summary {
        let bar = progress_bar(options.games.end - options.games.start, "games", "{rate} eta {eta}");
        let summary = run::run_with(
            scenario,
            options,
            &Controls {
                progress: &|done| bar.set_position(done),
                check_determinism: self.check_determinism,
                stop: Some(stop),
            },
        );
        bar.finish_and_clear();
        summary
    }

    /// The options that change results, as the report lists them.
    fn report_options(&self) -> report::sim::report::Options {
        report::sim::report::Options {
            check_determinism: self.check_determinism,
            tick_oracle: !self.no_model_oracle,
            max_moves: self.run.max_moves,
            disabled: self.disabled().iter().map(|defect| defect.name().to_string()).collect(),
        }
    }
}

/// The calibration table: each expectation's measured share, its written
/// and suggested ranges, and the written range's chance to fail a run.
fn render_calibration(
    scenario: &Scenario,
    seed: u64,
    summary: &Summary,
    calibrations: &[calibrate::Calibration],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "bench sim {} --calibrate: {} games (seed {seed}), for runs of the scenario's {} games",
        scenario.name, summary.games, scenario.games
    );
    let _ = writeln!(
        out,
        "  suggested: the narrowest whole-percent range each side of which a run fails with chance < {:.0e}",
        calibrate::RISK_PER_SIDE
    );
    let chance = |chance: f64| if chance == 0.0 { "0".to_string() } else { format!("{chance:.1e}") };
    let range = |expectation: Expectation, (min, max): (u64, u64)| match expectation {
        Expectation::Agreement => format!(">= {min} %"),
        Expectation::ResultShare => format!("{min} % to {max} %"),
    };
    let _ = writeln!(
        out,
        "  {:<34} {:>8}  {:<14} {:<14} a run fails it (low side, high side)",
        "expectation", "measured", "written", "suggested"
    );
    for calibration in calibrations {
        let share = calibration.share;
        let tenths = (share.part * 1_000).checked_div(share.whole).unwrap_or(0);
        let _ = writeln!(
            out,
            "  {:<34} {:>6}.{} %  {:<14} {:<14} {}, {}{}",
            calibration.name,
            tenths / 10,
            tenths % 10,
            range(calibration.expectation, calibration.written),
            range(calibration.expectation, calibration.suggested),
            chance(calibration.risk.0),
            match calibration.expectation {
                Expectation::Agreement => "-".to_string(),
                Expectation::ResultShare => chance(calibration.risk.1),
            },
            if calibration.too_narrow { "  TOO NARROW" } else { "" }
        );
    }
    out
}

/// What `--trace` prints before the events, so that a line reads without
/// the source: every time in it is in microseconds.
const TRACE_HEADER: &str = "\
# true time since the game began (us), then the event; every time is in us,
# stages and periods count from 1 as `bench timecontrol` shows them
";

fn postal_game_dir(scenario: &Scenario, seed: u64, game: u64) -> PathBuf {
    PathBuf::from("reports").join(format!("{}-{seed}-game-{game}", scenario.name))
}

/// `--check-determinism` on one game, as a run does it for each of its
/// games: the game played again must give the same trace and result.
/// Returns the failure, if any; a pass is noted in `out`.
fn played_twice(out: &mut String, spec: GameSpec<'_>, record: &game::GameRecord) -> Option<String> {
    let again = game::play(GameSpec { trace: false, ..spec });
    if again.trace_hash != record.trace_hash || again.device != record.device {
        return Some(format!(
            "the game does not play the same twice: trace {:016x}, then {:016x}",
            record.trace_hash, again.trace_hash
        ));
    }
    let _ = writeln!(out, "  PASS {}: trace {:016x} both times", run::DETERMINISM_CHECK, again.trace_hash);
    None
}

/// One line on a shrunk game: how far it came, and what it still fails of.
fn shrunk_summary(target: Target<'_>, shrunk: &Shrunk) -> String {
    let minimal = if shrunk.budget_spent {
        format!(
            "the budget ran out after {} games: it fails, but may not be minimal (more --shrink-budget)",
            shrunk.attempts
        )
    } else {
        "1-minimal: leaving out any one of them, or switching off one more defect, loses that failure".to_string()
    };
    let disabled = if shrunk.disabled.is_empty() { "none".to_string() } else { shrunk.disabled.to_string() };
    let control = match &shrunk.control {
        Some(shorter) => {
            format!("\ncontrol: {} (the scenario's {}, main times halved)", shorter.text, target.scenario.control.text)
        }
        None => String::new(),
    };
    format!(
        "shrunk game {} (seed {}) in {} games: {} presses reproduce it (from {}; {} of {} moves, arbiter acts and \
         device faults), still failing with {}; {minimal}\ndefects off: {disabled}{control}",
        target.game,
        target.seed,
        shrunk.attempts,
        shrunk.record.presses,
        shrunk.original_presses,
        shrunk.script.len(),
        shrunk.original_len,
        shrunk.cause,
    )
}

/// Why `--shrink` shrinks nothing when no game of the run failed.
fn nothing_to_shrink(passed: bool) -> &'static str {
    if passed {
        "--shrink: no game failed: nothing to shrink\n"
    } else {
        "--shrink: no game failed on its own: the run fails on how often results occur across its games, which no single game reproduces; nothing to shrink (more games, or --swarm, to hunt for a failing game)\n"
    }
}

struct ReportParts<'a> {
    scenario: &'a Scenario,
    file: &'a Path,
    seed: u64,
    range: std::ops::Range<u64>,
    games_total: u64,
    options: report::sim::report::Options,
    shard: Option<(u64, u64)>,
    swarm: bool,
    summary: &'a Summary,
    checks: &'a [Check],
    replay: &'a dyn Fn(u64) -> String,
    replays: &'a [ReplayText],
    /// The command that reproduces the run (options that change results only).
    command: String,
    complete: bool,
    wall_ms: u64,
    jobs: usize,
}

fn write_reports(dir: &Path, parts: &ReportParts<'_>) -> anyhow::Result<()> {
    let bytes = std::fs::read(parts.file).with_context(|| format!("reading {}", parts.file.display()))?;
    let input = SimReportInput {
        scenario: parts.scenario,
        scenario_file: parts.file,
        scenario_sha256: report::sha256_hex(&bytes),
        seed: parts.seed,
        games: parts.range.clone(),
        games_total: parts.games_total,
        shard: parts.shard,
        swarm: parts.swarm,
        options: parts.options.clone(),
        summary: parts.summary,
        checks: parts.checks,
        command_line: parts.command.clone(),
        replay_command: parts.replay,
        replays: parts.replays,
        complete: parts.complete,
        incomplete_because: None,
    };
    report::sim::write_sim_report(dir, &input)?;
    let origin = RunOrigin::ended_now(parts.wall_ms);
    let facts = RunFacts {
        wall_ms: origin.wall_ms,
        jobs: parts.jobs,
        host: origin.host,
        started_unix_s: origin.started_unix_s,
        bench_version: origin.bench_version,
        git_commit: origin.git_commit,
    };
    report::sim::write_run_facts(dir, &facts)?;
    Ok(())
}

/// The check the report adds (`report::sim::report::COMPLETE_CHECK`), for the
/// console too: an interrupted run's console verdict is the report's, FAIL.
/// What `bench sim` prints after a run: the summary with the played
/// check, where the report went and the gate's verdict (or why there is no
/// report), and whether the run was interrupted.
fn console_after_run(
    parts: &ReportParts<'_>,
    out_dir: &Path,
    written: &anyhow::Result<()>,
    gated: Option<&anyhow::Result<(bool, String)>>,
) -> String {
    let (summary, range) = (parts.summary, &parts.range);
    let played_check = played_check(summary, range, parts.complete);
    let console_checks: Vec<Check> = parts.checks.iter().cloned().chain([played_check]).collect();
    let mut out = render_summary(parts.scenario, parts.seed, range, summary, &console_checks, parts.replay);
    match written {
        Ok(()) => {
            super::push_report_and_gate(&mut out, out_dir, gated);
        }
        Err(error) => {
            let _ = writeln!(out, "report NOT written: {error:#}");
        }
    }
    if !parts.complete {
        let _ = writeln!(
            out,
            "interrupted after {} of {} games: the report is marked incomplete",
            summary.games,
            range.end - range.start
        );
    }
    out
}

fn played_check(summary: &Summary, range: &std::ops::Range<u64>, complete: bool) -> Check {
    let planned = range.end.saturating_sub(range.start);
    Check {
        name: report::sim::report::COMPLETE_CHECK.into(),
        passed: complete && summary.games == planned,
        measured: format!("{} of {planned} games{}", summary.games, if complete { "" } else { " (interrupted)" }),
        expected: format!("{planned} games"),
    }
}

fn render_summary(
    scenario: &Scenario,
    seed: u64,
    range: &std::ops::Range<u64>,
    summary: &Summary,
    checks: &[Check],
    replay: &dyn Fn(u64) -> String,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "bench sim {}  seed {seed}  games {}..{}  ({} presses)",
        scenario.name, range.start, range.end, summary.presses
    );
    let results: Vec<String> = summary.results.iter().map(|(class, count)| format!("{class} {count}")).collect();
    let _ = writeln!(out, "  results on the device: {}", results.join(" · "));
    let _ = writeln!(
        out,
        "  outcomes: 1-0 {} · 0-1 {} · draw {}",
        summary.outcomes[0], summary.outcomes[1], summary.outcomes[2]
    );
    let _ = writeln!(out, "  device agrees with the ideal clock in {} of {} games", summary.agreeing, summary.games);
    let _ = writeln!(out, "  largest device-ideal time error: {} us", summary.max_time_error_us);
    let searches = summary.mate_searches;
    if let Some(sentence) = report::sim::summary::mate_searches_sentence(searches.searched, searches.gave_up) {
        let _ = writeln!(out, "  {sentence}");
    }
    let width = checks.iter().map(|check| check.name.chars().count()).max().unwrap_or(0);
    for check in checks {
        let _ = writeln!(
            out,
            "  {}  {:<width$}  {}  (expected {})",
            if check.passed { "PASS" } else { "FAIL" },
            check.name,
            check.measured,
            check.expected
        );
    }
    for failure in &summary.failures {
        let _ = writeln!(out, "  failed game {}: {}", failure.game, failure.reasons.join("; "));
        let _ = writeln!(out, "    replay: {}", replay(failure.game));
    }
    let verdict = if checks.iter().all(|check| check.passed) { "PASS" } else { "FAIL" };
    let _ = writeln!(out, "verdict: {verdict}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_word_is_quoted_only_when_a_shell_needs_it() {
        assert_eq!(shell_word("both-flags"), "both-flags");
        assert_eq!(shell_word("scenarios/x_1.toml"), "scenarios/x_1.toml");
        assert_eq!(shell_word("my scenario.toml"), "'my scenario.toml'");
        assert_eq!(shell_word("a'b<c>&\"d"), r#"'a'\''b<c>&"d'"#);
        assert_eq!(shell_word(""), "''");
    }
}
