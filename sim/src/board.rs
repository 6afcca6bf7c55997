//! The board: what the position decides. The clock core takes these facts as
//! inputs (moves actually made, a game ended on the board, whether the
//! opponent can still checkmate); the board decides them.

use chessclock::{GameEnd, Side};

use crate::legal::LegalBoard;
use crate::rng::Stream;
use crate::sample::{self, Trials};
use crate::scenario::{Board as BoardRates, MoveMode, Scenario};

/// The board a scenario asks for.
pub fn for_scenario(scenario: &Scenario, dead_tests: DeadTests) -> Box<dyn Board> {
    match scenario.moves {
        MoveMode::Abstract => Box::new(AbstractBoard::new(scenario.board)),
        // A real position; the `[board]` rates are not used (see `crate::legal`).
        MoveMode::Legal => Box::new(LegalBoard::new().with_dead_tests(dead_tests)),
    }
}

/// When a real board runs its dead-position tests (5.2b).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeadTests {
    /// At the move that calls for one: a dead position ends the game there.
    AtTheMove,
    /// Later, and only where no mate shown since proves them moot; a dead
    /// position found then means the game ended earlier than it was played,
    /// and [`Board::game_stands`] says so (see `crate::legal`).
    Deferred,
}

/// A source of board facts.
pub trait Board: std::fmt::Debug {
    /// `side` makes a move. `Some` when the move ends the game (5.1/5.2; such
    /// a move needs no press, 6.8a).
    fn play(&mut self, side: Side, stream: &mut Stream) -> Option<GameEnd>;

    /// Whether `side` can still checkmate its opponent by some legal series
    /// of moves (6.10), asked when the opponent's flag is ruled on.
    fn can_checkmate(&mut self, side: Side, stream: &mut Stream) -> bool;

    /// 6.14: the position goes back to what it was two half-moves ago, the
    /// same side to move. `false` (nothing changed) when the board has no
    /// such position; a board that draws its endings has nothing to undo.
    fn take_back(&mut self) -> bool {
        true
    }

    /// Whether the game as played stands. `false` when a dead-position test
    /// left for later (5.2b, [`DeadTests::Deferred`]) finds that the game
    /// ended before it was played out: the caller plays it again with
    /// [`DeadTests::AtTheMove`]. Runs the tests still left, so it is asked
    /// once, when the game is over.
    fn game_stands(&mut self) -> bool {
        true
    }

    /// The searches [`Board::can_checkmate`] ran on a real position, and how
    /// many gave up; none for a board that draws its answers.
    fn mate_searches(&self) -> MateSearches {
        MateSearches::default()
    }
}

/// Full 6.10 searches on real positions ("can this side still mate?"), and
/// those that could not decide and were ruled "can mate". Counted so a run
/// report can say how many flag rulings rest on that conservative reading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MateSearches {
    pub searched: u64,
    pub gave_up: u64,
}

impl MateSearches {
    pub fn add(&mut self, other: MateSearches) {
        self.searched = self.searched.saturating_add(other.searched);
        self.gave_up = self.gave_up.saturating_add(other.gave_up);
    }
}

/// No board: endings and mating material are drawn from the scenario's rates.
#[derive(Clone, Debug)]
pub struct AbstractBoard {
    rates: BoardRates,
    /// Whether each move ends the game: trials at `ends_per_move`, their
    /// first gap drawn at the first move.
    ends: Option<Trials>,
}

impl AbstractBoard {
    pub fn new(rates: BoardRates) -> AbstractBoard {
        AbstractBoard { rates, ends: None }
    }
}

impl Board for AbstractBoard {
    fn play(&mut self, side: Side, stream: &mut Stream) -> Option<GameEnd> {
        let ends_per_move = self.rates.ends_per_move;
        let ends = self.ends.get_or_insert_with(|| Trials::new(stream, ends_per_move));
        if !ends.next(stream) {
            return None;
        }
        if sample::chance(stream, self.rates.decisive) {
            // Checkmate and resignation both win for the mover here.
            Some(GameEnd::Checkmate { winner: side })
        } else {
            Some(GameEnd::AgreedDraw)
        }
    }

    fn can_checkmate(&mut self, _side: Side, stream: &mut Stream) -> bool {
        !sample::chance(stream, self.rates.cannot_mate)
    }
}
