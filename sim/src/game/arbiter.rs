//! The arbiter: pauses (6.13), time and move-counter adjustments (6.14),
//! restoring an earlier position (6.14), clock replacement (6.11), and play
//! resuming afterwards.

use chessclock::{BySide, Duration, Instant, Side, TimeAdjustment};

use super::{Act, Event, Game, Input, IntoInstant, PressPoint, ScriptedAct, DEVICE_DEADLINE, IDEAL_DEADLINE};
use crate::defects::Struck;
use crate::oracle::{Call, Op};
use crate::player::occasional_us;
use crate::sample::{self, Ratio};

impl Game<'_> {
    /// The arbiter's acts after a press: the script's for this move, or
    /// drawn from his habits; written to the script being kept.
    pub(super) fn arbiter_after_move(&mut self) {
        let acts: Vec<ScriptedAct> = match self.spec.script {
            Some(script) => {
                let scripted = self.script_next.checked_sub(1).and_then(|index| script.moves.get(index));
                scripted.map(|scripted| scripted.arbiter.clone()).unwrap_or_default()
            }
            // Once the press has reached both clocks, like every arbiter
            // setting: at the press itself the device would still be running
            // the mover's clock and the ideal one the opponent's, and one
            // adjustment or replacement would land on different displays.
            // 6.8a: the move is complete once the press reaches the clock;
            // the arbiter corrects the counter after that.
            None => {
                let at_us = self.after_press_landed();
                self.drawn_acts().map(|act| ScriptedAct { at_us, act }).collect()
            }
        };
        for scripted in acts {
            if let Some(written) = self.script_out.as_mut().and_then(|script| script.moves.last_mut()) {
                written.arbiter.push(scripted);
            }
            self.queue.schedule(scripted.at_us.max(self.now_us).into_instant(), act_event(scripted.act));
        }
    }

    /// The acts the arbiter's habits strike with after this press, in the
    /// order they are drawn.
    fn drawn_acts(&mut self) -> impl Iterator<Item = Act> {
        let arbiter = self.arbiter;
        let mut acts = [None; 5];
        if self.streams.pause.strikes() {
            let pause_us = occasional_us(&mut self.streams.pause.stream, arbiter.pause) / 1_000 * 1_000;
            acts[0] = Some(Act::Pause { pause_us });
        }
        if self.streams.adjust.strikes() {
            let side = if sample::chance(&mut self.streams.adjust.stream, Ratio { numerator: 1, denominator: 2 }) {
                Side::White
            } else {
                Side::Black
            };
            let amount =
                Duration::from_us(occasional_us(&mut self.streams.adjust.stream, arbiter.adjust) / 1_000 * 1_000);
            let add = sample::chance(&mut self.streams.adjust.stream, Ratio { numerator: 1, denominator: 2 });
            let adjustment = if add { TimeAdjustment::Add(amount) } else { TimeAdjustment::Subtract(amount) };
            acts[1] = Some(Act::Adjust { side, adjustment });
        }
        if self.streams.set_moves.strikes() {
            acts[2] = Some(Act::SetMoves);
        }
        if self.streams.restore.strikes() {
            acts[3] = Some(Act::Restore);
        }
        if self.streams.replace_clock.strikes() && self.paused_until_us.is_none() {
            acts[4] = Some(Act::Replace);
        }
        acts.into_iter().flatten()
    }

    /// 6.11: the arbiter replaces the device with a clock showing his best
    /// judgement of the times (the ideal clock's). Not while the clocks are
    /// stopped.
    pub(super) fn replace_clock(&mut self) {
        if self.over || self.paused_until_us.is_some() {
            return;
        }
        self.observe_flags_before_replacing();
        if self.over {
            return;
        }
        self.defects.note(Struck::Replacement);
        self.replace_device_clock();
        self.record(format_args!("arbiter replaces the clock (6.11)"));
        self.after_device_change();
        self.watch_if_wrong();
    }

    /// Just after the latest press has reached the clock (edges come at most
    /// `jitter_us` late), on the millisecond grid.
    pub(super) fn after_press_landed(&self) -> u64 {
        (self.now_us + self.device.config.jitter_us).div_ceil(1_000) * 1_000 + 1_000
    }

    /// 6.14, 13.4: the arbiter adds time to or removes it from `side`.
    pub(super) fn adjust(&mut self, side: Side, adjustment: TimeAdjustment) {
        if self.over {
            return;
        }
        self.defects.note(Struck::Adjustment);
        if matches!(adjustment, TimeAdjustment::Add(_)) {
            // Time again on that display: a flag it shows later is new.
            *self.referees.device.final_flag_carried.get_mut(side) = false;
        }
        self.log_input(Input::Adjust { side, adjustment });
        self.device_call(Op::Arbiter, |clock, at| clock.adjust_time(side, adjustment, at));
        self.ideal_call_as(Op::Arbiter, Some(Call::Adjust(side, adjustment)), |clock, at| {
            clock.adjust_time(side, adjustment, at)
        });
        let (sign, amount) = match adjustment {
            TimeAdjustment::Add(amount) => ('+', amount),
            TimeAdjustment::Subtract(amount) => ('-', amount),
        };
        self.record(format_args!("arbiter adjusts {side}: {sign}{} us (6.14, 13.4)", amount.as_us()));
        self.after_device_change();
        self.after_ideal_change();
    }

    /// 6.14: the arbiter sets the move counters to the moves on the board.
    pub(super) fn set_moves(&mut self) {
        if self.over || self.device.down_until_us.is_some() {
            return;
        }
        let moves = self.moves;
        self.log_input(Input::SetMoves { moves });
        self.set_device_moves(moves);
        self.record(format_args!("arbiter sets the move counters to {}/{} (6.14)", moves.white, moves.black));
    }

    /// 6.14: the device's counters set to `moves`, and shown as set.
    fn set_device_moves(&mut self, moves: BySide<u32>) {
        let taken = self.device_call(Op::Arbiter, |clock, at| {
            clock.set_moves(Side::White, moves.white, at)?;
            clock.set_moves(Side::Black, moves.black, at)
        });
        let shown = BySide::new(self.device.clock.moves(Side::White), self.device.clock.moves(Side::Black));
        if taken && shown != moves {
            let detail = format!("set to {}/{}, shown {}/{}", moves.white, moves.black, shown.white, shown.black);
            self.device.oracle.fail(self.now_us, "the counters show what the arbiter set", detail);
        }
    }

    /// Just after a press reached the ideal clock: the game as it is now is
    /// the newest position the arbiter may restore.
    pub(super) fn note_press_point(&mut self) {
        let at = Instant::from_us(self.now_us);
        let shown = BySide::new(
            self.ideal.clock.remaining(Side::White, at).unwrap_or(Duration::ZERO),
            self.ideal.clock.remaining(Side::Black, at).unwrap_or(Duration::ZERO),
        );
        let [_, older, newer] = self.press_points;
        self.press_points = [older, newer, Some(PressPoint { moves: self.moves, shown })];
    }

    /// 6.14: an irregularity; the arbiter restores the position of one move
    /// of each side earlier (the same player to move), sets both clocks'
    /// times to what the correct clock showed then, and their move counters
    /// to the moves of that position. Not while the clocks are stopped, the
    /// device is dark, or a flag shows (the flag's ruling comes first), and
    /// only once two presses were made since the game began or was last
    /// restored.
    pub(super) fn restore(&mut self) {
        if self.over || self.paused_until_us.is_some() || self.device.down_until_us.is_some() {
            return;
        }
        let flag_shown = Side::BOTH
            .into_iter()
            .any(|side| self.ideal.clock.flag(side).is_some() || self.device.clock.flag(side).is_some());
        let Some(point) = self.press_points[0] else { return };
        if flag_shown || !self.board.take_back() {
            return;
        }
        for side in Side::BOTH {
            let time = *point.shown.get(side);
            self.log_input(Input::SetTime { side, time });
            self.device_call(Op::Arbiter, |clock, at| clock.set_time(side, time, at));
            self.ideal_call_as(Op::Arbiter, Some(Call::SetTime(side, time)), |clock, at| {
                clock.set_time(side, time, at)
            });
        }
        let moves = point.moves;
        self.log_input(Input::SetMoves { moves });
        self.set_device_moves(moves);
        for side in Side::BOTH {
            let side_moves = *moves.get(side);
            self.ideal_call_as(Op::Arbiter, Some(Call::SetMoves(side, side_moves)), |clock, at| {
                clock.set_moves(side, side_moves, at)
            });
        }
        self.moves = moves;
        self.press_points = [None, None, Some(point)];
        self.record(format_args!(
            "arbiter restores the position after {}/{} moves and sets the clocks to {}/{} us (6.14)",
            moves.white,
            moves.black,
            point.shown.white.as_us(),
            point.shown.black.as_us()
        ));
        self.after_device_change();
        self.after_ideal_change();
        self.watch_if_wrong();
    }

    /// 6.13: the arbiter stops both clocks for `pause_us`.
    pub(super) fn pause(&mut self, pause_us: u64) {
        if self.over || self.paused_until_us.is_some() || self.device.down_until_us.is_some() {
            return;
        }
        self.defects.note(Struck::Pause);
        self.paused_until_us = Some(self.now_us.saturating_add(pause_us));
        self.log_input(Input::Pause);
        self.device_call(Op::Pause, |clock, at| clock.pause(at));
        self.ideal_call(Op::Pause, |clock, at| clock.pause(at));
        self.queue.cancel_timer(DEVICE_DEADLINE);
        self.queue.cancel_timer(IDEAL_DEADLINE);
        self.queue.schedule(self.now_us.saturating_add(pause_us).into_instant(), Event::PauseOver);
        self.record(format_args!("arbiter pauses the clocks for {pause_us} us (6.13)"));
    }

    pub(super) fn pause_over(&mut self) {
        self.paused_until_us = None;
        if self.over {
            return;
        }
        self.log_input(Input::Resume);
        self.device_call(Op::Resume, |clock, at| clock.resume(at));
        self.ideal_call(Op::Resume, |clock, at| clock.resume(at));
        self.record(format_args!("arbiter resumes the clocks"));
        self.after_device_change();
        self.after_ideal_change();
        self.resume_play();
    }

    /// After the clocks were stopped: the player to move thinks, and the
    /// players look at the clock again.
    pub(super) fn resume_play(&mut self) {
        if *self.present.get(self.to_move) && !self.think_pending {
            self.schedule_think(self.to_move);
        }
        self.watch_if_wrong();
    }
}

/// The event that carries out `act`.
fn act_event(act: Act) -> Event {
    match act {
        Act::Pause { pause_us } => Event::Pause(pause_us),
        Act::Adjust { side, adjustment } => Event::Adjust(side, adjustment),
        Act::SetMoves => Event::SetMoves,
        Act::Restore => Event::Restore,
        Act::Replace => Event::Replace,
    }
}
