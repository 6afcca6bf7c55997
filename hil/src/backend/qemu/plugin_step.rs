//! Lockstep on bench's QEMU plugin ([`super::LockstepEngine::Plugin`]):
//! [`Session::step_with_plugin`], and guest time from the plugin's counts.

use std::path::Path;
use std::time::{Duration, Instant};

use super::plugin::{PluginStop, PluginStopKind};
use super::{FaultStop, Session};
use crate::target::{StepPlan, Stop, TargetError};

/// How long a wait on the plugin lasts before the gdbstub is asked whether
/// the core stopped at the fault breakpoint instead.
const FAULT_POLL: Duration = Duration::from_millis(20);

/// The shift of an `-icount` option (`shift=7,sleep=off`, `7`); `None` for
/// `auto`, whose instructions have no fixed length in guest time.
pub(super) fn icount_shift(icount: &str) -> Option<u32> {
    let first = icount.split(',').next()?;
    first.strip_prefix("shift=").unwrap_or(first).parse().ok()
}

/// The reset and SysTick handlers' addresses (vector table entries 1 and
/// 15, Thumb bit cleared) from the image's loadable bytes at address 0,
/// where QEMU's `-kernel` puts them and the core reads them (VTOR 0).
pub(super) fn vector_addresses(elf: &Path) -> Result<(u32, u32), TargetError> {
    let image = |detail: String| TargetError::Image { path: elf.display().to_string(), detail };
    let bytes = std::fs::read(elf).map_err(|error| image(format!("cannot read it: {error}")))?;
    let blocks = crate::image::load_blocks(&bytes).map_err(image)?;
    let entry = |index: u32| {
        let address = index * 4;
        blocks.iter().find_map(|(start, data)| {
            let offset = usize::try_from(address.checked_sub(*start)?).ok()?;
            let word = data.get(offset..offset + 4)?;
            Some(u32::from_le_bytes(word.try_into().ok()?) & !1)
        })
    };
    match (entry(1), entry(15)) {
        (Some(reset), Some(systick)) if reset != 0 && systick != 0 => Ok((reset, systick)),
        _ => Err(image(
            "its vector table at address 0 has no reset handler (entry 1) or no SysTick handler (entry 15), \
             which lockstep stops on; `--icount none` plays without lockstep (host-timed, not reproducible)"
                .to_string(),
        )),
    }
}

/// Guest time and ticks from the plugin's counts: the instructions since
/// the latest reset, each `2^shift` ns under `-icount shift=N`.
#[derive(Debug, Default)]
pub(super) struct PluginClock {
    shift: u32,
    at_reset: Option<PluginStop>,
    latest: Option<PluginStop>,
}

impl PluginClock {
    pub(super) fn new(shift: u32) -> PluginClock {
        PluginClock { shift, at_reset: None, latest: None }
    }

    fn reset(&mut self, stop: PluginStop) {
        self.at_reset = Some(stop);
        self.latest = Some(stop);
    }

    /// Takes `stop` as the latest; returns the SysTick exceptions taken
    /// since the one before (the stop's own included).
    fn stop(&mut self, stop: PluginStop) -> u32 {
        let before = self.latest.map_or(0, |latest| latest.ticks);
        self.latest = Some(stop);
        u32::try_from(stop.ticks.saturating_sub(before)).unwrap_or(u32::MAX)
    }

    /// Whether the core executed WFI or WFE since the latest reset.
    fn slept(&self, stop: &PluginStop) -> bool {
        stop.sleeps > self.at_reset.map_or(0, |reset| reset.sleeps)
    }

    /// Guest time at the latest stop, µs since the reset handler began.
    pub(super) fn machine_time_us(&self) -> Option<u64> {
        let (reset, latest) = (self.at_reset?, self.latest?);
        let instructions = latest.instructions.saturating_sub(reset.instructions);
        Some(instructions.saturating_mul(1u64 << self.shift.min(32)) / 1_000)
    }
}

impl Session {
    /// Lets the core run to its next stop under `plan` (see
    /// [`crate::target::Target::step`]). A core the gdbstub halted (at
    /// start, after a reset) is let go and stops first at the reset
    /// handler, where the plugin takes `plan`; a core the plugin holds
    /// takes it at once.
    pub(super) fn step_with_plugin(&mut self, plan: &StepPlan, timeout: Duration) -> Result<Option<Stop>, TargetError> {
        let ticks_to_stop = match (plan.tick, self.stop_at_every_tick) {
            (_, true) => 1,
            (true, false) => u64::from(plan.skip_ticks) + 1,
            (false, false) => 0,
        };
        if !self.gdb.is_running() {
            if self.lockstep.fault.is_none() {
                self.arm_fault_stop()?;
            }
            self.gdb.resume()?;
        } else if let Some(link) = self.plugin.as_mut() {
            link.release(plan.watch, ticks_to_stop)?;
        }
        let deadline = Instant::now() + timeout;
        loop {
            let slice = deadline.saturating_duration_since(Instant::now()).min(FAULT_POLL);
            let link = self.plugin.as_mut().ok_or_else(|| TargetError::Protocol {
                what: "emulator".to_string(),
                detail: "lockstep on the plugin without its connection".to_string(),
            })?;
            match link.wait(slice)? {
                Some(stop) if stop.kind == PluginStopKind::Reset => {
                    self.plugin_clock.reset(stop);
                    link.release(plan.watch, ticks_to_stop)?;
                }
                Some(stop) => {
                    if self.plugin_clock.slept(&stop) {
                        return Err(sleeping());
                    }
                    let ticks = self.plugin_clock.stop(stop);
                    return Ok(Some(match stop.kind {
                        PluginStopKind::Tick => Stop::Tick { ticks },
                        _ => Stop::Written,
                    }));
                }
                None => {
                    if self.gdb.wait_for_stop(Duration::from_millis(1))?.is_some() {
                        return Err(self.unplanned_stop());
                    }
                    if Instant::now() >= deadline {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// The gdbstub stopped the core while the plugin ran it: the fault
    /// breakpoint, or something else that stopped QEMU.
    fn unplanned_stop(&mut self) -> TargetError {
        let pc = self.registers().map(|(pc, _)| pc);
        match (self.lockstep.fault, pc) {
            (Some(FaultStop::At(handler)), Ok(pc)) if pc == handler => self.fault(handler),
            (_, pc) => TargetError::Protocol {
                what: "emulator".to_string(),
                detail: format!(
                    "the VM stopped outside the lockstep plugin (pc {})",
                    pc.map_or_else(|error| error.to_string(), |pc| format!("{pc:#010x}"))
                ),
            },
        }
    }

    /// Lets a core the plugin holds run on without stops, so that the
    /// gdbstub can halt it (it waits for the core to come out of the
    /// plugin's callback).
    pub(super) fn release_plugin(&mut self) -> Result<(), TargetError> {
        match self.plugin.as_mut() {
            Some(link) => link.release(None, 0),
            None => Ok(()),
        }
    }
}

fn sleeping() -> TargetError {
    TargetError::Protocol {
        what: "firmware".to_string(),
        detail: "the core executed WFI or WFE: guest time then runs on without instructions, and bench's lockstep \
                 plugin counts guest time in instructions; `--lockstep gdbstub` runs it in lockstep through the \
                 gdbstub instead (slower), `--icount none` without lockstep (host-timed, not reproducible)"
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shift_is_read_from_the_icount_option() {
        assert_eq!(icount_shift("shift=7,sleep=off"), Some(7));
        assert_eq!(icount_shift("4"), Some(4));
        assert_eq!(icount_shift("shift=auto,sleep=off"), None);
        assert_eq!(icount_shift("auto"), None);
    }

    fn stop(kind: PluginStopKind, instructions: u64, ticks: u64, sleeps: u64) -> PluginStop {
        PluginStop { kind, instructions, ticks, sleeps }
    }

    #[test]
    fn guest_time_counts_instructions_from_the_reset_and_ticks_from_the_last_stop() {
        let mut clock = PluginClock::new(7);
        assert_eq!(clock.machine_time_us(), None, "no reset seen yet");
        clock.reset(stop(PluginStopKind::Reset, 1_000, 40, 0));
        assert_eq!(clock.machine_time_us(), Some(0));
        // 7 812 500 instructions of 128 ns: one second.
        assert_eq!(clock.stop(stop(PluginStopKind::Written, 1_000 + 7_812_500, 41, 0)), 1);
        assert_eq!(clock.machine_time_us(), Some(1_000_000));
        assert_eq!(clock.stop(stop(PluginStopKind::Tick, 1_000 + 7_812_501, 43, 0)), 2);
        assert_eq!(clock.machine_time_us(), Some(1_000_000), "128 ns more is within the microsecond");
        assert!(!clock.slept(&stop(PluginStopKind::Tick, 0, 0, 0)));
        assert!(clock.slept(&stop(PluginStopKind::Tick, 0, 0, 1)));
    }
}
