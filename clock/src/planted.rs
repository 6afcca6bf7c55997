//! Planted mutants: a few known wrong readings of the rules, compiled in
//! only with the cargo feature `planted-mutants`, which only tests turn on
//! (`bench-sim`'s dev-dependency). A test switches one on to show that the
//! simulator's oracles catch a core that gets that rule wrong, so their
//! power cannot drop unnoticed.
//!
//! Without the feature `on` is a constant `false`: every planted branch
//! is dead code the compiler removes, and the core behaves as written.

/// One wrong reading of a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Mutant {
    /// Bronstein mode credits the whole delay, not the time the move took.
    BronsteinFullDelay = 1,
    /// 6.2b time-delay mode banks the unused extra time.
    DelayBanks = 2,
    /// The Fischer increment is credited twice.
    IncrementTwice = 3,
    /// A byo-yomi period is not renewed by a move made within it.
    ByoYomiNotRenewed = 4,
    /// A Canadian block resets one move early.
    CanadianBlockEarly = 5,
    /// 6.2b, 6.3: the next stage's time is not added, whether its moves were
    /// made or the stage's flag opened it.
    StageTimeLost = 6,
    /// An hourglass's other half does not gain what the running one loses.
    HourglassNoGain = 7,
    /// 13.4: taking time away adds it instead.
    PenaltyAdds = 8,
    /// The game's end leaves the clock running.
    FinishKeepsRunning = 9,
}

impl Mutant {
    pub const ALL: [Mutant; 9] = [
        Mutant::BronsteinFullDelay,
        Mutant::DelayBanks,
        Mutant::IncrementTwice,
        Mutant::ByoYomiNotRenewed,
        Mutant::CanadianBlockEarly,
        Mutant::StageTimeLost,
        Mutant::HourglassNoGain,
        Mutant::PenaltyAdds,
        Mutant::FinishKeepsRunning,
    ];
}

#[cfg(feature = "planted-mutants")]
static ACTIVE: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);

/// Switches `mutant` on for every clock in the process (`None`: the core as
/// written). Process-wide, so a test that plants one must be alone in its
/// test binary.
#[cfg(feature = "planted-mutants")]
pub fn plant(mutant: Option<Mutant>) {
    ACTIVE.store(mutant.map_or(0, |mutant| mutant as u8), core::sync::atomic::Ordering::SeqCst);
}

/// Whether `mutant` is planted.
#[cfg(feature = "planted-mutants")]
#[inline]
pub(crate) fn on(mutant: Mutant) -> bool {
    ACTIVE.load(core::sync::atomic::Ordering::Relaxed) == mutant as u8
}

#[cfg(not(feature = "planted-mutants"))]
#[inline(always)]
pub(crate) const fn on(_: Mutant) -> bool {
    false
}
