//! Which button belongs to which player (6.4: before the game the arbiter
//! decides where the clock is placed, and so which side of it is White's).

use crate::side::Side;

/// A physical button of the clock, as its firmware sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Button {
    Left,
    Right,
}

/// The arbiter's placement of the clock: which button is White's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    pub white: Button,
}

impl Placement {
    pub const WHITE_ON_LEFT: Placement = Placement { white: Button::Left };
    pub const WHITE_ON_RIGHT: Placement = Placement { white: Button::Right };

    pub const fn side_of(self, button: Button) -> Side {
        match (self.white, button) {
            (Button::Left, Button::Left) | (Button::Right, Button::Right) => Side::White,
            (Button::Left, Button::Right) | (Button::Right, Button::Left) => Side::Black,
        }
    }

    pub const fn button_of(self, side: Side) -> Button {
        match (self.white, side) {
            (button, Side::White) => button,
            (Button::Left, Side::Black) => Button::Right,
            (Button::Right, Side::Black) => Button::Left,
        }
    }
}
