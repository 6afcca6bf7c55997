//! `bench-hil`: hardware in the loop.
//!
//! - [`target`]: the `Target` abstraction every backend implements.
pub mod target;

pub use target::{ButtonId, Capabilities, Target, TargetError};
