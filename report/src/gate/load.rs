//! Reading a report back: its kind, its schema version, numbers that a run
//! can produce, and the consistency of its fields and checks, with what is
//! wrong said in words, naming the field (exit code 2).

use std::fmt;
use std::path::{Path, PathBuf};

use super::input_file::{read_bounded, InputError, REPORT_BYTES_MAX};
use super::measure::{hil_measurements, sim_measurements};
use super::Measurements;
use crate::check::CheckInfo;
use crate::files::REPORT_JSON;
use crate::hil::{self, Report as HilReport};
use crate::sim::report::{self as json, Report};

mod hil_report;
mod json_location;
mod sim_report;

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
    /// A device, a pipe, a folder: what bench writes is a regular file.
    NotAFile(&'static str),
    /// Larger than [`REPORT_BYTES_MAX`].
    TooLarge,
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
    /// The schema is right, but a field is missing or has the wrong type:
    /// where (1-based line and column of the file), and which field (a
    /// dotted path) when it can be told.
    Invalid {
        schema: &'static str,
        line: usize,
        column: usize,
        field: Option<String>,
        detail: String,
    },
    /// The fields contradict each other.
    Inconsistent(String),
    /// A field holds a value no run can produce (a count above the games
    /// played, a share over 100 %): `field` is its dotted path.
    Impossible {
        field: String,
        detail: String,
    },
    /// A whole report of an interrupted run or a partial merge
    /// (`"complete": false`).
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
            Problem::NotAFile(kind) => write!(f, "{path} {}", InputError::NotAFile(kind)),
            Problem::TooLarge => write!(f, "{path} {}", InputError::TooLarge { max_bytes: REPORT_BYTES_MAX }),
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
            Problem::Invalid { schema, line, column, field, detail } => {
                write!(f, "{path}:{line}:{column}: ")?;
                if let Some(field) = field {
                    write!(f, "field `{field}`: ")?;
                }
                write!(f, "not a valid `{schema}` report: {detail}")
            }
            Problem::Inconsistent(detail) => {
                write!(f, "{path} is not a consistent report ({detail}): it was edited or damaged")
            }
            Problem::Impossible { field, detail } => {
                write!(f, "{path}: `{field}` {detail}, which no run can produce: the report was edited or damaged")
            }
            Problem::Incomplete { played, planned } => write!(
                f,
                "{path} is the report of an interrupted run or a partial merge (\"complete\": false): it covers \
                 {played} of {planned} games, too few to judge; rerun it to the end, or merge every shard"
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
    let bytes = read_bounded(&path, REPORT_BYTES_MAX).map_err(|input| {
        error(match input {
            InputError::Missing => Problem::Missing,
            InputError::Unreadable(io) => Problem::Unreadable(io),
            InputError::NotAFile(kind) => Problem::NotAFile(kind),
            InputError::TooLarge { .. } => Problem::TooLarge,
        })
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
            refuse_negative(&value, &mut String::new(), &sim_report::signed)?;
            let report: Report = typed(bytes, json::SCHEMA)?;
            sim_report::check(&report)?;
            Ok(AnyReport::Sim(Box::new(report)))
        }
        hil::SCHEMA => {
            refuse_negative(&value, &mut String::new(), &hil_report::signed)?;
            let report: HilReport = typed(bytes, hil::SCHEMA)?;
            hil_report::check(&report)?;
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

/// The report of `schema` in `bytes` (valid JSON), or where and why not:
/// read from the bytes, not from the parsed value, so that the error has
/// the file's line and column.
fn typed<T: serde::de::DeserializeOwned>(bytes: &[u8], schema: &'static str) -> Result<T, Problem> {
    serde_json::from_slice(bytes).map_err(|error| {
        let (line, column) = (error.line(), error.column());
        let message = error.to_string();
        // serde_json ends its message with the place, said here before it.
        let message = message.strip_suffix(&format!(" at line {line} column {column}")).unwrap_or(&message);
        let field = json_location::field_at(bytes, line, column, message);
        let detail = bench_sim::toml_location::number_out_of_range(message).unwrap_or_else(|| message.to_string());
        Problem::Invalid { schema, line, column, field, detail }
    })
}

/// `field` holds a value no run produces; `detail` says which, and why not.
fn impossible(field: impl Into<String>, detail: impl Into<String>) -> Problem {
    Problem::Impossible { field: field.into(), detail: detail.into() }
}

/// `field` (`value`) is at most `bound`, the value of `bounding` (a field,
/// or an expression of fields).
fn at_most(field: &str, value: u64, bound: u64, bounding: &str) -> Result<(), Problem> {
    if value > bound {
        return Err(impossible(field, format!("is {value}, more than {bounding} ({bound})")));
    }
    Ok(())
}

/// The sum of `values`, exactly: counts that add up beyond 64 bits are
/// refused, not saturated (a saturated sum can equal a forged total).
fn sum(field: &str, values: impl IntoIterator<Item = u64>) -> Result<u64, Problem> {
    values.into_iter().try_fold(0u64, |total, value| {
        total.checked_add(value).ok_or_else(|| impossible(field, "adds up to more than 2^64 - 1"))
    })
}

/// No drift is beyond this many ppm either way: a clock that runs a
/// thousand times too fast, or backwards as fast, is no clock. Firmware
/// with its clock in the wrong unit (nanoseconds counted as µs:
/// +999 000 000 ppm) stays within it, so bench's own report of such a board
/// still loads, and fails the gate. Past it a number is an edit; the gate
/// counts ppb in 64 bits, which 1e308 ppm does not fit (it made the drift
/// rules skip).
const DRIFT_PPM_MAX: f64 = 1e9;
/// [`DRIFT_PPM_MAX`] in parts per billion, for the integer drift of a
/// simulation report.
pub(super) const DRIFT_PPB_MAX: u64 = 1_000_000_000_000;

/// A drift of `ppm` in `field`: a number, and one a clock can have.
fn drift_ppm(field: &str, ppm: f64) -> Result<(), Problem> {
    if !(ppm.is_finite() && ppm.abs() <= DRIFT_PPM_MAX) {
        return Err(impossible(
            field,
            format!("is {ppm:e} ppm, beyond ±{DRIFT_PPM_MAX:e} ppm: no clock drifts that far"),
        ));
    }
    Ok(())
}

/// A number that is non-negative by nature (a width, a deviation, a span).
fn non_negative(field: &str, value: f64) -> Result<(), Problem> {
    if !(value.is_finite() && value >= 0.0) {
        return Err(impossible(field, format!("is {value}, not a finite number of 0 or more")));
    }
    Ok(())
}

/// The first negative number in `value` (at `path`, dotted) where `signed`
/// does not allow one: serde would refuse it in an unsigned field too, but
/// without saying which field.
fn refuse_negative(value: &serde_json::Value, path: &mut String, signed: &dyn Fn(&str) -> bool) -> Result<(), Problem> {
    let length = path.len();
    let result = match value {
        serde_json::Value::Number(number) if number.as_f64().is_some_and(|number| number < 0.0) && !signed(path) => {
            Err(impossible(path.as_str(), format!("is {number}: no count, time or width is negative")))
        }
        serde_json::Value::Array(items) => items.iter().enumerate().try_for_each(|(index, item)| {
            path.truncate(length);
            path.push_str(&format!("[{index}]"));
            refuse_negative(item, path, signed)
        }),
        serde_json::Value::Object(fields) => fields.iter().try_for_each(|(key, field)| {
            path.truncate(length);
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(key);
            refuse_negative(field, path, signed)
        }),
        _ => Ok(()),
    };
    path.truncate(length);
    result
}

/// A check whose verdict the report's own numbers contradict.
fn contradicted(name: &str, passed: bool) -> Problem {
    Problem::Inconsistent(format!(
        "check `{name}` {}, but the report's numbers {} it",
        if passed { "passed" } else { "failed" },
        if passed { "fail" } else { "pass" }
    ))
}

/// `coverage` names the model's rules once each, and no rule happened in
/// more games than were played, or in more games than times.
fn coverage(entries: &[crate::coverage::Entry], played: u64) -> Result<(), Problem> {
    crate::coverage::from_entries(entries).map_err(Problem::Inconsistent)?;
    for entry in entries {
        at_most(&format!("coverage `{}`.games", entry.rule), entry.games, played, "the games played")?;
    }
    Ok(())
}

/// The exercises check: passed exactly when every rule it lists (its
/// `expected`, comma-separated) happened, by the report's own coverage.
fn exercises_judged(check: &CheckInfo, entries: &[crate::coverage::Entry]) -> bool {
    check.expected.split(", ").all(|rule| entries.iter().any(|entry| entry.rule == rule && entry.count > 0))
}
