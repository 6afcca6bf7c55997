//! Time as integer microseconds.
//!
//! **Invariant:** the core never reads a clock. Every instant is an argument,
//! and every duration is a whole number of microseconds. Arithmetic saturates
//! instead of overflowing, so no input can make the core panic; time controls
//! are bounded by [`Duration::CONTROL_MAX`] so saturation never changes a
//! decision in practice.

use core::fmt;

/// A point in time, in microseconds since an epoch chosen by the caller
/// (a simulator's zero, a board's boot, a game's scheduled start).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    since_epoch_us: u64,
}

/// A non-negative span of time in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration {
    us: u64,
}

impl Instant {
    pub const EPOCH: Instant = Instant { since_epoch_us: 0 };

    pub const fn from_us(since_epoch_us: u64) -> Instant {
        Instant { since_epoch_us }
    }

    pub const fn as_us(self) -> u64 {
        self.since_epoch_us
    }

    /// `self + duration`, saturating at the end of time.
    pub const fn after(self, duration: Duration) -> Instant {
        Instant::from_us(self.since_epoch_us.saturating_add(duration.us))
    }

    /// The time from `earlier` to `self`; zero if `earlier` is later.
    pub const fn since(self, earlier: Instant) -> Duration {
        Duration::from_us(self.since_epoch_us.saturating_sub(earlier.since_epoch_us))
    }
}

impl Duration {
    pub const ZERO: Duration = Duration { us: 0 };
    /// The longest time a stage, bonus or period may hold: 1 000 000 s
    /// (about 11.6 days). Longer controls are correspondence chess, which
    /// counts whole days in its own clock.
    pub const CONTROL_MAX: Duration = Duration::from_secs(1_000_000);

    pub const fn from_us(us: u64) -> Duration {
        Duration { us }
    }

    /// Saturates at `u64::MAX` microseconds.
    pub const fn from_millis(ms: u64) -> Duration {
        Duration::from_us(ms.saturating_mul(1_000))
    }

    /// Saturates at `u64::MAX` microseconds.
    pub const fn from_secs(secs: u64) -> Duration {
        Duration::from_us(secs.saturating_mul(1_000_000))
    }

    /// Saturates at `u64::MAX` microseconds.
    pub const fn from_mins(mins: u64) -> Duration {
        Duration::from_secs(mins.saturating_mul(60))
    }

    pub const fn as_us(self) -> u64 {
        self.us
    }

    /// Whole seconds, rounded down.
    pub const fn as_secs_floor(self) -> u64 {
        self.us / 1_000_000
    }

    pub const fn is_zero(self) -> bool {
        self.us == 0
    }

    pub const fn saturating_add(self, other: Duration) -> Duration {
        Duration::from_us(self.us.saturating_add(other.us))
    }

    pub const fn saturating_sub(self, other: Duration) -> Duration {
        Duration::from_us(self.us.saturating_sub(other.us))
    }

    pub const fn saturating_mul(self, factor: u64) -> Duration {
        Duration::from_us(self.us.saturating_mul(factor))
    }

    pub const fn min(self, other: Duration) -> Duration {
        if self.us <= other.us {
            self
        } else {
            other
        }
    }
}

/// A signed change of a clock's time, for arbiter adjustments (6.14, 13.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeAdjustment {
    Add(Duration),
    Subtract(Duration),
}

/// `h:mm:ss` with a fraction only when there is one: how a clock display
/// (and a person) writes a time.
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total_secs = self.as_secs_floor();
        let fraction_us = self.us % 1_000_000;
        let (hours, mins, secs) = (total_secs / 3600, (total_secs / 60) % 60, total_secs % 60);
        if hours > 0 {
            write!(f, "{hours}:{mins:02}:{secs:02}")?;
        } else {
            write!(f, "{mins}:{secs:02}")?;
        }
        if fraction_us != 0 {
            write_fraction(f, fraction_us)?;
        }
        Ok(())
    }
}

/// Writes `.ddd` with trailing zeros removed; `fraction_us` is below one second.
pub(crate) fn write_fraction(f: &mut fmt::Formatter<'_>, fraction_us: u64) -> fmt::Result {
    let mut digits = fraction_us;
    let mut width: usize = 6;
    while digits % 10 == 0 && width > 1 {
        digits /= 10;
        width = width.saturating_sub(1);
    }
    write!(f, ".{digits:0width$}")
}
