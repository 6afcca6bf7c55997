//! The page of a hardware-in-the-loop report.

use std::fmt::Write as _;

use super::latency_plot::bin_label;
use super::{
    BoardLatencyInfo, DriftInfo as HilDrift, GameInfo as HilGame, LatencyInfo as HilLatency, MismatchInfo,
    Report as HilReport, SideInfo as HilSide, BOARD_COLUMNS, MISMATCHES_LISTED,
};
use crate::check::checks_table;
use crate::files::{Content, Written, DRIFT_PNG, DRIFT_SVG, LATENCY_PNG, LATENCY_SVG};
use crate::format::html::*;
use crate::format::markdown::{micros, seconds, signed};

/// `index.html`, with `drift.svg` and `latency.svg` inline.
pub fn render_file<'s>(folder: &'s super::Folder, written: &Written) -> anyhow::Result<Content<'s>> {
    let page = hil_page(&folder.report, written.text(DRIFT_SVG)?, written.text(LATENCY_SVG)?);
    Ok(Content::Bytes(render(&page).into_bytes()))
}

/// The page of a hardware-in-the-loop report (`bench hil`), from the same
/// [`HilReport`] as its `report.json`: the verdict, then the failures (each
/// mismatch with its press index and both values), the games, the boards
/// (of a probe run or a farm), the accounting drift with its confidence
/// interval and plot, the press latency percentiles (and those measured on
/// the board, when present), and the run's facts (the firmware image's
/// SHA-256 among them).
pub fn hil_page(report: &HilReport, svg: &str, latency_svg: &str) -> Page {
    let passed = report.verdict == "pass";
    let failed_checks = report.checks.iter().filter(|check| !check.passed).count();
    let compared = report.games_detail.iter().filter(|game| game.model.is_some()).count();
    let mut lines = vec![if failed_checks == 0 {
        format!("All {} checks passed.", report.checks.len())
    } else {
        format!("{failed_checks} of {} checks failed.", report.checks.len())
    }];
    lines.push(format!(
        "{} mismatches between the firmware and the clock model in {compared} compared games; {} of {} games passed.",
        report.mismatches.total, report.games.passed, report.games.requested
    ));
    lines.push(format!("Accounting drift: {}.", drift_text(&report.drift)));
    lines.push(match &report.latency {
        Some(latency) => format!(
            "Press latency: p50 {}, p99 {}, max {} ({} presses).",
            micros(latency.p50_us),
            micros(latency.p99_us),
            micros(latency.max_us),
            latency.count
        ),
        None => "Press latency: no presses.".into(),
    });
    let incomplete = (!report.complete).then(|| {
        let why = report
            .error
            .clone()
            .or_else(|| report.games_detail.iter().find_map(|game| game.error.clone()))
            .unwrap_or_else(|| "records were lost".into());
        format!(
            "{} of {} games played to their end ({why}); every number covers what was seen.",
            report.games.complete, report.games.requested
        )
    });
    let firmware = report.firmware.name.as_deref().unwrap_or("firmware");
    let verdict = Verdict {
        passed,
        subject: format!(
            "Hardware in the loop: {} on {}, seed {}, {firmware} ({})",
            report.scenario.name,
            report.board.kind,
            report.seed,
            short_hash(&report.firmware.sha256)
        ),
        lines,
        incomplete,
    };
    Page {
        title: format!(
            "{} — bench hil {} on {}, seed {}",
            if passed { "PASS" } else { "FAIL" },
            report.scenario.name,
            report.board.kind,
            report.seed
        ),
        verdict,
        sections: [
            Some(hil_failures_section(report)),
            Some(hil_games_section(report)),
            report.shows_boards().then(|| hil_boards_section(report)),
            Some(hil_drift_section(report, svg)),
            Some(hil_latency_section(report, latency_svg)),
            Some(super::super::coverage::html_section(&report.coverage)),
            Some(hil_facts_section(report)),
        ]
        .into_iter()
        .flatten()
        .collect(),
    }
}

fn short_hash(sha256: &str) -> String {
    format!("sha256 {}…", sha256.get(..16).unwrap_or(sha256))
}

/// `+1.23 ppm ± 0.05 (95 % CI −… to …)`, or why it was not measured.
fn drift_text(drift: &HilDrift) -> String {
    match (drift.ppm, drift.ci_half_ppm, drift.ci_low_ppm, drift.ci_high_ppm) {
        (Some(ppm), Some(half), Some(low), Some(high)) => format!(
            "{} ppm ± {half:.3} ({:.0} % confidence interval {} to {} ppm; tolerance ±{} ppm)",
            signed(ppm, 3),
            drift.confidence.unwrap_or(0.0) * 100.0,
            signed(low, 3),
            signed(high, 3),
            drift.tolerance_ppm
        ),
        (Some(ppm), ..) => format!("{} ppm (no confidence interval)", signed(ppm, 3)),
        _ => format!("not measured ({})", drift.error.as_deref().unwrap_or("no samples")),
    }
}

fn press_text(index: Option<u64>) -> String {
    index.map_or_else(|| "before the first".to_string(), |index| index.to_string())
}

/// A table of mismatches: game, press index, instant, quantity and both
/// values.
fn mismatch_table<'a>(rows: impl Iterator<Item = (u64, &'a MismatchInfo)>) -> Block {
    Block::Table(Table {
        header: vec![
            "Game".into(),
            "Press".into(),
            "At (firmware clock)".into(),
            "Quantity".into(),
            "Clock model".into(),
            "Firmware".into(),
        ],
        numeric: vec![true, true, true, false, false, false],
        rows: rows
            .map(|(game, mismatch)| Row {
                cells: vec![
                    game.to_string(),
                    press_text(mismatch.press_index),
                    seconds(mismatch.at_us),
                    mismatch.quantity.clone(),
                    mismatch.model.clone(),
                    mismatch.firmware.clone(),
                ],
                bad: true,
            })
            .collect(),
    })
}

fn hil_failures_section(report: &HilReport) -> Section {
    let mut blocks = Vec::new();
    let failed_checks: Vec<_> = report.checks.iter().filter(|check| !check.passed).collect();
    let failed_games: Vec<&HilGame> = report.games_detail.iter().filter(|game| !game.passed).collect();
    if failed_checks.is_empty() && failed_games.is_empty() && report.error.is_none() {
        blocks.push(Block::Paragraph(
            "Every check passed, and the firmware matched the clock model at every press of every game.".into(),
        ));
    }
    if let Some(error) = &report.error {
        blocks.push(Block::Failure {
            title: "The run stopped".into(),
            reasons: vec![error.clone()],
            replay: Some(report.command.clone()),
            replay_file: None,
        });
    }
    for check in failed_checks {
        blocks.push(Block::Failure {
            title: format!("Check failed: {}", check.name),
            reasons: vec![format!("measured {}, expected {}", check.measured, check.expected)],
            replay: None,
            replay_file: None,
        });
    }
    if !failed_games.is_empty() {
        blocks.push(Block::Paragraph(format!(
            "{} of {} games failed. bench hil plays the first {} games of the seed, so the command shown with each \
             replays it (with the others); press instants and latencies vary a little from run to run.",
            failed_games.len(),
            report.games_detail.len(),
            report.games.requested
        )));
    }
    for game in failed_games {
        blocks.push(failed_game(report, game));
    }
    if report.mismatches.total > 0 {
        blocks.extend(mismatch_blocks(report));
    }
    let largest = report.largest_differences();
    if !largest.is_empty() {
        let items: Vec<String> = largest.iter().map(|(key, text)| format!("{key} {text}")).collect();
        blocks.push(Block::Paragraph(format!(
            "Largest differences, each judged from the firmware's own state after its side's last press \
             (rounding.accumulated_us: the rounding that added up): {}.",
            items.join(" · ")
        )));
    }
    blocks.push(Block::Paragraph(
        "Every check: that every game played to its end, that the firmware matches the clock model (within one \
         firmware tick), and that the accounting drift is within tolerance."
            .into(),
    ));
    blocks.push(checks_table(&report.checks));
    Section { id: "failures", heading: "Failures and checks".into(), blocks }
}

/// A failed game: why, and where each quantity first differed.
fn failed_game(report: &HilReport, game: &HilGame) -> Block {
    let mut reasons = game.run_problems();
    for mismatch in &game.first_of_each {
        reasons.push(format!(
            "{} first differs at press {} ({}): model {}, firmware {}",
            mismatch.quantity,
            press_text(mismatch.press_index),
            seconds(mismatch.at_us),
            mismatch.model,
            mismatch.firmware
        ));
    }
    if reasons.is_empty() {
        reasons.push("incomplete".into());
    }
    Block::Failure {
        title: format!("Game {}: {} mismatches", game.game, game.mismatches_total),
        reasons,
        replay: Some(report.command.clone()),
        replay_file: game.replay_file.clone(),
    }
}

/// The mismatches in all: totals, where each began, and every one listed.
fn mismatch_blocks(report: &HilReport) -> Vec<Block> {
    let totals: Vec<String> =
        report.mismatches.by_quantity.iter().map(|(quantity, count)| format!("{quantity} {count}")).collect();
    vec![
        Block::Paragraph(format!("{} mismatches in all: {}.", report.mismatches.total, totals.join(" · "))),
        Block::Paragraph("Where each difference began (the first mismatch of each quantity):".into()),
        mismatch_table(
            report.games_detail.iter().flat_map(|game| game.first_of_each.iter().map(move |m| (game.game, m))),
        ),
        Block::Paragraph(format!(
            "Every mismatch listed in report.json (the first {MISMATCHES_LISTED} of each game), in the order found:"
        )),
        mismatch_table(report.games_detail.iter().flat_map(|game| game.mismatches.iter().map(move |m| (game.game, m)))),
    ]
}

fn hil_games_section(report: &HilReport) -> Section {
    let rows = report
        .games_detail
        .iter()
        .map(|game| {
            let played = match (&game.error, game.complete) {
                (Some(_), _) | (None, false) => "incomplete",
                (None, true) => "yes",
            };
            let result = |side: &Option<HilSide>| side.as_ref().map_or("—".to_string(), |side| side.result.clone());
            Row {
                cells: vec![
                    game.game.to_string(),
                    played.into(),
                    format!("{} / {} / {}", game.presses_sent, game.presses_registered, game.presses_scheduled),
                    seconds(game.guest_us),
                    game.schedule_end.clone(),
                    result(&game.model),
                    result(&game.firmware),
                    game.mismatches_total.to_string(),
                    game.latency.map_or("—".to_string(), |latency| micros(latency.p99_us)),
                ],
                bad: !game.passed,
            }
        })
        .collect();
    let mut blocks = vec![
        Block::Paragraph(format!(
            "{} of {} games played, {} to their end, {} passed; each game's ruling at the end on the clock model \
             and on the firmware (highlighted: the game failed).",
            report.games.played, report.games.requested, report.games.complete, report.games.passed
        )),
        Block::Table(Table {
            header: vec![
                "Game".into(),
                "Played".into(),
                "Presses sent / registered / scheduled".into(),
                "Guest time".into(),
                "Schedule end".into(),
                "Result (model)".into(),
                "Result (firmware)".into(),
                "Mismatches".into(),
                "Latency p99".into(),
            ],
            // The presses column wraps its long header (numeric cells do not).
            numeric: vec![true, false, false, true, false, false, false, true, true],
            rows,
        }),
    ];
    let agreeing = report.games_detail.iter().filter(|game| game.result_agrees).count() as u64;
    let compared = report.games_detail.iter().filter(|game| game.model.is_some()).count() as u64;
    if compared > 0 {
        blocks.push(Block::Meter {
            part: agreeing,
            whole: compared,
            label: format!(
                "The firmware's ruling equals the clock model's in {agreeing} of {compared} compared games ({}).",
                percent(agreeing, compared)
            ),
        });
    }
    Section { id: "games", heading: "Games".into(), blocks }
}

/// One row per board of a probe run or a farm: its probe, games, state,
/// accounting drift and its oscillator against host time.
fn hil_boards_section(report: &HilReport) -> Section {
    let failed = report.boards.iter().filter(|board| board.failed()).count();
    let mut summary = match report.boards.len() {
        1 => "One board on a debug probe.".to_string(),
        boards => format!("A farm of {boards} boards: game g is played on board g mod {boards}."),
    };
    summary.push_str(
        " Accounting drift: the firmware clock against the board's counter. Oscillator drift: the board's cycle \
         counter against host monotonic time, least squares over the counter reads whose probe round trip is \
         close to the fastest read's; the round trip is of every read.",
    );
    if let Some(fit) = report.oscillator_fit_text() {
        let _ = write!(summary, " {fit}.");
    }
    if failed > 0 {
        let _ = write!(
            summary,
            " {failed} failed (highlighted, with what stopped it); a failed board's later games were not played."
        );
    }
    Section {
        id: "boards",
        heading: "Boards".into(),
        blocks: vec![
            Block::Paragraph(summary),
            Block::Table(Table {
                header: BOARD_COLUMNS.iter().map(|column| column.to_string()).collect(),
                // Reads and round trips wrap their long headers (numeric cells do not).
                numeric: vec![false, false, false, false, true, true, false, false],
                rows: report
                    .boards
                    .iter()
                    .map(|board| Row { cells: board.table_cells().into(), bad: board.failed() })
                    .collect(),
            }),
        ],
    }
}

fn hil_drift_section(report: &HilReport, svg: &str) -> Section {
    let drift = &report.drift;
    let number = |value: Option<f64>, unit: &str| value.map_or("—".to_string(), |value| format!("{value:.3}{unit}"));
    let mut facts = vec![
        Fact::text("Accounting drift", drift_text(drift)),
        Fact::text(
            "Within tolerance",
            if drift.within_tolerance {
                format!("yes: the interval reaches ±{} ppm", drift.tolerance_ppm)
            } else {
                format!("no: the interval lies beyond ±{} ppm, or no interval", drift.tolerance_ppm)
            },
        ),
        Fact::text("Reference", &drift.reference),
        Fact::text("Samples", format!("{} used of {}", drift.used, drift.samples)),
        Fact::text("Span", number(drift.span_s, " s")),
        Fact::text(
            "Residuals",
            format!("sd {}, max {}", number(drift.residual_sd_us, " µs"), number(drift.residual_max_us, " µs")),
        ),
    ];
    if let Some(note) = &drift.note {
        facts.push(Fact::text("Note", note));
    }
    Section {
        id: "drift",
        heading: "Drift".into(),
        blocks: vec![
            Block::Figure {
                svg: svg.into(),
                caption: "The firmware clock minus the board's hardware counter over the run (each TimeBase sample, \
                          from the first one), the least-squares line and the confidence band of its slope. Files:"
                    .into(),
                links: vec![DRIFT_SVG.into(), DRIFT_PNG.into()],
            },
            Block::Facts(facts),
        ],
    }
}

fn hil_latency_section(report: &HilReport, latency_svg: &str) -> Section {
    let mut blocks = match &report.latency {
        Some(latency) => vec![
            Block::Paragraph(format!(
                "Press latency, edge to registered: the firmware's handled_at_us − at_us of every Press record, \
                 {} presses over every game (nearest-rank percentiles).",
                latency.count
            )),
            Block::Table(Table {
                header: vec!["min".into(), "p50".into(), "p90".into(), "p99".into(), "max".into(), "presses".into()],
                numeric: vec![true; 6],
                rows: vec![Row {
                    cells: vec![
                        micros(latency.min_us),
                        micros(latency.p50_us),
                        micros(latency.p90_us),
                        micros(latency.p99_us),
                        micros(latency.max_us),
                        latency.count.to_string(),
                    ],
                    bad: false,
                }],
            }),
        ],
        None => vec![Block::Paragraph("No press was registered: no latency to show.".into())],
    };
    // Nothing to draw without presses (or in a report from before the histogram).
    if report.latency_histogram.iter().any(|bin| bin.presses > 0) {
        blocks.push(Block::Figure {
            svg: latency_svg.to_string(),
            caption: "The same presses in fixed bins of latency (µs; each bar from its lower edge up to, not \
                      including, its upper; the last bin is open-ended). Files:"
                .into(),
            links: vec![LATENCY_SVG.into(), LATENCY_PNG.into()],
        });
        blocks.push(Block::Table(Table {
            header: vec!["latency (µs)".into(), "presses".into()],
            numeric: vec![false, true],
            rows: report
                .latency_histogram
                .iter()
                .filter(|bin| bin.presses > 0)
                .map(|bin| Row { cells: vec![bin_label(bin), bin.presses.to_string()], bad: false })
                .collect(),
        }));
    }
    if let Some(board) = &report.board_latency {
        blocks.extend(board_latency_blocks(board));
    }
    Section { id: "latency", heading: "Press latency".into(), blocks }
}

/// Press latency measured on the board with its cycle counter, and how
/// precisely each write's instant is known.
fn board_latency_blocks(board: &BoardLatencyInfo) -> Vec<Block> {
    let row = |what: &str, latency: &HilLatency| Row {
        cells: vec![
            what.into(),
            micros(latency.min_us),
            micros(latency.p50_us),
            micros(latency.p90_us),
            micros(latency.p99_us),
            micros(latency.max_us),
            latency.count.to_string(),
        ],
        bad: false,
    };
    let mut blocks = vec![
        Block::Paragraph(
            "On the board: the cycle counter (DWT CYCCNT) read right before the harness's pin write, to the \
             counter the firmware stamped at the edge (an upper bound of write-to-stamp time); the write bracket \
             is the counter after minus before the write: how precisely each write's instant is known."
                .into(),
        ),
        Block::Table(Table {
            header: vec![
                "On the board".into(),
                "min".into(),
                "p50".into(),
                "p90".into(),
                "p99".into(),
                "max".into(),
                "presses".into(),
            ],
            numeric: vec![false, true, true, true, true, true, true],
            rows: vec![row("write to edge stamp", &board.latency), row("write bracket", &board.bracket)],
        }),
    ];
    blocks.push(Block::Paragraph(format!("{} bracketed presses without a matching Press record.", board.unmatched)));
    blocks
}

fn hil_facts_section(report: &HilReport) -> Section {
    let firmware = &report.firmware;
    let scenario = &report.scenario;
    let games = &report.games;
    let optional = |value: Option<u32>, unit: &str| value.map_or("—".to_string(), |value| format!("{value}{unit}"));
    let mut facts = vec![
        Fact::code("Command", &report.command),
        Fact::text("Board", format!("{} — {}", report.board.kind, report.board.description)),
        Fact::code("Firmware image", &firmware.file),
        Fact::code("Firmware SHA-256", &firmware.sha256),
        Fact::text(
            "Firmware",
            match &firmware.name {
                Some(name) => format!("{name} version {}", optional(firmware.version, "")),
                None => "no Hello record".into(),
            },
        ),
        Fact::text(
            "Firmware timing",
            format!(
                "tick {}, debounce {}, hardware counter {}",
                optional(firmware.tick_us, " µs"),
                optional(firmware.debounce_us, " µs"),
                optional(firmware.hw_counter_hz, " Hz")
            ),
        ),
        Fact::text(
            "Clock",
            firmware.capabilities.as_ref().map_or("no Hello record".into(), crate::hil::capabilities_text),
        ),
        Fact::text("Scenario", &scenario.name),
        Fact::text("Description", &scenario.description),
        Fact::code("Scenario file", &scenario.file),
        Fact::code("Scenario SHA-256", &scenario.sha256),
        Fact::code("Time control", &scenario.control),
        Fact::text("Seed", report.seed.to_string()),
        Fact::text(
            "Games",
            format!(
                "{} requested, {} played, {} to their end, {} passed",
                games.requested, games.played, games.complete, games.passed
            ),
        ),
        Fact::text(
            "Records",
            format!("{} read, {} missing from the sequence", report.records.total, report.records.lost),
        ),
    ];
    if let Some(error) = &report.error {
        facts.push(Fact::text("Stopped by", error));
    }
    run_facts_section(facts, &report.bench_version, &report.schema, "Host, wall time, emulator speed, git commit")
}
