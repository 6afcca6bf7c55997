//! Reading the gate's input files (a report, a baseline, a rules file)
//! with a bound: a device (`/dev/zero`), a pipe with no writer or a file
//! far larger than any bench writes would otherwise be read until memory
//! runs out, or forever.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// The most bytes read from a report (`report.json`, of a run or a
/// baseline). A simulation report is a few tens of kB whatever its game
/// count (its failures are capped); a HIL report grows by a few kB a game
/// played, so this holds tens of thousands of games.
pub const REPORT_BYTES_MAX: u64 = 256 * 1024 * 1024;

/// The most bytes read from a rules file: `gate.example.toml`, comments
/// and all, is under 3 kB.
pub const RULES_BYTES_MAX: u64 = 1024 * 1024;

/// Why an input file was not read.
#[derive(Debug)]
pub enum InputError {
    Missing,
    Unreadable(std::io::Error),
    /// Not a regular file: `kind` says what it is.
    NotAFile(&'static str),
    /// More than `max_bytes`.
    TooLarge {
        max_bytes: u64,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Missing => write!(f, "no such file"),
            InputError::Unreadable(error) => write!(f, "cannot read it: {error}"),
            InputError::NotAFile(kind) => {
                write!(f, "is {kind}, not a regular file: give the file itself (or a copy of it)")
            }
            InputError::TooLarge { max_bytes } => write!(
                f,
                "is larger than {} MiB, more than any bench writes: not this kind of file, or damaged",
                max_bytes / (1024 * 1024)
            ),
        }
    }
}

/// The bytes of the regular file at `path`, at most `max_bytes` of them.
/// What is not a regular file is refused before it is opened: opening a
/// pipe with no writer waits forever.
pub fn read_bounded(path: &Path, max_bytes: u64) -> Result<Vec<u8>, InputError> {
    let unreadable = |error: std::io::Error| match error.kind() {
        std::io::ErrorKind::NotFound => InputError::Missing,
        _ => InputError::Unreadable(error),
    };
    let metadata = std::fs::metadata(path).map_err(unreadable)?;
    if !metadata.is_file() {
        return Err(InputError::NotAFile(describe(metadata.file_type())));
    }
    if metadata.len() > max_bytes {
        return Err(InputError::TooLarge { max_bytes });
    }
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let mut bytes = Vec::new();
    // One byte more than allowed tells a file at the bound from one that
    // grew since its size was read.
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(unreadable)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > max_bytes {
        return Err(InputError::TooLarge { max_bytes });
    }
    Ok(bytes)
}

/// What a file that is not a regular one is, in words.
fn describe(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a pipe (FIFO)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "a special file"
    }
}

#[cfg(test)]
mod tests {
    use super::{read_bounded, InputError};
    use crate::testing::TempDir;

    #[test]
    fn only_a_regular_file_within_the_bound_is_read() {
        let dir = TempDir::new("input-file");
        let file = dir.path().join("report.json");
        std::fs::write(&file, b"0123456789").expect("write");
        assert_eq!(read_bounded(&file, 10).expect("at the bound"), b"0123456789");
        assert!(matches!(read_bounded(&file, 9), Err(InputError::TooLarge { max_bytes: 9 })));
        assert!(matches!(read_bounded(dir.path(), 10), Err(InputError::NotAFile("a folder"))));
        assert!(matches!(read_bounded(&dir.path().join("none"), 10), Err(InputError::Missing)));
        #[cfg(unix)]
        assert!(matches!(read_bounded(std::path::Path::new("/dev/zero"), 10), Err(InputError::NotAFile("a device"))));
    }
}
