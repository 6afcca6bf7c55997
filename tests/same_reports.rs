//! `scripts/same-reports`, the before/after check of a refactor: it finds a
//! difference where there is one (fake `bench` binaries that write set
//! reports), finds none where there is none (the real `bench` against
//! itself: nothing in a report may vary between two runs), and refuses bad
//! input with exit 2.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::{temp_dir, text};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/same-reports")
}

fn same_reports(args: &[&str]) -> Output {
    Command::new("python3").arg(script()).args(args).output().expect("python3 runs (scripts/install-deps installs it)")
}

/// A stand-in for `bench`: writes `files` (name, content) into its `--out`
/// folder, a run.json that differs on every run, and exits with `code`.
fn fake_bench(dir: &Path, name: &str, files: &[(&str, &str)], code: i32) -> PathBuf {
    let mut script = String::from(
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\nmkdir -p \"$out\"\n\
         date +%s%N > \"$out/run.json\"\n",
    );
    for (file, content) in files {
        script.push_str(&format!(
            "mkdir -p \"$(dirname \"$out/{file}\")\"\nprintf '%s\\n' '{content}' > \"$out/{file}\"\n"
        ));
    }
    script.push_str(&format!("exit {code}\n"));
    let path = dir.join(name);
    std::fs::write(&path, script).expect("write the fake bench");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("make it executable");
    path
}

/// Runs the comparison of two fakes on one scenario, one seed, no swarm.
fn compare(test: &str, before: (&[(&str, &str)], i32), after: (&[(&str, &str)], i32)) -> Output {
    let dir = temp_dir(test);
    let scenarios = dir.join("scenarios");
    std::fs::create_dir_all(&scenarios).expect("a scenario folder");
    std::fs::write(scenarios.join("one.toml"), "").expect("a scenario file");
    let before = fake_bench(&dir, "before", before.0, before.1);
    let after = fake_bench(&dir, "after", after.0, after.1);
    let out = dir.join("out");
    same_reports(&[
        "--scenarios",
        scenarios.to_str().unwrap(),
        "--seeds",
        "own",
        "--no-swarm",
        "--jobs",
        "1",
        before.to_str().unwrap(),
        after.to_str().unwrap(),
        out.to_str().unwrap(),
    ])
}

const REPORT: &[(&str, &str)] = &[("report.json", r#"{"a": {"b": [1, 2]}}"#), ("summary.md", "# PASS")];

#[test]
fn the_same_reports_pass_whatever_run_json_says() {
    let output = compare("same", (REPORT, 0), (REPORT, 0));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(text(&output).contains("2 files compared, 0 differences"), "{}", text(&output));
}

#[test]
fn a_changed_file_fails_and_is_named_with_where_it_differs() {
    let changed: &[(&str, &str)] = &[("report.json", r#"{"a": {"b": [1, 3]}}"#), ("summary.md", "# FAIL")];
    let output = compare("changed", (REPORT, 0), (changed, 0));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let text = text(&output);
    assert!(text.contains("DIFFERS sim-one-seed-own/report.json: first at JSON .a.b[1]"), "{text}");
    assert!(text.contains("DIFFERS sim-one-seed-own/summary.md: first at line 1"), "{text}");
}

#[test]
fn a_file_written_by_one_binary_only_fails() {
    let more: &[(&str, &str)] = &[REPORT[0], REPORT[1], ("plots/drift.svg", "<svg/>")];
    let output = compare("extra", (REPORT, 0), (more, 0));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(text(&output).contains("DIFFERS sim-one-seed-own/plots/drift.svg: only after"), "{}", text(&output));
}

#[test]
fn another_exit_code_fails() {
    let output = compare("exit", (REPORT, 0), (REPORT, 1));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(text(&output).contains("exit code 0 against 1"), "{}", text(&output));
}

#[test]
fn a_run_neither_binary_completes_is_not_a_pass() {
    let output = compare("broken", (&[], 3), (&[], 3));
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    assert!(text(&output).contains("NOT COMPARED sim-one-seed-own"), "{}", text(&output));
}

#[test]
fn bad_input_exits_2_and_says_what_is_wrong() {
    let dir = temp_dir("bad");
    let missing = dir.join("no-such-bench");
    let output =
        same_reports(&[missing.to_str().unwrap(), missing.to_str().unwrap(), dir.join("out").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("not an executable file"), "{}", text(&output));

    let bench = env!("CARGO_BIN_EXE_bench");
    let output = same_reports(&["--scenario", "no-such-scenario", bench, bench, dir.join("out").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("--scenario no-such-scenario"), "{}", text(&output));

    // A folder with someone else's files is never emptied.
    std::fs::write(dir.join("keep.txt"), "mine").unwrap();
    let output = same_reports(&["--scenario", "late-arrival-2005", bench, bench, dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(dir.join("keep.txt").is_file());
}

/// The real `bench` against itself: a report holds nothing that differs
/// between two runs (wall time, paths of the binary), or the tool could not
/// tell a refactor from noise.
#[test]
fn bench_against_itself_writes_the_same_reports() {
    let dir = temp_dir("itself");
    let bench = env!("CARGO_BIN_EXE_bench");
    let output = same_reports(&[
        "--scenario",
        "late-arrival-2005",
        "--seeds",
        "own,3",
        "--jobs",
        "2",
        bench,
        bench,
        dir.join("out").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let text = text(&output);
    assert!(text.contains("4 runs"), "{text}");
    assert!(!text.contains(" 0 files compared"), "{text}");
}
