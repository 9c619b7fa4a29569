//! `MultiPV`: the search ranks the best K moves at every depth, and its answer is the top one.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use waggle::core::{Game, Move};
use waggle::notation::{format_move, parse_game_string};
use waggle::search::{Engine, EngineOptions, Limits, SearchInfo};

/// The bench positions (GameStrings).
fn bench_positions() -> Vec<Game> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("engine-tests/bench/positions.txt");
    let text = std::fs::read_to_string(path).expect("bench positions");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| parse_game_string(l, true).expect("valid bench position"))
        .collect()
}

/// Searches `game` to `depth` ranking `k` moves on a fresh one-thread engine; the answer and
/// every report.
fn search(game: &Game, k: usize, depth: u32) -> (Move, Vec<SearchInfo>) {
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mb: 8,
        multi_pv: k,
        ..EngineOptions::default()
    });
    let stop = AtomicBool::new(false);
    let limits = Limits {
        depth: Some(depth),
        time: None,
    };
    let mut infos = Vec::new();
    let best = engine.search(game, &limits, &stop, &mut |i| infos.push(i.clone()));
    (best, infos)
}

/// Checks that every depth 1..=depth reports exactly `lines` distinct legal moves, ranked 1..,
/// with scores that never increase, and that the answer is the top move of the last depth.
fn check_ranking(game: &Game, best: Move, infos: &[SearchInfo], lines: usize, depth: u32) {
    let legal = game.legal_moves();
    assert_eq!(infos.len(), lines * depth as usize, "{infos:?}");
    for (d, group) in infos.chunks(lines).enumerate() {
        let mut seen = Vec::new();
        for (i, info) in group.iter().enumerate() {
            assert_eq!(info.depth, d as u32 + 1);
            assert_eq!(info.rank, i + 1);
            let m = info.pv[0];
            assert!(legal.contains(&m), "illegal {m:?}");
            assert!(!seen.contains(&m), "{m:?} ranked twice at depth {}", d + 1);
            seen.push(m);
            if i > 0 {
                assert!(
                    info.score <= group[i - 1].score,
                    "rank {} scores {} above rank {}'s {}",
                    i + 1,
                    info.score,
                    i,
                    group[i - 1].score
                );
            }
        }
    }
    let last = &infos[infos.len() - lines];
    assert_eq!(last.rank, 1);
    assert_eq!(best, last.pv[0], "the answer is the top-ranked line");
}

#[test]
fn k_lines_are_distinct_legal_and_ranked_at_every_depth() {
    let positions = bench_positions();
    for game in positions.iter().step_by(4) {
        for k in [2, 4] {
            let lines = k.min(game.legal_moves().len());
            let (best, infos) = search(game, k, 4);
            check_ranking(game, best, &infos, lines, 4);
        }
    }
}

#[test]
fn more_lines_than_moves_ranks_them_all() {
    // Only a few moves: the second move of a Base game (Black places next to wS1: 5 bugs x 6
    // cells, fewer with duplicates) is too many; take a position with few legal moves.
    let game = parse_game_string("Base;InProgress;;wS1;bS1 wS1-;wQ -wS1;bQ bS1-", true)
        .expect("valid game");
    let n = game.legal_moves().len();
    assert!(n > 1 && n < 32, "{n} legal moves");
    let (best, infos) = search(&game, 32, 3);
    check_ranking(&game, best, &infos, n, 3);
    let mut ranked: Vec<Move> = infos[infos.len() - n..].iter().map(|i| i.pv[0]).collect();
    let mut legal = game.legal_moves().to_vec();
    ranked.sort_by_key(|m| format_move(&game, *m));
    legal.sort_by_key(|m| format_move(&game, *m));
    assert_eq!(ranked, legal);
}

#[test]
fn the_answer_matches_one_line_on_the_bench_positions() {
    let positions = bench_positions();
    assert_eq!(positions.len(), 32);
    for k in [3, 5] {
        let mut differences = Vec::new();
        for (i, game) in positions.iter().enumerate() {
            let (one, _) = search(game, 1, 5);
            let (best, infos) = search(game, k, 5);
            let lines = k.min(game.legal_moves().len());
            check_ranking(game, best, &infos, lines, 5);
            if best != one {
                differences.push(format!(
                    "position {}: K=1 {} K={k} {}",
                    i + 1,
                    format_move(game, one),
                    format_move(game, best)
                ));
            }
        }
        println!(
            "MultiPV {k}: {} differences {differences:?}",
            differences.len()
        );
        assert!(differences.len() <= 2, "MultiPV {k}: {differences:?}");
    }
}
