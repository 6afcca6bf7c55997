//! The written-forms oracle: wrong core answers are caught, right ones pass,
//! and the shipped scenarios play without a violation.

use std::path::PathBuf;

use chessclock::notation::{parse, Expected, ParseError, ParseErrorKind};
use chessclock::{ControlError, Duration, TimeControl};

use super::*;
use crate::run::{self, RunOptions};
use crate::scenario::Scenario;

fn control(text: &str) -> TimeControl {
    parse(text).expect("a valid control")
}

fn refusal(position: usize, kind: ParseErrorKind) -> Result<TimeControl, ParseError> {
    Err(ParseError { position, kind })
}

#[test]
fn the_cores_right_answers_pass() {
    for text in ["40/5400+30:1800+30", "300+b3", "*180", "120(5x10)", "300(10/150)", "1/2.5:3+0.5", " 0300+02 "] {
        assert_eq!(reading_fault(text, &parse(text)), None, "{text}");
        assert_eq!(control_faults(text, &control(text)), Vec::<String>::new(), "{text}");
    }
    for text in ["-", "?", "", "30/0+2", "*180x", "300(100x10)", "300(101x10)", "40/5400:18/00", "300+2(5x1)"] {
        assert_eq!(reading_fault(text, &parse(text)), None, "{text}");
    }
    for us in [0, 1, 59_000_000, 61_250_000, 3_599_999_999, 3_723_000_001, u64::MAX] {
        assert_eq!(display_fault(us, &Duration::from_us(us).to_string()), None, "{us}");
    }
}

/// What the mutants of the core's written forms would answer, fed in by
/// hand: each is a violation.
#[test]
fn wrong_core_answers_are_violations() {
    let wrong_readings = [
        // Trailing text after an hourglass accepted.
        ("*180x", Ok(control("*180"))),
        // `-` refused as a minus sign, not as PGN "no time control".
        ("-", refusal(0, ParseErrorKind::Negative)),
        // The right kind at the wrong position.
        ("30/0+2", refusal(1, ParseErrorKind::Control(ControlError::LastStageNotRestOfGame))),
        // A last stage "N moves in T" accepted (here as the nearest valid control).
        ("30/0+2", Ok(control("0+2"))),
        // 100 periods refused, 101 accepted.
        ("300(100x10)", refusal(4, ParseErrorKind::Control(ControlError::TooManyPeriods { periods: 100 }))),
        ("300(101x10)", Ok(control("300(100x10)"))),
        // A valid text refused, or read as another control.
        ("300+2", refusal(3, ParseErrorKind::Unexpected(Expected::AfterNumber))),
        ("300+2", Ok(control("300+d2"))),
    ];
    for (text, core) in wrong_readings {
        assert!(reading_fault(text, &core).is_some(), "{text} {core:?}");
    }
    // The scenario's control is not what its text says.
    assert_eq!(control_faults("300+2", &control("300+3")).len(), 1);
    // A written time that is not the display's form, or does not read back.
    for (us, written) in [
        (754_000_000, "0:12:34"),
        (3_723_000_000, "62:03"),
        (61_250_000, "1:01.250000"),
        (61_000_000, "1:01.0"),
        (61_250_000, "1:01"),
        (61_000_000, "0:01"),
        (0, ""),
    ] {
        assert!(display_fault(us, written).is_some(), "{us} {written:?}");
    }
}

#[test]
fn a_message_must_say_why() {
    let error = ParseError { position: 4, kind: ParseErrorKind::ExpectedBonus };
    let said = error.kind.to_string();
    assert_eq!(message_fault(&error, &said, &error.to_string()), None);
    assert!(message_fault(&error, "", "column 5: ").is_some());
    assert!(message_fault(&error, &said, &format!("column 4: {said}")).is_some());
    let mut messages = Messages::default();
    assert_eq!(messages.note(ParseErrorKind::Empty, "why".to_string()), None);
    assert_eq!(messages.note(ParseErrorKind::Empty, "why".to_string()), None);
    assert!(messages.note(ParseErrorKind::Unknown, "why".to_string()).is_some());
    assert_eq!(messages.note(ParseErrorKind::Unknown, "because".to_string()), None);
}

#[test]
fn slips_and_limits_are_seeded_edits_of_the_text() {
    let draw = |seed| {
        let mut stream = Stream::new(seed, 0, Actor::WrittenForm);
        let slips: Vec<String> = (0..50).map(|_| slip("120(5x10)", &mut stream)).collect();
        let limits: Vec<String> = (0..50).map(|_| at_limit("120(5x10)", &mut stream)).collect();
        (slips, limits)
    };
    let (slips, limits) = draw(7);
    assert_eq!((slips.clone(), limits.clone()), draw(7));
    assert_ne!((slips.clone(), limits.clone()), draw(8));
    for text in &slips {
        let length = text.len();
        assert!((8..=10).contains(&length), "{text:?}");
    }
    assert!(slips.iter().any(|text| parse(text).is_err()));
    assert!(limits.iter().any(|text| text.starts_with("120(10") && text.ends_with("x10)")), "{limits:?}");
    assert_eq!(number_spans("40/5400+30:1.5"), vec![(0, 2), (3, 7), (8, 10), (11, 14)]);
    let mut stream = Stream::new(1, 0, Actor::WrittenForm);
    assert!(["-", " - ", "?", "\t?", ""].contains(&at_limit("", &mut stream).as_str()));
    assert_eq!(slip("", &mut stream).len(), 1);
}

fn shipped(name: &str) -> Scenario {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios").join(name);
    Scenario::load(&file).expect("a shipped scenario loads")
}

#[test]
fn shipped_scenarios_read_back_without_a_violation() {
    for name in [
        "fide-classical.toml",
        "byo-yomi.toml",
        "hourglass.toml",
        "canadian.toml",
        "correspondence-first-overstep.toml",
    ] {
        let scenario = shipped(name);
        for swarm in [false, true] {
            let options = RunOptions { games: 0..4, swarm, ..RunOptions::scenario(&scenario, 1) };
            let summary = run::run(&scenario, &options, &|_| {});
            assert_eq!(summary.games_with_violations, 0, "{name} swarm {swarm}: {:?}", summary.failures);
        }
    }
}

#[test]
fn an_article_is_a_number_as_the_laws_write_it() {
    for article in ["6.5", "6.2b", "13.4", "6.12a"] {
        assert!(is_article(article), "{article}");
    }
    for not_one in ["", "xyzzy", "6", "6.", ".5", "6.2bc", "6.2.1", "6.2B"] {
        assert!(!is_article(not_one), "{not_one}");
    }
    assert_eq!(rule_name_faults(), Vec::<String>::new());
}
