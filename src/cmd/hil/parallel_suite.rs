//! `bench hil --jobs N` on a suite: its scenarios on N emulators at once.
//!
//! Each scenario is the run `bench hil --scenario FILE` makes, on its own
//! emulator and into its own folder; in lockstep an emulated run does not
//! depend on the host, so the reports and the suite's verdict are those of
//! `--jobs 1`. What changes is the console: a scenario played beside others
//! shows no progress bar, and its lines are held and printed when it is
//! over, in the suite's order, so the output reads as `--jobs 1`'s.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::anyhow;
use bench_hil::backend::probe::ProbeBackend;
use bench_report::suite;

use super::{Cmd, Ran};
use crate::exit::{Exit, Failure, Result};

/// The console lines of a scenario played beside others, held until it is
/// over.
#[derive(Debug, Default)]
pub struct Console {
    /// What `bench hil` prints on stdout.
    out: String,
    /// What it notes on stderr.
    err: String,
}

/// One scenario's end: how it ran, and what it would have printed.
type Finished = (Result<Ran>, Console);

impl Cmd {
    /// Prints `text` on stdout, or holds it for a scenario played beside others.
    pub(super) fn print(&self, text: &str) -> Result<()> {
        match &self.console {
            Some(console) => {
                console.lock().unwrap_or_else(PoisonError::into_inner).out.push_str(text);
                Ok(())
            }
            None => super::super::print(text),
        }
    }

    /// Notes `text` on stderr, or holds it for a scenario played beside others.
    pub(super) fn note(&self, text: &str) {
        match &self.console {
            Some(console) => {
                let mut console = console.lock().unwrap_or_else(PoisonError::into_inner);
                console.err.push_str(text);
                console.err.push('\n');
            }
            None => super::super::note(text),
        }
    }

    /// `--jobs` above one: several emulators, so the emulated board only,
    /// and the whole suite (--fail-fast stops in the suite's order).
    pub(super) fn check_jobs(&self) -> Result<()> {
        if self.jobs == 1 {
            return Ok(());
        }
        if !self.emulated()? || self.gdb.is_some() {
            return Err(Failure::usage(anyhow!(
                "--jobs {} starts several emulators: it is for --board qemu; a board plays one scenario at a time \
                 (nothing was run)",
                self.jobs
            )));
        }
        if self.fail_fast {
            return Err(Failure::usage(anyhow!(
                "--fail-fast stops at the first failing scenario in the suite's order, which scenarios played side \
                 by side have not: give --jobs 1 with it (nothing was run)"
            )));
        }
        Ok(())
    }

    /// The suite's scenarios on `self.jobs` emulators at once; each one's
    /// lines are printed when it is over, in the suite's order. An
    /// infrastructure failure starts no more scenarios (those under way
    /// finish) and is the suite's end, as in turn.
    pub(super) fn play_in_parallel<B: ProbeBackend>(
        &self,
        runs: &[(String, Vec<String>, Cmd)],
        probes: &B,
    ) -> Result<Vec<suite::Entry>> {
        let slots: Vec<Mutex<Option<Finished>>> = runs.iter().map(|_| Mutex::new(None)).collect();
        let (next, halted) = (AtomicUsize::new(0), AtomicBool::new(false));
        let (finished_tx, finished_rx) = mpsc::channel::<()>();
        std::thread::scope(|scope| {
            for _ in 0..usize::from(self.jobs).min(runs.len()) {
                let finished_tx = finished_tx.clone();
                let (slots, next, halted) = (&slots, &next, &halted);
                scope.spawn(move || {
                    while !halted.load(Ordering::Relaxed) {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some((_, _, one)) = runs.get(index) else { break };
                        let finished = play_beside_others(one, probes);
                        *slots[index].lock().unwrap_or_else(PoisonError::into_inner) = Some(finished);
                        let _ = finished_tx.send(());
                    }
                });
            }
            drop(finished_tx);
            let result = self.show_in_order(runs, &slots, &finished_rx);
            if result.is_err() {
                halted.store(true, Ordering::Relaxed);
            }
            result
        })
    }

    /// Waits for each scenario in the suite's order, prints what it held,
    /// and makes its suite entry.
    fn show_in_order(
        &self,
        runs: &[(String, Vec<String>, Cmd)],
        slots: &[Mutex<Option<Finished>>],
        finished: &mpsc::Receiver<()>,
    ) -> Result<Vec<suite::Entry>> {
        let mut entries = Vec::new();
        for ((name, exercises, _), slot) in runs.iter().zip(slots) {
            let (ran, console) = loop {
                if let Some(done) = slot.lock().unwrap_or_else(PoisonError::into_inner).take() {
                    break done;
                }
                if finished.recv().is_err() {
                    return Err(Failure::infrastructure(anyhow!("scenario {name} was never played")));
                }
            };
            if !console.err.is_empty() {
                super::super::note(console.err.trim_end_matches('\n'));
            }
            super::super::print(&console.out)?;
            let outcome = match ran? {
                Ran::Judged(Exit::Pass) => suite::Outcome::Passed,
                Ran::Judged(_) => suite::Outcome::Failed,
                Ran::Skipped(why) => suite::Outcome::Skipped(why.to_string()),
            };
            entries.push(suite::Entry { name: name.clone(), outcome, exercises: exercises.clone() });
        }
        Ok(entries)
    }
}

/// `one`, its console held.
fn play_beside_others<B: ProbeBackend>(one: &Cmd, probes: &B) -> Finished {
    let console = Arc::new(Mutex::new(Console::default()));
    let one = Cmd { console: Some(Arc::clone(&console)), ..one.clone() };
    let ran = one.run_scenario(probes);
    let console = std::mem::take(&mut *console.lock().unwrap_or_else(PoisonError::into_inner));
    (ran, console)
}
