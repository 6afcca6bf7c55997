//! The oracle "the written forms read back": what the core writes and reads
//! as text is what an independent reader and writer
//! ([`chessclock_tick_model::notation`], made from the notation's
//! documentation) writes and reads.
//!
//! Per game, on the ideal clock's side:
//!
//! - **The control's written form** ([`CONTROL_CHECK`], in one game in
//!   [`CONTROL_EVERY`] and every swarm game): the scenario's
//!   control, as the core read it from its text, is the independent
//!   reading of that text; the core's canonical text of it is the
//!   independent writer's; and both readers read that canonical text back
//!   to the same control.
//! - **The rules' written names** ([`RULE_NAME_CHECK`], with the control's
//!   check): each transition's key, as scenarios' `exercises` name it,
//!   reads back to it, and each names an article (`6.2b`, `13.4`).
//! - **The display's written time** ([`DISPLAY_CHECK`]): the core's
//!   `Duration` text of each side's shown time at the game's end (and, with
//!   the control's check, of its initial time) is the independent display
//!   writer's, and the
//!   independent display reader reads it back to the same microseconds.
//! - Swarm games only, drawn from their own stream ([`Actor::WrittenForm`]):
//!   [`SLIPS_PER_GAME`] slips of the control text, as a person typing a
//!   scenario makes them (a character deleted, doubled, replaced or
//!   inserted), and [`LIMITS_PER_GAME`] texts at the notation's limits (a
//!   number of the text written as a limit value or just past it, or the
//!   whole text a PGN placeholder), and two with about [`STAGES_MAX`]
//!   stages, one of them with a number at its limit. The core and the
//!   independent reader
//!   must give the same verdict ([`SLIP_CHECK`]): both accept, with the
//!   same control and canonical text, or both refuse with the same kind at
//!   the same position. A refusal's message must say why
//!   ([`MESSAGE_CHECK`]): "column N: " and a text of its own for each kind.
//!
//! The oracle only reads: it draws from no stream a game plays with and
//! schedules nothing, so a game plays the same with it. Postal scenarios
//! have no chess-clock control and are skipped.

use chessclock::notation::{parse, ParseError, ParseErrorKind};
use chessclock::{Clock, Side, TimeControl, Transition, STAGES_MAX};
use chessclock_tick_model::notation::{display_text, read_control, read_display, Written};

use crate::game::GameSpec;
use crate::oracle::Violation;
use crate::rng::{Actor, Stream};
use crate::sample;

pub const CONTROL_CHECK: &str = "the control's written form";
pub const SLIP_CHECK: &str = "a slip in the control's text is read as the model reads it";
pub const MESSAGE_CHECK: &str = "a refused text's message says why";
pub const DISPLAY_CHECK: &str = "the display's written time reads back";
pub const RULE_NAME_CHECK: &str = "a rule's written name reads back";

/// Outside swarm games, the control's own written form is checked in one
/// game in this many: it is the same in every game of a scenario.
pub const CONTROL_EVERY: u64 = 64;

/// Typing slips drawn per swarm game: a few parses each, cheap.
pub const SLIPS_PER_GAME: u64 = 8;
/// Texts at the notation's limits drawn per swarm game.
pub const LIMITS_PER_GAME: u64 = 2;

/// What a slip may insert or replace a character with: the notation's own
/// characters, a blank and a letter.
pub const ALPHABET: &[u8] = b"0123456789/:+db*()x.-? e";

/// Numbers at the documented limits or just past them: zero, one, byo-yomi
/// periods (`PERIODS_MAX` = 100), times (`CONTROL_MAX` = 1 000 000 s, and a
/// microsecond more), counts (`u32`), microseconds (`u64`) and decimals (6).
pub const LIMIT_NUMBERS: [&str; 10] = [
    "0",
    "1",
    "100",
    "101",
    "1000000",
    "1000000.000001",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "0.0000001",
];

/// Whole texts a person may write instead of a control: PGN's "no control"
/// and "unknown", with and without blanks, and nothing.
pub const WHOLE_TEXTS: [&str; 5] = ["-", " - ", "?", "\t?", ""];

/// This game's violations of the written forms; `ideal` is the ideal clock
/// at the game's end, `end_us`.
pub fn game_violations(spec: &GameSpec<'_>, ideal: &Clock, end_us: u64) -> Vec<Violation> {
    let scenario = spec.scenario;
    if scenario.correspondence.is_some() || !scenario.control.is_given() {
        return Vec::new();
    }
    let mut violations = Vec::new();
    let mut violation = |at_us: u64, check: &'static str, detail: String| {
        violations.push(Violation { at_us, clock: "ideal", check, detail });
    };
    let control = &scenario.control.control;
    // The control and its initial time read the same in every game: one
    // game in CONTROL_EVERY (game 0 of every run among them) and every
    // swarm game check them; each game checks its own end.
    let whole = spec.swarm || spec.game % CONTROL_EVERY == 0;
    if whole {
        for detail in control_faults(&scenario.control.text, control) {
            violation(0, CONTROL_CHECK, detail);
        }
        for detail in rule_name_faults() {
            violation(0, RULE_NAME_CHECK, detail);
        }
    }
    let shown = [ideal.shown(Side::White), ideal.shown(Side::Black), control.initial_time()];
    for time in &shown[..if whole { 3 } else { 2 }] {
        if let Some(detail) = display_fault(time.as_us(), &time.to_string()) {
            violation(end_us, DISPLAY_CHECK, detail);
        }
    }
    if spec.swarm {
        let mut stream = Stream::new(spec.seed, spec.game, Actor::WrittenForm);
        let mut messages = Messages::default();
        let mut texts = Vec::new();
        for _ in 0..SLIPS_PER_GAME {
            texts.push(slip(&scenario.control.text, &mut stream));
        }
        for _ in 0..LIMITS_PER_GAME {
            texts.push(at_limit(&scenario.control.text, &mut stream));
        }
        texts.push(stages_at_limit(&scenario.control.text, &mut stream));
        // And one of those with a number at its limit: a later stage's count
        // of zero, say, which one field alone cannot show.
        let many = stages_at_limit(&scenario.control.text, &mut stream);
        texts.push(at_limit(&many, &mut stream));
        for text in texts {
            let core = parse(&text);
            if let Some(detail) = reading_fault(&text, &core) {
                violation(0, SLIP_CHECK, detail);
            }
            if let Err(error) = core {
                let said = error.kind.to_string();
                let detail =
                    message_fault(&error, &said, &error.to_string()).or_else(|| messages.note(error.kind, said));
                if let Some(detail) = detail {
                    violation(0, MESSAGE_CHECK, format!("{text:?}: {detail}"));
                }
            }
        }
    }
    violations
}

/// The rules' written names: a scenario's `exercises` key reads back to
/// its rule, and each rule names the article it applies (`6.2b`, `13.4`).
pub fn rule_name_faults() -> Vec<String> {
    let mut faults = Vec::new();
    for transition in Transition::ALL {
        let key = transition.key();
        if Transition::from_key(key) != Some(transition) {
            faults.push(format!("the key {key:?} reads back as {:?}, not {transition:?}", Transition::from_key(key)));
        }
        if !is_article(transition.article()) {
            faults.push(format!("{key} names {:?}, not an article", transition.article()));
        }
    }
    faults
}

/// An article's number as the Laws write it: `6.5`, `6.2b`, `13.4`.
pub fn is_article(text: &str) -> bool {
    let (number, letter) = text.split_at(text.trim_end_matches(|c: char| c.is_ascii_lowercase()).len());
    let digits =
        |part: Option<&str>| part.is_some_and(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    let mut parts = number.split('.');
    digits(parts.next()) && digits(parts.next()) && parts.next().is_none() && letter.len() <= 1
}

/// How the core's reading of `text` differs from the independent one, if it
/// does: the verdict, the control, the canonical text, the error's kind and
/// position.
pub fn reading_fault(text: &str, core: &Result<TimeControl, ParseError>) -> Option<String> {
    match (core, read_control(text)) {
        (Ok(control), Ok(written)) => {
            if Written::from_core(control) != written {
                return Some(format!("{text:?}: the core reads {control:?}, the model {written:?}"));
            }
            let (core_text, model_text) = (control.to_string(), written.to_string());
            (core_text != model_text)
                .then(|| format!("{text:?}: the core writes it {core_text:?}, the model {model_text:?}"))
        }
        (Err(error), Err(refusal)) => {
            let expected = refusal.core_error();
            (*error != expected).then(|| {
                format!(
                    "{text:?}: the core refuses it with {:?} at byte {}, the model with {:?} at byte {}",
                    error.kind, error.position, expected.kind, expected.position
                )
            })
        }
        (Ok(control), Err(refusal)) => Some(format!(
            "{text:?}: the core accepts it as {control:?}, the model refuses it with {:?} at byte {}",
            refusal.core_error().kind,
            refusal.at
        )),
        (Err(error), Ok(written)) => Some(format!(
            "{text:?}: the core refuses it with {:?} at byte {}, the model reads {written:?}",
            error.kind, error.position
        )),
    }
}

/// The scenario's `control`, read from `text` by the core, against the
/// independent reader and writer, and its canonical text read back by both.
pub fn control_faults(text: &str, control: &TimeControl) -> Vec<String> {
    let mut faults = Vec::new();
    faults.extend(reading_fault(text, &Ok(*control)));
    let canonical = control.to_string();
    let core_back = parse(&canonical);
    if core_back != Ok(*control) {
        faults.push(format!("the core reads its own {canonical:?} as {core_back:?}, not {control:?}"));
    }
    let model_back = read_control(&canonical);
    if model_back != Ok(Written::from_core(control)) {
        faults.push(format!("the model reads the core's {canonical:?} as {model_back:?}, not {control:?}"));
    }
    faults
}

/// How the core's text `written` of a time of `us` microseconds is not the
/// display form, if it is not.
pub fn display_fault(us: u64, written: &str) -> Option<String> {
    let expected = display_text(us);
    if written != expected {
        return Some(format!("{us} us is written {written:?}, a display shows {expected:?}"));
    }
    let back = read_display(written);
    (back != Some(us)).then(|| format!("{written:?} reads back as {back:?}, not {us} us"))
}

/// How a refusal's message does not say why, if it does not: `said` is the
/// kind's own text, `message` the whole error's.
pub fn message_fault(error: &ParseError, said: &str, message: &str) -> Option<String> {
    if said.trim().is_empty() {
        return Some(format!("the message of {:?} says nothing: {message:?}", error.kind));
    }
    let expected = format!("column {}: {said}", error.position.saturating_add(1));
    (message != expected).then(|| format!("the message is {message:?}, expected {expected:?}"))
}

/// The messages of the kinds refused so far: two kinds must not say the
/// same. A handful of entries per game, so a list.
#[derive(Debug, Default)]
pub struct Messages {
    said: Vec<(ParseErrorKind, String)>,
}

impl Messages {
    /// Notes what `kind` says; a fault if another kind said the same.
    pub fn note(&mut self, kind: ParseErrorKind, said: String) -> Option<String> {
        if let Some((other, _)) = self.said.iter().find(|(other, text)| *other != kind && *text == said) {
            return Some(format!("{kind:?} and {other:?} both say {said:?}"));
        }
        if !self.said.iter().any(|(known, _)| *known == kind) {
            self.said.push((kind, said));
        }
        None
    }
}

/// One typing slip of `text`: a character deleted, doubled or replaced, or
/// one inserted, from [`ALPHABET`].
pub fn slip(text: &str, stream: &mut Stream) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    let letter = |stream: &mut Stream| {
        let index = usize::try_from(sample::below(stream, ALPHABET.len() as u64)).unwrap_or(0);
        ALPHABET.get(index).copied().unwrap_or(b'0')
    };
    let kind = if len == 0 { 3 } else { sample::below(stream, 4) };
    let at = usize::try_from(sample::below(stream, if kind == 3 { len.saturating_add(1) } else { len })).unwrap_or(0);
    match kind {
        0 => {
            bytes.remove(at);
        }
        1 => {
            let byte = bytes.get(at).copied().unwrap_or(b'0');
            bytes.insert(at, byte);
        }
        2 => {
            let byte = letter(stream);
            if let Some(slot) = bytes.get_mut(at) {
                *slot = byte;
            }
        }
        _ => {
            let byte = letter(stream);
            bytes.insert(at, byte);
        }
    }
    // A control the core accepted is ASCII, so every edit is; lossy only
    // in case of a text that is not.
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `text` with one of its numbers written as a [`LIMIT_NUMBERS`] value, or
/// one of [`WHOLE_TEXTS`] instead of it.
pub fn at_limit(text: &str, stream: &mut Stream) -> String {
    let numbers = number_spans(text);
    let per_number = LIMIT_NUMBERS.len();
    let choices = numbers.len().saturating_mul(per_number).saturating_add(WHOLE_TEXTS.len());
    let pick = usize::try_from(sample::below(stream, choices as u64)).unwrap_or(0);
    let span = numbers.get(pick / per_number);
    let number = LIMIT_NUMBERS.get(pick % per_number);
    match (span, number, text.get(..span.map_or(0, |span| span.0)), text.get(span.map_or(0, |span| span.1)..)) {
        (Some(_), Some(number), Some(head), Some(tail)) => format!("{head}{number}{tail}"),
        _ => {
            let whole = pick.saturating_sub(numbers.len().saturating_mul(per_number));
            WHOLE_TEXTS.get(whole).copied().unwrap_or_default().to_string()
        }
    }
}

/// The text with as many stages as a control may have (`STAGES_MAX`), one
/// fewer or one more: its first field, given a move count if it had none,
/// repeated before its last.
pub fn stages_at_limit(text: &str, stream: &mut Stream) -> String {
    let stages = STAGES_MAX.saturating_sub(1) + usize::try_from(sample::below(stream, 3)).unwrap_or(0);
    let fields: Vec<&str> = text.trim().split(':').collect();
    let first = fields.first().copied().unwrap_or_default();
    let last = fields.last().copied().unwrap_or_default();
    let earlier = if first.contains('/') { first.to_string() } else { format!("1/{first}") };
    let mut written: Vec<String> = vec![earlier; stages.saturating_sub(1)];
    written.push(last.to_string());
    written.join(":")
}

/// Byte ranges of the runs of digits and points in `text`.
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (at, byte) in text.bytes().chain([b' ']).enumerate() {
        match (byte.is_ascii_digit() || byte == b'.', start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                spans.push((from, at));
                start = None;
            }
            _ => {}
        }
    }
    spans
}

#[cfg(test)]
mod tests;
