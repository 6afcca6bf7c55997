//! The text form of a time control: the PGN `TimeControl` tag, extended.
//!
//! (Implementation in progress.)

use crate::control::TimeControl;

/// Why a time-control text does not parse; `position` is the 0-based byte
/// offset of the offending character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub position: usize,
}

pub fn parse(_text: &str) -> Result<TimeControl, ParseError> {
    Err(ParseError { position: 0 })
}
