//! `report.json`, schema `bench.sim.report/1` (documented for users in
//! `reports/README.md`; this module is its single definition).
//!
//! Deterministic by construction: the document is serde structs (keys in
//! declaration order) and `BTreeMap`s (keys sorted), holds integers and
//! strings only, and nothing that varies between runs of the same inputs
//! (wall time, date, host, thread count: those are in `run.json`).

use std::collections::BTreeMap;

use bench_sim::defects::DefectCounts;
use bench_sim::run::{EnvelopeBucket, Summary, FAILURES_KEPT};
use bench_sim::scenario::Scenario;
use serde::{Deserialize, Serialize};

use super::{Folder, SimReportInput};
use crate::check::CheckInfo;
use crate::files::{Content, Written};
use crate::format::json::to_bytes;

/// The schema's name and major version. A change that can break a reader
/// (a field removed, renamed or retyped) bumps the number; adding a field
/// does not.
pub const SCHEMA: &str = "bench.sim.report/1";
/// The schema of `run.json`.
pub const RUN_SCHEMA: &str = "bench.sim.run/1";

/// The name of the check that the whole slice of games was played.
pub const COMPLETE_CHECK: &str = "all games of the run played";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub bench_version: String,
    /// False when the run was interrupted: the numbers cover the games
    /// played so far only, and the verdict is `fail`.
    pub complete: bool,
    /// `pass` when every check passed, else `fail`.
    pub verdict: String,
    /// The command that reproduces this report: `bench sim` with every
    /// option that changes results, none that does not (`--jobs`, `--out`).
    pub command: String,
    pub scenario: ScenarioInfo,
    pub seed: u64,
    pub games: Games,
    pub shard: Option<Shard>,
    pub swarm: bool,
    /// The other options that change results.
    pub options: Options,
    pub checks: Vec<CheckInfo>,
    pub expected_classes: Vec<ExpectedClass>,
    pub results: Results,
    /// Games in which each article was applied on the device.
    pub articles: BTreeMap<String, u64>,
    /// Rule coverage: every transition of the clock model, how often the
    /// games went through it. Absent in reports written before it existed.
    #[serde(default)]
    pub coverage: Vec<crate::coverage::Entry>,
    /// Oracle coverage: how much of the run the independent model checked.
    /// Absent in reports written before it existed.
    #[serde(default)]
    pub oracle_coverage: OracleCoverage,
    pub outcomes: Outcomes,
    pub agreement: Agreement,
    pub max_time_error_us: u64,
    /// The device time base's rate error, parts per billion (null: no
    /// sample late enough in a game to measure it).
    pub drift_ppb: Option<Range>,
    pub games_with_violations: u64,
    /// Games that failed for any reason; `failures` lists the first few.
    pub games_failed: u64,
    /// Games whose two plays differed (only counted with
    /// `--check-determinism`; 0 otherwise).
    pub nondeterministic_games: u64,
    /// At most `failures_kept_max` failing games, the lowest-numbered.
    pub failures: Vec<Failure>,
    pub failures_kept_max: u64,
    #[serde(with = "defects")]
    pub defects: DefectCounts,
    pub presses: u64,
    pub events: u64,
    /// Legal-move mode's full 6.10 searches, and those that gave up and
    /// were ruled "can mate". Zeros in reports written before bench
    /// counted them.
    #[serde(default)]
    pub mate_searches: MateSearchCounts,
    /// The order-independent hash of every game's trace, 16 hex digits:
    /// equal hashes, equal games.
    pub run_hash: String,
    pub drift_envelope: DriftEnvelope,
    /// The other files of this report and their SHA-256: which files in
    /// the folder belong to this `report.json`.
    pub files: BTreeMap<String, String>,
}

/// The ideal clock's calls and the games on a chess clock, and how many of
/// each the independent model checked (a game: every one of its calls).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OracleCoverage {
    pub calls: u64,
    pub calls_checked: u64,
    pub games: u64,
    pub games_checked: u64,
}

impl OracleCoverage {
    /// The summary's sentence. A share shows 100 % only when nothing was
    /// left unchecked (it rounds down).
    pub fn sentence(&self) -> String {
        if self.games == 0 {
            return "No game ran on a chess clock: the independent model, a model of the chess clock, had \
                    nothing to check."
                .into();
        }
        format!(
            "The independent model checked {} of the ideal clock's {} calls ({} %) and every call of {} of {} \
             games ({} %).",
            self.calls_checked,
            self.calls,
            share_rounded_down(self.calls_checked, self.calls),
            self.games_checked,
            self.games,
            share_rounded_down(self.games_checked, self.games),
        )
    }
}

/// `part` of `whole` in percent with one decimal, rounded down.
fn share_rounded_down(part: u64, whole: u64) -> String {
    let permille = u128::from(part) * 1_000 / u128::from(whole.max(1));
    format!("{}.{}", permille / 10, permille % 10)
}

impl From<bench_sim::oracle::OracleCoverage> for OracleCoverage {
    fn from(run: bench_sim::oracle::OracleCoverage) -> OracleCoverage {
        let bench_sim::oracle::OracleCoverage { calls, calls_checked, games, games_checked } = run;
        OracleCoverage { calls, calls_checked, games, games_checked }
    }
}

impl From<OracleCoverage> for bench_sim::oracle::OracleCoverage {
    fn from(report: OracleCoverage) -> bench_sim::oracle::OracleCoverage {
        let OracleCoverage { calls, calls_checked, games, games_checked } = report;
        bench_sim::oracle::OracleCoverage { calls, calls_checked, games, games_checked }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioInfo {
    pub name: String,
    /// As given on the command line.
    pub file: String,
    /// Of the file's bytes, hex.
    pub sha256: String,
    pub description: String,
    pub control: String,
    pub rules: String,
}

/// The games this run was asked to play (`start..end`), how many it did,
/// and how many the whole sweep has (`--games`; a shard plays a slice).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Games {
    pub start: u64,
    pub end: u64,
    pub played: u64,
    pub total: u64,
}

/// The options of `bench sim` that change results, besides the seed, the
/// games and `--swarm`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// `--check-determinism`: every game played twice, and a check more.
    pub check_determinism: bool,
    /// False with `--no-model-oracle` (the independent model, once a tick
    /// model: the field keeps its first name so reports stay comparable).
    pub tick_oracle: bool,
    /// `--max-moves N`: the scenario's move bound, overridden.
    pub max_moves: Option<u32>,
    /// `--disable LIST`: the defects switched off, by name (empty: none).
    /// Absent in reports written before the field existed.
    #[serde(default)]
    pub disabled: Vec<String>,
}

/// Smallest and largest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    pub min: i64,
    pub max: i64,
}

/// `--shard INDEX/COUNT`, 1-based.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

/// An `[[expect.result]]` of the scenario and the games in its class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedClass {
    pub class: String,
    pub min_percent: u64,
    pub max_percent: u64,
    pub games: u64,
}

/// Games by result class, on the simulated device and on the ideal clock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Results {
    pub device: BTreeMap<String, u64>,
    pub ideal: BTreeMap<String, u64>,
}

/// `mate_searches`: full 6.10 searches ("can the flagged player's
/// opponent still mate?") run on a real position, and those that reached
/// chasolver's node bounds undecided (ruled "can mate", the conservative
/// reading).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MateSearchCounts {
    pub searched: u64,
    pub gave_up: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcomes {
    pub white: u64,
    pub black: u64,
    pub draw: u64,
}

/// Games whose device result equals the ideal clock's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agreement {
    pub agreeing: u64,
    pub games: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub game: u64,
    pub reasons: Vec<String>,
    /// The one command that replays this game with a trace.
    pub replay: String,
    /// Its replay file in the report folder ([`crate::replays`]); `null`
    /// for a correspondence game, which has none.
    pub replay_file: Option<String>,
}

/// `defects` in the document: the simulator's own counts, summed over the
/// games, one field per [`Struck`] kind in its order, under its key. The
/// simulator's list is the report's: a kind it gains is written, and a
/// report without it is refused when read back.
mod defects {
    use std::fmt;

    use bench_sim::defects::{DefectCounts, Struck};
    use serde::de::{self, IgnoredAny, MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(counts: &DefectCounts, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(Struck::ALL.len()))?;
        for (kind, count) in counts.iter() {
            map.serialize_entry(kind.key(), &count)?;
        }
        map.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DefectCounts, D::Error> {
        deserializer.deserialize_map(Counts)
    }

    struct Counts;

    impl<'de> Visitor<'de> for Counts {
        type Value = DefectCounts;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the count of each defect and arbiter intervention")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DefectCounts, A::Error> {
            let mut counts = DefectCounts::default();
            let mut seen = [false; Struck::ALL.len()];
            while let Some(key) = map.next_key::<String>()? {
                match Struck::ALL.iter().position(|kind| kind.key() == key) {
                    Some(index) => {
                        counts.set(Struck::ALL[index], map.next_value()?);
                        seen[index] = true;
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            match Struck::ALL.iter().zip(seen).find(|(_, seen)| !seen) {
                Some((kind, _)) => Err(de::Error::missing_field(kind.key())),
                None => Ok(counts),
            }
        }
    }
}

/// Extremes across games, per bucket of true game time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftEnvelope {
    pub bucket_us: u64,
    /// Buckets in the simulator's envelope; the last one holds every sample
    /// at or after its start (its `end_us` is null).
    pub buckets_total: u64,
    /// Buckets without samples are left out.
    pub buckets: Vec<Bucket>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    pub index: u64,
    pub start_us: u64,
    /// Null for the last, open-ended bucket.
    pub end_us: Option<u64>,
    pub samples: u64,
    /// Device time minus true time.
    pub offset_min_us: i64,
    pub offset_max_us: i64,
    /// Device display minus ideal display, per side.
    pub error_min_us: PerSide,
    pub error_max_us: PerSide,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerSide {
    pub white: i64,
    pub black: i64,
}

/// `run.json`: the facts of one run that are not a function of its inputs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    pub schema: String,
    pub bench_version: String,
    pub git_commit: Option<String>,
    pub host: String,
    pub jobs: u64,
    pub started_unix_s: u64,
    pub wall_ms: u64,
}

/// The report of `input`, without `files` (filled in once they are written).
pub fn build(input: &SimReportInput) -> Report {
    let summary = input.summary;
    let scenario = input.scenario;
    let checks = checks(input);
    let verdict = if checks.iter().all(|check| check.passed) { "pass" } else { "fail" };
    let expected_classes = expected_classes(scenario, summary);
    let [white, black, draw] = summary.outcomes;
    Report {
        schema: SCHEMA.into(),
        bench_version: env!("CARGO_PKG_VERSION").into(),
        complete: input.complete,
        verdict: verdict.into(),
        command: input.command_line.clone(),
        scenario: ScenarioInfo {
            name: scenario.name.clone(),
            file: input.scenario_file.display().to_string(),
            sha256: input.scenario_sha256.clone(),
            description: scenario.description.clone(),
            control: scenario.control.text.clone(),
            rules: scenario.rules.0.name.into(),
        },
        seed: input.seed,
        games: Games {
            start: input.games.start,
            end: input.games.end,
            played: summary.games,
            total: input.games_total,
        },
        shard: input.shard.map(|(index, count)| Shard { index, count }),
        swarm: input.swarm,
        options: input.options.clone(),
        checks,
        expected_classes,
        results: Results { device: summary.results.clone(), ideal: summary.ideal_results.clone() },
        articles: summary.articles.clone(),
        coverage: crate::coverage::entries(&summary.coverage),
        oracle_coverage: summary.oracle_coverage.into(),
        outcomes: Outcomes { white, black, draw },
        agreement: Agreement { agreeing: summary.agreeing, games: summary.games },
        max_time_error_us: summary.max_time_error_us,
        drift_ppb: summary.drift_ppb.map(|(min, max)| Range { min, max }),
        games_with_violations: summary.games_with_violations,
        games_failed: summary.games_failed,
        nondeterministic_games: summary.nondeterministic_games,
        failures: summary
            .failures
            .iter()
            .map(|failure| Failure {
                game: failure.game,
                reasons: failure.reasons.clone(),
                replay: (input.replay_command)(failure.game),
                replay_file: input
                    .replays
                    .iter()
                    .any(|replay| replay.game == failure.game)
                    .then(|| crate::replays::path_in_report(failure.game)),
            })
            .collect(),
        failures_kept_max: FAILURES_KEPT as u64,
        defects: summary.defects,
        presses: summary.presses,
        events: summary.events,
        mate_searches: MateSearchCounts {
            searched: summary.mate_searches.searched,
            gave_up: summary.mate_searches.gave_up,
        },
        run_hash: format!("{:016x}", summary.run_hash),
        drift_envelope: envelope(summary),
        files: BTreeMap::new(),
    }
}

/// The run's checks, then whether every planned game was played.
fn checks(input: &SimReportInput) -> Vec<CheckInfo> {
    let summary = input.summary;
    let planned = input.games.end.saturating_sub(input.games.start);
    let mut checks: Vec<CheckInfo> = input
        .checks
        .iter()
        .map(|check| CheckInfo {
            name: check.name.clone(),
            passed: check.passed,
            measured: check.measured.clone(),
            expected: check.expected.clone(),
        })
        .collect();
    checks.push(CheckInfo {
        name: COMPLETE_CHECK.into(),
        passed: input.complete && summary.games == planned,
        measured: format!("{} of {planned} games{}", summary.games, incomplete_note(input)),
        expected: format!("{planned} games"),
    });
    checks
}

/// What the completeness check says after the games played: nothing for
/// a complete run, else why it is not.
fn incomplete_note(input: &SimReportInput) -> String {
    match (&input.incomplete_because, input.complete) {
        (_, true) => String::new(),
        (Some(because), false) => format!(" ({because})"),
        (None, false) => " (interrupted)".into(),
    }
}

/// Each `[[expect.result]]` class with its range and the games counted in it.
fn expected_classes(scenario: &Scenario, summary: &Summary) -> Vec<ExpectedClass> {
    scenario
        .expect
        .result
        .iter()
        .enumerate()
        .map(|(index, share)| ExpectedClass {
            class: share.class.clone(),
            min_percent: share.min_percent,
            max_percent: share.max_percent,
            games: summary.expected_classes.get(index).copied().unwrap_or(0),
        })
        .collect()
}

fn envelope(summary: &Summary) -> DriftEnvelope {
    let bucket_us = summary.envelope_bucket_us;
    let last = summary.envelope.len().saturating_sub(1);
    let buckets = summary
        .envelope
        .iter()
        .enumerate()
        .filter(|(_, bucket)| bucket.samples > 0)
        .map(|(index, bucket)| to_bucket(index, index == last, bucket_us, bucket))
        .collect();
    DriftEnvelope { bucket_us, buckets_total: summary.envelope.len() as u64, buckets }
}

fn to_bucket(index: usize, last: bool, bucket_us: u64, bucket: &EnvelopeBucket) -> Bucket {
    let index = index as u64;
    let start_us = index.saturating_mul(bucket_us);
    Bucket {
        index,
        start_us,
        end_us: (!last).then(|| start_us.saturating_add(bucket_us)),
        samples: bucket.samples,
        offset_min_us: bucket.offset_min_us,
        offset_max_us: bucket.offset_max_us,
        error_min_us: PerSide { white: bucket.error_min_us[0], black: bucket.error_min_us[1] },
        error_max_us: PerSide { white: bucket.error_max_us[0], black: bucket.error_max_us[1] },
    }
}

/// `report.json`: the report, naming every file written before it with
/// its SHA-256.
pub fn render_file<'s>(folder: &'s Folder, written: &Written) -> anyhow::Result<Content<'s>> {
    let mut report = folder.report.clone();
    report.files = written.hashes();
    let bytes = to_bytes(&report)?;
    // Under this crate's `cargo test`, every report a test writes is checked
    // against its JSON Schema (reports/schema/).
    #[cfg(test)]
    crate::schema::assert_valid(&bytes);
    Ok(Content::Bytes(bytes))
}

#[cfg(test)]
mod tests {
    use bench_sim::defects::{DefectCounts, Struck};
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    struct Holder {
        #[serde(with = "super::defects")]
        defects: DefectCounts,
    }

    /// Every kind under its key, in the simulator's order; a report that
    /// lacks one is refused naming it, and counts come back as written.
    #[test]
    fn defects_are_written_kind_by_kind_and_read_back_whole() {
        let mut defects = DefectCounts::default();
        for (count, kind) in (1..).zip(Struck::ALL) {
            defects.set(kind, count);
        }
        let text = serde_json::to_string(&Holder { defects }).expect("serialises");
        let keys: Vec<String> =
            Struck::ALL.iter().zip(1..).map(|(kind, count)| format!("\"{}\":{count}", kind.key())).collect();
        assert_eq!(text, format!("{{\"defects\":{{{}}}}}", keys.join(",")));
        let back: Holder = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back.defects, defects);
        let without = text.replace("\"bounces\":3,", "");
        let error = serde_json::from_str::<Holder>(&without).err().expect("a missing count is refused");
        assert!(error.to_string().contains("missing field `bounces`"), "{error}");
    }
}
