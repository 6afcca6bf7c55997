//! Every defect of the device and habit of the arbiter, in one table
//! ([`Defect::spec`]): its `--disable` name, whether the device or the
//! arbiter has it, its random stream, and what its strikes are counted as
//! in reports ([`Struck`]: report key and label). Where each strikes is
//! the game's (`game/`); what a scenario sets for it is `scenario.rs`'s.
//!
//! ```text
//!   Defect ── spec ──▶ name (--disable, shrinking) · device? · stream (rng.rs)
//!                      · counted as Struck ── key (report.json) · label (summaries)
//! ```
//!
//! A player's corrective press is counted (`Struck::Correction`) but is no
//! defect: nothing switches it off.

use std::fmt;

use crate::rng::Actor;
use crate::sample::Ratio;
use crate::scenario::{Arbiter, Device, Occasional};

/// A row of the defect table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefectSpec {
    /// Its name for `--disable` and in shrunk games.
    pub name: &'static str,
    /// A defect of the device (else one of the arbiter's habits).
    pub device: bool,
    /// Its own random stream: switching it off shifts no other draws.
    pub stream: Actor,
    /// What its strikes are counted as in reports; `None`: not counted.
    pub counted_as: Option<Struck>,
}

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

    /// Its row of the table: everything about it but where it strikes.
    pub const fn spec(self) -> DefectSpec {
        let (name, device, stream, counted_as) = match self {
            Defect::Drift => ("drift", true, Actor::Drift, None),
            Defect::Jitter => ("jitter", true, Actor::Jitter, None),
            Defect::Bounce => ("bounce", true, Actor::Bounce, Some(Struck::Bounce)),
            Defect::MissedPress => ("missed-press", true, Actor::MissedPress, Some(Struck::MissedPress)),
            Defect::DoublePress => ("double-press", true, Actor::DoublePress, Some(Struck::DoublePress)),
            Defect::StuckButton => ("stuck-button", true, Actor::StuckButton, Some(Struck::StuckButton)),
            Defect::Brownout => ("brownout", true, Actor::Brownout, Some(Struck::Brownout)),
            Defect::DisplayFreeze => ("display-freeze", true, Actor::DisplayFreeze, Some(Struck::DisplayFreeze)),
            Defect::Pause => ("pause", false, Actor::Pause, Some(Struck::Pause)),
            Defect::Adjust => ("adjust", false, Actor::Adjust, Some(Struck::Adjustment)),
            Defect::SetMoves => ("set-moves", false, Actor::SetMoves, None),
            Defect::ReplaceClock => ("replace-clock", false, Actor::ReplaceClock, Some(Struck::Replacement)),
            Defect::Restore => ("restore", false, Actor::Restore, None),
        };
        DefectSpec { name, device, stream, counted_as }
    }

    /// A defect of the device itself (what `apply_to_device` switches
    /// off), not one of the arbiter's habits.
    pub const fn is_device(self) -> bool {
        self.spec().device
    }

    pub const fn name(self) -> &'static str {
        self.spec().name
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

/// What can strike a game: a defect of the device, a player's corrective
/// press, or an arbiter's intervention. The one list: a new kind is added
/// here (and where it strikes); counts, sums and reports follow it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Struck {
    MissedPress,
    DoublePress,
    Bounce,
    StuckButton,
    Brownout,
    DisplayFreeze,
    Correction,
    Pause,
    Adjustment,
    Replacement,
}

impl Struck {
    /// Every kind, in the reports' order: the device's defects first, then
    /// the arbiter's interventions.
    pub const ALL: [Struck; 10] = [
        Struck::MissedPress,
        Struck::DoublePress,
        Struck::Bounce,
        Struck::StuckButton,
        Struck::Brownout,
        Struck::DisplayFreeze,
        Struck::Correction,
        Struck::Pause,
        Struck::Adjustment,
        Struck::Replacement,
    ];

    /// Its key in report.json's `defects`.
    pub const fn key(self) -> &'static str {
        match self {
            Struck::MissedPress => "missed_presses",
            Struck::DoublePress => "double_presses",
            Struck::Bounce => "bounces",
            Struck::StuckButton => "stuck_buttons",
            Struck::Brownout => "brownouts",
            Struck::DisplayFreeze => "display_freezes",
            Struck::Correction => "corrections",
            Struck::Pause => "pauses",
            Struck::Adjustment => "adjustments",
            Struck::Replacement => "replacements",
        }
    }

    /// Its name in summaries, plural.
    pub const fn label(self) -> &'static str {
        match self {
            Struck::MissedPress => "missed presses",
            Struck::DoublePress => "double presses",
            Struck::Bounce => "contact bounces",
            Struck::StuckButton => "stuck buttons",
            Struck::Brownout => "brownouts",
            Struck::DisplayFreeze => "display freezes",
            Struck::Correction => "corrective presses",
            Struck::Pause => "arbiter pauses",
            Struck::Adjustment => "arbiter time adjustments",
            Struck::Replacement => "clock replacements",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// How often each kind of [`Struck`] struck a game (or a run's games).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DefectCounts {
    counts: [u64; Struck::ALL.len()],
}

impl DefectCounts {
    /// How often `kind` struck.
    pub fn get(&self, kind: Struck) -> u64 {
        self.counts.get(kind.index()).copied().unwrap_or(0)
    }

    /// `kind` struck once more.
    pub fn note(&mut self, kind: Struck) {
        self.set(kind, self.get(kind).saturating_add(1));
    }

    pub fn set(&mut self, kind: Struck, count: u64) {
        if let Some(slot) = self.counts.get_mut(kind.index()) {
            *slot = count;
        }
    }

    /// Adds `more`'s counts, kind by kind.
    pub fn add(&mut self, more: &DefectCounts) {
        for kind in Struck::ALL {
            self.set(kind, self.get(kind).saturating_add(more.get(kind)));
        }
    }

    /// Each kind with its count, in [`Struck::ALL`]'s order.
    pub fn iter(&self) -> impl Iterator<Item = (Struck, u64)> + '_ {
        Struck::ALL.into_iter().map(|kind| (kind, self.get(kind)))
    }
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

    #[test]
    fn every_defect_has_its_own_stream_and_name() {
        for (index, defect) in Defect::ALL.into_iter().enumerate() {
            let spec = defect.spec();
            for other in Defect::ALL.into_iter().skip(index + 1) {
                assert_ne!(spec.stream.id(), other.spec().stream.id(), "{} and {}", spec.name, other.name());
                assert_ne!(spec.name, other.name());
            }
            assert_eq!(Defect::parse(spec.name), Some(defect));
        }
    }

    #[test]
    fn every_counted_kind_but_the_corrections_is_some_defect_s() {
        for kind in Struck::ALL {
            let counted = Defect::ALL.into_iter().any(|defect| defect.spec().counted_as == Some(kind));
            assert_eq!(counted, kind != Struck::Correction, "{}", kind.key());
        }
    }
}
