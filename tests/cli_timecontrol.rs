//! `bench timecontrol`: run the built binary and check what a user sees.

use std::process::Output;

mod support;
use support::bench;

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

/// Runs a valid control: exit 0, nothing on stderr; returns stdout.
#[track_caller]
fn explain(text: &str) -> String {
    let output = bench(&["timecontrol", text]);
    assert_eq!(output.status.code(), Some(0), "{text}: {}", stderr(&output));
    assert!(output.stderr.is_empty(), "{text}: {}", stderr(&output));
    stdout(&output)
}

/// Runs an invalid control: exit 2, nothing on stdout; returns the column
/// the caret is under (0-based, relative to the echoed text) and the message
/// after it.
#[track_caller]
fn reject(text: &str) -> (usize, String) {
    let output = bench(&["timecontrol", text]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{text}: {err}");
    assert!(output.stdout.is_empty(), "{text}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines.first().is_some_and(|line| line.starts_with("error: ")), "{err}");
    let echo = lines.iter().position(|line| *line == format!("  {text}")).unwrap_or_else(|| panic!("echo in {err}"));
    let caret_line = lines.get(echo + 1).unwrap_or_else(|| panic!("caret line in {err}"));
    let caret = caret_line.find('^').unwrap_or_else(|| panic!("caret in {err}"));
    assert!(caret_line[..caret].chars().all(|c| c == ' '), "{err}");
    (caret - 2, caret_line[caret + 1..].trim().to_owned())
}

#[test]
fn fide_stages_in_words() {
    let out = explain("40/5400+30:1800+30");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "Time control 40/5400+30:1800+30 (FIDE 6.2 stages)",
            "  Stage 1: 40 moves in 1 h 30 min, +30 s increment per move (Fischer)",
            "  Stage 2: rest of the game in 30 min, +30 s increment per move (Fischer)",
            "  Saved time carries into the next stage (6.2b).",
        ]
    );
}

#[test]
fn every_stage_is_described() {
    let out = explain("40/7200:20/3600+d5:900+b2.5");
    assert!(out.contains("Stage 1: 40 moves in 2 h, no increment or delay"), "{out}");
    assert!(out.contains("Stage 2: 20 moves in 1 h, 5 s delay per move (6.2b time-delay mode)"), "{out}");
    assert!(out.contains("unused delay is not banked"), "{out}");
    assert!(out.contains("Stage 3: rest of the game in 15 min, 2.5 s Bronstein delay per move"), "{out}");
}

#[test]
fn single_stage_and_canonical_text() {
    let out = explain(" 0300+02 ");
    assert!(out.starts_with("Time control 300+2 "), "{out}");
    assert!(out.contains("All moves in 5 min, +2 s increment per move (Fischer)"), "{out}");
    assert!(!out.contains("Saved time"), "{out}");
}

#[test]
fn other_controls() {
    let out = explain("*180");
    assert!(
        out.contains("(hourglass)") && out.contains("starts with 3 min") && out.contains("add up to 6 min"),
        "{out}"
    );
    let out = explain("3600(5x30)");
    assert!(out.contains("(byo-yomi)") && out.contains("Main time: 1 h"), "{out}");
    assert!(out.contains("5 periods of 30 s each"), "{out}");
    let out = explain("600(20/300)");
    assert!(out.contains("(Canadian overtime)") && out.contains("Main time: 10 min"), "{out}");
    assert!(out.contains("20 moves in 5 min, repeating"), "{out}");
}

#[test]
fn errors_put_the_caret_under_the_offending_character() {
    for (text, column, message) in [
        ("40/54x0", 5, "expected `+` (a bonus), `:` (the next stage) or the end"),
        ("300+", 4, "increment `+` must be followed by a number of seconds"),
        ("?", 0, "`?` means unknown time control and cannot be run"),
        ("-", 0, "`-` means no time control and cannot be run"),
        ("40/5400:20/1800", 8, "the last stage must be for the rest of the game"),
        ("3600(101x30)", 5, "101 byo-yomi periods given"),
        ("40/5400 +30", 7, "spaces are not allowed"),
        ("-5", 0, "times and counts cannot be negative"),
    ] {
        let (caret, said) = reject(text);
        assert_eq!(caret, column, "{text}");
        assert!(said.starts_with(message), "{text}: {said}");
    }
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(bench(&["timecontrol"]).status.code(), Some(2));
    assert_eq!(bench(&["no-such-command"]).status.code(), Some(2));
    assert_eq!(bench(&["timecontrol", "300", "extra"]).status.code(), Some(2));
}

#[test]
fn help_lists_the_subcommand_and_exit_codes() {
    let output = bench(&["--help"]);
    assert_eq!(output.status.code(), Some(0));
    let out = stdout(&output);
    assert!(out.lines().any(|line| line.trim_start().starts_with("timecontrol ")), "{out}");
    assert!(out.contains("2  usage or input error"), "{out}");

    let output = bench(&["timecontrol", "--help"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains("600(20/300)"));
}

/// `1:30` on a clock face reads as hours or as minutes: words read one way.
#[test]
fn durations_read_one_way_only() {
    assert!(explain("90+30").contains("All moves in 1 min 30 s, +30 s"), "{}", explain("90+30"));
    assert!(explain("5430").contains("All moves in 1 h 30 min 30 s,"), "{}", explain("5430"));
    assert!(explain("0.5").contains("All moves in 0.5 s,"), "{}", explain("0.5"));
}

/// `5+3` is 5 seconds for the game: almost surely meant as 5 minutes.
#[test]
fn a_few_seconds_for_the_game_gets_a_hint_in_minutes() {
    let out = explain("5+3");
    assert!(out.contains("for 5 minutes write 300+3."), "{out}");
    assert!(explain("5+d2").contains("write 300+d2."), "{}", explain("5+d2"));
    for meant in ["300+3", "60", "40/5+3:60"] {
        assert!(!explain(meant).contains("Note:"), "{meant}: {}", explain(meant));
    }
}
