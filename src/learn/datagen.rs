//! Self-play data: the engine plays itself at a fixed depth from random openings and keeps the
//! quiet positions of each game with the search's score and the game's result.
//!
//! **Games.** By default half the games are Base+MLP and the other half are drawn uniformly from
//! all eight game types; [`DatagenConfig::game_types`] replaces that mix with a uniform draw
//! from a list (to gather data for one game type, say). Each game opens with a uniformly random
//! number (between [`DatagenConfig::min_random_plies`] and [`DatagenConfig::max_random_plies`])
//! of uniformly random legal moves, then the engine (one thread, tables cleared at the start of
//! the game) chooses every move with a search of [`DatagenConfig::depth`] plies. Threefold
//! repetition draws; a game still going after [`DatagenConfig::max_plies`] plies is stopped and
//! scored as a draw. Game `i` depends only on the seed and `i`, and games are reported in order,
//! so a run is reproducible whatever the number of threads.
//!
//! **Quiet positions.** A position searched by the engine is kept when the search's score is
//! not a win or loss score and differs from the static evaluation by at most
//! [`DatagenConfig::quiet_margin`]: a larger gap means the search saw something the static
//! evaluation cannot (a queen about to be surrounded, a piece about to be freed or pinned),
//! which a static evaluation should not be asked to learn. The random opening moves are not
//! kept.

use super::data::{Outcome, Sample};
use crate::core::{Color, Game, GameState, GameType};
use crate::eval::{self, WIN_THRESHOLD, WeightSets};
use crate::notation::game_string;
use crate::search::{Engine, EngineOptions, Limits, SearchParams};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;

/// The settings of a self-play run.
#[derive(Clone, Debug, PartialEq)]
pub struct DatagenConfig {
    /// Number of games.
    pub games: u32,
    /// Search depth of every move, in plies.
    pub depth: u32,
    /// Games played at once (one search thread each).
    pub threads: usize,
    /// Seed of the random openings and game types.
    pub seed: u64,
    /// Fewest random opening plies.
    pub min_random_plies: u32,
    /// Most random opening plies.
    pub max_random_plies: u32,
    /// Plies after which a game is stopped and scored as a draw.
    pub max_plies: u32,
    /// Largest gap between the search's score and the static evaluation of a kept position.
    pub quiet_margin: i32,
    /// Transposition table size of each game's engine, in MiB.
    pub hash_mb: usize,
    /// The evaluation the engine plays with.
    pub weights: WeightSets,
    /// The game types to draw from, uniformly; empty for the default mix (half Base+MLP, the
    /// rest uniform over all eight).
    pub game_types: Vec<GameType>,
}

impl Default for DatagenConfig {
    fn default() -> Self {
        DatagenConfig {
            games: 100,
            depth: 3,
            threads: 2,
            seed: 1,
            min_random_plies: 2,
            max_random_plies: 8,
            max_plies: 300,
            quiet_margin: 60,
            hash_mb: 16,
            weights: WeightSets::default(),
            game_types: Vec::new(),
        }
    }
}

/// One finished self-play game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's number, from 0.
    pub index: u32,
    /// The whole game as a GameString.
    pub game: String,
    /// The result for White.
    pub white_result: Outcome,
    /// Stopped at the ply limit (and scored as a draw).
    pub adjudicated: bool,
    /// Positions the engine searched (the plies after the random opening).
    pub searched: u32,
    /// The quiet positions kept, in the order they were played.
    pub samples: Vec<Sample>,
}

/// Plays `config.games` games on `config.threads` threads and hands each finished game to
/// `sink`, in the order of their numbers. Returns early (without the games in progress) when
/// `stop` is raised.
pub fn generate(config: &DatagenConfig, stop: &AtomicBool, sink: &mut dyn FnMut(GameRecord)) {
    let next = AtomicU32::new(0);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let mut engine = Engine::new(EngineOptions {
                    threads: 1,
                    hash_mb: config.hash_mb,
                    ..EngineOptions::default()
                });
                engine.set_params(SearchParams {
                    weights: config.weights.clone(),
                    ..SearchParams::default()
                });
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let Some(record) = play_game(config, &mut engine, index, stop) else {
                        break;
                    };
                    if tx.send(record).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Hand the games on in order of their numbers.
        let mut waiting = BTreeMap::new();
        let mut due = 0;
        for record in rx {
            waiting.insert(record.index, record);
            while let Some(record) = waiting.remove(&due) {
                sink(record);
                due += 1;
            }
        }
    });
}

/// A game type: uniform over `types` when it is not empty, otherwise Base+MLP half the time
/// and uniform over all eight the other half.
fn pick_game_type(types: &[GameType], rng: &mut StdRng) -> GameType {
    if !types.is_empty() {
        types[rng.gen_range(0..types.len())]
    } else if rng.gen_bool(0.5) {
        GameType::MLP
    } else {
        GameType::all()[rng.gen_range(0..8)]
    }
}

/// The random number generator of game `index`: a mix of the seed and the number.
fn game_rng(seed: u64, index: u32) -> StdRng {
    let mut z = seed ^ (u64::from(index) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    StdRng::seed_from_u64(z ^ (z >> 31))
}

/// A random opening: a game of a random type after a random number of random moves, not over.
fn random_opening(config: &DatagenConfig, rng: &mut StdRng) -> Game {
    let game_type = pick_game_type(&config.game_types, rng);
    let low = config.min_random_plies.min(config.max_random_plies);
    loop {
        let plies = rng.gen_range(low..=config.max_random_plies);
        let mut game = Game::new(game_type);
        for _ in 0..plies {
            let moves = game.legal_moves();
            game.play_unchecked(moves[rng.gen_range(0..moves.len())]);
            if game.state().is_over() {
                break;
            }
        }
        if !game.state().is_over() {
            return game;
        }
    }
}

/// Plays game `index`; `None` when stopped.
fn play_game(
    config: &DatagenConfig,
    engine: &mut Engine,
    index: u32,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    let mut rng = game_rng(config.seed, index);
    let mut game = random_opening(config, &mut rng);
    engine.clear();
    let limits = Limits {
        depth: Some(config.depth.max(1)),
        time: None,
    };
    // Positions kept so far, with their side to move.
    let mut kept: Vec<(String, i32, Color)> = Vec::new();
    let mut searched = 0;
    while !game.state().is_over() && game.ply() < config.max_plies {
        let mut score = 0;
        let best = engine.search(&game, &limits, stop, &mut |info| score = info.score);
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        searched += 1;
        let static_eval = eval::evaluate(&game, config.weights.for_type(game.game_type()));
        if score.abs() < WIN_THRESHOLD && (score - static_eval).abs() <= config.quiet_margin {
            kept.push((game_string(&game), score, game.side_to_move()));
        }
        game.play_unchecked(best);
    }
    let white_result = match game.state() {
        GameState::WhiteWins => Outcome::Win,
        GameState::BlackWins => Outcome::Loss,
        _ => Outcome::Draw,
    };
    let samples = kept
        .into_iter()
        .map(|(game, score, side)| Sample {
            game,
            score,
            result: if side == Color::White {
                white_result
            } else {
                white_result.flip()
            },
        })
        .collect();
    Some(GameRecord {
        index,
        game: game_string(&game),
        white_result,
        adjudicated: !game.state().is_over(),
        searched,
        samples,
    })
}
