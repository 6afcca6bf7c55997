//! Shrinking a failing game to the fewest presses, arbiter acts and
//! defects that still fail **the same way** ([`Cause`]):
//!
//! 1. switch off every defect the failure does not need, and cut the game
//!    to the fewest moves per player (a bisection of `max_moves`), until
//!    neither changes anything;
//! 2. take that game's [`Script`] and [`reduce`] it: delta debugging
//!    ([`crate::ddmin`]) leaves out moves (two thinks become one), arbiter
//!    acts and device faults until leaving out any single one loses the
//!    failure; then as many moves as still fail are made by a hurried
//!    player (short thinks spend no time, so the next pass leaves out
//!    moves a flag needed), each remaining think is halved where it still
//!    fails, and (`bench hil`'s presses) as many presses as still fail lose
//!    their contact bounce and are held as briefly as the briefest;
//! 3. switch defects off once more on the reduced script, and go round
//!    steps 2 and 3 again until neither changes anything.
//!
//! The result is 1-minimal: leaving out any one element of its script, or
//! switching off any one more defect, and the game no longer fails with
//! its cause (unless the budget ran out first, which it says). The shrunk
//! game is played from its script ([`crate::replay`] writes it as a file).

use std::collections::VecDeque;
use std::fmt;
use std::ops::Range;

use crate::ddmin::ddmin_in_batches;
use crate::defects::{Defect, DefectSet};
use crate::game::{self, GameRecord, GameSpec, Script};
use crate::player::HURRIED_MOVE_MIN_US;
use crate::run::failure_reasons;
use crate::scenario::{Control, Scenario};

/// Games a shrink may play unless told otherwise: enough for a 1-minimal
/// script of a few hundred elements.
pub const BUDGET_DEFAULT: u32 = 20_000;

/// What a failing game fails of, for shrinking: a step that fails
/// otherwise is a different bug, and shrinking must not slide to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// An oracle's invariant: the clock it watched (`device`, `ideal`) and
    /// the check, which states the rule it holds the clock to.
    Oracle { clock: &'static str, check: &'static str },
    /// The device's display off by more than the scenario's
    /// `expect.time_error_max_us`.
    TimeError,
    /// The device's result differs from the ideal clock's where every game
    /// must agree (`expect.agreement_min_percent = 100`).
    ResultDiffers,
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Oracle { clock, check } => write!(f, "{clock} oracle `{check}`"),
            Cause::TimeError => f.write_str("time error beyond the scenario's bound"),
            Cause::ResultDiffers => f.write_str("device result differs from the ideal clock's"),
        }
    }
}

/// A game's first cause of failure, in the order [`failure_reasons`] gives
/// them, its oracle violations taken earliest first; `None` when it passes.
pub fn first_cause(scenario: &Scenario, record: &GameRecord) -> Option<Cause> {
    if let Some(violation) = record.violations.iter().min_by_key(|violation| violation.at_us) {
        return Some(Cause::Oracle { clock: violation.clock, check: violation.check });
    }
    if scenario.expect.time_error_max_us.is_some_and(|bound| record.max_time_error_us > bound) {
        return Some(Cause::TimeError);
    }
    (scenario.expect.agreement_min_percent == 100 && !record.agrees()).then_some(Cause::ResultDiffers)
}

/// The smallest failing game found.
#[derive(Clone, Debug)]
pub struct Shrunk {
    pub cause: Cause,
    pub disabled: DefectSet,
    /// The move bound of the game (moves per player).
    pub max_moves: u32,
    /// The players' moves and the arbiter's acts that still fail.
    pub script: Script,
    /// A shorter time control the game still fails with (main times
    /// halved), when one does.
    pub control: Option<Control>,
    /// Elements (moves, acts and faults) of the original game's script.
    pub original_len: usize,
    /// The original game's presses.
    pub original_presses: u64,
    pub reasons: Vec<String>,
    /// The shrunk game, with its trace.
    pub record: GameRecord,
    /// Games played while shrinking.
    pub attempts: u32,
    /// The budget ran out: the game fails, but may not be minimal.
    pub budget_spent: bool,
}

/// What to shrink: one game of a scenario.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    pub scenario: &'a Scenario,
    pub seed: u64,
    pub game: u64,
    pub swarm: bool,
    pub model_oracle: bool,
}

/// One way to play the target: defects off, a move bound, and a script to
/// play instead of drawing the players' and arbiter's choices.
#[derive(Clone, Copy, Debug)]
pub struct Variant<'s> {
    pub disabled: DefectSet,
    pub max_moves: u32,
    pub script: Option<&'s Script>,
}

/// Plays the target as `variant` says, its script kept; traced on request.
pub fn play_variant(target: Target<'_>, variant: Variant<'_>, trace: bool) -> GameRecord {
    let mut scenario = target.scenario.clone();
    scenario.board.max_moves = variant.max_moves.max(1);
    game::play(GameSpec {
        scenario: &scenario,
        seed: target.seed,
        game: target.game,
        swarm: target.swarm,
        trace,
        model_oracle: target.model_oracle,
        disabled: variant.disabled,
        record_inputs: true,
        script: variant.script,
    })
}

/// Shrinks a failing game within `budget` games; `None` when the game
/// does not fail.
pub fn shrink(target: Target<'_>, budget: u32) -> Option<Shrunk> {
    let whole = Variant { disabled: DefectSet::NONE, max_moves: target.scenario.board.max_moves, script: None };
    shrink_from(target, whole, budget)
}

/// Shrinks the target played as `start` says (a replay file's game);
/// `None` when it does not fail.
pub fn shrink_from(target: Target<'_>, start: Variant<'_>, budget: u32) -> Option<Shrunk> {
    let played = play_variant(target, start, false);
    let cause = first_cause(target.scenario, &played)?;
    let original_len = played.script.as_ref().map_or(0, Script::len);
    let mut shrinker = Shrinker { target, cause, attempts: 1, budget, budget_spent: false };
    let (mut disabled, max_moves) = shrinker.defects_and_moves(start);
    let first = Variant { disabled, max_moves, ..start };
    let mut script = play_variant(target, first, false).script.unwrap_or_default();
    shrinker.attempts += 1;
    shrinker.reduce_until_nothing_changes(&mut script, &mut disabled, max_moves);
    // Then a shorter control where the failure allows (a shorter game to
    // play, and on a board a shorter run), and the script reduced again
    // under it.
    let shorter = shrinker.shorter_control(Variant { disabled, max_moves, script: Some(&script) });
    let shorter_scenario =
        shorter.as_ref().map(|control| Scenario { control: control.clone(), ..target.scenario.clone() });
    let target = shorter_scenario.as_ref().map_or(target, |scenario| Target { scenario, ..target });
    if shorter.is_some() {
        let mut again = Shrinker { target, ..shrinker };
        again.reduce_until_nothing_changes(&mut script, &mut disabled, max_moves);
        shrinker = Shrinker { target: shrinker.target, ..again };
    }
    let record = play_variant(target, Variant { disabled, max_moves, script: Some(&script) }, true);
    let reasons = failure_reasons(target.scenario, &record);
    Some(Shrunk {
        cause: shrinker.cause,
        disabled,
        max_moves,
        script,
        control: shorter,
        original_len,
        original_presses: played.presses,
        reasons,
        record,
        attempts: shrinker.attempts,
        budget_spent: shrinker.budget_spent,
    })
}

/// The shrink's state: what it keeps failing of, and the games it played.
struct Shrinker<'a> {
    target: Target<'a>,
    cause: Cause,
    attempts: u32,
    budget: u32,
    budget_spent: bool,
}

impl Shrinker<'_> {
    /// Whether `variant` fails with the cause; `false` once the budget is
    /// spent, so every step stops where it stands.
    fn fails_the_same(&mut self, variant: Variant<'_>) -> bool {
        self.fails_the_same_as(self.target, variant)
    }

    /// [`Shrinker::fails_the_same`], played as `target`.
    fn fails_the_same_as(&mut self, target: Target<'_>, variant: Variant<'_>) -> bool {
        if self.attempts >= self.budget {
            self.budget_spent = true;
            return false;
        }
        self.attempts += 1;
        let record = play_variant(target, variant, false);
        first_cause(target.scenario, &record).as_ref() == Some(&self.cause)
    }

    /// Step 1: defects off and the move bound bisected, until neither
    /// changes anything, since each can make the other find more: a defect
    /// needed only while another was on, or one that acts only after the
    /// cut.
    fn defects_and_moves(&mut self, start: Variant<'_>) -> (DefectSet, u32) {
        let mut variant = start;
        loop {
            let before = (variant.disabled, variant.max_moves);
            variant.disabled = self.switch_off_defects(variant);
            let high = lowest_failing_bound(variant.max_moves, |max_moves| {
                self.fails_the_same(Variant { max_moves, ..variant })
            });
            if high < variant.max_moves && self.fails_the_same(Variant { max_moves: high, ..variant }) {
                variant.max_moves = high;
            }
            if (variant.disabled, variant.max_moves) == before {
                return before;
            }
        }
    }

    /// Steps 2 and 3 until neither changes anything.
    fn reduce_until_nothing_changes(&mut self, script: &mut Script, disabled: &mut DefectSet, max_moves: u32) {
        loop {
            let before = (script.clone(), *disabled);
            *script = self.reduce_script(Variant { disabled: *disabled, max_moves, script: None }, script.clone());
            *disabled = self.switch_off_defects(Variant { disabled: *disabled, max_moves, script: Some(script) });
            if (&*script, *disabled) == (&before.0, before.1) || self.budget_spent {
                return;
            }
        }
    }

    /// The shortest control, halving its main times, that `variant` still
    /// fails with; `None` when the scenario's own is the shortest.
    fn shorter_control(&mut self, variant: Variant<'_>) -> Option<Control> {
        let mut shortest: Option<Control> = None;
        loop {
            let current = shortest.as_ref().unwrap_or(&self.target.scenario.control);
            let candidate = current.with_main_times_halved()?;
            let scenario = Scenario { control: candidate.clone(), ..self.target.scenario.clone() };
            let target = Target { scenario: &scenario, ..self.target };
            if !self.fails_the_same_as(target, variant) {
                return shortest;
            }
            shortest = Some(candidate);
        }
    }

    /// Every defect the failure does not need switched off, one at a time.
    fn switch_off_defects(&mut self, variant: Variant<'_>) -> DefectSet {
        let mut disabled = variant.disabled;
        for defect in Defect::ALL {
            let candidate = disabled.with(defect);
            if candidate != disabled && self.fails_the_same(Variant { disabled: candidate, ..variant }) {
                disabled = candidate;
            }
        }
        disabled
    }

    /// Step 2: the script reduced ([`reduce`]), played as `variant` says
    /// otherwise.
    fn reduce_script(&mut self, variant: Variant<'_>, script: Script) -> Script {
        let budget = self.budget.saturating_sub(self.attempts);
        let (target, cause) = (self.target, &self.cause);
        let reduction = reduce(script, budget, |candidate| {
            let record = play_variant(target, Variant { script: Some(candidate), ..variant }, false);
            first_cause(target.scenario, &record).as_ref() == Some(cause)
        });
        self.attempts = self.attempts.saturating_add(reduction.tests);
        self.budget_spent |= reduction.budget_spent;
        reduction.script
    }
}

/// A script reduced by [`reduce`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reduction {
    pub script: Script,
    /// Tests made (calls of the predicate).
    pub tests: u32,
    /// The budget ran out first: the script still fails, but may not be
    /// 1-minimal.
    pub budget_spent: bool,
}

/// Reduces a script that `fails` while it still does, in at most `budget`
/// tests: delta debugging over its moves, acts and faults (its first pass
/// held to [`first_pass_tests`]), as many moves as it allows made by a
/// hurried player ([`hurry`]), each think halved where it still fails
/// (everything after a shorter think earlier by as much), and scripted
/// presses without bounce and held briefly where it still fails, until
/// none of them changes anything. The simulator's and
/// `bench hil`'s shrinking alike; deterministic when `fails` is.
pub fn reduce(script: Script, budget: u32, mut fails: impl FnMut(&Script) -> bool) -> Reduction {
    reduce_in_batches(script, budget, 1, |batch| batch.iter().map(&mut fails).collect())
}

/// [`reduce`] with delta debugging's candidates tested up to `jobs` at a
/// time ([`ddmin_in_batches`]: `fails` says of each script of a batch
/// whether it fails). The script, the tests counted and the budget do not
/// depend on `jobs`; only the tests made for nothing do.
pub fn reduce_in_batches(
    mut script: Script,
    budget: u32,
    jobs: usize,
    mut fails: impl FnMut(&[Script]) -> Vec<bool>,
) -> Reduction {
    let mut spent = Spent { tests: 0, budget, budget_spent: false };
    let mut first = true;
    loop {
        let before = script.clone();
        let left = budget.saturating_sub(spent.tests);
        // The first pass of delta debugging is held to a few tests an
        // element: where nearly every move is needed (a flag would fall
        // first) it would spend the budget, and hurrying the moves below
        // lets the next pass leave them out.
        let cap = if first { left.min(first_pass_tests(script.len())) } else { left };
        let elements = script.elements();
        let reduced = ddmin_in_batches(elements, cap, jobs, |batch| {
            let scripts: Vec<Script> = batch.iter().map(|kept| script.keeping(kept)).collect();
            fails(&scripts)
        });
        let capped = reduced.budget_spent && cap < left;
        spent.tests = spent.tests.saturating_add(reduced.tests);
        spent.budget_spent |= reduced.budget_spent && !capped;
        script = script.keeping(&reduced.kept);
        script = hurry(script, &mut |candidate| spent.test(&mut fails, candidate));
        script = halve_thinks(script, &mut |candidate| spent.test(&mut fails, candidate));
        script = simplify(script, Script::without_bounce, &mut |candidate| spent.test(&mut fails, candidate));
        script = simplify(script, Script::briefest_holds, &mut |candidate| spent.test(&mut fails, candidate));
        first = false;
        if spent.budget_spent || (script == before && !capped) {
            return Reduction { script, tests: spent.tests, budget_spent: spent.budget_spent };
        }
    }
}

/// The lowest move bound in `1..=max_moves` that `fails`, by bisection
/// (`max_moves` itself is taken to fail and not tested).
pub fn lowest_failing_bound(max_moves: u32, mut fails: impl FnMut(u32) -> bool) -> u32 {
    let (mut low, mut high) = (1u32, max_moves);
    while low < high {
        let middle = low + (high - low) / 2;
        if fails(middle) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    high
}

/// The tests the first pass of delta debugging may make on a script of
/// `elements`: plenty where a few elements matter (about 2 log n a needed
/// one), far fewer than its worst case (n²) where nearly all do.
fn first_pass_tests(elements: usize) -> u32 {
    u32::try_from(elements.saturating_mul(4).saturating_add(100)).unwrap_or(u32::MAX)
}

/// The tests a reduction made, against its budget.
struct Spent {
    tests: u32,
    budget: u32,
    budget_spent: bool,
}

impl Spent {
    /// Whether `candidate` fails, as one test; `false` once the budget is
    /// spent, so every step stops where it stands.
    fn test(&mut self, fails: &mut impl FnMut(&[Script]) -> Vec<bool>, candidate: &Script) -> bool {
        if self.tests >= self.budget {
            self.budget_spent = true;
            return false;
        }
        self.tests += 1;
        fails(std::slice::from_ref(candidate)).first().copied().unwrap_or(false)
    }
}

/// As many moves as `fails` allows made by a hurried player ([`simplify`]).
/// Cheap where few thinks matter to the failure (a race between a press
/// and the next). Short thinks spend no time that leaving a move out would
/// add to a neighbour's (under delay or increment, long merged thinks make
/// a flag fall before the failure), so the next pass of delta debugging
/// leaves out moves the last one could not.
fn hurry(script: Script, fails: &mut impl FnMut(&Script) -> bool) -> Script {
    simplify(script, |script, moves| script.hurried(moves, HURRIED_MOVE_MIN_US), fails)
}

/// `change` made to as many moves as `fails` allows, found by bisection:
/// to all of them, else to each half on its own, and so on down to single
/// moves. A few tests where most moves take the change.
fn simplify(
    mut script: Script,
    change: impl Fn(&Script, Range<usize>) -> Script,
    fails: &mut impl FnMut(&Script) -> bool,
) -> Script {
    let mut pending: VecDeque<Range<usize>> = VecDeque::new();
    pending.push_back(0..script.moves.len());
    while let Some(moves) = pending.pop_front() {
        let candidate = change(&script, moves.clone());
        if candidate == script {
            continue;
        }
        if fails(&candidate) {
            script = candidate;
        } else if moves.len() > 1 {
            let middle = moves.start + moves.len() / 2;
            pending.push_front(middle..moves.end);
            pending.push_front(moves.start..middle);
        }
    }
    script
}

/// Each move's think halved where `fails` allows, in whole milliseconds as
/// players think (the clocks' tick grid); everything after it earlier by
/// as much.
fn halve_thinks(mut script: Script, fails: &mut impl FnMut(&Script) -> bool) -> Script {
    for index in 0..script.moves.len() {
        let start_us = script.think_start_us(index);
        let think_us = script.moves.get(index).map_or(0, |scripted| scripted.at_us).saturating_sub(start_us);
        let shorter_us = think_us / 2 / 1_000 * 1_000;
        if shorter_us <= HURRIED_MOVE_MIN_US || shorter_us >= think_us {
            continue;
        }
        let candidate = script.earlier_from(index, think_us - shorter_us);
        if fails(&candidate) {
            script = candidate;
        }
    }
    script
}
