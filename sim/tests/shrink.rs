//! Shrinking finds the known minimal case: in a game whose only harmful
//! defect is a missed press, shrinking keeps the missed press, switches off
//! everything else, and keeps a few moves of the game.
//! Properties: any shrunk game fails with the original's cause and is
//! 1-minimal (no single move, act or defect more can go), shrinking keeps
//! the cause where a plain reduction slides to another, and the replay a
//! command prints (`--trace`, `--disable`, `--max-moves`) is the game that
//! ran.

use std::path::Path;

use bench_sim::ddmin::ddmin;
use bench_sim::defects::{Defect, DefectSet};
use bench_sim::game::{GameRecord, Script};
use bench_sim::run::failure_reasons;
use bench_sim::scenario::Scenario;
use bench_sim::shrink::{first_cause, shrink, Cause, Shrunk, Target, Variant, BUDGET_DEFAULT};

fn play_variant(target: Target<'_>, disabled: DefectSet, max_moves: u32, trace: bool) -> GameRecord {
    bench_sim::shrink::play_variant(target, Variant { disabled, max_moves, script: None }, trace)
}

/// The shrunk game played again (with its shorter control, if it has
/// one), `script` instead of its own.
fn played_with(target: Target<'_>, shrunk: &Shrunk, disabled: DefectSet, script: &Script) -> GameRecord {
    let variant = Variant { disabled, max_moves: shrunk.max_moves, script: Some(script) };
    let scenario = Scenario {
        control: shrunk.control.clone().unwrap_or(target.scenario.control.clone()),
        ..target.scenario.clone()
    };
    bench_sim::shrink::play_variant(Target { scenario: &scenario, ..target }, variant, false)
}

/// Whether a shrunk game is 1-minimal: leaving out any one element of its
/// script, or switching off any one more defect, loses its cause. `None`
/// when it is; else what could still go.
fn not_minimal(target: Target<'_>, shrunk: &Shrunk) -> Option<String> {
    let scenario = target.scenario;
    let cause = Some(shrunk.cause.clone());
    let elements = shrunk.script.elements();
    for left_out in 0..elements.len() {
        let mut kept = elements.clone();
        let element = kept.remove(left_out);
        let fewer = shrunk.script.keeping(&kept);
        if first_cause(scenario, &played_with(target, shrunk, shrunk.disabled, &fewer)) == cause {
            return Some(format!("element {element:?} of {} can go", elements.len()));
        }
    }
    for defect in Defect::ALL.into_iter().filter(|defect| !shrunk.disabled.contains(*defect)) {
        let record = played_with(target, shrunk, shrunk.disabled.with(defect), &shrunk.script);
        if first_cause(scenario, &record) == cause {
            return Some(format!("{} can be switched off too ({})", defect.name(), shrunk.disabled));
        }
    }
    None
}
use proptest::prelude::*;

/// Any time error fails a game; only missed presses cause one (the other
/// defects change what players see or stop both clocks alike).
const SCENARIO: &str = r#"
description = "shrink target"
control = "120+1"
games = 50
[players]
think = { distribution = "uniform", min_ms = 500, max_ms = 3000 }
[device]
missed_press = "1/15"
display_freeze = { chance = "1/5", min_ms = 500, max_ms = 2000 }
[arbiter]
pause = { chance = "1/8", min_ms = 1000, max_ms = 5000 }
[expect]
time_error_max_us = 0
agreement_min_percent = 0
"#;

#[test]
fn shrinking_keeps_only_the_missed_press_and_cuts_the_game_after_it() {
    let scenario = Scenario::parse(SCENARIO, Path::new("shrink.toml")).unwrap();
    let failing = (0..scenario.games)
        .find(|game| {
            let target = Target { scenario: &scenario, seed: 3, game: *game, swarm: false, model_oracle: false };
            !failure_reasons(&scenario, &play_variant(target, DefectSet::NONE, scenario.board.max_moves, false))
                .is_empty()
        })
        .expect("some game has a missed press");
    let target = Target { scenario: &scenario, seed: 3, game: failing, swarm: false, model_oracle: false };
    let shrunk = shrink(target, BUDGET_DEFAULT).expect("the game fails, so it shrinks");

    assert_eq!(shrunk.cause, Cause::TimeError);
    assert!(!shrunk.disabled.contains(Defect::MissedPress), "the missed press is the cause: {}", shrunk.disabled);
    for harmless in [Defect::DisplayFreeze, Defect::Pause] {
        assert!(shrunk.disabled.contains(harmless), "{harmless:?} is not needed: {}", shrunk.disabled);
    }
    let trace = shrunk.record.trace.as_ref().unwrap();
    assert!(trace.iter().any(|line| line.contains("press missed")), "the shrunk trace shows the missed press");
    assert!(!failure_reasons(&scenario, &shrunk.record).is_empty());
    assert!(
        shrunk.script.len() <= 4,
        "a missed press needs a move or two, not the game's {} moves, acts and faults: {:?}",
        shrunk.original_len,
        shrunk.script
    );
    assert!(!shrunk.budget_spent);
    assert_eq!(not_minimal(target, &shrunk), None);
    // A missed press needs no two minutes a side: the control is halved
    // while the game still fails, down to a few seconds.
    let control = shrunk.control.as_ref().expect("a shorter control");
    assert!(control.text.ends_with("+1") && control.text.len() < "120+1".len() + 3, "{}", control.text);
    let halved_once_more = control.with_main_times_halved().expect("shorter still");
    let scenario = Scenario { control: halved_once_more, ..scenario.clone() };
    let variant = Variant { disabled: shrunk.disabled, max_moves: shrunk.max_moves, script: Some(&shrunk.script) };
    let shorter = bench_sim::shrink::play_variant(Target { scenario: &scenario, ..target }, variant, false);
    assert_ne!(
        first_cause(&scenario, &shorter),
        Some(Cause::TimeError),
        "{}: halved once more, it passes",
        control.text
    );
}

/// Under a delay (6.2 b) every think longer than the delay spends main
/// time, so leaving a move out (two thinks merged) makes a flag fall
/// before the failure: delta debugging alone spent the whole budget here
/// and kept 377 of 432 presses. The failure is a race (a double press
/// whose second edge lands after the opponent's quick reply), so hurrying
/// every move at once loses it too; hurrying all but the few thinks that
/// matter keeps it, and the game then shrinks to a handful of presses.
#[test]
fn a_game_that_needs_its_moves_under_a_delay_shrinks_within_the_budget() {
    let on: Vec<bool> = (0..12).map(|index| index == 4 || index == 8).collect();
    let scenario = mixed_scenario("2/30:60+d2", &on, true);
    let target = Target { scenario: &scenario, seed: 398, game: 4, swarm: false, model_oracle: false };
    let shrunk = shrink(target, BUDGET_DEFAULT).expect("the game fails");
    assert_eq!(shrunk.cause, Cause::TimeError);
    assert!(shrunk.original_presses > 400, "the game is long: {} presses", shrunk.original_presses);
    assert!(!shrunk.budget_spent, "{} games", shrunk.attempts);
    assert!(shrunk.record.presses <= 10, "{} presses: {:?}", shrunk.record.presses, shrunk.script);
    assert_eq!(not_minimal(target, &shrunk), None);
}

#[test]
fn a_passing_game_has_nothing_to_shrink() {
    let scenario = Scenario::parse(SCENARIO, Path::new("shrink.toml")).unwrap();
    let clean = Scenario {
        device: DefectSet::NONE.with(Defect::MissedPress).apply_to_device(scenario.device),
        ..scenario.clone()
    };
    let target = Target { scenario: &clean, seed: 3, game: 0, swarm: false, model_oracle: false };
    assert!(shrink(target, BUDGET_DEFAULT).is_none());
}

/// A scenario with any mix of the device's defects and the arbiter's
/// interventions, where any time error or disagreement fails a game.
fn mixed_scenario(control: &str, on: &[bool], legal: bool) -> Scenario {
    let text = mixed_text(control, on, legal);
    Scenario::parse(&text, Path::new("shrink-property.toml")).unwrap_or_else(|error| panic!("{error}\n{text}"))
}

fn mixed_text(control: &str, on: &[bool], legal: bool) -> String {
    let line = |index: usize, text: &str| if on[index] { format!("{text}\n") } else { String::new() };
    format!(
        "description = \"shrink property\"\ncontrol = \"{control}\"\nmoves = \"{moves}\"\n\
         [players]\nthink = {{ distribution = \"skewed\", min_ms = 100, max_ms = 6000 }}\n\
         [device]\n{}{}{}{}{}{}{}{}\
         [arbiter]\n{}{}{}{}\
         [expect]\ntime_error_max_us = 0\nagreement_min_percent = 100\n",
        line(0, "drift_ppm = 300"),
        line(1, "jitter_us = 2000"),
        line(2, "bounce = { chance = \"1/6\", min_ms = 1, max_ms = 60 }"),
        line(3, "missed_press = \"1/25\""),
        line(4, "double_press = \"1/25\""),
        line(5, "stuck_button = { chance = \"1/40\", min_ms = 200, max_ms = 3000 }"),
        line(6, "brownout = { chance = \"1/60\", restore = \"backup\" }"),
        line(7, "display_freeze = { chance = \"1/30\", min_ms = 500, max_ms = 4000 }"),
        line(8, "pause = { chance = \"1/10\", min_ms = 1000, max_ms = 5000 }"),
        line(9, "adjust = { chance = \"1/10\", min_ms = 100, max_ms = 3000 }"),
        line(10, "set_moves = \"1/10\""),
        line(11, "replace_clock = \"1/20\""),
        moves = if legal { "legal" } else { "abstract" },
    )
}

proptest! {
    // 64 cases unless PROPTEST_CASES says otherwise: each shrink plays
    // hundreds of games and the minimality check as many again.
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever the mix, a shrunk game fails with the original's first
    /// cause, replays from its script, and is 1-minimal.
    #[test]
    fn a_shrunk_game_fails_and_nothing_more_can_go(
        control in prop::sample::select(vec!["120+1", "60", "2/30:60+d2", "30+b3", "20(3x5)"]),
        on in prop::collection::vec(any::<bool>(), 12),
        seed in 0..1_000u64,
        game in 0..8u64,
        legal in prop::bool::weighted(0.2),
    ) {
        let scenario = mixed_scenario(control, &on, legal);
        let target = Target { scenario: &scenario, seed, game, swarm: false, model_oracle: false };
        let Some(shrunk) = shrink(target, BUDGET_DEFAULT) else {
            let whole = play_variant(target, DefectSet::NONE, scenario.board.max_moves, false);
            prop_assert!(failure_reasons(&scenario, &whole).is_empty(), "fails but does not shrink");
            return Ok(());
        };
        let original = first_cause(&scenario, &play_variant(target, DefectSet::NONE, scenario.board.max_moves, false));
        prop_assert_eq!(Some(&shrunk.cause), original.as_ref(), "the cause is the game's first");
        prop_assert_eq!(first_cause(&scenario, &shrunk.record), Some(shrunk.cause.clone()), "the shrunk game fails the same way");
        let replay = played_with(target, &shrunk, shrunk.disabled, &shrunk.script);
        prop_assert_eq!(replay.trace_hash, shrunk.record.trace_hash, "the replay is the shrunk game");
        prop_assert!(!shrunk.budget_spent);
        if let Some(why) = not_minimal(target, &shrunk) {
            prop_assert!(false, "not 1-minimal: {}", why);
        }
    }

    /// What a printed command replays is the game that ran: tracing it,
    /// switching off defects the scenario does not have, or bounding the
    /// moves above what it played changes nothing.
    #[test]
    fn a_replay_is_the_game_that_ran(
        control in prop::sample::select(vec!["120+1", "60", "2/30:60+d2", "30+b3", "20(3x5)", "*40"]),
        on in prop::collection::vec(any::<bool>(), 12),
        seed in 0..1_000u64,
        game in 0..8u64,
        swarm in any::<bool>(),
        legal in prop::bool::weighted(0.2),
    ) {
        let scenario = mixed_scenario(control, &on, legal);
        let target = Target { scenario: &scenario, seed, game, swarm, model_oracle: false };
        let max_moves = scenario.board.max_moves;
        let ran = play_variant(target, DefectSet::NONE, max_moves, false);
        let same = |replay: &bench_sim::game::GameRecord| {
            (replay.trace_hash, replay.device, replay.ideal, replay.max_time_error_us, replay.moves, replay.presses)
                == (ran.trace_hash, ran.device, ran.ideal, ran.max_time_error_us, ran.moves, ran.presses)
        };

        let traced = play_variant(target, DefectSet::NONE, max_moves, true);
        prop_assert!(same(&traced), "--trace changes the game");
        prop_assert!(traced.trace.as_ref().is_some_and(|lines| !lines.is_empty()), "--trace prints the events");

        if !swarm {
            let absent = Defect::ALL.into_iter().fold(DefectSet::NONE, |absent, defect| {
                let off = DefectSet::NONE.with(defect);
                let unchanged = off.apply_to_device(scenario.device) == scenario.device
                    && off.apply_to_arbiter(scenario.arbiter) == scenario.arbiter;
                if unchanged { absent.with(defect) } else { absent }
            });
            prop_assert!(same(&play_variant(target, absent, max_moves, false)), "--disable {} changes the game", absent);
        }

        let longest = ran.moves.white.max(ran.moves.black);
        if longest < max_moves {
            let bounded = play_variant(target, DefectSet::NONE, longest + 1, false);
            prop_assert!(same(&bounded), "--max-moves {} changes a game of {} moves", longest + 1, longest);
        }
    }
}

/// A plain reduction, "still fails", slides from the game's cause to
/// another: a game whose first failure is a disagreement of results ends
/// up failing on a time error, or the other way round. The shrinker keeps
/// the cause on exactly those games.
#[test]
fn shrinking_keeps_the_cause_where_a_plain_reduction_slides_to_another() {
    let on = [true; 12];
    let text = mixed_text("120+1", &on, false).replace("time_error_max_us = 0", "time_error_max_us = 1500000");
    let scenario = Scenario::parse(&text, Path::new("shrink-slide.toml")).unwrap();
    let mut slid = 0;
    for game in 0..40 {
        let target = Target { scenario: &scenario, seed: 5, game, swarm: false, model_oracle: false };
        let whole = play_variant(target, DefectSet::NONE, scenario.board.max_moves, false);
        let (Some(cause), Some(script)) = (first_cause(&scenario, &whole), whole.script.clone()) else { continue };
        let plain = ddmin(script.elements(), BUDGET_DEFAULT, |kept| {
            let record = played_script(target, &scenario, &script.keeping(kept));
            !failure_reasons(&scenario, &record).is_empty()
        });
        let plain_cause = first_cause(&scenario, &played_script(target, &scenario, &script.keeping(&plain.kept)));
        if plain_cause.as_ref() == Some(&cause) {
            continue;
        }
        slid += 1;
        let shrunk = shrink(target, BUDGET_DEFAULT).expect("the game fails");
        assert_eq!(shrunk.cause, cause, "game {game}: the plain reduction slid to {plain_cause:?}");
        assert_eq!(first_cause(&scenario, &shrunk.record), Some(cause), "game {game}");
    }
    assert!(slid >= 1, "some game shows the slide");
}

fn played_script(target: Target<'_>, scenario: &Scenario, script: &Script) -> GameRecord {
    let variant = Variant { disabled: DefectSet::NONE, max_moves: scenario.board.max_moves, script: Some(script) };
    bench_sim::shrink::play_variant(target, variant, false)
}
