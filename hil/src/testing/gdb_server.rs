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
/// `drop_after` closes the connection after that many requests.
pub struct FlashScript {
    pub erase_reply: &'static str,
    pub corrupt: Option<u64>,
    pub drop_after: Option<usize>,
}

/// A GDB server for one client: answers `?`, the flash packets, `m`, `M`,
/// `qRcmd` and `c` over a flash it keeps, and sends the test the first 40
/// characters of each request.
pub fn serve_flash(listener: TcpListener, script: FlashScript, requests: mpsc::Sender<String>) {
    let mut client = Connection::accept(&listener);
    let mut flash: BTreeMap<u64, u8> = BTreeMap::new();
    let mut served = 0usize;
    loop {
        let Some(raw) = client.raw_packet() else { return };
        let Ok(payload) = unescape(&raw) else { return };
        let text = String::from_utf8_lossy(&payload).into_owned();
        let _ = requests.send(text.chars().take(40).collect());
        served += 1;
        if script.drop_after.is_some_and(|after| served > after) {
            return;
        }
        let reply: Vec<u8> = if payload == b"?" {
            b"S05".to_vec()
        } else if text.starts_with("vFlashErase") {
            script.erase_reply.as_bytes().to_vec()
        } else if let Some(rest) = payload.strip_prefix(b"vFlashWrite:") {
            let colon = rest.iter().position(|&byte| byte == b':').expect("address:data");
            let address = u64::from_str_radix(std::str::from_utf8(&rest[..colon]).expect("hex"), 16).expect("hex");
            for (at, byte) in rest[colon + 1..].iter().enumerate() {
                flash.insert(address + at as u64, *byte);
            }
            b"OK".to_vec()
        } else if let Some(args) = text.strip_prefix('m') {
            let (address, len) = args.split_once(',').expect("m address,len");
            let address = u64::from_str_radix(address, 16).expect("hex");
            let len = u64::from_str_radix(len, 16).expect("hex");
            let bytes: Vec<u8> = (address..address + len)
                .map(|at| flash.get(&at).copied().unwrap_or(0) ^ u8::from(script.corrupt == Some(at)))
                .collect();
            to_hex(&bytes).into_bytes()
        } else if text.starts_with('c') {
            continue;
        } else {
            // vFlashDone, M, qRcmd: done.
            b"OK".to_vec()
        };
        // The client's ack is skipped by the next read.
        client.send(&frame(&reply));
    }
}
