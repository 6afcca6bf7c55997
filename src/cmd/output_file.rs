//! A file an option names for a run to write (`bench hil --records FILE`),
//! checked, and opened where it must be, before anything runs: a run's
//! hours must not be lost to a path found wrong at its end, and no path may
//! destroy what it names.
//!
//! What the path names decides how it is written:
//! - nothing yet, or a regular file: written whole to a temporary file in
//!   its folder, then renamed over it (atomic: a reader sees the old file
//!   or the new one). A symbolic link to a regular file stays a link: its
//!   target is replaced.
//! - a FIFO or a character device (`--records >(gzip > r.gz)`,
//!   `/dev/stdout` on a pipe or a terminal, `/dev/null`): opened for
//!   writing now, written into at the end; never removed, truncated or
//!   replaced. A FIFO with no reader is refused: the run would block at
//!   its end with its results unwritten.
//! - anything else is refused (exit 2): a folder, a socket, a block device,
//!   a link to nothing, a descriptor (`/dev/stdout`, `/dev/fd/N`) open on a
//!   regular file (replacing the file would take it from under the shell's
//!   redirection), an input of the run, the report folder or a file the
//!   report writes.

use std::ffi::OsStr;
use std::fs::{self, File, Metadata};
use std::io::{self, Write as _};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

use anyhow::{anyhow, Context};

use crate::exit::{Failure, Result};

/// Symbolic links followed at most, as the kernel does (`ELOOP`).
const LINKS_FOLLOWED_MAX: usize = 40;

/// An output file, checked; [`OutputFile::write`] writes it.
#[derive(Debug)]
pub struct OutputFile {
    /// The option that names it, for messages: `--records`.
    option: &'static str,
    path: PathBuf,
    sink: Sink,
}

#[derive(Debug)]
enum Sink {
    /// Written whole to a temporary file in `folder`, renamed to `name`.
    Replaced { folder: PathBuf, name: String },
    /// A FIFO or character device, open since the check.
    Into(File),
}

/// What else the run reads or writes, so that an output file never lands
/// on it.
pub struct Neighbours<'a> {
    /// The report folder.
    pub report_dir: &'a Path,
    /// The names of the files the run writes in the report folder.
    pub report_files: &'a [&'a str],
    /// The files the run reads, with what they are: `("the firmware image", path)`.
    pub inputs: &'a [(&'a str, &'a Path)],
}

impl OutputFile {
    /// Checks `path`, given to `option`, against what it names and the
    /// run's other paths, and opens it when it is a FIFO or a device.
    /// Every refusal is a usage error naming the option and the path.
    pub fn prepare(option: &'static str, path: &Path, neighbours: &Neighbours<'_>) -> Result<OutputFile> {
        let refuse = |why: String| Failure::usage(anyhow!("{option} {}: {why} (nothing was run)", path.display()));
        refuse_an_overlap(path, neighbours).map_err(refuse)?;
        let sink = match fs::metadata(path) {
            Ok(metadata) if metadata.is_file() => replaced_file(path).map_err(refuse)?,
            Ok(metadata) if metadata.file_type().is_fifo() || metadata.file_type().is_char_device() => {
                Sink::Into(open_to_write_into(path, &metadata).map_err(refuse)?)
            }
            Ok(metadata) => return Err(refuse(format!("is {}: give a file", kind_of(&metadata)))),
            Err(error) if error.kind() == io::ErrorKind::NotFound => new_file(path, neighbours).map_err(refuse)?,
            Err(error) => return Err(refuse(format!("cannot be looked at ({error})"))),
        };
        Ok(OutputFile { option, path: path.to_path_buf(), sink })
    }

    /// Writes `bytes`: into the FIFO or device, or whole to the file.
    pub fn write(self, bytes: &[u8]) -> anyhow::Result<()> {
        let OutputFile { option, path, sink } = self;
        let context = || format!("writing {option} {}", path.display());
        match sink {
            Sink::Replaced { folder, name } => {
                bench_report::atomic::write_bytes(&folder, &name, bytes).with_context(context)?;
            }
            Sink::Into(mut file) => file.write_all(bytes).and_then(|()| file.flush()).with_context(context)?,
        }
        Ok(())
    }
}

/// An existing regular file, or a link to one: its target is replaced.
fn replaced_file(path: &Path) -> std::result::Result<Sink, String> {
    if let Some(file) = open_descriptor_on(path) {
        return Err(format!(
            "names a descriptor open on the regular file {}, which bench would replace from under it: give \
             {} itself",
            file.display(),
            file.display()
        ));
    }
    let target = if fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_symlink()) {
        fs::canonicalize(path).map_err(|error| format!("cannot follow its link ({error})"))?
    } else {
        path.to_path_buf()
    };
    let (folder, name) = folder_and_name(&target)?;
    writable_folder(&folder)?;
    Ok(Sink::Replaced { folder, name })
}

/// A path that names nothing yet: made in its folder, which must exist
/// (or be the report folder, made before the run) and take a file.
fn new_file(path: &Path, neighbours: &Neighbours<'_>) -> std::result::Result<Sink, String> {
    if fs::symlink_metadata(path).is_ok() {
        let to = fs::read_link(path).map_or_else(|_| "?".to_string(), |to| to.display().to_string());
        return Err(format!("is a symbolic link to {to}, which does not exist: give a file"));
    }
    let (folder, name) = folder_and_name(path)?;
    if folder.is_dir() {
        writable_folder(&folder)?;
    } else if !same_path(&folder, neighbours.report_dir) {
        return Err(format!("no such folder {}", folder.display()));
    }
    Ok(Sink::Replaced { folder, name })
}

fn folder_and_name(path: &Path) -> std::result::Result<(PathBuf, String), String> {
    let name = path.file_name().and_then(OsStr::to_str).ok_or("give a file name (UTF-8), not a folder")?;
    let folder = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Ok((folder.to_path_buf(), name.to_string()))
}

/// Files can be made (and renamed) in `folder`: found by trying, as for
/// the report folder.
fn writable_folder(folder: &Path) -> std::result::Result<(), String> {
    super::try_writing_in(folder).map_err(|error| {
        format!(
            "cannot be written: its folder {} takes no file ({error}); give a path you can write to",
            folder.display()
        )
    })
}

/// Opens a FIFO or a character device for writing, without creating or
/// truncating it. A FIFO with no reader fails at once (`ENXIO` of a
/// non-blocking open) instead of blocking; it is then reopened blocking,
/// so that the records are written whole.
fn open_to_write_into(path: &Path, metadata: &Metadata) -> std::result::Result<File, String> {
    let open = |flags: i32| fs::OpenOptions::new().write(true).custom_flags(flags).open(path);
    let cannot = |error: io::Error| format!("is {} that cannot be opened for writing ({error})", kind_of(metadata));
    let non_blocking = match open(libc::O_NONBLOCK) {
        Err(error) if metadata.file_type().is_fifo() && error.raw_os_error() == Some(libc::ENXIO) => {
            return Err("is a FIFO that no process reads: start its reader first (it is written into, never \
                        replaced)"
                .to_string());
        }
        opened => opened.map_err(cannot)?,
    };
    // Open until the blocking one is: closing the only writer first would
    // end the reader's input.
    let file = open(0).map_err(cannot)?;
    drop(non_blocking);
    Ok(file)
}

/// `path` or the links it goes through name a descriptor
/// (`/dev/stdout`, `/dev/fd/N`, `/proc/PID/fd/N`) open on a regular
/// file: that file.
fn open_descriptor_on(path: &Path) -> Option<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..LINKS_FOLLOWED_MAX {
        let target = fs::read_link(&current).ok()?;
        let parent = current.parent().unwrap_or(Path::new("/"));
        let in_a_descriptor_folder =
            parent.file_name() == Some(OsStr::new("fd")) && (parent.starts_with("/proc") || parent.starts_with("/dev"));
        if in_a_descriptor_folder {
            return fs::canonicalize(&current).ok();
        }
        current = parent.join(target);
    }
    None
}

/// The output must not be the report folder, a file the report writes,
/// or a file the run reads.
fn refuse_an_overlap(path: &Path, neighbours: &Neighbours<'_>) -> std::result::Result<(), String> {
    let report_dir = neighbours.report_dir;
    if same_path(path, report_dir) {
        return Err("is the report folder (--out): give a file outside it, or a name it does not use".to_string());
    }
    let in_the_report_dir = path.parent().is_some_and(|parent| same_path(parent, report_dir));
    let name = path.file_name().and_then(OsStr::to_str).unwrap_or_default();
    if in_the_report_dir && neighbours.report_files.contains(&name) {
        return Err(format!(
            "is the report's own {name} in the report folder {}: the report would replace it, or it the \
             report; give another name (e.g. records.jsonl) or another folder",
            report_dir.display()
        ));
    }
    for (what, input) in neighbours.inputs {
        if same_file(path, input) {
            return Err(format!("is {what} the run reads: writing it would destroy it; give another file"));
        }
    }
    Ok(())
}

/// `a` and `b` name the same place: equal once made absolute and
/// normalised, or the same existing file or folder.
pub fn same_path(a: &Path, b: &Path) -> bool {
    normalised(a) == normalised(b) || same_file(a, b)
}

/// `a` and `b` exist and are the same file or folder (links followed).
fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// `path` absolute, without `.` and with `..` taken lexically.
fn normalised(path: &Path) -> PathBuf {
    let absolute =
        if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(path) };
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// What a file that is not a regular file is, for a message.
pub fn kind_of(metadata: &Metadata) -> &'static str {
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        "a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bench-output-file-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("a scratch folder");
        dir
    }

    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
        assert!(status.success(), "mkfifo {}", path.display());
    }

    fn neighbours<'a>(report_dir: &'a Path, inputs: &'a [(&'a str, &'a Path)]) -> Neighbours<'a> {
        Neighbours { report_dir, report_files: &["report.json", "run.json"], inputs }
    }

    /// A FIFO (the shell's `>(gzip > r.gz)`) is written into and stays a
    /// FIFO; its reader gets every byte.
    #[test]
    fn a_fifo_is_written_into_and_never_replaced() {
        let dir = scratch("fifo");
        let fifo = dir.join("records");
        mkfifo(&fifo);
        let reader_path = fifo.clone();
        let reader = std::thread::spawn(move || fs::read(reader_path).expect("the reader reads"));
        // The reader opens it in its own time: wait until it has.
        let report_dir = dir.join("report");
        let file = loop {
            match OutputFile::prepare("--records", &fifo, &neighbours(&report_dir, &[])) {
                Ok(file) => break file,
                Err(failure) if format!("{:#}", failure.error).contains("no process reads") => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(failure) => panic!("{:#}", failure.error),
            }
        };
        file.write(b"{\"game\":0}\n").expect("written");
        // Before the reader is joined: a replaced FIFO leaves it waiting.
        assert!(fs::symlink_metadata(&fifo).expect("still there").file_type().is_fifo(), "still a FIFO");
        assert_eq!(reader.join().expect("the reader ends"), b"{\"game\":0}\n");
        assert_eq!(fs::read_dir(&dir).expect("the folder").count(), 1, "no temporary file left");
    }

    /// A FIFO nobody reads would block the run at its end: refused at once.
    #[test]
    fn a_fifo_without_a_reader_is_refused_before_the_run() {
        let dir = scratch("fifo-no-reader");
        let fifo = dir.join("records");
        mkfifo(&fifo);
        let failure =
            OutputFile::prepare("--records", &fifo, &neighbours(&dir.join("report"), &[])).expect_err("refused");
        assert_eq!(failure.exit, crate::exit::Exit::Usage);
        let message = format!("{:#}", failure.error);
        assert!(message.starts_with(&format!("--records {}: is a FIFO", fifo.display())), "{message}");
        assert!(fs::symlink_metadata(&fifo).expect("kept").file_type().is_fifo());
    }

    /// A link to a regular file keeps being a link: its target gets the
    /// records.
    #[test]
    fn a_link_to_a_file_keeps_the_link_and_replaces_its_target() {
        let dir = scratch("link");
        let target = dir.join("target.jsonl");
        fs::write(&target, "old").expect("write");
        let link = dir.join("link.jsonl");
        std::os::unix::fs::symlink(&target, &link).expect("a link");
        let file = OutputFile::prepare("--records", &link, &neighbours(&dir.join("report"), &[])).expect("accepted");
        file.write(b"new").expect("written");
        assert!(fs::symlink_metadata(&link).expect("kept").file_type().is_symlink(), "still a link");
        assert_eq!(fs::read(&target).expect("read"), b"new");
    }

    /// Each path the run must not write over, and each it cannot write:
    /// refused, naming the option, the path and why.
    #[test]
    fn what_an_output_file_must_not_be_is_refused_with_the_reason() {
        let dir = scratch("refused");
        let report_dir = dir.join("report");
        let scenario = dir.join("scenario.toml");
        fs::write(&scenario, "x").expect("write");
        let dangling = dir.join("dangling");
        std::os::unix::fs::symlink(dir.join("nothing"), &dangling).expect("a link");
        let socket_path = dir.join("socket");
        let _socket = std::os::unix::net::UnixListener::bind(&socket_path).expect("a socket");
        let inputs = [("the scenario file", scenario.as_path())];
        let cases: [(PathBuf, &str); 8] = [
            (report_dir.join("report.json"), "is the report's own report.json"),
            (report_dir.join("sub/../run.json"), "is the report's own run.json"),
            (report_dir.clone(), "is the report folder"),
            (dir.join("./scenario.toml"), "is the scenario file the run reads"),
            (dangling.clone(), "is a symbolic link to"),
            (socket_path.clone(), "a socket: give a file"),
            (dir.clone(), "a folder: give a file"),
            (dir.join("no-folder/records.jsonl"), "no such folder"),
        ];
        for (path, why) in cases {
            let failure =
                OutputFile::prepare("--records", &path, &neighbours(&report_dir, &inputs)).expect_err("refused");
            let message = format!("{:#}", failure.error);
            assert_eq!(failure.exit, crate::exit::Exit::Usage, "{message}");
            assert!(message.starts_with(&format!("--records {}: ", path.display())), "{message}");
            assert!(message.contains(why), "{}: `{why}` missing from: {message}", path.display());
        }
        assert_eq!(fs::read(&scenario).expect("kept"), b"x");
        // In the report folder, a name the report does not write is fine,
        // though the folder is made only when the run starts.
        OutputFile::prepare("--records", &report_dir.join("records.jsonl"), &neighbours(&report_dir, &inputs))
            .expect("beside the report");
    }
}
