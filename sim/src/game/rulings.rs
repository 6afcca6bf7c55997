//! Flags and rulings: deadlines scheduled, flags noticed (6.9) and ruled
//! (6.3, 6.10, 6.12), and the end of the game on each clock.

use chessclock::laws::{rule_on_both_flags, rule_on_flag, BothFlagsFacts, FlagFacts, Observation};
use chessclock::Article;
use chessclock::{Clock, Instant, Outcome, Ruling, Side};
use chessclock_tick_model::rulings::{self, Decision, FallenFlag, Verdict};

use super::{EndedBy, Ending, Event, Game, IntoInstant, Referee, Which, DEVICE_DEADLINE, IDEAL_DEADLINE};
use crate::oracle::{Before, Call, Op, Violation};
use crate::outcome::{GameResult, Reason};
use crate::player;
use crate::timebase::TrueAt;

impl Game<'_> {
    pub(super) fn after_device_change(&mut self) {
        match self.device.clock.next_deadline() {
            Some(deadline) => {
                // The firmware sees the deadline at its first tick at or after it.
                let tick = self.device.config.tick_us.max(1);
                let device_us = deadline.at.as_us().div_ceil(tick).saturating_mul(tick);
                self.schedule_device_deadline(device_us);
            }
            None => self.queue.cancel_timer(DEVICE_DEADLINE),
        }
        self.check_flags(Which::Device);
    }

    /// Sets the device's deadline timer to the true instant its time
    /// reaches `device_us`, or, past the time base's horizon, to the instant
    /// to look again.
    pub(super) fn schedule_device_deadline(&mut self, device_us: u64) {
        let (true_us, event) = match self.device.time_base.true_at(device_us) {
            TrueAt::Exactly(true_us) => (true_us, Event::DeviceDeadline),
            TrueAt::Later(true_us) => (true_us, Event::DeviceHorizon(device_us)),
        };
        self.queue.set_timer(DEVICE_DEADLINE, true_us.max(self.now_us).into_instant(), event);
    }

    pub(super) fn after_ideal_change(&mut self) {
        match self.ideal.clock.next_deadline() {
            Some(deadline) => self.queue.set_timer(IDEAL_DEADLINE, deadline.at, Event::IdealDeadline),
            None => self.queue.cancel_timer(IDEAL_DEADLINE),
        }
        self.check_flags(Which::Ideal);
    }

    pub(super) fn schedule_deadlines(&mut self) {
        self.after_device_change();
        self.after_ideal_change();
    }

    pub(super) fn clock(&self, which: Which) -> &Clock {
        match which {
            Which::Device => &self.device.clock,
            Which::Ideal => &self.ideal.clock,
        }
    }

    pub(super) fn referee(&mut self, which: Which) -> &mut Referee {
        match which {
            Which::Device => &mut self.referees.device,
            Which::Ideal => &mut self.referees.ideal,
        }
    }

    /// Unruled flags shown by `which`'s clock, White's first.
    pub(super) fn unruled_flags(&self, which: Which) -> Vec<chessclock::FlagFall> {
        let clock = self.clock(which);
        let referee = match which {
            Which::Device => &self.referees.device,
            Which::Ideal => &self.referees.ideal,
        };
        let carried = |flag: &chessclock::FlagFall| {
            *referee.final_flag_carried.get(flag.side) && clock.control().is_final_period(flag.period)
        };
        Side::BOTH
            .into_iter()
            .filter_map(|side| clock.flag(side))
            .filter(|flag| !referee.ruled.contains(flag) && !carried(flag))
            .collect()
    }

    /// A new flag on `which`'s clock: schedule its notice (6.9).
    pub(super) fn check_flags(&mut self, which: Which) {
        if self.referee(which).result.is_some() || self.referee(which).notice_pending {
            return;
        }
        let clock = self.clock(which);
        if clock.flag(Side::White).is_none() && clock.flag(Side::Black).is_none() {
            // The common case: no flag shown, nothing to notice.
            return;
        }
        let flags = self.unruled_flags(which);
        let both_down = flags.len() == 2;
        for flag in flags.clone() {
            if !self.notice.get(flag.side).0 && !both_down {
                self.check_unnoticed(which, flag);
            }
        }
        let noticed: Vec<_> = flags.iter().filter(|flag| self.notice.get(flag.side).0 || both_down).collect();
        let Some(first) = noticed.iter().min_by_key(|flag| flag.sequence) else { return };
        let (_, delay_us) = *self.notice.get(first.side);
        let mut at_us = self.now_us.saturating_add(delay_us);
        if which == Which::Device {
            // A frozen display hides the flag until it unfreezes.
            at_us = at_us.max(self.device.frozen_until_us);
        }
        self.referee(which).notice_pending = true;
        self.queue.schedule(at_us.into_instant(), Event::Notice { ideal: which == Which::Ideal });
    }

    pub(super) fn notice(&mut self, which: Which) {
        self.referee(which).notice_pending = false;
        self.rule_on_flags(which, false);
    }

    /// 6.11 with 6.9: an arbiter who replaces a clock looks at it, so the
    /// flags it shows are observed now, whether or not he would have
    /// noticed them otherwise. On both clocks: it is the same act in the
    /// same game. A frozen or dark (brownout) display shows no flag. The
    /// ideal clock first: a ruling that ends the game on the device closes
    /// the ideal's too.
    pub(super) fn observe_flags_before_replacing(&mut self) {
        self.rule_on_flags(Which::Ideal, true);
        // A flag due this very instant shows on the device too (the ideal
        // clock was just settled by the press; the device's timer may not
        // have fired yet).
        let deadline = self.device.clock.next_deadline();
        self.device_call(Op::Settle(deadline), |clock, at| clock.settle(at));
        if self.now_us >= self.device.frozen_until_us && self.device.down_until_us.is_none() {
            self.rule_on_flags(Which::Device, true);
        }
    }

    /// Rules on the flags `which`'s clock shows and no ruling has covered:
    /// a single flag only if the arbiter notices it (his habit) or
    /// `observed` it, both flags always.
    fn rule_on_flags(&mut self, which: Which, observed: bool) {
        if self.referee(which).result.is_some() {
            return;
        }
        let flags = self.unruled_flags(which);
        if flags.is_empty() {
            return;
        }
        let control = *self.clock(which).control();
        let clock_first = self.clock(which).first_flag();
        let facts_for = |game: &mut Game<'_>, flag: chessclock::FlagFall| {
            let moves_made = *game.moves.get(flag.side);
            player::flag_facts(&control, flag, moves_made, |side| game.can_checkmate(side))
        };
        let (ruling, second_reading): (Ruling, _) = if flags.len() == 2 {
            let in_order = match clock_first {
                Some(first) if self.scenario().arbiter.clock_shows_first_flag => {
                    let second = if first == flags[0] { flags[1] } else { flags[0] };
                    Some([facts_for(self, first), facts_for(self, second)])
                }
                Some(_) | None => None,
            };
            let in_final_period = flags.iter().all(|flag| control.is_final_period(flag.period));
            let ruling = rule_on_both_flags(&BothFlagsFacts { in_order, in_final_period, game_end: None });
            (ruling, rulings::both_flags(in_order.map(|facts| facts.map(fallen)), in_final_period))
        } else {
            let flag = flags[0];
            if !observed && !self.notice.get(flag.side).0 {
                self.check_unnoticed(which, flag);
                return;
            }
            let facts = facts_for(self, flag);
            (rule_on_flag(&facts), rulings::one_flag(&fallen(facts)))
        };
        if self.spec.model_oracle && !same_decision(ruling, second_reading) {
            let detail = format!("the laws ruled {ruling:?}, a second reading of Article 6 {second_reading:?}");
            let violation = Violation { at_us: self.now_us, clock: which.name(), check: RULING_CHECK, detail };
            self.ideal.model_violations.push(violation);
        }
        self.referee(which).ruled.extend(flags.iter().copied());
        self.record(format_args!(
            "{} flag(s) {} ruled: {}",
            which.noun(),
            flags_text(&control, &flags),
            ruling_text(ruling)
        ));
        if which == Which::Device {
            self.applied.push(ruling.article);
        }
        if ruling.outcome != Outcome::Continue {
            let result = GameResult { outcome: ruling.outcome, reason: Reason::Article(ruling.article) };
            match which {
                Which::Device => self.end_device(result, EndedBy::Flag { ruling }),
                Which::Ideal => self.referee(Which::Ideal).result = Some(result),
            }
        } else {
            // Play goes on; later flags are noticed afresh.
            self.check_flags(which);
        }
    }

    /// 6.9: a flag nobody noticed is no fact, and the laws say play goes
    /// on; the second reading must say so too. (Whether the opponent can
    /// mate does not matter then, so nothing is searched.)
    fn check_unnoticed(&mut self, which: Which, flag: chessclock::FlagFall) {
        // (Also asked where a flag is seen and not noticed, `check_flags`.)
        if !self.spec.model_oracle {
            return;
        }
        let control = *self.clock(which).control();
        let facts = FlagFacts {
            flag,
            observation: Observation::Unnoticed,
            moves_required: control.moves_required_by_end_of(flag.period),
            moves_made: *self.moves.get(flag.side),
            game_end: None,
            opponent_can_checkmate: true,
        };
        let (ruling, second_reading) = (rule_on_flag(&facts), rulings::one_flag(&fallen(facts)));
        if !same_decision(ruling, second_reading) || ruling.outcome != Outcome::Continue {
            let detail = format!("an unnoticed flag: the laws ruled {ruling:?}, a second reading {second_reading:?}");
            let violation = Violation { at_us: self.now_us, clock: which.name(), check: RULING_CHECK, detail };
            self.ideal.model_violations.push(violation);
        }
    }

    /// Whether `side` can still mate, asked once per position: the device's
    /// and the ideal clock's rulings on the same flag see the same board.
    pub(super) fn can_checkmate(&mut self, side: Side) -> bool {
        let moves = (self.moves.white, self.moves.black);
        self.mate_answers.can_checkmate(self.board.as_mut(), &mut self.mate_test_stream, side, moves)
    }

    /// The board ended the game (or the move bound, or a forfeit): the same
    /// result on both clocks, unless the ideal clock had already decided.
    pub(super) fn end_both(&mut self, result: GameResult, by: EndedBy) {
        if self.referees.ideal.result.is_none() {
            self.referees.ideal.result = Some(result);
        }
        self.end_device(result, by);
    }

    pub(super) fn end_device(&mut self, result: GameResult, by: EndedBy) {
        if self.referees.device.result.is_none() {
            self.referees.device.result = Some(result);
        }
        if !self.over {
            self.over = true;
            self.record(format_args!("game over on the device: {result}"));
            let device_at = self.device_now();
            let before = Before::of(&self.device.clock);
            match self.device.clock_mut().finish(device_at) {
                Ok(()) => {
                    self.device.oracle.check(self.now_us, &before, &self.device.clock, Op::Finish);
                    self.device.oracle.check_finished(self.now_us, &self.device.clock, device_at);
                }
                Err(error) => {
                    let detail = format!("finish at the game's end refused: {error}");
                    self.device.oracle.fail(self.now_us, "the clock stops at the game's end", detail);
                }
            }
            self.log_ending(result, by);
            // The ideal clock's pending notices of flags that fell by now
            // still count; a flag noticed later would be a different game.
            self.settle_ideal_at_end();
        }
    }

    /// The input log's ending: the device game's result, what decided it,
    /// and the flags its clock shows.
    fn log_ending(&mut self, result: GameResult, by: EndedBy) {
        if self.log.is_none() {
            return;
        }
        let clock = &self.device.clock;
        let flags = Side::BOTH.into_iter().filter_map(|side| clock.flag(side)).collect();
        let ending = Ending { at_us: self.now_us, result, by, flags };
        if let Some(log) = self.log.as_mut() {
            log.ending = Some(ending);
        }
    }

    pub(super) fn settle_ideal_at_end(&mut self) {
        if self.referees.ideal.result.is_some() {
            return;
        }
        let at = Instant::from_us(self.now_us);
        if self.ideal.clock.running().is_some() {
            let before = Before::of(&self.ideal.clock);
            let deadline = self.ideal.clock.next_deadline().filter(|deadline| deadline.at <= at);
            self.ideal.account.begin_call();
            let settled = self.ideal.clock.noting(&mut self.ideal.account).settle(at);
            let ideal = &mut self.ideal;
            ideal.oracle.check(self.now_us, &before, &ideal.clock, Op::Settle(deadline));
            ideal.oracle.check_account(self.now_us, &before, &ideal.clock, Op::Settle(deadline), &ideal.account);
            if settled.is_ok() {
                ideal.model.follow(
                    self.now_us,
                    Some(Call::Settle),
                    at,
                    &ideal.clock,
                    &ideal.account,
                    &mut ideal.model_violations,
                );
            }
        }
        let flags = self.unruled_flags(Which::Ideal);
        if flags.iter().any(|flag| self.notice.get(flag.side).0) || flags.len() == 2 {
            self.notice(Which::Ideal);
        }
        if self.referees.ideal.result.is_none() {
            self.referees.ideal.result = Some(GameResult { outcome: Outcome::Continue, reason: Reason::StillPlaying });
        }
    }
}

impl Which {
    /// The clock, as the trace names it.
    /// As a violation names the clock.
    fn name(self) -> &'static str {
        match self {
            Which::Device => "device",
            Which::Ideal => "ideal",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Which::Device => "device",
            Which::Ideal => "ideal clock",
        }
    }
}

/// Flags as the trace shows them: `White at 72708000 us in stage 1`.
/// Stages and periods count from 1, as `bench timecontrol` shows them (the
/// clock's own index counts from 0).
fn flags_text(control: &chessclock::TimeControl, flags: &[chessclock::FlagFall]) -> String {
    let each = flags
        .iter()
        .map(|flag| format!("{} at {} us {}", flag.side, flag.at.as_us(), period_text(control, flag.period)));
    each.collect::<Vec<_>>().join(", ")
}

/// Where in the control the clock's period index `period` is, in words.
fn period_text(control: &chessclock::TimeControl, period: u32) -> String {
    use chessclock::TimeControl;
    match *control {
        TimeControl::Stages(_) => format!("in stage {}", u64::from(period) + 1),
        TimeControl::Hourglass { .. } => "on the hourglass".to_string(),
        TimeControl::ByoYomi { .. } | TimeControl::Canadian { .. } if period == 0 => "in main time".to_string(),
        TimeControl::ByoYomi { periods, .. } => format!("in byo-yomi period {period} of {periods}"),
        TimeControl::Canadian { .. } => "in overtime".to_string(),
    }
}

/// A ruling as the trace shows it: `play on (6.3)`, `1/2-1/2 (6.12 b))`.
pub(super) fn ruling_text(ruling: Ruling) -> String {
    match ruling.outcome {
        Outcome::Continue => format!("play on ({})", ruling.article.number()),
        outcome => GameResult { outcome, reason: Reason::Article(ruling.article) }.to_string(),
    }
}

const RULING_CHECK: &str = "a second reading of the laws rules the same";

/// A flag's facts as the second reading takes them.
fn fallen(facts: FlagFacts) -> FallenFlag {
    FallenFlag {
        side: facts.flag.side,
        counts: match facts.observation {
            Observation::Unnoticed => false,
            Observation::ObservedByArbiter | Observation::ClaimedBy(_) => true,
        },
        moves_due: facts.moves_required,
        moves_made: facts.moves_made,
        opponent_can_mate: facts.opponent_can_checkmate,
    }
}

/// Whether the laws' ruling is the second reading's decision: the same
/// outcome, on the same article, written as the reports write it.
fn same_decision(ruling: Ruling, decision: Decision) -> bool {
    let verdict = match ruling.outcome {
        Outcome::Continue => Some(Verdict::PlayOn),
        Outcome::Win(side) => Some(Verdict::Wins(side)),
        Outcome::Draw => Some(Verdict::Drawn),
        Outcome::BothLose => None,
    };
    let article = match ruling.article {
        Article::A6_3 => "6.3",
        Article::A6_9 => "6.9",
        Article::A6_10 => "6.10",
        Article::A6_12a => "6.12 a)",
        Article::A6_12b => "6.12 b)",
        Article::A5_1 | Article::A5_2 | Article::A6_5 | Article::A6_7 => "",
    };
    // As the reports write it.
    let written = ruling.article.to_string() == format!("Art. {article}");
    verdict == Some(decision.verdict) && article == decision.article && written
}
