//! A report's numbers as the rules read them, whatever its kind.

use std::collections::BTreeMap;

use crate::check::CheckInfo;
use crate::coverage::Entry;
use crate::hil::{self, Report as HilReport};
use crate::sim::report::Report;

/// A report's numbers, as the rules read them: the same for every kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Measurements {
    /// `sim`, `hil`.
    pub kind: &'static str,
    /// One line: what was run (scenario, seed, games).
    pub subject: String,
    /// The scenario's name: a baseline must be of the same scenario.
    pub scenario: String,
    pub complete: bool,
    pub played: u64,
    pub planned: u64,
    /// The checks the report judged itself (a scenario expectation, …).
    pub checks: Vec<CheckInfo>,
    /// The metrics this kind of report has; a rule on any other is skipped.
    pub metrics: BTreeMap<Metric, Value>,
    /// Rule coverage: times each transition of the clock model happened,
    /// by name. `None`: the report carries none (written before bench
    /// counted it).
    pub coverage: Option<BTreeMap<String, u64>>,
}

/// What a rule can measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Metric {
    /// Games (or comparisons) in which a rule invariant was violated.
    OracleViolations,
    /// Games that failed for any reason.
    FailedGames,
    /// Largest device − ideal displayed-time difference.
    TimeError,
    /// The device time base's largest |rate error|.
    Drift,
    /// Games whose device result equals the reference's.
    Agreement,
    /// Mismatches between the firmware and the clock model, any quantity
    /// compared (displayed times, flags, periods, rulings; HIL).
    RuleMismatches,
    /// 99th percentile of the press latency, edge to registered (HIL).
    LatencyP99,
    /// Full 6.10 searches that gave up and were ruled "can mate" (legal-move
    /// mode): flag rulings resting on the conservative reading.
    UndecidedMateSearches,
}

impl Metric {
    pub(super) fn noun(self) -> &'static str {
        match self {
            Metric::OracleViolations => "oracle violations",
            Metric::FailedGames => "failed games",
            Metric::TimeError => "a time error",
            Metric::Drift => "a drift measurement",
            Metric::Agreement => "an agreement count",
            Metric::RuleMismatches => "rule mismatches",
            Metric::LatencyP99 => "latency",
            Metric::UndecidedMateSearches => "6.10 search counts",
        }
    }
}

/// A measured value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Count(u64),
    Micros(u64),
    /// Parts per billion (an absolute value).
    Ppb(u64),
    /// `part` of `whole`.
    Ratio {
        part: u64,
        whole: u64,
    },
    /// The report has this metric, but nothing to measure it from.
    NoData(String),
}

pub(super) fn sim_measurements(report: &Report) -> Measurements {
    let games = &report.games;
    let mut metrics = BTreeMap::new();
    metrics.insert(Metric::OracleViolations, Value::Count(report.games_with_violations));
    metrics.insert(Metric::FailedGames, Value::Count(report.games_failed));
    metrics.insert(Metric::TimeError, Value::Micros(report.max_time_error_us));
    metrics.insert(Metric::UndecidedMateSearches, Value::Count(report.mate_searches.gave_up));
    metrics.insert(
        Metric::Drift,
        match report.drift_ppb {
            Some(range) => Value::Ppb(range.min.unsigned_abs().max(range.max.unsigned_abs())),
            None => Value::NoData("no drift sample 10 s or more into a game".into()),
        },
    );
    metrics.insert(
        Metric::Agreement,
        if report.agreement.games == 0 {
            Value::NoData("no game played".into())
        } else {
            Value::Ratio { part: report.agreement.agreeing, whole: report.agreement.games }
        },
    );
    Measurements {
        kind: "sim",
        subject: format!(
            "simulation of `{}`, seed {}, games {}..{} ({} played)",
            report.scenario.name, report.seed, games.start, games.end, games.played
        ),
        scenario: report.scenario.name.clone(),
        complete: report.complete,
        played: games.played,
        // The loader refuses games.end before games.start: never saturates.
        planned: games.end.saturating_sub(games.start),
        checks: report.checks.clone(),
        metrics,
        coverage: coverage_counts(&report.coverage),
    }
}

/// `ppm` as a whole number of parts per billion, its absolute value rounded
/// to the nearest (None: not a finite number, or beyond 64 bits of ppb; the
/// loader refuses a drift beyond ±1e9 ppm, so a loaded report's converts).
fn abs_ppb(ppm: f64) -> Option<u64> {
    let ppb = (ppm * 1_000.0).abs().round();
    // A float-to-integer cast saturates; u64::MAX ppb is not a drift.
    (ppb.is_finite() && ppb < u64::MAX as f64).then_some(ppb as u64)
}

pub(super) fn hil_measurements(report: &HilReport) -> Measurements {
    let games = &report.games;
    let compared: Vec<&hil::GameInfo> =
        report.games_detail.iter().filter(|game| game.model.is_some() && game.firmware.is_some()).collect();
    let agreeing = compared.iter().filter(|game| game.result_agrees).count() as u64;
    let mut metrics = BTreeMap::new();
    // Counted, not subtracted: games.played − games.passed, which the loader
    // checks against games_detail, without a subtraction that could clamp.
    let failed = report.games_detail.iter().filter(|game| !game.passed).count();
    metrics.insert(Metric::FailedGames, Value::Count(u64::try_from(failed).unwrap_or(u64::MAX)));
    metrics.insert(
        Metric::RuleMismatches,
        if compared.is_empty() {
            Value::NoData("no game was compared with the clock model".into())
        } else {
            Value::Count(report.mismatches.total)
        },
    );
    metrics.insert(
        Metric::Agreement,
        if compared.is_empty() {
            Value::NoData("no game was compared with the clock model".into())
        } else {
            Value::Ratio { part: agreeing, whole: compared.len() as u64 }
        },
    );
    metrics.insert(
        Metric::LatencyP99,
        match &report.latency {
            Some(latency) => Value::Micros(latency.p99_us),
            None if report.observed.is_some() => Value::NoData("an observed firmware stamps no press".into()),
            None => Value::NoData("no press was registered".into()),
        },
    );
    metrics.insert(
        Metric::Drift,
        match report.drift.ppm.and_then(abs_ppb) {
            Some(ppb) => Value::Ppb(ppb),
            None => Value::NoData(format!(
                "accounting drift not measured ({})",
                report.drift.error.as_deref().unwrap_or("no fit")
            )),
        },
    );
    Measurements {
        kind: "hil",
        subject: format!(
            "hardware in the loop: `{}` on {}, firmware {} (sha256 {}…), seed {}, {} of {} games played",
            report.scenario.name,
            report.board.kind,
            report.firmware.file,
            report.firmware.sha256.get(..16).unwrap_or(&report.firmware.sha256),
            report.seed,
            games.played,
            games.requested
        ),
        scenario: report.scenario.name.clone(),
        complete: report.complete,
        played: games.played,
        planned: games.requested,
        checks: report.checks.clone(),
        metrics,
        coverage: coverage_counts(&report.coverage),
    }
}

fn coverage_counts(entries: &[Entry]) -> Option<BTreeMap<String, u64>> {
    (!entries.is_empty()).then(|| entries.iter().map(|entry| (entry.rule.clone(), entry.count)).collect())
}
