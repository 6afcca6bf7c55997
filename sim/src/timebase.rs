//! The device's own time: true time bent by oscillator drift.
//!
//! Device time is piecewise linear in true time. Each segment lasts
//! [`SEGMENT_US`] of true time and runs at `drift_ppm + walk` parts per
//! million fast (negative: slow), the walk drawn per segment from the
//! drift stream, uniform in `-drift_walk_ppm..=drift_walk_ppm`. Segments are
//! drawn lazily, in order, so the numbers do not depend on which queries
//! come first.

use std::collections::VecDeque;

use crate::rng::Stream;
use crate::sample;

/// True time per drift segment: the walk changes once a minute.
pub const SEGMENT_US: u64 = 60_000_000;

const PPM: i128 = 1_000_000;
const PPM_I64: i64 = 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Segment {
    start_true_us: u64,
    start_device_us: u64,
    ppm: i64,
}

impl Segment {
    fn device_at(&self, true_us: u64) -> u64 {
        if self.ppm == 0 {
            return self.start_device_us.saturating_add(true_us.saturating_sub(self.start_true_us));
        }
        // Within a segment (at most SEGMENT_US) the product fits an i64 easily.
        let elapsed = i64::try_from(true_us.saturating_sub(self.start_true_us)).unwrap_or(i64::MAX);
        let scaled = elapsed.saturating_mul(PPM_I64 + self.ppm) / PPM_I64;
        self.start_device_us.saturating_add(u64::try_from(scaled.max(0)).unwrap_or(u64::MAX))
    }

    fn end_true_us(&self) -> u64 {
        self.start_true_us.saturating_add(SEGMENT_US)
    }
}

/// Maps true time to device time and back.
#[derive(Clone, Debug)]
pub struct TimeBase {
    drift_ppm: i64,
    walk_ppm: i64,
    stream: Stream,
    /// Segments from the one holding the earliest time still asked about.
    segments: VecDeque<Segment>,
}

impl TimeBase {
    pub fn new(drift_ppm: i64, walk_ppm: i64, stream: Stream) -> TimeBase {
        let mut time_base = TimeBase { drift_ppm, walk_ppm, stream, segments: VecDeque::new() };
        let first = Segment { start_true_us: 0, start_device_us: 0, ppm: time_base.draw_ppm() };
        time_base.segments.push_back(first);
        time_base
    }

    fn draw_ppm(&mut self) -> i64 {
        if self.walk_ppm == 0 {
            return self.drift_ppm;
        }
        let span = self.walk_ppm.unsigned_abs();
        let offset = sample::between(&mut self.stream, 0, 2 * span) as i64 - span as i64;
        self.drift_ppm + offset
    }

    /// Forgets segments that end before `true_us`: the simulation asks
    /// about the present and the future only.
    fn forget_before(&mut self, true_us: u64) {
        while self.segments.len() > 1 && self.segments.front().is_some_and(|first| first.end_true_us() <= true_us) {
            self.segments.pop_front();
        }
    }

    /// The segment holding `true_us`, drawing later ones as needed.
    fn segment(&mut self, true_us: u64) -> Segment {
        if let Some(first) = self.segments.front() {
            if first.start_true_us <= true_us && true_us < first.end_true_us() {
                return *first;
            }
        }
        loop {
            let last = *self.segments.back().expect("a time base always has a segment");
            if true_us < last.end_true_us() {
                return *self.segments.iter().find(|segment| true_us < segment.end_true_us()).unwrap_or(&last);
            }
            let next = Segment {
                start_true_us: last.end_true_us(),
                start_device_us: last.device_at(last.end_true_us()),
                ppm: self.draw_ppm(),
            };
            self.segments.push_back(next);
        }
    }

    /// Device time at true time `true_us`, which is the present: earlier
    /// times are not asked about again.
    pub fn device_at(&mut self, true_us: u64) -> u64 {
        self.forget_before(true_us);
        self.segment(true_us).device_at(true_us)
    }

    /// The earliest true time at which device time has reached `device_us`.
    pub fn true_at(&mut self, device_us: u64) -> u64 {
        // Walk the segments forward from the current one.
        let mut probe = self.segments.front().map_or(0, |first| first.start_true_us);
        loop {
            let segment = self.segment(probe);
            let end = segment.end_true_us();
            if segment.device_at(end) >= device_us {
                let needed = i128::from(device_us.saturating_sub(segment.start_device_us));
                let rate = PPM + i128::from(segment.ppm);
                let guess =
                    segment.start_true_us.saturating_add(u64::try_from((needed * PPM + rate - 1) / rate).unwrap_or(0));
                let mut at = guess.clamp(segment.start_true_us, end);
                while at > segment.start_true_us && segment.device_at(at - 1) >= device_us {
                    at -= 1;
                }
                while segment.device_at(at) < device_us {
                    at += 1;
                }
                return at;
            }
            probe = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Actor;

    #[test]
    fn constant_drift_runs_fast_by_its_ppm() {
        let mut time_base = TimeBase::new(50, 0, Stream::new(1, 0, Actor::Device));
        // 50 ppm over 1000 s is 50 ms.
        assert_eq!(time_base.device_at(1_000_000_000), 1_000_050_000);
        assert_eq!(time_base.true_at(1_000_050_000), 1_000_000_000);
    }

    #[test]
    fn looking_into_the_future_keeps_the_present() {
        let mut time_base = TimeBase::new(10, 40, Stream::new(3, 1, Actor::Drift));
        let now = time_base.device_at(54_000_000);
        // A deadline several segments ahead must not lose the current one.
        let _ = time_base.true_at(500_000_000);
        assert_eq!(time_base.device_at(54_000_000), now);
        assert!(time_base.device_at(54_000_001) >= now);
    }

    #[test]
    fn slow_clock_and_inverse_agree_across_segments() {
        let mut time_base = TimeBase::new(-120, 30, Stream::new(7, 3, Actor::Device));
        let mut last = 0;
        for true_us in (0..600_000_000u64).step_by(7_777_777) {
            let device_us = time_base.device_at(true_us);
            assert!(device_us >= last, "device time goes forward");
            last = device_us;
            let back = time_base.true_at(device_us);
            assert!(back <= true_us && time_base.device_at(back) == device_us, "{true_us} -> {device_us} -> {back}");
        }
    }
}
