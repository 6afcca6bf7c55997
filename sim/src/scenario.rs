//! Scenario files: what a run simulates and what it expects.
//!
//! The schema is documented for users in `scenarios/README.md`; this module
//! is its single definition. Every table rejects unknown fields, and every
//! error names the file, line, column and field
//! ([`crate::toml_location`]).
//!
//! Every time is bounded by `chessclock::Duration::CONTROL_MAX` and moves
//! per player by [`MOVES_MAX`], so no accepted file makes one game run for
//! ages; a postal scenario refuses the over-the-board fields it would
//! ignore.

use std::fmt;
use std::path::Path;

use chessclock::{RuleSet, TimeControl};
use serde::de::{self, Deserializer};
use serde::Deserialize;

use crate::sample::Ratio;
use crate::toml_location::{self, LocatedError};

/// A parsed, validated scenario.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Filled from the file name; not part of the file.
    #[serde(skip)]
    pub name: String,
    /// One line, shown by `bench scenarios`.
    pub description: String,
    /// The time control, in the core's notation (`40/5400+30:1800+30`).
    /// Every over-the-board scenario has one; a correspondence scenario has
    /// the `[correspondence]` table instead.
    #[serde(default)]
    pub control: Control,
    /// A postal game under the correspondence overstepping rules.
    #[serde(default)]
    pub correspondence: Option<crate::postal::Postal>,
    #[serde(default)]
    pub rules: Rules,
    #[serde(default = "default_games")]
    pub games: u64,
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub moves: MoveMode,
    /// Both players, unless `white` or `black` replaces one of them.
    #[serde(default)]
    pub players: Player,
    pub white: Option<Player>,
    pub black: Option<Player>,
    #[serde(default)]
    pub board: Board,
    #[serde(default)]
    pub device: Device,
    #[serde(default)]
    pub arbiter: Arbiter,
    #[serde(default)]
    pub expect: Expect,
}

fn default_games() -> u64 {
    100
}

/// A time control and the text it was written as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Control {
    pub text: String,
    pub control: TimeControl,
}

impl Default for Control {
    /// No time control: only a correspondence scenario may leave it out.
    fn default() -> Self {
        Control { text: String::new(), control: TimeControl::Hourglass { time: chessclock::Duration::ZERO } }
    }
}

impl Control {
    pub fn is_given(&self) -> bool {
        !self.text.is_empty()
    }

    /// The control's text, or `correspondence` for a postal scenario.
    pub fn label(&self) -> &str {
        if self.is_given() {
            &self.text
        } else {
            "correspondence"
        }
    }

    /// The control with every main time halved (in whole milliseconds),
    /// its moves, bonuses and overtime periods as they are, written in
    /// canonical notation: a shorter game with the same rules, for
    /// shrinking. `None` when no main time is 2 ms or more.
    pub fn with_main_times_halved(&self) -> Option<Control> {
        let halved = |time: chessclock::Duration| chessclock::Duration::from_millis(time.as_us() / 2_000);
        let long_enough = |time: chessclock::Duration| time.as_us() >= 2_000;
        let control = match self.control {
            TimeControl::Stages(stages) => {
                if !stages.as_slice().iter().any(|stage| long_enough(stage.time)) {
                    return None;
                }
                let shorter: Vec<chessclock::Stage> = (stages.as_slice().iter())
                    .map(|stage| chessclock::Stage { time: halved(stage.time), ..*stage })
                    .collect();
                TimeControl::stages(&shorter).ok()?
            }
            TimeControl::Hourglass { time } if long_enough(time) => TimeControl::Hourglass { time: halved(time) },
            TimeControl::ByoYomi { main, periods, period } if long_enough(main) => {
                TimeControl::ByoYomi { main: halved(main), periods, period }
            }
            TimeControl::Canadian { main, moves, period } if long_enough(main) => {
                TimeControl::Canadian { main: halved(main), moves, period }
            }
            _ => return None,
        };
        Some(Control { text: control.to_string(), control })
    }
}

impl<'de> Deserialize<'de> for Control {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let control = chessclock::notation::parse(&text)
            .map_err(|error| de::Error::custom(format!("time control `{text}`: {error}")))?;
        Ok(Control { text, control })
    }
}

/// A rule set by name (`fide-2005`, `fide-2023`).
#[derive(Clone, Copy, Debug)]
pub struct Rules(pub RuleSet);

impl Default for Rules {
    fn default() -> Self {
        Rules(RuleSet::FIDE_2005)
    }
}

impl<'de> Deserialize<'de> for Rules {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        RuleSet::by_name(&name).map(Rules).ok_or_else(|| {
            let known: Vec<&str> = RuleSet::ALL.iter().map(|rules| rules.name).collect();
            de::Error::custom(format!("unknown rule set `{name}`; known: {}", known.join(", ")))
        })
    }
}

/// How moves are made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveMode {
    /// No board: game endings and mating material are drawn from `[board]` rates.
    #[default]
    Abstract,
    /// Random legal moves on a real board; checkmate and stalemate end games,
    /// and a flag is ruled with a full "can the opponent still mate" test.
    Legal,
}

/// A think-time distribution, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Think {
    #[serde(default)]
    pub distribution: Distribution,
    pub min_ms: u64,
    pub max_ms: u64,
}

impl Default for Think {
    fn default() -> Self {
        Think { distribution: Distribution::Skewed, min_ms: 500, max_ms: 20_000 }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Distribution {
    Uniform,
    Triangular,
    /// Most moves quick, a few long (see `sample::skewed`).
    #[default]
    Skewed,
}

/// A player's habits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    #[serde(default)]
    pub think: Think,
    /// Time trouble: with less than `below_ms` on the display, think at most
    /// `percent` of what is left.
    #[serde(default)]
    pub time_trouble: TimeTrouble,
    /// Arrives at the board this long after the scheduled start (6.6, 6.7).
    #[serde(default)]
    pub arrival_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeTrouble {
    pub below_ms: u64,
    pub percent: u64,
    /// In time trouble, the player leaves at least this much on the display
    /// when pressing: 1 ms is a press in the last millisecond.
    #[serde(default)]
    pub spare_ms: u64,
}

impl Default for TimeTrouble {
    fn default() -> Self {
        TimeTrouble { below_ms: 0, percent: 100, spare_ms: 0 }
    }
}

/// The board in abstract mode: rates of what a real position would decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Board {
    /// Chance that a move ends the game on the board (5.1/5.2; no press
    /// needed, 6.8a).
    #[serde(default = "Board::default_ends_per_move")]
    pub ends_per_move: Ratio,
    /// Of those endings, the share won by the mover (checkmate or the
    /// opponent resigns); the rest are draws (stalemate, agreement, dead
    /// position).
    #[serde(default = "Board::default_decisive")]
    pub decisive: Ratio,
    /// Chance that, when a flag is ruled on, the flagged player's opponent
    /// cannot checkmate by any legal series of moves (6.10: draw).
    #[serde(default = "Board::default_cannot_mate")]
    pub cannot_mate: Ratio,
    /// Moves per player after which the game is adjudicated a draw: the
    /// bound on every game's length.
    #[serde(default = "Board::default_max_moves")]
    pub max_moves: u32,
}

impl Board {
    fn default_ends_per_move() -> Ratio {
        Ratio { numerator: 1, denominator: 80 }
    }
    fn default_decisive() -> Ratio {
        Ratio { numerator: 2, denominator: 3 }
    }
    fn default_cannot_mate() -> Ratio {
        Ratio { numerator: 1, denominator: 10 }
    }
    fn default_max_moves() -> u32 {
        300
    }
}

impl Default for Board {
    fn default() -> Self {
        Board {
            ends_per_move: Board::default_ends_per_move(),
            decisive: Board::default_decisive(),
            cannot_mate: Board::default_cannot_mate(),
            max_moves: Board::default_max_moves(),
        }
    }
}

/// A chance per event with a size in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Occasional {
    pub chance: Ratio,
    #[serde(default)]
    pub min_ms: u64,
    #[serde(default)]
    pub max_ms: u64,
}

impl Default for Occasional {
    fn default() -> Self {
        Occasional { chance: Ratio::NEVER, min_ms: 0, max_ms: 0 }
    }
}

/// What happens to the clock's state on a brownout reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Restore {
    /// Restored from the backup taken at the last press.
    #[default]
    Backup,
    /// Lost: the arbiter must set the clock again (6.11/6.14).
    Lost,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Brownout {
    pub chance: Ratio,
    #[serde(default)]
    pub restore: Restore,
}

/// The simulated clock device and its defects. Chances are per press.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    /// The device's time base resolution.
    #[serde(default = "Device::default_tick_us")]
    pub tick_us: u64,
    /// Oscillator error: positive runs fast.
    #[serde(default)]
    pub drift_ppm: i64,
    /// Slow random walk of the drift, at most this far from `drift_ppm`.
    #[serde(default)]
    pub drift_walk_ppm: i64,
    /// Random delay of each registered edge.
    #[serde(default)]
    pub jitter_us: u64,
    /// Edges closer than this to the last accepted one are ignored.
    #[serde(default = "Device::default_debounce_ms")]
    pub debounce_ms: u64,
    /// Contact bounce: extra edges up to `max_ms` after a press.
    #[serde(default)]
    pub bounce: Occasional,
    #[serde(default)]
    pub missed_press: Ratio,
    #[serde(default)]
    pub double_press: Ratio,
    #[serde(default)]
    pub stuck_button: Occasional,
    #[serde(default)]
    pub brownout: Brownout,
    #[serde(default)]
    pub display_freeze: Occasional,
}

impl Device {
    fn default_tick_us() -> u64 {
        1_000
    }
    fn default_debounce_ms() -> u64 {
        20
    }
}

impl Device {
    /// A device that does exactly what it is told, when it is told: a 1 µs
    /// tick on true time (no drift, no jitter), no debounce, no defects. It
    /// receives a game's inputs at their true instants, so its clock is the
    /// ideal clock, as a firmware under test is meant to be (`bench hil`
    /// schedules are played on one).
    pub fn perfect() -> Device {
        let off = Occasional::default();
        Device {
            tick_us: 1,
            drift_ppm: 0,
            drift_walk_ppm: 0,
            jitter_us: 0,
            debounce_ms: 0,
            bounce: off,
            missed_press: Ratio::NEVER,
            double_press: Ratio::NEVER,
            stuck_button: off,
            brownout: Brownout::default(),
            display_freeze: off,
        }
    }
}

impl Default for Device {
    fn default() -> Self {
        Device {
            tick_us: Device::default_tick_us(),
            drift_ppm: 0,
            drift_walk_ppm: 0,
            jitter_us: 0,
            debounce_ms: Device::default_debounce_ms(),
            bounce: Occasional::default(),
            missed_press: Ratio::NEVER,
            double_press: Ratio::NEVER,
            stuck_button: Occasional::default(),
            brownout: Brownout::default(),
            display_freeze: Occasional::default(),
        }
    }
}

/// The arbiter and the players' attention. Chances are per move unless said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arbiter {
    /// Chance that a fallen flag is noticed (observed or claimed, 6.9).
    #[serde(default = "Arbiter::default_flag_noticed")]
    pub flag_noticed: Ratio,
    /// How late a noticed flag is noticed: with `chance`, a delay drawn from
    /// `min_ms..=max_ms`; otherwise at once.
    #[serde(default)]
    pub notice_delay: Occasional,
    /// The clock shows which flag fell first (a digital clock does; with it,
    /// 6.12's "impossible to establish" never arises).
    #[serde(default = "Arbiter::default_shows_first_flag")]
    pub clock_shows_first_flag: bool,
    /// The arbiter stops the clocks (6.13) for `min_ms..=max_ms`.
    #[serde(default)]
    pub pause: Occasional,
    /// The arbiter adds or removes up to `max_ms` (6.14, 13.4).
    #[serde(default)]
    pub adjust: Occasional,
    /// The arbiter corrects the move counter (6.14).
    #[serde(default)]
    pub set_moves: Ratio,
    /// A defective clock is replaced with arbiter-chosen times (6.11).
    #[serde(default)]
    pub replace_clock: Ratio,
    /// An irregularity: the arbiter restores the position of one move of
    /// each side earlier and sets the clocks' times and move counters to
    /// what they were then (6.14).
    #[serde(default)]
    pub restore: Ratio,
}

impl Arbiter {
    fn default_flag_noticed() -> Ratio {
        Ratio::ALWAYS
    }
    fn default_shows_first_flag() -> bool {
        true
    }
}

impl Default for Arbiter {
    fn default() -> Self {
        Arbiter {
            flag_noticed: Arbiter::default_flag_noticed(),
            notice_delay: Occasional::default(),
            clock_shows_first_flag: Arbiter::default_shows_first_flag(),
            pause: Occasional::default(),
            adjust: Occasional::default(),
            set_moves: Ratio::NEVER,
            replace_clock: Ratio::NEVER,
            restore: Ratio::NEVER,
        }
    }
}

/// What must hold for the run to pass.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Share of games in each result class, in percent.
    #[serde(default)]
    pub result: Vec<ResultShare>,
    /// Games whose device result equals the ideal clock's, in percent.
    #[serde(default = "Expect::default_agreement")]
    pub agreement_min_percent: u64,
    /// Largest allowed |device − ideal| remaining time at a press.
    #[serde(default)]
    pub time_error_max_us: Option<u64>,
    /// The rules the scenario exists for, as transition names
    /// (`increment`, `flag.final`, …): a run in which one never happened
    /// fails.
    #[serde(default)]
    pub exercises: Vec<String>,
}

impl Expect {
    /// `exercises` as transitions (validated on load).
    pub fn exercised(&self) -> Vec<chessclock::Transition> {
        self.exercises.iter().filter_map(|key| chessclock::Transition::from_key(key)).collect()
    }
}

impl Expect {
    fn default_agreement() -> u64 {
        100
    }
}

impl Default for Expect {
    fn default() -> Self {
        Expect {
            result: Vec::new(),
            agreement_min_percent: Expect::default_agreement(),
            time_error_max_us: None,
            exercises: Vec::new(),
        }
    }
}

/// "Between `min_percent` and `max_percent` of games end as `class`."
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultShare {
    /// A result class: an article (`6.10`, `6.12 b)`, …), or `white`,
    /// `black`, `draw`.
    pub class: String,
    #[serde(default)]
    pub min_percent: u64,
    #[serde(default = "ResultShare::default_max")]
    pub max_percent: u64,
}

impl ResultShare {
    fn default_max() -> u64 {
        100
    }
}

impl<'de> Deserialize<'de> for Ratio {
    /// `"1/500"`, `"0.2%"`, or the integers 0 and 1.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ChanceVisitor)
    }
}

/// Reads a chance, saying what to write instead of anything else.
struct ChanceVisitor;

impl ChanceVisitor {
    fn other<E: de::Error>(value: impl fmt::Display) -> E {
        E::custom(format!("a chance of {value}: write 0, 1, a ratio like \"1/500\" or a percentage like \"0.2%\""))
    }
}

impl de::Visitor<'_> for ChanceVisitor {
    type Value = Ratio;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a chance: 0, 1, a ratio like \"1/500\" or a percentage like \"0.2%\"")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Ratio, E> {
        match value {
            0 => Ok(Ratio::NEVER),
            1 => Ok(Ratio::ALWAYS),
            other => Err(ChanceVisitor::other(other)),
        }
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Ratio, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) => Err(ChanceVisitor::other(value)),
        }
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Ratio, E> {
        Err(ChanceVisitor::other(value))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Ratio, E> {
        parse_ratio(text).map_err(E::custom)
    }
}

/// Parses `"N/D"`, a percentage with up to six decimals (`"0.25%"`), or
/// `"0"` / `"1"` (as the bare numbers 0 and 1 read).
pub fn parse_ratio(text: &str) -> Result<Ratio, String> {
    let invalid =
        || format!("`{text}` is not a chance: write 0, 1, a ratio like \"1/500\" or a percentage like \"0.2%\"");
    let ratio = if let Some((numerator, denominator)) = text.split_once('/') {
        let numerator: u64 = numerator.trim().parse().map_err(|_| invalid())?;
        let denominator: u64 = denominator.trim().parse().map_err(|_| invalid())?;
        Ratio::new(numerator, denominator)
    } else if let Some(percent) = text.strip_suffix('%') {
        let (whole, fraction) = percent.trim().split_once('.').unwrap_or((percent.trim(), ""));
        if fraction.len() > 6 || !fraction.bytes().all(|byte| byte.is_ascii_digit()) {
            return Err(invalid());
        }
        let whole: u64 = whole.parse().map_err(|_| invalid())?;
        let padded = format!("{fraction:0<6}");
        let fraction: u64 = padded.parse().map_err(|_| invalid())?;
        let millionths =
            whole.checked_mul(1_000_000).and_then(|whole| whole.checked_add(fraction)).ok_or_else(invalid)?;
        Ratio::new(millionths, 100_000_000)
    } else if let Ok(whole) = text.trim().parse::<u64>() {
        Ratio::new(whole, 1)
    } else {
        return Err(invalid());
    };
    ratio.ok_or_else(|| format!("`{text}` is not a chance between 0 and 1"))
}

/// A scenario file that could not be used: file, line, column and field.
pub type ScenarioError = LocatedError;

/// Moves per player a game may be bounded at (`board.max_moves`,
/// `correspondence.moves`): far beyond any real game, and it bounds what one
/// game can cost in time and memory.
pub const MOVES_MAX: u32 = 10_000;

/// Days any one span of a postal game may take (a letter, a reflection, the
/// arbiter, a norm, a penalty): ten years. A game's days then stay far from
/// where the day count would saturate and stop meaning anything.
pub const DAYS_MAX: u32 = 3_650;

/// Top-level fields that only an over-the-board game uses: a postal game has
/// no chess clock, no think times in milliseconds and no arbiter at a board.
const OVER_THE_BOARD_FIELDS: [&str; 8] = ["rules", "moves", "players", "white", "black", "board", "device", "arbiter"];

/// The relations inside a `[correspondence]` table.
fn postal_validate(postal: &crate::postal::Postal) -> Result<(), Invalid> {
    if postal.moves == 0 || postal.moves > MOVES_MAX {
        return Err(Invalid::new(
            "correspondence.moves",
            format!("moves per player must be from 1 to {MOVES_MAX}, not {}", postal.moves),
        ));
    }
    if postal.moves_per_block == 0 || postal.moves_per_block > MOVES_MAX {
        return Err(Invalid::new(
            "correspondence.moves_per_block",
            format!("the norm needs 1 to {MOVES_MAX} moves per block (6.1: e.g. 10 moves in 30 days)"),
        ));
    }
    for (field, days) in
        [("correspondence.days_per_block", postal.days_per_block), ("correspondence.penalty_days", postal.penalty_days)]
    {
        if days > DAYS_MAX {
            return Err(Invalid::new(field, format!("{days} days: at most {DAYS_MAX} (ten years)")));
        }
    }
    for (field, range) in [
        ("correspondence.transit", postal.transit),
        ("correspondence.reflection", postal.reflection),
        ("correspondence.slow", postal.slow),
        ("correspondence.arbiter_days", postal.arbiter_days),
    ] {
        if range.min_days > range.max_days {
            return Err(Invalid::new(
                format!("{field}.min_days"),
                format!("min_days ({}) is larger than max_days ({})", range.min_days, range.max_days),
            ));
        }
        if range.max_days > DAYS_MAX {
            return Err(Invalid::new(
                format!("{field}.max_days"),
                format!("{} days: at most {DAYS_MAX} (ten years)", range.max_days),
            ));
        }
    }
    Ok(())
}

/// The first over-the-board field written in a correspondence scenario, if
/// any: it would be ignored, so it is refused.
fn over_the_board_field(text: &str) -> Option<&'static str> {
    // The text already parsed as a scenario, so it is a table.
    let written: toml::Table = toml::from_str(text).ok()?;
    OVER_THE_BOARD_FIELDS.into_iter().find(|field| written.contains_key(*field))
}

impl Scenario {
    /// Parses and validates `text`, read from `file` (for messages and the name).
    pub fn parse(text: &str, file: &Path) -> Result<Scenario, ScenarioError> {
        let mut scenario: Scenario = toml::from_str(text).map_err(|error| {
            let mut located = LocatedError::from_toml(text, file, &error);
            if let Some(column) = error.span().and_then(|span| control_error_column(text, span.start)) {
                located.column = column;
            }
            located
        })?;
        scenario.name = file.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
        scenario
            .validate()
            .map_err(|invalid| LocatedError::at_field(text, file, invalid.field, invalid.element, invalid.message))?;
        if scenario.correspondence.is_some() {
            if let Some(field) = over_the_board_field(text) {
                let message = format!(
                    "`{field}` is for over-the-board games: a correspondence scenario has no chess clock; remove `{field}` (the [correspondence] table sets the postal game)"
                );
                return Err(LocatedError::at_field(text, file, field.to_string(), 0, message));
            }
        }
        Ok(scenario)
    }

    /// Reads and parses a scenario file.
    pub fn load(file: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(file)
            .map_err(|error| LocatedError::whole_file(file, format!("cannot read the scenario: {error}")))?;
        Scenario::parse(&text, file)
    }

    /// Every scenario file (`*.toml`) directly in `folder`, loaded, in
    /// path order (directory order is not stable).
    pub fn load_folder(folder: &Path) -> Result<Vec<Scenario>, ScenarioError> {
        let entries = std::fs::read_dir(folder)
            .map_err(|error| LocatedError::whole_file(folder, format!("cannot read the scenario folder: {error}")))?;
        let mut files: Vec<std::path::PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
            .collect();
        files.sort();
        files.iter().map(|file| Scenario::load(file)).collect()
    }

    /// The same scenario on a [`Device::perfect`]: its players, board,
    /// rules and arbiter (habits included) stay as they are.
    pub fn with_perfect_device(&self) -> Scenario {
        Scenario { device: Device::perfect(), ..self.clone() }
    }

    /// The player model for `side`.
    pub fn player(&self, side: chessclock::Side) -> &Player {
        let specific = match side {
            chessclock::Side::White => &self.white,
            chessclock::Side::Black => &self.black,
        };
        specific.as_ref().unwrap_or(&self.players)
    }

    /// Every time in the file is at most the longest time the clock core
    /// holds ([`chessclock::Duration::CONTROL_MAX`]): a longer think,
    /// pause or defect is a typo, and it would make one game run for ages.
    fn check_time_bounds(&self) -> Result<(), Invalid> {
        let max_us = chessclock::Duration::CONTROL_MAX.as_us();
        let mut times_us: Vec<(String, u64)> = Vec::new();
        let ms = |value: u64| value.saturating_mul(1_000);
        for (table, player) in
            [("players", Some(&self.players)), ("white", self.white.as_ref()), ("black", self.black.as_ref())]
        {
            let Some(player) = player else { continue };
            times_us.push((format!("{table}.think.min_ms"), ms(player.think.min_ms)));
            times_us.push((format!("{table}.think.max_ms"), ms(player.think.max_ms)));
            times_us.push((format!("{table}.time_trouble.below_ms"), ms(player.time_trouble.below_ms)));
            times_us.push((format!("{table}.time_trouble.spare_ms"), ms(player.time_trouble.spare_ms)));
            times_us.push((format!("{table}.arrival_ms"), ms(player.arrival_ms)));
        }
        for (table, occasional) in self.occasionals() {
            times_us.push((format!("{table}.min_ms"), ms(occasional.min_ms)));
            times_us.push((format!("{table}.max_ms"), ms(occasional.max_ms)));
        }
        times_us.push(("device.debounce_ms".into(), ms(self.device.debounce_ms)));
        times_us.push(("device.tick_us".into(), self.device.tick_us));
        times_us.push(("device.jitter_us".into(), self.device.jitter_us));
        match times_us.into_iter().find(|(_, time_us)| *time_us > max_us) {
            Some((field, _)) => Err(Invalid::new(
                field,
                format!(
                    "longer than any time a scenario may hold: at most {} ms ({} s, about 11.6 days)",
                    max_us / 1_000,
                    max_us / 1_000_000
                ),
            )),
            None => Ok(()),
        }
    }

    /// The occasional events (a chance and a size in milliseconds), by field.
    fn occasionals(&self) -> [(&'static str, Occasional); 6] {
        [
            ("device.bounce", self.device.bounce),
            ("device.stuck_button", self.device.stuck_button),
            ("device.display_freeze", self.device.display_freeze),
            ("arbiter.notice_delay", self.arbiter.notice_delay),
            ("arbiter.pause", self.arbiter.pause),
            ("arbiter.adjust", self.arbiter.adjust),
        ]
    }

    /// Checks relations between fields that the types cannot; the first
    /// that fails is reported, in this fixed order.
    fn validate(&self) -> Result<(), Invalid> {
        self.validate_kind()?;
        self.validate_players()?;
        self.check_time_bounds()?;
        self.validate_run_and_device()?;
        if let Some(postal) = &self.correspondence {
            postal_validate(postal)?;
        }
        for (field, occasional) in self.occasionals() {
            if occasional.min_ms > occasional.max_ms {
                return Err(Invalid::new(
                    format!("{field}.min_ms"),
                    format!("min_ms ({}) is larger than max_ms ({})", occasional.min_ms, occasional.max_ms),
                ));
            }
        }
        if self.arbiter.restore == Ratio::ALWAYS {
            return Err(Invalid::new(
                "arbiter.restore",
                "a chance below 1: taking a move of each side back after every move, the game would never get \
                 past its second move",
            ));
        }
        self.validate_expect()
    }

    /// A chess-clock control or a [correspondence] table, not both.
    fn validate_kind(&self) -> Result<(), Invalid> {
        match (self.control.is_given(), self.correspondence.is_some()) {
            (false, false) => {
                return Err(Invalid::new(
                    "control",
                    "missing field `control`: name the time control (e.g. control = \"300+2\"), or add a [correspondence] table for a postal game",
                ))
            }
            (true, true) => {
                return Err(Invalid::new(
                    "control",
                    "a correspondence scenario has no chess-clock time control: remove `control` or the [correspondence] table",
                ))
            }
            (true, false) | (false, true) => {}
        }
        Ok(())
    }

    /// Each player's think range and time-trouble share.
    fn validate_players(&self) -> Result<(), Invalid> {
        for (table, player) in
            [("players", Some(&self.players)), ("white", self.white.as_ref()), ("black", self.black.as_ref())]
        {
            let Some(player) = player else { continue };
            if player.think.min_ms > player.think.max_ms {
                return Err(Invalid::new(
                    format!("{table}.think.min_ms"),
                    format!("min_ms ({}) is larger than max_ms ({})", player.think.min_ms, player.think.max_ms),
                ));
            }
            if player.time_trouble.percent > 100 {
                return Err(Invalid::new(format!("{table}.time_trouble.percent"), "percent must be at most 100"));
            }
        }
        Ok(())
    }

    /// The games, the device's tick and drift, the move bound.
    fn validate_run_and_device(&self) -> Result<(), Invalid> {
        if self.games == 0 {
            return Err(Invalid::new("games", "a run needs at least one game"));
        }
        if self.device.tick_us == 0 {
            return Err(Invalid::new("device.tick_us", "the device's tick must be at least 1 us"));
        }
        for (field, ppm) in
            [("device.drift_ppm", self.device.drift_ppm), ("device.drift_walk_ppm", self.device.drift_walk_ppm)]
        {
            if ppm.unsigned_abs() > 100_000 {
                return Err(Invalid::new(field, "drift beyond ±100000 ppm (10 %) is not a clock"));
            }
        }
        if self.board.max_moves == 0 {
            return Err(Invalid::new("board.max_moves", "games need at least one move"));
        }
        if self.board.max_moves > MOVES_MAX {
            return Err(Invalid::new(
                "board.max_moves",
                format!("{} moves per player is beyond any real game; at most {MOVES_MAX}", self.board.max_moves),
            ));
        }
        Ok(())
    }

    /// The expectations: known result classes and rules, shares in range.
    fn validate_expect(&self) -> Result<(), Invalid> {
        for (element, share) in self.expect.result.iter().enumerate() {
            if crate::outcome::ResultClass::parse(&share.class).is_none() {
                return Err(Invalid {
                    field: "expect.result.class".into(),
                    element,
                    message: format!(
                        "unknown result class `{}`; known: {}",
                        share.class,
                        crate::outcome::ResultClass::NAMES.join(", ")
                    ),
                });
            }
            if share.max_percent > 100 {
                return Err(Invalid {
                    field: "expect.result.max_percent".into(),
                    element,
                    message: format!("`{}`: max_percent {} is above 100", share.class, share.max_percent),
                });
            }
            if share.min_percent > share.max_percent {
                return Err(Invalid {
                    field: "expect.result.min_percent".into(),
                    element,
                    message: format!(
                        "`{}`: min_percent {} is larger than max_percent {}",
                        share.class, share.min_percent, share.max_percent
                    ),
                });
            }
        }
        for key in &self.expect.exercises {
            if chessclock::Transition::from_key(key).is_none() {
                let known: Vec<&str> = chessclock::Transition::ALL.iter().map(|transition| transition.key()).collect();
                return Err(Invalid::new(
                    "expect.exercises",
                    format!("unknown rule `{key}`; known: {}", known.join(", ")),
                ));
            }
        }
        if self.expect.agreement_min_percent > 100 {
            return Err(Invalid::new("expect.agreement_min_percent", "a percentage is at most 100"));
        }
        Ok(())
    }
}

/// A relation between fields that does not hold, found after parsing.
#[derive(Debug)]
struct Invalid {
    /// `table.key` of the value to correct.
    field: String,
    /// Which element of an array of tables (`[[expect.result]]`) it is in.
    element: usize,
    message: String,
}

impl Invalid {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Invalid {
        Invalid { field: field.into(), element: 0, message: message.into() }
    }
}

/// The column of the character a time control's parse error is about, when
/// the reader refused the `control` value that starts at byte `offset` and
/// it is a plain one-line string (no escapes).
fn control_error_column(text: &str, offset: usize) -> Option<usize> {
    let value = toml_location::value_starting_at(text, "control", offset)?;
    let quote = value.chars().next().filter(|quote| *quote == '"' || *quote == '\'')?;
    let inner = value.strip_prefix(quote)?.strip_suffix(quote)?;
    if inner.contains(['\\', '"', '\'']) {
        return None;
    }
    let error = chessclock::notation::parse(inner).err()?;
    let before = inner.get(..error.position.min(inner.len()))?;
    let (_, column) = toml_location::line_column(text, offset);
    Some(column + 1 + before.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(text: &str) -> Control {
        Control { text: text.to_string(), control: chessclock::notation::parse(text).expect("a control") }
    }

    #[test]
    fn halving_a_control_halves_its_main_times_and_keeps_the_rest() {
        for (text, halved) in [
            ("40/5400:1800+30", "40/2700:900+30"),
            ("2/30:60+d2", "2/15:30+d2"),
            ("180+b2", "90+b2"),
            ("*40", "*20"),
            ("20(3x5)", "10(3x5)"),
            ("600(20/300)", "300(20/300)"),
            ("0.003+1", "0.001+1"),
        ] {
            let shorter = control(text).with_main_times_halved().expect("shorter");
            assert_eq!(shorter.text, halved, "{text}");
            assert_eq!(shorter, control(halved), "{text}: the text is the control");
        }
        for shortest in ["0.001+1", "0(3x5)", "1/0.001:0+5"] {
            assert_eq!(control(shortest).with_main_times_halved(), None, "{shortest}");
        }
    }
}
