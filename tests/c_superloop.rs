//! The superloop firmware (`firmware/c-superloop/`): a second C firmware,
//! written unlike the reference on purpose (one interrupt that counts
//! milliseconds, buttons polled every 10 ms, displays in whole seconds from
//! 10 s up, Snapshots stamped at the last display update), passes the
//! release suite once the rules it cannot run are waived, and six bugs an
//! engineer could write by hand into it each fail the scenario that reaches
//! their rule, the real cause named first.
//!
//! This is the proof that bench is fair to firmware it did not write: what
//! the firmware declares in its Capabilities record (whole-second settings
//! up to 9:59:59, whole-second displays, a 10 ms button poll) narrows what
//! bench asks of it, and nothing else. Needs `make`, `arm-none-eabi-gcc`
//! and `qemu-system-arm` (scripts/install-deps); never skipped.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Mutex, MutexGuard};

mod support;
use support::{bench, c_superloop_dir, make_c_image, planted_c_firmware, temp_dir, text};

const IMAGE: &str = "c-superloop.elf";
/// What the firmware declares (`src/limits.h`, its Capabilities record):
/// the longest time it holds and the step of its settings.
const TIME_MAX_S: u64 = 35_999;
const SETTING_STEP_US: u64 = 1_000_000;

/// One emulator at a time: each keeps a core busy.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A release scenario: its name, `tc` text, the rules it exercises, and
/// whether the superloop plays it.
struct Scenario {
    name: String,
    control: String,
    rules: Vec<String>,
    played: bool,
}

/// Whether the superloop runs `control` as it declares: one to five
/// stages, each plain, with an increment or with a delay (6.2a, 6.2b),
/// every time a whole number of seconds up to `TIME_MAX_S`.
fn superloop_runs(control: &str) -> bool {
    use chessclock::{notation, Bonus, Duration, TimeControl};
    let settable = |time: Duration| time.as_us() % SETTING_STEP_US == 0 && time.as_us() <= TIME_MAX_S * 1_000_000;
    match notation::parse(control) {
        Ok(TimeControl::Stages(stages)) => stages.as_slice().iter().all(|stage| {
            matches!(stage.bonus, Bonus::None | Bonus::Increment(_) | Bonus::Delay(_))
                && settable(stage.time)
                && settable(stage.bonus.amount())
        }),
        _ => false,
    }
}

/// Whether the superloop has every arbiter function `arbiter` (a
/// scenario's `[arbiter]` table) uses: the pause alone (`ARBITER_PAUSE`),
/// and it does not show which flag fell first.
fn superloop_has_arbiter_functions(arbiter: Option<&toml::Table>) -> bool {
    let Some(arbiter) = arbiter else { return true };
    let lacks_function =
        ["adjust", "set_moves", "restore", "replace_clock"].iter().any(|key| arbiter.contains_key(*key));
    let reads_flag_order = arbiter.get("clock_shows_first_flag").and_then(toml::Value::as_bool) == Some(true);
    !lacks_function && !reads_flag_order
}

/// The release suite's scenarios, by name.
fn release_suite() -> Vec<Scenario> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/release");
    let mut scenarios: Vec<Scenario> = std::fs::read_dir(&dir)
        .expect("scenarios/release")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "toml"))
        .map(|path| {
            let name = path.file_stem().expect("a file name").to_string_lossy().into_owned();
            let table: toml::Table = std::fs::read_to_string(&path).expect("a scenario file").parse().expect("TOML");
            let control = table["control"].as_str().expect("a scenario's control is text").to_string();
            let rules = table["expect"]["exercises"].as_array().expect("a release scenario's exercises");
            let rules = rules.iter().map(|rule| rule.as_str().expect("a rule's key").to_string()).collect();
            let played = superloop_runs(&control)
                && superloop_has_arbiter_functions(table.get("arbiter").and_then(|a| a.as_table()));
            Scenario { name, control, rules, played }
        })
        .collect();
    scenarios.sort_by(|a, b| a.name.cmp(&b.name));
    scenarios
}

/// The rules only scenarios the superloop does not play exercise, sorted.
fn untested_rules(suite: &[Scenario]) -> Vec<String> {
    let tested: Vec<&String> = suite.iter().filter(|s| s.played).flat_map(|s| &s.rules).collect();
    let mut untested: Vec<String> = suite
        .iter()
        .filter(|s| !s.played)
        .flat_map(|s| s.rules.clone())
        .filter(|rule| !tested.contains(&rule))
        .collect();
    untested.sort();
    untested.dedup();
    untested
}

/// The superloop, built into `dir`.
fn superloop(dir: &Path) -> PathBuf {
    make_c_image(&c_superloop_dir(), &dir.join("build"), IMAGE)
}

/// `bench hil --board qemu --firmware ELF --out OUT` and `extra`.
fn hil(elf: &Path, out: &Path, extra: &[&str]) -> (Output, String) {
    let mut args = vec!["hil", "--board", "qemu", "--firmware", elf.to_str().expect("utf-8")];
    args.extend(["--out", out.to_str().expect("utf-8")]);
    args.extend(extra);
    let output = bench(&args);
    let printed = format!("`bench {}`:\n{}", args.join(" "), text(&output));
    (output, printed)
}

fn report(folder: &Path, printed: &str) -> serde_json::Value {
    let bytes = std::fs::read(folder.join("report.json"))
        .unwrap_or_else(|error| panic!("no report.json in {} ({error}):\n{printed}", folder.display()));
    serde_json::from_slice(&bytes).expect("valid json")
}

/// Every scenario the superloop plays passed with nothing mismatched and
/// every press registered; every other one is skipped, not played.
fn assert_played_pass_and_rest_skipped(suite: &[Scenario], out: &Path, printed: &str) {
    let mut pressed = 0;
    for scenario in suite {
        let (name, folder) = (&scenario.name, out.join(&scenario.name));
        if !scenario.played {
            assert!(folder.join("skipped.md").is_file(), "{name} (`{}`) not skipped:\n{printed}", scenario.control);
            continue;
        }
        let report = report(&folder, printed);
        assert_eq!(report["verdict"], "pass", "{name}: {printed}");
        assert_eq!(report["mismatches"]["total"], 0, "{name}: {}\n{printed}", report["mismatches"]);
        for game in report["games_detail"].as_array().expect("games") {
            assert_eq!(game["presses_registered"], game["presses_scheduled"], "{name}: {printed}");
            // A game lost at the default time (6.7) has no press.
            pressed += game["presses_scheduled"].as_u64().expect("a count");
        }
    }
    assert!(pressed > 0, "the superloop was never pressed:\n{printed}");
}

/// `bench hil --board qemu --firmware c-superloop.elf`, the release suite:
/// without a waiver it fails, naming first each rule only the skipped
/// scenarios exercise (byo-yomi, Canadian, Bronstein, hourglass, the
/// arbiter's settings: what the superloop does not have); with exactly
/// those rules waived it passes, every scenario it plays passing with no
/// mismatch. The list is derived from the scenario files and what the
/// firmware declares, so a new release scenario changes it by itself.
#[test]
fn the_superloop_passes_the_release_suite_with_what_it_lacks_waived() {
    let _serial = serial();
    let dir = temp_dir("suite");
    let elf = superloop(&dir);
    let suite = release_suite();
    let untested = untested_rules(&suite);
    assert!(suite.iter().any(|s| s.played), "the superloop plays no release scenario");
    assert!(!untested.is_empty(), "the superloop runs every rule of the suite");

    let out = dir.join("unwaived");
    let (output, printed) = hil(&elf, &out, &[]);
    assert_eq!(output.status.code(), Some(1), "{printed}");
    let listed = printed.find("NOT TESTED on this firmware").expect("the untested rules are named");
    assert!(listed < printed.find("suite release:").expect("the suite's line"), "named first:\n{printed}");
    for rule in &untested {
        assert!(printed.contains(&format!("UNTESTED {rule} (")), "{rule} not named untested:\n{printed}");
    }
    assert_played_pass_and_rest_skipped(&suite, &out, &printed);

    let out = dir.join("waived");
    let waived = untested.join(",");
    let (output, printed) = hil(&elf, &out, &["--waive", &waived]);
    assert_eq!(output.status.code(), Some(0), "{printed}");
    assert_played_pass_and_rest_skipped(&suite, &out, &printed);
}

/// Which of a report's lists of mismatches names the cause first.
#[derive(Clone, Copy)]
enum Listing {
    /// `games_detail[].mismatches`: causes (press, flag, period, result)
    /// before snapshots, each kind in the order found.
    CausesFirst,
    /// `games_detail[].first_of_each`: the first mismatch of each
    /// quantity, earliest first, where each difference began.
    Earliest,
}

/// The superloop with `plants` (file, text, replacement) built under a
/// folder named `name`, playing one game of the release scenario
/// `scenario`: exit 1, a failing verdict; the first mismatch of `listing`.
fn planted_first_mismatch(
    name: &str,
    plants: &[(&str, &str, &str)],
    scenario: &str,
    listing: Listing,
) -> (serde_json::Value, serde_json::Value, String) {
    let _serial = serial();
    let dir = temp_dir(name);
    let elf = planted_c_firmware(&c_superloop_dir(), IMAGE, &dir, plants);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/release/{scenario}.toml"));
    assert!(path.is_file(), "no release scenario {}", path.display());
    let out = dir.join("report");
    let (output, printed) = hil(&elf, &out, &["--scenario", path.to_str().expect("utf-8"), "--games", "1"]);
    assert_eq!(output.status.code(), Some(1), "{printed}");
    let report = report(&out, &printed);
    assert_eq!(report["verdict"], "fail", "{printed}");
    let list = match listing {
        Listing::CausesFirst => "mismatches",
        Listing::Earliest => "first_of_each",
    };
    let first = report["games_detail"][0][list][0].clone();
    (first, report, printed)
}

/// As [`planted_first_mismatch`], and the first mismatch is `quantity` at
/// press `press_index` (0-based, the firmware's Press records).
fn planted_fails_first_on(
    name: &str,
    plants: &[(&str, &str, &str)],
    scenario: &str,
    listing: Listing,
    (quantity, press_index): (&str, u64),
) {
    let (first, _, printed) = planted_first_mismatch(name, plants, scenario, listing);
    assert_eq!(first["quantity"], quantity, "the first mismatch is not the cause: {first}\n{printed}");
    assert_eq!(first["press_index"], press_index, "the cause is at another press: {first}\n{printed}");
}

/// Time-delay mode (6.2b) with the delay a move leaves unused added to the
/// main time, as if banked: the first short move's press shows the
/// difference.
#[test]
fn a_superloop_that_banks_the_unused_delay_fails_at_the_press() {
    const KEPT: &str = "/* A delay left unused is not kept (6.2b). */";
    let banked = "d->main_ms += d->delay_ms; /* planted: the unused delay banked */";
    let plants = [("src/game.c", KEPT, banked)];
    planted_fails_first_on("banked-delay", &plants, "2-delay", Listing::CausesFirst, ("press.remaining_us", 0));
}

/// Stages (6.2b) switched one move late: the move that completes the
/// first stage (White's third, the game's fifth press) gets no second
/// stage's time.
#[test]
fn a_superloop_that_switches_stages_a_move_late_fails_at_the_stages_last_move() {
    const SWITCH: &str = "d->moves >= moves_by_end_of(g, d->stage)";
    let late = "d->moves > moves_by_end_of(g, d->stage) /* planted: one move late */";
    let plants = [("src/game.c", SWITCH, late)];
    planted_fails_first_on("late-stage", &plants, "3-stages", Listing::CausesFirst, ("press.remaining_us", 4));
}

/// A flag in the first stage (6.3) taken as the last one: the display stays
/// at zero instead of opening the next stage, and no period change is
/// reported at the flag.
#[test]
fn a_superloop_that_freezes_at_an_earlier_stages_flag_fails_at_the_flag() {
    const LAST: &str = "if (is_last_stage(g, d->stage)) {";
    let every = "if (1) { /* planted: every flag is the last stage's */";
    // Listed by kind, the later flag the firmware never shows comes before
    // the period change: the earliest mismatch is the cause.
    let plants = [("src/game.c", LAST, every)];
    planted_fails_first_on("frozen-stage-flag", &plants, "7-stage-flag", Listing::Earliest, ("period_change", 2));
}

/// The pause button (6.13) wired to the clock's reset: the game starts over
/// not started, and the presses after it are not registered.
#[test]
fn a_superloop_whose_pause_button_resets_the_clock_fails() {
    const PAUSE: &str =
        "return game_pause(&clock_game, at_ms) == BENCH_STATUS_OK ? BENCH_RESULT_ACCEPTED : BENCH_RESULT_OTHER;";
    let reset = "time_control same = clock_game.control; game_new(&clock_game, &same); return BENCH_RESULT_ACCEPTED; /* planted */";
    let plants = [("src/main.c", PAUSE, reset)];
    let (first, report, printed) = planted_first_mismatch("pause-resets", &plants, "16-pause", Listing::Earliest);
    // The pause is the game's second press: right after it the clock shows
    // a game not started where the model has it paused.
    assert_eq!(first["press_index"], 1, "not at the pause press: {first}\n{printed}");
    let at_pause: Vec<&serde_json::Value> = report["games_detail"][0]["first_of_each"]
        .as_array()
        .expect("a list")
        .iter()
        .filter(|mismatch| mismatch["at_us"] == first["at_us"])
        .collect();
    assert!(
        at_pause.iter().any(|mismatch| mismatch["quantity"] == "snapshot.phase"),
        "no phase mismatch at the pause: {at_pause:?}\n{printed}"
    );
}

/// `reset` that leaves a fallen flag lit (contract §4: a new game starts
/// from nothing of the last). The release suite plays a game after one
/// lost on time on the same boot (`4-flag`, two games): the first game
/// passes, and the second shows Black's old flag from `reset` on, before
/// its start.
#[test]
fn a_superloop_whose_reset_leaves_a_fallen_flag_fails_the_next_game() {
    let _serial = serial();
    let dir = temp_dir("stale-flag");
    let plants = [("src/game.c", "        d->flag = 0;\n", "        /* planted: a fallen flag outlives reset */\n")];
    let elf = planted_c_firmware(&c_superloop_dir(), IMAGE, &dir, &plants);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/release/4-flag.toml");
    let out = dir.join("report");
    let (output, printed) = hil(&elf, &out, &["--scenario", path.to_str().expect("utf-8"), "--games", "2"]);
    assert_eq!(output.status.code(), Some(1), "{printed}");
    let report = report(&out, &printed);
    let games = &report["games_detail"];
    assert_eq!(games[0]["mismatches_total"], 0, "the first game is played as the unplanted one: {printed}");
    let first = &games[1]["first_of_each"][0];
    assert_eq!(first["quantity"], "snapshot.flag.black", "not the stale flag first: {first}\n{printed}");
    let (at_us, start_us) = (first["at_us"].as_u64(), games[1]["start_us"].as_u64());
    assert!(at_us.is_some() && at_us <= start_us, "not shown from `reset` on: {first}\n{printed}");
}

/// A press registered when the button is let go rather than when it
/// closes (6.8a: the move is complete when the clock is pressed): every
/// stamp is a hold late, from the first press on.
#[test]
fn a_superloop_that_registers_presses_at_the_release_fails_at_the_first_press() {
    const CLOSING: &str =
        "if (!buttons[i].down && closing_seen) {\n            buttons[i].down = 1;\n            pressed |= 1u << i;";
    let release = "if (!buttons[i].down && closing_seen) {\n            buttons[i].down = 1; /* planted: the press counts at the release */";
    const OPENING: &str = "} else if (buttons[i].down && !closing_seen) {\n            buttons[i].down = 0;";
    let opening = "} else if (buttons[i].down && !closing_seen) {\n            buttons[i].down = 0;\n            pressed |= 1u << i;";
    let plants = [("src/main.c", CLOSING, release), ("src/main.c", OPENING, opening)];
    planted_fails_first_on("release-press", &plants, "1-fischer", Listing::CausesFirst, ("press.stamp", 0));
}

/// How the superloop's `tc` parser must read a text.
#[derive(Clone, Copy)]
enum Reading {
    /// As bench's notation does: the same control, or refused at the same byte.
    AsBench,
    /// A control bench reads and the clock declares it does not run (a time
    /// finer than a second or past 9:59:59, a kind it does not have):
    /// refused at this byte.
    RefusedAt(usize),
}

/// Texts of `tc` for the superloop's parser: the release suite's controls
/// it runs, edges of the notation, and what it declares it cannot run.
const TIME_CONTROLS: &[(&str, Reading)] = &[
    ("30+1", Reading::AsBench),
    ("30+d1", Reading::AsBench),
    ("3/20:20", Reading::AsBench),
    ("3/3:20", Reading::AsBench),
    ("4/8:8", Reading::AsBench),
    ("4/20+2:30+2", Reading::AsBench),
    ("1/60:1/60:1/60:1/60:60", Reading::AsBench),
    (" 40/5400+d30:1800+30 ", Reading::AsBench),
    ("35999", Reading::AsBench),
    ("0", Reading::AsBench),
    ("2/60:0/60:60", Reading::AsBench),
    ("40/300", Reading::AsBench),
    ("300:60:60", Reading::AsBench),
    ("300+9999999", Reading::AsBench),
    ("", Reading::AsBench),
    ("  ", Reading::AsBench),
    ("300+", Reading::AsBench),
    ("300 +2", Reading::AsBench),
    ("1/60:1/60:1/60:1/60:1/60:60", Reading::AsBench),
    ("30+0.5", Reading::RefusedAt(4)),
    ("1/2.5:3", Reading::RefusedAt(3)),
    ("36000", Reading::RefusedAt(0)),
    ("1000000", Reading::RefusedAt(0)),
    ("3/20:20+d36000", Reading::RefusedAt(9)),
    ("300+b3", Reading::RefusedAt(4)),
    ("*180", Reading::RefusedAt(0)),
    ("3600(5x30)", Reading::RefusedAt(4)),
    ("600(20/300)", Reading::RefusedAt(3)),
];

/// What `src/time_control.c`, compiled for the host with a driver, answers
/// for each text: `ok` and each stage's moves, time and bonus (kind and
/// ms), or `refused POSITION`.
fn superloop_parser_answers(dir: &Path) -> Vec<String> {
    let mut calls = String::new();
    for (text, _) in TIME_CONTROLS {
        let literal: String = text.bytes().map(|byte| format!("\\{byte:03o}")).collect();
        calls.push_str(&format!("    show(\"{literal}\", {});\n", text.len()));
    }
    let source = format!(
        "#include <stdio.h>\n#include \"game.h\"\n\
         static void show(const char *text, unsigned len)\n{{\n    time_control control;\n\
         \x20   int position = time_control_parse(text, len, &control);\n\
         \x20   if (position >= 0) {{ printf(\"refused %d\\n\", position); return; }}\n\
         \x20   printf(\"ok\");\n\
         \x20   for (unsigned i = 0; i < control.count; i++) printf(\" %u/%u/%u/%u\", (unsigned)control.stages[i].moves, \
         (unsigned)control.stages[i].time_ms, (unsigned)control.stages[i].bonus, (unsigned)control.stages[i].bonus_ms);\n\
         \x20   printf(\"\\n\");\n}}\nint main(void)\n{{\n{calls}    return 0;\n}}\n"
    );
    let driver = dir.join("driver.c");
    std::fs::write(&driver, source).expect("write the driver");
    let (root, program) = (Path::new(env!("CARGO_MANIFEST_DIR")), dir.join("driver"));
    let output = std::process::Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".to_string()))
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", root.join("firmware/c-superloop/src").display()))
        .arg(format!("-I{}", root.join("hil/contract/include").display()))
        .arg(&driver)
        .arg(root.join("firmware/c-superloop/src/time_control.c"))
        .arg("-o")
        .arg(&program)
        .output()
        .expect("the host C compiler runs (Debian package gcc, scripts/install-deps)");
    assert!(output.status.success(), "time_control.c does not build for the host:\n{}", text(&output));
    let output = std::process::Command::new(&program).output().expect("the driver runs");
    let printed = String::from_utf8(output.stdout).expect("ASCII");
    let lines: Vec<String> = printed.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), TIME_CONTROLS.len(), "one line per text:\n{printed}");
    lines
}

/// bench's reading of `text` in the driver's words (`game.h`'s bonus
/// kinds: 0 none, 1 increment, 2 delay), or `None` for a control the
/// superloop does not run.
fn bench_reading(text: &str) -> Option<String> {
    use chessclock::{notation, Bonus, StageLength, TimeControl};
    let stages = match notation::parse(text) {
        Err(error) => return Some(format!("refused {}", error.position)),
        Ok(TimeControl::Stages(stages)) => stages,
        Ok(_) => return None,
    };
    let mut line = "ok".to_string();
    for stage in stages.as_slice() {
        let moves = match stage.length {
            StageLength::Moves(moves) => moves,
            StageLength::RestOfGame => 0,
        };
        let (kind, bonus) = match stage.bonus {
            Bonus::None => (0, 0),
            Bonus::Increment(amount) => (1, amount.as_us() / 1_000),
            Bonus::Delay(amount) => (2, amount.as_us() / 1_000),
            Bonus::Bronstein(_) => return None,
        };
        line.push_str(&format!(" {moves}/{}/{kind}/{bonus}", stage.time.as_us() / 1_000));
    }
    Some(line)
}

/// The superloop's `tc` parser reads what it runs as bench's notation
/// does, refuses a malformed text at bench's byte, and refuses what it
/// declares it cannot run (a fraction of a second, a time past 9:59:59, a
/// Bronstein delay, an hourglass, overtime) at the first byte it cannot
/// take, answered to bench as a bad time control there.
#[test]
fn the_superloop_reads_time_controls_as_bench_does_within_what_it_declares() {
    let dir = temp_dir("tc-parser");
    let mut problems = Vec::new();
    for ((text, reading), line) in TIME_CONTROLS.iter().zip(superloop_parser_answers(&dir)) {
        let expected = match reading {
            Reading::AsBench => bench_reading(text),
            Reading::RefusedAt(position) => Some(format!("refused {position}")),
        };
        match expected {
            Some(expected) if expected == line => {}
            Some(expected) => {
                problems.push(format!("tc {text:?}: the superloop answers {line:?}, expected {expected:?}"))
            }
            None => problems.push(format!("tc {text:?}: bench reads a control the superloop does not run; say where")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
