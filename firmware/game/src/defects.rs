//! The rule defects: realistic firmware bugs the bench must catch
//! (`firmware/README.md` says which article each breaks and how bench sees
//! it). They change what the firmware hands the core or what it does with
//! the core's answers; `chessclock` itself is never changed — it stays the
//! one place the rules are written.
//!
//! Time-base and input defects belong to the firmware (`firmware/common/`), not here.

#[cfg(feature = "defect-hooks")]
use chessclock::{
    Bonus, Clock, Deadline, DeadlineKind, Duration, Instant, Stage, StageLength, TimeControl, STAGES_MAX,
};

/// Which rule defects a game runs with. The firmware's defect builds set one
/// each from a cargo feature; the fake firmware takes them per test.
///
/// What they do (the hooks below and their calls in `game.rs`) is compiled
/// only with this crate's feature `defect-hooks` (on by default; the
/// firmware's rule-defect features turn it on, its normal image does not):
/// the normal image holds no defect code, by construction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Defects {
    /// `defect-delay-as-bronstein`: every delay (6.2b time-delay mode: the
    /// main time runs only once the delay is used up, nothing is banked) is
    /// run as a Bronstein delay (the main time runs at once and the time
    /// used, up to the delay, is given back at the press).
    pub delay_as_bronstein: bool,
    /// `defect-late-stage-switch`: the first stage asks for one move more,
    /// so every stage switch (6.2b: the next period's time is added once the
    /// moves are made) comes one move late — the `moves > required` slip.
    pub late_stage_switch: bool,
    /// `defect-increment-before-flag-check`: the Fischer increment is
    /// counted before the flag check, so the flag falls one increment late
    /// and a press within that increment after the true flag is in time.
    pub increment_before_flag_check: bool,
    /// `defect-display-rounding-flag`: the flag is decided on the display
    /// rounded to the nearest second, up to 500 ms early.
    pub display_rounding_flag: bool,
}

/// `display_rounding_flag`: the display shows whole seconds rounded to the
/// nearest, so it reads 0 once less than half a second is left.
#[cfg(feature = "defect-hooks")]
const DISPLAY_ROUNDS_TO_ZERO_BELOW: Duration = Duration::from_millis(500);

/// Whether this build runs the hooks: a firmware that sets a rule defect
/// without them would silently run the normal game.
pub const HOOKS_COMPILED: bool = cfg!(feature = "defect-hooks");

#[cfg(feature = "defect-hooks")]
impl Defects {
    /// The time control the firmware actually runs, given the one it was
    /// told (`delay_as_bronstein`, `late_stage_switch`).
    pub fn control_as_run(self, control: TimeControl) -> TimeControl {
        if !self.delay_as_bronstein && !self.late_stage_switch {
            return control;
        }
        let TimeControl::Stages(stages) = control else { return control };
        let mut items = [Stage::rest_of_game(Duration::ZERO, Bonus::None); STAGES_MAX];
        for (slot, stage) in items.iter_mut().zip(stages.as_slice()) {
            *slot = *stage;
            if let (true, Bonus::Delay(delay)) = (self.delay_as_bronstein, stage.bonus) {
                slot.bonus = Bonus::Bronstein(delay);
            }
        }
        if let (true, Some(first)) = (self.late_stage_switch, items.first_mut()) {
            if let StageLength::Moves(moves) = first.length {
                first.length = StageLength::Moves(moves.saturating_add(1));
            }
        }
        TimeControl::stages(items.get(..stages.len()).unwrap_or_default()).unwrap_or(control)
    }

    /// `display_rounding_flag`: whether the firmware, looking at its rounded
    /// display at `now`, declares the flag of `deadline` — when less than
    /// half a second is truly left.
    pub fn flags_on_rounded_display(self, deadline: &Deadline, now: Instant) -> bool {
        self.display_rounding_flag
            && matches!(deadline.kind, DeadlineKind::Flag { .. })
            && deadline.at.since(now) < DISPLAY_ROUNDS_TO_ZERO_BELOW
    }

    /// `increment_before_flag_check`: the Fischer increment the firmware
    /// counts before it checks the flag of `deadline`, if any.
    pub fn increment_counted_before_flag(self, clock: &Clock, deadline: &Deadline) -> Option<Duration> {
        if !self.increment_before_flag_check {
            return None;
        }
        let DeadlineKind::Flag { period } = deadline.kind else { return None };
        let TimeControl::Stages(stages) = clock.control() else { return None };
        match stages.get(usize::try_from(period).ok()?)?.bonus {
            Bonus::Increment(increment) if !increment.is_zero() => Some(increment),
            Bonus::Increment(_) | Bonus::None | Bonus::Delay(_) | Bonus::Bronstein(_) => None,
        }
    }
}
