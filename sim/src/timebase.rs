//! The device's own time: true time bent by oscillator drift.
//!
//! Device time is piecewise linear in true time. Each segment lasts
//! [`SEGMENT_US`] of true time and runs at `drift_ppm + walk` parts per
//! million fast (negative: slow), the walk drawn per segment from the
//! drift stream, uniform in `-drift_walk_ppm..=drift_walk_ppm`. Segments are
//! drawn lazily, in order, so the numbers do not depend on which queries
//! come first.
//!
//! A deadline can lie days of device time ahead (a 1 000 000 s control
//! banks that much per move). Drawing every minute up to it, and keeping
//! them, made one long game take hours and gigabytes; so at most
//! [`AHEAD_MAX`] segments are drawn ahead of the present, and a deadline
//! beyond them is answered [`TrueAt::Later`]: the caller asks again at that
//! instant, when the horizon has moved. Each query costs a binary search
//! and at most `AHEAD_MAX` draws, whatever the times.

use std::collections::VecDeque;

use crate::rng::Stream;
use crate::sample;

/// True time per drift segment: the walk changes once a minute.
pub const SEGMENT_US: u64 = 60_000_000;

const PPM_I64: i64 = 1_000_000;

/// Segments drawn ahead of the present at most: 1 024 minutes (17 h) of true
/// time, 32 KiB. Every shipped scenario's deadlines fall within it, so they
/// are answered exactly at once, as before the bound.
pub const AHEAD_MAX: usize = 1_024;

/// When device time reaches a value, as far as the time base looks ahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrueAt {
    /// The earliest true time at which device time has reached the value.
    Exactly(u64),
    /// Not before this true time, past the horizon: ask again then.
    Later(u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Segment {
    start_true_us: u64,
    start_device_us: u64,
    /// Device time at the segment's end (the next segment's start).
    end_device_us: u64,
    ppm: i64,
}

impl Segment {
    fn new(start_true_us: u64, start_device_us: u64, ppm: i64) -> Segment {
        let mut segment = Segment { start_true_us, start_device_us, end_device_us: 0, ppm };
        segment.end_device_us = segment.device_at(segment.end_true_us());
        segment
    }

    fn device_at(&self, true_us: u64) -> u64 {
        let elapsed = true_us.saturating_sub(self.start_true_us);
        if self.ppm == 0 {
            return self.start_device_us.saturating_add(elapsed);
        }
        // Within a segment (at most SEGMENT_US) the product fits an i64 easily.
        let elapsed = i64::try_from(elapsed).unwrap_or(i64::MAX);
        let scaled = elapsed.saturating_mul(PPM_I64 + self.ppm) / PPM_I64;
        self.start_device_us.saturating_add(u64::try_from(scaled.max(0)).unwrap_or(u64::MAX))
    }

    fn end_true_us(&self) -> u64 {
        self.start_true_us.saturating_add(SEGMENT_US)
    }

    /// The earliest true time in this segment at which device time has
    /// reached `device_us` (which the segment reaches by its end).
    fn true_at(&self, device_us: u64) -> u64 {
        let needed = device_us.saturating_sub(self.start_device_us);
        let end = self.end_true_us();
        if self.ppm == 0 {
            return self.start_true_us.saturating_add(needed).min(end);
        }
        // device_at(start + e) = start_device + ⌊e·rate / 10⁶⌋ ≥ device_us
        // exactly when e·rate ≥ needed·10⁶: e = ⌈needed·10⁶ / rate⌉.
        let Some(rate) = u64::try_from(PPM_I64 + self.ppm).ok().filter(|rate| *rate > 0) else {
            // A stopped oscillator: device time is already all it will be.
            return self.start_true_us;
        };
        let elapsed = match needed.checked_mul(1_000_000) {
            Some(scaled) => scaled.div_ceil(rate),
            None => u64::try_from((u128::from(needed) * 1_000_000).div_ceil(u128::from(rate))).unwrap_or(u64::MAX),
        };
        let at = self.start_true_us.saturating_add(elapsed).min(end);
        debug_assert!(self.device_at(at) >= device_us || at == end, "{device_us} not reached at {at}");
        debug_assert!(at == self.start_true_us || self.device_at(at - 1) < device_us, "{at} is not the earliest");
        at
    }
}

/// Maps true time to device time and back.
#[derive(Clone, Debug)]
pub struct TimeBase {
    drift_ppm: i64,
    walk_ppm: i64,
    stream: Stream,
    /// The segment holding the latest instant asked about: the present.
    present: Segment,
    /// Segments after the present one, drawn early by `true_at`.
    ahead: VecDeque<Segment>,
}

impl TimeBase {
    pub fn new(drift_ppm: i64, walk_ppm: i64, mut stream: Stream) -> TimeBase {
        let present = Segment::new(0, 0, draw_ppm(drift_ppm, walk_ppm, &mut stream));
        TimeBase { drift_ppm, walk_ppm, stream, present, ahead: VecDeque::new() }
    }

    /// The segment after `last`, drawn now: segments are drawn in order.
    fn draw_after(&mut self, last: Segment) -> Segment {
        Segment::new(last.end_true_us(), last.end_device_us, draw_ppm(self.drift_ppm, self.walk_ppm, &mut self.stream))
    }

    /// Device time at true time `true_us`, which is the present: earlier
    /// times are not asked about again, and their segments are forgotten.
    pub fn device_at(&mut self, true_us: u64) -> u64 {
        // The last segment before u64::MAX ends where it starts: stop there.
        while true_us >= self.present.end_true_us() && self.present.end_true_us() > self.present.start_true_us {
            self.present = match self.ahead.pop_front() {
                Some(next) => next,
                None => self.draw_after(self.present),
            };
        }
        self.present.device_at(true_us)
    }

    /// The earliest true time at which device time has reached `device_us`,
    /// if that lies within [`AHEAD_MAX`] segments of the present.
    pub fn true_at(&mut self, device_us: u64) -> TrueAt {
        if self.present.end_device_us >= device_us {
            return TrueAt::Exactly(self.present.true_at(device_us));
        }
        // Device time never goes back, so segments are sorted by their end.
        let index = self.ahead.partition_point(|segment| segment.end_device_us < device_us);
        if let Some(segment) = self.ahead.get(index) {
            return TrueAt::Exactly(segment.true_at(device_us));
        }
        while self.ahead.len() < AHEAD_MAX {
            let last = self.ahead.back().copied().unwrap_or(self.present);
            let next = self.draw_after(last);
            self.ahead.push_back(next);
            if next.end_device_us >= device_us || next.end_true_us() == next.start_true_us {
                return TrueAt::Exactly(next.true_at(device_us));
            }
        }
        // Device time at the horizon's end is still short of `device_us`.
        TrueAt::Later(self.ahead.back().copied().unwrap_or(self.present).end_true_us())
    }
}

/// One segment's rate: the drift plus a walk uniform in `±walk_ppm`.
fn draw_ppm(drift_ppm: i64, walk_ppm: i64, stream: &mut Stream) -> i64 {
    if walk_ppm == 0 {
        return drift_ppm;
    }
    let span = walk_ppm.unsigned_abs();
    let offset = sample::between(stream, 0, 2 * span) as i64 - span as i64;
    drift_ppm + offset
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Actor;

    /// The answer of a time base within its horizon.
    fn exactly(answer: TrueAt) -> u64 {
        match answer {
            TrueAt::Exactly(true_us) => true_us,
            TrueAt::Later(true_us) => panic!("beyond the horizon: not before {true_us}"),
        }
    }

    /// Asks as a game does: at each `Later` instant, again.
    fn true_at_by_asking_again(time_base: &mut TimeBase, device_us: u64) -> (u64, usize) {
        let mut asked = 1;
        loop {
            assert!(time_base.ahead.len() <= AHEAD_MAX, "the look-ahead stays bounded");
            match time_base.true_at(device_us) {
                TrueAt::Exactly(true_us) => return (true_us, asked),
                TrueAt::Later(true_us) => {
                    let _ = time_base.device_at(true_us);
                    asked += 1;
                }
            }
        }
    }

    #[test]
    fn constant_drift_runs_fast_by_its_ppm() {
        let mut time_base = TimeBase::new(50, 0, Stream::new(1, 0, Actor::Device));
        // 50 ppm over 1000 s is 50 ms.
        assert_eq!(time_base.device_at(1_000_000_000), 1_000_050_000);
        assert_eq!(exactly(time_base.true_at(1_000_050_000)), 1_000_000_000);
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
    fn true_at_is_the_earliest_instant_reaching_the_device_time() {
        for (drift_ppm, walk_ppm, game) in [(0, 0, 0), (40, 10, 1), (-120, 30, 2), (999, 0, 3), (-999, 500, 4)] {
            let time_base = TimeBase::new(drift_ppm, walk_ppm, Stream::new(11, game, Actor::Drift));
            for device_us in (0..700_000_000u64).step_by(3_333_337).chain([1, 59_999_999, 60_000_000, 60_000_001]) {
                let at = exactly(time_base.clone().true_at(device_us));
                assert!(
                    time_base.clone().device_at(at) >= device_us,
                    "{drift_ppm} ppm: {device_us} not reached at {at}"
                );
                if at > 0 {
                    let before = time_base.clone().device_at(at - 1);
                    assert!(before < device_us, "{drift_ppm} ppm: {device_us} already reached at {}", at - 1);
                }
            }
        }
    }

    #[test]
    fn the_end_of_time_is_reached_in_finite_steps() {
        // Saturated instants (a bug upstream, or absurd input) must not spin
        // forever looking for a segment that ends later.
        let mut time_base = TimeBase::new(-50, 0, Stream::new(5, 0, Actor::Drift));
        let far = u64::MAX - SEGMENT_US / 2;
        time_base.present = Segment::new(far, far - 1_000, -50);
        assert!(time_base.device_at(u64::MAX) >= far - 1_000);
        assert_eq!(exactly(time_base.true_at(u64::MAX)), u64::MAX);
    }

    #[test]
    fn slow_clock_and_inverse_agree_across_segments() {
        let mut time_base = TimeBase::new(-120, 30, Stream::new(7, 3, Actor::Device));
        let mut last = 0;
        for true_us in (0..600_000_000u64).step_by(7_777_777) {
            let device_us = time_base.device_at(true_us);
            assert!(device_us >= last, "device time goes forward");
            last = device_us;
            let back = exactly(time_base.true_at(device_us));
            assert!(back <= true_us && time_base.device_at(back) == device_us, "{true_us} -> {device_us} -> {back}");
        }
    }

    #[test]
    fn a_deadline_days_ahead_is_found_in_bounded_steps_and_memory() {
        // Before the horizon, one query drew and kept a segment for every
        // minute up to the deadline, and searched them in order: a
        // 1 000 000 s control made games take hours and gigabytes.
        for (drift_ppm, walk_ppm, game) in [(0, 0, 0), (250, 50, 1), (-120, 30, 2), (100_000, 100_000, 3)] {
            let stream = || Stream::new(13, game, Actor::Drift);
            let mut time_base = TimeBase::new(drift_ppm, walk_ppm, stream());
            let far_us = 3 * 1_000_000_000_000; // 35 days of device time
            assert!(matches!(time_base.true_at(far_us), TrueAt::Later(_)));
            let (found, asked) = true_at_by_asking_again(&mut time_base, far_us);
            // One look-ahead per AHEAD_MAX minutes: a constant per query.
            let horizons = far_us / (SEGMENT_US * AHEAD_MAX as u64);
            assert!(asked as u64 <= horizons * 2 + 2, "{asked} queries for {horizons} horizons");
            // The same instant as walking every segment from the start: the
            // walk's draws are unchanged.
            let fresh = TimeBase::new(drift_ppm, walk_ppm, stream());
            assert!(fresh.clone().device_at(found) >= far_us, "{far_us} not reached at {found}");
            assert!(fresh.clone().device_at(found - 1) < far_us, "{far_us} already reached before {found}");
        }
    }

    #[test]
    fn near_deadlines_are_answered_at_once() {
        let mut time_base = TimeBase::new(250, 50, Stream::new(5, 9, Actor::Drift));
        let horizon_us = SEGMENT_US * (AHEAD_MAX as u64 - 1);
        assert!(matches!(time_base.true_at(horizon_us), TrueAt::Exactly(_)));
        assert!(time_base.ahead.len() <= AHEAD_MAX);
    }
}
