//! The players put a misbehaving device right: a press the device misses
//! leaves it running the wrong clock until a player notices (within an
//! attention span) and presses again.

use std::path::Path;

use bench_sim::defects::DefectSet;
use bench_sim::game::{self, GameSpec};
use bench_sim::scenario::Scenario;

/// Missed presses and nothing else: no drift, no jitter, a 1 ms tick.
const MISSING: &str = r#"
description = "players correct missed presses"
control = "600+5"
seed = 4
[players]
think = { distribution = "uniform", min_ms = 2000, max_ms = 9000 }
[device]
missed_press = "1/8"
[expect]
agreement_min_percent = 0
"#;

/// The slowest a player notices the wrong clock running (`ATTENTION_MAX_US`
/// in `game/players.rs`). Players think at least 2 s, so the opponent cannot move
/// (and make the wrong clock right by accident) before that.
const NOTICED_WITHIN_US: u64 = 1_500_000;

/// The true instant a trace line was written at.
fn instant_us(line: &str) -> u64 {
    line.split_whitespace().next().and_then(|word| word.parse().ok()).expect("a trace line starts with its instant")
}

#[test]
fn every_missed_press_is_noticed_and_corrected_within_an_attention_span() {
    let scenario = Scenario::parse(MISSING, Path::new("players.toml")).expect("the scenario parses");
    let mut missed = 0;
    for index in 0..30 {
        let record = game::play(GameSpec {
            scenario: &scenario,
            seed: scenario.seed,
            game: index,
            swarm: false,
            trace: true,
            model_oracle: true,
            disabled: DefectSet::default(),
            record_inputs: false,
            script: None,
        });
        assert!(record.violations.is_empty(), "game {index}: {:?}", record.violations);
        let trace = record.trace.expect("traced");
        // A move's press the device missed (a missed correction is noticed
        // again too, but the opponent's next move may put it right first).
        let missed_moves = trace
            .windows(2)
            .enumerate()
            .filter(|(_, pair)| pair[0].ends_with(", press") && pair[1].ends_with("press missed by the device"));
        for (at, pair) in missed_moves {
            let (at, line) = (at + 1, &pair[1]);
            missed += 1;
            let missed_us = instant_us(line);
            let seen = trace[at + 1..].iter().find(|later| later.contains("sees their clock running"));
            let over = trace.iter().rev().find(|line| line.contains("game over")).map(|line| instant_us(line));
            match seen {
                Some(seen) => assert!(
                    instant_us(seen) - missed_us <= NOTICED_WITHIN_US,
                    "game {index}: missed at {missed_us} us, noticed only at {seen}"
                ),
                None => assert!(
                    over.is_some_and(|over_us| over_us - missed_us <= NOTICED_WITHIN_US),
                    "game {index}: the press missed at {missed_us} us is never noticed"
                ),
            }
        }
    }
    assert!(missed >= 30, "the defect must strike often: {missed} missed presses");
}

/// 6.3 with 6.8a at one instant: White's first stage is one move in 20 ms
/// and White presses after exactly 20 ms. The core orders that press after
/// the flag (late), so the move was not completed when the flag fell; the
/// arbiter, noticing at once, rules 6.10 (a loss; the abstract board lets
/// Black mate). The simulator used to make the move before the notice at
/// that instant, count it, and let play go on (6.3), where the HIL
/// schedule, which orders the notice first, ended the game.
#[test]
fn a_press_at_the_flag_instant_comes_after_the_flag_and_its_notice() {
    let text = "description = \"a press at the flag instant\"\ncontrol = \"1/0.02:5\"\nseed = 1\n\
                [players]\nthink = { distribution = \"uniform\", min_ms = 20, max_ms = 20 }\n\
                [board]\ncannot_mate = 0\n";
    let scenario = Scenario::parse(text, Path::new("late-press.toml")).expect("the scenario parses");
    let record = traced_first_game(&scenario);
    let trace = record.trace.clone().unwrap_or_default().join("\n");
    assert!(record.violations.is_empty(), "{:?}", record.violations);
    assert_eq!(record.ideal.to_string(), "0-1 (6.10)", "{trace}");
    assert_eq!(record.device.to_string(), "0-1 (6.10)", "{trace}");
    assert_eq!(record.presses, 0, "the game ends before White's move: {trace}");
}

/// A player in time trouble reads the display after the opponent's press
/// has reached it (no jitter). Under `0(3x5)` Black's display enters its
/// first 5 s byo-yomi period the instant Black's clock starts; a player
/// taking at most 10 % of it moves after 500 ms. Read before the press
/// landed, the display showed the spent main time, 0, and Black moved after
/// the 250 ms floor (and the HIL schedule, reading the model after the
/// press, disagreed).
#[test]
fn time_trouble_reads_the_display_after_the_opponent_s_press() {
    let text = "description = \"time trouble at the start of overtime\"\ncontrol = \"0(3x5)\"\nseed = 1\n\
                [players]\nthink = { distribution = \"uniform\", min_ms = 3000, max_ms = 3000 }\n\
                time_trouble = { below_ms = 10000, percent = 10 }\n[board]\nends_per_move = 0\nmax_moves = 2\n";
    let scenario = Scenario::parse(text, Path::new("trouble.toml")).expect("the scenario parses");
    let record = traced_first_game(&scenario);
    let trace = record.trace.clone().unwrap_or_default();
    let press = |what: &str| trace.iter().find(|line| line.ends_with(what)).map(|line| instant_us(line));
    assert_eq!(press("White move 1, press"), Some(500_000), "{trace:#?}");
    assert_eq!(press("Black move 1, press"), Some(1_000_000), "{trace:#?}");
}

/// `time_trouble.spare_ms`: a player who would think past the flag presses
/// with `spare_ms` left on the display: 1 ms is a press in the last
/// millisecond, which is in time (6.3 a)); without it the same player
/// presses as the time runs out, which is late, and loses on time (6.10).
#[test]
fn a_spare_millisecond_presses_in_the_last_millisecond_and_none_at_the_flag() {
    let text = |spare: &str| {
        format!(
            "description = \"the last millisecond\"\ncontrol = \"2+1\"\nseed = 1\n\
             [players]\nthink = {{ distribution = \"uniform\", min_ms = 5000, max_ms = 5000 }}\n\
             time_trouble = {{ below_ms = 100000, percent = 100{spare} }}\n[board]\nends_per_move = 0\nmax_moves = 2\n"
        )
    };
    let scenario = Scenario::parse(&text(", spare_ms = 1"), Path::new("last.toml")).expect("the scenario parses");
    let record = traced_first_game(&scenario);
    let trace = record.trace.clone().unwrap_or_default();
    let press = |what: &str| trace.iter().find(|line| line.ends_with(what)).map(|line| instant_us(line));
    // 2 s less the spare; then the spare and the increment, less the spare.
    assert_eq!(press("White move 1, press"), Some(1_999_000), "{trace:#?}");
    assert_eq!(press("Black move 1, press"), Some(3_998_000), "{trace:#?}");
    assert_eq!(press("White move 2, press"), Some(4_998_000), "{trace:#?}");
    assert_eq!(record.device.to_string(), "1/2-1/2 (move-bound)", "{trace:#?}");

    let scenario = Scenario::parse(&text(""), Path::new("flag.toml")).expect("the scenario parses");
    let record = traced_first_game(&scenario);
    assert_eq!(record.device.to_string(), "0-1 (6.10)", "{:#?}", record.trace);
}

/// Game 0 of `scenario` on seed 1, traced, with the tick-model oracle.
fn traced_first_game(scenario: &Scenario) -> game::GameRecord {
    game::play(GameSpec {
        scenario,
        seed: 1,
        game: 0,
        swarm: false,
        trace: true,
        model_oracle: true,
        disabled: DefectSet::default(),
        record_inputs: false,
        script: None,
    })
}
