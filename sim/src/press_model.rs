//! The trivial press model: the same few lines of simulation written on
//! bench's event queue here, and on NeXosim and SimPy in `benches/peers/`,
//! so the simulator's event throughput is measured next to theirs on one
//! model (`scripts/peers` runs all three in one go).
//!
//! **The model** (every implementation follows it to the event):
//! - games are played one after another on one timeline, each starting at
//!   the instant the previous one ended; each player has 180 s;
//! - a player thinks `300 ms + x mod 2 200 001 µs`, `x` the next number of
//!   one SplitMix64 generator seeded with 1 (integer microseconds; the
//!   generator is written out in each implementation, so the three draw the
//!   same numbers);
//! - a think time shorter than the thinker's remaining time ends with a
//!   press event at the end of it: the time is spent, and the other player
//!   thinks; otherwise a flag event falls when the remaining time runs out
//!   and the next game starts.
//!
//! Each implementation prints its event count and the final instant, so a
//! reader sees that the three ran the same model.
//!
//! The queue is not the simulator: a press here is a few dozen instructions
//! of bookkeeping, a press in `bench sim` drives the core's clock and every
//! oracle. [`SCENARIO`] is this model as a scenario, so the simulator's own
//! figure stands beside the queue's and the peers' (`bench perf --only
//! peers`, `scripts/peers`).

use chessclock::Instant;

use crate::queue::EventQueue;

/// The model as a `bench sim` scenario (`press_model.toml`).
pub const SCENARIO: &str = include_str!("press_model.toml");

/// Each player's time, µs.
pub const BASE_US: u64 = 180_000_000;
/// Think times: `THINK_MIN_US + x mod THINK_SPAN_US`.
pub const THINK_MIN_US: u64 = 300_000;
pub const THINK_SPAN_US: u64 = 2_200_001;

/// SplitMix64 (Steele, Lea and Flood 2014): chosen because it is a few
/// lines in any language, so each peer draws exactly the same think times.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The generator's state, to keep it where the model keeps its state.
    pub fn state(&self) -> u64 {
        self.0
    }

    /// The next think time, µs.
    pub fn think_us(&mut self) -> u64 {
        THINK_MIN_US + self.next_u64() % THINK_SPAN_US
    }
}

/// What one run of the model did: the figures every implementation prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    pub games: u64,
    /// Presses and flags.
    pub events: u64,
    /// The instant of the last event, µs.
    pub end_us: u64,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    /// `side` (0 White, 1 Black) ends its think time and presses.
    Press { side: usize },
    /// `side`'s time has run out.
    Flag,
}

/// One game's state.
struct Game {
    remaining_us: [u64; 2],
    turn_started_us: u64,
}

/// Plays `games` games of the model on bench's [`EventQueue`].
pub fn run(games: u64) -> Tally {
    let mut queue: EventQueue<Event> = EventQueue::new();
    let mut draws = SplitMix64::new(1);
    let mut game = Game { remaining_us: [BASE_US; 2], turn_started_us: 0 };
    let mut tally = Tally { games: 0, events: 0, end_us: 0 };
    if games > 0 {
        think(&mut queue, &mut draws, &game, 0, 0);
    }
    while let Some((at, event)) = queue.pop() {
        let now_us = at.as_us();
        tally.events += 1;
        tally.end_us = now_us;
        match event {
            Event::Press { side } => {
                game.remaining_us[side] -= now_us - game.turn_started_us;
                game.turn_started_us = now_us;
                think(&mut queue, &mut draws, &game, 1 - side, now_us);
            }
            Event::Flag => {
                tally.games += 1;
                if tally.games < games {
                    game = Game { remaining_us: [BASE_US; 2], turn_started_us: now_us };
                    think(&mut queue, &mut draws, &game, 0, now_us);
                }
            }
        }
    }
    tally
}

/// `side` starts thinking at `now_us`: its press, or its flag if the think
/// time does not fit in its remaining time.
fn think(queue: &mut EventQueue<Event>, draws: &mut SplitMix64, game: &Game, side: usize, now_us: u64) {
    let think_us = draws.think_us();
    let remaining_us = game.remaining_us[side];
    if think_us < remaining_us {
        queue.schedule(Instant::from_us(now_us + think_us), Event::Press { side });
    } else {
        queue.schedule(Instant::from_us(now_us + remaining_us), Event::Flag);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_its_published_first_outputs() {
        // The reference implementation (Vigna's splitmix64.c) seeded with 0.
        let mut draws = SplitMix64::new(0);
        assert_eq!(draws.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(draws.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn every_game_ends_on_a_flag_after_its_presses() {
        let one = run(1);
        let three = run(3);
        assert_eq!(one.games, 1);
        assert_eq!(three.games, 3);
        // A game holds both players' 180 s at least up to the flag, and
        // presses at least every 2.5 s.
        assert!(one.end_us >= BASE_US && one.end_us <= 2 * BASE_US, "{one:?}");
        assert!(one.events >= BASE_US / (THINK_MIN_US + THINK_SPAN_US), "{one:?}");
        assert!(three.events > one.events && three.end_us > one.end_us, "{three:?}");
        assert_eq!(run(0), Tally { games: 0, events: 0, end_us: 0 });
    }

    /// The scenario is the model: its control and think times are the
    /// model's constants, every game ends on a flag (6.10), and a game
    /// holds as many presses as the model's on average.
    #[test]
    fn the_scenario_plays_the_model() {
        use crate::scenario::{Distribution, Scenario};
        let scenario = Scenario::parse(SCENARIO, std::path::Path::new("press_model.toml")).unwrap();
        assert_eq!(scenario.control.text, (BASE_US / 1_000_000).to_string());
        let think = scenario.players.think;
        assert_eq!(think.distribution, Distribution::Uniform);
        assert_eq!(think.min_ms * 1000, THINK_MIN_US);
        assert_eq!(think.max_ms * 1000, THINK_MIN_US + THINK_SPAN_US - 1);
        let games = 100;
        let options = crate::run::RunOptions {
            seed: scenario.seed,
            games: 0..games,
            jobs: 1,
            swarm: false,
            model_oracle: true,
            disabled: crate::defects::DefectSet::NONE,
        };
        let summary = crate::run::run(&scenario, &options, &|_| {});
        assert_eq!(summary.results.get("6.10"), Some(&games), "{:?}", summary.results);
        // Presses per game: the model's events less its one flag a game.
        let model = run(games);
        let model_presses = model.events - model.games;
        let (low, high) = (model_presses * 95 / 100, model_presses * 105 / 100);
        assert!((low..=high).contains(&summary.presses), "{} presses, the model {model_presses}", summary.presses);
    }
}
