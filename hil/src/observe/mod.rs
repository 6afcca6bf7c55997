//! Uninstrumented firmware (`bench hil --observe MAP.toml`, issue 19.6):
//! the clock's state read from RAM through the debugger, where a map file
//! says it is, instead of records the firmware writes.
//!
//! A map names, for each quantity bench compares, an ELF symbol, a byte
//! offset in it, an integer type and a unit:
//!
//! ```toml
//! control = "180+2"          # what the clock plays from boot (6.5: Black's
//!                            # first press starts White's clock)
//! tick_us = 1000             # its timer tick (SysTick); default 1000
//! poll_interval_ms = 10
//!
//! [remaining.white]          # the big number on White's display
//! symbol = "clock_state"
//! offset = 0
//! type = "u32"               # u8 u16 u32 u64 i8 i16 i32 i64, little-endian
//! unit = "ms"                # us, ms, s, or "ticks" with tick_us = N
//! [remaining.black]
//! symbol = "clock_state"
//! offset = 4
//! type = "u32"
//! unit = "ms"
//!
//! [turn]                     # whose clock runs: these values, else neither
//! symbol = "clock_state"
//! offset = 8
//! type = "u8"
//! white = 0
//! black = 1
//!
//! [flag.white]               # nonzero: the flag shows
//! symbol = "clock_state"
//! offset = 9
//! type = "u8"
//! [flag.black]
//! symbol = "clock_state"
//! offset = 10
//! type = "u8"
//!
//! [moves.white]              # optional: completed moves (6.15)
//! symbol = "clock_state"
//! offset = 12
//! type = "u16"
//! [moves.black]
//! symbol = "clock_state"
//! offset = 14
//! type = "u16"
//! ```
//!
//! This module reads and checks the map ([`ObserveMap::parse`]), places it
//! in an image ([`ObserveMap::resolve`]: each field inside a symbol with a
//! size, aligned for its type, in the board's RAM, and on bytes no other
//! field uses, so a mistake in the map is refused before anything runs
//! rather than blamed on the firmware) and
//! decodes one reading of the memory ([`Layout::read`]). Turning successive
//! readings into records and comparing them with the model is the session's
//! part: a reading can only be as fresh as the poll, so every instant is
//! judged within the poll interval, and the report says so.

use std::path::Path;

mod play;
pub use play::{play, tolerance_us, ObserveOptions};

use chessclock::{BySide, Side};
use serde::Deserialize;

use crate::board::Region;

/// The longest poll interval a map may ask for: slower than that, a press's
/// instant is known too loosely to judge a blitz game.
pub const POLL_INTERVAL_MAX_MS: u64 = 1_000;

/// A map file that cannot be used, or an image it does not fit.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ObserveError {
    #[error("{path}: {detail}")]
    Map { path: String, detail: String },
    #[error("{path}: {detail}")]
    Image { path: String, detail: String },
}

/// An integer in the firmware's memory, little-endian as on Cortex-M.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum IntType {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
}

impl IntType {
    /// As the map writes it (`u32`).
    pub const fn name(self) -> &'static str {
        match self {
            IntType::U8 => "u8",
            IntType::U16 => "u16",
            IntType::U32 => "u32",
            IntType::U64 => "u64",
            IntType::I8 => "i8",
            IntType::I16 => "i16",
            IntType::I32 => "i32",
            IntType::I64 => "i64",
        }
    }

    pub const fn size(self) -> u32 {
        match self {
            IntType::U8 | IntType::I8 => 1,
            IntType::U16 | IntType::I16 => 2,
            IntType::U32 | IntType::I32 => 4,
            IntType::U64 | IntType::I64 => 8,
        }
    }

    /// The value of `bytes` (exactly [`IntType::size`] of them), widened.
    fn decode(self, bytes: &[u8]) -> i128 {
        let mut wide = [0u8; 8];
        let size = self.size() as usize;
        wide[..size].copy_from_slice(&bytes[..size]);
        let unsigned = u64::from_le_bytes(wide);
        let bits = size * 8;
        match self {
            IntType::U8 | IntType::U16 | IntType::U32 | IntType::U64 => i128::from(unsigned),
            // Sign-extend from the type's width.
            IntType::I8 | IntType::I16 | IntType::I32 | IntType::I64 => {
                let shift = 64 - bits;
                i128::from(((unsigned << shift) as i64) >> shift)
            }
        }
    }
}

/// What one unit of a time field is worth.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum TimeUnit {
    Us,
    Ms,
    S,
    Ticks,
}

/// Where a quantity lives: `symbol + offset`, `type` wide.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct FieldText {
    symbol: String,
    #[serde(default)]
    offset: u32,
    #[serde(rename = "type")]
    int: IntType,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct TimeFieldText {
    symbol: String,
    #[serde(default)]
    offset: u32,
    #[serde(rename = "type")]
    int: IntType,
    unit: TimeUnit,
    tick_us: Option<u64>,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct TurnText {
    symbol: String,
    #[serde(default)]
    offset: u32,
    #[serde(rename = "type")]
    int: IntType,
    white: i64,
    black: i64,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct PairText<T> {
    white: T,
    black: T,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct MapText {
    control: String,
    tick_us: Option<u64>,
    poll_interval_ms: u64,
    remaining: PairText<TimeFieldText>,
    turn: TurnText,
    flag: PairText<FieldText>,
    moves: Option<PairText<FieldText>>,
}

/// A quantity's place, not yet in an image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// What the map calls it (`remaining.white`), for errors.
    pub name: String,
    pub symbol: String,
    pub offset: u32,
    pub int: IntType,
}

/// A checked map file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObserveMap {
    /// The time control the clock plays from boot, as `tc` would set it.
    pub control_text: String,
    /// The firmware's timer tick, µs: lockstep counts guest time in them.
    pub tick_us: u64,
    pub poll_interval_us: u64,
    /// The displays, and what one unit of each is worth in µs.
    remaining: BySide<(Field, u64)>,
    turn: (Field, BySide<i64>),
    flag: BySide<Field>,
    moves: Option<BySide<Field>>,
}

impl ObserveMap {
    /// Reads and checks a map file; every problem names the file and the field.
    pub fn load(path: &Path) -> Result<ObserveMap, ObserveError> {
        let text = std::fs::read_to_string(path).map_err(|error| ObserveError::Map {
            path: path.display().to_string(),
            detail: format!("cannot read it: {error}"),
        })?;
        ObserveMap::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<ObserveMap, ObserveError> {
        let fail = |detail: String| ObserveError::Map { path: path.display().to_string(), detail };
        let map: MapText = toml::from_str(text).map_err(|error| fail(error.to_string().trim_end().to_string()))?;
        if !(1..=POLL_INTERVAL_MAX_MS).contains(&map.poll_interval_ms) {
            return Err(fail(format!(
                "poll_interval_ms = {}: it must be 1 to {POLL_INTERVAL_MAX_MS} ms",
                map.poll_interval_ms
            )));
        }
        let remaining = |side: &str, text: &TimeFieldText| -> Result<(Field, u64), ObserveError> {
            let name = format!("remaining.{side}");
            let unit_us = match (text.unit, text.tick_us) {
                (TimeUnit::Ticks, Some(tick_us)) if tick_us > 0 => tick_us,
                (TimeUnit::Ticks, _) => return Err(fail(format!("{name}: unit \"ticks\" needs tick_us = N (N > 0)"))),
                (_, Some(_)) => return Err(fail(format!("{name}: tick_us is for unit \"ticks\" only"))),
                (TimeUnit::Us, None) => 1,
                (TimeUnit::Ms, None) => 1_000,
                (TimeUnit::S, None) => 1_000_000,
            };
            Ok((Field { name, symbol: text.symbol.clone(), offset: text.offset, int: text.int }, unit_us))
        };
        let field = |name: String, text: &FieldText| Field {
            name,
            symbol: text.symbol.clone(),
            offset: text.offset,
            int: text.int,
        };
        if let Err(error) = chessclock::notation::parse(&map.control) {
            return Err(fail(format!("control = {:?}: {error}", map.control)));
        }
        let tick_us = map.tick_us.unwrap_or(1_000);
        if !(1..=1_000_000).contains(&tick_us) {
            return Err(fail(format!("tick_us = {tick_us}: it must be 1 to 1000000 µs")));
        }
        if map.poll_interval_ms * 1_000 < tick_us {
            return Err(fail(format!(
                "poll_interval_ms = {}: shorter than one tick ({tick_us} µs); memory is read at ticks",
                map.poll_interval_ms
            )));
        }
        let turn = &map.turn;
        if turn.white == turn.black {
            return Err(fail(format!("turn: white and black are both {}: they must differ", turn.white)));
        }
        Ok(ObserveMap {
            control_text: map.control.clone(),
            tick_us,
            poll_interval_us: map.poll_interval_ms * 1_000,
            remaining: BySide::new(
                remaining("white", &map.remaining.white)?,
                remaining("black", &map.remaining.black)?,
            ),
            turn: (
                Field { name: "turn".into(), symbol: turn.symbol.clone(), offset: turn.offset, int: turn.int },
                BySide::new(turn.white, turn.black),
            ),
            flag: BySide::new(field("flag.white".into(), &map.flag.white), field("flag.black".into(), &map.flag.black)),
            moves: map.moves.as_ref().map(|moves| {
                BySide::new(field("moves.white".into(), &moves.white), field("moves.black".into(), &moves.black))
            }),
        })
    }

    /// Every field of the map, in a fixed order.
    fn fields(&self) -> Vec<&Field> {
        let mut fields = vec![&self.remaining.white.0, &self.remaining.black.0, &self.turn.0];
        fields.extend([&self.flag.white, &self.flag.black]);
        if let Some(moves) = &self.moves {
            fields.extend([&moves.white, &moves.black]);
        }
        fields
    }

    /// The map placed in the ELF image `bytes` (named `path` in errors):
    /// each field at its symbol's address plus its offset. Checked before
    /// anything runs, so a mistake in the map is not blamed on the
    /// firmware: every field lies inside its symbol (which must have a
    /// size: a linker symbol such as `_stack_start` has none), is aligned
    /// for its type, lies in the board's `ram` when that is known, and no
    /// two fields share a byte.
    pub fn resolve(&self, bytes: &[u8], path: &Path, ram: Option<Region>) -> Result<Layout, ObserveError> {
        let fail = |detail: String| ObserveError::Image { path: path.display().to_string(), detail };
        let file = object::File::parse(bytes).map_err(|error| fail(format!("not an ELF image: {error}")))?;
        let fields = self.fields();
        let mut addresses = Vec::with_capacity(fields.len());
        for field in &fields {
            addresses.push(place_field(&file, field, ram).map_err(&fail)?);
        }
        check_overlaps(&fields, &addresses).map_err(fail)?;
        Ok(Layout { map: self.clone(), addresses })
    }
}

/// Where `field` is in `file`'s memory, if the map puts it somewhere it
/// can be read as its type.
fn place_field(file: &object::File<'_>, field: &Field, ram: Option<Region>) -> Result<u32, String> {
    use object::{Object, ObjectSymbol};

    let name = &field.name;
    let symbol = file
        .symbols()
        .find(|symbol| symbol.name() == Ok(field.symbol.as_str()))
        .ok_or_else(|| format!("{name}: no symbol `{}` in the image", field.symbol))?;
    let size = field.int.size();
    let end = u64::from(field.offset) + u64::from(size);
    if symbol.size() == 0 {
        return Err(format!(
            "{name}: `{}` has no size in the image (a linker symbol or a label, not a variable): name the \
             variable that holds the value",
            field.symbol
        ));
    }
    if end > symbol.size() {
        return Err(format!(
            "{name}: bytes {}..{end} of `{}`, which is {} bytes long",
            field.offset,
            field.symbol,
            symbol.size()
        ));
    }
    let address = u32::try_from(symbol.address() + u64::from(field.offset))
        .map_err(|_| format!("{name}: `{}` is beyond 32 bits", field.symbol))?;
    if address % size != 0 {
        return Err(format!(
            "{name}: a {} at {address:#010x} (`{}` + {}) is not aligned to {size} bytes: check the offset \
             and the type",
            field.int.name(),
            field.symbol,
            field.offset
        ));
    }
    if let Some(ram) = ram {
        if !ram.contains(u64::from(address), u64::from(size)) {
            return Err(format!(
                "{name}: `{}` + {} is at {address:#010x}, outside the board's RAM ({:#010x}..{:#010x}): the \
                 clock's state is a variable in RAM",
                field.symbol,
                field.offset,
                ram.start,
                u64::from(ram.start) + u64::from(ram.size)
            ));
        }
    }
    Ok(address)
}

/// No two fields share a byte: a reading of one would be a reading of the
/// other, and the firmware judged on what neither holds.
fn check_overlaps(fields: &[&Field], addresses: &[u32]) -> Result<(), String> {
    let span = |index: usize| {
        let start = u64::from(addresses[index]);
        (start, start + u64::from(fields[index].int.size()))
    };
    let shown = |index: usize| {
        let field = fields[index];
        format!(
            "{} (bytes {}..{} of `{}`)",
            field.name,
            field.offset,
            u64::from(field.offset) + u64::from(field.int.size()),
            field.symbol
        )
    };
    for later in 1..fields.len() {
        for earlier in 0..later {
            let ((a_start, a_end), (b_start, b_end)) = (span(earlier), span(later));
            if a_start < b_end && b_start < a_end {
                return Err(format!(
                    "{} overlaps {}: each field needs bytes of its own; check their offsets and types",
                    shown(later),
                    shown(earlier)
                ));
            }
        }
    }
    Ok(())
}

/// A map placed in one image: where to read each field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    map: ObserveMap,
    /// One per field, in [`ObserveMap::fields`] order.
    addresses: Vec<u32>,
}

/// What one reading of the memory says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observed {
    /// Each display in µs (a negative value reads as 0).
    pub remaining_us: BySide<u64>,
    /// The side whose clock runs, if either.
    pub running: Option<Side>,
    pub flag: BySide<bool>,
    pub moves: Option<BySide<u32>>,
}

impl Layout {
    /// The `(address, length)` of each read one reading makes.
    pub fn reads(&self) -> Vec<(u32, u32)> {
        self.map.fields().iter().zip(&self.addresses).map(|(field, &address)| (address, field.int.size())).collect()
    }

    /// One reading: `read(address, buffer)` fills `buffer` from memory.
    pub fn read<E>(&self, mut read: impl FnMut(u32, &mut [u8]) -> Result<(), E>) -> Result<Observed, E> {
        let mut values = Vec::with_capacity(self.addresses.len());
        for (field, &address) in self.map.fields().into_iter().zip(&self.addresses) {
            let mut buffer = [0u8; 8];
            let bytes = &mut buffer[..field.int.size() as usize];
            read(address, bytes)?;
            values.push(field.int.decode(bytes));
        }
        let display_us = |value: i128, unit_us: u64| -> u64 {
            u64::try_from(value.max(0).saturating_mul(i128::from(unit_us))).unwrap_or(u64::MAX)
        };
        let (_, unit_white) = self.map.remaining.white;
        let (_, unit_black) = self.map.remaining.black;
        let turn = self.map.turn.1;
        let running = match values[2] {
            value if value == i128::from(turn.white) => Some(Side::White),
            value if value == i128::from(turn.black) => Some(Side::Black),
            _ => None,
        };
        let count = |value: i128| u32::try_from(value.max(0)).unwrap_or(u32::MAX);
        Ok(Observed {
            remaining_us: BySide::new(display_us(values[0], unit_white), display_us(values[1], unit_black)),
            running,
            flag: BySide::new(values[3] != 0, values[4] != 0),
            moves: self.map.moves.as_ref().map(|_| BySide::new(count(values[5]), count(values[6]))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = r#"
control = "180+2"
poll_interval_ms = 10
[remaining.white]
symbol = "clock_state"
offset = 0
type = "u32"
unit = "ms"
[remaining.black]
symbol = "clock_state"
offset = 4
type = "i32"
unit = "ticks"
tick_us = 250
[turn]
symbol = "clock_state"
offset = 8
type = "u8"
white = 1
black = 2
[flag.white]
symbol = "clock_state"
offset = 9
type = "u8"
[flag.black]
symbol = "clock_state"
offset = 10
type = "u8"
[moves.white]
symbol = "clock_state"
offset = 12
type = "u16"
[moves.black]
symbol = "clock_state"
offset = 14
type = "u16"
"#;

    fn parse(text: &str) -> Result<ObserveMap, ObserveError> {
        ObserveMap::parse(text, Path::new("map.toml"))
    }

    /// A layout of [`MAP`] with `clock_state` at 0x2000_0100, no ELF needed.
    fn layout() -> Layout {
        let map = parse(MAP).expect("the example map");
        let addresses = map.fields().iter().map(|field| 0x2000_0100 + field.offset).collect();
        Layout { map, addresses }
    }

    fn read_from(memory: &[u8]) -> Observed {
        layout()
            .read(|address, buffer| -> Result<(), ()> {
                let start = (address - 0x2000_0100) as usize;
                buffer.copy_from_slice(&memory[start..start + buffer.len()]);
                Ok(())
            })
            .expect("in memory")
    }

    #[test]
    fn a_reading_is_decoded_with_each_field_s_type_and_unit() {
        let mut memory = [0u8; 16];
        memory[0..4].copy_from_slice(&180_000u32.to_le_bytes()); // 180 s in ms
        memory[4..8].copy_from_slice(&(-3i32).to_le_bytes()); // below zero: shows 0
        memory[8] = 2; // Black runs
        memory[10] = 1; // Black's flag
        memory[12..14].copy_from_slice(&41u16.to_le_bytes());
        memory[14..16].copy_from_slice(&40u16.to_le_bytes());
        let observed = read_from(&memory);
        assert_eq!(observed.remaining_us, BySide::new(180_000_000, 0));
        assert_eq!(observed.running, Some(Side::Black));
        assert_eq!(observed.flag, BySide::new(false, true));
        assert_eq!(observed.moves, Some(BySide::new(41, 40)));

        memory[4..8].copy_from_slice(&1_000i32.to_le_bytes()); // 1000 ticks of 250 µs
        memory[8] = 0; // neither value: no clock runs
        let observed = read_from(&memory);
        assert_eq!(observed.remaining_us.black, 250_000);
        assert_eq!(observed.running, None);
    }

    #[test]
    fn signed_types_are_sign_extended_and_unsigned_ones_are_not() {
        assert_eq!(IntType::I8.decode(&[0xff]), -1);
        assert_eq!(IntType::U8.decode(&[0xff]), 255);
        assert_eq!(IntType::I16.decode(&[0x00, 0x80]), -32_768);
        assert_eq!(IntType::U64.decode(&u64::MAX.to_le_bytes()), i128::from(u64::MAX));
        assert_eq!(IntType::I64.decode(&i64::MIN.to_le_bytes()), i128::from(i64::MIN));
    }

    #[test]
    fn a_bad_map_is_refused_naming_the_field() {
        let cases = [
            (MAP.replace("poll_interval_ms = 10", "poll_interval_ms = 0"), "poll_interval_ms = 0"),
            (MAP.replace("control = \"180+2\"", "control = \"180+\""), "control = \"180+\""),
            (MAP.replace("control = \"180+2\"\n", ""), "missing field `control`"),
            (MAP.replace("poll_interval_ms = 10", "poll_interval_ms = 10\ntick_us = 20000"), "shorter than one tick"),
            (MAP.replace("poll_interval_ms = 10", "poll_interval_ms = 5000"), "1 to 1000 ms"),
            (MAP.replace("tick_us = 250", ""), "remaining.black: unit \"ticks\" needs tick_us"),
            (MAP.replacen("unit = \"ms\"", "unit = \"ms\"\ntick_us = 4", 1), "remaining.white: tick_us is for"),
            (MAP.replace("black = 2", "black = 1"), "turn: white and black are both 1"),
            (MAP.replacen("type = \"u32\"", "type = \"u24\"", 1), "u24"),
            (MAP.replacen("offset = 9", "offset = 9\nbit = 3", 1), "bit"),
        ];
        for (text, named) in cases {
            let error = parse(&text).expect_err(named).to_string();
            assert!(error.starts_with("map.toml: ") && error.contains(named), "{named}: {error}");
        }
        assert!(parse(&MAP.replace("[moves.white]", "[unused.white]")).is_err(), "an unknown table");
    }

    #[test]
    fn moves_are_optional() {
        let without = MAP.split("[moves.white]").next().expect("the map before moves");
        let map = parse(without).expect("a map without moves");
        assert_eq!(map.fields().len(), 5);
        assert_eq!(map.poll_interval_us, 10_000);
    }

    /// A symbol of 16 bytes in this test binary, an ELF image like any
    /// other (`u64`s, so it is aligned for every field type).
    #[no_mangle]
    #[used]
    static OBSERVE_TEST_STATE: [u64; 2] = [0; 2];

    fn this_image() -> Vec<u8> {
        std::fs::read(std::env::current_exe().expect("the test binary")).expect("read the test binary")
    }

    #[test]
    fn fields_are_placed_at_their_symbol_plus_offset() {
        let map = parse(&MAP.replace("clock_state", "OBSERVE_TEST_STATE")).expect("the example map");
        let layout = map.resolve(&this_image(), Path::new("test"), None).expect("the fields fit the symbol");
        let reads = layout.reads();
        let base = reads[0].0;
        let offsets: Vec<(u32, u32)> = reads.iter().map(|&(address, size)| (address - base, size)).collect();
        assert_eq!(offsets, [(0, 4), (4, 4), (8, 1), (9, 1), (10, 1), (12, 2), (14, 2)]);
    }

    #[test]
    fn a_map_that_does_not_fit_the_image_is_refused() {
        let image = this_image();
        let path = Path::new("fw.elf");
        let named =
            |text: &str| parse(text).expect("a valid map").resolve(&image, path, None).expect_err(text).to_string();
        let ours = MAP.replace("clock_state", "OBSERVE_TEST_STATE");
        let past_the_end = named(&ours.replace("offset = 14", "offset = 15"));
        assert!(
            past_the_end.contains("moves.black: bytes 15..17 of `OBSERVE_TEST_STATE`, which is 16"),
            "{past_the_end}"
        );
        let missing = named(MAP);
        assert!(missing.contains("remaining.white: no symbol `clock_state`"), "{missing}");
        let error = parse(MAP).expect("the example map").resolve(b"not an elf", path, None).expect_err("garbage");
        assert!(matches!(error, ObserveError::Image { .. }) && error.to_string().contains("not an ELF"), "{error}");
    }

    /// QEMU's lm3s6965evb RAM, as `hil/boards/qemu.toml` has it.
    const RAM: Region = Region { start: 0x2000_0000, size: 0x1_0000 };

    /// An Arm image with `clock_state` (16 bytes) at 0x2000_0100,
    /// `clock_flags` (2 bytes) on its bytes 9 and 10, a 0-byte
    /// `_stack_start` at the top of RAM and a `boot_flag` in flash.
    fn arm_image() -> Vec<u8> {
        use crate::testing::board::{fake_image_sized, ImageSegment};
        let segments = [
            ImageSegment { address: 0, file_size: 0x100, memory_size: 0x100 },
            ImageSegment { address: 0x2000_0000, file_size: 0, memory_size: 0x1000 },
        ];
        fake_image_sized(
            &segments,
            &[
                ("clock_state", 0x2000_0100, 16),
                ("clock_flags", 0x2000_0109, 2),
                ("_stack_start", 0x2001_0000, 0),
                ("boot_flag", 0x40, 4),
            ],
        )
    }

    /// `resolve`'s error for [`MAP`] edited by `edit`, on [`arm_image`].
    fn refusal(edit: impl Fn(&str) -> String) -> String {
        let map = parse(&edit(MAP)).expect("a map that parses");
        match map.resolve(&arm_image(), Path::new("fw.elf"), Some(RAM)) {
            Ok(_) => panic!("accepted:\n{}", edit(MAP)),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn the_example_map_fits_the_arm_image() {
        let layout = parse(MAP).expect("the example map").resolve(&arm_image(), Path::new("fw.elf"), Some(RAM));
        let reads = layout.expect("fits").reads();
        assert_eq!(reads[0], (0x2000_0100, 4));
        assert_eq!(reads[6], (0x2000_010E, 2));
    }

    #[test]
    fn fields_that_share_a_byte_are_refused_naming_both() {
        // `[turn] offset = 0`: on top of White's display.
        let error = refusal(|map| map.replace("offset = 8", "offset = 0"));
        assert!(error.starts_with("fw.elf: "), "{error}");
        assert!(error.contains("turn (bytes 0..1 of `clock_state`) overlaps remaining.white (bytes 0..4"), "{error}");
        // An i64 where a u32 was: it runs into Black's display.
        let error = refusal(|map| map.replacen("type = \"u32\"", "type = \"i64\"", 1));
        assert!(
            error.contains("remaining.black (bytes 4..8 of `clock_state`) overlaps remaining.white (bytes 0..8"),
            "{error}"
        );
        // Two counters on one byte.
        let error = refusal(|map| map.replace("offset = 14", "offset = 12"));
        assert!(error.contains("moves.black (bytes 12..14") && error.contains("overlaps moves.white"), "{error}");
        // Black's flag through another symbol at White's flag's address:
        // the bytes decide, not the names.
        let error =
            refusal(|map| map.replace("symbol = \"clock_state\"\noffset = 10", "symbol = \"clock_flags\"\noffset = 0"));
        assert!(
            error.contains(
                "flag.black (bytes 0..1 of `clock_flags`) overlaps flag.white (bytes 9..10 of `clock_state`)"
            ),
            "{error}"
        );
    }

    #[test]
    fn a_symbol_without_a_size_is_refused() {
        let error = refusal(|map| {
            map.replacen("symbol = \"clock_state\"\noffset = 0", "symbol = \"_stack_start\"\noffset = 0", 1)
        });
        assert!(error.contains("remaining.white: `_stack_start` has no size in the image"), "{error}");
    }

    #[test]
    fn a_misaligned_field_is_refused() {
        let error = refusal(|map| map.replace("offset = 12", "offset = 11").replace("offset = 14", "offset = 13"));
        assert!(error.contains("moves.white: a u16 at 0x2000010b"), "{error}");
        assert!(error.contains("not aligned to 2 bytes"), "{error}");
    }

    #[test]
    fn a_field_outside_the_board_s_ram_is_refused() {
        let error = refusal(|map| {
            map.replacen("symbol = \"clock_state\"\noffset = 0", "symbol = \"boot_flag\"\noffset = 0", 1)
        });
        assert!(
            error.contains("remaining.white: `boot_flag` + 0 is at 0x00000040, outside the board's RAM"),
            "{error}"
        );
    }
}
