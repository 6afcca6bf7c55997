//! Rule sets as data: the parameters in which editions of the Laws differ.
//! Two, selected by name in scenario files: `fide-2005` (the seed text,
//! default time one hour) and `fide-2023` (default time zero).

use crate::time::Duration;

/// The parameters of one edition of the Laws (or a competition's rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleSet {
    /// The name used on the command line and in scenario files.
    pub name: &'static str,
    /// 6.7: a player who arrives at the board more than this long after the
    /// scheduled start loses.
    pub default_time: Duration,
    /// 6.6: when neither player is present, White's clock runs until White
    /// arrives (the arbiter or competition rules may decide otherwise).
    pub white_clock_runs_while_absent: bool,
}

impl RuleSet {
    /// The seed text: FIDE Laws, Article 6, 2005-era numbering; default time
    /// one hour (6.7).
    pub const FIDE_2005: RuleSet =
        RuleSet { name: "fide-2005", default_time: Duration::from_secs(3_600), white_clock_runs_while_absent: true };

    /// FIDE Laws from 2023: default time zero (a player not present at the
    /// start loses); the clock decisions are otherwise the same.
    pub const FIDE_2023: RuleSet =
        RuleSet { name: "fide-2023", default_time: Duration::ZERO, white_clock_runs_while_absent: true };

    pub const ALL: [RuleSet; 2] = [RuleSet::FIDE_2005, RuleSet::FIDE_2023];

    pub fn by_name(name: &str) -> Option<RuleSet> {
        RuleSet::ALL.into_iter().find(|rules| rules.name == name)
    }
}
