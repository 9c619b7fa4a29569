//! Choosing a move: the interface the UHP server talks to.
//!
//! The server owns one [`Engine`] for the life of the process; it passes each `bestmove` the
//! game, the limits, a stop flag (raised by SIGINT) and a sink for intermediate reports.

pub mod mcts;

use crate::core::{Game, Move};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Which search algorithm picks the move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Principal variation search with iterative deepening.
    AlphaBeta,
    /// Monte Carlo tree search.
    Mcts,
}

/// Settings that persist between searches (the UHP options).
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    /// Search threads.
    pub threads: usize,
    /// Transposition table (or MCTS tree) size in MiB.
    pub hash_mb: usize,
    /// The algorithm.
    pub algorithm: Algorithm,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            threads: 1,
            hash_mb: 64,
            algorithm: Algorithm::AlphaBeta,
        }
    }
}

/// How long to search. With neither set the search runs until stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Search exactly this many plies of iterative deepening.
    pub depth: Option<u32>,
    /// Answer within this much wall time.
    pub time: Option<Duration>,
}

/// An intermediate report: the best move so far after a completed iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// Depth of the completed iteration.
    pub depth: u32,
    /// Score from the side to move's view, in evaluation units.
    pub score: i32,
    /// The principal variation, best move first (never empty).
    pub pv: Vec<Move>,
    /// Nodes searched so far (MCTS: iterations).
    pub nodes: u64,
    /// MCTS only: the share of root visits that went to the best move.
    pub visit_share: Option<f32>,
}

/// The search engine: options plus state kept between searches (the transposition table).
pub struct Engine {
    options: EngineOptions,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(EngineOptions::default())
    }
}

impl Engine {
    /// An engine with the given options; large tables are allocated on the first search.
    pub fn new(options: EngineOptions) -> Engine {
        Engine { options }
    }

    /// The current options.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// Changes the options (takes effect at the next search).
    pub fn set_options(&mut self, options: EngineOptions) {
        self.options = options;
    }

    /// Forgets everything learnt from earlier searches (for `newgame`).
    pub fn clear(&mut self) {}

    /// Chooses a move for the side to move in `game`, which must not be over. Returns as soon
    /// as `stop` is raised or the limits are reached, with the best move found so far; `report`
    /// receives a [`SearchInfo`] after each completed iteration.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchInfo),
    ) -> Move {
        // Placeholder until the alpha-beta search lands: the first legal move.
        let _ = (limits, stop);
        let mut g = game.clone();
        let moves = g.legal_moves();
        let best = moves.first().copied().unwrap_or(Move::PASS);
        report(&SearchInfo {
            depth: 1,
            score: 0,
            pv: vec![best],
            nodes: moves.len() as u64,
            visit_share: None,
        });
        best
    }
}
