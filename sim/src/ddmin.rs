//! Delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating
//! Failure-Inducing Input", 2002): the `ddmin` reduction of a failing list
//! to a 1-minimal one, where leaving out any single element makes the
//! failure go away. Written here because no maintained crate offers it;
//! it is the paper's algorithm, with a budget on the tests it makes.

/// How a reduction ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reduced<T> {
    pub kept: Vec<T>,
    /// Tests made (calls of the predicate).
    pub tests: u32,
    /// The budget ran out first: `kept` still fails, but may not be
    /// 1-minimal.
    pub budget_spent: bool,
}

/// Reduces `elements` (which `fails`) to a 1-minimal sublist that still
/// `fails`, in their order, making at most `budget` tests. Deterministic:
/// the same predicate gives the same list.
pub fn ddmin<T: Clone>(elements: Vec<T>, budget: u32, mut fails: impl FnMut(&[T]) -> bool) -> Reduced<T> {
    ddmin_in_batches(elements, budget, 1, |batch| batch.iter().map(|candidate| fails(candidate)).collect())
}

/// [`ddmin`] with the candidates of a step tested up to `jobs` at a time:
/// `fails` gets a batch and says of each whether it fails. The first
/// failing candidate in the paper's order is taken, as one at a time
/// would, and tests are counted as one at a time makes them (the
/// candidates after it in its batch were tested for nothing), so the list
/// kept, the tests and the budget do not depend on `jobs`.
pub fn ddmin_in_batches<T: Clone>(
    elements: Vec<T>,
    budget: u32,
    jobs: usize,
    fails: impl FnMut(&[Vec<T>]) -> Vec<bool>,
) -> Reduced<T> {
    let mut tester = Tester { tests: 0, budget, budget_spent: false, jobs: jobs.max(1), fails };
    let mut kept = elements;
    let mut parts = 2usize;
    while kept.len() >= 2 {
        let size = kept.len().div_ceil(parts);
        let chunks: Vec<&[T]> = kept.chunks(size).collect();
        // A part alone that fails, then all but one part.
        let (candidates, next_parts): (Vec<Vec<T>>, Vec<usize>) = chunks
            .iter()
            .map(|chunk| (chunk.to_vec(), 2))
            .chain((0..chunks.len()).map(|left_out| {
                let rest = chunks.iter().enumerate().filter(|(index, _)| *index != left_out);
                (rest.flat_map(|(_, chunk)| chunk.iter().cloned()).collect(), parts.saturating_sub(1).max(2))
            }))
            .filter(|(candidate, _)| candidate.len() < kept.len())
            .unzip();
        match tester.first_failing(&candidates) {
            Some(index) => {
                parts = next_parts.get(index).copied().unwrap_or(2);
                kept = candidates.into_iter().nth(index).unwrap_or_default();
            }
            None if parts >= kept.len() || tester.budget_spent => break,
            None => parts = (parts * 2).min(kept.len()),
        }
    }
    if kept.len() == 1 && tester.first_failing(&[Vec::new()]).is_some() {
        kept.clear();
    }
    Reduced { kept, tests: tester.tests, budget_spent: tester.budget_spent }
}

/// Tests candidates in batches, counting as one at a time would.
struct Tester<F> {
    tests: u32,
    budget: u32,
    budget_spent: bool,
    jobs: usize,
    fails: F,
}

impl<F> Tester<F> {
    /// The index of the first failing candidate, in order; `None` when
    /// none fails or the budget runs out first.
    fn first_failing<T>(&mut self, candidates: &[Vec<T>]) -> Option<usize>
    where
        F: FnMut(&[Vec<T>]) -> Vec<bool>,
    {
        let mut start = 0;
        while start < candidates.len() {
            let room = usize::try_from(self.budget.saturating_sub(self.tests)).unwrap_or(usize::MAX);
            if room == 0 {
                self.budget_spent = true;
                return None;
            }
            let batch = &candidates[start..candidates.len().min(start + self.jobs.min(room))];
            let verdicts = (self.fails)(batch);
            let failing = verdicts.iter().take(batch.len()).position(|failed| *failed);
            let counted = failing.map_or(batch.len(), |index| index + 1);
            self.tests = self.tests.saturating_add(u32::try_from(counted).unwrap_or(u32::MAX));
            if let Some(index) = failing {
                return Some(start + index);
            }
            start += batch.len();
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Predicate<'a> = dyn Fn(&[u32]) -> bool + 'a;

    /// Fails when every element of `needed` is there.
    fn needs(needed: &[u32]) -> impl Fn(&[u32]) -> bool + '_ {
        move |candidate: &[u32]| needed.iter().all(|element| candidate.contains(element))
    }

    #[test]
    fn ddmin_keeps_exactly_the_elements_the_failure_needs() {
        let elements: Vec<u32> = (0..100).collect();
        for needed in [vec![], vec![42], vec![0, 99], vec![3, 17, 18, 64, 65, 90]] {
            let reduced = ddmin(elements.clone(), u32::MAX, needs(&needed));
            assert_eq!(reduced.kept, needed);
            assert!(!reduced.budget_spent);
        }
    }

    #[test]
    fn ddmin_is_one_minimal_where_the_failure_is_not_monotone() {
        // Fails on an even count of elements above 50, at least two: no
        // subset order helps; the result must still lose any single element
        // only to pass.
        let fails = |candidate: &[u32]| {
            let above = candidate.iter().filter(|element| **element > 50).count();
            above >= 2 && above % 2 == 0
        };
        let reduced = ddmin((0..80).collect(), u32::MAX, fails);
        assert!(fails(&reduced.kept));
        for index in 0..reduced.kept.len() {
            let mut fewer = reduced.kept.clone();
            fewer.remove(index);
            assert!(!fails(&fewer), "{:?} without its element {index} still fails", reduced.kept);
        }
    }

    #[test]
    fn batches_of_any_size_keep_and_count_what_one_at_a_time_does() {
        let uneven = |candidate: &[u32]| {
            let above = candidate.iter().filter(|element| **element > 50).count();
            above >= 2 && above % 2 == 0
        };
        let needed = [3, 17, 18, 64, 65, 90];
        let needed_only = needs(&needed);
        let predicates: [&Predicate<'_>; 2] = [&uneven, &needed_only];
        for fails in predicates {
            for budget in [u32::MAX, 40, 7] {
                let alone = ddmin((0..100).collect(), budget, fails);
                for jobs in [2, 3, 8, 64] {
                    let mut made = 0usize;
                    let batched = ddmin_in_batches((0..100).collect(), budget, jobs, |batch| {
                        assert!(batch.len() <= jobs, "a batch of {} on {jobs} jobs", batch.len());
                        made += batch.len();
                        batch.iter().map(|candidate| fails(candidate)).collect()
                    });
                    assert_eq!(batched, alone, "{jobs} jobs, budget {budget}");
                    assert!(made >= alone.tests as usize, "every counted test was made");
                }
            }
        }
    }

    #[test]
    fn a_spent_budget_stops_the_reduction_with_a_failing_list() {
        let needed = [5, 77];
        let reduced = ddmin((0..100).collect(), 3, needs(&needed));
        assert_eq!(reduced.tests, 3);
        assert!(reduced.budget_spent);
        assert!(needs(&needed)(&reduced.kept), "what is kept still fails");
        assert!(reduced.kept.len() > 2);
    }
}
