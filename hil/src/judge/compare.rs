//! The comparison: what the firmware reported against what the clock core
//! says it must have.
//!
//! The presses the firmware saw — its Press records, at its own `at_us`
//! instants — are replayed through `chessclock::Clock` on the time control
//! the harness sent (`tc TEXT`, parsed with `chessclock::notation::parse`),
//! together with the commands it acknowledged (`tc`, `reset`, `start`,
//! `pause`, `resume`). Then every observation the firmware made is checked
//! against the model at the same instant:
//!
//! - each Press: the result (accepted or why not, 6.8a), the presser's move
//!   count (6.15) and display after the press (increment, delay, stage time);
//! - each Snapshot: both displays, move counters, periods, shown flags,
//!   phase and running side, the delay left (6.2b);
//! - Flag records against the model's flags, per side in order: instant,
//!   period, order of fall (`sequence`) and moves at the flag (6.3);
//! - Period records against the model's period changes, per side in order:
//!   instant, from/to, cause, moves, display after the change;
//! - the result: the ruling the laws give on the flags shown at the end
//!   (`chessclock::laws`, arbiter observing, opponent able to mate: the
//!   clock's part of the result).
//!
//! **Tolerance: one firmware tick** (`tick_us` of the Hello record), judged
//! locally ([`tolerance`]): a side's times match within a tick of the model
//! carried from the firmware's own state after that side's last press (or
//! of the model itself), so rounding that re-quantizes at every press does
//! not add up to mismatches; the rounding accumulated is its own figure,
//! with its own bound. A discrete value (a flag shown, a period, a move
//! count, the phase) matches if the model has it within a tick of the
//! record's instant, or of that instant shifted by the side's anchor. The
//! reference firmware runs the same core on the same instants, so it
//! matches exactly; a firmware with a coarser time base still passes.
//!
//! Same-instant order follows the firmware's record order: a Snapshot after
//! a Press at the same instant sees the press.
//!
//! A Snapshot's displays are judged within the step the clock declares
//! ([`Resolution`], `tolerance::DisplayStep`). Causes are listed first
//! (press, flag, period, command and result mismatches, earliest first),
//! before the displays they make wrong. Beside the replay: [`check_debounce`]
//! (presses of one button closer than the firmware's `debounce_us`, which
//! the replay alone cannot see), `accounting.rs` (the presses made against
//! the Press records: `press.unrecorded`, `press.phantom`, `press.stamp`)
//! and `cadence.rs` (the Snapshots the replay only compares, required).

use std::collections::BTreeMap;
use std::fmt;

use bench_contract::{self as contract, Ack, AckStatus, Body, Button, CommandCode, PeriodCause, PressResult, Record};
use chessclock::laws::{rule_on_both_flags, rule_on_flag, BothFlagsFacts, FlagFacts};
use chessclock::{
    notation, BySide, Changes, Clock, ClockError, FlagFall, Instant, Observation, Outcome, Phase, Ruling, Side,
    TimeControl, Transitions,
};

use bench_sim::scenario::Control;

use crate::schedule::ArbiterCommand;

/// How long after a flag fell the firmware may notice it (its Flag
/// record's `observed_at_us`), µs; two ticks if those are longer.
pub const FLAG_NOTICE_MAX_US: u64 = 10_000;

/// Mismatches kept with their values; the rest are counted.
pub const MISMATCHES_KEPT: usize = 200;

/// Transitions applied per settle before giving up (the core's own bound is
/// far lower; this only guards the loop).
const TRANSITIONS_MAX: usize = 1_024;

/// What a mismatch is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantity {
    /// A command the firmware acknowledged differently from the model.
    Command,
    PressResult,
    PressMoves,
    PressRemaining,
    /// A press registered for an edge inside the debounce window of the
    /// same button's previous press: bounce taken for a press.
    PressBounce,
    /// A press the harness made with no Press record.
    PressUnrecorded,
    /// A Press record with no press the harness made.
    PressPhantom,
    /// A press stamped away from the edge the harness made (exact edge
    /// timing only).
    PressStamp,
    /// The game did not go as its schedule was built: a press that could
    /// not be made, a flag that was due and did not fall.
    ScheduleCourse,
    Remaining(Side),
    Moves(Side),
    Period(Side),
    FlagShown(Side),
    /// Phase and running side.
    Phase,
    Delay,
    /// A flag one side reported and the other did not.
    Flag,
    FlagInstant,
    /// When the firmware noticed (showed) a flag, against when it fell.
    FlagNotice,
    FlagPeriod,
    FlagSequence,
    FlagMoves,
    /// A period change one side reported and the other did not, or to
    /// another period.
    PeriodChange,
    PeriodInstant,
    PeriodCause,
    PeriodMoves,
    PeriodRemaining,
    Result,
    /// The game's result is in a class the scenario's `[expect]` allows in
    /// no game (`max_percent = 0`).
    ResultClass,
    /// A side's rounding, accumulated over its presses, beyond its bound
    /// ([`tolerance`]).
    RoundingAccumulated,
    /// No Snapshot for longer than the contract's interval while a time
    /// control is set (`compare/cadence.rs`).
    SnapshotCadence,
    /// An event (Ack, Press, Flag, Period) with no Snapshot at its instant
    /// (`compare/cadence.rs`).
    SnapshotAfterEvent,
}

impl Quantity {
    /// A stable name, used as the key in reports.
    pub const fn key(self) -> &'static str {
        match self {
            Quantity::Command => "command",
            Quantity::PressResult => "press.result",
            Quantity::PressMoves => "press.moves",
            Quantity::PressRemaining => "press.remaining_us",
            Quantity::PressBounce => "press.bounce",
            Quantity::PressUnrecorded => "press.unrecorded",
            Quantity::PressPhantom => "press.phantom",
            Quantity::PressStamp => "press.stamp",
            Quantity::ScheduleCourse => "schedule.course",
            Quantity::Remaining(Side::White) => "snapshot.remaining_us.white",
            Quantity::Remaining(Side::Black) => "snapshot.remaining_us.black",
            Quantity::Moves(Side::White) => "snapshot.moves.white",
            Quantity::Moves(Side::Black) => "snapshot.moves.black",
            Quantity::Period(Side::White) => "snapshot.period.white",
            Quantity::Period(Side::Black) => "snapshot.period.black",
            Quantity::FlagShown(Side::White) => "snapshot.flag.white",
            Quantity::FlagShown(Side::Black) => "snapshot.flag.black",
            Quantity::Phase => "snapshot.phase",
            Quantity::Delay => "snapshot.delay_us",
            Quantity::Flag => "flag",
            Quantity::FlagInstant => "flag.at_us",
            Quantity::FlagNotice => "flag.observed_at_us",
            Quantity::FlagPeriod => "flag.period",
            Quantity::FlagSequence => "flag.sequence",
            Quantity::FlagMoves => "flag.moves",
            Quantity::PeriodChange => "period_change",
            Quantity::PeriodInstant => "period_change.at_us",
            Quantity::PeriodCause => "period_change.cause",
            Quantity::PeriodMoves => "period_change.moves",
            Quantity::PeriodRemaining => "period_change.remaining_us",
            Quantity::Result => "result",
            Quantity::ResultClass => "result.class",
            Quantity::RoundingAccumulated => "rounding.accumulated_us",
            Quantity::SnapshotCadence => "snapshot.cadence",
            Quantity::SnapshotAfterEvent => "snapshot.after_event",
        }
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// One difference between the model and the firmware.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub quantity: Quantity,
    /// The Press record (0-based, in the firmware's order, pause presses
    /// included) this was at or after; `None` before the first press.
    pub press_index: Option<usize>,
    /// The firmware instant it is about, µs.
    pub at_us: u64,
    /// The record it was found in (`None` for something the firmware never
    /// reported).
    pub seq: Option<u32>,
    pub model: String,
    pub firmware: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let press = match self.press_index {
            Some(index) => format!("press {index}"),
            None => "before the first press".to_string(),
        };
        write!(
            f,
            "{} at {} ({press}): model {}, firmware {}",
            self.quantity,
            seconds(self.at_us),
            self.model,
            self.firmware
        )
    }
}

/// A game's end state as one side of the comparison tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSummary {
    pub moves: BySide<u32>,
    /// Every flag that fell, in order of fall.
    pub flags: Vec<FlagFall>,
    /// The laws' ruling on the flags shown at the end; `None` without a flag.
    pub ruling: Option<Ruling>,
}

/// The outcome of a comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub control_text: String,
    pub tick_us: u64,
    /// Firmware instant of the game's start (the `start` Ack).
    pub start_us: Option<u64>,
    /// The last instant the records cover.
    pub end_us: u64,
    pub presses: usize,
    pub snapshots: usize,
    /// Records missing from the sequence numbers (dropped or lost): the
    /// comparison may then report differences that are only gaps.
    pub records_lost: u64,
    pub mismatch_count: usize,
    /// Up to [`MISMATCHES_KEPT`] mismatches, causes first: press, flag,
    /// period, command and result mismatches, earliest first, before
    /// snapshot ones in the order found (`keep_example`).
    pub mismatches: Vec<Mismatch>,
    /// The first mismatch of each quantity, earliest instant first: where
    /// each difference began (a wrong display repeats in every snapshot).
    pub first_of_each: Vec<Mismatch>,
    /// Every mismatch counted by [`Quantity::key`].
    pub by_quantity: BTreeMap<&'static str, usize>,
    /// The largest judged difference of each time quantity compared, µs,
    /// matched or not, and the largest accumulated rounding
    /// (`rounding.accumulated_us`) ([`tolerance`]).
    pub largest_us: BTreeMap<&'static str, u64>,
    pub model: GameSummary,
    pub firmware: GameSummary,
    /// The rules the model went through from the game's `tc`/`reset` on
    /// (rule coverage).
    pub model_transitions: Transitions,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.mismatch_count == 0 && self.start_us.is_some()
    }

    /// Notes a difference of `quantity` judged outside [`compare`], µs:
    /// the largest is kept.
    pub fn note_largest(&mut self, quantity: Quantity, difference_us: u64) {
        let largest = self.largest_us.entry(quantity.key()).or_insert(0);
        *largest = (*largest).max(difference_us);
    }

    /// Counts and keeps a mismatch found outside [`compare`].
    pub fn add(&mut self, mismatch: Mismatch) {
        self.mismatch_count = self.mismatch_count.saturating_add(1);
        let count = self.by_quantity.entry(mismatch.quantity.key()).or_insert(0);
        if *count == 0 {
            let at =
                self.first_of_each.partition_point(|first| first_cause_order(first) <= first_cause_order(&mismatch));
            self.first_of_each.insert(at, mismatch.clone());
        }
        *count = count.saturating_add(1);
        keep_example(&mut self.mismatches, mismatch);
    }
}

impl Quantity {
    /// A snapshot's quantity: a wrong display repeats in every snapshot
    /// after the press, flag or period change that made it wrong.
    fn is_snapshot(self) -> bool {
        matches!(
            self,
            Quantity::Remaining(_)
                | Quantity::Moves(_)
                | Quantity::Period(_)
                | Quantity::FlagShown(_)
                | Quantity::Phase
                | Quantity::Delay
        )
    }
}

/// Keeps `mismatch` among at most [`MISMATCHES_KEPT`] examples, causes
/// first: press, flag, period, command and result mismatches come before
/// snapshot ones (each kind in the order found), and push snapshot ones
/// out when the examples are full. Counts are kept apart and complete.
fn keep_example(examples: &mut Vec<Mismatch>, mismatch: Mismatch) {
    let first_snapshot = examples.iter().position(|kept| kept.quantity.is_snapshot()).unwrap_or(examples.len());
    if mismatch.quantity.is_snapshot() {
        if examples.len() < MISMATCHES_KEPT {
            examples.push(mismatch);
        }
        return;
    }
    if examples.len() >= MISMATCHES_KEPT {
        if first_snapshot == examples.len() && examples.last().is_some_and(|last| last.at_us <= mismatch.at_us) {
            return;
        }
        examples.pop();
    }
    // Causes in time order, whichever check found them: the first a reader
    // sees is the earliest disagreement.
    let causes = examples.get(..first_snapshot.min(examples.len())).unwrap_or_default();
    let at = causes.partition_point(|kept| kept.at_us <= mismatch.at_us);
    examples.insert(at, mismatch);
}

/// Earliest first; at one instant a cause (a press, flag, period, command
/// or result) before the displays it makes wrong.
fn first_cause_order(mismatch: &Mismatch) -> (u64, bool) {
    (mismatch.at_us, mismatch.quantity.is_snapshot())
}

/// The debounce check (contract §1): an edge closer than `debounce_us` to
/// the last accepted press of the same button is bounce, not a press. Every
/// Press record closer than that to the previous Press record of its button
/// is a mismatch naming the press, its side and instant. The harness never
/// presses a button twice within the window, so only bounce makes such
/// presses; the model (the core) would refuse most of them anyway (6.8a:
/// the side that pressed no longer runs), so [`compare`] alone cannot see
/// them. `records` are one game's, in the firmware's order.
pub fn check_debounce(comparison: &mut Comparison, records: &[Record], debounce_us: u64) {
    // The last press of each button: (press index, edge instant).
    let mut last_press: [Option<(usize, u64)>; 3] = [None; 3];
    let slot = |button: Button| match button {
        Button::White => 0,
        Button::Black => 1,
        Button::Pause => 2,
    };
    let presses = records.iter().filter_map(|record| match record.body {
        Body::Press(press) => Some((record, press)),
        _ => None,
    });
    for (index, (record, press)) in presses.enumerate() {
        let last = last_press.get_mut(slot(press.button));
        if let Some(Some((previous, previous_us))) = last.as_deref().copied() {
            let gap_us = record.at_us.saturating_sub(previous_us);
            if gap_us < debounce_us {
                comparison.add(Mismatch {
                    quantity: Quantity::PressBounce,
                    press_index: Some(index),
                    at_us: record.at_us,
                    seq: Some(record.seq),
                    model: format!(
                        "no press: an edge {} after {:?}'s press {previous} is bounce inside the {} debounce window",
                        millis(gap_us),
                        press.button,
                        millis(debounce_us)
                    ),
                    firmware: format!("{:?} press {index} registered ({:?})", press.button, press.result),
                });
            }
        }
        if let Some(last) = last {
            *last = Some((index, record.at_us));
        }
    }
}

/// `1923` → `1.923 ms`.
fn millis(us: u64) -> String {
    format!("{}.{:03} ms", us / 1_000, us % 1_000)
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    /// The time-control text the harness sent does not parse.
    #[error("time control `{text}`: {detail}")]
    Control { text: String, detail: String },
}

/// The firmware instant after which the model of `control`, on a
/// game's `records` so far, changes nothing more unless a press or command
/// comes: its last deadline (a flag, a period lost, a delay run out), or
/// the last record that changed it. Not the latest record: Snapshots keep
/// coming while a run listens past a game's end, and a game over on time
/// would never go quiet.
pub fn model_quiet_us(control: TimeControl, records: &[Record], arbiter: &[ArbiterCommand]) -> u64 {
    let timeline = Timeline::replay(control, records, arbiter);
    let last_change_us = timeline.states.last().and_then(|state| records.get(state.index)).map_or(0, |r| r.at_us);
    let flags_us = timeline.flags.iter().map(|flag| flag.flag.at.as_us());
    let periods_us = timeline.periods.iter().map(|period| period.at_us);
    let mut quiet_us = flags_us.chain(periods_us).fold(last_change_us, u64::max);
    let Some(mut model) = timeline.final_clock else { return quiet_us };
    for _ in 0..TRANSITIONS_MAX {
        let Some(deadline) = model.next_deadline() else { break };
        if model.settle(deadline.at).is_err() {
            break;
        }
        quiet_us = quiet_us.max(deadline.at.as_us());
    }
    quiet_us
}

/// Whether the clock's displays show which flag fell first: 6.12 rules a
/// game with both flags down by their order only when it is known. A
/// firmware says which in its Capabilities record (contract 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagOrder {
    Shown,
    Unknown,
}

impl FlagOrder {
    pub const fn of(shows_flag_order: bool) -> FlagOrder {
        if shows_flag_order {
            FlagOrder::Shown
        } else {
            FlagOrder::Unknown
        }
    }
}

/// Which flags the arbiter ruled on when the game ended: the ruling a
/// comparison reports is that one, never one on flags that fell after the
/// game was over (the run listens on past its end) or on flags a ruling
/// that let play go on (6.12 a)) has dealt with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagsAtEnd {
    /// No schedule says how the game ended: every flag shown at the end.
    All,
    /// The game ended on the arbiter's ruling on the first `count` flags
    /// that fell; `opponent_can_checkmate` is the board's answer (6.10),
    /// which the clock cannot know.
    Ruled { count: usize, opponent_can_checkmate: bool },
    /// The game ended otherwise (on the board, at the move bound, a default
    /// time): no ruling on flags.
    NotRuled,
}

/// [`compare_on`] a clock that shows which flag fell first.
pub fn compare(control_text: &str, tick_us: u64, records: &[Record]) -> Result<Comparison, CompareError> {
    compare_on(control_text, tick_us, records, FlagOrder::Shown)
}

/// Compares a game's records with the model of `control_text` at
/// `tick_us` tolerance, ruling on flags as an arbiter would on a clock
/// whose flag order is `flag_order`. `records` are in the firmware's order;
/// records before the first acknowledged `tc`/`reset` are not about this
/// game and are skipped.
pub fn compare_on(
    control_text: &str,
    tick_us: u64,
    records: &[Record],
    flag_order: FlagOrder,
) -> Result<Comparison, CompareError> {
    compare_with(control_text, tick_us, records, flag_order, &[])
}

/// [`compare_on`] a game in which the harness sent the arbiter commands
/// `arbiter` (`adjust`, `moves`), in the order sent: the n-th Ack of such
/// a command is the answer to the n-th of them, and the model applies it
/// at the Ack's instant, so the firmware's clock is judged after it.
pub fn compare_with(
    control_text: &str,
    tick_us: u64,
    records: &[Record],
    flag_order: FlagOrder,
    arbiter: &[ArbiterCommand],
) -> Result<Comparison, CompareError> {
    let control = notation::parse(control_text)
        .map_err(|error| CompareError::Control { text: control_text.to_string(), detail: error.to_string() })?;
    let control = Control { text: control_text.to_string(), control };
    compare_ended(&control, tick_us, records, (flag_order, FlagsAtEnd::All), arbiter)
}

/// How finely a firmware's times are judged: one tick (`tick_us` of the
/// Hello) everywhere, and a Snapshot's displays within the step its
/// Capabilities declare (contract 3, §9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolution {
    pub tick_us: u64,
    pub display: DisplayStep,
}

impl From<u64> for Resolution {
    /// A tick, and displays to the tick.
    fn from(tick_us: u64) -> Resolution {
        Resolution { tick_us, display: DisplayStep::TICK }
    }
}

/// [`compare_with`], the ruling on the flags `flags_at_end` names.
pub(crate) fn compare_ended(
    control: &Control,
    resolution: impl Into<Resolution>,
    records: &[Record],
    (flag_order, flags_at_end): (FlagOrder, FlagsAtEnd),
    arbiter: &[ArbiterCommand],
) -> Result<Comparison, CompareError> {
    let resolution = resolution.into();
    let tick_us = resolution.tick_us.max(1);
    let mut timeline = Timeline::replay(control.control, records, arbiter);
    timeline.flag_order = flag_order;
    timeline.flags_at_end = flags_at_end;
    let mut out = Checker {
        tick_us,
        timeline: &timeline,
        records,
        mismatch_count: 0,
        mismatches: Vec::new(),
        first_of_each: Vec::new(),
        by_quantity: BTreeMap::new(),
        tolerance: Tolerance::with_display(tick_us, resolution.display),
        firmware_phase: None,
    };
    let snapshots = out.check_observations();
    out.check_flags();
    out.check_periods();
    let model = timeline.model_summary();
    let firmware = timeline.firmware_summary(records);
    if model.ruling != firmware.ruling {
        out.push(Mismatch {
            quantity: Quantity::Result,
            press_index: timeline.press_index_at(timeline.end_us),
            at_us: timeline.end_us,
            seq: None,
            model: ruling_text(model.ruling),
            firmware: ruling_text(firmware.ruling),
        });
    }
    Ok(Comparison {
        control_text: control.text.clone(),
        tick_us,
        start_us: timeline.start_us,
        end_us: timeline.end_us,
        presses: timeline.presses.len(),
        snapshots,
        records_lost: records_lost(records),
        mismatch_count: out.mismatch_count,
        mismatches: out.mismatches,
        first_of_each: {
            let mut first = out.first_of_each;
            first.sort_by_key(first_cause_order);
            first
        },
        by_quantity: out.by_quantity,
        largest_us: out.tolerance.largest_us,
        model,
        firmware,
        model_transitions: timeline.final_clock.map(|clock| *clock.transitions()).unwrap_or_default(),
    })
}

/// Records missing between consecutive sequence numbers.
pub fn records_lost(records: &[Record]) -> u64 {
    records
        .windows(2)
        .filter_map(|pair| match pair {
            [a, b] => Some(u64::from(b.seq.wrapping_sub(a.seq).wrapping_sub(1)).min(u64::from(u32::MAX / 2))),
            _ => None,
        })
        .sum()
}

/// The model after one of the firmware's state changes.
#[derive(Clone, Copy, Debug)]
struct State {
    /// Index of the record that made the change.
    index: usize,
    clock: Option<Clock>,
}

#[derive(Clone, Copy, Debug)]
struct ModelFlag {
    flag: FlagFall,
    moves: u32,
}

#[derive(Clone, Copy, Debug)]
struct ModelPeriod {
    side: Side,
    from: u32,
    to: u32,
    at_us: u64,
    cause: PeriodCause,
    moves: u32,
    remaining_us: u64,
}

#[derive(Clone, Copy, Debug)]
struct ModelPress {
    index: usize,
    result: PressResult,
    moves: u32,
    remaining_us: u64,
}

#[derive(Clone, Copy, Debug)]
struct ModelCommand {
    index: usize,
    command: CommandCode,
    accepted: bool,
}

/// The replay: the model's state after every firmware state change, and
/// everything the model did on the way.
struct Timeline {
    control: TimeControl,
    /// How the arbiter tells which flag fell first (6.12).
    flag_order: FlagOrder,
    /// The flags the game's last ruling was on.
    flags_at_end: FlagsAtEnd,
    states: Vec<State>,
    flags: Vec<ModelFlag>,
    periods: Vec<ModelPeriod>,
    presses: Vec<ModelPress>,
    commands: Vec<ModelCommand>,
    /// Record indices of the Press records, in order.
    press_records: Vec<(usize, u64)>,
    start_us: Option<u64>,
    end_us: u64,
    final_clock: Option<Clock>,
    /// Index of the record that configured the game (the last accepted
    /// `tc` or `reset`); earlier records belong to another game.
    game_from: usize,
}

impl Timeline {
    fn replay(control: TimeControl, records: &[Record], arbiter: &[ArbiterCommand]) -> Timeline {
        let mut arbiter = arbiter.iter();
        let mut timeline = Timeline {
            control,
            flag_order: FlagOrder::Shown,
            flags_at_end: FlagsAtEnd::All,
            states: vec![State { index: 0, clock: None }],
            flags: Vec::new(),
            periods: Vec::new(),
            presses: Vec::new(),
            commands: Vec::new(),
            press_records: Vec::new(),
            start_us: None,
            end_us: 0,
            final_clock: None,
            game_from: usize::MAX,
        };
        let mut clock: Option<Clock> = None;
        for (index, record) in records.iter().enumerate() {
            let at = record.at_us;
            if clock.is_some() || timeline.start_us.is_some() {
                timeline.end_us = timeline.end_us.max(at);
            }
            match record.body {
                Body::Ack(ack) => {
                    let ok = ack.status == AckStatus::Ok;
                    match ack.command {
                        CommandCode::TimeControl | CommandCode::Reset if ok => {
                            clock = Some(Clock::new(control));
                            timeline.start_us = None;
                            timeline.end_us = at;
                            timeline.game_from = index;
                            timeline.flags.clear();
                            timeline.periods.clear();
                            timeline.states.push(State { index, clock });
                        }
                        CommandCode::Start | CommandCode::Pause | CommandCode::Resume => {
                            let Some(model) = clock.as_mut() else { continue };
                            if timeline.clock_command(model, index, at, &ack) {
                                timeline.states.push(State { index, clock });
                            }
                        }
                        CommandCode::SetTime
                        | CommandCode::AdjustTime
                        | CommandCode::SetMoves
                        | CommandCode::Replace => {
                            let Some(sent) = arbiter.next() else { continue };
                            let Some(model) = clock.as_mut() else { continue };
                            timeline.arbiter_command(model, index, at, &ack, sent);
                            timeline.states.push(State { index, clock });
                        }
                        _ => {}
                    }
                }
                Body::Press(press) => {
                    timeline.press_records.push((index, at));
                    let Some(model) = clock.as_mut() else {
                        timeline.presses.push(ModelPress {
                            index,
                            result: PressResult::NotStarted,
                            moves: 0,
                            remaining_us: 0,
                        });
                        continue;
                    };
                    timeline.press(model, index, at, press.button);
                    timeline.states.push(State { index, clock });
                }
                _ => {}
            }
        }
        if let Some(model) = clock.as_mut() {
            timeline.advance(model, timeline.end_us);
        }
        timeline.final_clock = clock;
        timeline
    }

    /// `start`, `pause` or `resume`, answered by `ack` (record `index`, at
    /// `at_us`): the model applies it when the firmware did and could;
    /// whether it did.
    fn clock_command(&mut self, model: &mut Clock, index: usize, at_us: u64, ack: &Ack) -> bool {
        let at = self.advance(model, at_us);
        let mut next = *model;
        let mut changes = Changes::NONE;
        let mut noting = next.noting(&mut changes);
        let result = match ack.command {
            CommandCode::Start => noting.start(at),
            CommandCode::Pause => noting.pause(at),
            _ => noting.resume(at),
        };
        self.commands.push(ModelCommand { index, command: ack.command, accepted: result.is_ok() });
        // The firmware's answer decides what happened; the check of the
        // command says whether it was right.
        if ack.status != AckStatus::Ok || result.is_err() {
            return false;
        }
        // A display started with nothing left changes period at once (zero
        // main time: overtime).
        self.note_changes(changes, &next, at.as_us());
        *model = next;
        if ack.command == CommandCode::Start {
            self.start_us = Some(at.as_us());
        }
        true
    }

    /// The firmware's Press record `index` of `button`, at `at_us`, on the
    /// model: what the press did there.
    fn press(&mut self, model: &mut Clock, index: usize, at_us: u64, button: Button) {
        let at = self.advance(model, at_us);
        let phase = model.phase();
        let mut changes = Changes::NONE;
        let mut noting = model.noting(&mut changes);
        let (side, result) = match button {
            Button::Pause => match phase {
                Phase::Paused(_) => (None, noting.resume(at)),
                _ => (None, noting.pause(at)),
            },
            Button::White => (Some(Side::White), noting.press(Side::White, at)),
            Button::Black => (Some(Side::Black), noting.press(Side::Black, at)),
        };
        self.note_changes(changes, model, at.as_us());
        let (moves, remaining_us) =
            side.map_or((0, 0), |side| (model.moves(side), model.remaining(side, at).map_or(0, |time| time.as_us())));
        self.presses.push(ModelPress { index, result: press_result(result), moves, remaining_us });
    }

    /// The arbiter command `sent`, answered by `ack` (record `index`, at
    /// `at_us`): the model applies it when the firmware did and could.
    fn arbiter_command(&mut self, model: &mut Clock, index: usize, at_us: u64, ack: &Ack, sent: &ArbiterCommand) {
        let at = self.advance(model, at_us);
        let mut next = *model;
        let mut changes = Changes::NONE;
        let result = sent.apply(&mut next.noting(&mut changes), at);
        self.commands.push(ModelCommand { index, command: ack.command, accepted: result.is_ok() });
        if ack.status == AckStatus::Ok && result.is_ok() {
            self.note_changes(changes, &next, at.as_us());
            *model = next;
        }
    }

    /// Settles `model` up to `at_us`, noting each flag and period change at
    /// its own instant; returns the instant to apply a call at (never
    /// before the model's latest call, as the firmware's `later` does).
    fn advance(&mut self, model: &mut Clock, at_us: u64) -> Instant {
        let at = Instant::from_us(at_us).max(model.settled_at());
        for _ in 0..TRANSITIONS_MAX {
            let Some(deadline) = model.next_deadline().filter(|deadline| deadline.at <= at) else { break };
            let mut changes = Changes::NONE;
            if model.noting(&mut changes).settle(deadline.at).is_err() {
                break;
            }
            self.note_changes(changes, model, deadline.at.as_us());
        }
        let _ = model.settle(at);
        at
    }

    /// The flags and period changes one step's transitions made, read off
    /// `changes` (the core's account of them); `after` is the model after
    /// the step, at `at_us`.
    fn note_changes(&mut self, changes: Changes, after: &Clock, at_us: u64) {
        for side in Side::BOTH {
            if let Some(flag) = changes.flag(side) {
                self.flags.push(ModelFlag { flag, moves: after.moves(side) });
            }
            let Some(change) = changes.period(side) else { continue };
            let remaining_us = after.remaining(side, after.settled_at()).map_or(0, |time| time.as_us());
            self.periods.push(ModelPeriod {
                side,
                from: change.from,
                to: change.to,
                at_us,
                cause: contract_cause(change.cause),
                moves: after.moves(side),
                remaining_us,
            });
        }
    }

    /// The model at instant `at_us` as seen by record `index`: the state
    /// after the last change before that record, settled to `at_us`.
    fn model_at(&self, index: usize, at_us: u64) -> Option<Clock> {
        let at = Instant::from_us(at_us);
        let before = self.states.partition_point(|state| state.index < index);
        let mut candidates = self.states.get(..before)?.iter().rev();
        let state = candidates.find(|state| state.clock.is_none_or(|clock| clock.settled_at() <= at))?;
        let mut clock = state.clock?;
        clock.settle(at).ok()?;
        Some(clock)
    }

    /// The instant of the model's last call (press or command) before
    /// record `index`, µs; 0 before any.
    fn last_call_us(&self, index: usize) -> u64 {
        let before = self.states.partition_point(|state| state.index < index);
        let last = before.checked_sub(1).and_then(|last| self.states.get(last));
        last.and_then(|state| state.clock).map_or(0, |clock| clock.settled_at().as_us())
    }

    /// The last Press record at or before instant `at_us`.
    fn press_index_at(&self, at_us: u64) -> Option<usize> {
        self.press_records.iter().rposition(|&(_, at)| at <= at_us)
    }

    /// The last Press record before record `index`.
    fn press_index_before(&self, index: usize) -> Option<usize> {
        self.press_records.partition_point(|&(record, _)| record < index).checked_sub(1)
    }

    fn model_summary(&self) -> GameSummary {
        let moves = self
            .final_clock
            .map_or(BySide::both(0), |clock| BySide::new(clock.moves(Side::White), clock.moves(Side::Black)));
        let flags: Vec<FlagFall> = self.flags.iter().map(|flag| flag.flag).collect();
        let at_flag =
            |flag: &FlagFall| self.flags.iter().find(|model| model.flag == *flag).map_or(0, |model| model.moves);
        GameSummary { ruling: self.ruling_at_end(&flags, &at_flag), moves, flags }
    }

    /// The arbiter's ruling on the flags the game ended on, of `flags` in
    /// order of fall.
    fn ruling_at_end(&self, flags: &[FlagFall], moves_at_flag: &dyn Fn(&FlagFall) -> u32) -> Option<Ruling> {
        let (ruled, opponent_can_checkmate) = match self.flags_at_end {
            FlagsAtEnd::All => (flags, true),
            FlagsAtEnd::Ruled { count, opponent_can_checkmate } => {
                (flags.get(..count).unwrap_or(flags), opponent_can_checkmate)
            }
            FlagsAtEnd::NotRuled => return None,
        };
        let arbiter = Arbiter { control: &self.control, flag_order: self.flag_order, opponent_can_checkmate };
        ruling(&arbiter, ruled, moves_at_flag)
    }

    fn firmware_summary(&self, records: &[Record]) -> GameSummary {
        let mut moves = BySide::both(0);
        let mut flags = Vec::new();
        let mut moves_at = Vec::new();
        for record in records.iter().skip(self.game_from) {
            match record.body {
                Body::Snapshot(snapshot) => moves = BySide::new(snapshot.moves_white, snapshot.moves_black),
                Body::Flag(flag) => {
                    let fall = FlagFall {
                        side: side_of(flag.side),
                        at: Instant::from_us(record.at_us),
                        period: flag.period,
                        sequence: flag.sequence,
                    };
                    flags.push(fall);
                    moves_at.push((fall, flag.moves));
                }
                _ => {}
            }
        }
        let at_flag = |flag: &FlagFall| moves_at.iter().find(|(fall, _)| fall == flag).map_or(0, |&(_, moves)| moves);
        GameSummary { ruling: self.ruling_at_end(&flags, &at_flag), moves, flags }
    }
}

/// The laws' ruling on `flags` (in order of fall), as an arbiter who sees
/// them would give it: observed, in order when the clock shows which fell
/// first (6.12), the opponent able to mate (a board fact the clock cannot
/// know), moves made as the clock counted them at the flag. Flags a ruling
/// let play go on past (6.12 a), a flag that opened the next period) are
/// dealt with: the last ruling is on the flags shown since.
fn ruling(arbiter: &Arbiter<'_>, flags: &[FlagFall], moves_at_flag: &dyn Fn(&FlagFall) -> u32) -> Option<Ruling> {
    let mut in_order = flags.to_vec();
    in_order.sort_by_key(|flag| flag.sequence);
    let mut pending: Vec<FlagFall> = Vec::new();
    let mut last = None;
    for flag in in_order {
        // The latest flag of each side is the one shown.
        pending.retain(|shown| shown.side != flag.side);
        pending.push(flag);
        last = ruling_on_shown(arbiter, &pending, moves_at_flag);
        if last.is_some_and(|ruled| ruled.outcome == Outcome::Continue) {
            pending.clear();
        }
    }
    last
}

/// What the arbiter rules with: the control, whether the clock shows
/// which flag fell first, and the board's answer to 6.10.
struct Arbiter<'a> {
    control: &'a TimeControl,
    flag_order: FlagOrder,
    opponent_can_checkmate: bool,
}

/// The ruling on the flags shown now, one per side at most.
fn ruling_on_shown(
    arbiter: &Arbiter<'_>,
    shown: &[FlagFall],
    moves_at_flag: &dyn Fn(&FlagFall) -> u32,
) -> Option<Ruling> {
    let control = arbiter.control;
    let facts = |flag: FlagFall| FlagFacts {
        flag,
        observation: Observation::ObservedByArbiter,
        moves_required: control.moves_required_by_end_of(flag.period),
        moves_made: moves_at_flag(&flag),
        game_end: None,
        opponent_can_checkmate: arbiter.opponent_can_checkmate,
    };
    match shown {
        [] => None,
        [flag] => Some(rule_on_flag(&facts(*flag))),
        many => {
            let mut in_order: Vec<FlagFall> = many.to_vec();
            in_order.sort_by_key(|flag| flag.sequence);
            let in_order = match (arbiter.flag_order, in_order.as_slice()) {
                (FlagOrder::Shown, [first, second]) => Some([facts(*first), facts(*second)]),
                _ => None,
            };
            let in_final_period = many.iter().all(|flag| control.is_final_period(flag.period));
            Some(rule_on_both_flags(&BothFlagsFacts { in_order, in_final_period, game_end: None }))
        }
    }
}

/// A ruling as reports write it: `1-0 (6.9)`, or `no flag`.
pub fn ruling_text(ruling: Option<Ruling>) -> String {
    match ruling {
        None => "no flag".to_string(),
        Some(ruling) => {
            let outcome = match ruling.outcome {
                Outcome::Continue => "play on",
                Outcome::Win(Side::White) => "1-0",
                Outcome::Win(Side::Black) => "0-1",
                Outcome::Draw => "draw",
                Outcome::BothLose => "0-0",
            };
            format!("{outcome} ({})", ruling.article)
        }
    }
}

/// A press result with what it means (contract, record 2).
fn press_result_text(result: PressResult) -> String {
    let meaning = match result {
        PressResult::Accepted => "accepted",
        PressResult::NotRunning => "refused: the other side's clock runs",
        PressResult::NotStarted => "refused: the clock is not started",
        PressResult::Paused => "refused: the clock is paused",
        PressResult::Finished => "refused: the game is finished",
        PressResult::Other => "refused for a reason the contract does not name",
        PressResult::NotApplied => "seen, not applied",
    };
    format!("{result:?} ({meaning})")
}

fn press_result(result: Result<(), ClockError>) -> PressResult {
    match result {
        Ok(()) => PressResult::Accepted,
        Err(ClockError::NotRunning { .. }) => PressResult::NotRunning,
        Err(ClockError::NotStarted) => PressResult::NotStarted,
        Err(ClockError::Paused) => PressResult::Paused,
        Err(ClockError::Finished) => PressResult::Finished,
        Err(_) => PressResult::Other,
    }
}

pub(crate) fn side_of(side: contract::Side) -> Side {
    match side {
        contract::Side::White => Side::White,
        contract::Side::Black => Side::Black,
    }
}

/// `12345678` → `12.345678 s`.
pub fn seconds(us: u64) -> String {
    format!("{}.{:06} s", us / 1_000_000, us % 1_000_000)
}

fn phase_text(phase: contract::Phase, side: Option<Side>) -> String {
    let name = match phase {
        contract::Phase::NotStarted => "not started",
        contract::Phase::Running => "running",
        contract::Phase::Paused => "paused",
        contract::Phase::Finished => "finished",
    };
    match side {
        Some(side) => format!("{name} ({side})"),
        None => name.to_string(),
    }
}

fn model_phase(clock: &Clock) -> (contract::Phase, Option<Side>) {
    match clock.phase() {
        Phase::NotStarted => (contract::Phase::NotStarted, None),
        Phase::Running(side) => (contract::Phase::Running, Some(side)),
        Phase::Paused(side) => (contract::Phase::Paused, Some(side)),
        Phase::Finished => (contract::Phase::Finished, None),
    }
}

fn flag_text(side: Side, at_us: u64, period: u32, sequence: u32, moves: u32) -> String {
    format!("{side} flag at {} in period {period} (fell {sequence}., {moves} moves)", seconds(at_us))
}

fn period_text(from: u32, to: u32, at_us: u64, moves: u32) -> String {
    format!("period {from} → {to} at {} after {moves} moves", seconds(at_us))
}

/// A mismatch found in `record`, at its instant.
fn mismatch_at(
    record: &Record,
    quantity: Quantity,
    press_index: Option<usize>,
    model: String,
    firmware: String,
) -> Mismatch {
    Mismatch { quantity, press_index, at_us: record.at_us, seq: Some(record.seq), model, firmware }
}

/// Walks the records and collects mismatches.
struct Checker<'a> {
    tick_us: u64,
    timeline: &'a Timeline,
    records: &'a [Record],
    mismatch_count: usize,
    mismatches: Vec<Mismatch>,
    first_of_each: Vec<Mismatch>,
    by_quantity: BTreeMap<&'static str, usize>,
    tolerance: Tolerance,
    /// The phase the firmware's latest Snapshot showed.
    firmware_phase: Option<(contract::Phase, Option<Side>)>,
}

impl Checker<'_> {
    fn push(&mut self, mismatch: Mismatch) {
        self.mismatch_count = self.mismatch_count.saturating_add(1);
        let count = self.by_quantity.entry(mismatch.quantity.key()).or_insert(0);
        if *count == 0 {
            self.first_of_each.push(mismatch.clone());
        }
        *count = count.saturating_add(1);
        keep_example(&mut self.mismatches, mismatch);
    }

    /// Whether `value` of the model at `at_us`, or within a tick of it,
    /// equals `firmware`; or at `at_us` moved back by `anchor_us` (the
    /// firmware − model difference of the side concerned: a firmware with
    /// more time left flags that much later), not past the model's last
    /// call before record `index`.
    fn near<T: PartialEq>(
        &self,
        index: usize,
        at_us: u64,
        anchor_us: i64,
        firmware: &T,
        value: impl Fn(&Clock) -> T,
    ) -> bool {
        let shifted_us = at_us.saturating_add_signed(anchor_us.saturating_neg()).max(self.timeline.last_call_us(index));
        let instants = [at_us, shifted_us].into_iter().filter(|&at| at == at_us || anchor_us != 0);
        instants
            .flat_map(|at| [at, at.saturating_sub(self.tick_us), at.saturating_add(self.tick_us)])
            .filter_map(|at| self.timeline.model_at(index, at))
            .any(|clock| value(&clock) == *firmware)
    }

    /// Commands, presses and snapshots; returns the snapshots compared.
    fn check_observations(&mut self) -> usize {
        let mut snapshots = 0;
        let mut presses = self.timeline.presses.iter().enumerate().peekable();
        let mut commands = self.timeline.commands.iter().peekable();
        // Records before the game's own `tc` show an earlier control (the
        // Ack probe's, or the last game's after its `reset`).
        for (index, record) in self.records.iter().enumerate().skip(self.timeline.game_from) {
            match record.body {
                Body::Ack(ack) => {
                    let ok = ack.status == AckStatus::Ok;
                    if ok && matches!(ack.command, CommandCode::TimeControl | CommandCode::Reset) {
                        self.tolerance.restart(index);
                    }
                    let Some(command) = commands.next_if(|command| command.index == index) else { continue };
                    if command.accepted != ok {
                        let answer = |accepted: bool| if accepted { "accepted" } else { "refused" };
                        let model = format!("{:?} {}", command.command, answer(command.accepted));
                        let firmware = format!("{:?} {} ({:?})", ack.command, answer(ok), ack.status);
                        let press_index = self.timeline.press_index_before(index);
                        self.push(mismatch_at(record, Quantity::Command, press_index, model, firmware));
                    }
                }
                Body::Press(press) => {
                    let Some((number, model)) = presses.next_if(|(_, model)| model.index == index) else { continue };
                    self.check_press(index, record, press, number, model);
                }
                Body::Snapshot(snapshot) => snapshots += usize::from(self.check_snapshot(index, record, snapshot)),
                _ => {}
            }
        }
        snapshots
    }

    /// A Press record against the model's press `number`: result, moves,
    /// and the display after it under the tolerance policy.
    fn check_press(
        &mut self,
        index: usize,
        record: &Record,
        press: contract::Press,
        number: usize,
        model: &ModelPress,
    ) {
        let press_index = Some(number);
        // A clock in another phase than the model's explains a refusal or a
        // display of nothing: the texts say so (a clock its pause button
        // reset showed only `Other` and 0.000 s).
        let phase_note = self.phase_note(index, record.at_us);
        let mismatch = |quantity, press_index, model: String, firmware: String| {
            mismatch_at(record, quantity, press_index, model, format!("{firmware}{phase_note}"))
        };
        if model.result != press.result {
            let (model_text, firmware_text) = (press_result_text(model.result), press_result_text(press.result));
            self.push(mismatch(Quantity::PressResult, press_index, model_text, firmware_text));
        }
        let side = match press.button {
            Button::Pause => return,
            Button::White => Side::White,
            Button::Black => Side::Black,
        };
        if model.moves != press.moves {
            self.push(mismatch(Quantity::PressMoves, press_index, model.moves.to_string(), press.moves.to_string()));
        }
        let verdict = self.tolerance.press(side, index, model.remaining_us, press.remaining_us);
        if !verdict.within {
            self.push(mismatch(
                Quantity::PressRemaining,
                press_index,
                seconds(model.remaining_us),
                seconds(press.remaining_us),
            ));
        }
        if let Some(beyond) = verdict.rounding_beyond {
            let (model, firmware) = tolerance::rounding_texts(side, beyond);
            self.push(mismatch(Quantity::RoundingAccumulated, press_index, model, firmware));
        }
    }

    /// The button of the latest Press record before record `index`.
    fn last_press_button(&self, index: usize) -> Option<Button> {
        self.records.get(..index)?.iter().rev().find_map(|record| match record.body {
            Body::Press(press) => Some(press.button),
            _ => None,
        })
    }

    /// The firmware's phase, as its latest Snapshot showed it, where the
    /// model's before record `index` (at `at_us`) differs; empty otherwise.
    fn phase_note(&self, index: usize, at_us: u64) -> String {
        let (Some(firmware), Some(clock)) = (self.firmware_phase, self.timeline.model_at(index, at_us)) else {
            return String::new();
        };
        let model = model_phase(&clock);
        if firmware == model {
            return String::new();
        }
        format!(
            "; its clock {} (its last Snapshot), the model's {}",
            phase_text(firmware.0, firmware.1),
            phase_text(model.0, model.1)
        )
    }

    /// A Snapshot record against the model at its instant; false when
    /// there is no model to compare with (before the game).
    fn check_snapshot(&mut self, index: usize, record: &Record, snapshot: contract::Snapshot) -> bool {
        let at_us = record.at_us;
        let firmware_phase = (snapshot.phase, snapshot.side.map(side_of));
        self.firmware_phase = Some(firmware_phase);
        let Some(clock) = self.timeline.model_at(index, at_us) else { return false };
        let mismatch = |quantity, press_index, model: String, firmware: String| {
            mismatch_at(record, quantity, press_index, model, firmware)
        };
        let press_index = self.timeline.press_index_before(index);
        let anchor = |side: Option<Side>| side.map_or(0, |side| self.tolerance.anchor_at(side, index));
        let running_anchor = anchor(firmware_phase.1.or(clock.running()));
        let firmware_phase_text = phase_text(firmware_phase.0, firmware_phase.1);
        // Displays of a clock in another phase are named with it: 0.000 s
        // alone sends one looking for a timing fault.
        let mut phase_note = String::new();
        if !self.near(index, at_us, running_anchor, &firmware_phase, model_phase) {
            let (phase, side) = model_phase(&clock);
            let model = phase_text(phase, side);
            phase_note = format!(" (its clock {firmware_phase_text})");
            let firmware_text = match (firmware_phase.0, self.last_press_button(index)) {
                (contract::Phase::NotStarted, Some(Button::Pause)) if phase != contract::Phase::NotStarted => {
                    format!(
                        "{firmware_phase_text}: its pause press reset the clock (6.13 stops it, keeping both times)"
                    )
                }
                _ => firmware_phase_text,
            };
            self.push(mismatch(Quantity::Phase, press_index, model, firmware_text));
        }
        for side in Side::BOTH {
            self.check_snapshot_side(index, record, (&snapshot, &phase_note), side, &clock);
        }
        let delay = |clock: &Clock| {
            clock
                .running()
                .and_then(|side| clock.reading(side, clock.settled_at()).ok())
                .map_or(0, |reading| u32::try_from(reading.delay.as_us()).unwrap_or(u32::MAX))
        };
        let delay_difference_us = u64::from(delay(&clock).abs_diff(snapshot.delay_us));
        self.tolerance.note(Quantity::Delay, delay_difference_us);
        if delay_difference_us > self.tick_us {
            let text = |us: u32| seconds(u64::from(us));
            self.push(mismatch(Quantity::Delay, press_index, text(delay(&clock)), text(snapshot.delay_us)));
        }
        true
    }

    /// One side of a Snapshot: display (tolerance policy), moves, period
    /// and flag shown, near the record's instant.
    fn check_snapshot_side(
        &mut self,
        index: usize,
        record: &Record,
        (snapshot, phase_note): (&contract::Snapshot, &str),
        side: Side,
        clock: &Clock,
    ) {
        let (at_us, at) = (record.at_us, Instant::from_us(record.at_us));
        let press_index = self.timeline.press_index_before(index);
        let mismatch = |quantity, press_index, model: String, firmware: String| {
            mismatch_at(record, quantity, press_index, model, format!("{firmware}{phase_note}"))
        };
        let (remaining, moves, period, flag) = match side {
            Side::White => {
                (snapshot.remaining_white_us, snapshot.moves_white, snapshot.period_white, snapshot.flag_white)
            }
            Side::Black => {
                (snapshot.remaining_black_us, snapshot.moves_black, snapshot.period_black, snapshot.flag_black)
            }
        };
        let model_remaining = clock.remaining(side, at).map_or(0, |time| time.as_us());
        let side_anchor = self.tolerance.anchor_at(side, index);
        if !self.tolerance.judge_display(side, index, model_remaining, remaining) {
            self.push(mismatch(Quantity::Remaining(side), press_index, seconds(model_remaining), seconds(remaining)));
        }
        if !self.near(index, at_us, side_anchor, &moves, |clock| clock.moves(side)) {
            self.push(mismatch(Quantity::Moves(side), press_index, clock.moves(side).to_string(), moves.to_string()));
        }
        let model_period = |clock: &Clock| u8::try_from(clock.period(side)).unwrap_or(u8::MAX);
        if !self.near(index, at_us, side_anchor, &period, model_period) {
            self.push(mismatch(
                Quantity::Period(side),
                press_index,
                model_period(clock).to_string(),
                period.to_string(),
            ));
        }
        let shown = |clock: &Clock| clock.flag(side).is_some();
        if !self.near(index, at_us, side_anchor, &flag, shown) {
            let text = |shown: bool| if shown { "flag shown" } else { "no flag" }.to_string();
            self.push(mismatch(Quantity::FlagShown(side), press_index, text(shown(clock)), text(flag)));
        }
    }

    /// Flag records against the model's flags, per side in order.
    fn check_flags(&mut self) {
        let timeline = self.timeline;
        let first_game_record = timeline.game_from;
        for side in Side::BOTH {
            let model: Vec<&ModelFlag> = timeline.flags.iter().filter(|flag| flag.flag.side == side).collect();
            let firmware: Vec<(usize, &Record, contract::Flag)> = self
                .records
                .iter()
                .enumerate()
                .skip(first_game_record)
                .filter_map(|(index, record)| match record.body {
                    Body::Flag(flag) if side_of(flag.side) == side => Some((index, record, flag)),
                    _ => None,
                })
                .collect();
            for position in 0..model.len().max(firmware.len()) {
                match (model.get(position), firmware.get(position)) {
                    (Some(model), Some(&(index, record, flag))) => {
                        self.check_flag_pair(side, model, index, record, flag);
                    }
                    (Some(model), None) => {
                        // Not yet reported when the records end: not a difference.
                        let at_us = model.flag.at.as_us();
                        if at_us.saturating_add(self.tick_us) > timeline.end_us {
                            continue;
                        }
                        self.push(Mismatch {
                            quantity: Quantity::Flag,
                            press_index: timeline.press_index_at(at_us),
                            at_us,
                            seq: None,
                            model: flag_text(side, at_us, model.flag.period, model.flag.sequence, model.moves),
                            firmware: "no flag".to_string(),
                        });
                    }
                    (None, Some(&(index, record, flag))) => {
                        self.push(Mismatch {
                            quantity: Quantity::Flag,
                            press_index: timeline.press_index_before(index),
                            at_us: record.at_us,
                            seq: Some(record.seq),
                            model: "no flag".to_string(),
                            firmware: flag_text(side, record.at_us, flag.period, flag.sequence, flag.moves),
                        });
                    }
                    (None, None) => {}
                }
            }
        }
    }

    /// A Flag record against the model's flag it pairs with: instant
    /// (tolerance policy), period, order of fall, moves, and when the
    /// firmware noticed it.
    fn check_flag_pair(&mut self, side: Side, model: &ModelFlag, index: usize, record: &Record, flag: contract::Flag) {
        let press_index = self.timeline.press_index_before(index);
        let model_text = flag_text(side, model.flag.at.as_us(), model.flag.period, model.flag.sequence, model.moves);
        let firmware_text = flag_text(side, record.at_us, flag.period, flag.sequence, flag.moves);
        let model_at_us = model.flag.at.as_us();
        let instant_within = self.tolerance.judge(Quantity::FlagInstant, side, index, model_at_us, record.at_us);
        // The notice is judged against the firmware's own flag (§9): a flag
        // that fell late is one `flag.at_us` mismatch, not a second one for
        // being noticed late against the model's instant.
        let fell_us = record.at_us;
        self.tolerance.note(Quantity::FlagNotice, flag.observed_at_us.abs_diff(fell_us));
        // Noticed when it fell, or a little after: a clock whose
        // display shows the flag late lets a lost game go on.
        let noticed_late = flag.observed_at_us > fell_us.saturating_add(FLAG_NOTICE_MAX_US.max(2 * self.tick_us));
        let noticed_early = flag.observed_at_us.saturating_add(self.tick_us) < fell_us;
        let checks = [
            (Quantity::FlagInstant, !instant_within),
            (Quantity::FlagPeriod, model.flag.period != flag.period),
            (Quantity::FlagSequence, model.flag.sequence != flag.sequence),
            (Quantity::FlagMoves, model.moves != flag.moves),
        ];
        for (quantity, differs) in checks {
            if differs {
                self.push(Mismatch {
                    quantity,
                    press_index,
                    at_us: record.at_us,
                    seq: Some(record.seq),
                    model: model_text.clone(),
                    firmware: firmware_text.clone(),
                });
            }
        }
        if noticed_late || noticed_early {
            let bound_us = FLAG_NOTICE_MAX_US.max(2 * self.tick_us);
            self.push(Mismatch {
                quantity: Quantity::FlagNotice,
                press_index,
                at_us: fell_us,
                seq: Some(record.seq),
                model: format!("{side}'s flag fell at {}, shown within {}", seconds(fell_us), millis(bound_us)),
                firmware: format!("noticed at {}", seconds(flag.observed_at_us)),
            });
        }
    }

    /// Period records against the model's period changes, per side in order.
    fn check_periods(&mut self) {
        let timeline = self.timeline;
        let first_game_record = timeline.game_from;
        for side in Side::BOTH {
            let model: Vec<&ModelPeriod> = timeline.periods.iter().filter(|change| change.side == side).collect();
            let firmware: Vec<(usize, &Record, contract::PeriodChange)> = self
                .records
                .iter()
                .enumerate()
                .skip(first_game_record)
                .filter_map(|(index, record)| match record.body {
                    Body::Period(change) if side_of(change.side) == side => Some((index, record, change)),
                    _ => None,
                })
                .collect();
            for position in 0..model.len().max(firmware.len()) {
                match (model.get(position), firmware.get(position)) {
                    (Some(model), Some(&(index, record, change))) => {
                        self.check_period_pair(side, model, index, record, change);
                    }
                    (Some(model), None) => {
                        if model.at_us.saturating_add(self.tick_us) > timeline.end_us {
                            continue;
                        }
                        self.push(Mismatch {
                            quantity: Quantity::PeriodChange,
                            press_index: timeline.press_index_at(model.at_us),
                            at_us: model.at_us,
                            seq: None,
                            model: period_text(model.from, model.to, model.at_us, model.moves),
                            firmware: "no change".to_string(),
                        });
                    }
                    (None, Some(&(index, record, change))) => {
                        self.push(Mismatch {
                            quantity: Quantity::PeriodChange,
                            press_index: timeline.press_index_before(index),
                            at_us: record.at_us,
                            seq: Some(record.seq),
                            model: "no change".to_string(),
                            firmware: period_text(change.from, change.to, record.at_us, change.moves),
                        });
                    }
                    (None, None) => {}
                }
            }
        }
    }

    /// A Period record against the model's period change it pairs with:
    /// from/to, instant and display after it (tolerance policy), cause,
    /// moves.
    fn check_period_pair(
        &mut self,
        side: Side,
        model: &ModelPeriod,
        index: usize,
        record: &Record,
        change: contract::PeriodChange,
    ) {
        let press_index = self.timeline.press_index_before(index).or(self.timeline.press_index_at(record.at_us));
        let model_text = period_text(model.from, model.to, model.at_us, model.moves);
        let firmware_text = period_text(change.from, change.to, record.at_us, change.moves);
        let tolerance = &mut self.tolerance;
        let instant_within = tolerance.judge(Quantity::PeriodInstant, side, index, model.at_us, record.at_us);
        let remaining_within =
            tolerance.judge(Quantity::PeriodRemaining, side, index, model.remaining_us, change.remaining_us);
        let mut push = |quantity, model: String, firmware: String| {
            self.push(Mismatch { quantity, press_index, at_us: record.at_us, seq: Some(record.seq), model, firmware });
        };
        if (model.from, model.to) != (change.from, change.to) {
            push(Quantity::PeriodChange, model_text.clone(), firmware_text.clone());
        }
        if !instant_within {
            push(Quantity::PeriodInstant, model_text.clone(), firmware_text.clone());
        }
        if model.cause != change.cause {
            push(Quantity::PeriodCause, format!("{:?}", model.cause), format!("{:?}", change.cause));
        }
        if model.moves != change.moves {
            push(Quantity::PeriodMoves, model_text, firmware_text);
        }
        if !remaining_within {
            push(Quantity::PeriodRemaining, seconds(model.remaining_us), seconds(change.remaining_us));
        }
    }
}

/// The reference firmware's game logic on the host, for tests and the
/// cargo feature `fake`.
mod accounting;
/// The core's period cause as the contract's records write it.
fn contract_cause(cause: chessclock::PeriodCause) -> PeriodCause {
    match cause {
        chessclock::PeriodCause::MovesCompleted => PeriodCause::MovesCompleted,
        chessclock::PeriodCause::FlagOpenedNext => PeriodCause::FlagOpenedNext,
        chessclock::PeriodCause::OvertimeBegins => PeriodCause::OvertimeBegins,
        chessclock::PeriodCause::PeriodLost => PeriodCause::PeriodLost,
    }
}

pub use accounting::{check_presses, EdgeTiming, MadePress};
mod cadence;
pub use cadence::{check_cadence, SNAPSHOT_INTERVAL_MAX_US};

#[cfg(test)]
mod firmware_agrees;
mod game_result;
pub use game_result::compare_game;
#[cfg(test)]
mod hostile_records;

pub mod tolerance;
use tolerance::{DisplayStep, Tolerance};

#[cfg(test)]
mod tests {
    use bench_contract::{Ack, Button, Hello, Press, Snapshot, BUTTONS_PAUSE};

    use super::*;
    use crate::testing::firmware::{play, Defects, TICK_US};

    /// `text` parsed, as a scenario carries it.
    fn control(text: &str) -> Control {
        Control { text: text.to_string(), control: notation::parse(text).expect("a control") }
    }

    fn tick() -> u64 {
        u64::from(TICK_US)
    }

    /// Alternating presses, White first, at these offsets (µs after the start).
    fn alternate(offsets: &[u64]) -> Vec<(Button, u64)> {
        offsets
            .iter()
            .enumerate()
            .map(|(index, &offset)| (if index % 2 == 0 { Button::White } else { Button::Black }, offset))
            .collect()
    }

    fn keys(comparison: &Comparison) -> Vec<&'static str> {
        comparison.by_quantity.keys().copied().collect()
    }

    fn check(control: &str, presses: &[(Button, u64)], until_us: u64, defects: Defects) -> Comparison {
        let records = play(defects, control, presses, until_us);
        compare(control, tick(), &records).expect("the control parses")
    }

    /// 6.12: both flags down in the final period are a draw on a clock
    /// that cannot show which fell first, and are ruled by their order on
    /// one that shows it; the firmware's records are judged for the kind of
    /// clock it announced.
    #[test]
    fn both_flags_are_ruled_for_the_kind_of_clock() {
        // 3 s sudden death: White presses at 1 s, Black's flag falls at 4 s
        // and White's (2 s left) at 6.5 s after Black's late press.
        let records = play(Defects::default(), "3", &alternate(&[1_000_000, 4_500_000]), 8_000_000);
        let shown = compare_on("3", tick(), &records, FlagOrder::Shown).expect("the control parses");
        let unknown = compare_on("3", tick(), &records, FlagOrder::Unknown).expect("the control parses");
        assert_eq!(shown.model.flags.len(), 2, "{:?}", shown.model.flags);
        let article = |comparison: &Comparison| comparison.model.ruling.map(|ruling| ruling.article);
        assert_eq!(article(&unknown), Some(chessclock::Article::A6_12b));
        assert_ne!(article(&shown), Some(chessclock::Article::A6_12b));
        assert_eq!(unknown.model.ruling, unknown.firmware.ruling);
        assert!(shown.passed() && unknown.passed());
    }

    /// A game ends on the arbiter's ruling on the flags shown then: flags
    /// that fall after it (the run listens on past the end) are no part of
    /// the ruling. Black's flag falls at 4 s and ends the game; White's, at
    /// 6.5 s, once made it a draw under 6.12 b) on a clock without the order.
    #[test]
    fn the_ruling_is_on_the_flags_the_game_ended_on() {
        let records = play(Defects::default(), "3", &alternate(&[1_000_000, 4_500_000]), 8_000_000);
        let ending = (FlagOrder::Unknown, FlagsAtEnd::Ruled { count: 1, opponent_can_checkmate: true });
        let ended = compare_ended(&control("3"), tick(), &records, ending, &[]).expect("the control parses");
        assert_eq!(ended.model.flags.len(), 2, "both flags are still compared: {:?}", ended.model.flags);
        let black_loses = Ruling { outcome: Outcome::Win(Side::White), article: chessclock::Article::A6_10 };
        assert_eq!((ended.model.ruling, ended.firmware.ruling), (Some(black_loses), Some(black_loses)));
        assert!(ended.passed(), "{:#?}", ended.mismatches);
        let on_the_board = (FlagOrder::Unknown, FlagsAtEnd::NotRuled);
        let board = compare_ended(&control("3"), tick(), &records, on_the_board, &[]).expect("the control parses");
        assert_eq!((board.model.ruling, board.firmware.ruling), (None, None), "no flag ruling: no second winner");
    }

    /// `2/2:3`, order unknown: both first-stage flags fall (White's at 2 s,
    /// Black's at 4.5 s; 6.12 a): play goes on), then White's in the final
    /// stage at 7.5 s, alone: 6.10. The ruling once paired that flag with
    /// Black's stale first-stage one and said "play on" again.
    #[test]
    fn flags_a_ruling_let_play_go_on_past_are_not_ruled_on_again() {
        let records = play(Defects::default(), "2/2:3", &alternate(&[2_500_000, 5_000_000]), 8_000_000);
        let comparison = compare_on("2/2:3", tick(), &records, FlagOrder::Unknown).expect("the control parses");
        assert!(comparison.passed(), "{:#?}", comparison.mismatches);
        let periods: Vec<(Side, u32)> = comparison.model.flags.iter().map(|flag| (flag.side, flag.period)).collect();
        assert_eq!(periods, [(Side::White, 0), (Side::Black, 0), (Side::White, 1)]);
        let white_loses = Ruling { outcome: Outcome::Win(Side::Black), article: chessclock::Article::A6_10 };
        assert_eq!((comparison.model.ruling, comparison.firmware.ruling), (Some(white_loses), Some(white_loses)));
    }

    /// A clock whose pause button resets it: after the pause, its
    /// Snapshots show it not started with nothing on its displays, and it
    /// refuses the presses after (`Other`). Each mismatch that follows says
    /// what the clock showed: they once read only 0.000 s and `Other`, and
    /// the records were needed to see the phase.
    #[test]
    fn mismatches_of_a_clock_in_another_phase_name_its_phase() {
        let presses = [
            (Button::White, 1_000_000),
            (Button::Black, 2_000_000),
            (Button::Pause, 3_000_000),
            (Button::Pause, 5_000_000),
            (Button::White, 6_000_000),
        ];
        let mut records = play(Defects::default(), "60+1", &presses, 8_000_000);
        let mut reset = false;
        for record in &mut records {
            match &mut record.body {
                Body::Press(press) if press.button == Button::Pause && !reset => reset = true,
                Body::Press(press) if reset => {
                    (press.result, press.moves, press.remaining_us) = (PressResult::Other, 0, 0);
                }
                Body::Snapshot(shown) if reset => {
                    (shown.phase, shown.side) = (contract::Phase::NotStarted, None);
                    (shown.remaining_white_us, shown.remaining_black_us) = (0, 0);
                    (shown.moves_white, shown.moves_black) = (0, 0);
                }
                _ => {}
            }
        }
        let comparison = compare("60+1", tick(), &records).expect("parses");
        let named = |mismatch: &Mismatch| mismatch.firmware.contains("not started");
        let kinds = ["press.result", "press.remaining_us", "snapshot.remaining_us.white", "snapshot.moves.black"];
        for kind in kinds {
            let examples: Vec<&Mismatch> =
                comparison.mismatches.iter().filter(|mismatch| mismatch.quantity.key() == kind).collect();
            assert!(!examples.is_empty(), "{kind}: {:#?}", comparison.mismatches);
            assert!(examples.iter().all(|mismatch| named(mismatch)), "{kind}: {examples:#?}");
        }
        let first = comparison.mismatches.first().expect("a mismatch");
        assert_eq!(first.quantity, Quantity::PressResult);
        assert!(first.firmware.starts_with("Other (refused for a reason"), "{first}");
        assert!(
            first.firmware.ends_with("its clock not started (its last Snapshot), the model's paused (White)"),
            "{first}"
        );
    }

    /// Periods entered at the instant a display starts: with no main time
    /// (overtime begins at the start for White, at White's press for
    /// Black) and a delay that ends on a main time of zero (the flag opens
    /// the next stage). The model once noted no change at the start and
    /// called the second one a lost period; the firmware called Black's a
    /// completed stage.
    #[test]
    fn periods_entered_as_a_display_starts_match_with_their_causes() {
        type Case = (&'static str, Vec<(Button, u64)>, &'static [(Side, PeriodCause)]);
        let cases: [Case; 3] = [
            (
                "0(2x1)",
                alternate(&[400_000]),
                &[(Side::White, PeriodCause::OvertimeBegins), (Side::Black, PeriodCause::OvertimeBegins)],
            ),
            (
                "0(2/3)",
                alternate(&[400_000, 900_000]),
                &[(Side::White, PeriodCause::OvertimeBegins), (Side::Black, PeriodCause::OvertimeBegins)],
            ),
            ("1/0+d0.5:3", Vec::new(), &[(Side::White, PeriodCause::FlagOpenedNext)]),
        ];
        for (control, presses, expected) in cases {
            let records = play(Defects::default(), control, &presses, 1_000_000);
            let comparison = compare(control, tick(), &records).expect("the control parses");
            assert!(comparison.passed(), "{control}: {:#?}", comparison.mismatches);
            let causes: Vec<(Side, PeriodCause)> = records
                .iter()
                .filter_map(|record| match record.body {
                    Body::Period(change) => Some((side_of(change.side), change.cause)),
                    _ => None,
                })
                .take(expected.len())
                .collect();
            assert_eq!(causes, expected, "{control}");
        }
    }

    /// Stages with no time pass at one instant: one Period record (0 → 2)
    /// and one Flag record, the last (contract, kind 4), and the model agrees.
    #[test]
    fn periods_passed_at_one_instant_make_one_record_each() {
        let control = "1/0:1/0:5";
        let records = play(Defects::default(), control, &[], 1_000_000);
        let comparison = compare(control, tick(), &records).expect("the control parses");
        assert!(comparison.passed(), "{:#?}", comparison.mismatches);
        let periods: Vec<(u32, u32)> = records
            .iter()
            .filter_map(|record| match record.body {
                Body::Period(change) => Some((change.from, change.to)),
                _ => None,
            })
            .collect();
        let flags: Vec<(u32, u32)> = records
            .iter()
            .filter_map(|record| match record.body {
                Body::Flag(flag) => Some((flag.period, flag.sequence)),
                _ => None,
            })
            .collect();
        assert_eq!(periods, [(0, 2)]);
        assert_eq!(flags, [(1, 2)]);
    }

    /// The normal firmware matches on every kind of control, with flags,
    /// stage changes, delay, byo-yomi periods and a press out of turn.
    #[test]
    fn a_correct_firmware_gives_no_mismatch() {
        let mut out_of_turn = alternate(&[400_000, 900_000, 1_500_000]);
        out_of_turn.push((Button::White, 1_700_000)); // White's clock is not running: refused (6.8a)
        type Case = (&'static str, Vec<(Button, u64)>, u64);
        let cases: [Case; 8] = [
            ("300+2", alternate(&[1_234_567, 2_500_000, 4_000_001, 4_100_000, 9_999_999]), 12_000_000),
            ("5+1", alternate(&[1_000_000, 1_500_000]), 14_000_000), // White flags in the final period
            ("3+d2", alternate(&[1_000_000, 3_500_000, 4_000_000]), 12_000_000), // delay, then a flag
            ("2/10:10", alternate(&[500_000, 1_000_000, 1_500_000, 2_000_000, 2_500_000]), 4_000_000),
            ("2/3:5", alternate(&[500_000, 1_000_000]), 10_000_000), // a flag opens the next stage
            ("3(2x1)", alternate(&[500_000]), 8_000_000),            // byo-yomi: overtime, periods lost, flag
            ("*10", alternate(&[2_000_000, 3_000_000, 7_000_000]), 9_000_000),
            ("60", out_of_turn, 2_500_000),
        ];
        for (control, presses, until) in cases {
            let comparison = check(control, &presses, until, Defects::default());
            assert!(comparison.passed(), "{control}: {:#?}", comparison.mismatches);
            assert_eq!(comparison.presses, presses.len(), "{control}");
            assert!(comparison.snapshots > 10, "{control}");
            assert_eq!(comparison.model, comparison.firmware, "{control}");
            let flags = match control {
                "5+1" | "3+d2" | "3(2x1)" => 1,
                "2/3:5" => 2,
                _ => 0,
            };
            assert_eq!(comparison.model.flags.len(), flags, "{control}: the case exercises its flags");
        }
    }

    /// The five-minute control where White flags: the result is the laws'.
    #[test]
    fn the_result_is_the_laws_ruling_on_the_flags() {
        let comparison = check("5+1", &alternate(&[1_000_000, 1_500_000]), 14_000_000, Defects::default());
        assert!(comparison.passed(), "{:#?}", comparison.mismatches);
        assert_eq!(comparison.model.flags.len(), 1, "White's flag falls; Black's clock never runs again");
        let ruling = comparison.model.ruling.expect("a ruling");
        assert_eq!(ruling.outcome, Outcome::Win(Side::Black), "White's flag fell first (6.10)");
    }

    /// 6.2b time-delay mode run as Bronstein: the display falls during the
    /// delay and the flag comes the delay early.
    #[test]
    fn delay_treated_as_bronstein_is_caught() {
        let defects = Defects { delay_as_bronstein: true, ..Defects::default() };
        let comparison = check("3+d2", &alternate(&[1_000_000, 3_500_000, 4_000_000]), 12_000_000, defects);
        assert!(!comparison.passed());
        let keys = keys(&comparison);
        for key in ["snapshot.remaining_us.white", "snapshot.delay_us", "flag.at_us"] {
            assert!(keys.contains(&key), "{key} in {keys:?}");
        }
        let flag = comparison.mismatches.iter().find(|m| m.quantity == Quantity::FlagInstant).expect("a flag mismatch");
        assert!(flag.model.contains("flag at") && flag.firmware.contains("flag at"), "{flag}");
        assert_ne!(flag.model, flag.firmware);
    }

    /// `moves > required`: the second stage's time comes one move late.
    #[test]
    fn a_stage_switch_one_move_late_is_caught() {
        let defects = Defects { late_stage_switch: true, ..Defects::default() };
        let presses = alternate(&[500_000, 1_000_000, 1_500_000, 2_000_000, 2_500_000, 3_000_000]);
        let comparison = check("2/10:10", &presses, 4_000_000, defects);
        let keys = keys(&comparison);
        for key in ["press.remaining_us", "period_change.at_us", "period_change.moves"] {
            assert!(keys.contains(&key), "{key} in {keys:?}");
        }
        assert_eq!(comparison.first_of_each.len(), comparison.by_quantity.len(), "one first per quantity");
        assert!(comparison.first_of_each.windows(2).all(|pair| pair[0].at_us <= pair[1].at_us));
        // White's second move (press 2) should have opened stage 1: 10 − 1 + 10 s.
        let press = comparison.mismatches.iter().find(|m| m.quantity == Quantity::PressRemaining).expect("a press");
        assert_eq!(press.press_index, Some(2));
        assert_eq!(press.model, "19.000000 s");
        assert_eq!(press.firmware, "9.000000 s");
    }

    /// The increment credited before the flag check: the flag falls an
    /// increment late, and a press within it is taken as in time.
    #[test]
    fn an_increment_added_before_the_flag_check_is_caught() {
        let defects = Defects { increment_before_flag_check: true, ..Defects::default() };
        // White idles past the flag (1 s) and presses 1.5 s in.
        let comparison = check("1+2", &[(Button::White, 1_500_000)], 4_000_000, defects);
        let keys = keys(&comparison);
        assert!(keys.contains(&"snapshot.flag.white"), "{keys:?}");
        assert!(keys.contains(&"press.remaining_us"), "{keys:?}");
        let flag = comparison.mismatches.iter().find(|m| m.quantity == Quantity::Flag).expect("a missing flag");
        assert_eq!(flag.firmware, "no flag");
        assert!(flag.model.contains("White flag at 2.000000 s"), "{flag}");
        // Idle to the late flag: it comes the increment late.
        let comparison = check("1+2", &[], 4_000_000, defects);
        assert!(keys_of(&comparison).contains(&"flag.at_us"), "{:?}", keys_of(&comparison));
    }

    fn keys_of(comparison: &Comparison) -> Vec<&'static str> {
        keys(comparison)
    }

    /// 6.3: a sudden-death game of 3 s started at 1 s; White's flag falls
    /// at 4 s, and the firmware reports it noticed at `observed_at_us`.
    fn flag_game(observed_at_us: u64) -> Vec<Record> {
        flag_game_at(4_000_000, observed_at_us)
    }

    /// [`flag_game`] with the firmware's flag falling at `fell_at_us`.
    fn flag_game_at(fell_at_us: u64, observed_at_us: u64) -> Vec<Record> {
        let flag = contract::Flag { side: contract::Side::White, period: 0, sequence: 1, observed_at_us, moves: 0 };
        vec![
            header(0, 900_000, ack(CommandCode::TimeControl, 3_000_000)),
            header(1, 1_000_000, ack(CommandCode::Start, 3_000_000)),
            header(2, fell_at_us, Body::Flag(flag)),
        ]
    }

    /// §9: the notice is judged from the firmware's own flag. A flag that
    /// falls half a second late and is shown at once is one mismatch, its
    /// instant; it was once counted again as noticed late against the
    /// model's instant.
    #[test]
    fn a_late_flag_shown_at_once_is_one_mismatch_of_its_instant() {
        let late = compare("3", 1_000, &flag_game_at(4_500_000, 4_500_040)).expect("parses");
        assert_eq!(late.by_quantity.get("flag.at_us"), Some(&1), "{:#?}", late.mismatches);
        assert_eq!(late.mismatch_count, 1, "{:#?}", late.mismatches);
        // Late, and noticed late after its own instant: both, each once.
        let noticed_late = compare("3", 1_000, &flag_game_at(4_500_000, 5_000_000)).expect("parses");
        assert_eq!(noticed_late.by_quantity.get("flag.at_us"), Some(&1), "{:#?}", noticed_late.mismatches);
        assert_eq!(noticed_late.by_quantity.get("flag.observed_at_us"), Some(&1), "{:#?}", noticed_late.mismatches);
    }

    #[test]
    fn a_flag_noticed_late_is_caught_on_its_notice_time() {
        let on_time = compare("3", 1_000, &flag_game(4_000_040)).expect("parses");
        assert!(!keys(&on_time).contains(&"flag.observed_at_us"), "{:#?}", on_time.mismatches);
        let late = compare("3", 1_000, &flag_game(4_500_000)).expect("parses");
        assert_eq!(late.by_quantity.get("flag.observed_at_us"), Some(&1), "{:#?}", late.mismatches);
        let early = compare("3", 1_000, &flag_game(3_500_000)).expect("parses");
        assert_eq!(early.by_quantity.get("flag.observed_at_us"), Some(&1), "{:#?}", early.mismatches);
    }

    /// The flag decided on the display rounded to the second: up to 0.5 s early.
    #[test]
    fn a_flag_shown_by_rounding_the_display_is_caught() {
        let defects = Defects { display_rounding_flag: true, ..Defects::default() };
        let comparison = check("2", &[], 3_000_000, defects);
        let flag = comparison.mismatches.iter().find(|m| m.quantity == Quantity::FlagInstant).expect("a flag");
        assert!(flag.model.contains("at 3.000000 s"), "{flag}");
        assert!(flag.firmware.contains("at 2.50"), "{flag}");
        assert!(keys(&comparison).contains(&"snapshot.flag.white"));
    }

    fn header(seq: u32, at_us: u64, body: Body) -> Record {
        Record::new(seq, 0, at_us, body)
    }

    fn ack(command: CommandCode, initial_us: u64) -> Body {
        Body::Ack(Ack {
            command,
            status: AckStatus::Ok,
            error_position: 0,
            commands: 1,
            initial_us,
            final_period: 0,
            side: None,
        })
    }

    fn press(button: Button, moves: u32, remaining_us: u64, handled_at_us: u64) -> Body {
        Body::Press(Press {
            button,
            result: PressResult::Accepted,
            bounces: 0,
            moves,
            remaining_us,
            handled_at_us,
            edge_hw_counter: 0,
        })
    }

    fn snapshot(side: contract::Side, white: u64, black: u64, moves: (u32, u32)) -> Body {
        Body::Snapshot(Snapshot {
            phase: contract::Phase::Running,
            side: Some(side),
            remaining_white_us: white,
            remaining_black_us: black,
            moves_white: moves.0,
            moves_black: moves.1,
            delay_us: 0,
            period_white: 0,
            period_black: 0,
            flag_white: false,
            flag_black: false,
        })
    }

    /// A literal sequence, written by hand: `60+1`, started at 1 s, White
    /// presses at 3.5 s (60 − 2.5 + 1 = 58.5 s left), Black at 4 s.
    fn hand_built(white_after_press_us: u64) -> Vec<Record> {
        let hello = Hello {
            contract_version: 1,
            record_size: 48,
            tick_us: 1_000,
            hw_counter_hz: 1,
            hw_counter_bits: 32,
            buttons: BUTTONS_PAUSE,
            debounce_us: 20_000,
            firmware_version: 1,
            firmware_name: *b"handmade",
        };
        vec![
            header(0, 5, Body::Hello(hello)),
            header(1, 900_000, ack(CommandCode::TimeControl, 60_000_000)),
            header(2, 1_000_000, ack(CommandCode::Start, 60_000_000)),
            header(3, 1_000_000, snapshot(contract::Side::White, 60_000_000, 60_000_000, (0, 0))),
            header(4, 2_000_000, snapshot(contract::Side::White, 59_000_000, 60_000_000, (0, 0))),
            header(5, 3_500_000, press(Button::White, 1, white_after_press_us, 3_500_009)),
            header(6, 3_500_000, snapshot(contract::Side::Black, white_after_press_us, 60_000_000, (1, 0))),
            header(7, 4_000_000, press(Button::Black, 1, 60_500_000, 4_000_004)),
            header(8, 4_100_000, snapshot(contract::Side::White, white_after_press_us - 100_000, 60_500_000, (1, 1))),
        ]
    }

    /// 6.3: White runs from Black's press at 4 s with 58.5 s left, so the
    /// model's game goes quiet at White's flag, 62.5 s, long after the
    /// records end (4.1 s): a run must wait that long to judge the flag.
    #[test]
    fn the_model_goes_quiet_at_the_flag_after_the_records_end() {
        assert_eq!(model_quiet_us(control("60+1").control, &hand_built(58_500_000), &[]), 62_500_000);
    }

    /// A run listens past a game's end, and the firmware keeps sending
    /// Snapshots: they change nothing, so the model stays quiet from its
    /// last change (White's flag at 62.5 s), not from the latest record; a
    /// game lost on time once waited out the whole bound so.
    #[test]
    fn snapshots_after_the_flag_do_not_move_the_quiet_instant() {
        let mut records = hand_built(58_500_000);
        for (seq, at_us) in [(9, 62_500_000), (10, 70_000_000), (11, 90_000_000)] {
            let shown = 0;
            records.push(header(seq, at_us, snapshot(contract::Side::White, shown, 60_500_000, (1, 1))));
        }
        assert_eq!(model_quiet_us(control("60+1").control, &records, &[]), 62_500_000);
        // Before the flag, the model's quiet instant is its next deadline.
        assert_eq!(model_quiet_us(control("60+1").control, &records[..9], &[]), 62_500_000);
    }

    fn example(quantity: Quantity, at_us: u64) -> Mismatch {
        Mismatch { quantity, press_index: None, at_us, seq: None, model: String::new(), firmware: String::new() }
    }

    /// A wrong display fills every snapshot after the press that made it
    /// wrong: the press, flag and result mismatches are kept and come
    /// first however many snapshot ones came before them, earliest first
    /// whichever check found them; the first of each quantity too, a cause
    /// before a display at the same instant.
    #[test]
    fn causes_are_kept_before_snapshot_mismatches_however_many_those_are() {
        let mut comparison = compare("60+1", 1_000, &[]).expect("parses");
        for at_us in 0..(MISMATCHES_KEPT as u64 * 3) {
            comparison.add(example(Quantity::Remaining(Side::White), at_us));
        }
        comparison.add(example(Quantity::Result, 30));
        comparison.add(example(Quantity::FlagInstant, 20));
        comparison.add(example(Quantity::PressRemaining, 10));
        let firsts: Vec<Quantity> = comparison.first_of_each.iter().take(2).map(|first| first.quantity).collect();
        assert_eq!(firsts, [Quantity::Remaining(Side::White), Quantity::PressRemaining], "0 µs, then 10 µs");
        comparison.add(example(Quantity::PressStamp, 0));
        assert_eq!(comparison.first_of_each[0].quantity, Quantity::PressStamp, "a cause at the display's instant");
        assert_eq!(comparison.mismatches.len(), MISMATCHES_KEPT);
        let kinds: Vec<Quantity> = comparison.mismatches.iter().take(5).map(|kept| kept.quantity).collect();
        assert_eq!(
            kinds,
            [
                Quantity::PressStamp,
                Quantity::PressRemaining,
                Quantity::FlagInstant,
                Quantity::Result,
                Quantity::Remaining(Side::White)
            ]
        );
        assert_eq!(comparison.mismatch_count, MISMATCHES_KEPT * 3 + 4, "every mismatch counted");
        assert_eq!(comparison.by_quantity.get("snapshot.remaining_us.white"), Some(&(MISMATCHES_KEPT * 3)));
    }

    #[test]
    fn a_hand_built_correct_sequence_matches() {
        let comparison = compare("60+1", 1_000, &hand_built(58_500_000)).expect("parses");
        assert!(comparison.passed(), "{:#?}", comparison.mismatches);
        assert_eq!((comparison.presses, comparison.snapshots), (2, 4));
        assert_eq!(comparison.start_us, Some(1_000_000));
        assert_eq!(comparison.records_lost, 0);
    }

    /// The hand-built game with White's contact chattering after its press:
    /// a second White edge `gap_us` later, registered and refused because
    /// Black's clock now runs (6.8a).
    fn with_bounce_registered(gap_us: u64) -> Vec<Record> {
        let mut records = hand_built(58_500_000);
        let bounce = Press {
            button: Button::White,
            result: PressResult::NotRunning,
            bounces: 0,
            moves: 1,
            remaining_us: 58_500_000,
            handled_at_us: 3_500_000 + gap_us + 5,
            edge_hw_counter: 0,
        };
        records.insert(7, header(7, 3_500_000 + gap_us, Body::Press(bounce)));
        for (seq, record) in records.iter_mut().enumerate() {
            record.seq = u32::try_from(seq).expect("few records");
        }
        records
    }

    #[test]
    fn a_press_inside_the_debounce_window_is_named_with_its_index_side_and_instant() {
        let records = with_bounce_registered(1_923);
        let mut comparison = compare("60+1", 1_000, &records).expect("parses");
        assert!(comparison.passed(), "the core refuses the bounce too: {:#?}", comparison.mismatches);
        check_debounce(&mut comparison, &records, 20_000);
        assert!(!comparison.passed());
        assert_eq!(comparison.by_quantity.get("press.bounce"), Some(&1));
        let mismatch = comparison.first_of_each.first().expect("a mismatch");
        assert_eq!((mismatch.press_index, mismatch.at_us, mismatch.seq), (Some(1), 3_501_923, Some(7)));
        assert_eq!(
            mismatch.to_string(),
            "press.bounce at 3.501923 s (press 1): model no press: an edge 1.923 ms after White's press 0 is \
             bounce inside the 20.000 ms debounce window, firmware White press 1 registered (NotRunning)"
        );
    }

    #[test]
    fn presses_of_one_button_further_apart_than_the_window_and_of_two_buttons_are_not_bounce() {
        // 20 ms after: outside the window, a press (refused, as the model has it).
        let records = with_bounce_registered(20_000);
        let mut comparison = compare("60+1", 1_000, &records).expect("parses");
        check_debounce(&mut comparison, &records, 20_000);
        assert!(comparison.passed(), "{:#?}", comparison.mismatches);
        // White then Black 0.5 s apart, with a window longer than that.
        let records = hand_built(58_500_000);
        let mut comparison = compare("60+1", 1_000, &records).expect("parses");
        check_debounce(&mut comparison, &records, 600_000);
        assert!(comparison.passed(), "{:#?}", comparison.mismatches);
    }

    #[test]
    fn a_difference_within_a_tick_is_no_mismatch_and_beyond_it_names_the_press_and_both_values() {
        let within = compare("60+1", 1_000, &hand_built(58_500_000 + 1_000)).expect("parses");
        assert!(within.passed(), "{:#?}", within.mismatches);
        let beyond = compare("60+1", 1_000, &hand_built(58_500_000 + 1_001)).expect("parses");
        let first = beyond.mismatches.first().expect("a mismatch");
        assert_eq!(first.quantity, Quantity::PressRemaining);
        assert_eq!(first.press_index, Some(0));
        assert_eq!(first.seq, Some(5));
        assert_eq!((first.model.as_str(), first.firmware.as_str()), ("58.500000 s", "58.501001 s"));
        assert_eq!(
            first.to_string(),
            "press.remaining_us at 3.500000 s (press 0): model 58.500000 s, firmware 58.501001 s"
        );
        // The snapshots after it are judged from the firmware's own state
        // after its press: the one wrong press is the one mismatch.
        assert_eq!(beyond.mismatch_count, 1, "{:#?}", beyond.mismatches);
        assert_eq!(beyond.largest_us.get("press.remaining_us"), Some(&1_001));
        assert_eq!(beyond.largest_us.get("snapshot.remaining_us.white"), Some(&0));
    }

    #[test]
    fn a_sequence_gap_is_counted() {
        let mut records = hand_built(58_500_000);
        records.remove(4);
        let comparison = compare("60+1", 1_000, &records).expect("parses");
        assert_eq!(comparison.records_lost, 1);
    }

    #[test]
    fn a_game_never_started_does_not_pass() {
        let records: Vec<Record> = hand_built(58_500_000).into_iter().take(2).collect();
        let comparison = compare("60+1", 1_000, &records).expect("parses");
        assert_eq!(comparison.start_us, None);
        assert!(!comparison.passed());
    }

    #[test]
    fn a_control_that_does_not_parse_is_an_error() {
        assert!(matches!(compare("40/54x0", 1_000, &[]), Err(CompareError::Control { .. })));
    }
}
