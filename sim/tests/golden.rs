//! Golden vectors: the first draws of every sampling helper, pinned.
//!
//! The expected numbers were computed by `tests/golden_reference.py`, an
//! independent Python implementation of ChaCha8 (RFC 7539 block function, 8
//! rounds, rand_chacha's word layout), of our stream derivation rule and of
//! each helper. If a dependency bump or a refactor changes any number, every
//! recorded seed would replay differently: this test fails first.

use bench_sim::rng::{Actor, Stream};
use bench_sim::sample::{below, between, chance, skewed, triangular, Ratio, Trials};

fn draws<T>(mut stream: Stream, count: usize, mut draw: impl FnMut(&mut Stream) -> T) -> Vec<T> {
    (0..count).map(|_| draw(&mut stream)).collect()
}

#[test]
fn raw_streams_follow_the_derivation_rule() {
    assert_eq!(
        draws(Stream::new(42, 0, Actor::White), 4, Stream::next_u64),
        [6424161053832095879, 5270208426312333099, 9102960255288774902, 6786414922848728802]
    );
    assert_eq!(
        draws(Stream::new(42, 7, Actor::Device), 4, Stream::next_u64),
        [9553281263048229149, 12811621025659576622, 8514703548481682029, 10963099693676206998]
    );
}

#[test]
fn below_is_lemire_with_rejection() {
    assert_eq!(draws(Stream::new(1, 0, Actor::Black), 8, |s| below(s, 1000)), [103, 817, 638, 327, 358, 971, 537, 172]);
}

#[test]
fn between_is_inclusive() {
    assert_eq!(
        draws(Stream::new(1, 0, Actor::Black), 8, |s| between(s, 100, 200)),
        [110, 182, 164, 133, 136, 198, 154, 117]
    );
}

#[test]
fn chance_draws_below_the_denominator() {
    let third = Ratio::new(1, 3).unwrap();
    let expected = [false, false, false, true, true, false, false, true, false, true, false, true];
    assert_eq!(draws(Stream::new(1, 0, Actor::Arbiter), 12, |s| chance(s, third)), expected);
}

#[test]
fn triangular_is_the_mean_of_two_uniforms() {
    assert_eq!(
        draws(Stream::new(1, 0, Actor::Board), 6, |s| triangular(s, 0, 1_000_000)),
        [597136, 449817, 779591, 591469, 592598, 130326]
    );
}

#[test]
fn skewed_is_a_product_of_two_uniforms() {
    assert_eq!(
        draws(Stream::new(1, 0, Actor::Swarm), 6, |s| skewed(s, 1_000, 60_000_000)),
        [8451056, 7626784, 31256191, 4122551, 11889974, 19749203]
    );
}

/// The indices of the successes among the first `count` trials.
fn successes(mut stream: Stream, ratio: Ratio, count: usize) -> Vec<usize> {
    let mut trials = Trials::new(&mut stream, ratio);
    (0..count).filter(|_| trials.next(&mut stream)).collect()
}

#[test]
fn trials_draw_geometric_gaps() {
    let twentieth = Ratio::new(1, 20).unwrap();
    assert_eq!(successes(Stream::new(1, 0, Actor::Bounce), twentieth, 200), [48, 80, 100, 142, 148, 193, 197]);
    let half = Ratio::new(1, 2).unwrap();
    assert_eq!(successes(Stream::new(1, 0, Actor::MissedPress), half, 24), [1, 2, 4, 8, 10, 12, 15, 16, 19, 20]);
    // Gaps of a rare chance, read as the trials between successes.
    let rare = Ratio::new(1, 3000).unwrap();
    let hits = successes(Stream::new(1, 0, Actor::Brownout), rare, 20_000);
    let gaps: Vec<usize> = hits
        .iter()
        .scan(None, |last: &mut Option<usize>, &hit| {
            let gap = last.map_or(hit, |last| hit - last - 1);
            *last = Some(hit);
            Some(gap)
        })
        .collect();
    assert_eq!(gaps[..6], [2784, 3920, 4295, 2218, 4232, 414]);
}

#[test]
fn adding_an_actor_never_shifts_another() {
    // Each actor's stream depends only on (seed, game, its own id).
    let white_alone = draws(Stream::new(9, 3, Actor::White), 16, Stream::next_u64);
    let _device = draws(Stream::new(9, 3, Actor::Device), 100, Stream::next_u64);
    assert_eq!(draws(Stream::new(9, 3, Actor::White), 16, Stream::next_u64), white_alone);
    assert_ne!(draws(Stream::new(9, 4, Actor::White), 16, Stream::next_u64), white_alone);
}
