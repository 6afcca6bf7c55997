//! `bench report merge`: the shards of one sweep (`bench sim --shard I/N`
//! runs) joined into the report the unsharded run writes, byte for byte.
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
//! the failures the sum keeps, and each shard's index and path.
//!
//! **Path-independent:** a scenario is its name and the SHA-256 of its
//! file's bytes. The path each shard ran it from (`scenario.file`, and the
//! `--scenario` word of its command) is information only: machines of one
//! sweep each have their own folders. The merged report takes the path and
//! command spelling of its lowest-numbered shard.
//!
//! Shards are refused, with the reason, when they are not of one sweep:
//! another scenario (name or SHA-256), seed, bench version, option or game
//! count; shards missing or given twice (each named; `--partial` merges
//! without the missing ones into a report marked incomplete); an
//! interrupted shard.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use bench_sim::board::MateSearches;
use bench_sim::run::{self, EnvelopeBucket, FailedGame, Summary, ENVELOPE_BUCKETS};
use bench_sim::scenario::Scenario;

use super::report::Report;
use super::{write_sim_report, SimReportInput};
use crate::gate;
use crate::sha256_hex;

/// Why shards were not merged.
#[derive(Debug)]
pub enum MergeError {
    /// The inputs are wrong (exit 2).
    Input(anyhow::Error),
    /// Writing the merged report failed (exit 3).
    Write(anyhow::Error),
}

fn input(message: String) -> MergeError {
    MergeError::Input(anyhow!(message))
}

/// What was merged.
pub struct Merged {
    /// The merged report's files, `report.json` last.
    pub written: Vec<PathBuf>,
    pub shards: u64,
    /// The sweep's shard count, N of `--shard I/N`.
    pub shard_count: u64,
    /// With `--partial`: the shards that were not there (their indices);
    /// the report is then marked incomplete.
    pub missing: Vec<u64>,
    /// The games the merged report covers (`0..games`, played or not).
    pub games: u64,
    pub games_played: u64,
    pub scenario: String,
    pub seed: u64,
}

impl Merged {
    pub fn complete(&self) -> bool {
        self.missing.is_empty()
    }
}

/// Where the scenario the shards ran is read from again.
pub struct ScenarioSource<'a> {
    /// `--scenario PATH`: this file, and no other.
    pub given: Option<&'a Path>,
    /// Files that may hold the scenario of a name (the scenario
    /// directories' `NAME.toml`), tried after the paths the shards name.
    pub by_name: &'a dyn Fn(&str) -> Vec<PathBuf>,
}

/// What `bench report merge` is asked to do.
pub struct MergeRequest<'a> {
    /// The shards' folders or `report.json` files, in any order.
    pub shards: &'a [PathBuf],
    pub scenario: ScenarioSource<'a>,
    pub out: &'a Path,
    /// Merge the shards that are there when some are missing, into a
    /// report marked incomplete, instead of refusing.
    pub partial: bool,
}

/// Where the merged report goes without `--out`: where the unsharded run
/// would have put it.
pub fn default_out_dir(shard: &Path) -> Result<PathBuf, MergeError> {
    let report = load_shard(shard)?;
    Ok(PathBuf::from("reports").join(format!("{}-{}", report.scenario.name, report.seed)))
}

/// The command of the merged report, read from one shard (`merge` checks
/// that every shard's is the same, but for its scenario's path): the
/// unsharded run's.
pub fn merged_command(shard: &Path) -> Result<String, MergeError> {
    unsharded_command(&gate::report_path(shard), &load_shard(shard)?)
}

fn load_shard(dir: &Path) -> Result<Report, MergeError> {
    let path = gate::report_path(dir);
    let report = gate::load_complete(dir).map_err(|error| MergeError::Input(error.into()))?;
    let Some(report) = report.into_sim() else {
        return Err(input(format!("{} is not a simulation report: only `bench sim` shards merge", path.display())));
    };
    if report.shard.is_none() {
        return Err(input(format!(
            "{} is not a shard (its run had no --shard): merge joins the shards of one sweep",
            path.display()
        )));
    }
    Ok(report)
}

/// Merges the shard reports of `request` into its `out`, reading and
/// folding them one at a time.
pub fn merge(request: &MergeRequest) -> Result<Merged, MergeError> {
    let out = request.out.canonicalize().ok();
    let mut fold: Option<SweepFold> = None;
    for dir in request.shards {
        let path = gate::report_path(dir);
        refuse_out_as_shard_folder(out.as_deref(), &path)?;
        let report = load_shard(dir)?;
        match fold.as_mut() {
            Some(fold) => fold.add(path, report)?,
            None => fold = Some(SweepFold::start(path, report)?),
        }
    }
    let fold = fold.ok_or_else(|| input("no shard given".into()))?;
    fold.finish(request)
}

/// Merging into a shard's own folder would replace the report being read.
fn refuse_out_as_shard_folder(out: Option<&Path>, shard: &Path) -> Result<(), MergeError> {
    let Some(out) = out else { return Ok(()) };
    if shard.parent().and_then(|dir| dir.canonicalize().ok()).is_some_and(|dir| dir == out) {
        return Err(input(format!(
            "--out {} is the folder of shard {}: write the merged report elsewhere",
            out.display(),
            shard.display()
        )));
    }
    Ok(())
}

/// The shards of one sweep added up so far. Holds no shard's report but
/// the first's, whatever the number of shards.
struct SweepFold {
    /// The first shard read, its path and report: every other is compared
    /// with it.
    first_path: PathBuf,
    first: Report,
    /// The sweep's games and shard count.
    total: u64,
    count: u64,
    /// Each shard's report file, by index (1-based).
    seen: BTreeMap<u64, PathBuf>,
    /// Shards given again: the index, the file seen first and this one.
    duplicates: Vec<(u64, PathBuf, PathBuf)>,
    /// The lowest-numbered shard's unsharded command and scenario file:
    /// the merged report's spelling of them.
    lowest: (u64, String, String),
    /// The sum of the shards added (`None` before the first).
    sum: Option<Summary>,
    /// The replay command of each failure `sum` keeps, as its shard wrote it.
    replays: BTreeMap<u64, String>,
    /// The first path a shard names that holds the scenario's bytes here.
    scenario_here: Option<PathBuf>,
}

impl SweepFold {
    fn start(path: PathBuf, report: Report) -> Result<SweepFold, MergeError> {
        let command = unsharded_command(&path, &report)?;
        let mut fold = SweepFold {
            total: report.games.total,
            count: report.shard.as_ref().map_or(0, |shard| shard.count),
            seen: BTreeMap::new(),
            duplicates: Vec::new(),
            lowest: (u64::MAX, command, report.scenario.file.clone()),
            sum: None,
            replays: BTreeMap::new(),
            scenario_here: None,
            first_path: path.clone(),
            first: report.clone(),
        };
        fold.add(path, report)?;
        Ok(fold)
    }

    /// Adds one shard, checked to be of the first's sweep, and drops it.
    fn add(&mut self, path: PathBuf, report: Report) -> Result<(), MergeError> {
        same_sweep(&self.first_path, &self.first, &path, &report)?;
        let command = unsharded_command(&path, &report)?;
        let first_command = unsharded_command(&self.first_path, &self.first)?;
        if without_scenario_word(&command) != without_scenario_word(&first_command) {
            return Err(input(format!(
                "{} and {} are not shards of one sweep: their commands differ (`{}` and `{}`)",
                self.first_path.display(),
                path.display(),
                self.first.command,
                report.command
            )));
        }
        let index = report.shard.as_ref().map_or(0, |shard| shard.index);
        self.check_range(&path, &report, index)?;
        if let Some(other) = self.seen.get(&index) {
            self.duplicates.push((index, other.clone(), path));
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
        // Only the failures the sum keeps need their replay command.
        let kept: Vec<u64> = sum.failures.iter().map(|failure| failure.game).collect();
        self.replays.retain(|game, _| kept.contains(game));
        if self.scenario_here.is_none() && holds_scenario(Path::new(&report.scenario.file), &report) {
            self.scenario_here = Some(PathBuf::from(&report.scenario.file));
        }
        if index < self.lowest.0 {
            self.lowest = (index, command, report.scenario.file.clone());
        }
        self.seen.insert(index, path);
        Ok(())
    }

    /// A shard must cover exactly its slice of the sweep's games.
    fn check_range(&self, path: &Path, report: &Report, index: u64) -> Result<(), MergeError> {
        let (total, count) = (self.total, self.count);
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

    /// The shards not given, by index.
    fn missing(&self) -> Vec<u64> {
        (1..=self.count).filter(|index| !self.seen.contains_key(index)).collect()
    }

    /// Why the shards given are not the whole sweep once each, if they are
    /// not: every shard given twice and every shard missing, named.
    fn not_the_sweep_once(&self, partial: bool) -> Option<String> {
        let count = self.count;
        let mut problems: Vec<String> = self
            .duplicates
            .iter()
            .map(|(index, first, again)| {
                format!(
                    "shard {index}/{count} is given twice ({} and {}): its games would count twice",
                    first.display(),
                    again.display()
                )
            })
            .collect();
        let missing = self.missing();
        if !missing.is_empty() && !partial {
            let names: Vec<String> = missing.iter().map(|index| format!("{index}/{count}")).collect();
            problems.push(format!(
                "shards missing: {} (the sweep's games 0..{} are split in {count}; give every shard, or --partial \
                 to merge those there are into a report marked incomplete)",
                names.join(", "),
                self.total
            ));
        }
        (!problems.is_empty()).then(|| problems.join("; "))
    }

    fn finish(self, request: &MergeRequest) -> Result<Merged, MergeError> {
        if let Some(why) = self.not_the_sweep_once(request.partial) {
            return Err(input(why));
        }
        let missing = self.missing();
        let (_, whole_command, scenario_file) = &self.lowest;
        let (scenario, sha256) =
            scenario_of(&self.first, scenario_file, self.scenario_here.as_deref(), &request.scenario)?;
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
        let incomplete_because = (!missing.is_empty()).then(|| {
            let names: Vec<String> = missing.iter().map(|index| format!("{index}/{}", self.count)).collect();
            format!("shards missing: {}", names.join(", "))
        });
        let report_input = SimReportInput {
            scenario: &scenario,
            scenario_file: Path::new(scenario_file),
            scenario_sha256: sha256,
            seed: self.first.seed,
            games: 0..self.total,
            games_total: self.total,
            shard: None,
            swarm: self.first.swarm,
            options: self.first.options.clone(),
            summary,
            checks: &checks,
            command_line: whole_command.clone(),
            replay_command: &replay,
            complete: missing.is_empty(),
            incomplete_because,
        };
        let written = write_sim_report(request.out, &report_input).map_err(MergeError::Write)?;
        Ok(Merged {
            written,
            shards: self.seen.len() as u64,
            shard_count: self.count,
            missing,
            games: self.total,
            games_played: summary.games,
            scenario: self.first.scenario.name.clone(),
            seed: self.first.seed,
        })
    }
}

/// The shard's command without its `--shard I/N`: the unsharded run's.
fn unsharded_command(path: &Path, report: &Report) -> Result<String, MergeError> {
    let Some(shard) = &report.shard else {
        return Err(input(format!("{} is not a shard", path.display())));
    };
    let flag = format!(" --shard {}/{}", shard.index, shard.count);
    if report.command.matches(flag.as_str()).count() != 1 {
        return Err(input(format!(
            "{}: its command `{}` does not name its shard {}/{} once",
            path.display(),
            report.command,
            shard.index,
            shard.count
        )));
    }
    Ok(report.command.replacen(flag.as_str(), "", 1))
}

/// Where the `--scenario` word of a bench command is (`bench sim
/// --scenario WORD …`), written as a shell word: bare, or in single quotes
/// with `'\''` for a quote.
fn scenario_word(command: &str) -> Option<Range<usize>> {
    const FLAG: &str = " --scenario ";
    let start = command.find(FLAG)? + FLAG.len();
    let rest = &command[start..];
    let length = if rest.starts_with('\'') {
        let mut from = 1;
        loop {
            let quote = rest[from..].find('\'')? + from;
            if rest[quote..].starts_with(r"'\''") {
                from = quote + 4;
            } else {
                break quote + 1;
            }
        }
    } else {
        rest.find(' ').unwrap_or(rest.len())
    };
    Some(start..start + length)
}

/// A command with its `--scenario` word left out: what must be equal in
/// the shards of one sweep, whatever path each ran the scenario from.
fn without_scenario_word(command: &str) -> String {
    match scenario_word(command) {
        Some(range) => format!("{}{}", &command[..range.start], &command[range.end..]),
        None => command.to_string(),
    }
}

/// Everything that must be equal in the shards of one sweep.
fn same_sweep(a_path: &Path, a: &Report, b_path: &Path, b: &Report) -> Result<(), MergeError> {
    let differ = |what: &str, x: String, y: String| -> Result<(), MergeError> {
        if x == y {
            return Ok(());
        }
        Err(input(format!(
            "{} and {} are not shards of one sweep: different {what} ({x} and {y})",
            a_path.display(),
            b_path.display()
        )))
    };
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

/// The scenario the shards ran, read again from the first file whose
/// SHA-256 is theirs, with the options that change it (`--max-moves`)
/// applied: `--scenario PATH` alone when given, else the paths the shards
/// name (`named`: the lowest-numbered shard's; then the first shard's, then
/// the first that holds it here), then the scenario directories' file of
/// that name.
fn scenario_of(
    report: &Report,
    named: &str,
    here: Option<&Path>,
    source: &ScenarioSource,
) -> Result<(Scenario, String), MergeError> {
    let mut candidates: Vec<PathBuf> = match source.given {
        Some(given) => vec![given.to_path_buf()],
        None => [PathBuf::from(named), PathBuf::from(&report.scenario.file)]
            .into_iter()
            .chain(here.map(Path::to_path_buf))
            .chain((source.by_name)(&report.scenario.name))
            .collect(),
    };
    candidates.dedup();
    let mut tried = Vec::new();
    for path in &candidates {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(error) => {
                tried.push(format!("cannot read the scenario file {} that the shards ran ({error})", path.display()));
                continue;
            }
        };
        let sha256 = sha256_hex(&bytes);
        if sha256 != report.scenario.sha256 {
            tried.push(format!(
                "the scenario file {} has changed since the shards ran (sha256 {sha256}, the shards ran {})",
                path.display(),
                report.scenario.sha256
            ));
            continue;
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| input(format!("the scenario file {} is not UTF-8", path.display())))?;
        // Parsed under the name the reports give, so the scenario's name is theirs.
        let mut scenario = Scenario::parse(&text, Path::new(named)).map_err(|error| input(error.to_string()))?;
        if let Some(max_moves) = report.options.max_moves {
            scenario.board.max_moves = max_moves;
        }
        return Ok((scenario, sha256));
    }
    Err(input(format!(
        "{}: merge needs the file the shards ran (the same bytes, from any folder): give it with --scenario",
        tried.join("; ")
    )))
}

/// Whether `path` holds the bytes of the scenario `report` ran.
fn holds_scenario(path: &Path, report: &Report) -> bool {
    std::fs::read(path).is_ok_and(|bytes| sha256_hex(&bytes) == report.scenario.sha256)
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

    use super::super::report::{self, Options};
    use super::*;

    #[test]
    fn the_scenario_word_is_found_bare_or_quoted() {
        let check = |command: &str, word: &str, rest: &str| {
            let range = scenario_word(command).unwrap_or_else(|| panic!("no --scenario in `{command}`"));
            assert_eq!(&command[range], word, "{command}");
            assert_eq!(without_scenario_word(command), rest, "{command}");
        };
        check("bench sim --scenario both-flags --seed 1", "both-flags", "bench sim --scenario  --seed 1");
        check("bench sim --scenario /a/b.toml", "/a/b.toml", "bench sim --scenario ");
        check("bench sim --scenario 'my x.toml' --games 2", "'my x.toml'", "bench sim --scenario  --games 2");
        check(r"bench sim --scenario 'a'\''b c.toml' --seed 1", r"'a'\''b c.toml'", "bench sim --scenario  --seed 1");
        check("bench sim --scenario 'x --scenario y' --seed 1", "'x --scenario y'", "bench sim --scenario  --seed 1");
        assert_eq!(scenario_word("bench sim --seed 1"), None);
        assert_eq!(scenario_word("bench sim --scenario 'unterminated"), None);
    }

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
        assert_eq!(fold.lowest.0, 1);
        assert!(fold.missing().is_empty() && fold.duplicates.is_empty());
    }
}
