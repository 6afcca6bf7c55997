//! The correspondence clock: time overstepping in postal chess (seed
//! `004_…`, articles cited as "Corr. 6.x").
//!
//! Time is whole days. A player's *reflection time* for a move runs from
//! the day he receives his opponent's move to the day he sends his reply;
//! postal transit never counts. Reflection days add up in a *count* that
//! the norm (6.1) limits: more than 30 days for 10 or fewer moves, more than
//! 60 for 20 or fewer, and so on. A first overstep, once recorded, restarts
//! the player's count from zero with his next move (6.4) — or loses, if the
//! regulations say so (6.11); a second one loses (6.6).
//!
//! Oversteps become facts only through the claims procedure, modelled here
//! as a state machine: the claim must come no later than the claimant's
//! reply to the overstepper's control move (6.3); the accused may object
//! within seven days of receiving the notice (6.5); a second-overstep claim
//! suspends the game from its sending day until the arbiter decides, the
//! claimant's next move held by the arbiter (6.7, 6.8); a rejected claim
//! resumes play with that move forwarded and may cost the claimant penalty
//! days (6.9, 6.10).
//!
//! Like the rest of the core: no I/O, no allocation, no panics; every call
//! carries its day, and wrong calls return typed errors without changing
//! anything.

use core::fmt;

use crate::side::{BySide, Side};

/// A calendar day, counted from the game's first day.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day(pub u32);

impl Day {
    pub const fn days_since(self, earlier: Day) -> u32 {
        self.0.saturating_sub(earlier.0)
    }

    pub const fn plus(self, days: u32) -> Day {
        Day(self.0.saturating_add(days))
    }
}

/// An article of the correspondence regulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CorrespondenceArticle {
    /// 6.1: what an overstep is (the norm).
    C6_1,
    /// 6.2: a claim comes with a time calculation.
    C6_2,
    /// 6.3: the claim is due no later than the reply to the control move.
    C6_3,
    /// 6.4: after a first overstep the count restarts from zero.
    C6_4,
    /// 6.5: objections within seven days of receiving the notice.
    C6_5,
    /// 6.6: a second overstep loses.
    C6_6,
    /// 6.7: a second-overstep claim holds the claimant's next move.
    C6_7,
    /// 6.8: the game is suspended until the arbiter decides.
    C6_8,
    /// 6.9: a rejected second-overstep claim resumes play.
    C6_9,
    /// 6.10: penalty days for an unfounded claim.
    C6_10,
    /// 6.11: the first overstep loses where the regulations say so.
    C6_11,
}

impl CorrespondenceArticle {
    pub const fn number(self) -> &'static str {
        match self {
            CorrespondenceArticle::C6_1 => "6.1",
            CorrespondenceArticle::C6_2 => "6.2",
            CorrespondenceArticle::C6_3 => "6.3",
            CorrespondenceArticle::C6_4 => "6.4",
            CorrespondenceArticle::C6_5 => "6.5",
            CorrespondenceArticle::C6_6 => "6.6",
            CorrespondenceArticle::C6_7 => "6.7",
            CorrespondenceArticle::C6_8 => "6.8",
            CorrespondenceArticle::C6_9 => "6.9",
            CorrespondenceArticle::C6_10 => "6.10",
            CorrespondenceArticle::C6_11 => "6.11",
        }
    }
}

impl fmt::Display for CorrespondenceArticle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Corr. {}", self.number())
    }
}

/// The norm and options a competition's regulations set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Regulations {
    /// 6.1: a block of this many moves…
    pub moves_per_block: u32,
    /// …may use at most this many days (cumulatively: k blocks, k times this).
    pub days_per_block: u32,
    /// 6.11: the first overstep already loses.
    pub first_overstep_loses: bool,
    /// 6.5: days the accused has to object, from receiving the notice.
    pub objection_days: u32,
}

impl Regulations {
    /// The seed's defaults: 30 days per 10 moves, objections within 7 days.
    pub const DEFAULT: Regulations =
        Regulations { moves_per_block: 10, days_per_block: 30, first_overstep_loses: false, objection_days: 7 };

    /// 6.1: the days allowed for `moves` moves of a count.
    pub fn allowed_days(&self, moves: u32) -> u32 {
        let block = self.moves_per_block.max(1);
        let blocks = moves.div_ceil(block).max(1);
        blocks.saturating_mul(self.days_per_block)
    }
}

/// A player's reflection time since his count last started (6.1, 6.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Count {
    pub moves: u32,
    pub days: u32,
}

/// An overstep as the norm detects it at a sent move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Overstep {
    pub side: Side,
    /// The overstepping move, numbered over the whole game.
    pub move_number: u32,
    pub count: Count,
    pub allowed_days: u32,
    /// The block's last move (the control move), numbered over the whole
    /// game: the claim is due by the reply to it (6.3).
    pub control_move: u32,
    pub sent: Day,
}

/// A claim in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Claim {
    pub claimant: Side,
    pub sent: Day,
    /// The overstep claimed; `None` for an unfounded claim.
    pub overstep: Option<Overstep>,
    /// A second-overstep claim: the game is suspended (6.8) and the
    /// claimant's move is held by the arbiter (6.7).
    pub second: bool,
    /// Day the accused received the notice (6.5), when known.
    pub notice_received: Option<Day>,
    pub objected: bool,
}

/// How the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Standing {
    /// `side` is to move; it received the opponent's move on `received`
    /// (`None` while the move is still in the post).
    ToMove { side: Side, received: Option<Day> },
    /// Suspended from `since` until the arbiter decides (6.8).
    Suspended { since: Day },
    /// Lost on time by `loser`, by this article.
    Lost { loser: Side, article: CorrespondenceArticle },
}

/// What became of a claim the moment it was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClaimOutcome {
    /// Filed; the arbiter will decide.
    Filed,
    /// Rejected at once, by the article that rejects it (6.3: too late).
    Rejected(CorrespondenceArticle),
}

/// The arbiter's decision on the pending claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// The overstep stands: recorded (6.4), or the game is lost (6.6, 6.11).
    Upheld(CorrespondenceArticle),
    /// The claim is rejected; play resumes (6.9) and the claimant may be
    /// charged penalty days (6.10).
    Rejected { penalty_days: u32 },
}

/// A call the correspondence clock cannot accept; nothing changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorrespondenceError {
    /// Days go forward only.
    DayWentBackwards {
        last: Day,
        day: Day,
    },
    /// Not this side's move.
    NotToMove {
        side: Side,
    },
    /// The move to answer has not arrived yet.
    NothingReceived {
        side: Side,
    },
    /// A move was received twice.
    AlreadyReceived {
        side: Side,
    },
    /// The game is suspended (6.8): no moves until the arbiter decides.
    Suspended,
    /// The game is over.
    GameOver,
    /// Only one claim at a time.
    ClaimPending,
    NoClaimPending,
    /// Only the accused objects.
    NotTheAccused {
        side: Side,
    },
    /// The objection window is still open; the arbiter waits (6.5).
    ObjectionWindowOpen {
        until: Day,
    },
    /// Notice of the claim has not reached the accused yet.
    NoticeNotReceived,
}

impl fmt::Display for CorrespondenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorrespondenceError::DayWentBackwards { last, day } => {
                write!(f, "day {} is earlier than the last event's day {}", day.0, last.0)
            }
            CorrespondenceError::NotToMove { side } => write!(f, "it is not {side}'s move"),
            CorrespondenceError::NothingReceived { side } => write!(f, "{side} has not received a move to answer"),
            CorrespondenceError::AlreadyReceived { side } => write!(f, "{side} already received the move"),
            CorrespondenceError::Suspended => {
                f.write_str("the game is suspended until the arbiter decides (Corr. 6.8)")
            }
            CorrespondenceError::GameOver => f.write_str("the game is over"),
            CorrespondenceError::ClaimPending => f.write_str("a claim is already pending"),
            CorrespondenceError::NoClaimPending => f.write_str("no claim is pending"),
            CorrespondenceError::NotTheAccused { side } => write!(f, "{side} is not the accused"),
            CorrespondenceError::ObjectionWindowOpen { until } => {
                write!(f, "the accused may still object until day {} (Corr. 6.5)", until.0)
            }
            CorrespondenceError::NoticeNotReceived => f.write_str("the accused has not received the notice yet"),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct PlayerState {
    count: Count,
    /// Moves sent over the whole game.
    moves_sent: u32,
    /// The opponent's whole-game move number last received by this player.
    answered_move: u32,
    /// The opponent's move number this player last sent a reply to.
    replied_to_move: u32,
    recorded_oversteps: u32,
    /// The latest overstep the norm found and nobody has claimed yet.
    open_overstep: Option<Overstep>,
    /// Blocks of the current count already found overstepped.
    overstepped_block: u32,
    /// Penalty days charged (6.10).
    penalty_days: u32,
    /// Days this player's reflection has run in all (for audits: transit
    /// and suspension never add to it).
    reflection_days_total: u32,
}

/// A correspondence game's clock and claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CorrespondenceClock {
    regulations: Regulations,
    players: BySide<PlayerState>,
    standing: Standing,
    claim: Option<Claim>,
    last_day: Day,
    /// A held move (6.7) to forward if the claim is rejected (6.9).
    held_move_of: Option<Side>,
}

impl CorrespondenceClock {
    /// A new game: White to move, his reflection running from `start`.
    pub fn new(regulations: Regulations, start: Day) -> CorrespondenceClock {
        CorrespondenceClock {
            regulations,
            players: BySide::both(PlayerState::default()),
            standing: Standing::ToMove { side: Side::White, received: Some(start) },
            claim: None,
            last_day: start,
            held_move_of: None,
        }
    }

    pub fn regulations(&self) -> &Regulations {
        &self.regulations
    }

    pub fn standing(&self) -> Standing {
        self.standing
    }

    /// The claim the arbiter has not decided yet.
    pub fn pending_claim(&self) -> Option<Claim> {
        self.claim
    }

    pub fn count(&self, side: Side) -> Count {
        self.players.get(side).count
    }

    pub fn moves_sent(&self, side: Side) -> u32 {
        self.players.get(side).moves_sent
    }

    pub fn recorded_oversteps(&self, side: Side) -> u32 {
        self.players.get(side).recorded_oversteps
    }

    /// The overstep of `side` that the norm found and nobody claimed yet.
    pub fn open_overstep(&self, side: Side) -> Option<Overstep> {
        self.players.get(side).open_overstep
    }

    pub fn penalty_days(&self, side: Side) -> u32 {
        self.players.get(side).penalty_days
    }

    /// Every reflection day `side` has used in the game (penalties excluded).
    pub fn reflection_days_total(&self, side: Side) -> u32 {
        self.players.get(side).reflection_days_total
    }

    fn transaction(
        &mut self,
        day: Day,
        change: impl FnOnce(&mut CorrespondenceClock) -> Result<(), CorrespondenceError>,
    ) -> Result<(), CorrespondenceError> {
        if day < self.last_day {
            return Err(CorrespondenceError::DayWentBackwards { last: self.last_day, day });
        }
        let mut next = *self;
        change(&mut next)?;
        next.last_day = day;
        *self = next;
        Ok(())
    }

    fn playing(&self) -> Result<(), CorrespondenceError> {
        match self.standing {
            Standing::Lost { .. } => Err(CorrespondenceError::GameOver),
            Standing::Suspended { .. } => Err(CorrespondenceError::Suspended),
            Standing::ToMove { .. } => Ok(()),
        }
    }

    /// `side` receives its opponent's move on `day`: its reflection starts
    /// (transit days before it are nobody's).
    pub fn receive(&mut self, side: Side, day: Day) -> Result<(), CorrespondenceError> {
        self.transaction(day, |clock| {
            clock.playing()?;
            match clock.standing {
                Standing::ToMove { side: to_move, received: None } if to_move == side => {
                    clock.standing = Standing::ToMove { side, received: Some(day) };
                    let opponent_moves = clock.players.get(side.opponent()).moves_sent;
                    clock.players.get_mut(side).answered_move = opponent_moves;
                    Ok(())
                }
                Standing::ToMove { side: to_move, .. } if to_move != side => {
                    Err(CorrespondenceError::NotToMove { side })
                }
                _ => Err(CorrespondenceError::AlreadyReceived { side }),
            }
        })
    }

    /// `side` sends its reply on `day`. Returns the overstep the norm finds
    /// at this move, if any (6.1). The opponent must then `receive` it.
    pub fn send(&mut self, side: Side, day: Day) -> Result<Option<Overstep>, CorrespondenceError> {
        let mut found = None;
        self.transaction(day, |clock| {
            clock.playing()?;
            let received = clock.received_by(side)?;
            found = clock.complete_move(side, received, day);
            clock.standing = Standing::ToMove { side: side.opponent(), received: None };
            Ok(())
        })?;
        Ok(found)
    }

    fn received_by(&self, side: Side) -> Result<Day, CorrespondenceError> {
        match self.standing {
            Standing::ToMove { side: to_move, received: Some(received) } if to_move == side => Ok(received),
            Standing::ToMove { side: to_move, received: None } if to_move == side => {
                Err(CorrespondenceError::NothingReceived { side })
            }
            Standing::ToMove { .. } => Err(CorrespondenceError::NotToMove { side }),
            Standing::Suspended { .. } => Err(CorrespondenceError::Suspended),
            Standing::Lost { .. } => Err(CorrespondenceError::GameOver),
        }
    }

    /// Adds the move's reflection days to `side`'s count and checks the norm.
    fn complete_move(&mut self, side: Side, received: Day, sent: Day) -> Option<Overstep> {
        let regulations = self.regulations;
        let player = self.players.get_mut(side);
        let reflection = sent.days_since(received);
        player.replied_to_move = player.answered_move;
        player.moves_sent = player.moves_sent.saturating_add(1);
        player.count.moves = player.count.moves.saturating_add(1);
        player.count.days = player.count.days.saturating_add(reflection);
        player.reflection_days_total = player.reflection_days_total.saturating_add(reflection);
        let allowed = regulations.allowed_days(player.count.moves);
        let block = player.count.moves.div_ceil(regulations.moves_per_block.max(1));
        if player.count.days <= allowed || block <= player.overstepped_block {
            return None;
        }
        // 6.1: a new overstep, in a block not yet found overstepped.
        player.overstepped_block = block;
        let to_block_end = block.saturating_mul(regulations.moves_per_block).saturating_sub(player.count.moves);
        let overstep = Overstep {
            side,
            move_number: player.moves_sent,
            count: player.count,
            allowed_days: allowed,
            control_move: player.moves_sent.saturating_add(to_block_end),
            sent,
        };
        player.open_overstep = Some(overstep);
        Some(overstep)
    }

    /// `claimant` claims its opponent's overstep on `day` (6.2). A claim is
    /// due no later than the claimant's reply to the overstepper's control
    /// move (6.3); a later one is rejected by 6.3. When the opponent already
    /// has a recorded overstep, this is a second-overstep claim: the
    /// claimant's next move goes to the arbiter with it (6.7) — this call
    /// completes that move — and the game is suspended from `day` (6.8).
    pub fn claim(&mut self, claimant: Side, day: Day) -> Result<ClaimOutcome, CorrespondenceError> {
        let mut outcome = ClaimOutcome::Filed;
        self.transaction(day, |clock| {
            clock.playing()?;
            if clock.claim.is_some() {
                return Err(CorrespondenceError::ClaimPending);
            }
            let accused = claimant.opponent();
            let overstep = clock.players.get(accused).open_overstep;
            if let Some(overstep) = overstep {
                // 6.3: too late once the claimant has replied to the control move.
                if clock.players.get(claimant).replied_to_move >= overstep.control_move {
                    clock.players.get_mut(accused).open_overstep = None;
                    outcome = ClaimOutcome::Rejected(CorrespondenceArticle::C6_3);
                    return Ok(());
                }
            }
            let second = clock.players.get(accused).recorded_oversteps >= 1;
            if second {
                // 6.7: the claimant's next move is sent to the arbiter.
                let received = clock.received_by(claimant)?;
                let _ = clock.complete_move(claimant, received, day);
                clock.held_move_of = Some(claimant);
                clock.standing = Standing::Suspended { since: day };
            }
            clock.claim = Some(Claim { claimant, sent: day, overstep, second, notice_received: None, objected: false });
            Ok(())
        })?;
        Ok(outcome)
    }

    /// The accused receives the notice of the claim on `day`: its seven days
    /// to object start (6.5).
    pub fn notice_received(&mut self, day: Day) -> Result<(), CorrespondenceError> {
        self.transaction(day, |clock| {
            let claim = clock.claim.as_mut().ok_or(CorrespondenceError::NoClaimPending)?;
            claim.notice_received = Some(day);
            Ok(())
        })
    }

    /// The last day the accused may object (6.5), once the notice arrived.
    pub fn objection_deadline(&self) -> Option<Day> {
        let received = self.claim?.notice_received?;
        Some(received.plus(self.regulations.objection_days))
    }

    /// The accused objects on `day`. A late objection is rejected by 6.5.
    pub fn object(&mut self, accused: Side, day: Day) -> Result<ClaimOutcome, CorrespondenceError> {
        let mut outcome = ClaimOutcome::Filed;
        self.transaction(day, |clock| {
            let deadline = clock.objection_deadline();
            let claim = clock.claim.as_mut().ok_or(CorrespondenceError::NoClaimPending)?;
            if claim.claimant != accused.opponent() {
                return Err(CorrespondenceError::NotTheAccused { side: accused });
            }
            let deadline = deadline.ok_or(CorrespondenceError::NoticeNotReceived)?;
            if day > deadline {
                outcome = ClaimOutcome::Rejected(CorrespondenceArticle::C6_5);
            } else {
                claim.objected = true;
            }
            Ok(())
        })?;
        Ok(outcome)
    }

    /// The arbiter decides the pending claim on `day`, after an objection
    /// or once the objection window has closed (6.5). An unfounded claim
    /// (no overstep) cannot be upheld: it is rejected.
    pub fn decide(&mut self, day: Day, upheld: bool, penalty_days: u32) -> Result<Decision, CorrespondenceError> {
        let mut decision = Decision::Rejected { penalty_days: 0 };
        self.transaction(day, |clock| {
            let claim = clock.claim.ok_or(CorrespondenceError::NoClaimPending)?;
            let deadline = clock.objection_deadline().ok_or(CorrespondenceError::NoticeNotReceived)?;
            if !claim.objected && day <= deadline {
                return Err(CorrespondenceError::ObjectionWindowOpen { until: deadline });
            }
            let accused = claim.claimant.opponent();
            clock.claim = None;
            match (upheld, claim.overstep) {
                (true, Some(_)) => {
                    let loses_at_first = clock.regulations.first_overstep_loses;
                    let player = clock.players.get_mut(accused);
                    player.open_overstep = None;
                    player.recorded_oversteps = player.recorded_oversteps.saturating_add(1);
                    let article = if claim.second {
                        CorrespondenceArticle::C6_6
                    } else if loses_at_first {
                        CorrespondenceArticle::C6_11
                    } else {
                        CorrespondenceArticle::C6_4
                    };
                    if article == CorrespondenceArticle::C6_4 {
                        // 6.4: counted again from zero, from the next move.
                        player.count = Count::default();
                        player.overstepped_block = 0;
                    } else {
                        clock.standing = Standing::Lost { loser: accused, article };
                    }
                    clock.held_move_of = None;
                    decision = Decision::Upheld(article);
                }
                (true, None) | (false, _) => {
                    let claimant = clock.players.get_mut(claim.claimant);
                    claimant.penalty_days = claimant.penalty_days.saturating_add(penalty_days);
                    claimant.count.days = claimant.count.days.saturating_add(penalty_days);
                    if claim.second {
                        // 6.9: the held move goes to the accused; play resumes.
                        clock.held_move_of = None;
                        clock.standing = Standing::ToMove { side: accused, received: None };
                    }
                    decision = Decision::Rejected { penalty_days };
                }
            }
            Ok(())
        })?;
        Ok(decision)
    }
}
