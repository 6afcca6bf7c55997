//! `bench gate` and `bench report merge` as a user runs them, and what an
//! interrupted `bench sim` leaves: exit codes, messages, byte-identical
//! merges.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::{bench, temp_dir};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn show(output: &Output) -> String {
    format!("exit {:?}\nstdout:\n{}\nstderr:\n{}", output.status.code(), text(&output.stdout), text(&output.stderr))
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// Fast games, a 300 ppm fast clock, missed presses: some games fail the
/// zero time-error bound, and the drift is measurable.
const DRIFTING: &str = r#"
description = "gate and merge tests: 300 ppm fast, missed presses"
control = "60+1"
games = 12
seed = 5
[players]
think = { distribution = "uniform", min_ms = 500, max_ms = 2500 }
[device]
drift_ppm = 300
missed_press = "1/10"
[expect]
time_error_max_us = 0
agreement_min_percent = 0
"#;

/// Writes the drifting scenario into `dir` and returns its path.
fn drifting(dir: &Path) -> PathBuf {
    let file = dir.join("drifting.toml");
    std::fs::write(&file, DRIFTING).expect("write the scenario");
    file
}

/// `bench sim` with these arguments into `out`; returns the output.
fn sim(scenario: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["sim", "--scenario", path(scenario), "--out", path(out)];
    args.extend_from_slice(extra);
    bench(&args)
}

#[test]
fn the_gate_passes_a_passing_report_and_fails_a_failing_one() {
    let dir = temp_dir("gate");
    let good = dir.join("good");
    let output = bench(&["sim", "--scenario", "both-flags", "--games", "8", "--out", path(&good)]);
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    assert!(text(&output.stdout).contains("gate: PASS"), "bench sim applies the gate: {}", show(&output));
    let output = bench(&["gate", path(&good)]);
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    assert!(text(&output.stdout).contains("pass  rules.every_check_passes"), "{}", show(&output));
    assert!(text(&output.stdout).contains("skip  rules.max_latency_p99_us"), "{}", show(&output));

    let bad = dir.join("bad");
    let output = sim(&drifting(&dir), &bad, &[]);
    assert_eq!(output.status.code(), Some(1), "bench sim exits as its gate: {}", show(&output));
    let output = bench(&["gate", path(&bad.join("report.json"))]);
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("FAIL  rules.every_check_passes"), "{stdout}");
    assert!(stdout.contains("largest device-ideal time error: measured"), "{stdout}");
    assert!(stdout.contains("expected <= 0 us"), "{stdout}");
    assert!(stdout.trim_end().ends_with("gate: FAIL (1 of 2 rules failed)"), "{stdout}");
}

#[test]
fn a_rules_file_sets_thresholds_and_prints_measured_against_allowed() {
    let dir = temp_dir("rules");
    let out = dir.join("report");
    sim(&drifting(&dir), &out, &[]);
    let rules = dir.join("gate.toml");
    std::fs::write(&rules, "[rules]\nmax_abs_drift_ppm = 20\nmax_oracle_violations = 0\n").expect("rules");
    let output = bench(&["gate", path(&out), "--rules", path(&rules)]);
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    let stdout = text(&output.stdout);
    let line = stdout.lines().find(|line| line.contains("rules.max_abs_drift_ppm")).expect("the drift rule's line");
    assert!(line.contains("FAIL") && line.contains("measured 300 ppm") && line.contains("allowed <= 20 ppm"), "{line}");
    assert!(!stdout.contains("every_check_passes"), "only the file's rules apply: {stdout}");

    std::fs::write(&rules, "[rules]\nmax_abs_drift_ppm = 301\n").expect("rules");
    let output = bench(&["gate", path(&out), "--rules", path(&rules)]);
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));

    std::fs::write(&rules, "[rules]\nmax_abs_drift = 20\n").expect("rules");
    let output = bench(&["gate", path(&out), "--rules", path(&rules)]);
    assert_eq!(output.status.code(), Some(2), "{}", show(&output));
    assert!(text(&output.stderr).contains("unknown field `max_abs_drift`"), "{}", show(&output));
}

#[test]
fn a_baseline_fails_the_gate_on_a_regression() {
    let dir = temp_dir("baseline");
    let scenario = drifting(&dir);
    let (before, after) = (dir.join("before"), dir.join("after"));
    sim(&scenario, &before, &["--games", "2"]);
    sim(&scenario, &after, &["--games", "12"]);
    let rules = dir.join("gate.toml");
    std::fs::write(&rules, "[rules]\nmax_oracle_violations = 0\n[baseline]\nmax_failed_games_growth = 0\n")
        .expect("rules");
    let output = bench(&["gate", path(&after), "--baseline", path(&before), "--rules", path(&rules)]);
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("FAIL  baseline.max_failed_games_growth"), "{stdout}");
    assert!(stdout.contains("allowed grows by +0 at most"), "{stdout}");
    let output = bench(&["gate", path(&after), "--baseline", path(&after), "--rules", path(&rules)]);
    assert_eq!(output.status.code(), Some(0), "a report is no regression of itself: {}", show(&output));
}

#[test]
fn bad_inputs_to_the_gate_exit_2_with_a_clear_message() {
    let dir = temp_dir("bad-inputs");
    let out = dir.join("report");
    sim(&drifting(&dir), &out, &["--games", "2"]);
    let whole = std::fs::read(out.join("report.json")).expect("the report");
    let write = |name: &str, bytes: &[u8]| {
        let file = dir.join(name);
        std::fs::write(&file, bytes).expect("write");
        file
    };
    let next_version = text(&whole).replace("bench.sim.report/1", "bench.sim.report/2");
    let cases: Vec<(PathBuf, &str)> = vec![
        (dir.join("nothing.json"), "no such file"),
        (dir.clone(), "no such file"),
        (write("truncated.json", &whole[..whole.len() * 2 / 3]), "is truncated"),
        (
            write("corrupted.json", &whole.iter().map(|b| if *b == b',' { b';' } else { *b }).collect::<Vec<_>>()),
            "is corrupted",
        ),
        (write("empty.json", b""), "is empty"),
        (
            write("next.json", next_version.as_bytes()),
            "is a `bench.sim.report/2` report; this bench reads `bench.sim.report/1`",
        ),
        (write("other.json", b"{\"schema\": \"acme/1\"}"), "schema `acme/1`"),
        (
            write("partial.json", b"{\"schema\": \"bench.sim.report/1\", \"seed\": 1}"),
            "not a valid `bench.sim.report/1` report: missing field",
        ),
        (write("no-games.json", &no_games(&whole)), "a run of no games"),
        (
            write("impossible.json", &edited(&whole, |report| report["games_with_violations"] = 3.into())),
            "`games_with_violations` is 3, more than games.played (2), which no run can produce",
        ),
        (
            write(
                "unphysical.json",
                &edited(&whole, |report| {
                    report["drift_ppb"] = serde_json::json!({"min": 0, "max": 2_000_000_000_000i64})
                }),
            ),
            "`drift_ppb.max` is 2000000000000 ppb, beyond ±1e9 ppm",
        ),
        (
            write("contradiction.json", &edited(&whole, |report| report["games_with_violations"] = 1.into())),
            "check `no oracle violations` passed, but the report's numbers fail it",
        ),
    ];
    for (file, needle) in cases {
        let output = bench(&["gate", path(&file)]);
        assert_eq!(output.status.code(), Some(2), "{}: {}", file.display(), show(&output));
        let stderr = text(&output.stderr);
        assert!(stderr.contains(needle), "{}: wanted `{needle}` in {stderr}", file.display());
        assert!(stderr.contains(path(&file)), "the message names the file: {stderr}");
    }
    let output = bench(&["gate", path(&out), "--rules", path(&dir.join("no-rules.toml"))]);
    assert_eq!(output.status.code(), Some(2), "{}", show(&output));
    let switched_off = write("off.toml", b"[rules]\nevery_check_passes = false\n");
    let output = bench(&["gate", path(&out), "--rules", path(&switched_off)]);
    assert_eq!(output.status.code(), Some(2), "{}", show(&output));
    assert!(
        text(&output.stderr).contains("no rule of the file can fail (every_check_passes = false)"),
        "{}",
        show(&output)
    );
    let output = bench(&["gate", path(&out), "--baseline", path(&dir.join("truncated.json"))]);
    assert_eq!(output.status.code(), Some(2), "{}", show(&output));
    assert!(text(&output.stderr).contains("is truncated"), "{}", show(&output));
}

/// What is not a report file is refused at once, not read until memory
/// runs out or forever: a device, a pipe with no writer, a file larger
/// than any report; so is a rules file of the kind. A field of the wrong
/// type is named, with its place in the file, and so is a rule that can
/// never fail.
#[test]
fn the_gate_reads_no_more_than_a_report_can_hold() {
    let dir = temp_dir("bounded");
    let out = dir.join("report");
    sim(&drifting(&dir), &out, &["--games", "2"]);
    let huge = dir.join("huge.json");
    let file = std::fs::File::create(&huge).expect("create");
    // Sparse: no disk is used, and every byte reads as 0.
    file.set_len(bench_report::gate::REPORT_BYTES_MAX + 1).expect("grow");
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success(), "mkfifo");
    let whole = std::fs::read(out.join("report.json")).expect("the report");
    let far_drift = dir.join("far-drift.json");
    // Written as a string, then made the number `1e30` in the text.
    let far_drift_text = edited(&whole, |report| report["drift_ppb"] = serde_json::json!({"min": 0, "max": "1e30"}));
    let far_drift_text = text(&far_drift_text).replace("\"1e30\"", "1e30");
    std::fs::write(&far_drift, &far_drift_text).expect("write");
    let far_drift_line = far_drift_text.lines().position(|line| line.contains("1e30")).expect("written") + 1;
    let never_exceeded = dir.join("never-exceeded.toml");
    std::fs::write(&never_exceeded, "[rules]\nmax_oracle_violations = 18446744073709551615\n").expect("write");
    let report = path(&out);
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec!["gate", "/dev/zero"], "/dev/zero is a device, not a regular file".into()),
        (vec!["gate", path(&fifo)], format!("{} is a pipe (FIFO), not a regular file", fifo.display())),
        (vec!["gate", path(&huge)], format!("{} is larger than 256 MiB", huge.display())),
        (vec!["gate", report, "--baseline", "/dev/zero"], "/dev/zero is a device".into()),
        (vec!["gate", report, "--rules", "/dev/zero"], "gate rules /dev/zero: is a device".into()),
        (vec!["gate", report, "--rules", path(&fifo)], "is a pipe (FIFO), not a regular file".into()),
        (vec!["gate", path(&far_drift)], format!("{}:{far_drift_line}:", far_drift.display())),
        (vec!["gate", path(&far_drift)], "field `drift_ppb.max`: not a valid `bench.sim.report/1` report".into()),
        (
            vec!["gate", report, "--rules", path(&never_exceeded)],
            format!("gate rules {}:2:1: field `rules.max_oracle_violations`", never_exceeded.display()),
        ),
    ];
    for (args, needle) in cases {
        let (code, output) = bench_within(&args, Duration::from_secs(20));
        assert_eq!(code, Some(2), "{args:?}: {output}");
        assert!(output.contains(&needle), "{args:?}: wanted `{needle}` in {output}");
    }
}

/// `bench ARGS`, killed past `deadline`: its exit code (None when killed)
/// and its stdout and stderr.
fn bench_within(args: &[&str], deadline: Duration) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start bench");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    (output.status.code(), show(&output))
}

/// `report` with `edit` made to its JSON.
fn edited(report: &[u8], edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let mut report: serde_json::Value = serde_json::from_slice(report).expect("a report");
    edit(&mut report);
    serde_json::to_vec_pretty(&report).expect("JSON")
}

/// `report` edited into a whole report of no games, consistent otherwise:
/// bench refuses such runs, and the gate must not pass one.
fn no_games(report: &[u8]) -> Vec<u8> {
    let mut report: serde_json::Value = serde_json::from_slice(report).expect("a report");
    let start = report["games"]["start"].clone();
    report["games"]["end"] = start;
    report["games"]["played"] = 0.into();
    report["agreement"]["games"] = 0.into();
    report["agreement"]["agreeing"] = 0.into();
    report["games_failed"] = 0.into();
    report["failures"] = serde_json::json!([]);
    serde_json::to_vec_pretty(&report).expect("JSON")
}

/// Every file that is a function of the run's inputs, byte for byte.
const REPRODUCIBLE: [&str; 6] = ["report.json", "junit.xml", "summary.md", "index.html", "drift.svg", "drift.png"];

#[test]
fn merged_shards_equal_the_unsharded_run_byte_for_byte() {
    let dir = temp_dir("merge");
    let scenario = drifting(&dir);
    let whole = dir.join("whole");
    sim(&scenario, &whole, &["--games", "14", "--check-determinism"]);
    // Out of order on purpose; shard 4 of 4 has games 10..14.
    let shards: Vec<PathBuf> = ["3/4", "1/4", "4/4", "2/4"]
        .iter()
        .map(|shard| {
            let out = dir.join(format!("shard-{}", shard.replace('/', "-of-")));
            sim(&scenario, &out, &["--games", "14", "--check-determinism", "--shard", shard, "--jobs", "1"]);
            out
        })
        .collect();
    let merged = dir.join("merged");
    let mut args = vec!["report", "merge", "--out", path(&merged)];
    args.extend(shards.iter().map(|shard| path(shard)));
    let output = bench(&args);
    assert_eq!(output.status.code(), Some(1), "the merged run fails like the unsharded one: {}", show(&output));
    assert!(text(&output.stdout).contains("merged 4 of 4 shards"), "{}", show(&output));
    for name in REPRODUCIBLE {
        let a = std::fs::read(whole.join(name)).expect("the unsharded run's file");
        let b = std::fs::read(merged.join(name)).expect("the merged file");
        assert!(
            a == b,
            "{name} differs between the unsharded run and the merged shards:\n{}\n---\n{}",
            text(&a),
            text(&b)
        );
    }
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(merged.join("report.json")).expect("read")).expect("json");
    assert!(report["shard"].is_null() && report["games"]["played"] == 14, "{report}");
    assert!(!report["failures"].as_array().is_some_and(Vec::is_empty), "the sweep has failures to carry");
    // Each listed failure's replay file, carried from its shard.
    let replays = |dir: &Path| {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("replays"))
            .expect("a replay folder")
            .map(|entry| {
                let path = entry.expect("an entry").path();
                (path.file_name().expect("a name").to_string_lossy().into_owned(), std::fs::read(&path).expect("read"))
            })
            .collect();
        files.sort();
        files
    };
    let listed = report["failures"].as_array().map_or(0, Vec::len);
    assert_eq!(replays(&merged).len(), listed, "a replay file per listed failure");
    assert!(replays(&whole) == replays(&merged), "the merged replay files are the unsharded run's");
    let output = bench(&["gate", path(&merged)]);
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
}

/// `bench ARGS` from the folder `dir`, on the shipped scenarios.
fn bench_from(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(args)
        .current_dir(dir)
        .env("BENCH_SCENARIOS", Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
        .output()
        .expect("bench runs")
}

/// The machines of one sweep each have their own folders: one runs the
/// scenario by its absolute path, one a byte-identical copy elsewhere, one
/// by a path relative to its own working folder. Their shards merge, from
/// yet another folder, into the unsharded run's report.
#[test]
fn shards_run_from_different_folders_merge_into_the_unsharded_report() {
    let dir = temp_dir("merge-paths");
    let (machine_a, machine_b) = (dir.join("machine-a"), dir.join("machine-b"));
    for machine in [&machine_a, &machine_b] {
        std::fs::create_dir_all(machine).expect("mkdir");
    }
    let (scenario_a, scenario_b) = (drifting(&machine_a), drifting(&machine_b));
    let whole = dir.join("whole");
    sim(&scenario_a, &whole, &["--games", "9"]);
    let shard = |index: u64| dir.join(format!("shard-{index}-of-3"));
    let ran = [
        sim(&scenario_a, &shard(1), &["--games", "9", "--shard", "1/3"]),
        sim(&scenario_b, &shard(2), &["--games", "9", "--shard", "2/3"]),
        bench_from(
            &machine_b,
            &["sim", "--scenario", "drifting.toml", "--games", "9", "--shard", "3/3", "--out", path(&shard(3))],
        ),
    ];
    for output in &ran {
        assert!(matches!(output.status.code(), Some(0 | 1)), "{}", show(output));
    }
    let file = |index: u64| -> String {
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(shard(index).join("report.json")).expect("read")).expect("json");
        report["scenario"]["file"].as_str().expect("a path").to_string()
    };
    assert!(file(1) != file(2) && file(2) != file(3) && file(1) != file(3), "three spellings of the scenario");
    let merged = dir.join("merged");
    let output = bench(&["report", "merge", "--out", path(&merged), path(&shard(3)), path(&shard(2)), path(&shard(1))]);
    assert_eq!(output.status.code(), Some(1), "the merged run fails like the unsharded one: {}", show(&output));
    for name in REPRODUCIBLE {
        let a = std::fs::read(whole.join(name)).expect("the unsharded run's file");
        let b = std::fs::read(merged.join(name)).expect("the merged file");
        assert!(
            a == b,
            "{name} differs between the unsharded run and the merged shards:\n{}\n---\n{}",
            text(&a),
            text(&b)
        );
    }
    // The path the lowest shard names is gone: the scenario is found by
    // its contents under another shard's path.
    std::fs::remove_file(&scenario_a).expect("remove");
    let again = dir.join("merged-again");
    let output = bench(&["report", "merge", "--out", path(&again), path(&shard(1)), path(&shard(2)), path(&shard(3))]);
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    assert_eq!(std::fs::read(again.join("report.json")).ok(), std::fs::read(merged.join("report.json")).ok());
}

/// Every shard given twice and every shard missing is named at once
/// (exit 2); `--partial` merges the shards there are into a report marked
/// incomplete, exit 1, that the gate refuses; shards given twice are
/// refused even then.
#[test]
fn merge_names_missing_and_duplicate_shards_and_partial_merges_what_is_there() {
    let dir = temp_dir("merge-partial");
    let scenario = drifting(&dir);
    let whole = dir.join("whole");
    sim(&scenario, &whole, &["--games", "8"]);
    let shard = |index: u64| dir.join(format!("shard-{index}-of-4"));
    for index in 1..=4 {
        let output = sim(&scenario, &shard(index), &["--games", "8", "--shard", &format!("{index}/4")]);
        assert!(matches!(output.status.code(), Some(0 | 1)), "{}", show(&output));
    }
    let merged = dir.join("merged");
    let merge = |shards: &[u64], extra: &[&str]| {
        let shards: Vec<PathBuf> = shards.iter().map(|index| shard(*index)).collect();
        let mut args = vec!["report", "merge", "--out", path(&merged)];
        args.extend_from_slice(extra);
        args.extend(shards.iter().map(|shard| path(shard)));
        bench(&args)
    };
    let output = merge(&[1, 3, 1], &[]);
    assert_eq!(output.status.code(), Some(2), "{}", show(&output));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("shard 1/4 is given twice"), "{stderr}");
    assert!(stderr.contains("shards missing: 2/4, 4/4"), "{stderr}");
    let output = merge(&[1, 3, 1], &["--partial"]);
    assert_eq!(output.status.code(), Some(2), "{}", show(&output));
    assert!(text(&output.stderr).contains("shard 1/4 is given twice"), "{}", show(&output));
    assert!(!merged.join("report.json").exists(), "nothing written");

    let output = merge(&[3, 1], &["--partial"]);
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    assert!(
        text(&output.stdout).contains("partial: shards missing: 2/4, 4/4; 4 of 8 games played"),
        "{}",
        show(&output)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(merged.join("report.json")).expect("read")).expect("json");
    assert_eq!(report["complete"], false, "{report}");
    assert_eq!(report["verdict"], "fail", "{report}");
    assert_eq!((report["games"]["start"].as_u64(), report["games"]["end"].as_u64()), (Some(0), Some(8)));
    let played: u64 = [1, 3]
        .iter()
        .map(|index| {
            let shard: serde_json::Value =
                serde_json::from_slice(&std::fs::read(shard(*index).join("report.json")).expect("read")).expect("json");
            shard["games"]["played"].as_u64().expect("played")
        })
        .sum();
    assert_eq!(report["games"]["played"].as_u64(), Some(played), "{report}");
    let complete_check = report["checks"]
        .as_array()
        .and_then(|checks| checks.iter().find(|check| check["name"] == "all games of the run played"))
        .expect("the completeness check");
    assert_eq!(complete_check["passed"], false);
    assert_eq!(complete_check["measured"], format!("{played} of 8 games (shards missing: 2/4, 4/4)"));
    let output = bench(&["gate", path(&merged)]);
    assert_eq!(output.status.code(), Some(2), "the gate judges no partial sweep: {}", show(&output));
    assert!(text(&output.stderr).contains("a partial merge"), "{}", show(&output));

    // With every shard there, --partial changes nothing.
    let output = merge(&[4, 2, 3, 1], &["--partial", "--force"]);
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    assert_eq!(std::fs::read(merged.join("report.json")).ok(), std::fs::read(whole.join("report.json")).ok());
}

#[test]
fn merge_refuses_shards_of_different_sweeps_with_the_reason() {
    let dir = temp_dir("merge-refuse");
    let scenario = drifting(&dir);
    let shard = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let output = sim(&scenario, &out, extra);
        assert!(matches!(output.status.code(), Some(0 | 1)), "{}", show(&output));
        out
    };
    let one = shard("one", &["--games", "6", "--shard", "1/2"]);
    let two = shard("two", &["--games", "6", "--shard", "2/2"]);
    let other_seed = shard("seed", &["--games", "6", "--shard", "2/2", "--seed", "99"]);
    let other_games = shard("games", &["--games", "8", "--shard", "2/2"]);
    let swarm = shard("swarm", &["--games", "6", "--shard", "2/2", "--swarm"]);
    let third = shard("third", &["--games", "6", "--shard", "2/3"]);
    let no_bounce = shard("no-bounce", &["--games", "6", "--shard", "2/2", "--disable", "bounce,jitter"]);
    let no_tick = shard("no-tick", &["--games", "6", "--shard", "2/2", "--no-tick-oracle"]);
    let unsharded = shard("unsharded", &["--games", "6"]);
    let out = dir.join("merged");
    let refused = |shards: &[&Path], needle: &str| {
        let mut args = vec!["report", "merge", "--out", path(&out)];
        args.extend(shards.iter().map(|shard| path(shard)));
        let output = bench(&args);
        assert_eq!(output.status.code(), Some(2), "{needle}: {}", show(&output));
        assert!(text(&output.stderr).contains(needle), "wanted `{needle}`: {}", show(&output));
        assert!(!out.join("report.json").exists(), "nothing written");
    };
    refused(&[&one, &other_seed], "different seeds (5 and 99)");
    refused(&[&one, &other_games], "different game counts (--games) (6 and 8)");
    refused(&[&one, &swarm], "different swarm settings");
    refused(&[&one, &third], "different shard counts (2 and 3)");
    refused(&[&one, &no_bounce], "different defects switched off (no --disable and --disable jitter,bounce)");
    refused(
        &[&one, &no_tick],
        "different independent-model oracle settings (no --no-model-oracle and --no-model-oracle)",
    );
    refused(&[&one], "shards missing: 2/2");
    refused(&[&one, &one, &two], "shard 1/2 is given twice");
    refused(&[&one, &unsharded], "is not a shard");
    refused(&[&one, &dir.join("nowhere")], "no such file");

    // A scenario file that changed since the shards ran cannot judge them.
    std::fs::write(&scenario, DRIFTING.replace("agreement_min_percent = 0", "agreement_min_percent = 1"))
        .expect("edit the scenario");
    refused(&[&one, &two], "has changed since the shards ran");
    // Another scenario file with the same name and contents is fine with --scenario.
    let elsewhere = dir.join("copy");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::write(elsewhere.join("drifting.toml"), DRIFTING).expect("copy");
    let output = bench(&[
        "report",
        "merge",
        "--out",
        path(&dir.join("merged-elsewhere")),
        "--scenario",
        path(&elsewhere.join("drifting.toml")),
        path(&one),
        path(&two),
    ]);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", show(&output));

    // A damaged shard: clear message, exit 2.
    let report = two.join("report.json");
    let bytes = std::fs::read(&report).expect("read");
    std::fs::write(&report, &bytes[..bytes.len() / 2]).expect("truncate");
    refused(&[&one, &two], "is truncated");
}

/// Ctrl-C in the middle of a long run: a whole report marked incomplete
/// (never a half file), exit 3, and the gate refuses it with exit 2.
#[test]
fn an_interrupted_run_leaves_a_report_marked_incomplete() {
    let dir = temp_dir("interrupt");
    let out = dir.join("report");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["sim", "--scenario", "both-flags", "--games", "100000000", "--jobs", "2", "--out", path(&out)])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("BENCH_SCENARIOS", Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bench starts");
    std::thread::sleep(Duration::from_millis(1_500));
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
    assert!(status.success(), "SIGINT sent");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("bench did not stop within 2 minutes of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let output = child.wait_with_output().expect("output");
    assert_eq!(status.code(), Some(3), "{}", show(&output));
    assert!(text(&output.stdout).contains("interrupted after"), "{}", show(&output));
    // The console's verdict is the report's: the run did not play its games.
    assert!(text(&output.stdout).contains("verdict: FAIL"), "{}", show(&output));
    assert!(text(&output.stdout).contains("FAIL  all games of the run played"), "{}", show(&output));

    let names: Vec<String> = std::fs::read_dir(&out)
        .expect("the report folder")
        .map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|name| name.starts_with(".tmp-")), "no temporary file left: {names:?}");
    let bytes = std::fs::read(out.join("report.json")).expect("a whole report");
    let report: serde_json::Value = serde_json::from_slice(&bytes).expect("report.json parses");
    assert_eq!(report["complete"], false);
    assert_eq!(report["verdict"], "fail");
    let played = report["games"]["played"].as_u64().expect("played");
    assert!(played > 0 && played < 100_000_000, "{played} games played");
    let output = bench(&["gate", path(&out)]);
    assert_eq!(output.status.code(), Some(2), "{}", show(&output));
    assert!(text(&output.stderr).contains("interrupted run"), "{}", show(&output));
}

/// What a command that gates its own report must have printed and exited
/// with: `bench gate` on that report, without the rules it skips.
fn assert_gated_like_bench_gate(command: &Output, report_dir: &Path) {
    let gate = bench(&["gate", path(report_dir)]);
    assert_eq!(command.status.code(), gate.status.code(), "{}\n---\n{}", show(command), show(&gate));
    // Columns are padded to the rules shown, so spacing is not compared.
    let words = |text: &str| -> Vec<String> {
        text.lines().map(|line| line.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
    };
    let expected: Vec<String> =
        words(&text(&gate.stdout)).into_iter().filter(|line| !line.starts_with("skip ")).collect();
    assert!(expected.iter().any(|line| line.starts_with("gate: ")), "{}", show(&gate));
    assert!(
        words(&text(&command.stdout)).ends_with(&expected),
        "the command's gate differs from `bench gate`'s:\n{}\n--- bench gate, skips left out:\n{}",
        show(command),
        expected.join("\n")
    );
}

/// `bench sim` and `bench report merge` gate through the one default-gate
/// function; here each is held to what `bench gate` says of its report,
/// passing and failing (`tests/cli_hil.rs` does the same for `bench hil`).
#[test]
fn every_command_that_gates_its_report_agrees_with_bench_gate() {
    let dir = temp_dir("one-gate");
    let passing = dir.join("passing");
    let output = bench(&["sim", "--scenario", "both-flags", "--games", "4", "--out", path(&passing)]);
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    assert_gated_like_bench_gate(&output, &passing);

    let scenario = drifting(&dir);
    let failing = dir.join("failing");
    let output = sim(&scenario, &failing, &["--games", "4"]);
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    assert_gated_like_bench_gate(&output, &failing);

    let shards: Vec<PathBuf> = ["1/2", "2/2"]
        .iter()
        .map(|shard| {
            let out = dir.join(format!("shard-{}", shard.replace('/', "-of-")));
            sim(&scenario, &out, &["--games", "4", "--shard", shard]);
            out
        })
        .collect();
    let merged = dir.join("merged");
    let output = bench(&["report", "merge", "--out", path(&merged), path(&shards[0]), path(&shards[1])]);
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    assert_gated_like_bench_gate(&output, &merged);
}

/// `bench report merge` checks its --out before it merges: a folder that
/// cannot be written or made (below a file; exit 2, not exit 3 after the
/// work), and one that holds another run's report (exit 2 unless --force).
#[test]
fn merge_checks_its_report_folder_before_it_merges() {
    let dir = temp_dir("merge-out");
    let scenario = drifting(&dir);
    let shards: Vec<PathBuf> = ["1/2", "2/2"]
        .iter()
        .map(|shard| {
            let out = dir.join(format!("shard-{}", shard.replace('/', "-of-")));
            let output = sim(&scenario, &out, &["--games", "6", "--shard", shard]);
            assert!(matches!(output.status.code(), Some(0 | 1)), "{}", show(&output));
            out
        })
        .collect();
    let merge = |out: &Path, extra: &[&str]| {
        let mut args = vec!["report", "merge", "--out", path(out)];
        args.extend_from_slice(extra);
        args.extend(shards.iter().map(|shard| path(shard)));
        bench(&args)
    };
    for out in support::unwritable_folders(&dir) {
        let output = merge(&out, &[]);
        assert_eq!(output.status.code(), Some(2), "{}", show(&output));
        assert!(text(&output.stderr).contains(&format!("the report folder {} cannot be written", out.display())));
    }
    // A path below a file is the user's to fix, like a file as --out.
    let a_file = dir.join("a-file");
    std::fs::write(&a_file, "not a folder").expect("write");
    let output = merge(&a_file.join("merged"), &[]);
    assert_eq!(output.status.code(), Some(2), "{}", show(&output));
    assert!(text(&output.stderr).contains("is a file, not a folder"), "{}", show(&output));
    let other = dir.join("other");
    let output = bench(&["sim", "--scenario", "both-flags", "--games", "2", "--out", path(&other)]);
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    let refused = merge(&other, &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", show(&refused));
    assert!(text(&refused.stderr).contains("holds the report of another run"), "{}", show(&refused));
    assert!(matches!(merge(&other, &["--force"]).status.code(), Some(0 | 1)));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(other.join("report.json")).expect("read")).expect("json");
    assert_eq!(report["scenario"]["name"], "drifting", "--force replaced it");
}

/// Every variable `--shard auto` reads: a test sets its engine's only.
const SHARD_VARIABLES: [&str; 10] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_COUNT",
    "JOB_COMPLETION_INDEX",
    "BENCH_SHARD_COUNT",
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
    "BENCH_SHARD",
    "SLURM_ARRAY_TASK_STEP",
];

/// `bench sim --shard auto` under `env` alone of the scheduler variables.
fn sim_auto(scenario: &Path, out: &Path, env: &[(String, String)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bench"));
    command
        .args(["sim", "--scenario", path(scenario), "--games", "9", "--shard", "auto", "--out", path(out)])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("BENCH_SCENARIOS", Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"));
    for variable in SHARD_VARIABLES {
        command.env_remove(variable);
    }
    command.envs(env.iter().map(|(key, value)| (key, value)));
    command.output().expect("bench runs")
}

/// Three tasks of one engine, each given the variables `task` makes of
/// its 0-based number, run `--shard auto`; merged, they are the unsharded
/// run's report, byte for byte.
fn auto_shards_merge_to_the_unsharded_run(engine: &str, task: impl Fn(u64) -> Vec<(&'static str, String)>) {
    let dir = temp_dir(&format!("auto-{engine}"));
    let scenario = drifting(&dir);
    let whole = dir.join("whole");
    sim(&scenario, &whole, &["--games", "9"]);
    let mut shards = Vec::new();
    for number in 0..3 {
        let out = dir.join(format!("task-{number}"));
        let env: Vec<(String, String)> =
            task(number).into_iter().map(|(key, value)| (key.to_string(), value)).collect();
        let output = sim_auto(&scenario, &out, &env);
        assert!(matches!(output.status.code(), Some(0 | 1)), "{engine} {env:?}: {}", show(&output));
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("read")).expect("json");
        assert_eq!(report["shard"]["count"], 3, "{engine} {env:?}");
        assert!(
            report["command"]
                .as_str()
                .is_some_and(|command| command.contains(&format!("--shard {}/3", report["shard"]["index"]))),
            "the command names the shard found: {}",
            report["command"]
        );
        shards.push(out);
    }
    let merged = dir.join("merged");
    let mut args = vec!["report", "merge", "--out", path(&merged)];
    args.extend(shards.iter().map(|shard| path(shard)));
    let output = bench(&args);
    assert_eq!(output.status.code(), Some(1), "{engine}: {}", show(&output));
    assert_eq!(
        std::fs::read(merged.join("report.json")).ok(),
        std::fs::read(whole.join("report.json")).ok(),
        "{engine}: the merged report is the unsharded run's"
    );
}

#[test]
fn shard_auto_under_a_slurm_array_merges_to_the_unsharded_run() {
    // `sbatch --array=4-6`: tasks 4, 5 and 6.
    auto_shards_merge_to_the_unsharded_run("slurm", |number| {
        vec![
            ("SLURM_ARRAY_TASK_ID", (4 + number).to_string()),
            ("SLURM_ARRAY_TASK_MIN", "4".into()),
            ("SLURM_ARRAY_TASK_MAX", "6".into()),
            ("SLURM_ARRAY_TASK_COUNT", "3".into()),
        ]
    });
}

#[test]
fn shard_auto_under_a_kubernetes_indexed_job_merges_to_the_unsharded_run() {
    auto_shards_merge_to_the_unsharded_run("kubernetes", |number| {
        vec![("JOB_COMPLETION_INDEX", number.to_string()), ("BENCH_SHARD_COUNT", "3".into())]
    });
}

#[test]
fn shard_auto_under_gitlab_parallel_merges_to_the_unsharded_run() {
    auto_shards_merge_to_the_unsharded_run("gitlab", |number| {
        vec![("CI_NODE_INDEX", (number + 1).to_string()), ("CI_NODE_TOTAL", "3".into())]
    });
}

#[test]
fn shard_auto_with_bench_shard_merges_to_the_unsharded_run() {
    auto_shards_merge_to_the_unsharded_run("bench-shard", |number| vec![("BENCH_SHARD", format!("{}/3", number + 1))]);
}

/// No engine, or an engine's variables in part: exit 2 naming what was
/// looked for, before anything is run or written.
#[test]
fn shard_auto_without_a_whole_engine_is_refused_naming_the_variables() {
    let dir = temp_dir("auto-refused");
    let scenario = drifting(&dir);
    let out = dir.join("out");
    let cases: [&[(&str, &str)]; 3] = [
        &[],
        &[("JOB_COMPLETION_INDEX", "1")],
        &[("BENCH_SHARD", "1/2"), ("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "2")],
    ];
    for env in cases {
        let env: Vec<(String, String)> = env.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect();
        let output = sim_auto(&scenario, &out, &env);
        assert_eq!(output.status.code(), Some(2), "{env:?}: {}", show(&output));
        let stderr = text(&output.stderr);
        for variable in
            ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "BENCH_SHARD_COUNT", "CI_NODE_INDEX", "BENCH_SHARD"]
        {
            assert!(stderr.contains(variable), "{env:?}: `{variable}` not named: {stderr}");
        }
        assert!(!out.exists(), "nothing written");
    }
}
