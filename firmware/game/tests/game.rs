//! The reference firmware's game logic on the host: commands, presses,
//! flags and the rule defects, record by record (the same code runs in the
//! firmware images and in the HIL harness's fake firmware).

use bench_contract::{AckStatus, Body, Button, CommandCode, PressResult};
use bench_firmware_game::{Defects, Edge, Game, Outputs};
use chessclock::{notation, Instant};

/// Everything the game sent, in order.
#[derive(Default)]
struct Recorded {
    records: Vec<(u64, Body)>,
    armed: Vec<bool>,
}

impl Outputs for Recorded {
    fn emit(&mut self, at_us: u64, body: Body) {
        self.records.push((at_us, body));
    }

    fn arm_buttons(&mut self, armed: bool) {
        self.armed.push(armed);
    }
}

fn at_ms(ms: u64) -> Instant {
    Instant::from_us(ms * 1_000)
}

fn command(game: &mut Game, out: &mut Recorded, line: &str, now: Instant) {
    game.command(Ok(line.as_bytes()), now, out);
}

fn acks(out: &Recorded) -> Vec<(CommandCode, AckStatus, u16)> {
    out.records
        .iter()
        .filter_map(|(_, body)| match body {
            Body::Ack(ack) => Some((ack.command, ack.status, ack.error_position)),
            _ => None,
        })
        .collect()
}

fn edge(button: Button, at: Instant) -> Edge {
    Edge { button, at, hw_counter: 0, bounces: 0 }
}

/// A game of `control` started at 0.
fn started(control: &str, defects: Defects) -> (Game, Recorded) {
    let mut game = Game::new(defects);
    let mut out = Recorded::default();
    command(&mut game, &mut out, &format!("tc {control}"), Instant::EPOCH);
    command(&mut game, &mut out, "start", Instant::EPOCH);
    out.records.clear();
    (game, out)
}

#[test]
fn a_bad_time_control_is_refused_at_the_parser_s_position_and_changes_nothing() {
    let mut game = Game::new(Defects::default());
    let mut out = Recorded::default();
    command(&mut game, &mut out, "tc 40/5400+30:x", Instant::EPOCH);
    let position = notation::parse("40/5400+30:x").expect_err("a bad control").position;
    assert_eq!(acks(&out), [(CommandCode::TimeControl, AckStatus::BadTimeControl, position as u16)]);
    assert!(!game.has_game());
    command(&mut game, &mut out, "start", Instant::EPOCH);
    assert_eq!(acks(&out).last(), Some(&(CommandCode::Start, AckStatus::NotAllowed, 0)), "no game to start");
}

/// 6.5: presses count from the start of the game; a new time control
/// disarms the buttons until the next start.
#[test]
fn buttons_are_armed_from_the_start_until_the_next_set_up() {
    let mut game = Game::new(Defects::default());
    let mut out = Recorded::default();
    command(&mut game, &mut out, "tc 300+2", Instant::EPOCH);
    command(&mut game, &mut out, "start", at_ms(10));
    command(&mut game, &mut out, "reset", at_ms(20));
    assert_eq!(out.armed, [false, true, false]);
    assert!(acks(&out).iter().all(|(_, status, _)| *status == AckStatus::Ok), "{:?}", acks(&out));
}

#[test]
fn a_press_before_the_start_makes_no_record() {
    let mut game = Game::new(Defects::default());
    let mut out = Recorded::default();
    command(&mut game, &mut out, "tc 300+2", Instant::EPOCH);
    command(&mut game, &mut out, "start", at_ms(1_000));
    out.records.clear();
    game.press(edge(Button::White, at_ms(500)), at_ms(1_001), &mut out);
    assert!(out.records.is_empty(), "{:?}", out.records);
}

/// 6.8a: the move is complete at the press, stamped at its edge, not when
/// the main loop got to it; 6.2b: the increment is added.
#[test]
fn a_press_is_charged_to_its_edge_and_earns_the_increment() {
    let (mut game, mut out) = started("60+2", Defects::default());
    game.press(edge(Button::White, at_ms(3_000)), Instant::from_us(3_000_250), &mut out);
    let (at_us, press) = out
        .records
        .iter()
        .find_map(|(at_us, body)| match body {
            Body::Press(press) => Some((*at_us, *press)),
            _ => None,
        })
        .expect("a Press record");
    assert_eq!(at_us, 3_000_000);
    assert_eq!(press.result, PressResult::Accepted);
    assert_eq!(press.moves, 1);
    assert_eq!(press.remaining_us, (60_000 - 3_000 + 2_000) * 1_000);
    assert_eq!(press.handled_at_us, 3_000_250);
    // Black's clock runs now: White pressing again is refused (6.8a).
    out.records.clear();
    game.press(edge(Button::White, at_ms(3_100)), at_ms(3_100), &mut out);
    assert!(out
        .records
        .iter()
        .any(|(_, body)| matches!(body, Body::Press(press) if press.result == PressResult::NotRunning)));
}

/// 6.1 / 6.3: the flag is reported at the instant it fell, even when the
/// main loop looks later.
#[test]
fn a_flag_is_reported_at_its_own_instant() {
    let (mut game, mut out) = started("5", Defects::default());
    game.advance(at_ms(7_300), &mut out);
    let flags: Vec<(u64, bench_contract::Flag)> = out
        .records
        .iter()
        .filter_map(|(at_us, body)| match body {
            Body::Flag(flag) => Some((*at_us, *flag)),
            _ => None,
        })
        .collect();
    assert_eq!(flags.len(), 1, "{:?}", out.records);
    let (at_us, flag) = flags[0];
    assert_eq!(at_us, 5_000_000);
    assert_eq!(flag.side, bench_contract::Side::White);
    assert_eq!(flag.sequence, 1);
    assert_eq!(flag.moves, 0);
}

/// The Period records' causes (contract, kind 4): "moves completed" only
/// for the side that pressed; a display started with no main time left
/// enters overtime at once, at the start or at the opponent's press.
#[test]
fn a_display_started_with_no_main_time_begins_overtime_not_a_completed_stage() {
    let (mut game, mut out) = started("0(2x5)", Defects::default());
    game.advance(at_ms(300), &mut out);
    game.press(edge(Button::White, at_ms(300)), at_ms(300), &mut out);
    let periods: Vec<(u64, bench_contract::PeriodChange)> = out
        .records
        .iter()
        .filter_map(|(at_us, body)| match body {
            Body::Period(change) => Some((*at_us, *change)),
            _ => None,
        })
        .collect();
    let black = periods.iter().find(|(_, change)| change.side == bench_contract::Side::Black);
    let Some(&(at_us, change)) = black else { panic!("no Period record for Black: {:?}", out.records) };
    assert_eq!(at_us, 300_000);
    assert_eq!((change.from, change.to), (0, 1));
    assert_eq!(change.cause, bench_contract::PeriodCause::OvertimeBegins);
    assert_eq!(change.moves, 0);
}

fn last_snapshot(out: &Recorded) -> bench_contract::Snapshot {
    out.records
        .iter()
        .rev()
        .find_map(|(_, body)| match body {
            Body::Snapshot(snapshot) => Some(*snapshot),
            _ => None,
        })
        .expect("a Snapshot after every command")
}

/// Contract 3: the arbiter's commands act on the side they name, their Ack
/// names it, and the Snapshot that follows shows the result (6.11, 6.14,
/// 6.8d, 13.4).
#[test]
fn the_arbiter_sets_adjusts_and_counts_through_commands() {
    let (mut game, mut out) = started("300+2", Defects::default());
    command(&mut game, &mut out, "set b 100000000", at_ms(1_000));
    command(&mut game, &mut out, "adjust w -60000000", at_ms(2_000));
    command(&mut game, &mut out, "moves b 7", at_ms(3_000));
    let acks: Vec<_> = out
        .records
        .iter()
        .filter_map(|(at_us, body)| match body {
            Body::Ack(ack) => Some((*at_us, ack.command, ack.status, ack.side)),
            _ => None,
        })
        .collect();
    use bench_contract::Side as ContractSide;
    assert_eq!(
        acks,
        [
            (1_000_000, CommandCode::SetTime, AckStatus::Ok, Some(ContractSide::Black)),
            (2_000_000, CommandCode::AdjustTime, AckStatus::Ok, Some(ContractSide::White)),
            (3_000_000, CommandCode::SetMoves, AckStatus::Ok, Some(ContractSide::Black)),
        ]
    );
    let snapshot = last_snapshot(&out);
    // White's clock ran 3 s and lost 60 s; Black's was set to 100 s and waits.
    assert_eq!(snapshot.remaining_white_us, (300_000 - 3_000 - 60_000) * 1_000);
    assert_eq!(snapshot.remaining_black_us, 100_000_000);
    assert_eq!((snapshot.moves_white, snapshot.moves_black), (0, 7));
}

/// 6.14: a display the arbiter sets above zero no longer shows its flag;
/// a time the clock cannot show is the argument's fault.
#[test]
fn the_arbiter_clears_a_flag_by_setting_time_and_bad_arguments_are_named() {
    let (mut game, mut out) = started("1", Defects::default());
    game.advance(at_ms(1_500), &mut out);
    assert!(last_snapshot(&out).flag_white, "White's flag fell at 1 s");
    command(&mut game, &mut out, "set w 5000000", at_ms(2_000));
    let snapshot = last_snapshot(&out);
    assert!(!snapshot.flag_white);
    assert_eq!(snapshot.remaining_white_us, 5_000_000);
    out.records.clear();
    command(&mut game, &mut out, "set w 99999999999999999", at_ms(2_100));
    command(&mut game, &mut out, "adjust q +1", at_ms(2_200));
    assert_eq!(
        acks(&out),
        [(CommandCode::SetTime, AckStatus::BadArgument, 0), (CommandCode::AdjustTime, AckStatus::BadArgument, 0)]
    );
}

/// 6.3 / 6.12: a flag, once fallen, stays on the display as evidence. In a
/// game of stages the first stage's flag opens the next (6.2b) and the
/// game goes on; the deadlines after it (here the next stage's delay
/// running out, 6.2b time-delay mode) must not clear it. Played with every
/// defect off, as the normal image runs.
#[test]
fn a_first_stage_flag_stays_shown_through_a_later_delay_deadline() {
    let (mut game, mut out) = started("2/1:10+d1", Defects::default());
    game.advance(at_ms(1_500), &mut out);
    assert!(last_snapshot(&out).flag_white, "White's first-stage flag fell at 1 s: {:?}", out.records);
    game.press(edge(Button::White, at_ms(2_000)), at_ms(2_000), &mut out);
    game.press(edge(Button::Black, at_ms(2_500)), at_ms(2_500), &mut out);
    // White's move from 2.5 s: the delay of 1 s runs out at 3.5 s.
    game.advance(at_ms(4_000), &mut out);
    game.snapshot(at_ms(4_000), &mut out);
    let snapshot = last_snapshot(&out);
    assert!(snapshot.flag_white, "the first-stage flag is still shown after the delay ran out: {:?}", out.records);
    assert!(!snapshot.flag_black, "Black moved within its first stage");
}

/// The rule defects' own hooks: compiled only with `defect-hooks`.
#[cfg(feature = "defect-hooks")]
mod hooks {
    use super::*;
    use chessclock::{Bonus, Deadline, DeadlineKind, Duration, Side, StageLength, TimeControl};

    #[test]
    fn the_stage_defects_change_the_control_the_firmware_runs() {
        let told = notation::parse("40/5400+30:1800+d30").expect("parses");
        let TimeControl::Stages(as_run) =
            Defects { late_stage_switch: true, ..Defects::default() }.control_as_run(told)
        else {
            panic!("stages stay stages")
        };
        assert_eq!(as_run.as_slice()[0].length, StageLength::Moves(41), "one move late");
        let TimeControl::Stages(as_run) =
            Defects { delay_as_bronstein: true, ..Defects::default() }.control_as_run(told)
        else {
            panic!("stages stay stages")
        };
        assert_eq!(as_run.as_slice()[1].bonus, Bonus::Bronstein(Duration::from_millis(30_000)));
        assert_eq!(Defects::default().control_as_run(told), told, "no defect, the control as told");
    }

    #[test]
    fn the_rounded_display_flags_less_than_half_a_second_early() {
        let flag = |at_ms_from_now: u64| Deadline {
            at: at_ms(10_000 + at_ms_from_now),
            side: Side::White,
            kind: DeadlineKind::Flag { period: 0 },
        };
        let now = at_ms(10_000);
        let rounding = Defects { display_rounding_flag: true, ..Defects::default() };
        assert!(rounding.flags_on_rounded_display(&flag(499), now));
        assert!(!rounding.flags_on_rounded_display(&flag(500), now));
        assert!(!Defects::default().flags_on_rounded_display(&flag(0), now));
    }
}
