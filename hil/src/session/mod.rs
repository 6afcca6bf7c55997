//! The run: one scheduled game played on a board and its records
//! collected; the judge (`crate::judge::game`) decides what they show.
//!
//! ```text
//!   Session::hello ── Hello record (tick, counter, debounce)
//!   Session::play(schedule):
//!     `reset` → Ack, `tc TEXT` → Ack, `start` → Ack (the start instant)
//!     loop: poll records ─▶ guest time (the machine's clock, anchored at tick stops)
//!           press due (start + offset)? set_button(down) … hold … set_button(up)
//!     until the schedule's end + a tail, the firmware shows the game
//!     finished, or a failure (target gone, firmware silent, Ctrl-C)
//!     ─▶ PlayedGame (records, presses made, commands sent)
//!   PlayedGame::judged ─▶ judge::game::judge_game ─▶ GameRun
//!   on a board (probe): counter reads every 50 ms of guest time (oscillator
//!   drift), the counter around each press write (latency on the board)
//! ```
//!
//! **Guest time** is the machine's where the board has a clock bench can
//! read (QEMU in lockstep: `Target::machine_time_us`, tied to the
//! firmware's time scale at tick stops, `hil/LOCKSTEP.md`); elsewhere the
//! latest instant any record speaks of (Snapshots come at least every
//! 100 ms, TimeBase every second). Presses are timed against it, so a press lands at its scheduled guest
//! instant or a little later, never earlier; the comparison uses the
//! firmware's stamp of each press, so lateness never makes a mismatch. A
//! press is held 30–60 ms of guest time (the schedule draws it) and the next
//! one waits for the release; a button is never pressed again within the
//! firmware's debounce window (Hello `debounce_us`), so every press is one.
//!
//! **Contact bounce**: a press the schedule draws bounce for
//! ([`crate::schedule::draw_bounce`]) is played by the board on its own time
//! ([`Target::press_with_bounce`]: extra closing edges 2–4 ms apart) where
//! the board can time it and the chatter fits inside the firmware's
//! debounce window with a tick to spare; elsewhere it is a clean press.
//! [`compare::check_debounce`] then fails every Press record closer than the
//! window to the previous press of its button, and the firmware's `bounces`
//! counts are kept next to the edges made ([`GameRun::bounce_edges_sent`]).
//!
//! **Failures** end the game at once with a [`RunError`] and a partial
//! result marked incomplete: the target went away, the firmware sent nothing
//! new (no record speaking of a later instant) for
//! [`RunOptions::silence_timeout`], or did not answer a command in that
//! time, or the run was interrupted. A held button is released on the way
//! out if the target still answers.
//!
//! **Silence is judged in the board's own time.** A board that runs in real
//! time (a probe, QEMU without lockstep) counts it in host time. In
//! lockstep the guest runs only while the harness steps it, so the silence
//! limit is guest time as the harness knows it at its stops (records and
//! counted ticks), and the same firmware goes silent at the same guest
//! instant, with the same report, however loaded the host is. Host time
//! then only guards against an emulator that reaches no stop at all
//! ([`RunOptions::emulator_timeout`], [`RunError::NoStop`]).
//!
//! **The end of a game**: its presses and commands are made and both the
//! firmware and the model are done with it: the model on the presses the
//! firmware saw, from its last change (`compare::model_quiet_us`), not
//! from the latest Snapshot, within a bound past the schedule's end; then
//! a tail of guest time so the last records are in.
//!
//! **A firmware that breaks the contract ends the run at once**, named: a
//! Hello outside `hello.rs`'s ranges, or a Hello or Capabilities record not
//! there within the silence limit of the wait's start (in lockstep the
//! board stops at ticks until the Hello, so a firmware that writes nothing
//! is judged in guest time too); a record that does not decode; a record
//! stamped past the silence limit; on QEMU, a HardFault (a breakpoint on
//! vector 3's handler). `tests/hostile_firmware.rs` plants such faults in
//! copies of the C example.
//!
//! At a game's end, what the session collected (records, the presses it
//! made, the commands it sent) is a [`PlayedGame`]; the judge
//! (`crate::judge::game`) decides from that and the schedule alone. The
//! one thing the session asks the model mid-game is when the game is over
//! (`compare::model_quiet_us`, on the records so far).
//!
//! Records come and commands go through a [`RecordLink`]: the RTT reader
//! ([`crate::session::rtt::RttReader`]) on every backend, or a test's own.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bench_contract::{
    Ack, AckStatus, Body, Capabilities, Command, Hello, Phase, Ranges, Record, COMMAND_LINE_MAX, CONTRACT_VERSION,
    CONTRACT_VERSION_CAPABILITIES, CONTRACT_VERSION_MIN,
};

use crate::judge::compare::{self, CompareError, Comparison};
use crate::judge::drift::{self, Fit, FitError, FitOptions};
use crate::judge::game::{judge_game, GameFacts, Judgement, Terms};
use crate::judge::latency::{BoardLatency, Percentiles};
use crate::schedule::{ArbiterCommand, Schedule, ScheduleEnd, ScheduledCommand};
use crate::session::rtt::{RttError, RttReader, Undecodable};
use crate::target::{Bounce, ButtonId, CounterReading, SentPress, StepPlan, Stop, Target, TargetError};

mod acks;
pub mod board;
pub mod farm;
pub mod hello;
pub mod rtt;
pub use acks::{expected_ack, probe_lines, shape_text, AckCheck, AckShape, LineAck, EDGE_CONTROLS};

/// Records in, command lines out: what the run needs of a firmware's
/// channels.
pub trait RecordLink {
    /// Appends every record the firmware sent since the last call, in its
    /// order. Does not wait for records to come.
    fn poll(&mut self, target: &mut dyn Target, out: &mut Vec<Record>) -> Result<(), TargetError>;
    /// Writes one command line (without its newline) to `bench-ctl`. Does
    /// not wait for the Ack: it comes as a record.
    fn send_line(&mut self, target: &mut dyn Target, line: &str) -> Result<(), TargetError>;
    /// The bytes the firmware writes each time it has sent a record (the
    /// up ring's write offset): a lockstep board stops after each write.
    fn record_written_at(&self) -> Option<(u32, u32)> {
        None
    }
    /// The first 48 bytes the firmware sent that are no record, if any.
    fn undecodable(&self) -> Option<Undecodable> {
        None
    }
}

/// How long [`RttReader::send_line`] may wait for room in the down ring.
const SEND_TIMEOUT: Duration = Duration::from_secs(2);

/// TimeBase records a session gathers at the least (the firmware sends one
/// a second, game or not): a run of games that end within a second, a
/// forfeit before the first move (6.7), would have no drift to report.
pub const TIME_BASES_MIN: usize = 5;

fn rtt_error(error: RttError) -> TargetError {
    match error {
        RttError::Target(error) => error,
        RttError::Timeout { what, timeout } => TargetError::Timeout { what, timeout },
        RttError::DownChannelFull { timeout, .. } => {
            TargetError::Timeout { what: format!("room in the `{}` down ring", bench_contract::DOWN_CHANNEL), timeout }
        }
        other => TargetError::Protocol { what: "firmware's RTT channels".to_string(), detail: other.to_string() },
    }
}

impl RecordLink for RttReader {
    fn poll(&mut self, target: &mut dyn Target, out: &mut Vec<Record>) -> Result<(), TargetError> {
        RttReader::poll(self, target).map_err(rtt_error)?;
        out.extend(self.take_records());
        Ok(())
    }

    fn send_line(&mut self, target: &mut dyn Target, line: &str) -> Result<(), TargetError> {
        RttReader::send_line(self, target, line.as_bytes(), SEND_TIMEOUT).map(|_| ()).map_err(rtt_error)
    }

    fn record_written_at(&self) -> Option<(u32, u32)> {
        Some((self.up_write_offset_address(), 4))
    }

    fn undecodable(&self) -> Option<Undecodable> {
        self.stats().undecodable.first().copied()
    }
}

/// `command`'s line as the contract's crate writes it, without its
/// newline; an error for one longer than a line may be.
fn command_line(command: &Command<'_>) -> Result<String, RunError> {
    crate::schedule::encoded_line(command).ok_or_else(|| RunError::LineTooLong {
        line: match command {
            Command::TimeControl(text) => format!("tc {text}"),
            other => format!("{other:?}"),
        },
    })
}

/// Host time one lockstep step may take before the run looks at its stop
/// flag and silence limits again (the board then runs on).
const STEP_SLICE: Duration = Duration::from_millis(250);

/// How far ahead of a due press (guest µs) a lockstep run stops at every
/// tick: more than the longest gap between two records the contract
/// allows (a Snapshot at least every 100 ms), so the last stop at a record
/// before the press is never after it.
const TICK_LEAD_US: u64 = 110_000;

#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Pause between polls that brought nothing new (host time).
    pub poll_interval: Duration,
    /// The firmware is silent when no record speaks of a later instant for
    /// this long, or a command has no Ack after this long: host time on a
    /// board that runs in real time, guest time in lockstep (see the
    /// module's documentation).
    pub silence_timeout: Duration,
    /// Lockstep only: host time the emulator may take to reach its next
    /// stop before the run ends with [`RunError::NoStop`] (an emulator that
    /// hangs, or a firmware that sends nothing while no tick is awaited).
    /// Generous: it must never end a healthy run on a loaded host.
    pub emulator_timeout: Duration,
    /// Guest time read after the schedule's end, so the last records (a
    /// flag, the final snapshot) are in.
    pub tail_us: u64,
    pub drift: FitOptions,
    /// Guest time between two reads of the board's counter against host
    /// time (oscillator drift), on backends that can read it.
    pub counter_interval_us: u64,
    /// Make the schedule's contact bounce where the board can time it.
    pub bounce: bool,
    /// Set (e.g. by Ctrl-C) to end the game at once, incomplete.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            poll_interval: Duration::from_millis(2),
            silence_timeout: Duration::from_secs(10),
            emulator_timeout: Duration::from_secs(300),
            tail_us: 500_000,
            drift: FitOptions::default(),
            counter_interval_us: 50_000,
            bounce: true,
            stop: None,
        }
    }
}

/// Why a game could not be played to its end.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The board or its connection failed (the emulator died, a socket
    /// closed, a probe went away).
    #[error("{0}")]
    Target(TargetError),
    /// The firmware sent nothing new for too long.
    #[error(
        "the firmware went silent: nothing new for {waited} while waiting for {waiting_for} ({}); \
         is it running, and does it implement the bench contract (hil/CONTRACT.md)?",
        last_record(*last_at_us)
    )]
    Silent { waiting_for: String, waited: Waited, last_at_us: Option<u64> },
    /// Records came, but not the one awaited, within the silence limit of
    /// the wait's start.
    #[error(
        "{waiting_for} did not come within {waited}, though the firmware sent {came} other records ({}); {why}",
        last_record(*last_at_us)
    )]
    Missing { waiting_for: String, waited: Waited, came: usize, last_at_us: Option<u64>, why: &'static str },
    /// 48 bytes on the record channel that are no record of the contract.
    #[error(
        "the firmware sent a record that does not decode (seq {seq}, kind byte {kind}): {}; its 48 bytes: {}; \
         hil/CONTRACT.md §3 lists the kinds and their fields",
        bad.error,
        hex_bytes(&bad.bytes)
    )]
    Undecodable { seq: u32, kind: u8, bad: Undecodable },
    /// A record stamped later than the silence limit after every instant
    /// before it: the firmware was silent that long, or its stamp is wrong.
    #[error(
        "the firmware's {kind} record seq {seq} is stamped {}, {} after the latest instant before it ({}): \
         past the silence limit ({} s), so either the firmware sent nothing for that long or this record's \
         at_us is wrong (hil/CONTRACT.md §3: at_us is the firmware clock's instant)",
        compare::seconds(*at_us),
        compare::seconds(at_us.saturating_sub(*before_us)),
        compare::seconds(*before_us),
        limit.as_secs_f64()
    )]
    StampAhead { kind: String, seq: u32, at_us: u64, before_us: u64, limit: Duration },
    /// Lockstep: the emulator reached no stop (a record, or a tick the
    /// harness waited for) within [`RunOptions::emulator_timeout`] of host
    /// time. An infrastructure failure: guest time is not known, so the
    /// firmware's silence cannot be judged.
    #[error(
        "emulator problem: QEMU reached no lockstep stop (a record, or a tick the harness waited for) \
         within {} s of host time while waiting for {waiting_for} ({}); the emulator may hang, or the \
         firmware stopped sending records (the contract wants one at least every second)",
        timeout.as_secs(),
        last_record(*last_at_us)
    )]
    NoStop { waiting_for: String, timeout: Duration, last_at_us: Option<u64> },
    /// The firmware is not a contract-1 firmware.
    #[error("the firmware does not speak bench contract {}: {detail}", CONTRACT_VERSION)]
    Contract { detail: String },
    /// The firmware refused a command the model accepts.
    #[error("the firmware refused `{line}`: {status:?}{}", refused_where(*status, *position))]
    Refused { line: String, status: AckStatus, position: u16 },
    /// The firmware restarted during the game (a Hello with seq 0).
    #[error("the firmware restarted during the game (a Hello record after {})", compare::seconds(*at_us))]
    Restarted { at_us: u64 },
    /// The time-control text cannot be sent as one command line.
    #[error("`{line}` is longer than the contract's {}-byte command line", COMMAND_LINE_MAX)]
    LineTooLong { line: String },
    #[error("interrupted")]
    Interrupted,
}

impl RunError {
    /// A failure of the firmware under test (exit 1), rather than of the
    /// bench or its infrastructure (exit 3).
    pub fn is_firmware_failure(&self) -> bool {
        matches!(self, RunError::Refused { .. })
    }
}

/// Where a refused time control went wrong; nothing for other refusals.
fn refused_where(status: AckStatus, position: u16) -> String {
    if status == AckStatus::BadTimeControl {
        format!(" at byte {position} of the time control")
    } else {
        String::new()
    }
}

/// A Hello bench can run: its contract version, record size and fields
/// within their ranges ([`hello::implausible`]).
fn check_hello(hello: &Hello) -> Result<(), RunError> {
    if !(CONTRACT_VERSION_MIN..=CONTRACT_VERSION).contains(&hello.contract_version) {
        return Err(RunError::Contract {
            detail: format!(
                "its Hello announces contract version {} (this bench runs {CONTRACT_VERSION_MIN} to {CONTRACT_VERSION})",
                hello.contract_version
            ),
        });
    }
    if usize::from(hello.record_size) != bench_contract::RECORD_SIZE {
        return Err(RunError::Contract { detail: format!("its Hello announces {}-byte records", hello.record_size) });
    }
    match hello::implausible(hello) {
        Some(field) => Err(RunError::Contract { detail: format!("its Hello announces {field} (hil/CONTRACT.md §3)") }),
        None => Ok(()),
    }
}

/// Bytes as hex pairs, for messages.
fn hex_bytes(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect::<Vec<_>>().join(" ")
}

fn last_record(last_at_us: Option<u64>) -> String {
    match last_at_us {
        Some(at) => format!("its last record was about {}", compare::seconds(at)),
        None => "no record at all".to_string(),
    }
}

/// How long a silent firmware was waited for, in the time its board runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waited {
    /// A board in real time: host time (varies from run to run).
    Host(Duration),
    /// Lockstep: guest time, µs (the same in every run).
    GuestUs(u64),
}

impl fmt::Display for Waited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Waited::Host(waited) => write!(f, "{:.1} s of host time", waited.as_secs_f64()),
            Waited::GuestUs(us) => write!(f, "{} of guest time", compare::seconds(*us)),
        }
    }
}

/// When a wait began, in host time and as far as the harness knew guest
/// time then: silence counts from it, or from the firmware's last progress
/// if that is later.
#[derive(Clone, Copy, Debug)]
struct Since {
    host: Instant,
    guest_us: u64,
}

impl From<TargetError> for RunError {
    fn from(error: TargetError) -> RunError {
        RunError::Target(error)
    }
}

/// Oscillator drift over a session's counter reads: the fit, the samples
/// it came from, and the probe's round trips.
#[derive(Clone, Debug, PartialEq)]
pub struct Oscillator {
    pub fit: Result<Fit, FitError>,
    pub samples: Vec<drift::Sample>,
    /// Round trip of every read, µs.
    pub round_trip: Option<Percentiles>,
    /// The filter's margin over the fastest round trip, µs.
    pub round_trip_margin_us: f64,
}

/// How far a game has come, for progress displays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub game: u64,
    pub presses_sent: usize,
    pub presses_total: usize,
    /// Guest time since the start, µs.
    pub guest_us: u64,
    /// Guest time the game is scheduled to take, µs.
    pub duration_us: u64,
}

/// A game's lockstep stops by kind, and the host time each kind took:
/// from the step that reached a stop to the next step, so running the
/// guest there, the stop's own work and what the harness did at it. Counts
/// are the same every run; host times are not, so they go to `run.json`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StopTally {
    pub record_stops: u64,
    pub tick_stops: u64,
    pub record_host: Duration,
    pub tick_host: Duration,
}

impl StopTally {
    /// Adds `more`'s stops and host times.
    pub fn add(&mut self, more: &StopTally) {
        self.record_stops = self.record_stops.saturating_add(more.record_stops);
        self.tick_stops = self.tick_stops.saturating_add(more.tick_stops);
        self.record_host = self.record_host.saturating_add(more.record_host);
        self.tick_host = self.tick_host.saturating_add(more.tick_host);
    }

    /// A stop of this kind that took `host` all told.
    fn note(&mut self, tick: bool, host: Duration) {
        let (count, time) = match tick {
            true => (&mut self.tick_stops, &mut self.tick_host),
            false => (&mut self.record_stops, &mut self.record_host),
        };
        *count = count.saturating_add(1);
        *time = time.saturating_add(host);
    }
}

/// What the session collected in a game as it went.
#[derive(Debug, Default)]
struct Course {
    records: Vec<Record>,
    sent: Vec<SentPress>,
    /// Firmware instant of the start (the `start` Ack), once started.
    start_us: Option<u64>,
}

/// What one game did on a board, not judged yet.
#[derive(Debug)]
pub struct PlayedGame {
    pub schedule: Schedule,
    /// Every record from the game's first command on, in the firmware's order.
    pub records: Vec<Record>,
    pub tick_us: u64,
    /// Firmware instant of the start (the `start` Ack), once started.
    pub start_us: Option<u64>,
    pub sent: Vec<SentPress>,
    /// The arbiter commands sent (`adjust`, `moves`), in order.
    pub commands_sent: Vec<ArbiterCommand>,
    /// Guest time covered after the start, µs.
    pub guest_us: u64,
    pub host_elapsed: Duration,
    /// Why the game ended early; `None` when it was played to its end.
    pub error: Option<RunError>,
    /// How it was read and what the firmware declared.
    pub terms: Terms,
    /// Its lockstep stops (none on a board in real time).
    pub stops: StopTally,
}

impl PlayedGame {
    /// The game with the judge's decision on it ([`judge_game`]).
    pub fn judged(self) -> GameRun {
        let facts = GameFacts {
            schedule: &self.schedule,
            records: &self.records,
            sent: &self.sent,
            commands_sent: &self.commands_sent,
            start_us: self.start_us,
            cut_short: self.error.is_some(),
        };
        let Judgement { comparison, latency, board_latency, drift } = judge_game(&facts, &self.terms);
        GameRun {
            schedule: self.schedule,
            records: self.records,
            tick_us: self.tick_us,
            start_us: self.start_us,
            sent: self.sent,
            commands_sent: self.commands_sent,
            guest_us: self.guest_us,
            host_elapsed: self.host_elapsed,
            error: self.error,
            comparison,
            latency,
            board_latency,
            drift,
            stops: self.stops,
        }
    }
}

/// One game and what the judge decided of it.
#[derive(Debug)]
pub struct GameRun {
    pub schedule: Schedule,
    /// Every record from the game's first command on, in the firmware's order.
    pub records: Vec<Record>,
    pub tick_us: u64,
    /// Firmware instant of the start (the `start` Ack), once started.
    pub start_us: Option<u64>,
    pub sent: Vec<SentPress>,
    /// The arbiter commands sent (`adjust`, `moves`), in order.
    pub commands_sent: Vec<ArbiterCommand>,
    /// Guest time covered after the start, µs.
    pub guest_us: u64,
    pub host_elapsed: Duration,
    /// Why the game ended early; `None` when it was played to its end.
    pub error: Option<RunError>,
    /// The comparison of the records with the model (also of a partial
    /// game); `None` when the game never started.
    pub comparison: Option<Result<Comparison, CompareError>>,
    /// Edge-to-registered press latency.
    pub latency: Option<Percentiles>,
    /// Edge-to-stamp latency measured on the board (see [`BoardLatency`]).
    pub board_latency: Option<BoardLatency>,
    /// Accounting drift over this game's TimeBase records.
    pub drift: Result<Fit, FitError>,
    /// Its lockstep stops (none on a board in real time).
    pub stops: StopTally,
}

impl GameRun {
    /// Extra closing edges the harness made (contact bounce).
    pub fn bounce_edges_sent(&self) -> u64 {
        self.sent.iter().map(|press| press.bounce.edges()).sum()
    }

    /// Bounce edges the firmware says it swallowed (the Press records'
    /// `bounces`, contract §1).
    pub fn bounces_reported(&self) -> u64 {
        self.records
            .iter()
            .filter_map(|record| match record.body {
                Body::Press(press) => Some(u64::from(press.bounces)),
                _ => None,
            })
            .sum()
    }

    /// Played to its end with every record seen.
    pub fn complete(&self) -> bool {
        self.error.is_none() && matches!(&self.comparison, Some(Ok(comparison)) if comparison.records_lost == 0)
    }

    /// Complete and without a mismatch (drift is judged over the session).
    pub fn passed(&self) -> bool {
        self.complete() && matches!(&self.comparison, Some(Ok(comparison)) if comparison.passed())
    }
}

/// A board with a contract firmware, running one game after another.
pub struct Session<'a> {
    target: &'a mut dyn Target,
    link: &'a mut dyn RecordLink,
    options: RunOptions,
    hello: Option<Hello>,
    /// What the firmware announced it supports (contract 3), or what a
    /// contract 1 or 2 firmware is taken to support.
    capabilities: Option<Capabilities>,
    /// Every TimeBase record of the session (accounting drift over all games).
    time_bases: Vec<Record>,
    /// The latest firmware instant any record spoke of.
    guest_us: Option<u64>,
    /// Host time a record last spoke of a later instant (silence on a
    /// board in real time).
    last_progress: Instant,
    /// Reads of the board's counter against host time.
    counter_readings: Vec<CounterReading>,
    /// False once the backend said it cannot read the counter.
    counter_readable: bool,
    /// Guest time of the last counter read.
    counter_read_at_us: Option<u64>,
    /// The board runs in lockstep ([`Target::step`]).
    lockstep: bool,
    /// Stop at every tick (a press or a contact change is near).
    want_tick: bool,
    /// Lockstep: the board stands at a tick stop, where guest time is known
    /// exactly ([`Session::tick_guest_us`]); at a record stop the emulator
    /// has already moved guest time on past the record's instant by an
    /// amount the harness does not know (hil/LOCKSTEP.md).
    at_tick: bool,
    /// Lockstep: the firmware instant of the latest tick stop, counted on
    /// from the latest record (a tick is `tick_us` of the Hello); only until
    /// the machine's clock anchors guest time.
    tick_guest_us: Option<u64>,
    /// Lockstep on a board with a clock of its own
    /// ([`Target::machine_time_us`]): that clock at the latest stop.
    machine_us: Option<u64>,
    /// The board stands at a record stop.
    at_record: bool,
    /// The latest instant the records read at this record stop speak of.
    after_record: Option<u64>,
    /// A firmware instant at a tick stop and the machine's clock there
    /// ([`Session::tick_stop`]): once set, guest time is that instant plus
    /// the machine time since, whatever the latest record says.
    anchor: Option<MachineAnchor>,
    /// The arbiter commands sent in the game being played.
    arbiter_sent: Vec<ArbiterCommand>,
    /// The game's lockstep stops so far.
    stops: StopTally,
    /// The latest stop: a tick or not, and the host instant its step began.
    stop_began: Option<(bool, Instant)>,
    /// A `tc` of this session was accepted: `reset` must be too.
    control_set: bool,
}

impl fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("target", &self.target.describe())
            .field("hello", &self.hello)
            .field("time_bases", &self.time_bases.len())
            .field("guest_us", &self.guest_us)
            .finish()
    }
}

/// Where the firmware's clock stood at one instant of the machine's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MachineAnchor {
    guest_us: u64,
    machine_us: u64,
}

impl MachineAnchor {
    /// The firmware instant at `machine_us`, the firmware's clock taken to
    /// run at the machine's rate (a firmware clock that does not shows as
    /// `press.stamp` and accounting drift).
    fn guest_at(&self, machine_us: u64) -> u64 {
        self.guest_us.saturating_add(machine_us.saturating_sub(self.machine_us))
    }
}

/// The latest firmware instant a record speaks of.
fn latest_instant(record: &Record) -> u64 {
    match record.body {
        Body::Press(press) => record.at_us.max(press.handled_at_us),
        Body::Flag(flag) => record.at_us.max(flag.observed_at_us),
        _ => record.at_us,
    }
}

/// Where the presses are.
#[derive(Clone, Debug)]
enum PressState {
    Up,
    /// The harness releases the button at `release_at_us`.
    Held {
        button: ButtonId,
        release_at_us: u64,
    },
    /// A bounced press the board plays on its own time: over (released,
    /// and the board's key queue empty) by `over_at_us`.
    Playing {
        over_at_us: u64,
    },
    /// Lockstep: the harness makes each change of the contact (bounce
    /// edges, the release) at the stop of its instant, `steps[next]` next.
    Contact {
        button: ButtonId,
        steps: Vec<(u64, bool)>,
        next: usize,
    },
}

impl<'a> Session<'a> {
    pub fn new(target: &'a mut dyn Target, link: &'a mut dyn RecordLink, options: RunOptions) -> Session<'a> {
        let lockstep = target.capabilities().lockstep;
        Session {
            target,
            link,
            options,
            hello: None,
            capabilities: None,
            time_bases: Vec::new(),
            guest_us: None,
            last_progress: Instant::now(),
            counter_readings: Vec::new(),
            counter_readable: true,
            counter_read_at_us: None,
            lockstep,
            want_tick: false,
            at_tick: false,
            tick_guest_us: None,
            machine_us: None,
            at_record: false,
            after_record: None,
            anchor: None,
            control_set: false,
            arbiter_sent: Vec::new(),
            stops: StopTally::default(),
            stop_began: None,
        }
    }

    /// Guest time as far as the harness knows it: once anchored, the
    /// machine's clock; before, the latest instant a record spoke of, or in
    /// lockstep the latest tick stop if later.
    fn guest(&self) -> Option<u64> {
        if let (Some(anchor), Some(machine_us)) = (self.anchor, self.machine_us) {
            return Some(anchor.guest_at(machine_us));
        }
        match (self.guest_us, self.tick_guest_us) {
            (Some(record), Some(tick)) => Some(record.max(tick)),
            (record, tick) => record.or(tick),
        }
    }

    /// Lets guest time go on once nothing new `came`: a lockstep board runs
    /// to its next stop (a record, or a tick while `want_tick`); any other
    /// board is left running while the host sleeps.
    fn wait_for_more(&mut self, came: usize) -> Result<(), RunError> {
        // What came is looked at first: a lockstep run acts at this stop.
        if came > 0 {
            return Ok(());
        }
        if !self.lockstep {
            std::thread::sleep(self.options.poll_interval);
            return Ok(());
        }
        let plan = StepPlan { watch: self.link.record_written_at(), tick: self.want_tick, skip_ticks: 0 };
        // Nothing touches a board that is still running towards its stop:
        // a read would halt it at a point the host's speed decides. How
        // long the host takes decides nothing either, short of a hang.
        let waiting_since = Instant::now();
        self.close_stop(waiting_since);
        let stop = loop {
            if let Some(stop) = self.target.step(&plan, STEP_SLICE)? {
                break stop;
            }
            self.interrupted()?;
            if waiting_since.elapsed() > self.options.emulator_timeout {
                return Err(RunError::NoStop {
                    waiting_for: "the board's next lockstep stop".to_string(),
                    timeout: self.options.emulator_timeout,
                    last_at_us: self.guest_us,
                });
            }
        };
        self.at_tick = matches!(stop, Stop::Tick { .. });
        self.stop_began = Some((self.at_tick, waiting_since));
        let record_machine_us = self.machine_us;
        self.machine_us = self.target.machine_time_us()?;
        let after_record = self.after_record.take().map(|record_us| (record_us, record_machine_us));
        self.at_record = matches!(stop, Stop::Written);
        if let Stop::Tick { ticks } = stop {
            self.tick_stop(ticks, after_record);
        }
        Ok(())
    }

    /// The game's stops, the latest closed now.
    fn take_stops(&mut self) -> StopTally {
        self.close_stop(Instant::now());
        std::mem::take(&mut self.stops)
    }

    /// The latest stop is over at `now`: its host time is counted.
    fn close_stop(&mut self, now: Instant) {
        if let Some((tick, began)) = self.stop_began.take() {
            self.stops.note(tick, now.saturating_duration_since(began));
        }
    }

    /// Guest time at a tick stop. A record's instant, counted on by the
    /// ticks of the tick stop right after its own stop, is the firmware's
    /// instant there (the emulator moved guest time to the tick as it
    /// stopped for the record, hil/LOCKSTEP.md); a record stamped before it
    /// was written (a Snapshot of the last display update, CONTRACT §3)
    /// gives an earlier one. With the machine's clock every such instant is
    /// an anchor, and the latest they show, carried to now on that clock,
    /// is guest time: one record stamped as it was sent sets it right for
    /// the whole run.
    ///
    /// Where stops change nothing (QEMU's lockstep plugin) the tick stop is
    /// the SysTick exception's entry and the record stop is right after the
    /// record was written, both on the machine's clock. The firmware's
    /// clock at the tick stop is then at least the record's instant carried
    /// on by the machine time between the two (a record is stamped before
    /// it is written; the C example stamps some 2 ms before), and it is a
    /// whole tick there: the first tick at or after that instant. (A
    /// firmware that counted a tick still pending as it stamped, with the
    /// exception taken only after the write, would put this a tick late:
    /// within `press.stamp`'s tolerance.)
    fn tick_stop(&mut self, ticks: u32, after_record: Option<(u64, Option<u64>)>) {
        let tick_us = self.hello.map_or(1_000, |hello| u64::from(hello.tick_us)).max(1);
        let counted_on = |from: u64| (from / tick_us).saturating_add(u64::from(ticks)).saturating_mul(tick_us);
        if self.anchor.is_none() {
            self.tick_guest_us = Some(counted_on(self.guest().unwrap_or(0)));
        }
        let (Some(_), Some(machine_us), Some((record_us, record_machine_us))) =
            (self.hello, self.machine_us, after_record)
        else {
            return;
        };
        let guest_us = match record_machine_us.filter(|_| self.target.capabilities().invisible_stops) {
            Some(written_us) => {
                let there = record_us.saturating_add(machine_us.saturating_sub(written_us));
                there.div_ceil(tick_us).saturating_mul(tick_us)
            }
            None => counted_on(record_us),
        };
        let candidate = MachineAnchor { guest_us, machine_us };
        if self.anchor.is_none_or(|anchor| candidate.guest_us > anchor.guest_at(machine_us)) {
            self.anchor = Some(candidate);
        }
    }

    /// Now, for silence to count from.
    fn since(&self) -> Since {
        Since { host: Instant::now(), guest_us: self.guest().unwrap_or(0) }
    }

    /// What the firmware supports: its Capabilities record (contract 3), or
    /// [`Capabilities::BEFORE_CONTRACT_3`]. Waits for the Hello if needed.
    pub fn capabilities(&mut self) -> Result<Capabilities, RunError> {
        self.hello()?;
        Ok(self.capabilities.unwrap_or(Capabilities::BEFORE_CONTRACT_3))
    }

    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// The firmware's Hello, waiting for it (and, from contract 3, for the
    /// Capabilities record right after it) if not seen yet.
    pub fn hello(&mut self) -> Result<Hello, RunError> {
        if let (Some(hello), Some(_)) = (self.hello, self.capabilities) {
            return Ok(hello);
        }
        // Nothing else makes the board stop while no record comes: count
        // guest time in ticks meanwhile, so a firmware that sends nothing is
        // judged after the silence limit of guest time, not the emulator's
        // host-time guard.
        self.want_tick = self.lockstep;
        let hello = self.await_hello();
        self.want_tick = false;
        hello
    }

    /// Reads records until the Hello (and the Capabilities it owes) came.
    /// Each is owed within the silence limit of the wait's start, however
    /// many other records come meanwhile.
    fn await_hello(&mut self) -> Result<Hello, RunError> {
        let mut waiting_since = self.since();
        let mut came = 0;
        loop {
            let mut fresh = Vec::new();
            self.pump(&mut fresh)?;
            if let Some(capabilities) = fresh.iter().find_map(|record| match record.body {
                Body::Capabilities(capabilities) => Some(capabilities),
                _ => None,
            }) {
                self.capabilities = Some(capabilities);
            }
            if self.hello.is_none() {
                if let Some(hello) = fresh.iter().find_map(|record| match record.body {
                    Body::Hello(hello) => Some(hello),
                    _ => None,
                }) {
                    check_hello(&hello)?;
                    self.hello = Some(hello);
                    if hello.contract_version < CONTRACT_VERSION_CAPABILITIES {
                        self.capabilities = Some(Capabilities::BEFORE_CONTRACT_3);
                    }
                    (waiting_since, came) = (self.since(), 0);
                }
            }
            if let (Some(hello), Some(_)) = (self.hello, self.capabilities) {
                return Ok(hello);
            }
            came += fresh.len();
            let (waiting_for, why) = match self.hello {
                None => ("the Hello record", "a firmware sends its Hello first after boot (hil/CONTRACT.md §3)"),
                Some(_) => ("the Capabilities record", "contract 3 sends it right after Hello (hil/CONTRACT.md §3)"),
            };
            self.overdue(waiting_for, waiting_since, came, why)?;
            self.wait_for_more(fresh.len())?;
        }
    }

    /// Every TimeBase record seen in the session.
    pub fn time_bases(&self) -> &[Record] {
        &self.time_bases
    }

    /// Listens on after the session's games (`runs`) until it holds
    /// [`TIME_BASES_MIN`] TimeBase records; at once when it already does,
    /// or when the last game ended in a failure (the board is not to be
    /// waited for again). Ends like a game does on a silent or restarted
    /// firmware or a stop.
    pub fn gather_time_bases(&mut self, runs: &[GameRun]) -> Result<(), RunError> {
        if runs.last().is_none_or(|run| run.error.is_some()) {
            return Ok(());
        }
        let since = self.since();
        let mut records = Vec::new();
        while self.time_bases.len() < TIME_BASES_MIN {
            let came = self.pump(&mut records)?;
            self.check_restart(&records, 0)?;
            records.clear();
            self.alive("TimeBase records to measure the drift", since)?;
            self.wait_for_more(came)?;
        }
        Ok(())
    }

    /// Accounting drift over the whole session.
    pub fn drift(&self) -> Result<Fit, FitError> {
        let Some(hello) = self.hello else { return Err(FitError::TooFew { used: 0 }) };
        drift::fit(&drift::accounting_samples(&self.time_bases, &hello), &self.options.drift)
    }

    /// Every counter read of the session.
    pub fn counter_readings(&self) -> &[CounterReading] {
        &self.counter_readings
    }

    /// Oscillator drift over the whole session; `None` when the backend
    /// cannot read the board's counter against host time.
    pub fn oscillator(&self) -> Option<Oscillator> {
        if self.counter_readings.is_empty() && !self.counter_readable {
            return None;
        }
        let hello = self.hello?;
        let samples = drift::oscillator_samples(&self.counter_readings, hello.hw_counter_hz, hello.hw_counter_bits);
        let trips: Vec<u64> = self.counter_readings.iter().map(CounterReading::round_trip_us).collect();
        Some(Oscillator {
            fit: drift::fit(&samples, &self.options.drift),
            samples,
            round_trip: Percentiles::of(&trips),
            round_trip_margin_us: self.options.drift.round_trip_margin_us,
        })
    }

    /// Reads the board's counter against host time when
    /// [`RunOptions::counter_interval_us`] of guest time has passed.
    fn read_counter_when_due(&mut self) -> Result<(), RunError> {
        let Some(guest) = self.guest() else { return Ok(()) };
        let due =
            self.counter_read_at_us.is_none_or(|last| guest >= last.saturating_add(self.options.counter_interval_us));
        if !self.counter_readable || !due {
            return Ok(());
        }
        self.counter_read_at_us = Some(guest);
        match self.target.read_counter()? {
            Some(reading) => self.counter_readings.push(reading),
            None => self.counter_readable = false,
        }
        Ok(())
    }

    /// Polls once; new records go to `into` (and TimeBase records to the
    /// session's list). Returns how many came.
    fn pump(&mut self, into: &mut Vec<Record>) -> Result<usize, RunError> {
        let before = into.len();
        self.link.poll(self.target, into)?;
        if let Some(bad) = self.link.undecodable() {
            let seq = u32::from_le_bytes([bad.bytes[4], bad.bytes[5], bad.bytes[6], bad.bytes[7]]);
            return Err(RunError::Undecodable { seq, kind: bad.bytes[0], bad });
        }
        let fresh = into.get(before..).unwrap_or_default();
        for record in fresh {
            let latest = latest_instant(record);
            if self.at_record {
                self.after_record = Some(self.after_record.map_or(latest, |after| after.max(latest)));
            }
            self.check_stamp(record, latest)?;
            if self.guest_us.is_none_or(|guest| latest > guest) {
                self.guest_us = Some(latest);
                self.last_progress = Instant::now();
            }
            if matches!(record.body, Body::TimeBase(_)) {
                self.time_bases.push(*record);
            }
        }
        let came = fresh.len();
        self.read_counter_when_due()?;
        Ok(came)
    }

    /// Fails when `record` speaks of an instant (`latest`) more than the
    /// silence limit after every instant the harness knew of: no record of
    /// a firmware that kept the contract's cadence can.
    fn check_stamp(&self, record: &Record, latest: u64) -> Result<(), RunError> {
        let Some(before_us) = self.guest() else { return Ok(()) };
        let limit_us = u64::try_from(self.options.silence_timeout.as_micros()).unwrap_or(u64::MAX);
        match latest.saturating_sub(before_us) > limit_us {
            true => Err(RunError::StampAhead {
                kind: format!("{:?}", record.body.kind()),
                seq: record.seq,
                at_us: latest,
                before_us,
                limit: self.options.silence_timeout,
            }),
            false => Ok(()),
        }
    }

    /// Fails when the run was stopped.
    fn interrupted(&self) -> Result<(), RunError> {
        match self.options.stop.as_ref().is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            true => Err(RunError::Interrupted),
            false => Ok(()),
        }
    }

    /// Fails when the run was stopped, or nothing new came for too long
    /// (since the last progress, or since `waiting_since`, whichever is
    /// later): in guest time in lockstep, else in host time.
    fn alive(&self, waiting_for: &str, waiting_since: Since) -> Result<(), RunError> {
        self.interrupted()?;
        let waited = if self.lockstep {
            let progress_us = self.guest_us.unwrap_or(0).max(waiting_since.guest_us);
            Waited::GuestUs(self.guest().unwrap_or(0).saturating_sub(progress_us))
        } else {
            Waited::Host(self.last_progress.elapsed().min(waiting_since.host.elapsed()))
        };
        self.judge_silence(waiting_for, waited)
    }

    /// How long since `since`, in the time the board runs on; records that
    /// came meanwhile do not restart it.
    fn waited_since(&self, since: Since) -> Waited {
        match self.lockstep {
            true => Waited::GuestUs(self.guest().unwrap_or(0).saturating_sub(since.guest_us)),
            false => Waited::Host(since.host.elapsed()),
        }
    }

    /// Fails when the run was stopped, or `waiting_for` did not come
    /// within the silence limit of `since`: silent when nothing came
    /// (`came` records since), missing when other records did.
    fn overdue(&self, waiting_for: &str, since: Since, came: usize, why: &'static str) -> Result<(), RunError> {
        self.interrupted()?;
        let waited = self.waited_since(since);
        match (self.judge_silence(waiting_for, waited), came) {
            (Err(RunError::Silent { .. }), 1..) => Err(RunError::Missing {
                waiting_for: waiting_for.to_string(),
                waited,
                came,
                last_at_us: self.guest_us,
                why,
            }),
            (outcome, _) => outcome,
        }
    }

    /// Fails when `waited` is past the silence limit.
    fn judge_silence(&self, waiting_for: &str, waited: Waited) -> Result<(), RunError> {
        let limit = self.options.silence_timeout;
        let silent = match waited {
            Waited::Host(host) => host > limit,
            Waited::GuestUs(us) => u128::from(us) > limit.as_micros(),
        };
        match silent {
            true => Err(RunError::Silent { waiting_for: waiting_for.to_string(), waited, last_at_us: self.guest_us }),
            false => Ok(()),
        }
    }

    /// Sends `command`, written as the contract's crate writes it
    /// ([`Command::encode`]), and waits for its Ack.
    fn command(&mut self, command: &Command<'_>, records: &mut Vec<Record>) -> Result<(u64, Ack), RunError> {
        let (line, from) = self.send(command, records)?;
        let code = command.code();
        self.ack_after(&line, records, from, |ack| ack.command == code)
    }

    /// Sends `command` without waiting: its line, and where in `records`
    /// its Ack is to be looked for.
    fn send(&mut self, command: &Command<'_>, records: &[Record]) -> Result<(String, usize), RunError> {
        let line = command_line(command)?;
        let from = records.len();
        self.link.send_line(self.target, &line)?;
        Ok((line, from))
    }

    /// Waits for the first Ack among `records[from..]` that `wanted`
    /// takes, the answer to `line` (sent just before).
    fn ack_after(
        &mut self,
        line: &str,
        records: &mut Vec<Record>,
        from: usize,
        wanted: impl Fn(&Ack) -> bool,
    ) -> Result<(u64, Ack), RunError> {
        let sent = self.since();
        let waiting_for = format!("the Ack of `{line}`");
        let mut checked = from;
        loop {
            let found = records.iter().skip(checked).find_map(|record| match record.body {
                Body::Ack(ack) if wanted(&ack) => Some((record.at_us, ack)),
                _ => None,
            });
            if let Some(answer) = found {
                self.want_tick = false;
                return Ok(answer);
            }
            checked = records.len();
            self.check_restart(records, from)?;
            let came = self.pump(records)?;
            // An Ack must come even while Snapshots keep the guest time moving.
            let why = "every command line gets one Ack (hil/CONTRACT.md §4)";
            self.overdue(&waiting_for, sent, records.len().saturating_sub(from), why)?;
            self.alive(&waiting_for, sent)?;
            // Owed at once: in lockstep, count guest time in ticks meanwhile,
            // so a firmware that answers nothing, records or Acks, is judged
            // in guest time too.
            self.want_tick = self.lockstep;
            self.wait_for_more(came)?;
        }
    }

    /// A Hello with seq 0 among `records[from..]`: the firmware restarted.
    fn check_restart(&self, records: &[Record], from: usize) -> Result<(), RunError> {
        match records.iter().skip(from).find(|record| matches!(record.body, Body::Hello(_)) && record.seq == 0) {
            Some(record) => Err(RunError::Restarted { at_us: record.at_us }),
            None => Ok(()),
        }
    }

    /// Plays `schedule` to its end (or to a failure): what happened, for
    /// the judge ([`PlayedGame::judged`]).
    pub fn play(&mut self, schedule: &Schedule, progress: &mut dyn FnMut(&Progress)) -> PlayedGame {
        let started = Instant::now();
        self.arbiter_sent.clear();
        // The stops before the game (the Hello's) are not the game's.
        self.stop_began = None;
        self.stops = StopTally::default();
        let mut course = Course::default();
        let hello = self.hello();
        let tick_us = hello.as_ref().map_or(0, |hello| u64::from(hello.tick_us));
        let outcome = match hello {
            Ok(hello) => self.drive(schedule, &hello, &mut course, progress),
            Err(error) => Err(error),
        };
        let error = outcome.err();
        if error.is_some() {
            // Best effort: do not leave a button down.
            for button in [ButtonId::White, ButtonId::Black, ButtonId::Pause] {
                let _ = self.target.set_button(button, false);
            }
        }
        let guest_us = match (course.start_us, self.guest()) {
            (Some(start), Some(guest)) => guest.saturating_sub(start),
            _ => 0,
        };
        let ranges = self.capabilities.map_or(Ranges::UNDECLARED, |capabilities| capabilities.ranges);
        PlayedGame {
            schedule: schedule.clone(),
            records: course.records,
            tick_us,
            start_us: course.start_us,
            sent: course.sent,
            commands_sent: std::mem::take(&mut self.arbiter_sent),
            guest_us,
            host_elapsed: started.elapsed(),
            error,
            terms: Terms::Contract { hello: self.hello, ranges, lockstep: self.lockstep, drift: self.options.drift },
            stops: self.take_stops(),
        }
    }

    fn drive(
        &mut self,
        schedule: &Schedule,
        hello: &Hello,
        course: &mut Course,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(), RunError> {
        let Course { records, sent, start_us } = course;
        let start = self.begin_game(schedule, records)?;
        *start_us = Some(start);

        let capabilities = self.target.capabilities();
        // Bounce is made only where the board times it, and only inside the
        // firmware's window with a tick to spare: later edges are presses.
        let timed_bounce = self.options.bounce && capabilities.timed_bounce;
        let window_us = u64::from(hello.debounce_us);
        let tick_us = u64::from(hello.tick_us);
        let plan = Plan {
            debounce_us: window_us.saturating_add(1_000),
            bounce_lead_us: capabilities.bounce_lead_us,
            bounce_fits: move |bounce: &Bounce| timed_bounce && bounce.span_us().saturating_add(tick_us) < window_us,
        };
        let mut play = Play::new(start);
        let total = schedule.presses.len();
        let duration_us = schedule.duration_us();
        let play_from = records.len();
        let waiting_since = self.since();
        loop {
            let came = self.pump(records)?;
            self.check_restart(records, play_from)?;
            let guest = self.guest().unwrap_or(start).max(start);
            if play.finished_at.is_none()
                && records
                    .iter()
                    .skip(play_from)
                    .any(|record| matches!(record.body, Body::Snapshot(snapshot) if snapshot.phase == Phase::Finished))
            {
                play.finished_at = Some(guest);
            }
            self.send_due_commands(schedule, &mut play, guest, records)?;
            let released = self.act(schedule, &plan, &mut play, guest, sent)?;
            let report = |play: &Play| Progress {
                game: schedule.game,
                presses_sent: play.next,
                presses_total: total,
                guest_us: guest - start,
                duration_us,
            };
            if released {
                progress(&report(&play));
            }
            if self.game_over(schedule, &mut play, guest, records, came) {
                progress(&report(&play));
                return Ok(());
            }
            if guest.saturating_sub(play.reported_us) >= 250_000 {
                play.reported_us = guest;
                progress(&report(&play));
            }
            let waiting_for = match play.state {
                PressState::Held { .. } | PressState::Playing { .. } | PressState::Contact { .. } => {
                    "guest time to pass while a button is held".to_string()
                }
                PressState::Up if play.next < total => format!("the guest instant of press {}", play.next),
                PressState::Up => "the end of the game".to_string(),
            };
            // Where stops change nothing, the release and the game's end
            // are made at their tick too: where else the harness stopped
            // then changes no report.
            let exact = capabilities.invisible_stops;
            let due = play.next_timed_edge_us(schedule, exact).into_iter().chain(play.ends_at_us.filter(|_| exact));
            self.want_tick = self.lockstep && due.min().is_some_and(|due| due <= guest + TICK_LEAD_US);
            self.alive(&waiting_for, waiting_since)?;
            self.wait_for_more(came)?;
        }
    }

    /// `reset`, `tc`, `start`, each acknowledged as the contract says
    /// (§4, §12): the game's start instant, the `start` Ack's.
    fn begin_game(&mut self, schedule: &Schedule, records: &mut Vec<Record>) -> Result<u64, RunError> {
        let refused = |command: &Command<'_>, ack: &Ack| match command_line(command) {
            Ok(line) => RunError::Refused { line, status: ack.status, position: ack.error_position },
            Err(error) => error,
        };
        // A new game: allowed once a `tc` was accepted, the Ack probe's or
        // the last game's (contract §4); refused before any.
        let (_, ack) = self.command(&Command::Reset, records)?;
        let reset_status = if self.control_set { AckStatus::Ok } else { AckStatus::NotAllowed };
        if ack.status != reset_status {
            return Err(refused(&Command::Reset, &ack));
        }
        let control = Command::TimeControl(&schedule.control.text);
        let (_, ack) = self.command(&control, records)?;
        if ack.status != AckStatus::Ok {
            return Err(refused(&control, &ack));
        }
        self.control_set = true;
        let (at_us, ack) = self.command(&Command::Start, records)?;
        if ack.status != AckStatus::Ok {
            return Err(refused(&Command::Start, &ack));
        }
        Ok(at_us)
    }

    /// Sends the arbiter commands due at `guest` (contract 3: `adjust`,
    /// `moves`) while no button is down, each once the presses before it in
    /// the game are made, and waits for its Ack. A refusal is not a run
    /// error: the comparison judges it against the model.
    fn send_due_commands(
        &mut self,
        schedule: &Schedule,
        play: &mut Play,
        guest: u64,
        records: &mut Vec<Record>,
    ) -> Result<(), RunError> {
        if !matches!(play.state, PressState::Up) || play.finished_at.is_some() {
            return Ok(());
        }
        while let Some(command) = play.pending_command(schedule).copied() {
            if guest < play.start.saturating_add(command.offset_us) {
                break;
            }
            let contract_command = command.command.command();
            let (line, from) = self.send(&contract_command, records)?;
            self.arbiter_sent.push(command.command);
            play.next_command += 1;
            let code = contract_command.code();
            self.ack_after(&line, records, from, |ack| ack.command == code)?;
        }
        Ok(())
    }

    /// In [`PressState::Up`]: presses the next button when its press is
    /// due, its debounce window over and (in lockstep) guest time exact.
    fn press_if_due<F: Fn(&Bounce) -> bool>(
        &mut self,
        schedule: &Schedule,
        plan: &Plan<F>,
        play: &mut Play,
        guest: u64,
        sent: &mut Vec<SentPress>,
    ) -> Result<bool, RunError> {
        // An arbiter command that comes first in the game goes first.
        if play.pending_command(schedule).is_some() {
            return Ok(false);
        }
        let Some(press) = schedule.presses.get(play.next) else { return Ok(false) };
        let due = play.start.saturating_add(press.offset_us);
        let bounce = if (plan.bounce_fits)(&press.bounce) { press.bounce } else { Bounce::NONE };
        // A bounced press the board plays starts after its lead-in:
        // send it that much earlier, so its first edge lands when due.
        let lead_us = if bounce.is_none() { 0 } else { plan.bounce_lead_us };
        let down_us = guest.saturating_add(lead_us);
        let slot = match press.button {
            ButtonId::White => 0,
            ButtonId::Black => 1,
            ButtonId::Pause => 2,
        };
        let spaced = play
            .last_down
            .get(slot)
            .copied()
            .flatten()
            .is_none_or(|last| down_us >= last.saturating_add(plan.debounce_us));
        // In lockstep an edge is made only where guest time is known
        // exactly, a tick stop: at a record stop the emulator has
        // moved on past the record's instant, and the firmware
        // stamped such an edge up to 2 ms after the instant the
        // harness took for it (a false `press.stamp`).
        let placed = !self.lockstep || self.at_tick;
        if down_us < due || !spaced || play.finished_at.is_some() || !placed {
            return Ok(false);
        }
        let hold_ms = u32::try_from(press.hold_us.div_ceil(1_000)).unwrap_or(u32::MAX);
        let mut window = None;
        play.state = if self.lockstep {
            // Every edge at its own stop: the first one now.
            self.target.set_button(press.button, true)?;
            let steps = bounce.contact_steps(hold_ms);
            let steps = steps.iter().map(|(after_us, closed)| (down_us.saturating_add(*after_us), *closed));
            PressState::Contact { button: press.button, steps: steps.skip(1).collect(), next: 0 }
        } else if bounce.is_none() {
            window = self.target.set_button_timed(press.button, true)?;
            PressState::Held { button: press.button, release_at_us: guest.saturating_add(press.hold_us) }
        } else {
            self.target.press_with_bounce(press.button, &bounce, hold_ms)?;
            // The key queue holds, releases, then waits the hold again.
            let queued_us = 2 * u64::from(hold_ms) * 1_000;
            PressState::Playing { over_at_us: down_us.saturating_add(bounce.span_us()).saturating_add(queued_us) }
        };
        if let Some(last) = play.last_down.get_mut(slot) {
            *last = Some(down_us.saturating_add(bounce.span_us()));
        }
        sent.push(SentPress { button: press.button, scheduled_us: due, sent_us: down_us, window, bounce });
        Ok(false)
    }

    /// Makes the edges due at `guest`: the next press when it is due (and
    /// its button's debounce window is over), a release, or in lockstep
    /// the next change of a press's contact. True when a press is over.
    fn act<F: Fn(&Bounce) -> bool>(
        &mut self,
        schedule: &Schedule,
        plan: &Plan<F>,
        play: &mut Play,
        guest: u64,
        sent: &mut Vec<SentPress>,
    ) -> Result<bool, RunError> {
        match &mut play.state {
            PressState::Up => self.press_if_due(schedule, plan, play, guest, sent),
            PressState::Held { button, release_at_us } => {
                if guest < *release_at_us {
                    return Ok(false);
                }
                self.target.set_button(*button, false)?;
                Ok(play.release(guest))
            }
            PressState::Playing { over_at_us } => Ok(guest >= *over_at_us && play.release(guest)),
            PressState::Contact { button, steps, next } => {
                while let Some((at_us, closed)) = steps.get(*next).copied() {
                    // Bounce edges at tick stops, like the first edge; the
                    // release (the last step) at the first stop after it.
                    let timed = *next + 1 < steps.len();
                    if guest < at_us || (timed && !self.at_tick) {
                        return Ok(false);
                    }
                    self.target.set_button(*button, closed)?;
                    *next += 1;
                }
                Ok(play.release(guest))
            }
        }
    }

    /// Whether the game is over: every press made and both the firmware
    /// and the model done with it (or a bounded guest time after the
    /// schedule's end), a tail of guest time after the last of them so the
    /// last records are in.
    fn game_over(&self, schedule: &Schedule, play: &mut Play, guest: u64, records: &[Record], came: usize) -> bool {
        // No press is made after the firmware showed the game finished.
        let all_made = play.next >= schedule.presses.len() && play.next_command >= schedule.commands.len();
        let pressing_done = matches!(play.state, PressState::Up) && (all_made || play.finished_at.is_some());
        if !pressing_done {
            return false;
        }
        let tail_us = self.options.tail_us;
        let scheduled_end = play.start.saturating_add(schedule.duration_us()).max(play.last_release_us);
        // A game the schedule ends on a flag: the model, on the presses the
        // firmware saw, may see it after the scheduled end; wait for it,
        // within a bound. (A game ended by the move bound or on the board
        // ends there: its next flag is not part of it.)
        let ends_on_time = matches!(schedule.end, ScheduleEnd::Flag { .. } | ScheduleEnd::DefaultTime { .. });
        if ends_on_time && (came > 0 || play.model_quiet_us.is_none()) {
            let arbiter = &self.arbiter_sent;
            play.model_quiet_us = Some(compare::model_quiet_us(schedule.control.control, records, arbiter));
        }
        let bound = scheduled_end.saturating_add(MODEL_WAIT_MAX_US);
        let model_end = play.model_quiet_us.unwrap_or(0).min(bound);
        let end = scheduled_end.max(model_end).saturating_add(tail_us);
        let firmware_done_at = play.finished_at.map(|at| at.max(model_end).saturating_add(tail_us));
        let ends_at = firmware_done_at.map_or(end, |done| done.min(end));
        play.ends_at_us = Some(ends_at);
        guest >= ends_at
    }
}

/// Guest time a run waits past the schedule's end for a flag the model
/// sees later (the firmware's presses came later than scheduled), µs.
const MODEL_WAIT_MAX_US: u64 = 30_000_000;

/// What a game's presses are made of, fixed for the game.
struct Plan<F> {
    /// A button is pressed again at the earliest this long after its last
    /// closing edge (the firmware's debounce window and a millisecond).
    debounce_us: u64,
    bounce_lead_us: u64,
    bounce_fits: F,
}

/// Where a game's presses stand.
struct Play {
    start: u64,
    state: PressState,
    /// The next press of the schedule to make.
    next: usize,
    /// The next arbiter command of the schedule to send.
    next_command: usize,
    last_down: [Option<u64>; 3],
    last_release_us: u64,
    reported_us: u64,
    /// Guest instant the firmware was first seen to show the game finished.
    finished_at: Option<u64>,
    /// The instant after which the model, on the records so far, changes
    /// nothing more.
    model_quiet_us: Option<u64>,
    /// The game ends at the first stop at or after this guest instant, as
    /// far as the records so far tell (once every press is made).
    ends_at_us: Option<u64>,
}

impl Play {
    fn new(start: u64) -> Play {
        Play {
            start,
            state: PressState::Up,
            next: 0,
            last_down: [None, None, None],
            next_command: 0,
            last_release_us: start,
            reported_us: 0,
            finished_at: None,
            model_quiet_us: None,
            ends_at_us: None,
        }
    }

    /// The press is over: the next one may come. Always true.
    fn release(&mut self, guest: u64) -> bool {
        self.last_release_us = guest;
        self.next += 1;
        self.state = PressState::Up;
        true
    }

    /// The next arbiter command, once every press before it is made.
    fn pending_command<'s>(&self, schedule: &'s Schedule) -> Option<&'s ScheduledCommand> {
        schedule.commands.get(self.next_command).filter(|command| command.after_presses <= self.next)
    }

    /// The guest instant of the next edge the harness makes at a tick, if
    /// any: a press's first edge and its bounce. Its release is made at the
    /// first stop after the hold (a record comes at least every 100 ms),
    /// which spares a hold's worth of tick stops, unless `exact_release`.
    fn next_timed_edge_us(&self, schedule: &Schedule, exact_release: bool) -> Option<u64> {
        match &self.state {
            PressState::Up if self.finished_at.is_none() => match self.pending_command(schedule) {
                Some(command) => Some(self.start.saturating_add(command.offset_us)),
                None => schedule.presses.get(self.next).map(|press| self.start.saturating_add(press.offset_us)),
            },
            PressState::Up => None,
            PressState::Held { release_at_us, .. } => Some(*release_at_us),
            PressState::Playing { over_at_us } => Some(*over_at_us),
            PressState::Contact { steps, next, .. } => {
                steps.get(*next).filter(|_| exact_release || *next + 1 < steps.len()).map(|(at_us, _)| *at_us)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use bench_contract::{Ack, AckStatus, Body, Command, CommandCode};
    use bench_sim::scenario::Scenario;

    use super::*;
    use crate::schedule;
    use crate::session::rtt::{ControlBlockLocation, RttReader};
    use crate::target::Capabilities as BoardCapabilities;
    use crate::testing::board::{contract_button, DownLine, FakeConfig, FakeCounter, FakeSteps, FakeTarget, Fault};
    use crate::testing::firmware::{Defects, FakeFirmware};

    /// Short games: 30 s + 1 s, quick players, 8 moves each.
    const SCENARIO: &str = r#"
description = "run test"
control = "30+1"
games = 3
seed = 4

[players]
think = { distribution = "uniform", min_ms = 200, max_ms = 1500 }

[board]
ends_per_move = 0
max_moves = 8
"#;

    fn scenario(control: &str) -> Scenario {
        let text = SCENARIO.replace("\"30+1\"", &format!("{control:?}"));
        Scenario::parse(&text, Path::new("scenarios/run-test.toml")).expect("the test scenario parses")
    }

    /// How the fake board's firmware behaves.
    #[derive(Clone, Copy, Default)]
    struct Behaviour {
        defects: Defects,
        /// The firmware clock's rate error against the board's time.
        drift_ppm: f64,
        /// Board time after which the firmware sends nothing.
        silent_after_us: Option<u64>,
        /// Answer `tc` with "bad time control" at byte 2.
        refuse_tc: bool,
        /// Answer `reset` with "not allowed", a control set or not.
        refuse_reset: bool,
        /// A board counter the host reads (probe-like); the firmware then
        /// stamps it at each edge and sends it in TimeBase records.
        counter: Option<&'static FakeCounter>,
        /// From the edge to the firmware's counter read in its interrupt, µs.
        isr_us: u64,
        /// A planted fault: `adjust w` is applied to Black, `adjust b` to White.
        adjust_wrong_side: bool,
        /// A planted fault: the moves of `moves` are counted one more, and a
        /// time of `set` 1 s more.
        arbiter_settings_one_off: bool,
        /// A planted fault: `replace` sets White's numbers on Black's
        /// display and Black's on White's.
        replace_sides_swapped: bool,
        /// The board runs in lockstep, QEMU's way, stepping so.
        lockstep: Option<FakeSteps>,
        /// Answer no command line (TimeBase records still come).
        deaf: bool,
        /// A TimeBase record at every main-loop turn too, so records
        /// (lockstep stops) come between every two ticks.
        chatty: bool,
    }

    /// The fake target of `crate::testing::board` running the test firmware of
    /// `crate::testing::firmware`, one main-loop turn per target call
    /// (250 µs of board time each), with a 1 Hz hardware counter.
    fn board(behaviour: Behaviour) -> FakeTarget {
        let counter = behaviour.counter.cloned();
        let counting = counter.is_some();
        let mut config = FakeConfig { us_per_call: 250, counter, ..FakeConfig::default() };
        if let Some(steps) = behaviour.lockstep {
            // The test firmware does not debounce: clean presses.
            config.capabilities = BoardCapabilities { lockstep: true, ..config.capabilities };
            config.steps = steps;
        }
        let mut target = FakeTarget::with_config(config);
        let mut firmware = FakeFirmware::new(behaviour.defects);
        let mut next_second = 1u64;
        let rate = 1.0 + behaviour.drift_ppm * 1e-6;
        let clock = move |board_us: u64| (board_us as f64 * rate) as u64;
        target.set_firmware(move |board| {
            let now = board.now_us();
            if behaviour.silent_after_us.is_some_and(|after| now >= after) {
                return;
            }
            let lines = board.take_lines();
            for line in lines.into_iter().filter(|_| !behaviour.deaf) {
                let DownLine::Line(text) = line else { continue };
                let refused = match Command::parse(text.as_bytes()) {
                    Ok(Command::TimeControl(_)) if behaviour.refuse_tc => Some(CommandCode::TimeControl),
                    Ok(Command::Reset) if behaviour.refuse_reset => Some(CommandCode::Reset),
                    _ => None,
                };
                if let Some(command) = refused {
                    let (status, error_position) = match command {
                        CommandCode::TimeControl => (AckStatus::BadTimeControl, 2),
                        _ => (AckStatus::NotAllowed, 0),
                    };
                    let ack = Ack {
                        command,
                        status,
                        error_position,
                        commands: u32::try_from(board.lines_received().len()).unwrap_or(0),
                        initial_us: 0,
                        final_period: 0,
                        side: None,
                    };
                    board.emit(clock(now), Body::Ack(ack));
                    continue;
                }
                let text = match (behaviour.adjust_wrong_side, text.strip_prefix("adjust ")) {
                    (true, Some(rest)) if rest.starts_with('w') => format!("adjust b{}", &rest[1..]),
                    (true, Some(rest)) => format!("adjust w{}", rest.get(1..).unwrap_or_default()),
                    _ => text,
                };
                let text = match text.split_once(' ').and_then(|(word, rest)| Some((word, rest.split_once(' ')?))) {
                    Some((word @ ("set" | "moves"), (side, number))) if behaviour.arbiter_settings_one_off => {
                        let one = if word == "set" { 1_000_000 } else { 1 };
                        format!("{word} {side} {}", number.parse::<u64>().map_or(0, |number| number + one))
                    }
                    _ => text,
                };
                let text = match text.strip_prefix("replace w ").and_then(|rest| rest.split_once(" b ")) {
                    Some((white, black)) if behaviour.replace_sides_swapped => format!("replace w {black} b {white}"),
                    _ => text,
                };
                firmware.command(&text, clock(now));
            }
            for edge in board.button_edges() {
                if edge.pressed {
                    let edge_counter = board.counter_at(edge.at_us + behaviour.isr_us);
                    firmware.press_counted(
                        contract_button(edge.button),
                        clock(edge.at_us),
                        clock(now) + 5,
                        edge_counter,
                    );
                }
            }
            firmware.advance(clock(now));
            while next_second * 1_000_000 <= now {
                let hw_counter = if counting { board.counter_at(next_second * 1_000_000) } else { next_second };
                firmware.time_base(clock(next_second * 1_000_000) + 3, hw_counter);
                next_second += 1;
            }
            if behaviour.chatty {
                firmware.time_base(clock(now), next_second - 1);
            }
            for record in firmware.out.drain(..) {
                board.emit(record.at_us, record.body);
            }
        });
        target.reset_and_run().expect("the fake boots");
        target
    }

    /// Silence is judged in host time: a loaded host can stall a test's
    /// loop for seconds, so only the test about silence uses a short limit.
    fn options() -> RunOptions {
        RunOptions { poll_interval: Duration::ZERO, silence_timeout: Duration::from_secs(60), ..RunOptions::default() }
    }

    /// Plays games `games` of `scenario` on a fresh fake board.
    fn play(
        behaviour: Behaviour,
        scenario: &Scenario,
        games: std::ops::Range<u64>,
        options: RunOptions,
    ) -> (Vec<GameRun>, Result<Fit, FitError>) {
        let (runs, drift, _) = play_measured(behaviour, scenario, games, options);
        (runs, drift)
    }

    /// [`play`], with the session's oscillator drift.
    fn play_measured(
        behaviour: Behaviour,
        scenario: &Scenario,
        games: std::ops::Range<u64>,
        options: RunOptions,
    ) -> (Vec<GameRun>, Result<Fit, FitError>, Option<Oscillator>) {
        let mut target = board(behaviour);
        let location = ControlBlockLocation::Address(target.board().control_block());
        let mut reader = RttReader::attach(&mut target, &location).expect("the fake has a control block");
        let mut session = Session::new(&mut target, &mut reader, options);
        let mut runs = Vec::new();
        for game in games {
            let schedule = schedule::schedule(scenario, scenario.seed, game).expect("a schedule");
            runs.push(session.play(&schedule, &mut |_| {}).judged());
        }
        let drift = session.drift();
        let oscillator = session.oscillator();
        (runs, drift, oscillator)
    }

    fn comparison(run: &GameRun) -> &Comparison {
        match &run.comparison {
            Some(Ok(comparison)) => comparison,
            other => panic!("no comparison: {other:?} ({:?})", run.error),
        }
    }

    /// [`SCENARIO`] with an arbiter at work: pauses (6.13), adjustments
    /// (6.14, 13.4), counter settings and restored positions (6.14) and
    /// clock replacements (6.11), often.
    fn arbiter_scenario() -> Scenario {
        let text = format!(
            "{SCENARIO}\n[arbiter]\npause = {{ chance = \"1/4\", min_ms = 1000, max_ms = 3000 }}\n\
             adjust = {{ chance = \"1/3\", min_ms = 2000, max_ms = 5000 }}\nset_moves = \"1/4\"\nrestore = \"1/4\"\n\
             replace_clock = \"1/4\"\n"
        );
        Scenario::parse(&text, Path::new("scenarios/run-arbiter-test.toml")).expect("the test scenario parses")
    }

    #[test]
    fn the_arbiters_pauses_adjustments_and_counter_settings_reach_the_firmware() {
        let scenario = arbiter_scenario();
        let (runs, _) = play(Behaviour::default(), &scenario, 0..3, options());
        let mut lines = Vec::new();
        let mut pauses = 0;
        for run in &runs {
            assert!(run.passed(), "{:?} {:#?}", run.error, comparison(run).mismatches);
            let scheduled: Vec<ArbiterCommand> = run.schedule.commands.iter().map(|command| command.command).collect();
            assert_eq!(run.commands_sent, scheduled, "every scheduled command sent, in order");
            lines.extend(run.commands_sent.iter().map(|command| command.line()));
            pauses += run.sent.iter().filter(|press| press.button == ButtonId::Pause).count();
            // The model applied each of them, as the coverage counts show.
            let transitions = comparison(run).model_transitions;
            let sent =
                |wanted: fn(&ArbiterCommand) -> bool| run.commands_sent.iter().filter(|sent| wanted(sent)).count();
            let count = |transition| usize::try_from(transitions.count(transition)).unwrap_or(usize::MAX);
            assert_eq!(
                count(chessclock::Transition::AdjustTime),
                sent(|sent| matches!(sent, ArbiterCommand::Adjust { .. }))
            );
            assert_eq!(
                count(chessclock::Transition::SetMoves),
                sent(|sent| matches!(sent, ArbiterCommand::SetMoves { .. }))
            );
            assert_eq!(
                count(chessclock::Transition::SetTime),
                sent(|sent| matches!(sent, ArbiterCommand::SetTime { .. }))
            );
            assert_eq!(
                count(chessclock::Transition::Replacement),
                sent(|sent| matches!(sent, ArbiterCommand::Replace { .. }))
            );
        }
        assert!(pauses >= 2, "{pauses} pause presses");
        for command in ["adjust ", "moves ", "set ", "replace "] {
            assert!(lines.iter().any(|line| line.starts_with(command)), "{command}: {lines:?}");
        }
    }

    /// [`arbiter_scenario`]'s first three games on a firmware that
    /// `behaves` so: the quantities each game that sent a command `sent`
    /// takes failed on (some game does).
    fn failed_quantities(behaviour: Behaviour, sent: fn(&ArbiterCommand) -> bool) -> Vec<Vec<String>> {
        let (runs, _) = play(behaviour, &arbiter_scenario(), 0..3, options());
        let failed: Vec<Vec<String>> = runs
            .iter()
            .filter(|run| run.commands_sent.iter().any(sent))
            .map(|run| {
                assert!(!run.passed(), "{:?}", comparison(run).by_quantity);
                comparison(run).by_quantity.keys().map(|key| key.to_string()).collect()
            })
            .collect();
        assert!(!failed.is_empty(), "some game sends the command");
        failed
    }

    /// 6.14: a firmware that sets the arbiter's times or counters wrong.
    #[test]
    fn a_firmware_that_sets_times_and_counters_one_off_fails_on_them() {
        let behaviour = Behaviour { arbiter_settings_one_off: true, ..Behaviour::default() };
        for quantities in failed_quantities(behaviour, |sent| matches!(sent, ArbiterCommand::SetTime { .. })) {
            assert!(quantities.iter().any(|key| key.contains("remaining_us")), "{quantities:?}");
            assert!(quantities.iter().any(|key| key.contains("moves")), "{quantities:?}");
        }
    }

    /// 6.11: a firmware that sets up the replacement clock with the sides'
    /// numbers the wrong way round.
    #[test]
    fn a_firmware_that_swaps_the_replacement_s_sides_fails_on_them() {
        let behaviour = Behaviour { replace_sides_swapped: true, ..Behaviour::default() };
        for quantities in failed_quantities(behaviour, |sent| matches!(sent, ArbiterCommand::Replace { .. })) {
            assert!(quantities.iter().any(|key| key.contains("remaining_us")), "{quantities:?}");
        }
    }

    #[test]
    fn a_firmware_that_adjusts_the_wrong_side_fails_on_the_remaining_time() {
        let behaviour = Behaviour { adjust_wrong_side: true, ..Behaviour::default() };
        for quantities in failed_quantities(behaviour, |sent| matches!(sent, ArbiterCommand::Adjust { .. })) {
            assert!(quantities.iter().any(|key| key.contains("remaining_us")), "{quantities:?}");
        }
    }

    #[test]
    fn a_correct_firmware_plays_every_scheduled_press_and_passes() {
        let scenario = scenario("30+1");
        let (runs, drift) = play(Behaviour::default(), &scenario, 0..2, options());
        for run in &runs {
            assert!(run.error.is_none(), "{:?}", run.error);
            let comparison = comparison(run);
            assert!(run.passed(), "{:#?}", comparison.mismatches);
            assert_eq!(run.sent.len(), run.schedule.presses.len());
            assert_eq!(comparison.presses, run.schedule.presses.len(), "every press registered once");
            assert!(run.sent.iter().all(|press| press.sent_us >= press.scheduled_us), "never early");
            // Snapshots every 100 ms: a press lands within about one of them.
            assert!(run.sent.iter().all(|press| press.sent_us - press.scheduled_us < 150_000), "{:?}", run.sent);
            assert!(run.guest_us >= run.schedule.duration_us());
            let latency = run.latency.expect("presses have latencies");
            assert_eq!(latency.count, run.schedule.presses.len());
            assert!(latency.max_us < 2_000, "{latency:?}");
        }
        let drift = drift.expect("a drift over the session");
        assert!(drift.drift_ppm.abs() < 0.5 && drift.within(1.0), "{drift}");
    }

    #[test]
    fn on_the_emulator_there_is_no_oscillator_drift_and_no_board_latency() {
        let (runs, _, oscillator) = play_measured(Behaviour::default(), &scenario("30+1"), 0..1, options());
        assert_eq!(oscillator, None);
        assert!(runs.iter().all(|run| run.board_latency.is_none() && run.sent.iter().all(|p| p.window.is_none())));
    }

    /// A probe-like board: a 84 MHz counter running 35 ppm slow against the
    /// host, read with round trips of about 0.9 ms and some slow ones in
    /// which the read lands anywhere; the firmware reads the counter 7 µs
    /// after each edge, and the host's write is bracketed by 400 µs.
    #[test]
    fn a_board_with_a_cycle_counter_gives_oscillator_drift_and_latency_on_the_board() {
        static COUNTER: FakeCounter = FakeCounter {
            hz: 84_000_000,
            oscillator_ppm: -35.0,
            round_trips_us: Vec::new(),
            slow_read_at_percent: Vec::new(),
            write_bracket_us: 400,
        };
        let counter: &'static FakeCounter = Box::leak(Box::new(FakeCounter {
            round_trips_us: vec![900, 950, 920, 6_000, 910, 930, 15_000, 940, 905],
            slow_read_at_percent: vec![5, 95, 30],
            ..COUNTER.clone()
        }));
        let behaviour = Behaviour { counter: Some(counter), isr_us: 7, ..Behaviour::default() };
        // Four short games: more than the 51 s after which a 32-bit counter at 84 MHz wraps.
        let (runs, drift, oscillator) = play_measured(behaviour, &scenario("30+1"), 0..4, options());
        assert!(runs.iter().all(GameRun::passed), "{:?}", runs.iter().map(|run| &run.error).collect::<Vec<_>>());
        let oscillator = oscillator.expect("the counter is readable");
        let fit = oscillator.fit.expect("an oscillator fit");
        assert!(fit.span_us > 52e6 && fit.samples > 500, "{fit}");
        // Reads 3 and 6 of every 9 are slow.
        let slow = fit.samples / 9 * 2 + usize::from(fit.samples % 9 > 3) + usize::from(fit.samples % 9 > 6);
        assert_eq!(fit.samples - fit.used, slow, "slow reads dropped");
        assert!(fit.ci_low_ppm() <= -35.0 && -35.0 <= fit.ci_high_ppm(), "{fit}");
        assert!((fit.drift_ppm + 35.0).abs() < 1.0, "{fit}");
        let trips = oscillator.round_trip.expect("round trips");
        assert_eq!((trips.min_us, trips.p50_us, trips.max_us), (900, 930, 15_000));
        // The firmware clock runs on the board's own counter: no accounting drift.
        assert!(drift.expect("an accounting drift").within(0.5));
        for run in &runs {
            let measured = run.board_latency.clone().expect("latency on the board");
            assert_eq!(measured.unmatched, 0);
            assert_eq!(measured.latency.count, run.sent.len());
            assert_eq!((measured.latency.min_us, measured.latency.max_us), (207, 207));
            assert_eq!((measured.bracket.min_us, measured.bracket.max_us), (400, 400));
        }
    }

    #[test]
    fn a_wrong_reload_shows_as_accounting_drift_not_as_a_mismatch() {
        let scenario = scenario("30+1");
        let behaviour = Behaviour { drift_ppm: -1e6 / 12_501.0, ..Behaviour::default() };
        let (runs, drift) = play(behaviour, &scenario, 0..2, options());
        assert!(runs.iter().all(GameRun::passed), "the firmware's own stamps are replayed");
        let drift = drift.expect("a drift");
        assert!((drift.drift_ppm + 80.0).abs() < 0.5, "{drift}");
        assert!(!drift.within(5.0));
    }

    #[test]
    fn rule_defects_fail_the_game_naming_the_quantity() {
        let cases = [
            (Defects { delay_as_bronstein: true, ..Defects::default() }, "20+d2", "snapshot.delay_us"),
            (Defects { late_stage_switch: true, ..Defects::default() }, "3/20:20", "period_change.moves"),
        ];
        for (defects, control, key) in cases {
            let (runs, _) = play(Behaviour { defects, ..Behaviour::default() }, &scenario(control), 0..1, options());
            let run = runs.first().expect("a game");
            assert!(run.complete(), "{:?}", run.error);
            assert!(!run.passed(), "{control}");
            assert!(comparison(run).by_quantity.contains_key(key), "{control}: {:?}", comparison(run).by_quantity);
        }
    }

    #[test]
    fn a_firmware_that_stops_sending_ends_the_game_incomplete() {
        let behaviour = Behaviour { silent_after_us: Some(4_000_000), ..Behaviour::default() };
        let started = Instant::now();
        let quick = RunOptions { silence_timeout: Duration::from_millis(500), ..options() };
        let (runs, _) = play(behaviour, &scenario("30+1"), 0..1, quick);
        let run = runs.first().expect("a game");
        assert!(matches!(run.error, Some(RunError::Silent { .. })), "{:?}", run.error);
        assert!(!run.complete() && !run.passed());
        assert!(started.elapsed() < Duration::from_secs(20));
        let message = run.error.as_ref().map(ToString::to_string).unwrap_or_default();
        assert!(message.contains("went silent") && message.contains("CONTRACT"), "{message}");
        // The records up to the silence are still compared.
        assert!(comparison(run).passed(), "{:#?}", comparison(run).mismatches);
        assert!(run.sent.len() < run.schedule.presses.len());
    }

    /// Lockstep, QEMU's way: the fake board halts between steps.
    fn lockstep(steps: FakeSteps) -> Behaviour {
        Behaviour { lockstep: Some(steps), ..Behaviour::default() }
    }

    /// Lockstep: a step that takes a second of host time (a loaded host),
    /// twice the silence limit, in the middle of a healthy game changes
    /// nothing: silence is guest time there. (Judged in host time, the game
    /// ended "silent" at that step.)
    #[test]
    fn in_lockstep_a_slow_host_does_not_make_a_healthy_firmware_silent() {
        let quick = RunOptions { silence_timeout: Duration::from_millis(500), ..options() };
        let stalled = FakeSteps { stall: Some((300, Duration::from_secs(1))), ..FakeSteps::default() };
        let (runs, _) = play(lockstep(stalled), &scenario("30+1"), 0..1, quick);
        let run = runs.first().expect("a game");
        assert!(run.error.is_none(), "{:?}", run.error);
        assert!(run.passed(), "{:#?}", comparison(run).mismatches);
        assert_eq!(run.sent.len(), run.schedule.presses.len());
    }

    /// Lockstep: a firmware that answers no command (its TimeBase records
    /// still come) is silent after the limit of guest time, and the run
    /// says so in the same words and records whether the host stalled or
    /// not: the verdict is a function of the firmware alone.
    #[test]
    fn in_lockstep_a_silent_firmware_is_judged_in_guest_time_the_same_every_run() {
        let quick = RunOptions { silence_timeout: Duration::from_millis(500), ..options() };
        let run = |steps: FakeSteps| {
            let (mut runs, _) =
                play(Behaviour { deaf: true, ..lockstep(steps) }, &scenario("30+1"), 0..1, quick.clone());
            runs.pop().expect("a game")
        };
        let calm = run(FakeSteps::default());
        let stalled = run(FakeSteps { stall: Some((2, Duration::from_secs(1))), ..FakeSteps::default() });
        let Some(RunError::Silent { waited: Waited::GuestUs(waited_us), waiting_for, .. }) = &calm.error else {
            panic!("silent in guest time: {:?}", calm.error)
        };
        assert!(*waited_us > 500_000 && *waited_us <= 502_000, "{waited_us} µs: judged at the first tick past it");
        assert_eq!(waiting_for, "the Ack of `reset`");
        let message = calm.error.as_ref().map(ToString::to_string).unwrap_or_default();
        assert!(message.contains("of guest time") && message.contains("CONTRACT"), "{message}");
        assert_eq!(message, stalled.error.as_ref().map(ToString::to_string).unwrap_or_default());
        assert_eq!(calm.records, stalled.records);
        assert!(!calm.complete());
    }

    /// Lockstep: a board that reaches no stop at all (no record, no tick
    /// awaited) within the emulator limit is an infrastructure failure,
    /// said so, not a firmware verdict.
    #[test]
    fn in_lockstep_no_stop_at_all_is_an_emulator_problem() {
        let options = RunOptions {
            emulator_timeout: Duration::from_millis(300),
            silence_timeout: Duration::from_millis(500),
            ..options()
        };
        // Silent once the game runs: no record comes, and the first press
        // is more than a lead of ticks away.
        let steps = FakeSteps { slice_us: 1_000, ..FakeSteps::default() };
        let behaviour = Behaviour { silent_after_us: Some(50_000), ..lockstep(steps) };
        let (runs, _) = play(behaviour, &scenario("30+1"), 0..1, options);
        let error = runs.first().and_then(|run| run.error.as_ref()).expect("an error");
        assert!(matches!(error, RunError::NoStop { .. }), "{error:?}");
        assert!(!error.is_firmware_failure());
        assert!(error.to_string().starts_with("emulator problem: QEMU reached no lockstep stop"), "{error}");
    }

    /// Lockstep: guest time is known exactly only at a tick stop; at a
    /// record stop the emulator has moved on (here two ticks, as QEMU did
    /// when the reference firmware stamped an edge made there 2 ms after
    /// the record, a false `press.stamp`). Every edge is made at a tick
    /// stop, so each stamp is the harness's own edge instant.
    #[test]
    fn in_lockstep_every_edge_is_made_at_a_tick_stop_where_guest_time_is_known() {
        let steps = FakeSteps { record_stop_ticks: Some(2), ..FakeSteps::default() };
        let behaviour = Behaviour { chatty: true, ..lockstep(steps) };
        let (runs, _) = play(behaviour, &scenario("30+1"), 0..2, options());
        for run in &runs {
            assert!(run.error.is_none(), "{:?}", run.error);
            let comparison = comparison(run);
            assert_eq!(comparison.by_quantity.get("press.stamp"), None, "{:#?}", comparison.mismatches);
            assert_eq!(comparison.largest_us.get("press.stamp"), Some(&0), "stamped at the harness's edge");
        }
    }

    /// A lockstep game counts its stops by kind, the same on every run
    /// (the host times beside them go to run.json only); a board in real
    /// time has none.
    #[test]
    fn a_lockstep_game_counts_its_stops_by_kind_the_same_every_run() {
        let steps = FakeSteps { record_stop_ticks: Some(2), ..FakeSteps::default() };
        let counts = || {
            let (runs, _) = play(lockstep(steps), &scenario("30+1"), 0..1, options());
            runs.iter().map(|run| (run.stops.record_stops, run.stops.tick_stops)).collect::<Vec<_>>()
        };
        let first = counts();
        assert!(!first.is_empty() && first.iter().all(|&(record, tick)| record > 0 && tick > 0), "{first:?}");
        assert_eq!(counts(), first);
        let (runs, _) = play(Behaviour::default(), &scenario("30+1"), 0..1, options());
        assert!(runs.iter().all(|run| run.stops == StopTally::default()));
    }

    #[test]
    fn a_target_that_goes_away_ends_the_game_incomplete() {
        let scenario = scenario("30+1");
        let mut target = board(Behaviour::default());
        let location = ControlBlockLocation::Address(target.board().control_block());
        let mut reader = RttReader::attach(&mut target, &location).expect("a control block");
        target.fail_after(20_000, Fault::Disconnect);
        let mut session = Session::new(&mut target, &mut reader, options());
        let schedule = schedule::schedule(&scenario, 4, 0).expect("a schedule");
        let run = session.play(&schedule, &mut |_| {}).judged();
        assert!(matches!(run.error, Some(RunError::Target(TargetError::Disconnected { .. }))), "{:?}", run.error);
        assert!(!run.complete());
        assert!(run.error.as_ref().is_some_and(|error| !error.is_firmware_failure()));
    }

    #[test]
    fn a_refused_time_control_is_the_firmwares_failure() {
        let behaviour = Behaviour { refuse_tc: true, ..Behaviour::default() };
        let (runs, _) = play(behaviour, &scenario("30+1"), 0..1, options());
        let run = runs.first().expect("a game");
        let error = run.error.as_ref().expect("an error");
        assert!(error.is_firmware_failure(), "{error}");
        assert_eq!(error.to_string(), "the firmware refused `tc 30+1`: BadTimeControl at byte 2 of the time control");
        assert!(run.comparison.is_none(), "never started");
    }

    #[test]
    fn a_reset_refused_once_a_control_is_set_is_the_firmwares_failure() {
        let behaviour = Behaviour { refuse_reset: true, ..Behaviour::default() };
        let (runs, _) = play(behaviour, &scenario("30+1"), 0..2, options());
        // After boot no control is set: refused is right.
        assert!(runs[0].passed(), "{:?}", runs[0].error);
        let error = runs[1].error.as_ref().expect("the second game's reset is refused");
        assert!(error.is_firmware_failure(), "{error}");
        assert_eq!(error.to_string(), "the firmware refused `reset`: NotAllowed");
    }

    #[test]
    fn a_stop_request_interrupts_the_game() {
        let stop = Arc::new(AtomicBool::new(true));
        let (runs, _) =
            play(Behaviour::default(), &scenario("30+1"), 0..1, RunOptions { stop: Some(stop), ..options() });
        assert!(matches!(runs.first().and_then(|run| run.error.as_ref()), Some(RunError::Interrupted)));
    }
}
