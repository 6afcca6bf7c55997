//! Move ordering heuristics for the helpmate search.

use chess::{Board, ChessMove, Color, Piece, Square, EMPTY};
use rustc_hash::FxHashSet;

// bench patch: distance tables instead of distance arithmetic.
use super::utils::{is_capture, king_distances, knight_distances};
use crate::{
    search::utils::flip_square_file,
    utils::{DARK_SQUARES, LIGHT_SQUARES},
};

/// Move variation types for depth adjustment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MoveVariation {
    /// Standard depth increment.
    Normal,
    /// Decrease depth (search deeper on promising moves).
    Reward,
    /// Increase depth (search shallower on bad moves).
    Punish,
}

/// Returns the depth-adjustment class for move `m`.
///
/// Punishable moves are immediately classified as `Punish`; otherwise
/// delegates to color-specific heuristics.
#[inline] // bench patch: called for every move searched
pub(crate) fn classify_move(
    board: &Board,
    m: ChessMove,
    moved_piece: Piece,
    targets: &Targets,
    punishable: &Option<FxHashSet<ChessMove>>,
    bishop_distances: &Option<[u8; 64]>,
) -> MoveVariation {
    if let Some(punishable) = punishable {
        if punishable.contains(&m) {
            return MoveVariation::Punish;
        }
    }
    match board.side_to_move() {
        // bench patch: the moved piece and the targets, looked up once.
        Color::White => classify_white_move(board, m, moved_piece, targets, bishop_distances),
        Color::Black => classify_black_move(board, m, moved_piece, targets, bishop_distances),
    }
}

/// Returns the depth-adjustment class for a White move.
///
/// Rewards pawn advances, captures, and moves that approach the heuristic
/// target square ([`target`]) or improve a bishop's distance to the
/// mating corner ([`super::utils::compute_bishop_distances`]). Defaults to
/// `Normal`.
fn classify_white_move(
    board: &Board,
    m: ChessMove,
    moved_piece: Piece,
    targets: &Targets,
    bishop_distances: &Option<[u8; 64]>,
) -> MoveVariation {
    // bench patch: White to move, so a White pawn moved, and White pawns move
    // up the board: this is `is_pawn_advance(board, m)`.
    if moved_piece == Piece::Pawn || is_capture(board, m) || targets.approaches(moved_piece, m) {
        return MoveVariation::Reward;
    }

    if let Some(ds) = bishop_distances {
        if moved_piece == Piece::Bishop {
            let src_dist = ds[m.get_source().to_index()];
            let dest_dist = ds[m.get_dest().to_index()];

            if src_dist > 200 {
                return MoveVariation::Normal;
            }
            if src_dist <= 1 && src_dist < dest_dist {
                return MoveVariation::Reward;
            }
            if src_dist > 2 && src_dist > dest_dist {
                return MoveVariation::Reward;
            }
        }
    }

    MoveVariation::Normal
}

/// Returns the depth-adjustment class for a Black move.
///
/// Rewards pawn captures in sufficiently complex positions and moves that
/// approach the target square or shorten a bishop's distance to the mating
/// corner. Punishes other captures and pawn advances, which tend to
/// simplify the position away from the patterns the search is tuned to
/// explore. Defaults to `Normal`.
// bench patch: takes the moved piece and the position's targets.
fn classify_black_move(
    board: &Board,
    m: ChessMove,
    moved_piece: Piece,
    targets: &Targets,
    bishop_distances: &Option<[u8; 64]>,
) -> MoveVariation {
    if bishop_distances.is_some()
        && board.combined().popcnt() > 5
        && is_capture(board, m)
        && (moved_piece == Piece::Pawn || board.piece_on(m.get_dest()) == Some(Piece::Pawn))
    {
        return MoveVariation::Reward;
    }

    if let Some(ds) = bishop_distances {
        // bench patch: the moved piece, not looked up again.
        if moved_piece == Piece::Bishop
            && ds[m.get_source().to_index()] > ds[m.get_dest().to_index()]
        {
            return MoveVariation::Reward;
        }
    }

    // bench patch: the position's target, found once (`Targets`).
    if targets.approaches(moved_piece, m) {
        return MoveVariation::Reward;
    }

    // bench patch: `is_capture(board, m) || is_pawn_advance(board, m)`; with
    // Black to move, a Black piece moves, and `is_pawn_advance` is true only
    // of a White pawn.
    if is_capture(board, m) {
        return MoveVariation::Punish;
    }

    MoveVariation::Normal
}

/// The distances to the heuristic target squares of the side to move's king
/// and knights ([`target`]): a function of the position alone, so found
/// once per position searched rather than once per move. (bench patch)
pub(crate) struct Targets {
    king: Option<&'static [u8; 64]>,
    knight: Option<&'static [u8; 64]>,
}

impl Targets {
    pub(crate) fn new(board: &Board) -> Targets {
        // Both targets lie in the same corner: found once.
        let dark_corner = dark_corner(board);
        Targets {
            king: target(board, Piece::King, dark_corner).map(king_distances),
            knight: target(board, Piece::Knight, dark_corner).map(knight_distances),
        }
    }

    /// `moves_toward_square(m, moved_piece, target) < 0`: the move brings a
    /// king or a knight closer to its target.
    fn approaches(&self, moved_piece: Piece, m: ChessMove) -> bool {
        let distances = match moved_piece {
            Piece::King => self.king,
            Piece::Knight => self.knight,
            _ => None,
        };
        distances.is_some_and(|distances| {
            distances[m.get_dest().to_index()] < distances[m.get_source().to_index()]
        })
    }
}

/// Whether the mating corner (H8-side or A8-side, by the bishops' colours)
/// is a dark one: the first half of the published `set_target`, found once
/// for both pieces by [`Targets::new`]. (bench patch)
fn dark_corner(board: &Board) -> bool {
    let bishops = board.pieces(Piece::Bishop);
    let white_bishops = board.color_combined(Color::White) & bishops;
    let black_bishops = board.color_combined(Color::Black) & bishops;

    (white_bishops & DARK_SQUARES) != EMPTY
        || (white_bishops == EMPTY && (black_bishops & LIGHT_SQUARES) != EMPTY)
}

/// Returns the heuristic target square for `moved_piece`, or `None` if no
/// target applies.
///
/// Used to reward moves approaching the mating corner and penalize those moving
/// away. The target corner (H8-side or A8-side) is determined by the bishop
/// colors on the board.
///
/// bench patch: the published `set_target`, given the corner
/// ([`dark_corner`]).
fn target(board: &Board, moved_piece: Piece, dark_corner: bool) -> Option<Square> {
    let mut target = match board.side_to_move() {
        Color::White => match moved_piece {
            Piece::King => Some(Square::G7),   // We aim both at G6 and H7.
            Piece::Knight => Some(Square::E5), // We aim both at G6 and F7.
            _ => None,
        },
        Color::Black => match moved_piece {
            Piece::King => Some(Square::H8),
            Piece::Knight => Some(Square::G8),
            _ => None,
        },
    };

    if !dark_corner {
        target = target.map(flip_square_file);
    }

    target
}

#[cfg(test)]
mod tests {
    use chess::{ChessMove, Piece, ALL_SQUARES};

    use super::Targets;
    use crate::search::utils::{king_distances, knight_distances, moves_toward_square};

    /// bench patch: `Targets::approaches` answers as the published test it
    /// replaces, for every target and every king or knight step.
    #[test]
    fn approaches_is_moves_toward_square() {
        for target in ALL_SQUARES {
            let targets = Targets {
                king: Some(king_distances(target)),
                knight: Some(knight_distances(target)),
            };
            for source in ALL_SQUARES {
                for dest in ALL_SQUARES {
                    let m = ChessMove::new(source, dest, None);
                    for piece in [Piece::King, Piece::Knight] {
                        assert_eq!(
                            targets.approaches(piece, m),
                            moves_toward_square(m, piece, target) < 0,
                            "{piece:?} {m} toward {target}"
                        );
                    }
                }
            }
        }
    }
}
