//! Monte Carlo graph search: one search graph shared by every thread, with an evaluation at
//! the leaves and an exact solver.
//!
//! **The graph.** Nodes are positions, kept in a concurrent hash map ([`DashMap`]) under a key
//! made of the Zobrist hash ([`Game::hash`]) and, in the Pillbug game types, the frozen piece
//! when it changes the legal moves ([`position_key`]). A position reached by two move orders is
//! one node. Each node holds its visit count N(s) and the sum of the values backed up through
//! it (so its value Q(s) is the mean from the side to move's view), a proof, and its edges;
//! each edge holds its move, a prior, its own visit count N(s,a) and a pointer to the child.
//! The parent's estimate of a move is the child node's value, whichever path the child's
//! visits came through ("Monte-Carlo Graph Search", Czech, Korus and Kersting, 2021): the edge
//! keeps the child's value as last seen through it (refreshed at every backup through it, so
//! that selection reads the edges only), and when an edge has been visited fewer times than
//! its child, an iteration stops there and backs up the child's value instead of descending,
//! so the edge catches up with what the child already knows. The threads' positions are
//! their own; a move stored on an edge is re-made for the piece on the same cell (or the next
//! of its kind in hand), since a transposition may number the copies of a bug otherwise.
//!
//! Visit counts: a position first reached through an edge is evaluated but not stored (most
//! leaves are never visited again, and memory is what limits the graph); the node is made,
//! with a fresh evaluation as its first visit (N = 1), when an iteration comes through an
//! edge into it a second time, and every later iteration through it goes on through one of
//! its edges. So after a search N(s) = 1 + the sum of N(s,a) over its edges for every node,
//! the root included. An iteration that ends at a first visit, a finished game, a proven
//! node, a repetition, an unexpandable node (memory full) or a child that knows more than
//! its edge counts on the parent's edge only.
//!
//! **Selection** is PUCT: Q(s,a) + c * P(s,a) * sqrt(N(s)) / (1 + N(s,a)), with Q(s,a) the
//! child's value (or the parent's value less a first-play reduction while unknown). Threads
//! descend the same graph; a thread on its way down adds a virtual loss to each edge it takes,
//! which steers the other threads elsewhere until its value is backed up.
//!
//! **Knowledge from the alpha-beta side.** Priors are a softmax of the alpha-beta move
//! ordering's static part (moves onto or next to the enemy queen first, then moves relieving
//! the own queen; moves loosening the grip on the enemy queen or crowding the own queen last).
//! Leaves are valued by the static evaluation squashed to [-1, 1] by tanh. Progressive
//! widening: a node visited N times considers only its `widen_base + widen_factor * sqrt(N)`
//! moves of highest prior (all of them eventually), plus one more for every considered move
//! already proven lost, so that Hive's 50-200 moves are not all expanded at once and the
//! memory goes to the moves that matter. Edges are made in batches (at least doubling the
//! node's edges, memory allowing), since each batch regenerates and sorts the moves.
//! Measured against alpha-beta in short matches at 0.2 s per move (20 games each, Base+MLP),
//! exploration 2.5 and 4 did about equally and 1.0 much worse, and blending a minimax value
//! into Q (implicit minimax backups) did worse too, so it is not used.
//!
//! **Solver.** Finished games are exact, and proofs travel up (MCTS-Solver): a node with a
//! move to a lost position is won, one whose moves (all of them expanded) all lead to won
//! positions is lost, one whose moves are all proven and none wins is a draw; proofs carry
//! their length in plies. A position repeated on the path (or in the game) scores as a draw
//! for that iteration only: a proof depends on the position and never on the path, so
//! repetitions are never stored as a proven draw.
//!
//! **Memory.** The graph's size is bounded by the table-size option (`TranspositionTableSizeMB`):
//! every node and edge is counted (with the hash map's share) against that budget, and when
//! the next one would not fit, the graph stops growing: no new nodes or edges are made, and
//! iterations keep refining the existing ones (a leaf that would need a new node is evaluated
//! without storing it). The root's edges are always made. Storing nodes from their second
//! visit on made the 64 MiB default last several times longer: in a 20-game match against
//! alpha-beta at 0.5 s per move the score went from 2 wins and 18 losses to 5 wins, 1 draw
//! and 14 losses, as much as storing every node in 256 MiB.
//!
//! **Depth.** `bestmove depth N` runs [`visits_for_depth`]`(N)` = 1000 x 2^(N-1) iterations in
//! all (every thread counts towards the same total), doubling per depth like an alpha-beta
//! search's cost; intermediate reports come each time the count passes the next depth's
//! number, with the iterations so far, the best move's value and the principal line (the
//! most visited moves, proven wins first).
//!
//! With one thread the search is deterministic for a given number of iterations.

use super::time::TimeManager;
use super::{Limits, SearchInfo};
use crate::core::{Bug, Cell, Color, Game, GameState, Move, MoveGen, MoveList, Piece};
use crate::eval::WIN;
use dashmap::DashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard};
use std::time::Instant;

/// Iterations of `bestmove depth 1`; every further depth doubles the number.
pub const VISITS_AT_DEPTH_ONE: u64 = 1_000;

/// The number of iterations `bestmove depth N` runs: 1000 x 2^(N-1) (saturating).
pub fn visits_for_depth(depth: u32) -> u64 {
    let depth = depth.max(1);
    VISITS_AT_DEPTH_ONE.saturating_mul(1u64.checked_shl(depth - 1).unwrap_or(u64::MAX))
}

/// The deepest depth whose number of iterations `visits` has reached (0 below depth 1).
pub fn depth_for_visits(visits: u64) -> u32 {
    (1..=63)
        .take_while(|&d| visits_for_depth(d) <= visits)
        .last()
        .unwrap_or(0)
}

/// Tunable constants of the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsParams {
    /// Weight of the exploration term in PUCT.
    pub exploration: f32,
    /// Evaluation units that map to a value of tanh(1) ~ 0.76.
    pub eval_scale: f32,
    /// How much worse than its parent's value a move not yet tried is assumed to be.
    pub first_play_reduction: f32,
    /// Ordering units per factor e in the priors (a softmax of the ordering bonus over this).
    pub prior_temperature: f32,
    /// Moves a node considers from its first expansion.
    pub widen_base: f32,
    /// Further moves considered per square root of the node's visits.
    pub widen_factor: f32,
    /// Losses added per in-flight descent through an edge (virtual loss).
    pub virtual_loss: f32,
}

impl Default for MctsParams {
    fn default() -> Self {
        MctsParams {
            exploration: 2.5,
            eval_scale: 400.0,
            first_play_reduction: 0.3,
            prior_temperature: 20_000.0,
            widen_base: 4.0,
            widen_factor: 1.5,
            virtual_loss: 1.0,
        }
    }
}

/// A proof, from the view of the side to move in its position, packed in a `u32`: the kind in
/// the low two bits, the length in plies above them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proof {
    Unknown,
    /// The side to move wins in this many plies.
    Win(u32),
    /// The side to move loses in this many plies.
    Loss(u32),
    Draw,
}

impl Proof {
    fn pack(self) -> u32 {
        match self {
            Proof::Unknown => 0,
            Proof::Win(d) => 1 | d << 2,
            Proof::Loss(d) => 2 | d << 2,
            Proof::Draw => 3,
        }
    }

    fn unpack(x: u32) -> Proof {
        match x & 3 {
            1 => Proof::Win(x >> 2),
            2 => Proof::Loss(x >> 2),
            3 => Proof::Draw,
            _ => Proof::Unknown,
        }
    }

    /// The value of a proven position for its side to move.
    fn value(self) -> Option<f32> {
        match self {
            Proof::Unknown => None,
            Proof::Win(_) => Some(1.0),
            Proof::Loss(_) => Some(-1.0),
            Proof::Draw => Some(0.0),
        }
    }
}

/// Fixed-point scale of the value sums (values lie in [-1, 1]).
const VALUE_ONE: f32 = (1u32 << 20) as f32;

/// A move out of a node.
struct Edge {
    /// The move as generated by the thread that made the edge.
    mv: Move,
    /// The cell the moving piece leaves (`NO_CELL` for a placement or a pass). With it the
    /// move is re-made for the piece of the same kind in a transposed position, whose
    /// copies of a bug may be numbered otherwise.
    from: u16,
    prior: f32,
    visits: AtomicU32,
    /// Descents through this edge not yet backed up (the virtual loss).
    in_flight: AtomicU32,
    /// The child's proof, once known (from the child's side-to-move view).
    proof: AtomicU32,
    /// The parent's estimate of the move (`f32` bits, parent's view): the child's value as
    /// last seen through this edge, or without a child the mean of the values backed up.
    q: AtomicU32,
    child: OnceLock<Arc<Node>>,
}

const NO_CELL: u16 = u16::MAX;

impl Edge {
    /// The move in `game` (a position with this edge's node's key), or `None` when the piece
    /// it names is not there (only after a hash collision).
    fn resolve(&self, game: &Game) -> Option<Move> {
        let Some(piece) = self.mv.piece() else {
            return Some(Move::PASS);
        };
        let actual = if self.from == NO_CELL {
            game.next_in_hand(piece.color(), piece.bug())?
        } else {
            game.board().top(Cell::from_index(self.from as usize)?)?
        };
        (actual.color() == piece.color() && actual.bug() == piece.bug())
            .then(|| Move::new(actual, self.mv.to()))
    }

    fn proof(&self) -> Proof {
        Proof::unpack(self.proof.load(Ordering::Relaxed))
    }

    fn q(&self) -> f32 {
        f32::from_bits(self.q.load(Ordering::Relaxed))
    }
}

/// A position of the graph.
struct Node {
    /// N(s): 1 for the evaluation that created it, plus one per iteration through an edge.
    visits: AtomicU32,
    /// Sum of the values backed up through it (side to move's view), times `VALUE_ONE`.
    value: AtomicI64,
    proof: AtomicU32,
    /// Number of legal moves, known from the first expansion on (0 before).
    legal: AtomicU32,
    /// The edges made so far, highest prior first.
    edges: RwLock<Vec<Edge>>,
}

impl Node {
    fn new(value: f32) -> Node {
        Node {
            visits: AtomicU32::new(1),
            value: AtomicI64::new((value * VALUE_ONE) as i64),
            proof: AtomicU32::new(0),
            legal: AtomicU32::new(0),
            edges: RwLock::new(Vec::new()),
        }
    }

    fn visits(&self) -> u32 {
        self.visits.load(Ordering::Relaxed)
    }

    /// Q(s), from the side to move's view.
    fn q(&self) -> f32 {
        let n = self.visits();
        if n == 0 {
            0.0
        } else {
            self.value.load(Ordering::Relaxed) as f32 / VALUE_ONE / n as f32
        }
    }

    fn proof(&self) -> Proof {
        Proof::unpack(self.proof.load(Ordering::Relaxed))
    }

    fn edges(&self) -> RwLockReadGuard<'_, Vec<Edge>> {
        self.edges.read().unwrap_or_else(|e| e.into_inner())
    }
}

/// Hashes a position key (already a Zobrist hash) to itself.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// Bytes a node costs: itself, the `Arc`'s counters and its share of the map (an entry and
/// its control byte, at the map's lowest load after growing: a little under half full).
const NODE_BYTES: usize = std::mem::size_of::<Node>()
    + 2 * std::mem::size_of::<usize>()
    + 3 * (std::mem::size_of::<(u64, Arc<Node>)>() + 1);
/// Bytes an edge costs.
const EDGE_BYTES: usize = std::mem::size_of::<Edge>();

/// The key of the position `game` in the graph: the Zobrist hash, and in the Pillbug game
/// types the frozen piece's cell when it changes the legal moves (the piece is the side to
/// move's own, or a Pillbug or Mosquito of the side to move stands next to it and could
/// otherwise throw it).
pub fn position_key(game: &Game) -> u64 {
    let hash = game.hash();
    let Some(frozen) = game.frozen() else {
        return hash;
    };
    if !game.game_type().has(Bug::Pillbug) {
        return hash;
    }
    let board = game.board();
    let Some(at) = board.position(frozen) else {
        return hash;
    };
    let me = game.side_to_move();
    let matters = frozen.color() == me
        || at.neighbours().iter().any(|&c| {
            board
                .top(c)
                .is_some_and(|p| p.color() == me && matches!(p.bug(), Bug::Pillbug | Bug::Mosquito))
        });
    if matters {
        hash ^ (at.index() as u64 + 1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(17)
    } else {
        hash
    }
}

/// The search graph shared by the threads of one search.
struct Graph {
    nodes: DashMap<u64, Arc<Node>, BuildHasherDefault<KeyHasher>>,
    /// Bytes counted against the budget.
    used: AtomicUsize,
    budget: usize,
}

impl Graph {
    fn new(memory_mb: usize) -> Graph {
        Graph {
            nodes: DashMap::default(),
            used: AtomicUsize::new(0),
            budget: memory_mb.max(1).saturating_mul(1 << 20),
        }
    }

    /// Takes `bytes` from the budget; false (and nothing taken) when they do not fit.
    /// `force` takes them anyway (the root's edges).
    fn reserve(&self, bytes: usize, force: bool) -> bool {
        let before = self.used.fetch_add(bytes, Ordering::Relaxed);
        if force || before + bytes <= self.budget {
            true
        } else {
            self.used.fetch_sub(bytes, Ordering::Relaxed);
            false
        }
    }

    /// The node of `key`, made with the value `value` when it is new and memory allows.
    /// Returns the node and whether this call made it; `None` when the graph is full.
    fn get_or_insert(&self, key: u64, value: f32, proof: Proof) -> Option<(Arc<Node>, bool)> {
        if let Some(n) = self.nodes.get(&key) {
            return Some((Arc::clone(&n), false));
        }
        if !self.reserve(NODE_BYTES, false) {
            return None;
        }
        let mut made = false;
        let node = self
            .nodes
            .entry(key)
            .or_insert_with(|| {
                made = true;
                let node = Node::new(value);
                node.proof.store(proof.pack(), Ordering::Relaxed);
                Arc::new(node)
            })
            .clone();
        if !made {
            self.used.fetch_sub(NODE_BYTES, Ordering::Relaxed);
        }
        Some((node, made))
    }

    fn get(&self, key: u64) -> Option<Arc<Node>> {
        self.nodes.get(&key).map(|n| Arc::clone(&n))
    }
}

/// Everything the threads of one search share.
struct Shared<'a> {
    graph: Graph,
    root: Arc<Node>,
    root_game: &'a Game,
    params: MctsParams,
    eval: &'a (dyn Fn(&Game) -> i32 + Sync),
    /// Iterations started, all threads together.
    iterations: AtomicU64,
    max_iterations: Option<u64>,
    stop: &'a AtomicBool,
    clock: TimeManager,
    /// Raised when one thread finds the search over.
    done: AtomicBool,
}

impl Shared<'_> {
    /// The value of `game` (not over) for its side to move, from the evaluation.
    fn leaf_value(&self, game: &Game) -> f32 {
        ((self.eval)(game) as f32 / self.params.eval_scale).tanh()
    }

    /// Whether the root's result is known for good: proven lost or drawn, won in one, or won
    /// with every move proven (a proven win in more plies goes on looking for a shorter one).
    fn root_settled(&self) -> bool {
        match self.root.proof() {
            Proof::Unknown => false,
            Proof::Win(d) if d > 1 => {
                let edges = self.root.edges();
                edges.len() == self.root.legal.load(Ordering::Relaxed) as usize
                    && edges.iter().all(|e| e.proof() != Proof::Unknown)
            }
            _ => true,
        }
    }

    /// Whether the search must end now (also raises `done` for the other threads).
    fn over(&self) -> bool {
        if self.done.load(Ordering::Relaxed) {
            return true;
        }
        let over = self.stop.load(Ordering::Relaxed)
            || self.root_settled()
            || self
                .max_iterations
                .is_some_and(|m| self.iterations.load(Ordering::Relaxed) >= m);
        if over {
            self.done.store(true, Ordering::Relaxed);
        }
        over
    }
}

/// One thread's scratch.
struct Worker<'a> {
    sh: &'a Shared<'a>,
    game: Game,
    movegen: MoveGen,
    list: MoveList,
    bonus: Vec<i32>,
    /// Sort keys of the moves by prior: bonus below the best in the high half, index low.
    order: Vec<u64>,
    /// The nodes of the current descent with the edge taken from each.
    path: Vec<(Arc<Node>, usize)>,
}

impl<'a> Worker<'a> {
    fn new(sh: &'a Shared<'a>) -> Worker<'a> {
        let mut game = sh.root_game.clone();
        // Repetitions are draws in the search; the threefold test after each move is not needed.
        game.set_repetition_draw(false);
        Worker {
            sh,
            game,
            movegen: MoveGen::new(),
            list: MoveList::new(),
            bonus: Vec::new(),
            order: Vec::new(),
            path: Vec::with_capacity(64),
        }
    }

    /// Whether `node` is the root, proven won: then the search looks for a shorter win among
    /// the moves not proven yet.
    fn hunting(&self, node: &Node) -> bool {
        std::ptr::eq(node, &*self.sh.root) && matches!(node.proof(), Proof::Win(_))
    }

    /// Makes the edges of `node` (the position `self.game`) up to `target` of them, highest
    /// prior first; the root's first edges are made even when the graph is full, other
    /// nodes get none when they do not fit.
    fn widen(&mut self, node: &Node, target: usize, is_root: bool) {
        let mut edges = node.edges.write().unwrap_or_else(|e| e.into_inner());
        let force = is_root && edges.is_empty();
        let legal = node.legal.load(Ordering::Relaxed) as usize;
        if edges.len() >= target || (legal != 0 && edges.len() >= legal) {
            return;
        }
        // A full graph: spare the move generation.
        let graph = &self.sh.graph;
        if !force && graph.used.load(Ordering::Relaxed) + EDGE_BYTES > graph.budget {
            return;
        }
        self.movegen.generate(&self.game, &mut self.list);
        let n = self.list.len();
        node.legal.store(n as u32, Ordering::Relaxed);
        if target.min(n) <= edges.len() {
            return;
        }
        // Grow at least to twice the edges (fewer regenerations), if that fits.
        let doubled = target.max(2 * edges.len()).min(n);
        let target = if self
            .sh
            .graph
            .reserve((doubled - edges.len()) * EDGE_BYTES, force)
        {
            doubled
        } else if self
            .sh
            .graph
            .reserve((target.min(n) - edges.len()) * EDGE_BYTES, force)
        {
            target.min(n)
        } else {
            return;
        };
        super::worker::queen_bonus(&self.game, self.list.as_slice(), &mut self.bonus);
        let t = self.sh.params.prior_temperature;
        let top = self.bonus.iter().copied().max().unwrap_or(0);
        let weight = |b: i32| ((b - top) as f32 / t).exp();
        let total: f32 = self.bonus.iter().map(|&b| weight(b)).sum();
        // Highest bonus first; ties in generation order, so every thread gets the same order.
        self.order.clear();
        self.order.extend(
            self.bonus
                .iter()
                .enumerate()
                .map(|(i, &b)| ((top - b) as u64) << 32 | i as u64),
        );
        self.order.sort_unstable();
        let made = edges.len();
        edges.reserve_exact(target - made);
        let board = self.game.board();
        for &key in &self.order[made..target] {
            let i = (key & 0xffff_ffff) as usize;
            let mv = self.list.as_slice()[i];
            let w = weight(self.bonus[i]);
            let from = mv
                .piece()
                .and_then(|p| board.position(p))
                .map_or(NO_CELL, |c| c.index() as u16);
            edges.push(Edge {
                mv,
                from,
                prior: w / total,
                visits: AtomicU32::new(0),
                in_flight: AtomicU32::new(0),
                proof: AtomicU32::new(0),
                q: AtomicU32::new(0),
                child: OnceLock::new(),
            });
        }
    }

    /// The edge of `node` to descend (PUCT with virtual loss over the edges it considers),
    /// and how many edges it would like to have: a node visited N times considers
    /// `widen_base + widen_factor * sqrt(N)` edges in order of prior, not counting those proven
    /// lost (or, at a root proven won, proven at all). `None` when it has no edges.
    fn select(&self, node: &Node, edges: &[Edge]) -> (Option<usize>, usize) {
        let p = &self.sh.params;
        let n = node.visits();
        let sqrt_n = (n.max(1) as f32).sqrt();
        let allowance = (p.widen_base + p.widen_factor * sqrt_n) as usize;
        let fpu = node.q() - p.first_play_reduction;
        let hunting = self.hunting(node);
        let mut open = 0;
        let mut best = None;
        let mut best_score = f32::NEG_INFINITY;
        let mut want = edges.len();
        for (i, e) in edges.iter().enumerate() {
            if open == allowance {
                want = i;
                break;
            }
            let proof = e.proof();
            let score = match proof {
                _ if hunting && proof != Proof::Unknown => continue,
                // The child loses: take the shortest such win at once.
                Proof::Loss(d) => 1e6 - d as f32,
                // The child wins: only when nothing else is left, the longest loss.
                Proof::Win(d) => -1e6 + d as f32,
                _ => {
                    open += 1;
                    let visits = e.visits.load(Ordering::Relaxed) as f32;
                    let vl = e.in_flight.load(Ordering::Relaxed) as f32;
                    let q = if proof == Proof::Draw {
                        0.0
                    } else if visits > 0.0 {
                        e.q()
                    } else {
                        fpu
                    };
                    let q = if vl > 0.0 {
                        let seen = visits.max(1.0);
                        (q * seen - p.virtual_loss * vl) / (seen + vl)
                    } else {
                        q
                    };
                    q + p.exploration * e.prior * sqrt_n / (1.0 + visits + vl)
                }
            };
            if score > best_score {
                best_score = score;
                best = Some(i);
            }
        }
        if open < allowance {
            want = edges.len() + allowance - open;
        }
        (best, want)
    }

    /// The value of the new leaf `self.game` (not over) for its side to move, and its proof:
    /// a win in one when the side to move can surround the enemy queen at once (looked at
    /// only when five of its neighbours are taken), else the squashed evaluation.
    fn leaf(&mut self) -> (f32, Proof) {
        let me = self.game.side_to_move();
        if self.game.queen_pressure(me.opponent()) >= 5
            && let Some(q) = self.game.board().position(Piece::queen(me.opponent()))
        {
            self.movegen.generate_next_to(&self.game, q, &mut self.list);
            let wins = if me == Color::White {
                GameState::WhiteWins
            } else {
                GameState::BlackWins
            };
            for &m in self.list.iter() {
                self.game.play_unchecked(m);
                let won = self.game.state() == wins;
                self.game.undo();
                if won {
                    return (1.0, Proof::Win(1));
                }
            }
        }
        (self.sh.leaf_value(&self.game), Proof::Unknown)
    }

    /// One iteration from the root: descend, evaluate, back up.
    fn iterate(&mut self) {
        let sh = self.sh;
        self.path.clear();
        let mut node = Arc::clone(&sh.root);
        // The value at the end of the descent, from the view of the side to move there.
        let value;
        loop {
            let is_root = self.path.is_empty();
            let mut widened = false;
            let chosen = loop {
                let edges = node.edges();
                let (best, want) = self.select(&node, &edges);
                let (len, legal) = (edges.len(), node.legal.load(Ordering::Relaxed) as usize);
                if !widened && want > len && (legal == 0 || len < legal) {
                    drop(edges);
                    widened = true;
                    self.widen(&node, want, is_root);
                    continue;
                }
                // No edge: the graph is full and this leaf has none; it backs up what it knows.
                break best.and_then(|i| {
                    let e = &edges[i];
                    e.resolve(&self.game).map(|m| {
                        e.in_flight.fetch_add(1, Ordering::Relaxed);
                        let visits = e.visits.load(Ordering::Relaxed);
                        (i, m, e.proof(), visits, e.child.get().cloned())
                    })
                });
            };
            let Some((i, m, edge_proof, edge_visits, child)) = chosen else {
                value = node.q();
                break;
            };
            self.game.play_unchecked(m);
            // The child to descend into, or the value (child's view) that ends the descent.
            let step: Result<Arc<Node>, f32> = 'step: {
                if self.game.state().is_over() {
                    let mover = self.game.side_to_move().opponent();
                    let proof = match self.game.state() {
                        GameState::WhiteWins | GameState::BlackWins => {
                            let mover_won = (self.game.state() == GameState::WhiteWins)
                                == (mover == Color::White);
                            if mover_won {
                                Proof::Loss(0)
                            } else {
                                Proof::Win(0)
                            }
                        }
                        _ => Proof::Draw,
                    };
                    node.edges()[i].proof.store(proof.pack(), Ordering::Relaxed);
                    break 'step Err(proof.value().unwrap_or(0.0));
                }
                if self.game.is_repetition() {
                    // A draw on this path only: nothing is stored.
                    break 'step Err(0.0);
                }
                if let Some(v) = edge_proof.value() {
                    break 'step Err(v);
                }
                let child = match child {
                    Some(c) => c,
                    None => {
                        let key = position_key(&self.game);
                        let (c, made) = match sh.graph.get(key) {
                            Some(c) => (c, false),
                            None => {
                                let (v, proof) = self.leaf();
                                // A node is stored from the second visit on (most leaves get
                                // one).
                                let stored = if edge_visits == 0 {
                                    None
                                } else {
                                    sh.graph.get_or_insert(key, v, proof)
                                };
                                match stored {
                                    Some(found) => found,
                                    None => {
                                        // Evaluated but not stored (first visit, or a full
                                        // graph); a proof stays on the edge.
                                        if proof != Proof::Unknown {
                                            node.edges()[i]
                                                .proof
                                                .store(proof.pack(), Ordering::Relaxed);
                                        }
                                        break 'step Err(v);
                                    }
                                }
                            }
                        };
                        let _ = node.edges()[i].child.set(Arc::clone(&c));
                        if made {
                            break 'step Err(c.q());
                        }
                        c
                    }
                };
                let child_proof = child.proof();
                if let Some(v) = child_proof.value() {
                    node.edges()[i]
                        .proof
                        .store(child_proof.pack(), Ordering::Relaxed);
                    break 'step Err(v);
                }
                if edge_visits < child.visits() {
                    // The child knows more than this edge has counted: take its value.
                    break 'step Err(child.q());
                }
                Ok(child)
            };
            self.path.push((node, i));
            match step {
                Ok(child) => node = child,
                Err(v) => {
                    value = v;
                    break;
                }
            }
        }
        self.backup(value);
    }

    /// Backs `value` (for the side to move at the end of the path) up the path, and the
    /// proofs with it; puts the game back at the root.
    fn backup(&mut self, mut value: f32) {
        while let Some((node, i)) = self.path.pop() {
            self.game.undo();
            value = -value;
            {
                let edges = node.edges();
                let e = &edges[i];
                let n = e.visits.fetch_add(1, Ordering::Relaxed) + 1;
                let q = match e.child.get() {
                    Some(c) => {
                        let p = c.proof();
                        if p != Proof::Unknown {
                            e.proof.store(p.pack(), Ordering::Relaxed);
                        }
                        -c.q()
                    }
                    None => e.q() + (value - e.q()) / n as f32,
                };
                e.q.store(q.to_bits(), Ordering::Relaxed);
                e.in_flight.fetch_sub(1, Ordering::Relaxed);
                node.visits.fetch_add(1, Ordering::Relaxed);
                node.value
                    .fetch_add((value * VALUE_ONE) as i64, Ordering::Relaxed);
                // The root's proof is looked at again: a shorter win may turn up.
                if node.proof() == Proof::Unknown || self.path.is_empty() {
                    let proof = prove(&node, &edges);
                    if proof != Proof::Unknown {
                        node.proof.store(proof.pack(), Ordering::Relaxed);
                    }
                }
            }
        }
    }
}

/// The proof of `node` from its edges' proofs (`Unknown` when they do not settle it).
fn prove(node: &Node, edges: &[Edge]) -> Proof {
    let legal = node.legal.load(Ordering::Relaxed) as usize;
    let mut shortest_win = None;
    let mut longest_loss = 0;
    let mut all_proven = legal != 0 && edges.len() == legal;
    let mut all_lost = all_proven;
    for e in edges.iter() {
        match e.proof() {
            Proof::Loss(d) => shortest_win = Some(shortest_win.map_or(d, |w: u32| w.min(d))),
            Proof::Win(d) => longest_loss = longest_loss.max(d),
            Proof::Draw => all_lost = false,
            Proof::Unknown => {
                all_proven = false;
                all_lost = false;
            }
        }
    }
    if let Some(d) = shortest_win {
        Proof::Win(d + 1)
    } else if all_lost {
        Proof::Loss(longest_loss + 1)
    } else if all_proven {
        Proof::Draw
    } else {
        Proof::Unknown
    }
}

/// A root move's standing: proven wins first (shortest first), then unproven moves and draws
/// by visits (then value), then proven losses (longest first).
fn rank(e: &Edge) -> (i32, i64) {
    let visits = e.visits.load(Ordering::Relaxed) as i64;
    match e.proof() {
        Proof::Loss(d) => (2, -(d as i64)),
        Proof::Win(d) => (0, d as i64),
        _ => (1, visits),
    }
}

/// The index of the best edge of `edges` (see [`rank`]), `None` when there are none.
fn best_edge(edges: &[Edge]) -> Option<usize> {
    (0..edges.len()).max_by(|&a, &b| {
        let (ea, eb) = (&edges[a], &edges[b]);
        let qa = ea.child.get().map_or(-1.0, |c| -c.q());
        let qb = eb.child.get().map_or(-1.0, |c| -c.q());
        rank(ea)
            .cmp(&rank(eb))
            .then(qa.total_cmp(&qb))
            // Earlier (higher prior) first on a full tie.
            .then(b.cmp(&a))
    })
}

/// The report of the search so far: the best root move, its value, the principal line.
fn summary(sh: &Shared, depth: u32) -> SearchInfo {
    let iterations = sh.iterations.load(Ordering::Relaxed);
    let mut pv = Vec::new();
    let mut score = 0;
    let mut share = 0.0;
    let mut game = sh.root_game.clone();
    game.set_repetition_draw(false);
    let mut node = Arc::clone(&sh.root);
    while pv.len() < 32 {
        let next = {
            let edges = node.edges();
            let Some(i) = best_edge(&edges) else {
                break;
            };
            let e = &edges[i];
            let Some(m) = e.resolve(&game) else {
                break;
            };
            if pv.is_empty() {
                let total: u32 = edges.iter().map(|e| e.visits.load(Ordering::Relaxed)).sum();
                let visits = e.visits.load(Ordering::Relaxed);
                share = if total > 0 {
                    visits as f32 / total as f32
                } else {
                    0.0
                };
                score = match e.proof() {
                    Proof::Loss(d) => WIN - d as i32 - 1,
                    Proof::Win(d) => -WIN + d as i32 + 1,
                    Proof::Draw => 0,
                    Proof::Unknown => {
                        let q = e.child.get().map_or(0.0, |c| -c.q()).clamp(-0.999, 0.999);
                        (sh.params.eval_scale * q.atanh()) as i32
                    }
                };
            }
            if e.visits.load(Ordering::Relaxed) == 0 && !pv.is_empty() {
                break;
            }
            (m, e.child.get().cloned())
        };
        pv.push(next.0);
        game.play_unchecked(next.0);
        match next.1 {
            Some(c) if !game.state().is_over() && !game.is_repetition() => node = c,
            _ => break,
        }
    }
    SearchInfo {
        depth,
        rank: 1,
        score,
        pv,
        nodes: iterations,
        visit_share: Some(share),
    }
}

/// Searches `game` (not over) with Monte Carlo graph search on `threads` threads sharing one
/// graph of at most `memory_mb` MiB, and returns the chosen move (always legal). `report`
/// receives a [`SearchInfo`] each time the iterations pass the next depth's number, and once
/// at the end.
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
    let legal = game.legal_moves();
    let Some(&fallback) = legal.first() else {
        return Move::PASS;
    };
    if game.state().is_over() {
        return Move::PASS;
    }
    let graph = Graph::new(memory_mb);
    let root_value = ((eval)(game) as f32 / params.eval_scale).tanh();
    let root = match graph.get_or_insert(position_key(game), root_value, Proof::Unknown) {
        Some((r, _)) => r,
        None => Arc::new(Node::new(root_value)),
    };
    let sh = Shared {
        graph,
        root,
        root_game: game,
        params,
        eval,
        iterations: AtomicU64::new(0),
        max_iterations: limits.depth.map(visits_for_depth),
        stop,
        clock: TimeManager::new(limits, start),
        done: AtomicBool::new(false),
    };
    let run = |main: Option<&mut dyn FnMut(&SearchInfo)>| {
        let mut w = Worker::new(&sh);
        let mut main = main;
        let mut reported = 0;
        let mut count = 0u64;
        while !sh.over() {
            if count.is_multiple_of(64) && sh.clock.hard_expired() {
                sh.done.store(true, Ordering::Relaxed);
                break;
            }
            sh.iterations.fetch_add(1, Ordering::Relaxed);
            w.iterate();
            count += 1;
            if let Some(r) = main.as_mut()
                && count.is_multiple_of(16)
            {
                let depth = depth_for_visits(sh.iterations.load(Ordering::Relaxed));
                if depth > reported {
                    reported = depth;
                    r(&summary(&sh, depth));
                }
            }
        }
    };
    if threads <= 1 {
        run(Some(report));
    } else {
        std::thread::scope(|s| {
            for i in 1..threads {
                // A helper the system refuses to start only leaves fewer threads.
                let _ = std::thread::Builder::new()
                    .name(format!("waggle-mcts-{i}"))
                    .spawn_scoped(s, || run(None));
            }
            run(Some(report));
        });
    }
    let iterations = sh.iterations.load(Ordering::Relaxed);
    let mut depth = depth_for_visits(iterations).max(1);
    if sh.root.proof() != Proof::Unknown {
        // A proven result holds at every depth.
        depth = depth.max(limits.depth.unwrap_or(0));
    }
    let info = summary(&sh, depth);
    let chosen = info.pv.first().copied().filter(|m| legal.contains(m));
    if chosen.is_some() {
        report(&info);
    }
    chosen.unwrap_or(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_game_string;

    fn evaluate(game: &Game) -> i32 {
        crate::eval::evaluate(game, &crate::eval::EvalWeights::default())
    }

    /// Runs `iterations` iterations from `game` on `threads` threads and hands back the graph.
    fn grow(game: &Game, iterations: u64, threads: usize, memory_mb: usize) -> Graph {
        let graph = Graph::new(memory_mb);
        let root = graph
            .get_or_insert(position_key(game), 0.0, Proof::Unknown)
            .map(|r| r.0)
            .expect("room for the root");
        let stop = AtomicBool::new(false);
        let limits = Limits::default();
        let sh = Shared {
            graph,
            root,
            root_game: game,
            params: MctsParams::default(),
            eval: &evaluate,
            iterations: AtomicU64::new(0),
            max_iterations: Some(iterations),
            stop: &stop,
            clock: TimeManager::new(&limits, Instant::now()),
            done: AtomicBool::new(false),
        };
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    let mut w = Worker::new(&sh);
                    while !sh.over() {
                        sh.iterations.fetch_add(1, Ordering::Relaxed);
                        w.iterate();
                    }
                });
            }
        });
        sh.graph
    }

    fn midgame() -> Game {
        parse_game_string(
            "Base+MLP;InProgress;White[6];wS1;bG1 wS1-;wQ \\wS1;bQ bG1-;wA1 /wS1;bA1 bQ\\;wG1 wQ/;bS1 bA1-;wB1 -wQ;bM bG1/",
            true,
        )
        .expect("game")
    }

    /// `base` followed by the moves `line` (MoveStrings).
    fn after(base: &Game, line: &[&str]) -> Game {
        let mut g = base.clone();
        for s in line {
            let m = crate::notation::parse_move(&g, s).expect("move");
            g.play(m).expect("legal");
        }
        g
    }

    /// Four plies of Base, then two orders of white's next placements (and a black one): the
    /// same position with the two white Soldier Ants numbered the other way round.
    fn transposed() -> (Game, Game, Game) {
        let root = after(
            &Game::new(crate::core::GameType::BASE),
            &["wS1", "bS1 wS1-", "wQ \\wS1", "bQ bS1-"],
        );
        let a = after(&root, &["wA1 /wS1", "bA1 bQ-", "wA2 -wQ", "bA2 bA1-"]);
        let b = after(&root, &["wA1 -wQ", "bA1 bQ-", "wA2 /wS1", "bA2 bA1-"]);
        (root, a, b)
    }

    #[test]
    fn two_move_orders_reach_one_node() {
        let (root, a, b) = transposed();
        assert_eq!(position_key(&a), position_key(&b));
        let graph = grow(&root, 20_000, 1, 64);
        // Nodes reached from two different parents: one node for two move orders.
        let mut parents: std::collections::HashMap<*const Node, usize> = Default::default();
        for entry in graph.nodes.iter() {
            let mut children: Vec<*const Node> = entry
                .value()
                .edges()
                .iter()
                .filter_map(|e| e.child.get().map(Arc::as_ptr))
                .collect();
            children.sort();
            children.dedup();
            for c in children {
                *parents.entry(c).or_default() += 1;
            }
        }
        let merged = parents.values().filter(|&&n| n >= 2).count();
        assert!(merged > 100, "{merged} nodes with two parents or more");
        assert!(parents.values().all(|&n| n <= graph.nodes.len()));
    }

    #[test]
    fn edges_made_in_one_order_are_legal_in_the_other() {
        // The edges of a node are made in the position first reached; a transposition with the
        // pieces of a kind numbered otherwise re-makes each move for the piece on that cell.
        let (_, a, b) = transposed();
        let mut list = MoveList::new();
        MoveGen::new().generate(&a, &mut list);
        let legal_b = b.legal_moves();
        let mut renamed = 0;
        for &m in list.iter() {
            let from = m
                .piece()
                .and_then(|p| a.board().position(p))
                .map_or(NO_CELL, |c| c.index() as u16);
            let e = Edge {
                mv: m,
                from,
                prior: 0.0,
                visits: AtomicU32::new(0),
                in_flight: AtomicU32::new(0),
                proof: AtomicU32::new(0),
                q: AtomicU32::new(0),
                child: OnceLock::new(),
            };
            let got = e.resolve(&b).expect("the piece is there");
            assert!(legal_b.contains(&got));
            renamed += usize::from(got != m);
        }
        assert_eq!(list.len(), legal_b.len());
        assert!(renamed > 0, "the ants are numbered otherwise in b");
    }

    #[test]
    fn visit_counts_add_up_with_two_threads() {
        let game = midgame();
        let graph = grow(&game, 20_000, 2, 64);
        assert!(graph.nodes.len() > 1000);
        for entry in graph.nodes.iter() {
            let node = entry.value();
            let edges = node.edges();
            let through: u64 = edges
                .iter()
                .map(|e| e.visits.load(Ordering::Relaxed) as u64)
                .sum();
            assert!(
                edges
                    .iter()
                    .all(|e| e.in_flight.load(Ordering::Relaxed) == 0)
            );
            assert_eq!(
                node.visits() as u64,
                1 + through,
                "N(s) = 1 + sum of N(s,a)"
            );
        }
    }

    #[test]
    fn the_memory_bound_holds() {
        let game = midgame();
        let graph = grow(&game, 60_000, 2, 1);
        let budget = 1 << 20;
        let counted = graph.used.load(Ordering::Relaxed);
        assert!(counted <= budget, "counted {counted} of {budget}");
        // What is really held: the nodes, their edge vectors, the map's table.
        let edges: usize = graph
            .nodes
            .iter()
            .map(|e| e.value().edges().capacity() * EDGE_BYTES)
            .sum();
        let real = graph.nodes.len() * (std::mem::size_of::<Node>() + 16)
            + edges
            + graph.nodes.capacity() * (std::mem::size_of::<(u64, Arc<Node>)>() + 1);
        assert!(real <= budget, "holds {real} bytes of {budget}");
        // It filled up (what is left is less than a node and its edges) and the search went
        // on refining: far more iterations than nodes.
        assert!(budget - counted < NODE_BYTES + 200 * EDGE_BYTES);
        assert!(graph.nodes.len() * 4 < 60_000);
    }

    #[test]
    fn depth_maps_to_visits() {
        assert_eq!(visits_for_depth(1), 1000);
        assert_eq!(visits_for_depth(5), 16_000);
        assert_eq!(depth_for_visits(15_999), 4);
        assert_eq!(depth_for_visits(16_000), 5);
        assert_eq!(depth_for_visits(999), 0);
        assert_eq!(visits_for_depth(100), u64::MAX);
    }
}
