//! Search engine: state, core recursive search, and iteration strategies.

// bench patch: the attack lookups and the per-position targets the faster
// leaves and move ordering use.
use chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard,
    Board, ChessMove, Color, MoveGen, Piece, Square, EMPTY,
};
use rustc_hash::{FxHashMap, FxHashSet};

use super::{
    heuristics::{classify_move, MoveVariation, Targets},
    utils::{gives_check, insufficient_white_material},
};

/// Mutable state threaded through a helpmate search.
///
/// Carries the depth/node budgets and the move stack that every search needs,
/// plus a handful of optional precomputed tables (transposition table,
/// punishable moves, bishop distances) that individual phases opt into by
/// filling them in before searching; left as `None` they're simply unused.
///
/// A "node" is one candidate move considered during the search (i.e. one
/// child position explored), counted once per loop iteration in
/// [`helpmate`], regardless of whether that move is then recursed into.
#[derive(Debug)]
pub(crate) struct Search {
    /// Depth (in plies) the current iterative-deepening pass searches to.
    pub(crate) max_depth: u8,

    /// Per-depth budget on the number of positions explored (nodes); see
    /// [`Search::is_depth_limit_reached`].
    pub(crate) depth_node_limit: u64,

    /// Budget on the number of positions explored (nodes), shared across all
    /// depths of an `iterative_deepening` call.
    pub(crate) global_node_limit: u64,

    /// Positions explored (nodes) in the current depth iteration; reset by
    /// [`Search::reset_iteration`].
    pub(crate) iteration_nodes: u64,

    /// Positions explored (nodes) within the current `iterative_deepening`
    /// call; checked against `global_node_limit`.
    pub(crate) global_nodes: u64,

    /// Set when a node/depth limit cuts a branch short, signalling that the
    /// branch was left unexplored rather than proven to have no mate.
    pub(crate) interrupted: bool,

    /// Move sequence from the search root to the current node.
    pub(crate) moves: Vec<ChessMove>,

    /// Whether the last move played was a [`MoveVariation::Reward`]; if so, the
    /// next move's depth increment is waived too, so the reward isn't
    /// immediately cancelled out.
    pub(crate) past_progress: bool,

    /// Transposition table mapping a position to the deepest `num_moves_left`
    /// it has already been searched at. `None` disables the table.
    pub(crate) transposition_table: Option<FxHashMap<Board, u8>>,

    /// Moves penalized unconditionally during search, classified as
    /// [`MoveVariation::Punish`]; see [`super::utils::compute_punishable`] for
    /// how this set is chosen.
    pub(crate) punishable: Option<FxHashSet<ChessMove>>,

    /// Per-square bishop distances to the mating corner; see
    /// [`super::utils::compute_bishop_distances`].
    pub(crate) bishop_distances: Option<[u8; 64]>,
}

impl Search {
    /// Creates a fresh search with default budgets and no tables.
    pub(crate) fn new() -> Self {
        Self {
            max_depth: 0,
            depth_node_limit: u64::MAX,
            global_node_limit: 1_000_000,
            iteration_nodes: 0,
            global_nodes: 0,
            interrupted: false,
            moves: Vec::with_capacity(128),
            past_progress: false,
            transposition_table: None,
            punishable: None,
            bishop_distances: None,
        }
    }

    /// Folds the current depth iteration's positions-explored count into the
    /// running totals and clears `interrupted`. Call before each depth in
    /// `iterative_deepening`.
    pub(crate) fn reset_iteration(&mut self) {
        self.global_nodes += self.iteration_nodes;
        self.iteration_nodes = 0;
        self.interrupted = false;
    }

    /// Call before each `iterative_deepening` invocation to give it a fresh
    /// budget on the number of positions it may explore.
    pub(crate) fn reset_global_nodes(&mut self) {
        self.global_nodes = 0;
    }

    /// True once either the depth-scoped or the global budget on positions
    /// explored is exhausted; see [`Search::is_depth_limit_reached`] and
    /// [`Search::is_global_limit_reached`].
    fn is_limit_reached(&self) -> bool {
        self.is_depth_limit_reached() || self.is_global_limit_reached()
    }

    /// True once `iteration_nodes` (positions explored this depth iteration)
    /// exceeds `max_depth * depth_node_limit`: the per-depth budget on
    /// positions explored, scaled by how deep this iteration searches.
    ///
    /// `depth_node_limit == u64::MAX` means "no limit"; that case is
    /// special-cased to avoid overflowing the multiplication.
    fn is_depth_limit_reached(&self) -> bool {
        self.depth_node_limit != u64::MAX
            && self.iteration_nodes > (self.max_depth as u64) * self.depth_node_limit
    }

    /// True once `global_nodes` (positions explored in prior depth
    /// iterations) plus `iteration_nodes` (this one) exceed
    /// `global_node_limit`.
    fn is_global_limit_reached(&self) -> bool {
        self.global_nodes + self.iteration_nodes > self.global_node_limit
    }
}

/// Recursive helpmate search. Returns the move sequence leading to checkmate,
/// or `None`.
///
/// `depth` counts plies played so far in this iteration (not remaining). The
/// search terminates a branch when `depth >= search.max_depth` or the budget
/// on positions explored is exhausted.
///
/// The transposition table (when present) stores `num_moves_left` per position.
/// A hit prunes the branch only if the stored value is >= the current
/// `num_moves_left`, meaning the position was already searched at least as
/// deeply.
pub(crate) fn helpmate(board: &Board, search: &mut Search, depth: u8) -> Option<Vec<ChessMove>> {
    let num_moves_left = search.max_depth.saturating_sub(depth);

    // TT probe.
    if let Some(ref tt) = search.transposition_table {
        if let Some(entry_depth) = tt.get(board) {
            if entry_depth >= &num_moves_left {
                return None;
            }
        }
    }

    // bench patch: once this depth iteration is interrupted, a leaf can only
    // change the outcome by being checkmate, so the other tests are skipped.
    if search.interrupted && (depth >= search.max_depth || search.moves.len() >= 128) {
        if is_black_checkmated(board) {
            return Some(search.moves.clone());
        }
        return None;
    }

    // bench patch: `len`, not `peekable().peek()`: the count costs less than
    // finding the first move, and the loop then runs on the generator itself.
    let legal_moves = MoveGen::new_legal(board);

    if legal_moves.len() == 0 {
        if board.side_to_move() == Color::Black && *board.checkers() != EMPTY {
            return Some(search.moves.clone()); // Checkmate.
        }
        return None; // Stalemate or White mated.
    }

    if insufficient_white_material(board) {
        return None;
    }

    if depth >= search.max_depth || search.moves.len() >= 128 {
        search.interrupted = true;
        return None;
    }

    // TT store.
    if let Some(ref mut tt) = search.transposition_table {
        tt.insert(*board, num_moves_left);
    }

    let targets = Targets::new(board); // bench patch: found once per position
    for m in legal_moves {
        search.iteration_nodes += 1;

        if search.is_limit_reached() {
            search.interrupted = true;
            return None;
        }

        let moved_piece = board.piece_on(m.get_source()).unwrap();
        let variation = classify_move(
            board,
            m,
            moved_piece,
            &targets,
            &search.punishable,
            &search.bishop_distances,
        );

        let new_depth = match variation {
            MoveVariation::Reward => depth,
            MoveVariation::Punish => depth + 4,
            MoveVariation::Normal => depth + (!search.past_progress as u8),
        };

        // bench patch: the same leaf test as above, before the move is made.
        // After a Black move the leaf has White to move, so it is not a
        // checkmate of Black; after a White move it is one only if the move
        // gives check.
        if search.interrupted && (new_depth >= search.max_depth || search.moves.len() + 1 >= 128) {
            if board.side_to_move() == Color::White && gives_check(board, m, moved_piece) {
                let new_board = board.make_move_new(m);
                if is_black_checkmated(&new_board) {
                    search.moves.push(m);
                    return Some(search.moves.clone());
                }
            }
            continue;
        }

        let new_board = board.make_move_new(m);

        search.moves.push(m);
        let saved_past_progress = search.past_progress;
        search.past_progress = variation == MoveVariation::Reward;

        if let Some(helpmate) = helpmate(&new_board, search, new_depth) {
            return Some(helpmate);
        }

        search.past_progress = saved_past_progress;
        search.moves.pop();
    }

    None
}

/// Black to move, in check, with no legal move. (bench patch)
pub(crate) fn is_black_checkmated(board: &Board) -> bool {
    board.side_to_move() == Color::Black
        && *board.checkers() != EMPTY
        // A safe king step answers most checks, and costs less to find than
        // every legal move.
        && !black_king_can_step(board)
        && MoveGen::new_legal(board).len() == 0
}

/// Whether Black's king has a square to step to that White does not attack.
fn black_king_can_step(board: &Board) -> bool {
    let king = board.king_square(Color::Black);
    // The king does not shield the squares behind it from a slider.
    let occupied = *board.combined() & !BitBoard::from_square(king);
    let white = *board.color_combined(Color::White);
    let queens = *board.pieces(Piece::Queen);
    let diagonal_sliders = (*board.pieces(Piece::Bishop) | queens) & white;
    let line_sliders = (*board.pieces(Piece::Rook) | queens) & white;
    let attacked = |square: Square| {
        get_pawn_attacks(square, Color::Black, *board.pieces(Piece::Pawn) & white) != EMPTY
            || get_knight_moves(square) & *board.pieces(Piece::Knight) & white != EMPTY
            || get_king_moves(square) & *board.pieces(Piece::King) & white != EMPTY
            || get_bishop_moves(square, occupied) & diagonal_sliders != EMPTY
            || get_rook_moves(square, occupied) & line_sliders != EMPTY
    };
    (get_king_moves(king) & !*board.color_combined(Color::Black)).any(|square| !attacked(square))
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use chess::{Board, BoardStatus, Color, MoveGen};

    use super::is_black_checkmated;

    fn black_is_mated(board: &Board) -> bool {
        board.side_to_move() == Color::Black && board.status() == BoardStatus::Checkmate
    }

    /// bench patch: `is_black_checkmated` is the board's own status, on
    /// mates, and on the labelled corpus' positions and those up to two
    /// moves later.
    #[test]
    fn is_black_checkmated_is_the_boards_status() {
        for fen in [
            "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
            "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
            "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1",
            "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1",
        ] {
            assert!(is_black_checkmated(&Board::from_str(fen).unwrap()), "{fen}");
        }
        let corpus = include_str!("../../tests/positions.txt");
        let (mut positions, mut checks, mut mates) = (0, 0, 0);
        for line in corpus.lines().filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        {
            let root = Board::from_str(line.split_once(' ').unwrap().1).unwrap();
            let mut boards = vec![root];
            for child in MoveGen::new_legal(&root).map(|m| root.make_move_new(m)) {
                boards.push(child);
                boards.extend(MoveGen::new_legal(&child).map(|m| child.make_move_new(m)));
            }
            positions += boards.len();
            for board in boards {
                assert_eq!(is_black_checkmated(&board), black_is_mated(&board), "{board}");
                if board.side_to_move() == Color::Black && *board.checkers() != chess::EMPTY {
                    checks += 1;
                    mates += usize::from(black_is_mated(&board));
                }
            }
        }
        assert!(
            positions > 400_000 && checks > 5_000 && mates > 300,
            "{positions} positions, {checks} checks, {mates} mates"
        );
    }
}
