//! Whatever a firmware sends, the harness ends with a verdict: the records
//! of a real game with bytes changed (times, sequence numbers, values,
//! kinds), records dropped, repeated or swapped, go through everything a
//! run does with them (comparison, debounce check, lost records, accounting
//! drift, latency) without a panic. A board is outside the bench's control;
//! an arithmetic overflow or an index out of range here would end a release
//! gate with a backtrace instead of a report.

use bench_contract::{Body, Button, Record};
use proptest::prelude::*;

use super::{check_cadence, check_debounce, compare, records_lost};
use crate::judge::drift::{self, FitOptions};
use crate::judge::latency::{board_latency, latency_histogram, press_latencies};
use crate::target::SentPress;
use crate::target::{Bounce, ButtonId, EdgeWindow};
use crate::testing::firmware::{play, Defects, TICK_US};

const CONTROLS: [&str; 6] = ["3+1", "2+d1", "2+b1", "2/2:3", "*3", "2(2x1)"];

#[derive(Clone, Debug)]
enum Damage {
    /// Byte `offset` of the `record`-th record (modulo the count) becomes
    /// `value`, when the result still decodes (a record that does not
    /// decode is dropped by the reader before it gets here).
    Byte {
        record: prop::sample::Index,
        offset: usize,
        value: u8,
    },
    Drop(prop::sample::Index),
    Repeat(prop::sample::Index),
    Swap(prop::sample::Index, prop::sample::Index),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        6 => (any::<prop::sample::Index>(), 0..bench_contract::RECORD_SIZE, any::<u8>())
            .prop_map(|(record, offset, value)| Damage::Byte { record, offset, value }),
        1 => any::<prop::sample::Index>().prop_map(Damage::Drop),
        1 => any::<prop::sample::Index>().prop_map(Damage::Repeat),
        1 => (any::<prop::sample::Index>(), any::<prop::sample::Index>()).prop_map(|(a, b)| Damage::Swap(a, b)),
    ]
}

fn apply(records: &mut Vec<Record>, damage: &Damage) {
    if records.is_empty() {
        return;
    }
    match damage {
        Damage::Byte { record, offset, value } => {
            let index = record.index(records.len());
            let mut bytes = records[index].encode();
            bytes[*offset] = *value;
            if let Ok(changed) = Record::decode(&bytes) {
                records[index] = changed;
            }
        }
        Damage::Drop(record) => {
            records.remove(record.index(records.len()));
        }
        Damage::Repeat(record) => {
            let index = record.index(records.len());
            records.insert(index, records[index]);
        }
        Damage::Swap(a, b) => {
            let (a, b) = (a.index(records.len()), b.index(records.len()));
            records.swap(a, b);
        }
    }
}

proptest! {
    // 256 cases unless PROPTEST_CASES says otherwise (proptest reads it).
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_record_stream_gets_a_verdict_not_a_panic(
        control in prop::sample::select(&CONTROLS[..]),
        gaps_us in prop::collection::vec(1_000..1_500_000u64, 0..10),
        damages in prop::collection::vec(damage(), 1..24),
    ) {
        let mut at_us = 0;
        let presses: Vec<(Button, u64)> = gaps_us
            .iter()
            .enumerate()
            .map(|(index, gap_us)| {
                at_us += gap_us;
                (if index % 2 == 0 { Button::White } else { Button::Black }, at_us)
            })
            .collect();
        let mut records = play(Defects::default(), control, &presses, at_us + 4_000_000);
        for damage in &damages {
            apply(&mut records, damage);
        }
        let tick_us = u64::from(TICK_US);
        let mut comparison = compare(control, tick_us, &records);
        prop_assert!(comparison.is_ok(), "{comparison:?}");
        if let Ok(comparison) = &mut comparison {
            check_debounce(comparison, &records, 20_000);
            check_cadence(comparison, &records, tick_us, tick_us);
            prop_assert_eq!(comparison.records_lost, records_lost(&records));
        }
        let hello = records.iter().find_map(|record| match record.body {
            Body::Hello(hello) => Some(hello),
            _ => None,
        });
        if let Some(hello) = hello {
            let samples = drift::accounting_samples(&records, &hello);
            let _ = drift::fit(&samples, &FitOptions::default());
            // The presses as a probe backend would have sent them, the
            // counter read around each write (the fake counts microseconds).
            let sent: Vec<SentPress> = presses
                .iter()
                .map(|&(button, at_us)| SentPress {
                    button: if button == Button::White { ButtonId::White } else { ButtonId::Black },
                    scheduled_us: at_us,
                    sent_us: at_us,
                    window: Some(EdgeWindow { counter_before: at_us, counter_after: at_us + 3 }),
                    bounce: Bounce::NONE,
                })
                .collect();
            let _ = board_latency(&sent, &records, &hello);
        }
        let latencies = press_latencies(&records);
        prop_assert_eq!(latency_histogram(&latencies).iter().sum::<u64>(), latencies.len() as u64);
    }
}
