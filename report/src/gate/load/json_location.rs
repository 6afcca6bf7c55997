//! Which field of a JSON text is at a line and column: serde_json says
//! where a value of the wrong type ends (`1e30` in an integer field), not
//! in which field, which is what a user looks for.

/// One open object or array, from the outside in.
enum Frame {
    /// `key`: the last key read; `in_value`: its `:` is read, so what
    /// follows is its value.
    Object {
        key: Option<String>,
        in_value: bool,
    },
    Array {
        index: usize,
    },
}

/// The dotted path (`drift_ppb.max`, `games_detail[3].latency`) of the
/// field serde_json's `message` is about, at `line` and `column` (1-based,
/// where serde_json stopped reading); for a missing field, the path it
/// would have. `None` at the top level.
pub(super) fn field_at(bytes: &[u8], line: usize, column: usize, message: &str) -> Option<String> {
    let offset = offset_of(bytes, line, column);
    // The byte serde_json stopped at is left out: the `}` of an object
    // lacking a field would close the object.
    let frames = frames_before(bytes.get(..offset)?);
    let missing = message.strip_prefix("missing field `").and_then(|rest| rest.split('`').next());
    let mut path = String::new();
    for (depth, frame) in frames.iter().enumerate() {
        let innermost = depth + 1 == frames.len();
        match frame {
            Frame::Array { index } => path.push_str(&format!("[{index}]")),
            Frame::Object { key: Some(key), in_value } if !innermost || (*in_value && missing.is_none()) => {
                push_key(&mut path, key);
            }
            Frame::Object { .. } => {}
        }
    }
    if let Some(missing) = missing {
        push_key(&mut path, missing);
    }
    (!path.is_empty()).then_some(path)
}

/// `path` with `.key` after it (`key` alone at the top).
fn push_key(path: &mut String, key: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
}

/// The byte offset of the 1-based `line` and `column`, less one: the byte
/// before the one serde_json stopped at.
fn offset_of(bytes: &[u8], line: usize, column: usize) -> usize {
    let line_start = bytes
        .iter()
        .enumerate()
        .filter(|(_, byte)| **byte == b'\n')
        .nth(line.saturating_sub(2))
        .map_or(0, |(newline, _)| if line > 1 { newline + 1 } else { 0 });
    (line_start + column.saturating_sub(1)).min(bytes.len())
}

/// The objects and arrays still open at the end of `bytes`.
fn frames_before(bytes: &[u8]) -> Vec<Frame> {
    let mut frames: Vec<Frame> = Vec::new();
    let mut string: Option<Vec<u8>> = None;
    let mut escaped = false;
    for &byte in bytes {
        if let Some(text) = string.as_mut() {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => {
                    let text = String::from_utf8_lossy(text).into_owned();
                    string = None;
                    if let Some(Frame::Object { key, in_value: false }) = frames.last_mut() {
                        *key = Some(text);
                    }
                    continue;
                }
                _ => {}
            }
            text.push(byte);
            continue;
        }
        match (byte, frames.last_mut()) {
            (b'"', _) => string = Some(Vec::new()),
            (b'{', _) => frames.push(Frame::Object { key: None, in_value: false }),
            (b'[', _) => frames.push(Frame::Array { index: 0 }),
            (b'}' | b']', _) => {
                frames.pop();
            }
            (b':', Some(Frame::Object { in_value, .. })) => *in_value = true,
            (b',', Some(Frame::Object { in_value, .. })) => *in_value = false,
            (b',', Some(Frame::Array { index })) => *index += 1,
            _ => {}
        }
    }
    frames
}

#[cfg(test)]
mod tests {
    use super::field_at;

    /// The field of the error serde_json gives on `text`, read as `T`.
    fn field_of<T: serde::de::DeserializeOwned + std::fmt::Debug>(text: &str) -> Option<String> {
        let error = serde_json::from_str::<T>(text).expect_err(text);
        let message = error.to_string();
        let message = message.split(" at line ").next().unwrap_or(&message).to_string();
        field_at(text.as_bytes(), error.line(), error.column(), &message)
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Range {
        min: i64,
        max: i64,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Report {
        seed: u64,
        drift_ppb: Option<Range>,
        games: Vec<Range>,
    }

    #[test]
    fn the_field_of_a_wrong_value_or_a_missing_one_is_named() {
        let cases = [
            (r#"{"seed": 1, "drift_ppb": {"min": 0, "max": 1e30}, "games": []}"#, Some("drift_ppb.max")),
            ("{\n  \"seed\": \"seven\",\n  \"drift_ppb\": null,\n  \"games\": []\n}", Some("seed")),
            (r#"{"seed": 1, "drift_ppb": null, "games": [{"min": 0, "max": 1}, {"min": 0}]}"#, Some("games[1].max")),
            (r#"{"seed": 1, "drift_ppb": {"min": 0, "max": 1}}"#, Some("games")),
            (r#"{"seed": 1, "drift_ppb": {"min": 0, "max": 1}, "games": {}}"#, Some("games")),
            (r#"{"games": [], "drift_ppb": {"min": 0, "max": 1}, "seed": -1}"#, Some("seed")),
            (r#"{"seed": 1, "drift_ppb": {"m\"in": 0, "min": 0, "max": 1.5}, "games": []}"#, Some("drift_ppb.max")),
        ];
        for (text, expected) in cases {
            assert_eq!(field_of::<Report>(text).as_deref(), expected, "{text}");
        }
    }
}
