//! Dead-position tests (5.2b) left for later (`bench_sim::legal`): a game
//! plays the same as with each test at its move, restores (6.14) included.

use std::path::Path;

use bench_sim::board::{Board as _, DeadTests};
use bench_sim::defects::DefectSet;
use bench_sim::game::{self, GameSpec};
use bench_sim::legal::{self, LegalBoard};
use bench_sim::rng::{Actor, Stream};
use bench_sim::scenario::Scenario;
use chessclock::{GameEnd, Side};

const LEGAL_BLITZ: &str = include_str!("../../scenarios/legal-blitz.toml");
/// Games per scenario and mode; enough for games that end dead after a
/// capture, and for restores around them.
const GAMES: u64 = 150;

fn spec(scenario: &Scenario, game: u64, swarm: bool) -> GameSpec<'_> {
    GameSpec {
        scenario,
        seed: 1,
        game,
        swarm,
        trace: true,
        model_oracle: true,
        disabled: DefectSet::default(),
        record_inputs: false,
        script: None,
    }
}

#[test]
fn deferred_dead_position_tests_play_the_same_games() {
    let with_restores = format!("{LEGAL_BLITZ}\n[arbiter]\nrestore = \"1/15\"\n");
    let (mut dead, mut restored) = (0, 0);
    for (name, text) in [("legal-blitz", LEGAL_BLITZ), ("legal-blitz with restores", with_restores.as_str())] {
        let scenario = Scenario::parse(text, Path::new("legal.toml")).expect("the scenario parses");
        for swarm in [false, true] {
            for game in 0..GAMES {
                let deferred = game::play_with(spec(&scenario, game, swarm), DeadTests::Deferred);
                let at_the_move = game::play_with(spec(&scenario, game, swarm), DeadTests::AtTheMove);
                // The whole record, trace included: every event, every result.
                assert_eq!(format!("{deferred:?}"), format!("{at_the_move:?}"), "{name}, swarm {swarm}, game {game}");
                let trace = deferred.trace.unwrap_or_default().join("\n");
                dead += usize::from(trace.contains("DeadPosition"));
                restored += usize::from(trace.contains("arbiter restores") && trace.contains("DeadPosition"));
            }
        }
    }
    // Both ways of ending were played: a dead position found later (the
    // game played again), and one after a restore.
    assert!(dead >= 10, "only {dead} games ended in a dead position");
    assert!(restored >= 2, "only {restored} games with a restore ended in a dead position");
}

fn position(fen: &str) -> chess::Board {
    fen.parse().unwrap_or_else(|error| panic!("{fen}: {error:?}"))
}

/// White's king may take the knight, and then the locked pawns keep both
/// kings out (dead, 5.2b, with pawns on the board), or step aside.
const MAY_TAKE_THE_KNIGHT: &str = "4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/2n5/1K6/8 w - - 0 1";

/// A board stream whose first draw from `fen` has White play a move after
/// which `played` holds.
fn stream_where(fen: &str, played: impl Fn(&chess::Board) -> bool) -> Stream {
    (0..64)
        .map(|game| Stream::new(1, game, Actor::Board))
        .find(|stream| {
            let mut board = LegalBoard::from_position(position(fen));
            board.play(Side::White, &mut stream.clone());
            played(board.position())
        })
        .unwrap_or_else(|| panic!("none of 64 streams plays the move wanted in {fen}"))
}

fn stream_taking_the_knight() -> Stream {
    stream_where(MAY_TAKE_THE_KNIGHT, |after| *after.pieces(chess::Piece::Knight) == chess::EMPTY)
}

#[test]
fn the_fixture_is_alive_and_dead_after_the_capture() {
    let mut board = LegalBoard::from_position(position(MAY_TAKE_THE_KNIGHT));
    assert!(!legal::is_dead(board.position()));
    board.play(Side::White, &mut stream_taking_the_knight());
    assert!(legal::is_dead(board.position()));
}

#[test]
fn a_dead_position_left_for_later_is_found_when_the_game_is_over() {
    let mut at_the_move = LegalBoard::from_position(position(MAY_TAKE_THE_KNIGHT));
    assert_eq!(at_the_move.play(Side::White, &mut stream_taking_the_knight()), Some(GameEnd::DeadPosition));
    assert!(at_the_move.game_stands());

    let mut deferred = LegalBoard::from_position(position(MAY_TAKE_THE_KNIGHT)).with_dead_tests(DeadTests::Deferred);
    assert_eq!(deferred.play(Side::White, &mut stream_taking_the_knight()), None);
    assert!(!deferred.game_stands(), "the game went on past a dead position");
}

#[test]
fn a_mate_shown_later_speaks_for_the_positions_before_it() {
    // Random moves from the start (captures and pawn moves leave tests for
    // later), then a helpmate found at a flag: none of those positions was
    // dead, and nothing is played again.
    let mut board = LegalBoard::new().with_dead_tests(DeadTests::Deferred);
    let mut stream = Stream::new(1, 7, Actor::Board);
    let mut side = Side::White;
    for _ in 0..30 {
        assert_eq!(board.play(side, &mut stream), None);
        side = side.opponent();
    }
    assert!(board.can_checkmate(Side::White, &mut stream));
    assert!(board.game_stands());
}

#[test]
fn a_position_taken_back_is_tested_before_a_later_mate_could_hide_it() {
    // White takes the knight (dead), Black's king moves, the arbiter takes
    // both back (6.14): the knight is back, and Black can mate. That
    // helpmate does not pass through the dead position played before.
    let mut board = LegalBoard::from_position(position(MAY_TAKE_THE_KNIGHT)).with_dead_tests(DeadTests::Deferred);
    let mut stream = stream_taking_the_knight();
    assert_eq!(board.play(Side::White, &mut stream), None);
    assert_eq!(board.play(Side::Black, &mut stream), None);
    assert!(board.take_back());
    assert_eq!(*board.position(), position(MAY_TAKE_THE_KNIGHT));
    assert!(board.can_checkmate(Side::Black, &mut stream));
    assert!(!board.game_stands(), "the dead position before the restore was missed");
}

#[test]
fn with_minor_pieces_only_left_each_test_runs_at_its_move() {
    // The king takes the last pawn: king and knight against king. No pawn,
    // rook or queen is left, so the deferred board tests at once and ends
    // the game at that move, as the board testing at each move does.
    let fen = "8/8/3k4/8/8/2N5/1p6/K7 w - - 0 1";
    let takes = || stream_where(fen, |after| *after.pieces(chess::Piece::Pawn) == chess::EMPTY);
    let mut at_the_move = LegalBoard::from_position(position(fen));
    assert_eq!(at_the_move.play(Side::White, &mut takes()), Some(GameEnd::DeadPosition));
    let mut deferred = LegalBoard::from_position(position(fen)).with_dead_tests(DeadTests::Deferred);
    assert_eq!(deferred.play(Side::White, &mut takes()), Some(GameEnd::DeadPosition));
    assert!(deferred.game_stands());
}
