//! Random streams, one per (game, actor), derived from the run's seed.
//!
//! **Derivation rule** (part of the reproducibility contract; changing it
//! changes every run): the 32-byte ChaCha8 key is the run seed (u64,
//! little-endian) followed by the game index (u64, little-endian) and 16 zero
//! bytes; the ChaCha stream number is the actor's [`Actor::id`]. So each game
//! draws from its own key, each actor from its own stream of that key, and
//! adding an actor (a new id) never shifts another actor's numbers. Every
//! defect and arbiter habit has an actor of its own, so switching one off
//! never shifts another's draws.
//!
//! Golden vectors (`sim/tests/golden.rs`) pin the first draws, computed by
//! an independent Python implementation (`sim/tests/golden_reference.py`).

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Who draws from a stream. Ids are stable: new actors get new numbers,
/// existing numbers never change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Actor {
    White,
    Black,
    /// The device's defects: drift, jitter, bounce, missed presses, …
    Device,
    /// Pauses, adjustments, replacements, flag observations.
    Arbiter,
    /// Moves on the board: abstract outcomes or random legal moves.
    Board,
    /// Swarm mode: which defects this game has.
    Swarm,
    /// The device oscillator's random walk.
    Drift,
    /// One stream per defect and per arbiter habit, so that switching one
    /// off (shrinking) leaves the others' draws where they were.
    Attention,
    MissedPress,
    StuckButton,
    Jitter,
    Bounce,
    DoublePress,
    Brownout,
    DisplayFreeze,
    Pause,
    Adjust,
    SetMoves,
    ReplaceClock,
    Restore,
    /// Abstract mode's "can the opponent still mate" at a ruled flag.
    MateTest,
    /// Postal games: letters in transit, claims, objections.
    Transit,
    Claims,
    Objections,
    /// Slips in the written control text, for the written-forms oracle:
    /// it only reads, so a game plays the same with or without it.
    WrittenForm,
    /// Calls tried on a copy of the ideal clock (`game/probes.rs`).
    Probe,
}

impl Actor {
    pub const fn id(self) -> u64 {
        match self {
            Actor::White => 0,
            Actor::Black => 1,
            Actor::Device => 2,
            Actor::Arbiter => 3,
            Actor::Board => 4,
            Actor::Swarm => 5,
            Actor::Drift => 6,
            Actor::Attention => 16,
            Actor::MissedPress => 17,
            Actor::StuckButton => 18,
            Actor::Jitter => 19,
            Actor::Bounce => 20,
            Actor::DoublePress => 21,
            Actor::Brownout => 22,
            Actor::DisplayFreeze => 23,
            Actor::Pause => 24,
            Actor::Adjust => 25,
            Actor::SetMoves => 26,
            Actor::ReplaceClock => 27,
            Actor::MateTest => 28,
            Actor::Restore => 29,
            Actor::Transit => 32,
            Actor::Claims => 33,
            Actor::Objections => 34,
            Actor::WrittenForm => 35,
            Actor::Probe => 36,
        }
    }
}

/// A deterministic random stream. Wraps `ChaCha8Rng` so that the only draws
/// are the integer helpers of [`crate::sample`], whose values we pin.
#[derive(Clone, Debug)]
pub struct Stream {
    rng: ChaCha8Rng,
}

impl Stream {
    pub fn new(seed: u64, game: u64, actor: Actor) -> Stream {
        let mut key = [0u8; 32];
        let (seed_bytes, rest) = key.split_at_mut(8);
        seed_bytes.copy_from_slice(&seed.to_le_bytes());
        if let Some(game_bytes) = rest.get_mut(..8) {
            game_bytes.copy_from_slice(&game.to_le_bytes());
        }
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(actor.id());
        Stream { rng }
    }

    /// The next raw 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }
}
