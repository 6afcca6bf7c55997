//! Press latencies: the firmware's own (edge stamp to registered) and, on
//! a board whose counter the harness reads around each press, the one
//! measured on the board (the write to the edge's stamp).

use bench_contract::{Body, Hello, Record};

use crate::target::{ButtonId, SentPress};

/// Nearest-rank percentiles of a set of durations, µs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Percentiles {
    pub count: usize,
    pub min_us: u64,
    pub p50_us: u64,
    pub p90_us: u64,
    pub p99_us: u64,
    pub max_us: u64,
}

impl Percentiles {
    pub fn of(values: &[u64]) -> Option<Percentiles> {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        let count = sorted.len();
        let rank = |percent: usize| {
            // Nearest rank: the smallest value with at least `percent` % at or below it.
            let index = (percent * count).div_ceil(100).saturating_sub(1);
            sorted.get(index.min(count.saturating_sub(1))).copied()
        };
        Some(Percentiles {
            count,
            min_us: *sorted.first()?,
            p50_us: rank(50)?,
            p90_us: rank(90)?,
            p99_us: rank(99)?,
            max_us: *sorted.last()?,
        })
    }
}

/// The press-latency histogram's bin edges, µs, fixed so that reports
/// compare bin by bin: bin `i` holds the latencies from
/// `LATENCY_BIN_EDGES_US[i]` up to (not including) the next edge; the last
/// bin holds everything from 200 ms up. 1-2-5 steps from 10 µs (an emulated
/// board registers a press in a few µs) to 200 ms (beyond any debounce);
/// 5 ms, the default gate's p99 limit, is an edge.
pub const LATENCY_BIN_EDGES_US: [u64; 15] =
    [0, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000];

/// How many of `latencies_us` fall in each bin of [`LATENCY_BIN_EDGES_US`].
pub fn latency_histogram(latencies_us: &[u64]) -> [u64; LATENCY_BIN_EDGES_US.len()] {
    let mut counts = [0u64; LATENCY_BIN_EDGES_US.len()];
    for &latency_us in latencies_us {
        // The edges are sorted and start at 0, so at least one is <= the latency.
        let bin = LATENCY_BIN_EDGES_US.partition_point(|&edge| edge <= latency_us).saturating_sub(1);
        if let Some(count) = counts.get_mut(bin) {
            *count = count.saturating_add(1);
        }
    }
    counts
}

/// Edge-to-registered latency of each press, µs: the firmware's own
/// `handled_at_us − at_us` (the edge stamp is the press instant; in the
/// emulator host send times are not comparable with guest time).
pub fn press_latencies(records: &[Record]) -> Vec<u64> {
    records
        .iter()
        .filter_map(|record| match record.body {
            Body::Press(press) => Some(press.handled_at_us.saturating_sub(record.at_us)),
            _ => None,
        })
        .collect()
}

/// Press latency measured on the board (contract 2, a backend that reads
/// the counter around its writes): from the counter read right before the
/// write to the counter the firmware read in the edge interrupt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardLatency {
    /// `edge_hw_counter − counter_before` in µs: an upper bound of the time
    /// from the electrical edge to the firmware's stamp (the write happened
    /// somewhere in the bracket).
    pub latency: Percentiles,
    /// `counter_after − counter_before` in µs: the bracket, how precisely
    /// each write's instant is known.
    pub bracket: Percentiles,
    /// Presses written with a bracket whose Press record was not found
    /// (debounced, missed, or its counter outside the bracket + 100 ms).
    pub unmatched: usize,
    /// Each matched press's latency and bracket, µs, in press order (for
    /// percentiles over several games).
    pub latencies_us: Vec<u64>,
    pub brackets_us: Vec<u64>,
}

/// How far after the bracket's start an edge's counter may be and still
/// belong to that press, µs.
const EDGE_MATCH_WINDOW_US: u64 = 100_000;

fn counter_us(cycles: u64, hz: u32) -> u64 {
    let hz = u128::from(hz.max(1));
    u64::try_from((u128::from(cycles) * 1_000_000 + hz / 2) / hz).unwrap_or(u64::MAX)
}

/// Pairs each bracketed press with the first unused Press record of its
/// button whose edge counter lies at most `EDGE_MATCH_WINDOW_US` after
/// the bracket's start (modulo the counter's wrap), and measures it.
/// `None` for a contract-1 firmware or when no press was bracketed.
pub fn board_latency(sent: &[SentPress], records: &[Record], hello: &Hello) -> Option<BoardLatency> {
    if hello.contract_version < 2 || hello.hw_counter_hz == 0 {
        return None;
    }
    let mask = if hello.hw_counter_bits >= 64 { u64::MAX } else { (1u64 << hello.hw_counter_bits) - 1 };
    let window_cycles = u64::try_from(u128::from(hello.hw_counter_hz) * u128::from(EDGE_MATCH_WINDOW_US) / 1_000_000)
        .unwrap_or(u64::MAX);
    let presses: Vec<(ButtonId, u64)> = records
        .iter()
        .filter_map(|record| match record.body {
            Body::Press(press) => Some((button_id(press.button), press.edge_hw_counter & mask)),
            _ => None,
        })
        .collect();
    let mut used = vec![false; presses.len()];
    let (mut latencies, mut brackets, mut unmatched) = (Vec::new(), Vec::new(), 0usize);
    for press in sent {
        let Some(window) = press.window else { continue };
        let before = window.counter_before & mask;
        let found = presses.iter().enumerate().find(|(index, (button, edge))| {
            *button == press.button
                && !used.get(*index).copied().unwrap_or(true)
                && edge.wrapping_sub(before) & mask <= window_cycles
        });
        match found {
            Some((index, (_, edge))) => {
                if let Some(slot) = used.get_mut(index) {
                    *slot = true;
                }
                latencies.push(counter_us(edge.wrapping_sub(before) & mask, hello.hw_counter_hz));
                let bracket = (window.counter_after & mask).wrapping_sub(before) & mask;
                brackets.push(counter_us(bracket, hello.hw_counter_hz));
            }
            None => unmatched += 1,
        }
    }
    let latency = Percentiles::of(&latencies)?;
    let bracket = Percentiles::of(&brackets)?;
    Some(BoardLatency { latency, bracket, unmatched, latencies_us: latencies, brackets_us: brackets })
}

fn button_id(button: bench_contract::Button) -> ButtonId {
    match button {
        bench_contract::Button::White => ButtonId::White,
        bench_contract::Button::Black => ButtonId::Black,
        bench_contract::Button::Pause => ButtonId::Pause,
    }
}

#[cfg(test)]
mod tests {
    use bench_contract::Body;

    use super::*;
    use crate::target::{Bounce, EdgeWindow};

    #[test]
    fn board_latency_pairs_presses_with_their_edges_and_wraps() {
        let hello =
            Hello { hw_counter_hz: 1_000_000, hw_counter_bits: 32, ..crate::testing::board::FakeBoard::hello() };
        let sent = |button, before: u64| SentPress {
            button,
            scheduled_us: 0,
            sent_us: 0,
            window: Some(EdgeWindow { counter_before: before, counter_after: (before + 300) % (1 << 32) }),
            bounce: Bounce::NONE,
        };
        let press = |button, edge| {
            Record::new(
                0,
                0,
                0,
                Body::Press(bench_contract::Press {
                    button,
                    result: bench_contract::PressResult::Accepted,
                    bounces: 0,
                    moves: 0,
                    remaining_us: 0,
                    handled_at_us: 0,
                    edge_hw_counter: edge,
                }),
            )
        };
        let near_wrap = (1u64 << 32) - 100;
        let presses = [sent(ButtonId::White, near_wrap), sent(ButtonId::Black, 5_000), sent(ButtonId::White, 900_000)];
        let records = [press(bench_contract::Button::White, 50), press(bench_contract::Button::Black, 5_120)];
        let measured = board_latency(&presses, &records, &hello).expect("two pairs");
        assert_eq!((measured.latency.count, measured.unmatched), (2, 1), "the third press has no edge");
        assert_eq!((measured.latency.min_us, measured.latency.max_us), (120, 150));
        assert_eq!(measured.bracket.p50_us, 300);
        assert_eq!(board_latency(&presses, &records, &Hello { contract_version: 1, ..hello }), None);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let values: Vec<u64> = (1..=100).rev().collect();
        let p = Percentiles::of(&values).expect("values");
        assert_eq!((p.count, p.min_us, p.p50_us, p.p90_us, p.p99_us, p.max_us), (100, 1, 50, 90, 99, 100));
        let p = Percentiles::of(&[7]).expect("one value");
        assert_eq!((p.p50_us, p.p99_us), (7, 7));
        assert_eq!(Percentiles::of(&[]), None);
    }

    #[test]
    fn latencies_land_in_their_bins() {
        // Each edge itself opens its bin; one below it closes the previous.
        let latencies_us = [0, 9, 10, 19, 20, 49, 4_999, 5_000, 5_001, 199_999, 200_000, 7_000_000];
        let mut expected = [0u64; LATENCY_BIN_EDGES_US.len()];
        for bin in [0, 0, 1, 1, 2, 2, 8, 9, 9, 13, 14, 14] {
            expected[bin] += 1;
        }
        assert_eq!(latency_histogram(&latencies_us), expected);
        assert_eq!(latency_histogram(&[]), [0; LATENCY_BIN_EDGES_US.len()]);
    }

    #[test]
    fn every_latency_is_counted_once_in_the_bin_whose_span_holds_it() {
        // A pseudo-random spread over every bin, against a plain scan of the spans.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let latencies_us: Vec<u64> = (0..5_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state % 300_000
            })
            .collect();
        let counts = latency_histogram(&latencies_us);
        assert_eq!(counts.iter().sum::<u64>(), latencies_us.len() as u64);
        for (bin, count) in counts.iter().enumerate() {
            let low = LATENCY_BIN_EDGES_US[bin];
            let high = LATENCY_BIN_EDGES_US.get(bin + 1).copied().unwrap_or(u64::MAX);
            let in_span = latencies_us.iter().filter(|&&latency| low <= latency && latency < high).count();
            assert_eq!(*count, in_span as u64, "bin {bin}: [{low}, {high}) µs");
        }
        assert!(LATENCY_BIN_EDGES_US.windows(2).all(|pair| pair[0] < pair[1]), "edges increase");
    }
}
