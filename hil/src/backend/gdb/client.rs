//! A small GDB remote serial protocol client (std only), enough to read and
//! write a target's memory and to halt and continue it: what bench needs
//! from QEMU's gdbstub and from a board's GDB server ([`super`]).
//!
//! No maintained client crate exists (the `gdbstub` crate is the server
//! side), so this is ours. What it knows about QEMU 7.2's gdbstub, measured
//! (`../../shared/notes/toolchain-emulator-probe.md`, `firmware/SMOKE.md`):
//!
//! - All-stop: **any byte received while the VM runs halts it**, and that
//!   byte is swallowed. So memory is only ever accessed while halted: a
//!   [`GdbClient::read_memory`] on a running target sends `0x03`, waits for
//!   the stop reply, reads, and continues (≈0.45 ms in all).
//! - Connecting to a running VM halts it and QEMU sends an unsolicited stop
//!   reply (`$T02thread:01;#04`); a VM started with `-S` sends nothing.
//! - There is no `QStartNoAckMode` in 7.2: every packet is acknowledged
//!   with `+` (a `-` asks for it again).
//! - `c` is acknowledged with `+` and answered only when the VM stops again.
//! - A `0x03` sent while the VM is already halted is ignored: no answer.
//!
//! Framing: `$payload#xx`, `xx` the modulo-256 sum of the payload bytes in
//! two lower-case hex digits; `}` escapes (`}` then byte ^ 0x20) and
//! run-length encoding (`x*n`: `x` repeated `n - 29` more times) are decoded
//! in received packets.
//!
//! Every read from the socket has a deadline: no call blocks longer than the
//! client's timeout (a few of them for a halt that needs its fallback).
//! Errors are [`TargetError`]s: `Disconnected` when the socket closed,
//! `Timeout` when the stub stayed silent, `Protocol` when it answered
//! something else than the protocol says.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use crate::target::TargetError;

/// Bytes per `m` request: the reply is twice as many hex digits, well
/// inside QEMU's 4096-byte packet buffer.
pub const READ_CHUNK_MAX: usize = 1024;
/// Bytes per `M` request (the request carries them as hex).
pub const WRITE_CHUNK_MAX: usize = 512;
/// A packet refused (`-`) this many times in a row is a protocol error.
const RETRANSMITS_MAX: u32 = 4;
/// Received packets with a bad checksum in a row before giving up.
const BAD_CHECKSUMS_MAX: u32 = 4;
/// Longest packet accepted from the stub (QEMU's own limit is 4096).
const PACKET_MAX: usize = 64 * 1024;
/// The interrupt byte (Ctrl-C).
const INTERRUPT: u8 = 0x03;

/// The modulo-256 sum of `bytes`: the protocol's checksum.
pub fn checksum(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |sum, byte| sum.wrapping_add(*byte))
}

/// `payload` framed as a packet: `$`, the payload with `$ # } *` escaped,
/// `#` and the checksum of the escaped bytes.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut escaped = Vec::with_capacity(payload.len().saturating_add(8));
    for &byte in payload {
        if matches!(byte, b'$' | b'#' | b'}' | b'*') {
            escaped.push(b'}');
            escaped.push(byte ^ 0x20);
        } else {
            escaped.push(byte);
        }
    }
    let sum = checksum(&escaped);
    let mut packet = Vec::with_capacity(escaped.len().saturating_add(4));
    packet.push(b'$');
    packet.extend_from_slice(&escaped);
    packet.push(b'#');
    packet.extend_from_slice(format!("{sum:02x}").as_bytes());
    packet
}

/// Undoes `}` escapes and run-length encoding in a received payload.
pub fn unescape(raw: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(raw.len());
    let mut bytes = raw.iter().copied();
    while let Some(byte) = bytes.next() {
        match byte {
            b'}' => match bytes.next() {
                Some(next) => out.push(next ^ 0x20),
                None => return Err("packet ends in an escape character".to_string()),
            },
            b'*' => {
                let Some(&last) = out.last() else {
                    return Err("run-length marker at the start of a packet".to_string());
                };
                let Some(count) = bytes.next() else {
                    return Err("packet ends in a run-length marker".to_string());
                };
                let repeat =
                    usize::from(count).checked_sub(29).ok_or_else(|| format!("bad run length {count:#04x}"))?;
                out.extend(std::iter::repeat_n(last, repeat));
            }
            _ => out.push(byte),
        }
    }
    Ok(out)
}

/// Lower-case hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len().saturating_mul(2));
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// Bytes from hex digits, or `None` if `text` is not an even run of them.
pub fn from_hex(text: &[u8]) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    text.chunks_exact(2)
        .map(|pair| {
            let digits = std::str::from_utf8(pair).ok()?;
            u8::from_str_radix(digits, 16).ok()
        })
        .collect()
}

/// Why the target stopped, from a stop reply (`T02…`, `S05`, `W00`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopReply {
    /// The reply's letter: `T` or `S` (stopped by a signal), `W` or `X`
    /// (the process exited: not a halt).
    pub kind: u8,
    /// The signal (or exit status) number; 2 (SIGINT) for an interrupt.
    pub signal: u8,
    /// The whole reply, for messages.
    pub raw: String,
}

impl StopReply {
    fn parse(payload: &[u8]) -> Option<StopReply> {
        let (&kind, rest) = payload.split_first()?;
        if !matches!(kind, b'T' | b'S' | b'W' | b'X') {
            return None;
        }
        let digits = rest.get(..2)?;
        let signal = u8::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()?;
        Some(StopReply { kind, signal, raw: String::from_utf8_lossy(payload).into_owned() })
    }

    /// A watchpoint's stop (`…watch:ADDR;`, `rwatch:`, `awatch:`).
    pub fn is_watchpoint(&self) -> bool {
        self.raw.contains("watch:")
    }

    /// True for `W`/`X`: the target exited rather than halted.
    pub fn exited(&self) -> bool {
        matches!(self.kind, b'W' | b'X')
    }
}

/// What arrived from the stub.
enum Incoming {
    Ack,
    Nack,
    Packet(Vec<u8>),
}

/// A connection to one gdbstub.
#[derive(Debug)]
pub struct GdbClient {
    stream: TcpStream,
    peer: SocketAddr,
    /// Bytes received and not yet parsed.
    rx: Vec<u8>,
    /// Packets that arrived while an acknowledgement was awaited.
    early: VecDeque<Vec<u8>>,
    timeout: Duration,
    running: bool,
    /// Non-stop mode (`QNonStop:1`): memory is read and written while the
    /// target runs, `vCont;c` and `vCont;t` run and halt it.
    non_stop: bool,
    /// Stop replies nobody asked for (QEMU's on connect, a VM stopped by QMP).
    unsolicited_stops: u64,
}

impl GdbClient {
    /// Connects, and brings the stream into a known state: the target
    /// halted, any unsolicited stop reply consumed. Connecting to QEMU's
    /// gdbstub halts a running VM.
    pub fn connect(address: SocketAddr, timeout: Duration) -> Result<GdbClient, TargetError> {
        let stream = TcpStream::connect_timeout(&address, timeout).map_err(|source| match source.kind() {
            ErrorKind::TimedOut | ErrorKind::WouldBlock => {
                TargetError::Timeout { what: format!("gdbstub at {address} (connecting)"), timeout }
            }
            ErrorKind::ConnectionRefused => TargetError::Disconnected {
                what: format!("gdbstub at {address}"),
                detail: "connection refused: nothing listens there (is the server or the emulator running?)"
                    .to_string(),
            },
            _ => TargetError::Io { what: format!("gdbstub at {address}"), source },
        })?;
        let mut client = GdbClient::from_stream(stream, timeout)?;
        client.stop_reason()?;
        Ok(client)
    }

    fn from_stream(stream: TcpStream, timeout: Duration) -> Result<GdbClient, TargetError> {
        let peer = stream.peer_addr().map_err(|source| TargetError::Io { what: "gdbstub".to_string(), source })?;
        stream.set_nodelay(true).map_err(|source| TargetError::Io { what: format!("gdbstub at {peer}"), source })?;
        Ok(GdbClient {
            stream,
            peer,
            rx: Vec::new(),
            early: VecDeque::new(),
            timeout,
            running: false,
            non_stop: false,
            unsolicited_stops: 0,
        })
    }

    /// Turns non-stop mode on where the server offers it (`QNonStop+` in
    /// its `qSupported` answer, as OpenOCD's or J-Link's may); true when it
    /// is on. The target must be halted. Asynchronous stop notifications
    /// (`%Stop`) are not read: the harness halts only on purpose.
    pub fn enter_non_stop(&mut self) -> Result<bool, TargetError> {
        let features = self.request(b"qSupported:swbreak+;hwbreak+")?;
        if !features.split(|&byte| byte == b';').any(|feature| feature == b"QNonStop+") {
            return Ok(false);
        }
        if self.request(b"QNonStop:1")? != b"OK" {
            return Ok(false);
        }
        self.non_stop = true;
        Ok(true)
    }

    /// Whether memory is accessed without halting the target.
    pub fn is_non_stop(&self) -> bool {
        self.non_stop
    }

    /// The deadline for every single exchange from now on.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// Whether the target runs, as far as this client knows (it learns of a
    /// stop it did not cause at its next exchange).
    pub fn is_running(&self) -> bool {
        self.running
    }

    /// Stop replies that arrived unasked since connecting.
    pub fn unsolicited_stops(&self) -> u64 {
        self.unsolicited_stops
    }

    /// Shuts the connection down (both directions); later calls fail with
    /// `Disconnected`.
    pub fn close(&mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }

    fn what(&self) -> String {
        format!("gdbstub at {}", self.peer)
    }

    fn timeout_error(&self, context: &str) -> TargetError {
        TargetError::Timeout { what: format!("{} ({context})", self.what()), timeout: self.timeout }
    }

    fn protocol(&self, detail: String) -> TargetError {
        TargetError::Protocol { what: self.what(), detail }
    }

    fn io_error(&self, source: std::io::Error, context: &str) -> TargetError {
        TargetError::from_connection_io(source, self.what(), context, self.timeout)
    }

    fn send_raw(&mut self, bytes: &[u8], context: &str) -> Result<(), TargetError> {
        // Writes are small and the kernel buffers them: a write timeout only
        // guards against a peer that stopped reading altogether.
        self.stream.set_write_timeout(Some(self.timeout)).map_err(|error| self.io_error(error, context))?;
        self.stream.write_all(bytes).map_err(|error| self.io_error(error, context))
    }

    /// Reads what the socket has, waiting until `deadline` at most.
    fn fill(&mut self, deadline: Instant, context: &str) -> Result<(), TargetError> {
        let mut chunk = [0u8; 4096];
        loop {
            // The kernel may end a socket timeout a little before the
            // deadline, so the deadline, not the socket, decides.
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(self.timeout_error(context));
            }
            self.stream.set_read_timeout(Some(remaining)).map_err(|error| self.io_error(error, context))?;
            match self.stream.read(&mut chunk) {
                Ok(0) => {
                    return Err(TargetError::Disconnected {
                        what: self.what(),
                        detail: format!("the stub closed the connection ({context})"),
                    })
                }
                Ok(count) => {
                    self.rx.extend_from_slice(chunk.get(..count).unwrap_or_default());
                    return Ok(());
                }
                Err(error) if error.kind() == ErrorKind::Interrupted => continue,
                Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => continue,
                Err(error) => return Err(self.io_error(error, context)),
            }
        }
    }

    /// Takes whatever has already arrived, without waiting.
    fn fill_nonblocking(&mut self) -> Result<(), TargetError> {
        const CONTEXT: &str = "draining pending input";
        self.stream.set_nonblocking(true).map_err(|error| self.io_error(error, CONTEXT))?;
        let mut chunk = [0u8; 4096];
        let result = loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => {
                    break Err(TargetError::Disconnected {
                        what: self.what(),
                        detail: "the stub closed the connection".to_string(),
                    })
                }
                Ok(count) => self.rx.extend_from_slice(chunk.get(..count).unwrap_or_default()),
                Err(error) if error.kind() == ErrorKind::WouldBlock => break Ok(()),
                Err(error) if error.kind() == ErrorKind::Interrupted => continue,
                Err(error) => break Err(self.io_error(error, CONTEXT)),
            }
        };
        let restored = self.stream.set_nonblocking(false).map_err(|error| self.io_error(error, CONTEXT));
        result.and(restored)
    }

    /// Parses one ack, nack or packet from `rx`, if a whole one is there.
    /// Garbage between packets is skipped; a packet with a bad checksum is
    /// answered with `-` (the stub sends it again) and reported as `Err`.
    fn parse_one(&mut self) -> Result<Option<Incoming>, TargetError> {
        loop {
            let Some(&first) = self.rx.first() else { return Ok(None) };
            match first {
                b'+' => {
                    self.rx.remove(0);
                    return Ok(Some(Incoming::Ack));
                }
                b'-' => {
                    self.rx.remove(0);
                    return Ok(Some(Incoming::Nack));
                }
                b'$' => {}
                _ => {
                    // Not the start of anything: skip to the next marker.
                    let skip = self.rx.iter().position(|b| matches!(b, b'+' | b'-' | b'$')).unwrap_or(self.rx.len());
                    self.rx.drain(..skip);
                    continue;
                }
            }
            // A packet: `$` ... `#` h h. A `$` before the `#` means the
            // previous packet was cut off: start again from there.
            let body = self.rx.get(1..).unwrap_or_default();
            if let Some(restart) = body.iter().position(|&b| b == b'$') {
                let hash = body.iter().position(|&b| b == b'#');
                if hash.is_none_or(|hash| restart < hash) {
                    self.rx.drain(..restart.saturating_add(1));
                    continue;
                }
            }
            let Some(hash) = body.iter().position(|&b| b == b'#') else {
                if self.rx.len() > PACKET_MAX {
                    let detail = format!("a packet longer than {PACKET_MAX} bytes");
                    self.rx.clear();
                    return Err(self.protocol(detail));
                }
                return Ok(None);
            };
            let end = hash.saturating_add(4); // `$`, the body, `#`, two digits
            if self.rx.len() < end {
                return Ok(None);
            }
            let packet: Vec<u8> = self.rx.drain(..end).collect();
            let raw = packet.get(1..hash.saturating_add(1)).unwrap_or_default();
            let digits = packet.get(hash.saturating_add(2)..end).unwrap_or_default();
            let given = std::str::from_utf8(digits).ok().and_then(|text| u8::from_str_radix(text, 16).ok());
            if given != Some(checksum(raw)) {
                self.send_raw(b"-", "asking for a packet again")?;
                let shown = String::from_utf8_lossy(raw.get(..raw.len().min(40)).unwrap_or_default()).into_owned();
                return Err(self.protocol(format!(
                    "packet {shown:?} has checksum {:?}, its bytes sum to {:02x}",
                    String::from_utf8_lossy(digits),
                    checksum(raw)
                )));
            }
            self.send_raw(b"+", "acknowledging a packet")?;
            let payload = unescape(raw).map_err(|detail| self.protocol(detail))?;
            return Ok(Some(Incoming::Packet(payload)));
        }
    }

    /// The next ack, nack or packet, waiting until `deadline`. Bad packets
    /// were nacked; after several in a row this gives up.
    fn next_incoming(&mut self, deadline: Instant, context: &str) -> Result<Incoming, TargetError> {
        let mut bad = 0u32;
        loop {
            match self.parse_one() {
                Ok(Some(incoming)) => return Ok(incoming),
                Ok(None) => self.fill(deadline, context)?,
                Err(TargetError::Protocol { what, detail }) => {
                    bad = bad.saturating_add(1);
                    if bad >= BAD_CHECKSUMS_MAX {
                        return Err(TargetError::Protocol {
                            what,
                            detail: format!("{detail} ({bad} bad packets in a row, {context})"),
                        });
                    }
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Sends one packet and waits for its `+` (sending it again on `-`).
    pub fn send_packet(&mut self, payload: &[u8]) -> Result<(), TargetError> {
        let context = format!("ack of `{}`", shorten(payload));
        let packet = frame(payload);
        let deadline = Instant::now() + self.timeout;
        let mut retransmits = 0u32;
        self.send_raw(&packet, &context)?;
        loop {
            match self.next_incoming(deadline, &context)? {
                Incoming::Ack => return Ok(()),
                Incoming::Nack => {
                    retransmits = retransmits.saturating_add(1);
                    if retransmits > RETRANSMITS_MAX {
                        return Err(self.protocol(format!(
                            "the stub refused `{}` {retransmits} times (bad checksum on the line?)",
                            shorten(payload)
                        )));
                    }
                    self.send_raw(&packet, &context)?;
                }
                Incoming::Packet(early) => self.early.push_back(early),
            }
        }
    }

    /// The next packet from the stub, waiting until `deadline`.
    fn receive_packet(&mut self, deadline: Instant, context: &str) -> Result<Vec<u8>, TargetError> {
        if let Some(packet) = self.early.pop_front() {
            return Ok(packet);
        }
        loop {
            if let Incoming::Packet(packet) = self.next_incoming(deadline, context)? {
                return Ok(packet);
            }
            // A stray ack: nothing was awaiting it.
        }
    }

    /// Sends a request and returns its reply. Stop replies that arrive in
    /// between (unasked) are noted and skipped. The target must be halted:
    /// QEMU would take the first byte as an interrupt.
    pub fn request(&mut self, payload: &[u8]) -> Result<Vec<u8>, TargetError> {
        if self.running && !self.non_stop {
            return Err(self.protocol(format!(
                "`{}` sent while the target runs: halt it first (any byte halts QEMU and is lost)",
                shorten(payload)
            )));
        }
        self.send_packet(payload)?;
        let context = format!("reply to `{}`", shorten(payload));
        let deadline = Instant::now() + self.timeout;
        loop {
            let reply = self.receive_packet(deadline, &context)?;
            if let Some(stop) = StopReply::parse(&reply) {
                if stop.exited() {
                    return Err(self.exited(&stop));
                }
                self.unsolicited_stops = self.unsolicited_stops.saturating_add(1);
                continue;
            }
            return Ok(reply);
        }
    }

    fn exited(&self, stop: &StopReply) -> TargetError {
        TargetError::Disconnected { what: self.what(), detail: format!("the target exited (stop reply {})", stop.raw) }
    }

    /// Asks why the target stopped (`?`) and waits for the stop reply;
    /// consumes the unsolicited one QEMU may have sent before it.
    pub fn stop_reason(&mut self) -> Result<StopReply, TargetError> {
        if self.running {
            return self.interrupt();
        }
        self.send_packet(b"?")?;
        let deadline = Instant::now() + self.timeout;
        let reply = self.receive_packet(deadline, "reply to `?`")?;
        let stop = StopReply::parse(&reply)
            .ok_or_else(|| self.protocol(format!("`?` answered {:?}, not a stop reply", shorten(&reply))))?;
        if stop.exited() {
            return Err(self.exited(&stop));
        }
        // QEMU's unsolicited reply on connect comes before the answer to
        // `?`; if both are here already, keep the state clean.
        self.drain_stops()?;
        Ok(stop)
    }

    /// Consumes stop replies that already arrived (without waiting); true
    /// if there was one, i.e. the target halted without being asked.
    fn drain_stops(&mut self) -> Result<bool, TargetError> {
        self.fill_nonblocking()?;
        let mut stopped = false;
        let mut kept = VecDeque::new();
        loop {
            let packet = match self.early.pop_front() {
                Some(packet) => packet,
                None => match self.parse_one() {
                    Ok(Some(Incoming::Packet(packet))) => packet,
                    Ok(Some(_)) => continue,
                    Ok(None) => break,
                    // A garbled packet was nacked; the stub sends it again.
                    Err(TargetError::Protocol { .. }) => continue,
                    Err(error) => return Err(error),
                },
            };
            match StopReply::parse(&packet) {
                Some(stop) if stop.exited() => return Err(self.exited(&stop)),
                Some(_) => {
                    stopped = true;
                    self.unsolicited_stops = self.unsolicited_stops.saturating_add(1);
                }
                None => kept.push_back(packet),
            }
        }
        self.early = kept;
        Ok(stopped)
    }

    /// Halts a running target: sends `0x03` and waits for the stop reply.
    /// A target that is halted already (as far as the client knows, or
    /// because a stop reply is waiting) is left as it is.
    pub fn interrupt(&mut self) -> Result<StopReply, TargetError> {
        if !self.running {
            return Ok(StopReply { kind: b'T', signal: 0, raw: "already halted".to_string() });
        }
        if self.non_stop {
            // Its `%Stop` notification is not waited for: `OK` says the
            // server stops the thread.
            self.expect_ok(b"vCont;t")?;
            self.running = false;
            return Ok(StopReply { kind: b'T', signal: 0, raw: "stopped (vCont;t)".to_string() });
        }
        if self.drain_stops()? {
            self.running = false;
            return Ok(StopReply { kind: b'T', signal: 0, raw: "halted before the interrupt".to_string() });
        }
        self.send_raw(&[INTERRUPT], "interrupt")?;
        match self.wait_stop("stop reply to the interrupt") {
            Ok(stop) => Ok(stop),
            Err(TargetError::Timeout { .. }) => {
                // The target may have halted unseen (a `0x03` sent to a
                // halted QEMU is ignored). `?` is answered when halted, and
                // halts it (its `$` swallowed) when it runs: either way a
                // stop reply comes.
                self.send_raw(&frame(b"?"), "`?` after an unanswered interrupt")?;
                self.wait_stop("stop reply to `?` after an unanswered interrupt")
            }
            Err(error) => Err(error),
        }
    }

    fn wait_stop(&mut self, context: &str) -> Result<StopReply, TargetError> {
        let deadline = Instant::now() + self.timeout;
        loop {
            let packet = self.receive_packet(deadline, context)?;
            if let Some(stop) = StopReply::parse(&packet) {
                if stop.exited() {
                    return Err(self.exited(&stop));
                }
                self.running = false;
                return Ok(stop);
            }
            // `O` console output or another stray packet: not ours.
        }
    }

    /// Lets a halted target run (`c`); returns once the stub acknowledged
    /// it. A running target is left as it is.
    pub fn resume(&mut self) -> Result<(), TargetError> {
        if self.running {
            return Ok(());
        }
        // A stale stop reply must not be taken for the answer to the next
        // interrupt.
        self.drain_stops()?;
        if self.non_stop {
            self.expect_ok(b"vCont;c")?;
        } else {
            self.send_packet(b"c")?;
        }
        self.running = true;
        Ok(())
    }

    /// Inserts (`on`) or removes a software breakpoint on the 2-byte Thumb
    /// instruction at `address` (`Z0`/`z0`). QEMU flushes its translated
    /// code on each change: insert once, not per stop.
    pub fn set_breakpoint(&mut self, address: u32, on: bool) -> Result<(), TargetError> {
        self.expect_ok(format!("{}0,{address:x},2", if on { 'Z' } else { 'z' }).as_bytes())
    }

    /// Inserts (`on`) or removes a write watchpoint on `len` bytes at
    /// `address` (`Z2`/`z2`). QEMU stops after the write, so continuing
    /// does not stop on it again.
    pub fn set_write_watchpoint(&mut self, address: u32, len: u32, on: bool) -> Result<(), TargetError> {
        self.expect_ok(format!("{}2,{address:x},{len:x}", if on { 'Z' } else { 'z' }).as_bytes())
    }

    fn expect_ok(&mut self, payload: &[u8]) -> Result<(), TargetError> {
        let reply = self.request(payload)?;
        if reply != b"OK" {
            return Err(self.protocol(format!("`{}` answered {:?}", shorten(payload), shorten(&reply))));
        }
        Ok(())
    }

    /// Executes one instruction of a halted target (`s`) and waits for its
    /// stop. QEMU steps with interrupts and timers masked, so a step from a
    /// breakpoint moves past it without letting guest time run.
    pub fn step(&mut self) -> Result<StopReply, TargetError> {
        if self.running {
            return Err(self.protocol("`s` sent while the target runs".to_string()));
        }
        self.drain_stops()?;
        self.send_packet(b"s")?;
        self.running = true;
        self.wait_stop("stop reply to a single step")
    }

    /// Reads the registers of a halted target (`g`), as the stub sends them.
    pub fn read_registers(&mut self) -> Result<Vec<u8>, TargetError> {
        let reply = self.request(b"g")?;
        from_hex(&reply).ok_or_else(|| self.protocol(format!("`g` answered {:?}, not hex", shorten(&reply))))
    }

    /// Sets QEMU's single-step flags (`Qqemu.sstep`): bit 0 steps, bit 1
    /// masks interrupts during a step, bit 2 masks timers (QEMU's default
    /// is all three).
    pub fn set_step_flags(&mut self, flags: u32) -> Result<(), TargetError> {
        self.expect_ok(format!("Qqemu.sstep={flags:#x}").as_bytes())
    }

    /// Waits up to `timeout` for a running target to stop by itself (a
    /// breakpoint or watchpoint); `None` when it still runs.
    pub fn wait_for_stop(&mut self, timeout: Duration) -> Result<Option<StopReply>, TargetError> {
        if !self.running {
            return Err(self.protocol("waiting for a stop of a halted target".to_string()));
        }
        let deadline = Instant::now() + timeout;
        loop {
            match self.receive_packet(deadline, "a stop reply") {
                Ok(packet) => {
                    if let Some(stop) = StopReply::parse(&packet) {
                        if stop.exited() {
                            return Err(self.exited(&stop));
                        }
                        self.running = false;
                        return Ok(Some(stop));
                    }
                }
                Err(TargetError::Timeout { .. }) => return Ok(None),
                Err(error) => return Err(error),
            }
        }
    }

    /// Runs `access` with the target halted, then restores its run state;
    /// in non-stop mode, runs it as the target is.
    pub fn halted<T>(
        &mut self,
        access: impl FnOnce(&mut GdbClient) -> Result<T, TargetError>,
    ) -> Result<T, TargetError> {
        let was_running = self.running && !self.non_stop;
        if was_running {
            self.interrupt()?;
        }
        let result = access(self);
        if was_running {
            match (&result, self.resume()) {
                (Ok(_), Err(error)) => return Err(error),
                (Err(TargetError::Protocol { .. }), Err(resume_error)) => return Err(resume_error),
                _ => {}
            }
        }
        result
    }

    /// Reads `buffer.len()` bytes at `address` (halting a running target
    /// for the read and continuing it afterwards).
    pub fn read_memory(&mut self, address: u32, buffer: &mut [u8]) -> Result<(), TargetError> {
        self.halted(|client| {
            let mut at = u64::from(address);
            for chunk in buffer.chunks_mut(READ_CHUNK_MAX) {
                let len = chunk.len();
                check_range(at, len).map_err(|detail| client.protocol(detail))?;
                let reply = client.request(format!("m{at:x},{len:x}").as_bytes())?;
                if reply.first() == Some(&b'E') || reply.is_empty() {
                    return Err(client.protocol(format!(
                        "reading {len} bytes at {at:#010x}: the stub answered {:?} (no memory there?)",
                        shorten(&reply)
                    )));
                }
                let bytes = from_hex(&reply).filter(|bytes| bytes.len() == len).ok_or_else(|| {
                    client.protocol(format!(
                        "reading {len} bytes at {at:#010x}: the reply is not {len} bytes of hex: {:?}",
                        shorten(&reply)
                    ))
                })?;
                chunk.copy_from_slice(&bytes);
                at = at.saturating_add(len as u64);
            }
            Ok(())
        })
    }

    /// Writes `data` at `address` (halting a running target for the write
    /// and continuing it afterwards).
    pub fn write_memory(&mut self, address: u32, data: &[u8]) -> Result<(), TargetError> {
        self.halted(|client| {
            let mut at = u64::from(address);
            for chunk in data.chunks(WRITE_CHUNK_MAX) {
                let len = chunk.len();
                check_range(at, len).map_err(|detail| client.protocol(detail))?;
                let reply = client.request(format!("M{at:x},{len:x}:{}", to_hex(chunk)).as_bytes())?;
                if reply != b"OK" {
                    return Err(client.protocol(format!(
                        "writing {len} bytes at {at:#010x}: the stub answered {:?}",
                        shorten(&reply)
                    )));
                }
                at = at.saturating_add(len as u64);
            }
            Ok(())
        })
    }
}

/// Whether `len` bytes at `at` stay inside the 32-bit address space.
fn check_range(at: u64, len: usize) -> Result<(), String> {
    let end = at.saturating_add(len as u64);
    if end > 1u64 << 32 {
        return Err(format!("{len} bytes at {at:#010x} run past the end of the 32-bit address space"));
    }
    Ok(())
}

/// The start of a payload, printable, for messages.
fn shorten(payload: &[u8]) -> String {
    let text = String::from_utf8_lossy(payload.get(..payload.len().min(48)).unwrap_or_default()).into_owned();
    if payload.len() > 48 {
        format!("{text}…")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::gdb_server::Connection as Server;
    use std::net::TcpListener;
    use std::thread;

    const TEST_TIMEOUT: Duration = Duration::from_millis(500);

    /// A client connected to a server thread running `script`.
    fn with_server(script: impl FnOnce(Server) + Send + 'static) -> (GdbClient, thread::JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let handle = thread::spawn(move || script(Server::accept(&listener)));
        let stream = TcpStream::connect(address).unwrap();
        let client = GdbClient::from_stream(stream, TEST_TIMEOUT).unwrap();
        (client, handle)
    }

    /// Memory the fake stub serves: 0x100 bytes at 0x2000_0000.
    fn memory_byte(address: u64) -> u8 {
        (address & 0xFF) as u8 ^ 0x5A
    }

    /// Answers `m` and `M` requests like a stub until the client leaves.
    fn serve_memory(mut server: Server, written: std::sync::mpsc::Sender<(u64, Vec<u8>)>) {
        while let Some(packet) = server.packet() {
            if let Some(args) = packet.strip_prefix('m') {
                let (address, len) = args.split_once(',').unwrap();
                let address = u64::from_str_radix(address, 16).unwrap();
                let len = u64::from_str_radix(len, 16).unwrap();
                let bytes: Vec<u8> = (address..address + len).map(memory_byte).collect();
                server.reply(&to_hex(&bytes));
            } else if let Some(args) = packet.strip_prefix('M') {
                let (head, data) = args.split_once(':').unwrap();
                let (address, _) = head.split_once(',').unwrap();
                written.send((u64::from_str_radix(address, 16).unwrap(), from_hex(data.as_bytes()).unwrap())).unwrap();
                server.reply("OK");
            } else if packet == "?" || packet == "\u{3}" {
                server.reply("T02thread:01;");
            } else if packet == "c" {
                // Acknowledged by `packet()`; no reply until a stop.
            } else {
                server.reply("");
            }
        }
    }

    #[test]
    fn framing_computes_the_checksum_and_escapes() {
        assert_eq!(checksum(b"m0,4"), (b'm' as u32 + b'0' as u32 + b',' as u32 + b'4' as u32) as u8);
        assert_eq!(frame(b"?"), b"$?#3f".to_vec());
        assert_eq!(frame(b"OK"), b"$OK#9a".to_vec());
        assert_eq!(frame(b"T02thread:01;"), b"$T02thread:01;#04".to_vec()); // QEMU's own, seen on the wire
        let escaped = frame(b"a#b}c");
        assert_eq!(&escaped[..8], b"$a}\x03b}]c");
        assert_eq!(unescape(&escaped[1..escaped.len() - 3]).unwrap(), b"a#b}c".to_vec());
        assert_eq!(unescape(b"0* ").unwrap(), b"0000".to_vec()); // ' ' is 32: three more
        assert!(unescape(b"*!").is_err());
        assert!(unescape(b"ab}").is_err());
        assert_eq!(from_hex(b"00ff10"), Some(vec![0, 255, 16]));
        assert_eq!(from_hex(b"0"), None);
        assert_eq!(from_hex(b"zz"), None);
        assert_eq!(to_hex(&[0xde, 0xad]), "dead");
    }

    #[test]
    fn stop_replies_parse() {
        let stop = StopReply::parse(b"T02thread:01;").unwrap();
        assert_eq!((stop.kind, stop.signal, stop.exited()), (b'T', 2, false));
        assert!(StopReply::parse(b"W00").unwrap().exited());
        assert_eq!(StopReply::parse(b"OK"), None);
        assert_eq!(StopReply::parse(b"0011"), None);
    }

    #[test]
    fn connect_consumes_the_unsolicited_stop_reply_and_reads_memory() {
        let (sender, _receiver) = std::sync::mpsc::channel();
        let (mut client, handle) = with_server(move |mut server| {
            // QEMU sends this unasked when a client connects to a running VM.
            // Its ack may come after the client's first request: the
            // server's packet reader skips it.
            server.send(&frame(b"T02thread:01;"));
            serve_memory(server, sender);
        });
        client.stop_reason().unwrap();
        assert!(!client.is_running());
        let mut buffer = vec![0u8; 3000]; // three `m` requests
        client.read_memory(0x2000_0010, &mut buffer).unwrap();
        for (offset, byte) in buffer.iter().enumerate() {
            assert_eq!(*byte, memory_byte(0x2000_0010 + offset as u64), "byte {offset}");
        }
        drop(client);
        handle.join().unwrap();
    }

    #[test]
    fn writes_are_chunked_and_acknowledged() {
        let (sender, receiver) = std::sync::mpsc::channel();
        let (mut client, handle) = with_server(move |server| serve_memory(server, sender));
        let data: Vec<u8> = (0..1200u32).map(|i| i as u8).collect();
        client.write_memory(0x2000_0000, &data).unwrap();
        drop(client);
        handle.join().unwrap();
        let writes: Vec<(u64, Vec<u8>)> = receiver.iter().collect();
        assert_eq!(
            writes.iter().map(|(address, bytes)| (*address, bytes.len())).collect::<Vec<_>>(),
            [(0x2000_0000, 512), (0x2000_0200, 512), (0x2000_0400, 176)]
        );
        assert_eq!(writes.into_iter().flat_map(|(_, bytes)| bytes).collect::<Vec<_>>(), data);
    }

    #[test]
    fn a_reply_split_across_many_writes_is_reassembled() {
        let (mut client, handle) = with_server(|mut server| {
            assert_eq!(server.packet().unwrap(), "m20000000,4");
            let packet = frame(b"01020304");
            for byte in packet {
                server.send(&[byte]);
                thread::sleep(Duration::from_millis(2));
            }
            assert_eq!(server.expect_ack(), b'+');
        });
        let mut buffer = [0u8; 4];
        client.read_memory(0x2000_0000, &mut buffer).unwrap();
        assert_eq!(buffer, [1, 2, 3, 4]);
        handle.join().unwrap();
    }

    #[test]
    fn a_bad_checksum_is_nacked_and_the_resent_packet_taken() {
        let (mut client, handle) = with_server(|mut server| {
            assert_eq!(server.packet().unwrap(), "m20000000,2");
            server.send(b"$beef#00"); // wrong checksum
            assert_eq!(server.expect_ack(), b'-');
            server.reply("beef");
        });
        let mut buffer = [0u8; 2];
        client.read_memory(0x2000_0000, &mut buffer).unwrap();
        assert_eq!(buffer, [0xbe, 0xef]);
        handle.join().unwrap();
    }

    #[test]
    fn a_nacked_request_is_sent_again() {
        let (mut client, handle) = with_server(|mut server| {
            // Read the first copy by hand and refuse it.
            while server.byte().unwrap() != b'#' {}
            server.byte().unwrap();
            server.byte().unwrap();
            server.send(b"-");
            assert_eq!(server.packet().unwrap(), "m20000000,1");
            server.reply("7f");
        });
        let mut buffer = [0u8; 1];
        client.read_memory(0x2000_0000, &mut buffer).unwrap();
        assert_eq!(buffer, [0x7f]);
        handle.join().unwrap();
    }

    #[test]
    fn endless_bad_checksums_are_a_protocol_error_not_a_loop() {
        let (mut client, handle) = with_server(|mut server| {
            assert_eq!(server.packet().unwrap(), "m20000000,2");
            for _ in 0..BAD_CHECKSUMS_MAX {
                server.send(b"$beef#00");
                if server.expect_ack() != b'-' {
                    break;
                }
            }
        });
        let mut buffer = [0u8; 2];
        let error = client.read_memory(0x2000_0000, &mut buffer).unwrap_err();
        assert!(matches!(error, TargetError::Protocol { .. }), "{error}");
        assert!(error.to_string().contains("checksum"), "{error}");
        handle.join().unwrap();
    }

    #[test]
    fn an_error_reply_is_a_protocol_error_with_the_address() {
        let (mut client, handle) = with_server(|mut server| {
            server.packet().unwrap();
            server.reply("E14");
        });
        let mut buffer = [0u8; 4];
        let error = client.read_memory(0x1000_0000, &mut buffer).unwrap_err();
        assert!(matches!(error, TargetError::Protocol { .. }), "{error}");
        assert!(error.to_string().contains("0x10000000") && error.to_string().contains("E14"), "{error}");
        handle.join().unwrap();
    }

    #[test]
    fn a_short_reply_is_a_protocol_error() {
        let (mut client, handle) = with_server(|mut server| {
            server.packet().unwrap();
            server.reply("0102");
        });
        let mut buffer = [0u8; 4];
        let error = client.read_memory(0x2000_0000, &mut buffer).unwrap_err();
        assert!(error.to_string().contains("not 4 bytes"), "{error}");
        handle.join().unwrap();
    }

    #[test]
    fn a_closed_socket_is_disconnected() {
        let (mut client, handle) = with_server(drop);
        handle.join().unwrap();
        let mut buffer = [0u8; 4];
        let started = Instant::now();
        let error = client.read_memory(0x2000_0000, &mut buffer).unwrap_err();
        assert!(matches!(error, TargetError::Disconnected { .. }), "{error}");
        // Noticed, not waited out: a loaded host only bounds it loosely.
        assert!(started.elapsed() < Duration::from_secs(60), "noticed only after {:?}", started.elapsed());
    }

    #[test]
    fn a_socket_closed_in_the_middle_of_a_reply_is_disconnected() {
        let (mut client, handle) = with_server(|mut server| {
            server.packet().unwrap();
            server.send(b"$0102");
        });
        let mut buffer = [0u8; 4];
        let error = client.read_memory(0x2000_0000, &mut buffer).unwrap_err();
        assert!(matches!(error, TargetError::Disconnected { .. }), "{error}");
        handle.join().unwrap();
    }

    #[test]
    fn a_silent_stub_times_out_instead_of_hanging() {
        let (done_sender, done_receiver) = std::sync::mpsc::channel::<()>();
        let (mut client, handle) = with_server(move |mut server| {
            server.packet().unwrap(); // acknowledged, never answered
            let _ = done_receiver.recv();
        });
        let mut buffer = [0u8; 4];
        let started = Instant::now();
        let error = client.read_memory(0x2000_0000, &mut buffer).unwrap_err();
        let waited = started.elapsed();
        assert!(matches!(error, TargetError::Timeout { .. }), "{error}");
        // Never early; how late depends on the host's load, so that bound is loose.
        assert!(waited >= TEST_TIMEOUT && waited < Duration::from_secs(60), "waited {waited:?}");
        done_sender.send(()).unwrap();
        handle.join().unwrap();
    }

    #[test]
    fn a_stub_that_never_acknowledges_times_out() {
        let (done_sender, done_receiver) = std::sync::mpsc::channel::<()>();
        let (mut client, handle) = with_server(move |_server| {
            let _ = done_receiver.recv();
        });
        let error = client.send_packet(b"?").unwrap_err();
        assert!(matches!(error, TargetError::Timeout { .. }), "{error}");
        done_sender.send(()).unwrap();
        handle.join().unwrap();
    }

    #[test]
    fn reading_a_running_target_halts_reads_and_continues() {
        let (mut client, handle) = with_server(|mut server| {
            assert_eq!(server.packet().unwrap(), "c");
            assert_eq!(server.packet().unwrap(), "\u{3}");
            server.reply("T02thread:01;");
            assert_eq!(server.packet().unwrap(), "m20000000,1");
            server.reply("2a");
            assert_eq!(server.packet().unwrap(), "c");
            assert_eq!(server.packet().unwrap(), "\u{3}");
            server.reply("T02thread:01;");
        });
        client.resume().unwrap();
        assert!(client.is_running());
        let mut buffer = [0u8; 1];
        client.read_memory(0x2000_0000, &mut buffer).unwrap();
        assert_eq!(buffer, [0x2a]);
        assert!(client.is_running(), "the read must leave the target running");
        let stop = client.interrupt().unwrap();
        assert_eq!(stop.signal, 2);
        assert!(!client.is_running());
        handle.join().unwrap();
    }

    #[test]
    fn a_stop_reply_already_waiting_counts_as_the_halt() {
        let (mut client, handle) = with_server(|mut server| {
            assert_eq!(server.packet().unwrap(), "c");
            // The VM stopped on its own (QMP `stop`): QEMU tells gdb unasked.
            server.reply("T02thread:01;");
            // No interrupt byte must follow: QEMU would ignore it.
            assert_eq!(server.packet().unwrap(), "m20000000,1");
            server.reply("11");
        });
        client.resume().unwrap();
        thread::sleep(Duration::from_millis(50));
        client.interrupt().unwrap();
        assert!(!client.is_running());
        let mut buffer = [0u8; 1];
        client.read_memory(0x2000_0000, &mut buffer).unwrap();
        assert_eq!(buffer, [0x11]);
        handle.join().unwrap();
    }

    #[test]
    fn an_ignored_interrupt_falls_back_to_a_stop_query() {
        let (mut client, handle) = with_server(|mut server| {
            assert_eq!(server.packet().unwrap(), "c");
            assert_eq!(server.packet().unwrap(), "\u{3}"); // ignored, as QEMU does when halted
            assert_eq!(server.packet().unwrap(), "?");
            server.reply("T02thread:01;");
        });
        client.resume().unwrap();
        let started = Instant::now();
        client.interrupt().unwrap();
        assert!(!client.is_running());
        // It gives up on the interrupt and asks instead, rather than waiting
        // for ever; how soon depends on the host's load, so the bound is loose.
        assert!(started.elapsed() < Duration::from_secs(60));
        handle.join().unwrap();
    }

    #[test]
    fn requests_while_running_are_refused_locally() {
        let (mut client, handle) = with_server(|mut server| {
            assert_eq!(server.packet().unwrap(), "c");
        });
        client.resume().unwrap();
        let error = client.request(b"g").unwrap_err();
        assert!(error.to_string().contains("halt it first"), "{error}");
        handle.join().unwrap();
    }

    #[test]
    fn an_exit_reply_is_disconnected() {
        let (mut client, handle) = with_server(|mut server| {
            server.packet().unwrap();
            server.reply("W00");
        });
        let mut buffer = [0u8; 1];
        let error = client.read_memory(0x2000_0000, &mut buffer).unwrap_err();
        assert!(matches!(error, TargetError::Disconnected { .. }), "{error}");
        handle.join().unwrap();
    }

    #[test]
    fn reads_past_the_address_space_are_refused() {
        let (mut client, handle) = with_server(|_server| {});
        let mut buffer = [0u8; 8];
        let error = client.read_memory(0xFFFF_FFFC, &mut buffer).unwrap_err();
        assert!(error.to_string().contains("32-bit address space"), "{error}");
        handle.join().unwrap();
    }

    #[test]
    fn connect_to_a_closed_port_is_disconnected() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        let error = GdbClient::connect(address, TEST_TIMEOUT).unwrap_err();
        assert!(matches!(error, TargetError::Disconnected { .. }), "{error}");
    }
}
