//! A game as a file: the replay file `bench sim --shrink` writes and
//! `bench sim --replay` plays (`scenarios/README.md`, "Replay files").
//!
//! Versioned TOML, small enough to read and attach to a bug report. It
//! holds everything the game needs and nothing drawn for the players or
//! the arbiter: the scenario file itself, the seed and game that fix the
//! board, the flag notices and the device's defects, the defects switched
//! off, the move bound, and the [`Script`]: each move's instant and the
//! arbiter's acts after it. The n-th `[[move]]` is made by whoever is to
//! move when it comes (White first).

use std::path::Path;

use chessclock::{Duration, Side, TimeAdjustment};
use serde::{Deserialize, Serialize};

use crate::defects::DefectSet;
use crate::game::{Act, Fault, PressFault, Script, ScriptedAct, ScriptedMove, ScriptedPress, BOUNCE_EDGES_MAX};
use crate::scenario::{Control, Scenario};
use crate::toml_location::LocatedError;

/// The `format` every replay file names.
pub const FORMAT: &str = "bench-replay";
/// The version this build writes and reads.
pub const VERSION: u32 = 1;

/// One game to play again.
#[derive(Clone, Debug)]
pub struct Replay {
    pub scenario: Scenario,
    /// The scenario file's text, written back as read.
    pub scenario_toml: String,
    pub seed: u64,
    pub game: u64,
    pub swarm: bool,
    pub disabled: DefectSet,
    pub max_moves: u32,
    /// A control the game is played with instead of the scenario's (a
    /// shrink's shorter one).
    pub control: Option<Control>,
    pub script: Script,
    /// What the game fails of, in words, when it was written for a
    /// failure; read back for people only.
    pub cause: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct File {
    format: String,
    version: u32,
    scenario: String,
    seed: u64,
    game: u64,
    #[serde(default)]
    swarm: bool,
    #[serde(default)]
    disabled: Vec<String>,
    max_moves: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    control: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cause: Option<String>,
    scenario_toml: String,
    #[serde(rename = "move", default)]
    moves: Vec<MoveRow>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct MoveRow {
    at_us: u64,
    /// How long `bench hil` holds the button, µs; with it, `bounce_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hold_us: Option<u64>,
    /// The press's contact bounce: how long the contact opens before each
    /// extra closing edge, ms (`[]`: a clean press).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bounce_ms: Option<Vec<u8>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    act: Vec<ActRow>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    fault: Vec<FaultRow>,
}

/// A device fault: `missed`, `stuck`, `jitter`, `bounce`, `double` (on
/// press `press` of the move), `brownout` or `freeze` (after its press).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct FaultRow {
    fault: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    press: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stuck_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    jitter_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bounce_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gap_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    after_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    down_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    freeze_us: Option<u64>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct ActRow {
    at_us: u64,
    /// `pause`, `adjust`, `set_moves`, `restore` or `replace`.
    act: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pause_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    side: Option<String>,
    /// Time added (positive) or removed (negative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    adjust_us: Option<i64>,
}

const HEADER: &str = "\
# A bench replay file: one game's input, played again with no draw for the
# players or the arbiter. `bench sim --replay FILE` plays it.
# Each [[move]] is the instant (µs after the start) the player to move
# completes a move, White first; its [[move.act]] are the arbiter's acts
# after that press, its [[move.fault]] what the device's defects did at it
# (press 0 is the move's own, n the n-th press after it that puts a wrong
# clock right). `hold_us` and `bounce_ms` say how `bench hil` presses the
# button (how long it is held; how long the contact opens before each extra
# closing edge); without them it draws both. The board, flag notices and
# drift come from the embedded scenario with `seed` and `game`; `control`,
# when given, replaces the scenario's time control.
";

impl Replay {
    /// The file's text.
    pub fn to_toml(&self) -> String {
        let file = File {
            format: FORMAT.to_string(),
            version: VERSION,
            scenario: self.scenario.name.clone(),
            seed: self.seed,
            game: self.game,
            swarm: self.swarm,
            disabled: self.disabled.iter().map(|defect| defect.name().to_string()).collect(),
            max_moves: self.max_moves,
            control: self.control.as_ref().map(|control| control.text.clone()),
            cause: self.cause.clone(),
            scenario_toml: self.scenario_toml.clone(),
            moves: self.script.moves.iter().map(move_row).collect(),
        };
        // Plain data with string keys: serializing cannot fail.
        let body = toml::to_string(&file).unwrap_or_default();
        format!("{HEADER}{body}")
    }

    /// Reads and checks a replay file: every error names the file, and the
    /// field where there is one.
    pub fn parse(text: &str, path: &Path) -> Result<Replay, LocatedError> {
        let file: File = toml::from_str(text).map_err(|error| LocatedError::from_toml(text, path, &error))?;
        let at_field = |field: &str, element: usize, message: String| {
            LocatedError::at_field(text, path, field.to_string(), element, message)
        };
        if file.format != FORMAT {
            let message = format!("format is `{}`; a replay file says `format = \"{FORMAT}\"`", file.format);
            return Err(at_field("format", 0, message));
        }
        if file.version != VERSION {
            let message = format!("version {} is not one this bench reads: it reads version {VERSION}", file.version);
            return Err(at_field("version", 0, message));
        }
        let scenario_path = Path::new(&file.scenario).with_extension("toml");
        let scenario = Scenario::parse(&file.scenario_toml, &scenario_path)
            .map_err(|error| at_field("scenario_toml", 0, format!("the embedded scenario does not parse: {error}")))?;
        if scenario.correspondence.is_some() {
            let message = format!("`{}` is a correspondence scenario: there is no game to replay", file.scenario);
            return Err(at_field("scenario_toml", 0, message));
        }
        let disabled =
            DefectSet::parse(&file.disabled.join(",")).map_err(|message| at_field("disabled", 0, message))?;
        if file.max_moves == 0 {
            return Err(at_field("max_moves", 0, "max_moves must be at least 1".to_string()));
        }
        let script = script(&file.moves).map_err(|(element, message)| at_field("move", element, message))?;
        let control = match &file.control {
            Some(text) => Some(Control {
                text: text.clone(),
                control: chessclock::notation::parse(text)
                    .map_err(|error| at_field("control", 0, format!("time control `{text}`: {error}")))?,
            }),
            None => None,
        };
        Ok(Replay {
            scenario,
            scenario_toml: file.scenario_toml,
            seed: file.seed,
            game: file.game,
            swarm: file.swarm,
            disabled,
            max_moves: file.max_moves,
            control,
            script,
            cause: file.cause,
        })
    }

    /// Reads a replay file.
    pub fn load(path: &Path) -> Result<Replay, LocatedError> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| LocatedError::whole_file(path, format!("cannot read the replay file: {error}")))?;
        Replay::parse(&text, path)
    }

    /// The scenario as the game is played: its move bound set, and the
    /// file's control when it has one.
    pub fn played_scenario(&self) -> Scenario {
        let mut scenario = self.scenario.clone();
        scenario.board.max_moves = self.max_moves;
        if let Some(control) = &self.control {
            scenario.control = control.clone();
        }
        scenario
    }
}

/// The control `scenario` is played with when it is not the one
/// `scenario_toml` says (a replay file's, or a shrink's shorter one): what
/// a replay file of it writes as `control`.
pub fn control_override(scenario: &Scenario, scenario_toml: &str) -> Option<Control> {
    let written = Scenario::parse(scenario_toml, Path::new("scenario.toml")).ok()?;
    (written.control != scenario.control).then(|| scenario.control.clone())
}

fn move_row(scripted: &ScriptedMove) -> MoveRow {
    MoveRow {
        at_us: scripted.at_us,
        hold_us: scripted.press.as_ref().map(|press| press.hold_us),
        bounce_ms: scripted.press.as_ref().map(|press| press.bounce_open_ms.clone()),
        act: scripted.arbiter.iter().map(act_row).collect(),
        fault: scripted.faults.iter().map(|fault| fault_row(*fault)).collect(),
    }
}

fn fault_row(fault: Fault) -> FaultRow {
    let named = |name: &str| FaultRow { fault: name.to_string(), ..FaultRow::default() };
    match fault {
        Fault::Press { press, fault } => {
            let row = |name: &str| FaultRow { press: Some(press), ..named(name) };
            match fault {
                PressFault::Missed => row("missed"),
                PressFault::Stuck { stuck_us } => FaultRow { stuck_us: Some(stuck_us), ..row("stuck") },
                PressFault::Jitter { jitter_us } => FaultRow { jitter_us: Some(jitter_us), ..row("jitter") },
                PressFault::Bounce { bounce_us } => FaultRow { bounce_us: Some(bounce_us), ..row("bounce") },
                PressFault::Double { gap_us } => FaultRow { gap_us: Some(gap_us), ..row("double") },
            }
        }
        Fault::Brownout { after_us, down_us } => {
            FaultRow { after_us: Some(after_us), down_us: Some(down_us), ..named("brownout") }
        }
        Fault::Freeze { freeze_us } => FaultRow { freeze_us: Some(freeze_us), ..named("freeze") },
    }
}

fn fault(row: &FaultRow) -> Result<Fault, String> {
    let needs = |field: Option<u64>, name: &str| field.ok_or_else(|| format!("a `{}` fault needs `{name}`", row.fault));
    let press = |fault| Ok(Fault::Press { press: row.press.unwrap_or(0), fault });
    match row.fault.as_str() {
        "missed" => press(PressFault::Missed),
        "stuck" => press(PressFault::Stuck { stuck_us: needs(row.stuck_us, "stuck_us")? }),
        "jitter" => press(PressFault::Jitter { jitter_us: needs(row.jitter_us, "jitter_us")? }),
        "bounce" => press(PressFault::Bounce { bounce_us: needs(row.bounce_us, "bounce_us")? }),
        "double" => press(PressFault::Double { gap_us: needs(row.gap_us, "gap_us")? }),
        "brownout" => {
            Ok(Fault::Brownout { after_us: needs(row.after_us, "after_us")?, down_us: needs(row.down_us, "down_us")? })
        }
        "freeze" => Ok(Fault::Freeze { freeze_us: needs(row.freeze_us, "freeze_us")? }),
        other => Err(format!(
            "fault `{other}` is not a device fault: missed, stuck, jitter, bounce, double, brownout or freeze"
        )),
    }
}

fn act_row(scripted: &ScriptedAct) -> ActRow {
    let row =
        |act: &str| ActRow { at_us: scripted.at_us, act: act.to_string(), pause_us: None, side: None, adjust_us: None };
    match scripted.act {
        Act::Pause { pause_us } => ActRow { pause_us: Some(pause_us), ..row("pause") },
        Act::Adjust { side, adjustment } => {
            let adjust_us = match adjustment {
                TimeAdjustment::Add(amount) => i64::try_from(amount.as_us()).unwrap_or(i64::MAX),
                TimeAdjustment::Subtract(amount) => i64::try_from(amount.as_us()).map_or(i64::MIN, |us| -us),
            };
            ActRow { side: Some(side_name(side).to_string()), adjust_us: Some(adjust_us), ..row("adjust") }
        }
        Act::SetMoves => row("set_moves"),
        Act::Restore => row("restore"),
        Act::Replace => row("replace"),
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::White => "white",
        Side::Black => "black",
    }
}

/// The rows as a script: instants never go back, and each act has what
/// its kind needs. Errors give the move's index.
fn script(rows: &[MoveRow]) -> Result<Script, (usize, String)> {
    let mut moves = Vec::with_capacity(rows.len());
    let mut last_us = 0;
    for (index, row) in rows.iter().enumerate() {
        if row.at_us < last_us {
            return Err((
                index,
                format!("move {} at {} µs comes before the one above it ({last_us} µs)", index + 1, row.at_us),
            ));
        }
        last_us = row.at_us;
        let arbiter =
            row.act.iter().map(act).collect::<Result<Vec<_>, String>>().map_err(|message| (index, message))?;
        let faults =
            row.fault.iter().map(fault).collect::<Result<Vec<_>, String>>().map_err(|message| (index, message))?;
        let press = press(row).map_err(|message| (index, message))?;
        moves.push(ScriptedMove { at_us: row.at_us, arbiter, faults, press });
    }
    Ok(Script { moves })
}

/// How `bench hil` presses the move's button, when the row says.
fn press(row: &MoveRow) -> Result<Option<ScriptedPress>, String> {
    let Some(hold_us) = row.hold_us else {
        return match row.bounce_ms {
            Some(_) => Err("`bounce_ms` needs `hold_us`: a press's bounce comes with its hold".to_string()),
            None => Ok(None),
        };
    };
    let bounce_open_ms = row.bounce_ms.clone().unwrap_or_default();
    if bounce_open_ms.len() > BOUNCE_EDGES_MAX || bounce_open_ms.contains(&0) {
        return Err(format!(
            "`bounce_ms` {bounce_open_ms:?}: at most {BOUNCE_EDGES_MAX} openings, each at least 1 ms (`[]` for a clean press)"
        ));
    }
    if hold_us == 0 {
        return Err("`hold_us` must be at least 1 µs: a press is held".to_string());
    }
    Ok(Some(ScriptedPress { hold_us, bounce_open_ms }))
}

fn act(row: &ActRow) -> Result<ScriptedAct, String> {
    let needs = |what: &str| format!("an `{}` act needs `{what}`", row.act);
    let act = match row.act.as_str() {
        "pause" => Act::Pause { pause_us: row.pause_us.ok_or_else(|| needs("pause_us"))? },
        "adjust" => {
            let side = match row.side.as_deref() {
                Some("white") => Side::White,
                Some("black") => Side::Black,
                Some(other) => return Err(format!("side `{other}`: write `white` or `black`")),
                None => return Err(needs("side")),
            };
            let adjust_us = row.adjust_us.ok_or_else(|| needs("adjust_us"))?;
            let amount = Duration::from_us(adjust_us.unsigned_abs());
            let adjustment = if adjust_us < 0 { TimeAdjustment::Subtract(amount) } else { TimeAdjustment::Add(amount) };
            Act::Adjust { side, adjustment }
        }
        "set_moves" => Act::SetMoves,
        "restore" => Act::Restore,
        "replace" => Act::Replace,
        other => {
            return Err(format!("act `{other}` is not an arbiter act: pause, adjust, set_moves, restore or replace"))
        }
    };
    Ok(ScriptedAct { at_us: row.at_us, act })
}
