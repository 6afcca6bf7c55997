//! The device: its time base and tick, button edges through debounce and
//! stuck buttons, display freezes, brownouts and replacement clocks (6.11).

use chessclock::{BySide, Clock, Duration, Instant, Replacement, Side};

use super::{Downtime, Event, Fault, Game, Input, IntoInstant, DEVICE_DEADLINE, IDEAL_DEADLINE};
use crate::defects::Struck;
use crate::oracle::{self, Before, Op};
use crate::player::occasional_us;
use crate::rng::Stream;
use crate::sample::{self, Ratio};
use crate::scenario::{Device, Occasional, Restore};

/// A brownout reboot takes this long; a lost clock takes the arbiter longer.
const REBOOT_MIN_US: u64 = 200_000;
const REBOOT_MAX_US: u64 = 2_000_000;
const REPAIR_MIN_US: u64 = 30_000_000;
const REPAIR_MAX_US: u64 = 120_000_000;
const REPLACEMENT_CHECK: &str = "the replacement clock shows the arbiter's settings";

impl Game<'_> {
    /// The device's own time now, at its tick resolution.
    pub(super) fn device_now(&mut self) -> Instant {
        let device_us = self.device.time_base.device_at(self.now_us);
        self.device_tick_floor(device_us)
    }

    /// `device_us` down to the device's tick.
    pub(super) fn device_tick_floor(&self, device_us: u64) -> Instant {
        Instant::from_us(match self.device.config.tick_us {
            // The usual millisecond tick: a division by a constant, which
            // compiles to a multiplication (a press makes several).
            1_000 => device_us / 1_000 * 1_000,
            tick => device_us / tick.max(1) * tick.max(1),
        })
    }

    pub(super) fn edge(&mut self, side: Side) {
        if self.over || self.device.down_until_us.is_some() {
            return;
        }
        self.edge_reaches_device(side);
        self.watch_if_wrong();
    }

    /// The device's input handling: a stuck button, the debounce window,
    /// then the clock core's press.
    pub(super) fn edge_reaches_device(&mut self, side: Side) {
        if self.now_us < *self.device.stuck_until_us.get(side) {
            self.record(format_args!("{side} edge lost: button stuck"));
            return;
        }
        let at = self.device_now();
        let debounce_us = self.device.config.debounce_ms.saturating_mul(1_000);
        if let Some(last) = *self.device.last_edge_us.get(side) {
            if at.as_us().saturating_sub(last) < debounce_us {
                self.record(format_args!("{side} edge debounced"));
                return;
            }
        }
        *self.device.last_edge_us.get_mut(side) = Some(at.as_us());
        let before = Before::of(&self.device.clock);
        match self.device.clock.press(side, at) {
            Ok(()) => {
                self.device.oracle.check(self.now_us, &before, &self.device.clock, Op::Press(side));
                self.device.accept_press();
                self.record(format_args!("device registers {side} at {} us", at.as_us()));
                self.after_device_change();
            }
            // A clock ignores a press by the side whose clock is not running.
            Err(error) => self.record(format_args!("device ignores {side}: {error}")),
        }
    }

    /// The defects that strike after a move's press: the script's faults
    /// for the move, or drawn (and written to the script being kept).
    pub(super) fn device_defects_after_press(&mut self) {
        let (brownout, freeze_us) = match self.spec.script {
            Some(_) => {
                let (mut brownout, mut freeze_us) = (None, None);
                for fault in self.scripted_faults() {
                    match fault {
                        Fault::Brownout { after_us, down_us } => brownout = Some((after_us, Downtime::Given(down_us))),
                        Fault::Freeze { freeze_us: scripted } => freeze_us = Some(scripted),
                        Fault::Press { .. } => {}
                    }
                }
                let freeze_us = freeze_us.filter(|_| self.now_us >= self.device.frozen_until_us);
                if let Some((after_us, Downtime::Given(down_us))) = brownout {
                    self.write_fault(Fault::Brownout { after_us, down_us });
                }
                if let Some(freeze_us) = freeze_us {
                    self.write_fault(Fault::Freeze { freeze_us });
                }
                (brownout, freeze_us)
            }
            None => self.drawn_after_press(),
        };
        if let Some((after_us, downtime)) = brownout {
            self.queue.schedule(self.now_us.saturating_add(after_us).into_instant(), Event::Brownout(downtime));
        }
        if let Some(freeze_us) = freeze_us {
            self.defects.note(Struck::DisplayFreeze);
            let at = self.device_now();
            for side in Side::BOTH {
                *self.device.frozen_display.get_mut(side) =
                    self.device.clock.remaining(side, at).unwrap_or(Duration::ZERO);
            }
            self.device.frozen_until_us = self.now_us.saturating_add(freeze_us);
            self.queue.schedule(self.device.frozen_until_us.into_instant(), Event::FreezeOver);
            self.record(format_args!("display freezes for {freeze_us} us"));
        }
    }

    /// The brownout's and the display freeze's draws after a press, written
    /// to the script being kept; a brownout's downtime is drawn as it
    /// strikes, and written then.
    fn drawn_after_press(&mut self) -> (Option<(u64, Downtime)>, Option<u64>) {
        let mut brownout = None;
        let mut freeze_us = None;
        let written = self.script_out.as_ref().map(|script| script.moves.len().saturating_sub(1));
        if self.streams.brownout.strikes() {
            // Whole milliseconds keep the ideal clock on the tick model's grid.
            let after_us = sample::between(&mut self.streams.brownout.stream, 0, 5_000) * 1_000;
            let fault = self.write_fault(Fault::Brownout { after_us, down_us: 0 });
            brownout = Some((after_us, Downtime::Draw { fault: written.zip(fault) }));
        }
        if self.streams.display_freeze.strikes() && self.now_us >= self.device.frozen_until_us {
            let drawn = occasional_us(&mut self.streams.display_freeze.stream, self.device.config.display_freeze);
            self.write_fault(Fault::Freeze { freeze_us: drawn });
            freeze_us = Some(drawn);
        }
        (brownout, freeze_us)
    }

    /// Adds a fault to the last move of the script being kept; its index.
    fn write_fault(&mut self, fault: Fault) -> Option<usize> {
        let scripted = self.script_out.as_mut()?.moves.last_mut()?;
        scripted.faults.push(fault);
        Some(scripted.faults.len() - 1)
    }

    pub(super) fn brownout(&mut self, downtime: Downtime) {
        if self.over || self.device.down_until_us.is_some() || self.paused_until_us.is_some() {
            return;
        }
        self.defects.note(Struck::Brownout);
        let restore = self.device.config.brownout.restore;
        let (min, max) = match restore {
            Restore::Backup => (REBOOT_MIN_US, REBOOT_MAX_US),
            Restore::Lost => (REPAIR_MIN_US, REPAIR_MAX_US),
        };
        let down_us = match downtime {
            Downtime::Given(down_us) => down_us,
            Downtime::Draw { fault } => {
                let down_us = sample::between(&mut self.streams.brownout.stream, min / 1_000, max / 1_000) * 1_000;
                let written = fault.and_then(|(move_index, fault)| {
                    self.script_out.as_mut()?.moves.get_mut(move_index)?.faults.get_mut(fault)
                });
                if let Some(Fault::Brownout { down_us: written, .. }) = written {
                    *written = down_us;
                }
                down_us
            }
        };
        self.device.down_until_us = Some(self.now_us.saturating_add(down_us));
        self.queue.cancel_timer(DEVICE_DEADLINE);
        if restore == Restore::Lost {
            // The arbiter stops the clocks at once (6.13) and sets up a new one.
            self.ideal_call(Op::Pause, |clock, at| clock.pause(at));
            self.queue.cancel_timer(IDEAL_DEADLINE);
            self.paused_until_us = Some(self.now_us.saturating_add(down_us));
        }
        self.queue.schedule(self.now_us.saturating_add(down_us).into_instant(), Event::BrownoutOver);
        self.record(format_args!("brownout ({restore:?}), down for {down_us} us"));
    }

    pub(super) fn brownout_over(&mut self) {
        self.device.down_until_us = None;
        if self.over {
            return;
        }
        match self.device.config.brownout.restore {
            Restore::Backup => {
                // The backup was taken at the last press; the device's time
                // base kept running, so settling charges the whole outage.
                let before = Before::of(&self.device.clock);
                self.device.restore_backup();
                let at = self.device_now();
                let _ = self.device.clock_mut().settle(at);
                self.device.oracle.check(self.now_us, &before, &self.device.clock, Op::Arbiter);
                self.record(format_args!("device reboots from its backup"));
            }
            Restore::Lost => {
                // 6.11: a replacement clock showing what the arbiter decided:
                // the ideal clock's numbers are the arbiter's best judgement.
                self.replace_device_clock();
                self.ideal_call(Op::Resume, |clock, at| clock.resume(at));
                self.after_ideal_change();
                self.paused_until_us = None;
                self.record(format_args!("device replaced after a lost state; play resumes"));
            }
        }
        self.after_device_change();
        self.resume_play();
    }

    /// A fresh device clock set to the ideal clock's numbers, running the
    /// side the ideal clock runs (6.11).
    pub(super) fn replace_device_clock(&mut self) {
        let at = self.device_now();
        let ideal_at = Instant::from_us(self.now_us);
        let ideal = self.ideal.clock;
        let shown = |side| ideal.remaining(side, ideal_at).unwrap_or(Duration::ZERO);
        let settings = Replacement {
            main: BySide::new(shown(Side::White), shown(Side::Black)),
            moves: BySide::new(ideal.moves(Side::White), ideal.moves(Side::Black)),
            period: BySide::new(ideal.period(Side::White), ideal.period(Side::Black)),
            period_moves: BySide::new(ideal.period_moves(Side::White), ideal.period_moves(Side::Black)),
        };
        let before = Before::of(&self.device.clock);
        let mut clock = Clock::new(*ideal.control());
        let black_runs =
            ideal.running() == Some(Side::Black) || matches!(ideal.phase(), chessclock::Phase::Paused(Side::Black));
        let running = if black_runs { Side::Black } else { Side::White };
        let started = clock.start(at).and_then(|()| {
            if black_runs {
                // Only the running side may press: White "presses" to hand over.
                clock.press(Side::White, at)
            } else {
                Ok(())
            }
        });
        let replaced = started.and_then(|()| clock.replace(settings, at));
        match replaced {
            Ok(()) => {
                if let Some(detail) = oracle::replacement_disagrees(&clock, &settings, black_runs, at) {
                    self.device.oracle.fail(self.now_us, REPLACEMENT_CHECK, detail);
                }
                for side in Side::BOTH {
                    let ruled_final = ideal.flag(side).is_some_and(|flag| {
                        ideal.control().is_final_period(flag.period) && self.referees.ideal.ruled.contains(&flag)
                    });
                    *self.referees.device.final_flag_carried.get_mut(side) =
                        ruled_final && settings.main.get(side).is_zero();
                }
                self.log_input(Input::Replace { settings, running });
                self.device.install(clock);
                self.device.oracle.check(self.now_us, &before, &self.device.clock, Op::Arbiter);
            }
            Err(error) => {
                // The settings are the ideal clock's: a valid clock's numbers.
                self.record(format_args!("replacement clock refused the settings: {error}"));
                self.device.oracle.fail(self.now_us, REPLACEMENT_CHECK, format!("{settings:?} refused: {error}"));
            }
        }
    }
}

/// Swarm mode: each defect of the device is independently off or on, at the
/// scenario's setting or, where the scenario leaves it off, at a swarm
/// default. Drawn from the game's swarm stream.
pub(super) fn swarm_device(base: &Device, stream: &mut Stream) -> Device {
    let half = Ratio { numerator: 1, denominator: 2 };
    let mut device = *base;
    let pick = |stream: &mut Stream, current: Ratio, default: Ratio| {
        if !sample::chance(stream, half) {
            Ratio::NEVER
        } else if current.is_never() {
            default
        } else {
            current
        }
    };
    device.missed_press = pick(stream, base.missed_press, Ratio { numerator: 1, denominator: 200 });
    device.double_press = pick(stream, base.double_press, Ratio { numerator: 1, denominator: 100 });
    device.bounce.chance = pick(stream, base.bounce.chance, Ratio { numerator: 1, denominator: 20 });
    if device.bounce.max_ms == 0 {
        device.bounce.max_ms = 40;
    }
    device.stuck_button.chance = pick(stream, base.stuck_button.chance, Ratio { numerator: 1, denominator: 500 });
    if device.stuck_button.max_ms == 0 {
        device.stuck_button = Occasional { max_ms: 3_000, min_ms: 200, ..device.stuck_button };
    }
    device.brownout.chance = pick(stream, base.brownout.chance, Ratio { numerator: 1, denominator: 1_000 });
    device.display_freeze.chance = pick(stream, base.display_freeze.chance, Ratio { numerator: 1, denominator: 300 });
    if device.display_freeze.max_ms == 0 {
        device.display_freeze = Occasional { min_ms: 500, max_ms: 5_000, ..device.display_freeze };
    }
    if sample::chance(stream, half) {
        let span = base.drift_ppm.unsigned_abs().max(100);
        device.drift_ppm = sample::between(stream, 0, 2 * span) as i64 - span as i64;
        device.drift_walk_ppm = sample::between(stream, 0, span / 4) as i64;
    }
    device.jitter_us = if sample::chance(stream, half) { base.jitter_us.max(500) } else { 0 };
    device
}
