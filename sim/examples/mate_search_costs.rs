//! Where legal mode's 6.10 searches spend their time (the figures of
//! `sim/src/legal.rs`, "How legal mode got 2× faster"). Plays the games of
//! `bench perf --only legal`, finds each flag's position again (the board
//! draws its moves from its own stream, so the position is the one after the
//! moves the game's record counts), asks `chasolver-fast`'s full search about
//! it as the game did, and the published `chasolver` 3.0.0 too, each timed,
//! and prints both totals, then where `chasolver-fast`'s time goes: the
//! dearest searches, short helpmates, positions proved unwinnable, and what
//! the side that can mate has left.
//!
//! `cargo run --release -p bench-sim --example mate_search_costs [GAMES]`
//! (default 500, as `bench perf --only legal --games 2000`). Times are wall
//! clock, the fastest of three per position: run it on an idle machine.
//! Exit codes: 0 done, 1 a search answered otherwise than the game's ruling
//! (the position found again is not the flag's) or the two crates answered
//! differently, 2 bad GAMES.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use bench_sim::board::Board as _;
use bench_sim::defects::DefectSet;
use bench_sim::game::{self, GameSpec};
use bench_sim::legal::LegalBoard;
use bench_sim::perf::LEGAL_SCENARIO;
use bench_sim::rng::{Actor, Stream};
use bench_sim::scenario::Scenario;
use chess::{Board as Position, ChessMove, Color, Piece};
use chessclock::{Outcome, Side};

/// Searches shown one by one, dearest first.
const DEAREST_SHOWN: usize = 15;
/// A helpmate this short or shorter counts as short.
const SHORT_PLIES: usize = 12;

/// One 6.10 search: its time, its helpmate's length (none: unwinnable, or
/// gave up), what the winner has.
struct Search {
    nanos: u128,
    /// The published crate's time on the same question.
    published_nanos: u128,
    helpmate_plies: Option<usize>,
    answer: Option<bool>,
    winner_class: &'static str,
    winner_material: String,
    fen: String,
}

fn main() -> ExitCode {
    let games = match std::env::args().nth(1).map(|text| text.parse::<u64>()) {
        None => 500,
        Some(Ok(games)) if games > 0 => games,
        Some(_) => {
            eprintln!("usage: mate_search_costs [GAMES] (a whole number above 0)");
            return ExitCode::from(2);
        }
    };
    let scenario = match Scenario::parse(LEGAL_SCENARIO, Path::new("throughput-legal.toml")) {
        Ok(scenario) => scenario,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(2);
        }
    };
    let mut searches = Vec::new();
    for game in 0..games {
        let record = game::play(GameSpec {
            scenario: &scenario,
            seed: scenario.seed,
            game,
            swarm: false,
            trace: false,
            model_oracle: false,
            disabled: DefectSet::default(),
            record_inputs: false,
            script: None,
        });
        if record.ideal.class() != "6.10" {
            continue;
        }
        let position = flag_position(scenario.seed, game, record.moves.white + record.moves.black);
        let Some(search) = timed_search(&position) else {
            eprintln!("game {game}: chasolver-fast and chasolver answer differently on {position}");
            return ExitCode::from(1);
        };
        // The game's ruling: the flagged side loses when the other can mate.
        let ruled_can_mate = matches!(record.ideal.outcome, Outcome::Win(_));
        if search.answer.unwrap_or(true) != ruled_can_mate {
            eprintln!("game {game}: the search on {} does not give the game's ruling", search.fen);
            return ExitCode::from(1);
        }
        searches.push(search);
    }
    print_costs(games, &mut searches);
    ExitCode::SUCCESS
}

/// The position after `plies` half-moves of game `game`'s board.
fn flag_position(seed: u64, game: u64, plies: u32) -> Position {
    let mut board = LegalBoard::new();
    let mut stream = Stream::new(seed, game, Actor::Board);
    let mut side = Side::White;
    for _ in 0..plies {
        board.play(side, &mut stream);
        side = side.opponent();
    }
    *board.position()
}

/// One crate's answer: a helpmate, `Some(None)` unwinnable, `None` gave up.
type Answer = Option<Option<Vec<ChessMove>>>;

/// The full search for the side not to move (the flagged side is to move),
/// by both crates in turn, the fastest of three each; `None` if they answer
/// differently.
fn timed_search(position: &Position) -> Option<Search> {
    let winner = !position.side_to_move();
    let (mut nanos, mut published_nanos) = (u128::MAX, u128::MAX);
    let (mut fast, mut published): (Answer, Answer) = (None, None);
    for _ in 0..3 {
        let started = Instant::now();
        fast = chasolver_fast::winnability(position, winner).map(|answer| match answer {
            chasolver_fast::Winnability::Winnable { helpmate } => Some(helpmate),
            chasolver_fast::Winnability::Unwinnable => None,
        });
        nanos = nanos.min(started.elapsed().as_nanos());
        let started = Instant::now();
        published = chasolver::winnability(position, winner).map(|answer| match answer {
            chasolver::Winnability::Winnable { helpmate } => Some(helpmate),
            chasolver::Winnability::Unwinnable => None,
        });
        published_nanos = published_nanos.min(started.elapsed().as_nanos());
    }
    if fast != published {
        return None;
    }
    let (helpmate_plies, answer) = match fast {
        Some(Some(helpmate)) => (Some(helpmate.len()), Some(true)),
        Some(None) => (None, Some(false)),
        None => (None, None),
    };
    Some(Search {
        nanos,
        published_nanos,
        helpmate_plies,
        answer,
        winner_class: material_class(position, winner),
        winner_material: material(position, winner),
        fen: position.to_string(),
    })
}

/// What `color` has, as piece letters (king last).
fn material(position: &Position, color: Color) -> String {
    let letters = [
        (Piece::Queen, 'Q'),
        (Piece::Rook, 'R'),
        (Piece::Bishop, 'B'),
        (Piece::Knight, 'N'),
        (Piece::Pawn, 'P'),
        (Piece::King, 'K'),
    ];
    let mut text = String::new();
    for (piece, letter) in letters {
        let count = (*position.pieces(piece) & *position.color_combined(color)).popcnt();
        text.extend(std::iter::repeat_n(letter, count as usize));
    }
    text
}

fn material_class(position: &Position, color: Color) -> &'static str {
    let count = |piece| (*position.pieces(piece) & *position.color_combined(color)).popcnt();
    let (queens_rooks, minors, pawns) =
        (count(Piece::Queen) + count(Piece::Rook), count(Piece::Bishop) + count(Piece::Knight), count(Piece::Pawn));
    match (queens_rooks, minors, pawns) {
        (0, 0, 0) => "a bare king",
        (0, 1, 0) => "a lone bishop or knight",
        (0, _, 0) => "other minor pieces only",
        (0, _, _) => "minor pieces and pawns",
        _ => "a queen or a rook",
    }
}

fn share(part: u128, whole: u128) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

fn print_costs(games: u64, searches: &mut [Search]) {
    let total: u128 = searches.iter().map(|search| search.nanos).sum();
    let published: u128 = searches.iter().map(|search| search.published_nanos).sum();
    println!(
        "{games} games, {} 6.10 searches, the same answers: chasolver-fast {:.1} ms, chasolver {:.1} ms ({:.2}x)",
        searches.len(),
        total as f64 / 1e6,
        published as f64 / 1e6,
        published as f64 / total.max(1) as f64
    );
    searches.sort_by(|a, b| b.nanos.cmp(&a.nanos).then_with(|| a.fen.cmp(&b.fen)));
    let mut running = 0;
    for (rank, search) in searches.iter().enumerate() {
        running += search.nanos;
        if rank < DEAREST_SHOWN {
            let plies = search.helpmate_plies.map_or("-".to_string(), |plies| plies.to_string());
            println!(
                "  {:>8.0} us  helpmate {plies:>3} plies  winner {:<8} {:4.1} % so far  {}",
                search.nanos as f64 / 1e3,
                search.winner_material,
                share(running, total),
                search.fen
            );
        }
    }
    for dearest in [15, 30, 60, 120] {
        let part: u128 = searches.iter().take(dearest).map(|search| search.nanos).sum();
        println!("the {dearest} dearest: {:.1} % of the time", share(part, total));
    }
    let short = searches.iter().filter(|search| search.helpmate_plies.is_some_and(|plies| plies <= SHORT_PLIES));
    let (short_count, short_nanos) = short.fold((0, 0), |(count, nanos), search| (count + 1, nanos + search.nanos));
    println!(
        "helpmates of {SHORT_PLIES} plies or fewer: {short_count}, {:.1} % of the time",
        share(short_nanos, total)
    );
    let unwinnable = searches.iter().filter(|search| search.answer == Some(false));
    let (unwinnable_count, unwinnable_nanos) =
        unwinnable.fold((0, 0), |(count, nanos), search| (count + 1, nanos + search.nanos));
    println!("proved unwinnable: {unwinnable_count}, {:.2} % of the time", share(unwinnable_nanos, total));
    let gave_up = searches.iter().filter(|search| search.answer.is_none()).count();
    println!("gave up: {gave_up}");
    println!("by what the winner has:");
    let classes = [
        "a bare king",
        "a lone bishop or knight",
        "other minor pieces only",
        "minor pieces and pawns",
        "a queen or a rook",
    ];
    for class in classes {
        let in_class = searches.iter().filter(|search| search.winner_class == class);
        let (count, nanos) = in_class.fold((0, 0), |(count, nanos), search| (count + 1, nanos + search.nanos));
        println!("  {class:<26} {count:>4} searches, {:5.1} % of the time", share(nanos, total));
    }
}
