//! The `observed` build: the reference clock with no contract code at all,
//! as most clocks ship. No RTT, no records, no commands: it plays one time
//! control from boot, White's clock starting at Black's first press (6.5),
//! and keeps what its displays show in `CLOCK_STATE`, a plain struct in RAM
//! like any clock's display state. `bench hil --observe firmware/observed.toml`
//! reads it through the debugger (`hil/src/observe.rs`).
//!
//! Its own binary (`bench-firmware-lm3s6965-observed`, built by
//! `scripts/build-firmware observed`), from the same board, button and game
//! modules as the reference image, which it leaves untouched.
#![no_std]
#![no_main]

mod board;

use bench_firmware_common::{buttons, defects, game, interrupts, time_base};
use board::Lm3s6965;

use bench_contract::{Body, Button};
use bench_firmware_game::{Game, Outputs};
use chessclock::Instant;
use cortex_m_rt::{entry, exception};
// Nothing here panics by design; see main.rs.
use panic_halt as _;

/// The control this build plays (`firmware/observed.toml` says so too):
/// short, because observe mode on the emulator stops at every tick.
const CONTROL: &[u8] = b"tc 5+1";

/// What the displays show, where `firmware/observed.toml` says.
#[repr(C)]
pub struct ClockState {
    /// Each display in whole milliseconds, as a 1 kHz clock counts.
    remaining_white_ms: u32,
    remaining_black_ms: u32,
    /// 1: White's clock runs, 2: Black's, 0: neither.
    running: u8,
    flag_white: u8,
    flag_black: u8,
    reserved: u8,
    moves_white: u16,
    moves_black: u16,
}

/// Read by the debugger only; written by the main loop only.
#[no_mangle]
static mut CLOCK_STATE: ClockState = ClockState {
    remaining_white_ms: 0,
    remaining_black_ms: 0,
    running: 0,
    flag_white: 0,
    flag_black: 0,
    reserved: 0,
    moves_white: 0,
    moves_black: 0,
};

/// The game's outputs: a snapshot becomes the display state; every other
/// record is dropped, as there is nobody to send it to.
struct Display;

impl Outputs for Display {
    fn emit(&mut self, _at_us: u64, body: Body) {
        let Body::Snapshot(snapshot) = body else { return };
        let ms = |us: u64| u32::try_from(us / 1_000).unwrap_or(u32::MAX);
        let state = ClockState {
            remaining_white_ms: ms(snapshot.remaining_white_us),
            remaining_black_ms: ms(snapshot.remaining_black_us),
            running: match (snapshot.phase, snapshot.side) {
                (bench_contract::Phase::Running, Some(bench_contract::Side::White)) => 1,
                (bench_contract::Phase::Running, Some(bench_contract::Side::Black)) => 2,
                _ => 0,
            },
            flag_white: u8::from(snapshot.flag_white),
            flag_black: u8::from(snapshot.flag_black),
            reserved: 0,
            moves_white: u16::try_from(snapshot.moves_white).unwrap_or(u16::MAX),
            moves_black: u16::try_from(snapshot.moves_black).unwrap_or(u16::MAX),
        };
        // SAFETY: only the main loop writes it, and nothing in the firmware
        // reads it; volatile, so the debugger sees every write.
        unsafe { core::ptr::write_volatile(core::ptr::addr_of_mut!(CLOCK_STATE), state) };
    }

    fn arm_buttons(&mut self, armed: bool) {
        buttons::arm(armed);
    }
}

#[entry]
fn main() -> ! {
    // SAFETY: `main` runs once and is the only code that uses the core
    // peripherals' owning handles.
    let mut core = unsafe { cortex_m::Peripherals::steal() };
    <Lm3s6965 as bench_firmware_common::Board>::init(&mut core.SYST);
    let mut game = Game::new(defects::RULES);
    let mut display = Display;
    game.command(Ok(CONTROL), Instant::from_us(time_base::now_us::<Lm3s6965>()), &mut display);
    // Armed from boot: Black's first press starts the game.
    buttons::arm(true);
    let mut started = false;
    loop {
        let now = Instant::from_us(time_base::now_us::<Lm3s6965>());
        for _ in 0..buttons::QUEUE_CAPACITY {
            let Some(edge) = buttons::take() else { break };
            let edge = game::placed(edge);
            if !started {
                // 6.5: the player with the black pieces starts White's clock.
                if edge.button == Button::Black {
                    game.command(Ok(b"start"), edge.at, &mut display);
                    started = true;
                }
                continue;
            }
            game.press(edge, Instant::from_us(time_base::now_us::<Lm3s6965>()), &mut display);
        }
        game.advance(now, &mut display);
        game.snapshot(now, &mut display);
    }
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    interrupts::on_device_interrupt::<Lm3s6965>(irqn);
}
