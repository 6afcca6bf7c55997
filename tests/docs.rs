//! The project's documents as a new user reads them: the README's first
//! steps say what they do, and no file cites a document that is not there.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The README's fresh-machine section keeps its two commands (the main
/// job, every test) and says where `bench` is after the first one and
/// that its first build takes minutes.
#[test]
fn the_readme_says_where_bench_is_after_the_first_command() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let start = readme.find("## On a fresh machine").expect("the fresh-machine section");
    let end = readme[start..].find("\n## Commands").map_or(readme.len(), |end| start + end);
    let section = &readme[start..end];
    let main_job = section.find("\n    cargo run --release -- sim --scenario both-flags\n").expect("the main job");
    let tests = section.find("\n    scripts/check\n").expect("the tests");
    let between = &section[main_job..tests];
    let binary = Path::new(env!("CARGO_BIN_EXE_bench")).file_name().expect("a binary").to_string_lossy();
    assert!(between.contains(&format!("`target/release/{binary}`")), "where the binary is:\n{between}");
    assert!(between.contains("several minutes"), "how long the first build takes:\n{between}");
}

/// Every document a file cites by name (`ARCHITECTURE.md`, `CONTRACT.md`,
/// …: a capitalised name) exists somewhere in the project. `hil/src/judge/drift.rs`
/// and `hil/CONTRACT.md` cited a `DESIGN.md` there never was.
#[test]
fn every_document_cited_by_name_exists() {
    let mut files = Vec::new();
    collect(root(), &mut files);
    let names: Vec<String> =
        files.iter().filter_map(|file| file.file_name().map(|name| name.to_string_lossy().into_owned())).collect();
    let mut missing = Vec::new();
    // This file names the missing document it was written for.
    let this_file = Path::new(file!()).file_name();
    let scanned = files.iter().filter(|file| {
        file.extension().is_some_and(|extension| extension == "rs" || extension == "md")
            && file.file_name() != this_file
    });
    for file in scanned {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        for cited in cited_documents(&text) {
            if !names.contains(&cited) && !OUTSIDE_THE_PROJECT.contains(&cited.as_str()) {
                missing.push(format!("{} cites {cited}", file.strip_prefix(root()).unwrap_or(file).display()));
            }
        }
    }
    assert!(missing.is_empty(), "documents that do not exist:\n{}", missing.join("\n"));
}

/// Documents cited by path outside the repository: the translation of the
/// FIDE Laws the rules were written from (`../shared/seeds/TRANSLATION.md`).
const OUTSIDE_THE_PROJECT: [&str; 1] = ["TRANSLATION.md"];

/// The project's files, without build output, git's own or the ignored
/// report folders.
fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if !matches!(name.to_str(), Some("target" | ".git" | "reports" | "mutants")) {
                collect(&path, files);
            }
        } else {
            files.push(path);
        }
    }
}

/// Names like `DESIGN.md`: capitals, digits and `_` before `.md`.
fn cited_documents(text: &str) -> Vec<String> {
    let mut cited = Vec::new();
    for (index, _) in text.match_indices(".md") {
        let stem: String = text[..index]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let after = text[index + 3..].chars().next();
        if stem.len() >= 3
            && stem.starts_with(|c: char| c.is_ascii_uppercase())
            && !after.is_some_and(char::is_alphanumeric)
        {
            cited.push(format!("{stem}.md"));
        }
    }
    cited
}

#[test]
fn a_cited_document_is_a_capitalised_name() {
    assert_eq!(cited_documents("see DESIGN.md, \"x\"; ARCHITECTURE.md."), ["DESIGN.md", "ARCHITECTURE.md"]);
    assert!(cited_documents("summary.md timeline.md README.mdx").is_empty());
}

/// ARCHITECTURE.md is the short map of what rarely changes; a module's
/// details go to its `//!` docs. It once grew to 625 lines, partly false.
const ARCHITECTURE_LINES_MAX: usize = 250;

#[test]
fn the_architecture_map_stays_short() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let lines = text.lines().count();
    assert!(
        lines <= ARCHITECTURE_LINES_MAX,
        "ARCHITECTURE.md has {lines} lines, more than {ARCHITECTURE_LINES_MAX}: move what belongs to one module \
         into its `//!` docs (or its crate's README)"
    );
}

/// Every file or folder ARCHITECTURE.md names in backticks exists: from
/// the repository's root, or from the folder its `###` heading names (and
/// that folder's `src/`), or, named bare, as a file of a report folder
/// that `reports/README.md` documents.
#[test]
fn every_path_the_architecture_map_names_exists() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let report_files = std::fs::read_to_string(root().join("reports/README.md")).expect("reports/README.md");
    let report_files = code_spans(&report_files);
    let missing = missing_paths(&text, root(), &report_files);
    assert!(missing.is_empty(), "ARCHITECTURE.md names paths that do not exist:\n{}", missing.join("\n"));
}

/// The paths `text` names that do not exist under `root`, each with its line.
fn missing_paths(text: &str, root: &Path, report_files: &[&str]) -> Vec<String> {
    let mut missing = Vec::new();
    let mut section: Option<PathBuf> = None;
    let mut in_code_block = false;
    for (index, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            in_code_block = !in_code_block;
            continue;
        }
        if in_code_block {
            continue;
        }
        if line.starts_with('#') {
            section = code_spans(line).into_iter().find(|span| span.ends_with('/')).map(PathBuf::from);
        }
        for span in code_spans(line).into_iter().filter(|span| looks_like_a_path(span)) {
            let path = span.split('*').next().unwrap_or(span);
            let path = if span.contains('*') { path.rsplit_once('/').map_or("", |(folder, _)| folder) } else { path };
            let bases = [
                Some(root.to_path_buf()),
                section.as_ref().map(|s| root.join(s)),
                section.as_ref().map(|s| root.join(s).join("src")),
            ];
            let found = bases.iter().flatten().any(|base| base.join(path).exists())
                || (!span.contains('/') && report_files.contains(&span));
            if !found {
                missing.push(format!("line {}: `{span}`", index + 1));
            }
        }
    }
    missing
}

/// What a name in backticks must look like to be checked as a path: one
/// word (a command line has spaces) that holds a `/` or ends like a file
/// of the project.
fn looks_like_a_path(span: &str) -> bool {
    span.contains(|c: char| c.is_ascii_alphanumeric())
        && !span.contains(char::is_whitespace)
        && !span.starts_with('-')
        && !span.contains("::")
        && (span.contains('/') || [".rs", ".md", ".toml"].iter().any(|extension| span.ends_with(extension)))
}

/// The `code` spans of `text`, single backticks only.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

#[test]
fn a_path_that_is_not_there_is_found_with_its_line() {
    let root = root();
    let report_files = ["summary.md"];
    let text = "# Map\n`src/main.rs` and `src/nowhere.rs`, `Cargo.toml`, `gate.toml`\n\
                ### `clock/` (crate)\n`time.rs`, `clock/tests/`, `lost.rs`, `summary.md`\n\
                `--shard I/N`, `hil/boards/*.toml`, `a::b/c`, `//!`\n```\nsrc/not-checked.rs\n```\n";
    assert_eq!(
        missing_paths(text, root, &report_files),
        ["line 2: `src/nowhere.rs`", "line 2: `gate.toml`", "line 4: `lost.rs`"]
    );
}
