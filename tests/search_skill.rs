//! Playing levels (`SkillLevel`): reproducible from the seed, never missing a win in one, and
//! from `SAFE_LEVEL` up to full strength never losing at once (allowing a win in one, or
//! surrounding its own queen) when another move avoids it; with depth and time limits.

mod common;

use std::sync::atomic::AtomicBool;
use std::time::Duration;
use waggle::core::{Game, GameType, Move};
use waggle::eval::final_score;
use waggle::notation::{format_move, parse_game_string};
use waggle::search::skill::{MAX_SKILL_LEVEL, MIN_SKILL_LEVEL, SAFE_LEVEL};
use waggle::search::{Engine, EngineOptions, Limits};

fn engine(level: u32, seed: u64) -> Engine {
    Engine::new(EngineOptions {
        threads: 1,
        hash_mb: 8,
        skill_level: level,
        seed,
        ..EngineOptions::default()
    })
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        time: None,
    }
}

fn time(ms: u64) -> Limits {
    Limits {
        depth: None,
        time: Some(Duration::from_millis(ms)),
    }
}

fn choose(engine: &mut Engine, game: &Game, limits: &Limits) -> Move {
    let stop = AtomicBool::new(false);
    let m = engine.search(game, limits, &stop, &mut |_| {});
    assert!(game.legal_moves().contains(&m), "illegal {m:?}");
    m
}

/// Whether the side playing `m` wins at once.
fn wins_at_once(game: &Game, m: Move) -> bool {
    let mut g = game.clone();
    g.play_unchecked(m);
    final_score(&g).is_some_and(|s| s < 0)
}

/// Whether `m` loses at once: it ends the game in the opponent's favour (surrounding the
/// mover's own queen), or the opponent can win with the next move.
fn loses_within_one(game: &Game, m: Move) -> bool {
    let mut g = game.clone();
    g.play_unchecked(m);
    match final_score(&g) {
        Some(s) => s > 0,
        None => g.legal_moves().iter().any(|&r| wins_at_once(&g, r)),
    }
}

/// The puzzle positions in which the side to move can win at once.
fn wins_in_one() -> Vec<Game> {
    let games: Vec<Game> =
        common::read_rows("mzinga/PuzzleCandidate_IsOneBestMoveToForceWinPuzzleTest.csv")
            .iter()
            .map(|row| parse_game_string(&row.fields[0], false).expect("puzzle game"))
            .filter(|g| g.legal_moves().iter().any(|&m| wins_at_once(g, m)))
            .collect();
    assert!(games.len() >= 5, "only {} wins in one", games.len());
    games
}

/// Plays `plies` moves of a Base+MLP game, both sides at `level` with `seed`; the moves.
fn self_play(level: u32, seed: u64, plies: usize) -> Vec<String> {
    let mut e = engine(level, seed);
    let mut game = Game::new(GameType::new(true, true, true));
    let mut moves = Vec::new();
    for _ in 0..plies {
        if game.state().is_over() {
            break;
        }
        let m = choose(&mut e, &game, &depth(6));
        moves.push(format_move(&game, m));
        game.play_unchecked(m);
    }
    moves
}

#[test]
fn the_same_seed_replays_the_same_game_and_another_seed_another() {
    for level in [1, 3, 6] {
        let a = self_play(level, 7, 24);
        assert_eq!(a, self_play(level, 7, 24), "level {level}");
        assert_ne!(
            a,
            self_play(level, 8, 24),
            "level {level}: the seed changes nothing"
        );
    }
}

#[test]
fn every_level_takes_a_win_in_one() {
    for game in wins_in_one() {
        for level in MIN_SKILL_LEVEL..=MAX_SKILL_LEVEL {
            for (seed, limits) in [(1, depth(3)), (2, time(100))] {
                let m = choose(&mut engine(level, seed), &game, &limits);
                assert!(
                    wins_at_once(&game, m),
                    "level {level} played {} instead of winning",
                    format_move(&game, m)
                );
            }
        }
    }
}

/// Positions in which some moves lose at once and others do not: every position along the
/// games of Mzinga's puzzles (the wins in one, and the position where the opponent threatens
/// to win), up to `count` of them.
fn threatened_positions(count: usize) -> Vec<Game> {
    let mut positions = Vec::new();
    for file in [
        "mzinga/PuzzleCandidate_IsOneBestMoveToForceWinPuzzleTest.csv",
        "mzinga/GameAI_BlockWinningMoveIsBestMoveTest.csv",
    ] {
        for row in common::read_rows(file) {
            let mut game = parse_game_string(&row.fields[0], false).expect("puzzle game");
            while positions.len() < count && game.undo().is_some() {
                let legal = game.legal_moves();
                let losing = legal
                    .iter()
                    .filter(|&&m| loses_within_one(&game, m))
                    .count();
                if losing > 0 && losing < legal.len() {
                    positions.push(game.clone());
                }
            }
        }
    }
    positions
}

#[test]
fn safe_levels_never_lose_at_once_when_they_can_avoid_it() {
    let positions = threatened_positions(8);
    assert_eq!(positions.len(), 8, "too few positions");
    for game in positions {
        for level in SAFE_LEVEL..=MAX_SKILL_LEVEL {
            for seed in 0..3 {
                let m = choose(&mut engine(level, seed), &game, &depth(6));
                assert!(
                    !loses_within_one(&game, m),
                    "level {level} seed {seed} played {} in {}, which loses at once",
                    format_move(&game, m),
                    waggle::notation::game_string(&game)
                );
            }
        }
    }
}

/// The positions of `waggle bench`.
fn bench_positions() -> Vec<Game> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("engine-tests/bench/positions.txt"),
    )
    .expect("bench positions");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| parse_game_string(l, true).expect("bench position"))
        .collect()
}

#[test]
fn lower_levels_play_differently_from_full_strength() {
    // On the bench positions the weakest level does not simply copy the full-strength move.
    let games = bench_positions();
    let different = games
        .iter()
        .filter(|g| {
            choose(&mut engine(MIN_SKILL_LEVEL, 5), g, &depth(4))
                != choose(&mut engine(MAX_SKILL_LEVEL, 5), g, &depth(4))
        })
        .count();
    assert!(
        different >= games.len() / 3,
        "only {different} of {} differ",
        games.len()
    );
}

#[test]
fn levels_stop_by_their_node_budget_without_any_limit() {
    // With neither a depth nor a time limit a full-strength search runs until stopped; a lower
    // level ends by itself once its budget is spent, and higher levels search more nodes.
    // The longest of the bench games: a middle game with many moves.
    let game = bench_positions()
        .into_iter()
        .max_by_key(|g| g.legal_moves().len())
        .expect("bench positions");
    let mut spent = Vec::new();
    for level in MIN_SKILL_LEVEL..MAX_SKILL_LEVEL {
        let (tx, rx) = std::sync::mpsc::channel();
        let g = game.clone();
        std::thread::spawn(move || {
            let mut nodes = 0;
            let m = engine(level, 3).search(
                &g,
                &Limits::default(),
                &AtomicBool::new(false),
                &mut |i| nodes = nodes.max(i.nodes),
            );
            let _ = tx.send((m, nodes));
        });
        let (m, nodes) = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("level {level} did not stop by itself"));
        assert!(
            game.legal_moves().contains(&m),
            "level {level}: illegal move"
        );
        spent.push(nodes);
    }
    assert!(
        spent.windows(2).all(|w| w[0] <= w[1]) && spent[0] < spent[spent.len() - 1],
        "nodes by level: {spent:?}"
    );
}
