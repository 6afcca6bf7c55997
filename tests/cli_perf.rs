//! `bench perf`: figures from real runs, goals beside them, exit 0 whatever
//! the figures (timing is never a test here: only what was played is).

use std::path::Path;

use bench_sim::perf::{self, ABSTRACT_SCENARIO, LEGAL_SCENARIO};
use bench_sim::scenario::Scenario;

mod support;
use support::{bench, text};

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
    for args in [&["perf", "--games", "0"][..], &["perf", "--only", "fastest"], &["perf", "--games", "many"]] {
        let output = bench(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", text(&output));
    }
}
