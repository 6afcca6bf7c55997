//! Every `report.json` the `bench` binary writes here matches its JSON
//! Schema (`reports/schema/`, draft 2020-12): `bench sim` runs of shipped
//! scenarios (a correspondence one among them, since postal games write the
//! same report kind), with and without `--shard`, `--max-moves`, `--swarm`
//! and `--check-determinism`, the merge of two shards, and the incomplete
//! report of a `bench hil` run that found no emulator. (The unit tests
//! validate every report they write the same way, HIL reports of fake runs
//! among them: `report/src/schema.rs`.)

use std::path::Path;

use serde_json::Value;

mod support;
use support::{bench_in, reference_firmware, temp_dir, text};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn path_text(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// The errors of the report in `dir` against the schema its `schema` field
/// names (`bench.sim.report/1` → `reports/schema/bench.sim.report-1.json`).
fn schema_errors(dir: &Path) -> (String, Vec<String>) {
    let path = dir.join("report.json");
    let bytes = std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let report: Value = serde_json::from_slice(&bytes).expect("report.json is JSON");
    let name = report["schema"].as_str().expect("a schema name").to_string();
    let file = root().join("reports/schema").join(format!("{}.json", name.replace('/', "-")));
    let schema: Value = serde_json::from_slice(
        &std::fs::read(&file).unwrap_or_else(|error| panic!("no schema for `{name}`: {}: {error}", file.display())),
    )
    .expect("the schema is JSON");
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let errors =
        validator.iter_errors(&report).map(|error| format!("at `{}`: {error}", error.instance_path())).collect();
    (name, errors)
}

fn assert_valid(dir: &Path, expected_schema: &str) {
    let (name, errors) = schema_errors(dir);
    assert_eq!(name, expected_schema, "{}", dir.display());
    assert!(errors.is_empty(), "{} does not match its schema:\n  {}", dir.display(), errors.join("\n  "));
}

/// Runs `bench sim` writing to `out`; a report is written whether the gate
/// passes (0) or fails (1).
fn sim(out: &Path, args: &[&str]) {
    let mut all = vec!["sim"];
    all.extend(args);
    all.extend(["--out", path_text(out)]);
    let output = bench_in(&all, &[]);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{all:?}: {}", text(&output));
}

#[test]
fn bench_sim_reports_of_shipped_scenarios_match_the_schema() {
    let dir = temp_dir("sim");
    let runs: [(&str, &[&str]); 5] = [
        ("both-flags", &["--scenario", "both-flags", "--games", "4"]),
        ("postal", &["--scenario", "correspondence-first-overstep", "--games", "3"]),
        ("postal-loss", &["--scenario", "correspondence-loss-at-first", "--games", "2", "--seed", "9"]),
        ("defects-swarm", &["--scenario", "defects", "--games", "4", "--swarm", "--check-determinism"]),
        ("legal", &["--scenario", "legal-blitz", "--games", "2", "--max-moves", "12", "--no-tick-oracle"]),
    ];
    for (name, args) in runs {
        let out = dir.join(name);
        sim(&out, args);
        assert_valid(&out, "bench.sim.report/1");
    }
    let read = |name: &str| -> Value {
        serde_json::from_slice(&std::fs::read(dir.join(name).join("report.json")).expect("read")).expect("json")
    };
    let legal = read("legal");
    assert_eq!(legal["options"]["max_moves"], 12, "a non-null max_moves was validated");
    // `--no-tick-oracle`, the old name of `--no-model-oracle`, still switches the model off.
    assert_eq!(legal["options"]["tick_oracle"], false);
    assert_eq!(legal["oracle_coverage"]["calls_checked"], 0, "{}", legal["oracle_coverage"]);
    // By default the independent model checks every call of every game.
    let coverage = &read("both-flags")["oracle_coverage"];
    assert_eq!(coverage["games"], 4, "{coverage}");
    assert_eq!(coverage["games_checked"], coverage["games"], "{coverage}");
    assert!(coverage["calls"].as_u64().is_some_and(|calls| calls > 0), "{coverage}");
    assert_eq!(coverage["calls_checked"], coverage["calls"], "{coverage}");
    assert_eq!(read("postal")["oracle_coverage"]["games"], 0, "a postal game has no chess clock");
}

#[test]
fn shard_and_merged_reports_match_the_schema() {
    let dir = temp_dir("shards");
    let shards = [dir.join("shard-1"), dir.join("shard-2")];
    for (index, out) in shards.iter().enumerate() {
        let shard = format!("{}/2", index + 1);
        sim(out, &["--scenario", "blitz-3-2", "--games", "6", "--shard", &shard, "--max-moves", "20"]);
        assert_valid(out, "bench.sim.report/1");
    }
    let merged = dir.join("merged");
    let output =
        bench_in(&["report", "merge", path_text(&shards[0]), path_text(&shards[1]), "--out", path_text(&merged)], &[]);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", text(&output));
    assert_valid(&merged, "bench.sim.report/1");
    // A partial merge is marked incomplete in the same schema.
    let partial = dir.join("partial");
    let output = bench_in(&["report", "merge", "--partial", path_text(&shards[1]), "--out", path_text(&partial)], &[]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert_valid(&partial, "bench.sim.report/1");
}

/// No emulator on the PATH: `bench hil` still writes a whole report, marked
/// incomplete, and that one must match the schema too.
#[test]
fn an_incomplete_bench_hil_report_matches_the_schema() {
    let dir = temp_dir("hil");
    // A real image: --firmware is checked before the emulator is looked for.
    let elf = reference_firmware();
    let no_tools = dir.join("bin");
    std::fs::create_dir_all(&no_tools).expect("mkdir");
    let out = dir.join("report");
    let args =
        ["hil", "--scenario", "blitz-3-2", "--firmware", path_text(&elf), "--games", "2", "--out", path_text(&out)];
    let output = bench_in(&args, &[("PATH", &no_tools)]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    assert_valid(&out, "bench.hil.report/1");
    for file in ["index.html", "junit.xml", "summary.md", "drift.svg", "drift.png"] {
        assert!(out.join(file).is_file(), "{file}");
    }
}

/// The test above can fail: the same report with a field the schema does
/// not know, or without one it requires, is refused.
#[test]
fn a_report_with_a_field_added_or_removed_does_not_match() {
    let dir = temp_dir("mismatch");
    let out = dir.join("report");
    sim(&out, &["--scenario", "both-flags", "--games", "2"]);
    let path = out.join("report.json");
    let original: Value = serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
    for (what, edit) in [
        ("added", (|report: &mut Value| report["wall_ms"] = 1.into()) as fn(&mut Value)),
        ("removed", |report: &mut Value| {
            if let Some(object) = report.as_object_mut() {
                object.remove("run_hash");
            }
        }),
        ("added to oracle_coverage", |report: &mut Value| report["oracle_coverage"]["calls_missed"] = 0.into()),
    ] {
        let mut report = original.clone();
        edit(&mut report);
        std::fs::write(&path, serde_json::to_vec_pretty(&report).expect("json")).expect("write");
        let (_, errors) = schema_errors(&out);
        assert!(!errors.is_empty(), "a field {what}: still valid");
    }
}
