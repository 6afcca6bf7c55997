//! The release gate: a report's numbers against thresholds, and against a
//! baseline report (documented for users in `reports/README.md`, "The
//! gate"; `gate.example.toml` is the default rule set as a file).
//!
//! ```text
//!   report.json ──load──▶ AnyReport ──measurements──▶ Measurements ─┐
//!   baseline report.json ─────────(same)─────────────▶ Measurements ─┼─▶ evaluate ──▶ Verdicts ──▶ render
//!   gate.toml (or the defaults) ──────────────────────▶ Rules ───────┘
//! ```
//!
//! The rules never read a report kind's own types: they read
//! [`Measurements`], generic measured values (checks, counts, µs, ppb,
//! ratios) that any report kind provides. Each kind is an [`AnyReport`]
//! variant, a schema branch of [`parse`] with its consistency check, and a
//! conversion to [`Measurements`]:
//!
//! | Metric | simulation (`bench.sim.report/1`) | hardware in the loop (`bench.hil.report/1`) |
//! |---|---|---|
//! | oracle violations | `games_with_violations` | — (no oracle) |
//! | failed games | `games_failed` | `games.played − games.passed` |
//! | time error | `max_time_error_us` | — |
//! | drift | largest \|`drift_ppb`\| | \|`drift.ppm`\| of the fit, to the nearest ppb |
//! | agreement | `agreement` | games whose ruling at the end is the model's, of those compared |
//! | rule mismatches | — | `mismatches.total` (firmware against the clock model) |
//! | latency p99 | — | `latency.p99_us` |
//!
//! A rule on a metric a kind has not (—) is skipped for it, and so is one
//! on a metric with nothing to measure it from.
//!
//! `bench sim`, `bench hil` and `bench report merge` gate the report they
//! have just written through one function, [`apply_defaults`]: it reads the
//! report back as `bench gate` does and applies [`Rules::defaults`], so
//! their exit code is the gate's (`tests/cli_report.rs` checks each command
//! against `bench gate` on its report).

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::hil::{self, Report as HilReport};
use super::json::{self, CheckInfo, Report};
use super::REPORT_JSON;

/// A report of any kind bench writes, loaded and checked for consistency.
#[derive(Clone, Debug)]
pub enum AnyReport {
    Sim(Box<Report>),
    Hil(Box<HilReport>),
}

impl AnyReport {
    /// Whether every game or check the run was to do was done.
    pub fn complete(&self) -> bool {
        match self {
            AnyReport::Sim(report) => report.complete,
            AnyReport::Hil(report) => report.complete,
        }
    }

    /// The simulation report, if it is one.
    pub fn into_sim(self) -> Option<Report> {
        match self {
            AnyReport::Sim(report) => Some(*report),
            AnyReport::Hil(_) => None,
        }
    }

    /// The hardware-in-the-loop report, if it is one.
    pub fn into_hil(self) -> Option<HilReport> {
        match self {
            AnyReport::Hil(report) => Some(*report),
            AnyReport::Sim(_) => None,
        }
    }

    /// The report's numbers, as the rules read them.
    pub fn measurements(&self) -> Measurements {
        match self {
            AnyReport::Sim(report) => sim_measurements(report),
            AnyReport::Hil(report) => hil_measurements(report),
        }
    }
}

/// Why a report cannot be gated (or merged): a bad input, exit code 2.
#[derive(Debug)]
pub struct LoadError {
    pub path: PathBuf,
    pub problem: Problem,
}

#[derive(Debug)]
pub enum Problem {
    Missing,
    Unreadable(std::io::Error),
    Empty,
    /// The JSON ends early: a half-written or cut file.
    Truncated {
        line: usize,
        column: usize,
    },
    /// Not JSON at all, or broken inside.
    Corrupted(String),
    /// JSON, but no `schema` string: not a bench report.
    NoSchema,
    /// A bench report of a version this bench does not read.
    WrongVersion {
        found: String,
        supported: &'static str,
    },
    /// A schema bench does not know.
    UnknownSchema(String),
    /// The schema is right, but a field is missing or has the wrong type.
    Invalid {
        schema: &'static str,
        detail: String,
    },
    /// The fields contradict each other.
    Inconsistent(String),
    /// A whole report of an interrupted run (`"complete": false`).
    Incomplete {
        played: u64,
        planned: u64,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.problem {
            Problem::Missing => {
                write!(f, "{path}: no such file (a run that died before finishing its report leaves none: rerun it)")
            }
            Problem::Unreadable(error) => write!(f, "{path}: cannot read it: {error}"),
            Problem::Empty => write!(f, "{path} is empty: not a report (a corrupted or cut file)"),
            Problem::Truncated { line, column } => write!(
                f,
                "{path} is truncated: the JSON ends early (line {line}, column {column}), so it is not a whole \
                 report; bench never writes one like this (it writes a temporary file and renames it), so the \
                 file was cut or damaged after the run: rerun it"
            ),
            Problem::Corrupted(detail) => {
                write!(f, "{path} is corrupted: not valid JSON ({detail}); rerun the run that wrote it")
            }
            Problem::NoSchema => write!(f, "{path} has no `schema` string: not a bench report"),
            Problem::WrongVersion { found, supported } => write!(
                f,
                "{path} is a `{found}` report; this bench reads `{supported}` (use the bench that wrote it, or \
                 rerun the run with this one)"
            ),
            Problem::UnknownSchema(found) => write!(
                f,
                "{path} has schema `{found}`, which this bench does not know; it reads `{}` and `{}`",
                json::SCHEMA,
                hil::SCHEMA
            ),
            Problem::Invalid { schema, detail } => {
                write!(f, "{path} is not a valid `{schema}` report: {detail}")
            }
            Problem::Inconsistent(detail) => {
                write!(f, "{path} is not a consistent report ({detail}): it was edited or damaged")
            }
            Problem::Incomplete { played, planned } => write!(
                f,
                "{path} is the report of an interrupted run (\"complete\": false): it covers {played} of \
                 {planned} games, too few to judge; rerun it to the end"
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// `path` itself, or `path/report.json` when `path` is a folder.
pub fn report_path(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join(REPORT_JSON)
    } else {
        path.to_path_buf()
    }
}

/// Reads and checks a report (a file, or a report folder). An incomplete
/// report loads: callers that need a whole one use [`require_complete`].
pub fn load(path: &Path) -> Result<AnyReport, LoadError> {
    let path = report_path(path);
    let error = |problem| LoadError { path: path.clone(), problem };
    let bytes = std::fs::read(&path).map_err(|io| {
        error(if io.kind() == std::io::ErrorKind::NotFound { Problem::Missing } else { Problem::Unreadable(io) })
    })?;
    parse(&bytes).map_err(error)
}

/// [`load`], refusing the report of an interrupted run.
pub fn load_complete(path: &Path) -> Result<AnyReport, LoadError> {
    let report = load(path)?;
    require_complete(&report_path(path), &report)?;
    Ok(report)
}

/// An error unless `report` covers its whole run.
pub fn require_complete(path: &Path, report: &AnyReport) -> Result<(), LoadError> {
    if report.complete() {
        return Ok(());
    }
    let measured = report.measurements();
    Err(LoadError {
        path: path.to_path_buf(),
        problem: Problem::Incomplete { played: measured.played, planned: measured.planned },
    })
}

/// A report from its bytes: which schema, then the whole document.
pub fn parse(bytes: &[u8]) -> Result<AnyReport, Problem> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Problem::Empty);
    }
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|error| {
        if error.is_eof() {
            Problem::Truncated { line: error.line(), column: error.column() }
        } else {
            Problem::Corrupted(error.to_string())
        }
    })?;
    let schema = value.get("schema").and_then(serde_json::Value::as_str).ok_or(Problem::NoSchema)?;
    match schema {
        json::SCHEMA => {
            let report: Report = serde_json::from_value(value)
                .map_err(|error| Problem::Invalid { schema: json::SCHEMA, detail: error.to_string() })?;
            check_sim(&report).map_err(Problem::Inconsistent)?;
            Ok(AnyReport::Sim(Box::new(report)))
        }
        hil::SCHEMA => {
            let report: HilReport = serde_json::from_value(value)
                .map_err(|error| Problem::Invalid { schema: hil::SCHEMA, detail: error.to_string() })?;
            check_hil(&report).map_err(Problem::Inconsistent)?;
            Ok(AnyReport::Hil(Box::new(report)))
        }
        other if other.starts_with("bench.sim.report/") => {
            Err(Problem::WrongVersion { found: other.to_string(), supported: json::SCHEMA })
        }
        other if other.starts_with("bench.hil.report/") => {
            Err(Problem::WrongVersion { found: other.to_string(), supported: hil::SCHEMA })
        }
        other => Err(Problem::UnknownSchema(other.to_string())),
    }
}

/// What a whole simulation report always satisfies.
fn check_sim(report: &Report) -> Result<(), String> {
    let all_passed = report.checks.iter().all(|check| check.passed);
    let expected = if all_passed { "pass" } else { "fail" };
    if report.verdict != expected {
        return Err(format!("verdict `{}` but the checks say `{expected}`", report.verdict));
    }
    let games = &report.games;
    let planned = games.end.checked_sub(games.start).ok_or("games.end is before games.start")?;
    if games.played > planned || games.end > games.total {
        return Err(format!(
            "games {}..{} of {} with {} played do not add up",
            games.start, games.end, games.total, games.played
        ));
    }
    if report.complete && games.played != planned {
        return Err(format!("complete, yet {} of {planned} games played", games.played));
    }
    if report.complete && planned == 0 {
        // bench never writes one: a gate on it would pass having checked nothing.
        return Err("complete, yet a run of no games".into());
    }
    if report.agreement.games != games.played || report.agreement.agreeing > report.agreement.games {
        return Err(format!(
            "agreement {} of {} over {} games played",
            report.agreement.agreeing, report.agreement.games, games.played
        ));
    }
    if report.games_failed < report.failures.len() as u64 || report.games_failed > games.played {
        return Err(format!(
            "{} failing games listed, {} failed, {} played",
            report.failures.len(),
            report.games_failed,
            games.played
        ));
    }
    if report.run_hash.len() != 16 || u64::from_str_radix(&report.run_hash, 16).is_err() {
        return Err(format!("run_hash `{}` is not 16 hex digits", report.run_hash));
    }
    Ok(())
}

/// What a whole hardware-in-the-loop report always satisfies.
fn check_hil(report: &HilReport) -> Result<(), String> {
    let all_passed = report.checks.iter().all(|check| check.passed);
    let expected = if report.complete && all_passed { "pass" } else { "fail" };
    if report.verdict != expected {
        return Err(format!("verdict `{}` but the checks and completeness say `{expected}`", report.verdict));
    }
    let games = &report.games;
    if games.played > games.requested
        || games.complete > games.played
        || games.passed > games.complete
        || report.games_detail.len() as u64 != games.played
    {
        return Err(format!(
            "games: {} requested, {} played, {} complete, {} passed, {} detailed do not add up",
            games.requested,
            games.played,
            games.complete,
            games.passed,
            report.games_detail.len()
        ));
    }
    let detail = |predicate: fn(&hil::GameInfo) -> bool| {
        report.games_detail.iter().filter(|game| predicate(game)).count() as u64
    };
    if detail(|game| game.complete) != games.complete || detail(|game| game.passed) != games.passed {
        return Err("games.complete or games.passed differ from games_detail".into());
    }
    if report.complete && games.requested == 0 {
        return Err("complete, yet a run of no games".into());
    }
    if report.complete && (games.played != games.requested || games.complete != games.played) {
        return Err(format!("complete, yet {} of {} games played to their end", games.complete, games.requested));
    }
    let per_game = report.games_detail.iter().map(|game| game.mismatches_total).fold(0u64, u64::saturating_add);
    let by_quantity = report.mismatches.by_quantity.values().fold(0u64, |sum, count| sum.saturating_add(*count));
    if report.mismatches.total != per_game || report.mismatches.total != by_quantity {
        return Err(format!(
            "mismatches.total {} but the games have {per_game} and by_quantity {by_quantity}",
            report.mismatches.total
        ));
    }
    let percentiles_in_order = |latency: &hil::LatencyInfo| {
        latency.min_us <= latency.p50_us
            && latency.p50_us <= latency.p90_us
            && latency.p90_us <= latency.p99_us
            && latency.p99_us <= latency.max_us
    };
    if !report.latency.as_ref().is_none_or(percentiles_in_order) {
        return Err("latency percentiles are not in order (min <= p50 <= p90 <= p99 <= max)".into());
    }
    if !report.drift.measured && report.drift.ppm.is_some() {
        return Err("drift: not measured, yet a `ppm`".into());
    }
    // Empty in a report from before the histogram; else every fixed bin,
    // holding every press the percentiles count.
    if !report.latency_histogram.is_empty() {
        let edges: Vec<u64> = report.latency_histogram.iter().map(|bin| bin.from_us).collect();
        if edges != bench_hil::run::LATENCY_BIN_EDGES_US {
            return Err(format!(
                "latency_histogram: bins from {edges:?} µs, not bench's {:?}",
                bench_hil::run::LATENCY_BIN_EDGES_US
            ));
        }
        let binned = report.latency_histogram.iter().map(|bin| bin.presses).fold(0u64, u64::saturating_add);
        let presses = report.latency.map_or(0, |latency| latency.count);
        if binned != presses {
            return Err(format!("latency_histogram holds {binned} presses, latency.count {presses}"));
        }
    }
    Ok(())
}

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
}

impl Metric {
    fn noun(self) -> &'static str {
        match self {
            Metric::OracleViolations => "oracle violations",
            Metric::FailedGames => "failed games",
            Metric::TimeError => "a time error",
            Metric::Drift => "a drift measurement",
            Metric::Agreement => "an agreement count",
            Metric::RuleMismatches => "rule mismatches",
            Metric::LatencyP99 => "latency",
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

fn sim_measurements(report: &Report) -> Measurements {
    let games = &report.games;
    let mut metrics = BTreeMap::new();
    metrics.insert(Metric::OracleViolations, Value::Count(report.games_with_violations));
    metrics.insert(Metric::FailedGames, Value::Count(report.games_failed));
    metrics.insert(Metric::TimeError, Value::Micros(report.max_time_error_us));
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
        planned: games.end.saturating_sub(games.start),
        checks: report.checks.clone(),
        metrics,
    }
}

/// `ppm` as a whole number of parts per billion, its absolute value rounded
/// to the nearest (None: not a finite number).
fn abs_ppb(ppm: f64) -> Option<u64> {
    let ppb = (ppm * 1_000.0).abs().round();
    // A float-to-integer cast saturates; u64::MAX ppb is not a drift.
    (ppb.is_finite() && ppb < u64::MAX as f64).then_some(ppb as u64)
}

fn hil_measurements(report: &HilReport) -> Measurements {
    let games = &report.games;
    let compared: Vec<&hil::GameInfo> =
        report.games_detail.iter().filter(|game| game.model.is_some() && game.firmware.is_some()).collect();
    let agreeing = compared.iter().filter(|game| game.result_agrees).count() as u64;
    let mut metrics = BTreeMap::new();
    metrics.insert(Metric::FailedGames, Value::Count(games.played.saturating_sub(games.passed)));
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
    }
}

/// A rules file (`gate.toml`). A rule is on when its key is present; the
/// file is the whole rule set (it does not add to the defaults).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    #[serde(default)]
    pub rules: Thresholds,
    /// Needed when the gate is given `--baseline`.
    pub baseline: Option<Tolerances>,
}

/// Thresholds on the report's own numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    /// Every check of the report passed (the scenario's expectations).
    pub every_check_passes: Option<bool>,
    pub max_oracle_violations: Option<u64>,
    pub max_failed_games: Option<u64>,
    pub max_time_error_us: Option<u64>,
    pub max_abs_drift_ppm: Option<Ppm>,
    pub min_agreement_percent: Option<Percent>,
    pub max_rule_mismatches: Option<u64>,
    pub max_latency_p99_us: Option<u64>,
}

/// How much worse than the baseline the report may be.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerances {
    /// Checks that fail now and passed in (or were not in) the baseline.
    pub max_new_failing_checks: Option<u64>,
    pub max_failed_games_growth: Option<u64>,
    /// Percentage points.
    pub max_agreement_drop_percent: Option<Percent>,
    pub max_time_error_growth_us: Option<u64>,
    pub max_drift_growth_ppm: Option<Ppm>,
    pub max_rule_mismatches_growth: Option<u64>,
    pub max_latency_p99_growth_us: Option<u64>,
}

impl Rules {
    /// The rules `bench gate` applies without `--rules`, and `bench sim`
    /// applies to its own report (`gate.example.toml` holds the same).
    pub fn defaults() -> Rules {
        Rules {
            rules: Thresholds {
                every_check_passes: Some(true),
                max_oracle_violations: Some(0),
                max_rule_mismatches: Some(0),
                max_latency_p99_us: Some(5_000),
                ..Thresholds::default()
            },
            baseline: Some(Tolerances {
                max_new_failing_checks: Some(0),
                max_failed_games_growth: Some(0),
                max_agreement_drop_percent: Some(Percent(5_000)),
                max_time_error_growth_us: Some(1_000),
                max_drift_growth_ppm: Some(Ppm(1_000)),
                max_rule_mismatches_growth: Some(0),
                max_latency_p99_growth_us: Some(500),
            }),
        }
    }

    /// Reads a rules file; the error names the file, line and column.
    pub fn load(path: &Path) -> anyhow::Result<Rules> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| anyhow::anyhow!("cannot read the gate rules {}: {error}", path.display()))?;
        Rules::parse(&text).map_err(|error| anyhow::anyhow!("gate rules {}: {error}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Rules, String> {
        let rules: Rules = toml::from_str(text).map_err(|error| error.to_string().trim_end().to_string())?;
        if rules.rules == Thresholds::default() && rules.baseline.as_ref().is_none_or(|b| *b == Tolerances::default()) {
            return Err("the file sets no rule (a gate that checks nothing would always pass)".into());
        }
        Ok(rules)
    }
}

/// A percentage in TOML (`99.5` or `100`), kept exact to 1/10000 of a
/// percent: the count of those.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Percent(pub u64);

/// Parts per million in TOML (`20`, `0.5`), kept exact to the part per
/// billion: the count of those.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ppm(pub u64);

/// A TOML integer or float, non-negative, at most `max`, in units of
/// `1/scale`.
fn scaled<'de, D: serde::Deserializer<'de>>(deserializer: D, scale: u64, max: f64) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Number {
        Integer(i64),
        Float(f64),
    }
    let value = match Number::deserialize(deserializer)? {
        Number::Integer(value) => value as f64,
        Number::Float(value) => value,
    };
    if !value.is_finite() || value < 0.0 || value > max {
        return Err(serde::de::Error::custom(format!("{value} is not a number from 0 to {max}")));
    }
    Ok((value * scale as f64).round() as u64)
}

impl<'de> Deserialize<'de> for Percent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        scaled(deserializer, 10_000, 100.0).map(Percent)
    }
}

impl<'de> Deserialize<'de> for Ppm {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        scaled(deserializer, 1_000, 1_000_000.0).map(Ppm)
    }
}

/// `units / 10^decimals` with trailing zeros dropped (`995000, 4` → `99.5`).
fn decimal(units: u64, decimals: u32) -> String {
    let scale = 10u64.pow(decimals);
    let fraction = format!("{:0width$}", units % scale, width = decimals as usize);
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        format!("{}", units / scale)
    } else {
        format!("{}.{fraction}", units / scale)
    }
}

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} %", decimal(self.0, 4))
    }
}

impl fmt::Display for Ppm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ppm", decimal(self.0, 3))
    }
}

/// The outcome of one rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Pass,
    Fail,
    /// Not applicable to this report, or nothing to measure.
    Skip,
}

/// One rule's verdict, printed as a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// `rules` or `baseline`: the table of the rules file.
    pub table: &'static str,
    /// The key in the rules file.
    pub rule: &'static str,
    pub status: Status,
    pub measured: String,
    pub allowed: String,
    /// Further lines (each failing check, …).
    pub details: Vec<String>,
}

/// Applies `rules` to `report` (and, with a baseline, the baseline
/// tolerances). Errors are bad inputs: a baseline of another scenario or
/// kind, or a baseline without baseline rules.
pub fn evaluate(report: &Measurements, rules: &Rules, baseline: Option<&Measurements>) -> Result<Vec<Verdict>, String> {
    let mut verdicts = thresholds(report, &rules.rules);
    if let Some(baseline) = baseline {
        if baseline.kind != report.kind {
            return Err(format!("the baseline is a {} report, the report a {} one", baseline.kind, report.kind));
        }
        if baseline.scenario != report.scenario {
            return Err(format!(
                "the baseline is of scenario `{}`, the report of `{}`: compare runs of one scenario",
                baseline.scenario, report.scenario
            ));
        }
        let tolerances = rules.baseline.as_ref().ok_or(
            "--baseline given, but the rules file has no [baseline] table (see reports/README.md, \"The gate\")",
        )?;
        verdicts.extend(regressions(report, baseline, tolerances));
    }
    Ok(verdicts)
}

fn verdict(rule: &'static str, passed: bool, measured: String, allowed: String) -> Verdict {
    Verdict {
        table: "rules",
        rule,
        status: if passed { Status::Pass } else { Status::Fail },
        measured,
        allowed,
        details: Vec::new(),
    }
}

fn skip(table: &'static str, rule: &'static str, why: String, allowed: String) -> Verdict {
    Verdict { table, rule, status: Status::Skip, measured: why, allowed, details: Vec::new() }
}

/// The measured value of `metric`, or the skip reason.
fn metric(report: &Measurements, metric: Metric) -> Result<&Value, String> {
    match report.metrics.get(&metric) {
        None => Err(format!("a {} report has no {}", report.kind, metric.noun())),
        Some(Value::NoData(why)) => Err(format!("not measured: {why}")),
        Some(value) => Ok(value),
    }
}

/// The value as a plain number (ratios are not: see [`ratio`]).
fn scalar(value: &Value) -> Option<u64> {
    match value {
        Value::Count(number) | Value::Micros(number) | Value::Ppb(number) => Some(*number),
        Value::Ratio { .. } | Value::NoData(_) => None,
    }
}

fn ratio(value: &Value) -> Option<(u64, u64)> {
    match value {
        Value::Ratio { part, whole } if *whole > 0 => Some((*part, *whole)),
        _ => None,
    }
}

fn show(value: &Value) -> String {
    match value {
        Value::Count(count) => count.to_string(),
        Value::Micros(us) => format!("{us} µs"),
        Value::Ppb(ppb) => Ppm(*ppb).to_string(),
        Value::Ratio { part, whole } => format!("{} ({part} of {whole})", super::html::percent(*part, *whole)),
        Value::NoData(why) => why.clone(),
    }
}

/// A rule's key, what it measures, and its limit if set: as shown, and as
/// a number in the metric's unit.
type Limit = (&'static str, Metric, Option<(String, u64)>);

fn thresholds(report: &Measurements, rules: &Thresholds) -> Vec<Verdict> {
    let mut verdicts = Vec::new();
    if rules.every_check_passes == Some(true) {
        let failed: Vec<&CheckInfo> = report.checks.iter().filter(|check| !check.passed).collect();
        let mut result = verdict(
            "every_check_passes",
            failed.is_empty(),
            format!("{} of {} checks failed", failed.len(), report.checks.len()),
            "every check passes".into(),
        );
        result.details = failed
            .iter()
            .map(|check| format!("{}: measured {}, expected {}", check.name, check.measured, check.expected))
            .collect();
        verdicts.push(result);
    }
    let maxima: [Limit; 6] = [
        ("max_oracle_violations", Metric::OracleViolations, rules.max_oracle_violations.map(|n| (n.to_string(), n))),
        ("max_failed_games", Metric::FailedGames, rules.max_failed_games.map(|n| (n.to_string(), n))),
        ("max_time_error_us", Metric::TimeError, rules.max_time_error_us.map(|us| (format!("{us} µs"), us))),
        ("max_abs_drift_ppm", Metric::Drift, rules.max_abs_drift_ppm.map(|ppm| (ppm.to_string(), ppm.0))),
        ("max_rule_mismatches", Metric::RuleMismatches, rules.max_rule_mismatches.map(|n| (n.to_string(), n))),
        ("max_latency_p99_us", Metric::LatencyP99, rules.max_latency_p99_us.map(|us| (format!("{us} µs"), us))),
    ];
    for (rule, which, limit) in maxima {
        let Some((shown, limit)) = limit else { continue };
        let allowed = format!("<= {shown}");
        verdicts.push(match metric(report, which).map(|value| (scalar(value), value)) {
            Ok((Some(measured), value)) => verdict(rule, measured <= limit, show(value), allowed),
            Ok((None, value)) => skip("rules", rule, format!("not a number: {}", show(value)), allowed),
            Err(why) => skip("rules", rule, why, allowed),
        });
    }
    if let Some(minimum) = rules.min_agreement_percent {
        let rule = "min_agreement_percent";
        let allowed = format!(">= {minimum}");
        verdicts.push(match metric(report, Metric::Agreement).map(|value| (ratio(value), value)) {
            Ok((Some((part, whole)), value)) => {
                // part/whole >= minimum/1_000_000, exactly.
                let passed = u128::from(part) * 1_000_000 >= u128::from(minimum.0) * u128::from(whole);
                verdict(rule, passed, show(value), allowed)
            }
            Ok((None, value)) => skip("rules", rule, format!("not a ratio: {}", show(value)), allowed),
            Err(why) => skip("rules", rule, why, allowed),
        });
    }
    verdicts
}

fn regressions(report: &Measurements, baseline: &Measurements, tolerances: &Tolerances) -> Vec<Verdict> {
    let mut verdicts = Vec::new();
    let table = "baseline";
    let with_table = |mut verdict: Verdict| {
        verdict.table = table;
        verdict
    };
    if let Some(allowed) = tolerances.max_new_failing_checks {
        let passed_before: BTreeMap<&str, bool> =
            baseline.checks.iter().map(|check| (check.name.as_str(), check.passed)).collect();
        let new: Vec<&CheckInfo> = report
            .checks
            .iter()
            .filter(|check| !check.passed && passed_before.get(check.name.as_str()).copied().unwrap_or(true))
            .collect();
        let mut result = with_table(verdict(
            "max_new_failing_checks",
            new.len() as u64 <= allowed,
            format!("{} checks fail that passed in the baseline", new.len()),
            format!("<= {allowed}"),
        ));
        result.details = new
            .iter()
            .map(|check| format!("{}: measured {}, expected {}", check.name, check.measured, check.expected))
            .collect();
        verdicts.push(result);
    }
    let growths: [Limit; 5] = [
        (
            "max_failed_games_growth",
            Metric::FailedGames,
            tolerances.max_failed_games_growth.map(|n| (format!("+{n}"), n)),
        ),
        (
            "max_time_error_growth_us",
            Metric::TimeError,
            tolerances.max_time_error_growth_us.map(|us| (format!("+{us} µs"), us)),
        ),
        ("max_drift_growth_ppm", Metric::Drift, tolerances.max_drift_growth_ppm.map(|ppm| (format!("+{ppm}"), ppm.0))),
        (
            "max_rule_mismatches_growth",
            Metric::RuleMismatches,
            tolerances.max_rule_mismatches_growth.map(|n| (format!("+{n}"), n)),
        ),
        (
            "max_latency_p99_growth_us",
            Metric::LatencyP99,
            tolerances.max_latency_p99_growth_us.map(|us| (format!("+{us} µs"), us)),
        ),
    ];
    for (rule, which, limit) in growths {
        let Some((shown, limit)) = limit else { continue };
        let allowed = format!("grows by {shown} at most");
        let now = metric(report, which);
        let before = metric(baseline, which).map_err(|why| format!("baseline {why}"));
        verdicts.push(match (now, before) {
            (Ok(now), Ok(before)) => match (scalar(now), scalar(before)) {
                (Some(now_number), Some(before_number)) => {
                    let growth = i128::from(now_number) - i128::from(before_number);
                    with_table(verdict(
                        rule,
                        growth <= i128::from(limit),
                        format!("{} → {} ({})", show(before), show(now), signed_growth(which, growth)),
                        allowed,
                    ))
                }
                _ => skip(table, rule, "not a number".into(), allowed),
            },
            (Err(why), _) | (_, Err(why)) => skip(table, rule, why, allowed),
        });
    }
    if let Some(limit) = tolerances.max_agreement_drop_percent {
        let rule = "max_agreement_drop_percent";
        let allowed = format!("drops by {} points at most", decimal(limit.0, 4));
        let now = metric(report, Metric::Agreement);
        let before = metric(baseline, Metric::Agreement).map_err(|why| format!("baseline {why}"));
        verdicts.push(match (now, before) {
            (Ok(now), Ok(before)) => match (ratio(now), ratio(before)) {
                (Some((now_part, now_whole)), Some((before_part, before_whole))) => {
                    // drop = before − now, in millionths (of 100 %):
                    // (bp·nw − np·bw) / (bw·nw) · 10^6 <= limit.
                    let cross = i128::from(before_part) * i128::from(now_whole)
                        - i128::from(now_part) * i128::from(before_whole);
                    let denominator = i128::from(before_whole) * i128::from(now_whole);
                    let passed = cross * 1_000_000 <= i128::from(limit.0) * denominator;
                    let hundredths = cross * 10_000 / denominator;
                    let sign = if hundredths > 0 { "-" } else { "+" };
                    let points = hundredths.unsigned_abs();
                    with_table(verdict(
                        rule,
                        passed,
                        format!("{} → {} ({sign}{}.{:02} points)", show(before), show(now), points / 100, points % 100),
                        allowed,
                    ))
                }
                _ => skip(table, rule, "not a ratio".into(), allowed),
            },
            (Err(why), _) | (_, Err(why)) => skip(table, rule, why, allowed),
        });
    }
    verdicts
}

fn signed_growth(which: Metric, growth: i128) -> String {
    let sign = if growth < 0 { "-" } else { "+" };
    let magnitude = u64::try_from(growth.unsigned_abs()).unwrap_or(u64::MAX);
    match which {
        Metric::TimeError | Metric::LatencyP99 => format!("{sign}{magnitude} µs"),
        Metric::Drift => format!("{sign}{}", Ppm(magnitude)),
        _ => format!("{sign}{magnitude}"),
    }
}

/// The default gate on the report a command has just written to `dir`, read
/// back as `bench gate` reads it: whether it passed, and its printout (the
/// rules that do not apply to this kind of report are left out; `bench
/// gate` lists them as skipped). An error when the report cannot be read
/// back whole.
pub fn apply_defaults(dir: &Path) -> anyhow::Result<(bool, String)> {
    let path = dir.join(REPORT_JSON);
    let loaded = load_complete(&path)?;
    let measured = loaded.measurements();
    let verdicts = evaluate(&measured, &Rules::defaults(), None).map_err(|message| anyhow::anyhow!(message))?;
    let shown: Vec<Verdict> = verdicts.iter().filter(|verdict| verdict.status != Status::Skip).cloned().collect();
    Ok((passed(&verdicts), render(&path, &measured, None, &shown)))
}

/// Whether the gate passed: no rule failed.
pub fn passed(verdicts: &[Verdict]) -> bool {
    verdicts.iter().all(|verdict| verdict.status != Status::Fail)
}

/// The gate's printout: a line per rule (measured vs allowed), the details
/// of failures, and the verdict last.
pub fn render(
    report_path: &Path,
    report: &Measurements,
    baseline: Option<(&Path, &Measurements)>,
    verdicts: &[Verdict],
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "gate: {} — {}", report_path.display(), report.subject);
    if let Some((path, baseline)) = baseline {
        let _ = writeln!(out, "baseline: {} — {}", path.display(), baseline.subject);
    }
    let width = verdicts.iter().map(|verdict| verdict.table.len() + verdict.rule.len() + 1).max().unwrap_or(0);
    let measured_width = verdicts
        .iter()
        .filter(|verdict| verdict.status != Status::Skip)
        .map(|verdict| verdict.measured.chars().count())
        .max()
        .unwrap_or(0);
    for verdict in verdicts {
        let name = format!("{}.{}", verdict.table, verdict.rule);
        let status = match verdict.status {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::Skip => {
                let _ = writeln!(out, "  skip  {name:<width$}  ({})", verdict.measured);
                continue;
            }
        };
        let _ = writeln!(
            out,
            "  {status}  {name:<width$}  measured {:<measured_width$}  allowed {}",
            verdict.measured, verdict.allowed
        );
        if verdict.status == Status::Fail {
            for detail in &verdict.details {
                let _ = writeln!(out, "          {detail}");
            }
        }
    }
    let failed = verdicts.iter().filter(|verdict| verdict.status == Status::Fail).count();
    let applied = verdicts.iter().filter(|verdict| verdict.status != Status::Skip).count();
    let rules = if applied == 1 { "rule" } else { "rules" };
    if failed == 0 {
        let _ = writeln!(out, "gate: PASS ({applied} {rules} applied)");
    } else {
        let _ = writeln!(out, "gate: FAIL ({failed} of {applied} {rules} failed)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, passed: bool) -> CheckInfo {
        CheckInfo { name: name.into(), passed, measured: "m".into(), expected: "e".into() }
    }

    /// A simulation report that passes every rule of the table below.
    fn sim() -> Measurements {
        let mut metrics = BTreeMap::new();
        metrics.insert(Metric::OracleViolations, Value::Count(0));
        metrics.insert(Metric::FailedGames, Value::Count(3));
        metrics.insert(Metric::TimeError, Value::Micros(1_000));
        metrics.insert(Metric::Drift, Value::Ppb(15_000));
        metrics.insert(Metric::Agreement, Value::Ratio { part: 99, whole: 100 });
        Measurements {
            kind: "sim",
            subject: "simulation of `s`".into(),
            scenario: "s".into(),
            complete: true,
            played: 100,
            planned: 100,
            checks: vec![check("no oracle violations", true), check("games in class `6.3`", true)],
            metrics,
        }
    }

    /// A hardware-in-the-loop report: the metrics a simulation has not.
    fn hil() -> Measurements {
        let mut report = sim();
        report.kind = "hil";
        report.metrics.insert(Metric::RuleMismatches, Value::Count(0));
        report.metrics.insert(Metric::LatencyP99, Value::Micros(3_000));
        report
    }

    fn with(mut report: Measurements, metric: Metric, value: Value) -> Measurements {
        report.metrics.insert(metric, value);
        report
    }

    fn failing_check(mut report: Measurements, name: &str) -> Measurements {
        report.checks.push(check(name, false));
        report
    }

    struct Case {
        rules: &'static str,
        report: Measurements,
        baseline: Option<Measurements>,
        rule: &'static str,
        expect: Status,
    }

    fn case(rules: &'static str, report: Measurements, rule: &'static str, expect: Status) -> Case {
        Case { rules, report, baseline: None, rule, expect }
    }

    fn versus(
        rules: &'static str,
        baseline: Measurements,
        report: Measurements,
        rule: &'static str,
        expect: Status,
    ) -> Case {
        Case { rules, report, baseline: Some(baseline), rule, expect }
    }

    /// Every rule, at and just past its limit, and where it does not apply.
    fn table() -> Vec<Case> {
        use Metric::*;
        use Status::*;
        let ratio = |part, whole| Value::Ratio { part, whole };
        vec![
            case("[rules]\nevery_check_passes = true", sim(), "every_check_passes", Pass),
            case("[rules]\nevery_check_passes = true", failing_check(sim(), "x"), "every_check_passes", Fail),
            case("[rules]\nmax_oracle_violations = 0", sim(), "max_oracle_violations", Pass),
            case(
                "[rules]\nmax_oracle_violations = 0",
                with(sim(), OracleViolations, Value::Count(1)),
                "max_oracle_violations",
                Fail,
            ),
            case("[rules]\nmax_failed_games = 3", sim(), "max_failed_games", Pass),
            case("[rules]\nmax_failed_games = 2", sim(), "max_failed_games", Fail),
            case("[rules]\nmax_time_error_us = 1000", sim(), "max_time_error_us", Pass),
            case("[rules]\nmax_time_error_us = 999", sim(), "max_time_error_us", Fail),
            case("[rules]\nmax_abs_drift_ppm = 15", sim(), "max_abs_drift_ppm", Pass),
            case("[rules]\nmax_abs_drift_ppm = 14.999", sim(), "max_abs_drift_ppm", Fail),
            case(
                "[rules]\nmax_abs_drift_ppm = 20",
                with(sim(), Drift, Value::NoData("none".into())),
                "max_abs_drift_ppm",
                Skip,
            ),
            case("[rules]\nmin_agreement_percent = 99", sim(), "min_agreement_percent", Pass),
            case("[rules]\nmin_agreement_percent = 99.01", sim(), "min_agreement_percent", Fail),
            case(
                "[rules]\nmin_agreement_percent = 99.5",
                with(sim(), Agreement, ratio(199, 200)),
                "min_agreement_percent",
                Pass,
            ),
            case(
                "[rules]\nmin_agreement_percent = 99.5",
                with(sim(), Agreement, ratio(198, 200)),
                "min_agreement_percent",
                Fail,
            ),
            case(
                "[rules]\nmin_agreement_percent = 50",
                with(sim(), Agreement, Value::NoData("no game".into())),
                "min_agreement_percent",
                Skip,
            ),
            case("[rules]\nmax_rule_mismatches = 0", hil(), "max_rule_mismatches", Pass),
            case(
                "[rules]\nmax_rule_mismatches = 0",
                with(hil(), RuleMismatches, Value::Count(1)),
                "max_rule_mismatches",
                Fail,
            ),
            case("[rules]\nmax_rule_mismatches = 0", sim(), "max_rule_mismatches", Skip),
            case("[rules]\nmax_latency_p99_us = 3000", hil(), "max_latency_p99_us", Pass),
            case("[rules]\nmax_latency_p99_us = 2999", hil(), "max_latency_p99_us", Fail),
            case("[rules]\nmax_latency_p99_us = 5000", sim(), "max_latency_p99_us", Skip),
            // Baseline tolerances: the baseline first, then the report.
            versus(
                "[baseline]\nmax_new_failing_checks = 0",
                failing_check(sim(), "x"),
                failing_check(sim(), "x"),
                "max_new_failing_checks",
                Pass,
            ),
            versus(
                "[baseline]\nmax_new_failing_checks = 0",
                sim(),
                failing_check(sim(), "x"),
                "max_new_failing_checks",
                Fail,
            ),
            versus(
                "[baseline]\nmax_new_failing_checks = 0",
                sim(),
                failing_check(sim(), "a new check"),
                "max_new_failing_checks",
                Fail,
            ),
            versus(
                "[baseline]\nmax_new_failing_checks = 1",
                sim(),
                failing_check(sim(), "x"),
                "max_new_failing_checks",
                Pass,
            ),
            versus(
                "[baseline]\nmax_failed_games_growth = 1",
                sim(),
                with(sim(), FailedGames, Value::Count(4)),
                "max_failed_games_growth",
                Pass,
            ),
            versus(
                "[baseline]\nmax_failed_games_growth = 1",
                sim(),
                with(sim(), FailedGames, Value::Count(5)),
                "max_failed_games_growth",
                Fail,
            ),
            versus(
                "[baseline]\nmax_failed_games_growth = 0",
                sim(),
                with(sim(), FailedGames, Value::Count(0)),
                "max_failed_games_growth",
                Pass,
            ),
            versus(
                "[baseline]\nmax_agreement_drop_percent = 0.5",
                sim(),
                with(sim(), Agreement, ratio(197, 200)),
                "max_agreement_drop_percent",
                Pass,
            ),
            versus(
                "[baseline]\nmax_agreement_drop_percent = 0.5",
                sim(),
                with(sim(), Agreement, ratio(196, 200)),
                "max_agreement_drop_percent",
                Fail,
            ),
            versus(
                "[baseline]\nmax_agreement_drop_percent = 0",
                sim(),
                with(sim(), Agreement, ratio(100, 100)),
                "max_agreement_drop_percent",
                Pass,
            ),
            versus(
                "[baseline]\nmax_time_error_growth_us = 1000",
                sim(),
                with(sim(), TimeError, Value::Micros(2_000)),
                "max_time_error_growth_us",
                Pass,
            ),
            versus(
                "[baseline]\nmax_time_error_growth_us = 1000",
                sim(),
                with(sim(), TimeError, Value::Micros(2_001)),
                "max_time_error_growth_us",
                Fail,
            ),
            versus(
                "[baseline]\nmax_drift_growth_ppm = 1",
                sim(),
                with(sim(), Drift, Value::Ppb(16_000)),
                "max_drift_growth_ppm",
                Pass,
            ),
            versus(
                "[baseline]\nmax_drift_growth_ppm = 1",
                sim(),
                with(sim(), Drift, Value::Ppb(16_001)),
                "max_drift_growth_ppm",
                Fail,
            ),
            versus("[baseline]\nmax_rule_mismatches_growth = 0", hil(), hil(), "max_rule_mismatches_growth", Pass),
            versus(
                "[baseline]\nmax_rule_mismatches_growth = 0",
                hil(),
                with(hil(), RuleMismatches, Value::Count(1)),
                "max_rule_mismatches_growth",
                Fail,
            ),
            versus("[baseline]\nmax_rule_mismatches_growth = 0", sim(), sim(), "max_rule_mismatches_growth", Skip),
            versus(
                "[baseline]\nmax_latency_p99_growth_us = 500",
                hil(),
                with(hil(), LatencyP99, Value::Micros(3_500)),
                "max_latency_p99_growth_us",
                Pass,
            ),
            versus(
                "[baseline]\nmax_latency_p99_growth_us = 500",
                hil(),
                with(hil(), LatencyP99, Value::Micros(3_501)),
                "max_latency_p99_growth_us",
                Fail,
            ),
        ]
    }

    #[test]
    fn every_rule_fails_when_it_should_and_passes_when_it_should() {
        let mut seen = std::collections::BTreeSet::new();
        for case in table() {
            let rules = Rules::parse(case.rules).unwrap_or_else(|error| panic!("{}: {error}", case.rules));
            let verdicts = evaluate(&case.report, &rules, case.baseline.as_ref()).expect("evaluates");
            let verdict = verdicts
                .iter()
                .find(|verdict| verdict.rule == case.rule)
                .unwrap_or_else(|| panic!("no verdict for {}", case.rule));
            assert_eq!(verdict.status, case.expect, "{}: {verdict:?}", case.rules);
            assert_eq!(passed(&verdicts), case.expect != Status::Fail, "{}", case.rules);
            if verdict.status != Status::Skip {
                assert!(!verdict.measured.is_empty() && !verdict.allowed.is_empty());
            }
            if case.expect == Status::Fail {
                let text = render(Path::new("r.json"), &case.report, None, &verdicts);
                assert!(text.contains("FAIL") && text.contains(&verdict.allowed), "{text}");
            }
            seen.insert((case.rule, case.expect as u8));
        }
        // Every key of the rules file is in the table, passing and failing.
        let keys = [
            "every_check_passes",
            "max_oracle_violations",
            "max_failed_games",
            "max_time_error_us",
            "max_abs_drift_ppm",
            "min_agreement_percent",
            "max_rule_mismatches",
            "max_latency_p99_us",
            "max_new_failing_checks",
            "max_failed_games_growth",
            "max_agreement_drop_percent",
            "max_time_error_growth_us",
            "max_drift_growth_ppm",
            "max_rule_mismatches_growth",
            "max_latency_p99_growth_us",
        ];
        for key in keys {
            for status in [Status::Pass, Status::Fail] {
                assert!(seen.contains(&(key, status as u8)), "{key} has no {status:?} case");
            }
        }
    }

    #[test]
    fn the_failure_lines_say_measured_and_allowed() {
        let rules = Rules::parse("[rules]\nevery_check_passes = true\nmax_time_error_us = 999").expect("rules");
        let report = failing_check(sim(), "games in class `6.12 b)`");
        let verdicts = evaluate(&report, &rules, None).expect("evaluates");
        let text = render(Path::new("reports/x/report.json"), &report, None, &verdicts);
        assert!(text.contains("FAIL  rules.max_time_error_us"), "{text}");
        assert!(text.contains("measured 1000 µs") && text.contains("allowed <= 999 µs"), "{text}");
        assert!(text.contains("games in class `6.12 b)`: measured m, expected e"), "{text}");
        assert!(text.ends_with("gate: FAIL (2 of 2 rules failed)\n"), "{text}");
    }

    #[test]
    fn the_example_file_is_the_default_rule_set() {
        let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("gate.example.toml");
        assert_eq!(Rules::load(&example).expect("gate.example.toml parses"), Rules::defaults());
    }

    /// The rules file shown in `reports/README.md` is one `bench gate` reads.
    #[test]
    fn the_rules_file_in_the_readme_parses() {
        let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/README.md"))
            .expect("reports/README.md");
        let blocks = toml_blocks(&readme);
        assert!(!blocks.is_empty(), "reports/README.md shows no rules file");
        for block in blocks {
            Rules::parse(&block).unwrap_or_else(|error| panic!("{error}\n--- block ---\n{block}"));
        }
    }

    /// The fenced ```toml blocks of a Markdown text.
    fn toml_blocks(markdown: &str) -> Vec<String> {
        let mut blocks = Vec::new();
        let mut block: Option<String> = None;
        for line in markdown.lines() {
            match (&mut block, line.trim_start().starts_with("```")) {
                (None, true) if line.trim() == "```toml" => block = Some(String::new()),
                (Some(_), true) => blocks.extend(block.take()),
                (Some(text), false) => {
                    text.push_str(line);
                    text.push('\n');
                }
                _ => {}
            }
        }
        blocks
    }

    #[test]
    fn bad_rules_files_are_refused_with_the_reason() {
        for (text, needle) in [
            ("[rules]\nmax_drift_ppm = 20", "unknown field `max_drift_ppm`"),
            ("[rules]\nmax_oracle_violations = -1", "max_oracle_violations"),
            ("[rules]\nmin_agreement_percent = 101", "not a number from 0 to 100"),
            ("[rules]\nmax_abs_drift_ppm = nan", "not a number from 0"),
            ("", "sets no rule"),
            ("[rules]\n", "sets no rule"),
            ("[rules\nx = 1", "line 1"),
        ] {
            let error = Rules::parse(text).expect_err(text);
            assert!(error.contains(needle), "{text:?}: {error}");
        }
    }

    #[test]
    fn a_baseline_must_be_of_the_same_scenario_and_kind_and_have_rules() {
        let rules = Rules::defaults();
        let mut other = sim();
        other.scenario = "other".into();
        assert!(evaluate(&sim(), &rules, Some(&other)).expect_err("refused").contains("scenario `other`"));
        assert!(evaluate(&sim(), &rules, Some(&hil())).expect_err("refused").contains("hil"));
        let no_baseline = Rules::parse("[rules]\nevery_check_passes = true").expect("rules");
        assert!(evaluate(&sim(), &no_baseline, Some(&sim())).expect_err("refused").contains("[baseline]"));
    }

    #[test]
    fn the_default_gate_on_a_sim_report_is_its_checks() {
        let verdicts = evaluate(&sim(), &Rules::defaults(), None).expect("evaluates");
        assert!(passed(&verdicts));
        let applied: Vec<&str> =
            verdicts.iter().filter(|verdict| verdict.status != Status::Skip).map(|verdict| verdict.rule).collect();
        assert_eq!(applied, ["every_check_passes", "max_oracle_violations"]);
        let verdicts = evaluate(&failing_check(sim(), "x"), &Rules::defaults(), None).expect("evaluates");
        assert!(!passed(&verdicts));
    }

    fn golden() -> Vec<u8> {
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report/testdata/report.json"))
            .expect("the golden report")
    }

    fn edited(edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
        let mut value: serde_json::Value = serde_json::from_slice(&golden()).expect("json");
        edit(&mut value);
        serde_json::to_vec(&value).expect("bytes")
    }

    #[test]
    fn a_whole_report_parses_and_bad_ones_say_why() {
        let report = parse(&golden()).expect("the golden report parses");
        assert!(report.complete());
        assert_eq!(report.measurements().metrics.get(&Metric::Drift), Some(&Value::Ppb(2_000_000)));
        let bytes = golden();
        type Expected = fn(&Problem) -> bool;
        let cases: Vec<(&str, Vec<u8>, Expected)> = vec![
            ("empty", Vec::new(), |p| matches!(p, Problem::Empty)),
            ("truncated", bytes[..bytes.len() / 2].to_vec(), |p| matches!(p, Problem::Truncated { .. })),
            ("corrupted", bytes.iter().map(|b| if *b == b':' { b'=' } else { *b }).collect(), |p| {
                matches!(p, Problem::Corrupted(_))
            }),
            ("binary", vec![0xff, 0x00, 0x13], |p| matches!(p, Problem::Corrupted(_))),
            ("not an object", b"[1, 2]".to_vec(), |p| matches!(p, Problem::NoSchema)),
            ("next version", edited(|v| v["schema"] = "bench.sim.report/2".into()), |p| {
                matches!(p, Problem::WrongVersion { .. })
            }),
            ("unknown", edited(|v| v["schema"] = "acme.report/1".into()), |p| matches!(p, Problem::UnknownSchema(_))),
            (
                "missing field",
                edited(|v| {
                    if let Some(object) = v.as_object_mut() {
                        object.remove("checks");
                    }
                }),
                |p| matches!(p, Problem::Invalid { .. }),
            ),
            ("wrong type", edited(|v| v["seed"] = "seven".into()), |p| matches!(p, Problem::Invalid { .. })),
            ("verdict flipped", edited(|v| v["verdict"] = "pass".into()), |p| matches!(p, Problem::Inconsistent(_))),
            ("games", edited(|v| v["games"]["played"] = 99.into()), |p| matches!(p, Problem::Inconsistent(_))),
            (
                "no games",
                edited(|v| {
                    v["games"]["end"] = v["games"]["start"].clone();
                    v["games"]["played"] = 0.into();
                    v["agreement"]["games"] = 0.into();
                    v["agreement"]["agreeing"] = 0.into();
                    v["games_failed"] = 0.into();
                    v["failures"] = serde_json::json!([]);
                }),
                |p| matches!(p, Problem::Inconsistent(detail) if detail.contains("a run of no games")),
            ),
        ];
        for (name, bytes, expected) in cases {
            match parse(&bytes) {
                Ok(_) => panic!("{name}: parsed"),
                Err(problem) => {
                    assert!(expected(&problem), "{name}: {problem:?}");
                    let message = LoadError { path: "r/report.json".into(), problem }.to_string();
                    assert!(message.starts_with("r/report.json"), "{name}: {message}");
                }
            }
        }
        let incomplete = edited(|v| {
            v["complete"] = false.into();
            v["games"]["played"] = 3.into();
            v["agreement"]["games"] = 3.into();
            v["agreement"]["agreeing"] = 3.into();
            v["games_failed"] = 3.into();
            if let Some(failures) = v["failures"].as_array_mut() {
                failures.truncate(3);
            }
        });
        let report = parse(&incomplete).expect("an incomplete report is a whole report");
        let error = require_complete(Path::new("r.json"), &report).expect_err("refused");
        assert!(error.to_string().contains("interrupted run") && error.to_string().contains("3 of 6 games"));
    }

    // ---- hardware-in-the-loop reports ----

    use crate::report::hil::tests::{sample_report, with_mismatches};

    /// A HIL report as `bench gate` reads it: serialized, parsed (schema
    /// branch and consistency check), measured.
    fn hil_report(report: &HilReport) -> Measurements {
        let bytes = serde_json::to_vec(report).expect("serializes");
        match parse(&bytes) {
            Ok(AnyReport::Hil(parsed)) => {
                assert_eq!(*parsed, *report, "the report reads back as written");
                AnyReport::Hil(parsed).measurements()
            }
            Ok(AnyReport::Sim(_)) => panic!("a HIL report parsed as a simulation report"),
            Err(problem) => panic!("the HIL report does not parse: {problem:?}"),
        }
    }

    fn edit(edit: impl FnOnce(&mut HilReport)) -> HilReport {
        let mut report = sample_report();
        edit(&mut report);
        report
    }

    fn p99(us: u64) -> HilReport {
        edit(|report| {
            if let Some(latency) = report.latency.as_mut() {
                latency.p99_us = us;
                latency.max_us = latency.max_us.max(us);
            }
        })
    }

    fn drift_ppm(ppm: f64) -> HilReport {
        edit(|report| report.drift.ppm = Some(ppm))
    }

    struct HilCase {
        rules: &'static str,
        baseline: Option<HilReport>,
        report: HilReport,
        rule: &'static str,
        expect: Status,
    }

    fn hil_case(rules: &'static str, report: HilReport, rule: &'static str, expect: Status) -> HilCase {
        HilCase { rules, baseline: None, report, rule, expect }
    }

    fn hil_versus(
        rules: &'static str,
        baseline: HilReport,
        report: HilReport,
        rule: &'static str,
        expect: Status,
    ) -> HilCase {
        HilCase { rules, baseline: Some(baseline), report, rule, expect }
    }

    /// Every rule a HIL report has a number for, at its limit and just past
    /// it, from the report's own fields; and the rules it has none for.
    fn hil_table() -> Vec<HilCase> {
        use Status::*;
        vec![
            hil_case("[rules]\nevery_check_passes = true", sample_report(), "every_check_passes", Pass),
            hil_case(
                "[rules]\nevery_check_passes = true",
                with_mismatches(sample_report(), 1),
                "every_check_passes",
                Fail,
            ),
            hil_case("[rules]\nmax_rule_mismatches = 0", sample_report(), "max_rule_mismatches", Pass),
            hil_case(
                "[rules]\nmax_rule_mismatches = 0",
                with_mismatches(sample_report(), 1),
                "max_rule_mismatches",
                Fail,
            ),
            hil_case(
                "[rules]\nmax_rule_mismatches = 60",
                with_mismatches(sample_report(), 60),
                "max_rule_mismatches",
                Pass,
            ),
            hil_case(
                "[rules]\nmax_rule_mismatches = 60",
                with_mismatches(sample_report(), 61),
                "max_rule_mismatches",
                Fail,
            ),
            hil_case(
                "[rules]\nmax_rule_mismatches = 0",
                edit(|report| {
                    for game in &mut report.games_detail {
                        game.model = None;
                        game.firmware = None;
                    }
                }),
                "max_rule_mismatches",
                Skip,
            ),
            hil_case("[rules]\nmax_latency_p99_us = 5000", p99(5_000), "max_latency_p99_us", Pass),
            hil_case("[rules]\nmax_latency_p99_us = 5000", p99(5_001), "max_latency_p99_us", Fail),
            hil_case(
                "[rules]\nmax_latency_p99_us = 5000",
                edit(|report| {
                    report.latency = None;
                    report.latency_histogram = hil::latency_bins(&[]);
                }),
                "max_latency_p99_us",
                Skip,
            ),
            hil_case("[rules]\nmax_abs_drift_ppm = 20", drift_ppm(20.0), "max_abs_drift_ppm", Pass),
            hil_case("[rules]\nmax_abs_drift_ppm = 20", drift_ppm(20.001), "max_abs_drift_ppm", Fail),
            hil_case("[rules]\nmax_abs_drift_ppm = 20", drift_ppm(-20.0), "max_abs_drift_ppm", Pass),
            hil_case("[rules]\nmax_abs_drift_ppm = 20", drift_ppm(-20.001), "max_abs_drift_ppm", Fail),
            // To the nearest ppb: 20.0004 ppm is 20.000 ppm.
            hil_case("[rules]\nmax_abs_drift_ppm = 20", drift_ppm(20.0004), "max_abs_drift_ppm", Pass),
            hil_case(
                "[rules]\nmax_abs_drift_ppm = 20",
                edit(|report| {
                    let drift = &mut report.drift;
                    (drift.measured, drift.error, drift.ppm) = (false, Some("2 usable samples".into()), None);
                }),
                "max_abs_drift_ppm",
                Skip,
            ),
            hil_case("[rules]\nmax_failed_games = 0", sample_report(), "max_failed_games", Pass),
            hil_case("[rules]\nmax_failed_games = 0", with_mismatches(sample_report(), 2), "max_failed_games", Fail),
            hil_case("[rules]\nmin_agreement_percent = 100", sample_report(), "min_agreement_percent", Pass),
            hil_case(
                "[rules]\nmin_agreement_percent = 50.01",
                edit(|report| {
                    if let Some(game) = report.games_detail.last_mut() {
                        game.result_agrees = false;
                    }
                }),
                "min_agreement_percent",
                Fail,
            ),
            hil_case("[rules]\nmax_oracle_violations = 0", sample_report(), "max_oracle_violations", Skip),
            hil_case("[rules]\nmax_time_error_us = 0", sample_report(), "max_time_error_us", Skip),
            // Against the last release's report of the same scenario.
            hil_versus(
                "[baseline]\nmax_rule_mismatches_growth = 0",
                with_mismatches(sample_report(), 2),
                with_mismatches(sample_report(), 2),
                "max_rule_mismatches_growth",
                Pass,
            ),
            hil_versus(
                "[baseline]\nmax_rule_mismatches_growth = 0",
                sample_report(),
                with_mismatches(sample_report(), 1),
                "max_rule_mismatches_growth",
                Fail,
            ),
            hil_versus(
                "[baseline]\nmax_latency_p99_growth_us = 500",
                p99(3_000),
                p99(3_500),
                "max_latency_p99_growth_us",
                Pass,
            ),
            hil_versus(
                "[baseline]\nmax_latency_p99_growth_us = 500",
                p99(3_000),
                p99(3_501),
                "max_latency_p99_growth_us",
                Fail,
            ),
            hil_versus(
                "[baseline]\nmax_drift_growth_ppm = 1",
                drift_ppm(-2.0),
                drift_ppm(3.0),
                "max_drift_growth_ppm",
                Pass,
            ),
            hil_versus(
                "[baseline]\nmax_drift_growth_ppm = 1",
                drift_ppm(-2.0),
                drift_ppm(3.001),
                "max_drift_growth_ppm",
                Fail,
            ),
            hil_versus(
                "[baseline]\nmax_new_failing_checks = 0",
                sample_report(),
                with_mismatches(sample_report(), 1),
                "max_new_failing_checks",
                Fail,
            ),
            hil_versus(
                "[baseline]\nmax_time_error_growth_us = 0",
                sample_report(),
                sample_report(),
                "max_time_error_growth_us",
                Skip,
            ),
        ]
    }

    #[test]
    fn every_hil_rule_fails_when_it_should_and_passes_when_it_should() {
        let mut seen = std::collections::BTreeSet::new();
        for case in hil_table() {
            let rules = Rules::parse(case.rules).unwrap_or_else(|error| panic!("{}: {error}", case.rules));
            let report = hil_report(&case.report);
            let baseline = case.baseline.as_ref().map(hil_report);
            let verdicts = evaluate(&report, &rules, baseline.as_ref()).expect("evaluates");
            let verdict = verdicts
                .iter()
                .find(|verdict| verdict.rule == case.rule)
                .unwrap_or_else(|| panic!("no verdict for {}", case.rule));
            assert_eq!(verdict.status, case.expect, "{}: {verdict:?}", case.rules);
            assert_eq!(passed(&verdicts), case.expect != Status::Fail, "{}", case.rules);
            if case.expect == Status::Fail {
                let text = render(Path::new("r.json"), &report, None, &verdicts);
                assert!(text.contains("FAIL") && text.contains(&verdict.allowed), "{text}");
            }
            seen.insert((case.rule, case.expect as u8));
        }
        for key in [
            "every_check_passes",
            "max_rule_mismatches",
            "max_latency_p99_us",
            "max_abs_drift_ppm",
            "max_failed_games",
            "min_agreement_percent",
            "max_rule_mismatches_growth",
            "max_latency_p99_growth_us",
            "max_drift_growth_ppm",
        ] {
            for status in [Status::Pass, Status::Fail] {
                assert!(seen.contains(&(key, status as u8)), "{key} has no {status:?} case on a HIL report");
            }
        }
    }

    /// What `bench hil` applies to its own report: every check, no
    /// mismatch, p99 latency within 5 ms; what a HIL report has not is
    /// skipped.
    #[test]
    fn the_default_gate_on_a_hil_report_is_its_checks_mismatches_and_latency() {
        let verdicts = evaluate(&hil_report(&sample_report()), &Rules::defaults(), None).expect("evaluates");
        assert!(passed(&verdicts));
        let applied: Vec<&str> =
            verdicts.iter().filter(|verdict| verdict.status != Status::Skip).map(|verdict| verdict.rule).collect();
        assert_eq!(applied, ["every_check_passes", "max_rule_mismatches", "max_latency_p99_us"]);
        let text = render(Path::new("r.json"), &hil_report(&p99(6_000)), None, &verdicts);
        assert!(text.contains("hardware in the loop: `blitz-3-2` on qemu"), "{text}");
        let slow = evaluate(&hil_report(&p99(6_000)), &Rules::defaults(), None).expect("evaluates");
        assert!(!passed(&slow), "a p99 latency beyond 5 ms fails the default gate even when every check passed");
    }

    #[test]
    fn a_hil_report_is_not_a_baseline_of_a_simulation_report() {
        let hil = hil_report(&sample_report());
        let mut other = sample_report();
        other.scenario.name = "other".into();
        assert!(evaluate(&sim(), &Rules::defaults(), Some(&hil)).expect_err("refused").contains("hil"));
        assert!(evaluate(&hil, &Rules::defaults(), Some(&hil_report(&other))).expect_err("refused").contains("other"));
    }

    #[test]
    fn a_bad_hil_report_says_why() {
        let bytes = |report: &HilReport| serde_json::to_vec(report).expect("serializes");
        let value = |edit: fn(&mut serde_json::Value)| {
            let mut value = serde_json::to_value(sample_report()).expect("serializes");
            edit(&mut value);
            serde_json::to_vec(&value).expect("bytes")
        };
        type Expected = fn(&Problem) -> bool;
        let cases: Vec<(&str, Vec<u8>, Expected)> = vec![
            ("next version", value(|v| v["schema"] = "bench.hil.report/2".into()), |p| {
                matches!(p, Problem::WrongVersion { supported: hil::SCHEMA, .. })
            }),
            ("missing field", value(|v| v["drift"] = serde_json::Value::Null), |p| {
                matches!(p, Problem::Invalid { schema: hil::SCHEMA, .. })
            }),
            ("verdict flipped", bytes(&edit(|report| report.verdict = "fail".into())), |p| {
                matches!(p, Problem::Inconsistent(_))
            }),
            ("a pass that is incomplete", bytes(&edit(|report| report.complete = false)), |p| {
                matches!(p, Problem::Inconsistent(_))
            }),
            ("mismatch totals", bytes(&edit(|report| report.mismatches.total = 3)), |p| {
                matches!(p, Problem::Inconsistent(_))
            }),
            ("games", bytes(&edit(|report| report.games.played = 3)), |p| matches!(p, Problem::Inconsistent(_))),
            (
                "no games",
                bytes(&edit(|report| {
                    report.games.requested = 0;
                    report.games.played = 0;
                    report.games.complete = 0;
                    report.games.passed = 0;
                    report.games_detail.clear();
                })),
                |p| matches!(p, Problem::Inconsistent(detail) if detail.contains("a run of no games")),
            ),
            (
                "latency",
                bytes(&edit(|report| {
                    if let Some(latency) = report.latency.as_mut() {
                        latency.p50_us = 10_000;
                    }
                })),
                |p| matches!(p, Problem::Inconsistent(_)),
            ),
            (
                "a press binned twice",
                bytes(&edit(|report| {
                    if let Some(bin) = report.latency_histogram.last_mut() {
                        bin.presses += 1;
                    }
                })),
                |p| matches!(p, Problem::Inconsistent(detail) if detail.contains("holds 81 presses")),
            ),
            (
                "bins of other edges",
                bytes(&edit(|report| {
                    if let Some(bin) = report.latency_histogram.get_mut(1) {
                        bin.from_us = 15;
                    }
                })),
                |p| matches!(p, Problem::Inconsistent(detail) if detail.contains("bins from")),
            ),
        ];
        for (name, bytes, expected) in cases {
            match parse(&bytes) {
                Ok(_) => panic!("{name}: parsed"),
                Err(problem) => assert!(expected(&problem), "{name}: {problem:?}"),
            }
        }
        let unknown = LoadError { path: "r.json".into(), problem: Problem::UnknownSchema("acme/1".into()) };
        assert!(unknown.to_string().contains(hil::SCHEMA), "{unknown}");
        // An incomplete HIL report parses, and the gate refuses it like an interrupted simulation's.
        let incomplete = edit(|report| {
            report.complete = false;
            report.verdict = "fail".into();
            report.games.requested = 3;
            report.checks[0].passed = false;
        });
        let parsed = parse(&bytes(&incomplete)).expect("an incomplete report is a whole report");
        // A report from before the histogram still loads (a baseline).
        let without_histogram = value(|v| {
            if let Some(object) = v.as_object_mut() {
                object.remove("latency_histogram");
            }
        });
        let older = parse(&without_histogram).expect("loads").into_hil().expect("a HIL report");
        assert!(older.latency_histogram.is_empty());
        let error = require_complete(Path::new("r.json"), &parsed).expect_err("refused");
        assert!(error.to_string().contains("2 of 3 games"), "{error}");
        assert!(parsed.into_hil().is_some());
    }

    /// `bench hil`'s own gate, on a report folder as it writes it.
    #[test]
    fn apply_defaults_reads_the_written_report_back() {
        let dir = crate::report::tests::TempDir::new("gate-apply-defaults");
        let mut report = p99(5_001);
        report.files = BTreeMap::new();
        std::fs::write(dir.path().join(REPORT_JSON), serde_json::to_vec(&report).expect("json")).expect("write");
        let (passed, text) = apply_defaults(dir.path()).expect("reads back");
        assert!(!passed, "{text}");
        assert!(text.contains("FAIL  rules.max_latency_p99_us") && text.contains("allowed <= 5000 µs"), "{text}");
        assert!(!text.contains("skip"), "rules a HIL report has no number for are left out: {text}");
        std::fs::write(dir.path().join(REPORT_JSON), b"{\"schema\": \"bench.hil.report/1\"").expect("write");
        assert!(apply_defaults(dir.path()).expect_err("truncated").to_string().contains("truncated"));
    }
}
