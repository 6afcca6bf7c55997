//! Search engine: state, core recursive search, and iteration strategies.

// bench patch: the attack lookups and the per-position targets the faster
// leaves and move ordering use.
use chess::{
    get_bishop_moves, get_bishop_rays, get_king_moves, get_knight_moves, get_pawn_attacks,
    get_rook_moves, get_rook_rays, BitBoard, Board, ChessMove, Color, MoveGen, Piece, Square,
    EMPTY,
};
use std::collections::hash_map::Entry;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{
    heuristics::{classify_move, MoveVariation, Targets},
    moves::{Entry as MoveEntry, LegalMoves},
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

    /// The budget as one number: either limit is reached once
    /// `iteration_nodes` is at least this. Set by [`Search::reset_iteration`]
    /// from the limits, the depth and `global_nodes`. (bench patch)
    room: u64,

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
            room: 0,
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
        self.room = self.room_now();
    }

    /// The budget's room in positions this iteration: the depth budget's
    /// `max_depth * depth_node_limit`, or the global budget's remainder,
    /// whichever is less, plus one (none left: 0). (bench patch)
    fn room_now(&self) -> u64 {
        let depth = if self.depth_node_limit == u64::MAX {
            u64::MAX
        } else {
            (self.max_depth as u64) * self.depth_node_limit
        };
        match self.global_node_limit.checked_sub(self.global_nodes) {
            Some(global) => depth.min(global).saturating_add(1),
            None => 0,
        }
    }

    /// Call before each `iterative_deepening` invocation to give it a fresh
    /// budget on the number of positions it may explore.
    pub(crate) fn reset_global_nodes(&mut self) {
        self.global_nodes = 0;
    }

    /// Counts `nodes` positions explored at once, as `nodes` increments each
    /// followed by [`Search::is_limit_reached`] would: true if the budget ran
    /// out, the count then stopped at the first position past it. (bench
    /// patch)
    fn count_nodes(&mut self, nodes: u64) -> bool {
        let depth_room = if self.depth_node_limit == u64::MAX {
            u64::MAX
        } else {
            ((self.max_depth as u64) * self.depth_node_limit).saturating_sub(self.iteration_nodes)
        };
        let global_room =
            self.global_node_limit.saturating_sub(self.global_nodes + self.iteration_nodes);
        let room = depth_room.min(global_room);
        if nodes <= room {
            self.iteration_nodes += nodes;
            false
        } else {
            self.iteration_nodes += room + 1;
            true
        }
    }

    /// True once either the depth-scoped or the global budget on positions
    /// explored is exhausted; see [`Search::is_depth_limit_reached`] and
    /// [`Search::is_global_limit_reached`].
    fn is_limit_reached(&self) -> bool {
        // bench patch: one comparison; the two limits' own tests say the same.
        debug_assert_eq!(self.room, self.room_now());
        debug_assert_eq!(
            self.iteration_nodes >= self.room,
            self.is_depth_limit_reached() || self.is_global_limit_reached()
        );
        self.iteration_nodes >= self.room
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
    // bench patch: the probe keeps the table's entry for the store below, so
    // the position is hashed and looked for once; an entry not stored to is
    // dropped, and the table is as the published probe and store leave it.
    let mut tt_entry = None;
    if let Some(ref mut tt) = search.transposition_table {
        match tt.entry(*board) {
            Entry::Occupied(entry) if *entry.get() >= num_moves_left => return None,
            entry => tt_entry = Some(entry),
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

    // bench patch: the moves one entry per piece, each with its piece, in
    // `MoveGen`'s order (`LegalMoves`), not one at a time from `MoveGen`.
    let mut legal_moves = LegalMoves::empty();
    legal_moves.generate(board);

    if legal_moves.is_empty() {
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
    match tt_entry {
        Some(Entry::Occupied(mut entry)) => {
            entry.insert(num_moves_left);
        }
        Some(Entry::Vacant(entry)) => {
            entry.insert(num_moves_left);
        }
        None => {}
    }

    // bench patch: the targets found once per position; each entry's moves in
    // `MoveGen`'s order, the moved piece known from the entry.
    let targets = Targets::new(board);
    // bench patch: moves known to lead to a leaf that is not a checkmate,
    // once `interrupted` is set, are counted and not looked at one by one
    // (`quiet_leaves`); the budget stops the count where it would stop it
    // move by move.
    let leaves_by_kind = search.punishable.is_none()
        && search.bishop_distances.is_none()
        && !search.past_progress
        && depth + 1 >= search.max_depth;
    for entry in legal_moves.entries() {
        let moved_piece = entry.piece;
        let quiet =
            if search.interrupted && leaves_by_kind { quiet_leaves(board, entry) } else { EMPTY };
        if quiet != EMPTY && quiet == entry.dests {
            if search.count_nodes(entry.len()) {
                search.interrupted = true;
                return None;
            }
            continue;
        }
        let promotions: &[Option<Piece>] = if entry.promotion { &PROMOTIONS } else { &[None] };
        // Quiet moves passed over and not yet counted.
        let mut passed = 0;
        for dest in entry.dests {
            if quiet & BitBoard::from_square(dest) != EMPTY {
                passed += promotions.len() as u64;
                continue;
            }
            if passed != 0 {
                if search.count_nodes(passed) {
                    search.interrupted = true;
                    return None;
                }
                passed = 0;
            }
            for &promotion in promotions {
                let m = ChessMove::new(entry.source, dest, promotion);
                search.iteration_nodes += 1;

                if search.is_limit_reached() {
                    search.interrupted = true;
                    return None;
                }

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
                if search.interrupted
                    && (new_depth >= search.max_depth || search.moves.len() + 1 >= 128)
                {
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
        }
        if passed != 0 && search.count_nodes(passed) {
            search.interrupted = true;
            return None;
        }
    }

    None
}

/// The moves of `entry` that lead to a leaf that is not a checkmate, once
/// `interrupted` is set, at a node one ply above the depth searched to, with
/// no past progress and no punishable moves or bishop distances (`Normal` is
/// one ply deeper, `Punish` four). (bench patch)
///
/// With Black to move, every move that is not `Reward`: leaves with White to
/// move are no checkmate of Black. Black's `Reward` moves are the king's and
/// knights' that approach their target; every move of another piece is one
/// of these. With White to move, `Reward` moves are pawn moves, captures and
/// the king's and knights' approaches; a bishop's, a rook's or a queen's move
/// that captures nothing is a leaf, a checkmate only if it gives check. It
/// gives check directly when it lands on a square the piece would see the
/// king from, past the pieces that stay; by discovery only if it leaves a
/// line of the king's, and entries that could are left to the move-by-move
/// test.
fn quiet_leaves(board: &Board, entry: &MoveEntry) -> BitBoard {
    match (board.side_to_move(), entry.piece) {
        (Color::Black, Piece::King | Piece::Knight) => EMPTY,
        (Color::Black, _) => entry.dests,
        (Color::White, Piece::Bishop | Piece::Rook | Piece::Queen) => {
            let king = board.king_square(Color::Black);
            let from = BitBoard::from_square(entry.source);
            if (get_bishop_rays(king) | get_rook_rays(king)) & from != EMPTY {
                return EMPTY;
            }
            let stay = *board.combined() & !from;
            let seen = match entry.piece {
                Piece::Bishop => get_bishop_moves(king, stay),
                Piece::Rook => get_rook_moves(king, stay),
                _ => get_bishop_moves(king, stay) | get_rook_moves(king, stay),
            };
            entry.dests & !*board.combined() & !seen
        }
        (Color::White, _) => EMPTY,
    }
}

/// A promotion's pieces in `MoveGen`'s order. (bench patch)
const PROMOTIONS: [Option<Piece>; 4] =
    [Some(Piece::Queen), Some(Piece::Knight), Some(Piece::Rook), Some(Piece::Bishop)];

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

    use chess::{Board, BoardStatus, ChessMove, Color, MoveGen, Piece};

    use super::{is_black_checkmated, quiet_leaves, LegalMoves, Search};

    fn black_is_mated(board: &Board) -> bool {
        board.side_to_move() == Color::Black && board.status() == BoardStatus::Checkmate
    }

    /// bench patch: a White move `quiet_leaves` passes over captures nothing
    /// and gives no check once made; a Black one is no king's or knight's.
    /// On every legal move of the labelled corpus' positions and of those
    /// one move later.
    #[test]
    fn quiet_leaves_are_no_captures_or_checks() {
        let corpus = include_str!("../../tests/positions.txt");
        let mut passed = [0, 0];
        for line in corpus.lines().filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        {
            let root = Board::from_str(line.split_once(' ').unwrap().1).unwrap();
            let mut boards = vec![root];
            boards.extend(MoveGen::new_legal(&root).map(|m| root.make_move_new(m)));
            for board in boards {
                let mut moves = LegalMoves::empty();
                moves.generate(&board);
                for entry in moves.entries() {
                    for dest in quiet_leaves(&board, entry) {
                        let promotion = entry.promotion.then_some(Piece::Queen);
                        let m = ChessMove::new(entry.source, dest, promotion);
                        assert!(board.legal(m), "{board} {m}");
                        if board.side_to_move() == Color::White {
                            assert!(board.piece_on(dest).is_none(), "{board} {m}");
                            let after = board.make_move_new(m);
                            assert_eq!(*after.checkers(), chess::EMPTY, "{board} {m}");
                        } else {
                            assert!(!matches!(entry.piece, Piece::King | Piece::Knight));
                        }
                        passed[board.side_to_move().to_index()] += 1;
                    }
                }
            }
        }
        assert!(passed[0] > 50_000 && passed[1] > 50_000, "{passed:?}");
    }

    /// bench patch: `Search::count_nodes` stops where counting one node at a
    /// time, each followed by `is_limit_reached`, stops.
    #[test]
    fn count_nodes_is_counting_one_at_a_time() {
        for (depth_node_limit, global_node_limit) in
            [(7, 100), (u64::MAX, 50), (3, 10), (1_000, 1 << 24)]
        {
            for global_nodes in [0, 5, 40, 60, 200] {
                for start in 0..30 {
                    for nodes in 0..40 {
                        let mut search = Search::new();
                        search.max_depth = 3;
                        search.depth_node_limit = depth_node_limit;
                        search.global_node_limit = global_node_limit;
                        search.global_nodes = global_nodes;
                        search.iteration_nodes = start;
                        let mut one_by_one = Search::new();
                        one_by_one.max_depth = 3;
                        one_by_one.depth_node_limit = depth_node_limit;
                        one_by_one.global_node_limit = global_node_limit;
                        one_by_one.global_nodes = global_nodes;
                        one_by_one.room = one_by_one.room_now();
                        one_by_one.iteration_nodes = start;
                        let mut reached = false;
                        for _ in 0..nodes {
                            one_by_one.iteration_nodes += 1;
                            if one_by_one.is_limit_reached() {
                                reached = true;
                                break;
                            }
                        }
                        assert_eq!(search.count_nodes(nodes), reached);
                        assert_eq!(search.iteration_nodes, one_by_one.iteration_nodes);
                    }
                }
            }
        }
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
