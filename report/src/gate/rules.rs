//! The rules file (`gate.toml`) and its units.

use std::fmt;
use std::path::Path;

use bench_sim::toml_location::LocatedError;
use serde::Deserialize;

use super::input_file::{read_bounded, RULES_BYTES_MAX};
use crate::format::markdown::decimal;

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
    /// Full 6.10 searches that gave up (ruled "can mate").
    pub max_undecided_mate_searches: Option<u64>,
    /// Rules of the clock model (transition names: `increment`,
    /// `flag.final`, …) the run must have gone through at least once.
    pub required_coverage: Option<Vec<String>>,
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

    /// Reads a rules file (at most [`RULES_BYTES_MAX`] bytes of a regular
    /// file); the error names the file, line, column and field.
    pub fn load(path: &Path) -> anyhow::Result<Rules> {
        let bytes = read_bounded(path, RULES_BYTES_MAX)
            .map_err(|error| anyhow::anyhow!("gate rules {}: {error}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| anyhow::anyhow!("gate rules {}: not UTF-8 text: not a rules file", path.display()))?;
        Rules::parse(&text, path).map_err(|error| anyhow::anyhow!("gate rules {error}"))
    }

    /// The rules in `text`, read from `file` (which errors name).
    pub fn parse(text: &str, file: &Path) -> Result<Rules, LocatedError> {
        let rules: Rules = toml::from_str(text).map_err(|error| LocatedError::from_toml(text, file, &error))?;
        for name in rules.rules.required_coverage.iter().flatten() {
            if chessclock::Transition::from_key(name).is_none() {
                let known: Vec<&str> = chessclock::Transition::ALL.iter().map(|transition| transition.key()).collect();
                let message = format!("unknown rule `{name}`; known: {}", known.join(", "));
                return Err(LocatedError::at_field(text, file, "rules.required_coverage", 0, message));
            }
        }
        rules.refuse_limits_never_exceeded(text, file)?;
        let set: Vec<(String, bool)> = rules
            .rules
            .set()
            .into_iter()
            .chain(rules.baseline.as_ref().map(Tolerances::set).unwrap_or_default())
            .collect();
        if set.is_empty() {
            return Err(LocatedError::whole_file(
                file,
                "the file sets no rule (a gate that checks nothing would always pass)",
            ));
        }
        if set.iter().all(|(_, can_fail)| !can_fail) {
            let off: Vec<&str> = set.iter().map(|(rule, _)| rule.as_str()).collect();
            let message = format!(
                "no rule of the file can fail ({}): a gate that checks nothing would always pass",
                off.join(", ")
            );
            return Err(LocatedError::whole_file(file, message));
        }
        Ok(rules)
    }

    /// An error at the first integer limit no report can exceed: the rule
    /// would pass every report, as an empty file would.
    fn refuse_limits_never_exceeded(&self, text: &str, file: &Path) -> Result<(), LocatedError> {
        let thresholds = self.rules.integer_limits().map(|(key, limit)| ("rules", key, limit));
        let tolerances = self.baseline.as_ref().map(Tolerances::integer_limits).unwrap_or_default();
        let tolerances = tolerances.map(|(key, limit)| ("baseline", key, limit));
        for (table, key, limit) in thresholds.into_iter().chain(tolerances) {
            // At it, not above: a limit is 64-bit too.
            if let Some(limit) = limit.filter(|limit| *limit == REPORT_NUMBER_MAX) {
                let message = format!(
                    "{limit} can never be exceeded: no number in a report is larger, so the rule would pass every \
                     report (a gate that checks nothing); give at most {} or leave the key out",
                    REPORT_NUMBER_MAX - 1
                );
                return Err(LocatedError::at_field(text, file, format!("{table}.{key}"), 0, message));
            }
        }
        Ok(())
    }
}

/// The largest number a report holds: its counts and times are 64-bit
/// (`--games` takes up to 2^64 − 1). An integer limit at or above it is
/// never exceeded.
const REPORT_NUMBER_MAX: u64 = u64::MAX;

/// The largest ppm limit a rules file takes. A report may hold a drift up
/// to ±10^9 ppm (`load::DRIFT_PPB_MAX`), so every ppm limit can be
/// exceeded.
const PPM_LIMIT_MAX: u64 = 1_000_000;
const _: () = assert!(PPM_LIMIT_MAX * 1_000 < super::load::DRIFT_PPB_MAX);

impl Thresholds {
    /// Each rule set, as `key = value`, and whether it can fail a report.
    /// Two settings switch their rule off: `every_check_passes = false`,
    /// and `min_agreement_percent = 0` (no agreement is below 0 %).
    fn set(&self) -> Vec<(String, bool)> {
        let mut set = Vec::new();
        if let Some(on) = self.every_check_passes {
            set.push((format!("every_check_passes = {on}"), on));
        }
        if let Some(minimum) = self.min_agreement_percent {
            set.push((format!("min_agreement_percent = {}", decimal(minimum.0, 4)), minimum.0 > 0));
        }
        let integers = self.integer_limits().map(|(key, limit)| (key, limit.map(|n| n.to_string())));
        let drift = ("max_abs_drift_ppm", self.max_abs_drift_ppm.map(|ppm| decimal(ppm.0, 3)));
        let limits = integers.into_iter().chain([drift]);
        set.extend(limits.filter_map(|(key, value)| Some((format!("{key} = {}", value?), true))));
        if let Some(required) = &self.required_coverage {
            set.push((format!("required_coverage = {required:?}"), !required.is_empty()));
        }
        set
    }

    /// The limits that are integers (counts, µs), by key.
    fn integer_limits(&self) -> [(&'static str, Option<u64>); 6] {
        [
            ("max_oracle_violations", self.max_oracle_violations),
            ("max_failed_games", self.max_failed_games),
            ("max_time_error_us", self.max_time_error_us),
            ("max_rule_mismatches", self.max_rule_mismatches),
            ("max_latency_p99_us", self.max_latency_p99_us),
            ("max_undecided_mate_searches", self.max_undecided_mate_searches),
        ]
    }

    /// Whether any rule set can fail a report.
    pub(super) fn can_fail(&self) -> bool {
        self.set().iter().any(|(_, can_fail)| *can_fail)
    }
}

impl Tolerances {
    /// Each tolerance set, as `key = value`, and whether it can fail a
    /// report: `max_agreement_drop_percent = 100` cannot (agreement drops
    /// by 100 points at most).
    fn set(&self) -> Vec<(String, bool)> {
        let mut set = Vec::new();
        if let Some(limit) = self.max_agreement_drop_percent {
            set.push((format!("max_agreement_drop_percent = {}", decimal(limit.0, 4)), limit.0 < 1_000_000));
        }
        let integers = self.integer_limits().map(|(key, limit)| (key, limit.map(|n| n.to_string())));
        let drift = ("max_drift_growth_ppm", self.max_drift_growth_ppm.map(|ppm| decimal(ppm.0, 3)));
        let limits = integers.into_iter().chain([drift]);
        set.extend(limits.filter_map(|(key, value)| Some((format!("{key} = {}", value?), true))));
        set
    }

    /// The tolerances that are integers (counts, µs), by key: a growth is
    /// at most the largest number a report holds.
    fn integer_limits(&self) -> [(&'static str, Option<u64>); 5] {
        [
            ("max_new_failing_checks", self.max_new_failing_checks),
            ("max_failed_games_growth", self.max_failed_games_growth),
            ("max_time_error_growth_us", self.max_time_error_growth_us),
            ("max_rule_mismatches_growth", self.max_rule_mismatches_growth),
            ("max_latency_p99_growth_us", self.max_latency_p99_growth_us),
        ]
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
        scaled(deserializer, 1_000, PPM_LIMIT_MAX as f64).map(Ppm)
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
