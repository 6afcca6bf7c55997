//! Time controls: what each player is given, fixed before the game (6.2a).
//!
//! A [`TimeControl`] is validated when it is built, so the clock never meets
//! a control it cannot run. Its text form is in [`crate::notation`].
//!
//! The kinds: stages (6.2: "N moves in T", then the rest of the game), each
//! with its own [`Bonus`] (Fischer increment, time delay, Bronstein delay);
//! hourglass; byo-yomi; Canadian overtime.

use crate::time::Duration;

/// The most stages a staged control may have ("40 moves in 90 min, then 20 in
/// 60, then the rest in 15" is three).
pub const STAGES_MAX: usize = 5;

/// The most byo-yomi periods a control may have. Bounding it bounds the work
/// the clock does for one call (one transition per period at most).
pub const PERIODS_MAX: u32 = 100;

/// What a player receives for each move of a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bonus {
    /// Sudden death within the stage: nothing per move.
    None,
    /// Fischer increment: added to the main time after each move (6.2a "an
    /// additional amount of time may also be added with each move").
    Increment(Duration),
    /// Time-delay mode (6.2b), the US "simple delay": each move first spends
    /// this fixed extra time; the main time runs only once it is used up.
    /// Unused extra time is never banked.
    Delay(Duration),
    /// Bronstein delay: the main time runs from the start of the move, and the
    /// time used, up to this amount, is given back when the move completes.
    Bronstein(Duration),
}

impl Bonus {
    pub const fn amount(self) -> Duration {
        match self {
            Bonus::None => Duration::ZERO,
            Bonus::Increment(amount) | Bonus::Delay(amount) | Bonus::Bronstein(amount) => amount,
        }
    }
}

/// How many moves a stage asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StageLength {
    /// This many moves by each player (at least one).
    Moves(u32),
    /// All remaining moves: only the last stage is this.
    RestOfGame,
}

/// "N moves in T" or "rest of the game in T", with a per-move bonus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stage {
    pub length: StageLength,
    /// Time given when the stage begins, on top of the time saved from the
    /// stages before it (6.2b).
    pub time: Duration,
    pub bonus: Bonus,
}

impl Stage {
    pub const fn moves(moves: u32, time: Duration, bonus: Bonus) -> Stage {
        Stage { length: StageLength::Moves(moves), time, bonus }
    }

    pub const fn rest_of_game(time: Duration, bonus: Bonus) -> Stage {
        Stage { length: StageLength::RestOfGame, time, bonus }
    }

    const PLACEHOLDER: Stage = Stage::rest_of_game(Duration::ZERO, Bonus::None);
}

/// One to [`STAGES_MAX`] stages, every one but the last "N moves in T" and
/// the last "rest of game".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stages {
    items: [Stage; STAGES_MAX],
    len: usize,
}

// Never empty (`TimeControl::stages` refuses no stages), so no `is_empty`:
// it could only ever say false.
#[allow(clippy::len_without_is_empty)]
impl Stages {
    pub fn as_slice(&self) -> &[Stage] {
        self.items.get(..self.len).unwrap_or(&[])
    }

    pub fn get(&self, index: usize) -> Option<&Stage> {
        self.as_slice().get(index)
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

/// A validated time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeControl {
    /// FIDE-style periods (6.2): stages, each with its own bonus.
    Stages(Stages),
    /// Hourglass (sand clock): the time one side uses flows to the other.
    Hourglass { time: Duration },
    /// Main time, then `periods` periods of `period` each. A move made
    /// inside a period keeps it; a period that runs out is lost, and the flag
    /// falls when the last one runs out.
    ByoYomi { main: Duration, periods: u32, period: Duration },
    /// Canadian overtime: main time, then `moves` moves in `period`,
    /// repeating; time left in one overtime period is not carried over.
    Canadian { main: Duration, moves: u32, period: Duration },
}

/// Why a time control is not valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlError {
    NoStages,
    TooManyStages {
        stages: usize,
    },
    /// Only the last stage may be "rest of game", and it must be.
    LastStageNotRestOfGame,
    RestOfGameBeforeLastStage {
        stage: usize,
    },
    ZeroMoves,
    ZeroPeriods,
    TooManyPeriods {
        periods: u32,
    },
    ZeroPeriodTime,
    /// A time above [`Duration::CONTROL_MAX`].
    TimeTooLong {
        time: Duration,
    },
}

impl core::fmt::Display for ControlError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ControlError::NoStages => f.write_str("a time control needs at least one stage"),
            ControlError::TooManyStages { stages } => {
                write!(f, "{stages} stages given, at most {STAGES_MAX} are supported")
            }
            ControlError::LastStageNotRestOfGame => f.write_str(
                "the last stage must be for the rest of the game (for \"N moves in T\" repeating, use Canadian overtime)",
            ),
            ControlError::RestOfGameBeforeLastStage { stage } => {
                write!(f, "stage {} is \"rest of game\" but is not the last stage", stage.saturating_add(1))
            }
            ControlError::ZeroMoves => f.write_str("a move count must be at least 1"),
            ControlError::ZeroPeriods => f.write_str("byo-yomi needs at least one period"),
            ControlError::TooManyPeriods { periods } => {
                write!(f, "{periods} byo-yomi periods given, at most {PERIODS_MAX} are supported")
            }
            ControlError::ZeroPeriodTime => f.write_str("an overtime period must last longer than zero"),
            ControlError::TimeTooLong { time } => {
                write!(f, "{time} is longer than the longest supported time, {}", Duration::CONTROL_MAX)
            }
        }
    }
}

fn check_time(time: Duration) -> Result<(), ControlError> {
    if time > Duration::CONTROL_MAX {
        return Err(ControlError::TimeTooLong { time });
    }
    Ok(())
}

impl TimeControl {
    /// Stages in order; see [`Stages`] for the shape they must have.
    pub fn stages(stages: &[Stage]) -> Result<TimeControl, ControlError> {
        if stages.is_empty() {
            return Err(ControlError::NoStages);
        }
        if stages.len() > STAGES_MAX {
            return Err(ControlError::TooManyStages { stages: stages.len() });
        }
        let last = stages.len().saturating_sub(1);
        let mut items = [Stage::PLACEHOLDER; STAGES_MAX];
        for (index, (stage, slot)) in stages.iter().zip(items.iter_mut()).enumerate() {
            match stage.length {
                StageLength::Moves(0) => return Err(ControlError::ZeroMoves),
                StageLength::Moves(_) if index == last => return Err(ControlError::LastStageNotRestOfGame),
                StageLength::RestOfGame if index != last => {
                    return Err(ControlError::RestOfGameBeforeLastStage { stage: index })
                }
                StageLength::Moves(_) | StageLength::RestOfGame => {}
            }
            check_time(stage.time)?;
            check_time(stage.bonus.amount())?;
            *slot = *stage;
        }
        Ok(TimeControl::Stages(Stages { items, len: stages.len() }))
    }

    /// One stage for the whole game.
    pub fn sudden_death(time: Duration, bonus: Bonus) -> Result<TimeControl, ControlError> {
        TimeControl::stages(&[Stage::rest_of_game(time, bonus)])
    }

    pub fn hourglass(time: Duration) -> Result<TimeControl, ControlError> {
        check_time(time)?;
        Ok(TimeControl::Hourglass { time })
    }

    pub fn byo_yomi(main: Duration, periods: u32, period: Duration) -> Result<TimeControl, ControlError> {
        check_time(main)?;
        check_time(period)?;
        if periods == 0 {
            return Err(ControlError::ZeroPeriods);
        }
        if periods > PERIODS_MAX {
            return Err(ControlError::TooManyPeriods { periods });
        }
        if period.is_zero() {
            return Err(ControlError::ZeroPeriodTime);
        }
        Ok(TimeControl::ByoYomi { main, periods, period })
    }

    pub fn canadian(main: Duration, moves: u32, period: Duration) -> Result<TimeControl, ControlError> {
        check_time(main)?;
        check_time(period)?;
        if moves == 0 {
            return Err(ControlError::ZeroMoves);
        }
        if period.is_zero() {
            return Err(ControlError::ZeroPeriodTime);
        }
        Ok(TimeControl::Canadian { main, moves, period })
    }

    /// The time on each display before the first move.
    pub fn initial_time(&self) -> Duration {
        match self {
            TimeControl::Stages(stages) => stages.get(0).map_or(Duration::ZERO, |stage| stage.time),
            TimeControl::Hourglass { time } => *time,
            TimeControl::ByoYomi { main, .. } | TimeControl::Canadian { main, .. } => *main,
        }
    }

    /// The most time one player can use under this control in a game of
    /// `moves` moves, µs (saturating): every stage's time and its bonus for
    /// each move, an hourglass's time twice (all of it can flow to one
    /// side), the byo-yomi periods once and one more period a move,
    /// Canadian main time and four overtime periods. A bound for how far a
    /// simulation looks ahead and how wide its plots are, not a rule: the
    /// one place that says how long a game can last.
    pub fn time_max_us(&self, moves: u64) -> u64 {
        let us = Duration::as_us;
        match self {
            TimeControl::Stages(stages) => stages
                .as_slice()
                .iter()
                .map(|stage| us(stage.time).saturating_add(us(stage.bonus.amount()).saturating_mul(moves)))
                .fold(0u64, u64::saturating_add),
            TimeControl::Hourglass { time } => us(*time).saturating_mul(2),
            TimeControl::ByoYomi { main, periods, period } => {
                us(*main).saturating_add(us(*period).saturating_mul(u64::from(*periods).saturating_add(moves)))
            }
            TimeControl::Canadian { main, period, .. } => us(*main).saturating_add(us(*period).saturating_mul(4)),
        }
    }

    /// The period in which all remaining moves must be completed (6.12b).
    ///
    /// Periods are numbered per control: a stage index for staged controls;
    /// for byo-yomi 0 is main time and `k` the k-th byo-yomi period; for
    /// Canadian 0 is main time and 1 the overtime; an hourglass has only 0.
    pub fn final_period(&self) -> u32 {
        match self {
            TimeControl::Stages(stages) => u32::try_from(stages.len().saturating_sub(1)).unwrap_or(0),
            TimeControl::Hourglass { .. } => 0,
            TimeControl::ByoYomi { periods, .. } => *periods,
            TimeControl::Canadian { .. } => 1,
        }
    }

    pub fn is_final_period(&self, period: u32) -> bool {
        period >= self.final_period()
    }

    /// How many moves a player must have completed by the end of `period`
    /// (6.2a, checked after a flag by 6.3); `None` when all moves are due.
    pub fn moves_required_by_end_of(&self, period: u32) -> Option<u32> {
        match self {
            TimeControl::Stages(stages) => {
                let mut required: u32 = 0;
                for (index, stage) in stages.as_slice().iter().enumerate() {
                    match stage.length {
                        StageLength::Moves(moves) => required = required.saturating_add(moves),
                        StageLength::RestOfGame => return None,
                    }
                    if u32::try_from(index).ok() == Some(period) {
                        return Some(required);
                    }
                }
                None
            }
            TimeControl::Hourglass { .. } | TimeControl::ByoYomi { .. } | TimeControl::Canadian { .. } => None,
        }
    }
}
