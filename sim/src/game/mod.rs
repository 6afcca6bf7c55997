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
//! (the event queue's sequence number), except that a player's move waits
//! for the other events at its instant (the clocks' transitions and the
//! arbiter's notices come first, as the core orders a press at its flag's
//! instant after the flag, and as the HIL schedule does). A press with no
//! jitter reaches the device at once, so the next player reads a display
//! that shows it. All time is integer microseconds.
//!
//! The trace hash folds every handled event (instant, kind, payload); trace
//! lines are kept only when asked ([`GameSpec::trace`], `--trace`).
//! `probes.rs` tries wrong calls and what-ifs on a copy of the ideal clock,
//! from a stream of its own (`Actor::Probe`), so games play the same with
//! them.
//!
//! This file holds the state, the event loop and the clock calls checked by
//! the oracles; the handlers live by subject in `players.rs`, `device.rs`,
//! `arbiter.rs` and `rulings.rs`.

use std::fmt::Write as _;

use chessclock::{
    Article, BySide, Clock, ClockError, Duration, Instant, Noting, Outcome, Side, TimeAdjustment, Transition,
    Transitions,
};

use crate::board::{self, Board, DeadTests, MateSearches};
use crate::defects::{Defect, DefectCounts, DefectSet, Struck};
use crate::oracle::{Account, Before, Call, ClockOracle, ModelCoverage, ModelOracle, Op, Violation};
use crate::outcome::{GameResult, Reason};
use crate::player::{self, MateAnswers};
use crate::queue::EventQueue;
use crate::rng::{Actor, Stream};
use crate::sample::{Ratio, Trials};
use crate::scenario::{Arbiter, Device, Scenario};
use crate::timebase::TimeBase;

mod arbiter;
mod device;
mod inputs;
mod players;
mod probes;
mod rulings;
mod script;

pub use inputs::{EndedBy, Ending, Input, InputLog, TimedInput};
pub use script::{
    Act, Element, Fault, Part, PressFault, Script, ScriptedAct, ScriptedMove, ScriptedPress, BOUNCE_EDGES_MAX,
};

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
    /// Shadow the ideal clock with the independent model.
    pub model_oracle: bool,
    /// Defects switched off (shrinking, replays of shrunk games).
    pub disabled: DefectSet,
    /// Keep the [`InputLog`]: every press and arbiter act on the device, and
    /// the ending (`bench hil` schedules). Off for `bench sim`: a logged
    /// game plays the same, only slower. The game's [`Script`] is kept
    /// with it.
    pub record_inputs: bool,
    /// Play the players' moves and the arbiter's acts from this script
    /// instead of drawing them (a replay, a shrinking step).
    pub script: Option<&'a Script>,
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
    /// The rules the game went through: the ideal clock's transitions, and
    /// the device's replacements (6.11).
    pub transitions: Transitions,
    pub violations: Vec<Violation>,
    /// The ideal clock's calls, and those the independent model checked.
    pub model: ModelCoverage,
    /// FNV-1a over the handled events' words (instant, kind, payload): equal hashes, equal games.
    pub trace_hash: u64,
    pub trace: Option<Vec<String>>,
    /// The defect mix this game ran with (swarm mode draws it).
    pub device_config: Device,
    /// What reached the device, when [`GameSpec::record_inputs`] asked.
    pub inputs: Option<InputLog>,
    /// What the players and the arbiter chose, when
    /// [`GameSpec::record_inputs`] asked: the game plays again from it.
    pub script: Option<Script>,
    /// The board's full 6.10 searches and those that gave up.
    pub mate_searches: MateSearches,
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
    /// The device's next transition lies beyond its time base's horizon
    /// (`timebase::AHEAD_MAX`): look again for the deadline at this device
    /// time. Not a game event: neither hashed nor counted.
    DeviceHorizon(u64),
    IdealDeadline,
    /// A flag is noticed on one of the clocks.
    Notice {
        ideal: bool,
    },
    /// The arbiter stops the clocks for this long (6.13).
    Pause(u64),
    /// The arbiter corrects the move counters (6.14).
    SetMoves,
    /// The arbiter adds or removes time (6.14, 13.4).
    Adjust(Side, TimeAdjustment),
    /// The arbiter replaces the device with a clock set to his best
    /// judgement (6.11).
    Replace,
    /// The arbiter restores an earlier position and the clocks with it (6.14).
    Restore,
    PauseOver,
    /// The device browns out (its downtime drawn now, or the script's).
    Brownout(Downtime),
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
            Event::Brownout(_) => (12, 0),
            Event::BrownoutOver => (13, 0),
            Event::FreezeOver => (14, 0),
            Event::StuckOver(who) => (15, side(who)),
            Event::Adjust(who, adjustment) => {
                let (add, amount) = match adjustment {
                    TimeAdjustment::Add(amount) => (1, amount),
                    TimeAdjustment::Subtract(amount) => (0, amount),
                };
                (16, amount.as_us() << 2 | add << 1 | side(who))
            }
            Event::Replace => (17, 0),
            // Never folded in (see `run`); a code of its own all the same.
            Event::DeviceHorizon(device_us) => (18, device_us),
            Event::Restore => (19, 0),
        }
    }
}

/// How long a brownout keeps the device down: drawn as it strikes (and
/// written to the script being kept, at move and fault index `fault`), or
/// the script's. Not part of the trace hash: the downtime shows in the
/// events that follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Downtime {
    Draw { fault: Option<(usize, usize)> },
    Given(u64),
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
    /// Backup of the clock taken at each accepted press, when
    /// `backup_is_clock` is false (see [`DeviceState::clock_mut`]).
    backup: Clock,
    /// The clock has not changed since its last accepted press, so it is
    /// its own backup: a press costs no copy of the clock, only a change
    /// between presses (a flag, an arbiter's act) does.
    backup_is_clock: bool,
    frozen_until_us: u64,
    /// What the display showed when it froze.
    frozen_display: BySide<Duration>,
    oracle: ClockOracle,
}

impl DeviceState {
    /// The clock, to change by anything but a press: the backup is taken
    /// first when the clock still is the state of the last press.
    fn clock_mut(&mut self) -> &mut Clock {
        if self.backup_is_clock {
            self.backup = self.clock;
            self.backup_is_clock = false;
        }
        &mut self.clock
    }

    /// The clock just accepted a press: it is the new backup.
    fn accept_press(&mut self) {
        self.backup_is_clock = true;
    }

    /// A reboot from the backup: the clock is the last press's state again.
    fn restore_backup(&mut self) {
        self.clock = *self.backup();
        self.backup_is_clock = true;
    }

    /// A replacement clock (6.11): the backup from now on too.
    fn install(&mut self, clock: Clock) {
        self.clock = clock;
        self.backup_is_clock = true;
    }

    /// The state of the last accepted press (or of the replacement clock).
    fn backup(&self) -> &Clock {
        if self.backup_is_clock {
            &self.clock
        } else {
            &self.backup
        }
    }
}

#[derive(Debug)]
struct IdealState {
    clock: Clock,
    /// Where the clock hands its transitions, for the account checks.
    account: Account,
    /// Kinds of refusal whose message a probe has read this game (a bit
    /// each, `probes.rs`).
    refusals_read: u16,
    oracle: ClockOracle,
    model: ModelOracle,
    model_violations: Vec<Violation>,
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
    restore: Habit,
    /// Not a habit of the game's people: the oracle's tries on a copy.
    probe: Habit,
}

impl Streams {
    fn new(stream: &impl Fn(Actor) -> Stream, device: &Device, arbiter: &Arbiter) -> Streams {
        let habit = |defect: Defect, chance| Habit::new(stream(defect.spec().stream), chance);
        Streams {
            attention: stream(Actor::Attention),
            jitter: stream(Defect::Jitter.spec().stream),
            missed_press: habit(Defect::MissedPress, device.missed_press),
            stuck_button: habit(Defect::StuckButton, device.stuck_button.chance),
            bounce: habit(Defect::Bounce, device.bounce.chance),
            double_press: habit(Defect::DoublePress, device.double_press),
            brownout: habit(Defect::Brownout, device.brownout.chance),
            display_freeze: habit(Defect::DisplayFreeze, device.display_freeze.chance),
            pause: habit(Defect::Pause, arbiter.pause.chance),
            adjust: habit(Defect::Adjust, arbiter.adjust.chance),
            set_moves: habit(Defect::SetMoves, arbiter.set_moves),
            replace_clock: habit(Defect::ReplaceClock, arbiter.replace_clock),
            restore: habit(Defect::Restore, arbiter.restore),
            probe: Habit::new(stream(Actor::Probe), probes::PROBE_CHANCE),
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
    /// Flags already ruled on, whole: a replacement clock numbers its flags
    /// afresh and a clock restored from a backup reuses numbers, so a
    /// sequence number alone does not name a flag.
    ruled: Vec<chessclock::FlagFall>,
    result: Option<GameResult>,
    /// A notice is scheduled.
    notice_pending: bool,
    /// Sides whose final-period flag was ruled, play going on (6.12 a), when
    /// a replacement clock set their display to zero: the flag that display
    /// shows once it runs is that same flag, not a new one (6.11).
    final_flag_carried: BySide<bool>,
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
    /// Kept when [`GameSpec::record_inputs`] asks.
    log: Option<InputLog>,
    /// The script being written, kept when [`GameSpec::record_inputs`] asks.
    script_out: Option<Script>,
    /// With [`GameSpec::script`]: the scripted moves taken so far, and the
    /// one being played (its faults strike now).
    script_next: usize,
    script_current: Option<usize>,
    /// Presses made since the last move began, its own included.
    press_in_move: u32,
    /// What the game was just after each of its last three presses, oldest
    /// first: the positions an arbiter may restore (6.14).
    press_points: [Option<PressPoint>; 3],
}

/// The game just after a press: the moves made and the times the ideal
/// clock showed.
#[derive(Clone, Copy, Debug)]
struct PressPoint {
    moves: BySide<u32>,
    shown: BySide<Duration>,
}

/// Plays one game to its end.
pub fn play(spec: GameSpec<'_>) -> GameRecord {
    play_with(spec, DeadTests::Deferred)
}

/// Plays one game to its end, the board's dead-position tests (5.2b) run
/// as `dead_tests` says: the same record either way, at a different cost
/// (see `crate::legal`).
pub fn play_with(spec: GameSpec<'_>, dead_tests: DeadTests) -> GameRecord {
    if let Some(postal) = &spec.scenario.correspondence {
        return crate::postal::game_record(postal, spec);
    }
    let mut game = Game::new(spec, dead_tests);
    game.run();
    if !game.board.game_stands() {
        // A dead position ended the game before it was played out: the same
        // game again, each test at its move.
        return play_with(spec, DeadTests::AtTheMove);
    }
    game.finish()
}

impl<'a> Game<'a> {
    fn new(spec: GameSpec<'a>, dead_tests: DeadTests) -> Game<'a> {
        let scenario = spec.scenario;
        let stream = |actor| Stream::new(spec.seed, spec.game, actor);
        let mut swarm_stream = stream(Actor::Swarm);
        let config =
            if spec.swarm { device::swarm_device(&scenario.device, &mut swarm_stream) } else { scenario.device };
        let config = spec.disabled.apply_to_device(config);
        let arbiter = spec.disabled.apply_to_arbiter(scenario.arbiter);
        let control = scenario.control.control;
        let device_clock = Clock::new(control);
        let notice = player::flag_notices(&scenario.arbiter, &mut stream(Actor::Arbiter));
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
            board: board::for_scenario(scenario, dead_tests),
            device: DeviceState {
                config,
                clock: device_clock,
                time_base: TimeBase::new(config.drift_ppm, config.drift_walk_ppm, stream(Defect::Drift.spec().stream)),
                last_edge_us: BySide::both(None),
                stuck_until_us: BySide::both(0),
                down_until_us: None,
                backup: device_clock,
                backup_is_clock: true,
                frozen_until_us: 0,
                frozen_display: BySide::both(Duration::ZERO),
                oracle: ClockOracle::new("device"),
            },
            ideal: IdealState {
                clock: Clock::new(control),
                account: Account::default(),
                refusals_read: 0,
                oracle: ClockOracle::new("ideal"),
                model: if spec.model_oracle { ModelOracle::new(&control) } else { ModelOracle::disabled() },
                model_violations: Vec::new(),
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
            drift: Vec::with_capacity(DRIFT_SAMPLES_MAX),
            defects: DefectCounts::default(),
            trace_hash: FNV_OFFSET,
            trace: spec.trace.then(Vec::new),
            line: String::new(),
            log: spec.record_inputs.then(InputLog::default),
            script_out: spec.record_inputs.then(Script::default),
            script_next: 0,
            script_current: None,
            press_in_move: 0,
            press_points: [None; 3],
        }
    }

    fn scenario(&self) -> &'a Scenario {
        self.spec.scenario
    }

    /// Adds an act on the device to the input log when it is kept.
    #[inline]
    fn log_input(&mut self, input: Input) {
        if let Some(log) = self.log.as_mut() {
            log.inputs.push(TimedInput { at_us: self.now_us, input });
        }
    }

    /// The scripted move's device faults, less those of a defect switched
    /// off.
    fn scripted_faults(&self) -> impl Iterator<Item = Fault> + 'a {
        let disabled = self.spec.disabled;
        let scripted = self.spec.script.zip(self.script_current).and_then(|(script, index)| script.moves.get(index));
        scripted
            .into_iter()
            .flat_map(|scripted| scripted.faults.iter().copied())
            .filter(move |fault| !disabled.contains(fault.defect()))
    }

    /// Adds one line to the trace when it is kept (`--trace`). The trace
    /// hash does not read these lines: it is taken over the events (see
    /// [`Game::fingerprint`]), so an untraced game formats nothing.
    #[inline]
    fn record(&mut self, args: std::fmt::Arguments<'_>) {
        if self.trace.is_some() {
            self.record_line(args);
        }
    }

    #[cold]
    #[inline(never)]
    fn record_line(&mut self, args: std::fmt::Arguments<'_>) {
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
            if let Event::DeviceHorizon(device_us) = event {
                // Only the time base's look-ahead moves: the game is as if
                // the deadline had been scheduled exactly at once.
                self.now_us = at.as_us();
                // The present moves to the horizon's end, and the look-ahead with it.
                let _ = self.device.time_base.device_at(self.now_us);
                self.schedule_device_deadline(device_us);
                continue;
            }
            if let Event::Move(_) = event {
                // A move waits for whatever else happens at its instant:
                // the clocks' transitions and the arbiter's notices come
                // first, as the core orders a press at its flag's instant
                // after the flag (and as the HIL schedule does).
                let waits = |next: &Event| !matches!(next, Event::Move(_) | Event::DeviceHorizon(_));
                if self.queue.peek().is_some_and(|(next_at, next)| next_at == at && waits(next)) {
                    self.queue.schedule(at, event);
                    continue;
                }
            }
            self.now_us = at.as_us();
            self.events += 1;
            self.fingerprint(self.now_us, event);
            if self.events > events_max {
                self.record(format_args!("event bound {events_max} reached"));
                self.end_both(GameResult { outcome: Outcome::Draw, reason: Reason::MoveBound }, EndedBy::EventBound);
                break;
            }
            self.handle(event);
            if self.over && self.ideal_decided() {
                break;
            }
        }
        if self.referees.device.result.is_none() {
            // Nothing left to happen (nobody came, no default time to end it).
            self.end_both(GameResult { outcome: Outcome::Draw, reason: Reason::MoveBound }, EndedBy::EventBound);
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
            // Handled in `run`, before events are counted.
            Event::DeviceHorizon(_) => {}
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
            Event::Adjust(side, adjustment) => self.adjust(side, adjustment),
            Event::Replace => self.replace_clock(),
            Event::Restore => self.restore(),
            Event::PauseOver => self.pause_over(),
            Event::Brownout(downtime) => self.brownout(downtime),
            Event::BrownoutOver => self.brownout_over(),
            Event::FreezeOver => self.record(format_args!("display unfreezes")),
            Event::StuckOver(side) => self.record(format_args!("{side} button released")),
        }
    }

    // ---- clock calls with oracles ----

    /// A call on the device clock, checked by its oracle; whether the
    /// device took it (it is down, or refused it).
    fn device_call(
        &mut self,
        op: Op,
        call: impl FnOnce(&mut Clock, Instant) -> Result<(), chessclock::ClockError>,
    ) -> bool {
        if self.device.down_until_us.is_some() {
            return false;
        }
        let at = self.device_now();
        let before = Before::of(&self.device.clock);
        match call(self.device.clock_mut(), at) {
            Ok(()) => {
                self.device.oracle.check(self.now_us, &before, &self.device.clock, op);
                true
            }
            Err(error) => {
                self.record(format_args!("device refuses {op:?}: {error}"));
                false
            }
        }
    }

    fn ideal_call(&mut self, op: Op, call: impl FnOnce(&mut Noting<'_, Account>, Instant) -> Result<(), ClockError>) {
        self.ideal_call_as(op, Call::of(op), call);
    }

    /// A call on the ideal clock, which the independent model follows as
    /// `model_call`; the clock's account of it is checked too.
    fn ideal_call_as(
        &mut self,
        op: Op,
        model_call: Option<Call>,
        call: impl FnOnce(&mut Noting<'_, Account>, Instant) -> Result<(), ClockError>,
    ) {
        let at = Instant::from_us(self.now_us);
        let before = Before::of(&self.ideal.clock);
        self.ideal.account.begin_call();
        match call(&mut self.ideal.clock.noting(&mut self.ideal.account), at) {
            Ok(()) => {
                let ideal = &mut self.ideal;
                ideal.oracle.check(self.now_us, &before, &ideal.clock, op);
                ideal.oracle.check_account(self.now_us, &before, &ideal.clock, op, &ideal.account);
                ideal.model.follow(
                    self.now_us,
                    model_call,
                    at,
                    &ideal.clock,
                    &ideal.account,
                    &mut ideal.model_violations,
                );
                let flag_fell = Side::BOTH.into_iter().any(|side| self.ideal.account.changes.flag(side).is_some());
                self.maybe_probe(at, flag_fell);
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

    /// The game's record. It borrows the game and takes what it keeps: a
    /// game is some 10 KB, and taking it by value copied all of it.
    fn finish(&mut self) -> GameRecord {
        let device =
            self.referees.device.result.unwrap_or(GameResult { outcome: Outcome::Draw, reason: Reason::MoveBound });
        let ideal = self.referees.ideal.result.unwrap_or(device);
        self.ideal.oracle.check_tally(self.now_us, &self.ideal.clock, &self.ideal.account);
        let mut violations = self.device.oracle.take_violations();
        violations.extend(self.ideal.oracle.take_violations());
        violations.append(&mut self.ideal.model_violations);
        if self.spec.model_oracle {
            // The written forms are read against the independent model's
            // reader: off with the model.
            violations.extend(crate::written::game_violations(&self.spec, &self.ideal.clock, self.now_us));
        }
        let model = self.ideal.model.coverage();
        let mut transitions = *self.ideal.clock.transitions();
        for _ in 0..self.defects.get(Struck::Replacement) {
            transitions.note(Transition::Replacement);
        }
        GameRecord {
            game: self.spec.game,
            device,
            ideal,
            applied: std::mem::take(&mut self.applied),
            applied_correspondence: Vec::new(),
            moves: self.moves,
            presses: self.presses,
            events: self.events,
            end_us: self.now_us,
            max_time_error_us: self.max_time_error_us,
            drift: std::mem::take(&mut self.drift),
            defects: self.defects,
            transitions,
            violations,
            model,
            trace_hash: self.trace_hash,
            trace: self.trace.take(),
            device_config: self.device.config,
            inputs: self.log.take(),
            script: self.script_out.take(),
            mate_searches: self.board.mate_searches(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Actor;

    fn device_state() -> DeviceState {
        let control = chessclock::notation::parse("60+2").expect("a valid control");
        let config = Device::default();
        let time_base = TimeBase::new(0, 0, Stream::new(1, 0, Actor::Drift));
        let clock = Clock::new(control);
        DeviceState {
            config,
            clock,
            time_base,
            last_edge_us: BySide::both(None),
            stuck_until_us: BySide::both(0),
            down_until_us: None,
            backup: clock,
            backup_is_clock: true,
            frozen_until_us: 0,
            frozen_display: BySide::both(Duration::ZERO),
            oracle: ClockOracle::new("device"),
        }
    }

    fn at_s(seconds: u64) -> Instant {
        Instant::from_us(seconds * 1_000_000)
    }

    #[test]
    fn the_backup_is_the_clock_as_its_last_press_left_it() {
        let mut device = device_state();
        device.clock_mut().start(at_s(0)).expect("starts");
        device.clock.press(Side::White, at_s(5)).expect("White presses");
        device.accept_press();
        let pressed = device.clock;
        assert_eq!(*device.backup(), pressed, "nothing changed since the press");
        // Changes between presses (time charged, the arbiter's acts) are
        // not in the backup: a reboot from it loses them.
        device.clock_mut().settle(at_s(20)).expect("settles");
        device
            .clock_mut()
            .adjust_time(Side::White, TimeAdjustment::Add(Duration::from_secs(7)), at_s(21))
            .expect("adjusts");
        assert_ne!(device.clock, pressed);
        assert_eq!(*device.backup(), pressed);
        device.clock.press(Side::Black, at_s(30)).expect("Black presses");
        device.accept_press();
        assert_eq!(*device.backup(), device.clock, "the next press is the new backup");
        assert_ne!(*device.backup(), pressed);
        let black_pressed = device.clock;
        device.clock_mut().settle(at_s(40)).expect("settles");
        device.restore_backup();
        assert_eq!(device.clock, black_pressed, "a reboot goes back to the last press");
        device.clock_mut().settle(at_s(41)).expect("settles again");
        assert_eq!(*device.backup(), black_pressed, "and keeps it as the backup");
    }

    #[test]
    fn a_clock_never_pressed_backs_up_as_it_started() {
        let mut device = device_state();
        let fresh = device.clock;
        device.clock_mut().start(at_s(0)).expect("starts");
        device.clock_mut().settle(at_s(9)).expect("settles");
        assert_eq!(*device.backup(), fresh);
    }
}
