//! `waggle --option NAME=VALUE` sets UHP options before the engine starts.

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], input: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_waggle"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("waggle starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    child.wait_with_output().expect("waggle exits")
}

#[test]
fn options_from_the_command_line_apply_at_start_up() {
    let out = run(
        &[
            "--option",
            "SearchAlgorithm=MCTS",
            "--option",
            "ReportIntermediateBestMoves=true",
        ],
        "options get SearchAlgorithm\noptions get ReportIntermediateBestMoves\n",
    );
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("SearchAlgorithm;enum;MCTS;"), "{text}");
    assert!(
        text.contains("ReportIntermediateBestMoves;bool;True;"),
        "{text}"
    );
}

#[test]
fn a_bad_command_line_option_is_refused() {
    for bad in ["Nonsense=1", "SearchAlgorithm=Minimax", "no-equals-sign"] {
        let out = run(&["--option", bad], "");
        assert!(!out.status.success(), "{bad} accepted");
        assert!(out.stdout.is_empty(), "{bad}: engine started");
    }
}
