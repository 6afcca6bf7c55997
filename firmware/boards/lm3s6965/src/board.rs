//! The board: TI Stellaris LM3S6965 as QEMU 7.2's `lm3s6965evb` models it.
//!
//! - **Time base:** SysTick on the 12.5 MHz system clock (the reset clock:
//!   no PLL set up), one interrupt per millisecond. The firmware clock
//!   (`time_base::now_us`) is the tick count in ms plus the cycles elapsed in the
//!   current tick, read from the SysTick current value.
//! - **Free-running counter:** general-purpose timer 0, 32-bit periodic,
//!   times out once a second (12 500 000 cycles of the system clock); its
//!   interrupt stamps the timeout with the firmware clock and counts it.
//!   QEMU 7.2 models no DWT CYCCNT and no GPTM counter reads (see
//!   `firmware/SMOKE.md`), so counted timeouts are the counter. Stamped in
//!   the interrupt, an edge is exact to the interrupt's entry whatever the
//!   main loop does; polled from the main loop (the RTC mode's count, as
//!   before) it was late by up to a loop turn, which under a coarse
//!   `-icount` step (2^shift ns per instruction) read as ±2–3 ppm on a short
//!   game. (The RTC mode's own interrupt cannot be enabled in QEMU 7.2: its
//!   interrupt-mask register drops that bit.)
//! - **Buttons:** port E, PE0 left, PE1 right, PE2 pause; inputs with
//!   pull-ups, active low, edge interrupt on the falling edge (GPIOE, IRQ 4).
//!   QEMU drives them from the keys `up`, `down`, `left`.
//! - **Flag LED:** none (the harness's profile, `hil/boards/qemu.toml`, has none).
//!
//! Registers are written through raw volatile pointers at the addresses of
//! the LM3S6965 data sheet; only what this firmware uses is here.

use core::cell::Cell;
use core::ptr::{read_volatile, write_volatile};

use bench_firmware_common::{time_base, Board, CounterEdge};
use cortex_m::interrupt::{self, InterruptNumber, Mutex};
use cortex_m::peripheral::{NVIC, SYST};

/// The emulated LM3S6965 evaluation board.
pub struct Lm3s6965;

/// System clock out of reset, as QEMU 7.2 derives it from the reset value of
/// RCC (no PLL): 12.5 MHz, checked against the RTC in `firmware/SMOKE.md`.
const SYSCLK_HZ: u32 = 12_500_000;

/// The free-running counter's rate: one timeout a second.
const HW_COUNTER_HZ: u32 = 1;

// System control: run-mode clock gating.
const SYSCTL_RCGC1: usize = 0x400F_E104;
const SYSCTL_RCGC2: usize = 0x400F_E108;
const RCGC1_TIMER0: u32 = 1 << 16;
const RCGC2_GPIOE: u32 = 1 << 4;

// GPIO port E (APB aperture).
const GPIOE: usize = 0x4002_4000;
const GPIO_DIR: usize = 0x400;
const GPIO_IS: usize = 0x404;
const GPIO_IBE: usize = 0x408;
const GPIO_IEV: usize = 0x40C;
const GPIO_IM: usize = 0x410;
const GPIO_MIS: usize = 0x418;
const GPIO_ICR: usize = 0x41C;
const GPIO_PUR: usize = 0x510;
const GPIO_DEN: usize = 0x51C;

/// Port E pins of the three buttons.
const PIN_LEFT: u32 = 1 << 0;
const PIN_RIGHT: u32 = 1 << 1;
const PIN_PAUSE: u32 = 1 << 2;
const BUTTON_PINS: u32 = PIN_LEFT | PIN_RIGHT | PIN_PAUSE;

// General-purpose timer 0.
const GPTM0: usize = 0x4003_0000;
const GPTM_CFG: usize = 0x000;
const GPTM_CTL: usize = 0x00C;
const GPTM_TAILR: usize = 0x028;
const GPTM_TAMR: usize = 0x004;
const GPTM_IMR: usize = 0x018;
const GPTM_ICR: usize = 0x024;
const GPTM_CFG_32_BIT: u32 = 0x0;
const GPTM_TAMR_PERIODIC: u32 = 0x2;
/// Timer A time-out interrupt (IMR mask, ICR clear).
const GPTM_INT_TATO: u32 = 1 << 0;
const GPTM_CTL_TAEN: u32 = 1 << 0;
/// System-clock cycles between two timeouts: one second. QEMU's period is
/// exactly this many cycles (on silicon it would be one more, 0.08 ppm).
const COUNTER_PERIOD_CYCLES: u32 = SYSCLK_HZ / HW_COUNTER_HZ;

/// The device interrupts this firmware uses (LM3S6965 vector numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Irq {
    GpioE = 4,
    Timer0A = 19,
}

// SAFETY: the numbers are the LM3S6965's interrupt numbers (data sheet,
// table 2-8), all below its 38 interrupts.
unsafe impl InterruptNumber for Irq {
    fn number(self) -> u16 {
        self as u16
    }
}

fn read(address: usize) -> u32 {
    // SAFETY: every address passed here is a 4-byte-aligned LM3S6965
    // peripheral register listed above.
    unsafe { read_volatile(address as *const u32) }
}

fn write(address: usize, value: u32) {
    // SAFETY: as for `read`.
    unsafe { write_volatile(address as *mut u32, value) }
}

/// Timeouts (seconds) counted by the timer's interrupt.
static SECONDS: Mutex<Cell<u32>> = Mutex::new(Cell::new(0));
/// The latest edge the main loop has not taken yet.
static COUNTER_EDGE: Mutex<Cell<Option<CounterEdge>>> = Mutex::new(Cell::new(None));

impl Board for Lm3s6965 {
    const SYSCLK_HZ: u32 = SYSCLK_HZ;
    const HW_COUNTER_HZ: u32 = HW_COUNTER_HZ;
    const HW_COUNTER_BITS: u8 = 32;
    const PIN_LEFT: u32 = PIN_LEFT;
    const PIN_RIGHT: u32 = PIN_RIGHT;
    const PIN_PAUSE: u32 = PIN_PAUSE;

    fn is_button_irq(irqn: i16) -> bool {
        irqn == Irq::GpioE as i16
    }

    fn is_counter_irq(irqn: i16) -> bool {
        irqn == Irq::Timer0A as i16
    }

    /// The timer's timeout interrupt, once a second: stamp first, then count.
    fn on_counter_interrupt() {
        let at_us = time_base::now_us::<Lm3s6965>();
        write(GPTM0 + GPTM_ICR, GPTM_INT_TATO);
        interrupt::free(|cs| {
            let seconds = SECONDS.borrow(cs);
            seconds.set(seconds.get().wrapping_add(1));
            COUNTER_EDGE.borrow(cs).set(Some(CounterEdge { counter: seconds.get(), at_us }));
        });
    }

    /// The latest counter edge since the last call, stamped in its interrupt.
    fn take_counter_edge() -> Option<CounterEdge> {
        interrupt::free(|cs| COUNTER_EDGE.borrow(cs).take())
    }

    /// Sets up the time base, the free-running counter and the buttons, and
    /// unmasks the button interrupt. Call once, before enabling anything else.
    fn init(syst: &mut SYST) {
        write(SYSCTL_RCGC1, read(SYSCTL_RCGC1) | RCGC1_TIMER0);
        write(SYSCTL_RCGC2, read(SYSCTL_RCGC2) | RCGC2_GPIOE);

        // Free-running counter: a 32-bit periodic timer with a timeout
        // interrupt once a second.
        write(GPTM0 + GPTM_CTL, 0);
        write(GPTM0 + GPTM_CFG, GPTM_CFG_32_BIT);
        write(GPTM0 + GPTM_TAMR, GPTM_TAMR_PERIODIC);
        write(GPTM0 + GPTM_TAILR, COUNTER_PERIOD_CYCLES);
        write(GPTM0 + GPTM_ICR, GPTM_INT_TATO);
        write(GPTM0 + GPTM_IMR, GPTM_INT_TATO);
        write(GPTM0 + GPTM_CTL, GPTM_CTL_TAEN);

        // Buttons: inputs, pull-ups, falling-edge interrupts.
        write(GPIOE + GPIO_DIR, read(GPIOE + GPIO_DIR) & !BUTTON_PINS);
        write(GPIOE + GPIO_PUR, read(GPIOE + GPIO_PUR) | BUTTON_PINS);
        write(GPIOE + GPIO_DEN, read(GPIOE + GPIO_DEN) | BUTTON_PINS);
        write(GPIOE + GPIO_IS, read(GPIOE + GPIO_IS) & !BUTTON_PINS);
        write(GPIOE + GPIO_IBE, read(GPIOE + GPIO_IBE) & !BUTTON_PINS);
        write(GPIOE + GPIO_IEV, read(GPIOE + GPIO_IEV) & !BUTTON_PINS);
        write(GPIOE + GPIO_ICR, BUTTON_PINS);
        write(GPIOE + GPIO_IM, read(GPIOE + GPIO_IM) | BUTTON_PINS);

        // Time base.
        time_base::start::<Lm3s6965>(syst);

        NVIC::unpend(Irq::GpioE);
        NVIC::unpend(Irq::Timer0A);
        // SAFETY: the GPIOE handler only touches the button state and the
        // timer's handler only the counter edge, both behind critical sections.
        unsafe {
            NVIC::unmask(Irq::GpioE);
            NVIC::unmask(Irq::Timer0A);
        }
    }

    /// The free-running counter: GPTM0's timeouts (seconds) so far.
    fn hw_counter() -> u32 {
        interrupt::free(|cs| SECONDS.borrow(cs).get())
    }

    /// Which button pins had a falling edge since the last call (clears them).
    fn take_button_edges() -> u32 {
        let edges = read(GPIOE + GPIO_MIS) & BUTTON_PINS;
        write(GPIOE + GPIO_ICR, edges);
        edges
    }

    /// No LED on the emulated board.
    fn set_flag_led(_lit: bool) {}
}
