//! `bench hil --observe MAP.toml`: a firmware with no contract code, its
//! state read from RAM where the map says (`bench_hil::observe`). One game
//! per boot (the clock plays the map's control from boot and takes no
//! commands), on the emulator in lockstep.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::anyhow;
use bench_hil::backend::qemu::QemuTarget;
use bench_hil::judge::drift::FitError;
use bench_hil::observe::{self, Layout, ObserveMap, ObserveOptions};
use bench_hil::schedule::{Games, Schedule};
use bench_hil::target::{ButtonId, Target};
use chessclock::notation;

use super::{Cmd, Played};
use crate::exit::{Failure, Result};
use bench_report::hil::{BoardRunInput, ObservedInfo};

/// A checked map, placed in the firmware image.
pub(super) struct Observing {
    map_file: PathBuf,
    map: ObserveMap,
    layout: Layout,
}

impl Observing {
    pub(super) fn info(&self) -> ObservedInfo {
        ObservedInfo {
            map: self.map_file.display().to_string(),
            poll_interval_us: self.map.poll_interval_us,
            tolerance_us: observe::tolerance_us(self.map.tick_us, self.map.poll_interval_us),
        }
    }
}

impl Cmd {
    /// Everything `--observe` needs, checked before anything runs: a board
    /// that runs in lockstep, one game, the image (`Cmd::check_firmware`),
    /// the map and the image it must fit (its fields inside their symbols,
    /// aligned, in the board's RAM, none overlapping another), and a
    /// schedule the clock can play (the map's control; no arbiter commands
    /// or pause presses, which an uninstrumented clock cannot take). Each
    /// problem is a usage error.
    pub(super) fn prepare_observe(&self, map_file: &Path, elf: &Path, games: &Games<'_>) -> Result<Observing> {
        if !self.emulated()? {
            return Err(Failure::usage(anyhow!(
                "--observe runs on the emulated board only (--board qemu): it reads memory at exact guest \
                 instants, in lockstep"
            )));
        }
        if self.icount == "none" {
            return Err(Failure::usage(anyhow!("--observe needs lockstep: leave --icount at its default")));
        }
        if self.game_count() != 1 {
            return Err(Failure::usage(anyhow!(
                "--observe plays one game per boot (an uninstrumented clock takes no `reset`): --games 1"
            )));
        }
        self.check_firmware(elf)?;
        let map = ObserveMap::load(map_file).map_err(Failure::usage)?;
        let bytes = std::fs::read(elf)
            .map_err(|error| Failure::usage(anyhow!("reading the firmware image {}: {error}", elf.display())))?;
        let profile = self.profile()?;
        let ram = profile.memory.map(|memory| memory.ram);
        let layout = map.resolve(&bytes, elf, ram).map_err(Failure::usage)?;
        let scenario = games.scenario;
        let map_control = notation::parse(&map.control_text).map_err(|error| Failure::usage(anyhow!("{error}")))?;
        if map_control != scenario.control.control {
            return Err(Failure::usage(anyhow!(
                "{} says the clock plays {} from boot; scenario `{}` plays {}: give a scenario with the \
                 map's control (scenarios/observed-flag.toml plays the observed image's)",
                map_file.display(),
                map.control_text,
                scenario.name,
                scenario.control.text
            )));
        }
        let schedule = games.schedule(0).map_err(Failure::usage)?;
        refuse_what_the_clock_cannot_take(&schedule)?;
        Ok(Observing { map_file: map_file.to_path_buf(), map, layout })
    }

    /// Plays the one game against the observed firmware.
    pub(super) fn play_observed(
        &self,
        elf: &Path,
        games: &Games<'_>,
        observing: &Observing,
        stop: Arc<AtomicBool>,
    ) -> Played {
        let schedule = match games.schedule(0) {
            Ok(schedule) => schedule,
            Err(error) => return Played::failed(self.board.as_str().to_string(), error),
        };
        let mut target = match QemuTarget::launch(elf, self.qemu_config()) {
            Ok(target) => target,
            Err(error) => return Played::failed(format!("{} (not started)", self.board.as_str()), error),
        };
        let description = target.describe();
        if let Err(error) = target.reset_and_run() {
            return Played::failed(description, error);
        }
        let options = ObserveOptions { stop: Some(stop), ..ObserveOptions::default() };
        let run = observe::play(&mut target, &observing.layout, &schedule, &options);
        let boards = vec![BoardRunInput {
            probe: None,
            description: description.clone(),
            games: vec![run.schedule.game],
            error: None,
            accounting_drift_ppm: None,
            oscillator: None,
        }];
        Played {
            description,
            hello: None,
            capabilities: None,
            skipped: None,
            error: None,
            runs: vec![run],
            drift: Err(FitError::TooFew { used: 0 }),
            drift_samples: Vec::new(),
            boards,
            acks: None,
            observed: Some(observing.info()),
        }
    }
}

fn refuse_what_the_clock_cannot_take(schedule: &Schedule) -> Result<()> {
    if !schedule.commands.is_empty() {
        return Err(Failure::usage(anyhow!(
            "scenario `{}` has the arbiter adjust times or move counters: an uninstrumented clock takes no \
             commands (leave [arbiter] adjust and set_moves out)",
            schedule.scenario
        )));
    }
    if schedule.presses.iter().any(|press| press.button == ButtonId::Pause) {
        return Err(Failure::usage(anyhow!(
            "scenario `{}` has the arbiter stop the clocks: observe mode presses the players' buttons only \
             (leave [arbiter] pause out)",
            schedule.scenario
        )));
    }
    Ok(())
}
