//! How a simulated game ended, and the classes results are counted in.

use std::fmt;

use chessclock::correspondence::CorrespondenceArticle;
use chessclock::{Article, Outcome, Side};

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// A ruling of the Laws.
    Article(Article),
    /// The game reached the scenario's move bound and was adjudicated a draw.
    MoveBound,
    /// The ideal game was still going when the device's game ended (the
    /// device decided something a perfect clock would not have, yet).
    StillPlaying,
    /// A ruling of the correspondence regulation (postal games).
    Correspondence(CorrespondenceArticle),
}

/// The result of one game on one clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameResult {
    /// `Outcome::Continue` only with [`Reason::StillPlaying`].
    pub outcome: Outcome,
    pub reason: Reason,
}

impl GameResult {
    pub fn class(&self) -> String {
        match self.reason {
            Reason::Article(article) => article.number().to_string(),
            Reason::MoveBound => "move-bound".to_string(),
            Reason::StillPlaying => "still-playing".to_string(),
            Reason::Correspondence(article) => format!("corr {}", article.number()),
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let outcome = match self.outcome {
            Outcome::Win(Side::White) => "1-0",
            Outcome::Win(Side::Black) => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::Continue => "*",
            Outcome::BothLose => "0-0",
        };
        write!(f, "{outcome} ({})", self.class())
    }
}

/// A class of results an expectation counts: by article, or by outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultClass {
    Article(Article),
    /// A correspondence article (`corr 6.6`).
    Correspondence(CorrespondenceArticle),
    MoveBound,
    White,
    Black,
    Draw,
}

impl ResultClass {
    pub const ARTICLES: [Article; 7] =
        [Article::A5_1, Article::A5_2, Article::A6_3, Article::A6_7, Article::A6_10, Article::A6_12a, Article::A6_12b];

    pub const CORRESPONDENCE: [CorrespondenceArticle; 8] = [
        CorrespondenceArticle::C6_3,
        CorrespondenceArticle::C6_4,
        CorrespondenceArticle::C6_5,
        CorrespondenceArticle::C6_6,
        CorrespondenceArticle::C6_8,
        CorrespondenceArticle::C6_9,
        CorrespondenceArticle::C6_10,
        CorrespondenceArticle::C6_11,
    ];

    pub const NAMES: [&'static str; 19] = [
        "5.1",
        "5.2",
        "6.3",
        "6.7",
        "6.10",
        "6.12 a)",
        "6.12 b)",
        "move-bound",
        "white",
        "black",
        "draw",
        "corr 6.3",
        "corr 6.4",
        "corr 6.5",
        "corr 6.6",
        "corr 6.8",
        "corr 6.9",
        "corr 6.10",
        "corr 6.11",
    ];

    pub fn parse(text: &str) -> Option<ResultClass> {
        match text {
            "white" => Some(ResultClass::White),
            "black" => Some(ResultClass::Black),
            "draw" => Some(ResultClass::Draw),
            "move-bound" => Some(ResultClass::MoveBound),
            _ => match text.strip_prefix("corr ") {
                Some(number) => ResultClass::CORRESPONDENCE
                    .into_iter()
                    .find(|article| article.number() == number)
                    .map(ResultClass::Correspondence),
                None => {
                    ResultClass::ARTICLES.into_iter().find(|article| article.number() == text).map(ResultClass::Article)
                }
            },
        }
    }

    /// Whether a game with final `result`, in which the rulings `applied`
    /// were made (the final one included), belongs to this class. An article
    /// class counts every game in which that article was applied, so rulings
    /// that let play go on (6.3, 6.12 a)) are counted too.
    pub fn contains(
        self,
        result: &GameResult,
        applied: &[Article],
        applied_correspondence: &[CorrespondenceArticle],
    ) -> bool {
        match self {
            ResultClass::Article(article) => applied.contains(&article),
            ResultClass::Correspondence(article) => applied_correspondence.contains(&article),
            ResultClass::MoveBound => result.reason == Reason::MoveBound,
            ResultClass::White => result.outcome == Outcome::Win(Side::White),
            ResultClass::Black => result.outcome == Outcome::Win(Side::Black),
            ResultClass::Draw => result.outcome == Outcome::Draw,
        }
    }
}
