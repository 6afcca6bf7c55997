//! Generated time controls, played by the simulator: the same rules on
//! the device and the ideal clock whatever the control (stages with every
//! bonus, hourglass, byo-yomi, Canadian, zero times included) and whatever
//! the arbiter or the device's defects do. `PROPTEST_CASES` runs longer
//! hunts.

use std::path::Path;

use bench_sim::run::{self, RunOptions};
use bench_sim::scenario::Scenario;
use proptest::prelude::*;

/// A time control in the core's notation, with times from `0` to
/// `max_s` seconds in tenths: stages with every bonus, hourglass, byo-yomi,
/// Canadian; `with_bonus_delay` lets stages carry delay and Bronstein bonuses.
fn control_text(with_bonus_delay: bool) -> impl Strategy<Value = String> {
    let tenths = |max_s: u32| (0..=max_s * 10).prop_map(|tenths| format!("{}.{}", tenths / 10, tenths % 10));
    let kinds = if with_bonus_delay { ["", "+", "+d", "+b"].as_slice() } else { ["", "+"].as_slice() };
    let bonus = (prop::sample::select(kinds), tenths(5)).prop_map(|(kind, time)| match kind {
        "" => String::new(),
        kind => format!("{kind}{time}"),
    });
    let stage = (1..12u32, tenths(90), bonus.clone()).prop_map(|(moves, time, bonus)| format!("{moves}/{time}{bonus}"));
    prop_oneof![
        4 => (prop::collection::vec(stage, 0..4), tenths(120), bonus).prop_map(|(mut stages, last, bonus)| {
            stages.push(format!("{last}{bonus}"));
            stages.join(":")
        }),
        1 => tenths(120).prop_filter("time to play", |time| time != "0.0").prop_map(|time| format!("*{time}")),
        1 => (tenths(60), 1..6u32, tenths(10).prop_filter("a period", |time| time != "0.0"))
            .prop_map(|(main, periods, period)| format!("{main}({periods}x{period})")),
        1 => (tenths(60), 1..6u32, tenths(30).prop_filter("a period", |time| time != "0.0"))
            .prop_map(|(main, moves, period)| format!("{main}({moves}/{period})")),
    ]
}

/// A scenario file around `control`, with `tables` after the players'.
fn scenario(control: &str, think_max_ms: u64, tables: &str) -> Scenario {
    let text = format!(
        "description = \"generated\"\ncontrol = \"{control}\"\nseed = 9\n\
         [players]\nthink = {{ distribution = \"skewed\", min_ms = 100, max_ms = {think_max_ms} }}\n{tables}"
    );
    Scenario::parse(&text, Path::new("generated.toml")).unwrap_or_else(|error| panic!("{error}\n{text}"))
}

proptest! {
    // 32 cases unless PROPTEST_CASES says otherwise.
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any control, any mix of arbiter habits (restored positions too;
    /// replacements only where a
    /// new clock can restart a move exactly: not under delay or Bronstein,
    /// see `scenarios/README.md`), the order of flags shown or not, late
    /// arrivals: a perfect device agrees with the ideal clock in every game.
    #[test]
    fn a_perfect_device_agrees_under_any_control_and_arbiter(
        (control, replace) in any::<bool>().prop_flat_map(|replace| (control_text(!replace), Just(replace))),
        habits in prop::collection::vec(any::<bool>(), 8),
        think_max_s in 1..30u64,
        arrival_s in 0..90u64,
    ) {
        let on = |index: usize, text: &str| if habits[index] { format!("{text}\n") } else { String::new() };
        let tables = format!(
            "[black]\nthink = {{ distribution = \"uniform\", min_ms = 100, max_ms = {think_ms} }}\narrival_ms = {arrival_ms}\n\
             [arbiter]\nclock_shows_first_flag = {shows}\n{flag_noticed}{notice_delay}{pause}{adjust}{set_moves}{restore}{replace_clock}\
             [expect]\nagreement_min_percent = 100\n",
            think_ms = think_max_s * 1_000,
            arrival_ms = if habits[6] { arrival_s * 1_000 } else { 0 },
            shows = habits[0],
            flag_noticed = on(1, "flag_noticed = \"1/2\""),
            notice_delay = on(2, "notice_delay = { chance = \"1/2\", min_ms = 0, max_ms = 5000 }"),
            pause = on(3, "pause = { chance = \"1/8\", min_ms = 1000, max_ms = 10000 }"),
            adjust = on(4, "adjust = { chance = \"1/8\", min_ms = 1000, max_ms = 9000 }"),
            set_moves = on(5, "set_moves = \"1/9\""),
            restore = on(7, "restore = \"1/6\""),
            replace_clock = if replace { "replace_clock = \"1/7\"\n" } else { "" },
        );
        let scenario = scenario(&control, think_max_s * 1_000, &tables);
        let options = RunOptions { games: 0..60, model_oracle: true, ..RunOptions::scenario(&scenario, 2) };
        let summary = run::run(&scenario, &options, &|_| {});
        let reasons: Vec<&String> = summary.failures.iter().flat_map(|failure| &failure.reasons).take(3).collect();
        prop_assert_eq!(summary.games_with_violations, 0, "{}: {:?}\n{}", control, reasons, tables);
        prop_assert_eq!(summary.max_time_error_us, 0, "{}\n{}", control, tables);
        prop_assert_eq!(summary.games - summary.agreeing, 0, "{}: results differ\n{}", control, tables);
    }

    /// Any control under swarm defects (each game's mix drawn from its
    /// seed: drift, jitter, bounce, missed, double and stuck presses,
    /// brownouts, freezes) and a busy arbiter: results may differ, the
    /// invariants and the tick model may not.
    #[test]
    fn every_invariant_holds_under_any_control_and_defects(control in control_text(true), think_max_s in 1..30u64) {
        let tables = "[arbiter]\npause = { chance = \"1/10\", min_ms = 1000, max_ms = 10000 }\n\
                      adjust = { chance = \"1/10\", min_ms = 1000, max_ms = 9000 }\nset_moves = \"1/9\"\n\
                      replace_clock = \"1/9\"\nrestore = \"1/9\"\n[expect]\nagreement_min_percent = 0\n";
        let scenario = scenario(&control, think_max_s * 1_000, tables);
        let options = RunOptions { games: 0..40, swarm: true, model_oracle: true, ..RunOptions::scenario(&scenario, 2) };
        let summary = run::run(&scenario, &options, &|_| {});
        let reasons: Vec<&String> = summary.failures.iter().flat_map(|failure| &failure.reasons).take(3).collect();
        prop_assert_eq!(summary.games_with_violations, 0, "{}: {:?}", control, reasons);
    }
}
