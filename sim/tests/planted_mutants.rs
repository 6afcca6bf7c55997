//! The oracles' power, kept: a core with a rule planted wrong (the
//! feature `planted-mutants` of `chessclock`, which only tests turn on)
//! must make the simulator's oracles fire on the shipped scenario that
//! plays that rule, and the core as written must not.
//!
//! The independent model is what catches the rule mutants: the invariant
//! oracles check how numbers move between calls, not what the rules give
//! (for Bronstein crediting the whole delay they flag no game). So each
//! must be flagged by the model in particular; a clock that keeps running
//! after the game's end, by the invariant that says it stops.
//!
//! One test in this binary: a planted mutant holds for the whole process.

use std::path::PathBuf;

use bench_sim::defects::DefectSet;
use bench_sim::game::{self, GameRecord, GameSpec};
use bench_sim::scenario::Scenario;
use chessclock::planted::{self, Mutant};

/// Games of each scenario played per mutant: enough for every mutant to
/// strike, few enough for a fast test.
const GAMES: u64 = 12;

/// The check the independent model's violations carry.
const MODEL_CHECK: &str = "independent model agrees";

/// The shipped scenario that plays the rule `mutant` gets wrong.
fn scenario_for(mutant: Mutant) -> &'static str {
    match mutant {
        Mutant::BronsteinFullDelay => "bronstein",
        Mutant::DelayBanks => "us-delay",
        Mutant::IncrementTwice => "blitz-3-2",
        Mutant::ByoYomiNotRenewed => "byo-yomi",
        Mutant::CanadianBlockEarly => "canadian",
        Mutant::StageTimeLost => "arbiter-pause-adjust",
        Mutant::HourglassNoGain => "hourglass",
        Mutant::PenaltyAdds => "arbiter-pause-adjust",
        Mutant::FinishKeepsRunning => "blitz-3-2",
    }
}

/// The check that must catch `mutant`.
fn catcher(mutant: Mutant) -> &'static str {
    match mutant {
        Mutant::FinishKeepsRunning => "the clock stops at the game's end",
        Mutant::BronsteinFullDelay
        | Mutant::DelayBanks
        | Mutant::IncrementTwice
        | Mutant::ByoYomiNotRenewed
        | Mutant::CanadianBlockEarly
        | Mutant::StageTimeLost
        | Mutant::HourglassNoGain
        | Mutant::PenaltyAdds => MODEL_CHECK,
    }
}

fn load(name: &str) -> Scenario {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios").join(format!("{name}.toml"));
    Scenario::load(&file).unwrap_or_else(|error| panic!("{}: {error}", file.display()))
}

/// The first [`GAMES`] games of `scenario`, with both oracles on.
fn play(scenario: &Scenario) -> Vec<GameRecord> {
    (0..GAMES)
        .map(|game| {
            game::play(GameSpec {
                scenario,
                seed: scenario.seed,
                game,
                swarm: false,
                trace: false,
                model_oracle: true,
                disabled: DefectSet::NONE,
                record_inputs: false,
                script: None,
            })
        })
        .collect()
}

/// Games in which some violation satisfies `which`.
fn flagged(records: &[GameRecord], which: impl Fn(&str) -> bool) -> usize {
    records.iter().filter(|record| record.violations.iter().any(|violation| which(violation.check))).count()
}

#[test]
fn every_planted_mutant_makes_its_oracle_fire_and_the_core_as_written_does_not() {
    let mut missed = Vec::new();
    for mutant in Mutant::ALL {
        let scenario = load(scenario_for(mutant));
        planted::plant(None);
        let clean = play(&scenario);
        let false_alarms = flagged(&clean, |_| true);
        assert_eq!(
            false_alarms, 0,
            "{}: the core as written violates an oracle in {false_alarms} games",
            scenario.name
        );
        planted::plant(Some(mutant));
        let mutated = play(&scenario);
        planted::plant(None);
        let by_catcher = flagged(&mutated, |check| check == catcher(mutant));
        let by_others = flagged(&mutated, |check| check != catcher(mutant));
        println!(
            "{mutant:?} on {}: `{}` flags {by_catcher} of {GAMES} games, the other checks {by_others}",
            scenario.name,
            catcher(mutant)
        );
        if by_catcher == 0 {
            missed.push(format!("{mutant:?} ({}: the other checks flag {by_others} games)", scenario.name));
        }
    }
    assert!(missed.is_empty(), "planted mutants their oracle did not catch: {missed:?}");
}
