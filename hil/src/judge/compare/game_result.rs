//! A scheduled game judged as the scenario rules it: both flags by the
//! scenario's arbiter (`arbiter.clock_shows_first_flag`, as the schedule
//! was made), the ruling on the flags the game ended on and no others, and
//! the scenario's `[expect]` result classes that one game can break.
//!
//! One game's result: where the arbiter ruled on flags, his ruling on the
//! flags the firmware showed (a `result` mismatch when it differs from the
//! model's); otherwise the schedule's, which is `bench sim`'s game.
//! A share above zero is a statement about many games, which a HIL run of
//! a few cannot judge; a class the scenario allows in no game
//! (`max_percent = 0`) is judged in every game.

use bench_contract::Record;
use bench_sim::outcome::{GameResult, Reason, ResultClass};
use chessclock::{Article, Outcome};

use super::{compare_ended, CompareError, Comparison, FlagOrder, FlagsAtEnd, Mismatch, Quantity, Resolution};
use crate::schedule::{ArbiterCommand, Schedule, ScheduleEnd};

/// Compares the records of `schedule`'s game with the model at `tick_us`
/// tolerance, the harness having sent the arbiter commands `arbiter`
/// ([`super::compare_with`]), and judges its result.
pub fn compare_game(
    schedule: &Schedule,
    resolution: impl Into<Resolution>,
    records: &[Record],
    arbiter: &[ArbiterCommand],
) -> Result<Comparison, CompareError> {
    // The schedule keeps the flags shown at the end (a side's latest); the
    // flags before them, to the last of them, are the ones ruled on in turn.
    let fallen = schedule.flags.iter().map(|flag| flag.sequence).max().unwrap_or(0);
    let flags_at_end = match schedule.end {
        ScheduleEnd::Flag { ruling } => FlagsAtEnd::Ruled {
            count: usize::try_from(fallen).unwrap_or(usize::MAX),
            // A flag drawn under 6.10: the board said the opponent cannot mate.
            opponent_can_checkmate: !(ruling.article == Article::A6_10 && ruling.outcome == Outcome::Draw),
        },
        _ => FlagsAtEnd::NotRuled,
    };
    let ending = (FlagOrder::of(schedule.shows_flag_order), flags_at_end);
    let mut comparison = compare_ended(&schedule.control, resolution, records, ending, arbiter)?;
    check_result_classes(&mut comparison, schedule);
    Ok(comparison)
}

/// The game's result on the firmware and the rulings made in it.
fn game_result(comparison: &Comparison, schedule: &Schedule) -> (GameResult, Vec<Article>) {
    match (schedule.end, comparison.firmware.ruling) {
        (ScheduleEnd::Flag { .. }, Some(ruling)) if comparison.model.ruling != Some(ruling) => {
            let mut applied = schedule.applied.clone();
            applied.pop();
            applied.push(ruling.article);
            // A ruling that lets play go on is no result yet (6.12 a)).
            let reason = match ruling.outcome {
                Outcome::Continue => Reason::StillPlaying,
                _ => Reason::Article(ruling.article),
            };
            (GameResult { outcome: ruling.outcome, reason }, applied)
        }
        _ => (schedule.result, schedule.applied.clone()),
    }
}

/// A mismatch for each class the scenario allows in no game that the
/// game's result is in.
fn check_result_classes(comparison: &mut Comparison, schedule: &Schedule) {
    let (result, applied) = game_result(comparison, schedule);
    for class_text in &schedule.classes_excluded {
        // The scenario's classes were validated when it was loaded.
        let Some(class) = ResultClass::parse(class_text) else { continue };
        if class.contains(&result, &applied, &[]) {
            comparison.add(Mismatch {
                quantity: Quantity::ResultClass,
                press_index: None,
                at_us: comparison.end_us,
                seq: None,
                model: format!("the scenario allows no game in class `{class_text}` ([expect] max_percent = 0)"),
                firmware: format!("the game's result is {result} (rulings {})", articles(&applied)),
            });
        }
    }
}

fn articles(applied: &[Article]) -> String {
    let numbers: Vec<&str> = applied.iter().map(|article| article.number()).collect();
    if numbers.is_empty() {
        "none".to_string()
    } else {
        numbers.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use bench_contract::Button;
    use bench_sim::scenario::{Control, Scenario};
    use chessclock::{FlagFall, Instant, Ruling, Side};

    use super::*;
    use crate::testing::firmware::{play, Defects};

    /// Sudden death `3`: White presses at 1 s, Black's flag falls at 4 s
    /// and the arbiter rules on it (6.10, 1-0), as a schedule says.
    fn black_flags(classes_excluded: &[&str]) -> Schedule {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/blitz-3-2.toml");
        let scenario = Scenario::load(&file).expect("the shipped scenario loads");
        let mut schedule = crate::schedule::schedule(&scenario, 1, 0).expect("a schedule");
        let ruling = Ruling { outcome: Outcome::Win(Side::White), article: Article::A6_10 };
        schedule.control = Control { text: "3".to_string(), control: chessclock::notation::parse("3").unwrap() };
        schedule.end = ScheduleEnd::Flag { ruling };
        schedule.result = GameResult { outcome: ruling.outcome, reason: Reason::Article(ruling.article) };
        schedule.applied = vec![Article::A6_10];
        schedule.flags = vec![FlagFall { side: Side::Black, at: Instant::from_us(4_000_000), period: 0, sequence: 1 }];
        schedule.classes_excluded = classes_excluded.iter().map(ToString::to_string).collect();
        schedule
    }

    fn judged(schedule: &Schedule) -> Comparison {
        let records = play(Defects::default(), "3", &[(Button::White, 1_000_000)], 6_000_000);
        compare_game(schedule, 1_000, &records, &[]).expect("the control parses")
    }

    /// A class the scenario allows in no game is judged in every game: the
    /// one check of its `[expect]` results a game of HIL can fail alone.
    #[test]
    fn a_result_in_a_class_the_scenario_excludes_is_a_mismatch() {
        let allowed = judged(&black_flags(&["6.12 b)", "draw", "black"]));
        assert!(allowed.passed(), "{:#?}", allowed.mismatches);
        for class in ["6.10", "white"] {
            let excluded = judged(&black_flags(&[class]));
            assert_eq!(excluded.by_quantity.get("result.class"), Some(&1), "{class}: {:#?}", excluded.mismatches);
            let mismatch = excluded.mismatches.first().expect("the mismatch");
            assert!(mismatch.model.contains(&format!("`{class}`")), "{mismatch}");
            assert!(mismatch.firmware.contains("1-0"), "{mismatch}");
        }
    }

    /// The ruling is the schedule's, on the flags it ended on; with none (a
    /// game ended on the board) there is no ruling on flags to carry a
    /// second winner.
    #[test]
    fn the_ruling_on_flags_is_the_schedules_and_none_when_the_board_ended_the_game() {
        let schedule = black_flags(&[]);
        let flagged = judged(&schedule);
        let ScheduleEnd::Flag { ruling } = schedule.end else { unreachable!("built so") };
        assert_eq!((flagged.model.ruling, flagged.firmware.ruling), (Some(ruling), Some(ruling)));
        let mut drawn = black_flags(&[]);
        let no_mate = Ruling { outcome: Outcome::Draw, article: Article::A6_10 };
        drawn.end = ScheduleEnd::Flag { ruling: no_mate };
        let drawn = judged(&drawn);
        assert_eq!(drawn.model.ruling, Some(no_mate), "the board's answer to 6.10 is the schedule's");
        let mut on_the_board = black_flags(&[]);
        on_the_board.end = ScheduleEnd::MoveBound;
        let on_the_board = judged(&on_the_board);
        assert_eq!((on_the_board.model.ruling, on_the_board.firmware.ruling), (None, None));
        assert_eq!(on_the_board.model.flags.len(), 1, "the flag is still compared");
    }
}
