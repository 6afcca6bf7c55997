//! Rule coverage of a run: how often each of the clock's transitions
//! happened, and in how many games. Read from the reference model's own
//! counts ([`chessclock::Transitions`]), never re-derived. A scenario's
//! `[expect] exercises` is checked against it ([`exercises_check`]); a HIL
//! report sums its model's counts the same way (`bench_report::hil`).

use chessclock::{Transition, Transitions};

/// One transition over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Covered {
    /// Times it happened.
    pub count: u64,
    /// Games it happened in at least once.
    pub games: u64,
}

/// Every transition over a run. Bounded in size whatever the game count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    covered: [Covered; Transition::ALL.len()],
}

impl Coverage {
    /// Adds one game's transitions.
    pub fn add_game(&mut self, transitions: &Transitions) {
        for ((_, count), covered) in transitions.iter().zip(&mut self.covered) {
            if count > 0 {
                covered.count = covered.count.saturating_add(u64::from(count));
                covered.games = covered.games.saturating_add(1);
            }
        }
    }

    /// Adds another run's coverage (a thread's, a shard's, a game's).
    pub fn merge(&mut self, other: &Coverage) {
        for (mine, theirs) in self.covered.iter_mut().zip(&other.covered) {
            mine.count = mine.count.saturating_add(theirs.count);
            mine.games = mine.games.saturating_add(theirs.games);
        }
    }

    pub fn get(&self, transition: Transition) -> Covered {
        self.iter().find(|(listed, _)| *listed == transition).map_or_else(Covered::default, |(_, covered)| covered)
    }

    /// Sets one transition's figures (a report read back).
    pub fn set(&mut self, transition: Transition, covered: Covered) {
        if let Some((_, slot)) =
            Transition::ALL.iter().zip(&mut self.covered).find(|(listed, _)| **listed == transition)
        {
            *slot = covered;
        }
    }

    /// Every transition with its figures, in [`Transition::ALL`]'s order.
    pub fn iter(&self) -> impl Iterator<Item = (Transition, Covered)> + '_ {
        Transition::ALL.into_iter().zip(self.covered.iter().copied())
    }

    /// Of `required`, the transitions that never happened.
    pub fn missing(&self, required: &[Transition]) -> Vec<Transition> {
        required.iter().copied().filter(|transition| self.get(*transition).count == 0).collect()
    }
}

/// The check that a run exercised what its scenario exists for
/// (`[expect] exercises`).
pub const EXERCISES_CHECK: &str = "rules the scenario exists for exercised";

/// `exercises`' check over `coverage`; `None` when the scenario lists none.
pub fn exercises_check(required: &[Transition], coverage: &Coverage) -> Option<crate::run::Check> {
    if required.is_empty() {
        return None;
    }
    let missing = coverage.missing(required);
    let names = |transitions: &[Transition]| {
        transitions.iter().map(|transition| transition.key()).collect::<Vec<_>>().join(", ")
    };
    Some(crate::run::Check {
        name: EXERCISES_CHECK.into(),
        passed: missing.is_empty(),
        measured: if missing.is_empty() { "all of them".into() } else { format!("never: {}", names(&missing)) },
        expected: names(required),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessclock::{notation, Clock, Instant, Side};

    fn game(control: &str, presses: u64) -> Transitions {
        let mut clock = Clock::new(notation::parse(control).unwrap());
        clock.start(Instant::EPOCH).unwrap();
        let mut side = Side::White;
        for second in 1..=presses {
            clock.press(side, Instant::from_us(second * 1_000_000)).unwrap();
            side = side.opponent();
        }
        *clock.transitions()
    }

    #[test]
    fn counts_add_up_and_games_count_once_each() {
        let mut coverage = Coverage::default();
        coverage.add_game(&game("60+2", 3));
        coverage.add_game(&game("60", 2));
        assert_eq!(coverage.get(Transition::Press), Covered { count: 5, games: 2 });
        assert_eq!(coverage.get(Transition::Increment), Covered { count: 3, games: 1 });
        let mut doubled = coverage.clone();
        doubled.merge(&coverage);
        assert_eq!(doubled.get(Transition::Press), Covered { count: 10, games: 4 });
    }

    #[test]
    fn a_run_that_never_exercised_a_listed_rule_fails_its_check() {
        let mut coverage = Coverage::default();
        coverage.add_game(&game("60", 4));
        let check = exercises_check(&[Transition::Press, Transition::Increment], &coverage).unwrap();
        assert!(!check.passed);
        assert_eq!(check.measured, "never: increment");
        coverage.add_game(&game("60+1", 1));
        assert!(exercises_check(&[Transition::Press, Transition::Increment], &coverage).unwrap().passed);
        assert!(exercises_check(&[], &coverage).is_none());
    }
}
