//! bench's reference chess-clock firmware on the Nordic nRF52840 DK: the shared
//! firmware (`bench-firmware-common`) on this board (`board.rs`).
#![no_std]
#![no_main]

mod board;

use bench_firmware_common::{interrupts, run};
use cortex_m_rt::{entry, exception};
// Last resort only: nothing in this firmware panics by design.
use panic_halt as _;

use board::Nrf52840Dk;

#[entry]
fn main() -> ! {
    run::<Nrf52840Dk>()
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    interrupts::on_device_interrupt::<Nrf52840Dk>(irqn);
}
