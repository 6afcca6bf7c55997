//! The rules of the model, in one unit of time (milliseconds for the tick
//! reading, microseconds for the event reading) and with one of two ways of
//! letting time pass: a tick at a time, or straight to the next instant at
//! which the running display reaches a boundary.
//!
//! Written from the rule text (`../shared/seeds/TRANSLATION.md`, Article 6)
//! and the documented meaning of each kind of control and arbiter call, not
//! from `chessclock`'s code.

use chessclock::{Bonus, Duration, Side, StageLength, TimeAdjustment, TimeControl, STAGES_MAX};

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

impl Rules {
    /// The control with every time in the model's unit (`unit` converts).
    fn of(control: &TimeControl, unit: fn(Duration) -> u64) -> Rules {
        match control {
            TimeControl::Stages(given) => {
                let mut stages = [StageRule::default(); STAGES_MAX];
                for (slot, stage) in stages.iter_mut().zip(given.as_slice()) {
                    *slot = StageRule {
                        moves: match stage.length {
                            StageLength::Moves(moves) => Some(moves),
                            StageLength::RestOfGame => None,
                        },
                        time: unit(stage.time),
                        per_move: match stage.bonus {
                            Bonus::None => PerMove::Nothing,
                            Bonus::Increment(amount) => PerMove::Increment(unit(amount)),
                            Bonus::Delay(amount) => PerMove::Delay(unit(amount)),
                            Bonus::Bronstein(amount) => PerMove::Bronstein(unit(amount)),
                        },
                    };
                }
                Rules::Staged { stages, count: given.len() }
            }
            TimeControl::Hourglass { time } => Rules::Hourglass { time: unit(*time) },
            TimeControl::ByoYomi { main, periods, period } => {
                Rules::ByoYomi { main: unit(*main), periods: *periods, period: unit(*period) }
            }
            TimeControl::Canadian { main, moves, period } => {
                Rules::Canadian { main: unit(*main), moves: *moves, period: unit(*period) }
            }
        }
    }
}

/// A flag as the model saw it fall, in the model's unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Flag {
    pub at: u64,
    pub period: u32,
    pub sequence: u32,
}

/// Why the model refused a call.
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

/// How time passes between calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Advance {
    /// One unit at a time, looking for a boundary after each (a firmware's
    /// 1 kHz main loop).
    Tick,
    /// Straight to the next boundary: between two, the running display
    /// only counts down, so how far nothing changes is known.
    Skip,
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
    /// Time this display ran during the move in progress (Bronstein).
    move_time: u64,
    /// Flagged in the final period: shows 0 for good (until an arbiter
    /// gives it time again).
    frozen: bool,
    flag: Option<Flag>,
}

/// What an arbiter's replacement clock shows, per side (6.11), in the
/// model's unit: the big number, move counter, period, and in Canadian
/// overtime the moves already made in the period.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    pub shown: [u64; 2],
    pub moves: [u32; 2],
    pub period: [u32; 2],
    pub period_moves: [u32; 2],
}

/// The clock of the rules: two displays, one running (6.1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Model {
    rules: Rules,
    advance: Advance,
    state: State,
    now: u64,
    white: Face,
    black: Face,
    flags_fallen: u32,
    /// What the latest press did besides counting the move.
    last_move: MoveRules,
}

/// What a press did besides counting the move, each as the rules name it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveRules {
    /// 6.2 Fischer mode: the increment was added.
    pub increment: bool,
    /// 6.2b time-delay mode: the move was made within its delay.
    pub delay_unused: bool,
    /// 6.2 Bronstein mode: the whole move's time came back (it was not
    /// longer than the bonus)…
    pub bronstein_whole_move: bool,
    /// …or the bonus, all of it.
    pub bronstein_capped: bool,
    /// 6.2b: stages whose move count this move completed.
    pub stages_by_moves: u32,
    /// Byo-yomi: a move within the period; it starts afresh.
    pub byo_yomi_renewed: bool,
    /// Canadian overtime: the period's moves were made; it starts afresh.
    pub canadian_reset: bool,
    /// Hourglass: the move took time, which went to the opponent.
    pub hourglass_transfer: bool,
}

impl Model {
    pub(crate) fn new(control: &TimeControl, unit: fn(Duration) -> u64, advance: Advance) -> Model {
        let rules = Rules::of(control, unit);
        let initial = match &rules {
            Rules::Staged { stages, .. } => stages[0].time,
            Rules::Hourglass { time } => *time,
            Rules::ByoYomi { main, .. } | Rules::Canadian { main, .. } => *main,
        };
        let face = Face { main: initial, ..Face::default() };
        Model {
            rules,
            advance,
            state: State::NotStarted,
            now: 0,
            white: face,
            black: face,
            flags_fallen: 0,
            last_move: MoveRules::default(),
        }
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

    /// 6.5: White's clock starts.
    pub(crate) fn start(&mut self, at: u64) -> Result<(), TickError> {
        if self.state != State::NotStarted {
            return Err(TickError::AlreadyStarted);
        }
        self.run_until(at)?;
        self.state = State::Running(Side::White);
        self.begin_move(Side::White);
        self.service(Side::White);
        Ok(())
    }

    /// 6.8a: the player who moved stops his clock and starts the other.
    pub(crate) fn press(&mut self, side: Side, at: u64) -> Result<(), TickError> {
        match self.state {
            State::Running(running) if running == side => {}
            State::Running(_) => return Err(TickError::NotRunning),
            State::Paused(_) => return Err(TickError::Paused),
            State::NotStarted => return Err(TickError::NotStarted),
        }
        self.run_until(at)?;
        self.end_move(side);
        let next = side.opponent();
        self.state = State::Running(next);
        self.begin_move(next);
        self.service(next);
        Ok(())
    }

    /// 6.13a: the arbiter stops the clocks.
    pub(crate) fn pause(&mut self, at: u64) -> Result<(), TickError> {
        let side = match self.state {
            State::Running(side) => side,
            State::Paused(_) => return Err(TickError::Paused),
            State::NotStarted => return Err(TickError::NotStarted),
        };
        self.run_until(at)?;
        self.state = State::Paused(side);
        Ok(())
    }

    /// 6.13c: play resumes; the same display runs on, its move unfinished.
    pub(crate) fn resume(&mut self, at: u64) -> Result<(), TickError> {
        let side = match self.state {
            State::Paused(side) => side,
            State::Running(_) => return Err(TickError::NotPaused),
            State::NotStarted => return Err(TickError::NotStarted),
        };
        self.run_until(at)?;
        self.state = State::Running(side);
        self.service(side);
        Ok(())
    }

    /// 6.14, 13.4: the arbiter adds time to a display or takes it away
    /// (never below zero). The big number changes: main time, or in
    /// overtime the current period's time.
    pub(crate) fn adjust(
        &mut self,
        side: Side,
        adjustment: TimeAdjustment,
        unit: u64,
        at: u64,
    ) -> Result<(), TickError> {
        self.run_until(at)?;
        let shown = self.shown(side);
        let shown = match adjustment {
            TimeAdjustment::Add(amount) => shown.saturating_add(amount.as_us() / unit),
            TimeAdjustment::Subtract(amount) => shown.saturating_sub(amount.as_us() / unit),
        };
        self.set_shown(side, shown);
        Ok(())
    }

    /// 6.11, 6.14: the arbiter sets a display's big number.
    pub(crate) fn set_time(&mut self, side: Side, shown: u64, at: u64) -> Result<(), TickError> {
        self.run_until(at)?;
        self.set_shown(side, shown);
        Ok(())
    }

    /// 6.14: the arbiter corrects the move counter. A stage only changes at
    /// a press, when the player completes a move (6.2a counts moves made).
    pub(crate) fn set_moves(&mut self, side: Side, moves: u32, at: u64) -> Result<(), TickError> {
        self.run_until(at)?;
        self.face_mut(side).moves = moves;
        Ok(())
    }

    /// 6.11: a new clock, showing what the arbiter decided; no flag shows
    /// on it, and the display that ran keeps running. The flags are still
    /// the game's: the next to fall is numbered after those before.
    pub(crate) fn replace(&mut self, settings: &Settings, at: u64) -> Result<(), TickError> {
        self.run_until(at)?;
        let rules = self.rules;
        for (index, side) in Side::BOTH.into_iter().enumerate() {
            let face = self.face_mut(side);
            face.moves = settings.moves[index];
            face.period = settings.period[index];
            face.flag = None;
            face.frozen = false;
            face.period_moves = match rules {
                Rules::Canadian { .. } if face.period > 0 => settings.period_moves[index],
                _ => 0,
            };
            let on_move = matches!(self.state, State::Running(running) | State::Paused(running) if running == side);
            if on_move {
                // The new clock starts this player's move afresh.
                self.begin_move(side);
            }
            self.set_shown(side, settings.shown[index]);
        }
        Ok(())
    }

    /// Lets the time up to `at` pass (an observation, not a call).
    pub(crate) fn run_until(&mut self, at: u64) -> Result<(), TickError> {
        if at < self.now {
            return Err(TickError::TimeWentBackwards);
        }
        let State::Running(side) = self.state else {
            // No display runs: the time passes and changes nothing.
            self.now = at;
            return Ok(());
        };
        // Time never changes which display runs (only calls do). A display
        // frozen at zero after its final flag changes no more, however long
        // its player takes: the time left passes in one step.
        while self.now < at {
            if self.face(side).frozen {
                // Still the player's move: Bronstein counts its whole time
                // should an arbiter give the display time again.
                self.face_mut(side).move_time += at - self.now;
                self.now = at;
                break;
            }
            match self.advance {
                Advance::Tick => self.run_ticks(side, at),
                Advance::Skip => self.skip(side, at),
            }
            self.service(side);
        }
        Ok(())
    }

    /// Ticks `side`'s display one unit at a time up to `at`, stopping early
    /// after a tick that makes a transition due. The main loop's inner
    /// part, on copies of the two faces and the time: the counters stay in
    /// registers instead of going through memory at every tick, and the
    /// kind of display is read once.
    fn run_ticks(&mut self, side: Side, at: u64) {
        let kind = Kind::of(&self.rules);
        let (mut face, mut other) = (*self.face(side), *self.face(side.opponent()));
        let mut now = self.now;
        while now < at {
            now += 1;
            run_for(kind, &mut face, &mut other, 1);
            if transition_due(kind, &face) {
                break;
            }
        }
        self.now = now;
        *self.face_mut(side) = face;
        *self.face_mut(side.opponent()) = other;
    }

    /// Lets `side`'s display run up to `at` or to its next boundary,
    /// whichever comes first, in one step: until a boundary the display
    /// only counts down (and an hourglass's other half only up).
    fn skip(&mut self, side: Side, at: u64) {
        let kind = Kind::of(&self.rules);
        // One step: the faces are changed in place, not copied out and back.
        let (face, other) = match side {
            Side::White => (&mut self.white, &mut self.black),
            Side::Black => (&mut self.black, &mut self.white),
        };
        let step = (at - self.now).min(time_to_boundary(kind, face));
        run_for(kind, face, other, step);
        self.now += step;
    }

    // ---- observations --------------------------------------------------

    pub(crate) fn now(&self) -> u64 {
        self.now
    }

    /// The big number: main time, or in overtime the current period's time.
    pub(crate) fn shown(&self, side: Side) -> u64 {
        let face = self.face(side);
        if self.in_overtime(face) {
            face.period_left
        } else {
            face.main
        }
    }

    pub(crate) fn moves(&self, side: Side) -> u32 {
        self.face(side).moves
    }

    /// Byo-yomi: the periods still to use, the one running included; none
    /// once the last has run out. 0 under other controls.
    pub(crate) fn periods_left(&self, side: Side) -> u32 {
        let face = self.face(side);
        match self.rules {
            Rules::ByoYomi { periods, .. } if !face.frozen => {
                // Main time is period 0, the first overtime period 1.
                periods.saturating_sub(face.period.saturating_sub(1))
            }
            Rules::ByoYomi { .. } | Rules::Staged { .. } | Rules::Hourglass { .. } | Rules::Canadian { .. } => 0,
        }
    }

    /// Canadian overtime: the moves still to make in the running period;
    /// 0 in main time and under other controls.
    pub(crate) fn period_moves_left(&self, side: Side) -> u32 {
        let face = self.face(side);
        match self.rules {
            Rules::Canadian { moves, .. } if self.in_overtime(face) => moves.saturating_sub(face.period_moves),
            Rules::Canadian { .. } | Rules::Staged { .. } | Rules::Hourglass { .. } | Rules::ByoYomi { .. } => 0,
        }
    }

    /// 6.2b time-delay mode: the extra time left for the move in progress,
    /// which only the running display shows.
    pub(crate) fn delay_shown(&self, side: Side) -> u64 {
        if self.running() == Some(side) {
            self.face(side).delay_left
        } else {
            0
        }
    }

    pub(crate) fn period(&self, side: Side) -> u32 {
        self.face(side).period
    }

    pub(crate) fn period_moves(&self, side: Side) -> u32 {
        self.face(side).period_moves
    }

    pub(crate) fn flag(&self, side: Side) -> Option<Flag> {
        self.face(side).flag
    }

    pub(crate) fn running(&self) -> Option<Side> {
        match self.state {
            State::Running(side) => Some(side),
            State::NotStarted | State::Paused(_) => None,
        }
    }

    pub(crate) fn is_paused(&self) -> bool {
        matches!(self.state, State::Paused(_))
    }

    // ---- the main loop's work ------------------------------------------

    /// Byo-yomi or Canadian, main time over: the big number is the period's.
    fn in_overtime(&self, face: &Face) -> bool {
        matches!(self.rules, Rules::ByoYomi { .. } | Rules::Canadian { .. }) && face.period > 0
    }

    /// The arbiter's number on `side`'s big display. Time above zero takes
    /// the flag down (the display is no longer expired); a running display
    /// set to zero flags at once, a waiting one when it next runs.
    fn set_shown(&mut self, side: Side, shown: u64) {
        let overtime = self.in_overtime(self.face(side));
        let face = self.face_mut(side);
        if overtime {
            face.period_left = shown;
        } else {
            face.main = shown;
        }
        if shown > 0 {
            face.flag = None;
            face.frozen = false;
        }
        if self.state == State::Running(side) {
            self.service(side);
        }
    }

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
        let mut due = 0u32;
        for stage in stages.get(..=index as usize)? {
            due = due.saturating_add(stage.moves?);
        }
        Some(due)
    }

    /// Applies every transition due now on the running display.
    fn service(&mut self, side: Side) {
        while transition_due(Kind::of(&self.rules), self.face(side)) {
            self.apply_transition(side);
        }
    }

    /// The one transition due: 6.3 a flag falls (in a stage before the
    /// last, the next stage's time is added, as on a mechanical clock);
    /// in byo-yomi and Canadian overtime, a period begins or is lost.
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
                // Main time over: the first period begins; a period lost
                // before the last: the next begins.
                if face.period == 0 || face.period < periods {
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
        let flag = Flag { at: self.now, period, sequence: self.flags_fallen };
        self.face_mut(side).flag = Some(flag);
    }

    fn freeze(&mut self, side: Side) {
        let face = self.face_mut(side);
        face.frozen = true;
        face.main = 0;
        face.period_left = 0;
        face.delay_left = 0;
    }

    /// The display starts running for a new move (6.2b: the fixed extra
    /// time of time-delay mode comes with every move).
    fn begin_move(&mut self, side: Side) {
        let stage = self.stage(self.face(side).period);
        let face = self.face_mut(side);
        face.move_time = 0;
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
        // What the press reads of the rules, not a copy of them all (the
        // stages are most of the model's size).
        let rule = match self.rules {
            Rules::Staged { .. } => PressRule::Staged,
            Rules::Hourglass { .. } => PressRule::Hourglass,
            Rules::ByoYomi { period, .. } => PressRule::ByoYomi { period },
            Rules::Canadian { moves, period, .. } => PressRule::Canadian { moves, period },
        };
        let stage = self.stage(self.face(side).period);
        let face = self.face_mut(side);
        face.moves = face.moves.saturating_add(1);
        let used = face.move_time;
        let delay_left = face.delay_left;
        face.move_time = 0;
        face.delay_left = 0;
        let mut done = MoveRules::default();
        if face.frozen {
            self.last_move = done;
            return;
        }
        match rule {
            PressRule::Staged => {
                match stage.expect("current stage").per_move {
                    PerMove::Nothing => {}
                    // 6.2b: time-delay mode never banks.
                    PerMove::Delay(_) => done.delay_unused = delay_left > 0,
                    PerMove::Increment(amount) => {
                        face.main += amount;
                        done.increment = true;
                    }
                    // Bronstein: the time used for the move comes back, up to the bonus.
                    PerMove::Bronstein(amount) => {
                        face.main += used.min(amount);
                        done.bronstein_whole_move = used <= amount;
                        done.bronstein_capped = used > amount;
                    }
                }
                done.stages_by_moves = self.open_stages_by_count(side);
            }
            PressRule::Hourglass => done.hourglass_transfer = used > 0,
            PressRule::ByoYomi { period } => {
                if face.period > 0 {
                    face.period_left = period;
                    done.byo_yomi_renewed = true;
                }
            }
            PressRule::Canadian { moves, period } => {
                if face.period > 0 {
                    face.period_moves += 1;
                    if face.period_moves >= moves {
                        face.period_moves = 0;
                        face.period_left = period;
                        done.canadian_reset = true;
                    }
                }
            }
        }
        self.last_move = done;
    }

    /// What the latest press did besides counting the move.
    pub(crate) fn last_move(&self) -> MoveRules {
        self.last_move
    }

    /// 6.2b: once a stage's moves are made, the next stage's time is added
    /// to what was saved. Returns how many stages were completed.
    fn open_stages_by_count(&mut self, side: Side) -> u32 {
        let mut opened = 0;
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
            opened += 1;
        }
        opened
    }
}

/// What of the rules a press reads.
#[derive(Clone, Copy)]
enum PressRule {
    Staged,
    Hourglass,
    ByoYomi { period: u64 },
    Canadian { moves: u32, period: u64 },
}

/// What running does to a display, by kind of control.
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

/// `time` units of `face`'s display running (`other` is the waiting one),
/// no boundary crossed on the way.
#[inline]
fn run_for(kind: Kind, face: &mut Face, other: &mut Face, time: u64) {
    face.move_time += time;
    if face.frozen {
        return;
    }
    match kind {
        Kind::Staged => {
            let from_delay = face.delay_left.min(time);
            face.delay_left -= from_delay;
            face.main = face.main.checked_sub(time - from_delay).expect("a staged display ran below zero");
        }
        Kind::Hourglass => {
            face.main = face.main.checked_sub(time).expect("an hourglass ran below zero");
            if !other.frozen {
                other.main += time;
            }
        }
        Kind::Overtime if face.period == 0 => {
            face.main = face.main.checked_sub(time).expect("main time ran below zero");
        }
        Kind::Overtime => {
            face.period_left = face.period_left.checked_sub(time).expect("a period ran below zero");
        }
    }
}

/// How long the running `face` can run before it reaches a boundary.
#[inline]
fn time_to_boundary(kind: Kind, face: &Face) -> u64 {
    match kind {
        Kind::Staged => face.delay_left + face.main,
        Kind::Hourglass => face.main,
        Kind::Overtime if face.period == 0 => face.main,
        Kind::Overtime => face.period_left,
    }
}

/// Whether the running `face` has reached a boundary.
#[inline]
fn transition_due(kind: Kind, face: &Face) -> bool {
    !face.frozen && time_to_boundary(kind, face) == 0
}
