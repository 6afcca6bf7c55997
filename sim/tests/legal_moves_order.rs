//! `LegalMoves` lists a position's moves in `chess::MoveGen`'s order, which
//! legal mode's reproducibility depends on: compared move by move with
//! `MoveGen::new_legal`, and the `k`-th move with `MoveGen`'s `nth(k)`;
//! `contains` with `Board::legal`.

use std::str::FromStr;

use bench_sim::legal_moves::LegalMoves;
use bench_sim::rng::{Actor, Stream};
use bench_sim::sample;
use chess::{Board as Position, BoardStatus, ChessMove, MoveGen, Piece};

fn same_order(position: &Position) -> usize {
    let expected: Vec<ChessMove> = MoveGen::new_legal(position).collect();
    let moves = LegalMoves::new(position);
    assert_eq!(moves.to_vec(), expected, "{position}");
    assert_eq!(moves.len(), expected.len(), "{position}");
    assert_eq!(moves.is_empty(), expected.is_empty(), "{position}");
    assert_eq!(moves.nth(expected.len()), None, "{position}");
    expected.len()
}

/// `contains` is `Position::legal`: on every legal move, and on moves that
/// are not, from every square of the side to move's pieces to every square,
/// promotions to every piece included.
fn contains_is_legal(position: &Position) {
    let moves = LegalMoves::new(position);
    for source in *position.color_combined(position.side_to_move()) {
        for dest in chess::ALL_SQUARES {
            for promotion in [None, Some(Piece::Queen), Some(Piece::Knight), Some(Piece::King), Some(Piece::Pawn)] {
                let m = ChessMove::new(source, dest, promotion);
                assert_eq!(moves.contains(m), position.legal(m), "{position} {m}");
            }
        }
    }
}

/// Every position of 300 random games (the moves legal mode would play).
#[test]
fn the_same_order_on_random_games() {
    let mut positions = 0;
    for game in 0..300 {
        let mut position = Position::default();
        let mut stream = Stream::new(11, game, Actor::Board);
        for _ in 0..600 {
            let count = same_order(&position);
            if positions % 50 == 0 {
                contains_is_legal(&position);
            }
            positions += 1;
            if position.status() != BoardStatus::Ongoing {
                break;
            }
            let index = sample::below(&mut stream, count as u64) as usize;
            let chosen = MoveGen::new_legal(&position).nth(index).expect("a move");
            position = position.make_move_new(chosen);
        }
    }
    assert!(positions > 100_000, "{positions} positions");
}

/// Positions chosen for what random games seldom reach, and every position
/// two moves on: castling both ways (through attacked squares too), en
/// passant (one capturer, two, one pinned along the rank), promotion with
/// and without capture, pinned pieces of every kind, single and double check.
#[test]
fn the_same_order_where_the_rules_are_special() {
    let fens = [
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        "r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/5n2/8/R3K2R w KQkq - 0 1",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
        "4k3/8/8/2PpP3/8/8/8/4K3 w - d6 0 1",
        "8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1",
        "4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1",
        "4k3/8/4K3/3pP3/8/8/8/8 w - d6 0 1",
        "3qk3/2P1P3/8/8/8/8/5p1p/K5N1 w - - 0 1",
        "3qk3/2P1P3/8/8/8/8/5p1p/K5N1 b - - 0 1",
        "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",
        "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1",
        "4k3/8/8/q7/8/8/3P4/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1",
        "4k3/8/8/8/1b6/8/4r3/4K3 w - - 0 1",
        "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1",
        "rnbqkbnr/ppp2ppp/8/3pp3/4P3/5Q2/PPPP1PPP/RNB1KBNR w KQkq d6 0 3",
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    ];
    let mut positions = 0;
    for fen in fens {
        let root = Position::from_str(fen).unwrap_or_else(|error| panic!("{fen}: {error:?}"));
        same_order(&root);
        contains_is_legal(&root);
        for first in MoveGen::new_legal(&root) {
            let child = root.make_move_new(first);
            same_order(&child);
            contains_is_legal(&child);
            for second in MoveGen::new_legal(&child) {
                same_order(&child.make_move_new(second));
                positions += 1;
            }
        }
    }
    assert!(positions > 4_000, "{positions} positions");
}
