//! Time controls for property tests (the comparison's and the schedule's):
//! every kind the notation writes, stages with every bonus, zero times.

use proptest::prelude::*;

/// Seconds from `min_ms` to `max_ms` in steps of `step_us`, written as the
/// notation prints them.
fn seconds(min_ms: u64, max_ms: u64, step_us: u64) -> impl Strategy<Value = String> {
    (min_ms * 1000 / step_us..=max_ms * 1000 / step_us).prop_map(move |steps| match steps * step_us % 1_000_000 {
        0 => format!("{}", steps * step_us / 1_000_000),
        part => format!("{}.{}", steps * step_us / 1_000_000, format!("{part:06}").trim_end_matches('0')),
    })
}

fn bonus(step_us: u64) -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        seconds(0, 3_000, step_us).prop_map(|time| format!("+{time}")),
        seconds(1, 3_000, step_us).prop_map(|time| format!("+d{time}")),
        seconds(1, 3_000, step_us).prop_map(|time| format!("+b{time}")),
    ]
}

/// Time controls in the core's notation, small enough that flags fall,
/// every time a multiple of `step_us`.
pub(crate) fn control(step_us: u64) -> impl Strategy<Value = String> {
    let stage = (1..4u32, seconds(0, 8_000, step_us), bonus(step_us));
    prop_oneof![
        4 => (prop::collection::vec(stage, 0..5), seconds(0, 10_000, step_us), bonus(step_us))
            .prop_map(|(earlier, last, bonus)| {
                let mut text: Vec<String> =
                    earlier.into_iter().map(|(moves, time, bonus)| format!("{moves}/{time}{bonus}")).collect();
                text.push(format!("{last}{bonus}"));
                text.join(":")
            }),
        1 => seconds(1, 8_000, step_us).prop_map(|time| format!("*{time}")),
        1 => (seconds(0, 5_000, step_us), 1..8u32, seconds(1, 3_000, step_us))
            .prop_map(|(main, periods, period)| format!("{main}({periods}x{period})")),
        1 => (seconds(0, 5_000, step_us), 1..8u32, seconds(1, 5_000, step_us))
            .prop_map(|(main, moves, period)| format!("{main}({moves}/{period})")),
    ]
}
