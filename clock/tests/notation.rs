//! The time-control notation: a table of texts and what they parse to, the
//! exact position and kind of every error, and round-trip properties.

use chessclock::notation::{parse, Expected, ParseError, ParseErrorKind, Seconds};
use chessclock::{Bonus, ControlError, Duration, Stage, TimeControl, PERIODS_MAX, STAGES_MAX};
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// Building expected values.

fn s(secs: u64) -> Duration {
    Duration::from_secs(secs)
}

fn us(us: u64) -> Duration {
    Duration::from_us(us)
}

const NONE: Bonus = Bonus::None;

fn inc(amount: Duration) -> Bonus {
    Bonus::Increment(amount)
}

fn delay(amount: Duration) -> Bonus {
    Bonus::Delay(amount)
}

fn bron(amount: Duration) -> Bonus {
    Bonus::Bronstein(amount)
}

fn mv(moves: u32, time: Duration, bonus: Bonus) -> Stage {
    Stage::moves(moves, time, bonus)
}

fn rest(time: Duration, bonus: Bonus) -> Stage {
    Stage::rest_of_game(time, bonus)
}

fn stages(stages: &[Stage]) -> TimeControl {
    TimeControl::stages(stages).expect("test control is valid")
}

fn hourglass(time: Duration) -> TimeControl {
    TimeControl::hourglass(time).expect("test control is valid")
}

fn byo(main: Duration, periods: u32, period: Duration) -> TimeControl {
    TimeControl::byo_yomi(main, periods, period).expect("test control is valid")
}

fn canadian(main: Duration, moves: u32, period: Duration) -> TimeControl {
    TimeControl::canadian(main, moves, period).expect("test control is valid")
}

// ---------------------------------------------------------------------------
// The table.

#[derive(Debug)]
enum Expect {
    /// Parses to this control, whose canonical text is this.
    Valid(TimeControl, &'static str),
    /// Fails at this byte offset with this kind.
    Invalid(usize, ParseErrorKind),
}
use Expect::{Invalid, Valid};

/// Valid and already canonical.
fn ok(control: TimeControl) -> Expect {
    Valid(control, "")
}

/// Valid; prints as `canonical`.
fn ok_as(control: TimeControl, canonical: &'static str) -> Expect {
    Valid(control, canonical)
}

fn err(position: usize, kind: ParseErrorKind) -> Expect {
    Invalid(position, kind)
}

fn control_err(position: usize, error: ControlError) -> Expect {
    Invalid(position, ParseErrorKind::Control(error))
}

fn unexpected(position: usize, expected: Expected) -> Expect {
    Invalid(position, ParseErrorKind::Unexpected(expected))
}

#[track_caller]
fn check(input: &str, expected: Expect) {
    let parsed = parse(input);
    match expected {
        Valid(control, canonical) => {
            assert_eq!(parsed, Ok(control), "parsing {input:?}");
            let canonical = if canonical.is_empty() { input } else { canonical };
            assert_eq!(control.to_string(), canonical, "printing {input:?}");
            assert_eq!(parse(canonical), Ok(control), "parsing canonical {canonical:?}");
            assert_eq!(input.parse::<TimeControl>(), Ok(control), "FromStr {input:?}");
        }
        Invalid(position, kind) => {
            assert_eq!(parsed, Err(ParseError { position, kind }), "parsing {input:?}");
            let message = ParseError { position, kind }.to_string();
            assert!(message.starts_with(&format!("column {}: ", position + 1)), "{message}");
            assert!(position <= input.len(), "{input:?}");
        }
    }
}

#[test]
fn fide_stages() {
    check("40/5400+30:1800+30", ok(stages(&[mv(40, s(5400), inc(s(30))), rest(s(1800), inc(s(30)))])));
    check("40/5400:1800", ok(stages(&[mv(40, s(5400), NONE), rest(s(1800), NONE)])));
    check("40/7200:20/3600:900", ok(stages(&[mv(40, s(7200), NONE), mv(20, s(3600), NONE), rest(s(900), NONE)])));
    check("40/6000+30:20/3000+30:900+30", {
        ok(stages(&[mv(40, s(6000), inc(s(30))), mv(20, s(3000), inc(s(30))), rest(s(900), inc(s(30)))]))
    });
    check("40/5400:1800+30", ok(stages(&[mv(40, s(5400), NONE), rest(s(1800), inc(s(30)))])));
    check("40/5400+d5:1800+b3", ok(stages(&[mv(40, s(5400), delay(s(5))), rest(s(1800), bron(s(3)))])));
    check("1/1:1/1:1/1:1/1:1", {
        ok(stages(&[mv(1, s(1), NONE), mv(1, s(1), NONE), mv(1, s(1), NONE), mv(1, s(1), NONE), rest(s(1), NONE)]))
    });
    check("4294967295/60:0", ok(stages(&[mv(u32::MAX, s(60), NONE), rest(s(0), NONE)])));
    check("40/5400:0+30", ok(stages(&[mv(40, s(5400), NONE), rest(s(0), inc(s(30)))])));
}

#[test]
fn sudden_death_and_bonuses() {
    check("300+2", ok(stages(&[rest(s(300), inc(s(2)))])));
    check("3600", ok(stages(&[rest(s(3600), NONE)])));
    check("0", ok(stages(&[rest(s(0), NONE)])));
    check("5400+d5", ok(stages(&[rest(s(5400), delay(s(5)))])));
    check("300+b3", ok(stages(&[rest(s(300), bron(s(3)))])));
    check("300+0", ok(stages(&[rest(s(300), inc(s(0)))])));
    check("300+d0", ok(stages(&[rest(s(300), delay(s(0)))])));
    check("1000000+1000000", ok(stages(&[rest(s(1_000_000), inc(s(1_000_000)))])));
}

#[test]
fn hourglass_byo_yomi_canadian() {
    check("*180", ok(hourglass(s(180))));
    check("*0", ok(hourglass(s(0))));
    check("*0.5", ok(hourglass(us(500_000))));
    check("3600(5x30)", ok(byo(s(3600), 5, s(30))));
    check("0(1x1)", ok(byo(s(0), 1, s(1))));
    check("0(100x0.000001)", ok(byo(s(0), PERIODS_MAX, us(1))));
    check("600(20/300)", ok(canadian(s(600), 20, s(300))));
    check("1200.25(25/600.5)", ok(canadian(us(1_200_250_000), 25, us(600_500_000))));
}

#[test]
fn decimals_and_canonical_form() {
    check("2.5", ok(stages(&[rest(us(2_500_000), NONE)])));
    check("0.000001", ok(stages(&[rest(us(1), NONE)])));
    check("0.1+0.01", ok(stages(&[rest(us(100_000), inc(us(10_000)))])));
    check("999999.999999", ok(stages(&[rest(us(999_999_999_999), NONE)])));
    check("40/5400.5+d0.25:1800.75+b1.125", {
        ok(stages(&[mv(40, us(5_400_500_000), delay(us(250_000))), rest(us(1_800_750_000), bron(us(1_125_000)))]))
    });
    // Accepted but not canonical.
    check("2.50", ok_as(stages(&[rest(us(2_500_000), NONE)]), "2.5"));
    check("2.000000", ok_as(stages(&[rest(s(2), NONE)]), "2"));
    check("0300+02", ok_as(stages(&[rest(s(300), inc(s(2)))]), "300+2"));
    check("040/05400:01800", ok_as(stages(&[mv(40, s(5400), NONE), rest(s(1800), NONE)]), "40/5400:1800"));
    check("*0180.0", ok_as(hourglass(s(180)), "*180"));
    check("3600.0(05x30.000)", ok_as(byo(s(3600), 5, s(30)), "3600(5x30)"));
    check(" 300+2 ", ok_as(stages(&[rest(s(300), inc(s(2)))]), "300+2"));
    check("\t40/5400:1800\r\n", ok_as(stages(&[mv(40, s(5400), NONE), rest(s(1800), NONE)]), "40/5400:1800"));
}

/// The notation ignores whitespace around the whole text, leading or
/// trailing or both (module docs, "Whitespace"; the independent reading in
/// `chessclock-tick-model` agrees): a command line such as `tc 300+2 ` with
/// a trailing blank names the same control as `tc 300+2`. Every way a text
/// can end is followed by a blank here: a number, a bonus, a decimal, an
/// overtime's `)`, the hourglass.
#[test]
fn whitespace_around_the_whole_text_is_ignored_whatever_ends_it() {
    check("300+2 ", ok_as(stages(&[rest(s(300), inc(s(2)))]), "300+2"));
    check("300 ", ok_as(stages(&[rest(s(300), NONE)]), "300"));
    check("2.5\n", ok_as(stages(&[rest(us(2_500_000), NONE)]), "2.5"));
    check("40/5400:1800+d5\t", ok_as(stages(&[mv(40, s(5400), NONE), rest(s(1800), delay(s(5)))]), "40/5400:1800+d5"));
    check("3600(5x30) ", ok_as(byo(s(3600), 5, s(30)), "3600(5x30)"));
    check("600(20/300)\r\n", ok_as(canadian(s(600), 20, s(300)), "600(20/300)"));
    check("*180 ", ok_as(hourglass(s(180)), "*180"));
    check("  300+2", ok_as(stages(&[rest(s(300), inc(s(2)))]), "300+2"));
    // Inside the text a blank is still an error.
    check("300 +2 ", err(3, ParseErrorKind::Whitespace));
}

#[test]
fn pgn_special_values() {
    check("?", err(0, ParseErrorKind::Unknown));
    check("-", err(0, ParseErrorKind::NoTimeControl));
    check("  ?  ", err(2, ParseErrorKind::Unknown));
    check(" -", err(1, ParseErrorKind::NoTimeControl));
    check("", err(0, ParseErrorKind::Empty));
    check("   ", err(3, ParseErrorKind::Empty));
    // Only the whole text is the special value.
    check("??", err(0, ParseErrorKind::ExpectedSeconds));
    check("-5", err(0, ParseErrorKind::Negative));
    check("40/?", err(3, ParseErrorKind::ExpectedSeconds));
}

#[test]
fn number_errors() {
    check("40/54x0", unexpected(5, Expected::AfterTime));
    check("abc", err(0, ParseErrorKind::ExpectedSeconds));
    check(".5", err(0, ParseErrorKind::ExpectedSeconds));
    check("40/", err(3, ParseErrorKind::ExpectedSeconds));
    check("40/ ", err(3, ParseErrorKind::ExpectedSeconds));
    check("2.", err(2, ParseErrorKind::ExpectedFraction));
    check("2.x", err(2, ParseErrorKind::ExpectedFraction));
    check("0.0000001", err(8, ParseErrorKind::TooManyDecimals));
    check("1.5000000", err(8, ParseErrorKind::TooManyDecimals));
    check("40.5/5400:1800", err(2, ParseErrorKind::FractionalCount));
    check("1e3", unexpected(1, Expected::AfterNumber));
    check("300-2", unexpected(3, Expected::AfterNumber));
    check("40/-5", err(3, ParseErrorKind::Negative));
    check("300+-2", err(4, ParseErrorKind::Negative));
    check("+300", err(0, ParseErrorKind::ExpectedSeconds));
    check("4294967296/60:0", err(0, ParseErrorKind::NumberTooLarge));
    check("18446744073709551616", err(0, ParseErrorKind::NumberTooLarge));
    check("40/18446744073710", err(3, ParseErrorKind::NumberTooLarge));
    check("3600(4294967296x30)", err(5, ParseErrorKind::NumberTooLarge));
    check("300\u{2009}+2", unexpected(3, Expected::AfterNumber));
    check("٣٠٠", err(0, ParseErrorKind::ExpectedSeconds));
    check("300+٢", err(4, ParseErrorKind::ExpectedBonus));
}

#[test]
fn structure_errors() {
    check("300+", err(4, ParseErrorKind::ExpectedBonus));
    check("300+x", err(4, ParseErrorKind::ExpectedBonus));
    check("300+D5", err(4, ParseErrorKind::ExpectedBonus));
    check("300+d", err(5, ParseErrorKind::ExpectedDelay));
    check("300+b", err(5, ParseErrorKind::ExpectedBronstein));
    check("300+bx", err(5, ParseErrorKind::ExpectedBronstein));
    check("300+2+2", unexpected(5, Expected::AfterBonus));
    check("300+2/40", unexpected(5, Expected::AfterBonus));
    check("40/60/30", unexpected(5, Expected::AfterTime));
    check("300:", err(4, ParseErrorKind::ExpectedSeconds));
    check(":300", err(0, ParseErrorKind::ExpectedSeconds));
    check("40/5400::1800", err(8, ParseErrorKind::ExpectedSeconds));
    check("40/5400 + 30", err(7, ParseErrorKind::Whitespace));
    check("40/5400: 1800", err(8, ParseErrorKind::Whitespace));
    check("300\t", ok_as(stages(&[rest(s(300), NONE)]), "300"));
    check("*", err(1, ParseErrorKind::ExpectedSeconds));
    check("**180", err(1, ParseErrorKind::ExpectedSeconds));
    check("*180:60", err(4, ParseErrorKind::HourglassNotAlone));
    check("60:*180", err(3, ParseErrorKind::HourglassNotAlone));
    check("*180+5", unexpected(4, Expected::End));
    check("60*30", unexpected(2, Expected::AfterNumber));
}

#[test]
fn overtime_errors() {
    check("3600(", err(5, ParseErrorKind::ExpectedCount));
    check("3600()", err(5, ParseErrorKind::ExpectedCount));
    check("3600(5", unexpected(6, Expected::OvertimeSeparator));
    check("3600(5X30)", unexpected(6, Expected::OvertimeSeparator));
    check("3600(30)", unexpected(7, Expected::OvertimeSeparator));
    check("3600(5x)", err(7, ParseErrorKind::ExpectedSeconds));
    check("3600(5x30", unexpected(9, Expected::CloseParen));
    check("3600(5x30]", unexpected(9, Expected::CloseParen));
    check("3600(5x30 )", err(9, ParseErrorKind::Whitespace));
    check("3600(2.5x30)", err(6, ParseErrorKind::FractionalCount));
    check("3600(5x30):60", err(10, ParseErrorKind::OvertimeNotAlone));
    check("3600(5x30)+5", unexpected(10, Expected::End));
    check("3600(5x30)(5x30)", unexpected(10, Expected::End));
    check("60:3600(5x30)", err(7, ParseErrorKind::OvertimeNotAlone));
    check("40/3600(5x30)", err(7, ParseErrorKind::OvertimeNotAlone));
    check("3600+30(5x30)", err(7, ParseErrorKind::OvertimeNotAlone));
    check("(5x30)", err(0, ParseErrorKind::ExpectedSeconds));
}

#[test]
fn control_errors_point_at_their_number() {
    // Last stage "N moves in T": the constructor's message suggests Canadian overtime.
    check("40/5400", control_err(0, ControlError::LastStageNotRestOfGame));
    check("40/5400:20/1800", control_err(8, ControlError::LastStageNotRestOfGame));
    check("5400:40/1800", control_err(0, ControlError::RestOfGameBeforeLastStage { stage: 0 }));
    check("40/5400:1800:900", control_err(8, ControlError::RestOfGameBeforeLastStage { stage: 1 }));
    check("0/5400:1800", control_err(0, ControlError::ZeroMoves));
    check("40/5400:0/1800:900", control_err(8, ControlError::ZeroMoves));
    check("1000000.000001", control_err(0, ControlError::TimeTooLong { time: us(1_000_000_000_001) }));
    check("40/5400:1800+1000001", control_err(13, ControlError::TimeTooLong { time: s(1_000_001) }));
    check("40/5400+d2000000:1800", control_err(9, ControlError::TimeTooLong { time: s(2_000_000) }));
    check("1/1:1/1:1/1:1/1:1/1:1", control_err(20, ControlError::TooManyStages { stages: 6 }));
    check("1/1:1/1:1/1:1/1:1/1:1/1:1", control_err(20, ControlError::TooManyStages { stages: 7 }));
    check("*1000001", control_err(1, ControlError::TimeTooLong { time: s(1_000_001) }));
    check("3600(0x30)", control_err(5, ControlError::ZeroPeriods));
    check("3600(101x30)", control_err(5, ControlError::TooManyPeriods { periods: 101 }));
    check("3600(5x0)", control_err(7, ControlError::ZeroPeriodTime));
    check("3600(5x1000001)", control_err(7, ControlError::TimeTooLong { time: s(1_000_001) }));
    check("1000001(5x30)", control_err(0, ControlError::TimeTooLong { time: s(1_000_001) }));
    check("600(0/300)", control_err(4, ControlError::ZeroMoves));
    check("600(20/0)", control_err(7, ControlError::ZeroPeriodTime));
    check("600(20/0.0)", control_err(7, ControlError::ZeroPeriodTime));
}

#[test]
fn messages_say_what_is_wrong() {
    let message = |text: &str| parse(text).expect_err("invalid").to_string();
    assert_eq!(message("?"), "column 1: `?` means unknown time control and cannot be run");
    assert_eq!(message("-"), "column 1: `-` means no time control and cannot be run");
    assert_eq!(message("40/x"), "column 4: expected a number of seconds");
    assert!(message("300+").starts_with("column 5: increment `+` must be followed by a number of seconds"));
    assert!(message("40/5400").contains("Canadian overtime"), "{}", message("40/5400"));
    assert!(message("0.0000001").contains("6 decimal places"));
    assert!(message("40/5400 +30").contains("spaces are not allowed"));
    assert!(message("*180:60").contains("hourglass"));
    assert!(message("60:3600(5x30)").contains("byo-yomi"));
    assert_eq!(message("40/54x0"), "column 6: expected `+` (a bonus), `:` (the next stage) or the end");
    assert!(message("1000001").contains("longer than the longest supported time"));
}

#[test]
fn seconds_print_minimal_decimals() {
    for (duration, text) in [
        (us(0), "0"),
        (us(1), "0.000001"),
        (us(10), "0.00001"),
        (us(500_000), "0.5"),
        (us(1_250_000), "1.25"),
        (us(999_999), "0.999999"),
        (s(30), "30"),
        (Duration::CONTROL_MAX, "1000000"),
    ] {
        assert_eq!(Seconds(duration).to_string(), text);
    }
}

// ---------------------------------------------------------------------------
// Properties.

fn duration() -> impl Strategy<Value = Duration> {
    let max = Duration::CONTROL_MAX.as_us();
    prop_oneof![
        (0..=max).prop_map(Duration::from_us),
        (0..=max / 1_000_000).prop_map(Duration::from_secs),
        (0..=max / 1_000).prop_map(Duration::from_millis),
        Just(Duration::ZERO),
        Just(Duration::CONTROL_MAX),
    ]
}

fn positive_duration() -> impl Strategy<Value = Duration> {
    duration().prop_map(|duration| if duration.is_zero() { us(1) } else { duration })
}

fn bonus() -> impl Strategy<Value = Bonus> {
    prop_oneof![
        Just(Bonus::None),
        duration().prop_map(Bonus::Increment),
        duration().prop_map(Bonus::Delay),
        duration().prop_map(Bonus::Bronstein),
    ]
}

fn count() -> impl Strategy<Value = u32> {
    prop_oneof![1..=100u32, 1..=u32::MAX]
}

fn control() -> impl Strategy<Value = TimeControl> {
    let staged = (proptest::collection::vec((count(), duration(), bonus()), 0..STAGES_MAX), duration(), bonus())
        .prop_map(|(before, time, bonus)| {
            let mut list: Vec<Stage> = before.into_iter().map(|(moves, time, bonus)| mv(moves, time, bonus)).collect();
            list.push(rest(time, bonus));
            stages(&list)
        });
    prop_oneof![
        4 => staged,
        1 => duration().prop_map(hourglass),
        1 => (duration(), 1..=PERIODS_MAX, positive_duration()).prop_map(|(main, n, period)| byo(main, n, period)),
        1 => (duration(), count(), positive_duration()).prop_map(|(main, n, period)| canadian(main, n, period)),
    ]
}

/// Texts made of the notation's own characters, to reach deep into the parser.
fn notation_like() -> impl Strategy<Value = String> {
    "[0-9./:+*()xdb?\\- ]{0,40}"
}

/// What every parse result must satisfy, valid or not.
fn check_result(text: &str) -> Result<(), TestCaseError> {
    match parse(text) {
        Ok(control) => {
            let printed = control.to_string();
            prop_assert_eq!(parse(&printed), Ok(control));
            prop_assert_eq!(parse(&printed).map(|c| c.to_string()), Ok(printed.clone()));
        }
        Err(error) => {
            prop_assert!(error.position <= text.len(), "{:?} at {}", text, error.position);
            prop_assert!(text.is_char_boundary(error.position));
            prop_assert!(text.get(..error.position).is_some_and(|before| before.is_ascii()));
            prop_assert!(!error.to_string().is_empty());
        }
    }
    Ok(())
}

/// Cases per property: parsing is cheap, so more than proptest's usual 256;
/// `PROPTEST_CASES` overrides it, as for the other property tests.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(2000);
    ProptestConfig { cases, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn print_then_parse_is_identity(control in control()) {
        let printed = control.to_string();
        prop_assert_eq!(parse(&printed), Ok(control), "{}", printed);
        // The printed text is canonical: it prints back to itself.
        prop_assert_eq!(parse(&printed).map(|c| c.to_string()), Ok(printed));
    }

    #[test]
    fn seconds_round_trip(duration in duration()) {
        let printed = Seconds(duration).to_string();
        let expected = TimeControl::sudden_death(duration, Bonus::None).ok();
        prop_assert!(expected.is_some());
        prop_assert_eq!(parse(&printed).ok(), expected);
    }

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        check_result(&text)?;
    }

    #[test]
    fn notation_like_strings_never_panic(text in notation_like()) {
        check_result(&text)?;
    }

    #[test]
    fn edited_controls_never_panic(control in control(), at in any::<prop::sample::Index>(), edit in "[0-9./:+*()xdb?\\- é]{0,3}", cut in 0..3usize) {
        let printed = control.to_string();
        let at = at.index(printed.len() + 1);
        let end = (at + cut).min(printed.len());
        let text = format!("{}{}{}", &printed[..at], edit, &printed[end..]);
        check_result(&text)?;
    }
}

/// A time as a clock display writes it (`Duration`'s `Display`, used by
/// `bench timecontrol` and the reports): `h:mm:ss` from an hour on, `m:ss`
/// below, a fraction only when there is one, without trailing zeros.
#[test]
fn durations_are_written_as_a_display_shows_them() {
    for (us, text) in [
        (0, "0:00"),
        (59_000_000, "0:59"),
        (61_250_000, "1:01.25"),
        (754_000_000, "12:34"),
        (3_599_999_999, "59:59.999999"),
        (3_723_000_001, "1:02:03.000001"),
        (36_000_000_000, "10:00:00"),
    ] {
        assert_eq!(Duration::from_us(us).to_string(), text, "{us} us");
    }
}

// ---------------------------------------------------------------------------
// How long a game can last (`TimeControl::time_max_us`): a bound, not a rule.

#[test]
fn the_longest_game_counts_every_stage_bonus_and_period() {
    let max = |text: &str, moves: u64| parse(text).expect("a valid control").time_max_us(moves);
    // Stages: every stage's time and each move's bonus in each stage.
    assert_eq!(max("300+2", 0), 300_000_000);
    assert_eq!(max("300+2", 40), 380_000_000);
    assert_eq!(max("40/5400+30:1800+30", 10), 7_200_000_000 + 2 * 300_000_000);
    // A delay or Bronstein's bonus gives at most its amount a move.
    assert_eq!(max("5400+d5", 3), 5_415_000_000);
    // An hourglass: both sides' time can flow to one.
    assert_eq!(hourglass(s(60)).time_max_us(100), 120_000_000);
    // Byo-yomi: every period once, and one more a move made in overtime.
    assert_eq!(byo(s(600), 5, s(30)).time_max_us(0), 750_000_000);
    assert_eq!(byo(s(600), 5, s(30)).time_max_us(2), 810_000_000);
    // Canadian: main time and four overtime periods, whatever the moves.
    assert_eq!(canadian(s(600), 20, s(300)).time_max_us(50), 1_800_000_000);
    // Saturates rather than wraps.
    assert_eq!(max("4294967295/60:0+30", u64::MAX), u64::MAX);
}
