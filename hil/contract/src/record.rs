//! The records of the `bench` up-channel: 48 bytes each, little-endian.
//!
//! Every record starts with the same 16-byte header:
//!
//! ```text
//! offset size  field
//!      0  u8   kind           Kind code (1 Hello .. 8 Capabilities)
//!      1  u8   side           0 White, 1 Black, 2 pause button (Press only), 0xFF none
//!      2  u16  dropped        records dropped so far (up buffer full), saturating at 0xFFFF
//!      4  u32  seq            0 for the first record after boot, +1 for every record the
//!                             firmware produced, sent or dropped; wraps at 2^32
//!      8  u64  at_us          firmware clock, µs since boot: the instant the record is about
//! ```
//!
//! and carries 32 bytes of payload at offsets 16..48, laid out per kind (see
//! each struct). Reserved bytes are written as zero and ignored when read, so
//! a later minor version can use them. Every field is naturally aligned, so
//! the C structs of `include/bench_contract.h` need no packing.
//!
//! A gap in `seq` means records were lost: `dropped` says whether the
//! firmware dropped them (up buffer full) or the host lost them.

use core::fmt;

use crate::RECORD_SIZE;

/// Header offsets.
pub const OFFSET_KIND: usize = 0;
pub const OFFSET_SIDE: usize = 1;
pub const OFFSET_DROPPED: usize = 2;
pub const OFFSET_SEQ: usize = 4;
pub const OFFSET_AT_US: usize = 8;
/// Where the 32 bytes of payload start.
pub const OFFSET_PAYLOAD: usize = 16;

const SIDE_WHITE: u8 = 0;
const SIDE_BLACK: u8 = 1;
const SIDE_PAUSE: u8 = 2;
const SIDE_NONE: u8 = 0xFF;

/// A player, as the records name one (the firmware maps its own type to it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Side {
    White,
    Black,
}

/// A button of the clock: a player's, or the optional pause button.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Button {
    White,
    Black,
    Pause,
}

/// Bits of [`Hello::buttons`].
pub const BUTTON_WHITE: u8 = 1 << 0;
pub const BUTTON_BLACK: u8 = 1 << 1;
pub const BUTTON_PAUSE: u8 = 1 << 2;
/// The two player buttons every contract firmware has.
pub const BUTTONS_PLAYERS: u8 = BUTTON_WHITE | BUTTON_BLACK;
/// Both player buttons and the pause button.
pub const BUTTONS_PAUSE: u8 = BUTTONS_PLAYERS | BUTTON_PAUSE;

/// The record kinds, by their code at offset 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Kind {
    Hello = 1,
    Press = 2,
    Flag = 3,
    Period = 4,
    Snapshot = 5,
    TimeBase = 6,
    Ack = 7,
    /// Contract 3: what the clock supports, right after Hello.
    Capabilities = 8,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::Hello,
        Kind::Press,
        Kind::Flag,
        Kind::Period,
        Kind::Snapshot,
        Kind::TimeBase,
        Kind::Ack,
        Kind::Capabilities,
    ];

    pub const fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u8) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.code() == code)
    }
}

/// One record: the header fields and the kind-specific body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Record {
    pub seq: u32,
    /// Records the firmware dropped so far because the up buffer was full,
    /// saturating at `u16::MAX` (the exact count is in [`TimeBase`]).
    pub dropped: u16,
    /// Firmware clock, µs since boot: the instant the record is about.
    pub at_us: u64,
    pub body: Body,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Body {
    Hello(Hello),
    Press(Press),
    Flag(Flag),
    Period(PeriodChange),
    Snapshot(Snapshot),
    TimeBase(TimeBase),
    Ack(Ack),
    Capabilities(Capabilities),
}

impl Body {
    pub const fn kind(&self) -> Kind {
        match self {
            Body::Hello(_) => Kind::Hello,
            Body::Press(_) => Kind::Press,
            Body::Flag(_) => Kind::Flag,
            Body::Period(_) => Kind::Period,
            Body::Snapshot(_) => Kind::Snapshot,
            Body::TimeBase(_) => Kind::TimeBase,
            Body::Ack(_) => Kind::Ack,
            Body::Capabilities(_) => Kind::Capabilities,
        }
    }
}

/// Kind 1, the first record after boot (`seq` 0): what the firmware is.
///
/// ```text
/// 16 u16 contract_version   20 u32 tick_us          28 u8  hw_counter_bits   32 u32 debounce_us
/// 18 u16 record_size        24 u32 hw_counter_hz    29 u8  buttons           36 u32 firmware_version
///                                                   30 u16 reserved          40 u8[8] firmware_name
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Hello {
    /// [`crate::CONTRACT_VERSION`].
    pub contract_version: u16,
    /// [`crate::RECORD_SIZE`].
    pub record_size: u16,
    /// The firmware clock's tick: the resolution of its time base, in µs.
    pub tick_us: u32,
    /// Frequency of the free-running hardware counter in [`TimeBase`].
    pub hw_counter_hz: u32,
    /// Width of that counter: it wraps at 2^bits (64: never in practice).
    pub hw_counter_bits: u8,
    /// Which buttons the firmware has: [`BUTTON_WHITE`] | [`BUTTON_BLACK`] [| [`BUTTON_PAUSE`]].
    pub buttons: u8,
    /// Edges on one button closer than this to its last accepted press are bounce.
    pub debounce_us: u32,
    /// The firmware's own version number, opaque to bench.
    pub firmware_version: u32,
    /// ASCII, NUL-padded.
    pub firmware_name: [u8; 8],
}

/// What the clock made of a press.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum PressResult {
    /// The move is complete; the opponent's clock runs (6.8a).
    Accepted = 0,
    /// The other side's clock runs: only the player whose clock runs can stop it (6.8a).
    NotRunning = 1,
    NotStarted = 2,
    /// Stopped by the arbiter (6.13).
    Paused = 3,
    Finished = 4,
    /// Any other refusal.
    Other = 5,
    /// Contract 3: the firmware saw the press but did not apply it (a
    /// polling firmware that noticed a release with no press before it, or
    /// a press it had no room to queue). It is counted, never silent.
    NotApplied = 6,
}

impl PressResult {
    /// Every value, whose codes (the discriminants) are the contract's.
    pub const ALL: [PressResult; 7] = [
        PressResult::Accepted,
        PressResult::NotRunning,
        PressResult::NotStarted,
        PressResult::Paused,
        PressResult::Finished,
        PressResult::Other,
        PressResult::NotApplied,
    ];

    /// The value whose code is `code`, if any.
    pub fn from_code(code: u8) -> Option<PressResult> {
        PressResult::ALL.into_iter().find(|value| *value as u8 == code)
    }
}

/// Kind 2: a debounced press, as the firmware registered it. `side` is the
/// button; `at_us` is the press instant the firmware gave its clock (the
/// edge, not the moment it got round to it). The pause button toggles the
/// arbiter's pause (6.13): `Accepted` when the clock paused or resumed.
///
/// ```text
/// 16 u8  result    18 u16 bounces   24 u64 remaining_us    40 u64 edge_hw_counter
/// 17 u8  reserved  20 u32 moves     32 u64 handled_at_us
/// ```
///
/// Presses while no game is started are not registered and not recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Press {
    pub button: Button,
    pub result: PressResult,
    /// Edges of this button swallowed as bounce since its previous accepted
    /// press (saturating).
    pub bounces: u16,
    /// Completed moves of the pressing side after the press (0 for pause).
    pub moves: u32,
    /// The pressing side's display after the press, increment included (0 for pause).
    pub remaining_us: u64,
    /// Firmware clock when the press was applied: `handled_at_us - at_us`
    /// is the firmware's own press latency.
    pub handled_at_us: u64,
    /// Contract 2: the free-running hardware counter of [`TimeBase`]
    /// (Hello's `hw_counter_hz`, `hw_counter_bits`), read in the edge
    /// interrupt next to `at_us`, zero-extended. The host reads the same
    /// counter around its write of the edge, which measures the press
    /// latency on the board. Reserved (0) in contract 1.
    pub edge_hw_counter: u64,
}

/// Kind 3: a flag fell. `at_us` is the instant the display reached zero.
///
/// ```text
/// 16 u32 period     24 u64 observed_at_us   36 u32 reserved
/// 20 u32 sequence   32 u32 moves            40 u64 reserved
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Flag {
    pub side: Side,
    /// The period the flag fell in (stage index; byo-yomi/Canadian period).
    pub period: u32,
    /// 1 for the first flag of the game, 2 for the next (6.3: which fell first).
    pub sequence: u32,
    /// Firmware clock when the firmware noticed and reported it.
    pub observed_at_us: u64,
    /// Completed moves of this side at the flag (6.3 checks them).
    pub moves: u32,
}

/// Why a side's period changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum PeriodCause {
    /// The stage's moves are made: the next stage's time is added (6.2b), at
    /// a press; only for the side that pressed.
    MovesCompleted = 0,
    /// The stage's time ran out: a flag, and the next stage opens (6.3).
    FlagOpenedNext = 1,
    /// Byo-yomi or Canadian: main time is used up, overtime begins.
    OvertimeBegins = 2,
    /// Byo-yomi: a period ran out and the next one began.
    PeriodLost = 3,
}

impl PeriodCause {
    /// Every value, whose codes (the discriminants) are the contract's.
    pub const ALL: [PeriodCause; 4] = [
        PeriodCause::MovesCompleted,
        PeriodCause::FlagOpenedNext,
        PeriodCause::OvertimeBegins,
        PeriodCause::PeriodLost,
    ];

    /// The value whose code is `code`, if any.
    pub fn from_code(code: u8) -> Option<PeriodCause> {
        PeriodCause::ALL.into_iter().find(|value| *value as u8 == code)
    }
}

/// Kind 4: a side entered another period (stage, overtime period).
/// `at_us` is the instant of the change.
///
/// ```text
/// 16 u32 from   24 u8 cause        28 u32 moves          40 u64 reserved
/// 20 u32 to     25 u8[3] reserved  32 u64 remaining_us
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PeriodChange {
    pub side: Side,
    pub from: u32,
    pub to: u32,
    pub cause: PeriodCause,
    /// Completed moves of the side at the change.
    pub moves: u32,
    /// The side's display right after the change (saved time carried, 6.2b).
    pub remaining_us: u64,
}

/// Where the clock is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Phase {
    NotStarted = 0,
    Running = 1,
    /// Stopped by the arbiter (6.13).
    Paused = 2,
    Finished = 3,
}

impl Phase {
    /// Every value, whose codes (the discriminants) are the contract's.
    pub const ALL: [Phase; 4] = [Phase::NotStarted, Phase::Running, Phase::Paused, Phase::Finished];

    /// The value whose code is `code`, if any.
    pub fn from_code(code: u8) -> Option<Phase> {
        Phase::ALL.into_iter().find(|value| *value as u8 == code)
    }
}

/// Kind 5: both displays at `at_us`. `side` is the side whose clock runs
/// (Running) or will run on resume (Paused), none otherwise.
///
/// ```text
/// 16 u64 remaining_white_us   32 u32 moves_white   40 u32 delay_us        46 u8 phase
/// 24 u64 remaining_black_us   36 u32 moves_black   44 u8  period_white    47 u8 flags
///                                                  45 u8  period_black
/// ```
///
/// `flags`: bit 0 White's flag shows, bit 1 Black's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Snapshot {
    pub phase: Phase,
    pub side: Option<Side>,
    /// The big number on each display: main time, or in byo-yomi/Canadian
    /// overtime the time left in the current period.
    pub remaining_white_us: u64,
    pub remaining_black_us: u64,
    /// Completed moves (6.15).
    pub moves_white: u32,
    pub moves_black: u32,
    /// Time-delay mode (6.2b): delay left of the running side's move, saturating.
    pub delay_us: u32,
    /// Period of each side, saturating at 255.
    pub period_white: u8,
    pub period_black: u8,
    pub flag_white: bool,
    pub flag_black: bool,
}

/// Kind 6: the firmware clock (`at_us`) paired with a free-running hardware
/// counter read at the same moment.
///
/// ```text
/// 16 u64 hw_counter   24 u32 ticks   28 u8 flags   29 u8[3] reserved   32 u32 dropped_total   36..48 reserved
/// ```
///
/// `flags` bit 0 (edge): the sample was taken at the first observation of a
/// counter increment, so `at_us` is the moment the counter became
/// `hw_counter` (to within the firmware's loop latency). Coarse counters
/// (the emulator's 1 Hz real-time counter) are only useful sampled this way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TimeBase {
    /// The counter as the firmware read it, zero-extended; the host unwraps
    /// it with [`Hello::hw_counter_bits`].
    pub hw_counter: u64,
    /// The firmware's raw tick count (low 32 bits), which `at_us` is built from.
    pub ticks: u32,
    pub edge: bool,
    /// Records dropped so far because the up buffer was full (exact).
    pub dropped_total: u32,
}

/// Which command an [`Ack`] answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum CommandCode {
    /// The line was not a command.
    Unknown = 0,
    TimeControl = 1,
    Start = 2,
    Reset = 3,
    Pause = 4,
    Resume = 5,
    /// Contract 3: `set`, the arbiter sets a side's main time (6.11, 6.14).
    SetTime = 6,
    /// Contract 3: `adjust`, the arbiter adds or takes away time (6.8d, 13.4).
    AdjustTime = 7,
    /// Contract 3: `moves`, the arbiter sets a side's move counter (6.14).
    SetMoves = 8,
    /// Contract 3: `replace`, the arbiter replaces the clock and sets both
    /// sides' numbers (6.11).
    Replace = 9,
}

impl CommandCode {
    /// Every value, whose codes (the discriminants) are the contract's.
    pub const ALL: [CommandCode; 10] = [
        CommandCode::Unknown,
        CommandCode::TimeControl,
        CommandCode::Start,
        CommandCode::Reset,
        CommandCode::Pause,
        CommandCode::Resume,
        CommandCode::SetTime,
        CommandCode::AdjustTime,
        CommandCode::SetMoves,
        CommandCode::Replace,
    ];

    /// The value whose code is `code`, if any.
    pub fn from_code(code: u8) -> Option<CommandCode> {
        CommandCode::ALL.into_iter().find(|value| *value as u8 == code)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum AckStatus {
    Ok = 0,
    UnknownCommand = 1,
    /// Longer than [`crate::COMMAND_LINE_MAX`]; the whole line was discarded.
    LineTooLong = 2,
    /// `error_position` is the 0-based byte offset in the time-control text.
    BadTimeControl = 3,
    /// Not possible now (no time control set, already started, not paused, …).
    NotAllowed = 4,
    /// Contract 3: an arbiter command's argument is not a side and a number
    /// (`error_position` says where), or the clock cannot show that time.
    BadArgument = 5,
    /// Contract 3: a command the firmware knows but does not support (its
    /// Capabilities record leaves it out).
    Unsupported = 6,
}

impl AckStatus {
    /// Every value, whose codes (the discriminants) are the contract's.
    pub const ALL: [AckStatus; 7] = [
        AckStatus::Ok,
        AckStatus::UnknownCommand,
        AckStatus::LineTooLong,
        AckStatus::BadTimeControl,
        AckStatus::NotAllowed,
        AckStatus::BadArgument,
        AckStatus::Unsupported,
    ];

    /// The value whose code is `code`, if any.
    pub fn from_code(code: u8) -> Option<AckStatus> {
        AckStatus::ALL.into_iter().find(|value| *value as u8 == code)
    }
}

/// Kind 7: the answer to one down-channel command line. `at_us` is when it
/// took effect (for `start`: the instant White's clock started, 6.5). `side`
/// is the side an arbiter command acted on (contract 3), none otherwise; the
/// Snapshot that follows every command shows what it did.
///
/// ```text
/// 16 u8  command   18 u16 error_position   24 u64 initial_us    36..48 reserved
/// 17 u8  status    20 u32 commands         32 u32 final_period
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Ack {
    pub command: CommandCode,
    pub status: AckStatus,
    pub error_position: u16,
    /// Command lines received since boot, this one included.
    pub commands: u32,
    /// The configured control's initial time per side (0 if none).
    pub initial_us: u64,
    /// The configured control's final period (0 if none).
    pub final_period: u32,
    /// Contract 3: the side of `set`, `adjust` and `moves`; `None` otherwise.
    pub side: Option<Side>,
}

/// Bits of [`Capabilities::controls`]: the kinds of time control a clock
/// runs. A control needs the bit of each feature it uses: `40/5400+30:1800`
/// needs [`CONTROL_STAGES`], [`CONTROL_INCREMENT`] and [`CONTROL_PLAIN`].
pub const CONTROL_PLAIN: u32 = 1 << 0;
/// Fischer increment, `300+2` (6.2a).
pub const CONTROL_INCREMENT: u32 = 1 << 1;
/// Time delay, `300+d5` (6.2b).
pub const CONTROL_DELAY: u32 = 1 << 2;
/// Bronstein delay, `300+b3`.
pub const CONTROL_BRONSTEIN: u32 = 1 << 3;
/// More than one stage, `40/5400:1800` (6.2b, 6.3).
pub const CONTROL_STAGES: u32 = 1 << 4;
/// Hourglass, `*180`.
pub const CONTROL_HOURGLASS: u32 = 1 << 5;
/// Byo-yomi, `3600(5x30)`.
pub const CONTROL_BYO_YOMI: u32 = 1 << 6;
/// Canadian overtime, `600(20/300)`.
pub const CONTROL_CANADIAN: u32 = 1 << 7;
/// Every control kind the contract names.
pub const CONTROLS_ALL: u32 = (1 << 8) - 1;

/// Bits of [`Capabilities::arbiter`]: the arbiter's functions a clock has.
/// `pause`/`resume` (6.13).
pub const ARBITER_PAUSE: u32 = 1 << 0;
/// `set` (6.11, 6.14).
pub const ARBITER_SET_TIME: u32 = 1 << 1;
/// `adjust` (6.8d, 13.4).
pub const ARBITER_ADJUST_TIME: u32 = 1 << 2;
/// `moves` (6.14).
pub const ARBITER_SET_MOVES: u32 = 1 << 3;
/// `replace` (6.11).
pub const ARBITER_REPLACE: u32 = 1 << 4;
/// Every arbiter function the contract names.
pub const ARBITER_ALL: u32 = (1 << 5) - 1;

/// Kind 8 (contract 3): what the clock supports, sent right after Hello
/// (`seq` 1). side 0xFF. bench skips, with the reason in its report, a
/// scenario that needs what the clock leaves out.
///
/// ```text
/// 16 u32 controls   20 u32 arbiter   24 u8 flag_order   25..28 reserved
/// 28 u32 time_max_s   32 u32 setting_step_us   36 u32 display_step_us
/// 40 u32 display_fine_below_us   44 u32 button_poll_us
/// ```
///
/// The fields from offset 28 on ([`Ranges`]) came later in contract 3: a
/// firmware that leaves them 0 (reserved before) declares nothing, and is
/// held to the contract's whole range, as before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Capabilities {
    /// `CONTROL_*` bits.
    pub controls: u32,
    /// `ARBITER_*` bits.
    pub arbiter: u32,
    /// Whether the displays show which flag fell first: 6.12 rules a game
    /// where both flags fell by their order only when the clock shows it.
    pub shows_flag_order: bool,
    /// The ranges and resolutions the clock declares.
    pub ranges: Ranges,
}

/// What a clock declares of its ranges and resolutions (Capabilities,
/// offsets 28–47); 0 in a field declares nothing, and bench then holds the
/// clock to the contract's default, written beside each field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Ranges {
    /// The longest time the clock holds, in a display or a setting, whole
    /// seconds (a display that stops at 9:59:59 holds 35 999). 0: the
    /// notation's whole range.
    pub time_max_s: u32,
    /// The times the clock accepts in `tc`, `set`, `adjust` and `replace`
    /// are whole multiples of this (1 000 000: whole seconds). 0: any
    /// microsecond.
    pub setting_step_us: u32,
    /// A Snapshot's displays step by this at or above
    /// `display_fine_below_us` (1 000 000: whole seconds). 0: one tick.
    pub display_step_us: u32,
    /// Below this time left, the displays step by one tick. 0: they step by
    /// `display_step_us` at every time.
    pub display_fine_below_us: u32,
    /// The firmware reads its buttons this often and stamps a press at the
    /// poll that saw it closed (CONTRACT §11). 0: at the edge, or every tick.
    pub button_poll_us: u32,
}

impl Ranges {
    /// Nothing declared: the contract's defaults.
    pub const UNDECLARED: Ranges =
        Ranges { time_max_s: 0, setting_step_us: 0, display_step_us: 0, display_fine_below_us: 0, button_poll_us: 0 };
}

impl Capabilities {
    /// What a contract 1 or 2 firmware is taken to support: every control,
    /// pause and resume, and the order of the flags (as bench assumed
    /// before contract 3).
    pub const BEFORE_CONTRACT_3: Capabilities = Capabilities {
        controls: CONTROLS_ALL,
        arbiter: ARBITER_PAUSE,
        shows_flag_order: true,
        ranges: Ranges::UNDECLARED,
    };
}

/// Why bytes are not a valid record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum DecodeError {
    /// Offset 0 holds no known kind.
    UnknownKind { code: u8 },
    /// The byte at `offset` is not a valid value for its field.
    BadField { kind: Kind, offset: usize, value: u8 },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::UnknownKind { code } => {
                write!(f, "unknown record kind {code} at offset 0 (contract version 3 knows 1 to 8)")
            }
            DecodeError::BadField { kind, offset, value } => {
                write!(f, "{kind:?} record: byte {value:#04x} at offset {offset} is not a valid value")
            }
        }
    }
}

impl core::error::Error for DecodeError {}

impl Record {
    pub const fn new(seq: u32, dropped: u16, at_us: u64, body: Body) -> Record {
        Record { seq, dropped, at_us, body }
    }

    pub fn encode(&self) -> [u8; RECORD_SIZE] {
        let mut out = Out([0; RECORD_SIZE]);
        out.u8(OFFSET_KIND, self.body.kind().code());
        out.u16(OFFSET_DROPPED, self.dropped);
        out.u32(OFFSET_SEQ, self.seq);
        out.u64(OFFSET_AT_US, self.at_us);
        let side = self.body.write(&mut out);
        out.u8(OFFSET_SIDE, side);
        out.0
    }

    pub fn decode(bytes: &[u8; RECORD_SIZE]) -> Result<Record, DecodeError> {
        let read = In(bytes);
        let code = read.u8(OFFSET_KIND);
        let kind = Kind::from_code(code).ok_or(DecodeError::UnknownKind { code })?;
        let fields = Fields { read, kind, side_byte: read.u8(OFFSET_SIDE) };
        let body = match kind {
            Kind::Hello => Body::Hello(fields.hello()?),
            Kind::Press => Body::Press(fields.press()?),
            Kind::Flag => Body::Flag(fields.flag()?),
            Kind::Period => Body::Period(fields.period()?),
            Kind::Snapshot => Body::Snapshot(fields.snapshot()?),
            Kind::TimeBase => Body::TimeBase(fields.time_base()?),
            Kind::Ack => Body::Ack(fields.ack()?),
            Kind::Capabilities => Body::Capabilities(fields.capabilities()?),
        };
        Ok(Record { seq: read.u32(OFFSET_SEQ), dropped: read.u16(OFFSET_DROPPED), at_us: read.u64(OFFSET_AT_US), body })
    }
}

impl Body {
    /// Writes the body's fields (offsets 16 to 47) and returns the side
    /// byte (offset 1) for the header.
    fn write(&self, out: &mut Out) -> u8 {
        match self {
            Body::Hello(hello) => {
                out.u16(16, hello.contract_version);
                out.u16(18, hello.record_size);
                out.u32(20, hello.tick_us);
                out.u32(24, hello.hw_counter_hz);
                out.u8(28, hello.hw_counter_bits);
                out.u8(29, hello.buttons);
                out.u32(32, hello.debounce_us);
                out.u32(36, hello.firmware_version);
                out.bytes(40, &hello.firmware_name);
                SIDE_NONE
            }
            Body::Press(press) => {
                out.u8(16, press.result as u8);
                out.u16(18, press.bounces);
                out.u32(20, press.moves);
                out.u64(24, press.remaining_us);
                out.u64(32, press.handled_at_us);
                out.u64(40, press.edge_hw_counter);
                button_code(press.button)
            }
            Body::Flag(flag) => {
                out.u32(16, flag.period);
                out.u32(20, flag.sequence);
                out.u64(24, flag.observed_at_us);
                out.u32(32, flag.moves);
                side_code(Some(flag.side))
            }
            Body::Period(change) => {
                out.u32(16, change.from);
                out.u32(20, change.to);
                out.u8(24, change.cause as u8);
                out.u32(28, change.moves);
                out.u64(32, change.remaining_us);
                side_code(Some(change.side))
            }
            Body::Snapshot(snapshot) => {
                out.u64(16, snapshot.remaining_white_us);
                out.u64(24, snapshot.remaining_black_us);
                out.u32(32, snapshot.moves_white);
                out.u32(36, snapshot.moves_black);
                out.u32(40, snapshot.delay_us);
                out.u8(44, snapshot.period_white);
                out.u8(45, snapshot.period_black);
                out.u8(46, snapshot.phase as u8);
                out.u8(47, u8::from(snapshot.flag_white) | (u8::from(snapshot.flag_black) << 1));
                side_code(snapshot.side)
            }
            Body::TimeBase(sample) => {
                out.u64(16, sample.hw_counter);
                out.u32(24, sample.ticks);
                out.u8(28, u8::from(sample.edge));
                out.u32(32, sample.dropped_total);
                SIDE_NONE
            }
            Body::Ack(ack) => {
                out.u8(16, ack.command as u8);
                out.u8(17, ack.status as u8);
                out.u16(18, ack.error_position);
                out.u32(20, ack.commands);
                out.u64(24, ack.initial_us);
                out.u32(32, ack.final_period);
                side_code(ack.side)
            }
            Body::Capabilities(capabilities) => {
                out.u32(16, capabilities.controls);
                out.u32(20, capabilities.arbiter);
                out.u8(24, u8::from(capabilities.shows_flag_order));
                let ranges = capabilities.ranges;
                out.u32(28, ranges.time_max_s);
                out.u32(32, ranges.setting_step_us);
                out.u32(36, ranges.display_step_us);
                out.u32(40, ranges.display_fine_below_us);
                out.u32(44, ranges.button_poll_us);
                SIDE_NONE
            }
        }
    }
}

/// A record's bytes being decoded, with its kind and side byte for the
/// errors. Each body is checked in offset order of what can be wrong, so a
/// record with two bad fields names the same one as before.
#[derive(Clone, Copy)]
struct Fields<'a> {
    read: In<'a>,
    kind: Kind,
    side_byte: u8,
}

impl Fields<'_> {
    fn bad(&self, offset: usize) -> DecodeError {
        DecodeError::BadField { kind: self.kind, offset, value: self.read.u8(offset) }
    }

    fn no_side(&self) -> Result<(), DecodeError> {
        if self.side_byte == SIDE_NONE {
            Ok(())
        } else {
            Err(self.bad(OFFSET_SIDE))
        }
    }

    fn side(&self) -> Result<Side, DecodeError> {
        match self.side_byte {
            SIDE_WHITE => Ok(Side::White),
            SIDE_BLACK => Ok(Side::Black),
            _ => Err(self.bad(OFFSET_SIDE)),
        }
    }

    fn side_or_none(&self) -> Result<Option<Side>, DecodeError> {
        match self.side_byte {
            SIDE_NONE => Ok(None),
            _ => self.side().map(Some),
        }
    }

    /// The enum value whose code is the byte at `offset`.
    fn code<T>(&self, offset: usize, from_code: fn(u8) -> Option<T>) -> Result<T, DecodeError> {
        from_code(self.read.u8(offset)).ok_or_else(|| self.bad(offset))
    }

    fn hello(&self) -> Result<Hello, DecodeError> {
        self.no_side()?;
        let read = self.read;
        Ok(Hello {
            contract_version: read.u16(16),
            record_size: read.u16(18),
            tick_us: read.u32(20),
            hw_counter_hz: read.u32(24),
            hw_counter_bits: read.u8(28),
            buttons: read.u8(29),
            debounce_us: read.u32(32),
            firmware_version: read.u32(36),
            firmware_name: read.array(40),
        })
    }

    fn press(&self) -> Result<Press, DecodeError> {
        let button = match self.side_byte {
            SIDE_WHITE => Button::White,
            SIDE_BLACK => Button::Black,
            SIDE_PAUSE => Button::Pause,
            _ => return Err(self.bad(OFFSET_SIDE)),
        };
        let read = self.read;
        Ok(Press {
            button,
            result: self.code(16, PressResult::from_code)?,
            bounces: read.u16(18),
            moves: read.u32(20),
            remaining_us: read.u64(24),
            handled_at_us: read.u64(32),
            edge_hw_counter: read.u64(40),
        })
    }

    fn flag(&self) -> Result<Flag, DecodeError> {
        let read = self.read;
        Ok(Flag {
            side: self.side()?,
            period: read.u32(16),
            sequence: read.u32(20),
            observed_at_us: read.u64(24),
            moves: read.u32(32),
        })
    }

    fn period(&self) -> Result<PeriodChange, DecodeError> {
        let cause = self.code(24, PeriodCause::from_code)?;
        let read = self.read;
        Ok(PeriodChange {
            side: self.side()?,
            from: read.u32(16),
            to: read.u32(20),
            cause,
            moves: read.u32(28),
            remaining_us: read.u64(32),
        })
    }

    fn snapshot(&self) -> Result<Snapshot, DecodeError> {
        let phase = self.code(46, Phase::from_code)?;
        let side = self.side_or_none()?;
        // A running or paused clock has a side; the others have none.
        if matches!(phase, Phase::Running | Phase::Paused) != side.is_some() {
            return Err(self.bad(OFFSET_SIDE));
        }
        let read = self.read;
        let flags = read.u8(47);
        if flags & !0b11 != 0 {
            return Err(self.bad(47));
        }
        Ok(Snapshot {
            phase,
            side,
            remaining_white_us: read.u64(16),
            remaining_black_us: read.u64(24),
            moves_white: read.u32(32),
            moves_black: read.u32(36),
            delay_us: read.u32(40),
            period_white: read.u8(44),
            period_black: read.u8(45),
            flag_white: flags & 0b01 != 0,
            flag_black: flags & 0b10 != 0,
        })
    }

    fn time_base(&self) -> Result<TimeBase, DecodeError> {
        self.no_side()?;
        let read = self.read;
        let flags = read.u8(28);
        if flags & !1 != 0 {
            return Err(self.bad(28));
        }
        Ok(TimeBase {
            hw_counter: read.u64(16),
            ticks: read.u32(24),
            edge: flags & 1 != 0,
            dropped_total: read.u32(32),
        })
    }

    fn ack(&self) -> Result<Ack, DecodeError> {
        let side = self.side_or_none()?;
        let read = self.read;
        Ok(Ack {
            command: self.code(16, CommandCode::from_code)?,
            status: self.code(17, AckStatus::from_code)?,
            error_position: read.u16(18),
            commands: read.u32(20),
            initial_us: read.u64(24),
            final_period: read.u32(32),
            side,
        })
    }

    fn capabilities(&self) -> Result<Capabilities, DecodeError> {
        self.no_side()?;
        let flag_order = self.read.u8(24);
        if flag_order > 1 {
            return Err(self.bad(24));
        }
        let ranges = Ranges {
            time_max_s: self.read.u32(28),
            setting_step_us: self.read.u32(32),
            display_step_us: self.read.u32(36),
            display_fine_below_us: self.read.u32(40),
            button_poll_us: self.read.u32(44),
        };
        Ok(Capabilities {
            controls: self.read.u32(16),
            arbiter: self.read.u32(20),
            shows_flag_order: flag_order == 1,
            ranges,
        })
    }
}

const fn side_code(side: Option<Side>) -> u8 {
    match side {
        Some(Side::White) => SIDE_WHITE,
        Some(Side::Black) => SIDE_BLACK,
        None => SIDE_NONE,
    }
}

const fn button_code(button: Button) -> u8 {
    match button {
        Button::White => SIDE_WHITE,
        Button::Black => SIDE_BLACK,
        Button::Pause => SIDE_PAUSE,
    }
}

/// A record being written. Offsets are constants below [`RECORD_SIZE`];
/// an out-of-range write would be dropped, never panic.
struct Out([u8; RECORD_SIZE]);

impl Out {
    fn bytes(&mut self, at: usize, bytes: &[u8]) {
        if let Some(slot) = self.0.get_mut(at..at.saturating_add(bytes.len())) {
            slot.copy_from_slice(bytes);
        }
    }

    fn u8(&mut self, at: usize, value: u8) {
        self.bytes(at, &[value]);
    }

    fn u16(&mut self, at: usize, value: u16) {
        self.bytes(at, &value.to_le_bytes());
    }

    fn u32(&mut self, at: usize, value: u32) {
        self.bytes(at, &value.to_le_bytes());
    }

    fn u64(&mut self, at: usize, value: u64) {
        self.bytes(at, &value.to_le_bytes());
    }
}

/// A record being read; out-of-range reads give zeros (never happens with
/// the constant offsets above).
#[derive(Clone, Copy)]
struct In<'a>(&'a [u8; RECORD_SIZE]);

impl In<'_> {
    fn array<const N: usize>(&self, at: usize) -> [u8; N] {
        self.0.get(at..at.saturating_add(N)).and_then(|bytes| bytes.try_into().ok()).unwrap_or([0; N])
    }

    fn u8(&self, at: usize) -> u8 {
        self.0.get(at).copied().unwrap_or(0)
    }

    fn u16(&self, at: usize) -> u16 {
        u16::from_le_bytes(self.array(at))
    }

    fn u32(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.array(at))
    }

    fn u64(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.array(at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records with a distinct value in every field, and the exact bytes the
    /// contract says they encode to. These pin the layout in `CONTRACT.md`:
    /// a changed offset or width fails here.
    fn golden() -> Vec<(Record, &'static str)> {
        vec![
            (
                Record::new(
                    0,
                    0,
                    0x0102,
                    Body::Hello(Hello {
                        contract_version: 2,
                        record_size: 48,
                        tick_us: 1000,
                        hw_counter_hz: 1,
                        hw_counter_bits: 32,
                        buttons: BUTTONS_PAUSE,
                        debounce_us: 20_000,
                        firmware_version: 0x0A0B_0C0D,
                        firmware_name: *b"benchref",
                    }),
                ),
                "01ff0000 00000000 0201000000000000 \
                 02003000 e8030000 01000000 20070000 204e0000 0d0c0b0a 62656e6368726566",
            ),
            (
                Record::new(
                    7,
                    2,
                    0x1122_3344_5566,
                    Body::Press(Press {
                        button: Button::Black,
                        result: PressResult::NotRunning,
                        bounces: 3,
                        moves: 41,
                        remaining_us: 1_800_000_000,
                        handled_at_us: 0x1122_3344_5570,
                        edge_hw_counter: 0x8090_A0B0,
                    }),
                ),
                "02010200 07000000 6655443322110000 \
                 01000300 29000000 00d2496b00000000 7055443322110000 b0a0908000000000",
            ),
            (
                Record::new(
                    8,
                    0,
                    5_400_000_000,
                    Body::Flag(Flag {
                        side: Side::White,
                        period: 1,
                        sequence: 2,
                        observed_at_us: 5_400_000_999,
                        moves: 39,
                    }),
                ),
                "03000000 08000000 0076dd4101000000 \
                 01000000 02000000 e779dd4101000000 27000000 00000000 0000000000000000",
            ),
            (
                Record::new(
                    9,
                    0,
                    10,
                    Body::Period(PeriodChange {
                        side: Side::Black,
                        from: 0,
                        to: 1,
                        cause: PeriodCause::MovesCompleted,
                        moves: 40,
                        remaining_us: 0x0102_0304_0506,
                    }),
                ),
                "04010000 09000000 0a00000000000000 \
                 00000000 01000000 00000000 28000000 0605040302010000 0000000000000000",
            ),
            (
                Record::new(
                    10,
                    0xFFFF,
                    11,
                    Body::Snapshot(Snapshot {
                        phase: Phase::Paused,
                        side: Some(Side::Black),
                        remaining_white_us: 1,
                        remaining_black_us: 2,
                        moves_white: 3,
                        moves_black: 4,
                        delay_us: 5,
                        period_white: 6,
                        period_black: 7,
                        flag_white: false,
                        flag_black: true,
                    }),
                ),
                "0501ffff 0a000000 0b00000000000000 \
                 0100000000000000 0200000000000000 03000000 04000000 05000000 06070202",
            ),
            (
                Record::new(
                    0xFFFF_FFFF,
                    1,
                    12,
                    Body::TimeBase(TimeBase {
                        hw_counter: 0x1_0000_0001,
                        ticks: 13,
                        edge: true,
                        dropped_total: 70_000,
                    }),
                ),
                "06ff0100 ffffffff 0c00000000000000 \
                 0100000001000000 0d000000 01000000 70110100 000000000000000000000000",
            ),
            (
                Record::new(
                    3,
                    0,
                    14,
                    Body::Ack(Ack {
                        command: CommandCode::TimeControl,
                        status: AckStatus::BadTimeControl,
                        error_position: 5,
                        commands: 2,
                        initial_us: 0,
                        final_period: 0,
                        side: None,
                    }),
                ),
                "07ff0000 03000000 0e00000000000000 \
                 01030500 02000000 0000000000000000 00000000 000000000000000000000000",
            ),
            (
                Record::new(
                    1,
                    0,
                    15,
                    Body::Capabilities(Capabilities {
                        controls: CONTROL_PLAIN | CONTROL_INCREMENT | CONTROL_CANADIAN,
                        arbiter: ARBITER_PAUSE | ARBITER_SET_MOVES,
                        shows_flag_order: true,
                        ranges: Ranges {
                            time_max_s: 35_999,
                            setting_step_us: 1_000_000,
                            display_step_us: 1_000_000,
                            display_fine_below_us: 10_000_000,
                            button_poll_us: 10_000,
                        },
                    }),
                ),
                "08ff0000 01000000 0f00000000000000 \
                 83000000 09000000 01000000 9f8c0000 40420f0040420f00 8096980010270000",
            ),
        ]
    }

    fn hex(text: &str) -> [u8; RECORD_SIZE] {
        let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
        assert_eq!(digits.len(), 2 * RECORD_SIZE, "golden text must have {RECORD_SIZE} bytes");
        let mut bytes = [0; RECORD_SIZE];
        for (byte, pair) in bytes.iter_mut().zip(digits.chunks(2)) {
            *byte = u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap();
        }
        bytes
    }

    #[test]
    fn every_kind_encodes_to_its_documented_bytes() {
        for (record, text) in golden() {
            assert_eq!(record.encode(), hex(text), "{:?}", record.body.kind());
        }
    }

    #[test]
    fn every_kind_round_trips() {
        for (record, text) in golden() {
            assert_eq!(Record::decode(&record.encode()), Ok(record));
            assert_eq!(Record::decode(&hex(text)).map(|decoded| decoded.encode()), Ok(hex(text)));
        }
    }

    #[test]
    fn every_kind_has_a_golden_record() {
        let kinds: Vec<Kind> = golden().iter().map(|(record, _)| record.body.kind()).collect();
        assert_eq!(kinds, Kind::ALL);
    }

    #[test]
    fn every_variant_of_every_enum_round_trips() {
        let base = Press {
            button: Button::White,
            result: PressResult::Accepted,
            bounces: 0,
            moves: 0,
            remaining_us: 0,
            handled_at_us: 0,
            edge_hw_counter: 0,
        };
        for button in [Button::White, Button::Black, Button::Pause] {
            for result in [
                PressResult::Accepted,
                PressResult::NotRunning,
                PressResult::NotStarted,
                PressResult::Paused,
                PressResult::Finished,
                PressResult::Other,
                PressResult::NotApplied,
            ] {
                let record = Record::new(1, 0, 2, Body::Press(Press { button, result, ..base }));
                assert_eq!(Record::decode(&record.encode()), Ok(record));
            }
        }
        for cause in [
            PeriodCause::MovesCompleted,
            PeriodCause::FlagOpenedNext,
            PeriodCause::OvertimeBegins,
            PeriodCause::PeriodLost,
        ] {
            for side in [Side::White, Side::Black] {
                let change = PeriodChange { side, from: 1, to: 2, cause, moves: 3, remaining_us: 4 };
                let record = Record::new(1, 0, 2, Body::Period(change));
                assert_eq!(Record::decode(&record.encode()), Ok(record));
            }
        }
        let snapshot = Snapshot {
            phase: Phase::NotStarted,
            side: None,
            remaining_white_us: 0,
            remaining_black_us: 0,
            moves_white: 0,
            moves_black: 0,
            delay_us: 0,
            period_white: 0,
            period_black: 0,
            flag_white: true,
            flag_black: false,
        };
        for (phase, side) in [
            (Phase::NotStarted, None),
            (Phase::Running, Some(Side::White)),
            (Phase::Paused, Some(Side::Black)),
            (Phase::Finished, None),
        ] {
            let record = Record::new(1, 0, 2, Body::Snapshot(Snapshot { phase, side, ..snapshot }));
            assert_eq!(Record::decode(&record.encode()), Ok(record));
        }
        let commands = [
            CommandCode::Unknown,
            CommandCode::TimeControl,
            CommandCode::Start,
            CommandCode::Reset,
            CommandCode::Pause,
            CommandCode::Resume,
            CommandCode::SetTime,
            CommandCode::AdjustTime,
            CommandCode::SetMoves,
        ];
        let statuses = [
            AckStatus::Ok,
            AckStatus::UnknownCommand,
            AckStatus::LineTooLong,
            AckStatus::BadTimeControl,
            AckStatus::NotAllowed,
            AckStatus::BadArgument,
            AckStatus::Unsupported,
        ];
        for command in commands {
            for status in statuses {
                for side in [None, Some(Side::White), Some(Side::Black)] {
                    let ack =
                        Ack { command, status, error_position: 0, commands: 1, initial_us: 2, final_period: 3, side };
                    let record = Record::new(1, 0, 2, Body::Ack(ack));
                    assert_eq!(Record::decode(&record.encode()), Ok(record));
                }
            }
        }
        for shows_flag_order in [false, true] {
            let capabilities = Capabilities {
                controls: CONTROLS_ALL,
                arbiter: ARBITER_ALL,
                shows_flag_order,
                ranges: Ranges::UNDECLARED,
            };
            let record = Record::new(1, 0, 2, Body::Capabilities(capabilities));
            assert_eq!(Record::decode(&record.encode()), Ok(record));
        }
    }

    #[test]
    fn decode_rejects_unknown_kinds() {
        for code in [0, 9, 0x80, 0xFF] {
            let mut bytes = [0; RECORD_SIZE];
            bytes[0] = code;
            assert_eq!(Record::decode(&bytes), Err(DecodeError::UnknownKind { code }));
        }
    }

    /// One case: golden record `index`, byte `offset` set to `value`, must
    /// fail on that byte.
    fn check_bad_field(index: usize, offset: usize, value: u8) {
        let (record, _) = golden()[index];
        let mut bytes = record.encode();
        bytes[offset] = value;
        let kind = record.body.kind();
        assert_eq!(Record::decode(&bytes), Err(DecodeError::BadField { kind, offset, value }), "{kind:?} @{offset}");
    }

    #[test]
    fn decode_rejects_invalid_field_values() {
        check_bad_field(0, OFFSET_SIDE, 0); // Hello has no side
        check_bad_field(1, OFFSET_SIDE, 3); // no button 3
        check_bad_field(1, 16, 7); // no press result 7
        check_bad_field(2, OFFSET_SIDE, SIDE_PAUSE); // a flag is a player's
        check_bad_field(3, 24, 4); // no period cause 4
        check_bad_field(3, OFFSET_SIDE, SIDE_NONE); // a period change is a player's
        check_bad_field(4, 46, 4); // no phase 4
        check_bad_field(4, 47, 4); // only two flag bits
        check_bad_field(4, OFFSET_SIDE, SIDE_NONE); // paused needs the side that resumes
        check_bad_field(5, 28, 2); // only the edge bit
        check_bad_field(5, OFFSET_SIDE, SIDE_WHITE);
        check_bad_field(6, 16, 10); // no command 10
        check_bad_field(6, 17, 7); // no status 7
        check_bad_field(6, OFFSET_SIDE, SIDE_PAUSE); // an arbiter command acts on a player
        check_bad_field(7, OFFSET_SIDE, SIDE_WHITE); // capabilities are the clock's
        check_bad_field(7, 24, 2); // flag order is shown or not
    }

    #[test]
    fn a_snapshot_of_a_clock_not_started_has_no_side() {
        let (record, _) = golden()[4];
        let mut bytes = record.encode();
        bytes[46] = Phase::NotStarted as u8;
        assert_eq!(
            Record::decode(&bytes),
            Err(DecodeError::BadField { kind: Kind::Snapshot, offset: OFFSET_SIDE, value: SIDE_BLACK })
        );
    }

    #[test]
    fn reserved_bytes_are_written_as_zero_and_ignored_when_read() {
        let (press, _) = golden()[1];
        let mut bytes = press.encode();
        assert_eq!(bytes[17], 0);
        bytes[17] = 0xAA;
        assert_eq!(Record::decode(&bytes), Ok(press));
        let (flag, _) = golden()[2];
        let mut bytes = flag.encode();
        assert_eq!(&bytes[36..48], &[0; 12]);
        bytes[36] = 0xAA;
        bytes[47] = 0x55;
        assert_eq!(Record::decode(&bytes), Ok(flag));
    }

    #[test]
    fn decode_errors_say_where() {
        let error = DecodeError::BadField { kind: Kind::Snapshot, offset: 46, value: 9 };
        assert_eq!(error.to_string(), "Snapshot record: byte 0x09 at offset 46 is not a valid value");
        assert_eq!(
            DecodeError::UnknownKind { code: 9 }.to_string(),
            "unknown record kind 9 at offset 0 (contract version 3 knows 1 to 8)"
        );
    }
}
