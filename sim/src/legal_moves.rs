//! A position's legal moves, in the order `chess::MoveGen::new_legal` yields
//! them, with the `k`-th found in a few steps.
//!
//! Legal mode draws the `k`-th move of that order (the reproducibility
//! contract in [`crate::legal`]). `MoveGen` keeps its moves as one entry per
//! piece (a source square and a bitboard of destinations) but lets them out
//! only one at a time, so `nth(k)` made `k` calls: 7 % of a legal run's time.
//! [`LegalMoves`] builds the same entries in the same order, with `chess`'s
//! own public move functions (as `chess` 3.2.0's `movegen/piece_type.rs`
//! does, to the quirk), and counts its way to the `k`-th move entry by entry.
//!
//! `sim/tests/legal_moves_order.rs` compares every move list with
//! `MoveGen`'s, move by move, on positions of random games and on positions
//! chosen for castling, en passant, promotion, pins and checks: a new `chess`
//! version that changed the order fails it.

use chess::{
    between, get_adjacent_files, get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_moves, get_rank,
    get_rook_moves, line, BitBoard, Board as Position, ChessMove, Color, Piece, Square, EMPTY, PROMOTION_PIECES,
};

/// The a-file's and the h-file's squares.
const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// At most one entry per piece, plus two en passant captures.
const MAX_ENTRIES: usize = 18;

/// The moves of one piece: `chess`'s `SquareAndBitBoard`.
#[derive(Clone, Copy, Debug)]
struct Entry {
    source: Square,
    dests: BitBoard,
    /// A pawn's move to the last rank: each destination is four moves.
    promotion: bool,
    /// The moves in `dests`, counted once at the push: the draw walks the
    /// entries by their counts.
    moves: u8,
}

impl Entry {
    fn new(source: Square, dests: BitBoard, promotion: bool) -> Entry {
        // A piece has a few destinations: a bit at a time costs less than
        // `popcnt`'s portable sum of all 64.
        let mut remaining = dests.0;
        let mut squares = 0u8;
        while remaining != 0 {
            remaining &= remaining - 1;
            squares += 1;
        }
        let moves = if promotion { squares * PROMOTION_PIECES.len() as u8 } else { squares };
        Entry { source, dests, promotion, moves }
    }
}

/// The legal moves of a position, in `MoveGen`'s order.
#[derive(Clone, Debug)]
pub struct LegalMoves {
    entries: [Entry; MAX_ENTRIES],
    used: usize,
    /// The moves in `entries[..used]`, counted as they are pushed: legal mode
    /// asks for the count once at the end test and again to draw.
    count: usize,
}

/// Whether the side to move is out of check, or in check from one piece
/// (the squares that answer it), as `MoveGen`'s `CheckType`.
#[derive(Clone, Copy)]
enum Check {
    None,
    Single { answers: BitBoard },
}

impl LegalMoves {
    pub fn new(position: &Position) -> LegalMoves {
        let mut moves = LegalMoves::empty();
        moves.generate(position);
        moves
    }

    /// No moves: storage for [`LegalMoves::generate`] to fill.
    pub fn empty() -> LegalMoves {
        let unused = Entry::new(Square::A1, EMPTY, false);
        LegalMoves { entries: [unused; MAX_ENTRIES], used: 0, count: 0 }
    }

    /// Replaces the moves with `position`'s, in place: legal mode generates
    /// once a half-move, and a fresh list would be copied on every return.
    pub fn generate(&mut self, position: &Position) {
        self.used = 0;
        self.count = 0;
        let checkers = *position.checkers();
        let king = position.king_square(position.side_to_move());
        // One bit or several, without counting them (`popcnt` is a portable
        // sum of all 64 here).
        let check = if checkers == EMPTY {
            Check::None
        } else if checkers.0 & (checkers.0 - 1) == 0 {
            Check::Single { answers: between(checkers.to_square(), king) ^ checkers }
        } else {
            self.king(position, false);
            return;
        };
        let setup = Setup::new(position, check);
        self.pawns(position, &setup);
        self.knights(position, &setup);
        self.sliders(&setup, own(position, Piece::Bishop), get_bishop_moves);
        self.sliders(&setup, own(position, Piece::Rook), get_rook_moves);
        self.sliders(&setup, own(position, Piece::Queen), |source, combined| {
            get_rook_moves(source, combined) ^ get_bishop_moves(source, combined)
        });
        self.king(position, matches!(check, Check::None));
    }

    /// How many legal moves.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The `index`-th legal move (from 0), as `MoveGen::new_legal(..).nth(index)`.
    pub fn nth(&self, mut index: usize) -> Option<ChessMove> {
        for entry in &self.entries[..self.used] {
            let moves = usize::from(entry.moves);
            if index >= moves {
                index -= moves;
                continue;
            }
            let (dest_index, promotion) = if entry.promotion {
                (index / PROMOTION_PIECES.len(), Some(PROMOTION_PIECES[index % PROMOTION_PIECES.len()]))
            } else {
                (index, None)
            };
            // Destinations in ascending square order, as `MoveGen` takes them.
            let dest = entry.dests.into_iter().nth(dest_index)?;
            return Some(ChessMove::new(entry.source, dest, promotion));
        }
        None
    }

    /// Whether `chosen` is one of the moves: `chess`'s `Board::legal`, which
    /// looks for it in `MoveGen`'s list, without a move at a time.
    pub fn contains(&self, chosen: ChessMove) -> bool {
        let (source, dest) = (chosen.get_source(), chosen.get_dest());
        self.entries[..self.used].iter().any(|entry| {
            entry.source == source
                && entry.dests & BitBoard::from_square(dest) != EMPTY
                && match chosen.get_promotion() {
                    None => !entry.promotion,
                    Some(piece) => entry.promotion && PROMOTION_PIECES.contains(&piece),
                }
        })
    }

    /// Every move, in order (tests).
    pub fn to_vec(&self) -> Vec<ChessMove> {
        (0..self.len()).filter_map(|index| self.nth(index)).collect()
    }

    fn push(&mut self, source: Square, dests: BitBoard, promotion: bool) {
        if dests != EMPTY && self.used < MAX_ENTRIES {
            let entry = Entry::new(source, dests, promotion);
            self.count += usize::from(entry.moves);
            self.entries[self.used] = entry;
            self.used += 1;
        }
    }

    fn pawns(&mut self, position: &Position, setup: &Setup) {
        let color = setup.color;
        let pawns = own(position, Piece::Pawn);
        let last_rank = |source: Square| source.get_rank() == color.to_seventh_rank();
        for source in pawns & !setup.pinned {
            let dests = get_pawn_moves(source, color, setup.combined) & setup.targets & setup.answers;
            self.push(source, dests, last_rank(source));
        }
        if setup.out_of_check {
            for source in pawns & setup.pinned {
                let dests = get_pawn_moves(source, color, setup.combined) & setup.targets & line(setup.king, source);
                self.push(source, dests, last_rank(source));
            }
        }
        // En passant, in or out of check, after the other pawn moves.
        if let Some(captured) = position.en_passant() {
            let capturers = get_rank(captured.get_rank()) & get_adjacent_files(captured.get_file()) & pawns;
            for source in capturers {
                let dest = captured.uforward(color);
                if en_passant_is_legal(position, captured, source, dest) {
                    self.push(source, BitBoard::from_square(dest), false);
                }
            }
        }
    }

    fn knights(&mut self, position: &Position, setup: &Setup) {
        for source in own(position, Piece::Knight) & !setup.pinned {
            self.push(source, get_knight_moves(source) & setup.targets & setup.answers, false);
        }
    }

    /// The moves of `pieces`, bishops, rooks or queens, which reach what
    /// `reach(source, occupied)` says.
    fn sliders(&mut self, setup: &Setup, pieces: BitBoard, reach: impl Fn(Square, BitBoard) -> BitBoard) {
        for source in pieces & !setup.pinned {
            self.push(source, reach(source, setup.combined) & setup.targets & setup.answers, false);
        }
        if setup.out_of_check {
            for source in pieces & setup.pinned {
                self.push(source, reach(source, setup.combined) & setup.targets & line(source, setup.king), false);
            }
        }
    }

    fn king(&mut self, position: &Position, may_castle: bool) {
        let color = position.side_to_move();
        let king = position.king_square(color);
        let combined = *position.combined();
        let danger = KingDanger::new(position);
        let mut dests = get_king_moves(king) & !*position.color_combined(color) & !danger.attacked;
        if may_castle {
            let rights = position.my_castle_rights();
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
        self.push(king, dests, false);
    }
}

/// What every piece's moves are cut to, found once a position (out of
/// check or in check from one piece).
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
    fn new(position: &Position, check: Check) -> Setup {
        let color = position.side_to_move();
        Setup {
            color,
            king: position.king_square(color),
            combined: *position.combined(),
            targets: !*position.color_combined(color),
            pinned: *position.pinned(),
            answers: answers(check),
            out_of_check: matches!(check, Check::None),
        }
    }
}

/// The side to move's pieces of kind `piece`.
fn own(position: &Position, piece: Piece) -> BitBoard {
    *position.pieces(piece) & *position.color_combined(position.side_to_move())
}

fn answers(check: Check) -> BitBoard {
    match check {
        Check::None => !EMPTY,
        Check::Single { answers } => answers,
    }
}

/// The squares the side to move's king may not go to: those an enemy piece
/// attacks once the king has left its square. `chess`'s
/// `KingType::legal_king_move` asks of each square which enemy piece reaches
/// it (up to ten squares a position); this asks the same the other way
/// round, once a position: what every enemy piece reaches. An attack on a
/// square does not depend on whether the square itself is occupied, nor an
/// attack between two squares on which end it is traced from.
struct KingDanger {
    attacked: BitBoard,
}

impl KingDanger {
    fn new(position: &Position) -> KingDanger {
        let color = position.side_to_move();
        let theirs = *position.color_combined(!color);
        let queens = *position.pieces(Piece::Queen);
        // The king shields nothing once it has left.
        let occupied = *position.combined() ^ own(position, Piece::King);
        let mut attacked = get_king_moves(position.king_square(!color));
        for source in *position.pieces(Piece::Knight) & theirs {
            attacked |= get_knight_moves(source);
        }
        let pawns = (*position.pieces(Piece::Pawn) & theirs).0;
        let (not_h, not_a) = (!FILE_H, !FILE_A);
        attacked |= BitBoard(match color {
            // Black pawns take down the board, White's up.
            Color::White => ((pawns >> 9) & not_h) | ((pawns >> 7) & not_a),
            Color::Black => ((pawns << 7) & not_h) | ((pawns << 9) & not_a),
        });
        for source in (*position.pieces(Piece::Bishop) | queens) & theirs {
            attacked |= get_bishop_moves(source, occupied);
        }
        for source in (*position.pieces(Piece::Rook) | queens) & theirs {
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
/// both pawns have left their squares. (Like `chess`, it does not ask
/// whether the capture answers a check from another piece.)
fn en_passant_is_legal(position: &Position, captured: Square, source: Square, dest: Square) -> bool {
    let color = position.side_to_move();
    let theirs = *position.color_combined(!color);
    let combined = *position.combined()
        ^ BitBoard::from_square(captured)
        ^ BitBoard::from_square(source)
        ^ BitBoard::from_square(dest);
    let king = position.king_square(color);
    let queens = *position.pieces(Piece::Queen);
    let rooks = (*position.pieces(Piece::Rook) | queens) & theirs;
    let bishops = (*position.pieces(Piece::Bishop) | queens) & theirs;
    get_rook_moves(king, combined) & rooks == EMPTY && get_bishop_moves(king, combined) & bishops == EMPTY
}
