//! The firmware clock, the same on every board: SysTick counts whole ticks
//! in its interrupt, and [`now_us`] adds the cycles already run in the
//! current tick. A board gives only its core clock ([`Board::SYSCLK_HZ`]).

use core::cell::Cell;

use cortex_m::interrupt::{self, Mutex};
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::{SCB, SYST};
use cortex_m_rt::exception;

use crate::Board;

/// The firmware clock's tick.
pub const TICK_US: u32 = 1_000;
/// Cycles per tick on board `B`, as the firmware's time arithmetic assumes them.
pub const fn cycles_per_tick<B: Board>() -> u32 {
    B::SYSCLK_HZ / (1_000_000 / TICK_US)
}
const _: () = assert!(1_000_000 % TICK_US == 0);

/// SysTick reload value: the counter counts RELOAD..=0, so a tick lasts
/// RELOAD + 1 cycles. Defect `defect-systick-off-by-one` loads the cycle
/// count itself, so each tick is one cycle too long (80 ns on the emulated
/// board, 12 ns on the NUCLEO).
pub const fn systick_reload<B: Board>() -> u32 {
    if cfg!(feature = "defect-systick-off-by-one") {
        cycles_per_tick::<B>()
    } else {
        cycles_per_tick::<B>() - 1
    }
}

/// Ticks since the time base started.
static TICKS: Mutex<Cell<u64>> = Mutex::new(Cell::new(0));

#[exception]
fn SysTick() {
    interrupt::free(|cs| {
        let ticks = TICKS.borrow(cs);
        ticks.set(ticks.get().wrapping_add(1));
    });
}

/// Starts SysTick on board `B`'s core clock, one interrupt per tick.
pub fn start<B: Board>(syst: &mut SYST) {
    const {
        assert!(B::SYSCLK_HZ % (1_000_000 / TICK_US) == 0, "a tick is a whole number of cycles");
        assert!(systick_reload::<B>() < (1 << 24), "SysTick is a 24-bit counter");
    }
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(systick_reload::<B>());
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

/// The firmware clock: µs since the time base started. Monotonic
/// (non-decreasing); resolution one SysTick cycle rounded down to a µs.
pub fn now_us<B: Board>() -> u64 {
    interrupt::free(|cs| {
        let mut ticks = TICKS.borrow(cs).get();
        // A wrap the SysTick handler has not counted yet shows as a pending
        // SysTick. Read the counter on both sides of that check: if the wrap
        // happened in between, the second reading is after it.
        let before = SYST::get_current();
        let pending = SCB::is_pendst_pending();
        let after = SYST::get_current();
        let current = if pending {
            ticks = ticks.wrapping_add(1);
            after
        } else {
            before
        };
        // The tick ends when the counter steps from 1 to 0 (the interrupt);
        // the next cycle reloads it. So 0 is the first cycle of a tick and
        // RELOAD the second: `current` cycles before the tick ends.
        let elapsed_cycles =
            if current == 0 { 0 } else { u64::from((systick_reload::<B>() + 1).saturating_sub(current)) };
        let tick_us = u64::from(TICK_US);
        let within_tick_us = (elapsed_cycles * tick_us / u64::from(cycles_per_tick::<B>())).min(tick_us - 1);
        ticks.wrapping_mul(tick_us).wrapping_add(within_tick_us)
    })
}

/// The raw tick count, low 32 bits (for the time-base record).
#[inline]
pub fn ticks() -> u32 {
    interrupt::free(|cs| TICKS.borrow(cs).get() as u32)
}

/// Spins with interrupts masked until SysTick has wrapped `wraps` times
/// (each wrap is one tick), bounded by `spins_max` loop turns. Only the
/// `defect-lost-ticks` build calls it: a display refresh that keeps
/// interrupts off for longer than a tick loses every tick but one.
#[inline]
pub fn spin_with_interrupts_masked(wraps: u32, spins_max: u32) {
    interrupt::free(|_| {
        let _ = control_and_status(); // clears a COUNTFLAG left from before
        let mut seen = 0;
        for _ in 0..spins_max {
            if control_and_status() & SYST_CSR_COUNTFLAG != 0 {
                seen += 1;
                if seen >= wraps {
                    break;
                }
            }
        }
    });
}

/// SysTick's COUNTFLAG: set when the counter wrapped, cleared by reading.
const SYST_CSR_COUNTFLAG: u32 = 1 << 16;

/// SysTick's control and status register (the read clears COUNTFLAG).
fn control_and_status() -> u32 {
    // SAFETY: a read of a core register that exists on every Cortex-M; the
    // only side effect is clearing COUNTFLAG, which nothing else uses.
    unsafe { (*SYST::PTR).csr.read() }
}
