//! Guest time read from the emulated machine itself, never from what the
//! firmware under test writes.
//!
//! QEMU 7.2 has no query for the guest's virtual clock outside its qtest
//! accelerator (`clock_step` is refused beside TCG). The lm3s6965evb's
//! watchdog counts it, though: a 32-bit down-counter at the system clock
//! (a QEMU `ptimer` on the virtual clock, period `5 ns × (SYSDIV + 1)` from
//! RCC or RCC2, 80 ns at reset). bench starts it as the core leaves reset,
//! before the firmware's first instruction, with the largest reload, its
//! interrupt enabled (the luminary watchdog counts only then) and its reset
//! off, and reads it at every lockstep stop: the counts since the last read,
//! times the period, are the guest nanoseconds that passed. A wrap takes
//! 5.7 minutes at the slowest clock the RCC can give, and a firmware stops
//! at least every 100 ms (its Snapshot), so no wrap goes unseen.
//!
//! A firmware that uses the watchdog itself would move the counter under
//! bench's feet: every read checks that the reload is still bench's, and a
//! changed one ends the run naming it.

use super::qtest::QtestClient;
use crate::target::TargetError;

const WATCHDOG_LOAD: u32 = 0x4000_0000;
const WATCHDOG_VALUE: u32 = 0x4000_0004;
const WATCHDOG_CONTROL: u32 = 0x4000_0008;
const WATCHDOG_LOCK: u32 = 0x4000_0C00;
/// Writing this to the lock register unlocks the others.
const WATCHDOG_UNLOCK_KEY: u32 = 0x1ACC_E551;
/// INTEN: the luminary watchdog counts only with its interrupt enabled; the
/// NVIC line stays disabled unless the firmware enables it, and RESEN (bit
/// 1) stays off, so the machine never resets for it.
const WATCHDOG_COUNTING: u32 = 1;
const RELOAD: u32 = u32::MAX;
const RCC: u32 = 0x400F_E060;
const RCC2: u32 = 0x400F_E070;

/// The machine's time since it left reset, from its watchdog counter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct MachineClock {
    /// The counter at the last read.
    last_count: u32,
    /// Guest nanoseconds from the start to the last read.
    elapsed_ns: u64,
}

impl MachineClock {
    /// Starts the watchdog counting; the VM must be halted before the
    /// firmware's first instruction.
    pub(super) fn start(qtest: &mut QtestClient) -> Result<MachineClock, TargetError> {
        qtest.write_u32(WATCHDOG_LOCK, WATCHDOG_UNLOCK_KEY)?;
        qtest.write_u32(WATCHDOG_LOAD, RELOAD)?;
        qtest.write_u32(WATCHDOG_CONTROL, WATCHDOG_COUNTING)?;
        let (load, count) = read_counter(qtest)?;
        let control = qtest.read_u32(WATCHDOG_CONTROL)?;
        if load != RELOAD || control & WATCHDOG_COUNTING == 0 {
            return Err(TargetError::Protocol {
                what: "emulator".to_string(),
                detail: format!(
                    "the watchdog, bench's clock on QEMU, did not start (reload 0x{load:08x}, control \
                     0x{control:08x}); \
                     `--icount none` plays without lockstep (host-timed, not reproducible)"
                ),
            });
        }
        Ok(MachineClock { last_count: count, elapsed_ns: 0 })
    }

    /// Guest nanoseconds since [`MachineClock::start`], read now.
    pub(super) fn read_ns(&mut self, qtest: &mut QtestClient) -> Result<u64, TargetError> {
        let (load, count) = read_counter(qtest)?;
        if load != RELOAD {
            return Err(TargetError::Protocol {
                what: "firmware".to_string(),
                detail: format!(
                    "the firmware changed the watchdog's reload (0x{load:08x}); bench uses the watchdog as \
                     the machine's clock on QEMU (hil/LOCKSTEP.md), so a firmware that uses it cannot run \
                     in lockstep: `--icount none` plays without it (host-timed, not reproducible)"
                ),
            });
        }
        let period_ns = system_clock_period_ns(qtest)?;
        let counts = self.last_count.wrapping_sub(count);
        self.last_count = count;
        self.elapsed_ns = self.elapsed_ns.saturating_add(u64::from(counts).saturating_mul(period_ns));
        Ok(self.elapsed_ns)
    }
}

/// The watchdog's reload and count.
fn read_counter(qtest: &mut QtestClient) -> Result<(u32, u32), TargetError> {
    Ok((qtest.read_u32(WATCHDOG_LOAD)?, qtest.read_u32(WATCHDOG_VALUE)?))
}

/// QEMU's system clock period: 5 ns (its 200 MHz PLL) times the divisor of
/// RCC, or of RCC2 when RCC2's USERCC2 bit is set (`hw/arm/stellaris.c`).
fn system_clock_period_ns(qtest: &mut QtestClient) -> Result<u64, TargetError> {
    Ok(period_ns(qtest.read_u32(RCC)?, qtest.read_u32(RCC2)?))
}

fn period_ns(rcc: u32, rcc2: u32) -> u64 {
    let divisor = match rcc2 >> 31 {
        1 => (rcc2 >> 23) & 0x3f,
        _ => (rcc >> 23) & 0xf,
    };
    5 * (u64::from(divisor) + 1)
}

#[cfg(test)]
mod tests {
    use super::period_ns;

    #[test]
    fn the_system_clock_period_follows_rcc_or_rcc2_as_qemu_computes_it() {
        // RCC at reset (SYSDIV 15): 80 ns, 12.5 MHz.
        assert_eq!(period_ns(0x078e_3ac0, 0x0780_6810), 80);
        // SYSDIV 3 in RCC: 20 ns (50 MHz); RCC2 ignored without USERCC2.
        assert_eq!(period_ns(3 << 23, 0), 20);
        // USERCC2 with SYSDIV2 9: 50 ns (20 MHz).
        assert_eq!(period_ns(0x078e_3ac0, (1 << 31) | (9 << 23)), 50);
    }
}
