//! Defect builds: realistic firmware bugs the bench must catch, one cargo
//! feature each (`README.md` says which article or property each breaks and
//! how bench sees it).
//!
//! Time-base defects live where the time base is (`board.rs`: the SysTick
//! reload; `main.rs`: the masked display refresh), the input defect in
//! `buttons.rs`. Rule defects are written in the game logic (crate
//! `bench-firmware-game`, `Defects`), around the clock core: this image
//! switches them on from its features. `chessclock` itself is never
//! changed — it stays the one place the rules are written.

use bench_firmware_game::Defects;

// A rule defect needs the game's hooks compiled in (its feature turns them on).
const _: () = assert!(
    bench_firmware_game::HOOKS_COMPILED
        || !(RULES.delay_as_bronstein
            || RULES.late_stage_switch
            || RULES.increment_before_flag_check
            || RULES.display_rounding_flag)
);

pub const LOST_TICKS: bool = cfg!(feature = "defect-lost-ticks");

/// The rule defects this image runs with: constants, one cargo feature each.
pub const RULES: Defects = Defects {
    delay_as_bronstein: cfg!(feature = "defect-delay-as-bronstein"),
    late_stage_switch: cfg!(feature = "defect-late-stage-switch"),
    increment_before_flag_check: cfg!(feature = "defect-increment-before-flag-check"),
    display_rounding_flag: cfg!(feature = "defect-display-rounding-flag"),
};

/// `defect-lost-ticks`: once a second the display refresh runs with
/// interrupts masked until SysTick has wrapped this many times. The pending
/// bit holds one tick, so all but one of them are lost: 2 ms a second.
pub const LOST_TICKS_MASKED_WRAPS: u32 = 3;
pub const LOST_TICKS_REFRESH_INTERVAL_US: u64 = 1_000_000;
/// Bound on the masked spin, in loop turns: far more than 3 ms at any speed
/// QEMU runs at, so it only ends early if SysTick stopped.
pub const LOST_TICKS_SPINS_MAX: u32 = 50_000_000;
