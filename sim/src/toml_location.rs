//! Where in a TOML file an error is: the file, the line and column
//! (1-based, in characters) and the dotted field (`device.bounce.chance`),
//! for the TOML reader's errors (from the span it reports) and for errors
//! found after reading (from the field's path). Scenario files and board
//! profiles report their errors through [`LocatedError`].

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
            Some(span) => {
                if message == "duplicate key" {
                    if let Some(first_line) = first_writing(text, span.start) {
                        message = format!("written twice: first at line {first_line}");
                    }
                }
                locate(text, span, &message)
            }
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
/// TOML reader reported at the bytes `span`.
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

/// The line of the first writing of the key or table header written again
/// at byte `offset` (the reader's "duplicate key" names neither).
fn first_writing(text: &str, offset: usize) -> Option<usize> {
    let sites = sites(text);
    let again = sites.iter().filter(|site| site.start <= offset && offset <= site.end).max_by_key(|site| site.start)?;
    let first = sites.iter().find(|site| site.path == again.path && site.element == again.element)?;
    (first.start < again.start).then(|| line_column(text, first.start).0)
}

/// The value of the key `field` (a dotted path) when it starts at byte
/// `offset`, as written (quotes included, trailing blanks left out): for
/// pointing inside a value the reader refused as a whole.
pub fn value_starting_at<'a>(text: &'a str, field: &str, offset: usize) -> Option<&'a str> {
    let site = sites(text).into_iter().find(|site| !site.header && site.path == field && site.value_start == offset)?;
    text.get(site.value_start..site.end).map(str::trim_end)
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
    /// Byte offsets: where the key (or header) starts, where its value
    /// starts, and where the value (or the header line) ends.
    start: usize,
    value_start: usize,
    end: usize,
}

/// Every key and table header of `text`, in order. A forgiving scanner: on
/// text that is not TOML it still ends, and finds what it can.
fn sites(text: &str) -> Vec<Site> {
    let mut scanner = Scanner { text: text.as_bytes(), pos: 0, sites: Vec::new(), arrays: Vec::new() };
    scanner.document();
    scanner.sites
}

struct Scanner<'a> {
    text: &'a [u8],
    pos: usize,
    sites: Vec<Site>,
    /// Elements seen so far of each array of tables, by path.
    arrays: Vec<(String, usize)>,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn starts_with(&self, prefix: &[u8]) -> bool {
        self.text.get(self.pos..).is_some_and(|rest| rest.starts_with(prefix))
    }

    fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    fn skip_line(&mut self) {
        while let Some(byte) = self.peek() {
            self.pos += 1;
            if byte == b'\n' {
                return;
            }
        }
    }

    /// Spaces, newlines and comments.
    fn skip_blank(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.pos += 1,
                Some(b'#') => self.skip_line(),
                _ => return,
            }
        }
    }

    fn document(&mut self) {
        let mut table = String::new();
        let mut element = 0;
        loop {
            self.skip_blank();
            let Some(byte) = self.peek() else { return };
            let start = self.pos;
            if byte == b'[' {
                let array = self.starts_with(b"[[");
                self.pos += if array { 2 } else { 1 };
                table = self.key().join(".");
                element = 0;
                if array {
                    element = match self.arrays.iter_mut().find(|(path, _)| *path == table) {
                        Some((_, count)) => {
                            *count += 1;
                            *count - 1
                        }
                        None => {
                            self.arrays.push((table.clone(), 1));
                            0
                        }
                    };
                }
                self.skip_line();
                // The header's line, without its newline.
                let newline = self.text.get(self.pos.wrapping_sub(1)) == Some(&b'\n');
                let end = if newline { self.pos - 1 } else { self.pos }.max(start);
                self.sites.push(Site { path: table.clone(), element, header: true, start, value_start: start, end });
            } else {
                self.key_value(&table, element);
                if self.pos == start {
                    self.skip_line();
                }
            }
        }
    }

    /// A possibly dotted key; each part unquoted.
    fn key(&mut self) -> Vec<String> {
        let mut parts = Vec::new();
        loop {
            self.skip_spaces();
            let part = match self.peek() {
                Some(quote @ (b'"' | b'\'')) => {
                    let start = self.pos + 1;
                    self.string(quote);
                    let end = self.pos.saturating_sub(1).max(start);
                    String::from_utf8_lossy(self.text.get(start..end).unwrap_or_default()).into_owned()
                }
                _ => {
                    let start = self.pos;
                    while self.peek().is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-') {
                        self.pos += 1;
                    }
                    String::from_utf8_lossy(self.text.get(start..self.pos).unwrap_or_default()).into_owned()
                }
            };
            if part.is_empty() && !matches!(self.text.get(self.pos.wrapping_sub(1)), Some(b'"' | b'\'')) {
                return parts;
            }
            parts.push(part);
            self.skip_spaces();
            if self.peek() == Some(b'.') {
                self.pos += 1;
            } else {
                return parts;
            }
        }
    }

    /// `key = value`, inside the table or inline table at `base`.
    fn key_value(&mut self, base: &str, element: usize) {
        let start = self.pos;
        let key = self.key();
        if key.is_empty() {
            return;
        }
        let path = if base.is_empty() { key.join(".") } else { format!("{base}.{}", key.join(".")) };
        self.skip_spaces();
        if self.peek() == Some(b'=') {
            self.pos += 1;
        }
        self.skip_spaces();
        let index = self.sites.len();
        self.sites.push(Site {
            path: path.clone(),
            element,
            header: false,
            start,
            value_start: self.pos,
            end: self.pos,
        });
        self.value(&path, element);
        if let Some(site) = self.sites.get_mut(index) {
            site.end = self.pos;
        }
    }

    fn value(&mut self, path: &str, element: usize) {
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                loop {
                    self.skip_spaces();
                    match self.peek() {
                        None | Some(b'\n') => return,
                        Some(b'}') => {
                            self.pos += 1;
                            return;
                        }
                        Some(b',') => self.pos += 1,
                        Some(_) => {
                            let before = self.pos;
                            self.key_value(path, element);
                            if self.pos == before {
                                return;
                            }
                        }
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut index = 0;
                loop {
                    self.skip_blank();
                    match self.peek() {
                        None => return,
                        Some(b']') => {
                            self.pos += 1;
                            return;
                        }
                        Some(b',') => {
                            self.pos += 1;
                            index += 1;
                        }
                        Some(_) => {
                            let before = self.pos;
                            self.value(path, index);
                            if self.pos == before {
                                return;
                            }
                        }
                    }
                }
            }
            Some(quote @ (b'"' | b'\'')) => self.string(quote),
            _ => {
                let start = self.pos;
                while self.peek().is_some_and(|byte| !matches!(byte, b',' | b'}' | b']' | b'\n' | b'#')) {
                    self.pos += 1;
                }
                while self.pos > start && matches!(self.text.get(self.pos - 1), Some(b' ' | b'\t' | b'\r')) {
                    self.pos -= 1;
                }
            }
        }
    }

    /// A basic or literal string, one-line or multi-line, from its opening quote.
    fn string(&mut self, quote: u8) {
        let triple = [quote; 3];
        let multi = self.starts_with(&triple);
        self.pos += if multi { 3 } else { 1 };
        while let Some(byte) = self.peek() {
            if multi && self.starts_with(&triple) {
                self.pos += 3;
                // A multi-line string may end with up to two more quotes.
                while self.peek() == Some(quote) {
                    self.pos += 1;
                }
                return;
            }
            if !multi && byte == b'\n' {
                return;
            }
            self.pos += 1;
            if byte == b'\\' && quote == b'"' {
                self.pos += usize::from(self.peek().is_some());
            } else if !multi && byte == quote {
                return;
            }
        }
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
