//! Shrinking a failing game: switch off every defect the failure does not
//! need, then cut the game to the fewest moves that still fail, and repeat
//! both until neither changes anything. The result is minimal: switching
//! off one more defect, or one move fewer per player, and the game passes.
//!
//! A shrunk game is replayed with the same seed and game index plus the
//! switches found here (`--disable`, `--max-moves`), so its trace is the
//! minimal press/defect sequence that shows the failure.

use crate::defects::{Defect, DefectSet};
use crate::game::{self, GameRecord, GameSpec};
use crate::run::failure_reasons;
use crate::scenario::Scenario;

/// The smallest failing game found.
#[derive(Clone, Debug)]
pub struct Shrunk {
    pub disabled: DefectSet,
    /// The move bound that still fails (moves per player).
    pub max_moves: u32,
    pub reasons: Vec<String>,
    /// The shrunk game, with its trace.
    pub record: GameRecord,
    /// Games played while shrinking.
    pub attempts: u32,
}

/// What to shrink: one game of a scenario.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    pub scenario: &'a Scenario,
    pub seed: u64,
    pub game: u64,
    pub swarm: bool,
    pub model_oracle: bool,
}

/// Plays the target with `disabled` switched off and at most `max_moves`.
pub fn play_variant(target: Target<'_>, disabled: DefectSet, max_moves: u32, trace: bool) -> GameRecord {
    let mut scenario = target.scenario.clone();
    scenario.board.max_moves = max_moves.max(1);
    game::play(GameSpec {
        scenario: &scenario,
        seed: target.seed,
        game: target.game,
        swarm: target.swarm,
        trace,
        model_oracle: target.model_oracle,
        disabled,
        record_inputs: false,
    })
}

/// Shrinks a failing game; `None` when the game does not fail.
pub fn shrink(target: Target<'_>) -> Option<Shrunk> {
    let mut attempts = 0u32;
    let mut fails = |disabled: DefectSet, max_moves: u32| {
        attempts += 1;
        let record = play_variant(target, disabled, max_moves, false);
        !failure_reasons(target.scenario, &record).is_empty()
    };
    let mut max_moves = target.scenario.board.max_moves;
    if !fails(DefectSet::NONE, max_moves) {
        return None;
    }
    // Until neither step changes anything, since each can make the other
    // find more: a defect needed only while another was on (a pause that
    // hid the drift), or one that acts only after the cut.
    let mut disabled = DefectSet::NONE;
    loop {
        // Switch off every defect the failure does not need, one at a time.
        let before = (disabled, max_moves);
        for defect in Defect::ALL {
            let candidate = disabled.with(defect);
            if candidate != disabled && fails(candidate, max_moves) {
                disabled = candidate;
            }
        }
        // The fewest moves that still fail: bisect, then confirm.
        let (mut low, mut high) = (1u32, max_moves);
        while low < high {
            let middle = low + (high - low) / 2;
            if fails(disabled, middle) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        if high < max_moves && fails(disabled, high) {
            max_moves = high;
        }
        if (disabled, max_moves) == before {
            break;
        }
    }
    let record = play_variant(target, disabled, max_moves, true);
    let reasons = failure_reasons(target.scenario, &record);
    Some(Shrunk { disabled, max_moves, reasons, record, attempts })
}
