//! An in-memory [`Target`] for unit tests: byte-addressable RAM holding an
//! RTT control block laid out exactly as `hil/CONTRACT.md` says (SEGGER's
//! layout, up-channel `bench`, down-channel `bench-ctl`), with firmware-side
//! helpers to put records into the up ring and take command lines out of
//! the down ring, a log of button edges stamped with the fake's own clock,
//! and failure injection.
//!
//! The fake is passive: nothing happens between the host's calls. To make
//! it behave like firmware, give it a [`FakeTarget::set_firmware`] hook: it
//! runs at every fallible call while the fake runs (not while halted), after
//! the fake's clock advanced by [`FakeConfig::us_per_call`]. It can answer
//! commands ([`FakeBoard::acknowledge_commands`], or
//! [`FakeTarget::with_auto_ack`]), turn new button edges
//! ([`FakeBoard::button_edges`]) into Press records, and so on.
//!
//! ```text
//! RAM (default 64 KiB at 0x2000_0000):
//!   +0x0040  channel names ("bench", "bench-ctl", "terminal", "terminal-in")
//!   +0x0200  control block (_SEGGER_RTT): id, max_up, max_down, descriptors
//!   +0x1000  up buffer (4096 bytes), then the down buffer (128 bytes),
//!            then small buffers of the extra channels
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use bench_contract::rtt::{self as layout, Descriptor};
use bench_contract::{
    self as contract, Ack, AckStatus, Body, Button, Command, CommandCode, Hello, LineBuffer, LineEvent, Record,
    BUTTONS_PAUSE, CONTRACT_VERSION, RECORD_SIZE,
};

use crate::target::{ButtonId, Capabilities, CounterReading, EdgeWindow, StepPlan, Stop, Target, TargetError};

/// Where the fake's RAM starts by default (the lm3s6965's).
pub const RAM_BASE: u32 = 0x2000_0000;
const NAMES_OFFSET: u32 = 0x40;
const CONTROL_BLOCK_OFFSET: u32 = 0x200;
const BUFFERS_OFFSET: u32 = 0x1000;
/// Buffer size of each extra channel.
const EXTRA_BUFFER: u32 = 64;
const UP_NAME: &[u8] = b"bench\0";
const DOWN_NAME: &[u8] = b"bench-ctl\0";
const EXTRA_UP_NAME: &[u8] = b"terminal\0";
const EXTRA_DOWN_NAME: &[u8] = b"terminal-in\0";

/// A free-running cycle counter on the fake's clock, read against a host
/// clock whose rate differs by a known amount: what a real board's DWT
/// CYCCNT looks like through a probe.
#[derive(Clone, Debug, PartialEq)]
pub struct FakeCounter {
    pub hz: u32,
    /// The board's oscillator against the host's clock, ppm (positive: the
    /// board runs fast).
    pub oscillator_ppm: f64,
    /// Round trips of successive counter reads, µs, taken in turn.
    pub round_trips_us: Vec<u64>,
    /// Where inside a slow round trip (twice the fastest or more) the read
    /// lands, in percent, taken in turn; in the others it lands in the middle.
    pub slow_read_at_percent: Vec<u64>,
    /// Board time from the counter read before a button write to the read
    /// after it, µs; the edge is in the middle.
    pub write_bracket_us: u64,
}

impl Default for FakeCounter {
    fn default() -> Self {
        FakeCounter {
            hz: 84_000_000,
            oscillator_ppm: 0.0,
            round_trips_us: vec![1_000],
            slow_read_at_percent: vec![50],
            write_bracket_us: 400,
        }
    }
}

/// How the fake is laid out and behaves.
#[derive(Clone, Debug)]
pub struct FakeConfig {
    pub ram_base: u32,
    /// At least 64 KiB; grown if the buffers need more.
    pub ram_size: u32,
    /// Size of the `bench` up buffer (the contract asks for ≥ 1024).
    pub up_size: u32,
    /// Size of the `bench-ctl` down buffer (≥ 98).
    pub down_size: u32,
    /// Other channels before ours in each direction, so that lookups by
    /// name are exercised (`terminal` up, `terminal-in` down).
    pub extra_channels: usize,
    /// The fake's clock advances this much at each fallible call while it
    /// runs.
    pub us_per_call: u64,
    pub capabilities: Capabilities,
    /// A counter the host can read against host time (`Target::read_counter`,
    /// `Target::set_button_timed`); `None` like the emulator.
    pub counter: Option<FakeCounter>,
    /// The Capabilities record sent after Hello (contract 3); `None`: a
    /// contract 2 firmware, which sends none.
    pub announced: Option<contract::Capabilities>,
    /// How [`Target::step`] behaves when `capabilities.lockstep` is set.
    pub steps: FakeSteps,
}

/// A lockstep fake ([`Target::step`]), QEMU's way (hil/LOCKSTEP.md): halted
/// between steps (no fallible call moves its clock then), each step runs
/// the firmware hook [`FakeConfig::us_per_call`] at a time until it wrote
/// a record or, when asked, its clock crossed a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FakeSteps {
    /// The firmware's tick, µs.
    pub tick_us: u64,
    /// At a record stop the clock moves on to the `n`-th tick boundary
    /// after the record, as QEMU's moves to its next timer deadline when it
    /// stops (the reference firmware stamped an edge made at a record stop
    /// 2 ms after the record): guest time at a record stop is later than
    /// the record's instant by an amount the harness does not know.
    pub record_stop_ticks: Option<u64>,
    /// Board time a step runs at most before it comes back with no stop
    /// (as QEMU's step does when its host-time slice runs out).
    pub slice_us: u64,
    /// A loaded host: the step at this index (0 the first) first sleeps
    /// this long in host time and comes back with no stop, the board not
    /// having moved.
    pub stall: Option<(u64, Duration)>,
}

impl Default for FakeSteps {
    fn default() -> Self {
        FakeSteps { tick_us: 1_000, record_stop_ticks: None, slice_us: 2_000_000, stall: None }
    }
}

impl Default for FakeConfig {
    fn default() -> Self {
        FakeConfig {
            ram_base: RAM_BASE,
            ram_size: 64 * 1024,
            up_size: 4096,
            down_size: 128,
            extra_channels: 0,
            us_per_call: 0,
            capabilities: Capabilities {
                read_while_running: true,
                virtual_time: true,
                pause_button: true,
                timed_bounce: false,
                bounce_lead_us: 0,
                lockstep: false,
                invisible_stops: false,
            },
            steps: FakeSteps::default(),
            counter: None,
            announced: Some(contract::Capabilities {
                controls: contract::CONTROLS_ALL,
                arbiter: contract::ARBITER_ALL,
                shows_flag_order: true,
                ranges: contract::Ranges::UNDECLARED,
            }),
        }
    }
}

/// A button edge the host made, on the fake's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ButtonEdge {
    pub at_us: u64,
    pub button: ButtonId,
    pub pressed: bool,
    /// Whether the fake ran when the edge came (a real emulator refuses
    /// key events while halted; the QEMU backend resumes first).
    pub running: bool,
}

/// A line the firmware side took from the down ring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DownLine {
    Line(String),
    /// Longer than the contract's limit: discarded whole.
    TooLong,
}

/// What a call does when a fault is injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// `TargetError::Disconnected`, as if the emulator died.
    Disconnect,
    /// `TargetError::Timeout`, as if the target stopped answering.
    Timeout,
}

/// The fake board's state: RAM, clock, firmware-side ring state, button log.
#[derive(Debug)]
pub struct FakeBoard {
    ram_base: u32,
    ram: Vec<u8>,
    config: FakeConfig,
    control_block: u32,
    up_descriptor: u32,
    down_descriptor: u32,
    up_buffer: u32,
    down_buffer: u32,
    now_us: u64,
    seq: u32,
    dropped_total: u32,
    lines: LineBuffer,
    lines_received: Vec<String>,
    commands_received: u32,
    edges: Vec<ButtonEdge>,
    edges_taken: usize,
    counter_reads: usize,
}

fn align(value: u32, to: u32) -> u32 {
    value.div_ceil(to).saturating_mul(to)
}

impl FakeBoard {
    fn new(config: FakeConfig) -> FakeBoard {
        let extra = u32::try_from(config.extra_channels).unwrap_or(0).min(layout::CHANNELS_MAX - 1);
        let control_block = config.ram_base.saturating_add(CONTROL_BLOCK_OFFSET);
        let up_buffer = config.ram_base.saturating_add(BUFFERS_OFFSET);
        let down_buffer = align(up_buffer.saturating_add(config.up_size), 16);
        let extras_end = align(down_buffer.saturating_add(config.down_size), 16)
            .saturating_add(EXTRA_BUFFER.saturating_mul(2).saturating_mul(extra));
        let ram_size = config.ram_size.max(extras_end.saturating_sub(config.ram_base));
        let descriptors = config.ram_base.saturating_add(CONTROL_BLOCK_OFFSET + layout::OFFSET_DESCRIPTORS as u32);
        let descriptor_size = layout::DESCRIPTOR_SIZE as u32;
        let mut board = FakeBoard {
            ram_base: config.ram_base,
            ram: vec![0; ram_size as usize],
            control_block,
            up_descriptor: descriptors.saturating_add(descriptor_size * extra),
            down_descriptor: descriptors.saturating_add(descriptor_size * (2 * extra + 1)),
            up_buffer,
            down_buffer,
            config,
            now_us: 0,
            seq: 0,
            dropped_total: 0,
            lines: LineBuffer::new(),
            lines_received: Vec::new(),
            commands_received: 0,
            edges: Vec::new(),
            edges_taken: 0,
            counter_reads: 0,
        };
        board.init_rtt();
        board
    }

    fn extra(&self) -> u32 {
        u32::try_from(self.config.extra_channels).unwrap_or(0).min(layout::CHANNELS_MAX - 1)
    }

    fn index(&self, address: u32, len: usize) -> Result<std::ops::Range<usize>, String> {
        let start = address.checked_sub(self.ram_base).map(|offset| offset as usize);
        match start.and_then(|start| Some(start..start.checked_add(len)?)) {
            Some(range) if range.end <= self.ram.len() => Ok(range),
            _ => Err(format!(
                "no memory at {address:#010x} (+{len} bytes): the fake has RAM at {:#010x}..{:#010x}",
                self.ram_base,
                u64::from(self.ram_base) + self.ram.len() as u64
            )),
        }
    }

    /// Reads RAM.
    pub fn peek(&self, address: u32, buffer: &mut [u8]) -> Result<(), String> {
        let range = self.index(address, buffer.len())?;
        buffer.copy_from_slice(self.ram.get(range).unwrap_or_default());
        Ok(())
    }

    /// Writes RAM (to corrupt a control block, say).
    pub fn poke(&mut self, address: u32, data: &[u8]) -> Result<(), String> {
        let range = self.index(address, data.len())?;
        if let Some(target) = self.ram.get_mut(range) {
            target.copy_from_slice(data);
        }
        Ok(())
    }

    fn set_word(&mut self, address: u32, value: u32) {
        let _ = self.poke(address, &value.to_le_bytes());
    }

    fn descriptor(&self, address: u32) -> Descriptor {
        let mut bytes = [0u8; layout::DESCRIPTOR_SIZE];
        let _ = self.peek(address, &mut bytes);
        Descriptor::decode(&bytes)
    }

    pub fn ram_base(&self) -> u32 {
        self.ram_base
    }

    pub fn ram_size(&self) -> u32 {
        u32::try_from(self.ram.len()).unwrap_or(u32::MAX)
    }

    /// The control block's address: what the `_SEGGER_RTT` symbol would say.
    pub fn control_block(&self) -> u32 {
        self.control_block
    }

    /// Address of the `bench` name string.
    pub fn up_name_address(&self) -> u32 {
        self.ram_base.saturating_add(NAMES_OFFSET)
    }

    fn down_name_address(&self) -> u32 {
        self.up_name_address().saturating_add(UP_NAME.len() as u32)
    }

    /// Sets up the control block as firmware does at boot: descriptors,
    /// empty rings, and the id written last.
    pub fn init_rtt(&mut self) {
        let extra = self.extra();
        let names = self.up_name_address();
        let extra_up_name = self.down_name_address().saturating_add(DOWN_NAME.len() as u32);
        let extra_down_name = extra_up_name.saturating_add(EXTRA_UP_NAME.len() as u32);
        let _ = self.poke(names, UP_NAME);
        let _ = self.poke(self.down_name_address(), DOWN_NAME);
        let _ = self.poke(extra_up_name, EXTRA_UP_NAME);
        let _ = self.poke(extra_down_name, EXTRA_DOWN_NAME);
        let extras = align(self.down_buffer.saturating_add(self.config.down_size), 16);
        let cb = self.control_block;
        let _ = self.poke(cb, &[0; 16]);
        self.set_word(cb + layout::OFFSET_MAX_UP as u32, extra + 1);
        self.set_word(cb + layout::OFFSET_MAX_DOWN as u32, extra + 1);
        let descriptor_size = layout::DESCRIPTOR_SIZE as u32;
        let first = cb + layout::OFFSET_DESCRIPTORS as u32;
        let write_descriptor = |board: &mut FakeBoard, address: u32, name: u32, buffer: u32, size: u32| {
            for (offset, value) in
                [(0, name), (4, buffer), (8, size), (12, 0), (16, 0), (20, layout::MODE_NO_BLOCK_SKIP)]
            {
                board.set_word(address + offset, value);
            }
        };
        for index in 0..extra {
            let buffer = extras.saturating_add(EXTRA_BUFFER * 2 * index);
            write_descriptor(self, first + descriptor_size * index, extra_up_name, buffer, EXTRA_BUFFER);
            write_descriptor(
                self,
                first + descriptor_size * (extra + 1 + index),
                extra_down_name,
                buffer.saturating_add(EXTRA_BUFFER),
                EXTRA_BUFFER,
            );
        }
        let (up, down) = (self.up_descriptor, self.down_descriptor);
        let (up_buffer, down_buffer) = (self.up_buffer, self.down_buffer);
        let (up_size, down_size) = (self.config.up_size, self.config.down_size);
        write_descriptor(self, up, names, up_buffer, up_size);
        write_descriptor(self, down, self.down_name_address(), down_buffer, down_size);
        let _ = self.poke(cb, &layout::ID);
        self.lines = LineBuffer::new();
    }

    /// Zeroes the control block: RAM before the firmware initialised RTT.
    pub fn erase_control_block(&mut self) {
        let len = layout::OFFSET_DESCRIPTORS + layout::DESCRIPTOR_SIZE * 2 * (self.config.extra_channels + 1);
        let _ = self.poke(self.control_block, &vec![0; len]);
    }

    /// A reboot: RTT set up again, sequence and drop counts back to 0, the
    /// clock back to 0, and a Hello record.
    pub fn reboot(&mut self) {
        self.init_rtt();
        self.now_us = 0;
        self.seq = 0;
        self.dropped_total = 0;
        self.commands_received = 0;
        let mut hello = FakeBoard::hello();
        if let Some(counter) = &self.config.counter {
            hello.hw_counter_hz = counter.hz;
        }
        match self.config.announced {
            Some(capabilities) => {
                self.emit(0, Body::Hello(hello));
                self.emit(0, Body::Capabilities(capabilities));
            }
            None => {
                self.emit(0, Body::Hello(Hello { contract_version: 2, ..hello }));
            }
        }
    }

    /// The Hello the fake sends at boot (with a [`FakeConfig::counter`],
    /// `hw_counter_hz` is that counter's).
    pub fn hello() -> Hello {
        Hello {
            contract_version: CONTRACT_VERSION,
            record_size: RECORD_SIZE as u16,
            tick_us: 1000,
            hw_counter_hz: 1,
            hw_counter_bits: 32,
            buttons: BUTTONS_PAUSE,
            debounce_us: 20_000,
            firmware_version: 1,
            firmware_name: *b"fake\0\0\0\0",
        }
    }

    /// The cycle counter at board time `us` (32 bits, like DWT CYCCNT),
    /// 0 without a [`FakeConfig::counter`].
    pub fn counter_at(&self, us: u64) -> u64 {
        let hz = self.config.counter.as_ref().map_or(0, |counter| counter.hz);
        let cycles = u128::from(us) * u128::from(hz) / 1_000_000;
        u64::try_from(cycles % (1u128 << 32)).unwrap_or(0)
    }

    /// Host time at board time `us`: the board's oscillator is
    /// `oscillator_ppm` fast against it. Host time starts 1 s before the
    /// board's boot.
    fn host_at(&self, us: u64) -> f64 {
        let ppm = self.config.counter.as_ref().map_or(0.0, |counter| counter.oscillator_ppm);
        1e6 + us as f64 / (1.0 + ppm * 1e-6)
    }

    /// One counter read at the fake's clock, as a probe would make it.
    fn read_counter(&mut self) -> Option<CounterReading> {
        let counter = self.config.counter.as_ref()?;
        let index = self.counter_reads;
        self.counter_reads = self.counter_reads.wrapping_add(1);
        let pick = |values: &[u64], fallback: u64| values.get(index % values.len().max(1)).copied().unwrap_or(fallback);
        let trip_us = pick(&counter.round_trips_us, 1_000);
        let fastest = counter.round_trips_us.iter().copied().min().unwrap_or(trip_us);
        // A round trip under twice the fastest is a normal one: the read lands in its middle.
        let slow = trip_us >= fastest.saturating_mul(2);
        let percent = if slow { pick(&counter.slow_read_at_percent, 50).min(100) } else { 50 };
        let read_host_us = self.host_at(self.now_us);
        let before = read_host_us - (trip_us * percent) as f64 / 100.0;
        let host_before_us = before.max(0.0).round() as u64;
        Some(CounterReading {
            host_before_us,
            host_after_us: host_before_us.saturating_add(trip_us),
            counter: self.counter_at(self.now_us),
        })
    }

    /// The counter reads around a button write at the fake's clock.
    fn edge_window(&self) -> Option<EdgeWindow> {
        let counter = self.config.counter.as_ref()?;
        let half = counter.write_bracket_us / 2;
        Some(EdgeWindow {
            counter_before: self.counter_at(self.now_us.saturating_sub(half)),
            counter_after: self.counter_at(self.now_us.saturating_add(half)),
        })
    }

    /// The fake's clock, µs since its boot.
    pub fn now_us(&self) -> u64 {
        self.now_us
    }

    pub fn advance_us(&mut self, us: u64) {
        self.now_us = self.now_us.saturating_add(us);
    }

    /// The up ring's (write, read) offsets.
    pub fn up_offsets(&self) -> (u32, u32) {
        let descriptor = self.descriptor(self.up_descriptor);
        (descriptor.write, descriptor.read)
    }

    /// Moves both offsets of the up ring, e.g. near its end to test
    /// wrap-around. Both must be inside the buffer.
    pub fn set_up_offsets(&mut self, write: u32, read: u32) -> Result<(), String> {
        if write >= self.config.up_size || read >= self.config.up_size {
            return Err(format!("offsets {write}/{read} outside the {}-byte buffer", self.config.up_size));
        }
        self.set_word(self.up_descriptor + layout::DESCRIPTOR_WRITE as u32, write);
        self.set_word(self.up_descriptor + layout::DESCRIPTOR_READ as u32, read);
        Ok(())
    }

    /// The down ring's (write, read) offsets.
    pub fn down_offsets(&self) -> (u32, u32) {
        let descriptor = self.descriptor(self.down_descriptor);
        (descriptor.write, descriptor.read)
    }

    /// Bytes waiting in the up ring for the host.
    pub fn up_pending(&self) -> u32 {
        self.descriptor(self.up_descriptor).readable().unwrap_or(0)
    }

    /// Bytes the up ring can still take.
    pub fn up_free(&self) -> u32 {
        self.descriptor(self.up_descriptor).writable().unwrap_or(0)
    }

    /// Puts bytes into the up ring as a no-block-skip writer does: all of
    /// them, or none (false) when they do not fit.
    pub fn push_up(&mut self, bytes: &[u8]) -> bool {
        let descriptor = self.descriptor(self.up_descriptor);
        let Some(free) = descriptor.writable() else { return false };
        let Ok(len) = u32::try_from(bytes.len()) else { return false };
        if len > free {
            return false;
        }
        let first = len.min(descriptor.size - descriptor.write);
        let (head, tail) = bytes.split_at(first as usize);
        let _ = self.poke(descriptor.buffer_addr.saturating_add(descriptor.write), head);
        let _ = self.poke(descriptor.buffer_addr, tail);
        let write = (descriptor.write + len) % descriptor.size;
        self.set_word(self.up_descriptor + layout::DESCRIPTOR_WRITE as u32, write);
        true
    }

    /// Puts one record, exactly as given (seq and dropped included), into
    /// the up ring; false if it did not fit.
    pub fn push_record(&mut self, record: &Record) -> bool {
        self.push_up(&record.encode())
    }

    /// Sends a record as the firmware does: the next sequence number, the
    /// drop count in the header; a record that does not fit is dropped
    /// whole and counted (false).
    pub fn emit(&mut self, at_us: u64, body: Body) -> bool {
        let dropped = u16::try_from(self.dropped_total).unwrap_or(u16::MAX);
        let record = Record::new(self.seq, dropped, at_us, body);
        self.seq = self.seq.wrapping_add(1);
        let sent = self.push_record(&record);
        if !sent {
            self.dropped_total = self.dropped_total.saturating_add(1);
        }
        sent
    }

    /// Fills the up ring with TimeBase records until the next one would be
    /// dropped.
    pub fn fill_up_ring(&mut self) {
        while self.up_free() >= RECORD_SIZE as u32 {
            let body = Body::TimeBase(bench_contract::TimeBase {
                hw_counter: 0,
                ticks: 0,
                edge: false,
                dropped_total: self.dropped_total,
            });
            let now = self.now_us;
            self.emit(now, body);
        }
    }

    /// Records dropped so far (exact).
    pub fn dropped_total(&self) -> u32 {
        self.dropped_total
    }

    /// Takes every byte the host wrote into the down ring.
    pub fn take_down_bytes(&mut self) -> Vec<u8> {
        let descriptor = self.descriptor(self.down_descriptor);
        let Some(available) = descriptor.readable() else { return Vec::new() };
        let mut bytes = vec![0u8; available as usize];
        let first = available.min(descriptor.size - descriptor.read);
        let (head, tail) = bytes.split_at_mut(first as usize);
        let _ = self.peek(descriptor.buffer_addr.saturating_add(descriptor.read), head);
        let _ = self.peek(descriptor.buffer_addr, tail);
        let read = (descriptor.read + available) % descriptor.size;
        self.set_word(self.down_descriptor + layout::DESCRIPTOR_READ as u32, read);
        bytes
    }

    /// Takes the complete lines the host wrote, as the firmware's line
    /// reader sees them (a partial line waits for its newline).
    pub fn take_lines(&mut self) -> Vec<DownLine> {
        let bytes = self.take_down_bytes();
        let mut lines = Vec::new();
        for byte in bytes {
            match self.lines.feed(byte) {
                Some(LineEvent::Line(line)) => {
                    let line = line.strip_suffix(b"\r").unwrap_or(line);
                    lines.push(DownLine::Line(String::from_utf8_lossy(line).into_owned()));
                }
                Some(LineEvent::TooLong) => lines.push(DownLine::TooLong),
                None => {}
            }
        }
        for line in &lines {
            self.commands_received = self.commands_received.saturating_add(1);
            self.lines_received.push(match line {
                DownLine::Line(text) => text.clone(),
                DownLine::TooLong => "<too long>".to_string(),
            });
        }
        lines
    }

    /// Every line taken so far, oldest first.
    pub fn lines_received(&self) -> &[String] {
        &self.lines_received
    }

    /// Answers every complete line with an Ack as the contract says
    /// (status only: a `tc` is accepted without checking its text; nothing
    /// else changes). Returns the lines.
    pub fn acknowledge_commands(&mut self) -> Vec<DownLine> {
        let lines = self.take_lines();
        let mut commands = self.commands_received.saturating_sub(lines.len() as u32);
        for line in &lines {
            commands = commands.saturating_add(1);
            let (command, status, error_position, side) = match line {
                DownLine::TooLong => (CommandCode::Unknown, AckStatus::LineTooLong, 0, None),
                DownLine::Line(text) => match Command::parse(text.as_bytes()) {
                    Ok(command) => (command.code(), AckStatus::Ok, 0, command.side()),
                    Err(error) => (error.command, error.status, error.position, None),
                },
            };
            let ack = Ack { command, status, error_position, commands, initial_us: 0, final_period: 0, side };
            let now = self.now_us;
            self.emit(now, Body::Ack(ack));
        }
        lines
    }

    /// Every button edge the host made, oldest first.
    pub fn button_log(&self) -> &[ButtonEdge] {
        &self.edges
    }

    /// The edges since the last call (for a firmware hook).
    pub fn button_edges(&mut self) -> Vec<ButtonEdge> {
        let new = self.edges.get(self.edges_taken..).unwrap_or_default().to_vec();
        self.edges_taken = self.edges.len();
        new
    }
}

type FirmwareHook = Box<dyn FnMut(&mut FakeBoard) + Send>;

/// The in-memory [`Target`].
pub struct FakeTarget {
    board: FakeBoard,
    firmware: Option<FirmwareHook>,
    running: bool,
    calls: u64,
    fault: Option<(u64, Fault)>,
    loaded: Option<PathBuf>,
    /// Lockstep steps taken so far.
    steps: u64,
    /// Board time of the last lockstep stop, µs.
    last_stop_us: u64,
}

impl std::fmt::Debug for FakeTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeTarget")
            .field("board", &self.board)
            .field("firmware", &self.firmware.is_some())
            .field("running", &self.running)
            .field("calls", &self.calls)
            .field("fault", &self.fault)
            .finish()
    }
}

impl Default for FakeTarget {
    fn default() -> Self {
        FakeTarget::new()
    }
}

impl FakeTarget {
    /// The default layout, RTT initialised, running, no records yet.
    pub fn new() -> FakeTarget {
        FakeTarget::with_config(FakeConfig::default())
    }

    pub fn with_config(config: FakeConfig) -> FakeTarget {
        FakeTarget {
            board: FakeBoard::new(config),
            firmware: None,
            running: true,
            calls: 0,
            fault: None,
            loaded: None,
            steps: 0,
            last_stop_us: 0,
        }
    }

    /// With a firmware hook that answers every command line with an Ack.
    pub fn with_auto_ack(mut self) -> FakeTarget {
        self.set_firmware(|board| {
            board.acknowledge_commands();
        });
        self
    }

    /// Runs `hook` at every fallible call while the fake runs.
    pub fn set_firmware(&mut self, hook: impl FnMut(&mut FakeBoard) + Send + 'static) {
        self.firmware = Some(Box::new(hook));
    }

    pub fn board(&self) -> &FakeBoard {
        &self.board
    }

    pub fn board_mut(&mut self) -> &mut FakeBoard {
        &mut self.board
    }

    /// After `calls` more successful fallible calls, every call fails with
    /// `fault` until [`FakeTarget::clear_fault`].
    pub fn fail_after(&mut self, calls: u64, fault: Fault) {
        self.fault = Some((self.calls.saturating_add(calls), fault));
    }

    pub fn clear_fault(&mut self) {
        self.fault = None;
    }

    /// Fallible calls made so far (failed ones included).
    pub fn calls(&self) -> u64 {
        self.calls
    }

    pub fn is_running(&self) -> bool {
        self.running
    }

    /// The image passed to the last `load`.
    pub fn loaded(&self) -> Option<&Path> {
        self.loaded.as_deref()
    }

    /// Counts the call, applies an injected fault, and lets the "firmware"
    /// run (clock, hook) if the fake runs.
    fn enter(&mut self) -> Result<(), TargetError> {
        self.calls = self.calls.saturating_add(1);
        if let Some((after, fault)) = self.fault {
            if self.calls > after {
                return Err(match fault {
                    Fault::Disconnect => TargetError::Disconnected {
                        what: "fake target".to_string(),
                        detail: format!("injected disconnect at call {}", self.calls),
                    },
                    Fault::Timeout => {
                        TargetError::Timeout { what: "fake target (injected)".to_string(), timeout: Duration::ZERO }
                    }
                });
            }
        }
        if self.running {
            self.board.advance_us(self.board.config.us_per_call);
            if let Some(hook) = self.firmware.as_mut() {
                hook(&mut self.board);
            }
        }
        Ok(())
    }

    fn memory_error(detail: String) -> TargetError {
        TargetError::Protocol { what: "fake target".to_string(), detail }
    }
}

impl Target for FakeTarget {
    fn capabilities(&self) -> Capabilities {
        self.board.config.capabilities
    }

    fn load(&mut self, elf: &Path) -> Result<(), TargetError> {
        self.enter()?;
        self.loaded = Some(elf.to_path_buf());
        self.running = false;
        Ok(())
    }

    fn reset_and_run(&mut self) -> Result<(), TargetError> {
        self.enter()?;
        self.board.reboot();
        // A lockstep board stays halted: it runs only in its steps.
        self.running = !self.board.config.capabilities.lockstep;
        self.last_stop_us = 0;
        Ok(())
    }

    fn halt(&mut self) -> Result<(), TargetError> {
        self.enter()?;
        self.running = false;
        Ok(())
    }

    fn resume(&mut self) -> Result<(), TargetError> {
        self.enter()?;
        self.running = true;
        Ok(())
    }

    fn read_memory(&mut self, address: u32, buffer: &mut [u8]) -> Result<(), TargetError> {
        self.enter()?;
        self.board.peek(address, buffer).map_err(FakeTarget::memory_error)
    }

    fn write_memory(&mut self, address: u32, data: &[u8]) -> Result<(), TargetError> {
        self.enter()?;
        self.board.poke(address, data).map_err(FakeTarget::memory_error)
    }

    fn set_button(&mut self, button: ButtonId, pressed: bool) -> Result<(), TargetError> {
        self.enter()?;
        let edge = ButtonEdge { at_us: self.board.now_us, button, pressed, running: self.running };
        self.board.edges.push(edge);
        Ok(())
    }

    fn read_counter(&mut self) -> Result<Option<CounterReading>, TargetError> {
        self.enter()?;
        Ok(self.board.read_counter())
    }

    fn set_button_timed(&mut self, button: ButtonId, pressed: bool) -> Result<Option<EdgeWindow>, TargetError> {
        self.set_button(button, pressed)?;
        Ok(self.board.edge_window())
    }

    /// The fake's one clock: the board's time is the machine's.
    fn machine_time_us(&mut self) -> Result<Option<u64>, TargetError> {
        Ok(self.board.config.capabilities.lockstep.then_some(self.board.now_us))
    }

    fn step(&mut self, plan: &StepPlan, timeout: Duration) -> Result<Option<Stop>, TargetError> {
        let _ = timeout;
        if !self.board.config.capabilities.lockstep {
            return Err(FakeTarget::memory_error("this fake does not run in lockstep".to_string()));
        }
        self.enter()?;
        let index = self.steps;
        self.steps = self.steps.saturating_add(1);
        let steps = self.board.config.steps;
        if let Some((_, host)) = steps.stall.filter(|(at, _)| *at == index) {
            std::thread::sleep(host);
            return Ok(None);
        }
        let tick_us = steps.tick_us.max(1);
        let per_call = self.board.config.us_per_call.max(1);
        let slice_end = self.board.now_us.saturating_add(steps.slice_us);
        loop {
            // A tick is a stop at its boundary, before the firmware runs on.
            let ticks = self.board.now_us / tick_us - self.last_stop_us / tick_us;
            if plan.tick && ticks > 0 {
                self.last_stop_us = self.board.now_us;
                return Ok(Some(Stop::Tick { ticks: u32::try_from(ticks).unwrap_or(u32::MAX) }));
            }
            if self.board.now_us >= slice_end {
                return Ok(None);
            }
            let written = self.board.up_offsets().0;
            self.board.advance_us(per_call);
            if let Some(hook) = self.firmware.as_mut() {
                hook(&mut self.board);
            }
            if plan.watch.is_some() && self.board.up_offsets().0 != written {
                // Ticks count from the record's instant: the ones the clock
                // moves over here are stops to come, as QEMU's handler runs
                // at each of them once the VM goes on.
                self.last_stop_us = self.board.now_us;
                if let Some(moved) = steps.record_stop_ticks {
                    self.board.now_us = (self.board.now_us / tick_us).saturating_add(moved).saturating_mul(tick_us);
                }
                return Ok(Some(Stop::Written));
            }
        }
    }

    fn describe(&self) -> String {
        let config = &self.board.config;
        format!(
            "in-memory fake target ({} KiB RAM at {:#010x}, up {} B, down {} B)",
            self.board.ram.len() / 1024,
            config.ram_base,
            config.up_size,
            config.down_size
        )
    }
}

/// A loadable segment of a [`fake_image`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageSegment {
    pub address: u32,
    /// Bytes in the file (0: RAM the image only reserves).
    pub file_size: u32,
    pub memory_size: u32,
}

/// A minimal 32-bit little-endian Arm ELF executable: the given loadable
/// segments (zero-filled) and global absolute symbols, and nothing else.
/// Enough for the harness's image check and RTT lookup, so the probe path
/// can be tested with images made to fit (or not fit) a board profile.
pub fn fake_image(segments: &[ImageSegment], symbols: &[(&str, u32)]) -> Vec<u8> {
    let sized: Vec<(&str, u32, u32)> = symbols.iter().map(|&(name, address)| (name, address, 4)).collect();
    fake_image_sized(segments, &sized)
}

/// [`fake_image`] with each symbol's size in bytes: `(name, address, size)`
/// (a size of 0 is a linker symbol's, such as `_stack_start`).
pub fn fake_image_sized(segments: &[ImageSegment], symbols: &[(&str, u32, u32)]) -> Vec<u8> {
    const EHDR: u32 = 52;
    const PHDR: u32 = 32;
    const SHDR: u32 = 40;
    let word = |out: &mut Vec<u8>, value: u32| out.extend_from_slice(&value.to_le_bytes());
    let half = |out: &mut Vec<u8>, value: u16| out.extend_from_slice(&value.to_le_bytes());
    let phnum = u32::try_from(segments.len()).unwrap_or(0);
    let mut data_offset = EHDR + PHDR * phnum;
    let mut segment_offsets = Vec::new();
    for segment in segments {
        segment_offsets.push(data_offset);
        data_offset += segment.file_size;
    }
    let mut strtab = vec![0u8];
    let mut symtab = vec![0u8; 16];
    for (name, value, size) in symbols {
        let name_offset = u32::try_from(strtab.len()).unwrap_or(0);
        strtab.extend_from_slice(name.as_bytes());
        strtab.push(0);
        word(&mut symtab, name_offset);
        word(&mut symtab, *value);
        word(&mut symtab, *size);
        symtab.extend_from_slice(&[0x11, 0]); // GLOBAL OBJECT
        half(&mut symtab, 0xFFF1); // SHN_ABS
    }
    let shstrtab = b"\0.symtab\0.strtab\0.shstrtab\0".to_vec();
    let symtab_offset = data_offset;
    let strtab_offset = symtab_offset + u32::try_from(symtab.len()).unwrap_or(0);
    let shstrtab_offset = strtab_offset + u32::try_from(strtab.len()).unwrap_or(0);
    let shoff = (shstrtab_offset + u32::try_from(shstrtab.len()).unwrap_or(0)).div_ceil(4) * 4;

    let mut out = Vec::new();
    out.extend_from_slice(&[0x7F, b'E', b'L', b'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    half(&mut out, 2); // executable
    half(&mut out, 40); // Arm
    word(&mut out, 1);
    word(&mut out, segments.first().map_or(0, |segment| segment.address | 1));
    word(&mut out, EHDR);
    word(&mut out, shoff);
    word(&mut out, 0x0500_0000); // EABI 5
    for value in [EHDR, PHDR, phnum, SHDR, 4, 3] {
        half(&mut out, u16::try_from(value).unwrap_or(0));
    }
    for (segment, offset) in segments.iter().zip(&segment_offsets) {
        for value in [1, *offset, segment.address, segment.address, segment.file_size, segment.memory_size, 6, 4] {
            word(&mut out, value);
        }
    }
    for segment in segments {
        out.resize(out.len() + segment.file_size as usize, 0);
    }
    out.extend_from_slice(&symtab);
    out.extend_from_slice(&strtab);
    out.extend_from_slice(&shstrtab);
    out.resize(shoff as usize, 0);
    let sizes = [symtab.len(), strtab.len(), shstrtab.len()].map(|len| u32::try_from(len).unwrap_or(0));
    let sections: [[u32; 10]; 4] = [
        [0; 10],
        [1, 2, 0, 0, symtab_offset, sizes[0], 2, 1, 4, 16],
        [9, 3, 0, 0, strtab_offset, sizes[1], 0, 0, 1, 0],
        [17, 3, 0, 0, shstrtab_offset, sizes[2], 0, 0, 1, 0],
    ];
    for section in sections {
        for value in section {
            word(&mut out, value);
        }
    }
    out
}

/// The contract's Button for a [`ButtonId`] (for hooks that emit Press records).
pub fn contract_button(button: ButtonId) -> Button {
    match button {
        ButtonId::White => Button::White,
        ButtonId::Black => Button::Black,
        ButtonId::Pause => Button::Pause,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_contract::{Press, PressResult};

    #[test]
    fn the_control_block_is_laid_out_as_the_contract_says() {
        let fake = FakeTarget::with_config(FakeConfig { extra_channels: 1, ..FakeConfig::default() });
        let board = fake.board();
        let cb = board.control_block();
        let mut header = [0u8; 24];
        board.peek(cb, &mut header).unwrap();
        assert_eq!(&header[..16], b"SEGGER RTT\0\0\0\0\0\0");
        assert_eq!(i32::from_le_bytes(header[16..20].try_into().unwrap()), 2);
        assert_eq!(i32::from_le_bytes(header[20..24].try_into().unwrap()), 2);
        // up[1] is `bench`, down[1] is `bench-ctl`: descriptors at 24 + 24·1 and 24 + 24·(2 + 1).
        let up = board.descriptor(cb + 48);
        let down = board.descriptor(cb + 96);
        let mut name = [0u8; 10];
        board.peek(up.name_addr, &mut name[..6]).unwrap();
        assert_eq!(&name[..6], b"bench\0");
        board.peek(down.name_addr, &mut name).unwrap();
        assert_eq!(&name, b"bench-ctl\0");
        assert_eq!((up.size, up.write, up.read, up.mode()), (4096, 0, 0, 0));
        assert_eq!((down.size, down.write, down.read), (128, 0, 0));
        assert!(up.buffer_addr + up.size <= down.buffer_addr);
    }

    #[test]
    fn memory_outside_ram_is_an_error() {
        let mut fake = FakeTarget::new();
        let mut buffer = [0u8; 4];
        let error = fake.read_memory(0x1FFF_FFFE, &mut buffer).unwrap_err();
        assert!(error.to_string().contains("no memory at 0x1ffffffe"), "{error}");
        let end = RAM_BASE + 64 * 1024;
        assert!(fake.read_memory(end - 4, &mut buffer).is_ok());
        assert!(fake.read_memory(end - 3, &mut buffer).is_err());
        assert!(fake.write_memory(u32::MAX, &[1, 2]).is_err());
    }

    #[test]
    fn button_edges_are_logged_on_the_fakes_clock() {
        let mut fake = FakeTarget::with_config(FakeConfig { us_per_call: 250, ..FakeConfig::default() });
        fake.set_button(ButtonId::White, true).unwrap();
        fake.set_button(ButtonId::White, false).unwrap();
        fake.board_mut().advance_us(10_000);
        fake.halt().unwrap();
        fake.set_button(ButtonId::Black, true).unwrap(); // halted: the clock stands
        let log = fake.board().button_log();
        assert_eq!(
            log.iter().map(|edge| (edge.at_us, edge.button, edge.pressed, edge.running)).collect::<Vec<_>>(),
            [
                (250, ButtonId::White, true, true),
                (500, ButtonId::White, false, true),
                (10_750, ButtonId::Black, true, false),
            ]
        );
        assert_eq!(fake.board_mut().button_edges().len(), 3);
        assert_eq!(fake.board_mut().button_edges().len(), 0);
    }

    #[test]
    fn a_firmware_hook_turns_edges_into_press_records() {
        let mut fake = FakeTarget::with_config(FakeConfig { us_per_call: 100, ..FakeConfig::default() });
        fake.set_firmware(|board| {
            for edge in board.button_edges() {
                if edge.pressed {
                    let press = Press {
                        button: contract_button(edge.button),
                        result: PressResult::Accepted,
                        bounces: 0,
                        moves: 1,
                        remaining_us: 0,
                        handled_at_us: board.now_us(),
                        edge_hw_counter: 0,
                    };
                    board.emit(edge.at_us, Body::Press(press));
                }
            }
        });
        fake.set_button(ButtonId::Black, true).unwrap();
        let mut buffer = [0u8; 48];
        fake.read_memory(fake.board().up_buffer, &mut buffer).unwrap();
        let record = Record::decode(&buffer).unwrap();
        assert_eq!(record.at_us, 100);
        assert!(matches!(record.body, Body::Press(Press { button: Button::Black, handled_at_us: 200, .. })));
    }

    #[test]
    fn injected_faults_start_after_the_given_calls_and_stay() {
        let mut fake = FakeTarget::new();
        fake.fail_after(1, Fault::Disconnect);
        let mut buffer = [0u8; 4];
        fake.read_memory(RAM_BASE, &mut buffer).unwrap();
        for _ in 0..3 {
            let error = fake.read_memory(RAM_BASE, &mut buffer).unwrap_err();
            assert!(matches!(error, TargetError::Disconnected { .. }), "{error}");
        }
        assert!(matches!(fake.set_button(ButtonId::White, true), Err(TargetError::Disconnected { .. })));
        fake.clear_fault();
        fake.read_memory(RAM_BASE, &mut buffer).unwrap();
        fake.fail_after(0, Fault::Timeout);
        assert!(matches!(fake.halt(), Err(TargetError::Timeout { .. })));
    }

    #[test]
    fn the_down_ring_gives_lines_as_the_firmware_reads_them() {
        let mut fake = FakeTarget::new();
        let (_, read) = fake.board().down_offsets();
        let buffer = fake.board().down_buffer;
        let descriptor = fake.board().down_descriptor;
        fake.write_memory(buffer, b"tc 60\nsta").unwrap();
        fake.write_memory(descriptor + 12, &9u32.to_le_bytes()).unwrap();
        assert_eq!(read, 0);
        assert_eq!(fake.board_mut().take_lines(), [DownLine::Line("tc 60".to_string())]);
        fake.write_memory(buffer + 9, b"rt\r\n").unwrap();
        fake.write_memory(descriptor + 12, &13u32.to_le_bytes()).unwrap();
        assert_eq!(fake.board_mut().take_lines(), [DownLine::Line("start".to_string())]);
        assert_eq!(fake.board().down_offsets(), (13, 13));
    }

    #[test]
    fn a_fake_image_is_an_arm_elf_with_its_segments_and_symbols() {
        use object::{Object, ObjectSegment, ObjectSymbol};
        let segments = [
            ImageSegment { address: 0x0800_0000, file_size: 0x400, memory_size: 0x400 },
            ImageSegment { address: 0x2000_0000, file_size: 0, memory_size: 0x2000 },
        ];
        let bytes = fake_image(&segments, &[("_SEGGER_RTT", 0x2000_0200), ("main", 0x0800_0101)]);
        let file = object::File::parse(bytes.as_slice()).expect("an ELF");
        assert_eq!(file.architecture(), object::Architecture::Arm);
        assert!(!file.is_64() && file.is_little_endian());
        let loaded: Vec<(u64, u64, u64)> =
            file.segments().map(|segment| (segment.address(), segment.size(), segment.file_range().1)).collect();
        assert_eq!(loaded, [(0x0800_0000, 0x400, 0x400), (0x2000_0000, 0x2000, 0)]);
        let symbol = file.symbols().find(|symbol| symbol.name() == Ok("_SEGGER_RTT")).expect("the RTT symbol");
        assert_eq!(symbol.address(), 0x2000_0200);
    }

    #[test]
    fn load_halts_and_reset_reboots_with_a_hello() {
        let mut fake = FakeTarget::new();
        fake.load(Path::new("/images/normal.elf")).unwrap();
        assert!(!fake.is_running());
        assert_eq!(fake.loaded(), Some(Path::new("/images/normal.elf")));
        fake.board_mut().advance_us(5);
        fake.reset_and_run().unwrap();
        assert!(fake.is_running());
        assert_eq!(fake.board().now_us(), 0);
        assert_eq!(fake.board().up_pending(), 2 * 48, "Hello and Capabilities");
        assert!(fake.describe().contains("fake"));
    }
}
