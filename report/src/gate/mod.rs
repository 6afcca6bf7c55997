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
//! Files: `input_file.rs` (reading an input file, with a bound), `load.rs`
//! (reading a report back; what each kind always satisfies in
//! `load/sim_report.rs` and `load/hil_report.rs`), `measure.rs` (its
//! [`Measurements`]), `rules.rs` (the rules file), this one (applying the
//! rules and printing the verdicts), `tests.rs`.
//!
//! `bench sim`, `bench hil` and `bench report merge` gate the report they
//! have just written through one function, [`apply_defaults`]: it reads the
//! report back as `bench gate` does and applies [`Rules::defaults`], so
//! their exit code is the gate's (`tests/cli_report.rs` checks each command
//! against `bench gate` on its report).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::check::CheckInfo;
use crate::files::REPORT_JSON;
use crate::format::markdown::decimal;

mod input_file;
mod load;
mod measure;
mod rules;
#[cfg(test)]
mod tests;

pub use input_file::{REPORT_BYTES_MAX, RULES_BYTES_MAX};
pub use load::{load, load_complete, parse, report_path, require_complete, AnyReport, LoadError, Problem};
pub use measure::{Measurements, Metric, Value};
pub use rules::{Percent, Ppm, Rules, Thresholds, Tolerances};

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
/// kind, a baseline without baseline rules, or no baseline and no rule of
/// `[rules]` that can fail.
pub fn evaluate(report: &Measurements, rules: &Rules, baseline: Option<&Measurements>) -> Result<Vec<Verdict>, String> {
    if baseline.is_none() && !rules.rules.can_fail() {
        // A file of [baseline] rules only passed any report without one.
        return Err("no rule of the rules file's [rules] table can fail, and no --baseline was given to apply its \
                    [baseline] table: a gate that checks nothing would always pass"
            .into());
    }
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
        Value::Ratio { part, whole } => format!("{} ({part} of {whole})", crate::format::html::percent(*part, *whole)),
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
    let maxima: [Limit; 7] = [
        ("max_oracle_violations", Metric::OracleViolations, rules.max_oracle_violations.map(|n| (n.to_string(), n))),
        ("max_failed_games", Metric::FailedGames, rules.max_failed_games.map(|n| (n.to_string(), n))),
        ("max_time_error_us", Metric::TimeError, rules.max_time_error_us.map(|us| (format!("{us} µs"), us))),
        ("max_abs_drift_ppm", Metric::Drift, rules.max_abs_drift_ppm.map(|ppm| (ppm.to_string(), ppm.0))),
        ("max_rule_mismatches", Metric::RuleMismatches, rules.max_rule_mismatches.map(|n| (n.to_string(), n))),
        ("max_latency_p99_us", Metric::LatencyP99, rules.max_latency_p99_us.map(|us| (format!("{us} µs"), us))),
        (
            "max_undecided_mate_searches",
            Metric::UndecidedMateSearches,
            rules.max_undecided_mate_searches.map(|n| (n.to_string(), n)),
        ),
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
    if let Some(required) = &rules.required_coverage {
        verdicts.push(required_coverage(report, required));
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

/// `required_coverage`: every listed rule happened at least once. A report
/// without coverage fails it: it cannot show what the rule asks for.
fn required_coverage(report: &Measurements, required: &[String]) -> Verdict {
    let rule = "required_coverage";
    let allowed = format!("each of {} at least once", required.join(", "));
    let Some(coverage) = &report.coverage else {
        return verdict(
            rule,
            false,
            "no rule coverage in the report (written before bench counted it)".into(),
            allowed,
        );
    };
    let missing: Vec<&str> = required
        .iter()
        .filter(|name| coverage.get(name.as_str()).copied().unwrap_or(0) == 0)
        .map(String::as_str)
        .collect();
    let measured = if missing.is_empty() {
        format!("all {} exercised", required.len())
    } else {
        format!("never exercised: {}", missing.join(", "))
    };
    verdict(rule, missing.is_empty(), measured, allowed)
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
        verdicts.push(agreement_drop(report, baseline, limit));
    }
    verdicts
}

/// `max_agreement_drop_percent`: agreement fell by at most `limit` points.
fn agreement_drop(report: &Measurements, baseline: &Measurements, limit: Percent) -> Verdict {
    let (table, rule) = ("baseline", "max_agreement_drop_percent");
    let allowed = format!("drops by {} points at most", decimal(limit.0, 4));
    let now = metric(report, Metric::Agreement);
    let before = metric(baseline, Metric::Agreement).map_err(|why| format!("baseline {why}"));
    let (now, before) = match (now, before) {
        (Ok(now), Ok(before)) => (now, before),
        (Err(why), _) | (_, Err(why)) => return skip(table, rule, why, allowed),
    };
    let (Some(now_ratio), Some(before_ratio)) = (ratio(now), ratio(before)) else {
        return skip(table, rule, "not a ratio".into(), allowed);
    };
    let drop = AgreementDrop::new(before_ratio, now_ratio);
    let hundredths = drop.points_hundredths();
    // By the exact movement: a drop too small to show is still one.
    let sign = if drop.rose || drop.magnitude == 0 { "+" } else { "-" };
    let measured =
        format!("{} → {} ({sign}{}.{:02} points)", show(before), show(now), hundredths / 100, hundredths % 100);
    Verdict { table, ..verdict(rule, drop.at_most(limit), measured, allowed) }
}

/// How far agreement moved from `before` to `now` (each `part` of `whole`,
/// `whole` > 0), exactly: `before − now` is `magnitude / denominator`,
/// a drop unless `rose`. The cross-products are of two 64-bit numbers, so
/// they fit in 128 bits; scaling them to a percentage does not, and is done
/// in 256 bits ([`wide_mul`]): with 2^54 games an i128 wrapped.
struct AgreementDrop {
    rose: bool,
    magnitude: u128,
    denominator: u128,
}

impl AgreementDrop {
    fn new((before_part, before_whole): (u64, u64), (now_part, now_whole): (u64, u64)) -> AgreementDrop {
        let before = u128::from(before_part) * u128::from(now_whole);
        let now = u128::from(now_part) * u128::from(before_whole);
        AgreementDrop {
            rose: now > before,
            magnitude: before.abs_diff(now),
            denominator: u128::from(before_whole) * u128::from(now_whole),
        }
    }

    /// Whether it dropped by at most `limit` (a rise always passes).
    fn at_most(&self, limit: Percent) -> bool {
        // magnitude / denominator <= limit / 10^6 (a Percent counts millionths of 1).
        self.rose || wide_mul(self.magnitude, 1_000_000) <= wide_mul(u128::from(limit.0), self.denominator)
    }

    /// The movement in hundredths of a percentage point, rounded toward zero.
    fn points_hundredths(&self) -> u128 {
        mul_div_floor(self.magnitude, 10_000, self.denominator)
    }
}

/// `a · b` exactly, as the (high, low) halves of 256 bits; tuples compare
/// high half first, so products compare as numbers.
fn wide_mul(a: u128, b: u128) -> (u128, u128) {
    const LOW: u128 = u64::MAX as u128;
    let (a_high, a_low, b_high, b_low) = (a >> 64, a & LOW, b >> 64, b & LOW);
    // Each partial product of two 64-bit halves fits in 128 bits.
    let low_low = a_low * b_low;
    let high_low = a_high * b_low;
    let low_high = a_low * b_high;
    let high_high = a_high * b_high;
    let middle = (low_low >> 64) + (high_low & LOW) + (low_high & LOW);
    let low = (low_low & LOW) | (middle << 64);
    let high = high_high + (high_low >> 64) + (low_high >> 64) + (middle >> 64);
    (high, low)
}

/// `a · b / d` rounded down (`u128::MAX` if larger; 0 when `d` is 0): the
/// largest `q` with `q · d <= a · b`, found by bisection on exact products.
fn mul_div_floor(a: u128, b: u128, d: u128) -> u128 {
    if d == 0 {
        return 0;
    }
    let target = wide_mul(a, b);
    let (mut low, mut high) = (0u128, u128::MAX);
    while low < high {
        let middle = low + (high - low).div_ceil(2);
        if wide_mul(middle, d) <= target {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    low
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
