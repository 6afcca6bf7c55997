//! The gate's rules, loading and rendering, on made-up and written reports.

use std::collections::BTreeMap;
use std::path::Path;

use super::*;
use crate::check::CheckInfo;
use crate::hil::{self, Report as HilReport};

/// The rules in `text`, as read from a file `gate.toml`; the error as
/// printed.
fn rules_from(text: &str) -> Result<Rules, String> {
    Rules::parse(text, Path::new("gate.toml")).map_err(|error| error.to_string())
}

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
    metrics.insert(Metric::UndecidedMateSearches, Value::Count(2));
    Measurements {
        kind: "sim",
        subject: "simulation of `s`".into(),
        scenario: "s".into(),
        complete: true,
        played: 100,
        planned: 100,
        checks: vec![check("no oracle violations", true), check("games in class `6.3`", true)],
        metrics,
        coverage: Some([("press".to_string(), 40), ("increment".to_string(), 0)].into_iter().collect()),
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
        case("[rules]\nmax_undecided_mate_searches = 2", sim(), "max_undecided_mate_searches", Pass),
        case("[rules]\nmax_undecided_mate_searches = 1", sim(), "max_undecided_mate_searches", Fail),
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
        let rules = rules_from(case.rules).unwrap_or_else(|error| panic!("{}: {error}", case.rules));
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
        "max_undecided_mate_searches",
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

/// Agreement over any number of games a report can count: the drop is
/// compared exactly, not in an i128 that wraps (2^54 games from 100 % to
/// 0 % passed a 0.5-point limit; u64::MAX games from 0 % to 100 % failed).
#[test]
fn the_agreement_drop_is_exact_at_any_game_count() {
    let huge = 1u64 << 54;
    let max = u64::MAX;
    let ratio = |part, whole| Value::Ratio { part, whole };
    for (limit, before, now, expect, shown) in [
        ("0.5", ratio(huge, huge), ratio(0, huge), Status::Fail, "-100.00 points"),
        ("100", ratio(huge, huge), ratio(0, huge), Status::Pass, "-100.00 points"),
        ("0", ratio(0, max), ratio(max, max), Status::Pass, "+100.00 points"),
        ("0.5", ratio(max, max), ratio(0, max), Status::Fail, "-100.00 points"),
        ("0", ratio(max, max), ratio(max - 1, max), Status::Fail, "-0.00 points"),
        ("0.0001", ratio(max, max), ratio(max - 1, max), Status::Pass, "-0.00 points"),
        // 50 % of u64::MAX games against 50 % of 2^54 + 1: a drop of
        // about 2^-55, more than 0 and less than a millionth.
        ("0", ratio(huge / 2 + 1, huge + 1), ratio(max / 2, max), Status::Fail, "-0.00 points"),
        ("0.0001", ratio(huge / 2 + 1, huge + 1), ratio(max / 2, max), Status::Pass, "-0.00 points"),
        // 75 % to 74.5 % of u64::MAX games, up to rounding: just over and
        // just under half a point.
        ("0.5", ratio(3, 4), ratio(max / 4 * 3 - max / 200 + 2, max), Status::Fail, "-0.50 points"),
        ("0.5", ratio(3, 4), ratio(max / 4 * 3 - max / 200 + 3, max), Status::Pass, "-0.49 points"),
    ] {
        // The table alone: a file of only `= 100` is refused (it cannot fail).
        let tolerances: Tolerances = toml::from_str(&format!("max_agreement_drop_percent = {limit}")).expect("a limit");
        let rules = Rules { rules: Thresholds::default(), baseline: Some(tolerances) };
        let baseline = with(sim(), Metric::Agreement, before.clone());
        let report = with(sim(), Metric::Agreement, now.clone());
        let verdicts = evaluate(&report, &rules, Some(&baseline)).expect("evaluates");
        let verdict = verdicts.iter().find(|verdict| verdict.rule == "max_agreement_drop_percent").expect("a verdict");
        assert_eq!(verdict.status, expect, "limit {limit}, {before:?} → {now:?}: {verdict:?}");
        assert!(verdict.measured.ends_with(&format!("({shown})")), "{before:?} → {now:?}: {}", verdict.measured);
    }
}

#[test]
fn wide_products_and_quotients_are_exact() {
    assert_eq!(wide_mul(u128::MAX, u128::MAX), (u128::MAX - 1, 1));
    assert_eq!(wide_mul(1 << 64, 1 << 64), (1, 0));
    assert_eq!(wide_mul(u128::from(u64::MAX), u128::from(u64::MAX)), (0, u128::from(u64::MAX) * u128::from(u64::MAX)));
    assert_eq!(wide_mul(0, u128::MAX), (0, 0));
    assert_eq!(mul_div_floor(u128::MAX, 10_000, u128::MAX), 10_000);
    assert_eq!(mul_div_floor(u128::MAX - 1, 10_000, u128::MAX), 9_999);
    assert_eq!(mul_div_floor(7, 3, 2), 10);
    assert_eq!(mul_div_floor(u128::MAX, u128::MAX, 1), u128::MAX, "saturates");
    assert_eq!(mul_div_floor(5, 5, 0), 0);
}

#[test]
fn the_failure_lines_say_measured_and_allowed() {
    let rules = rules_from("[rules]\nevery_check_passes = true\nmax_time_error_us = 999").expect("rules");
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
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gate.example.toml");
    assert_eq!(Rules::load(&example).expect("gate.example.toml parses"), Rules::defaults());
}

/// The rules file shown in `reports/README.md` is one `bench gate` reads.
#[test]
fn the_rules_file_in_the_readme_parses() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/README.md"))
        .expect("reports/README.md");
    let blocks = toml_blocks(&readme);
    assert!(!blocks.is_empty(), "reports/README.md shows no rules file");
    for block in blocks {
        rules_from(&block).unwrap_or_else(|error| panic!("{error}\n--- block ---\n{block}"));
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
        // Rules set so that they cannot fail: the gate would always pass.
        ("[rules]\nevery_check_passes = false", "no rule of the file can fail (every_check_passes = false)"),
        ("[rules]\nmin_agreement_percent = 0", "no rule of the file can fail (min_agreement_percent = 0)"),
        (
            "[rules]\nevery_check_passes = false\n[baseline]\nmax_agreement_drop_percent = 100",
            "(every_check_passes = false, max_agreement_drop_percent = 100): a gate that checks nothing",
        ),
        ("[rules]\n[baseline]\n", "sets no rule"),
        ("[rules\nx = 1", "gate.toml:1:"),
    ] {
        let error = rules_from(text).expect_err(text);
        assert!(error.contains(needle), "{text:?}: {error}");
    }
}

/// A limit no number in a report exceeds checks nothing: refused, naming
/// the rule and where it is, and the largest limit that still checks
/// something, which is taken. (`max_oracle_violations =
/// 18446744073709551615`, the file's only rule, passed every report.)
#[test]
fn a_limit_no_report_can_exceed_is_refused_where_it_is_written() {
    let keys = [
        ("rules", "max_oracle_violations"),
        ("rules", "max_failed_games"),
        ("rules", "max_time_error_us"),
        ("rules", "max_rule_mismatches"),
        ("rules", "max_latency_p99_us"),
        ("rules", "max_undecided_mate_searches"),
        ("baseline", "max_new_failing_checks"),
        ("baseline", "max_failed_games_growth"),
        ("baseline", "max_time_error_growth_us"),
        ("baseline", "max_rule_mismatches_growth"),
        ("baseline", "max_latency_p99_growth_us"),
    ];
    for (table, key) in keys {
        // Another rule of the table first, so that the refused one is on line 3.
        let other = if table == "rules" { "every_check_passes = true" } else { "max_agreement_drop_percent = 1" };
        let file = |limit: u64| format!("[{table}]\n{other}\n{key} = {limit}\n");
        let error = rules_from(&file(u64::MAX)).expect_err(key);
        let expected = format!("gate.toml:3:1: field `{table}.{key}`: 18446744073709551615 can never be exceeded");
        assert!(error.starts_with(&expected), "{key}: {error}");
        assert!(error.contains("give at most 18446744073709551614"), "{key}: {error}");
        rules_from(&file(u64::MAX - 1)).unwrap_or_else(|error| panic!("{key}: {error}"));
    }
    // Every ppm limit a file takes is below the drift a report may hold.
    let widest = rules_from("[rules]\nmax_abs_drift_ppm = 1000000").expect("the largest ppm limit");
    let verdicts = evaluate(&with(sim(), Metric::Drift, Value::Ppb(1_000_000_001)), &widest, None).expect("evaluates");
    assert!(!passed(&verdicts), "{verdicts:?}");
}

/// A file with one rule that can fail is a gate; without `--baseline`,
/// only its `[rules]` can fail a report.
#[test]
fn a_rules_file_needs_a_rule_that_can_fail_a_report() {
    for text in [
        "[rules]\nevery_check_passes = false\nmax_oracle_violations = 0",
        "[rules]\nmin_agreement_percent = 0.0001",
        "[baseline]\nmax_agreement_drop_percent = 99.9999",
    ] {
        rules_from(text).unwrap_or_else(|error| panic!("{text}: {error}"));
    }
    for text in [
        "[baseline]\nmax_new_failing_checks = 0",
        "[rules]\nevery_check_passes = false\n[baseline]\nmax_failed_games_growth = 0",
    ] {
        let rules = rules_from(text).expect("parses");
        let error = evaluate(&sim(), &rules, None).expect_err("nothing to check without a baseline");
        assert!(error.contains("no --baseline") && error.contains("checks nothing"), "{error}");
        evaluate(&sim(), &rules, Some(&sim())).expect("with a baseline, it checks");
    }
}

#[test]
fn a_baseline_must_be_of_the_same_scenario_and_kind_and_have_rules() {
    let rules = Rules::defaults();
    let mut other = sim();
    other.scenario = "other".into();
    assert!(evaluate(&sim(), &rules, Some(&other)).expect_err("refused").contains("scenario `other`"));
    assert!(evaluate(&sim(), &rules, Some(&hil())).expect_err("refused").contains("hil"));
    let no_baseline = rules_from("[rules]\nevery_check_passes = true").expect("rules");
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
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/testdata/report.json")).expect("the golden report")
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
        (
            "games",
            edited(|v| v["games"]["played"] = 99.into()),
            |p| matches!(p, Problem::Impossible { field, .. } if field == "games.played"),
        ),
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
    // The 6 games played of a run of 12, interrupted.
    let incomplete = edited(|v| {
        v["complete"] = false.into();
        v["games"]["end"] = 12.into();
        v["games"]["total"] = 12.into();
        if let Some(checks) = v["checks"].as_array_mut() {
            for check in checks.iter_mut().filter(|check| check["name"] == "all games of the run played") {
                check["passed"] = false.into();
            }
        }
    });
    let report = parse(&incomplete).expect("an incomplete report is a whole report");
    let error = require_complete(Path::new("r.json"), &report).expect_err("refused");
    assert!(error.to_string().contains("interrupted run") && error.to_string().contains("6 of 12 games"), "{error}");
}

/// A field of the wrong type or missing is named, with where it is in the
/// file. (`drift_ppb.max = 1e30` said only "invalid type: floating point
/// `1e+30`, expected i64".)
#[test]
fn a_field_of_the_wrong_type_is_named_with_its_place_in_the_file() {
    type Edit = fn(&mut serde_json::Value);
    let cases: Vec<(&str, &str, Edit)> = vec![
        // Written as a string, then made the number `1e30` in the text.
        ("drift_ppb.max", "1e30", |v| v["drift_ppb"]["max"] = "1e30".into()),
        ("seed", "\"seven\"", |v| v["seed"] = "seven".into()),
        ("failures[1].reasons", "\"late\"", |v| v["failures"][1]["reasons"] = "late".into()),
        ("checks", "", |v| {
            if let Some(object) = v.as_object_mut() {
                object.remove("checks");
            }
        }),
    ];
    for (field, written, edit) in cases {
        let mut value: serde_json::Value = serde_json::from_slice(&golden()).expect("JSON");
        edit(&mut value);
        let text = serde_json::to_string_pretty(&value).expect("JSON").replace("\"1e30\"", "1e30");
        let Err(problem @ Problem::Invalid { .. }) = parse(text.as_bytes()) else {
            panic!("{field}: not refused as invalid")
        };
        let message = LoadError { path: "r.json".into(), problem }.to_string();
        let key = field.rsplit('.').next().unwrap_or(field).split('[').next().unwrap_or(field);
        // The line of the value written, or for a missing field the end of its object.
        let line = match written {
            "" => text.lines().count(),
            _ => {
                text.lines()
                    .position(|line| line.contains(&format!("\"{key}\": {written}")))
                    .unwrap_or_else(|| panic!("{field}: {written} not in the file"))
                    + 1
            }
        };
        let expected = format!("r.json:{line}:");
        assert!(message.starts_with(&expected) && message.contains(&format!("field `{field}`")), "{field}: {message}");
    }
}

/// Whether `bytes` are refused because `field` holds a value no run can
/// produce, with a message that names it.
fn refused_naming(bytes: &[u8], field: &str) -> Result<(), String> {
    match parse(bytes) {
        Ok(_) => Err("parsed".into()),
        Err(problem) => {
            let named = matches!(&problem, Problem::Impossible { field: named, .. } if named == field);
            let message = LoadError { path: "r.json".into(), problem }.to_string();
            if named && message.contains(&format!("`{field}`")) {
                Ok(())
            } else {
                Err(message)
            }
        }
    }
}

/// Counts larger than what they count from, shares over 100 %: refused,
/// naming the field. (Each was accepted; `games_with_violations = 7` of 6
/// games passed `max_oracle_violations = 10`.)
#[test]
fn a_sim_report_with_impossible_counts_is_refused_naming_the_field() {
    type Edit = fn(&mut serde_json::Value);
    let cases: Vec<(&str, Edit)> = vec![
        ("games_with_violations", |v| v["games_with_violations"] = 7.into()),
        ("games_failed", |v| v["games_failed"] = 7.into()),
        ("nondeterministic_games", |v| v["nondeterministic_games"] = 7.into()),
        ("agreement.agreeing", |v| v["agreement"]["agreeing"] = 7.into()),
        ("mate_searches.gave_up", |v| v["mate_searches"]["gave_up"] = 1.into()),
        ("outcomes.draw", |v| v["outcomes"]["draw"] = 7.into()),
        ("outcomes.white + outcomes.black + outcomes.draw", |v| v["outcomes"]["white"] = 5.into()),
        ("results.device.5.1", |v| v["results"]["device"]["5.1"] = 7.into()),
        ("results.ideal.still-playing", |v| v["results"]["ideal"]["still-playing"] = 7.into()),
        ("articles.6.10", |v| v["articles"]["6.10"] = 7.into()),
        ("expected_classes[0].games", |v| v["expected_classes"][0]["games"] = 7.into()),
        ("expected_classes[0].max_percent", |v| v["expected_classes"][0]["max_percent"] = 101.into()),
        ("expected_classes[0].min_percent", |v| v["expected_classes"][0]["min_percent"] = 101.into()),
        ("games.end", |v| v["games"]["start"] = 7.into()),
        ("games.end", |v| v["games"]["total"] = 5.into()),
        ("failures[2].game", |v| v["failures"][2]["game"] = 6.into()),
        ("failures[2].game", |v| v["failures"][2]["game"] = 1.into()),
        ("failures", |v| v["failures_kept_max"] = 5.into()),
        // A shard past the sweep's count, or shard 0 (they count from 1).
        ("shard.index", |v| v["shard"] = serde_json::json!({"index": 3, "count": 2})),
        ("shard.index", |v| v["shard"] = serde_json::json!({"index": 0, "count": 2})),
        ("oracle_coverage.calls_checked", |v| v["oracle_coverage"]["calls_checked"] = 374.into()),
        ("oracle_coverage.games", |v| v["oracle_coverage"]["games"] = 7.into()),
        ("oracle_coverage.games_checked", |v| v["oracle_coverage"]["games_checked"] = 7.into()),
        // Counts of u64::MAX games each, whose sum does not fit in 64 bits.
        ("results.device", |v| {
            let max = serde_json::Value::from(u64::MAX);
            for key in [&["games", "end"][..], &["games", "total"], &["games", "played"], &["agreement", "games"]] {
                v[key[0]][key[1]] = max.clone();
            }
            v["results"]["device"]["5.1"] = max.clone();
        }),
    ];
    for (field, edit) in cases {
        refused_naming(&edited(edit), field).unwrap_or_else(|message| panic!("{field}: {message}"));
    }
    // Counts that are possible one by one but do not add up.
    for (needle, edit) in [
        ("results.device counts 5 games, 6 played", (|v| v["results"]["device"]["5.1"] = 1.into()) as Edit),
        // Games that are not the shard's slice of the sweep, or not all of it.
        ("games 0..6, but shard 1/2 of games.total (6) plays games 0..3", |v| {
            v["shard"] = serde_json::json!({"index": 1, "count": 2});
        }),
        ("games 0..6, but an unsharded run of games.total (12) plays games 0..12", |v| {
            v["games"]["total"] = 12.into();
        }),
        ("5 failing games listed, 6 failed", |v| {
            if let Some(failures) = v["failures"].as_array_mut() {
                failures.pop();
            }
        }),
    ] {
        match parse(&edited(edit)) {
            Err(Problem::Inconsistent(detail)) => assert!(detail.contains(needle), "{detail}"),
            other => panic!("{needle}: {other:?}"),
        }
    }
}

/// Numbers outside what a clock or a count can be: refused, naming the
/// field (a negative count was refused without saying which).
#[test]
fn a_sim_report_with_unphysical_numbers_is_refused_naming_the_field() {
    type Edit = fn(&mut serde_json::Value);
    let cases: Vec<(&str, Edit)> = vec![
        ("drift_ppb.max", |v| v["drift_ppb"]["max"] = 1_000_000_000_001i64.into()),
        ("drift_ppb.min", |v| v["drift_ppb"]["min"] = (-1_000_000_000_001i64).into()),
        ("drift_ppb.min", |v| v["drift_ppb"]["min"] = 2_000_001.into()),
        ("games_failed", |v| v["games_failed"] = (-1).into()),
        ("defects.bounces", |v| v["defects"]["bounces"] = (-3).into()),
        ("drift_envelope.buckets[0].samples", |v| v["drift_envelope"]["buckets"][0]["samples"] = (-1).into()),
        ("drift_envelope.buckets[0].offset_min_us", |v| {
            v["drift_envelope"]["buckets"][0]["offset_min_us"] = 9_905.into();
        }),
        ("drift_envelope.buckets[0].error_min_us.black", |v| {
            v["drift_envelope"]["buckets"][0]["error_min_us"]["black"] = 1.into();
        }),
        ("drift_envelope.buckets[0].index", |v| v["drift_envelope"]["buckets"][0]["index"] = 64.into()),
    ];
    for (field, edit) in cases {
        refused_naming(&edited(edit), field).unwrap_or_else(|message| panic!("{field}: {message}"));
    }
    // What may be negative loads: a slow time base, the envelope's errors.
    let slow = edited(|v| {
        v["drift_ppb"]["min"] = (-1_000_000_000_000i64).into();
        v["drift_envelope"]["buckets"][0]["offset_min_us"] = (-5).into();
    });
    parse(&slow).expect("a slow drift loads");
}

/// A check that says one thing next to the numbers it summarises saying
/// another: refused. (`games_with_violations = 3` next to a passed `no
/// oracle violations` check got through.)
#[test]
fn a_sim_report_whose_checks_contradict_its_numbers_is_refused() {
    type Edit = fn(&mut serde_json::Value);
    let cases: Vec<(&str, Edit)> = vec![
        ("check `no oracle violations` passed, but the report's numbers fail it", |v| {
            v["games_with_violations"] = 3.into();
        }),
        ("check `games in class `6.3`` failed, but the report's numbers pass it", |v| {
            v["expected_classes"][0]["games"] = 1.into();
        }),
        ("check `device and ideal clock agree on the result` failed", |v| v["agreement"]["agreeing"] = 6.into()),
        ("check `largest device-ideal time error` failed", |v| v["max_time_error_us"] = 5_000.into()),
        ("check `all games of the run played` failed", |v| v["checks"][4]["passed"] = false.into()),
        ("check `no oracle violations` failed, but the report's numbers pass it", |v| {
            v["checks"][0]["passed"] = false.into();
        }),
        ("check `all good` is not one a run makes", |v| {
            if let Some(checks) = v["checks"].as_array_mut() {
                checks.push(serde_json::json!({"name": "all good", "passed": false, "measured": "", "expected": ""}));
            }
        }),
        ("check `games in class `5.1`` is not one a run makes, or not in its place", |v| {
            v["checks"][1]["name"] = "games in class `5.1`".into();
        }),
        ("no check `no oracle violations`", |v| {
            if let Some(checks) = v["checks"].as_array_mut() {
                checks.remove(0);
            }
        }),
        ("check `no oracle violations` is there twice", |v| {
            if let Some(checks) = v["checks"].as_array_mut() {
                let first = checks[0].clone();
                checks.push(first);
            }
        }),
        ("no check `every game plays the same twice`", |v| v["options"]["check_determinism"] = true.into()),
        ("check `every game plays the same twice`, yet no --check-determinism", |v| {
            if let Some(checks) = v["checks"].as_array_mut() {
                let name = bench_sim::run::DETERMINISM_CHECK;
                checks.push(serde_json::json!({"name": name, "passed": true, "measured": "", "expected": "0"}));
            }
        }),
        ("1 nondeterministic games without --check-determinism", |v| v["nondeterministic_games"] = 1.into()),
        ("check `device and ideal clock agree on the result` expects `>= all`, not `>= N %`", |v| {
            v["checks"][2]["expected"] = ">= all".into();
        }),
        // Each game with a violation, and (all must agree) each game whose
        // result differs from the ideal clock's, failed.
        ("games_failed is 2, yet 3 games had an oracle violation", |v| {
            (v["games_with_violations"], v["checks"][0]["passed"]) = (3.into(), false.into());
            (v["games_failed"], v["agreement"]["agreeing"]) = (2.into(), 6.into());
            v["checks"][2]["passed"] = true.into();
            if let Some(failures) = v["failures"].as_array_mut() {
                failures.truncate(2);
            }
        }),
        ("games_failed is 1, yet 2 games had a result unlike the ideal clock's", |v| {
            v["games_failed"] = 1.into();
            if let Some(failures) = v["failures"].as_array_mut() {
                failures.truncate(1);
            }
        }),
    ];
    for (needle, edit) in cases {
        match parse(&edited(edit)) {
            Err(Problem::Inconsistent(detail)) => assert!(detail.contains(needle), "{needle}: {detail}"),
            other => panic!("{needle}: {other:?}"),
        }
    }
}

// ---- hardware-in-the-loop reports ----

use crate::hil::tests::{sample_report, with_mismatches};

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

/// [`sample_report`] with its accounting drift at `ppm` (± 0.1), and the
/// drift check and verdict that follow.
fn drift_ppm(ppm: f64) -> HilReport {
    edit(|report| {
        let drift = &mut report.drift;
        (drift.ppm, drift.ci_low_ppm, drift.ci_high_ppm) = (Some(ppm), Some(ppm - 0.1), Some(ppm + 0.1));
        drift.within_tolerance = ppm - 0.1 <= drift.tolerance_ppm && ppm + 0.1 >= -drift.tolerance_ppm;
        let within = drift.within_tolerance;
        for check in report.checks.iter_mut().filter(|check| check.name == hil::DRIFT_CHECK) {
            check.passed = within;
        }
        report.verdict = if within { "pass" } else { "fail" }.into();
    })
}

/// [`sample_report`] with no game compared with the clock model: a
/// report of games that did not play to their end.
fn uncompared() -> HilReport {
    edit(|report| {
        for game in &mut report.games_detail {
            (game.model, game.firmware, game.result_agrees) = (None, None, false);
            (game.complete, game.passed, game.error) = (false, false, Some("the firmware went silent".into()));
        }
        (report.games.complete, report.games.passed, report.complete) = (0, 0, false);
        for check in report.checks.iter_mut().filter(|check| check.name != hil::DRIFT_CHECK) {
            check.passed = false;
        }
        report.verdict = "fail".into();
    })
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
        hil_case("[rules]\nevery_check_passes = true", with_mismatches(sample_report(), 1), "every_check_passes", Fail),
        hil_case("[rules]\nmax_rule_mismatches = 0", sample_report(), "max_rule_mismatches", Pass),
        hil_case("[rules]\nmax_rule_mismatches = 0", with_mismatches(sample_report(), 1), "max_rule_mismatches", Fail),
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
        hil_case("[rules]\nmax_rule_mismatches = 0", uncompared(), "max_rule_mismatches", Skip),
        hil_case("[rules]\nmax_latency_p99_us = 5000", p99(5_000), "max_latency_p99_us", Pass),
        hil_case("[rules]\nmax_latency_p99_us = 5000", p99(5_001), "max_latency_p99_us", Fail),
        hil_case(
            "[rules]\nmax_latency_p99_us = 5000",
            edit(|report| {
                report.latency = None;
                report.latency_histogram = hil::latency_bins(&[]);
                for game in &mut report.games_detail {
                    (game.presses_registered, game.latency) = (0, None);
                }
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
                (drift.ci_low_ppm, drift.ci_high_ppm, drift.within_tolerance) = (None, None, false);
                for check in report.checks.iter_mut().filter(|check| check.name == hil::DRIFT_CHECK) {
                    check.passed = false;
                }
                report.verdict = "fail".into();
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
                    if let Some(firmware) = game.firmware.as_mut() {
                        firmware.result = "1-0 (6.9)".into();
                    }
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
        let rules = rules_from(case.rules).unwrap_or_else(|error| panic!("{}: {error}", case.rules));
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
        (
            "games",
            bytes(&edit(|report| report.games.played = 3)),
            |p| matches!(p, Problem::Impossible { field, .. } if field == "games.played"),
        ),
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
            |p| matches!(p, Problem::Impossible { field, .. } if field == "latency.p50_us"),
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

/// A HIL report's counts: none larger than what it counts from, each total
/// the sum of its games'.
#[test]
fn a_hil_report_with_impossible_counts_is_refused_naming_the_field() {
    let bytes = |report: &HilReport| serde_json::to_vec(report).expect("serializes");
    type Edit = fn(&mut HilReport);
    let cases: Vec<(&str, Edit)> = vec![
        ("games.complete", |report| report.games.complete = 3),
        ("games.passed", |report| {
            report.games.complete = 1;
            report.games_detail[0].complete = false;
        }),
        ("drift.used", |report| report.drift.used = 121),
        // A game of no run, a game twice, a board's games beyond those played.
        ("games_detail[1].game", |report| report.games_detail[1].game = 2),
        ("games_detail[1].game", |report| report.games_detail[1].game = 0),
        ("boards[0].games", |report| report.boards[0].games = vec![0, 1, 2]),
        ("boards[0].games", |report| report.boards[0].games = vec![0, 1, 1]),
        ("games_detail[1].mismatches", |report| {
            let listed = with_mismatches(sample_report(), 1).games_detail[1].mismatches.clone();
            report.games_detail[1].mismatches = listed;
        }),
        ("games_detail[0].first_of_each", |report| {
            let first = with_mismatches(sample_report(), 1).games_detail[1].first_of_each.clone();
            report.games_detail[0].first_of_each = first;
        }),
        ("mismatches.by_quantity", |report| {
            for (game, count) in report.games_detail.iter_mut().zip([u64::MAX, 1]) {
                game.mismatches_total = count;
                game.mismatches_by_quantity = BTreeMap::from([("press.result".to_string(), count)]);
            }
        }),
    ];
    for (field, edit) in cases {
        let mut report = sample_report();
        edit(&mut report);
        refused_naming(&bytes(&report), field).unwrap_or_else(|message| panic!("{field}: {message}"));
    }
    let mut farm = crate::hil::tests::farm_report();
    if let Some(oscillator) = farm.boards[0].oscillator.as_mut() {
        oscillator.used = oscillator.samples + 1;
    }
    refused_naming(&bytes(&farm), "boards[0].oscillator.used").unwrap_or_else(|message| panic!("{message}"));
    let mut farm = crate::hil::tests::farm_report();
    farm.boards[1].games = vec![0];
    refused_naming(&bytes(&farm), "boards[1].games").unwrap_or_else(|message| panic!("game on two boards: {message}"));
    for (needle, edit) in [
        (
            "games_detail[0].mismatches_total is 0, its mismatches_by_quantity add up to 2",
            (|report| {
                report.games_detail[0].mismatches_by_quantity = BTreeMap::from([("flag".to_string(), 2)]);
            }) as Edit,
        ),
        ("by quantity", |report| {
            *report = with_mismatches(sample_report(), 2);
            report.mismatches.by_quantity = BTreeMap::from([("flag".to_string(), 2)]);
        }),
        ("mismatches.largest_difference_us", |report| {
            report.games_detail[1].largest_difference_us.insert("press.remaining_us".to_string(), 1_000_000);
        }),
        ("games_detail has games no board in boards lists (1)", |report| report.boards[0].games = vec![0]),
        ("records: 359 read", |report| report.records.total = 359),
        ("records: 360 read and 1 lost", |report| report.records.lost = 1),
        ("games_detail[0]: 41 presses registered, 40 latencies", |report| {
            report.games_detail[0].presses_registered = 41;
        }),
        ("latency.count is 80, the games registered 81", |report| {
            report.games_detail[0].presses_registered = 41;
            if let Some(latency) = report.games_detail[0].latency.as_mut() {
                latency.count = 41;
            }
        }),
    ] {
        let mut report = sample_report();
        edit(&mut report);
        match parse(&bytes(&report)) {
            Err(Problem::Inconsistent(detail)) => assert!(detail.contains(needle), "{needle}: {detail}"),
            other => panic!("{needle}: {other:?}"),
        }
    }
}

/// Numbers no board produces: refused, naming the field. (`drift.ppm =
/// 1e308` made `max_abs_drift_ppm` skip, and the gate passed.)
#[test]
fn a_hil_report_with_unphysical_numbers_is_refused_naming_the_field() {
    let bytes = |report: &HilReport| serde_json::to_vec(report).expect("serializes");
    let rules = rules_from("[rules]\nmax_abs_drift_ppm = 20").expect("rules");
    refused_naming(&bytes(&drift_ppm(1e308)), "drift.ppm").unwrap_or_else(|message| panic!("{message}"));
    refused_naming(&bytes(&drift_ppm(-1.000_001e9)), "drift.ppm").unwrap_or_else(|message| panic!("{message}"));
    // A board whose clock counts nanoseconds as µs is a board bench can
    // measure: its report loads, and the rule fails it.
    let verdicts = evaluate(&hil_report(&drift_ppm(999e6)), &rules, None).expect("evaluates");
    assert!(!passed(&verdicts), "{verdicts:?}");
    type Edit = fn(&mut HilReport);
    let cases: Vec<(&str, Edit)> = vec![
        ("drift.ci_half_ppm", |report| report.drift.ci_half_ppm = Some(-0.1)),
        ("drift.tolerance_ppm", |report| report.drift.tolerance_ppm = -5.0),
        ("drift.confidence", |report| report.drift.confidence = Some(1.5)),
        ("drift.confidence", |report| report.drift.confidence = Some(0.0)),
        ("drift.ppm", |report| report.drift.ci_high_ppm = Some(-0.55)),
        ("drift.residual_sd_us", |report| report.drift.residual_sd_us = Some(-2.5)),
        ("drift.span_s", |report| report.drift.span_s = Some(-1.0)),
        ("boards[0].accounting_drift_ppm", |report| report.boards[0].accounting_drift_ppm = Some(2e9)),
        ("games_detail[1].latency.p90_us", |report| {
            if let Some(latency) = report.games_detail[1].latency.as_mut() {
                latency.p90_us = 3_001;
            }
        }),
    ];
    for (field, edit) in cases {
        let mut report = sample_report();
        edit(&mut report);
        refused_naming(&bytes(&report), field).unwrap_or_else(|message| panic!("{field}: {message}"));
    }
    let farm_cases: Vec<(&str, Edit)> = vec![
        ("boards[0].oscillator.ppm", |report| {
            if let Some(oscillator) = report.boards[0].oscillator.as_mut() {
                (oscillator.ppm, oscillator.ci_low_ppm, oscillator.ci_high_ppm) = (Some(1e300), None, None);
            }
        }),
        ("boards[1].oscillator.round_trip.p50_us", |report| {
            if let Some(trip) =
                report.boards[1].oscillator.as_mut().and_then(|oscillator| oscillator.round_trip.as_mut())
            {
                trip.p50_us = 9_500;
            }
        }),
        ("boards[0].oscillator.round_trip_margin_us", |report| {
            if let Some(oscillator) = report.boards[0].oscillator.as_mut() {
                oscillator.round_trip_margin_us = Some(-100.0);
            }
        }),
        ("board_latency.bracket.p99_us", |report| {
            if let Some(board) = report.board_latency.as_mut() {
                board.bracket.p99_us = 501;
            }
        }),
    ];
    for (field, edit) in farm_cases {
        let mut report = crate::hil::tests::farm_report();
        edit(&mut report);
        refused_naming(&bytes(&report), field).unwrap_or_else(|message| panic!("{field}: {message}"));
    }
    // Negative latencies cannot be read into a count of µs; the message
    // says which field they are in.
    let value = |edit: fn(&mut serde_json::Value)| {
        let mut value = serde_json::to_value(sample_report()).expect("serializes");
        edit(&mut value);
        serde_json::to_vec(&value).expect("bytes")
    };
    for (field, edit) in [
        ("latency.p99_us", (|v| v["latency"]["p99_us"] = (-5).into()) as fn(&mut serde_json::Value)),
        ("games_detail[0].latency.min_us", |v| v["games_detail"][0]["latency"]["min_us"] = (-1).into()),
        ("latency_histogram[3].presses", |v| v["latency_histogram"][3]["presses"] = (-1).into()),
    ] {
        refused_naming(&value(edit), field).unwrap_or_else(|message| panic!("{field}: {message}"));
    }
}

/// A HIL report's checks and each game's verdicts against the numbers
/// they summarise.
#[test]
fn a_hil_report_whose_checks_contradict_its_numbers_is_refused() {
    let bytes = |report: &HilReport| serde_json::to_vec(report).expect("serializes");
    type Edit = fn(&mut HilReport);
    let cases: Vec<(&str, Edit)> = vec![
        ("check `the firmware matches the clock model` passed, but the report's numbers fail it", |report| {
            *report = with_mismatches(sample_report(), 3);
            report.checks[1].passed = true;
            report.verdict = "pass".into();
        }),
        ("check `every game played to its end` failed, but the report's numbers pass it", |report| {
            report.checks[0].passed = false;
            report.verdict = "fail".into();
        }),
        ("check `accounting drift within tolerance` passed, but the report's numbers fail it", |report| {
            report.drift.within_tolerance = false;
        }),
        ("drift.within_tolerance is true, but the interval 19.9 to 20.1 ppm misses ±5 ppm", |report| {
            let drift = &mut report.drift;
            (drift.ppm, drift.ci_low_ppm, drift.ci_high_ppm) = (Some(20.0), Some(19.9), Some(20.1));
        }),
        ("drift.within_tolerance is false, but the interval -0.6 to -0.4 ppm reaches ±5 ppm", |report| {
            report.drift.within_tolerance = false;
            report.checks[2].passed = false;
            report.verdict = "fail".into();
        }),
        ("drift within tolerance, yet not measured", |report| {
            let drift = &mut report.drift;
            (drift.measured, drift.ppm, drift.ci_low_ppm, drift.ci_high_ppm) = (false, None, None, None);
        }),
        ("check `latency within 5 ms` is not one a HIL run makes", |report| {
            let mut extra = report.checks[0].clone();
            extra.name = "latency within 5 ms".into();
            report.checks.push(extra);
        }),
        ("check `every game played to its end` is there twice", |report| {
            let first = report.checks[0].clone();
            report.checks.push(first);
        }),
        ("no check `accounting drift within tolerance`", |report| {
            report.checks.pop();
        }),
        ("an observed firmware's report with a check `accounting drift within tolerance`", |report| {
            report.observed = Some(observed_info());
            report.latency = None;
        }),
        ("an observed firmware's report with a press latency", |report| {
            report.observed = Some(observed_info());
            report.checks.pop();
        }),
        ("games_detail[1]: passed, yet incomplete or with mismatches", |report| {
            *report = with_mismatches(sample_report(), 3);
            report.games_detail[1].passed = true;
            report.games.passed = 2;
        }),
        ("games_detail[0]: complete is not: played to its end", |report| {
            report.games_detail[0].error = Some("QEMU exited".into());
        }),
        ("games_detail[0]: complete is not: played to its end", |report| {
            (report.games_detail[0].records_lost, report.records.lost) = (2, 2);
        }),
        ("games_detail[1]: result_agrees is not whether", |report| {
            if let Some(firmware) = report.games_detail[1].firmware.as_mut() {
                firmware.result = "1-0 (6.9)".into();
            }
        }),
        ("games_detail[0]: a model side without a firmware side", |report| report.games_detail[0].firmware = None),
        ("games_detail[0]: compared, yet a comparison_error", |report| {
            report.games_detail[0].comparison_error = Some("no Hello record".into());
        }),
    ];
    for (needle, edit) in cases {
        let mut report = sample_report();
        edit(&mut report);
        match parse(&bytes(&report)) {
            Err(Problem::Inconsistent(detail)) => assert!(detail.contains(needle), "{needle}: {detail}"),
            other => panic!("{needle}: {other:?}"),
        }
    }
}

fn observed_info() -> crate::hil::ObservedInfo {
    crate::hil::ObservedInfo { map: "firmware/observed.toml".into(), poll_interval_us: 10_000, tolerance_us: 11_000 }
}

/// A report of `bench hil --observe`: no drift check and no press latency
/// (the firmware sends no TimeBase and stamps nothing), and it loads; the
/// latency rule is skipped saying why.
#[test]
fn an_observed_firmware_s_report_has_no_drift_check_and_no_latency() {
    let mut report = sample_report();
    report.observed = Some(observed_info());
    report.checks.retain(|check| check.name != "accounting drift within tolerance");
    report.latency = None;
    report.latency_histogram = Vec::new();
    for game in &mut report.games_detail {
        game.latency = None;
    }
    let bytes = serde_json::to_vec(&report).expect("serializes");
    let loaded = parse(&bytes).unwrap_or_else(|problem| panic!("{problem:?}"));
    let text = format!("{loaded:?}");
    assert!(text.contains("observed"), "{text}");
}

/// `bench hil`'s own gate, on a report folder as it writes it.
#[test]
fn apply_defaults_reads_the_written_report_back() {
    let dir = crate::testing::TempDir::new("gate-apply-defaults");
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

mod properties {
    //! The gate is monotone: a report worse in every number never passes a
    //! rule the better one failed, and a report compared with itself never
    //! regresses.

    use proptest::prelude::*;

    use super::*;

    /// A measured value of `metric`'s kind, or nothing to measure.
    fn value(metric: Metric) -> impl Strategy<Value = Value> {
        let number = 0..2_000u64;
        let measured = match metric {
            Metric::OracleViolations | Metric::FailedGames | Metric::RuleMismatches | Metric::UndecidedMateSearches => {
                number.prop_map(Value::Count).boxed()
            }
            Metric::TimeError | Metric::LatencyP99 => number.prop_map(Value::Micros).boxed(),
            Metric::Drift => number.prop_map(|ppm| Value::Ppb(ppm * 37)).boxed(),
            // Game counts of every size: exactness must not depend on them.
            Metric::Agreement => prop_oneof![1..500u64, 1..=u64::MAX]
                .prop_flat_map(|whole| (0..=whole, Just(whole)))
                .prop_map(|(part, whole)| Value::Ratio { part, whole })
                .boxed(),
        };
        prop_oneof![9 => measured, 1 => Just(Value::NoData("none".into()))]
    }

    const METRICS: [Metric; 8] = [
        Metric::OracleViolations,
        Metric::FailedGames,
        Metric::TimeError,
        Metric::Drift,
        Metric::Agreement,
        Metric::RuleMismatches,
        Metric::LatencyP99,
        Metric::UndecidedMateSearches,
    ];

    fn measurements() -> impl Strategy<Value = Measurements> {
        (METRICS.map(value), prop::collection::vec(any::<bool>(), 0..6)).prop_map(|(values, passed)| {
            let mut report = hil();
            report.metrics = METRICS.into_iter().zip(values).collect();
            report.checks =
                passed.iter().enumerate().map(|(index, passed)| check(&format!("check {index}"), *passed)).collect();
            report
        })
    }

    /// `report` made worse: every number grown (agreement shrunk) by up to
    /// `by`, and some passing checks failing.
    fn worse(report: &Measurements, by: u64, fail: &[bool]) -> Measurements {
        let mut worse = report.clone();
        for value in worse.metrics.values_mut() {
            *value = match value.clone() {
                Value::Count(number) => Value::Count(number + by),
                Value::Micros(number) => Value::Micros(number + by),
                Value::Ppb(number) => Value::Ppb(number + by * 37),
                Value::Ratio { part, whole } => Value::Ratio { part: part.saturating_sub(by), whole },
                Value::NoData(why) => Value::NoData(why),
            };
        }
        for (check, fail) in worse.checks.iter_mut().zip(fail) {
            check.passed &= !fail;
        }
        worse
    }

    fn rules() -> impl Strategy<Value = Rules> {
        let limit = || prop::option::of(0..2_000u64);
        let ppm = || prop::option::of((0..80_000u64).prop_map(Ppm));
        let percent = || prop::option::of((0..=1_000_000u64).prop_map(Percent));
        let thresholds =
            (prop::option::of(Just(true)), limit(), limit(), limit(), ppm(), percent(), limit(), limit(), limit())
                .prop_map(|(checks, oracle, failed, time, drift, agreement, mismatches, latency, undecided)| {
                    Thresholds {
                        every_check_passes: checks,
                        max_oracle_violations: oracle,
                        max_failed_games: failed,
                        max_time_error_us: time,
                        max_abs_drift_ppm: drift,
                        min_agreement_percent: agreement,
                        max_rule_mismatches: mismatches,
                        max_latency_p99_us: latency,
                        max_undecided_mate_searches: undecided,
                        required_coverage: None,
                    }
                });
        let tolerances = (limit(), limit(), percent(), limit(), ppm(), limit(), limit()).prop_map(
            |(checks, failed, agreement, time, drift, mismatches, latency)| Tolerances {
                max_new_failing_checks: checks,
                max_failed_games_growth: failed,
                max_agreement_drop_percent: agreement,
                max_time_error_growth_us: time,
                max_drift_growth_ppm: drift,
                max_rule_mismatches_growth: mismatches,
                max_latency_p99_growth_us: latency,
            },
        );
        (thresholds, tolerances).prop_map(|(rules, baseline)| Rules { rules, baseline: Some(baseline) })
    }

    fn failed_rules(verdicts: &[Verdict]) -> Vec<String> {
        verdicts
            .iter()
            .filter(|verdict| verdict.status == Status::Fail)
            .map(|verdict| format!("{}.{}", verdict.table, verdict.rule))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn a_worse_report_fails_every_rule_the_better_one_failed(
            report in measurements(),
            baseline in measurements(),
            rules in rules(),
            by in 0..300u64,
            fail in prop::collection::vec(any::<bool>(), 6),
        ) {
            let worse = worse(&report, by, &fail);
            let better = failed_rules(&evaluate(&report, &rules, Some(&baseline)).map_err(TestCaseError::fail)?);
            let worse_failed = failed_rules(&evaluate(&worse, &rules, Some(&baseline)).map_err(TestCaseError::fail)?);
            for rule in &better {
                prop_assert!(worse_failed.contains(rule), "{rule} failed the better report, not the worse one");
            }
        }

        #[test]
        fn a_report_against_itself_does_not_regress(report in measurements(), rules in rules()) {
            let verdicts = evaluate(&report, &rules, Some(&report)).map_err(TestCaseError::fail)?;
            for verdict in verdicts.iter().filter(|verdict| verdict.table == "baseline") {
                prop_assert!(verdict.status != Status::Fail, "{}: {} (allowed {})", verdict.rule, verdict.measured, verdict.allowed);
            }
        }
    }
}

#[test]
fn required_coverage_fails_a_run_that_never_went_through_a_listed_rule() {
    let rules = rules_from("[rules]\nrequired_coverage = [\"press\", \"increment\"]\n").unwrap();
    let verdicts = evaluate(&sim(), &rules, None).unwrap();
    let verdict = verdicts.iter().find(|verdict| verdict.rule == "required_coverage").unwrap();
    assert_eq!(verdict.status, Status::Fail);
    assert_eq!(verdict.measured, "never exercised: increment");

    let mut covered = sim();
    covered.coverage.as_mut().unwrap().insert("increment".into(), 1);
    let verdicts = evaluate(&covered, &rules, None).unwrap();
    assert!(verdicts.iter().all(|verdict| verdict.status == Status::Pass));

    // A report written before coverage was counted cannot show it.
    let mut old = covered;
    old.coverage = None;
    let verdicts = evaluate(&old, &rules, None).unwrap();
    assert_eq!(verdicts.iter().find(|verdict| verdict.rule == "required_coverage").unwrap().status, Status::Fail);
}

#[test]
fn required_coverage_names_only_rules_of_the_model_and_an_empty_list_checks_nothing() {
    let error = rules_from("[rules]\nrequired_coverage = [\"teleport\"]\n").unwrap_err();
    assert!(error.contains("unknown rule `teleport`") && error.contains("flag.final"), "{error}");
    let error = rules_from("[rules]\nrequired_coverage = []\n").unwrap_err();
    assert!(error.contains("no rule of the file can fail"), "{error}");
}
