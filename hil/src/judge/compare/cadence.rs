//! The Snapshot cadence (contract §3, kind 5): a Snapshot at least every
//! 100 ms of firmware time while a time control is set, and one after every
//! event — a command's Ack, a Press, a Flag, a Period change — at the
//! instant the firmware reported it. [`super::compare`] judges the
//! snapshots that come; without this check a firmware that sends none, or
//! none after a flag, passes it, and the displays a player sees after a
//! flag go unchecked until the next periodic one.
//!
//! Instants are the firmware's own (`at_us`), so the check is the same on
//! every host. Tolerance: a Snapshot after an event is due within one tick
//! (`tick_us` of Hello) of the instant the firmware reported the event, as
//! every time of §9; a Period record carries no notice instant (a Flag has
//! `observed_at_us`, a Press `handled_at_us`), so a period change may be
//! noticed as late as a flag ([`super::FLAG_NOTICE_MAX_US`] or two ticks).
//! The periodic Snapshot is noticed due by a main loop, as a flag is: a gap
//! may pass 100 ms by that same notice bound (110 ms with a 1 ms tick, the
//! longest gap the lockstep harness already allows, `hil/LOCKSTEP.md`). The
//! reference firmware's longest gap, measured on QEMU, is 101.002 ms: a
//! loop turn that handled a press when the 100 ms came due.

use bench_contract::{AckStatus, Body, CommandCode, Record};

use super::{millis, seconds, Comparison, Mismatch, Quantity, FLAG_NOTICE_MAX_US};

/// The longest gap between two Snapshots while a time control is set,
/// firmware µs (contract §3, kind 5), before the tick of tolerance.
pub const SNAPSHOT_INTERVAL_MAX_US: u64 = 100_000;

/// An event whose Snapshot is still to come.
#[derive(Clone, Copy, Debug)]
struct Pending {
    what: &'static str,
    at_us: u64,
    seq: u32,
    press_index: Option<usize>,
    /// The latest instant its Snapshot may speak of, before the stops.
    due_by_us: u64,
    /// Records written since the event's own (each a lockstep stop).
    stops: u64,
}

impl Pending {
    /// The latest instant its Snapshot may speak of, with `stop_cost_us`
    /// for each record written from the event's on: each is a lockstep
    /// stop, and QEMU moves guest time to the next tick as it stops
    /// (hil/LOCKSTEP.md), a tick the firmware never had to write in.
    fn due_with_stops(&self, stop_cost_us: u64) -> u64 {
        self.due_by_us.saturating_add(self.stops.saturating_mul(stop_cost_us))
    }
}

/// Where the walk through one game's records stands.
#[derive(Debug, Default)]
struct Walk {
    /// The firmware instant of the latest Snapshot, or of the Ack that set
    /// the control; `None` while no control is set.
    last_snapshot_us: Option<u64>,
    pending: Option<Pending>,
    /// Press records seen so far.
    presses: usize,
}

/// Checks a game's records (in the firmware's order, from the game's first
/// command on) against the cadence: each gap between Snapshots longer
/// than [`SNAPSHOT_INTERVAL_MAX_US`] and the notice bound while a control is set is
/// `snapshot.cadence` (so is the gap from the last Snapshot to the end of
/// the records); each event whose next Snapshot is later than the event's
/// instant and a tick, or that no Snapshot follows before the firmware's
/// time moves past that, is `snapshot.after_event`.
pub fn check_cadence(comparison: &mut Comparison, records: &[Record], tick_us: u64, stop_cost_us: u64) {
    let tick_us = tick_us.max(1);
    let notice_max_us = FLAG_NOTICE_MAX_US.max(tick_us.saturating_mul(2));
    let gap_max_us = SNAPSHOT_INTERVAL_MAX_US.saturating_add(notice_max_us);
    let mut walk = Walk::default();
    let mut end_us = 0u64;
    for record in records {
        let latest_us = notice_us(record);
        end_us = end_us.max(latest_us);
        if let Some(pending) = walk.pending.as_mut() {
            pending.stops = pending.stops.saturating_add(1);
            let due_us = pending.due_with_stops(stop_cost_us);
            let snapshot_in_time = matches!(record.body, Body::Snapshot(_)) && record.at_us <= due_us;
            if !snapshot_in_time && latest_us > due_us {
                comparison.add(no_snapshot_after(pending, record, due_us));
                walk.pending = None;
            }
        }
        match record.body {
            Body::Snapshot(_) => {
                if let Some(last_us) = walk.last_snapshot_us {
                    if record.at_us.saturating_sub(last_us) > gap_max_us {
                        comparison.add(gap(last_us, record.at_us, walk.presses, Some(record.seq)));
                    }
                    walk.last_snapshot_us = Some(last_us.max(record.at_us));
                }
                walk.pending = None;
            }
            Body::Ack(ack) => {
                let sets_control =
                    ack.status == AckStatus::Ok && matches!(ack.command, CommandCode::TimeControl | CommandCode::Reset);
                if sets_control && walk.last_snapshot_us.is_none() {
                    walk.last_snapshot_us = Some(record.at_us);
                }
                walk.event(record, "the Ack of a command", latest_us.saturating_add(tick_us));
            }
            Body::Press(_) => {
                walk.presses = walk.presses.saturating_add(1);
                walk.event(record, "a Press", latest_us.saturating_add(tick_us));
            }
            Body::Flag(_) => walk.event(record, "a Flag", latest_us.saturating_add(tick_us)),
            Body::Period(_) => walk.event(record, "a Period change", record.at_us.saturating_add(notice_max_us)),
            _ => {}
        }
    }
    if let Some(last_us) = walk.last_snapshot_us {
        if end_us.saturating_sub(last_us) > gap_max_us {
            comparison.add(gap(last_us, end_us, walk.presses, None));
        }
    }
}

impl Walk {
    /// An event while a control is set wants a Snapshot by `due_by_us`;
    /// the earliest such instant of the events not yet followed by one.
    fn event(&mut self, record: &Record, what: &'static str, due_by_us: u64) {
        if self.last_snapshot_us.is_none() {
            return;
        }
        let press_index = self.presses.checked_sub(1);
        let event = Pending { what, at_us: record.at_us, seq: record.seq, press_index, due_by_us, stops: 0 };
        self.pending = match self.pending {
            Some(earlier) if earlier.due_by_us <= due_by_us => Some(earlier),
            _ => Some(event),
        };
    }
}

/// The instant a record shows the firmware had reached: its `at_us`, or a
/// Press's handling and a Flag's notice if later.
fn notice_us(record: &Record) -> u64 {
    match record.body {
        Body::Press(press) => record.at_us.max(press.handled_at_us),
        Body::Flag(flag) => record.at_us.max(flag.observed_at_us),
        _ => record.at_us,
    }
}

fn no_snapshot_after(pending: &Pending, record: &Record, due_us: u64) -> Mismatch {
    Mismatch {
        quantity: Quantity::SnapshotAfterEvent,
        press_index: pending.press_index,
        at_us: pending.at_us,
        seq: Some(pending.seq),
        model: format!("a Snapshot after {} (record {}) by {}", pending.what, pending.seq, seconds(due_us)),
        firmware: format!("none before record {} at {}", record.seq, seconds(notice_us(record))),
    }
}

fn gap(from_us: u64, to_us: u64, presses: usize, seq: Option<u32>) -> Mismatch {
    Mismatch {
        quantity: Quantity::SnapshotCadence,
        press_index: presses.checked_sub(1),
        at_us: from_us,
        seq,
        model: format!("a Snapshot at least every {} while a time control is set", millis(SNAPSHOT_INTERVAL_MAX_US)),
        firmware: format!("none from {} to {} ({})", seconds(from_us), seconds(to_us), millis(to_us - from_us)),
    }
}

#[cfg(test)]
mod tests {
    use bench_contract::{Ack, AckStatus, Body, Button, CommandCode, Record};

    use super::super::{compare, Comparison};
    use super::check_cadence;
    use crate::testing::firmware::{play, Defects, TICK_US};

    const TICK: u64 = TICK_US as u64;

    fn checked(records: &[Record]) -> Comparison {
        let mut comparison = compare("3+1", TICK, records).expect("parses");
        check_cadence(&mut comparison, records, TICK, 0);
        comparison
    }

    fn cadence_only(records: &[Record]) -> Comparison {
        let mut comparison = compare("3+1", TICK, &[]).expect("parses");
        check_cadence(&mut comparison, records, TICK, 0);
        comparison
    }

    fn keys(comparison: &Comparison) -> Vec<&'static str> {
        comparison.by_quantity.keys().copied().collect()
    }

    fn ack(seq: u32, at_us: u64, command: CommandCode, status: AckStatus) -> Record {
        let body =
            Ack { command, status, error_position: 0, commands: seq, initial_us: 0, final_period: 0, side: None };
        Record::new(seq, 0, at_us, Body::Ack(body))
    }

    /// The fake firmware's first Snapshot (3+1, not started), restamped:
    /// the check reads only its kind and instant.
    fn snapshot(seq: u32, at_us: u64) -> Record {
        let body = play(Defects::default(), "3+1", &[], 0)
            .into_iter()
            .find(|record| matches!(record.body, Body::Snapshot(_)))
            .expect("a Snapshot after `tc`")
            .body;
        Record::new(seq, 0, at_us, body)
    }

    /// `tc` acknowledged at 1 s with its Snapshot, then Snapshots at `at_us`.
    fn set_then_snapshots(at_us: &[u64]) -> Vec<Record> {
        let mut records = vec![ack(0, 1_000_000, CommandCode::TimeControl, AckStatus::Ok), snapshot(1, 1_000_000)];
        records.extend(at_us.iter().zip(2..).map(|(&at_us, seq)| snapshot(seq, at_us)));
        records
    }

    #[test]
    fn snapshots_110_ms_apart_keep_the_cadence_and_150_ms_apart_do_not() {
        assert_eq!(keys(&cadence_only(&set_then_snapshots(&[1_110_000, 1_220_000]))), Vec::<&str>::new());
        let late = cadence_only(&set_then_snapshots(&[1_110_000, 1_260_000]));
        assert_eq!(keys(&late), ["snapshot.cadence"]);
        assert_eq!(late.mismatch_count, 1);
        assert_eq!((late.mismatches[0].at_us, late.mismatches[0].seq), (1_110_000, Some(3)));
        assert!(late.mismatches[0].firmware.contains("150.000 ms"), "{}", late.mismatches[0]);
        assert_eq!(keys(&cadence_only(&set_then_snapshots(&[1_110_001]))), ["snapshot.cadence"]);
    }

    #[test]
    fn the_records_ending_150_ms_after_the_last_snapshot_is_a_gap() {
        let mut records = set_then_snapshots(&[1_100_000]);
        records.push(ack(3, 1_250_000, CommandCode::Unknown, AckStatus::UnknownCommand));
        records.push(snapshot(4, 1_250_000));
        assert_eq!(keys(&cadence_only(&records)), ["snapshot.cadence"]);
        // An event the records end with is judged by the gap alone: no
        // record says the firmware's time went past it.
        records.pop();
        assert_eq!(keys(&cadence_only(&records)), ["snapshot.cadence"]);
    }

    #[test]
    fn an_ack_needs_its_snapshot_within_a_tick() {
        let mut records = set_then_snapshots(&[]);
        records.push(ack(2, 1_050_000, CommandCode::Start, AckStatus::Ok));
        records.push(snapshot(3, 1_051_000));
        assert_eq!(keys(&cadence_only(&records)), Vec::<&str>::new());
        records[3].at_us = 1_051_001;
        assert_eq!(keys(&cadence_only(&records)), ["snapshot.after_event"]);
    }

    /// Lockstep: every record written is a stop, and QEMU moves guest time
    /// to the next tick as it stops, so a Press and a Period written back to
    /// back before their Snapshot cost the firmware up to two ticks it never
    /// had. The check allows a tick per such record where the harness says
    /// a stop costs one, and only there.
    #[test]
    fn each_lockstep_stop_between_an_event_and_its_snapshot_costs_at_most_a_tick() {
        let mut records = set_then_snapshots(&[]);
        records.push(ack(2, 1_050_000, CommandCode::Start, AckStatus::Ok));
        records.push(ack(3, 1_050_000, CommandCode::Pause, AckStatus::Ok));
        records.push(snapshot(4, 1_052_900));
        let with_stops = |records: &[Record], stop_cost_us| {
            let mut comparison = compare("3+1", TICK, &[]).expect("parses");
            check_cadence(&mut comparison, records, TICK, stop_cost_us);
            keys(&comparison)
        };
        // Two records from the event's on: a tick for the event and a tick
        // for its Ack, on top of the tick every event has.
        assert_eq!(with_stops(&records, TICK), Vec::<&str>::new());
        assert_eq!(with_stops(&records, 0), ["snapshot.after_event"], "no stops, no allowance");
        records[4].at_us = 1_053_001;
        assert_eq!(with_stops(&records, TICK), ["snapshot.after_event"], "past three ticks");
    }

    #[test]
    fn before_a_control_is_set_nothing_is_due() {
        // `reset` right after boot is refused: no control, no Snapshot due.
        let records = vec![ack(0, 1_000, CommandCode::Reset, AckStatus::NotAllowed), snapshot(1, 5_000_000)];
        assert_eq!(keys(&cadence_only(&records)), Vec::<&str>::new());
    }

    /// A 3+1 game in which White's flag falls (the fake's main loop turns
    /// every millisecond, with a Snapshot every 100 ms).
    fn flag_game() -> Vec<Record> {
        play(Defects::default(), "3+1", &[(Button::White, 400_000), (Button::Black, 900_000)], 5_000_000)
    }

    #[test]
    fn the_reference_firmwares_records_keep_the_cadence() {
        let comparison = checked(&flag_game());
        assert!(comparison.passed(), "{:?}", comparison.mismatches);
    }

    #[test]
    fn a_firmware_that_sends_no_snapshot_fails_after_the_first_event_and_on_the_gap() {
        let mut records = flag_game();
        records.retain(|record| !matches!(record.body, Body::Snapshot(_)));
        let comparison = checked(&records);
        assert_eq!(keys(&comparison), ["snapshot.after_event", "snapshot.cadence"], "{:?}", comparison.mismatches);
        assert_eq!(comparison.by_quantity["snapshot.cadence"], 1, "one gap, from the `tc` Ack to the end");
    }

    #[test]
    fn a_flag_with_no_snapshot_at_its_notice_is_caught_though_the_periodic_one_comes_in_time() {
        let records = flag_game();
        let (flag, noticed_us) = records
            .iter()
            .find_map(|record| match record.body {
                Body::Flag(flag) => Some((record.seq, flag.observed_at_us)),
                _ => None,
            })
            .expect("a flag");
        // The Snapshot after the Flag goes; the periodic one a tick later
        // comes two ticks later instead: in time for the cadence, not for
        // the flag.
        let mut records: Vec<Record> = records
            .into_iter()
            .filter(|record| !(matches!(record.body, Body::Snapshot(_)) && record.at_us == noticed_us))
            .collect();
        for record in &mut records {
            if matches!(record.body, Body::Snapshot(_)) && record.at_us == noticed_us + TICK {
                record.at_us += TICK;
            }
        }
        let comparison = checked(&records);
        assert_eq!(keys(&comparison), ["snapshot.after_event"], "{:?}", comparison.mismatches);
        assert_eq!(comparison.mismatches[0].seq, Some(flag));
    }
}
