//! bench's reference chess-clock firmware on the Raspberry Pi Pico: the shared
//! firmware (`bench-firmware-common`) on this board (`board.rs`).
#![no_std]
#![no_main]

mod board;

use bench_firmware_common::{interrupts, run};
use cortex_m_rt::{entry, exception};
// Last resort only: nothing in this firmware panics by design.
use panic_halt as _;

use board::Pico;

/// The second-stage bootloader for the Pico's W25Q080 flash, where memory.x puts it.
#[link_section = ".boot2"]
#[no_mangle]
#[used]
pub static BOOT2_FIRMWARE: [u8; 256] = rp2040_boot2::BOOT_LOADER_W25Q080;

#[entry]
fn main() -> ! {
    run::<Pico>()
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    interrupts::on_device_interrupt::<Pico>(irqn);
}
