//! `bench hil`: seeded games of a scenario played on a board running clock
//! firmware, compared with the clock model, with the firmware's time base
//! measured.
//!
//! Like `bench sim`, it applies the default gate to the report it has just
//! written, read back as `bench gate` reads it, so its exit code is the
//! gate's: 0 the report passed (every game played to its end and matched
//! the model, the accounting drift within tolerance, no rule mismatch, p99
//! press latency within 5 ms); 1 it failed (a mismatch, a drift beyond
//! tolerance, a latency beyond the gate), or the firmware refused a
//! command; 2 a usage or input error (nothing ran); 3 the bench could not
//! do its work (QEMU missing or dead, the firmware image missing, the
//! firmware silent, Ctrl-C: the report written so far is marked incomplete,
//! and the gate refuses it) or could not read its report back.
//!
//! Besides its arguments, progress (`progress.rs`) and the console, this
//! command joins what the crates below decide:
//! - a farm's result (`Played::from_farm`): the boards' runs merged in game
//!   order, and the drift `bench_hil::session::farm::deciding_drift` picks;
//! - `--shard I/N|auto`: the games g with g mod N = I − 1, those board I of
//!   a farm of N plays, so `bench report merge` over the shards writes that
//!   farm's report;
//! - a scenario the firmware cannot run (`bench_hil::needs`): its folder
//!   gets `skipped.md` (`bench_report::suite::write_skipped`) and no report;
//! - `--suite release`: each scenario of `scenarios/release/` to its own
//!   folder, then the suite's verdict (`bench_report::suite`), written as
//!   `suite.md` and `junit.xml` in the suite's folder. What the suite must
//!   reach is tested from the scenario files: every transition and kind of
//!   control in `sim/tests/release_suite.rs`, a game after each way a game
//!   ends and presses at the edges in `hil/tests/release_suite.rs`.
//!
//! It takes the host's probes as a `ProbeBackend` ([`Cmd::run_with`]; `bench`
//! passes `RealProbes`), so its tests run `bench hil --board stm32` end to
//! end on fake probes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, Context};
use bench_contract::{Capabilities, Hello};
use bench_hil::backend::gdb::GdbServerConfig;
use bench_hil::backend::probe::ProbeBackend;
use bench_hil::backend::probe::{self, ProbeInfo};
use bench_hil::backend::qemu::{LockstepEngine, QemuConfig};
use bench_hil::board::{Backend, BoardProfile};
use bench_hil::image::Purpose;
use bench_hil::judge::drift::{self, Fit, FitError};
use bench_hil::needs::Unsupported;
use bench_hil::schedule::{GameSlice, Games};
use bench_hil::session::board::{self, GameProgress};
use bench_hil::session::farm::{self, BoardOutcome, FarmConfig};
use bench_hil::session::rtt::ControlBlockLocation;
use bench_hil::session::{AckCheck, GameRun, RunError, RunOptions};
use bench_sim::game::Script;
use bench_sim::replay::Replay;
use bench_sim::scenario::Scenario;

use super::game_runs::{default_out_dir, progress_bar, RunOrigin};
use super::output_file::{Neighbours, OutputFile};
use super::run_args::RunArgs;
use super::shard::{self, ShardArg};
use crate::catalog;
use crate::exit::{Exit, Failure, Result};
use bench_report::format::markdown::signed;
use bench_report::gate;
use bench_report::hil::{self as hil_report, BoardRunInput, HilReportInput, HilRunFacts};
use bench_report::replays::ReplayText;
use bench_report::{sha256_hex, suite};

mod observe;
mod parallel_suite;
mod progress;
mod shrink;

use parallel_suite::Console;

/// `--drift-tolerance-ppm` unless given.
const DEFAULT_DRIFT_TOLERANCE_PPM: f64 = 5.0;
/// How long the firmware may take to set up RTT after a reset.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(5);

/// A set of short scenarios played one after another, each to its own
/// report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Suite {
    /// Short games that exercise every kind of time control the clock core
    /// knows: Fischer with contact bounce, delay, a stage switch, flags,
    /// byo-yomi, Canadian (`scenarios/release/`).
    Release,
}

/// How the emulated board stops in lockstep (`hil/LOCKSTEP.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Lockstep {
    /// bench's QEMU plugin holds the core at each stop: the firmware sees
    /// nothing of it, and guest time is the instructions executed (a
    /// firmware that sleeps in WFI or WFE ends the run).
    Plugin,
    /// QEMU's gdbstub: a watchpoint, a breakpoint and single steps. Each
    /// stop moves guest time on to the next timer deadline; slower. For a
    /// firmware that sleeps.
    Gdbstub,
}

impl Suite {
    /// The suite's scenario files, in order.
    fn files(self) -> anyhow::Result<Vec<PathBuf>> {
        let dir = catalog::suite_dir("release");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .with_context(|| format!("reading the release suite's scenarios in {}", dir.display()))?
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|extension| extension == "toml"))
            .collect();
        files.sort();
        if files.is_empty() {
            anyhow::bail!("no scenario files in {}", dir.display());
        }
        Ok(files)
    }
}

#[derive(Clone, Debug, clap::Args)]
#[command(
    mut_arg("seed", |arg| arg.help(
        "The seed [default: the scenario's `seed`]; the same seed gives the same think times as `bench sim`",
    )),
    mut_arg("games", |arg| arg.help(
        "Games to play (games 0..N of the seed) [default: 1; in a suite, each scenario's own `games`]",
    )),
    mut_arg("out", |arg| arg.help("Report directory [default: reports/hil-<scenario>-<seed>]")),
    mut_arg("force", |arg| arg.help(
        "Replace the report in the report folder even when it is another run's (another scenario, seed, \
         --games, firmware path or option). Without it such a folder is refused (exit 2); a rerun of the \
         same command (after rebuilding the firmware) replaces its own report",
    )),
    mut_arg("max_moves", |arg| arg.help(
        "At most this many moves per player, 1 to 10 000 (overrides the scenario's bound)",
    )),
)]
pub struct Cmd {
    /// The board to run on: a board profile's name (`bench boards` lists
    /// them, hil/boards/ or $BENCH_BOARDS holds them). `qemu` needs no
    /// hardware; a `probe` board is reached through a debug probe.
    #[arg(long, value_name = "NAME", default_value = "qemu")]
    board: String,
    /// A scenario name (see `bench scenarios`) or a path to a scenario file
    /// [default: the release suite, `--suite release`].
    #[arg(long, short, value_name = "NAME|PATH")]
    scenario: Option<String>,
    /// Play the game of a replay file (`bench sim --shrink` writes them,
    /// scenarios/README.md "Replay files"): its moves and arbiter acts, on
    /// its scenario, seed and game; the device's faults in it are the
    /// simulator's and are left out, the firmware under test being the
    /// device [default report folder: reports/hil-replay-<scenario>-<seed>].
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "scenario", "suite", "seed", "games", "max_moves", "shard", "observe",
    ])]
    replay: Option<PathBuf>,
    #[command(flatten)]
    run: RunArgs,
    /// Play a suite of scenarios, each to its own report folder in --out
    /// [default: reports/hil-suite-release]; the exit code is the worst of
    /// them. `release` exercises every kind of time control, and each of
    /// its scenarios fails a run that never went through the rules it is
    /// in the suite for. The default when no --scenario is given.
    #[arg(long, value_enum, value_name = "SUITE", conflicts_with = "scenario")]
    suite: Option<Suite>,
    /// Play only shard I of N of the games (1-based), e.g. `--shard 2/8`:
    /// game g when g mod N = I - 1, the games board I of a farm of N boards
    /// plays, so `bench report merge` over the shards writes that farm's
    /// report. With --probe named several times, the shard's games are
    /// spread over its boards in turn. `auto` reads I and N from a
    /// scheduler's environment: a Slurm job array (SLURM_ARRAY_TASK_ID,
    /// _MIN, _COUNT), a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, and
    /// BENCH_SHARD_COUNT set in the Job spec), GitLab CI parallel:
    /// (CI_NODE_INDEX, CI_NODE_TOTAL), else BENCH_SHARD=I/N; exactly one of
    /// them (exit 2 otherwise). With --scenario only.
    #[arg(long = "shard", id = "shard", value_name = "I/N|auto", value_parser = shard::parse, conflicts_with_all = ["suite", "observe"])]
    shard_arg: Option<ShardArg>,
    /// The slice `--shard` names, `auto` resolved.
    #[arg(skip)]
    shard: Option<(u64, u64)>,
    /// The firmware image [default: the reference image from
    /// `scripts/build-firmware`, normal.elf].
    #[arg(long, value_name = "ELF")]
    firmware: Option<PathBuf>,
    /// Largest accounting drift that passes, ppm: the run fails when the
    /// whole confidence interval lies beyond it.
    #[arg(long, value_name = "PPM", default_value_t = DEFAULT_DRIFT_TOLERANCE_PPM)]
    drift_tolerance_ppm: f64,
    /// Seconds without a new record (or an Ack) before the firmware counts
    /// as silent (exit 3). On QEMU in lockstep (the default) seconds of
    /// guest time, so the verdict does not depend on the host's load; on a
    /// board, and on QEMU with `--icount none`, seconds of host time.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    silence_timeout: f64,
    /// QEMU's `-icount` option for the emulated board (`none`: real time,
    /// which loses ticks on a loaded host).
    #[arg(long, value_name = "MODE", default_value = bench_hil::backend::qemu::DEFAULT_ICOUNT)]
    icount: String,
    /// How the emulated board stops in lockstep.
    #[arg(long, value_enum, value_name = "ENGINE", default_value_t = Lockstep::Plugin)]
    lockstep: Lockstep,
    /// Stop the emulated board at every one of its ticks as well: a check
    /// that the plugin's stops change nothing (the reports are the same).
    #[arg(long, hide = true)]
    lockstep_every_tick: bool,
    /// Press every button cleanly: no contact bounce (by default a share
    /// of presses bounce inside the firmware's debounce window: QEMU times
    /// the edges on guest time, a real board by host sleeps between writes).
    #[arg(long)]
    no_bounce: bool,
    /// Print the board's jumper list (drive pin -> button pin) and exit.
    #[arg(long)]
    wiring: bool,
    /// Also write every record the firmware sent, decoded, to FILE as JSON
    /// Lines: one object a line, `{"game": G, "record": {...}}`, in the
    /// firmware's order, for reading what the firmware did. A regular file
    /// is replaced whole; a FIFO or a character device (`>(gzip > r.gz)`,
    /// /dev/stdout) is written into, never replaced. With --scenario only.
    #[arg(long, value_name = "FILE")]
    records: Option<PathBuf>,
    /// The debug probe, VID:PID[:SERIAL] in hex; with one probe attached
    /// it is used without this. Repeat it for a board farm: game g is
    /// played on the (g mod N)-th probe named, all boards at once; a board
    /// that fails stops only its own games (exit 3).
    // Help text, not rustdoc: `[:SERIAL]` is optional syntax.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, value_name = "VID:PID[:SERIAL]")]
    probe: Vec<String>,
    /// Reach the board through a GDB server at HOST:PORT instead of
    /// probe-rs: OpenOCD (`openocd -f board/st_nucleo_f4.cfg`, port 3333),
    /// SEGGER's J-Link GDB server (2331), pyOCD (3333), a Black Magic Probe,
    /// or QEMU's gdbstub. bench flashes the image with the standard flash
    /// packets and checks it, resets with `monitor reset halt`, presses
    /// through the board profile's GPIO registers, and reads while the core
    /// runs where the server offers non-stop mode; otherwise it halts the
    /// core briefly for each read (all-stop: no oscillator drift).
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["probe", "observe"])]
    gdb: Option<String>,
    /// With --gdb: the server has loaded the image and holds the core at
    /// its reset (QEMU started with -kernel and -S); bench neither flashes
    /// nor resets.
    #[arg(long, requires = "gdb")]
    no_flash: bool,
    /// The probe-rs chip name [default: the board profile's].
    #[arg(long)]
    chip: Option<String>,
    /// SWD clock in kHz [default: the probe's].
    #[arg(long, value_name = "KHZ")]
    speed: Option<u32>,
    /// Hold the chip in reset while attaching.
    #[arg(long)]
    connect_under_reset: bool,
    /// Test a firmware with no contract code: read its clock's state from
    /// RAM where MAP.toml says (ELF symbols, offsets, types, units:
    /// `hil/CONTRACT.md` §13, example `firmware/observed.toml`), press its
    /// buttons, and compare what the readings show with the model, within
    /// one tick and one poll interval. One game per boot, on --board qemu;
    /// the scenario's control must be the map's. [default firmware:
    /// observed.elf, the reference clock built without contract code]
    #[arg(long, value_name = "MAP.toml", conflicts_with = "suite")]
    observe: Option<PathBuf>,
    /// A rule of the clock model (`byo-yomi.period-lost`, …: the keys of
    /// `scenarios/README.md`) that the release may leave untested on this
    /// firmware. In a suite, a rule that only skipped scenarios exercise is
    /// NOT TESTED, listed first, and fails the suite unless waived here;
    /// comma-separated or repeated.
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    waive: Vec<String>,
    /// In a suite, stop at the first scenario that fails: the rest are not
    /// played (their folders say so, and their rules are NOT TESTED). A
    /// quick verdict on a build expected to fail.
    #[arg(long, conflicts_with = "scenario")]
    fail_fast: bool,
    /// Emulators at once for a suite: its scenarios are spread over N QEMU
    /// instances, and their reports and the suite's are the same whatever
    /// N (in lockstep a run does not depend on the host). Each scenario's
    /// lines are shown when it is over, in the suite's order. With
    /// --shrink: the candidates of each step play on N emulators, and the
    /// shrunk case is the same whatever N. On the emulated board only,
    /// without --fail-fast.
    #[arg(long, short, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: u16,
    /// Reduce the run's first failing game to the fewest presses and
    /// arbiter commands that still fail with the same first mismatch (on
    /// --board qemu in lockstep, where every run of the same input is the
    /// same), write it as a replay file in the report folder, and play it
    /// once more into `shrunk-game-G/` for its report.
    #[arg(long, conflicts_with_all = ["suite", "observe", "shard"])]
    shrink: bool,
    /// With --shrink: the most emulator runs shrinking may make. When they
    /// run out the case still fails but may not be minimal, and says so.
    #[arg(long, value_name = "RUNS", requires = "shrink", default_value_t = shrink::BUDGET_DEFAULT,
          value_parser = clap::value_parser!(u32).range(1..))]
    shrink_budget: u32,
    /// Where a scenario played beside others writes its console lines.
    #[arg(skip)]
    console: Option<Arc<Mutex<Console>>>,
    /// No progress bar of its own: a shrinking step's run.
    #[arg(skip)]
    quiet: bool,
}

/// Where `scripts/build-firmware` puts its images: `$CARGO_TARGET_DIR/firmware`
/// if set, and `${BENCH_CACHE_DIR:-$HOME/.cache/bench}/target/firmware`.
pub fn firmware_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR").filter(|dir| !dir.is_empty()) {
        dirs.push(PathBuf::from(target).join("firmware"));
    }
    let cache = std::env::var_os("BENCH_CACHE_DIR")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/bench")));
    if let Some(cache) = cache {
        dirs.push(cache.join("target").join("firmware"));
    }
    dirs
}

/// What the games produced, however far they got.
struct Played {
    description: String,
    hello: Option<Hello>,
    capabilities: Option<Capabilities>,
    /// The scenario needs what the firmware leaves out: nothing was played.
    skipped: Option<Unsupported>,
    runs: Vec<GameRun>,
    drift: std::result::Result<Fit, FitError>,
    drift_samples: Vec<drift::Sample>,
    /// What stopped the run before or between games.
    error: Option<String>,
    boards: Vec<BoardRunInput>,
    /// The Acks of refused lines, right after boot (every board's).
    acks: Option<AckCheck>,
    /// `--observe`: how the firmware was read.
    observed: Option<hil_report::ObservedInfo>,
}

impl Played {
    fn failed(description: String, error: impl std::fmt::Display) -> Played {
        Played {
            boards: vec![BoardRunInput {
                probe: None,
                description: description.clone(),
                games: Vec::new(),
                error: Some(error.to_string()),
                accounting_drift_ppm: None,
                oscillator: None,
            }],
            description,
            hello: None,
            capabilities: None,
            skipped: None,
            runs: Vec::new(),
            drift: Err(FitError::TooFew { used: 0 }),
            drift_samples: Vec::new(),
            error: Some(error.to_string()),
            acks: None,
            observed: None,
        }
    }

    /// A farm's outcome: the runs merged in game order, and the accounting
    /// drift that stands for the farm's ([`farm::deciding_drift`]).
    fn from_farm(mut outcomes: Vec<BoardOutcome>, tolerance_ppm: f64) -> Played {
        let runs = farm::merge(&mut outcomes);
        let (drift, drift_samples) = farm::deciding_drift(&mut outcomes, tolerance_ppm);
        let errors: Vec<String> = outcomes.iter().filter_map(|outcome| outcome.error.clone()).collect();
        let description = outcomes.iter().map(|outcome| outcome.description.clone()).collect::<Vec<_>>().join("; ");
        let boards = outcomes
            .iter()
            .map(|outcome| BoardRunInput {
                probe: Some(outcome.probe.selector().to_string()),
                description: outcome.description.clone(),
                games: outcome.games.clone(),
                error: outcome.error.clone(),
                accounting_drift_ppm: outcome.drift.as_ref().ok().map(|fit| fit.drift_ppm),
                oscillator: outcome.oscillator.clone(),
            })
            .collect();
        let hello = outcomes.iter().find_map(|outcome| outcome.hello);
        let capabilities = outcomes.iter().find_map(|outcome| outcome.capabilities);
        let skipped = outcomes.iter().find_map(|outcome| outcome.skipped.clone());
        Played {
            description,
            hello,
            capabilities,
            skipped,
            runs,
            drift,
            drift_samples,
            error: (!errors.is_empty()).then(|| errors.join("; ")),
            boards,
            acks: AckCheck::joined(outcomes.iter().filter_map(|outcome| outcome.acks.as_ref())),
            observed: None,
        }
    }
}

/// The boards on debug probes, chosen before anything runs.
struct ProbeBoards {
    profile: BoardProfile,
    options: probe::ProbeOptions,
    probes: Vec<ProbeInfo>,
}

impl Cmd {
    /// `bench hil` on this host: boards on debug probes through probe-rs.
    pub fn run(self) -> Result {
        self.run_with(&probe::RealProbes)
    }

    /// `bench hil` with `probes` as the host's debug probes (used for
    /// `--board stm32`; the emulator needs none).
    pub fn run_with<B: ProbeBackend>(mut self, probes: &B) -> Result {
        self.shard = match self.shard_arg {
            None => None,
            Some(ShardArg::Given(index, count)) => Some((index, count)),
            Some(ShardArg::Auto) => Some(shard::from_env(|name| std::env::var(name).ok()).map_err(Failure::usage)?),
        };
        self.check_probe_options()?;
        self.check_waivers()?;
        if self.wiring && self.suite.is_none() {
            let profile = self.profile()?;
            super::print(&profile.wiring_text())?;
            return Ok(Exit::Pass);
        }
        let one_scenario = self.scenario.is_some() || self.replay.is_some();
        if !one_scenario && self.observe.is_some() {
            return Err(Failure::usage(anyhow!(
                "--observe plays one scenario: give --scenario, one whose control is the map's \
                 (`--scenario scenarios/observed-flag.toml` for firmware/observed.toml)"
            )));
        }
        if self.shrink {
            self.check_shrink(one_scenario)?;
        }
        if !one_scenario {
            if self.shard.is_some() {
                return Err(Failure::usage(anyhow!(
                    "--shard splits the games of one scenario, and the release suite's scenarios play one or two \
                     games each: give --scenario NAME with --shard, or play the suite whole on each board \
                     (nothing was run)"
                )));
            }
            if let Some(records) = &self.records {
                // Each scenario would replace the one before's records.
                return Err(Failure::usage(anyhow!(
                    "--records {} takes the records of one scenario, and the release suite plays several, each \
                     to its own report: give --scenario NAME with --records (nothing was run)",
                    records.display()
                )));
            }
            let suite = self.suite.unwrap_or(Suite::Release);
            self.check_jobs()?;
            return self.run_suite(suite, probes);
        }
        if self.jobs > 1 && self.shrink {
            self.check_jobs()?;
        } else if self.jobs > 1 {
            return Err(Failure::usage(anyhow!(
                "--jobs spreads a suite's scenarios, or a shrink's runs, over several emulators, and --scenario \
                 plays one: drop --jobs, drop --scenario to play the release suite, or add --shrink (nothing was run)"
            )));
        }
        match self.run_scenario(probes)? {
            Ran::Judged(exit) => Ok(exit),
            Ran::Skipped(why) => {
                super::print(&format!("SKIPPED: {why}; nothing was played, so nothing passed (exit 1)\n"))?;
                Ok(Exit::GateFailed)
            }
        }
    }

    /// `--shrink` needs one scenario's games on the emulated board in
    /// lockstep: elsewhere two runs of the same input can differ, and a
    /// step would not say what it seems to.
    fn check_shrink(&self, one_scenario: bool) -> Result<()> {
        let why = if !one_scenario {
            "--shrink reduces a failing game of one scenario: give --scenario NAME or --replay FILE"
        } else if !self.emulated()? || self.gdb.is_some() {
            "--shrink runs the game again and again, which only the emulated board does the same every time: \
             give --board qemu"
        } else if self.icount == "none" {
            "--shrink needs the emulated board in lockstep, so that every run of the same input is the same: \
             drop --icount none"
        } else {
            return Ok(());
        };
        Err(Failure::usage(anyhow!("{why} (nothing was run)")))
    }

    /// `--games`, or one game.
    fn game_count(&self) -> u64 {
        self.run.games.unwrap_or(1)
    }

    /// The games of this run: all of `--games`, or the `--shard`'s share
    /// of them, which must not be empty.
    fn games_to_play<'s>(&self, scenario: &'s Scenario, seed: u64) -> Result<Games<'s>> {
        let all = Games::all(scenario, seed, self.game_count());
        let Some((index, count)) = self.shard else { return Ok(all) };
        let slice = all.slice.part(index - 1, count);
        if slice.is_empty() {
            // A gate on a shard of no games would pass having checked nothing.
            let games = self.game_count();
            return Err(Failure::usage(anyhow!(
                "shard {index}/{count} of {games} games has no game: split {games} games into at most {games} shards"
            )));
        }
        Ok(Games { slice, ..all })
    }

    /// One scenario (`--scenario`): played and judged, or skipped when the
    /// firmware announces it cannot run the scenario's control.
    fn run_scenario<B: ProbeBackend>(self, probes: &B) -> Result<Ran> {
        let replay = match &self.replay {
            Some(path) => Some(Replay::load(path).map_err(|error| Failure::usage(anyhow!("{error}")))?),
            None => None,
        };
        let (mut scenario, file) = match (&replay, &self.replay) {
            (Some(replay), Some(path)) => (replay.played_scenario(), path.clone()),
            _ => catalog::find(&self.scenario.clone().unwrap_or_default()).map_err(Failure::usage)?,
        };
        if let Some(max_moves) = self.run.max_moves {
            scenario.board.max_moves = max_moves;
        }
        self.check_numbers()?;
        let seed = replay.as_ref().map_or(self.run.seed.unwrap_or(scenario.seed), |replay| replay.seed);
        let prefix = if replay.is_some() { "hil-replay-" } else { "hil-" };
        let out_dir = self.run.out.clone().unwrap_or_else(|| default_out_dir(prefix, &scenario, seed, self.shard));
        let games = match &replay {
            Some(replay) => Games {
                scenario: &scenario,
                seed,
                script: Some(&replay.script),
                slice: GameSlice { first: replay.game, step: 1, end: replay.game.saturating_add(1) },
            },
            None => self.games_to_play(&scenario, seed)?,
        };
        // The first game's schedule now, so a scenario no board can play (a
        // postal game) is refused before anything starts; the others are
        // made as they are played, however many games are asked for.
        games.schedule(games.slice.first).map_err(Failure::usage)?;
        let records = self.prepare_records(&out_dir, &file)?;
        let elf = self.firmware_image()?;
        let observing = match &self.observe {
            Some(map) => Some(self.prepare_observe(map, &elf, &games)?),
            None => {
                self.check_firmware(&elf)?;
                None
            }
        };
        // Before the probes are opened or the emulator started: a folder
        // that cannot take the report would lose the whole run, and one
        // that holds another run's report would lose that run.
        super::refuse_to_replace_another_run(&out_dir, &self.reproduce_command(seed), self.run.force)?;
        super::check_out_dir(&out_dir)?;
        let boards = self.select_probes(probes)?;
        let elf_bytes = std::fs::read(&elf).with_context(|| format!("reading the firmware image {}", elf.display()))?;
        let scenario_bytes = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
        super::prepare_out_dir(&out_dir)?;
        // What is about to play, before the progress bar: the summary with
        // the same line comes only when the run is over.
        let which = match self.shard {
            _ if replay.is_some() => format!("game {} of {}", games.slice.first, file.display()),
            Some((index, count)) => {
                format!("games {} of 0..{} (shard {index}/{count})", games.slice.describe(0), games.count())
            }
            None => format!("games 0..{}", games.count()),
        };
        self.note(&bench_report::format::visible::visible(&format!(
            "bench hil {}  seed {seed}  {which}  on {}, firmware {}",
            scenario.name,
            self.board.as_str(),
            elf.display()
        )));

        // Ctrl-C, SIGTERM and SIGHUP (ctrlc's `termination` feature): a
        // cancelled CI job or a closed terminal ends the run incomplete, and
        // the emulator goes with it (the target kills it on drop).
        let stop = super::stop_on_interrupt("hil");
        let options = RunOptions {
            silence_timeout: Duration::from_secs_f64(self.silence_timeout),
            bounce: !self.no_bounce,
            stop: Some(Arc::clone(&stop)),
            ..RunOptions::default()
        };
        let started = std::time::Instant::now();
        let shrink_options = options.clone();
        let played = match (&observing, &boards) {
            (Some(observing), _) => self.play_observed(&elf, &games, observing, Arc::clone(&stop)),
            (None, Some(boards)) => self.play_on_probes(probes, boards, &elf, &games, options),
            (None, None) => self.play(&elf, &games, options),
        };
        let wall = started.elapsed();
        if let Some(why) = played.skipped {
            suite::write_skipped(&out_dir, &scenario.name, &why).map_err(Failure::infrastructure)?;
            return Ok(Ran::Skipped(why));
        }
        let scenario_toml = match &replay {
            Some(replay) => replay.scenario_toml.clone(),
            None => String::from_utf8_lossy(&scenario_bytes).into_owned(),
        };
        let script_of = |game| match &replay {
            Some(replay) => replay.script.without_faults(),
            None => bench_hil::schedule::script_of(&scenario, seed, game),
        };
        let subject = Subject {
            scenario: &scenario,
            scenario_file: &file,
            scenario_sha256: sha256_hex(&scenario_bytes),
            firmware_file: &elf,
            firmware_sha256: sha256_hex(&elf_bytes),
            seed,
            games_requested: games.slice.len(),
            replays: failure_replays(&scenario, &scenario_toml, seed, &played.runs, &script_of),
        };
        let ran = self.report_and_judge(&out_dir, &subject, &played, wall, records)?;
        let failing = played.runs.iter().find(|run| shrink::first_cause(run).is_some());
        match (self.shrink, failing) {
            (true, Some(run)) => {
                let script = script_of(run.schedule.game);
                let failing = shrink::Failing {
                    scenario: &scenario,
                    scenario_toml,
                    seed,
                    elf: &elf,
                    options: shrink_options,
                    run,
                    script,
                    out_dir: &out_dir,
                };
                self.shrink_failure(failing, probes)
            }
            (true, None) => {
                super::print("--shrink: no game failed with a mismatch: nothing to shrink\n")?;
                Ok(ran)
            }
            (false, _) => Ok(ran),
        }
    }

    /// `--records FILE`, checked (and a FIFO or device opened) before
    /// anything runs: a file it cannot write, or one that is the report's
    /// or an input, would lose or destroy something at the run's end.
    fn prepare_records(&self, out_dir: &Path, scenario_file: &Path) -> Result<Option<OutputFile>> {
        let Some(path) = &self.records else { return Ok(None) };
        let mut inputs = vec![("the scenario file", scenario_file)];
        if let Some(elf) = &self.firmware {
            inputs.push(("the firmware image", elf));
        }
        if let Some(map) = &self.observe {
            inputs.push(("the map (--observe)", map));
        }
        let report_files = super::report_folder_names();
        let neighbours = Neighbours { report_dir: out_dir, report_files: &report_files, inputs: &inputs };
        OutputFile::prepare("--records", path, &neighbours).map(Some)
    }

    /// `--waive`'s rules are rules of the model, before anything runs.
    fn check_waivers(&self) -> Result<()> {
        match self.waive.iter().find(|rule| chessclock::Transition::from_key(rule).is_none()) {
            Some(unknown) => {
                let keys: Vec<&str> = chessclock::Transition::ALL.iter().map(|rule| rule.key()).collect();
                Err(Failure::usage(anyhow!(
                    "--waive `{unknown}` is no rule of the clock model; the rules are: {}",
                    keys.join(", ")
                )))
            }
            None => Ok(()),
        }
    }

    /// The numeric options, before anything runs.
    fn check_numbers(&self) -> Result<()> {
        if self.game_count() == 0 {
            return Err(Failure::usage(anyhow!("--games must be at least 1")));
        }
        if !(self.drift_tolerance_ppm.is_finite() && self.drift_tolerance_ppm >= 0.0) {
            return Err(Failure::usage(anyhow!("--drift-tolerance-ppm must be a number of ppm, 0 or more")));
        }
        if !(self.silence_timeout.is_finite() && self.silence_timeout > 0.0 && self.silence_timeout < 86_400.0) {
            return Err(Failure::usage(anyhow!("--silence-timeout must be a positive number of seconds")));
        }
        check_icount(&self.icount).map_err(|why| Failure::usage(anyhow!("--icount `{}`: {why}", self.icount)))
    }

    /// Writes the report of what was `played` and the run's facts into
    /// `out_dir`, prints them with the default gate's verdict, and turns
    /// that verdict into the exit.
    fn report_and_judge(
        &self,
        out_dir: &Path,
        subject: &Subject<'_>,
        played: &Played,
        wall: Duration,
        records: Option<OutputFile>,
    ) -> Result<Ran> {
        let seed = subject.seed;
        let input = HilReportInput {
            board: self.board.as_str(),
            board_description: played.description.clone(),
            firmware_file: subject.firmware_file,
            firmware_sha256: subject.firmware_sha256.clone(),
            hello: played.hello,
            capabilities: played.capabilities,
            scenario: subject.scenario,
            scenario_file: subject.scenario_file,
            scenario_sha256: subject.scenario_sha256.clone(),
            seed,
            games_requested: subject.games_requested,
            runs: &played.runs,
            drift: played.drift,
            drift_samples: played.drift_samples.clone(),
            drift_tolerance_ppm: self.drift_tolerance_ppm,
            command_line: self.reproduce_command(seed),
            error: played.error.clone(),
            boards: played.boards.clone(),
            acks: played.acks.as_ref(),
            observed: played.observed.clone(),
            replays: &subject.replays,
            shard: self.shard.map(|(index, count)| (index, count, self.game_count())).or_else(|| {
                // A replay plays game G alone: in report terms the last
                // shard of G + 1, so the game keeps its number and the
                // report reads back as a run that could have made it.
                let game = self.replay.as_ref().and(played.runs.first())?.schedule.game.saturating_add(1);
                Some((game, game, game))
            }),
        };
        let written = hil_report::write_hil_report(out_dir, &input);
        let records_written = records.map(|records| records.write(records_text(&played.runs).as_bytes()));
        let guest_us: u64 = played.runs.iter().map(|run| run.guest_us).sum();
        let origin = RunOrigin::ended_now(u64::try_from(wall.as_millis()).unwrap_or(u64::MAX));
        let facts = HilRunFacts {
            schema: hil_report::RUN_SCHEMA.into(),
            bench_version: origin.bench_version,
            git_commit: origin.git_commit,
            host: origin.host,
            started_unix_s: origin.started_unix_s,
            wall_ms: origin.wall_ms,
            guest_ms: guest_us / 1_000,
            speed: (wall.as_secs_f64() > 0.0 && guest_us > 0).then(|| guest_us as f64 / 1e6 / wall.as_secs_f64()),
            board: played.description.clone(),
            stops: hil_report::StopFacts::of(&played.runs),
        };
        let facts_written = hil_report::write_hil_run_facts(out_dir, &facts);

        // The gate reads the report just written, as `bench gate` would: the
        // exit code is the default gate's verdict. An incomplete report is
        // not gated (the gate refuses it).
        let gated = match &written {
            Ok((report, _)) if report.complete => Some(gate::apply_defaults(out_dir)),
            _ => None,
        };
        let mut out = String::new();
        match &written {
            Ok((report, _)) => {
                render_console(&mut out, report, &facts);
                super::push_report_and_gate(&mut out, out_dir, gated.as_ref());
            }
            Err(error) => {
                let _ = writeln!(out, "report NOT written: {error:#}");
            }
        }
        self.print(&out)?;
        written.map_err(Failure::infrastructure)?;
        facts_written.map_err(Failure::infrastructure)?;
        records_written.transpose().map_err(Failure::infrastructure)?;
        exit_of(gated, played)
    }

    /// Each scenario of `suite` in turn, as `bench hil --scenario FILE` with
    /// the same options, reports in `--out`/NAME. Stops at an
    /// infrastructure failure; otherwise exits with the worst verdict. A
    /// scenario the firmware announces it cannot run is skipped with its
    /// reason; a suite with nothing played does not pass.
    fn run_suite<B: ProbeBackend>(self, suite: Suite, probes: &B) -> Result {
        let files = suite.files().map_err(Failure::infrastructure)?;
        let base = self.run.out.clone().unwrap_or_else(|| PathBuf::from("reports").join("hil-suite-release"));
        // The suite's folder is checked as a whole first: a folder that
        // cannot be written is named as given, not as its first scenario's.
        super::check_out_dir(&base)?;
        let runs: Vec<(String, Vec<String>, Cmd)> = files
            .iter()
            .map(|file| {
                let name = file.file_stem().map_or_else(String::new, |stem| stem.to_string_lossy().into_owned());
                let scenario = file.display().to_string();
                let found = catalog::find(&scenario).map_err(Failure::infrastructure)?.0;
                // Each scenario plays its own games (a reset between two is
                // what one of them is for) unless --games says otherwise.
                let games = self.run.games.unwrap_or(found.games);
                let one = Cmd {
                    suite: None,
                    scenario: Some(scenario),
                    run: RunArgs { games: Some(games), out: Some(base.join(&name)), ..self.run.clone() },
                    ..self.clone()
                };
                Ok((name, found.expect.exercises, one))
            })
            .collect::<Result<_>>()?;
        // Every scenario's folder before the first scenario plays: a
        // refusal half-way would leave the suite half replaced.
        for (_, _, one) in &runs {
            one.refuse_to_replace_another_run()?;
        }
        let entries =
            if self.jobs > 1 { self.play_in_parallel(&runs, probes)? } else { self.play_in_turn(runs, &base, probes)? };
        let verdict = suite::verdict(&entries, &self.waive);
        suite::write_suite(&base, &verdict).map_err(Failure::infrastructure)?;
        super::print(&format!("{}reports in {}\n", verdict.console, base.display()))?;
        Ok(if verdict.passed { Exit::Pass } else { Exit::GateFailed })
    }

    /// The suite's scenarios one after another, stopping at the first that
    /// fails with --fail-fast.
    fn play_in_turn<B: ProbeBackend>(
        &self,
        runs: Vec<(String, Vec<String>, Cmd)>,
        base: &Path,
        probes: &B,
    ) -> Result<Vec<suite::Entry>> {
        let mut entries = Vec::new();
        for (name, exercises, one) in runs {
            let stopped =
                self.fail_fast && entries.iter().any(|entry: &suite::Entry| entry.outcome == suite::Outcome::Failed);
            let outcome = match stopped {
                true => {
                    let why = "not played: --fail-fast stopped the suite at its first failing scenario".to_string();
                    suite::write_nothing_played(&base.join(&name), &format!("# NOT PLAYED: `{name}`\n\n{why}.\n"))
                        .map_err(Failure::infrastructure)?;
                    suite::Outcome::Skipped(why)
                }
                false => match one.run_scenario(probes)? {
                    Ran::Judged(Exit::Pass) => suite::Outcome::Passed,
                    Ran::Judged(_) => suite::Outcome::Failed,
                    Ran::Skipped(why) => suite::Outcome::Skipped(why.to_string()),
                },
            };
            entries.push(suite::Entry { name, outcome, exercises });
        }
        Ok(entries)
    }

    /// The debug-probe options name a board on a probe: a usage error with
    /// QEMU, found before anything else (a firmware image not built yet,
    /// say) is looked at.
    fn check_probe_options(&self) -> Result<()> {
        if self.emulated()?
            && (!self.probe.is_empty() || self.chip.is_some() || self.speed.is_some() || self.connect_under_reset)
        {
            return Err(Failure::usage(anyhow!(
                "--probe, --chip, --speed and --connect-under-reset are for boards on a debug probe \
                 (`--board stm32`, `bench boards` lists them); QEMU needs none"
            )));
        }
        // Before a probe is looked for: a misspelt chip is not a missing board.
        if let Some(chip) = &self.chip {
            probe::check_chip(chip).map_err(|error| Failure::usage(anyhow!("--chip: {error}")))?;
        }
        Ok(())
    }

    /// The image to run, checked against the board profile before the
    /// emulator starts or a probe is opened, on every backend
    /// (`bench_hil::image`): an explicit `--firmware` is the user's to fix
    /// (exit 2), the reference image bench's build (exit 3). A contract
    /// image without the RTT symbol is run, with a note: RAM is scanned.
    fn check_firmware(&self, elf: &Path) -> Result<()> {
        let profile = self.profile()?;
        let bytes = std::fs::read(elf).with_context(|| format!("reading the firmware image {}", elf.display()))?;
        let purpose = if self.observe.is_some() { Purpose::Observed } else { Purpose::Contract };
        match bench_hil::image::check(&profile, elf, &bytes, purpose) {
            Ok(checked) => {
                if let Some(note) = checked.note(elf) {
                    self.note(&note);
                }
                Ok(())
            }
            Err(error) if self.firmware.is_some() => Err(Failure::usage(anyhow!("--firmware {error}"))),
            Err(error) => Err(Failure::infrastructure(anyhow!("{error}; rebuild it with scripts/build-firmware"))),
        }
    }

    /// Boards on probes, chosen before anything runs: the profile and its
    /// chip, the probes (none attached or none matching: exit 3; several
    /// attached without `--probe`, or one named twice: exit 2). `None` for
    /// QEMU, which starts in `play`.
    fn select_probes(&self, backend: &impl ProbeBackend) -> Result<Option<ProbeBoards>> {
        self.check_probe_options()?;
        let profile = self.profile()?;
        if profile.backend == Backend::Qemu || self.gdb.is_some() {
            return Ok(None);
        }
        if self.chip.is_none() {
            probe::check_chip(&profile.chip).map_err(|error| {
                Failure::usage(anyhow!("board `{}`'s profile: {error}; fix its `chip`", profile.name))
            })?;
        }
        let selectors = self
            .probe
            .iter()
            .map(|text| probe::Selector::parse(text))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|error| Failure::usage(anyhow!(error)))?;
        // Before the probes are listed: with none attached this was exit 3,
        // though naming one board twice is a usage error whatever is plugged in.
        if let Some(twice) =
            selectors.iter().enumerate().find_map(|(at, one)| selectors[..at].contains(one).then_some(at))
        {
            return Err(Failure::usage(anyhow!(
                "--probe {} is given twice; name each board once (nothing was run)",
                self.probe[twice]
            )));
        }
        let options = probe::ProbeOptions {
            selectors,
            chip: self.chip.clone(),
            speed_khz: self.speed,
            connect_under_reset: self.connect_under_reset,
        };
        let probes = farm::select(backend, &options.selectors, &profile.description).map_err(|error| {
            if error.is_usage() {
                Failure::usage(error)
            } else {
                Failure::infrastructure(error)
            }
        })?;
        Ok(Some(ProbeBoards { profile, options, probes }))
    }

    /// Plays the games on the chosen boards (a farm when there are
    /// several); never fails, says how far each board got.
    fn play_on_probes(
        &self,
        backend: &impl ProbeBackend,
        boards: &ProbeBoards,
        elf: &Path,
        games: &Games<'_>,
        options: RunOptions,
    ) -> Played {
        let rtt = match ControlBlockLocation::from_elf(elf) {
            Ok(location) => location,
            Err(error) => return Played::failed(format!("{} (not started)", self.board.as_str()), error),
        };
        let config = FarmConfig {
            profile: &boards.profile,
            probe_options: &boards.options,
            elf,
            rtt,
            options,
            attach_timeout: ATTACH_TIMEOUT,
        };
        let bars =
            progress::ProbeProgress::new(boards.probes.len(), games.count(), indicatif::ProgressDrawTarget::stderr());
        let played = farm::run(backend, &boards.probes, &config, games, &|board, update| {
            bars.update(board, update);
        });
        bars.finish();
        match played {
            Ok(outcomes) => Played::from_farm(outcomes, self.drift_tolerance_ppm),
            Err(error) => Played::failed(format!("{} (not started)", self.board.as_str()), error),
        }
    }

    fn qemu_config(&self) -> QemuConfig {
        let icount = (self.icount != "none").then(|| self.icount.clone());
        let lockstep_engine = match self.lockstep {
            Lockstep::Plugin => LockstepEngine::Plugin,
            Lockstep::Gdbstub => LockstepEngine::Gdbstub,
        };
        QemuConfig { icount, lockstep_engine, stop_at_every_tick: self.lockstep_every_tick, ..QemuConfig::default() }
    }

    /// The image to run: `--firmware` (an input: missing, a folder or not
    /// a regular file is a usage error), else the reference image
    /// (missing: build it first).
    fn firmware_image(&self) -> Result<PathBuf> {
        if let Some(path) = &self.firmware {
            return match std::fs::metadata(path) {
                Ok(metadata) if metadata.is_file() => Ok(path.clone()),
                Ok(metadata) if metadata.is_dir() => Err(Failure::usage(anyhow!(
                    "--firmware {}: is a folder, not an ELF file: give the image in it (e.g. {})",
                    path.display(),
                    path.join(self.default_image().as_deref().unwrap_or("normal.elf")).display()
                ))),
                Ok(metadata) => Err(Failure::usage(anyhow!(
                    "--firmware {}: is {}, not an ELF file: give the image's file",
                    path.display(),
                    super::output_file::kind_of(&metadata)
                ))),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                    Err(Failure::usage(anyhow!("--firmware {}: no such file", path.display())))
                }
                Err(error) => Err(Failure::usage(anyhow!("--firmware {}: cannot be read ({error})", path.display()))),
            };
        }
        let profile = self.profile()?;
        let (image, build) = match (&self.observe, &profile.firmware) {
            (Some(_), _) => ("observed.elf".to_string(), "scripts/build-firmware observed".to_string()),
            (None, Some(firmware)) => (firmware.image.clone(), firmware.build.clone()),
            (None, None) => {
                return Err(Failure::usage(anyhow!(
                    "bench builds no reference firmware for board `{}` (its profile has no [firmware]): \
                     give your image with --firmware ELF",
                    profile.name
                )))
            }
        };
        let dirs = firmware_dirs();
        if let Some(found) = dirs.iter().map(|dir| dir.join(&image)).find(|path| path.is_file()) {
            return Ok(found);
        }
        let looked: Vec<String> = dirs.iter().map(|dir| dir.join(&image).display().to_string()).collect();
        Err(Failure::infrastructure(anyhow!(
            "the reference firmware image is not built (looked for {}); build it with `{build}`, \
             or pass --firmware ELF",
            if looked.is_empty() {
                "nothing: neither CARGO_TARGET_DIR nor HOME is set".to_string()
            } else {
                looked.join(", ")
            }
        )))
    }

    /// The board profile `--board` names (a usage error when there is none).
    fn profile(&self) -> Result<BoardProfile> {
        bench_hil::board::find(&self.board).map_err(Failure::usage)
    }

    /// Whether `--board` is an emulated one.
    fn emulated(&self) -> Result<bool> {
        Ok(self.profile()?.backend == Backend::Qemu)
    }

    /// The reference image of `--board`, relative to a firmware folder.
    fn default_image(&self) -> Option<String> {
        self.profile().ok()?.firmware.map(|firmware| firmware.image)
    }

    /// [`super::refuse_to_replace_another_run`] for this one scenario's
    /// report folder (a suite checks them all before it plays any).
    fn refuse_to_replace_another_run(&self) -> Result<()> {
        let name = self.scenario.as_deref().unwrap_or_default();
        let (scenario, _) = catalog::find(name).map_err(Failure::usage)?;
        let seed = self.run.seed.unwrap_or(scenario.seed);
        let out_dir = self.run.out.clone().unwrap_or_else(|| default_out_dir("hil-", &scenario, seed, None));
        super::refuse_to_replace_another_run(&out_dir, &self.reproduce_command(seed), self.run.force)
    }

    /// The command that plays the same games again: every option that
    /// changes results, each word quoted for a POSIX shell.
    fn reproduce_command(&self, seed: u64) -> String {
        let mut command = match &self.replay {
            Some(path) => format!(
                "bench hil --board {} --replay {}",
                self.board.as_str(),
                super::shell_word(&path.display().to_string())
            ),
            None => format!(
                "bench hil --board {} --scenario {} --seed {seed} --games {}",
                self.board.as_str(),
                super::shell_word(self.scenario.as_deref().unwrap_or_default()),
                self.game_count()
            ),
        };
        if let Some(firmware) = &self.firmware {
            let _ = write!(command, " --firmware {}", super::shell_word(&firmware.display().to_string()));
        }
        if let Some(map) = &self.observe {
            let _ = write!(command, " --observe {}", super::shell_word(&map.display().to_string()));
        }
        if let Some(max_moves) = self.run.max_moves {
            let _ = write!(command, " --max-moves {max_moves}");
        }
        if self.emulated().unwrap_or(false) && self.icount != bench_hil::backend::qemu::DEFAULT_ICOUNT {
            let _ = write!(command, " --icount {}", super::shell_word(&self.icount));
        }
        if self.emulated().unwrap_or(false) && self.lockstep == Lockstep::Gdbstub {
            command.push_str(" --lockstep gdbstub");
        }
        if self.no_bounce {
            command.push_str(" --no-bounce");
        }
        if self.drift_tolerance_ppm != DEFAULT_DRIFT_TOLERANCE_PPM {
            let _ = write!(command, " --drift-tolerance-ppm {}", self.drift_tolerance_ppm);
        }
        if let Some((index, count)) = self.shard {
            let _ = write!(command, " --shard {index}/{count}");
        }
        command
    }

    /// Starts the emulated board (or reaches the board behind `--gdb`) and
    /// plays the games; never fails, says how far it got.
    fn play(&self, elf: &Path, games: &Games<'_>, options: RunOptions) -> Played {
        let mut bar: Option<indicatif::ProgressBar> = None;
        let (mut done_before, mut presses) = (0u64, 0u64);
        let mut progress = |update: GameProgress<'_>| match update {
            GameProgress::Begins { presses: count } => {
                let bar = bar.get_or_insert_with(|| match (&self.console, self.quiet) {
                    // Beside other scenarios: no bar, the lines come at the end.
                    (Some(_), _) | (_, true) => indicatif::ProgressBar::hidden(),
                    (None, false) => progress_bar(0, "presses", "{msg}"),
                });
                done_before += presses;
                presses = count as u64;
                bar.inc_length(presses);
            }
            GameProgress::Playing(progress) => {
                if let Some(bar) = &bar {
                    bar.set_position(done_before + progress.presses_sent as u64);
                    bar.set_message(format!(
                        "game {}/{}, {}",
                        progress.game + 1,
                        games.count(),
                        guest_text(progress.guest_us, progress.duration_us)
                    ));
                }
            }
        };
        let outcome = match &self.gdb {
            Some(address) => {
                let config = GdbServerConfig { address: address.clone(), flash: !self.no_flash };
                match self.profile() {
                    Ok(profile) => {
                        board::run_on_gdb_server(elf, &profile, &config, games, options, ATTACH_TIMEOUT, &mut progress)
                    }
                    Err(failure) => return Played::failed(self.board.clone(), failure.error),
                }
            }
            None => board::run_on_qemu(elf, self.qemu_config(), games, options, ATTACH_TIMEOUT, &mut progress),
        };
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        let description = outcome.description;
        let session = match outcome.session {
            Ok(session) => session,
            Err(error) => return Played::failed(description, error),
        };
        let error = match session.interrupted {
            true => Some(RunError::Interrupted.to_string()),
            false => session.unscheduled,
        };
        let boards = vec![BoardRunInput {
            probe: None,
            description: description.clone(),
            games: session.runs.iter().map(|run| run.schedule.game).collect(),
            error: None,
            accounting_drift_ppm: session.drift.as_ref().ok().map(|fit| fit.drift_ppm),
            oscillator: session.oscillator,
        }];
        Played {
            description,
            hello: Some(session.hello),
            capabilities: Some(session.capabilities),
            skipped: session.skipped,
            runs: session.runs,
            drift: session.drift,
            drift_samples: session.drift_samples,
            error,
            boards,
            acks: Some(session.acks),
            observed: None,
        }
    }
}

/// The exit of a run whose report was written: the default gate's verdict
/// (`gated`, for a complete report), else the firmware's or the bench's
/// fault.
fn exit_of(gated: Option<anyhow::Result<(bool, String)>>, played: &Played) -> Result<Ran> {
    let firmware_failure = played.runs.iter().any(|run| run.error.as_ref().is_some_and(|e| e.is_firmware_failure()));
    match gated {
        Some(Ok((true, _))) => Ok(Ran::Judged(Exit::Pass)),
        Some(Ok((false, _))) => Ok(Ran::Judged(Exit::GateFailed)),
        Some(Err(error)) => Err(Failure::infrastructure(error)),
        // Incomplete: the firmware's fault (a refused command) fails;
        // the bench's or the board's is an infrastructure failure.
        None if firmware_failure => Ok(Ran::Judged(Exit::GateFailed)),
        None => {
            let why = played
                .error
                .clone()
                .or_else(|| played.runs.iter().find_map(|run| run.error.as_ref().map(ToString::to_string)))
                .unwrap_or_else(|| "records were lost: the report is incomplete".to_string());
            Err(Failure::infrastructure(anyhow!("{why}")))
        }
    }
}

/// What a run plays: the scenario and the firmware image, as read.
struct Subject<'a> {
    scenario: &'a Scenario,
    scenario_file: &'a Path,
    scenario_sha256: String,
    firmware_file: &'a Path,
    firmware_sha256: String,
    seed: u64,
    /// The games asked for: `--games`, or the shard's share of them.
    games_requested: u64,
    /// The failing games' replay files.
    replays: Vec<ReplayText>,
}

/// The replay file of each game of `runs` that failed: the presses and
/// arbiter commands it was played with (`script_of` its game), and its
/// first mismatch.
fn failure_replays(
    scenario: &Scenario,
    scenario_toml: &str,
    seed: u64,
    runs: &[GameRun],
    script_of: &dyn Fn(u64) -> Script,
) -> Vec<ReplayText> {
    let replay_of = |run: &GameRun| {
        let game = run.schedule.game;
        let replay = Replay {
            scenario: scenario.clone(),
            scenario_toml: scenario_toml.to_string(),
            seed,
            game,
            swarm: false,
            disabled: bench_sim::defects::DefectSet::NONE,
            max_moves: scenario.board.max_moves,
            control: bench_sim::replay::control_override(scenario, scenario_toml),
            script: script_of(game),
            cause: shrink::first_mismatch(run)
                .map(ToString::to_string)
                .or_else(|| run.error.as_ref().map(ToString::to_string)),
        };
        ReplayText { game, toml: replay.to_toml() }
    };
    runs.iter().filter(|run| !run.passed()).map(replay_of).collect()
}

/// What became of one scenario.
enum Ran {
    /// Played and gated: the exit code of its gate.
    Judged(Exit),
    /// The firmware cannot run it: nothing was played.
    Skipped(Unsupported),
}

/// `--icount` as QEMU reads it (`none`, or `[shift=]N|auto` with `align`,
/// `sleep`, `rr`, `rrfile`, `rrsnapshot`): a typo is a usage error here, not
/// an emulator that exits at start and an incomplete report.
fn check_icount(mode: &str) -> std::result::Result<(), String> {
    const GRAMMAR: &str = "QEMU's -icount takes [shift=]N|auto,align=on|off,sleep=on|off (or `none` for real time)";
    if mode == "none" {
        return Ok(());
    }
    for (index, item) in mode.split(',').enumerate() {
        let (key, value) = match item.split_once('=') {
            Some((key, value)) => (key, value),
            None if index == 0 => ("shift", item),
            None => return Err(format!("`{item}` is not key=value; {GRAMMAR}")),
        };
        let valid = match key {
            "shift" => value == "auto" || value.parse::<u8>().is_ok_and(|shift| shift <= 10),
            "align" | "sleep" => matches!(value, "on" | "off"),
            "rr" => matches!(value, "off" | "record" | "replay"),
            "rrfile" | "rrsnapshot" => !value.is_empty(),
            _ => return Err(format!("no option `{key}`; {GRAMMAR}")),
        };
        if !valid {
            return Err(format!("`{value}` is not a value of `{key}`; {GRAMMAR}"));
        }
    }
    Ok(())
}

/// Every game's records as JSON Lines, in the firmware's order.
fn records_text(runs: &[GameRun]) -> String {
    let mut text = String::new();
    for run in runs {
        for record in &run.records {
            let line = serde_json::json!({ "game": run.schedule.game, "record": record });
            let _ = writeln!(text, "{line}");
        }
    }
    text
}

/// Guest time against the time the game is scheduled to take. A game goes
/// on past its schedule (a flag still to fall, the last records to come):
/// then it says so, not `guest 88.4 of 87.9 s`.
fn guest_text(guest_us: u64, scheduled_us: u64) -> String {
    let seconds = |us: u64| us as f64 / 1e6;
    if guest_us <= scheduled_us {
        format!("guest {:.1} of {:.1} s", seconds(guest_us), seconds(scheduled_us))
    } else {
        format!(
            "guest {:.1} s, past the schedule's {:.1} s: waiting for the game's end",
            seconds(guest_us),
            seconds(scheduled_us)
        )
    }
}

/// The lines printed at the end of a run.
fn render_console(out: &mut String, report: &hil_report::Report, facts: &HilRunFacts) {
    let _ = writeln!(
        out,
        "bench hil {}  seed {}  on {}  ({})",
        report.scenario.name, report.seed, report.board.kind, report.board.description
    );
    let _ = writeln!(
        out,
        "  firmware {} (sha256 {})",
        report.firmware.file,
        report.firmware.sha256.get(..16).unwrap_or("")
    );
    for game in &report.games_detail {
        render_game(out, game);
    }
    for check in &report.checks {
        let _ = writeln!(
            out,
            "  {}  {}: {} (expected {})",
            if check.passed { "PASS" } else { "FAIL" },
            check.name,
            check.measured,
            check.expected
        );
    }
    if let Some(note) = &report.drift.note {
        let _ = writeln!(out, "  note: {note}");
    }
    render_measurements(out, report);
    if let Some(speed) = facts.speed {
        let _ = writeln!(
            out,
            "  {:.1} s of guest time in {:.1} s: {speed:.1}x real time",
            facts.guest_ms as f64 / 1e3,
            facts.wall_ms as f64 / 1e3
        );
    }
    if let Some(stops) = &facts.stops {
        render_stops(out, stops, facts.guest_ms);
    }
    let _ = writeln!(
        out,
        "verdict: {}{}",
        report.verdict.to_uppercase(),
        if report.complete { "" } else { " (incomplete)" }
    );
}

/// Where the lockstep run's host time went, by kind of stop.
fn render_stops(out: &mut String, stops: &hil_report::StopFacts, guest_ms: u64) {
    let per_guest_s = |count: u64| count as f64 * 1e3 / guest_ms.max(1) as f64;
    let host_each_ms = |host_ms: u64, count: u64| host_ms as f64 / count.max(1) as f64;
    let _ = writeln!(
        out,
        "  lockstep stops: {} record ({:.1} per guest s, {:.2} ms of host time each), {} tick ({:.1} per guest s, \
         {:.2} ms each)",
        stops.record_stops,
        per_guest_s(stops.record_stops),
        host_each_ms(stops.record_host_ms, stops.record_stops),
        stops.tick_stops,
        per_guest_s(stops.tick_stops),
        host_each_ms(stops.tick_host_ms, stops.tick_stops)
    );
}

/// One game's lines: its course, then the first mismatch of each quantity.
fn render_game(out: &mut String, game: &hil_report::GameInfo) {
    let state = match &game.error {
        Some(error) => format!("INCOMPLETE: {error}"),
        None if !game.complete => "INCOMPLETE: records lost".to_string(),
        None => format!("{} mismatches", game.mismatches_total),
    };
    // The game's result is the schedule end's (the arbiter's, as `bench
    // sim` rules the scenario); the firmware's flags are named only when
    // they would have him rule otherwise (a `result` mismatch).
    let result = match (&game.model, &game.firmware) {
        (Some(model), Some(firmware)) if model.result != firmware.result => {
            format!("; on the firmware's flags the arbiter would rule {}, not {}", firmware.result, model.result)
        }
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "  game {}: {} of {} presses registered, {:.1} s guest ({}); {state}{result}",
        game.game,
        game.presses_registered,
        game.presses_scheduled,
        game.guest_us as f64 / 1e6,
        game.schedule_end
    );
    for mismatch in game.first_of_each.iter().take(8) {
        let press = mismatch.press_index.map_or("before the first press".to_string(), |index| format!("press {index}"));
        let _ = writeln!(
            out,
            "    {} at {} ({press}): model {}, firmware {}",
            mismatch.quantity,
            bench_hil::judge::compare::seconds(mismatch.at_us),
            mismatch.model,
            mismatch.firmware
        );
    }
    let shown = game.first_of_each.len().min(8) as u64;
    if game.mismatches_total > shown {
        let _ = writeln!(
            out,
            "    … {} more: the first of each quantity is shown (summary.md, report.json)",
            game.mismatches_total - shown
        );
    }
}

/// The press latencies and the boards' oscillators.
fn render_measurements(out: &mut String, report: &hil_report::Report) {
    if let Some(latency) = &report.latency {
        let _ = writeln!(
            out,
            "  press latency (edge to registered): p50 {} us, p90 {} us, p99 {} us, max {} us",
            latency.p50_us, latency.p90_us, latency.p99_us, latency.max_us
        );
    }
    if let Some(board) = &report.board_latency {
        let _ = writeln!(
            out,
            "  press latency on the board (write to edge stamp, upper bound): p50 {} us, p99 {} us, max {} us; \
             write bracket p50 {} us{}",
            board.latency.p50_us,
            board.latency.p99_us,
            board.latency.max_us,
            board.bracket.p50_us,
            if board.unmatched > 0 { format!("; {} presses unmatched", board.unmatched) } else { String::new() }
        );
    }
    for board in &report.boards {
        let Some(oscillator) = &board.oscillator else { continue };
        let name = board.probe.as_deref().unwrap_or(&board.description);
        match (oscillator.ppm, oscillator.ci_half_ppm, &oscillator.round_trip) {
            (Some(ppm), Some(half), Some(trip)) => {
                let _ = writeln!(
                    out,
                    "  oscillator of {name}: {} ppm ± {half:.2} against host time ({} of {} reads; \
                     probe round trip p50 {} us, p99 {} us)",
                    signed(ppm, 2),
                    oscillator.used,
                    oscillator.samples,
                    trip.p50_us,
                    trip.p99_us
                );
            }
            _ => {
                let why = oscillator.error.as_deref().unwrap_or("no reads");
                let _ = writeln!(out, "  oscillator of {name}: not measured ({why})");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use bench_hil::testing::probes::{stm32_image, FakeProbes};
    use clap::Parser;
    use serde_json::Value;

    use super::*;
    use bench_report::suite::{SKIPPED_MD, SUITE_MD};
    use bench_report::testing::TempDir;
    use bench_report::{self as report};

    /// `bench hil`'s arguments as the CLI parses them.
    #[derive(Debug, clap::Parser)]
    struct HilArgs {
        #[command(flatten)]
        cmd: Cmd,
    }

    /// Short games (a few seconds of board time each) of a fast Fischer control.
    const SCENARIO: &str = r#"
description = "farm end to end"
control = "20+1"
games = 5
seed = 9

[players]
think = { distribution = "uniform", min_ms = 200, max_ms = 900 }

[board]
ends_per_move = 0
max_moves = 3
"#;

    /// The command polls a board every 2 ms of host time, as a real board
    /// needs; fake boards whose time runs 2 ms a call keep the test short
    /// and the press latency within the gate's 5 ms.
    const FAST_US_PER_CALL: u64 = 2_000;

    /// Runs `bench hil --board stm32` on `probes` with the fake firmware's
    /// image, writing to `dir/report`; returns the command's outcome.
    fn run_on_fake_probes(dir: &Path, probes: &FakeProbes, args: &[&str]) -> Result {
        run_on_fake_probes_into(dir, "report", probes, args)
    }

    /// [`run_on_fake_probes`], writing to `dir/out`.
    fn run_on_fake_probes_into(dir: &Path, out: &str, probes: &FakeProbes, args: &[&str]) -> Result {
        let elf = dir.join("clock.elf");
        std::fs::write(&elf, stm32_image()).expect("write the image");
        let scenario = dir.join("farm-e2e.toml");
        std::fs::write(&scenario, SCENARIO).expect("write the scenario");
        let out = dir.join(out);
        let mut all = vec!["hil", "--board", "stm32", "--silence-timeout", "60"];
        all.extend(["--scenario", scenario.to_str().expect("utf-8")]);
        all.extend(["--firmware", elf.to_str().expect("utf-8")]);
        all.extend(["--out", out.to_str().expect("utf-8")]);
        all.extend(args);
        let HilArgs { cmd } = HilArgs::try_parse_from(all).expect("the arguments parse");
        let outcome = cmd.run_with(probes);
        assert_reports_match_their_schemas(dir);
        outcome
    }

    /// Every report.json under `dir` matches its JSON Schema: bench-report
    /// checks the reports its own tests write, these are the commands'.
    fn assert_reports_match_their_schemas(dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for path in entries.map(|entry| entry.expect("an entry").path()) {
            if path.is_dir() {
                assert_reports_match_their_schemas(&path);
            } else if path.file_name().is_some_and(|name| name == report::files::REPORT_JSON) {
                bench_report::schema::assert_valid(&std::fs::read(&path).expect("read report.json"));
            }
        }
    }

    fn written_report(dir: &Path) -> Value {
        let bytes = std::fs::read(dir.join("report/report.json")).expect("report.json written");
        let report: Value = serde_json::from_slice(&bytes).expect("report.json is JSON");
        let errors = bench_report::schema::errors(&report);
        assert!(errors.is_empty(), "report.json does not match its schema:\n  {}", errors.join("\n  "));
        report
    }

    /// The games of `junit.xml`'s games suite: (name, failed).
    fn junit_games(dir: &Path) -> Vec<(String, bool)> {
        let text = std::fs::read_to_string(dir.join("report/junit.xml")).expect("junit.xml written");
        let document = roxmltree::Document::parse(&text).expect("junit.xml is XML");
        document
            .descendants()
            .filter(|node| {
                node.has_tag_name("testcase") && node.attribute("classname").is_some_and(|c| c.ends_with(".games"))
            })
            .map(|case| {
                let failed = case.children().any(|child| child.has_tag_name("failure") || child.has_tag_name("error"));
                (case.attribute("name").unwrap_or_default().to_string(), failed)
            })
            .collect()
    }

    fn games_of(value: &Value) -> Vec<u64> {
        value.as_array().map(|games| games.iter().filter_map(Value::as_u64).collect()).unwrap_or_default()
    }

    /// The whole `bench hil --board stm32` flow above probe-rs, on two fake
    /// probes: selection by `--probe`, one flash per board, the games spread
    /// (game g on the (g mod 2)-th probe named), presses written on the board
    /// that plays the game, RTT records compared with the model, each
    /// board's oscillator drift fitted, the report written and gated: exit 0.
    #[test]
    fn the_reproduce_command_quotes_its_words_and_keeps_every_option_that_changes_results() {
        let parse = |args: &[&str]| {
            let HilArgs { cmd } = HilArgs::try_parse_from([&["hil"], args].concat()).expect("the arguments parse");
            cmd
        };
        let plain = parse(&["--scenario", "blitz-3-2"]).reproduce_command(4);
        assert_eq!(plain, "bench hil --board qemu --scenario blitz-3-2 --seed 4 --games 1");
        let all = parse(&[
            "--scenario",
            "my games/x.toml",
            "--firmware",
            "fw's.elf",
            "--icount",
            "shift=6,sleep=off",
            "--no-bounce",
            "--drift-tolerance-ppm",
            "2.5",
        ])
        .reproduce_command(4);
        assert_eq!(
            all,
            "bench hil --board qemu --scenario 'my games/x.toml' --seed 4 --games 1 --firmware 'fw'\\''s.elf' \
             --icount shift=6,sleep=off --no-bounce --drift-tolerance-ppm 2.5"
        );
    }

    #[test]
    fn icount_modes_qemu_takes_pass_and_typos_are_named() {
        for good in
            [bench_hil::backend::qemu::DEFAULT_ICOUNT, "none", "7", "auto,sleep=off", "shift=0,align=off,rr=off"]
        {
            assert_eq!(check_icount(good), Ok(()), "{good}");
        }
        for (bad, named) in [("bogus,x=1", "bogus"), ("shift=7,x=1", "x"), ("shift=11", "11"), ("7,sleep", "sleep")] {
            let why = check_icount(bad).expect_err(bad);
            assert!(why.contains(&format!("`{named}`")) && why.contains("QEMU's -icount takes"), "{bad}: {why}");
        }
    }

    #[test]
    fn bench_hil_on_a_farm_of_two_fake_probes_passes_and_reports_each_board() {
        let dir = TempDir::new("hil-farm-e2e");
        let mut probes = FakeProbes::new(&["A", "B"]);
        probes.us_per_call = FAST_US_PER_CALL;
        let outcome = run_on_fake_probes(
            dir.path(),
            &probes,
            &["--games", "5", "--probe", "0483:374b:B", "--probe", "0483:374b:A"],
        );
        assert_eq!(outcome.as_ref().map_err(|failure| format!("{:#}", failure.error)), Ok(&Exit::Pass));

        let report = written_report(dir.path());
        assert_eq!((report["complete"].as_bool(), report["verdict"].as_str()), (Some(true), Some("pass")));
        assert_eq!(report["board"]["kind"], "stm32");
        let games: Vec<u64> =
            report["games_detail"].as_array().expect("games").iter().filter_map(|g| g["game"].as_u64()).collect();
        assert_eq!(games, [0, 1, 2, 3, 4], "merged in game order");
        assert!(report["games_detail"].as_array().expect("games").iter().all(|game| game["passed"] == true));
        let boards = report["boards"].as_array().expect("boards");
        assert_eq!(boards.len(), 2);
        // B is named first: it plays games 0, 2, 4 and its oscillator is off by −40 ppm (A: +12).
        for (board, (probe, games, ppm)) in
            boards.iter().zip([("0483:374b:B", [0, 2, 4].as_slice(), -40.0), ("0483:374b:A", &[1, 3], 12.0)])
        {
            assert_eq!(board["probe"], probe);
            assert_eq!(games_of(&board["games"]), games, "{probe}");
            assert!(board["error"].is_null(), "{probe}: {}", board["error"]);
            let oscillator = &board["oscillator"];
            let (low, high) =
                (oscillator["ci_low_ppm"].as_f64().expect("low"), oscillator["ci_high_ppm"].as_f64().expect("high"));
            assert!(low <= ppm && ppm <= high, "{probe}: {ppm} ppm outside {low}..{high}");
            assert_eq!(oscillator["round_trip"]["min_us"], 800, "{probe}");
        }
        assert_eq!(report["board_latency"]["latency"]["p50_us"], 205);

        let log = probes.log.lock().expect("the log");
        let flashed: Vec<&str> = log.loads.iter().map(|(serial, _)| serial.as_str()).collect();
        assert!(flashed.len() == 2 && flashed.contains(&"A") && flashed.contains(&"B"), "{flashed:?}");
        let presses_on = |serial: &str| log.presses.iter().filter(|(on, _, down)| on == serial && *down).count() as u64;
        let sent_in = |games: &[u64]| {
            report["games_detail"]
                .as_array()
                .expect("games")
                .iter()
                .filter(|game| games.contains(&game["game"].as_u64().unwrap_or(u64::MAX)))
                .filter_map(|game| game["presses_sent"].as_u64())
                .sum::<u64>()
        };
        assert_eq!(presses_on("B"), sent_in(&[0, 2, 4]));
        assert_eq!(presses_on("A"), sent_in(&[1, 3]));
        assert!(presses_on("A") > 0 && presses_on("B") > 0);

        let html = std::fs::read_to_string(dir.path().join("report/index.html")).expect("index.html written");
        assert!(html.contains("PASS") && html.contains("5 of 5 games passed"), "index.html gives the verdict");
        // Each board's row, on the page and in the summary: its games as
        // ranges, its state, and its oscillator drift as report.json has it.
        let summary = std::fs::read_to_string(dir.path().join("report/summary.md")).expect("summary.md written");
        assert!(html.contains("A farm of 2 boards") && summary.contains("## Boards"));
        for (board, games) in boards.iter().zip(["0, 2, 4", "1, 3"]) {
            let (probe, description) = (board["probe"].as_str().expect("a probe"), board["description"].as_str());
            let description = description.expect("a description");
            let oscillator = &board["oscillator"];
            let (ppm, half) =
                (oscillator["ppm"].as_f64().expect("ppm"), oscillator["ci_half_ppm"].as_f64().expect("±"));
            let drift = format!("{ppm:+.3} ppm ± {half:.3}");
            let row = format!("<tr><td>{probe}</td><td>{description}</td><td>{games}</td><td>ok</td>");
            assert!(html.contains(&row), "{row}");
            assert!(html.contains(&format!("<td class=\"num\">{drift}</td>")), "{drift}");
            assert!(summary.contains(&format!("| {probe} | {description} | {games} | ok |")), "{summary}");
            assert!(summary.contains(&drift), "{summary}");
        }
        assert!(html.contains("<tr><td>write to edge stamp</td>") && html.contains("<td class=\"num\">205 µs</td>"));
        let junit = junit_games(dir.path());
        assert_eq!(junit.len(), 5);
        assert!(junit.iter().all(|(_, failed)| !failed), "{junit:?}");
    }

    /// `--shard I/N` plays the games board I of a farm of N boards plays:
    /// each shard on its own board, merged, is that farm's report, game by
    /// game and board by board, its drift, latencies, checks and verdict
    /// (all but the oscillator fits, which read host time).
    #[test]
    fn shards_on_boards_of_their_own_merge_into_the_farms_report() {
        let dir = TempDir::new("hil-shard-farm");
        let fake = || {
            let mut probes = FakeProbes::new(&["A", "B"]);
            probes.us_per_call = FAST_US_PER_CALL;
            probes
        };
        let farm = ["--games", "3", "--probe", "0483:374b:B", "--probe", "0483:374b:A"];
        let outcome = run_on_fake_probes_into(dir.path(), "farm", &fake(), &farm);
        assert_eq!(outcome.as_ref().map_err(|failure| format!("{:#}", failure.error)), Ok(&Exit::Pass));
        let mut shards = Vec::new();
        for (shard, serial) in [("2/2", "A"), ("1/2", "B")] {
            let out = format!("shard-{}", &shard[..1]);
            let probe = format!("0483:374b:{serial}");
            let outcome = run_on_fake_probes_into(
                dir.path(),
                &out,
                &fake(),
                &["--games", "3", "--shard", shard, "--probe", &probe],
            );
            assert_eq!(outcome.as_ref().map_err(|failure| format!("{:#}", failure.error)), Ok(&Exit::Pass), "{shard}");
            shards.push(dir.path().join(out));
        }
        let shard: Value =
            serde_json::from_slice(&std::fs::read(shards[0].join("report.json")).expect("read")).expect("JSON");
        assert_eq!((shard["shard"]["index"].as_u64(), shard["games"]["requested"].as_u64()), (Some(2), Some(1)));
        assert_eq!(games_of(&shard["boards"][0]["games"]), [1]);
        assert!(shard["command"].as_str().is_some_and(|command| command.ends_with(" --shard 2/2")));

        let merged = dir.path().join("merged");
        let request = bench_report::merge::MergeRequest {
            shards: &shards,
            scenario: bench_report::merge::ScenarioSource { given: None, by_name: &|_| Vec::new() },
            out: &merged,
            partial: false,
        };
        let done = bench_report::merge::merge(&request).map_err(|error| format!("{error:?}")).expect("merged");
        assert_eq!((done.shards, done.games_played), (2, 3));
        let read = |path: PathBuf| -> Value {
            let mut report: Value = serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
            for board in report["boards"].as_array_mut().expect("boards") {
                board["oscillator"] = Value::Null;
            }
            report["files"] = Value::Null;
            report
        };
        let (farm, merged) = (read(dir.path().join("farm/report.json")), read(merged.join("report.json")));
        assert_eq!(farm["boards"].as_array().map(Vec::len), Some(2));
        assert_eq!(farm["games_detail"].as_array().map(Vec::len), Some(3));
        for (key, value) in farm.as_object().expect("an object") {
            assert_eq!(&merged[key], value, "{key}");
        }
        assert!(merged["shard"].is_null());
    }

    /// Each way of picking probes wrongly stops before anything is flashed,
    /// with the exit code and the advice of its case.
    #[test]
    fn probe_selection_errors_say_what_to_do() {
        let dir = TempDir::new("hil-probe-selection");
        let two = FakeProbes::new(&["A", "B"]);
        let cases: [(&FakeProbes, &[&str], Exit, &[&str]); 6] = [
            (&two, &[], Exit::Usage, &["2 debug probes are attached", "--probe VID:PID:SERIAL", "repeat --probe"]),
            (
                &two,
                &["--probe", "0483:374b"],
                Exit::Usage,
                &["--probe 0483:374b matches 2 debug probes", "add the serial"],
            ),
            (
                &two,
                &["--probe", "0483:374b:A", "--probe", "0483:374b:A"],
                Exit::Usage,
                &["twice", "name each board once"],
            ),
            (
                &two,
                &["--probe", "0483:374b:C"],
                Exit::Infrastructure,
                &["no debug probe matches --probe 0483:374b:C", "found: STLink V2-1 (0483:374b:A)", "probe-rs list"],
            ),
            (
                &FakeProbes::new(&[]),
                &["--probe", "0483:374b:A", "--probe", "0483:374b:A"],
                Exit::Usage,
                &["--probe 0483:374b:A is given twice", "name each board once"],
            ),
            (
                &FakeProbes::new(&[]),
                &[],
                Exit::Infrastructure,
                &[
                    "no debug probe found (found: nothing)",
                    "Plug in the board this profile describes (NUCLEO-F401RE",
                    "--board qemu",
                ],
            ),
        ];
        for (probes, args, exit, advice) in cases {
            let failure = run_on_fake_probes(dir.path(), probes, args).expect_err("refused");
            let message = format!("{:#}", failure.error);
            assert_eq!(failure.exit, exit, "{args:?}: {message}");
            for words in advice {
                assert!(message.contains(words), "{args:?}: `{words}` missing from: {message}");
            }
            assert!(!dir.path().join("report").exists(), "{args:?}: nothing ran");
        }
        assert!(two.log.lock().expect("the log").loads.is_empty(), "nothing flashed");
    }

    /// One board goes away in the middle of its first game: exit 3, the
    /// report is written but marked incomplete (the gate refuses it), the
    /// game it was playing is failed with the error, its later game is not
    /// played, and the other board's games are kept and passed.
    #[test]
    fn bench_hil_keeps_the_other_boards_games_when_one_board_disconnects() {
        let dir = TempDir::new("hil-farm-disconnect");
        let mut probes = FakeProbes::new(&["A", "B"]);
        probes.us_per_call = FAST_US_PER_CALL;
        probes.disconnect = Some(("B".into(), 1_000));
        let outcome = run_on_fake_probes(
            dir.path(),
            &probes,
            &["--games", "4", "--probe", "0483:374b:A", "--probe", "0483:374b:B"],
        );
        let failure = outcome.expect_err("a board failed");
        assert_eq!(failure.exit, Exit::Infrastructure);
        let message = format!("{:#}", failure.error);
        assert!(message.contains("0483:374b:B") && message.contains("games 3 not played"), "{message}");

        let report = written_report(dir.path());
        assert_eq!((report["complete"].as_bool(), report["verdict"].as_str()), (Some(false), Some("fail")));
        let detail = report["games_detail"].as_array().expect("games");
        let by_game = |game: u64| detail.iter().find(|entry| entry["game"] == game);
        for kept in [0, 2] {
            let entry = by_game(kept).expect("board A's games are kept");
            assert_eq!(
                (entry["complete"].as_bool(), entry["passed"].as_bool()),
                (Some(true), Some(true)),
                "game {kept}"
            );
        }
        let lost = by_game(1).expect("the game board B was playing");
        assert_eq!(lost["passed"], false);
        assert!(
            lost["error"].as_str().is_some_and(|error| error.contains("debug probe") || error.contains("disconnect")),
            "{}",
            lost["error"]
        );
        assert!(by_game(3).is_none(), "board B's later game is not played");
        let boards = report["boards"].as_array().expect("boards");
        assert!(boards[0]["error"].is_null());
        assert!(
            boards[1]["error"].as_str().is_some_and(|error| error.contains("not played")),
            "{}",
            boards[1]["error"]
        );

        let html = std::fs::read_to_string(dir.path().join("report/index.html")).expect("index.html written");
        assert!(
            html.contains("FAIL") && html.contains("2 of 4 games played to their end"),
            "index.html says incomplete"
        );
        // B's row is highlighted with what stopped it; A's is not.
        assert!(html.contains("<tr><td>0483:374b:A</td>") && html.contains("<tr class=\"bad\"><td>0483:374b:B</td>"));
        let stopped = bench_report::format::html::escape(boards[1]["error"].as_str().expect("B's error"));
        assert!(html.contains(&format!("<td>FAILED: {stopped}</td>")), "{html}");
        let summary = std::fs::read_to_string(dir.path().join("report/summary.md")).expect("summary.md written");
        assert!(summary.contains("| 0483:374b:B |") && summary.contains("| FAILED: "), "{summary}");
        let junit = junit_games(dir.path());
        let failed: Vec<&str> = junit.iter().filter(|(_, failed)| *failed).map(|(name, _)| name.as_str()).collect();
        assert_eq!(failed, ["game 1"], "{junit:?}");
    }

    /// `--records` into a FIFO (`--records >(gzip > r.gz)`): the records
    /// go into it, and it stays a FIFO (before, the run's end replaced it
    /// with a regular file, as it would have `/dev/null` run as root).
    #[test]
    fn records_go_into_a_fifo_which_is_never_replaced() {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let dir = TempDir::new("hil-records-fifo");
        let fifo = dir.path().join("records.fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
        assert!(made.success());
        // A reader from the start, as a shell's process substitution has;
        // the thread reads everything written until the writer closes.
        let _held = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .expect("open the FIFO to read");
        let reader_path = fifo.clone();
        let reader = std::thread::spawn(move || std::fs::read_to_string(reader_path).expect("read the FIFO"));
        let mut probes = FakeProbes::new(&["A"]);
        probes.us_per_call = FAST_US_PER_CALL;
        let outcome =
            run_on_fake_probes(dir.path(), &probes, &["--games", "1", "--records", fifo.to_str().expect("utf-8")]);
        assert_eq!(outcome.as_ref().map_err(|failure| format!("{:#}", failure.error)), Ok(&Exit::Pass));
        let kept = std::fs::symlink_metadata(&fifo).expect("still there").file_type();
        assert!(kept.is_fifo(), "the FIFO was replaced: {kept:?}");
        let records = reader.join().expect("the reader ends");
        let report = written_report(dir.path());
        let lines: Vec<Value> = records.lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect();
        assert_eq!(
            lines.len() as u64,
            report["records"]["total"].as_u64().expect("the report counts records"),
            "{records}"
        );
        assert!(lines.iter().all(|line| line["game"] == 0), "{records}");
    }

    #[test]
    fn guest_time_past_the_schedule_says_so() {
        assert_eq!(guest_text(12_340_000, 87_900_000), "guest 12.3 of 87.9 s");
        let past = guest_text(88_400_000, 87_900_000);
        assert!(!past.contains(" of 87.9"), "{past}");
        assert!(past.starts_with("guest 88.4 s, past the schedule's 87.9 s"), "{past}");
    }

    /// A clock with sudden death and Fischer increment only, as its
    /// Capabilities record says (contract 3).
    fn fischer_only() -> Capabilities {
        Capabilities {
            controls: bench_contract::CONTROL_PLAIN | bench_contract::CONTROL_INCREMENT,
            arbiter: bench_contract::ARBITER_PAUSE,
            shows_flag_order: false,
            ranges: bench_contract::Ranges::UNDECLARED,
        }
    }

    /// 17.6: the release suite skips, with the reason, a scenario whose
    /// control the firmware announces it cannot run, and plays the others;
    /// the skipped scenario's folder holds no report for a gate to read.
    /// The rules only skipped scenarios exercise are not tested: listed
    /// first in suite.md and junit.xml, and the suite fails on them.
    #[test]
    fn the_suite_skips_what_the_firmware_announces_it_cannot_run() {
        let dir = TempDir::new("hil-suite-skips");
        let mut probes = FakeProbes::new(&["A"]);
        probes.us_per_call = FAST_US_PER_CALL;
        probes.announced = Some(fischer_only());
        let elf = dir.path().join("clock.elf");
        std::fs::write(&elf, stm32_image()).expect("write the image");
        let base = dir.path().join("suite");
        let stale = base.join("2-delay");
        std::fs::create_dir_all(&stale).expect("an earlier run's folder");
        std::fs::write(stale.join(report::files::REPORT_JSON), "{}").expect("an earlier run's report");
        let args = ["hil", "--board", "stm32", "--games", "1", "--silence-timeout", "60"];
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--firmware", elf.to_str().expect("utf-8"), "--out", base.to_str().expect("utf-8")]);
        let HilArgs { cmd } = HilArgs::try_parse_from(all).expect("the arguments parse");
        let outcome = cmd.run_with(&probes);
        assert_reports_match_their_schemas(dir.path());
        assert_eq!(outcome.as_ref().map_err(|failure| format!("{:#}", failure.error)), Ok(&Exit::GateFailed));

        let suite = std::fs::read_to_string(base.join(SUITE_MD)).expect("suite.md written");
        let junit = std::fs::read_to_string(base.join(report::files::JUNIT_XML)).expect("junit.xml written");
        let not_tested = suite.find("## Not tested on this firmware").expect("a not-tested section");
        assert!(not_tested < suite.find("## Scenarios").expect("the scenarios"), "{suite}");
        for rule in ["delay.used-up", "byo-yomi.period-lost", "canadian.block-reset", "hourglass.transfer"] {
            assert!(suite.contains(&format!("| `{rule}` |")), "{rule} not listed as untested:\n{suite}");
            assert!(junit.contains(&format!("{rule} was not tested")), "{rule} not a failing case:\n{junit}");
        }
        assert!(!suite.contains("| `increment` |"), "played scenarios test increment:\n{suite}");
        let files = Suite::Release.files().expect("the release suite");
        for file in &files {
            let name = file.file_stem().expect("a name").to_string_lossy().into_owned();
            let (scenario, _) = catalog::find(&file.display().to_string()).expect("a release scenario");
            let runs = bench_hil::needs::unsupported(
                &fischer_only(),
                &scenario.control.text,
                &scenario.control.control,
                &[],
                true,
            )
            .is_none();
            let folder = base.join(&name);
            assert_eq!(folder.join(report::files::REPORT_JSON).exists(), runs, "{name}: a report only when played");
            assert_eq!(folder.join(SKIPPED_MD).exists(), !runs, "{name}: skipped.md only when skipped");
            let row = suite.lines().find(|line| line.starts_with(&format!("| `{name}` |"))).expect("a row");
            assert_eq!(row.contains("| skipped |"), !runs, "{row}");
            if runs {
                let report: Value =
                    serde_json::from_slice(&std::fs::read(folder.join(report::files::REPORT_JSON)).expect("read"))
                        .expect("json");
                let capabilities = &report["firmware"]["capabilities"];
                assert_eq!(capabilities["controls"], serde_json::json!(["plain", "increment"]));
                assert_eq!(
                    (capabilities["announced"].as_bool(), capabilities["shows_flag_order"].as_bool()),
                    (Some(true), Some(false))
                );
            } else {
                assert!(row.contains("leaves out"), "the reason is given: {row}");
            }
        }
        assert!(suite.contains("skipped (the firmware cannot run them)"), "{suite}");
    }

    /// 17.6: without --games the suite plays each scenario's own games (a
    /// `reset` between two games on one boot is what `9-two-games` is for).
    #[test]
    fn the_suite_plays_each_scenario_s_own_games() {
        let dir = TempDir::new("hil-suite-games");
        let mut probes = FakeProbes::new(&["A"]);
        probes.us_per_call = FAST_US_PER_CALL;
        // Only what the Fischer and staged scenarios need, to keep it short.
        probes.announced = Some(Capabilities {
            controls: bench_contract::CONTROL_PLAIN
                | bench_contract::CONTROL_INCREMENT
                | bench_contract::CONTROL_STAGES,
            ..fischer_only()
        });
        let elf = dir.path().join("clock.elf");
        std::fs::write(&elf, stm32_image()).expect("write the image");
        let base = dir.path().join("suite");
        let args = ["hil", "--board", "stm32", "--silence-timeout", "60", "--firmware", elf.to_str().expect("utf-8")];
        let mut all = args.to_vec();
        // Every rule waived: what the clock leaves untested does not fail this run.
        let every_rule = chessclock::Transition::ALL.map(|rule| rule.key()).join(",");
        all.extend(["--out", base.to_str().expect("utf-8"), "--waive", &every_rule]);
        let HilArgs { cmd } = HilArgs::try_parse_from(all).expect("the arguments parse");
        let outcome = cmd.run_with(&probes);
        assert_reports_match_their_schemas(dir.path());
        assert_eq!(outcome.as_ref().map_err(|failure| format!("{:#}", failure.error)), Ok(&Exit::Pass));
        let mut most_games = 0;
        for file in Suite::Release.files().expect("the release suite") {
            let name = file.file_stem().expect("a name").to_string_lossy().into_owned();
            let Ok(bytes) = std::fs::read(base.join(&name).join(report::files::REPORT_JSON)) else { continue };
            let report: Value = serde_json::from_slice(&bytes).expect("json");
            let (scenario, _) = catalog::find(&file.display().to_string()).expect("a release scenario");
            let played = report["games_detail"].as_array().expect("games").len() as u64;
            assert_eq!(played, scenario.games, "{name}");
            most_games = most_games.max(played);
        }
        assert_eq!(most_games, 2, "the two-game scenario was played");
    }

    /// `--waive` takes rules of the model only, before anything runs.
    #[test]
    fn a_waiver_of_no_rule_of_the_model_is_a_usage_error() {
        let HilArgs { cmd } =
            HilArgs::try_parse_from(["hil", "--waive", "increment,byo-yomi"]).expect("the arguments parse");
        let failure = cmd.run_with(&FakeProbes::new(&["A"])).expect_err("refused");
        let said = format!("{:#}", failure.error);
        assert_eq!(failure.exit, Exit::Usage, "{said}");
        assert!(said.contains("`byo-yomi` is no rule") && said.contains("byo-yomi.period-lost"), "{said}");
    }

    /// An explicit `--scenario` the firmware cannot run is not a pass.
    #[test]
    fn a_scenario_the_firmware_cannot_run_is_skipped_and_fails() {
        let dir = TempDir::new("hil-skip-one");
        let mut probes = FakeProbes::new(&["A"]);
        probes.us_per_call = FAST_US_PER_CALL;
        probes.announced = Some(Capabilities { controls: bench_contract::CONTROL_DELAY, ..fischer_only() });
        let outcome = run_on_fake_probes(dir.path(), &probes, &["--games", "1"]);
        assert_eq!(outcome.as_ref().map_err(|failure| format!("{:#}", failure.error)), Ok(&Exit::GateFailed));
        assert!(!dir.path().join("report").join(report::files::REPORT_JSON).exists());
        let why = std::fs::read_to_string(dir.path().join("report").join(SKIPPED_MD)).expect("skipped.md");
        assert!(why.contains("Fischer increment (6.2a)") && why.contains("`20+1`"), "{why}");
    }
}
