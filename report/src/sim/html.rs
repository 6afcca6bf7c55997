//! The page of a simulation report.

use std::collections::BTreeSet;

use super::report::Report;
use super::summary::defect_rows;
use super::Folder;
use crate::check::checks_table;
use crate::files::{Content, Written};
use crate::files::{DRIFT_PNG, DRIFT_SVG};
use crate::format::html::*;
use crate::format::markdown::{article_key, micros, seconds};

/// `index.html`, with `drift.svg` inline.
pub fn render_file<'s>(folder: &'s Folder, written: &Written) -> anyhow::Result<Content<'s>> {
    let page = sim_page(&folder.report, written.text(DRIFT_SVG)?);
    Ok(Content::Bytes(render(&page).into_bytes()))
}

/// The page of a simulation report.
pub fn sim_page(report: &Report, svg: &str) -> Page {
    let failed_checks: Vec<_> = report.checks.iter().filter(|check| !check.passed).collect();
    let passed = report.verdict == "pass";
    let mut lines = vec![if failed_checks.is_empty() {
        format!("All {} checks passed.", report.checks.len())
    } else {
        format!("{} of {} checks failed.", failed_checks.len(), report.checks.len())
    }];
    lines.push(format!(
        "{} of {} games failed; device and ideal clock agree in {} ({}).",
        report.games_failed,
        report.games.played,
        report.agreement.agreeing,
        percent(report.agreement.agreeing, report.agreement.games)
    ));
    lines.push(report.scenario.description.clone());
    let incomplete = (!report.complete).then(|| {
        format!(
            "the run was interrupted after {} of {} games; every number covers those games only.",
            report.games.played,
            report.games.end.saturating_sub(report.games.start)
        )
    });
    let verdict = Verdict {
        passed,
        subject: format!("Simulation of {}, seed {}", report.scenario.name, report.seed),
        lines,
        incomplete,
    };
    Page {
        title: format!(
            "{} — bench sim {}, seed {}",
            if passed { "PASS" } else { "FAIL" },
            report.scenario.name,
            report.seed
        ),
        verdict,
        sections: vec![
            failures_section(report),
            results_section(report),
            agreement_section(report),
            drift_section(report, svg),
            defects_section(report),
            super::super::coverage::html_section(&report.coverage),
            facts_section(report),
        ],
    }
}

fn failures_section(report: &Report) -> Section {
    let mut blocks = Vec::new();
    let failed_checks: Vec<_> = report.checks.iter().filter(|check| !check.passed).collect();
    if failed_checks.is_empty() && report.failures.is_empty() {
        blocks.push(Block::Paragraph("Every check passed and no game failed.".into()));
    }
    for check in failed_checks {
        blocks.push(Block::Failure {
            title: format!("Check failed: {}", check.name),
            reasons: vec![format!("measured {}, expected {}", check.measured, check.expected)],
            replay: None,
            replay_file: None,
        });
    }
    if !report.failures.is_empty() {
        let kept = report.failures.len() as u64;
        blocks.push(Block::Paragraph(if report.games_failed > kept {
            format!(
                "{} games failed; the {kept} lowest-numbered are listed, each with the command that replays it.",
                report.games_failed
            )
        } else {
            format!("{} games failed, each listed with the command that replays it.", report.games_failed)
        }));
        for failure in &report.failures {
            blocks.push(Block::Failure {
                title: format!("Game {}", failure.game),
                reasons: failure.reasons.clone(),
                replay: Some(failure.replay.clone()),
                replay_file: failure.replay_file.clone(),
            });
        }
    }
    blocks.extend(checks_blocks(report));
    Section { id: "failures", heading: "Failures and checks".into(), blocks }
}

fn checks_blocks(report: &Report) -> Vec<Block> {
    vec![
        Block::Paragraph("Every check: the scenario's expectations, and that every game of the run was played.".into()),
        checks_table(&report.checks),
    ]
}

fn results_section(report: &Report) -> Section {
    let mut columns = vec![result_classes_column(report)];
    if !report.expected_classes.is_empty() {
        columns.push(expected_classes_column(report));
    }
    columns.push(articles_column(report));
    let mut blocks = vec![Block::Columns(columns)];
    let outcomes = &report.outcomes;
    blocks.push(Block::Paragraph(format!(
        "Outcomes on the device: White won {}, Black won {}, drawn {}.",
        outcomes.white, outcomes.black, outcomes.draw
    )));
    Section { id: "results", heading: "Results by article".into(), blocks }
}

/// Games by result class on the device and the ideal clock; a class where
/// they differ is highlighted.
fn result_classes_column(report: &Report) -> Vec<Block> {
    let classes: BTreeSet<&String> = report.results.device.keys().chain(report.results.ideal.keys()).collect();
    let mut classes: Vec<&String> = classes.into_iter().collect();
    classes.sort_by_key(|class| article_key(class));
    let games = report.games.played;
    let rows = classes
        .into_iter()
        .map(|class| {
            let device = report.results.device.get(class).copied().unwrap_or(0);
            let ideal = report.results.ideal.get(class).copied().unwrap_or(0);
            Row {
                cells: vec![
                    class.clone(),
                    device.to_string(),
                    percent(device, games),
                    ideal.to_string(),
                    percent(ideal, games),
                ],
                bad: device != ideal,
            }
        })
        .collect();
    vec![
        Block::Paragraph(
            "Games by result class, on the device and on the ideal clock (highlighted: they differ):".into(),
        ),
        Block::Table(Table {
            header: vec!["Class".into(), "Device".into(), "%".into(), "Ideal clock".into(), "%".into()],
            numeric: vec![false, true, true, true, true],
            rows,
        }),
    ]
}

/// The scenario's expected shares; one outside its range is highlighted.
fn expected_classes_column(report: &Report) -> Vec<Block> {
    let games = report.games.played;
    let rows = report
        .expected_classes
        .iter()
        .map(|expected| {
            let low = u128::from(expected.games) * 100 >= u128::from(expected.min_percent) * u128::from(games);
            let high = u128::from(expected.games) * 100 <= u128::from(expected.max_percent) * u128::from(games);
            Row {
                cells: vec![
                    expected.class.clone(),
                    expected.games.to_string(),
                    percent(expected.games, games),
                    format!("{} % to {} %", expected.min_percent, expected.max_percent),
                ],
                bad: !(low && high),
            }
        })
        .collect();
    vec![
        Block::Paragraph("The scenario's expected shares (highlighted: missed):".into()),
        Block::Table(Table {
            header: vec!["Class".into(), "Games".into(), "%".into(), "Expected".into()],
            numeric: vec![false, true, true, false],
            rows,
        }),
        Block::Paragraph(super::summary::ARTICLE_CLASSES.into()),
    ]
}

/// The articles the device applied, with the games each was applied in.
fn articles_column(report: &Report) -> Vec<Block> {
    let games = report.games.played;
    let mut articles: Vec<(&String, &u64)> = report.articles.iter().collect();
    articles.sort_by_key(|(article, _)| article_key(article));
    if articles.is_empty() {
        return vec![Block::Paragraph("No article was applied on the device.".into())];
    }
    vec![
        Block::Paragraph("Articles the device applied, in how many games:".into()),
        Block::Table(Table {
            header: vec!["Article".into(), "Games".into(), "%".into()],
            numeric: vec![false, true, true],
            rows: articles
                .into_iter()
                .map(|(article, count)| Row {
                    cells: vec![article.clone(), count.to_string(), percent(*count, games)],
                    bad: false,
                })
                .collect(),
        }),
    ]
}

fn agreement_section(report: &Report) -> Section {
    let agreement = &report.agreement;
    let mut facts = vec![
        Fact::text(
            "Same result",
            format!(
                "{} of {} games ({})",
                agreement.agreeing,
                agreement.games,
                percent(agreement.agreeing, agreement.games)
            ),
        ),
        Fact::text("Largest display difference at a press", micros(report.max_time_error_us)),
    ];
    facts.push(Fact::text(
        "Device time base rate error",
        match report.drift_ppb {
            Some(range) => format!("{} to {}", ppm(range.min), ppm(range.max)),
            None => "not measured (no sample 10 s or more into a game)".into(),
        },
    ));
    facts.push(Fact::text("Games with an oracle violation", report.games_with_violations.to_string()));
    Section {
        id: "agreement",
        heading: "Device vs ideal clock".into(),
        blocks: vec![
            Block::Meter {
                part: agreement.agreeing,
                whole: agreement.games,
                label: format!(
                    "The device's result equals the ideal clock's in {} of {} games ({}).",
                    agreement.agreeing,
                    agreement.games,
                    percent(agreement.agreeing, agreement.games)
                ),
            },
            Block::Facts(facts),
        ],
    }
}

fn drift_section(report: &Report, svg: &str) -> Section {
    let envelope = &report.drift_envelope;
    Section {
        id: "drift",
        heading: "Drift".into(),
        blocks: vec![Block::Figure {
            svg: svg.into(),
            caption: format!(
                "Top: device display minus ideal display, per side. Bottom: device time base minus true time. \
                 Each band spans, per {} of game time, the smallest to the largest value any game had \
                 ({} buckets with samples). Files:",
                seconds(envelope.bucket_us),
                envelope.buckets.len()
            ),
            links: vec![DRIFT_SVG.into(), DRIFT_PNG.into()],
        }],
    }
}

fn defects_section(report: &Report) -> Section {
    let rows = defect_rows(&report.defects)
        .map(|(name, count)| Row { cells: vec![name.into(), count.to_string()], bad: false })
        .collect::<Vec<Row>>();
    let table = |rows: &[Row]| {
        vec![Block::Table(Table {
            header: vec!["Defect or intervention".into(), "Count".into()],
            numeric: vec![false, true],
            rows: rows.iter().map(|row| Row { cells: row.cells.clone(), bad: row.bad }).collect(),
        })]
    };
    let (devices, arbiter) = rows.split_at(rows.len() / 2);
    Section {
        id: "defects",
        heading: "Defects and interventions".into(),
        blocks: vec![
            Block::Paragraph("Totals over every game of the run.".into()),
            Block::Columns(vec![table(devices), table(arbiter)]),
        ],
    }
}

fn facts_section(report: &Report) -> Section {
    let scenario = &report.scenario;
    let games = &report.games;
    let mut facts = vec![
        Fact::code("Command", &report.command),
        Fact::text("Scenario", &scenario.name),
        Fact::text("Description", &scenario.description),
        Fact::code("Scenario file", &scenario.file),
        Fact::code("Scenario SHA-256", &scenario.sha256),
        Fact::code("Time control", &scenario.control),
        Fact::code("Rules", &scenario.rules),
        Fact::text("Seed", report.seed.to_string()),
        Fact::text("Games", format!("{}..{} of {} ({} played)", games.start, games.end, games.total, games.played)),
    ];
    if let Some(shard) = &report.shard {
        facts.push(Fact::text("Shard", format!("{} of {}", shard.index, shard.count)));
    }
    let options = &report.options;
    facts.push(Fact::text(
        "Options",
        format!(
            "swarm {}, determinism check {}, tick-model oracle {}, move bound {}, defects switched off: {}",
            if report.swarm { "on" } else { "off" },
            if options.check_determinism { "on" } else { "off" },
            if options.tick_oracle { "on" } else { "off" },
            options.max_moves.map_or_else(|| "the scenario's".to_string(), |moves| moves.to_string()),
            if options.disabled.is_empty() { "none".to_string() } else { options.disabled.join(", ") }
        ),
    ));
    facts.push(Fact::text("Presses, events", format!("{}, {}", report.presses, report.events)));
    facts.push(Fact::code("Run hash", &report.run_hash));
    run_facts_section(facts, &report.bench_version, &report.schema, "Host, wall time, git commit")
}
