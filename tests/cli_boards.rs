//! `bench boards` and `bench hil --board stm32` without hardware: the
//! profile list, the jumper list, and the no-probe message (this test
//! assumes no debug probe is attached; set `BENCH_PROBE_ATTACHED=1` to skip
//! it on a desk with a board).

use std::path::Path;
use std::process::{Command, Output};

mod support;
use support::{reference_firmware, reference_firmware_stm32, temp_dir, text};

fn bench(args: &[&str]) -> Output {
    bench_with_boards(args, &Path::new(env!("CARGO_MANIFEST_DIR")).join("hil/boards"))
}

/// `bench` with its board profiles read from `boards` (`BENCH_BOARDS`).
fn bench_with_boards(args: &[&str], boards: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("BENCH_SCENARIOS", Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
        .env("BENCH_BOARDS", boards)
        .output()
        .expect("bench runs")
}

/// A board is its profile: one added to `BENCH_BOARDS` is listed, shows its
/// jumpers and runs with `--board NAME` (here up to the probe it needs),
/// with no rebuild; a board bench builds no firmware for asks for yours;
/// an unknown one names those there are.
#[test]
fn a_board_is_its_profile_with_no_rebuild() {
    let dir = temp_dir("own-board");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("hil/boards/stm32.toml");
    let stm32 = std::fs::read_to_string(shipped).expect("read stm32.toml");
    let f411 = stm32
        .replace("chip = \"STM32F401RETx\"", "chip = \"STM32F411RETx\"")
        .replace("core_clock_hz = 84_000_000", "core_clock_hz = 100_000_000")
        .replace("description = \"NUCLEO-F401RE", "description = \"NUCLEO-F411RE");
    assert_ne!(f411, stm32);
    std::fs::write(dir.join("f411.toml"), f411).expect("write f411.toml");
    let listed = bench_with_boards(&["boards"], &dir);
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed));
    assert!(text(&listed).contains("STM32F411RETx") && text(&listed).contains("100 MHz"), "{}", text(&listed));
    let wiring = bench_with_boards(&["hil", "--board", "f411", "--wiring"], &dir);
    assert_eq!(wiring.status.code(), Some(0), "{}", text(&wiring));
    assert!(text(&wiring).contains("white  PC0"), "{}", text(&wiring));
    if std::env::var_os("BENCH_PROBE_ATTACHED").is_none() {
        let image = reference_firmware_stm32();
        let image = image.to_str().expect("utf-8");
        let run = bench_with_boards(&["hil", "--board", "f411", "--scenario", "blitz-3-2", "--firmware", image], &dir);
        assert_eq!(run.status.code(), Some(3), "{}", text(&run));
        assert!(text(&run).contains("no debug probe found"), "{}", text(&run));
    }
    let unknown = bench_with_boards(&["hil", "--board", "stm32", "--wiring"], &dir);
    assert_eq!(unknown.status.code(), Some(2), "{}", text(&unknown));
    assert!(text(&unknown).contains("no board named `stm32`") && text(&unknown).contains("f411"));
    // A profile without [firmware] (here the Pico's, its table taken out):
    // bench builds no image for it and asks for yours.
    let pico = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("hil/boards/pico.toml"))
        .expect("read pico.toml");
    let table = pico.find("[firmware]\n").expect("pico.toml has a [firmware] table");
    let table_end = pico[table..].find("\n\n").map_or(pico.len(), |end| table + end + 2);
    std::fs::write(dir.join("own-pico.toml"), format!("{}{}", &pico[..table], &pico[table_end..]))
        .expect("write own-pico.toml");
    let no_image = bench_with_boards(&["hil", "--board", "own-pico", "--scenario", "blitz-3-2"], &dir);
    assert_eq!(no_image.status.code(), Some(2), "{}", text(&no_image));
    assert!(text(&no_image).contains("no reference firmware for board `own-pico`"), "{}", text(&no_image));
}

#[test]
fn boards_lists_one_line_per_profile() {
    let output = bench(&["boards"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let qemu = stdout.lines().find(|line| line.starts_with("qemu ")).expect("a qemu line");
    assert!(qemu.contains("lm3s6965evb"), "{stdout}");
    let stm32 = stdout.lines().find(|line| line.starts_with("stm32 ")).expect("an stm32 line");
    assert!(stm32.contains("STM32F401RETx") && stm32.contains("84 MHz") && stm32.contains("NUCLEO-F401RE"), "{stdout}");
    let qemu = stdout.lines().find(|line| line.starts_with("qemu ")).expect("a qemu line");
    assert!(qemu.contains("lm3s6965evb") && qemu.contains(" 12.5 MHz"), "{stdout}");
    for (chip, board) in [("nRF52840_xxAA", "nRF52840 DK"), ("RP2040", "Raspberry Pi Pico")] {
        assert!(stdout.lines().any(|line| line.contains(chip) && line.contains(board)), "{chip}: {stdout}");
    }
}

#[test]
fn wiring_prints_the_jumper_list() {
    let output = bench(&["hil", "--board", "stm32", "--wiring"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    for jumper in ["white  PC0 [A5 (CN8 pin 6)] -> PA0 [A0 (CN8 pin 1)]", "black  PC1", "pause  PB0"] {
        assert!(stdout.contains(jumper), "{jumper}: {stdout}");
    }
    let output = bench(&["hil", "--board", "qemu", "--wiring"]);
    assert!(String::from_utf8_lossy(&output.stdout).contains("No jumpers"), "{}", text(&output));
}

#[test]
fn no_probe_attached_exits_3_and_says_what_to_do() {
    if std::env::var_os("BENCH_PROBE_ATTACHED").is_some() {
        return;
    }
    reference_firmware_stm32();
    let output = bench(&["hil", "--board", "stm32"]);
    let all = text(&output);
    assert_eq!(output.status.code(), Some(3), "{all}");
    assert!(all.contains("no debug probe found (found: nothing)"), "{all}");
    assert!(all.contains("NUCLEO-F401RE") && all.contains("ST-LINK"), "{all}");
    assert!(all.contains("`bench hil --board qemu` runs the same games without hardware"), "{all}");
    // Naming a probe that is not there: the same advice, and what was asked for.
    let output = bench(&["hil", "--board", "stm32", "--probe", "0483:374b:NOPE"]);
    let all = text(&output);
    assert_eq!(output.status.code(), Some(3), "{all}");
    assert!(all.contains("no debug probe matches --probe 0483:374b:NOPE (found: nothing)"), "{all}");
}

#[test]
fn bad_selectors_and_wrong_images_are_usage_errors() {
    reference_firmware_stm32();
    for (args, said) in [
        (vec!["hil", "--board", "stm32", "--probe", "0483"], "VID:PID"),
        (vec!["hil", "--board", "stm32", "--firmware", "Cargo.toml"], "not an ELF file"),
        (vec!["hil", "--board", "qemu", "--probe", "0483:374b"], "QEMU needs none"),
        (vec!["hil", "--board", "qemu", "--firmware", "Cargo.toml"], "not an ELF file"),
        // A misspelt chip is not a missing board: found before any probe is looked for.
        (vec!["hil", "--board", "stm32", "--chip", "NO-SUCH-CHIP"], "--chip: probe-rs knows no chip `NO-SUCH-CHIP`"),
    ] {
        let output = bench(&args);
        let all = text(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {all}");
        assert!(all.contains(said), "{args:?}: {all}");
    }
}

/// The reference image with one header field overwritten, the way a
/// corrupt copy or a broken post-link step leaves it.
fn corrupted(dir: &Path, name: &str, at: usize, value: &[u8]) -> String {
    let mut bytes = std::fs::read(reference_firmware()).expect("the reference image");
    bytes[at..at + value.len()].copy_from_slice(value);
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write the corrupt image");
    path.to_str().expect("utf-8").to_string()
}

/// An image QEMU or a probe could not run is refused before either is
/// started (exit 2, the file and the fault named, no report), not found
/// out half-way as an emulator failure (exit 3).
#[test]
fn a_corrupt_firmware_image_is_refused_before_anything_runs() {
    let dir = temp_dir("corrupt-images");
    let out = dir.join("report");
    let out = out.to_str().expect("utf-8");
    for (name, at, value, says) in [
        ("phnum.elf", 44, 0xFFFFu16.to_le_bytes().to_vec(), "has e_phnum = 0xffff (PN_XNUM"),
        ("phoff.elf", 28, 0x7FFF_FFF0u32.to_le_bytes().to_vec(), "past the end of the file"),
        ("machine.elf", 18, 62u16.to_le_bytes().to_vec(), "another machine (e_machine 62, Arm is 40)"),
        ("class.elf", 4, vec![2], "is a 64-bit ELF file"),
    ] {
        let elf = corrupted(&dir, name, at, &value);
        let output = bench(&["hil", "--firmware", &elf, "--scenario", "blitz-3-2", "--out", out]);
        let all = text(&output);
        assert_eq!(output.status.code(), Some(2), "{name}: {all}");
        assert!(all.contains(&format!("--firmware {elf} ")) && all.contains(says), "{name} should say {says:?}: {all}");
        assert!(!dir.join("report").exists(), "{name}: nothing runs, no report: {all}");
    }
}

/// OpenOCD from Debian's packages, started with no debug adapter, refuses
/// to serve: it says why and exits, and nothing listens on its GDB port.
/// `bench hil --gdb` to that port ends with exit 3 and says what to start
/// for the board, not a bare "connection refused".
#[test]
fn a_gdb_server_that_refuses_to_start_is_explained() {
    let image = reference_firmware_stm32();
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("an address").port();
    let openocd = Command::new("openocd")
        .args(["-c", &format!("gdb_port {port}"), "-c", "tcl_port disabled", "-c", "telnet_port disabled"])
        .output()
        .expect("openocd runs (scripts/install-deps installs it)");
    let said = String::from_utf8_lossy(&openocd.stderr).into_owned();
    assert!(said.contains("Debug Adapter has to be specified"), "openocd's refusal: {said}");
    let dir = temp_dir("openocd-refused");
    let out = dir.join("report");
    let address = format!("127.0.0.1:{port}");
    let args = ["hil", "--board", "stm32", "--gdb", &address, "--scenario", "blitz-3-2"];
    let firmware = ["--firmware", image.to_str().expect("utf-8"), "--out", out.to_str().expect("utf-8")];
    let output = bench(&[&args[..], &firmware[..]].concat());
    let all = text(&output);
    assert_eq!(output.status.code(), Some(3), "{all}");
    assert!(all.contains(&format!("GDB server at {address}")), "{all}");
    assert!(all.contains("start the server first, e.g. `openocd -f board/st_nucleo_f4.cfg`"), "{all}");
    assert!(out.join("report.json").is_file(), "a partial report: {all}");
}
