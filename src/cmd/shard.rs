//! `--shard I/N` and `--shard auto`: which slice of a sweep this run plays.
//!
//! `auto` reads the shard from the environment a scheduler gives each task
//! of a sweep, so one job script serves every task:
//!
//! | engine | variables | index |
//! | --- | --- | --- |
//! | Slurm job array (`sbatch --array=A-B`) | `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_COUNT` (and `SLURM_ARRAY_TASK_MAX` when set) | `ID - MIN + 1` of `COUNT`; the array must be contiguous |
//! | Kubernetes Indexed Job | `JOB_COMPLETION_INDEX` (0-based, set by Kubernetes), `BENCH_SHARD_COUNT` (the Job's `completions`, set in its spec) | `JOB_COMPLETION_INDEX + 1` of `BENCH_SHARD_COUNT` |
//! | GitLab CI `parallel: N` | `CI_NODE_INDEX` (1-based), `CI_NODE_TOTAL` | `CI_NODE_INDEX` of `CI_NODE_TOTAL` |
//! | anything else (a GitHub Actions matrix, a shell loop) | `BENCH_SHARD=I/N` | `I` of `N` |
//!
//! Exactly one engine's variables must be there, each of them: none, two
//! engines at once, part of one engine's set, or a value out of range is a
//! usage error (exit 2) that names every variable looked for. GitLab sets
//! `CI_NODE_TOTAL=1` in every job that is not parallel, so `CI_NODE_TOTAL`
//! alone is no engine; `CI_NODE_INDEX` is what marks a parallel job.
//!
//! [`from_env`] is pure: the environment is an argument, so each engine and
//! each error is tested without touching the process's own.

use std::fmt;

/// `--shard`'s value: a slice given, or one to read from the environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardArg {
    /// `I/N`, 1-based, `1 <= I <= N`.
    Given(u64, u64),
    /// `auto`: from the scheduler's environment ([`from_env`]).
    Auto,
}

/// `--shard`'s parser: `I/N` or `auto`.
pub fn parse(text: &str) -> Result<ShardArg, String> {
    if text.trim() == "auto" {
        return Ok(ShardArg::Auto);
    }
    let (index, count) = text.split_once('/').ok_or("write the shard as I/N, e.g. 2/8, or `auto`")?;
    let index: u64 = index.trim().parse().map_err(|_| format!("`{index}` is not a shard number"))?;
    let count: u64 = count.trim().parse().map_err(|_| format!("`{count}` is not a shard count"))?;
    if index == 0 || count == 0 || index > count {
        return Err(format!("shard {index}/{count}: need 1 <= I <= N"));
    }
    Ok(ShardArg::Given(index, count))
}

/// The variable Kubernetes users set in an Indexed Job's spec to its
/// `completions`: Kubernetes itself gives each pod only its index.
pub const KUBERNETES_COUNT: &str = "BENCH_SHARD_COUNT";

/// The variables of each engine, in the order an error lists them.
const ENGINES: [(&str, &[&str]); 4] = [
    ("a Slurm job array", &["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"]),
    ("a Kubernetes Indexed Job", &["JOB_COMPLETION_INDEX", KUBERNETES_COUNT]),
    ("GitLab CI parallel:", &["CI_NODE_INDEX", "CI_NODE_TOTAL"]),
    ("BENCH_SHARD=I/N", &["BENCH_SHARD"]),
];

/// Why `--shard auto` found no shard. Each message is followed by the
/// variables looked for.
#[derive(Debug, PartialEq, Eq)]
pub enum ShardEnvError {
    /// No engine's variables are set.
    NoEngine,
    /// More than one engine's variables are set: which one is meant?
    SeveralEngines(Vec<&'static str>),
    /// An engine's variables, some of them missing.
    Partial { engine: &'static str, missing: Vec<&'static str> },
    /// A variable that is not the number (or `I/N`) it must be.
    NotANumber { variable: &'static str, value: String },
    /// The variables give no shard `1 <= I <= N`.
    OutOfRange { engine: &'static str, why: String },
}

impl fmt::Display for ShardEnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardEnvError::NoEngine => write!(f, "--shard auto: no scheduler's shard in the environment"),
            ShardEnvError::SeveralEngines(engines) => write!(
                f,
                "--shard auto: the variables of {} are all set; unset all but one engine's, or give --shard I/N",
                engines.join(" and ")
            ),
            ShardEnvError::Partial { engine, missing } => {
                let hint = if missing.contains(&KUBERNETES_COUNT) {
                    format!(" (set {KUBERNETES_COUNT} in the Job spec to its completions)")
                } else {
                    String::new()
                };
                let verb = if missing.len() == 1 { "is" } else { "are" };
                write!(f, "--shard auto: {engine}, but {} {verb} not set{hint}", missing.join(" and "))
            }
            ShardEnvError::NotANumber { variable, value } => {
                write!(f, "--shard auto: {variable}={value:?} is not ")?;
                f.write_str(if *variable == "BENCH_SHARD" { "I/N, e.g. 2/8" } else { "a whole number" })
            }
            ShardEnvError::OutOfRange { engine, why } => write!(f, "--shard auto: {engine}: {why}"),
        }?;
        let looked_for: Vec<String> =
            ENGINES.iter().map(|(engine, variables)| format!("{} ({engine})", variables.join(", "))).collect();
        write!(f, "; looked for {}", looked_for.join("; "))
    }
}

impl std::error::Error for ShardEnvError {}

/// The shard `(I, N)` the environment gives (`lookup` reads one variable;
/// an empty value counts as unset).
pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<(u64, u64), ShardEnvError> {
    let get = |name: &str| lookup(name).filter(|value| !value.is_empty());
    // CI_NODE_TOTAL alone is every GitLab job's (1): the index marks a parallel one.
    let present = |variables: &[&str]| match variables.first() {
        Some(&"CI_NODE_INDEX") => get("CI_NODE_INDEX").is_some(),
        _ => variables.iter().any(|name| get(name).is_some()),
    };
    let engines: Vec<(&'static str, &'static [&'static str])> =
        ENGINES.iter().copied().filter(|(_, variables)| present(variables)).collect();
    let (engine, variables) = match engines.as_slice() {
        [] => return Err(ShardEnvError::NoEngine),
        [one] => *one,
        several => return Err(ShardEnvError::SeveralEngines(several.iter().map(|(engine, _)| *engine).collect())),
    };
    let missing: Vec<&'static str> = variables.iter().copied().filter(|name| get(name).is_none()).collect();
    if !missing.is_empty() {
        return Err(ShardEnvError::Partial { engine, missing });
    }
    let number = |variable: &'static str| -> Result<u64, ShardEnvError> {
        let value = get(variable).unwrap_or_default();
        value.trim().parse().map_err(|_| ShardEnvError::NotANumber { variable, value })
    };
    let out_of_range = |why: String| ShardEnvError::OutOfRange { engine, why };
    let (index, count) = match variables[0] {
        "SLURM_ARRAY_TASK_ID" => slurm(number, get("SLURM_ARRAY_TASK_MAX"), out_of_range)?,
        "JOB_COMPLETION_INDEX" => {
            let (index, count) = (number("JOB_COMPLETION_INDEX")?, number(KUBERNETES_COUNT)?);
            if index >= count {
                return Err(out_of_range(format!(
                    "JOB_COMPLETION_INDEX={index} is not below {KUBERNETES_COUNT}={count}: set {KUBERNETES_COUNT} to \
                     the Job's completions"
                )));
            }
            (index + 1, count)
        }
        "CI_NODE_INDEX" => (number("CI_NODE_INDEX")?, number("CI_NODE_TOTAL")?),
        _ => {
            let value = get("BENCH_SHARD").unwrap_or_default();
            match parse(&value) {
                Ok(ShardArg::Given(index, count)) => (index, count),
                _ => return Err(ShardEnvError::NotANumber { variable: "BENCH_SHARD", value }),
            }
        }
    };
    if index == 0 || count == 0 || index > count {
        return Err(out_of_range(format!("shard {index}/{count}: need 1 <= I <= N")));
    }
    Ok((index, count))
}

/// A Slurm array task's shard: its place in a contiguous array.
fn slurm(
    number: impl Fn(&'static str) -> Result<u64, ShardEnvError>,
    max: Option<String>,
    out_of_range: impl Fn(String) -> ShardEnvError,
) -> Result<(u64, u64), ShardEnvError> {
    let (id, min, count) =
        (number("SLURM_ARRAY_TASK_ID")?, number("SLURM_ARRAY_TASK_MIN")?, number("SLURM_ARRAY_TASK_COUNT")?);
    if let Some(max) = max {
        let max: u64 = max
            .trim()
            .parse()
            .map_err(|_| ShardEnvError::NotANumber { variable: "SLURM_ARRAY_TASK_MAX", value: max.clone() })?;
        if max.checked_sub(min).and_then(|span| span.checked_add(1)) != Some(count) {
            return Err(out_of_range(format!(
                "the array {min}-{max} has {count} tasks: not contiguous; submit it as --array={min}-{}",
                min.saturating_add(count).saturating_sub(1)
            )));
        }
    }
    let Some(offset) = id.checked_sub(min).filter(|offset| *offset < count) else {
        return Err(out_of_range(format!(
            "SLURM_ARRAY_TASK_ID={id} is not one of the {count} tasks from SLURM_ARRAY_TASK_MIN={min}"
        )));
    };
    Ok((offset + 1, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shard `auto` finds in `env` (`NAME=value` pairs), or its error.
    fn check(env: &[(&str, &str)]) -> Result<(u64, u64), ShardEnvError> {
        from_env(|name| env.iter().find(|(key, _)| *key == name).map(|(_, value)| value.to_string()))
    }

    const SLURM: [(&str, &str); 3] =
        [("SLURM_ARRAY_TASK_ID", "5"), ("SLURM_ARRAY_TASK_MIN", "3"), ("SLURM_ARRAY_TASK_COUNT", "4")];

    #[test]
    fn each_engine_gives_its_shard() {
        assert_eq!(check(&SLURM), Ok((3, 4)));
        assert_eq!(check(&[SLURM[0], SLURM[1], SLURM[2], ("SLURM_ARRAY_TASK_MAX", "6")]), Ok((3, 4)));
        assert_eq!(check(&[("SLURM_ARRAY_TASK_ID", "0"), ("SLURM_ARRAY_TASK_MIN", "0"), SLURM[2]]), Ok((1, 4)));
        assert_eq!(check(&[("JOB_COMPLETION_INDEX", "0"), ("BENCH_SHARD_COUNT", "8")]), Ok((1, 8)));
        assert_eq!(check(&[("JOB_COMPLETION_INDEX", "7"), ("BENCH_SHARD_COUNT", "8")]), Ok((8, 8)));
        assert_eq!(check(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "5")]), Ok((2, 5)));
        assert_eq!(check(&[("BENCH_SHARD", "3/8")]), Ok((3, 8)));
        // Every GitLab job has CI_NODE_TOTAL=1; only a parallel one an index.
        assert_eq!(check(&[("CI_NODE_TOTAL", "1"), ("BENCH_SHARD", "2/2")]), Ok((2, 2)));
        assert_eq!(check(&[("BENCH_SHARD", "2/2"), ("SLURM_ARRAY_TASK_ID", "")]), Ok((2, 2)), "empty is unset");
    }

    #[test]
    fn no_engine_several_engines_or_part_of_one_is_an_error() {
        assert_eq!(check(&[]), Err(ShardEnvError::NoEngine));
        assert_eq!(check(&[("CI_NODE_TOTAL", "1")]), Err(ShardEnvError::NoEngine));
        assert_eq!(
            check(&[SLURM[0], SLURM[1], SLURM[2], ("BENCH_SHARD", "1/2")]),
            Err(ShardEnvError::SeveralEngines(vec!["a Slurm job array", "BENCH_SHARD=I/N"]))
        );
        assert_eq!(
            check(&[("JOB_COMPLETION_INDEX", "1"), ("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "2")]),
            Err(ShardEnvError::SeveralEngines(vec!["a Kubernetes Indexed Job", "GitLab CI parallel:"]))
        );
        assert_eq!(
            check(&[SLURM[0]]),
            Err(ShardEnvError::Partial {
                engine: "a Slurm job array",
                missing: vec!["SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"]
            })
        );
        assert_eq!(
            check(&[("JOB_COMPLETION_INDEX", "1")]),
            Err(ShardEnvError::Partial { engine: "a Kubernetes Indexed Job", missing: vec![KUBERNETES_COUNT] })
        );
        assert_eq!(
            check(&[("BENCH_SHARD_COUNT", "4")]),
            Err(ShardEnvError::Partial { engine: "a Kubernetes Indexed Job", missing: vec!["JOB_COMPLETION_INDEX"] })
        );
        assert_eq!(
            check(&[("CI_NODE_INDEX", "1")]),
            Err(ShardEnvError::Partial { engine: "GitLab CI parallel:", missing: vec!["CI_NODE_TOTAL"] })
        );
    }

    #[test]
    fn values_out_of_range_or_not_numbers_are_errors() {
        let out_of_range = |env: &[(&str, &str)]| matches!(check(env), Err(ShardEnvError::OutOfRange { .. }));
        assert!(out_of_range(&[("SLURM_ARRAY_TASK_ID", "7"), SLURM[1], SLURM[2]]), "beyond the array");
        assert!(out_of_range(&[("SLURM_ARRAY_TASK_ID", "2"), SLURM[1], SLURM[2]]), "below its first task");
        assert!(out_of_range(&[SLURM[0], SLURM[1], SLURM[2], ("SLURM_ARRAY_TASK_MAX", "9")]), "not contiguous");
        assert!(out_of_range(&[("JOB_COMPLETION_INDEX", "8"), ("BENCH_SHARD_COUNT", "8")]));
        assert!(out_of_range(&[("JOB_COMPLETION_INDEX", "0"), ("BENCH_SHARD_COUNT", "0")]));
        assert!(out_of_range(&[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "2")]));
        assert!(out_of_range(&[("CI_NODE_INDEX", "3"), ("CI_NODE_TOTAL", "2")]));
        assert_eq!(
            check(&[("CI_NODE_INDEX", "two"), ("CI_NODE_TOTAL", "2")]),
            Err(ShardEnvError::NotANumber { variable: "CI_NODE_INDEX", value: "two".into() })
        );
        assert_eq!(
            check(&[("BENCH_SHARD", "3/2")]),
            Err(ShardEnvError::NotANumber { variable: "BENCH_SHARD", value: "3/2".into() })
        );
        assert_eq!(
            check(&[("BENCH_SHARD", "auto")]),
            Err(ShardEnvError::NotANumber { variable: "BENCH_SHARD", value: "auto".into() })
        );
    }

    /// Every error names every variable `auto` looks for, so the user sees
    /// what to set whatever went wrong.
    #[test]
    fn every_error_names_the_variables_looked_for() {
        let errors = [
            check(&[]),
            check(&[SLURM[0]]),
            check(&[("BENCH_SHARD", "x")]),
            check(&[("CI_NODE_INDEX", "9"), ("CI_NODE_TOTAL", "2")]),
        ];
        for error in errors {
            let text = error.expect_err("an error").to_string();
            for (_, variables) in ENGINES {
                for variable in variables {
                    assert!(text.contains(variable), "`{variable}` missing from: {text}");
                }
            }
        }
        let partial = check(&[("JOB_COMPLETION_INDEX", "1")]).expect_err("partial").to_string();
        assert!(partial.starts_with("--shard auto: a Kubernetes Indexed Job, but BENCH_SHARD_COUNT is not set"));
    }

    #[test]
    fn the_flag_takes_i_of_n_or_auto() {
        assert_eq!(parse("2/8"), Ok(ShardArg::Given(2, 8)));
        assert_eq!(parse("auto"), Ok(ShardArg::Auto));
        assert!(parse("0/8").is_err() && parse("9/8").is_err() && parse("2").is_err() && parse("Auto").is_err());
    }
}
