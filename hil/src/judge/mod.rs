//! What a run shows: the firmware's records against the clock model, and
//! its time base against the board's.

pub mod compare;
pub mod drift;
pub mod game;
pub mod latency;
