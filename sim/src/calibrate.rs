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

/// Binomial(`n`, `p`) probabilities of 0..=n.
fn probabilities(n: u64, p: f64) -> Vec<f64> {
    let size = usize::try_from(n).unwrap_or(usize::MAX - 1).saturating_add(1);
    let mut weights = vec![0.0; size];
    if p <= 0.0 {
        weights[0] = 1.0;
        return weights;
    }
    if p >= 1.0 {
        weights[size - 1] = 1.0;
        return weights;
    }
    // P(k+1)/P(k) = (n-k)/(k+1) · p/(1-p): from the mode (the largest
    // probability, set to 1 before normalising) down and up.
    let mode = ((n + 1) as f64 * p).floor().min(n as f64) as usize;
    let odds = p / (1.0 - p);
    weights[mode] = 1.0;
    for k in (0..mode).rev() {
        weights[k] = weights[k + 1] * (k + 1) as f64 / ((n as f64 - k as f64) * odds);
    }
    for k in mode..size - 1 {
        weights[k + 1] = weights[k] * (n as f64 - k as f64) / (k + 1) as f64 * odds;
    }
    let total: f64 = weights.iter().sum();
    for weight in &mut weights {
        *weight /= total;
    }
    weights
}

/// The smallest count that passes `min_percent` in a run of `games`.
fn lowest_passing(games: u64, min_percent: u64) -> u64 {
    (min_percent * games).div_ceil(100)
}

/// The largest count that passes `max_percent` in a run of `games`.
fn highest_passing(games: u64, max_percent: u64) -> u64 {
    (max_percent * games / 100).min(games)
}

/// The chance that a run of `games` fails `min_percent` (low side) and
/// `max_percent` (high side) when each game is in the class with chance `p`.
pub fn chance_to_fail(games: u64, p: f64, min_percent: u64, max_percent: u64) -> (f64, f64) {
    let weights = probabilities(games, p);
    let low = lowest_passing(games, min_percent) as usize;
    let high = highest_passing(games, max_percent) as usize;
    // Folded from +0.0: an empty `sum` of floats is -0.0.
    let below = weights.iter().take(low).fold(0.0, |total, weight| total + weight);
    let above = weights.iter().skip(high.saturating_add(1)).fold(0.0, |total, weight| total + weight);
    (below, above)
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
            let weights = probabilities(u64::from(n), p);
            for low in 0..=n {
                let ours: f64 = weights.iter().take(low as usize).sum();
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
        let weights = probabilities(60, 0.19);
        assert_eq!(below, weights[0] + weights[1]);
        assert_eq!(above, weights[25..].iter().sum::<f64>());
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
    fn large_runs_do_not_overflow() {
        let weights = probabilities(100_000, 0.5);
        let total: f64 = weights.iter().sum();
        assert!((total - 1.0).abs() < 1e-9 && weights.iter().all(|weight| weight.is_finite()));
    }
}
