//! `include/bench_contract.h` says what this crate says: every constant,
//! enum value, string, command and record field.
//!
//! The test writes a C program that prints each item from the header,
//! compiles it with the host's `cc` (as C99) and runs it, and compares every
//! line with the value taken from the crate. Field offsets and widths come
//! from the encoder itself (a field set to all ones changes exactly its
//! bytes), enum values from the decoder (every code it accepts), so neither
//! side is a hand-copied table. Then every value is compiled again as
//! static assertions with the Arm cross compiler, as C11 and as C++11: the
//! target's layout (4-byte pointers, the RTT structs) is the same.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Output};

use bench_contract::record::{OFFSET_AT_US, OFFSET_DROPPED, OFFSET_KIND, OFFSET_PAYLOAD, OFFSET_SEQ, OFFSET_SIDE};
use bench_contract::{
    rtt, Ack, AckStatus, Adjustment, Body, Button, Capabilities, Command, CommandCode, Flag, Hello, Kind, PeriodCause,
    PeriodChange, Phase, Press, PressResult, Ranges, Record, ReplaceSide, Side, Snapshot, TimeBase,
    ARBITER_ADJUST_TIME, ARBITER_ALL, ARBITER_PAUSE, ARBITER_REPLACE, ARBITER_SET_MOVES, ARBITER_SET_TIME,
    BUTTONS_PAUSE, BUTTONS_PLAYERS, BUTTON_BLACK, BUTTON_PAUSE, BUTTON_WHITE, COMMAND_LINE_MAX, CONTRACT_VERSION,
    CONTRACT_VERSION_CAPABILITIES, CONTRACT_VERSION_MIN, CONTROLS_ALL, CONTROL_BRONSTEIN, CONTROL_BYO_YOMI,
    CONTROL_CANADIAN, CONTROL_DELAY, CONTROL_HOURGLASS, CONTROL_INCREMENT, CONTROL_PLAIN, CONTROL_STAGES,
    DOWN_BUFFER_MIN, DOWN_CHANNEL, RECORD_SIZE, UP_BUFFER_MIN, UP_CHANNEL,
};

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("include")
}

/// What the C program prints (`key=value` lines) and what the crate expects.
#[derive(Default)]
struct Checks {
    /// C statements, one `print` per key.
    prints: Vec<String>,
    /// key → the C expression printed (numbers only, for the target's asserts).
    numbers: BTreeMap<String, String>,
    /// key → the value from the crate; keys printed only for the layout check have none.
    expected: BTreeMap<String, String>,
}

impl Checks {
    fn number(&mut self, key: &str, c_expr: &str, rust: Option<u64>) {
        self.prints.push(format!("    print({key:?}, (unsigned long long)({c_expr}));"));
        self.numbers.insert(key.to_string(), c_expr.to_string());
        if let Some(value) = rust {
            self.expected.insert(key.to_string(), value.to_string());
        }
    }

    /// A macro of the header, equal to a crate constant.
    fn constant(&mut self, c_macro: &str, rust: u64) {
        self.number(c_macro, c_macro, Some(rust));
    }

    /// A string macro: its bytes, NUL terminator excluded unless `with_nul`.
    fn string(&mut self, c_macro: &str, rust: &[u8], with_nul: bool) {
        let len = if with_nul { format!("sizeof({c_macro})") } else { format!("sizeof({c_macro}) - 1") };
        self.prints.push(format!("    print_bytes({c_macro:?}, {c_macro}, {len});"));
        self.expected.insert(c_macro.to_string(), hex(rust));
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The bytes an encoded record changes when one field changes: (offset, width).
fn span(base: &Record, changed: &Record) -> (usize, usize) {
    let (a, b) = (base.encode(), changed.encode());
    let differ: Vec<usize> = (0..RECORD_SIZE).filter(|&i| a[i] != b[i]).collect();
    let (first, last) = (differ[0], differ[differ.len() - 1]);
    (first, last + 1 - first)
}

/// One C struct of the header: its fields in order, each with the record
/// that sets it (to compare with a base record), or none for reserved bytes.
struct Layout {
    c_struct: &'static str,
    size: usize,
    base: Record,
    fields: Vec<(&'static str, Option<Record>)>,
}

fn record(body: Body) -> Record {
    Record::new(0, 0, 0, body)
}

/// A C field, and how to change the Rust field it holds (none: reserved).
type Field<T> = (&'static str, Option<fn(&mut T)>);

/// The layout of one kind: `base` with every field zero (or its first
/// variant), and per C field the record with that field changed.
fn layout<T: Copy>(c_struct: &'static str, base: T, wrap: fn(T) -> Body, fields: Vec<Field<T>>) -> Layout {
    let fields = fields
        .into_iter()
        .map(|(field, change)| {
            let changed = change.map(|change| {
                let mut body = base;
                change(&mut body);
                record(wrap(body))
            });
            (field, changed)
        })
        .collect();
    Layout { c_struct, size: RECORD_SIZE, base: record(wrap(base)), fields }
}

const PRESS: Press = Press {
    button: Button::White,
    result: PressResult::Accepted,
    bounces: 0,
    moves: 0,
    remaining_us: 0,
    handled_at_us: 0,
    edge_hw_counter: 0,
};

fn header_layout() -> Layout {
    let base = record(Body::Press(PRESS));
    Layout {
        c_struct: "bench_header",
        size: OFFSET_PAYLOAD,
        base,
        fields: vec![
            // The kind byte cannot be set alone: Hello and Press differ in
            // their payload too. Its place is OFFSET_KIND, one byte.
            ("kind", None),
            ("side", Some(record(Body::Press(Press { button: Button::Pause, ..PRESS })))),
            ("dropped", Some(Record { dropped: u16::MAX, ..base })),
            ("seq", Some(Record { seq: u32::MAX, ..base })),
            ("at_us", Some(Record { at_us: u64::MAX, ..base })),
        ],
    }
}

fn hello_layout() -> Layout {
    let hello = Hello {
        contract_version: 0,
        record_size: 0,
        tick_us: 0,
        hw_counter_hz: 0,
        hw_counter_bits: 0,
        buttons: 0,
        debounce_us: 0,
        firmware_version: 0,
        firmware_name: [0; 8],
    };
    layout(
        "bench_hello",
        hello,
        Body::Hello,
        vec![
            ("h", None),
            ("contract_version", Some(|b| b.contract_version = u16::MAX)),
            ("record_size", Some(|b| b.record_size = u16::MAX)),
            ("tick_us", Some(|b| b.tick_us = u32::MAX)),
            ("hw_counter_hz", Some(|b| b.hw_counter_hz = u32::MAX)),
            ("hw_counter_bits", Some(|b| b.hw_counter_bits = u8::MAX)),
            ("buttons", Some(|b| b.buttons = u8::MAX)),
            ("reserved", None),
            ("debounce_us", Some(|b| b.debounce_us = u32::MAX)),
            ("firmware_version", Some(|b| b.firmware_version = u32::MAX)),
            ("firmware_name", Some(|b| b.firmware_name = [0xFF; 8])),
        ],
    )
}

fn press_layout() -> Layout {
    layout(
        "bench_press",
        PRESS,
        Body::Press,
        vec![
            ("h", None),
            ("result", Some(|b| b.result = PressResult::Other)),
            ("reserved", None),
            ("bounces", Some(|b| b.bounces = u16::MAX)),
            ("moves", Some(|b| b.moves = u32::MAX)),
            ("remaining_us", Some(|b| b.remaining_us = u64::MAX)),
            ("handled_at_us", Some(|b| b.handled_at_us = u64::MAX)),
            ("edge_hw_counter", Some(|b| b.edge_hw_counter = u64::MAX)),
        ],
    )
}

fn flag_layout() -> Layout {
    layout(
        "bench_flag",
        Flag { side: Side::White, period: 0, sequence: 0, observed_at_us: 0, moves: 0 },
        Body::Flag,
        vec![
            ("h", None),
            ("period", Some(|b| b.period = u32::MAX)),
            ("sequence", Some(|b| b.sequence = u32::MAX)),
            ("observed_at_us", Some(|b| b.observed_at_us = u64::MAX)),
            ("moves", Some(|b| b.moves = u32::MAX)),
            ("reserved", None),
            ("reserved2", None),
        ],
    )
}

fn period_layout() -> Layout {
    let period = PeriodChange {
        side: Side::White,
        from: 0,
        to: 0,
        cause: PeriodCause::MovesCompleted,
        moves: 0,
        remaining_us: 0,
    };
    layout(
        "bench_period",
        period,
        Body::Period,
        vec![
            ("h", None),
            ("from", Some(|b| b.from = u32::MAX)),
            ("to", Some(|b| b.to = u32::MAX)),
            ("cause", Some(|b| b.cause = PeriodCause::PeriodLost)),
            ("reserved", None),
            ("moves", Some(|b| b.moves = u32::MAX)),
            ("remaining_us", Some(|b| b.remaining_us = u64::MAX)),
            ("reserved2", None),
        ],
    )
}

const SNAPSHOT: Snapshot = Snapshot {
    phase: Phase::NotStarted,
    side: None,
    remaining_white_us: 0,
    remaining_black_us: 0,
    moves_white: 0,
    moves_black: 0,
    delay_us: 0,
    period_white: 0,
    period_black: 0,
    flag_white: false,
    flag_black: false,
};

fn snapshot_layout() -> Layout {
    layout(
        "bench_snapshot",
        SNAPSHOT,
        Body::Snapshot,
        vec![
            ("h", None),
            ("remaining_white_us", Some(|b| b.remaining_white_us = u64::MAX)),
            ("remaining_black_us", Some(|b| b.remaining_black_us = u64::MAX)),
            ("moves_white", Some(|b| b.moves_white = u32::MAX)),
            ("moves_black", Some(|b| b.moves_black = u32::MAX)),
            ("delay_us", Some(|b| b.delay_us = u32::MAX)),
            ("period_white", Some(|b| b.period_white = u8::MAX)),
            ("period_black", Some(|b| b.period_black = u8::MAX)),
            ("phase", Some(|b| b.phase = Phase::Finished)),
            ("flags", Some(|b| (b.flag_white, b.flag_black) = (true, true))),
        ],
    )
}

fn time_base_layout() -> Layout {
    layout(
        "bench_time_base",
        TimeBase { hw_counter: 0, ticks: 0, edge: false, dropped_total: 0 },
        Body::TimeBase,
        vec![
            ("h", None),
            ("hw_counter", Some(|b| b.hw_counter = u64::MAX)),
            ("ticks", Some(|b| b.ticks = u32::MAX)),
            ("flags", Some(|b| b.edge = true)),
            ("reserved", None),
            ("dropped_total", Some(|b| b.dropped_total = u32::MAX)),
            ("reserved2", None),
        ],
    )
}

fn ack_layout() -> Layout {
    let ack = Ack {
        command: CommandCode::Unknown,
        status: AckStatus::Ok,
        error_position: 0,
        commands: 0,
        initial_us: 0,
        final_period: 0,
        side: None,
    };
    layout(
        "bench_ack",
        ack,
        Body::Ack,
        vec![
            ("h", None),
            ("command", Some(|b| b.command = CommandCode::Resume)),
            ("status", Some(|b| b.status = AckStatus::NotAllowed)),
            ("error_position", Some(|b| b.error_position = u16::MAX)),
            ("commands", Some(|b| b.commands = u32::MAX)),
            ("initial_us", Some(|b| b.initial_us = u64::MAX)),
            ("final_period", Some(|b| b.final_period = u32::MAX)),
            ("reserved", None),
        ],
    )
}

const CAPABILITIES: Capabilities =
    Capabilities { controls: 0, arbiter: 0, shows_flag_order: false, ranges: Ranges::UNDECLARED };

fn capabilities_layout() -> Layout {
    layout(
        "bench_capabilities",
        CAPABILITIES,
        Body::Capabilities,
        vec![
            ("h", None),
            ("controls", Some(|b| b.controls = u32::MAX)),
            ("arbiter", Some(|b| b.arbiter = u32::MAX)),
            ("flag_order", Some(|b| b.shows_flag_order = true)),
            ("reserved", None),
            ("time_max_s", Some(|b| b.ranges.time_max_s = u32::MAX)),
            ("setting_step_us", Some(|b| b.ranges.setting_step_us = u32::MAX)),
            ("display_step_us", Some(|b| b.ranges.display_step_us = u32::MAX)),
            ("display_fine_below_us", Some(|b| b.ranges.display_fine_below_us = u32::MAX)),
            ("button_poll_us", Some(|b| b.ranges.button_poll_us = u32::MAX)),
        ],
    )
}

fn layouts() -> Vec<Layout> {
    vec![
        header_layout(),
        hello_layout(),
        press_layout(),
        flag_layout(),
        period_layout(),
        snapshot_layout(),
        time_base_layout(),
        ack_layout(),
        capabilities_layout(),
    ]
}

fn offset_key(c_struct: &str, field: &str) -> String {
    format!("offsetof({c_struct}, {field})")
}

fn size_key(c_struct: &str, field: &str) -> String {
    format!("sizeof({c_struct}.{field})")
}

fn add_layouts(checks: &mut Checks) {
    for layout in layouts() {
        let Layout { c_struct, size, base, fields } = layout;
        checks.number(&format!("sizeof({c_struct})"), &format!("sizeof({c_struct})"), Some(size as u64));
        for (field, changed) in fields {
            let rust = match (field, &changed) {
                (_, Some(changed)) => Some(span(&base, changed)),
                ("kind", None) => Some((OFFSET_KIND, 1)),
                ("h", None) => Some((0, OFFSET_PAYLOAD)),
                _ => None,
            };
            checks.number(
                &offset_key(c_struct, field),
                &format!("offsetof({c_struct}, {field})"),
                rust.map(|r| r.0 as u64),
            );
            checks.number(
                &size_key(c_struct, field),
                &format!("sizeof((({c_struct} *)0)->{field})"),
                rust.map(|r| r.1 as u64),
            );
        }
    }
    checks.number("sizeof(bench_record)", "sizeof(bench_record)", Some(RECORD_SIZE as u64));
}

/// Every code the decoder accepts at `offset` of any of `bases`, with the
/// header's name for what it decodes to (none: a code the header names not).
fn decoded_codes(
    bases: &[Record],
    offset: usize,
    name: impl Fn(&Record) -> Option<&'static str>,
) -> Vec<(&'static str, u64)> {
    (0..=u8::MAX)
        .filter_map(|code| {
            let decoded = bases.iter().find_map(|base| {
                let mut bytes = base.encode();
                bytes[offset] = code;
                Record::decode(&bytes).ok()
            })?;
            Some((name(&decoded)?, u64::from(code)))
        })
        .collect()
}

fn add_enums(checks: &mut Checks) {
    for (name, value) in record_enum_values().into_iter().chain(field_enum_values()) {
        checks.constant(name, value);
    }
}

/// The kinds, sides, press results and period causes, by their codes.
fn record_enum_values() -> Vec<(&'static str, u64)> {
    let mut values = Vec::new();
    for code in 0..=u8::MAX {
        if let Some(kind) = Kind::from_code(code) {
            let name = match kind {
                Kind::Hello => "BENCH_HELLO",
                Kind::Press => "BENCH_PRESS",
                Kind::Flag => "BENCH_FLAG",
                Kind::Period => "BENCH_PERIOD",
                Kind::Snapshot => "BENCH_SNAPSHOT",
                Kind::TimeBase => "BENCH_TIME_BASE",
                Kind::Ack => "BENCH_ACK",
                Kind::Capabilities => "BENCH_CAPABILITIES",
            };
            values.push((name, u64::from(code)));
        }
    }
    let (hello, press, period) = (hello_layout().base, press_layout().base, period_layout().base);
    values.extend(decoded_codes(&[press, hello], OFFSET_SIDE, |record| {
        Some(match record.body {
            Body::Press(press) => match press.button {
                Button::White => "BENCH_WHITE",
                Button::Black => "BENCH_BLACK",
                Button::Pause => "BENCH_PAUSE_BUTTON",
            },
            _ => "BENCH_NO_SIDE",
        })
    }));
    values.extend(decoded_codes(&[press], 16, |record| {
        Some(match record.body {
            Body::Press(press) => match press.result {
                PressResult::Accepted => "BENCH_RESULT_ACCEPTED",
                PressResult::NotRunning => "BENCH_RESULT_NOT_RUNNING",
                PressResult::NotStarted => "BENCH_RESULT_NOT_STARTED",
                PressResult::Paused => "BENCH_RESULT_PAUSED",
                PressResult::Finished => "BENCH_RESULT_FINISHED",
                PressResult::Other => "BENCH_RESULT_OTHER",
                PressResult::NotApplied => "BENCH_RESULT_NOT_APPLIED",
            },
            _ => unreachable!(),
        })
    }));
    values.extend(decoded_codes(&[period], 24, |record| {
        Some(match record.body {
            Body::Period(period) => match period.cause {
                PeriodCause::MovesCompleted => "BENCH_CAUSE_MOVES_COMPLETED",
                PeriodCause::FlagOpenedNext => "BENCH_CAUSE_FLAG_OPENED_NEXT",
                PeriodCause::OvertimeBegins => "BENCH_CAUSE_OVERTIME_BEGINS",
                PeriodCause::PeriodLost => "BENCH_CAUSE_PERIOD_LOST",
            },
            _ => unreachable!(),
        })
    }));
    values
}

/// The phases, Ack commands and statuses, and the flag bits, by their codes.
fn field_enum_values() -> Vec<(&'static str, u64)> {
    let mut values = Vec::new();
    let (snapshot, ack) = (snapshot_layout().base, ack_layout().base);
    // A phase is valid with or without a side, depending on the phase.
    let with_side = record(Body::Snapshot(Snapshot { side: Some(Side::White), ..SNAPSHOT }));
    values.extend(decoded_codes(&[snapshot, with_side], 46, |record| {
        Some(match record.body {
            Body::Snapshot(snapshot) => match snapshot.phase {
                Phase::NotStarted => "BENCH_PHASE_NOT_STARTED",
                Phase::Running => "BENCH_PHASE_RUNNING",
                Phase::Paused => "BENCH_PHASE_PAUSED",
                Phase::Finished => "BENCH_PHASE_FINISHED",
            },
            _ => unreachable!(),
        })
    }));
    values.extend(decoded_codes(&[ack], 16, |record| {
        Some(match record.body {
            Body::Ack(ack) => match ack.command {
                CommandCode::Unknown => "BENCH_COMMAND_UNKNOWN",
                CommandCode::TimeControl => "BENCH_COMMAND_TC",
                CommandCode::Start => "BENCH_COMMAND_START",
                CommandCode::Reset => "BENCH_COMMAND_RESET",
                CommandCode::Pause => "BENCH_COMMAND_PAUSE",
                CommandCode::Resume => "BENCH_COMMAND_RESUME",
                CommandCode::SetTime => "BENCH_COMMAND_SET_TIME",
                CommandCode::AdjustTime => "BENCH_COMMAND_ADJUST_TIME",
                CommandCode::SetMoves => "BENCH_COMMAND_SET_MOVES",
                CommandCode::Replace => "BENCH_COMMAND_REPLACE",
            },
            _ => unreachable!(),
        })
    }));
    values.extend(decoded_codes(&[ack], 17, |record| {
        Some(match record.body {
            Body::Ack(ack) => match ack.status {
                AckStatus::Ok => "BENCH_STATUS_OK",
                AckStatus::UnknownCommand => "BENCH_STATUS_UNKNOWN_COMMAND",
                AckStatus::LineTooLong => "BENCH_STATUS_LINE_TOO_LONG",
                AckStatus::BadTimeControl => "BENCH_STATUS_BAD_TIME_CONTROL",
                AckStatus::NotAllowed => "BENCH_STATUS_NOT_ALLOWED",
                AckStatus::BadArgument => "BENCH_STATUS_BAD_ARGUMENT",
                AckStatus::Unsupported => "BENCH_STATUS_UNSUPPORTED",
            },
            _ => unreachable!(),
        })
    }));
    // The flag bytes: each bit the decoder accepts alone, named by what it sets.
    values.extend(decoded_codes(&[snapshot], 47, |record| {
        Some(match record.body {
            Body::Snapshot(Snapshot { flag_white: true, flag_black: false, .. }) => "BENCH_SNAPSHOT_FLAG_WHITE",
            Body::Snapshot(Snapshot { flag_white: false, flag_black: true, .. }) => "BENCH_SNAPSHOT_FLAG_BLACK",
            // No flag or both: no name of its own.
            _ => return None,
        })
    }));
    values.extend(decoded_codes(&[capabilities_layout().base], 24, |record| {
        Some(match record.body {
            Body::Capabilities(Capabilities { shows_flag_order: true, .. }) => "BENCH_FLAG_ORDER_SHOWN",
            _ => "BENCH_FLAG_ORDER_NOT_SHOWN",
        })
    }));
    values.extend(decoded_codes(&[time_base_layout().base], 28, |record| {
        Some(match record.body {
            Body::TimeBase(TimeBase { edge: true, .. }) => "BENCH_TIME_BASE_EDGE",
            _ => return None,
        })
    }));
    values
}

fn add_constants(checks: &mut Checks) {
    let mut constants: Vec<(&str, u64)> = vec![
        ("BENCH_CONTRACT_VERSION", CONTRACT_VERSION.into()),
        ("BENCH_CONTRACT_VERSION_CAPABILITIES", CONTRACT_VERSION_CAPABILITIES.into()),
        ("BENCH_CONTRACT_VERSION_MIN", CONTRACT_VERSION_MIN.into()),
        ("BENCH_RECORD_SIZE", RECORD_SIZE as u64),
        ("BENCH_UP_BUFFER_MIN", UP_BUFFER_MIN as u64),
        ("BENCH_DOWN_BUFFER_MIN", DOWN_BUFFER_MIN as u64),
        ("BENCH_COMMAND_LINE_MAX", COMMAND_LINE_MAX as u64),
        ("BENCH_OFFSET_KIND", OFFSET_KIND as u64),
        ("BENCH_OFFSET_SIDE", OFFSET_SIDE as u64),
        ("BENCH_OFFSET_DROPPED", OFFSET_DROPPED as u64),
        ("BENCH_OFFSET_SEQ", OFFSET_SEQ as u64),
        ("BENCH_OFFSET_AT_US", OFFSET_AT_US as u64),
        ("BENCH_OFFSET_PAYLOAD", OFFSET_PAYLOAD as u64),
        ("BENCH_BUTTON_WHITE", BUTTON_WHITE.into()),
        ("BENCH_BUTTON_BLACK", BUTTON_BLACK.into()),
        ("BENCH_BUTTON_PAUSE", BUTTON_PAUSE.into()),
        ("BENCH_BUTTONS_PLAYERS", BUTTONS_PLAYERS.into()),
        ("BENCH_BUTTONS_PAUSE", BUTTONS_PAUSE.into()),
        ("BENCH_RTT_ID_SIZE", rtt::ID.len() as u64),
        ("BENCH_RTT_OFFSET_MAX_UP", rtt::OFFSET_MAX_UP as u64),
        ("BENCH_RTT_OFFSET_MAX_DOWN", rtt::OFFSET_MAX_DOWN as u64),
        ("BENCH_RTT_OFFSET_DESCRIPTORS", rtt::OFFSET_DESCRIPTORS as u64),
        ("BENCH_RTT_DESCRIPTOR_SIZE", rtt::DESCRIPTOR_SIZE as u64),
        ("BENCH_RTT_DESCRIPTOR_NAME", rtt::DESCRIPTOR_NAME as u64),
        ("BENCH_RTT_DESCRIPTOR_BUFFER", rtt::DESCRIPTOR_BUFFER as u64),
        ("BENCH_RTT_DESCRIPTOR_SIZE_FIELD", rtt::DESCRIPTOR_SIZE_FIELD as u64),
        ("BENCH_RTT_DESCRIPTOR_WRITE", rtt::DESCRIPTOR_WRITE as u64),
        ("BENCH_RTT_DESCRIPTOR_READ", rtt::DESCRIPTOR_READ as u64),
        ("BENCH_RTT_DESCRIPTOR_FLAGS", rtt::DESCRIPTOR_FLAGS as u64),
        ("BENCH_RTT_MODE_MASK", rtt::MODE_MASK.into()),
        ("BENCH_RTT_MODE_NO_BLOCK_SKIP", rtt::MODE_NO_BLOCK_SKIP.into()),
        ("BENCH_RTT_MODE_NO_BLOCK_TRIM", rtt::MODE_NO_BLOCK_TRIM.into()),
        ("BENCH_RTT_MODE_BLOCK_IF_FULL", rtt::MODE_BLOCK_IF_FULL.into()),
        ("BENCH_RTT_CHANNELS_MAX", rtt::CHANNELS_MAX.into()),
        ("BENCH_COMMAND_TEXT_TC_LEN", command_line(&Command::TimeControl("")).len() as u64),
        ("BENCH_CONTROL_PLAIN", CONTROL_PLAIN.into()),
        ("BENCH_CONTROL_INCREMENT", CONTROL_INCREMENT.into()),
        ("BENCH_CONTROL_DELAY", CONTROL_DELAY.into()),
        ("BENCH_CONTROL_BRONSTEIN", CONTROL_BRONSTEIN.into()),
        ("BENCH_CONTROL_STAGES", CONTROL_STAGES.into()),
        ("BENCH_CONTROL_HOURGLASS", CONTROL_HOURGLASS.into()),
        ("BENCH_CONTROL_BYO_YOMI", CONTROL_BYO_YOMI.into()),
        ("BENCH_CONTROL_CANADIAN", CONTROL_CANADIAN.into()),
        ("BENCH_CONTROLS_ALL", CONTROLS_ALL.into()),
        ("BENCH_ARBITER_PAUSE", ARBITER_PAUSE.into()),
        ("BENCH_ARBITER_SET_TIME", ARBITER_SET_TIME.into()),
        ("BENCH_ARBITER_ADJUST_TIME", ARBITER_ADJUST_TIME.into()),
        ("BENCH_ARBITER_SET_MOVES", ARBITER_SET_MOVES.into()),
        ("BENCH_ARBITER_REPLACE", ARBITER_REPLACE.into()),
        ("BENCH_ARBITER_ALL", ARBITER_ALL.into()),
    ];
    for (c_macro, word) in arbiter_words() {
        constants.push((c_macro, word.len() as u64));
    }
    // The side letters, as the crate writes a White and a Black command.
    let set_time = |side| command_line(&Command::SetTime { side, time_us: 0 });
    let word_len = arbiter_words()[0].1.len();
    constants.push(("BENCH_ARGUMENT_WHITE", set_time(Side::White)[word_len].into()));
    constants.push(("BENCH_ARGUMENT_BLACK", set_time(Side::Black)[word_len].into()));
    for (c_macro, value) in constants {
        checks.constant(c_macro, value);
    }
    for (c_macro, word) in arbiter_words() {
        checks.string(c_macro.strip_suffix("_LEN").expect("a _LEN macro"), &word, false);
    }
    checks.string("BENCH_UP_CHANNEL", UP_CHANNEL.as_bytes(), false);
    checks.string("BENCH_DOWN_CHANNEL", DOWN_CHANNEL.as_bytes(), false);
    checks.string("BENCH_RTT_SYMBOL", rtt::CONTROL_BLOCK_SYMBOL.as_bytes(), false);
    checks.string("BENCH_RTT_ID", &rtt::ID, true);
    for (c_macro, command) in [
        ("BENCH_COMMAND_TEXT_TC", Command::TimeControl("")),
        ("BENCH_COMMAND_TEXT_START", Command::Start),
        ("BENCH_COMMAND_TEXT_RESET", Command::Reset),
        ("BENCH_COMMAND_TEXT_PAUSE", Command::Pause),
        ("BENCH_COMMAND_TEXT_RESUME", Command::Resume),
    ] {
        checks.string(c_macro, &command_line(&command), false);
    }
}

/// Each arbiter command's word and its space (`set `), as the crate writes
/// it: what a White and a Black line of the command have in common, keyed
/// by the header's length macro; `replace`'s, which names both sides, up to
/// its first space.
fn arbiter_words() -> [(&'static str, Vec<u8>); 4] {
    let word = |white: Command<'_>, black: Command<'_>| {
        let (white, black) = (command_line(&white), command_line(&black));
        white.iter().zip(&black).take_while(|(a, b)| a == b).map(|(a, _)| *a).collect::<Vec<u8>>()
    };
    let (white, black) = (Side::White, Side::Black);
    [
        (
            "BENCH_COMMAND_TEXT_SET_TIME_LEN",
            word(Command::SetTime { side: white, time_us: 0 }, Command::SetTime { side: black, time_us: 1 }),
        ),
        (
            "BENCH_COMMAND_TEXT_ADJUST_TIME_LEN",
            word(
                Command::AdjustTime { side: white, adjustment: Adjustment::Add(0) },
                Command::AdjustTime { side: black, adjustment: Adjustment::Subtract(1) },
            ),
        ),
        (
            "BENCH_COMMAND_TEXT_SET_MOVES_LEN",
            word(Command::SetMoves { side: white, moves: 0 }, Command::SetMoves { side: black, moves: 1 }),
        ),
        ("BENCH_COMMAND_TEXT_REPLACE_LEN", {
            let line = command_line(&Command::Replace { white: ReplaceSide::default(), black: ReplaceSide::default() });
            let space = line.iter().position(|&byte| byte == b' ').expect("a word and its arguments");
            line[..=space].to_vec()
        }),
    ]
}

/// The command's line as the crate writes it, without its `\n`.
fn command_line(command: &Command<'_>) -> Vec<u8> {
    let mut out = [0; COMMAND_LINE_MAX + 1];
    let len = command.encode(&mut out).expect("the command fits a line");
    out[..len - 1].to_vec()
}

/// The header byte the crate writes for an Ack about `side` (none: 0xFF).
fn side_byte(side: Option<Side>) -> u8 {
    let ack = Ack {
        command: CommandCode::SetTime,
        status: AckStatus::Ok,
        error_position: 0,
        commands: 0,
        initial_us: 0,
        final_period: 0,
        side,
    };
    record(Body::Ack(ack)).encode()[OFFSET_SIDE]
}

/// A C string literal of `bytes`, every byte escaped.
fn c_literal(bytes: &[u8]) -> String {
    let escaped: String = bytes.iter().map(|byte| format!("\\{byte:03o}")).collect();
    format!("\"{escaped}\"")
}

/// What `print_parse` prints for a line, as the crate reads it:
/// command,status,error_position,side,subtract,number,text (hex), then
/// `replace`'s numbers per side (zero for any other line).
fn parsed(line: &[u8]) -> String {
    let (code, status, position) = match Command::parse(line) {
        Ok(command) => (command.code(), AckStatus::Ok, 0),
        Err(error) => (error.command, error.status, error.position),
    };
    let (side, subtract, number, text) = match Command::parse(line) {
        Ok(Command::TimeControl(text)) => (None, false, 0, text.as_bytes()),
        Ok(Command::SetTime { side, time_us }) => (Some(side), false, time_us, &b""[..]),
        Ok(Command::AdjustTime { side, adjustment: Adjustment::Add(amount_us) }) => {
            (Some(side), false, amount_us, &b""[..])
        }
        Ok(Command::AdjustTime { side, adjustment: Adjustment::Subtract(amount_us) }) => {
            (Some(side), true, amount_us, &b""[..])
        }
        Ok(Command::SetMoves { side, moves }) => (Some(side), false, u64::from(moves), &b""[..]),
        Ok(_) | Err(_) => (None, false, 0, &b""[..]),
    };
    let (code, status, side, subtract) = (code as u8, status as u8, side_byte(side), u8::from(subtract));
    let replaced = match Command::parse(line) {
        Ok(Command::Replace { white, black }) => [white, black],
        _ => [ReplaceSide::default(); 2],
    };
    let replaced: String = replaced
        .iter()
        .map(|side| format!(",{}/{}/{}/{}", side.main_us, side.moves, side.period, side.period_moves))
        .collect();
    format!("{code},{status},{position},{side},{subtract},{number},{}{replaced}", hex(text))
}

/// `bench_command_parse` answers as `Command::parse` does: the command, the
/// status, the error position and the arguments (the crate's extra UTF-8
/// check of the time-control text aside, which the header documents).
fn add_parse_cases(checks: &mut Checks) {
    let longest = format!("tc {}", "9".repeat(COMMAND_LINE_MAX - 3));
    let mut lines: Vec<String> = [
        "tc 40/5400+30:1800+30",
        "tc 300+2\r",
        "tc ",
        "tc",
        "start",
        "start\r",
        "start ",
        "START",
        "starts",
        "reset",
        "pause",
        "resume",
        "resume\r",
        "stop",
        "",
        "\r",
        // Contract 3: the arbiter's commands, good and bad.
        "set w 300000000",
        "set b 0\r",
        "adjust b +60000000",
        "adjust w -1",
        "adjust b -0",
        "moves w 40",
        "moves b 040",
        "moves b 4294967295",
        "set w 18446744073709551615",
        "set w 18446744073709551616",
        "set x 1",
        "set W 1",
        "set w",
        "set w  1",
        "set w 1s",
        "set w ",
        "set w -1",
        "adjust w 5",
        "adjust w +",
        "adjust w +5 ",
        "moves b 4294967296",
        "moves b -1",
        "set",
        "set ",
        "sets w 1",
        "adjust",
        "moves\r",
        // 6.11: the arbiter replaces the clock.
        "replace w 281000000 12 0 0 b 300000000 11 2 7",
        "replace w 0 0 0 0 b 18446744073709551615 4294967295 4294967295 4294967295\r",
        "replace b 1 2 3 4 w 1 2 3 4",
        "replace w1 2 3 4 b 1 2 3 4",
        "replace w 1 2 3 b 1 2 3 4",
        "replace w 1 2 3 4 b 1 2 3 4 5",
        "replace w 1 2 3 4 b 1 2 3 4 ",
        "replace w 1 2  3 4 b 1 2 3 4",
        "replace w 1 2 3 4 b 1 2 3 x",
        "replace w 1 4294967296 3 4 b 1 2 3 4",
        "replace w 1 2 3 4 b 1 2 4294967296 4",
        "replace w 18446744073709551616 0 0 0 b 1 2 3 4",
        "replace w 1 2 3 4",
        "replace w ",
        "replace ",
        "replace",
        "replaces w 1 2 3 4 b 1 2 3 4",
    ]
    .map(str::to_string)
    .to_vec();
    lines.extend([format!("{longest}\r"), format!("{longest}9"), "x".repeat(COMMAND_LINE_MAX + 1)]);
    lines.push(format!("set w {}", "9".repeat(COMMAND_LINE_MAX - 6)));
    lines.push(format!("set w {}", "9".repeat(COMMAND_LINE_MAX - 5)));
    for line in &lines {
        let key = format!("bench_command_parse({line:?})");
        let literal = c_literal(line.as_bytes());
        checks.prints.push(format!("    print_parse({key:?}, {literal}, {});", line.len()));
        checks.expected.insert(key, parsed(line.as_bytes()));
    }
}

/// `bench_command_arguments` agrees with the crate's argument parser (read
/// through `Command::parse` of `set` for unsigned arguments, `adjust` for
/// signed ones) on good and bad arguments: the side, sign and number, or
/// the position of the first wrong byte.
fn add_argument_cases(checks: &mut Checks) {
    let arguments = [
        "w 1",
        "b 0",
        "w 0001",
        "w +5",
        "b -18446744073709551615",
        "b 18446744073709551615",
        "w",
        "",
        "x 1",
        "W 1",
        "w1",
        "w  1",
        "w +",
        "w -",
        "w +-1",
        "w 5",
        "w -5",
        "w 1s",
        "w 1 ",
        "w 18446744073709551616",
        "w 99999999999999999999",
        "b +18446744073709551616",
        "b 1.5",
        "\r",
    ];
    for text in arguments {
        for (signed, word) in [(false, "set "), (true, "adjust ")] {
            let expected = match Command::parse(format!("{word}{text}").as_bytes()) {
                Ok(Command::SetTime { side, time_us }) => format!("-1,{},0,{time_us}", side_byte(Some(side))),
                Ok(Command::AdjustTime { side, adjustment }) => {
                    let (subtract, amount_us) = match adjustment {
                        Adjustment::Add(amount_us) => (0, amount_us),
                        Adjustment::Subtract(amount_us) => (1, amount_us),
                    };
                    format!("-1,{},{subtract},{amount_us}", side_byte(Some(side)))
                }
                Err(error) if error.status == AckStatus::BadArgument => error.position.to_string(),
                other => panic!("{word}{text:?}: the crate answers {other:?}, not an arbiter command"),
            };
            let key = format!("bench_command_arguments({text:?}, signed {signed})");
            let literal = c_literal(text.as_bytes());
            checks.prints.push(format!(
                "    print_arguments({key:?}, {literal}, {}, {});",
                text.len(),
                u8::from(signed)
            ));
            checks.expected.insert(key, expected);
        }
    }
}

fn c_program(checks: &Checks) -> String {
    format!(
        r#"#include <stdio.h>
#include "bench_contract.h"

static void print(const char *key, unsigned long long value) {{ printf("%s=%llu\n", key, value); }}

static void print_bytes(const char *key, const char *bytes, size_t len)
{{
    size_t i;
    printf("%s=", key);
    for (i = 0; i < len; i++) printf("%02x", (unsigned)(unsigned char)bytes[i]);
    printf("\n");
}}

static void print_parse(const char *key, const char *line, size_t len)
{{
    bench_command_line parsed;
    size_t i;
    uint8_t status = bench_command_parse(line, len, &parsed);
    if (status != parsed.status) {{
        printf("%s=returned %u, status %u\n", key, (unsigned)status, (unsigned)parsed.status);
        return;
    }}
    printf("%s=%u,%u,%u,%u,%u,%llu,", key, (unsigned)parsed.command, (unsigned)parsed.status,
           (unsigned)parsed.error_position, (unsigned)parsed.side, (unsigned)parsed.subtract,
           (unsigned long long)parsed.number);
    for (i = 0; i < parsed.text_len; i++) printf("%02x", (unsigned)(unsigned char)parsed.text[i]);
    for (i = 0; i < 2; i++) {{
        printf(",%llu/%lu/%lu/%lu", (unsigned long long)parsed.replace[i].main_us,
               (unsigned long)parsed.replace[i].moves, (unsigned long)parsed.replace[i].period,
               (unsigned long)parsed.replace[i].period_moves);
    }}
    printf("\n");
}}

static void print_arguments(const char *key, const char *text, size_t len, int is_signed)
{{
    uint8_t side = 0xEE, subtract = 0xEE;
    uint64_t number = 0xEEEE;
    int position = bench_command_arguments(text, len, is_signed, &side, &subtract, &number);
    if (position == BENCH_ARGUMENTS_OK) {{
        printf("%s=%d,%u,%u,%llu\n", key, position, (unsigned)side, (unsigned)subtract, (unsigned long long)number);
    }} else {{
        printf("%s=%d\n", key, position);
    }}
}}

int main(void)
{{
{}
    return 0;
}}
"#,
        checks.prints.join("\n")
    )
}

/// Static assertions of every number the host printed, for the target, and
/// the RTT structs (pointers are 4 bytes there, 8 on the host).
fn target_program(checks: &Checks, printed: &BTreeMap<String, String>) -> String {
    let mut source = String::from("#include \"bench_contract.h\"\n");
    for (key, expr) in &checks.numbers {
        source.push_str(&format!("BENCH_STATIC_ASSERT(({expr}) == {}u, {key:?});\n", printed[key]));
    }
    let rtt_items = [
        ("sizeof(bench_rtt_descriptor)", rtt::DESCRIPTOR_SIZE),
        ("offsetof(bench_rtt_descriptor, name)", rtt::DESCRIPTOR_NAME),
        ("offsetof(bench_rtt_descriptor, buffer)", rtt::DESCRIPTOR_BUFFER),
        ("offsetof(bench_rtt_descriptor, size)", rtt::DESCRIPTOR_SIZE_FIELD),
        ("offsetof(bench_rtt_descriptor, write)", rtt::DESCRIPTOR_WRITE),
        ("offsetof(bench_rtt_descriptor, read)", rtt::DESCRIPTOR_READ),
        ("offsetof(bench_rtt_descriptor, flags)", rtt::DESCRIPTOR_FLAGS),
        ("sizeof(((bench_rtt_control_block *)0)->id)", rtt::ID.len()),
        ("offsetof(bench_rtt_control_block, max_up)", rtt::OFFSET_MAX_UP),
        ("offsetof(bench_rtt_control_block, max_down)", rtt::OFFSET_MAX_DOWN),
        ("offsetof(bench_rtt_control_block, up)", rtt::OFFSET_DESCRIPTORS),
        ("offsetof(bench_rtt_control_block, down)", rtt::down_descriptor_offset(1, 0)),
    ];
    for (expr, value) in rtt_items {
        source.push_str(&format!("BENCH_STATIC_ASSERT(({expr}) == {value}u, {expr:?});\n"));
    }
    source
}

fn run(program: &str, args: &[&str], package: &str) -> Output {
    match Process::new(program).args(args).output() {
        Ok(output) => output,
        // Never skipped: scripts/install-deps installs both compilers.
        Err(error) => {
            panic!("`{program}` cannot run ({error}): install the Debian package {package} (scripts/install-deps)")
        }
    }
}

fn compile(program: &str, args: &[&str], package: &str, source: &str) {
    let output = run(program, args, package);
    assert!(
        output.status.success(),
        "bench_contract.h disagrees with the crate, or does not compile (`{program} {}`):\n{}\n--- source ---\n{source}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_c_header_says_what_the_crate_says() {
    let mut checks = Checks::default();
    add_constants(&mut checks);
    add_enums(&mut checks);
    add_layouts(&mut checks);
    add_parse_cases(&mut checks);
    add_argument_cases(&mut checks);

    let dir = std::env::temp_dir().join(format!("bench-contract-c-header-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let include = format!("-I{}", include_dir().display());
    let host_c = dir.join("print.c");
    let host_exe = dir.join("print");
    let source = c_program(&checks);
    std::fs::write(&host_c, &source).expect("write the C program");
    let host_args = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", &include];
    let mut args: Vec<&str> = host_args.to_vec();
    let (host_c_arg, host_exe_arg) = (host_c.display().to_string(), host_exe.display().to_string());
    args.extend([host_c_arg.as_str(), "-o", host_exe_arg.as_str()]);
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    compile(&compiler, &args, "gcc", &source);
    let output = run(&host_exe_arg, &[], "gcc");
    assert!(output.status.success(), "the header's C program failed: {}", String::from_utf8_lossy(&output.stderr));

    let stdout = String::from_utf8(output.stdout).expect("the program prints ASCII");
    let printed: BTreeMap<String, String> = stdout
        .lines()
        .map(|line| {
            let (key, value) = line.rsplit_once('=').expect("key=value lines");
            (key.to_string(), value.to_string())
        })
        .collect();
    assert_eq!(stdout.lines().count(), checks.prints.len(), "one line per item, no key twice:\n{stdout}");

    let mut mismatches = Vec::new();
    for (key, rust) in &checks.expected {
        match printed.get(key) {
            Some(header) if header == rust => {}
            Some(header) => mismatches.push(format!("{key}: the header says {header}, the crate {rust}")),
            None => mismatches.push(format!("{key}: not printed")),
        }
    }
    mismatches.extend(layout_gaps(&printed));
    assert!(mismatches.is_empty(), "bench_contract.h disagrees with the crate:\n  {}", mismatches.join("\n  "));
    // Enough items were compared that a program printing nothing cannot pass.
    assert!(checks.expected.len() > 150, "only {} items compared", checks.expected.len());

    let target = target_program(&checks, &printed);
    let target_c = dir.join("target.c");
    std::fs::write(&target_c, &target).expect("write the target source");
    let target_c_arg = target_c.display().to_string();
    let target_o = dir.join("target.o").display().to_string();
    let warnings = ["-Wall", "-Wextra", "-Wpedantic", "-Werror", "-mcpu=cortex-m3", "-mthumb", &include];
    for (compiler, language) in [("arm-none-eabi-gcc", "-std=c11"), ("arm-none-eabi-g++", "-std=c++11")] {
        let mut args = vec![language];
        if compiler.ends_with("g++") {
            args.extend(["-x", "c++"]);
        }
        args.extend(warnings);
        args.extend(["-c", target_c_arg.as_str(), "-o", target_o.as_str()]);
        compile(compiler, &args, "gcc-arm-none-eabi", &target);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each struct's fields, reserved ones included, cover its bytes exactly:
/// no compiler padding, no overlap, nothing past the end; and reserved bytes
/// are bytes the encoder never writes.
fn layout_gaps(printed: &BTreeMap<String, String>) -> Vec<String> {
    let number = |key: &str| printed.get(key).and_then(|value| value.parse::<usize>().ok());
    let mut problems = Vec::new();
    for layout in layouts() {
        let c_struct = layout.c_struct;
        let mut next = 0;
        let mut written = BTreeSet::new();
        for (_, changed) in layout.fields.iter() {
            if let Some(changed) = changed {
                let (offset, width) = span(&layout.base, changed);
                written.extend(offset..offset + width);
            }
        }
        let mut fields: Vec<(usize, usize, &str, bool)> = Vec::new();
        for (field, changed) in &layout.fields {
            match (number(&offset_key(c_struct, field)), number(&size_key(c_struct, field))) {
                (Some(offset), Some(size)) => fields.push((offset, size, field, changed.is_none())),
                _ => problems.push(format!("{c_struct}.{field}: offset or size not printed")),
            }
        }
        fields.sort();
        for (offset, size, field, reserved) in fields {
            if offset != next {
                problems.push(format!("{c_struct}.{field}: at {offset}, but the previous field ends at {next}"));
            }
            if reserved
                && field != "h"
                && field != "kind"
                && (offset..offset + size).any(|byte| written.contains(&byte))
            {
                problems.push(format!(
                    "{c_struct}.{field}: reserved, but the encoder writes bytes {offset}..{}",
                    offset + size
                ));
            }
            next = offset + size;
        }
        if next != layout.size {
            problems.push(format!("{c_struct}: its fields end at {next}, the record at {}", layout.size));
        }
    }
    problems
}

/// The example of `CONTRACT.md`'s section "Using the contract from C or
/// C++" builds for the target against the
/// header (with declarations of the two functions it takes from elsewhere).
#[test]
fn the_documented_c_example_compiles() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../CONTRACT.md");
    let text = std::fs::read_to_string(&path).expect("CONTRACT.md is readable");
    const HEADING: &str = "Using the contract from C or C++\n";
    let section = text.split(HEADING).nth(1).expect("CONTRACT.md has a section \"Using the contract from C or C++\"");
    let example = section
        .split("```c\n")
        .nth(1)
        .and_then(|block| block.split("```").next())
        .expect("the section has a ```c block");
    let source = format!(
        "#include <stdint.h>\nunsigned SEGGER_RTT_Write(unsigned, const void *, unsigned);\nuint64_t now_us(void);\n{example}"
    );
    let dir = std::env::temp_dir().join(format!("bench-contract-c-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let file = dir.join("example.c");
    std::fs::write(&file, &source).expect("write the example");
    let include = format!("-I{}", include_dir().display());
    let (file_arg, object) = (file.display().to_string(), dir.join("example.o").display().to_string());
    let args = [
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Wpedantic",
        "-Werror",
        // The example's functions are not called from anywhere.
        "-Wno-unused-function",
        "-mcpu=cortex-m3",
        "-mthumb",
        &include,
        "-c",
        &file_arg,
        "-o",
        &object,
    ];
    compile("arm-none-eabi-gcc", &args, "gcc-arm-none-eabi", &source);
    let _ = std::fs::remove_dir_all(&dir);
}
