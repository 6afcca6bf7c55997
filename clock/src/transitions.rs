//! The rules the clock applied, as they happen and counted. The clock counts
//! each transition where it applies the rule (rule coverage), and hands each
//! one, with its side, instant and period change, to a caller's
//! [`TransitionSink`]: what happened is read from the model, never
//! re-derived by comparing states.
//!
//! A caller hands a sink to one call (`clock.noting(&mut sink).press(…)`)
//! and gets each [`TransitionEvent`] (side, instant, period before and
//! after, the [`PeriodCause`], the flag): at most
//! [`TRANSITIONS_MAX`](crate::clock::TRANSITIONS_MAX) a call, none from a
//! refused call. [`Changes`] is the fixed-size sink that sums them up per
//! display, as a firmware's records report them.

use crate::clock::FlagFall;
use crate::side::{BySide, Side};
use crate::time::Instant;

/// One rule the clock applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Transition {
    /// 6.5: White's clock started.
    Start,
    /// 6.8a: a press accepted, completing a move.
    Press,
    /// 6.2 Fischer mode: the increment credited after a move.
    Increment,
    /// 6.2b time-delay mode: a move completed within the delay (unused
    /// delay is not banked).
    DelayUnused,
    /// 6.2b time-delay mode: the delay ran out and main time started.
    DelayUsedUp,
    /// 6.2 Bronstein mode: the whole move's time given back (move shorter
    /// than the bonus).
    BronsteinWholeMove,
    /// 6.2 Bronstein mode: the bonus given back, capped (move longer than
    /// the bonus).
    BronsteinCapped,
    /// 6.2b: a stage completed by its move count; the next stage's time added.
    StageByMoves,
    /// 6.3 / 6.12a: a flag in a stage before the final one.
    FlagEarlierStage,
    /// 6.3: a flag in the final period; the display freezes.
    FlagFinal,
    /// 6.12: a flag fell while the opponent's flag was already down.
    BothFlags,
    /// Byo-yomi / Canadian: main time over, overtime begins.
    OvertimeBegins,
    /// Byo-yomi: a period ran out and the next one began.
    ByoYomiPeriodLost,
    /// Byo-yomi: a move made within the period; the period starts afresh.
    ByoYomiPeriodRenewed,
    /// Canadian: the block's moves made; the period's time starts afresh.
    CanadianBlockReset,
    /// Hourglass: a move's time passed to the opponent.
    HourglassTransfer,
    /// 6.13a: the arbiter paused the clock.
    Pause,
    /// 6.13c: the arbiter restarted the clock.
    Resume,
    /// 6.14: the arbiter set a side's time.
    SetTime,
    /// 6.8d / 13.4: the arbiter added or subtracted time.
    AdjustTime,
    /// 6.14 / 6.15: the arbiter set the move counter.
    SetMoves,
    /// 6.11: a replacement clock set by the arbiter.
    Replacement,
}

impl Transition {
    pub const ALL: [Transition; 22] = [
        Transition::Start,
        Transition::Press,
        Transition::Increment,
        Transition::DelayUnused,
        Transition::DelayUsedUp,
        Transition::BronsteinWholeMove,
        Transition::BronsteinCapped,
        Transition::StageByMoves,
        Transition::FlagEarlierStage,
        Transition::FlagFinal,
        Transition::BothFlags,
        Transition::OvertimeBegins,
        Transition::ByoYomiPeriodLost,
        Transition::ByoYomiPeriodRenewed,
        Transition::CanadianBlockReset,
        Transition::HourglassTransfer,
        Transition::Pause,
        Transition::Resume,
        Transition::SetTime,
        Transition::AdjustTime,
        Transition::SetMoves,
        Transition::Replacement,
    ];

    /// The name reports and scenario files use.
    pub const fn key(self) -> &'static str {
        match self {
            Transition::Start => "start",
            Transition::Press => "press",
            Transition::Increment => "increment",
            Transition::DelayUnused => "delay.unused",
            Transition::DelayUsedUp => "delay.used-up",
            Transition::BronsteinWholeMove => "bronstein.whole-move",
            Transition::BronsteinCapped => "bronstein.capped",
            Transition::StageByMoves => "stage.by-moves",
            Transition::FlagEarlierStage => "flag.earlier-stage",
            Transition::FlagFinal => "flag.final",
            Transition::BothFlags => "flag.both",
            Transition::OvertimeBegins => "overtime.begins",
            Transition::ByoYomiPeriodLost => "byo-yomi.period-lost",
            Transition::ByoYomiPeriodRenewed => "byo-yomi.period-renewed",
            Transition::CanadianBlockReset => "canadian.block-reset",
            Transition::HourglassTransfer => "hourglass.transfer",
            Transition::Pause => "pause",
            Transition::Resume => "resume",
            Transition::SetTime => "arbiter.set-time",
            Transition::AdjustTime => "arbiter.adjust-time",
            Transition::SetMoves => "arbiter.set-moves",
            Transition::Replacement => "replacement",
        }
    }

    /// The article the transition applies.
    pub const fn article(self) -> &'static str {
        match self {
            Transition::Start => "6.5",
            Transition::Press => "6.8a",
            Transition::Increment | Transition::BronsteinWholeMove | Transition::BronsteinCapped => "6.2",
            Transition::DelayUnused | Transition::DelayUsedUp | Transition::StageByMoves => "6.2b",
            Transition::FlagEarlierStage => "6.12a",
            Transition::FlagFinal => "6.3",
            Transition::BothFlags => "6.12",
            Transition::OvertimeBegins
            | Transition::ByoYomiPeriodLost
            | Transition::ByoYomiPeriodRenewed
            | Transition::CanadianBlockReset
            | Transition::HourglassTransfer => "6.2",
            Transition::Pause => "6.13a",
            Transition::Resume => "6.13c",
            Transition::SetTime => "6.14",
            Transition::AdjustTime => "13.4",
            Transition::SetMoves => "6.15",
            Transition::Replacement => "6.11",
        }
    }

    pub fn from_key(key: &str) -> Option<Transition> {
        Transition::ALL.into_iter().find(|transition| transition.key() == key)
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// How often each transition happened on one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Transitions {
    counts: [u32; Transition::ALL.len()],
}

impl Transitions {
    pub fn count(&self, transition: Transition) -> u32 {
        self.counts.get(transition.index()).copied().unwrap_or(0)
    }

    /// Every transition with its count, in [`Transition::ALL`]'s order.
    pub fn iter(&self) -> impl Iterator<Item = (Transition, u32)> + '_ {
        Transition::ALL.into_iter().map(|transition| (transition, self.count(transition)))
    }

    /// Counts one more `transition`. The clock counts its own; a caller
    /// notes what happened around it (a clock replaced by the arbiter).
    #[inline]
    pub fn note(&mut self, transition: Transition) {
        if let Some(count) = self.counts.get_mut(transition.index()) {
            *count = count.saturating_add(1);
        }
    }
}

/// Why a display's period number changed: what a period change record
/// says. Decided here, once, from the transition that changed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PeriodCause {
    /// 6.2b: the stage's moves were made; the next stage began.
    MovesCompleted,
    /// 6.3 / 6.12a: the stage's time ran out first; the next stage began.
    FlagOpenedNext,
    /// Byo-yomi / Canadian: main time ran out; overtime began.
    OvertimeBegins,
    /// Byo-yomi: a period ran out and the next began.
    PeriodLost,
}

/// One transition as it happened: the rule, the display it applied to, its
/// instant, and the period it left that display in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransitionEvent {
    pub transition: Transition,
    pub side: Side,
    pub at: Instant,
    pub period_from: u32,
    pub period_to: u32,
    /// Why the period changed, when it did.
    pub cause: Option<PeriodCause>,
    /// The flag that fell, on [`Transition::FlagFinal`] and
    /// [`Transition::FlagEarlierStage`].
    pub flag: Option<FlagFall>,
}

/// Where a clock call hands its transitions, in the order they happened.
/// A call that returns an error hands none. One call hands at most
/// [`TRANSITIONS_MAX`](crate::clock::TRANSITIONS_MAX).
pub trait TransitionSink {
    fn note(&mut self, event: TransitionEvent);
}

/// No sink: the calls without one (their transitions are only counted).
impl TransitionSink for () {
    #[inline(always)]
    fn note(&mut self, _event: TransitionEvent) {}
}

/// A period change on one display, as one record reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PeriodChange {
    pub from: u32,
    pub to: u32,
    pub cause: PeriodCause,
}

/// What the calls since it was last taken changed on each display, read
/// from their transitions: the last flag that fell, and one period change
/// from the first period left to the last one entered, with the first
/// change's cause. A fixed-size sink: what a firmware's records (and the
/// harness's model of them) report after each call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Changes {
    flags: BySide<Option<FlagFall>>,
    periods: BySide<Option<PeriodChange>>,
}

impl Default for Changes {
    fn default() -> Self {
        Changes::NONE
    }
}

impl Changes {
    pub const NONE: Changes = Changes { flags: BySide::both(None), periods: BySide::both(None) };

    /// The flag that fell on `side`'s display, the last if several did.
    pub fn flag(&self, side: Side) -> Option<FlagFall> {
        *self.flags.get(side)
    }

    /// `side`'s period change, if its period now differs from the one it
    /// started from.
    pub fn period(&self, side: Side) -> Option<PeriodChange> {
        self.periods.get(side).filter(|change| change.from != change.to)
    }

    /// Returns the changes so far and starts afresh.
    pub fn take(&mut self) -> Changes {
        core::mem::replace(self, Changes::NONE)
    }
}

impl TransitionSink for Changes {
    #[inline]
    fn note(&mut self, event: TransitionEvent) {
        if event.flag.is_some() {
            *self.flags.get_mut(event.side) = event.flag;
        }
        if let Some(cause) = event.cause {
            let change = self.periods.get_mut(event.side);
            match change {
                Some(change) => change.to = event.period_to,
                None => *change = Some(PeriodChange { from: event.period_from, to: event.period_to, cause }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_transition_is_listed_once_in_its_own_slot() {
        for (index, transition) in Transition::ALL.into_iter().enumerate() {
            assert_eq!(transition.index(), index);
            assert_eq!(Transition::from_key(transition.key()), Some(transition));
        }
    }
}
