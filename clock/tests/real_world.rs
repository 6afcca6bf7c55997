//! Real-world time controls played end to end. Every expected number is
//! worked out by hand in the comment above its assertion.

mod support;

use chessclock::{Bonus, Clock, Duration, Instant, Stage, TimeControl};
use support::{secs, Side, Side::Black, Side::White};

/// A game in progress: the clock plus the current instant.
struct Game {
    clock: Clock,
    now: Instant,
}

impl Game {
    fn start(control: TimeControl) -> Game {
        Game { clock: support::started(control), now: Instant::EPOCH }
    }

    /// `side` thinks for `think`, then presses.
    fn moves(&mut self, side: Side, think: Duration) {
        self.now = self.now.after(think);
        self.clock.press(side, self.now).expect("the side to move presses");
    }

    /// `rounds` full moves: White thinks `white`, Black thinks `black`.
    fn rounds(&mut self, rounds: u32, white: Duration, black: Duration) {
        for _ in 0..rounds {
            self.moves(White, white);
            self.moves(Black, black);
        }
    }

    fn remaining(&self, side: Side) -> Duration {
        self.clock.remaining(side, self.now).unwrap()
    }
}

#[test]
fn fide_classical_40_in_90_then_30_with_30s_increment() {
    let control = TimeControl::stages(&[
        Stage::moves(40, chessclock::Duration::from_mins(90), Bonus::Increment(secs(30))),
        Stage::rest_of_game(chessclock::Duration::from_mins(30), Bonus::Increment(secs(30))),
    ])
    .unwrap();
    let mut game = Game::start(control);
    game.rounds(40, secs(120), secs(135));
    // White: 5400 - 40*120 + 40*30 + 1800 = 3600 s. Black: 5400 - 40*135 + 1200 + 1800 = 3000 s.
    assert_eq!(game.remaining(White), secs(3600));
    assert_eq!(game.remaining(Black), secs(3000));
    assert_eq!((game.clock.period(White), game.clock.period(Black)), (1, 1));
    // White now sinks into thought: the flag falls after 3600 s, in the final stage.
    let flag_at = game.now.after(secs(3600));
    game.clock.settle(flag_at).unwrap();
    let flag = game.clock.flag(White).unwrap();
    assert_eq!((flag.at, flag.period), (flag_at, 1));
    assert!(game.clock.control().is_final_period(flag.period));
}

#[test]
fn rapid_15_minutes_plus_10_seconds() {
    let mut game = Game::start(
        TimeControl::sudden_death(chessclock::Duration::from_mins(15), Bonus::Increment(secs(10))).unwrap(),
    );
    game.rounds(30, secs(35), secs(20));
    // White: 900 - 30*35 + 30*10 = 150 s. Black: 900 - 30*20 + 300 = 600 s.
    assert_eq!(game.remaining(White), secs(150));
    assert_eq!(game.remaining(Black), secs(600));
}

#[test]
fn blitz_3_minutes_plus_2_seconds_flag() {
    let mut game =
        Game::start(TimeControl::sudden_death(chessclock::Duration::from_mins(3), Bonus::Increment(secs(2))).unwrap());
    game.rounds(22, secs(5), secs(10));
    // Black: 180 - 22*(10 - 2) = 4 s; White: 180 - 22*(5 - 2) = 114 s.
    assert_eq!(game.remaining(Black), secs(4));
    game.moves(White, secs(5));
    // White 114 - 5 + 2 = 111 s; Black's 23rd move starts at 22*15 + 5 = 335 s and his flag falls 4 s later.
    assert_eq!(game.remaining(White), secs(111));
    let deadline = game.clock.next_deadline().unwrap();
    assert_eq!(deadline.at, support::at_s(339));
    game.clock.settle(support::at_s(400)).unwrap();
    assert_eq!(game.clock.flag(Black).map(|flag| flag.at), Some(support::at_s(339)));
    assert_eq!(game.clock.flag(White), None);
}

#[test]
fn us_game_in_90_with_5_second_delay() {
    let mut game =
        Game::start(TimeControl::sudden_death(chessclock::Duration::from_mins(90), Bonus::Delay(secs(5))).unwrap());
    game.rounds(40, secs(3), secs(8));
    // White always within the delay: 5400 s. Black is charged 8 - 5 = 3 s a move: 5400 - 120 = 5280 s.
    assert_eq!(game.remaining(White), secs(5400));
    assert_eq!(game.remaining(Black), secs(5280));
    assert_eq!(game.clock.ledger(White).delay_used, secs(120));
}

#[test]
fn bronstein_5_seconds() {
    let mut game = Game::start(TimeControl::sudden_death(secs(300), Bonus::Bronstein(secs(5))).unwrap());
    game.rounds(20, secs(3), secs(7));
    // White gets all 3 s back; Black gets 5 of 7 back: 300 - 20*2 = 260 s.
    assert_eq!(game.remaining(White), secs(300));
    assert_eq!(game.remaining(Black), secs(260));
}

#[test]
fn hourglass_3_minutes() {
    let mut game = Game::start(TimeControl::hourglass(chessclock::Duration::from_mins(3)).unwrap());
    game.rounds(10, secs(4), secs(6));
    // Each round White loses 4 and gains 6: White 200 s, Black 160 s; the sum stays 360 s.
    assert_eq!(game.remaining(White), secs(200));
    assert_eq!(game.remaining(Black), secs(160));
    game.moves(White, secs(0));
    game.clock.settle(game.now.after(secs(170))).unwrap();
    assert_eq!(game.clock.flag(Black).map(|flag| flag.at), Some(game.now.after(secs(160))));
    assert_eq!(game.clock.remaining(White, game.now.after(secs(170))).unwrap(), secs(360));
}

#[test]
fn byo_yomi_60_minutes_plus_5_periods_of_30_seconds() {
    let control = TimeControl::byo_yomi(chessclock::Duration::from_mins(60), 5, secs(30)).unwrap();
    let mut game = Game::start(control);
    // 3610 s: main time gone at 3600, 10 s into period 1; the move keeps the period.
    game.moves(White, secs(3610));
    let reading = game.clock.reading(White, game.now).unwrap();
    assert_eq!((reading.main, reading.period, reading.period_left, reading.periods_left), (secs(0), 1, secs(30), 5));
    game.moves(Black, secs(1));
    // 45 s: period 1 lost after 30 s, 15 s into period 2.
    game.moves(White, secs(45));
    let reading = game.clock.reading(White, game.now).unwrap();
    assert_eq!((reading.period, reading.period_left, reading.periods_left), (2, secs(30), 4));
    game.moves(Black, secs(1));
    // Four periods left of 30 s: the flag falls 120 s into the move, in period 5.
    game.clock.settle(game.now.after(secs(200))).unwrap();
    let flag = game.clock.flag(White).unwrap();
    assert_eq!((flag.at, flag.period), (game.now.after(secs(120)), 5));
    assert_eq!(game.clock.flag(Black), None);
}

#[test]
fn canadian_20_moves_in_5_minutes() {
    let control =
        TimeControl::canadian(chessclock::Duration::from_mins(10), 20, chessclock::Duration::from_mins(5)).unwrap();
    let mut game = Game::start(control);
    // Main time ends 600 s into the first move; 1 s of overtime is used.
    game.moves(White, secs(601));
    let reading = game.clock.reading(White, game.now).unwrap();
    assert_eq!((reading.period, reading.period_left, reading.period_moves_left), (1, secs(299), 19));
    // 19 more moves at 10 s: the 20th resets the period to 300 s.
    for _ in 0..19 {
        game.moves(Black, secs(1));
        game.moves(White, secs(10));
    }
    let reading = game.clock.reading(White, game.now).unwrap();
    assert_eq!((reading.period_left, reading.period_moves_left), (secs(300), 20));
    // 18 moves at 16 s use 288 s; the 19th move runs out of the 12 s left.
    for _ in 0..18 {
        game.moves(Black, secs(1));
        game.moves(White, secs(16));
    }
    game.moves(Black, secs(1));
    game.clock.settle(game.now.after(secs(20))).unwrap();
    let flag = game.clock.flag(White).unwrap();
    assert_eq!((flag.at, flag.period), (game.now.after(secs(12)), 1));
}
