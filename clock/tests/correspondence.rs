//! The correspondence overstepping rules (seed `004_…`), one or more named
//! tests per article 6.1–6.11, and properties over random postal games.

use chessclock::correspondence::{
    ClaimOutcome, CorrespondenceArticle as Art, CorrespondenceClock, CorrespondenceError, Day, Decision, Regulations,
    Standing,
};
use chessclock::Side::{self, Black, White};
use proptest::prelude::*;

/// A postal game: who holds the move, and the day it is.
struct Post {
    clock: CorrespondenceClock,
    day: u32,
}

impl Post {
    fn new(regulations: Regulations) -> Post {
        Post { clock: CorrespondenceClock::new(regulations, Day(0)), day: 0 }
    }

    /// The side to move thinks `reflection` days and sends; the move
    /// travels `transit` days and arrives.
    fn play(&mut self, side: Side, reflection: u32, transit: u32) -> Option<chessclock::correspondence::Overstep> {
        self.day += reflection;
        let overstep = self.clock.send(side, Day(self.day)).unwrap();
        self.day += transit;
        self.clock.receive(side.opponent(), Day(self.day)).unwrap();
        overstep
    }

    /// `moves` full moves, each player reflecting `white` / `black` days.
    fn rounds(&mut self, moves: u32, white: u32, black: u32) {
        for _ in 0..moves {
            self.play(White, white, 5);
            self.play(Black, black, 5);
        }
    }
}

#[test]
fn c6_1_more_than_30_days_for_10_moves_is_an_overstep() {
    let mut post = Post::new(Regulations::DEFAULT);
    // White uses 3 days a move: 30 days for 10 moves is within the norm.
    for _ in 0..10 {
        assert_eq!(post.play(White, 3, 4), None);
        post.play(Black, 1, 4);
    }
    assert_eq!(post.clock.count(White).days, 30);
    // Move 11 with 31 days total is fine (≤ 60 for ≤ 20 moves) …
    assert_eq!(post.play(White, 1, 4), None);
    post.play(Black, 1, 4);
    // Moves 12–19 at 3 days: 55 days for 19 moves.
    for _ in 0..8 {
        assert_eq!(post.play(White, 3, 4), None);
        post.play(Black, 1, 4);
    }
    // Move 20 with 6 days: 61 days for 20 moves, more than 60.
    let overstep = post.play(White, 6, 4).expect("61 days for 20 moves");
    assert_eq!((overstep.count.moves, overstep.count.days, overstep.allowed_days), (20, 61, 60));
    assert_eq!(overstep.control_move, 20);
}

#[test]
fn c6_1_the_norm_is_set_by_the_regulations() {
    let regulations = Regulations { moves_per_block: 5, days_per_block: 10, ..Regulations::DEFAULT };
    assert_eq!(regulations.allowed_days(1), 10);
    assert_eq!(regulations.allowed_days(5), 10);
    assert_eq!(regulations.allowed_days(6), 20);
    let mut post = Post::new(regulations);
    assert_eq!(post.play(White, 10, 3), None);
    post.play(Black, 0, 3);
    let overstep = post.play(White, 1, 3).expect("11 days for 2 moves");
    assert_eq!((overstep.count.moves, overstep.count.days, overstep.allowed_days), (2, 11, 10));
    assert_eq!(overstep.control_move, 5, "the block's last move is the control move");
}

#[test]
fn c6_1_transit_never_counts() {
    let mut post = Post::new(Regulations::DEFAULT);
    for _ in 0..10 {
        post.play(White, 2, 40);
        post.play(Black, 2, 40);
    }
    assert_eq!(post.clock.count(White).days, 20);
    assert_eq!(post.clock.open_overstep(White), None, "800 days of post are nobody's");
}

#[test]
fn c6_2_a_claim_is_filed_with_the_overstep_it_proves() {
    let mut post = Post::new(Regulations::DEFAULT);
    let overstep = post.play(White, 31, 5).unwrap();
    assert_eq!(post.clock.claim(Black, Day(post.day)), Ok(ClaimOutcome::Filed));
    let claim = post.clock.pending_claim().unwrap();
    assert_eq!(claim.overstep, Some(overstep));
    assert!(!claim.second);
}

#[test]
fn c6_3_a_claim_after_the_reply_to_the_control_move_is_late() {
    let mut post = Post::new(Regulations::DEFAULT);
    post.play(White, 31, 5); // overstep at move 1; control move is move 10
    post.play(Black, 1, 5);
    post.rounds(8, 1, 1);
    post.play(White, 1, 5); // White's move 10: the control move
    post.play(Black, 1, 5); // Black's reply to it
    let day = post.day;
    assert_eq!(post.clock.claim(Black, Day(day)), Ok(ClaimOutcome::Rejected(Art::C6_3)));
    assert_eq!(post.clock.pending_claim(), None);
}

#[test]
fn c6_3_a_claim_with_the_reply_to_the_control_move_is_in_time() {
    let mut post = Post::new(Regulations::DEFAULT);
    post.play(White, 31, 5);
    post.play(Black, 1, 5);
    for _ in 0..8 {
        post.play(White, 1, 5);
        post.play(Black, 1, 5);
    }
    post.play(White, 1, 5); // White's 10th move, received by Black
    assert_eq!(post.clock.claim(Black, Day(post.day)), Ok(ClaimOutcome::Filed));
}

#[test]
fn c6_4_after_a_first_overstep_the_count_restarts_with_the_next_move() {
    let mut post = Post::new(Regulations::DEFAULT);
    post.play(White, 31, 5);
    post.clock.claim(Black, Day(post.day)).unwrap();
    post.clock.notice_received(Day(post.day + 4)).unwrap();
    post.day += 12;
    assert_eq!(post.clock.recorded_oversteps(White), 0, "recorded when the claim is upheld");
    assert_eq!(post.clock.decide(Day(post.day), true, 0), Ok(Decision::Upheld(Art::C6_4)));
    assert_eq!(post.clock.count(White).days, 0);
    assert_eq!(post.clock.recorded_oversteps(White), 1);
    assert_eq!(post.clock.recorded_oversteps(Black), 0);
    post.play(Black, 1, 5);
    post.play(White, 7, 5);
    assert_eq!(post.clock.count(White).moves, 1);
    assert_eq!(post.clock.count(White).days, 7);
}

#[test]
fn c6_5_objection_within_seven_days_of_the_notice() {
    let mut post = Post::new(Regulations::DEFAULT);
    post.play(White, 31, 5);
    post.clock.claim(Black, Day(post.day)).unwrap();
    let notice = post.day + 3;
    post.clock.notice_received(Day(notice)).unwrap();
    assert_eq!(post.clock.objection_deadline(), Some(Day(notice + 7)));
    assert_eq!(
        post.clock.decide(Day(notice + 2), true, 0),
        Err(CorrespondenceError::ObjectionWindowOpen { until: Day(notice + 7) }),
        "the arbiter waits for the objection window"
    );
    assert_eq!(post.clock.object(Black, Day(notice + 1)), Err(CorrespondenceError::NotTheAccused { side: Black }));
    assert_eq!(post.clock.object(White, Day(notice + 7)), Ok(ClaimOutcome::Filed));
    assert!(post.clock.pending_claim().unwrap().objected);
    assert!(post.clock.decide(Day(notice + 8), false, 0).is_ok(), "decided after the objection");
}

#[test]
fn c6_5_a_late_objection_is_rejected() {
    let mut post = Post::new(Regulations::DEFAULT);
    post.play(White, 31, 5);
    post.clock.claim(Black, Day(post.day)).unwrap();
    post.clock.notice_received(Day(post.day + 3)).unwrap();
    assert_eq!(post.clock.object(White, Day(post.day + 11)), Ok(ClaimOutcome::Rejected(Art::C6_5)));
    assert!(!post.clock.pending_claim().unwrap().objected);
}

/// White oversteps, the claim is upheld (6.4), White oversteps again.
fn second_overstep(regulations: Regulations) -> Post {
    let mut post = Post::new(regulations);
    post.play(White, 31, 5);
    post.clock.claim(Black, Day(post.day)).unwrap();
    post.clock.notice_received(Day(post.day + 4)).unwrap();
    post.clock.decide(Day(post.day + 12), true, 0).unwrap();
    post.day += 12;
    post.play(Black, 1, 5);
    assert!(post.play(White, 31, 5).is_some(), "a second overstep");
    post
}

#[test]
fn c6_6_a_second_overstep_loses() {
    let mut post = second_overstep(Regulations::DEFAULT);
    post.clock.claim(Black, Day(post.day + 2)).unwrap();
    post.clock.notice_received(Day(post.day + 6)).unwrap();
    assert_eq!(post.clock.decide(Day(post.day + 20), true, 0), Ok(Decision::Upheld(Art::C6_6)));
    assert_eq!(post.clock.standing(), Standing::Lost { loser: White, article: Art::C6_6 });
    assert_eq!(post.clock.send(Black, Day(post.day + 21)), Err(CorrespondenceError::GameOver));
}

#[test]
fn c6_7_the_second_overstep_claim_holds_the_claimants_next_move() {
    let mut post = second_overstep(Regulations::DEFAULT);
    let moves_before = post.clock.moves_sent(Black);
    post.clock.claim(Black, Day(post.day + 2)).unwrap();
    assert!(post.clock.pending_claim().unwrap().second);
    assert_eq!(post.clock.moves_sent(Black), moves_before + 1, "the move went to the arbiter");
    assert_eq!(post.clock.receive(White, Day(post.day + 5)), Err(CorrespondenceError::Suspended), "not passed on");
}

#[test]
fn c6_8_the_game_is_suspended_from_the_claim_until_the_decision() {
    let mut post = second_overstep(Regulations::DEFAULT);
    let claim_day = post.day + 2;
    post.clock.claim(Black, Day(claim_day)).unwrap();
    assert_eq!(post.clock.standing(), Standing::Suspended { since: Day(claim_day) });
    assert_eq!(post.clock.send(White, Day(claim_day + 1)), Err(CorrespondenceError::Suspended));
}

#[test]
fn c6_9_a_rejected_second_overstep_claim_resumes_play() {
    let mut post = second_overstep(Regulations::DEFAULT);
    let claim_day = post.day + 2;
    post.clock.claim(Black, Day(claim_day)).unwrap();
    post.clock.notice_received(Day(claim_day + 5)).unwrap();
    post.clock.object(White, Day(claim_day + 6)).unwrap();
    let decision_day = claim_day + 40;
    assert_eq!(post.clock.decide(Day(decision_day), false, 0), Ok(Decision::Rejected { penalty_days: 0 }));
    assert_eq!(post.clock.standing(), Standing::ToMove { side: White, received: None });
    // The forwarded move reaches White; 45 days of suspension and post are nobody's.
    let white_days = post.clock.count(White).days;
    post.clock.receive(White, Day(decision_day + 5)).unwrap();
    post.clock.send(White, Day(decision_day + 7)).unwrap();
    assert_eq!(post.clock.count(White).days, white_days + 2);
}

#[test]
fn c6_10_an_unfounded_claim_may_cost_penalty_days() {
    let mut post = Post::new(Regulations::DEFAULT);
    post.play(White, 3, 5);
    // Black claims an overstep that never happened.
    assert_eq!(post.clock.claim(Black, Day(post.day)), Ok(ClaimOutcome::Filed));
    assert_eq!(post.clock.pending_claim().unwrap().overstep, None);
    post.clock.notice_received(Day(post.day + 4)).unwrap();
    assert_eq!(post.clock.decide(Day(post.day + 20), true, 5), Ok(Decision::Rejected { penalty_days: 5 }));
    assert_eq!(post.clock.penalty_days(Black), 5);
    assert_eq!(post.clock.count(Black).days, 5);
}

#[test]
fn c6_11_the_regulations_may_score_a_loss_at_the_first_overstep() {
    let regulations = Regulations { first_overstep_loses: true, ..Regulations::DEFAULT };
    let mut post = Post::new(regulations);
    post.play(White, 31, 5);
    post.clock.claim(Black, Day(post.day)).unwrap();
    post.clock.notice_received(Day(post.day + 4)).unwrap();
    assert_eq!(post.clock.decide(Day(post.day + 12), true, 0), Ok(Decision::Upheld(Art::C6_11)));
    assert_eq!(post.clock.standing(), Standing::Lost { loser: White, article: Art::C6_11 });
}

#[test]
fn wrong_calls_change_nothing() {
    let mut post = Post::new(Regulations::DEFAULT);
    post.play(White, 2, 5);
    let before = post.clock;
    assert_eq!(post.clock.send(White, Day(post.day)), Err(CorrespondenceError::NotToMove { side: White }));
    assert_eq!(post.clock.receive(Black, Day(post.day)), Err(CorrespondenceError::AlreadyReceived { side: Black }));
    assert_eq!(
        post.clock.send(Black, Day(1)),
        Err(CorrespondenceError::DayWentBackwards { last: Day(post.day), day: Day(1) })
    );
    assert_eq!(post.clock.decide(Day(post.day), true, 0), Err(CorrespondenceError::NoClaimPending));
    assert_eq!(post.clock, before);
    // A move in the post: its sender is not to move, and its receiver has
    // nothing to reply to yet.
    let mut post = Post::new(Regulations::DEFAULT);
    post.clock.send(White, Day(1)).unwrap();
    let in_the_post = post.clock;
    assert_eq!(post.clock.send(White, Day(2)), Err(CorrespondenceError::NotToMove { side: White }));
    assert_eq!(post.clock.send(Black, Day(2)), Err(CorrespondenceError::NothingReceived { side: Black }));
    assert_eq!(post.clock, in_the_post);
}

/// One step of a random postal game.
#[derive(Clone, Debug)]
enum Step {
    Move { reflection: u32, transit: u32 },
    Claim { by_white: bool },
    Notice { after: u32 },
    Object { after: u32 },
    Decide { after: u32, upheld: bool, penalty: u32 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (0u32..12, 0u32..30).prop_map(|(reflection, transit)| Step::Move { reflection, transit }),
        1 => any::<bool>().prop_map(|by_white| Step::Claim { by_white }),
        1 => (0u32..10).prop_map(|after| Step::Notice { after }),
        1 => (0u32..12).prop_map(|after| Step::Object { after }),
        1 => (0u32..20, any::<bool>(), 0u32..10).prop_map(|(after, upheld, penalty)| Step::Decide { after, upheld, penalty }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Whatever happens, the count never includes transit or suspension
    /// days: every day a player is charged is a reflection day (or a penalty).
    /// A player who never overstepped never loses on time. Errors change nothing.
    #[test]
    fn postal_games_keep_their_invariants(steps in prop::collection::vec(step(), 1..120), loses_at_first in any::<bool>()) {
        let regulations = Regulations { first_overstep_loses: loses_at_first, ..Regulations::DEFAULT };
        let mut clock = CorrespondenceClock::new(regulations, Day(0));
        let mut day = 0u32;
        let mut reflection_days = [0u32; 2];
        let mut overstepped = [false; 2];
        // The day each side last received a move, by the test's own calendar.
        let mut received_on = [Some(0u32), None];
        for step in steps {
            let before = clock;
            let result = match step {
                Step::Move { reflection, transit } => {
                    let Standing::ToMove { side, received } = clock.standing() else { continue };
                    let index = usize::from(side == Black);
                    if received.is_some() {
                        day += reflection;
                        let result = clock.send(side, Day(day));
                        if let Ok(found) = result {
                            // Receipt to sending, by the test's own calendar.
                            reflection_days[index] += day - received_on[index].take().expect("a move was received");
                            if found.is_some() {
                                overstepped[usize::from(side == Black)] = true;
                            }
                        }
                        result.map(|_| ())
                    } else {
                        day += transit;
                        let result = clock.receive(side, Day(day));
                        if result.is_ok() {
                            received_on[index] = Some(day);
                        }
                        result.map(|_| ())
                    }
                }
                Step::Claim { by_white } => {
                    let claimant = if by_white { White } else { Black };
                    let index = usize::from(claimant == Black);
                    let result = clock.claim(claimant, Day(day));
                    if let (Ok(ClaimOutcome::Filed), Standing::Suspended { .. }) = (result, clock.standing()) {
                        // 6.7: the held move's reflection, receipt to claim, is the claimant's.
                        reflection_days[index] += day - received_on[index].take().expect("the claimant had received a move");
                    }
                    result.map(|_| ())
                }
                Step::Notice { after } => { day += after; clock.notice_received(Day(day)) }
                Step::Object { after } => {
                    day += after;
                    let accused = clock.pending_claim().map_or(White, |claim| claim.claimant.opponent());
                    clock.object(accused, Day(day)).map(|_| ())
                }
                Step::Decide { after, upheld, penalty } => { day += after; clock.decide(Day(day), upheld, penalty).map(|_| ()) }
            };
            if result.is_err() {
                prop_assert_eq!(clock, before, "an error changed the clock");
            }
            for side in [White, Black] {
                prop_assert_eq!(clock.reflection_days_total(side), reflection_days[usize::from(side == Black)]);
                prop_assert!(clock.count(side).days <= clock.reflection_days_total(side) + clock.penalty_days(side));
            }
            if let Standing::Lost { loser, .. } = clock.standing() {
                prop_assert!(overstepped[usize::from(loser == Black)], "{loser} lost without an overstep");
            }
        }
    }
}
