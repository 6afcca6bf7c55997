//! The record tables of `hil/CONTRACT.md` section 3 say what the C header
//! says: every row's offset and type is its field's offset and width in the
//! header's struct for that kind, every table covers its record's bytes
//! exactly once, and every kind the crate knows has a table under its code.
//! `tests/c_header.rs` keeps the header equal to the crate, so the tables
//! are checked against the crate's encoder through it.

use std::path::Path;
use std::process::Command;

use bench_contract::record::OFFSET_PAYLOAD;
use bench_contract::{Kind, RECORD_SIZE};

/// Each kind's name in the table headings (`**2 Press**`) and its header struct.
fn struct_of(kind: Kind) -> (&'static str, &'static str) {
    match kind {
        Kind::Hello => ("Hello", "bench_hello"),
        Kind::Press => ("Press", "bench_press"),
        Kind::Flag => ("Flag", "bench_flag"),
        Kind::Period => ("Period", "bench_period"),
        Kind::Snapshot => ("Snapshot", "bench_snapshot"),
        Kind::TimeBase => ("TimeBase", "bench_time_base"),
        Kind::Ack => ("Ack", "bench_ack"),
        Kind::Capabilities => ("Capabilities", "bench_capabilities"),
    }
}

/// One table row: the struct, the offset, the width of its type, the field.
#[derive(Debug)]
struct Row {
    c_struct: &'static str,
    offset: usize,
    width: usize,
    field: String,
}

/// The width of a table's type: `u8` … `u64`, `i32`, `u8[3]`, `char[16]`.
fn width(type_cell: &str) -> Option<usize> {
    let type_text = type_cell.trim().trim_matches('`');
    let (base, count) = match type_text.split_once('[') {
        Some((base, rest)) => (base, rest.strip_suffix(']')?.parse::<usize>().ok()?),
        None => (type_text, 1),
    };
    let size = match base {
        "u8" | "char" => 1,
        "u16" => 2,
        "u32" | "i32" => 4,
        "u64" => 8,
        _ => return None,
    };
    Some(size * count)
}

/// The rows of section 3's tables, under the struct each heading names.
fn section_3_rows(text: &str) -> Result<Vec<Row>, String> {
    let section = text.split("## 3. Records on `bench`").nth(1).ok_or("no section 3")?;
    let section = section.split("\n## 4.").next().unwrap_or(section);
    let mut rows = Vec::new();
    let mut current: Option<&'static str> = None;
    for line in section.lines() {
        if line.starts_with("### ") {
            current = line.starts_with("### Header").then_some("bench_header");
        }
        if let Some(heading) = line.strip_prefix("**") {
            let (code, name) = heading
                .split_once("**")
                .map(|(title, _)| title)
                .and_then(|title| title.split_once(' '))
                .ok_or(format!("heading {line:?}"))?;
            let kind =
                Kind::ALL.into_iter().find(|kind| struct_of(*kind).0 == name).ok_or(format!("no kind {name:?}"))?;
            if code.parse::<u8>().ok() != Some(kind.code()) {
                return Err(format!("heading {line:?}: the crate's code for {name} is {}", kind.code()));
            }
            current = Some(struct_of(kind).1);
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(c_struct), [_, offset, type_cell, field, ..]) = (current, cells.as_slice()) else { continue };
        let Ok(offset) = offset.parse::<usize>() else { continue }; // the heading row and its rule
        let width = width(type_cell).ok_or(format!("{c_struct} at {offset}: type {type_cell:?} has no width"))?;
        let name: String = field.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        rows.push(Row { c_struct, offset, width, field: name });
    }
    Ok(rows)
}

/// Rows of each struct cover 0..16 (header) or 16..48 (a kind) exactly.
fn coverage_problems(rows: &[Row]) -> Vec<String> {
    let mut problems = Vec::new();
    let structs = std::iter::once("bench_header").chain(Kind::ALL.into_iter().map(|kind| struct_of(kind).1));
    for c_struct in structs {
        let (mut next, end) =
            if c_struct == "bench_header" { (0, OFFSET_PAYLOAD) } else { (OFFSET_PAYLOAD, RECORD_SIZE) };
        let mut own: Vec<&Row> = rows.iter().filter(|row| row.c_struct == c_struct).collect();
        if own.is_empty() {
            problems.push(format!("{c_struct}: no table"));
            continue;
        }
        own.sort_by_key(|row| row.offset);
        for row in own {
            if row.offset != next {
                problems
                    .push(format!("{c_struct}.{}: at {}, but the row before ends at {next}", row.field, row.offset));
            }
            next = row.offset + row.width;
        }
        if next != end {
            problems.push(format!("{c_struct}: its rows end at {next}, the record at {end}"));
        }
    }
    problems
}

#[test]
fn the_record_tables_match_the_c_header() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../CONTRACT.md");
    let text = std::fs::read_to_string(&path).expect("CONTRACT.md is readable");
    let rows = section_3_rows(&text).unwrap_or_else(|error| panic!("CONTRACT.md section 3: {error}"));
    let problems = coverage_problems(&rows);
    assert!(problems.is_empty(), "CONTRACT.md's record tables:\n  {}", problems.join("\n  "));

    // Reserved rows are only checked for coverage: the header names them
    // reserved, reserved2, … in order.
    let mut source = String::from("#include <stddef.h>\n#include \"bench_contract.h\"\n");
    let named = rows.iter().filter(|row| !row.field.starts_with("reserved"));
    for Row { c_struct, offset, width, field } in named {
        source.push_str(&format!(
            "BENCH_STATIC_ASSERT(offsetof({c_struct}, {field}) == {offset}, \"CONTRACT.md: {c_struct}.{field} at {offset}\");\n\
             BENCH_STATIC_ASSERT(sizeof((({c_struct} *)0)->{field}) == {width}, \"CONTRACT.md: {c_struct}.{field} is {width} bytes\");\n"
        ));
    }
    assert!(rows.len() > 60, "only {} rows found in section 3", rows.len());
    let dir = std::env::temp_dir().join(format!("bench-contract-c-tables-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let file = dir.join("tables.c");
    std::fs::write(&file, &source).expect("write the C source");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let output = match Command::new(&compiler)
        .args(["-std=c11", "-fsyntax-only", "-Wall", "-Werror"])
        .arg(format!("-I{}", include.display()))
        .arg(&file)
        .output()
    {
        Ok(output) => output,
        // Never skipped: a host without a C compiler cannot link Rust
        // either (Debian's rustc depends on gcc; scripts/check installs it).
        Err(error) => panic!("the C compiler `{compiler}` cannot run ({error}): install gcc, or set CC"),
    };
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        output.status.success(),
        "CONTRACT.md's record tables disagree with bench_contract.h (a field's name, offset or width):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
