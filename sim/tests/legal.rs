//! Legal-move mode: the board's facts checked against the `chess` crate's own
//! view of the position, and 6.10 answers on known positions.

use std::str::FromStr;

use bench_sim::board::Board as _;
use bench_sim::legal::{self, LegalBoard};
use bench_sim::rng::{Actor, Stream};
use bench_sim::sample;
use chess::{Board as Position, BoardStatus, Color, MoveGen};
use chessclock::{GameEnd, Side};

fn position(fen: &str) -> Position {
    Position::from_str(fen).unwrap_or_else(|error| panic!("{fen}: {error:?}"))
}

fn stream(game: u64) -> Stream {
    Stream::new(1, game, Actor::Board)
}

/// Plays a game from the initial position until it ends or `max_plies`.
fn play_out(game: u64, max_plies: u32) -> (LegalBoard, Option<GameEnd>, Side) {
    let mut board = LegalBoard::new();
    let mut stream = stream(game);
    let mut side = Side::White;
    for _ in 0..max_plies {
        if let Some(end) = board.play(side, &mut stream) {
            return (board, Some(end), side);
        }
        side = side.opponent();
    }
    (board, None, side)
}

// ---- 6.10 on known positions ----

#[test]
fn a_bare_king_cannot_mate() {
    // White (K+Q) to move, White's flag falls: Black has a bare king.
    let mut board = LegalBoard::from_position(position("8/8/8/2k5/8/8/8/4K2Q w - - 0 1"));
    assert!(!board.can_checkmate(Side::Black, &mut stream(0)));
    assert!(board.can_checkmate(Side::White, &mut stream(0)));
}

#[test]
fn king_and_knight_cannot_mate_a_bare_king() {
    // Black's flag falls; White has king and knight against a bare king.
    let mut board = LegalBoard::from_position(position("8/8/3k4/8/8/2N5/8/4K3 b - - 0 1"));
    assert!(!board.can_checkmate(Side::White, &mut stream(0)));
    assert!(!board.can_checkmate(Side::Black, &mut stream(0)));
    assert!(legal::is_dead(board.position()));
}

#[test]
fn a_helpmate_is_enough_to_lose_on_time() {
    // K+N against K+P: no forced mate, but the pawn can block its own king's
    // flight square, so a mate by White exists (6.10: Black loses on time).
    let fen = "7k/7p/8/8/8/8/8/K5N1 b - - 0 1";
    let mut board = LegalBoard::from_position(position(fen));
    assert!(board.can_checkmate(Side::White, &mut stream(0)));
    // The witness line really mates, by the `chess` crate's own rules.
    let Some(chasolver::Winnability::Winnable { helpmate }) = chasolver::winnability(&position(fen), Color::White)
    else {
        panic!("chasolver found no helpmate in {fen}");
    };
    let mated = helpmate.iter().fold(position(fen), |position, &chess_move| {
        assert!(position.legal(chess_move), "{chess_move} is not legal in {position}");
        position.make_move_new(chess_move)
    });
    assert_eq!(mated.status(), BoardStatus::Checkmate);
    assert_eq!(mated.side_to_move(), Color::Black);
    // Opposite-coloured bishops: mate only with the loser's help.
    let mut bishops = LegalBoard::from_position(position("8/3bK3/5B2/7k/8/8/8/8 b - - 0 1"));
    assert!(bishops.can_checkmate(Side::White, &mut stream(0)));
    assert!(bishops.can_checkmate(Side::Black, &mut stream(0)));
    assert!(!legal::is_dead(bishops.position()));
}

#[test]
fn a_locked_pawn_wall_keeps_a_side_from_mating() {
    // Lichess game ijyj0mHa, move 60 (chasolver's README): Black cannot get
    // through the locked pawns, White can.
    let mut board = LegalBoard::from_position(position("5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 1"));
    assert!(!board.can_checkmate(Side::Black, &mut stream(0)));
    assert!(board.can_checkmate(Side::White, &mut stream(0)));
    // Asked again (the other clock's flag): the same answer.
    assert!(!board.can_checkmate(Side::Black, &mut stream(0)));
    assert_eq!(board.undecided(), 0);
}

// ---- moves ----

#[test]
fn the_kth_move_of_movegen_is_played() {
    let mut board = LegalBoard::new();
    let mut drawn = stream(3);
    let mut expected = Position::default();
    let mut side = Side::White;
    for _ in 0..40 {
        let moves: Vec<_> = MoveGen::new_legal(&expected).collect();
        let mut copy = drawn.clone();
        let index = sample::below(&mut copy, moves.len() as u64) as usize;
        let end = board.play(side, &mut drawn);
        expected = expected.make_move_new(moves[index]);
        assert_eq!(*board.position(), expected);
        // Exactly one draw per move.
        assert_eq!(copy.next_u64(), drawn.clone().next_u64());
        if end.is_some() {
            break;
        }
        side = side.opponent();
    }
}

#[test]
fn golden_first_moves() {
    // Pins the move order of `chess` 3.2 together with the sampling: if
    // either changes, every legal-mode run replays differently.
    let mut board = LegalBoard::new();
    let mut drawn = stream(0);
    let mut side = Side::White;
    let mut played = Vec::new();
    for _ in 0..12 {
        let before = *board.position();
        assert_eq!(board.play(side, &mut drawn), None);
        let chess_move = MoveGen::new_legal(&before)
            .find(|&chess_move| before.make_move_new(chess_move) == *board.position())
            .expect("the board played a legal move");
        played.push(chess_move.to_string());
        side = side.opponent();
    }
    assert_eq!(played, GOLDEN_FIRST_MOVES);
}

/// Seed 1, game 0, the board's stream. Computed independently with
/// python-chess 1.11.2 (legal moves sorted into the order documented in
/// `bench_sim::legal`) and `golden_reference.py`'s stream and `below`.
const GOLDEN_FIRST_MOVES: [&str; 12] =
    ["d2d3", "b8a6", "f2f3", "g7g6", "b1a3", "a8b8", "d1d2", "d7d6", "h2h4", "f8h6", "g2g3", "d6d5"];

#[test]
fn same_stream_same_game() {
    for game in 0..20 {
        let (first, first_end, _) = play_out(game, 600);
        let (second, second_end, _) = play_out(game, 600);
        assert_eq!(first.position(), second.position());
        assert_eq!(first.plies(), second.plies());
        assert_eq!(first_end, second_end);
    }
    let (game_0, _, _) = play_out(0, 30);
    let (game_1, _, _) = play_out(1, 30);
    assert_ne!(game_0.position(), game_1.position());
}

#[test]
fn the_wrong_side_is_refused_without_a_trace() {
    let mut board = LegalBoard::new();
    let mut drawn = stream(0);
    let untouched = drawn.clone();
    assert_eq!(board.play(Side::Black, &mut drawn), None);
    assert_eq!(*board.position(), Position::default());
    assert_eq!(board.plies(), 0);
    assert_eq!(board.refused(), 1);
    assert_eq!(drawn.next_u64(), untouched.clone().next_u64());
    // Play goes on normally for the side to move.
    assert_eq!(board.play(Side::White, &mut drawn), None);
    assert_eq!(board.position().side_to_move(), Color::Black);
}

// ---- endings ----

#[test]
fn random_games_end_in_every_way_and_each_end_is_real() {
    let (mut checkmates, mut stalemates, mut dead) = (0, 0, 0);
    for game in 0..300 {
        let (board, end, mover) = play_out(game, 2_000);
        let position = board.position();
        match end {
            Some(GameEnd::Checkmate { winner }) => {
                checkmates += 1;
                assert_eq!(winner, mover, "game {game}: the mover mates");
                assert_eq!(position.status(), BoardStatus::Checkmate, "game {game}: {position}");
                assert_eq!(position.side_to_move(), legal::color(mover.opponent()));
            }
            Some(GameEnd::Stalemate) => {
                stalemates += 1;
                assert_eq!(position.status(), BoardStatus::Stalemate, "game {game}: {position}");
            }
            Some(GameEnd::DeadPosition) => {
                dead += 1;
                assert_eq!(position.status(), BoardStatus::Ongoing, "game {game}: {position}");
                // The full search agrees that neither side can mate.
                for color in [Color::White, Color::Black] {
                    assert_eq!(
                        chasolver::winnability(position, color),
                        Some(chasolver::Winnability::Unwinnable),
                        "game {game}: {position}"
                    );
                }
            }
            other => panic!("game {game}: ended {other:?} after {} plies at {position}", board.plies()),
        }
    }
    // Random play from the initial position: mostly dead positions (bare
    // kings, lone minor pieces), some checkmates, a few stalemates.
    assert!(checkmates >= 15, "{checkmates} checkmates");
    assert!(stalemates >= 5, "{stalemates} stalemates");
    assert!(dead >= 150, "{dead} dead positions");
}

#[test]
fn thousands_of_games_and_flag_rulings_without_a_panic() {
    let mut plies = 0;
    let mut ended = 0;
    for game in 1_000..3_000 {
        let mut board = LegalBoard::new();
        let mut drawn = stream(game);
        // Every 20th game is stopped by a flag at a random ply and ruled.
        let flag_at = if game % 20 == 0 { 20 + sample::below(&mut drawn, 300) } else { u64::MAX };
        let mut side = Side::White;
        while board.plies() < 1_000 {
            if board.plies() == flag_at {
                let _ = board.can_checkmate(side.opponent(), &mut drawn);
                break;
            }
            if board.play(side, &mut drawn).is_some() {
                ended += 1;
                break;
            }
            side = side.opponent();
        }
        plies += board.plies();
        assert_eq!(board.refused(), 0);
    }
    assert!(ended > 1_500, "{ended} of 2000 games ended on the board");
    assert!(plies > 500_000, "{plies} plies");
}

// ---- 6.14: an earlier position restored ----

#[test]
fn taking_back_restores_the_position_of_two_half_moves_earlier_once() {
    let mut board = LegalBoard::new();
    let mut stream = stream(7);
    let mut positions = vec![*board.position()];
    for side in [Side::White, Side::Black, Side::White] {
        assert_eq!(board.play(side, &mut stream), None);
        positions.push(*board.position());
    }
    assert!(board.take_back());
    assert_eq!(*board.position(), positions[1], "after White's first move");
    assert_eq!(board.plies(), 1);
    assert_eq!(board.position().side_to_move(), Color::Black, "the same side to move as before");
    assert!(!board.take_back(), "no earlier position kept past a take-back");
    assert_eq!(*board.position(), positions[1]);
    // Play goes on from the restored position: Black moves.
    assert_eq!(board.play(Side::Black, &mut stream), None);
    assert_eq!(board.refused(), 0);
    assert_ne!(*board.position(), positions[1]);
}
