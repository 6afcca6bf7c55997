//! The players' habits and the arbiter's judgement, as functions that the
//! simulator and the hardware-in-the-loop schedule share, so a seed means
//! the same game in both.

use chessclock::laws::FlagFacts;
use chessclock::{BySide, Duration, FlagFall, Observation, Side, TimeControl};

use crate::board::Board;
use crate::rng::Stream;
use crate::sample::{self, Ratio};
use crate::scenario::{Arbiter, Distribution, Occasional, Player};

/// The fastest a hurried player makes a move and presses the clock.
pub const HURRIED_MOVE_MIN_US: u64 = 250_000;

/// How long `player` thinks before moving and pressing, given what its
/// clock display shows (`shown`): a draw from its distribution, cut down in
/// time trouble to its share of what is left and to what leaves its spare
/// on the display, never below a hurried move.
pub fn think_us(player: &Player, stream: &mut Stream, shown: Duration) -> u64 {
    let think_ms = match player.think.distribution {
        Distribution::Uniform => sample::between(stream, player.think.min_ms, player.think.max_ms),
        Distribution::Triangular => sample::triangular(stream, player.think.min_ms, player.think.max_ms),
        Distribution::Skewed => sample::skewed(stream, player.think.min_ms, player.think.max_ms),
    };
    let mut think_us = think_ms.saturating_mul(1_000);
    let shown_us = shown.as_us();
    if shown_us < player.time_trouble.below_ms.saturating_mul(1_000) {
        let hurried = Ratio { numerator: player.time_trouble.percent, denominator: 100 }.of(shown_us);
        // Whole milliseconds keep the ideal clock on the tick model's grid.
        let spared = (shown_us / 1_000 * 1_000).saturating_sub(player.time_trouble.spare_ms.saturating_mul(1_000));
        think_us = think_us.min(hurried / 1_000 * 1_000).min(spared);
    }
    // Nobody moves and presses faster than this, however hurried: in time
    // trouble a player runs out of time instead (6.10).
    think_us.max(HURRIED_MOVE_MIN_US.min(player.think.min_ms.saturating_mul(1_000)))
}

/// Whether the arbiter notices each side's flags, and how late (µs): drawn
/// once per game, White first, from the arbiter's stream, so that every
/// clock of the game (device, ideal, a board under test) is judged alike.
pub fn flag_notices(arbiter: &Arbiter, stream: &mut Stream) -> BySide<(bool, u64)> {
    let mut notice_for = || {
        let noticed = sample::chance(stream, arbiter.flag_noticed);
        // `notice_delay.chance`: how often a noticed flag is noticed late at all.
        let late = sample::chance(stream, arbiter.notice_delay.chance);
        let delay = occasional_us(stream, arbiter.notice_delay);
        (noticed, if late { delay } else { 0 })
    };
    let white = notice_for();
    BySide::new(white, notice_for())
}

/// A duration drawn uniformly from an occasional habit's range.
pub fn occasional_us(stream: &mut Stream, occasional: Occasional) -> u64 {
    sample::between(stream, occasional.min_ms, occasional.max_ms).saturating_mul(1_000)
}

/// The arbiter's answers to "can this side still mate?", asked once per
/// position so every clock's ruling on the same flag sees the same board.
#[derive(Debug, Default)]
pub struct MateAnswers {
    /// By (side, White's moves, Black's moves): one per ruled flag at most.
    answers: Vec<((Side, u32, u32), bool)>,
}

impl MateAnswers {
    pub fn can_checkmate(&mut self, board: &mut dyn Board, stream: &mut Stream, side: Side, moves: (u32, u32)) -> bool {
        let position = (side, moves.0, moves.1);
        if let Some((_, answer)) = self.answers.iter().find(|(asked, _)| *asked == position) {
            return *answer;
        }
        let answer = board.can_checkmate(side, stream);
        self.answers.push((position, answer));
        answer
    }
}

/// The facts the laws need to rule on `flag` once the arbiter has seen it.
/// The mating test is only asked for when 6.10 decides: not when 6.3 finds
/// the required moves made (a full search is costly).
pub fn flag_facts(
    control: &TimeControl,
    flag: FlagFall,
    moves_made: u32,
    can_checkmate: impl FnOnce(Side) -> bool,
) -> FlagFacts {
    let moves_required = control.moves_required_by_end_of(flag.period);
    let harmless = moves_required.is_some_and(|required| moves_made >= required);
    let opponent_can_checkmate = harmless || can_checkmate(flag.side.opponent());
    FlagFacts {
        flag,
        observation: Observation::ObservedByArbiter,
        moves_required,
        moves_made,
        game_end: None,
        opponent_can_checkmate,
    }
}
