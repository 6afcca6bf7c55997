//! The one table of the files a report folder holds ([`FILES`]): each
//! file's name, what `report.json` says of it, and how each report kind
//! that writes it renders it. Every kind's writer goes through the table
//! ([`write_folder`]), so a new format is one renderer file and one row.
//!
//! **Order:** the table's order is the order files are written in. A
//! renderer may read the files before it ([`Written::text`]: `index.html`
//! shows the SVG plots inline), and `report.json` comes after every file
//! it names, since it carries their SHA-256.
//!
//! A new file `report.json` names is also a key of its schema's `files`
//! (`reports/schema/`); a test here holds the table and the schemas
//! together.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};

use crate::postal::PostalGame;
use crate::{atomic, hil, postal, sha256_hex, sim};

pub const REPORT_JSON: &str = "report.json";
pub const SUMMARY_MD: &str = "summary.md";
pub const DRIFT_SVG: &str = "drift.svg";
pub const DRIFT_PNG: &str = "drift.png";
pub const LATENCY_SVG: &str = "latency.svg";
pub const LATENCY_PNG: &str = "latency.png";
pub const RUN_JSON: &str = "run.json";
pub const INDEX_HTML: &str = "index.html";
pub const JUNIT_XML: &str = "junit.xml";
pub const ACCOUNTING_SVG: &str = "accounting.svg";
pub const ACCOUNTING_PNG: &str = "accounting.png";
pub const TIMELINE_MD: &str = "timeline.md";

/// Every file a report folder holds, in the order it is written.
pub static FILES: &[ReportFile] = &[
    ReportFile {
        name: DRIFT_SVG,
        role: Role::Named,
        sim: Some(Made::Rendered(sim::drift_plot::svg)),
        hil: Some(Made::Rendered(hil::drift_plot::svg)),
        postal: None,
    },
    ReportFile {
        name: DRIFT_PNG,
        role: Role::Named,
        sim: Some(Made::Rendered(sim::drift_plot::png)),
        hil: Some(Made::Rendered(hil::drift_plot::png)),
        postal: None,
    },
    ReportFile {
        name: LATENCY_SVG,
        role: Role::Named,
        sim: None,
        hil: Some(Made::Rendered(hil::latency_plot::svg)),
        postal: None,
    },
    ReportFile {
        name: LATENCY_PNG,
        role: Role::Named,
        sim: None,
        hil: Some(Made::Rendered(hil::latency_plot::png)),
        postal: None,
    },
    ReportFile {
        name: JUNIT_XML,
        role: Role::Named,
        sim: Some(Made::Rendered(sim::junit::render_file)),
        hil: Some(Made::Rendered(hil::junit::render_file)),
        postal: None,
    },
    ReportFile {
        name: SUMMARY_MD,
        role: Role::Named,
        sim: Some(Made::Rendered(sim::summary::render_file)),
        hil: Some(Made::Rendered(hil::summary::render_file)),
        postal: None,
    },
    ReportFile {
        name: INDEX_HTML,
        role: Role::Named,
        sim: Some(Made::Rendered(sim::html::render_file)),
        hil: Some(Made::Rendered(hil::html::render_file)),
        postal: None,
    },
    ReportFile {
        name: REPORT_JSON,
        role: Role::Report,
        sim: Some(Made::Rendered(sim::report::render_file)),
        hil: Some(Made::Rendered(hil::render_report_json)),
        postal: None,
    },
    ReportFile {
        name: ACCOUNTING_SVG,
        role: Role::Unnamed,
        sim: None,
        hil: None,
        postal: Some(Made::Rendered(postal::accounting_svg)),
    },
    ReportFile {
        name: ACCOUNTING_PNG,
        role: Role::Unnamed,
        sim: None,
        hil: None,
        postal: Some(Made::Rendered(postal::accounting_png)),
    },
    ReportFile {
        name: TIMELINE_MD,
        role: Role::Unnamed,
        sim: None,
        hil: None,
        postal: Some(Made::Rendered(postal::timeline_md)),
    },
    ReportFile { name: RUN_JSON, role: Role::Unnamed, sim: Some(Made::Apart), hil: Some(Made::Apart), postal: None },
];

/// One file of a report folder.
pub struct ReportFile {
    pub name: &'static str,
    pub role: Role,
    /// How each kind makes the file; `None`: that kind has no such file.
    pub sim: Option<Made<SimRender>>,
    pub hil: Option<Made<HilRender>>,
    pub postal: Option<Made<PostalRender>>,
}

/// What `report.json` says of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Named in `report.json`'s `files` with its SHA-256.
    Named,
    /// `report.json` itself: removed first and written last, so a folder
    /// that has one holds a whole report.
    Report,
    /// Named by no `report.json`: `run.json` (what varies between runs), a
    /// postal game's files (a postal game has no `report.json`).
    Unnamed,
}

/// How one report kind makes one file.
pub enum Made<R> {
    /// By the renderer `R`, when the report folder is written.
    Rendered(R),
    /// Apart, after the run: `run.json`, by the kind's `write_run_facts`,
    /// since its facts (wall time, host) are known only then.
    Apart,
}

/// A file's content as a renderer gives it.
pub enum Content<'s> {
    Bytes(Vec<u8>),
    /// A writer that creates the file at the path it is given, for
    /// encoders that want a path (the PNG encoder picks the format from
    /// the extension).
    WrittenBy(FileWriter<'s>),
}

/// Creates a file at the path it is given.
pub type FileWriter<'s> = Box<dyn FnOnce(&Path) -> anyhow::Result<()> + 's>;

/// Renders a file of a simulation report, from the files before it.
pub type SimRender = for<'s> fn(&'s sim::Folder, &Written) -> anyhow::Result<Content<'s>>;
/// Renders a file of a hardware-in-the-loop report.
pub type HilRender = for<'s, 'i> fn(&'s hil::Folder<'i>, &Written) -> anyhow::Result<Content<'s>>;
/// Renders a file of a postal game.
pub type PostalRender = for<'s, 'g> fn(&'s PostalGame<'g>, &Written) -> anyhow::Result<Content<'s>>;

/// What a report kind's files are rendered from: the kind's side of
/// [`FILES`].
pub trait Source {
    /// Whether this kind renders `file` when its folder is written.
    fn renders(file: &ReportFile) -> bool;
    /// `file` as this kind renders it; `None` when [`Source::renders`] is false.
    fn render<'s>(&'s self, file: &ReportFile, written: &Written) -> Option<anyhow::Result<Content<'s>>>;
}

impl Source for sim::Folder {
    fn renders(file: &ReportFile) -> bool {
        matches!(file.sim, Some(Made::Rendered(_)))
    }

    fn render<'s>(&'s self, file: &ReportFile, written: &Written) -> Option<anyhow::Result<Content<'s>>> {
        match file.sim {
            Some(Made::Rendered(render)) => Some(render(self, written)),
            _ => None,
        }
    }
}

impl Source for hil::Folder<'_> {
    fn renders(file: &ReportFile) -> bool {
        matches!(file.hil, Some(Made::Rendered(_)))
    }

    fn render<'s>(&'s self, file: &ReportFile, written: &Written) -> Option<anyhow::Result<Content<'s>>> {
        match file.hil {
            Some(Made::Rendered(render)) => Some(render(self, written)),
            _ => None,
        }
    }
}

impl Source for PostalGame<'_> {
    fn renders(file: &ReportFile) -> bool {
        matches!(file.postal, Some(Made::Rendered(_)))
    }

    fn render<'s>(&'s self, file: &ReportFile, written: &Written) -> Option<anyhow::Result<Content<'s>>> {
        match file.postal {
            Some(Made::Rendered(render)) => Some(render(self, written)),
            _ => None,
        }
    }
}

/// The files of a folder written so far, in order: each one's path and
/// bytes, and its role.
#[derive(Default)]
pub struct Written {
    files: Vec<(&'static ReportFile, PathBuf, Vec<u8>)>,
}

impl Written {
    /// The text of `name`, a file written before the one being rendered.
    pub fn text(&self, name: &str) -> anyhow::Result<&str> {
        let (_, path, bytes) = self
            .files
            .iter()
            .find(|(file, _, _)| file.name == name)
            .ok_or_else(|| anyhow!("{name} is not written before the file that shows it (files::FILES)"))?;
        std::str::from_utf8(bytes).with_context(|| format!("{} is not text", path.display()))
    }

    /// The SHA-256 of every [`Role::Named`] file written, by name:
    /// `report.json`'s `files`.
    pub fn hashes(&self) -> BTreeMap<String, String> {
        self.files
            .iter()
            .filter(|(file, _, _)| file.role == Role::Named)
            .map(|(file, _, bytes)| (file.name.to_string(), sha256_hex(bytes)))
            .collect()
    }

    /// The paths written, in order.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.files.iter().map(|(_, path, _)| path.clone()).collect()
    }
}

/// Writes every file `folder`'s kind renders into `dir` (created if
/// missing), atomically and in [`FILES`]' order. A kind with a
/// `report.json` has it removed first: until the new one is in place the
/// folder does not look like a whole report.
pub fn write_folder<S: Source>(dir: &Path, folder: &S) -> anyhow::Result<Written> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating the report folder {}", dir.display()))?;
    for file in FILES.iter().filter(|file| file.role == Role::Report && S::renders(file)) {
        atomic::remove_if_exists(dir, file.name)?;
    }
    let mut written = Written::default();
    for file in FILES {
        let Some(content) = folder.render(file, &written) else { continue };
        let (path, bytes) = match content? {
            Content::Bytes(bytes) => (atomic::write_bytes(dir, file.name, &bytes)?, bytes),
            Content::WrittenBy(write) => {
                let path = atomic::write_with(dir, file.name, write)?;
                let bytes = std::fs::read(&path).with_context(|| format!("reading back {}", path.display()))?;
                (path, bytes)
            }
        };
        written.files.push((file, path, bytes));
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names are unique, and `report.json` comes after every file it names.
    #[test]
    fn each_file_once_and_report_json_after_what_it_names() {
        let names: std::collections::BTreeSet<_> = FILES.iter().map(|file| file.name).collect();
        assert_eq!(names.len(), FILES.len());
        let report = FILES.iter().position(|file| file.role == Role::Report).expect("report.json");
        assert!(FILES[report + 1..].iter().all(|file| file.role != Role::Named));
    }

    /// Each kind's JSON Schema requires in `files` exactly what the table
    /// names for that kind, so a new row cannot be missed in the schema.
    #[test]
    fn the_schemas_name_the_files_the_table_names() {
        type Renders = fn(&ReportFile) -> bool;
        let kinds: [(&str, Renders); 2] = [
            (sim::report::SCHEMA, <sim::Folder as Source>::renders),
            (hil::SCHEMA, <hil::Folder<'static> as Source>::renders),
        ];
        for (schema, renders) in kinds {
            let document = crate::schema::document(schema);
            let required: std::collections::BTreeSet<&str> = document["properties"]["files"]["required"]
                .as_array()
                .expect("`files` lists its required names")
                .iter()
                .filter_map(serde_json::Value::as_str)
                .collect();
            let named = FILES.iter().filter(|file| file.role == Role::Named && renders(file)).map(|file| file.name);
            assert_eq!(required, named.collect(), "{schema}");
        }
    }

    /// Only `run.json` is written apart, by both kinds that have one.
    #[test]
    fn only_run_json_is_written_apart() {
        for file in FILES {
            let apart = [matches!(file.sim, Some(Made::Apart)), matches!(file.hil, Some(Made::Apart))];
            assert_eq!(apart, [file.name == RUN_JSON; 2], "{}", file.name);
            assert!(!matches!(file.postal, Some(Made::Apart)), "{}", file.name);
        }
    }
}
