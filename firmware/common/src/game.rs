//! The board's side of the game logic (crate `bench-firmware-game`, which
//! the HIL harness's fake firmware runs too): which button is whose, and
//! buttons' arming goes (the records' way out is `channel.rs`).

use bench_contract as contract;
use bench_firmware_game::Edge;
use chessclock::{Instant, Placement, Side};

use crate::buttons::{self, Input};

/// Which button is White's (6.4): the left one, PE0 (QEMU key `up`).
pub const PLACEMENT: Placement = Placement::WHITE_ON_LEFT;

/// A debounced press from the buttons, as the game takes it: by whose
/// button it was, with the placement applied.
#[inline]
pub fn placed(edge: buttons::Edge) -> Edge {
    let button = match edge.input {
        Input::Pause => contract::Button::Pause,
        Input::Player(button) => match PLACEMENT.side_of(button) {
            Side::White => contract::Button::White,
            Side::Black => contract::Button::Black,
        },
    };
    Edge { button, at: Instant::from_us(edge.at_us), hw_counter: u64::from(edge.hw_counter), bounces: edge.bounces }
}
