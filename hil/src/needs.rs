//! What a scenario needs of a firmware, against what the firmware announced
//! in its Capabilities record (contract 3): a scenario whose time control
//! uses a feature the clock leaves out is skipped, with the feature named,
//! instead of failing on a refused `tc`. So is one whose arbiter uses a
//! function the firmware does not announce (or pauses on a board with no
//! pause button), one with a time outside the ranges the record declares
//! ([`outside_ranges`]: past `time_max_s`, finer than `setting_step_us`),
//! and one whose arbiter reads which flag fell first on a clock that does
//! not show it (`schedule::Games::unsupported`). `bench hil` writes the
//! reason to the scenario's `skipped.md`, and a suite's `suite.md` lists
//! it.

use std::fmt;

use bench_contract::{
    Capabilities, Ranges, ARBITER_ADJUST_TIME, ARBITER_PAUSE, ARBITER_REPLACE, ARBITER_SET_MOVES, ARBITER_SET_TIME,
    CONTROL_BRONSTEIN, CONTROL_BYO_YOMI, CONTROL_CANADIAN, CONTROL_DELAY, CONTROL_HOURGLASS, CONTROL_INCREMENT,
    CONTROL_PLAIN, CONTROL_STAGES,
};
use chessclock::{Bonus, TimeControl};

/// One feature of a time control, as Capabilities' `controls` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ControlFeature {
    Plain,
    Increment,
    Delay,
    Bronstein,
    Stages,
    Hourglass,
    ByoYomi,
    Canadian,
}

impl ControlFeature {
    pub const ALL: [ControlFeature; 8] = [
        ControlFeature::Plain,
        ControlFeature::Increment,
        ControlFeature::Delay,
        ControlFeature::Bronstein,
        ControlFeature::Stages,
        ControlFeature::Hourglass,
        ControlFeature::ByoYomi,
        ControlFeature::Canadian,
    ];

    /// Its bit in [`Capabilities::controls`].
    pub const fn bit(self) -> u32 {
        match self {
            ControlFeature::Plain => CONTROL_PLAIN,
            ControlFeature::Increment => CONTROL_INCREMENT,
            ControlFeature::Delay => CONTROL_DELAY,
            ControlFeature::Bronstein => CONTROL_BRONSTEIN,
            ControlFeature::Stages => CONTROL_STAGES,
            ControlFeature::Hourglass => CONTROL_HOURGLASS,
            ControlFeature::ByoYomi => CONTROL_BYO_YOMI,
            ControlFeature::Canadian => CONTROL_CANADIAN,
        }
    }

    /// The name reports use, with the article where the Laws define it.
    pub const fn name(self) -> &'static str {
        match self {
            ControlFeature::Plain => "a stage with no bonus (sudden death)",
            ControlFeature::Increment => "Fischer increment (6.2a)",
            ControlFeature::Delay => "time delay (6.2b)",
            ControlFeature::Bronstein => "Bronstein delay",
            ControlFeature::Stages => "several stages by moves (6.2b, 6.3)",
            ControlFeature::Hourglass => "hourglass",
            ControlFeature::ByoYomi => "byo-yomi",
            ControlFeature::Canadian => "Canadian overtime",
        }
    }

    /// The short key of report.json.
    pub const fn key(self) -> &'static str {
        match self {
            ControlFeature::Plain => "plain",
            ControlFeature::Increment => "increment",
            ControlFeature::Delay => "delay",
            ControlFeature::Bronstein => "bronstein",
            ControlFeature::Stages => "stages",
            ControlFeature::Hourglass => "hourglass",
            ControlFeature::ByoYomi => "byo-yomi",
            ControlFeature::Canadian => "canadian",
        }
    }

    /// The features whose bits are set in `controls`, in order.
    pub fn of_bits(controls: u32) -> Vec<ControlFeature> {
        ControlFeature::ALL.into_iter().filter(|feature| controls & feature.bit() != 0).collect()
    }
}

impl fmt::Display for ControlFeature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One of the arbiter's functions, as Capabilities' `arbiter` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ArbiterFunction {
    /// `pause` and `resume` (6.13).
    Pause,
    /// `set` (6.11, 6.14).
    SetTime,
    /// `adjust` (6.8d, 13.4).
    AdjustTime,
    /// `moves` (6.14).
    SetMoves,
    /// `replace` (6.11).
    Replace,
}

impl ArbiterFunction {
    pub const ALL: [ArbiterFunction; 5] = [
        ArbiterFunction::Pause,
        ArbiterFunction::SetTime,
        ArbiterFunction::AdjustTime,
        ArbiterFunction::SetMoves,
        ArbiterFunction::Replace,
    ];

    pub const fn bit(self) -> u32 {
        match self {
            ArbiterFunction::Pause => ARBITER_PAUSE,
            ArbiterFunction::SetTime => ARBITER_SET_TIME,
            ArbiterFunction::AdjustTime => ARBITER_ADJUST_TIME,
            ArbiterFunction::SetMoves => ARBITER_SET_MOVES,
            ArbiterFunction::Replace => ARBITER_REPLACE,
        }
    }

    /// The name reports use, with the article.
    pub const fn name(self) -> &'static str {
        match self {
            ArbiterFunction::Pause => "pause and resume (6.13)",
            ArbiterFunction::SetTime => "setting a time (6.11, 6.14)",
            ArbiterFunction::AdjustTime => "time adjustment (6.14, 13.4)",
            ArbiterFunction::SetMoves => "setting the move counters (6.14)",
            ArbiterFunction::Replace => "replacing the clock (6.11)",
        }
    }

    /// The short key of report.json.
    pub const fn key(self) -> &'static str {
        match self {
            ArbiterFunction::Pause => "pause",
            ArbiterFunction::SetTime => "set-time",
            ArbiterFunction::AdjustTime => "adjust-time",
            ArbiterFunction::SetMoves => "set-moves",
            ArbiterFunction::Replace => "replace",
        }
    }

    pub fn of_bits(arbiter: u32) -> Vec<ArbiterFunction> {
        ArbiterFunction::ALL.into_iter().filter(|function| arbiter & function.bit() != 0).collect()
    }
}

/// The features `control` uses: a stage's bonus kind for every stage, and
/// more than one stage.
pub fn control_features(control: &TimeControl) -> Vec<ControlFeature> {
    let mut features = Vec::new();
    match control {
        TimeControl::Stages(stages) => {
            if stages.len() > 1 {
                features.push(ControlFeature::Stages);
            }
            for stage in stages.as_slice() {
                features.push(match stage.bonus {
                    Bonus::None => ControlFeature::Plain,
                    Bonus::Increment(_) => ControlFeature::Increment,
                    Bonus::Delay(_) => ControlFeature::Delay,
                    Bonus::Bronstein(_) => ControlFeature::Bronstein,
                });
            }
        }
        TimeControl::Hourglass { .. } => features.push(ControlFeature::Hourglass),
        TimeControl::ByoYomi { .. } => features.push(ControlFeature::ByoYomi),
        TimeControl::Canadian { .. } => features.push(ControlFeature::Canadian),
    }
    features.sort();
    features.dedup();
    features
}

/// Why a firmware cannot play a scenario, or `None` when it can.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    pub control_text: String,
    pub missing: Vec<ControlFeature>,
    /// The arbiter functions the scenario's games use that the clock leaves out.
    pub missing_arbiter: Vec<ArbiterFunction>,
    /// The scenario's arbiter stops the clocks, and the board has no pause
    /// button wired (its profile names none).
    pub no_pause_button: bool,
    /// The scenario's arbiter rules on both flags by the order the clock
    /// shows (`arbiter.clock_shows_first_flag`, 6.10), and the clock's
    /// displays do not show which flag fell first (6.12).
    pub flag_order_not_shown: bool,
    /// Whether the firmware sent a Capabilities record (contract 3); before
    /// contract 3 what it has is assumed ([`Capabilities::BEFORE_CONTRACT_3`]).
    pub announced: bool,
    /// The control's times the clock's declared ranges leave out (longer
    /// than `time_max_s`, finer than `setting_step_us`), each said whole.
    pub outside_ranges: Vec<String>,
}

impl Unsupported {
    /// No reason yet, about the control `control_text`.
    pub fn nothing(control_text: &str) -> Unsupported {
        Unsupported {
            control_text: control_text.to_string(),
            missing: Vec::new(),
            missing_arbiter: Vec::new(),
            no_pause_button: false,
            flag_order_not_shown: false,
            announced: true,
            outside_ranges: Vec::new(),
        }
    }

    /// Itself when it names a reason, `None` when the firmware can play.
    pub fn if_any(self) -> Option<Unsupported> {
        let any = !self.missing.is_empty()
            || !self.missing_arbiter.is_empty()
            || self.no_pause_button
            || self.flag_order_not_shown
            || !self.outside_ranges.is_empty();
        any.then_some(self)
    }

    /// Who says the clock leaves a feature out: its own record, or bench's
    /// assumption about a firmware that sends none.
    fn leaves_out(&self) -> &'static str {
        if self.announced {
            "the firmware's Capabilities record leaves out"
        } else {
            "the firmware sends no Capabilities record (contract 1 or 2), so bench takes it to have only pause \
             and resume of the arbiter's functions (hil/CONTRACT.md, record 8): it is taken to leave out"
        }
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut reasons = Vec::new();
        if !self.missing.is_empty() {
            let names: Vec<&str> = self.missing.iter().map(|feature| feature.name()).collect();
            reasons.push(format!(
                "{} {}, which the control `{}` needs",
                self.leaves_out(),
                names.join(" and "),
                self.control_text
            ));
        }
        if !self.missing_arbiter.is_empty() {
            let names: Vec<&str> = self.missing_arbiter.iter().map(|function| function.name()).collect();
            reasons.push(format!(
                "{} the arbiter's {}, which the scenario's arbiter uses",
                self.leaves_out(),
                names.join(" and ")
            ));
        }
        if self.no_pause_button {
            reasons.push(
                "the board has no pause button wired (its profile names none), and the scenario's arbiter \
                 stops the clocks (6.13)"
                    .to_string(),
            );
        }
        if self.flag_order_not_shown {
            reasons.push(
                "the firmware's Capabilities record says its displays do not show which flag fell first, and \
                 the scenario's arbiter rules on both flags down by that order \
                 (`arbiter.clock_shows_first_flag = true`, 6.10; without it 6.12 would rule): the scenario's \
                 results cannot be reached on this clock"
                    .to_string(),
            );
        }
        if !self.outside_ranges.is_empty() {
            reasons.push(format!(
                "the control `{}` sets {}, outside the ranges the firmware's Capabilities record declares",
                self.control_text,
                self.outside_ranges.join(" and ")
            ));
        }
        f.write_str(&reasons.join("; "))
    }
}

/// The features of `control`, and the arbiter functions in `arbiter`, that
/// `capabilities` leave out, and the pause button when `arbiter` pauses on
/// a board without one.
pub fn unsupported(
    capabilities: &Capabilities,
    control_text: &str,
    control: &TimeControl,
    arbiter: &[ArbiterFunction],
    pause_button: bool,
) -> Option<Unsupported> {
    let missing: Vec<ControlFeature> =
        control_features(control).into_iter().filter(|feature| capabilities.controls & feature.bit() == 0).collect();
    let missing_arbiter: Vec<ArbiterFunction> =
        arbiter.iter().copied().filter(|function| capabilities.arbiter & function.bit() == 0).collect();
    let no_pause_button = !pause_button && arbiter.contains(&ArbiterFunction::Pause);
    Unsupported {
        control_text: control_text.to_string(),
        missing,
        missing_arbiter,
        no_pause_button,
        flag_order_not_shown: false,
        announced: true,
        outside_ranges: outside_ranges(&capabilities.ranges, control),
    }
    .if_any()
}

/// The times `control` sets, µs, each with what it is: every stage's time
/// and bonus, and what the clock holds at the last stage (the stages' times
/// summed, 6.2b); main time and period of the overtime controls.
fn control_times_us(control: &TimeControl) -> Vec<(&'static str, u64)> {
    match control {
        TimeControl::Stages(stages) => {
            let mut times = Vec::new();
            for stage in stages.as_slice() {
                times.push(("a stage's time", stage.time.as_us()));
                if stage.bonus != Bonus::None {
                    times.push(("a bonus per move", stage.bonus.amount().as_us()));
                }
            }
            if stages.len() > 1 {
                let held_us = stages.as_slice().iter().map(|stage| stage.time.as_us()).sum();
                times.push(("the stages' times together", held_us));
            }
            times
        }
        TimeControl::Hourglass { time } => vec![("the time", time.as_us()), ("both times", time.as_us() * 2)],
        TimeControl::ByoYomi { main, period, .. } | TimeControl::Canadian { main, period, .. } => {
            vec![("the main time", main.as_us()), ("a period", period.as_us())]
        }
    }
}

/// The times of `control` outside the declared `ranges` (contract 3,
/// Capabilities offsets 28–35), each as a report says it.
pub fn outside_ranges(ranges: &Ranges, control: &TimeControl) -> Vec<String> {
    let longest_us = u64::from(ranges.time_max_s).saturating_mul(1_000_000);
    let step_us = u64::from(ranges.setting_step_us);
    let mut outside = Vec::new();
    for (what, time_us) in control_times_us(control) {
        let text = chessclock::Duration::from_us(time_us);
        if longest_us > 0 && time_us > longest_us {
            outside.push(format!("{what} of {text}, past the longest time it holds ({} s)", ranges.time_max_s));
        } else if step_us > 1 && time_us % step_us != 0 {
            outside.push(format!("{what} of {text}, not a whole number of its setting steps ({step_us} µs)"));
        }
    }
    outside.dedup();
    outside
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_contract::{ARBITER_PAUSE, CONTROLS_ALL};
    use chessclock::notation;

    fn features(text: &str) -> Vec<ControlFeature> {
        control_features(&notation::parse(text).expect("a control"))
    }

    #[test]
    fn a_control_outside_the_declared_ranges_is_named_with_the_time_that_is() {
        let outside = |ranges: Ranges, text: &str| outside_ranges(&ranges, &notation::parse(text).expect("a control"));
        let whole_seconds_to_9_59_59 = Ranges { time_max_s: 35_999, setting_step_us: 1_000_000, ..Ranges::UNDECLARED };
        for text in ["30+1", "3/20:20", "40/5400+30:1800", "0(3x1)", "*30", "35999"] {
            assert_eq!(outside(whole_seconds_to_9_59_59, text), Vec::<String>::new(), "{text}");
        }
        assert_eq!(outside(whole_seconds_to_9_59_59, "36000").len(), 1, "10 hours");
        assert_eq!(outside(whole_seconds_to_9_59_59, "30+0.5").len(), 1, "half a second");
        assert_eq!(outside(whole_seconds_to_9_59_59, "1/2.5:3+0.5").len(), 3, "a stage, a bonus, the sum");
        // 40/18000:18000: each stage fits, their sum (10 h) does not (6.2b).
        assert_eq!(outside(whole_seconds_to_9_59_59, "40/18000:18000").len(), 1);
        assert_eq!(outside(whole_seconds_to_9_59_59, "*18000").len(), 1, "an hourglass holds both times");
        for text in ["1000000", "30+0.5", "0.000001"] {
            assert_eq!(outside(Ranges::UNDECLARED, text), Vec::<String>::new(), "{text}: nothing declared");
        }
        let fischer = Capabilities {
            controls: CONTROL_PLAIN | CONTROL_INCREMENT,
            arbiter: 0,
            shows_flag_order: false,
            ranges: whole_seconds_to_9_59_59,
        };
        let why = unsupported(&fischer, "30+0.5", &notation::parse("30+0.5").expect("a control"), &[], true)
            .expect("half a second is outside");
        assert!(why.to_string().contains("not a whole number of its setting steps"), "{why}");
    }

    #[test]
    fn a_control_needs_each_feature_it_uses() {
        use ControlFeature::*;
        assert_eq!(features("300"), [Plain]);
        assert_eq!(features("300+2"), [Increment]);
        assert_eq!(features("300+d5"), [Delay]);
        assert_eq!(features("300+b3"), [Bronstein]);
        assert_eq!(features("40/5400+30:1800+30"), [Increment, Stages]);
        assert_eq!(features("40/5400:1800+30"), [Plain, Increment, Stages]);
        assert_eq!(features("*180"), [Hourglass]);
        assert_eq!(features("3600(5x30)"), [ByoYomi]);
        assert_eq!(features("600(20/300)"), [Canadian]);
    }

    #[test]
    fn a_clock_that_leaves_a_feature_out_is_told_which() {
        let fischer_only = Capabilities {
            controls: CONTROL_PLAIN | CONTROL_INCREMENT,
            arbiter: ARBITER_PAUSE,
            shows_flag_order: false,
            ranges: bench_contract::Ranges::UNDECLARED,
        };
        let check =
            |text: &str| unsupported(&fischer_only, text, &notation::parse(text).expect("a control"), &[], true);
        assert_eq!(check("300+2"), None);
        assert_eq!(check("300"), None);
        let stages = check("40/5400+30:1800+30").expect("stages are left out");
        assert_eq!(stages.missing, [ControlFeature::Stages]);
        assert_eq!(
            stages.to_string(),
            "the firmware's Capabilities record leaves out several stages by moves (6.2b, 6.3), which the control \
             `40/5400+30:1800+30` needs"
        );
        assert_eq!(check("30+d1").map(|why| why.missing), Some(vec![ControlFeature::Delay]));
        let everything = Capabilities { controls: CONTROLS_ALL, ..fischer_only };
        for feature in ControlFeature::ALL {
            assert_eq!(everything.controls & feature.bit(), feature.bit(), "{feature:?} is in CONTROLS_ALL");
        }
        assert_eq!(ControlFeature::of_bits(fischer_only.controls), [ControlFeature::Plain, ControlFeature::Increment]);
        assert_eq!(ArbiterFunction::of_bits(fischer_only.arbiter), [ArbiterFunction::Pause]);
        assert_eq!(ArbiterFunction::of_bits(bench_contract::ARBITER_ALL), ArbiterFunction::ALL);
    }

    #[test]
    fn a_clock_without_an_arbiter_function_the_scenario_uses_is_told_which() {
        let pause_only = Capabilities {
            controls: CONTROLS_ALL,
            arbiter: ARBITER_PAUSE,
            shows_flag_order: true,
            ranges: bench_contract::Ranges::UNDECLARED,
        };
        let control = notation::parse("300+2").expect("a control");
        let check = |needs: &[ArbiterFunction]| unsupported(&pause_only, "300+2", &control, needs, true);
        assert_eq!(check(&[ArbiterFunction::Pause]), None);
        let why = check(&[ArbiterFunction::Pause, ArbiterFunction::AdjustTime]).expect("adjust is left out");
        assert_eq!(
            (why.missing.as_slice(), why.missing_arbiter.as_slice()),
            (&[][..], &[ArbiterFunction::AdjustTime][..])
        );
        assert_eq!(
            why.to_string(),
            "the firmware's Capabilities record leaves out the arbiter's time adjustment (6.14, 13.4), which the \
             scenario's arbiter uses"
        );
    }

    /// A scenario whose arbiter stops the clocks, on a board with no pause
    /// button wired: skipped with that reason, not a run that fails at its
    /// first pause (exit 3).
    #[test]
    fn a_board_without_a_pause_button_skips_a_scenario_that_pauses() {
        let everything = Capabilities {
            controls: CONTROLS_ALL,
            arbiter: ARBITER_PAUSE,
            shows_flag_order: true,
            ranges: bench_contract::Ranges::UNDECLARED,
        };
        let control = notation::parse("300+2").expect("a control");
        let check = |needs: &[ArbiterFunction], pause_button: bool| {
            unsupported(&everything, "300+2", &control, needs, pause_button)
        };
        assert_eq!(check(&[ArbiterFunction::Pause], true), None);
        assert_eq!(check(&[], false), None, "no pauses: no button needed");
        let why = check(&[ArbiterFunction::Pause], false).expect("no button to press");
        assert!(why.no_pause_button);
        assert!(why.to_string().starts_with("the board has no pause button wired"), "{why}");
    }
}
