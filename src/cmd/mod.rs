//! One module per subcommand. Each has a `Cmd` (its clap arguments) and a
//! `Cmd::run` that returns an [`Exit`](crate::exit::Exit) or a
//! [`Failure`](crate::exit::Failure); printing of errors and the exit code
//! are left to `main`.

pub mod boards;
pub mod completions;
pub mod game_runs;
pub mod gate;
pub mod hil;
pub mod output_file;
pub mod perf;
pub mod report;
pub mod run_args;
pub mod scenarios;
pub mod shard;
pub mod sim;
pub mod timecontrol;

use std::fmt::{Display, Write as _};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use anyhow::Context;

use crate::exit::{Exit, Failure};

/// Set once Ctrl-C, SIGTERM or SIGHUP arrives: `bench sim` and `bench hil`
/// finish the games under way and end with an incomplete report. A second
/// one stops at once (a very long game must not hold the terminal; an
/// emulator dies with bench). One flag per process, since ctrlc takes one
/// handler and a suite plays several runs.
pub fn stop_on_interrupt(command: &'static str) -> Arc<AtomicBool> {
    static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    Arc::clone(STOP.get_or_init(|| {
        let stop = Arc::new(AtomicBool::new(false));
        let handler_stop = Arc::clone(&stop);
        let _ = ctrlc::set_handler(move || {
            if handler_stop.swap(true, Ordering::Relaxed) {
                note(&format!("bench {command}: interrupted again: stopping now, without a report"));
                std::process::exit(3);
            }
            note(&format!(
                "bench {command}: interrupted: finishing the games under way (interrupt again to stop at once)"
            ));
        });
        stop
    }))
}

/// `--max-moves N`: 1 up to the scenario files' own bound, so no flag makes
/// a game longer than a file may (a bound of days of play is no bound).
pub fn parse_max_moves(text: &str) -> Result<u32, String> {
    let max = bench_sim::scenario::MOVES_MAX;
    let moves: u32 = text.trim().parse().map_err(|_| format!("`{text}` is not a number of moves: give 1 to {max}"))?;
    if moves == 0 || moves > max {
        return Err(format!("{moves} moves per player: give 1 to {max}, the bound scenario files have too"));
    }
    Ok(moves)
}

/// Writes a command's report to stdout. A closed pipe (`bench … | head`) is
/// not a failure; any other write error is an infrastructure failure.
///
/// Control characters and bidirectional overrides show as `[U+XXXX]`
/// ([`bench_report::format::visible`]): what is printed quotes users' files.
/// Writes `text` and a newline to stderr. Where stderr is closed (`bench
/// … 2>&1 | head`) the note is lost and the run goes on: `eprintln!` would
/// panic there and turn the run's exit code into 101.
pub fn note(text: &str) {
    let _ = writeln!(io::stderr().lock(), "{text}");
}

pub fn print(text: &str) -> crate::exit::Result<()> {
    let text = bench_report::format::visible::visible(text);
    let mut stdout = io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => Err(error).context("writing to stdout")?,
        Ok(()) | Err(_) => Ok(()),
    }
}

/// Appends where the report was written, then the default gate's printout
/// on it, or why the gate could not read it back; `gated` is `None` when
/// the gate was not applied (an incomplete report).
pub fn push_report_and_gate(out: &mut String, out_dir: &Path, gated: Option<&anyhow::Result<(bool, String)>>) {
    let _ = writeln!(out, "report: {}", out_dir.display());
    match gated {
        Some(Ok((_, text))) => out.push_str(text),
        Some(Err(error)) => {
            let _ = writeln!(out, "gate: cannot read the report back: {error:#}");
        }
        None => {}
    }
}

/// A usage error when the report folder is an existing file (or a FIFO, a
/// device, a link to nothing): checked before anything else runs, so that
/// it is the error a user sees.
pub fn refuse_a_file_as_out_dir(dir: &Path) -> crate::exit::Result<()> {
    let refuse = |what: String| {
        Err(Failure::usage(anyhow::anyhow!(
            "the report folder {} is {what}: give --out a folder (nothing was run)",
            dir.display()
        )))
    };
    match std::fs::metadata(dir) {
        Ok(metadata) if !metadata.is_dir() => refuse(output_file::kind_of(&metadata).to_string()),
        Err(_) if std::fs::symlink_metadata(dir).is_ok() => {
            let to = std::fs::read_link(dir).map_or_else(|_| "?".to_string(), |to| to.display().to_string());
            refuse(format!("a symbolic link to {to}, which does not exist"))
        }
        _ => Ok(()),
    }
}

pub use bench_report::suite::{SKIPPED_MD, SUITE_MD};

/// Every name a run writes in its report folder.
pub fn report_folder_names() -> Vec<&'static str> {
    bench_report::files::FILES.iter().map(|file| file.name).chain([SKIPPED_MD, SUITE_MD]).collect()
}

/// A usage error when the report folder holds, under a name a run writes,
/// something that is not a regular file (a FIFO, a device, a socket, a
/// folder, a symbolic link): a run replaces its files by renaming new ones
/// over them, which would destroy it.
fn refuse_what_the_report_may_not_replace(dir: &Path) -> crate::exit::Result<()> {
    for name in report_folder_names() {
        let path = dir.join(name);
        let Ok(metadata) = std::fs::symlink_metadata(&path) else { continue };
        if !metadata.is_file() {
            return Err(Failure::usage(anyhow::anyhow!(
                "{} is {}: a run writes its {name} there and would replace it; move it away or give --out \
                 another folder (nothing was run)",
                path.display(),
                output_file::kind_of(&metadata)
            )));
        }
    }
    Ok(())
}

/// A usage error when `dir` holds the report of a run other than
/// `command`'s and `force` (`--force`) was not given: a new run must not
/// destroy an earlier, different one without saying so. Before this check
/// `bench sim --scenario both-flags --games 2000` silently replaced the
/// scenario's own run in `reports/both-flags-1`.
pub fn refuse_to_replace_another_run(dir: &Path, command: &str, force: bool) -> crate::exit::Result<()> {
    match bench_report::another_runs_report(dir, command) {
        Some(why) if !force => Err(Failure::usage(anyhow::anyhow!("{why} (nothing was run)"))),
        _ => Ok(()),
    }
}

/// Makes sure the report folder can exist before any game is played: a
/// sweep's hours or a board's run must not be lost to a folder that cannot
/// be written.
pub fn prepare_out_dir(dir: &Path) -> crate::exit::Result<()> {
    check_out_dir(dir)?;
    std::fs::create_dir_all(dir).map_err(|error| cannot_create(dir, &error))?;
    refuse_an_unwritable_folder(dir, dir)
}

/// [`prepare_out_dir`]'s checks without creating anything, for commands
/// that have more inputs to check first: the report folder, or the nearest
/// folder above it that exists, must take a file.
pub fn check_out_dir(dir: &Path) -> crate::exit::Result<()> {
    refuse_a_file_as_out_dir(dir)?;
    refuse_what_the_report_may_not_replace(dir)?;
    let Some(existing) = dir.ancestors().find(|folder| folder.exists()) else {
        // A relative path with nothing of it yet: it is made in the
        // working folder.
        return refuse_an_unwritable_folder(dir, Path::new("."));
    };
    if !existing.is_dir() {
        // The user's path, not the machine: a usage error.
        return Err(Failure::usage(anyhow::anyhow!(
            "the report folder {} cannot be made: {} is a file, not a folder; give --out a path below a folder \
             (nothing was run)",
            dir.display(),
            existing.display()
        )));
    }
    refuse_an_unwritable_folder(dir, existing)
}

fn cannot_create(dir: &Path, error: &io::Error) -> Failure {
    Failure::infrastructure(anyhow::anyhow!(
        "cannot create the report folder {}: {error} (nothing was run)",
        dir.display()
    ))
}

/// A usage error when files cannot be made and removed in `folder` (the
/// report folder `dir` or the one it is to be made in): read-only,
/// another user's. Found by trying, since permission bits do not tell
/// (root, ACLs, read-only mounts). Before this check every game was
/// played and the report then lost.
fn refuse_an_unwritable_folder(dir: &Path, folder: &Path) -> crate::exit::Result<()> {
    try_writing_in(folder).map_err(|error| {
        let place = if dir == folder { String::new() } else { format!(" (in {})", folder.display()) };
        Failure::usage(anyhow::anyhow!(
            "the report folder {}{place} cannot be written ({error}): give --out a folder you can write to, or \
             fix its permissions (nothing was run)",
            dir.display()
        ))
    })
}

/// Makes a file in `folder` and removes it: whether a run can write
/// there, found by trying, since permission bits do not tell (root, ACLs,
/// read-only mounts, `/proc`). Safe to call from several threads at once.
pub fn try_writing_in(folder: &Path) -> io::Result<()> {
    // One name per probe: a suite on several emulators checks its
    // scenarios' folders at once, often in the same folder.
    static PROBES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let probe_number = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let probe = folder.join(format!(".bench-write-probe-{}-{probe_number}", std::process::id()));
    std::fs::OpenOptions::new().write(true).create_new(true).open(&probe).and_then(|file| {
        drop(file);
        std::fs::remove_file(&probe)
    })
}

/// Prints one line per file, `NAME  DESCRIPTION` (the name is the file's
/// stem, padded to the longest), then `footer`. A file `describe` cannot
/// read is listed as invalid and its error printed after the list: a usage
/// error, exit 2.
pub fn print_file_list<E: Display>(
    files: &[PathBuf],
    describe: impl Fn(&Path) -> Result<String, E>,
    footer: &str,
) -> crate::exit::Result {
    let (listing, errors) = file_list(files, describe, footer);
    print(&listing)?;
    if errors.is_empty() {
        Ok(Exit::Pass)
    } else {
        Err(Failure::usage(anyhow::anyhow!("{}", errors.join("\n"))))
    }
}

/// [`print_file_list`]'s text, and the errors of the files that could not
/// be described.
fn file_list<E: Display>(
    files: &[PathBuf],
    describe: impl Fn(&Path) -> Result<String, E>,
    footer: &str,
) -> (String, Vec<String>) {
    let stem = |file: &PathBuf| file.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    let width = files.iter().map(|file| stem(file).chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    let mut errors = Vec::new();
    for file in files {
        let name = stem(file);
        match describe(file) {
            Ok(description) => {
                let _ = writeln!(out, "{name:<width$}  {description}");
            }
            Err(error) => {
                let _ = writeln!(out, "{name:<width$}  (invalid: see below)");
                errors.push(error.to_string());
            }
        }
    }
    let _ = writeln!(out, "\n{footer}");
    (out, errors)
}

/// `text` as one word for a POSIX shell: as it is when that is safe, else
/// in single quotes, so that a printed command can be pasted.
pub fn shell_word(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./:=+,@%".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A suite on several emulators checks its scenarios' report folders at
    /// once, in the same folder: no check may take another's probe for an
    /// unwritable folder.
    #[test]
    fn writing_probes_at_once_in_one_folder_all_succeed() {
        let dir = std::env::temp_dir().join(format!("bench-write-probes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a folder for the probes");
        let failures: usize = std::thread::scope(|scope| {
            let workers: Vec<_> =
                (0..8).map(|_| scope.spawn(|| (0..200).filter(|_| try_writing_in(&dir).is_err()).count())).collect();
            workers.into_iter().map(|worker| worker.join().expect("a probe thread")).sum()
        });
        let left = std::fs::read_dir(&dir).expect("the folder").count();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(failures, 0);
        assert_eq!(left, 0, "every probe removed");
    }

    #[test]
    fn a_written_report_is_followed_by_the_gate_or_why_it_could_not_run() {
        let dir = Path::new("reports/x-1");
        let lines = |gated: Option<&anyhow::Result<(bool, String)>>| {
            let mut out = String::from("summary\n");
            push_report_and_gate(&mut out, dir, gated);
            out
        };
        assert_eq!(lines(None), "summary\nreport: reports/x-1\n");
        assert_eq!(lines(Some(&Ok((false, "gate: FAIL\n".into())))), "summary\nreport: reports/x-1\ngate: FAIL\n");
        let unreadable = Err(anyhow::anyhow!("no such file").context("reading report.json"));
        assert_eq!(
            lines(Some(&unreadable)),
            "summary\nreport: reports/x-1\ngate: cannot read the report back: reading report.json: no such file\n"
        );
    }

    #[test]
    fn a_file_list_pads_names_and_sets_the_invalid_ones_apart() {
        let files = [PathBuf::from("dir/qemu.toml"), PathBuf::from("dir/broken.toml"), PathBuf::from("dir/x.toml")];
        let describe = |file: &Path| match file.file_stem().and_then(|stem| stem.to_str()) {
            Some("broken") => Err(format!("{}:3:1: field `chip`: missing", file.display())),
            Some(stem) => Ok(format!("the {stem} board")),
            None => Err("no name".to_string()),
        };
        let (text, errors) = file_list(&files, describe, "Files are in dir.");
        assert_eq!(
            text,
            "qemu    the qemu board\nbroken  (invalid: see below)\nx       the x board\n\nFiles are in dir.\n"
        );
        assert_eq!(errors, ["dir/broken.toml:3:1: field `chip`: missing"]);
        let (text, errors) = file_list::<String>(&[], |_| Ok(String::new()), "none");
        assert_eq!((text.as_str(), errors.len()), ("\nnone\n", 0));
    }
}
