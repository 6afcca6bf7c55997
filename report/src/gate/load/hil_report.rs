//! What a whole hardware-in-the-loop report (`bench.hil.report/1`) always
//! satisfies: its games add up, no count is larger than what it counts
//! from, every total is the sum of what it totals, its measurements are a
//! board's, and each check and game verdict is what its numbers give.

use std::collections::{BTreeMap, BTreeSet};

use bench_hil::schedule::GameSlice;

use bench_sim::coverage::EXERCISES_CHECK;

use super::{at_most, drift_ppm, impossible, non_negative, sum, Problem};
use crate::hil::{
    self, DriftInfo, LatencyInfo, Report, ACKS_CHECK, COMPLETE_CHECK, DRIFT_CHECK, MATCH_CHECK, MISMATCHES_LISTED,
};

/// Whether the field at `path` may be negative: a drift or a bound of its
/// interval (`ppm`, `ci_low_ppm`, `accounting_drift_ppm`, …); that
/// `ci_half_ppm` and `tolerance_ppm` are not is checked by name.
pub(super) fn signed(path: &str) -> bool {
    let key = path.rsplit('.').next().unwrap_or(path);
    key == "ppm" || key.ends_with("_ppm")
}

/// What a whole hardware-in-the-loop report always satisfies.
pub(super) fn check(report: &Report) -> Result<(), Problem> {
    let all_passed = report.checks.iter().all(|check| check.passed);
    let expected = if report.complete && all_passed { "pass" } else { "fail" };
    if report.verdict != expected {
        return Err(Problem::Inconsistent(format!(
            "verdict `{}` but the checks and completeness say `{expected}`",
            report.verdict
        )));
    }
    games(report)?;
    game_numbers(report)?;
    mismatches(report)?;
    records_and_presses(report)?;
    drifts(report)?;
    latencies(report)?;
    checks(report)?;
    game_verdicts(report)?;
    super::coverage(&report.coverage, report.games.played)?;
    if !report.drift.measured && report.drift.ppm.is_some() {
        return Err(Problem::Inconsistent("drift: not measured, yet a `ppm`".into()));
    }
    at_most("drift.used", report.drift.used, report.drift.samples, "drift.samples")?;
    for (index, board) in report.boards.iter().enumerate() {
        if let Some(oscillator) = &board.oscillator {
            let field = format!("boards[{index}].oscillator.used");
            at_most(&field, oscillator.used, oscillator.samples, &format!("boards[{index}].oscillator.samples"))?;
        }
    }
    histogram(report)
}

/// Games requested, played, complete and passed, and each game's entry.
fn games(report: &Report) -> Result<(), Problem> {
    let games = &report.games;
    at_most("games.played", games.played, games.requested, "games.requested")?;
    at_most("games.complete", games.complete, games.played, "games.played")?;
    at_most("games.passed", games.passed, games.complete, "games.complete")?;
    let detailed = u64::try_from(report.games_detail.len()).unwrap_or(u64::MAX);
    if detailed != games.played {
        return Err(Problem::Inconsistent(format!("{} games played, {detailed} in games_detail", games.played)));
    }
    let detail = |predicate: fn(&hil::GameInfo) -> bool| {
        u64::try_from(report.games_detail.iter().filter(|game| predicate(game)).count()).unwrap_or(u64::MAX)
    };
    if detail(|game| game.complete) != games.complete || detail(|game| game.passed) != games.passed {
        return Err(Problem::Inconsistent("games.complete or games.passed differ from games_detail".into()));
    }
    if report.complete && games.requested == 0 {
        return Err(Problem::Inconsistent("complete, yet a run of no games".into()));
    }
    if report.complete && (games.played != games.requested || games.complete != games.played) {
        return Err(Problem::Inconsistent(format!(
            "complete, yet {} of {} games played to their end",
            games.complete, games.requested
        )));
    }
    Ok(())
}

/// The games played are games of the run (`0..games.requested`, or a
/// shard's share of its sweep's games), each once, in order; the boards
/// played them, each on one board.
fn game_numbers(report: &Report) -> Result<(), Problem> {
    let requested = report.games.requested;
    let (slice, run) = match &report.shard {
        None => (GameSlice::all(requested), format!("0..{requested}")),
        Some(shard) => {
            if shard.index == 0 || shard.index > shard.count {
                return Err(impossible("shard.index", format!("is {} of {}", shard.index, shard.count)));
            }
            let slice = GameSlice::all(shard.games).part(shard.index - 1, shard.count);
            if slice.len() != requested {
                return Err(Problem::Inconsistent(format!(
                    "shard {}/{} of {} games has {} games, yet games.requested is {requested}",
                    shard.index,
                    shard.count,
                    shard.games,
                    slice.len()
                )));
            }
            let run = format!("games g of 0..{} with g mod {} = {}", shard.games, shard.count, shard.index - 1);
            (slice, run)
        }
    };
    let mut previous: Option<u64> = None;
    for (index, game) in report.games_detail.iter().enumerate() {
        let field = format!("games_detail[{index}].game");
        let in_slice = game.game >= slice.first && game.game < slice.end && (game.game - slice.first) % slice.step == 0;
        if !in_slice {
            return Err(impossible(field, format!("is {}, not a game of the run ({run})", game.game)));
        }
        if previous.is_some_and(|previous| previous >= game.game) {
            return Err(impossible(field, format!("is {}, after a later game or again", game.game)));
        }
        previous = Some(game.game);
    }
    let played: BTreeSet<u64> = report.games_detail.iter().map(|game| game.game).collect();
    let mut on_a_board = BTreeSet::new();
    for (index, board) in report.boards.iter().enumerate() {
        for game in &board.games {
            let field = format!("boards[{index}].games");
            if !played.contains(game) {
                return Err(impossible(field, format!("lists game {game}, which is not in games_detail (not played)")));
            }
            if !on_a_board.insert(*game) {
                return Err(impossible(field, format!("lists game {game}, which another board or this one played")));
            }
        }
    }
    if !report.boards.is_empty() && on_a_board != played {
        let missing: Vec<String> = played.difference(&on_a_board).map(u64::to_string).collect();
        return Err(Problem::Inconsistent(format!(
            "games_detail has games no board in boards lists ({})",
            missing.join(", ")
        )));
    }
    Ok(())
}

/// Each game's mismatches add up by quantity, and the report's are the
/// games' added up; a game lists no more of them than it has.
fn mismatches(report: &Report) -> Result<(), Problem> {
    let mut by_quantity: BTreeMap<String, u64> = BTreeMap::new();
    for (index, game) in report.games_detail.iter().enumerate() {
        let field = |key: &str| format!("games_detail[{index}].{key}");
        let total = sum(&field("mismatches_by_quantity"), game.mismatches_by_quantity.values().copied())?;
        if total != game.mismatches_total {
            return Err(Problem::Inconsistent(format!(
                "{} is {}, its mismatches_by_quantity add up to {total}",
                field("mismatches_total"),
                game.mismatches_total
            )));
        }
        let listed = u64::try_from(game.mismatches.len()).unwrap_or(u64::MAX);
        let listable = game.mismatches_total.min(MISMATCHES_LISTED as u64);
        if listed > listable {
            return Err(impossible(
                field("mismatches"),
                format!("lists {listed}, more than the {listable} its mismatches_total and the cap allow"),
            ));
        }
        let firsts = u64::try_from(game.first_of_each.len()).unwrap_or(u64::MAX);
        let quantities = u64::try_from(game.mismatches_by_quantity.len()).unwrap_or(u64::MAX);
        if firsts > quantities {
            return Err(impossible(
                field("first_of_each"),
                format!("lists {firsts}, more than the {quantities} quantities that differ"),
            ));
        }
        for (quantity, count) in &game.mismatches_by_quantity {
            let entry = by_quantity.entry(quantity.clone()).or_insert(0);
            *entry = sum("mismatches.by_quantity", [*entry, *count])?;
        }
    }
    let per_game = sum("mismatches.total", report.games_detail.iter().map(|game| game.mismatches_total))?;
    if report.mismatches.total != per_game || report.mismatches.by_quantity != by_quantity {
        return Err(Problem::Inconsistent(format!(
            "mismatches.total {} and by_quantity {:?}, but the games have {per_game}, by quantity {by_quantity:?}",
            report.mismatches.total, report.mismatches.by_quantity
        )));
    }
    largest_differences(report)
}

/// The report's largest difference of each quantity is its games' largest.
fn largest_differences(report: &Report) -> Result<(), Problem> {
    let mut largest: BTreeMap<String, u64> = BTreeMap::new();
    for (key, us) in report.games_detail.iter().flat_map(|game| &game.largest_difference_us) {
        let entry = largest.entry(key.clone()).or_insert(0);
        *entry = (*entry).max(*us);
    }
    if report.mismatches.largest_difference_us != largest {
        return Err(Problem::Inconsistent(format!(
            "mismatches.largest_difference_us {:?}, but the games' largest are {largest:?}",
            report.mismatches.largest_difference_us
        )));
    }
    Ok(())
}

/// Records and registered presses: the report's totals are its games'.
fn records_and_presses(report: &Report) -> Result<(), Problem> {
    let detail = &report.games_detail;
    let records = sum("records.total", detail.iter().map(|game| game.records))?;
    let lost = sum("records.lost", detail.iter().map(|game| game.records_lost))?;
    if (records, lost) != (report.records.total, report.records.lost) {
        return Err(Problem::Inconsistent(format!(
            "records: {} read and {} lost, but the games have {records} and {lost}",
            report.records.total, report.records.lost
        )));
    }
    // Every Press record has a latency, in its game's and in the report's;
    // an observed firmware's presses have none (it stamps nothing).
    if report.observed.is_some() {
        return match report.latency {
            None => Ok(()),
            Some(_) => Err(Problem::Inconsistent("an observed firmware's report with a press latency".into())),
        };
    }
    for (index, game) in detail.iter().enumerate() {
        let latencies = game.latency.map_or(0, |latency| latency.count);
        if latencies != game.presses_registered {
            return Err(Problem::Inconsistent(format!(
                "games_detail[{index}]: {} presses registered, {latencies} latencies",
                game.presses_registered
            )));
        }
    }
    let registered = sum("latency.count", detail.iter().map(|game| game.presses_registered))?;
    let latencies = report.latency.map_or(0, |latency| latency.count);
    if latencies != registered {
        return Err(Problem::Inconsistent(format!(
            "latency.count is {latencies}, the games registered {registered} presses"
        )));
    }
    Ok(())
}

/// Empty in a report from before the histogram; else every fixed bin,
/// holding every press the percentiles count.
fn histogram(report: &Report) -> Result<(), Problem> {
    if report.latency_histogram.is_empty() {
        return Ok(());
    }
    let edges: Vec<u64> = report.latency_histogram.iter().map(|bin| bin.from_us).collect();
    if edges != bench_hil::judge::latency::LATENCY_BIN_EDGES_US {
        return Err(Problem::Inconsistent(format!(
            "latency_histogram: bins from {edges:?} µs, not bench's {:?}",
            bench_hil::judge::latency::LATENCY_BIN_EDGES_US
        )));
    }
    let binned = sum("latency_histogram", report.latency_histogram.iter().map(|bin| bin.presses))?;
    let presses = report.latency.map_or(0, |latency| latency.count);
    if binned != presses {
        return Err(Problem::Inconsistent(format!(
            "latency_histogram holds {binned} presses, latency.count {presses}"
        )));
    }
    Ok(())
}

/// A fitted drift's numbers, as both fits (accounting, oscillator) have them.
struct FitNumbers<'a> {
    /// Where it is: `drift`, `boards[0].oscillator`.
    at: String,
    ppm: Option<f64>,
    ci_low_ppm: Option<f64>,
    ci_high_ppm: Option<f64>,
    confidence: Option<f64>,
    /// Widths, deviations, spans and margins: 0 or more by nature.
    non_negative: Vec<(&'a str, Option<f64>)>,
}

impl FitNumbers<'_> {
    fn check(&self) -> Result<(), Problem> {
        let field = |key: &str| format!("{}.{key}", self.at);
        let bounds = [("ppm", self.ppm), ("ci_low_ppm", self.ci_low_ppm), ("ci_high_ppm", self.ci_high_ppm)];
        for (key, value) in bounds {
            // An interval may be wide (few samples), but its bounds are numbers.
            if let Some(value) = value.filter(|value| key == "ppm" || !value.is_finite()) {
                drift_ppm(&field(key), value)?;
            }
        }
        for (key, value) in &self.non_negative {
            if let Some(value) = value {
                non_negative(&field(key), *value)?;
            }
        }
        if let Some(confidence) = self.confidence.filter(|confidence| !(*confidence > 0.0 && *confidence < 1.0)) {
            return Err(impossible(field("confidence"), format!("is {confidence}, not a probability between 0 and 1")));
        }
        if let (Some(low), Some(ppm), Some(high)) = (self.ci_low_ppm, self.ppm, self.ci_high_ppm) {
            if !(low <= ppm && ppm <= high) {
                return Err(impossible(field("ppm"), format!("is {ppm}, outside its own interval {low} to {high}")));
            }
        }
        Ok(())
    }
}

/// The accounting drift, each board's, and each board's oscillator.
fn drifts(report: &Report) -> Result<(), Problem> {
    let drift = &report.drift;
    FitNumbers {
        at: "drift".into(),
        ppm: drift.ppm,
        ci_low_ppm: drift.ci_low_ppm,
        ci_high_ppm: drift.ci_high_ppm,
        confidence: drift.confidence,
        non_negative: vec![
            ("ci_half_ppm", drift.ci_half_ppm),
            ("residual_sd_us", drift.residual_sd_us),
            ("residual_max_us", drift.residual_max_us),
            ("span_s", drift.span_s),
            ("tolerance_ppm", Some(drift.tolerance_ppm)),
        ],
    }
    .check()?;
    for (index, board) in report.boards.iter().enumerate() {
        if let Some(ppm) = board.accounting_drift_ppm {
            drift_ppm(&format!("boards[{index}].accounting_drift_ppm"), ppm)?;
        }
        let Some(oscillator) = &board.oscillator else { continue };
        let at = format!("boards[{index}].oscillator");
        if let Some(round_trip) = &oscillator.round_trip {
            percentiles(&format!("{at}.round_trip"), round_trip)?;
        }
        FitNumbers {
            at,
            ppm: oscillator.ppm,
            ci_low_ppm: oscillator.ci_low_ppm,
            ci_high_ppm: oscillator.ci_high_ppm,
            confidence: oscillator.confidence,
            non_negative: vec![
                ("ci_half_ppm", oscillator.ci_half_ppm),
                ("residual_sd_us", oscillator.residual_sd_us),
                ("span_s", oscillator.span_s),
                ("round_trip_margin_us", oscillator.round_trip_margin_us),
            ],
        }
        .check()?;
    }
    Ok(())
}

/// Every set of latency percentiles: of some press, and in order.
fn latencies(report: &Report) -> Result<(), Problem> {
    if let Some(latency) = &report.latency {
        percentiles("latency", latency)?;
    }
    for (index, game) in report.games_detail.iter().enumerate() {
        if let Some(latency) = &game.latency {
            percentiles(&format!("games_detail[{index}].latency"), latency)?;
        }
    }
    if let Some(board) = &report.board_latency {
        percentiles("board_latency.latency", &board.latency)?;
        percentiles("board_latency.bracket", &board.bracket)?;
    }
    Ok(())
}

/// `min <= p50 <= p90 <= p99 <= max`, of at least one value.
fn percentiles(at: &str, latency: &LatencyInfo) -> Result<(), Problem> {
    if latency.count == 0 {
        return Err(impossible(format!("{at}.count"), "is 0, yet there are percentiles"));
    }
    let ranks = [
        ("min_us", latency.min_us),
        ("p50_us", latency.p50_us),
        ("p90_us", latency.p90_us),
        ("p99_us", latency.p99_us),
        ("max_us", latency.max_us),
    ];
    for ((low_key, low), (high_key, high)) in ranks.iter().zip(ranks.iter().skip(1)) {
        if low > high {
            return Err(impossible(
                format!("{at}.{low_key}"),
                format!("is {low} µs, above {at}.{high_key} ({high} µs): percentiles are in order"),
            ));
        }
    }
    Ok(())
}

/// Every check agrees with the numbers it summarises, judged again as
/// `report::hil::build` judges; each of the three is there, once.
fn checks(report: &Report) -> Result<(), Problem> {
    let detail = &report.games_detail;
    let compared = detail.iter().filter(|game| game.model.is_some()).count();
    let mut names = BTreeSet::new();
    for check in &report.checks {
        if !names.insert(check.name.as_str()) {
            return Err(Problem::Inconsistent(format!("check `{}` is there twice", check.name)));
        }
        let judged = match check.name.as_str() {
            COMPLETE_CHECK => report.complete,
            MATCH_CHECK => report.mismatches.total == 0 && compared > 0 && compared == detail.len(),
            DRIFT_CHECK => report.drift.within_tolerance,
            EXERCISES_CHECK => super::exercises_judged(check, &report.coverage),
            ACKS_CHECK => report.contract_acks.as_ref().is_some_and(|lines| lines.iter().all(|line| !line.wrong)),
            name => return Err(Problem::Inconsistent(format!("check `{name}` is not one a HIL run makes"))),
        };
        if judged != check.passed {
            return Err(super::contradicted(&check.name, check.passed));
        }
    }
    // An observed firmware sends no TimeBase records: it has no drift
    // check, and a report that has one is not an observed run's.
    let drift_checked = report.observed.is_none();
    if !drift_checked && names.contains(DRIFT_CHECK) {
        return Err(Problem::Inconsistent(format!("an observed firmware's report with a check `{DRIFT_CHECK}`")));
    }
    let required = [COMPLETE_CHECK, MATCH_CHECK].into_iter().chain(drift_checked.then_some(DRIFT_CHECK));
    if let Some(missing) = required.into_iter().find(|name| !names.contains(name)) {
        return Err(Problem::Inconsistent(format!("no check `{missing}`")));
    }
    drift_verdict(&report.drift)
}

/// `within_tolerance` is what the interval says: the drift was measured,
/// and the interval reaches ±tolerance exactly when it says so.
fn drift_verdict(drift: &DriftInfo) -> Result<(), Problem> {
    if drift.within_tolerance && !drift.measured {
        return Err(Problem::Inconsistent("drift within tolerance, yet not measured".into()));
    }
    let (Some(low), Some(high)) = (drift.ci_low_ppm, drift.ci_high_ppm) else { return Ok(()) };
    let tolerance = drift.tolerance_ppm;
    // The bounds went through JSON as decimals: allow far more than their
    // last bit, far less than any drift.
    let slack = 1e-9 * (1.0 + tolerance.abs() + low.abs() + high.abs());
    let surely_within = low <= tolerance - slack && high >= -tolerance + slack;
    let surely_outside = low > tolerance + slack || high < -tolerance - slack;
    if (drift.within_tolerance && surely_outside) || (!drift.within_tolerance && surely_within) {
        return Err(Problem::Inconsistent(format!(
            "drift.within_tolerance is {}, but the interval {low} to {high} ppm {} ±{tolerance} ppm",
            drift.within_tolerance,
            if surely_within { "reaches" } else { "misses" }
        )));
    }
    Ok(())
}

/// Each game's `complete`, `passed` and `result_agrees` against its own
/// numbers, as `bench_hil::session::GameRun` decides them.
fn game_verdicts(report: &Report) -> Result<(), Problem> {
    for (index, game) in report.games_detail.iter().enumerate() {
        let compared = game.model.is_some();
        let contradiction = if compared != game.firmware.is_some() {
            Some("a model side without a firmware side, or the reverse")
        } else if compared && game.comparison_error.is_some() {
            Some("compared, yet a comparison_error")
        } else if game.complete != (game.error.is_none() && compared && game.records_lost == 0) {
            Some("complete is not: played to its end, compared, no record lost")
        } else if game.passed && !(game.complete && game.mismatches_total == 0) {
            Some("passed, yet incomplete or with mismatches")
        } else if game.result_agrees
            != (compared
                && game.model.as_ref().map(|side| &side.result) == game.firmware.as_ref().map(|side| &side.result))
        {
            Some("result_agrees is not whether the model's and the firmware's results are the same")
        } else {
            None
        };
        if let Some(contradiction) = contradiction {
            return Err(Problem::Inconsistent(format!("games_detail[{index}]: {contradiction}")));
        }
    }
    Ok(())
}
