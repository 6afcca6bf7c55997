//! The players and the board: arrivals (6.6, 6.7), thinking, moves,
//! presses with their input defects, and noticing a wrong clock.

use chessclock::laws::rule_on_absence;
use chessclock::{BySide, Duration, Instant, Outcome, Side};

use super::{EndedBy, Event, Game, Input, IntoInstant};
use crate::defects::Struck;
use crate::oracle::Op;
use crate::outcome::{GameResult, Reason};
use crate::player::{self, occasional_us};
use crate::sample;

/// How long a player takes to see that the clock did not do what the press
/// should have made it do, and to press again.
const ATTENTION_MIN_US: u64 = 300_000;
const ATTENTION_MAX_US: u64 = 1_500_000;
/// A double press: the second edge this long after the first.
const DOUBLE_PRESS_MIN_US: u64 = 40_000;
const DOUBLE_PRESS_MAX_US: u64 = 200_000;

impl Game<'_> {
    pub(super) fn arrive(&mut self, side: Side) {
        if self.over {
            return;
        }
        *self.present.get_mut(side) = true;
        self.record(format_args!("{side} arrives"));
        if self.to_move == side && !self.think_pending && self.paused_until_us.is_none() {
            self.schedule_think(side);
        }
    }

    pub(super) fn default_time_over(&mut self) {
        if self.over {
            return;
        }
        let arrived =
            BySide::new(self.present.white.then_some(Instant::EPOCH), self.present.black.then_some(Instant::EPOCH));
        let ruling = rule_on_absence(&self.scenario().rules.0, Instant::EPOCH, arrived, Instant::from_us(self.now_us));
        if ruling.outcome != Outcome::Continue {
            self.record(format_args!("absent beyond the default time: {}", super::rulings::ruling_text(ruling)));
            self.applied.push(ruling.article);
            let result = GameResult { outcome: ruling.outcome, reason: Reason::Article(ruling.article) };
            self.end_both(result, EndedBy::DefaultTime { ruling });
        }
    }

    /// The player to move starts thinking now.
    pub(super) fn schedule_think(&mut self, side: Side) {
        self.think_pending = true;
        let think_us = self.think_us(side);
        let at = self.now_us.saturating_add(think_us);
        self.queue.schedule(at.into_instant(), Event::Move(side));
    }

    pub(super) fn think_us(&mut self, side: Side) -> u64 {
        // Time trouble: the player reads the device's display.
        let shown = self.displayed(side);
        let player = *self.scenario().player(side);
        player::think_us(&player, self.players.get_mut(side), shown)
    }

    /// What `side` reads on the device display now.
    pub(super) fn displayed(&mut self, side: Side) -> Duration {
        if self.now_us < self.device.frozen_until_us {
            return *self.device.frozen_display.get(side);
        }
        let at = self.device_now();
        self.device.clock.remaining(side, at).unwrap_or(Duration::ZERO)
    }

    pub(super) fn make_move(&mut self, side: Side) {
        if self.over || self.to_move != side {
            return;
        }
        if let Some(until_us) = self.paused_until_us {
            // The clocks are stopped: the move waits until play resumes.
            self.queue.schedule(until_us.saturating_add(1_000).into_instant(), Event::Move(side));
            return;
        }
        self.think_pending = false;
        *self.moves.get_mut(side) += 1;
        let move_number = *self.moves.get(side);
        if let Some(end) = self.board.play(side, &mut self.board_stream) {
            // 5.1/5.2: the move ends the game; no press needed (6.8a).
            let ruling = end.ruling();
            self.record(format_args!("{side} move {move_number} ends the game: {end:?}"));
            self.applied.push(ruling.article);
            let result = GameResult { outcome: ruling.outcome, reason: Reason::Article(ruling.article) };
            self.end_both(result, EndedBy::Board { side, move_number, end });
            return;
        }
        self.presses += 1;
        self.record(format_args!("{side} move {move_number}, press"));
        self.sample_drift();
        self.ideal_call(Op::Press(side), |clock, at| clock.press(side, at));
        self.after_ideal_change();
        self.note_press_point();
        // The opponent is to move from the press on: a press the device
        // misses leaves it running the wrong clock.
        self.to_move = side.opponent();
        self.log_input(Input::Press { side, move_number: Some(move_number) });
        self.physical_press(side);
        let max_moves = self.scenario().board.max_moves;
        if *self.moves.get(Side::White) >= max_moves && *self.moves.get(Side::Black) >= max_moves {
            self.record(format_args!("move bound {max_moves} reached: adjudicated a draw"));
            self.end_both(GameResult { outcome: Outcome::Draw, reason: Reason::MoveBound }, EndedBy::MoveBound);
            return;
        }
        self.arbiter_after_move();
        self.device_defects_after_press();
        if self.paused_until_us.is_none() && *self.present.get(side.opponent()) {
            self.schedule_think(side.opponent());
        }
    }

    /// The player presses the button: edges reach the device, with the
    /// device's input defects.
    pub(super) fn physical_press(&mut self, side: Side) {
        if self.streams.missed_press.strikes() {
            self.defects.note(Struck::MissedPress);
            self.record(format_args!("{side} press missed by the device"));
            self.watch_if_wrong();
            return;
        }
        if self.streams.stuck_button.strikes() {
            let stuck_us = occasional_us(&mut self.streams.stuck_button.stream, self.device.config.stuck_button);
            *self.device.stuck_until_us.get_mut(side) = self.now_us.saturating_add(stuck_us);
            self.defects.note(Struck::StuckButton);
            self.queue.schedule(self.now_us.saturating_add(stuck_us).into_instant(), Event::StuckOver(side));
            self.record(format_args!("{side} button sticks for {stuck_us} us"));
        }
        let jitter = sample::between(&mut self.streams.jitter, 0, self.device.config.jitter_us);
        if jitter == 0 {
            // The edge reaches the device at once: the player who looks at
            // the display next (to think, or as it freezes) sees the press.
            self.edge(side);
        } else {
            self.queue.schedule(self.now_us.saturating_add(jitter).into_instant(), Event::Edge(side));
        }
        let streams = &mut self.streams;
        if streams.bounce.strikes() {
            self.defects.note(Struck::Bounce);
            let bounce_us = occasional_us(&mut streams.bounce.stream, self.device.config.bounce);
            self.queue.schedule(
                self.now_us.saturating_add(jitter).saturating_add(bounce_us).into_instant(),
                Event::Edge(side),
            );
        }
        if streams.double_press.strikes() {
            self.defects.note(Struck::DoublePress);
            let gap = sample::between(&mut streams.double_press.stream, DOUBLE_PRESS_MIN_US, DOUBLE_PRESS_MAX_US);
            self.queue.schedule(self.now_us.saturating_add(gap).into_instant(), Event::Edge(side));
        }
    }

    /// When the device runs a clock other than the one of the player to
    /// move (a missed or lost press, a bounce that restarted a clock, a
    /// restore from an old backup), a player notices within an attention
    /// span: a `Watch` is scheduled, one at a time. Looking is only drawn
    /// for when something is wrong, not after every move.
    pub(super) fn watch_if_wrong(&mut self) {
        if self.watch_pending || self.over {
            return;
        }
        if self.device.clock.running().is_none_or(|running| running == self.to_move) {
            return;
        }
        self.watch_pending = true;
        let attention = sample::between(&mut self.streams.attention, ATTENTION_MIN_US, ATTENTION_MAX_US);
        self.queue.schedule(self.now_us.saturating_add(attention).into_instant(), Event::Watch);
    }

    /// A player notices the device running the wrong clock and presses to
    /// put it right; a press that goes wrong again is noticed again.
    pub(super) fn watch(&mut self) {
        self.watch_pending = false;
        if self.over || self.paused_until_us.is_some() || self.device.down_until_us.is_some() {
            return;
        }
        let expected = self.to_move;
        let Some(running) = self.device.clock.running() else { return };
        if running == expected || self.corrections_left == 0 {
            return;
        }
        self.corrections_left -= 1;
        self.defects.note(Struck::Correction);
        self.record(format_args!("{running} sees their clock running on {expected}'s move and presses"));
        self.log_input(Input::Press { side: running, move_number: None });
        self.physical_press(running);
    }
}
