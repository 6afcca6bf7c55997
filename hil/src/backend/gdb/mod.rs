//! A real board through any GDB server (OpenOCD, SEGGER's J-Link GDB
//! server, pyOCD, a Black Magic Probe), with the same GDB remote-protocol
//! client that drives QEMU's gdbstub every day ([`client`]).
//!
//! - **Flash:** `vFlashErase` / `vFlashWrite` / `vFlashDone` over each
//!   loadable segment of the image, then every byte read back and compared.
//!   `--no-flash` is for a server that loads the image itself (QEMU's
//!   gdbstub, started with `-kernel`).
//! - **Reset:** `monitor reset halt` (`qRcmd`), the command OpenOCD and
//!   pyOCD take; J-Link's server takes it too. With `--no-flash` the server
//!   holds the core halted at its reset already: nothing is sent.
//! - **Presses:** the board profile's GPIO register writes, as on the
//!   probe-rs path.
//! - **Non-stop where the server offers it** (`QNonStop+` in `qSupported`):
//!   memory is read and written while the core runs, as on the probe-rs
//!   path. Otherwise **all-stop**: every access halts the core briefly
//!   (`0x03`, the access, `c`). The board's description in the report says
//!   which.
//! - **Press latency:** the board's counter (the profile's; DWT CYCCNT
//!   unless the core has none) is read right before and right after each
//!   press write. In all-stop the three accesses share one halt, so the
//!   window is exact.
//! - **Oscillator drift:** the counter against host time, in non-stop mode
//!   only: in all-stop the counter stops while the core is halted for an
//!   access, so it cannot be compared with host time.

pub mod client;

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;
use std::time::{Duration, Instant};

use client::{to_hex, GdbClient};

use crate::board::{BoardProfile, Counter, RegisterWrite};
use crate::target::{ButtonId, Capabilities, CounterReading, EdgeWindow, Target, TargetError};

/// How long an exchange may take, but erasing flash.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long erasing flash may take (a whole 1 MiB bank on a slow part).
const ERASE_TIMEOUT: Duration = Duration::from_secs(60);
/// Bytes per `vFlashWrite`, well inside every server's packet size.
const FLASH_WRITE_MAX: usize = 1024;
/// The `monitor` command that resets the core and holds it halted.
const RESET_HALT: &str = "reset halt";

/// Where the GDB server is and what it is asked to do.
#[derive(Clone, Debug)]
pub struct GdbServerConfig {
    /// `HOST:PORT`, as given.
    pub address: String,
    /// Flash the image (`false`: the server has loaded it and holds the
    /// core at its reset).
    pub flash: bool,
}

/// A board behind a GDB server.
pub struct GdbServerTarget {
    client: GdbClient,
    profile: BoardProfile,
    config: GdbServerConfig,
    /// Origin of the host times in [`CounterReading`]s.
    host_origin: Instant,
}

impl GdbServerTarget {
    /// Connects to the server (which halts the core) and asks for non-stop
    /// mode.
    pub fn connect(profile: &BoardProfile, config: &GdbServerConfig) -> Result<GdbServerTarget, TargetError> {
        let address = resolve(&config.address, profile)?;
        let mut client =
            GdbClient::connect(address, EXCHANGE_TIMEOUT).map_err(|error| explain(error, config, profile))?;
        client.enter_non_stop()?;
        Ok(GdbServerTarget { client, profile: profile.clone(), config: config.clone(), host_origin: Instant::now() })
    }

    /// `monitor COMMAND`, answered `OK` (after any console output).
    fn monitor(&mut self, command: &str) -> Result<(), TargetError> {
        let request = format!("qRcmd,{}", to_hex(command.as_bytes()));
        loop {
            let reply = self.client.request(request.as_bytes())?;
            match reply.as_slice() {
                b"OK" => return Ok(()),
                // Console output (`O` + hex) comes before the answer.
                [b'O', ..] => continue,
                _ => {
                    return Err(self.refused(&format!(
                        "`monitor {command}` was answered {:?}: the server cannot reset this board that way",
                        String::from_utf8_lossy(&reply)
                    )))
                }
            }
        }
    }

    fn refused(&self, detail: &str) -> TargetError {
        TargetError::Protocol { what: self.what(), detail: detail.to_string() }
    }

    fn what(&self) -> String {
        format!("GDB server at {}", self.config.address)
    }

    /// Erases, writes and reads back one block.
    fn flash_block(&mut self, address: u32, bytes: &[u8]) -> Result<(), TargetError> {
        self.client.set_timeout(ERASE_TIMEOUT);
        let erased = self.client.request(format!("vFlashErase:{address:x},{:x}", bytes.len()).as_bytes());
        self.client.set_timeout(EXCHANGE_TIMEOUT);
        self.expect_ok(erased?, &format!("erasing {} bytes at {address:#010x}", bytes.len()))?;
        let mut at = address;
        for chunk in bytes.chunks(FLASH_WRITE_MAX) {
            let mut request = format!("vFlashWrite:{at:x}:").into_bytes();
            request.extend_from_slice(chunk);
            let reply = self.client.request(&request)?;
            self.expect_ok(reply, &format!("writing {} bytes at {at:#010x}", chunk.len()))?;
            at = at.wrapping_add(chunk.len() as u32);
        }
        Ok(())
    }

    fn expect_ok(&self, reply: Vec<u8>, doing: &str) -> Result<(), TargetError> {
        if reply == b"OK" {
            return Ok(());
        }
        Err(self.refused(&format!(
            "{doing}: answered {:?} (is the address in the board's flash, and does the server know this chip's \
             flash? OpenOCD needs its target's flash bank configured)",
            String::from_utf8_lossy(&reply)
        )))
    }

    fn apply(&mut self, writes: &[RegisterWrite]) -> Result<(), TargetError> {
        apply(&mut self.client, writes)
    }
}

/// The register writes, in order (a read-modify-write for each `Modify`).
fn apply(client: &mut GdbClient, writes: &[RegisterWrite]) -> Result<(), TargetError> {
    for write in writes {
        let (address, value) = match *write {
            RegisterWrite::Store { address, value } => (address, value),
            RegisterWrite::Modify { address, clear, set } => {
                let mut word = [0u8; 4];
                client.read_memory(address, &mut word)?;
                (address, (u32::from_le_bytes(word) & !clear) | set)
            }
        };
        client.write_memory(address, &value.to_le_bytes())?;
    }
    Ok(())
}

/// The board's free-running counter.
fn read_counter(client: &mut GdbClient, counter: Counter) -> Result<u64, TargetError> {
    let mut word = [0u8; 4];
    client.read_memory(counter.address, &mut word)?;
    Ok(u64::from(u32::from_le_bytes(word)))
}

fn micros(since: Duration) -> u64 {
    u64::try_from(since.as_micros()).unwrap_or(u64::MAX)
}

impl Target for GdbServerTarget {
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            read_while_running: self.client.is_non_stop(),
            virtual_time: false,
            pause_button: self.profile.buttons.pause.is_some(),
            timed_bounce: false,
            bounce_lead_us: 0,
            lockstep: false,
            invisible_stops: false,
        }
    }

    fn load(&mut self, elf: &Path) -> Result<(), TargetError> {
        let image = |detail: String| TargetError::Image { path: elf.display().to_string(), detail };
        let bytes = std::fs::read(elf).map_err(|error| image(error.to_string()))?;
        let blocks = crate::image::load_blocks(&bytes).map_err(image)?;
        for (address, block) in &blocks {
            self.flash_block(*address, block)?;
        }
        let done = self.client.request(b"vFlashDone")?;
        self.expect_ok(done, "finishing the flash write")?;
        for (address, block) in &blocks {
            let mut read = vec![0u8; block.len()];
            self.client.read_memory(*address, &mut read)?;
            if let Some(at) = read.iter().zip(block).position(|(read, written)| read != written) {
                return Err(self.refused(&format!(
                    "the flash does not hold the image: byte {:#010x} reads {:#04x}, the image has {:#04x}",
                    u64::from(*address) + at as u64,
                    read[at],
                    block[at]
                )));
            }
        }
        Ok(())
    }

    fn reset_and_run(&mut self) -> Result<(), TargetError> {
        if self.config.flash {
            self.monitor(RESET_HALT)?;
        }
        let setup = self.profile.drive_setup();
        self.apply(&setup)?;
        self.client.resume()
    }

    fn halt(&mut self) -> Result<(), TargetError> {
        self.client.interrupt().map(|_| ())
    }

    fn resume(&mut self) -> Result<(), TargetError> {
        self.client.resume()
    }

    fn read_memory(&mut self, address: u32, buffer: &mut [u8]) -> Result<(), TargetError> {
        self.client.read_memory(address, buffer)
    }

    fn write_memory(&mut self, address: u32, data: &[u8]) -> Result<(), TargetError> {
        self.client.write_memory(address, data)
    }

    fn set_button(&mut self, button: ButtonId, pressed: bool) -> Result<(), TargetError> {
        let write = self.profile.press_write(button, pressed).map_err(|detail| self.refused(&detail))?;
        self.apply(&[write])
    }

    fn describe(&self) -> String {
        let mode = if self.client.is_non_stop() {
            "non-stop: memory is read while the core runs"
        } else {
            "all-stop: the core halts for each read and press, so no oscillator drift is measured"
        };
        format!("{} through the GDB server at {} ({mode})", self.profile.description, self.config.address)
    }

    /// In non-stop mode only: in all-stop the counter stops while the core
    /// is halted for the read.
    fn read_counter(&mut self) -> Result<Option<CounterReading>, TargetError> {
        if !self.client.is_non_stop() {
            return Ok(None);
        }
        let before = self.host_origin.elapsed();
        let counter = read_counter(&mut self.client, self.profile.counter)?;
        let after = self.host_origin.elapsed();
        Ok(Some(CounterReading { host_before_us: micros(before), host_after_us: micros(after), counter }))
    }

    /// The pin write between two reads of the board's counter, in one halt
    /// in all-stop mode.
    fn set_button_timed(&mut self, button: ButtonId, pressed: bool) -> Result<Option<EdgeWindow>, TargetError> {
        let write = self.profile.press_write(button, pressed).map_err(|detail| self.refused(&detail))?;
        let counter = self.profile.counter;
        let window = self.client.halted(|client| {
            let counter_before = read_counter(client, counter)?;
            apply(client, &[write])?;
            let counter_after = read_counter(client, counter)?;
            Ok(EdgeWindow { counter_before, counter_after })
        })?;
        Ok(Some(window))
    }
}

/// `HOST:PORT` to a socket address.
fn resolve(address: &str, profile: &BoardProfile) -> Result<SocketAddr, TargetError> {
    let unusable = |detail: String| TargetError::Disconnected { what: format!("GDB server at {address}"), detail };
    let mut found = address
        .to_socket_addrs()
        .map_err(|error| unusable(format!("`{address}` is no HOST:PORT here ({error}); {}", start_hint(profile))))?;
    found.next().ok_or_else(|| unusable(format!("`{address}` names no address; {}", start_hint(profile))))
}

/// A connection error, with what to start and how.
fn explain(error: TargetError, config: &GdbServerConfig, profile: &BoardProfile) -> TargetError {
    let what = format!("GDB server at {}", config.address);
    match error {
        TargetError::Disconnected { detail, .. } => {
            TargetError::Disconnected { what, detail: format!("{detail}; {}", start_hint(profile)) }
        }
        TargetError::Timeout { timeout, .. } => {
            TargetError::Timeout { what: format!("{what} (connecting; {})", start_hint(profile)), timeout }
        }
        other => other,
    }
}

/// What to start for `profile`'s board.
fn start_hint(profile: &BoardProfile) -> String {
    if profile.backend == crate::board::Backend::Qemu {
        return "start QEMU with its gdbstub and the image loaded (`qemu-system-arm -machine lm3s6965evb -kernel \
                ELF -gdb tcp::3333 -S …`), then give --gdb localhost:3333 --no-flash"
            .to_string();
    }
    let openocd = match profile.gpio {
        Some(crate::board::GpioFamily::Stm32f4) => "openocd -f board/st_nucleo_f4.cfg",
        Some(crate::board::GpioFamily::Nrf52) => "openocd -f board/nordic_nrf52_dk.cfg",
        Some(crate::board::GpioFamily::Rp2040) => "openocd -f interface/cmsis-dap.cfg -f target/rp2040.cfg",
        None => "openocd -f board/YOUR_BOARD.cfg",
    };
    format!(
        "start the server first, e.g. `{openocd}` (GDB on port 3333), `JLinkGDBServer -device {} -if SWD` (port \
         2331) or `pyocd gdbserver` (port 3333), and give its HOST:PORT to --gdb",
        profile.chip
    )
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;
    use std::sync::mpsc;
    use std::thread;

    use super::client::from_hex;
    use super::*;
    use crate::testing::board::{fake_image, ImageSegment};
    use crate::testing::gdb_server::{serve_flash, FlashScript, COUNTER_STEP};

    fn profile() -> BoardProfile {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards/stm32.toml");
        BoardProfile::load(&file).expect("stm32 loads")
    }

    /// An image of one 3000-byte segment at the start of the STM32's flash,
    /// holding every byte value (the protocol's `$ # } *` among them).
    fn image(dir: &Path) -> (std::path::PathBuf, Vec<u8>) {
        let segments = [ImageSegment { address: 0x0800_0000, file_size: 3000, memory_size: 3000 }];
        let mut bytes = fake_image(&segments, &[("_SEGGER_RTT", 0x2000_0000)]);
        let data: Vec<u8> = (0..3000u32).map(|at| (at * 7 % 256) as u8).collect();
        // The one segment's bytes follow the ELF header and its program header.
        bytes[84..84 + 3000].copy_from_slice(&data);
        let path = dir.join("clock.elf");
        std::fs::write(&path, &bytes).expect("write the image");
        (path, data)
    }

    fn connected(script: FlashScript) -> (GdbServerTarget, mpsc::Receiver<String>, thread::JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let address = listener.local_addr().expect("an address").to_string();
        let (sender, requests) = mpsc::channel();
        let server = thread::spawn(move || serve_flash(listener, script, sender));
        let config = GdbServerConfig { address, flash: true };
        let target = GdbServerTarget::connect(&profile(), &config).expect("connected");
        (target, requests, server)
    }

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("bench-gdb-server-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        dir
    }

    #[test]
    fn an_image_is_flashed_with_the_flash_packets_and_read_back() {
        let dir = temp_dir("flash");
        let (elf, data) = image(&dir);
        let script = FlashScript { erase_reply: "OK", corrupt: None, drop_after: None, ..FlashScript::default() };
        let (mut target, requests, _server) = connected(script);
        target.load(&elf).expect("flashed");
        target.reset_and_run().expect("reset and run");
        let requests: Vec<String> = requests.try_iter().collect();
        assert_eq!(requests.first().map(String::as_str), Some("?"));
        assert_eq!(requests[1], "qSupported:swbreak+;hwbreak+", "non-stop mode asked for");
        assert_eq!(requests[2], "vFlashErase:8000000,bb8");
        let writes = requests.iter().filter(|request| request.starts_with("vFlashWrite:")).count();
        assert_eq!(writes, 3, "3000 bytes in writes of at most 1024: {requests:?}");
        let done = requests.iter().position(|request| request == "vFlashDone").expect("vFlashDone");
        assert!(requests[done + 1..].iter().any(|request| request.starts_with("m8000000,")), "read back: {requests:?}");
        let reset = requests.iter().position(|request| request.starts_with("qRcmd,")).expect("a monitor command");
        assert_eq!(from_hex(&requests[reset].as_bytes()[6..]), Some(b"reset halt".to_vec()));
        assert!(requests[reset..].iter().any(|request| request.starts_with("M40020818,4:")), "drive pins set up");
        assert_eq!(data.len(), 3000);
    }

    #[test]
    fn a_refused_erase_or_a_wrong_read_back_is_named() {
        let dir = temp_dir("refused");
        let (elf, _) = image(&dir);
        let (mut target, _, _server) =
            connected(FlashScript { erase_reply: "E01", corrupt: None, drop_after: None, ..FlashScript::default() });
        let error = target.load(&elf).expect_err("refused").to_string();
        assert!(error.contains("erasing 3000 bytes at 0x08000000") && error.contains("flash bank"), "{error}");
        let (mut target, _, _server) = connected(FlashScript {
            erase_reply: "OK",
            corrupt: Some(0x0800_0100),
            drop_after: None,
            ..FlashScript::default()
        });
        let error = target.load(&elf).expect_err("not what was written").to_string();
        assert!(error.contains("byte 0x08000100"), "{error}");
    }

    #[test]
    fn a_server_that_goes_away_or_is_not_there_says_so() {
        let (mut target, _, server) =
            connected(FlashScript { erase_reply: "OK", corrupt: None, drop_after: Some(2), ..FlashScript::default() });
        let mut word = [0u8; 4];
        let error = target.read_memory(0x2000_0000, &mut word).expect_err("gone");
        assert!(matches!(error, TargetError::Disconnected { .. }), "{error}");
        server.join().expect("the server ends");
        // Nothing listens on a port just given back.
        let port = TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("an address").port();
        let config = GdbServerConfig { address: format!("127.0.0.1:{port}"), flash: true };
        let error = GdbServerTarget::connect(&profile(), &config).err().expect("refused").to_string();
        assert!(error.contains(&format!("GDB server at 127.0.0.1:{port}")), "{error}");
        assert!(error.contains("openocd -f board/st_nucleo_f4.cfg") && error.contains("JLinkGDBServer"), "{error}");
    }
    /// A pressed button's pin write between two reads of the counter.
    fn press_white(target: &mut GdbServerTarget) -> EdgeWindow {
        target.set_button_timed(ButtonId::White, true).expect("pressed").expect("a window")
    }

    #[test]
    fn all_stop_reads_the_counter_around_a_press_in_one_halt_and_fits_no_drift() {
        let script = FlashScript { erase_reply: "OK", ..FlashScript::default() };
        let (mut target, requests, _server) = connected(script);
        target.reset_and_run().expect("running");
        let _: Vec<String> = requests.try_iter().collect();
        let window = press_white(&mut target);
        // The counter stands still while the core is halted: the edge is
        // exactly where both reads are.
        assert_eq!(window.counter_before, window.counter_after);
        let requests: Vec<String> = requests.try_iter().collect();
        let halts = requests.iter().filter(|request| *request == "\u{3}").count();
        assert_eq!(halts, 1, "one halt for the three accesses: {requests:?}");
        assert_eq!(requests.last().map(String::as_str), Some("c"), "{requests:?}");
        assert!(target.read_counter().expect("no error").is_none(), "no drift from a counter that stops");
        assert!(!target.capabilities().read_while_running);
        assert!(target.describe().contains("all-stop"), "{}", target.describe());
    }

    #[test]
    fn non_stop_where_offered_reads_while_the_core_runs_and_fits_drift() {
        let script = FlashScript { erase_reply: "OK", non_stop: true, ..FlashScript::default() };
        let (mut target, requests, _server) = connected(script);
        target.reset_and_run().expect("running");
        let started: Vec<String> = requests.try_iter().collect();
        assert!(started.iter().any(|request| request == "QNonStop:1"), "{started:?}");
        assert!(started.iter().any(|request| request == "vCont;c"), "{started:?}");
        let window = press_white(&mut target);
        assert_eq!(window.counter_after - window.counter_before, 2 * u64::from(COUNTER_STEP), "the core ran");
        let reading = target.read_counter().expect("no error").expect("a reading");
        assert!(reading.counter > window.counter_after && reading.host_after_us >= reading.host_before_us);
        let requests: Vec<String> = requests.try_iter().collect();
        assert!(!requests.iter().any(|request| request == "\u{3}" || request == "c"), "never halted: {requests:?}");
        assert!(target.capabilities().read_while_running);
        assert!(target.describe().contains("non-stop"), "{}", target.describe());
    }
}
