//! Running many games: on all cores, sliced into shards, aggregated in
//! bounded memory, and judged against the scenario's expectations.
//!
//! **Determinism:** games are independent and every aggregate is
//! order-independent (sums, extremes, the lowest-numbered failures, a
//! commutative hash), so the summary is identical whatever `jobs` is.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use chessclock::{Outcome, Side};

use crate::board::MateSearches;
use crate::coverage::Coverage;
use crate::defects::DefectCounts;
use crate::defects::DefectSet;
use crate::game::{self, GameRecord, GameSpec};
use crate::oracle::OracleCoverage;
use crate::outcome::ResultClass;
use crate::scenario::Scenario;

/// How many failing games a summary keeps (the lowest-numbered ones).
pub const FAILURES_KEPT: usize = 20;
/// Buckets of game time in the drift envelope.
pub const ENVELOPE_BUCKETS: usize = 64;
/// Drift samples taken earlier in a game than this do not count towards
/// [`Summary::drift_ppb`]: over a short time the microsecond rounding of the
/// offset would dominate the rate.
pub const DRIFT_RATE_MIN_GAME_US: u64 = 10_000_000;

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub seed: u64,
    /// The games to play (a shard's slice of `0..scenario.games`).
    pub games: Range<u64>,
    pub jobs: usize,
    pub swarm: bool,
    pub model_oracle: bool,
    /// Defects switched off in every game (`--disable`).
    pub disabled: DefectSet,
}

impl RunOptions {
    /// Every game of `scenario` on its own seed, on `jobs` threads, as `bench
    /// sim` plays it without options: no swarm, the tick-model oracle on, no
    /// defect switched off.
    pub fn scenario(scenario: &Scenario, jobs: usize) -> RunOptions {
        RunOptions {
            seed: scenario.seed,
            games: 0..scenario.games,
            jobs,
            swarm: false,
            model_oracle: true,
            disabled: DefectSet::NONE,
        }
    }
}

/// `--shard I/N`: the I-th (1-based) of N contiguous slices of `0..games`.
pub fn shard_range(games: u64, index: u64, count: u64) -> Option<Range<u64>> {
    if count == 0 || index == 0 || index > count {
        return None;
    }
    let bound = |i: u64| u64::try_from(u128::from(games) * u128::from(i) / u128::from(count)).unwrap_or(games);
    Some(bound(index - 1)..bound(index))
}

/// One failing game: why, and the seed to replay it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedGame {
    pub game: u64,
    pub reasons: Vec<String>,
}

/// The extremes of one bucket of game time across games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnvelopeBucket {
    pub samples: u64,
    pub offset_min_us: i64,
    pub offset_max_us: i64,
    pub error_min_us: [i64; 2],
    pub error_max_us: [i64; 2],
}

impl Default for EnvelopeBucket {
    fn default() -> Self {
        EnvelopeBucket {
            samples: 0,
            offset_min_us: i64::MAX,
            offset_max_us: i64::MIN,
            error_min_us: [i64::MAX; 2],
            error_max_us: [i64::MIN; 2],
        }
    }
}

impl EnvelopeBucket {
    fn merge(&mut self, other: &EnvelopeBucket) {
        self.samples += other.samples;
        self.offset_min_us = self.offset_min_us.min(other.offset_min_us);
        self.offset_max_us = self.offset_max_us.max(other.offset_max_us);
        for index in 0..2 {
            self.error_min_us[index] = self.error_min_us[index].min(other.error_min_us[index]);
            self.error_max_us[index] = self.error_max_us[index].max(other.error_max_us[index]);
        }
    }
}

/// Everything a run adds up to. Bounded in size whatever the game count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub games: u64,
    pub presses: u64,
    pub events: u64,
    /// Device results by class (`6.10`, `5.1`, `move-bound`, …).
    pub results: BTreeMap<String, u64>,
    /// Ideal-clock results by class.
    pub ideal_results: BTreeMap<String, u64>,
    /// Games in which each article was applied on the device.
    pub articles: BTreeMap<String, u64>,
    /// Device outcomes: white wins, black wins, draws.
    pub outcomes: [u64; 3],
    /// Games in each expectation's class, in the scenario's order.
    pub expected_classes: Vec<u64>,
    pub agreeing: u64,
    pub max_time_error_us: u64,
    pub games_with_violations: u64,
    /// Games that failed for any reason (only the first few are kept in
    /// `failures`).
    pub games_failed: u64,
    /// Games whose two plays differed (`--check-determinism`).
    pub nondeterministic_games: u64,
    pub failures: Vec<FailedGame>,
    pub defects: DefectCounts,
    pub envelope_bucket_us: u64,
    pub envelope: Vec<EnvelopeBucket>,
    /// Order-independent combination of every game's trace hash.
    pub run_hash: u64,
    /// The device time base's average rate error since the start of its
    /// game, in parts per billion (positive: fast), as (smallest, largest)
    /// over every drift sample at least [`DRIFT_RATE_MIN_GAME_US`] into a
    /// game; `None` without such a sample.
    pub drift_ppb: Option<(i64, i64)>,
    /// Rule coverage: the transitions the games went through.
    pub coverage: Coverage,
    /// Full 6.10 searches on real positions (legal-move mode), and those
    /// that gave up and were ruled "can mate".
    pub mate_searches: MateSearches,
    /// Oracle coverage: what the independent model checked.
    pub oracle_coverage: OracleCoverage,
}

impl Summary {
    fn new(expectations: usize, envelope_bucket_us: u64) -> Summary {
        Summary {
            games: 0,
            presses: 0,
            events: 0,
            results: BTreeMap::new(),
            ideal_results: BTreeMap::new(),
            articles: BTreeMap::new(),
            outcomes: [0; 3],
            expected_classes: vec![0; expectations],
            agreeing: 0,
            max_time_error_us: 0,
            games_with_violations: 0,
            games_failed: 0,
            nondeterministic_games: 0,
            failures: Vec::new(),
            defects: DefectCounts::default(),
            envelope_bucket_us,
            envelope: vec![EnvelopeBucket::default(); ENVELOPE_BUCKETS],
            run_hash: 0,
            drift_ppb: None,
            coverage: Coverage::default(),
            mate_searches: MateSearches::default(),
            oracle_coverage: OracleCoverage::default(),
        }
    }

    fn add(&mut self, scenario: &Scenario, classes: &[ResultClass], record: &GameRecord) {
        self.games += 1;
        self.presses += record.presses;
        self.events += record.events;
        *self.results.entry(record.device.class()).or_default() += 1;
        *self.ideal_results.entry(record.ideal.class()).or_default() += 1;
        let mut applied: Vec<String> = record
            .applied
            .iter()
            .map(|article| article.number().to_string())
            .chain(record.applied_correspondence.iter().map(|article| format!("corr {}", article.number())))
            .collect();
        applied.sort();
        applied.dedup();
        for article in applied {
            *self.articles.entry(article).or_default() += 1;
        }
        match record.device.outcome {
            Outcome::Win(Side::White) => self.outcomes[0] += 1,
            Outcome::Win(Side::Black) => self.outcomes[1] += 1,
            Outcome::Draw | Outcome::Continue => self.outcomes[2] += 1,
            // Both forfeited (6.7): neither a win nor a draw; the class `6.7` counts it.
            Outcome::BothLose => {}
        }
        for (count, class) in self.expected_classes.iter_mut().zip(classes) {
            if class.contains(&record.device, &record.applied, &record.applied_correspondence) {
                *count += 1;
            }
        }
        if record.agrees() {
            self.agreeing += 1;
        }
        self.max_time_error_us = self.max_time_error_us.max(record.max_time_error_us);
        if !record.violations.is_empty() {
            self.games_with_violations += 1;
        }
        let reasons = failure_reasons(scenario, record);
        if !reasons.is_empty() {
            self.games_failed += 1;
            self.keep_failure(FailedGame { game: record.game, reasons });
        }
        self.defects.add(&record.defects);
        self.coverage.add_game(&record.transitions);
        self.oracle_coverage.add_game(&record.model);
        for sample in &record.drift {
            let index = usize::try_from(sample.true_us / self.envelope_bucket_us.max(1)).unwrap_or(usize::MAX);
            let bucket = &mut self.envelope[index.min(ENVELOPE_BUCKETS - 1)];
            bucket.merge(&EnvelopeBucket {
                samples: 1,
                offset_min_us: sample.clock_offset_us,
                offset_max_us: sample.clock_offset_us,
                error_min_us: [sample.remaining_error_us.white, sample.remaining_error_us.black],
                error_max_us: [sample.remaining_error_us.white, sample.remaining_error_us.black],
            });
            if sample.true_us >= DRIFT_RATE_MIN_GAME_US {
                let ppb = drift_ppb(sample.clock_offset_us, sample.true_us);
                self.drift_ppb = merge_range(self.drift_ppb, Some((ppb, ppb)));
            }
        }
        self.run_hash = self.run_hash.wrapping_add(mix(record.game, record.trace_hash));
        self.mate_searches.add(record.mate_searches);
    }

    fn keep_failure(&mut self, failure: FailedGame) {
        let position = self.failures.partition_point(|kept| kept.game < failure.game);
        self.failures.insert(position, failure);
        self.failures.truncate(FAILURES_KEPT);
    }

    /// Adds another summary of the same scenario (a thread's, or a shard's).
    pub fn merge(&mut self, other: Summary) {
        self.games += other.games;
        self.presses += other.presses;
        self.events += other.events;
        for (class, count) in other.results {
            *self.results.entry(class).or_default() += count;
        }
        for (class, count) in other.ideal_results {
            *self.ideal_results.entry(class).or_default() += count;
        }
        for (article, count) in other.articles {
            *self.articles.entry(article).or_default() += count;
        }
        for index in 0..3 {
            self.outcomes[index] += other.outcomes[index];
        }
        for (mine, theirs) in self.expected_classes.iter_mut().zip(other.expected_classes) {
            *mine += theirs;
        }
        self.agreeing += other.agreeing;
        self.max_time_error_us = self.max_time_error_us.max(other.max_time_error_us);
        self.games_with_violations += other.games_with_violations;
        self.games_failed += other.games_failed;
        self.nondeterministic_games += other.nondeterministic_games;
        for failure in other.failures {
            self.keep_failure(failure);
        }
        self.defects.add(&other.defects);
        for (mine, theirs) in self.envelope.iter_mut().zip(&other.envelope) {
            mine.merge(theirs);
        }
        self.run_hash = self.run_hash.wrapping_add(other.run_hash);
        self.drift_ppb = merge_range(self.drift_ppb, other.drift_ppb);
        self.coverage.merge(&other.coverage);
        self.mate_searches.add(other.mate_searches);
        self.oracle_coverage.merge(&other.oracle_coverage);
    }
}

/// The smallest range holding both (`None`: empty).
fn merge_range(a: Option<(i64, i64)>, b: Option<(i64, i64)>) -> Option<(i64, i64)> {
    match (a, b) {
        (Some((a_min, a_max)), Some((b_min, b_max))) => Some((a_min.min(b_min), a_max.max(b_max))),
        (range, None) | (None, range) => range,
    }
}

/// Why one game fails its scenario: oracle violations, a time error beyond
/// the bound, or (when full agreement is expected) a device result that
/// differs from the ideal clock's. Empty when the game passes.
pub fn failure_reasons(scenario: &Scenario, record: &GameRecord) -> Vec<String> {
    let mut reasons: Vec<String> = record
        .violations
        .iter()
        .map(|violation| {
            format!("{} oracle `{}` at {} us: {}", violation.clock, violation.check, violation.at_us, violation.detail)
        })
        .collect();
    if let Some(bound) = scenario.expect.time_error_max_us {
        if record.max_time_error_us > bound {
            reasons.push(format!("time error {} us exceeds {} us", record.max_time_error_us, bound));
        }
    }
    if scenario.expect.agreement_min_percent == 100 && !record.agrees() {
        reasons.push(format!("device result {} differs from the ideal clock's {}", record.device, record.ideal));
    }
    reasons
}

/// Device time's lead over true time in parts per billion. In 64 bits when
/// the offset allows (a press makes a sample: no 128-bit division there).
fn drift_ppb(offset_us: i64, true_us: u64) -> i64 {
    if let (Some(scaled), Ok(true_us)) = (offset_us.checked_mul(1_000_000_000), i64::try_from(true_us)) {
        return scaled / true_us.max(1);
    }
    let ppb = i128::from(offset_us) * 1_000_000_000 / i128::from(true_us.max(1));
    i64::try_from(ppb).unwrap_or(if ppb < 0 { i64::MIN } else { i64::MAX })
}

/// A 64-bit mix of (game, hash) so that the sum over games is a good hash.
fn mix(game: u64, hash: u64) -> u64 {
    let mut value = hash ^ game.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    value ^= value >> 33;
    value = value.wrapping_mul(0xff51_afd7_ed55_8ccd);
    value ^= value >> 33;
    value
}

/// The width of one envelope bucket: a long game's length spread over the
/// buckets (at least a second). A long game: both players use all the time
/// every stage gives, plus their bonuses for up to 100 moves each; later
/// samples land in the last bucket.
pub fn envelope_bucket_us(scenario: &Scenario) -> u64 {
    let moves = u64::from(scenario.board.max_moves.min(100));
    let per_player = scenario.control.control.time_max_us(moves);
    (per_player.saturating_mul(2) / ENVELOPE_BUCKETS as u64).max(1_000_000)
}

/// Plays `options.games` of `scenario` on `options.jobs` threads.
/// `progress` is called with the number of games done so far.
pub fn run(scenario: &Scenario, options: &RunOptions, progress: &(dyn Fn(u64) + Sync)) -> Summary {
    run_with(scenario, options, &Controls { progress, check_determinism: false, stop: None })
}

/// How a run is watched and steered from outside.
pub struct Controls<'a> {
    /// Called with the number of games done so far.
    pub progress: &'a (dyn Fn(u64) + Sync),
    /// Play every game twice and fail the games whose traces differ.
    pub check_determinism: bool,
    /// Set (e.g. by Ctrl-C) to stop taking new games; the summary then
    /// covers the games finished so far.
    pub stop: Option<&'a AtomicBool>,
}

/// [`run`] with determinism checking and a stop flag.
pub fn run_with(scenario: &Scenario, options: &RunOptions, controls: &Controls<'_>) -> Summary {
    let classes: Vec<ResultClass> =
        scenario.expect.result.iter().filter_map(|share| ResultClass::parse(&share.class)).collect();
    let bucket_us = envelope_bucket_us(scenario);
    let next = AtomicU64::new(options.games.start);
    let done = AtomicU64::new(0);
    let total = Mutex::new(Summary::new(classes.len(), bucket_us));
    let jobs = options.jobs.max(1);
    let spec = |game| GameSpec {
        scenario,
        seed: options.seed,
        game,
        swarm: options.swarm,
        trace: false,
        model_oracle: options.model_oracle,
        disabled: options.disabled,
        record_inputs: false,
        script: None,
    };
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let mut local = Summary::new(classes.len(), bucket_us);
                loop {
                    if controls.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                        break;
                    }
                    // Take the next game only while one is left: a counter
                    // bumped past the end by every thread would wrap at
                    // u64::MAX and play on from game 0 for ever.
                    let end = options.games.end;
                    let taken = next.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |game| {
                        (game < end).then(|| game.saturating_add(1))
                    });
                    let Ok(game) = taken else { break };
                    let mut record = game::play(spec(game));
                    if controls.check_determinism {
                        let again = game::play(spec(game));
                        if again.trace_hash != record.trace_hash || again.device != record.device {
                            local.nondeterministic_games += 1;
                            record.violations.push(crate::oracle::Violation {
                                at_us: 0,
                                clock: "run",
                                check: "deterministic",
                                detail: format!(
                                    "two plays differ: trace hashes {:016x} and {:016x}",
                                    record.trace_hash, again.trace_hash
                                ),
                            });
                        }
                    }
                    local.add(scenario, &classes, &record);
                    let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if finished % 64 == 0 {
                        (controls.progress)(finished);
                    }
                }
                if let Ok(mut total) = total.lock() {
                    total.merge(local);
                }
            });
        }
    });
    (controls.progress)(done.load(Ordering::Relaxed));
    total.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The names of the checks [`judge`] and [`determinism_check`] make: stable
/// for readers (the gate judges each check of a report again from its
/// numbers).
pub const ORACLE_CHECK: &str = "no oracle violations";
pub const AGREEMENT_CHECK: &str = "device and ideal clock agree on the result";
pub const TIME_ERROR_CHECK: &str = "largest device-ideal time error";
pub const DETERMINISM_CHECK: &str = "every game plays the same twice";

/// The name of the check of an `[[expect.result]]` class.
pub fn class_check(class: &str) -> String {
    format!("games in class `{class}`")
}

/// The check that `--check-determinism` adds: every game played the same
/// twice.
pub fn determinism_check(summary: &Summary) -> Check {
    Check {
        name: DETERMINISM_CHECK.into(),
        passed: summary.nondeterministic_games == 0,
        measured: format!("{} games differed", summary.nondeterministic_games),
        expected: "0".into(),
    }
}

/// One expectation's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub name: String,
    pub passed: bool,
    pub measured: String,
    pub expected: String,
}

/// Judges a summary against the scenario's expectations. The oracles are
/// always an expectation: no invariant may ever be violated.
pub fn judge(scenario: &Scenario, summary: &Summary) -> Vec<Check> {
    let mut checks = Vec::new();
    checks.push(Check {
        name: ORACLE_CHECK.into(),
        passed: summary.games_with_violations == 0,
        measured: format!("{} games with violations", summary.games_with_violations),
        expected: "0".into(),
    });
    let percent = |count: u64| (count * 100).checked_div(summary.games).unwrap_or(0);
    let tenths = |count: u64| {
        let tenths = (count * 1_000).checked_div(summary.games).unwrap_or(0);
        format!("{}.{}", tenths / 10, tenths % 10)
    };
    for (share, count) in scenario.expect.result.iter().zip(&summary.expected_classes) {
        // Integer comparison: count/games within [min, max] percent.
        let low_ok = u128::from(*count) * 100 >= u128::from(share.min_percent) * u128::from(summary.games);
        let high_ok = u128::from(*count) * 100 <= u128::from(share.max_percent) * u128::from(summary.games);
        checks.push(Check {
            name: class_check(&share.class),
            passed: low_ok && high_ok,
            measured: format!("{count} of {} ({} %)", summary.games, tenths(*count)),
            expected: format!("{} % to {} %", share.min_percent, share.max_percent),
        });
    }
    let agreement_ok = u128::from(summary.agreeing) * 100
        >= u128::from(scenario.expect.agreement_min_percent) * u128::from(summary.games);
    checks.push(Check {
        name: AGREEMENT_CHECK.into(),
        passed: agreement_ok,
        measured: format!("{} of {} ({} %)", summary.agreeing, summary.games, percent(summary.agreeing)),
        expected: format!(">= {} %", scenario.expect.agreement_min_percent),
    });
    if let Some(bound) = scenario.expect.time_error_max_us {
        checks.push(Check {
            name: TIME_ERROR_CHECK.into(),
            passed: summary.max_time_error_us <= bound,
            measured: format!("{} us", summary.max_time_error_us),
            expected: format!("<= {bound} us"),
        });
    }
    checks.extend(crate::coverage::exercises_check(&scenario.expect.exercised(), &summary.coverage));
    checks
}

#[cfg(test)]
mod tests {
    use super::drift_ppb;

    #[test]
    fn drift_ppb_in_64_bits_is_the_128_bit_quotient() {
        let offsets = [0, 1, -1, 79_993, -40_000_123, 9_223_372_036, -9_223_372_037, i64::MAX, i64::MIN];
        let trues = [10_000_000u64, 60_000_001, 3_600_000_000, u64::MAX / 3, u64::MAX];
        for offset_us in offsets {
            for true_us in trues {
                let wide = i128::from(offset_us) * 1_000_000_000 / i128::from(true_us);
                let wide = i64::try_from(wide).unwrap_or(if wide < 0 { i64::MIN } else { i64::MAX });
                assert_eq!(drift_ppb(offset_us, true_us), wide, "{offset_us} us over {true_us} us");
            }
        }
    }
}
