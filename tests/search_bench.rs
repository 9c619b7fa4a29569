//! The bench is the search's signature: the same node count on every run, and an engine that
//! has been cleared (what `newgame` does) searches exactly like a fresh one.

use std::process::Command;
use std::sync::atomic::AtomicBool;
use waggle::notation::parse_game_string;
use waggle::search::{Engine, EngineOptions, Limits};

/// Runs `waggle bench` at a small depth (to keep the test quick; the default depth only takes
/// longer) and returns the total node count of its last line.
fn bench_nodes() -> u64 {
    let out = Command::new(env!("CARGO_BIN_EXE_waggle"))
        .args(["bench", "--depth", "5"])
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
    let first = bench_nodes();
    assert!(first > 10_000, "suspiciously few nodes: {first}");
    assert_eq!(bench_nodes(), first);
}

/// Searches a few positions in a row with one engine, returning the nodes of each search.
fn nodes_of_searches(engine: &mut Engine) -> Vec<u64> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/engine-tests/bench/positions.txt"
    );
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
