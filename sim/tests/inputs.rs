//! The input log (`GameSpec::record_inputs`): what the players and the
//! arbiter did to the device clock, and how the device game ended.
//!
//! - Logging changes no game: every shipped scenario, plain and swarm,
//!   plays the same with and without it.
//! - The log holds every press and arbiter act the game made.
//! - On a perfect device, the logged inputs replayed on a bare clock core
//!   give the game's flags, and its ending is the device's (= the ideal
//!   clock's) result: the log is all a firmware under test needs.

use std::path::Path;

use bench_sim::defects::DefectSet;
use bench_sim::defects::Struck;
use bench_sim::game::{self, EndedBy, GameRecord, GameSpec, Input, InputLog};
use bench_sim::scenario::Scenario;
use chessclock::{BySide, Clock, FlagFall, Instant, Side};

fn shipped() -> Vec<Scenario> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let scenarios = Scenario::load_folder(&folder).unwrap_or_else(|error| panic!("{error}"));
    assert!(scenarios.len() >= 20, "the shipped scenarios: {}", scenarios.len());
    scenarios.into_iter().filter(|scenario| scenario.correspondence.is_none()).collect()
}

fn play(scenario: &Scenario, game: u64, swarm: bool, record_inputs: bool) -> GameRecord {
    game::play(GameSpec {
        scenario,
        seed: scenario.seed,
        game,
        swarm,
        trace: true,
        model_oracle: false,
        disabled: DefectSet::NONE,
        record_inputs,
        script: None,
    })
}

fn log(record: &GameRecord) -> &InputLog {
    record.inputs.as_ref().expect("the inputs were recorded")
}

#[test]
fn logging_changes_no_game() {
    for scenario in shipped() {
        for game in 0..3 {
            for swarm in [false, true] {
                let plain = play(&scenario, game, swarm, false);
                let logged = play(&scenario, game, swarm, true);
                let what = format!("{} game {game} swarm {swarm}", scenario.name);
                assert!(plain.inputs.is_none(), "{what}: no log unless asked");
                assert_eq!(plain.trace_hash, logged.trace_hash, "{what}");
                assert_eq!(plain.trace, logged.trace, "{what}");
                assert_eq!((plain.device, plain.ideal, plain.end_us), (logged.device, logged.ideal, logged.end_us));
            }
        }
    }
}

/// Every move's press (`<at> <Side> move <n>, press` in the trace) is in
/// the log at its instant, and every arbiter act the game counted is too;
/// the ending is the device game's.
#[test]
fn the_log_holds_every_press_and_arbiter_act() {
    let mut acts = 0;
    for scenario in shipped() {
        for game in 0..4 {
            let record = play(&scenario, game, true, true);
            let what = format!("{} game {game}", scenario.name);
            let log = log(&record);
            let traced: Vec<(u64, Side, u32)> =
                record.trace.as_deref().unwrap_or_default().iter().filter_map(|line| move_press(line)).collect();
            let logged: Vec<(u64, Side, u32)> = log
                .inputs
                .iter()
                .filter_map(|entry| match entry.input {
                    Input::Press { side, move_number: Some(number) } => Some((entry.at_us, side, number)),
                    _ => None,
                })
                .collect();
            assert_eq!(logged, traced, "{what}");
            let count = |wanted: fn(&Input) -> bool| log.inputs.iter().filter(|entry| wanted(&entry.input)).count();
            let defects = record.defects;
            assert_eq!(count(|input| matches!(input, Input::Pause)) as u64, defects.get(Struck::Pause), "{what}");
            assert_eq!(
                count(|input| matches!(input, Input::Adjust { .. })) as u64,
                defects.get(Struck::Adjustment),
                "{what}"
            );
            // A lost device is replaced too (6.11), beyond the arbiter's own replacements.
            let replaced = count(|input| matches!(input, Input::Replace { .. })) as u64;
            assert!(replaced >= defects.get(Struck::Replacement), "{what}");
            let presses = count(|input| matches!(input, Input::Press { .. })) as u64;
            assert_eq!(presses, record.presses + defects.get(Struck::Correction), "{what}");
            assert!(log.inputs.windows(2).all(|pair| pair[0].at_us <= pair[1].at_us), "{what}: in time order");
            let ending = log.ending.as_ref().expect("an ending");
            assert_eq!((ending.result, ending.at_us <= record.end_us), (record.device, true), "{what}");
            acts += defects.get(Struck::Pause) + defects.get(Struck::Adjustment) + defects.get(Struck::Replacement);
        }
    }
    assert!(acts > 10, "the shipped scenarios exercise the arbiter: {acts} acts");
}

/// 6.14: a restore sets both clocks to what the log, replayed on a bare
/// clock core, showed just after the press two before the latest (one move
/// of each side earlier), and both counters to the move numbers of the
/// presses up to it.
#[test]
fn a_restore_sets_the_clocks_and_counters_of_one_move_of_each_side_earlier() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/release");
    let release = Scenario::load_folder(&folder).unwrap_or_else(|error| panic!("{error}"));
    let scenarios: Vec<Scenario> =
        shipped().into_iter().chain(release).filter(|scenario| !scenario.arbiter.restore.is_never()).collect();
    assert!(!scenarios.is_empty(), "a shipped scenario restores positions");
    let mut restores = 0;
    for scenario in &scenarios {
        for game in 0..4 {
            let record = play(scenario, game, false, true);
            let what = format!("{} game {game}", scenario.name);
            let mut clock = Clock::new(scenario.control.control);
            clock.start(Instant::EPOCH).expect("starts");
            // Just after each press: the times shown and the move numbers.
            let mut points: Vec<(BySide<u64>, BySide<u32>)> = Vec::new();
            let mut moves = BySide::both(0);
            let mut set_times = Vec::new();
            for entry in &log(&record).inputs {
                let at = Instant::from_us(entry.at_us);
                match entry.input {
                    Input::Press { side, move_number } => {
                        clock.press(side, at).expect("a perfect device takes every press");
                        if let Some(number) = move_number {
                            *moves.get_mut(side) = number;
                        }
                        let shown = |side| clock.remaining(side, at).expect("shown").as_us();
                        points.push((BySide::new(shown(Side::White), shown(Side::Black)), moves));
                        set_times.clear();
                    }
                    Input::SetTime { side, time } => {
                        let (shown, _) = points[points.len() - 3];
                        assert_eq!(time.as_us(), *shown.get(side), "{what} at {}", entry.at_us);
                        clock.set_time(side, time, at).expect("sets");
                        set_times.push(side);
                    }
                    Input::SetMoves { moves: set } if set_times.len() == 2 => {
                        let (_, earlier) = points[points.len() - 3];
                        assert_eq!(set, earlier, "{what} at {}", entry.at_us);
                        for side in Side::BOTH {
                            clock.set_moves(side, *set.get(side), at).expect("sets");
                        }
                        moves = set;
                        // The restored position is the newest one now.
                        points.truncate(points.len() - 2);
                        restores += 1;
                    }
                    Input::SetMoves { .. } => panic!("{what}: a counter set without its times"),
                    Input::Adjust { side, adjustment } => clock.adjust_time(side, adjustment, at).expect("adjusts"),
                    Input::Pause | Input::Resume | Input::Replace { .. } => panic!("{what}: not in this scenario"),
                }
            }
        }
    }
    assert!(restores >= 4, "{restores} restores");
}

/// `<at> <Side> move <n>, press`, as `game/players.rs` traces a move's press.
fn move_press(line: &str) -> Option<(u64, Side, u32)> {
    let (at, rest) = line.trim_start().split_once(' ')?;
    let (side, number) = rest.strip_suffix(", press")?.split_once(" move ")?;
    let side = match side {
        "White" => Side::White,
        "Black" => Side::Black,
        _ => return None,
    };
    Some((at.parse().ok()?, side, number.parse().ok()?))
}

/// The logged inputs, replayed on a bare clock core at their instants: the
/// flags it shows at the ending.
fn replayed_flags(scenario: &Scenario, log: &InputLog) -> Vec<FlagFall> {
    let control = scenario.control.control;
    let mut clock = Clock::new(control);
    clock.start(Instant::EPOCH).expect("starts");
    for entry in &log.inputs {
        let at = Instant::from_us(entry.at_us);
        let applied = match entry.input {
            Input::Press { side, .. } => clock.press(side, at),
            Input::Pause => clock.pause(at),
            Input::Resume => clock.resume(at),
            Input::Adjust { side, adjustment } => clock.adjust_time(side, adjustment, at),
            Input::SetTime { side, time } => clock.set_time(side, time, at),
            Input::SetMoves { moves } => clock
                .set_moves(Side::White, moves.white, at)
                .and_then(|()| clock.set_moves(Side::Black, moves.black, at)),
            Input::Replace { settings, running } => {
                clock = Clock::new(control);
                let handed_over = |clock: &mut Clock| match running {
                    Side::White => Ok(()),
                    Side::Black => clock.press(Side::White, at),
                };
                clock.start(at).and_then(|()| handed_over(&mut clock)).and_then(|()| clock.replace(settings, at))
            }
        };
        applied.unwrap_or_else(|error| panic!("{} at {} us: {error}", scenario.name, entry.at_us));
    }
    let ending = log.ending.as_ref().expect("an ending");
    if clock.running().is_some() {
        clock.settle(Instant::from_us(ending.at_us)).expect("settles");
    }
    Side::BOTH.into_iter().filter_map(|side| clock.flag(side)).collect()
}

#[test]
fn on_a_perfect_device_the_log_replays_to_the_games_flags_and_result() {
    let (mut flagged, mut unflagged) = (0, 0);
    for scenario in shipped() {
        let perfect = scenario.with_perfect_device();
        for game in 0..4 {
            let record = play(&perfect, game, false, true);
            let what = format!("{} game {game}", scenario.name);
            let log = log(&record);
            let ending = log.ending.as_ref().expect("an ending");
            assert_eq!(record.device, record.ideal, "{what}: a perfect device is the ideal clock");
            assert_eq!(record.max_time_error_us, 0, "{what}");
            assert_eq!(ending.result, record.device, "{what}");
            assert_eq!(replayed_flags(&perfect, log), ending.flags, "{what}");
            assert_eq!(log.moves(), moves_pressed(&record, ending.by), "{what}");
            if ending.flags.is_empty() {
                unflagged += 1;
            } else {
                flagged += 1;
            }
        }
    }
    assert!(flagged > 0 && unflagged > 0, "games with ({flagged}) and without ({unflagged}) flags");
}

/// The game's moves, less the move that ended it on the board (it has no press).
fn moves_pressed(record: &GameRecord, by: EndedBy) -> BySide<u32> {
    let mut moves = record.moves;
    if let EndedBy::Board { side, .. } = by {
        *moves.get_mut(side) -= 1;
    }
    moves
}
