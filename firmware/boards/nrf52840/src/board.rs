//! The board: Nordic nRF52840 DK (PCA10056, nRF52840, Cortex-M4F), built by
//! `scripts/build-firmware --board nrf52840-dk`. The harness's profile is
//! `hil/boards/nrf52840-dk.toml`.
//!
//! - **Clock:** the 64 MHz core clock out of reset (HFINT, the chip's own
//!   RC oscillator: the bench's oscillator-drift fit has something to
//!   measure, as on the NUCLEO's HSI).
//! - **Time base:** SysTick on the core clock, one interrupt per
//!   millisecond; the firmware clock as on the other boards.
//! - **Free-running counter:** DWT CYCCNT, 64 MHz, 32 bits.
//! - **Buttons:** BUTTON1 (P0.11) left, BUTTON2 (P0.12) right, BUTTON3
//!   (P0.24) pause; inputs with pull-ups, active low, falling-edge events on
//!   GPIOTE channels 0, 1 and 2 (one interrupt, GPIOTE). The harness drives
//!   them through jumpers from P1.01, P1.02 and P1.03 (`bench hil --board
//!   nrf52840-dk --wiring`).
//! - **Flag LED:** LED1 (P0.13), lit when driven low.
//!
//! Registers are written through raw volatile pointers at the addresses of
//! the nRF52840 product specification; only what this firmware uses is here.

use core::cell::Cell;
use core::ptr::{read_volatile, write_volatile};

use bench_firmware_common::{time_base, Board, CounterEdge};
use cortex_m::interrupt::{self, InterruptNumber, Mutex};
use cortex_m::peripheral::{NVIC, SYST};

/// The nRF52840 DK.
pub struct Nrf52840Dk;

/// Core clock: 64 MHz, the only rate the nRF52840's CPU runs at.
const SYSCLK_HZ: u32 = 64_000_000;

// GPIO port P0.
const P0: usize = 0x5000_0000;
const GPIO_OUTSET: usize = 0x508;
const GPIO_OUTCLR: usize = 0x50C;
const fn pin_cnf(pin: u32) -> usize {
    0x700 + 4 * pin as usize
}
/// PIN_CNF: input, input buffer connected, pull-up.
const PIN_CNF_INPUT_PULL_UP: u32 = 0b11 << 2;
/// PIN_CNF: output, input buffer disconnected.
const PIN_CNF_OUTPUT: u32 = 0b11;

// GPIOTE: one channel per button, an event on the falling edge.
const GPIOTE: usize = 0x4000_6000;
const fn gpiote_events_in(channel: usize) -> usize {
    0x100 + 4 * channel
}
const fn gpiote_config(channel: usize) -> usize {
    0x510 + 4 * channel
}
const GPIOTE_INTENSET: usize = 0x304;
const GPIOTE_MODE_EVENT: u32 = 1;
const GPIOTE_POLARITY_HI_TO_LO: u32 = 2 << 16;

// DWT cycle counter.
const DEMCR: usize = 0xE000_EDFC;
const DEMCR_TRCENA: u32 = 1 << 24;
const DWT_CTRL: usize = 0xE000_1000;
const DWT_CYCCNT: usize = 0xE000_1004;
const DWT_CTRL_CYCCNTENA: u32 = 1 << 0;

/// P0 pins of the three buttons (profile: P0.11, P0.12, P0.24), in GPIOTE
/// channel order.
const BUTTON_PINS: [u32; 3] = [11, 12, 24];
const PIN_LEFT: u32 = 1 << 11;
const PIN_RIGHT: u32 = 1 << 12;
const PIN_PAUSE: u32 = 1 << 24;
/// LED1: P0.13, lit when low.
const PIN_LED: u32 = 13;

/// The device interrupt this firmware uses (nRF52840 peripheral id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Irq {
    Gpiote = 6,
}

// SAFETY: 6 is GPIOTE's interrupt number (nRF52840 product specification,
// instantiation table), below its 48 interrupts.
unsafe impl InterruptNumber for Irq {
    fn number(self) -> u16 {
        self as u16
    }
}

fn read(address: usize) -> u32 {
    // SAFETY: every address passed here is a 4-byte-aligned nRF52840 or
    // Cortex-M4 register listed above.
    unsafe { read_volatile(address as *const u32) }
}

fn write(address: usize, value: u32) {
    // SAFETY: as for `read`.
    unsafe { write_volatile(address as *mut u32, value) }
}

impl Board for Nrf52840Dk {
    const SYSCLK_HZ: u32 = SYSCLK_HZ;
    /// DWT CYCCNT, on the core clock.
    const HW_COUNTER_HZ: u32 = SYSCLK_HZ;
    const HW_COUNTER_BITS: u8 = 32;
    const PIN_LEFT: u32 = PIN_LEFT;
    const PIN_RIGHT: u32 = PIN_RIGHT;
    const PIN_PAUSE: u32 = PIN_PAUSE;

    fn init(syst: &mut SYST) {
        // Free-running counter: DWT CYCCNT.
        write(DEMCR, read(DEMCR) | DEMCR_TRCENA);
        write(DWT_CYCCNT, 0);
        write(DWT_CTRL, read(DWT_CTRL) | DWT_CTRL_CYCCNTENA);

        // Flag LED off (high), then an output.
        write(P0 + GPIO_OUTSET, 1 << PIN_LED);
        write(P0 + pin_cnf(PIN_LED), PIN_CNF_OUTPUT);

        // Buttons: inputs with pull-ups, a falling-edge event each.
        for (channel, pin) in BUTTON_PINS.iter().enumerate() {
            write(P0 + pin_cnf(*pin), PIN_CNF_INPUT_PULL_UP);
            write(GPIOTE + gpiote_config(channel), GPIOTE_MODE_EVENT | (pin << 8) | GPIOTE_POLARITY_HI_TO_LO);
            write(GPIOTE + gpiote_events_in(channel), 0);
            write(GPIOTE + GPIOTE_INTENSET, 1 << channel);
        }

        // Time base.
        time_base::start::<Nrf52840Dk>(syst);

        NVIC::unpend(Irq::Gpiote);
        // SAFETY: the GPIOTE handler only touches the button state, which is
        // behind a critical section.
        unsafe { NVIC::unmask(Irq::Gpiote) };
    }

    /// The free-running counter: DWT CYCCNT.
    fn hw_counter() -> u32 {
        read(DWT_CYCCNT)
    }

    /// The counter read when it changed since the last call, stamped now (a
    /// cycle counter changes at every read: one sample per main-loop turn).
    fn take_counter_edge() -> Option<CounterEdge> {
        static LAST: Mutex<Cell<Option<u32>>> = Mutex::new(Cell::new(None));
        let counter = Self::hw_counter();
        let at_us = time_base::now_us::<Nrf52840Dk>();
        let changed = interrupt::free(|cs| LAST.borrow(cs).replace(Some(counter)) != Some(counter));
        changed.then_some(CounterEdge { counter, at_us })
    }

    fn is_button_irq(irqn: i16) -> bool {
        irqn == Irq::Gpiote as i16
    }

    /// No device interrupt drives the counter here.
    fn is_counter_irq(_irqn: i16) -> bool {
        false
    }

    /// Never called: see [`Board::is_counter_irq`].
    fn on_counter_interrupt() {}

    /// Which button pins had a falling edge since the last call (clears
    /// their events).
    fn take_button_edges() -> u32 {
        let mut edges = 0;
        for (channel, pin) in BUTTON_PINS.iter().enumerate() {
            if read(GPIOTE + gpiote_events_in(channel)) != 0 {
                write(GPIOTE + gpiote_events_in(channel), 0);
                edges |= 1 << pin;
            }
        }
        // Read an event back: the write has reached GPIOTE before the
        // handler returns, or the interrupt would fire again at once.
        let _ = read(GPIOTE + gpiote_events_in(0));
        edges
    }

    fn set_flag_led(lit: bool) {
        // Active low.
        let register = if lit { GPIO_OUTCLR } else { GPIO_OUTSET };
        write(P0 + register, 1 << PIN_LED);
    }
}
