//! Atomic file writes: a reader sees the old file, no file, or the whole
//! new file — never a part of one.
//!
//! Each file is written to a hidden temporary file in the same directory
//! (`.tmp-<pid>-<n>-<name>`, so it is on the same file system and keeps the
//! extension an encoder may look at), flushed to disk, then renamed over the
//! target. The rename is atomic on POSIX file systems; the directory is
//! flushed afterwards so the rename itself survives a power cut.
//!
//! A process killed mid-write (SIGKILL, a power cut) leaves its temporary
//! file behind; the next write in the folder removes those whose process
//! is gone (the pid in the name, looked up in `/proc`).

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;

/// Tells apart the temporary files of concurrent writes in one process.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `dir/name` atomically.
pub fn write_bytes(dir: &Path, name: &str, bytes: &[u8]) -> anyhow::Result<PathBuf> {
    write_with(dir, name, |temp| {
        let mut file = File::options().write(true).create_new(true).open(temp)?;
        file.write_all(bytes)?;
        Ok(())
    })
}

/// Has `write` create the file at the temporary path it is given (for
/// writers that want a path, like the PNG encoder), then moves it to
/// `dir/name` atomically. On any error the temporary file is removed and
/// `dir/name` is left as it was.
pub fn write_with(dir: &Path, name: &str, write: impl FnOnce(&Path) -> anyhow::Result<()>) -> anyhow::Result<PathBuf> {
    let target = dir.join(name);
    remove_stale_temporaries(dir);
    let temp = dir.join(format!(".tmp-{}-{}-{name}", std::process::id(), NEXT_TEMP.fetch_add(1, Ordering::Relaxed)));
    let result = write(&temp)
        .and_then(|()| File::open(&temp)?.sync_all().map_err(anyhow::Error::from))
        .and_then(|()| fs::rename(&temp, &target).map_err(anyhow::Error::from));
    if let Err(error) = result {
        // Best effort: the error that matters is the one being returned.
        let _ = fs::remove_file(&temp);
        return Err(error.context(format!("writing {}", target.display())));
    }
    sync_dir(dir);
    Ok(target)
}

/// Removes `dir/name` if it exists (a missing file is not an error).
pub fn remove_if_exists(dir: &Path, name: &str) -> anyhow::Result<()> {
    let path = dir.join(name);
    match fs::remove_file(&path) {
        Ok(()) => {
            sync_dir(dir);
            Ok(())
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error).with_context(|| format!("removing the stale {}", path.display())),
    }
}

/// Removes the temporary files in `dir` of processes that are gone. Best
/// effort, and only where `/proc` tells which processes live: elsewhere a
/// live writer's file could not be told from a dead one's. A pid reused
/// since keeps its file until that process ends too.
fn remove_stale_temporaries(dir: &Path) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temporary_file_pid) else { continue };
        if pid != std::process::id() && !proc.join(pid.to_string()).exists() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The writer's pid in a temporary file's name, `.tmp-<pid>-<n>-<name>`.
fn temporary_file_pid(name: &str) -> Option<u32> {
    let (pid, rest) = name.strip_prefix(".tmp-")?.split_once('-')?;
    let (count, _) = rest.split_once('-')?;
    count.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Flushes a directory's entries (renames, removals) to disk. Best effort:
/// not every platform or file system can open a directory for this, and the
/// rename has already happened either way.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TempDir;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .map(|entries| {
                entries.filter_map(|entry| entry.ok()).map(|e| e.file_name().to_string_lossy().into()).collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn a_write_replaces_the_file_and_leaves_no_temporary_file() {
        let dir = TempDir::new("atomic-replace");
        write_bytes(dir.path(), "a.txt", b"old").expect("first write");
        write_bytes(dir.path(), "a.txt", b"new").expect("second write");
        assert_eq!(fs::read(dir.path().join("a.txt")).expect("read"), b"new");
        assert_eq!(names(dir.path()), vec!["a.txt".to_string()]);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file() {
        let dir = TempDir::new("atomic-fail");
        write_bytes(dir.path(), "a.txt", b"old").expect("first write");
        let result = write_with(dir.path(), "a.txt", |temp| {
            fs::write(temp, b"half a fi")?;
            anyhow::bail!("the writer crashed")
        });
        assert!(result.is_err());
        assert_eq!(fs::read(dir.path().join("a.txt")).expect("read"), b"old");
        assert_eq!(names(dir.path()), vec!["a.txt".to_string()]);
    }

    #[test]
    fn removing_a_missing_file_is_not_an_error() {
        let dir = TempDir::new("atomic-remove");
        remove_if_exists(dir.path(), "nothing.json").expect("missing is fine");
        write_bytes(dir.path(), "x.json", b"{}").expect("write");
        remove_if_exists(dir.path(), "x.json").expect("remove");
        assert!(names(dir.path()).is_empty());
    }

    /// A pid that is gone: a child that has exited and been waited for.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().expect("`true` runs");
        let pid = child.id();
        child.wait().expect("`true` ends");
        assert!(!Path::new("/proc").join(pid.to_string()).exists(), "pid {pid} is gone");
        pid
    }

    /// A SIGKILL mid-write leaves `.tmp-<pid>-…` behind: the next write
    /// removes it, and keeps a live process's (ours, or another writer's).
    #[test]
    fn a_write_removes_the_temporary_files_of_processes_that_are_gone() {
        let dir = TempDir::new("atomic-stale");
        assert!(Path::new("/proc/self").exists(), "this test needs /proc (Linux)");
        let dead = format!(".tmp-{}-0-report.json", dead_pid());
        let ours = format!(".tmp-{}-999999-index.html", std::process::id());
        let init = ".tmp-1-0-summary.md".to_string();
        let unrelated = ".tmp-notes".to_string();
        for name in [&dead, &ours, &init, &unrelated] {
            fs::write(dir.path().join(name), b"half a fi").expect("write");
        }
        write_bytes(dir.path(), "a.txt", b"new").expect("write");
        let mut expected = vec![ours, init, unrelated, "a.txt".to_string()];
        expected.sort();
        assert_eq!(names(dir.path()), expected);
    }

    #[test]
    fn a_temporary_file_names_its_writer() {
        assert_eq!(temporary_file_pid(".tmp-4242-7-report.json"), Some(4242));
        assert_eq!(temporary_file_pid(".tmp-4242-7-a-b.json"), Some(4242));
        for name in [".tmp-notes", ".tmp-x-7-a", ".tmp-12-x-a", "report.json", ".tmp-12"] {
            assert_eq!(temporary_file_pid(name), None, "{name}");
        }
    }
}
