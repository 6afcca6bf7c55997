//! The contract's answers to lines at its edges (§4): right after boot,
//! before any game, the session sends lines a firmware must refuse —
//! `reset` (no control is set yet, so it is not allowed), an unknown
//! command, a time control that does not parse, an empty one, a line longer
//! than the limit and, to a firmware whose Capabilities announce the
//! arbiter's `set` (contract 3), `set` with a bad argument — then lines at
//! the edges of what it must accept: time controls with a fraction of a
//! second and with the most stages the notation allows (each only to a
//! firmware that announces the control's features), and, with that control
//! set, the arbiter's `set` and `adjust` at and one past the longest time a
//! clock shows. Each Ack — command code, status, error position, line count
//! — is checked against what bench's own parsers and clock core say:
//! [`Command::parse`], `chessclock::notation::parse` and
//! [`chessclock::Clock`]. The games send only good lines well inside the
//! limits, so without this a firmware that acks every refused line with the
//! wrong code, points a bad control's error at the wrong byte, accepts
//! `reset` with nothing to reset, refuses a control the notation allows or
//! lets the arbiter set a time no control can hold passes.
//!
//! Every line is a fixed text, so the answers, like everything a run
//! judges, depend on the firmware alone.

use bench_contract::{
    AckStatus, Adjustment, Capabilities, Command, CommandCode, Record, ReplaceSide, ARBITER_ADJUST_TIME,
    ARBITER_REPLACE, ARBITER_SET_TIME, COMMAND_LINE_MAX, CONTROL_BYO_YOMI, CONTROL_INCREMENT, CONTROL_PLAIN,
    CONTROL_STAGES,
};
use chessclock::{notation, BySide, Clock, ClockError, Duration, Instant, Replacement, TimeAdjustment};

use super::{RunError, Session};
use crate::judge::compare::side_of;
use crate::target::TargetError;

/// Time controls at the notation's edges, each with the Capabilities bits
/// (`CONTROL_*`) a firmware must announce to be sent it. Accepted: a main
/// time of exactly the longest a clock holds (`Duration::CONTROL_MAX`),
/// `PERIODS_MAX` byo-yomi periods, `STAGES_MAX` stages, a fraction of a
/// second (read to the µs), a blank after the text (the notation ignores
/// blanks around it). Refused, each at its own byte: a stage of zero moves,
/// a last stage with a move count. The last one, accepted, stays set for
/// the arbiter's lines.
pub const EDGE_CONTROLS: [(&str, u32); 8] = [
    ("1000000", CONTROL_PLAIN),
    ("0(100x1)", CONTROL_BYO_YOMI),
    ("10(1x1000001)", CONTROL_BYO_YOMI),
    ("2/60:0/60:60", CONTROL_STAGES | CONTROL_PLAIN),
    ("40/300", CONTROL_STAGES | CONTROL_PLAIN),
    ("1/60:1/60:1/60:1/60:60", CONTROL_STAGES | CONTROL_PLAIN),
    ("30+1 ", CONTROL_INCREMENT),
    ("30+0.5", CONTROL_INCREMENT),
];

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

/// The lines the probe sends, in order, to a firmware with `capabilities`.
/// `set x 1` only to a firmware that announces `set` (one without it may
/// answer "unsupported" first, contract §4). The bad control is one a
/// sudden-death clock reads too: its increment is past the core's limit,
/// so the error is at the increment, not at the main time. Then the
/// [`EDGE_CONTROLS`] the firmware announces, and with the last of them set,
/// `set` at the longest time a clock shows and one µs past it, `adjust`
/// past it, and `replace` with a time past it, with a period no control
/// has, and at the longest time.
pub fn probe_lines(capabilities: &Capabilities) -> Vec<String> {
    let announces = |function: u32| capabilities.arbiter & function != 0;
    let mut lines = vec![
        "reset".to_string(),
        "stop".to_string(),
        "tc 300+9999999".to_string(),
        "tc ".to_string(),
        "x".repeat(COMMAND_LINE_MAX + 1),
    ];
    if announces(ARBITER_SET_TIME) {
        lines.push("set x 1".to_string());
    }
    // A control outside the ranges the clock declares is no edge of its:
    // `1000000` to a display that stops at 9:59:59, `30+0.5` to a clock of
    // whole seconds.
    let in_ranges = |text: &str| {
        chessclock::notation::parse(text)
            .map_or(true, |control| crate::needs::outside_ranges(&capabilities.ranges, &control).is_empty())
    };
    let controls: Vec<String> = EDGE_CONTROLS
        .iter()
        .filter(|(text, needs)| capabilities.controls & needs == *needs && in_ranges(text))
        .map(|(text, _)| format!("tc {text}"))
        .collect();
    if controls.is_empty() {
        return lines;
    }
    lines.extend(controls);
    let longest_us = Duration::CONTROL_MAX.as_us();
    // The arbiter's lines at the longest time the notation holds: only to
    // a clock that declares no shorter one.
    let declared_max_us = u64::from(capabilities.ranges.time_max_s).saturating_mul(1_000_000);
    if declared_max_us != 0 && declared_max_us < longest_us {
        return lines;
    }
    if announces(ARBITER_SET_TIME) {
        lines.push(format!("set w {longest_us}"));
        lines.push(format!("set b {}", longest_us + 1));
    }
    if announces(ARBITER_ADJUST_TIME) {
        lines.push(format!("adjust b +{longest_us}"));
    }
    if announces(ARBITER_REPLACE) {
        lines.push(format!("replace w 0 0 0 0 b {} 0 0 0", longest_us + 1));
        lines.push("replace w 0 0 999 0 b 0 0 0 0".to_string());
        lines.push(format!("replace w {longest_us} 3 0 0 b 1 2 0 0"));
    }
    lines
}

/// The Ack the contract asks for `line`, the `commands`-th since boot, on
/// a firmware with no time control set.
pub fn expected_ack(line: &[u8], commands: u32) -> AckShape {
    ProbeModel::default().answer(line, commands)
}

/// What a firmware keeping the contract holds during the probe: nothing
/// until a `tc` is accepted, then a clock under that control, not started.
#[derive(Default)]
struct ProbeModel {
    clock: Option<Clock>,
}

impl ProbeModel {
    /// The Ack the contract asks for `line`, the `commands`-th since boot,
    /// the line applied.
    fn answer(&mut self, line: &[u8], commands: u32) -> AckShape {
        let (command, status, error_position) = match Command::parse(line) {
            Err(error) => (error.command, error.status, error.position),
            Ok(command) => {
                let (status, error_position) = self.apply(command);
                (command.code(), status, error_position)
            }
        };
        AckShape { command, status, error_position, commands }
    }

    fn apply(&mut self, command: Command<'_>) -> (AckStatus, u16) {
        if let Command::TimeControl(text) = command {
            return match notation::parse(text) {
                Ok(control) => {
                    self.clock = Some(Clock::new(control));
                    (AckStatus::Ok, 0)
                }
                Err(error) => (AckStatus::BadTimeControl, u16::try_from(error.position).unwrap_or(u16::MAX)),
            };
        }
        // With no control set, every other command has nothing to act on.
        let Some(clock) = self.clock.as_mut() else { return (AckStatus::NotAllowed, 0) };
        // The clock is not started: every instant is the same to it.
        let at = Instant::EPOCH;
        let applied = match command {
            Command::TimeControl(_) | Command::Reset => {
                *clock = Clock::new(*clock.control());
                Ok(())
            }
            Command::Start => clock.start(at),
            Command::Pause => clock.pause(at),
            Command::Resume => clock.resume(at),
            Command::SetTime { side, time_us } => clock.set_time(side_of(side), Duration::from_us(time_us), at),
            Command::AdjustTime { side, adjustment } => {
                let adjustment = match adjustment {
                    Adjustment::Add(amount_us) => TimeAdjustment::Add(Duration::from_us(amount_us)),
                    Adjustment::Subtract(amount_us) => TimeAdjustment::Subtract(Duration::from_us(amount_us)),
                };
                clock.adjust_time(side_of(side), adjustment, at)
            }
            Command::SetMoves { side, moves } => clock.set_moves(side_of(side), moves, at),
            Command::Replace { white, black } => clock.replace(replacement(white, black), at),
        };
        match applied {
            Ok(()) => (AckStatus::Ok, 0),
            // A time the clock cannot show, or a period its control does
            // not have, is the argument's fault (§4).
            Err(ClockError::TimeTooLong { .. } | ClockError::NoSuchPeriod { .. }) => (AckStatus::BadArgument, 0),
            Err(_) => (AckStatus::NotAllowed, 0),
        }
    }
}

/// `replace`'s numbers as the core's settings (6.11).
fn replacement(white: ReplaceSide, black: ReplaceSide) -> Replacement {
    let both = |number: fn(&ReplaceSide) -> u32| BySide::new(number(&white), number(&black));
    Replacement {
        main: BySide::new(Duration::from_us(white.main_us), Duration::from_us(black.main_us)),
        moves: both(|side| side.moves),
        period: both(|side| side.period),
        period_moves: both(|side| side.period_moves),
    }
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
        let mut model = ProbeModel::default();
        for line in probe_lines(&capabilities) {
            let expected = model.answer(line.as_bytes(), sent.saturating_add(1));
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
            // The first game's `reset` is allowed once the firmware took a control.
            if firmware.command == CommandCode::TimeControl && firmware.status == AckStatus::Ok {
                self.control_set = true;
            }
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

    use bench_contract::{Ack, Body, ARBITER_ALL, CONTROLS_ALL, CONTROL_HOURGLASS, CONTROL_INCREMENT, CONTROL_PLAIN};

    use super::super::RunOptions;
    use super::*;
    use crate::session::rtt::{ControlBlockLocation, RttReader};
    use crate::target::Target;
    use crate::testing::board::{FakeConfig, FakeTarget};
    use crate::testing::firmware::{Defects, FakeFirmware};

    /// The probe on a fake board running the reference firmware's game
    /// logic, each Ack it sends changed by `fault` first.
    fn probed(fault: fn(&mut Ack)) -> AckCheck {
        probed_where(fault, |_| true)
    }

    /// As [`probed`], changing only the Ack of the `line`-th line.
    fn probed_at(line: u32, fault: fn(&mut Ack)) -> AckCheck {
        probed_where(fault, move |ack| ack.commands == line)
    }

    fn probed_where(fault: fn(&mut Ack), which: impl Fn(&Ack) -> bool + Send + 'static) -> AckCheck {
        let mut target = FakeTarget::with_config(FakeConfig { us_per_call: 250, ..FakeConfig::default() });
        let mut firmware = FakeFirmware::new(Defects::default());
        target.set_firmware(move |board| {
            firmware.lines(board.take_lines(), board.now_us());
            for mut record in firmware.out.drain(..) {
                if let Body::Ack(ack) = &mut record.body {
                    if which(ack) {
                        fault(ack);
                    }
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
        assert_eq!(check.answered(), probe_lines(&EVERYTHING).len(), "the fake announces every function");
    }

    const EVERYTHING: Capabilities = Capabilities {
        controls: CONTROLS_ALL,
        arbiter: ARBITER_ALL,
        shows_flag_order: true,
        ranges: bench_contract::Ranges::UNDECLARED,
    };

    #[test]
    fn a_firmware_that_refuses_the_notation_s_edges_or_lets_a_time_past_the_longest_be_set_fails() {
        let lines = probe_lines(&EVERYTHING);
        let number = |wanted: &str| {
            let index = lines.iter().position(|line| line == wanted).expect("the probe sends it");
            u32::try_from(index + 1).expect("a few lines")
        };
        // A clock that allows one stage fewer than the notation (a mutant
        // of the core's stage count once did this).
        let five_stages = number("tc 1/60:1/60:1/60:1/60:60");
        let check = probed_at(five_stages, |ack| ack.status = AckStatus::BadTimeControl);
        assert_eq!(check.wrong_lines().len(), 1, "{:?}", check.wrong_lines());
        assert!(check.wrong_lines()[0].starts_with("`tc 1/60:1/60:1/60:1/60:60`"));
        // A clock that reads no fraction of a second, or allows one second
        // less than the longest time.
        for line in ["tc 30+0.5", "tc 1000000", "tc 0(100x1)"] {
            let check = probed_at(number(line), |ack| ack.status = AckStatus::BadTimeControl);
            assert!(check.wrong_lines()[0].starts_with(&format!("`{line}`")), "{:?}", check.wrong_lines());
        }
        // A clock that takes a last stage with a move count.
        let check = probed_at(number("tc 40/300"), |ack| ack.status = AckStatus::Ok);
        assert!(check.wrong_lines()[0].starts_with("`tc 40/300`"), "{:?}", check.wrong_lines());
        // A clock that lets the arbiter set a time no control holds, or
        // calls it "not allowed" rather than a bad argument.
        for (line, status) in [
            ("set b 1000000000001", AckStatus::Ok),
            ("set b 1000000000001", AckStatus::NotAllowed),
            ("adjust b +1000000000000", AckStatus::Ok),
            ("set w 1000000000000", AckStatus::BadArgument),
            // 6.11: a replacement clock set past the longest time, or in a
            // period its control does not have; or one refused when good.
            ("replace w 0 0 0 0 b 1000000000001 0 0 0", AckStatus::Ok),
            ("replace w 0 0 999 0 b 0 0 0 0", AckStatus::NotAllowed),
            ("replace w 1000000000000 3 0 0 b 1 2 0 0", AckStatus::BadArgument),
        ] {
            let at = number(line);
            let check = match status {
                AckStatus::Ok => probed_at(at, |ack| ack.status = AckStatus::Ok),
                AckStatus::NotAllowed => probed_at(at, |ack| ack.status = AckStatus::NotAllowed),
                _ => probed_at(at, |ack| ack.status = AckStatus::BadArgument),
            };
            assert_eq!(check.wrong_lines().len(), 1, "{line} {status:?}: {:?}", check.wrong_lines());
            assert!(check.wrong_lines()[0].starts_with(&format!("`{line}`")), "{:?}", check.wrong_lines());
        }
    }

    #[test]
    fn the_edges_are_sent_only_as_far_as_the_firmware_announces_them() {
        let lines = probe_lines(&EVERYTHING);
        // Each accepted edge needs no more than it says it needs, and is at
        // the edge it is there for.
        for (text, needs) in EDGE_CONTROLS {
            if let Ok(control) = notation::parse(text) {
                let used = crate::needs::control_features(&control);
                assert!(used.iter().all(|feature| needs & feature.bit() != 0), "{text}: {used:?}");
            }
        }
        let parsed = |text| notation::parse(text).expect("an accepted edge");
        assert_eq!(parsed("1000000").initial_time(), chessclock::Duration::CONTROL_MAX);
        assert!(matches!(
            parsed("0(100x1)"),
            chessclock::TimeControl::ByoYomi { periods: chessclock::PERIODS_MAX, .. }
        ));
        let stages = parsed("1/60:1/60:1/60:1/60:60");
        assert!(matches!(stages, chessclock::TimeControl::Stages(stages) if stages.len() == chessclock::STAGES_MAX));
        assert_eq!(parsed("30+0.5").initial_time().as_us(), 30_000_000);
        assert_eq!(notation::parse("2/60:0/60:60").map_err(|error| error.position), Err(5), "the zero");
        assert_eq!(notation::parse("40/300").map_err(|error| error.position), Err(0), "the last stage");
        // A period past the longest time is refused at the period, not at
        // the main time before it.
        assert_eq!(notation::parse("10(1x1000001)").map_err(|error| error.position), Err(5), "the period");
        let longest_us = chessclock::Duration::CONTROL_MAX.as_us();
        for line in
            [format!("set w {longest_us}"), format!("set b {}", longest_us + 1), format!("adjust b +{longest_us}")]
        {
            assert!(lines.contains(&line), "{line} in {lines:?}");
        }
        // The C example: Fischer only, no arbiter menu.
        let fischer = Capabilities {
            controls: CONTROL_PLAIN | CONTROL_INCREMENT,
            arbiter: 0,
            shows_flag_order: true,
            ranges: bench_contract::Ranges::UNDECLARED,
        };
        let lines = probe_lines(&fischer);
        assert!(lines.contains(&"tc 30+0.5".to_string()) && lines.contains(&"tc 1000000".to_string()), "{lines:?}");
        assert!(!lines.iter().any(|line| line.contains('/') || line.contains('(')), "{lines:?}");
        assert!(!lines.iter().any(|line| ["set", "adjust", "replace"].iter().any(|word| line.starts_with(word))));
        // No control it announces: nothing after the refusals.
        let hourglass = Capabilities {
            controls: CONTROL_HOURGLASS,
            arbiter: ARBITER_ALL,
            shows_flag_order: true,
            ranges: bench_contract::Ranges::UNDECLARED,
        };
        assert_eq!(probe_lines(&hourglass).len(), 6, "{:?}", probe_lines(&hourglass));
        // A clock of whole seconds whose display stops at 9:59:59 (contract
        // 3, declared ranges): neither edge past them, nor the arbiter's
        // lines at the notation's longest time.
        let ranges = bench_contract::Ranges { time_max_s: 35_999, setting_step_us: 1_000_000, ..Default::default() };
        let lines = probe_lines(&Capabilities { ranges, ..EVERYTHING });
        assert!(!lines.contains(&"tc 30+0.5".to_string()) && !lines.contains(&"tc 1000000".to_string()), "{lines:?}");
        assert!(lines.contains(&"tc 0(100x1)".to_string()), "{lines:?}");
        assert!(!lines.iter().any(|line| line.contains(&longest_us.to_string())), "{lines:?}");
    }

    #[test]
    fn with_a_control_set_the_arbiter_s_lines_are_judged_by_the_clock_core() {
        let mut model = ProbeModel::default();
        let answer = |model: &mut ProbeModel, line: &str| model.answer(line.as_bytes(), 1).status;
        assert_eq!(answer(&mut model, "set w 1000000000000"), AckStatus::NotAllowed, "no control yet");
        assert_eq!(answer(&mut model, "tc 30+0.5"), AckStatus::Ok);
        assert_eq!(answer(&mut model, "set w 1000000000000"), AckStatus::Ok);
        assert_eq!(answer(&mut model, "set b 1000000000001"), AckStatus::BadArgument);
        assert_eq!(answer(&mut model, "adjust b +999970000000"), AckStatus::Ok, "30 s + this is the longest");
        assert_eq!(answer(&mut model, "adjust b +1"), AckStatus::BadArgument);
        assert_eq!(answer(&mut model, "replace w 0 0 1 0 b 0 0 0 0"), AckStatus::BadArgument, "one period only");
        assert_eq!(answer(&mut model, "replace w 1000000000000 4 0 0 b 0 3 0 0"), AckStatus::Ok);
        assert_eq!(answer(&mut model, "reset"), AckStatus::Ok);
        assert_eq!(answer(&mut model, "tc 3/60:60"), AckStatus::Ok);
        assert_eq!(answer(&mut model, "replace w 0 3 1 0 b 1 0 0 0"), AckStatus::Ok, "the second stage");
        assert_eq!(answer(&mut model, "tc 1/60:1/60:1/60:1/60:1/60:60"), AckStatus::BadTimeControl, "six stages");
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
        let no_set = Capabilities { arbiter: ARBITER_ALL & !ARBITER_SET_TIME, ..EVERYTHING };
        assert!(!probe_lines(&no_set).iter().any(|line| line.starts_with("set")));
        assert!(probe_lines(&EVERYTHING).iter().any(|line| line == "set x 1"));
        assert!(probe_lines(&EVERYTHING).iter().all(|line| line.len() <= COMMAND_LINE_MAX + 1));
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
