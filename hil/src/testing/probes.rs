//! A [`ProbeBackend`] of fake boards, so everything above probe-rs — probe
//! selection, the image check, flashing calls, pin writes, RTT, drift
//! fitting, the farm and the `bench hil` command on top of it — runs
//! without hardware.
//!
//! Each probe opens a [`FakeTarget`] running [`FakeFirmware`] (the
//! reference firmware's game logic on the host, contract 2: press records
//! carry the cycle counter at the edge) with a cycle counter whose
//! oscillator error is set per board. Every flash and pin write is logged
//! by probe serial, and one board can be made to disconnect after a
//! number of calls.
//!
//! Compiled for this crate's tests and with the cargo feature `fake`
//! (`bench`'s tests turn it on).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::backend::probe::ProbeBackend;
use crate::backend::probe::{FlashUpdate, ProbeError, ProbeInfo, ProbeOptions};
use crate::board::BoardProfile;
use crate::target::{ButtonId, Capabilities, CounterReading, EdgeWindow, Target, TargetError};
use crate::testing::board::{contract_button, fake_image, FakeConfig, FakeCounter, FakeTarget, Fault, ImageSegment};
use crate::testing::firmware::{Defects, FakeFirmware};

/// What the fake boards were asked to do, by probe serial.
#[derive(Debug, Default)]
pub struct ProbeLog {
    /// Each flash: the probe's serial and the image.
    pub loads: Vec<(String, PathBuf)>,
    /// Each button write: serial, button, pressed.
    pub presses: Vec<(String, ButtonId, bool)>,
}

/// An ST-LINK/V2-1 (0483:374b) with this serial, as probe-rs lists it.
pub fn st_link(serial: &str) -> ProbeInfo {
    ProbeInfo { identifier: "STLink V2-1".into(), vendor_id: 0x0483, product_id: 0x374b, serial: Some(serial.into()) }
}

/// An ELF that fits the `stm32` profile (flash at 0x0800_0000, RAM at
/// 0x2000_0000), its `_SEGGER_RTT` where the fake boards have their
/// control block.
pub fn stm32_image() -> Vec<u8> {
    let control_block = FakeTarget::new().board().control_block();
    let segments = [
        ImageSegment { address: 0x0800_0000, file_size: 0x800, memory_size: 0x800 },
        ImageSegment { address: 0x2000_0000, file_size: 0, memory_size: 0x4000 },
    ];
    fake_image(&segments, &[("_SEGGER_RTT", control_block)])
}

/// Fake debug probes, each with a board running the firmware model.
pub struct FakeProbes {
    /// What `list` returns, in that order.
    pub probes: Vec<ProbeInfo>,
    /// The probe with this serial goes away after that many target calls.
    pub disconnect: Option<(String, u64)>,
    /// Oscillator error of each board against host time, ppm, by position
    /// in `probes` (0 beyond the list).
    pub oscillator_ppm: Vec<f64>,
    /// Board time that passes at each call, µs (the press latency the
    /// firmware records is about this much).
    pub us_per_call: u64,
    /// What each board's firmware announces after Hello (contract 3);
    /// `None`: a contract 2 firmware.
    pub announced: Option<bench_contract::Capabilities>,
    pub log: Arc<Mutex<ProbeLog>>,
}

impl FakeProbes {
    /// ST-LINKs with these serials; the boards' oscillators are off by
    /// +12, −40 and +3 ppm, in that order.
    pub fn new(serials: &[&str]) -> FakeProbes {
        FakeProbes {
            probes: serials.iter().map(|serial| st_link(serial)).collect(),
            disconnect: None,
            oscillator_ppm: vec![12.0, -40.0, 3.0],
            us_per_call: 250,
            announced: FakeConfig::default().announced,
            log: Arc::new(Mutex::new(ProbeLog::default())),
        }
    }
}

/// A [`FakeTarget`] with the firmware model, logging the calls the probe
/// path makes.
pub struct FakeProbeBoard {
    serial: String,
    inner: FakeTarget,
    log: Arc<Mutex<ProbeLog>>,
}

impl FakeProbeBoard {
    fn note(&self, entry: impl FnOnce(&mut ProbeLog)) {
        if let Ok(mut log) = self.log.lock() {
            entry(&mut log);
        }
    }
}

impl Target for FakeProbeBoard {
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    fn load(&mut self, elf: &Path) -> Result<(), TargetError> {
        self.note(|log| log.loads.push((self.serial.clone(), elf.to_path_buf())));
        self.inner.load(elf)
    }
    fn reset_and_run(&mut self) -> Result<(), TargetError> {
        self.inner.reset_and_run()
    }
    fn halt(&mut self) -> Result<(), TargetError> {
        self.inner.halt()
    }
    fn resume(&mut self) -> Result<(), TargetError> {
        self.inner.resume()
    }
    fn read_memory(&mut self, address: u32, buffer: &mut [u8]) -> Result<(), TargetError> {
        self.inner.read_memory(address, buffer)
    }
    fn write_memory(&mut self, address: u32, data: &[u8]) -> Result<(), TargetError> {
        self.inner.write_memory(address, data)
    }
    fn set_button(&mut self, button: ButtonId, pressed: bool) -> Result<(), TargetError> {
        self.note(|log| log.presses.push((self.serial.clone(), button, pressed)));
        self.inner.set_button(button, pressed)
    }
    fn describe(&self) -> String {
        format!("fake board {}", self.serial)
    }
    fn read_counter(&mut self) -> Result<Option<CounterReading>, TargetError> {
        self.inner.read_counter()
    }
    fn set_button_timed(&mut self, button: ButtonId, pressed: bool) -> Result<Option<EdgeWindow>, TargetError> {
        self.note(|log| log.presses.push((self.serial.clone(), button, pressed)));
        self.inner.set_button_timed(button, pressed)
    }
}

impl ProbeBackend for FakeProbes {
    type Board = FakeProbeBoard;

    fn list(&self) -> Result<Vec<ProbeInfo>, ProbeError> {
        Ok(self.probes.clone())
    }

    fn open(&self, info: &ProbeInfo, _: &BoardProfile, _: &ProbeOptions) -> Result<FakeProbeBoard, ProbeError> {
        let position = self.probes.iter().position(|known| known == info).ok_or_else(|| ProbeError::Probe {
            doing: format!("opening the probe {info}"),
            detail: "The selected debug probe was not found.".into(),
        })?;
        let counter = FakeCounter {
            oscillator_ppm: self.oscillator_ppm.get(position).copied().unwrap_or(0.0),
            round_trips_us: vec![800, 830, 7_000, 815, 840],
            slow_read_at_percent: vec![10, 90],
            ..FakeCounter::default()
        };
        let mut target = FakeTarget::with_config(FakeConfig {
            us_per_call: self.us_per_call,
            counter: Some(counter),
            announced: self.announced,
            ..FakeConfig::default()
        });
        let mut firmware = FakeFirmware::new(Defects::default());
        let mut next_second = 1u64;
        target.set_firmware(move |board| {
            let now = board.now_us();
            firmware.lines(board.take_lines(), now);
            for edge in board.button_edges() {
                if edge.pressed {
                    let counter = board.counter_at(edge.at_us + 5);
                    firmware.press_counted(contract_button(edge.button), edge.at_us, now + 5, counter);
                }
            }
            firmware.advance(now);
            while next_second * 1_000_000 <= now {
                firmware.time_base(next_second * 1_000_000 + 3, board.counter_at(next_second * 1_000_000));
                next_second += 1;
            }
            for record in firmware.out.drain(..) {
                board.emit(record.at_us, record.body);
            }
        });
        let serial = info.serial.clone().unwrap_or_default();
        if let Some((failing, calls)) = &self.disconnect {
            if *failing == serial {
                target.fail_after(*calls, Fault::Disconnect);
            }
        }
        Ok(FakeProbeBoard { serial, inner: target, log: Arc::clone(&self.log) })
    }

    /// Erase, program and verify the image's bytes, each step reported in
    /// two halves, as probe-rs reports its steps.
    fn flash(
        &self,
        board: &mut FakeProbeBoard,
        elf: &Path,
        progress: &mut dyn FnMut(FlashUpdate),
    ) -> Result<(), TargetError> {
        let total_bytes = std::fs::metadata(elf).map_or(0, |metadata| metadata.len());
        for step in ["erase", "program", "verify"] {
            progress(FlashUpdate::Started { step, total_bytes });
            progress(FlashUpdate::Done { bytes: total_bytes / 2 });
            progress(FlashUpdate::Done { bytes: total_bytes - total_bytes / 2 });
        }
        board.load(elf)
    }
}
