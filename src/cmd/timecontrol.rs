//! `bench timecontrol TEXT`: a time control in words.

use std::fmt::Write as _;

use chessclock::notation::{self, ParseError, Seconds};
use chessclock::{Bonus, Duration, Stage, StageLength, TimeControl};

use crate::exit::{Exit, Failure, Result};

#[derive(Debug, clap::Args)]
pub struct Cmd {
    /// The time control, e.g. `40/5400+30:1800+30`.
    #[arg(value_name = "TEXT", allow_hyphen_values = true)]
    text: String,
}

impl Cmd {
    pub fn run(self) -> Result {
        let control = notation::parse(&self.text)
            .map_err(|error| Failure::usage(anyhow::Error::msg(show_error(&self.text, error))))?;
        super::print(&describe(&control))?;
        Ok(Exit::Pass)
    }
}

/// The text with a caret under the offending character, and what is wrong.
fn show_error(text: &str, error: ParseError) -> String {
    // Control characters (tabs, newlines) would shift or break the echo line.
    let echo: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let before = text.get(..error.position).map_or(error.position, |before| before.chars().count());
    format!(
        "not a valid time control (column {column})\n  {echo}\n  {pad}^ {kind}",
        column = before + 1,
        pad = " ".repeat(before),
        kind = error.kind,
    )
}

/// Every stage, bonus and rule of `control`, one line each.
fn describe(control: &TimeControl) -> String {
    let mut out = String::new();
    match control {
        TimeControl::Stages(stages) => {
            let stages = stages.as_slice();
            if let [stage] = stages {
                line(&mut out, format_args!("Time control {control} (one stage, FIDE 6.2)"));
                line(&mut out, format_args!("  All moves in {}, {}", spoken(stage.time), bonus(stage.bonus)));
            } else {
                line(&mut out, format_args!("Time control {control} (FIDE 6.2 stages)"));
                for (index, stage) in stages.iter().enumerate() {
                    line(&mut out, format_args!("  Stage {}: {}, {}", index + 1, length(stage), bonus(stage.bonus)));
                }
                line(&mut out, format_args!("  Saved time carries into the next stage (6.2b)."));
            }
        }
        TimeControl::Hourglass { time } => {
            line(&mut out, format_args!("Time control {control} (hourglass)"));
            line(
                &mut out,
                format_args!(
                    "  Each player starts with {}; the time one player uses is added to the other's.",
                    spoken(*time)
                ),
            );
            line(&mut out, format_args!("  The two displays always add up to {}.", spoken(time.saturating_mul(2))));
        }
        TimeControl::ByoYomi { main, periods, period } => {
            line(&mut out, format_args!("Time control {control} (byo-yomi)"));
            line(&mut out, format_args!("  Main time: {}, no increment or delay.", spoken(*main)));
            line(
                &mut out,
                format_args!(
                    "  Then {}: a move made within a period keeps it; a period that runs out is lost.",
                    plural(
                        *periods,
                        &format!("period of {}", spoken(*period)),
                        &format!("periods of {} each", spoken(*period))
                    ),
                ),
            );
            line(&mut out, format_args!("  The flag falls when the last period runs out."));
        }
        TimeControl::Canadian { main, moves, period } => {
            line(&mut out, format_args!("Time control {control} (Canadian overtime)"));
            line(&mut out, format_args!("  Main time: {}, no increment or delay.", spoken(*main)));
            let moves = plural(*moves, "move", "moves");
            let period = spoken(*period);
            line(
                &mut out,
                format_args!(
                    "  Then {moves} in {period}, repeating: each overtime period starts afresh with {period}; \
                     time left in one is not carried over."
                ),
            );
            line(
                &mut out,
                format_args!("  The flag falls when an overtime period runs out before all its moves are made."),
            );
        }
    }
    if let Some(note) = minutes_meant(control) {
        line(&mut out, format_args!("{note}"));
    }
    out
}

/// A control whose every time is a few seconds was most likely written in
/// minutes (`5+3` for 5 min + 3 s): say what was read, and how to write
/// what was probably meant.
fn minutes_meant(control: &TimeControl) -> Option<String> {
    let TimeControl::Stages(stages) = control else { return None };
    let [stage] = stages.as_slice() else { return None };
    let secs = stage.time.as_secs_floor();
    if stage.time.is_zero() || secs >= 60 || stage.time.as_us() % 1_000_000 != 0 {
        return None;
    }
    let bonus = match stage.bonus {
        Bonus::None => String::new(),
        Bonus::Increment(amount) => format!("+{}", Seconds(amount)),
        Bonus::Delay(amount) => format!("+d{}", Seconds(amount)),
        Bonus::Bronstein(amount) => format!("+b{}", Seconds(amount)),
    };
    Some(format!(
        "  Note: times are in seconds, so this is {} for the whole game; for {secs} minutes write {}{bonus}.",
        spoken(stage.time),
        secs * 60
    ))
}

/// A duration in words a player reads one way only: `1 h 30 min`,
/// `1 min 30 s`, `2.5 s` (a clock face's `1:30` reads as hours or minutes).
fn spoken(time: Duration) -> String {
    let total_secs = time.as_secs_floor();
    let fraction_us = time.as_us() % 1_000_000;
    let (hours, mins, secs) = (total_secs / 3600, (total_secs / 60) % 60, total_secs % 60);
    let mut parts = Vec::new();
    if hours > 0 {
        parts.push(format!("{hours} h"));
    }
    if mins > 0 {
        parts.push(format!("{mins} min"));
    }
    if secs > 0 || fraction_us > 0 || parts.is_empty() {
        parts.push(format!("{} s", Seconds(Duration::from_us(secs * 1_000_000 + fraction_us))));
    }
    parts.join(" ")
}

fn line(out: &mut String, text: std::fmt::Arguments<'_>) {
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{text}");
}

fn length(stage: &Stage) -> String {
    match stage.length {
        StageLength::Moves(moves) => format!("{} in {}", plural(moves, "move", "moves"), spoken(stage.time)),
        StageLength::RestOfGame => format!("rest of the game in {}", spoken(stage.time)),
    }
}

fn bonus(bonus: Bonus) -> String {
    match bonus {
        Bonus::None => "no increment or delay".to_owned(),
        Bonus::Increment(amount) => format!("+{} s increment per move (Fischer)", Seconds(amount)),
        Bonus::Delay(amount) => format!(
            "{} s delay per move (6.2b time-delay mode): main time runs only after the delay; \
             unused delay is not banked",
            Seconds(amount)
        ),
        Bonus::Bronstein(amount) => format!(
            "{0} s Bronstein delay per move: main time runs from the start of the move, \
             and the time the move used, up to {0} s, is given back when it is completed",
            Seconds(amount)
        ),
    }
}

/// `1 move`, `40 moves`.
fn plural(count: u32, one: &str, many: &str) -> String {
    if count == 1 {
        format!("1 {one}")
    } else {
        format!("{count} {many}")
    }
}
