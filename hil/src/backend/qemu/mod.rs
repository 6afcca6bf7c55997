//! The emulator backend: QEMU's `lm3s6965evb` (Cortex-M3) as a [`Target`].
//!
//! One `QemuTarget` owns one QEMU process, started for it with its own
//! free TCP port for the gdbstub and its own QMP socket in a temporary
//! directory, so runs go in parallel. The process is killed by its PID when
//! the target is dropped (or replaced by another `load`).
//!
//! ```text
//! qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb -nographic -monitor none -serial none
//!     -kernel ELF -gdb tcp:127.0.0.1:PORT -qmp unix:DIR/qmp.sock,server=on,wait=off -S
//!     -icount shift=7,sleep=off
//! ```
//!
//! - **Guest time**: `-icount shift=7,sleep=off` makes the guest's virtual
//!   clock deterministic: every instruction takes 2^7 = 128 ns of it, and
//!   idle time is not waited for. The reference firmware's main loop then
//!   runs about 17× faster than real time (`blitz-3-2`, README); shift=4
//!   ran at 2.9×. A firmware clock's rate is measured as exactly under both
//!   (0.00 ppm normal, −79.99 ppm for a reload one too large) as long as the
//!   firmware stamps its hardware counter's edges in an interrupt: polled
//!   from a main loop, an edge is late by a loop turn, 8× longer at shift=7
//!   than at 4. shift=8 (24×) let QEMU fall behind on the bounce key queue
//!   ([`BOUNCE_LEAD_MS`]). Guest time stands still while the VM is halted:
//!   [`Target::halt`] pauses it, [`Target::resume`] lets it go on.
//! - **Memory** goes through the gdbstub, which halts the VM for each access
//!   (≈0.45 ms for halt, read, continue); a target halted by the caller
//!   stays halted.
//! - **Buttons** are QMP key events (`up` → PE0 White, `down` → PE1 Black,
//!   `left` → PE2 pause, active low). QEMU refuses keys while the VM is
//!   halted, so [`Target::set_button`] lets a halted VM run for the event and
//!   halts it again. QEMU 7.2 reads the pins low until each key's first
//!   event: [`Target::reset_and_run`] presses and releases every key once.
//! - **Contact bounce** ([`Target::press_with_bounce`]) goes through QMP
//!   `send-key`, whose events QEMU queues on the guest's virtual clock:
//!   edges 2–4 ms apart in guest time, exact to the icount step, however
//!   slow the host is. A lead-in on an unwired key ([`BOUNCE_LEAD_MS`])
//!   keeps the queue from running dry while QEMU takes the commands. A key
//!   event sent the ordinary way lands at a host-dependent guest instant,
//!   0–150 ms late (`firmware/SMOKE.md` §3).
//! - **A dead QEMU** (killed, crashed) closes both sockets: the next call
//!   fails at once with `TargetError::Disconnected`, naming the exit status
//!   and QEMU's last words on stderr.

use std::fs::File;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::json;

mod machine_clock;
mod plugin;
mod plugin_step;
mod qmp;
mod qtest;

use crate::backend::gdb::client::GdbClient;
use crate::target::{Bounce, ButtonId, Capabilities, StepPlan, Stop, Target, TargetError};
use machine_clock::MachineClock;
use plugin::{PluginLink, PluginListener};
use plugin_step::PluginClock;
use qmp::QmpClient;
use qtest::QtestClient;

/// The program, as Debian installs it.
pub const QEMU_PROGRAM: &str = "qemu-system-arm";
/// What to tell a user without it.
pub const INSTALL_HINT: &str =
    "install it with `apt-get install qemu-system-arm` (or run scripts/check, which installs it)";
/// The deterministic guest-time mode (see the module docs).
pub const DEFAULT_ICOUNT: &str = "shift=7,sleep=off";
/// Attempts at starting QEMU when its port was taken in between.
const START_ATTEMPTS: u32 = 3;

/// The QMP key of each button.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyMap {
    pub white: String,
    pub black: String,
    pub pause: Option<String>,
    /// Keys pressed and released once after each reset (QEMU 7.2 reads
    /// their pins low until their first event).
    pub prime: Vec<String>,
    /// A key no input is wired to: its `send-key` opens the guest-timed
    /// queue a bounced press is played from.
    pub unwired: String,
}

/// How long the unwired key of a bounced press is held, guest ms: the
/// press's own events start twice this later, and QEMU must have taken the
/// rest of the press's commands by then (they are sent in the same write).
/// Without a lead QEMU took some only after the queue had run dry, 3–14 ms
/// of guest time late; with 25 ms, 3 of 69 bounced presses still came late
/// at 17× real time (`-icount shift=7`). 250 ms leaves QEMU 30 ms of host
/// time at that speed.
pub const BOUNCE_LEAD_MS: u32 = 250;

impl Default for KeyMap {
    /// The reference firmware's wiring on `lm3s6965evb`.
    fn default() -> Self {
        KeyMap {
            white: "up".to_string(),
            black: "down".to_string(),
            pause: Some("left".to_string()),
            prime: ["up", "down", "left", "right", "ctrl"].map(String::from).to_vec(),
            // The Stellaris gamepad model only answers to the five above.
            unwired: "f12".to_string(),
        }
    }
}

/// How to run QEMU.
#[derive(Clone, Debug)]
pub struct QemuConfig {
    /// `qemu-system-arm`, looked up on PATH, or a path.
    pub program: PathBuf,
    pub machine: String,
    pub cpu: String,
    /// `-icount` option; `None` runs the guest in real time (loses ticks on
    /// a loaded host, `firmware/SMOKE.md` §4).
    pub icount: Option<String>,
    /// Longest wait for one answer from the gdbstub, QMP or qtest. A halted
    /// VM answers within microseconds; the bound only says how long a wedged
    /// emulator takes to be noticed, so it is far above anything a loaded
    /// host causes (2 s was reached at a load average of 13 on two cores,
    /// and turned a defect image's run into an infrastructure failure).
    pub timeout: Duration,
    /// Longest wait for QEMU to start and both sockets to answer.
    pub start_timeout: Duration,
    pub keys: KeyMap,
    /// Write QEMU's `-d unimp,guest_errors` log to `qemu.log` in the
    /// target's directory.
    pub debug_log: bool,
    /// More arguments, appended as they are.
    pub extra_args: Vec<String>,
    /// Run in lockstep ([`Target::step`], `hil/LOCKSTEP.md`; needs
    /// `icount`): a run then gives the same records whatever the host's
    /// load.
    pub lockstep: bool,
    /// How a lockstep run stops the core.
    pub lockstep_engine: LockstepEngine,
    /// The plugin also stops at every SysTick exception: a check that its
    /// stops change nothing the firmware does.
    pub stop_at_every_tick: bool,
}

/// How a lockstep run stops the emulated core (`hil/LOCKSTEP.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LockstepEngine {
    /// bench's QEMU plugin blocks the core in a callback: guest time stands
    /// still and the firmware sees nothing of the stop. Guest time is the
    /// instructions executed, so a firmware that sleeps (WFI, WFE) ends the
    /// run.
    #[default]
    Plugin,
    /// The gdbstub's watchpoint, breakpoint and single steps: each stop
    /// moves guest time on to the next timer deadline, and guest time is
    /// read from the board's watchdog.
    Gdbstub,
}

impl Default for QemuConfig {
    fn default() -> Self {
        QemuConfig {
            program: PathBuf::from(QEMU_PROGRAM),
            machine: "lm3s6965evb".to_string(),
            cpu: "cortex-m3".to_string(),
            icount: Some(DEFAULT_ICOUNT.to_string()),
            timeout: Duration::from_secs(30),
            start_timeout: Duration::from_secs(30),
            keys: KeyMap::default(),
            debug_log: false,
            extra_args: Vec::new(),
            lockstep: true,
            lockstep_engine: LockstepEngine::default(),
            stop_at_every_tick: false,
        }
    }
}

/// The program's path if it can be run: as given when it has a directory
/// part, else the first match on PATH.
fn find_program(program: &Path) -> Option<PathBuf> {
    if program.components().count() > 1 {
        return program.is_file().then(|| program.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|candidate| candidate.is_file())
}

fn tool_missing(program: &Path) -> TargetError {
    TargetError::ToolMissing { tool: program.display().to_string(), hint: INSTALL_HINT.to_string() }
}

/// Refuses what is not a 32-bit little-endian Arm ELF file before QEMU
/// sees it (QEMU would load any other file as a raw image and run garbage).
fn check_elf(elf: &Path) -> Result<(), TargetError> {
    let image_error = |detail: String| TargetError::Image { path: elf.display().to_string(), detail };
    let mut header = [0u8; 20];
    let mut file = File::open(elf).map_err(|error| image_error(error.to_string()))?;
    std::io::Read::read_exact(&mut file, &mut header)
        .map_err(|error| image_error(format!("too short for an ELF header ({error})")))?;
    if header.get(..4) != Some(b"\x7fELF") {
        return Err(image_error("not an ELF file".to_string()));
    }
    let machine = u16::from_le_bytes([header[18], header[19]]);
    if header[4] != 1 || header[5] != 1 || machine != 40 {
        return Err(image_error(format!(
            "not a 32-bit little-endian Arm ELF (class {}, data {}, machine {machine}); build it for thumbv7m-none-eabi",
            header[4], header[5]
        )));
    }
    Ok(())
}

/// The child is killed when the thread that started it ends, however it
/// ends (a crash, SIGKILL, the OOM killer): an emulator never outlives the
/// run that started it. bench starts QEMU from the thread that plays, and
/// `bench perf --only hil` its `bench hil` runs from its main thread.
#[cfg(target_os = "linux")]
pub fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec and only
    // makes one async-signal-safe system call.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
pub fn die_with_parent(_command: &mut Command) {}

/// A TCP port that was free a moment ago.
fn free_port() -> Result<u16, TargetError> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(|source| TargetError::Io { what: "a free local TCP port".to_string(), source })?;
    listener
        .local_addr()
        .map(|address| address.port())
        .map_err(|source| TargetError::Io { what: "a free local TCP port".to_string(), source })
}

/// The GPIO line behind each key of the lm3s6965evb's gamepad (QEMU
/// wires `up`…`right` to port E lines 0–3 and `ctrl` to port F line 1,
/// through an inverter: a pressed key reads low).
fn gamepad_line(qcode: &str) -> Option<(u32, u32)> {
    const PORT_E: u32 = 0x4002_4000;
    const PORT_F: u32 = 0x4002_5000;
    match qcode {
        "up" => Some((PORT_E, 0)),
        "down" => Some((PORT_E, 1)),
        "left" => Some((PORT_E, 2)),
        "right" => Some((PORT_E, 3)),
        "ctrl" => Some((PORT_F, 1)),
        _ => None,
    }
}

/// QEMU's single-step flags: step with interrupts and timers masked (its
/// default), and step with interrupts taken but timers masked.
const STEP_DEFAULT: u32 = 0x7;
const STEP_TAKES_INTERRUPTS: u32 = 0x5;
/// Byte offsets of pc and xpsr in QEMU 7.2's `g` answer for an M-profile
/// core without a target description: r0–r15, eight 12-byte FPA
/// registers, fps, xpsr.
const REGISTER_SP: usize = 13 * 4;
const REGISTER_LR: usize = 14 * 4;
const REGISTER_PC: usize = 15 * 4;
/// The System Control Block's fault status registers (ARMv7-M).
const CFSR_ADDRESS: u32 = 0xE000_ED28;
const HFSR_ADDRESS: u32 = 0xE000_ED2C;
const REGISTER_XPSR: usize = 16 * 4 + 8 * 12 + 4;
/// Instructions a tick handler may take before the harness gives up
/// stepping it out.
const HANDLER_STEPS_MAX: usize = 10_000;

/// Lockstep bookkeeping: what is inserted in the guest, and where it stands.
#[derive(Debug, Default)]
struct Lockstep {
    /// The firmware's SysTick handler (vector 15), where a tick stop is.
    systick: Option<u32>,
    watch: Option<(u32, u32)>,
    tick_breakpoint: bool,
    /// The firmware's HardFault handler (vector 3), where a fault stops the
    /// board at once; `None` until armed, or when the image has none.
    fault: Option<FaultStop>,
}

/// Where a fault stop is, once looked up.
#[derive(Debug, Clone, Copy)]
enum FaultStop {
    /// A breakpoint on the HardFault handler at this address.
    At(u32),
    /// No breakpoint: the vector is empty, or shared with SysTick's.
    None,
}

/// One running QEMU and its connections.
#[derive(Debug)]
struct Session {
    child: Child,
    pid: u32,
    gdb: GdbClient,
    qmp: QmpClient,
    /// Button levels, set at once, halted or not.
    qtest: QtestClient,
    /// QOM path of each GPIO port device the buttons are on, by base address.
    gpio_ports: Vec<(u32, String)>,
    lockstep: Lockstep,
    /// Guest time from the machine's watchdog, started at each reset in
    /// lockstep.
    machine_clock: Option<MachineClock>,
    /// The lockstep plugin's connection ([`LockstepEngine::Plugin`]).
    plugin: Option<PluginLink>,
    /// Guest time and ticks from the plugin's counts.
    plugin_clock: PluginClock,
    /// Stop at every SysTick exception, asked for or not
    /// ([`QemuConfig::stop_at_every_tick`]).
    stop_at_every_tick: bool,
    gdb_port: u16,
    command_line: Vec<String>,
    /// The VM has run since it was started (a reset is needed to start over).
    has_run: bool,
    /// Set once the process is known to be gone.
    exit: Option<String>,
}

/// The start of the name of a target's folder in the temporary directory,
/// followed by the pid of the bench that made it and a random part.
const DIR_PREFIX: &str = "bench-qemu-";

/// Removes the targets' folders in `temp` whose bench is gone: a SIGKILL
/// skips the folder's removal on drop, and every killed run left one.
/// Only where `/proc` tells which processes live; folders of other
/// programs, or without a pid (older benches), are left alone.
fn remove_stale_dirs(temp: &Path) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(temp) else { return };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(dir_pid) else { continue };
        if pid != std::process::id() && !proc.join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The pid in a target's folder name, `bench-qemu-<pid>-<random>`.
fn dir_pid(name: &str) -> Option<u32> {
    let (pid, random) = name.strip_prefix(DIR_PREFIX)?.split_once('-')?;
    (!random.is_empty()).then_some(())?;
    pid.parse().ok()
}

/// QEMU's `lm3s6965evb` as a [`Target`].
#[derive(Debug)]
pub struct QemuTarget {
    config: QemuConfig,
    program: PathBuf,
    dir: tempfile::TempDir,
    session: Option<Session>,
    elf: Option<PathBuf>,
    version: Option<String>,
}

impl QemuTarget {
    /// Checks that QEMU is installed and makes the target's own directory;
    /// nothing runs until [`Target::load`].
    pub fn new(config: QemuConfig) -> Result<QemuTarget, TargetError> {
        let program = find_program(&config.program).ok_or_else(|| tool_missing(&config.program))?;
        let temp = std::env::temp_dir();
        remove_stale_dirs(&temp);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{DIR_PREFIX}{}-", std::process::id()))
            .tempdir_in(&temp)
            .map_err(|source| TargetError::Io { what: "a temporary directory for QEMU's sockets".into(), source })?;
        Ok(QemuTarget { config, program, dir, session: None, elf: None, version: None })
    }

    /// Starts `elf` halted (`new` and `load`).
    pub fn launch(elf: &Path, config: QemuConfig) -> Result<QemuTarget, TargetError> {
        let mut target = QemuTarget::new(config)?;
        target.load(elf)?;
        Ok(target)
    }

    /// QEMU's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.session.as_ref().map(|session| session.pid)
    }

    pub fn gdb_port(&self) -> Option<u16> {
        self.session.as_ref().map(|session| session.gdb_port)
    }

    /// The QMP socket's path.
    pub fn qmp_socket(&self) -> PathBuf {
        self.dir.path().join("qmp.sock")
    }

    /// The qtest socket's path.
    fn qtest_socket(&self) -> PathBuf {
        self.dir.path().join("qtest.sock")
    }

    /// Lockstep runs need virtual time: without `-icount` guest time is
    /// the host's, and no stop can make it reproducible.
    fn lockstep(&self) -> bool {
        self.config.lockstep && self.config.icount.is_some()
    }

    /// The icount shift when lockstep runs on the plugin: its instruction
    /// count is guest time only at a fixed shift (`shift=N`, not `auto`).
    fn plugin_shift(&self) -> Option<u32> {
        if !self.lockstep() || self.config.lockstep_engine != LockstepEngine::Plugin {
            return None;
        }
        plugin_step::icount_shift(self.config.icount.as_deref()?)
    }

    /// The directory of this target's sockets and logs (removed on drop).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The command QEMU was started with.
    pub fn command_line(&self) -> Option<&[String]> {
        self.session.as_ref().map(|session| session.command_line.as_slice())
    }

    /// QEMU's version (from the QMP greeting), once started.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    pub fn config(&self) -> &QemuConfig {
        &self.config
    }

    /// Whether the VM runs (guest time goes on), as far as the gdbstub
    /// connection knows.
    pub fn is_running(&self) -> bool {
        self.session.as_ref().is_some_and(|session| session.gdb.is_running())
    }

    /// The QMP connection, for what the [`Target`] trait does not cover
    /// (`human-monitor-command`, `query-status`). Do not stop or continue
    /// the VM through it: the gdbstub connection keeps the run state.
    pub fn qmp(&mut self) -> Result<&mut QmpClient, TargetError> {
        Ok(&mut self.session_mut()?.qmp)
    }

    /// The gdbstub connection.
    pub fn gdb(&mut self) -> Result<&mut GdbClient, TargetError> {
        Ok(&mut self.session_mut()?.gdb)
    }

    /// Kills QEMU now (by its PID) and waits for it.
    pub fn kill(&mut self) {
        if let Some(mut session) = self.session.take() {
            let _ = session.child.kill();
            let _ = session.child.wait();
        }
    }

    fn not_started() -> TargetError {
        TargetError::Disconnected {
            what: "emulator".to_string(),
            detail: "no emulator is running: load an image first".to_string(),
        }
    }

    fn session_mut(&mut self) -> Result<&mut Session, TargetError> {
        self.session.as_mut().ok_or_else(QemuTarget::not_started)
    }

    fn stderr_path(&self) -> PathBuf {
        self.dir.path().join("qemu.stderr")
    }

    /// The last lines QEMU wrote to stderr, for messages.
    fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(self.stderr_path()).unwrap_or_default();
        // QEMU 7.2 says this at every start-up (the board's own timers).
        let noise = |line: &str| line.trim().is_empty() || line.contains("Timer with period zero, disabling");
        let lines: Vec<&str> = text.lines().filter(|line| !noise(line)).collect();
        let tail = lines.get(lines.len().saturating_sub(5)..).unwrap_or_default();
        if tail.is_empty() {
            String::new()
        } else {
            format!("; QEMU said: {}", tail.join(" | "))
        }
    }

    /// `Some(description)` when the process has exited.
    fn exit_status(&mut self) -> Option<String> {
        let stderr = self.stderr_tail();
        let session = self.session.as_mut()?;
        if session.exit.is_none() {
            if let Ok(Some(status)) = session.child.try_wait() {
                session.exit = Some(format!("QEMU (pid {}) exited: {status}{stderr}", session.pid));
            }
        }
        session.exit.clone()
    }

    /// Maps a failure of a connection: a dead QEMU is `Disconnected` with
    /// its exit status, whatever the connection reported.
    fn classify(&mut self, error: TargetError) -> TargetError {
        match error {
            TargetError::Disconnected { .. } | TargetError::Timeout { .. } | TargetError::Io { .. } => {
                // The sockets close as the process dies; give it a moment to
                // be reaped so the message can say how it ended.
                let deadline = Instant::now() + Duration::from_millis(100);
                loop {
                    if let Some(exit) = self.exit_status() {
                        return TargetError::Disconnected { what: "emulator".to_string(), detail: exit };
                    }
                    if Instant::now() >= deadline || !matches!(error, TargetError::Disconnected { .. }) {
                        break;
                    }
                    thread::sleep(Duration::from_millis(5));
                }
                match error {
                    TargetError::Disconnected { what, detail } => TargetError::Disconnected {
                        what,
                        detail: format!(
                            "{detail}; QEMU (pid {}) still runs, but this connection is gone",
                            self.pid().unwrap_or(0)
                        ),
                    },
                    other => other,
                }
            }
            other => other,
        }
    }

    /// Runs `operation` on the session; failures are classified.
    fn with_session<T>(
        &mut self,
        operation: impl FnOnce(&mut Session) -> Result<T, TargetError>,
    ) -> Result<T, TargetError> {
        let result = match self.session.as_mut() {
            Some(session) => match &session.exit {
                Some(exit) => Err(TargetError::Disconnected { what: "emulator".to_string(), detail: exit.clone() }),
                None => operation(session),
            },
            None => Err(QemuTarget::not_started()),
        };
        result.map_err(|error| self.classify(error))
    }

    fn arguments(&self, elf: &Path, gdb_port: u16) -> Vec<String> {
        let mut args: Vec<String> = vec![
            "-cpu".into(),
            self.config.cpu.clone(),
            "-machine".into(),
            self.config.machine.clone(),
            "-nographic".into(),
            "-monitor".into(),
            "none".into(),
            "-serial".into(),
            "none".into(),
            "-kernel".into(),
            elf.display().to_string(),
            "-gdb".into(),
            format!("tcp:127.0.0.1:{gdb_port}"),
            "-qmp".into(),
            format!("unix:{},server=on,wait=off", self.qmp_socket().display()),
            "-accel".into(),
            "tcg".into(),
            "-qtest".into(),
            format!("unix:{},server=on,wait=off", self.qtest_socket().display()),
            "-qtest-log".into(),
            "/dev/null".into(),
            "-S".into(),
        ];
        if let Some(icount) = &self.config.icount {
            args.push("-icount".into());
            args.push(icount.clone());
        }
        if self.config.debug_log {
            args.push("-d".into());
            args.push("unimp,guest_errors".into());
            args.push("-D".into());
            args.push(self.dir.path().join("qemu.log").display().to_string());
        }
        args.extend(self.config.extra_args.iter().cloned());
        args
    }

    /// Starts QEMU with `elf`, halted before its first instruction, and
    /// connects to QMP and the gdbstub.
    fn start(&mut self, elf: &Path) -> Result<Session, TargetError> {
        let mut last_error = None;
        for _ in 0..START_ATTEMPTS {
            match self.start_once(elf) {
                Ok(session) => return Ok(session),
                Err((error, port_taken)) => {
                    if !port_taken {
                        return Err(error);
                    }
                    last_error = Some(error);
                }
            }
        }
        Err(last_error.unwrap_or_else(QemuTarget::not_started))
    }

    /// One attempt; the flag says whether another attempt may succeed (the
    /// gdb port was taken between choosing and binding it).
    fn start_once(&mut self, elf: &Path) -> Result<Session, (TargetError, bool)> {
        let _ = std::fs::remove_file(self.qmp_socket());
        let _ = std::fs::remove_file(self.qtest_socket());
        let gdb_port = free_port().map_err(|error| (error, false))?;
        let shift = self.plugin_shift();
        let listener = match shift {
            Some(_) => Some(PluginListener::bind(self.dir.path()).map_err(|error| (error, false))?),
            None => None,
        };
        let mut args = self.arguments(elf, gdb_port);
        if let Some(listener) = &listener {
            let (reset, systick) = plugin_step::vector_addresses(elf).map_err(|error| (error, false))?;
            args.push("-plugin".into());
            args.push(listener.argument(reset, systick));
        }
        let stderr = File::create(self.stderr_path())
            .map_err(|source| (TargetError::Io { what: "QEMU's stderr file".to_string(), source }, false))?;
        let mut command = Command::new(&self.program);
        command.args(&args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(stderr);
        die_with_parent(&mut command);
        let mut child = command.spawn().map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                (tool_missing(&self.program), false)
            } else {
                (TargetError::Io { what: format!("starting {}", self.program.display()), source }, false)
            }
        })?;
        let pid = child.id();
        let mut command_line = vec![self.program.display().to_string()];
        command_line.extend(args);

        let start_timeout = self.config.start_timeout;
        let result = self.connect(&mut child, gdb_port).and_then(|connections| {
            let plugin = listener.map(|listener| listener.accept(start_timeout)).transpose()?;
            Ok((connections, plugin))
        });
        match result {
            Ok(((gdb, mut qmp, qtest), plugin)) => {
                self.version = qmp.version();
                let gpio_ports = gpio_ports(&mut qmp).map_err(|error| (error, false))?;
                let lockstep = Lockstep::default();
                Ok(Session {
                    child,
                    pid,
                    gdb,
                    qmp,
                    qtest,
                    gpio_ports,
                    lockstep,
                    machine_clock: None,
                    plugin,
                    plugin_clock: PluginClock::new(shift.unwrap_or(0)),
                    stop_at_every_tick: self.config.stop_at_every_tick,
                    gdb_port,
                    command_line,
                    has_run: false,
                    exit: None,
                })
            }
            Err(error) => {
                let exited = child.try_wait().ok().flatten();
                let _ = child.kill();
                let _ = child.wait();
                let said = self.stderr_tail();
                let port_taken = said.contains("Address already in use");
                let error = match exited {
                    Some(status) if said.contains("-kernel") || said.contains("load") => TargetError::Image {
                        path: elf.display().to_string(),
                        detail: format!("QEMU refused it and exited ({status}){said}"),
                    },
                    Some(status) => TargetError::Disconnected {
                        what: "emulator".to_string(),
                        detail: format!(
                            "it exited at start-up ({status}){said}{}; command: {}",
                            if said.contains("plugin") {
                                "; a QEMU without TCG plugins runs lockstep with `--lockstep gdbstub`"
                            } else {
                                ""
                            },
                            command_line.join(" ")
                        ),
                    },
                    None => error,
                };
                Err((error, port_taken))
            }
        }
    }

    /// Waits for QMP, qtest and the gdbstub to answer, watching the process.
    fn connect(&self, child: &mut Child, gdb_port: u16) -> Result<(GdbClient, QmpClient, QtestClient), TargetError> {
        let deadline = Instant::now() + self.config.start_timeout;
        let exited = |child: &mut Child| -> Result<(), TargetError> {
            match child.try_wait() {
                Ok(Some(status)) => Err(TargetError::Disconnected {
                    what: "emulator".to_string(),
                    detail: format!("it exited at start-up ({status})"),
                }),
                _ => Ok(()),
            }
        };
        let path = self.qmp_socket();
        let qmp = loop {
            exited(child)?;
            match QmpClient::connect(&path, self.config.timeout) {
                Ok(qmp) => break qmp,
                Err(TargetError::Disconnected { .. }) if Instant::now() < deadline => {
                    thread::sleep(Duration::from_millis(10))
                }
                Err(TargetError::Disconnected { .. }) => {
                    return Err(TargetError::Timeout {
                        what: format!("QEMU's QMP socket {}", path.display()),
                        timeout: self.config.start_timeout,
                    })
                }
                Err(error) => return Err(error),
            }
        };
        // QEMU opened every socket before it answered QMP.
        let qtest = QtestClient::connect(&self.qtest_socket(), self.config.timeout)?;
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, gdb_port));
        let gdb = loop {
            exited(child)?;
            match GdbClient::connect(address, self.config.timeout) {
                Ok(gdb) => break gdb,
                Err(TargetError::Disconnected { .. }) if Instant::now() < deadline => {
                    thread::sleep(Duration::from_millis(10))
                }
                Err(TargetError::Disconnected { .. }) => {
                    return Err(TargetError::Timeout {
                        what: format!("QEMU's gdbstub at {address}"),
                        timeout: self.config.start_timeout,
                    })
                }
                Err(error) => return Err(error),
            }
        };
        Ok((gdb, qmp, qtest))
    }

    fn key(&self, button: ButtonId) -> Result<String, TargetError> {
        let keys = &self.config.keys;
        match button {
            ButtonId::White => Ok(keys.white.clone()),
            ButtonId::Black => Ok(keys.black.clone()),
            ButtonId::Pause => keys.pause.clone().ok_or_else(|| TargetError::Protocol {
                what: "emulator".to_string(),
                detail: "no key is configured for the pause button".to_string(),
            }),
        }
    }
}

/// The QOM path of every GPIO port device, by its base address (QEMU
/// names them `/machine/unattached/device[N]` in creation order).
fn gpio_ports(qmp: &mut QmpClient) -> Result<Vec<(u32, String)>, TargetError> {
    const PARENT: &str = "/machine/unattached";
    let children = qmp.execute("qom-list", Some(json!({ "path": PARENT })))?;
    let mut ports = Vec::new();
    for child in children.as_array().into_iter().flatten() {
        let name = child.get("name").and_then(|name| name.as_str()).unwrap_or_default();
        let kind = child.get("type").and_then(|kind| kind.as_str()).unwrap_or_default();
        if !name.starts_with("device[") || !kind.starts_with("child<") {
            continue;
        }
        let path = format!("{PARENT}/{name}");
        let device_type = qmp.execute("qom-get", Some(json!({ "path": path, "property": "type" })))?;
        if !device_type.as_str().is_some_and(|kind| kind.starts_with("pl061")) {
            continue;
        }
        let base = qmp.execute("qom-get", Some(json!({ "path": format!("{path}/pl061[0]"), "property": "addr" })))?;
        if let Some(base) = base.as_u64().and_then(|base| u32::try_from(base).ok()) {
            ports.push((base, path));
        }
    }
    Ok(ports)
}

impl Session {
    /// Sets the GPIO line behind `qcode` to the level of a pressed (low) or
    /// released key, at once: at the guest's current point when halted.
    fn set_level(&mut self, qcode: &str, pressed: bool) -> Result<(), TargetError> {
        let unwired = || TargetError::Protocol {
            what: "emulator".to_string(),
            detail: format!("key `{qcode}` is not one of the lm3s6965evb gamepad's (up, down, left, right, ctrl)"),
        };
        let (base, line) = gamepad_line(qcode).ok_or_else(unwired)?;
        let device = self.gpio_ports.iter().find(|(port, _)| *port == base).map(|(_, path)| path.clone());
        let device = device.ok_or_else(|| TargetError::Protocol {
            what: "emulator".to_string(),
            detail: format!("no GPIO port at {base:#010x} in this machine (is it an lm3s6965evb?)"),
        })?;
        self.qtest.set_gpio_in(&device, line, !pressed)
    }

    /// Makes an edge at the point the halted VM stands at (thread mode:
    /// every stop leaves it there), so that the firmware's interrupt for it
    /// is taken there (see `hil/LOCKSTEP.md`). QEMU under icount takes an
    /// interrupt raised while the VM is halted only at its next timer
    /// deadline: one step with interrupts unmasked (timers still masked,
    /// so guest time does not move) takes it at once.
    fn edge(&mut self, qcode: &str, pressed: bool) -> Result<(), TargetError> {
        self.set_level(qcode, pressed)?;
        if self.plugin.is_some() {
            // The core is held mid-execution, not halted: it takes the
            // interrupt as it goes on, at its next block of instructions.
            return Ok(());
        }
        self.gdb.set_step_flags(STEP_TAKES_INTERRUPTS)?;
        let stepped = self.gdb.step();
        self.gdb.set_step_flags(STEP_DEFAULT)?;
        if stepped?.is_watchpoint() {
            self.step_over_watched_write()?;
        }
        Ok(())
    }

    fn registers(&mut self) -> Result<(u32, u32), TargetError> {
        let bytes = self.gdb.read_registers()?;
        let word = |at: usize| {
            bytes.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes).ok_or_else(|| {
                TargetError::Protocol {
                    what: "emulator".to_string(),
                    detail: format!("`g` answered {} bytes, too few for pc and xpsr", bytes.len()),
                }
            })
        };
        Ok((word(REGISTER_PC)?, word(REGISTER_XPSR)?))
    }

    /// Single-steps (interrupts and timers masked) until the core runs in
    /// thread mode (IPSR 0).
    /// Returns how many times a step entered the tick handler again (the
    /// next tick, tail-chained).
    fn step_to_thread_mode(&mut self) -> Result<u32, TargetError> {
        let mut entered = 0u32;
        let (mut pc, mut xpsr) = self.registers()?;
        for _ in 0..HANDLER_STEPS_MAX {
            if xpsr & 0x1ff == 0 {
                return Ok(entered);
            }
            if self.gdb.step()?.is_watchpoint() {
                self.step_over_watched_write()?;
            }
            let before = pc;
            (pc, xpsr) = self.registers()?;
            if let Some(FaultStop::At(handler)) = self.lockstep.fault {
                if pc == handler {
                    return Err(self.fault(handler));
                }
            }
            if Some(pc) == self.lockstep.systick && Some(before) != self.lockstep.systick {
                entered += 1;
            }
        }
        Err(TargetError::Protocol {
            what: "emulator".to_string(),
            detail: format!(
                "the firmware's tick handler did not return to thread mode within {HANDLER_STEPS_MAX} \
                 instructions; `--icount none` plays without lockstep (host-timed, not reproducible)"
            ),
        })
    }

    /// Lets the halted VM run to its next stop under `plan` (see
    /// [`Target::step`]); a VM still running from the last call is waited on.
    fn step(&mut self, plan: &StepPlan, timeout: Duration) -> Result<Option<Stop>, TargetError> {
        if self.plugin.is_some() {
            return self.step_with_plugin(plan, timeout);
        }
        if !self.gdb.is_running() {
            if let Some(stop) = self.arm(plan)? {
                return Ok(Some(stop));
            }
            self.gdb.resume()?;
        }
        let Some(stop) = self.gdb.wait_for_stop(timeout)? else { return Ok(None) };
        if stop.is_watchpoint() {
            self.step_over_watched_write()?;
            return Ok(Some(Stop::Written));
        }
        if stop.signal == 5 {
            if let FaultStop::At(handler) = self.lockstep.fault.unwrap_or(FaultStop::None) {
                let (pc, _) = self.registers()?;
                if pc == handler {
                    return Err(self.fault(handler));
                }
            }
        }
        if stop.signal == 5 && self.lockstep.tick_breakpoint {
            // Out of the tick handler before anything else: QEMU moved guest
            // time to the next tick as it stopped, and the handler entered
            // again at once would leave the firmware's main loop no time at
            // all (hil/LOCKSTEP.md). Every handler entry is a tick.
            let entered = self.step_to_thread_mode()?;
            return Ok(Some(Stop::Tick { ticks: entered.saturating_add(1) }));
        }
        Err(TargetError::Protocol {
            what: "emulator".to_string(),
            detail: format!("the VM stopped for no lockstep reason (stop reply {})", stop.raw),
        })
    }

    /// QEMU stops before a watched write, and stops there again on a step
    /// or continue: the write is made with the watchpoint out, so the
    /// record it announces is complete at the stop.
    fn step_over_watched_write(&mut self) -> Result<(), TargetError> {
        let Some((address, len)) = self.lockstep.watch else { return Ok(()) };
        self.gdb.set_write_watchpoint(address, len, false)?;
        self.gdb.step()?;
        self.gdb.set_write_watchpoint(address, len, true)
    }

    /// Inserts and removes the stops `plan` asks for, and steps off the
    /// tick breakpoint the VM stands on (a step is a stop of its own when
    /// it writes the watched bytes).
    fn arm(&mut self, plan: &StepPlan) -> Result<Option<Stop>, TargetError> {
        if self.lockstep.fault.is_none() {
            self.arm_fault_stop()?;
        }
        if self.lockstep.watch != plan.watch {
            if let Some((address, len)) = self.lockstep.watch.take() {
                self.gdb.set_write_watchpoint(address, len, false)?;
            }
            if let Some((address, len)) = plan.watch {
                self.gdb.set_write_watchpoint(address, len, true)?;
                self.lockstep.watch = plan.watch;
            }
        }
        if self.lockstep.tick_breakpoint != plan.tick {
            let systick = match self.lockstep.systick {
                Some(address) => address,
                None => self.systick_handler()?,
            };
            self.gdb.set_breakpoint(systick, plan.tick)?;
            self.lockstep.tick_breakpoint = plan.tick;
        }
        Ok(None)
    }

    /// A breakpoint on the HardFault handler (vector 3 at 0x0c), so a
    /// firmware that faults stops the run at once, named, rather than
    /// leaving the harness to wait for records that never come (a fault
    /// handler that loops masks SysTick: no tick stop either).
    fn arm_fault_stop(&mut self) -> Result<(), TargetError> {
        let mut entry = [0u8; 4];
        self.gdb.read_memory(0x0c, &mut entry)?;
        let handler = u32::from_le_bytes(entry) & !1;
        let systick = match self.lockstep.systick {
            Some(address) => Some(address),
            None => self.systick_handler().ok(),
        };
        let fault = match handler {
            0 => FaultStop::None,
            address if Some(address) == systick => FaultStop::None,
            address => {
                self.gdb.set_breakpoint(address, true)?;
                FaultStop::At(address)
            }
        };
        self.lockstep.fault = Some(fault);
        Ok(())
    }

    /// What the core did, read at its stop on the HardFault handler: the
    /// exception it took (IPSR), the stacked PC of the faulting
    /// instruction (on the main stack), and the fault status registers.
    fn fault(&mut self, handler: u32) -> TargetError {
        let bytes = self.gdb.read_registers().unwrap_or_default();
        let word = |at: usize| bytes.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes);
        let exception = word(REGISTER_XPSR).map_or(0, |xpsr| xpsr & 0x1ff);
        let (sp, lr) = (word(REGISTER_SP), word(REGISTER_LR));
        let mut read = |address: u32| {
            let mut bytes = [0u8; 4];
            self.gdb.read_memory(address, &mut bytes).ok().map(|()| u32::from_le_bytes(bytes))
        };
        // EXC_RETURN bit 2 clear: the frame is on the main stack, which `g`'s sp is.
        let stacked_pc = match (sp, lr) {
            (Some(sp), Some(lr)) if lr & 0x4 == 0 => read(sp.wrapping_add(24)),
            _ => None,
        };
        let (cfsr, hfsr) = (read(CFSR_ADDRESS), read(HFSR_ADDRESS));
        let hex = |value: Option<u32>| value.map_or_else(|| "unreadable".to_string(), |value| format!("{value:#010x}"));
        TargetError::Fault {
            what: "firmware".to_string(),
            detail: format!(
                "the core took a HardFault (exception {exception}; the emulator stopped it at the handler, \
                 {handler:#010x}): faulting PC {}, CFSR {}, HFSR {}; a board would hang here",
                match stacked_pc {
                    Some(pc) => format!("{pc:#010x}"),
                    None => "not on the main stack".to_string(),
                },
                hex(cfsr),
                hex(hfsr)
            ),
        }
    }

    /// The SysTick handler's address from the vector table (entry 15 at
    /// 0x3c; VTOR is 0 from reset), Thumb bit cleared.
    fn systick_handler(&mut self) -> Result<u32, TargetError> {
        let mut entry = [0u8; 4];
        self.gdb.read_memory(0x3c, &mut entry)?;
        let address = u32::from_le_bytes(entry) & !1;
        if address == 0 {
            return Err(TargetError::Image {
                path: "the loaded image".to_string(),
                detail: "its vector table has no SysTick handler (entry 15), the tick a lockstep run stops on; \
                         `--icount none` plays without lockstep (host-timed, not reproducible)"
                    .to_string(),
            });
        }
        self.lockstep.systick = Some(address);
        Ok(address)
    }

    /// Sends a key event with the VM running, as QEMU requires; a VM the
    /// caller halted is halted again afterwards (guest time moved on only
    /// for the few microseconds of host time the event took).
    fn key(&mut self, qcode: &str, down: bool) -> Result<(), TargetError> {
        let was_halted = !self.gdb.is_running();
        if was_halted {
            self.gdb.resume()?;
        }
        let mut outcome = self.qmp.send_key_raw(qcode, down)?;
        if outcome.is_err() {
            // The VM stopped without the gdb connection knowing (a stop
            // reply may be waiting): settle the state, resume, send again.
            self.gdb.interrupt()?;
            self.gdb.resume()?;
            outcome = self.qmp.send_key_raw(qcode, down)?;
        }
        if was_halted {
            self.gdb.interrupt()?;
        }
        outcome.map_err(|error| TargetError::Protocol {
            what: format!("QMP socket {}", self.qmp.path().display()),
            detail: format!(
                "key {qcode} {} was refused: {} ({})",
                if down { "down" } else { "up" },
                error.desc,
                error.class
            ),
        })
    }

    /// Plays a bounced press through QEMU's guest-timed key queue: the
    /// unwired key held [`BOUNCE_LEAD_MS`] (so every later event is queued,
    /// not sent at once), one `send-key` per chatter (down `open`, up
    /// `open`) and one for the held press, all in one write. The VM must run
    /// (QEMU drops `send-key` on a halted VM); a VM the caller halted is
    /// halted again afterwards.
    fn bounced_press(&mut self, keys: (&str, &str), bounce: &Bounce, hold_ms: u32) -> Result<(), TargetError> {
        let (qcode, unwired) = keys;
        let was_halted = !self.gdb.is_running();
        if was_halted {
            self.gdb.resume()?;
        }
        let mut commands = vec![QmpClient::send_key_held(unwired, BOUNCE_LEAD_MS)];
        commands.extend(bounce.open_ms().iter().map(|open| QmpClient::send_key_held(qcode, u32::from(*open))));
        commands.push(QmpClient::send_key_held(qcode, hold_ms));
        let answers = self.qmp.execute_pipelined(&commands)?;
        if was_halted {
            self.gdb.interrupt()?;
        }
        match answers.into_iter().find_map(Result::err) {
            None => Ok(()),
            Some(error) => Err(TargetError::Protocol {
                what: format!("QMP socket {}", self.qmp.path().display()),
                detail: format!("send-key {qcode} was refused: {} ({})", error.desc, error.class),
            }),
        }
    }

    /// Waits until QEMU has carried out a requested reset: the run state
    /// becomes `prelaunch`.
    fn await_reset(&mut self, timeout: Duration) -> Result<(), TargetError> {
        let deadline = Instant::now() + timeout;
        loop {
            let status = self.qmp.query_status()?;
            if status.status == "prelaunch" {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(TargetError::Timeout { what: "QEMU's system reset".to_string(), timeout });
            }
            thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for QemuTarget {
    fn drop(&mut self) {
        self.kill();
    }
}

impl Target for QemuTarget {
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            read_while_running: false,
            virtual_time: self.config.icount.is_some(),
            pause_button: self.config.keys.pause.is_some(),
            timed_bounce: true,
            // In lockstep the harness makes each bounce edge at its own stop.
            bounce_lead_us: if self.lockstep() { 0 } else { 2 * u64::from(BOUNCE_LEAD_MS) * 1_000 },
            lockstep: self.lockstep(),
            invisible_stops: self.plugin_shift().is_some(),
        }
    }

    /// Starts a fresh QEMU with `elf` (a running one is killed first), halted
    /// before the first instruction.
    fn load(&mut self, elf: &Path) -> Result<(), TargetError> {
        self.kill();
        check_elf(elf)?;
        let session = self.start(elf)?;
        self.session = Some(session);
        self.elf = Some(elf.to_path_buf());
        Ok(())
    }

    /// Resets the machine (QEMU reloads the image) unless it never ran,
    /// and releases every key (QEMU 7.2 reads the pins low, pressed, until
    /// a key's first event). Then lets it run; in lockstep it stays halted
    /// at its first instruction for [`Target::step`].
    fn reset_and_run(&mut self) -> Result<(), TargetError> {
        let timeout = self.config.timeout;
        let prime = self.config.keys.prime.clone();
        let lockstep = self.lockstep();
        self.with_session(|session| {
            if session.has_run {
                session.release_plugin()?;
                session.gdb.interrupt()?;
                session.qmp.system_reset()?;
                session.await_reset(timeout)?;
            }
            session.has_run = true;
            if lockstep {
                for key in &prime {
                    session.set_level(key, false)?;
                }
                if session.plugin.is_none() {
                    session.machine_clock = Some(MachineClock::start(&mut session.qtest)?);
                }
                return Ok(());
            }
            session.gdb.resume()?;
            for key in &prime {
                session.key(key, true)?;
                session.key(key, false)?;
            }
            Ok(())
        })
    }

    /// Halts the VM: guest time stands still until [`Target::resume`].
    fn halt(&mut self) -> Result<(), TargetError> {
        self.with_session(|session| {
            session.release_plugin()?;
            session.gdb.interrupt().map(|_| ())
        })
    }

    fn resume(&mut self) -> Result<(), TargetError> {
        self.with_session(|session| {
            session.has_run = true;
            session.gdb.resume()
        })
    }

    /// Through qtest when the plugin runs lockstep (the gdbstub would wait
    /// for a core the plugin holds), else through the gdbstub.
    fn read_memory(&mut self, address: u32, buffer: &mut [u8]) -> Result<(), TargetError> {
        self.with_session(|session| match session.plugin {
            Some(_) => session.qtest.read_bytes(address, buffer),
            None => session.gdb.read_memory(address, buffer),
        })
    }

    fn write_memory(&mut self, address: u32, data: &[u8]) -> Result<(), TargetError> {
        self.with_session(|session| match session.plugin {
            Some(_) => session.qtest.write_bytes(address, data),
            None => session.gdb.write_memory(address, data),
        })
    }

    /// In lockstep the button's line is set at once (qtest): at a stop,
    /// the edge is at that exact point of the guest's execution. Otherwise
    /// a key event, which lands when QEMU takes it.
    fn set_button(&mut self, button: ButtonId, pressed: bool) -> Result<(), TargetError> {
        let key = self.key(button)?;
        let lockstep = self.lockstep();
        self.with_session(|session| if lockstep { session.edge(&key, pressed) } else { session.key(&key, pressed) })
    }

    fn machine_time_us(&mut self) -> Result<Option<u64>, TargetError> {
        if !self.lockstep() {
            return Ok(None);
        }
        self.with_session(|session| {
            if session.plugin.is_some() {
                return Ok(session.plugin_clock.machine_time_us());
            }
            match session.machine_clock.as_mut() {
                Some(clock) => clock.read_ns(&mut session.qtest).map(|ns| Some(ns / 1_000)),
                None => Ok(None),
            }
        })
    }

    fn step(&mut self, plan: &StepPlan, timeout: Duration) -> Result<Option<Stop>, TargetError> {
        if !self.lockstep() {
            return Err(TargetError::Protocol {
                what: "emulator".to_string(),
                detail: "lockstep needs -icount (virtual guest time)".to_string(),
            });
        }
        self.with_session(|session| session.step(plan, timeout))
    }

    fn press_with_bounce(&mut self, button: ButtonId, bounce: &Bounce, hold_ms: u32) -> Result<(), TargetError> {
        let key = self.key(button)?;
        let unwired = self.config.keys.unwired.clone();
        self.with_session(|session| session.bounced_press((&key, &unwired), bounce, hold_ms))
    }

    fn describe(&self) -> String {
        let icount = match &self.config.icount {
            Some(icount) => format!("icount {icount}"),
            None => "real time (no icount)".to_string(),
        };
        format!(
            "QEMU {} {} ({}), {icount}",
            self.version.as_deref().unwrap_or("?"),
            self.config.machine,
            self.config.cpu
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_qemu_says_how_to_install_it() {
        let config = QemuConfig { program: PathBuf::from("qemu-system-arm-not-installed"), ..QemuConfig::default() };
        let error = QemuTarget::new(config).unwrap_err();
        assert!(matches!(error, TargetError::ToolMissing { .. }), "{error}");
        let message = error.to_string();
        assert!(message.contains("apt-get install qemu-system-arm") && message.contains("scripts/check"), "{message}");
        let config = QemuConfig { program: PathBuf::from("/nonexistent/qemu-system-arm"), ..QemuConfig::default() };
        assert!(matches!(QemuTarget::new(config), Err(TargetError::ToolMissing { .. })));
    }

    #[test]
    fn the_command_line_has_its_own_port_and_socket() {
        // Any program that exists will do to build the arguments.
        let config = QemuConfig { program: PathBuf::from("sh"), ..QemuConfig::default() };
        let target = QemuTarget::new(config).unwrap();
        let other = QemuTarget::new(QemuConfig { program: PathBuf::from("sh"), ..QemuConfig::default() }).unwrap();
        assert_ne!(target.qmp_socket(), other.qmp_socket());
        let args = target.arguments(Path::new("/x/normal.elf"), 4321).join(" ");
        assert!(args.contains("-machine lm3s6965evb"), "{args}");
        assert!(args.contains("-kernel /x/normal.elf"), "{args}");
        assert!(args.contains("-gdb tcp:127.0.0.1:4321"), "{args}");
        assert!(args.contains(&format!("-qmp unix:{},server=on,wait=off", target.qmp_socket().display())), "{args}");
        assert!(args.contains("-S") && args.ends_with("-icount shift=7,sleep=off"), "{args}");
        assert!(!target.capabilities().read_while_running);
    }

    #[test]
    fn calls_before_load_are_refused_not_hung() {
        let mut target = QemuTarget::new(QemuConfig { program: PathBuf::from("sh"), ..QemuConfig::default() }).unwrap();
        let mut buffer = [0u8; 4];
        assert!(matches!(target.read_memory(0x2000_0000, &mut buffer), Err(TargetError::Disconnected { .. })));
        assert!(matches!(target.set_button(ButtonId::White, true), Err(TargetError::Disconnected { .. })));
    }

    #[test]
    fn a_missing_image_is_an_image_error() {
        let mut target = QemuTarget::new(QemuConfig { program: PathBuf::from("sh"), ..QemuConfig::default() }).unwrap();
        let error = target.load(Path::new("/nonexistent/image.elf")).unwrap_err();
        assert!(matches!(error, TargetError::Image { .. }), "{error}");
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "hello, not an image\n").unwrap();
        let error = target.load(&text).unwrap_err();
        assert!(error.to_string().contains("not an ELF file"), "{error}");
        let mut x86 = vec![0x7f, b'E', b'L', b'F', 2, 1, 1, 0];
        x86.resize(18, 0);
        x86.extend_from_slice(&62u16.to_le_bytes());
        let host = dir.path().join("host.elf");
        std::fs::write(&host, &x86).unwrap();
        let error = target.load(&host).unwrap_err();
        assert!(error.to_string().contains("not a 32-bit little-endian Arm ELF"), "{error}");
        assert_eq!(target.pid(), None);
    }

    /// A SIGKILL skips the folder's removal: the next target removes the
    /// folders of benches that are gone, and keeps live ones' and others'.
    #[test]
    fn a_new_target_removes_the_folders_of_benches_that_are_gone() {
        assert!(Path::new("/proc/self").exists(), "this test needs /proc (Linux)");
        let temp = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let names = [
            format!("bench-qemu-{dead}-aB3dE9"),
            format!("bench-qemu-{}-xY7zQ1", std::process::id()),
            "bench-qemu-1-init00".to_string(),
            "bench-qemu-Zr8Kq2".to_string(),
            "someone-else".to_string(),
        ];
        for name in &names {
            std::fs::create_dir(temp.path().join(name)).unwrap();
            std::fs::write(temp.path().join(name).join("qemu.log"), "log").unwrap();
        }
        remove_stale_dirs(temp.path());
        let left: Vec<bool> = names.iter().map(|name| temp.path().join(name).exists()).collect();
        assert_eq!(left, [false, true, true, true, true], "{names:?}");
        assert_eq!(dir_pid("bench-qemu-42-abc"), Some(42));
        assert_eq!(dir_pid("bench-qemu-42-"), None);
    }

    #[test]
    fn a_target_s_folder_names_its_bench() {
        let target = QemuTarget::new(QemuConfig { program: PathBuf::from("sh"), ..QemuConfig::default() }).unwrap();
        let name = target.dir().file_name().and_then(|name| name.to_str()).map(str::to_string);
        assert_eq!(name.as_deref().and_then(dir_pid), Some(std::process::id()), "{name:?}");
    }
}
