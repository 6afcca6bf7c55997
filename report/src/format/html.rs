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
//! - Each report kind builds its page from the same report as its
//!   `report.json`, so the two never disagree (`sim/html.rs`,
//!   `hil/html.rs`).

use std::fmt::Write as _;

use crate::files::{JUNIT_XML, REPORT_JSON, RUN_JSON, SUMMARY_MD};

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
    /// A failure: a title, its reasons, the command that replays it, and
    /// its replay file (a path in the report folder).
    Failure {
        title: String,
        reasons: Vec<String>,
        replay: Option<String>,
        replay_file: Option<String>,
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
    pub fn text(label: &str, value: impl Into<String>) -> Fact {
        Fact { label: label.into(), value: value.into(), code: false, link: None }
    }

    pub fn code(label: &str, value: impl Into<String>) -> Fact {
        Fact { label: label.into(), value: value.into(), code: true, link: None }
    }

    pub fn file(label: &str, name: &str) -> Fact {
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
        let _ = writeln!(out, "<p>{}</p>", prose(line));
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
            let _ = writeln!(out, "<p>{}</p>", prose(text));
        }
        Block::Table(table) => render_table(out, table),
        Block::Failure { title, reasons, replay, replay_file } => {
            let _ = write!(out, "<div class=\"failure\">\n<h3>{}", escape(title));
            match reasons.as_slice() {
                [] => out.push_str("</h3>\n"),
                [reason] => {
                    let _ = writeln!(out, "<span class=\"reason\">: {}</span></h3>", prose(reason));
                }
                reasons => {
                    out.push_str("</h3>\n<ul>");
                    for reason in reasons {
                        let _ = write!(out, "<li>{}</li>", prose(reason));
                    }
                    out.push_str("</ul>\n");
                }
            }
            if let Some(replay) = replay {
                let _ = writeln!(out, "<pre class=\"replay\">{}</pre>", escape(replay));
            }
            if let Some(file) = replay_file {
                let _ = writeln!(
                    out,
                    "<p class=\"replay-file\">Replay file: <a href=\"{}\">{}</a> (<code>bench sim --replay</code> or \
                     <code>bench hil --replay</code> plays it)</p>",
                    escape(file),
                    escape(file)
                );
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
            let _ = write!(out, "<td{class}>{}</td>", prose(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

/// Text that may quote names in Markdown's backticks (a check's name:
/// ``games in class `6.12 a)` ``, shared with `summary.md` and
/// `report.json`): [`escape`]d, each pair of backticks as `<code>`, so that
/// no backtick shows. An odd one out is left as it is.
pub fn prose(text: &str) -> String {
    let escaped = escape(text);
    if escaped.matches('`').count() % 2 != 0 {
        return escaped;
    }
    let mut out = String::with_capacity(escaped.len() + 16);
    for (index, part) in escaped.split('`').enumerate() {
        if index % 2 == 1 {
            let _ = write!(out, "<code>{part}</code>");
        } else {
            out.push_str(part);
        }
    }
    out
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
            c if crate::format::visible::is_hidden_control(c) => {
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

/// The run facts, ended as in every report kind: bench's version, the
/// schema, and links to the report's other files (`run_json_holds` says
/// what varies between runs, kept in `run.json`).
pub(crate) fn run_facts_section(
    mut facts: Vec<Fact>,
    bench_version: &str,
    schema: &str,
    run_json_holds: &str,
) -> Section {
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
}
