//! Calls the correspondence rules refuse, tried on a copy of the clock
//! after every event of a postal game, so the game plays exactly as it
//! would without them: a move sent or received by the player not to move,
//! or sent before the move it answers arrived, or while the game is
//! suspended (6.8); a move received twice; a second claim while one is
//! pending; a call dated before the latest; and, while the accused may
//! still object (6.5), the arbiter's decision. Each must be refused with
//! the error that names the fault, in a message that names it too, and
//! change nothing.

use chessclock::correspondence::{CorrespondenceArticle, CorrespondenceClock, CorrespondenceError, Day, Standing};
use chessclock::Side;

/// The name a message gives a side, written here rather than read from
/// the core.
fn name(side: Side) -> &'static str {
    match side {
        Side::White => "White",
        Side::Black => "Black",
    }
}

/// An article as a report writes it, written here rather than read from
/// the core.
pub fn article_text(article: CorrespondenceArticle) -> &'static str {
    match article {
        CorrespondenceArticle::C6_1 => "Corr. 6.1",
        CorrespondenceArticle::C6_2 => "Corr. 6.2",
        CorrespondenceArticle::C6_3 => "Corr. 6.3",
        CorrespondenceArticle::C6_4 => "Corr. 6.4",
        CorrespondenceArticle::C6_5 => "Corr. 6.5",
        CorrespondenceArticle::C6_6 => "Corr. 6.6",
        CorrespondenceArticle::C6_7 => "Corr. 6.7",
        CorrespondenceArticle::C6_8 => "Corr. 6.8",
        CorrespondenceArticle::C6_9 => "Corr. 6.9",
        CorrespondenceArticle::C6_10 => "Corr. 6.10",
        CorrespondenceArticle::C6_11 => "Corr. 6.11",
    }
}

/// What a refusal's message must name: the side, the days, the article.
fn message_fault(error: CorrespondenceError) -> Option<String> {
    let words: Vec<String> = match error {
        CorrespondenceError::DayWentBackwards { last, day } => vec![last.0.to_string(), day.0.to_string()],
        CorrespondenceError::NotToMove { side }
        | CorrespondenceError::NothingReceived { side }
        | CorrespondenceError::AlreadyReceived { side }
        | CorrespondenceError::NotTheAccused { side } => vec![name(side).into()],
        CorrespondenceError::Suspended => vec!["6.8".into()],
        CorrespondenceError::ObjectionWindowOpen { until } => vec![until.0.to_string()],
        CorrespondenceError::GameOver
        | CorrespondenceError::ClaimPending
        | CorrespondenceError::NoClaimPending
        | CorrespondenceError::NoticeNotReceived => Vec::new(),
    };
    crate::oracle::refusal_fault(&error, &error.to_string(), &words)
}

/// A call on the correspondence clock, on a day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Call {
    Send(Side, Day),
    Receive(Side, Day),
    Claim(Side, Day),
    Decide(Day),
}

impl Call {
    fn apply(self, clock: &mut CorrespondenceClock) -> Result<(), CorrespondenceError> {
        match self {
            Call::Send(side, day) => clock.send(side, day).map(|_| ()),
            Call::Receive(side, day) => clock.receive(side, day),
            Call::Claim(side, day) => clock.claim(side, day).map(|_| ()),
            Call::Decide(day) => clock.decide(day, true, 0).map(|_| ()),
        }
    }
}

/// The wrong calls the clock's state on `day` allows, each with the
/// refusal the rules give it.
fn wrong_calls(clock: &CorrespondenceClock, day: u32) -> Vec<(Call, CorrespondenceError)> {
    let today = Day(day);
    let mut calls = Vec::new();
    if let Standing::ToMove { side, received } = clock.standing() {
        let other = side.opponent();
        calls.push((Call::Send(other, today), CorrespondenceError::NotToMove { side: other }));
        calls.push((Call::Receive(other, today), CorrespondenceError::NotToMove { side: other }));
        calls.push(match received {
            None => (Call::Send(side, today), CorrespondenceError::NothingReceived { side }),
            Some(_) => (Call::Receive(side, today), CorrespondenceError::AlreadyReceived { side }),
        });
    }
    if let Standing::Suspended { .. } = clock.standing() {
        // 6.8: no moves until the arbiter decides.
        calls.push((Call::Send(Side::White, today), CorrespondenceError::Suspended));
    }
    if let Some(claim) = clock.pending_claim() {
        if matches!(clock.standing(), Standing::ToMove { .. }) {
            calls.push((Call::Claim(claim.claimant, today), CorrespondenceError::ClaimPending));
        }
        if let (Some(until), false) = (clock.objection_deadline(), claim.objected) {
            if day <= until.0 {
                // 6.5: the accused may still object; the arbiter waits.
                calls.push((Call::Decide(today), CorrespondenceError::ObjectionWindowOpen { until }));
            }
        }
    }
    if day > 0 {
        let earlier = Day(day - 1);
        calls.push((
            Call::Claim(Side::White, earlier),
            CorrespondenceError::DayWentBackwards { last: today, day: earlier },
        ));
    }
    calls
}

/// What is wrong with the clock's answers to the wrong calls its state on
/// `day` (the day of its latest event) allows.
pub fn faults(clock: &CorrespondenceClock, day: u32) -> Vec<String> {
    let mut faults = Vec::new();
    for (call, expected) in wrong_calls(clock, day) {
        let mut tried = *clock;
        let answer = call.apply(&mut tried);
        if answer != Err(expected) {
            faults.push(format!("{call:?}: the clock answered {answer:?}, the rules {expected:?}"));
        } else if tried != *clock {
            faults.push(format!("{call:?}: refused, but the clock changed"));
        } else if let Some(fault) = message_fault(expected) {
            faults.push(format!("{call:?}: {fault}"));
        }
    }
    faults
}

#[cfg(test)]
mod tests {
    use chessclock::correspondence::Regulations;

    use super::*;

    /// After White's first move (White starts with it in hand), the wrong
    /// calls of that state are tried, and the core refuses each as the
    /// rules say.
    #[test]
    fn the_wrong_calls_of_a_state_are_tried_and_refused() {
        let mut clock = CorrespondenceClock::new(Regulations::DEFAULT, Day(0));
        clock.send(Side::White, Day(3)).expect("White sends");
        let calls = wrong_calls(&clock, 3);
        // Black sends before receiving; White sends or receives out of
        // turn; a day back.
        assert_eq!(calls.len(), 4, "{calls:?}");
        assert_eq!(faults(&clock, 3), Vec::<String>::new());
        // A day the clock has not reached is not "backwards": it is reported.
        assert!(!faults(&clock, 2).is_empty());
    }
}
