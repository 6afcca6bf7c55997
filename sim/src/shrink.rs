//! Shrinking a failing game: switch off every defect the failure does not
//! need, then cut the game to the fewest moves that still fail, and repeat
//! both until neither changes anything. The result is minimal: switching
//! off one more defect, or one move fewer per player, and the game passes.
//!
//! A shrunk game is replayed with the same seed and game index plus the
//! switches found here (`--disable`, `--max-moves`), so its trace is the
//! minimal press/defect sequence that shows the failure.

use std::fmt;

use crate::game::{self, GameRecord, GameSpec};
use crate::run::failure_reasons;
use crate::sample::Ratio;
use crate::scenario::{Arbiter, Device, Occasional, Scenario};

/// A defect or arbiter intervention that can be switched off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Defect {
    Drift,
    Jitter,
    Bounce,
    MissedPress,
    DoublePress,
    StuckButton,
    Brownout,
    DisplayFreeze,
    Pause,
    Adjust,
    SetMoves,
    ReplaceClock,
    Restore,
}

impl Defect {
    pub const ALL: [Defect; 13] = [
        Defect::Drift,
        Defect::Jitter,
        Defect::Bounce,
        Defect::MissedPress,
        Defect::DoublePress,
        Defect::StuckButton,
        Defect::Brownout,
        Defect::DisplayFreeze,
        Defect::Pause,
        Defect::Adjust,
        Defect::SetMoves,
        Defect::ReplaceClock,
        Defect::Restore,
    ];

    /// A defect of the device itself (what `apply_to_device` switches
    /// off), not one of the arbiter's habits.
    pub const fn is_device(self) -> bool {
        !matches!(self, Defect::Pause | Defect::Adjust | Defect::SetMoves | Defect::ReplaceClock | Defect::Restore)
    }

    pub const fn name(self) -> &'static str {
        match self {
            Defect::Drift => "drift",
            Defect::Jitter => "jitter",
            Defect::Bounce => "bounce",
            Defect::MissedPress => "missed-press",
            Defect::DoublePress => "double-press",
            Defect::StuckButton => "stuck-button",
            Defect::Brownout => "brownout",
            Defect::DisplayFreeze => "display-freeze",
            Defect::Pause => "pause",
            Defect::Adjust => "adjust",
            Defect::SetMoves => "set-moves",
            Defect::ReplaceClock => "replace-clock",
            Defect::Restore => "restore",
        }
    }

    pub fn parse(name: &str) -> Option<Defect> {
        Defect::ALL.into_iter().find(|defect| defect.name() == name)
    }

    const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A set of switched-off defects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DefectSet {
    bits: u16,
}

impl DefectSet {
    pub const NONE: DefectSet = DefectSet { bits: 0 };

    pub fn with(self, defect: Defect) -> DefectSet {
        DefectSet { bits: self.bits | defect.bit() }
    }

    pub fn contains(self, defect: Defect) -> bool {
        self.bits & defect.bit() != 0
    }

    pub fn iter(self) -> impl Iterator<Item = Defect> {
        Defect::ALL.into_iter().filter(move |defect| self.contains(*defect))
    }

    pub fn is_empty(self) -> bool {
        self.bits == 0
    }

    /// Parses `bounce,missed-press`.
    pub fn parse(list: &str) -> Result<DefectSet, String> {
        let mut set = DefectSet::NONE;
        for name in list.split(',').map(str::trim).filter(|name| !name.is_empty()) {
            let defect = Defect::parse(name).ok_or_else(|| {
                let known: Vec<&str> = Defect::ALL.iter().map(|defect| defect.name()).collect();
                format!("unknown defect `{name}`; known: {}", known.join(", "))
            })?;
            set = set.with(defect);
        }
        Ok(set)
    }

    pub fn apply_to_device(self, mut device: Device) -> Device {
        let off = Occasional { chance: Ratio::NEVER, ..Occasional::default() };
        if self.contains(Defect::Drift) {
            device.drift_ppm = 0;
            device.drift_walk_ppm = 0;
        }
        if self.contains(Defect::Jitter) {
            device.jitter_us = 0;
        }
        if self.contains(Defect::Bounce) {
            device.bounce = off;
        }
        if self.contains(Defect::MissedPress) {
            device.missed_press = Ratio::NEVER;
        }
        if self.contains(Defect::DoublePress) {
            device.double_press = Ratio::NEVER;
        }
        if self.contains(Defect::StuckButton) {
            device.stuck_button = off;
        }
        if self.contains(Defect::Brownout) {
            device.brownout.chance = Ratio::NEVER;
        }
        if self.contains(Defect::DisplayFreeze) {
            device.display_freeze = off;
        }
        device
    }

    pub fn apply_to_arbiter(self, mut arbiter: Arbiter) -> Arbiter {
        if self.contains(Defect::Pause) {
            arbiter.pause.chance = Ratio::NEVER;
        }
        if self.contains(Defect::Adjust) {
            arbiter.adjust.chance = Ratio::NEVER;
        }
        if self.contains(Defect::SetMoves) {
            arbiter.set_moves = Ratio::NEVER;
        }
        if self.contains(Defect::ReplaceClock) {
            arbiter.replace_clock = Ratio::NEVER;
        }
        if self.contains(Defect::Restore) {
            arbiter.restore = Ratio::NEVER;
        }
        arbiter
    }
}

impl fmt::Display for DefectSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(Defect::name).collect();
        f.write_str(&names.join(","))
    }
}

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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::scenario::Scenario;

    /// Every defect and habit on, so switching any one off shows.
    const EVERYTHING: &str = r#"
description = "every defect and habit"
control = "300+2"
[device]
drift_ppm = 40
jitter_us = 300
bounce = { chance = "1/20", min_ms = 1, max_ms = 40 }
missed_press = "1/300"
double_press = "1/200"
stuck_button = { chance = "1/1000", min_ms = 200, max_ms = 2000 }
brownout = { chance = "1/3000" }
display_freeze = { chance = "1/500", min_ms = 500, max_ms = 3000 }
[arbiter]
pause = { chance = "1/30", min_ms = 1000, max_ms = 9000 }
adjust = { chance = "1/30", min_ms = 1000, max_ms = 9000 }
set_moves = "1/30"
replace_clock = "1/100"
restore = "1/50"
"#;

    #[test]
    fn device_defects_are_the_ones_switched_off_on_the_device() {
        let scenario = Scenario::parse(EVERYTHING, Path::new("everything.toml")).expect("parses");
        for defect in Defect::ALL {
            let off = DefectSet::NONE.with(defect);
            let device_changed = off.apply_to_device(scenario.device) != scenario.device;
            let arbiter_changed = off.apply_to_arbiter(scenario.arbiter) != scenario.arbiter;
            assert_eq!(device_changed, defect.is_device(), "{}", defect.name());
            assert_eq!(arbiter_changed, !defect.is_device(), "{}", defect.name());
        }
    }
}
