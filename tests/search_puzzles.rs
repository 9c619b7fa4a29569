//! The search solves the Mzinga puzzle suites: the one move that forces a win within the listed
//! depth, and the one move that stops the opponent winning next turn, at that depth, with one
//! thread and with two.

use std::sync::atomic::AtomicBool;
use waggle::core::Move;
use waggle::notation::{format_move, parse_game_string, parse_move};
use waggle::search::{Engine, EngineOptions, Limits};

const DATA: &str = "../shared/testdata/mzinga";

struct Puzzle {
    line: usize,
    game: String,
    depth: u32,
    answer: String,
}

/// Mzinga has no threefold-repetition rule, and one puzzle game repeats a position three
/// times, so the games are loaded without it.
///
/// Reads a Mzinga test file: UTF-8 with a BOM, `#` comments, tab-separated columns.
fn read_puzzles(file: &str) -> Vec<Puzzle> {
    let path = format!("{}/{DATA}/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let text = text.trim_start_matches('\u{feff}');
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}').trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 3, "{file}:{}: expected three columns", i + 1);
        out.push(Puzzle {
            line: i + 1,
            game: cols[0].to_string(),
            depth: cols[1].parse().expect("depth"),
            answer: cols[2].to_string(),
        });
    }
    out
}

fn solve(file: &str, threads: usize) {
    let puzzles = read_puzzles(file);
    assert!(!puzzles.is_empty(), "{file} has no puzzles");
    let mut failures = Vec::new();
    for p in &puzzles {
        let game = parse_game_string(&p.game, false).expect("puzzle game string");
        let expected = parse_move(&game, &p.answer).expect("puzzle answer");
        let mut engine = Engine::new(EngineOptions {
            threads,
            hash_mb: 16,
            ..EngineOptions::default()
        });
        let stop = AtomicBool::new(false);
        let limits = Limits {
            depth: Some(p.depth),
            time: None,
        };
        let mut last_depth = 0;
        let got: Move = engine.search(&game, &limits, &stop, &mut |info| last_depth = info.depth);
        assert_eq!(
            last_depth, p.depth,
            "{file}:{}: searched to depth {last_depth}",
            p.line
        );
        if got != expected {
            failures.push(format!(
                "{file}:{} depth {}: expected {}, got {}",
                p.line,
                p.depth,
                p.answer,
                format_move(&game, got)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} unsolved:\n{}",
        failures.len(),
        puzzles.len(),
        failures.join("\n")
    );
}

#[test]
fn forced_win_puzzles_one_thread() {
    solve("PuzzleCandidate_IsOneBestMoveToForceWinPuzzleTest.csv", 1);
}

#[test]
fn forced_win_puzzles_two_threads() {
    solve("PuzzleCandidate_IsOneBestMoveToForceWinPuzzleTest.csv", 2);
}

#[test]
fn block_winning_move_one_thread() {
    solve("GameAI_BlockWinningMoveIsBestMoveTest.csv", 1);
}

#[test]
fn block_winning_move_two_threads() {
    solve("GameAI_BlockWinningMoveIsBestMoveTest.csv", 2);
}
