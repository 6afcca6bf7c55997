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
//! ```
//!
//! A line is at most [`COMMAND_LINE_MAX`] bytes before its newline; a longer
//! one is discarded whole and answered with `LineTooLong`.

use crate::record::{AckStatus, CommandCode};

/// Longest command line, in bytes, not counting the `\n`.
pub const COMMAND_LINE_MAX: usize = 96;

/// Prefix of the time-control command, argument included after it.
const TC_PREFIX: &[u8] = b"tc ";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command<'a> {
    /// The time-control text, exactly as written after `tc `.
    TimeControl(&'a str),
    Start,
    Reset,
    Pause,
    Resume,
}

/// Why a line is not a command: the [`Ack`](crate::Ack) status and, for a
/// time-control text that is not ASCII/UTF-8, the offset of the bad byte in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandError {
    pub status: AckStatus,
    pub position: u16,
}

impl<'a> Command<'a> {
    /// Parses one line, without its `\n`.
    pub fn parse(line: &'a [u8]) -> Result<Command<'a>, CommandError> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.len() > COMMAND_LINE_MAX {
            return Err(CommandError { status: AckStatus::LineTooLong, position: 0 });
        }
        if let Some(text) = line.strip_prefix(TC_PREFIX) {
            return match core::str::from_utf8(text) {
                Ok(text) => Ok(Command::TimeControl(text)),
                Err(error) => Err(CommandError {
                    status: AckStatus::BadTimeControl,
                    position: u16::try_from(error.valid_up_to()).unwrap_or(u16::MAX),
                }),
            };
        }
        match line {
            b"start" => Ok(Command::Start),
            b"reset" => Ok(Command::Reset),
            b"pause" => Ok(Command::Pause),
            b"resume" => Ok(Command::Resume),
            _ => Err(CommandError { status: AckStatus::UnknownCommand, position: 0 }),
        }
    }

    pub const fn code(&self) -> CommandCode {
        match self {
            Command::TimeControl(_) => CommandCode::TimeControl,
            Command::Start => CommandCode::Start,
            Command::Reset => CommandCode::Reset,
            Command::Pause => CommandCode::Pause,
            Command::Resume => CommandCode::Resume,
        }
    }

    /// Writes the line and its `\n` into `out`; returns its length, or `None`
    /// if `out` is too small or the line would exceed [`COMMAND_LINE_MAX`].
    pub fn encode(&self, out: &mut [u8]) -> Option<usize> {
        let (head, tail): (&[u8], &[u8]) = match self {
            Command::TimeControl(text) => (TC_PREFIX, text.as_bytes()),
            Command::Start => (b"start", b""),
            Command::Reset => (b"reset", b""),
            Command::Pause => (b"pause", b""),
            Command::Resume => (b"resume", b""),
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
        Err(CommandError { status, position: 0 })
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

    #[test]
    fn a_time_control_that_is_not_utf8_is_rejected_at_its_first_bad_byte() {
        assert_eq!(
            Command::parse(b"tc 300\xff+2"),
            Err(CommandError { status: AckStatus::BadTimeControl, position: 3 })
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
