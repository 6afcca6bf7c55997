//! An independent tick model of the chess-clock rules, written from the
//! specification rather than from the event-driven core.
//!
//! It works the way a firmware main loop with a 1 kHz SysTick would: time is
//! a count of whole milliseconds and only ever moves forward one tick at a
//! time. After every tick, and after every call that changes which display
//! runs, the loop looks at the running display and applies whatever is due
//! (delay used up, flag, overtime, byo-yomi period lost). A call at instant
//! `t` is handled after the tick that ends at `t`, so a transition due at `t`
//! always comes first.
//!
//! All quantities are milliseconds (`u64`); the core's microsecond
//! [`Duration`]s are converted once, when the model is built.

use chessclock::{Bonus, Duration, Side, StageLength, TimeControl, STAGES_MAX};

/// Whole milliseconds of a duration; the differential test only uses
/// controls made of whole milliseconds.
pub fn ms(duration: Duration) -> u64 {
    assert_eq!(duration.as_us() % 1_000, 0, "the tick model needs whole milliseconds, got {duration:?}");
    duration.as_us() / 1_000
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum PerMove {
    #[default]
    Nothing,
    Increment(u64),
    Delay(u64),
    Bronstein(u64),
}

#[derive(Clone, Copy, Debug, Default)]
struct StageRule {
    /// Moves in this stage; `None` for the rest of the game.
    moves: Option<u32>,
    time: u64,
    per_move: PerMove,
}

#[derive(Clone, Copy, Debug)]
enum Rules {
    Staged { stages: [StageRule; STAGES_MAX], count: usize },
    Hourglass { time: u64 },
    ByoYomi { main: u64, periods: u32, period: u64 },
    Canadian { main: u64, moves: u32, period: u64 },
}

/// A flag as the tick model saw it fall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickFlag {
    pub at_ms: u64,
    pub period: u32,
    pub sequence: u32,
}

/// Why the tick model refused a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickError {
    NotStarted,
    AlreadyStarted,
    Paused,
    NotPaused,
    NotRunning,
    TimeWentBackwards,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    NotStarted,
    Running(Side),
    Paused(Side),
}

/// One side's display and counters.
#[derive(Clone, Copy, Debug, Default)]
struct Face {
    /// Main time. For staged controls the index of the current stage is
    /// `period`.
    main: u64,
    /// Stage index (staged), or 0 = main time / k = k-th overtime period.
    period: u32,
    /// Byo-yomi / Canadian: time left in the current overtime period.
    period_left: u64,
    /// Canadian: moves made in the current overtime period.
    period_moves: u32,
    moves: u32,
    /// Time-delay mode: extra time left for the move in progress.
    delay_left: u64,
    /// Ticks this display ran during the move in progress.
    move_ticks: u64,
    /// Flagged in the final period: shows 0 for good.
    frozen: bool,
    flag: Option<TickFlag>,
}

/// The 1 kHz tick clock.
#[derive(Clone, Debug)]
pub struct TickClock {
    rules: Rules,
    state: State,
    now_ms: u64,
    white: Face,
    black: Face,
    flags_fallen: u32,
}

impl TickClock {
    pub fn new(control: &TimeControl) -> TickClock {
        let rules = match control {
            TimeControl::Stages(given) => {
                let mut stages = [StageRule::default(); STAGES_MAX];
                for (slot, stage) in stages.iter_mut().zip(given.as_slice()) {
                    *slot = StageRule {
                        moves: match stage.length {
                            StageLength::Moves(moves) => Some(moves),
                            StageLength::RestOfGame => None,
                        },
                        time: ms(stage.time),
                        per_move: match stage.bonus {
                            Bonus::None => PerMove::Nothing,
                            Bonus::Increment(amount) => PerMove::Increment(ms(amount)),
                            Bonus::Delay(amount) => PerMove::Delay(ms(amount)),
                            Bonus::Bronstein(amount) => PerMove::Bronstein(ms(amount)),
                        },
                    };
                }
                Rules::Staged { stages, count: given.len() }
            }
            TimeControl::Hourglass { time } => Rules::Hourglass { time: ms(*time) },
            TimeControl::ByoYomi { main, periods, period } => {
                Rules::ByoYomi { main: ms(*main), periods: *periods, period: ms(*period) }
            }
            TimeControl::Canadian { main, moves, period } => {
                Rules::Canadian { main: ms(*main), moves: *moves, period: ms(*period) }
            }
        };
        let initial = match &rules {
            Rules::Staged { stages, .. } => stages[0].time,
            Rules::Hourglass { time } => *time,
            Rules::ByoYomi { main, .. } | Rules::Canadian { main, .. } => *main,
        };
        let face = Face { main: initial, ..Face::default() };
        TickClock { rules, state: State::NotStarted, now_ms: 0, white: face, black: face, flags_fallen: 0 }
    }

    fn face(&self, side: Side) -> &Face {
        match side {
            Side::White => &self.white,
            Side::Black => &self.black,
        }
    }

    fn face_mut(&mut self, side: Side) -> &mut Face {
        match side {
            Side::White => &mut self.white,
            Side::Black => &mut self.black,
        }
    }

    // ---- calls ---------------------------------------------------------

    pub fn start(&mut self, at_ms: u64) -> Result<(), TickError> {
        if self.state != State::NotStarted {
            return Err(TickError::AlreadyStarted);
        }
        self.run_until(at_ms)?;
        self.state = State::Running(Side::White);
        self.begin_move(Side::White);
        self.service(Side::White);
        Ok(())
    }

    pub fn press(&mut self, side: Side, at_ms: u64) -> Result<(), TickError> {
        match self.state {
            State::Running(running) if running == side => {}
            State::Running(_) => return Err(TickError::NotRunning),
            State::Paused(_) => return Err(TickError::Paused),
            State::NotStarted => return Err(TickError::NotStarted),
        }
        self.run_until(at_ms)?;
        self.end_move(side);
        let next = side.opponent();
        self.state = State::Running(next);
        self.begin_move(next);
        self.service(next);
        Ok(())
    }

    pub fn pause(&mut self, at_ms: u64) -> Result<(), TickError> {
        let side = match self.state {
            State::Running(side) => side,
            State::Paused(_) => return Err(TickError::Paused),
            State::NotStarted => return Err(TickError::NotStarted),
        };
        self.run_until(at_ms)?;
        self.state = State::Paused(side);
        Ok(())
    }

    pub fn resume(&mut self, at_ms: u64) -> Result<(), TickError> {
        let side = match self.state {
            State::Paused(side) => side,
            State::Running(_) => return Err(TickError::NotPaused),
            State::NotStarted => return Err(TickError::NotStarted),
        };
        self.run_until(at_ms)?;
        self.state = State::Running(side);
        self.service(side);
        Ok(())
    }

    /// Lets the ticks up to `at_ms` happen (an observation, not a call).
    pub fn run_until(&mut self, at_ms: u64) -> Result<(), TickError> {
        if at_ms < self.now_ms {
            return Err(TickError::TimeWentBackwards);
        }
        let State::Running(side) = self.state else {
            // No display runs: the ticks pass and change nothing.
            self.now_ms = at_ms;
            return Ok(());
        };
        // Ticks never change which display runs (only calls do). A display
        // frozen at zero after its final flag changes no more, however long
        // its player takes: the ticks left pass in one step.
        if self.face(side).frozen {
            self.now_ms = at_ms;
            return Ok(());
        }
        while self.now_ms < at_ms {
            self.run_ticks(side, at_ms);
            if self.transition_due(side) {
                self.service(side);
                if self.face(side).frozen {
                    self.now_ms = at_ms;
                }
            }
        }
        Ok(())
    }

    /// Ticks `side`'s display one millisecond at a time up to `at_ms`,
    /// stopping early after a tick that makes a transition due. The main
    /// loop's inner part, on copies of the two faces and the time: the
    /// counters stay in registers instead of going through memory at every
    /// tick, and the kind of display is read once.
    fn run_ticks(&mut self, side: Side, at_ms: u64) {
        let kind = Kind::of(&self.rules);
        let (mut face, mut other) = (*self.face(side), *self.face(side.opponent()));
        let mut now_ms = self.now_ms;
        while now_ms < at_ms {
            now_ms += 1;
            tick(kind, &mut face, &mut other);
            if transition_due(kind, &face) {
                break;
            }
        }
        self.now_ms = now_ms;
        *self.face_mut(side) = face;
        *self.face_mut(side.opponent()) = other;
    }

    // ---- observations --------------------------------------------------

    /// The big number, in milliseconds.
    pub fn remaining_ms(&self, side: Side) -> u64 {
        let face = self.face(side);
        match self.rules {
            Rules::ByoYomi { .. } | Rules::Canadian { .. } if face.period > 0 && face.main == 0 => face.period_left,
            _ => face.main,
        }
    }

    pub fn moves(&self, side: Side) -> u32 {
        self.face(side).moves
    }

    pub fn period(&self, side: Side) -> u32 {
        self.face(side).period
    }

    pub fn flag(&self, side: Side) -> Option<TickFlag> {
        self.face(side).flag
    }

    pub fn running(&self) -> Option<Side> {
        match self.state {
            State::Running(side) => Some(side),
            State::NotStarted | State::Paused(_) => None,
        }
    }

    pub fn is_paused(&self) -> bool {
        matches!(self.state, State::Paused(_))
    }

    // ---- the main loop's work ------------------------------------------

    fn stage(&self, index: u32) -> Option<StageRule> {
        match &self.rules {
            Rules::Staged { stages, count } => stages[..*count].get(index as usize).copied(),
            _ => None,
        }
    }

    fn is_last_stage(&self, index: u32) -> bool {
        match &self.rules {
            Rules::Staged { count, .. } => index as usize + 1 >= *count,
            _ => true,
        }
    }

    /// Moves needed by the end of stage `index` (cumulative).
    fn moves_due_by_end_of(&self, index: u32) -> Option<u32> {
        let Rules::Staged { stages, .. } = &self.rules else { return None };
        let mut due = 0;
        for stage in &stages[..=index as usize] {
            due += stage.moves?;
        }
        Some(due)
    }

    /// Applies every transition due now on the running display.
    fn service(&mut self, side: Side) {
        while self.transition_due(side) {
            self.apply_transition(side);
        }
    }

    /// Whether the running display has reached a boundary: the main loop's
    /// check after every tick, so it only reads.
    fn transition_due(&self, side: Side) -> bool {
        transition_due(Kind::of(&self.rules), self.face(side))
    }

    /// The one transition due (see [`TickClock::transition_due`]).
    #[inline(never)]
    fn apply_transition(&mut self, side: Side) {
        let face = *self.face(side);
        match self.rules {
            Rules::Staged { .. } => {
                self.raise_flag(side, face.period);
                if self.is_last_stage(face.period) {
                    self.freeze(side);
                    return;
                }
                let next = face.period + 1;
                let time = self.stage(next).expect("next stage").time;
                let face = self.face_mut(side);
                face.period = next;
                face.main += time;
            }
            Rules::Hourglass { .. } => {
                self.raise_flag(side, 0);
                self.freeze(side);
            }
            Rules::ByoYomi { periods, period, .. } => {
                if face.period == 0 {
                    let face = self.face_mut(side);
                    face.period = 1;
                    face.period_left = period;
                } else if face.period < periods {
                    let face = self.face_mut(side);
                    face.period += 1;
                    face.period_left = period;
                } else {
                    self.raise_flag(side, face.period);
                    self.freeze(side);
                }
            }
            Rules::Canadian { period, .. } => {
                if face.period == 0 {
                    let face = self.face_mut(side);
                    face.period = 1;
                    face.period_left = period;
                    face.period_moves = 0;
                } else {
                    self.raise_flag(side, face.period);
                    self.freeze(side);
                }
            }
        }
    }

    fn raise_flag(&mut self, side: Side, period: u32) {
        self.flags_fallen += 1;
        let flag = TickFlag { at_ms: self.now_ms, period, sequence: self.flags_fallen };
        self.face_mut(side).flag = Some(flag);
    }

    fn freeze(&mut self, side: Side) {
        let face = self.face_mut(side);
        face.frozen = true;
        face.main = 0;
        face.period_left = 0;
        face.delay_left = 0;
    }

    /// The display starts running for a new move.
    fn begin_move(&mut self, side: Side) {
        let stage = self.stage(self.face(side).period);
        let face = self.face_mut(side);
        face.move_ticks = 0;
        face.delay_left = 0;
        if face.frozen {
            return;
        }
        if let Some(StageRule { per_move: PerMove::Delay(delay), .. }) = stage {
            face.delay_left = delay;
        }
    }

    /// The press: the move is complete.
    fn end_move(&mut self, side: Side) {
        let rules = self.rules;
        let stage = self.stage(self.face(side).period);
        let face = self.face_mut(side);
        face.moves += 1;
        let used = face.move_ticks;
        face.move_ticks = 0;
        face.delay_left = 0;
        if face.frozen {
            return;
        }
        match rules {
            Rules::Staged { .. } => {
                match stage.expect("current stage").per_move {
                    PerMove::Nothing | PerMove::Delay(_) => {}
                    PerMove::Increment(amount) => face.main += amount,
                    PerMove::Bronstein(amount) => face.main += used.min(amount),
                }
                loop {
                    let index = self.face(side).period;
                    if self.is_last_stage(index) {
                        break;
                    }
                    let due = self.moves_due_by_end_of(index).expect("a stage before the last has a move count");
                    if self.face(side).moves < due {
                        break;
                    }
                    let time = self.stage(index + 1).expect("next stage").time;
                    let face = self.face_mut(side);
                    face.period = index + 1;
                    face.main += time;
                }
            }
            Rules::Hourglass { .. } => {}
            Rules::ByoYomi { period, .. } => {
                if face.period > 0 {
                    face.period_left = period;
                }
            }
            Rules::Canadian { moves, period, .. } => {
                if face.period > 0 {
                    face.period_moves += 1;
                    if face.period_moves >= moves {
                        face.period_moves = 0;
                        face.period_left = period;
                    }
                }
            }
        }
    }
}

/// What a tick does to a display, by kind of control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Stages: the delay first, then main time.
    Staged,
    /// Main time moves to the other display.
    Hourglass,
    /// Byo-yomi or Canadian: main time first, then the periods.
    Overtime,
}

impl Kind {
    fn of(rules: &Rules) -> Kind {
        match rules {
            Rules::Staged { .. } => Kind::Staged,
            Rules::Hourglass { .. } => Kind::Hourglass,
            Rules::ByoYomi { .. } | Rules::Canadian { .. } => Kind::Overtime,
        }
    }
}

/// One millisecond of `face`'s display running (`other` is the waiting one).
#[inline]
fn tick(kind: Kind, face: &mut Face, other: &mut Face) {
    if face.frozen {
        return;
    }
    face.move_ticks += 1;
    match kind {
        Kind::Staged => {
            if face.delay_left > 0 {
                face.delay_left -= 1;
            } else {
                face.main = face.main.checked_sub(1).expect("a staged display ran below zero");
            }
        }
        Kind::Hourglass => {
            face.main = face.main.checked_sub(1).expect("an hourglass ran below zero");
            if !other.frozen {
                other.main += 1;
            }
        }
        Kind::Overtime if face.period == 0 => {
            face.main = face.main.checked_sub(1).expect("main time ran below zero");
        }
        Kind::Overtime => {
            face.period_left = face.period_left.checked_sub(1).expect("a period ran below zero");
        }
    }
}

/// Whether the running `face` has reached a boundary.
#[inline]
fn transition_due(kind: Kind, face: &Face) -> bool {
    if face.frozen {
        return false;
    }
    match kind {
        Kind::Staged => face.delay_left == 0 && face.main == 0,
        Kind::Hourglass => face.main == 0,
        Kind::Overtime if face.period == 0 => face.main == 0,
        Kind::Overtime => face.period_left == 0,
    }
}
