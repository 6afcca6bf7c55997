//! A client of QEMU's qtest protocol, for two things: setting a GPIO input
//! line of a device (`set_irq_in`) while the VM is halted, and reading and
//! writing device registers (`readl`, `writel`: the gdbstub's memory
//! writes skip device registers).
//!
//! Key events (QMP `send-key`, `input-send-event`) are refused or dropped
//! while the VM is halted, so an edge made through them lands whenever
//! QEMU takes the command, at a guest instant that depends on the host. A
//! qtest `set_irq_in` changes the line at once, halted or not: made while
//! the VM stands at a lockstep stop, the edge is at that exact point of the
//! guest's execution. QEMU runs the qtest server beside TCG when started
//! with `-accel tcg -qtest unix:PATH`.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::target::TargetError;

/// One connection to QEMU's qtest socket.
#[derive(Debug)]
pub struct QtestClient {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    path: PathBuf,
    timeout: Duration,
}

impl QtestClient {
    pub fn connect(path: &Path, timeout: Duration) -> Result<QtestClient, TargetError> {
        let what = || format!("qtest socket {}", path.display());
        let stream = UnixStream::connect(path)
            .map_err(|error| TargetError::Disconnected { what: what(), detail: error.to_string() })?;
        let io = |source| TargetError::Io { what: what(), source };
        stream.set_read_timeout(Some(timeout)).map_err(io)?;
        stream.set_write_timeout(Some(timeout)).map_err(io)?;
        let writer = stream.try_clone().map_err(io)?;
        Ok(QtestClient { reader: BufReader::new(stream), writer, path: path.to_path_buf(), timeout })
    }

    fn what(&self) -> String {
        format!("qtest socket {}", self.path.display())
    }

    /// Sends one command line and returns its answer line (`OK …`).
    fn command(&mut self, line: &str) -> Result<String, TargetError> {
        let context = format!("`{line}`");
        let what = self.what();
        let timeout = self.timeout;
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .map_err(|source| TargetError::from_connection_io(source, what.clone(), &context, timeout))?;
        loop {
            let mut answer = String::new();
            let read = self
                .reader
                .read_line(&mut answer)
                .map_err(|source| TargetError::from_connection_io(source, what.clone(), &context, timeout))?;
            if read == 0 {
                return Err(TargetError::Disconnected { what, detail: format!("closed while answering {context}") });
            }
            // Interrupt notices (`IRQ raise …`) come only after an
            // `irq_intercept_*`, which this client never sends.
            if answer.starts_with("IRQ ") {
                continue;
            }
            return Ok(answer.trim_end().to_string());
        }
    }

    /// Writes a 32-bit word at physical `address`, device registers included.
    pub fn write_u32(&mut self, address: u32, value: u32) -> Result<(), TargetError> {
        self.command_ok(&format!("writel 0x{address:x} 0x{value:x}"))
    }

    /// Sends a command whose only good answer is `OK`.
    fn command_ok(&mut self, command: &str) -> Result<(), TargetError> {
        let answer = self.command(command)?;
        if answer != "OK" {
            return Err(TargetError::Protocol {
                what: self.what(),
                detail: format!("`{command}` answered {answer:?}"),
            });
        }
        Ok(())
    }

    /// Reads a 32-bit word at physical `address`, device registers included.
    pub fn read_u32(&mut self, address: u32) -> Result<u32, TargetError> {
        let command = format!("readl 0x{address:x}");
        let answer = self.command(&command)?;
        let value = answer
            .strip_prefix("OK 0x")
            .and_then(|hex| u64::from_str_radix(hex, 16).ok())
            .and_then(|value| u32::try_from(value).ok());
        value.ok_or_else(|| TargetError::Protocol {
            what: self.what(),
            detail: format!("`{command}` answered {answer:?}"),
        })
    }

    /// Reads `buffer.len()` bytes at physical `address` (RAM, while the
    /// core runs or is held).
    pub fn read_bytes(&mut self, address: u32, buffer: &mut [u8]) -> Result<(), TargetError> {
        if buffer.is_empty() {
            return Ok(());
        }
        let command = format!("read 0x{address:x} 0x{:x}", buffer.len());
        let answer = self.command(&command)?;
        let bytes = answer.strip_prefix("OK 0x").and_then(|hex| crate::backend::gdb::client::from_hex(hex.as_bytes()));
        match bytes {
            Some(bytes) if bytes.len() == buffer.len() => {
                buffer.copy_from_slice(&bytes);
                Ok(())
            }
            _ => Err(TargetError::Protocol { what: self.what(), detail: format!("`{command}` answered {answer:?}") }),
        }
    }

    /// Writes `data` at physical `address`.
    pub fn write_bytes(&mut self, address: u32, data: &[u8]) -> Result<(), TargetError> {
        if data.is_empty() {
            return Ok(());
        }
        let hex = crate::backend::gdb::client::to_hex(data);
        self.command_ok(&format!("write 0x{address:x} 0x{:x} 0x{hex}", data.len()))
    }

    /// Sets input line `line` of the device at QOM path `device` to `high`.
    pub fn set_gpio_in(&mut self, device: &str, line: u32, high: bool) -> Result<(), TargetError> {
        self.command_ok(&format!("set_irq_in {device} unnamed-gpio-in {line} {}", u8::from(high)))
    }
}
