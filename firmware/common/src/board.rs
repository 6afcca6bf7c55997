//! What a board gives the firmware: its clocks, its buttons and their edge
//! interrupt, a free-running hardware counter, and a flag LED. One crate per
//! board implements it (`firmware/boards/NAME/src/board.rs`); everything else
//! is the same on every board.

use cortex_m::peripheral::SYST;

/// One edge of the hardware counter: the count it reached and the firmware
/// instant it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterEdge {
    pub counter: u32,
    pub at_us: u64,
}

/// A board, as the firmware uses it. Every function is called from the one
/// core, `init` first and once; the interrupt ones (`take_button_edges`,
/// `on_counter_interrupt`) from the device interrupt they belong to.
pub trait Board {
    /// The core clock after [`Board::init`]: SysTick's rate (the firmware
    /// clock's ticks are whole numbers of its cycles).
    const SYSCLK_HZ: u32;
    /// The free-running counter's rate and width, announced in Hello and
    /// read in every TimeBase and Press record (`hw_counter`).
    const HW_COUNTER_HZ: u32;
    const HW_COUNTER_BITS: u8;
    /// The bits of the three buttons in [`Board::take_button_edges`].
    const PIN_LEFT: u32;
    const PIN_RIGHT: u32;
    const PIN_PAUSE: u32;

    /// Sets up the clocks, the time base (`time_base::start`), the
    /// free-running counter, the buttons (inputs with pull-ups, active low,
    /// falling-edge interrupt) and the flag LED (off), and unmasks the
    /// device interrupts. Call once, first.
    fn init(syst: &mut SYST);
    /// The free-running counter now.
    fn hw_counter() -> u32;
    /// The latest counter edge since the last call, if there was one.
    fn take_counter_edge() -> Option<CounterEdge>;
    /// Whether device interrupt `irqn` is a button's.
    fn is_button_irq(irqn: i16) -> bool;
    /// Whether device interrupt `irqn` is the hardware counter's.
    fn is_counter_irq(irqn: i16) -> bool;
    /// The counter's interrupt (only if [`Board::is_counter_irq`] says one is).
    fn on_counter_interrupt();
    /// Which button bits had a falling edge since the last call (clears them).
    fn take_button_edges() -> u32;
    /// Lights (`true`) or puts out the flag LED; a board without one does nothing.
    fn set_flag_led(lit: bool);
}
