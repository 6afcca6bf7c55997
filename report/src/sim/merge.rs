//! `bench report merge` of simulation shards (`bench sim --shard I/N`
//! runs): joined into the report the unsharded run writes, byte for byte.
//!
//! A shard's `report.json` holds everything its [`Summary`] held, so each
//! is turned back into a `Summary` and added to the sum with
//! [`Summary::merge`] (order-independent, as for threads); the sum is judged
//! again against the scenario (read from a file whose SHA-256 is the one the
//! reports name), and [`write_sim_report`] writes the folder as the
//! unsharded run would: no shard, games `0..N`, the command without
//! `--shard`.
//!
//! **Streaming:** shards are read and folded one at a time
//! ([`SweepFold`]); what is kept between them is bounded whatever the
//! number of shards: the first shard's report (to compare the others
//! with), the running sum (bounded, [`Summary`]), the replay commands of
//! the failures the sum keeps, and each shard's index and path
//! ([`ShardBook`]).
//!
//! Shards are refused, with the reason, when they are not of one sweep:
//! another scenario (name or SHA-256), seed, bench version, option or game
//! count; shards missing or given twice (each named; `--partial` merges
//! without the missing ones into a report marked incomplete); an
//! interrupted shard.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use bench_sim::board::MateSearches;
use bench_sim::run::{self, EnvelopeBucket, FailedGame, Summary, ENVELOPE_BUCKETS};

use super::report::Report;
use super::{write_sim_report, SimReportInput};
use crate::merge::{
    fold_shards, input, same, scenario_of, scenario_word, sim_key, MergeError, MergeRequest, Merged, ScenarioWanted,
    ShardBook, ShardReport,
};
use crate::replays::{self, ReplayText};

/// Merges the shard reports of `request` into its `out`, reading and
/// folding them one at a time.
pub(crate) fn merge(request: &MergeRequest) -> Result<Merged, MergeError> {
    let pick = |report| match report {
        ShardReport::Sim(report) => Some(*report),
        ShardReport::Hil(_) => None,
    };
    fold_shards(request, "simulation", pick, SweepFold::start, SweepFold::add)?.finish(request)
}

/// The shards of one sweep added up so far. Holds no shard's report but
/// the first's, whatever the number of shards.
struct SweepFold {
    /// The first shard read, its path and report: every other is compared
    /// with it.
    first_path: PathBuf,
    first: Report,
    book: ShardBook,
    /// The sum of the shards added (`None` before the first).
    sum: Option<Summary>,
    /// The replay command of each failure `sum` keeps, as its shard wrote it.
    replays: BTreeMap<u64, String>,
    /// The replay file of each failure `sum` keeps, read from its shard's
    /// folder.
    replay_files: BTreeMap<u64, ReplayText>,
}

impl SweepFold {
    fn start(path: PathBuf, report: Report) -> Result<SweepFold, MergeError> {
        let book = ShardBook::start(&path, &sim_key(&report))?;
        let mut fold = SweepFold {
            book,
            sum: None,
            replays: BTreeMap::new(),
            replay_files: BTreeMap::new(),
            first_path: path.clone(),
            first: report.clone(),
        };
        fold.add(path, report)?;
        Ok(fold)
    }

    /// Adds one shard, checked to be of the first's sweep, and drops it.
    fn add(&mut self, path: PathBuf, report: Report) -> Result<(), MergeError> {
        same_sweep(&self.first_path, &self.first, &path, &report)?;
        let index = report.shard.as_ref().map_or(0, |shard| shard.index);
        self.check_range(&path, &report, index)?;
        if !self.book.add(path.clone(), &sim_key(&report))? {
            return Ok(());
        }
        let part = summary_of(&report).map_err(|problem| input(format!("{}: {problem}", path.display())))?;
        let sum = match self.sum.as_mut() {
            Some(sum) => {
                sum.merge(part);
                sum
            }
            None => self.sum.insert(part),
        };
        for failure in &report.failures {
            self.replays.insert(failure.game, failure.replay.clone());
        }
        // Only the failures the sum keeps need their replay command and file.
        let kept: Vec<u64> = sum.failures.iter().map(|failure| failure.game).collect();
        self.replays.retain(|game, _| kept.contains(game));
        self.replay_files.retain(|game, _| kept.contains(game));
        let folder = path.parent().unwrap_or(Path::new("."));
        for failure in report.failures.iter().filter(|failure| kept.contains(&failure.game)) {
            if let Some(relative) = &failure.replay_file {
                let toml = replays::read(folder, relative).map_err(|error| input(format!("{error:#}")))?;
                self.replay_files.insert(failure.game, ReplayText { game: failure.game, toml });
            }
        }
        Ok(())
    }

    /// A shard must cover exactly its slice of the sweep's games.
    fn check_range(&self, path: &Path, report: &Report, index: u64) -> Result<(), MergeError> {
        let (total, count) = (self.book.total, self.book.count);
        let expected: Range<u64> = run::shard_range(total, index, count).unwrap_or(0..0);
        if report.games.start != expected.start || report.games.end != expected.end {
            return Err(input(format!(
                "{}: shard {index}/{count} of {total} games must cover games {}..{}, not {}..{}",
                path.display(),
                expected.start,
                expected.end,
                report.games.start,
                report.games.end
            )));
        }
        Ok(())
    }

    fn finish(self, request: &MergeRequest) -> Result<Merged, MergeError> {
        if let Some(why) = self.book.not_the_sweep_once(request.partial) {
            return Err(input(why));
        }
        let missing = self.book.missing();
        let (_, whole_command, scenario_file) = &self.book.lowest;
        let wanted = ScenarioWanted {
            name: &self.first.scenario.name,
            sha256: &self.first.scenario.sha256,
            named: scenario_file,
            first_file: &self.first.scenario.file,
            here: self.book.scenario_here.as_deref(),
            max_moves: self.first.options.max_moves,
        };
        let (scenario, sha256) = scenario_of(&wanted, &request.scenario)?;
        let summary = self.sum.as_ref().ok_or_else(|| input("no shard given".into()))?;
        if let Some(lost) = summary.failures.iter().find(|failure| !self.replays.contains_key(&failure.game)) {
            return Err(input(format!("no shard lists the replay command of failing game {}", lost.game)));
        }
        let mut checks = run::judge(&scenario, summary);
        if self.first.options.check_determinism {
            checks.push(run::determinism_check(summary));
        }
        // Each shard wrote its replay commands with its own path to the
        // scenario: the merged report spells them as its command does.
        let word = scenario_word(whole_command).map(|range| whole_command[range].to_string());
        let replay = |game: u64| {
            let replay = self.replays.get(&game).cloned().unwrap_or_default();
            match (&word, scenario_word(&replay)) {
                (Some(word), Some(range)) => format!("{}{word}{}", &replay[..range.start], &replay[range.end..]),
                _ => replay,
            }
        };
        let report_input = SimReportInput {
            scenario: &scenario,
            scenario_file: Path::new(scenario_file),
            scenario_sha256: sha256,
            seed: self.first.seed,
            games: 0..self.book.total,
            games_total: self.book.total,
            shard: None,
            swarm: self.first.swarm,
            options: self.first.options.clone(),
            summary,
            checks: &checks,
            command_line: whole_command.clone(),
            replay_command: &replay,
            replays: &self.replay_files.values().cloned().collect::<Vec<_>>(),
            complete: missing.is_empty(),
            incomplete_because: self.book.incomplete_because(),
        };
        let written = write_sim_report(request.out, &report_input).map_err(MergeError::Write)?;
        Ok(Merged {
            written,
            shards: self.book.shards(),
            shard_count: self.book.count,
            missing,
            games: self.book.total,
            games_played: summary.games,
            scenario: self.first.scenario.name.clone(),
            seed: self.first.seed,
        })
    }
}

/// Everything that must be equal in the shards of one sweep.
fn same_sweep(a_path: &Path, a: &Report, b_path: &Path, b: &Report) -> Result<(), MergeError> {
    let differ = |what: &str, x: String, y: String| same(a_path, b_path, what, x, y);
    differ("report schemas", a.schema.clone(), b.schema.clone())?;
    differ("bench versions", a.bench_version.clone(), b.bench_version.clone())?;
    differ("scenarios", a.scenario.name.clone(), b.scenario.name.clone())?;
    differ("scenario contents (sha256)", a.scenario.sha256.clone(), b.scenario.sha256.clone())?;
    differ("seeds", a.seed.to_string(), b.seed.to_string())?;
    differ("game counts (--games)", a.games.total.to_string(), b.games.total.to_string())?;
    differ("swarm settings", a.swarm.to_string(), b.swarm.to_string())?;
    let flag = |on: bool, flag: &str| if on { flag.to_string() } else { format!("no {flag}") };
    differ(
        "--check-determinism settings",
        flag(a.options.check_determinism, "--check-determinism"),
        flag(b.options.check_determinism, "--check-determinism"),
    )?;
    differ(
        "independent-model oracle settings",
        flag(!a.options.tick_oracle, "--no-model-oracle"),
        flag(!b.options.tick_oracle, "--no-model-oracle"),
    )?;
    let max_moves =
        |report: &Report| report.options.max_moves.map_or("no --max-moves".into(), |n| format!("--max-moves {n}"));
    differ("move bounds", max_moves(a), max_moves(b))?;
    let disabled = |report: &Report| match report.options.disabled.as_slice() {
        [] => "no --disable".to_string(),
        names => format!("--disable {}", names.join(",")),
    };
    differ("defects switched off", disabled(a), disabled(b))?;
    let count = |report: &Report| report.shard.as_ref().map_or(0, |shard| shard.count);
    differ("shard counts", count(a).to_string(), count(b).to_string())?;
    differ("failure caps", a.failures_kept_max.to_string(), b.failures_kept_max.to_string())?;
    differ(
        "drift buckets",
        format!("{}×{} us", a.drift_envelope.buckets_total, a.drift_envelope.bucket_us),
        format!("{}×{} us", b.drift_envelope.buckets_total, b.drift_envelope.bucket_us),
    )?;
    Ok(())
}

/// The [`Summary`] a simulation report was written from.
pub fn summary_of(report: &Report) -> Result<Summary, String> {
    let envelope_report = &report.drift_envelope;
    if envelope_report.buckets_total != ENVELOPE_BUCKETS as u64 {
        return Err(format!("{} drift buckets; this bench has {ENVELOPE_BUCKETS}", envelope_report.buckets_total));
    }
    let mut envelope = vec![EnvelopeBucket::default(); ENVELOPE_BUCKETS];
    for bucket in &envelope_report.buckets {
        let slot = usize::try_from(bucket.index)
            .ok()
            .and_then(|index| envelope.get_mut(index))
            .ok_or_else(|| format!("drift bucket {} out of range", bucket.index))?;
        *slot = EnvelopeBucket {
            samples: bucket.samples,
            offset_min_us: bucket.offset_min_us,
            offset_max_us: bucket.offset_max_us,
            error_min_us: [bucket.error_min_us.white, bucket.error_min_us.black],
            error_max_us: [bucket.error_max_us.white, bucket.error_max_us.black],
        };
    }
    let run_hash =
        u64::from_str_radix(&report.run_hash, 16).map_err(|_| format!("run_hash `{}` is not hex", report.run_hash))?;
    Ok(Summary {
        games: report.games.played,
        presses: report.presses,
        events: report.events,
        results: report.results.device.clone(),
        ideal_results: report.results.ideal.clone(),
        articles: report.articles.clone(),
        outcomes: [report.outcomes.white, report.outcomes.black, report.outcomes.draw],
        expected_classes: report.expected_classes.iter().map(|class| class.games).collect(),
        agreeing: report.agreement.agreeing,
        max_time_error_us: report.max_time_error_us,
        games_with_violations: report.games_with_violations,
        games_failed: report.games_failed,
        nondeterministic_games: report.nondeterministic_games,
        failures: report
            .failures
            .iter()
            .map(|failure| FailedGame { game: failure.game, reasons: failure.reasons.clone() })
            .collect(),
        defects: report.defects,
        envelope_bucket_us: envelope_report.bucket_us,
        envelope,
        run_hash,
        drift_ppb: report.drift_ppb.map(|range| (range.min, range.max)),
        coverage: crate::coverage::from_entries(&report.coverage)?,
        mate_searches: MateSearches { searched: report.mate_searches.searched, gave_up: report.mate_searches.gave_up },
        oracle_coverage: report.oracle_coverage.into(),
    })
}

#[cfg(test)]
mod tests {
    use bench_sim::run::{RunOptions, FAILURES_KEPT};
    use bench_sim::scenario::Scenario;

    use super::super::report::{self, Options};
    use super::*;
    use crate::sha256_hex;

    const FAILING: &str = r#"
description = "merge test: 2000 ppm fast, every game fails its time-error bound"
control = "60+1"
games = 60
seed = 7
[players]
think = { distribution = "uniform", min_ms = 500, max_ms = 4000 }
[device]
drift_ppm = 2000
[expect]
time_error_max_us = 0
"#;

    /// Shard `index` of `count` of [`FAILING`]'s games, as its report.
    fn shard_report(scenario: &Scenario, index: u64, count: u64) -> Report {
        let games = run::shard_range(scenario.games, index, count).expect("a shard");
        let options = RunOptions { games: games.clone(), ..RunOptions::scenario(scenario, 1) };
        let summary = run::run(scenario, &options, &|_| {});
        let checks = run::judge(scenario, &summary);
        let replay = |game: u64| format!("bench sim --scenario /m{index}/f.toml --seed 7 --game {game} --trace");
        report::build(&SimReportInput {
            scenario,
            scenario_file: Path::new(&format!("/m{index}/f.toml")),
            scenario_sha256: sha256_hex(FAILING.as_bytes()),
            seed: scenario.seed,
            games,
            games_total: scenario.games,
            shard: Some((index, count)),
            swarm: false,
            options: Options { check_determinism: false, tick_oracle: true, max_moves: None, disabled: Vec::new() },
            summary: &summary,
            checks: &checks,
            command_line: format!("bench sim --scenario /m{index}/f.toml --seed 7 --games 60 --shard {index}/{count}"),
            replay_command: &replay,
            replays: &[],
            complete: true,
            incomplete_because: None,
        })
    }

    /// Thirty shards, each machine with its own path to the scenario and
    /// each with failures: the fold keeps the replay commands of the
    /// failures its sum keeps only, never more than the report lists, and
    /// adds up to the unsharded run.
    #[test]
    fn the_fold_keeps_no_more_than_the_report_lists_whatever_the_shards() {
        let scenario = Scenario::parse(FAILING, Path::new("f.toml")).expect("parses");
        let count = 30;
        let mut fold: Option<SweepFold> = None;
        for index in (1..=count).rev() {
            let report = shard_report(&scenario, index, count);
            assert!(!report.failures.is_empty(), "shard {index} has failures to carry");
            let path = PathBuf::from(format!("/m{index}/report.json"));
            match fold.as_mut() {
                Some(fold) => fold.add(path, report).expect("a shard of the sweep"),
                None => fold = Some(SweepFold::start(path, report).expect("a shard")),
            }
            let fold = fold.as_ref().expect("started");
            assert!(fold.replays.len() <= FAILURES_KEPT, "{} replays kept", fold.replays.len());
        }
        let fold = fold.expect("started");
        let whole = run::run(&scenario, &RunOptions::scenario(&scenario, 1), &|_| {});
        assert_eq!(fold.sum.as_ref(), Some(&whole));
        assert_eq!(fold.replays.len(), FAILURES_KEPT);
        assert_eq!(fold.book.lowest.0, 1);
        assert!(fold.book.missing().is_empty() && fold.book.not_the_sweep_once(false).is_none());
    }
}
