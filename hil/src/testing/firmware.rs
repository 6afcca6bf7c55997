//! A firmware for tests: the reference firmware's game logic (crate
//! `bench-firmware-game`, the code `firmware/` runs) on the host, with its
//! rule defects as a run-time value, writing records into a vector. What
//! is here is only the board around it: the Hello and TimeBase records and
//! the periodic snapshot of the firmware's main loop. The run's tests drive
//! it through a fake board; the comparison's tests feed its records
//! straight in. Compiled for tests and with the cargo feature `fake`
//! (`crate::testing::probes`).

use bench_contract::{Body, Button, Hello, Record, TimeBase, BUTTONS_PAUSE};
pub use bench_firmware_game::Defects;
use bench_firmware_game::{Edge, Game, Outputs};
use chessclock::Instant;

use crate::testing::board::DownLine;

pub const TICK_US: u32 = 1_000;
pub const SNAPSHOT_INTERVAL_US: u64 = 100_000;

#[derive(Debug)]
pub struct FakeFirmware {
    game: Game,
    seq: u32,
    pub out: Vec<Record>,
    next_snapshot_us: u64,
}

/// The record stream: numbered records into the vector. The buttons'
/// arming is the fake board's business, so it is not modelled.
struct Stream<'a> {
    seq: &'a mut u32,
    out: &'a mut Vec<Record>,
}

impl Outputs for Stream<'_> {
    fn emit(&mut self, at_us: u64, body: Body) {
        self.out.push(Record::new(*self.seq, 0, at_us, body));
        *self.seq = self.seq.wrapping_add(1);
    }

    fn arm_buttons(&mut self, _armed: bool) {}
}

impl FakeFirmware {
    pub fn new(defects: Defects) -> FakeFirmware {
        FakeFirmware { game: Game::new(defects), seq: 0, out: Vec::new(), next_snapshot_us: 0 }
    }

    /// The game and the stream it writes to, borrowed apart.
    fn game_and_stream(&mut self) -> (&mut Game, Stream<'_>) {
        (&mut self.game, Stream { seq: &mut self.seq, out: &mut self.out })
    }

    fn emit(&mut self, at_us: u64, body: Body) {
        self.game_and_stream().1.emit(at_us, body);
    }

    pub fn boot(&mut self, at_us: u64) {
        self.emit(
            at_us,
            Body::Hello(Hello {
                contract_version: 1,
                record_size: 48,
                tick_us: TICK_US,
                hw_counter_hz: 1,
                hw_counter_bits: 32,
                buttons: BUTTONS_PAUSE,
                debounce_us: 20_000,
                firmware_version: 1,
                firmware_name: *b"fakefw\0\0",
            }),
        );
    }

    pub fn time_base(&mut self, at_us: u64, hw_counter: u64) {
        self.emit(at_us, Body::TimeBase(TimeBase { hw_counter, ticks: 0, edge: true, dropped_total: 0 }));
    }

    /// A command line at `now_us`, after a main-loop turn at that instant.
    pub fn command(&mut self, line: &str, now_us: u64) {
        // The game settles to `now` itself; this turn adds the periodic
        // snapshot, and leaves the game's own settling nothing to do.
        self.advance(now_us);
        let (game, mut stream) = self.game_and_stream();
        game.command(Ok(line.as_bytes()), Instant::from_us(now_us), &mut stream);
    }

    /// The lines a fake board took from its down ring, at `now_us`: each
    /// a command, or one longer than the contract's limit that the line
    /// buffer discarded whole.
    pub fn lines(&mut self, lines: Vec<DownLine>, now_us: u64) {
        for line in lines {
            match line {
                DownLine::Line(text) => self.command(&text, now_us),
                DownLine::TooLong => {
                    self.advance(now_us);
                    let (game, mut stream) = self.game_and_stream();
                    game.command(Err(()), Instant::from_us(now_us), &mut stream);
                }
            }
        }
    }

    /// A debounced press with its edge instant, applied at `handled_us`.
    pub fn press(&mut self, button: Button, edge_us: u64, handled_us: u64) {
        self.press_counted(button, edge_us, handled_us, 0);
    }

    /// [`FakeFirmware::press`], with the hardware counter read at the
    /// edge (contract 2).
    pub fn press_counted(&mut self, button: Button, edge_us: u64, handled_us: u64, edge_hw_counter: u64) {
        let edge = Edge { button, at: Instant::from_us(edge_us), hw_counter: edge_hw_counter, bounces: 0 };
        // A main-loop turn at the press's instant first, as for a command.
        if let Some(at) = self.game.press_instant(edge.at) {
            self.advance(at.as_us());
        }
        let (game, mut stream) = self.game_and_stream();
        game.press(edge, Instant::from_us(handled_us), &mut stream);
    }

    /// One turn of the main loop at `now_us`: deadlines, then the
    /// periodic snapshot, whose interval runs only while there is a game.
    pub fn advance(&mut self, now_us: u64) {
        if !self.game.has_game() {
            return;
        }
        let now = Instant::from_us(now_us);
        let (game, mut stream) = self.game_and_stream();
        game.advance(now, &mut stream);
        if now_us >= self.next_snapshot_us {
            let (game, mut stream) = self.game_and_stream();
            game.snapshot(now, &mut stream);
            self.next_snapshot_us = now_us + SNAPSHOT_INTERVAL_US;
        }
    }
}

/// A scripted game: `tc` at 0.6 s, `start` at 1 s, then the presses (button,
/// edge instant after the start, µs), main-loop turns every 1 ms until
/// `until_us` after the start. Returns the records.
pub fn play(defects: Defects, control: &str, presses: &[(Button, u64)], until_us: u64) -> Vec<Record> {
    let mut firmware = FakeFirmware::new(defects);
    firmware.boot(6);
    firmware.command("reset", 500_000);
    firmware.command(&format!("tc {control}"), 600_000);
    let start_us = 1_000_000;
    // The main loop turns while the game waits for its start too: a
    // Snapshot every 100 ms while a control is set (contract §3).
    for now in (601_000..start_us).step_by(1_000) {
        firmware.advance(now);
    }
    firmware.command("start", start_us);
    let mut presses = presses.iter().peekable();
    let mut now = start_us;
    while now <= start_us + until_us {
        while let Some(&&(button, offset)) = presses.peek() {
            let edge = start_us + offset;
            if edge > now {
                break;
            }
            firmware.press(button, edge, edge + 7);
            presses.next();
        }
        firmware.advance(now);
        if now % 1_000_000 == 0 {
            firmware.time_base(now + 3, now / 1_000_000);
        }
        now += 1_000;
    }
    firmware.out
}
