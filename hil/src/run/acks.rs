//! The contract's answers to lines it must refuse (§4): right after boot,
//! before any game, the session sends `reset` (no control is set yet, so it
//! is not allowed), an unknown command, a time control that does not parse,
//! an empty one, a line longer than the limit and, to a firmware whose
//! Capabilities announce the arbiter's `set` (contract 3), `set` with a bad
//! argument, and checks each Ack — command code,
//! status, error position, line count — against what bench's own parsers
//! say: [`Command::parse`] and `chessclock::notation::parse`. The games
//! send only good lines, so without this a firmware that acks every
//! refused line with the wrong code, points a bad control's error at the
//! wrong byte, or accepts `reset` with nothing to reset passes.
//!
//! Every line is a fixed text, so the answers, like everything a run
//! judges, depend on the firmware alone.

use bench_contract::{AckStatus, Command, CommandCode, Record, ARBITER_SET_TIME, COMMAND_LINE_MAX};
use chessclock::notation;

use super::{RunError, Session};
use crate::target::TargetError;

/// What an Ack says about its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckShape {
    pub command: CommandCode,
    pub status: AckStatus,
    pub error_position: u16,
    /// Lines received since boot, this one included.
    pub commands: u32,
}

/// One line sent and how it was answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineAck {
    /// The line as sent (a long one shortened for showing).
    pub line: String,
    pub expected: AckShape,
    /// The Ack; `None` when the line could not be sent (`not_sent` says why).
    pub firmware: Option<AckShape>,
    pub not_sent: Option<String>,
}

impl LineAck {
    pub fn wrong(&self) -> bool {
        self.firmware.is_some_and(|firmware| firmware != self.expected)
    }
}

/// The probe's outcome: every line, in the order sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AckCheck {
    pub lines: Vec<LineAck>,
}

impl AckCheck {
    /// Several boards' checks as one, their lines in turn; `None` for none.
    pub fn joined<'a>(checks: impl IntoIterator<Item = &'a AckCheck>) -> Option<AckCheck> {
        checks.into_iter().fold(None, |joined: Option<AckCheck>, check| {
            let mut joined = joined.unwrap_or_default();
            joined.lines.extend(check.lines.iter().cloned());
            Some(joined)
        })
    }

    pub fn passed(&self) -> bool {
        !self.lines.iter().any(LineAck::wrong)
    }

    /// Lines answered.
    pub fn answered(&self) -> usize {
        self.lines.iter().filter(|line| line.firmware.is_some()).count()
    }

    /// The lines answered wrongly, as `line: expected …, firmware …`.
    pub fn wrong_lines(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter(|line| line.wrong())
            .filter_map(|line| {
                let firmware = line.firmware?;
                Some(format!(
                    "`{}`: expected {}, firmware {}",
                    line.line,
                    shape_text(&line.expected),
                    shape_text(&firmware)
                ))
            })
            .collect()
    }
}

/// `command 1, status BadTimeControl at byte 3, line 4`.
pub fn shape_text(shape: &AckShape) -> String {
    format!(
        "command {} ({:?}), {:?} at byte {}, line {}",
        shape.command as u8, shape.command, shape.status, shape.error_position, shape.commands
    )
}

/// The lines the probe sends, in order; `set x 1` only to a firmware that
/// announces `set` (one without it may answer "unsupported" first, contract
/// §4). The bad control is one a sudden-death clock reads
/// too: its increment is past the core's limit, so the error is at the
/// increment, not at the main time.
pub fn probe_lines(announces_set_time: bool) -> Vec<String> {
    let mut lines = vec![
        "reset".to_string(),
        "stop".to_string(),
        "tc 300+9999999".to_string(),
        "tc ".to_string(),
        "x".repeat(COMMAND_LINE_MAX + 1),
    ];
    if announces_set_time {
        lines.push("set x 1".to_string());
    }
    lines
}

/// The Ack the contract asks for `line`, the `commands`-th since boot, on
/// a firmware with no time control set.
pub fn expected_ack(line: &[u8], commands: u32) -> AckShape {
    let (command, status, error_position) = match Command::parse(line) {
        Err(error) => (error.command, error.status, error.position),
        Ok(Command::TimeControl(text)) => match notation::parse(text) {
            Ok(_) => (CommandCode::TimeControl, AckStatus::Ok, 0),
            Err(error) => {
                (CommandCode::TimeControl, AckStatus::BadTimeControl, u16::try_from(error.position).unwrap_or(u16::MAX))
            }
        },
        // With no control set, every other command has nothing to act on.
        Ok(command) => (command.code(), AckStatus::NotAllowed, 0),
    };
    AckShape { command, status, error_position, commands }
}

/// A long line shown by its start and length.
fn shown(line: &str) -> String {
    match line.get(..12) {
        Some(head) if line.len() > 40 => format!("{head}… ({} bytes)", line.len()),
        _ => line.to_string(),
    }
}

impl Session<'_> {
    /// Sends [`probe_lines`] right after boot and judges each Ack; run it
    /// before the first game. A line the board's down buffer cannot hold
    /// (the contract's minimum fits no line over the limit) is not sent and
    /// says so. Ends like a game does on a silent or restarted firmware.
    pub fn check_acks(&mut self) -> Result<AckCheck, RunError> {
        let capabilities = self.capabilities()?;
        let mut check = AckCheck::default();
        let mut records = Vec::new();
        let mut sent = 0u32;
        for line in probe_lines(capabilities.arbiter & ARBITER_SET_TIME != 0) {
            let expected = expected_ack(line.as_bytes(), sent.saturating_add(1));
            let from = records.len();
            match self.link.send_line(self.target, &line) {
                Ok(()) => sent = sent.saturating_add(1),
                Err(TargetError::Protocol { detail, .. }) => {
                    check.lines.push(LineAck { line: shown(&line), expected, firmware: None, not_sent: Some(detail) });
                    continue;
                }
                Err(error) => return Err(error.into()),
            }
            let firmware = self.next_ack(&line, &mut records, from)?;
            check.lines.push(LineAck { line: shown(&line), expected, firmware: Some(firmware), not_sent: None });
        }
        Ok(check)
    }

    /// Waits for the first Ack among `records[from..]`, whatever its code.
    fn next_ack(&mut self, line: &str, records: &mut Vec<Record>, from: usize) -> Result<AckShape, RunError> {
        let (_, ack) = self.ack_after(&shown(line), records, from, |_| true)?;
        Ok(AckShape {
            command: ack.command,
            status: ack.status,
            error_position: ack.error_position,
            commands: ack.commands,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use bench_contract::{Ack, Body};

    use super::super::RunOptions;
    use super::*;
    use crate::compare::fake_firmware::{Defects, FakeFirmware};
    use crate::fake::{FakeConfig, FakeTarget};
    use crate::rtt::{ControlBlockLocation, RttReader};
    use crate::target::Target;

    /// The probe on a fake board running the reference firmware's game
    /// logic, each Ack it sends changed by `fault` first.
    fn probed(fault: fn(&mut Ack)) -> AckCheck {
        let mut target = FakeTarget::with_config(FakeConfig { us_per_call: 250, ..FakeConfig::default() });
        let mut firmware = FakeFirmware::new(Defects::default());
        target.set_firmware(move |board| {
            firmware.lines(board.take_lines(), board.now_us());
            for mut record in firmware.out.drain(..) {
                if let Body::Ack(ack) = &mut record.body {
                    fault(ack);
                }
                board.emit(record.at_us, record.body);
            }
        });
        target.reset_and_run().expect("the fake boots");
        let location = ControlBlockLocation::Address(target.board().control_block());
        let mut reader = RttReader::attach(&mut target, &location).expect("the fake has a control block");
        let options = RunOptions {
            poll_interval: Duration::ZERO,
            silence_timeout: Duration::from_millis(500),
            ..RunOptions::default()
        };
        let mut session = Session::new(&mut target, &mut reader, options);
        session.check_acks().expect("every line is answered")
    }

    #[test]
    fn the_reference_logic_answers_every_refused_line_as_the_contract_says() {
        let check = probed(|_| {});
        assert!(check.passed(), "{:?}", check.wrong_lines());
        assert_eq!(check.answered(), probe_lines(true).len(), "the fake announces every arbiter function");
    }

    #[test]
    fn a_firmware_that_acks_refused_lines_wrongly_fails_naming_each_line() {
        // Every refused line acked as `tc` (a mutant of the reference's
        // command code once did this).
        let check = probed(|ack| {
            if ack.status != AckStatus::Ok {
                ack.command = CommandCode::TimeControl;
            }
        });
        let wrong = check.wrong_lines();
        assert!(!check.passed());
        assert!(wrong.iter().any(|line| line.starts_with("`stop`")), "{wrong:?}");
        assert!(!wrong.iter().any(|line| line.starts_with("`tc ")), "the bad controls were acked as tc: {wrong:?}");
        // `reset` with no control set accepted.
        let check = probed(|ack| {
            if ack.command == CommandCode::Reset {
                ack.status = AckStatus::Ok;
            }
        });
        assert_eq!(check.wrong_lines().len(), 1, "{:?}", check.wrong_lines());
        assert!(check.wrong_lines()[0].starts_with("`reset`"));
    }

    fn check(line: &str, command: CommandCode, status: AckStatus, error_position: u16) {
        assert_eq!(
            expected_ack(line.as_bytes(), 7),
            AckShape { command, status, error_position, commands: 7 },
            "{line:?}"
        );
    }

    #[test]
    fn each_probe_line_expects_what_the_parsers_say() {
        check("reset", CommandCode::Reset, AckStatus::NotAllowed, 0);
        check("start", CommandCode::Start, AckStatus::NotAllowed, 0);
        check("stop", CommandCode::Unknown, AckStatus::UnknownCommand, 0);
        // The increment, 9 999 999 s, is past the core's limit: the error
        // is at its first digit.
        check("tc 300+9999999", CommandCode::TimeControl, AckStatus::BadTimeControl, 4);
        check("tc ", CommandCode::TimeControl, AckStatus::BadTimeControl, 0);
        check(&"x".repeat(COMMAND_LINE_MAX + 1), CommandCode::Unknown, AckStatus::LineTooLong, 0);
        check("set x 1", CommandCode::SetTime, AckStatus::BadArgument, 0);
    }

    #[test]
    fn the_arbiter_line_is_sent_only_to_a_firmware_that_announces_set() {
        assert!(!probe_lines(false).iter().any(|line| line.starts_with("set")));
        assert!(probe_lines(true).iter().any(|line| line == "set x 1"));
        assert!(probe_lines(true).iter().all(|line| line.len() <= COMMAND_LINE_MAX + 1));
    }

    #[test]
    fn a_wrong_code_status_position_or_count_is_wrong_and_a_line_not_sent_is_not() {
        let expected = expected_ack(b"tc ", 4);
        let answered = |firmware| LineAck { line: "tc ".into(), expected, firmware: Some(firmware), not_sent: None };
        assert!(!answered(expected).wrong());
        for changed in [
            AckShape { command: CommandCode::Unknown, ..expected },
            AckShape { status: AckStatus::UnknownCommand, ..expected },
            AckShape { error_position: 3, ..expected },
            AckShape { commands: 5, ..expected },
        ] {
            let line = answered(changed);
            assert!(line.wrong(), "{changed:?}");
            let check = AckCheck { lines: vec![line] };
            assert!(!check.passed());
            assert!(check.wrong_lines()[0].starts_with("`tc `: expected command 1"), "{:?}", check.wrong_lines());
        }
        let not_sent = LineAck { line: "x".into(), expected, firmware: None, not_sent: Some("too long".into()) };
        assert!(!not_sent.wrong());
        assert!(AckCheck { lines: vec![not_sent] }.passed());
    }
}
