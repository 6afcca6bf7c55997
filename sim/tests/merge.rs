//! A sweep cut anywhere adds up to the whole run: the summaries of any
//! contiguous slices of the games, merged in any order, equal the summary
//! of all the games played at once. `--shard I/N` and `bench report merge`
//! rely on it, and so does a run on several threads. The kept failures
//! (the first few by game index) and the drift envelope are the parts a
//! slice could get wrong; swarm runs fail often enough to pass the cap.
//! `PROPTEST_CASES` runs a longer hunt.

use std::path::{Path, PathBuf};

use bench_sim::defects::DefectSet;
use bench_sim::run::{self, RunOptions, Summary};
use bench_sim::scenario::Scenario;
use proptest::prelude::*;

const GAMES_MAX: u64 = 48;

fn shipped() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("reading {}: {error}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "toml"))
        .collect();
    files.sort();
    files
}

fn play(scenario: &Scenario, seed: u64, games: std::ops::Range<u64>, swarm: bool, model_oracle: bool) -> Summary {
    let options = RunOptions { seed, games, jobs: 1, swarm, model_oracle, disabled: DefectSet::NONE };
    run::run(scenario, &options, &|_| {})
}

proptest! {
    // 16 cases unless PROPTEST_CASES says otherwise.
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn slices_merged_in_any_order_equal_the_whole_run(
        pick in any::<prop::sample::Index>(),
        games in 1..=GAMES_MAX,
        cuts in prop::collection::vec(0..=GAMES_MAX, 0..6),
        rotate in any::<prop::sample::Index>(),
        seed in any::<u64>(),
        swarm in any::<bool>(),
        model_oracle in any::<bool>(),
    ) {
        let files = shipped();
        let file = pick.get(&files);
        let text = std::fs::read_to_string(file).expect("a shipped scenario");
        let scenario = Scenario::parse(&text, file).expect("parses");
        // Postal games have no device to draw defects for.
        let swarm = swarm && scenario.correspondence.is_none();
        let whole = play(&scenario, seed, 0..games, swarm, model_oracle);

        let mut bounds: Vec<u64> = cuts.into_iter().map(|cut| cut.min(games)).collect();
        bounds.extend([0, games]);
        bounds.sort_unstable();
        bounds.dedup();
        let mut slices: Vec<Summary> =
            bounds.windows(2).map(|pair| play(&scenario, seed, pair[0]..pair[1], swarm, model_oracle)).collect();
        let turn = rotate.index(slices.len());
        slices.rotate_left(turn);
        let mut merged = slices.remove(0);
        for slice in slices {
            merged.merge(slice);
        }
        let differ = differences(&merged, &whole);
        prop_assert!(
            differ.is_empty(),
            "{} games 0..{} cut at {:?}: the merged slices differ from the whole run in {:?}",
            file.display(),
            games,
            bounds,
            differ
        );
        prop_assert_eq!(merged, whole);
    }
}

/// The fields in which two summaries differ, by name.
fn differences(a: &Summary, b: &Summary) -> Vec<&'static str> {
    let fields = [
        ("games", a.games == b.games),
        ("presses", a.presses == b.presses),
        ("events", a.events == b.events),
        ("results", a.results == b.results),
        ("ideal_results", a.ideal_results == b.ideal_results),
        ("articles", a.articles == b.articles),
        ("outcomes", a.outcomes == b.outcomes),
        ("expected_classes", a.expected_classes == b.expected_classes),
        ("agreeing", a.agreeing == b.agreeing),
        ("max_time_error_us", a.max_time_error_us == b.max_time_error_us),
        ("games_with_violations", a.games_with_violations == b.games_with_violations),
        ("games_failed", a.games_failed == b.games_failed),
        ("nondeterministic_games", a.nondeterministic_games == b.nondeterministic_games),
        ("failures", a.failures == b.failures),
        ("defects", a.defects == b.defects),
        ("envelope_bucket_us", a.envelope_bucket_us == b.envelope_bucket_us),
        ("envelope", a.envelope == b.envelope),
        ("run_hash", a.run_hash == b.run_hash),
        ("drift_ppb", a.drift_ppb == b.drift_ppb),
    ];
    fields.into_iter().filter(|(_, same)| !same).map(|(name, _)| name).collect()
}
