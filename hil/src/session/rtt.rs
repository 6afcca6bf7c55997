//! The one RTT reader every backend uses: the bench channels over plain
//! memory reads and writes of a [`Target`] (QEMU's gdbstub, a probe, the
//! in-memory fake).
//!
//! - **Finding the control block**: at the ELF symbol `_SEGGER_RTT`
//!   ([`ControlBlockLocation::from_elf`]), or by scanning RAM for the
//!   16-byte id at 4-byte-aligned addresses, accepting a hit only if
//!   max_up/max_down are 1–16 and every named descriptor is consistent
//!   (`hil/CONTRACT.md` §2). The channels are found **by name**: up `bench`,
//!   down `bench-ctl`, at any index.
//! - **Reading** ([`RttReader::poll`]): the up ring's write and read
//!   offsets, then the bytes between them (in two pieces when they wrap past
//!   the end of the buffer), then the new read offset is stored. Only whole
//!   48-byte records are taken; a partial one stays in the ring. Records are
//!   decoded with [`Record::decode`] and queued in an inbox the caller
//!   drains ([`RttReader::take_records`]).
//! - **Stream health** ([`StreamStats`]): sequence gaps, the firmware's
//!   drop counters (header `dropped`, TimeBase `dropped_total`), records that
//!   do not decode, firmware restarts (a Hello with seq 0).
//! - **Commands** ([`RttReader::command`]): the line goes into the down ring
//!   whole or not at all (never half a line), then the reader waits for the
//!   Ack that answers it, matched by the firmware's line count
//!   (`Ack::commands`).
//!
//! The reader never halts the target itself: RTT is lock-free (one writer,
//! one reader per ring), so reads while the core runs are consistent. A
//! backend whose memory access halts the core (QEMU) does so per access.

use std::collections::VecDeque;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use bench_contract::rtt::{self as layout, Descriptor};
use bench_contract::{
    Ack, AckStatus, Body, Command, CommandCode, DecodeError, Record, COMMAND_LINE_MAX, DOWN_BUFFER_MIN, DOWN_CHANNEL,
    RECORD_SIZE, UP_BUFFER_MIN, UP_CHANNEL,
};

use crate::target::{StepPlan, Stop, Target, TargetError};

/// Pause between two polls that found nothing, while waiting.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(2);
/// Longest channel name read.
const NAME_MAX: usize = 32;
/// Bytes per read while scanning RAM for the control block.
const SCAN_CHUNK: u32 = 1024;
/// Undecodable records kept for reports (all are counted).
const UNDECODABLE_KEPT_MAX: usize = 64;
/// Acks kept for matching with commands.
const ACKS_KEPT_MAX: usize = 256;
/// Record size as the ring offsets count it.
const RECORD_BYTES: u32 = RECORD_SIZE as u32;

/// Why the RTT channels could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RttError {
    /// The target itself failed (disconnected, timed out, …).
    #[error(transparent)]
    Target(#[from] TargetError),
    /// No control block where it was looked for.
    #[error("no RTT control block {location}: {detail}")]
    NoControlBlock { location: String, detail: String },
    /// The control block has no channel of that name.
    #[error("the RTT control block at {address:#010x} has no {direction}-channel named `{name}` (it has: {found})")]
    NoChannel { address: u32, direction: &'static str, name: &'static str, found: String },
    /// The channel breaks the contract or its descriptor is corrupt.
    #[error("RTT {direction}-channel `{name}`: {detail}")]
    BadChannel { direction: &'static str, name: &'static str, detail: String },
    /// The firmware did not make room in the down ring in time.
    #[error(
        "down-channel `{DOWN_CHANNEL}` has {free} bytes free, the line needs {needed}: the firmware did not read it within {timeout:?} (is it running?)"
    )]
    DownChannelFull { free: u32, needed: u32, timeout: Duration },
    /// The line cannot be sent at all.
    #[error("cannot send {line:?}: {detail}")]
    BadCommand { line: String, detail: String },
    /// Something awaited did not arrive in time.
    #[error("{what} did not arrive within {timeout:?}")]
    Timeout { what: String, timeout: Duration },
    /// The firmware answered a later line, so the Ack of this one was lost
    /// (dropped because the up ring was full).
    #[error("the Ack of {line:?} (line {expected} since boot) was lost: the next Ack answers line {got}")]
    AckLost { line: String, expected: u32, got: u32 },
    /// The firmware restarted (a Hello with seq 0) while a command was awaited.
    #[error("the firmware restarted while waiting for the Ack of {line:?}")]
    FirmwareRestarted { line: String },
    /// The ELF image could not be read.
    #[error("ELF {path}: {detail}")]
    Elf { path: String, detail: String },
}

impl RttError {
    /// The target is gone (emulator exited, probe unplugged, socket closed).
    pub fn is_disconnected(&self) -> bool {
        matches!(self, RttError::Target(TargetError::Disconnected { .. }))
    }

    /// Something did not happen in time (the target or the firmware).
    pub fn is_timeout(&self) -> bool {
        matches!(
            self,
            RttError::Target(TargetError::Timeout { .. }) | RttError::Timeout { .. } | RttError::DownChannelFull { .. }
        )
    }
}

/// Where to look for the control block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlBlockLocation {
    /// Exactly here (the `_SEGGER_RTT` symbol's address).
    Address(u32),
    /// Somewhere in `len` bytes from `start`.
    Scan { start: u32, len: u32 },
}

impl ControlBlockLocation {
    /// The lm3s6965's RAM (QEMU `lm3s6965evb`): 64 KiB at 0x2000_0000.
    pub const LM3S6965_RAM: ControlBlockLocation = ControlBlockLocation::Scan { start: 0x2000_0000, len: 64 * 1024 };

    /// The `_SEGGER_RTT` symbol of the image; without one, a scan of the
    /// image's RAM ([`ControlBlockLocation::scan_of`]).
    pub fn from_elf(elf: &Path) -> Result<ControlBlockLocation, RttError> {
        use object::{Object, ObjectSymbol};

        let elf_error = |detail: String| RttError::Elf { path: elf.display().to_string(), detail };
        let data = std::fs::read(elf).map_err(|error| elf_error(error.to_string()))?;
        let file = object::File::parse(&*data).map_err(|error| elf_error(format!("not an ELF image: {error}")))?;
        if let Some(symbol) = file.symbols().find(|symbol| symbol.name() == Ok(layout::CONTROL_BLOCK_SYMBOL)) {
            let address = u32::try_from(symbol.address()).map_err(|_| {
                elf_error(format!("{} is at {:#x}, beyond 32 bits", layout::CONTROL_BLOCK_SYMBOL, symbol.address()))
            })?;
            return Ok(ControlBlockLocation::Address(address));
        }
        ControlBlockLocation::scan_of(&file)
            .map_err(|why| elf_error(format!("no symbol {} and {why}", layout::CONTROL_BLOCK_SYMBOL)))
    }

    /// The RAM an image without the symbol (a stripped one) uses, to scan
    /// for the control block: its data and bss sections, or, with no
    /// section headers left, its writable loadable segments. `Err` says
    /// there is neither.
    pub fn scan_of(file: &object::File<'_>) -> Result<ControlBlockLocation, String> {
        use object::{Object, ObjectSection, ObjectSegment, SectionKind, SegmentFlags};

        let sections = file
            .sections()
            .filter(|section| matches!(section.kind(), SectionKind::Data | SectionKind::UninitializedData))
            .filter(|section| section.size() > 0)
            .map(|section| (section.address(), section.address().saturating_add(section.size())))
            .reduce(|(start, end), (low, high)| (start.min(low), end.max(high)));
        let writable = || {
            file.segments()
                .filter(|segment| {
                    matches!(segment.flags(), SegmentFlags::Elf { p_flags, .. } if p_flags.0 & object::elf::PF_W.0 != 0)
                })
                .filter(|segment| segment.size() > 0)
                .map(|segment| (segment.address(), segment.address().saturating_add(segment.size())))
                .reduce(|(start, end), (low, high)| (start.min(low), end.max(high)))
        };
        let Some((start, end)) = sections.or_else(writable) else {
            return Err("no data sections or writable segments to scan for an RTT control block".to_string());
        };
        let start32 = u32::try_from(start).map_err(|_| format!("its RAM starts at {start:#x}, beyond 32 bits"))?;
        let len = u32::try_from(end.saturating_sub(start))
            .map_err(|_| format!("its RAM ({start:#x}..{end:#x}) is larger than 32-bit addresses"))?;
        Ok(ControlBlockLocation::Scan { start: start32, len })
    }
}

/// One channel of the control block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Channel {
    /// Its index among the channels of its direction.
    pub index: usize,
    pub name: String,
    /// Address of its 24-byte descriptor.
    pub descriptor: u32,
    pub buffer: u32,
    pub size: u32,
    pub flags: u32,
}

/// A hole in the sequence numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqGap {
    /// The last sequence number before the hole.
    pub after: u32,
    /// The first one after it.
    pub next: u32,
    /// Records missing in between.
    pub missing: u32,
    /// The header drop count before and after the hole.
    pub dropped_before: u16,
    pub dropped_after: u16,
}

/// 48 bytes that are not a valid record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undecodable {
    pub bytes: [u8; RECORD_SIZE],
    pub error: DecodeError,
}

/// What the reader saw of the stream so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Records decoded.
    pub records: u64,
    /// Sequence number of the first record seen (0 when attached at boot).
    pub first_seq: Option<u32>,
    pub last_seq: Option<u32>,
    pub gaps: Vec<SeqGap>,
    /// Records missing in all gaps.
    pub missing: u64,
    /// How much the header drop count rose (summed over restarts).
    pub dropped_increase: u64,
    /// The latest header drop count (saturating at 65 535 in the firmware).
    pub dropped: u16,
    /// The latest exact drop count, from a TimeBase record.
    pub dropped_total: Option<u32>,
    /// Chunks of 48 bytes that did not decode (counted, and the first few kept).
    pub undecodable_count: u64,
    pub undecodable: Vec<Undecodable>,
    /// Hello records with seq 0 after other records: the firmware restarted.
    pub restarts: u32,
    /// Times the ring's read offset was not where the reader left it (the
    /// firmware re-initialised RTT, or another host reads the channel).
    pub resyncs: u32,
}

impl StreamStats {
    /// Missing records the firmware's drop count does not account for: the
    /// stream lost records without the firmware knowing (a contract breach
    /// or a reader bug). 0 on a healthy stream.
    pub fn unexplained_missing(&self) -> u64 {
        self.missing.saturating_sub(self.dropped_increase)
    }
}

/// The firmware's answer to one command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandAck {
    pub seq: u32,
    /// When the command took effect (for `start`: when White's clock started).
    pub at_us: u64,
    pub ack: Ack,
}

impl CommandAck {
    pub fn is_ok(&self) -> bool {
        self.ack.status == AckStatus::Ok
    }
}

/// A line written to the down ring, whose Ack is awaited with
/// [`RttReader::wait_ack`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandTicket {
    /// The line, without its newline, for messages.
    pub line: String,
    /// The command it is (Unknown for a line that is not one).
    pub code: CommandCode,
    /// The firmware's line count its Ack will carry, when the reader knows
    /// the count (it does once it saw Hello or any Ack).
    pub expected_commands: Option<u32>,
    /// Records decoded before the line was written: its Ack comes later.
    decoded_before: u64,
    restarts_before: u32,
}

/// Which Ack answers which line.
#[derive(Debug, Default)]
struct AckTracker {
    /// The firmware's line count as of the last Ack (0 after Hello).
    lines_known: Option<u32>,
    /// Lines written since then whose Ack was not seen.
    in_flight: u32,
    /// Recent Acks with the decode ordinal of their record.
    acks: VecDeque<(u64, CommandAck)>,
}

/// The bench channels of one firmware, read over a [`Target`].
#[derive(Debug)]
pub struct RttReader {
    control_block: u32,
    up: Channel,
    down: Channel,
    /// Where the reader left the up ring's read offset.
    up_read: u32,
    inbox: VecDeque<Record>,
    stats: StreamStats,
    acks: AckTracker,
    /// Records decoded since attaching (an ordinal for Ack matching).
    decoded: u64,
    poll_interval: Duration,
}

fn word(bytes: &[u8], at: usize) -> u32 {
    let quad: [u8; 4] = bytes.get(at..at.saturating_add(4)).and_then(|b| b.try_into().ok()).unwrap_or([0; 4]);
    u32::from_le_bytes(quad)
}

fn descriptor_at(bytes: &[u8], at: usize) -> Descriptor {
    let raw: [u8; layout::DESCRIPTOR_SIZE] =
        bytes.get(at..at.saturating_add(layout::DESCRIPTOR_SIZE)).and_then(|b| b.try_into().ok()).unwrap_or([0; 24]);
    Descriptor::decode(&raw)
}

fn offset_address(base: u32, offset: usize) -> Result<u32, RttError> {
    u32::try_from(offset).ok().and_then(|offset| base.checked_add(offset)).ok_or_else(|| RttError::NoControlBlock {
        location: format!("at {base:#010x}"),
        detail: "the block would run past the end of the address space".to_string(),
    })
}

/// Printable form of bytes read where an id should be.
fn show_bytes(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| if b.is_ascii_graphic() || b == b' ' { char::from(b).to_string() } else { format!("\\x{b:02x}") })
        .collect()
}

/// Reads a NUL-terminated name of at most [`NAME_MAX`] bytes.
fn read_name(target: &mut dyn Target, address: u32) -> Result<String, RttError> {
    let mut bytes = [0u8; NAME_MAX];
    let bytes: Vec<u8> = match target.read_memory(address, &mut bytes) {
        Ok(()) => bytes.to_vec(),
        // The name may sit at the very end of mapped memory: byte by byte.
        Err(TargetError::Protocol { .. }) => {
            let mut name = Vec::new();
            for offset in 0..NAME_MAX as u32 {
                let mut byte = [0u8; 1];
                target.read_memory(address.saturating_add(offset), &mut byte)?;
                name.push(byte[0]);
                if byte[0] == 0 {
                    break;
                }
            }
            name
        }
        Err(error) => return Err(error.into()),
    };
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    Ok(String::from_utf8_lossy(bytes.get(..end).unwrap_or_default()).into_owned())
}

/// The named channels of the control block at `address`, checked.
fn inspect(target: &mut dyn Target, address: u32) -> Result<(Channel, Channel), RttError> {
    let location = format!("at {address:#010x}");
    let mut header = [0u8; layout::OFFSET_DESCRIPTORS];
    target.read_memory(address, &mut header)?;
    if header.get(..16) != Some(&layout::ID[..]) {
        return Err(RttError::NoControlBlock {
            location,
            detail: format!(
                "the id reads \"{}\", not \"SEGGER RTT\" (the firmware has not initialised RTT yet, or this is the wrong address)",
                show_bytes(header.get(..16).unwrap_or_default())
            ),
        });
    }
    let max_up = word(&header, layout::OFFSET_MAX_UP);
    let max_down = word(&header, layout::OFFSET_MAX_DOWN);
    let plausible = 1..=layout::CHANNELS_MAX;
    if !plausible.contains(&max_up) || !plausible.contains(&max_down) {
        return Err(RttError::NoControlBlock {
            location,
            detail: format!(
                "max_up {} and max_down {} must be 1 to {}: these bytes are not a control block",
                max_up as i32,
                max_down as i32,
                layout::CHANNELS_MAX
            ),
        });
    }
    let (up, down) = find_channels(target, address, max_up as usize, max_down as usize)?;
    check_buffers(&up, &down)?;
    Ok((up, down))
}

/// The contract's two channels among the control block's `max_up` up and
/// `max_down` down descriptors, by name.
fn find_channels(
    target: &mut dyn Target,
    address: u32,
    max_up: usize,
    max_down: usize,
) -> Result<(Channel, Channel), RttError> {
    let location = format!("at {address:#010x}");
    let mut descriptors = vec![0u8; layout::DESCRIPTOR_SIZE * (max_up + max_down)];
    target.read_memory(offset_address(address, layout::OFFSET_DESCRIPTORS)?, &mut descriptors)?;

    let mut up = None;
    let mut down = None;
    let mut names = Vec::new();
    for slot in 0..max_up + max_down {
        let (direction, index) = if slot < max_up { ("up", slot) } else { ("down", slot - max_up) };
        let descriptor = descriptor_at(&descriptors, layout::DESCRIPTOR_SIZE * slot);
        if descriptor.name_addr == 0 {
            continue;
        }
        if descriptor.readable().is_none() || descriptor.buffer_addr == 0 {
            return Err(RttError::NoControlBlock {
                location,
                detail: format!(
                    "{direction}-channel {index} is inconsistent: buffer {:#010x}, size {}, write {}, read {}",
                    descriptor.buffer_addr, descriptor.size, descriptor.write, descriptor.read
                ),
            });
        }
        let name = read_name(target, descriptor.name_addr)?;
        names.push(format!("{direction} {index} `{name}`"));
        let channel = Channel {
            index,
            name: name.clone(),
            descriptor: offset_address(address, layout::OFFSET_DESCRIPTORS + layout::DESCRIPTOR_SIZE * slot)?,
            buffer: descriptor.buffer_addr,
            size: descriptor.size,
            flags: descriptor.flags,
        };
        if direction == "up" && name == UP_CHANNEL && up.is_none() {
            up = Some(channel);
        } else if direction == "down" && name == DOWN_CHANNEL && down.is_none() {
            down = Some(channel);
        }
    }
    let found = if names.is_empty() { "no named channels".to_string() } else { names.join(", ") };
    let up =
        up.ok_or_else(|| RttError::NoChannel { address, direction: "up", name: UP_CHANNEL, found: found.clone() })?;
    let down = down.ok_or(RttError::NoChannel { address, direction: "down", name: DOWN_CHANNEL, found })?;
    Ok((up, down))
}

/// The channels' sizes and the up channel's mode, as the contract asks.
fn check_buffers(up: &Channel, down: &Channel) -> Result<(), RttError> {
    if (up.size as usize) < UP_BUFFER_MIN {
        return Err(RttError::BadChannel {
            direction: "up",
            name: UP_CHANNEL,
            detail: format!("its buffer is {} bytes; the contract asks for at least {UP_BUFFER_MIN}", up.size),
        });
    }
    if up.flags & layout::MODE_MASK != layout::MODE_NO_BLOCK_SKIP {
        return Err(RttError::BadChannel {
            direction: "up",
            name: UP_CHANNEL,
            detail: format!(
                "its mode is {} ({}); the contract asks for 0, no-block-skip (drop whole records, never block)",
                up.flags & layout::MODE_MASK,
                if up.flags & layout::MODE_MASK == layout::MODE_BLOCK_IF_FULL { "block if full" } else { "trim" }
            ),
        });
    }
    if (down.size as usize) < DOWN_BUFFER_MIN {
        return Err(RttError::BadChannel {
            direction: "down",
            name: DOWN_CHANNEL,
            detail: format!("its buffer is {} bytes; the contract asks for at least {DOWN_BUFFER_MIN}", down.size),
        });
    }
    Ok(())
}

/// The address of the first valid control block in `len` bytes from `start`.
fn scan(target: &mut dyn Target, start: u32, len: u32) -> Result<u32, RttError> {
    let end = u64::from(start).saturating_add(u64::from(len)).min(1 << 32);
    let mut rejected = Vec::new();
    let mut at = u64::from(start);
    let id_len = layout::ID.len() as u64;
    while at.saturating_add(id_len) <= end {
        // Chunks overlap by the id's length so an id across a boundary is found.
        let chunk_len = (u64::from(SCAN_CHUNK) + id_len).min(end - at);
        let mut chunk = vec![0u8; chunk_len as usize];
        let chunk_start = at as u32;
        target.read_memory(chunk_start, &mut chunk)?;
        let mut offset = (4 - (chunk_start % 4)) % 4;
        while u64::from(offset) + id_len <= chunk_len && u64::from(offset) < u64::from(SCAN_CHUNK) {
            let window = chunk.get(offset as usize..(offset as usize).saturating_add(layout::ID.len()));
            if window == Some(&layout::ID[..]) {
                let candidate = chunk_start.saturating_add(offset);
                match inspect(target, candidate) {
                    Ok(_) => return Ok(candidate),
                    Err(RttError::Target(error)) => return Err(error.into()),
                    Err(error) => rejected.push(format!("{candidate:#010x}: {error}")),
                }
            }
            offset += 4;
        }
        at = at.saturating_add(u64::from(SCAN_CHUNK));
    }
    let detail = if rejected.is_empty() {
        "the id \"SEGGER RTT\" is nowhere (the firmware has not initialised RTT yet?)".to_string()
    } else {
        format!("the id is there but no block is valid: {}", rejected.join("; "))
    };
    Err(RttError::NoControlBlock { location: format!("in {len} bytes from {start:#010x}"), detail })
}

/// Host time one lockstep step may take to reach a firmware tick before the
/// emulator is judged stuck (as a run's `RunOptions::emulator_timeout`).
const LOCKSTEP_STEP_LIMIT: Duration = Duration::from_secs(300);

/// How long a wait for the firmware may last. On a board that runs by
/// itself: host time. In lockstep the board runs only while stepped, so
/// sleeping would never let it answer, and a loaded host must not cut a
/// wait short (the outcome would depend on host speed): there the wait is
/// counted in the firmware's timer ticks, one per millisecond of the
/// timeout, and host time only bounds a single step.
enum Patience {
    Host { deadline: Instant, timeout: Duration },
    Lockstep { ticks_left: u64, ticks: u64 },
}

impl Patience {
    fn new(target: &dyn Target, timeout: Duration) -> Patience {
        if target.capabilities().lockstep {
            let ticks = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX).max(1);
            Patience::Lockstep { ticks_left: ticks, ticks }
        } else {
            Patience::Host { deadline: Instant::now() + timeout, timeout }
        }
    }

    fn spent(&self) -> bool {
        match self {
            Patience::Host { deadline, .. } => Instant::now() >= *deadline,
            Patience::Lockstep { ticks_left, .. } => *ticks_left == 0,
        }
    }

    /// Lets the firmware run a little: one tick in lockstep, at most
    /// `pause` of host time otherwise.
    fn wait(&mut self, target: &mut dyn Target, pause: Duration) -> Result<(), RttError> {
        match self {
            Patience::Host { deadline, .. } => {
                thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
                Ok(())
            }
            Patience::Lockstep { ticks_left, .. } => {
                let plan = StepPlan { watch: None, tick: true, skip_ticks: 0 };
                let started = Instant::now();
                loop {
                    if let Some(stop) = target.step(&plan, Duration::from_millis(250))? {
                        let ran = match stop {
                            Stop::Tick { ticks } => u64::from(ticks),
                            Stop::Written => 0,
                        };
                        *ticks_left = ticks_left.saturating_sub(ran);
                        return Ok(());
                    }
                    if started.elapsed() > LOCKSTEP_STEP_LIMIT {
                        return Err(RttError::Timeout {
                            what: "a firmware tick (the emulator ran none in lockstep)".to_string(),
                            timeout: LOCKSTEP_STEP_LIMIT,
                        });
                    }
                }
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            Patience::Host { timeout, .. } => format!("{timeout:?}"),
            Patience::Lockstep { ticks, .. } => format!("{ticks} firmware ticks (lockstep counts guest time)"),
        }
    }
}

impl RttReader {
    /// Finds the control block and the bench channels, once.
    pub fn attach(target: &mut dyn Target, location: &ControlBlockLocation) -> Result<RttReader, RttError> {
        let control_block = match *location {
            ControlBlockLocation::Address(address) => address,
            ControlBlockLocation::Scan { start, len } => scan(target, start, len)?,
        };
        let (up, down) = inspect(target, control_block)?;
        let mut offsets = [0u8; 8];
        target.read_memory(up.descriptor.saturating_add(layout::DESCRIPTOR_WRITE as u32), &mut offsets)?;
        Ok(RttReader {
            control_block,
            up_read: word(&offsets, 4),
            up,
            down,
            inbox: VecDeque::new(),
            stats: StreamStats::default(),
            acks: AckTracker::default(),
            decoded: 0,
            poll_interval: DEFAULT_POLL_INTERVAL,
        })
    }

    /// Like [`RttReader::attach`], trying again until `timeout` while there
    /// is no control block yet (the firmware sets it up at boot). A lockstep
    /// board is stepped a tick at a time meanwhile, and `timeout` counts its
    /// ticks, not host time (`Patience`).
    pub fn attach_within(
        target: &mut dyn Target,
        location: &ControlBlockLocation,
        timeout: Duration,
    ) -> Result<RttReader, RttError> {
        let mut patience = Patience::new(target, timeout);
        loop {
            match RttReader::attach(target, location) {
                Err(RttError::NoControlBlock { location, detail }) => {
                    if patience.spent() {
                        return Err(RttError::NoControlBlock {
                            location,
                            detail: format!("{detail}; still none after {}", patience.describe()),
                        });
                    }
                    patience.wait(target, Duration::from_millis(5))?;
                }
                other => return other,
            }
        }
    }

    pub fn control_block(&self) -> u32 {
        self.control_block
    }

    pub fn up_channel(&self) -> &Channel {
        &self.up
    }

    pub fn down_channel(&self) -> &Channel {
        &self.down
    }

    /// Where the firmware writes the up ring's write offset: it changes
    /// once per record sent.
    pub fn up_write_offset_address(&self) -> u32 {
        self.up.descriptor.saturating_add(layout::DESCRIPTOR_WRITE as u32)
    }

    pub fn stats(&self) -> &StreamStats {
        &self.stats
    }

    /// Pause between polls that found nothing while waiting (default 2 ms;
    /// on QEMU every poll halts the VM for about half a millisecond).
    pub fn set_poll_interval(&mut self, interval: Duration) {
        self.poll_interval = interval;
    }

    /// Records decoded and not yet taken, oldest first.
    pub fn inbox(&self) -> &VecDeque<Record> {
        &self.inbox
    }

    /// Takes every record decoded so far, oldest first.
    pub fn take_records(&mut self) -> Vec<Record> {
        self.inbox.drain(..).collect()
    }

    fn up_ring(&self, write: u32, read: u32) -> Result<u32, RttError> {
        let descriptor =
            Descriptor { name_addr: 1, buffer_addr: self.up.buffer, size: self.up.size, write, read, flags: 0 };
        descriptor.readable().ok_or_else(|| RttError::BadChannel {
            direction: "up",
            name: UP_CHANNEL,
            detail: format!(
                "write offset {write} / read offset {read} are outside its {}-byte buffer: the control block was overwritten",
                self.up.size
            ),
        })
    }

    /// Reads every whole record waiting in the up ring into the inbox and
    /// frees its bytes; returns how many records came.
    pub fn poll(&mut self, target: &mut dyn Target) -> Result<usize, RttError> {
        let mut offsets = [0u8; 8];
        target.read_memory(self.up.descriptor.saturating_add(layout::DESCRIPTOR_WRITE as u32), &mut offsets)?;
        let (write, read) = (word(&offsets, 0), word(&offsets, 4));
        let available = self.up_ring(write, read)?;
        if read != self.up_read {
            self.stats.resyncs = self.stats.resyncs.saturating_add(1);
            self.up_read = read;
        }
        let whole = available - available % RECORD_BYTES;
        if whole == 0 {
            return Ok(0);
        }
        let mut data = vec![0u8; whole as usize];
        let first = whole.min(self.up.size - read);
        let (head, tail) = data.split_at_mut(first as usize);
        target.read_memory(self.up.buffer.saturating_add(read), head)?;
        if !tail.is_empty() {
            target.read_memory(self.up.buffer, tail)?;
        }
        let new_read = (read + whole) % self.up.size;
        target
            .write_memory(self.up.descriptor.saturating_add(layout::DESCRIPTOR_READ as u32), &new_read.to_le_bytes())?;
        self.up_read = new_read;
        let mut count = 0;
        for chunk in data.chunks_exact(RECORD_SIZE) {
            let Ok(bytes) = <[u8; RECORD_SIZE]>::try_from(chunk) else { continue };
            match Record::decode(&bytes) {
                Ok(record) => {
                    self.track(&record);
                    self.inbox.push_back(record);
                    count += 1;
                }
                Err(error) => {
                    self.stats.undecodable_count = self.stats.undecodable_count.saturating_add(1);
                    if self.stats.undecodable.len() < UNDECODABLE_KEPT_MAX {
                        self.stats.undecodable.push(Undecodable { bytes, error });
                    }
                }
            }
        }
        Ok(count)
    }

    /// Sequence, drop and Ack bookkeeping for one decoded record.
    fn track(&mut self, record: &Record) {
        self.decoded = self.decoded.saturating_add(1);
        let stats = &mut self.stats;
        let restart = matches!(record.body, Body::Hello(_)) && record.seq == 0;
        if restart {
            if stats.records > 0 {
                stats.restarts = stats.restarts.saturating_add(1);
            }
            stats.last_seq = None;
            stats.dropped = 0;
            self.acks.lines_known = Some(0);
            self.acks.in_flight = 0;
        }
        match stats.last_seq {
            Some(last) => {
                let expected = last.wrapping_add(1);
                if record.seq != expected {
                    let missing = record.seq.wrapping_sub(expected);
                    stats.gaps.push(SeqGap {
                        after: last,
                        next: record.seq,
                        missing,
                        dropped_before: stats.dropped,
                        dropped_after: record.dropped,
                    });
                    stats.missing = stats.missing.saturating_add(u64::from(missing));
                }
            }
            None => {
                if stats.first_seq.is_none() {
                    stats.first_seq = Some(record.seq);
                }
            }
        }
        stats.dropped_increase =
            stats.dropped_increase.saturating_add(u64::from(record.dropped.saturating_sub(stats.dropped)));
        stats.dropped = record.dropped;
        stats.last_seq = Some(record.seq);
        stats.records = stats.records.saturating_add(1);
        match record.body {
            Body::TimeBase(sample) => stats.dropped_total = Some(sample.dropped_total),
            Body::Ack(ack) => {
                let acks = &mut self.acks;
                let answered = match acks.lines_known {
                    Some(known) => ack.commands.wrapping_sub(known),
                    None => 1,
                };
                acks.in_flight = acks.in_flight.saturating_sub(answered);
                acks.lines_known = Some(ack.commands);
                if acks.acks.len() >= ACKS_KEPT_MAX {
                    acks.acks.pop_front();
                }
                acks.acks.push_back((self.decoded, CommandAck { seq: record.seq, at_us: record.at_us, ack }));
            }
            _ => {}
        }
    }

    /// Polls until `matches` holds for a record in the inbox (checked
    /// oldest first, records already there included); returns a copy of it.
    /// The inbox keeps every record.
    pub fn wait_for(
        &mut self,
        target: &mut dyn Target,
        timeout: Duration,
        what: &str,
        mut matches: impl FnMut(&Record) -> bool,
    ) -> Result<Record, RttError> {
        let mut patience = Patience::new(target, timeout);
        let mut checked = 0;
        loop {
            if let Some(record) = self.inbox.iter().skip(checked).find(|record| matches(record)) {
                return Ok(*record);
            }
            checked = self.inbox.len();
            if patience.spent() {
                return Err(RttError::Timeout { what: what.to_string(), timeout });
            }
            if self.poll(target)? == 0 {
                patience.wait(target, self.poll_interval)?;
            }
        }
    }

    /// The oldest record in the inbox, polling until one comes.
    pub fn next_record(&mut self, target: &mut dyn Target, timeout: Duration) -> Result<Record, RttError> {
        let mut patience = Patience::new(target, timeout);
        loop {
            if let Some(record) = self.inbox.pop_front() {
                return Ok(record);
            }
            if patience.spent() {
                return Err(RttError::Timeout { what: "a record".to_string(), timeout });
            }
            if self.poll(target)? == 0 {
                patience.wait(target, self.poll_interval)?;
            }
        }
    }

    /// Writes `line` (a newline is added if missing) into the down ring,
    /// whole, waiting up to `timeout` for room. Returns the ticket to wait
    /// for its Ack with.
    pub fn send_line(
        &mut self,
        target: &mut dyn Target,
        line: &[u8],
        timeout: Duration,
    ) -> Result<CommandTicket, RttError> {
        let mut patience = Patience::new(target, timeout);
        self.send_line_within(target, line, &mut patience, timeout)
    }

    fn send_line_within(
        &mut self,
        target: &mut dyn Target,
        line: &[u8],
        patience: &mut Patience,
        timeout: Duration,
    ) -> Result<CommandTicket, RttError> {
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        let shown = String::from_utf8_lossy(text).into_owned();
        if text.contains(&b'\n') {
            return Err(RttError::BadCommand { line: shown, detail: "one line at a time: it holds a newline".into() });
        }
        let mut bytes = text.to_vec();
        bytes.push(b'\n');
        let needed = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        if needed > self.down.size - 1 {
            return Err(RttError::BadCommand {
                line: shown,
                detail: format!(
                    "{needed} bytes never fit the {}-byte down buffer (it holds {})",
                    self.down.size,
                    self.down.size - 1
                ),
            });
        }
        if self.acks.lines_known.is_none() {
            // Without the firmware's line count the Ack is matched by its
            // command code: older records must be out of the way first.
            self.poll(target)?;
        }
        let write = loop {
            let mut offsets = [0u8; 8];
            target.read_memory(self.down.descriptor.saturating_add(layout::DESCRIPTOR_WRITE as u32), &mut offsets)?;
            let (write, read) = (word(&offsets, 0), word(&offsets, 4));
            let descriptor =
                Descriptor { name_addr: 1, buffer_addr: self.down.buffer, size: self.down.size, write, read, flags: 0 };
            let free = descriptor.writable().ok_or_else(|| RttError::BadChannel {
                direction: "down",
                name: DOWN_CHANNEL,
                detail: format!(
                    "write offset {write} / read offset {read} are outside its {}-byte buffer: the control block was overwritten",
                    self.down.size
                ),
            })?;
            if free >= needed {
                break write;
            }
            if patience.spent() {
                return Err(RttError::DownChannelFull { free, needed, timeout });
            }
            patience.wait(target, self.poll_interval)?;
        };
        let first = needed.min(self.down.size - write);
        let (head, tail) = bytes.split_at(first as usize);
        target.write_memory(self.down.buffer.saturating_add(write), head)?;
        if !tail.is_empty() {
            target.write_memory(self.down.buffer, tail)?;
        }
        let new_write = (write + needed) % self.down.size;
        target.write_memory(
            self.down.descriptor.saturating_add(layout::DESCRIPTOR_WRITE as u32),
            &new_write.to_le_bytes(),
        )?;
        self.acks.in_flight = self.acks.in_flight.saturating_add(1);
        let expected_commands = self.acks.lines_known.map(|known| known.wrapping_add(self.acks.in_flight));
        let code = Command::parse(text).map(|command| command.code()).unwrap_or(CommandCode::Unknown);
        Ok(CommandTicket {
            line: shown,
            code,
            expected_commands,
            decoded_before: self.decoded,
            restarts_before: self.stats.restarts,
        })
    }

    /// Waits for the Ack of a line sent with [`RttReader::send_line`].
    pub fn wait_ack(
        &mut self,
        target: &mut dyn Target,
        ticket: &CommandTicket,
        timeout: Duration,
    ) -> Result<CommandAck, RttError> {
        let mut patience = Patience::new(target, timeout);
        self.wait_ack_within(target, ticket, &mut patience, timeout)
    }

    fn wait_ack_within(
        &mut self,
        target: &mut dyn Target,
        ticket: &CommandTicket,
        patience: &mut Patience,
        timeout: Duration,
    ) -> Result<CommandAck, RttError> {
        loop {
            for (ordinal, answer) in &self.acks.acks {
                if *ordinal <= ticket.decoded_before {
                    continue;
                }
                match ticket.expected_commands {
                    Some(expected) => {
                        let ahead = answer.ack.commands.wrapping_sub(expected) as i32;
                        if ahead == 0 {
                            return Ok(*answer);
                        }
                        if ahead > 0 {
                            return Err(RttError::AckLost {
                                line: ticket.line.clone(),
                                expected,
                                got: answer.ack.commands,
                            });
                        }
                    }
                    None if answer.ack.command == ticket.code => return Ok(*answer),
                    None => {}
                }
            }
            if self.stats.restarts != ticket.restarts_before {
                return Err(RttError::FirmwareRestarted { line: ticket.line.clone() });
            }
            if patience.spent() {
                return Err(RttError::Timeout { what: format!("the Ack of {:?}", ticket.line), timeout });
            }
            if self.poll(target)? == 0 {
                patience.wait(target, self.poll_interval)?;
            }
        }
    }

    /// Sends one command and waits for its Ack, all within `timeout`. The
    /// Ack (refusals included: check [`CommandAck::is_ok`]) is returned; it
    /// and every other record read meanwhile stay in the inbox.
    pub fn command(
        &mut self,
        target: &mut dyn Target,
        command: &Command<'_>,
        timeout: Duration,
    ) -> Result<CommandAck, RttError> {
        let mut line = [0u8; COMMAND_LINE_MAX + 1];
        let Some(len) = command.encode(&mut line) else {
            return Err(RttError::BadCommand {
                line: format!("{command:?}"),
                detail: format!("longer than the contract's {COMMAND_LINE_MAX} bytes"),
            });
        };
        self.command_line(target, line.get(..len).unwrap_or_default(), timeout)
    }

    /// Sends a raw line (also one that is not a command, to test the
    /// firmware's answers) and waits for its Ack.
    pub fn command_line(
        &mut self,
        target: &mut dyn Target,
        line: &[u8],
        timeout: Duration,
    ) -> Result<CommandAck, RttError> {
        let mut patience = Patience::new(target, timeout);
        let ticket = self.send_line_within(target, line, &mut patience, timeout)?;
        self.wait_ack_within(target, &ticket, &mut patience, timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::board::{FakeConfig, FakeSteps, FakeTarget, Fault};
    use bench_contract::{Button, Hello, Press, PressResult, TimeBase};

    const SHORT: Duration = Duration::from_millis(200);

    fn press(side: Button) -> Body {
        Body::Press(Press {
            button: side,
            result: PressResult::Accepted,
            bounces: 0,
            moves: 1,
            remaining_us: 1_000_000,
            handled_at_us: 0,
            edge_hw_counter: 0,
        })
    }

    fn time_base(dropped_total: u32) -> Body {
        Body::TimeBase(TimeBase { hw_counter: 1, ticks: 2, edge: true, dropped_total })
    }

    fn attach(fake: &mut FakeTarget) -> RttReader {
        let location = ControlBlockLocation::Address(fake.board().control_block());
        RttReader::attach(fake, &location).unwrap()
    }

    fn seqs(records: &[Record]) -> Vec<u32> {
        records.iter().map(|record| record.seq).collect()
    }

    #[test]
    fn attach_finds_the_channels_by_name_at_any_index() {
        let mut fake = FakeTarget::with_config(FakeConfig { extra_channels: 2, ..FakeConfig::default() });
        let reader = attach(&mut fake);
        assert_eq!(reader.up_channel().index, 2);
        assert_eq!(reader.down_channel().index, 2);
        assert_eq!(reader.up_channel().name, "bench");
        assert_eq!(reader.down_channel().name, "bench-ctl");
        assert_eq!(reader.up_channel().size, 4096);
        assert_eq!(reader.down_channel().size, 128);
    }

    #[test]
    fn a_scan_finds_the_block_past_a_decoy_id() {
        let mut fake = FakeTarget::new();
        let decoy = fake.board().ram_base() + 0x80; // the id, followed by garbage
        fake.board_mut().poke(decoy, &layout::ID).unwrap();
        fake.board_mut().poke(decoy + 16, &[0xFF; 8]).unwrap();
        let location = ControlBlockLocation::Scan { start: fake.board().ram_base(), len: fake.board().ram_size() };
        let reader = RttReader::attach(&mut fake, &location).unwrap();
        assert_eq!(reader.control_block(), fake.board().control_block());
    }

    #[test]
    fn records_come_in_order_and_their_bytes_are_freed() {
        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        assert_eq!(reader.poll(&mut fake).unwrap(), 0);
        for at in 0..5 {
            assert!(fake.board_mut().emit(at * 10, press(Button::White)));
        }
        assert_eq!(reader.poll(&mut fake).unwrap(), 5);
        let records = reader.take_records();
        assert_eq!(seqs(&records), [0, 1, 2, 3, 4]);
        assert_eq!(records[3].at_us, 30);
        assert_eq!(fake.board().up_pending(), 0);
        assert_eq!(reader.stats().gaps, []);
        assert_eq!(reader.stats().first_seq, Some(0));
    }

    #[test]
    fn records_that_wrap_past_the_end_of_the_ring_decode() {
        let mut fake = FakeTarget::new();
        fake.board_mut().set_up_offsets(4096 - 20, 4096 - 20).unwrap();
        let mut reader = attach(&mut fake);
        for at in 0..3 {
            assert!(fake.board_mut().emit(at, press(Button::Black)));
        }
        assert_eq!(reader.poll(&mut fake).unwrap(), 3);
        assert_eq!(seqs(&reader.take_records()), [0, 1, 2]);
        assert_eq!(fake.board().up_offsets(), (3 * 48 - 20, 3 * 48 - 20));
        // Many laps of the ring, read in uneven batches.
        let mut expected = 3;
        for batch in 1..60u32 {
            for _ in 0..(batch % 13) {
                assert!(fake.board_mut().emit(u64::from(expected), press(Button::White)));
                expected += 1;
            }
            reader.poll(&mut fake).unwrap();
        }
        let records = reader.take_records();
        assert_eq!(seqs(&records), (3..expected).collect::<Vec<_>>());
        assert!(u64::from(expected) * 48 > 4 * 4096, "only {expected} records: no laps");
        assert_eq!(reader.stats().missing, 0);
    }

    #[test]
    fn a_partial_record_stays_in_the_ring() {
        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        let bytes = Record::new(0, 0, 7, press(Button::White)).encode();
        assert!(fake.board_mut().push_up(&bytes[..20]));
        assert_eq!(reader.poll(&mut fake).unwrap(), 0);
        assert_eq!(fake.board().up_pending(), 20);
        assert!(fake.board_mut().push_up(&bytes[20..]));
        assert_eq!(reader.poll(&mut fake).unwrap(), 1);
        assert_eq!(reader.take_records()[0].at_us, 7);
    }

    #[test]
    fn dropped_records_show_as_a_gap_the_drop_count_explains() {
        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        // 4096 bytes hold 85 records; the rest are dropped whole.
        let mut sent = 0;
        for at in 0..100 {
            if fake.board_mut().emit(at, press(Button::White)) {
                sent += 1;
            }
        }
        assert_eq!(sent, 85);
        assert_eq!(fake.board().dropped_total(), 15);
        reader.poll(&mut fake).unwrap();
        assert!(fake.board_mut().emit(100, time_base(15)));
        reader.poll(&mut fake).unwrap();
        let records = reader.take_records();
        assert_eq!(records.len(), 86);
        assert_eq!(records[85].seq, 100);
        assert_eq!(records[85].dropped, 15);
        let stats = reader.stats();
        assert_eq!(stats.gaps, [SeqGap { after: 84, next: 100, missing: 15, dropped_before: 0, dropped_after: 15 }]);
        assert_eq!((stats.missing, stats.dropped_increase, stats.unexplained_missing()), (15, 15, 0));
        assert_eq!(stats.dropped_total, Some(15));
    }

    #[test]
    fn a_gap_without_drops_is_unexplained() {
        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        for seq in [0, 1, 5, 6] {
            assert!(fake.board_mut().push_record(&Record::new(seq, 0, 0, press(Button::White))));
        }
        reader.poll(&mut fake).unwrap();
        assert_eq!(reader.stats().missing, 3);
        assert_eq!(reader.stats().unexplained_missing(), 3);
    }

    #[test]
    fn sequence_numbers_wrap_without_a_gap() {
        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        for seq in [u32::MAX - 1, u32::MAX, 0, 1] {
            assert!(fake.board_mut().push_record(&Record::new(seq, 0, 0, time_base(0))));
        }
        reader.poll(&mut fake).unwrap();
        assert_eq!(reader.stats().gaps, []);
        assert_eq!(reader.stats().restarts, 0);
    }

    #[test]
    fn an_undecodable_record_is_counted_and_the_stream_goes_on() {
        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        assert!(fake.board_mut().emit(1, press(Button::White)));
        let mut garbage = Record::new(1, 0, 0, press(Button::White)).encode();
        garbage[0] = 99;
        assert!(fake.board_mut().push_up(&garbage));
        assert!(fake.board_mut().push_record(&Record::new(2, 0, 3, press(Button::Black))));
        assert_eq!(reader.poll(&mut fake).unwrap(), 2);
        assert_eq!(reader.stats().undecodable_count, 1);
        assert_eq!(reader.stats().undecodable[0].error, DecodeError::UnknownKind { code: 99 });
        assert_eq!(seqs(&reader.take_records()), [0, 2]);
    }

    #[test]
    fn a_restart_is_noticed_and_is_not_a_gap() {
        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        fake.reset_and_run().unwrap(); // Hello seq 0, Capabilities seq 1
        for at in 0..3 {
            assert!(fake.board_mut().emit(at, time_base(0)));
        }
        reader.poll(&mut fake).unwrap();
        fake.reset_and_run().unwrap();
        reader.poll(&mut fake).unwrap();
        let records = reader.take_records();
        assert_eq!(seqs(&records), [0, 1, 2, 3, 4, 0, 1]);
        assert!(matches!(
            records[5].body,
            Body::Hello(Hello { contract_version: bench_contract::CONTRACT_VERSION, .. })
        ));
        assert_eq!(reader.stats().restarts, 1);
        assert_eq!(reader.stats().gaps, []);
        assert_eq!(reader.stats().resyncs, 1, "the re-initialised ring's offsets moved back to 0");
    }

    #[test]
    fn garbage_control_blocks_are_refused_with_a_reason() {
        let check = |mutate: &dyn Fn(&mut FakeTarget), expected: &str| {
            let mut fake = FakeTarget::new();
            mutate(&mut fake);
            let location = ControlBlockLocation::Address(fake.board().control_block());
            let error = RttReader::attach(&mut fake, &location).unwrap_err();
            assert!(error.to_string().contains(expected), "{expected:?} not in: {error}");
        };
        let cb = FakeTarget::new().board().control_block();
        check(&|fake| fake.board_mut().poke(cb, b"SEGGER RTX").unwrap(), "not \"SEGGER RTT\"");
        check(&|fake| fake.board_mut().poke(cb, &[0; 16]).unwrap(), "has not initialised RTT yet");
        check(&|fake| fake.board_mut().poke(cb + 16, &200i32.to_le_bytes()).unwrap(), "max_up 200");
        check(&|fake| fake.board_mut().poke(cb + 20, &(-1i32).to_le_bytes()).unwrap(), "max_down -1");
        // The up descriptor's write offset beyond its buffer.
        check(&|fake| fake.board_mut().poke(cb + 24 + 12, &5000u32.to_le_bytes()).unwrap(), "inconsistent");
        // Names: no `bench` up-channel.
        check(
            &|fake| {
                let name = fake.board().up_name_address();
                fake.board_mut().poke(name, b"bunch").unwrap();
            },
            "no up-channel named `bench` (it has: up 0 `bunch`, down 0 `bench-ctl`)",
        );
        // A name pointer to unmapped memory.
        check(
            &|fake| fake.board_mut().poke(cb + 24, &0x0000_1000u32.to_le_bytes()).unwrap(),
            "no memory at 0x00001000",
        );
        // Mode 2: block if full.
        check(&|fake| fake.board_mut().poke(cb + 24 + 20, &2u32.to_le_bytes()).unwrap(), "block if full");
    }

    #[test]
    fn channels_smaller_than_the_contract_are_refused() {
        let mut fake = FakeTarget::with_config(FakeConfig { up_size: 512, ..FakeConfig::default() });
        let location = ControlBlockLocation::Address(fake.board().control_block());
        let error = RttReader::attach(&mut fake, &location).unwrap_err();
        assert!(error.to_string().contains("at least 1024"), "{error}");
        let mut fake = FakeTarget::with_config(FakeConfig { down_size: 64, ..FakeConfig::default() });
        let error = RttReader::attach(&mut fake, &location).unwrap_err();
        assert!(error.to_string().contains("at least 98"), "{error}");
    }

    #[test]
    fn a_descriptor_overwritten_while_reading_is_an_error() {
        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        let cb = fake.board().control_block();
        fake.board_mut().poke(cb + 24 + 12, &9999u32.to_le_bytes()).unwrap();
        let error = reader.poll(&mut fake).unwrap_err();
        assert!(matches!(error, RttError::BadChannel { .. }), "{error}");
    }

    /// A lockstep fake (halted between steps, 1 ms ticks) whose first step
    /// stalls for `stall` of host time, as on a loaded host.
    fn lockstep_fake(stall: Duration) -> FakeTarget {
        let mut config = FakeConfig::default();
        config.capabilities.lockstep = true;
        config.steps = FakeSteps { stall: Some((0, stall)), ..FakeSteps::default() };
        let mut fake = FakeTarget::with_config(config);
        fake.reset_and_run().unwrap();
        fake
    }

    /// In lockstep the wait for the control block counts firmware ticks: a
    /// host that stalls for longer than the whole timeout changes nothing,
    /// and a firmware that never sets RTT up is given up on after exactly
    /// that much guest time. (Counted in host time, the stall ended it.)
    #[test]
    fn in_lockstep_attach_within_counts_firmware_ticks_not_host_time() {
        let mut fake = lockstep_fake(Duration::from_millis(400));
        fake.board_mut().erase_control_block();
        fake.set_firmware(|board| {
            if board.now_us() == 30_000 {
                board.init_rtt();
            }
        });
        let location = ControlBlockLocation::Address(fake.board().control_block());
        let timeout = Duration::from_millis(100);
        let reader = RttReader::attach_within(&mut fake, &location, timeout).unwrap();
        assert_eq!(reader.up_channel().name, "bench");
        assert_eq!(fake.board().now_us(), 30_000, "attached at the tick after the set-up");

        let mut never = lockstep_fake(Duration::from_millis(400));
        never.board_mut().erase_control_block();
        let error = RttReader::attach_within(&mut never, &location, timeout).unwrap_err();
        assert!(error.to_string().contains("still none after 100 firmware ticks"), "{error}");
        assert_eq!(never.board().now_us(), 100_000, "gave up after 100 ms of guest time");
    }

    /// In lockstep the firmware empties the down ring only while stepped:
    /// a line that waits for room steps the board (sleeping would wait for
    /// ever), and the wait is guest time, whatever the host does.
    #[test]
    fn in_lockstep_a_full_down_ring_is_waited_out_by_stepping_the_board() {
        let mut fake = lockstep_fake(Duration::from_millis(400));
        fake.set_firmware(|board| {
            board.acknowledge_commands();
        });
        let mut reader = attach(&mut fake);
        reader.poll(&mut fake).unwrap();
        let line = b"tc 300+2";
        let room = (FakeConfig::default().down_size - 1) as usize / (line.len() + 1);
        for _ in 0..room {
            reader.send_line(&mut fake, line, Duration::ZERO).unwrap();
        }
        let before = fake.board().now_us();
        let ack = reader.command_line(&mut fake, line, Duration::from_millis(50)).unwrap();
        assert!(ack.is_ok());
        assert!(fake.board().now_us() > before, "the board ran to make room");
    }

    #[test]
    fn attach_within_waits_for_the_firmware_to_set_up_rtt() {
        let mut fake = FakeTarget::new();
        fake.board_mut().erase_control_block();
        let mut calls = 0;
        fake.set_firmware(move |board| {
            calls += 1;
            if calls == 5 {
                board.init_rtt();
            }
        });
        let location = ControlBlockLocation::Address(fake.board().control_block());
        let reader = RttReader::attach_within(&mut fake, &location, Duration::from_secs(2)).unwrap();
        assert_eq!(reader.up_channel().name, "bench");

        let mut never = FakeTarget::new();
        never.board_mut().erase_control_block();
        let started = Instant::now();
        let error = RttReader::attach_within(&mut never, &location, SHORT).unwrap_err();
        assert!(matches!(error, RttError::NoControlBlock { .. }), "{error}");
        assert!(error.to_string().contains("still none after"), "{error}");
        assert!(started.elapsed() < Duration::from_secs(60), "gave up, not waited for ever");
    }

    #[test]
    fn a_command_gets_its_ack() {
        let mut fake = FakeTarget::new().with_auto_ack();
        fake.reset_and_run().unwrap();
        let mut reader = attach(&mut fake);
        reader.poll(&mut fake).unwrap(); // Hello: the line count is 0
        let ack = reader.command(&mut fake, &Command::TimeControl("300+2"), SHORT).unwrap();
        assert!(ack.is_ok());
        assert_eq!((ack.ack.command, ack.ack.commands), (CommandCode::TimeControl, 1));
        let ack = reader.command(&mut fake, &Command::Start, SHORT).unwrap();
        assert_eq!((ack.ack.command, ack.ack.commands), (CommandCode::Start, 2));
        let ack = reader.command_line(&mut fake, b"fly", SHORT).unwrap();
        assert_eq!((ack.ack.status, ack.ack.commands), (AckStatus::UnknownCommand, 3));
        assert_eq!(fake.board().lines_received(), ["tc 300+2", "start", "fly"]);
        // The Acks stay in the inbox with the rest.
        let kinds: Vec<_> = reader.take_records().iter().map(|r| r.body.kind()).collect();
        assert_eq!(
            kinds,
            [
                bench_contract::Kind::Hello,
                bench_contract::Kind::Capabilities,
                bench_contract::Kind::Ack,
                bench_contract::Kind::Ack,
                bench_contract::Kind::Ack
            ]
        );
    }

    #[test]
    fn commands_wrap_around_the_down_ring() {
        let mut fake = FakeTarget::new().with_auto_ack();
        fake.reset_and_run().unwrap();
        let mut reader = attach(&mut fake);
        let text = "40/5400+30:1800+30";
        for round in 1..=20u32 {
            let ack = reader.command(&mut fake, &Command::TimeControl(text), SHORT).unwrap();
            assert_eq!(ack.ack.commands, round);
        }
        assert!(fake.board().lines_received().iter().all(|line| line == &format!("tc {text}")));
    }

    #[test]
    fn without_a_known_line_count_the_ack_is_matched_by_command() {
        let mut fake = FakeTarget::new().with_auto_ack();
        let mut reader = attach(&mut fake); // no Hello seen, no Ack seen
        let ack = reader.command(&mut fake, &Command::Start, SHORT).unwrap();
        assert_eq!(ack.ack.command, CommandCode::Start);
        let ticket = reader.send_line(&mut fake, b"reset", SHORT).unwrap();
        assert_eq!(ticket.expected_commands, Some(2), "the first Ack told the count");
    }

    #[test]
    fn a_firmware_that_never_answers_times_out() {
        let mut fake = FakeTarget::new(); // reads nothing, answers nothing
        let mut reader = attach(&mut fake);
        let started = Instant::now();
        let error = reader.command(&mut fake, &Command::Start, SHORT).unwrap_err();
        assert!(matches!(error, RttError::Timeout { .. }), "{error}");
        assert!(error.to_string().contains("the Ack of \"start\""), "{error}");
        assert!(started.elapsed() < Duration::from_secs(60), "gave up, not waited for ever");
        let error =
            reader.wait_for(&mut fake, SHORT, "a Press record", |r| r.body.kind() == bench_contract::Kind::Press);
        assert!(error.unwrap_err().is_timeout());
    }

    #[test]
    fn a_full_down_ring_is_an_error_and_no_half_line_is_written() {
        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        // 127 bytes fit: 21 lines of 6 bytes ("start\n") = 126.
        for _ in 0..21 {
            reader.send_line(&mut fake, b"start", SHORT).unwrap();
        }
        let before = fake.board().down_offsets();
        let error = reader.send_line(&mut fake, b"start", SHORT).unwrap_err();
        assert!(matches!(error, RttError::DownChannelFull { free: 1, needed: 6, .. }), "{error}");
        assert_eq!(fake.board().down_offsets(), before);
        // Once the firmware reads, there is room again.
        assert_eq!(fake.board_mut().take_lines().len(), 21);
        reader.send_line(&mut fake, b"start", SHORT).unwrap();
    }

    #[test]
    fn lines_that_can_never_be_sent_are_refused() {
        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        let long = "9".repeat(COMMAND_LINE_MAX);
        let error = reader.command(&mut fake, &Command::TimeControl(&long), SHORT).unwrap_err();
        assert!(matches!(error, RttError::BadCommand { .. }), "{error}");
        let error = reader.send_line(&mut fake, &[b'x'; 200], SHORT).unwrap_err();
        assert!(error.to_string().contains("never fit"), "{error}");
        let error = reader.send_line(&mut fake, b"tc 60\nstart", SHORT).unwrap_err();
        assert!(error.to_string().contains("one line at a time"), "{error}");
        // A line too long for the contract but not the ring is the firmware's to refuse.
        let mut fake = FakeTarget::new().with_auto_ack();
        let mut reader = attach(&mut fake);
        let ack = reader.command_line(&mut fake, format!("tc {}", "9".repeat(100)).as_bytes(), SHORT).unwrap();
        assert_eq!(ack.ack.status, AckStatus::LineTooLong);
    }

    #[test]
    fn a_lost_ack_is_reported() {
        let mut fake = FakeTarget::new();
        fake.reset_and_run().unwrap();
        let mut reader = attach(&mut fake);
        reader.poll(&mut fake).unwrap();
        let ticket = reader.send_line(&mut fake, b"start", SHORT).unwrap();
        assert_eq!(ticket.expected_commands, Some(1));
        // The firmware answers the line, but its Ack is dropped; it then answers a second line.
        fake.board_mut().take_lines();
        fake.board_mut().fill_up_ring();
        let ack = |commands| {
            Body::Ack(Ack {
                command: CommandCode::Start,
                status: AckStatus::Ok,
                error_position: 0,
                commands,
                initial_us: 0,
                final_period: 0,
                side: None,
            })
        };
        assert!(!fake.board_mut().emit(0, ack(1)));
        reader.poll(&mut fake).unwrap();
        assert!(fake.board_mut().emit(0, ack(2)));
        let error = reader.wait_ack(&mut fake, &ticket, SHORT).unwrap_err();
        assert!(matches!(error, RttError::AckLost { expected: 1, got: 2, .. }), "{error}");
    }

    #[test]
    fn a_restart_while_waiting_for_an_ack_is_reported() {
        let mut fake = FakeTarget::new();
        fake.reset_and_run().unwrap();
        let mut reader = attach(&mut fake);
        reader.poll(&mut fake).unwrap();
        let ticket = reader.send_line(&mut fake, b"start", SHORT).unwrap();
        fake.reset_and_run().unwrap();
        let error = reader.wait_ack(&mut fake, &ticket, SHORT).unwrap_err();
        assert!(matches!(error, RttError::FirmwareRestarted { .. }), "{error}");
    }

    #[test]
    fn target_faults_reach_the_caller() {
        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        fake.fail_after(2, Fault::Disconnect);
        reader.poll(&mut fake).unwrap();
        reader.poll(&mut fake).unwrap();
        let error = reader.poll(&mut fake).unwrap_err();
        assert!(error.is_disconnected(), "{error}");
        let error = reader.command(&mut fake, &Command::Start, SHORT).unwrap_err();
        assert!(error.is_disconnected(), "{error}");

        let mut fake = FakeTarget::new();
        let mut reader = attach(&mut fake);
        fake.fail_after(0, Fault::Timeout);
        let error = reader.poll(&mut fake).unwrap_err();
        assert!(error.is_timeout() && !error.is_disconnected(), "{error}");
        fake.clear_fault();
        reader.poll(&mut fake).unwrap();
    }
}
