//! The board as the harness sees it: the one abstraction every backend
//! implements (QEMU's emulated board, a real board through probe-rs, an
//! in-memory fake for tests). Everything above it is shared code.
//!
//! Layers, probe-rs style: a backend opens a session (`Target`), which
//! lends short-lived access to memory and buttons.

use std::io::ErrorKind;
use std::path::Path;
use std::time::Duration as HostDuration;

/// A player's button (or the optional pause button) on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ButtonId {
    White,
    Black,
    Pause,
}

/// What a backend can do; the harness adapts (e.g. time compression only
/// where the guest's time is virtual).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// Memory can be read while the core runs (probe-rs on Cortex-M). When
    /// false, a read halts the core briefly (QEMU's gdbstub).
    pub read_while_running: bool,
    /// Guest time is virtual and may run faster than host time.
    pub virtual_time: bool,
    /// The pause button is wired.
    pub pause_button: bool,
    /// [`Target::press_with_bounce`] times its edges in the board's own
    /// time: QEMU's key queue runs on guest time (host sleeps cannot make
    /// edges milliseconds apart in a guest that runs faster than the host);
    /// a real board's time is the host's, so host sleeps between its writes
    /// do.
    pub timed_bounce: bool,
    /// Board time from [`Target::press_with_bounce`] to the press's first
    /// edge, µs.
    pub bounce_lead_us: u64,
    /// The board runs in lockstep ([`Target::step`]): it stops by itself at
    /// points of its own execution, and the harness acts only there, so a
    /// run does not depend on how fast the host is.
    pub lockstep: bool,
    /// Lockstep stops change nothing the firmware does (QEMU's lockstep
    /// plugin): the harness may stop as often as exactness asks, at every
    /// tick before an edge, a release or a game's end, and a run's report
    /// does not depend on where else it stopped.
    pub invisible_stops: bool,
}

/// Where a lockstep board ([`Target::step`]) stops next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepPlan {
    /// Stop after each write to these bytes (address, length): the
    /// firmware's record channel's write offset, so every record it sends
    /// is a stop.
    pub watch: Option<(u32, u32)>,
    /// Stop at each of the firmware's timer ticks (its SysTick exception).
    pub tick: bool,
    /// With `tick`, the board may let this many ticks pass before it stops
    /// at one ([`Stop::Tick`] says how many passed); a board that cannot
    /// count them stops at each.
    pub skip_ticks: u32,
}

/// Why a lockstep board stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A write to the watched bytes.
    Written,
    /// The firmware's timer tick: `ticks` of them passed (its handler ran
    /// that many times) and the core is back in thread mode.
    Tick { ticks: u32 },
}

/// The most chatter edges one [`Bounce`] holds: as many as a replay file's
/// press may have.
pub const BOUNCE_EDGES_MAX: usize = bench_sim::game::BOUNCE_EDGES_MAX;

/// Contact bounce on a press: after the first closing edge the contact
/// opens for `open_ms` and closes again after as long, once per entry, then
/// stays closed. Each entry is one extra closing edge, `2 × open_ms` after
/// the previous one; all of them are bounce to a firmware whose debounce
/// window is longer than [`Bounce::span_us`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bounce {
    open_ms: [u8; BOUNCE_EDGES_MAX],
    edges: u8,
}

impl Bounce {
    /// A clean press.
    pub const NONE: Bounce = Bounce { open_ms: [0; BOUNCE_EDGES_MAX], edges: 0 };

    /// `None` for more than [`BOUNCE_EDGES_MAX`] entries or an entry of 0 ms.
    pub fn new(open_ms: &[u8]) -> Option<Bounce> {
        if open_ms.len() > BOUNCE_EDGES_MAX || open_ms.contains(&0) {
            return None;
        }
        let mut bounce = Bounce::NONE;
        for (slot, open) in bounce.open_ms.iter_mut().zip(open_ms) {
            *slot = *open;
        }
        bounce.edges = u8::try_from(open_ms.len()).ok()?;
        Some(bounce)
    }

    /// How long the contact opens before each extra closing edge, ms.
    pub fn open_ms(&self) -> &[u8] {
        self.open_ms.get(..usize::from(self.edges)).unwrap_or_default()
    }

    /// Extra closing (press) edges after the first one.
    pub fn edges(&self) -> u64 {
        u64::from(self.edges)
    }

    pub fn is_none(&self) -> bool {
        self.edges == 0
    }

    /// From the first closing edge to the last, µs.
    pub fn span_us(&self) -> u64 {
        self.open_ms().iter().map(|open| 2 * u64::from(*open) * 1_000).sum()
    }

    /// The contact's level changes of a press with this bounce held
    /// `hold_ms` after its last closing edge: (µs after the first edge,
    /// closed), in time order, the first at 0 and the release last. For
    /// boards whose host makes the edges itself (a real board's time is the
    /// host's).
    pub fn contact_steps(&self, hold_ms: u32) -> Vec<(u64, bool)> {
        let mut steps = vec![(0, true)];
        let mut at_us = 0;
        for open in self.open_ms() {
            let open_us = u64::from(*open) * 1_000;
            steps.push((at_us + open_us, false));
            at_us += 2 * open_us;
            steps.push((at_us, true));
        }
        steps.push((at_us + u64::from(hold_ms) * 1_000, false));
        steps
    }
}

/// One read of the board's free-running counter (DWT CYCCNT) between two
/// readings of the host's monotonic clock: an oscillator-drift sample whose
/// instant is known to within its round trip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterReading {
    /// Host monotonic time right before the read went out, µs since the
    /// backend's own origin.
    pub host_before_us: u64,
    /// Host monotonic time right after the answer came, µs, same origin.
    pub host_after_us: u64,
    /// The counter as read; it wraps at the firmware's `hw_counter_bits`.
    pub counter: u64,
}

impl CounterReading {
    /// The probe's round trip for this read, µs.
    pub fn round_trip_us(&self) -> u64 {
        self.host_after_us.saturating_sub(self.host_before_us)
    }
}

/// The board's counter read right before and right after the write that
/// made a button edge: the edge happened between the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeWindow {
    pub counter_before: u64,
    pub counter_after: u64,
}

/// One press as it was made on a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentPress {
    pub button: ButtonId,
    /// Scheduled guest instant (firmware clock), µs.
    pub scheduled_us: u64,
    /// The latest firmware instant known when the button went down, µs
    /// (for a bounced press, that instant plus the board's lead-in).
    pub sent_us: u64,
    /// The board's counter around the write, when the backend reads it.
    pub window: Option<EdgeWindow>,
    /// The contact bounce made on this press (none when the schedule has
    /// none, the board cannot time it, or it would not fit the firmware's
    /// debounce window).
    pub bounce: Bounce,
}

/// Why a target operation failed. Every variant says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// The backend's tool is not installed.
    #[error("{tool} is not installed: {hint}")]
    ToolMissing { tool: String, hint: String },
    /// The emulator or probe connection is gone.
    #[error("the {what} went away: {detail}")]
    Disconnected { what: String, detail: String },
    /// The target did not answer in time.
    #[error("the {what} did not answer within {timeout:?}")]
    Timeout { what: String, timeout: HostDuration },
    /// The target answered, but not as the protocol says it must.
    #[error("protocol error talking to the {what}: {detail}")]
    Protocol { what: String, detail: String },
    /// The firmware faulted: the board stopped in its fault handler.
    #[error("the {what} faulted: {detail}")]
    Fault { what: String, detail: String },
    /// The firmware image could not be used.
    #[error("firmware image {path}: {detail}")]
    Image { path: String, detail: String },
    #[error("I/O error with the {what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

impl TargetError {
    /// An I/O error on the connection to `what` while doing `context`: a
    /// timeout when the `timeout` ran out, `Disconnected` when the peer is
    /// gone, else `Io`.
    pub fn from_connection_io(
        source: std::io::Error,
        what: String,
        context: &str,
        timeout: HostDuration,
    ) -> TargetError {
        match source.kind() {
            ErrorKind::WouldBlock | ErrorKind::TimedOut => {
                TargetError::Timeout { what: format!("{what} ({context})"), timeout }
            }
            ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::BrokenPipe
            | ErrorKind::NotConnected
            | ErrorKind::UnexpectedEof => TargetError::Disconnected { what, detail: format!("{source} ({context})") },
            _ => TargetError::Io { what: format!("{what} ({context})"), source },
        }
    }
}

/// A board running clock firmware.
///
/// Contract: addresses are the target's 32-bit physical addresses; a failed
/// call leaves the target usable or reports `Disconnected`; no call blocks
/// longer than the backend's stated timeout.
pub trait Target {
    fn capabilities(&self) -> Capabilities;
    /// Loads (flashes) the ELF image; the core stays halted afterwards.
    fn load(&mut self, elf: &Path) -> Result<(), TargetError>;
    /// Resets the core and lets it run.
    fn reset_and_run(&mut self) -> Result<(), TargetError>;
    fn halt(&mut self) -> Result<(), TargetError>;
    fn resume(&mut self) -> Result<(), TargetError>;
    fn read_memory(&mut self, address: u32, buffer: &mut [u8]) -> Result<(), TargetError>;
    fn write_memory(&mut self, address: u32, data: &[u8]) -> Result<(), TargetError>;
    /// Presses (`true`) or releases a button: a real edge on the firmware's input.
    fn set_button(&mut self, button: ButtonId, pressed: bool) -> Result<(), TargetError>;
    /// Presses `button` with `bounce`, holds it `hold_ms` after the last
    /// closing edge and releases it, every edge timed in the board's own
    /// time, the first [`Capabilities::bounce_lead_us`] from now. The
    /// emulator returns at once and its edges follow as guest time runs; a
    /// real board returns once it has made them (host time is its time).
    /// Only where [`Capabilities::timed_bounce`] says so.
    fn press_with_bounce(&mut self, button: ButtonId, bounce: &Bounce, hold_ms: u32) -> Result<(), TargetError> {
        let _ = (button, bounce, hold_ms);
        Err(TargetError::Protocol {
            what: self.describe(),
            detail: "this board cannot time contact bounce in its own time".to_string(),
        })
    }
    /// A short human description for reports ("QEMU 7.2 lm3s6965evb, icount shift=7").
    fn describe(&self) -> String;

    /// Reads the board's free-running counter bracketed by host monotonic
    /// time (oscillator drift). `None`: this backend has no counter that
    /// runs on the board's own oscillator against host time (the emulator's
    /// time is virtual).
    fn read_counter(&mut self) -> Result<Option<CounterReading>, TargetError> {
        Ok(None)
    }

    /// [`Target::set_button`], with the board's counter read right before
    /// and right after the write (press latency on the board). `None`: the
    /// backend cannot read the counter around its write.
    fn set_button_timed(&mut self, button: ButtonId, pressed: bool) -> Result<Option<EdgeWindow>, TargetError> {
        self.set_button(button, pressed).map(|()| None)
    }

    /// Lockstep: the machine's own clock where the board stands, µs since
    /// it left reset, read from the board itself (on QEMU its watchdog
    /// counter), never from what the firmware writes. `None`: this backend
    /// has no such clock.
    fn machine_time_us(&mut self) -> Result<Option<u64>, TargetError> {
        Ok(None)
    }

    /// Lockstep ([`Capabilities::lockstep`]): lets a halted board run until
    /// its next stop under `plan` and leaves it halted there; everything the
    /// harness does between two steps (reads, writes, button levels) then
    /// happens at that exact point of the firmware's execution. `None` when
    /// the board still runs after `timeout` (the next call waits on).
    fn step(&mut self, plan: &StepPlan, timeout: HostDuration) -> Result<Option<Stop>, TargetError> {
        let _ = (plan, timeout);
        Err(TargetError::Protocol { what: self.describe(), detail: "this board does not run in lockstep".to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The contact as a level over time, from the steps: closed between a
    /// `true` step and the next `false` one.
    fn closed_at(steps: &[(u64, bool)], at_us: u64) -> bool {
        steps.iter().take_while(|(step_us, _)| *step_us <= at_us).last().is_some_and(|(_, closed)| *closed)
    }

    #[test]
    fn contact_steps_close_once_per_bounce_edge_and_release_after_the_hold() {
        let bounce = Bounce::new(&[2, 1]).expect("a bounce");
        let steps = bounce.contact_steps(100);
        // Closed at 0, open 2 ms, closed at 4, open 1 ms, closed at 6 (the
        // last closing edge: span 6 ms), released 100 ms later.
        assert_eq!(steps, [(0, true), (2_000, false), (4_000, true), (5_000, false), (6_000, true), (106_000, false)]);
        assert_eq!(bounce.span_us(), 6_000);
        let closing_edges = steps.windows(2).filter(|pair| !pair[0].1 && pair[1].1).count() as u64;
        assert_eq!(closing_edges, bounce.edges());
        assert!(steps.windows(2).all(|pair| pair[0].0 < pair[1].0), "in time order");
        assert!(closed_at(&steps, 105_999) && !closed_at(&steps, 106_000));
        assert_eq!(Bounce::NONE.contact_steps(80), [(0, true), (80_000, false)], "a clean press");
    }

    #[test]
    fn a_connection_error_says_whether_to_wait_reconnect_or_look_at_the_host() {
        let error = |kind: ErrorKind| {
            TargetError::from_connection_io(
                std::io::Error::new(kind, "boom"),
                "GDB stub".into(),
                "reading a packet",
                HostDuration::from_secs(2),
            )
            .to_string()
        };
        assert_eq!(error(ErrorKind::TimedOut), "the GDB stub (reading a packet) did not answer within 2s");
        assert_eq!(error(ErrorKind::WouldBlock), "the GDB stub (reading a packet) did not answer within 2s");
        assert_eq!(error(ErrorKind::UnexpectedEof), "the GDB stub went away: boom (reading a packet)");
        assert_eq!(error(ErrorKind::ConnectionReset), "the GDB stub went away: boom (reading a packet)");
        assert_eq!(error(ErrorKind::PermissionDenied), "I/O error with the GDB stub (reading a packet): boom");
    }
}
