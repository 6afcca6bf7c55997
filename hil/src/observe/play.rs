//! One game against an uninstrumented firmware, in lockstep: the harness
//! presses the buttons at the schedule's guest instants and reads the
//! clock's state through the map every poll interval; what changed between
//! two readings becomes the records an instrumented firmware would have
//! sent, and they are compared with the model the same way.
//!
//! What a reading cannot say is taken from the harness's side: the start
//! is Black's press (6.5), at its edge; every other instant is the reading
//! that first showed the change, so it may trail the change by up to one
//! poll interval. The comparison's tolerance is widened by that much, and
//! the report says so.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bench_contract::{Ack, AckStatus, Body, Button, CommandCode, Flag, Phase, Press, PressResult, Record, Snapshot};
use chessclock::{BySide, Side};

use super::{Layout, Observed};
use crate::judge::game::Terms;
use crate::schedule::Schedule;
use crate::session::{GameRun, PlayedGame, RunError, StopTally};
use crate::target::{Bounce, ButtonId, SentPress, StepPlan, Stop, Target};

/// How an observed game is played.
#[derive(Clone, Debug)]
pub struct ObserveOptions {
    /// Guest time from reset to the start press, µs: the clock boots and
    /// shows its initial times.
    pub boot_us: u64,
    /// How long the start press is held, guest µs.
    pub start_hold_us: u64,
    /// Guest time played after the schedule's end, µs: a flag or a press
    /// that is late shows within it.
    pub end_margin_us: u64,
    /// Host time one lockstep step may take before the emulator is judged
    /// stuck (an infrastructure failure, not a verdict).
    pub emulator_timeout: Duration,
    /// Set from outside (Ctrl-C): the game ends, incomplete.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for ObserveOptions {
    fn default() -> Self {
        ObserveOptions {
            boot_us: 500_000,
            start_hold_us: 80_000,
            end_margin_us: 1_000_000,
            emulator_timeout: Duration::from_secs(300),
            stop: None,
        }
    }
}

/// The comparison's tolerance for a game read every `poll_interval_us` by
/// a firmware of `tick_us`: one tick, as for records, plus one poll.
pub fn tolerance_us(tick_us: u64, poll_interval_us: u64) -> u64 {
    tick_us.saturating_add(poll_interval_us)
}

/// Plays `schedule` (its control must be the one the map says the clock
/// plays) against the firmware on `target`, which must run in lockstep
/// and be freshly reset, and judges it.
pub fn play(target: &mut dyn Target, layout: &Layout, schedule: &Schedule, options: &ObserveOptions) -> GameRun {
    let started = Instant::now();
    let mut game = Watcher::new(target, layout, options);
    let outcome = game.drive(schedule);
    let error = outcome.err();
    for button in [ButtonId::White, ButtonId::Black] {
        // Best effort: do not leave a button down.
        let _ = game.target.set_button(button, false);
    }
    let tolerance = tolerance_us(layout.map.tick_us, layout.map.poll_interval_us);
    let start_us = game.start_us;
    PlayedGame {
        schedule: schedule.clone(),
        records: std::mem::take(&mut game.records),
        tick_us: tolerance,
        start_us,
        sent: std::mem::take(&mut game.sent),
        commands_sent: Vec::new(),
        guest_us: start_us.map_or(0, |start| game.now_us.saturating_sub(start)),
        host_elapsed: started.elapsed(),
        error,
        terms: Terms::Observed { tolerance_us: tolerance },
        stops: StopTally::default(),
    }
    .judged()
}

/// The game as the readings show it.
struct Watcher<'a> {
    target: &'a mut dyn Target,
    layout: &'a Layout,
    options: &'a ObserveOptions,
    /// Guest time, µs: ticks counted since reset.
    now_us: u64,
    next_poll_us: u64,
    last: Option<Observed>,
    records: Vec<Record>,
    sent: Vec<SentPress>,
    start_us: Option<u64>,
    /// Presses each side's display has shown so far (for a map without
    /// move counters).
    presses_seen: BySide<u32>,
    flags_seen: u32,
}

impl<'a> Watcher<'a> {
    fn new(target: &'a mut dyn Target, layout: &'a Layout, options: &'a ObserveOptions) -> Watcher<'a> {
        Watcher {
            target,
            layout,
            options,
            now_us: 0,
            next_poll_us: 0,
            last: None,
            records: Vec::new(),
            sent: Vec::new(),
            start_us: None,
            presses_seen: BySide::new(0, 0),
            flags_seen: 0,
        }
    }

    fn drive(&mut self, schedule: &Schedule) -> Result<(), RunError> {
        if !self.target.capabilities().lockstep {
            return Err(RunError::Contract {
                detail: "observe mode needs a board that runs in lockstep (--board qemu)".to_string(),
            });
        }
        self.run_until(self.options.boot_us)?;
        // As if `tc` had been acknowledged at boot: the game is from here on.
        let initial_us = self.last.map_or(0, |reading| reading.remaining_us.white);
        self.push(accepted(CommandCode::TimeControl, 1, initial_us));
        // 6.5: Black's press starts White's clock.
        let start_us = self.now_us;
        self.target.set_button(ButtonId::Black, true)?;
        self.start_us = Some(start_us);
        self.push(accepted(CommandCode::Start, 2, initial_us));
        self.run_until(start_us.saturating_add(self.options.start_hold_us))?;
        self.target.set_button(ButtonId::Black, false)?;
        for (index, press) in schedule.presses.iter().enumerate() {
            let at_us = start_us.saturating_add(press.offset_us).max(self.now_us);
            self.run_until(at_us)?;
            self.target.set_button(press.button, true)?;
            self.sent.push(SentPress {
                button: press.button,
                scheduled_us: start_us.saturating_add(press.offset_us),
                sent_us: self.now_us,
                window: None,
                bounce: Bounce::default(),
            });
            let next_us = schedule.presses.get(index + 1).map_or(u64::MAX, |next| start_us + next.offset_us);
            let release_us = self.now_us.saturating_add(press.hold_us).min(next_us.saturating_sub(1));
            self.run_until(release_us)?;
            self.target.set_button(press.button, false)?;
        }
        let end_us = start_us.saturating_add(schedule.duration_us()).saturating_add(self.options.end_margin_us);
        self.run_until(end_us)
    }

    /// Steps the board tick by tick to `until_us`, reading it at every
    /// poll instant on the way.
    fn run_until(&mut self, until_us: u64) -> Result<(), RunError> {
        let tick_us = self.layout.map.tick_us;
        while self.now_us < until_us {
            // The next instant it reads the board or acts: the ticks
            // before it need no stop.
            let next_us = until_us.min(self.next_poll_us.max(self.now_us.saturating_add(1)));
            let ticks_to_next = next_us.saturating_sub(self.now_us).div_ceil(tick_us.max(1));
            let skip_ticks = u32::try_from(ticks_to_next.saturating_sub(1)).unwrap_or(u32::MAX);
            let plan = StepPlan { watch: None, tick: true, skip_ticks };
            if self.options.stop.as_ref().is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                return Err(RunError::Interrupted);
            }
            let waiting = Instant::now();
            let ticks = loop {
                match self.target.step(&plan, Duration::from_millis(250))? {
                    Some(Stop::Tick { ticks }) => break u64::from(ticks),
                    Some(Stop::Written) => break 0,
                    None if waiting.elapsed() > self.options.emulator_timeout => {
                        return Err(RunError::NoStop {
                            waiting_for: "the firmware's next tick".to_string(),
                            timeout: self.options.emulator_timeout,
                            last_at_us: Some(self.now_us),
                        })
                    }
                    None => {}
                }
            };
            self.now_us = self.now_us.saturating_add(ticks.saturating_mul(tick_us));
            if self.now_us >= self.next_poll_us {
                self.poll()?;
                self.next_poll_us = self.now_us.saturating_add(self.layout.map.poll_interval_us);
            }
        }
        Ok(())
    }

    /// One reading, and the records its changes make.
    fn poll(&mut self) -> Result<(), RunError> {
        let target = &mut *self.target;
        let reading = self.layout.read(|address, buffer| target.read_memory(address, buffer))?;
        if let (Some(last), Some(_)) = (self.last, self.start_us) {
            self.note_presses(&last, &reading);
            self.note_flags(&last, &reading);
        }
        if self.start_us.is_some() {
            self.push(Body::Snapshot(self.snapshot(&reading)));
        }
        self.last = Some(reading);
        Ok(())
    }

    /// A side whose clock stopped running (its opponent's runs now), or
    /// whose move counter went up, has pressed.
    fn note_presses(&mut self, last: &Observed, reading: &Observed) {
        for side in Side::BOTH {
            let handed_over = last.running == Some(side) && reading.running == Some(side.opponent());
            let counted = match (last.moves, reading.moves) {
                (Some(before), Some(after)) => after.get(side) > before.get(side),
                _ => false,
            };
            if !(handed_over || counted) {
                continue;
            }
            *self.presses_seen.get_mut(side) += 1;
            let moves = reading.moves.map_or(*self.presses_seen.get(side), |moves| *moves.get(side));
            self.push(Body::Press(Press {
                button: button_of(side),
                result: PressResult::Accepted,
                bounces: 0,
                moves,
                remaining_us: *reading.remaining_us.get(side),
                handled_at_us: self.now_us,
                edge_hw_counter: 0,
            }));
        }
    }

    fn note_flags(&mut self, last: &Observed, reading: &Observed) {
        for side in Side::BOTH {
            if *reading.flag.get(side) && !*last.flag.get(side) {
                self.flags_seen += 1;
                let moves = reading.moves.map_or(*self.presses_seen.get(side), |moves| *moves.get(side));
                self.push(Body::Flag(Flag {
                    side: contract_side(side),
                    period: 0,
                    sequence: self.flags_seen,
                    observed_at_us: self.now_us,
                    moves,
                }));
            }
        }
    }

    fn snapshot(&self, reading: &Observed) -> Snapshot {
        let moves = reading.moves.unwrap_or(self.presses_seen);
        let phase = match reading.running {
            Some(_) => Phase::Running,
            None if reading.flag.white || reading.flag.black => Phase::Finished,
            None => Phase::NotStarted,
        };
        Snapshot {
            phase,
            side: reading.running.map(contract_side),
            remaining_white_us: reading.remaining_us.white,
            remaining_black_us: reading.remaining_us.black,
            moves_white: moves.white,
            moves_black: moves.black,
            delay_us: 0,
            period_white: 0,
            period_black: 0,
            flag_white: reading.flag.white,
            flag_black: reading.flag.black,
        }
    }

    fn push(&mut self, body: Body) {
        let seq = u32::try_from(self.records.len()).unwrap_or(u32::MAX);
        self.records.push(Record { seq, dropped: 0, at_us: self.now_us, body });
    }
}

/// The Ack an instrumented firmware would have sent for the `commands`-th
/// line, `command`, accepted.
fn accepted(command: CommandCode, commands: u32, initial_us: u64) -> Body {
    Body::Ack(Ack {
        command,
        status: AckStatus::Ok,
        error_position: 0,
        commands,
        initial_us,
        final_period: 0,
        side: None,
    })
}

fn button_of(side: Side) -> Button {
    match side {
        Side::White => Button::White,
        Side::Black => Button::Black,
    }
}

fn contract_side(side: Side) -> bench_contract::Side {
    match side {
        Side::White => bench_contract::Side::White,
        Side::Black => bench_contract::Side::Black,
    }
}
