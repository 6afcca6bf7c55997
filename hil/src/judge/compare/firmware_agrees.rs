//! The reference firmware's game logic (`bench-firmware-game`, what
//! `firmware/` runs) against the clock model, on any time control the
//! notation can write and any press schedule: short stages with every
//! bonus, hourglass, byo-yomi and Canadian overtime, presses from a
//! millisecond to seconds apart, presses out of turn, pauses. The
//! comparison must find nothing. The firmware's own tests pick their cases;
//! this one lets proptest pick them, so a rule the firmware gets wrong only
//! at some edge (a delay ending on a tick, a flag between two presses, a
//! period's last move) shows up as a mismatch with its minimal case.

use bench_contract::Button;
use proptest::prelude::*;

use super::compare;
use crate::generated_controls::control;
use crate::testing::firmware::{Defects, FakeFirmware, TICK_US};

/// One thing a player does, `gap_ms` after the previous one.
#[derive(Clone, Copy, Debug)]
enum Act {
    /// The player to move presses.
    Move,
    /// The player not to move presses (the clock refuses it, 6.8a).
    OutOfTurn,
    /// The pause button (the arbiter stops or restarts the clocks, 6.13).
    Pause,
    /// The harness's `pause` or `resume` command (refused when it does not apply).
    Command(&'static str),
    /// `reset`, then `start` a millisecond later: a new game; the records
    /// before it belong to the old one.
    Restart,
}

fn acts() -> impl Strategy<Value = Vec<(Act, u64)>> {
    let act = prop_oneof![
        16 => Just(Act::Move),
        2 => Just(Act::OutOfTurn),
        2 => Just(Act::Pause),
        1 => Just(Act::Command("pause")),
        1 => Just(Act::Command("resume")),
        1 => Just(Act::Restart),
    ];
    prop::collection::vec((act, 1..4_000u64), 0..24)
}

proptest! {
    // 256 cases unless PROPTEST_CASES says otherwise (proptest reads it).
    // About one control in forty is too long for a `tc` line and skipped:
    // the rejects allowed grow with a long hunt's cases.
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        max_global_rejects: u32::MAX,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_reference_firmware_agrees_with_the_model(control in control(1), acts in acts()) {
        // The harness refuses a longer `tc` line before it runs anything.
        prop_assume!(format!("tc {control}").len() <= bench_contract::COMMAND_LINE_MAX);
        // The fake firmware's own script (`testing::firmware::play`), with
        // commands between the presses: boot, set up, start at 1 s, then a
        // main-loop turn every millisecond and after each press or command.
        let mut firmware = FakeFirmware::new(Defects::default());
        firmware.boot(6);
        firmware.command(&format!("tc {control}"), 600_000);
        let start_us = 1_000_000;
        firmware.command("start", start_us);
        // The main loop turns again within the same tick as a command.
        firmware.advance(start_us);
        let mut now_us = start_us;
        let mut to_move = Button::White;
        for (act, gap_ms) in acts {
            let at_us = now_us + gap_ms * 1_000;
            while now_us < at_us {
                now_us += 1_000;
                firmware.advance(now_us);
            }
            let other = if to_move == Button::White { Button::Black } else { Button::White };
            match act {
                Act::Move => {
                    firmware.press(to_move, at_us, at_us + 7);
                    to_move = other;
                }
                Act::OutOfTurn => firmware.press(other, at_us, at_us + 7),
                Act::Pause => firmware.press(Button::Pause, at_us, at_us + 7),
                Act::Command(line) => firmware.command(line, at_us),
                Act::Restart => {
                    firmware.command("reset", at_us);
                    firmware.advance(at_us);
                    now_us = at_us + 1_000;
                    firmware.command("start", now_us);
                    to_move = Button::White;
                }
            }
            firmware.advance(now_us);
        }
        for _ in 0..12_000 {
            now_us += 1_000;
            firmware.advance(now_us);
        }
        let records = firmware.out;
        let comparison = compare(&control, u64::from(TICK_US), &records);
        prop_assert!(comparison.is_ok(), "{comparison:?}");
        if let Ok(comparison) = comparison {
            prop_assert!(
                comparison.passed(),
                "{control}: {} mismatches, first: {:#?}",
                comparison.mismatch_count,
                comparison.mismatches.first()
            );
        }
    }
}
