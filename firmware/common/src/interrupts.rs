//! The device interrupts of every image built on these modules.

use crate::{buttons, Board};

/// A device interrupt, by its number: the board crate's `DefaultHandler`
/// (cortex-m-rt's default vector table sends every device interrupt there,
/// no device crate needed) passes it on here.
pub fn on_device_interrupt<B: Board>(irqn: i16) {
    if B::is_counter_irq(irqn) {
        B::on_counter_interrupt();
    } else if B::is_button_irq(irqn) {
        buttons::on_interrupt::<B>();
    }
}
