//! Scenario files: what a run simulates and what it expects.
//!
//! The schema is documented for users in `scenarios/README.md`; this module
//! is its single definition. Every table rejects unknown fields, and every
//! error names the file, line, column and field.

use std::fmt;
use std::path::{Path, PathBuf};

use chessclock::{RuleSet, TimeControl};
use serde::de::{self, Deserializer};
use serde::Deserialize;

use crate::sample::Ratio;

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
#[derive(Clone, Debug)]
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
}

impl Default for TimeTrouble {
    fn default() -> Self {
        TimeTrouble { below_ms: 0, percent: 100 }
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
}

impl Expect {
    fn default_agreement() -> u64 {
        100
    }
}

impl Default for Expect {
    fn default() -> Self {
        Expect { result: Vec::new(), agreement_min_percent: Expect::default_agreement(), time_error_max_us: None }
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

/// Parses `"N/D"` or a percentage with up to six decimals (`"0.25%"`).
pub fn parse_ratio(text: &str) -> Result<Ratio, String> {
    let invalid = || format!("`{text}` is not a chance: write a ratio like \"1/500\" or a percentage like \"0.2%\"");
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
    } else {
        return Err(invalid());
    };
    ratio.ok_or_else(|| format!("`{text}` is not a chance between 0 and 1"))
}

/// A scenario file that could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: PathBuf,
    /// 1-based; 0 when the error is not about one place (unreadable file).
    pub line: usize,
    pub column: usize,
    /// `table.key` of the offending value, when known.
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

impl Scenario {
    /// Parses and validates `text`, read from `file` (for messages and the name).
    pub fn parse(text: &str, file: &Path) -> Result<Scenario, ScenarioError> {
        let mut scenario: Scenario = toml::from_str(text).map_err(|error| {
            let message = error.message().to_string();
            let (line, column, field) = match error.span() {
                Some(span) => locate(text, span.start, &message),
                None => (0, 0, None),
            };
            ScenarioError { file: file.to_path_buf(), line, column, field, message }
        })?;
        scenario.name = file.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
        scenario.validate().map_err(|invalid| {
            let (line, column) = match find_key(text, &invalid.field, invalid.element) {
                // A field left out altogether: the file as a whole is at fault.
                (0, 0) => (1, 1),
                found => found,
            };
            ScenarioError {
                file: file.to_path_buf(),
                line,
                column,
                field: Some(invalid.field),
                message: invalid.message,
            }
        })?;
        Ok(scenario)
    }

    /// Reads and parses a scenario file.
    pub fn load(file: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(file).map_err(|error| ScenarioError {
            file: file.to_path_buf(),
            line: 0,
            column: 0,
            field: None,
            message: format!("cannot read the scenario: {error}"),
        })?;
        Scenario::parse(&text, file)
    }

    /// The player model for `side`.
    pub fn player(&self, side: chessclock::Side) -> &Player {
        let specific = match side {
            chessclock::Side::White => &self.white,
            chessclock::Side::Black => &self.black,
        };
        specific.as_ref().unwrap_or(&self.players)
    }

    /// Checks relations between fields that the types cannot.
    fn validate(&self) -> Result<(), Invalid> {
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
        for (field, occasional) in [
            ("device.bounce", self.device.bounce),
            ("device.stuck_button", self.device.stuck_button),
            ("device.display_freeze", self.device.display_freeze),
            ("arbiter.notice_delay", self.arbiter.notice_delay),
            ("arbiter.pause", self.arbiter.pause),
            ("arbiter.adjust", self.arbiter.adjust),
        ] {
            if occasional.min_ms > occasional.max_ms {
                return Err(Invalid::new(
                    format!("{field}.min_ms"),
                    format!("min_ms ({}) is larger than max_ms ({})", occasional.min_ms, occasional.max_ms),
                ));
            }
        }
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

/// Line, column (1-based) and `table.key` of the error `message` that the
/// TOML reader reported at byte `offset`.
///
/// A "missing field" error points at the table that lacks the field (the
/// whole file for a top-level field), so the field named is that table's
/// path plus the missing key. Any other error points into a key or a value:
/// the field named is the innermost key written there, or for text that is
/// no key at all, the table it is in. A bad time control is pointed at the
/// offending character inside the string.
fn locate(text: &str, offset: usize, message: &str) -> (usize, usize, Option<String>) {
    let sites = sites(text);
    let (line, column) = line_column(text, offset);
    if let Some(missing) = message.strip_prefix("missing field `").and_then(|rest| rest.split('`').next()) {
        // The top level's required fields are named nowhere else; a table
        // header at the very start must not claim them.
        let top_level = ["description", "control"].contains(&missing);
        let table = sites
            .iter()
            .filter(|_| !top_level)
            .filter(|site| if site.header { site.start == offset } else { site.value_start == offset })
            .max_by_key(|site| site.path.len());
        let field = match table {
            Some(table) => format!("{}.{missing}", table.path),
            None => missing.to_string(),
        };
        return (line, column, Some(field));
    }
    let within = sites.iter().filter(|site| site.start <= offset && offset <= site.end).max_by_key(|site| site.start);
    // Text that is no key at all: name the table it is in.
    let table = || sites.iter().filter(|site| site.header && site.start <= offset).max_by_key(|site| site.start);
    let Some(site) = within.or_else(table) else {
        return (line, column, None);
    };
    if site.path == "control" && !site.header && site.value_start == offset {
        if let Some(column) = control_error_column(text, site) {
            return (line, column, Some(site.path.clone()));
        }
    }
    (line, column, Some(site.path.clone()))
}

/// The column of the character a time control's parse error is about, when
/// the control is a plain one-line string (no escapes).
fn control_error_column(text: &str, site: &Site) -> Option<usize> {
    let value = text.get(site.value_start..site.end)?.trim_end();
    let quote = value.chars().next().filter(|quote| *quote == '"' || *quote == '\'')?;
    let inner = value.strip_prefix(quote)?.strip_suffix(quote)?;
    if inner.contains(['\\', '"', '\'']) {
        return None;
    }
    let error = chessclock::notation::parse(inner).err()?;
    let before = inner.get(..error.position.min(inner.len()))?;
    let (_, column) = line_column(text, site.value_start);
    Some(column + 1 + before.chars().count())
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let column = before.get(line_start..).map_or(1, |part| part.chars().count() + 1);
    (line, column)
}

/// Where `field` (a dotted path) is written, for errors found after parsing:
/// the key, or failing that the nearest enclosing table or key that is
/// written; (0, 0) when the field and its tables were all left to their
/// defaults. `element` picks the element of an array of tables.
fn find_key(text: &str, field: &str, element: usize) -> (usize, usize) {
    let sites = sites(text);
    for exact_element in [true, false] {
        let mut path = field;
        loop {
            let found = sites.iter().find(|site| site.path == path && (!exact_element || site.element == element));
            if let Some(site) = found {
                return line_column(text, site.start);
            }
            match path.rsplit_once('.') {
                Some((parent, _)) => path = parent,
                None => break,
            }
        }
    }
    (0, 0)
}

/// A key or a table header as written in a TOML text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Site {
    /// Dotted path from the root (`device.bounce.chance`).
    path: String,
    /// The element of the enclosing array of tables (`[[expect.result]]` or
    /// an inline array of tables); 0 elsewhere.
    element: usize,
    header: bool,
    /// Byte offsets: where the key (or header) starts, where its value
    /// starts, and where the value (or the header line) ends.
    start: usize,
    value_start: usize,
    end: usize,
}

/// Every key and table header of `text`, in order. A forgiving scanner: on
/// text that is not TOML it still ends, and finds what it can.
fn sites(text: &str) -> Vec<Site> {
    let mut scanner = Scanner { text: text.as_bytes(), pos: 0, sites: Vec::new(), arrays: Vec::new() };
    scanner.document();
    scanner.sites
}

struct Scanner<'a> {
    text: &'a [u8],
    pos: usize,
    sites: Vec<Site>,
    /// Elements seen so far of each array of tables, by path.
    arrays: Vec<(String, usize)>,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn starts_with(&self, prefix: &[u8]) -> bool {
        self.text.get(self.pos..).is_some_and(|rest| rest.starts_with(prefix))
    }

    fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    fn skip_line(&mut self) {
        while let Some(byte) = self.peek() {
            self.pos += 1;
            if byte == b'\n' {
                return;
            }
        }
    }

    /// Spaces, newlines and comments.
    fn skip_blank(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.pos += 1,
                Some(b'#') => self.skip_line(),
                _ => return,
            }
        }
    }

    fn document(&mut self) {
        let mut table = String::new();
        let mut element = 0;
        loop {
            self.skip_blank();
            let Some(byte) = self.peek() else { return };
            let start = self.pos;
            if byte == b'[' {
                let array = self.starts_with(b"[[");
                self.pos += if array { 2 } else { 1 };
                table = self.key().join(".");
                element = 0;
                if array {
                    element = match self.arrays.iter_mut().find(|(path, _)| *path == table) {
                        Some((_, count)) => {
                            *count += 1;
                            *count - 1
                        }
                        None => {
                            self.arrays.push((table.clone(), 1));
                            0
                        }
                    };
                }
                self.skip_line();
                // The header's line, without its newline.
                let newline = self.text.get(self.pos.wrapping_sub(1)) == Some(&b'\n');
                let end = if newline { self.pos - 1 } else { self.pos }.max(start);
                self.sites.push(Site { path: table.clone(), element, header: true, start, value_start: start, end });
            } else {
                self.key_value(&table, element);
                if self.pos == start {
                    self.skip_line();
                }
            }
        }
    }

    /// A possibly dotted key; each part unquoted.
    fn key(&mut self) -> Vec<String> {
        let mut parts = Vec::new();
        loop {
            self.skip_spaces();
            let part = match self.peek() {
                Some(quote @ (b'"' | b'\'')) => {
                    let start = self.pos + 1;
                    self.string(quote);
                    let end = self.pos.saturating_sub(1).max(start);
                    String::from_utf8_lossy(self.text.get(start..end).unwrap_or_default()).into_owned()
                }
                _ => {
                    let start = self.pos;
                    while self.peek().is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-') {
                        self.pos += 1;
                    }
                    String::from_utf8_lossy(self.text.get(start..self.pos).unwrap_or_default()).into_owned()
                }
            };
            if part.is_empty() && !matches!(self.text.get(self.pos.wrapping_sub(1)), Some(b'"' | b'\'')) {
                return parts;
            }
            parts.push(part);
            self.skip_spaces();
            if self.peek() == Some(b'.') {
                self.pos += 1;
            } else {
                return parts;
            }
        }
    }

    /// `key = value`, inside the table or inline table at `base`.
    fn key_value(&mut self, base: &str, element: usize) {
        let start = self.pos;
        let key = self.key();
        if key.is_empty() {
            return;
        }
        let path = if base.is_empty() { key.join(".") } else { format!("{base}.{}", key.join(".")) };
        self.skip_spaces();
        if self.peek() == Some(b'=') {
            self.pos += 1;
        }
        self.skip_spaces();
        let index = self.sites.len();
        self.sites.push(Site {
            path: path.clone(),
            element,
            header: false,
            start,
            value_start: self.pos,
            end: self.pos,
        });
        self.value(&path, element);
        if let Some(site) = self.sites.get_mut(index) {
            site.end = self.pos;
        }
    }

    fn value(&mut self, path: &str, element: usize) {
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                loop {
                    self.skip_spaces();
                    match self.peek() {
                        None | Some(b'\n') => return,
                        Some(b'}') => {
                            self.pos += 1;
                            return;
                        }
                        Some(b',') => self.pos += 1,
                        Some(_) => {
                            let before = self.pos;
                            self.key_value(path, element);
                            if self.pos == before {
                                return;
                            }
                        }
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut index = 0;
                loop {
                    self.skip_blank();
                    match self.peek() {
                        None => return,
                        Some(b']') => {
                            self.pos += 1;
                            return;
                        }
                        Some(b',') => {
                            self.pos += 1;
                            index += 1;
                        }
                        Some(_) => {
                            let before = self.pos;
                            self.value(path, index);
                            if self.pos == before {
                                return;
                            }
                        }
                    }
                }
            }
            Some(quote @ (b'"' | b'\'')) => self.string(quote),
            _ => {
                let start = self.pos;
                while self.peek().is_some_and(|byte| !matches!(byte, b',' | b'}' | b']' | b'\n' | b'#')) {
                    self.pos += 1;
                }
                while self.pos > start && matches!(self.text.get(self.pos - 1), Some(b' ' | b'\t' | b'\r')) {
                    self.pos -= 1;
                }
            }
        }
    }

    /// A basic or literal string, one-line or multi-line, from its opening quote.
    fn string(&mut self, quote: u8) {
        let triple = [quote; 3];
        let multi = self.starts_with(&triple);
        self.pos += if multi { 3 } else { 1 };
        while let Some(byte) = self.peek() {
            if multi && self.starts_with(&triple) {
                self.pos += 3;
                // A multi-line string may end with up to two more quotes.
                while self.peek() == Some(quote) {
                    self.pos += 1;
                }
                return;
            }
            if !multi && byte == b'\n' {
                return;
            }
            self.pos += 1;
            if byte == b'\\' && quote == b'"' {
                self.pos += usize::from(self.peek().is_some());
            } else if !multi && byte == quote {
                return;
            }
        }
    }
}
