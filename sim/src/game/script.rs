//! The script of a game: what its players and arbiter chose, as values
//! instead of draws, so a game can be played again from it and cut down.
//!
//! ```text
//!   recorded game ──▶ Script { moves: [instant, arbiter acts after it] } ──▶ replayed game
//! ```
//!
//! The players' free choice is when the player to move completes a move
//! (the end of their thinking); the arbiter's is which act follows a press,
//! and when: a pause (6.13), an adjustment, the counters set or a position
//! restored (6.14), the clock replaced (6.11). A replayed game takes both
//! from the script and draws neither. Everything else plays as in any game
//! of its (scenario, seed, game): the board's moves, the arbiter's flag
//! notices and rulings, the players noticing a wrong clock, and in `bench
//! sim` the device's defects, which stand for the firmware under test.
//!
//! A script's moves are instants, not sides: the n-th scripted move is made
//! by whoever is to move when it comes. So leaving a move out merges two
//! thinks, and the game stays a game (the players still alternate). An
//! arbiter act belongs to the move it followed and goes with it. A game
//! whose script runs out waits for its clocks: the player to move never
//! moves again.

use core::ops::Range;

use chessclock::{Side, TimeAdjustment};

use crate::defects::Defect;

/// One act of the arbiter after a press, at its instant (true µs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptedAct {
    pub at_us: u64,
    pub act: Act,
}

/// What the arbiter does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// Stops both clocks for this long (6.13).
    Pause { pause_us: u64 },
    /// Adds time to or removes it from a side (6.14, 13.4).
    Adjust { side: Side, adjustment: TimeAdjustment },
    /// Sets the move counters to the moves on the board (6.14).
    SetMoves,
    /// Restores the position of one move of each side earlier (6.14).
    Restore,
    /// Replaces the clock with one set to his best judgement (6.11).
    Replace,
}

/// What the device's defects did at one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// On press `press` of the move: 0 is the move's own, n the n-th press
    /// after it that puts a wrong clock right.
    Press { press: u32, fault: PressFault },
    /// After the move's press the device browns out `after_us` later, and
    /// is down for `down_us`.
    Brownout { after_us: u64, down_us: u64 },
    /// After the move's press the display freezes for `freeze_us`.
    Freeze { freeze_us: u64 },
}

/// What the device's input defects did to one press.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PressFault {
    /// The device never saw it.
    Missed,
    /// The button sticks for this long.
    Stuck { stuck_us: u64 },
    /// The edge reaches the device this late.
    Jitter { jitter_us: u64 },
    /// A bounce edge this long after the press's.
    Bounce { bounce_us: u64 },
    /// A second press this long after the first.
    Double { gap_us: u64 },
}

impl Fault {
    /// The defect that struck.
    pub fn defect(self) -> Defect {
        match self {
            Fault::Press { fault: PressFault::Missed, .. } => Defect::MissedPress,
            Fault::Press { fault: PressFault::Stuck { .. }, .. } => Defect::StuckButton,
            Fault::Press { fault: PressFault::Jitter { .. }, .. } => Defect::Jitter,
            Fault::Press { fault: PressFault::Bounce { .. }, .. } => Defect::Bounce,
            Fault::Press { fault: PressFault::Double { .. }, .. } => Defect::DoublePress,
            Fault::Brownout { .. } => Defect::Brownout,
            Fault::Freeze { .. } => Defect::DisplayFreeze,
        }
    }
}

/// One move: the instant the player to move completes it (true µs after
/// the start), the arbiter's acts that follow its press, the device's
/// faults at it, and how the emulated board's harness presses the button.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScriptedMove {
    pub at_us: u64,
    pub arbiter: Vec<ScriptedAct>,
    pub faults: Vec<Fault>,
    /// `None`: drawn from (seed, game) as `bench hil` draws every press.
    pub press: Option<ScriptedPress>,
}

/// The most extra closing edges a press's contact bounce makes.
pub const BOUNCE_EDGES_MAX: usize = 3;

/// How `bench hil` presses a move's button: how long it is held, and its
/// contact bounce (how long the contact opens before each extra closing
/// edge, 1 to [`BOUNCE_EDGES_MAX`] of them, or none). The simulator's
/// device has its own bounce (a [`Fault`]) and does not use it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScriptedPress {
    pub hold_us: u64,
    pub bounce_open_ms: Vec<u8>,
}

/// A game's moves in order (instants never go back).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    pub moves: Vec<ScriptedMove>,
}

impl Script {
    /// Moves, arbiter acts and device faults: what a shrunk game is
    /// measured by.
    pub fn len(&self) -> usize {
        self.moves.iter().map(|scripted| 1 + scripted.arbiter.len() + scripted.faults.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The script's elements as a flat list, for delta debugging.
    pub fn elements(&self) -> Vec<Element> {
        let mut elements = Vec::with_capacity(self.len());
        for (move_index, scripted) in self.moves.iter().enumerate() {
            let element = |part| Element { move_index, part };
            elements.push(element(Part::Move));
            elements.extend((0..scripted.arbiter.len()).map(|act| element(Part::Act(act))));
            elements.extend((0..scripted.faults.len()).map(|fault| element(Part::Fault(fault))));
        }
        elements
    }

    /// The script without the device's faults: the players' and arbiter's
    /// choices alone, for a device of its own (a firmware under test).
    pub fn without_faults(&self) -> Script {
        let moves = self.moves.iter().map(|scripted| ScriptedMove { faults: Vec::new(), ..scripted.clone() }).collect();
        Script { moves }
    }

    /// The script with move `from` and everything after it `earlier_us`
    /// earlier (its acts too): one think shorter, the others as they were.
    pub fn earlier_from(&self, from: usize, earlier_us: u64) -> Script {
        let mut script = self.clone();
        script.shift_from(from, earlier_us);
        script
    }

    fn shift_from(&mut self, from: usize, earlier_us: u64) {
        for scripted in self.moves.iter_mut().skip(from) {
            scripted.at_us = scripted.at_us.saturating_sub(earlier_us);
            for act in &mut scripted.arbiter {
                act.at_us = act.at_us.saturating_sub(earlier_us);
            }
        }
    }

    /// When the think of move `index` began: the previous move's instant,
    /// or the end of the arbiter's pause after it (players wait for the
    /// clocks to run again).
    pub fn think_start_us(&self, index: usize) -> u64 {
        let Some(previous) = index.checked_sub(1).and_then(|previous| self.moves.get(previous)) else {
            return 0;
        };
        let act_end_us = |scripted: &ScriptedAct| match scripted.act {
            Act::Pause { pause_us } => scripted.at_us.saturating_add(pause_us),
            _ => scripted.at_us,
        };
        previous.arbiter.iter().map(act_end_us).fold(previous.at_us, u64::max)
    }

    /// The script with the thinks of `moves` at most `think_us`, everything
    /// after each shorter think earlier by as much (a move's acts go with
    /// it): those moves made by a hurried player.
    pub fn hurried(&self, moves: Range<usize>, think_us: u64) -> Script {
        let mut script = self.clone();
        for index in moves.start..moves.end.min(script.moves.len()) {
            let start_us = script.think_start_us(index);
            let at_us = script.moves.get(index).map_or(0, |scripted| scripted.at_us);
            let longer_us = at_us.saturating_sub(start_us.saturating_add(think_us));
            if longer_us > 0 {
                script.shift_from(index, longer_us);
            }
        }
        script
    }

    /// The script with the presses of `moves` without contact bounce.
    pub fn without_bounce(&self, moves: Range<usize>) -> Script {
        let mut script = self.clone();
        for scripted in script.moves.iter_mut().take(moves.end).skip(moves.start) {
            if let Some(press) = &mut scripted.press {
                press.bounce_open_ms.clear();
            }
        }
        script
    }

    /// The script with the presses of `moves` held as briefly as the
    /// briefest press of the script.
    pub fn briefest_holds(&self, moves: Range<usize>) -> Script {
        let briefest_us =
            self.moves.iter().filter_map(|scripted| scripted.press.as_ref()).map(|press| press.hold_us).min();
        let mut script = self.clone();
        for scripted in script.moves.iter_mut().take(moves.end).skip(moves.start) {
            if let (Some(press), Some(hold_us)) = (&mut scripted.press, briefest_us) {
                press.hold_us = hold_us;
            }
        }
        script
    }

    /// The script with only `kept` of its elements: an act or a fault is
    /// kept only with its move.
    pub fn keeping(&self, kept: &[Element]) -> Script {
        let moves = self
            .moves
            .iter()
            .enumerate()
            .filter(|(move_index, _)| kept.contains(&Element { move_index: *move_index, part: Part::Move }))
            .map(|(move_index, scripted)| {
                let keeps = |part| kept.contains(&Element { move_index, part });
                ScriptedMove {
                    at_us: scripted.at_us,
                    press: scripted.press.clone(),
                    arbiter: (scripted.arbiter.iter().enumerate())
                        .filter(|(act, _)| keeps(Part::Act(*act)))
                        .map(|(_, act)| *act)
                        .collect(),
                    faults: (scripted.faults.iter().enumerate())
                        .filter(|(fault, _)| keeps(Part::Fault(*fault)))
                        .map(|(_, fault)| *fault)
                        .collect(),
                }
            })
            .collect();
        Script { moves }
    }
}

/// One element of a script: a move, or one of its acts or faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Element {
    pub move_index: usize,
    pub part: Part,
}

/// Which part of a move an [`Element`] is (indices into its lists).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    Move,
    Act(usize),
    Fault(usize),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script() -> Script {
        let act = |at_us| ScriptedAct { at_us, act: Act::SetMoves };
        let missed = Fault::Press { press: 0, fault: PressFault::Missed };
        Script {
            moves: vec![
                ScriptedMove { at_us: 1, arbiter: vec![act(2), act(3)], faults: vec![missed], press: None },
                ScriptedMove { at_us: 5, ..ScriptedMove::default() },
                ScriptedMove {
                    at_us: 9,
                    arbiter: vec![act(10)],
                    faults: vec![Fault::Freeze { freeze_us: 4 }],
                    press: None,
                },
            ],
        }
    }

    #[test]
    fn a_script_keeps_the_elements_asked_for_and_acts_and_faults_only_with_their_move() {
        let script = script();
        let elements = script.elements();
        assert_eq!(elements.len(), script.len());
        assert_eq!(elements.len(), 8);
        assert_eq!(script.keeping(&elements), script, "every element: the same script");
        // Move 0's second act and its fault, and move 2 with its act, left out.
        let kept: Vec<Element> = elements
            .iter()
            .copied()
            .filter(|element| !matches!(element.part, Part::Act(1) | Part::Fault(_)) && element.move_index != 2)
            .collect();
        let cut = script.keeping(&kept);
        assert_eq!(cut.moves.len(), 2);
        assert_eq!(cut.moves[0].arbiter, vec![ScriptedAct { at_us: 2, act: Act::SetMoves }]);
        assert!(cut.moves[0].faults.is_empty());
        // An act or fault without its move goes too.
        let orphans = [
            Element { move_index: 0, part: Part::Act(0) },
            Element { move_index: 0, part: Part::Fault(0) },
            Element { move_index: 1, part: Part::Move },
        ];
        assert_eq!(script.keeping(&orphans).moves, vec![ScriptedMove { at_us: 5, ..ScriptedMove::default() }]);
    }

    #[test]
    fn hurried_moves_think_from_the_end_of_a_pause_and_take_their_acts_along() {
        let pause = |at_us, pause_us| ScriptedAct { at_us, act: Act::Pause { pause_us } };
        let at = |at_us, arbiter| ScriptedMove { at_us, arbiter, ..ScriptedMove::default() };
        // Thinks: 1 000, then 3 000 after a pause ending at 2 000, then 6 000.
        let script = Script { moves: vec![at(1_000, vec![pause(1_001, 999)]), at(5_000, vec![]), at(11_000, vec![])] };
        assert_eq!(script.think_start_us(0), 0);
        assert_eq!(script.think_start_us(1), 2_000);
        assert_eq!(script.think_start_us(2), 5_000);

        let all = script.hurried(0..3, 500);
        assert_eq!(all, Script { moves: vec![at(500, vec![pause(501, 999)]), at(2_000, vec![]), at(2_500, vec![])] });
        let middle = script.hurried(1..2, 500);
        assert_eq!(middle, Script { moves: vec![script.moves[0].clone(), at(2_500, vec![]), at(8_500, vec![])] });
        assert_eq!(script.hurried(0..3, 6_000), script, "no think is longer: nothing changes");
        assert_eq!(script.hurried(2..9, 500).moves[2].at_us, 5_500, "a range past the end stops at it");
    }
}
