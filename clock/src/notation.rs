//! The text form of a time control: the PGN `TimeControl` tag, extended.
//!
//! [`parse`] reads it; [`TimeControl`]'s [`Display`](fmt::Display) writes it
//! back in canonical form. Both work without allocation.
//!
//! # Grammar
//!
//! ```text
//! control   = stages | hourglass | overtime
//! stages    = stage *( ":" stage )          ; 1 to STAGES_MAX stages, in order
//! stage     = [ count "/" ] seconds [ bonus ]
//! bonus     = "+" seconds                   ; Fischer increment (PGN)
//!           | "+d" seconds                  ; simple (US) delay = FIDE 6.2b time-delay mode
//!           | "+b" seconds                  ; Bronstein delay
//! hourglass = "*" seconds                   ; PGN "sandclock"
//! overtime  = seconds "(" count "x" seconds ")"   ; byo-yomi
//!           | seconds "(" count "/" seconds ")"   ; Canadian overtime
//! count     = digit+                        ; a whole number of moves or periods
//! seconds   = digit+ [ "." digit{1,6} ]     ; seconds, to the microsecond
//! ```
//!
//! - **Stages** (FIDE 6.2): `N/T` is "N moves in T seconds"; a plain `T` is
//!   "the rest of the game in T seconds" and is only allowed as the last
//!   stage, which must be one. A last stage `N/T` is an error: for "N moves in
//!   T, repeating" write Canadian overtime. Each stage's time is added to the
//!   time saved from the stages before it (6.2b). Each stage has its own
//!   bonus, or none.
//! - **Bonus** on a stage: `+I` adds I seconds after each move (Fischer
//!   increment, PGN standard); `+dD` gives each move D seconds before the main
//!   time starts to run, and unused delay is not kept (simple or US delay, the
//!   FIDE 6.2b time-delay mode); `+bD` gives back the time a move used, up to
//!   D seconds (Bronstein delay). `d` and `b` are lower case.
//! - **Hourglass** `*T` (PGN "sandclock"): each player starts with T seconds,
//!   and the time one uses flows to the other. It must be the only field.
//! - **Byo-yomi** `M(NxP)`: main time M seconds, then N periods of P seconds
//!   each. It must be the only field.
//! - **Canadian overtime** `M(N/P)`: main time M seconds, then N moves in P
//!   seconds, repeating. It must be the only field.
//! - **Numbers** are ASCII decimal digits, without sign, exponent or digit
//!   separators. Times are seconds, whole or with one to six decimals, so
//!   every microsecond value can be written (`2.5`, `0.000001`). Leading zeros
//!   and trailing decimal zeros are accepted (`05`, `2.50`) but never printed.
//! - **Whitespace** around the whole text (ASCII spaces, tabs, newlines) is
//!   ignored; whitespace inside it is an error.
//! - The PGN values `?` (unknown time control) and `-` (no time control) are
//!   recognised and rejected with their own error: a clock cannot run them.
//!
//! Every control is validated by the constructors in [`crate::control`]
//! ([`TimeControl::stages`], [`TimeControl::hourglass`],
//! [`TimeControl::byo_yomi`], [`TimeControl::canadian`]), so the limits are
//! theirs: at most [`STAGES_MAX`] stages and
//! [`PERIODS_MAX`](crate::PERIODS_MAX) byo-yomi periods, every time at most
//! [`Duration::CONTROL_MAX`] (1 000 000 s), counts at least 1, overtime
//! periods longer than zero. A [`ControlError`] comes back inside
//! [`ParseErrorKind::Control`], positioned at the number it is about.
//!
//! # Examples
//!
//! | Text                 | Meaning                                                          |
//! |----------------------|------------------------------------------------------------------|
//! | `40/5400+30:1800+30` | 40 moves in 90 min, then the rest in 30 min, +30 s per move throughout |
//! | `40/5400:1800`       | 40 moves in 90 min, then the rest in 30 min, no increment        |
//! | `40/7200:20/3600:900`| three stages                                                     |
//! | `300+2`              | 5 min for the game, +2 s per move                                |
//! | `5400+d5`            | 90 min for the game, 5 s delay per move (6.2b time-delay mode)   |
//! | `300+b3`             | 5 min for the game, Bronstein delay of up to 3 s                 |
//! | `*180`               | hourglass, 3 min each                                            |
//! | `3600(5x30)`         | 1 h, then 5 byo-yomi periods of 30 s                             |
//! | `600(20/300)`        | 10 min, then 20 moves in 5 min, repeating                        |
//! | `0.5+0.000001`       | half a second for the game, +1 µs per move                       |
//!
//! ```
//! use chessclock::notation::{parse, ParseError, ParseErrorKind};
//! use chessclock::{Bonus, Duration, TimeControl};
//!
//! let control = parse("300+2")?;
//! let increment = Bonus::Increment(Duration::from_secs(2));
//! assert_eq!(Ok(control), TimeControl::sudden_death(Duration::from_secs(300), increment));
//! assert_eq!(control.to_string(), "300+2");
//! assert_eq!(parse(" 300.0+02 ")?.to_string(), "300+2");
//!
//! let error = parse("40/54x0").unwrap_err();
//! assert_eq!(error.position, 5);
//! assert_eq!(error.to_string(), "column 6: expected `+` (a bonus), `:` (the next stage) or the end");
//! assert_eq!(parse("?").unwrap_err().kind, ParseErrorKind::Unknown);
//! # Ok::<(), ParseError>(())
//! ```
//!
//! # Canonical form
//!
//! Printing writes no whitespace, no leading zeros, whole seconds without a
//! decimal point and other times with the fewest decimals that are exact. A
//! zero bonus is printed as written (`300+0`), since [`Bonus::Increment`] of
//! zero is a different value from [`Bonus::None`]. For every valid control,
//! `parse(&control.to_string()) == Ok(control)`, and for every canonical text,
//! `parse(text)` prints as `text`.
//!
//! # Errors
//!
//! A [`ParseError`] holds the 0-based byte offset of the offending character
//! (the offset just past the last non-blank character for an unexpected end)
//! and a [`ParseErrorKind`]. Every character before an error position is
//! ASCII, so the offset plus one is also the column a person counts; the
//! error's `Display` says "column N: …".

use core::fmt;

use crate::control::{Bonus, ControlError, Stage, StageLength, TimeControl, STAGES_MAX};
use crate::time::{write_fraction, Duration};

/// Why a time-control text does not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 0-based byte offset of the offending character, or of the end of the
    /// text (after trimming trailing whitespace) when more was expected.
    pub position: usize,
    pub kind: ParseErrorKind,
}

/// What is wrong at [`ParseError::position`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// The text is empty or only whitespace.
    Empty,
    /// `?`: PGN for "unknown time control".
    Unknown,
    /// `-`: PGN for "no time control".
    NoTimeControl,
    /// A number of seconds must start here.
    ExpectedSeconds,
    /// A count (byo-yomi periods, Canadian moves) must start here, after `(`.
    ExpectedCount,
    /// `+` is not followed by seconds, `d` or `b`.
    ExpectedBonus,
    /// `+d` is not followed by seconds.
    ExpectedDelay,
    /// `+b` is not followed by seconds.
    ExpectedBronstein,
    /// `.` is not followed by a digit.
    ExpectedFraction,
    /// A seventh decimal digit: times are microseconds.
    TooManyDecimals,
    /// A count (of moves or periods) with a decimal point.
    FractionalCount,
    /// A number beyond what a time (microseconds in `u64`) or a count (`u32`)
    /// can hold. Smaller times above [`Duration::CONTROL_MAX`] are
    /// [`ControlError::TimeTooLong`] instead.
    NumberTooLarge,
    /// A minus sign where a number must start.
    Negative,
    /// Whitespace inside the text.
    Whitespace,
    /// A character that cannot follow what came before it.
    Unexpected(Expected),
    /// `*` anywhere but at the start, or more fields after an hourglass.
    HourglassNotAlone,
    /// Overtime `(…)` anywhere but directly after the first and only field's
    /// time, or more fields after it.
    OvertimeNotAlone,
    /// The text is well formed but the control it describes is not valid.
    Control(ControlError),
}

/// What may come at a point where something else was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// After a stage's first number: `/`, a bonus, `:`, `(` or the end.
    AfterNumber,
    /// After a stage's time: a bonus, `:` or the end.
    AfterTime,
    /// After a bonus: `:` or the end.
    AfterBonus,
    /// Inside overtime, after the count: `x` or `/`.
    OvertimeSeparator,
    /// Inside overtime, after the period: `)`.
    CloseParen,
    /// After an hourglass or overtime: nothing.
    End,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.position.saturating_add(1), self.kind)
    }
}

impl core::error::Error for ParseError {}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::Empty => {
                f.write_str("the time control is empty; write one such as `40/5400+30:1800+30`, `300+2` or `*180`")
            }
            ParseErrorKind::Unknown => f.write_str("`?` means unknown time control and cannot be run"),
            ParseErrorKind::NoTimeControl => f.write_str("`-` means no time control and cannot be run"),
            ParseErrorKind::ExpectedSeconds => f.write_str("expected a number of seconds"),
            ParseErrorKind::ExpectedCount => f.write_str(
                "expected a whole number: byo-yomi periods (`3600(5x30)`) or Canadian moves (`600(20/300)`)",
            ),
            ParseErrorKind::ExpectedBonus => f.write_str(
                "increment `+` must be followed by a number of seconds (`+30`), \
                 or by `d` or `b` and a number of seconds for a delay (`+d5`) or Bronstein delay (`+b5`)",
            ),
            ParseErrorKind::ExpectedDelay => f.write_str("delay `+d` must be followed by a number of seconds (`+d5`)"),
            ParseErrorKind::ExpectedBronstein => {
                f.write_str("Bronstein delay `+b` must be followed by a number of seconds (`+b5`)")
            }
            ParseErrorKind::ExpectedFraction => f.write_str("expected a digit after the decimal point"),
            ParseErrorKind::TooManyDecimals => {
                f.write_str("at most 6 decimal places are supported (times are whole microseconds)")
            }
            ParseErrorKind::FractionalCount => f.write_str("a number of moves or periods must be a whole number"),
            ParseErrorKind::NumberTooLarge => write!(
                f,
                "number too large: times are at most {} seconds and counts at most {}",
                Duration::CONTROL_MAX.as_secs_floor(),
                u32::MAX
            ),
            ParseErrorKind::Negative => f.write_str("times and counts cannot be negative"),
            ParseErrorKind::Whitespace => f.write_str("spaces are not allowed inside a time control"),
            ParseErrorKind::Unexpected(expected) => write!(f, "expected {expected}"),
            ParseErrorKind::HourglassNotAlone => {
                f.write_str("an hourglass `*T` must be the whole time control, with no other fields")
            }
            ParseErrorKind::OvertimeNotAlone => f.write_str(
                "byo-yomi `M(NxP)` and Canadian `M(N/P)` overtime must be the whole time control, \
                 with `(` directly after the main time",
            ),
            ParseErrorKind::Control(error) => error.fmt(f),
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::AfterNumber => {
                "`/` (moves in a time), `+` (a bonus), `:` (the next stage), `(` (overtime) or the end"
            }
            Expected::AfterTime => "`+` (a bonus), `:` (the next stage) or the end",
            Expected::AfterBonus => "`:` (the next stage) or the end",
            Expected::OvertimeSeparator => "`x` (byo-yomi: periods x seconds) or `/` (Canadian: moves / seconds)",
            Expected::CloseParen => "`)` to close the overtime",
            Expected::End => "the end of the time control",
        })
    }
}

/// Parses a time control written in the notation of this module.
pub fn parse(text: &str) -> Result<TimeControl, ParseError> {
    let start = text.len().saturating_sub(text.trim_ascii_start().len());
    let end = text.trim_ascii_end().len();
    let content = text.as_bytes().get(start..end).unwrap_or_default();
    let error = |kind| Err(ParseError { position: start, kind });
    match content {
        [] => return Err(ParseError { position: text.len(), kind: ParseErrorKind::Empty }),
        b"?" => return error(ParseErrorKind::Unknown),
        b"-" => return error(ParseErrorKind::NoTimeControl),
        _ => {}
    }
    let mut cursor = Cursor { bytes: text.as_bytes(), pos: start, end };
    if cursor.eat(b'*') {
        hourglass(cursor)
    } else {
        stages_or_overtime(cursor)
    }
}

impl core::str::FromStr for TimeControl {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<TimeControl, ParseError> {
        parse(text)
    }
}

fn hourglass(mut cursor: Cursor<'_>) -> Result<TimeControl, ParseError> {
    let number = cursor.number(ParseErrorKind::ExpectedSeconds)?;
    let time = number.duration()?;
    cursor.finish(ParseErrorKind::HourglassNotAlone)?;
    TimeControl::hourglass(time).map_err(|error| number.control_error(error))
}

/// Where the numbers of one stage are in the text.
#[derive(Clone, Copy, Default)]
struct Field {
    start: usize,
    count_at: Option<usize>,
    time_at: usize,
    bonus_at: Option<usize>,
}

fn stages_or_overtime(mut cursor: Cursor<'_>) -> Result<TimeControl, ParseError> {
    let mut stages = [Stage::rest_of_game(Duration::ZERO, Bonus::None); STAGES_MAX];
    let mut fields = [Field::default(); STAGES_MAX];
    let mut count: usize = 0;
    let mut excess_at = None;
    let first_start = cursor.pos;
    loop {
        let start = cursor.pos;
        if cursor.peek() == Some(b'*') {
            return Err(cursor.error(ParseErrorKind::HourglassNotAlone));
        }
        let first = cursor.number(ParseErrorKind::ExpectedSeconds)?;
        let (length, time, count_at) = if cursor.eat(b'/') {
            let moves = first.count()?;
            (StageLength::Moves(moves), cursor.number(ParseErrorKind::ExpectedSeconds)?, Some(first.start))
        } else {
            (StageLength::RestOfGame, first, None)
        };
        let time_value = time.duration()?;
        if count == 0 && count_at.is_none() && cursor.peek() == Some(b'(') {
            return overtime(cursor, time);
        }
        let (bonus, bonus_at) = cursor.bonus()?;
        let field = Field { start, count_at, time_at: time.start, bonus_at };
        match (stages.get_mut(count), fields.get_mut(count)) {
            (Some(stage_slot), Some(field_slot)) => {
                *stage_slot = Stage { length, time: time_value, bonus };
                *field_slot = field;
            }
            _ => {
                excess_at.get_or_insert(start);
            }
        }
        count = count.saturating_add(1);
        match cursor.peek() {
            None => break,
            Some(b':') => cursor.bump(),
            Some(b'(') => return Err(cursor.error(ParseErrorKind::OvertimeNotAlone)),
            Some(_) => {
                let expected = match (bonus_at, count_at) {
                    (Some(_), _) => Expected::AfterBonus,
                    (None, Some(_)) => Expected::AfterTime,
                    (None, None) => Expected::AfterNumber,
                };
                return Err(cursor.unexpected(ParseErrorKind::Unexpected(expected)));
            }
        }
    }
    if let Some(position) = excess_at {
        // More stages than the constructor can be handed; its error, with the
        // real count.
        let error = ControlError::TooManyStages { stages: count };
        return Err(ParseError { position, kind: ParseErrorKind::Control(error) });
    }
    let stages = stages.get(..count).unwrap_or_default();
    let fields = fields.get(..count).unwrap_or_default();
    TimeControl::stages(stages).map_err(|error| {
        let position = locate_stage_error(error, stages, fields).unwrap_or(first_start);
        ParseError { position, kind: ParseErrorKind::Control(error) }
    })
}

/// The number a [`TimeControl::stages`] error is about.
fn locate_stage_error(error: ControlError, stages: &[Stage], fields: &[Field]) -> Option<usize> {
    let mut both = stages.iter().zip(fields);
    match error {
        ControlError::LastStageNotRestOfGame => fields.last().map(|field| field.start),
        ControlError::RestOfGameBeforeLastStage { stage } => fields.get(stage).map(|field| field.start),
        ControlError::ZeroMoves => {
            both.find(|(stage, _)| stage.length == StageLength::Moves(0)).and_then(|(_, field)| field.count_at)
        }
        ControlError::TimeTooLong { time } => both.find_map(|(stage, field)| {
            if stage.time == time {
                Some(field.time_at)
            } else if stage.bonus.amount() == time {
                field.bonus_at
            } else {
                None
            }
        }),
        ControlError::NoStages
        | ControlError::TooManyStages { .. }
        | ControlError::ZeroPeriods
        | ControlError::TooManyPeriods { .. }
        | ControlError::ZeroPeriodTime => None,
    }
}

/// `M(NxP)` or `M(N/P)`; the cursor is on `(`.
fn overtime(mut cursor: Cursor<'_>, main: Number) -> Result<TimeControl, ParseError> {
    let main_value = main.duration()?;
    cursor.bump();
    let count = cursor.number(ParseErrorKind::ExpectedCount)?;
    let count_value = count.count()?;
    let byo_yomi = match cursor.peek() {
        Some(b'x') => true,
        Some(b'/') => false,
        _ => return Err(cursor.unexpected(ParseErrorKind::Unexpected(Expected::OvertimeSeparator))),
    };
    cursor.bump();
    let period = cursor.number(ParseErrorKind::ExpectedSeconds)?;
    let period_value = period.duration()?;
    if !cursor.eat(b')') {
        return Err(cursor.unexpected(ParseErrorKind::Unexpected(Expected::CloseParen)));
    }
    cursor.finish(ParseErrorKind::OvertimeNotAlone)?;
    let control = if byo_yomi {
        TimeControl::byo_yomi(main_value, count_value, period_value)
    } else {
        TimeControl::canadian(main_value, count_value, period_value)
    };
    control.map_err(|error| match error {
        ControlError::TimeTooLong { time } if time == main_value => main.control_error(error),
        ControlError::ZeroPeriods | ControlError::TooManyPeriods { .. } | ControlError::ZeroMoves => {
            count.control_error(error)
        }
        ControlError::TimeTooLong { .. } | ControlError::ZeroPeriodTime => period.control_error(error),
        ControlError::NoStages
        | ControlError::TooManyStages { .. }
        | ControlError::LastStageNotRestOfGame
        | ControlError::RestOfGameBeforeLastStage { .. } => main.control_error(error),
    })
}

const US_PER_SEC: u64 = 1_000_000;

/// A number as written: whole part and microseconds of fraction.
#[derive(Clone, Copy)]
struct Number {
    start: usize,
    whole: u64,
    fraction_us: u64,
    /// Where the decimal point is, if there is one.
    point_at: Option<usize>,
}

impl Number {
    fn count(self) -> Result<u32, ParseError> {
        if let Some(position) = self.point_at {
            return Err(ParseError { position, kind: ParseErrorKind::FractionalCount });
        }
        u32::try_from(self.whole).map_err(|_| self.too_large())
    }

    fn duration(self) -> Result<Duration, ParseError> {
        self.whole
            .checked_mul(US_PER_SEC)
            .and_then(|us| us.checked_add(self.fraction_us))
            .map(Duration::from_us)
            .ok_or(self.too_large())
    }

    fn too_large(self) -> ParseError {
        ParseError { position: self.start, kind: ParseErrorKind::NumberTooLarge }
    }

    fn control_error(self, error: ControlError) -> ParseError {
        ParseError { position: self.start, kind: ParseErrorKind::Control(error) }
    }
}

/// A position in the text; `end` is where trailing whitespace starts.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    end: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        if self.pos < self.end {
            self.bytes.get(self.pos).copied()
        } else {
            None
        }
    }

    fn bump(&mut self) {
        self.pos = self.pos.saturating_add(1);
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        if found {
            self.bump();
        }
        found
    }

    fn digit(&self) -> Option<u64> {
        self.peek().filter(u8::is_ascii_digit).map(|digit| u64::from(digit.saturating_sub(b'0')))
    }

    fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError { position: self.pos, kind }
    }

    /// An error about the character here: `kind`, unless the character is
    /// whitespace, which has its own.
    fn unexpected(&self, kind: ParseErrorKind) -> ParseError {
        match self.peek() {
            Some(byte) if byte.is_ascii_whitespace() => self.error(ParseErrorKind::Whitespace),
            _ => self.error(kind),
        }
    }

    /// `digit+ [ "." digit{1,6} ]`; `missing` is the error when no digit starts here.
    fn number(&mut self, missing: ParseErrorKind) -> Result<Number, ParseError> {
        let start = self.pos;
        if self.digit().is_none() {
            return Err(match self.peek() {
                Some(b'-') => self.error(ParseErrorKind::Negative),
                _ => self.unexpected(missing),
            });
        }
        let mut number = Number { start, whole: 0, fraction_us: 0, point_at: None };
        while let Some(digit) = self.digit() {
            number.whole =
                number.whole.checked_mul(10).and_then(|whole| whole.checked_add(digit)).ok_or(number.too_large())?;
            self.bump();
        }
        if self.peek() == Some(b'.') {
            number.point_at = Some(self.pos);
            self.bump();
            if self.digit().is_none() {
                return Err(self.unexpected(ParseErrorKind::ExpectedFraction));
            }
            let mut scale = US_PER_SEC;
            while let Some(digit) = self.digit() {
                scale /= 10;
                if scale == 0 {
                    return Err(self.error(ParseErrorKind::TooManyDecimals));
                }
                number.fraction_us = number.fraction_us.saturating_add(digit.saturating_mul(scale));
                self.bump();
            }
        }
        Ok(number)
    }

    /// An optional `+I`, `+dD` or `+bD`, and where its number starts.
    fn bonus(&mut self) -> Result<(Bonus, Option<usize>), ParseError> {
        if !self.eat(b'+') {
            return Ok((Bonus::None, None));
        }
        let (make, missing): (fn(Duration) -> Bonus, _) = if self.eat(b'd') {
            (Bonus::Delay, ParseErrorKind::ExpectedDelay)
        } else if self.eat(b'b') {
            (Bonus::Bronstein, ParseErrorKind::ExpectedBronstein)
        } else {
            (Bonus::Increment, ParseErrorKind::ExpectedBonus)
        };
        let number = self.number(missing)?;
        Ok((make(number.duration()?), Some(number.start)))
    }

    /// The end of a control that must be the only field.
    fn finish(&self, not_alone: ParseErrorKind) -> Result<(), ParseError> {
        match self.peek() {
            None => Ok(()),
            Some(b':') => Err(self.error(not_alone)),
            Some(_) => Err(self.unexpected(ParseErrorKind::Unexpected(Expected::End))),
        }
    }
}

/// A time written as this notation writes it: seconds, with the fewest
/// decimals that are exact (`30`, `2.5`, `0.000001`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seconds(pub Duration);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.as_secs_floor())?;
        let fraction_us = self.0.as_us() % US_PER_SEC;
        if fraction_us != 0 {
            write_fraction(f, fraction_us)?;
        }
        Ok(())
    }
}

/// The canonical text of the control (see the [module docs](self)).
impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Stages(stages) => {
                for (index, stage) in stages.as_slice().iter().enumerate() {
                    if index > 0 {
                        f.write_str(":")?;
                    }
                    if let StageLength::Moves(moves) = stage.length {
                        write!(f, "{moves}/")?;
                    }
                    write!(f, "{}", Seconds(stage.time))?;
                    match stage.bonus {
                        Bonus::None => {}
                        Bonus::Increment(amount) => write!(f, "+{}", Seconds(amount))?,
                        Bonus::Delay(amount) => write!(f, "+d{}", Seconds(amount))?,
                        Bonus::Bronstein(amount) => write!(f, "+b{}", Seconds(amount))?,
                    }
                }
                Ok(())
            }
            TimeControl::Hourglass { time } => write!(f, "*{}", Seconds(*time)),
            TimeControl::ByoYomi { main, periods, period } => {
                write!(f, "{}({periods}x{})", Seconds(*main), Seconds(*period))
            }
            TimeControl::Canadian { main, moves, period } => {
                write!(f, "{}({moves}/{})", Seconds(*main), Seconds(*period))
            }
        }
    }
}
