//! The laws: pure functions from clock facts and board facts to a ruling
//! that names the article it applied.
//!
//! - [`rule_on_flag`]: one fallen flag (5.1/5.2 first, then 6.9, 6.3,
//!   6.10).
//! - [`rule_on_both_flags`]: both flags (6.12 when the order cannot be
//!   established; with it known, each flag in order, the second deciding
//!   when the first does not).
//! - [`rule_on_absence`]: a player absent beyond the default time (6.7,
//!   the default time from [`crate::rules::RuleSet`]).
//!
//! Each [`Ruling`] names its [`Article`].
//!
//! The clock core does not know the position. Facts that need the board
//! (moves actually made, whether the game already ended, whether the
//! opponent can still checkmate by any legal series of moves) are inputs;
//! the simulator decides them from a real position.

use crate::clock::FlagFall;
use crate::rules::RuleSet;
use crate::side::{BySide, Side};
use crate::time::Instant;

/// An article of the Laws a ruling rests on (2005-era numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Article {
    /// 5.1: checkmate or resignation ends the game.
    A5_1,
    /// 5.2: stalemate, dead position or agreement ends the game in a draw.
    A5_2,
    /// 6.3: after a flag, check that the required moves were made.
    A6_3,
    /// 6.5: White's clock starts at the scheduled time.
    A6_5,
    /// 6.7: arriving more than the default time late loses.
    A6_7,
    /// 6.9: a flag is a fact only once observed or validly claimed.
    A6_9,
    /// 6.10: flag fall loses — or draws if the opponent cannot checkmate.
    A6_10,
    /// 6.12 a): both flags, order unknown, not the last period: play on.
    A6_12a,
    /// 6.12 b): both flags, order unknown, last period: draw.
    A6_12b,
}

impl Article {
    pub const fn number(self) -> &'static str {
        match self {
            Article::A5_1 => "5.1",
            Article::A5_2 => "5.2",
            Article::A6_3 => "6.3",
            Article::A6_5 => "6.5",
            Article::A6_7 => "6.7",
            Article::A6_9 => "6.9",
            Article::A6_10 => "6.10",
            Article::A6_12a => "6.12 a)",
            Article::A6_12b => "6.12 b)",
        }
    }
}

impl core::fmt::Display for Article {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Art. {}", self.number())
    }
}

/// What happens to the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The game goes on.
    Continue,
    Win(Side),
    Draw,
    /// Both players lose (6.7: both arrived after the default time).
    BothLose,
}

/// A decision and the article it applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ruling {
    pub outcome: Outcome,
    pub article: Article,
}

impl Ruling {
    const fn new(outcome: Outcome, article: Article) -> Ruling {
        Ruling { outcome, article }
    }
}

/// How a game ended on the board (5.1, 5.2). A move that ends the game needs
/// no press of the clock (6.8a).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameEnd {
    Checkmate { winner: Side },
    Resignation { winner: Side },
    Stalemate,
    DeadPosition,
    AgreedDraw,
}

impl GameEnd {
    pub const fn ruling(self) -> Ruling {
        match self {
            GameEnd::Checkmate { winner } | GameEnd::Resignation { winner } => {
                Ruling::new(Outcome::Win(winner), Article::A5_1)
            }
            GameEnd::Stalemate | GameEnd::DeadPosition | GameEnd::AgreedDraw => {
                Ruling::new(Outcome::Draw, Article::A5_2)
            }
        }
    }
}

/// Whether a flag that the clock shows has become a fact (6.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Observation {
    /// Nobody noticed: the flag is not yet a fact and play goes on.
    Unnoticed,
    ObservedByArbiter,
    ClaimedBy(Side),
}

impl Observation {
    pub const fn is_fact(self) -> bool {
        match self {
            Observation::Unnoticed => false,
            Observation::ObservedByArbiter | Observation::ClaimedBy(_) => true,
        }
    }
}

/// Everything the laws need to rule on one fallen flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlagFacts {
    /// The flag the clock shows.
    pub flag: FlagFall,
    pub observation: Observation,
    /// Moves the flagged player must have completed by the end of the
    /// flagged period (`TimeControl::moves_required_by_end_of`); `None` when
    /// all moves are due.
    pub moves_required: Option<u32>,
    /// Board fact: moves the flagged player completed (from the scoresheet,
    /// not the clock's counter: 6.15 forbids claims on the counter alone).
    pub moves_made: u32,
    /// Board fact: the game had already ended on the board before the flag
    /// became a fact.
    pub game_end: Option<GameEnd>,
    /// Board fact: the flagged player's opponent can checkmate by some legal
    /// series of moves (decided from the position by the caller).
    pub opponent_can_checkmate: bool,
}

/// Rules on one fallen flag: 5.1/5.2 first, then 6.9, 6.3 and 6.10.
pub fn rule_on_flag(facts: &FlagFacts) -> Ruling {
    if let Some(end) = facts.game_end {
        return end.ruling();
    }
    if !facts.observation.is_fact() {
        return Ruling::new(Outcome::Continue, Article::A6_9);
    }
    if let Some(required) = facts.moves_required {
        if facts.moves_made >= required {
            return Ruling::new(Outcome::Continue, Article::A6_3);
        }
    }
    if !facts.opponent_can_checkmate {
        return Ruling::new(Outcome::Draw, Article::A6_10);
    }
    Ruling::new(Outcome::Win(facts.flag.side.opponent()), Article::A6_10)
}

/// Both flags are down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BothFlagsFacts {
    /// The facts of both flags, the one that fell first first, when the
    /// order can be established (a digital clock shows it); `None` when it
    /// cannot.
    pub in_order: Option<[FlagFacts; 2]>,
    /// Both fell in the period in which all remaining moves must be made.
    pub in_final_period: bool,
    /// Board fact: the game had already ended on the board.
    pub game_end: Option<GameEnd>,
}

/// 6.12 applies only when the order cannot be established: then play goes
/// on, except in the final period, where the game is drawn. With the order
/// known, each flag is ruled as a single one (6.3, 6.10), the first first:
/// when the first decides nothing (its player had made the required moves,
/// 6.3), the second one does.
pub fn rule_on_both_flags(facts: &BothFlagsFacts) -> Ruling {
    if let Some(end) = facts.game_end {
        return end.ruling();
    }
    match facts.in_order {
        Some([first, second]) => {
            let ruling = rule_on_flag(&first);
            if ruling.outcome == Outcome::Continue {
                rule_on_flag(&second)
            } else {
                ruling
            }
        }
        None if facts.in_final_period => Ruling::new(Outcome::Draw, Article::A6_12b),
        None => Ruling::new(Outcome::Continue, Article::A6_12a),
    }
}

/// 6.7 for both players at `at`: each one still absent more than the
/// default time after the scheduled start loses; when both are, both lose.
/// `arrived` is each player's arrival, `None` while absent.
pub fn rule_on_absence(
    rules: &RuleSet,
    scheduled_start: Instant,
    arrived: BySide<Option<Instant>>,
    at: Instant,
) -> Ruling {
    let forfeits = |side: Side| {
        let arrival = arrived.get(side).unwrap_or(at);
        arrival.since(scheduled_start) > rules.default_time
    };
    let outcome = match (forfeits(Side::White), forfeits(Side::Black)) {
        (true, true) => Outcome::BothLose,
        (true, false) => Outcome::Win(Side::Black),
        (false, true) => Outcome::Win(Side::White),
        (false, false) => Outcome::Continue,
    };
    Ruling::new(outcome, Article::A6_7)
}
