//! `bench report merge`: the shards of one sweep joined into one report.
//! Simulation shards (`bench sim --shard`) give the unsharded run's report
//! byte for byte ([`crate::sim::merge`]); HIL shards (`bench hil --shard`)
//! give the report of a farm whose boards are the shards
//! ([`crate::hil::merge`]).
//!
//! What both kinds share is here: the request, the errors, and the
//! [`ShardBook`], which keeps which shard came from which file and names
//! the shards missing or given twice.
//!
//! **Path-independent:** a scenario is its name and the SHA-256 of its
//! file's bytes. The path each shard ran it from (`scenario.file`, and the
//! `--scenario` word of its command) is information only: machines of one
//! sweep each have their own folders. The merged report takes the path and
//! command spelling of its lowest-numbered shard.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use bench_sim::scenario::Scenario;

use crate::gate::{self, AnyReport};
use crate::sha256_hex;

/// Why shards were not merged.
#[derive(Debug)]
pub enum MergeError {
    /// The inputs are wrong (exit 2).
    Input(anyhow::Error),
    /// Writing the merged report failed (exit 3).
    Write(anyhow::Error),
}

pub(crate) fn input(message: String) -> MergeError {
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

/// A shard's report, of either kind.
pub(crate) enum ShardReport {
    Sim(Box<crate::sim::report::Report>),
    Hil(Box<crate::hil::Report>),
}

impl ShardReport {
    /// What the [`ShardBook`] reads of it.
    pub(crate) fn key(&self) -> ShardKey<'_> {
        match self {
            ShardReport::Sim(report) => sim_key(report),
            ShardReport::Hil(report) => hil_key(report),
        }
    }
}

pub(crate) fn sim_key(report: &crate::sim::report::Report) -> ShardKey<'_> {
    ShardKey {
        command: &report.command,
        shard: report.shard.as_ref().map(|shard| (shard.index, shard.count)),
        games: report.games.total,
        scenario_name: &report.scenario.name,
        scenario_file: &report.scenario.file,
        scenario_sha256: &report.scenario.sha256,
        seed: report.seed,
    }
}

pub(crate) fn hil_key(report: &crate::hil::Report) -> ShardKey<'_> {
    ShardKey {
        command: &report.command,
        shard: report.shard.as_ref().map(|shard| (shard.index, shard.count)),
        games: report.shard.as_ref().map_or(report.games.requested, |shard| shard.games),
        scenario_name: &report.scenario.name,
        scenario_file: &report.scenario.file,
        scenario_sha256: &report.scenario.sha256,
        seed: report.seed,
    }
}

/// What every shard's report says about its place in the sweep.
pub(crate) struct ShardKey<'r> {
    pub command: &'r str,
    /// `--shard I/N`; `None` in a report of a run without it.
    pub shard: Option<(u64, u64)>,
    /// The sweep's games, `0..games`.
    pub games: u64,
    pub scenario_name: &'r str,
    pub scenario_file: &'r str,
    pub scenario_sha256: &'r str,
    pub seed: u64,
}

/// Where the merged report goes without `--out`: where the unsharded run
/// would have put it (`reports/<scenario>-<seed>`, `reports/hil-…` for a
/// HIL sweep).
pub fn default_out_dir(shard: &Path) -> Result<PathBuf, MergeError> {
    let report = load_shard(shard)?;
    let prefix = match report {
        ShardReport::Sim(_) => "",
        ShardReport::Hil(_) => "hil-",
    };
    let key = report.key();
    Ok(PathBuf::from("reports").join(format!("{prefix}{}-{}", key.scenario_name, key.seed)))
}

/// The command of the merged report, read from one shard (`merge` checks
/// that every shard's is the same, but for its scenario's path): the
/// unsharded run's.
pub fn merged_command(shard: &Path) -> Result<String, MergeError> {
    unsharded_command(&gate::report_path(shard), &load_shard(shard)?.key())
}

pub(crate) fn load_shard(dir: &Path) -> Result<ShardReport, MergeError> {
    let path = gate::report_path(dir);
    let report = match gate::load_complete(dir).map_err(|error| MergeError::Input(error.into()))? {
        AnyReport::Sim(report) => ShardReport::Sim(report),
        AnyReport::Hil(report) => ShardReport::Hil(report),
    };
    if report.key().shard.is_none() {
        return Err(input(format!(
            "{} is not a shard (its run had no --shard): merge joins the shards of one sweep",
            path.display()
        )));
    }
    Ok(report)
}

/// Merges the shard reports of `request` into its `out`, reading and
/// folding them one at a time. The first shard says which kind of sweep
/// it is; a shard of the other kind is refused.
pub fn merge(request: &MergeRequest) -> Result<Merged, MergeError> {
    let first = request.shards.first().ok_or_else(|| input("no shard given".into()))?;
    match load_shard(first)? {
        ShardReport::Sim(_) => crate::sim::merge::merge(request),
        ShardReport::Hil(_) => crate::hil::merge::merge(request),
    }
}

/// Merging into a shard's own folder would replace the report being read.
pub(crate) fn refuse_out_as_shard_folder(out: Option<&Path>, shard: &Path) -> Result<(), MergeError> {
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

/// Which shards of one sweep were given, from which files: the shards
/// given twice and the shards missing are named, and the lowest-numbered
/// shard's spelling of the command and scenario path is kept. Holds an
/// index and a path per shard, whatever the shards hold.
pub(crate) struct ShardBook {
    first_path: PathBuf,
    /// The first shard's unsharded command without its `--scenario` word.
    first_command: String,
    first_command_text: String,
    /// The sweep's games and shard count.
    pub total: u64,
    pub count: u64,
    /// Each shard's report file, by index (1-based).
    seen: BTreeMap<u64, PathBuf>,
    /// Shards given again: the index, the file seen first and this one.
    duplicates: Vec<(u64, PathBuf, PathBuf)>,
    /// The lowest-numbered shard's index, unsharded command and scenario
    /// file: the merged report's spelling of them.
    pub lowest: (u64, String, String),
    /// The first path a shard names that holds the scenario's bytes here.
    pub scenario_here: Option<PathBuf>,
}

impl ShardBook {
    pub(crate) fn start(path: &Path, key: &ShardKey) -> Result<ShardBook, MergeError> {
        let command = unsharded_command(path, key)?;
        Ok(ShardBook {
            first_path: path.to_path_buf(),
            first_command: without_scenario_word(&command),
            first_command_text: key.command.to_string(),
            total: key.games,
            count: key.shard.map_or(0, |(_, count)| count),
            seen: BTreeMap::new(),
            duplicates: Vec::new(),
            lowest: (u64::MAX, command, key.scenario_file.to_string()),
            scenario_here: None,
        })
    }

    /// Books one shard, checked to run the first's command: `Ok(true)`
    /// when it is new, `Ok(false)` when its index was given before (it is
    /// named by [`Self::not_the_sweep_once`] and must not be added).
    pub(crate) fn add(&mut self, path: PathBuf, key: &ShardKey) -> Result<bool, MergeError> {
        let command = unsharded_command(&path, key)?;
        if without_scenario_word(&command) != self.first_command {
            return Err(input(format!(
                "{} and {} are not shards of one sweep: their commands differ (`{}` and `{}`)",
                self.first_path.display(),
                path.display(),
                self.first_command_text,
                key.command
            )));
        }
        let index = key.shard.map_or(0, |(index, _)| index);
        if let Some(other) = self.seen.get(&index) {
            self.duplicates.push((index, other.clone(), path));
            return Ok(false);
        }
        let scenario_file = Path::new(key.scenario_file);
        if self.scenario_here.is_none() && holds_scenario(scenario_file, key.scenario_sha256) {
            self.scenario_here = Some(scenario_file.to_path_buf());
        }
        if index < self.lowest.0 {
            self.lowest = (index, command, key.scenario_file.to_string());
        }
        self.seen.insert(index, path);
        Ok(true)
    }

    /// The report file of shard `index`, if it was booked.
    pub(crate) fn path_of(&self, index: u64) -> Option<&Path> {
        self.seen.get(&index).map(PathBuf::as_path)
    }

    pub(crate) fn shards(&self) -> u64 {
        self.seen.len() as u64
    }

    /// The shards not given, by index.
    pub(crate) fn missing(&self) -> Vec<u64> {
        (1..=self.count).filter(|index| !self.seen.contains_key(index)).collect()
    }

    /// Why the shards given are not the whole sweep once each, if they are
    /// not: every shard given twice and every shard missing, named.
    pub(crate) fn not_the_sweep_once(&self, partial: bool) -> Option<String> {
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

    /// `shards missing: 2/4, 3/4` when some are, for a report marked
    /// incomplete.
    pub(crate) fn incomplete_because(&self) -> Option<String> {
        let missing = self.missing();
        (!missing.is_empty()).then(|| {
            let names: Vec<String> = missing.iter().map(|index| format!("{index}/{}", self.count)).collect();
            format!("shards missing: {}", names.join(", "))
        })
    }
}

/// Refuses two shards that differ in `what`: `x` and `y` as the message
/// names them.
pub(crate) fn same(a: &Path, b: &Path, what: &str, x: String, y: String) -> Result<(), MergeError> {
    if x == y {
        return Ok(());
    }
    Err(input(format!(
        "{} and {} are not shards of one sweep: different {what} ({x} and {y})",
        a.display(),
        b.display()
    )))
}

/// The shard's command without its `--shard I/N`: the unsharded run's.
fn unsharded_command(path: &Path, key: &ShardKey) -> Result<String, MergeError> {
    let Some((index, count)) = key.shard else {
        return Err(input(format!("{} is not a shard", path.display())));
    };
    let flag = format!(" --shard {index}/{count}");
    if key.command.matches(flag.as_str()).count() != 1 {
        return Err(input(format!(
            "{}: its command `{}` does not name its shard {index}/{count} once",
            path.display(),
            key.command,
        )));
    }
    Ok(key.command.replacen(flag.as_str(), "", 1))
}

/// Where the `--scenario` word of a bench command is (`bench sim
/// --scenario WORD …`), written as a shell word: bare, or in single quotes
/// with `'\''` for a quote.
pub(crate) fn scenario_word(command: &str) -> Option<Range<usize>> {
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

/// The scenario the shards ran: its name and the SHA-256 of its bytes,
/// the paths the shards name (`named`: the lowest-numbered shard's;
/// `first_file`: the first shard's; `here`: the first that holds it
/// here), and `--max-moves`.
pub(crate) struct ScenarioWanted<'a> {
    pub name: &'a str,
    pub sha256: &'a str,
    pub named: &'a str,
    pub first_file: &'a str,
    pub here: Option<&'a Path>,
    pub max_moves: Option<u32>,
}

/// The scenario the shards ran, read again from the first file whose
/// SHA-256 is theirs, with `--max-moves` applied: `--scenario PATH` alone
/// when given, else the paths the shards name, then the scenario
/// directories' file of its name.
pub(crate) fn scenario_of(wanted: &ScenarioWanted, source: &ScenarioSource) -> Result<(Scenario, String), MergeError> {
    let mut candidates: Vec<PathBuf> = match source.given {
        Some(given) => vec![given.to_path_buf()],
        None => [PathBuf::from(wanted.named), PathBuf::from(wanted.first_file)]
            .into_iter()
            .chain(wanted.here.map(Path::to_path_buf))
            .chain((source.by_name)(wanted.name))
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
        if sha256 != wanted.sha256 {
            tried.push(format!(
                "the scenario file {} has changed since the shards ran (sha256 {sha256}, the shards ran {})",
                path.display(),
                wanted.sha256
            ));
            continue;
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| input(format!("the scenario file {} is not UTF-8", path.display())))?;
        // Parsed under the name the reports give, so the scenario's name is theirs.
        let mut scenario = Scenario::parse(&text, Path::new(wanted.named)).map_err(|error| input(error.to_string()))?;
        if let Some(max_moves) = wanted.max_moves {
            scenario.board.max_moves = max_moves;
        }
        return Ok((scenario, sha256));
    }
    Err(input(format!(
        "{}: merge needs the file the shards ran (the same bytes, from any folder): give it with --scenario",
        tried.join("; ")
    )))
}

/// Whether `path` holds the bytes whose SHA-256 is `sha256`.
fn holds_scenario(path: &Path, sha256: &str) -> bool {
    std::fs::read(path).is_ok_and(|bytes| sha256_hex(&bytes) == sha256)
}

#[cfg(test)]
mod tests {
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
}
