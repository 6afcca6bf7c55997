//! The `bench-ctl` down-channel: one ASCII command per line, `\n`-terminated
//! (a `\r` before it is ignored). The firmware answers each line with one
//! [`Ack`](crate::Ack) record.
//!
//! ```text
//! tc TEXT   set the time control (chessclock notation, e.g. `tc 40/5400+30:1800+30`);
//!           replaces the game: the clock is new and not started
//! start     start the game: White's clock runs (6.5)
//! reset     a new game with the same time control, not started
//! pause     the arbiter stops the clock (6.13)
//! resume    the arbiter restarts it
//!
//! contract 3, the arbiter's functions (side `w` or `b`, times in µs):
//! set w 300000000      set White's main time to 300 s (6.11, 6.14)
//! adjust b +60000000   give Black 60 s more; `-` takes it away, stopping at 0 (6.8d, 13.4)
//! moves w 40           set White's completed moves to 40 (6.14)
//! replace w 281000000 12 0 0 b 300000000 11 0 0
//!                      the arbiter replaces the clock (6.11): each side's
//!                      main time in µs, completed moves, stage or period
//!                      (0-based, as Snapshot's), and Canadian moves made
//!                      in the current block; the running side keeps running
//! ```
//!
//! A line is at most [`COMMAND_LINE_MAX`] bytes before its newline; a longer
//! one is discarded whole and answered with `LineTooLong`.

use crate::record::{AckStatus, CommandCode, Side};

/// Longest command line, in bytes, not counting the `\n`.
pub const COMMAND_LINE_MAX: usize = 96;

/// Prefix of the time-control command, argument included after it.
const TC_PREFIX: &[u8] = b"tc ";
const SET_TIME_PREFIX: &[u8] = b"set ";
const ADJUST_TIME_PREFIX: &[u8] = b"adjust ";
const SET_MOVES_PREFIX: &[u8] = b"moves ";
const REPLACE_PREFIX: &[u8] = b"replace ";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command<'a> {
    /// The time-control text, exactly as written after `tc `.
    TimeControl(&'a str),
    Start,
    Reset,
    Pause,
    Resume,
    /// Contract 3: the arbiter sets `side`'s main time (6.11, 6.14).
    SetTime {
        side: Side,
        time_us: u64,
    },
    /// Contract 3: the arbiter adds or takes away time (6.8d, 13.4).
    AdjustTime {
        side: Side,
        adjustment: Adjustment,
    },
    /// Contract 3: the arbiter sets `side`'s completed moves (6.14).
    SetMoves {
        side: Side,
        moves: u32,
    },
    /// Contract 3: the arbiter replaces the clock and sets both sides'
    /// numbers at once (6.11).
    Replace {
        white: ReplaceSide,
        black: ReplaceSide,
    },
}

/// One side's numbers in a `replace` command (6.11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReplaceSide {
    /// The time the side has left in its stage or period, µs.
    pub main_us: u64,
    /// Completed moves (the 6.15 counter).
    pub moves: u32,
    /// The stage or overtime period the side plays in, 0-based.
    pub period: u32,
    /// Canadian overtime: moves already made in the current block (0
    /// otherwise).
    pub period_moves: u32,
}

/// An arbiter's change of a display, in µs. Taking away stops at zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Adjustment {
    Add(u64),
    Subtract(u64),
}

/// Why a line is not a command: the [`Ack`](crate::Ack) status and, for a
/// time-control text that is not ASCII/UTF-8 or an arbiter command's bad
/// argument, the offset of the bad byte in the text after the command word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandError {
    /// The command the line names, if its word was one.
    pub command: CommandCode,
    pub status: AckStatus,
    pub position: u16,
}

impl<'a> Command<'a> {
    /// Parses one line, without its `\n`.
    pub fn parse(line: &'a [u8]) -> Result<Command<'a>, CommandError> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.len() > COMMAND_LINE_MAX {
            return Err(CommandError { command: CommandCode::Unknown, status: AckStatus::LineTooLong, position: 0 });
        }
        if let Some(text) = line.strip_prefix(TC_PREFIX) {
            return match core::str::from_utf8(text) {
                Ok(text) => Ok(Command::TimeControl(text)),
                Err(error) => Err(CommandError {
                    command: CommandCode::TimeControl,
                    status: AckStatus::BadTimeControl,
                    position: u16::try_from(error.valid_up_to()).unwrap_or(u16::MAX),
                }),
            };
        }
        if let Some(arguments) = line.strip_prefix(SET_TIME_PREFIX) {
            let (side, time_us) =
                side_and_number(arguments, false).map_err(|position| bad_argument(CommandCode::SetTime, position))?;
            return Ok(Command::SetTime { side, time_us });
        }
        if let Some(arguments) = line.strip_prefix(ADJUST_TIME_PREFIX) {
            let (side, amount_us) =
                side_and_number(arguments, true).map_err(|position| bad_argument(CommandCode::AdjustTime, position))?;
            let adjustment = match arguments.get(2) {
                Some(b'-') => Adjustment::Subtract(amount_us),
                _ => Adjustment::Add(amount_us),
            };
            return Ok(Command::AdjustTime { side, adjustment });
        }
        if let Some(arguments) = line.strip_prefix(SET_MOVES_PREFIX) {
            let bad_moves = |position| bad_argument(CommandCode::SetMoves, position);
            let (side, moves) = side_and_number(arguments, false).map_err(bad_moves)?;
            let moves = u32::try_from(moves).map_err(|_| bad_moves(2))?;
            return Ok(Command::SetMoves { side, moves });
        }
        if let Some(arguments) = line.strip_prefix(REPLACE_PREFIX) {
            let (white, black) =
                replace_arguments(arguments).map_err(|position| bad_argument(CommandCode::Replace, position))?;
            return Ok(Command::Replace { white, black });
        }
        match line {
            b"start" => Ok(Command::Start),
            b"reset" => Ok(Command::Reset),
            b"pause" => Ok(Command::Pause),
            b"resume" => Ok(Command::Resume),
            _ => Err(CommandError { command: CommandCode::Unknown, status: AckStatus::UnknownCommand, position: 0 }),
        }
    }

    pub const fn code(&self) -> CommandCode {
        match self {
            Command::TimeControl(_) => CommandCode::TimeControl,
            Command::Start => CommandCode::Start,
            Command::Reset => CommandCode::Reset,
            Command::Pause => CommandCode::Pause,
            Command::Resume => CommandCode::Resume,
            Command::SetTime { .. } => CommandCode::SetTime,
            Command::AdjustTime { .. } => CommandCode::AdjustTime,
            Command::SetMoves { .. } => CommandCode::SetMoves,
            Command::Replace { .. } => CommandCode::Replace,
        }
    }

    /// The side an arbiter command acts on; `None` for the others.
    pub const fn side(&self) -> Option<Side> {
        match self {
            Command::SetTime { side, .. } | Command::AdjustTime { side, .. } | Command::SetMoves { side, .. } => {
                Some(*side)
            }
            _ => None,
        }
    }

    /// Writes the line and its `\n` into `out`; returns its length, or `None`
    /// if `out` is too small or the line would exceed [`COMMAND_LINE_MAX`].
    pub fn encode(&self, out: &mut [u8]) -> Option<usize> {
        let mut arguments = Arguments::default();
        let (head, tail): (&[u8], &[u8]) = match self {
            Command::TimeControl(text) => (TC_PREFIX, text.as_bytes()),
            Command::Start => (b"start", b""),
            Command::Reset => (b"reset", b""),
            Command::Pause => (b"pause", b""),
            Command::Resume => (b"resume", b""),
            Command::SetTime { side, time_us } => (SET_TIME_PREFIX, arguments.write(*side, None, *time_us)),
            Command::AdjustTime { side, adjustment } => {
                let (sign, amount_us) = match adjustment {
                    Adjustment::Add(amount_us) => (b'+', amount_us),
                    Adjustment::Subtract(amount_us) => (b'-', amount_us),
                };
                (ADJUST_TIME_PREFIX, arguments.write(*side, Some(sign), *amount_us))
            }
            Command::SetMoves { side, moves } => (SET_MOVES_PREFIX, arguments.write(*side, None, u64::from(*moves))),
            Command::Replace { white, black } => (REPLACE_PREFIX, arguments.replacement(white, black)),
        };
        let len = head.len().checked_add(tail.len())?;
        if len > COMMAND_LINE_MAX {
            return None;
        }
        let total = len.checked_add(1)?;
        let line = out.get_mut(..total)?;
        let (head_out, rest) = line.split_at_mut(head.len());
        head_out.copy_from_slice(head);
        let (tail_out, newline) = rest.split_at_mut(tail.len());
        tail_out.copy_from_slice(tail);
        newline.copy_from_slice(b"\n");
        Some(total)
    }
}

const fn bad_argument(command: CommandCode, position: usize) -> CommandError {
    let position = if position > u16::MAX as usize { u16::MAX } else { position as u16 };
    CommandError { command, status: AckStatus::BadArgument, position }
}

/// Parses `w N` or `b N` (with `signed`, `w +N` or `w -N`): a side, one
/// space and a decimal number that fits a `u64`. `Err` is the offset of the
/// first byte that is wrong.
fn side_and_number(arguments: &[u8], signed: bool) -> Result<(Side, u64), usize> {
    let side = match arguments.first() {
        Some(b'w') => Side::White,
        Some(b'b') => Side::Black,
        _ => return Err(0),
    };
    if arguments.get(1) != Some(&b' ') {
        return Err(1);
    }
    let mut digits_from = 2;
    if signed {
        if !matches!(arguments.get(2), Some(b'+' | b'-')) {
            return Err(2);
        }
        digits_from = 3;
    }
    let digits = arguments.get(digits_from..).unwrap_or(&[]);
    if digits.is_empty() {
        return Err(digits_from);
    }
    let mut number: u64 = 0;
    for (index, digit) in digits.iter().enumerate() {
        let position = digits_from.saturating_add(index);
        if !digit.is_ascii_digit() {
            return Err(position);
        }
        number =
            number.checked_mul(10).and_then(|number| number.checked_add(u64::from(digit - b'0'))).ok_or(position)?;
    }
    Ok((side, number))
}

/// Parses `replace`'s arguments, `w MAIN MOVES PERIOD PERIOD_MOVES b MAIN
/// MOVES PERIOD PERIOD_MOVES`: White's four numbers, then Black's, one
/// space between any two. `Err` is the offset of the first byte that is
/// wrong.
fn replace_arguments(arguments: &[u8]) -> Result<(ReplaceSide, ReplaceSide), usize> {
    let mut at = 0;
    let mut sides = [ReplaceSide::default(); 2];
    for (index, (letter, side)) in [b'w', b'b'].into_iter().zip(sides.iter_mut()).enumerate() {
        if index > 0 {
            at = expect_byte(arguments, at, b' ')?;
        }
        at = expect_byte(arguments, at, letter)?;
        at = expect_byte(arguments, at, b' ')?;
        (side.main_us, at) = decimal(arguments, at)?;
        for count in [&mut side.moves, &mut side.period, &mut side.period_moves] {
            at = expect_byte(arguments, at, b' ')?;
            let from = at;
            let number;
            (number, at) = decimal(arguments, at)?;
            // The counts are 32-bit: a larger one is wrong from its first digit.
            *count = u32::try_from(number).map_err(|_| from)?;
        }
    }
    if at != arguments.len() {
        return Err(at);
    }
    let [white, black] = sides;
    Ok((white, black))
}

/// `at` past `byte` at `at`, or `Err(at)`.
fn expect_byte(text: &[u8], at: usize, byte: u8) -> Result<usize, usize> {
    if text.get(at) == Some(&byte) {
        Ok(at.saturating_add(1))
    } else {
        Err(at)
    }
}

/// The decimal number that starts at `at` and ends at the next space or
/// the end, and the offset just past it; `Err` the first byte that is not
/// a digit, or the digit at which the number no longer fits a `u64`.
fn decimal(text: &[u8], at: usize) -> Result<(u64, usize), usize> {
    let mut number: u64 = 0;
    let mut end = at;
    while let Some(&byte) = text.get(end).filter(|&&byte| byte != b' ') {
        if !byte.is_ascii_digit() {
            return Err(end);
        }
        number = number.checked_mul(10).and_then(|number| number.checked_add(u64::from(byte - b'0'))).ok_or(end)?;
        end = end.saturating_add(1);
    }
    if end == at {
        return Err(at);
    }
    Ok((number, end))
}

/// The text after an arbiter command's word, `w -123` or `replace`'s
/// eight numbers, written without allocation. A text that does not fit
/// fills the whole buffer, one byte more than a line may have, so
/// [`Command::encode`] refuses it.
struct Arguments {
    bytes: [u8; COMMAND_LINE_MAX + 1],
    len: usize,
}

impl Default for Arguments {
    fn default() -> Self {
        Arguments { bytes: [0; COMMAND_LINE_MAX + 1], len: 0 }
    }
}

impl Arguments {
    fn write(&mut self, side: Side, sign: Option<u8>, number: u64) -> &[u8] {
        self.side(side);
        self.push(b' ');
        if let Some(sign) = sign {
            self.push(sign);
        }
        self.number(number);
        self.written()
    }

    /// `replace`'s arguments: each side's letter and four numbers.
    fn replacement(&mut self, white: &ReplaceSide, black: &ReplaceSide) -> &[u8] {
        for (side, numbers) in [(Side::White, white), (Side::Black, black)] {
            if side == Side::Black {
                self.push(b' ');
            }
            self.side(side);
            let counts = [numbers.moves, numbers.period, numbers.period_moves].map(u64::from);
            for number in core::iter::once(numbers.main_us).chain(counts) {
                self.push(b' ');
                self.number(number);
            }
        }
        self.written()
    }

    fn side(&mut self, side: Side) {
        self.push(match side {
            Side::White => b'w',
            Side::Black => b'b',
        });
    }

    fn number(&mut self, number: u64) {
        let mut digits = [0u8; 20];
        let mut count = 0;
        let mut rest = number;
        loop {
            if let Some(slot) = digits.get_mut(count) {
                *slot = b'0' + (rest % 10) as u8;
            }
            count += 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        for index in (0..count).rev() {
            self.push(digits.get(index).copied().unwrap_or(b'0'));
        }
    }

    fn written(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&self.bytes)
    }

    fn push(&mut self, byte: u8) {
        match self.bytes.get_mut(self.len) {
            Some(slot) => {
                *slot = byte;
                self.len += 1;
            }
            // Too long: the whole buffer, longer than any line.
            None => self.len = self.bytes.len(),
        }
    }
}

/// What feeding one byte to a [`LineBuffer`] completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEvent<'a> {
    /// A whole line, without its `\n`.
    Line(&'a [u8]),
    /// A line longer than [`COMMAND_LINE_MAX`] ended; it was discarded.
    TooLong,
}

/// Collects down-channel bytes into lines, in fixed memory.
#[derive(Clone, Debug)]
pub struct LineBuffer {
    bytes: [u8; COMMAND_LINE_MAX + 1],
    len: usize,
    overflowed: bool,
}

impl Default for LineBuffer {
    fn default() -> Self {
        LineBuffer::new()
    }
}

impl LineBuffer {
    pub const fn new() -> LineBuffer {
        LineBuffer { bytes: [0; COMMAND_LINE_MAX + 1], len: 0, overflowed: false }
    }

    /// Adds one byte; returns the line when `byte` is `\n`.
    pub fn feed(&mut self, byte: u8) -> Option<LineEvent<'_>> {
        if byte == b'\n' {
            let len = core::mem::take(&mut self.len);
            if core::mem::take(&mut self.overflowed) {
                return Some(LineEvent::TooLong);
            }
            return Some(LineEvent::Line(self.bytes.get(..len).unwrap_or_default()));
        }
        // One byte more than the limit is kept, for a `\r` before the `\n`.
        match self.bytes.get_mut(self.len) {
            Some(slot) if !self.overflowed => {
                *slot = byte;
                self.len = self.len.saturating_add(1);
            }
            _ => self.overflowed = true,
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str, expected: Result<Command<'_>, CommandError>) {
        assert_eq!(Command::parse(line.as_bytes()), expected, "{line:?}");
    }

    fn error(status: AckStatus) -> Result<Command<'static>, CommandError> {
        Err(CommandError { command: CommandCode::Unknown, status, position: 0 })
    }

    #[test]
    fn commands_parse() {
        check("tc 40/5400+30:1800+30", Ok(Command::TimeControl("40/5400+30:1800+30")));
        check("tc 300+2\r", Ok(Command::TimeControl("300+2")));
        check("tc ", Ok(Command::TimeControl("")));
        check("start", Ok(Command::Start));
        check("reset\r", Ok(Command::Reset));
        check("pause", Ok(Command::Pause));
        check("resume", Ok(Command::Resume));
        check("", error(AckStatus::UnknownCommand));
        check("tc", error(AckStatus::UnknownCommand));
        check("START", error(AckStatus::UnknownCommand));
        check("start ", error(AckStatus::UnknownCommand));
        check("stop", error(AckStatus::UnknownCommand));
    }

    fn bad_argument_at(command: CommandCode, position: u16) -> Result<Command<'static>, CommandError> {
        Err(CommandError { command, status: AckStatus::BadArgument, position })
    }

    #[test]
    fn arbiter_commands_parse() {
        check("set w 300000000", Ok(Command::SetTime { side: Side::White, time_us: 300_000_000 }));
        check("set b 0\r", Ok(Command::SetTime { side: Side::Black, time_us: 0 }));
        check(
            "adjust b +60000000",
            Ok(Command::AdjustTime { side: Side::Black, adjustment: Adjustment::Add(60_000_000) }),
        );
        check("adjust w -1", Ok(Command::AdjustTime { side: Side::White, adjustment: Adjustment::Subtract(1) }));
        check("moves w 40", Ok(Command::SetMoves { side: Side::White, moves: 40 }));
        check("set w 18446744073709551615", Ok(Command::SetTime { side: Side::White, time_us: u64::MAX }));
    }

    #[test]
    fn arbiter_commands_name_the_byte_that_is_wrong() {
        check("set x 1", bad_argument_at(CommandCode::SetTime, 0));
        check("set w", bad_argument_at(CommandCode::SetTime, 1));
        check("set w  1", bad_argument_at(CommandCode::SetTime, 2));
        check("set w 1s", bad_argument_at(CommandCode::SetTime, 3));
        check("set w ", bad_argument_at(CommandCode::SetTime, 2));
        check("set w 18446744073709551616", bad_argument_at(CommandCode::SetTime, 21));
        check("adjust w 5", bad_argument_at(CommandCode::AdjustTime, 2));
        check("adjust w +", bad_argument_at(CommandCode::AdjustTime, 3));
        check("moves b 4294967296", bad_argument_at(CommandCode::SetMoves, 2));
        check("moves b -1", bad_argument_at(CommandCode::SetMoves, 2));
        check("set", error(AckStatus::UnknownCommand));
    }

    fn replacement(white: ReplaceSide, black: ReplaceSide) -> Result<Command<'static>, CommandError> {
        Ok(Command::Replace { white, black })
    }

    #[test]
    fn replace_parses_both_sides_numbers() {
        let white = ReplaceSide { main_us: 281_000_000, moves: 12, period: 0, period_moves: 0 };
        let black = ReplaceSide { main_us: 300_000_000, moves: 11, period: 2, period_moves: 7 };
        check("replace w 281000000 12 0 0 b 300000000 11 2 7", replacement(white, black));
        check("replace w 281000000 12 0 0 b 300000000 11 2 7\r", replacement(white, black));
    }

    #[test]
    fn replace_names_the_byte_that_is_wrong() {
        let at = |position| bad_argument_at(CommandCode::Replace, position);
        check("replace b 1 2 3 4 w 1 2 3 4", at(0));
        check("replace w1 2 3 4 b 1 2 3 4", at(1));
        check("replace w 1 2 3 b 1 2 3 4", at(8));
        check("replace w 1 2 3 4 b 1 2 3 4 5", at(19));
        check("replace w 1 2 3 4 b 1 2 3 4 ", at(19));
        check("replace w 1 2  3 4 b 1 2 3 4", at(6));
        check("replace w 1 2 3 4 b 1 2 3 x", at(18));
        check("replace w 1 4294967296 3 4 b 1 2 3 4", at(4));
        check("replace w 18446744073709551616 0 0 0 b 1 2 3 4", at(21));
        check("replace w 1 2 3 4", at(9));
        check("replace", error(AckStatus::UnknownCommand));
    }

    #[test]
    fn a_time_control_that_is_not_utf8_is_rejected_at_its_first_bad_byte() {
        assert_eq!(
            Command::parse(b"tc 300\xff+2"),
            Err(CommandError { command: CommandCode::TimeControl, status: AckStatus::BadTimeControl, position: 3 })
        );
    }

    #[test]
    fn lines_longer_than_the_limit_are_rejected() {
        let longest = format!("tc {}", "9".repeat(COMMAND_LINE_MAX - 3));
        assert_eq!(Command::parse(longest.as_bytes()), Ok(Command::TimeControl(&longest[3..])));
        let longer = format!("{longest}9");
        check(&longer, error(AckStatus::LineTooLong));
    }

    #[test]
    fn commands_round_trip_through_their_lines() {
        let commands = [
            Command::TimeControl("40/5400+30:1800+30"),
            Command::TimeControl("3600(5x30)"),
            Command::Start,
            Command::Reset,
            Command::Pause,
            Command::Resume,
            Command::SetTime { side: Side::White, time_us: 0 },
            Command::SetTime { side: Side::Black, time_us: u64::MAX },
            Command::AdjustTime { side: Side::White, adjustment: Adjustment::Add(60_000_000) },
            Command::AdjustTime { side: Side::Black, adjustment: Adjustment::Subtract(u64::MAX) },
            Command::SetMoves { side: Side::Black, moves: u32::MAX },
            Command::SetMoves { side: Side::White, moves: 0 },
            Command::Replace { white: ReplaceSide::default(), black: ReplaceSide::default() },
            // The longest a clock accepts (6.11: at most the notation's
            // longest time; at most 104 stages and periods) still fits.
            Command::Replace {
                white: ReplaceSide { main_us: 1_000_000_000_000, moves: u32::MAX, period: 104, period_moves: u32::MAX },
                black: ReplaceSide { main_us: 999_999_999_999, moves: u32::MAX, period: 104, period_moves: u32::MAX },
            },
        ];
        for command in commands {
            let mut out = [0; COMMAND_LINE_MAX + 1];
            let len = command.encode(&mut out).unwrap();
            assert_eq!(out[len - 1], b'\n');
            assert_eq!(Command::parse(&out[..len - 1]), Ok(command));
        }
    }

    #[test]
    fn encode_refuses_what_does_not_fit() {
        assert_eq!(Command::Start.encode(&mut [0; 5]), None);
        assert_eq!(Command::Start.encode(&mut [0; 6]), Some(6));
        let long = "1".repeat(COMMAND_LINE_MAX);
        assert_eq!(Command::TimeControl(&long).encode(&mut [0; 200]), None);
        let huge = ReplaceSide { main_us: u64::MAX, moves: u32::MAX, period: u32::MAX, period_moves: u32::MAX };
        assert_eq!(Command::Replace { white: huge, black: huge }.encode(&mut [0; 200]), None);
    }

    fn feed_all(buffer: &mut LineBuffer, bytes: &[u8]) -> Vec<Result<Vec<u8>, ()>> {
        let mut events = Vec::new();
        for &byte in bytes {
            match buffer.feed(byte) {
                Some(LineEvent::Line(line)) => events.push(Ok(line.to_vec())),
                Some(LineEvent::TooLong) => events.push(Err(())),
                None => {}
            }
        }
        events
    }

    #[test]
    fn the_line_buffer_splits_lines_and_discards_long_ones_whole() {
        let mut buffer = LineBuffer::new();
        let long = vec![b'x'; COMMAND_LINE_MAX + 5];
        let mut input = b"tc 300+2\nstart\r\n".to_vec();
        input.extend_from_slice(&long);
        input.extend_from_slice(b"\nreset\n\n");
        let events = feed_all(&mut buffer, &input);
        assert_eq!(
            events,
            vec![Ok(b"tc 300+2".to_vec()), Ok(b"start\r".to_vec()), Err(()), Ok(b"reset".to_vec()), Ok(Vec::new())]
        );
    }

    #[test]
    fn the_line_buffer_keeps_a_full_line_with_its_carriage_return() {
        let mut buffer = LineBuffer::new();
        let mut line = vec![b'9'; COMMAND_LINE_MAX];
        line.extend_from_slice(b"\r\n");
        let events = feed_all(&mut buffer, &line);
        assert_eq!(events, vec![Ok(line[..COMMAND_LINE_MAX + 1].to_vec())]);
        assert_eq!(Command::parse(&line[..COMMAND_LINE_MAX + 1]), error(AckStatus::UnknownCommand));
    }
}
