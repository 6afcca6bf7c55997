//! Expectation ranges from measured shares: what a scenario's
//! `[[expect.result]]` and `agreement_min_percent` should say so that a run
//! of the scenario's own `games` fails by chance only rarely.
//!
//! A run's count in a class is binomial: `games` independent games, each in
//! the class with the share `p` measured over many games. A range fails a
//! run on its low side when `count·100 < min·games` and on its high side
//! when `count·100 > max·games` (the integer tests of [`crate::run::judge`]).
//! The shipped scenarios keep each side's chance below [`RISK_PER_SIDE`].
//!
//! Floats weigh probabilities here, for a person reading them; no game
//! reads them. The binomial probabilities are computed from the mode
//! outward by ratios of neighbours (no special functions), so nothing
//! overflows and far tails underflow harmlessly to zero.

use crate::run::Summary;
use crate::scenario::Scenario;

/// The chance, per side of a range, that a run of the scenario fails it
/// although the simulator gives the share it was calibrated on.
pub const RISK_PER_SIDE: f64 = 1e-4;

/// Standard errors of the measured share a suggested range allows for: the
/// share measured over many games is itself off by up to this many, so
/// a range suggested from one calibration holds for another.
const MARGIN_STANDARD_ERRORS: f64 = 3.0;

/// `part` of `whole` calibration games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    pub part: u64,
    pub whole: u64,
}

impl Share {
    pub fn fraction(self) -> f64 {
        if self.whole == 0 {
            return 0.0;
        }
        self.part as f64 / self.whole as f64
    }

    /// The share moved `MARGIN_STANDARD_ERRORS` down and up, within 0..=1.
    fn with_margin(self) -> (f64, f64) {
        let p = self.fraction();
        let standard_error = (p * (1.0 - p) / self.whole.max(1) as f64).sqrt();
        let margin = MARGIN_STANDARD_ERRORS * standard_error;
        ((p - margin).max(0.0), (p + margin).min(1.0))
    }
}

/// Binomial(`n`, `p`) probabilities of the counts `start..start + len`:
/// every count whose probability is not zero in an `f64`. Counts more than
/// forty standard deviations from the mode are left out (their
/// probabilities underflow anyway), so a scenario of a billion games costs
/// no more than a few hundred thousand terms.
struct Binomial {
    start: u64,
    weights: Vec<f64>,
}

impl Binomial {
    fn new(n: u64, p: f64) -> Binomial {
        if p <= 0.0 {
            return Binomial { start: 0, weights: vec![1.0] };
        }
        if p >= 1.0 {
            return Binomial { start: n, weights: vec![1.0] };
        }
        let mode = ((n as f64 + 1.0) * p).floor().min(n as f64) as u64;
        let reach = (40.0 * (n as f64 * p * (1.0 - p)).sqrt()) as u64 + 50;
        let (start, end) = (mode.saturating_sub(reach), mode.saturating_add(reach).min(n));
        // P(k+1)/P(k) = (n-k)/(k+1) · p/(1-p): from the mode (the largest
        // probability, set to 1 before normalising) down and up.
        let odds = p / (1.0 - p);
        let len = usize::try_from(end - start + 1).unwrap_or(usize::MAX);
        let at_mode = usize::try_from(mode - start).unwrap_or(0);
        let mut weights = vec![0.0; len];
        weights[at_mode] = 1.0;
        for index in (0..at_mode).rev() {
            let k = (start + index as u64) as f64;
            weights[index] = weights[index + 1] * (k + 1.0) / ((n as f64 - k) * odds);
        }
        for index in at_mode..len - 1 {
            let k = (start + index as u64) as f64;
            weights[index + 1] = weights[index] * (n as f64 - k) / (k + 1.0) * odds;
        }
        let total: f64 = weights.iter().sum();
        for weight in &mut weights {
            *weight /= total;
        }
        Binomial { start, weights }
    }

    /// P(count < `count`).
    fn below(&self, count: u64) -> f64 {
        let take = usize::try_from(count.saturating_sub(self.start)).unwrap_or(usize::MAX);
        // Folded from +0.0: an empty `sum` of floats is -0.0.
        self.weights.iter().take(take).fold(0.0, |total, weight| total + weight)
    }

    /// P(count > `count`).
    fn above(&self, count: u64) -> f64 {
        let skip = usize::try_from(count.saturating_add(1).saturating_sub(self.start)).unwrap_or(usize::MAX);
        self.weights.iter().skip(skip).fold(0.0, |total, weight| total + weight)
    }
}

/// The smallest count that passes `min_percent` in a run of `games`.
fn lowest_passing(games: u64, min_percent: u64) -> u64 {
    (u128::from(min_percent) * u128::from(games)).div_ceil(100).try_into().unwrap_or(u64::MAX)
}

/// The largest count that passes `max_percent` in a run of `games`.
fn highest_passing(games: u64, max_percent: u64) -> u64 {
    u64::try_from(u128::from(max_percent) * u128::from(games) / 100).unwrap_or(u64::MAX).min(games)
}

/// Runs longer than this are weighed as if this long: a share measured
/// over more games only scatters less, so the chances come out a little
/// high (on the safe side), and the window of counts stays small.
const GAMES_WEIGHED_MAX: u64 = 1_000_000_000;

/// The chance that a run of `games` fails `min_percent` (low side) and
/// `max_percent` (high side) when each game is in the class with chance `p`.
pub fn chance_to_fail(games: u64, p: f64, min_percent: u64, max_percent: u64) -> (f64, f64) {
    let games = games.min(GAMES_WEIGHED_MAX);
    let binomial = Binomial::new(games, p);
    (binomial.below(lowest_passing(games, min_percent)), binomial.above(highest_passing(games, max_percent)))
}

/// The narrowest whole-percent range whose sides each fail a run of
/// `games` with chance below [`RISK_PER_SIDE`], allowing for the share's
/// own measuring error.
pub fn suggested_range(games: u64, share: Share) -> (u64, u64) {
    let (p_low, p_high) = share.with_margin();
    let min_percent =
        (0..=100).rev().find(|&min| chance_to_fail(games, p_low, min, 100).0 < RISK_PER_SIDE).unwrap_or(0);
    let max_percent = (0..=100).find(|&max| chance_to_fail(games, p_high, 0, max).1 < RISK_PER_SIDE).unwrap_or(100);
    (min_percent, max_percent)
}

/// What an expectation bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expectation {
    /// The share of games in a result class: a floor and a ceiling.
    ResultShare,
    /// The share of games where device and ideal clock agree: a floor only.
    Agreement,
}

/// One written expectation against a calibration run.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    pub expectation: Expectation,
    /// `games in class `6.10``, `agreement`.
    pub name: String,
    pub share: Share,
    pub written: (u64, u64),
    pub suggested: (u64, u64),
    /// The written range's chance to fail a run of the scenario's games,
    /// low side and high side, at the measured share.
    pub risk: (f64, f64),
    /// A side fails runs by chance more often than [`RISK_PER_SIDE`] even
    /// with the share moved its measuring margin in the range's favour: the
    /// range is too narrow whatever the measuring error, not just near the
    /// limit.
    pub too_narrow: bool,
}

/// Every share expectation of `scenario` (result classes and agreement)
/// against `summary`, a run of many games of it.
pub fn calibrate(scenario: &Scenario, summary: &Summary) -> Vec<Calibration> {
    let games = scenario.games;
    let entry = |expectation: Expectation, name: String, part: u64, written: (u64, u64)| {
        let share = Share { part, whole: summary.games };
        let (p_low, p_high) = share.with_margin();
        let too_narrow = chance_to_fail(games, p_high, written.0, 100).0 > RISK_PER_SIDE
            || chance_to_fail(games, p_low, 0, written.1).1 > RISK_PER_SIDE;
        Calibration {
            expectation,
            name,
            share,
            written,
            suggested: suggested_range(games, share),
            risk: chance_to_fail(games, share.fraction(), written.0, written.1),
            too_narrow,
        }
    };
    let mut calibrations: Vec<Calibration> = scenario
        .expect
        .result
        .iter()
        .zip(&summary.expected_classes)
        .map(|(expected, count)| {
            let written = (expected.min_percent, expected.max_percent);
            entry(Expectation::ResultShare, format!("games in class `{}`", expected.class), *count, written)
        })
        .collect();
    let written = (scenario.expect.agreement_min_percent, 100);
    calibrations.push(entry(Expectation::Agreement, "agreement".into(), summary.agreeing, written));
    calibrations
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Binomial tail by exact integer arithmetic: Σ C(n,k) a^k (b-a)^(n-k) / b^n
    /// for p = a/b, small n.
    fn exact_below(n: u32, a: u128, b: u128, low: u32) -> f64 {
        let choose = |n: u32, k: u32| (0..k).fold(1u128, |c, i| c * u128::from(n - i) / u128::from(i + 1));
        let numerator: u128 = (0..low).map(|k| choose(n, k) * a.pow(k) * (b - a).pow(n - k)).sum();
        numerator as f64 / b.pow(n) as f64
    }

    #[test]
    fn tails_match_exact_integer_sums() {
        for (n, a, b) in [(10u32, 1u128, 2u128), (16, 3, 20), (20, 1, 25), (12, 9, 10)] {
            let p = a as f64 / b as f64;
            let binomial = Binomial::new(u64::from(n), p);
            for low in 0..=n {
                let ours = binomial.below(u64::from(low));
                let exact = exact_below(n, a, b, low);
                assert!((ours - exact).abs() <= 1e-9 * exact + 1e-15, "n={n} p={p} low={low}");
            }
        }
    }

    #[test]
    fn sides_follow_the_runs_integer_tests() {
        // 60 games: 3 % passes from 1.8 games, so 2; 40 % passes up to 24.
        assert_eq!((lowest_passing(60, 3), highest_passing(60, 40)), (2, 24));
        let (below, above) = chance_to_fail(60, 0.19, 3, 40);
        let binomial = Binomial::new(60, 0.19);
        assert_eq!(binomial.start, 0, "60 games: every count is within reach");
        assert_eq!(below, binomial.weights[0] + binomial.weights[1]);
        assert_eq!(above, binomial.weights[25..].iter().fold(0.0, |total, weight| total + weight));
    }

    #[test]
    fn a_suggested_range_is_the_narrowest_safe_one() {
        let share = Share { part: 5_000, whole: 20_000 };
        let (min, max) = suggested_range(120, share);
        let (p_low, p_high) = share.with_margin();
        assert!(chance_to_fail(120, p_low, min, 100).0 < RISK_PER_SIDE);
        assert!(chance_to_fail(120, p_low, min + 1, 100).0 >= RISK_PER_SIDE);
        assert!(chance_to_fail(120, p_high, 0, max).1 < RISK_PER_SIDE);
        assert!(chance_to_fail(120, p_high, 0, max - 1).1 >= RISK_PER_SIDE);
        assert!(min < 25 && 25 < max, "{min}..{max}");
    }

    #[test]
    fn certain_shares_need_no_room() {
        assert_eq!(suggested_range(30, Share { part: 0, whole: 20_000 }), (0, 0));
        assert_eq!(suggested_range(30, Share { part: 20_000, whole: 20_000 }), (100, 100));
        assert_eq!(chance_to_fail(30, 1.0, 100, 100), (0.0, 0.0));
    }

    #[test]
    fn large_runs_do_not_overflow_and_stay_small() {
        let binomial = Binomial::new(100_000, 0.5);
        let total: f64 = binomial.weights.iter().sum();
        assert!((total - 1.0).abs() < 1e-9 && binomial.weights.iter().all(|weight| weight.is_finite()));
        // A billion games: a window around the mode, not a billion terms.
        let binomial = Binomial::new(1_000_000_000, 0.3);
        assert!(binomial.weights.len() < 2_000_000, "{} terms", binomial.weights.len());
        assert!((binomial.below(300_000_000) - 0.5).abs() < 0.01);
        assert_eq!(chance_to_fail(1_000_000_000, 0.3, 29, 31), (0.0, 0.0));
        assert_eq!(chance_to_fail(u64::MAX, 0.5, 0, 100), (0.0, 0.0));
    }
}
