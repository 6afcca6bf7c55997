//! A firmware image, checked against the board profile before any backend
//! touches it. QEMU loads whatever it is given and a probe flashes it: an
//! image that cannot run there would otherwise surface half-way through a
//! run as an emulator or board failure (exit 3), or as a firmware that fails
//! its games. Every refusal names the file and what is wrong with it.
//! `bench hil` checks the image before anything runs, on every backend
//! (`--observe` included); a probe board checks it again before flashing
//! (`backend::probe::check_image`).
//!
//! In order:
//!
//! 1. **The header**: the ELF magic, a 32-bit little-endian file of the
//!    current version, an executable (not an object file or a library)
//!    for Arm.
//! 2. **The program headers**: entries of 32 bytes, a real count (not
//!    `PN_XNUM`, which no board's loader reads), the table inside the file.
//! 3. **The loadable segments**: at least one with bytes; each one's bytes
//!    inside the file, its memory size not below its file size, the
//!    addresses it is loaded at (`p_paddr`) and runs at (`p_vaddr`) inside
//!    the board's flash or RAM (`[memory]` of `hil/boards/*.toml`).
//! 4. **Sections and symbols** readable (`object`).
//! 5. **The RTT control block** (a contract image, not an observed one):
//!    the `_SEGGER_RTT` symbol in RAM, or, without it (a stripped image),
//!    RAM to scan for the block's id (`hil/CONTRACT.md` §2).

use std::path::Path;

use object::{Object, ObjectSymbol};

use crate::board::{BoardProfile, Memory, Region};
use crate::session::rtt::ControlBlockLocation;

/// What the image is run for: it decides whether it must carry RTT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A firmware with the contract's RTT channels (`bench hil`).
    Contract,
    /// A firmware read through a map (`bench hil --observe`): no RTT.
    Observed,
}

/// What the check learnt about an accepted image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Where the RTT control block will be looked for (`None` for an
    /// observed image).
    pub rtt: Option<ControlBlockLocation>,
}

impl Checked {
    /// A line for the user when the image is accepted on a weaker footing
    /// than usual: no RTT symbol, so RAM will be scanned.
    pub fn note(&self, path: &Path) -> Option<String> {
        match self.rtt {
            Some(ControlBlockLocation::Scan { start, len }) => Some(format!(
                "{} has no `{}` symbol (stripped?): bench scans {len} bytes of RAM from {start:#010x} for the RTT \
                 control block (hil/CONTRACT.md §2)",
                path.display(),
                bench_contract::rtt::CONTROL_BLOCK_SYMBOL
            )),
            _ => None,
        }
    }
}

const ELF_HEADER_SIZE: usize = 52;
const PROGRAM_HEADER_SIZE: usize = 32;
const ELFCLASS32: u8 = 1;
const ELFDATA2LSB: u8 = 1;
const EV_CURRENT: u8 = 1;
const ET_EXEC: u16 = 2;
const EM_ARM: u16 = 40;
const PT_LOAD: u32 = 1;
const PN_XNUM: u16 = 0xFFFF;
/// The part of the control block the harness reads first: the id, max_up
/// and max_down.
const CONTROL_BLOCK_HEADER: u64 = 24;

fn half(bytes: &[u8], at: usize) -> u16 {
    bytes.get(at..at + 2).and_then(|b| b.try_into().ok()).map_or(0, u16::from_le_bytes)
}

fn word(bytes: &[u8], at: usize) -> u32 {
    bytes.get(at..at + 4).and_then(|b| b.try_into().ok()).map_or(0, u32::from_le_bytes)
}

/// One PT_LOAD entry of the program header table.
#[derive(Clone, Copy, Debug)]
struct LoadSegment {
    index: usize,
    offset: u32,
    virtual_address: u32,
    physical_address: u32,
    file_size: u32,
    memory_size: u32,
}

/// The bytes to write to the board: each loadable segment's file bytes at
/// its physical (load) address, in the order of the program headers. For
/// an image [`check`] passed.
pub fn load_blocks(bytes: &[u8]) -> Result<Vec<(u32, Vec<u8>)>, String> {
    if !bytes.starts_with(b"\x7fELF") || bytes.len() < ELF_HEADER_SIZE {
        return Err("is not an ELF image".to_string());
    }
    let segments = load_segments(bytes)?;
    Ok(segments
        .iter()
        .filter(|segment| segment.file_size > 0)
        .map(|segment| {
            let start = segment.offset as usize;
            let bytes = bytes.get(start..start + segment.file_size as usize).unwrap_or_default();
            (segment.physical_address, bytes.to_vec())
        })
        .collect())
}

/// Checks `bytes`, the image at `path`, for `profile`'s board.
pub fn check(profile: &BoardProfile, path: &Path, bytes: &[u8], purpose: Purpose) -> Result<Checked, String> {
    let shown = path.display();
    check_header(profile, bytes).map_err(|why| format!("{shown} {why}"))?;
    let segments = load_segments(bytes).map_err(|why| format!("{shown} {why}"))?;
    if let Some(memory) = &profile.memory {
        for segment in &segments {
            check_placement(profile, memory, segment).map_err(|why| format!("{shown} {why}"))?;
        }
    }
    let file = object::File::parse(bytes).map_err(|error| format!("{shown} is not a readable ELF file: {error}"))?;
    let rtt = match purpose {
        Purpose::Observed => None,
        Purpose::Contract => Some(control_block(profile, &file).map_err(|why| format!("{shown} {why}"))?),
    };
    Ok(Checked { rtt })
}

/// The 52-byte ELF header: what file this is, and for which machine.
fn check_header(profile: &BoardProfile, bytes: &[u8]) -> Result<(), String> {
    let board = format!("board `{}` ({}) runs 32-bit little-endian Arm executables", profile.name, profile.chip);
    if !bytes.starts_with(b"\x7fELF") {
        let start: Vec<String> = bytes.iter().take(4).map(|byte| format!("{byte:02x}")).collect();
        return Err(format!(
            "is not an ELF file (it starts with `{}`, not 7f 45 4c 46): give the linked image, not a .bin or .hex",
            start.join(" ")
        ));
    }
    if bytes.len() < ELF_HEADER_SIZE {
        return Err(format!("is cut short: {} bytes, less than an ELF header (52); copy it again", bytes.len()));
    }
    match bytes[4] {
        ELFCLASS32 => {}
        2 => return Err(format!("is a 64-bit ELF file; {board}")),
        class => return Err(format!("has ELF class {class}, neither 32- nor 64-bit: its header is corrupt")),
    }
    match bytes[5] {
        ELFDATA2LSB => {}
        2 => return Err(format!("is a big-endian ELF file; {board}")),
        data => {
            return Err(format!("has ELF data encoding {data}, neither little- nor big-endian: its header is corrupt"))
        }
    }
    if bytes[6] != EV_CURRENT || word(bytes, 20) != u32::from(EV_CURRENT) {
        return Err(format!("has ELF version {}/{}, not 1: its header is corrupt", bytes[6], word(bytes, 20)));
    }
    match half(bytes, 18) {
        EM_ARM => {}
        machine => return Err(format!("is built for another machine (e_machine {machine}, Arm is 40); {board}")),
    }
    match half(bytes, 16) {
        ET_EXEC => Ok(()),
        1 => Err("is an object file (ET_REL), not a linked image: give the ELF the linker wrote".to_string()),
        kind => {
            Err(format!("is not an executable (e_type {kind}, an executable is 2): give the linked firmware image"))
        }
    }
}

/// The program header table, checked entry by entry; its PT_LOAD entries.
fn load_segments(bytes: &[u8]) -> Result<Vec<LoadSegment>, String> {
    let file_len = bytes.len() as u64;
    let table_offset = u64::from(word(bytes, 28));
    let entry_size = half(bytes, 42);
    let count = half(bytes, 44);
    if count == PN_XNUM {
        return Err(format!(
            "has e_phnum = {PN_XNUM:#06x} (PN_XNUM: the count is kept elsewhere), which no board's loader reads: \
             its header is corrupt; link it again"
        ));
    }
    if count > 0 && usize::from(entry_size) != PROGRAM_HEADER_SIZE {
        return Err(format!(
            "has program header entries of {entry_size} bytes, not {PROGRAM_HEADER_SIZE}: its header is corrupt"
        ));
    }
    let table_end = table_offset + u64::from(count) * PROGRAM_HEADER_SIZE as u64;
    if count > 0 && (table_offset == 0 || table_end > file_len) {
        return Err(format!(
            "has {count} program headers at file offset {table_offset:#x}, ending at {table_end:#x}, past the end of \
             the file ({file_len:#x} bytes): it is cut short or its header is corrupt"
        ));
    }
    let mut segments = Vec::new();
    for index in 0..usize::from(count) {
        let at = table_offset as usize + index * PROGRAM_HEADER_SIZE;
        if word(bytes, at) != PT_LOAD {
            continue;
        }
        let segment = LoadSegment {
            index,
            offset: word(bytes, at + 4),
            virtual_address: word(bytes, at + 8),
            physical_address: word(bytes, at + 12),
            file_size: word(bytes, at + 16),
            memory_size: word(bytes, at + 20),
        };
        let end = u64::from(segment.offset) + u64::from(segment.file_size);
        if end > file_len {
            return Err(format!(
                "has segment {index} with {} bytes at file offset {:#x}, past the end of the file ({file_len:#x} \
                 bytes): it is cut short or its program headers are corrupt",
                segment.file_size, segment.offset
            ));
        }
        if segment.memory_size < segment.file_size {
            return Err(format!(
                "has segment {index} of {} bytes in memory but {} in the file: its program headers are corrupt",
                segment.memory_size, segment.file_size
            ));
        }
        segments.push(segment);
    }
    if !segments.iter().any(|segment| segment.file_size > 0) {
        return Err("has no loadable segment with bytes in it: there is nothing to load or flash".to_string());
    }
    Ok(segments)
}

fn describe(region: Region) -> String {
    format!("{:#010x}..{:#010x}", region.start, u64::from(region.start) + u64::from(region.size))
}

/// A segment's bytes are loaded where the board has flash or RAM, and it
/// runs there.
fn check_placement(profile: &BoardProfile, memory: &Memory, segment: &LoadSegment) -> Result<(), String> {
    let inside = |address: u32, len: u32| {
        let (address, len) = (u64::from(address), u64::from(len));
        memory.flash.contains(address, len) || memory.ram.contains(address, len)
    };
    let board = format!(
        "{}'s flash ({}, {} KiB) and RAM ({}, {} KiB): is it built for another chip? (board `{}`)",
        profile.chip,
        describe(memory.flash),
        memory.flash.size / 1024,
        describe(memory.ram),
        memory.ram.size / 1024,
        profile.name
    );
    if segment.file_size > 0 && !inside(segment.physical_address, segment.file_size) {
        return Err(format!(
            "loads {} bytes at {:#010x} (segment {}), outside {board}",
            segment.file_size, segment.physical_address, segment.index
        ));
    }
    if segment.memory_size > 0 && !inside(segment.virtual_address, segment.memory_size) {
        let what = if segment.file_size == 0 { "places" } else { "runs" };
        return Err(format!(
            "{what} {} bytes at {:#010x} (segment {}), outside {board}",
            segment.memory_size, segment.virtual_address, segment.index
        ));
    }
    Ok(())
}

/// Where the RTT control block will be: at the profile's symbol, in RAM;
/// without the symbol, somewhere in RAM the image uses, to be scanned.
fn control_block(profile: &BoardProfile, file: &object::File<'_>) -> Result<ControlBlockLocation, String> {
    let symbol_name = profile.rtt.symbol.as_str();
    let ram = profile.memory.map(|memory| memory.ram);
    if let Some(symbol) = file.symbols().find(|symbol| symbol.name() == Ok(symbol_name)) {
        let address = symbol.address();
        if ram.is_some_and(|ram| !ram.contains(address, CONTROL_BLOCK_HEADER)) {
            return Err(format!(
                "has `{symbol_name}` at {address:#010x}, outside the board's RAM ({}): the RTT control block must \
                 be a variable in RAM",
                ram.map(describe).unwrap_or_default()
            ));
        }
        let address = u32::try_from(address)
            .map_err(|_| format!("has `{symbol_name}` at {address:#x}, beyond 32-bit addresses"))?;
        return Ok(ControlBlockLocation::Address(address));
    }
    let location = ControlBlockLocation::scan_of(file).map_err(|why| {
        format!("has no `{symbol_name}` symbol, and {why}: the firmware must link the RTT control block (hil/CONTRACT.md §2)")
    })?;
    if let (ControlBlockLocation::Scan { start, len }, Some(ram)) = (&location, ram) {
        if !ram.contains(u64::from(*start), u64::from(*len)) {
            return Err(format!(
                "has no `{symbol_name}` symbol, and its RAM to scan for the control block ({start:#010x}, {len} \
                 bytes) is not inside the board's RAM ({}): is it built for another chip?",
                describe(ram)
            ));
        }
    }
    Ok(location)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::board::{fake_image, ImageSegment};

    fn qemu() -> BoardProfile {
        BoardProfile::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("boards/qemu.toml")).expect("qemu.toml")
    }

    const FLASH: ImageSegment = ImageSegment { address: 0, file_size: 0x100, memory_size: 0x100 };
    const RAM: ImageSegment = ImageSegment { address: 0x2000_0000, file_size: 0, memory_size: 0x1000 };
    const CONTROL_BLOCK: u32 = 0x2000_0200;

    /// A sound image for QEMU's board, with the RTT symbol.
    fn image() -> Vec<u8> {
        fake_image(&[FLASH, RAM], &[("_SEGGER_RTT", CONTROL_BLOCK)])
    }

    /// `bytes` with `value` written at `at`.
    fn patched(mut bytes: Vec<u8>, at: usize, value: &[u8]) -> Vec<u8> {
        bytes[at..at + value.len()].copy_from_slice(value);
        bytes
    }

    /// Byte `field` of program header `index`.
    fn program_header(index: usize, field: usize) -> usize {
        ELF_HEADER_SIZE + index * PROGRAM_HEADER_SIZE + field
    }

    fn check_contract(bytes: &[u8]) -> Result<Checked, String> {
        check(&qemu(), Path::new("fw.elf"), bytes, Purpose::Contract)
    }

    #[test]
    fn a_sound_image_is_accepted_with_its_control_block() {
        let checked = check_contract(&image()).expect("a sound image");
        assert_eq!(checked.rtt, Some(ControlBlockLocation::Address(CONTROL_BLOCK)));
        assert_eq!(checked.note(Path::new("fw.elf")), None);
    }

    #[test]
    fn an_image_without_the_rtt_symbol_is_accepted_and_its_ram_scanned() {
        // Flash read-only and executable, as a linker makes it: the RAM
        // segment is the only writable one.
        let stripped = patched(fake_image(&[FLASH, RAM], &[]), program_header(0, 24), &5u32.to_le_bytes());
        let checked = check_contract(&stripped).expect("an image without symbols");
        assert_eq!(checked.rtt, Some(ControlBlockLocation::Scan { start: 0x2000_0000, len: 0x1000 }));
        let note = checked.note(Path::new("fw.elf")).expect("a note");
        assert!(
            note.contains("no `_SEGGER_RTT` symbol") && note.contains("4096 bytes of RAM from 0x20000000"),
            "{note}"
        );
        // An observed image has no RTT at all.
        let observed = check(&qemu(), Path::new("fw.elf"), &stripped, Purpose::Observed).expect("observed");
        assert_eq!(observed.rtt, None);
    }

    #[test]
    fn a_broken_image_is_refused_naming_the_file_and_what_is_wrong() {
        let stm32 = [ImageSegment { address: 0x0800_0000, ..FLASH }, RAM];
        let far_ram = [FLASH, ImageSegment { address: 0x3000_0000, ..RAM }];
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"not an elf at all".to_vec(), "is not an ELF file (it starts with `6e 6f 74 20`"),
            (image()[..30].to_vec(), "is cut short: 30 bytes"),
            (patched(image(), 4, &[2]), "is a 64-bit ELF file"),
            (patched(image(), 5, &[2]), "is a big-endian ELF file"),
            (patched(image(), 6, &[0]), "has ELF version 0/1"),
            (patched(image(), 18, &62u16.to_le_bytes()), "another machine (e_machine 62, Arm is 40)"),
            (patched(image(), 16, &1u16.to_le_bytes()), "is an object file (ET_REL)"),
            (patched(image(), 44, &0xFFFFu16.to_le_bytes()), "has e_phnum = 0xffff (PN_XNUM"),
            (patched(image(), 42, &40u16.to_le_bytes()), "program header entries of 40 bytes"),
            (patched(image(), 28, &0xFFFF_0000u32.to_le_bytes()), "2 program headers at file offset 0xffff0000"),
            (
                patched(image(), program_header(0, 4), &0x10_0000u32.to_le_bytes()),
                "segment 0 with 256 bytes at file offset 0x100000",
            ),
            (
                patched(image(), program_header(0, 20), &0x10u32.to_le_bytes()),
                "segment 0 of 16 bytes in memory but 256",
            ),
            (patched(image(), 44, &0u16.to_le_bytes()), "has no loadable segment with bytes"),
            (
                fake_image(&stm32, &[("_SEGGER_RTT", CONTROL_BLOCK)]),
                "loads 256 bytes at 0x08000000 (segment 0), outside lm3s6965evb's flash",
            ),
            (fake_image(&far_ram, &[("_SEGGER_RTT", CONTROL_BLOCK)]), "places 4096 bytes at 0x30000000 (segment 1)"),
            (
                fake_image(&[FLASH, RAM], &[("_SEGGER_RTT", 0x40)]),
                "has `_SEGGER_RTT` at 0x00000040, outside the board's RAM",
            ),
            (fake_image(&[FLASH, RAM], &[]), "no `_SEGGER_RTT` symbol, and its RAM to scan"),
        ];
        for (bytes, says) in cases {
            let error = check_contract(&bytes).expect_err(says);
            assert!(error.starts_with("fw.elf ") && error.contains(says), "{says}: {error}");
        }
    }
}
