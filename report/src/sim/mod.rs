//! The report of a `bench sim` run, written into one folder per run (under
//! `reports/`; the files and their schema are documented for users in
//! `reports/README.md`).
//!
//! ```text
//!   Summary + checks ──▶ report::build ──▶ Report ─┬─▶ drift.svg, drift.png   (drift_plot)
//!                                                  ├─▶ junit.xml              (junit)
//!                                                  ├─▶ summary.md             (summary)
//!                                                  ├─▶ index.html             (html)
//!                                                  └─▶ report.json, last      (report)
//!   RunFacts ───────────────────────────────────────▶ run.json                (report::RunInfo)
//! ```
//!
//! **Reproducible:** `report.json`, `summary.md` and the plots are a pure
//! function of the run's inputs: byte-identical for the same scenario, seed,
//! games and command line, whatever the thread count, host or date. What
//! varies between runs goes to `run.json` only.

pub mod drift_plot;
pub mod html;
pub mod junit;
pub mod merge;
pub mod report;
pub mod summary;

use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::atomic;
use crate::files::{self, RUN_JSON};
use crate::format::json::to_bytes;

/// Everything a simulation report is made of. Only facts that are a
/// function of the run's inputs: see [`RunFacts`] for the rest.
pub struct SimReportInput<'a> {
    pub scenario: &'a bench_sim::scenario::Scenario,
    /// The scenario file as given on the command line.
    pub scenario_file: &'a Path,
    /// Hex SHA-256 of the scenario file's bytes ([`crate::sha256_hex`]).
    pub scenario_sha256: String,
    pub seed: u64,
    /// The games this run played (a shard's slice of the scenario's games).
    pub games: Range<u64>,
    /// The games of the whole sweep (`--games`, or the scenario's).
    pub games_total: u64,
    /// `--shard I/N`, 1-based.
    pub shard: Option<(u64, u64)>,
    pub swarm: bool,
    /// The other options that change results.
    pub options: report::Options,
    pub summary: &'a bench_sim::run::Summary,
    pub checks: &'a [bench_sim::run::Check],
    /// The command that reproduces the report: every option that changes
    /// results, none that does not (`--jobs`, `--out`), since it is part of
    /// `report.json` (`command`) and shown in `summary.md` and `index.html`.
    pub command_line: String,
    /// The one command that replays game G with a trace.
    pub replay_command: &'a dyn Fn(u64) -> String,
    /// The replay files of the failing games the report lists.
    pub replays: &'a [crate::replays::ReplayText],
    /// False when the run was interrupted: the report is marked incomplete
    /// and fails.
    pub complete: bool,
    /// Why an incomplete report is incomplete, in its completeness check
    /// (`None`: the run was interrupted).
    pub incomplete_because: Option<String>,
}

/// A simulation report's folder before it is written: what each of its
/// files is rendered from ([`crate::files::FILES`]).
pub struct Folder {
    /// The report, without its `files` (each view is a function of the
    /// rest alone; `report.json` adds their hashes).
    pub report: report::Report,
    /// The run's command as typed, for `summary.md`.
    pub command_line: String,
}

/// Writes the report of a simulation run into `dir` (created if missing):
/// the listed failures' replay files, `drift.svg`, `drift.png`,
/// `junit.xml`, `summary.md`, `index.html`, then `report.json`. Returns the paths written, `report.json` last.
pub fn write_sim_report(dir: &Path, input: &SimReportInput) -> anyhow::Result<Vec<PathBuf>> {
    let folder = Folder { report: report::build(input), command_line: input.command_line.clone() };
    crate::replays::write(dir, input.replays)?;
    Ok(files::write_folder(dir, &folder)?.paths())
}

/// The facts of one run that are not a function of its inputs.
/// Everything that varies between runs (wall time, host, date) goes to
/// `run.json`, never `report.json`.
pub struct RunFacts {
    pub wall_ms: u64,
    pub jobs: usize,
    pub host: String,
    pub started_unix_s: u64,
    pub bench_version: String,
    pub git_commit: Option<String>,
}

/// Writes `run.json` into `dir` (created if missing), atomically.
pub fn write_run_facts(dir: &Path, facts: &RunFacts) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating the report folder {}", dir.display()))?;
    let info = report::RunInfo {
        schema: report::RUN_SCHEMA.into(),
        bench_version: facts.bench_version.clone(),
        git_commit: facts.git_commit.clone(),
        host: facts.host.clone(),
        jobs: facts.jobs as u64,
        started_unix_s: facts.started_unix_s,
        wall_ms: facts.wall_ms,
    };
    atomic::write_bytes(dir, RUN_JSON, &to_bytes(&info)?)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use bench_sim::defects::DefectSet;
    use bench_sim::run::{self, Check, RunOptions, Summary};
    use bench_sim::scenario::Scenario;

    use super::*;
    use crate::files::{DRIFT_PNG, DRIFT_SVG, INDEX_HTML, JUNIT_XML, REPORT_JSON, SUMMARY_MD};
    use crate::gate;
    use crate::sha256_hex;
    use crate::testing::TempDir;

    /// A short, drifting, fast game: a few games run in well under a second.
    /// The time-error bound is far below what 2000 ppm makes, so games fail.
    const DRIFTING: &str = r#"
description = "Report test: a clock 2000 ppm fast, 1 min + 1 s games"
control = "60+1"
games = 6
seed = 7

[players]
think = { distribution = "uniform", min_ms = 500, max_ms = 4000 }

[device]
drift_ppm = 2000
jitter_us = 300
missed_press = "1/40"

[expect]
time_error_max_us = 5000

[[expect.result]]
class = "6.3"
min_percent = 10
"#;

    /// A perfect clock with no expectations: passes.
    const PERFECT: &str = r#"
description = "Report test: a perfect clock"
control = "60+1"
games = 4
seed = 3

[players]
think = { distribution = "uniform", min_ms = 500, max_ms = 4000 }
"#;

    const FILE: &str = "scenarios/report-test.toml";

    struct Run {
        scenario: Scenario,
        summary: Summary,
        checks: Vec<Check>,
        sha256: String,
        /// A stand-in replay file for each failure kept.
        replays: Vec<crate::replays::ReplayText>,
    }

    fn simulate(text: &str, jobs: usize) -> Run {
        let scenario = Scenario::parse(text, Path::new(FILE)).expect("the test scenario parses");
        let options = RunOptions::scenario(&scenario, jobs);
        let summary = run::run(&scenario, &options, &|_| {});
        let checks = run::judge(&scenario, &summary);
        let replays = (summary.failures.iter())
            .map(|failure| crate::replays::ReplayText {
                game: failure.game,
                toml: format!("game = {}\n", failure.game),
            })
            .collect();
        Run { scenario, summary, checks, sha256: sha256_hex(text.as_bytes()), replays }
    }

    fn replay(game: u64) -> String {
        format!("bench sim {FILE} --seed 7 --game {game} --trace")
    }

    fn input<'a>(run: &'a Run, complete: bool) -> SimReportInput<'a> {
        SimReportInput {
            scenario: &run.scenario,
            scenario_file: Path::new(FILE),
            scenario_sha256: run.sha256.clone(),
            seed: run.scenario.seed,
            games: 0..run.scenario.games,
            games_total: run.scenario.games,
            shard: None,
            swarm: false,
            options: report::Options {
                check_determinism: false,
                tick_oracle: true,
                max_moves: None,
                disabled: Vec::new(),
            },
            summary: &run.summary,
            checks: &run.checks,
            command_line: format!("bench sim --scenario {FILE} --seed 7 --games {}", run.scenario.games),
            replay_command: &replay,
            replays: &run.replays,
            complete,
            incomplete_because: None,
        }
    }

    fn files(dir: &Path) -> BTreeSet<String> {
        std::fs::read_dir(dir)
            .expect("list the report folder")
            .map(|entry| entry.expect("an entry").file_name().to_string_lossy().into_owned())
            .collect()
    }

    fn read_json(path: &Path) -> serde_json::Value {
        let text = std::fs::read_to_string(path).expect("read the json");
        serde_json::from_str(&text).expect("valid json")
    }

    #[test]
    fn the_same_inputs_give_byte_identical_files() {
        let run = simulate(DRIFTING, 2);
        let (first, second) = (TempDir::new("identical-1"), TempDir::new("identical-2"));
        let written = write_sim_report(first.path(), &input(&run, true)).expect("first report");
        write_sim_report(second.path(), &input(&run, true)).expect("second report");
        let names: Vec<String> =
            written.iter().map(|path| path.file_name().expect("a file name").to_string_lossy().into_owned()).collect();
        assert_eq!(names, [DRIFT_SVG, DRIFT_PNG, JUNIT_XML, SUMMARY_MD, INDEX_HTML, REPORT_JSON]);
        let mut expected: BTreeSet<String> = names.iter().cloned().collect();
        expected.insert(crate::replays::DIR.to_string());
        assert_eq!(files(first.path()), expected, "no stray files");
        assert_eq!(files(&first.path().join(crate::replays::DIR)).len(), run.summary.failures.len());
        for name in &names {
            let a = std::fs::read(first.path().join(name)).expect("read");
            let b = std::fs::read(second.path().join(name)).expect("read");
            assert!(!a.is_empty(), "{name} is empty");
            assert!(a == b, "{name} differs between two writes of the same run");
        }
    }

    /// `bench sim` passes the command that reproduces the report, which
    /// never holds `--jobs` or `--out` (tests/cli_sim.rs runs both).
    #[test]
    fn report_files_do_not_change_with_the_thread_count() {
        let (one, two) = (simulate(DRIFTING, 1), simulate(DRIFTING, 2));
        let (first, second) = (TempDir::new("jobs-1"), TempDir::new("jobs-2"));
        write_sim_report(first.path(), &input(&one, true)).expect("report");
        write_sim_report(second.path(), &input(&two, true)).expect("report");
        for name in [REPORT_JSON, JUNIT_XML, INDEX_HTML, SUMMARY_MD] {
            let a = std::fs::read(first.path().join(name)).expect("read");
            let b = std::fs::read(second.path().join(name)).expect("read");
            assert!(a == b, "{name} differs");
        }
    }

    #[test]
    fn a_failing_run_says_fail_and_how_to_replay_each_failure() {
        let run = simulate(DRIFTING, 2);
        let dir = TempDir::new("failing");
        write_sim_report(dir.path(), &input(&run, true)).expect("report");
        let report = read_json(&dir.path().join(REPORT_JSON));
        assert_eq!(report["schema"], "bench.sim.report/1");
        assert_eq!(report["complete"], true);
        assert_eq!(report["verdict"], "fail");
        let failures = report["failures"].as_array().expect("failures is an array");
        assert!(!failures.is_empty(), "2000 ppm against a 5 ms bound must fail games");
        for failure in failures {
            let game = failure["game"].as_u64().expect("a game number");
            assert_eq!(failure["replay"], replay(game).as_str());
            assert!(!failure["reasons"].as_array().expect("reasons").is_empty());
        }
        let checks = report["checks"].as_array().expect("checks");
        assert!(checks.iter().any(|check| check["passed"] == false));
        assert!(report["drift_envelope"]["buckets"].as_array().is_some_and(|buckets| !buckets.is_empty()));
        assert_eq!(report["files"].as_object().map(|files| files.len()), Some(5));
        for name in [DRIFT_SVG, DRIFT_PNG, JUNIT_XML, SUMMARY_MD, INDEX_HTML] {
            let bytes = std::fs::read(dir.path().join(name)).expect("read");
            assert_eq!(report["files"][name], sha256_hex(&bytes).as_str(), "{name} is named with its hash");
        }
        let summary = std::fs::read_to_string(dir.path().join(SUMMARY_MD)).expect("read");
        assert!(summary.starts_with("# FAIL"), "verdict first:\n{summary}");
        let first = failures[0]["game"].as_u64().expect("a game");
        assert!(summary.contains(&replay(first)), "the replay command is in summary.md");
    }

    #[test]
    fn a_passing_run_says_pass() {
        let run = simulate(PERFECT, 1);
        let dir = TempDir::new("passing");
        write_sim_report(dir.path(), &input(&run, true)).expect("report");
        let report = read_json(&dir.path().join(REPORT_JSON));
        assert_eq!(report["verdict"], "pass", "{report:#}");
        assert_eq!(report["failures"].as_array().map(Vec::len), Some(0));
        let summary = std::fs::read_to_string(dir.path().join(SUMMARY_MD)).expect("read");
        assert!(summary.starts_with("# PASS"));
    }

    #[test]
    fn an_interrupted_run_is_marked_incomplete_and_fails() {
        let run = simulate(PERFECT, 1);
        let dir = TempDir::new("incomplete");
        write_sim_report(dir.path(), &input(&run, false)).expect("report");
        let report = read_json(&dir.path().join(REPORT_JSON));
        assert_eq!(report["complete"], false);
        assert_eq!(report["verdict"], "fail");
        let checks = report["checks"].as_array().expect("checks");
        let complete = checks.iter().find(|check| check["name"] == report::COMPLETE_CHECK).expect("the check");
        assert_eq!(complete["passed"], false);
        let summary = std::fs::read_to_string(dir.path().join(SUMMARY_MD)).expect("read");
        assert!(summary.contains("**INCOMPLETE**"));
    }

    #[test]
    fn a_rewrite_replaces_a_stale_report() {
        let run = simulate(PERFECT, 1);
        let dir = TempDir::new("rewrite");
        std::fs::write(dir.path().join(REPORT_JSON), b"{\"schema\": \"stale\"}").expect("stale file");
        write_sim_report(dir.path(), &input(&run, true)).expect("report");
        assert_eq!(read_json(&dir.path().join(REPORT_JSON))["schema"], report::SCHEMA);
    }

    #[test]
    fn varying_facts_go_to_run_json_only() {
        let run = simulate(PERFECT, 1);
        let dir = TempDir::new("run-facts");
        write_sim_report(dir.path(), &input(&run, true)).expect("report");
        let facts = RunFacts {
            wall_ms: 1234,
            jobs: 2,
            host: "ci-host-42".into(),
            started_unix_s: 1_700_000_000,
            bench_version: "0.1.0".into(),
            git_commit: Some("abc123".into()),
        };
        let path = write_run_facts(dir.path(), &facts).expect("run.json");
        let run_json = read_json(&path);
        assert_eq!(run_json["schema"], report::RUN_SCHEMA);
        assert_eq!(run_json["jobs"], 2);
        assert_eq!(run_json["host"], "ci-host-42");
        let report = std::fs::read_to_string(dir.path().join(REPORT_JSON)).expect("read");
        for word in ["wall", "host", "jobs", "started", "unix", "git_commit"] {
            assert!(!report.contains(word), "report.json mentions `{word}`");
        }
    }

    /// `file` of the report of a tiny fixed run, compared byte for byte
    /// with `report/src/testdata/<file>`. After an intended change (to the
    /// schema, the plots, or the simulator), rewrite the golden files with
    ///
    /// ```sh
    /// BENCH_UPDATE_GOLDEN=1 cargo test -p bench-report sim::tests::golden
    /// ```
    ///
    /// and review their diff.
    fn check_golden(file: &str) {
        let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/testdata").join(file);
        let run = simulate(DRIFTING, 2);
        let dir = TempDir::new(&format!("golden-{file}"));
        write_sim_report(dir.path(), &input(&run, true)).expect("report");
        let actual = std::fs::read_to_string(dir.path().join(file)).expect("read");
        if std::env::var_os("BENCH_UPDATE_GOLDEN").is_some_and(|value| value == "1") {
            std::fs::write(&golden, &actual).expect("rewrite the golden file");
            return;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        assert!(
            actual == expected,
            "{file} differs from {} (rerun with BENCH_UPDATE_GOLDEN=1 if the change is intended):\n{actual}",
            golden.display()
        );
    }

    #[test]
    fn golden_report_json() {
        check_golden(REPORT_JSON);
    }

    #[test]
    fn golden_junit_xml() {
        check_golden(JUNIT_XML);
    }

    /// The structure CI systems read: `testsuites` > `testsuite` >
    /// `testcase` (+ `failure`), counts that add up, one case per check and
    /// per kept failing game, the replay command in each game's failure.
    #[test]
    fn junit_xml_has_a_case_per_check_and_per_failing_game() {
        let run = simulate(DRIFTING, 2);
        let dir = TempDir::new("junit-structure");
        write_sim_report(dir.path(), &input(&run, true)).expect("report");
        let xml = std::fs::read_to_string(dir.path().join(JUNIT_XML)).expect("read");
        let report = read_json(&dir.path().join(REPORT_JSON));
        let document = roxmltree::Document::parse(&xml).expect("junit.xml is well-formed XML");
        let root = document.root_element();
        assert_eq!(root.tag_name().name(), "testsuites");
        let suites: Vec<_> = root.children().filter(|node| node.has_tag_name("testsuite")).collect();
        assert_eq!(suites.len(), 2);
        let number = |node: roxmltree::Node, name: &str| -> usize {
            node.attribute(name).and_then(|value| value.parse().ok()).expect("a count attribute")
        };
        let mut all_cases = 0;
        let mut all_failures = 0;
        for suite in &suites {
            let cases: Vec<_> = suite.children().filter(|node| node.has_tag_name("testcase")).collect();
            let failures = cases.iter().filter(|case| case.children().any(|node| node.has_tag_name("failure"))).count();
            assert_eq!(number(*suite, "tests"), cases.len());
            assert_eq!(number(*suite, "failures"), failures);
            for case in &cases {
                assert!(case.attribute("classname").is_some() && case.attribute("name").is_some());
            }
            all_cases += cases.len();
            all_failures += failures;
        }
        assert_eq!(number(root, "tests"), all_cases);
        assert_eq!(number(root, "failures"), all_failures);

        let checks = report["checks"].as_array().expect("checks");
        let check_cases: Vec<_> = suites[0].children().filter(|node| node.has_tag_name("testcase")).collect();
        assert_eq!(check_cases.len(), checks.len(), "one case per check");
        for (case, check) in check_cases.iter().zip(checks) {
            assert_eq!(case.attribute("name"), check["name"].as_str());
            let failure = case.children().find(|node| node.has_tag_name("failure"));
            assert_eq!(failure.is_some(), check["passed"] == false, "{check}");
            if let Some(failure) = failure {
                let message = failure.attribute("message").expect("a message");
                let measured = check["measured"].as_str().expect("measured");
                let expected = check["expected"].as_str().expect("expected");
                assert!(message.contains(measured) && message.contains(expected), "{message}");
            }
        }
        let failures = report["failures"].as_array().expect("failures");
        let game_cases: Vec<_> = suites[1].children().filter(|node| node.has_tag_name("testcase")).collect();
        assert_eq!(game_cases.len(), failures.len(), "one case per kept failing game");
        for (case, failure) in game_cases.iter().zip(failures) {
            let game = failure["game"].as_u64().expect("a game");
            assert_eq!(case.attribute("name"), Some(format!("game {game}").as_str()));
            let text = case.children().find(|node| node.has_tag_name("failure")).and_then(|node| node.text());
            assert!(text.is_some_and(|text| text.contains(&replay(game))), "the replay command is in the failure");
        }
    }

    /// Hostile strings everywhere a user reaches: the scenario's file name,
    /// description and the replay commands. None may become markup.
    #[test]
    fn every_user_string_is_escaped_in_index_html_and_junit_xml() {
        const HOSTILE: &str = r#"
description = "<script>alert('x')</script> & \"q\" </svg><img src=x onerror=alert(1)> ]]> \u0001"
control = "60+1"
games = 2
seed = 1
[players]
think = { distribution = "uniform", min_ms = 500, max_ms = 4000 }
[device]
drift_ppm = 2000
[expect]
time_error_max_us = 0
"#;
        let file = Path::new("scenarios/<b>evil&'\".toml");
        let scenario = Scenario::parse(HOSTILE, file).expect("parses");
        let options =
            RunOptions { seed: 1, games: 0..2, jobs: 1, swarm: false, model_oracle: true, disabled: DefectSet::NONE };
        let summary = run::run(&scenario, &options, &|_| {});
        let checks = run::judge(&scenario, &summary);
        assert!(!summary.failures.is_empty(), "the run must have failures to show");
        let replay = |game: u64| format!("bench sim --scenario '<script>x</script>' --game {game} --trace");
        let dir = TempDir::new("hostile");
        let report_input = SimReportInput {
            scenario: &scenario,
            scenario_file: file,
            scenario_sha256: sha256_hex(HOSTILE.as_bytes()),
            seed: 1,
            games: 0..2,
            games_total: 2,
            shard: None,
            swarm: false,
            options: report::Options {
                check_determinism: false,
                tick_oracle: true,
                max_moves: None,
                disabled: Vec::new(),
            },
            summary: &summary,
            checks: &checks,
            command_line: "bench sim --scenario '<b>evil&.toml' --seed 1 --games 2".into(),
            replay_command: &replay,
            replays: &[],
            complete: true,
            incomplete_because: None,
        };
        write_sim_report(dir.path(), &report_input).expect("report");
        let html = std::fs::read_to_string(dir.path().join(INDEX_HTML)).expect("read");
        for raw in ["<script", "<img", "<b>", "onerror=alert(1)>", "\u{1}"] {
            assert!(!html.contains(raw), "index.html holds `{raw}` unescaped");
        }
        assert_eq!(html.matches("</svg>").count(), 1, "only the plot closes an svg");
        for escaped in ["&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;", "&lt;b&gt;evil&amp;&#39;&quot;", "[U+0001]"]
        {
            assert!(html.contains(escaped), "index.html shows `{escaped}`");
        }
        let verdict = html.find("id=\"verdict\"").expect("a verdict");
        let failures = html.find("id=\"failures\"").expect("failures");
        let drift = html.find("id=\"drift\"").expect("the plot");
        assert!(verdict < failures && failures < drift, "verdict first, then failures, later the plot");
        let without_namespace = html.replace("http://www.w3.org/2000/svg", "");
        assert!(!without_namespace.contains("http://") && !without_namespace.contains("https://"), "no network");

        let xml = std::fs::read_to_string(dir.path().join(JUNIT_XML)).expect("read");
        let document = roxmltree::Document::parse(&xml).expect("junit.xml stays well-formed");
        let text: String = document.descendants().filter_map(|node| node.text()).collect();
        assert!(text.contains("<script>x</script>"), "the replay command reads back unchanged");
    }

    /// `bench report merge` rebuilds each shard's `Summary` from its
    /// report.json: the report must hold all of it. (A field added to
    /// `Summary` fails to compile in `merge::summary_of` first, then here
    /// until report.json carries it.)
    #[test]
    fn report_json_holds_the_whole_summary() {
        for (text, jobs) in [(DRIFTING, 2), (PERFECT, 1)] {
            let run = simulate(text, jobs);
            let dir = TempDir::new("summary-round-trip");
            write_sim_report(dir.path(), &input(&run, true)).expect("report");
            let report = gate::load(dir.path()).expect("the report loads").into_sim().expect("a sim report");
            assert_eq!(merge::summary_of(&report).expect("a summary"), run.summary);
        }
    }

    /// The plot's title gives the bucket as summary.md does (it said
    /// `per 1.2 s` of 1.25 s buckets).
    #[test]
    fn the_drift_plots_title_gives_the_bucket_in_full() {
        let run = simulate(DRIFTING, 1);
        let mut report = report::build(&input(&run, true));
        report.drift_envelope.bucket_us = 1_250_000;
        let title = drift_plot::title(&report);
        assert!(title.ends_with("per 1.25 s of game time"), "{title}");
    }
}
