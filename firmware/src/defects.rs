//! Defect builds: realistic firmware bugs the bench must catch, one cargo
//! feature each (`README.md` says which article or property each breaks and
//! how bench sees it).
//!
//! Time-base defects live where the time base is (`board.rs`: the SysTick
//! reload; `main.rs`: the masked display refresh). Rule defects are written
//! here, around the clock core: they change what the firmware hands the core
//! or what it does with the core's answers. `chessclock` itself is never
//! changed — it stays the one place the rules are written.

use chessclock::{
    Bonus, Clock, Deadline, DeadlineKind, Duration, Instant, Stage, StageLength, TimeControl, STAGES_MAX,
};

pub const LOST_TICKS: bool = cfg!(feature = "defect-lost-ticks");
pub const DELAY_AS_BRONSTEIN: bool = cfg!(feature = "defect-delay-as-bronstein");
pub const LATE_STAGE_SWITCH: bool = cfg!(feature = "defect-late-stage-switch");
pub const INCREMENT_BEFORE_FLAG_CHECK: bool = cfg!(feature = "defect-increment-before-flag-check");
pub const DISPLAY_ROUNDING_FLAG: bool = cfg!(feature = "defect-display-rounding-flag");

/// `defect-lost-ticks`: once a second the display refresh runs with
/// interrupts masked until SysTick has wrapped this many times. The pending
/// bit holds one tick, so all but one of them are lost: 2 ms a second.
pub const LOST_TICKS_MASKED_WRAPS: u32 = 3;
pub const LOST_TICKS_REFRESH_INTERVAL_US: u64 = 1_000_000;
/// Bound on the masked spin, in loop turns: far more than 3 ms at any speed
/// QEMU runs at, so it only ends early if SysTick stopped.
pub const LOST_TICKS_SPINS_MAX: u32 = 50_000_000;

/// `defect-display-rounding-flag`: the display shows whole seconds rounded
/// to the nearest, so it reads 0 once less than half a second is left.
const DISPLAY_ROUNDS_TO_ZERO_BELOW: Duration = Duration::from_millis(500);

/// The time control the firmware actually runs, given the one it was told.
///
/// - `defect-delay-as-bronstein`: every delay (6.2b time-delay mode: the
///   main time runs only once the delay is used up, nothing is banked) is run
///   as a Bronstein delay (the main time runs at once and the time used, up
///   to the delay, is given back at the press).
/// - `defect-late-stage-switch`: the first stage asks for one move more, so
///   every stage switch (6.2b: the next period's time is added once the
///   moves are made) comes one move late — the `moves > required` slip.
pub fn control_as_run(control: TimeControl) -> TimeControl {
    if !DELAY_AS_BRONSTEIN && !LATE_STAGE_SWITCH {
        return control;
    }
    let TimeControl::Stages(stages) = control else { return control };
    let mut items = [Stage::rest_of_game(Duration::ZERO, Bonus::None); STAGES_MAX];
    for (slot, stage) in items.iter_mut().zip(stages.as_slice()) {
        *slot = *stage;
        if let (true, Bonus::Delay(delay)) = (DELAY_AS_BRONSTEIN, stage.bonus) {
            slot.bonus = Bonus::Bronstein(delay);
        }
    }
    if let (true, Some(first)) = (LATE_STAGE_SWITCH, items.first_mut()) {
        if let StageLength::Moves(moves) = first.length {
            first.length = StageLength::Moves(moves.saturating_add(1));
        }
    }
    TimeControl::stages(items.get(..stages.len()).unwrap_or_default()).unwrap_or(control)
}

/// `defect-display-rounding-flag`: whether the firmware, looking at its
/// rounded display at `now`, declares the flag of `deadline` — when less
/// than half a second is truly left, up to 500 ms early.
pub fn flags_on_rounded_display(deadline: &Deadline, now: Instant) -> bool {
    DISPLAY_ROUNDING_FLAG
        && matches!(deadline.kind, DeadlineKind::Flag { .. })
        && deadline.at.since(now) < DISPLAY_ROUNDS_TO_ZERO_BELOW
}

/// `defect-increment-before-flag-check`: the Fischer increment a defective
/// firmware counts before it checks the flag of `deadline`, if any. The
/// flag then falls one increment late, and a press within that increment
/// after the true flag is taken as in time.
pub fn increment_counted_before_flag(clock: &Clock, deadline: &Deadline) -> Option<Duration> {
    if !INCREMENT_BEFORE_FLAG_CHECK {
        return None;
    }
    let DeadlineKind::Flag { period } = deadline.kind else { return None };
    let TimeControl::Stages(stages) = clock.control() else { return None };
    match stages.get(usize::try_from(period).ok()?)?.bonus {
        Bonus::Increment(increment) if !increment.is_zero() => Some(increment),
        Bonus::Increment(_) | Bonus::None | Bonus::Delay(_) | Bonus::Bronstein(_) => None,
    }
}
