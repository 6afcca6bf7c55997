//! The game's script (`game::Script`): what the players and the arbiter
//! chose, played again instead of drawn.
//!
//! - A game played from its own script is the same game: every shipped
//!   over-the-board scenario, plain and swarm, gives the same results,
//!   rulings, violations, defects and device inputs, and writes the same
//!   script again. It draws none of the players' and arbiter's choices nor
//!   the device's faults: played with other thinking habits, an arbiter
//!   who never steps in and defects that never strike, the scripted game
//!   does not change.
//! - A script cut short is still a game: the player to move stops moving,
//!   and the game ends on that player's clock.

use std::path::Path;

use bench_sim::defects::DefectSet;
use bench_sim::game::{self, GameRecord, GameSpec, Script};
use bench_sim::outcome::Reason;
use bench_sim::sample::Ratio;
use bench_sim::scenario::{Occasional, Scenario, Think};

fn shipped() -> Vec<Scenario> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let scenarios = Scenario::load_folder(&folder).unwrap_or_else(|error| panic!("{error}"));
    scenarios.into_iter().filter(|scenario| scenario.correspondence.is_none()).collect()
}

fn play(scenario: &Scenario, game: u64, swarm: bool, script: Option<&Script>) -> GameRecord {
    game::play(GameSpec {
        scenario,
        seed: scenario.seed,
        game,
        swarm,
        trace: false,
        model_oracle: true,
        disabled: DefectSet::NONE,
        record_inputs: true,
        script,
    })
}

/// The scenario with players who think otherwise, an arbiter who never
/// steps in and a device whose defects never strike: what a script
/// replaces.
fn other_choices(scenario: &Scenario) -> Scenario {
    let mut other = scenario.clone();
    let think = Think { min_ms: 1_000, max_ms: 1_000, ..scenario.players.think };
    for player in [Some(&mut other.players), other.white.as_mut(), other.black.as_mut()].into_iter().flatten() {
        player.think = think;
    }
    let never = Occasional { chance: Ratio::NEVER, ..scenario.arbiter.pause };
    other.arbiter.pause = never;
    other.arbiter.adjust = Occasional { chance: Ratio::NEVER, ..scenario.arbiter.adjust };
    other.arbiter.set_moves = Ratio::NEVER;
    other.arbiter.replace_clock = Ratio::NEVER;
    other.arbiter.restore = Ratio::NEVER;
    let device = &mut other.device;
    device.missed_press = Ratio::NEVER;
    device.double_press = Ratio::NEVER;
    for occasional in [&mut device.bounce, &mut device.stuck_button, &mut device.display_freeze] {
        occasional.chance = Ratio::NEVER;
    }
    device.brownout.chance = Ratio::NEVER;
    other
}

/// Everything a game is judged by, for comparing two plays of it.
fn judged(record: &GameRecord) -> String {
    format!(
        "device {:?} ideal {:?} applied {:?} moves {:?} presses {} end {} error {} defects {:?} violations {:?} \
         inputs {:?} transitions {:?}",
        record.device,
        record.ideal,
        record.applied,
        record.moves,
        record.presses,
        record.end_us,
        record.max_time_error_us,
        record.defects,
        record.violations,
        record.inputs,
        record.transitions,
    )
}

#[test]
fn every_shipped_game_played_from_its_script_is_the_same_game() {
    let (mut acts, mut faults) = (0, 0);
    for scenario in shipped() {
        for swarm in [false, true] {
            for game in 0..6 {
                let drawn = play(&scenario, game, swarm, None);
                let script = drawn.script.clone().expect("the script was kept");
                acts += script.moves.iter().map(|scripted| scripted.arbiter.len()).sum::<usize>();
                faults += script.moves.iter().map(|scripted| scripted.faults.len()).sum::<usize>();
                let replayed = play(&other_choices(&scenario), game, swarm, Some(&script));
                let name = &scenario.name;
                assert_eq!(judged(&replayed), judged(&drawn), "{name} game {game} swarm {swarm}");
                assert_eq!(replayed.script.as_ref(), Some(&script), "{name} game {game}: the same script again");
            }
        }
    }
    assert!(acts > 20, "the arbiter acted in the shipped games: {acts} acts");
    assert!(faults > 100, "the devices' defects struck in the shipped games: {faults} faults");
}

#[test]
fn a_script_cut_short_ends_the_game_on_the_clock_of_the_player_left_to_move() {
    let scenario = shipped().into_iter().find(|scenario| scenario.name == "blitz-3-2").expect("blitz-3-2 ships");
    let drawn = play(&scenario, 0, false, None);
    let mut script = drawn.script.clone().expect("the script was kept");
    assert!(script.moves.len() > 10, "a blitz game has moves: {}", script.moves.len());
    // White's sixth move never comes (moves 0..=9 alternate White, Black).
    script.moves.truncate(10);
    let cut = play(&scenario, 0, false, Some(&script));
    assert_eq!(cut.moves.white, 5);
    assert_eq!(cut.moves.black, 5);
    let flags = cut.inputs.as_ref().and_then(|log| log.ending.clone()).expect("the game ended").flags;
    assert!(flags.iter().any(|flag| flag.side == chessclock::Side::White), "White's flag fell: {flags:?}");
    assert!(matches!(cut.device.reason, Reason::Article(_)), "a ruling ended it: {}", cut.device);
}
