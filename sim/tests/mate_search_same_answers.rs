//! Legal mode rules on 6.10 with `chasolver-fast`, the published `chasolver`
//! 3.0.0 with a faster search (`vendor/chasolver-fast/PATCH.md`). The patch
//! is meant to change nothing but the time taken: these tests ask both crates
//! the same questions and want the same answer, the same helpmate included,
//! move for move, and the same "could not decide".

use std::str::FromStr;

use bench_sim::board::Board as _;
use bench_sim::legal::LegalBoard;
use bench_sim::rng::{Actor, Stream};
use chess::{Board as Position, ChessMove, Color};
use chessclock::Side;

/// One crate's answer, in terms both share.
#[derive(Debug, PartialEq, Eq)]
enum Answer {
    Helpmate(Vec<ChessMove>),
    Unwinnable,
    Undecided,
}

fn published(position: &Position, winner: Color) -> Answer {
    match chasolver::winnability(position, winner) {
        Some(chasolver::Winnability::Winnable { helpmate }) => Answer::Helpmate(helpmate),
        Some(chasolver::Winnability::Unwinnable) => Answer::Unwinnable,
        None => Answer::Undecided,
    }
}

fn patched(position: &Position, winner: Color) -> Answer {
    match chasolver_fast::winnability(position, winner) {
        Some(chasolver_fast::Winnability::Winnable { helpmate }) => Answer::Helpmate(helpmate),
        Some(chasolver_fast::Winnability::Unwinnable) => Answer::Unwinnable,
        None => Answer::Undecided,
    }
}

/// Asks both crates about `position` for White, then Black, to mate;
/// whether each found a helpmate.
fn same_answers(position: &Position) -> [bool; 2] {
    [Color::White, Color::Black].map(|winner| {
        let answer = patched(position, winner);
        assert_eq!(answer, published(position, winner), "{position}, {winner:?} to mate");
        matches!(answer, Answer::Helpmate(_))
    })
}

fn count(found: [bool; 2], helpmates: &mut u32, others: &mut u32) {
    for found in found {
        *if found { &mut *helpmates } else { &mut *others } += 1;
    }
}

/// The positions of legal mode's own games, where its flags fall: random
/// legal games from the initial position, every eighth position from the
/// 40th half-move on, to the end of the game.
#[test]
fn the_same_answers_on_positions_of_random_games() {
    let (mut helpmates, mut others) = (0, 0);
    for game in 0..24 {
        let mut board = LegalBoard::new();
        let mut stream = Stream::new(7, game, Actor::Board);
        let mut side = Side::White;
        for ply in 0..400 {
            if ply >= 40 && ply % 8 == 0 {
                count(same_answers(board.position()), &mut helpmates, &mut others);
            }
            if board.play(side, &mut stream).is_some() {
                break;
            }
            side = side.opponent();
        }
    }
    // Both kinds of answer were compared, not only the easy one.
    assert!(helpmates >= 1_000 && others >= 60, "{helpmates} helpmates, {others} other answers");
}

/// The published crate's own labelled corpus (its `tests/positions.txt`,
/// hard positions chosen by its authors): every sixth position, both
/// winners. The corpus also says which answer is right.
#[test]
fn the_same_answers_on_the_published_crates_corpus() {
    let corpus = include_str!("../../vendor/chasolver-fast/tests/positions.txt");
    let entries = corpus.lines().filter(|line| !line.trim().is_empty() && !line.starts_with('#'));
    let (mut helpmates, mut others) = (0, 0);
    for line in entries.step_by(6) {
        let (labels, fen) = line.split_once(' ').unwrap_or_else(|| panic!("no label: {line}"));
        let position = Position::from_str(fen).unwrap_or_else(|error| panic!("{fen}: {error:?}"));
        let found = same_answers(&position);
        assert_eq!(found, [labels.starts_with('W'), labels.ends_with('B')], "{fen}: labelled {labels}");
        count(found, &mut helpmates, &mut others);
    }
    assert!(helpmates >= 400 && others >= 300, "{helpmates} helpmates, {others} other answers");
}
