//! The C structs of `hil/CONTRACT.md` compile, and their offsets are the
//! ones the Rust encoder writes: the document's `_Static_assert`s plus one
//! per field checked here, compiled by the host's C compiler (`cc`).

use std::path::Path;
use std::process::Command;

/// The C block of section 3 (the one that includes `<stdint.h>`).
fn record_structs() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../CONTRACT.md");
    let text = std::fs::read_to_string(&path).expect("CONTRACT.md is readable");
    text.split("```c\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .find(|block| block.contains("#include <stdint.h>"))
        .expect("CONTRACT.md has the record structs in a ```c block")
        .to_string()
}

/// Offsets the encoder in `src/record.rs` uses (pinned there by golden bytes).
const OFFSETS: &[(&str, &str, usize)] = &[
    ("bench_header", "at_us", 8),
    ("bench_hello", "contract_version", 16),
    ("bench_hello", "firmware_name", 40),
    ("bench_press", "result", 16),
    ("bench_press", "bounces", 18),
    ("bench_press", "moves", 20),
    ("bench_press", "remaining_us", 24),
    ("bench_press", "handled_at_us", 32),
    ("bench_press", "edge_hw_counter", 40),
    ("bench_flag", "observed_at_us", 24),
    ("bench_flag", "moves", 32),
    ("bench_time_base", "hw_counter", 16),
    ("bench_time_base", "flags", 28),
    ("bench_ack", "initial_us", 24),
];

#[test]
fn the_documented_c_structs_match_the_encoder() {
    let mut source = record_structs();
    for (name, field, offset) in OFFSETS {
        source.push_str(&format!("_Static_assert(offsetof({name}, {field}) == {offset}, \"{name}.{field}\");\n"));
    }
    for name in ["bench_hello", "bench_press", "bench_flag", "bench_period", "bench_snapshot", "bench_time_base"] {
        source.push_str(&format!("_Static_assert(sizeof({name}) == 48, \"{name} size\");\n"));
    }
    let dir = std::env::temp_dir().join(format!("bench-contract-c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let file = dir.join("contract.c");
    std::fs::write(&file, &source).expect("write the C source");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let output =
        match Command::new(&compiler).args(["-std=c11", "-fsyntax-only", "-Wall", "-Werror"]).arg(&file).output() {
            Ok(output) => output,
            // Never skipped: a host without a C compiler cannot link Rust
            // either (Debian's rustc depends on gcc; scripts/check installs it).
            Err(error) => panic!("the C compiler `{compiler}` cannot run ({error}): install gcc, or set CC"),
        };
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        output.status.success(),
        "CONTRACT.md's C structs disagree with the encoder:\n{}\n{source}",
        String::from_utf8_lossy(&output.stderr)
    );
}
