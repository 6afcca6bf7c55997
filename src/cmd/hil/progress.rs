//! The progress display of `bench hil` on boards on debug probes.
//!
//! One board: its flash bar, then the presses bar of the emulated board
//! (`game g/N, guest …`). Several boards (a farm): one line per board —
//! flashing, then that board's presses — and a total line below them, the
//! presses counted across boards. Every board's thread updates its own
//! line, so lines never interleave. Schedules are made as each game
//! begins, so a bar's length is the presses of the games begun so far,
//! and `game g/N` says how far the run is.

use std::sync::Mutex;

use bench_hil::backend::probe::FlashUpdate;
use bench_hil::session::farm::BoardProgress;
use bench_hil::session::Progress;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Presses counted on one board: those of its finished games and of the
/// game it plays now.
#[derive(Clone, Copy, Debug, Default)]
struct BoardCount {
    game: Option<u64>,
    game_presses: u64,
    finished_presses: u64,
    sent: u64,
}

impl BoardCount {
    /// Counts `progress`; true when it is the first of a game.
    fn record(&mut self, progress: &Progress) -> bool {
        let begun = self.game != Some(progress.game);
        if begun {
            if self.game.is_some() {
                self.finished_presses += self.game_presses;
            }
            self.game = Some(progress.game);
        }
        self.game_presses = progress.presses_total as u64;
        self.sent = progress.presses_sent as u64;
        begun
    }

    fn presses(&self) -> u64 {
        self.finished_presses + self.sent
    }
}

/// The bars, shared by the boards' threads.
pub struct ProbeProgress {
    multi: MultiProgress,
    total: ProgressBar,
    /// One line per board, above the total.
    lines: Vec<ProgressBar>,
    counts: Mutex<Vec<BoardCount>>,
    games: u64,
}

fn style(template: &str) -> Option<ProgressStyle> {
    ProgressStyle::with_template(template).ok().map(|style| style.progress_chars("=> "))
}

const TOTAL_TEMPLATE: &str = "{spinner} {pos}/{len} presses [{bar:40}] {msg}";
const FLASH_TEMPLATE: &str = "{prefix}{msg:>10} [{bar:40}] {bytes}/{total_bytes}";
const BOARD_TEMPLATE: &str = "{prefix}{pos:>5}/{len} presses [{bar:40}] {msg}";

impl ProbeProgress {
    /// `boards`: how many boards (1: a single board); `games`: how many
    /// games in all.
    pub fn new(boards: usize, games: u64, draw: ProgressDrawTarget) -> ProbeProgress {
        let multi = MultiProgress::with_draw_target(draw);
        let farm = boards > 1;
        let lines: Vec<ProgressBar> = (0..boards)
            .map(|index| {
                let line = multi.add(ProgressBar::new(0));
                if let Some(style) = style(FLASH_TEMPLATE) {
                    line.set_style(style);
                }
                if farm {
                    line.set_prefix(format!("board {}: ", index + 1));
                }
                line
            })
            .collect();
        let total = multi.add(ProgressBar::new(0));
        if let Some(style) = style(TOTAL_TEMPLATE) {
            total.set_style(style);
        }
        ProbeProgress { multi, total, lines, counts: Mutex::new(vec![BoardCount::default(); boards]), games }
    }

    fn farm(&self) -> bool {
        self.lines.len() > 1
    }

    /// An update from board `board` (its index among the probes).
    pub fn update(&self, board: usize, update: BoardProgress<'_>) {
        let Some(line) = self.lines.get(board) else { return };
        match update {
            BoardProgress::Flash(FlashUpdate::Started { step, total_bytes }) => {
                line.set_length(total_bytes);
                line.set_position(0);
                line.set_message(step);
            }
            BoardProgress::Flash(FlashUpdate::Done { bytes }) => line.inc(bytes),
            BoardProgress::Game(progress) => self.game(board, line, progress),
        }
    }

    fn game(&self, board: usize, line: &ProgressBar, progress: &Progress) {
        let (board_presses, all_presses, first_update, begun) = match self.counts.lock() {
            Ok(mut counts) => {
                let Some(count) = counts.get_mut(board) else { return };
                let first_update = count.game.is_none();
                let begun = count.record(progress);
                let board_presses = count.presses();
                (board_presses, counts.iter().map(BoardCount::presses).sum::<u64>(), first_update, begun)
            }
            Err(_) => return,
        };
        let new_presses = if begun { progress.presses_total as u64 } else { 0 };
        let message = format!(
            "game {}/{}, guest {:.1} of {:.1} s",
            progress.game + 1,
            self.games,
            progress.guest_us as f64 / 1e6,
            progress.duration_us as f64 / 1e6
        );
        self.total.inc_length(new_presses);
        self.total.set_position(all_presses);
        if !self.farm() {
            if first_update {
                line.finish_and_clear();
            }
            self.total.set_message(message);
            return;
        }
        if first_update {
            if let Some(style) = style(BOARD_TEMPLATE) {
                line.set_style(style);
            }
            line.set_length(0);
        }
        line.inc_length(new_presses);
        line.set_position(board_presses);
        line.set_message(message);
        self.total.set_message("all boards");
    }

    pub fn finish(&self) {
        for line in &self.lines {
            line.finish_and_clear();
        }
        self.total.finish_and_clear();
        let _ = self.multi.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(game: u64, presses_sent: usize, presses_total: usize) -> Progress {
        Progress { game, presses_sent, presses_total, guest_us: 1_500_000, duration_us: 9_000_000 }
    }

    /// Two boards, games 0 and 2 on the first, 1 on the second: each line
    /// flashes, then counts its own presses; the total counts all of them,
    /// finished games included.
    #[test]
    fn a_farm_counts_presses_per_board_and_across_boards() {
        let progress = ProbeProgress::new(2, 3, ProgressDrawTarget::hidden());
        let (first, second) = (&progress.lines[0], &progress.lines[1]);
        progress.update(1, BoardProgress::Flash(FlashUpdate::Started { step: "program", total_bytes: 2048 }));
        progress.update(1, BoardProgress::Flash(FlashUpdate::Done { bytes: 1024 }));
        assert_eq!((second.position(), second.length(), second.message()), (1024, Some(2048), "program".into()));
        progress.update(0, BoardProgress::Game(&game(0, 4, 10)));
        progress.update(1, BoardProgress::Game(&game(1, 3, 12)));
        assert_eq!((first.position(), first.length()), (4, Some(10)), "the presses of the games begun");
        assert_eq!((second.position(), second.length()), (3, Some(12)));
        assert_eq!(progress.total.position(), 7);
        progress.update(0, BoardProgress::Game(&game(0, 10, 10)));
        progress.update(0, BoardProgress::Game(&game(2, 5, 20)));
        assert_eq!(first.position(), 15, "game 0's 10 presses and 5 of game 2");
        assert_eq!(progress.total.position(), 18);
        assert_eq!(first.length(), Some(30));
        assert_eq!(progress.total.length(), Some(42));
        assert!(first.message().starts_with("game 3/3, guest 1.5 of 9.0 s"), "{}", first.message());
        assert_eq!(first.prefix(), "board 1: ");
        progress.update(2, BoardProgress::Game(&game(5, 1, 1)));
        assert_eq!(progress.total.position(), 18, "an unknown board changes nothing");
    }

    /// One board: no per-board line once the games start; the total line
    /// shows what the emulated board's bar shows.
    #[test]
    fn one_board_shows_its_flash_bar_then_the_presses_bar() {
        let progress = ProbeProgress::new(1, 2, ProgressDrawTarget::hidden());
        progress.update(0, BoardProgress::Flash(FlashUpdate::Started { step: "erase", total_bytes: 4096 }));
        assert!(!progress.lines[0].is_finished());
        progress.update(0, BoardProgress::Game(&game(0, 2, 13)));
        progress.update(0, BoardProgress::Game(&game(1, 1, 12)));
        assert!(progress.lines[0].is_finished(), "the flash bar is gone");
        assert_eq!(progress.total.position(), 14);
        assert_eq!(progress.total.message(), "game 2/2, guest 1.5 of 9.0 s");
        assert_eq!(progress.lines[0].prefix(), "");
    }
}
