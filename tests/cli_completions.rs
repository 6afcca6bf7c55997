//! `bench completions SHELL`: scripts a shell accepts, naming every command.

mod support;
use support::bench;

#[test]
fn the_bash_script_parses_and_completes_every_subcommand_and_option() {
    let output = bench(&["completions", "bash"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let script = String::from_utf8(output.stdout).expect("UTF-8");
    for word in ["timecontrol", "sim", "hil", "gate", "report", "scenarios", "boards", "perf", "--suite", "--shard"] {
        assert!(script.contains(word), "the bash script does not complete `{word}`");
    }
    let dir = std::env::temp_dir().join(format!("bench-completions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let file = dir.join("bench.bash");
    std::fs::write(&file, &script).expect("write the script");
    // `bash -n` parses without running: a script bash cannot read fails here.
    let parsed = std::process::Command::new("bash").arg("-n").arg(&file).output().expect("bash runs");
    assert!(parsed.status.success(), "bash -n: {}", String::from_utf8_lossy(&parsed.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn zsh_and_fish_get_their_own_scripts_and_an_unknown_shell_is_a_usage_error() {
    for (shell, marker) in [("zsh", "#compdef bench"), ("fish", "complete -c bench")] {
        let output = bench(&["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(output.stdout).expect("UTF-8");
        assert!(script.contains(marker) && script.contains("timecontrol"), "{shell}: {script}");
    }
    let output = bench(&["completions", "tcsh"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("bash"), "the error lists the shells");
}
