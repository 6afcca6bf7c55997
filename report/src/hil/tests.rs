use std::path::Path;
use std::time::Duration;

use bench_contract::{Ack, AckStatus, Body, Button, CommandCode, Press, PressResult, Record, Snapshot, TimeBase};
use bench_hil::judge::drift::FitOptions;
use bench_hil::schedule;
use bench_hil::session::{AckShape, LineAck, RunError, Waited};
use bench_sim::scenario::Scenario;

use super::*;
use crate::files::{DRIFT_PNG, DRIFT_SVG, INDEX_HTML, JUNIT_XML, LATENCY_PNG, LATENCY_SVG, REPORT_JSON, SUMMARY_MD};
use crate::replays::ReplayText;
use crate::schema;
use crate::sha256_hex;
use crate::testing::TempDir;

const SCENARIO: &str = r#"
description = "HIL report test: 60 + 1"
control = "60+1"
games = 1
seed = 2

[players]
think = { distribution = "uniform", min_ms = 500, max_ms = 3000 }
"#;

fn scenario() -> Scenario {
    Scenario::parse(SCENARIO, Path::new("scenarios/hil-report-test.toml")).expect("parses")
}

fn hello() -> Hello {
    Hello {
        contract_version: 1,
        record_size: 48,
        tick_us: 1_000,
        hw_counter_hz: 1,
        hw_counter_bits: 32,
        buttons: bench_contract::BUTTONS_PAUSE,
        debounce_us: 20_000,
        firmware_version: 3,
        firmware_name: *b"benchref",
    }
}

/// `60+1` started at 1 s; White presses at 3.5 s (58.5 s left) with
/// the display it reports; TimeBase edges every second, the firmware
/// clock running `ppm` off.
fn records(white_after_press_us: u64, ppm: f64) -> Vec<Record> {
    let ack = |command| {
        Body::Ack(Ack {
            command,
            status: AckStatus::Ok,
            error_position: 0,
            commands: 1,
            initial_us: 0,
            final_period: 0,
            side: None,
        })
    };
    let snapshot = |side, white, black, moves_white| {
        Body::Snapshot(Snapshot {
            phase: bench_contract::Phase::Running,
            side: Some(side),
            remaining_white_us: white,
            remaining_black_us: black,
            moves_white,
            moves_black: 0,
            delay_us: 0,
            period_white: 0,
            period_black: 0,
            flag_white: false,
            flag_black: false,
        })
    };
    let press = Body::Press(Press {
        button: Button::White,
        result: PressResult::Accepted,
        bounces: 0,
        moves: 1,
        remaining_us: white_after_press_us,
        handled_at_us: 3_500_012,
        edge_hw_counter: 0,
    });
    let mut bodies = vec![
        (900_000, ack(CommandCode::TimeControl)),
        (1_000_000, ack(CommandCode::Start)),
        (1_000_000, snapshot(bench_contract::Side::White, 60_000_000, 60_000_000, 0)),
        (3_500_000, press),
        (3_500_000, snapshot(bench_contract::Side::Black, white_after_press_us, 60_000_000, 1)),
    ];
    for second in 1..=8u64 {
        let at = (second as f64 * 1e6 * (1.0 + ppm * 1e-6)) as u64 + 4;
        bodies.push((at, Body::TimeBase(TimeBase { hw_counter: second, ticks: 0, edge: true, dropped_total: 0 })));
    }
    bodies.sort_by_key(|(at, _)| *at);
    bodies.into_iter().enumerate().map(|(seq, (at, body))| Record::new(seq as u32 + 1, 0, at, body)).collect()
}

fn game_run(records: Vec<Record>, error: Option<RunError>) -> GameRun {
    let scenario = scenario();
    let schedule = schedule::schedule(&scenario, 2, 0).expect("a schedule");
    let comparison = bench_hil::judge::compare::compare("60+1", 1_000, &records);
    let samples = drift::accounting_samples(&records, &hello());
    GameRun {
        schedule,
        tick_us: 1_000,
        start_us: Some(1_000_000),
        sent: Vec::new(),
        commands_sent: Vec::new(),
        guest_us: 7_000_000,
        host_elapsed: Duration::from_secs(3),
        error,
        comparison: Some(comparison),
        latency: Percentiles::of(&bench_hil::judge::latency::press_latencies(&records)),
        board_latency: None,
        drift: drift::fit(&samples, &FitOptions::default()),
        stops: Default::default(),
        records,
    }
}

fn write(runs: &[GameRun], error: Option<String>, dir: &Path) -> Report {
    write_acked(runs, error, dir, None)
}

fn write_acked(runs: &[GameRun], error: Option<String>, dir: &Path, acks: Option<&AckCheck>) -> Report {
    let qemu = BoardRunInput {
        probe: None,
        description: "QEMU 7.2.0 lm3s6965evb".into(),
        games: vec![0],
        error: None,
        accounting_drift_ppm: Some(-2.5),
        oscillator: None,
    };
    write_with_acks(runs, error, dir, vec![qemu], acks)
}

fn write_on(runs: &[GameRun], error: Option<String>, dir: &Path, boards: Vec<BoardRunInput>) -> Report {
    write_with_acks(runs, error, dir, boards, None)
}

fn write_with_acks(
    runs: &[GameRun],
    error: Option<String>,
    dir: &Path,
    boards: Vec<BoardRunInput>,
    acks: Option<&AckCheck>,
) -> Report {
    let scenario = scenario();
    let time_bases: Vec<Record> = runs.iter().flat_map(|run| run.records.clone()).collect();
    let samples = drift::accounting_samples(&time_bases, &hello());
    let replays: Vec<ReplayText> = (runs.iter().filter(|run| !run.passed()))
        .map(|run| ReplayText { game: run.schedule.game, toml: format!("game = {}\n", run.schedule.game) })
        .collect();
    let input = HilReportInput {
        board: "qemu",
        board_description: "QEMU 7.2.0 lm3s6965evb (cortex-m3), icount shift=4,sleep=off".into(),
        firmware_file: Path::new("/cache/firmware/normal.elf"),
        firmware_sha256: sha256_hex(b"elf"),
        hello: Some(hello()),
        capabilities: None,
        scenario: &scenario,
        scenario_file: Path::new("scenarios/hil-report-test.toml"),
        scenario_sha256: sha256_hex(SCENARIO.as_bytes()),
        seed: 2,
        games_requested: 1,
        runs,
        drift: drift::fit(&samples, &FitOptions::default()),
        drift_samples: samples,
        drift_tolerance_ppm: 5.0,
        command_line: "bench hil --board qemu --scenario hil-report-test --seed 2 --games 1".into(),
        error,
        boards,
        acks,
        observed: None,
        shard: None,
        replays: &replays,
    };
    let (report, written) = write_hil_report(dir, &input).expect("the report is written");
    let names: Vec<String> =
        written.iter().filter_map(|path| path.file_name()).map(|name| name.to_string_lossy().into_owned()).collect();
    assert_eq!(names, [DRIFT_SVG, DRIFT_PNG, LATENCY_SVG, LATENCY_PNG, JUNIT_XML, SUMMARY_MD, INDEX_HTML, REPORT_JSON]);
    report
}

fn mismatch(quantity: &str, press_index: Option<u64>, model: &str, firmware: &str) -> MismatchInfo {
    MismatchInfo {
        quantity: quantity.into(),
        press_index,
        at_us: 3_500_000,
        seq: Some(7),
        model: model.into(),
        firmware: firmware.into(),
    }
}

fn passing_game(game: u64) -> GameInfo {
    let side = SideInfo {
        moves_white: 20,
        moves_black: 20,
        flags: vec![FlagInfo { side: "White".into(), at_us: 61_000_000, period: 0, sequence: 1 }],
        result: "0-1 (6.9)".into(),
    };
    GameInfo {
        game,
        complete: true,
        passed: true,
        error: None,
        schedule_end: "White's flag falls".into(),
        presses_scheduled: 40,
        presses_sent: 40,
        presses_registered: 40,
        bounce_edges_sent: 9,
        bounces_reported: 7,
        guest_us: 62_000_000,
        start_us: Some(1_000_000),
        records: 180,
        records_lost: 0,
        comparison_error: None,
        model: Some(side.clone()),
        firmware: Some(side),
        result_agrees: true,
        mismatches_total: 0,
        mismatches_by_quantity: BTreeMap::new(),
        largest_difference_us: sample_largest(),
        first_of_each: Vec::new(),
        mismatches: Vec::new(),
        latency: Some(LatencyInfo { count: 40, min_us: 4, p50_us: 6, p90_us: 9, p99_us: 3_000, max_us: 3_000 }),
        replay_file: None,
    }
}

/// The largest differences of a passing game that rounds its displays.
fn sample_largest() -> BTreeMap<String, u64> {
    [("press.remaining_us", 412), ("rounding.accumulated_us", 1_893), ("snapshot.remaining_us.white", 388)]
        .into_iter()
        .map(|(key, value)| (key.to_string(), value))
        .collect()
}

/// A whole, passing report of two games, built as a struct (no board,
/// no emulator): what the gate, page and JUnit tests start from.
pub(crate) fn sample_report() -> Report {
    let check = |name: &str, measured: &str, expected: &str| CheckInfo {
        name: name.into(),
        passed: true,
        measured: measured.into(),
        expected: expected.into(),
    };
    Report {
        schema: SCHEMA.into(),
        bench_version: env!("CARGO_PKG_VERSION").into(),
        complete: true,
        verdict: "pass".into(),
        command: "bench hil --board qemu --scenario blitz-3-2 --seed 12 --games 2".into(),
        board: BoardInfo {
            kind: "qemu".into(),
            description: "QEMU 7.2.0 lm3s6965evb (cortex-m3), icount shift=4,sleep=off".into(),
        },
        firmware: FirmwareInfo {
            file: "/cache/firmware/normal.elf".into(),
            sha256: sha256_hex(b"elf"),
            name: Some("benchref".into()),
            version: Some(3),
            tick_us: Some(1_000),
            debounce_us: Some(20_000),
            hw_counter_hz: Some(1),
            contract_version: Some(3),
            capabilities: Some(CapabilitiesInfo::new(&bench_contract::Capabilities::BEFORE_CONTRACT_3, false)),
        },
        scenario: ScenarioInfo {
            name: "blitz-3-2".into(),
            file: "scenarios/blitz-3-2.toml".into(),
            sha256: sha256_hex(b"scenario"),
            description: "Blitz, 3 min + 2 s".into(),
            control: "180+2".into(),
        },
        seed: 12,
        games: Games { requested: 2, played: 2, complete: 2, passed: 2 },
        checks: vec![
            check(COMPLETE_CHECK, "2 of 2 games", "2 games, every record seen"),
            check(MATCH_CHECK, "0 mismatches in 2 compared games", "0 mismatches, within one firmware tick"),
            check(DRIFT_CHECK, "-0.50 ppm ± 0.10", "an interval that reaches ±5 ppm"),
        ],
        mismatches: MismatchTotals { total: 0, by_quantity: BTreeMap::new(), largest_difference_us: sample_largest() },
        drift: DriftInfo {
            kind: "accounting".into(),
            reference: "the board's free-running hardware counter (1 Hz, 32 bits), in the same TimeBase record".into(),
            measured: true,
            error: None,
            samples: 120,
            used: 118,
            ppm: Some(-0.5),
            ci_low_ppm: Some(-0.6),
            ci_high_ppm: Some(-0.4),
            ci_half_ppm: Some(0.1),
            confidence: Some(0.95),
            residual_sd_us: Some(2.5),
            residual_max_us: Some(7.0),
            span_s: Some(118.0),
            tolerance_ppm: 5.0,
            within_tolerance: true,
            note: None,
        },
        latency: Some(LatencyInfo { count: 80, min_us: 4, p50_us: 6, p90_us: 9, p99_us: 3_000, max_us: 3_000 }),
        latency_histogram: latency_bins(&[vec![4; 39], vec![6; 32], vec![9; 8], vec![3_000]].concat()),
        records: RecordTotals { total: 360, lost: 0 },
        error: None,
        board_latency: None,
        boards: vec![BoardInfoRun {
            probe: None,
            description: "QEMU 7.2.0 lm3s6965evb (cortex-m3), icount shift=4,sleep=off".into(),
            games: vec![0, 1],
            error: None,
            accounting_drift_ppm: Some(-0.5),
            oscillator: None,
        }],
        coverage: Vec::new(),
        contract_acks: None,
        observed: None,
        shard: None,
        games_detail: vec![passing_game(0), passing_game(1)],
        files: BTreeMap::new(),
    }
}

/// A NUCLEO board on the probe with serial `serial`, playing `games`:
/// its cycle counter `ppm` off host time (± 0.12 at 95 %, 16 of 20
/// reads used), probe round trips p50 900 µs and p99 9 ms.
pub(crate) fn probe_board(serial: &str, games: &[u64], ppm: f64) -> BoardInfoRun {
    BoardInfoRun {
        probe: Some(format!("0483:374b:{serial}")),
        description: format!("NUCLEO-F401RE via STLink V2-1 ({serial})"),
        games: games.to_vec(),
        error: None,
        accounting_drift_ppm: Some(0.25),
        oscillator: Some(OscillatorInfo {
            measured: true,
            error: None,
            samples: 20,
            used: 16,
            ppm: Some(ppm),
            ci_low_ppm: Some(ppm - 0.12),
            ci_high_ppm: Some(ppm + 0.12),
            ci_half_ppm: Some(0.12),
            confidence: Some(0.95),
            residual_sd_us: Some(30.0),
            span_s: Some(60.0),
            round_trip_margin_us: Some(100.0),
            round_trip: Some(LatencyInfo {
                count: 20,
                min_us: 800,
                p50_us: 900,
                p90_us: 1_000,
                p99_us: 9_000,
                max_us: 9_000,
            }),
        }),
    }
}

/// [`sample_report`] played on a farm of two probe boards (B plays the
/// even games, off by −40 ppm; A the odd ones, +12 ppm), with press
/// latency measured on the boards.
pub(crate) fn farm_report() -> Report {
    let mut report = sample_report();
    report.board.kind = "stm32".into();
    report.boards = vec![probe_board("B", &[0], -40.0), probe_board("A", &[1], 12.0)];
    report.board_latency = Some(BoardLatencyInfo {
        latency: LatencyInfo { count: 80, min_us: 180, p50_us: 205, p90_us: 230, p99_us: 260, max_us: 300 },
        bracket: LatencyInfo { count: 80, min_us: 380, p50_us: 400, p90_us: 420, p99_us: 450, max_us: 500 },
        unmatched: 1,
    });
    report
}

/// `report` with `count` mismatches in its last game (the first of
/// them a press's remaining time: press 3, model 58.5 s, firmware
/// 58 s), and the checks and verdict that follow.
pub(crate) fn with_mismatches(mut report: Report, count: u64) -> Report {
    let Some(game) = report.games_detail.last_mut() else { return report };
    game.mismatches = (0..count.min(MISMATCHES_LISTED as u64))
        .map(|index| mismatch("press.remaining_us", Some(3 + index), "58.500000 s", "58.000000 s"))
        .collect();
    game.first_of_each = game.mismatches.iter().take(1).cloned().collect();
    game.mismatches_total = count;
    game.mismatches_by_quantity =
        if count > 0 { BTreeMap::from([("press.remaining_us".to_string(), count)]) } else { BTreeMap::new() };
    game.passed = count == 0;
    if count > 0 {
        game.largest_difference_us.insert("press.remaining_us".to_string(), 500_000);
    }
    let by_quantity = game.mismatches_by_quantity.clone();
    let mut largest_difference_us = BTreeMap::new();
    for (key, us) in report.games_detail.iter().flat_map(|game| &game.largest_difference_us) {
        let entry = largest_difference_us.entry(key.clone()).or_insert(0);
        *entry = u64::max(*entry, *us);
    }
    report.mismatches = MismatchTotals { total: count, by_quantity, largest_difference_us };
    report.games.passed = report.games_detail.iter().filter(|game| game.passed).count() as u64;
    if let Some(check) = report.checks.iter_mut().find(|check| check.name == MATCH_CHECK) {
        check.passed = count == 0;
        check.measured = format!("{count} mismatches in 2 compared games");
    }
    report.verdict = if report.checks.iter().all(|check| check.passed) { "pass" } else { "fail" }.into();
    report
}

fn read_json(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join(REPORT_JSON)).expect("read report.json");
    serde_json::from_str(&text).expect("valid json")
}

/// A probe board: board latency over the games and the board's
/// oscillator drift with the probe's round trips, in report.json
/// (validated against the schema as it is written).
#[test]
fn a_probe_board_reports_latency_on_the_board_and_oscillator_drift() {
    let dir = TempDir::new("hil-probe");
    let mut run = game_run(records(58_500_000, 0.0), None);
    let latencies_us = vec![9, 11, 10, 250];
    let brackets_us = vec![400, 380, 420, 410];
    run.board_latency = Some(bench_hil::judge::latency::BoardLatency {
        latency: Percentiles::of(&latencies_us).expect("values"),
        bracket: Percentiles::of(&brackets_us).expect("values"),
        unmatched: 1,
        latencies_us,
        brackets_us,
    });
    let samples: Vec<drift::Sample> = (0..20)
        .map(|i| {
            let host_us = f64::from(i) * 1e5;
            let trip = if i % 5 == 0 { 9_000.0 } else { 900.0 + f64::from(i) };
            drift::Sample { reference_us: host_us, clock_us: host_us * (1.0 - 20e-6), round_trip_us: Some(trip) }
        })
        .collect();
    let oscillator = Oscillator {
        fit: drift::fit(&samples, &FitOptions::default()),
        round_trip: Percentiles::of(
            &samples.iter().filter_map(|s| s.round_trip_us).map(|t| t as u64).collect::<Vec<_>>(),
        ),
        samples,
        round_trip_margin_us: 100.0,
    };
    let board = BoardRunInput {
        probe: Some("0483:374b:066DFF".into()),
        description: "NUCLEO-F401RE via STLink V2-1".into(),
        games: vec![0],
        error: None,
        accounting_drift_ppm: Some(0.3),
        oscillator: Some(oscillator),
    };
    let report = write_on(&[run], None, dir.path(), vec![board]);
    let latency = report.board_latency.expect("board latency");
    assert_eq!(
        (latency.latency.p50_us, latency.latency.max_us, latency.bracket.min_us, latency.unmatched),
        (10, 250, 380, 1)
    );
    let json = read_json(dir.path());
    let oscillator = &json["boards"][0]["oscillator"];
    assert_eq!(json["boards"][0]["probe"], "0483:374b:066DFF");
    assert_eq!((oscillator["samples"].as_u64(), oscillator["used"].as_u64()), (Some(20), Some(16)));
    assert!(oscillator["ppm"].as_f64().is_some_and(|ppm| (ppm + 20.0).abs() < 1e-3), "{oscillator}");
    assert_eq!(oscillator["round_trip"]["max_us"], 9_000);
    assert_eq!(json["board_latency"]["latency"]["p99_us"], 250);
}

/// The table rows of `summary.md` under `## heading`.
fn summary_rows<'a>(summary: &'a str, heading: &str) -> Vec<&'a str> {
    summary
        .lines()
        .skip_while(|line| *line != heading)
        .skip(1)
        .take_while(|line| !line.starts_with("## "))
        .filter(|line| line.starts_with('|'))
        .collect()
}

#[test]
fn the_summary_of_a_farm_has_a_row_per_board_and_the_latency_on_the_boards() {
    let summary = render_summary(&farm_report());
    let rows = summary_rows(&summary, "## Boards");
    assert_eq!(rows.len(), 4, "header, rule, two boards: {summary}");
    assert_eq!(
        rows[2],
        "| 0483:374b:B | NUCLEO-F401RE via STLink V2-1 (B) | 0 | ok | +0.250 ppm | -40.000 ppm ± 0.120 | 16 of 20 \
         | 900 µs / 9 ms |"
    );
    assert!(rows[3].starts_with("| 0483:374b:A |") && rows[3].contains("+12.000 ppm ± 0.120"), "{}", rows[3]);
    assert!(
        summary.contains(
            "Oscillator drift ± half of its 95 % confidence interval. Reads used: probe round trip within the \
             fastest + 100 µs."
        ),
        "{summary}"
    );
    assert!(
        summary.contains("write bracket p50 400 µs, p99 450 µs, max 500 µs; 1 bracketed presses without"),
        "{summary}"
    );
    assert!(summary.contains("; 80 presses): p50 205 µs, p90 230 µs, p99 260 µs, max 300 µs"), "{summary}");
}

#[test]
fn the_summary_marks_a_failed_board_and_keeps_a_hostile_description_in_its_cell() {
    let mut report = farm_report();
    report.boards[1].games = vec![1, 3, 5, 7, 9];
    report.boards[1].error = Some("0483:374b:A: the probe went away; games 3 not played".into());
    report.boards[1].description = "board | with\na pipe".into();
    report.boards[1].oscillator = None;
    let summary = render_summary(&report);
    let rows = summary_rows(&summary, "## Boards");
    assert_eq!(
        rows[3],
        "| 0483:374b:A | board \\| with a pipe | 1, 3, 5, 7, 9 | FAILED: 0483:374b:A: the probe went away; \
         games 3 not played | +0.250 ppm | — | — | — |"
    );
}

#[test]
fn the_summary_of_an_emulated_run_has_no_boards_table_and_no_board_latency() {
    let summary = render_summary(&sample_report());
    assert!(!summary.contains("## Boards") && !summary.contains("on the board"), "{summary}");
}

/// The run's largest differences stand next to the checks, in both human
/// reports, a second and more in seconds.
#[test]
fn the_largest_differences_are_shown_next_to_the_checks() {
    let report = with_mismatches(sample_report(), 2);
    let summary = render_summary(&report);
    let line = "`press.remaining_us` 500.000 ms · `rounding.accumulated_us` 1.893 ms · \
                `snapshot.remaining_us.white` 0.388 ms.";
    assert!(summary.contains(line), "{summary}");
    let mut report = sample_report();
    report.mismatches.largest_difference_us.insert("flag.at_us".to_string(), 1_234_567);
    let html = crate::format::html::render(&super::html::hil_page(&report, "", ""));
    assert!(html.contains("flag.at_us 1.234567 s · press.remaining_us 0.412 ms"), "{html}");
}

#[test]
fn a_matching_game_passes_and_every_file_is_named_with_its_hash() {
    let dir = TempDir::new("hil-pass");
    let report = write(&[game_run(records(58_500_000, 0.0), None)], None, dir.path());
    assert_eq!(report.verdict, "pass", "{:#?}", report.checks);
    let json = read_json(dir.path());
    assert_eq!(json["schema"], SCHEMA);
    assert_eq!(json["complete"], true);
    assert_eq!(json["firmware"]["name"], "benchref");
    assert_eq!(json["firmware"]["sha256"], sha256_hex(b"elf").as_str());
    assert_eq!(json["mismatches"]["total"], 0);
    assert_eq!(json["games_detail"][0]["presses_registered"], 1);
    assert_eq!(json["latency"]["p50_us"], 12);
    assert!(json["drift"]["ppm"].as_f64().is_some_and(|ppm| ppm.abs() < 1.0), "{}", json["drift"]);
    for name in [DRIFT_SVG, DRIFT_PNG, LATENCY_SVG, LATENCY_PNG, JUNIT_XML, SUMMARY_MD, INDEX_HTML] {
        let bytes = std::fs::read(dir.path().join(name)).expect("read");
        assert_eq!(json["files"][name], sha256_hex(&bytes).as_str(), "{name}");
    }
    let summary = std::fs::read_to_string(dir.path().join(SUMMARY_MD)).expect("read");
    assert!(summary.starts_with("# PASS"), "{summary}");
    let svg = std::fs::read_to_string(dir.path().join(DRIFT_SVG)).expect("read");
    assert!(svg.starts_with("<svg") && svg.contains("least-squares fit"));
    assert!(std::fs::read(dir.path().join(DRIFT_PNG)).expect("read").starts_with(b"\x89PNG"));
}

#[test]
fn a_wrong_ack_of_a_refused_line_fails_its_check_and_the_gate() {
    let expected = bench_hil::session::expected_ack(b"stop", 2);
    for (firmware, passed) in [(expected, true), (AckShape { command: CommandCode::TimeControl, ..expected }, false)] {
        let dir = TempDir::new("hil-acks");
        let line = LineAck { line: "stop".into(), expected, firmware: Some(firmware), not_sent: None };
        let acks = AckCheck { lines: vec![line] };
        let report = write_acked(&[game_run(records(58_500_000, 0.0), None)], None, dir.path(), Some(&acks));
        let check = report.checks.iter().find(|check| check.name == ACKS_CHECK).expect("the Ack check");
        assert_eq!(check.passed, passed, "{check:?}");
        assert_eq!(report.verdict, if passed { "pass" } else { "fail" });
        let json = read_json(dir.path());
        assert!(schema::errors(&json).is_empty(), "{:?}", schema::errors(&json));
        assert_eq!(json["contract_acks"][0]["wrong"], !passed);
        // The gate reads the report back: the check agrees with its lines.
        let (gate_passed, text) = crate::gate::apply_defaults(dir.path()).expect("the report loads");
        assert_eq!(gate_passed, passed, "{text}");
    }
}

#[test]
fn the_latency_histogram_holds_every_press_in_the_bin_of_its_latency() {
    let dir = TempDir::new("hil-latency-bins");
    let mut run = game_run(records(58_500_000, 0.0), None);
    // Presses of known latencies, stamped 1 µs after the game's records.
    let last = run.records.last().map_or(0, |record| record.at_us);
    let press = run.records.iter().find_map(|record| match record.body {
        Body::Press(press) => Some(press),
        _ => None,
    });
    let press = press.expect("the fake game has a press");
    for (index, latency_us) in [0u64, 9, 10, 4_999, 5_000, 250_000].into_iter().enumerate() {
        let at_us = last + 1 + index as u64;
        let body = Body::Press(Press { handled_at_us: at_us + latency_us, ..press });
        run.records.push(Record::new(1_000 + index as u32, 0, at_us, body));
    }
    write(&[run], None, dir.path());
    let json = read_json(dir.path());
    let bins = json["latency_histogram"].as_array().expect("bins");
    assert_eq!(bins.len(), bench_hil::judge::latency::LATENCY_BIN_EDGES_US.len());
    let presses = |from_us: u64| {
        let bin = bins.iter().find(|bin| bin["from_us"] == from_us).expect("a bin from there");
        bin["presses"].as_u64().expect("a count")
    };
    // The fake game's own press took 12 µs: with the 10 µs one, two in [10, 20).
    assert_eq!(
        [presses(0), presses(10), presses(2_000), presses(5_000), presses(200_000)],
        [2, 2, 1, 1, 1],
        "{bins:?}"
    );
    let binned: u64 = bins.iter().filter_map(|bin| bin["presses"].as_u64()).sum();
    assert_eq!(binned, json["latency"]["count"].as_u64().expect("a count"));
    assert_eq!(binned, 7);
    assert!(bins.last().is_some_and(|bin| bin["to_us"].is_null()), "the last bin is open-ended");
    let svg = std::fs::read_to_string(dir.path().join(LATENCY_SVG)).expect("read");
    assert!(svg.starts_with("<svg") && svg.contains("7 presses"), "{svg}");
    assert!(std::fs::read(dir.path().join(LATENCY_PNG)).expect("read").starts_with(b"\x89PNG"));
    let index = std::fs::read_to_string(dir.path().join(INDEX_HTML)).expect("read");
    assert!(index.contains("<td>5k–10k</td><td class=\"num\">1</td>"), "the page lists the bins");
}

#[test]
fn a_mismatch_fails_and_names_the_press_the_quantity_and_both_values() {
    let dir = TempDir::new("hil-mismatch");
    let report = write(&[game_run(records(58_000_000, 0.0), None)], None, dir.path());
    assert_eq!(report.verdict, "fail");
    let check = report.checks.iter().find(|check| check.name == MATCH_CHECK).expect("the check");
    assert!(!check.passed);
    let json = read_json(dir.path());
    let first = &json["games_detail"][0]["mismatches"][0];
    assert_eq!(first["quantity"], "press.remaining_us");
    assert_eq!(first["press_index"], 0);
    assert_eq!((first["model"].as_str(), first["firmware"].as_str()), (Some("58.500000 s"), Some("58.000000 s")));
    let summary = std::fs::read_to_string(dir.path().join(SUMMARY_MD)).expect("read");
    assert!(summary.starts_with("# FAIL") && summary.contains("`press.remaining_us`"), "{summary}");
    // The failing game's replay file, named in every view.
    assert_eq!(json["games_detail"][0]["replay_file"], "replays/game-0.replay.toml");
    let replay = std::fs::read_to_string(dir.path().join("replays/game-0.replay.toml")).expect("the replay file");
    assert_eq!(replay, "game = 0\n");
    assert!(summary.contains("game 0: `replays/game-0.replay.toml`"), "{summary}");
    let html = std::fs::read_to_string(dir.path().join(INDEX_HTML)).expect("read");
    assert!(html.contains("<a href=\"replays/game-0.replay.toml\">"), "{html}");
    let junit = std::fs::read_to_string(dir.path().join(JUNIT_XML)).expect("read");
    assert!(junit.contains("replay file: replays/game-0.replay.toml"), "{junit}");
}

/// Every report these tests write is checked against
/// `reports/schema/bench.hil.report-1.json` as it is written; here, a
/// written report that says more, less or other than the schema fails.
#[test]
fn a_hil_report_that_differs_from_its_schema_fails() {
    let dir = TempDir::new("hil-schema");
    write(&[game_run(records(58_000_000, 0.0), None)], None, dir.path());
    let report = read_json(dir.path());
    assert!(schema::errors(&report).is_empty(), "{:?}", schema::errors(&report));
    type Edit = fn(&mut serde_json::Value);
    let edits: Vec<(&str, Edit)> = vec![
        ("a new field", |r| r["latency"]["p95_us"] = 10.into()),
        ("a latency bin more", |r| {
            if let Some(bins) = r["latency_histogram"].as_array_mut() {
                bins.push(serde_json::json!({ "from_us": 400_000, "to_us": null, "presses": 0 }));
            }
        }),
        ("a latency bin of another edge", |r| r["latency_histogram"][3]["from_us"] = 40.into()),
        ("a latency bin counted in halves", |r| r["latency_histogram"][0]["presses"] = 0.5.into()),
        ("a field removed", |r| {
            if let Some(object) = r["games_detail"][0].as_object_mut() {
                object.remove("presses_sent");
            }
        }),
        ("an unknown quantity", |r| r["games_detail"][0]["mismatches"][0]["quantity"] = "press.colour".into()),
        ("a retyped press index", |r| r["games_detail"][0]["mismatches"][0]["press_index"] = "0".into()),
        ("a board with no profile name", |r| r["board"]["kind"] = "".into()),
        ("a drift without a measurement", |r| r["drift"]["measured"] = false.into()),
        ("a check renamed", |r| r["checks"][2]["name"] = "drift".into()),
        ("no ELF hash", |r| r["firmware"]["sha256"] = "".into()),
        ("no index.html", |r| {
            if let Some(files) = r["files"].as_object_mut() {
                files.remove(INDEX_HTML);
            }
        }),
    ];
    for (what, edit) in edits {
        let mut changed = report.clone();
        edit(&mut changed);
        assert!(!schema::errors(&changed).is_empty(), "{what}: accepted");
    }
}

#[test]
fn drift_beyond_tolerance_fails_its_check() {
    let dir = TempDir::new("hil-drift");
    let report = write(&[game_run(records(58_500_000, -80.0), None)], None, dir.path());
    let check = report.checks.iter().find(|check| check.name == DRIFT_CHECK).expect("the check");
    assert!(!check.passed, "{check:?}");
    assert!(check.measured.starts_with("-80."), "{check:?}");
    assert_eq!(report.verdict, "fail");
}

#[test]
fn a_game_ended_by_a_failure_is_marked_incomplete() {
    let dir = TempDir::new("hil-incomplete");
    let error =
        RunError::Silent { waiting_for: "press 3".into(), waited: Waited::GuestUs(10_000_000), last_at_us: Some(3) };
    let report = write(&[game_run(records(58_500_000, 0.0), Some(error))], None, dir.path());
    assert!(!report.complete);
    assert_eq!(report.verdict, "fail");
    let json = read_json(dir.path());
    assert_eq!(json["complete"], false);
    assert!(json["games_detail"][0]["error"].as_str().is_some_and(|error| error.contains("went silent")));
    let summary = std::fs::read_to_string(dir.path().join(SUMMARY_MD)).expect("read");
    assert!(summary.contains("**INCOMPLETE**"), "{summary}");
}

#[test]
fn a_run_that_never_started_still_writes_an_incomplete_report() {
    let dir = TempDir::new("hil-nothing");
    let report = write(&[], Some("qemu-system-arm is not installed: install it".into()), dir.path());
    assert!(!report.complete);
    assert_eq!(report.games.played, 0);
    let summary = std::fs::read_to_string(dir.path().join(SUMMARY_MD)).expect("read");
    assert!(summary.contains("qemu-system-arm is not installed"), "{summary}");
}

/// The page of a HIL report (`index.html`).
mod page {
    use super::*;
    use crate::format::html::render;
    use crate::hil::html::hil_page;

    const HOSTILE: &str = "<script>alert('x')</script> & \"q\" </svg><img src=x onerror=alert(1)> \u{1}";

    fn position(html: &str, needle: &str) -> usize {
        html.find(needle).unwrap_or_else(|| panic!("the page has no `{needle}`"))
    }

    #[test]
    fn a_hil_page_puts_the_verdict_first_then_each_mismatch_with_its_press_and_both_values() {
        let report = with_mismatches(sample_report(), 3);
        let html = render(&hil_page(&report, "<svg id=\"plot\"></svg>", "<svg id=\"histogram\"></svg>"));
        assert!(html.contains("data-verdict=\"fail\"") && html.contains("<h1>FAIL</h1>"), "{html}");
        let verdict = position(&html, "id=\"verdict\"");
        let failures = position(&html, "id=\"failures\"");
        let games = position(&html, "id=\"games\"");
        let drift = position(&html, "id=\"drift\"");
        let latency = position(&html, "id=\"latency\"");
        let facts = position(&html, "id=\"facts\"");
        assert!(verdict < failures && failures < games && games < drift && drift < latency && latency < facts);
        // The first mismatch: press 3, its quantity, both values, in the failures.
        let failure = position(&html, "Game 1: 3 mismatches");
        assert!(failures < failure && failure < games);
        assert!(html
            .contains("press.remaining_us first differs at press 3 (3.5 s): model 58.500000 s, firmware 58.000000 s"));
        assert!(html.contains("<td class=\"num\">3</td><td class=\"num\">3.5 s</td><td>press.remaining_us</td><td>58.500000 s</td><td>58.000000 s</td>"));
        assert!(html.contains("<td class=\"num\">5</td>"), "every listed mismatch, press 5 the last");
        assert!(html
            .contains("<pre class=\"replay\">bench hil --board qemu --scenario blitz-3-2 --seed 12 --games 2</pre>"));
        assert!(html.contains("Check failed: the firmware matches the clock model"));
        // Drift with its interval, latency percentiles, the firmware image's hash.
        assert!(html.contains("-0.500 ppm ± 0.100 (95 % confidence interval -0.600 to -0.400 ppm; tolerance ±5 ppm)"));
        assert!(html.contains("<svg id=\"plot\"></svg>"));
        for cell in ["4 µs", "6 µs", "9 µs", "3 ms", "80"] {
            assert!(html.contains(&format!("<td class=\"num\">{cell}</td>")), "latency {cell}");
        }
        // The histogram, inline in the latency section, and its non-empty bins.
        let histogram = position(&html, "<svg id=\"histogram\"></svg>");
        assert!(latency < histogram && histogram < facts);
        assert!(html.contains("<td>0–10</td><td class=\"num\">79</td>"), "{html}");
        assert!(html.contains("<td>2k–5k</td><td class=\"num\">1</td>"), "{html}");
        assert!(html.contains("href=\"latency.svg\"") && html.contains("href=\"latency.png\""));
        assert!(html.contains(&format!("<code>{}</code>", report.firmware.sha256)), "the whole ELF hash");
        assert!(html.contains(&report.firmware.sha256[..16]), "the hash in the verdict");
    }

    #[test]
    fn a_farm_page_lists_each_board_and_the_latency_measured_on_the_boards() {
        let html = render(&hil_page(&farm_report(), "<svg></svg>", "<svg></svg>"));
        let (games, boards) = (position(&html, "id=\"games\""), position(&html, "id=\"boards\""));
        let (drift, latency) = (position(&html, "id=\"drift\""), position(&html, "id=\"latency\""));
        let facts = position(&html, "id=\"facts\"");
        assert!(games < boards && boards < drift, "the boards follow the games");
        assert!(html.contains("<a href=\"#boards\">Boards</a>"), "the section is in the navigation");
        assert!(html.contains("A farm of 2 boards"));
        let row_b = position(
            &html,
            "<tr><td>0483:374b:B</td><td>NUCLEO-F401RE via STLink V2-1 (B)</td><td>0</td><td>ok</td>\
             <td class=\"num\">+0.250 ppm</td><td class=\"num\">-40.000 ppm ± 0.120</td>\
             <td>16 of 20</td><td>900 µs / 9 ms</td></tr>",
        );
        let row_a = position(&html, "<tr><td>0483:374b:A</td>");
        assert!(boards < row_b && row_b < row_a && row_a < drift, "one row per board, in the report's order");
        assert!(html.contains("<td class=\"num\">+12.000 ppm ± 0.120</td>"));
        assert!(html.contains(
            "Oscillator drift ± half of its 95 % confidence interval. Reads used: probe round trip within the \
             fastest + 100 µs."
        ));
        assert!(!html.contains("<tr class=\"bad\">"), "no board failed");
        // The latency on the boards, in the latency section.
        let on_board = position(&html, "<tr><td>write to edge stamp</td>");
        assert!(latency < on_board && on_board < facts);
        assert!(html.contains(
            "<tr><td>write to edge stamp</td><td class=\"num\">180 µs</td><td class=\"num\">205 µs</td>\
             <td class=\"num\">230 µs</td><td class=\"num\">260 µs</td><td class=\"num\">300 µs</td>\
             <td class=\"num\">80</td></tr>"
        ));
        assert!(html.contains("<tr><td>write bracket</td><td class=\"num\">380 µs</td><td class=\"num\">400 µs</td>"));
        assert!(html.contains("1 bracketed presses without a matching Press record."));
    }

    #[test]
    fn a_failed_board_is_highlighted_with_what_stopped_it() {
        let mut report = farm_report();
        report.boards[0].games = vec![0, 2, 4, 5, 6, 7, 8];
        report.boards[1].error = Some("0483:374b:A: the debug probe went away; games 3 not played".into());
        if let Some(oscillator) = report.boards[1].oscillator.as_mut() {
            (oscillator.ppm, oscillator.error) = (None, Some("2 usable reads".into()));
        }
        let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
        assert!(html.contains("<tr><td>0483:374b:B</td><td>NUCLEO-F401RE via STLink V2-1 (B)</td><td>0, 2, 4–8</td>"));
        assert!(html.contains(
            "<tr class=\"bad\"><td>0483:374b:A</td><td>NUCLEO-F401RE via STLink V2-1 (A)</td><td>1</td>\
             <td>FAILED: 0483:374b:A: the debug probe went away; games 3 not played</td>"
        ));
        assert!(html.contains("<td class=\"num\">not measured (2 usable reads)</td>"));
        assert_eq!(html.matches("<tr class=\"bad\">").count(), 1, "only the failed board");
        assert!(html.contains("1 failed (highlighted, with what stopped it)"));
    }

    #[test]
    fn one_board_on_a_probe_has_its_row_and_an_emulated_run_has_no_boards_section() {
        let mut report = sample_report();
        report.boards = vec![probe_board("X", &[0, 1, 2, 3], 3.0)];
        let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
        assert!(html.contains("One board on a debug probe."));
        assert!(html.contains("<tr><td>0483:374b:X</td><td>NUCLEO-F401RE via STLink V2-1 (X)</td><td>0–3</td>"));
        assert!(!html.contains("write to edge stamp"), "no latency on the board without its figures");

        let emulated = sample_report();
        assert!(emulated.boards.iter().all(|board| board.probe.is_none()) && emulated.boards.len() == 1);
        let html = render(&hil_page(&emulated, "<svg></svg>", "<svg></svg>"));
        assert!(!html.contains("id=\"boards\"") && !html.contains("#boards"), "no boards section");
        assert!(!html.contains("On the board") && !html.contains("bracketed presses"), "no latency on the board");
    }

    #[test]
    fn a_passing_hil_page_says_pass_and_nothing_failed() {
        let html = render(&hil_page(&sample_report(), "<svg></svg>", "<svg></svg>"));
        assert!(html.contains("data-verdict=\"pass\"") && html.contains("<h1>PASS</h1>"));
        assert!(html.contains("Every check passed, and the firmware matched the clock model"));
        assert!(!html.contains("class=\"failure\"") && !html.contains("<tr class=\"bad\">"));
        assert!(!html.contains("INCOMPLETE"));
    }

    #[test]
    fn an_incomplete_hil_page_says_why_and_a_run_without_data_still_renders() {
        let mut report = sample_report();
        report.complete = false;
        report.verdict = "fail".into();
        report.error = Some("QEMU went away".into());
        report.latency = None;
        report.games_detail.clear();
        let drift = &mut report.drift;
        (drift.measured, drift.error, drift.ppm, drift.ci_half_ppm) =
            (false, Some("2 usable samples".into()), None, None);
        let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
        assert!(html.contains("<strong>INCOMPLETE:</strong>") && html.contains("QEMU went away"), "{html}");
        assert!(html.contains("not measured (2 usable samples)"));
        assert!(html.contains("No press was registered"));
    }

    /// Every string of a HIL report a user or a firmware reaches (scenario,
    /// file names, the board's description, mismatch values, errors) is
    /// escaped: none becomes markup.
    #[test]
    fn every_string_of_a_hil_report_is_escaped() {
        let mut report = with_mismatches(sample_report(), 1);
        report.scenario.name = HOSTILE.into();
        report.scenario.description = HOSTILE.into();
        report.firmware.file = HOSTILE.into();
        report.firmware.name = Some(HOSTILE.into());
        report.board.description = HOSTILE.into();
        report.command = format!("bench hil --scenario '{HOSTILE}'");
        report.drift.note = Some(HOSTILE.into());
        report.boards = vec![probe_board("B", &[0], -40.0), probe_board("A", &[1], 12.0)];
        for board in &mut report.boards {
            (board.probe, board.description, board.error) =
                (Some(HOSTILE.into()), HOSTILE.into(), Some(HOSTILE.into()));
            if let Some(oscillator) = board.oscillator.as_mut() {
                (oscillator.ppm, oscillator.error) = (None, Some(HOSTILE.into()));
            }
        }
        if let Some(game) = report.games_detail.last_mut() {
            game.error = Some(HOSTILE.into());
            game.schedule_end = HOSTILE.into();
            for mismatch in game.mismatches.iter_mut().chain(&mut game.first_of_each) {
                (mismatch.model, mismatch.firmware) = (HOSTILE.into(), HOSTILE.into());
            }
        }
        let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
        for raw in ["<script", "<img", "onerror=alert(1)>", "\u{1}"] {
            assert!(!html.contains(raw), "the page holds `{raw}` unescaped");
        }
        assert_eq!(html.matches("</svg>").count(), 2, "only the two plots close an svg");
        assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") && html.contains("[U+0001]"));
        assert!(html.contains("id=\"boards\""), "the boards' strings were on the page");
    }
}

/// `junit.xml` of a HIL report.
mod junit_suites {
    use super::*;
    use crate::format::junit::render;
    use crate::hil::junit::hil_suites;

    /// A test case: its name, and its failure's message and text.
    type ReadCase = (String, Option<(String, String)>);

    /// (suite name, its cases) of `xml`, checking the counts every reader
    /// relies on.
    fn read(xml: &str) -> Vec<(String, Vec<ReadCase>)> {
        let document = roxmltree::Document::parse(xml).expect("well-formed XML");
        let root = document.root_element();
        assert_eq!(root.tag_name().name(), "testsuites");
        let number = |node: roxmltree::Node, name: &str| -> usize {
            node.attribute(name).and_then(|value| value.parse().ok()).expect("a count attribute")
        };
        let (mut all_cases, mut all_failures) = (0, 0);
        let mut suites = Vec::new();
        for suite in root.children().filter(|node| node.has_tag_name("testsuite")) {
            let mut cases = Vec::new();
            for case in suite.children().filter(|node| node.has_tag_name("testcase")) {
                let failure = case.children().find(|node| node.has_tag_name("failure")).map(|failure| {
                    (
                        failure.attribute("message").unwrap_or_default().to_string(),
                        failure.text().unwrap_or_default().to_string(),
                    )
                });
                cases.push((case.attribute("name").unwrap_or_default().to_string(), failure));
            }
            let failures = cases.iter().filter(|(_, failure)| failure.is_some()).count();
            assert_eq!(number(suite, "tests"), cases.len());
            assert_eq!(number(suite, "failures"), failures);
            all_cases += cases.len();
            all_failures += failures;
            suites.push((suite.attribute("name").unwrap_or_default().to_string(), cases));
        }
        assert_eq!(number(root, "tests"), all_cases);
        assert_eq!(number(root, "failures"), all_failures);
        suites
    }

    #[test]
    fn a_hil_report_has_a_case_per_check_and_per_compared_game() {
        let report = with_mismatches(sample_report(), 60);
        let xml = render(&hil_suites(&report));
        let suites = read(&xml);
        assert_eq!(suites.len(), 2);
        let (checks_name, checks) = &suites[0];
        assert_eq!(checks_name, "bench.hil.blitz-3-2.checks");
        let names: Vec<&str> = checks.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "every game played to its end",
                "the firmware matches the clock model",
                "accounting drift within tolerance"
            ]
        );
        let (message, _) = checks[1].1.as_ref().expect("the match check failed");
        assert_eq!(
            message,
            "measured 60 mismatches in 2 compared games; expected 0 mismatches, within one firmware tick"
        );
        assert!(checks[0].1.is_none() && checks[2].1.is_none());

        let (games_name, games) = &suites[1];
        assert_eq!(games_name, "bench.hil.blitz-3-2.games");
        assert_eq!(games.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(), ["game 0", "game 1"]);
        assert!(games[0].1.is_none(), "game 0 matched");
        let (message, text) = games[1].1.as_ref().expect("game 1 failed");
        assert_eq!(message, "60 mismatches (press.remaining_us 60)");
        assert!(text.contains("press 3 at 3500000 us (press.remaining_us): model 58.500000 s, firmware 58.000000 s"));
        assert!(text.contains("press 52 at"), "every listed mismatch");
        assert!(text.contains("… 10 more (report.json lists the first 50)"), "{text}");
        assert!(text.contains("replay: bench hil --board qemu --scenario blitz-3-2 --seed 12 --games 2"), "{text}");
        assert!(xml.contains(&format!("<property name=\"firmware_sha256\" value=\"{}\"/>", report.firmware.sha256)));
    }

    #[test]
    fn a_passing_hil_report_has_no_failure_and_an_incomplete_game_says_why() {
        let xml = render(&hil_suites(&sample_report()));
        assert!(read(&xml).iter().flat_map(|(_, cases)| cases).all(|(_, failure)| failure.is_none()), "{xml}");
        let mut report = sample_report();
        if let Some(game) = report.games_detail.last_mut() {
            (game.complete, game.passed, game.error) = (false, false, Some("the firmware went silent".into()));
        }
        let suites = read(&render(&hil_suites(&report)));
        let (message, _) = suites[1].1[1].1.as_ref().expect("the game failed");
        assert_eq!(message, "did not play to its end: the firmware went silent");
    }
}
