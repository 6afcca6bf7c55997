//! Press schedules: the presses bench makes on a board for one game of a
//! scenario. They are not derived here: the game is `bench sim`'s
//! ([`bench_sim::game::play`]), played on a perfect device
//! ([`bench_sim::scenario::Scenario::with_perfect_device`]: the firmware
//! under test is the device) with its input log kept, so sim and HIL have
//! one game engine and the same (scenario, seed, game) gives the same game.
//!
//! **Derivation** (part of the reproducibility contract; changing it changes
//! every schedule):
//!
//! - The game: the scenario's players, board, rules and flag notices, as
//!   `bench sim` plays them, seeded by (seed, game); both flags down are
//!   ruled as the scenario's arbiter rules them (`arbiter.clock_shows_first_flag`,
//!   6.10 or 6.12), whatever the clock under test shows: the scenario's rule
//!   is the rule, so HIL's game ends as `bench sim`'s. A clock that shows the
//!   order plays an arbiter's games who does not read it (it does not rule,
//!   and what it must show is the same); a scenario whose arbiter reads an
//!   order the clock does not show is not played on it
//!   ([`Games::unsupported`]).
//! - Presses: the log's presses that complete a move, at their true
//!   instants (µs after the start, White's clock starting at 0, 6.5).
//! - The end, result and flags: the logged ending of the device game; the
//!   moves: the presses per side (a move that ends the game on the board
//!   needs no press, 6.8a).
//! - The arbiter's acts: pauses and resumes as presses of the pause button;
//!   adjustments, settings and replacements as commands
//!   ([`ScheduledCommand`]: `adjust`, `set`, `moves`, `replace`), sent by
//!   the session at their guest instants and replayed into the model by
//!   the comparison.
//! - HIL-only draws, per press in order, from the (seed, game) streams
//!   `Device`, how long the press is held, and `Bounce`, its contact bounce
//!   ([`draw_bounce`], made on the harness's side of the button).
//!
//! A schedule is what bench *means* to press. The run presses as close to it
//! as the board allows (a press lands after the previous one is released, so
//! presses closer together than a hold are pushed later); the comparison
//! replays the presses the firmware saw, at its own instants, so a late press
//! never makes a false mismatch.

use std::fmt;

use bench_contract::{Adjustment, Command, ReplaceSide, COMMAND_LINE_MAX};
use bench_sim::defects::DefectSet;
use bench_sim::game::{self, EndedBy, GameSpec, Input, InputLog, Script, ScriptedPress};
use bench_sim::outcome::{GameResult, Reason};
use bench_sim::rng::{Actor, Stream};
use bench_sim::sample;
use bench_sim::sample::Ratio;
use bench_sim::scenario::{Control, Occasional, Scenario};
use chessclock::{
    Article, BySide, ClockError, Duration, FlagFall, GameEnd, Instant, Noting, Replacement, Side, TimeAdjustment,
    TransitionSink,
};

use crate::needs::ArbiterFunction;
use crate::target::{Bounce, ButtonId, BOUNCE_EDGES_MAX};

/// How long a press is held, drawn per press (guest time).
pub const HOLD_MIN_US: u64 = 30_000;
pub const HOLD_MAX_US: u64 = 60_000;

/// Share of presses that bounce when the scenario says nothing
/// (`device.bounce`): enough to show in every game of a dozen moves.
pub const BOUNCE_CHANCE_DEFAULT: Ratio = Ratio { numerator: 1, denominator: 4 };
/// How long the contact opens in one chatter, ms: the extra closing edges
/// come 2–4 ms apart.
pub const BOUNCE_OPEN_MIN_MS: u64 = 1;
pub const BOUNCE_OPEN_MAX_MS: u64 = 2;
/// The whole chatter stays this close to the first edge, ms. Edges further
/// apart than a firmware's debounce window are real presses, not bounce;
/// 12 ms is well inside the common 20 ms window.
pub const BOUNCE_SPAN_MAX_MS: u64 = 12;

/// One press the schedule asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledPress {
    /// Guest time after the game's start (the `start` command's Ack), µs.
    pub offset_us: u64,
    /// The player who presses (the mover); White for the arbiter's
    /// pause button.
    pub side: Side,
    /// The button: the player's own, or the pause button (6.13: the
    /// arbiter stops the clocks, or starts them again).
    pub button: ButtonId,
    /// The mover's move number (1-based) this press completes; 0 for the
    /// pause button.
    pub move_number: u32,
    /// How long the button is held down after its last closing edge, guest µs.
    pub hold_us: u64,
    /// Contact bounce before the press settles (none on most presses).
    pub bounce: Bounce,
}

/// An arbiter command the schedule asks for, sent on the down channel
/// (contract 3, `hil/CONTRACT.md` section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArbiterCommand {
    /// `adjust w +US`: the arbiter gives a side time or takes it away (6.14, 13.4).
    Adjust { side: Side, adjustment: TimeAdjustment },
    /// `moves w N`: the arbiter sets a side's completed moves (6.14).
    SetMoves { side: Side, moves: u32 },
    /// `set w US`: the arbiter sets a side's big number (6.14).
    SetTime { side: Side, time: Duration },
    /// `replace w … b …`: the arbiter replaces the clock and sets both
    /// sides' numbers (6.11).
    Replace { settings: Replacement },
}

impl ArbiterCommand {
    /// The command as the contract's crate writes and parses it.
    pub fn command(&self) -> Command<'static> {
        let side = |side: Side| match side {
            Side::White => bench_contract::Side::White,
            Side::Black => bench_contract::Side::Black,
        };
        match *self {
            ArbiterCommand::Adjust { side: adjusted, adjustment } => Command::AdjustTime {
                side: side(adjusted),
                adjustment: match adjustment {
                    TimeAdjustment::Add(amount) => Adjustment::Add(amount.as_us()),
                    TimeAdjustment::Subtract(amount) => Adjustment::Subtract(amount.as_us()),
                },
            },
            ArbiterCommand::SetMoves { side: set, moves } => Command::SetMoves { side: side(set), moves },
            ArbiterCommand::SetTime { side: set, time } => Command::SetTime { side: side(set), time_us: time.as_us() },
            ArbiterCommand::Replace { settings } => {
                let numbers = |side| ReplaceSide {
                    main_us: settings.main.get(side).as_us(),
                    moves: *settings.moves.get(side),
                    period: *settings.period.get(side),
                    period_moves: *settings.period_moves.get(side),
                };
                Command::Replace { white: numbers(Side::White), black: numbers(Side::Black) }
            }
        }
    }

    /// The command line, `adjust b -60000000`, for people to read.
    pub fn line(&self) -> String {
        encoded_line(&self.command()).unwrap_or_else(|| format!("{self:?}"))
    }

    /// The Capabilities function it needs.
    pub fn function(&self) -> ArbiterFunction {
        match self {
            ArbiterCommand::Adjust { .. } => ArbiterFunction::AdjustTime,
            ArbiterCommand::SetMoves { .. } => ArbiterFunction::SetMoves,
            ArbiterCommand::SetTime { .. } => ArbiterFunction::SetTime,
            ArbiterCommand::Replace { .. } => ArbiterFunction::Replace,
        }
    }

    /// The same act on the model clock, its transitions handed on.
    pub fn apply<S: TransitionSink + ?Sized>(&self, clock: &mut Noting<'_, S>, at: Instant) -> Result<(), ClockError> {
        match *self {
            ArbiterCommand::Adjust { side, adjustment } => clock.adjust_time(side, adjustment, at),
            ArbiterCommand::SetMoves { side, moves } => clock.set_moves(side, moves, at),
            ArbiterCommand::SetTime { side, time } => clock.set_time(side, time, at),
            ArbiterCommand::Replace { settings } => clock.replace(settings, at),
        }
    }
}

/// `command`'s line as the contract's crate writes it, without its
/// newline; `None` when it is longer than a line may be.
pub(crate) fn encoded_line(command: &Command<'_>) -> Option<String> {
    let mut bytes = [0u8; COMMAND_LINE_MAX + 1];
    let len = command.encode(&mut bytes)?;
    Some(String::from_utf8_lossy(bytes.get(..len.saturating_sub(1)).unwrap_or_default()).into_owned())
}

/// One arbiter command and when the schedule asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledCommand {
    /// Guest time after the game's start, µs.
    pub offset_us: u64,
    /// Presses of [`Schedule::presses`] that come before it in the game: it
    /// is sent once they are made, and the next press waits for it.
    pub after_presses: usize,
    pub command: ArbiterCommand,
}

/// Why the schedule ends where it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduleEnd {
    /// A move ended the game on the board (5.1/5.2); that move has no press.
    Board { side: Side, move_number: u32, end: GameEnd },
    /// Both players made the scenario's `board.max_moves`.
    MoveBound,
    /// A noticed flag (or both flags) was ruled on and the game is over.
    Flag { ruling: chessclock::Ruling },
    /// A player (or both) was absent beyond the default time (6.7).
    DefaultTime { ruling: chessclock::Ruling },
}

impl fmt::Display for ScheduleEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleEnd::Board { side, move_number, end } => {
                write!(f, "{side}'s move {move_number} ends the game on the board ({end:?}): {}", result(end.ruling()))
            }
            ScheduleEnd::MoveBound => f.write_str("move bound reached"),
            ScheduleEnd::Flag { ruling } => write!(f, "the arbiter rules on a flag: {}", result(*ruling)),
            ScheduleEnd::DefaultTime { ruling } => write!(f, "absent beyond the default time: {}", result(*ruling)),
        }
    }
}

/// A ruling as results are written: `1-0 (6.10)`.
fn result(ruling: chessclock::Ruling) -> GameResult {
    GameResult { outcome: ruling.outcome, reason: Reason::Article(ruling.article) }
}

/// The presses for one game, and what the model expects of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub scenario: String,
    /// The time control: its text is what the firmware is sent (`tc
    /// TEXT`), its parsed form what the game is judged by.
    pub control: Control,
    pub seed: u64,
    pub game: u64,
    pub presses: Vec<ScheduledPress>,
    /// The arbiter's commands (adjust time, set moves), in the game's order.
    pub commands: Vec<ScheduledCommand>,
    /// Guest time after the start at which the game is over, µs: the last
    /// press, the move that ended it on the board, or the flag notice.
    pub end_us: u64,
    pub end: ScheduleEnd,
    /// The game's result on the model clock, as the simulator names results.
    pub result: GameResult,
    /// The rulings made in the game, in order, the final one included (a
    /// 6.12 a) that let play go on too): what its result classes count.
    pub applied: Vec<Article>,
    /// Whether the scenario's arbiter rules on both flags by the order the
    /// clock shows (6.10) or as unknown (6.12): the scenario's
    /// `arbiter.clock_shows_first_flag`, which the comparison follows too.
    pub shows_flag_order: bool,
    /// The result classes the scenario's `[expect]` allows in no game
    /// (`max_percent = 0`): the one share a single game can break.
    pub classes_excluded: Vec<String>,
    /// Flags the model clock showed by `end_us`.
    pub flags: Vec<FlagFall>,
    /// Completed moves per side at the end (presses, not board moves).
    pub moves: BySide<u32>,
}

impl Schedule {
    /// Guest time the run must cover after the start: the end, or the last
    /// press and its hold, whichever is later.
    pub fn duration_us(&self) -> u64 {
        let last = self.presses.last().map_or(0, |press| press.offset_us.saturating_add(press.hold_us));
        self.end_us.max(last)
    }
}

/// Why a schedule could not be made.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// A correspondence (postal) scenario: no clock to press.
    #[error(
        "`{scenario}` is a correspondence (postal) scenario: there is no clock to press; \
         bench hil plays over-the-board scenarios"
    )]
    Correspondence { scenario: String },
}

/// The games of a run: their schedules are made one at a time, as each is
/// played, so a run's memory and its start do not grow with `--games`
/// (made up front, 5 000 000 games ran out of memory before a missing
/// probe or image was reported).
#[derive(Clone, Copy, Debug)]
pub struct Games<'a> {
    pub scenario: &'a Scenario,
    pub seed: u64,
    /// A replay file's script: its games play the script's moves and
    /// arbiter acts instead of drawing them (its device faults are the
    /// simulator's, not the firmware's, and are left out).
    pub script: Option<&'a Script>,
    /// The games this run plays: every one of `0..N`, or a `--shard`'s.
    pub slice: GameSlice,
}

/// Games `first`, `first + step`, … below `end`: every game of a run, a
/// `--shard`'s, a farm board's. Lazy: nothing is held per game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSlice {
    pub first: u64,
    pub step: u64,
    /// The run's games are `0..end`, this slice or not.
    pub end: u64,
}

impl GameSlice {
    /// Every game of `0..count`.
    pub fn all(count: u64) -> GameSlice {
        GameSlice { first: 0, step: 1, end: count }
    }

    /// Part `index` of `parts` (0-based): the slice's games at positions
    /// `index`, `index + parts`, … So game `g` of a run is in part
    /// `g mod parts`, and a part of a part is a slice again: shard `I/N` of
    /// a farm's boards, board `b` of `B`, plays the games
    /// `g ≡ (I − 1) + N·b (mod N·B)`.
    pub fn part(self, index: u64, parts: u64) -> GameSlice {
        let first = self.step.checked_mul(index).and_then(|offset| self.first.checked_add(offset));
        GameSlice {
            first: first.filter(|_| index < parts).unwrap_or(self.end).min(self.end),
            step: self.step.saturating_mul(parts.max(1)),
            end: self.end,
        }
    }

    pub fn iter(self) -> impl Iterator<Item = u64> {
        (self.first..self.end).step_by(usize::try_from(self.step.max(1)).unwrap_or(usize::MAX))
    }

    /// How many games the slice holds.
    pub fn len(self) -> u64 {
        match self.first < self.end {
            true => (self.end - 1 - self.first) / self.step.max(1) + 1,
            false => 0,
        }
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The slice's games from its `skip`-th on, for a message: every one
    /// when few, else the first ones and the last (worked out, not counted
    /// to: a slice can hold 2^64 / N games).
    pub fn describe(self, skip: u64) -> String {
        const LISTED_MAX: usize = 8;
        let step = self.step.max(1);
        let rest = skip.checked_mul(step).and_then(|offset| self.first.checked_add(offset)).unwrap_or(self.end);
        let rest = GameSlice { first: rest.min(self.end), ..self };
        let first: Vec<u64> = rest.iter().take(LISTED_MAX).collect();
        let listed = first.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
        let Some(&shown) = first.last() else { return listed };
        // The slice's last game: the largest below `end` that is `shown`
        // plus a multiple of the step.
        let last = shown + (self.end - 1 - shown) / step * step;
        match last {
            last if last == shown => listed,
            last if last == shown + step => format!("{listed}, {last}"),
            last if step > 1 => format!("{listed}, … {last} (one game in {step})"),
            last => format!("{listed}, … {last}"),
        }
    }
}

impl<'a> Games<'a> {
    /// Games `0..count` of `seed`, every one.
    pub fn all(scenario: &'a Scenario, seed: u64, count: u64) -> Games<'a> {
        Games { scenario, seed, script: None, slice: GameSlice::all(count) }
    }

    /// The run's games, `0..count`, this slice or not.
    pub fn count(&self) -> u64 {
        self.slice.end
    }
    /// The schedule of game `game`.
    pub fn schedule(&self, game: u64) -> Result<Schedule, ScheduleError> {
        let shows_flag_order = self.scenario.arbiter.clock_shows_first_flag;
        schedule_on(self.scenario, self.seed, game, shows_flag_order, self.script)
    }

    /// What the scenario needs that a firmware with `capabilities` (its
    /// Capabilities record's if `announced`, else assumed before contract
    /// 3), on a board with or without a `pause_button`, leaves out: the
    /// games are skipped, not played, when there is any.
    pub fn unsupported(
        &self,
        capabilities: &bench_contract::Capabilities,
        announced: bool,
        pause_button: bool,
    ) -> Option<crate::needs::Unsupported> {
        let control = &self.scenario.control;
        let needs = arbiter_needs(self.scenario);
        let mut why = crate::needs::unsupported(capabilities, &control.text, &control.control, &needs, pause_button)
            .unwrap_or_else(|| crate::needs::Unsupported::nothing(&control.text));
        why.announced = announced;
        why.flag_order_not_shown = reads_flag_order(self.scenario) && !capabilities.shows_flag_order;
        why.if_any()
    }
}

/// Whether the scenario's arbiter can find both flags down and rule on
/// them by the order the clock shows (6.10): it reads the order
/// (`clock_shows_first_flag`), and a flag can stay unnoticed, or be
/// noticed late, while the other falls. With every flag noticed at once
/// the first is ruled on alone and the order never decides.
pub fn reads_flag_order(scenario: &Scenario) -> bool {
    let arbiter = &scenario.arbiter;
    let every_flag_noticed = arbiter.flag_noticed.numerator == arbiter.flag_noticed.denominator;
    let noticed_at_once = arbiter.notice_delay.chance.is_never() || arbiter.notice_delay.max_ms == 0;
    arbiter.clock_shows_first_flag && !(every_flag_noticed && noticed_at_once)
}

/// The press schedule of game `game` of `scenario` with `seed`: `bench
/// sim`'s game, its arbiter ruling as the scenario says.
pub fn schedule(scenario: &Scenario, seed: u64, game: u64) -> Result<Schedule, ScheduleError> {
    schedule_on(scenario, seed, game, scenario.arbiter.clock_shows_first_flag, None)
}

/// The press schedule of game `game` of `scenario` with `seed`, its arbiter
/// ruling on both flags by their order or not (6.12). Only the scenario's
/// own setting is played ([`schedule`]); the pinned schedules cover both.
fn schedule_on(
    scenario: &Scenario,
    seed: u64,
    game: u64,
    shows_flag_order: bool,
    script: Option<&Script>,
) -> Result<Schedule, ScheduleError> {
    if scenario.correspondence.is_some() {
        return Err(ScheduleError::Correspondence { scenario: scenario.name.clone() });
    }
    let (log, applied) = logged_game(scenario, seed, game, shows_flag_order, script);
    let ending = log.ending.clone().expect("a played over-the-board game has an ending");
    let (presses, commands) = acts(scenario, seed, game, &log, script);
    Ok(Schedule {
        scenario: scenario.name.clone(),
        control: scenario.control.clone(),
        seed,
        game,
        presses,
        commands,
        end_us: ending.at_us,
        end: schedule_end(ending.by),
        result: ending.result,
        applied,
        shows_flag_order,
        classes_excluded: scenario
            .expect
            .result
            .iter()
            .filter(|share| share.max_percent == 0)
            .map(|share| share.class.clone())
            .collect(),
        flags: ending.flags,
        moves: log.moves(),
    })
}

/// The game `bench sim` plays on a perfect device (the firmware under test
/// is the device), with its inputs logged. The arbiter's pauses,
/// adjustments, counter settings, restored positions and clock
/// replacements are played: they reach the firmware as pause-button
/// presses and `adjust`, `moves`, `set` and `replace` commands. With the
/// log, the rulings made in it.
fn logged_game(
    scenario: &Scenario,
    seed: u64,
    game: u64,
    shows_flag_order: bool,
    script: Option<&Script>,
) -> (InputLog, Vec<Article>) {
    let record = perfect_game(scenario, seed, game, shows_flag_order, script);
    (record.inputs.unwrap_or_default(), record.applied)
}

/// The script of game `game`'s schedule: what its players and arbiter
/// chose on the perfect device the schedule is made on. A [`Games`] with
/// it as its script gives the same schedule (`bench hil --shrink` starts
/// from it).
pub fn script_of(scenario: &Scenario, seed: u64, game: u64) -> Script {
    let record = perfect_game(scenario, seed, game, scenario.arbiter.clock_shows_first_flag, None);
    let (presses, _) = acts(scenario, seed, game, &record.inputs.unwrap_or_default(), None);
    let mut script = record.script.unwrap_or_default();
    // Each move's press as drawn, so shrinking can simplify it and a
    // move's press stays its own when others are left out.
    let moves = presses.iter().filter(|press| press.button != ButtonId::Pause);
    for (scripted, press) in script.moves.iter_mut().zip(moves) {
        scripted.press =
            Some(ScriptedPress { hold_us: press.hold_us, bounce_open_ms: press.bounce.open_ms().to_vec() });
    }
    script
}

/// [`logged_game`]'s game, whole.
fn perfect_game(
    scenario: &Scenario,
    seed: u64,
    game: u64,
    shows_flag_order: bool,
    script: Option<&Script>,
) -> game::GameRecord {
    let mut perfect = scenario.with_perfect_device();
    perfect.arbiter.clock_shows_first_flag = shows_flag_order;
    let faultless = script.map(Script::without_faults);
    game::play(GameSpec {
        scenario: &perfect,
        seed,
        game,
        swarm: false,
        trace: false,
        model_oracle: false,
        disabled: DefectSet::NONE,
        record_inputs: true,
        script: faultless.as_ref(),
    })
}

/// The log's acts as the harness makes them: each move's press, with its
/// HIL-only draws (how long it is held, the `Device` stream, and its
/// contact bounce, the `Bounce` stream, one press after the other); each
/// pause and resume as a press of the pause button (no draws: a player's
/// presses keep theirs); each adjustment, setting and replacement as a
/// command.
/// A press that puts a wrong clock right never happens on a perfect device.
/// A move the script says how to press is pressed so (its draws are made
/// all the same, so the moves after it keep theirs).
fn acts(
    scenario: &Scenario,
    seed: u64,
    game: u64,
    log: &InputLog,
    script: Option<&Script>,
) -> (Vec<ScheduledPress>, Vec<ScheduledCommand>) {
    let mut hold_stream = Stream::new(seed, game, Actor::Device);
    let mut bounce_stream = Stream::new(seed, game, Actor::Bounce);
    let mut scripted_presses =
        script.into_iter().flat_map(|script| script.moves.iter().map(|scripted| &scripted.press));
    let mut presses = Vec::new();
    let mut commands = Vec::new();
    for entry in &log.inputs {
        let offset_us = entry.at_us;
        let command = |command| ScheduledCommand { offset_us, after_presses: presses.len(), command };
        match entry.input {
            Input::Press { side, move_number: Some(move_number) } => {
                let mut hold_us = sample::between(&mut hold_stream, HOLD_MIN_US, HOLD_MAX_US);
                let mut bounce = draw_bounce(&mut bounce_stream, scenario.device.bounce);
                if let Some(Some(scripted)) = scripted_presses.next() {
                    hold_us = scripted.hold_us;
                    // The replay file's reader holds a bounce to what `Bounce` takes.
                    bounce = Bounce::new(&scripted.bounce_open_ms).unwrap_or(bounce);
                }
                let button = match side {
                    Side::White => ButtonId::White,
                    Side::Black => ButtonId::Black,
                };
                presses.push(ScheduledPress { offset_us, side, button, move_number, hold_us, bounce });
            }
            Input::Pause | Input::Resume => presses.push(ScheduledPress {
                offset_us,
                side: Side::White,
                button: ButtonId::Pause,
                move_number: 0,
                hold_us: HOLD_MIN_US,
                bounce: Bounce::NONE,
            }),
            Input::Adjust { side, adjustment } => commands.push(command(ArbiterCommand::Adjust { side, adjustment })),
            Input::SetTime { side, time } => commands.push(command(ArbiterCommand::SetTime { side, time })),
            Input::SetMoves { moves } => {
                for side in Side::BOTH {
                    commands.push(command(ArbiterCommand::SetMoves { side, moves: *moves.get(side) }));
                }
            }
            // The replacement clock runs the side the firmware's runs: the
            // device is perfect, so the two agree.
            Input::Replace { settings, running: _ } => commands.push(command(ArbiterCommand::Replace { settings })),
            Input::Press { move_number: None, .. } => {}
        }
    }
    (presses, commands)
}

/// The arbiter functions `scenario`'s games use (its habits), which a
/// firmware must announce to play them.
pub fn arbiter_needs(scenario: &Scenario) -> Vec<ArbiterFunction> {
    let habits = &scenario.arbiter;
    let mut needs = Vec::new();
    if !habits.pause.chance.is_never() {
        needs.push(ArbiterFunction::Pause);
    }
    if !habits.adjust.chance.is_never() {
        needs.push(ArbiterFunction::AdjustTime);
    }
    if !habits.restore.is_never() {
        needs.push(ArbiterFunction::SetTime);
    }
    if !habits.set_moves.is_never() || !habits.restore.is_never() {
        needs.push(ArbiterFunction::SetMoves);
    }
    if !habits.replace_clock.is_never() {
        needs.push(ArbiterFunction::Replace);
    }
    needs
}

/// How the logged game ended, as schedules name it.
fn schedule_end(by: EndedBy) -> ScheduleEnd {
    match by {
        EndedBy::Board { side, move_number, end } => ScheduleEnd::Board { side, move_number, end },
        EndedBy::MoveBound | EndedBy::EventBound => ScheduleEnd::MoveBound,
        EndedBy::Flag { ruling } => ScheduleEnd::Flag { ruling },
        EndedBy::DefaultTime { ruling } => ScheduleEnd::DefaultTime { ruling },
    }
}

/// The contact bounce of one press: with the scenario's `device.bounce`
/// chance ([`BOUNCE_CHANCE_DEFAULT`] when it has none), 1 to
/// [`BOUNCE_EDGES_MAX`] chatters of [`BOUNCE_OPEN_MIN_MS`]–[`BOUNCE_OPEN_MAX_MS`]
/// each, within the scenario's `max_ms` (at most [`BOUNCE_SPAN_MAX_MS`]) of
/// the first edge. The scenario's `min_ms` does not apply: its bounce edges
/// may come later than a debounce window, which makes them presses.
pub fn draw_bounce(stream: &mut Stream, scenario_bounce: Occasional) -> Bounce {
    let (chance, span_max_ms) = if scenario_bounce.chance.is_never() {
        (BOUNCE_CHANCE_DEFAULT, BOUNCE_SPAN_MAX_MS)
    } else {
        (scenario_bounce.chance, scenario_bounce.max_ms.clamp(2 * BOUNCE_OPEN_MIN_MS, BOUNCE_SPAN_MAX_MS))
    };
    if !sample::chance(stream, chance) {
        return Bounce::NONE;
    }
    let edges = sample::between(stream, 1, BOUNCE_EDGES_MAX as u64);
    let mut open_ms = Vec::new();
    let mut span_ms = 0;
    for _ in 0..edges {
        let open = sample::between(stream, BOUNCE_OPEN_MIN_MS, BOUNCE_OPEN_MAX_MS);
        if span_ms + 2 * open > span_max_ms {
            break;
        }
        span_ms += 2 * open;
        open_ms.push(u8::try_from(open).unwrap_or(u8::MAX));
    }
    Bounce::new(&open_ms).unwrap_or(Bounce::NONE)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use bench_sim::game::ScriptedMove;

    /// Board `board` of `boards` over games `0..games`.
    fn share(board: u64, boards: u64, games: u64) -> impl Iterator<Item = u64> {
        GameSlice::all(games).part(board, boards).iter()
    }

    #[test]
    fn games_go_round_robin_over_the_parts() {
        let shares = |games: u64, boards: u64| {
            (0..boards).map(|board| share(board, boards, games).collect::<Vec<_>>()).collect::<Vec<_>>()
        };
        assert_eq!(shares(5, 2), vec![vec![0, 2, 4], vec![1, 3]]);
        assert_eq!(shares(2, 3), vec![vec![0], vec![1], vec![]]);
        assert_eq!(shares(3, 1), vec![vec![0, 1, 2]]);
        assert_eq!(share(2, 2, 9).count(), 0, "no board 2 of 2");
        // Lazy: the last of u64::MAX games without holding the others.
        assert_eq!(share(1, 2, u64::MAX).next(), Some(1));
        assert_eq!(share(0, 1, u64::MAX).nth(1_000_000), Some(1_000_000));
        for (games, parts) in [(0, 1), (1, 3), (9, 2), (10, 5), (7, 7), (3, 8)] {
            let lengths: Vec<u64> = (0..parts).map(|part| GameSlice::all(games).part(part, parts).len()).collect();
            let counted: Vec<u64> = (0..parts).map(|part| share(part, parts, games).count() as u64).collect();
            assert_eq!(lengths, counted, "{games} games in {parts}");
        }
    }

    /// Shard I of N on a farm of B boards: board b plays what board
    /// `(I − 1) + N·b` of a farm of N·B boards would, so the shards of a
    /// sweep on farms together play every game once.
    #[test]
    fn a_part_of_a_part_is_the_part_of_the_product() {
        let (games, shards, boards) = (23, 3, 2);
        let mut played = Vec::new();
        for shard in 0..shards {
            for board in 0..boards {
                let part = GameSlice::all(games).part(shard, shards).part(board, boards);
                assert_eq!(part, GameSlice::all(games).part(shard + shards * board, shards * boards));
                played.extend(part.iter());
            }
        }
        played.sort_unstable();
        assert_eq!(played, (0..games).collect::<Vec<_>>());
    }

    #[test]
    fn games_not_played_are_named_briefly_however_many() {
        let describe = |board, boards, games, skip| GameSlice::all(games).part(board, boards).describe(skip);
        assert_eq!(describe(1, 2, 8, 0), "1, 3, 5, 7");
        assert_eq!(describe(1, 2, 8, 1), "3, 5, 7");
        assert_eq!(describe(0, 3, 1_000, 0), "0, 3, 6, 9, 12, 15, 18, 21, … 999 (one game in 3)");
        assert_eq!(describe(0, 1, 10, 1), "1, 2, 3, 4, 5, 6, 7, 8, 9");
        assert_eq!(describe(0, 1, 11, 1), "1, 2, 3, 4, 5, 6, 7, 8, … 10");
        assert_eq!(describe(1, 2, u64::MAX, 0), "1, 3, 5, 7, 9, 11, 13, 15, … 18446744073709551613 (one game in 2)");
        assert_eq!(describe(0, 1, 0, 0), "");
        assert_eq!(describe(0, 1, 4, 9), "");
        assert_eq!(describe(1, 2, 8, u64::MAX), "");
    }

    fn scenario_file(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios").join(format!("{name}.toml"))
    }

    fn load(name: &str) -> Scenario {
        Scenario::load(&scenario_file(name)).expect("the shipped scenario loads")
    }

    /// A schedule's presses as (instant, mover, move number), and its result.
    fn scheduled(schedule: &Schedule) -> (Vec<(u64, String, u32)>, GameResult) {
        let presses =
            schedule.presses.iter().map(|press| (press.offset_us, press.side.to_string(), press.move_number)).collect();
        (presses, schedule.result)
    }

    /// The press instants of `bench sim`'s trace for one game (lines
    /// `<now_us> <Side> move <n>, press`), and the ideal clock's result.
    fn simulated(scenario: &Scenario, seed: u64, game: u64) -> (Vec<(u64, String, u32)>, GameResult) {
        let record = game::play(GameSpec {
            scenario,
            seed,
            game,
            swarm: false,
            trace: true,
            model_oracle: false,
            disabled: DefectSet::default(),
            record_inputs: false,
            script: None,
        });
        let presses = record
            .trace
            .unwrap_or_default()
            .iter()
            .filter_map(|line| {
                let (at, rest) = line.trim_start().split_once(' ')?;
                let rest = rest.strip_suffix(", press")?;
                let (side, number) = rest.split_once(" move ")?;
                Some((at.parse().ok()?, side.to_string(), number.parse().ok()?))
            })
            .collect();
        (presses, record.ideal)
    }

    /// Every shipped over-the-board scenario, sorted by file name.
    fn shipped() -> Vec<Scenario> {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        let scenarios = Scenario::load_folder(&folder).unwrap_or_else(|error| panic!("{error}"));
        assert!(scenarios.len() >= 20, "the shipped scenarios: {}", scenarios.len());
        scenarios.into_iter().filter(|scenario| scenario.correspondence.is_none()).collect()
    }

    /// The games the test below pins: every shipped scenario, three
    /// seeds, six games, on clocks that show the flag order and that do not.
    fn compared_games() -> Vec<(Scenario, u64, u64, bool)> {
        let mut games = Vec::new();
        for scenario in shipped() {
            for seed in [1, 7, 12] {
                for game in 0..6 {
                    games.push((scenario.clone(), seed, game, true));
                    games.push((scenario.clone(), seed, game, false));
                }
            }
        }
        games
    }

    /// FNV-1a over the schedules of [`compared_games`], written out whole
    /// (`Debug`): a change to any schedule fails here. Until the arbiter's
    /// acts were played, this hash was that of the second engine's
    /// schedules, which commit 3880a34 showed equal field by field.
    #[test]
    fn the_shipped_scenarios_schedules_are_pinned() {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for (scenario, seed, game, shows_flag_order) in compared_games() {
            let schedule = schedule_on(&scenario, seed, game, shows_flag_order, None).expect("a schedule");
            for byte in pinned_text(&schedule).bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        assert_eq!(hash, SHIPPED_SCHEDULES_FNV, "{hash:#018x}");
    }

    /// The schedule as its derived `Debug` wrote it before it carried the
    /// rulings made (`applied`) and the scenario's flag order, which come
    /// from the same game: the games pinned stay pinned.
    fn pinned_text(schedule: &Schedule) -> String {
        let Schedule {
            scenario,
            control,
            seed,
            game,
            presses,
            commands,
            end_us,
            end,
            result,
            applied: _,
            shows_flag_order: _,
            classes_excluded: _,
            flags,
            moves,
        } = schedule;
        format!(
            "Schedule {{ scenario: {scenario:?}, control_text: {control_text:?}, seed: {seed:?}, game: {game:?}, \
             presses: {presses:?}, commands: {commands:?}, end_us: {end_us:?}, end: {end:?}, result: {result:?}, \
             flags: {flags:?}, moves: {moves:?} }}",
            control_text = control.text
        )
    }

    // Since `replace` reaches the firmware (6.11); every scenario but
    // clock-replacement hashes as before (0xeaf7_9e30_4403_d3c7 without it,
    // then and now). With scenarios/arbiter-restore.toml; without it, still
    // 0x4f5a_adc0_4b60_ef1d. With scenarios/byo-yomi-ten-periods.toml;
    // without it, still 0x7686_1ade_c3b5_1f31.
    const SHIPPED_SCHEDULES_FNV: u64 = 0x85dd_4392_8aaf_8ccf;

    /// The scenario's rule on both flags is the rule: a clock that shows the
    /// order plays `both-flags` (its arbiter does not read the order); a
    /// scenario whose arbiter reads an order the clock does not show, with
    /// flags left unnoticed so both can be down, is not played on it, the
    /// reason named. With every flag noticed at once the order never decides.
    #[test]
    fn a_scenario_ruling_by_the_flag_order_is_not_played_on_a_clock_that_does_not_show_it() {
        let shows = bench_contract::Capabilities {
            controls: bench_contract::CONTROLS_ALL,
            arbiter: bench_contract::ARBITER_ALL,
            shows_flag_order: true,
            ranges: bench_contract::Ranges::UNDECLARED,
        };
        let hides = bench_contract::Capabilities { shows_flag_order: false, ..shows };
        let unsupported = |name: &str, capabilities| {
            let scenario = load(name);
            Games::all(&scenario, 1, 1).unsupported(&capabilities, true, true)
        };
        let why = unsupported("release/12-arbiter-flag", hides).expect("the arbiter reads the order");
        assert!(why.flag_order_not_shown && why.missing.is_empty() && why.missing_arbiter.is_empty(), "{why:?}");
        assert!(why.to_string().contains("`arbiter.clock_shows_first_flag = true`"), "{why}");
        assert_eq!(unsupported("release/12-arbiter-flag", shows), None);
        assert_eq!(unsupported("both-flags", shows), None, "its arbiter does not read the order");
        assert_eq!(unsupported("both-flags", hides), None);
        assert_eq!(unsupported("blitz-3-2", hides), None, "every flag is noticed at once");
    }

    /// The first presses of `blitz-3-2`, seed 12, game 0, pinned: a change
    /// to the derivation (or to the simulator's streams or player models)
    /// fails here. Offsets are guest µs after the start.
    #[test]
    fn golden_first_presses_of_blitz_3_2_seed_12() {
        let scenario = load("blitz-3-2");
        let schedule = schedule(&scenario, 12, 0).expect("a schedule");
        let first: Vec<(u64, Side, u32, u64)> = schedule
            .presses
            .iter()
            .take(6)
            .map(|press| (press.offset_us, press.side, press.move_number, press.hold_us))
            .collect();
        assert_eq!(first, GOLDEN_BLITZ_3_2_SEED_12, "{first:?}");
        assert_eq!(schedule.control.text, "180+2");
    }

    const GOLDEN_BLITZ_3_2_SEED_12: [(u64, Side, u32, u64); 6] = [
        (7_747_000, Side::White, 1, 38_503),
        (13_858_000, Side::Black, 1, 43_519),
        (16_450_000, Side::White, 2, 52_736),
        (17_581_000, Side::Black, 2, 48_518),
        (25_398_000, Side::White, 3, 56_827),
        (31_664_000, Side::Black, 3, 30_793),
    ];

    #[test]
    fn the_first_think_time_is_the_white_players_first_draw() {
        let scenario = load("blitz-3-2");
        let schedule = schedule(&scenario, 12, 0).expect("a schedule");
        let think = scenario.player(Side::White).think;
        let mut white = Stream::new(12, 0, Actor::White);
        let first_ms = sample::skewed(&mut white, think.min_ms, think.max_ms);
        assert_eq!(schedule.presses.first().map(|press| press.offset_us), Some(first_ms * 1_000));
    }

    /// With no device defects and no arbiter habits, the schedule presses at
    /// exactly the instants `bench sim` does and reaches its ideal result, in shipped scenarios that end
    /// in every way: board endings, flags, time trouble, stages, delay.
    #[test]
    fn press_instants_equal_the_simulators() {
        let shipped = [
            ("blitz-3-2", 12),
            ("blitz-sudden-death", 11),
            ("both-flags", 1),
            ("us-delay", 15),
            ("bronstein", 16),
            ("hourglass", 17),
            ("byo-yomi", 18),
            ("canadian", 19),
            ("fide-classical", 14),
            ("rapid-fischer", 13),
            ("late-arrival-2005", 20),
            ("late-arrival-2023", 21),
            ("late-arrival-flag", 26),
            ("legal-blitz", 1),
        ];
        for (name, seed) in shipped {
            let scenario = load(name);
            for game in 0..4 {
                let schedule = schedule(&scenario, seed, game).expect("a schedule");
                assert_eq!(scheduled(&schedule), simulated(&scenario, seed, game), "{name} seed {seed} game {game}");
            }
        }
    }

    /// A first stage with no time flags White as the clock starts (6.5):
    /// the arbiter's notice runs from that instant, not from the next flag
    /// (found by the property below: the schedule made one press more).
    #[test]
    fn a_flag_as_the_clock_starts_is_noticed_from_the_start() {
        let text = "description = \"zero first stage\"\ncontrol = \"1/0+b0.001:0.006\"\nseed = 3\n\
                    [players]\nthink = { distribution = \"skewed\", min_ms = 20, max_ms = 20 }\n\
                    [arbiter]\nflag_noticed = \"1\"\nnotice_delay = { chance = \"1/2\", min_ms = 0, max_ms = 803 }\n";
        let scenario = Scenario::parse(text, Path::new("zero-first-stage.toml")).expect("parses");
        for game in 0..4 {
            let schedule = schedule(&scenario, 3, game).expect("a schedule");
            assert_eq!(scheduled(&schedule), simulated(&scenario, 3, game), "game {game}");
        }
    }

    /// A first stage with no time for Black too: Black's flag falls the
    /// instant White's first press starts Black's clock. When White's own
    /// flag went unnoticed, the notice of both flags runs from that press.
    #[test]
    fn a_flag_as_a_press_starts_the_clock_is_noticed_from_the_press() {
        let text = "description = \"zero first stage, flags noticed by chance\"\ncontrol = \"1/0:0.006\"\nseed = 3\n\
                    [players]\nthink = { distribution = \"skewed\", min_ms = 20, max_ms = 20 }\n\
                    [board]\nends_per_move = 0\n\
                    [arbiter]\nflag_noticed = \"1/2\"\nnotice_delay = { chance = \"1\", min_ms = 1, max_ms = 60 }\n";
        let scenario = Scenario::parse(text, Path::new("zero-first-stage-by-chance.toml")).expect("parses");
        for game in 0..40 {
            let schedule = schedule(&scenario, 3, game).expect("a schedule");
            assert_eq!(scheduled(&schedule), simulated(&scenario, 3, game), "game {game}");
        }
    }

    proptest::proptest! {
        // 64 cases unless PROPTEST_CASES says otherwise.
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 64,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// The same (presses and result) on generated controls (zero times, every kind of
        /// overtime), player speeds, time trouble, late arrivals, flags
        /// noticed late or never, and abstract or legal moves.
        #[test]
        fn press_instants_equal_the_simulators_on_generated_controls(
            // Whole milliseconds, like think times: a flag then falls on a
            // tick of the simulated device, which sees it at once (a flag
            // between ticks is seen at the next one, and a press made in
            // between counts there but not in the schedule).
            control in crate::generated_controls::control(1_000),
            // At least 20 ms a move: one side's presses then come 40 ms
            // apart, beyond the simulated device's 20 ms debounce window,
            // which would lose a press the firmware-side schedule makes.
            think_max_ms in 20..20_000u64,
            trouble in proptest::option::of((1..30_000u64, 1..=100u32)),
            arrival_ms in proptest::option::of(0..5_000u64),
            notice in proptest::option::of((0..4_000u64, proptest::bool::ANY)),
            legal in proptest::bool::weighted(0.25),
        ) {
            let moves = if legal { "legal" } else { "abstract" };
            let mut text = format!(
                "description = \"generated\"\ncontrol = \"{control}\"\nseed = 3\nmoves = \"{moves}\"\n\
                 [players]\nthink = {{ distribution = \"skewed\", min_ms = 20, max_ms = {think_max_ms} }}\n"
            );
            if let Some((below_ms, percent)) = trouble {
                text.push_str(&format!("time_trouble = {{ below_ms = {below_ms}, percent = {percent} }}\n"));
            }
            if let Some(arrival_ms) = arrival_ms {
                text.push_str(&format!("[black]\narrival_ms = {arrival_ms}\n"));
            }
            if let Some((delay_ms, some_unnoticed)) = notice {
                let noticed = if some_unnoticed { "1/2" } else { "1" };
                text.push_str(&format!(
                    "[arbiter]\nflag_noticed = \"{noticed}\"\nnotice_delay = {{ chance = \"1/2\", min_ms = 0, max_ms = {delay_ms} }}\n"
                ));
            }
            let scenario = Scenario::parse(&text, Path::new("generated.toml")).unwrap_or_else(|error| panic!("{error}\n{text}"));
            for game in 0..3 {
                let schedule = schedule(&scenario, 3, game).expect("a schedule");
                proptest::prop_assert_eq!(scheduled(&schedule), simulated(&scenario, 3, game), "game {}\n{}", game, text);
            }
        }
    }

    #[test]
    fn bounce_is_drawn_for_a_share_of_presses_and_stays_inside_a_debounce_window() {
        let scenario = load("blitz-3-2");
        assert!(scenario.device.bounce.chance.is_never(), "the default chance applies");
        let mut presses = 0u64;
        let mut bounced = 0u64;
        let mut edge_counts = std::collections::BTreeSet::new();
        for game in 0..20 {
            for press in schedule(&scenario, 3, game).expect("a schedule").presses {
                presses += 1;
                if press.bounce.is_none() {
                    continue;
                }
                bounced += 1;
                edge_counts.insert(press.bounce.edges());
                assert!(press.bounce.span_us() <= BOUNCE_SPAN_MAX_MS * 1_000, "{:?}", press.bounce);
                assert!(press.bounce.open_ms().iter().all(|open| (1..=2).contains(open)), "{:?}", press.bounce);
            }
        }
        // 1 in 4, give or take the draw.
        assert!(bounced * 100 > presses * 15 && bounced * 100 < presses * 35, "{bounced} of {presses}");
        assert_eq!(edge_counts.into_iter().collect::<Vec<_>>(), [1, 2, 3]);
    }

    #[test]
    fn the_scenarios_bounce_chance_and_span_are_used() {
        let mut stream = Stream::new(1, 0, Actor::Bounce);
        let never_late = Occasional { chance: Ratio::ALWAYS, min_ms: 1, max_ms: 4 };
        for _ in 0..200 {
            let bounce = draw_bounce(&mut stream, never_late);
            assert!(!bounce.is_none());
            assert!(bounce.span_us() <= 4_000, "{bounce:?}");
        }
        // A scenario's bounce far beyond the window is cut to the window.
        let wide = Occasional { chance: Ratio::ALWAYS, min_ms: 1, max_ms: 60 };
        assert!((0..200).all(|_| draw_bounce(&mut stream, wide).span_us() <= BOUNCE_SPAN_MAX_MS * 1_000));
    }

    #[test]
    fn a_correspondence_scenario_has_no_schedule() {
        let scenario = load("correspondence-first-overstep");
        let error = schedule(&scenario, 1, 0).expect_err("no clock to press");
        assert!(error.to_string().contains("correspondence"), "{error}");
    }

    #[test]
    fn the_same_inputs_give_the_same_schedule_and_games_differ() {
        let scenario = load("blitz-3-2");
        let a = schedule(&scenario, 5, 3).expect("a schedule");
        let b = schedule(&scenario, 5, 3).expect("a schedule");
        let c = schedule(&scenario, 5, 4).expect("a schedule");
        assert_eq!(a, b);
        assert_ne!(a.presses, c.presses);
    }

    #[test]
    fn movers_alternate_from_white_and_presses_are_in_time_order() {
        let scenario = load("both-flags");
        for game in 0..8 {
            let schedule = schedule(&scenario, 1, game).expect("a schedule");
            for (index, press) in schedule.presses.iter().enumerate() {
                let side = if index % 2 == 0 { Side::White } else { Side::Black };
                assert_eq!(press.side, side);
                assert_eq!(press.move_number, u32::try_from(index / 2 + 1).expect("small"));
                assert!((HOLD_MIN_US..=HOLD_MAX_US).contains(&press.hold_us));
            }
            assert!(schedule.presses.windows(2).all(|pair| pair[0].offset_us <= pair[1].offset_us));
            assert!(schedule.presses.last().is_none_or(|press| press.offset_us <= schedule.end_us));
        }
    }

    #[test]
    fn the_move_bound_limits_the_schedule() {
        let mut scenario = load("blitz-3-2");
        scenario.board.max_moves = 3;
        scenario.board.ends_per_move = bench_sim::sample::Ratio::NEVER;
        let schedule = schedule(&scenario, 12, 0).expect("a schedule");
        assert!(schedule.presses.len() <= 6);
        if schedule.presses.len() == 6 {
            assert_eq!(schedule.end, ScheduleEnd::MoveBound);
        }
    }

    /// `both-flags` (10/20:20, nobody notices a single flag): some games end
    /// with both flags down, ruled by 6.12.
    #[test]
    fn both_flags_games_end_in_a_6_12_ruling() {
        let scenario = load("both-flags");
        let rulings: Vec<ScheduleEnd> = (0..20)
            .filter_map(|game| schedule(&scenario, 1, game).ok())
            .filter(|schedule| schedule.flags.len() == 2)
            .map(|schedule| schedule.end)
            .collect();
        assert!(!rulings.is_empty(), "some of 20 games end with both flags down");
        for end in rulings {
            let ScheduleEnd::Flag { ruling } = end else { panic!("both flags down, but the game ended by {end}") };
            assert!(matches!(ruling.article, chessclock::Article::A6_12b), "{end}");
        }
    }

    /// A replay file's script makes the schedule: the game's own script
    /// (played on the perfect device the schedule is made on) gives the
    /// same schedule as the drawn game, for every shipped scenario; a
    /// script with the simulator's device faults in it gives it too (the
    /// faults are the simulator's device's, not the firmware's); and a
    /// script cut short ends on the clock of the player left to move.
    #[test]
    fn a_script_gives_the_schedule_of_the_game_it_was_written_from() {
        for scenario in shipped() {
            for game in 0..4 {
                let drawn = schedule(&scenario, 7, game).expect("a schedule");
                let perfect = scenario.with_perfect_device();
                let written = |scenario: &Scenario| {
                    game::play(GameSpec {
                        scenario,
                        seed: 7,
                        game,
                        swarm: false,
                        trace: false,
                        model_oracle: false,
                        disabled: DefectSet::NONE,
                        record_inputs: true,
                        script: None,
                    })
                    .script
                    .expect("kept")
                };
                let own = written(&perfect);
                let with_presses = script_of(&scenario, 7, game);
                let unpressed: Vec<ScriptedMove> = (with_presses.moves.iter())
                    .map(|scripted| ScriptedMove { press: None, ..scripted.clone() })
                    .collect();
                assert_eq!(unpressed, own.moves, "script_of is the game's script, with how each move is pressed");
                let games = Games { script: Some(&own), ..Games::all(&scenario, 7, game + 1) };
                assert_eq!(games.schedule(game), Ok(drawn.clone()), "{} game {game}", scenario.name);
                let pressed = Games { script: Some(&with_presses), ..games };
                assert_eq!(pressed.schedule(game), Ok(drawn.clone()), "{} game {game}: pressed", scenario.name);
                let mut faulty = own.clone();
                for scripted in &mut faulty.moves {
                    scripted
                        .faults
                        .push(bench_sim::game::Fault::Press { press: 0, fault: bench_sim::game::PressFault::Missed });
                }
                let games = Games { script: Some(&faulty), ..games };
                assert_eq!(games.schedule(game), Ok(drawn), "{} game {game}: faults left out", scenario.name);
            }
        }
        let scenario = load("blitz-3-2");
        let mut own = script_of(&scenario, 12, 0);
        own.moves.truncate(3);
        let games = Games { script: Some(&own), ..Games::all(&scenario, 12, 1) };
        let cut = games.schedule(0).expect("a schedule");
        assert_eq!(cut.presses.len(), 3);
        assert!(matches!(cut.end, ScheduleEnd::Flag { .. }), "{}", cut.end);
        assert!(cut.flags.iter().any(|flag| flag.side == Side::Black), "Black never moves again: {:?}", cut.flags);
    }

    /// A scripted press keeps its hold and bounce when the moves before it
    /// are left out, and a press changed in the script is pressed so.
    #[test]
    fn a_scripted_press_goes_with_its_move() {
        let scenario = load("blitz-3-2");
        let script = script_of(&scenario, 12, 0);
        let shape = |scripted: &ScriptedMove| scripted.press.clone().expect("pressed");
        let pressed = |script: &Script| {
            let games = Games { script: Some(script), ..Games::all(&scenario, 12, 1) };
            let presses = games.schedule(0).expect("a schedule").presses;
            presses.into_iter().filter(|press| press.button != ButtonId::Pause).collect::<Vec<_>>()
        };
        let whole = pressed(&script);
        let second = shape(&script.moves[1]);
        assert_eq!((whole[1].hold_us, whole[1].bounce.open_ms()), (second.hold_us, second.bounce_open_ms.as_slice()));

        let mut fewer = script.clone();
        fewer.moves.remove(0);
        let first = &pressed(&fewer)[0];
        assert_eq!((first.hold_us, first.bounce.open_ms()), (second.hold_us, second.bounce_open_ms.as_slice()));

        let bouncing = (script.moves.iter())
            .position(|scripted| scripted.press.as_ref().is_some_and(|press| !press.bounce_open_ms.is_empty()));
        let bouncing = bouncing.expect("a quarter of presses bounce");
        let clean = script.without_bounce(bouncing..bouncing + 1).briefest_holds(0..1);
        let changed = pressed(&clean);
        assert!(changed[bouncing].bounce.is_none(), "the bounce is gone");
        let briefest =
            script.moves.iter().filter_map(|scripted| scripted.press.as_ref()).map(|press| press.hold_us).min();
        assert_eq!(Some(changed[0].hold_us), briefest);
        for (index, (before, after)) in whole.iter().zip(&changed).enumerate() {
            if index != bouncing && index != 0 {
                assert_eq!(before, after, "press {index} is as it was");
            }
        }
    }
}
