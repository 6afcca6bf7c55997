//! The host side of bench's QEMU lockstep plugin (`hil/qemu-plugin/lockstep.c`,
//! built by `hil/build.rs` and carried inside bench).
//!
//! The plugin stops the core by blocking the vCPU thread in one of its
//! callbacks until bench answers: guest time stands still and the core is
//! not idle, so the stop changes nothing the firmware can see (a debugger
//! stop under `-icount sleep=off` moves guest time on to the next timer
//! deadline, and a single step flushes QEMU's translated code). While it
//! blocks, bench reaches memory and GPIO lines through qtest only: the
//! gdbstub would wait for a vCPU that cannot stop.

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use crate::target::TargetError;

/// The plugin, built for this host.
const PLUGIN_OBJECT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/bench-lockstep.so"));

/// Where the plugin stopped the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PluginStopKind {
    /// The reset handler's first instruction: every reset stops here.
    Reset,
    /// The SysTick handler's first instruction: the exception was just taken.
    Tick,
    /// Right after a write to the watched bytes.
    Written,
}

/// One stop, with the plugin's counts since QEMU started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PluginStop {
    pub kind: PluginStopKind,
    /// Instructions executed, the stop's own included.
    pub instructions: u64,
    /// SysTick exceptions taken.
    pub ticks: u64,
    /// WFI and WFE instructions executed.
    pub sleeps: u64,
}

impl PluginStop {
    fn parse(line: &str) -> Option<PluginStop> {
        let mut fields = line.split(' ');
        let kind = match fields.next()? {
            "R" => PluginStopKind::Reset,
            "T" => PluginStopKind::Tick,
            "W" => PluginStopKind::Written,
            _ => return None,
        };
        let mut number = || fields.next()?.parse::<u64>().ok();
        let stop = PluginStop { kind, instructions: number()?, ticks: number()?, sleeps: number()? };
        fields.next().is_none().then_some(stop)
    }
}

/// The plugin's socket and object file, made before QEMU starts.
#[derive(Debug)]
pub struct PluginListener {
    listener: UnixListener,
    object: PathBuf,
    socket: PathBuf,
}

impl PluginListener {
    /// Writes the plugin into `dir` and listens for it there.
    pub fn bind(dir: &Path) -> Result<PluginListener, TargetError> {
        let io = |what: &str| {
            let what = what.to_string();
            move |source| TargetError::Io { what, source }
        };
        let object = dir.join("bench-lockstep.so");
        std::fs::write(&object, PLUGIN_OBJECT).map_err(io("writing the QEMU lockstep plugin"))?;
        let socket = dir.join("lockstep.sock");
        let _ = std::fs::remove_file(&socket);
        let listener = UnixListener::bind(&socket).map_err(io("the lockstep plugin's socket"))?;
        listener.set_nonblocking(true).map_err(io("the lockstep plugin's socket"))?;
        Ok(PluginListener { listener, object, socket })
    }

    /// QEMU's `-plugin` argument: stops at the reset handler and, when
    /// asked, at the SysTick handler (their addresses, Thumb bit cleared).
    pub fn argument(&self, reset: u32, systick: u32) -> String {
        format!("{},sock={},reset={reset:#x},systick={systick:#x}", self.object.display(), self.socket.display())
    }

    /// Takes the plugin's connection: it connects as QEMU loads it, before
    /// QEMU answers on any other socket, so it is waiting by now.
    pub fn accept(self, timeout: Duration) -> Result<PluginLink, TargetError> {
        let deadline = Instant::now() + timeout;
        let what = || format!("QEMU lockstep plugin at {}", self.socket.display());
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => return PluginLink::new(stream, timeout, what()),
                Err(error) if error.kind() == ErrorKind::WouldBlock && Instant::now() < deadline => {
                    thread::sleep(Duration::from_millis(5))
                }
                Err(error) if error.kind() == ErrorKind::WouldBlock => {
                    return Err(TargetError::Timeout { what: what(), timeout })
                }
                Err(source) => return Err(TargetError::Io { what: what(), source }),
            }
        }
    }
}

/// The connection to a loaded plugin.
#[derive(Debug)]
pub struct PluginLink {
    stream: UnixStream,
    what: String,
    /// Bytes of a stop line not yet complete.
    pending: Vec<u8>,
    /// The plugin holds the core at this stop until [`PluginLink::release`].
    held: Option<PluginStop>,
    timeout: Duration,
}

impl PluginLink {
    fn new(stream: UnixStream, timeout: Duration, what: String) -> Result<PluginLink, TargetError> {
        stream.set_nonblocking(false).map_err(|source| TargetError::Io { what: what.clone(), source })?;
        Ok(PluginLink { stream, what, pending: Vec::new(), held: None, timeout })
    }

    /// The stop the core is held at, if any.
    #[cfg(test)]
    pub fn held(&self) -> Option<PluginStop> {
        self.held
    }

    /// Lets a held core run on, to stop next after a write to `watch`
    /// (address, length) or at the `ticks`-th SysTick exception from now
    /// (none when 0).
    pub fn release(&mut self, watch: Option<(u32, u32)>, ticks: u64) -> Result<(), TargetError> {
        if self.held.is_none() {
            return Ok(());
        }
        let (address, len) = watch.unwrap_or((0, 0));
        let plan = format!("{address:x} {len:x} {ticks}\n");
        let timeout = self.timeout;
        self.stream
            .write_all(plan.as_bytes())
            .map_err(|source| TargetError::from_connection_io(source, self.what.clone(), "sending a plan", timeout))?;
        self.held = None;
        Ok(())
    }

    /// Waits up to `timeout` for the next stop; `None` when the core still
    /// runs.
    pub fn wait(&mut self, timeout: Duration) -> Result<Option<PluginStop>, TargetError> {
        if let Some(stop) = self.held {
            return Ok(Some(stop));
        }
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(end) = self.pending.iter().position(|byte| *byte == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                let text = String::from_utf8_lossy(&line[..end]).into_owned();
                let stop = PluginStop::parse(&text).ok_or_else(|| TargetError::Protocol {
                    what: self.what.clone(),
                    detail: format!("the plugin sent {text:?}, not a stop"),
                })?;
                self.held = Some(stop);
                return Ok(Some(stop));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            let what = self.what.clone();
            let io = |source| TargetError::from_connection_io(source, what.clone(), "waiting for a stop", timeout);
            self.stream.set_read_timeout(Some(left.max(Duration::from_micros(100)))).map_err(io)?;
            let mut buffer = [0u8; 256];
            match self.stream.read(&mut buffer) {
                Ok(0) => {
                    return Err(TargetError::Disconnected {
                        what: self.what.clone(),
                        detail: "the plugin closed its socket (QEMU exited?)".to_string(),
                    })
                }
                Ok(read) => self.pending.extend_from_slice(&buffer[..read]),
                Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(error) if error.kind() == ErrorKind::Interrupted => {}
                Err(source) => return Err(io(source)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_line_names_its_kind_and_counts() {
        assert_eq!(
            PluginStop::parse("T 1234 5 0"),
            Some(PluginStop { kind: PluginStopKind::Tick, instructions: 1234, ticks: 5, sleeps: 0 })
        );
        assert_eq!(PluginStop::parse("W 1 0 2").map(|stop| stop.kind), Some(PluginStopKind::Written));
        assert_eq!(PluginStop::parse("R 0 0 0").map(|stop| stop.kind), Some(PluginStopKind::Reset));
        for bad in ["", "X 1 2 3", "T 1 2", "T 1 2 3 4", "T a 2 3", "T -1 2 3"] {
            assert_eq!(PluginStop::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_plugin_is_built_into_bench() {
        // An ELF shared object: what QEMU's -plugin loads.
        assert_eq!(PLUGIN_OBJECT.get(..4), Some(&b"\x7fELF"[..]));
    }

    /// A stop comes whole however the plugin's bytes are split, and the
    /// answer is the plan's line.
    #[test]
    fn a_stop_is_read_whole_and_released_with_the_plan() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let listener = PluginListener::bind(dir.path()).expect("listening");
        let mut plugin = UnixStream::connect(&listener.socket).expect("the plugin's side");
        let mut link = listener.accept(Duration::from_secs(5)).expect("accepted");
        assert_eq!(link.wait(Duration::from_millis(10)).expect("no error"), None, "nothing sent yet");
        plugin.write_all(b"W 10 2").expect("half a line");
        assert_eq!(link.wait(Duration::from_millis(10)).expect("no error"), None, "half a line is no stop");
        plugin.write_all(b" 0\n").expect("the rest");
        let stop = link.wait(Duration::from_secs(5)).expect("no error").expect("a stop");
        assert_eq!(stop, PluginStop { kind: PluginStopKind::Written, instructions: 10, ticks: 2, sleeps: 0 });
        assert_eq!(link.held(), Some(stop));
        link.release(Some((0x2000_4228, 4)), 1).expect("released");
        assert_eq!(link.held(), None);
        let mut plan = [0u8; 13];
        plugin.read_exact(&mut plan).expect("the plan");
        assert_eq!(&plan, b"20004228 4 1\n");
    }
}
