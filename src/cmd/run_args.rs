//! The options every run of games takes, `bench sim` and `bench hil` alike.
//! Each command words their help for its own defaults and what they
//! replace (`mut_arg` on its `Cmd`), so the parsing and the checks are
//! written once and the help still says what each command does.

use std::path::PathBuf;

#[derive(Clone, Debug, clap::Args)]
pub struct RunArgs {
    /// Games to play [default: the scenario's `games`].
    #[arg(long)]
    pub games: Option<u64>,
    /// The run's seed [default: the scenario's `seed`].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Report directory [default: reports/<scenario>-<seed>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace the report in the report folder even when it is another run's.
    #[arg(long)]
    pub force: bool,
    /// At most this many moves per player, 1 to 10 000.
    #[arg(long, value_name = "N", value_parser = super::parse_max_moves)]
    pub max_moves: Option<u32>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// The shared options keep each command's own wording: a default that
    /// differs (hil plays one game, into `reports/hil-…`) is said.
    #[test]
    fn each_command_words_the_shared_options_for_its_own_defaults() {
        let cli = crate::Cli::command();
        let help = |command: &str, option: &str| {
            cli.find_subcommand(command)
                .and_then(|found| found.get_arguments().find(|arg| arg.get_id() == option))
                .and_then(|arg| arg.get_help())
                .map(ToString::to_string)
                .unwrap_or_default()
        };
        assert_eq!(help("sim", "games"), "Games to play [default: the scenario's `games`]");
        assert!(help("hil", "games").contains("[default: 1;"), "{}", help("hil", "games"));
        assert!(help("hil", "out").contains("reports/hil-<scenario>-<seed>"));
        assert!(help("sim", "out").contains("reports/<scenario>-<seed>"));
        assert!(help("hil", "force").contains("firmware path"));
        assert!(help("sim", "max_moves").starts_with("Play with at most"));
        assert!(help("hil", "max_moves").contains("overrides the scenario's bound"));
        assert!(help("hil", "seed").contains("same think times as `bench sim`"));
    }
}
