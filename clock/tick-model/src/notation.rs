//! An independent reader and writer of the clock's written forms, made from
//! their documentation (the module docs of `chessclock::notation`, the docs
//! of its `ParseErrorKind` and `ParseError`, `ControlError` and the limits
//! `STAGES_MAX`, `PERIODS_MAX` and `Duration::CONTROL_MAX`), not from the
//! core's code: N-version programming, so that a slip in one reading shows
//! as a disagreement with the other.
//!
//! Two forms:
//!
//! - **The time-control text** (`40/5400+30:1800+30`, `*180`, `3600(5x30)`,
//!   `600(20/300)`): [`read_control`] gives a [`Written`] control or a
//!   [`Refusal`] (what is wrong and the byte offset it points at);
//!   [`Written`]'s `Display` is the canonical text.
//! - **A time as a display shows it** (`1:02:03.000001`, `12:34`,
//!   `0:59.5`): [`display_text`] writes microseconds that way and
//!   [`read_display`] reads such a text back, refusing any other spelling.
//!
//! Everything here is integers: microseconds in `u64`, counts in `u32`.
//!
//! The reading works in two passes over the text: the *scan* splits it into
//! fields and numbers, left to right, and stops at the first thing that is
//! not well formed; the *rules* then look at the fields as a whole (how many
//! stages, which is the last, counts and times within their limits). So a
//! text with a syntax error anywhere is refused for that error, and only a
//! well-formed text is refused for breaking a rule.

use core::fmt;

use chessclock::notation::{Expected, ParseError, ParseErrorKind};
use chessclock::{Bonus, ControlError, Duration, StageLength, TimeControl};

/// Microseconds in a second.
const SECOND_US: u64 = 1_000_000;
/// The longest time a control may hold, 1 000 000 s (the documented
/// `Duration::CONTROL_MAX`, restated).
pub const TIME_LIMIT_US: u64 = 1_000_000 * SECOND_US;
/// The most stages a staged control may have (`STAGES_MAX`, restated).
pub const STAGES_LIMIT: usize = 5;
/// The most byo-yomi periods (`PERIODS_MAX`, restated).
pub const PERIODS_LIMIT: u32 = 100;
/// Decimal places a time may have: it is whole microseconds.
const DECIMALS_MAX: u32 = 6;

const _: () = assert!(TIME_LIMIT_US == Duration::CONTROL_MAX.as_us());
const _: () = assert!(STAGES_LIMIT == chessclock::STAGES_MAX);
const _: () = assert!(PERIODS_LIMIT == chessclock::PERIODS_MAX);

// ---------------------------------------------------------------------------
// What a text describes.

/// What a player gets per move in a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerMove {
    Nothing,
    /// `+I`: Fischer increment.
    Increment {
        us: u64,
    },
    /// `+dD`: simple (US) delay.
    Delay {
        us: u64,
    },
    /// `+bD`: Bronstein delay.
    Bronstein {
        us: u64,
    },
}

/// One stage: `moves` moves in `time_us` (or the rest of the game when
/// `moves` is `None`), with its own bonus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leg {
    pub moves: Option<u32>,
    pub time_us: u64,
    pub per_move: PerMove,
}

/// A control as read from its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// One to five stages, only the last one "rest of the game".
    Legs(Vec<Leg>),
    /// `*T`: each starts with T and the time one uses flows to the other.
    Sandglass { each_us: u64 },
    /// `M(NxP)`: main time, then `periods` periods of `period_us`.
    ByoYomi { main_us: u64, periods: u32, period_us: u64 },
    /// `M(N/P)`: main time, then `moves` moves in `period_us`, repeating.
    Canadian { main_us: u64, moves: u32, period_us: u64 },
}

impl Written {
    /// The core's control in these terms, to compare the two readings.
    pub fn from_core(control: &TimeControl) -> Written {
        let per_move = |bonus: Bonus| match bonus {
            Bonus::None => PerMove::Nothing,
            Bonus::Increment(amount) => PerMove::Increment { us: amount.as_us() },
            Bonus::Delay(amount) => PerMove::Delay { us: amount.as_us() },
            Bonus::Bronstein(amount) => PerMove::Bronstein { us: amount.as_us() },
        };
        match control {
            TimeControl::Stages(stages) => Written::Legs(
                stages
                    .as_slice()
                    .iter()
                    .map(|stage| Leg {
                        moves: match stage.length {
                            StageLength::Moves(moves) => Some(moves),
                            StageLength::RestOfGame => None,
                        },
                        time_us: stage.time.as_us(),
                        per_move: per_move(stage.bonus),
                    })
                    .collect(),
            ),
            TimeControl::Hourglass { time } => Written::Sandglass { each_us: time.as_us() },
            TimeControl::ByoYomi { main, periods, period } => {
                Written::ByoYomi { main_us: main.as_us(), periods: *periods, period_us: period.as_us() }
            }
            TimeControl::Canadian { main, moves, period } => {
                Written::Canadian { main_us: main.as_us(), moves: *moves, period_us: period.as_us() }
            }
        }
    }
}

/// Seconds with the fewest decimals that are exact: `30`, `2.5`, `0.000001`.
pub fn seconds_text(us: u64) -> String {
    let whole = us / SECOND_US;
    let micros = us % SECOND_US;
    if micros == 0 {
        return whole.to_string();
    }
    let six = format!("{micros:06}");
    format!("{whole}.{}", six.trim_end_matches('0'))
}

/// The canonical text: no whitespace, no leading zeros, minimal decimals.
impl fmt::Display for Written {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Written::Legs(legs) => {
                let mut separator = "";
                for leg in legs {
                    f.write_str(separator)?;
                    separator = ":";
                    if let Some(moves) = leg.moves {
                        write!(f, "{moves}/")?;
                    }
                    f.write_str(&seconds_text(leg.time_us))?;
                    let (mark, us) = match leg.per_move {
                        PerMove::Nothing => continue,
                        PerMove::Increment { us } => ("+", us),
                        PerMove::Delay { us } => ("+d", us),
                        PerMove::Bronstein { us } => ("+b", us),
                    };
                    write!(f, "{mark}{}", seconds_text(us))?;
                }
                Ok(())
            }
            Written::Sandglass { each_us } => write!(f, "*{}", seconds_text(*each_us)),
            Written::ByoYomi { main_us, periods, period_us } => {
                write!(f, "{}({periods}x{})", seconds_text(*main_us), seconds_text(*period_us))
            }
            Written::Canadian { main_us, moves, period_us } => {
                write!(f, "{}({moves}/{})", seconds_text(*main_us), seconds_text(*period_us))
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Why a text is refused.

/// A refused text: what is wrong, and the byte offset it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// 0-based byte offset: the offending character, the number a rule is
    /// about, or the end of the text (without trailing blanks) when more
    /// was expected.
    pub at: usize,
    pub fault: Fault,
}

/// What the next character could have been, where something else was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wanted {
    /// After a stage's first number: `/`, `+`, `:`, `(` or the end.
    AfterFirstNumber,
    /// After "N/T": `+`, `:` or the end.
    AfterStageTime,
    /// After a bonus: `:` or the end.
    AfterPerMove,
    /// `x` or `/` inside the parentheses.
    OvertimeKind,
    /// `)`.
    Closing,
    /// Nothing more.
    Nothing,
}

/// A well-formed text whose control breaks a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleBroken {
    /// More than five stages; how many were written.
    StagesOver { written: usize },
    /// The last stage counts moves: it must be the rest of the game.
    LastStageCounted,
    /// A "rest of the game" stage (0-based index) that is not the last.
    OpenStageBeforeLast { index: usize },
    /// A count of moves that is zero.
    NoMoves,
    /// Byo-yomi with no period.
    NoPeriods,
    /// Byo-yomi with more than 100 periods; how many were written.
    PeriodsOver { written: u32 },
    /// An overtime period of zero seconds.
    EmptyPeriod,
    /// A time above 1 000 000 s.
    TooLong { us: u64 },
}

/// What is wrong with a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Nothing but blanks.
    Blank,
    /// The PGN `?`.
    PgnUnknown,
    /// The PGN `-`.
    PgnNoControl,
    /// Seconds must be written here.
    NeedSeconds,
    /// The count of periods or moves after `(`.
    NeedCount,
    /// `+` with no seconds, `d` or `b` after it.
    NeedIncrement,
    NeedDelay,
    NeedBronstein,
    /// A `.` with no digit after it.
    NeedDecimal,
    /// A seventh decimal.
    BeyondMicroseconds,
    /// A count with a decimal point.
    CountWithPoint,
    /// More than `u64` microseconds or `u32` can hold.
    Overflow,
    /// A minus where a number starts.
    MinusSign,
    /// A blank inside the text.
    InnerBlank,
    /// Some other character, where `Wanted` was.
    Stray(Wanted),
    /// `*` not at the start, or something after the hourglass.
    SandglassWithOthers,
    /// Overtime not right after the one field's time, or something after it.
    OvertimeWithOthers,
    Rule(RuleBroken),
}

impl Fault {
    /// The core's name for the same fault.
    pub fn core_kind(self) -> ParseErrorKind {
        let wanted = |wanted: Wanted| match wanted {
            Wanted::AfterFirstNumber => Expected::AfterNumber,
            Wanted::AfterStageTime => Expected::AfterTime,
            Wanted::AfterPerMove => Expected::AfterBonus,
            Wanted::OvertimeKind => Expected::OvertimeSeparator,
            Wanted::Closing => Expected::CloseParen,
            Wanted::Nothing => Expected::End,
        };
        let rule = |rule: RuleBroken| match rule {
            RuleBroken::StagesOver { written } => ControlError::TooManyStages { stages: written },
            RuleBroken::LastStageCounted => ControlError::LastStageNotRestOfGame,
            RuleBroken::OpenStageBeforeLast { index } => ControlError::RestOfGameBeforeLastStage { stage: index },
            RuleBroken::NoMoves => ControlError::ZeroMoves,
            RuleBroken::NoPeriods => ControlError::ZeroPeriods,
            RuleBroken::PeriodsOver { written } => ControlError::TooManyPeriods { periods: written },
            RuleBroken::EmptyPeriod => ControlError::ZeroPeriodTime,
            RuleBroken::TooLong { us } => ControlError::TimeTooLong { time: Duration::from_us(us) },
        };
        match self {
            Fault::Blank => ParseErrorKind::Empty,
            Fault::PgnUnknown => ParseErrorKind::Unknown,
            Fault::PgnNoControl => ParseErrorKind::NoTimeControl,
            Fault::NeedSeconds => ParseErrorKind::ExpectedSeconds,
            Fault::NeedCount => ParseErrorKind::ExpectedCount,
            Fault::NeedIncrement => ParseErrorKind::ExpectedBonus,
            Fault::NeedDelay => ParseErrorKind::ExpectedDelay,
            Fault::NeedBronstein => ParseErrorKind::ExpectedBronstein,
            Fault::NeedDecimal => ParseErrorKind::ExpectedFraction,
            Fault::BeyondMicroseconds => ParseErrorKind::TooManyDecimals,
            Fault::CountWithPoint => ParseErrorKind::FractionalCount,
            Fault::Overflow => ParseErrorKind::NumberTooLarge,
            Fault::MinusSign => ParseErrorKind::Negative,
            Fault::InnerBlank => ParseErrorKind::Whitespace,
            Fault::Stray(expected) => ParseErrorKind::Unexpected(wanted(expected)),
            Fault::SandglassWithOthers => ParseErrorKind::HourglassNotAlone,
            Fault::OvertimeWithOthers => ParseErrorKind::OvertimeNotAlone,
            Fault::Rule(broken) => ParseErrorKind::Control(rule(broken)),
        }
    }
}

impl Refusal {
    /// The core's error for the same refusal.
    pub fn core_error(self) -> ParseError {
        ParseError { position: self.at, kind: self.fault.core_kind() }
    }
}

// ---------------------------------------------------------------------------
// Reading a control.

/// Blanks as Rust's `u8::is_ascii_whitespace` has them (space, tab, line
/// feed, form feed, carriage return): the core documents "ASCII
/// whitespace".
fn is_blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

/// A number as written, before it is taken as a time or a count.
#[derive(Clone, Copy, Debug)]
struct Numeral {
    at: usize,
    whole: u64,
    /// The decimals, as microseconds.
    decimals_us: u64,
    point_at: Option<usize>,
}

impl Numeral {
    fn as_us(self) -> Result<u64, Refusal> {
        let us = u128::from(self.whole) * u128::from(SECOND_US) + u128::from(self.decimals_us);
        u64::try_from(us).map_err(|_| Refusal { at: self.at, fault: Fault::Overflow })
    }

    fn as_count(self) -> Result<u32, Refusal> {
        if let Some(at) = self.point_at {
            return Err(Refusal { at, fault: Fault::CountWithPoint });
        }
        u32::try_from(self.whole).map_err(|_| Refusal { at: self.at, fault: Fault::Overflow })
    }
}

/// A time and where it was written.
#[derive(Clone, Copy, Debug)]
struct Placed<T> {
    value: T,
    at: usize,
}

/// One stage as scanned.
#[derive(Clone, Copy, Debug)]
struct ScannedLeg {
    at: usize,
    moves: Option<Placed<u32>>,
    time: Placed<u64>,
    per_move: PerMove,
    per_move_at: Option<usize>,
}

/// The text between its blanks, read left to right.
struct Scan<'a> {
    text: &'a [u8],
    /// Next byte to read.
    at: usize,
    /// Where the trailing blanks start.
    stop: usize,
}

impl Scan<'_> {
    fn next(&self) -> Option<u8> {
        if self.at < self.stop {
            self.text.get(self.at).copied()
        } else {
            None
        }
    }

    fn next_is(&self, byte: u8) -> bool {
        self.next() == Some(byte)
    }

    fn skip(&mut self) {
        self.at += 1;
    }

    fn refuse<T>(&self, fault: Fault) -> Result<T, Refusal> {
        Err(Refusal { at: self.at, fault })
    }

    /// Something else was wanted here: a blank is refused as a blank.
    fn stray<T>(&self, fault: Fault) -> Result<T, Refusal> {
        match self.next() {
            Some(byte) if is_blank(byte) => self.refuse(Fault::InnerBlank),
            _ => self.refuse(fault),
        }
    }

    /// `digits [. digits]`, or `absent` if no digit is here.
    fn numeral(&mut self, absent: Fault) -> Result<Numeral, Refusal> {
        let at = self.at;
        match self.next() {
            Some(b'0'..=b'9') => {}
            Some(b'-') => return self.refuse(Fault::MinusSign),
            _ => return self.stray(absent),
        }
        let mut numeral = Numeral { at, whole: 0, decimals_us: 0, point_at: None };
        while let Some(byte @ b'0'..=b'9') = self.next() {
            let digit = u64::from(byte - b'0');
            numeral.whole = match numeral.whole.checked_mul(10).and_then(|tens| tens.checked_add(digit)) {
                Some(whole) => whole,
                None => return Err(Refusal { at, fault: Fault::Overflow }),
            };
            self.skip();
        }
        if !self.next_is(b'.') {
            return Ok(numeral);
        }
        numeral.point_at = Some(self.at);
        self.skip();
        if !matches!(self.next(), Some(b'0'..=b'9')) {
            return self.stray(Fault::NeedDecimal);
        }
        let mut places = 0;
        while let Some(byte @ b'0'..=b'9') = self.next() {
            places += 1;
            if places > DECIMALS_MAX {
                return self.refuse(Fault::BeyondMicroseconds);
            }
            numeral.decimals_us += u64::from(byte - b'0') * 10u64.pow(DECIMALS_MAX - places);
            self.skip();
        }
        Ok(numeral)
    }

    /// Seconds, as microseconds.
    fn seconds(&mut self, absent: Fault) -> Result<Placed<u64>, Refusal> {
        let numeral = self.numeral(absent)?;
        Ok(Placed { value: numeral.as_us()?, at: numeral.at })
    }

    /// `+I`, `+dD`, `+bD` or nothing.
    fn per_move(&mut self) -> Result<(PerMove, Option<usize>), Refusal> {
        if !self.next_is(b'+') {
            return Ok((PerMove::Nothing, None));
        }
        self.skip();
        let kind = self.next();
        let absent = match kind {
            Some(b'd') => Fault::NeedDelay,
            Some(b'b') => Fault::NeedBronstein,
            _ => Fault::NeedIncrement,
        };
        if absent != Fault::NeedIncrement {
            self.skip();
        }
        let amount = self.seconds(absent)?;
        let us = amount.value;
        let per_move = match kind {
            Some(b'd') => PerMove::Delay { us },
            Some(b'b') => PerMove::Bronstein { us },
            _ => PerMove::Increment { us },
        };
        Ok((per_move, Some(amount.at)))
    }

    /// Nothing may follow a field that must be alone; `:` would start a
    /// second field.
    fn alone(&self, with_others: Fault) -> Result<(), Refusal> {
        match self.next() {
            None => Ok(()),
            Some(b':') => self.refuse(with_others),
            Some(_) => self.stray(Fault::Stray(Wanted::Nothing)),
        }
    }
}

/// Reads a time-control text.
pub fn read_control(text: &str) -> Result<Written, Refusal> {
    let bytes = text.as_bytes();
    let Some(first) = bytes.iter().position(|&byte| !is_blank(byte)) else {
        return Err(Refusal { at: bytes.len(), fault: Fault::Blank });
    };
    let stop = bytes.iter().rposition(|&byte| !is_blank(byte)).map_or(first, |last| last + 1);
    let mut scan = Scan { text: bytes, at: first, stop };
    match bytes.get(first..stop) {
        Some(b"?") => return scan.refuse(Fault::PgnUnknown),
        Some(b"-") => return scan.refuse(Fault::PgnNoControl),
        _ => {}
    }
    if scan.next_is(b'*') {
        scan.skip();
        let each = scan.seconds(Fault::NeedSeconds)?;
        scan.alone(Fault::SandglassWithOthers)?;
        check_time(each)?;
        return Ok(Written::Sandglass { each_us: each.value });
    }
    let mut legs: Vec<ScannedLeg> = Vec::new();
    loop {
        let at = scan.at;
        if scan.next_is(b'*') {
            return scan.refuse(Fault::SandglassWithOthers);
        }
        let first = scan.numeral(Fault::NeedSeconds)?;
        let (moves, time) = if scan.next_is(b'/') {
            scan.skip();
            let moves = Placed { value: first.as_count()?, at: first.at };
            (Some(moves), scan.seconds(Fault::NeedSeconds)?)
        } else {
            (None, Placed { value: first.as_us()?, at: first.at })
        };
        if legs.is_empty() && moves.is_none() && scan.next_is(b'(') {
            return overtime(scan, time);
        }
        let (per_move, per_move_at) = scan.per_move()?;
        legs.push(ScannedLeg { at, moves, time, per_move, per_move_at });
        match scan.next() {
            None => break,
            Some(b':') => scan.skip(),
            Some(b'(') => return scan.refuse(Fault::OvertimeWithOthers),
            Some(_) => {
                let wanted = if per_move_at.is_some() {
                    Wanted::AfterPerMove
                } else if moves.is_some() {
                    Wanted::AfterStageTime
                } else {
                    Wanted::AfterFirstNumber
                };
                return scan.stray(Fault::Stray(wanted));
            }
        }
    }
    judge_legs(&legs)
}

fn check_time(time: Placed<u64>) -> Result<(), Refusal> {
    if time.value > TIME_LIMIT_US {
        return Err(Refusal { at: time.at, fault: Fault::Rule(RuleBroken::TooLong { us: time.value }) });
    }
    Ok(())
}

/// The rules of a staged control, first broken first: the number of
/// stages, then stage by stage its count, its place, its time, its bonus.
fn judge_legs(legs: &[ScannedLeg]) -> Result<Written, Refusal> {
    let rule = |at: usize, broken: RuleBroken| Err(Refusal { at, fault: Fault::Rule(broken) });
    if let Some(extra) = legs.get(STAGES_LIMIT) {
        return rule(extra.at, RuleBroken::StagesOver { written: legs.len() });
    }
    let last = legs.len().saturating_sub(1);
    for (index, leg) in legs.iter().enumerate() {
        match leg.moves {
            Some(Placed { value: 0, at }) => return rule(at, RuleBroken::NoMoves),
            Some(_) if index == last => return rule(leg.at, RuleBroken::LastStageCounted),
            None if index != last => return rule(leg.at, RuleBroken::OpenStageBeforeLast { index }),
            Some(_) | None => {}
        }
        check_time(leg.time)?;
        let bonus_us = match leg.per_move {
            PerMove::Nothing => 0,
            PerMove::Increment { us } | PerMove::Delay { us } | PerMove::Bronstein { us } => us,
        };
        if let Some(at) = leg.per_move_at {
            check_time(Placed { value: bonus_us, at })?;
        }
    }
    Ok(Written::Legs(
        legs.iter()
            .map(|leg| Leg {
                moves: leg.moves.map(|moves| moves.value),
                time_us: leg.time.value,
                per_move: leg.per_move,
            })
            .collect(),
    ))
}

/// `(NxP)` or `(N/P)` after the main time; the scan is at `(`.
fn overtime(mut scan: Scan<'_>, main: Placed<u64>) -> Result<Written, Refusal> {
    scan.skip();
    let count = scan.numeral(Fault::NeedCount)?;
    let count = Placed { value: count.as_count()?, at: count.at };
    let byo_yomi = match scan.next() {
        Some(b'x') => true,
        Some(b'/') => false,
        _ => return scan.stray(Fault::Stray(Wanted::OvertimeKind)),
    };
    scan.skip();
    let period = scan.seconds(Fault::NeedSeconds)?;
    if !scan.next_is(b')') {
        return scan.stray(Fault::Stray(Wanted::Closing));
    }
    scan.skip();
    scan.alone(Fault::OvertimeWithOthers)?;
    check_time(main)?;
    check_time(period)?;
    let rule = |at: usize, broken: RuleBroken| Err(Refusal { at, fault: Fault::Rule(broken) });
    if count.value == 0 {
        return rule(count.at, if byo_yomi { RuleBroken::NoPeriods } else { RuleBroken::NoMoves });
    }
    if byo_yomi && count.value > PERIODS_LIMIT {
        return rule(count.at, RuleBroken::PeriodsOver { written: count.value });
    }
    if period.value == 0 {
        return rule(period.at, RuleBroken::EmptyPeriod);
    }
    Ok(if byo_yomi {
        Written::ByoYomi { main_us: main.value, periods: count.value, period_us: period.value }
    } else {
        Written::Canadian { main_us: main.value, moves: count.value, period_us: period.value }
    })
}

// ---------------------------------------------------------------------------
// A time as a display shows it.

/// `h:mm:ss` from an hour on, `m:ss` below, then `.` and the fraction's
/// digits without trailing zeros when there is a fraction.
pub fn display_text(us: u64) -> String {
    let seconds = us / SECOND_US;
    let micros = us % SECOND_US;
    let hours = seconds / 3_600;
    let minutes = seconds / 60 % 60;
    let secs = seconds % 60;
    let mut text = if hours == 0 { format!("{minutes}:{secs:02}") } else { format!("{hours}:{minutes:02}:{secs:02}") };
    if micros != 0 {
        let six = format!("{micros:06}");
        text.push('.');
        text.push_str(six.trim_end_matches('0'));
    }
    text
}

/// Reads a time written by [`display_text`] back to microseconds; `None`
/// for any other spelling (leading zeros, a zero hour, 60 minutes or
/// seconds, a trailing decimal zero, a zero fraction).
pub fn read_display(text: &str) -> Option<u64> {
    let (clock, fraction) = match text.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (text, None),
    };
    let fields: Vec<&str> = clock.split(':').collect();
    let (hours, minutes, secs) = match fields.as_slice() {
        [minutes, secs] => (0, leading(minutes)?, two_digits(secs)?),
        [hours, minutes, secs] => (leading(hours)?, two_digits(minutes)?, two_digits(secs)?),
        _ => return None,
    };
    if fields.len() == 3 && hours == 0 {
        return None;
    }
    if minutes >= 60 || secs >= 60 {
        return None;
    }
    let micros = match fraction {
        None => 0,
        Some(digits) => {
            let places = u32::try_from(digits.len()).ok()?;
            if !(1..=DECIMALS_MAX).contains(&places) || digits.ends_with('0') {
                return None;
            }
            number(digits)? * 10u64.pow(DECIMALS_MAX - places)
        }
    };
    hours.checked_mul(3_600)?.checked_add(minutes * 60 + secs)?.checked_mul(SECOND_US)?.checked_add(micros)
}

/// Decimal digits only, as a number.
fn number(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// A leading field: no leading zero, unless it is the zero itself.
fn leading(digits: &str) -> Option<u64> {
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    number(digits)
}

/// A field of exactly two digits.
fn two_digits(digits: &str) -> Option<u64> {
    if digits.len() != 2 {
        return None;
    }
    number(digits)
}

#[cfg(test)]
mod tests;
