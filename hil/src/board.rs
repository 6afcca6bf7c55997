//! Board profiles (`hil/boards/*.toml`): which chip, its clock, which pins
//! the firmware reads as buttons, which spare pins the harness drives to
//! press them, and where RTT lives. Users' documentation:
//! `hil/boards/README.md`.
//!
//! Every table rejects unknown fields, and every error names the file, line,
//! column and field, like the scenario files.

use std::fmt;
use std::path::{Path, PathBuf};

use bench_sim::toml_location::LocatedError;
use serde::de::{self, Deserializer};
use serde::Deserialize;

use crate::target::ButtonId;

/// How the harness reaches the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// QEMU (`chip` is the `-machine`).
    Qemu,
    /// A real board through a debug probe (probe-rs; `chip` is probe-rs's target name).
    Probe,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Qemu => "qemu",
            Backend::Probe => "probe",
        }
    }
}

/// How a board's documentation names its pins; a pin is written back the
/// way it was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PinNaming {
    /// `PA0`, `PC13`: port letter and number (STM32, Stellaris).
    Letter,
    /// `P0.13`, `P1.07`: port number, a dot, two-digit pin (nRF52).
    Dotted,
    /// `GPIO15`: one bank, the pin's number (RP2040).
    Gpio,
}

/// A GPIO pin: a port (0 for port A or P0, …) and a pin number in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pin {
    pub port: u8,
    /// 0..=31.
    pub number: u8,
    pub naming: PinNaming,
}

impl Pin {
    /// `PA0`..`PK15`, `P0.00`..`P9.31` or `GPIO0`..`GPIO31`.
    pub fn parse(text: &str) -> Result<Pin, String> {
        let bad = || {
            format!(
                "`{text}` is not a pin: write the port and number as the board's documentation does, \
                 like `PA0` or `PC13` (STM32), `P0.13` or `P1.07` (nRF52), `GPIO15` (RP2040)"
            )
        };
        let number = |digits: &str, max: u8| -> Result<u8, String> {
            if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
                return Err(bad());
            }
            let number: u8 = digits.parse().map_err(|_| bad())?;
            if number > max {
                return Err(format!("`{text}`: a port has pins 0 to {max}"));
            }
            Ok(number)
        };
        if let Some(digits) = text.strip_prefix("GPIO") {
            return Ok(Pin { port: 0, number: number(digits, 31)?, naming: PinNaming::Gpio });
        }
        let rest = text.strip_prefix('P').ok_or_else(bad)?;
        if let Some((port, pin)) = rest.split_once('.') {
            if port.len() != 1 || pin.len() != 2 {
                return Err(bad());
            }
            return Ok(Pin { port: number(port, 9)?, number: number(pin, 31)?, naming: PinNaming::Dotted });
        }
        let mut chars = rest.chars();
        let letter = chars.next().ok_or_else(bad)?;
        if !letter.is_ascii_uppercase() || letter > 'K' {
            return Err(bad());
        }
        Ok(Pin { port: letter as u8 - b'A', number: number(chars.as_str(), 15)?, naming: PinNaming::Letter })
    }

    /// `A` for port 0 in letter naming.
    pub fn port_letter(self) -> char {
        char::from(b'A' + self.port)
    }

    /// This pin's bit in its port's registers.
    fn bit(self) -> u32 {
        1 << self.number
    }
}

impl fmt::Display for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.naming {
            PinNaming::Letter => write!(f, "P{}{}", self.port_letter(), self.number),
            PinNaming::Dotted => write!(f, "P{}.{:02}", self.port, self.number),
            PinNaming::Gpio => write!(f, "GPIO{}", self.number),
        }
    }
}

impl<'de> Deserialize<'de> for Pin {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Pin::parse(&text).map_err(de::Error::custom)
    }
}

/// The register layout of a GPIO family, for the drive pins: each drive
/// pin is set up once after a reset, and each edge is one word written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GpioFamily {
    /// STM32F4: ports on AHB1 from 0x4002_0000, 0x400 apart; clocks in
    /// RCC_AHB1ENR; an edge is a write to the port's BSRR.
    Stm32f4,
    /// nRF52: P0 at 0x5000_0000, P1 at 0x5000_0300; an edge is a write to
    /// OUTSET or OUTCLR, DIRSET makes the pin an output.
    Nrf52,
    /// RP2040: the pin's IO_BANK0 control register (0x4001_4000 + 8n + 4)
    /// overrides its output and output enable, so an edge is one write of
    /// that word. Not SIO: the debug port cannot reach it, it is on each
    /// core's own port.
    Rp2040,
}

/// RP2040 IO_BANK0 GPIOn_CTRL: OEOVER = 3 (output enabled), OUTOVER = 2
/// (low) or 3 (high), FUNCSEL = 31 (no peripheral).
const RP2040_CTRL_OUTPUT: u32 = (3 << 12) | 0x1f;

impl GpioFamily {
    pub fn name(self) -> &'static str {
        match self {
            GpioFamily::Stm32f4 => "stm32f4",
            GpioFamily::Nrf52 => "nrf52",
            GpioFamily::Rp2040 => "rp2040",
        }
    }

    /// Whether `pin` is one of this family's, written its way.
    pub fn check(self, pin: Pin) -> Result<(), String> {
        let (naming, ports, pins, example) = match self {
            GpioFamily::Stm32f4 => (PinNaming::Letter, 11, 16, "PC0"),
            GpioFamily::Nrf52 => (PinNaming::Dotted, 2, 32, "P0.13"),
            GpioFamily::Rp2040 => (PinNaming::Gpio, 1, 30, "GPIO15"),
        };
        if pin.naming != naming || pin.port >= ports || pin.number >= pins {
            return Err(format!("{pin} is no {} pin (write them like `{example}`)", self.name()));
        }
        Ok(())
    }

    fn stm32_port_base(pin: Pin) -> u32 {
        0x4002_0000 + 0x400 * u32::from(pin.port)
    }

    fn nrf_port_base(pin: Pin) -> u32 {
        0x5000_0000 + 0x300 * u32::from(pin.port)
    }

    fn rp2040_ctrl(pin: Pin) -> u32 {
        0x4001_4000 + 8 * u32::from(pin.number) + 4
    }

    /// The writes that make `pin` an output driven high (buttons are active
    /// low: released), after every reset.
    pub fn drive_setup(self, pin: Pin) -> Vec<RegisterWrite> {
        match self {
            GpioFamily::Stm32f4 => {
                let shift = 2 * u32::from(pin.number);
                vec![
                    // RCC_AHB1ENR: clock the port.
                    RegisterWrite::Modify { address: 0x4002_3830, clear: 0, set: 1 << pin.port },
                    self.drive(pin, true),
                    // MODER: 0b01, output.
                    RegisterWrite::Modify {
                        address: Self::stm32_port_base(pin),
                        clear: 0b11 << shift,
                        set: 0b01 << shift,
                    },
                ]
            }
            GpioFamily::Nrf52 => vec![
                self.drive(pin, true),
                RegisterWrite::Store { address: Self::nrf_port_base(pin) + 0x518, value: pin.bit() },
            ],
            GpioFamily::Rp2040 => vec![self.drive(pin, true)],
        }
    }

    /// The one word write that drives `pin` high (`true`) or low.
    pub fn drive(self, pin: Pin, high: bool) -> RegisterWrite {
        match self {
            GpioFamily::Stm32f4 => RegisterWrite::Store {
                address: Self::stm32_port_base(pin) + 0x18,
                value: if high { pin.bit() } else { pin.bit() << 16 },
            },
            GpioFamily::Nrf52 => RegisterWrite::Store {
                address: Self::nrf_port_base(pin) + if high { 0x508 } else { 0x50c },
                value: pin.bit(),
            },
            GpioFamily::Rp2040 => RegisterWrite::Store {
                address: Self::rp2040_ctrl(pin),
                value: RP2040_CTRL_OUTPUT | if high { 3 << 8 } else { 2 << 8 },
            },
        }
    }
}

/// The reference firmware for a board: which image `scripts/build-firmware`
/// writes for it and the command that builds it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Firmware {
    /// The image, relative to the firmware folder (`normal.elf`,
    /// `stm32/normal.elf`).
    pub image: String,
    /// The command that builds it, from the repository's root.
    pub build: String,
}

/// An address range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    pub start: u32,
    pub size: u32,
}

impl Region {
    pub fn contains(&self, address: u64, len: u64) -> bool {
        let start = u64::from(self.start);
        address >= start && address.saturating_add(len) <= start + u64::from(self.size)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    pub flash: Region,
    pub ram: Region,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rtt {
    /// The ELF symbol of the RTT control block.
    pub symbol: String,
}

/// One button: what the firmware reads, and how the harness presses it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ButtonPins {
    /// The input the firmware reads (active low).
    pub input: Pin,
    /// Where to find it on the board, for the wiring list.
    pub input_header: Option<String>,
    /// The spare output the harness drives over SWD (probe boards).
    pub drive: Option<Pin>,
    pub drive_header: Option<String>,
    /// The QEMU key that presses it (QEMU boards).
    pub key: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Buttons {
    pub white: ButtonPins,
    pub black: ButtonPins,
    pub pause: Option<ButtonPins>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlagLed {
    pub pin: Pin,
    pub header: Option<String>,
    #[serde(default = "yes")]
    pub active_high: bool,
}

fn yes() -> bool {
    true
}

/// The free-running counter the firmware stamps press edges and time-base
/// samples with (`hil/CONTRACT.md`, section 5), read by the harness around
/// each press and against host time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counter {
    /// Its 32-bit register.
    pub address: u32,
}

impl Counter {
    /// DWT CYCCNT, the Cortex-M3/M4/M7 cycle counter.
    pub const DWT_CYCCNT: Counter = Counter { address: 0xE000_1004 };
}

impl Default for Counter {
    fn default() -> Self {
        Counter::DWT_CYCCNT
    }
}

/// A parsed, validated board profile.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardProfile {
    /// From the file name; not part of the file.
    #[serde(skip)]
    pub name: String,
    /// One line, shown by `bench boards`.
    pub description: String,
    pub backend: Backend,
    /// probe-rs's target name, or QEMU's machine.
    pub chip: String,
    pub core_clock_hz: u32,
    /// Needed by boards whose buttons are driven pins.
    pub gpio: Option<GpioFamily>,
    /// The reference firmware for the board, if bench builds one; without
    /// it, `bench hil --board NAME` needs `--firmware`.
    pub firmware: Option<Firmware>,
    pub memory: Option<Memory>,
    pub rtt: Rtt,
    /// DWT CYCCNT unless the core has none (a Cortex-M0+ has not).
    #[serde(default)]
    pub counter: Counter,
    pub buttons: Buttons,
    pub flag_led: Option<FlagLed>,
}

/// A board profile that could not be used: file, line, column and field.
pub type BoardError = LocatedError;

/// A write to a 32-bit device register over the debug port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterWrite {
    /// Write `value`.
    Store { address: u32, value: u32 },
    /// Read, clear the `clear` bits, set the `set` bits, write back.
    Modify { address: u32, clear: u32, set: u32 },
}

/// One jumper of the wiring list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Jumper {
    pub button: ButtonId,
    pub drive: Pin,
    pub drive_header: Option<String>,
    pub input: Pin,
    pub input_header: Option<String>,
}

impl BoardProfile {
    /// Parses and validates `text`, read from `file` (for messages and the name).
    pub fn parse(text: &str, file: &Path) -> Result<BoardProfile, BoardError> {
        let mut profile: BoardProfile =
            toml::from_str(text).map_err(|error| LocatedError::from_toml(text, file, &error))?;
        profile.name = file.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
        profile.validate().map_err(|(field, message)| LocatedError::at_field(text, file, field, 0, message))?;
        Ok(profile)
    }

    pub fn load(file: &Path) -> Result<BoardProfile, BoardError> {
        let text = std::fs::read_to_string(file)
            .map_err(|error| LocatedError::whole_file(file, format!("cannot read the board profile: {error}")))?;
        BoardProfile::parse(&text, file)
    }

    /// The buttons the profile wires, White, Black, then Pause.
    pub fn buttons(&self) -> Vec<(ButtonId, &ButtonPins)> {
        let mut buttons = vec![(ButtonId::White, &self.buttons.white), (ButtonId::Black, &self.buttons.black)];
        if let Some(pause) = &self.buttons.pause {
            buttons.push((ButtonId::Pause, pause));
        }
        buttons
    }

    pub fn button(&self, button: ButtonId) -> Option<&ButtonPins> {
        match button {
            ButtonId::White => Some(&self.buttons.white),
            ButtonId::Black => Some(&self.buttons.black),
            ButtonId::Pause => self.buttons.pause.as_ref(),
        }
    }

    /// The jumpers to fit (drive pin → button pin); empty for QEMU.
    pub fn jumpers(&self) -> Vec<Jumper> {
        self.buttons()
            .into_iter()
            .filter_map(|(button, pins)| {
                Some(Jumper {
                    button,
                    drive: pins.drive?,
                    drive_header: pins.drive_header.clone(),
                    input: pins.input,
                    input_header: pins.input_header.clone(),
                })
            })
            .collect()
    }

    /// The register writes that make the drive pins released outputs (after
    /// every reset). Empty when the board has no drive pins.
    pub fn drive_setup(&self) -> Vec<RegisterWrite> {
        let Some(gpio) = self.gpio else { return Vec::new() };
        self.jumpers().into_iter().flat_map(|jumper| gpio.drive_setup(jumper.drive)).collect()
    }

    /// The one word write that presses (drives low) or releases `button`.
    pub fn press_write(&self, button: ButtonId, pressed: bool) -> Result<RegisterWrite, String> {
        let gpio = self.gpio.ok_or_else(|| format!("board `{}` names no `gpio` family", self.name))?;
        let pin = self
            .button(button)
            .and_then(|pins| pins.drive)
            .ok_or_else(|| format!("board `{}` has no drive pin for the {button:?} button", self.name))?;
        Ok(gpio.drive(pin, !pressed))
    }

    /// The jumper list for people, as `bench hil --wiring` prints it.
    pub fn wiring_text(&self) -> String {
        let mut out = format!("{}: {}\n", self.name, self.description);
        let jumpers = self.jumpers();
        if jumpers.is_empty() {
            out.push_str("No jumpers: the harness presses the buttons without wires on this board.\n");
            return out;
        }
        out.push_str("Fit one jumper wire per button (drive pin -> button pin), with the board unpowered:\n");
        let at = |header: &Option<String>| header.as_ref().map(|header| format!(" [{header}]")).unwrap_or_default();
        for jumper in &jumpers {
            let button = match jumper.button {
                ButtonId::White => "white",
                ButtonId::Black => "black",
                ButtonId::Pause => "pause",
            };
            out.push_str(&format!(
                "  {button:<5}  {}{} -> {}{}\n",
                jumper.drive,
                at(&jumper.drive_header),
                jumper.input,
                at(&jumper.input_header)
            ));
        }
        if let Some(led) = &self.flag_led {
            out.push_str(&format!(
                "The flag LED is {}{} (no wire needed).\n",
                led.pin,
                led.header.as_ref().map(|header| format!(" [{header}]")).unwrap_or_default()
            ));
        }
        out.push_str("Leave every other pin of these headers unconnected; the harness drives the outputs itself.\n");
        out
    }

    /// Cross-field rules serde cannot say: `(field, message)` of the first broken one.
    fn validate(&self) -> Result<(), (String, String)> {
        if self.description.trim().is_empty() {
            return Err(("description".into(), "must not be empty".into()));
        }
        if self.chip.trim().is_empty() {
            return Err(("chip".into(), "must name the chip (probe-rs target name or QEMU machine)".into()));
        }
        if self.core_clock_hz == 0 {
            return Err(("core_clock_hz".into(), "must be more than 0".into()));
        }
        if self.rtt.symbol.trim().is_empty() {
            return Err(("rtt.symbol".into(), "must name the ELF symbol of the RTT control block".into()));
        }
        let named = |button: ButtonId| match button {
            ButtonId::White => "buttons.white",
            ButtonId::Black => "buttons.black",
            ButtonId::Pause => "buttons.pause",
        };
        let mut used: Vec<(Pin, String)> = Vec::new();
        for (button, pins) in self.buttons() {
            let table = named(button);
            let mut claim = |pin: Pin, field: String| -> Result<(), (String, String)> {
                if let Some((_, other)) = used.iter().find(|(taken, _)| *taken == pin) {
                    return Err((field, format!("{pin} is already `{other}`; every pin may serve once")));
                }
                used.push((pin, field));
                Ok(())
            };
            claim(pins.input, format!("{table}.input"))?;
            match self.backend {
                Backend::Probe => {
                    let Some(drive) = pins.drive else {
                        return Err((
                            format!("{table}.drive"),
                            "a probe board needs a drive pin for each button (the jumper's other end)".into(),
                        ));
                    };
                    claim(drive, format!("{table}.drive"))?;
                    if let Some(gpio) = self.gpio {
                        gpio.check(drive).map_err(|why| (format!("{table}.drive"), why))?;
                    }
                    if pins.key.is_some() {
                        return Err((format!("{table}.key"), "keys are for QEMU boards; this board is `probe`".into()));
                    }
                }
                Backend::Qemu => {
                    if pins.key.as_deref().is_none_or(|key| key.trim().is_empty()) {
                        return Err((format!("{table}.key"), "a QEMU board needs the key that presses it".into()));
                    }
                    if pins.drive.is_some() {
                        return Err((
                            format!("{table}.drive"),
                            "QEMU presses buttons by key; drive pins are for `probe` boards".into(),
                        ));
                    }
                }
            }
        }
        if let Some(led) = &self.flag_led {
            if let Some((_, other)) = used.iter().find(|(taken, _)| *taken == led.pin) {
                return Err(("flag_led.pin".into(), format!("{} is already `{other}`", led.pin)));
            }
        }
        if self.backend == Backend::Probe && self.gpio.is_none() {
            return Err((
                "gpio".into(),
                "a probe board needs its GPIO family (`stm32f4`, `nrf52` or `rp2040`) to drive pins".into(),
            ));
        }
        if let Some(memory) = &self.memory {
            for (field, region) in [("memory.flash", memory.flash), ("memory.ram", memory.ram)] {
                if region.size == 0 || u64::from(region.start) + u64::from(region.size) > 1 << 32 {
                    return Err((field.into(), "must be a non-empty range within 32-bit addresses".into()));
                }
            }
        }
        Ok(())
    }
}

/// Why a `--board` name could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error(
        "no board named `{name}` in {}; the boards are: {} (`bench boards` describes each)",
        dir.display(),
        known.join(", ")
    )]
    Unknown { name: String, known: Vec<String>, dir: PathBuf },
    #[error("{0}")]
    Invalid(BoardError),
    #[error(
        "cannot read the board directory {}: {error}; run bench from its checkout (which has hil/boards/) or set \
         BENCH_BOARDS to a folder of board profiles",
        dir.display()
    )]
    Directory { dir: PathBuf, error: std::io::Error },
}

/// The directory board profiles are read from: `$BENCH_BOARDS` if set, else
/// `hil/boards/` in the current directory, else the one bench was built with.
pub fn board_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("BENCH_BOARDS").filter(|dir| !dir.is_empty()) {
        return PathBuf::from(dir);
    }
    let local = PathBuf::from("hil/boards");
    if local.is_dir() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("boards")
}

/// Every `*.toml` in `dir`, sorted.
pub fn board_files(dir: &Path) -> Result<Vec<PathBuf>, LookupError> {
    let entries = std::fs::read_dir(dir).map_err(|error| LookupError::Directory { dir: dir.to_path_buf(), error })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// The profile named `name` in `dir`.
pub fn find_in(dir: &Path, name: &str) -> Result<BoardProfile, LookupError> {
    let files = board_files(dir)?;
    match files.iter().find(|file| file.file_stem().is_some_and(|stem| stem == name)) {
        Some(file) => BoardProfile::load(file).map_err(LookupError::Invalid),
        None => Err(LookupError::Unknown {
            name: name.to_string(),
            known: files
                .iter()
                .filter_map(|file| file.file_stem().map(|stem| stem.to_string_lossy().into_owned()))
                .collect(),
            dir: dir.to_path_buf(),
        }),
    }
}

/// The profile named `name` in [`board_dir`].
pub fn find(name: &str) -> Result<BoardProfile, LookupError> {
    find_in(&board_dir(), name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> BoardProfile {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards").join(format!("{name}.toml"));
        BoardProfile::load(&file).unwrap()
    }

    fn stm32_text() -> String {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("boards/stm32.toml")).unwrap()
    }

    fn fails(text: &str) -> BoardError {
        BoardProfile::parse(text, Path::new("boards/test.toml")).unwrap_err()
    }

    #[test]
    fn the_shipped_profiles_load() {
        let stm32 = shipped("stm32");
        assert_eq!(stm32.name, "stm32");
        assert_eq!(stm32.backend, Backend::Probe);
        assert_eq!(stm32.chip, "STM32F401RETx");
        assert_eq!(stm32.core_clock_hz, 84_000_000);
        assert_eq!(stm32.jumpers().len(), 3);
        let qemu = shipped("qemu");
        assert_eq!(qemu.backend, Backend::Qemu);
        assert!(qemu.jumpers().is_empty());
        assert_eq!(qemu.buttons.white.key.as_deref(), Some("up"));
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards");
        let names: Vec<String> = board_files(&dir)
            .unwrap()
            .iter()
            .map(|file| file.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["nrf52840-dk", "pico", "qemu", "stm32"]);
        for name in &names {
            let profile = shipped(name);
            if profile.backend == Backend::Probe {
                assert!(!profile.drive_setup().is_empty(), "{name}");
                assert!(profile.press_write(ButtonId::White, true).is_ok(), "{name}");
            }
        }
        assert_eq!(shipped("nrf52840-dk").gpio, Some(GpioFamily::Nrf52));
        assert_eq!(shipped("pico").gpio, Some(GpioFamily::Rp2040));
        // The Cortex-M0+ has no DWT CYCCNT: the Pico's counter is its TIMER's.
        assert_eq!(shipped("pico").counter, Counter { address: 0x4005_4028 });
        assert_eq!(shipped("stm32").counter, Counter::DWT_CYCCNT);
        assert_eq!(shipped("nrf52840-dk").counter, Counter::DWT_CYCCNT);
    }

    #[test]
    fn the_wiring_lists_each_jumper() {
        let text = shipped("stm32").wiring_text();
        assert!(text.contains("white  PC0 [A5 (CN8 pin 6)] -> PA0 [A0 (CN8 pin 1)]"), "{text}");
        assert!(text.contains("black  PC1 [A4 (CN8 pin 5)] -> PA1 [A1 (CN8 pin 2)]"), "{text}");
        assert!(text.contains("pause  PB0 [A3 (CN8 pin 4)] -> PA4 [A2 (CN8 pin 3)]"), "{text}");
        assert!(text.contains("PA5"), "the flag LED: {text}");
        assert!(shipped("qemu").wiring_text().contains("No jumpers"));
    }

    #[test]
    fn each_family_drives_a_pin_with_one_word() {
        let pin = |text: &str| Pin::parse(text).unwrap();
        let store = |address, value| RegisterWrite::Store { address, value };
        // STM32F4: PC1's BSRR, bit 1 sets, bit 17 resets.
        assert_eq!(GpioFamily::Stm32f4.drive(pin("PC1"), true), store(0x4002_0818, 1 << 1));
        assert_eq!(GpioFamily::Stm32f4.drive(pin("PC1"), false), store(0x4002_0818, 1 << 17));
        // nRF52: P1.07 is port 1 (0x5000_0300), OUTSET / OUTCLR / DIRSET.
        assert_eq!(GpioFamily::Nrf52.drive(pin("P1.07"), true), store(0x5000_0808, 1 << 7));
        assert_eq!(GpioFamily::Nrf52.drive(pin("P0.13"), false), store(0x5000_050c, 1 << 13));
        assert_eq!(
            GpioFamily::Nrf52.drive_setup(pin("P0.13")),
            [store(0x5000_0508, 1 << 13), store(0x5000_0518, 1 << 13)]
        );
        // RP2040: GPIO15's IO_BANK0 control word, output enabled, driven high or low.
        assert_eq!(GpioFamily::Rp2040.drive(pin("GPIO15"), true), store(0x4001_407c, 0x331f));
        assert_eq!(GpioFamily::Rp2040.drive(pin("GPIO15"), false), store(0x4001_407c, 0x321f));
        assert_eq!(GpioFamily::Rp2040.drive_setup(pin("GPIO0")), [store(0x4001_4004, 0x331f)]);
        // A pin written for another family is refused, naming how to write one.
        assert!(GpioFamily::Stm32f4.check(pin("P0.13")).unwrap_err().contains("`PC0`"));
        assert!(GpioFamily::Nrf52.check(pin("P2.01")).is_err());
        assert!(GpioFamily::Rp2040.check(pin("GPIO30")).is_err());
        assert!(GpioFamily::Rp2040.check(pin("GPIO29")).is_ok());
    }

    #[test]
    fn presses_and_setup_are_register_writes() {
        let stm32 = shipped("stm32");
        // White drives PC0: BSRR of port C, bit 16 (reset) to press, bit 0 to release.
        assert_eq!(
            stm32.press_write(ButtonId::White, true),
            Ok(RegisterWrite::Store { address: 0x4002_0818, value: 1 << 16 })
        );
        assert_eq!(
            stm32.press_write(ButtonId::Pause, false),
            Ok(RegisterWrite::Store { address: 0x4002_0418, value: 1 })
        );
        let setup = stm32.drive_setup();
        assert_eq!(setup.len(), 9);
        assert_eq!(setup[0], RegisterWrite::Modify { address: 0x4002_3830, clear: 0, set: 1 << 2 });
        assert_eq!(setup[1], RegisterWrite::Store { address: 0x4002_0818, value: 1 });
        assert_eq!(setup[2], RegisterWrite::Modify { address: 0x4002_0800, clear: 0b11, set: 0b01 });
        assert_eq!(setup[5], RegisterWrite::Modify { address: 0x4002_0800, clear: 0b11 << 2, set: 0b01 << 2 });
        assert_eq!(setup[6], RegisterWrite::Modify { address: 0x4002_3830, clear: 0, set: 1 << 1 });
        let qemu = shipped("qemu");
        assert!(qemu.drive_setup().is_empty());
        assert!(qemu.press_write(ButtonId::White, true).is_err());
    }

    #[test]
    fn pins_are_checked() {
        assert_eq!(Pin::parse("PA0"), Ok(Pin { port: 0, number: 0, naming: PinNaming::Letter }));
        assert_eq!(Pin::parse("P1.07"), Ok(Pin { port: 1, number: 7, naming: PinNaming::Dotted }));
        assert_eq!(Pin::parse("GPIO25"), Ok(Pin { port: 0, number: 25, naming: PinNaming::Gpio }));
        for written in ["PC13", "P0.13", "P1.00", "GPIO0", "GPIO29"] {
            assert_eq!(Pin::parse(written).unwrap().to_string(), written, "written back as read");
        }
        for bad in ["A0", "PA", "PA16", "Pa1", "PZ1", "PA01x", "P", "", "P0.1", "P0.32", "P10.01", "GPIO", "GPIO32"] {
            assert!(Pin::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_drive_pin_of_another_family_is_pointed_at() {
        let text = stm32_text().replace("drive = \"PC1\"", "drive = \"P0.13\"");
        let error = fails(&text);
        assert_eq!(error.field.as_deref(), Some("buttons.black.drive"), "{error}");
        assert!(error.message.contains("no stm32f4 pin"), "{error}");
    }

    #[test]
    fn an_unknown_field_names_file_line_column_and_field() {
        let text = stm32_text().replace("drive = \"PC1\"", "drive = \"PC1\"\ndirve = \"PC2\"");
        let error = fails(&text);
        let line = text.lines().position(|line| line.starts_with("dirve")).unwrap() + 1;
        assert_eq!(error.line, line, "{error}");
        assert_eq!(error.column, 1, "{error}");
        assert_eq!(error.field.as_deref(), Some("buttons.black.dirve"), "{error}");
        let shown = error.to_string();
        assert!(shown.starts_with(&format!("boards/test.toml:{line}:1: field `buttons.black.dirve`")), "{shown}");
        assert!(shown.contains("unknown field"), "{shown}");
    }

    #[test]
    fn a_bad_pin_is_pointed_at() {
        let text = stm32_text().replace("input = \"PA4\"", "input = \"PA44\"");
        let error = fails(&text);
        let line = text.lines().position(|line| line.contains("PA44")).unwrap() + 1;
        assert_eq!((error.line, error.field.as_deref()), (line, Some("buttons.pause.input")), "{error}");
        assert!(error.message.contains("pins 0 to 15"), "{error}");
    }

    #[test]
    fn a_missing_field_is_named() {
        let text = stm32_text().replace("chip = \"STM32F401RETx\"\n", "");
        let error = fails(&text);
        assert_eq!(error.field.as_deref(), Some("chip"), "{error}");
        assert!(error.message.contains("missing field"), "{error}");
        let text = stm32_text().replace("symbol = \"_SEGGER_RTT\"\n", "");
        let error = fails(&text);
        assert_eq!(error.field.as_deref(), Some("rtt.symbol"), "{error}");
    }

    #[test]
    fn a_wrong_type_or_value_is_named() {
        let error = fails(&stm32_text().replace("core_clock_hz = 84_000_000", "core_clock_hz = \"fast\""));
        assert_eq!(error.field.as_deref(), Some("core_clock_hz"), "{error}");
        let error = fails(&stm32_text().replace("backend = \"probe\"", "backend = \"jtag\""));
        assert_eq!(error.field.as_deref(), Some("backend"), "{error}");
        assert_eq!(error.line, 5, "{error}");
    }

    #[test]
    fn cross_field_rules_name_the_field_and_its_line() {
        // A drive pin that is also a button input.
        let text = stm32_text().replace("drive = \"PC1\"", "drive = \"PA0\"");
        let error = fails(&text);
        let line = text.lines().position(|line| line.contains("drive = \"PA0\"")).unwrap() + 1;
        assert_eq!((error.line, error.column), (line, 1), "{error}");
        assert_eq!(error.field.as_deref(), Some("buttons.black.drive"), "{error}");
        assert!(error.message.contains("already `buttons.white.input`"), "{error}");
        // A probe board without a drive pin: pointed at its table.
        let text = stm32_text().replace("drive = \"PB0\"\n", "");
        let error = fails(&text);
        let line = text.lines().position(|line| line == "[buttons.pause]").unwrap() + 1;
        assert_eq!((error.line, error.field.as_deref()), (line, Some("buttons.pause.drive")), "{error}");
        // A probe board without its GPIO family.
        let error = fails(&stm32_text().replace("gpio = \"stm32f4\"\n", ""));
        assert_eq!(error.field.as_deref(), Some("gpio"), "{error}");
        // A QEMU board without a key.
        let qemu = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("boards/qemu.toml")).unwrap();
        let error = fails(&qemu.replace("key = \"down\"\n", ""));
        assert_eq!(error.field.as_deref(), Some("buttons.black.key"), "{error}");
    }

    #[test]
    fn unknown_board_names_the_known_ones() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards");
        let error = find_in(&dir, "nucleo").unwrap_err().to_string();
        assert!(error.contains("no board named `nucleo`") && error.contains("qemu, stm32"), "{error}");
        let missing = BoardProfile::load(Path::new("/nonexistent/x.toml")).unwrap_err();
        assert_eq!(missing.line, 0);
        assert!(missing.to_string().starts_with("/nonexistent/x.toml: cannot read"), "{missing}");
    }
}
