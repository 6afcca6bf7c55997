//! The SEGGER RTT control block, as a host reads it over plain memory
//! access (32-bit targets: pointers and counts are 4 bytes, little-endian).
//!
//! ```text
//! control block (at symbol `_SEGGER_RTT`, or found by scanning RAM for ID):
//!   0  char[16] id               "SEGGER RTT" and six NULs
//!  16  i32      max_up           number of up-channel descriptors
//!  20  i32      max_down         number of down-channel descriptors
//!  24  desc[max_up]              up-channels (target to host)
//!  24 + 24*max_up  desc[max_down]  down-channels (host to target)
//! descriptor (24 bytes):
//!   0  u32 name     address of a NUL-terminated name (0: unused channel)
//!   4  u32 buffer   address of the ring buffer
//!   8  u32 size     its size in bytes; it holds at most size-1
//!  12  u32 write    write offset: only the writer (target for up, host for down) moves it
//!  16  u32 read     read offset: only the reader moves it
//!  20  u32 flags    bits 0-1: mode when full (0 skip, 1 trim, 2 block)
//! ```
//!
//! The ring is empty when `write == read`. A writer copies the bytes first
//! and then stores the new write offset; a reader copies the bytes first and
//! then stores the new read offset.

/// ELF symbol of the control block.
pub const CONTROL_BLOCK_SYMBOL: &str = "_SEGGER_RTT";

/// The 16 bytes at the start of the control block once it is initialised.
pub const ID: [u8; 16] = *b"SEGGER RTT\0\0\0\0\0\0";

/// Offsets in the control block.
pub const OFFSET_MAX_UP: usize = 16;
pub const OFFSET_MAX_DOWN: usize = 20;
pub const OFFSET_DESCRIPTORS: usize = 24;

/// Size of one channel descriptor, and the offsets in it.
pub const DESCRIPTOR_SIZE: usize = 24;
pub const DESCRIPTOR_NAME: usize = 0;
pub const DESCRIPTOR_BUFFER: usize = 4;
pub const DESCRIPTOR_SIZE_FIELD: usize = 8;
pub const DESCRIPTOR_WRITE: usize = 12;
pub const DESCRIPTOR_READ: usize = 16;
pub const DESCRIPTOR_FLAGS: usize = 20;

/// Mode bits of `flags`; the `bench` up-channel must be [`MODE_NO_BLOCK_SKIP`].
pub const MODE_MASK: u32 = 0b11;
pub const MODE_NO_BLOCK_SKIP: u32 = 0;
pub const MODE_NO_BLOCK_TRIM: u32 = 1;
pub const MODE_BLOCK_IF_FULL: u32 = 2;

/// A sanity bound for a host scanning memory: more channels than this means
/// the bytes found are not a control block.
pub const CHANNELS_MAX: u32 = 16;

/// Offset of up-channel `index`'s descriptor in the control block.
pub const fn up_descriptor_offset(index: usize) -> usize {
    OFFSET_DESCRIPTORS + DESCRIPTOR_SIZE * index
}

/// Offset of down-channel `index`'s descriptor, given the up-channel count.
pub const fn down_descriptor_offset(max_up: usize, index: usize) -> usize {
    OFFSET_DESCRIPTORS + DESCRIPTOR_SIZE * (max_up + index)
}

/// One channel descriptor, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Descriptor {
    pub name_addr: u32,
    pub buffer_addr: u32,
    pub size: u32,
    pub write: u32,
    pub read: u32,
    pub flags: u32,
}

impl Descriptor {
    pub fn decode(bytes: &[u8; DESCRIPTOR_SIZE]) -> Descriptor {
        let word = |at: usize| {
            let quad: [u8; 4] = bytes.get(at..at.saturating_add(4)).and_then(|b| b.try_into().ok()).unwrap_or([0; 4]);
            u32::from_le_bytes(quad)
        };
        Descriptor {
            name_addr: word(DESCRIPTOR_NAME),
            buffer_addr: word(DESCRIPTOR_BUFFER),
            size: word(DESCRIPTOR_SIZE_FIELD),
            write: word(DESCRIPTOR_WRITE),
            read: word(DESCRIPTOR_READ),
            flags: word(DESCRIPTOR_FLAGS),
        }
    }

    /// Bytes waiting to be read, or `None` if the offsets are not inside the
    /// buffer (a corrupt or not yet initialised descriptor).
    pub fn readable(&self) -> Option<u32> {
        if self.size == 0 || self.write >= self.size || self.read >= self.size {
            return None;
        }
        Some(if self.write >= self.read { self.write - self.read } else { self.size - self.read + self.write })
    }

    /// Bytes that can be written without overtaking the reader (one slot
    /// always stays empty), or `None` as for [`Descriptor::readable`].
    pub fn writable(&self) -> Option<u32> {
        Some(self.size - 1 - self.readable()?)
    }

    pub fn mode(&self) -> u32 {
        self.flags & MODE_MASK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_sit_where_segger_puts_them() {
        assert_eq!(up_descriptor_offset(0), 24);
        assert_eq!(up_descriptor_offset(1), 48);
        assert_eq!(down_descriptor_offset(1, 0), 48);
        assert_eq!(down_descriptor_offset(3, 1), 24 + 24 * 4);
        assert_eq!(&ID[..10], b"SEGGER RTT");
    }

    #[test]
    fn a_descriptor_decodes_little_endian_words() {
        let mut bytes = [0u8; DESCRIPTOR_SIZE];
        for (index, value) in [0x2000_0010u32, 0x2000_0100, 4096, 96, 48, 0].iter().enumerate() {
            bytes[index * 4..index * 4 + 4].copy_from_slice(&value.to_le_bytes());
        }
        let descriptor = Descriptor::decode(&bytes);
        assert_eq!(
            descriptor,
            Descriptor { name_addr: 0x2000_0010, buffer_addr: 0x2000_0100, size: 4096, write: 96, read: 48, flags: 0 }
        );
        assert_eq!(descriptor.mode(), MODE_NO_BLOCK_SKIP);
    }

    fn ring(size: u32, write: u32, read: u32) -> Descriptor {
        Descriptor { name_addr: 1, buffer_addr: 2, size, write, read, flags: 0 }
    }

    #[test]
    fn ring_arithmetic_keeps_one_slot_free() {
        assert_eq!(ring(16, 0, 0).readable(), Some(0));
        assert_eq!(ring(16, 0, 0).writable(), Some(15));
        assert_eq!(ring(16, 10, 4).readable(), Some(6));
        assert_eq!(ring(16, 2, 10).readable(), Some(8));
        assert_eq!(ring(16, 3, 4).writable(), Some(0));
        assert_eq!(ring(16, 16, 0).readable(), None);
        assert_eq!(ring(16, 0, 16).writable(), None);
        assert_eq!(ring(0, 0, 0).readable(), None);
    }
}
