//! The trivial press model (`bench_sim::press_model`, where the model is
//! written down) on bench's event queue and on NeXosim, timed one after
//! the other in one process: `scripts/peers` runs this, then SimPy's.
//!
//! `cargo run --release -- GAMES` (default 20 000). Wall-clock time is read
//! around each run, never inside one.
//!
//! `-- GAMES --once queue|nexosim` plays one implementation once, untimed,
//! and prints its tally: what `scripts/peers` runs under callgrind to count
//! instructions, which do not depend on the machine's load.

use std::time::{Duration, Instant as WallClock};

use bench_sim::press_model::{self, SplitMix64, Tally, BASE_US};
use nexosim::model::{schedulable, Context, Model};
use nexosim::ports::{event_slot, EventSinkReader, Output, SinkState};
use nexosim::simulation::{Mailbox, SimInit};
use nexosim::time::MonotonicTime;
use serde::{Deserialize, Serialize};

/// Timed runs of each simulator; the median is printed.
const RUNS: usize = 3;

/// The press model as one NeXosim model that schedules its own events.
///
/// ```text
///   ┌──────────────┐
///   │ PressClock   ├──► done: [games, events, end_us], once, at the end
///   └──────────────┘
///     press(side) / flag(): self-scheduled
/// ```
#[derive(Serialize, Deserialize)]
pub struct PressClock {
    /// The tally, sent once when the last game has ended.
    pub done: Output<[u64; 3]>,
    games_max: u64,
    draws_state: u64,
    remaining_us: [u64; 2],
    turn_started_us: u64,
    games: u64,
    events: u64,
}

#[Model]
impl PressClock {
    #[nexosim(init)]
    async fn init(&mut self, cx: &Context<Self>) {
        if self.games_max > 0 {
            self.think(0, cx);
        }
    }

    /// `side` (0 White, 1 Black) presses at the end of its think time.
    #[nexosim(schedulable)]
    async fn press(&mut self, side: usize, cx: &Context<Self>) {
        let now_us = micros(cx.time());
        self.events += 1;
        self.remaining_us[side] -= now_us - self.turn_started_us;
        self.turn_started_us = now_us;
        self.think(1 - side, cx);
    }

    /// The thinking side's time has run out: the next game starts.
    #[nexosim(schedulable)]
    async fn flag(&mut self, _: (), cx: &Context<Self>) {
        let now_us = micros(cx.time());
        self.events += 1;
        self.games += 1;
        if self.games < self.games_max {
            self.remaining_us = [BASE_US; 2];
            self.turn_started_us = now_us;
            self.think(0, cx);
        } else {
            self.done.send([self.games, self.events, now_us]).await;
        }
    }
}

impl PressClock {
    fn new(games_max: u64) -> PressClock {
        PressClock {
            done: Output::default(),
            games_max,
            draws_state: 1,
            remaining_us: [BASE_US; 2],
            turn_started_us: 0,
            games: 0,
            events: 0,
        }
    }

    /// `side` starts thinking now: its press, or its flag.
    fn think(&mut self, side: usize, cx: &Context<Self>) {
        // The generator's state lives in the model (models are serializable).
        let mut draws = SplitMix64::new(self.draws_state);
        let think_us = draws.think_us();
        self.draws_state = draws.state();
        let remaining_us = self.remaining_us[side];
        let scheduled = if think_us < remaining_us {
            cx.schedule_event(Duration::from_micros(think_us), schedulable!(Self::press), side)
        } else {
            cx.schedule_event(Duration::from_micros(remaining_us), schedulable!(Self::flag), ())
        };
        scheduled.expect("think times and remaining times are positive");
    }
}

fn micros(time: MonotonicTime) -> u64 {
    let since_epoch = time.duration_since(MonotonicTime::EPOCH);
    u64::try_from(since_epoch.as_micros()).expect("the model's timeline fits in u64 microseconds")
}

/// Plays `games` games of the model on NeXosim, on one thread.
fn nexosim_run(games: u64) -> Tally {
    let mut model = PressClock::new(games);
    let mailbox = Mailbox::new();
    let (sink, mut done) = event_slot(SinkState::Enabled);
    model.done.connect_sink(sink);
    let mut simulation = SimInit::with_num_threads(1)
        .add_model(model, mailbox, "press-clock")
        .init(MonotonicTime::EPOCH)
        .expect("the bench assembles");
    simulation.run().expect("the model runs to its end");
    let [games, events, end_us] = done.try_read().unwrap_or([0; 3]);
    Tally { games, events, end_us }
}

/// The median of `RUNS` timed runs, events per second.
fn timed(run: impl Fn() -> Tally) -> (Tally, f64) {
    let mut rates = Vec::new();
    let mut tally = None;
    for _ in 0..RUNS {
        let started = WallClock::now();
        let this = run();
        rates.push(this.events as f64 / started.elapsed().as_secs_f64().max(f64::MIN_POSITIVE));
        tally = Some(this);
    }
    rates.sort_by(f64::total_cmp);
    (tally.expect("RUNS > 0"), rates[RUNS / 2])
}

fn print(name: &str, tally: Tally, rate: f64) {
    println!(
        "{name:<28} {} games, {} events, last at {} us: {:.3} M events/s (median of {RUNS})",
        tally.games,
        tally.events,
        tally.end_us,
        rate / 1e6
    );
}

/// One implementation, as `--once` names it.
fn implementation(name: &str) -> Option<(&'static str, fn(u64) -> Tally)> {
    match name {
        "queue" => Some(("bench's event queue", press_model::run)),
        "nexosim" => Some(("NeXosim 1.0.0 (1 thread)", nexosim_run)),
        _ => None,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = args.first().and_then(|games| games.parse().ok()).unwrap_or(20_000);
    if let Some(name) = args.iter().position(|arg| arg == "--once").map(|at| args.get(at + 1)) {
        let Some((label, run)) = name.and_then(|name| implementation(name)) else {
            eprintln!("error: --once takes queue or nexosim");
            std::process::exit(2);
        };
        let tally = run(games);
        println!("{label:<28} {} games, {} events, last at {} us: once", tally.games, tally.events, tally.end_us);
        return;
    }
    let (bench_tally, bench_rate) = timed(|| press_model::run(games));
    print("bench's event queue", bench_tally, bench_rate);
    let (nexosim_tally, nexosim_rate) = timed(|| nexosim_run(games));
    print("NeXosim 1.0.0 (1 thread)", nexosim_tally, nexosim_rate);
    if nexosim_tally != bench_tally {
        eprintln!("error: NeXosim's run differs from bench's: not the same model");
        std::process::exit(1);
    }
    println!("bench's event queue / NeXosim = {:.2}x", bench_rate / nexosim_rate);
}
