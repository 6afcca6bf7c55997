//! `index.html`: the report for a person with a browser. One file that opens
//! from disk with no network: inline CSS, the plots as inline SVG, no
//! script, no web font.
//!
//! Two layers, so that every kind of report (simulation, hardware in the
//! loop) shares one look and one escaping rule:
//!
//! - [`Page`] is a generic page: a verdict, then sections of paragraphs,
//!   tables, failures with their replay commands, figures and facts.
//!   [`render`] turns it into HTML and escapes **every** string it holds;
//!   only a [`Block::Figure`]'s SVG is markup, and that comes from bench's
//!   own plotter (which escapes its text), never from a user.
//! - [`sim_page`] builds the page of a simulation report from the same
//!   [`Report`] as `report.json`, so the two never disagree; [`hil_page`]
//!   does the same for a hardware-in-the-loop report.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::hil::{
    BoardLatencyInfo, DriftInfo as HilDrift, GameInfo as HilGame, LatencyInfo as HilLatency, MismatchInfo,
    Report as HilReport, SideInfo as HilSide, BOARD_COLUMNS, MISMATCHES_LISTED,
};
use super::json::{CheckInfo, Report};
use super::latency_plot::bin_label;
use super::markdown::{article_key, defect_rows, micros, seconds};
use super::{DRIFT_PNG, DRIFT_SVG, JUNIT_XML, LATENCY_PNG, LATENCY_SVG, REPORT_JSON, RUN_JSON, SUMMARY_MD};

/// A report page: the verdict first, then the sections in order.
pub struct Page {
    /// The document's title (the browser tab).
    pub title: String,
    pub verdict: Verdict,
    pub sections: Vec<Section>,
}

pub struct Verdict {
    pub passed: bool,
    /// What was judged, e.g. "Simulation of `both-flags`".
    pub subject: String,
    /// One line each: how many checks failed, how many games…
    pub lines: Vec<String>,
    /// Set when the run was interrupted: shown as a warning.
    pub incomplete: Option<String>,
}

pub struct Section {
    /// The fragment identifier (`#failures`); a fixed ASCII word.
    pub id: &'static str,
    pub heading: String,
    pub blocks: Vec<Block>,
}

pub enum Block {
    Paragraph(String),
    Table(Table),
    /// A failure: a title, its reasons, and the command that replays it.
    Failure {
        title: String,
        reasons: Vec<String>,
        replay: Option<String>,
    },
    /// A share of a whole as a bar, with its label.
    Meter {
        part: u64,
        whole: u64,
        label: String,
    },
    /// A plot: bench's own SVG markup, inlined, and links to its files.
    Figure {
        svg: String,
        caption: String,
        links: Vec<String>,
    },
    /// Label → value; values shown as code when `code` is set.
    Facts(Vec<Fact>),
    /// Blocks side by side (stacked on a narrow screen).
    Columns(Vec<Vec<Block>>),
}

pub struct Table {
    pub header: Vec<String>,
    /// Which columns hold numbers (right-aligned).
    pub numeric: Vec<bool>,
    pub rows: Vec<Row>,
}

pub struct Row {
    pub cells: Vec<String>,
    /// Highlighted as a problem.
    pub bad: bool,
}

pub struct Fact {
    pub label: String,
    pub value: String,
    pub code: bool,
    /// A relative link (a file of the report folder).
    pub link: Option<String>,
}

impl Fact {
    fn text(label: &str, value: impl Into<String>) -> Fact {
        Fact { label: label.into(), value: value.into(), code: false, link: None }
    }

    fn code(label: &str, value: impl Into<String>) -> Fact {
        Fact { label: label.into(), value: value.into(), code: true, link: None }
    }

    fn file(label: &str, name: &str) -> Fact {
        Fact { label: label.into(), value: name.into(), code: true, link: Some(name.into()) }
    }
}

const STYLE: &str = "\
:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;background:#f3f4f6;color:#1f2328;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif}
main{max-width:1120px;margin:0 auto;padding:24px}
nav{margin:12px 0 0;font-size:.95em}
nav a{margin-right:14px;color:#0550ae;text-decoration:none}
.verdict{border-radius:10px;padding:20px 28px;color:#fff}
.verdict.pass{background:#1a7f37}
.verdict.fail{background:#cf222e}
.verdict h1{margin:0;font-size:2.6rem;letter-spacing:.04em}
.verdict .subject{font-size:1.3rem;margin:2px 0 8px}
.verdict p{margin:2px 0}
.incomplete{background:#fff8c5;color:#4d2d00;border:1px solid #d4a72c;border-radius:6px;padding:8px 12px;margin-top:12px}
section{background:#fff;border:1px solid #d0d7de;border-radius:10px;padding:12px 28px 20px;margin-top:20px}
h2{font-size:1.35rem;margin:8px 0 12px}
table{border-collapse:collapse;width:100%;margin:8px 0 12px}
th,td{text-align:left;padding:5px 10px;border-bottom:1px solid #eaeef2;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.bad td{background:#ffebe9}
.status{font-weight:700}
.status.fail{color:#cf222e}
.status.pass{color:#1a7f37}
code,pre{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.88em}
pre{background:#f6f8fa;border:1px solid #eaeef2;padding:8px 12px;border-radius:6px;margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere}
.failure{border-left:4px solid #cf222e;padding:1px 0 1px 14px;margin:10px 0}
.failure h3{margin:0 0 2px;font-size:1rem}
.failure .reason{font-weight:400}
pre.replay::before{content:'replay  ';color:#59636e;user-select:none}
.failure ul{margin:2px 0 4px;padding-left:20px}
.meter{background:#eaeef2;border-radius:6px;height:18px;overflow:hidden;margin:8px 0 4px}
.meter span{display:block;height:100%;background:#2da44e}
figure{margin:8px 0}
figure svg{display:block;width:100%;height:auto;border:1px solid #eaeef2}
figcaption{color:#59636e;font-size:.92em;margin-top:6px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:8px 0}
dt{color:#59636e}
dd{margin:0;overflow-wrap:anywhere}
.columns{display:grid;grid-template-columns:repeat(auto-fit,minmax(360px,1fr));gap:0 28px}
.columns p{margin:8px 0 0}
";

/// The page as a complete HTML document. Every string is escaped.
pub fn render(page: &Page) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    // No network, ever: nothing may be loaded from anywhere but this file.
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; \
         img-src data:\">\n",
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&page.title));
    let _ = writeln!(out, "<style>\n{STYLE}</style>\n</head>\n<body>\n<main>");

    let verdict = &page.verdict;
    let class = if verdict.passed { "pass" } else { "fail" };
    let _ = writeln!(out, "<header id=\"verdict\" class=\"verdict {class}\" data-verdict=\"{class}\">");
    let _ = writeln!(out, "<h1>{}</h1>", if verdict.passed { "PASS" } else { "FAIL" });
    let _ = writeln!(out, "<div class=\"subject\">{}</div>", escape(&verdict.subject));
    for line in &verdict.lines {
        let _ = writeln!(out, "<p>{}</p>", escape(line));
    }
    if let Some(incomplete) = &verdict.incomplete {
        let _ = writeln!(out, "<div class=\"incomplete\"><strong>INCOMPLETE:</strong> {}</div>", escape(incomplete));
    }
    out.push_str("</header>\n<nav>");
    for section in &page.sections {
        let _ = write!(out, "<a href=\"#{}\">{}</a>", section.id, escape(&section.heading));
    }
    out.push_str("</nav>\n");

    for section in &page.sections {
        let _ = writeln!(out, "<section id=\"{}\">\n<h2>{}</h2>", section.id, escape(&section.heading));
        for block in &section.blocks {
            render_block(&mut out, block);
        }
        out.push_str("</section>\n");
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn render_block(out: &mut String, block: &Block) {
    match block {
        Block::Paragraph(text) => {
            let _ = writeln!(out, "<p>{}</p>", escape(text));
        }
        Block::Table(table) => render_table(out, table),
        Block::Failure { title, reasons, replay } => {
            let _ = write!(out, "<div class=\"failure\">\n<h3>{}", escape(title));
            match reasons.as_slice() {
                [] => out.push_str("</h3>\n"),
                [reason] => {
                    let _ = writeln!(out, "<span class=\"reason\">: {}</span></h3>", escape(reason));
                }
                reasons => {
                    out.push_str("</h3>\n<ul>");
                    for reason in reasons {
                        let _ = write!(out, "<li>{}</li>", escape(reason));
                    }
                    out.push_str("</ul>\n");
                }
            }
            if let Some(replay) = replay {
                let _ = writeln!(out, "<pre class=\"replay\">{}</pre>", escape(replay));
            }
            out.push_str("</div>\n");
        }
        Block::Meter { part, whole, label } => {
            // Width in hundredths of a percent: integers, so the same bytes every time.
            let hundredths = (u128::from(*part) * 10_000).checked_div(u128::from(*whole)).unwrap_or(0).min(10_000);
            let _ = writeln!(
                out,
                "<div class=\"meter\" role=\"img\" aria-label=\"{}\"><span style=\"width:{}.{:02}%\"></span></div>\n\
                 <p>{}</p>",
                escape(label),
                hundredths / 100,
                hundredths % 100,
                escape(label)
            );
        }
        Block::Figure { svg, caption, links } => {
            out.push_str("<figure>\n");
            // Bench's own plot; drop anything before the element (an XML
            // declaration is not allowed inline).
            out.push_str(svg.find("<svg").and_then(|start| svg.get(start..)).unwrap_or(""));
            let _ = write!(out, "\n<figcaption>{}", escape(caption));
            for link in links {
                let _ = write!(out, " <a href=\"{}\">{}</a>", escape(link), escape(link));
            }
            out.push_str("</figcaption>\n</figure>\n");
        }
        Block::Columns(columns) => {
            out.push_str("<div class=\"columns\">\n");
            for column in columns {
                out.push_str("<div>\n");
                for block in column {
                    render_block(out, block);
                }
                out.push_str("</div>\n");
            }
            out.push_str("</div>\n");
        }
        Block::Facts(facts) => {
            out.push_str("<dl>\n");
            for fact in facts {
                let value = escape(&fact.value);
                let value = if fact.code { format!("<code>{value}</code>") } else { value };
                let value = match &fact.link {
                    Some(link) => format!("<a href=\"{}\">{value}</a>", escape(link)),
                    None => value,
                };
                let _ = writeln!(out, "<dt>{}</dt><dd>{value}</dd>", escape(&fact.label));
            }
            out.push_str("</dl>\n");
        }
    }
}

fn render_table(out: &mut String, table: &Table) {
    let numeric = |column: usize| table.numeric.get(column).copied().unwrap_or(false);
    out.push_str("<table>\n<thead><tr>");
    for (column, head) in table.header.iter().enumerate() {
        let class = if numeric(column) { " class=\"num\"" } else { "" };
        let _ = write!(out, "<th{class}>{}</th>", escape(head));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &table.rows {
        out.push_str(if row.bad { "<tr class=\"bad\">" } else { "<tr>" });
        for (column, cell) in row.cells.iter().enumerate() {
            let class = if numeric(column) { " class=\"num\"" } else { "" };
            let _ = write!(out, "<td{class}>{}</td>", escape(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

/// Text for HTML content and attribute values: `& < > " '` as references,
/// control characters (which HTML does not allow) as visible `U+XXXX`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {
                let _ = write!(out, "[U+{:04X}]", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// `part` of `whole` in percent with two decimals (`83.33 %`).
pub fn percent(part: u64, whole: u64) -> String {
    let hundredths = (u128::from(part) * 10_000).checked_div(u128::from(whole)).unwrap_or(0);
    format!("{}.{:02} %", hundredths / 100, hundredths % 100)
}

/// Parts per billion as ppm with three decimals (`-250.125 ppm`).
pub fn ppm(ppb: i64) -> String {
    let sign = if ppb < 0 { "-" } else { "" };
    let abs = ppb.unsigned_abs();
    format!("{sign}{}.{:03} ppm", abs / 1_000, abs % 1_000)
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

/// Every check of a report, failing ones marked.
fn checks_table(checks: &[CheckInfo]) -> Block {
    Block::Table(Table {
        header: vec!["Result".into(), "Check".into(), "Measured".into(), "Expected".into()],
        numeric: vec![],
        rows: checks
            .iter()
            .map(|check| Row {
                cells: vec![
                    if check.passed { "pass" } else { "FAIL" }.into(),
                    check.name.clone(),
                    check.measured.clone(),
                    check.expected.clone(),
                ],
                bad: !check.passed,
            })
            .collect(),
    })
}

fn results_section(report: &Report) -> Section {
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
    let mut columns = vec![vec![
        Block::Paragraph(
            "Games by result class, on the device and on the ideal clock (highlighted: they differ):".into(),
        ),
        Block::Table(Table {
            header: vec!["Class".into(), "Device".into(), "%".into(), "Ideal clock".into(), "%".into()],
            numeric: vec![false, true, true, true, true],
            rows,
        }),
    ]];
    if !report.expected_classes.is_empty() {
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
        columns.push(vec![
            Block::Paragraph("The scenario's expected shares (highlighted: missed):".into()),
            Block::Table(Table {
                header: vec!["Class".into(), "Games".into(), "%".into(), "Expected".into()],
                numeric: vec![false, true, true, false],
                rows,
            }),
        ]);
    }
    let mut articles: Vec<(&String, &u64)> = report.articles.iter().collect();
    articles.sort_by_key(|(article, _)| article_key(article));
    if articles.is_empty() {
        columns.push(vec![Block::Paragraph("No article was applied on the device.".into())]);
    } else {
        columns.push(vec![
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
        ]);
    }
    let mut blocks = vec![Block::Columns(columns)];
    let outcomes = &report.outcomes;
    blocks.push(Block::Paragraph(format!(
        "Outcomes on the device: White won {}, Black won {}, drawn {}.",
        outcomes.white, outcomes.black, outcomes.draw
    )));
    Section { id: "results", heading: "Results by article".into(), blocks }
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
        .into_iter()
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

/// The run facts, ended as in every report kind: bench's version, the
/// schema, and links to the report's other files (`run_json_holds` says
/// what varies between runs, kept in `run.json`).
fn run_facts_section(mut facts: Vec<Fact>, bench_version: &str, schema: &str, run_json_holds: &str) -> Section {
    facts.push(Fact::text("bench version", bench_version));
    facts.push(Fact::text("Report schema", schema));
    for (label, name) in [
        ("Machine-readable report", REPORT_JSON),
        ("JUnit", JUNIT_XML),
        ("Summary", SUMMARY_MD),
        (run_json_holds, RUN_JSON),
    ] {
        facts.push(Fact::file(label, name));
    }
    Section { id: "facts", heading: "Run facts".into(), blocks: vec![Block::Facts(facts)] }
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
            "{ppm:+.3} ppm ± {half:.3} ({:.0} % confidence interval {low:+.3} to {high:+.3} ppm; tolerance ±{} ppm)",
            drift.confidence.unwrap_or(0.0) * 100.0,
            drift.tolerance_ppm
        ),
        (Some(ppm), ..) => format!("{ppm:+.3} ppm (no confidence interval)"),
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
        });
    }
    for check in failed_checks {
        blocks.push(Block::Failure {
            title: format!("Check failed: {}", check.name),
            reasons: vec![format!("measured {}, expected {}", check.measured, check.expected)],
            replay: None,
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
        blocks.push(Block::Failure {
            title: format!("Game {}: {} mismatches", game.game, game.mismatches_total),
            reasons,
            replay: Some(report.command.clone()),
        });
    }
    if report.mismatches.total > 0 {
        blocks.push(Block::Paragraph(format!(
            "{} mismatches in all: {}.",
            report.mismatches.total,
            report
                .mismatches
                .by_quantity
                .iter()
                .map(|(quantity, count)| format!("{quantity} {count}"))
                .collect::<Vec<_>>()
                .join(" · ")
        )));
        blocks.push(Block::Paragraph("Where each difference began (the first mismatch of each quantity):".into()));
        blocks.push(mismatch_table(
            report.games_detail.iter().flat_map(|game| game.first_of_each.iter().map(move |m| (game.game, m))),
        ));
        blocks.push(Block::Paragraph(format!(
            "Every mismatch listed in report.json (the first {MISMATCHES_LISTED} of each game), in the order found:"
        )));
        blocks.push(mismatch_table(
            report.games_detail.iter().flat_map(|game| game.mismatches.iter().map(move |m| (game.game, m))),
        ));
    }
    blocks.push(Block::Paragraph(
        "Every check: that every game played to its end, that the firmware matches the clock model (within one \
         firmware tick), and that the accounting drift is within tolerance."
            .into(),
    ));
    blocks.push(checks_table(&report.checks));
    Section { id: "failures", heading: "Failures and checks".into(), blocks }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_quotes_and_control_characters() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(escape("a\u{1}b\nc"), "a[U+0001]b\nc");
    }

    #[test]
    fn numbers_read_in_their_unit() {
        assert_eq!(percent(5, 6), "83.33 %");
        assert_eq!(percent(0, 0), "0.00 %");
        assert_eq!(ppm(-250_125), "-250.125 ppm");
        assert_eq!(ppm(2_000_000), "2000.000 ppm");
    }

    // ---- hardware-in-the-loop pages ----

    use crate::report::hil::tests::{farm_report, probe_board, sample_report, with_mismatches};

    const HOSTILE: &str = "<script>alert('x')</script> & \"q\" </svg><img src=x onerror=alert(1)> \u{1}";

    fn position(html: &str, needle: &str) -> usize {
        html.find(needle).unwrap_or_else(|| panic!("the page has no `{needle}`"))
    }

    #[test]
    fn a_hil_page_puts_the_verdict_first_then_each_mismatch_with_its_press_and_both_values() {
        let report = with_mismatches(sample_report(), 3);
        let html = render(&hil_page(&report, "<svg id=\"plot\"></svg>", "<svg id=\"histogram\"></svg>"));
        assert!(html.contains("data-verdict=\"fail\"") && html.contains("<h1>FAIL</h1>"), "{html}");
        let verdict = position(&html, "id=\"verdict\"");
        let failures = position(&html, "id=\"failures\"");
        let games = position(&html, "id=\"games\"");
        let drift = position(&html, "id=\"drift\"");
        let latency = position(&html, "id=\"latency\"");
        let facts = position(&html, "id=\"facts\"");
        assert!(verdict < failures && failures < games && games < drift && drift < latency && latency < facts);
        // The first mismatch: press 3, its quantity, both values, in the failures.
        let failure = position(&html, "Game 1: 3 mismatches");
        assert!(failures < failure && failure < games);
        assert!(html
            .contains("press.remaining_us first differs at press 3 (3.5 s): model 58.500000 s, firmware 58.000000 s"));
        assert!(html.contains("<td class=\"num\">3</td><td class=\"num\">3.5 s</td><td>press.remaining_us</td><td>58.500000 s</td><td>58.000000 s</td>"));
        assert!(html.contains("<td class=\"num\">5</td>"), "every listed mismatch, press 5 the last");
        assert!(html
            .contains("<pre class=\"replay\">bench hil --board qemu --scenario blitz-3-2 --seed 12 --games 2</pre>"));
        assert!(html.contains("Check failed: the firmware matches the clock model"));
        // Drift with its interval, latency percentiles, the firmware image's hash.
        assert!(html.contains("-0.500 ppm ± 0.100 (95 % confidence interval -0.600 to -0.400 ppm; tolerance ±5 ppm)"));
        assert!(html.contains("<svg id=\"plot\"></svg>"));
        for cell in ["4 µs", "6 µs", "9 µs", "3 ms", "80"] {
            assert!(html.contains(&format!("<td class=\"num\">{cell}</td>")), "latency {cell}");
        }
        // The histogram, inline in the latency section, and its non-empty bins.
        let histogram = position(&html, "<svg id=\"histogram\"></svg>");
        assert!(latency < histogram && histogram < facts);
        assert!(html.contains("<td>0–10</td><td class=\"num\">79</td>"), "{html}");
        assert!(html.contains("<td>2k–5k</td><td class=\"num\">1</td>"), "{html}");
        assert!(html.contains("href=\"latency.svg\"") && html.contains("href=\"latency.png\""));
        assert!(html.contains(&format!("<code>{}</code>", report.firmware.sha256)), "the whole ELF hash");
        assert!(html.contains(&report.firmware.sha256[..16]), "the hash in the verdict");
    }

    #[test]
    fn a_farm_page_lists_each_board_and_the_latency_measured_on_the_boards() {
        let html = render(&hil_page(&farm_report(), "<svg></svg>", "<svg></svg>"));
        let (games, boards) = (position(&html, "id=\"games\""), position(&html, "id=\"boards\""));
        let (drift, latency) = (position(&html, "id=\"drift\""), position(&html, "id=\"latency\""));
        let facts = position(&html, "id=\"facts\"");
        assert!(games < boards && boards < drift, "the boards follow the games");
        assert!(html.contains("<a href=\"#boards\">Boards</a>"), "the section is in the navigation");
        assert!(html.contains("A farm of 2 boards"));
        let row_b = position(
            &html,
            "<tr><td>0483:374b:B</td><td>NUCLEO-F401RE via STLink V2-1 (B)</td><td>0</td><td>ok</td>\
             <td class=\"num\">+0.250 ppm</td><td class=\"num\">-40.000 ppm ± 0.120</td>\
             <td>16 of 20</td><td>900 µs / 9 ms</td></tr>",
        );
        let row_a = position(&html, "<tr><td>0483:374b:A</td>");
        assert!(boards < row_b && row_b < row_a && row_a < drift, "one row per board, in the report's order");
        assert!(html.contains("<td class=\"num\">+12.000 ppm ± 0.120</td>"));
        assert!(html.contains(
            "Oscillator drift ± half of its 95 % confidence interval. Reads used: probe round trip within the \
             fastest + 100 µs."
        ));
        assert!(!html.contains("<tr class=\"bad\">"), "no board failed");
        // The latency on the boards, in the latency section.
        let on_board = position(&html, "<tr><td>write to edge stamp</td>");
        assert!(latency < on_board && on_board < facts);
        assert!(html.contains(
            "<tr><td>write to edge stamp</td><td class=\"num\">180 µs</td><td class=\"num\">205 µs</td>\
             <td class=\"num\">230 µs</td><td class=\"num\">260 µs</td><td class=\"num\">300 µs</td>\
             <td class=\"num\">80</td></tr>"
        ));
        assert!(html.contains("<tr><td>write bracket</td><td class=\"num\">380 µs</td><td class=\"num\">400 µs</td>"));
        assert!(html.contains("1 bracketed presses without a matching Press record."));
    }

    #[test]
    fn a_failed_board_is_highlighted_with_what_stopped_it() {
        let mut report = farm_report();
        report.boards[0].games = vec![0, 2, 4, 5, 6, 7, 8];
        report.boards[1].error = Some("0483:374b:A: the debug probe went away; games 3 not played".into());
        if let Some(oscillator) = report.boards[1].oscillator.as_mut() {
            (oscillator.ppm, oscillator.error) = (None, Some("2 usable reads".into()));
        }
        let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
        assert!(html.contains("<tr><td>0483:374b:B</td><td>NUCLEO-F401RE via STLink V2-1 (B)</td><td>0, 2, 4–8</td>"));
        assert!(html.contains(
            "<tr class=\"bad\"><td>0483:374b:A</td><td>NUCLEO-F401RE via STLink V2-1 (A)</td><td>1</td>\
             <td>FAILED: 0483:374b:A: the debug probe went away; games 3 not played</td>"
        ));
        assert!(html.contains("<td class=\"num\">not measured (2 usable reads)</td>"));
        assert_eq!(html.matches("<tr class=\"bad\">").count(), 1, "only the failed board");
        assert!(html.contains("1 failed (highlighted, with what stopped it)"));
    }

    #[test]
    fn one_board_on_a_probe_has_its_row_and_an_emulated_run_has_no_boards_section() {
        let mut report = sample_report();
        report.boards = vec![probe_board("X", &[0, 1, 2, 3], 3.0)];
        let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
        assert!(html.contains("One board on a debug probe."));
        assert!(html.contains("<tr><td>0483:374b:X</td><td>NUCLEO-F401RE via STLink V2-1 (X)</td><td>0–3</td>"));
        assert!(!html.contains("write to edge stamp"), "no latency on the board without its figures");

        let emulated = sample_report();
        assert!(emulated.boards.iter().all(|board| board.probe.is_none()) && emulated.boards.len() == 1);
        let html = render(&hil_page(&emulated, "<svg></svg>", "<svg></svg>"));
        assert!(!html.contains("id=\"boards\"") && !html.contains("#boards"), "no boards section");
        assert!(!html.contains("On the board") && !html.contains("bracketed presses"), "no latency on the board");
    }

    #[test]
    fn a_passing_hil_page_says_pass_and_nothing_failed() {
        let html = render(&hil_page(&sample_report(), "<svg></svg>", "<svg></svg>"));
        assert!(html.contains("data-verdict=\"pass\"") && html.contains("<h1>PASS</h1>"));
        assert!(html.contains("Every check passed, and the firmware matched the clock model"));
        assert!(!html.contains("class=\"failure\"") && !html.contains("<tr class=\"bad\">"));
        assert!(!html.contains("INCOMPLETE"));
    }

    #[test]
    fn an_incomplete_hil_page_says_why_and_a_run_without_data_still_renders() {
        let mut report = sample_report();
        report.complete = false;
        report.verdict = "fail".into();
        report.error = Some("QEMU went away".into());
        report.latency = None;
        report.games_detail.clear();
        let drift = &mut report.drift;
        (drift.measured, drift.error, drift.ppm, drift.ci_half_ppm) =
            (false, Some("2 usable samples".into()), None, None);
        let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
        assert!(html.contains("<strong>INCOMPLETE:</strong>") && html.contains("QEMU went away"), "{html}");
        assert!(html.contains("not measured (2 usable samples)"));
        assert!(html.contains("No press was registered"));
    }

    /// Every string of a HIL report a user or a firmware reaches (scenario,
    /// file names, the board's description, mismatch values, errors) is
    /// escaped: none becomes markup.
    #[test]
    fn every_string_of_a_hil_report_is_escaped() {
        let mut report = with_mismatches(sample_report(), 1);
        report.scenario.name = HOSTILE.into();
        report.scenario.description = HOSTILE.into();
        report.firmware.file = HOSTILE.into();
        report.firmware.name = Some(HOSTILE.into());
        report.board.description = HOSTILE.into();
        report.command = format!("bench hil --scenario '{HOSTILE}'");
        report.drift.note = Some(HOSTILE.into());
        report.boards = vec![probe_board("B", &[0], -40.0), probe_board("A", &[1], 12.0)];
        for board in &mut report.boards {
            (board.probe, board.description, board.error) =
                (Some(HOSTILE.into()), HOSTILE.into(), Some(HOSTILE.into()));
            if let Some(oscillator) = board.oscillator.as_mut() {
                (oscillator.ppm, oscillator.error) = (None, Some(HOSTILE.into()));
            }
        }
        if let Some(game) = report.games_detail.last_mut() {
            game.error = Some(HOSTILE.into());
            game.schedule_end = HOSTILE.into();
            for mismatch in game.mismatches.iter_mut().chain(&mut game.first_of_each) {
                (mismatch.model, mismatch.firmware) = (HOSTILE.into(), HOSTILE.into());
            }
        }
        let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
        for raw in ["<script", "<img", "onerror=alert(1)>", "\u{1}"] {
            assert!(!html.contains(raw), "the page holds `{raw}` unescaped");
        }
        assert_eq!(html.matches("</svg>").count(), 2, "only the two plots close an svg");
        assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") && html.contains("[U+0001]"));
        assert!(html.contains("id=\"boards\""), "the boards' strings were on the page");
    }
}
