//! JSON documents as bench writes them: `report.json` and `run.json` of
//! every report kind.

use serde::Serialize;

/// The document's bytes: pretty-printed, two-space indent, final newline.
pub fn to_bytes<T: Serialize>(value: &T) -> anyhow::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(bytes)
}
