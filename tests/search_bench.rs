//! The bench is the search's signature: the same node count on every run, the count recorded
//! in `engine-tests/bench/signature.txt` (stated as `Bench: N` by the commit that set it), and
//! an engine that has been cleared (what `newgame` does) searches exactly like a fresh one.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use waggle::notation::parse_game_string;
use waggle::search::{Engine, EngineOptions, Limits};

/// Runs `waggle bench` with `args` and returns the total node count of its last line.
fn bench_nodes(args: &[&str]) -> u64 {
    let out = Command::new(env!("CARGO_BIN_EXE_waggle"))
        .arg("bench")
        .args(args)
        .output()
        .expect("run waggle bench");
    assert!(out.status.success(), "waggle bench failed: {out:?}");
    let text = String::from_utf8(out.stdout).expect("utf-8 output");
    let last = text.lines().last().expect("some output");
    let lines = text.lines().filter(|l| l.starts_with("position")).count();
    assert!(lines >= 30, "only {lines} bench positions:\n{text}");
    last.split_whitespace()
        .find_map(|w| w.strip_prefix("nodes="))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no node count in '{last}'"))
}

#[test]
fn bench_node_count_is_the_same_twice_in_a_row() {
    // A small depth keeps this quick; the signature test below runs the default depth.
    let first = bench_nodes(&["--depth", "5"]);
    assert!(first > 10_000, "suspiciously few nodes: {first}");
    assert_eq!(bench_nodes(&["--depth", "5"]), first);
}

/// The file holding the recorded signature, relative to the project root.
const SIGNATURE_FILE: &str = "engine-tests/bench/signature.txt";

/// The node count recorded in [`SIGNATURE_FILE`]: its one line that is not a comment.
fn recorded_signature() -> u64 {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SIGNATURE_FILE);
    let text = std::fs::read_to_string(&path).expect("the bench signature file");
    let numbers: Vec<u64> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            l.parse()
                .unwrap_or_else(|e| panic!("bad line '{l}' in {SIGNATURE_FILE}: {e}"))
        })
        .collect();
    assert_eq!(
        numbers.len(),
        1,
        "{SIGNATURE_FILE} must hold one node count"
    );
    numbers[0]
}

#[test]
fn bench_gives_the_recorded_signature() {
    let recorded = recorded_signature();
    let nodes = bench_nodes(&[]);
    assert_eq!(
        nodes, recorded,
        "`waggle bench` now gives {nodes} nodes, but {SIGNATURE_FILE} records {recorded}. If the \
         search was meant to change, write {nodes} into that file and say `Bench: {nodes}` in \
         the commit message; otherwise the change altered the search by accident."
    );
}

/// The commit that last changed the signature file states the count it records, as `Bench: N`
/// (digits, optionally with `,` or `_` separators). Skipped outside a git checkout.
#[test]
fn the_commit_that_set_the_signature_states_it() {
    let root = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    if git(&["rev-parse", "--is-inside-work-tree"]).is_none_or(|s| s.trim() != "true") {
        eprintln!("skipped: {root} is not a git checkout");
        return;
    }
    // A signature file changed but not yet committed is checked once it is committed.
    if git(&["status", "--porcelain", "--", SIGNATURE_FILE]).is_some_and(|s| !s.is_empty()) {
        eprintln!("skipped: {SIGNATURE_FILE} has uncommitted changes");
        return;
    }
    let Some(message) = git(&["log", "-1", "--format=%B", "--", SIGNATURE_FILE]) else {
        eprintln!("skipped: git log failed");
        return;
    };
    if message.trim().is_empty() {
        // A shallow clone may not hold that commit.
        eprintln!("skipped: no commit in this history changed {SIGNATURE_FILE}");
        return;
    }
    let recorded = recorded_signature();
    let stated: Vec<u64> = message
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Bench:"))
        .filter_map(|n| n.trim().replace([',', '_'], "").parse().ok())
        .collect();
    assert!(
        stated.contains(&recorded),
        "the last commit changing {SIGNATURE_FILE} must say `Bench: {recorded}`; its message \
         was:\n{message}"
    );
}

/// Searches a few positions in a row with one engine, returning the nodes of each search.
fn nodes_of_searches(engine: &mut Engine) -> Vec<u64> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("engine-tests/bench/positions.txt");
    let text = std::fs::read_to_string(path).expect("bench positions");
    // A Base opening and two mid-games with expansions.
    let positions: Vec<&str> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .enumerate()
        .filter(|(i, _)| [0, 14, 29].contains(i))
        .map(|(_, l)| l)
        .collect();
    assert_eq!(positions.len(), 3);
    let stop = AtomicBool::new(false);
    let limits = Limits {
        depth: Some(5),
        time: None,
    };
    positions
        .iter()
        .map(|text| {
            let game = parse_game_string(text, true).expect("valid position");
            let mut nodes = 0;
            engine.search(&game, &limits, &stop, &mut |info| nodes = info.nodes);
            nodes
        })
        .collect()
}

#[test]
fn a_cleared_engine_searches_like_a_fresh_one() {
    let options = EngineOptions {
        threads: 1,
        hash_mb: 8,
        ..EngineOptions::default()
    };
    let fresh = nodes_of_searches(&mut Engine::new(options.clone()));
    let mut engine = Engine::new(options);
    let first = nodes_of_searches(&mut engine);
    assert_eq!(first, fresh);
    // Without clearing, the table and history of the first round change the second.
    let warm = nodes_of_searches(&mut engine);
    assert_ne!(
        warm, fresh,
        "the engine seems to keep nothing between searches"
    );
    engine.clear();
    assert_eq!(nodes_of_searches(&mut engine), fresh);
}
