//! Strength matches (ignored by default: they take minutes). waggle plays a random mover and a
//! one-ply greedy player (the move whose resulting position waggle's own evaluation likes best,
//! taking a win at once) from varied random openings of several game types, each opening once
//! with each colour. Run with
//!
//! ```text
//! cargo test --release --test search_strength -- --ignored --nocapture
//! ```
//!
//! Environment: `WAGGLE_OPENINGS` (openings per match, default 12, each played twice),
//! `WAGGLE_DEPTH` (waggle's search depth per move, default 4; at depth 3 a game against a random
//! mover that had locked itself in once ran to the 400-ply limit without waggle finding the way
//! to surround the queen).

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::sync::atomic::AtomicBool;
use waggle::core::{Color, Game, GameState, GameType, Move};
use waggle::eval::{EvalWeights, evaluate, final_score};
use waggle::notation::game_string;
use waggle::search::{Engine, EngineOptions, Limits};

/// Longest game before it is called a draw.
const MAX_PLIES: u32 = 400;

trait Player {
    fn name(&self) -> String;
    fn choose(&mut self, game: &Game) -> Move;
    fn new_game(&mut self) {}
}

struct RandomPlayer(StdRng);

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".to_string()
    }
    fn choose(&mut self, game: &Game) -> Move {
        let moves = game.clone().legal_moves();
        *moves.as_slice().choose(&mut self.0).expect("a legal move")
    }
}

/// Plays the move after which the evaluation (from its own view) is best; a win at once is
/// taken, ties are broken at random.
struct GreedyPlayer {
    rng: StdRng,
    weights: EvalWeights,
}

impl Player for GreedyPlayer {
    fn name(&self) -> String {
        "greedy".to_string()
    }
    fn choose(&mut self, game: &Game) -> Move {
        let mut g = game.clone();
        let moves = g.legal_moves();
        let mut best = Vec::new();
        let mut best_score = i32::MIN;
        for &m in moves.iter() {
            g.play_unchecked(m);
            let score = -final_score(&g).unwrap_or_else(|| evaluate(&g, &self.weights));
            g.undo();
            if score > best_score {
                best_score = score;
                best.clear();
            }
            if score == best_score {
                best.push(m);
            }
        }
        *best.choose(&mut self.rng).expect("a legal move")
    }
}

struct EnginePlayer {
    engine: Engine,
    limits: Limits,
}

impl Player for EnginePlayer {
    fn name(&self) -> String {
        format!("waggle depth {:?}", self.limits.depth)
    }
    fn choose(&mut self, game: &Game) -> Move {
        let stop = AtomicBool::new(false);
        self.engine.search(game, &self.limits, &stop, &mut |_| {})
    }
    fn new_game(&mut self) {
        self.engine.clear();
    }
}

/// Random openings: a game type from all eight, then 2 to 4 random plies.
fn openings(count: usize, seed: u64) -> Vec<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let types = GameType::all();
    (0..count)
        .map(|i| {
            let mut g = Game::new(types[i % types.len()]);
            for _ in 0..rng.gen_range(2..=4) {
                let moves = g.legal_moves();
                g.play_unchecked(*moves.as_slice().choose(&mut rng).expect("a move"));
            }
            g
        })
        .collect()
}

fn play(opening: &Game, white: &mut dyn Player, black: &mut dyn Player) -> (GameState, Game) {
    let mut game = opening.clone();
    white.new_game();
    black.new_game();
    while !game.state().is_over() && game.ply() < MAX_PLIES {
        let m = match game.side_to_move() {
            Color::White => white.choose(&game),
            Color::Black => black.choose(&game),
        };
        game.play(m).expect("players play legal moves");
    }
    (game.state(), game)
}

/// Plays every opening twice (waggle White, then Black); returns waggle's (wins, draws,
/// losses).
fn run_match(
    waggle: &mut dyn Player,
    other: &mut dyn Player,
    openings: &[Game],
) -> (u32, u32, u32) {
    let (mut w, mut d, mut l) = (0, 0, 0);
    for opening in openings {
        for waggle_color in [Color::White, Color::Black] {
            let (state, game) = match waggle_color {
                Color::White => play(opening, waggle, other),
                Color::Black => play(opening, other, waggle),
            };
            let won = match waggle_color {
                Color::White => state == GameState::WhiteWins,
                Color::Black => state == GameState::BlackWins,
            };
            let lost = match waggle_color {
                Color::White => state == GameState::BlackWins,
                Color::Black => state == GameState::WhiteWins,
            };
            if won {
                w += 1;
            } else if lost {
                l += 1;
                println!("lost as {waggle_color:?}: {}", game_string(&game));
            } else {
                d += 1;
                println!(
                    "no win as {waggle_color:?} after {} plies ({state:?}): {}",
                    game.ply(),
                    game_string(&game)
                );
            }
        }
    }
    println!(
        "{} vs {}: +{w} ={d} -{l} ({:.1}%)",
        waggle.name(),
        other.name(),
        100.0 * (w as f64 + d as f64 / 2.0) / (w + d + l) as f64
    );
    (w, d, l)
}

fn env_or(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn waggle_player(depth: u32) -> EnginePlayer {
    EnginePlayer {
        engine: Engine::new(EngineOptions {
            threads: 1,
            hash_mb: 32,
            ..EngineOptions::default()
        }),
        limits: Limits {
            depth: Some(depth),
            time: None,
        },
    }
}

#[test]
#[ignore = "a match of many games; run explicitly"]
fn waggle_beats_a_random_mover() {
    let openings = openings(env_or("WAGGLE_OPENINGS", 12) as usize, 1);
    let mut waggle = waggle_player(env_or("WAGGLE_DEPTH", 4));
    let mut random = RandomPlayer(StdRng::seed_from_u64(7));
    let (w, d, l) = run_match(&mut waggle, &mut random, &openings);
    assert_eq!((d, l), (0, 0), "waggle won only {w} games against random");
}

#[test]
#[ignore = "a match of many games; run explicitly"]
fn waggle_beats_a_greedy_player() {
    let openings = openings(env_or("WAGGLE_OPENINGS", 12) as usize, 2);
    let mut waggle = waggle_player(env_or("WAGGLE_DEPTH", 4));
    let mut greedy = GreedyPlayer {
        rng: StdRng::seed_from_u64(11),
        weights: EvalWeights::default(),
    };
    let (w, d, l) = run_match(&mut waggle, &mut greedy, &openings);
    let score = (w as f64 + d as f64 / 2.0) / (w + d + l) as f64;
    assert!(
        score >= 0.9,
        "waggle scored only {:.1}% against greedy",
        100.0 * score
    );
}
