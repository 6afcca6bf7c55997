//! The device interrupts of every image built from these modules.

use cortex_m_rt::exception;

use crate::{board, buttons};

/// Device interrupts: cortex-m-rt's default vector table sends every one
/// here with its number (no device crate needed for one interrupt).
#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    if board::is_counter_irq(irqn) {
        board::on_counter_interrupt();
    } else if board::is_button_irq(irqn) {
        buttons::on_interrupt();
    }
}
