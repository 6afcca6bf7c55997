//! Reports of `bench hil` runs: the same folder layout as `bench sim`
//! (`report.json`, `index.html`, `summary.md`, `junit.xml`, `drift.svg`,
//! `drift.png`, `run.json`) and the press-latency histogram
//! (`latency.svg`, `latency.png`), written the same way ([`super::atomic`]:
//! `report.json` removed first and written last, naming the other files
//! with their SHA-256).
//!
//! ```text
//!   GameRuns + session drift ──▶ build ──▶ Report ─┬─▶ drift.svg, drift.png   (firmware − reference time, fit, band)
//!                                                  ├─▶ latency.svg, latency.png (press-latency histogram)
//!                                                  ├─▶ junit.xml              (junit::hil_suites)
//!                                                  ├─▶ summary.md
//!                                                  ├─▶ index.html             (html::hil_page)
//!                                                  └─▶ report.json, last      (bench.hil.report/1)
//!   HilRunFacts ────────────────────────────────────▶ run.json                (bench.hil.run/1)
//! ```
//!
//! Unlike a simulation's, a HIL report is a measurement: emulator timing
//! varies from run to run (press instants, latencies, drift to the last
//! decimals), so it is not byte-reproducible. What varies with the host
//! (wall time, speed) still goes to `run.json` only.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use bench_contract::Hello;
use bench_hil::compare::{Comparison, GameSummary, Mismatch};
use bench_hil::drift::{self, Fit, FitError};
use bench_hil::run::{GameRun, Oscillator, Percentiles};
use chessclock::{Outcome, Side};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

use super::json::CheckInfo;
use super::latency_plot::LatencyPlot;
use super::markdown::{cell, code, micros, number_ranges};
use super::plot::{self, FONT};
use super::{
    atomic, html, junit, sha256_hex, DRIFT_PNG, DRIFT_SVG, INDEX_HTML, JUNIT_XML, LATENCY_PNG, LATENCY_SVG,
    REPORT_JSON, RUN_JSON, SUMMARY_MD,
};

/// The schema's name and major version (adding a field keeps it).
pub const SCHEMA: &str = "bench.hil.report/1";
pub const RUN_SCHEMA: &str = "bench.hil.run/1";

/// Check names, stable for readers.
pub const COMPLETE_CHECK: &str = "every game played to its end";
pub const MATCH_CHECK: &str = "the firmware matches the clock model";
pub const DRIFT_CHECK: &str = "accounting drift within tolerance";

/// Mismatches listed per game in `report.json` and `summary.md`.
pub const MISMATCHES_LISTED: usize = 50;

/// Everything a HIL report is made of.
pub struct HilReportInput<'a> {
    /// `--board` (`qemu`).
    pub board: &'a str,
    /// The target's own description (emulator version, machine, icount).
    pub board_description: String,
    pub firmware_file: &'a Path,
    pub firmware_sha256: String,
    pub hello: Option<Hello>,
    pub scenario: &'a bench_sim::scenario::Scenario,
    pub scenario_file: &'a Path,
    pub scenario_sha256: String,
    pub seed: u64,
    pub games_requested: u64,
    pub runs: &'a [GameRun],
    /// Accounting drift over every TimeBase record of the session, and the
    /// samples it was fitted to (for the plot).
    pub drift: Result<Fit, FitError>,
    pub drift_samples: Vec<drift::Sample>,
    pub drift_tolerance_ppm: f64,
    /// The command that reproduces the run.
    pub command_line: String,
    /// What ended the run early, if anything did before or between games
    /// (a game's own error is in its entry).
    pub error: Option<String>,
    /// Each board of the run (one, or a farm's several).
    pub boards: Vec<BoardRunInput>,
}

/// One board's share of a run, for `boards[]` in the report.
#[derive(Clone, Debug)]
pub struct BoardRunInput {
    /// The probe (`VID:PID[:SERIAL]`), none for the emulator.
    pub probe: Option<String>,
    pub description: String,
    pub games: Vec<u64>,
    pub error: Option<String>,
    /// The board's accounting drift, ppm (also the top-level `drift` when
    /// it is the only board).
    pub accounting_drift_ppm: Option<f64>,
    pub oscillator: Option<Oscillator>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub bench_version: String,
    /// False when a game could not be played to its end (the board or the
    /// firmware failed, records were lost, the run was interrupted): the
    /// numbers cover what was seen, and the verdict is `fail`.
    pub complete: bool,
    pub verdict: String,
    pub command: String,
    pub board: BoardInfo,
    pub firmware: FirmwareInfo,
    pub scenario: ScenarioInfo,
    pub seed: u64,
    pub games: Games,
    pub checks: Vec<CheckInfo>,
    pub mismatches: MismatchTotals,
    pub drift: DriftInfo,
    /// Edge-to-registered press latency over every game (the firmware's
    /// `handled_at_us − at_us`); null without presses.
    pub latency: Option<LatencyInfo>,
    /// The same latencies counted in fixed bins
    /// (`bench_hil::run::LATENCY_BIN_EDGES_US`), every bin in order, empty
    /// ones included. Empty only in a report written before bench counted
    /// them (so such a report still loads as a baseline).
    #[serde(default)]
    pub latency_histogram: Vec<LatencyBin>,
    pub records: RecordTotals,
    pub error: Option<String>,
    /// Press latency measured on the board (probe boards, contract 2);
    /// null elsewhere.
    pub board_latency: Option<BoardLatencyInfo>,
    /// Every board of the run, with its games and its oscillator drift.
    pub boards: Vec<BoardInfoRun>,
    pub games_detail: Vec<GameInfo>,
    /// The other files of this report and their SHA-256.
    pub files: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardInfo {
    pub kind: String,
    pub description: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirmwareInfo {
    pub file: String,
    pub sha256: String,
    /// From the Hello record (null if none came).
    pub name: Option<String>,
    pub version: Option<u32>,
    pub tick_us: Option<u32>,
    pub debounce_us: Option<u32>,
    pub hw_counter_hz: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioInfo {
    pub name: String,
    pub file: String,
    pub sha256: String,
    pub description: String,
    pub control: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Games {
    pub requested: u64,
    pub played: u64,
    pub complete: u64,
    pub passed: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MismatchTotals {
    pub total: u64,
    /// By quantity (`press.remaining_us`, `flag.at_us`, …), over every game.
    pub by_quantity: BTreeMap<String, u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DriftInfo {
    /// `accounting`: the firmware clock against the board's own counter.
    pub kind: String,
    pub reference: String,
    pub measured: bool,
    /// Why not, when not measured.
    pub error: Option<String>,
    pub samples: u64,
    pub used: u64,
    pub ppm: Option<f64>,
    pub ci_low_ppm: Option<f64>,
    pub ci_high_ppm: Option<f64>,
    pub ci_half_ppm: Option<f64>,
    pub confidence: Option<f64>,
    pub residual_sd_us: Option<f64>,
    pub residual_max_us: Option<f64>,
    pub span_s: Option<f64>,
    pub tolerance_ppm: f64,
    pub within_tolerance: bool,
    pub note: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyInfo {
    pub count: u64,
    pub min_us: u64,
    pub p50_us: u64,
    pub p90_us: u64,
    pub p99_us: u64,
    pub max_us: u64,
}

/// One bin of the press-latency histogram: presses whose latency is at
/// least `from_us` and below `to_us` (null for the last, open-ended bin).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyBin {
    pub from_us: u64,
    pub to_us: Option<u64>,
    pub presses: u64,
}

/// `latencies_us` in the fixed bins.
pub fn latency_bins(latencies_us: &[u64]) -> Vec<LatencyBin> {
    let edges = bench_hil::run::LATENCY_BIN_EDGES_US;
    let counts = bench_hil::run::latency_histogram(latencies_us);
    edges
        .iter()
        .zip(counts)
        .enumerate()
        .map(|(index, (&from_us, presses))| LatencyBin {
            from_us,
            to_us: edges.get(index.saturating_add(1)).copied(),
            presses,
        })
        .collect()
}

/// Press latency on the board: from the counter read right before the
/// harness's write to the counter the firmware read at the edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardLatencyInfo {
    /// Percentiles of `edge_hw_counter − counter_before`, µs: an upper
    /// bound of the edge-to-stamp latency.
    pub latency: LatencyInfo,
    /// Percentiles of `counter_after − counter_before`, µs: how precisely
    /// each write's instant is known.
    pub bracket: LatencyInfo,
    /// Bracketed presses without a matching Press record.
    pub unmatched: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoardInfoRun {
    pub probe: Option<String>,
    pub description: String,
    pub games: Vec<u64>,
    pub error: Option<String>,
    pub accounting_drift_ppm: Option<f64>,
    /// The board's oscillator against host monotonic time; null when the
    /// backend cannot read it (the emulator).
    pub oscillator: Option<OscillatorInfo>,
}

impl Report {
    /// Whether the run's boards get a table of their own: a board on a
    /// debug probe (it has an oscillator and a probe to name) or a farm. A
    /// single emulated board says nothing that the board line does not.
    pub fn shows_boards(&self) -> bool {
        self.boards.len() > 1 || self.boards.iter().any(|board| board.probe.is_some())
    }

    /// How the boards' oscillator drift was fitted, said once for the
    /// table rather than in every row: `Oscillator drift ± half of its
    /// 95 % confidence interval. Reads used: probe round trip within the
    /// fastest + 100 µs`. None without an oscillator. Values that differ
    /// between boards are all named.
    pub fn oscillator_fit_text(&self) -> Option<String> {
        let oscillators: Vec<&OscillatorInfo> =
            self.boards.iter().filter_map(|board| board.oscillator.as_ref()).collect();
        let distinct = |values: BTreeSet<String>| {
            (!values.is_empty()).then(|| values.into_iter().collect::<Vec<_>>().join(" or "))
        };
        let confidence = distinct(
            oscillators
                .iter()
                .filter_map(|oscillator| oscillator.confidence)
                .map(|confidence| format!("{:.0} %", confidence * 100.0))
                .collect(),
        );
        let margin = distinct(
            oscillators
                .iter()
                .filter_map(|oscillator| oscillator.round_trip_margin_us)
                .map(|margin_us| format!("{margin_us:.0} µs"))
                .collect(),
        );
        let parts: Vec<String> = [
            confidence.map(|confidence| format!("Oscillator drift ± half of its {confidence} confidence interval")),
            margin.map(|margin| format!("Reads used: probe round trip within the fastest + {margin}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join(". "))
    }
}

/// The headers of the boards table, in `index.html` and `summary.md`.
pub const BOARD_COLUMNS: [&str; 8] =
    ["Probe", "Board", "Games", "State", "Accounting drift", "Oscillator drift", "Reads used", "Round trip p50 / p99"];

impl BoardInfoRun {
    /// The board stopped before or between its games.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// The board's row of the boards table ([`BOARD_COLUMNS`]), as plain
    /// text: each page escapes it its own way.
    pub fn table_cells(&self) -> [String; 8] {
        let none = || "—".to_string();
        let oscillator = self.oscillator.as_ref();
        [
            self.probe.clone().unwrap_or_else(none),
            self.description.clone(),
            number_ranges(&self.games),
            match &self.error {
                Some(error) => format!("FAILED: {error}"),
                None => "ok".to_string(),
            },
            self.accounting_drift_ppm.map_or_else(none, |ppm| format!("{ppm:+.3} ppm")),
            oscillator.map_or_else(none, OscillatorInfo::drift_text),
            oscillator.map_or_else(none, |oscillator| format!("{} of {}", oscillator.used, oscillator.samples)),
            oscillator
                .and_then(|oscillator| oscillator.round_trip)
                .map_or_else(none, |trip| format!("{} / {}", micros(trip.p50_us), micros(trip.p99_us))),
        ]
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OscillatorInfo {
    pub measured: bool,
    pub error: Option<String>,
    pub samples: u64,
    pub used: u64,
    pub ppm: Option<f64>,
    pub ci_low_ppm: Option<f64>,
    pub ci_high_ppm: Option<f64>,
    pub ci_half_ppm: Option<f64>,
    pub confidence: Option<f64>,
    pub residual_sd_us: Option<f64>,
    pub span_s: Option<f64>,
    /// Samples with a round trip above the fastest plus this are left out
    /// (null: none are).
    pub round_trip_margin_us: Option<f64>,
    /// The probe's round trip of every counter read.
    pub round_trip: Option<LatencyInfo>,
}

impl OscillatorInfo {
    /// `-40.000 ppm ± 0.120`, or why it was not measured (the interval's
    /// confidence is in [`Report::oscillator_fit_text`]).
    pub fn drift_text(&self) -> String {
        match (self.ppm, self.ci_half_ppm) {
            (Some(ppm), Some(half)) => format!("{ppm:+.3} ppm ± {half:.3}"),
            (Some(ppm), None) => format!("{ppm:+.3} ppm (no confidence interval)"),
            (None, _) => format!("not measured ({})", self.error.as_deref().unwrap_or("no reads")),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordTotals {
    pub total: u64,
    /// Missing sequence numbers (dropped by the firmware or lost).
    pub lost: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameInfo {
    pub game: u64,
    pub complete: bool,
    pub passed: bool,
    pub error: Option<String>,
    /// How the schedule ends (board, move bound, flag ruling, …).
    pub schedule_end: String,
    pub presses_scheduled: u64,
    pub presses_sent: u64,
    /// Press records the firmware sent.
    pub presses_registered: u64,
    /// Extra closing edges the harness made: contact bounce inside the
    /// firmware's debounce window.
    pub bounce_edges_sent: u64,
    /// Bounce edges the firmware reported swallowing (the Press records'
    /// `bounces`; a button's last press reports none).
    pub bounces_reported: u64,
    /// Guest time after the start, µs.
    pub guest_us: u64,
    pub start_us: Option<u64>,
    pub records: u64,
    pub records_lost: u64,
    pub comparison_error: Option<String>,
    pub model: Option<SideInfo>,
    pub firmware: Option<SideInfo>,
    pub result_agrees: bool,
    pub mismatches_total: u64,
    pub mismatches_by_quantity: BTreeMap<String, u64>,
    /// The first mismatch of each quantity, earliest first: where each
    /// difference began.
    pub first_of_each: Vec<MismatchInfo>,
    /// The first [`MISMATCHES_LISTED`], in the order found.
    pub mismatches: Vec<MismatchInfo>,
    pub latency: Option<LatencyInfo>,
}

impl GameInfo {
    /// What went wrong with the game other than its mismatches: it did not
    /// play to its end, could not be compared, or lost records.
    pub fn run_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(error) = &self.error {
            problems.push(format!("did not play to its end: {error}"));
        }
        if let Some(error) = &self.comparison_error {
            problems.push(format!("not compared: {error}"));
        }
        if self.records_lost > 0 {
            problems.push(format!("{} records lost", self.records_lost));
        }
        problems
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideInfo {
    pub moves_white: u32,
    pub moves_black: u32,
    pub flags: Vec<FlagInfo>,
    /// The laws' ruling on the flags shown at the end, or `no flag`.
    pub result: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlagInfo {
    pub side: String,
    pub at_us: u64,
    pub period: u32,
    pub sequence: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MismatchInfo {
    pub quantity: String,
    pub press_index: Option<u64>,
    pub at_us: u64,
    pub seq: Option<u32>,
    pub model: String,
    pub firmware: String,
}

fn count(value: usize) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

fn finite(value: f64) -> Option<f64> {
    value.is_finite().then_some(value)
}

fn latency(percentiles: &Percentiles) -> LatencyInfo {
    LatencyInfo {
        count: count(percentiles.count),
        min_us: percentiles.min_us,
        p50_us: percentiles.p50_us,
        p90_us: percentiles.p90_us,
        p99_us: percentiles.p99_us,
        max_us: percentiles.max_us,
    }
}

fn result_text(summary: &GameSummary) -> String {
    match summary.ruling {
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

fn side_info(summary: &GameSummary) -> SideInfo {
    SideInfo {
        moves_white: summary.moves.white,
        moves_black: summary.moves.black,
        flags: summary
            .flags
            .iter()
            .map(|flag| FlagInfo {
                side: flag.side.to_string(),
                at_us: flag.at.as_us(),
                period: flag.period,
                sequence: flag.sequence,
            })
            .collect(),
        result: result_text(summary),
    }
}

fn mismatch_info(mismatch: &Mismatch) -> MismatchInfo {
    MismatchInfo {
        quantity: mismatch.quantity.key().to_string(),
        press_index: mismatch.press_index.map(count),
        at_us: mismatch.at_us,
        seq: mismatch.seq,
        model: mismatch.model.clone(),
        firmware: mismatch.firmware.clone(),
    }
}

fn game_info(run: &GameRun) -> GameInfo {
    let comparison: Option<&Comparison> = match &run.comparison {
        Some(Ok(comparison)) => Some(comparison),
        _ => None,
    };
    let comparison_error = match &run.comparison {
        Some(Err(error)) => Some(error.to_string()),
        _ => None,
    };
    let presses_registered =
        run.records.iter().filter(|record| matches!(record.body, bench_contract::Body::Press(_))).count();
    GameInfo {
        game: run.schedule.game,
        complete: run.complete(),
        passed: run.passed(),
        error: run.error.as_ref().map(ToString::to_string),
        schedule_end: run.schedule.end.to_string(),
        presses_scheduled: count(run.schedule.presses.len()),
        presses_sent: count(run.sent.len()),
        presses_registered: count(presses_registered),
        bounce_edges_sent: run.bounce_edges_sent(),
        bounces_reported: run.bounces_reported(),
        guest_us: run.guest_us,
        start_us: run.start_us,
        records: count(run.records.len()),
        records_lost: comparison.map_or(0, |comparison| comparison.records_lost),
        comparison_error,
        model: comparison.map(|comparison| side_info(&comparison.model)),
        firmware: comparison.map(|comparison| side_info(&comparison.firmware)),
        result_agrees: comparison.is_some_and(|comparison| comparison.model.ruling == comparison.firmware.ruling),
        mismatches_total: comparison.map_or(0, |comparison| count(comparison.mismatch_count)),
        mismatches_by_quantity: comparison
            .map(|comparison| {
                comparison.by_quantity.iter().map(|(key, value)| (key.to_string(), count(*value))).collect()
            })
            .unwrap_or_default(),
        first_of_each: comparison
            .map(|comparison| comparison.first_of_each.iter().map(mismatch_info).collect())
            .unwrap_or_default(),
        mismatches: comparison
            .map(|comparison| comparison.mismatches.iter().take(MISMATCHES_LISTED).map(mismatch_info).collect())
            .unwrap_or_default(),
        latency: run.latency.as_ref().map(latency),
    }
}

fn oscillator_info(oscillator: &Oscillator) -> OscillatorInfo {
    let fit = oscillator.fit.as_ref().ok();
    OscillatorInfo {
        measured: fit.is_some(),
        error: oscillator.fit.as_ref().err().map(ToString::to_string),
        samples: count(oscillator.samples.len()),
        used: fit.map_or(0, |fit| count(fit.used)),
        ppm: fit.and_then(|fit| finite(fit.drift_ppm)),
        ci_low_ppm: fit.and_then(|fit| finite(fit.ci_low_ppm())),
        ci_high_ppm: fit.and_then(|fit| finite(fit.ci_high_ppm())),
        ci_half_ppm: fit.and_then(|fit| finite(fit.ci_half_ppm)),
        confidence: fit.and_then(|fit| finite(fit.confidence)),
        residual_sd_us: fit.and_then(|fit| finite(fit.residual_sd_us)),
        span_s: fit.and_then(|fit| finite(fit.span_us / 1e6)),
        round_trip_margin_us: finite(oscillator.round_trip_margin_us),
        round_trip: oscillator.round_trip.as_ref().map(latency),
    }
}

fn board_info(board: &BoardRunInput) -> BoardInfoRun {
    BoardInfoRun {
        probe: board.probe.clone(),
        description: board.description.clone(),
        games: board.games.clone(),
        error: board.error.clone(),
        accounting_drift_ppm: board.accounting_drift_ppm.and_then(finite),
        oscillator: board.oscillator.as_ref().map(oscillator_info),
    }
}

/// Board latency over every game.
fn board_latency_info(runs: &[GameRun]) -> Option<BoardLatencyInfo> {
    let measured: Vec<&bench_hil::run::BoardLatency> =
        runs.iter().filter_map(|run| run.board_latency.as_ref()).collect();
    let latencies: Vec<u64> = measured.iter().flat_map(|board| board.latencies_us.iter().copied()).collect();
    let brackets: Vec<u64> = measured.iter().flat_map(|board| board.brackets_us.iter().copied()).collect();
    Some(BoardLatencyInfo {
        latency: latency(&Percentiles::of(&latencies)?),
        bracket: latency(&Percentiles::of(&brackets)?),
        unmatched: measured.iter().map(|board| count(board.unmatched)).fold(0, u64::saturating_add),
    })
}

fn drift_info(input: &HilReportInput) -> DriftInfo {
    let reference = match input.hello {
        Some(hello) => format!(
            "the board's free-running hardware counter ({} Hz, {} bits), in the same TimeBase record",
            hello.hw_counter_hz, hello.hw_counter_bits
        ),
        None => "the board's free-running hardware counter".to_string(),
    };
    let tolerance_ppm = input.drift_tolerance_ppm;
    match &input.drift {
        Ok(fit) => DriftInfo {
            kind: "accounting".into(),
            reference,
            measured: true,
            error: None,
            samples: count(fit.samples),
            used: count(fit.used),
            ppm: finite(fit.drift_ppm),
            ci_low_ppm: finite(fit.ci_low_ppm()),
            ci_high_ppm: finite(fit.ci_high_ppm()),
            ci_half_ppm: finite(fit.ci_half_ppm),
            confidence: finite(fit.confidence),
            residual_sd_us: finite(fit.residual_sd_us),
            residual_max_us: finite(fit.residual_max_us),
            span_s: finite(fit.span_us / 1e6),
            tolerance_ppm,
            within_tolerance: fit.within(tolerance_ppm),
            note: drift::half_rate_hint(fit).map(str::to_string),
        },
        Err(error) => DriftInfo {
            kind: "accounting".into(),
            reference,
            measured: false,
            error: Some(error.to_string()),
            samples: count(input.drift_samples.len()),
            used: 0,
            ppm: None,
            ci_low_ppm: None,
            ci_high_ppm: None,
            ci_half_ppm: None,
            confidence: None,
            residual_sd_us: None,
            residual_max_us: None,
            span_s: None,
            tolerance_ppm,
            within_tolerance: false,
            note: None,
        },
    }
}

/// The report, without `files`.
pub fn build(input: &HilReportInput) -> Report {
    let games_detail: Vec<GameInfo> = input.runs.iter().map(game_info).collect();
    let played = count(input.runs.len());
    let complete_games = count(games_detail.iter().filter(|game| game.complete).count());
    let complete = input.error.is_none() && played == input.games_requested && complete_games == played;
    let mut by_quantity: BTreeMap<String, u64> = BTreeMap::new();
    for game in &games_detail {
        for (key, value) in &game.mismatches_by_quantity {
            let entry = by_quantity.entry(key.clone()).or_insert(0);
            *entry = entry.saturating_add(*value);
        }
    }
    let mismatches_total = games_detail.iter().map(|game| game.mismatches_total).fold(0u64, u64::saturating_add);
    let compared = games_detail.iter().filter(|game| game.model.is_some()).count();
    let drift = drift_info(input);
    let latencies: Vec<u64> = input.runs.iter().flat_map(|run| bench_hil::run::press_latencies(&run.records)).collect();
    let records_lost = games_detail.iter().map(|game| game.records_lost).fold(0u64, u64::saturating_add);

    let mut checks = vec![CheckInfo {
        name: COMPLETE_CHECK.into(),
        passed: complete,
        measured: match &input.error {
            Some(error) => format!("{complete_games} of {} games, then: {error}", input.games_requested),
            None => format!("{complete_games} of {} games", input.games_requested),
        },
        expected: format!("{} games, every record seen", input.games_requested),
    }];
    checks.push(CheckInfo {
        name: MATCH_CHECK.into(),
        passed: mismatches_total == 0 && compared > 0 && compared == games_detail.len(),
        measured: format!("{mismatches_total} mismatches in {compared} compared games"),
        expected: "0 mismatches, within one firmware tick".into(),
    });
    checks.push(CheckInfo {
        name: DRIFT_CHECK.into(),
        passed: drift.within_tolerance,
        measured: match (&input.drift, drift.error.as_ref()) {
            (Ok(fit), _) => format!("{:+.2} ppm ± {:.2}", fit.drift_ppm, fit.ci_half_ppm),
            (Err(_), Some(error)) => format!("not measured: {error}"),
            (Err(_), None) => "not measured".into(),
        },
        expected: format!("an interval that reaches ±{} ppm", input.drift_tolerance_ppm),
    });
    let verdict = if complete && checks.iter().all(|check| check.passed) { "pass" } else { "fail" };
    let hello = input.hello;
    Report {
        schema: SCHEMA.into(),
        bench_version: env!("CARGO_PKG_VERSION").into(),
        complete,
        verdict: verdict.into(),
        command: input.command_line.clone(),
        board: BoardInfo { kind: input.board.to_string(), description: input.board_description.clone() },
        firmware: FirmwareInfo {
            file: input.firmware_file.display().to_string(),
            sha256: input.firmware_sha256.clone(),
            name: hello.map(|hello| String::from_utf8_lossy(&hello.firmware_name).trim_end_matches('\0').to_string()),
            version: hello.map(|hello| hello.firmware_version),
            tick_us: hello.map(|hello| hello.tick_us),
            debounce_us: hello.map(|hello| hello.debounce_us),
            hw_counter_hz: hello.map(|hello| hello.hw_counter_hz),
        },
        scenario: ScenarioInfo {
            name: input.scenario.name.clone(),
            file: input.scenario_file.display().to_string(),
            sha256: input.scenario_sha256.clone(),
            description: input.scenario.description.clone(),
            control: input.scenario.control.text.clone(),
        },
        seed: input.seed,
        games: Games {
            requested: input.games_requested,
            played,
            complete: complete_games,
            passed: count(games_detail.iter().filter(|game| game.passed).count()),
        },
        checks,
        mismatches: MismatchTotals { total: mismatches_total, by_quantity },
        drift,
        latency: Percentiles::of(&latencies).as_ref().map(latency),
        latency_histogram: latency_bins(&latencies),
        records: RecordTotals {
            total: input.runs.iter().map(|run| count(run.records.len())).fold(0u64, u64::saturating_add),
            lost: records_lost,
        },
        error: input.error.clone(),
        board_latency: board_latency_info(input.runs),
        boards: input.boards.iter().map(board_info).collect(),
        games_detail,
        files: BTreeMap::new(),
    }
}

/// Writes the report into `dir` (created if missing): `drift.svg`,
/// `drift.png`, `latency.svg`, `latency.png`, `junit.xml`, `summary.md`, `index.html`, then
/// `report.json`. Returns the report and the paths written, `report.json`
/// last.
pub fn write_hil_report(dir: &Path, input: &HilReportInput) -> anyhow::Result<(Report, Vec<PathBuf>)> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating the report folder {}", dir.display()))?;
    atomic::remove_if_exists(dir, REPORT_JSON)?;
    let mut report = build(input);
    let plot = DriftPlot {
        title: format!("{} on {}: firmware clock minus the board's counter", report.scenario.name, report.board.kind),
        samples: &input.drift_samples,
        fit: input.drift.as_ref().ok(),
    };
    let mut written = Vec::new();
    let mut files = BTreeMap::new();
    let svg = plot::svg(&plot)?;
    written.push(atomic::write_bytes(dir, DRIFT_SVG, svg.as_bytes())?);
    files.insert(DRIFT_SVG.to_string(), sha256_hex(svg.as_bytes()));
    let png_path = atomic::write_with(dir, DRIFT_PNG, |temp| plot::png(&plot, temp))?;
    let png = std::fs::read(&png_path).with_context(|| format!("reading back {}", png_path.display()))?;
    files.insert(DRIFT_PNG.to_string(), sha256_hex(&png));
    written.push(png_path);
    let histogram = LatencyPlot {
        title: format!("{} on {}: press latency", report.scenario.name, report.board.kind),
        bins: &report.latency_histogram,
    };
    let latency_svg = plot::svg(&histogram)?;
    written.push(atomic::write_bytes(dir, LATENCY_SVG, latency_svg.as_bytes())?);
    files.insert(LATENCY_SVG.to_string(), sha256_hex(latency_svg.as_bytes()));
    let latency_png_path = atomic::write_with(dir, LATENCY_PNG, |temp| plot::png(&histogram, temp))?;
    let latency_png =
        std::fs::read(&latency_png_path).with_context(|| format!("reading back {}", latency_png_path.display()))?;
    files.insert(LATENCY_PNG.to_string(), sha256_hex(&latency_png));
    written.push(latency_png_path);
    // Each of these is a function of the report (without `files`) alone.
    let junit = junit::render(&junit::hil_suites(&report));
    let summary = render_summary(&report);
    let index = html::render(&html::hil_page(&report, &svg, &latency_svg));
    for (name, text) in [(JUNIT_XML, junit), (SUMMARY_MD, summary), (INDEX_HTML, index)] {
        written.push(atomic::write_bytes(dir, name, text.as_bytes())?);
        files.insert(name.to_string(), sha256_hex(text.as_bytes()));
    }
    report.files = files;
    let bytes = super::json::to_bytes(&report)?;
    // Under `cargo test`, every report a test writes is checked against its
    // JSON Schema (reports/schema/).
    #[cfg(test)]
    super::schema::assert_valid(&bytes);
    written.push(atomic::write_bytes(dir, REPORT_JSON, &bytes)?);
    Ok((report, written))
}

/// What varies between runs of the same inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HilRunFacts {
    pub schema: String,
    pub bench_version: String,
    pub git_commit: Option<String>,
    pub host: String,
    pub started_unix_s: u64,
    pub wall_ms: u64,
    /// Guest (emulated) time played, over every game, ms.
    pub guest_ms: u64,
    /// Guest time per host time: > 1 when the emulator runs faster than
    /// real time.
    pub speed: Option<f64>,
    pub board: String,
}

/// Writes `run.json` into `dir`, atomically.
pub fn write_hil_run_facts(dir: &Path, facts: &HilRunFacts) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating the report folder {}", dir.display()))?;
    atomic::write_bytes(dir, RUN_JSON, &super::json::to_bytes(facts)?)
}

fn seconds(us: u64) -> String {
    bench_hil::compare::seconds(us)
}

/// `summary.md`: verdict first, then checks, games, boards (of a probe run
/// or a farm), mismatches, timing.
pub fn render_summary(report: &Report) -> String {
    let mut out = String::new();
    let mut line = |text: &str| {
        out.push_str(text);
        out.push('\n');
    };
    let verdict = if report.verdict == "pass" { "PASS" } else { "FAIL" };
    line(&format!(
        "# {verdict}: `{}` on {} ({})",
        cell(&report.scenario.name),
        report.board.kind,
        cell(&report.firmware.file)
    ));
    line("");
    let failed = report.checks.iter().filter(|check| !check.passed).count();
    if report.verdict == "pass" {
        line(&format!("**{verdict}**: all {} checks passed.", report.checks.len()));
    } else {
        line(&format!("**{verdict}**: {failed} of {} checks failed.", report.checks.len()));
    }
    if !report.complete {
        line("");
        let why = report
            .error
            .clone()
            .or_else(|| report.games_detail.iter().find_map(|game| game.error.clone()))
            .unwrap_or_else(|| "records were lost".to_string());
        line(&format!(
            "**INCOMPLETE**: {} of {} games played to their end ({}); every number below covers what was seen.",
            report.games.complete,
            report.games.requested,
            cell(&why)
        ));
    }
    line("");
    line(&format!("- Board: {} — {}", report.board.kind, cell(&report.board.description)));
    let firmware = match (&report.firmware.name, report.firmware.version, report.firmware.tick_us) {
        (Some(name), Some(version), Some(tick)) => format!(", `{}` v{version}, tick {tick} µs", cell(name)),
        _ => ", no Hello record".to_string(),
    };
    line(&format!(
        "- Firmware: {} (sha256 {}){firmware}",
        code(&report.firmware.file),
        code(report.firmware.sha256.get(..16).unwrap_or(&report.firmware.sha256))
    ));
    line(&format!("- Scenario: {} — {}", code(&report.scenario.name), cell(&report.scenario.description)));
    line(&format!(
        "- Control: {}, seed {}, games {}",
        code(&report.scenario.control),
        report.seed,
        report.games.requested
    ));
    line(&format!("- Command: {}", code(&report.command)));
    line("");
    line("## Checks");
    line("");
    line("| | check | measured | expected |");
    line("|---|---|---|---|");
    for check in &report.checks {
        line(&format!(
            "| {} | {} | {} | {} |",
            if check.passed { "PASS" } else { "**FAIL**" },
            cell(&check.name),
            cell(&check.measured),
            cell(&check.expected)
        ));
    }
    line("");
    line("## Games");
    line("");
    line("| game | played | presses sent / registered | guest time | schedule end | result (model) | result (firmware) | mismatches |");
    line("|---|---|---|---|---|---|---|---|");
    for game in &report.games_detail {
        let played = match (&game.error, game.complete) {
            (Some(error), _) => format!("**incomplete**: {}", cell(error)),
            (None, false) => "**incomplete**: records lost".to_string(),
            (None, true) => "yes".to_string(),
        };
        line(&format!(
            "| {} | {played} | {} / {} of {} | {} | {} | {} | {} | {} |",
            game.game,
            game.presses_sent,
            game.presses_registered,
            game.presses_scheduled,
            seconds(game.guest_us),
            cell(&game.schedule_end),
            game.model.as_ref().map_or("—".to_string(), |side| cell(&side.result)),
            game.firmware.as_ref().map_or("—".to_string(), |side| cell(&side.result)),
            game.mismatches_total
        ));
    }
    if report.shows_boards() {
        line("");
        line("## Boards");
        line("");
        line(&format!("| {} |", BOARD_COLUMNS.map(|column| column.to_lowercase()).join(" | ")));
        line(&format!("|{}", "---|".repeat(BOARD_COLUMNS.len())));
        for board in &report.boards {
            line(&format!("| {} |", board.table_cells().map(|text| cell(&text)).join(" | ")));
        }
        if let Some(fit) = report.oscillator_fit_text() {
            line("");
            line(&format!("The board's oscillator: its cycle counter against host monotonic time. {fit}."));
        }
    }
    if report.mismatches.total > 0 {
        line("");
        line("## Mismatches");
        line("");
        let totals: Vec<String> =
            report.mismatches.by_quantity.iter().map(|(key, value)| format!("{} {value}", code(key))).collect();
        line(&format!("{} in all: {}.", report.mismatches.total, totals.join(" · ")));
        let mismatch_table = |line: &mut dyn FnMut(&str), rows: &mut dyn Iterator<Item = (u64, &MismatchInfo)>| {
            line("| game | press | at | quantity | model | firmware |");
            line("|---|---|---|---|---|---|");
            for (game, mismatch) in rows {
                line(&format!(
                    "| {game} | {} | {} | {} | {} | {} |",
                    mismatch.press_index.map_or("before the first".to_string(), |index| index.to_string()),
                    seconds(mismatch.at_us),
                    code(&mismatch.quantity),
                    cell(&mismatch.model),
                    cell(&mismatch.firmware)
                ));
            }
        };
        line("");
        line("Where each difference began (the first mismatch of each quantity):");
        line("");
        mismatch_table(
            &mut line,
            &mut report.games_detail.iter().flat_map(|game| game.first_of_each.iter().map(move |m| (game.game, m))),
        );
        line("");
        line(&format!("The first {MISMATCHES_LISTED} of each game, in the order found:"));
        line("");
        mismatch_table(
            &mut line,
            &mut report.games_detail.iter().flat_map(|game| game.mismatches.iter().map(move |m| (game.game, m))),
        );
    }
    line("");
    line("## Timing");
    line("");
    let drift = &report.drift;
    match (drift.ppm, drift.ci_half_ppm) {
        (Some(ppm), Some(half)) => line(&format!(
            "- Accounting drift (firmware clock against {}): **{ppm:+.2} ppm ± {half:.2}** ({:.0} % CI; {} of {} samples over {:.1} s; residual sd {:.1} µs, max {:.1} µs); tolerance ±{} ppm.",
            drift.reference,
            drift.confidence.unwrap_or(0.0) * 100.0,
            drift.used,
            drift.samples,
            drift.span_s.unwrap_or(0.0),
            drift.residual_sd_us.unwrap_or(0.0),
            drift.residual_max_us.unwrap_or(0.0),
            drift.tolerance_ppm
        )),
        _ => line(&format!(
            "- Accounting drift: not measured ({}).",
            cell(drift.error.as_deref().unwrap_or("no samples"))
        )),
    }
    if let Some(note) = &drift.note {
        line(&format!("  Note: {}", cell(note)));
    }
    match &report.latency {
        Some(latency) => line(&format!(
            "- Press latency, edge to registered (the firmware's `handled_at_us − at_us`, {} presses): p50 {} µs, p90 {} µs, p99 {} µs, max {} µs.",
            latency.count, latency.p50_us, latency.p90_us, latency.p99_us, latency.max_us
        )),
        None => line("- Press latency: no presses."),
    }
    if let Some(board) = &report.board_latency {
        let (latency, bracket) = (&board.latency, &board.bracket);
        line(&format!(
            "- Press latency on the board (the cycle counter read before the pin write to the firmware's edge stamp, an upper bound; {} presses): p50 {} µs, p90 {} µs, p99 {} µs, max {} µs; write bracket p50 {} µs, p99 {} µs, max {} µs; {} bracketed presses without a Press record.",
            latency.count,
            latency.p50_us,
            latency.p90_us,
            latency.p99_us,
            latency.max_us,
            bracket.p50_us,
            bracket.p99_us,
            bracket.max_us,
            board.unmatched
        ));
    }
    line(&format!("- Records: {} read, {} missing from the sequence.", report.records.total, report.records.lost));
    line("");
    line(&format!("![drift]({DRIFT_SVG})"));
    out
}

/// What the drift plot shows.
pub struct DriftPlot<'a> {
    pub title: String,
    pub samples: &'a [drift::Sample],
    pub fit: Option<&'a Fit>,
}

impl plot::Figure for DriftPlot<'_> {
    const SIZE_PX: (u32, u32) = (plot::WIDTH, plot::HEIGHT / 2 + 100);
    const NAME: &'static str = "the drift plot";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()> {
        draw(root, self)
    }
}

const SAMPLE_COLOR: RGBColor = RGBColor(44, 160, 44);
const FIT_COLOR: RGBColor = RGBColor(214, 39, 40);

/// The fit's confidence band in plot coordinates (x in s and y in µs from
/// the first sample): the lines of the interval's two slopes through the
/// fit's centre (the mean sample), as two triangles meeting there. None
/// when the interval is not a finite number.
fn confidence_band(fit: &Fit, x0: f64, offset0: f64, x_end: f64) -> Option<[[(f64, f64); 3]; 2]> {
    if !(fit.ci_half_ppm.is_finite() && fit.ci_half_ppm > 0.0) {
        return None;
    }
    let at = |x: f64, ppm: f64| {
        let reference = x0 + x * 1e6;
        let clock = fit.intercept_us + (1.0 + ppm * 1e-6) * (reference - fit.origin_us);
        (x, clock - reference - offset0)
    };
    let centre = ((fit.origin_us - x0) / 1e6).clamp(0.0, x_end);
    let (low, high) = (fit.ci_low_ppm(), fit.ci_high_ppm());
    Some([
        [at(0.0, low), at(0.0, high), at(centre, fit.drift_ppm)],
        [at(centre, fit.drift_ppm), at(x_end, low), at(x_end, high)],
    ])
}

/// Firmware minus reference time (µs, from the first sample) against
/// reference time (s, from the first sample), with the fitted line and its
/// confidence band.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &DriftPlot) -> anyhow::Result<()> {
    let fail = |error: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing the drift plot: {error}");
    root.fill(&WHITE).map_err(fail)?;
    let Some(first) = plot.samples.first() else {
        root.draw(&Text::new("no time-base samples", (40, 60), (FONT, 18).into_font().color(&BLACK.mix(0.6))))
            .map_err(fail)?;
        return Ok(());
    };
    let (x0, offset0) = (first.reference_us, first.clock_us - first.reference_us);
    let point =
        |sample: &drift::Sample| ((sample.reference_us - x0) / 1e6, sample.clock_us - sample.reference_us - offset0);
    let points: Vec<(f64, f64)> = plot.samples.iter().map(point).collect();
    let x_end = points.iter().map(|&(x, _)| x).fold(0.0_f64, f64::max).max(1.0);
    let line: Vec<(f64, f64)> = plot
        .fit
        .map(|fit| {
            [0.0, x_end]
                .iter()
                .map(|&x| {
                    let reference = x0 + x * 1e6;
                    (x, fit.clock_at(reference) - reference - offset0)
                })
                .collect()
        })
        .unwrap_or_default();
    let band = plot.fit.and_then(|fit| confidence_band(fit, x0, offset0, x_end)).unwrap_or_default();
    let (low, high) = points
        .iter()
        .chain(&line)
        .chain(band.iter().flatten())
        .fold((0.0_f64, 0.0_f64), |(low, high), &(_, y)| (low.min(y), high.max(y)));
    let pad = ((high - low) * 0.08).max(1.0);
    let caption = match plot.fit {
        Some(fit) => format!("{} — fit {:+.2} ppm ± {:.2}", plot.title, fit.drift_ppm, fit.ci_half_ppm),
        None => format!("{} — not enough samples for a fit", plot.title),
    };
    let mut chart = ChartBuilder::on(root)
        .caption(caption, (FONT, 17))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..x_end, (low - pad)..(high + pad))
        .map_err(fail)?;
    let x_decimals = plot::decimals(x_end);
    let y_decimals = plot::decimals(high - low + 2.0 * pad);
    chart
        .configure_mesh()
        .x_desc("reference time (s, the board's hardware counter)")
        .y_desc("firmware − reference (µs)")
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .x_label_formatter(&|value| plot::tick(*value, x_decimals))
        .y_label_formatter(&|value| plot::tick(*value, y_decimals))
        .light_line_style(BLACK.mix(0.05))
        .bold_line_style(BLACK.mix(0.15))
        .draw()
        .map_err(fail)?;
    if !band.is_empty() {
        let label = match plot.fit {
            Some(fit) => format!("{:.0} % confidence band of the slope", fit.confidence * 100.0),
            None => "confidence band".to_string(),
        };
        chart
            .draw_series(band.iter().map(|triangle| Polygon::new(triangle.to_vec(), FIT_COLOR.mix(0.18).filled())))
            .map_err(fail)?
            .label(label)
            .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 20, y + 6)], FIT_COLOR.mix(0.3).filled()));
    }
    chart
        .draw_series(points.iter().map(|&(x, y)| Circle::new((x, y), 3, SAMPLE_COLOR.filled())))
        .map_err(fail)?
        .label("time-base samples")
        .legend(|(x, y)| Circle::new((x + 10, y), 4, SAMPLE_COLOR.filled()));
    if !line.is_empty() {
        chart
            .draw_series(LineSeries::new(line, FIT_COLOR.stroke_width(2)))
            .map_err(fail)?
            .label("least-squares fit")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], FIT_COLOR.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .label_font((FONT, 13))
        .draw()
        .map_err(fail)?;
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::Path;
    use std::time::Duration;

    use bench_contract::{Ack, AckStatus, Body, Button, CommandCode, Press, PressResult, Record, Snapshot, TimeBase};
    use bench_hil::drift::FitOptions;
    use bench_hil::run::RunError;
    use bench_hil::schedule;
    use bench_sim::scenario::Scenario;

    use super::*;
    use crate::report::schema;
    use crate::report::tests::TempDir;

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
        let comparison = bench_hil::compare::compare("60+1", 1_000, &records);
        let samples = drift::accounting_samples(&records, &hello());
        GameRun {
            schedule,
            tick_us: 1_000,
            start_us: Some(1_000_000),
            sent: Vec::new(),
            guest_us: 7_000_000,
            host_elapsed: Duration::from_secs(3),
            error,
            comparison: Some(comparison),
            latency: Percentiles::of(&bench_hil::run::press_latencies(&records)),
            board_latency: None,
            drift: drift::fit(&samples, &FitOptions::default()),
            records,
        }
    }

    fn write(runs: &[GameRun], error: Option<String>, dir: &Path) -> Report {
        let qemu = BoardRunInput {
            probe: None,
            description: "QEMU 7.2.0 lm3s6965evb".into(),
            games: vec![0],
            error: None,
            accounting_drift_ppm: Some(-2.5),
            oscillator: None,
        };
        write_on(runs, error, dir, vec![qemu])
    }

    fn write_on(runs: &[GameRun], error: Option<String>, dir: &Path, boards: Vec<BoardRunInput>) -> Report {
        let scenario = scenario();
        let time_bases: Vec<Record> = runs.iter().flat_map(|run| run.records.clone()).collect();
        let samples = drift::accounting_samples(&time_bases, &hello());
        let input = HilReportInput {
            board: "qemu",
            board_description: "QEMU 7.2.0 lm3s6965evb (cortex-m3), icount shift=4,sleep=off".into(),
            firmware_file: Path::new("/cache/firmware/normal.elf"),
            firmware_sha256: sha256_hex(b"elf"),
            hello: Some(hello()),
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
        };
        let (report, written) = write_hil_report(dir, &input).expect("the report is written");
        let names: Vec<String> = written
            .iter()
            .filter_map(|path| path.file_name())
            .map(|name| name.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [DRIFT_SVG, DRIFT_PNG, LATENCY_SVG, LATENCY_PNG, JUNIT_XML, SUMMARY_MD, INDEX_HTML, REPORT_JSON]
        );
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
            first_of_each: Vec::new(),
            mismatches: Vec::new(),
            latency: Some(LatencyInfo { count: 40, min_us: 4, p50_us: 6, p90_us: 9, p99_us: 3_000, max_us: 3_000 }),
        }
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
            mismatches: MismatchTotals { total: 0, by_quantity: BTreeMap::new() },
            drift: DriftInfo {
                kind: "accounting".into(),
                reference: "the board's free-running hardware counter (1 Hz, 32 bits), in the same TimeBase record"
                    .into(),
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
        report.mismatches = MismatchTotals { total: count, by_quantity: game.mismatches_by_quantity.clone() };
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
        run.board_latency = Some(bench_hil::run::BoardLatency {
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
        assert_eq!(bins.len(), bench_hil::run::LATENCY_BIN_EDGES_US.len());
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
            ("a board bench has no --board for", |r| r["board"]["kind"] = "arduino".into()),
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
            RunError::Silent { waiting_for: "press 3".into(), waited: Duration::from_secs(10), last_at_us: Some(3) };
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
}
