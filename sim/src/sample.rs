//! Integer sampling helpers. Every random decision of the simulator goes
//! through these, never through `rand`'s distributions (whose values changed
//! between versions) and never through floats: the numbers are ours and
//! golden-vector tests pin them.
//!
//! [`below`], [`between`], [`chance`] (a [`Ratio`]), [`triangular`],
//! [`skewed`], and [`Trials`]: a decision tried at every press (each defect,
//! each arbiter habit, the abstract board's endings) drawn as geometric gaps
//! between successes, so an uneventful press costs no draw.

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

/// A run of independent yes/no trials with one fixed chance each, drawn as
/// the gaps between successes rather than one draw per trial.
///
/// A rare decision made at every press (a missed press, a brownout, an
/// arbiter's pause) costs one draw per success instead of one per press.
/// The gap — the number of failures before the next success — is geometric:
/// `P(gap ≥ n) = qⁿ` with `q = 1 − chance`. It is drawn by inversion, in
/// integers: one raw 64-bit draw `u`, and the gap is the largest `n` with
/// `u < qⁿ·2⁶⁴`, found bit by bit from the powers `q^(2ᵏ)` in 0.64 fixed
/// point (each rounded down). Powers that round to zero end the search, so
/// gaps longer than that (probability below 2⁻⁶⁴) are cut.
#[derive(Clone, Copy, Debug)]
pub struct Trials {
    /// `q` as a fraction of 2⁶⁴; `None` for a chance of zero.
    failure: Option<u64>,
    /// Failures still to come before the next success.
    failures_left: u64,
}

/// Gaps up to 2⁶⁴ − 1 trials.
const GAP_BITS: usize = 64;

impl Trials {
    /// Trials with success chance `ratio`, the first gap drawn from `stream`
    /// now (nothing is drawn for a chance of zero or one).
    pub fn new(stream: &mut Stream, ratio: Ratio) -> Trials {
        let failure = (!ratio.is_never()).then(|| {
            let failure = u128::from(ratio.denominator - ratio.numerator.min(ratio.denominator));
            ((failure << 64) / u128::from(ratio.denominator.max(1))) as u64
        });
        let mut trials = Trials { failure, failures_left: 0 };
        trials.failures_left = trials.gap(stream);
        trials
    }

    /// The next trial: true on a success, which draws the gap to the next.
    #[inline]
    pub fn next(&mut self, stream: &mut Stream) -> bool {
        if let Some(left) = self.failures_left.checked_sub(1) {
            self.failures_left = left;
            return false;
        }
        if self.failure.is_none() {
            return false;
        }
        self.failures_left = self.gap(stream);
        true
    }

    #[inline(never)]
    fn gap(&self, stream: &mut Stream) -> u64 {
        let Some(failure) = self.failure else {
            // Never a success: the gap is as long as can be.
            return u64::MAX;
        };
        let mut powers = [0u64; GAP_BITS];
        let mut levels = 0;
        let mut power = failure;
        while power != 0 && levels < GAP_BITS {
            powers[levels] = power;
            levels += 1;
            power = ((u128::from(power) * u128::from(power)) >> 64) as u64;
        }
        if levels == 0 {
            // A certain success: every gap is empty, nothing to draw.
            return 0;
        }
        let draw = stream.next_u64();
        // `survival` is q^gap as a fraction of 2⁶⁴ (2⁶⁴ itself at first).
        let mut survival: u128 = 1 << 64;
        let mut gap = 0u64;
        for level in (0..levels).rev() {
            let longer = (survival * u128::from(powers[level])) >> 64;
            if u128::from(draw) < longer {
                survival = longer;
                gap |= 1 << level;
            }
        }
        gap
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Actor;

    fn ratio(numerator: u64, denominator: u64) -> Ratio {
        Ratio { numerator, denominator }
    }

    #[test]
    fn certain_and_impossible_trials_draw_nothing() {
        let mut stream = Stream::new(5, 0, Actor::Bounce);
        let mut always = Trials::new(&mut stream, Ratio::ALWAYS);
        let mut never = Trials::new(&mut stream, Ratio::NEVER);
        assert!((0..100).all(|_| always.next(&mut stream)));
        assert!((0..100).all(|_| !never.next(&mut stream)));
        assert_eq!(stream.next_u64(), Stream::new(5, 0, Actor::Bounce).next_u64());
    }

    /// Extreme chances draw without overflow: a chance of one in 2⁶³ gives
    /// long gaps, one just below certainty almost always succeeds.
    #[test]
    fn extreme_chances_stay_in_range() {
        let mut stream = Stream::new(2, 0, Actor::Bounce);
        let rare = Trials::new(&mut stream, ratio(1, 1 << 63));
        let gaps: Vec<u64> = (0..200).map(|_| rare.gap(&mut stream)).collect();
        // The median gap of a 2⁻⁶³ chance is about 0.69 · 2⁶³.
        let long = gaps.iter().filter(|gap| **gap > 1 << 60).count();
        assert!(long > 150, "{long} of 200 gaps above 2^60");
        let almost = Trials::new(&mut stream, ratio(u64::MAX - 1, u64::MAX));
        assert!((0..1_000).all(|_| almost.gap(&mut stream) == 0));
        // Malformed ratios (built without `Ratio::new`) count as certain.
        for odd in [ratio(5, 3), ratio(1, 0)] {
            let mut trials = Trials::new(&mut stream, odd);
            assert!((0..10).all(|_| trials.next(&mut stream)));
        }
    }

    /// The gaps follow the geometric law of independent trials: the share of
    /// gaps equal to `n` is `p·qⁿ`, within four standard errors.
    #[test]
    fn gaps_are_geometric() {
        for (numerator, denominator, seed) in [(1, 2, 1), (1, 3, 2), (1, 20, 3), (7, 10, 4), (1, 300, 5)] {
            let chance = numerator as f64 / denominator as f64;
            let mut stream = Stream::new(seed, 0, Actor::Bounce);
            let trials = Trials::new(&mut stream, ratio(numerator, denominator));
            let draws = 40_000;
            let gaps: Vec<u64> = (0..draws).map(|_| trials.gap(&mut stream)).collect();
            for n in [0u64, 1, 2, 5, 10] {
                let expected = chance * (1.0 - chance).powi(n as i32);
                let seen = gaps.iter().filter(|gap| **gap == n).count() as f64 / draws as f64;
                let error = (expected * (1.0 - expected) / draws as f64).sqrt();
                assert!(
                    (seen - expected).abs() <= 4.0 * error + 1e-9,
                    "{numerator}/{denominator}: P(gap = {n}) seen {seen}, expected {expected}"
                );
            }
            let mean = gaps.iter().sum::<u64>() as f64 / draws as f64;
            let expected_mean = (1.0 - chance) / chance;
            let spread = ((1.0 - chance).sqrt() / chance) / (draws as f64).sqrt();
            assert!(
                (mean - expected_mean).abs() <= 4.0 * spread,
                "{numerator}/{denominator}: mean gap {mean}, expected {expected_mean}"
            );
        }
    }

    /// Trials and one `chance` draw per trial are the same law: success
    /// counts over many trials agree within their spread.
    #[test]
    fn trials_match_per_trial_chances() {
        let rate = ratio(1, 50);
        let count = 200_000u64;
        let mut stream = Stream::new(9, 1, Actor::MissedPress);
        let mut trials = Trials::new(&mut stream, rate);
        let by_gaps = (0..count).filter(|_| trials.next(&mut stream)).count() as f64;
        let mut stream = Stream::new(9, 2, Actor::MissedPress);
        let by_draws = (0..count).filter(|_| chance(&mut stream, rate)).count() as f64;
        let spread = (count as f64 * 0.02 * 0.98).sqrt();
        assert!((by_gaps - 4_000.0).abs() < 4.0 * spread, "{by_gaps}");
        assert!((by_gaps - by_draws).abs() < 6.0 * spread, "{by_gaps} vs {by_draws}");
    }
}
