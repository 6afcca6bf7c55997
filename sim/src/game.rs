//! One simulated game: players on a board, a defective clock device, and a
//! perfect ideal clock, driven by one event queue in true time.
//!
//! ```text
//!   players ──think──▶ board move ──press──▶ button edges ──▶ device (clock core on drifting time)
//!                                    └──────────────────────▶ ideal  (clock core on true time)
//!   arbiter: notices flags (6.9), rules (laws), pauses / adjusts / replaces (6.11, 6.13, 6.14)
//! ```
//!
//! The game is what happens on the device: players look at its display and
//! the arbiter rules on its flags. The ideal clock gets the same presses at
//! their true instants; its result is what a perfect clock would have given.
//!
//! Ordering rule for same-instant events: the order they were scheduled in
//! (the event queue's sequence number). All time is integer microseconds.

use std::fmt::Write as _;

use chessclock::laws::{rule_on_absence, rule_on_both_flags, rule_on_flag, BothFlagsFacts};
use chessclock::{Article, BySide, Clock, Duration, Instant, Outcome, Replacement, Ruling, Side, TimeAdjustment};

use crate::board::{self, Board};
use crate::oracle::{Before, ClockOracle, Op, TickOracle, Violation};
use crate::outcome::{GameResult, Reason};
use crate::player::{self, occasional_us, MateAnswers};
use crate::queue::EventQueue;
use crate::rng::{Actor, Stream};
use crate::sample::{self, Ratio, Trials};
use crate::scenario::{Arbiter, Device, Occasional, Restore, Scenario};
use crate::shrink::DefectSet;
use crate::timebase::TimeBase;

/// How long a player takes to see that the clock did not do what the press
/// should have made it do, and to press again.
const ATTENTION_MIN_US: u64 = 300_000;
const ATTENTION_MAX_US: u64 = 1_500_000;
/// A double press: the second edge this long after the first.
const DOUBLE_PRESS_MIN_US: u64 = 40_000;
const DOUBLE_PRESS_MAX_US: u64 = 200_000;
/// A brownout reboot takes this long; a lost clock takes the arbiter longer.
const REBOOT_MIN_US: u64 = 200_000;
const REBOOT_MAX_US: u64 = 2_000_000;
const REPAIR_MIN_US: u64 = 30_000_000;
const REPAIR_MAX_US: u64 = 120_000_000;
/// Extra presses to put the clock right, per move: bounds a game's events.
const CORRECTIONS_PER_MOVE_MAX: u64 = 8;
/// The event queue's timer slots: each clock's next deadline.
const DEVICE_DEADLINE: usize = 0;
const IDEAL_DEADLINE: usize = 1;
/// Drift samples kept per game for the report (evenly thinned).
pub const DRIFT_SAMPLES_MAX: usize = 256;

/// What the simulation is asked to do with one game.
#[derive(Clone, Copy, Debug)]
pub struct GameSpec<'a> {
    pub scenario: &'a Scenario,
    pub seed: u64,
    pub game: u64,
    /// Swarm mode: this game's defect mix is drawn from the seed.
    pub swarm: bool,
    /// Keep the trace lines (the hash is always computed).
    pub trace: bool,
    /// Shadow the ideal clock with the tick model.
    pub tick_oracle: bool,
    /// Defects switched off (shrinking, replays of shrunk games).
    pub disabled: DefectSet,
}

/// Counts of the defects that struck a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DefectCounts {
    pub missed_presses: u64,
    pub double_presses: u64,
    pub bounces: u64,
    pub stuck_buttons: u64,
    pub brownouts: u64,
    pub display_freezes: u64,
    pub corrections: u64,
    pub pauses: u64,
    pub adjustments: u64,
    pub replacements: u64,
}

/// A device-minus-ideal sample for the drift plots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriftSample {
    pub true_us: u64,
    /// Device time minus true time.
    pub clock_offset_us: i64,
    /// Device display minus ideal display, per side.
    pub remaining_error_us: BySide<i64>,
}

/// Everything one game produced.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub game: u64,
    pub device: GameResult,
    pub ideal: GameResult,
    /// Articles applied on the device game, in order (final ruling included).
    pub applied: Vec<Article>,
    /// Correspondence articles applied (postal games).
    pub applied_correspondence: Vec<chessclock::correspondence::CorrespondenceArticle>,
    pub moves: BySide<u32>,
    pub presses: u64,
    pub events: u64,
    pub end_us: u64,
    /// Largest |device − ideal| display difference at a press.
    pub max_time_error_us: u64,
    pub drift: Vec<DriftSample>,
    pub defects: DefectCounts,
    pub violations: Vec<Violation>,
    /// FNV-1a over the handled events' words (instant, kind, payload): equal hashes, equal games.
    pub trace_hash: u64,
    pub trace: Option<Vec<String>>,
    /// The defect mix this game ran with (swarm mode draws it).
    pub device_config: Device,
}

impl GameRecord {
    pub fn agrees(&self) -> bool {
        self.device == self.ideal
    }

    pub fn failed(&self) -> bool {
        !self.violations.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// A player reaches the board (6.6, 6.7).
    Arrive(Side),
    /// 6.7: the default time has passed; a player still absent loses.
    DefaultTimeOver,
    /// The player to move has finished thinking: move on the board, then press.
    Move(Side),
    /// An electrical edge of a button reaches the device.
    Edge(Side),
    /// A player checks whether the device shows the right clock running.
    Watch,
    /// The device's next transition (a timer: rescheduled on every change).
    DeviceDeadline,
    IdealDeadline,
    /// A flag is noticed on one of the clocks.
    Notice {
        ideal: bool,
    },
    /// The arbiter stops the clocks for this long (6.13).
    Pause(u64),
    /// The arbiter corrects the move counters (6.14).
    SetMoves,
    PauseOver,
    Brownout,
    BrownoutOver,
    FreezeOver,
    StuckOver(Side),
}

impl Event {
    /// A stable (kind, payload) pair for the trace hash: part of the
    /// reproducibility contract, so codes are never reused.
    fn code(self) -> (u8, u64) {
        let side = |side: Side| match side {
            Side::White => 0,
            Side::Black => 1,
        };
        match self {
            Event::Arrive(who) => (1, side(who)),
            Event::DefaultTimeOver => (2, 0),
            Event::Move(who) => (3, side(who)),
            Event::Edge(who) => (4, side(who)),
            Event::Watch => (5, 0),
            Event::DeviceDeadline => (6, 0),
            Event::IdealDeadline => (7, 0),
            Event::Notice { ideal } => (8, u64::from(ideal)),
            Event::Pause(pause_us) => (9, pause_us),
            Event::SetMoves => (10, 0),
            Event::PauseOver => (11, 0),
            Event::Brownout => (12, 0),
            Event::BrownoutOver => (13, 0),
            Event::FreezeOver => (14, 0),
            Event::StuckOver(who) => (15, side(who)),
        }
    }
}

/// Which clock a flag decision is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Device,
    Ideal,
}

#[derive(Debug)]
struct DeviceState {
    config: Device,
    clock: Clock,
    time_base: TimeBase,
    /// Last accepted edge per button, device microseconds (debounce).
    last_edge_us: BySide<Option<u64>>,
    stuck_until_us: BySide<u64>,
    /// Down (brownout) until this true instant.
    down_until_us: Option<u64>,
    /// Backup of the clock taken at each accepted press.
    backup: Clock,
    frozen_until_us: u64,
    /// What the display showed when it froze.
    frozen_display: BySide<Duration>,
    oracle: ClockOracle,
}

#[derive(Debug)]
struct IdealState {
    clock: Clock,
    oracle: ClockOracle,
    tick: TickOracle,
    tick_violations: Vec<Violation>,
}

/// The game's random streams besides the players', board's and drift's:
/// one per defect and arbiter habit.
#[derive(Debug)]
struct Streams {
    attention: Stream,
    jitter: Stream,
    missed_press: Habit,
    stuck_button: Habit,
    bounce: Habit,
    double_press: Habit,
    brownout: Habit,
    display_freeze: Habit,
    pause: Habit,
    adjust: Habit,
    set_moves: Habit,
    replace_clock: Habit,
}

impl Streams {
    fn new(stream: &impl Fn(Actor) -> Stream, device: &Device, arbiter: &Arbiter) -> Streams {
        let habit = |actor, chance| Habit::new(stream(actor), chance);
        Streams {
            attention: stream(Actor::Attention),
            jitter: stream(Actor::Jitter),
            missed_press: habit(Actor::MissedPress, device.missed_press),
            stuck_button: habit(Actor::StuckButton, device.stuck_button.chance),
            bounce: habit(Actor::Bounce, device.bounce.chance),
            double_press: habit(Actor::DoublePress, device.double_press),
            brownout: habit(Actor::Brownout, device.brownout.chance),
            display_freeze: habit(Actor::DisplayFreeze, device.display_freeze.chance),
            pause: habit(Actor::Pause, arbiter.pause.chance),
            adjust: habit(Actor::Adjust, arbiter.adjust.chance),
            set_moves: habit(Actor::SetMoves, arbiter.set_moves),
            replace_clock: habit(Actor::ReplaceClock, arbiter.replace_clock),
        }
    }
}

/// A decision tried at every press (a defect striking, an arbiter stepping
/// in): its stream, and the trials drawn from it as gaps between strikes,
/// so a press costs no draw unless the decision strikes. Sizes and other
/// details of a strike are drawn from the same stream, after the next gap.
#[derive(Debug)]
struct Habit {
    stream: Stream,
    trials: Trials,
}

impl Habit {
    fn new(mut stream: Stream, chance: Ratio) -> Habit {
        let trials = Trials::new(&mut stream, chance);
        Habit { stream, trials }
    }

    /// This press's trial.
    fn strikes(&mut self) -> bool {
        self.trials.next(&mut self.stream)
    }
}

/// The arbiter's bookkeeping for each clock.
#[derive(Debug, Default)]
struct Referees {
    device: Referee,
    ideal: Referee,
}

/// Per-clock bookkeeping of flags and the result.
#[derive(Debug, Default)]
struct Referee {
    /// Flag sequence numbers already ruled on.
    ruled: Vec<u32>,
    result: Option<GameResult>,
    /// A notice is scheduled.
    notice_pending: bool,
}

struct Game<'a> {
    spec: GameSpec<'a>,
    now_us: u64,
    queue: EventQueue<Event, 2>,
    players: BySide<Stream>,
    streams: Streams,
    board_stream: Stream,
    /// Draws for "can the opponent still mate" in abstract mode, apart from
    /// the moves so a ruling on one clock never shifts the game's moves.
    mate_test_stream: Stream,
    mate_answers: MateAnswers,
    board: Box<dyn Board>,
    device: DeviceState,
    ideal: IdealState,
    referees: Referees,
    /// Player facts: arrival, moves made on the board, presses meant.
    present: BySide<bool>,
    moves: BySide<u32>,
    to_move: Side,
    /// The game (on the device) is over; ideal decisions may still be pending.
    over: bool,
    notice: BySide<(bool, u64)>,
    /// The arbiter's habits, with shrinking's switches applied.
    arbiter: Arbiter,
    applied: Vec<Article>,
    presses: u64,
    events: u64,
    corrections_left: u64,
    paused_until_us: Option<u64>,
    /// The player to move has a `Move` scheduled.
    think_pending: bool,
    /// A `Watch` is scheduled.
    watch_pending: bool,
    max_time_error_us: u64,
    drift: Vec<DriftSample>,
    defects: DefectCounts,
    trace_hash: u64,
    trace: Option<Vec<String>>,
    line: String,
}

/// Plays one game to its end.
pub fn play(spec: GameSpec<'_>) -> GameRecord {
    if let Some(postal) = &spec.scenario.correspondence {
        return crate::postal::game_record(postal, spec);
    }
    let mut game = Game::new(spec);
    game.run();
    game.finish()
}

impl<'a> Game<'a> {
    fn new(spec: GameSpec<'a>) -> Game<'a> {
        let scenario = spec.scenario;
        let stream = |actor| Stream::new(spec.seed, spec.game, actor);
        let mut swarm_stream = stream(Actor::Swarm);
        let config = if spec.swarm { swarm_device(&scenario.device, &mut swarm_stream) } else { scenario.device };
        let config = spec.disabled.apply_to_device(config);
        let arbiter = spec.disabled.apply_to_arbiter(scenario.arbiter);
        let control = scenario.control.control;
        let device_clock = Clock::new(control);
        let mut notice_stream = stream(Actor::Arbiter);
        // Whether each side's flags get noticed, and how late: drawn once so
        // that the device and the ideal clock are judged alike.
        let notice_for = |stream: &mut Stream| {
            let noticed = sample::chance(stream, scenario.arbiter.flag_noticed);
            // `notice_delay.chance`: how often a noticed flag is noticed late at all.
            let late = sample::chance(stream, scenario.arbiter.notice_delay.chance);
            let delay = occasional_us(stream, scenario.arbiter.notice_delay);
            (noticed, if late { delay } else { 0 })
        };
        let notice = BySide::new(notice_for(&mut notice_stream), notice_for(&mut notice_stream));
        let max_moves = u64::from(scenario.board.max_moves);
        Game {
            spec,
            now_us: 0,
            queue: EventQueue::new(),
            players: BySide::new(stream(Actor::White), stream(Actor::Black)),
            streams: Streams::new(&stream, &config, &arbiter),
            board_stream: stream(Actor::Board),
            mate_test_stream: stream(Actor::MateTest),
            mate_answers: MateAnswers::default(),
            board: board::for_scenario(scenario),
            device: DeviceState {
                config,
                clock: device_clock,
                time_base: TimeBase::new(config.drift_ppm, config.drift_walk_ppm, stream(Actor::Drift)),
                last_edge_us: BySide::both(None),
                stuck_until_us: BySide::both(0),
                down_until_us: None,
                backup: device_clock,
                frozen_until_us: 0,
                frozen_display: BySide::both(Duration::ZERO),
                oracle: ClockOracle::new("device"),
            },
            ideal: IdealState {
                clock: Clock::new(control),
                oracle: ClockOracle::new("ideal"),
                tick: if spec.tick_oracle { TickOracle::new(&control) } else { TickOracle::disabled() },
                tick_violations: Vec::new(),
            },
            referees: Referees::default(),
            present: BySide::both(false),
            moves: BySide::both(0),
            to_move: Side::White,
            over: false,
            notice,
            arbiter,
            applied: Vec::new(),
            presses: 0,
            events: 0,
            corrections_left: max_moves.saturating_mul(2).saturating_mul(CORRECTIONS_PER_MOVE_MAX),
            paused_until_us: None,
            think_pending: false,
            watch_pending: false,
            max_time_error_us: 0,
            drift: Vec::new(),
            defects: DefectCounts::default(),
            trace_hash: FNV_OFFSET,
            trace: spec.trace.then(Vec::new),
            line: String::new(),
        }
    }

    fn scenario(&self) -> &'a Scenario {
        self.spec.scenario
    }

    /// Adds one line to the trace when it is kept (`--trace`). The trace
    /// hash does not read these lines: it is taken over the events (see
    /// [`Game::fingerprint`]), so an untraced game formats nothing.
    fn record(&mut self, args: std::fmt::Arguments<'_>) {
        if let Some(trace) = self.trace.as_mut() {
            self.line.clear();
            let _ = write!(self.line, "{:>14} ", self.now_us);
            let _ = self.line.write_fmt(args);
            trace.push(self.line.trim_end().to_string());
        }
    }

    /// Folds one handled event into the trace hash: FNV-1a over 64-bit
    /// words (its true instant, kind and payload) rather than bytes. Every
    /// decision of the game shows up as events (their kinds and instants),
    /// so equal hashes mean equal games.
    fn fingerprint(&mut self, at_us: u64, event: Event) {
        let (kind, payload) = event.code();
        for word in [at_us, u64::from(kind), payload] {
            self.trace_hash = (self.trace_hash ^ word).wrapping_mul(FNV_PRIME);
        }
    }

    fn run(&mut self) {
        // 6.5: White's clock starts at the scheduled time, on both clocks.
        self.device_call(Op::Start, |clock, at| clock.start(at));
        self.ideal_call(Op::Start, |clock, at| clock.start(at));
        self.record(format_args!("start {}", self.scenario().control.text));
        let rules = self.scenario().rules.0;
        for side in Side::BOTH {
            let arrival_us = self.scenario().player(side).arrival_ms.saturating_mul(1_000);
            self.queue.schedule(Instant::from_us(arrival_us), Event::Arrive(side));
            if arrival_us > rules.default_time.as_us() {
                self.queue
                    .schedule(rules.default_time.as_us().saturating_add(1).into_instant(), Event::DefaultTimeOver);
            }
        }
        self.schedule_deadlines();
        let events_max = u64::from(self.scenario().board.max_moves).saturating_mul(64).saturating_add(1_024);
        while let Some((at, event)) = self.queue.pop() {
            self.now_us = at.as_us();
            self.events += 1;
            self.fingerprint(self.now_us, event);
            if self.events > events_max {
                self.record(format_args!("event bound {events_max} reached"));
                self.end_both(GameResult { outcome: Outcome::Draw, reason: Reason::MoveBound });
                break;
            }
            self.handle(event);
            if self.over && self.ideal_decided() {
                break;
            }
        }
        if self.referees.device.result.is_none() {
            self.end_both(GameResult { outcome: Outcome::Draw, reason: Reason::MoveBound });
        }
    }

    fn ideal_decided(&self) -> bool {
        self.referees.ideal.result.is_some()
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Arrive(side) => self.arrive(side),
            Event::DefaultTimeOver => self.default_time_over(),
            Event::Move(side) => self.make_move(side),
            Event::Edge(side) => self.edge(side),
            Event::Watch => self.watch(),
            Event::DeviceDeadline => {
                if self.device.down_until_us.is_none() {
                    let deadline = self.device.clock.next_deadline();
                    self.device_call(Op::Settle(deadline), |clock, at| clock.settle(at));
                    self.after_device_change();
                }
            }
            Event::IdealDeadline => {
                let deadline = self.ideal.clock.next_deadline();
                self.ideal_call(Op::Settle(deadline), |clock, at| clock.settle(at));
                self.after_ideal_change();
            }
            Event::Notice { ideal } => self.notice(if ideal { Which::Ideal } else { Which::Device }),
            Event::Pause(pause_us) => self.pause(pause_us),
            Event::SetMoves => self.set_moves(),
            Event::PauseOver => self.pause_over(),
            Event::Brownout => self.brownout(),
            Event::BrownoutOver => self.brownout_over(),
            Event::FreezeOver => self.record(format_args!("display unfreezes")),
            Event::StuckOver(side) => self.record(format_args!("{side} button released")),
        }
    }

    // ---- players and the board ----

    fn arrive(&mut self, side: Side) {
        if self.over {
            return;
        }
        *self.present.get_mut(side) = true;
        self.record(format_args!("{side} arrives"));
        if self.to_move == side && !self.think_pending && self.paused_until_us.is_none() {
            self.schedule_think(side);
        }
    }

    fn default_time_over(&mut self) {
        if self.over {
            return;
        }
        let arrived =
            BySide::new(self.present.white.then_some(Instant::EPOCH), self.present.black.then_some(Instant::EPOCH));
        let ruling = rule_on_absence(&self.scenario().rules.0, Instant::EPOCH, arrived, Instant::from_us(self.now_us));
        if ruling.outcome != Outcome::Continue {
            self.record(format_args!("absent beyond the default time: {ruling:?}"));
            self.applied.push(ruling.article);
            self.end_both(GameResult { outcome: ruling.outcome, reason: Reason::Article(ruling.article) });
        }
    }

    /// The player to move starts thinking now.
    fn schedule_think(&mut self, side: Side) {
        self.think_pending = true;
        let think_us = self.think_us(side);
        let at = self.now_us.saturating_add(think_us);
        self.queue.schedule(at.into_instant(), Event::Move(side));
    }

    fn think_us(&mut self, side: Side) -> u64 {
        // Time trouble: the player reads the device's display.
        let shown = self.displayed(side);
        let player = *self.scenario().player(side);
        player::think_us(&player, self.players.get_mut(side), shown)
    }

    /// What `side` reads on the device display now.
    fn displayed(&mut self, side: Side) -> Duration {
        if self.now_us < self.device.frozen_until_us {
            return *self.device.frozen_display.get(side);
        }
        let at = self.device_now();
        self.device.clock.remaining(side, at).unwrap_or(Duration::ZERO)
    }

    fn make_move(&mut self, side: Side) {
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
            self.end_both(GameResult { outcome: ruling.outcome, reason: Reason::Article(ruling.article) });
            return;
        }
        self.presses += 1;
        self.record(format_args!("{side} move {move_number}, press"));
        self.sample_drift();
        self.ideal_call(Op::Press(side), |clock, at| clock.press(side, at));
        self.after_ideal_change();
        // The opponent is to move from the press on: a press the device
        // misses leaves it running the wrong clock.
        self.to_move = side.opponent();
        self.physical_press(side);
        let max_moves = self.scenario().board.max_moves;
        if *self.moves.get(Side::White) >= max_moves && *self.moves.get(Side::Black) >= max_moves {
            self.record(format_args!("move bound {max_moves} reached: adjudicated a draw"));
            self.end_both(GameResult { outcome: Outcome::Draw, reason: Reason::MoveBound });
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
    fn physical_press(&mut self, side: Side) {
        if self.streams.missed_press.strikes() {
            self.defects.missed_presses += 1;
            self.record(format_args!("{side} press missed by the device"));
            self.watch_if_wrong();
            return;
        }
        if self.streams.stuck_button.strikes() {
            let stuck_us = occasional_us(&mut self.streams.stuck_button.stream, self.device.config.stuck_button);
            *self.device.stuck_until_us.get_mut(side) = self.now_us.saturating_add(stuck_us);
            self.defects.stuck_buttons += 1;
            self.queue.schedule(self.now_us.saturating_add(stuck_us).into_instant(), Event::StuckOver(side));
            self.record(format_args!("{side} button sticks for {stuck_us} us"));
        }
        let streams = &mut self.streams;
        let jitter = sample::between(&mut streams.jitter, 0, self.device.config.jitter_us);
        self.queue.schedule(self.now_us.saturating_add(jitter).into_instant(), Event::Edge(side));
        if streams.bounce.strikes() {
            self.defects.bounces += 1;
            let bounce_us = occasional_us(&mut streams.bounce.stream, self.device.config.bounce);
            self.queue.schedule(
                self.now_us.saturating_add(jitter).saturating_add(bounce_us).into_instant(),
                Event::Edge(side),
            );
        }
        if streams.double_press.strikes() {
            self.defects.double_presses += 1;
            let gap = sample::between(&mut streams.double_press.stream, DOUBLE_PRESS_MIN_US, DOUBLE_PRESS_MAX_US);
            self.queue.schedule(self.now_us.saturating_add(gap).into_instant(), Event::Edge(side));
        }
    }

    /// When the device runs a clock other than the one of the player to
    /// move (a missed or lost press, a bounce that restarted a clock, a
    /// restore from an old backup), a player notices within an attention
    /// span: a `Watch` is scheduled, one at a time. Looking is only drawn
    /// for when something is wrong, not after every move.
    fn watch_if_wrong(&mut self) {
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
    fn watch(&mut self) {
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
        self.defects.corrections += 1;
        self.record(format_args!("{running} sees their clock running on {expected}'s move and presses"));
        self.physical_press(running);
    }

    // ---- the device ----

    /// The device's own time now, at its tick resolution.
    fn device_now(&mut self) -> Instant {
        let device_us = self.device.time_base.device_at(self.now_us);
        self.device_tick_floor(device_us)
    }

    /// `device_us` down to the device's tick.
    fn device_tick_floor(&self, device_us: u64) -> Instant {
        Instant::from_us(match self.device.config.tick_us {
            // The usual millisecond tick: a division by a constant, which
            // compiles to a multiplication (a press makes several).
            1_000 => device_us / 1_000 * 1_000,
            tick => device_us / tick.max(1) * tick.max(1),
        })
    }

    fn edge(&mut self, side: Side) {
        if self.over || self.device.down_until_us.is_some() {
            return;
        }
        self.edge_reaches_device(side);
        self.watch_if_wrong();
    }

    /// The device's input handling: a stuck button, the debounce window,
    /// then the clock core's press.
    fn edge_reaches_device(&mut self, side: Side) {
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
                self.device.backup = self.device.clock;
                self.record(format_args!("device registers {side} at {} us", at.as_us()));
                self.after_device_change();
            }
            // A clock ignores a press by the side whose clock is not running.
            Err(error) => self.record(format_args!("device ignores {side}: {error}")),
        }
    }

    fn device_defects_after_press(&mut self) {
        if self.streams.brownout.strikes() {
            // Whole milliseconds keep the ideal clock on the tick model's grid.
            let after = sample::between(&mut self.streams.brownout.stream, 0, 5_000) * 1_000;
            self.queue.schedule(self.now_us.saturating_add(after).into_instant(), Event::Brownout);
        }
        if self.streams.display_freeze.strikes() && self.now_us >= self.device.frozen_until_us {
            let freeze_us = occasional_us(&mut self.streams.display_freeze.stream, self.device.config.display_freeze);
            self.defects.display_freezes += 1;
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

    fn brownout(&mut self) {
        if self.over || self.device.down_until_us.is_some() || self.paused_until_us.is_some() {
            return;
        }
        self.defects.brownouts += 1;
        let restore = self.device.config.brownout.restore;
        let (min, max) = match restore {
            Restore::Backup => (REBOOT_MIN_US, REBOOT_MAX_US),
            Restore::Lost => (REPAIR_MIN_US, REPAIR_MAX_US),
        };
        let down_us = sample::between(&mut self.streams.brownout.stream, min / 1_000, max / 1_000) * 1_000;
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

    fn brownout_over(&mut self) {
        self.device.down_until_us = None;
        if self.over {
            return;
        }
        match self.device.config.brownout.restore {
            Restore::Backup => {
                // The backup was taken at the last press; the device's time
                // base kept running, so settling charges the whole outage.
                let before = Before::of(&self.device.clock);
                self.device.clock = self.device.backup;
                let at = self.device_now();
                let _ = self.device.clock.settle(at);
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
    fn replace_device_clock(&mut self) {
        let at = self.device_now();
        let ideal_at = Instant::from_us(self.now_us);
        let ideal = self.ideal.clock;
        let shown = |side| ideal.remaining(side, ideal_at).unwrap_or(Duration::ZERO);
        let settings = Replacement {
            main: BySide::new(shown(Side::White), shown(Side::Black)),
            moves: BySide::new(ideal.moves(Side::White), ideal.moves(Side::Black)),
            period: BySide::new(ideal.period(Side::White), ideal.period(Side::Black)),
        };
        let before = Before::of(&self.device.clock);
        let mut clock = Clock::new(*ideal.control());
        let started = clock.start(at).and_then(|()| {
            if ideal.running() == Some(Side::Black) || matches!(ideal.phase(), chessclock::Phase::Paused(Side::Black)) {
                // Only the running side may press: White "presses" to hand over.
                clock.press(Side::White, at)
            } else {
                Ok(())
            }
        });
        let replaced = started.and_then(|()| clock.replace(settings, at));
        match replaced {
            Ok(()) => {
                self.device.clock = clock;
                self.device.backup = clock;
                self.device.oracle.check(self.now_us, &before, &self.device.clock, Op::Arbiter);
            }
            Err(error) => self.record(format_args!("replacement clock refused the settings: {error}")),
        }
    }

    // ---- the arbiter ----

    fn arbiter_after_move(&mut self) {
        let arbiter = self.arbiter;
        if self.streams.pause.strikes() {
            let pause_us = occasional_us(&mut self.streams.pause.stream, arbiter.pause) / 1_000 * 1_000;
            self.queue.schedule(self.after_press_landed().into_instant(), Event::Pause(pause_us));
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
            self.defects.adjustments += 1;
            self.device_call(Op::Arbiter, |clock, at| clock.adjust_time(side, adjustment, at));
            self.ideal_call(Op::Arbiter, |clock, at| clock.adjust_time(side, adjustment, at));
            self.record(format_args!("arbiter adjusts {side}: {adjustment:?} (6.14, 13.4)"));
            self.after_device_change();
            self.after_ideal_change();
        }
        if self.streams.set_moves.strikes() {
            // 6.8a: the move is complete once the press reaches the clock;
            // the arbiter corrects the counter after that.
            self.queue.schedule(self.after_press_landed().into_instant(), Event::SetMoves);
        }
        if self.streams.replace_clock.strikes() && self.paused_until_us.is_none() {
            self.defects.replacements += 1;
            self.replace_device_clock();
            self.record(format_args!("arbiter replaces the clock (6.11)"));
            self.after_device_change();
            self.watch_if_wrong();
        }
    }

    /// Just after the latest press has reached the clock (edges come at most
    /// `jitter_us` late), on the millisecond grid.
    fn after_press_landed(&self) -> u64 {
        (self.now_us + self.device.config.jitter_us).div_ceil(1_000) * 1_000 + 1_000
    }

    /// 6.14: the arbiter sets the move counters to the moves on the board.
    fn set_moves(&mut self) {
        if self.over || self.device.down_until_us.is_some() {
            return;
        }
        let moves = self.moves;
        self.device_call(Op::Arbiter, |clock, at| {
            clock.set_moves(Side::White, moves.white, at)?;
            clock.set_moves(Side::Black, moves.black, at)
        });
        self.record(format_args!("arbiter sets the move counters to {}/{} (6.14)", moves.white, moves.black));
    }

    /// 6.13: the arbiter stops both clocks for `pause_us`.
    fn pause(&mut self, pause_us: u64) {
        if self.over || self.paused_until_us.is_some() || self.device.down_until_us.is_some() {
            return;
        }
        self.defects.pauses += 1;
        self.paused_until_us = Some(self.now_us.saturating_add(pause_us));
        self.device_call(Op::Pause, |clock, at| clock.pause(at));
        self.ideal_call(Op::Pause, |clock, at| clock.pause(at));
        self.queue.cancel_timer(DEVICE_DEADLINE);
        self.queue.cancel_timer(IDEAL_DEADLINE);
        self.queue.schedule(self.now_us.saturating_add(pause_us).into_instant(), Event::PauseOver);
        self.record(format_args!("arbiter pauses the clocks for {pause_us} us (6.13)"));
    }

    fn pause_over(&mut self) {
        self.paused_until_us = None;
        if self.over {
            return;
        }
        self.device_call(Op::Resume, |clock, at| clock.resume(at));
        self.ideal_call(Op::Resume, |clock, at| clock.resume(at));
        self.record(format_args!("arbiter resumes the clocks"));
        self.after_device_change();
        self.after_ideal_change();
        self.resume_play();
    }

    /// After the clocks were stopped: the player to move thinks, and the
    /// players look at the clock again.
    fn resume_play(&mut self) {
        if *self.present.get(self.to_move) && !self.think_pending {
            self.schedule_think(self.to_move);
        }
        self.watch_if_wrong();
    }

    // ---- flags and rulings ----

    fn after_device_change(&mut self) {
        match self.device.clock.next_deadline() {
            Some(deadline) => {
                // The firmware sees the deadline at its first tick at or after it.
                let tick = self.device.config.tick_us.max(1);
                let device_us = deadline.at.as_us().div_ceil(tick).saturating_mul(tick);
                let true_us = self.device.time_base.true_at(device_us).max(self.now_us);
                self.queue.set_timer(DEVICE_DEADLINE, true_us.into_instant(), Event::DeviceDeadline);
            }
            None => self.queue.cancel_timer(DEVICE_DEADLINE),
        }
        self.check_flags(Which::Device);
    }

    fn after_ideal_change(&mut self) {
        match self.ideal.clock.next_deadline() {
            Some(deadline) => self.queue.set_timer(IDEAL_DEADLINE, deadline.at, Event::IdealDeadline),
            None => self.queue.cancel_timer(IDEAL_DEADLINE),
        }
        self.check_flags(Which::Ideal);
    }

    fn schedule_deadlines(&mut self) {
        self.after_device_change();
        self.after_ideal_change();
    }

    fn clock(&self, which: Which) -> &Clock {
        match which {
            Which::Device => &self.device.clock,
            Which::Ideal => &self.ideal.clock,
        }
    }

    fn referee(&mut self, which: Which) -> &mut Referee {
        match which {
            Which::Device => &mut self.referees.device,
            Which::Ideal => &mut self.referees.ideal,
        }
    }

    /// Unruled flags shown by `which`'s clock, White's first.
    fn unruled_flags(&self, which: Which) -> Vec<chessclock::FlagFall> {
        let clock = self.clock(which);
        let ruled = match which {
            Which::Device => &self.referees.device.ruled,
            Which::Ideal => &self.referees.ideal.ruled,
        };
        Side::BOTH
            .into_iter()
            .filter_map(|side| clock.flag(side))
            .filter(|flag| !ruled.contains(&flag.sequence))
            .collect()
    }

    /// A new flag on `which`'s clock: schedule its notice (6.9).
    fn check_flags(&mut self, which: Which) {
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

    fn notice(&mut self, which: Which) {
        self.referee(which).notice_pending = false;
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
        let ruling: Ruling = if flags.len() == 2 {
            let first = if self.scenario().arbiter.clock_shows_first_flag {
                clock_first.map(|flag| facts_for(self, flag))
            } else {
                None
            };
            let in_final_period = flags.iter().all(|flag| control.is_final_period(flag.period));
            rule_on_both_flags(&BothFlagsFacts { first, in_final_period, game_end: None })
        } else {
            let flag = flags[0];
            if !self.notice.get(flag.side).0 {
                return;
            }
            rule_on_flag(&facts_for(self, flag))
        };
        let ruled: Vec<u32> = flags.iter().map(|flag| flag.sequence).collect();
        self.referee(which).ruled.extend(ruled);
        self.record(format_args!("{which:?} flag(s) {flags:?} ruled: {ruling:?}"));
        if which == Which::Device {
            self.applied.push(ruling.article);
        }
        if ruling.outcome != Outcome::Continue {
            let result = GameResult { outcome: ruling.outcome, reason: Reason::Article(ruling.article) };
            match which {
                Which::Device => self.end_device(result),
                Which::Ideal => self.referee(Which::Ideal).result = Some(result),
            }
        } else {
            // Play goes on; later flags are noticed afresh.
            self.check_flags(which);
        }
    }

    /// Whether `side` can still mate, asked once per position: the device's
    /// and the ideal clock's rulings on the same flag see the same board.
    fn can_checkmate(&mut self, side: Side) -> bool {
        let moves = (self.moves.white, self.moves.black);
        self.mate_answers.can_checkmate(self.board.as_mut(), &mut self.mate_test_stream, side, moves)
    }

    /// The board ended the game (or the move bound, or a forfeit): the same
    /// result on both clocks, unless the ideal clock had already decided.
    fn end_both(&mut self, result: GameResult) {
        if self.referees.ideal.result.is_none() {
            self.referees.ideal.result = Some(result);
        }
        self.end_device(result);
    }

    fn end_device(&mut self, result: GameResult) {
        if self.referees.device.result.is_none() {
            self.referees.device.result = Some(result);
        }
        if !self.over {
            self.over = true;
            self.record(format_args!("game over on the device: {result}"));
            let device_at = self.device_now();
            let _ = self.device.clock.finish(device_at);
            // The ideal clock's pending notices of flags that fell by now
            // still count; a flag noticed later would be a different game.
            self.settle_ideal_at_end();
        }
    }

    fn settle_ideal_at_end(&mut self) {
        if self.referees.ideal.result.is_some() {
            return;
        }
        let at = Instant::from_us(self.now_us);
        if self.ideal.clock.running().is_some() {
            let before = Before::of(&self.ideal.clock);
            let deadline = self.ideal.clock.next_deadline().filter(|deadline| deadline.at <= at);
            let _ = self.ideal.clock.settle(at);
            self.ideal.oracle.check(self.now_us, &before, &self.ideal.clock, Op::Settle(deadline));
        }
        let flags = self.unruled_flags(Which::Ideal);
        if flags.iter().any(|flag| self.notice.get(flag.side).0) || flags.len() == 2 {
            self.notice(Which::Ideal);
        }
        if self.referees.ideal.result.is_none() {
            self.referees.ideal.result = Some(GameResult { outcome: Outcome::Continue, reason: Reason::StillPlaying });
        }
    }

    // ---- clock calls with oracles ----

    fn device_call(&mut self, op: Op, call: impl FnOnce(&mut Clock, Instant) -> Result<(), chessclock::ClockError>) {
        if self.device.down_until_us.is_some() {
            return;
        }
        let at = self.device_now();
        let before = Before::of(&self.device.clock);
        match call(&mut self.device.clock, at) {
            Ok(()) => self.device.oracle.check(self.now_us, &before, &self.device.clock, op),
            Err(error) => self.record(format_args!("device refuses {op:?}: {error}")),
        }
    }

    fn ideal_call(&mut self, op: Op, call: impl FnOnce(&mut Clock, Instant) -> Result<(), chessclock::ClockError>) {
        let at = Instant::from_us(self.now_us);
        let before = Before::of(&self.ideal.clock);
        match call(&mut self.ideal.clock, at) {
            Ok(()) => {
                let ideal = &mut self.ideal;
                ideal.oracle.check(self.now_us, &before, &ideal.clock, op);
                ideal.tick.follow(self.now_us, op, at, &ideal.clock, &mut ideal.tick_violations);
            }
            Err(error) => self.record(format_args!("ideal refuses {op:?}: {error}")),
        }
    }

    fn sample_drift(&mut self) {
        let device_us = self.device.time_base.device_at(self.now_us);
        let at = self.device_tick_floor(device_us);
        let ideal_at = Instant::from_us(self.now_us);
        let mut errors = BySide::both(0i64);
        for side in Side::BOTH {
            let device = self.device.clock.remaining(side, at).map_or(0, |time| time.as_us());
            let ideal = self.ideal.clock.remaining(side, ideal_at).map_or(0, |time| time.as_us());
            let error = i128::from(device) - i128::from(ideal);
            *errors.get_mut(side) = i64::try_from(error).unwrap_or(i64::MAX);
            self.max_time_error_us =
                self.max_time_error_us.max(u64::try_from(error.unsigned_abs()).unwrap_or(u64::MAX));
        }
        if self.drift.len() >= DRIFT_SAMPLES_MAX {
            // Keep every other sample: an even thinning, bounded memory.
            let mut keep = false;
            self.drift.retain(|_| {
                keep = !keep;
                keep
            });
        }
        let offset = i128::from(device_us) - i128::from(self.now_us);
        self.drift.push(DriftSample {
            true_us: self.now_us,
            clock_offset_us: i64::try_from(offset).unwrap_or(i64::MAX),
            remaining_error_us: errors,
        });
    }

    fn finish(self) -> GameRecord {
        let device =
            self.referees.device.result.unwrap_or(GameResult { outcome: Outcome::Draw, reason: Reason::MoveBound });
        let ideal = self.referees.ideal.result.unwrap_or(device);
        let mut violations = self.device.oracle.into_violations();
        violations.extend(self.ideal.oracle.into_violations());
        violations.extend(self.ideal.tick_violations);
        GameRecord {
            game: self.spec.game,
            device,
            ideal,
            applied: self.applied,
            applied_correspondence: Vec::new(),
            moves: self.moves,
            presses: self.presses,
            events: self.events,
            end_us: self.now_us,
            max_time_error_us: self.max_time_error_us,
            drift: self.drift,
            defects: self.defects,
            violations,
            trace_hash: self.trace_hash,
            trace: self.trace,
            device_config: self.device.config,
        }
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

trait IntoInstant {
    fn into_instant(self) -> Instant;
}

impl IntoInstant for u64 {
    fn into_instant(self) -> Instant {
        Instant::from_us(self)
    }
}

/// Swarm mode: each defect of the device is independently off or on, at the
/// scenario's setting or, where the scenario leaves it off, at a swarm
/// default. Drawn from the game's swarm stream.
fn swarm_device(base: &Device, stream: &mut Stream) -> Device {
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
