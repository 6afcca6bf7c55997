//! The server side of the GDB remote protocol, for tests: a [`Connection`]
//! that reads the client's packets (checksums checked, acks sent) and
//! answers them, and [`serve_flash`], a scripted server over a flash it
//! keeps, standing in for OpenOCD or J-Link's GDB server.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;

use crate::backend::gdb::client::{checksum, frame, to_hex, unescape};

/// The interrupt byte (Ctrl-C), returned by [`Connection::packet`] as a
/// one-character packet.
const INTERRUPT: u8 = 0x03;

/// One client, seen from the server.
pub struct Connection {
    stream: TcpStream,
    rx: Vec<u8>,
}

impl Connection {
    /// The first client to connect to `listener`.
    pub fn accept(listener: &TcpListener) -> Connection {
        let (stream, _) = listener.accept().expect("a client");
        Connection { stream, rx: Vec::new() }
    }

    /// The next byte from the client, or `None` when it went away.
    pub fn byte(&mut self) -> Option<u8> {
        if self.rx.is_empty() {
            let mut chunk = [0u8; 4096];
            let count = self.stream.read(&mut chunk).ok().filter(|&count| count > 0)?;
            self.rx.extend_from_slice(&chunk[..count]);
        }
        Some(self.rx.remove(0))
    }

    /// The next packet's payload as sent (escapes kept), acknowledged with
    /// `+`; acks from the client before it are skipped, an interrupt is
    /// `[0x03]`. `None` when the client went away.
    pub fn raw_packet(&mut self) -> Option<Vec<u8>> {
        loop {
            match self.byte()? {
                b'$' => break,
                INTERRUPT => return Some(vec![INTERRUPT]),
                _ => {}
            }
        }
        let mut payload = Vec::new();
        loop {
            match self.byte()? {
                b'#' => break,
                byte => payload.push(byte),
            }
        }
        let digits = [self.byte()?, self.byte()?];
        assert_eq!(std::str::from_utf8(&digits).expect("hex digits"), format!("{:02x}", checksum(&payload)));
        self.send(b"+");
        Some(payload)
    }

    /// [`Connection::raw_packet`] as text.
    pub fn packet(&mut self) -> Option<String> {
        self.raw_packet().map(|payload| String::from_utf8(payload).expect("a text packet"))
    }

    /// Waits for the client's answer to a packet we sent (`+` or `-`).
    pub fn expect_ack(&mut self) -> u8 {
        self.byte().expect("an ack")
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("the client listens");
    }

    /// Sends `payload` framed and waits for the client's `+`.
    pub fn reply(&mut self, payload: &str) {
        self.send(&frame(payload.as_bytes()));
        assert_eq!(self.expect_ack(), b'+');
    }
}

/// How [`serve_flash`] behaves: `erase_reply` answers `vFlashErase`;
/// `corrupt` flips the byte at that address as it is read back;
/// `drop_after` closes the connection after that many requests;
/// `non_stop` offers non-stop mode.
#[derive(Clone, Copy, Default)]
pub struct FlashScript {
    pub erase_reply: &'static str,
    pub corrupt: Option<u64>,
    pub drop_after: Option<usize>,
    pub non_stop: bool,
}

/// The board's counter, DWT CYCCNT: it advances [`COUNTER_STEP`] with each
/// request served while the core runs, and stands still while it is halted.
pub const COUNTER_ADDRESS: u64 = 0xE000_1004;
pub const COUNTER_STEP: u32 = 100;

/// A GDB server for one client: answers `?`, `qSupported`, the flash
/// packets, `m`, `M`, `qRcmd`, `c`, an interrupt and, in non-stop mode,
/// `QNonStop` and `vCont` over a flash it keeps, and sends the test the
/// first 40 characters of each request.
pub fn serve_flash(listener: TcpListener, script: FlashScript, requests: mpsc::Sender<String>) {
    let mut client = Connection::accept(&listener);
    let mut flash: BTreeMap<u64, u8> = BTreeMap::new();
    let mut served = 0usize;
    let mut running = false;
    let mut counter = 0u32;
    loop {
        let Some(raw) = client.raw_packet() else { return };
        let Ok(payload) = unescape(&raw) else { return };
        let text = String::from_utf8_lossy(&payload).into_owned();
        let _ = requests.send(text.chars().take(40).collect());
        served += 1;
        if script.drop_after.is_some_and(|after| served > after) {
            return;
        }
        if running {
            counter = counter.wrapping_add(COUNTER_STEP);
        }
        if let Some(flash_reply) = flash_request(&payload, &text, script, &mut flash) {
            client.send(&frame(&flash_reply));
            continue;
        }
        let reply: Vec<u8> = if payload == b"?" || payload == [INTERRUPT] {
            running = false;
            b"S05".to_vec()
        } else if text.starts_with("qSupported") {
            let offered = if script.non_stop { "PacketSize=1000;QNonStop+" } else { "PacketSize=1000" };
            offered.as_bytes().to_vec()
        } else if text == "QNonStop:1" && script.non_stop {
            b"OK".to_vec()
        } else if text == "vCont;c" && script.non_stop {
            running = true;
            b"OK".to_vec()
        } else if text == "vCont;t" && script.non_stop {
            running = false;
            b"OK".to_vec()
        } else if text == format!("m{COUNTER_ADDRESS:x},4") {
            to_hex(&counter.to_le_bytes()).into_bytes()
        } else if text.starts_with('c') {
            // Answered when the core stops: at the next interrupt.
            running = true;
            continue;
        } else if text.starts_with('Q') || text.starts_with("vCont") {
            // Not offered: the empty reply.
            Vec::new()
        } else {
            // vFlashDone, M, qRcmd: done.
            b"OK".to_vec()
        };
        // The client's ack is skipped by the next read.
        client.send(&frame(&reply));
    }
}

/// The answer to a flash packet or a flash read (`vFlashErase`,
/// `vFlashWrite`, `m` outside the counter), `None` for any other request.
fn flash_request(payload: &[u8], text: &str, script: FlashScript, flash: &mut BTreeMap<u64, u8>) -> Option<Vec<u8>> {
    if text.starts_with("vFlashErase") {
        return Some(script.erase_reply.as_bytes().to_vec());
    }
    if let Some(rest) = payload.strip_prefix(b"vFlashWrite:") {
        let colon = rest.iter().position(|&byte| byte == b':').expect("address:data");
        let address = u64::from_str_radix(std::str::from_utf8(&rest[..colon]).expect("hex"), 16).expect("hex");
        for (at, byte) in rest[colon + 1..].iter().enumerate() {
            flash.insert(address + at as u64, *byte);
        }
        return Some(b"OK".to_vec());
    }
    let (address, len) = text.strip_prefix('m')?.split_once(',')?;
    let address = u64::from_str_radix(address, 16).expect("hex");
    if address == COUNTER_ADDRESS {
        return None;
    }
    let len = u64::from_str_radix(len, 16).expect("hex");
    let bytes: Vec<u8> = (address..address + len)
        .map(|at| flash.get(&at).copied().unwrap_or(0) ^ u8::from(script.corrupt == Some(at)))
        .collect();
    Some(to_hex(&bytes).into_bytes())
}
