//! Monte Carlo tree search with an evaluation at the leaves and an exact solver.
//!
//! Each iteration walks down the tree by PUCT (priors from a cheap move heuristic), evaluates
//! the position it reaches with the static evaluation squashed to [-1, 1], and backs the value
//! up. Finished games are scored exactly and proven results travel up the tree (MCTS-Solver):
//! a node with a winning child is a win for the side to move there, one whose children all
//! lose is a loss, so a forced win within the tree is never missed. A position repeated on the
//! path scores as a draw.
//!
//! Memory: nodes live in one preallocated arena whose size comes from the table-size option;
//! when it is full the tree stops growing and iterations keep refining the existing nodes.
//!
//! Threads: root parallelism. Every thread grows its own tree (with its share of the memory)
//! from the same root; at the end the root visit counts are summed move by move. With one
//! thread the search is deterministic for a fixed number of iterations.
//!
//! Depth: `bestmove depth N` runs `N * ITERATIONS_PER_DEPTH` iterations (per thread).

use super::time::TimeManager;
use super::{Limits, SearchInfo};
use crate::core::{Game, GameState, Move, MoveGen, MoveList};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Iterations per unit of `bestmove depth`.
pub const ITERATIONS_PER_DEPTH: u64 = 2_000;

/// Bytes of arena per node (the node plus its share of bookkeeping), for sizing from MiB.
const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// Tunable constants of the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsParams {
    /// Weight of the exploration term in PUCT.
    pub exploration: f32,
    /// Evaluation units that map to a value of tanh(1) ~ 0.76.
    pub eval_scale: f32,
    /// How much worse than its parent an unvisited child is assumed to be.
    pub first_play_urgency: f32,
    /// Prior weight of a move that lands next to the enemy queen, relative to 1 for others.
    pub queen_attack_prior: f32,
}

impl Default for MctsParams {
    fn default() -> Self {
        MctsParams {
            exploration: 1.4,
            eval_scale: 400.0,
            first_play_urgency: 0.2,
            queen_attack_prior: 4.0,
        }
    }
}

/// A proven result, from the view of the player who made the move into the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proof {
    Unknown,
    Win,
    Loss,
    Draw,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    mv: Move,
    /// Prior probability of this move among its siblings.
    prior: f32,
    visits: u32,
    /// Sum of values from the view of the player who made `mv`.
    value: f32,
    first_child: u32,
    children: u16,
    expanded: bool,
    proof: Proof,
}

impl Node {
    fn new(mv: Move, prior: f32) -> Node {
        Node {
            mv,
            prior,
            visits: 0,
            value: 0.0,
            first_child: 0,
            children: 0,
            expanded: false,
            proof: Proof::Unknown,
        }
    }

    fn q(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value / self.visits as f32
        }
    }
}

/// One thread's tree.
struct Tree<'a> {
    nodes: Vec<Node>,
    capacity: usize,
    params: MctsParams,
    eval: &'a (dyn Fn(&Game) -> i32 + Sync),
    list: MoveList,
    movegen: MoveGen,
}

/// Result of one tree: visits and values of the root moves.
struct RootStats {
    moves: Vec<(Move, u32, f32, Proof)>,
    iterations: u64,
}

impl<'a> Tree<'a> {
    fn new(capacity: usize, params: MctsParams, eval: &'a (dyn Fn(&Game) -> i32 + Sync)) -> Self {
        let capacity = capacity.max(1024);
        let mut nodes = Vec::with_capacity(capacity.min(1 << 20));
        nodes.push(Node::new(Move::PASS, 1.0));
        Tree {
            nodes,
            capacity,
            params,
            eval,
            list: MoveList::new(),
            movegen: MoveGen::new(),
        }
    }

    /// Creates the children of `idx` (the position `game`); false when the arena is full.
    fn expand(&mut self, idx: usize, game: &mut Game) -> bool {
        self.movegen.generate(game, &mut self.list);
        let n = self.list.len();
        if self.nodes.len() + n > self.capacity || n > u16::MAX as usize {
            return false;
        }
        let enemy_queen = crate::core::Piece::queen(game.side_to_move().opponent());
        let target = game.board().position(enemy_queen);
        let first = self.nodes.len();
        let mut total = 0.0;
        for &m in self.list.iter() {
            let attacks = match (target, m.piece()) {
                (Some(q), Some(_)) => q.neighbours().contains(&m.to()),
                _ => false,
            };
            let w = if attacks {
                self.params.queen_attack_prior
            } else {
                1.0
            };
            total += w;
            self.nodes.push(Node::new(m, w));
        }
        for node in &mut self.nodes[first..] {
            node.prior /= total;
        }
        let node = &mut self.nodes[idx];
        node.first_child = first as u32;
        node.children = n as u16;
        node.expanded = true;
        true
    }

    /// The child of `idx` to descend into.
    fn select(&self, idx: usize) -> usize {
        let parent = &self.nodes[idx];
        let first = parent.first_child as usize;
        let kids = &self.nodes[first..first + parent.children as usize];
        let sqrt_n = (parent.visits.max(1) as f32).sqrt();
        // The parent's value is from the other player's view: negate it for the children.
        let fpu = -parent.q() - self.params.first_play_urgency;
        let mut best = first;
        let mut best_score = f32::NEG_INFINITY;
        for (i, k) in kids.iter().enumerate() {
            let score = match k.proof {
                Proof::Win => f32::INFINITY,
                Proof::Loss => -1e9,
                _ => {
                    let q = if k.visits == 0 { fpu } else { k.q() };
                    q + self.params.exploration * k.prior * sqrt_n / (1.0 + k.visits as f32)
                }
            };
            if score > best_score {
                best_score = score;
                best = first + i;
            }
        }
        best
    }

    /// Value of a finished game for the player who made the last move.
    fn terminal(game: &Game) -> (f32, Proof) {
        let mover = game.side_to_move().opponent();
        match game.state() {
            GameState::WhiteWins | GameState::BlackWins => {
                let white_won = game.state() == GameState::WhiteWins;
                let mover_won = white_won == (mover == crate::core::Color::White);
                if mover_won {
                    (1.0, Proof::Win)
                } else {
                    (-1.0, Proof::Loss)
                }
            }
            _ => (0.0, Proof::Draw),
        }
    }

    /// Runs one iteration from the root position `game` (restored before returning).
    fn iterate(&mut self, game: &mut Game, path: &mut Vec<usize>) {
        path.clear();
        path.push(0);
        let mut idx = 0;
        while self.nodes[idx].expanded && self.nodes[idx].proof == Proof::Unknown {
            idx = self.select(idx);
            game.play_unchecked(self.nodes[idx].mv);
            path.push(idx);
        }
        // Value of the reached node for the player who moved into it.
        let mut value = if self.nodes[idx].proof != Proof::Unknown {
            match self.nodes[idx].proof {
                Proof::Win => 1.0,
                Proof::Loss => -1.0,
                _ => 0.0,
            }
        } else if game.state().is_over() {
            let (v, proof) = Self::terminal(game);
            if idx != 0 {
                self.nodes[idx].proof = proof;
            }
            v
        } else if idx != 0 && game.is_repetition() {
            0.0
        } else {
            if self.nodes[idx].visits > 0 || idx == 0 {
                self.expand(idx, game);
            }
            let e = (self.eval)(game) as f32;
            // The evaluation is from the side to move's view: the mover sees the opposite.
            -(e / self.params.eval_scale).tanh()
        };
        for _ in 1..path.len() {
            game.undo();
        }
        // Back up, flipping the view at every level, and propagate proofs.
        for (depth, &n) in path.iter().enumerate().rev() {
            let node = &mut self.nodes[n];
            node.visits += 1;
            node.value += value;
            if depth + 1 < path.len() {
                self.update_proof(n);
            }
            value = -value;
        }
    }

    /// Re-derives the proof of `idx` from its children (all from the view of its mover).
    fn update_proof(&mut self, idx: usize) {
        let node = self.nodes[idx];
        if !node.expanded || node.proof != Proof::Unknown {
            return;
        }
        let first = node.first_child as usize;
        let kids = &self.nodes[first..first + node.children as usize];
        // A child's Win is a win for the player to move here, so a loss for this node's mover.
        if kids.iter().any(|k| k.proof == Proof::Win) {
            self.nodes[idx].proof = Proof::Loss;
        } else if kids.iter().all(|k| k.proof == Proof::Loss) {
            self.nodes[idx].proof = Proof::Win;
        } else if kids.iter().all(|k| k.proof != Proof::Unknown) {
            self.nodes[idx].proof = Proof::Draw;
        }
    }

    fn root_stats(&self, iterations: u64) -> RootStats {
        let root = &self.nodes[0];
        let first = root.first_child as usize;
        let moves = self.nodes[first..first + root.children as usize]
            .iter()
            .map(|k| (k.mv, k.visits, k.value, k.proof))
            .collect();
        RootStats { moves, iterations }
    }
}

/// Searches `game` (not over) with MCTS and returns the chosen move.
#[allow(clippy::too_many_arguments)]
pub fn search(
    game: &Game,
    limits: &Limits,
    stop: &AtomicBool,
    threads: usize,
    memory_mb: usize,
    params: MctsParams,
    eval: &(dyn Fn(&Game) -> i32 + Sync),
    report: &mut dyn FnMut(&SearchInfo),
) -> Move {
    let start = Instant::now();
    let threads = threads.max(1);
    let capacity = memory_mb.max(1) * (1 << 20) / NODE_BYTES / threads;
    let max_iterations = limits.depth.map(|d| d.max(1) as u64 * ITERATIONS_PER_DEPTH);
    // The same hard deadline as alpha-beta: the limit less a margin for answering.
    let clock = TimeManager::new(limits, start);
    let run = |reporting: Option<&mut dyn FnMut(&SearchInfo)>| {
        let mut tree = Tree::new(capacity, params, eval);
        let mut g = game.clone();
        let mut path = Vec::with_capacity(64);
        let mut iterations = 0u64;
        let mut reporting = reporting;
        let mut next_report = 1u64 << 10;
        loop {
            if stop.load(Ordering::Relaxed)
                || max_iterations.is_some_and(|m| iterations >= m)
                || tree.nodes[0].proof != Proof::Unknown
            {
                break;
            }
            if iterations.is_multiple_of(64) && clock.hard_expired() {
                break;
            }
            tree.iterate(&mut g, &mut path);
            iterations += 1;
            if iterations == next_report {
                next_report *= 2;
                let summary = info(&tree.root_stats(iterations));
                if let Some(r) = reporting.as_mut()
                    && !summary.pv.is_empty()
                {
                    r(&summary);
                }
            }
        }
        tree.root_stats(iterations)
    };
    let stats: Vec<RootStats> = if threads == 1 {
        vec![run(Some(report))]
    } else {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
        match pool {
            Ok(pool) => pool.install(|| {
                use rayon::prelude::*;
                (0..threads).into_par_iter().map(|_| run(None)).collect()
            }),
            Err(_) => vec![run(Some(report))],
        }
    };
    let merged = merge(&stats);
    let summary = info(&merged);
    // The final count, after the reports at powers of two along the way.
    if !summary.pv.is_empty() {
        report(&summary);
    }
    match summary.pv.first() {
        Some(&m) => m,
        None => {
            // The root was never expanded (no iteration ran): any legal move.
            game.legal_moves().first().copied().unwrap_or(Move::PASS)
        }
    }
}

/// Sums root statistics of several trees move by move.
fn merge(stats: &[RootStats]) -> RootStats {
    let mut moves: Vec<(Move, u32, f32, Proof)> = Vec::new();
    let mut iterations = 0;
    for s in stats {
        iterations += s.iterations;
        for &(m, v, val, proof) in &s.moves {
            match moves.iter_mut().find(|e| e.0 == m) {
                Some(e) => {
                    e.1 += v;
                    e.2 += val;
                    if e.3 == Proof::Unknown {
                        e.3 = proof;
                    }
                }
                None => moves.push((m, v, val, proof)),
            }
        }
    }
    RootStats { moves, iterations }
}

/// The best root move (a proven win, else the most visited move not proven lost) as a report.
fn info(stats: &RootStats) -> SearchInfo {
    let total: u32 = stats.moves.iter().map(|e| e.1).sum();
    let rank = |e: &(Move, u32, f32, Proof)| match e.3 {
        Proof::Win => (2, e.1),
        Proof::Loss => (0, e.1),
        _ => (1, e.1),
    };
    let best = stats.moves.iter().max_by_key(|e| rank(e));
    match best {
        Some(&(m, visits, value, proof)) => {
            let q = if visits > 0 {
                value / visits as f32
            } else {
                0.0
            };
            let score = match proof {
                Proof::Win => crate::eval::WIN,
                Proof::Loss => -crate::eval::WIN,
                _ => (q * 1000.0) as i32,
            };
            SearchInfo {
                depth: (stats.iterations / ITERATIONS_PER_DEPTH).max(1) as u32,
                rank: 1,
                score,
                pv: vec![m],
                nodes: stats.iterations,
                visit_share: Some(if total > 0 {
                    visits as f32 / total as f32
                } else {
                    0.0
                }),
            }
        }
        None => SearchInfo {
            depth: 0,
            rank: 1,
            score: 0,
            pv: Vec::new(),
            nodes: stats.iterations,
            visit_share: None,
        },
    }
}
