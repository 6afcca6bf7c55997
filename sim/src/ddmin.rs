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
    let mut tests = 0u32;
    let mut budget_spent = false;
    let mut test = |candidate: &[T]| {
        if tests >= budget {
            budget_spent = true;
            return false;
        }
        tests += 1;
        fails(candidate)
    };
    let mut kept = elements;
    let mut parts = 2usize;
    while kept.len() >= 2 {
        let size = kept.len().div_ceil(parts);
        let chunks: Vec<&[T]> = kept.chunks(size).collect();
        // A part alone that fails, then all but one part.
        let smaller = chunks.iter().map(|chunk| (chunk.to_vec(), 2)).chain((0..chunks.len()).map(|left_out| {
            let rest = chunks.iter().enumerate().filter(|(index, _)| *index != left_out);
            (rest.flat_map(|(_, chunk)| chunk.iter().cloned()).collect(), parts.saturating_sub(1).max(2))
        }));
        let mut found = None;
        for (candidate, next_parts) in smaller {
            if candidate.len() < kept.len() && test(&candidate) {
                found = Some((candidate, next_parts));
                break;
            }
        }
        match found {
            Some((candidate, next_parts)) => {
                kept = candidate;
                parts = next_parts;
            }
            None if parts >= kept.len() => break,
            None => parts = (parts * 2).min(kept.len()),
        }
    }
    if kept.len() == 1 && test(&[]) {
        kept.clear();
    }
    Reduced { kept, tests, budget_spent }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_spent_budget_stops_the_reduction_with_a_failing_list() {
        let needed = [5, 77];
        let reduced = ddmin((0..100).collect(), 3, needs(&needed));
        assert_eq!(reduced.tests, 3);
        assert!(reduced.budget_spent);
        assert!(needs(&needed)(&reduced.kept), "what is kept still fails");
        assert!(reduced.kept.len() > 2);
    }
}
