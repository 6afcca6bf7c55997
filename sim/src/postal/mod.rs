//! Postal games: correspondence chess on the correspondence clock
//! (`chessclock::correspondence`), with seeded transit times, reflection
//! habits (including players who overstep), claims filed or missed by the
//! opponent, objections, and the arbiter's delays and decisions.
//!
//! Time is whole days. Events are ordered by (day, sequence number) like
//! the over-the-board simulator's, and each habit draws from its own stream.
//!
//! A game comes back as a [`GameRecord`] ([`game_record`]), so runs,
//! expectations and reports treat it like any game. After every event the
//! clock's numbers are held to what the simulator counted itself (moves
//! sent, the moves in the count since 6.4, recorded oversteps; a loss on
//! time only after an overstep), and `probes.rs` tries the calls the rules
//! refuse on a copy.
//!
//! ```text
//!   player ──reflects──▶ sends ──transit──▶ opponent receives ──reflects──▶ …
//!                                            └─ sees an overstep? claims (Corr. 6.2, 6.3)
//!   claim ──notice by post──▶ accused (may object within 7 days, 6.5) ──▶ arbiter decides (6.4, 6.6, 6.9–6.11)
//! ```

use chessclock::correspondence::{
    ClaimOutcome, CorrespondenceArticle, CorrespondenceClock, CorrespondenceError, Day, Decision, Overstep,
    Regulations, Standing,
};
use chessclock::{BySide, Side};
use serde::Deserialize;

use chessclock::Outcome;

use crate::board::MateSearches;
use crate::defects::DefectCounts;
use crate::game::{GameRecord, GameSpec};
use crate::oracle::Violation;
use crate::outcome::{GameResult, Reason};
use crate::queue::EventQueue;
use crate::rng::{Actor, Stream};
use crate::sample::{self, Ratio};

mod probes;

/// A range of whole days.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DayRange {
    pub min_days: u32,
    pub max_days: u32,
}

impl DayRange {
    fn draw(self, stream: &mut Stream) -> u32 {
        u32::try_from(sample::between(stream, u64::from(self.min_days), u64::from(self.max_days))).unwrap_or(u32::MAX)
    }
}

/// The `[correspondence]` table of a scenario: a postal game's habits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Postal {
    /// 6.1: the norm, days per block of moves.
    #[serde(default = "Postal::default_moves_per_block")]
    pub moves_per_block: u32,
    #[serde(default = "Postal::default_days_per_block")]
    pub days_per_block: u32,
    /// 6.11: the regulations score a loss at the first overstep.
    #[serde(default)]
    pub first_overstep_loses: bool,
    /// Moves per player; the game then ends on the board.
    #[serde(default = "Postal::default_moves")]
    pub moves: u32,
    /// Days a letter travels.
    #[serde(default = "Postal::default_transit")]
    pub transit: DayRange,
    /// Days a player usually reflects on a move.
    #[serde(default = "Postal::default_reflection")]
    pub reflection: DayRange,
    /// Chance per move that White (the overstepper) takes `slow` days.
    #[serde(default)]
    pub slow_move: Ratio,
    #[serde(default = "Postal::default_slow")]
    pub slow: DayRange,
    /// Chance that the opponent claims an overstep he sees, in time (6.3).
    #[serde(default = "Postal::default_claims")]
    pub claims: Ratio,
    /// Chance that a claim he makes comes after his reply to the control
    /// move (too late, 6.3).
    #[serde(default)]
    pub late_claims: Ratio,
    /// Chance per move that a player claims an overstep that did not happen.
    #[serde(default)]
    pub unfounded_claims: Ratio,
    /// Chance that the accused objects; and of those, that he is late (6.5).
    #[serde(default)]
    pub objections: Ratio,
    #[serde(default)]
    pub late_objections: Ratio,
    /// Days the arbiter takes to decide, after the objection window.
    #[serde(default = "Postal::default_arbiter")]
    pub arbiter_days: DayRange,
    /// Chance the arbiter upholds a founded claim.
    #[serde(default = "Postal::default_upholds")]
    pub upholds: Ratio,
    /// Penalty days for an unfounded claim (6.10).
    #[serde(default)]
    pub penalty_days: u32,
}

impl Postal {
    fn default_moves_per_block() -> u32 {
        10
    }
    fn default_days_per_block() -> u32 {
        30
    }
    fn default_moves() -> u32 {
        40
    }
    fn default_transit() -> DayRange {
        DayRange { min_days: 2, max_days: 8 }
    }
    fn default_reflection() -> DayRange {
        DayRange { min_days: 0, max_days: 4 }
    }
    fn default_slow() -> DayRange {
        DayRange { min_days: 25, max_days: 45 }
    }
    fn default_claims() -> Ratio {
        Ratio::ALWAYS
    }
    fn default_arbiter() -> DayRange {
        DayRange { min_days: 3, max_days: 20 }
    }
    fn default_upholds() -> Ratio {
        Ratio::ALWAYS
    }

    pub fn regulations(&self) -> Regulations {
        Regulations {
            moves_per_block: self.moves_per_block.max(1),
            days_per_block: self.days_per_block,
            first_overstep_loses: self.first_overstep_loses,
            objection_days: Regulations::DEFAULT.objection_days,
        }
    }
}

/// How a postal game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PostalEnd {
    /// Lost on time by the claims procedure.
    LostOnTime { loser: Side, article: CorrespondenceArticle },
    /// All moves played: the result is the board's.
    MovesPlayed,
}

/// One line of a player's day-by-day accounting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accounting {
    pub side: Side,
    pub day: u32,
    /// Moves and days of the player's current count after this move.
    pub count_moves: u32,
    pub count_days: u32,
    pub allowed_days: u32,
}

/// One event of the claims timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineEntry {
    pub day: u32,
    pub text: String,
    pub article: Option<CorrespondenceArticle>,
}

/// Everything one postal game produced.
#[derive(Clone, Debug)]
pub struct PostalRecord {
    pub end: PostalEnd,
    /// Articles applied in the game, in order.
    pub applied: Vec<CorrespondenceArticle>,
    pub moves: BySide<u32>,
    pub end_day: u32,
    pub accounting: Vec<Accounting>,
    pub timeline: Vec<TimelineEntry>,
    /// Invariants of the correspondence clock that failed.
    pub violations: Vec<String>,
    pub events: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// `side` sends its reply.
    Send(Side),
    /// A letter with a move reaches `side`.
    Receive(Side),
    /// `side` claims its opponent's overstep.
    Claim(Side),
    /// The claim's notice reaches the accused.
    Notice,
    /// The accused objects.
    Object(Side),
    /// The arbiter decides.
    Decide,
}

struct Streams {
    transit: Stream,
    reflection: BySide<Stream>,
    claims: Stream,
    objections: Stream,
    arbiter: Stream,
}

/// Plays one postal game.
pub fn play(postal: &Postal, seed: u64, game: u64) -> PostalRecord {
    let mut game = PostalGame::new(postal, seed, game);
    let first_send = reflection_days(postal, Side::White, &mut game.streams);
    game.schedule(first_send, Event::Send(Side::White));
    // Bounded: every move schedules at most a send, a receipt, a claim,
    // a notice, an objection and a decision.
    let events_max = u64::from(postal.moves).saturating_mul(16).saturating_add(64);
    // The day of the clock's latest accepted call: a refused call leaves
    // the clock as it was, an accepted one dates it.
    let mut clock_day = 0;
    while let Some((when, event)) = game.queue.pop() {
        let day = u32::try_from(when.as_us()).unwrap_or(u32::MAX);
        game.record.events += 1;
        if game.record.events > events_max || matches!(game.clock.standing(), Standing::Lost { .. }) {
            break;
        }
        let before = game.clock;
        let step = match event {
            Event::Send(side) => game.send(side, day),
            Event::Receive(side) => game.receive(side, day),
            Event::Claim(claimant) => game.claim(claimant, day),
            Event::Notice => game.notice(day),
            Event::Object(accused) => game.object(accused, day),
            Event::Decide => game.decide(day),
        };
        if game.clock != before {
            clock_day = day;
        }
        if step == Step::Settled {
            game.record.end_day = day;
            check_invariants(&game.clock, &game.counted, &mut game.record);
            game.record.violations.extend(probes::faults(&game.clock, clock_day));
            game.record.violations.truncate(8);
        }
    }
    if let Standing::Lost { loser, article } = game.clock.standing() {
        game.record.end = PostalEnd::LostOnTime { loser, article };
        let (written, expected) = (article.to_string(), probes::article_text(article));
        if written != expected {
            game.record.violations.push(format!("the loss's article is written {written:?}, not {expected:?}"));
        }
        check_game_over(&game.clock, Day(game.record.end_day), &mut game.record);
    }
    game.record
}

/// A lost game takes nothing more: a move received or sent by either side,
/// or a claim, each tried on a copy, is refused as `GameOver`.
fn check_game_over(clock: &CorrespondenceClock, day: Day, record: &mut PostalRecord) {
    for side in Side::BOTH {
        let answers = [
            ("receives a move", {
                let mut tried = *clock;
                tried.receive(side, day)
            }),
            ("sends a move", {
                let mut tried = *clock;
                tried.send(side, day).map(|_| ())
            }),
            ("claims", {
                let mut tried = *clock;
                tried.claim(side, day).map(|_| ())
            }),
        ];
        for (what, answer) in answers {
            if answer != Err(CorrespondenceError::GameOver) {
                record.violations.push(format!("after the loss, {side} {what}: {answer:?}"));
            }
        }
    }
}

/// What an event did: changed the game (its day is the game's last so far,
/// and the clock's invariants are checked), or nothing the game records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Settled,
    Skipped,
}

/// One postal game under way: the clock, the post and what was recorded.
/// Days are the queue's instants, one microsecond a day.
struct PostalGame<'a> {
    postal: &'a Postal,
    regulations: Regulations,
    streams: Streams,
    clock: CorrespondenceClock,
    queue: EventQueue<Event>,
    record: PostalRecord,
    /// What the simulator counted itself, for the invariants.
    counted: Counted,
    /// The day the pending claim's notice reached the accused, whose seven
    /// days to object run from it (6.5).
    notice_day: Option<u32>,
    /// Whether the open overstep of each side has been claimed already.
    claimed_this_overstep: BySide<bool>,
    /// Every move is played; claims on their way are still decided.
    moves_done: bool,
}

impl<'a> PostalGame<'a> {
    fn new(postal: &'a Postal, seed: u64, game: u64) -> Self {
        let stream = |actor| Stream::new(seed, game, actor);
        let regulations = postal.regulations();
        PostalGame {
            postal,
            regulations,
            streams: Streams {
                transit: stream(Actor::Transit),
                reflection: BySide::new(stream(Actor::White), stream(Actor::Black)),
                claims: stream(Actor::Claims),
                objections: stream(Actor::Objections),
                arbiter: stream(Actor::Arbiter),
            },
            clock: CorrespondenceClock::new(regulations, Day(0)),
            queue: EventQueue::new(),
            record: PostalRecord {
                end: PostalEnd::MovesPlayed,
                applied: Vec::new(),
                moves: BySide::both(0),
                end_day: 0,
                accounting: Vec::new(),
                timeline: Vec::new(),
                violations: Vec::new(),
                events: 0,
            },
            counted: Counted::default(),
            notice_day: None,
            claimed_this_overstep: BySide::both(false),
            moves_done: false,
        }
    }

    fn schedule(&mut self, day: u32, event: Event) {
        self.queue.schedule(chessclock::Instant::from_us(u64::from(day)), event);
    }

    /// A letter posted on `day` arrives after a drawn transit.
    fn post(&mut self, day: u32, event: Event) {
        let transit = self.postal.transit.draw(&mut self.streams.transit);
        self.schedule(day.saturating_add(transit), event);
    }

    fn note(&mut self, day: u32, text: String, article: Option<CorrespondenceArticle>) {
        timeline(&mut self.record, day, text, article);
    }

    /// `side` sends its reply: the clock counts it, and it goes by post
    /// unless it was the last move.
    fn send(&mut self, side: Side, day: u32) -> Step {
        if self.moves_done {
            return Step::Skipped;
        }
        let sent = match self.clock.send(side, Day(day)) {
            Ok(found) => found,
            // Suspended (6.8): the reply waits for the decision.
            Err(_) => return Step::Skipped,
        };
        *self.record.moves.get_mut(side) += 1;
        *self.counted.moves_sent.get_mut(side) += 1;
        let count = self.clock.count(side);
        self.record.accounting.push(Accounting {
            side,
            day,
            count_moves: count.moves,
            count_days: count.days,
            allowed_days: self.regulations.allowed_days(count.moves),
        });
        if let Some(overstep) = sent {
            *self.counted.oversteps.get_mut(side) += 1;
            *self.claimed_this_overstep.get_mut(side) = false;
            self.note(day, format!("{side} oversteps: {}", describe(&overstep)), Some(CorrespondenceArticle::C6_1));
        }
        let moves = self.postal.moves;
        if *self.record.moves.get(Side::White) >= moves && *self.record.moves.get(Side::Black) >= moves {
            // All moves are played; claims already on their way are
            // still decided.
            self.moves_done = true;
            self.record.end_day = day;
            return Step::Skipped;
        }
        self.post(day, Event::Receive(side.opponent()));
        Step::Settled
    }

    /// A move reaches `side`, who reflects on the reply and may claim.
    fn receive(&mut self, side: Side, day: u32) -> Step {
        if self.moves_done || self.clock.receive(side, Day(day)).is_err() {
            return Step::Skipped;
        }
        let reflection = reflection_days(self.postal, side, &mut self.streams);
        let reply_day = day.saturating_add(reflection);
        // Does `side` see an overstep of its opponent's to claim? A
        // claim goes out with the reply (scheduled first, so a
        // second-overstep claim holds that very move, 6.7).
        let accused = side.opponent();
        let open = self.clock.open_overstep(accused).is_some() && !*self.claimed_this_overstep.get(accused);
        let postal = self.postal;
        if open && self.clock.pending_claim().is_none() {
            if sample::chance(&mut self.streams.claims, postal.claims) {
                *self.claimed_this_overstep.get_mut(accused) = true;
                let late = sample::chance(&mut self.streams.claims, postal.late_claims);
                let claim_day = if late { reply_day.saturating_add(postal_late_margin(postal)) } else { reply_day };
                self.schedule(claim_day, Event::Claim(side));
            }
        } else if self.clock.pending_claim().is_none()
            && sample::chance(&mut self.streams.claims, postal.unfounded_claims)
        {
            self.schedule(reply_day, Event::Claim(side));
        }
        self.schedule(reply_day, Event::Send(side));
        Step::Settled
    }

    /// `claimant` claims (Corr. 6.2, 6.7); a second overstep's claim
    /// suspends the game (6.8). A filed claim's notice goes by post.
    fn claim(&mut self, claimant: Side, day: u32) -> Step {
        match self.clock.claim(claimant, Day(day)) {
            Ok(ClaimOutcome::Filed) => {
                let second = self.clock.pending_claim().is_some_and(|claim| claim.second);
                let article = if second { CorrespondenceArticle::C6_7 } else { CorrespondenceArticle::C6_2 };
                self.note(day, format!("{claimant} claims {}'s overstep", claimant.opponent()), Some(article));
                if second {
                    // 6.7: the claimant's next move goes with the claim.
                    *self.counted.moves_sent.get_mut(claimant) += 1;
                    self.record.applied.push(CorrespondenceArticle::C6_8);
                    let text = "game suspended until the arbiter decides".into();
                    self.note(day, text, Some(CorrespondenceArticle::C6_8));
                }
                self.post(day, Event::Notice);
            }
            Ok(ClaimOutcome::Rejected(article)) => {
                self.record.applied.push(article);
                self.note(day, format!("{claimant}'s claim is too late"), Some(article));
            }
            Err(error) => self.note(day, format!("{claimant} cannot claim: {error}"), None),
        }
        Step::Settled
    }

    /// The claim's notice reaches the accused, who may object (6.5); the
    /// arbiter decides after the objection window.
    fn notice(&mut self, day: u32) -> Step {
        if self.clock.notice_received(Day(day)).is_err() {
            return Step::Skipped;
        }
        let Some(claim) = self.clock.pending_claim() else { return Step::Skipped };
        let accused = claim.claimant.opponent();
        self.notice_day = Some(day);
        self.note(day, format!("{accused} receives the notice"), None);
        let window = self.regulations.objection_days;
        let postal = self.postal;
        let objections = &mut self.streams.objections;
        if sample::chance(objections, postal.objections) {
            let late = sample::chance(objections, postal.late_objections);
            let after = if late {
                window.saturating_add(1 + sample::between(objections, 0, 5) as u32)
            } else {
                sample::between(objections, 0, u64::from(window)) as u32
            };
            self.schedule(day.saturating_add(after), Event::Object(accused));
        }
        let decide_after = window.saturating_add(1).saturating_add(postal.arbiter_days.draw(&mut self.streams.arbiter));
        self.schedule(day.saturating_add(decide_after), Event::Decide);
        Step::Settled
    }

    /// The accused objects, in time or too late (6.5).
    fn object(&mut self, accused: Side, day: u32) -> Step {
        let heard = self.clock.pending_claim().is_some_and(|claim| claim.claimant == accused.opponent());
        let answer = self.clock.object(accused, Day(day));
        if heard {
            self.check_objection(day, &answer);
        }
        match answer {
            Ok(ClaimOutcome::Filed) => self.note(day, format!("{accused} objects"), Some(CorrespondenceArticle::C6_5)),
            Ok(ClaimOutcome::Rejected(article)) => {
                self.record.applied.push(article);
                self.note(day, format!("{accused}'s objection is too late"), Some(article));
            }
            Err(_) => {}
        }
        Step::Settled
    }

    /// 6.5: the accused's objection to a pending claim, sent within the window the regulations give
    /// (seven days by default) from the notice is heard; a later one is
    /// rejected by 6.5.
    fn check_objection(&mut self, day: u32, answer: &Result<ClaimOutcome, CorrespondenceError>) {
        let Some(notice_day) = self.notice_day else { return };
        let in_time = day <= notice_day.saturating_add(self.regulations.objection_days);
        let expected = if in_time { ClaimOutcome::Filed } else { ClaimOutcome::Rejected(CorrespondenceArticle::C6_5) };
        if answer.as_ref().ok() != Some(&expected) {
            let detail =
                format!("an objection on day {day}, notice on day {notice_day}: {answer:?}, 6.5 says {expected:?}");
            self.record.violations.push(detail);
        }
    }

    /// The arbiter upholds a founded claim (6.4, 6.6, 6.11) or rejects it
    /// with a penalty (6.9, 6.10); a rejected second claim releases the
    /// held move (6.9).
    fn decide(&mut self, day: u32) -> Step {
        let Some(claim) = self.clock.pending_claim() else { return Step::Skipped };
        let founded = claim.overstep.is_some();
        let upheld = founded && sample::chance(&mut self.streams.arbiter, self.postal.upholds);
        let penalty = if founded { 0 } else { self.postal.penalty_days };
        match self.clock.decide(Day(day), upheld, penalty) {
            Ok(Decision::Upheld(article)) => {
                let accused = claim.claimant.opponent();
                *self.counted.upheld.get_mut(accused) += 1;
                if article == CorrespondenceArticle::C6_4 {
                    // 6.4: counted again from zero, from the next move.
                    *self.counted.count_from.get_mut(accused) = *self.counted.moves_sent.get(accused);
                }
                self.record.applied.push(article);
                let text = format!("arbiter upholds the claim against {}", claim.claimant.opponent());
                self.note(day, text, Some(article));
            }
            Ok(Decision::Rejected { penalty_days }) => {
                let article = if claim.second { CorrespondenceArticle::C6_9 } else { CorrespondenceArticle::C6_10 };
                self.record.applied.push(article);
                let text = format!("arbiter rejects {}'s claim, {penalty_days} penalty days", claim.claimant);
                self.note(day, text, Some(article));
                if claim.second {
                    // 6.9: the held move goes to the accused.
                    self.post(day, Event::Receive(claim.claimant.opponent()));
                }
            }
            Err(error) => self.note(day, format!("the arbiter cannot decide: {error}"), None),
        }
        Step::Settled
    }
}

/// A postal game as a [`GameRecord`], so runs, expectations and reports
/// treat it like any other game. The "device" result is the game as played,
/// with the scenario's claiming habits; the "ideal" one is the same game
/// (same seed: same reflections and post) with a diligent opponent who
/// claims every overstep in time and never without one. Days count as
/// whole days in the record's microsecond fields.
pub fn game_record(postal: &Postal, spec: GameSpec<'_>) -> GameRecord {
    let record = play(postal, spec.seed, spec.game);
    let diligent =
        Postal { claims: Ratio::ALWAYS, late_claims: Ratio::NEVER, unfounded_claims: Ratio::NEVER, ..*postal };
    let ideal = if diligent == *postal { record.end } else { play(&diligent, spec.seed, spec.game).end };
    let result = |end: PostalEnd| match end {
        PostalEnd::LostOnTime { loser, article } => {
            GameResult { outcome: Outcome::Win(loser.opponent()), reason: Reason::Correspondence(article) }
        }
        PostalEnd::MovesPlayed => GameResult { outcome: Outcome::Draw, reason: Reason::MoveBound },
    };
    let mut lines = Vec::new();
    for entry in &record.accounting {
        lines.push(format!(
            "day {:>5}  {} sends: {} days for {} moves (norm {} days)",
            entry.day, entry.side, entry.count_days, entry.count_moves, entry.allowed_days
        ));
    }
    for entry in &record.timeline {
        let article = entry.article.map(|article| format!(" [{article}]")).unwrap_or_default();
        lines.push(format!("day {:>5}  {}{article}", entry.day, entry.text));
    }
    lines.sort_by_key(|line| line.get(4..9).and_then(|day| day.trim().parse::<u32>().ok()).unwrap_or(0));
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in lines.iter().flat_map(|line| line.bytes().chain(std::iter::once(b'\n'))) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let violations = record
        .violations
        .iter()
        .map(|detail| Violation {
            at_us: 0,
            clock: "correspondence",
            check: "correspondence clock",
            detail: detail.clone(),
        })
        .collect();
    GameRecord {
        game: spec.game,
        device: result(record.end),
        ideal: result(ideal),
        applied: Vec::new(),
        applied_correspondence: record.applied.clone(),
        moves: record.moves,
        presses: u64::from(record.moves.white) + u64::from(record.moves.black),
        events: record.events,
        end_us: u64::from(record.end_day),
        max_time_error_us: 0,
        drift: Vec::new(),
        defects: DefectCounts::default(),
        transitions: chessclock::Transitions::default(),
        violations,
        // The independent model is of the chess clock; a postal game has none.
        model: crate::oracle::ModelCoverage::default(),
        trace_hash: hash,
        trace: spec.trace.then_some(lines),
        device_config: spec.scenario.device,
        // No clock to press: correspondence games have no input log.
        inputs: None,
        script: None,
        mate_searches: MateSearches::default(),
    }
}

/// Days `side` reflects on its next move (White sometimes oversteps).
fn reflection_days(postal: &Postal, side: Side, streams: &mut Streams) -> u32 {
    let stream = streams.reflection.get_mut(side);
    let usual = postal.reflection.draw(stream);
    let slow = side == Side::White && sample::chance(stream, postal.slow_move);
    let slow_days = postal.slow.draw(stream);
    if slow {
        slow_days
    } else {
        usual
    }
}

/// How much later than his reply a late claimant claims: past the whole
/// next block, so the reply to the control move is surely behind him.
fn postal_late_margin(postal: &Postal) -> u32 {
    postal
        .moves_per_block
        .saturating_mul(postal.transit.max_days.saturating_add(postal.reflection.max_days).saturating_mul(2))
}

fn describe(overstep: &Overstep) -> String {
    format!(
        "{} days for {} moves, more than {} (Corr. 6.1); claim due by the reply to move {}",
        overstep.count.days, overstep.count.moves, overstep.allowed_days, overstep.control_move
    )
}

fn timeline(record: &mut PostalRecord, day: u32, text: String, article: Option<CorrespondenceArticle>) {
    record.timeline.push(TimelineEntry { day, text, article });
}

/// What the simulator counts of a postal game itself, to hold the
/// clock's counts against.
#[derive(Debug, Default)]
struct Counted {
    /// Oversteps as they happened.
    oversteps: BySide<u32>,
    /// Moves each side sent: by post, or to the arbiter with a second
    /// overstep claim (6.7).
    moves_sent: BySide<u32>,
    /// Claims upheld against each side: its recorded oversteps.
    upheld: BySide<u32>,
    /// Moves sent when the side's count last restarted from zero (6.4).
    count_from: BySide<u32>,
}

/// The correspondence clock's invariants after every event.
fn check_invariants(clock: &CorrespondenceClock, counted: &Counted, record: &mut PostalRecord) {
    for side in Side::BOTH {
        let count = clock.count(side);
        if count.days > clock.reflection_days_total(side).saturating_add(clock.penalty_days(side)) {
            record.violations.push(format!("{side}'s count holds more days than it reflected (transit counted?)"));
        }
        let sent = *counted.moves_sent.get(side);
        let numbers = [
            ("moves sent", sent, clock.moves_sent(side)),
            ("moves in the count (6.1, 6.4)", sent.saturating_sub(*counted.count_from.get(side)), count.moves),
            ("recorded oversteps", *counted.upheld.get(side), clock.recorded_oversteps(side)),
        ];
        for (what, expected, shown) in numbers {
            if shown != expected {
                record.violations.push(format!("{side}'s {what}: the clock says {shown}, {expected} happened"));
            }
        }
    }
    if let Standing::Lost { loser, .. } = clock.standing() {
        if *counted.oversteps.get(loser) == 0 {
            record.violations.push(format!("{loser} lost on time without an overstep"));
        }
    }
    record.violations.truncate(8);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn postal() -> Postal {
        Postal {
            moves_per_block: 10,
            days_per_block: 30,
            first_overstep_loses: false,
            moves: 30,
            transit: DayRange { min_days: 2, max_days: 6 },
            reflection: DayRange { min_days: 0, max_days: 3 },
            slow_move: Ratio { numerator: 1, denominator: 8 },
            slow: DayRange { min_days: 31, max_days: 40 },
            claims: Ratio::ALWAYS,
            late_claims: Ratio::NEVER,
            unfounded_claims: Ratio::NEVER,
            objections: Ratio::NEVER,
            late_objections: Ratio::NEVER,
            arbiter_days: DayRange { min_days: 1, max_days: 5 },
            upholds: Ratio::ALWAYS,
            penalty_days: 0,
        }
    }

    #[test]
    fn a_repeat_overstepper_loses_by_6_6_when_every_claim_is_made() {
        let lost = (0..40)
            .map(|game| play(&postal(), 1, game))
            .filter(|record| {
                matches!(record.end, PostalEnd::LostOnTime { loser: Side::White, article: CorrespondenceArticle::C6_6 })
            })
            .count();
        assert!(lost > 0, "some games see two upheld oversteps");
    }

    #[test]
    fn postal_games_never_violate_the_clock_invariants_and_replay_identically() {
        for game in 0..60 {
            let record = play(&postal(), 7, game);
            assert!(record.violations.is_empty(), "game {game}: {:?}", record.violations);
            let again = play(&postal(), 7, game);
            assert_eq!(record.timeline, again.timeline);
            assert_eq!(record.accounting, again.accounting);
        }
    }
}
