//! bench's reference chess-clock firmware on QEMU's `lm3s6965evb`: the
//! shared firmware (`bench-firmware-common`) on this board (`board.rs`).
#![no_std]
#![no_main]

mod board;

use bench_firmware_common::{interrupts, run};
use cortex_m_rt::{entry, exception};
// Last resort only: nothing in this firmware panics by design (the core
// returns errors, buffers are bounded and indexed with `get`).
use panic_halt as _;

use board::Lm3s6965;

#[entry]
fn main() -> ! {
    run::<Lm3s6965>()
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    interrupts::on_device_interrupt::<Lm3s6965>(irqn);
}
