//! `bench perf`: figures from real runs, goals beside them, exit 0 whatever
//! the figures (timing is never a test here: only what was played is).

use std::path::Path;

use bench_sim::perf::{self, ABSTRACT_SCENARIO, LEGAL_SCENARIO};
use bench_sim::scenario::Scenario;

mod support;
use support::{bench, bench_in, reference_firmware, temp_dir, text};

/// The presses a printed figure line counts.
fn presses(line: &str) -> u64 {
    line.split(" presses in ")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no press count in {line:?}"))
}

/// A figure line's rate and the range of the runs it is the median of.
fn rate_and_range(line: &str) -> (f64, f64, f64) {
    let number =
        |text: &str| text.trim().parse::<f64>().unwrap_or_else(|_| panic!("not a number {text:?} in {line:?}"));
    let rate = line.split("= ").nth(1).and_then(|tail| tail.split(" M presses/s").next()).map(number);
    let range = line.split("(median of 3 runs, ").nth(1).and_then(|tail| tail.strip_suffix(')'));
    let (Some(rate), Some((slowest, fastest))) = (rate, range.and_then(|range| range.split_once('-'))) else {
        panic!("no rate with its median's range in {line:?}");
    };
    (rate, number(slowest), number(fastest))
}

#[test]
fn perf_prints_each_figure_of_a_real_run_against_its_goal() {
    let output = bench(&["perf", "--games", "30", "--only", "abstract"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "one figure and its goal: {stdout}");
    // The headline figure is bench sim's default: the independent model on.
    assert!(
        lines[0].starts_with("abstract, invariants + model, defects") && lines[0].contains("jobs 1: 30 games"),
        "{stdout}"
    );
    // The count is the run's, not a number made up for the printout.
    let scenario = Scenario::parse(ABSTRACT_SCENARIO, Path::new("throughput.toml")).expect("parses");
    assert_eq!(presses(lines[0]), perf::time_run(&scenario, 30, 1, true).presses);
    // The figure is the median of three runs, inside their range.
    let (rate, slowest, fastest) = rate_and_range(lines[0]);
    assert!(slowest <= rate && rate <= fastest, "{stdout}");
    assert!(lines[1].contains("goal >= 20 M presses/s per core (abstract)"), "{stdout}");

    let output = bench(&["perf", "--games", "20", "--only", "legal"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let legal = Scenario::parse(LEGAL_SCENARIO, Path::new("throughput-legal.toml")).expect("parses");
    let figure = stdout.lines().next().expect("a figure line");
    assert!(figure.contains("5 games"), "a quarter of the games: {stdout}");
    let run = perf::time_run(&legal, 5, 1, false);
    assert_eq!(presses(figure), run.presses);
    // The 6.10 searches of the run, and those that gave up: the run's counts.
    let searches = run.mate_searches;
    assert!(searches.searched > 0, "5 three-minute games of random moves end on flags");
    let expected = format!("  6.10 searches: {}, {} gave up", searches.searched, searches.gave_up);
    assert!(stdout.lines().any(|line| line.starts_with(&expected)), "{expected:?} in {stdout}");
}

#[test]
fn perf_plays_at_least_one_legal_game() {
    // A quarter of 3 is none: a line of 0 presses would read as a figure of
    // zero, not as nothing measured.
    let output = bench(&["perf", "--games", "3", "--only", "legal"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let figure = stdout.lines().next().expect("a figure line");
    assert!(figure.contains("jobs 1: 1 games"), "{stdout}");
    assert!(presses(figure) > 0, "{stdout}");
}

#[test]
fn perf_prints_bench_s_figure_on_the_peers_press_model() {
    let output = bench(&["perf", "--games", "40", "--only", "peers"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let tally = bench_sim::press_model::run(40);
    let expected = format!("{} games, {} events: ", tally.games, tally.events);
    assert_eq!(tally.games, 40);
    assert!(stdout.starts_with("trivial press model") && stdout.contains(&expected), "{expected:?} in {stdout}");
    assert!(stdout.contains("scripts/peers"), "where the peers' figures come from: {stdout}");
    // Beside the queue, the whole simulator on the same model: every game a
    // flag, about as many presses as the model's events less its flags.
    let simulator = stdout.lines().find(|line| line.contains("bench sim")).expect("the simulator's line");
    assert!(simulator.starts_with("trivial press model") && simulator.contains("jobs 1: 40 games"), "{stdout}");
    let model_presses = tally.events - tally.games;
    let presses = presses(simulator);
    assert!(presses * 100 >= model_presses * 90 && presses * 100 <= model_presses * 110, "{presses}: {stdout}");
    assert!(stdout.contains("not the queue's"), "{stdout}");
}

/// The model's cost in one run: the figure without it, then the ratio of
/// the two (pairs run in turn) against its goal of one half.
#[test]
fn perf_prints_the_ratio_of_the_model_on_to_the_model_off() {
    let number = |text: &str| text.trim().parse::<f64>().unwrap_or_else(|_| panic!("not a number: {text:?}"));
    for only in ["model", "tick"] {
        let output = bench(&["perf", "--games", "20", "--only", only]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 3, "the figure without the model, the ratio, its goal: {stdout}");
        assert!(lines[0].starts_with("abstract, invariants, defects, no model"), "{stdout}");
        let scenario = Scenario::parse(ABSTRACT_SCENARIO, Path::new("throughput.toml")).expect("parses");
        assert_eq!(presses(lines[0]), perf::time_run(&scenario, 20, 1, false).presses);
        let ratio = lines[1].strip_prefix("model on / model off = ").and_then(|tail| tail.split('x').next());
        let range = lines[1].split("(median of 5 pairs, ").nth(1).and_then(|tail| tail.strip_suffix(')'));
        let (Some(ratio), Some((low, high))) = (ratio, range.and_then(|range| range.split_once('-'))) else {
            panic!("no ratio with its range in {stdout}");
        };
        assert!(number(low) <= number(ratio) && number(ratio) <= number(high), "{stdout}");
        assert!(lines[2].contains("goal >= 0.5 x (independent model on / off)"), "{stdout}");
    }
}

#[test]
fn perf_usage_errors_exit_2() {
    for args in [
        &["perf", "--games", "0"][..],
        &["perf", "--only", "fastest"],
        &["perf", "--games", "many"],
        &["perf", "--scenario", "blitz-3-2"],
        &["perf", "--only", "legal", "--scenario", "blitz-3-2"],
    ] {
        let output = bench(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", text(&output));
    }
}

#[test]
fn perf_hil_without_the_reference_image_says_how_to_build_it() {
    let empty = temp_dir("perf-no-image");
    let output = bench_in(&["perf", "--only", "hil"], &[("CARGO_TARGET_DIR", &empty), ("BENCH_CACHE_DIR", &empty)]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    // bench hil's own message, from the run perf started.
    assert!(text(&output).contains("build it with `scripts/build-firmware normal`"), "{}", text(&output));
    // The runs play their scenarios' own games: --games is refused before
    // anything runs, so before the image is looked for.
    let args = ["perf", "--only", "hil", "--games", "5"];
    let output = bench_in(&args, &[("CARGO_TARGET_DIR", &empty), ("BENCH_CACHE_DIR", &empty)]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("leave --games out"), "{}", text(&output));
}

#[test]
fn perf_hil_without_qemu_says_how_to_install_it() {
    // A real image: bench hil looks for the emulator once the image is found.
    reference_firmware();
    let no_tools = temp_dir("perf-no-qemu");
    let output = bench_in(&["perf", "--only", "hil"], &[("PATH", &no_tools)]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    assert!(text(&output).contains("apt-get install qemu-system-arm"), "{}", text(&output));
}

/// The first number after `before` in `line`.
fn number_after(line: &str, before: &str) -> String {
    let tail = line.split(before).nth(1).unwrap_or_else(|| panic!("no {before:?} in {line:?}"));
    tail.split(|c: char| !(c.is_ascii_digit() || c == '.')).next().unwrap_or_default().to_string()
}

/// One short game through `bench perf --only hil` and through `bench hil`
/// itself: in lockstep the guest time and the stops are the same every run,
/// so perf's figures must be that run's. The wall time is not compared (no
/// test depends on the host's speed).
#[test]
fn perf_hil_prints_the_guest_time_and_stops_of_a_real_lockstep_run() {
    reference_firmware();
    let dir = temp_dir("perf-hil");
    let scenario = dir.join("short.toml");
    std::fs::write(
        &scenario,
        "description = \"perf hil test\"\ncontrol = \"180+2\"\ngames = 1\nseed = 4\n\n[players]\n\
         think = { distribution = \"uniform\", min_ms = 300, max_ms = 1500 }\n\n[board]\nends_per_move = 0\nmax_moves = 4\n",
    )
    .expect("write the scenario");
    let scenario = scenario.to_str().expect("utf-8");
    let output = bench(&["perf", "--only", "hil", "--scenario", scenario]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "the run, its stops, the goal: {stdout}");

    let out = dir.join("alone");
    let alone = bench(&[
        "hil",
        "--board",
        "qemu",
        "--scenario",
        scenario,
        "--games",
        "1",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(alone.status.code(), Some(0), "{}", text(&alone));
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).expect("run.json")).expect("parses");
    let guest_ms = run["guest_ms"].as_u64().expect("guest_ms");
    let stops = &run["stops"];
    let (record_stops, tick_stops) =
        (stops["record_stops"].as_u64().expect("n"), stops["tick_stops"].as_u64().expect("n"));
    assert!(record_stops > 0 && tick_stops > 0, "a lockstep run stops at records and ticks: {run}");

    assert!(lines[0].contains(": 1 reports, 1 games, "), "{stdout}");
    assert_eq!(number_after(lines[0], "1 games, "), format!("{:.1}", guest_ms as f64 / 1e3), "{stdout}");
    assert_eq!(number_after(lines[1], "record "), record_stops.to_string(), "{stdout}");
    assert_eq!(number_after(lines[1], "tick "), tick_stops.to_string(), "{stdout}");
    // Stops per guest second: the run's counts over its guest time.
    let per_guest_s = |stops: u64| format!("{:.2}", stops as f64 / (guest_ms as f64 / 1e3));
    assert_eq!(number_after(lines[1], &format!("record {record_stops} (")), per_guest_s(record_stops), "{stdout}");
    assert_eq!(number_after(lines[1], &format!("tick {tick_stops} (")), per_guest_s(tick_stops), "{stdout}");
    assert!(lines[2].starts_with("  goal >= 10 x real time: "), "{stdout}");
}
