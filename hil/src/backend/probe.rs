//! A real board through a debug probe (probe-rs): flashing, reset, memory
//! access while the core runs, and button presses as real GPIO edges (the
//! harness writes a spare output's BSRR over SWD; a jumper carries it to the
//! button input, `hil/boards/README.md`).
//!
//! Probe selection works like probe-rs's CLI: `--probe VID:PID[:SERIAL]`,
//! and with exactly one probe attached it is used without flags. The
//! selection and the image check against the board profile are plain code,
//! tested without hardware; [`ProbeTarget`] needs the `probe` feature (on
//! by default); without it [`RealProbes`] lists no probe and says why.
//!
//! The board's DWT CYCCNT is read around each button write (latency on the
//! board) and against host time (oscillator drift).
//!
//! The one place below the CLI that draws on the console: `ProbeTarget`'s
//! [`Target::load`] shows flashing as an `indicatif` progress bar on
//! stderr.

use std::fmt;
use std::path::Path;

use crate::board::BoardProfile;
use crate::image::Purpose;
use crate::target::{Target, TargetError};

/// The debug probes of a host and how to open one.
pub trait ProbeBackend: Sync {
    type Board: Target;
    /// The probes attached now.
    fn list(&self) -> Result<Vec<ProbeInfo>, ProbeError>;
    /// Opens `probe` and attaches to the chip of `profile` (or
    /// `options.chip`) with `options`' speed and reset mode.
    fn open(
        &self,
        probe: &ProbeInfo,
        profile: &BoardProfile,
        options: &ProbeOptions,
    ) -> Result<Self::Board, ProbeError>;
    /// Flashes and verifies `elf` and leaves the core halted at reset, like
    /// [`Target::load`], telling `progress` how far it got.
    fn flash(
        &self,
        board: &mut Self::Board,
        elf: &Path,
        progress: &mut dyn FnMut(FlashUpdate),
    ) -> Result<(), TargetError> {
        let _no_progress_to_report = progress;
        board.load(elf)
    }
}

/// `VID:PID[:SERIAL]`, hexadecimal ids, as probe-rs's `--probe` takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    pub vendor_id: u16,
    pub product_id: u16,
    pub serial: Option<String>,
}

impl Selector {
    pub fn parse(text: &str) -> Result<Selector, String> {
        let bad =
            |why: &str| format!("--probe `{text}`: {why}; write VID:PID or VID:PID:SERIAL in hex, like 0483:374b");
        let mut parts = text.splitn(3, ':');
        let (Some(vid), Some(pid)) = (parts.next(), parts.next()) else {
            return Err(bad("no `:` between vendor and product id"));
        };
        let id = |part: &str, what: &str| {
            u16::from_str_radix(part, 16).map_err(|_| bad(&format!("`{part}` is not a 16-bit hex {what} id")))
        };
        let serial = parts.next().map(str::to_string);
        if serial.as_deref() == Some("") {
            return Err(bad("the serial after the second `:` is empty"));
        }
        Ok(Selector { vendor_id: id(vid, "vendor")?, product_id: id(pid, "product")?, serial })
    }

    pub fn matches(&self, probe: &ProbeInfo) -> bool {
        self.vendor_id == probe.vendor_id
            && self.product_id == probe.product_id
            && self.serial.as_ref().is_none_or(|serial| probe.serial.as_ref() == Some(serial))
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04x}:{:04x}", self.vendor_id, self.product_id)?;
        if let Some(serial) = &self.serial {
            write!(f, ":{serial}")?;
        }
        Ok(())
    }
}

/// An attached probe, as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeInfo {
    pub identifier: String,
    pub vendor_id: u16,
    pub product_id: u16,
    pub serial: Option<String>,
}

impl ProbeInfo {
    /// The selector that picks exactly this probe.
    pub fn selector(&self) -> Selector {
        Selector { vendor_id: self.vendor_id, product_id: self.product_id, serial: self.serial.clone() }
    }
}

impl fmt::Display for ProbeInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.identifier, self.selector())
    }
}

/// How to pick and attach the probe (the CLI's `--probe`, `--chip`,
/// `--speed`, `--connect-under-reset`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProbeOptions {
    pub selectors: Vec<Selector>,
    /// Overrides the profile's chip.
    pub chip: Option<String>,
    /// SWD clock, kHz (the probe's default when `None`).
    pub speed_khz: Option<u32>,
    pub connect_under_reset: bool,
}

/// Why no probe could be used.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// Nothing attached (or nothing matching the selectors); `board` is
    /// the profile's description, what to plug in.
    #[error("{}", not_found(wanted, found, board))]
    NotFound { wanted: Vec<Selector>, found: Vec<ProbeInfo>, board: String },
    /// Several attached and no selector (`selector: None`), or several
    /// matching one selector.
    #[error("{}", ambiguous(selector.as_ref(), found))]
    Ambiguous { selector: Option<Selector>, found: Vec<ProbeInfo> },
    /// Two `--probe` selectors pick the same probe.
    #[error("--probe picks {probe} twice; name each board once (VID:PID:SERIAL tells boards of one kind apart)")]
    Duplicate { probe: ProbeInfo },
    /// probe-rs failed; the text is the whole cause chain.
    #[error("{doing}: {detail}")]
    Probe { doing: String, detail: String },
    /// The bench was built without the `probe` feature.
    #[error(
        "this bench was built without probe support (cargo feature `probe`); rebuild with \
         `cargo build --features probe`, or run `bench hil --board qemu`"
    )]
    NotBuilt,
}

fn list(found: &[ProbeInfo]) -> String {
    if found.is_empty() {
        "nothing".to_string()
    } else {
        found.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    }
}

/// [`ProbeError::NotFound`]: what was found, and what to plug in or name.
fn not_found(wanted: &[Selector], found: &[ProbeInfo], board: &str) -> String {
    let plug_in = format!(
        "\nPlug in the board this profile describes ({board}) and check that `probe-rs list` shows its probe. \
         On Linux, a probe that is plugged in but not found usually needs probe-rs's udev rules \
         (https://probe.rs/docs/getting-started/probe-setup/).\
         \n`bench hil --board qemu` runs the same games without hardware."
    );
    if wanted.is_empty() {
        return format!("no debug probe found (found: {}).{plug_in}", list(found));
    }
    let wanted: Vec<String> = wanted.iter().map(ToString::to_string).collect();
    let head = format!("no debug probe matches --probe {} (found: {}).", wanted.join(", "), list(found));
    if found.is_empty() {
        return format!("{head}{plug_in}");
    }
    format!(
        "{head}\nName one of the probes found (VID:PID:SERIAL as listed), or plug in the board you meant and \
         check it with `probe-rs list`."
    )
}

/// [`ProbeError::Ambiguous`]: which probes, and how to pick one or several.
fn ambiguous(selector: Option<&Selector>, found: &[ProbeInfo]) -> String {
    match selector {
        None => format!(
            "{} debug probes are attached ({}); pick one with --probe VID:PID:SERIAL, or repeat --probe \
             to spread the games over several boards",
            found.len(),
            list(found)
        ),
        Some(selector) => format!(
            "--probe {selector} matches {} debug probes ({}); add the serial (--probe VID:PID:SERIAL) to \
             name one, and repeat --probe to use several",
            found.len(),
            list(found)
        ),
    }
}

impl ProbeError {
    /// The user must change the command (pick probes), rather than plug
    /// something in or fix the board (exit 2, not 3).
    pub fn is_usage(&self) -> bool {
        matches!(self, ProbeError::Ambiguous { .. } | ProbeError::Duplicate { .. })
    }
}

/// The probes to use: those the selectors name (each must match one), or
/// with no selector the only one attached. `board` says what to plug in
/// when nothing fits (the profile's description).
pub fn choose(found: &[ProbeInfo], selectors: &[Selector], board: &str) -> Result<Vec<ProbeInfo>, ProbeError> {
    let not_found =
        |wanted: Vec<Selector>, found: Vec<ProbeInfo>| ProbeError::NotFound { wanted, found, board: board.to_string() };
    if selectors.is_empty() {
        return match found {
            [] => Err(not_found(Vec::new(), Vec::new())),
            [one] => Ok(vec![one.clone()]),
            _ => Err(ProbeError::Ambiguous { selector: None, found: found.to_vec() }),
        };
    }
    let mut chosen = Vec::new();
    for selector in selectors {
        let matching: Vec<&ProbeInfo> = found.iter().filter(|probe| selector.matches(probe)).collect();
        match matching.as_slice() {
            [] => return Err(not_found(vec![selector.clone()], found.to_vec())),
            [one] => chosen.push((*one).clone()),
            _ => {
                return Err(ProbeError::Ambiguous {
                    selector: Some(selector.clone()),
                    found: matching.into_iter().cloned().collect(),
                })
            }
        }
    }
    Ok(chosen)
}

/// The whole cause chain of an error, `outer: inner: …` (probe-rs's
/// top-level messages hide the cause).
pub fn cause_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Checks an image against the board profile before anything is flashed
/// ([`crate::image::check`]): a sound 32-bit little-endian Arm executable
/// whose segments lie in the board's flash and RAM, with an RTT control
/// block to find.
pub fn check_image(profile: &BoardProfile, path: &std::path::Path, bytes: &[u8]) -> Result<(), String> {
    check_image_for(profile, path, bytes, true)
}

/// [`check_image`], the RTT control block asked for only when `rtt` (a
/// firmware observed through a map has none).
pub fn check_image_for(profile: &BoardProfile, path: &std::path::Path, bytes: &[u8], rtt: bool) -> Result<(), String> {
    let purpose = if rtt { Purpose::Contract } else { Purpose::Observed };
    crate::image::check(profile, path, bytes, purpose).map(|_| ())
}

/// Checks a chip name against probe-rs's target registry, the way
/// attaching looks it up, before any probe is looked for: a typo is the
/// user's to fix (exit 2), not a missing board. Close names are suggested.
#[cfg(feature = "probe")]
pub fn check_chip(name: &str) -> Result<(), String> {
    use probe_rs::config::{Registry, RegistryError};

    let registry = Registry::from_builtin_families();
    match registry.get_target_by_name(name) {
        Ok(_) => Ok(()),
        Err(RegistryError::ChipNotUnique(_, matches)) => {
            Err(format!("chip `{name}` names several chips probe-rs knows ({matches}): give the full name"))
        }
        Err(_) => {
            let known =
                registry.families().iter().flat_map(|family| &family.variants).flat_map(|chip| chip.package_variants());
            let close = closest_names(name, known.map(String::as_str));
            let hint = if close.is_empty() { String::new() } else { format!("; did you mean {}?", close.join(", ")) };
            Err(format!("probe-rs knows no chip `{name}`{hint} (`probe-rs chip list` lists them all)"))
        }
    }
}

/// Without probe-rs there is no registry to check against; opening a
/// board fails anyway ([`ProbeError::NotBuilt`]).
#[cfg(not(feature = "probe"))]
pub fn check_chip(_name: &str) -> Result<(), String> {
    Ok(())
}

/// The names of `known` nearest to `name` (case-insensitive edit
/// distance), at most five, only those a typo away.
#[cfg(feature = "probe")]
fn closest_names<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    const SHOWN_MAX: usize = 5;
    let wanted = name.to_ascii_lowercase();
    let within = (wanted.len() / 4).max(2);
    let mut scored: Vec<(usize, &str)> = known
        .map(|candidate| (edit_distance(&wanted, &candidate.to_ascii_lowercase()), candidate))
        .filter(|(distance, _)| *distance <= within)
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(SHOWN_MAX).map(|(_, candidate)| candidate).collect()
}

/// Levenshtein distance over bytes (chip names are ASCII).
#[cfg(feature = "probe")]
fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, &left) in a.as_bytes().iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, &right) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(left != right);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

/// How far flashing a board got: probe-rs's progress events, reduced to
/// one bar per step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashUpdate {
    /// A step started (`erase`, `program`, `verify`, `fill`); its size in
    /// bytes, 0 when probe-rs does not know it.
    Started { step: &'static str, total_bytes: u64 },
    /// `bytes` more of the current step done.
    Done { bytes: u64 },
}

#[cfg(feature = "probe")]
pub use real::{list_probes, ProbeTarget, RealProbes};

#[cfg(not(feature = "probe"))]
pub use not_built::{ProbeTarget, RealProbes};

/// Without the `probe` feature the CLI still gets a backend: it lists
/// nothing but [`ProbeError::NotBuilt`], and no board can be opened.
#[cfg(not(feature = "probe"))]
mod not_built {
    use std::path::Path;

    use super::{ProbeError, ProbeInfo, ProbeOptions};
    use crate::board::BoardProfile;
    use crate::target::{ButtonId, Capabilities, Target, TargetError};

    /// The host's probes, in a build without probe-rs.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct RealProbes;

    /// No board can be opened without probe-rs: the type has no values.
    #[derive(Debug)]
    pub enum ProbeTarget {}

    impl super::ProbeBackend for RealProbes {
        type Board = ProbeTarget;

        fn list(&self) -> Result<Vec<ProbeInfo>, ProbeError> {
            Err(ProbeError::NotBuilt)
        }

        fn open(&self, _: &ProbeInfo, _: &BoardProfile, _: &ProbeOptions) -> Result<ProbeTarget, ProbeError> {
            Err(ProbeError::NotBuilt)
        }
    }

    impl Target for ProbeTarget {
        fn capabilities(&self) -> Capabilities {
            match *self {}
        }
        fn load(&mut self, _: &Path) -> Result<(), TargetError> {
            match *self {}
        }
        fn reset_and_run(&mut self) -> Result<(), TargetError> {
            match *self {}
        }
        fn halt(&mut self) -> Result<(), TargetError> {
            match *self {}
        }
        fn resume(&mut self) -> Result<(), TargetError> {
            match *self {}
        }
        fn read_memory(&mut self, _: u32, _: &mut [u8]) -> Result<(), TargetError> {
            match *self {}
        }
        fn write_memory(&mut self, _: u32, _: &[u8]) -> Result<(), TargetError> {
            match *self {}
        }
        fn set_button(&mut self, _: ButtonId, _: bool) -> Result<(), TargetError> {
            match *self {}
        }
        fn describe(&self) -> String {
            match *self {}
        }
    }
}

#[cfg(feature = "probe")]
mod real {
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};

    use probe_rs::flashing::{self, DownloadOptions, ElfLoader, ElfOptions, FlashProgress, ProgressEvent};
    use probe_rs::probe::list::Lister;
    use probe_rs::probe::DebugProbeSelector;
    use probe_rs::{Core, MemoryInterface, Permissions, Session};

    use super::{cause_chain, check_image, choose, FlashUpdate, ProbeError, ProbeInfo, ProbeOptions};
    use crate::board::{BoardProfile, Counter, RegisterWrite};
    use crate::target::{Bounce, ButtonId, Capabilities, CounterReading, EdgeWindow, Target, TargetError};

    const HALT_TIMEOUT: Duration = Duration::from_millis(500);

    /// The probes attached now.
    pub fn list_probes() -> Vec<ProbeInfo> {
        Lister::new()
            .list_all()
            .into_iter()
            .map(|info| ProbeInfo {
                identifier: info.identifier.clone(),
                vendor_id: info.vendor_id,
                product_id: info.product_id,
                serial: info.serial_number.clone(),
            })
            .collect()
    }

    fn lost(doing: &str, error: &dyn std::error::Error) -> TargetError {
        TargetError::Disconnected {
            what: "debug probe".to_string(),
            detail: format!("{doing}: {}", cause_chain(error)),
        }
    }

    /// A board on a debug probe.
    pub struct ProbeTarget {
        session: Session,
        profile: BoardProfile,
        description: String,
        elf: Option<PathBuf>,
        /// Origin of the host times in [`CounterReading`]s.
        host_origin: Instant,
    }

    impl ProbeTarget {
        /// Picks the probe (see [`choose`]; the first of several selectors)
        /// and attaches to the chip.
        pub fn open(profile: &BoardProfile, options: &ProbeOptions) -> Result<ProbeTarget, ProbeError> {
            let found = list_probes();
            let chosen = choose(&found, &options.selectors, &profile.description)?;
            let Some(info) = chosen.first() else {
                return Err(ProbeError::NotFound {
                    wanted: options.selectors.clone(),
                    found,
                    board: profile.description.clone(),
                });
            };
            ProbeTarget::open_probe(profile, info, options)
        }

        /// Opens exactly `info` (as listed) and attaches to the chip.
        pub fn open_probe(
            profile: &BoardProfile,
            info: &ProbeInfo,
            options: &ProbeOptions,
        ) -> Result<ProbeTarget, ProbeError> {
            let failed = |doing: String| {
                move |error: &dyn std::error::Error| ProbeError::Probe { doing, detail: cause_chain(error) }
            };
            let selector = info
                .selector()
                .to_string()
                .parse::<DebugProbeSelector>()
                .map_err(|error| failed(format!("selecting {info}"))(&error))?;
            let mut probe =
                Lister::new().open(selector).map_err(|error| failed(format!("opening the probe {info}"))(&error))?;
            if let Some(speed) = options.speed_khz {
                probe.set_speed(speed).map_err(|error| failed(format!("setting {info} to {speed} kHz"))(&error))?;
            }
            let speed = probe.speed_khz();
            let chip = options.chip.clone().unwrap_or_else(|| profile.chip.clone());
            let attached = if options.connect_under_reset {
                probe.attach_under_reset(chip.as_str(), Permissions::default())
            } else {
                probe.attach(chip.as_str(), Permissions::default())
            };
            let session = attached.map_err(|error| {
                failed(format!(
                    "attaching to {chip} through {info}{}",
                    if options.connect_under_reset { " under reset" } else { " (try --connect-under-reset)" }
                ))(&error)
            })?;
            Ok(ProbeTarget {
                session,
                profile: profile.clone(),
                description: format!("{} via {info}, chip {chip}, SWD {speed} kHz", profile.description),
                elf: None,
                host_origin: Instant::now(),
            })
        }

        /// Checks the image against the profile, flashes and verifies it,
        /// telling `progress` how far it got, and leaves the core halted at
        /// reset.
        pub fn flash(&mut self, elf: &Path, progress: &mut dyn FnMut(FlashUpdate)) -> Result<(), TargetError> {
            let image = |detail: String| TargetError::Image { path: elf.display().to_string(), detail };
            let bytes = std::fs::read(elf).map_err(|error| image(error.to_string()))?;
            check_image(&self.profile, elf, &bytes).map_err(image)?;
            let mut totals: Vec<(flashing::ProgressOperation, u64)> = Vec::new();
            let mut options = DownloadOptions::default();
            options.verify = true;
            options.progress = FlashProgress::new(|event| match event {
                ProgressEvent::AddProgressBar { operation, total } => totals.push((operation, total.unwrap_or(0))),
                ProgressEvent::Started(operation) => {
                    let total_bytes = totals
                        .iter()
                        .find(|(known, _)| std::mem::discriminant(known) == std::mem::discriminant(&operation))
                        .map_or(0, |(_, total)| *total);
                    progress(FlashUpdate::Started { step: step_name(operation), total_bytes });
                }
                ProgressEvent::Progress { size, .. } => progress(FlashUpdate::Done { bytes: size }),
                _ => {}
            });
            flashing::download_file_with_options(&mut self.session, elf, ElfLoader(ElfOptions::default()), options)
                .map_err(|error| image(format!("flashing failed: {}", cause_chain(&error))))?;
            let mut core = self.session.core(0).map_err(|error| lost("opening core 0", &error))?;
            core.reset_and_halt(HALT_TIMEOUT).map_err(|error| lost("reset after flashing", &error))?;
            self.elf = Some(elf.to_path_buf());
            Ok(())
        }

        /// Carries out register writes (drive-pin setup, presses) on core 0.
        fn apply(&mut self, writes: &[RegisterWrite]) -> Result<(), TargetError> {
            let mut core = self.session.core(0).map_err(|error| lost("opening core 0", &error))?;
            apply_on(&mut core, writes)
        }
    }

    fn micros(since: Duration) -> u64 {
        u64::try_from(since.as_micros()).unwrap_or(u64::MAX)
    }

    /// The board's free-running counter (the profile's; DWT CYCCNT unless
    /// the core has none).
    fn read_cycle_counter(core: &mut Core<'_>, counter: Counter) -> Result<u64, TargetError> {
        core.read_word_32(u64::from(counter.address))
            .map(u64::from)
            .map_err(|error| lost(&format!("reading the counter at {:#010x}", counter.address), &error))
    }

    fn apply_on(core: &mut Core<'_>, writes: &[RegisterWrite]) -> Result<(), TargetError> {
        for write in writes {
            match *write {
                RegisterWrite::Store { address, value } => core
                    .write_word_32(u64::from(address), value)
                    .map_err(|error| lost(&format!("writing {address:#010x}"), &error))?,
                RegisterWrite::Modify { address, clear, set } => {
                    let value = core
                        .read_word_32(u64::from(address))
                        .map_err(|error| lost(&format!("reading {address:#010x}"), &error))?;
                    core.write_word_32(u64::from(address), (value & !clear) | set)
                        .map_err(|error| lost(&format!("writing {address:#010x}"), &error))?;
                }
            }
        }
        Ok(())
    }

    /// The host's probes through probe-rs, for [`crate::session::farm`].
    #[derive(Clone, Copy, Debug, Default)]
    pub struct RealProbes;

    impl super::ProbeBackend for RealProbes {
        type Board = ProbeTarget;

        fn list(&self) -> Result<Vec<ProbeInfo>, ProbeError> {
            Ok(list_probes())
        }

        fn open(
            &self,
            probe: &ProbeInfo,
            profile: &BoardProfile,
            options: &ProbeOptions,
        ) -> Result<ProbeTarget, ProbeError> {
            ProbeTarget::open_probe(profile, probe, options)
        }

        fn flash(
            &self,
            board: &mut ProbeTarget,
            elf: &Path,
            progress: &mut dyn FnMut(FlashUpdate),
        ) -> Result<(), TargetError> {
            board.flash(elf, progress)
        }
    }

    fn step_name(operation: flashing::ProgressOperation) -> &'static str {
        match operation {
            flashing::ProgressOperation::Fill => "fill",
            flashing::ProgressOperation::Erase => "erase",
            flashing::ProgressOperation::Program => "program",
            flashing::ProgressOperation::Verify => "verify",
        }
    }

    fn flash_bar() -> indicatif::ProgressBar {
        let bar = indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
        if let Ok(style) = indicatif::ProgressStyle::with_template("{msg:>10} [{bar:40}] {bytes}/{total_bytes}") {
            bar.set_style(style.progress_chars("=> "));
        }
        bar
    }

    impl Target for ProbeTarget {
        fn capabilities(&self) -> Capabilities {
            Capabilities {
                read_while_running: true,
                virtual_time: false,
                pause_button: self.profile.buttons.pause.is_some(),
                // The board runs in host time: host sleeps between SWD
                // writes place the edges (to within a write's round trip,
                // well inside a debounce window).
                timed_bounce: true,
                bounce_lead_us: 0,
                lockstep: false,
                invisible_stops: false,
            }
        }

        /// Checks the image against the profile, flashes it with a progress
        /// bar, verifies it, and leaves the core halted at reset.
        fn load(&mut self, elf: &Path) -> Result<(), TargetError> {
            let bar = flash_bar();
            let result = self.flash(elf, &mut |update| match update {
                FlashUpdate::Started { step, total_bytes } => {
                    bar.set_length(total_bytes);
                    bar.set_position(0);
                    bar.set_message(step);
                }
                FlashUpdate::Done { bytes } => bar.inc(bytes),
            });
            bar.finish_and_clear();
            result
        }

        /// Resets with the core halted, sets up the drive pins (a reset
        /// clears them), and runs.
        fn reset_and_run(&mut self) -> Result<(), TargetError> {
            {
                let mut core = self.session.core(0).map_err(|error| lost("opening core 0", &error))?;
                core.reset_and_halt(HALT_TIMEOUT).map_err(|error| lost("reset", &error))?;
            }
            let setup = self.profile.drive_setup();
            self.apply(&setup)?;
            let mut core = self.session.core(0).map_err(|error| lost("opening core 0", &error))?;
            core.run().map_err(|error| lost("run", &error))
        }

        fn halt(&mut self) -> Result<(), TargetError> {
            let mut core = self.session.core(0).map_err(|error| lost("opening core 0", &error))?;
            core.halt(HALT_TIMEOUT).map(|_| ()).map_err(|error| lost("halt", &error))
        }

        fn resume(&mut self) -> Result<(), TargetError> {
            let mut core = self.session.core(0).map_err(|error| lost("opening core 0", &error))?;
            core.run().map_err(|error| lost("run", &error))
        }

        fn read_memory(&mut self, address: u32, buffer: &mut [u8]) -> Result<(), TargetError> {
            let mut core = self.session.core(0).map_err(|error| lost("opening core 0", &error))?;
            core.read(u64::from(address), buffer).map_err(|error| lost(&format!("reading {address:#010x}"), &error))
        }

        fn write_memory(&mut self, address: u32, data: &[u8]) -> Result<(), TargetError> {
            let mut core = self.session.core(0).map_err(|error| lost("opening core 0", &error))?;
            core.write(u64::from(address), data).map_err(|error| lost(&format!("writing {address:#010x}"), &error))
        }

        /// Drives the button's drive pin low (pressed) or high through its
        /// port's BSRR: one atomic word write, while the core runs.
        fn set_button(&mut self, button: ButtonId, pressed: bool) -> Result<(), TargetError> {
            let write = self
                .profile
                .press_write(button, pressed)
                .map_err(|detail| TargetError::Protocol { what: "board profile".to_string(), detail })?;
            self.apply(&[write])
        }

        /// Makes the edges itself, sleeping between the writes, and returns
        /// after the release: a real board's time is the host's.
        fn press_with_bounce(&mut self, button: ButtonId, bounce: &Bounce, hold_ms: u32) -> Result<(), TargetError> {
            let write = |pressed| {
                self.profile
                    .press_write(button, pressed)
                    .map_err(|detail| TargetError::Protocol { what: "board profile".to_string(), detail })
            };
            let (press, release) = (write(true)?, write(false)?);
            let mut core = self.session.core(0).map_err(|error| lost("opening core 0", &error))?;
            let started = Instant::now();
            for (at_us, closed) in bounce.contact_steps(hold_ms) {
                let due = started + Duration::from_micros(at_us);
                if let Some(wait) = due.checked_duration_since(Instant::now()) {
                    std::thread::sleep(wait);
                }
                apply_on(&mut core, &[if closed { press } else { release }])?;
            }
            Ok(())
        }

        fn describe(&self) -> String {
            self.description.clone()
        }

        /// The board's counter while the core runs, between two readings of the
        /// host's monotonic clock (the core handle is opened first, so the
        /// round trip is the read alone).
        fn read_counter(&mut self) -> Result<Option<CounterReading>, TargetError> {
            let mut core = self.session.core(0).map_err(|error| lost("opening core 0", &error))?;
            let before = self.host_origin.elapsed();
            let counter = read_cycle_counter(&mut core, self.profile.counter)?;
            let after = self.host_origin.elapsed();
            Ok(Some(CounterReading { host_before_us: micros(before), host_after_us: micros(after), counter }))
        }

        /// The pin write of [`Target::set_button`] between two reads of the
        /// board's counter on the same core handle.
        fn set_button_timed(&mut self, button: ButtonId, pressed: bool) -> Result<Option<EdgeWindow>, TargetError> {
            let write = self
                .profile
                .press_write(button, pressed)
                .map_err(|detail| TargetError::Protocol { what: "board profile".to_string(), detail })?;
            let mut core = self.session.core(0).map_err(|error| lost("opening core 0", &error))?;
            let counter_before = read_cycle_counter(&mut core, self.profile.counter)?;
            apply_on(&mut core, &[write])?;
            let counter_after = read_cycle_counter(&mut core, self.profile.counter)?;
            Ok(Some(EdgeWindow { counter_before, counter_after }))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const NUCLEO: &str = "NUCLEO-F401RE over its on-board ST-LINK";

    fn probe(serial: &str) -> ProbeInfo {
        ProbeInfo {
            identifier: "STLink V2-1".into(),
            vendor_id: 0x0483,
            product_id: 0x374b,
            serial: Some(serial.into()),
        }
    }

    #[test]
    fn selectors_parse_like_probe_rs() {
        assert_eq!(
            Selector::parse("0483:374b").unwrap(),
            Selector { vendor_id: 0x0483, product_id: 0x374b, serial: None }
        );
        let with_serial = Selector::parse("0483:374B:066DFF:49").unwrap();
        assert_eq!(with_serial.serial.as_deref(), Some("066DFF:49"));
        assert_eq!(with_serial.to_string(), "0483:374b:066DFF:49");
        for bad in ["0483", "0483:", "zz:374b", "10000:1", "0483:374b:"] {
            let error = Selector::parse(bad).unwrap_err();
            assert!(error.contains("VID:PID"), "{bad}: {error}");
        }
    }

    #[test]
    fn one_probe_is_used_without_flags() {
        assert_eq!(choose(&[probe("A")], &[], NUCLEO).unwrap(), vec![probe("A")]);
        let error = choose(&[probe("A"), probe("B")], &[], NUCLEO).unwrap_err().to_string();
        assert!(error.contains("2 debug probes") && error.contains("0483:374b:B"), "{error}");
        assert!(error.contains("repeat --probe"), "{error}");
        let error = choose(&[probe("A"), probe("B")], &[Selector::parse("0483:374b").unwrap()], NUCLEO).unwrap_err();
        assert!(error.is_usage(), "{error}");
        let error = error.to_string();
        assert!(error.starts_with("--probe 0483:374b matches 2 debug probes") && error.contains("add the serial"));
        let chosen = choose(&[probe("A"), probe("B")], &[Selector::parse("0483:374b:B").unwrap()], NUCLEO).unwrap();
        assert_eq!(chosen, vec![probe("B")]);
        let farm = [Selector::parse("0483:374b:B").unwrap(), Selector::parse("0483:374b:A").unwrap()];
        assert_eq!(choose(&[probe("A"), probe("B")], &farm, NUCLEO).unwrap(), vec![probe("B"), probe("A")]);
    }

    #[test]
    fn no_probe_says_what_to_plug_in() {
        // What to plug in is the board's own, read from its profile.
        for name in ["stm32", "nrf52840-dk", "pico"] {
            let profile = crate::board::find(name).unwrap();
            let error = choose(&[], &[], &profile.description).unwrap_err().to_string();
            assert!(error.contains("no debug probe found (found: nothing)"), "{error}");
            assert!(error.contains(&profile.description) && error.contains("--board qemu"), "{error}");
        }
        let pico = crate::board::find("pico").unwrap();
        let error = choose(&[], &[], &pico.description).unwrap_err().to_string();
        assert!(error.contains("Raspberry Pi Pico") && !error.contains("NUCLEO"), "{error}");
        let error = choose(&[probe("A")], &[Selector::parse("1366:0101").unwrap()], NUCLEO).unwrap_err().to_string();
        assert!(error.contains("no debug probe matches --probe 1366:0101"), "{error}");
        assert!(error.contains("found: STLink V2-1 (0483:374b:A)"), "{error}");
        assert!(error.contains("Name one of the probes found") && !error.contains("Plug in"), "{error}");
    }

    #[test]
    fn the_cause_chain_is_printed_whole() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl fmt::Display for Outer {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "The debug probe could not be created.")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let error = Outer(std::io::Error::other("The selected debug probe was not found."));
        assert_eq!(
            cause_chain(&error),
            "The debug probe could not be created.: The selected debug probe was not found."
        );
    }

    #[test]
    fn an_image_for_another_chip_is_refused_before_flashing() {
        let profile = BoardProfile::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("boards/stm32.toml")).unwrap();
        let error = check_image(&profile, Path::new("x.elf"), b"not an elf").unwrap_err();
        assert!(error.contains("not an ELF file"), "{error}");
        // The host's own test binary: an ELF, but not an Arm one.
        if let Ok(me) = std::env::current_exe().and_then(std::fs::read) {
            if me.starts_with(b"\x7fELF") {
                let error = check_image(&profile, Path::new("host.elf"), &me).unwrap_err();
                assert!(error.contains("is a 64-bit ELF file"), "{error}");
            }
        }
        // The QEMU build of the reference firmware, when built: flash at 0.
        for dir in ["CARGO_TARGET_DIR", "HOME"] {
            let Some(base) = std::env::var_os(dir) else { continue };
            let candidate = if dir == "HOME" {
                Path::new(&base).join(".cache/bench/target/firmware/normal.elf")
            } else {
                Path::new(&base).join("firmware/normal.elf")
            };
            if let Ok(bytes) = std::fs::read(&candidate) {
                let error = check_image(&profile, &candidate, &bytes).unwrap_err();
                assert!(error.contains("outside STM32F401RETx's flash"), "{error}");
            }
        }
    }

    #[cfg(feature = "probe")]
    #[test]
    fn chip_names_are_checked_against_probe_rs_s_registry() {
        assert_eq!(check_chip("STM32F401RETx"), Ok(()));
        let error = check_chip("NO-SUCH-CHIP").unwrap_err();
        assert!(error.starts_with("probe-rs knows no chip `NO-SUCH-CHIP`"), "{error}");
        assert!(error.contains("`probe-rs chip list`"), "{error}");
        // Two letters swapped: the name meant is suggested.
        let error = check_chip("STM32F401RTEx").unwrap_err();
        assert!(error.contains("did you mean") && error.contains("STM32F401RETx"), "{error}");
    }

    #[cfg(feature = "probe")]
    #[test]
    fn the_closest_names_are_a_typo_away() {
        let known = ["STM32F401RETx", "STM32F411RETx", "nRF52840_xxAA"];
        assert_eq!(closest_names("stm32f401retx", known.into_iter()), ["STM32F401RETx", "STM32F411RETx"]);
        assert_eq!(closest_names("ATSAMD21G18A", known.into_iter()), Vec::<&str>::new());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
