//! What a Hello may announce. Every field steers the run (the tick is the
//! tolerance, the debounce spaces the presses, the counter's rate and width
//! unwrap the time bases), so a value no clock can have is refused at once,
//! naming the field, rather than played with: a debounce of 4 295 s would
//! leave the harness waiting that long between presses.

use bench_contract::{Hello, BUTTONS_PAUSE, BUTTONS_PLAYERS};

/// The coarsest firmware tick bench judges: the contract wants a Snapshot
/// every 100 ms, and a clock that counts in coarser steps cannot show one.
pub const TICK_US_MAX: u32 = 100_000;
/// The longest debounce window a chess clock may have: a player presses
/// again within a second in blitz, and commercial clocks debounce in tens
/// of milliseconds.
pub const DEBOUNCE_US_MAX: u32 = 500_000;
/// The shortest wrap of the TimeBase counter: TimeBase records come at
/// least once a second, and the host unwraps two samples only when they
/// are less than half a wrap apart.
pub const COUNTER_WRAP_US_MIN: u64 = 2_000_000;

/// The first field of `hello` no clock can announce, and why; `None` when
/// every field is plausible.
pub fn implausible(hello: &Hello) -> Option<String> {
    if hello.tick_us == 0 || hello.tick_us > TICK_US_MAX {
        return Some(format!("tick_us = {}: a tick is 1 to {TICK_US_MAX} µs", hello.tick_us));
    }
    if hello.debounce_us > DEBOUNCE_US_MAX {
        return Some(format!(
            "debounce_us = {} ({} s): a debounce window is at most {DEBOUNCE_US_MAX} µs",
            hello.debounce_us,
            crate::judge::compare::seconds(u64::from(hello.debounce_us))
        ));
    }
    if hello.hw_counter_hz == 0 {
        return Some("hw_counter_hz = 0: the TimeBase counter must count (1 Hz or more)".to_string());
    }
    if hello.hw_counter_bits == 0 || hello.hw_counter_bits > 64 {
        return Some(format!("hw_counter_bits = {}: a counter is 1 to 64 bits wide", hello.hw_counter_bits));
    }
    let wrap_us = counter_wrap_us(hello.hw_counter_hz, hello.hw_counter_bits);
    if wrap_us < COUNTER_WRAP_US_MIN {
        return Some(format!(
            "hw_counter_hz = {} with hw_counter_bits = {}: the counter wraps every {wrap_us} µs, and TimeBase \
             samples a second apart can be unwrapped only if it wraps in no less than {COUNTER_WRAP_US_MIN} µs",
            hello.hw_counter_hz, hello.hw_counter_bits
        ));
    }
    if hello.buttons & BUTTONS_PLAYERS != BUTTONS_PLAYERS || hello.buttons & !BUTTONS_PAUSE != 0 {
        return Some(format!(
            "buttons = {:#04x}: bit 0 (White) and bit 1 (Black) set, bit 2 (pause) optional, no other bit",
            hello.buttons
        ));
    }
    if let Some(byte) =
        hello.firmware_name.iter().find(|byte| !(byte.is_ascii_graphic() || **byte == b' ' || **byte == 0))
    {
        return Some(format!("firmware_name holds byte {byte:#04x}: it is ASCII, NUL-padded"));
    }
    None
}

/// How long the counter takes to wrap, µs (saturating).
fn counter_wrap_us(hz: u32, bits: u8) -> u64 {
    let span = 1u128 << u32::from(bits).min(127);
    u64::try_from(span * 1_000_000 / u128::from(hz.max(1))).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> Hello {
        crate::testing::board::FakeBoard::hello()
    }

    #[test]
    fn the_reference_firmware_s_hello_is_plausible() {
        assert_eq!(implausible(&reference()), None);
        let stm32 = Hello { hw_counter_hz: 84_000_000, hw_counter_bits: 32, ..reference() };
        assert_eq!(implausible(&stm32), None);
    }

    #[test]
    fn each_field_out_of_its_range_is_named() {
        let cases: [(Hello, &str); 9] = [
            (Hello { debounce_us: u32::MAX, ..reference() }, "debounce_us = 4294967295"),
            (Hello { debounce_us: DEBOUNCE_US_MAX + 1, ..reference() }, "debounce_us"),
            (Hello { tick_us: 0, ..reference() }, "tick_us = 0"),
            (Hello { tick_us: TICK_US_MAX + 1, ..reference() }, "tick_us"),
            (Hello { hw_counter_hz: 0, ..reference() }, "hw_counter_hz = 0"),
            (Hello { hw_counter_bits: 65, ..reference() }, "hw_counter_bits = 65"),
            (Hello { hw_counter_hz: 1_000_000, hw_counter_bits: 16, ..reference() }, "wraps every 65536 µs"),
            (Hello { buttons: 0b001, ..reference() }, "buttons = 0x01"),
            (Hello { firmware_name: *b"ok\xff\0\0\0\0\0", ..reference() }, "firmware_name holds byte 0xff"),
        ];
        for (hello, named) in cases {
            let said = implausible(&hello);
            assert!(said.as_deref().is_some_and(|said| said.contains(named)), "{named}: {said:?}");
        }
    }

    #[test]
    fn the_limits_themselves_are_plausible() {
        let edge = Hello { debounce_us: DEBOUNCE_US_MAX, tick_us: TICK_US_MAX, ..reference() };
        assert_eq!(implausible(&edge), None);
        let wrap = Hello { hw_counter_hz: 1 << 20, hw_counter_bits: 22, ..reference() };
        assert_eq!(counter_wrap_us(1 << 20, 22), 4_000_000);
        assert_eq!(implausible(&wrap), None);
        assert_eq!(implausible(&Hello { buttons: BUTTONS_PLAYERS, ..reference() }), None);
    }
}
