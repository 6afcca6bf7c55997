//! The rules file (`gate.toml`) and its units.

use std::fmt;
use std::path::Path;

use serde::Deserialize;

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

    /// Reads a rules file; the error names the file, line and column.
    pub fn load(path: &Path) -> anyhow::Result<Rules> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| anyhow::anyhow!("cannot read the gate rules {}: {error}", path.display()))?;
        Rules::parse(&text).map_err(|error| anyhow::anyhow!("gate rules {}: {error}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Rules, String> {
        let rules: Rules = toml::from_str(text).map_err(|error| error.to_string().trim_end().to_string())?;
        let set: Vec<(String, bool)> = rules
            .rules
            .set()
            .into_iter()
            .chain(rules.baseline.as_ref().map(Tolerances::set).unwrap_or_default())
            .collect();
        for name in rules.rules.required_coverage.iter().flatten() {
            if chessclock::Transition::from_key(name).is_none() {
                let known: Vec<&str> = chessclock::Transition::ALL.iter().map(|transition| transition.key()).collect();
                return Err(format!("required_coverage: unknown rule `{name}`; known: {}", known.join(", ")));
            }
        }
        if set.is_empty() {
            return Err("the file sets no rule (a gate that checks nothing would always pass)".into());
        }
        if set.iter().all(|(_, can_fail)| !can_fail) {
            let off: Vec<&str> = set.iter().map(|(rule, _)| rule.as_str()).collect();
            return Err(format!(
                "no rule of the file can fail ({}): a gate that checks nothing would always pass",
                off.join(", ")
            ));
        }
        Ok(rules)
    }
}

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
        let limits = [
            ("max_oracle_violations", self.max_oracle_violations.map(|n| n.to_string())),
            ("max_failed_games", self.max_failed_games.map(|n| n.to_string())),
            ("max_time_error_us", self.max_time_error_us.map(|us| us.to_string())),
            ("max_abs_drift_ppm", self.max_abs_drift_ppm.map(|ppm| decimal(ppm.0, 3))),
            ("max_rule_mismatches", self.max_rule_mismatches.map(|n| n.to_string())),
            ("max_latency_p99_us", self.max_latency_p99_us.map(|us| us.to_string())),
            ("max_undecided_mate_searches", self.max_undecided_mate_searches.map(|n| n.to_string())),
        ];
        set.extend(limits.into_iter().filter_map(|(key, value)| Some((format!("{key} = {}", value?), true))));
        if let Some(required) = &self.required_coverage {
            set.push((format!("required_coverage = {required:?}"), !required.is_empty()));
        }
        set
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
        let limits = [
            ("max_new_failing_checks", self.max_new_failing_checks.map(|n| n.to_string())),
            ("max_failed_games_growth", self.max_failed_games_growth.map(|n| n.to_string())),
            ("max_time_error_growth_us", self.max_time_error_growth_us.map(|us| us.to_string())),
            ("max_drift_growth_ppm", self.max_drift_growth_ppm.map(|ppm| decimal(ppm.0, 3))),
            ("max_rule_mismatches_growth", self.max_rule_mismatches_growth.map(|n| n.to_string())),
            ("max_latency_p99_growth_us", self.max_latency_p99_growth_us.map(|us| us.to_string())),
        ];
        set.extend(limits.into_iter().filter_map(|(key, value)| Some((format!("{key} = {}", value?), true))));
        set
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
