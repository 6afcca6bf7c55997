//! `bench sim` and `bench scenarios` as a user runs them: exit codes,
//! reports, replay commands, determinism across --jobs, clear errors.

use std::path::Path;

mod support;
use support::{bench, temp_dir, unwritable_folders};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A scenario where any time error fails a game, and missed presses make some.
const FAILING: &str = r#"
description = "missed presses against a zero time-error bound"
control = "60+1"
games = 12
seed = 5
[players]
think = { distribution = "uniform", min_ms = 500, max_ms = 2500 }
[device]
missed_press = "1/10"
[expect]
time_error_max_us = 0
agreement_min_percent = 0
"#;

#[test]
fn a_passing_run_exits_0_and_writes_its_report() {
    let out = temp_dir("pass");
    let output = bench(&["sim", "--scenario", "both-flags", "--games", "16", "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}{}", text(&output.stdout), text(&output.stderr));
    assert!(text(&output.stdout).contains("verdict: PASS"));
    for file in ["report.json", "summary.md", "run.json", "drift.svg", "drift.png", "index.html", "junit.xml"] {
        assert!(out.join(file).is_file(), "{file} written");
    }
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["verdict"], "pass");
}

#[test]
fn a_failing_run_exits_1_and_its_replay_command_reproduces_the_game() {
    let dir = temp_dir("fail");
    let scenario = dir.join("failing.toml");
    std::fs::write(&scenario, FAILING).unwrap();
    let out = dir.join("report");
    let output = bench(&["sim", "--scenario", scenario.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stdout));
    let stdout = text(&output.stdout);
    let replay = stdout.lines().find_map(|line| line.trim().strip_prefix("replay: ")).expect("a replay command");
    let args: Vec<&str> = replay.split_whitespace().skip(1).collect();
    assert!(args.contains(&"--trace") && args.contains(&"--game"));
    let first = bench(&args);
    let second = bench(&args);
    assert_eq!(first.status.code(), Some(1), "the replayed game fails too: {}", text(&first.stdout));
    assert_eq!(first.stdout, second.stdout, "a replay is bit for bit the same");
    assert!(text(&first.stdout).contains("press missed"), "the trace shows the cause");

    // Each failing game the report lists has its replay file, which plays
    // the game again: the same reasons, from the file alone.
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let failures = report["failures"].as_array().expect("failures");
    assert!(!failures.is_empty());
    for failure in failures {
        let file = failure["replay_file"].as_str().expect("a replay file");
        assert_eq!(file, format!("replays/game-{}.replay.toml", failure["game"]));
        let replayed = bench(&["sim", "--replay", out.join(file).to_str().unwrap()]);
        assert_eq!(replayed.status.code(), Some(1), "{}", text(&replayed.stdout));
        for reason in failure["reasons"].as_array().expect("reasons") {
            let reason = reason.as_str().expect("text");
            assert!(text(&replayed.stdout).contains(&format!("FAIL {reason}")), "{reason}: {}", text(&replayed.stdout));
        }
    }
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("<a href=\"replays/game-"), "the page links the replay files");
}

#[test]
fn disabled_defects_are_off_in_the_whole_run_and_in_its_replays() {
    let dir = temp_dir("disable");
    let scenario = dir.join("failing.toml");
    let bouncing = FAILING.replace("[device]\n", "[device]\nbounce = { chance = \"1/3\", min_ms = 1, max_ms = 40 }\n");
    std::fs::write(&scenario, bouncing).unwrap();
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec!["sim", "--scenario", scenario.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let output = bench(&args);
        assert_eq!(output.status.code(), Some(1), "{}", text(&output.stdout));
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        (text(&output.stdout), report)
    };
    let (_, with_bounce) = run(&dir.join("all"), &[]);
    assert!(with_bounce["defects"]["bounces"].as_u64().unwrap() > 0, "the scenario bounces");
    assert_eq!(with_bounce["options"]["disabled"], serde_json::json!([]));

    let (stdout, without) = run(&dir.join("no-bounce"), &["--disable", "bounce"]);
    assert_eq!(without["defects"]["bounces"], 0, "--disable reaches every game of the run");
    assert_eq!(without["options"]["disabled"], serde_json::json!(["bounce"]));
    // The printed replay plays the game the run played: the same time error.
    let failure = &without["failures"][0];
    let reason = failure["reasons"][0].as_str().unwrap();
    let error_us = reason.strip_prefix("time error ").and_then(|rest| rest.split(' ').next()).expect("a time error");
    let replay = stdout.lines().find_map(|line| line.trim().strip_prefix("replay: ")).expect("a replay command");
    assert!(replay.contains("--disable bounce"), "{replay}");
    let args: Vec<&str> = replay.split_whitespace().skip(1).collect();
    let replayed = text(&bench(&args).stdout);
    assert!(replayed.contains(&format!("max time error {error_us} us")), "run said {reason}; replay: {replayed}");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let dir = temp_dir("jobs");
    let reports: Vec<Vec<u8>> = ["1", "2"]
        .iter()
        .map(|jobs| {
            let out = dir.join(jobs);
            let output = bench(&[
                "sim",
                "--scenario",
                "both-flags",
                "--games",
                "24",
                "--jobs",
                jobs,
                "--out",
                out.to_str().unwrap(),
            ]);
            assert_eq!(output.status.code(), Some(0));
            std::fs::read(out.join("report.json")).unwrap()
        })
        .collect();
    assert!(
        reports[0] == reports[1],
        "report.json differs between --jobs 1 and 2:\n{}\n---\n{}",
        text(&reports[0]),
        text(&reports[1])
    );
}

#[test]
fn check_determinism_plays_every_game_twice() {
    let out = temp_dir("determinism");
    let output = bench(&[
        "sim",
        "--scenario",
        "both-flags",
        "--games",
        "8",
        "--check-determinism",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    assert!(text(&output.stdout).contains("every game plays the same twice"));
}

#[test]
fn shards_split_the_games() {
    let dir = temp_dir("shards");
    let mut games = 0;
    for shard in ["1/3", "2/3", "3/3"] {
        let out = dir.join(shard.replace('/', "-"));
        let output = bench(&[
            "sim",
            "--scenario",
            "both-flags",
            "--games",
            "10",
            "--shard",
            shard,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(0));
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        let range = &report["games"];
        games += range["end"].as_u64().unwrap() - range["start"].as_u64().unwrap();
    }
    assert_eq!(games, 10);
    let output = bench(&["sim", "--scenario", "both-flags", "--shard", "4/3"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_run_of_no_games_is_refused_before_anything_is_written() {
    let dir = temp_dir("no-games");
    for (args, needle) in [
        (&["--games", "0"][..], "--games must be at least 1"),
        (&["--games", "3", "--shard", "5/8"][..], "shard 5/8 of 3 games has no game"),
    ] {
        let out = dir.join("report");
        let mut command = vec!["sim", "--scenario", "both-flags", "--out", out.to_str().unwrap()];
        command.extend_from_slice(args);
        let output = bench(&command);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", text(&output.stderr));
        assert!(text(&output.stderr).contains(needle), "{args:?}: {}", text(&output.stderr));
        assert!(!out.exists(), "{args:?}: nothing is written");
    }
}

#[test]
fn a_run_on_no_threads_is_a_usage_error() {
    let output = bench(&["sim", "--scenario", "both-flags", "--jobs", "0"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
    assert!(text(&output.stderr).contains("--jobs"), "{}", text(&output.stderr));
}

#[test]
fn shrink_says_why_a_run_without_a_failing_game_has_nothing_to_shrink() {
    let dir = temp_dir("shrink-nothing");
    // Passes: no game fails.
    let out = dir.join("pass");
    let output =
        bench(&["sim", "--scenario", "both-flags", "--games", "4", "--shrink", "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    assert!(text(&output.stdout).contains("--shrink: no game failed: nothing to shrink"), "{}", text(&output.stdout));
    // Fails only on how often results occur: no single game fails.
    let scenario = dir.join("no-flags.toml");
    std::fs::write(
        &scenario,
        "description = \"x\"\ncontrol = \"1\"\n[expect]\n[[expect.result]]\nclass = \"6.10\"\nmax_percent = 0\n",
    )
    .unwrap();
    let out = dir.join("rates");
    let output = bench(&[
        "sim",
        "--scenario",
        scenario.to_str().unwrap(),
        "--games",
        "2",
        "--shrink",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("verdict: FAIL") && stdout.contains("no game failed on its own"), "{stdout}");
}

/// `--shrink` writes the shrunk game as a replay file; `--replay` plays it
/// with the same failure, bit for bit on every play; shrinking it again
/// finds nothing more to take away.
#[test]
fn shrink_writes_a_replay_file_that_fails_the_same_way_when_played() {
    let dir = temp_dir("shrink-replay");
    let scenario = dir.join("failing.toml");
    std::fs::write(&scenario, FAILING).unwrap();
    let out = dir.join("shrunk");
    let args =
        ["sim", "--scenario", scenario.to_str().unwrap(), "--game", "0", "--shrink", "--out", out.to_str().unwrap()];
    let shrunk = bench(&args);
    let stdout = text(&shrunk.stdout);
    assert_eq!(shrunk.status.code(), Some(1), "{stdout}{}", text(&shrunk.stderr));
    assert!(stdout.contains("1-minimal") && stdout.contains("still failing with time error"), "{stdout}");
    let file = stdout.lines().find_map(|line| line.strip_prefix("replay file: ")).expect("the replay file is named");
    let written = std::fs::read_to_string(file).unwrap();
    assert!(written.contains("format = \"bench-replay\"") && written.contains("[[move]]"), "{written}");
    assert_eq!(bench(&args).stdout, shrunk.stdout, "shrinking is deterministic");
    assert_eq!(std::fs::read_to_string(file).unwrap(), written, "the same replay file");

    let replayed = bench(&["sim", "--replay", file]);
    let replayed_out = text(&replayed.stdout);
    assert_eq!(replayed.status.code(), Some(1), "{replayed_out}{}", text(&replayed.stderr));
    assert!(replayed_out.contains("FAIL time error"), "{replayed_out}");
    assert!(replayed_out.contains("press missed"), "the trace shows the cause: {replayed_out}");
    let reasons = |out: &str| {
        out.lines().filter(|line| line.trim_start().starts_with("FAIL")).map(str::to_string).collect::<Vec<_>>()
    };
    assert_eq!(reasons(&replayed_out), reasons(&stdout), "the replay fails as the shrunk game did");
    assert_eq!(bench(&["sim", "--replay", file]).stdout, replayed.stdout, "a replay is bit for bit the same");

    let again = bench(&["sim", "--replay", file, "--shrink", "--out", dir.join("again").to_str().unwrap()]);
    let again_out = text(&again.stdout);
    assert_eq!(again.status.code(), Some(1), "{again_out}");
    let again_file = again_out.lines().find_map(|line| line.strip_prefix("replay file: ")).expect("written");
    let moves = |file: &str| {
        let text = std::fs::read_to_string(file).unwrap();
        text.find("\n[[move]]\n").map(|start| text[start..].to_string())
    };
    assert_eq!(moves(again_file), moves(file), "a minimal case shrinks no further");
}

/// A replay file that cannot be played is refused (exit 2) with the file,
/// the field and what to write instead, before anything is played.
#[test]
fn a_bad_replay_file_is_a_usage_error_that_names_what_is_wrong() {
    let dir = temp_dir("replay-bad");
    let scenario = dir.join("failing.toml");
    std::fs::write(&scenario, FAILING).unwrap();
    let out = dir.join("shrunk");
    let shrunk = bench(&[
        "sim",
        "--scenario",
        scenario.to_str().unwrap(),
        "--game",
        "0",
        "--shrink",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&shrunk.stdout);
    let good =
        std::fs::read_to_string(stdout.lines().find_map(|line| line.strip_prefix("replay file: ")).unwrap()).unwrap();
    let cases = [
        ("version.toml", good.replace("version = 1", "version = 7"), "version 7"),
        ("format.toml", good.replace("format = \"bench-replay\"", "format = \"other\""), "format"),
        ("unknown.toml", good.replace("version = 1", "version = 1\ncolour = 3"), "colour"),
        ("defect.toml", good.replace("disabled = [", "disabled = [\"gremlins\", "), "unknown defect `gremlins`"),
        (
            "act.toml",
            format!("{good}\n[[move]]\nat_us = 999999999999\n[[move.act]]\nat_us = 1\nact = \"dance\"\n"),
            "act `dance`",
        ),
        ("back.toml", format!("{good}\n[[move]]\nat_us = 900000000\n[[move]]\nat_us = 1000\n"), "comes before"),
        ("bounce.toml", format!("{good}\n[[move]]\nat_us = 999999999999\nbounce_ms = [1]\n"), "needs `hold_us`"),
        (
            "edges.toml",
            format!("{good}\n[[move]]\nat_us = 999999999999\nhold_us = 5000\nbounce_ms = [1, 1, 1, 1]\n"),
            "at most 3 openings",
        ),
        (
            "open.toml",
            format!("{good}\n[[move]]\nat_us = 999999999999\nhold_us = 5000\nbounce_ms = [0]\n"),
            "at least 1 ms",
        ),
    ];
    for (name, body, needle) in cases {
        let file = dir.join(name);
        std::fs::write(&file, body).unwrap();
        let output = bench(&["sim", "--replay", file.to_str().unwrap()]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(needle) && stderr.contains(name), "{name}: {stderr}");
    }
    let missing = bench(&["sim", "--replay", dir.join("none.toml").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("cannot read the replay file"), "{}", text(&missing.stderr));
    let both = bench(&["sim", "--replay", dir.join("none.toml").to_str().unwrap(), "--scenario", "both-flags"]);
    assert_eq!(both.status.code(), Some(2), "a replay carries its scenario: --scenario is refused");
}

#[test]
fn calibrate_suggests_ranges_and_fails_on_a_range_chance_breaks() {
    let dir = temp_dir("calibrate");
    let scenario = |name: &str, range: &str| {
        let file = dir.join(name);
        let text = format!(
            "description = \"x\"\ncontrol = \"20\"\ngames = 50\nseed = 3\n\
             [players]\nthink = {{ distribution = \"uniform\", min_ms = 100, max_ms = 900 }}\n\
             [expect]\ntime_error_max_us = 0\n[[expect.result]]\nclass = \"5.1\"\n{range}\n"
        );
        std::fs::write(&file, text).unwrap();
        file
    };
    // Board endings decide about 2 games in 5 here: 40 % to 60 % of 50 games
    // fails far more often than once in 10 000; 0 % to 100 % never does.
    for (file, code, needle) in [
        (scenario("narrow.toml", "min_percent = 40\nmax_percent = 60"), 1, "TOO NARROW"),
        (scenario("wide.toml", "min_percent = 0\nmax_percent = 100"), 0, "calibration: PASS"),
    ] {
        let output = bench(&["sim", "--scenario", file.to_str().unwrap(), "--calibrate", "--games", "2000"]);
        let stdout = text(&output.stdout);
        assert_eq!(output.status.code(), Some(code), "{stdout}{}", text(&output.stderr));
        assert!(stdout.contains(needle) && stdout.contains("games in class `5.1`"), "{stdout}");
        assert!(stdout.contains("time error over 2000 games: 0 us; written bound 0 us\n"), "{stdout}");
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let default_out = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports").join(format!("{stem}-3"));
        assert!(!default_out.exists(), "a calibration writes no report");
    }
}

#[test]
fn an_unknown_scenario_lists_the_valid_ones() {
    let output = bench(&["sim", "--scenario", "no-such-scenario"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("no scenario named `no-such-scenario`") && stderr.contains("both-flags"), "{stderr}");
}

#[test]
fn a_malformed_scenario_names_file_line_column_and_field() {
    let dir = temp_dir("malformed");
    let file = dir.join("bad.toml");
    std::fs::write(&file, "description = \"x\"\ncontrol = \"300+2\"\n\n[device]\ndrift_ppm = \"fast\"\n").unwrap();
    let output = bench(&["sim", "--scenario", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("bad.toml:5:13") && stderr.contains("device.drift_ppm"), "{stderr}");
}

#[test]
fn scenarios_lists_every_shipped_scenario() {
    let output = bench(&["scenarios"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|extension| extension == "toml") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(stdout.lines().any(|line| line.starts_with(&name)), "{name} listed:\n{stdout}");
        }
    }
    // Run from the project, the listing names its folder as the user sees
    // it, not the build machine's absolute path.
    assert!(!stdout.contains(env!("CARGO_MANIFEST_DIR")), "{stdout}");
    assert!(stdout.contains("files are in scenarios."), "{stdout}");
}

/// A run far longer than the test: games are short (no oracle makes one
/// take hours any more), so the run is long by their number.
const ENDLESS_RUN_GAMES: &str = "100000000";

/// The first interrupt lets the games under way finish (a report follows);
/// a second one, sent soon after it, stops at once with exit 3, before the
/// report is written.
#[test]
fn a_second_interrupt_stops_a_long_run_at_once() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let dir = temp_dir("interrupt-twice");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["sim", "--scenario", "blitz-3-2", "--games", ENDLESS_RUN_GAMES, "--jobs", "1"])
        .args(["--out", dir.join("report").to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bench starts");
    std::thread::sleep(Duration::from_millis(1_000));
    assert!(child.try_wait().expect("wait").is_none(), "the run goes on until interrupted");
    // Two different signals, both pending when bench runs again (it is
    // stopped while they are sent): the same signal twice merges into one
    // while the first is pending (standard signals do not queue), which on a
    // loaded host made this test depend on when bench was scheduled.
    let pid = child.id().to_string();
    let status = Command::new("sh")
        .args(["-c", "kill -STOP \"$1\" && kill -INT \"$1\" && kill -TERM \"$1\" && kill -CONT \"$1\"", "sh", &pid])
        .status()
        .expect("sh runs");
    assert!(status.success(), "SIGINT and SIGTERM sent");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("bench did not stop within a minute of a second SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("output");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("finishing the games under way"), "{stderr}");
    assert!(stderr.contains("stopping now, without a report"), "{stderr}");
    assert!(!dir.join("report").join("report.json").exists(), "no report after a second interrupt");
}

/// A report folder that cannot exist is refused before any game is played,
/// not after the run: a file given as --out, or a path below a file, is a
/// usage error (2): the path is the user's to fix.
#[test]
fn a_report_folder_that_cannot_exist_stops_the_run_before_it_starts() {
    let dir = temp_dir("out-file");
    let file = dir.join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let output = bench(&["sim", "--scenario", "both-flags", "--games", "4", "--out", file.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is a file") && stderr.contains("nothing was run"), "{stderr}");
    assert!(!text(&output.stdout).contains("bench sim both-flags"), "no game was played: {}", text(&output.stdout));

    let below_a_file = file.join("report");
    let output = bench(&["sim", "--scenario", "both-flags", "--games", "4", "--out", below_a_file.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is a file, not a folder") && stderr.contains("nothing was run"), "{stderr}");
    assert!(!text(&output.stdout).contains("bench sim both-flags"), "no game was played: {}", text(&output.stdout));
}

/// Options about the clock device mean nothing to a postal game: refused,
/// not silently ignored.
#[test]
fn device_options_are_refused_for_a_postal_game() {
    for flag in [&["--swarm"][..], &["--disable", "bounce"], &["--max-moves", "10"], &["--shrink"]] {
        let mut args = vec!["sim", "--scenario", "correspondence-first-overstep", "--games", "2"];
        args.extend_from_slice(flag);
        let output = bench(&args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag:?}: {stderr}");
        assert!(stderr.contains(&format!("{} is for over-the-board scenarios", flag[0])), "{flag:?}: {stderr}");
    }
}

/// A firmware project's own `scenarios/` folder adds to the shipped
/// scenarios: both are listed and runnable, and a local file of a shipped
/// name is taken with a note that says which file hides which.
#[test]
fn a_local_scenarios_folder_adds_to_the_shipped_ones_and_says_what_it_hides() {
    let project = temp_dir("local-scenarios");
    let local = project.join("scenarios");
    std::fs::create_dir_all(&local).expect("mkdir");
    let mine = "description = \"our own blitz\"\ncontrol = \"180+2\"\ngames = 2\n";
    std::fs::write(local.join("ours.toml"), mine).expect("write");
    std::fs::write(local.join("blitz-3-2.toml"), mine).expect("write");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_bench"))
            .args(args)
            .current_dir(&project)
            .env_remove("BENCH_SCENARIOS")
            .output()
            .expect("bench runs")
    };
    let listed = run(&["scenarios"]);
    assert_eq!(listed.status.code(), Some(0), "{}", support::text(&listed));
    let listing = support::text(&listed);
    assert!(listing.contains("ours") && listing.contains("both-flags"), "{listing}");
    let shipped = run(&["sim", "--scenario", "both-flags", "--games", "2", "--out", "out-shipped"]);
    assert_eq!(shipped.status.code(), Some(0), "{}", support::text(&shipped));
    let hidden = run(&["sim", "--scenario", "blitz-3-2", "--games", "2", "--out", "out-local"]);
    assert!(
        support::text(&hidden).contains("note: scenario `blitz-3-2` is scenarios/blitz-3-2.toml; it hides"),
        "{}",
        support::text(&hidden)
    );
    let report = std::fs::read_to_string(project.join("out-local/report.json")).expect("report");
    assert!(report.contains("our own blitz"), "the local file was taken");
    // A byte-identical copy of a shipped scenario (a checkout's own
    // `scenarios/`) hides nothing: no note.
    let shipped_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/bronstein.toml");
    std::fs::copy(&shipped_file, local.join("bronstein.toml")).expect("copy");
    let copied = run(&["sim", "--scenario", "bronstein", "--games", "2", "--out", "out-copy"]);
    assert!(matches!(copied.status.code(), Some(0 | 1)), "{}", support::text(&copied));
    assert!(!support::text(&copied).contains("note:"), "{}", support::text(&copied));
    let _ = std::fs::remove_dir_all(&project);
}

/// `--max-moves` keeps to the bound a scenario file has (10 000 moves per
/// player): above it one game could run for days of simulated play.
#[test]
fn max_moves_beyond_the_scenario_bound_is_refused() {
    for moves in ["0", "10001", "4294967295", "many"] {
        let output = bench(&["sim", "--scenario", "both-flags", "--games", "1", "--max-moves", moves]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "--max-moves {moves}: {stderr}");
        assert!(stderr.contains("give 1 to 10000"), "--max-moves {moves}: {stderr}");
    }
}

/// A report folder that exists but cannot be written is refused before
/// any game is played (it used to play every game, then exit 3 on
/// "removing the stale report.json: Permission denied").
#[test]
fn an_unwritable_report_folder_is_refused_before_any_game() {
    let scratch = temp_dir("unwritable");
    for out in unwritable_folders(&scratch) {
        let output = bench(&["sim", "--scenario", "both-flags", "--games", "4", "--out", out.to_str().unwrap()]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{}: {stderr}", out.display());
        assert!(stderr.contains(&format!("the report folder {} cannot be written", out.display())), "{stderr}");
        assert!(stderr.contains("nothing was run"), "{stderr}");
        assert!(!text(&output.stdout).contains("bench sim both-flags"), "no game was played");
    }
}

/// A run killed while writing its report (SIGKILL) leaves hidden
/// `.tmp-<pid>-…` files; the next run in the folder removes those whose
/// process is gone.
#[test]
fn a_run_removes_the_temporary_files_a_killed_run_left() {
    assert!(Path::new("/proc/self").exists(), "this test needs /proc (Linux)");
    let out = temp_dir("stale-temporaries");
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = out.join(format!(".tmp-{dead}-3-report.json"));
    std::fs::write(&stale, "{\"half\": ").unwrap();
    let output = bench(&["sim", "--scenario", "both-flags", "--games", "2", "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(!stale.exists(), "the killed run's temporary file is removed");
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".tmp-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A postal game's `--out` that is a file, or in a folder that takes no
/// files, is a usage error naming the path, before the game is played.
#[test]
fn a_postal_games_report_folder_is_checked_and_named_before_it_is_played() {
    let scratch = temp_dir("postal-out");
    let a_file = scratch.join("a-file");
    std::fs::write(&a_file, "not a folder").expect("write");
    for out in [a_file.clone(), Path::new("/proc/bench-no-such-folder").to_path_buf()] {
        let out_text = out.to_str().expect("utf-8");
        let output = bench(&["sim", "--scenario", "correspondence-first-overstep", "--game", "0", "--out", out_text]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{out_text}: {stderr}");
        assert!(stderr.contains(&format!("the report folder {out_text}")), "{out_text}: {stderr}");
    }
}

/// A scenario whose name and description hold control characters (NUL,
/// ESC, a right-to-left override): none of them reaches the console or
/// summary.md raw; each shows as `[U+XXXX]`.
#[test]
fn control_characters_from_a_scenario_file_never_reach_the_console_or_summary_md() {
    let dir = temp_dir("control-characters");
    let scenarios = dir.join("scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    let description = r"evil\u0000 \u001b[2J \u202Etxt.exe";
    let file = scenarios.join("rtl\u{202E}name.toml");
    let body = format!("description = \"{description}\"\ncontrol = \"60+1\"\ngames = 2\n");
    std::fs::write(&file, body).unwrap();
    let out = dir.join("report");
    let runs = [
        support::bench_in(&["sim", "--scenario", file.to_str().unwrap(), "--out", out.to_str().unwrap()], &[]),
        support::bench_in(&["scenarios"], &[("BENCH_SCENARIOS", &scenarios)]),
    ];
    let summary = std::fs::read_to_string(out.join("summary.md")).expect("summary.md");
    for (shown, what) in
        [(support::text(&runs[0]), "bench sim"), (support::text(&runs[1]), "bench scenarios"), (summary, "summary.md")]
    {
        for raw in ['\0', '\u{1b}', '\u{202E}'] {
            assert!(!shown.contains(raw), "{what} holds U+{:04X} raw:\n{shown}", u32::from(raw));
        }
        assert!(shown.contains("[U+202E]"), "{what} shows the override as a code point:\n{shown}");
    }
    assert!(
        support::text(&runs[1]).contains("evil[U+0000] [U+001B][2J [U+202E]txt.exe"),
        "{}",
        support::text(&runs[1])
    );
}

/// A report folder holding the report of another run is not replaced
/// silently: refused (exit 2, naming --out and --force) before any game,
/// replaced with --force; a rerun of the same command replaces its own.
#[test]
fn another_runs_report_is_replaced_only_with_force() {
    let out = temp_dir("another-run");
    let out_text = out.to_str().unwrap();
    let run = |games: &str, extra: &[&str]| {
        let mut args = vec!["sim", "--scenario", "both-flags", "--games", games, "--out", out_text];
        args.extend_from_slice(extra);
        bench(&args)
    };
    let played = |games: u64| {
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        assert_eq!(report["games"]["played"], games, "{report}");
    };
    assert_eq!(run("4", &[]).status.code(), Some(0));
    assert_eq!(run("4", &[]).status.code(), Some(0), "the same command replaces its own report");
    let refused = run("6", &[]);
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    let theirs = "holds the report of another run (`bench sim --scenario both-flags --seed 1 --games 4`)";
    assert!(stderr.contains(theirs) && stderr.contains("--out") && stderr.contains("--force"), "{stderr}");
    assert!(refused.stdout.is_empty(), "no game was played: {}", text(&refused.stdout));
    played(4);
    assert_eq!(run("6", &["--force"]).status.code(), Some(0));
    played(6);
}

/// `--game G` replays one game: what it cannot honour is refused before
/// the game is played (exit 2, naming the option), and
/// `--check-determinism` is honoured (the game played twice).
#[test]
fn one_game_refuses_the_options_of_a_run_and_honours_check_determinism() {
    let dir = temp_dir("one-game-options");
    let out = dir.join("report");
    let out_text = out.to_str().unwrap();
    for (extra, needle) in [
        (&["--shard", "1/2"][..], "--shard 1/2 picks a slice of a run's games"),
        (&["--out", out_text], "--out names a run's report folder"),
        (&["--force"], "--force replaces a run's report, and --game on an over-the-board scenario writes none"),
    ] {
        let mut args = vec!["sim", "--scenario", "both-flags", "--game", "3"];
        args.extend_from_slice(extra);
        let output = bench(&args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(needle) && stderr.contains("nothing was run"), "{extra:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{extra:?}: no game was played: {}", text(&output.stdout));
        assert!(!out.exists(), "{extra:?}: nothing is written");
    }
    let output = bench(&["sim", "--scenario", "both-flags", "--game", "3", "--check-determinism"]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", text(&output.stderr));
    let trace = stdout.lines().find_map(|line| line.split("trace ").nth(1)).expect("the game's trace hash");
    let twice = format!("PASS every game plays the same twice: trace {trace} both times");
    assert!(stdout.contains(&twice), "{stdout}");
}

/// `--trace` says what its numbers are, and numbers stages as `bench
/// timecontrol` does: from 1.
#[test]
fn a_trace_has_a_header_with_units_and_counts_stages_from_1() {
    let output = bench(&["sim", "--scenario", "both-flags", "--games", "40", "--game", "0", "--trace"]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let header = stdout.lines().next().unwrap_or_default();
    assert!(header.starts_with('#') && header.contains("(us)"), "{header}");
    let flags: Vec<&str> = stdout.lines().filter(|line| line.contains(" flag(s) ")).collect();
    assert!(!flags.is_empty(), "both-flags' game 0 has flags:\n{stdout}");
    for line in flags {
        assert!(line.contains(" in stage 1") || line.contains(" in stage 2"), "{line}");
    }
    let timecontrol = text(&bench(&["timecontrol", "10/20:20"]).stdout);
    assert!(timecontrol.contains("Stage 1:") && timecontrol.contains("Stage 2:"), "{timecontrol}");
}

/// Every `games in class` check has its row in summary.md, `6.12 a)` (a
/// ruling play goes on after, which no game ends with) included, with
/// what an article class counts; index.html shows the check's name with
/// no Markdown backtick.
#[test]
fn every_expected_class_has_its_row_and_article_classes_are_explained() {
    let out = temp_dir("expected-classes");
    let output = bench(&["sim", "--scenario", "both-flags", "--games", "30", "--out", out.to_str().unwrap()]);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", text(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for expected in report["expected_classes"].as_array().unwrap() {
        let row = format!("| {} | {} |", expected["class"].as_str().unwrap(), expected["games"]);
        assert!(summary.contains(&row), "no row `{row}`:\n{summary}");
    }
    assert!(summary.contains("| 6.12 a) |"), "{summary}");
    assert!(summary.contains("add up to more than the games"), "{summary}");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!html.contains("`6.12 a)`"), "a Markdown backtick in index.html");
    assert!(html.contains("games in class <code>6.12 a)</code>"), "the class as code");
    assert!(html.contains("add up to more than the games"), "index.html explains article classes too");
}

/// `--game G` with `--games N` names game G of a run of N games: one
/// beyond them is refused before it is played, however many games the
/// scenario has (before, `--game 3 --games 2` played game 3 and passed).
#[test]
fn a_game_beyond_games_is_refused_before_it_is_played() {
    let output = bench(&["sim", "--scenario", "both-flags", "--game", "3", "--games", "2"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--game 3: --games 2 has games 0..2"), "{stderr}");
    assert!(output.stdout.is_empty(), "no game was played: {}", text(&output.stdout));
    let output = bench(&["sim", "--scenario", "both-flags", "--game", "1", "--games", "2"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

/// A postal game's plot and timeline in a folder are not replaced by
/// another game's without --force (exit 2, naming the game they are of,
/// before the game is played); the same game replaces its own.
#[test]
fn a_postal_game_does_not_replace_another_games_files_without_force() {
    let out = temp_dir("postal-another-game");
    let out_text = out.to_str().unwrap();
    let game = |game: &str, extra: &[&str]| {
        let mut args = vec!["sim", "--scenario", "correspondence-first-overstep", "--game", game, "--out", out_text];
        args.extend_from_slice(extra);
        bench(&args)
    };
    let timeline = || std::fs::read_to_string(out.join("timeline.md")).expect("timeline.md");
    assert_eq!(game("0", &[]).status.code(), Some(0));
    let of_game_0 = timeline();
    assert_eq!(game("0", &[]).status.code(), Some(0), "the same game replaces its own files");
    let refused = game("1", &[]);
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    let theirs = "holds the accounting plot and claims timeline of another game \
                  (`correspondence-first-overstep seed 1 game 0`)";
    assert!(stderr.contains(theirs) && stderr.contains("--force"), "{stderr}");
    assert!(refused.stdout.is_empty(), "no game was played: {}", text(&refused.stdout));
    assert_eq!(timeline(), of_game_0, "game 0's files are kept");
    assert_eq!(game("1", &["--force"]).status.code(), Some(0));
    assert!(timeline().starts_with("# correspondence-first-overstep seed 1 game 1:"), "{}", timeline());
}

/// A FIFO, a folder or a link where the report writes one of its files is
/// never replaced: refused before any game (exit 2, naming it), and kept.
#[test]
fn a_report_folder_entry_that_is_not_a_regular_file_is_refused_and_kept() {
    use std::os::unix::fs::FileTypeExt;
    let dir = temp_dir("not-regular-entries");
    // The FIFO last: a run that reads it as another run's report.json
    // (before this check) would wait for a writer forever.
    for (name, make) in [("summary.md", "folder"), ("index.html", "link"), ("report.json", "fifo")] {
        let out = dir.join(format!("{make}-report"));
        std::fs::create_dir_all(&out).unwrap();
        let entry = out.join(name);
        match make {
            "fifo" => assert!(std::process::Command::new("mkfifo").arg(&entry).status().unwrap().success()),
            "folder" => std::fs::create_dir(&entry).unwrap(),
            _ => std::os::unix::fs::symlink(dir.join("elsewhere.html"), &entry).unwrap(),
        }
        let output = bench(&["sim", "--scenario", "both-flags", "--games", "2", "--out", out.to_str().unwrap()]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{make}: {stderr}");
        assert!(stderr.contains(&format!("{} is a ", entry.display())), "{make}: {stderr}");
        assert!(output.stdout.is_empty(), "{make}: no game was played: {}", text(&output.stdout));
        let kept = std::fs::symlink_metadata(&entry).expect("kept").file_type();
        assert!(kept.is_fifo() || kept.is_dir() || kept.is_symlink(), "{make}: replaced");
    }
    // The report folder itself a FIFO, or a link to nothing: named as such.
    let fifo = dir.join("fifo-as-out");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let dangling = dir.join("dangling-out");
    std::os::unix::fs::symlink(dir.join("nothing"), &dangling).unwrap();
    for (out, what) in [(&fifo, "is a FIFO"), (&dangling, "is a symbolic link to")] {
        let output = bench(&["sim", "--scenario", "both-flags", "--games", "2", "--out", out.to_str().unwrap()]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(&format!("the report folder {} {what}", out.display())), "{stderr}");
    }
}
