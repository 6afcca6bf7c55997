//! The shipped scenarios with a few edits a user might make, or get wrong:
//! numbers pushed to their edges, another time control, a line dropped or
//! written twice, a table of defects or arbiter habits added. Whatever the
//! file says, `bench sim` must either refuse it at a place (file, line,
//! column) or play it to the end with every invariant holding: an oracle
//! violation here is a bug of the clock core or the simulator, never of the
//! scenario, and a game that does not end is a hang a user would meet.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use bench_sim::run::{self, Controls, RunOptions, Summary};
use bench_sim::scenario::Scenario;
use proptest::prelude::*;

/// Games played of each scenario that parses.
const GAMES: u64 = 3;
/// A run this long is taken for a hang (unoptimised build, loaded CI host).
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Values put in place of a number: the edges of every integer type the
/// scenario schema uses, the bounds it states, and text no number reads as.
const NUMBERS: [&str; 18] = [
    "0",
    "1",
    "2",
    "7",
    "999",
    "1000",
    "59999",
    "86400000",
    "1000000000",
    "1000000001",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "-1",
    "1e3",
    "0x10",
];

/// Time controls of every kind, with zero and tiny times, and a few the
/// notation refuses.
const CONTROLS: [&str; 16] = [
    "1",
    "0.001+0.001",
    "60+0",
    "2+d1",
    "2+b1",
    "3/2:1+1",
    "5/10+d1:5/10+b1:10+1",
    "40/5400+30:1800+30",
    "*1",
    "*60",
    "0(3x1)",
    "10(2x0.5)",
    "0(2/1)",
    "5(1/1)",
    "0",
    "-5",
];

/// Tables added at the end of a file: defects and arbiter habits at high
/// rates, a short move bound, legal moves.
const TABLES: [&str; 6] = [
    "[device]\ndrift_ppm = -900\ndrift_walk_ppm = 300\njitter_us = 5000\nbounce = { chance = \"1/2\", min_ms = 1, \
     max_ms = 90 }\nmissed_press = \"1/3\"\ndouble_press = \"1/2\"\nstuck_button = { chance = \"1/4\", min_ms = 10, \
     max_ms = 9000 }\nbrownout = { chance = \"1/5\" }\ndisplay_freeze = { chance = \"1/3\", min_ms = 1, max_ms = \
     60000 }\n",
    "[device]\nbrownout = { chance = \"1/2\", restore = \"lost\" }\n",
    "[arbiter]\nflag_noticed = \"1/2\"\nnotice_delay = { chance = \"1/2\", min_ms = 0, max_ms = 20000 }\npause = { \
     chance = \"1/4\", min_ms = 1, max_ms = 30000 }\nadjust = { chance = \"1/4\", min_ms = 1, max_ms = 60000 \
     }\nset_moves = \"1/5\"\nreplace_clock = \"1/4\"\nclock_shows_first_flag = false\n",
    "[board]\nmax_moves = 1\n",
    "moves = \"legal\"\n",
    "[players]\nthink = { distribution = \"uniform\", min_ms = 0, max_ms = 0 }\narrival_ms = 3600000\n",
];

#[derive(Clone, Debug)]
enum Edit {
    /// The `occurrence`-th run of digits (counting from the start, modulo
    /// how many there are) becomes `value`.
    Number {
        occurrence: usize,
        value: &'static str,
    },
    Control(&'static str),
    DeleteLine(usize),
    DuplicateLine(usize),
    AppendTable(&'static str),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), proptest::sample::select(&NUMBERS[..]))
            .prop_map(|(occurrence, value)| Edit::Number { occurrence, value }),
        2 => proptest::sample::select(&CONTROLS[..]).prop_map(Edit::Control),
        1 => any::<usize>().prop_map(Edit::DeleteLine),
        1 => any::<usize>().prop_map(Edit::DuplicateLine),
        2 => proptest::sample::select(&TABLES[..]).prop_map(Edit::AppendTable),
    ]
}

/// `text` with `edit` made.
fn apply(text: &str, edit: &Edit) -> String {
    match edit {
        Edit::Number { occurrence, value } => {
            let runs = digit_runs(text);
            match runs.get(occurrence % runs.len().max(1)) {
                Some(&(start, end)) => format!("{}{value}{}", &text[..start], &text[end..]),
                None => text.to_string(),
            }
        }
        Edit::Control(control) => text
            .lines()
            .map(|line| if line.starts_with("control =") { format!("control = \"{control}\"") } else { line.into() })
            .collect::<Vec<_>>()
            .join("\n"),
        Edit::DeleteLine(line) | Edit::DuplicateLine(line) => {
            let mut lines: Vec<&str> = text.lines().collect();
            if lines.is_empty() {
                return text.to_string();
            }
            let index = line % lines.len();
            if matches!(edit, Edit::DeleteLine(_)) {
                lines.remove(index);
            } else {
                lines.insert(index, lines[index]);
            }
            lines.join("\n")
        }
        // A top-level key must come before the first table header.
        Edit::AppendTable(table) if !table.starts_with('[') => format!("{table}{text}"),
        Edit::AppendTable(table) => format!("{text}\n{table}"),
    }
}

/// Byte ranges of the maximal runs of ASCII digits in `text`.
fn digit_runs(text: &str) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start = None;
    for (index, byte) in text.bytes().enumerate() {
        match (byte.is_ascii_digit(), start) {
            (true, None) => start = Some(index),
            (false, Some(begin)) => {
                runs.push((begin, index));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(begin) = start {
        runs.push((begin, text.len()));
    }
    runs
}

fn scenario_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("reading {}: {error}", dir.display()))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "toml"))
        .collect();
    files.sort();
    files
}

/// Plays the first [`GAMES`] games twice each on its own thread (`swarm`:
/// each game's defect mix drawn from its seed); `None`
/// when they take longer than [`RUN_LIMIT`].
fn play(scenario: Scenario, swarm: bool) -> Option<Summary> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let options = RunOptions { games: 0..GAMES.min(scenario.games), swarm, ..RunOptions::scenario(&scenario, 1) };
        let controls = Controls { progress: &|_| {}, check_determinism: true, stop: None };
        let _ = sender.send(run::run_with(&scenario, &options, &controls));
    });
    receiver.recv_timeout(RUN_LIMIT).ok()
}

proptest! {
    // 256 cases unless PROPTEST_CASES says otherwise (proptest reads it).
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn an_edited_scenario_is_refused_at_a_place_or_plays_within_every_invariant(
        file in any::<prop::sample::Index>(),
        edits in prop::collection::vec(edit(), 1..4),
        swarm in any::<bool>(),
    ) {
        let files = scenario_files();
        let path = file.get(&files);
        let original = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let text = edits.iter().fold(original, |text, edit| apply(&text, edit));
        match Scenario::parse(&text, path) {
            Err(error) => {
                let shown = error.to_string();
                prop_assert!(error.line >= 1 && error.column >= 1, "no place: {shown}\n--- file ---\n{text}");
                let place = format!("{}:{}:{}: ", path.display(), error.line, error.column);
                prop_assert!(shown.starts_with(&place), "{shown}");
                prop_assert!(!error.message.is_empty(), "{shown}");
            }
            Ok(scenario) => {
                let postal = scenario.correspondence.is_some();
                let Some(summary) = play(scenario, swarm && !postal) else {
                    return Err(TestCaseError::fail(format!("no end within {RUN_LIMIT:?}:\n{text}")));
                };
                let violations: Vec<String> =
                    summary.failures.iter().flat_map(|failure| failure.reasons.clone()).collect();
                prop_assert_eq!(summary.games_with_violations, 0, "{:?}\n--- file ---\n{}", violations, text);
                prop_assert_eq!(summary.nondeterministic_games, 0, "--- file ---\n{}", text);
            }
        }
    }
}
