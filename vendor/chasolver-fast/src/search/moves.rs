//! A position's legal moves in the order `chess::MoveGen::new_legal` yields
//! them, one entry per piece with the piece's kind. (bench patch)
//!
//! The search walks every legal move of every position it expands and asks
//! each move which piece it moves. `MoveGen` hands the moves out one at a
//! time and knows nothing of the piece; this list is the same entries (a
//! source square and a bitboard of destinations), built in the same order
//! with `chess`'s public move functions as `chess` 3.2.0's
//! `movegen/piece_type.rs` does, each with its piece. Bench's own move list
//! for legal mode (`sim/src/legal_moves.rs`) is built the same way; the test
//! below holds this one to `MoveGen`, move by move.

use chess::{
    between, get_adjacent_files, get_bishop_moves, get_king_moves, get_knight_moves,
    get_pawn_moves, get_rank, get_rook_moves, line, BitBoard, Board, Color, Piece, Square, EMPTY,
    PROMOTION_PIECES,
};

/// The a-file's and the h-file's squares.
const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// At most one entry per piece, plus two en passant captures.
const MAX_ENTRIES: usize = 18;

/// The moves of one piece: `chess`'s `SquareAndBitBoard` and the piece.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) source: Square,
    pub(crate) dests: BitBoard,
    /// A pawn's move to the last rank: each destination is four moves, as
    /// queen, knight, rook, bishop.
    pub(crate) promotion: bool,
    pub(crate) piece: Piece,
}

impl Entry {
    /// The moves in this entry.
    pub(crate) fn len(&self) -> u64 {
        let squares = u64::from(self.dests.0.count_ones());
        if self.promotion {
            squares * PROMOTION_PIECES.len() as u64
        } else {
            squares
        }
    }

    /// The moves, in `MoveGen`'s order: destinations ascending, each
    /// promotion as queen, knight, rook, bishop.
    #[cfg(test)]
    pub(crate) fn moves(&self) -> impl Iterator<Item = chess::ChessMove> + '_ {
        let promotions: &[Piece] = if self.promotion { &PROMOTION_PIECES } else { &[] };
        self.dests.flat_map(move |dest| {
            let plain =
                promotions.is_empty().then(|| chess::ChessMove::new(self.source, dest, None));
            plain.into_iter().chain(
                promotions
                    .iter()
                    .map(move |&piece| chess::ChessMove::new(self.source, dest, Some(piece))),
            )
        })
    }
}

/// The legal moves of a position, in `MoveGen`'s order.
pub(crate) struct LegalMoves {
    entries: [Entry; MAX_ENTRIES],
    used: usize,
}

/// Out of check, or in check from one piece (the squares that answer it).
#[derive(Clone, Copy)]
enum Check {
    None,
    Single { answers: BitBoard },
}

impl LegalMoves {
    /// No moves: room for [`LegalMoves::generate`] to fill.
    pub(crate) fn empty() -> LegalMoves {
        let unused =
            Entry { source: Square::A1, dests: EMPTY, promotion: false, piece: Piece::Pawn };
        LegalMoves { entries: [unused; MAX_ENTRIES], used: 0 }
    }

    /// `board`'s moves, in place of the list's: built where the search keeps
    /// it, not copied there.
    pub(crate) fn generate(&mut self, board: &Board) {
        let moves = self;
        moves.used = 0;
        let checkers = *board.checkers();
        let king = board.king_square(board.side_to_move());
        let check = if checkers == EMPTY {
            Check::None
        } else if checkers.0 & (checkers.0 - 1) == 0 {
            Check::Single { answers: between(checkers.to_square(), king) ^ checkers }
        } else {
            moves.king(board, false);
            return;
        };
        let setup = Setup::new(board, check);
        moves.pawns(board, &setup);
        for source in own(board, Piece::Knight) & !setup.pinned {
            let dests = get_knight_moves(source) & setup.targets & setup.answers;
            moves.push(source, dests, false, Piece::Knight);
        }
        moves.sliders(&setup, own(board, Piece::Bishop), Piece::Bishop, get_bishop_moves);
        moves.sliders(&setup, own(board, Piece::Rook), Piece::Rook, get_rook_moves);
        moves.sliders(&setup, own(board, Piece::Queen), Piece::Queen, |source, combined| {
            get_rook_moves(source, combined) ^ get_bishop_moves(source, combined)
        });
        moves.king(board, matches!(check, Check::None));
    }

    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries[..self.used]
    }

    /// Whether there is no legal move.
    pub(crate) fn is_empty(&self) -> bool {
        self.used == 0
    }

    #[cfg(test)]
    fn to_vec(&self) -> Vec<chess::ChessMove> {
        self.entries().iter().flat_map(Entry::moves).collect()
    }

    fn push(&mut self, source: Square, dests: BitBoard, promotion: bool, piece: Piece) {
        if dests != EMPTY && self.used < MAX_ENTRIES {
            self.entries[self.used] = Entry { source, dests, promotion, piece };
            self.used += 1;
        }
    }

    fn pawns(&mut self, board: &Board, setup: &Setup) {
        let color = setup.color;
        let pawns = own(board, Piece::Pawn);
        let last_rank = |source: Square| source.get_rank() == color.to_seventh_rank();
        for source in pawns & !setup.pinned {
            let dests =
                get_pawn_moves(source, color, setup.combined) & setup.targets & setup.answers;
            self.push(source, dests, last_rank(source), Piece::Pawn);
        }
        if setup.out_of_check {
            for source in pawns & setup.pinned {
                let dests = get_pawn_moves(source, color, setup.combined)
                    & setup.targets
                    & line(setup.king, source);
                self.push(source, dests, last_rank(source), Piece::Pawn);
            }
        }
        // En passant, in or out of check, after the other pawn moves.
        if let Some(captured) = board.en_passant() {
            let capturers =
                get_rank(captured.get_rank()) & get_adjacent_files(captured.get_file()) & pawns;
            for source in capturers {
                let dest = captured.uforward(color);
                if en_passant_is_legal(board, captured, source, dest) {
                    self.push(source, BitBoard::from_square(dest), false, Piece::Pawn);
                }
            }
        }
    }

    fn sliders(
        &mut self,
        setup: &Setup,
        pieces: BitBoard,
        piece: Piece,
        reach: impl Fn(Square, BitBoard) -> BitBoard,
    ) {
        for source in pieces & !setup.pinned {
            let dests = reach(source, setup.combined) & setup.targets & setup.answers;
            self.push(source, dests, false, piece);
        }
        if setup.out_of_check {
            for source in pieces & setup.pinned {
                let dests =
                    reach(source, setup.combined) & setup.targets & line(source, setup.king);
                self.push(source, dests, false, piece);
            }
        }
    }

    fn king(&mut self, board: &Board, may_castle: bool) {
        let color = board.side_to_move();
        let king = board.king_square(color);
        let combined = *board.combined();
        let danger = KingDanger::new(board);
        let mut dests = get_king_moves(king) & !*board.color_combined(color) & !danger.attacked;
        if may_castle {
            let rights = board.my_castle_rights();
            if rights.has_kingside() && combined & rights.kingside_squares(color) == EMPTY {
                let (middle, end) = (king.uright(), king.uright().uright());
                if danger.may_go(middle) && danger.may_go(end) {
                    dests ^= BitBoard::from_square(end);
                }
            }
            if rights.has_queenside() && combined & rights.queenside_squares(color) == EMPTY {
                let (middle, end) = (king.uleft(), king.uleft().uleft());
                if danger.may_go(middle) && danger.may_go(end) {
                    dests ^= BitBoard::from_square(end);
                }
            }
        }
        self.push(king, dests, false, Piece::King);
    }
}

/// What every piece's moves are cut to, found once a position.
struct Setup {
    color: Color,
    king: Square,
    combined: BitBoard,
    /// Squares the side to move does not occupy.
    targets: BitBoard,
    pinned: BitBoard,
    /// The squares that answer the check; every square out of check.
    answers: BitBoard,
    /// Pinned pieces may move along their pin only out of check.
    out_of_check: bool,
}

impl Setup {
    fn new(board: &Board, check: Check) -> Setup {
        let color = board.side_to_move();
        Setup {
            color,
            king: board.king_square(color),
            combined: *board.combined(),
            targets: !*board.color_combined(color),
            pinned: *board.pinned(),
            answers: match check {
                Check::None => !EMPTY,
                Check::Single { answers } => answers,
            },
            out_of_check: matches!(check, Check::None),
        }
    }
}

/// The side to move's pieces of kind `piece`.
fn own(board: &Board, piece: Piece) -> BitBoard {
    *board.pieces(piece) & *board.color_combined(board.side_to_move())
}

/// The squares the side to move's king may not go to: those an enemy piece
/// attacks once the king has left its square. `chess`'s
/// `KingType::legal_king_move` asks of each square which enemy piece reaches
/// it; this is the same question asked the other way round, once a position:
/// what every enemy piece reaches. An attack on a square does not depend on
/// whether the square itself is occupied, nor does an attack from a square
/// depend on which way it is traced.
struct KingDanger {
    attacked: BitBoard,
}

impl KingDanger {
    fn new(board: &Board) -> KingDanger {
        let color = board.side_to_move();
        let theirs = *board.color_combined(!color);
        let queens = *board.pieces(Piece::Queen);
        // The king shields nothing once it has left.
        let occupied = *board.combined() ^ own(board, Piece::King);
        let mut attacked = get_king_moves(board.king_square(!color));
        for source in *board.pieces(Piece::Knight) & theirs {
            attacked |= get_knight_moves(source);
        }
        let pawns = (*board.pieces(Piece::Pawn) & theirs).0;
        let (west, east) = (!FILE_H, !FILE_A);
        attacked |= BitBoard(match color {
            // Black pawns attack down the board, White's up.
            Color::White => ((pawns >> 9) & west) | ((pawns >> 7) & east),
            Color::Black => ((pawns << 7) & west) | ((pawns << 9) & east),
        });
        for source in (*board.pieces(Piece::Bishop) | queens) & theirs {
            attacked |= get_bishop_moves(source, occupied);
        }
        for source in (*board.pieces(Piece::Rook) | queens) & theirs {
            attacked |= get_rook_moves(source, occupied);
        }
        KingDanger { attacked }
    }

    /// No enemy piece attacks `dest` once the king has left its square.
    fn may_go(&self, dest: Square) -> bool {
        self.attacked & BitBoard::from_square(dest) == EMPTY
    }
}

/// `chess`'s `PawnType::legal_ep_move`: no enemy slider sees the king once
/// both pawns have left their squares.
fn en_passant_is_legal(board: &Board, captured: Square, source: Square, dest: Square) -> bool {
    let color = board.side_to_move();
    let theirs = *board.color_combined(!color);
    let combined = *board.combined()
        ^ BitBoard::from_square(captured)
        ^ BitBoard::from_square(source)
        ^ BitBoard::from_square(dest);
    let king = board.king_square(color);
    let queens = *board.pieces(Piece::Queen);
    let rooks = (*board.pieces(Piece::Rook) | queens) & theirs;
    let bishops = (*board.pieces(Piece::Bishop) | queens) & theirs;
    get_rook_moves(king, combined) & rooks == EMPTY
        && get_bishop_moves(king, combined) & bishops == EMPTY
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use chess::{Board, MoveGen};

    use super::LegalMoves;

    fn check(board: &Board) {
        let expected: Vec<_> = MoveGen::new_legal(board).collect();
        let mut moves = LegalMoves::empty();
        moves.generate(board);
        assert_eq!(moves.to_vec(), expected, "{board}");
        assert_eq!(moves.is_empty(), expected.is_empty(), "{board}");
        let count: u64 = moves.entries().iter().map(|entry| entry.len()).sum();
        assert_eq!(count, expected.len() as u64, "{board}");
        for entry in moves.entries() {
            for m in entry.moves() {
                assert_eq!(board.piece_on(m.get_source()), Some(entry.piece), "{board} {m}");
            }
        }
    }

    /// `LegalMoves` is `MoveGen`, move by move, with each move's piece: on
    /// positions chosen for castling, en passant, promotion, pins and double
    /// checks, on the labelled corpus' positions and on those one move later.
    #[test]
    fn legal_moves_are_movegens() {
        for fen in [
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
            "r3k2r/8/8/8/8/8/5q2/R3K2R w KQkq - 0 1",
            "8/8/8/KPp4r/8/8/8/7k w - c6 0 1",
            "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
            "8/8/8/8/k2Pp2Q/8/8/4K3 b - d3 0 1",
            "1n2k3/P1P5/8/8/8/8/p1p5/1N2K3 w - - 0 1",
            "1n2k3/P1P5/8/8/8/8/p1p5/1N2K3 b - - 0 1",
            "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",
            "4k3/4r3/8/8/1b6/8/3N4/4K3 w - - 0 1",
            "4k3/8/8/8/8/5n2/8/4K2r w - - 0 1",
        ] {
            check(&Board::from_str(fen).unwrap());
        }
        let corpus = include_str!("../../tests/positions.txt");
        let mut positions = 0;
        for line in corpus.lines().filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        {
            let root = Board::from_str(line.split_once(' ').unwrap().1).unwrap();
            check(&root);
            positions += 1;
            for child in MoveGen::new_legal(&root).map(|m| root.make_move_new(m)) {
                check(&child);
                positions += 1;
            }
        }
        assert!(positions > 20_000, "{positions} positions");
    }
}
