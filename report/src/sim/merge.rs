//! `bench report merge`: the shards of one sweep (`bench sim --shard I/N`
//! runs) joined into the report the unsharded run writes, byte for byte.
//!
//! A shard's `report.json` holds everything its [`Summary`] held, so each
//! is turned back into a `Summary`, the summaries are added with
//! [`Summary::merge`] (order-independent, as for threads), the sum is judged
//! again against the scenario (read from the file the reports name, checked
//! against their SHA-256), and [`write_sim_report`] writes the folder as the
//! unsharded run would: no shard, games `0..N`, the command without
//! `--shard`.
//!
//! Shards are refused, with the reason, when they are not of one sweep:
//! another scenario (name, file or SHA-256), seed, bench version, option or
//! game count; a shard missing or given twice; ranges that overlap or leave
//! a gap; an interrupted shard.

use std::collections::BTreeMap;
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
    pub games: u64,
    pub scenario: String,
    pub seed: u64,
}

/// Where the merged report goes without `--out`: where the unsharded run
/// would have put it.
pub fn default_out_dir(shard: &Path) -> Result<PathBuf, MergeError> {
    let report = load_shard(shard)?;
    Ok(PathBuf::from("reports").join(format!("{}-{}", report.scenario.name, report.seed)))
}

/// The command of the merged report, read from one shard (`merge` checks
/// that every shard's is the same): the unsharded run's.
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

/// Merges the shard reports in `dirs` (folders or `report.json` files) into
/// `out`. `scenario_file` overrides where the scenario is read from (else
/// the path the reports name, relative to the current folder).
pub fn merge(dirs: &[PathBuf], scenario_file: Option<&Path>, out: &Path) -> Result<Merged, MergeError> {
    let mut shards = Vec::new();
    for dir in dirs {
        shards.push((gate::report_path(dir), load_shard(dir)?));
    }
    let Some((first_path, first)) = shards.first() else {
        return Err(input("no shard given".into()));
    };
    refuse_out_among_shards(out, &shards)?;
    let whole_command = unsharded_command(first_path, first)?;
    for (path, shard) in shards.iter().skip(1) {
        same_sweep(first_path, first, path, shard)?;
        let command = unsharded_command(path, shard)?;
        if command != whole_command {
            return Err(input(format!(
                "{} and {} are not shards of one sweep: their commands differ (`{}` and `{}`)",
                first_path.display(),
                path.display(),
                first.command,
                shard.command
            )));
        }
    }
    let total = tile(first, &shards)?;
    let (scenario, sha256) = scenario_of(first, scenario_file)?;

    let mut summary: Option<Summary> = None;
    let mut replays: BTreeMap<u64, String> = BTreeMap::new();
    for (path, shard) in &shards {
        let part = summary_of(shard).map_err(|problem| input(format!("{}: {problem}", path.display())))?;
        match summary.as_mut() {
            Some(sum) => sum.merge(part),
            None => summary = Some(part),
        }
        for failure in &shard.failures {
            replays.insert(failure.game, failure.replay.clone());
        }
    }
    let summary = summary.ok_or_else(|| input("no shard given".into()))?;
    if let Some(missing) = summary.failures.iter().find(|failure| !replays.contains_key(&failure.game)) {
        return Err(input(format!("no shard lists the replay command of failing game {}", missing.game)));
    }
    let mut checks = run::judge(&scenario, &summary);
    if first.options.check_determinism {
        checks.push(run::determinism_check(&summary));
    }
    let replay = |game: u64| replays.get(&game).cloned().unwrap_or_default();
    let report_input = SimReportInput {
        scenario: &scenario,
        scenario_file: Path::new(&first.scenario.file),
        scenario_sha256: sha256,
        seed: first.seed,
        games: 0..total,
        games_total: total,
        shard: None,
        swarm: first.swarm,
        options: first.options.clone(),
        summary: &summary,
        checks: &checks,
        command_line: whole_command,
        replay_command: &replay,
        complete: true,
    };
    let written = write_sim_report(out, &report_input).map_err(MergeError::Write)?;
    Ok(Merged {
        written,
        shards: shards.len() as u64,
        games: total,
        scenario: first.scenario.name.clone(),
        seed: first.seed,
    })
}

/// Merging into a shard's own folder would replace the report being read.
fn refuse_out_among_shards(out: &Path, shards: &[(PathBuf, Report)]) -> Result<(), MergeError> {
    let Ok(out) = out.canonicalize() else { return Ok(()) };
    for (path, _) in shards {
        if path.parent().and_then(|dir| dir.canonicalize().ok()).is_some_and(|dir| dir == out) {
            return Err(input(format!(
                "--out {} is the folder of shard {}: write the merged report elsewhere",
                out.display(),
                path.display()
            )));
        }
    }
    Ok(())
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
    differ("scenario files", a.scenario.file.clone(), b.scenario.file.clone())?;
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

/// Checks that the shards (`first` among them) are 1..=N of N, each once, and that their game
/// ranges tile `0..total` with no gap or overlap; returns `total`.
fn tile(first: &Report, shards: &[(PathBuf, Report)]) -> Result<u64, MergeError> {
    let total = first.games.total;
    let count = first.shard.as_ref().map_or(0, |shard| shard.count);
    let mut by_index: BTreeMap<u64, &Path> = BTreeMap::new();
    let mut ranges = Vec::new();
    for (path, report) in shards {
        let Some(shard) = &report.shard else { continue };
        if let Some(other) = by_index.insert(shard.index, path) {
            return Err(input(format!(
                "shard {}/{count} is given twice ({} and {}): its games would count twice",
                shard.index,
                other.display(),
                path.display()
            )));
        }
        let expected = run::shard_range(total, shard.index, count).unwrap_or(0..0);
        if report.games.start != expected.start || report.games.end != expected.end {
            return Err(input(format!(
                "{}: shard {}/{count} of {total} games must cover games {}..{}, not {}..{}",
                path.display(),
                shard.index,
                expected.start,
                expected.end,
                report.games.start,
                report.games.end
            )));
        }
        ranges.push((report.games.start, report.games.end, path.as_path()));
    }
    let missing: Vec<String> =
        (1..=count).filter(|index| !by_index.contains_key(index)).map(|index| format!("{index}/{count}")).collect();
    if !missing.is_empty() {
        return Err(input(format!(
            "shards missing: {} (the sweep's games 0..{total} are split in {count}; give every shard)",
            missing.join(", ")
        )));
    }
    ranges.sort();
    let mut next = 0;
    for (start, end, path) in ranges {
        if start != next {
            let what = if start < next { "overlap" } else { "leave a gap before" };
            return Err(input(format!("the game ranges {what} games {start}..{end} of {}", path.display())));
        }
        next = end;
    }
    if next != total {
        return Err(input(format!("the shards cover games 0..{next} of 0..{total}")));
    }
    Ok(total)
}

/// The scenario the shards ran, read again and checked against their hash,
/// with the options that change it (`--max-moves`) applied.
fn scenario_of(report: &Report, file: Option<&Path>) -> Result<(Scenario, String), MergeError> {
    let named = Path::new(&report.scenario.file);
    let path = file.unwrap_or(named);
    let bytes = std::fs::read(path).map_err(|error| {
        input(format!(
            "cannot read the scenario file {} that the shards ran ({error}); run merge from the folder the shards \
             ran in, or give the file with --scenario",
            path.display()
        ))
    })?;
    let sha256 = sha256_hex(&bytes);
    if sha256 != report.scenario.sha256 {
        return Err(input(format!(
            "the scenario file {} has changed since the shards ran (sha256 {}, the shards ran {}): merge needs the \
             file they ran",
            path.display(),
            sha256,
            report.scenario.sha256
        )));
    }
    let text =
        String::from_utf8(bytes).map_err(|_| input(format!("the scenario file {} is not UTF-8", path.display())))?;
    // Parsed under the name the reports give, so the scenario's name is theirs.
    let mut scenario = Scenario::parse(&text, named).map_err(|error| input(error.to_string()))?;
    if let Some(max_moves) = report.options.max_moves {
        scenario.board.max_moves = max_moves;
    }
    if scenario.name != report.scenario.name {
        return Err(input(format!(
            "the scenario file {} is named `{}`, the shards ran `{}`",
            path.display(),
            scenario.name,
            report.scenario.name
        )));
    }
    Ok((scenario, sha256))
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
