//! The C example firmware (`firmware/c-example/`, plain C built with
//! `arm-none-eabi-gcc`, no Rust) passes `bench hil` on QEMU's emulated
//! board, and bench fails it once a rule is planted wrong in its C.
//!
//! This is the promise of `hil/CONTRACT.md` to a C team: a firmware built
//! on `bench_contract.h` alone runs under bench. Needs `make`,
//! `arm-none-eabi-gcc` and `qemu-system-arm` (scripts/install-deps
//! installs them); never skipped. The release suite plays two short
//! scenarios on it (one game each, about 50 s of guest time) and skips the
//! rest; the planted fault plays one.

use std::path::Path;
use std::process::Command;
use std::sync::{Mutex, MutexGuard};

mod support;
use support::{bench, c_example_dir, make_c_firmware, planted_c_example, temp_dir, text};

/// One emulator at a time: each keeps a core busy.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `bench hil --board qemu` on `elf` with one release scenario, one game;
/// the exit code, what it printed and the report.
fn hil(elf: &Path, scenario: &str, out: &Path) -> (Option<i32>, String, serde_json::Value) {
    let (elf, out_text) = (elf.to_str().expect("utf-8"), out.to_str().expect("utf-8"));
    let args = ["hil", "--board", "qemu", "--firmware", elf, "--scenario", scenario, "--games", "1", "--out", out_text];
    let output = bench(&args);
    let bytes = std::fs::read(out.join("report.json"))
        .unwrap_or_else(|error| panic!("no report.json ({error}) from `bench {}`:\n{}", args.join(" "), text(&output)));
    (output.status.code(), text(&output), serde_json::from_slice(&bytes).expect("valid json"))
}

/// Whether the example runs `control`: sudden death, with or without a
/// Fischer increment (what its Capabilities announce), as bench's notation
/// reads the text.
fn example_runs(control: &str) -> bool {
    use chessclock::{notation, Bonus, TimeControl};
    match notation::parse(control) {
        Ok(TimeControl::Stages(stages)) if stages.len() == 1 => {
            matches!(stages.as_slice()[0].bonus, Bonus::None | Bonus::Increment(_))
        }
        _ => false,
    }
}

/// The release suite's scenarios: name, `tc` text and the rules it exercises.
fn release_suite() -> Vec<(String, String, Vec<String>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/release");
    let mut scenarios: Vec<(String, String, Vec<String>)> = std::fs::read_dir(&dir)
        .expect("scenarios/release")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "toml"))
        .map(|path| {
            let name = path.file_stem().expect("a file name").to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).expect("a scenario file");
            let scenario: toml::Table = text.parse().expect("a scenario is TOML");
            let control = scenario["control"].as_str().expect("a scenario's control is text").to_string();
            let rules = scenario["expect"]["exercises"].as_array().expect("a release scenario's exercises");
            let rules = rules.iter().map(|rule| rule.as_str().expect("a rule's key").to_string()).collect();
            (name, control, rules)
        })
        .collect();
    scenarios.sort();
    scenarios
}

/// `bench hil --board qemu --firmware c-example.elf` as a C team first
/// runs it: the release suite, the default. The example plays the
/// scenarios of the controls it announces (Fischer with bounce, 6.2a and
/// 6.8a; a flag, 6.3; the pause button, 6.13) and passes each, every press
/// recorded and nothing mismatched; the others are skipped, and the rules
/// only they exercise are named NOT TESTED, which fails the suite: a clock
/// that lacks byo-yomi does not pass a release gate as if it had it.
#[test]
fn the_c_example_passes_what_it_runs_and_the_suite_names_what_it_did_not_test() {
    let _serial = serial();
    let dir = temp_dir("suite");
    let elf = make_c_firmware(&c_example_dir(), &dir.join("build"));
    let out = dir.join("reports");
    let args =
        ["hil", "--board", "qemu", "--firmware", elf.to_str().expect("utf-8"), "--out", out.to_str().expect("utf-8")];
    let output = bench(&args);
    let printed = text(&output);
    assert_eq!(output.status.code(), Some(1), "`bench {}`:\n{printed}", args.join(" "));
    let suite = release_suite();
    assert!(suite.iter().any(|(_, control, _)| example_runs(control)), "no scenario the example runs: {suite:?}");
    let tested: Vec<&String> =
        suite.iter().filter(|(_, control, _)| example_runs(control)).flat_map(|(_, _, rules)| rules).collect();
    let mut untested: Vec<&String> = suite
        .iter()
        .filter(|(_, control, _)| !example_runs(control))
        .flat_map(|(_, _, rules)| rules)
        .filter(|rule| !tested.contains(rule))
        .collect();
    untested.sort();
    untested.dedup();
    assert!(!untested.is_empty(), "the example runs every rule of the suite: {suite:?}");
    let listed = printed.find("NOT TESTED on this firmware").expect("the untested rules are named");
    assert!(listed < printed.find("suite release:").expect("the suite's line"), "named first:\n{printed}");
    for rule in untested {
        assert!(printed.contains(&format!("UNTESTED {rule} (")), "{rule} not named untested:\n{printed}");
    }
    let mut pressed = 0;
    for (name, control, _) in suite {
        let folder = out.join(&name);
        if !example_runs(&control) {
            assert!(folder.join("skipped.md").is_file(), "{name} (`{control}`) not skipped:\n{printed}");
            continue;
        }
        let bytes =
            std::fs::read(folder.join("report.json")).unwrap_or_else(|error| panic!("{name}: {error}\n{printed}"));
        let report: serde_json::Value = serde_json::from_slice(&bytes).expect("valid json");
        assert_eq!(report["verdict"], "pass", "{name}: {printed}");
        assert_eq!(report["complete"], true, "{name}: {printed}");
        assert_eq!(report["mismatches"]["total"], 0, "{name}: {printed}");
        let game = &report["games_detail"][0];
        assert_eq!(game["presses_registered"], game["presses_scheduled"], "{name}: {printed}");
        // A game lost at the default time (6.7) has no press.
        pressed += game["presses_scheduled"].as_u64().expect("a count");
    }
    assert!(pressed > 0, "the example was never pressed:\n{printed}");
}

/// The same C with the Fischer increment left out of a press (6.2a): bench
/// fails it, naming the press's remaining time. The fault is planted in a
/// copy of the source, so the example itself stays as a team would copy it.
#[test]
fn the_c_example_without_its_increment_fails() {
    let _serial = serial();
    let dir = temp_dir("no-increment");
    const INCREMENT: &str = "clock->remaining_us[side] += clock->control.increment_us;";
    let elf = planted_c_example(&dir, &[("src/clock.c", INCREMENT, "/* increment planted out */")]);
    let (code, output, report) = hil(&elf, &release_scenario("1-fischer"), &dir.join("report"));
    assert_eq!(code, Some(1), "{output}");
    assert_eq!(report["verdict"], "fail", "{output}");
    let press_mismatches = report["mismatches"]["by_quantity"]["press.remaining_us"].as_u64();
    assert!(press_mismatches.is_some_and(|count| count > 0), "no press.remaining_us mismatch:\n{output}");
}

/// The same C with a pause button that answers but stops nothing (6.13):
/// the release suite's pause-only scenario presses it, and bench fails it.
/// (Before `16-pause`, every scenario with a pause also needed functions
/// the example leaves out, so its pause was never pressed.)
#[test]
fn the_c_example_whose_pause_stops_nothing_fails() {
    let _serial = serial();
    let dir = temp_dir("no-pause");
    const PAUSE: &str = "return clock_pause(&clock) == BENCH_STATUS_OK ? BENCH_RESULT_ACCEPTED : BENCH_RESULT_OTHER;";
    let planted = "return BENCH_RESULT_ACCEPTED; /* planted: the pause stops nothing */";
    let elf = planted_c_example(&dir, &[("src/main.c", PAUSE, planted)]);
    let (code, output, report) = hil(&elf, &release_scenario("16-pause"), &dir.join("report"));
    assert_eq!(code, Some(1), "{output}");
    assert_eq!(report["verdict"], "fail", "{output}");
    assert!(report["mismatches"]["total"].as_u64().is_some_and(|count| count > 0), "no mismatch:\n{output}");
}

/// The same C with its Snapshots stamped at the last display update, as
/// CONTRACT §3 allows: the displays are brought up to date every 10 ms,
/// and the periodic Snapshot goes out 9.5 ms after one, so the records
/// before each press speak of an instant 9.5 ms back. bench knows guest
/// time from the machine (the emulator's watchdog counter), not from the
/// latest record, so it makes each edge where it means to and the firmware
/// stamps every press within microseconds of it: 0 mismatches. (When guest
/// time followed the latest record, every press was a `press.stamp`
/// mismatch, 9.005 ms after the edge bench believed it had made.)
#[test]
fn the_c_example_stamping_snapshots_at_its_last_update_passes() {
    let _serial = serial();
    let dir = temp_dir("stale-snapshots");
    let elf = planted_c_example(
        &dir,
        &[
            (
                "src/main.c",
                "        if (has_control && settle(now)) {",
                "        if (has_control && settle(now - now % 10000u)) {",
            ),
            (
                "src/main.c",
                "uint64_t next_snapshot_us = SNAPSHOT_INTERVAL_US;",
                "uint64_t next_snapshot_us = SNAPSHOT_INTERVAL_US + 9500u;",
            ),
        ],
    );
    let (code, output, report) = hil(&elf, &release_scenario("1-fischer"), &dir.join("report"));
    assert_eq!(code, Some(0), "{output}");
    assert_eq!(report["mismatches"]["total"], 0, "{output}");
    let game = &report["games_detail"][0];
    assert_eq!(game["presses_registered"], game["presses_scheduled"], "{output}");
    let stamp_us = game["largest_difference_us"]["press.stamp"].as_u64().expect("press.stamp is measured");
    assert!(stamp_us < 100, "presses stamped {stamp_us} µs from bench's edges:\n{output}");
}

/// The C example planted to sleep in WFI at the top of its loop, as a
/// board on batteries would: bench's lockstep plugin counts guest time in
/// instructions, which a sleeping core does not execute while QEMU moves
/// its clock on, so the run ends as bench's own failure (exit 3) and says
/// which engine runs such a firmware; that engine plays it.
#[test]
fn a_firmware_that_sleeps_is_named_and_the_gdbstub_engine_plays_it() {
    let _serial = serial();
    let dir = temp_dir("sleeps");
    let elf = planted_c_example(
        &dir,
        &[(
            "src/main.c",
            "        uint64_t now = now_us();\n",
            "        __asm volatile(\"wfi\");\n        uint64_t now = now_us();\n",
        )],
    );
    let (code, output, report) = hil(&elf, &release_scenario("1-fischer"), &dir.join("report"));
    assert_eq!(code, Some(3), "{output}");
    assert!(output.contains("WFI") && output.contains("--lockstep gdbstub"), "{output}");
    assert_eq!(report["complete"], false, "{output}");
    let out = dir.join("gdbstub");
    let (elf, out_text) = (elf.to_str().expect("utf-8"), out.to_str().expect("utf-8"));
    let scenario = release_scenario("1-fischer");
    let args =
        ["hil", "--firmware", elf, "--scenario", &scenario, "--games", "1", "--lockstep", "gdbstub", "--out", out_text];
    let played = bench(&args);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report.json")).expect("json");
    assert!(matches!(played.status.code(), Some(0 | 1)), "{}", text(&played));
    assert_eq!(report["games"]["played"], 1, "{}", text(&played));
}

/// The path of a scenario of the release suite (`scenarios/release/NAME.toml`).
fn release_scenario(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/release/{name}.toml"));
    assert!(path.is_file(), "no release scenario {}", path.display());
    path.to_str().expect("utf-8").to_string()
}

/// Texts of `tc` for the example's parser: what bench's release suite and
/// its Fischer and sudden-death scenarios send, edge cases of the notation,
/// controls the example does not run, and malformed texts.
const TIME_CONTROLS: &[&str] = &[
    "30+1",
    "3+1",
    "180",
    "180+2",
    "900+10",
    "300+2",
    "300",
    "0",
    "0+1",
    " 300+2 ",
    "300+0",
    "0.5+0.000001",
    "1000000",
    "1000000+1000000",
    "05+2.50",
    "30+d1",
    "300+b3",
    "3/20:20",
    "40/5400+30:1800+30",
    "*180",
    "3600(5x30)",
    "0(2/5)",
    "300:60",
    "",
    "   ",
    "?",
    "-",
    "+2",
    "300+",
    "300.",
    "300.1234567",
    "1000001",
    "18446744073709551616",
    "300 +2",
    "300+-2",
    "300+2x",
    "abc",
    "300+2+1",
    "3e2",
];

/// What the example's `time_control_parse` answers for each of
/// [`TIME_CONTROLS`], compiled for the host with a driver that prints one
/// line per text: `ok MAIN_US INCREMENT_US` or `refused POSITION`.
fn c_parser_answers(dir: &Path) -> Vec<String> {
    let mut calls = String::new();
    for text in TIME_CONTROLS {
        let literal: String = text.bytes().map(|byte| format!("\\{byte:03o}")).collect();
        calls.push_str(&format!("    show(\"{literal}\", {});\n", text.len()));
    }
    let source = format!(
        "#include <stdio.h>\n#include \"clock.h\"\n\
         static void show(const char *text, size_t len)\n{{\n    time_control control;\n\
         \x20   int position = time_control_parse(text, len, &control);\n\
         \x20   if (position < 0) printf(\"ok %llu %llu\\n\", (unsigned long long)control.main_us, \
         (unsigned long long)control.increment_us);\n    else printf(\"refused %d\\n\", position);\n}}\n\
         int main(void)\n{{\n{calls}    return 0;\n}}\n"
    );
    let driver = dir.join("driver.c");
    std::fs::write(&driver, source).expect("write the driver");
    let (root, program) = (Path::new(env!("CARGO_MANIFEST_DIR")), dir.join("driver"));
    let output = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".to_string()))
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", root.join("firmware/c-example/src").display()))
        .arg(format!("-I{}", root.join("hil/contract/include").display()))
        .arg(&driver)
        .arg(root.join("firmware/c-example/src/clock.c"))
        .arg("-o")
        .arg(&program)
        .output()
        .expect("the host C compiler runs (Debian package gcc, scripts/install-deps)");
    assert!(output.status.success(), "clock.c does not build for the host:\n{}", text(&output));
    let output = Command::new(&program).output().expect("the driver runs");
    let printed = String::from_utf8(output.stdout).expect("ASCII");
    let lines: Vec<String> = printed.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), TIME_CONTROLS.len(), "one line per text:\n{printed}");
    lines
}

/// Whether the example's answer `line` for `text` is bench's notation's.
fn agrees_with_bench(text: &str, line: &str) -> bool {
    use chessclock::{notation, Bonus, Duration, Stage, TimeControl};
    let refused_at = line.strip_prefix("refused ").and_then(|position| position.parse::<usize>().ok());
    // Where a control of another kind starts: a stage's moves or the next
    // stage, overtime, an hourglass, a delay's letter.
    let at_other_kind = refused_at.is_some_and(|position| {
        let byte = |at: usize| text.as_bytes().get(at).copied();
        matches!(byte(position), Some(b'/' | b':' | b'(' | b'*'))
            || (matches!(byte(position), Some(b'd' | b'b')) && position > 0 && byte(position - 1) == Some(b'+'))
    });
    let sudden_death = |main: Duration, increment: Duration| format!("ok {} {}", main.as_us(), increment.as_us());
    match notation::parse(text) {
        Ok(TimeControl::Stages(stages)) if stages.len() == 1 => match stages.as_slice()[0] {
            Stage { bonus: Bonus::None, time, .. } => line == sudden_death(time, Duration::ZERO),
            Stage { bonus: Bonus::Increment(increment), time, .. } => line == sudden_death(time, increment),
            Stage { bonus: Bonus::Delay(_) | Bonus::Bronstein(_), .. } => at_other_kind,
        },
        Ok(_) => at_other_kind,
        Err(error) => refused_at == Some(error.position) || at_other_kind,
    }
}

/// The example's `tc` parser (`src/clock.c`, compiled for the host) reads
/// each text as bench's notation does: a control it accepts is the sudden
/// death and increment `chessclock::notation::parse` makes of it; a
/// malformed text is refused at the position bench's parser names; a
/// control of another kind (a delay, stages, overtime, an hourglass) is
/// refused at the byte where that kind begins.
#[test]
fn the_c_example_reads_time_controls_as_bench_does() {
    let dir = temp_dir("tc-parser");
    let mut problems = Vec::new();
    for (text, line) in TIME_CONTROLS.iter().zip(c_parser_answers(&dir)) {
        if !agrees_with_bench(text, &line) {
            let bench = match chessclock::notation::parse(text) {
                Ok(control) => format!("reads {control}"),
                Err(error) => format!("refuses it at {}: {error}", error.position),
            };
            problems.push(format!("tc {text:?}: the example answers {line:?}; bench's notation {bench}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
