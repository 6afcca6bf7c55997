//! One board's session once its firmware runs, the same on the emulator and
//! on a probe: Hello and Capabilities, the Ack probe, the games (unless the
//! scenario needs what the firmware leaves out), then enough time bases for
//! a drift fit. And the emulator's whole run, next to the farm's
//! ([`super::farm`]): launch QEMU, attach RTT, that session.

use std::path::Path;
use std::time::Duration;

use bench_contract::{Capabilities, Hello};

use crate::backend::gdb::{GdbServerConfig, GdbServerTarget};
use crate::backend::qemu::{QemuConfig, QemuTarget};
use crate::board::BoardProfile;
use crate::judge::drift::{self, Fit, FitError};
use crate::needs::Unsupported;
use crate::schedule::Games;
use crate::session::rtt::{ControlBlockLocation, RttError, RttReader};
use crate::session::{AckCheck, GameRun, Oscillator, Progress, RunError, RunOptions, Session};
use crate::target::{Target, TargetError};

/// What a board's session did once the firmware answered.
#[derive(Debug)]
pub struct BoardSession {
    pub hello: Hello,
    /// What the firmware announced it supports (or is taken to, before contract 3).
    pub capabilities: Capabilities,
    /// The Acks of refused lines, right after boot.
    pub acks: AckCheck,
    /// The scenario needs what the firmware leaves out: no game was played.
    pub skipped: Option<Unsupported>,
    /// The games played, in order; the last one's error stopped the rest.
    pub runs: Vec<GameRun>,
    /// A game whose schedule could not be made, which stopped the rest.
    pub unscheduled: Option<String>,
    /// Ctrl-C came while time bases were gathered after the games.
    pub interrupted: bool,
    /// Accounting drift over the session, and its samples.
    pub drift: Result<Fit, FitError>,
    pub drift_samples: Vec<drift::Sample>,
    /// Oscillator drift (`None`: the backend cannot read the board's
    /// counter against host time).
    pub oscillator: Option<Oscillator>,
}

/// A game of the session as it goes, for a progress display.
#[derive(Clone, Copy, Debug)]
pub enum GameProgress<'a> {
    /// The game's schedule is made: `presses` presses to come.
    Begins {
        presses: usize,
    },
    Playing(&'a Progress),
}

/// The session of a board whose firmware runs and whose RTT `reader` is
/// attached: `games`' games numbered `share` (in that order) until one
/// fails. `Err` when the firmware's Hello, Capabilities or Ack probe
/// failed: nothing was played.
pub fn play_board(
    target: &mut dyn Target,
    reader: &mut RttReader,
    options: RunOptions,
    games: &Games<'_>,
    share: impl Iterator<Item = u64>,
    progress: &mut dyn FnMut(GameProgress<'_>),
) -> Result<BoardSession, RunError> {
    let pause_button = target.capabilities().pause_button;
    let mut session = Session::new(target, reader, options);
    let hello = session.hello()?;
    let capabilities = session.capabilities()?;
    let acks = session.check_acks()?;
    let announced = hello.contract_version >= bench_contract::CONTRACT_VERSION_CAPABILITIES;
    let skipped = games.unsupported(&capabilities, announced, pause_button);
    let (runs, unscheduled) = match skipped {
        Some(_) => (Vec::new(), None),
        None => play_games(&mut session, games, share, progress),
    };
    // Short games (a forfeit before the first move) leave too few
    // TimeBase records for a drift: listen on a few seconds of guest time.
    let interrupted = matches!(session.gather_time_bases(&runs), Err(RunError::Interrupted));
    Ok(BoardSession {
        hello,
        capabilities,
        acks,
        skipped,
        drift: session.drift(),
        drift_samples: drift::accounting_samples(session.time_bases(), &hello),
        oscillator: session.oscillator(),
        runs,
        unscheduled,
        interrupted,
    })
}

/// The games in turn, each schedule made as it begins, until one fails:
/// the runs, and the schedule error that stopped them early, if one did.
fn play_games(
    session: &mut Session<'_>,
    games: &Games<'_>,
    share: impl Iterator<Item = u64>,
    progress: &mut dyn FnMut(GameProgress<'_>),
) -> (Vec<GameRun>, Option<String>) {
    let mut runs = Vec::new();
    for game in share {
        let schedule = match games.schedule(game) {
            Ok(schedule) => schedule,
            Err(error) => return (runs, Some(format!("game {game}: {error}"))),
        };
        progress(GameProgress::Begins { presses: schedule.presses.len() });
        let run = session.play(&schedule, &mut |update| progress(GameProgress::Playing(update))).judged();
        let failed = run.error.is_some();
        runs.push(run);
        if failed {
            break;
        }
    }
    (runs, None)
}

/// The emulator's run: the board's description, and its session or what
/// stopped it before any game.
#[derive(Debug)]
pub struct EmulatorOutcome {
    /// QEMU's own description, or the board's name when it never started.
    pub description: String,
    pub session: Result<BoardSession, String>,
}

/// Launches QEMU on `elf`, resets it, attaches RTT within `attach_timeout`
/// and plays every game of `games` in its session.
pub fn run_on_qemu(
    elf: &Path,
    config: QemuConfig,
    games: &Games<'_>,
    options: RunOptions,
    attach_timeout: Duration,
    progress: &mut dyn FnMut(GameProgress<'_>),
) -> EmulatorOutcome {
    let not_started = |description: String, error: String| EmulatorOutcome { description, session: Err(error) };
    let mut target = match QemuTarget::launch(elf, config) {
        Ok(target) => target,
        Err(error) => return not_started("qemu (not started)".to_string(), error.to_string()),
    };
    let description = target.describe();
    if let Err(error) = target.reset_and_run() {
        return not_started(description, error.to_string());
    }
    attach_and_play(&mut target, description, elf, games, options, attach_timeout, progress)
}

/// A started board's run: RTT attached within `attach_timeout` (the
/// control block where `elf` has it), then every game of `games`.
fn attach_and_play(
    target: &mut dyn Target,
    description: String,
    elf: &Path,
    games: &Games<'_>,
    options: RunOptions,
    attach_timeout: Duration,
    progress: &mut dyn FnMut(GameProgress<'_>),
) -> EmulatorOutcome {
    let not_started = |description: String, error: String| EmulatorOutcome { description, session: Err(error) };
    let location = match ControlBlockLocation::from_elf(elf) {
        Ok(location) => location,
        Err(error) => return not_started(description, error.to_string()),
    };
    let mut reader = match RttReader::attach_within(target, &location, attach_timeout) {
        Ok(reader) => reader,
        // A fault while attaching is the firmware's, not its channels'.
        Err(RttError::Target(fault @ TargetError::Fault { .. })) => return not_started(description, fault.to_string()),
        Err(error) => return not_started(description, format!("the firmware's RTT channels: {error}")),
    };
    let session = play_board(target, &mut reader, options, games, games.slice.iter(), progress);
    EmulatorOutcome { description, session: session.map_err(|error| error.to_string()) }
}

/// A board behind a GDB server: connects, flashes `elf` unless the server
/// loaded it, resets, attaches RTT within `attach_timeout` and plays every
/// game of `games` in its session.
pub fn run_on_gdb_server(
    elf: &Path,
    profile: &BoardProfile,
    config: &GdbServerConfig,
    games: &Games<'_>,
    options: RunOptions,
    attach_timeout: Duration,
    progress: &mut dyn FnMut(GameProgress<'_>),
) -> EmulatorOutcome {
    let not_started = |description: String, error: String| EmulatorOutcome { description, session: Err(error) };
    let unreached = format!("{} (GDB server at {}, not reached)", profile.name, config.address);
    let mut target = match GdbServerTarget::connect(profile, config) {
        Ok(target) => target,
        Err(error) => return not_started(unreached, error.to_string()),
    };
    let description = target.describe();
    let flashed = if config.flash { target.load(elf) } else { Ok(()) };
    if let Err(error) = flashed.and_then(|()| target.reset_and_run()) {
        return not_started(description, error.to_string());
    }
    attach_and_play(&mut target, description, elf, games, options, attach_timeout, progress)
}
