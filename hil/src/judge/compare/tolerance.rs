//! The tolerance policy: how far a firmware's times may be from the model's.
//!
//! A firmware whose displays are quantized (whole milliseconds, a press
//! applied at its own tick) re-quantizes at every press. Each press is
//! within a tick of the model, but the errors add up: the difference from a
//! model that never looks at the firmware's state random-walks past one
//! tick within 10–20 presses, and from then on every snapshot of that side
//! differs, burying a real error under thousands of sub-tick ones. So:
//!
//! - **Each time is judged locally**, from the firmware's own state: a
//!   side's *anchor* is the firmware's difference from the model
//!   (`firmware − model`, µs) after that side's last press (0 before its
//!   first). A press, a display, a flag or period instant of that side
//!   matches if it is within one tick of the model carried from the anchor
//!   (`model + anchor`), or of the model itself (a new period's time, the
//!   same on both, starts afresh). A wrong press (1 s off, a bonus missing)
//!   is one mismatch at that press; the displays after it are judged from
//!   the wrong state the firmware now has, so they do not repeat it.
//! - **Rounding is its own figure**: a side's accumulated rounding is the
//!   sum of its presses' local differences that were within a tick (the
//!   ones beyond are reported already), back to its last press that
//!   matched the model itself. It is a mismatch (`rounding.accumulated_us`,
//!   once per side and game) beyond [`ROUNDING_BOUND_TICKS`] ticks times
//!   ⌈√n⌉ after n presses of the side. Errors of at most a tick each that
//!   do not lean one way stay there: by Hoeffding's inequality the sum of n
//!   of them exceeds 6 ticks × √n with probability below 2·e⁻¹⁸ (3·10⁻⁸).
//!   A firmware that leans — always truncating, a tick lost at every
//!   press — drifts linearly and crosses it: a lean of b ticks a press
//!   after about 36 / b² presses (b = 0.9: the 47th; b = 0.5: the 157th).
//!   Before 36 presses the bound is more than the local checks allow, so
//!   it cannot fire there.
//! - **The largest difference of each time quantity** is kept (the judged
//!   one: the smaller of the two above), matched or not, so a report shows
//!   how close a passing firmware came and how far a failing one was.

use std::collections::BTreeMap;

use chessclock::Side;

use super::Quantity;

/// The accumulated-rounding bound, in ticks per √(presses of the side).
pub const ROUNDING_BOUND_TICKS: u64 = 6;

/// One side's running judgement.
#[derive(Clone, Debug, Default)]
struct SideState {
    /// The anchor after each of the side's presses: (record index, firmware
    /// − model after it, µs), in record order.
    anchors: Vec<(usize, i64)>,
    /// Rounding accumulated since the last press that matched the model
    /// itself, µs.
    accumulated_us: i64,
    /// Presses the accumulated rounding covers.
    presses: u64,
    /// Whether its rounding mismatch was reported (once per side).
    reported: bool,
}

/// How a clock's displays step (Capabilities, contract 3): by
/// `step_us` at or above `fine_below_us` left, by a tick below it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DisplayStep {
    pub step_us: u64,
    pub fine_below_us: u64,
}

impl DisplayStep {
    /// Displays to the tick (nothing declared).
    pub const TICK: DisplayStep = DisplayStep { step_us: 0, fine_below_us: 0 };

    /// The step of a display showing `remaining_us`, beyond the tick.
    fn step_at(&self, remaining_us: u64) -> u64 {
        if remaining_us >= self.fine_below_us {
            self.step_us
        } else {
            0
        }
    }
}

/// What the policy said about one press.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PressVerdict {
    /// The judged difference, µs.
    pub difference_us: u64,
    pub within: bool,
    /// The accumulated rounding, when this press took it beyond its bound
    /// for the first time: (accumulated µs, bound µs, presses).
    pub rounding_beyond: Option<(i64, u64, u64)>,
}

/// The tolerance policy over one game, fed in record order.
#[derive(Clone, Debug)]
pub struct Tolerance {
    tick_us: u64,
    display: DisplayStep,
    sides: [SideState; 2],
    /// The largest judged difference of each time quantity, µs.
    pub largest_us: BTreeMap<&'static str, u64>,
}

fn slot(side: Side) -> usize {
    match side {
        Side::White => 0,
        Side::Black => 1,
    }
}

/// `firmware − model`, µs, saturating.
fn signed_difference(model_us: u64, firmware_us: u64) -> i64 {
    if firmware_us >= model_us {
        i64::try_from(firmware_us - model_us).unwrap_or(i64::MAX)
    } else {
        i64::try_from(model_us - firmware_us).map_or(i64::MIN, |difference| -difference)
    }
}

/// ⌈√n⌉.
fn ceil_sqrt(n: u64) -> u64 {
    let root = n.isqrt();
    if root.saturating_mul(root) < n {
        root + 1
    } else {
        root
    }
}

impl Tolerance {
    pub fn new(tick_us: u64) -> Tolerance {
        Tolerance::with_display(tick_us, DisplayStep::TICK)
    }

    pub fn with_display(tick_us: u64, display: DisplayStep) -> Tolerance {
        Tolerance { tick_us: tick_us.max(1), display, sides: Default::default(), largest_us: BTreeMap::new() }
    }

    /// Judges a Snapshot's display of `side` at record `index` as
    /// [`Tolerance::judge`] does, within one more display step where the
    /// clock declares its displays step coarser than a tick.
    pub fn judge_display(&mut self, side: Side, index: usize, model_us: u64, firmware_us: u64) -> bool {
        let quantity = Quantity::Remaining(side);
        let difference_us = self.judged_us(side, index, model_us, firmware_us);
        self.note(quantity, difference_us);
        difference_us <= self.tick_us.saturating_add(self.display.step_at(model_us))
    }

    /// The anchor of `side` as seen by record `index`: firmware − model
    /// after the side's last press before that record, µs.
    pub fn anchor_at(&self, side: Side, index: usize) -> i64 {
        let anchors = &self.sides[slot(side)].anchors;
        let before = anchors.partition_point(|&(press, _)| press < index);
        before.checked_sub(1).and_then(|last| anchors.get(last)).map_or(0, |&(_, anchor)| anchor)
    }

    /// Notes a difference of `quantity` that is judged elsewhere.
    pub fn note(&mut self, quantity: Quantity, difference_us: u64) {
        let largest = self.largest_us.entry(quantity.key()).or_insert(0);
        *largest = (*largest).max(difference_us);
    }

    /// The judged difference of a value of `side` at record `index`: the
    /// smaller of its difference from the model and from the model carried
    /// from the side's anchor. Times (`flag.at_us`) as displays: a firmware
    /// with more time left flags that much later.
    pub fn judged_us(&self, side: Side, index: usize, model_us: u64, firmware_us: u64) -> u64 {
        let difference = signed_difference(model_us, firmware_us);
        let anchored = difference.saturating_sub(self.anchor_at(side, index));
        difference.unsigned_abs().min(anchored.unsigned_abs())
    }

    /// Judges a value of `side` at record `index` (see [`Tolerance::judged_us`]),
    /// notes it, and says whether it is within a tick.
    pub fn judge(&mut self, quantity: Quantity, side: Side, index: usize, model_us: u64, firmware_us: u64) -> bool {
        let difference_us = self.judged_us(side, index, model_us, firmware_us);
        self.note(quantity, difference_us);
        difference_us <= self.tick_us
    }

    /// A new game from record `index` on (an accepted `tc` or `reset`):
    /// both sides start again from the model's state.
    pub fn restart(&mut self, index: usize) {
        for state in &mut self.sides {
            state.anchors.push((index, 0));
            (state.accumulated_us, state.presses, state.reported) = (0, 0, false);
        }
    }

    /// Judges the display `side` reported after its press at record
    /// `index`, then makes it the side's anchor and adds its rounding.
    pub fn press(&mut self, side: Side, index: usize, model_us: u64, firmware_us: u64) -> PressVerdict {
        let tick_us = self.tick_us;
        let difference = signed_difference(model_us, firmware_us);
        let local = difference.saturating_sub(self.anchor_at(side, index));
        let state = &mut self.sides[slot(side)];
        state.anchors.push((index, difference));
        state.presses = state.presses.saturating_add(1);
        let within = if local.unsigned_abs() <= tick_us {
            state.accumulated_us = state.accumulated_us.saturating_add(local);
            true
        } else if difference.unsigned_abs() <= tick_us {
            // The firmware agrees with the model itself: start afresh.
            state.accumulated_us = difference;
            state.presses = 1;
            true
        } else {
            false
        };
        let accumulated_us = state.accumulated_us;
        let bound_us = ROUNDING_BOUND_TICKS.saturating_mul(tick_us).saturating_mul(ceil_sqrt(state.presses));
        let rounding_beyond = (accumulated_us.unsigned_abs() > bound_us && !state.reported).then(|| {
            state.reported = true;
            (accumulated_us, bound_us, state.presses)
        });
        let difference_us = local.unsigned_abs().min(difference.unsigned_abs());
        self.note(Quantity::PressRemaining, difference_us);
        self.note(Quantity::RoundingAccumulated, accumulated_us.unsigned_abs());
        PressVerdict { difference_us, within, rounding_beyond }
    }
}

/// A rounding mismatch's two texts: (the bound, what accumulated).
pub fn rounding_texts(side: Side, (accumulated_us, bound_us, presses): (i64, u64, u64)) -> (String, String) {
    (
        format!(
            "{side}'s rounding within ±{} ({ROUNDING_BOUND_TICKS} ticks × ⌈√{presses}⌉ after {presses} presses)",
            signed_millis(i64::try_from(bound_us).unwrap_or(i64::MAX)).trim_start_matches('+')
        ),
        format!("{} accumulated", signed_millis(accumulated_us)),
    )
}

/// `-1923` → `-1.923 ms`.
fn signed_millis(us: i64) -> String {
    let sign = if us < 0 { '-' } else { '+' };
    let magnitude = us.unsigned_abs();
    format!("{sign}{}.{:03} ms", magnitude / 1_000, magnitude % 1_000)
}

#[cfg(test)]
mod tests;
