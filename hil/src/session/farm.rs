//! Boards on debug probes, one or several at once (a small board farm on
//! one host): probe selection, the image check, and the games of a scenario
//! spread over the boards.
//!
//! ```text
//!   select: list probes ── choose(--probe …) ── one attached: used without flags
//!   check_image(profile, ELF)                    before anything is flashed
//!   share: game g → board g mod N                (deterministic; schedules made as played)
//!   one thread per board: open ─ flash (verify) ─ reset_and_run ─ RTT ─ Session: its games
//!   merge: every GameRun in game order           (report.json does not depend on timing)
//! ```
//!
//! A board that fails stops only its own games: the game it was playing is
//! marked incomplete with the error, its later games are not played (the
//! board's `error` says so), and the other boards' results are kept.
//!
//! Everything here is generic over [`ProbeBackend`]: probe-rs
//! ([`crate::backend::probe::RealProbes`]) on a host with boards, and
//! `crate::testing::probes::FakeProbes` (fake boards running a model of the
//! reference firmware; cargo feature `fake`) in tests, so the logic above
//! probe-rs is tested without hardware.

use std::path::Path;
use std::time::Duration;

use bench_contract::{Capabilities, Hello};

use crate::backend::probe::{
    check_image, choose, FlashUpdate, ProbeBackend, ProbeError, ProbeInfo, ProbeOptions, Selector,
};
use crate::board::BoardProfile;
use crate::judge::drift::{self, Fit, FitError};
use crate::needs::Unsupported;
use crate::schedule::{GameSlice, Games};
use crate::session::board::{play_board, GameProgress};
use crate::session::rtt::{ControlBlockLocation, RttReader};
use crate::session::{AckCheck, GameRun, Oscillator, Progress, RunOptions};
use crate::target::Target;

/// What one board of a farm is doing, for a progress display.
#[derive(Clone, Copy, Debug)]
pub enum BoardProgress<'a> {
    Flash(FlashUpdate),
    Game(&'a Progress),
}

/// The probes to use for `selectors` (see [`choose`]); the same probe
/// named twice is an error, since one board cannot play two shares.
/// `board` is what to plug in when none fits (the profile's description).
pub fn select(backend: &impl ProbeBackend, selectors: &[Selector], board: &str) -> Result<Vec<ProbeInfo>, ProbeError> {
    let chosen = choose(&backend.list()?, selectors, board)?;
    for (index, probe) in chosen.iter().enumerate() {
        if chosen.iter().skip(index + 1).any(|other| other == probe) {
            return Err(ProbeError::Duplicate { probe: probe.clone() });
        }
    }
    Ok(chosen)
}

/// What the boards need besides their games.
#[derive(Clone, Debug)]
pub struct FarmConfig<'a> {
    pub profile: &'a BoardProfile,
    /// Chip override, SWD speed, reset mode (its selectors are not used here).
    pub probe_options: &'a ProbeOptions,
    pub elf: &'a Path,
    /// Where the firmware's RTT control block is (from the ELF).
    pub rtt: ControlBlockLocation,
    pub options: RunOptions,
    /// How long the firmware may take to set up RTT after a reset.
    pub attach_timeout: Duration,
}

/// One board's share of the run.
#[derive(Debug)]
pub struct BoardOutcome {
    pub probe: ProbeInfo,
    /// The target's own description, or the probe's when it never opened.
    pub description: String,
    /// The games this board played or was playing when it stopped (those
    /// after it are named in `error`: a share can be too long to list).
    pub games: Vec<u64>,
    pub hello: Option<Hello>,
    /// What the firmware announced it supports (or is taken to, before contract 3).
    pub capabilities: Option<Capabilities>,
    /// The scenario needs what the firmware leaves out: no game was played.
    pub skipped: Option<Unsupported>,
    /// The games it played, in its order; [`merge`] takes them out.
    pub runs: Vec<GameRun>,
    /// Accounting drift over the board's session, and its samples.
    pub drift: Result<Fit, FitError>,
    pub drift_samples: Vec<drift::Sample>,
    /// Oscillator drift and the probe's round trips (`None`: the backend
    /// cannot read the board's counter against host time).
    pub oscillator: Option<Oscillator>,
    /// What stopped this board before or between its games.
    pub error: Option<String>,
    /// The Acks of refused lines, right after boot.
    pub acks: Option<AckCheck>,
}

impl BoardOutcome {
    fn failed(probe: &ProbeInfo, description: String, games: Vec<u64>, error: String) -> BoardOutcome {
        BoardOutcome {
            probe: probe.clone(),
            description,
            games,
            hello: None,
            capabilities: None,
            skipped: None,
            runs: Vec::new(),
            drift: Err(FitError::TooFew { used: 0 }),
            drift_samples: Vec::new(),
            oscillator: None,
            error: Some(error),
            acks: None,
        }
    }
}

/// Checks the image against the profile (before anything is flashed), then
/// plays `games` on the `probes`, one thread per board, each schedule made
/// as its game begins. `progress` gets the board's index (into `probes`)
/// with each update. The outcomes are in the order of `probes`.
pub fn run<B: ProbeBackend>(
    backend: &B,
    probes: &[ProbeInfo],
    config: &FarmConfig<'_>,
    games: &Games<'_>,
    progress: &(dyn Fn(usize, BoardProgress<'_>) + Sync),
) -> Result<Vec<BoardOutcome>, String> {
    let bytes = std::fs::read(config.elf).map_err(|error| format!("{}: {error}", config.elf.display()))?;
    check_image(config.profile, config.elf, &bytes)?;
    let boards = probes.len();
    let outcomes = std::thread::scope(|scope| {
        let handles: Vec<_> = probes
            .iter()
            .enumerate()
            .map(|(index, probe)| {
                let board = Board { probe, index, boards };
                scope.spawn(move || run_board(backend, board, config, games, &|update| progress(index, update)))
            })
            .collect();
        handles
            .into_iter()
            .zip(probes)
            .map(|(handle, probe)| {
                handle.join().unwrap_or_else(|_| {
                    BoardOutcome::failed(probe, probe.to_string(), Vec::new(), "the board's thread panicked".into())
                })
            })
            .collect()
    });
    Ok(outcomes)
}

/// One board of the farm: its probe, and its place (its share of games).
#[derive(Clone, Copy)]
struct Board<'a> {
    probe: &'a ProbeInfo,
    index: usize,
    boards: usize,
}

impl Board<'_> {
    /// Game `g` of the run's slice on board `g mod boards` (by position
    /// in the slice), so the split depends on nothing but the counts.
    fn share(&self, games: &Games<'_>) -> GameSlice {
        let (index, boards) = (u64::try_from(self.index), u64::try_from(self.boards));
        games.slice.part(index.unwrap_or(u64::MAX), boards.unwrap_or(u64::MAX))
    }

    /// Why the board stopped, and which of its games it did not play.
    fn stopped(&self, games: &Games<'_>, from: usize, cause: &str) -> String {
        let rest = self.share(games).describe(u64::try_from(from).unwrap_or(u64::MAX));
        format!("{}: {cause}; games {rest} not played", self.probe)
    }
}

/// One board: open, flash and verify, reset, attach RTT, play its games
/// one after another until one fails.
fn run_board<B: ProbeBackend>(
    backend: &B,
    board: Board<'_>,
    config: &FarmConfig<'_>,
    games: &Games<'_>,
    progress: &dyn Fn(BoardProgress<'_>),
) -> BoardOutcome {
    let probe = board.probe;
    let failed = |description: String, error: String| {
        BoardOutcome::failed(probe, description, Vec::new(), board.stopped(games, 0, &error))
    };
    let mut target = match backend.open(probe, config.profile, config.probe_options) {
        Ok(target) => target,
        Err(error) => return failed(probe.to_string(), error.to_string()),
    };
    let description = target.describe();
    let started = backend
        .flash(&mut target, config.elf, &mut |update| progress(BoardProgress::Flash(update)))
        .and_then(|()| target.reset_and_run())
        .map_err(|error| error.to_string())
        .and_then(|()| {
            RttReader::attach_within(&mut target, &config.rtt, config.attach_timeout)
                .map_err(|error| format!("the firmware's RTT channels: {error}"))
        });
    let mut reader = match started {
        Ok(reader) => reader,
        Err(error) => return failed(description, error),
    };
    let share = board.share(games).iter();
    let session = play_board(&mut target, &mut reader, config.options.clone(), games, share, &mut |update| {
        if let GameProgress::Playing(update) = update {
            progress(BoardProgress::Game(update));
        }
    });
    let session = match session {
        Ok(session) => session,
        Err(error) => return failed(description, error.to_string()),
    };
    // What stopped the board's games early: a schedule that could not be
    // made, or the game that failed.
    let stopped = session
        .unscheduled
        .clone()
        .or_else(|| session.runs.last().and_then(|run| run.error.as_ref()).map(ToString::to_string));
    let error = stopped
        .map(|cause| board.stopped(games, session.runs.len(), &cause))
        .or_else(|| session.interrupted.then(|| format!("{probe}: interrupted")));
    BoardOutcome {
        probe: probe.clone(),
        description,
        games: session.runs.iter().map(|run| run.schedule.game).collect(),
        hello: Some(session.hello),
        capabilities: Some(session.capabilities),
        skipped: session.skipped,
        drift: session.drift,
        drift_samples: session.drift_samples,
        oscillator: session.oscillator,
        runs: session.runs,
        error,
        acks: Some(session.acks),
    }
}

/// The accounting drift that stands for a farm's, and its samples (taken
/// out of that board's outcome): the board [`drift::deciding_board`]
/// picks, so a passing farm shows its worst board and a failing one the
/// board that fails it.
pub fn deciding_drift(
    outcomes: &mut [BoardOutcome],
    tolerance_ppm: f64,
) -> (Result<Fit, FitError>, Vec<drift::Sample>) {
    let drifts: Vec<drift::BoardDrift> =
        outcomes.iter().map(|outcome| drift::BoardDrift::of(&outcome.drift, tolerance_ppm)).collect();
    match outcomes.get_mut(drift::deciding_board(&drifts)) {
        Some(outcome) => (outcome.drift, std::mem::take(&mut outcome.drift_samples)),
        None => (Err(FitError::TooFew { used: 0 }), Vec::new()),
    }
}

/// Takes every board's runs out, in game order.
pub fn merge(outcomes: &mut [BoardOutcome]) -> Vec<GameRun> {
    let mut runs: Vec<GameRun> = outcomes.iter_mut().flat_map(|outcome| std::mem::take(&mut outcome.runs)).collect();
    runs.sort_by_key(|run| run.schedule.game);
    runs
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use bench_sim::scenario::Scenario;

    use super::*;
    use crate::session::RunError;
    use crate::target::TargetError;
    use crate::testing::board::{fake_image, ImageSegment};
    use crate::testing::probes::{st_link as probe, stm32_image, FakeProbes};

    const SCENARIO: &str = r#"
description = "farm test"
control = "20+1"
games = 5
seed = 9

[players]
think = { distribution = "uniform", min_ms = 200, max_ms = 900 }

[board]
ends_per_move = 0
max_moves = 5
"#;

    fn scenario() -> Scenario {
        Scenario::parse(SCENARIO, Path::new("scenarios/farm-test.toml")).expect("the scenario parses")
    }

    fn games(scenario: &Scenario, count: u64) -> Games<'_> {
        Games::all(scenario, scenario.seed, count)
    }

    fn profile() -> BoardProfile {
        BoardProfile::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("boards/stm32.toml")).expect("stm32 loads")
    }

    /// An image that fits the stm32 profile, its RTT block where the fake has it.
    fn image(dir: &Path) -> PathBuf {
        let path = dir.join("clock.elf");
        std::fs::write(&path, stm32_image()).expect("write the image");
        path
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bench-farm-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        dir
    }

    static PROBE_OPTIONS: ProbeOptions =
        ProbeOptions { selectors: Vec::new(), chip: None, speed_khz: None, connect_under_reset: false };

    fn config<'a>(profile: &'a BoardProfile, elf: &'a Path) -> FarmConfig<'a> {
        FarmConfig {
            profile,
            elf,
            probe_options: &PROBE_OPTIONS,
            rtt: ControlBlockLocation::from_elf(elf).expect("the image names its RTT block"),
            options: RunOptions {
                poll_interval: Duration::ZERO,
                // Host time: generous, so a loaded machine never makes a fake board look silent.
                silence_timeout: Duration::from_secs(20),
                ..RunOptions::default()
            },
            attach_timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn one_probe_is_used_without_flags_several_need_a_selector() {
        assert_eq!(select(&FakeProbes::new(&["A"]), &[], "NUCLEO-F401RE").unwrap(), vec![probe("A")]);
        let two = FakeProbes::new(&["A", "B"]);
        let error = select(&two, &[], "NUCLEO-F401RE").unwrap_err();
        assert!(error.is_usage() && error.to_string().contains("pick one with --probe"), "{error}");
        let both = [Selector::parse("0483:374b:B").unwrap(), Selector::parse("0483:374b:A").unwrap()];
        assert_eq!(select(&two, &both, "NUCLEO-F401RE").unwrap(), vec![probe("B"), probe("A")]);
        let twice = [Selector::parse("0483:374b:A").unwrap(), Selector::parse("0483:374b:A").unwrap()];
        let error = select(&two, &twice, "NUCLEO-F401RE").unwrap_err();
        assert!(error.is_usage() && error.to_string().contains("twice"), "{error}");
        let error = select(&two, &[Selector::parse("1366:0101").unwrap()], "NUCLEO-F401RE").unwrap_err();
        assert!(!error.is_usage() && error.to_string().contains("no debug probe matches --probe 1366:0101"));
        let error = select(&FakeProbes::new(&[]), &[], "NUCLEO-F401RE").unwrap_err();
        assert!(error.to_string().contains("found: nothing") && error.to_string().contains("--board qemu"));
    }

    #[test]
    fn an_image_for_another_chip_is_refused_before_any_probe_is_opened() {
        let dir = temp_dir("wrong-chip");
        let elf = dir.join("lm3s.elf");
        let segments = [ImageSegment { address: 0, file_size: 0x800, memory_size: 0x800 }];
        std::fs::write(&elf, fake_image(&segments, &[("_SEGGER_RTT", 0x2000_0200)])).expect("write");
        let profile = profile();
        let backend = FakeProbes::new(&["A"]);
        let fitting = image(&dir);
        let config = FarmConfig { elf: &elf, ..config(&profile, &fitting) };
        let scenario = scenario();
        let error = run(&backend, &backend.probes, &config, &games(&scenario, 1), &|_, _| ()).unwrap_err();
        assert!(error.contains("outside STM32F401RETx's flash"), "{error}");
        assert!(backend.log.lock().unwrap().loads.is_empty(), "nothing flashed");
    }

    /// Two boards, five games: each board flashed once, presses written on
    /// the board that plays the game, every game compared and passed, the
    /// results in game order, each board's oscillator drift recovered.
    #[test]
    fn a_farm_of_two_boards_plays_every_game_and_merges_them_in_order() {
        let dir = temp_dir("two");
        let elf = image(&dir);
        let profile = profile();
        let backend = FakeProbes::new(&["A", "B"]);
        let probes = select(
            &backend,
            &[Selector::parse("0483:374b:B").unwrap(), Selector::parse("0483:374b:A").unwrap()],
            "NUCLEO-F401RE",
        )
        .expect("both");
        let scenario = scenario();
        let games = games(&scenario, 5);
        let mut outcomes = run(&backend, &probes, &config(&profile, &elf), &games, &|_, _| ()).expect("ran");
        assert_eq!(
            outcomes.iter().map(|outcome| outcome.games.clone()).collect::<Vec<_>>(),
            [vec![0, 2, 4], vec![1, 3]]
        );
        for (outcome, ppm) in outcomes.iter().zip([-40.0, 12.0]) {
            assert_eq!(outcome.error, None);
            let oscillator = outcome.oscillator.as_ref().expect("a counter");
            let fit = oscillator.fit.as_ref().expect("an oscillator fit");
            assert!(fit.ci_low_ppm() <= ppm && ppm <= fit.ci_high_ppm() && (fit.drift_ppm - ppm).abs() < 2.0, "{fit}");
            assert!(fit.used < fit.samples, "slow reads filtered");
            assert_eq!(oscillator.round_trip.map(|trips| trips.min_us), Some(800));
            assert!(outcome.drift.as_ref().is_ok_and(|fit| fit.within(1.0)), "{:?}", outcome.drift);
        }
        let runs = merge(&mut outcomes);
        assert_eq!(runs.iter().map(|run| run.schedule.game).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        for run in &runs {
            assert!(run.passed(), "game {}: {:?}", run.schedule.game, run.error);
            let latency = run.board_latency.clone().expect("latency on the board");
            assert_eq!((latency.latency.p50_us, latency.bracket.p50_us, latency.unmatched), (205, 400, 0));
        }
        let log = backend.log.lock().unwrap();
        assert_eq!(log.loads.len(), 2);
        assert!(log.loads.iter().all(|(_, path)| path == &elf));
        let presses_on = |serial: &str| log.presses.iter().filter(|(on, _, down)| on == serial && *down).count();
        let presses = |game: u64| games.schedule(game).expect("a schedule").presses.len();
        let expected = |share: &[u64]| share.iter().map(|game| presses(*game)).sum::<usize>();
        assert_eq!(presses_on("B"), expected(&[0, 2, 4]));
        assert_eq!(presses_on("A"), expected(&[1, 3]));
    }

    #[test]
    fn a_board_that_fails_mid_run_marks_its_games_incomplete_and_keeps_the_others() {
        let dir = temp_dir("one-fails");
        let elf = image(&dir);
        let profile = profile();
        let mut backend = FakeProbes::new(&["A", "B"]);
        backend.disconnect = Some(("B".into(), 3_000));
        let probes = backend.probes.clone();
        let scenario = scenario();
        let mut outcomes =
            run(&backend, &probes, &config(&profile, &elf), &games(&scenario, 4), &|_, _| ()).expect("ran");
        let failed = outcomes.get(1).expect("board B");
        let error = failed.error.clone().expect("board B stopped");
        assert!(error.contains("0483:374b:B") && error.contains("not played"), "{error}");
        assert_eq!(outcomes.first().and_then(|outcome| outcome.error.clone()), None);
        let runs = merge(&mut outcomes);
        let games: Vec<u64> = runs.iter().map(|run| run.schedule.game).collect();
        assert!(games.starts_with(&[0, 1, 2]) && !games.contains(&3), "{games:?}");
        let on_b = runs.iter().find(|run| run.schedule.game == 1).expect("game 1");
        assert!(matches!(on_b.error, Some(RunError::Target(TargetError::Disconnected { .. }))), "{:?}", on_b.error);
        assert!(runs.iter().filter(|run| run.schedule.game % 2 == 0).all(GameRun::passed));
    }

    /// A run of u64::MAX games makes each schedule as its game begins: a
    /// board that stops names the games it did not play in a line, and
    /// nothing was held per game (made up front, the schedules ran the
    /// host out of memory before the first press).
    #[test]
    fn a_run_of_u64_max_games_holds_nothing_per_game() {
        let dir = temp_dir("endless");
        let elf = image(&dir);
        let profile = profile();
        let mut backend = FakeProbes::new(&["B"]);
        backend.disconnect = Some(("B".into(), 3_000));
        let probes = backend.probes.clone();
        let scenario = scenario();
        let games = games(&scenario, u64::MAX);
        let outcomes = run(&backend, &probes, &config(&profile, &elf), &games, &|_, _| ()).expect("ran");
        let outcome = outcomes.first().expect("board B");
        let error = outcome.error.clone().expect("board B stopped");
        let next = outcome.runs.len();
        let expected = format!("games {next}, {}, ", next + 1);
        assert!(error.contains(&expected) && error.ends_with(", … 18446744073709551614 not played"), "{error}");
        assert_eq!(outcome.games, (0..next as u64).collect::<Vec<_>>(), "the games it played");
    }

    fn shipped(name: &str) -> Scenario {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios").join(format!("{name}.toml"));
        Scenario::load(&file).expect("the shipped scenario loads")
    }

    /// `both-flags` says its clock cannot show which flag fell first; the
    /// fake's firmware announces that its displays can. The games are
    /// still the scenario's, ruled as `bench sim` rules them (6.12): the
    /// firmware's Capabilities once replaced the scenario's rule, so the
    /// arbiter ended each game 0-1 (6.10) at the first stage's flags.
    #[test]
    fn both_flags_is_ruled_as_bench_sim_rules_it_on_a_clock_that_shows_the_order() {
        let dir = temp_dir("both-flags");
        let elf = image(&dir);
        let profile = profile();
        let mut backend = FakeProbes::new(&["A"]);
        backend.us_per_call = 2_000;
        let scenario = shipped("both-flags");
        assert!(!scenario.arbiter.clock_shows_first_flag);
        let games = games(&scenario, 2);
        let probes = backend.probes.clone();
        let mut outcomes = run(&backend, &probes, &config(&profile, &elf), &games, &|_, _| ()).expect("ran");
        let shows_order = outcomes.first().and_then(|outcome| outcome.capabilities).map(|c| c.shows_flag_order);
        assert_eq!(shows_order, Some(true), "the firmware shows the order");
        let runs = merge(&mut outcomes);
        assert_eq!(runs.len(), 2);
        for run in &runs {
            let game = run.schedule.game;
            let simulated = bench_sim::game::play(bench_sim::game::GameSpec {
                scenario: &scenario,
                seed: scenario.seed,
                game,
                swarm: false,
                trace: false,
                model_oracle: false,
                disabled: bench_sim::defects::DefectSet::NONE,
                record_inputs: false,
                script: None,
            });
            assert_eq!(run.schedule.result, simulated.device, "game {game}: bench sim's result");
            assert_eq!(run.schedule.applied, simulated.applied, "game {game}: bench sim's rulings");
            assert!(run.passed(), "game {game}: {:?} {:#?}", run.error, run.comparison);
            let comparison = run.comparison.as_ref().and_then(|compared| compared.as_ref().ok()).expect("compared");
            if let crate::schedule::ScheduleEnd::Flag { ruling } = run.schedule.end {
                assert_eq!(comparison.model.ruling, Some(ruling), "game {game}: one ruling, the arbiter's");
                assert_eq!(comparison.firmware.ruling, Some(ruling), "game {game}: one ruling, the arbiter's");
            }
        }
        let articles: Vec<&str> =
            runs.iter().flat_map(|run| run.schedule.applied.iter().map(|article| article.number())).collect();
        assert!(articles.iter().all(|article| article.starts_with("6.12")), "{articles:?}");
    }

    /// A contract 2 firmware sends no Capabilities record: a scenario whose
    /// arbiter adjusts the clocks is skipped with bench's assumption named,
    /// not with a record the firmware never sent.
    #[test]
    fn a_contract_2_firmware_is_skipped_on_what_bench_assumes_not_on_a_record() {
        let dir = temp_dir("contract-2");
        let elf = image(&dir);
        let profile = profile();
        let mut backend = FakeProbes::new(&["A"]);
        backend.announced = None;
        let scenario = shipped("arbiter-pause-adjust");
        let games = games(&scenario, 1);
        let probes = backend.probes.clone();
        let outcomes = run(&backend, &probes, &config(&profile, &elf), &games, &|_, _| ()).expect("ran");
        let outcome = outcomes.first().expect("board A");
        assert_eq!(outcome.hello.map(|hello| hello.contract_version), Some(2));
        let why = outcome.skipped.as_ref().expect("skipped: adjusting is not assumed").to_string();
        assert!(!why.contains("Capabilities record leaves out"), "{why}");
        assert!(why.starts_with("the firmware sends no Capabilities record (contract 1 or 2)"), "{why}");
        assert!(why.contains("time adjustment (6.14, 13.4)"), "{why}");
    }
}
