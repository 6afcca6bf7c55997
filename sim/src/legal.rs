//! Legal-move mode: random legal moves on a real position.
//!
//! The position is a [`chess::Board`] (crate `chess`, pinned to `=3.2.0`),
//! from the initial position on. Each move is drawn uniformly from the legal
//! moves; checkmate and stalemate end the game (5.1, 5.2a), and so does a
//! dead position (5.2b) found by CHA's fast unwinnability test. A flag is
//! ruled on with CHA's full helpmate search (crate `chasolver` 3.0.0, run as
//! `chasolver-fast`, its vendored copy with a faster search and the same
//! answers: `vendor/chasolver-fast/PATCH.md`): under 6.10 the flag is a draw
//! when the opponent cannot checkmate by any possible series of legal moves,
//! a helpmate included.
//!
//! **Move order** (part of the reproducibility contract, like the stream
//! derivation rule): the `k`-th move is the `k`-th one `chess::MoveGen::new_legal`
//! yields, `k = sample::below(stream, number of legal moves)`. `chess` 3.2
//! yields them by piece type (pawn, knight, bishop, rook, queen, king); within
//! a type, unpinned pieces before pinned ones, each group by source square
//! (a1 = 0, b1, …, h8 = 63); within a piece, by destination square in the
//! same order; a promotion as queen, knight, rook, bishop. The order is a pure
//! function of the position, so a version bump of `chess` that changed it
//! would change every legal-mode run: that is why the version is exact.
//! [`crate::legal_moves::LegalMoves`] lists the moves in that order without
//! iterating `MoveGen`; `sim/tests/legal_moves_order.rs` holds it to it.
//!
//! **Dead positions** (5.2b) are looked for with CHA's fast test
//! ([`is_dead`]: sound, never "dead" where a mate exists, but incomplete)
//! after every move that changes the position irreversibly (a capture, a pawn
//! move, a loss of castling rights) or leaves the opponent a single legal
//! reply, not after every move: the test costs several moves' worth of time.
//! A dead position reached otherwise is recognised at the next such move.
//! Measured over 10 000 random games from the initial position: 7 of 7 736
//! dead positions arose that way, each recognised one ply later. Until then
//! the game is drawn whatever happens: no checkmate can follow, a flag is
//! ruled a draw by the full 6.10 search, the move bound is a draw; only the
//! class of the draw can differ.
//!
//! **When the dead-position tests run** ([`DeadTests`]). A game plays them
//! [`DeadTests::Deferred`]: the positions to test are kept, not tested, and
//! a mate shown later answers for all of them at once. A checkmate on the
//! board, or a helpmate from the 6.10 search checked by playing it, follows
//! from every position on the line before it, so none of them was dead (the
//! fast test is sound: it never says "dead" where a mate exists, so it would
//! have said "alive" of each). The tests no mate answers for run when the game
//! is over, in the order played, before a restore (6.14) takes positions off
//! the line, and once no pawn, rook or queen is left: most random games die
//! there (bare kings, a lone minor piece), and from then on each test runs at
//! its move, so such a game does not play on to its flag. If one finds a dead
//! position, the game ended there, earlier than it was played out: the
//! play-through stops, and [`crate::game::play`] plays the game again with
//! [`DeadTests::AtTheMove`] (the moves come from the board's own stream, so
//! they are the same up to that position). Either way the game, its trace
//! and its report are the same (`sim/tests/dead_tests.rs` compares both on
//! 600 games, restores included); the cost differs: of 500 games of `bench
//! perf --only legal`, 28 943 tests at the move cost 427 M instructions
//! (18 % of the run), the deferred ones 30 M (callgrind). Where most games
//! end dead (200 games of `900+10`: 154 of them) they are 136 M against
//! 152 M: there most tests come after the last pawn, rook or queen, at the
//! move as before.
//!
//! **Not modelled:** the 50-move rule and threefold repetition. Under the
//! 2005 Laws (9.2, 9.3) both are draws a player must claim, and the simulated
//! players never claim; the scenario's `max_moves` bounds every game instead.
//! The scenario's `[board]` rates (`ends_per_move`, `decisive`,
//! `cannot_mate`) are not used in this mode: the position decides.
//!
//! **How legal mode got 2× faster** (issue 20's goal, with the same
//! rulings), measured on the scenario of `bench perf --only legal`, against
//! the build before that work (c10be67). Three changes, each proved to
//! change no answer:
//! - the dead-position tests are deferred (above): 427 M instructions of
//!   500 games down to 30 M;
//! - the 6.10 search runs in `chasolver-fast` (`vendor/chasolver-fast`,
//!   `PATCH.md`): `chasolver` 3.0.0 with a faster search that gives the same
//!   answer, the same helpmate move for move, on every position tried
//!   (`sim/tests/mate_search_same_answers.rs`, and the whole labelled corpus
//!   of the published crate once): 1 225 M down to 429 M, 69 against 25 ms
//!   of wall time on the 412 flags (`cargo run --release -p bench-sim
//!   --example mate_search_costs`, which checks the answers agree);
//! - the `k`-th move is found entry by entry ([`crate::legal_moves`]), not
//!   with `k` calls to `MoveGen`'s iterator, 7 % of a run's wall time.
//!
//! Callgrind of `bench sim --no-model-oracle --jobs 1` (500 games, report
//! writing included): 1 133 M instructions against 2 273 M. `bench perf
//! --only legal --games 4000`, each build in turn: 1.53-1.61 M presses/s
//! against 0.73-0.77 M, 2.08× to 2.15× (five pairs, median 2.13×). The searches' time
//! is still mostly long helpmates where the side that can mate has little
//! left: by what the winner has, a lone bishop or knight 38 % (49
//! searches), other minor pieces only 17 % (18), minor pieces and pawns 33 %
//! (140), a queen or a rook 11 % (176), a bare king nothing (29).
//!
//! **Cost bound of the 6.10 search:** `chasolver_fast::winnability` takes no
//! budget argument. Its effort is bounded inside the crate by node counts,
//! never by wall time, so its answer is deterministic: a 1 000-node depth-1
//! probe, an iterative deepening capped at 1 000 000 nodes, a 3 000-position
//! closure, a check-chain search of depth 16 and a final guided search capped
//! at 2^24 nodes. When it still cannot decide (`None`), the flag is ruled as
//! if the opponent can mate (the conservative reading: the flagged player
//! loses), and the case is counted ([`LegalBoard::mate_searches`], summed
//! into the run report's `mate_searches`). Both clocks ask about the same
//! flag: the last two answers are kept per board, so the same question is
//! searched once.

use chasolver_fast::Winnability;
use chess::{Board as Position, ChessMove, Color, Piece, EMPTY};
use chessclock::{GameEnd, Side};

use crate::board::{Board, DeadTests, MateSearches};
use crate::legal_moves::LegalMoves;
use crate::rng::Stream;
use crate::sample;

/// Deferred dead-position tests a board has room for before its list grows.
const UNTESTED_ROOM: usize = 64;

/// A real position, moved by uniformly random legal moves.
pub struct LegalBoard {
    position: Position,
    /// The legal moves of `position` when `moves_current` (generated by the
    /// end test of the move that led to it); kept in place, not rebuilt.
    moves: LegalMoves,
    moves_current: bool,
    /// Half-moves played on this board.
    plies: u64,
    /// `play` calls refused because `side` was not the side to move.
    refused: u64,
    /// Full 6.10 searches run, and those that gave up (ruled "can mate").
    searches: MateSearches,
    /// The last 6.10 answers: position, intended winner, can mate.
    rulings: [Option<(Position, Color, bool)>; 2],
    /// The positions before the last two half-moves, for
    /// [`Board::take_back`]: the newer in slot `newer`, the older in the
    /// other (a move overwrites the older, nothing is shifted).
    earlier: [Option<Position>; 2],
    newer: usize,
    dead_tests: DeadTests,
    /// Deferred: positions whose dead-position test is still to run, in
    /// the order they were played, all on the line to the current position.
    untested: Vec<Position>,
    /// Deferred: a test already run later found a dead position.
    dead_found: bool,
}

impl std::fmt::Debug for LegalBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LegalBoard")
            .field("position", &format_args!("{}", self.position))
            .field("plies", &self.plies)
            .field("refused", &self.refused)
            .field("searches", &self.searches)
            .finish_non_exhaustive()
    }
}

impl Default for LegalBoard {
    fn default() -> Self {
        LegalBoard::new()
    }
}

impl LegalBoard {
    /// The initial position, White to move; each dead-position test at its
    /// move.
    pub fn new() -> LegalBoard {
        LegalBoard::from_position(Position::default())
    }

    /// The same board, its dead-position tests run as `dead_tests` says.
    pub fn with_dead_tests(self, dead_tests: DeadTests) -> LegalBoard {
        LegalBoard { dead_tests, ..self }
    }

    /// Play goes on from `position` (tests, set-up positions); each
    /// dead-position test at its move.
    pub fn from_position(position: Position) -> LegalBoard {
        LegalBoard {
            position,
            moves: LegalMoves::empty(),
            moves_current: false,
            plies: 0,
            refused: 0,
            searches: MateSearches::default(),
            rulings: [None; 2],
            earlier: [None; 2],
            newer: 0,
            dead_tests: DeadTests::AtTheMove,
            // Room for the tests of most games without growing.
            untested: Vec::with_capacity(UNTESTED_ROOM),
            dead_found: false,
        }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Half-moves played on this board.
    pub fn plies(&self) -> u64 {
        self.plies
    }

    /// `play` calls for a side not to move: a caller's bug, refused without
    /// touching the position or the stream.
    pub fn refused(&self) -> u64 {
        self.refused
    }

    /// 6.10 searches on this board that could not decide and were ruled
    /// "can mate".
    pub fn undecided(&self) -> u64 {
        self.searches.gave_up
    }

    /// Whether `winner` can checkmate by some series of legal moves, by the
    /// full search; a search that gives up counts as "can mate".
    fn search(&mut self, winner: Color) -> bool {
        let remembered =
            self.rulings.iter().flatten().find(|(position, color, _)| *color == winner && *position == self.position);
        if let Some(&(_, _, can_mate)) = remembered {
            return can_mate;
        }
        self.searches.searched = self.searches.searched.saturating_add(1);
        let can_mate = match chasolver_fast::winnability(&self.position, winner) {
            Some(Winnability::Winnable { helpmate }) => {
                if mates(&self.position, &helpmate) {
                    // A mate can follow every position on the line to this
                    // one: none of them is dead.
                    self.untested.clear();
                }
                true
            }
            Some(Winnability::Unwinnable) => false,
            None => {
                self.searches.gave_up = self.searches.gave_up.saturating_add(1);
                true
            }
        };
        self.rulings = [Some((self.position, winner, can_mate)), self.rulings[0]];
        can_mate
    }

    /// Runs the deferred dead-position tests, in the order their positions
    /// were played.
    fn run_untested(&mut self) {
        if !self.dead_found {
            self.dead_found = self.untested.iter().any(is_dead);
        }
        self.untested.clear();
    }
}

/// No pawn, rook or queen is left: kings, bishops and knights only.
fn minor_pieces_only(position: &Position) -> bool {
    (*position.pieces(Piece::Pawn) | *position.pieces(Piece::Rook) | *position.pieces(Piece::Queen)) == EMPTY
}

/// Whether `line`, played from `position`, is legal move by move and ends in
/// checkmate: a helpmate checked by playing it.
fn mates(position: &Position, line: &[ChessMove]) -> bool {
    let mut position = *position;
    // `Position::legal` and `MoveGen`'s count, from the same list of moves
    // filled in place.
    let mut moves = LegalMoves::empty();
    for &chosen in line {
        moves.generate(&position);
        if !moves.contains(chosen) {
            return false;
        }
        position = position.make_move_new(chosen);
    }
    if *position.checkers() == EMPTY {
        return false;
    }
    moves.generate(&position);
    moves.is_empty()
}

/// The colour that plays `side`.
pub const fn color(side: Side) -> Color {
    match side {
        Side::White => Color::White,
        Side::Black => Color::Black,
    }
}

/// Neither side can checkmate, by CHA's fast test: sound (never says "dead"
/// of a position where a mate exists) but incomplete (a few dead positions,
/// mostly locked pawn walls, pass as alive until later).
pub fn is_dead(position: &Position) -> bool {
    // White first: in almost every live position this one says "alive", and
    // the mirrored Black test is skipped.
    chasolver_fast::is_unwinnable_fast(position, Color::White)
        && chasolver_fast::is_unwinnable_fast(position, Color::Black)
}

/// The end of the game in `position`, if it has no legal move: checkmate of
/// the side to move, or stalemate.
fn no_move_end(position: &Position) -> GameEnd {
    if *position.checkers() == EMPTY {
        GameEnd::Stalemate
    } else {
        let loser = position.side_to_move();
        GameEnd::Checkmate { winner: if loser == Color::White { Side::Black } else { Side::White } }
    }
}

/// Whether `chosen` changes `position` irreversibly: a capture, a pawn move
/// (en passant and promotion included), or a move that loses castling rights.
fn irreversible(position: &Position, chosen: ChessMove, after: &Position) -> bool {
    position.piece_on(chosen.get_source()) == Some(Piece::Pawn)
        || position.piece_on(chosen.get_dest()).is_some()
        || position.castle_rights(Color::White) != after.castle_rights(Color::White)
        || position.castle_rights(Color::Black) != after.castle_rights(Color::Black)
}

impl Board for LegalBoard {
    fn play(&mut self, side: Side, stream: &mut Stream) -> Option<GameEnd> {
        if color(side) != self.position.side_to_move() {
            // The caller lost track of whose move it is: make no move and
            // draw nothing, so the position and the stream stay as they were.
            self.refused = self.refused.saturating_add(1);
            return None;
        }
        if self.dead_found {
            // This play-through passed a dead position and will be played
            // again (`game_stands`): end it at once.
            return Some(GameEnd::DeadPosition);
        }
        if !self.moves_current {
            self.moves.generate(&self.position);
            self.moves_current = true;
        }
        let count = self.moves.len();
        if count == 0 {
            // Asked to move in a position that already ended (the caller
            // ignored the end): the end stands.
            return Some(no_move_end(&self.position));
        }
        let index = usize::try_from(sample::below(stream, count as u64)).unwrap_or(0);
        let chosen = self.moves.nth(index)?;
        let before = self.position;
        self.position = before.make_move_new(chosen);
        self.plies = self.plies.saturating_add(1);
        self.newer ^= 1;
        self.earlier[self.newer] = Some(before);
        // The replies replace the moves in place: `chosen` was copied out.
        self.moves.generate(&self.position);
        let reply_count = self.moves.len();
        if reply_count == 0 {
            let end = no_move_end(&self.position);
            if matches!(end, GameEnd::Checkmate { .. }) {
                // The mate followed every position on the line: none was dead.
                self.untested.clear();
            }
            return Some(end);
        }
        if reply_count == 1 || irreversible(&before, chosen, &self.position) {
            match self.dead_tests {
                DeadTests::AtTheMove if is_dead(&self.position) => return Some(GameEnd::DeadPosition),
                DeadTests::AtTheMove => {}
                DeadTests::Deferred if minor_pieces_only(&self.position) => {
                    // Where most random games die (bare kings, a lone minor
                    // piece), and a dead game would play on to its flag:
                    // from here on each test at its move, the waiting ones
                    // first.
                    self.run_untested();
                    if self.dead_found || is_dead(&self.position) {
                        return Some(GameEnd::DeadPosition);
                    }
                }
                DeadTests::Deferred => self.untested.push(self.position),
            }
        }
        None
    }

    fn can_checkmate(&mut self, side: Side, _stream: &mut Stream) -> bool {
        self.search(color(side))
    }

    fn mate_searches(&self) -> MateSearches {
        self.searches
    }

    fn game_stands(&mut self) -> bool {
        self.run_untested();
        !self.dead_found
    }

    fn take_back(&mut self) -> bool {
        let Some(position) = self.earlier[self.newer ^ 1] else { return false };
        // The positions taken back leave the line: no later mate speaks
        // for them.
        self.run_untested();
        self.position = position;
        self.moves_current = false;
        self.plies = self.plies.saturating_sub(2);
        self.earlier = [None; 2];
        true
    }
}
