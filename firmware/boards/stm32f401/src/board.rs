//! The board: ST NUCLEO-F401RE (STM32F401RE, Cortex-M4F), built by
//! `scripts/build-firmware --board stm32`. The harness's profile is
//! `hil/boards/stm32.toml`.
//!
//! - **Clock:** the 16 MHz HSI through the PLL (M 16, N 336, P 4): an
//!   84 MHz core, APB1 at 42 MHz, two flash wait states. The HSI is the
//!   board's own oscillator (±1 %), so the bench's oscillator-drift fit has
//!   something to measure.
//! - **Time base:** SysTick on the core clock, one interrupt per
//!   millisecond; the firmware clock as on the emulated board.
//! - **Free-running counter:** DWT CYCCNT, 84 MHz, 32 bits.
//! - **Buttons:** PA0 left (A0), PA1 right (A1), PA4 pause (A2); inputs with
//!   pull-ups, active low, falling-edge EXTI lines 0, 1 and 4. The harness
//!   drives them through jumpers from PC0, PC1 and PB0 (`bench hil --board
//!   stm32 --wiring`).
//! - **Flag LED:** LD2 (PA5, D13), lit while a flag is down.
//!
//! Registers are written through raw volatile pointers at the addresses of
//! the STM32F401 reference manual (RM0368); only what this firmware uses is here.

use core::cell::Cell;
use core::ptr::{read_volatile, write_volatile};

use bench_firmware_common::{time_base, Board, CounterEdge};
use cortex_m::interrupt::{self, InterruptNumber, Mutex};
use cortex_m::peripheral::{NVIC, SYST};

/// The NUCLEO-F401RE.
pub struct NucleoF401re;

/// Core clock after `init`: HSI 16 MHz / 16 * 336 / 4.
const SYSCLK_HZ: u32 = 84_000_000;

// RCC.
const RCC: usize = 0x4002_3800;
const RCC_CR: usize = RCC;
const RCC_PLLCFGR: usize = RCC + 0x04;
const RCC_CFGR: usize = RCC + 0x08;
const RCC_AHB1ENR: usize = RCC + 0x30;
const RCC_APB2ENR: usize = RCC + 0x44;
const CR_PLLON: u32 = 1 << 24;
const CR_PLLRDY: u32 = 1 << 25;
/// PLLM 16, PLLN 336, PLLP /4 (0b01), source HSI, PLLQ 7 (48 MHz for USB).
const PLLCFGR: u32 = 16 | (336 << 6) | (0b01 << 16) | (7 << 24);
const CFGR_SW_PLL: u32 = 0b10;
const CFGR_SWS_MASK: u32 = 0b11 << 2;
const CFGR_SWS_PLL: u32 = 0b10 << 2;
const CFGR_PPRE1_DIV2: u32 = 0b100 << 10;
const AHB1ENR_GPIOA: u32 = 1 << 0;
const APB2ENR_SYSCFG: u32 = 1 << 14;
// Flash: 2 wait states at 84 MHz (2.7-3.6 V), prefetch and caches on.
const FLASH_ACR: usize = 0x4002_3C00;
const FLASH_ACR_VALUE: u32 = 2 | (1 << 8) | (1 << 9) | (1 << 10);
/// Longest wait for the PLL to lock or the clock switch to happen.
const CLOCK_SPINS_MAX: u32 = 1_000_000;

// GPIO port A.
const GPIOA: usize = 0x4002_0000;
const GPIO_MODER: usize = 0x00;
const GPIO_PUPDR: usize = 0x0C;
const GPIO_BSRR: usize = 0x18;
/// LD2, the flag LED: PA5, lit when high.
const PIN_LED: u32 = 5;

// EXTI.
const EXTI: usize = 0x4001_3C00;
const EXTI_IMR: usize = EXTI;
const EXTI_RTSR: usize = EXTI + 0x08;
const EXTI_FTSR: usize = EXTI + 0x0C;
const EXTI_PR: usize = EXTI + 0x14;

// DWT cycle counter.
const DEMCR: usize = 0xE000_EDFC;
const DEMCR_TRCENA: u32 = 1 << 24;
const DWT_CTRL: usize = 0xE000_1000;
const DWT_CYCCNT: usize = 0xE000_1004;
const DWT_CTRL_CYCCNTENA: u32 = 1 << 0;

/// Port A pins (and EXTI lines) of the three buttons.
const PIN_LEFT: u32 = 1 << 0;
const PIN_RIGHT: u32 = 1 << 1;
const PIN_PAUSE: u32 = 1 << 4;
const BUTTON_PINS: u32 = PIN_LEFT | PIN_RIGHT | PIN_PAUSE;

/// The device interrupts this firmware uses (STM32F401 vector numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Irq {
    Exti0 = 6,
    Exti1 = 7,
    Exti4 = 10,
}

const BUTTON_IRQS: [Irq; 3] = [Irq::Exti0, Irq::Exti1, Irq::Exti4];

// SAFETY: the numbers are the STM32F401's EXTI0, EXTI1 and EXTI4 interrupt
// numbers (RM0368, table 38), all below its 85 interrupts.
unsafe impl InterruptNumber for Irq {
    fn number(self) -> u16 {
        self as u16
    }
}

fn read(address: usize) -> u32 {
    // SAFETY: every address passed here is a 4-byte-aligned STM32F401 or
    // Cortex-M4 register listed above.
    unsafe { read_volatile(address as *const u32) }
}

fn write(address: usize, value: u32) {
    // SAFETY: as for `read`.
    unsafe { write_volatile(address as *mut u32, value) }
}

/// Spins until `done` or `CLOCK_SPINS_MAX` turns: a PLL that never locks
/// leaves the core on the HSI rather than hanging.
fn wait_for(done: impl Fn() -> bool) -> bool {
    for _ in 0..CLOCK_SPINS_MAX {
        if done() {
            return true;
        }
    }
    false
}

/// HSI -> PLL -> 84 MHz core, APB1 /2.
fn clocks() {
    write(FLASH_ACR, FLASH_ACR_VALUE);
    write(RCC_PLLCFGR, PLLCFGR);
    write(RCC_CR, read(RCC_CR) | CR_PLLON);
    if !wait_for(|| read(RCC_CR) & CR_PLLRDY != 0) {
        return;
    }
    write(RCC_CFGR, (read(RCC_CFGR) & !0b11) | CFGR_PPRE1_DIV2);
    write(RCC_CFGR, read(RCC_CFGR) | CFGR_SW_PLL);
    let _ = wait_for(|| read(RCC_CFGR) & CFGR_SWS_MASK == CFGR_SWS_PLL);
}

impl Board for NucleoF401re {
    const SYSCLK_HZ: u32 = SYSCLK_HZ;
    /// DWT CYCCNT, on the core clock.
    const HW_COUNTER_HZ: u32 = SYSCLK_HZ;
    const HW_COUNTER_BITS: u8 = 32;
    const PIN_LEFT: u32 = PIN_LEFT;
    const PIN_RIGHT: u32 = PIN_RIGHT;
    const PIN_PAUSE: u32 = PIN_PAUSE;

    fn is_button_irq(irqn: i16) -> bool {
        BUTTON_IRQS.iter().any(|irq| *irq as i16 == irqn)
    }

    /// Sets up the clocks, the time base, the free-running counter and the
    /// buttons, and unmasks the button interrupts. Call once, first.
    fn init(syst: &mut SYST) {
        clocks();
        write(RCC_AHB1ENR, read(RCC_AHB1ENR) | AHB1ENR_GPIOA);
        write(RCC_APB2ENR, read(RCC_APB2ENR) | APB2ENR_SYSCFG);

        // Free-running counter: DWT CYCCNT.
        write(DEMCR, read(DEMCR) | DEMCR_TRCENA);
        write(DWT_CYCCNT, 0);
        write(DWT_CTRL, read(DWT_CTRL) | DWT_CTRL_CYCCNTENA);

        // Buttons: inputs (MODER 00) with pull-ups (PUPDR 01); SYSCFG's EXTICR
        // routes lines 0, 1 and 4 to port A out of reset.
        let mut moder = read(GPIOA + GPIO_MODER);
        let mut pupdr = read(GPIOA + GPIO_PUPDR);
        for pin in 0..16 {
            if BUTTON_PINS & (1 << pin) != 0 {
                moder &= !(0b11 << (2 * pin));
                pupdr = (pupdr & !(0b11 << (2 * pin))) | (0b01 << (2 * pin));
            }
        }
        // The flag LED: an output (MODER 01), off.
        write(GPIOA + GPIO_BSRR, 1 << (PIN_LED + 16));
        moder = (moder & !(0b11 << (2 * PIN_LED))) | (0b01 << (2 * PIN_LED));
        write(GPIOA + GPIO_MODER, moder);
        write(GPIOA + GPIO_PUPDR, pupdr);
        write(EXTI_RTSR, read(EXTI_RTSR) & !BUTTON_PINS);
        write(EXTI_FTSR, read(EXTI_FTSR) | BUTTON_PINS);
        write(EXTI_PR, BUTTON_PINS);
        write(EXTI_IMR, read(EXTI_IMR) | BUTTON_PINS);

        // Time base.
        time_base::start::<NucleoF401re>(syst);

        for irq in BUTTON_IRQS {
            NVIC::unpend(irq);
            // SAFETY: the EXTI handlers only touch the button state, which is
            // behind a critical section.
            unsafe { NVIC::unmask(irq) };
        }
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
        let at_us = time_base::now_us::<NucleoF401re>();
        let changed = interrupt::free(|cs| LAST.borrow(cs).replace(Some(counter)) != Some(counter));
        changed.then_some(CounterEdge { counter, at_us })
    }

    /// No device interrupt drives the counter here.
    fn is_counter_irq(_irqn: i16) -> bool {
        false
    }

    /// Never called: see [`is_counter_irq`].
    fn on_counter_interrupt() {}

    /// Which button pins had a falling edge since the last call (clears them).
    fn take_button_edges() -> u32 {
        let edges = read(EXTI_PR) & BUTTON_PINS;
        write(EXTI_PR, edges);
        edges
    }

    fn set_flag_led(lit: bool) {
        let bit = if lit { PIN_LED } else { PIN_LED + 16 };
        write(GPIOA + GPIO_BSRR, 1 << bit);
    }
}
