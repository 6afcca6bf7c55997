//! The board: Raspberry Pi Pico (RP2040, dual Cortex-M0+; the firmware runs
//! on core 0), built by `scripts/build-firmware --board pico`. The harness's
//! profile is `hil/boards/pico.toml`.
//!
//! - **Clock:** the 12 MHz crystal (XOSC) through PLL_SYS (VCO 1500 MHz,
//!   /6 /2): a 125 MHz core; clk_ref on the crystal.
//! - **Time base:** SysTick on the core clock, one interrupt per
//!   millisecond; the firmware clock as on the other boards.
//! - **Free-running counter:** the Cortex-M0+ has no DWT CYCCNT, so the
//!   TIMER's raw low word (TIMERAWL), 1 MHz from the watchdog's tick
//!   generator on clk_ref, 32 bits; Hello says so (hw_counter_hz 1 000 000).
//! - **Buttons:** GP2 left, GP3 right, GP4 pause; inputs with pull-ups,
//!   active low, falling-edge interrupts (IO_IRQ_BANK0). The harness drives
//!   them through jumpers from GP10, GP11 and GP12 (`bench hil --board pico
//!   --wiring`).
//! - **Flag LED:** the on-board LED (GP25), lit when high.
//!
//! Registers are written through raw volatile pointers at the addresses of
//! the RP2040 datasheet; only what this firmware uses is here. The
//! second-stage bootloader is `main.rs`'s `BOOT2_FIRMWARE`.

use core::cell::Cell;
use core::ptr::{read_volatile, write_volatile};

use bench_firmware_common::{time_base, Board, CounterEdge};
use cortex_m::interrupt::{self, InterruptNumber, Mutex};
use cortex_m::peripheral::{NVIC, SYST};

/// The Raspberry Pi Pico.
pub struct Pico;

/// The crystal, and the core clock after `init`: 12 MHz * 125 / 6 / 2.
const XOSC_HZ: u32 = 12_000_000;
const SYSCLK_HZ: u32 = 125_000_000;
const PLL_FBDIV: u32 = 125;
const PLL_POSTDIV1: u32 = 6;
const PLL_POSTDIV2: u32 = 2;
const _: () = assert!(XOSC_HZ / 1_000_000 * PLL_FBDIV / PLL_POSTDIV1 / PLL_POSTDIV2 * 1_000_000 == SYSCLK_HZ);

// Reset controller; its "clear bits" alias releases a block from reset.
const RESETS: usize = 0x4000_C000;
const RESETS_RESET: usize = RESETS;
const RESETS_RESET_DONE: usize = RESETS + 0x08;
const ATOMIC_SET: usize = 0x2000;
const ATOMIC_CLEAR: usize = 0x3000;
const RESET_IO_BANK0: u32 = 1 << 5;
const RESET_PADS_BANK0: u32 = 1 << 8;
const RESET_PLL_SYS: u32 = 1 << 12;
const RESET_TIMER: u32 = 1 << 21;

// Crystal oscillator.
const XOSC: usize = 0x4002_4000;
const XOSC_CTRL: usize = XOSC;
const XOSC_STATUS: usize = XOSC + 0x04;
const XOSC_STARTUP: usize = XOSC + 0x0C;
/// FREQ_RANGE 1-15 MHz, ENABLE.
const XOSC_CTRL_ENABLE_1_15MHZ: u32 = (0xFAB << 12) | 0xAA0;
const XOSC_STATUS_STABLE: u32 = 1 << 31;
/// Start-up delay in units of 256 crystal cycles: about 1 ms.
const XOSC_STARTUP_DELAY: u32 = (XOSC_HZ / 1_000).div_ceil(256);

// PLL_SYS.
const PLL_SYS: usize = 0x4002_8000;
const PLL_CS: usize = PLL_SYS;
const PLL_PWR: usize = PLL_SYS + 0x04;
const PLL_FBDIV_INT: usize = PLL_SYS + 0x08;
const PLL_PRIM: usize = PLL_SYS + 0x0C;
const PLL_CS_LOCK: u32 = 1 << 31;
const PLL_PWR_PD: u32 = 1 << 0;
const PLL_PWR_POSTDIVPD: u32 = 1 << 3;
const PLL_PWR_VCOPD: u32 = 1 << 5;

// Clock generators.
const CLOCKS: usize = 0x4000_8000;
const CLK_REF_CTRL: usize = CLOCKS + 0x30;
const CLK_REF_SELECTED: usize = CLOCKS + 0x38;
const CLK_SYS_CTRL: usize = CLOCKS + 0x3C;
const CLK_SYS_SELECTED: usize = CLOCKS + 0x44;
const CLK_SYS_RESUS_CTRL: usize = CLOCKS + 0x78;
const CLK_REF_SRC_XOSC: u32 = 2;
const CLK_SYS_SRC_AUX: u32 = 1;
/// CLK_SYS_CTRL AUXSRC (bits 5-7) 0: PLL_SYS.
const CLK_SYS_AUXSRC_MASK: u32 = 0b111 << 5;

// Watchdog tick generator (the TIMER's 1 µs tick) and the TIMER.
const WATCHDOG_TICK: usize = 0x4005_8000 + 0x2C;
const WATCHDOG_TICK_ENABLE: u32 = 1 << 9;
const TIMER_TIMERAWL: usize = 0x4005_4000 + 0x28;

// GPIO: pads, function select and interrupts (bank 0), and the SIO.
const PADS_BANK0: usize = 0x4001_C000;
const PADS_PUE: u32 = 1 << 3;
const PADS_PDE: u32 = 1 << 2;
const PADS_IE: u32 = 1 << 6;
const IO_BANK0: usize = 0x4001_4000;
const IO_INTR0: usize = IO_BANK0 + 0x0F0;
const IO_PROC0_INTE0: usize = IO_BANK0 + 0x100;
const IO_PROC0_INTS0: usize = IO_BANK0 + 0x120;
const FUNCSEL_SIO: u32 = 5;
const SIO: usize = 0xD000_0000;
const SIO_GPIO_OUT_SET: usize = SIO + 0x14;
const SIO_GPIO_OUT_CLR: usize = SIO + 0x18;
const SIO_GPIO_OE_SET: usize = SIO + 0x24;

const fn pad(pin: u32) -> usize {
    PADS_BANK0 + 0x04 + 4 * pin as usize
}
const fn gpio_ctrl(pin: u32) -> usize {
    IO_BANK0 + 0x04 + 8 * pin as usize
}
/// A pin's EDGE_LOW bit in INTR0 / PROC0_INTE0 / PROC0_INTS0 (pins 0-7).
const fn edge_low(pin: u32) -> u32 {
    1 << (4 * pin + 2)
}

/// GPIO numbers of the three buttons (profile: GPIO2, GPIO3, GPIO4).
const BUTTON_PINS: [u32; 3] = [2, 3, 4];
const _: () = assert!(BUTTON_PINS[0] < 8 && BUTTON_PINS[1] < 8 && BUTTON_PINS[2] < 8, "INTR0 covers GPIO0-7");
const PIN_LEFT: u32 = 1 << 2;
const PIN_RIGHT: u32 = 1 << 3;
const PIN_PAUSE: u32 = 1 << 4;
/// The on-board LED: GP25, lit when high.
const PIN_LED: u32 = 25;

/// Longest wait for the crystal, the PLL or a clock switch.
const CLOCK_SPINS_MAX: u32 = 1_000_000;

/// The device interrupt this firmware uses (RP2040 interrupt number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Irq {
    IoBank0 = 13,
}

// SAFETY: 13 is IO_IRQ_BANK0 (RP2040 datasheet, 2.3.2), below its 26 interrupts.
unsafe impl InterruptNumber for Irq {
    fn number(self) -> u16 {
        self as u16
    }
}

fn read(address: usize) -> u32 {
    // SAFETY: every address passed here is a 4-byte-aligned RP2040 register
    // listed above.
    unsafe { read_volatile(address as *const u32) }
}

fn write(address: usize, value: u32) {
    // SAFETY: as for `read`.
    unsafe { write_volatile(address as *mut u32, value) }
}

/// Spins until `done` or `CLOCK_SPINS_MAX` turns: a crystal or PLL that
/// never starts leaves the core on the ring oscillator rather than hanging.
fn wait_for(done: impl Fn() -> bool) -> bool {
    for _ in 0..CLOCK_SPINS_MAX {
        if done() {
            return true;
        }
    }
    false
}

/// Takes `blocks` out of reset and waits until they are.
fn unreset(blocks: u32) {
    write(RESETS_RESET + ATOMIC_CLEAR, blocks);
    let _ = wait_for(|| read(RESETS_RESET_DONE) & blocks == blocks);
}

/// XOSC -> clk_ref; XOSC -> PLL_SYS (125 MHz) -> clk_sys.
fn clocks() {
    write(CLK_SYS_RESUS_CTRL, 0);
    write(XOSC_STARTUP, XOSC_STARTUP_DELAY);
    write(XOSC_CTRL, XOSC_CTRL_ENABLE_1_15MHZ);
    if !wait_for(|| read(XOSC_STATUS) & XOSC_STATUS_STABLE != 0) {
        return;
    }
    write(CLK_REF_CTRL, CLK_REF_SRC_XOSC);
    let _ = wait_for(|| read(CLK_REF_SELECTED) == 1 << CLK_REF_SRC_XOSC);

    // clk_sys off the PLL (glitchless, to clk_ref) while the PLL restarts.
    write(CLK_SYS_CTRL, read(CLK_SYS_CTRL) & !CLK_SYS_SRC_AUX);
    let _ = wait_for(|| read(CLK_SYS_SELECTED) == 1);
    write(RESETS_RESET + ATOMIC_SET, RESET_PLL_SYS);
    unreset(RESET_PLL_SYS);
    write(PLL_CS, 1); // REFDIV 1
    write(PLL_FBDIV_INT, PLL_FBDIV);
    write(PLL_PWR, read(PLL_PWR) & !(PLL_PWR_PD | PLL_PWR_VCOPD));
    if !wait_for(|| read(PLL_CS) & PLL_CS_LOCK != 0) {
        return;
    }
    write(PLL_PRIM, (PLL_POSTDIV1 << 16) | (PLL_POSTDIV2 << 12));
    write(PLL_PWR, read(PLL_PWR) & !PLL_PWR_POSTDIVPD);

    write(CLK_SYS_CTRL, read(CLK_SYS_CTRL) & !CLK_SYS_AUXSRC_MASK);
    write(CLK_SYS_CTRL, read(CLK_SYS_CTRL) | CLK_SYS_SRC_AUX);
    let _ = wait_for(|| read(CLK_SYS_SELECTED) == 1 << CLK_SYS_SRC_AUX);
}

impl Board for Pico {
    const SYSCLK_HZ: u32 = SYSCLK_HZ;
    /// TIMERAWL: 1 µs ticks.
    const HW_COUNTER_HZ: u32 = 1_000_000;
    const HW_COUNTER_BITS: u8 = 32;
    const PIN_LEFT: u32 = PIN_LEFT;
    const PIN_RIGHT: u32 = PIN_RIGHT;
    const PIN_PAUSE: u32 = PIN_PAUSE;

    fn init(syst: &mut SYST) {
        clocks();
        unreset(RESET_IO_BANK0 | RESET_PADS_BANK0 | RESET_TIMER);

        // Free-running counter: the TIMER, ticking once per 12 clk_ref cycles.
        write(WATCHDOG_TICK, (XOSC_HZ / 1_000_000) | WATCHDOG_TICK_ENABLE);

        // Flag LED: SIO output, off.
        write(gpio_ctrl(PIN_LED), FUNCSEL_SIO);
        write(SIO_GPIO_OUT_CLR, 1 << PIN_LED);
        write(SIO_GPIO_OE_SET, 1 << PIN_LED);

        // Buttons: SIO inputs, pull-ups (not the reset pull-downs),
        // falling-edge interrupts.
        for pin in BUTTON_PINS {
            write(pad(pin), (read(pad(pin)) & !PADS_PDE) | PADS_PUE | PADS_IE);
            write(gpio_ctrl(pin), FUNCSEL_SIO);
            write(IO_INTR0, edge_low(pin));
            write(IO_PROC0_INTE0, read(IO_PROC0_INTE0) | edge_low(pin));
        }

        // Time base.
        time_base::start::<Pico>(syst);

        NVIC::unpend(Irq::IoBank0);
        // SAFETY: the IO_BANK0 handler only touches the button state, which
        // is behind a critical section.
        unsafe { NVIC::unmask(Irq::IoBank0) };
    }

    /// The free-running counter: TIMERAWL (a raw read, no latching).
    fn hw_counter() -> u32 {
        read(TIMER_TIMERAWL)
    }

    /// The counter read when it changed since the last call, stamped now
    /// (at 1 MHz it changes between almost any two main-loop turns).
    fn take_counter_edge() -> Option<CounterEdge> {
        static LAST: Mutex<Cell<Option<u32>>> = Mutex::new(Cell::new(None));
        let counter = Self::hw_counter();
        let at_us = time_base::now_us::<Pico>();
        let changed = interrupt::free(|cs| LAST.borrow(cs).replace(Some(counter)) != Some(counter));
        changed.then_some(CounterEdge { counter, at_us })
    }

    fn is_button_irq(irqn: i16) -> bool {
        irqn == Irq::IoBank0 as i16
    }

    /// No device interrupt drives the counter here.
    fn is_counter_irq(_irqn: i16) -> bool {
        false
    }

    /// Never called: see [`Board::is_counter_irq`].
    fn on_counter_interrupt() {}

    /// Which button pins had a falling edge since the last call (clears them).
    fn take_button_edges() -> u32 {
        let pending = read(IO_PROC0_INTS0);
        let mut edges = 0;
        for pin in BUTTON_PINS {
            if pending & edge_low(pin) != 0 {
                write(IO_INTR0, edge_low(pin));
                edges |= 1 << pin;
            }
        }
        edges
    }

    fn set_flag_led(lit: bool) {
        let register = if lit { SIO_GPIO_OUT_SET } else { SIO_GPIO_OUT_CLR };
        write(register, 1 << PIN_LED);
    }
}
