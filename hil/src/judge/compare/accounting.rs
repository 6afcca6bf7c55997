//! Every press accounted for: the edges the harness made against the Press
//! records the firmware sent. The replay in [`super::compare`] sees only the
//! presses the firmware reported, so a press it dropped, or one it made up,
//! is invisible there; here each is a mismatch of its own.

use bench_contract::{Body, Button, Record};

use super::{millis, seconds, Comparison, Mismatch, Quantity};

/// A press as the harness made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MadePress {
    pub button: Button,
    /// Firmware instant of its first closing edge, µs.
    pub at_us: u64,
    /// From the first closing edge to the last (contact bounce), µs.
    pub bounce_span_us: u64,
}

/// How the harness knows its edges' instants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeTiming {
    /// To the firmware's instant (lockstep): the firmware's stamp of each
    /// press is checked against it.
    Exact { late_max_us: u64 },
    /// Only roughly (host time): presses are matched, stamps not judged.
    Approximate,
}

/// How far after its first edge a press's record may be and still be its
/// own (a firmware registering presses on release, or late), µs.
const RECORD_WINDOW_US: u64 = 1_000_000;

/// Pairs each press made with the first unused Press record of its button
/// from a tick before its first edge (with approximate edges: from the
/// button's previous press) to the next press of that button (at most
/// `RECORD_WINDOW_US` later). A press with no record is
/// `press.unrecorded`; a record with no press is `press.phantom`, unless it
/// lies in the debounce window of its button's previous record (bounce
/// taken for a press: [`super::check_debounce`] names those). With exact
/// edge timing, a record stamped more than `late_max_us` after its edge, or
/// before it, is `press.stamp`.
pub fn check_presses(
    comparison: &mut Comparison,
    made: &[MadePress],
    records: &[Record],
    tick_us: u64,
    debounce_us: u64,
    timing: EdgeTiming,
) {
    let presses: Vec<(usize, &Record, Button)> = records
        .iter()
        .filter_map(|record| match record.body {
            Body::Press(press) => Some((record, press.button)),
            _ => None,
        })
        .enumerate()
        .map(|(index, (record, button))| (index, record, button))
        .collect();
    let mut used = vec![false; presses.len()];
    for (order, press) in made.iter().enumerate() {
        let next_same = made.iter().skip(order + 1).find(|later| later.button == press.button);
        // Approximate edges (host time) may be stamped before the harness's
        // instant: from just after the button's previous press then.
        let previous_same = made.iter().take(order).rev().find(|earlier| earlier.button == press.button);
        let from_us = match timing {
            // A firmware clock behind the machine's stamps its presses
            // early: from past the previous press's debounce window, so
            // such a press is paired and named by its stamp, while bounce
            // of the previous press stays the debounce check's.
            EdgeTiming::Exact { .. } => previous_same
                .map_or(0, |earlier| earlier.at_us.saturating_add(debounce_us).saturating_add(1))
                .max(press.at_us.saturating_sub(RECORD_WINDOW_US))
                .min(press.at_us.saturating_sub(tick_us)),
            EdgeTiming::Approximate => previous_same.map_or(0, |earlier| earlier.at_us.saturating_add(1)),
        };
        let until_us = next_same.map_or(press.at_us.saturating_add(RECORD_WINDOW_US), |later| later.at_us);
        let found = presses.iter().position(|(index, record, button)| {
            *button == press.button
                && !used.get(*index).copied().unwrap_or(true)
                && (from_us..until_us).contains(&record.at_us)
        });
        let Some(found) = found else {
            comparison.add(unrecorded(press));
            continue;
        };
        if let Some(slot) = used.get_mut(found) {
            *slot = true;
        }
        if let (EdgeTiming::Exact { late_max_us }, Some((index, record, _))) = (timing, presses.get(found)) {
            comparison.note_largest(Quantity::PressStamp, record.at_us.abs_diff(press.at_us));
            let late = record.at_us > press.at_us.saturating_add(late_max_us);
            let early = record.at_us.saturating_add(tick_us) < press.at_us;
            if late || early {
                comparison.add(stamp(press, *index, record, late_max_us));
            }
        }
    }
    for (order, ((index, record, button), used)) in presses.iter().zip(&used).enumerate() {
        // A record inside the debounce window of its button's previous one
        // is bounce taken for a press: the debounce check names it.
        let previous = presses.get(..order).unwrap_or_default().iter().rev().find(|(_, _, other)| other == button);
        let in_bounce =
            previous.is_some_and(|(_, earlier, _)| record.at_us < earlier.at_us.saturating_add(debounce_us));
        if !used && !in_bounce {
            comparison.add(Mismatch {
                quantity: Quantity::PressPhantom,
                press_index: Some(*index),
                at_us: record.at_us,
                seq: Some(record.seq),
                model: format!("no {button:?} press: the harness made no edge near {}", seconds(record.at_us)),
                firmware: format!("{button:?} press {index} registered"),
            });
        }
    }
}

fn unrecorded(press: &MadePress) -> Mismatch {
    Mismatch {
        quantity: Quantity::PressUnrecorded,
        press_index: None,
        at_us: press.at_us,
        seq: None,
        model: format!("a {:?} press, its first edge at {}", press.button, seconds(press.at_us)),
        firmware: "no Press record".to_string(),
    }
}

fn stamp(press: &MadePress, index: usize, record: &Record, late_max_us: u64) -> Mismatch {
    let offset = if record.at_us >= press.at_us {
        format!("{} after", millis(record.at_us - press.at_us))
    } else {
        format!("{} before", millis(press.at_us - record.at_us))
    };
    Mismatch {
        quantity: Quantity::PressStamp,
        press_index: Some(index),
        at_us: press.at_us,
        seq: Some(record.seq),
        model: format!("stamped at the edge, {} (within {} after it)", seconds(press.at_us), millis(late_max_us)),
        firmware: format!("stamped {}, {offset} the edge", seconds(record.at_us)),
    }
}

#[cfg(test)]
mod tests {
    use bench_contract::{Press, PressResult};

    use super::*;
    use crate::judge::compare::compare;

    fn press_record(seq: u32, button: Button, at_us: u64) -> Record {
        Record::new(
            seq,
            0,
            at_us,
            Body::Press(Press {
                button,
                result: PressResult::NotStarted,
                bounces: 0,
                moves: 0,
                remaining_us: 0,
                handled_at_us: at_us + 40,
                edge_hw_counter: 0,
            }),
        )
    }

    fn made(button: Button, at_us: u64) -> MadePress {
        MadePress { button, at_us, bounce_span_us: 0 }
    }

    fn keys_after(made_presses: &[MadePress], records: &[Record], timing: EdgeTiming) -> Vec<&'static str> {
        let mut comparison = compare("60+1", 1_000, &[]).expect("parses");
        check_presses(&mut comparison, made_presses, records, 1_000, 20_000, timing);
        comparison.by_quantity.keys().copied().collect()
    }

    const EXACT: EdgeTiming = EdgeTiming::Exact { late_max_us: 1_100 };

    #[test]
    fn every_press_with_its_record_on_time_passes() {
        let presses = [made(Button::White, 1_000_000), made(Button::Black, 2_000_000)];
        let records = [press_record(0, Button::White, 1_000_007), press_record(1, Button::Black, 2_001_007)];
        assert_eq!(keys_after(&presses, &records, EXACT), Vec::<&str>::new());
        // The largest stamp difference is reported, within tolerance or not.
        let mut comparison = compare("60+1", 1_000, &[]).expect("parses");
        check_presses(&mut comparison, &presses, &records, 1_000, 20_000, EXACT);
        assert_eq!(comparison.largest_us.get("press.stamp"), Some(&1_007));
    }

    #[test]
    fn a_dropped_press_is_unrecorded_and_a_made_up_one_a_phantom() {
        let presses = [made(Button::White, 1_000_000), made(Button::Black, 2_000_000)];
        let records = [press_record(0, Button::White, 1_000_007), press_record(1, Button::White, 3_000_000)];
        assert_eq!(keys_after(&presses, &records, EXACT), ["press.phantom", "press.unrecorded"]);
    }

    #[test]
    fn a_press_stamped_at_its_release_is_late() {
        let presses = [made(Button::White, 1_000_000)];
        let records = [press_record(0, Button::White, 1_045_000)];
        assert_eq!(keys_after(&presses, &records, EXACT), ["press.stamp"]);
        // Without exact edges the stamp is not judged.
        assert_eq!(keys_after(&presses, &records, EdgeTiming::Approximate), Vec::<&str>::new());
    }

    /// Host-timed edges are known only roughly: a record stamped before the
    /// harness's instant still answers its press.
    #[test]
    fn an_approximate_edge_may_be_stamped_before_the_harness_instant() {
        let presses = [made(Button::White, 1_000_000), made(Button::White, 4_300_000)];
        let records = [press_record(0, Button::White, 1_000_007), press_record(1, Button::White, 4_050_000)];
        assert_eq!(keys_after(&presses, &records, EdgeTiming::Approximate), Vec::<&str>::new());
        assert_eq!(keys_after(&presses, &records, EXACT), ["press.stamp"], "250 ms early, named by its stamp");
    }

    /// A firmware clock behind the machine's stamps each press before the
    /// edge bench made: the press is paired with its record and named by
    /// its stamp, not taken for a press lost and another made up; a record
    /// inside the previous press's debounce window is still bounce.
    #[test]
    fn a_press_stamped_early_by_a_slow_clock_is_a_stamp_mismatch() {
        let presses = [made(Button::White, 1_000_000), made(Button::White, 2_000_000)];
        let records = [press_record(0, Button::White, 999_000), press_record(1, Button::White, 1_996_500)];
        assert_eq!(keys_after(&presses, &records, EXACT), ["press.stamp"]);
        let records = [press_record(0, Button::White, 1_000_007), press_record(1, Button::White, 1_010_000)];
        assert_eq!(keys_after(&presses, &records, EXACT), ["press.unrecorded"], "bounce of the first press");
    }

    #[test]
    fn a_record_inside_a_press_bounce_is_left_to_the_debounce_check() {
        let presses = [MadePress { button: Button::Black, at_us: 1_000_000, bounce_span_us: 4_000 }];
        let records = [press_record(0, Button::Black, 1_000_007), press_record(1, Button::Black, 1_004_007)];
        assert_eq!(keys_after(&presses, &records, EXACT), Vec::<&str>::new());
        // Past the debounce window it is a press the harness never made.
        let records = [press_record(0, Button::Black, 1_000_007), press_record(1, Button::Black, 1_024_007)];
        assert_eq!(keys_after(&presses, &records, EXACT), ["press.phantom"]);
    }
}
