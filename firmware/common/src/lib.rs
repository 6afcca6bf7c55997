//! What bench's reference chess-clock firmware is on every board.
//!
//! It runs the clock core (`chessclock`) on the board's time base and
//! implements the bench contract (`hil/CONTRACT.md`, crate `bench-contract`):
//! buttons in, records out over the RTT up-channel `bench`, commands in over
//! the down-channel `bench-ctl`. One image plays every scenario: the host
//! writes the time control and starts the game.
//!
//! ```text
//!   SysTick (1 kHz) ──► time_base::now_us ◄── button edge IRQ ──► buttons (debounce, queue)
//!                              │                                       │
//!   RTT bench-ctl ──► Game::command     Game::press ◄──────────────────┘
//!                              │                │
//!                    Game::advance (deadlines from chessclock::Clock)
//!                              │
//!                      RTT bench (records) ◄── time-base samples (hardware counter edges)
//! ```
//!
//! A board crate (`firmware/boards/NAME/`) implements [`Board`] and wires it
//! in: its `main` calls [`run`], its `DefaultHandler` [`interrupts::on_device_interrupt`].
//! The game logic is crate `bench-firmware-game` (`firmware/game/`, through
//! `game.rs`), the SysTick clock every board shares `time_base.rs`, the
//! defect builds `defects.rs`.
#![no_std]

mod board;
pub mod buttons;
mod channel;
pub mod defects;
pub mod game;
pub mod interrupts;
pub mod time_base;

pub use board::{Board, CounterEdge};

use bench_contract::{Body, Hello, TimeBase, BUTTONS_PAUSE, COMMAND_LINE_MAX, CONTRACT_VERSION, RECORD_SIZE};
use chessclock::Instant;

use bench_firmware_game::{Game, CAPABILITIES};
use channel::{Channel, Line};

/// Snapshots of both displays while a game is set up, besides those sent
/// after every event.
const SNAPSHOT_INTERVAL_US: u64 = 100_000;
/// Command lines handled per turn of the main loop.
const LINES_PER_TURN_MAX: u32 = 4;

const FIRMWARE_NAME: [u8; 8] = *b"benchref";
const FIRMWARE_VERSION: u32 = 1;

/// The firmware on board `B`: set up the board and the channels, then the
/// main loop. Call once, from the board crate's `main`. Inlined there and
/// its small non-generic helpers `#[inline]`: the code is the one it was as
/// a single crate, so the board crates change no instruction of the QEMU image.
#[inline(always)]
pub fn run<B: Board>() -> ! {
    // SAFETY: `run` runs once, from `main`, and is the only code that uses
    // the core peripherals' owning handles.
    let mut core = unsafe { cortex_m::Peripherals::steal() };
    B::init(&mut core.SYST);
    let mut channel = Channel::<B>::init();
    let mut game = Game::new(defects::RULES);

    channel.emit(
        time_base::now_us::<B>(),
        Body::Hello(Hello {
            contract_version: CONTRACT_VERSION,
            record_size: RECORD_SIZE as u16,
            tick_us: time_base::TICK_US,
            hw_counter_hz: B::HW_COUNTER_HZ,
            hw_counter_bits: B::HW_COUNTER_BITS,
            buttons: BUTTONS_PAUSE,
            debounce_us: buttons::DEBOUNCE_US as u32,
            firmware_version: FIRMWARE_VERSION,
            firmware_name: FIRMWARE_NAME,
        }),
    );
    channel.emit(time_base::now_us::<B>(), Body::Capabilities(CAPABILITIES));
    emit_time_base(&mut channel, B::hw_counter(), time_base::now_us::<B>(), false);
    let mut next_snapshot_us = SNAPSHOT_INTERVAL_US;
    let mut next_refresh_us = defects::LOST_TICKS_REFRESH_INTERVAL_US;
    let mut line = [0u8; COMMAND_LINE_MAX + 1];

    // The one loop that runs forever: the firmware's main loop. Each turn
    // does a bounded amount of work: at most LINES_PER_TURN_MAX commands,
    // QUEUE_CAPACITY presses, TRANSITIONS_PER_ADVANCE_MAX deadlines.
    //
    // It polls and never sleeps. On a real board a `wfi()` at the top of the
    // turn saves power; under QEMU 7.2 with `-icount …,sleep=off` (the
    // deterministic mode bench runs in) a core sleeping in WFI loses every
    // other SysTick interrupt, and without icount the host's scheduling
    // loses ticks too (measurements in SMOKE.md).
    loop {
        // One instant for the turn. Presses stamped after it (their
        // interrupt came during the turn) are later than it, so the clock is
        // never settled past a press still in the queue.
        let now = Instant::from_us(time_base::now_us::<B>());

        for _ in 0..LINES_PER_TURN_MAX {
            let Some(event) = channel.next_line(&mut line) else { break };
            let text = match event {
                Line::Complete { len } => Ok(line.get(..len).unwrap_or_default()),
                Line::TooLong => Err(()),
            };
            game.command(text, now, &mut channel);
        }

        for _ in 0..buttons::QUEUE_CAPACITY {
            let Some(edge) = buttons::take() else { break };
            game.press(game::placed(edge), Instant::from_us(time_base::now_us::<B>()), &mut channel);
        }

        game.advance(now, &mut channel);

        if now.as_us() >= next_snapshot_us {
            game.snapshot(now, &mut channel);
            next_snapshot_us = next_due(next_snapshot_us, now.as_us(), SNAPSHOT_INTERVAL_US);
        }

        if let Some(edge) = B::take_counter_edge() {
            emit_time_base(&mut channel, edge.counter, edge.at_us, true);
        }

        if defects::LOST_TICKS && now.as_us() >= next_refresh_us {
            // The defect: a display refresh with interrupts masked for
            // three ticks.
            time_base::spin_with_interrupts_masked(defects::LOST_TICKS_MASKED_WRAPS, defects::LOST_TICKS_SPINS_MAX);
            next_refresh_us = next_due(next_refresh_us, now.as_us(), defects::LOST_TICKS_REFRESH_INTERVAL_US);
        }
    }
}

/// A time-base record: `counter` paired with the firmware clock `at_us`.
fn emit_time_base<B: Board>(channel: &mut Channel<B>, counter: u32, at_us: u64, edge: bool) {
    let sample = TimeBase {
        hw_counter: u64::from(counter),
        ticks: time_base::ticks(),
        edge,
        dropped_total: channel.dropped_total(),
    };
    channel.emit(at_us, Body::TimeBase(sample));
}

/// The next time a periodic job is due: one interval after the last due
/// time, or after `now` if the loop fell more than an interval behind.
fn next_due(due_us: u64, now_us: u64, interval_us: u64) -> u64 {
    let next = due_us.saturating_add(interval_us);
    if next > now_us {
        next
    } else {
        now_us.saturating_add(interval_us)
    }
}
