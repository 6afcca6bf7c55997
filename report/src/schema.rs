//! The JSON Schemas of `report.json` (`reports/schema/`, one file per
//! schema: `bench.sim.report/1` is `bench.sim.report-1.json`), in tests.
//!
//! Under this crate's `cargo test`, [`crate::sim::write_sim_report`] and
//! [`super::hil::write_hil_report`] pass every `report.json` they write to
//! [`assert_valid`], so every report a unit test produces (the golden run,
//! merged shards, HIL reports of fake runs, hostile strings, …) is checked
//! against its schema. `bench`'s unit tests check the reports its commands
//! write (feature `testing`), and `tests/report_schema.rs` those the
//! `bench` binary writes.
//!
//! The schemas are closed: every object with fixed keys has
//! `additionalProperties: false` and requires every key it lists (checked
//! below). So a field added to, removed from or retyped in a report without
//! its schema, or the other way round, fails the tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::hil;
use crate::sim::report as json;

/// Every report schema bench writes.
pub(crate) const SCHEMAS: [&str; 2] = [json::SCHEMA, hil::SCHEMA];

pub(crate) fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/schema")
}

/// The file of a schema: `bench.sim.report/1` → `bench.sim.report-1.json`.
pub(crate) fn file_name(schema: &str) -> String {
    format!("{}.json", schema.replace('/', "-"))
}

/// The schema document of `schema` (a name of [`SCHEMAS`]).
pub(crate) fn document(schema: &str) -> Value {
    let path = schema_dir().join(file_name(schema));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// A draft 2020-12 validator of `document`.
pub(crate) fn validator_of(document: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::new(document).unwrap_or_else(|error| panic!("the schema does not compile: {error}"))
}

fn validators() -> &'static BTreeMap<&'static str, jsonschema::Validator> {
    static VALIDATORS: OnceLock<BTreeMap<&'static str, jsonschema::Validator>> = OnceLock::new();
    VALIDATORS.get_or_init(|| SCHEMAS.iter().map(|schema| (*schema, validator_of(&document(schema)))).collect())
}

/// What is wrong with `validator` on `report`, one line per error (empty:
/// valid).
pub(crate) fn errors_with(validator: &jsonschema::Validator, report: &Value) -> Vec<String> {
    validator.iter_errors(report).map(|error| format!("at `{}`: {error}", error.instance_path())).collect()
}

/// What is wrong with `report` against the schema its `schema` field names.
pub fn errors(report: &Value) -> Vec<String> {
    let Some(name) = report.get("schema").and_then(Value::as_str) else {
        return vec!["no `schema` string".into()];
    };
    match validators().get(name) {
        Some(validator) => errors_with(validator, report),
        None => vec![format!("`{name}` is not one of the schemas in {}", schema_dir().display())],
    }
}

/// Panics, naming every error, unless `bytes` is a report valid against
/// its schema.
pub fn assert_valid(bytes: &[u8]) {
    let report: Value =
        serde_json::from_slice(bytes).unwrap_or_else(|error| panic!("report.json is not JSON: {error}"));
    let errors = errors(&report);
    let name = report.get("schema").and_then(Value::as_str).unwrap_or("?");
    assert!(
        errors.is_empty(),
        "report.json does not match its schema ({}; update the schema with the report, and \
         reports/README.md):\n  {}",
        schema_dir().join(file_name(name)).display(),
        errors.join("\n  ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden() -> Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/testdata/report.json");
        serde_json::from_slice(&std::fs::read(&path).expect("the golden report")).expect("json")
    }

    #[test]
    fn every_schema_file_is_a_valid_draft_2020_12_schema_of_its_report() {
        for name in SCHEMAS {
            let schema = document(name);
            if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
                panic!("{}: not a valid draft 2020-12 schema: {error}", file_name(name));
            }
            assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema", "{name}");
            assert_eq!(schema["title"], name);
            assert_eq!(schema["properties"]["schema"]["const"], name, "{name} accepts only its own name");
        }
        let files: Vec<String> = std::fs::read_dir(schema_dir())
            .expect("reports/schema")
            .map(|entry| entry.expect("an entry").file_name().to_string_lossy().into_owned())
            .collect();
        for file in &files {
            assert!(SCHEMAS.iter().any(|name| file_name(name) == *file), "{file} is the schema of no report");
        }
    }

    /// Walks every subschema a report value is checked against (not `if`,
    /// whose subschemas only select a branch) and calls `visit` on each.
    fn walk<'a>(path: &str, schema: &'a Value, visit: &mut dyn FnMut(&str, &'a Value)) {
        let Some(object) = schema.as_object() else { return };
        visit(path, schema);
        for keyword in ["properties", "$defs"] {
            if let Some(children) = object.get(keyword).and_then(Value::as_object) {
                for (name, child) in children {
                    walk(&format!("{path}/{keyword}/{name}"), child, visit);
                }
            }
        }
        for keyword in ["oneOf", "anyOf", "allOf", "prefixItems"] {
            if let Some(children) = object.get(keyword).and_then(Value::as_array) {
                for (index, child) in children.iter().enumerate() {
                    walk(&format!("{path}/{keyword}/{index}"), child, visit);
                }
            }
        }
        for keyword in ["items", "additionalProperties", "then", "else"] {
            if let Some(child) = object.get(keyword) {
                walk(&format!("{path}/{keyword}"), child, visit);
            }
        }
    }

    /// The property that makes the tests fail when a report and its schema
    /// drift apart: an object with fixed keys accepts no other key and
    /// needs every one it lists; a map (`additionalProperties` a schema)
    /// says what its keys are.
    #[test]
    fn every_object_with_fixed_keys_is_closed_and_requires_every_key() {
        for name in SCHEMAS {
            let schema = document(name);
            let mut objects = 0;
            walk("#", &schema, &mut |path, node| {
                if node.get("type") != Some(&Value::from("object")) {
                    return;
                }
                objects += 1;
                match (node.get("properties").and_then(Value::as_object), node.get("additionalProperties")) {
                    (Some(properties), Some(Value::Bool(false))) => {
                        let mut listed: Vec<&str> = properties.keys().map(String::as_str).collect();
                        let mut required: Vec<&str> = node
                            .get("required")
                            .and_then(Value::as_array)
                            .map(|keys| keys.iter().filter_map(Value::as_str).collect())
                            .unwrap_or_default();
                        listed.sort_unstable();
                        required.sort_unstable();
                        assert_eq!(listed, required, "{name} {path}: every listed key is required, no other");
                    }
                    (None, Some(Value::Object(_))) => {
                        assert!(node.get("propertyNames").is_some(), "{name} {path}: a map says what its keys are");
                    }
                    _ => panic!("{name} {path}: an object is either closed (additionalProperties: false) or a map"),
                }
            });
            assert!(objects > 10, "{name}: the walk found {objects} objects");
        }
    }

    #[test]
    fn the_golden_report_matches_its_schema() {
        let errors = errors(&golden());
        assert!(errors.is_empty(), "src/report/testdata/report.json:\n  {}", errors.join("\n  "));
    }

    fn edited(report: &Value, edit: impl FnOnce(&mut Value)) -> Value {
        let mut report = report.clone();
        edit(&mut report);
        report
    }

    fn remove(value: &mut Value, key: &str) {
        if let Some(object) = value.as_object_mut() {
            object.remove(key);
        }
    }

    /// A report that says more, less or other than its schema fails, and
    /// the error names where.
    #[test]
    fn a_report_that_differs_from_its_schema_fails() {
        let report = golden();
        let cases: Vec<(&str, Value, &str)> = vec![
            ("a new field", edited(&report, |r| r["wall_ms"] = 12.into()), "wall_ms"),
            ("a new nested field", edited(&report, |r| r["games"]["skipped"] = 0.into()), "/games"),
            ("a field removed", edited(&report, |r| remove(r, "run_hash")), "run_hash"),
            ("a nested field removed", edited(&report, |r| remove(&mut r["options"], "max_moves")), "max_moves"),
            ("a field retyped", edited(&report, |r| r["seed"] = "7".into()), "/seed"),
            ("a count made negative", edited(&report, |r| r["presses"] = (-1).into()), "/presses"),
            ("another verdict", edited(&report, |r| r["verdict"] = "flaky".into()), "/verdict"),
            ("an upper-case hash", edited(&report, |r| r["scenario"]["sha256"] = "AB".repeat(32).into()), "/sha256"),
            ("a file not of the report", edited(&report, |r| r["files"]["run.json"] = "0".repeat(64).into()), "/files"),
            (
                "an interrupted run that passes",
                edited(&report, |r| {
                    r["complete"] = false.into();
                    r["verdict"] = "pass".into();
                }),
                "/verdict",
            ),
            ("another version", edited(&report, |r| r["schema"] = "bench.sim.report/2".into()), "not one of"),
        ];
        for (what, value, needle) in cases {
            let errors = errors(&value);
            assert!(!errors.is_empty(), "{what}: accepted");
            assert!(errors.iter().any(|error| error.contains(needle)), "{what}: {errors:?}");
        }
    }

    /// The other way round: a schema that says more, less or other than the
    /// report it describes rejects it.
    #[test]
    fn a_schema_that_differs_from_the_report_fails() {
        let report = golden();
        let schema = document(json::SCHEMA);
        let drop_property = |schema: &mut Value, key: &str| {
            remove(&mut schema["properties"], key);
            if let Some(required) = schema["required"].as_array_mut() {
                required.retain(|name| name != key);
            }
        };
        let cases: Vec<(&str, Value)> = vec![
            ("a property the report lacks", {
                let mut schema = schema.clone();
                schema["properties"]["git_commit"] = serde_json::json!({ "type": "string" });
                if let Some(required) = schema["required"].as_array_mut() {
                    required.push("git_commit".into());
                }
                schema
            }),
            ("a property the report has, dropped", {
                let mut schema = schema.clone();
                drop_property(&mut schema, "events");
                schema
            }),
            ("a property retyped", {
                let mut schema = schema.clone();
                schema["properties"]["swarm"] = serde_json::json!({ "type": "integer" });
                schema
            }),
            ("a nested property renamed", {
                let mut schema = schema.clone();
                let outcomes = &mut schema["properties"]["outcomes"];
                remove(&mut outcomes["properties"], "draw");
                outcomes["properties"]["drawn"] = serde_json::json!({ "$ref": "#/$defs/count" });
                outcomes["required"] = serde_json::json!(["white", "black", "drawn"]);
                schema
            }),
        ];
        assert!(errors_with(&validator_of(&schema), &report).is_empty(), "the schema as it is accepts the report");
        for (what, schema) in cases {
            assert!(!errors_with(&validator_of(&schema), &report).is_empty(), "{what}: the report still validates");
        }
    }
}
