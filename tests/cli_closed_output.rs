//! `bench … 2>&1 | head`: the reader goes away and bench's notes on stderr
//! have nowhere to go. That loses the notes, not the run: the exit code is
//! the one the run earned, never a panic's 101. (Stdout's side is
//! `cmd::print`'s: a broken pipe there is not an error.)

mod support;

use std::fs::OpenOptions;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

/// `bench ARGS` with stderr on `/dev/full`, where every write fails, as
/// into a pipe nobody reads any more (deterministic, where a real closed
/// pipe would race with bench's first write).
fn bench_with_failing_stderr(args: &[&str]) -> ExitStatus {
    let full = OpenOptions::new().write(true).open("/dev/full").expect("/dev/full opens");
    Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("BENCH_SCENARIOS", Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(full)
        .status()
        .expect("bench runs")
}

#[test]
fn an_error_with_nowhere_to_go_keeps_its_exit_code() {
    assert_eq!(bench_with_failing_stderr(&["sim", "--scenario", "nosuch"]).code(), Some(2));
}

#[test]
fn a_run_with_nowhere_to_write_notes_keeps_its_exit_code_and_report() {
    let out = support::temp_dir("closed-output").join("report");
    let out_text = out.to_str().expect("a UTF-8 path");
    let args = ["sim", "--scenario", "blitz-3-2", "--games", "5", "--out", out_text];
    assert_eq!(bench_with_failing_stderr(&args).code(), Some(0));
    assert!(out.join("report.json").is_file(), "no report in {}", out.display());
}
