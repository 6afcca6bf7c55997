//! The bench channels over RTT (contract version 1, `hil/CONTRACT.md`).
//!
//! The control block is `rtt-target`'s: it follows the SEGGER layout, is
//! exported as `_SEGGER_RTT`, and lets a channel carry raw bytes with a name
//! and a mode. The up-channel `bench` is in `NoBlockSkip` mode: a record
//! that does not fit whole is not written at all, so the stream never holds
//! half a record and the firmware never waits for the host. Dropped records
//! still take a sequence number and are counted.

use bench_contract::{Body, LineBuffer, LineEvent, Record, COMMAND_LINE_MAX, RECORD_SIZE};
use bench_firmware_game::Outputs;
use core::marker::PhantomData;

use rtt_target::{rtt_init, ChannelMode, DownChannel, UpChannel};

use crate::{buttons, Board};

/// Up buffer: 341 records, about 30 s of the reference firmware's traffic
/// (11 records a second). On QEMU, whose guest runs about 14 times faster
/// than real time, that is 2 s of host time between two reads before a
/// record is dropped: 4 KiB (0.6 s) lost records once while the host was
/// busy building. 16 KiB of the 64 KiB (lm3s6965) or 96 KiB (F401) RAM.
pub const UP_BUFFER_BYTES: usize = 16 * 1024;
/// Down buffer: one longest command line and then some.
pub const DOWN_BUFFER_BYTES: usize = 128;
const _: () = assert!(UP_BUFFER_BYTES >= bench_contract::UP_BUFFER_MIN);
const _: () = assert!(DOWN_BUFFER_BYTES >= bench_contract::DOWN_BUFFER_MIN);

/// Bytes taken from the down buffer per call of [`Channel::next_line`]:
/// the whole buffer, so one call sees everything the host wrote.
const DOWN_BYTES_PER_CALL_MAX: usize = DOWN_BUFFER_BYTES;

/// `rtt_init!` takes names as literals; these must be the contract's.
const UP_NAME: &str = "bench";
const DOWN_NAME: &str = "bench-ctl";
const _: () = assert!(same(UP_NAME, bench_contract::UP_CHANNEL));
const _: () = assert!(same(DOWN_NAME, bench_contract::DOWN_CHANNEL));

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut index = 0;
    while index < a.len() {
        if a[index] != b[index] {
            return false;
        }
        index += 1;
    }
    true
}

/// A complete line from the down-channel.
pub enum Line {
    /// The line's bytes are the first `len` bytes of the caller's buffer.
    Complete {
        len: usize,
    },
    TooLong,
}

/// The channels of the firmware on board `B` (whose flag LED shows a flag).
pub struct Channel<B> {
    up: UpChannel,
    down: DownChannel,
    seq: u32,
    dropped_total: u32,
    lines: LineBuffer,
    board: PhantomData<B>,
}

impl<B: Board> Channel<B> {
    /// Sets up the control block and both channels. Call once.
    pub fn init() -> Channel<B> {
        let channels = rtt_init! {
            up: {
                0: { size: UP_BUFFER_BYTES, mode: ChannelMode::NoBlockSkip, name: "bench" }
            }
            down: {
                0: { size: DOWN_BUFFER_BYTES, name: "bench-ctl" }
            }
        };
        Channel {
            up: channels.up.0,
            down: channels.down.0,
            seq: 0,
            dropped_total: 0,
            lines: LineBuffer::new(),
            board: PhantomData,
        }
    }

    /// The next complete command line, copied into `out`, if the host has
    /// written one.
    pub fn next_line(&mut self, out: &mut [u8; COMMAND_LINE_MAX + 1]) -> Option<Line> {
        for _ in 0..DOWN_BYTES_PER_CALL_MAX {
            let mut byte = [0u8; 1];
            if self.down.read(&mut byte) == 0 {
                return None;
            }
            match self.lines.feed(byte[0]) {
                None => {}
                Some(LineEvent::TooLong) => return Some(Line::TooLong),
                Some(LineEvent::Line(line)) => {
                    let len = line.len().min(out.len());
                    if let (Some(target), Some(source)) = (out.get_mut(..len), line.get(..len)) {
                        target.copy_from_slice(source);
                    }
                    return Some(Line::Complete { len });
                }
            }
        }
        None
    }

    /// Sends one record about instant `at_us`; never blocks.
    pub fn emit(&mut self, at_us: u64, body: Body) {
        let dropped = u16::try_from(self.dropped_total).unwrap_or(u16::MAX);
        let record = Record::new(self.seq, dropped, at_us, body);
        self.seq = self.seq.wrapping_add(1);
        if self.up.write(&record.encode()) != RECORD_SIZE {
            self.dropped_total = self.dropped_total.saturating_add(1);
        }
    }

    /// Records dropped since boot because the up buffer was full.
    pub fn dropped_total(&self) -> u32 {
        self.dropped_total
    }
}

/// The game's records go up the channel; its buttons are armed on the
/// board, whose flag LED lights with a flag and goes out when a game starts.
impl<B: Board> Outputs for Channel<B> {
    fn emit(&mut self, at_us: u64, body: Body) {
        if let Body::Flag(_) = body {
            B::set_flag_led(true);
        }
        Channel::emit(self, at_us, body);
    }

    fn arm_buttons(&mut self, armed: bool) {
        if armed {
            B::set_flag_led(false);
        }
        buttons::arm(armed);
    }
}
