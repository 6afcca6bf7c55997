//! The oracles' power, kept: a core with a rule planted wrong (the
//! feature `planted-mutants` of `chessclock`, which only tests turn on)
//! must make the simulator's oracles fire on the shipped scenario that
//! plays that rule, and the core as written must not.
//!
//! The independent model is what catches these: the invariant oracles
//! check how numbers move between calls, not what the rules give (for
//! Bronstein crediting the whole delay they flag no game). So each mutant
//! must be flagged by the model in particular.
//!
//! One test in this binary: a planted mutant holds for the whole process.

use std::path::PathBuf;

use bench_sim::game::{self, GameRecord, GameSpec};
use bench_sim::scenario::Scenario;
use bench_sim::shrink::DefectSet;
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
            })
        })
        .collect()
}

/// Games in which some violation satisfies `which`.
fn flagged(records: &[GameRecord], which: impl Fn(&str) -> bool) -> usize {
    records.iter().filter(|record| record.violations.iter().any(|violation| which(violation.check))).count()
}

#[test]
fn every_planted_mutant_makes_the_independent_model_fire_and_the_core_as_written_does_not() {
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
        let by_model = flagged(&mutated, |check| check == MODEL_CHECK);
        let by_invariants = flagged(&mutated, |check| check != MODEL_CHECK);
        println!(
            "{mutant:?} on {}: the model flags {by_model} of {GAMES} games, the invariants {by_invariants}",
            scenario.name
        );
        if by_model == 0 {
            missed.push(format!("{mutant:?} ({}: the invariants flag {by_invariants} games)", scenario.name));
        }
    }
    assert!(missed.is_empty(), "planted mutants the independent model did not catch: {missed:?}");
}
