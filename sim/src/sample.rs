//! Integer sampling helpers. Every random decision of the simulator goes
//! through these, never through `rand`'s distributions (whose values changed
//! between versions) and never through floats: the numbers are ours and
//! golden-vector tests pin them.

use crate::rng::Stream;

/// A probability as a ratio of integers: `numerator` in `denominator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    pub numerator: u64,
    pub denominator: u64,
}

impl Default for Ratio {
    fn default() -> Self {
        Ratio::NEVER
    }
}

impl Ratio {
    pub const NEVER: Ratio = Ratio { numerator: 0, denominator: 1 };
    pub const ALWAYS: Ratio = Ratio { numerator: 1, denominator: 1 };

    /// `None` when the denominator is zero or the ratio is above one.
    pub const fn new(numerator: u64, denominator: u64) -> Option<Ratio> {
        if denominator == 0 || numerator > denominator {
            None
        } else {
            Some(Ratio { numerator, denominator })
        }
    }

    pub const fn is_never(self) -> bool {
        self.numerator == 0
    }

    /// `value * self`, rounded down, without overflow.
    pub fn of(self, value: u64) -> u64 {
        let scaled = u128::from(value) * u128::from(self.numerator) / u128::from(self.denominator.max(1));
        u64::try_from(scaled).unwrap_or(u64::MAX)
    }
}

/// Uniform in `0..bound` (`bound` > 0; 0 gives 0). Lemire's multiply-shift
/// with rejection, so every value is exactly equally likely.
pub fn below(stream: &mut Stream, bound: u64) -> u64 {
    if bound == 0 {
        return 0;
    }
    // The rejection threshold (2⁶⁴ mod bound) is below `bound`, so a low
    // half at or above `bound` is accepted without computing it: the same
    // values as always testing against the threshold, with a division only
    // in the rare close call.
    let mut threshold = None;
    loop {
        let product = u128::from(stream.next_u64()) * u128::from(bound);
        let low = product as u64;
        if low >= bound || low >= *threshold.get_or_insert_with(|| bound.wrapping_neg() % bound) {
            return (product >> 64) as u64;
        }
    }
}

/// Uniform in `low..=high` (swapped if given the wrong way round).
pub fn between(stream: &mut Stream, low: u64, high: u64) -> u64 {
    let (low, high) = if low <= high { (low, high) } else { (high, low) };
    match (high - low).checked_add(1) {
        Some(span) => low + below(stream, span),
        None => stream.next_u64(),
    }
}

/// True with probability `ratio`.
pub fn chance(stream: &mut Stream, ratio: Ratio) -> bool {
    if ratio.numerator == 0 {
        return false;
    }
    below(stream, ratio.denominator) < ratio.numerator
}

/// Triangular on `low..=high`, peaked in the middle: the mean of two uniform
/// draws (rounded down).
pub fn triangular(stream: &mut Stream, low: u64, high: u64) -> u64 {
    let first = u128::from(between(stream, low, high));
    let second = u128::from(between(stream, low, high));
    ((first + second) / 2) as u64
}

/// Skewed towards `low` with a long right tail: `low + (high - low) * u1 * u2`
/// with `u1`, `u2` uniform on [0, 1], in integers. Mean a quarter of the way
/// up; most moves are quick, a few take long — like human think times.
pub fn skewed(stream: &mut Stream, low: u64, high: u64) -> u64 {
    const SCALE: u64 = 1 << 20;
    let (low, high) = if low <= high { (low, high) } else { (high, low) };
    let first = u128::from(below(stream, SCALE + 1));
    let second = u128::from(below(stream, SCALE + 1));
    let span = u128::from(high - low);
    let offset = span * first * second / (u128::from(SCALE) * u128::from(SCALE));
    low + offset as u64
}
