//! `bench hil --observe MAP.toml` as a user runs it: what it refuses
//! before anything runs (exit 2), and the uninstrumented reference clock
//! (`scripts/build-firmware observed`, no contract code) passing on QEMU
//! through `firmware/observed.toml`, its report saying how it was read.
//! Never skipped: `scripts/check` installs QEMU and the toolchain.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;
use support::{bench, temp_dir, text};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `scripts/build-firmware observed` (seconds when nothing changed).
fn observed_image() -> PathBuf {
    image("observed")
}

/// `scripts/build-firmware NAME`: `observed`, or `observed-defect-…`.
fn image(name: &str) -> PathBuf {
    let output = Command::new(root().join("scripts/build-firmware"))
        .arg(name)
        .current_dir(root())
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("scripts/build-firmware runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    PathBuf::from(String::from_utf8_lossy(&output.stdout).lines().last().expect("the image's path"))
}

#[test]
fn observe_refuses_what_it_cannot_play_before_anything_runs() {
    let elf = observed_image();
    let elf = elf.to_str().expect("utf-8");
    let dir = temp_dir("observe-usage");
    let bad_map = dir.join("bad.toml");
    let map_text = std::fs::read_to_string(root().join("firmware/observed.toml")).expect("the map");
    std::fs::write(&bad_map, map_text.replace("poll_interval_ms = 10", "poll_interval_ms = 0")).expect("write");
    let bad_map = bad_map.to_str().expect("utf-8");
    let map = "firmware/observed.toml";
    let flag = "scenarios/observed-flag.toml";
    for (args, says) in [
        (vec!["hil", "--observe", map, "--firmware", elf], "give --scenario"),
        (vec!["hil", "--observe", map, "--firmware", elf, "--scenario", "blitz-3-2"], "plays 5+1 from boot"),
        (vec!["hil", "--observe", map, "--firmware", elf, "--scenario", flag, "--games", "2"], "one game per boot"),
        (vec!["hil", "--observe", bad_map, "--firmware", elf, "--scenario", flag], "poll_interval_ms"),
        (vec!["hil", "--observe", "no-such-map.toml", "--firmware", elf, "--scenario", flag], "cannot read it"),
        (vec!["hil", "--observe", map, "--firmware", elf, "--scenario", flag, "--board", "stm32"], "qemu"),
        (vec!["hil", "--observe", map, "--firmware", elf, "--scenario", flag, "--icount", "none"], "lockstep"),
    ] {
        let output = bench(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", text(&output));
        assert!(text(&output).contains(says), "{args:?} should say {says:?}: {}", text(&output));
        assert!(!dir.join("report.json").exists());
    }
    // Mistakes in the map, found against the image before anything runs,
    // not blamed on the firmware: fields on one another's bytes (a turn
    // on White's display, an i64 running into Black's), a symbol with no
    // size, an address the board has no RAM at.
    let overlapping = [
        (map_text.replace("offset = 8", "offset = 0"), "turn (bytes 0..1 of `CLOCK_STATE`) overlaps remaining.white"),
        (
            map_text.replacen("type = \"u32\"", "type = \"i64\"", 1),
            "remaining.black (bytes 4..8 of `CLOCK_STATE`) overlaps remaining.white (bytes 0..8",
        ),
        (
            map_text.replacen("symbol = \"CLOCK_STATE\"", "symbol = \"_stack_start\"", 1),
            "remaining.white: `_stack_start` has no size in the image",
        ),
    ];
    for (index, (wrong, says)) in overlapping.into_iter().enumerate() {
        let wrong_map = dir.join(format!("wrong-{index}.toml"));
        std::fs::write(&wrong_map, wrong).expect("write");
        let args = ["hil", "--observe", wrong_map.to_str().expect("utf-8"), "--firmware", elf, "--scenario", flag];
        let output = bench(&args);
        assert_eq!(output.status.code(), Some(2), "{says}: {}", text(&output));
        assert!(text(&output).contains(says), "should say {says:?}: {}", text(&output));
    }
    // A corrupt image: refused before QEMU starts.
    let mut bytes = std::fs::read(elf).expect("the observed image");
    bytes[44..46].copy_from_slice(&0xFFFFu16.to_le_bytes());
    let corrupt = dir.join("corrupt.elf");
    std::fs::write(&corrupt, bytes).expect("write");
    let output = bench(&["hil", "--observe", map, "--firmware", corrupt.to_str().expect("utf-8"), "--scenario", flag]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("has e_phnum = 0xffff (PN_XNUM"), "{}", text(&output));
    // The contract image has no CLOCK_STATE: the map does not fit it.
    let normal = elf.replace("observed.elf", "normal.elf");
    if Path::new(&normal).is_file() {
        let output = bench(&["hil", "--observe", map, "--firmware", &normal, "--scenario", flag]);
        assert_eq!(output.status.code(), Some(2), "{}", text(&output));
        assert!(text(&output).contains("no symbol `CLOCK_STATE`"), "{}", text(&output));
    }
}

/// `bench hil --observe firmware/observed.toml` on `elf` with the observed
/// scenario: the exit code, the output and the report.
fn observe(elf: &Path, name: &str) -> (Option<i32>, String, serde_json::Value) {
    observe_with(elf, name, &[])
}

fn observe_with(elf: &Path, name: &str, more: &[&str]) -> (Option<i32>, String, serde_json::Value) {
    let out = temp_dir(name).join("report");
    let mut args = vec![
        "hil",
        "--observe",
        "firmware/observed.toml",
        "--firmware",
        elf.to_str().expect("utf-8"),
        "--scenario",
        "scenarios/observed-flag.toml",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(more);
    let output = bench(&args);
    let report = std::fs::read(out.join("report.json")).unwrap_or_else(|_| panic!("no report: {}", text(&output)));
    (output.status.code(), text(&output), serde_json::from_slice(&report).expect("json"))
}

/// The uninstrumented reference clock passes, and the report says the
/// state was read through the map, within one tick and one poll.
#[test]
fn the_observed_reference_clock_passes_and_the_report_says_how_it_was_read() {
    let (code, output, report) = observe(&observed_image(), "observe-pass");
    assert_eq!(code, Some(0), "{output}");
    assert_eq!(report["verdict"], "pass");
    assert_eq!(report["observed"]["map"], "firmware/observed.toml");
    assert_eq!(report["observed"]["tolerance_us"], 11_000);
    let checks = report["checks"].as_array().expect("checks");
    let matched = checks.iter().find(|check| check["name"] == "the firmware matches the clock model").expect("match");
    assert!(matched["expected"].as_str().is_some_and(|text| text.contains("one poll interval")), "{matched}");
    assert!(!checks.iter().any(|check| check["name"] == "accounting drift within tolerance"), "no drift to judge");
    assert!(report["command"].as_str().is_some_and(|command| command.contains("--observe firmware/observed.toml")));
}

/// Observe mode stops the emulated board only where it reads the map or
/// acts (every 10 ms poll, each press and release), not at every tick:
/// stopping at every tick as well (the hidden `--lockstep-every-tick`)
/// reads the same states at the same instants, so the report is the same
/// byte for byte.
#[test]
fn observe_mode_reads_the_same_without_a_stop_at_every_tick() {
    let (code, output, sparse) = observe(&observed_image(), "observe-sparse");
    assert_eq!(code, Some(0), "{output}");
    let (code, output, every) = observe_with(&observed_image(), "observe-every-tick", &["--lockstep-every-tick"]);
    assert_eq!(code, Some(0), "{output}");
    assert_eq!(sparse, every);
}

/// Builds of the observed clock with a rule defect fail, each on the flag
/// it gets wrong (exit 1), although the clock reports nothing.
#[test]
fn observed_defect_builds_fail_on_the_flag_they_get_wrong() {
    for defect in ["defect-increment-before-flag-check", "defect-display-rounding-flag"] {
        let (code, output, report) = observe(&image(&format!("observed-{defect}")), &format!("observe-{defect}"));
        assert_eq!(code, Some(1), "{defect}: {output}");
        let by_quantity = report["mismatches"]["by_quantity"].as_object().expect("by_quantity");
        assert!(by_quantity.keys().any(|quantity| quantity.starts_with("flag")), "{defect}: {by_quantity:?}");
    }
}
