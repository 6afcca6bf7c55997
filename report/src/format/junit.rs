//! `junit.xml`: the report for a CI system's test view (GitLab, Jenkins,
//! GitHub test reporters, Azure): one test case per check, and one per
//! failing game with its replay command (simulation) or per compared game
//! (hardware in the loop).
//!
//! Two layers, like `index.html`: [`Suites`] is the generic JUnit document
//! (any report kind builds one) and [`render`] writes it with every string
//! escaped; each kind builds its own (`sim/junit.rs`, `hil/junit.rs`).
//!
//! The dialect is the common subset every reader accepts: `<testsuites>`
//! holding `<testsuite name tests failures errors skipped>` with
//! `<properties>` and `<testcase classname name>`, a failing case holding
//! `<failure message type>` with the details as text. No `time` or
//! `timestamp`: the file is a function of `report.json` alone, byte for
//! byte.

use std::fmt::Write as _;

/// A JUnit document.
pub struct Suites {
    pub name: String,
    pub suites: Vec<Suite>,
}

pub struct Suite {
    pub name: String,
    pub properties: Vec<(String, String)>,
    pub cases: Vec<Case>,
}

pub struct Case {
    pub classname: String,
    pub name: String,
    pub failure: Option<CaseFailure>,
}

pub struct CaseFailure {
    /// One line: what failed, measured against expected.
    pub message: String,
    /// The kind of failure (`check`, `game`).
    pub kind: String,
    /// The details, several lines.
    pub text: String,
}

/// The document's text: UTF-8, XML 1.0, two-space indent, final newline.
pub fn render(document: &Suites) -> String {
    let cases = |suite: &Suite| suite.cases.len();
    let failures = |suite: &Suite| suite.cases.iter().filter(|case| case.failure.is_some()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">",
        attribute(&document.name),
        document.suites.iter().map(cases).sum::<usize>(),
        document.suites.iter().map(failures).sum::<usize>()
    );
    for suite in &document.suites {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">",
            attribute(&suite.name),
            cases(suite),
            failures(suite)
        );
        if !suite.properties.is_empty() {
            out.push_str("    <properties>\n");
            for (name, value) in &suite.properties {
                let _ = writeln!(out, "      <property name=\"{}\" value=\"{}\"/>", attribute(name), attribute(value));
            }
            out.push_str("    </properties>\n");
        }
        for case in &suite.cases {
            let head = format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                attribute(&case.classname),
                attribute(&case.name)
            );
            match &case.failure {
                None => {
                    let _ = writeln!(out, "{head}/>");
                }
                Some(failure) => {
                    let _ = writeln!(
                        out,
                        "{head}>\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                        attribute(&failure.message),
                        attribute(&failure.kind),
                        text(&failure.text)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Character data: `& < >` as references; characters XML 1.0 does not
/// allow (most control characters) as visible `[U+XXXX]`.
pub fn text(value: &str) -> String {
    escape(value, false)
}

/// An attribute value in double quotes: as [`text`], plus `" '`, and line
/// breaks and tabs as character references (a parser would otherwise
/// normalise them to spaces).
pub fn attribute(value: &str) -> String {
    escape(value, true)
}

fn escape(value: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' if attribute => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' | '\t' => out.push(c),
            // `\r` in text would be normalised away; everything else below
            // U+0020 is not allowed in XML 1.0, nor are U+FFFE and U+FFFF.
            // Bidirectional overrides are allowed, but would reverse what
            // a CI page shows: visible like every other control.
            c if (c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' || crate::format::visible::is_hidden_control(c)) => {
                let _ = write!(out, "[U+{:04X}]", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_keeps_the_document_well_formed() {
        assert_eq!(text("a < b && c > d"), "a &lt; b &amp;&amp; c &gt; d");
        assert_eq!(attribute("say \"hi\"\n'x'\t"), "say &quot;hi&quot;&#10;&apos;x&apos;&#9;");
        assert_eq!(text("bell\u{7}\r"), "bell[U+0007][U+000D]");
        assert_eq!(text("\u{FFFF}é"), "[U+FFFF]é");
    }

    #[test]
    fn hostile_strings_parse_back_unchanged() {
        let hostile = "]]><!-- \"quoted\" 'single' & <tag attr=\"x\"> \u{1} end";
        let document = Suites {
            name: hostile.into(),
            suites: vec![Suite {
                name: hostile.into(),
                properties: vec![(hostile.into(), hostile.into())],
                cases: vec![Case {
                    classname: hostile.into(),
                    name: hostile.into(),
                    failure: Some(CaseFailure { message: hostile.into(), kind: "check".into(), text: hostile.into() }),
                }],
            }],
        };
        let xml = render(&document);
        let parsed = roxmltree::Document::parse(&xml).expect("well-formed XML");
        let shown = hostile.replace('\u{1}', "[U+0001]");
        let case = parsed.descendants().find(|node| node.has_tag_name("testcase")).expect("a test case");
        assert_eq!(case.attribute("name"), Some(shown.as_str()));
        let failure = case.first_element_child().expect("a failure");
        assert_eq!(failure.attribute("message"), Some(shown.as_str()));
        assert_eq!(failure.text(), Some(shown.as_str()));
    }
}
