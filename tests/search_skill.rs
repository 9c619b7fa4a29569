//! Playing levels (`SkillLevel`): reproducible from the seed, never missing a win in one, and
//! from `SAFE_LEVEL` up (below full strength, whose search decides alone) never allowing one
//! that can be avoided; with depth and time limits.

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

/// Whether the opponent can win at once after `m`.
fn allows_win_in_one(game: &Game, m: Move) -> bool {
    let mut g = game.clone();
    g.play_unchecked(m);
    final_score(&g).is_none() && g.legal_moves().iter().any(|&r| wins_at_once(&g, r))
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

#[test]
fn safe_levels_never_allow_an_avoidable_win_in_one() {
    let mut checked = 0;
    // The moves before the wins in one (where the loser let the opponent win at once), and
    // Mzinga's position where the opponent threatens to win.
    let mut positions: Vec<Game> = wins_in_one()
        .into_iter()
        .map(|mut g| {
            g.undo();
            g
        })
        .collect();
    for row in common::read_rows("mzinga/GameAI_BlockWinningMoveIsBestMoveTest.csv") {
        positions.push(parse_game_string(&row.fields[0], false).expect("puzzle game"));
    }
    for game in positions {
        let legal = game.legal_moves();
        if !legal.iter().any(|&m| !allows_win_in_one(&game, m)) {
            continue;
        }
        checked += 1;
        for level in SAFE_LEVEL..MAX_SKILL_LEVEL {
            for seed in 0..3 {
                let m = choose(&mut engine(level, seed), &game, &depth(8));
                assert!(
                    !allows_win_in_one(&game, m),
                    "level {level} seed {seed} played {}, which loses at once",
                    format_move(&game, m)
                );
            }
        }
    }
    assert!(checked >= 4, "only {checked} positions");
}

#[test]
fn lower_levels_play_differently_from_full_strength() {
    // On the bench positions the weakest level does not simply copy the full-strength move.
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("engine-tests/bench/positions.txt"),
    )
    .expect("bench positions");
    let games: Vec<Game> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| parse_game_string(l, true).expect("bench position"))
        .collect();
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
