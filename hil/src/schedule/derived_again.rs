//! The derivation schedules had before they were taken from `bench sim`'s
//! logged game: a second game engine, kept only to show that the switch
//! changed no schedule (`the_logged_game_gives_the_old_schedules`). Delete
//! with that test once the fixture it pins is the reference.

use bench_sim::board;
use bench_sim::outcome::{GameResult, Reason};
use bench_sim::player::{self, MateAnswers};
use bench_sim::rng::{Actor, Stream};
use bench_sim::sample;
use bench_sim::scenario::Scenario;
use chessclock::laws::{rule_on_absence, rule_on_both_flags, rule_on_flag, BothFlagsFacts, FlagFacts};
use chessclock::{BySide, Clock, FlagFall, Instant, Outcome, Side};

use super::{draw_bounce, Schedule, ScheduleEnd, ScheduledPress, HOLD_MAX_US, HOLD_MIN_US};
use crate::target::ButtonId;

/// The model clock refused a call (a bug, or a control the core cannot run).
type ScheduleError = String;

/// What happens next in the schedule's game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Next {
    /// A model transition (flag, delay end, period): settles the clock.
    Deadline,
    /// 6.7: the default time is over; a player still absent loses.
    DefaultTime,
    /// The pending flag notice.
    Notice,
    /// The mover finishes thinking.
    Move,
}

struct Builder<'a> {
    scenario: &'a Scenario,
    shows_flag_order: bool,
    clock: Clock,
    players: BySide<Stream>,
    board_stream: Stream,
    mate_test_stream: Stream,
    hold_stream: Stream,
    bounce_stream: Stream,
    board: Box<dyn board::Board>,
    /// "Can this side still mate", asked once per position, as the simulator does.
    mate_answers: MateAnswers,
    notice: BySide<(bool, u64)>,
    /// Flag sequence numbers already ruled on.
    ruled: Vec<u32>,
    notice_at: Option<u64>,
    presses: Vec<ScheduledPress>,
    moves: BySide<u32>,
}

/// The schedule as the old derivation makes it.
pub(super) fn schedule_on(
    scenario: &Scenario,
    seed: u64,
    game: u64,
    shows_flag_order: bool,
) -> Result<Schedule, ScheduleError> {
    if scenario.correspondence.is_some() {
        return Err(format!("{} is a correspondence scenario", scenario.name));
    }
    let stream = |actor| Stream::new(seed, game, actor);
    let notice = player::flag_notices(&scenario.arbiter, &mut stream(Actor::Arbiter));
    let mut builder = Builder {
        scenario,
        shows_flag_order,
        clock: Clock::new(scenario.control.control),
        players: BySide::new(stream(Actor::White), stream(Actor::Black)),
        board_stream: stream(Actor::Board),
        mate_test_stream: stream(Actor::MateTest),
        hold_stream: stream(Actor::Device),
        bounce_stream: stream(Actor::Bounce),
        board: board::for_scenario(scenario),
        mate_answers: MateAnswers::default(),
        notice,
        ruled: Vec::new(),
        notice_at: None,
        presses: Vec::new(),
        moves: BySide::both(0),
    };
    let (end_us, end, result) = builder.play()?;
    let flags = Side::BOTH.into_iter().filter_map(|side| builder.clock.flag(side)).collect();
    Ok(Schedule {
        scenario: scenario.name.clone(),
        control_text: scenario.control.text.clone(),
        seed,
        game,
        presses: builder.presses,
        end_us,
        end,
        result,
        flags,
        moves: builder.moves,
    })
}

/// The contact bounce of one press: with the scenario's `device.bounce`
/// chance ([`BOUNCE_CHANCE_DEFAULT`] when it has none), 1 to

impl Builder<'_> {
    fn call(
        &mut self,
        at_us: u64,
        call: impl FnOnce(&mut Clock) -> Result<(), chessclock::ClockError>,
    ) -> Result<(), ScheduleError> {
        call(&mut self.clock).map_err(|error| format!("the model clock refused a call at {at_us} us: {error}"))
    }

    fn play(&mut self) -> Result<(u64, ScheduleEnd, GameResult), ScheduleError> {
        let scenario = self.scenario;
        self.call(0, |clock| clock.start(Instant::EPOCH))?;
        // A first stage with no time flags as the clock starts: its notice
        // runs from now, as in the simulator, which checks for flags after
        // every change of the clock.
        self.check_flags(0);
        let rules = scenario.rules.0;
        let arrival_us = BySide::new(
            scenario.player(Side::White).arrival_ms.saturating_mul(1_000),
            scenario.player(Side::Black).arrival_ms.saturating_mul(1_000),
        );
        // 6.7: the simulator checks for absent players at default time + 1 µs.
        let default_over_us = rules.default_time.as_us().saturating_add(1);
        let mut default_check = Side::BOTH
            .into_iter()
            .any(|side| *arrival_us.get(side) > rules.default_time.as_us())
            .then_some(default_over_us);
        let mut to_move = Side::White;
        let mut think_from = 0u64;
        let mut move_at: Option<u64> = None;
        // Every turn settles a transition, rules, or makes a move, so this
        // bound (the simulator's event bound) is never reached by a game
        // that ends by the move bound.
        let bound = u64::from(scenario.board.max_moves).saturating_mul(64).saturating_add(1_024);
        for _ in 0..bound {
            if move_at.is_none() {
                let start = think_from.max(*arrival_us.get(to_move));
                let think = self.think_us(to_move, start)?;
                move_at = Some(start.saturating_add(think));
            }
            let deadline_us = self.clock.next_deadline().map(|deadline| deadline.at.as_us());
            let candidates = [
                deadline_us.map(|at| (at, Next::Deadline)),
                default_check.map(|at| (at, Next::DefaultTime)),
                self.notice_at.map(|at| (at, Next::Notice)),
                move_at.map(|at| (at, Next::Move)),
            ];
            let Some((at_us, next)) = candidates.into_iter().flatten().min() else { break };
            match next {
                Next::Deadline => {
                    self.call(at_us, |clock| clock.settle(Instant::from_us(at_us)))?;
                    self.check_flags(at_us);
                }
                Next::DefaultTime => {
                    default_check = None;
                    let arrival = |side| (*arrival_us.get(side) <= at_us).then_some(Instant::EPOCH);
                    let arrived = BySide::new(arrival(Side::White), arrival(Side::Black));
                    let ruling = rule_on_absence(&rules, Instant::EPOCH, arrived, Instant::from_us(at_us));
                    if ruling.outcome != Outcome::Continue {
                        let result = GameResult { outcome: ruling.outcome, reason: Reason::Article(ruling.article) };
                        return Ok((at_us, ScheduleEnd::DefaultTime { ruling }, result));
                    }
                }
                Next::Notice => {
                    self.notice_at = None;
                    if let Some(ruling) = self.rule(at_us)? {
                        let result = GameResult { outcome: ruling.outcome, reason: Reason::Article(ruling.article) };
                        return Ok((at_us, ScheduleEnd::Flag { ruling }, result));
                    }
                }
                Next::Move => {
                    move_at = None;
                    let side = to_move;
                    let move_number = self.moves.get(side).saturating_add(1);
                    if let Some(end) = self.board.play(side, &mut self.board_stream) {
                        let ruling = end.ruling();
                        let result = GameResult { outcome: ruling.outcome, reason: Reason::Article(ruling.article) };
                        return Ok((at_us, ScheduleEnd::Board { side, move_number, end }, result));
                    }
                    self.call(at_us, |clock| clock.press(side, Instant::from_us(at_us)))?;
                    // A stage with no time flags the moment the press starts its clock.
                    self.check_flags(at_us);
                    *self.moves.get_mut(side) = move_number;
                    let hold_us = sample::between(&mut self.hold_stream, HOLD_MIN_US, HOLD_MAX_US);
                    let button = match side {
                        Side::White => ButtonId::White,
                        Side::Black => ButtonId::Black,
                    };
                    let bounce = draw_bounce(&mut self.bounce_stream, scenario.device.bounce);
                    self.presses.push(ScheduledPress { offset_us: at_us, side, button, move_number, hold_us, bounce });
                    let max_moves = scenario.board.max_moves;
                    if *self.moves.get(Side::White) >= max_moves && *self.moves.get(Side::Black) >= max_moves {
                        let result = GameResult { outcome: Outcome::Draw, reason: Reason::MoveBound };
                        return Ok((at_us, ScheduleEnd::MoveBound, result));
                    }
                    to_move = side.opponent();
                    think_from = at_us;
                }
            }
        }
        let at_us = self.presses.last().map_or(0, |press| press.offset_us);
        Ok((at_us, ScheduleEnd::MoveBound, GameResult { outcome: Outcome::Draw, reason: Reason::MoveBound }))
    }

    /// The simulator's think time for `side`, starting to think at `at_us`.
    fn think_us(&mut self, side: Side, at_us: u64) -> Result<u64, ScheduleError> {
        let player = *self.scenario.player(side);
        let shown = self
            .clock
            .remaining(side, Instant::from_us(at_us))
            .map_err(|error| format!("the model clock refused a call at {at_us} us: {error}"))?;
        Ok(bench_sim::player::think_us(&player, self.players.get_mut(side), shown))
    }

    fn unruled_flags(&self) -> Vec<FlagFall> {
        Side::BOTH
            .into_iter()
            .filter_map(|side| self.clock.flag(side))
            .filter(|flag| !self.ruled.contains(&flag.sequence))
            .collect()
    }

    /// A transition at `at_us`: a new flag gets its notice scheduled (6.9).
    fn check_flags(&mut self, at_us: u64) {
        if self.notice_at.is_some() {
            return;
        }
        let flags = self.unruled_flags();
        let both_down = flags.len() == 2;
        let first = flags
            .iter()
            .filter(|flag| self.notice.get(flag.side).0 || both_down)
            .min_by_key(|flag| flag.sequence)
            .copied();
        if let Some(first) = first {
            self.notice_at = Some(at_us.saturating_add(self.notice.get(first.side).1));
        }
    }

    /// The arbiter rules on the unruled flags at `at_us`; `Some` when the
    /// game is over.
    fn rule(&mut self, at_us: u64) -> Result<Option<chessclock::Ruling>, ScheduleError> {
        self.call(at_us, |clock| clock.settle(Instant::from_us(at_us)))?;
        let flags = self.unruled_flags();
        let Some(&single) = flags.first() else { return Ok(None) };
        let control = *self.clock.control();
        let ruling = if flags.len() == 2 {
            let in_order = match (self.shows_flag_order, self.clock.first_flag()) {
                (true, Some(first)) => {
                    let second = if first == flags[0] { flags[1] } else { flags[0] };
                    Some([self.facts(first), self.facts(second)])
                }
                _ => None,
            };
            let in_final_period = flags.iter().all(|flag| control.is_final_period(flag.period));
            rule_on_both_flags(&BothFlagsFacts { in_order, in_final_period, game_end: None })
        } else {
            if !self.notice.get(single.side).0 {
                return Ok(None);
            }
            rule_on_flag(&self.facts(single))
        };
        self.ruled.extend(flags.iter().map(|flag| flag.sequence));
        if ruling.outcome != Outcome::Continue {
            return Ok(Some(ruling));
        }
        self.check_flags(at_us);
        Ok(None)
    }

    fn can_checkmate(&mut self, side: Side) -> bool {
        let moves = (self.moves.white, self.moves.black);
        self.mate_answers.can_checkmate(self.board.as_mut(), &mut self.mate_test_stream, side, moves)
    }

    fn facts(&mut self, flag: FlagFall) -> FlagFacts {
        let control = *self.clock.control();
        let moves_made = *self.moves.get(flag.side);
        player::flag_facts(&control, flag, moves_made, |side| self.can_checkmate(side))
    }
}
