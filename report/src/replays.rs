//! The replay files of a report's failing games: `replays/game-G.replay.toml`
//! in the report folder, one game's input each (`bench_sim::replay`), so a
//! failure in a report is a file to replay anywhere (`bench sim --replay`,
//! `bench hil --replay`) and to attach to a bug report. `report.json`
//! names each failing game's file by its path in the folder.
//!
//! They are written after `report.json` is removed and before it is
//! written again, so a whole report never names another run's files; a
//! folder's files of games that no longer fail are removed.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;

use crate::{atomic, files::REPORT_JSON};

/// The folder, in a report folder, that holds its replay files.
pub const DIR: &str = "replays";

/// One failing game's replay file: its game and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayText {
    pub game: u64,
    pub toml: String,
}

/// The path of game `game`'s replay file in its report folder.
pub fn path_in_report(game: u64) -> String {
    format!("{DIR}/game-{game}.replay.toml")
}

/// Removes `report.json` from `dir`, then writes `replays` into its
/// replay folder (removing the files of other games): the files `dir`'s
/// next `report.json` may name, by game.
pub fn write(dir: &Path, replays: &[ReplayText]) -> anyhow::Result<BTreeMap<u64, String>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating the report folder {}", dir.display()))?;
    atomic::remove_if_exists(dir, REPORT_JSON)?;
    let folder = dir.join(DIR);
    let mut named = BTreeMap::new();
    if !replays.is_empty() {
        std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    }
    for replay in replays {
        let relative = path_in_report(replay.game);
        let name = relative.trim_start_matches(DIR).trim_start_matches('/');
        atomic::write_bytes(&folder, name, replay.toml.as_bytes())?;
        named.insert(replay.game, relative);
    }
    remove_others(&folder, &named)?;
    Ok(named)
}

/// Removes the replay files in `folder` that `kept` does not name (an
/// earlier run's in the same report folder), and the folder when empty.
fn remove_others(folder: &Path, kept: &BTreeMap<u64, String>) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(folder) else { return Ok(()) };
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", folder.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = kept.values().any(|relative| relative.ends_with(&format!("/{name}")));
        if name.ends_with(".replay.toml") && !ours {
            atomic::remove_if_exists(folder, &name)?;
        }
    }
    // Only when empty: a user's own files in it stay.
    let _ = std::fs::remove_dir(folder);
    Ok(())
}

/// The replay file `relative` of the report in `dir` (a shard's, for a
/// merge).
pub fn read(dir: &Path, relative: &str) -> anyhow::Result<String> {
    let path = dir.join(relative);
    std::fs::read_to_string(&path)
        .with_context(|| format!("reading the replay file {} that {} names", path.display(), REPORT_JSON))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_keeps_only_the_new_runs_files_and_a_users_own() {
        let dir = std::env::temp_dir().join(format!("bench-replays-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let text = |game| ReplayText { game, toml: format!("game = {game}\n") };
        let named = write(&dir, &[text(3), text(12)]).expect("written");
        assert_eq!(named.get(&3).map(String::as_str), Some("replays/game-3.replay.toml"));
        assert_eq!(read(&dir, &named[&12]).expect("read"), "game = 12\n");
        std::fs::write(dir.join(DIR).join("notes.txt"), "mine").expect("a user's file");

        let named = write(&dir, &[text(12)]).expect("written again");
        assert_eq!(named.len(), 1);
        assert!(!dir.join("replays/game-3.replay.toml").exists(), "game 3 no longer fails: its file goes");
        assert!(dir.join("replays/notes.txt").exists(), "not a replay file: it stays");
        std::fs::remove_file(dir.join("replays/notes.txt")).expect("remove");
        write(&dir, &[]).expect("nothing fails");
        assert!(!dir.join(DIR).exists(), "an empty replay folder goes");
        std::fs::write(dir.join(REPORT_JSON), "{}").expect("a report");
        write(&dir, &[]).expect("nothing fails");
        assert!(!dir.join(REPORT_JSON).exists(), "report.json is removed first");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
