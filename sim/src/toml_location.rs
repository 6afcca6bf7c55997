//! Where in a TOML file an error is: the file, the line and column
//! (1-based, in characters) and the dotted field (`device.bounce.chance`),
//! for the TOML reader's errors (from the span it reports) and for errors
//! found after reading (from the field's path). Keys and values are found
//! by the spans the TOML reader gives them (`toml::de::DeTable`), so the
//! places agree with what the reader read. Scenario files, board profiles
//! and gate rules report their errors through [`LocatedError`].

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// An error in a TOML file, and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocatedError {
    pub file: PathBuf,
    /// 1-based; 0 when the error is not about one place (unreadable file).
    pub line: usize,
    pub column: usize,
    /// `table.key` of the offending value, when known.
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for LocatedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LocatedError {}

impl LocatedError {
    /// An error about the file as a whole (it could not be read).
    pub fn whole_file(file: &Path, message: impl Into<String>) -> LocatedError {
        LocatedError { file: file.to_path_buf(), line: 0, column: 0, field: None, message: message.into() }
    }

    /// The TOML reader's `error` on `text`, read from `file`, placed by its
    /// span (see [`locate`]).
    pub fn from_toml(text: &str, file: &Path, error: &toml::de::Error) -> LocatedError {
        let mut message = error.message().to_string();
        if let Some(plain) = number_out_of_range(&message) {
            message = plain;
        }
        let (line, column, field) = match error.span() {
            Some(span) if toml::de::DeTable::parse(text).is_err() => {
                // Text that is no TOML: the reader's tree past the error is a
                // guess, so the field is named from the text before it.
                let written_twice = if message == "duplicate key" { written_twice(text, &span) } else { None };
                match written_twice {
                    Some((field, first_line)) => {
                        message = format!("written twice: first at line {first_line}");
                        let (line, column) = line_column(text, span.start);
                        (line, column, Some(field))
                    }
                    None => locate(text.get(..span.start).unwrap_or(text), span, &message),
                }
            }
            Some(span) => locate(text, span, &message),
            None => (0, 0, None),
        };
        LocatedError { file: file.to_path_buf(), line, column, field, message }
    }

    /// An error found after reading, about `field` (a dotted path; `element`
    /// picks the element of an array of tables): placed at its key, or
    /// failing that at the nearest enclosing table or key written, or at the
    /// start of the file when none is (a field left out altogether).
    pub fn at_field(
        text: &str,
        file: &Path,
        field: impl Into<String>,
        element: usize,
        message: impl Into<String>,
    ) -> LocatedError {
        let field = field.into();
        let (line, column) = find_key(text, &field, element).unwrap_or((1, 1));
        LocatedError { file: file.to_path_buf(), line, column, field: Some(field), message: message.into() }
    }
}

/// Line, column (1-based) and `table.key` of the error `message` that the
/// TOML reader reported at the bytes `span` of `text` (or of a longer text
/// `text` starts).
///
/// A "missing field" error points at the table that lacks the field: an
/// empty span at the start for the top level (so a table header at the very
/// start does not claim the field), else the table's header or inline
/// table; the field named is that table's path plus the missing key. Any
/// other error points into a key or a value: the field named is the
/// innermost key written there, or for text that is no key at all, the
/// table it is in.
pub fn locate(text: &str, span: Range<usize>, message: &str) -> (usize, usize, Option<String>) {
    let offset = span.start;
    let sites = sites(text);
    let (line, column) = line_column(text, offset);
    if let Some(missing) = message.strip_prefix("missing field `").and_then(|rest| rest.split('`').next()) {
        let top_level = span.is_empty() && offset == 0;
        let table = sites
            .iter()
            .filter(|_| !top_level)
            .filter(|site| if site.header { site.start == offset } else { site.value_start == offset })
            .max_by_key(|site| site.path.len());
        let field = match table {
            Some(table) => format!("{}.{missing}", table.path),
            None => missing.to_string(),
        };
        return (line, column, Some(field));
    }
    let within = sites.iter().filter(|site| site.start <= offset && offset <= site.end).max_by_key(|site| site.start);
    // Text that is no key at all: name the table it is in.
    let table = || sites.iter().filter(|site| site.header && site.start <= offset).max_by_key(|site| site.start);
    let field = within.or_else(table).map(|site| site.path.clone());
    (line, column, field)
}

/// serde's words for a number its field cannot hold ("invalid type:
/// integer `-5` as i128, expected u64", "invalid type: floating point
/// `1000.0`, expected u32") in a user's: what was written and the range the
/// field takes. `None` for any other message.
pub fn number_out_of_range(message: &str) -> Option<String> {
    let (found, expected) = message.split_once(", expected ")?;
    let (min, max): (i128, i128) = match expected {
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" => (0, u64::MAX.into()),
        "i64" => (i64::MIN.into(), i64::MAX.into()),
        _ => return None,
    };
    let written = found.split('`').nth(1)?;
    let range = format!("a whole number from {min} to {max}");
    if found.starts_with("invalid type: floating point") {
        Some(format!("`{written}` is not a whole number: write {range}"))
    } else if found.starts_with("invalid type: integer") || found.starts_with("invalid value: integer") {
        Some(format!("`{written}` is out of range: write {range}"))
    } else {
        None
    }
}

/// The field of the key or table header written again at the bytes `again`
/// (the reader's "duplicate key" names neither) and the line of its first
/// writing. The reader's tree keeps one writing only, so the line written
/// again is read on its own, below the tables written before it.
fn written_twice(text: &str, again: &Range<usize>) -> Option<(String, usize)> {
    let line_start = text.get(..again.start)?.rfind('\n').map_or(0, |newline| newline + 1);
    let line_end = text.get(again.start..)?.find('\n').map_or(text.len(), |newline| again.start + newline);
    let before = sites(text.get(..line_start)?);
    let shifted = |site: &Site| site.key.start + line_start == again.start && site.key.end + line_start == again.end;
    let written = sites(text.get(line_start..line_end)?).into_iter().find(shifted)?;
    let (path, element) = match before.iter().filter(|site| site.header).max_by_key(|site| site.start) {
        Some(table) if !written.header => (format!("{}.{}", table.path, written.path), table.element),
        _ => (written.path, written.element),
    };
    let first = before.iter().find(|site| site.path == path && site.element == element)?;
    Some((path, line_column(text, first.start).0))
}

/// The value of the key `field` (a dotted path) when it starts at byte
/// `offset`, as written (quotes included): for pointing inside a value the
/// reader refused as a whole.
pub fn value_starting_at<'a>(text: &'a str, field: &str, offset: usize) -> Option<&'a str> {
    let site = sites(text).into_iter().find(|site| !site.header && site.path == field && site.value_start == offset)?;
    text.get(site.value_start..site.end)
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let column = before.get(line_start..).map_or(1, |part| part.chars().count() + 1);
    (line, column)
}

/// Where `field` (a dotted path) is written, for errors found after parsing:
/// the key, or failing that the nearest enclosing table or key that is
/// written; `None` when the field and its tables were all left to their
/// defaults. `element` picks the element of an array of tables.
fn find_key(text: &str, field: &str, element: usize) -> Option<(usize, usize)> {
    let sites = sites(text);
    for exact_element in [true, false] {
        let mut path = field;
        loop {
            let found = sites.iter().find(|site| site.path == path && (!exact_element || site.element == element));
            if let Some(site) = found {
                return Some(line_column(text, site.start));
            }
            match path.rsplit_once('.') {
                Some((parent, _)) => path = parent,
                None => break,
            }
        }
    }
    None
}

/// A key or a table header as written in a TOML text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Site {
    /// Dotted path from the root (`device.bounce.chance`).
    path: String,
    /// The element of the enclosing array of tables (`[[expect.result]]` or
    /// an inline array of tables); 0 elsewhere.
    element: usize,
    header: bool,
    /// Byte offsets: the key's last part, where the key (or header) starts,
    /// where its value starts, and where the value (or the header) ends.
    key: Range<usize>,
    start: usize,
    value_start: usize,
    end: usize,
}

/// Every key and table header of `text`, in order, from the spans the TOML
/// reader gives; on text that is not TOML, those of what it recovers.
fn sites(text: &str) -> Vec<Site> {
    let (document, _errors) = toml::de::DeTable::parse_recoverable(text);
    let mut sites = Vec::new();
    table_sites(document.get_ref(), "", 0, &mut sites);
    sites.sort_by_key(|site| site.start);
    sites
}

/// The sites of `table`, whose path is `base`, in the element `element` of
/// an array of tables.
fn table_sites(table: &toml::de::DeTable<'_>, base: &str, element: usize, sites: &mut Vec<Site>) {
    use toml::de::DeValue;
    for (key, value) in table {
        let path = if base.is_empty() { key.get_ref().to_string() } else { format!("{base}.{}", key.get_ref()) };
        let (key, value_span) = (key.span(), value.span());
        // A header's span comes before its name's; a table only named on the
        // way to another (`a` of `[a.b]` or `a.b = 1`) has its name's span.
        let header = value_span.start < key.start;
        match value.get_ref() {
            DeValue::Table(inner) if value_span == key => table_sites(inner, &path, element, sites),
            DeValue::Array(elements) if header => {
                for (index, table) in elements.iter().enumerate() {
                    let span = table.span();
                    let site = Site {
                        path: path.clone(),
                        element: index,
                        header,
                        key: key.clone(),
                        start: span.start,
                        value_start: span.start,
                        end: span.end,
                    };
                    sites.push(site);
                    value_sites(table.get_ref(), &path, index, sites);
                }
            }
            _ => {
                let start = if header { value_span.start } else { key.start };
                let site = Site {
                    path: path.clone(),
                    element,
                    header,
                    key,
                    start,
                    value_start: value_span.start,
                    end: value_span.end,
                };
                sites.push(site);
                value_sites(value.get_ref(), &path, element, sites);
            }
        }
    }
}

/// The keys inside a table's or an array's value.
fn value_sites(value: &toml::de::DeValue<'_>, path: &str, element: usize, sites: &mut Vec<Site>) {
    match value {
        toml::de::DeValue::Table(table) => table_sites(table, path, element, sites),
        toml::de::DeValue::Array(values) => {
            for (index, value) in values.iter().enumerate() {
                value_sites(value.get_ref(), path, index, sites);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Profile {
        name: String,
        rtt: Option<Rtt>,
        pins: Option<Vec<Rtt>>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Rtt {
        symbol: String,
        size: Option<u32>,
    }

    /// `file:line:column: field `…`: message` of the reader's error on `text`.
    fn read(text: &str) -> String {
        let error = toml::from_str::<Profile>(text).expect_err("refused");
        LocatedError::from_toml(text, Path::new("boards/x.toml"), &error).to_string()
    }

    #[test]
    fn reader_errors_name_line_column_and_field() {
        let cases = [
            // A top-level field missing: the whole file, even when it starts with a table.
            ("[rtt]\nsymbol = \"S\"\n", "boards/x.toml:1:1: field `name`: missing field `name`"),
            // A field missing from a table: its header.
            ("name = \"a\"\n\n[rtt]\nsize = 4\n", "boards/x.toml:3:1: field `rtt.symbol`: missing field `symbol`"),
            // … from an inline table, and from the second of an array of tables.
            ("name = \"a\"\nrtt = { size = 4 }\n", "boards/x.toml:2:7: field `rtt.symbol`: missing field `symbol`"),
            (
                "name = \"a\"\n[[pins]]\nsymbol = \"S\"\n[[pins]]\nsize = 1\n",
                "boards/x.toml:4:1: field `pins.symbol`: missing field `symbol`",
            ),
            // An unknown key, and a value of the wrong type, in a table.
            ("name = \"a\"\n[rtt]\nsymbol = \"S\"\n  sise = 4\n", "boards/x.toml:4:3: field `rtt.sise`: unknown field"),
            (
                "name = \"a\"\n[rtt]\nsymbol = \"S\"\nsize = \"big\"\n",
                "boards/x.toml:4:8: field `rtt.size`: invalid type",
            ),
            // Text that is no key: the table it is in.
            ("name = \"a\"\n[rtt]\n/size = 4\n", "boards/x.toml:3:1: field `rtt`: invalid unquoted key"),
        ];
        for (text, expected) in cases {
            let shown = read(text);
            assert!(shown.starts_with(expected), "{text:?}:\n  got      {shown}\n  expected {expected}…");
        }
    }

    #[test]
    fn later_errors_are_placed_at_the_field_or_what_encloses_it() {
        let text = "name = \"a\"\n[rtt]\n  symbol = \"S\"\n[[pins]]\nsymbol = \"P\"\n[[pins]]\nsymbol = \"Q\"\n";
        let file = Path::new("f.toml");
        let at = |field: &str, element: usize| {
            let error = LocatedError::at_field(text, file, field, element, "bad");
            (error.line, error.column, error.field)
        };
        assert_eq!(at("rtt.symbol", 0), (3, 3, Some("rtt.symbol".into())));
        assert_eq!(at("rtt.size", 0), (2, 1, Some("rtt.size".into())), "left out: its table");
        assert_eq!(at("pins.symbol", 1), (7, 1, Some("pins.symbol".into())), "the second element");
        assert_eq!(at("speed", 0), (1, 1, Some("speed".into())), "left out at the top level: the file");
        let whole = LocatedError::whole_file(file, "cannot read it");
        assert_eq!(whole.to_string(), "f.toml: cannot read it");
    }

    #[test]
    fn line_and_column_count_characters() {
        let text = "a = \"é\"\nbé = 1\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, text.find("1").expect("a one")), (2, 6), "é is one column");
        assert_eq!(line_column(text, 10_000), (3, 1), "past the end: after the last line");
        assert_eq!(value_starting_at(text, "a", 4), Some("\"é\""));
        assert_eq!(value_starting_at(text, "a", 5), None);
    }
}
