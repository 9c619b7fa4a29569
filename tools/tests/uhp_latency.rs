//! uhp-latency over real processes: every engine is measured and reported, and an engine that
//! cannot be measured is an error.

mod common;

use common::{run, test_engine};

/// Runs uhp-latency with `args`; returns the exit code, stdout and stderr.
fn latency(args: &[&str]) -> (i32, String, String) {
    let out = run(env!("CARGO_BIN_EXE_uhp-latency"), args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The numbers (in ms) of the report's row for `name`: worst, 99%, median, worst - 1st.
fn row(stdout: &str, name: &str) -> Vec<f64> {
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row for {name}: {stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[1], "30", "{line}");
    words[2..]
        .iter()
        .map(|w| w.trim_end_matches("ms").parse().expect(line))
        .collect()
}

#[test]
fn every_engine_gets_a_row_with_ordered_times() {
    let plain = format!("plain={}", test_engine());
    let quirky = format!("quirky={} --quirky --seed 3", test_engine());
    let (code, stdout, stderr) = latency(&["-e", &plain, "-e", &quirky, "--commands", "30"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    for name in ["plain", "quirky"] {
        let r = row(&stdout, name);
        let (worst, p99, median) = (r[0], r[1], r[2]);
        assert!(
            worst >= p99 && p99 >= median && median > 0.0,
            "{name}: {r:?}"
        );
    }
    // The baseline is compared with itself.
    assert_eq!(row(&stdout, "plain")[3], 0.0, "{stdout}");
}

#[test]
fn an_engine_that_cannot_be_measured_is_an_error() {
    // One that does not start.
    let (code, _, stderr) = latency(&["-e", "missing=/nonexistent/engine", "--commands", "5"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("engine missing"), "{stderr}");
    // One that refuses the game.
    let (code, _, stderr) = latency(&[
        "-e",
        test_engine(),
        "--game",
        "Base;Nonsense",
        "--commands",
        "5",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("was answered `err"), "{stderr}");
}
