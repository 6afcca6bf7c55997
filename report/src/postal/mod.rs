//! One postal game's report: the day-by-day time accounting of both players
//! against the norm (`accounting.svg`/`.png`) and the claims timeline
//! (`timeline.md`). Written by `bench sim --game G` on a correspondence
//! scenario.
//!
//! **Determinism:** the embedded font and integer data only, like the drift
//! plots: the same game gives the same bytes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use bench_sim::postal::{PostalEnd, PostalRecord};
use chessclock::Side;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::files::{self, Content, Written};
use crate::format::plot::{self, Figure, FONT};

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 600;
const WHITE_SIDE: RGBColor = RGBColor(31, 119, 180);
const BLACK_SIDE: RGBColor = RGBColor(214, 39, 40);
const WHITE_NORM: RGBColor = RGBColor(10, 60, 100);
const BLACK_NORM: RGBColor = RGBColor(120, 20, 20);

/// What the report is about.
pub struct PostalGame<'a> {
    pub scenario: &'a str,
    pub seed: u64,
    pub game: u64,
    pub record: &'a PostalRecord,
}

impl Figure for PostalGame<'_> {
    const SIZE_PX: (u32, u32) = (WIDTH, HEIGHT);
    const NAME: &'static str = "the accounting plot";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()> {
        draw(root, self)
    }
}

/// Writes `accounting.svg`, `accounting.png` and `timeline.md` into `dir`.
pub fn write_postal_game(dir: &Path, game: &PostalGame<'_>) -> anyhow::Result<Vec<PathBuf>> {
    Ok(files::write_folder(dir, game)?.paths())
}

/// `accounting.svg`.
pub fn accounting_svg<'s>(game: &'s PostalGame<'_>, _: &Written) -> anyhow::Result<Content<'s>> {
    Ok(Content::Bytes(plot::svg(game)?.into_bytes()))
}

/// `accounting.png`.
pub fn accounting_png<'s>(game: &'s PostalGame<'_>, _: &Written) -> anyhow::Result<Content<'s>> {
    Ok(Content::WrittenBy(Box::new(move |path| plot::png(game, path))))
}

/// `timeline.md`.
pub fn timeline_md<'s>(game: &'s PostalGame<'_>, _: &Written) -> anyhow::Result<Content<'s>> {
    Ok(Content::Bytes(timeline(game).into_bytes()))
}

/// Days used in each player's count after each of its moves, and the norm
/// those moves were allowed (6.1): a step line per player, dashed norm lines.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, game: &PostalGame<'_>) -> anyhow::Result<()> {
    root.fill(&WHITE).map_err(|error| anyhow!("{error}"))?;
    let accounting = &game.record.accounting;
    let last_day = accounting.iter().map(|entry| entry.day).max().unwrap_or(1).max(1);
    let top = accounting.iter().map(|entry| entry.count_days.max(entry.allowed_days)).max().unwrap_or(30).max(30);
    let title =
        format!("{} seed {} game {}: days used per count vs the norm (Corr. 6.1)", game.scenario, game.seed, game.game);
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 20))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0u32..last_day, 0u32..top.saturating_add(top / 10))
        .map_err(|error| anyhow!("{error}"))?;
    chart
        .configure_mesh()
        .x_desc("day of the game")
        .y_desc("days used in the current count")
        .label_style((FONT, 14))
        .draw()
        .map_err(|error| anyhow!("{error}"))?;
    for (side, color) in [(Side::White, WHITE_SIDE), (Side::Black, BLACK_SIDE)] {
        let used: Vec<(u32, u32)> =
            accounting.iter().filter(|entry| entry.side == side).map(|entry| (entry.day, entry.count_days)).collect();
        let norm: Vec<(u32, u32)> =
            accounting.iter().filter(|entry| entry.side == side).map(|entry| (entry.day, entry.allowed_days)).collect();
        chart
            .draw_series(LineSeries::new(used, color.stroke_width(2)))
            .map_err(|error| anyhow!("{error}"))?
            .label(format!("{side}: days used"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        let norm_color = if side == Side::White { WHITE_NORM } else { BLACK_NORM };
        chart
            .draw_series(norm.iter().map(|&(day, allowed)| Circle::new((day, allowed), 3, norm_color.filled())))
            .map_err(|error| anyhow!("{error}"))?
            .label(format!("{side}: norm for the moves in the count"))
            .legend(move |(x, y)| Circle::new((x + 10, y), 3, norm_color.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 13))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|error| anyhow!("{error}"))?;
    Ok(())
}

/// `timeline.md`'s first lines: which game a folder's files are of.
fn heading(scenario: &str, seed: u64, game: u64) -> String {
    format!("# {scenario} seed {seed} game {game}: claims timeline\n")
}

/// Why `dir` may not take the files of game `game` of `scenario` and
/// `seed`: it holds another postal game's (its `timeline.md` is of
/// another scenario, seed or game), which they would replace. A folder
/// without `timeline.md` holds no game's files to lose.
pub fn another_games_files(dir: &Path, scenario: &str, seed: u64, game: u64) -> Option<String> {
    let path = dir.join(files::TIMELINE_MD);
    // Only a regular file: reading a FIFO would wait for a writer forever.
    if !std::fs::metadata(&path).is_ok_and(|metadata| metadata.is_file()) {
        return None;
    }
    let theirs = std::fs::read(path).ok()?;
    if theirs.starts_with(heading(scenario, seed, game).as_bytes()) {
        return None;
    }
    let first_line = theirs.split(|byte| *byte == b'\n').next().unwrap_or_default();
    let theirs = String::from_utf8_lossy(first_line);
    let theirs = theirs.trim_start_matches("# ").trim_end_matches(": claims timeline");
    Some(format!(
        "the folder {} holds the accounting plot and claims timeline of another game (`{theirs}`): give --out a \
         folder for game {game} (`{scenario} seed {seed} game {game}`), or --force to replace them",
        dir.display()
    ))
}

/// The claims timeline and the accounting table, in Markdown.
fn timeline(game: &PostalGame<'_>) -> String {
    let record = game.record;
    let mut out = String::new();
    let _ = writeln!(out, "{}", heading(game.scenario, game.seed, game.game));
    let end = match record.end {
        PostalEnd::LostOnTime { loser, article } => format!("{loser} lost on time ({article})"),
        PostalEnd::MovesPlayed => "all moves played".to_string(),
    };
    let _ = writeln!(out, "Result: {end}, day {}.\n", record.end_day);
    let _ = writeln!(out, "| day | event | article |\n|---:|---|---|");
    for entry in &record.timeline {
        let article = entry.article.map(|article| article.to_string()).unwrap_or_default();
        let _ = writeln!(out, "| {} | {} | {} |", entry.day, entry.text.replace('|', "\\|"), article);
    }
    let _ = writeln!(
        out,
        "\n## Day-by-day accounting\n\n| day | player | moves in count | days used | norm |\n|---:|---|---:|---:|---:|"
    );
    for entry in &record.accounting {
        let over = if entry.count_days > entry.allowed_days { " **over**" } else { "" };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {}{over} | {} |",
            entry.day, entry.side, entry.count_moves, entry.count_days, entry.allowed_days
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_sim::postal::{play, Postal};

    fn postal() -> Postal {
        let scenario = bench_sim::scenario::Scenario::parse(
            "description = \"t\"\n[correspondence]\nslow_move = \"1/8\"\nmoves = 20\n",
            Path::new("postal.toml"),
        )
        .expect("parses");
        scenario.correspondence.expect("a correspondence scenario")
    }

    /// A folder holding one game's files names that game to any other,
    /// and takes the same game's again.
    #[test]
    fn another_games_files_are_told_from_the_same_games() {
        let record = play(&postal(), 3, 1);
        let dir = std::env::temp_dir().join(format!("bench-postal-another-{}", std::process::id()));
        assert_eq!(another_games_files(&dir, "postal", 3, 1), None, "no folder yet");
        write_postal_game(&dir, &PostalGame { scenario: "postal", seed: 3, game: 1, record: &record })
            .expect("written");
        assert_eq!(another_games_files(&dir, "postal", 3, 1), None, "the same game");
        for (scenario, seed, game) in [("postal", 3, 0), ("postal", 3, 10), ("postal", 4, 1), ("other", 3, 1)] {
            let why = another_games_files(&dir, scenario, seed, game).expect("another game");
            assert!(why.contains("of another game (`postal seed 3 game 1`)") && why.contains("--force"), "{why}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_postal_game_report_is_byte_stable_and_shows_the_overstep() {
        let record = play(&postal(), 3, 1);
        let game = PostalGame { scenario: "postal", seed: 3, game: 1, record: &record };
        let base = std::env::temp_dir().join(format!("bench-postal-report-{}", std::process::id()));
        let (first, second) = (base.join("a"), base.join("b"));
        write_postal_game(&first, &game).expect("written");
        write_postal_game(&second, &game).expect("written");
        for file in ["accounting.svg", "accounting.png", "timeline.md"] {
            assert_eq!(std::fs::read(first.join(file)).ok(), std::fs::read(second.join(file)).ok(), "{file}");
        }
        let timeline = std::fs::read_to_string(first.join("timeline.md")).expect("read");
        assert_eq!(timeline.lines().filter(|line| line.starts_with("| ") && line.contains("sends")).count(), 0);
        let overstepped = record.accounting.iter().any(|entry| entry.count_days > entry.allowed_days);
        assert_eq!(timeline.contains("**over**"), overstepped);
        let _ = std::fs::remove_dir_all(&base);
    }
}
