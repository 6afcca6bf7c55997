//! Short constructors shared by the clock-core tests.
#![allow(dead_code)]

pub use chessclock::Side;
use chessclock::{Clock, Duration, Instant, TimeControl};

pub fn secs(secs: u64) -> Duration {
    Duration::from_secs(secs)
}

pub fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

pub fn at_s(secs: u64) -> Instant {
    Instant::from_us(secs * 1_000_000)
}

pub fn at_ms(ms: u64) -> Instant {
    Instant::from_us(ms * 1_000)
}

/// A clock for `control`, started at instant zero (White to move).
pub fn started(control: TimeControl) -> Clock {
    let mut clock = Clock::new(control);
    clock.start(Instant::EPOCH).expect("a new clock starts");
    clock
}
