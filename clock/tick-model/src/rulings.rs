//! A second reading of the arbiter's rulings on a fallen flag, written from
//! the Laws' text (`shared/seeds/TRANSLATION.md`), not from
//! `chessclock::laws`: the simulator compares every ruling the core gives
//! with this one.
//!
//! - 6.9: a flag counts once the arbiter observes it or a player claims it.
//! - 6.3: once it counts, were the moves required by then made? Then play
//!   goes on.
//! - 6.10: if not, the player loses, unless the opponent cannot checkmate
//!   by any series of legal moves: then the game is drawn.
//! - 6.12: both flags down and which fell first cannot be established: play
//!   goes on (a), except in the period in which all remaining moves are due,
//!   where the game is drawn (b). When the order is known, the first flag is
//!   ruled first, and the second only if the first leaves play going on.
//!
//! A game already decided on the board (5.1, 5.2) is not this module's:
//! the caller rules it before any flag.

use chessclock::Side;

/// What a ruling decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    PlayOn,
    Wins(Side),
    Drawn,
}

/// A ruling: the verdict and the article it rests on ("6.3", "6.9", …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    pub article: &'static str,
}

/// One fallen flag as the arbiter sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FallenFlag {
    /// Whose flag.
    pub side: Side,
    /// Observed by the arbiter or claimed by a player (6.9).
    pub counts: bool,
    /// Moves due by the end of the flagged period; `None`: every move of
    /// the game is due in it.
    pub moves_due: Option<u32>,
    /// Moves the player made on the board.
    pub moves_made: u32,
    /// Whether the opponent can still checkmate, helped by any play (6.10).
    pub opponent_can_mate: bool,
}

/// 6.9, 6.3, 6.10 on one flag.
pub fn one_flag(flag: &FallenFlag) -> Decision {
    let decision = |verdict, article| Decision { verdict, article };
    if !flag.counts {
        return decision(Verdict::PlayOn, "6.9");
    }
    let made_the_moves = flag.moves_due.is_some_and(|due| flag.moves_made >= due);
    if made_the_moves {
        decision(Verdict::PlayOn, "6.3")
    } else if flag.opponent_can_mate {
        decision(Verdict::Wins(flag.side.opponent()), "6.10")
    } else {
        decision(Verdict::Drawn, "6.10")
    }
}

/// 6.12 on both flags: `in_order` the two, first fallen first, when the
/// clock shows which fell first; `last_period` whether both fell in the
/// period in which all remaining moves are due.
pub fn both_flags(in_order: Option<[FallenFlag; 2]>, last_period: bool) -> Decision {
    match in_order {
        Some([first, second]) => match one_flag(&first) {
            Decision { verdict: Verdict::PlayOn, .. } => one_flag(&second),
            decided => decided,
        },
        None if last_period => Decision { verdict: Verdict::Drawn, article: "6.12 b)" },
        None => Decision { verdict: Verdict::PlayOn, article: "6.12 a)" },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flag(side: Side, moves_due: Option<u32>, moves_made: u32) -> FallenFlag {
        FallenFlag { side, counts: true, moves_due, moves_made, opponent_can_mate: true }
    }

    #[test]
    fn a6_9_a_flag_nobody_noticed_changes_nothing() {
        let unnoticed = FallenFlag { counts: false, ..flag(Side::White, None, 10) };
        assert_eq!(one_flag(&unnoticed), Decision { verdict: Verdict::PlayOn, article: "6.9" });
    }

    #[test]
    fn a6_3_a6_10_the_moves_due_decide() {
        assert_eq!(one_flag(&flag(Side::White, Some(40), 40)).verdict, Verdict::PlayOn);
        assert_eq!(one_flag(&flag(Side::White, Some(40), 39)).verdict, Verdict::Wins(Side::Black));
        assert_eq!(one_flag(&flag(Side::Black, None, 99)).verdict, Verdict::Wins(Side::White));
        let no_mate = FallenFlag { opponent_can_mate: false, ..flag(Side::Black, None, 99) };
        assert_eq!(one_flag(&no_mate), Decision { verdict: Verdict::Drawn, article: "6.10" });
    }

    #[test]
    fn a6_12_both_flags() {
        assert_eq!(both_flags(None, false).article, "6.12 a)");
        assert_eq!(both_flags(None, true).verdict, Verdict::Drawn);
        let first_made_its_moves = [flag(Side::White, Some(10), 10), flag(Side::Black, Some(10), 9)];
        assert_eq!(both_flags(Some(first_made_its_moves), false).verdict, Verdict::Wins(Side::White));
        let first_did_not = [flag(Side::White, Some(10), 9), flag(Side::Black, Some(10), 9)];
        assert_eq!(both_flags(Some(first_did_not), false).verdict, Verdict::Wins(Side::Black));
    }
}
