//! `bench hil` as a user runs it: usage errors, missing tools and images,
//! and — on QEMU's emulated board — the reference firmware passing and
//! every rule and time-base defect build failing with the right message.
//!
//! The emulator tests need `qemu-system-arm` (scripts/check installs it)
//! and the firmware images: `BENCH_FIRMWARE_DIR` (a folder of `normal.elf`,
//! `defect-….elf`), else `scripts/build-firmware` builds them (seconds when
//! nothing changed). One emulator at a time: each busy-loops a core.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard, OnceLock};

mod support;
use support::{bench, bench_in, temp_dir, text, unwritable_folders};

fn report(dir: &Path) -> serde_json::Value {
    let bytes = std::fs::read(dir.join("report.json")).expect("report.json written");
    serde_json::from_slice(&bytes).expect("valid json")
}

#[test]
fn usage_errors_exit_2_before_anything_runs() {
    let dir = temp_dir("usage");
    let missing = dir.join("missing.elf");
    let a_file = dir.join("a-file");
    std::fs::write(&a_file, "not a folder, not firmware either").expect("write");
    let a_file = a_file.to_str().expect("utf-8");
    for args in [
        vec!["hil", "--firmware", a_file, "--out", a_file],
        vec!["hil", "--scenario", "no-such-scenario"],
        vec!["hil", "--games", "0"],
        vec!["hil", "--max-moves", "0"],
        vec!["hil", "--max-moves", "10001"],
        vec!["hil", "--board", "no-such-board"],
        vec!["hil", "--firmware", missing.to_str().expect("utf-8")],
        vec!["hil", "--drift-tolerance-ppm", "-1"],
        vec!["hil", "--scenario", "correspondence-first-overstep"],
        vec!["hil", "--scenario", "blitz-3-2", "--records", "/nonexistent-folder/records.jsonl"],
        vec!["hil", "--suite", "release", "--scenario", "blitz-3-2"],
        vec!["hil", "--suite", "no-such-suite"],
        vec!["hil", "--scenario", "blitz-3-2", "--icount", "bogus,x=1"],
        vec!["hil", "--scenario", "blitz-3-2", "--icount", "shift=7,sleep=maybe"],
        vec!["hil", "--scenario", "blitz-3-2", "--icount", "shift=11"],
        vec!["hil", "--scenario", "blitz-3-2", "--records", a_file.rsplit_once('/').map_or(".", |(folder, _)| folder)],
        vec!["hil", "--scenario", "blitz-3-2", "--shard", "3/2"],
        vec!["hil", "--scenario", "blitz-3-2", "--shard", "2/2"],
        vec!["hil", "--shard", "1/2"],
        vec!["hil", "--suite", "release", "--shard", "1/2"],
        vec!["hil", "--scenario", "blitz-3-2", "--no-flash"],
        vec!["hil", "--board", "stm32", "--gdb", "localhost:3333", "--probe", "0483:374b"],
        vec!["hil", "--jobs", "0"],
        vec!["hil", "--scenario", "blitz-3-2", "--jobs", "2"],
        vec!["hil", "--jobs", "2", "--fail-fast"],
        vec!["hil", "--board", "stm32", "--jobs", "2"],
        vec!["hil", "--replay", a_file, "--scenario", "blitz-3-2"],
        vec!["hil", "--replay", missing.to_str().expect("utf-8")],
        vec!["hil", "--replay", a_file],
        vec!["hil", "--shrink"],
        vec!["hil", "--scenario", "blitz-3-2", "--shrink", "--icount", "none"],
        vec!["hil", "--board", "stm32", "--scenario", "blitz-3-2", "--shrink"],
        vec!["hil", "--board", "stm32", "--scenario", "blitz-3-2", "--shrink", "--jobs", "2"],
        vec!["hil", "--scenario", "blitz-3-2", "--shrink-budget", "3"],
    ] {
        let output = bench(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", text(&output));
    }
    assert!(text(&bench(&["hil", "--firmware", missing.to_str().expect("utf-8")])).contains("no such file"));
    assert!(text(&bench(&["hil", "--firmware", a_file, "--out", a_file])).contains("is a file"));
    let one_game = text(&bench(&["hil", "--scenario", "blitz-3-2", "--shard", "2/2"]));
    assert!(one_game.contains("shard 2/2 of 1 games has no game"), "{one_game}");
    let suite = text(&bench(&["hil", "--shard", "1/2"]));
    assert!(suite.contains("--shard splits the games of one scenario"), "{suite}");
    let jobs = text(&bench(&["hil", "--jobs", "2", "--fail-fast"]));
    assert!(jobs.contains("give --jobs 1 with it"), "{jobs}");
    let jobs = text(&bench(&["hil", "--board", "stm32", "--jobs", "2"]));
    assert!(jobs.contains("it is for --board qemu"), "{jobs}");
    let jobs = text(&bench(&["hil", "--scenario", "blitz-3-2", "--jobs", "2"]));
    assert!(jobs.contains("or add --shrink"), "{jobs}");
    let shrink = text(&bench(&["hil", "--board", "stm32", "--scenario", "blitz-3-2", "--shrink"]));
    assert!(shrink.contains("give --board qemu"), "{shrink}");
    let auto = text(&bench(&["hil", "--scenario", "blitz-3-2", "--shard", "auto"]));
    assert!(auto.contains("SLURM_ARRAY_TASK_ID") && auto.contains("BENCH_SHARD"), "{auto}");
}

/// Each `--records` path that would lose the run's records at its end, or
/// destroy what it names, is refused before the board starts: exit 2,
/// naming the option, the path and why, and nothing is made or replaced.
#[test]
fn a_records_path_that_would_lose_or_destroy_something_is_refused_before_the_board_starts() {
    use std::os::unix::fs::FileTypeExt;
    let dir = temp_dir("records-paths");
    // Not read before --records is checked.
    let image = dir.join("image.elf");
    std::fs::write(&image, "not firmware").expect("write");
    let scenario = dir.join("mine.toml");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/blitz-3-2.toml"), &scenario).expect("copy");
    // The report folder exists: its being made by the run is no excuse.
    let out = dir.join("report");
    std::fs::create_dir_all(&out).expect("the report folder");
    let fifo = dir.join("records.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs").success());
    let mut cases: Vec<(PathBuf, String)> = vec![
        (out.join("report.json"), "is the report's own report.json in the report folder".into()),
        (out.clone(), "is the report folder (--out)".into()),
        (out.join("./sub/../index.html"), "is the report's own index.html in the report folder".into()),
        (scenario.clone(), "is the scenario file the run reads".into()),
        (image.clone(), "is the firmware image the run reads".into()),
        (fifo.clone(), "is a FIFO that no process reads".into()),
        (PathBuf::from("/proc/bench-records.jsonl"), "cannot be written: its folder /proc takes no file".into()),
    ];
    for folder in unwritable_folders(&dir) {
        let why = format!("cannot be written: its folder {} takes no file", folder.display());
        cases.push((folder.join("records.jsonl"), why));
    }
    let (image_text, scenario_text) = (image.to_str().expect("utf-8"), scenario.to_str().expect("utf-8"));
    let mut wrong = Vec::new();
    for (records, why) in &cases {
        let records = records.to_str().expect("utf-8");
        let output = bench(&[
            "hil",
            "--scenario",
            scenario_text,
            "--firmware",
            image_text,
            "--out",
            out.to_str().expect("utf-8"),
            "--records",
            records,
        ]);
        let shown = text(&output);
        if output.status.code() != Some(2) || !shown.contains(&format!("--records {records}: {why}")) {
            wrong.push(format!("{records}: exit {:?}, `{why}` expected in: {shown}", output.status.code()));
        }
        let made: Vec<_> = std::fs::read_dir(&out).expect("the report folder").collect();
        assert!(made.is_empty(), "{records}: nothing was made: {made:?}");
    }
    assert!(wrong.is_empty(), "not refused as they should be:\n{}", wrong.join("\n"));
    assert!(std::fs::symlink_metadata(&fifo).expect("kept").file_type().is_fifo(), "the FIFO is kept");
    assert_eq!(std::fs::read(&image).expect("kept"), b"not firmware");
    // The release suite writes a report per scenario: one file of records
    // would be replaced by each scenario's.
    let output = bench(&["hil", "--firmware", image_text, "--records", dir.join("r.jsonl").to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("takes the records of one scenario"), "{}", text(&output));
}

/// `--firmware` naming a folder says so (before: "no such file").
#[test]
fn a_firmware_folder_is_named_a_folder() {
    let dir = temp_dir("firmware-folder");
    let folder = dir.to_str().expect("utf-8");
    let output = bench(&["hil", "--scenario", "blitz-3-2", "--firmware", folder]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let said =
        format!("--firmware {folder}: is a folder, not an ELF file: give the image in it (e.g. {folder}/normal.elf)");
    assert!(text(&output).contains(&said), "{}", text(&output));
}

/// `bench ARGS` with a deadline: killed and failed past it (a run that
/// builds what it needs for every game up front never gets to its checks).
fn bench_within(args: &[&str], deadline: std::time::Duration) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("BENCH_SCENARIOS", Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bench starts");
    let started = std::time::Instant::now();
    while child.try_wait().expect("bench runs").is_none() {
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`bench {}` still running after {deadline:?}", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("bench's output");
    (output.status.code(), text(&output))
}

/// However many games are asked for, the other inputs are checked first
/// and at once: each game's schedule is made as the game begins (made up
/// front, u64::MAX games ran out of memory before the missing image was
/// reported, and 5 000 000 before the missing probe).
#[test]
fn a_huge_game_count_does_not_delay_the_other_checks() {
    let deadline = std::time::Duration::from_secs(30);
    let dir = temp_dir("huge-games");
    let out = dir.join("report");
    let out = out.to_str().expect("utf-8");
    let (code, output) = bench_within(
        &[
            "hil",
            "--board",
            "qemu",
            "--scenario",
            "blitz-3-2",
            "--games",
            "18446744073709551615",
            "--firmware",
            "/nonexistent.elf",
            "--out",
            out,
        ],
        deadline,
    );
    assert_eq!(code, Some(2), "{output}");
    assert!(output.contains("--firmware /nonexistent.elf: no such file"), "{output}");
    // A probe no machine has, or the stm32 image not built: either way an
    // infrastructure failure, at once.
    let (code, output) = bench_within(
        &[
            "hil",
            "--board",
            "stm32",
            "--probe",
            "0000:0000",
            "--scenario",
            "blitz-3-2",
            "--games",
            "5000000",
            "--out",
            out,
        ],
        deadline,
    );
    assert_eq!(code, Some(3), "{output}");
    assert!(output.contains("no debug probe") || output.contains("not built"), "{output}");
}

/// A report folder that cannot be written is refused before the emulator
/// starts or a probe is opened: exit 2, naming the folder.
#[test]
fn an_unwritable_report_folder_is_refused_before_the_board_starts() {
    let scratch = temp_dir("unwritable");
    // Only its being a file is checked before the folder.
    let image = scratch.join("image.elf");
    std::fs::write(&image, "not read before the folder is checked").expect("write");
    for out in unwritable_folders(&scratch) {
        for board in ["qemu", "stm32"] {
            let args = ["hil", "--board", board, "--firmware", image.to_str().expect("utf-8")];
            let output = bench(&[&args[..], &["--out", out.to_str().expect("utf-8")]].concat());
            assert_eq!(output.status.code(), Some(2), "{board}, {}: {}", out.display(), text(&output));
            assert!(text(&output).contains(&format!("the report folder {} cannot be written", out.display())));
        }
    }
}

/// `bench hil --help` teaches the board farm: repeated --probe, how the
/// games are spread, what a failing board does.
#[test]
fn help_teaches_the_board_farm() {
    let output = bench(&["hil", "--help"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let help = text(&output);
    for words in [
        "repeat --probe for a",
        "board farm: game g is played on the (g mod N)-th probe named",
        "other boards' games are kept, and the run exits 3",
        "--probe 0483:374b:066DFF --probe 0483:374b:0671FF",
        "probe-rs list",
    ] {
        assert!(help.contains(words), "`{words}` missing from:\n{help}");
    }
}

/// No board is attached to the machines that run these tests: the probe
/// path's errors, each before anything is flashed.
#[test]
fn probe_selection_errors_are_clear() {
    let output = bench(&["hil", "--board", "stm32", "--probe", "0483"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("VID:PID"), "{}", text(&output));
    let farm = ["hil", "--board", "stm32", "--probe", "0483:374b:A", "--probe", "0483:374b:B"];
    let output = bench(&farm);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    assert!(text(&output).contains("no debug probe matches --probe 0483:374b:A"), "{}", text(&output));
    assert!(!text(&output).contains("not implemented"), "a farm is accepted: {}", text(&output));
    let output = bench(&["hil", "--board", "qemu", "--probe", "0483:374b"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
}

#[test]
fn a_missing_reference_image_says_how_to_build_it() {
    let empty = temp_dir("no-image");
    let output = bench_in(&["hil"], &[("CARGO_TARGET_DIR", &empty), ("BENCH_CACHE_DIR", &empty)]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    assert!(text(&output).contains("scripts/build-firmware normal"), "{}", text(&output));
}

#[test]
fn a_missing_emulator_says_how_to_install_it_and_leaves_an_incomplete_report() {
    let dir = temp_dir("no-qemu");
    // A real image: --firmware is checked before the emulator is looked for.
    let elf = images().join("normal.elf");
    let out = dir.join("report");
    let no_tools = dir.join("bin");
    std::fs::create_dir_all(&no_tools).expect("mkdir");
    let args = ["hil", "--firmware", elf.to_str().expect("utf-8"), "--out", out.to_str().expect("utf-8")];
    let output = bench_in(&args, &[("PATH", &no_tools)]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    assert!(text(&output).contains("apt-get install qemu-system-arm"), "{}", text(&output));
    // The default is the release suite; it stops at its first scenario.
    let out = out.join("1-fischer");
    let report = report(&out);
    assert_eq!(report["schema"], "bench.hil.report/1");
    assert_eq!(report["complete"], false);
    assert_eq!(report["verdict"], "fail");
    assert!(report["error"].as_str().is_some_and(|error| error.contains("qemu-system-arm")));
    assert!(std::fs::read_to_string(out.join("summary.md")).expect("summary").contains("**INCOMPLETE**"));
}

// ---- on the emulated board ----

fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

const IMAGES: [&str; 8] = [
    "normal",
    "defect-no-debounce",
    "defect-systick-off-by-one",
    "defect-lost-ticks",
    "defect-delay-as-bronstein",
    "defect-late-stage-switch",
    "defect-increment-before-flag-check",
    "defect-display-rounding-flag",
];

/// The folder holding every image of [`IMAGES`].
fn images() -> &'static Path {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        if let Some(dir) = std::env::var_os("BENCH_FIRMWARE_DIR") {
            return Ok(PathBuf::from(dir));
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let output = Command::new(root.join("scripts/build-firmware"))
            .args(IMAGES)
            .current_dir(root)
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .map_err(|error| format!("running scripts/build-firmware: {error}"))?;
        if !output.status.success() {
            return Err(format!("scripts/build-firmware failed:\n{}", String::from_utf8_lossy(&output.stderr)));
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let normal = stdout.lines().find(|line| line.ends_with("/normal.elf")).ok_or("no normal.elf printed")?;
        Path::new(normal).parent().map(Path::to_path_buf).ok_or_else(|| "no folder".to_string())
    });
    match dir {
        Ok(dir) => dir,
        Err(error) => panic!("{error}"),
    }
}

/// A short game: `control`, quick players, 6 moves each (about 15 s of
/// guest time); `slow` players (1–3 s a move) run out of time.
fn scenario(dir: &Path, name: &str, control: &str, slow: bool) -> PathBuf {
    let think = if slow { "min_ms = 1000, max_ms = 3000" } else { "min_ms = 300, max_ms = 2000" };
    let text = format!(
        "description = \"HIL test: {control}\"\ncontrol = \"{control}\"\ngames = 1\nseed = 4\n\n\
         [players]\nthink = {{ distribution = \"uniform\", {think} }}\n\n[board]\nends_per_move = 0\nmax_moves = 6\n"
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("write the scenario");
    path
}

/// Runs `bench hil` on `image` with `scenario`; returns the exit code, the
/// output and the report.
fn hil(image: &str, scenario: &str, out: &Path, more: &[&str]) -> (Option<i32>, String, serde_json::Value) {
    hil_in(image, scenario, out, more, &[])
}

/// [`hil`] with `env` set.
fn hil_in(
    image: &str,
    scenario: &str,
    out: &Path,
    more: &[&str],
    env: &[(&str, &Path)],
) -> (Option<i32>, String, serde_json::Value) {
    let elf = images().join(format!("{image}.elf"));
    let mut args = vec!["hil", "--board", "qemu", "--scenario", scenario, "--firmware"];
    let elf = elf.to_str().expect("utf-8").to_string();
    args.push(&elf);
    let out_text = out.to_str().expect("utf-8").to_string();
    args.extend(["--out", &out_text]);
    args.extend(more);
    let output = bench_in(&args, env);
    (output.status.code(), text(&output), report(out))
}

/// `bench hil --replay FILE` on `image`, its report into `out`.
fn hil_replay(file: &str, image: &str, out: &Path) -> std::process::Output {
    let elf = images().join(format!("{image}.elf"));
    bench(&["hil", "--replay", file, "--firmware", elf.to_str().expect("utf-8"), "--out", out.to_str().expect("utf-8")])
}

/// `bench hil` gates its report through the same function as `bench sim`
/// and `bench report merge`: what it printed must end with what `bench
/// gate` says of that report (the rules it skips left out), and its exit
/// code must be the gate's.
fn assert_gated_like_bench_gate(code: Option<i32>, output: &str, report_dir: &Path) {
    let gate = bench(&["gate", report_dir.to_str().expect("utf-8")]);
    assert_eq!(code, gate.status.code(), "{output}\n---\n{}", text(&gate));
    // Columns are padded to the rules shown, so spacing is not compared.
    let words = |text: &str| -> Vec<String> {
        text.lines().map(|line| line.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
    };
    let expected: Vec<String> =
        words(&String::from_utf8_lossy(&gate.stdout)).into_iter().filter(|line| !line.starts_with("skip ")).collect();
    assert!(expected.iter().any(|line| line.starts_with("gate: ")), "{}", text(&gate));
    let shown = words(output);
    assert!(
        shown.windows(expected.len()).any(|window| window == expected.as_slice()),
        "`bench hil`'s gate differs from `bench gate`'s:\n{output}\n---\n{}",
        expected.join("\n")
    );
}

#[test]
fn the_reference_firmware_passes_fischer_delay_multi_stage_and_overtime_games() {
    let _serial = serial();
    let dir = temp_dir("normal");
    let mut bounced_in_all = 0;
    // With no main time, overtime begins as each display first starts.
    for (name, control, slow) in [
        ("fischer", "30+1", false),
        ("delay", "30+d2", false),
        ("stages", "3/20:20", false),
        ("flag", "3+1", true),
        ("byo-yomi-only", "0(3x2)", false),
        ("canadian-only", "0(2/5)", false),
    ] {
        let file = scenario(&dir, name, control, slow);
        let (code, output, report) = hil("normal", file.to_str().expect("utf-8"), &dir.join(name), &[]);
        assert_eq!(code, Some(0), "{control}: {output}");
        assert_eq!(report["mismatches"]["total"], 0, "{control}");
        assert_eq!(report["complete"], true);
        let game = &report["games_detail"][0];
        assert_eq!(game["presses_registered"], game["presses_scheduled"], "{control}");
        // Every bounce edge but those of a button's last press is reported
        // by the next press of that button.
        let bounced = game["bounce_edges_sent"].as_u64().expect("a count");
        let reported = game["bounces_reported"].as_u64().expect("a count");
        assert!(reported <= bounced, "{control}: {bounced} sent, {reported} reported");
        bounced_in_all += bounced;
        assert!(report["drift"]["within_tolerance"] == true, "{control}: {}", report["drift"]);
        for file in ["report.json", "summary.md", "run.json", "drift.svg", "drift.png"] {
            assert!(dir.join(name).join(file).is_file(), "{file}");
        }
    }
    assert!(bounced_in_all > 0, "some presses bounced (1 in 4 by default)");
}

/// A game over before the first move (White forfeits at once under the
/// 2023 rules, 6.7) lasts half a second of guest time: bench listens on
/// until the firmware has sent enough TimeBase records to measure the
/// drift, instead of failing the run with "not measured".
#[test]
fn a_game_over_before_the_first_move_still_measures_the_drift() {
    let _serial = serial();
    let dir = temp_dir("forfeit");
    let file = dir.join("forfeit.toml");
    let text = "description = \"HIL test: White forfeits\"\ncontrol = \"300+2\"\nrules = \"fide-2023\"\n\
                games = 1\nseed = 2\n[white]\narrival_ms = 10000\n";
    std::fs::write(&file, text).expect("write the scenario");
    let (code, output, report) = hil("normal", file.to_str().expect("utf-8"), &dir.join("report"), &[]);
    assert_eq!(code, Some(0), "{output}");
    // What plays is said on stderr before the run, not only in the summary after it.
    assert!(output.contains("bench hil forfeit  seed 2  games 0..1  on qemu, firmware "), "{output}");
    assert_eq!(report["games_detail"][0]["presses_scheduled"], 0, "{output}");
    assert_eq!(report["drift"]["measured"], true, "{}", report["drift"]);
}

#[test]
fn without_bounce_the_no_debounce_build_passes_unnoticed() {
    // Why bounce is on by default: clean presses cannot tell a missing
    // debounce from a working one.
    let _serial = serial();
    let dir = temp_dir("no-bounce");
    let file = scenario(&dir, "fischer", "30+1", false);
    let (code, output, report) =
        hil("defect-no-debounce", file.to_str().expect("utf-8"), &dir.join("report"), &["--no-bounce"]);
    assert_eq!(code, Some(0), "{output}");
    assert_eq!(report["games_detail"][0]["bounce_edges_sent"], 0);
}

/// `bench hil --shard` on the emulator. One shard of one merges into the
/// unsharded run's report, every file byte for byte: the merge rebuilds a
/// report exactly. Two shards merge into the report of two emulators, one
/// boot each: every game's entry is its shard's, game 0 (on a fresh boot
/// either way) is the unsharded run's, and the command is the unsharded
/// run's. The second shard finds itself in `BENCH_SHARD` (`--shard auto`).
#[test]
fn hil_shards_merge_into_the_report_of_their_boards() {
    let _serial = serial();
    let dir = temp_dir("shards");
    let file = dir.join("short.toml");
    let text_of_scenario = "description = \"HIL test: shards\"\ncontrol = \"10+1\"\ngames = 2\nseed = 5\n\
                            [players]\nthink = { distribution = \"uniform\", min_ms = 300, max_ms = 900 }\n\
                            [board]\nends_per_move = 0\nmax_moves = 3\n";
    std::fs::write(&file, text_of_scenario).expect("write the scenario");
    let file = file.to_str().expect("utf-8");
    let run_in = |out: &str, more: &[&str], env: &[(&str, &Path)]| {
        let (code, output, report) = hil_in("normal", file, &dir.join(out), &[&["--games", "2"], more].concat(), env);
        assert_eq!(code, Some(0), "{out}: {output}");
        report
    };
    let run = |out: &str, more: &[&str]| run_in(out, more, &[]);
    let merge = |out: &str, shards: &[&str]| {
        let mut args = vec!["report".to_string(), "merge".into(), "--out".into()];
        args.push(dir.join(out).display().to_string());
        args.extend(shards.iter().map(|shard| dir.join(shard).display().to_string()));
        let output = bench(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
        report(&dir.join(out))
    };
    let whole = run("whole", &[]);
    let one = run("one", &["--shard", "1/1"]);
    assert_eq!(one["shard"]["count"], 1);
    merge("merged-one", &["one"]);
    for name in ["report.json", "index.html", "summary.md", "junit.xml", "drift.svg", "drift.png", "latency.svg"] {
        let (a, b) = (dir.join("whole").join(name), dir.join("merged-one").join(name));
        assert!(std::fs::read(&a).ok() == std::fs::read(&b).ok(), "{name} differs from the unsharded run's");
    }
    let first = run("first", &["--shard", "1/2"]);
    // As a scheduler's task would: the shard from the environment.
    let second = run_in("second", &["--shard", "auto"], &[("BENCH_SHARD", Path::new("2/2"))]);
    assert_eq!(second["games_detail"][0]["game"], 1);
    assert!(second["command"].as_str().is_some_and(|command| command.ends_with(" --shard 2/2")));
    let merged = merge("merged-two", &["second", "first"]);
    assert_eq!(merged["command"], whole["command"]);
    assert_eq!(merged["games_detail"][0], whole["games_detail"][0]);
    assert_eq!(merged["games_detail"][0], first["games_detail"][0]);
    assert_eq!(merged["games_detail"][1], second["games_detail"][0]);
    assert_eq!(merged["games"]["passed"], 2);
    assert_eq!(merged["boards"].as_array().map(Vec::len), Some(2));
    assert_eq!(merged["boards"][1]["games"], serde_json::json!([1]));
    assert!(merged["shard"].is_null());
}

/// QEMU started by hand with its gdbstub on a free port, the image loaded
/// and the core held at reset (`-S`): a GDB server standing in for
/// OpenOCD or J-Link's. Killed on drop.
struct GdbStub {
    child: std::process::Child,
    port: u16,
}

impl GdbStub {
    /// Waits until the stub listens, however slow the host: a test whose
    /// outcome depends on host speed is a bug. A port taken between
    /// choosing and binding it is chosen again; any other exit fails with
    /// what QEMU said.
    fn start(image: &str, dir: &Path) -> GdbStub {
        let elf = images().join(format!("{image}.elf"));
        let said = dir.join(format!("{image}-qemu-stderr.txt"));
        for _attempt in 0..5 {
            let port = free_port();
            let stderr = std::fs::File::create(&said).expect("QEMU's stderr file");
            let mut child = Command::new("qemu-system-arm")
                .args(["-cpu", "cortex-m3", "-machine", "lm3s6965evb", "-nographic", "-monitor", "none"])
                .args(["-serial", "none", "-icount", "shift=7,sleep=off", "-S", "-kernel"])
                .arg(&elf)
                .args(["-gdb", &format!("tcp:127.0.0.1:{port}")])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(stderr)
                .spawn()
                .expect("qemu-system-arm starts");
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
            loop {
                if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return GdbStub { child, port };
                }
                if let Ok(Some(status)) = child.try_wait() {
                    let text = std::fs::read_to_string(&said).unwrap_or_default();
                    assert!(text.contains("Address already in use"), "QEMU exited ({status}): {text}");
                    break;
                }
                assert!(std::time::Instant::now() < deadline, "QEMU's gdbstub never listened on port {port}");
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        panic!("no free port for QEMU's gdbstub in five attempts");
    }

    fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Drop for GdbStub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on (given back by the system a moment ago).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("an address").port()
}

/// `bench hil --gdb` drives a board through a GDB server: here QEMU's
/// gdbstub, which loads the image itself (`--no-flash`). RTT, commands,
/// records and halts all go through the stub; the game needs no press (a
/// forfeit), since the emulated board has no wiring to press through. The
/// verdicts are the built-in QEMU backend's: the reference passes, the
/// SysTick defect fails on its drift. With no server there: exit 3 and
/// how to start one.
#[test]
fn a_board_behind_a_gdb_server_gets_the_built_in_backends_verdict() {
    let _serial = serial();
    let dir = temp_dir("gdb-server");
    let file = dir.join("forfeit.toml");
    let text_of_scenario = "description = \"HIL test: White forfeits\"\ncontrol = \"300+2\"\nrules = \"fide-2023\"\n\
                            games = 1\nseed = 2\n[white]\narrival_ms = 10000\n";
    std::fs::write(&file, text_of_scenario).expect("write the scenario");
    let file = file.to_str().expect("utf-8");
    for (image, exit) in [("normal", 0), ("defect-systick-off-by-one", 1)] {
        let stub = GdbStub::start(image, &dir);
        let address = stub.address();
        let out = dir.join(format!("{image}-gdb"));
        let (code, output, report) = hil(image, file, &out, &["--gdb", &address, "--no-flash"]);
        assert_eq!(code, Some(exit), "{image}: {output}");
        let (builtin_code, builtin_output, builtin) = hil(image, file, &dir.join(image), &[]);
        assert_eq!(code, builtin_code, "{image}: {builtin_output}");
        assert_eq!(report["verdict"], builtin["verdict"], "{image}");
        for check in 0..4 {
            let name = &report["checks"][check]["name"];
            assert_eq!(name, &builtin["checks"][check]["name"], "{image}");
            assert_eq!(report["checks"][check]["passed"], builtin["checks"][check]["passed"], "{image}: {name}");
        }
        assert!(report["board"]["description"].as_str().is_some_and(|text| text.contains(&address)));
    }
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let (code, output, report) = hil("normal", file, &dir.join("absent"), &["--gdb", &address, "--no-flash"]);
    assert_eq!(code, Some(3), "{output}");
    // On the emulated board, what to start is QEMU with its gdbstub.
    assert!(output.contains(&format!("GDB server at {address}")) && output.contains("qemu-system-arm"), "{output}");
    assert_eq!(report["complete"], false);
}

#[test]
fn the_reference_firmware_passes_both_flags() {
    let _serial = serial();
    let out = temp_dir("both-flags");
    let (code, output, report) = hil("normal", "both-flags", &out, &[]);
    assert_eq!(code, Some(0), "{output}");
    assert_gated_like_bench_gate(code, &output, &out);
    // The scenario's arbiter cannot tell which flag fell first; the
    // reference firmware's displays can, and it says so. The games are the
    // scenario's all the same, ruled as `bench sim` rules them (6.12), in
    // the schedule and in the comparison alike: one ruling per game.
    assert_eq!(report["firmware"]["capabilities"]["shows_flag_order"], true, "{}", report["firmware"]);
    let game = &report["games_detail"][0];
    let flags = game["model"]["flags"].as_array().expect("flags");
    for side in ["White", "Black"] {
        assert!(flags.iter().any(|flag| flag["side"] == side), "{side}'s flag fell: {game}");
    }
    assert_eq!(game["firmware"]["flags"], game["model"]["flags"]);
    assert_eq!(game["firmware"]["result"], game["model"]["result"]);
    let result = game["model"]["result"].as_str().expect("a ruling");
    let end = game["schedule_end"].as_str().expect("how the game ended");
    assert!(result.contains("6.12") && end.contains("6.12"), "ruled as the scenario says: {end}; {result}");
    assert!(!output.contains("the clock's ruling"), "one winner per game:\n{output}");
}

#[test]
fn every_rule_defect_fails_naming_the_mismatch() {
    let _serial = serial();
    let dir = temp_dir("rule-defects");
    let cases = [
        ("defect-delay-as-bronstein", "30+d2", false, "snapshot.delay_us"),
        ("defect-late-stage-switch", "3/20:20", false, "period_change.moves"),
        ("defect-increment-before-flag-check", "3+1", true, "snapshot.flag.black"),
        ("defect-display-rounding-flag", "3+1", true, "snapshot.flag.black"),
        // Contact bounce inside the 20 ms window registered as presses.
        ("defect-no-debounce", "30+1", false, "press.bounce"),
    ];
    for (image, control, slow, quantity) in cases {
        let file = scenario(&dir, image, control, slow);
        let (code, output, report) = hil(image, file.to_str().expect("utf-8"), &dir.join(image), &[]);
        assert_eq!(code, Some(1), "{image}: {output}");
        assert!(output.contains(quantity), "{image}: the message names {quantity}:\n{output}");
        assert!(report["mismatches"]["by_quantity"][quantity].as_u64().is_some_and(|count| count > 0), "{image}");
        assert_eq!(report["complete"], true, "{image}");
    }
}

/// `--shrink` on a failing game: the replay file it writes, and the shrunk
/// game played from it once more, which fails with the original's first
/// mismatch; `--replay` of that file gives the same report again. A small
/// budget keeps the test short: the case still fails, and says it may not
/// be minimal.
#[test]
fn shrink_writes_a_replay_file_whose_game_fails_with_the_first_mismatch() {
    let _serial = serial();
    let dir = temp_dir("hil-shrink");
    let file = scenario(&dir, "late-stage", "3/20:20", false);
    let out = dir.join("shrink");
    let (code, output, run) =
        hil("defect-late-stage-switch", file.to_str().expect("utf-8"), &out, &["--shrink", "--shrink-budget", "3"]);
    assert_eq!(code, Some(1), "{output}");
    assert_eq!(run["verdict"], "fail", "the run itself is reported first");
    assert!(output.contains("in 3 runs of the emulator") && output.contains("reproduce it"), "{output}");
    assert!(output.contains("may not be minimal"), "a spent budget says so: {output}");
    let replay = output.lines().find_map(|line| line.strip_prefix("replay file: ")).expect("a replay file");
    assert!(std::fs::read_to_string(replay).expect("written").contains("format = \"bench-replay\""));
    // On two emulators at once: more runs played, the same case.
    let two = dir.join("shrink-two");
    let (code, two_output, _) = hil(
        "defect-late-stage-switch",
        file.to_str().expect("utf-8"),
        &two,
        &["--shrink", "--shrink-budget", "3", "--jobs", "2"],
    );
    assert_eq!(code, Some(1), "{two_output}");
    assert!(
        two_output.contains("in 3 runs of the emulator (") && two_output.contains("on 2 emulators"),
        "{two_output}"
    );
    let two_replay = two_output.lines().find_map(|line| line.strip_prefix("replay file: ")).expect("a replay file");
    assert_eq!(
        std::fs::read(two_replay).expect("written"),
        std::fs::read(replay).expect("written"),
        "--jobs 2 shrinks to --jobs 1's replay file"
    );
    let shrunk = report(&out.join("shrunk-game-0"));
    assert_eq!(shrunk["verdict"], "fail", "{output}");
    let first = |report: &serde_json::Value| report["games_detail"][0]["mismatches"][0]["quantity"].clone();
    assert!(first(&run).is_string(), "the run has a first mismatch: {}", run["games_detail"]);
    assert_eq!(first(&shrunk), first(&run), "the same first mismatch");
    let presses = |report: &serde_json::Value| report["games_detail"][0]["presses_scheduled"].as_u64();
    assert!(presses(&shrunk) < presses(&run), "fewer presses: {:?} of {:?}", presses(&shrunk), presses(&run));

    // The run's report links its failing game's replay file, which fails
    // the same way when played again.
    assert_eq!(run["games_detail"][0]["replay_file"], "replays/game-0.replay.toml");
    let linked = out.join("replays/game-0.replay.toml");
    let relinked = dir.join("relinked");
    let played = hil_replay(linked.to_str().expect("utf-8"), "defect-late-stage-switch", &relinked);
    assert_eq!(played.status.code(), Some(1), "{}", text(&played));
    assert_eq!(first(&report(&relinked)), first(&run), "the linked file fails with the run's first mismatch");

    let again = dir.join("again");
    let replayed = hil_replay(replay, "defect-late-stage-switch", &again);
    assert_eq!(replayed.status.code(), Some(1), "{}", text(&replayed));
    let same = |dir: &Path| std::fs::read(dir.join("report.json")).expect("report.json");
    let mut shrunk_bytes = String::from_utf8(same(&out.join("shrunk-game-0"))).expect("utf-8");
    let mut again_bytes = String::from_utf8(same(&again)).expect("utf-8");
    // The two name their own report folders; nothing else may differ.
    for (text, folder) in [(&mut shrunk_bytes, out.join("shrunk-game-0")), (&mut again_bytes, again.clone())] {
        *text = text.replace(folder.to_str().expect("utf-8"), "FOLDER");
    }
    assert_eq!(shrunk_bytes, again_bytes, "--replay of the file is the shrunk game");

    // The file plays in the simulator too (its device has no defect here).
    let simulated = bench(&["sim", "--replay", replay]);
    assert_eq!(simulated.status.code(), Some(0), "{}", text(&simulated));
    // And a file `bench sim --shrink` wrote plays on the board: the
    // simulator's missed press is its device's fault, not the firmware's,
    // so the reference firmware passes it.
    let missing_presses = dir.join("missed.toml");
    std::fs::write(
        &missing_presses,
        "description = \"missed presses\"\ncontrol = \"20+1\"\ngames = 4\nseed = 5\n[players]\n\
         think = { distribution = \"uniform\", min_ms = 500, max_ms = 2500 }\n[device]\nmissed_press = \"1/10\"\n\
         [expect]\ntime_error_max_us = 0\nagreement_min_percent = 0\n",
    )
    .expect("write");
    let sim_out = dir.join("sim");
    let sim = bench(&[
        "sim",
        "--scenario",
        missing_presses.to_str().expect("utf-8"),
        // Game 1, not 0: a replay keeps its game's number in the report.
        "--game",
        "1",
        "--shrink",
        "--out",
        sim_out.to_str().expect("utf-8"),
    ]);
    let sim_text = text(&sim);
    let sim_file = sim_text.lines().find_map(|line| line.strip_prefix("replay file: ")).expect("written");
    let on_board = dir.join("on-board");
    let played = hil_replay(sim_file, "normal", &on_board);
    assert_eq!(played.status.code(), Some(0), "{}", text(&played));
    assert_eq!(report(&on_board)["games"]["played"], 1, "{}", text(&played));
}

/// A firmware clock that runs slow fails on accounting drift, read to the
/// ppm. The comparison replays the firmware's own stamps, so nothing else
/// differs but the stamps themselves: bench knows guest time from the
/// machine, so each press is stamped further before the edge bench made
/// as the firmware's clock falls behind (`press.stamp`, and nothing else).
#[test]
fn time_base_defects_fail_on_drift_and_the_systick_one_reads_minus_80_ppm() {
    let _serial = serial();
    let dir = temp_dir("time-defects");
    let file = scenario(&dir, "fischer", "30+1", false);
    for (image, expected_ppm) in [("defect-systick-off-by-one", -1e6 / 12_501.0), ("defect-lost-ticks", -2000.0)] {
        let (code, output, report) = hil(image, file.to_str().expect("utf-8"), &dir.join(image), &[]);
        assert_eq!(code, Some(1), "{image}: {output}");
        assert!(output.contains("FAIL  accounting drift"), "{image}: {output}");
        assert_gated_like_bench_gate(code, &output, &dir.join(image));
        let kinds = report["mismatches"]["by_quantity"].as_object().expect("counts by kind");
        assert!(kinds.keys().all(|kind| kind == "press.stamp"), "{image}: only the stamps differ: {kinds:?}");
        let first = &report["games_detail"][0]["first_of_each"];
        assert!(
            first.as_array().is_none_or(|firsts| firsts
                .iter()
                .all(|m| m["firmware"].as_str().is_some_and(|text| text.contains("before the edge")))),
            "{image}: a slow clock stamps its presses early: {first}"
        );
        let ppm = report["drift"]["ppm"].as_f64().expect("measured");
        assert!((ppm - expected_ppm).abs() < 0.5, "{image}: {ppm} ppm, expected {expected_ppm}");
    }
}

/// A `bench hil` run of one long game (about 3 min of guest time, long
/// enough to be interrupted in the middle at any emulator speed), and the
/// PID of its emulator once that has run for a few seconds.
fn start_long_run(dir: &Path, out: &Path) -> (std::process::Child, String, std::time::Instant) {
    let file = scenario(dir, "long", "300+2", true);
    let long_game = std::fs::read_to_string(&file).expect("the scenario").replace("max_moves = 6", "max_moves = 60");
    std::fs::write(&file, long_game).expect("write the scenario");
    let elf = images().join("normal.elf");
    let child = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["hil", "--scenario", file.to_str().expect("utf-8"), "--firmware", elf.to_str().expect("utf-8")])
        .args(["--out", out.to_str().expect("utf-8")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bench starts");
    // bench's own child is its QEMU.
    let children = format!("/proc/{0}/task/{0}/children", child.id());
    let started = std::time::Instant::now();
    let qemu = loop {
        let pids = std::fs::read_to_string(&children).unwrap_or_default();
        if let Some(pid) = pids.split_whitespace().next() {
            break pid.to_string();
        }
        assert!(started.elapsed().as_secs() < 20, "bench started no emulator");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // Into the game, whatever the host's load: QEMU has run 2 s of its own
    // CPU time (guest time moves with QEMU's work in lockstep, not with the
    // host's clock), so presses were made and registered.
    while qemu_cpu_s(&qemu) < 2.0 {
        assert!(started.elapsed().as_secs() < 600, "QEMU {qemu} did not run");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    (child, qemu, std::time::Instant::now())
}

/// User and system CPU time process `pid` has used, seconds (0 once gone).
fn qemu_cpu_s(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's closing parenthesis; utime and stime are
    // the 14th and 15th of the whole line, in clock ticks.
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
    let ticks = |index: usize| fields.get(index).and_then(|field| field.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// Whether process `pid` has ended (gone, or a zombie) within 5 s.
fn gone_within_5_s(pid: &str) -> bool {
    let status = format!("/proc/{pid}/status");
    (0..100).any(|_| {
        let alive = std::fs::read_to_string(&status).is_ok_and(|status| !status.contains("State:\tZ"));
        if alive {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        !alive
    })
}

/// The emulator killed mid-game: the run ends at once with exit 3 and a
/// report marked incomplete that still holds what was seen.
#[test]
fn a_killed_emulator_ends_the_run_with_exit_3_and_an_incomplete_report() {
    let _serial = serial();
    let dir = temp_dir("killed");
    let out = dir.join("report");
    let (child, qemu, started) = start_long_run(&dir, &out);
    let killed = Command::new("kill").args(["-KILL", &qemu]).status().expect("kill runs");
    assert!(killed.success());
    let output = child.wait_with_output().expect("bench ends");
    // From the kill: a generous bound, so a loaded host cannot fail it.
    assert!(started.elapsed().as_secs() < 120, "the run ended soon after the emulator died");
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    let report = report(&out);
    assert_eq!(report["complete"], false);
    let error = report["games_detail"][0]["error"].as_str().expect("the game's error");
    assert!(error.contains("went away") || error.contains("QEMU"), "{error}");
    assert!(report["games_detail"][0]["presses_registered"].as_u64().is_some_and(|presses| presses > 0));
}

/// `bench hil` terminated (a cancelled CI job sends SIGTERM): the run ends
/// with exit 3 and an incomplete report, and its emulator does not outlive it.
#[test]
fn a_terminated_run_stops_its_emulator_and_leaves_an_incomplete_report() {
    let _serial = serial();
    let dir = temp_dir("terminated");
    let out = dir.join("report");
    let (child, qemu, started) = start_long_run(&dir, &out);
    let terminated = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(terminated.success());
    let output = child.wait_with_output().expect("bench ends");
    assert!(started.elapsed().as_secs() < 120, "the run ended soon after SIGTERM");
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    // The emulator is gone (reaped by bench, so no /proc entry remains).
    assert!(gone_within_5_s(&qemu), "QEMU {qemu} outlived a terminated bench hil");
    let report = report(&out);
    assert_eq!(report["complete"], false);
}

/// bench killed outright (SIGKILL: no handler runs, no Drop): its emulator
/// dies with it rather than spinning on as an orphan.
#[test]
fn a_killed_bench_takes_its_emulator_with_it() {
    let _serial = serial();
    let dir = temp_dir("killed-bench");
    let out = dir.join("report");
    let (mut child, qemu, _) = start_long_run(&dir, &out);
    child.kill().expect("SIGKILL bench");
    child.wait().expect("bench reaped");
    let gone = gone_within_5_s(&qemu);
    if !gone {
        let _ = Command::new("kill").args(["-KILL", &qemu]).status();
    }
    assert!(gone, "QEMU {qemu} outlived a killed bench hil");
}

/// Busy loops on every core for as long as it lives (child processes, as
/// other work on the machine would be); they are killed on drop.
struct BusyCores(Vec<std::process::Child>);

impl BusyCores {
    fn start() -> BusyCores {
        let cores = std::thread::available_parallelism().map_or(2, |cores| cores.get());
        let spin = || Command::new("sh").args(["-c", "while :; do :; done"]).spawn().expect("start a busy loop");
        BusyCores((0..=cores).map(|_| spin()).collect())
    }
}

impl Drop for BusyCores {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Lockstep: a run on the emulated board is a function of firmware,
/// scenario and seed alone. The same run with every core kept busy by
/// other processes writes the same report.json byte for byte, bounced
/// presses and a flag included (hil/LOCKSTEP.md).
#[test]
fn a_run_gives_the_same_report_whatever_the_host_load() {
    let _one = serial();
    let dir = temp_dir("lockstep");
    let scenario = scenario(&dir, "sudden", "20", false);
    let scenario = scenario.to_str().expect("utf-8");
    let run = |name: &str| {
        let out = dir.join(name);
        let records = dir.join(format!("{name}.jsonl"));
        let records_arg = records.to_str().expect("utf-8").to_string();
        let (code, output, _) =
            hil("normal", scenario, &out, &["--games", "2", "--seed", "7", "--records", &records_arg]);
        assert_eq!(code, Some(0), "{output}");
        let report = std::fs::read(out.join("report.json")).expect("report.json");
        (report, std::fs::read_to_string(records).expect("--records written"))
    };
    let (idle, idle_records) = run("idle");
    let (loaded, loaded_records) = {
        let _busy = BusyCores::start();
        run("loaded")
    };
    let report: serde_json::Value = serde_json::from_slice(&idle).expect("json");
    assert!(report["games_detail"].as_array().is_some_and(|games| games.len() == 2), "{report}");
    assert!(idle == loaded, "report.json differs between an idle and a loaded host");
    assert!(idle_records == loaded_records, "the records differ between an idle and a loaded host");
    // --records holds every record: as many Press records as presses registered.
    let lines: Vec<serde_json::Value> =
        idle_records.lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect();
    let presses = lines.iter().filter(|line| line["record"]["body"]["Press"].is_object()).count() as u64;
    let registered: u64 =
        (0..2).map(|game| report["games_detail"][game]["presses_registered"].as_u64().expect("a count")).sum();
    assert_eq!(presses, registered, "{}", lines.first().map(ToString::to_string).unwrap_or_default());
    assert!(lines.iter().all(|line| line["game"].is_u64() && line["record"]["seq"].is_u64()));
}

/// The lockstep plugin's stops change nothing the firmware does: stopping
/// at every tick as well (the hidden `--lockstep-every-tick`, tens of times
/// more stops) gives the same report and records byte for byte. The
/// gdbstub engine (`--lockstep gdbstub`), whose every stop moves guest time
/// on, still plays the same games, and its report's command names it.
#[test]
fn the_lockstep_plugin_s_stops_change_nothing_and_the_gdbstub_engine_still_plays() {
    let _one = serial();
    let dir = temp_dir("lockstep-stops");
    let scenario = scenario(&dir, "sudden", "20", false);
    let scenario = scenario.to_str().expect("utf-8");
    let run = |name: &str, more: &[&str]| {
        let out = dir.join(name);
        let records = dir.join(format!("{name}.jsonl"));
        let records_arg = records.to_str().expect("utf-8").to_string();
        let mut args = vec!["--games", "1", "--seed", "7", "--records", &records_arg];
        args.extend_from_slice(more);
        let (code, output, report) = hil("normal", scenario, &out, &args);
        assert_eq!(code, Some(0), "{output}");
        let stops =
            serde_json::from_slice::<serde_json::Value>(&std::fs::read(out.join("run.json")).expect("run.json"))
                .expect("json")["stops"]["tick_stops"]
                .as_u64()
                .expect("a tick stop count");
        let bytes = std::fs::read(out.join("report.json")).expect("report.json");
        (bytes, std::fs::read_to_string(records).expect("--records written"), stops, report)
    };
    let (plain, plain_records, plain_ticks, _) = run("plain", &[]);
    let (every, every_records, every_ticks, _) = run("every-tick", &["--lockstep-every-tick"]);
    assert!(every_ticks > 10 * plain_ticks.max(1), "{every_ticks} tick stops against {plain_ticks}");
    assert!(plain == every, "report.json differs when the plugin also stops at every tick");
    assert!(plain_records == every_records, "the records differ when the plugin also stops at every tick");
    let (_, _, _, gdbstub) = run("gdbstub", &["--lockstep", "gdbstub"]);
    let plain: serde_json::Value = serde_json::from_slice(&plain).expect("json");
    assert!(gdbstub["command"].as_str().is_some_and(|command| command.contains("--lockstep gdbstub")), "{gdbstub}");
    assert!(!plain["command"].as_str().expect("a command").contains("--lockstep"), "{plain}");
    for field in ["presses_scheduled", "presses_registered", "model"] {
        assert_eq!(gdbstub["games_detail"][0][field], plain["games_detail"][0][field], "{field}");
    }
}

/// `bench hil --suite release` (scenarios/release/): the reference firmware
/// passes every scenario, and every shipped defect image fails, each on
/// what its defect breaks, found in one of the suite's reports. The
/// reference runs with no --scenario: the suite is the default.
/// A suite played on several emulators at once (`--jobs`): its console
/// shows the scenarios in the suite's order, and two of its scenarios,
/// played again alone with the command their reports give, write the same
/// report files byte for byte (all but run.json, the run's facts): each is
/// its own run, whatever ran beside it.
fn each_scenario_reads_as_played_alone(suite: &[String], out: &Path, alone: &Path, output: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut names: Vec<&String> = suite.iter().collect();
    // The suite plays its files in the order of their paths.
    names.sort();
    let shown: Vec<usize> = names.iter().filter_map(|name| stdout.find(&format!("bench hil {name}  seed"))).collect();
    assert_eq!(shown.len(), names.len(), "every scenario shown:\n{stdout}");
    assert!(shown.windows(2).all(|pair| pair[0] < pair[1]), "in the suite's order:\n{stdout}");
    for name in names.iter().take(2) {
        let command = report(&out.join(name))["command"].as_str().expect("a command").to_string();
        let mut args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let folder = alone.join(name);
        let folder_text = folder.to_str().expect("utf-8").to_string();
        args.extend(["--out", &folder_text]);
        let again = bench(&args);
        assert_eq!(again.status.code(), Some(0), "{command}: {}", text(&again));
        let files = |dir: &Path| -> Vec<String> {
            let mut files: Vec<String> = std::fs::read_dir(dir)
                .expect("a report folder")
                .filter_map(|entry| Some(entry.ok()?.file_name().to_string_lossy().into_owned()))
                .filter(|file| file != "run.json")
                .collect();
            files.sort();
            files
        };
        assert_eq!(files(&out.join(name)), files(&folder), "{name}");
        for file in files(&folder) {
            let same = std::fs::read(out.join(name).join(&file)).ok() == std::fs::read(folder.join(&file)).ok();
            assert!(same, "{name}/{file} differs from the scenario played alone");
        }
    }
}

#[test]
fn the_release_suite_passes_the_reference_and_fails_every_defect_image() {
    let _serial = serial();
    let dir = temp_dir("suite");
    // (image, a mismatch quantity its reports must hold, a prefix ending in
    // `.` for either side's, or "drift").
    let cases = [
        ("normal", ""),
        ("defect-no-debounce", "press.bounce"),
        ("defect-systick-off-by-one", "drift"),
        ("defect-lost-ticks", "drift"),
        ("defect-delay-as-bronstein", "snapshot.delay_us"),
        ("defect-late-stage-switch", "period_change.moves"),
        // Its first failing scenario is 20-default-time, White's flag
        // (the increment credited though White never moved); 4-flag, where
        // Black's falls, comes later in the suite's order.
        ("defect-increment-before-flag-check", "snapshot.flag."),
        ("defect-display-rounding-flag", "snapshot.flag."),
    ];
    let suite: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/release"))
        .expect("scenarios/release")
        .filter_map(|entry| entry.ok()?.path().file_stem().map(|stem| stem.to_string_lossy().into_owned()))
        .collect();
    assert!(suite.len() >= 6, "{suite:?}");
    for (image, broken) in cases {
        let out = dir.join(image);
        let elf = images().join(format!("{image}.elf"));
        // A defect image stops at its first failing scenario (--fail-fast):
        // that it fails the suite is the claim, and the rest would only
        // repeat it at several minutes an image.
        // The reference image plays on two emulators at once (--jobs 2).
        let suite_option: &[&str] =
            if image == "normal" { &["--jobs", "2"] } else { &["--suite", "release", "--fail-fast"] };
        let args = ["hil", "--firmware", elf.to_str().expect("utf-8"), "--out", out.to_str().expect("utf-8")];
        let output = bench(&[&args[..], suite_option].concat());
        let played: Vec<&String> =
            suite.iter().filter(|name| image == "normal" || out.join(name).join("report.json").is_file()).collect();
        let reports: Vec<serde_json::Value> = played.iter().map(|name| report(&out.join(name))).collect();
        assert!(!reports.is_empty(), "{image}: no scenario played:\n{}", text(&output));
        assert!(reports.iter().all(|report| report["complete"] == true), "{image}: {}", text(&output));
        // Each scenario names the rules it is in the suite for, and judges them.
        for report in &reports {
            let checks = report["checks"].as_array().expect("checks");
            let exercised = checks.iter().find(|check| check["name"] == "rules the scenario exists for exercised");
            assert!(exercised.is_some(), "{image}: {}: no coverage check", report["scenario"]["name"]);
        }
        if broken.is_empty() {
            assert_eq!(output.status.code(), Some(0), "{image}: {}", text(&output));
            each_scenario_reads_as_played_alone(&suite, &out, &dir.join("alone"), &output);
            continue;
        }
        assert_eq!(output.status.code(), Some(1), "{image}: {}", text(&output));
        // --fail-fast: the last scenario played is the one failure; the rest say they were not played.
        let failed = reports.iter().filter(|report| report["verdict"] == "fail").count();
        assert_eq!(failed, 1, "{image}: --fail-fast played on past a failure:\n{}", text(&output));
        for name in suite.iter().filter(|name| !played.contains(name)) {
            let note = std::fs::read_to_string(out.join(name).join("skipped.md")).unwrap_or_default();
            assert!(note.contains("--fail-fast"), "{image}: {name} neither played nor said so: {note}");
        }
        let found = reports.iter().any(|report| {
            if broken == "drift" {
                report["drift"]["within_tolerance"] == false
            } else {
                let counts = report["mismatches"]["by_quantity"].as_object().cloned().unwrap_or_default();
                counts.iter().any(|(quantity, count)| {
                    let named = quantity == broken || (broken.ends_with('.') && quantity.starts_with(broken));
                    named && count.as_u64().is_some_and(|count| count > 0)
                })
            }
        });
        assert!(found, "{image}: no report of the suite names {broken}:\n{}", text(&output));
    }
}

/// A report folder holding another run's report (here `bench sim`'s) is
/// refused before the emulator starts, naming --out and --force; for the
/// release suite, every scenario's folder is checked before the first
/// scenario plays, so a refusal never leaves the suite half replaced.
#[test]
fn another_runs_report_folder_is_refused_before_the_board_starts() {
    let dir = temp_dir("another-run");
    let elf = images().join("normal.elf");
    let elf = elf.to_str().expect("utf-8");
    let sim_into = |out: &Path| {
        let output = bench(&["sim", "--scenario", "both-flags", "--games", "2", "--out", out.to_str().expect("utf-8")]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
        std::fs::read(out.join("report.json")).expect("the sim report")
    };
    let out = dir.join("report");
    let before = sim_into(&out);
    let output = bench(&["hil", "--scenario", "both-flags", "--firmware", elf, "--out", out.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("holds the report of another run (`bench sim --scenario both-flags"),
        "{}",
        text(&output)
    );
    assert!(text(&output).contains("--force") && output.stdout.is_empty(), "{}", text(&output));
    assert!(std::fs::read(out.join("report.json")).expect("kept") == before, "the sim report is kept");

    let base = dir.join("suite");
    let mut names: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/release"))
        .expect("scenarios/release")
        .filter_map(|entry| entry.ok()?.path().file_stem().map(|stem| stem.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    let last = names.last().expect("a release scenario");
    sim_into(&base.join(last));
    let output = bench(&["hil", "--firmware", elf, "--out", base.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains(&format!("{} holds the report of another run", base.join(last).display())));
    let made: Vec<_> = std::fs::read_dir(&base).expect("the suite's folder").filter_map(Result::ok).collect();
    assert_eq!(made.len(), 1, "no scenario played before the refusal: {made:?}");
}

/// The `bench hil --help` example's image is where `scripts/build-firmware`
/// puts images by default (`~/.cache/bench/target/firmware`), and is one it
/// builds.
#[test]
fn the_help_examples_image_is_where_scripts_build_firmware_puts_it() {
    let help = text(&bench(&["hil", "--help"]));
    let example = help
        .lines()
        .find_map(|line| line.trim().strip_prefix("bench hil --firmware "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("an example with --firmware");
    let image = Path::new(example);
    assert_eq!(image.parent(), Some(Path::new("~/.cache/bench/target/firmware")), "{example}");
    let name = image.file_name().expect("a file name");
    assert!(images().join(name).is_file(), "scripts/build-firmware builds no {}", name.to_string_lossy());
}
