//! Where scenario files are found, and how a name on the command line
//! becomes one.
//!
//! `--scenario NAME` looks for `NAME.toml` in the scenario directories:
//! `$BENCH_SCENARIOS` alone if set; else `scenarios/` in the current
//! directory first, then the `scenarios/` the binary was built with, so a
//! firmware project's own `scenarios/` adds to the shipped ones instead of
//! hiding them (a local file of a shipped name wins, and the run says so
//! when the two differ).
//! `--scenario PATH` (any argument with a `/` or ending in `.toml`) is used
//! as it is.

use std::path::{Path, PathBuf};

use anyhow::Context;

use bench_sim::scenario::{Scenario, ScenarioError};

/// The `scenarios/` the binary was built with.
fn shipped_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

/// The directories `bench` looks in for scenario names, first match wins.
pub fn scenario_dirs() -> Vec<PathBuf> {
    if let Some(dir) = std::env::var_os("BENCH_SCENARIOS") {
        return vec![PathBuf::from(dir)];
    }
    let local = PathBuf::from("scenarios");
    let shipped = shipped_dir();
    let same = local.canonicalize().ok().is_some_and(|local| shipped.canonicalize().ok() == Some(local));
    if local.is_dir() && !same {
        vec![local, shipped]
    } else {
        vec![shipped]
    }
}

/// The folder of a suite (`release`): the first scenario directory that has it.
pub fn suite_dir(suite: &str) -> PathBuf {
    let dirs = scenario_dirs();
    dirs.iter().map(|dir| dir.join(suite)).find(|dir| dir.is_dir()).unwrap_or_else(|| shipped_dir().join(suite))
}

/// Every `*.toml` of the scenario directories, one per name (the first
/// directory's wins), sorted by name.
pub fn scenario_files() -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in scenario_dirs() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("reading the scenario directory {}", dir.display()))?;
        for path in entries.filter_map(|entry| entry.ok().map(|entry| entry.path())) {
            let is_toml = path.extension().is_some_and(|extension| extension == "toml");
            if is_toml && !files.iter().any(|kept| kept.file_name() == path.file_name()) {
                files.push(shown(&path));
            }
        }
    }
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(files)
}

/// The directories, as a person reads them (relative to the working
/// folder when inside it).
pub fn scenario_dirs_text() -> String {
    scenario_dirs().iter().map(|dir| shown(dir).display().to_string()).collect::<Vec<_>>().join(" and ")
}

/// `path` relative to the working folder when it is inside it, else as it
/// is: the shipped scenarios' folder is an absolute path on the machine
/// bench was built on, which says nothing on another, and reports write
/// the path they ran.
pub fn shown(path: &Path) -> PathBuf {
    let Ok(here) = std::env::current_dir() else { return path.to_path_buf() };
    match path.strip_prefix(&here) {
        Ok(inside) if !inside.as_os_str().is_empty() => inside.to_path_buf(),
        _ => path.to_path_buf(),
    }
}

/// Every scenario directory's `NAME.toml` that exists, first match first.
pub fn files_named(name: &str) -> Vec<PathBuf> {
    let file_name = format!("{name}.toml");
    scenario_dirs().iter().map(|dir| dir.join(&file_name)).filter(|path| path.is_file()).collect()
}

/// Whether two files hold the same bytes (false when either cannot be read).
fn same_contents(a: &Path, b: &Path) -> bool {
    match (std::fs::read(a), std::fs::read(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Why a `--scenario` argument could not be used.
#[derive(Debug)]
pub enum LookupError {
    /// No such name: the valid names are listed.
    Unknown {
        name: String,
        known: Vec<String>,
        dirs: String,
        /// `release/NAME` when the release suite has a scenario of that
        /// name: suite scenarios are named by their folder.
        in_suite: Option<String>,
    },
    Invalid(ScenarioError),
}

impl std::fmt::Display for LookupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LookupError::Unknown { name, known, dirs, in_suite } => {
                write!(f, "no scenario named `{name}` in {dirs}")?;
                if let Some(in_suite) = in_suite {
                    write!(f, "; the release suite has one: write `--scenario {in_suite}`")?;
                }
                write!(
                    f,
                    "; the scenarios are: {}\n(`bench scenarios` describes each; a path to a .toml file works too)",
                    known.join(", ")
                )
            }
            LookupError::Invalid(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for LookupError {}

/// The scenario named or pointed to by `argument`, and its file. A name
/// found in more than one directory is taken from the first, with a note
/// on stderr naming the file taken (none when the files are byte-identical).
pub fn find(argument: &str) -> Result<(Scenario, PathBuf), LookupError> {
    // `release/1-fischer` names a scenario of a suite folder; a path to a
    // file is taken as it is.
    let is_path = argument.ends_with(".toml") || (argument.contains('/') && Path::new(argument).exists());
    let path = if is_path {
        PathBuf::from(argument)
    } else {
        let found = files_named(argument);
        let Some(first) = found.first() else {
            let known = scenario_files()
                .unwrap_or_default()
                .iter()
                .filter_map(|file| file.file_stem().map(|stem| stem.to_string_lossy().into_owned()))
                .collect();
            let in_suite =
                suite_dir("release").join(format!("{argument}.toml")).is_file().then(|| format!("release/{argument}"));
            return Err(LookupError::Unknown {
                name: argument.to_string(),
                known,
                dirs: scenario_dirs_text(),
                in_suite,
            });
        };
        // A copy of a shipped scenario hides nothing: no note for it.
        if let Some(hidden) = found.get(1).filter(|hidden| !same_contents(first, hidden)) {
            let note = format!(
                "note: scenario `{argument}` is {}; it hides the one in {}",
                shown(first).display(),
                shown(hidden).display()
            );
            crate::cmd::note(&bench_report::format::visible::visible(&note));
        }
        shown(first)
    };
    let scenario = Scenario::load(&path).map_err(LookupError::Invalid)?;
    Ok((scenario, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A suite's scenario is named by its folder, as the suite's report
    /// and CONTRACT.md §8 name it, from any working folder.
    #[test]
    fn a_suite_scenario_is_found_by_its_folder_and_name() {
        let (scenario, path) = find("release/1-fischer").expect("the release suite's first scenario");
        assert!(path.ends_with("release/1-fischer.toml"), "{}", path.display());
        assert_eq!(scenario.name, "1-fischer");
        assert!(matches!(find("release/no-such"), Err(LookupError::Unknown { .. })));
    }

    /// A suite scenario asked for by its bare name is not found (the
    /// top-level folder's names are the catalog), but the error says how
    /// to name it.
    #[test]
    fn a_suite_scenario_by_its_bare_name_is_refused_with_its_folder_named() {
        let error = find("1-fischer").expect_err("not a top-level scenario");
        assert!(matches!(&error, LookupError::Unknown { in_suite: Some(hint), .. } if hint == "release/1-fischer"));
        assert!(error.to_string().contains("write `--scenario release/1-fischer`"), "{error}");
        let error = find("no-such").expect_err("no scenario");
        assert!(matches!(error, LookupError::Unknown { in_suite: None, .. }));
    }
}
