//! What the command-line tests share: running `bench` as a user would (from
//! the project root, on the shipped scenarios) and a scratch folder per test.

// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `bench ARGS` from the project root, on the shipped scenarios, with extra
/// environment variables.
pub fn bench_in(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bench"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("BENCH_SCENARIOS", Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"));
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("bench runs")
}

/// `bench ARGS` from the project root, on the shipped scenarios.
pub fn bench(args: &[&str]) -> Output {
    bench_in(args, &[])
}

/// Everything a command printed: stdout, then stderr.
pub fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// An empty scratch folder for one test, named after the test file, the
/// process and `name`, so parallel tests and runs never share one.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bench-{}-{}-{name}", env!("CARGO_CRATE_NAME"), std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// Report folders that exist but cannot take a file, checked by the test
/// itself: a folder without write permission (no use as root, who may
/// write anyway) and sysfs's `/sys/kernel` (refused even to root). At
/// least one must be unwritable here, so the test cannot pass untested.
pub fn unwritable_folders(scratch: &Path) -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let read_only = scratch.join("read-only");
    std::fs::create_dir_all(&read_only).unwrap();
    std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o555)).unwrap();
    let writable = |dir: &Path| {
        let probe = dir.join("probe-by-the-test");
        let made = std::fs::write(&probe, "").is_ok();
        let _ = std::fs::remove_file(&probe);
        made
    };
    let folders: Vec<_> =
        [read_only, "/sys/kernel".into()].into_iter().filter(|dir| dir.is_dir() && !writable(dir)).collect();
    assert!(!folders.is_empty(), "no unwritable folder to test with: neither a 0555 folder nor /sys/kernel");
    folders
}

/// The reference firmware image: `$BENCH_FIRMWARE_DIR/normal.elf`, else
/// the one `scripts/build-firmware` builds (seconds when nothing changed).
pub fn reference_firmware() -> PathBuf {
    // Built once per test process: two builds at once would race on the
    // same output files.
    static IMAGE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    IMAGE.get_or_init(|| build_reference_firmware(&[])).clone()
}

/// The NUCLEO-F401RE build of the reference firmware, where `bench hil
/// --board stm32` looks for it by default (`scripts/build-firmware --board
/// stm32 normal`): a test of that board must not depend on another test,
/// or an earlier run, having built it.
pub fn reference_firmware_stm32() -> PathBuf {
    static IMAGE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    IMAGE.get_or_init(|| build_reference_firmware(&["--board", "stm32"])).clone()
}

fn build_reference_firmware(board: &[&str]) -> PathBuf {
    if let Some(dir) = std::env::var_os("BENCH_FIRMWARE_DIR").filter(|_| board.is_empty()) {
        return PathBuf::from(dir).join("normal.elf");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(root.join("scripts/build-firmware"))
        .args(board)
        .arg("normal")
        .current_dir(root)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("scripts/build-firmware runs");
    assert!(output.status.success(), "scripts/build-firmware failed:\n{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().find(|line| line.ends_with("/normal.elf")).expect("the image's path is printed");
    PathBuf::from(line)
}

/// The C example firmware's folder (`firmware/c-example/`).
pub fn c_example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("firmware/c-example")
}

/// The superloop firmware's folder (`firmware/c-superloop/`).
pub fn c_superloop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("firmware/c-superloop")
}

/// Builds the C example from `source` (a folder like the C example's) into
/// `build`, with the tree's `bench_contract.h`; the image.
pub fn make_c_firmware(source: &Path, build: &Path) -> PathBuf {
    make_c_image(source, build, "c-example.elf")
}

/// Builds a C firmware from `source` (a folder with a Makefile taking
/// `BUILD=` and `CONTRACT=`, as the C example's) into `build`, with the
/// tree's `bench_contract.h`; the image, `build/IMAGE`.
pub fn make_c_image(source: &Path, build: &Path, image: &str) -> PathBuf {
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("hil/contract/include");
    let mut make = Command::new("make");
    make.arg("-C").arg(source).arg(format!("BUILD={}", build.display())).arg(format!("CONTRACT={}", include.display()));
    let output = match make.output() {
        Ok(output) => output,
        Err(error) => panic!("`make` cannot run ({error}): install the Debian package make (scripts/install-deps)"),
    };
    assert!(
        output.status.success(),
        "`make -C {}` failed (arm-none-eabi-gcc comes with gcc-arm-none-eabi, scripts/install-deps):\n{}",
        source.display(),
        text(&output)
    );
    let elf = build.join(image);
    assert!(elf.is_file(), "`make -C {}` built no {}", source.display(), elf.display());
    elf
}

/// The C example with faults planted in a copy of its source under `dir`
/// (each `(file, from, to)` replaces text that occurs exactly once), built;
/// the image. The example itself stays as a team would copy it.
pub fn planted_c_example(dir: &Path, plants: &[(&str, &str, &str)]) -> PathBuf {
    planted_c_firmware(&c_example_dir(), "c-example.elf", dir, plants)
}

/// A C firmware (`source`, building `image`) with faults planted in a copy
/// of its source under `dir` (each `(file, from, to)` replaces text that
/// occurs exactly once), built; the image.
pub fn planted_c_firmware(source: &Path, image: &str, dir: &Path, plants: &[(&str, &str, &str)]) -> PathBuf {
    let copy = dir.join("source");
    copy_dir(source, &copy);
    for (file, from, to) in plants {
        let path = copy.join(file);
        let code = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        assert_eq!(code.matches(from).count(), 1, "{file} holds `{from}` once:\n{code}");
        std::fs::write(&path, code.replace(from, to)).expect("write the planted source");
    }
    make_c_image(&copy, &dir.join("build"), image)
}

/// Copies a folder, leaving out build output.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder for the copy");
    for entry in std::fs::read_dir(from).expect("the folder to copy") {
        let entry = entry.expect("a folder entry");
        let (path, target) = (entry.path(), to.join(entry.file_name()));
        if entry.file_name() == "build" {
            continue;
        }
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy a file");
        }
    }
}
