//! The independent reader against its documentation (the doc table, every
//! fault and where it points), then against the core over many texts.

use super::*;
use chessclock::notation::parse;
use proptest::prelude::*;

const S: u64 = 1_000_000;

fn leg(moves: Option<u32>, time_us: u64, per_move: PerMove) -> Leg {
    Leg { moves, time_us, per_move }
}

fn inc(secs: u64) -> PerMove {
    PerMove::Increment { us: secs * S }
}

/// `text` reads as `written`, whose canonical text is `canonical`.
#[track_caller]
fn reads(text: &str, written: Written, canonical: &str) {
    assert_eq!(read_control(text), Ok(written.clone()), "reading {text:?}");
    assert_eq!(written.to_string(), canonical, "writing {text:?}");
    assert_eq!(read_control(canonical), Ok(written), "reading back {canonical:?}");
}

#[track_caller]
fn refused(text: &str, at: usize, fault: Fault) {
    assert_eq!(read_control(text), Err(Refusal { at, fault }), "reading {text:?}");
}

#[test]
fn the_documented_examples() {
    let stages = |legs: &[Leg]| Written::Legs(legs.to_vec());
    let none = PerMove::Nothing;
    reads(
        "40/5400+30:1800+30",
        stages(&[leg(Some(40), 5400 * S, inc(30)), leg(None, 1800 * S, inc(30))]),
        "40/5400+30:1800+30",
    );
    reads("40/5400:1800", stages(&[leg(Some(40), 5400 * S, none), leg(None, 1800 * S, none)]), "40/5400:1800");
    reads(
        "40/7200:20/3600:900",
        stages(&[leg(Some(40), 7200 * S, none), leg(Some(20), 3600 * S, none), leg(None, 900 * S, none)]),
        "40/7200:20/3600:900",
    );
    reads("300+2", stages(&[leg(None, 300 * S, inc(2))]), "300+2");
    reads("5400+d5", stages(&[leg(None, 5400 * S, PerMove::Delay { us: 5 * S })]), "5400+d5");
    reads("300+b3", stages(&[leg(None, 300 * S, PerMove::Bronstein { us: 3 * S })]), "300+b3");
    reads("*180", Written::Sandglass { each_us: 180 * S }, "*180");
    reads("3600(5x30)", Written::ByoYomi { main_us: 3600 * S, periods: 5, period_us: 30 * S }, "3600(5x30)");
    reads("600(20/300)", Written::Canadian { main_us: 600 * S, moves: 20, period_us: 300 * S }, "600(20/300)");
    reads("0.5+0.000001", stages(&[leg(None, S / 2, PerMove::Increment { us: 1 })]), "0.5+0.000001");
    // Accepted spellings that are not canonical.
    reads(" 300.0+02 ", stages(&[leg(None, 300 * S, inc(2))]), "300+2");
    reads("2.50", stages(&[leg(None, 2_500_000, none)]), "2.5");
    reads("300+0", stages(&[leg(None, 300 * S, inc(0))]), "300+0");
    reads("\t*0180.0\r\n", Written::Sandglass { each_us: 180 * S }, "*180");
    reads(
        "1000000+1000000",
        stages(&[leg(None, TIME_LIMIT_US, PerMove::Increment { us: TIME_LIMIT_US })]),
        "1000000+1000000",
    );
}

#[test]
fn every_fault_and_where_it_points() {
    use Fault::*;
    use RuleBroken::*;
    refused("", 0, Blank);
    refused("   ", 3, Blank);
    refused("  ?  ", 2, PgnUnknown);
    refused(" -", 1, PgnNoControl);
    refused("??", 0, NeedSeconds);
    refused("40/", 3, NeedSeconds);
    refused("3600()", 5, NeedCount);
    refused("300+x", 4, NeedIncrement);
    refused("300+d", 5, NeedDelay);
    refused("300+bx", 5, NeedBronstein);
    refused("2.x", 2, NeedDecimal);
    refused("1.5000000", 8, BeyondMicroseconds);
    refused("40.5/5400:1800", 2, CountWithPoint);
    refused("3600(2.5x30)", 6, CountWithPoint);
    refused("4294967296/60:0", 0, Overflow);
    refused("18446744073709551616", 0, Overflow);
    refused("40/18446744073710", 3, Overflow);
    refused("300+-2", 4, MinusSign);
    refused("-5", 0, MinusSign);
    refused("40/5400 + 30", 7, InnerBlank);
    refused("3600(5x30 )", 9, InnerBlank);
    refused("1e3", 1, Stray(Wanted::AfterFirstNumber));
    refused("40/54x0", 5, Stray(Wanted::AfterStageTime));
    refused("300+2/40", 5, Stray(Wanted::AfterPerMove));
    refused("3600(5X30)", 6, Stray(Wanted::OvertimeKind));
    refused("3600(5", 6, Stray(Wanted::OvertimeKind));
    refused("3600(5x30]", 9, Stray(Wanted::Closing));
    refused("*180+5", 4, Stray(Wanted::Nothing));
    refused("*180:60", 4, SandglassWithOthers);
    refused("60:*180", 3, SandglassWithOthers);
    refused("3600(5x30):60", 10, OvertimeWithOthers);
    refused("40/3600(5x30)", 7, OvertimeWithOthers);
    refused("1/1:1/1:1/1:1/1:1/1:1", 20, Rule(StagesOver { written: 6 }));
    refused("40/5400:20/1800", 8, Rule(LastStageCounted));
    refused("40/5400:1800:900", 8, Rule(OpenStageBeforeLast { index: 1 }));
    refused("40/5400:0/1800:900", 8, Rule(NoMoves));
    refused("600(0/300)", 4, Rule(NoMoves));
    refused("3600(0x30)", 5, Rule(NoPeriods));
    refused("3600(101x30)", 5, Rule(PeriodsOver { written: 101 }));
    refused("600(20/0.0)", 7, Rule(EmptyPeriod));
    refused("40/5400:1800+1000001", 13, Rule(TooLong { us: 1_000_001 * S }));
    refused("1000001(5x30)", 0, Rule(TooLong { us: 1_000_001 * S }));
    refused("*1000000.000001", 1, Rule(TooLong { us: TIME_LIMIT_US + 1 }));
}

/// The core's verdict on `text` is the independent reader's.
fn agree(text: &str) -> Result<(), TestCaseError> {
    match (parse(text), read_control(text)) {
        (Ok(control), Ok(written)) => {
            prop_assert_eq!(&Written::from_core(&control), &written, "{:?}", text);
            prop_assert_eq!(control.to_string(), written.to_string(), "{:?}", text);
        }
        (Err(error), Err(refusal)) => prop_assert_eq!(error, refusal.core_error(), "{:?}", text),
        (core, model) => prop_assert!(false, "{:?}: core {:?}, model {:?}", text, core, model),
    }
    Ok(())
}

/// Every one-character slip of every text below: deleted, doubled,
/// replaced or inserted from the notation's alphabet.
#[test]
fn every_single_slip_of_the_shipped_controls_reads_alike() {
    let texts = [
        "40/5400+30:1800+30",
        "300+d5",
        "300+b3",
        "*180",
        "120(5x10)",
        "300(10/150)",
        "1/2.5:1/2.5:1/2.5:1/2.5:3+0.5",
        "0(100x1)",
        "1000000",
        "4294967295/1:0",
    ];
    let alphabet = b"0123456789/:+db*()x.- ?\te";
    let mut checked = 0;
    for text in texts {
        let bytes = text.as_bytes();
        for at in 0..=bytes.len() {
            let (head, tail) = bytes.split_at(at);
            let mut variants: Vec<Vec<u8>> = Vec::new();
            if let Some((&byte, rest)) = tail.split_first() {
                variants.push([head, rest].concat());
                variants.push([head, &[byte, byte], rest].concat());
                variants.extend(alphabet.iter().map(|&other| [head, &[other], rest].concat()));
            }
            variants.extend(alphabet.iter().map(|&other| [head, &[other], tail].concat()));
            for variant in variants {
                let variant = String::from_utf8(variant).expect("ASCII");
                agree(&variant).map_err(|error| TestCaseError::fail(format!("{error}"))).expect("the readings agree");
                checked += 1;
            }
        }
    }
    assert!(checked > 1_000, "{checked}");
}

#[test]
fn display_forms() {
    for (us, text) in [
        (0, "0:00"),
        (59 * S, "0:59"),
        (61_250_000, "1:01.25"),
        (754 * S, "12:34"),
        (3_599_999_999, "59:59.999999"),
        (3_723_000_001, "1:02:03.000001"),
        (36_000 * S, "10:00:00"),
    ] {
        assert_eq!(display_text(us), text);
        assert_eq!(read_display(text), Some(us), "{text}");
        assert_eq!(Duration::from_us(us).to_string(), text);
    }
    for wrong in [
        "",
        "5",
        "0:5",
        "00:05",
        "0:05:00",
        "60:00",
        "1:60:00",
        "0:00.",
        "0:00.0",
        "0:00.50",
        "0:00.1234567",
        "-0:01",
        "0:0a",
        "1:02:03:04",
    ] {
        assert_eq!(read_display(wrong), None, "{wrong:?}");
    }
}

/// Texts made of the notation's characters, and slips of valid controls.
fn notation_like() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9./:+*()xdb?\\- ]{0,24}",
        "[ \t]?[0-9]{1,3}(/[0-9]{1,7}(\\.[0-9]{1,7})?)?(\\+[db]?[0-9]{1,8})?(:[0-9]{1,3}/[0-9]{1,4}){0,6}(:[0-9]{1,7}(\\+[0-9])?)?[ \n]?",
        "[0-9]{1,8}(\\.[0-9]{0,8})?\\([0-9]{1,4}[x/][0-9]{1,8}(\\.[0-9]{1,3})?\\)[:+ )]?",
        "\\*[0-9]{1,8}(\\.[0-9]{0,8})?[:+x ]?",
        "[0-9]{18,21}(\\.[0-9])?",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4_000, ..ProptestConfig::default() })]

    #[test]
    fn the_core_reads_texts_as_the_model_does(text in notation_like()) {
        agree(&text)?;
    }

    #[test]
    fn the_core_reads_any_text_as_the_model_does(text in any::<String>()) {
        agree(&text)?;
    }

    #[test]
    fn display_forms_agree_and_read_back(us in prop_oneof![0..u64::MAX, 0..10_000_000_000u64, (0..100_000u64).prop_map(|s| s * S)]) {
        prop_assert_eq!(Duration::from_us(us).to_string(), display_text(us));
        prop_assert_eq!(read_display(&display_text(us)), Some(us));
    }
}
