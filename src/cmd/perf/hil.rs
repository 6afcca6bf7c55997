//! `bench perf --only hil`: the emulated board's speed in lockstep, against
//! the goal of 10× real time (issue 38): guest seconds per wall second, and
//! the lockstep stops per guest second and the host time each stop took, by
//! kind (`hil/LOCKSTEP.md`).
//!
//! It measures the real thing: this same binary run as `bench hil --board
//! qemu … --out SCRATCH --force`, so the reference image and QEMU are found
//! as `bench hil` finds them and a missing one ends perf with `bench hil`'s
//! own message and exit code. The wall time is read here, around the child
//! process; guest time and the stops come from the reports it wrote
//! (`run.json`, `report.json`), which never read the wall clock.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant as WallClock};

use anyhow::{anyhow, Context};
use bench_report::hil::HilRunFacts;
use bench_sim::perf::against_goal;

use crate::exit::{Exit, Failure, Result};

/// Guest seconds per wall second the emulated board should reach.
pub const GOAL_REAL_TIME: f64 = 10.0;

/// One timed `bench hil` run: what it plays, and its arguments after
/// `bench hil --board qemu`.
struct HilRun {
    label: String,
    args: Vec<String>,
}

impl HilRun {
    /// The release suite on one emulator and on one per core, and one game
    /// of `blitz-3-2`; or one game of `scenario` alone (tests: a short
    /// scenario keeps them short).
    fn all(scenario: Option<&str>) -> Vec<HilRun> {
        let one_game = |name: &str| HilRun {
            label: format!("{name}, 1 game"),
            args: ["--scenario", name, "--games", "1"].map(String::from).to_vec(),
        };
        match scenario {
            Some(name) => vec![one_game(name)],
            None => {
                let mut runs = vec![HilRun { label: "release suite".to_string(), args: Vec::new() }];
                // The goal is for the machine's cores: the suite's
                // scenarios on as many emulators at once.
                let cores = std::thread::available_parallelism().map_or(1, usize::from);
                if cores > 1 {
                    runs.push(HilRun {
                        label: format!("release suite on {cores} emulators at once"),
                        args: vec!["--jobs".to_string(), cores.to_string()],
                    });
                }
                runs.push(one_game("blitz-3-2"));
                runs
            }
        }
    }

    /// The command as a user would type it (without the scratch folder).
    fn command(&self) -> String {
        let mut command = "bench hil --board qemu".to_string();
        for arg in &self.args {
            command.push(' ');
            command.push_str(&crate::cmd::shell_word(arg));
        }
        command
    }
}

/// Times each run and prints its figures as they come. Exit 0, or 1 when a
/// run's gate failed (its figures are printed and its reports kept); a run
/// that `bench hil` could not start or finish ends perf with its exit code
/// and message.
pub fn measure(scenario: Option<&str>, print: &mut dyn FnMut(String) -> Result<()>) -> Result {
    let exe = std::env::current_exe().context("finding bench's own executable to run `bench hil`")?;
    let mut exit = Exit::Pass;
    for (index, run) in HilRun::all(scenario).iter().enumerate() {
        let scratch = Scratch::new(index)?;
        // Nothing is printed for minutes otherwise: say what is running.
        crate::cmd::note(&format!("bench perf: timing `{}` …", run.command()));
        let (wall, gate_failed) = time_run(&exe, run, &scratch)?;
        let tally = Tally::of(&scratch.reports())?;
        for line in figure_lines(run, &tally, wall) {
            print(line)?;
        }
        if gate_failed {
            let kept = scratch.keep();
            print(format!(
                "  the run failed its gate (`bench hil` exit 1): its reports are kept in {}",
                kept.display()
            ))?;
            exit = Exit::GateFailed;
        }
    }
    Ok(exit)
}

/// A folder of its own for one run's reports and console, removed when done.
struct Scratch {
    dir: PathBuf,
    keep: bool,
}

impl Scratch {
    fn new(index: usize) -> Result<Scratch> {
        let dir = std::env::temp_dir().join(format!("bench-perf-hil-{}-{index}", std::process::id()));
        // A folder left by an earlier process of the same id.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating the scratch folder {}", dir.display()))?;
        Ok(Scratch { dir, keep: false })
    }

    /// Where `bench hil --out` writes.
    fn reports(&self) -> PathBuf {
        self.dir.join("reports")
    }

    /// Keeps the reports for the user to read; returns their folder.
    fn keep(mut self) -> PathBuf {
        self.keep = true;
        self.reports()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A `bench hil` child that never outlives this process: killed when
/// dropped unfinished (an error here), and by the kernel when bench dies.
struct HilChild(Child);

impl Drop for HilChild {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            // Its emulator dies with it (`die_with_parent` in bench hil).
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Runs `run` into `scratch`, timed; whether its gate failed. `bench hil`'s
/// usage and infrastructure failures (QEMU or the image missing, …) end
/// perf with the same exit code and what `bench hil` said.
fn time_run(exe: &Path, run: &HilRun, scratch: &Scratch) -> Result<(Duration, bool)> {
    let console = |name: &str| {
        let path = scratch.dir.join(name);
        File::create(&path).with_context(|| format!("creating {}", path.display())).map(|file| (path, file))
    };
    let ((stdout_path, stdout), (stderr_path, stderr)) = (console("stdout")?, console("stderr")?);
    let mut command = Command::new(exe);
    command
        .args(["hil", "--board", "qemu"])
        .args(&run.args)
        .arg("--out")
        .arg(scratch.reports())
        .arg("--force")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    bench_hil::backend::qemu::die_with_parent(&mut command);
    let started = WallClock::now();
    let mut child = HilChild(command.spawn().with_context(|| format!("starting {}", exe.display()))?);
    let status = child.0.wait().with_context(|| format!("waiting for `{}`", run.command()))?;
    let wall = started.elapsed();
    let (exit, ended) = match status.code() {
        Some(0) => return Ok((wall, false)),
        Some(1) => return Ok((wall, true)),
        Some(2) => (Exit::Usage, "exited 2".to_string()),
        Some(code) => (Exit::Infrastructure, format!("exited {code}")),
        None => (Exit::Infrastructure, format!("ended without an exit code ({status})")),
    };
    // What bench hil said of it: its errors go to stderr, its report's
    // verdict (which names the error too) to stdout.
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default().trim().to_string();
    let said = Some(read(&stderr_path)).filter(|text| !text.is_empty()).unwrap_or_else(|| read(&stdout_path));
    let error = anyhow!("`{}` {ended} (perf runs it to time the emulated board):\n{said}", run.command());
    Err(Failure { exit, error })
}

/// What a run's report folders say, over all of them (a suite writes one
/// folder per scenario, a scenario one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tally {
    reports: u64,
    games: u64,
    incomplete: u64,
    guest_ms: u64,
    record_stops: u64,
    tick_stops: u64,
    record_host_ms: u64,
    tick_host_ms: u64,
}

impl Tally {
    /// The tally of `dir`: its own `run.json` and `report.json`, or those of
    /// each folder in it (a suite's; a skipped scenario has none).
    fn of(dir: &Path) -> anyhow::Result<Tally> {
        let mut folders = vec![dir.to_path_buf()];
        if !dir.join("run.json").is_file() {
            let entries =
                std::fs::read_dir(dir).with_context(|| format!("reading the report folder {}", dir.display()))?;
            folders = entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|folder| folder.join("run.json").is_file())
                .collect();
            folders.sort();
        }
        if folders.is_empty() {
            anyhow::bail!("no run.json in {} or its folders: `bench hil` wrote no report to measure", dir.display());
        }
        let mut tally = Tally::default();
        for folder in folders {
            tally.add_folder(&folder)?;
        }
        Ok(tally)
    }

    /// Adds one report folder's games, guest time and stops.
    fn add_folder(&mut self, folder: &Path) -> anyhow::Result<()> {
        let read = |name: &str| {
            let path = folder.join(name);
            std::fs::read(&path).with_context(|| format!("reading {}", path.display())).map(|bytes| (path, bytes))
        };
        let (path, bytes) = read("run.json")?;
        let facts: HilRunFacts =
            serde_json::from_slice(&bytes).with_context(|| format!("parsing {}", path.display()))?;
        let (path, bytes) = read("report.json")?;
        let report: serde_json::Value =
            serde_json::from_slice(&bytes).with_context(|| format!("parsing {}", path.display()))?;
        let played = report["games"]["played"].as_u64();
        let complete = report["complete"].as_bool();
        let (Some(played), Some(complete)) = (played, complete) else {
            anyhow::bail!("{}: no `games.played` or `complete`: not a bench hil report", path.display());
        };
        self.reports += 1;
        self.games += played;
        self.incomplete += u64::from(!complete);
        self.guest_ms += facts.guest_ms;
        if let Some(stops) = facts.stops {
            self.record_stops += stops.record_stops;
            self.tick_stops += stops.tick_stops;
            self.record_host_ms += stops.record_host_ms;
            self.tick_host_ms += stops.tick_host_ms;
        }
        Ok(())
    }

    fn guest_s(&self) -> f64 {
        self.guest_ms as f64 / 1e3
    }

    /// Guest seconds per wall second.
    fn real_time_ratio(&self, wall: Duration) -> f64 {
        self.guest_s() / wall.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// Stops of a kind per guest second, and the host ms each took.
    fn per_stop(&self, stops: u64, host_ms: u64) -> (f64, f64) {
        let per_guest_s = stops as f64 / self.guest_s().max(f64::MIN_POSITIVE);
        let host_ms_each = host_ms as f64 / (stops.max(1) as f64);
        (per_guest_s, host_ms_each)
    }
}

/// A run's lines: what it played in how long, its stops, its goal.
fn figure_lines(run: &HilRun, tally: &Tally, wall: Duration) -> Vec<String> {
    let ratio = tally.real_time_ratio(wall);
    let mut lines = vec![format!(
        "hil {} ({}): {} reports, {} games, {:.1} s of guest time in {:.1} s = {ratio:.2}x real time",
        run.label,
        run.command(),
        tally.reports,
        tally.games,
        tally.guest_s(),
        wall.as_secs_f64()
    )];
    let kind = |name: &str, stops: u64, host_ms: u64| {
        let (per_guest_s, host_ms_each) = tally.per_stop(stops, host_ms);
        format!("{name} {stops} ({per_guest_s:.2} per guest s, {host_ms_each:.2} ms of host time each)")
    };
    lines.push(match tally.record_stops + tally.tick_stops {
        0 => "  lockstep stops: none (not in lockstep)".to_string(),
        _ => format!(
            "  lockstep stops: {}; {}",
            kind("record", tally.record_stops, tally.record_host_ms),
            kind("tick", tally.tick_stops, tally.tick_host_ms)
        ),
    });
    if tally.incomplete > 0 {
        lines.push(format!(
            "  {} of the {} reports incomplete: the figures cover what was played",
            tally.incomplete, tally.reports
        ));
    }
    lines.push(against_goal(ratio, GOAL_REAL_TIME, "x real time"));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_report::hil::StopFacts;

    /// A report folder as `bench hil` writes it: `run.json` with `guest_ms`
    /// and `stops`, `report.json` with the games played.
    fn write_folder(dir: &Path, guest_ms: u64, stops: Option<StopFacts>, played: u64, complete: bool) {
        std::fs::create_dir_all(dir).expect("a fixture folder");
        let facts = HilRunFacts {
            schema: "bench.hil.run/1".to_string(),
            bench_version: "0.1.0".to_string(),
            git_commit: None,
            host: "host".to_string(),
            started_unix_s: 0,
            wall_ms: 1,
            guest_ms,
            speed: None,
            board: "QEMU".to_string(),
            stops,
        };
        std::fs::write(dir.join("run.json"), serde_json::to_vec(&facts).expect("serialises")).expect("run.json");
        let report = serde_json::json!({ "complete": complete, "games": { "requested": played, "played": played } });
        std::fs::write(dir.join("report.json"), report.to_string()).expect("report.json");
    }

    fn fixture(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bench-perf-hil-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_suites_figures_add_up_its_scenarios_folders() {
        let dir = fixture("suite");
        let stops = |record_stops, tick_stops, record_host_ms, tick_host_ms| {
            Some(StopFacts { record_stops, tick_stops, record_host_ms, tick_host_ms })
        };
        write_folder(&dir.join("1-fischer"), 30_000, stops(300, 100, 150, 500), 1, true);
        write_folder(&dir.join("2-delay"), 50_000, stops(500, 60, 650, 300), 2, false);
        // A skipped scenario's folder has no report: not counted.
        std::fs::create_dir_all(dir.join("3-skipped")).expect("mkdir");
        let tally = Tally::of(&dir).expect("reads");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!((tally.reports, tally.games, tally.incomplete), (2, 3, 1));
        // 80 s of guest time in 16 s: 5x; 800 record stops in 800 ms of host
        // time, 10 a guest second at 1 ms each; 160 tick stops in 800 ms,
        // 2 a guest second at 5 ms each.
        let wall = Duration::from_secs(16);
        assert_eq!(tally.guest_s(), 80.0);
        assert_eq!(tally.real_time_ratio(wall), 5.0);
        assert_eq!(tally.per_stop(tally.record_stops, tally.record_host_ms), (10.0, 1.0));
        assert_eq!(tally.per_stop(tally.tick_stops, tally.tick_host_ms), (2.0, 5.0));
        let run = HilRun { label: "release suite".to_string(), args: Vec::new() };
        let lines = figure_lines(&run, &tally, wall);
        assert_eq!(
            lines[0],
            "hil release suite (bench hil --board qemu): 2 reports, 3 games, 80.0 s of guest time in 16.0 s = 5.00x real time"
        );
        assert_eq!(
            lines[1],
            "  lockstep stops: record 800 (10.00 per guest s, 1.00 ms of host time each); \
             tick 160 (2.00 per guest s, 5.00 ms of host time each)"
        );
        assert!(lines[2].contains("1 of the 2 reports incomplete"), "{lines:?}");
        assert_eq!(lines[3], "  goal >= 10 x real time: 5.00 measured, 50 % of the goal, NOT met");
    }

    #[test]
    fn one_scenarios_folder_is_read_as_it_is_and_a_run_without_stops_says_so() {
        let dir = fixture("one");
        write_folder(&dir, 12_000, None, 1, true);
        // A folder inside a scenario's report folder is not another report.
        write_folder(&dir.join("inner"), 99_000, None, 9, true);
        let tally = Tally::of(&dir).expect("reads");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!((tally.reports, tally.games, tally.guest_ms), (1, 1, 12_000));
        let run = HilRun::all(Some("blitz-3-2")).remove(0);
        let lines = figure_lines(&run, &tally, Duration::from_secs(1));
        assert!(lines[0].starts_with("hil blitz-3-2, 1 game (bench hil --board qemu --scenario blitz-3-2 --games 1): "));
        assert_eq!(lines[1], "  lockstep stops: none (not in lockstep)");
        assert!(lines[2].contains("12.00 measured, 120 % of the goal, met"), "{lines:?}");
    }

    #[test]
    fn a_folder_without_reports_or_with_a_foreign_report_is_an_error_naming_it() {
        let dir = fixture("empty");
        std::fs::create_dir_all(dir.join("a")).expect("mkdir");
        let error = format!("{:#}", Tally::of(&dir).expect_err("nothing to read"));
        assert!(error.contains("no run.json") && error.contains(&dir.display().to_string()), "{error}");
        write_folder(&dir.join("a"), 1, None, 1, true);
        std::fs::write(dir.join("a").join("report.json"), "{}").expect("write");
        let error = format!("{:#}", Tally::of(&dir).expect_err("not a hil report"));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(error.contains("report.json") && error.contains("games.played"), "{error}");
    }
}
