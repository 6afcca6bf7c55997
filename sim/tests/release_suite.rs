//! The release suite (`scenarios/release/`, what `bench hil` gates a
//! firmware on by default) reaches every rule the core knows, by
//! construction: every `Transition` of the clock (the arbiter's functions
//! are transitions too: pause, resume, set time, adjust time, set moves,
//! replacement) is named in some scenario's `exercises`, which fails that
//! scenario's run when the rule never happened; and every kind of time
//! control is played. A transition added to the core without a scenario
//! that reaches it fails here.

use std::collections::BTreeSet;
use std::path::Path;

use bench_sim::scenario::Scenario;
use chessclock::{Bonus, TimeControl, Transition};

/// Rules of the core the suite does not gate on yet, each with why. Keep it
/// empty: an entry here is a rule a firmware can break and still pass.
const NOT_IN_SUITE: &[(Transition, &str)] = &[];

fn release_suite() -> Vec<Scenario> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/release");
    Scenario::load_folder(&folder).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn every_transition_of_the_core_is_exercised_by_a_release_scenario() {
    let suite = release_suite();
    let mut exercised = BTreeSet::new();
    for scenario in &suite {
        for key in &scenario.expect.exercises {
            let transition = Transition::from_key(key)
                .unwrap_or_else(|| panic!("{}: `{key}` is no transition of the core", scenario.name));
            exercised.insert(transition.key());
        }
    }
    let missing: Vec<&str> = Transition::ALL
        .iter()
        .filter(|transition| !NOT_IN_SUITE.iter().any(|(waived, _)| waived == *transition))
        .map(|transition| transition.key())
        .filter(|key| !exercised.contains(key))
        .collect();
    assert!(
        missing.is_empty(),
        "no release scenario exercises {missing:?}: add one to scenarios/release/ whose `exercises` names it"
    );
    for (transition, why) in NOT_IN_SUITE {
        assert!(!exercised.contains(transition.key()), "{} is in the suite now: drop it from NOT_IN_SUITE", why);
    }
}

/// The kinds of time control a clock offers, and which of them a control is.
fn kinds(control: &TimeControl) -> Vec<&'static str> {
    match control {
        TimeControl::Stages(stages) => {
            let mut kinds: Vec<&'static str> = stages
                .as_slice()
                .iter()
                .map(|stage| match stage.bonus {
                    Bonus::None => "sudden death",
                    Bonus::Increment(_) => "Fischer increment",
                    Bonus::Delay(_) => "time delay",
                    Bonus::Bronstein(_) => "Bronstein delay",
                })
                .collect();
            if stages.len() > 1 {
                kinds.push("stages");
            }
            kinds
        }
        TimeControl::Hourglass { .. } => vec!["hourglass"],
        TimeControl::ByoYomi { .. } => vec!["byo-yomi"],
        TimeControl::Canadian { .. } => vec!["Canadian overtime"],
    }
}

#[test]
fn every_kind_of_time_control_is_played_by_a_release_scenario() {
    let played: BTreeSet<&str> = release_suite().iter().flat_map(|scenario| kinds(&scenario.control.control)).collect();
    let every = [
        "sudden death",
        "Fischer increment",
        "time delay",
        "Bronstein delay",
        "stages",
        "hourglass",
        "byo-yomi",
        "Canadian overtime",
    ];
    let missing: Vec<&str> = every.into_iter().filter(|kind| !played.contains(kind)).collect();
    assert!(missing.is_empty(), "no release scenario plays {missing:?}");
}
