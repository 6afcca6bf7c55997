//! One game judged: what the session saw and made against the schedule and
//! the model, decided from those alone (the judge never touches a board).
//!
//! ```text
//!   records, presses made, commands sent ─▶ compare (the model on what the
//!     firmware saw) · debounce · cadence · presses · course ─▶ Comparison
//!   records ─▶ press latencies; the counter around each press ─▶ board latency
//!   TimeBase records ─▶ accounting drift
//! ```

use bench_contract::{Hello, Ranges, Record};

use crate::judge::compare::tolerance::DisplayStep;
use crate::judge::compare::{self, CompareError, Comparison, FlagOrder, FlagsAtEnd, MadePress};
use crate::judge::drift::{self, Fit, FitError, FitOptions};
use crate::judge::latency::{board_latency, press_latencies, BoardLatency, Percentiles};
use crate::schedule::{ArbiterCommand, Schedule};
use crate::target::{ButtonId, SentPress};

/// How a game was read, and what the firmware declared: what its records
/// are weighed with.
#[derive(Clone, Debug)]
pub enum Terms {
    /// A contract firmware's records (`hil/CONTRACT.md`).
    Contract {
        /// Its Hello, when it sent one.
        hello: Option<Hello>,
        /// Its declared ranges (Capabilities), or the contract's defaults.
        ranges: Ranges,
        /// The board ran in lockstep: every edge's firmware instant is known.
        lockstep: bool,
        drift: FitOptions,
    },
    /// An uninstrumented firmware read through its map (`--observe`):
    /// every instant may trail its change by `tolerance_us`.
    Observed { tolerance_us: u64 },
}

/// What the session saw and made in one game.
#[derive(Clone, Copy, Debug)]
pub struct GameFacts<'a> {
    pub schedule: &'a Schedule,
    /// Every record from the game's first command on, in the firmware's order.
    pub records: &'a [Record],
    pub sent: &'a [SentPress],
    pub commands_sent: &'a [ArbiterCommand],
    /// Firmware instant of the start, once started.
    pub start_us: Option<u64>,
    /// A failure ended the game early: it is incomplete already, and its
    /// course is not held against the schedule.
    pub cut_short: bool,
}

/// What the judge decided of one game.
#[derive(Debug)]
pub struct Judgement {
    /// The records against the model; `None` when the game never started.
    pub comparison: Option<Result<Comparison, CompareError>>,
    /// Edge-to-registered press latency.
    pub latency: Option<Percentiles>,
    /// Edge-to-stamp latency measured on the board.
    pub board_latency: Option<BoardLatency>,
    /// Accounting drift over this game's TimeBase records.
    pub drift: Result<Fit, FitError>,
}

/// Judges one game.
pub fn judge_game(facts: &GameFacts<'_>, terms: &Terms) -> Judgement {
    match terms {
        Terms::Contract { hello, ranges, lockstep, drift } => {
            judge_contract_game(facts, hello.as_ref(), *ranges, *lockstep, drift)
        }
        Terms::Observed { tolerance_us } => Judgement {
            comparison: facts.start_us.map(|_| observed_comparison(facts, *tolerance_us)),
            latency: None,
            board_latency: None,
            drift: Err(FitError::TooFew { used: 0 }),
        },
    }
}

fn judge_contract_game(
    facts: &GameFacts<'_>,
    hello: Option<&Hello>,
    ranges: Ranges,
    lockstep: bool,
    drift_options: &FitOptions,
) -> Judgement {
    let records = facts.records;
    let tick_us = hello.map_or(0, |hello| u64::from(hello.tick_us));
    let debounce_us = hello.map_or(0, |hello| u64::from(hello.debounce_us));
    let resolution = compare::Resolution {
        tick_us,
        display: DisplayStep {
            step_us: u64::from(ranges.display_step_us),
            fine_below_us: u64::from(ranges.display_fine_below_us),
        },
    };
    let comparison = facts.start_us.map(|_| {
        let compared = compare::compare_game(facts.schedule, resolution, records, facts.commands_sent);
        compared.map(|mut comparison| {
            compare::check_debounce(&mut comparison, records, debounce_us);
            // Each record is a lockstep stop that can cost the firmware a tick.
            let stop_cost_us = if lockstep { tick_us } else { 0 };
            compare::check_cadence(&mut comparison, records, tick_us, stop_cost_us);
            let made: Vec<MadePress> = facts.sent.iter().map(made).collect();
            // In lockstep each edge's firmware instant is known: a stamp
            // may trail it by the tick an interrupt can wait, the poll
            // period the firmware declares (CONTRACT §11), and 100 µs.
            let poll_us = u64::from(ranges.button_poll_us);
            let timing = if lockstep {
                compare::EdgeTiming::Exact { late_max_us: tick_us.saturating_add(poll_us).saturating_add(100) }
            } else {
                compare::EdgeTiming::Approximate
            };
            compare::check_presses(&mut comparison, &made, records, tick_us, debounce_us, timing);
            if !facts.cut_short {
                check_course(
                    &mut comparison,
                    facts.schedule,
                    (facts.sent.len(), facts.commands_sent.len()),
                    facts.start_us,
                );
            }
            comparison
        })
    });
    Judgement {
        comparison,
        latency: Percentiles::of(&press_latencies(records)),
        board_latency: hello.and_then(|hello| board_latency(facts.sent, records, hello)),
        drift: match hello {
            Some(hello) => drift::fit(&drift::accounting_samples(records, hello), drift_options),
            None => Err(FitError::TooFew { used: 0 }),
        },
    }
}

/// An observed game's records against the model, each instant allowed to
/// trail its change by `tolerance_us`.
fn observed_comparison(facts: &GameFacts<'_>, tolerance_us: u64) -> Result<Comparison, CompareError> {
    let schedule = facts.schedule;
    let ending = (FlagOrder::Shown, FlagsAtEnd::All);
    compare::compare_ended(&schedule.control, tolerance_us, facts.records, ending, &[]).map(|mut comparison| {
        let made: Vec<MadePress> = facts.sent.iter().map(made).collect();
        let timing = compare::EdgeTiming::Exact { late_max_us: tolerance_us };
        compare::check_presses(&mut comparison, &made, facts.records, tolerance_us, 0, timing);
        if !facts.cut_short {
            check_course(&mut comparison, schedule, (facts.sent.len(), 0), facts.start_us);
        }
        comparison
    })
}

/// A press as the comparison weighs it.
fn made(press: &SentPress) -> MadePress {
    let button = match press.button {
        ButtonId::White => bench_contract::Button::White,
        ButtonId::Black => bench_contract::Button::Black,
        ButtonId::Pause => bench_contract::Button::Pause,
    };
    MadePress { button, at_us: press.sent_us, bounce_span_us: press.bounce.span_us() }
}

/// A game whose course differed from its schedule is said so, never a
/// silent pass: presses and arbiter commands the schedule asks for that
/// were not made or sent (the firmware showed the game finished first), and
/// the schedule's flags that the model, on the presses the firmware saw,
/// did not see fall.
fn check_course(
    comparison: &mut compare::Comparison,
    schedule: &Schedule,
    (made, commands_sent): (usize, usize),
    start_us: Option<u64>,
) {
    let start = start_us.unwrap_or(0);
    if let Some(command) = schedule.commands.get(commands_sent) {
        let missing = schedule.commands.len() - commands_sent;
        comparison.add(compare::Mismatch {
            quantity: compare::Quantity::ScheduleCourse,
            press_index: None,
            at_us: start.saturating_add(command.offset_us),
            seq: None,
            model: format!(
                "{missing} more arbiter command(s) in the schedule, the next `{}` at {}",
                command.command.line(),
                compare::seconds(command.offset_us)
            ),
            firmware: "the game was over before they could be sent".to_string(),
        });
    }
    if let Some(press) = schedule.presses.get(made) {
        let missing = schedule.presses.len() - made;
        comparison.add(compare::Mismatch {
            quantity: compare::Quantity::ScheduleCourse,
            press_index: None,
            at_us: start.saturating_add(press.offset_us),
            seq: None,
            model: format!(
                "{missing} more press(es) in the schedule, the next at {}",
                compare::seconds(press.offset_us)
            ),
            firmware: "the game was over before they could be made".to_string(),
        });
    }
    let seen = comparison.model.flags.len();
    if let Some(flag) = schedule.flags.get(seen) {
        comparison.add(compare::Mismatch {
            quantity: compare::Quantity::ScheduleCourse,
            press_index: None,
            at_us: start.saturating_add(flag.at.as_us()),
            seq: None,
            model: format!(
                "the schedule was built around {}'s flag at {}",
                flag.side,
                compare::seconds(flag.at.as_us())
            ),
            firmware: format!("the model, on the presses the firmware saw, saw {seen} flag(s) fall"),
        });
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use bench_sim::scenario::Scenario;

    use super::*;
    use crate::schedule;

    /// Three seconds sudden death: the game ends on a flag.
    fn scenario(control: &str) -> Scenario {
        let text = format!(
            "description = \"course test\"\ncontrol = {control:?}\ngames = 1\nseed = 4\n\n[players]\n\
             think = {{ distribution = \"uniform\", min_ms = 200, max_ms = 1500 }}\n\n[board]\n\
             ends_per_move = 0\nmax_moves = 8\n"
        );
        Scenario::parse(&text, Path::new("scenarios/course-test.toml")).expect("the test scenario parses")
    }

    /// A schedule built around a flag: a run whose model saw no flag, or
    /// that made fewer presses, says so (`schedule.course`).
    #[test]
    fn a_game_that_went_otherwise_than_scheduled_is_a_mismatch() {
        let scenario = scenario("3");
        let schedule = schedule::schedule(&scenario, scenario.seed, 0).expect("a schedule");
        assert!(!schedule.flags.is_empty(), "3 s sudden death ends on a flag: {:?}", schedule.end);
        let course = |made: usize| {
            let mut comparison = compare::compare("3", 1_000, &[]).expect("parses");
            check_course(&mut comparison, &schedule, (made, 0), Some(0));
            comparison.by_quantity.get("schedule.course").copied().unwrap_or(0)
        };
        assert_eq!(course(schedule.presses.len()), 1, "the flag");
        assert_eq!(course(0), usize::from(!schedule.presses.is_empty()) + 1, "the presses and the flag");
    }

    /// An arbiter command the schedule asks for and the run never sent
    /// (the game was over first) is a `schedule.course` mismatch too.
    #[test]
    fn an_arbiter_command_never_sent_is_a_mismatch() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/release/10-arbiter.toml");
        let scenario = Scenario::load(&file).expect("the release suite's arbiter scenario");
        let schedule = schedule::schedule(&scenario, scenario.seed, 0).expect("a schedule");
        assert!(!schedule.commands.is_empty(), "10-arbiter has the arbiter adjust times");
        let course = |commands_sent: usize| {
            let mut comparison = compare::compare(&schedule.control.text, 1_000, &[]).expect("parses");
            check_course(&mut comparison, &schedule, (schedule.presses.len(), commands_sent), Some(0));
            comparison.mismatches.iter().filter(|m| m.model.contains("arbiter command")).count()
        };
        assert_eq!(course(schedule.commands.len()), 0, "all sent");
        assert_eq!(course(schedule.commands.len() - 1), 1, "the last one never sent");
    }
}
