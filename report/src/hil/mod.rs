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
//! A HIL report is a measurement. On QEMU in lockstep it is still a
//! function of firmware, scenario and seed: the same `report.json` byte for
//! byte whatever the host's load (`hil/LOCKSTEP.md`, `tests/cli_hil.rs`).
//! On a board on a probe, which runs in host time, press instants,
//! latencies and drift vary from run to run. What varies with the host
//! (wall time, speed) goes to `run.json` only.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Context;
use bench_contract::{Capabilities, Hello, CONTRACT_VERSION_CAPABILITIES};
use bench_hil::judge::compare::{Comparison, GameSummary, Mismatch};
use bench_hil::judge::drift::{self, Fit, FitError};
use bench_hil::judge::latency::Percentiles;
use bench_hil::needs::{ArbiterFunction, ControlFeature};
use bench_hil::session::{shape_text, AckCheck, GameRun, Oscillator};
use bench_sim::coverage::{exercises_check, Coverage};
use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::check::CheckInfo;
use crate::files::{self, Content, Written, RUN_JSON};
use crate::format::markdown::{micros, number_ranges, signed};

pub mod drift_plot;
pub mod html;
pub mod junit;
pub mod latency_plot;
pub mod merge;
pub mod summary;
pub use summary::capabilities_text;
#[cfg(test)]
pub(crate) mod tests;

pub use drift_plot::DriftPlot;
pub use summary::render_summary;

/// The schema's name and major version (adding a field keeps it).
pub const SCHEMA: &str = "bench.hil.report/1";
pub const RUN_SCHEMA: &str = "bench.hil.run/1";

/// Check names, stable for readers.
pub const COMPLETE_CHECK: &str = "every game played to its end";
pub const MATCH_CHECK: &str = "the firmware matches the clock model";
pub const DRIFT_CHECK: &str = "accounting drift within tolerance";
pub const ACKS_CHECK: &str = "the firmware acknowledges refused lines as the contract says";

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
    pub capabilities: Option<Capabilities>,
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
    /// The Acks of refused lines, sent right after boot (every board's, in
    /// turn); `None` when no board got that far.
    pub acks: Option<&'a AckCheck>,
    /// An uninstrumented firmware read through a map (`--observe`).
    pub observed: Option<ObservedInfo>,
    /// `--shard I/N`: (I, N, the sweep's games); `games_requested` is the
    /// shard's share of them.
    pub shard: Option<(u64, u64, u64)>,
    /// The replay files of the failing games.
    pub replays: &'a [crate::replays::ReplayText],
}

/// How an uninstrumented firmware was read (`bench hil --observe MAP`): its
/// state polled from RAM, so every instant is known only to the poll.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedInfo {
    /// The map file.
    pub map: String,
    pub poll_interval_us: u64,
    /// What a difference must exceed to be a mismatch: one firmware tick
    /// and one poll interval.
    pub tolerance_us: u64,
}

impl ObservedInfo {
    /// What the comparison allowed, said once where the match check is.
    fn tolerance_text(&self) -> String {
        format!(
            "0 mismatches, within one firmware tick and one poll interval ({} µs in all: the state was read every {} µs through {}, not reported)",
            self.tolerance_us, self.poll_interval_us, self.map
        )
    }
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
    /// (`bench_hil::judge::latency::LATENCY_BIN_EDGES_US`), every bin in order, empty
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
    /// Rule coverage: every transition of the clock model, how often the
    /// compared games went through it. Absent in reports written before it
    /// existed.
    #[serde(default)]
    pub coverage: Vec<super::coverage::Entry>,
    /// The Acks of the lines the contract refuses, sent right after boot
    /// (`bench_hil::session::AckCheck`); null when the run never got that far,
    /// absent in reports written before bench sent them.
    #[serde(default)]
    pub contract_acks: Option<Vec<AckLineInfo>>,
    /// `bench hil --observe`: how the firmware's state was read; absent
    /// when the firmware reported it (records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<ObservedInfo>,
    /// `bench hil --shard I/N`: which shard this is, and what `bench report
    /// merge` needs besides the rest to write the report of all the
    /// shards; null in a run without `--shard` and in a merged report,
    /// absent in reports written before it existed.
    #[serde(default)]
    pub shard: Option<Shard>,
    pub games_detail: Vec<GameInfo>,
    /// The other files of this report and their SHA-256.
    pub files: BTreeMap<String, String>,
}

/// A shard of a HIL sweep: games `g` with `g mod count = index − 1` of
/// `0..games`, as board `index` of a farm of `count` boards plays them.
/// Percentiles and the drift plot are not sums: the raw values they are
/// made of travel with the shard, so the merged report is the farm's
/// exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based.
    pub index: u64,
    pub count: u64,
    /// The sweep's games, `0..games` (`games.requested` is this shard's).
    pub games: u64,
    /// Every press latency of the shard's games, µs, in game order.
    pub press_latencies_us: Vec<u64>,
    /// The board-measured latencies and brackets ([`BoardLatencyInfo`]), µs.
    pub board_latencies_us: Vec<u64>,
    pub board_brackets_us: Vec<u64>,
    pub board_unmatched: u64,
    /// The samples of the accounting drift (`drift`), refitted for the plot.
    pub drift_samples: Vec<drift::Sample>,
    /// The rules the scenario is there for (its `expect.exercises`), to
    /// check against the coverage of every shard.
    pub exercises: Vec<String>,
}

/// One line of the Ack check: what was sent, the Ack the contract asks
/// for and the firmware's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckLineInfo {
    pub line: String,
    pub expected: String,
    /// Null when the line could not be sent (`not_sent` says why).
    pub firmware: Option<String>,
    pub not_sent: Option<String>,
    pub wrong: bool,
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
    /// Hello's contract version (null if no Hello came). Absent in reports
    /// written before it was recorded.
    #[serde(default)]
    pub contract_version: Option<u16>,
    /// What the firmware supports: its Capabilities record (contract 3), or
    /// what a contract 1 or 2 firmware is taken to support.
    #[serde(default)]
    pub capabilities: Option<CapabilitiesInfo>,
}

/// The Capabilities record, by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapabilitiesInfo {
    /// True when the firmware sent a Capabilities record; false when bench
    /// took a contract 1 or 2 firmware to support everything.
    pub announced: bool,
    /// Time-control features (`bench_hil::needs::ControlFeature` keys).
    pub controls: Vec<String>,
    /// Arbiter functions (`bench_hil::needs::ArbiterFunction` keys).
    pub arbiter: Vec<String>,
    /// The displays show which flag fell first: both flags are ruled by
    /// their order (6.12), or as of unknown order when false.
    pub shows_flag_order: bool,
}

impl CapabilitiesInfo {
    pub fn new(capabilities: &Capabilities, announced: bool) -> CapabilitiesInfo {
        CapabilitiesInfo {
            announced,
            controls: ControlFeature::of_bits(capabilities.controls).iter().map(|f| f.key().to_string()).collect(),
            arbiter: ArbiterFunction::of_bits(capabilities.arbiter).iter().map(|f| f.key().to_string()).collect(),
            shows_flag_order: capabilities.shows_flag_order,
        }
    }
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
    /// The largest difference of each time quantity (and the largest
    /// accumulated rounding) over every game, µs. Empty in a report
    /// written before bench kept it (so such a report still loads as a
    /// baseline).
    #[serde(default)]
    pub largest_difference_us: BTreeMap<String, u64>,
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
    let edges = bench_hil::judge::latency::LATENCY_BIN_EDGES_US;
    let counts = bench_hil::judge::latency::latency_histogram(latencies_us);
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
    /// The largest difference of each time quantity over the run, as
    /// (quantity, `0.412 ms` below a second, else `20.000000 s`), in key
    /// order; empty when nothing was compared. Shown next to the mismatch
    /// counts.
    pub fn largest_differences(&self) -> Vec<(String, String)> {
        let text = |us: u64| match us {
            0..1_000_000 => format!("{}.{:03} ms", us / 1_000, us % 1_000),
            _ => bench_hil::judge::compare::seconds(us),
        };
        self.mismatches.largest_difference_us.iter().map(|(key, us)| (key.clone(), text(*us))).collect()
    }

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
            self.accounting_drift_ppm.map_or_else(none, |ppm| format!("{} ppm", signed(ppm, 3))),
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
            (Some(ppm), Some(half)) => format!("{} ppm ± {half:.3}", signed(ppm, 3)),
            (Some(ppm), None) => format!("{} ppm (no confidence interval)", signed(ppm, 3)),
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
    /// The largest judged difference of each time quantity compared, µs,
    /// matched or not, and `rounding.accumulated_us`
    /// (`bench_hil::judge::compare::tolerance`).
    #[serde(default)]
    pub largest_difference_us: BTreeMap<String, u64>,
    /// The first mismatch of each quantity, earliest first: where each
    /// difference began.
    pub first_of_each: Vec<MismatchInfo>,
    /// The first [`MISMATCHES_LISTED`]: causes (press, flag, period, result) before snapshots.
    pub mismatches: Vec<MismatchInfo>,
    pub latency: Option<LatencyInfo>,
    /// A failing game's replay file, a path in the report folder
    /// ([`crate::replays`]).
    pub replay_file: Option<String>,
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
        result: bench_hil::judge::compare::ruling_text(summary.ruling),
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
        largest_difference_us: comparison
            .map(|comparison| comparison.largest_us.iter().map(|(key, value)| (key.to_string(), *value)).collect())
            .unwrap_or_default(),
        first_of_each: comparison
            .map(|comparison| comparison.first_of_each.iter().map(mismatch_info).collect())
            .unwrap_or_default(),
        mismatches: comparison
            .map(|comparison| comparison.mismatches.iter().take(MISMATCHES_LISTED).map(mismatch_info).collect())
            .unwrap_or_default(),
        latency: run.latency.as_ref().map(latency),
        replay_file: None,
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

/// The board-measured latencies and brackets of every game, µs, and the
/// presses without a matching record.
fn board_latency_values(runs: &[GameRun]) -> (Vec<u64>, Vec<u64>, u64) {
    let measured: Vec<&bench_hil::judge::latency::BoardLatency> =
        runs.iter().filter_map(|run| run.board_latency.as_ref()).collect();
    let latencies: Vec<u64> = measured.iter().flat_map(|board| board.latencies_us.iter().copied()).collect();
    let brackets: Vec<u64> = measured.iter().flat_map(|board| board.brackets_us.iter().copied()).collect();
    let unmatched = measured.iter().map(|board| count(board.unmatched)).fold(0, u64::saturating_add);
    (latencies, brackets, unmatched)
}

/// Board latency over every game; `None` when no press was bracketed.
pub(crate) fn board_latency_info(
    latencies_us: &[u64],
    brackets_us: &[u64],
    unmatched: u64,
) -> Option<BoardLatencyInfo> {
    Some(BoardLatencyInfo {
        latency: latency(&Percentiles::of(latencies_us)?),
        bracket: latency(&Percentiles::of(brackets_us)?),
        unmatched,
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

/// The Ack check's lines, for `contract_acks`.
fn ack_lines(acks: &AckCheck) -> Vec<AckLineInfo> {
    acks.lines
        .iter()
        .map(|line| AckLineInfo {
            line: line.line.clone(),
            expected: shape_text(&line.expected),
            firmware: line.firmware.as_ref().map(shape_text),
            not_sent: line.not_sent.clone(),
            wrong: line.wrong(),
        })
        .collect()
}

/// A wrong Ack fails the run: the games send only good lines, so this is
/// the one place a firmware's refusals are seen.
pub(crate) fn acks_check(lines: &[AckLineInfo]) -> CheckInfo {
    let wrong: Vec<String> = lines
        .iter()
        .filter(|line| line.wrong)
        .filter_map(|line| {
            let firmware = line.firmware.as_ref()?;
            Some(format!("`{}`: expected {}, firmware {firmware}", line.line, line.expected))
        })
        .collect();
    let answered = lines.iter().filter(|line| line.firmware.is_some()).count();
    CheckInfo {
        name: ACKS_CHECK.into(),
        passed: wrong.is_empty(),
        measured: if wrong.is_empty() {
            format!("{answered} lines answered, each as expected")
        } else {
            format!("{} of {answered} lines answered wrongly: {}", wrong.len(), wrong.join("; "))
        },
        expected: "each Ack as bench's parsers and clock core answer: command, status, error position, line count"
            .into(),
    }
}

/// The report, without `files`.
pub fn build(input: &HilReportInput) -> Report {
    let mut games_detail: Vec<GameInfo> = input.runs.iter().map(game_info).collect();
    for game in &mut games_detail {
        if input.replays.iter().any(|replay| replay.game == game.game) {
            game.replay_file = Some(crate::replays::path_in_report(game.game));
        }
    }
    let drift = drift_info(input);
    // An observed firmware stamps nothing: its presses have no latency.
    let latencies: Vec<u64> = match input.observed {
        Some(_) => Vec::new(),
        None => input.runs.iter().flat_map(|run| bench_hil::judge::latency::press_latencies(&run.records)).collect(),
    };
    let (board_latencies, board_brackets, board_unmatched) = board_latency_values(input.runs);
    // An observed firmware sends no TimeBase records: no drift to judge.
    let drift_check = input.observed.is_none().then(|| drift_check(input, &drift));
    let parts = Parts {
        games_requested: input.games_requested,
        error: input.error.clone(),
        observed: input.observed.clone(),
        drift_check,
        exercised: input.scenario.expect.exercised(),
        coverage: model_coverage(input.runs),
        contract_acks: input.acks.map(ack_lines),
    };
    let shard = input.shard.map(|(index, count, games)| Shard {
        index,
        count,
        games,
        press_latencies_us: latencies.clone(),
        board_latencies_us: board_latencies.clone(),
        board_brackets_us: board_brackets.clone(),
        board_unmatched,
        drift_samples: input.drift_samples.clone(),
        exercises: input.scenario.expect.exercises.clone(),
    });
    let mut report = Report {
        schema: SCHEMA.into(),
        bench_version: env!("CARGO_PKG_VERSION").into(),
        complete: false,
        verdict: String::new(),
        command: input.command_line.clone(),
        board: BoardInfo { kind: input.board.to_string(), description: input.board_description.clone() },
        firmware: firmware_info(input),
        scenario: scenario_info(input),
        seed: input.seed,
        games: Games { requested: input.games_requested, played: 0, complete: 0, passed: 0 },
        checks: Vec::new(),
        mismatches: mismatch_totals(&[]),
        drift,
        latency: Percentiles::of(&latencies).as_ref().map(latency),
        latency_histogram: latency_bins(&latencies),
        records: RecordTotals {
            total: input.runs.iter().map(|run| count(run.records.len())).fold(0u64, u64::saturating_add),
            lost: 0,
        },
        error: input.error.clone(),
        board_latency: board_latency_info(&board_latencies, &board_brackets, board_unmatched),
        boards: input.boards.iter().map(board_info).collect(),
        coverage: Vec::new(),
        contract_acks: None,
        observed: input.observed.clone(),
        shard,
        games_detail,
        files: BTreeMap::new(),
    };
    parts.judge(&mut report);
    report
}

/// What a report's totals, checks and verdict are worked out from besides
/// its games: `build` has it from the run, `bench report merge` from the
/// shards.
pub(crate) struct Parts {
    pub games_requested: u64,
    /// What ended the run early, if anything did before or between games.
    pub error: Option<String>,
    pub observed: Option<ObservedInfo>,
    /// The accounting drift's check; `None` for an observed firmware.
    pub drift_check: Option<CheckInfo>,
    /// The rules the scenario is there for (`expect.exercises`).
    pub exercised: Vec<chessclock::Transition>,
    pub coverage: Coverage,
    pub contract_acks: Option<Vec<AckLineInfo>>,
}

impl Parts {
    /// Fills in what follows from `report.games_detail` and these parts:
    /// the game totals, mismatches, records lost, coverage, the Acks, the
    /// checks, completeness and the verdict.
    pub(crate) fn judge(self, report: &mut Report) {
        let games_detail = &report.games_detail;
        let played = count(games_detail.len());
        let complete_games = count(games_detail.iter().filter(|game| game.complete).count());
        let complete = self.error.is_none() && played == self.games_requested && complete_games == played;
        let mismatches = mismatch_totals(games_detail);
        let compared = games_detail.iter().filter(|game| game.model.is_some()).count();
        report.games = Games {
            requested: self.games_requested,
            played,
            complete: complete_games,
            passed: count(games_detail.iter().filter(|game| game.passed).count()),
        };
        report.records.lost = games_detail.iter().map(|game| game.records_lost).fold(0u64, u64::saturating_add);
        let mut checks = vec![
            complete_check(self.games_requested, self.error.as_deref(), complete, complete_games),
            match_check(self.observed.as_ref(), mismatches.total, compared, games_detail.len()),
        ];
        checks.extend(self.drift_check);
        if let Some(check) = exercises_check(&self.exercised, &self.coverage) {
            checks.push(CheckInfo {
                name: check.name,
                passed: check.passed,
                measured: check.measured,
                expected: check.expected,
            });
        }
        if let Some(lines) = &self.contract_acks {
            checks.push(acks_check(lines));
        }
        report.verdict = if complete && checks.iter().all(|check| check.passed) { "pass" } else { "fail" }.into();
        report.complete = complete;
        report.checks = checks;
        report.mismatches = mismatches;
        report.coverage = super::coverage::entries(&self.coverage);
        report.contract_acks = self.contract_acks;
    }
}

/// Whether the firmware matched the model in every game, each compared.
fn match_check(observed: Option<&ObservedInfo>, mismatches: u64, compared: usize, games: usize) -> CheckInfo {
    CheckInfo {
        name: MATCH_CHECK.into(),
        passed: mismatches == 0 && compared > 0 && compared == games,
        measured: format!("{mismatches} mismatches in {compared} compared games"),
        expected: observed
            .map_or_else(|| "0 mismatches, within one firmware tick".into(), ObservedInfo::tolerance_text),
    }
}

fn scenario_info(input: &HilReportInput) -> ScenarioInfo {
    ScenarioInfo {
        name: input.scenario.name.clone(),
        file: input.scenario_file.display().to_string(),
        sha256: input.scenario_sha256.clone(),
        description: input.scenario.description.clone(),
        control: input.scenario.control.text.clone(),
    }
}

/// The mismatches of all games: per quantity, the largest difference of
/// each, and in all.
fn mismatch_totals(games_detail: &[GameInfo]) -> MismatchTotals {
    let mut by_quantity: BTreeMap<String, u64> = BTreeMap::new();
    for game in games_detail {
        for (key, value) in &game.mismatches_by_quantity {
            let entry = by_quantity.entry(key.clone()).or_insert(0);
            *entry = entry.saturating_add(*value);
        }
    }
    let mut largest_difference_us: BTreeMap<String, u64> = BTreeMap::new();
    for (key, value) in games_detail.iter().flat_map(|game| &game.largest_difference_us) {
        let entry = largest_difference_us.entry(key.clone()).or_insert(0);
        *entry = (*entry).max(*value);
    }
    let total = games_detail.iter().map(|game| game.mismatches_total).fold(0u64, u64::saturating_add);
    MismatchTotals { total, by_quantity, largest_difference_us }
}

/// The model's rule coverage over the games that were compared.
fn model_coverage(runs: &[GameRun]) -> Coverage {
    let mut coverage = Coverage::default();
    for run in runs {
        if let Some(Ok(comparison)) = &run.comparison {
            coverage.add_game(&comparison.model_transitions);
        }
    }
    coverage
}

/// Every game played to its end, every record seen.
fn complete_check(requested: u64, error: Option<&str>, complete: bool, complete_games: u64) -> CheckInfo {
    CheckInfo {
        name: COMPLETE_CHECK.into(),
        passed: complete,
        measured: match error {
            Some(error) => format!("{complete_games} of {requested} games, then: {error}"),
            None => format!("{complete_games} of {requested} games"),
        },
        expected: format!("{requested} games, every record seen"),
    }
}

/// The accounting drift's interval against the tolerance.
fn drift_check(input: &HilReportInput, drift: &DriftInfo) -> CheckInfo {
    CheckInfo {
        name: DRIFT_CHECK.into(),
        passed: drift.within_tolerance,
        measured: match (&input.drift, drift.error.as_ref()) {
            (Ok(fit), _) => format!("{} ppm ± {:.2}", signed(fit.drift_ppm, 2), fit.ci_half_ppm),
            (Err(_), Some(error)) => format!("not measured: {error}"),
            (Err(_), None) => "not measured".into(),
        },
        expected: format!("an interval that reaches ±{} ppm", input.drift_tolerance_ppm),
    }
}

/// The firmware as its Hello and Capabilities records describe it.
fn firmware_info(input: &HilReportInput) -> FirmwareInfo {
    let hello = input.hello;
    FirmwareInfo {
        file: input.firmware_file.display().to_string(),
        sha256: input.firmware_sha256.clone(),
        name: hello.map(|hello| String::from_utf8_lossy(&hello.firmware_name).trim_end_matches('\0').to_string()),
        version: hello.map(|hello| hello.firmware_version),
        tick_us: hello.map(|hello| hello.tick_us),
        debounce_us: hello.map(|hello| hello.debounce_us),
        hw_counter_hz: hello.map(|hello| hello.hw_counter_hz),
        contract_version: hello.map(|hello| hello.contract_version),
        capabilities: input.capabilities.map(|capabilities| {
            let announced = hello.is_some_and(|hello| hello.contract_version >= CONTRACT_VERSION_CAPABILITIES);
            CapabilitiesInfo::new(&capabilities, announced)
        }),
    }
}

/// A HIL report's folder before it is written: what each of its files is
/// rendered from ([`crate::files::FILES`]).
pub struct Folder<'i> {
    /// The report, without its `files` (each view is a function of the
    /// rest alone; `report.json` adds their hashes).
    pub report: Report,
    /// The accounting drift's samples and fit, for the drift plot.
    pub drift_samples: &'i [drift::Sample],
    pub drift_fit: Option<&'i Fit>,
}

/// Writes the report into `dir` (created if missing): the failing games'
/// replay files, `drift.svg`, `drift.png`, `latency.svg`, `latency.png`,
/// `junit.xml`, `summary.md`, `index.html`, then `report.json`. Returns the report and the paths written, `report.json`
/// last.
pub fn write_hil_report(dir: &Path, input: &HilReportInput) -> anyhow::Result<(Report, Vec<PathBuf>)> {
    crate::replays::write(dir, input.replays)?;
    write_folder(dir, build(input), &input.drift_samples, input.drift.as_ref().ok())
}

/// Writes `report`'s folder into `dir`, the drift plot drawn from
/// `drift_samples` and `drift_fit`.
pub(crate) fn write_folder(
    dir: &Path,
    report: Report,
    drift_samples: &[drift::Sample],
    drift_fit: Option<&Fit>,
) -> anyhow::Result<(Report, Vec<PathBuf>)> {
    let folder = Folder { report, drift_samples, drift_fit };
    let written = files::write_folder(dir, &folder)?;
    let mut report = folder.report;
    report.files = written.hashes();
    Ok((report, written.paths()))
}

/// `report.json`: the report, naming every file written before it with
/// its SHA-256.
pub fn render_report_json<'s>(folder: &'s Folder, written: &Written) -> anyhow::Result<Content<'s>> {
    let mut report = folder.report.clone();
    report.files = written.hashes();
    let bytes = crate::format::json::to_bytes(&report)?;
    // Under this crate's `cargo test`, every report a test writes is checked
    // against its JSON Schema (reports/schema/).
    #[cfg(test)]
    crate::schema::assert_valid(&bytes);
    Ok(Content::Bytes(bytes))
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
    /// Lockstep stops over every game, by kind, and where host time went
    /// (none on a board in real time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stops: Option<StopFacts>,
}

/// A run's lockstep stops by kind and the host time each kind took (from
/// the step that reached a stop to the next step), `hil/LOCKSTEP.md`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StopFacts {
    pub record_stops: u64,
    pub tick_stops: u64,
    pub record_host_ms: u64,
    pub tick_host_ms: u64,
}

impl StopFacts {
    /// The runs' stops; `None` when no game stopped (a board in real time).
    pub fn of(runs: &[GameRun]) -> Option<StopFacts> {
        let mut tally = bench_hil::session::StopTally::default();
        for run in runs {
            tally.add(&run.stops);
        }
        let millis = |host: std::time::Duration| u64::try_from(host.as_millis()).unwrap_or(u64::MAX);
        (tally.record_stops + tally.tick_stops > 0).then(|| StopFacts {
            record_stops: tally.record_stops,
            tick_stops: tally.tick_stops,
            record_host_ms: millis(tally.record_host),
            tick_host_ms: millis(tally.tick_host),
        })
    }
}

/// Writes `run.json` into `dir`, atomically.
pub fn write_hil_run_facts(dir: &Path, facts: &HilRunFacts) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating the report folder {}", dir.display()))?;
    atomic::write_bytes(dir, RUN_JSON, &crate::format::json::to_bytes(facts)?)
}
