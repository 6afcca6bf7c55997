//! The players and the board: arrivals (6.6, 6.7), thinking, moves,
//! presses with their input defects, and noticing a wrong clock.

use chessclock::laws::rule_on_absence;
use chessclock::{BySide, Duration, Instant, Outcome, Side};

use super::{EndedBy, Event, Fault, Game, Input, IntoInstant, PressFault, ScriptedMove};
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
    /// With a script, its next move's instant; a script that has run out
    /// leaves the player thinking for good.
    pub(super) fn schedule_think(&mut self, side: Side) {
        self.think_pending = true;
        let at = match self.spec.script {
            Some(script) => {
                let Some(scripted) = script.moves.get(self.script_next) else { return };
                self.script_next += 1;
                scripted.at_us.max(self.now_us)
            }
            None => {
                let think_us = self.think_us(side);
                self.now_us.saturating_add(think_us)
            }
        };
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
        if let Some(script) = self.script_out.as_mut() {
            script.moves.push(ScriptedMove { at_us: self.now_us, ..ScriptedMove::default() });
        }
        // The scripted move this is: the one its think was scheduled from.
        self.script_current = self.script_next.checked_sub(1);
        self.press_in_move = 0;
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
        let fate = self.press_fate();
        if fate.missed {
            self.defects.note(Struck::MissedPress);
            self.record(format_args!("{side} press missed by the device"));
            self.watch_if_wrong();
            return;
        }
        if let Some(stuck_us) = fate.stuck_us {
            *self.device.stuck_until_us.get_mut(side) = self.now_us.saturating_add(stuck_us);
            self.defects.note(Struck::StuckButton);
            self.queue.schedule(self.now_us.saturating_add(stuck_us).into_instant(), Event::StuckOver(side));
            self.record(format_args!("{side} button sticks for {stuck_us} us"));
        }
        let jitter = fate.jitter_us;
        if jitter == 0 {
            // The edge reaches the device at once: the player who looks at
            // the display next (to think, or as it freezes) sees the press.
            self.edge(side);
        } else {
            self.queue.schedule(self.now_us.saturating_add(jitter).into_instant(), Event::Edge(side));
        }
        if let Some(bounce_us) = fate.bounce_us {
            self.defects.note(Struck::Bounce);
            self.queue.schedule(
                self.now_us.saturating_add(jitter).saturating_add(bounce_us).into_instant(),
                Event::Edge(side),
            );
        }
        if let Some(gap) = fate.double_gap_us {
            self.defects.note(Struck::DoublePress);
            self.queue.schedule(self.now_us.saturating_add(gap).into_instant(), Event::Edge(side));
        }
    }

    /// What the device's input defects do to this press: the script's
    /// faults for it, or drawn (and written to the script being kept).
    fn press_fate(&mut self) -> PressFate {
        let press = self.press_in_move;
        self.press_in_move = self.press_in_move.saturating_add(1);
        let fate = match self.spec.script {
            Some(_) => {
                let mut fate = PressFate::default();
                for fault in self.scripted_faults() {
                    match fault {
                        Fault::Press { press: struck, fault } if struck == press => fate.add(fault),
                        _ => {}
                    }
                }
                fate
            }
            None => self.drawn_press_fate(),
        };
        if let Some(scripted) = self.script_out.as_mut().and_then(|script| script.moves.last_mut()) {
            scripted.faults.extend(fate.faults().map(|fault| Fault::Press { press, fault }));
        }
        fate
    }

    /// The input defects' draws for one press, in their order: a missed
    /// press draws nothing more.
    fn drawn_press_fate(&mut self) -> PressFate {
        let mut fate = PressFate::default();
        if self.streams.missed_press.strikes() {
            fate.missed = true;
            return fate;
        }
        if self.streams.stuck_button.strikes() {
            fate.stuck_us = Some(occasional_us(&mut self.streams.stuck_button.stream, self.device.config.stuck_button));
        }
        fate.jitter_us = sample::between(&mut self.streams.jitter, 0, self.device.config.jitter_us);
        let streams = &mut self.streams;
        if streams.bounce.strikes() {
            fate.bounce_us = Some(occasional_us(&mut streams.bounce.stream, self.device.config.bounce));
        }
        if streams.double_press.strikes() {
            fate.double_gap_us =
                Some(sample::between(&mut streams.double_press.stream, DOUBLE_PRESS_MIN_US, DOUBLE_PRESS_MAX_US));
        }
        fate
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

/// What the device's input defects do to one press.
#[derive(Clone, Copy, Debug, Default)]
struct PressFate {
    missed: bool,
    stuck_us: Option<u64>,
    jitter_us: u64,
    bounce_us: Option<u64>,
    double_gap_us: Option<u64>,
}

impl PressFate {
    fn add(&mut self, fault: PressFault) {
        match fault {
            PressFault::Missed => self.missed = true,
            PressFault::Stuck { stuck_us } => self.stuck_us = Some(stuck_us),
            PressFault::Jitter { jitter_us } => self.jitter_us = jitter_us,
            PressFault::Bounce { bounce_us } => self.bounce_us = Some(bounce_us),
            PressFault::Double { gap_us } => self.double_gap_us = Some(gap_us),
        }
    }

    /// The faults it holds; a clean press has none.
    fn faults(self) -> impl Iterator<Item = PressFault> {
        [
            self.missed.then_some(PressFault::Missed),
            self.stuck_us.map(|stuck_us| PressFault::Stuck { stuck_us }),
            (self.jitter_us > 0).then_some(PressFault::Jitter { jitter_us: self.jitter_us }),
            self.bounce_us.map(|bounce_us| PressFault::Bounce { bounce_us }),
            self.double_gap_us.map(|gap_us| PressFault::Double { gap_us }),
        ]
        .into_iter()
        .flatten()
    }
}
