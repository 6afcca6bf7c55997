//! Text from a user's file (a scenario's description, a file name, a board
//! profile) shown as it is, with nothing hidden: a control character (NUL,
//! ESC, a carriage return) or a bidirectional override (U+202E) could
//! otherwise clear a terminal line, recolour it or reverse what follows.
//! Each one is shown as `[U+XXXX]`, as `index.html` and `junit.xml` show
//! them; line breaks and tabs are layout and kept.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` changes how the text around it shows rather than showing
/// itself: the C0 and C1 controls but `\n` and `\t`, and Unicode's
/// bidirectional formatting characters (marks, embeddings, overrides,
/// isolates).
pub fn is_hidden_control(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => true,
        c => c.is_control(),
    }
}

/// `text` with each [hidden control](is_hidden_control) as `[U+XXXX]`;
/// borrowed when there is none, which is nearly always.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hidden_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_hidden_control(c) {
            let _ = write!(out, "[U+{:04X}]", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidirectional_overrides_show_as_code_points() {
        assert_eq!(visible("a\0b"), "a[U+0000]b");
        assert_eq!(visible("evil\u{202E}txt.exe"), "evil[U+202E]txt.exe");
        assert_eq!(visible("\u{1b}[2Jclear\r"), "[U+001B][2Jclear[U+000D]");
        assert_eq!(visible("\u{2066}x\u{2069}\u{200F}"), "[U+2066]x[U+2069][U+200F]");
        assert_eq!(visible("\u{85}next line"), "[U+0085]next line");
    }

    #[test]
    fn line_breaks_tabs_and_other_text_stay_as_they_are() {
        let plain = "Blitz 3+2\tÉchecs — 五分\nnext";
        assert!(matches!(visible(plain), Cow::Borrowed(text) if text == plain));
    }
}
