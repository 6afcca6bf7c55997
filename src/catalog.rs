//! Where scenario files are found, and how a name on the command line
//! becomes one.
//!
//! `--scenario NAME` looks for `NAME.toml` in the scenario directory:
//! `$BENCH_SCENARIOS` if set, else `scenarios/` in the current directory,
//! else the `scenarios/` the binary was built with. `--scenario PATH` (any
//! argument with a `/` or ending in `.toml`) is used as it is.

use std::path::{Path, PathBuf};

use anyhow::Context;

use bench_sim::scenario::{Scenario, ScenarioError};

/// The directory `bench` looks in for scenario names.
pub fn scenario_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("BENCH_SCENARIOS") {
        return PathBuf::from(dir);
    }
    let local = PathBuf::from("scenarios");
    if local.is_dir() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

/// Every `*.toml` in the scenario directory, sorted by name.
pub fn scenario_files() -> anyhow::Result<Vec<PathBuf>> {
    let dir = scenario_dir();
    let entries =
        std::fs::read_dir(&dir).with_context(|| format!("reading the scenario directory {}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Why a `--scenario` argument could not be used.
#[derive(Debug)]
pub enum LookupError {
    /// No such name: the valid names are listed.
    Unknown {
        name: String,
        known: Vec<String>,
        dir: PathBuf,
    },
    Invalid(ScenarioError),
}

impl std::fmt::Display for LookupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LookupError::Unknown { name, known, dir } => write!(
                f,
                "no scenario named `{name}` in {}; the scenarios are: {}\n(`bench scenarios` describes each; a path to a .toml file works too)",
                dir.display(),
                known.join(", ")
            ),
            LookupError::Invalid(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for LookupError {}

/// The scenario named or pointed to by `argument`, and its file.
pub fn find(argument: &str) -> Result<(Scenario, PathBuf), LookupError> {
    let is_path = argument.contains('/') || argument.ends_with(".toml");
    let path = if is_path { PathBuf::from(argument) } else { scenario_dir().join(format!("{argument}.toml")) };
    if !is_path && !path.is_file() {
        let known = scenario_files()
            .unwrap_or_default()
            .iter()
            .filter_map(|file| file.file_stem().map(|stem| stem.to_string_lossy().into_owned()))
            .collect();
        return Err(LookupError::Unknown { name: argument.to_string(), known, dir: scenario_dir() });
    }
    let scenario = Scenario::load(&path).map_err(LookupError::Invalid)?;
    Ok((scenario, path))
}
