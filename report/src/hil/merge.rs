//! `bench report merge` of HIL shards (`bench hil --shard I/N` runs): the
//! report of the farm whose boards are the shards.
//!
//! Shard `I` of `N` plays the games `g ≡ I − 1 (mod N)`, which are the
//! games board `I` of a farm of `N` boards plays, on its own boot. So the
//! merged report is the one that farm writes: the games in game order,
//! every shard's boards in shard order, the accounting drift of the board
//! that decides it (the first whose interval misses the tolerance, else the
//! largest |drift|, as `bench hil` decides for a farm), percentiles over
//! every press of every shard (each shard carries its raw latencies in
//! `shard`), the Acks of every boot in turn. A game's entry is the shard's,
//! unchanged.
//!
//! **Streaming:** shards are read one at a time. Kept between them: the
//! games and latencies so far (a farm holds them too), each shard's boards,
//! Acks and drift verdict (the merged report lists them); the deciding
//! shard's report is read again at the end for its drift samples.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bench_hil::judge::drift::{self, BoardDrift, FitOptions};
use bench_hil::schedule::GameSlice;
use bench_sim::coverage::Coverage;

use super::{
    board_latency_info, latency, latency_bins, write_folder, AckLineInfo, BoardInfoRun, FirmwareInfo, GameInfo, Parts,
    Report, DRIFT_CHECK,
};
use crate::merge::{
    fold_shards, hil_key, input, load_shard, same, MergeError, MergeRequest, Merged, ShardBook, ShardReport,
};
use crate::replays::{self, ReplayText};
use bench_hil::judge::latency::Percentiles;

/// Merges the HIL shard reports of `request` into its `out`.
pub(crate) fn merge(request: &MergeRequest) -> Result<Merged, MergeError> {
    let pick = |report| match report {
        ShardReport::Hil(report) => Some(*report),
        ShardReport::Sim(_) => None,
    };
    fold_shards(request, "HIL", pick, FarmFold::start, FarmFold::add)?.finish(request)
}

/// What the merged report takes from one shard, besides its games.
struct ShardPart {
    description: String,
    error: Option<String>,
    boards: Vec<BoardInfoRun>,
    acks: Option<Vec<AckLineInfo>>,
    firmware: FirmwareInfo,
}

/// The shards added so far.
struct FarmFold {
    first_path: PathBuf,
    /// The first shard's report, its games and raw values left out: every
    /// other shard is compared with it.
    first: Report,
    book: ShardBook,
    parts: BTreeMap<u64, ShardPart>,
    games_detail: Vec<GameInfo>,
    /// The failing games' replay files, read from their shards' folders.
    replays: Vec<ReplayText>,
    press_latencies_us: Vec<u64>,
    board_latencies_us: Vec<u64>,
    board_brackets_us: Vec<u64>,
    board_unmatched: u64,
    records_total: u64,
    coverage: Coverage,
    /// Each shard's accounting drift, by index: the deciding shard's report
    /// is read again at the end for its samples.
    drifts: BTreeMap<u64, BoardDrift>,
}

impl FarmFold {
    fn start(path: PathBuf, report: Report) -> Result<FarmFold, MergeError> {
        let book = ShardBook::start(&path, &hil_key(&report))?;
        let mut first = report.clone();
        first.games_detail.clear();
        first.shard = first.shard.map(|shard| super::Shard {
            press_latencies_us: Vec::new(),
            board_latencies_us: Vec::new(),
            board_brackets_us: Vec::new(),
            drift_samples: Vec::new(),
            ..shard
        });
        let mut fold = FarmFold {
            first_path: path.clone(),
            first,
            book,
            parts: BTreeMap::new(),
            games_detail: Vec::new(),
            replays: Vec::new(),
            press_latencies_us: Vec::new(),
            board_latencies_us: Vec::new(),
            board_brackets_us: Vec::new(),
            board_unmatched: 0,
            records_total: 0,
            coverage: Coverage::default(),
            drifts: BTreeMap::new(),
        };
        fold.add(path, report)?;
        Ok(fold)
    }

    /// Adds one shard, checked to be of the first's sweep.
    fn add(&mut self, path: PathBuf, report: Report) -> Result<(), MergeError> {
        same_sweep(&self.first_path, &self.first, &path, &report)?;
        let shard = report.shard.clone().ok_or_else(|| input(format!("{} is not a shard", path.display())))?;
        check_games(&path, &report, &shard)?;
        if !self.book.add(path.clone(), &hil_key(&report))? {
            return Ok(());
        }
        let coverage = crate::coverage::from_entries(&report.coverage)
            .map_err(|why| input(format!("{}: {why}", path.display())))?;
        self.coverage.merge(&coverage);
        self.records_total = self.records_total.saturating_add(report.records.total);
        self.press_latencies_us.extend(&shard.press_latencies_us);
        self.board_latencies_us.extend(&shard.board_latencies_us);
        self.board_brackets_us.extend(&shard.board_brackets_us);
        self.board_unmatched = self.board_unmatched.saturating_add(shard.board_unmatched);
        let drift = &report.drift;
        let board_drift =
            BoardDrift { measured: drift.measured, within_tolerance: drift.within_tolerance, ppm: drift.ppm };
        self.drifts.insert(shard.index, board_drift);
        let folder = path.parent().unwrap_or(Path::new("."));
        for game in &report.games_detail {
            if let Some(relative) = &game.replay_file {
                let toml = replays::read(folder, relative).map_err(|error| input(format!("{error:#}")))?;
                self.replays.push(ReplayText { game: game.game, toml });
            }
        }
        self.games_detail.extend(report.games_detail);
        self.parts.insert(
            shard.index,
            ShardPart {
                description: report.board.description,
                error: report.error,
                boards: report.boards,
                acks: report.contract_acks,
                firmware: report.firmware,
            },
        );
        Ok(())
    }

    fn finish(self, request: &MergeRequest) -> Result<Merged, MergeError> {
        if let Some(why) = self.book.not_the_sweep_once(request.partial) {
            return Err(input(why));
        }
        let missing = self.book.missing();
        let deciding = self.deciding_shard()?;
        let (_, command, scenario_file) = self.book.lowest.clone();
        let parts: Vec<&ShardPart> = self.parts.values().collect();
        let joined = |texts: Vec<String>| (!texts.is_empty()).then(|| texts.join("; "));
        let error = joined(parts.iter().filter_map(|part| part.error.clone()).collect());
        let acks = parts.iter().filter_map(|part| part.acks.clone()).reduce(|mut lines, more| {
            lines.extend(more);
            lines
        });
        // The firmware as the first board that heard its Hello saw it, at
        // the path the lowest-numbered shard ran it from.
        let mut firmware = parts
            .iter()
            .find(|part| part.firmware.name.is_some())
            .map_or_else(|| self.first.firmware.clone(), |part| part.firmware.clone());
        firmware.file = parts.first().map_or(firmware.file.clone(), |part| part.firmware.file.clone());
        let exercises = self.first.shard.as_ref().map(|shard| shard.exercises.clone()).unwrap_or_default();
        let mut games_detail = self.games_detail;
        games_detail.sort_by_key(|game| game.game);
        let mut report = Report {
            command,
            board: super::BoardInfo {
                kind: self.first.board.kind.clone(),
                description: parts.iter().map(|part| part.description.clone()).collect::<Vec<_>>().join("; "),
            },
            firmware,
            scenario: super::ScenarioInfo { file: scenario_file, ..self.first.scenario.clone() },
            drift: deciding.drift.clone(),
            latency: Percentiles::of(&self.press_latencies_us).as_ref().map(latency),
            latency_histogram: latency_bins(&self.press_latencies_us),
            records: super::RecordTotals { total: self.records_total, lost: 0 },
            error: error.clone(),
            board_latency: board_latency_info(&self.board_latencies_us, &self.board_brackets_us, self.board_unmatched),
            boards: parts.iter().flat_map(|part| part.boards.clone()).collect(),
            shard: None,
            games_detail,
            files: BTreeMap::new(),
            ..self.first
        };
        Parts {
            games_requested: self.book.total,
            error,
            observed: None,
            drift_check: deciding.checks.iter().find(|check| check.name == DRIFT_CHECK).cloned(),
            exercised: exercises.iter().filter_map(|key| chessclock::Transition::from_key(key)).collect(),
            coverage: self.coverage,
            contract_acks: acks,
        }
        .judge(&mut report);
        let games_played = report.games.played;
        let samples = deciding.shard.map(|shard| shard.drift_samples).unwrap_or_default();
        let fit = drift::fit(&samples, &FitOptions::default());
        replays::write(request.out, &self.replays).map_err(MergeError::Write)?;
        let (_, written) = write_folder(request.out, report, &samples, fit.as_ref().ok()).map_err(MergeError::Write)?;
        Ok(Merged {
            written,
            shards: self.book.shards(),
            shard_count: self.book.count,
            missing,
            games: self.book.total,
            games_played,
            scenario: self.first.scenario.name.clone(),
            seed: self.first.seed,
        })
    }
}

impl FarmFold {
    /// The report of the shard whose drift stands for the farm's, as the
    /// farm decides it ([`drift::deciding_board`], the shards in order),
    /// read again: the one shard whose drift samples the merge needs.
    fn deciding_shard(&self) -> Result<Report, MergeError> {
        let indices: Vec<u64> = self.drifts.keys().copied().collect();
        let drifts: Vec<BoardDrift> = self.drifts.values().copied().collect();
        let index = indices.get(drift::deciding_board(&drifts)).ok_or_else(|| input("no shard given".into()))?;
        let path = self.book.path_of(*index).ok_or_else(|| input(format!("shard {index} was not read")))?;
        match load_shard(path)? {
            ShardReport::Hil(report) if report.shard.as_ref().is_some_and(|shard| shard.index == *index) => Ok(*report),
            _ => Err(input(format!("{} changed while the shards were merged", path.display()))),
        }
    }
}

/// A shard must have asked for its share of the sweep's games, and played
/// none but those.
fn check_games(path: &Path, report: &Report, shard: &super::Shard) -> Result<(), MergeError> {
    let (index, count, total) = (shard.index, shard.count, shard.games);
    if index == 0 || index > count {
        return Err(input(format!("{}: shard {index}/{count}: need 1 <= I <= N", path.display())));
    }
    let slice = GameSlice::all(total).part(index - 1, count);
    if report.games.requested != slice.len() {
        return Err(input(format!(
            "{}: shard {index}/{count} of {total} games must ask for {} games, not {}",
            path.display(),
            slice.len(),
            report.games.requested
        )));
    }
    if let Some(stray) = report.games_detail.iter().find(|game| game.game >= total || game.game % count != index - 1) {
        return Err(input(format!(
            "{}: game {} is not in shard {index}/{count} of {total} games (games g with g mod {count} = {})",
            path.display(),
            stray.game,
            index - 1
        )));
    }
    Ok(())
}

/// Everything that must be equal in the shards of one sweep: what the
/// shards ran and how it was judged. The paths of the scenario and the
/// firmware are information only.
fn same_sweep(a_path: &Path, a: &Report, b_path: &Path, b: &Report) -> Result<(), MergeError> {
    let differ = |what: &str, x: String, y: String| same(a_path, b_path, what, x, y);
    differ("report schemas", a.schema.clone(), b.schema.clone())?;
    differ("bench versions", a.bench_version.clone(), b.bench_version.clone())?;
    differ("boards (--board)", a.board.kind.clone(), b.board.kind.clone())?;
    differ("scenarios", a.scenario.name.clone(), b.scenario.name.clone())?;
    differ("scenario contents (sha256)", a.scenario.sha256.clone(), b.scenario.sha256.clone())?;
    differ("firmware images (sha256)", a.firmware.sha256.clone(), b.firmware.sha256.clone())?;
    differ("seeds", a.seed.to_string(), b.seed.to_string())?;
    let shard = |report: &Report| report.shard.as_ref().map_or((0, 0), |shard| (shard.games, shard.count));
    differ("game counts (--games)", shard(a).0.to_string(), shard(b).0.to_string())?;
    differ("shard counts", shard(a).1.to_string(), shard(b).1.to_string())?;
    differ("drift tolerances", a.drift.tolerance_ppm.to_string(), b.drift.tolerance_ppm.to_string())?;
    Ok(())
}
