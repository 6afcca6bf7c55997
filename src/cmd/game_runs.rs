//! What `bench sim` and `bench hil` share around the games they play: the
//! report folder a run gets by default, its progress bar, and who ran it
//! and when (the facts `run.json` keeps). Interrupts and the report folder
//! checks are the parent module's, for every command.

use std::path::PathBuf;

use bench_sim::scenario::Scenario;

/// `reports/<prefix><scenario>-<seed>`, with `-shard-I-of-N` for a shard.
pub fn default_out_dir(prefix: &str, scenario: &Scenario, seed: u64, shard: Option<(u64, u64)>) -> PathBuf {
    let name = match shard {
        Some((index, count)) => format!("{prefix}{}-{seed}-shard-{index}-of-{count}", scenario.name),
        None => format!("{prefix}{}-{seed}", scenario.name),
    };
    PathBuf::from("reports").join(name)
}

/// A progress bar on stderr counting `unit` (games, presses) up to `total`;
/// `tail` is the indicatif template after the bar, where `{rate}` is the
/// pace in `unit` a second.
pub fn progress_bar(total: u64, unit: &'static str, tail: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    let template = format!("{{spinner}} {{pos}}/{{len}} {unit} [{{bar:40}}] {tail}");
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        // Not indicatif's `{per_sec}`, which shows `1,646.5792/s`.
        let rate = move |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
            let _ = out.write_str(&per_second(state.per_sec(), unit));
        };
        bar.set_style(style.with_key("rate", rate).progress_chars("=> "));
    }
    bar
}

/// A run's pace for its progress bar: whole units a second, one decimal
/// below ten (a long game's run), and no figure before there is one.
pub fn per_second(rate: f64, unit: &str) -> String {
    match rate {
        rate if !rate.is_finite() || rate <= 0.0 => format!("- {unit}/s"),
        rate if rate < 10.0 => format!("{rate:.1} {unit}/s"),
        rate => format!("{rate:.0} {unit}/s"),
    }
}

/// Who ran a run, where and when: what varies between two runs of the same
/// command by design, so it goes to `run.json`, never into the report.
#[derive(Clone, Debug)]
pub struct RunOrigin {
    pub bench_version: String,
    pub git_commit: Option<String>,
    pub host: String,
    /// When the run started, seconds since the Unix epoch.
    pub started_unix_s: u64,
    pub wall_ms: u64,
}

impl RunOrigin {
    /// A run that just ended after `wall_ms` of wall time.
    pub fn ended_now(wall_ms: u64) -> RunOrigin {
        RunOrigin {
            bench_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: option_env!("BENCH_GIT_COMMIT").map(str::to_string),
            host: host_name(),
            started_unix_s: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.as_secs().saturating_sub(wall_ms / 1_000)),
            wall_ms,
        }
    }
}

/// The machine's name.
fn host_name() -> String {
    std::fs::read_to_string("/etc/hostname")
        .map(|name| name.trim().to_string())
        .ok()
        .filter(|name| !name.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_bar_shows_a_plain_rate() {
        assert_eq!(per_second(1_646.579_2, "games"), "1647 games/s");
        assert_eq!(per_second(2.26, "games"), "2.3 games/s");
        assert_eq!(per_second(0.0, "presses"), "- presses/s");
        assert_eq!(per_second(f64::INFINITY, "games"), "- games/s");
    }

    #[test]
    fn reports_go_to_a_folder_named_after_the_scenario_and_seed() {
        let (scenario, _) = crate::catalog::find("blitz-3-2").expect("shipped");
        assert_eq!(default_out_dir("hil-", &scenario, 7, None), PathBuf::from("reports/hil-blitz-3-2-7"));
        assert_eq!(default_out_dir("", &scenario, 7, Some((2, 4))), PathBuf::from("reports/blitz-3-2-7-shard-2-of-4"));
    }
}
