//! Buttons: falling edge → timestamp → debounce → a queue the main loop
//! drains.
//!
//! The press instant is the edge, stamped in the interrupt handler, not the
//! moment the main loop gets to it (6.8a: the move is complete when the
//! clock is pressed). Debouncing locks a button out for [`DEBOUNCE_US`]
//! after each accepted press; edges inside that window are counted as bounce
//! and reported with the next accepted press.
//!
//! Edges are ignored until the game is started ([`arm`]): QEMU reads the
//! pins low until their first key event, and a clock registers no press
//! before 6.5's start anyway.

use core::cell::RefCell;

use chessclock::Button;
use cortex_m::interrupt::{self, Mutex};

use crate::Board;

/// Edges on one button closer than this to its last accepted press are bounce.
pub const DEBOUNCE_US: u64 = 20_000;
/// `defect-no-debounce`: the window is configured but never applied.
const DEBOUNCE_APPLIED: bool = !cfg!(feature = "defect-no-debounce");

/// Presses waiting for the main loop. It drains the queue every tick (1 ms),
/// and a debounced button gives at most one press per 20 ms, so 16 is far
/// more than three buttons can fill; a press that found it full would be
/// dropped, never block the interrupt.
pub const QUEUE_CAPACITY: usize = 16;

/// What a pin is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A player's button, by position; the placement (6.4) says whose it is.
    Player(Button),
    Pause,
}

/// An accepted press.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub input: Input,
    pub at_us: u64,
    /// The free-running hardware counter read with `at_us` (contract 2:
    /// the harness compares it with its own reads around the edge).
    pub hw_counter: u32,
    /// Edges of this input swallowed as bounce since its previous press.
    pub bounces: u16,
}

#[derive(Clone, Copy)]
struct Debounce {
    last_accepted_us: Option<u64>,
    bounces: u16,
}

impl Debounce {
    const IDLE: Debounce = Debounce { last_accepted_us: None, bounces: 0 };
}

struct State {
    armed: bool,
    left: Debounce,
    right: Debounce,
    pause: Debounce,
    queue: [Option<Edge>; QUEUE_CAPACITY],
    head: usize,
    len: usize,
}

impl State {
    const fn new() -> State {
        State {
            armed: false,
            left: Debounce::IDLE,
            right: Debounce::IDLE,
            pause: Debounce::IDLE,
            queue: [None; QUEUE_CAPACITY],
            head: 0,
            len: 0,
        }
    }

    fn debounce(&mut self, input: Input) -> &mut Debounce {
        match input {
            Input::Player(Button::Left) => &mut self.left,
            Input::Player(Button::Right) => &mut self.right,
            Input::Pause => &mut self.pause,
        }
    }

    fn on_edge(&mut self, input: Input, at_us: u64, hw_counter: u32) {
        if !self.armed {
            return;
        }
        let debounce = self.debounce(input);
        if let Some(last_us) = debounce.last_accepted_us {
            if DEBOUNCE_APPLIED && at_us.saturating_sub(last_us) < DEBOUNCE_US {
                debounce.bounces = debounce.bounces.saturating_add(1);
                return;
            }
        }
        debounce.last_accepted_us = Some(at_us);
        let bounces = core::mem::take(&mut debounce.bounces);
        let tail = (self.head + self.len) % QUEUE_CAPACITY;
        match self.queue.get_mut(tail) {
            Some(slot) if self.len < QUEUE_CAPACITY => {
                *slot = Some(Edge { input, at_us, hw_counter, bounces });
                self.len += 1;
            }
            _ => {}
        }
    }

    fn take(&mut self) -> Option<Edge> {
        if self.len == 0 {
            return None;
        }
        let edge = self.queue.get_mut(self.head).and_then(Option::take);
        self.head = (self.head + 1) % QUEUE_CAPACITY;
        self.len -= 1;
        edge
    }
}

static STATE: Mutex<RefCell<State>> = Mutex::new(RefCell::new(State::new()));

fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> Option<R> {
    // The state is only reached inside a critical section, so the RefCell is
    // never borrowed twice; `try_borrow_mut` keeps even that impossible case
    // from panicking.
    interrupt::free(|cs| STATE.borrow(cs).try_borrow_mut().ok().map(|mut state| f(&mut state)))
}

/// A button's edge interrupt: stamp the edges, then debounce and queue them.
pub fn on_interrupt<B: Board>() {
    // The counter first: it is the harness's measure of the edge-to-stamp
    // latency, and `now_us` takes longer to read.
    let hw_counter = B::hw_counter();
    let edges = B::take_button_edges();
    let at_us = crate::time_base::now_us::<B>();
    with_state(|state| {
        for (pin, input) in [
            (B::PIN_LEFT, Input::Player(Button::Left)),
            (B::PIN_RIGHT, Input::Player(Button::Right)),
            (B::PIN_PAUSE, Input::Pause),
        ] {
            if edges & pin != 0 {
                state.on_edge(input, at_us, hw_counter);
            }
        }
    });
}

/// Starts (a game began) or stops (reset, new control) registering presses.
/// Stopping forgets queued presses and debounce history.
#[inline]
pub fn arm(armed: bool) {
    with_state(|state| {
        if !armed {
            *state = State::new();
        }
        state.armed = armed;
    });
}

/// The oldest queued press.
#[inline]
pub fn take() -> Option<Edge> {
    with_state(State::take).flatten()
}
