//! Drift: how fast a clock runs against a reference, from paired samples.
//!
//! A least-squares line through (x = reference time, y = clock time) gives
//! the clock's rate; `(slope − 1) · 10⁶` is its drift in ppm (positive:
//! runs fast). The confidence interval is Student's t on the slope's
//! standard error, so it is exact for independent normal errors and
//! conservative enough for the bounded jitter of real samples; the residuals
//! say how well a line describes the data. Floats are fine here: this is
//! measurement, not simulation.
//!
//! Two drifts use it:
//! - **accounting drift**: the firmware clock (`at_us` of TimeBase records)
//!   against the board's free-running hardware counter sampled in the same
//!   record ([`accounting_samples`]). A wrong SysTick reload or lost ticks
//!   show here; the emulator's counter runs on the emulator's own (virtual)
//!   time, never host time.
//! - **oscillator drift** (real boards): the board's counter against host
//!   time, where each sample's probe round trip is known; samples whose
//!   round trip is above the minimum plus a margin are dropped first, since
//!   a slow round trip leaves the sample's instant uncertain
//!   ([`FitOptions::round_trip_margin_us`]). The samples come from
//!   [`oscillator_samples`]; the fit is the same [`fit`].

use std::fmt;

use bench_contract::{Body, Hello, Record};

use crate::target::CounterReading;

/// One paired reading.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    /// The reference's time, µs (any origin).
    pub reference_us: f64,
    /// The measured clock's time at the same instant, µs (any origin).
    pub clock_us: f64,
    /// How long the probe took to get the sample, when known, µs.
    pub round_trip_us: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    /// Two-sided confidence of the interval, e.g. 0.95.
    pub confidence: f64,
    /// Samples with a round trip above the smallest one plus this margin are
    /// left out (infinity keeps them all). Samples without a round trip are
    /// always kept.
    pub round_trip_margin_us: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions { confidence: 0.95, round_trip_margin_us: 100.0 }
    }
}

/// A fitted line and what it says about the drift.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// Samples given.
    pub samples: usize,
    /// Samples the line was fitted to (the rest had slow round trips).
    pub used: usize,
    /// The line is `clock = intercept_us + slope · (reference − origin_us)`.
    pub origin_us: f64,
    pub intercept_us: f64,
    pub slope: f64,
    /// `(slope − 1) · 10⁶`: positive when the clock runs fast.
    pub drift_ppm: f64,
    /// Half the width of the confidence interval, ppm.
    pub ci_half_ppm: f64,
    pub confidence: f64,
    /// Residual standard deviation (n − 2 degrees of freedom), µs.
    pub residual_sd_us: f64,
    /// Largest |residual|, µs.
    pub residual_max_us: f64,
    /// Reference time covered by the used samples, µs.
    pub span_us: f64,
}

impl Fit {
    pub fn ci_low_ppm(&self) -> f64 {
        self.drift_ppm - self.ci_half_ppm
    }

    pub fn ci_high_ppm(&self) -> f64 {
        self.drift_ppm + self.ci_half_ppm
    }

    /// The fitted clock time at `reference_us`.
    pub fn clock_at(&self, reference_us: f64) -> f64 {
        self.intercept_us + self.slope * (reference_us - self.origin_us)
    }

    /// Whether the measurement is consistent with a drift within
    /// ±`tolerance_ppm`: the interval overlaps that band. A clock fails only
    /// on evidence (the whole interval outside the band), not on noise.
    pub fn within(&self, tolerance_ppm: f64) -> bool {
        self.ci_low_ppm() <= tolerance_ppm && self.ci_high_ppm() >= -tolerance_ppm
    }
}

/// A board's accounting drift, as a farm weighs it against its other
/// boards'.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoardDrift {
    /// The drift was fitted.
    pub measured: bool,
    /// Its interval reaches the tolerance ([`Fit::within`]).
    pub within_tolerance: bool,
    /// The fitted drift (`None`: not a number).
    pub ppm: Option<f64>,
}

impl BoardDrift {
    pub fn of(fit: &Result<Fit, FitError>, tolerance_ppm: f64) -> BoardDrift {
        match fit {
            Ok(fit) => {
                BoardDrift { measured: true, within_tolerance: fit.within(tolerance_ppm), ppm: Some(fit.drift_ppm) }
            }
            Err(_) => BoardDrift { measured: false, within_tolerance: false, ppm: None },
        }
    }
}

/// The board whose accounting drift stands for a farm's (its index in
/// `boards`): the first whose interval misses the tolerance; else the
/// largest |drift| (the last of equals; a drift that is not a number
/// counts as the largest); else the first. A passing farm shows its worst
/// board, a failing one the board that fails it.
pub fn deciding_board(boards: &[BoardDrift]) -> usize {
    boards
        .iter()
        .position(|board| board.measured && !board.within_tolerance)
        .or_else(|| {
            boards
                .iter()
                .enumerate()
                .filter(|(_, board)| board.measured)
                .map(|(index, board)| (index, board.ppm.map_or(f64::NAN, f64::abs)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(index, _)| index)
        })
        .unwrap_or(0)
}

impl fmt::Display for Fit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:+.2} ppm ± {:.2} ({:.0} % CI, {} samples over {:.1} s, residual sd {:.1} us, max {:.1} us)",
            self.drift_ppm,
            self.ci_half_ppm,
            self.confidence * 100.0,
            self.used,
            self.span_us / 1e6,
            self.residual_sd_us,
            self.residual_max_us
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum FitError {
    /// A line and its uncertainty need at least three samples.
    #[error("{used} usable samples; a drift needs at least 3")]
    TooFew { used: usize },
    /// Every used sample has the same reference time.
    #[error("every sample has the same reference time")]
    NoSpread,
    /// A sample or the confidence is not a finite number in range.
    #[error("a sample or the confidence level is not a finite number in range")]
    Invalid,
}

/// The samples a fit with `options` uses: those without a round trip, and
/// those whose round trip is at most the minimum plus the margin.
pub fn usable(samples: &[Sample], options: &FitOptions) -> Vec<Sample> {
    let fastest = samples.iter().filter_map(|sample| sample.round_trip_us).fold(f64::INFINITY, f64::min);
    let limit = fastest + options.round_trip_margin_us;
    samples.iter().filter(|sample| sample.round_trip_us.is_none_or(|trip| trip <= limit)).copied().collect()
}

/// Least-squares line through the usable samples.
pub fn fit(samples: &[Sample], options: &FitOptions) -> Result<Fit, FitError> {
    let confidence_ok = options.confidence > 0.0 && options.confidence < 1.0;
    let margin_ok = options.round_trip_margin_us >= 0.0;
    if !confidence_ok || !margin_ok {
        return Err(FitError::Invalid);
    }
    let used = usable(samples, options);
    if used.iter().any(|sample| !sample.reference_us.is_finite() || !sample.clock_us.is_finite()) {
        return Err(FitError::Invalid);
    }
    let (Some(first), true) = (used.first(), used.len() >= 3) else {
        return Err(FitError::TooFew { used: used.len() });
    };
    // Centre on the first sample so large absolute times lose no precision.
    let (x0, y0) = (first.reference_us, first.clock_us);
    let n = used.len() as f64;
    let mean_x = used.iter().map(|sample| sample.reference_us - x0).sum::<f64>() / n;
    let mean_y = used.iter().map(|sample| sample.clock_us - y0).sum::<f64>() / n;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for sample in &used {
        let dx = sample.reference_us - x0 - mean_x;
        let dy = sample.clock_us - y0 - mean_y;
        sxx += dx * dx;
        sxy += dx * dy;
    }
    if sxx <= 0.0 {
        return Err(FitError::NoSpread);
    }
    let slope = sxy / sxx;
    let origin_us = x0 + mean_x;
    let intercept_us = y0 + mean_y;
    let (mut ssr, mut residual_max_us) = (0.0, 0.0_f64);
    for sample in &used {
        let residual = sample.clock_us - (intercept_us + slope * (sample.reference_us - origin_us));
        ssr += residual * residual;
        residual_max_us = residual_max_us.max(residual.abs());
    }
    let df = n - 2.0;
    let residual_sd_us = (ssr / df).sqrt();
    let slope_se = residual_sd_us / sxx.sqrt();
    let t = t_quantile(0.5 + options.confidence / 2.0, df);
    let (low, high) = used.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), sample| {
        (low.min(sample.reference_us), high.max(sample.reference_us))
    });
    Ok(Fit {
        samples: samples.len(),
        used: used.len(),
        origin_us,
        intercept_us,
        slope,
        drift_ppm: (slope - 1.0) * 1e6,
        ci_half_ppm: t * slope_se * 1e6,
        confidence: options.confidence,
        residual_sd_us,
        residual_max_us,
        span_us: high - low,
    })
}

/// Accounting-drift samples from a firmware's records: each TimeBase record
/// pairs the firmware clock (`at_us`, y) with the hardware counter (x, in µs
/// at `hello.hw_counter_hz`, unwrapped at `hw_counter_bits`). When any
/// record is marked as sampled at a counter edge, only edge samples are used
/// (a coarse counter says nothing between its edges).
pub fn accounting_samples(records: &[Record], hello: &Hello) -> Vec<Sample> {
    let bases: Vec<(u64, bench_contract::TimeBase)> = records
        .iter()
        .filter_map(|record| match record.body {
            Body::TimeBase(base) => Some((record.at_us, base)),
            _ => None,
        })
        .collect();
    let edges_only = bases.iter().any(|(_, base)| base.edge);
    if hello.hw_counter_hz == 0 {
        return Vec::new();
    }
    let modulus: Option<u128> = (hello.hw_counter_bits < 64).then(|| 1u128 << hello.hw_counter_bits.min(63));
    let mut previous: Option<u64> = None;
    let mut unwrapped: u128 = 0;
    let mut samples = Vec::new();
    for (at_us, base) in bases {
        // Every sample advances the unwrapping, edge or not.
        match (previous, modulus) {
            (None, _) => unwrapped = u128::from(base.hw_counter),
            (Some(last), Some(modulus)) => {
                let delta = (u128::from(base.hw_counter) + modulus - u128::from(last) % modulus) % modulus;
                unwrapped += delta;
            }
            (Some(last), None) => unwrapped += u128::from(base.hw_counter.wrapping_sub(last)),
        }
        previous = Some(base.hw_counter);
        if edges_only && !base.edge {
            continue;
        }
        let reference_us = unwrapped as f64 * 1e6 / f64::from(hello.hw_counter_hz);
        samples.push(Sample { reference_us, clock_us: at_us as f64, round_trip_us: None });
    }
    samples
}

/// Oscillator-drift samples: the board's counter (y, µs at `counter_hz`)
/// against host monotonic time (x, the midpoint of each read's round trip,
/// where the read most likely happened), each with its round trip for the
/// filter of [`fit`].
///
/// The counter wraps at 2^`counter_bits` (DWT CYCCNT at 84 MHz: every
/// 51 s). Host time says how many wraps passed between two readings, so a
/// gap in the sampling longer than a wrap (a slow reset between games)
/// does not lose whole periods; it only needs the oscillator within
/// ±25 % of `counter_hz`.
pub fn oscillator_samples(readings: &[CounterReading], counter_hz: u32, counter_bits: u8) -> Vec<Sample> {
    if counter_hz == 0 {
        return Vec::new();
    }
    let hz = f64::from(counter_hz);
    let modulus: Option<u128> = (counter_bits < 64).then(|| 1u128 << counter_bits);
    let midpoint = |reading: &CounterReading| (reading.host_before_us as f64 + reading.host_after_us as f64) / 2.0;
    let mut samples = Vec::with_capacity(readings.len());
    let mut previous: Option<(f64, u64)> = None;
    let mut unwrapped: u128 = 0;
    for reading in readings {
        let host_us = midpoint(reading);
        match (previous, modulus) {
            (None, _) => unwrapped = u128::from(reading.counter),
            (Some((last_host_us, last)), Some(modulus)) => {
                let raw = (u128::from(reading.counter) % modulus + modulus - u128::from(last) % modulus) % modulus;
                let expected = ((host_us - last_host_us).max(0.0) * hz / 1e6).max(0.0);
                let wraps = ((expected - raw as f64) / modulus as f64).round().max(0.0);
                unwrapped += raw + modulus * wraps as u128;
            }
            (Some((_, last)), None) => unwrapped += u128::from(reading.counter.wrapping_sub(last)),
        }
        previous = Some((host_us, reading.counter));
        samples.push(Sample {
            reference_us: host_us,
            clock_us: unwrapped as f64 * 1e6 / hz,
            round_trip_us: Some(reading.round_trip_us() as f64),
        });
    }
    samples
}

/// Under a firmware sleeping in WFI with QEMU's `-icount …,sleep=off`,
/// every other SysTick is lost and the clock runs at exactly half speed
/// (`firmware/SMOKE.md`). Says so when a fit looks like that.
pub fn half_rate_hint(fit: &Fit) -> Option<&'static str> {
    ((fit.slope - 0.5).abs() < 0.01).then_some(
        "the firmware clock runs at half speed: under QEMU with -icount sleep=off a core that sleeps in WFI loses \
         every other SysTick; poll instead of sleeping, or run without sleep=off",
    )
}

/// The `p` quantile of Student's t with `df` degrees of freedom (`p` in
/// (0, 1), `df` > 0), by bisection on the distribution function.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    let in_range = p > 0.0 && p < 1.0 && df > 0.0;
    if !in_range {
        return f64::NAN;
    }
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    while t_cdf(high, df) < p && high < 1e12 {
        high *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if t_cdf(mid, df) < p {
            low = mid;
        } else {
            high = mid;
        }
    }
    0.5 * (low + high)
}

/// Student's t distribution function.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    let tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5);
    if t >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// The regularised incomplete beta function I_x(a, b) (continued fraction,
/// modified Lentz; Numerical Recipes 6.4).
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(x, a, b) / a
    } else {
        1.0 - front * beta_fraction(1.0 - x, b, a) / b
    }
}

fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9).
fn ln_gamma(x: f64) -> f64 {
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = COEFFICIENTS[0];
    for (index, coefficient) in COEFFICIENTS.iter().enumerate().skip(1) {
        sum += coefficient / (x + index as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use bench_contract::{TimeBase, BUTTONS_PAUSE};
    use bench_sim::rng::{Actor, Stream};

    use super::*;

    #[test]
    fn the_deciding_board_is_the_first_failing_else_the_largest_drift() {
        let board = |measured, within_tolerance, ppm| BoardDrift { measured, within_tolerance, ppm: Some(ppm) };
        let passing = [board(true, true, 1.0), board(true, true, -3.0), board(true, true, 2.0)];
        assert_eq!(deciding_board(&passing), 1, "the largest |drift|");
        let failing = [board(true, true, -4.0), board(true, false, 9.0), board(true, false, -20.0)];
        assert_eq!(deciding_board(&failing), 1, "the first out of tolerance, not the largest");
        assert_eq!(deciding_board(&[board(true, true, 2.0), board(true, true, -2.0)]), 1, "the last of equals");
        let unmeasured = [board(false, false, 50.0), board(true, true, 0.5)];
        assert_eq!(deciding_board(&unmeasured), 1, "a board without a fit decides nothing");
        assert_eq!(deciding_board(&[board(false, false, 0.0), board(false, false, 0.0)]), 0);
        assert_eq!(deciding_board(&[]), 0);
        let not_a_number = [board(true, true, 3.0), BoardDrift { measured: true, within_tolerance: true, ppm: None }];
        assert_eq!(deciding_board(&not_a_number), 1);
    }

    /// Uniform on (0, 1], 53 bits, from the stream.
    fn uniform(stream: &mut Stream) -> f64 {
        ((stream.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    fn normal(stream: &mut Stream) -> f64 {
        let (u1, u2) = (uniform(stream), uniform(stream));
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        for (p, df, expected) in [
            (0.975, 1.0, 12.706),
            (0.975, 2.0, 4.303),
            (0.975, 5.0, 2.571),
            (0.975, 10.0, 2.228),
            (0.975, 30.0, 2.042),
            (0.95, 10.0, 1.812),
            (0.995, 20.0, 2.845),
            (0.975, 1e6, 1.960),
        ] {
            let t = t_quantile(p, df);
            assert!((t - expected).abs() < 0.001, "t({p}, {df}) = {t}, tables say {expected}");
        }
        assert!((t_quantile(0.025, 10.0) + 2.228).abs() < 0.001);
        assert!(t_quantile(1.0, 3.0).is_nan());
    }

    #[test]
    fn an_exact_line_is_recovered() {
        let samples: Vec<Sample> = (0..10)
            .map(|i| {
                let x = 1e9 + f64::from(i) * 1e6;
                Sample { reference_us: x, clock_us: 42.0 + x * (1.0 + 25e-6), round_trip_us: None }
            })
            .collect();
        let fit = fit(&samples, &FitOptions::default()).expect("a fit");
        assert!((fit.drift_ppm - 25.0).abs() < 1e-6, "{fit}");
        assert!(fit.ci_half_ppm < 1e-6);
        assert!(fit.residual_max_us < 1e-3);
        assert!((fit.clock_at(1e9) - (42.0 + 1e9 * (1.0 + 25e-6))).abs() < 1e-3);
    }

    #[test]
    fn too_few_or_degenerate_samples_are_refused() {
        let sample = |x: f64| Sample { reference_us: x, clock_us: x, round_trip_us: None };
        assert_eq!(fit(&[sample(0.0), sample(1.0)], &FitOptions::default()), Err(FitError::TooFew { used: 2 }));
        assert_eq!(fit(&[sample(1.0); 4], &FitOptions::default()), Err(FitError::NoSpread));
        assert_eq!(fit(&[sample(0.0), sample(1.0), sample(f64::NAN)], &FitOptions::default()), Err(FitError::Invalid));
        let bad = FitOptions { confidence: 1.0, ..FitOptions::default() };
        assert_eq!(fit(&[sample(0.0), sample(1.0), sample(2.0)], &bad), Err(FitError::Invalid));
    }

    /// Many seeded trials of a known slope with normal jitter: the estimate
    /// falls inside its own 95 % (and 80 %) interval at the stated rate.
    #[test]
    fn the_interval_covers_the_true_drift_at_its_stated_rate() {
        const TRIALS: u64 = 2_000;
        for (confidence, true_ppm, jitter_us, n) in [(0.95, -37.5, 20.0, 12), (0.80, 120.0, 3.0, 40)] {
            let mut covered = 0u64;
            for trial in 0..TRIALS {
                let mut stream = Stream::new(0xD21F7, trial, Actor::Jitter);
                let offset = uniform(&mut stream) * 1e6;
                let samples: Vec<Sample> = (0..n)
                    .map(|i| {
                        let x = f64::from(i) * 1e6 + uniform(&mut stream) * 2e5;
                        let y = offset + x * (1.0 + true_ppm * 1e-6) + jitter_us * normal(&mut stream);
                        Sample { reference_us: x, clock_us: y, round_trip_us: None }
                    })
                    .collect();
                let fit = fit(&samples, &FitOptions { confidence, ..FitOptions::default() }).expect("a fit");
                if fit.ci_low_ppm() <= true_ppm && true_ppm <= fit.ci_high_ppm() {
                    covered += 1;
                }
            }
            let rate = covered as f64 / TRIALS as f64;
            // Three standard errors of a binomial proportion.
            let allowed = 3.0 * (confidence * (1.0 - confidence) / TRIALS as f64).sqrt();
            assert!((rate - confidence).abs() < allowed, "{confidence} CI covered the truth in {rate} of trials");
        }
    }

    /// Samples with a slow probe round trip are late by an unknown share of
    /// it; left in, they bend the line. The filter keeps the fast ones.
    #[test]
    fn slow_round_trips_are_filtered_out() {
        let mut stream = Stream::new(3, 0, Actor::Jitter);
        let samples: Vec<Sample> = (0..60)
            .map(|i| {
                let x = f64::from(i) * 5e5;
                let slow = i % 3 == 0 && i > 30;
                let trip =
                    if slow { 5_000.0 + uniform(&mut stream) * 5_000.0 } else { 400.0 + uniform(&mut stream) * 50.0 };
                // The sample was taken somewhere inside the round trip.
                let late = if slow { trip * uniform(&mut stream) } else { 0.0 };
                Sample { reference_us: x + late, clock_us: x * (1.0 - 10e-6), round_trip_us: Some(trip) }
            })
            .collect();
        let filtered = fit(&samples, &FitOptions::default()).expect("a fit");
        assert_eq!(filtered.used, 51, "9 slow samples left out");
        assert!((filtered.drift_ppm + 10.0).abs() < 0.01, "{filtered}");
        let unfiltered =
            fit(&samples, &FitOptions { round_trip_margin_us: f64::INFINITY, ..FitOptions::default() }).expect("a fit");
        assert_eq!(unfiltered.used, 60);
        assert!((unfiltered.drift_ppm + 10.0).abs() > 1.0, "{unfiltered}");
    }

    /// Synthetic probe reads of a board whose oscillator runs at a known
    /// rate: most round trips near the minimum with a little jitter, every
    /// few a slow one (USB scheduling, another process) in which the read
    /// happened anywhere. The filter drops the slow ones, and the interval
    /// of the fit then covers the true drift at its stated rate.
    #[test]
    fn oscillator_drift_from_probe_reads_is_covered_by_its_interval_at_the_stated_rate() {
        const TRIALS: u64 = 1_000;
        const HZ: u32 = 84_000_000;
        let confidence = 0.95;
        let mut covered = 0u64;
        let mut outliers_dropped = 0usize;
        for trial in 0..TRIALS {
            let mut stream = Stream::new(0x05C1, trial, Actor::Jitter);
            let true_ppm = (uniform(&mut stream) - 0.5) * 2e4; // the HSI: ±1 %
            let readings: Vec<CounterReading> = (0..200u64)
                .map(|i| {
                    let slow = uniform(&mut stream) < 0.1;
                    let trip_us = if slow {
                        3_000.0 + 20_000.0 * uniform(&mut stream)
                    } else {
                        900.0 + 60.0 * uniform(&mut stream)
                    };
                    // The read lands near the middle of a fast round trip, anywhere in a slow one.
                    let share = if slow { uniform(&mut stream) } else { 0.5 + 0.04 * normal(&mut stream) };
                    let host_before_us = 5e6 + i as f64 * 250_000.0 + 1_000.0 * uniform(&mut stream);
                    let host_read_us = host_before_us + share * trip_us;
                    let cycles = (1e6 + host_read_us) * (1.0 + true_ppm * 1e-6) * f64::from(HZ) / 1e6;
                    CounterReading {
                        host_before_us: host_before_us as u64,
                        host_after_us: (host_before_us + trip_us) as u64,
                        counter: (cycles as u64) % (1 << 32),
                    }
                })
                .collect();
            let samples = oscillator_samples(&readings, HZ, 32);
            let fit = fit(&samples, &FitOptions { confidence, ..FitOptions::default() }).expect("a fit");
            outliers_dropped += fit.samples - fit.used;
            if fit.ci_low_ppm() <= true_ppm && true_ppm <= fit.ci_high_ppm() {
                covered += 1;
            }
        }
        let rate = covered as f64 / TRIALS as f64;
        let allowed = 3.0 * (confidence * (1.0 - confidence) / TRIALS as f64).sqrt();
        assert!((rate - confidence).abs() < allowed, "the 95 % interval covered the truth in {rate} of trials");
        assert!(outliers_dropped as u64 > TRIALS * 15, "the slow reads were filtered ({outliers_dropped})");
    }

    /// 50 s of CYCCNT at 84 MHz wraps 32 bits once; 200 s with a gap of
    /// two whole wraps between reads still unwraps right.
    #[test]
    fn the_cycle_counter_is_unwrapped_with_host_time() {
        const HZ: u64 = 84_000_000;
        let read = |host_us: u64| CounterReading {
            host_before_us: host_us,
            host_after_us: host_us + 1_000,
            counter: ((host_us + 500) * HZ / 1_000_000) % (1 << 32),
        };
        let mut readings: Vec<CounterReading> = (0..40).map(|i| read(i * 1_000_000)).collect();
        readings.extend((150..160).map(|i| read(i * 1_000_000)));
        let samples = oscillator_samples(&readings, HZ as u32, 32);
        for (sample, reading) in samples.iter().zip(&readings) {
            let host_us = reading.host_before_us as f64 + 500.0;
            assert!((sample.clock_us - sample.reference_us).abs() < 1.0, "{sample:?} at {host_us}");
        }
        let fit = fit(&samples, &FitOptions::default()).expect("a fit");
        assert!(fit.drift_ppm.abs() < 0.01, "{fit}");
        assert_eq!(oscillator_samples(&readings, 0, 32), Vec::new());
    }

    fn hello(bits: u8) -> Hello {
        Hello {
            contract_version: 1,
            record_size: 48,
            tick_us: 1_000,
            hw_counter_hz: 1,
            hw_counter_bits: bits,
            buttons: BUTTONS_PAUSE,
            debounce_us: 20_000,
            firmware_version: 1,
            firmware_name: *b"benchref",
        }
    }

    fn time_base(seq: u32, at_us: u64, hw_counter: u64, edge: bool) -> Record {
        Record::new(seq, 0, at_us, Body::TimeBase(TimeBase { hw_counter, ticks: 0, edge, dropped_total: 0 }))
    }

    /// The firmware clock of `defect-systick-off-by-one`: SysTick at
    /// 12.5 MHz with reload 12 500 makes a tick of 12 501 cycles, which the
    /// firmware counts as 1 000 µs (ticks × 1000 + cycles into the tick
    /// ÷ 12.5). `true_us` is the emulator's virtual time.
    fn off_by_one_clock(true_us: f64) -> u64 {
        let cycles = (true_us * 12.5).floor() as u64;
        let (ticks, into) = (cycles / 12_501, cycles % 12_501);
        ticks * 1_000 + (into * 2 / 25).min(999)
    }

    /// QEMU runs the RTC on the same virtual time: it counts each second
    /// exactly; the firmware's loop sees the new count 0–8 µs after it.
    #[test]
    fn the_systick_off_by_one_defect_reads_minus_80_ppm() {
        let mut stream = Stream::new(80, 0, Actor::Jitter);
        let mut records = vec![time_base(1, 13, 0, false)];
        for second in 1..=60u64 {
            let seen = second as f64 * 1e6 + uniform(&mut stream) * 8.0;
            records.push(time_base(second as u32 + 1, off_by_one_clock(seen), second, true));
        }
        let samples = accounting_samples(&records, &hello(32));
        assert_eq!(samples.len(), 60, "edge samples only");
        let fit = fit(&samples, &FitOptions::default()).expect("a fit");
        let expected = -1e6 / 12_501.0; // −79.994 ppm
        assert!((fit.drift_ppm + 80.0).abs() < 0.5, "{fit}");
        assert!(fit.ci_low_ppm() <= expected && expected <= fit.ci_high_ppm(), "{fit}");
        assert!(!fit.within(5.0), "−80 ppm is beyond a 5 ppm tolerance");
        assert_eq!(half_rate_hint(&fit), None);
    }

    #[test]
    fn the_hardware_counter_is_unwrapped() {
        // An 8-bit counter at 100 Hz: it wraps every 2.56 s.
        let hello = Hello { hw_counter_hz: 100, hw_counter_bits: 8, ..hello(8) };
        let records: Vec<Record> =
            (0..40u32).map(|i| time_base(i, u64::from(i) * 500_000, u64::from(i * 50) % 256, false)).collect();
        let samples = accounting_samples(&records, &hello);
        assert_eq!(samples.len(), 40, "no edge flags: every sample counts");
        let fit = fit(&samples, &FitOptions::default()).expect("a fit");
        assert!(fit.drift_ppm.abs() < 1e-6, "{fit}");
        assert!((fit.span_us - 39.0 * 5e5).abs() < 1e-3);
    }

    #[test]
    fn a_half_speed_clock_gets_the_wfi_hint() {
        let samples: Vec<Sample> = (0..10)
            .map(|i| Sample { reference_us: f64::from(i) * 1e6, clock_us: f64::from(i) * 5e5, round_trip_us: None })
            .collect();
        let fit = fit(&samples, &FitOptions::default()).expect("a fit");
        assert!(half_rate_hint(&fit).is_some_and(|hint| hint.contains("WFI")));
    }
}
