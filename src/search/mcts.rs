//! Monte Carlo graph search: one search graph shared by every thread, with an evaluation at
//! the leaves and an exact solver.
//!
//! **The graph.** Nodes are positions. A position's key is its Zobrist hash ([`Game::hash`])
//! and, in the Pillbug game types, the frozen piece when it changes the legal moves
//! ([`position_key`]); a concurrent hash map ([`DashMap`]) maps the key to the node's index,
//! so a position reached by two move orders is one node. Each node holds its visit count
//! N(s) and the sum of the values backed up through it (so its value Q(s) is the mean from the
//! side to move's view), a proof, and its edges; each edge holds its move, a prior, its own
//! visit count N(s,a) and its child's index.
//! The parent's estimate of a move is the child node's value, whichever path the child's
//! visits came through ("Monte-Carlo Graph Search", Czech, Korus and Kersting, 2021): the edge
//! keeps the child's value as last seen through it (refreshed at every backup through it, so
//! that selection reads the edges only), and when an edge has been visited fewer times than
//! its child, an iteration stops there and backs up the child's value instead of descending,
//! so the edge catches up with what the child already knows. The threads' positions are
//! their own; a move stored on an edge is re-made for the piece on the same cell (or the next
//! of its kind in hand), since a transposition may number the copies of a bug otherwise.
//!
//! **Layout, and what the threads share.** Nodes and edges live in two arenas: chunks of
//! slots that never move, made when a bump index first hands out a slot in them, and found
//! by index (no reference counts). Every field of a node or an edge is an atomic, so nothing
//! is locked to read them. A node's edges are up to five runs of consecutive slots in the edge
//! arena (each widening adds a run; the last one takes every move left), named in the node
//! with a count of the edges made: the widening thread writes the edges, then stores the count
//! with `Release`, and a reader loads the count with `Acquire` before it looks at them. One
//! thread at a time widens a node (a flag in the same word as the count); the others go on
//! with the edges already there, or wait when there are none yet. An edge's visits, its
//! virtual loss and its proof share one word, so a descent and its backup add to it once
//! each and selection reads it once; the other counters are written with `Relaxed` stores
//! and adds (a thread may see a slightly stale value, which only shifts a choice between
//! nearly equal moves). What every iteration still writes is inherent to one shared graph:
//! the visits and value of each node and edge on its path, the root's included, and the read
//! lock of one of the map's 64 shards at the leaf. The counters that change apart from those
//! (the arenas' bump indices, the iteration count) sit in cache lines of their own, and
//! threads take iterations from the shared count 16 at a time. A search runs at most
//! [`MAX_THREADS`] threads.
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
//! child's value; a move not yet tried is valued by its one-ply value (see below) less a
//! first-play reduction (or, with `first_play_eval` off, by its parent's value less it). Threads
//! descend the same graph; a thread on its way down adds a virtual loss to each edge it takes,
//! which steers the other threads elsewhere until its value is backed up.
//!
//! **Knowledge from the alpha-beta side.** Priors are a softmax of the alpha-beta move
//! ordering's static part (moves onto or next to the enemy queen first, then moves relieving
//! the own queen; moves loosening the grip on the enemy queen or crowding the own queen last)
//! plus each move's value one ply on: when a node's edges are made, every legal move is
//! played and its position evaluated by the leaf evaluator, and the prior's log-weight gains
//! that value (mover's view) over `prior_eval` (75 evaluation units). It halves the
//! iterations a second and won by SPRT at 4+0.04 in Base+MLP, +114 Elo in 148 games (with
//! 150 units); the same values as the first values of the moves not yet tried won +85 more in
//! 200 games, and 75 units against 150 won +92 in 163.
//! Leaves are valued by the static evaluation squashed to [-1, 1] by tanh (or, with
//! `leaf_probe` set, by a shallow alpha-beta search that the caller's evaluator runs: at 4+0.04
//! in Base+MLP the quiescence search as the probe lost to the static evaluation by SPRT, -66
//! Elo in 196 games, so it is off by default). Progressive
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
//! their length in plies. A node's proof is worked out again from its edges after an
//! iteration through one of its proven edges, and at the root after every iteration (a
//! shorter win may turn up): an edge gets its proof in an iteration through it, so an
//! iteration through an unproven edge cannot change the node's proof. A position repeated
//! on the path (or in the game) scores as a draw for that iteration only: a proof depends on
//! the position and never on the path, so repetitions are never stored as a proven draw.
//!
//! **Memory.** The graph's size is bounded by the table-size option (`TranspositionTableSizeMB`):
//! the arenas' chunks (about a 256th of the budget each; a node's chunk with the hash map's
//! share for its nodes) and their directories are counted against that budget, and when the
//! next chunk would not fit, the graph stops growing once the chunks it has are used up: no
//! new nodes or edges are made, and iterations keep refining the existing ones (a leaf that
//! would need a new node is evaluated without storing it). The root and its first edges are
//! always made. Storing nodes from their second visit on made the 64 MiB default last several
//! times longer: in a 20-game match against alpha-beta at 0.5 s per move the score went from
//! 2 wins and 18 losses to 5 wins, 1 draw and 14 losses, as much as storing every node in
//! 256 MiB. An edge takes 24 bytes (48 when nodes were reference-counted and their edges
//! vectors behind a lock) and a node 64 (one cache line), plus 51 for its share of the map.
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
use dashmap::mapref::entry::Entry;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// The most threads a search runs (an edge counts its virtual loss in 8 bits).
pub const MAX_THREADS: usize = 64;

/// Iterations a thread claims from the shared count at a time.
const BATCH: u64 = 16;

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

/// Values leaves for one search thread: the score of a position (not over) for its side to
/// move, in evaluation units. [`search`] makes one per thread from its factory.
pub type LeafEval<'a> = Box<dyn FnMut(&Game) -> i32 + 'a>;

/// Tunable constants of the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsParams {
    /// Weight of the exploration term in PUCT.
    pub exploration: f32,
    /// Evaluation units that map to a value of tanh(1) ~ 0.76. The Texel fits of the learned
    /// weights put a score `e`'s winning chance at sigmoid(K e) with K ~ 0.007-0.009, which as
    /// a value in [-1, 1] is tanh(K e / 2): a scale of 230-290. Sharper values won by SPRT:
    /// 250 beat 400, 180 beat 250 and 120 beat 180 (80 against 120: +26, not yet decided).
    pub eval_scale: f32,
    /// How much worse than its first value (its one-ply value, or its parent's value) a move
    /// not yet tried is assumed to be.
    pub first_play_reduction: f32,
    /// Ordering units per factor e in the priors (a softmax of the ordering bonus over this).
    pub prior_temperature: f32,
    /// Evaluation units per factor e in the priors: each move's prior is weighted by
    /// exp(v / this), with v the leaf evaluator's value of the position after it (mover's
    /// view). 0: the priors come from the move ordering alone.
    pub prior_eval: f32,
    /// With `prior_eval` set, whether a move not yet tried is valued by that one-ply value
    /// (squashed like a leaf's, less `first_play_reduction`) instead of by its parent's value.
    pub first_play_eval: bool,
    /// Moves a node considers from its first expansion.
    pub widen_base: f32,
    /// Further moves considered per square root of the node's visits.
    pub widen_factor: f32,
    /// Losses added per in-flight descent through an edge (virtual loss).
    pub virtual_loss: f32,
    /// How a leaf is valued: 0 = the static evaluation; 1 = the alpha-beta quiescence
    /// search; d >= 2 = an alpha-beta search of d - 1 plies (the evaluator passed to
    /// [`search`] reads this).
    pub leaf_probe: u32,
}

impl Default for MctsParams {
    fn default() -> Self {
        MctsParams {
            exploration: 2.5,
            eval_scale: 120.0,
            first_play_reduction: 0.1,
            prior_temperature: 20_000.0,
            prior_eval: 75.0,
            first_play_eval: true,
            widen_base: 4.0,
            widen_factor: 1.5,
            virtual_loss: 1.0,
            leaf_probe: 0,
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

/// One visit in an edge's `stats` word (the visits are its high half).
const ONE_VISIT: u64 = 1 << 32;
/// Where an edge's `stats` word keeps the proof: 24 bits above the virtual loss's 8.
const PROOF_SHIFT: u32 = 8;
const PROOF_BITS: u64 = 0xff_ffff << PROOF_SHIFT;
/// The longest proof length an edge keeps (longer ones are kept as this long).
const MAX_PROOF_LENGTH: u32 = (1 << 22) - 1;

/// A move out of a node, in the edge arena (24 bytes). Every field is an atomic: the thread
/// that makes the edge writes them before it publishes the node's new edge count (with
/// `Release`), and readers load that count with `Acquire` first, so no lock is needed.
#[derive(Default)]
struct Edge {
    /// N(s,a) in bits 32-63; the child's proof once known (from the child's side-to-move
    /// view, packed) in bits 8-31; in bits 0-7 the descents through this edge not yet backed
    /// up (the virtual loss: at most one per thread, and there are at most `MAX_THREADS`). A
    /// descent adds 1 and its backup `ONE_VISIT - 1`, and selection reads all three at once.
    stats: AtomicU64,
    /// The parent's estimate of the move (`f32` bits, parent's view): the child's value as
    /// last seen through this edge, or without a child the mean of the values backed up;
    /// before the first visit, the move's one-ply value when the priors use it.
    q: AtomicU32,
    /// The prior (`f32` bits).
    prior: AtomicU32,
    /// The move as generated by the thread that made the edge: the piece's id (bits 21-25,
    /// 31 for a pass), its destination cell (bits 11-20) and the cell it leaves (bits 0-10,
    /// `NO_CELL` for a placement or a pass). With the cell left the move is re-made for the
    /// piece of the same kind in a transposed position, whose copies of a bug may be
    /// numbered otherwise.
    mv: AtomicU32,
    /// The child's node index plus one (0: no child yet).
    child: AtomicU32,
}

const NO_CELL: u16 = 0x7ff;
const _: () = assert!(crate::core::CELLS <= 1024 && crate::core::PIECE_COUNT < 31);

/// The proof bits of an edge's `stats` word.
fn stats_proof(stats: u64) -> Proof {
    Proof::unpack(((stats & PROOF_BITS) >> PROOF_SHIFT) as u32)
}

impl Edge {
    /// Writes a new edge (before it is published).
    fn set(&self, mv: Move, from: u16, prior: f32) {
        let piece = mv.piece().map_or(31, |p| p.id() as u32);
        let bits = piece << 21 | (mv.to().index() as u32) << 11 | from as u32;
        self.mv.store(bits, Ordering::Relaxed);
        self.prior.store(prior.to_bits(), Ordering::Relaxed);
        self.stats.store(0, Ordering::Relaxed);
        self.q.store(0, Ordering::Relaxed);
        self.child.store(0, Ordering::Relaxed);
    }

    /// The move in `game` (a position with this edge's node's key), or `None` when the piece
    /// it names is not there (only after a hash collision).
    fn resolve(&self, game: &Game) -> Option<Move> {
        let bits = self.mv.load(Ordering::Relaxed);
        let Some(piece) = Piece::from_id((bits >> 21) as usize & 31) else {
            return Some(Move::PASS);
        };
        let to = Cell::from_index((bits >> 11) as usize & 0x3ff)?;
        let from = (bits & 0x7ff) as u16;
        let actual = if from == NO_CELL {
            game.next_in_hand(piece.color(), piece.bug())?
        } else {
            game.board().top(Cell::from_index(from as usize)?)?
        };
        (actual.color() == piece.color() && actual.bug() == piece.bug())
            .then(|| Move::new(actual, to))
    }

    fn prior(&self) -> f32 {
        f32::from_bits(self.prior.load(Ordering::Relaxed))
    }

    /// N(s,a).
    fn visits(&self) -> u32 {
        (self.stats.load(Ordering::Relaxed) >> 32) as u32
    }

    fn proof(&self) -> Proof {
        stats_proof(self.stats.load(Ordering::Relaxed))
    }

    /// Records the child's proof (unless it is already the one recorded).
    fn set_proof(&self, proof: Proof) {
        let proof = match proof {
            Proof::Win(d) => Proof::Win(d.min(MAX_PROOF_LENGTH)),
            Proof::Loss(d) => Proof::Loss(d.min(MAX_PROOF_LENGTH)),
            p => p,
        };
        let bits = (proof.pack() as u64) << PROOF_SHIFT;
        let _ = self
            .stats
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
                (s & PROOF_BITS != bits).then_some(s & !PROOF_BITS | bits)
            });
    }

    fn q(&self) -> f32 {
        f32::from_bits(self.q.load(Ordering::Relaxed))
    }

    /// The child's node index, if it has one. `Acquire`: the node was written before.
    fn child(&self) -> Option<u32> {
        self.child.load(Ordering::Acquire).checked_sub(1)
    }
}

/// Runs of edges a node can have: each widening adds one (at least doubling the edges), and
/// the last one takes every move left.
const RUNS: usize = 5;
/// The flag in `Node::edges` of a thread making edges for the node.
const WIDENING: u32 = 1 << 31;

/// A position of the graph, in the node arena: one cache line.
#[derive(Default)]
#[repr(align(64))]
struct Node {
    /// N(s): 1 for the evaluation that created it, plus one per iteration through an edge.
    visits: AtomicU32,
    proof: AtomicU32,
    /// Sum of the values backed up through it (side to move's view), times `VALUE_ONE`.
    value: AtomicI64,
    /// The number of edges made and published (stored with `Release` once they are written),
    /// with the `WIDENING` flag of the one thread allowed to make more.
    edges: AtomicU32,
    /// Number of legal moves, known from the first expansion on (0 before).
    legal: AtomicU32,
    /// Where the edges are in the edge arena, highest prior first: runs of consecutive
    /// edges, each with its first index in the high 32 bits and its length in the low 32.
    runs: [AtomicU64; RUNS],
}

impl Node {
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

    fn legal(&self) -> usize {
        self.legal.load(Ordering::Relaxed) as usize
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

/// A map entry's share of a node's cost: an entry and its control byte, at the map's lowest
/// load after growing (a little under half full).
const MAP_BYTES: usize = 3 * (std::mem::size_of::<(u64, u32)>() + 1);
/// Shards of the position map, and the bytes of each (a lock and an empty table, padded to
/// 128 bytes).
const MAP_SHARDS: usize = 64;
const SHARD_BYTES: usize = 128;
/// Bytes a node costs: itself and its share of the map.
const NODE_BYTES: usize = std::mem::size_of::<Node>() + MAP_BYTES;
/// Bytes an edge costs.
const EDGE_BYTES: usize = std::mem::size_of::<Edge>();

/// A growing array whose items never move: chunks of `T` made when the first slot in them is
/// handed out, each paid for from the graph's budget as a whole, and a bump index handing out
/// the slots. An item is addressed by its index.
struct Arena<T> {
    chunks: Box<[OnceLock<Box<[T]>>]>,
    /// log2 of the slots per chunk.
    shift: u32,
    /// Bytes a chunk costs against the budget.
    chunk_bytes: usize,
    /// What handing out slots writes, away from the fields every lookup reads.
    growth: Apart<Growth>,
}

/// The changing part of an arena.
struct Growth {
    /// Slots handed out.
    next: AtomicUsize,
    /// Slots in the chunks made so far (stored with `Release` after the chunk is set).
    ready: AtomicUsize,
    /// Raised when the budget refused a chunk: only forced requests try again.
    full: AtomicBool,
    /// Held while a chunk is made.
    grow: Mutex<()>,
}

/// A value in cache lines of its own (two, as some processors fetch lines in pairs), so that
/// writing it does not take the lines of the fields around it from the other threads.
#[repr(align(128))]
struct Apart<T>(T);

impl<T> std::ops::Deref for Apart<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Default> Arena<T> {
    /// An arena for `budget` bytes of which an item costs `item_bytes`: chunks of about a
    /// 256th of the budget (`min` to 4096 items), room in the directory for a few chunks more
    /// than the budget pays for (the forced ones).
    fn new(budget: usize, item_bytes: usize, min: usize) -> Arena<T> {
        let items = (budget / 256 / item_bytes).clamp(min, 4096);
        let shift = usize::BITS - 1 - items.leading_zeros();
        let chunk_bytes = item_bytes << shift;
        let chunks = (0..budget / chunk_bytes + 4)
            .map(|_| OnceLock::new())
            .collect();
        Arena {
            chunks,
            shift,
            chunk_bytes,
            growth: Apart(Growth {
                next: AtomicUsize::new(0),
                ready: AtomicUsize::new(0),
                full: AtomicBool::new(false),
                grow: Mutex::new(()),
            }),
        }
    }

    /// Bytes of the chunk directory.
    fn directory_bytes(&self) -> usize {
        self.chunks.len() * std::mem::size_of::<OnceLock<Box<[T]>>>()
    }

    /// The item at `i` (handed out before).
    #[inline]
    fn get(&self, i: usize) -> &T {
        let chunk = self.chunks[i >> self.shift]
            .get()
            .expect("an index handed out lies in a chunk made");
        &chunk[i & ((1 << self.shift) - 1)]
    }

    /// Whether `n` more slots can be handed out without a new chunk, or a new chunk may be
    /// asked for.
    fn has_room(&self, n: usize) -> bool {
        if !self.growth.full.load(Ordering::Relaxed) {
            return true;
        }
        let size = 1 << self.shift;
        let next = self.growth.next.load(Ordering::Relaxed);
        let at = next & (size - 1);
        let start = if at + n > size {
            next - at + size
        } else {
            next
        };
        n <= size && start + n <= self.growth.ready.load(Ordering::Relaxed)
    }

    /// The `n` items from `start` (handed out together, so in one chunk).
    #[inline]
    fn slice(&self, start: usize, n: usize) -> &[T] {
        let chunk = self.chunks[start >> self.shift]
            .get()
            .expect("an index handed out lies in a chunk made");
        let at = start & ((1 << self.shift) - 1);
        &chunk[at..at + n]
    }

    /// Hands out `n` consecutive slots in one chunk (the index of the first; the rest of a
    /// chunk too short for them is skipped), making chunks as needed when `used` and `budget`
    /// allow (`force`: anyway); `None` when they do not fit.
    fn alloc(&self, n: usize, used: &AtomicUsize, budget: usize, force: bool) -> Option<usize> {
        let size = 1 << self.shift;
        if n > size {
            return None;
        }
        loop {
            let next = self.growth.next.load(Ordering::Relaxed);
            let at = next & (size - 1);
            let start = if at + n > size {
                next - at + size
            } else {
                next
            };
            let end = start + n;
            if end > self.growth.ready.load(Ordering::Acquire) {
                if !force && self.growth.full.load(Ordering::Relaxed) {
                    return None;
                }
                self.make_chunks(end, used, budget, force)?;
                continue;
            }
            if self
                .growth
                .next
                .compare_exchange_weak(next, end, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                return Some(start);
            }
        }
    }

    /// Makes chunks until the slots below `end` exist; `None` when the budget (unless
    /// `force`) or the directory refuses.
    fn make_chunks(
        &self,
        end: usize,
        used: &AtomicUsize,
        budget: usize,
        force: bool,
    ) -> Option<()> {
        let _held = self.growth.grow.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let ready = self.growth.ready.load(Ordering::Relaxed);
            if ready >= end {
                return Some(());
            }
            let slot = self.chunks.get(ready >> self.shift)?;
            let before = used.fetch_add(self.chunk_bytes, Ordering::Relaxed);
            if !force && before + self.chunk_bytes > budget {
                used.fetch_sub(self.chunk_bytes, Ordering::Relaxed);
                self.growth.full.store(true, Ordering::Relaxed);
                return None;
            }
            let _ = slot.set((0..1usize << self.shift).map(|_| T::default()).collect());
            self.growth
                .ready
                .store(ready + (1 << self.shift), Ordering::Release);
        }
    }

    /// The chunks made so far.
    #[cfg(test)]
    fn chunks_made(&self) -> usize {
        self.growth.ready.load(Ordering::Relaxed) >> self.shift
    }
}

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

/// The search graph shared by the threads of one search: nodes and edges in arenas, and a
/// concurrent map from position key to node index.
struct Graph {
    map: DashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    nodes: Arena<Node>,
    edges: Arena<Edge>,
    /// Bytes counted against the budget: the chunks made (nodes with their map share) and
    /// the chunk directories.
    used: AtomicUsize,
    budget: usize,
}

/// The published edges of a node with their index in the edge arena, highest prior first.
struct EdgeIter<'g> {
    graph: &'g Graph,
    runs: &'g [AtomicU64; RUNS],
    run: usize,
    /// The index of the next edge of `edges`.
    at: usize,
    edges: std::slice::Iter<'g, Edge>,
    left: usize,
    /// The number of edges published when the iteration began.
    len: usize,
}

impl<'g> Iterator for EdgeIter<'g> {
    type Item = (usize, &'g Edge);

    #[inline]
    fn next(&mut self) -> Option<(usize, &'g Edge)> {
        if self.left == 0 {
            return None;
        }
        loop {
            if let Some(e) = self.edges.next() {
                self.left -= 1;
                self.at += 1;
                return Some((self.at - 1, e));
            }
            let run = self.runs.get(self.run)?.load(Ordering::Relaxed);
            self.run += 1;
            self.at = (run >> 32) as usize;
            // A run is published whole: no more than `left` of it is read.
            let n = ((run & 0xffff_ffff) as usize).min(self.left);
            self.edges = self.graph.edges.slice(self.at, n).iter();
        }
    }
}

impl Graph {
    fn new(memory_mb: usize) -> Graph {
        let budget = memory_mb.max(1).saturating_mul(1 << 20);
        let nodes = Arena::new(budget, NODE_BYTES, 64);
        // A run of edges lies in one chunk: room for every move of a position.
        let edges = Arena::new(budget, EDGE_BYTES, 1024);
        let used = nodes.directory_bytes() + edges.directory_bytes() + MAP_SHARDS * SHARD_BYTES;
        Graph {
            // Many shards: two threads seldom take the same shard's lock at once.
            map: DashMap::with_hasher_and_shard_amount(BuildHasherDefault::default(), MAP_SHARDS),
            nodes,
            edges,
            used: AtomicUsize::new(used),
            budget,
        }
    }

    #[inline]
    fn node(&self, i: u32) -> &Node {
        self.nodes.get(i as usize)
    }

    #[inline]
    fn edge(&self, i: usize) -> &Edge {
        self.edges.get(i)
    }

    /// The edges of `node` published so far (`Acquire`: they were written before).
    fn edges_of<'g>(&'g self, node: &'g Node) -> EdgeIter<'g> {
        let len = (node.edges.load(Ordering::Acquire) & !WIDENING) as usize;
        EdgeIter {
            graph: self,
            runs: &node.runs,
            run: 0,
            at: 0,
            edges: [].iter(),
            left: len,
            len,
        }
    }

    /// Calls `f` with each published edge of `node` (its index in the edge arena and the
    /// edge), highest prior first, until `f` returns false; returns the number published.
    /// (The hot loops use this: run by run over slices, their state stays in registers.)
    #[inline(always)]
    fn each_edge<'g>(
        &'g self,
        node: &'g Node,
        mut f: impl FnMut(usize, &'g Edge) -> bool,
    ) -> usize {
        let len = (node.edges.load(Ordering::Acquire) & !WIDENING) as usize;
        let mut left = len;
        for run in &node.runs {
            if left == 0 {
                break;
            }
            let run = run.load(Ordering::Relaxed);
            let start = (run >> 32) as usize;
            let n = ((run & 0xffff_ffff) as usize).min(left);
            left -= n;
            for (k, e) in self.edges.slice(start, n).iter().enumerate() {
                if !f(start + k, e) {
                    return len;
                }
            }
        }
        len
    }

    /// Hands out `n` consecutive edge slots, `None` when they do not fit (`force`: anyway).
    fn alloc_edges(&self, n: usize, force: bool) -> Option<usize> {
        self.edges.alloc(n, &self.used, self.budget, force)
    }

    /// The node of `key`, made with the value `value` when it is new and memory allows
    /// (`force`: anyway). Returns its index and whether this call made it; `None` when the
    /// graph is full.
    fn get_or_insert(
        &self,
        key: u64,
        value: f32,
        proof: Proof,
        force: bool,
    ) -> Option<(u32, bool)> {
        if let Some(i) = self.get(key) {
            return Some((i, false));
        }
        if !force && !self.nodes.has_room(1) {
            return None;
        }
        match self.map.entry(key) {
            Entry::Occupied(o) => Some((*o.get(), false)),
            Entry::Vacant(v) => {
                let i = self.nodes.alloc(1, &self.used, self.budget, force)?;
                let node = self.nodes.get(i);
                node.visits.store(1, Ordering::Relaxed);
                node.value
                    .store((value * VALUE_ONE) as i64, Ordering::Relaxed);
                node.proof.store(proof.pack(), Ordering::Relaxed);
                // The map's lock publishes the node to the threads that find it there.
                v.insert(i as u32);
                Some((i as u32, true))
            }
        }
    }

    fn get(&self, key: u64) -> Option<u32> {
        self.map.get(&key).map(|i| *i)
    }
}

/// Everything the threads of one search share.
struct Shared<'a> {
    graph: Graph,
    root: u32,
    root_game: &'a Game,
    params: MctsParams,
    /// Iterations claimed, all threads together: each thread claims `BATCH` at a time (fewer
    /// at the limit) and gives back what it did not run when it stops.
    iterations: Apart<AtomicU64>,
    max_iterations: Option<u64>,
    stop: &'a AtomicBool,
    clock: TimeManager,
    /// Raised when one thread finds the search over.
    done: AtomicBool,
}

impl Shared<'_> {
    fn root(&self) -> &Node {
        self.graph.node(self.root)
    }

    /// Whether the root's result is known for good: proven lost or drawn, won in one, or won
    /// with every move proven (a proven win in more plies goes on looking for a shorter one).
    fn root_settled(&self) -> bool {
        let root = self.root();
        match root.proof() {
            Proof::Unknown => false,
            Proof::Win(d) if d > 1 => {
                let mut edges = self.graph.edges_of(root);
                edges.len == root.legal() && edges.all(|(_, e)| e.proof() != Proof::Unknown)
            }
            _ => true,
        }
    }

    /// Whether the thread holding `left` claimed iterations may run one more, claiming a
    /// batch when it has none left; false when the limit has been claimed in all.
    fn start_iteration(&self, left: &mut u64) -> bool {
        if *left == 0 {
            *left = match self.max_iterations {
                None => {
                    self.iterations.fetch_add(BATCH, Ordering::Relaxed);
                    BATCH
                }
                Some(max) => {
                    let mut taken = 0;
                    let _ =
                        self.iterations
                            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                                taken = BATCH.min(max.saturating_sub(n));
                                (taken > 0).then_some(n + taken)
                            });
                    taken
                }
            };
        }
        if *left == 0 {
            return false;
        }
        *left -= 1;
        true
    }

    /// Gives back the iterations a stopping thread claimed and did not run.
    fn give_back(&self, left: u64) {
        self.iterations.fetch_sub(left, Ordering::Relaxed);
    }

    /// Whether the search must end now (also raises `done` for the other threads).
    fn over(&self) -> bool {
        if self.done.load(Ordering::Relaxed) {
            return true;
        }
        let over = self.stop.load(Ordering::Relaxed) || self.root_settled();
        if over {
            self.done.store(true, Ordering::Relaxed);
        }
        over
    }
}

/// One thread's scratch.
struct Worker<'a> {
    sh: &'a Shared<'a>,
    /// Values leaves (this thread's own evaluator).
    eval: LeafEval<'a>,
    game: Game,
    movegen: MoveGen,
    list: MoveList,
    bonus: Vec<i32>,
    /// The moves' log-weights in the priors.
    logits: Vec<f32>,
    /// The moves' values one ply on (mover's view), when the priors use them.
    values: Vec<i32>,
    /// Sort keys of the moves by prior: [`descending_key`] of the log-weight in the high
    /// half, index low.
    order: Vec<u64>,
    /// The nodes of the current descent with the edge taken from each (arena indices).
    path: Vec<(&'a Node, &'a Edge)>,
}

impl<'a> Worker<'a> {
    fn new(sh: &'a Shared<'a>, eval: LeafEval<'a>) -> Worker<'a> {
        let mut game = sh.root_game.clone();
        // Repetitions are draws in the search; the threefold test after each move is not needed.
        game.set_repetition_draw(false);
        Worker {
            sh,
            eval,
            game,
            movegen: MoveGen::new(),
            list: MoveList::new(),
            bonus: Vec::new(),
            logits: Vec::new(),
            values: Vec::new(),
            order: Vec::new(),
            path: Vec::with_capacity(64),
        }
    }

    /// Whether node `idx` is the root, proven won: then the search looks for a shorter win
    /// among the moves not proven yet.
    fn hunting(&self, idx: u32, node: &Node) -> bool {
        idx == self.sh.root && matches!(node.proof(), Proof::Win(_))
    }

    /// Makes the edges of `node` (the position `self.game`) up to `target` of them, highest
    /// prior first, unless another thread is making some (then it waits for them only when
    /// the node has none); the root's first edges are made even when the graph is full,
    /// other nodes get none when they do not fit.
    fn widen(&mut self, node: &Node, target: usize, is_root: bool) {
        let word = node.edges.fetch_or(WIDENING, Ordering::Acquire);
        if word & WIDENING != 0 {
            // A node with no edges yet leaves nothing to do but wait for them (an iteration
            // there would only back up the node's value; a preempted widener of the root
            // could make the other threads spend the whole search so).
            if word & !WIDENING == 0 {
                while node.edges.load(Ordering::Acquire) & WIDENING != 0 {
                    std::thread::yield_now();
                }
            }
            return;
        }
        /// Publishes the edges written and lowers the flag, also when unwinding from a panic
        /// (the other threads may be waiting for the flag).
        struct Publish<'n>(&'n AtomicU32, usize);
        impl Drop for Publish<'_> {
            fn drop(&mut self) {
                self.0.store(self.1 as u32, Ordering::Release);
            }
        }
        let mut publish = Publish(&node.edges, word as usize);
        publish.1 = self.widen_locked(node, publish.1, target, is_root);
    }

    /// `widen` for the thread holding the flag, with `made` edges; returns the edges now.
    fn widen_locked(&mut self, node: &Node, made: usize, target: usize, is_root: bool) -> usize {
        let graph = &self.sh.graph;
        let force = is_root && made == 0;
        let legal = node.legal();
        if made >= target || (legal != 0 && made >= legal) {
            return made;
        }
        let run = node
            .runs
            .iter()
            .position(|r| r.load(Ordering::Relaxed) == 0)
            .unwrap_or(RUNS);
        if run == RUNS {
            return made;
        }
        // A full graph: spare the move generation when not even the smallest batch fits.
        let smallest = match legal {
            0 => 1,
            _ if run == RUNS - 1 => legal - made,
            _ => target.min(legal) - made,
        };
        if !force && !graph.edges.has_room(smallest) {
            return made;
        }
        self.movegen.generate(&self.game, &mut self.list);
        let n = self.list.len();
        node.legal.store(n as u32, Ordering::Relaxed);
        if target.min(n) <= made {
            return made;
        }
        // Grow at least to twice the edges (fewer regenerations), if that fits; the last run
        // takes every move.
        let doubled = if run == RUNS - 1 {
            n
        } else {
            target.max(2 * made).min(n)
        };
        let (start, target) = if let Some(s) = graph.alloc_edges(doubled - made, force) {
            (s, doubled)
        } else if run < RUNS - 1
            && let Some(s) = graph.alloc_edges(target.min(n) - made, force)
        {
            (s, target.min(n))
        } else {
            return made;
        };
        super::worker::queen_bonus(&self.game, self.list.as_slice(), &mut self.bonus);
        let t = self.sh.params.prior_temperature;
        let prior_eval = self.sh.params.prior_eval;
        let top = self.bonus.iter().copied().max().unwrap_or(0);
        // Each move's log-weight: its ordering bonus, plus its value one ply on when asked.
        self.logits.clear();
        self.values.clear();
        for (i, &b) in self.bonus.iter().enumerate() {
            let mut logit = (b - top) as f32 / t;
            if prior_eval > 0.0 {
                let m = self.list.as_slice()[i];
                self.game.play_unchecked(m);
                // The mover's view: a finished game is worth a whole win or loss.
                let v = match end_proof(&self.game).and_then(Proof::value) {
                    Some(end) => -(end * WIN as f32) as i32,
                    None => -(self.eval)(&self.game),
                };
                self.game.undo();
                logit += v as f32 / prior_eval;
                self.values.push(v);
            }
            self.logits.push(logit);
        }
        let best = self
            .logits
            .iter()
            .copied()
            .fold(f32::NEG_INFINITY, f32::max);
        let total: f32 = self.logits.iter().map(|&l| (l - best).exp()).sum();
        // Highest weight first; ties in generation order, so every thread gets the same order.
        self.order.clear();
        self.order.extend(
            self.logits
                .iter()
                .enumerate()
                .map(|(i, &l)| (descending_key(l) as u64) << 32 | i as u64),
        );
        self.order.sort_unstable();
        let board = self.game.board();
        for (slot, &key) in (start..).zip(&self.order[made..target]) {
            let i = (key & 0xffff_ffff) as usize;
            let mv = self.list.as_slice()[i];
            let from = mv
                .piece()
                .and_then(|p| board.position(p))
                .map_or(NO_CELL, |c| c.index() as u16);
            graph
                .edge(slot)
                .set(mv, from, (self.logits[i] - best).exp() / total);
            if let Some(&v) = self.values.get(i) {
                let q = (v as f32 / self.sh.params.eval_scale).tanh();
                graph.edge(slot).q.store(q.to_bits(), Ordering::Relaxed);
            }
        }
        node.runs[run].store(
            (start as u64) << 32 | (target - made) as u64,
            Ordering::Relaxed,
        );
        target
    }

    /// The edge of node `idx` to descend (PUCT with virtual loss over the edges it
    /// considers: its index in the edge arena), how many edges it would like to have, and
    /// how many it has: a node visited N times considers `widen_base + widen_factor *
    /// sqrt(N)` edges in order of prior, not counting those proven lost (or, at a root proven
    /// won, proven at all). `None` when it has no edges.
    fn select(&self, idx: u32, node: &'a Node) -> (Option<&'a Edge>, usize, usize) {
        let p = &self.sh.params;
        let n = node.visits();
        let sqrt_n = (n.max(1) as f32).sqrt();
        let allowance = (p.widen_base + p.widen_factor * sqrt_n) as usize;
        let fpu = node.q() - p.first_play_reduction;
        let eval_fpu = p.first_play_eval && p.prior_eval > 0.0;
        let hunting = self.hunting(idx, node);
        let mut open = 0;
        let mut best = None;
        let mut best_score = f32::NEG_INFINITY;
        // PUCT with virtual loss; `draw`: the edge is a proven draw (its value is 0).
        let puct = |e: &Edge, stats: u64, draw: bool| {
            let visits = (stats >> 32) as u32 as f32;
            let vl = (stats & 0xff) as u32 as f32;
            let q = if draw {
                0.0
            } else if visits > 0.0 {
                e.q()
            } else if eval_fpu {
                e.q() - p.first_play_reduction
            } else {
                fpu
            };
            let q = if vl > 0.0 {
                let seen = visits.max(1.0);
                (q * seen - p.virtual_loss * vl) / (seen + vl)
            } else {
                q
            };
            q + p.exploration * e.prior() * sqrt_n / (1.0 + visits + vl)
        };
        let mut k = 0;
        let mut want = None;
        let graph: &'a Graph = &self.sh.graph;
        let len = graph.each_edge(node, |_, e| {
            if open == allowance {
                want = Some(k);
                return false;
            }
            k += 1;
            let stats = e.stats.load(Ordering::Relaxed);
            let score = if stats & PROOF_BITS == 0 {
                // Not proven (most edges).
                open += 1;
                puct(e, stats, false)
            } else {
                match stats_proof(stats) {
                    _ if hunting => return true,
                    // The child loses: take the shortest such win at once.
                    Proof::Loss(d) => 1e6 - d as f32,
                    // The child wins: only when nothing else is left, the longest loss.
                    Proof::Win(d) => -1e6 + d as f32,
                    Proof::Draw => {
                        open += 1;
                        puct(e, stats, true)
                    }
                    Proof::Unknown => unreachable!("an unknown proof packs to 0"),
                }
            };
            if score > best_score {
                best_score = score;
                best = Some(e);
            }
            true
        });
        let mut want = want.unwrap_or(len);
        if open < allowance {
            want = len + allowance - open;
        }
        (best, want, len)
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
        let score = (self.eval)(&self.game);
        (
            (score as f32 / self.sh.params.eval_scale).tanh(),
            Proof::Unknown,
        )
    }

    /// One iteration from the root: descend, evaluate, back up.
    fn iterate(&mut self) {
        let sh = self.sh;
        let graph: &'a Graph = &sh.graph;
        self.path.clear();
        let mut idx = sh.root;
        let mut node = graph.node(idx);
        // The value at the end of the descent, from the view of the side to move there.
        let value;
        loop {
            let is_root = self.path.is_empty();
            let mut widened = false;
            let chosen = loop {
                let (best, want, len) = self.select(idx, node);
                let legal = node.legal();
                if !widened && want > len && (legal == 0 || len < legal) {
                    widened = true;
                    self.widen(node, want, is_root);
                    continue;
                }
                // No edge: the graph is full and this leaf has none; it backs up what it knows.
                break best.and_then(|e| {
                    e.resolve(&self.game).map(|m| {
                        // The virtual loss, and the visits seen on the way down.
                        let stats = e.stats.fetch_add(1, Ordering::Relaxed);
                        (e, m, (stats >> 32) as u32, stats_proof(stats))
                    })
                });
            };
            let Some((e, m, edge_visits, edge_proof)) = chosen else {
                value = node.q();
                break;
            };
            self.game.play_unchecked(m);
            // The child to descend into, or the value (child's view) that ends the descent.
            let step: Result<(u32, &Node), f32> = 'step: {
                if let Some(proof) = end_proof(&self.game) {
                    e.set_proof(proof);
                    break 'step Err(proof.value().unwrap_or(0.0));
                }
                if self.game.is_repetition() {
                    // A draw on this path only: nothing is stored.
                    break 'step Err(0.0);
                }
                if let Some(v) = edge_proof.value() {
                    break 'step Err(v);
                }
                let child = match e.child() {
                    Some(c) => c,
                    None => {
                        let key = position_key(&self.game);
                        let (c, made) = match graph.get(key) {
                            Some(c) => (c, false),
                            None => {
                                let (v, proof) = self.leaf();
                                // A node is stored from the second visit on (most leaves get
                                // one).
                                let stored = if edge_visits == 0 {
                                    None
                                } else {
                                    graph.get_or_insert(key, v, proof, false)
                                };
                                match stored {
                                    Some(found) => found,
                                    None => {
                                        // Evaluated but not stored (first visit, or a full
                                        // graph); a proof stays on the edge.
                                        if proof != Proof::Unknown {
                                            e.set_proof(proof);
                                        }
                                        break 'step Err(v);
                                    }
                                }
                            }
                        };
                        e.child.store(c + 1, Ordering::Release);
                        if made {
                            break 'step Err(graph.node(c).q());
                        }
                        c
                    }
                };
                let child_node = graph.node(child);
                let child_proof = child_node.proof();
                if let Some(v) = child_proof.value() {
                    e.set_proof(child_proof);
                    break 'step Err(v);
                }
                if edge_visits < child_node.visits() {
                    // The child knows more than this edge has counted: take its value.
                    break 'step Err(child_node.q());
                }
                Ok((child, child_node))
            };
            self.path.push((node, e));
            match step {
                Ok((child, child_node)) => (idx, node) = (child, child_node),
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
        let graph = &self.sh.graph;
        while let Some((node, e)) = self.path.pop() {
            self.game.undo();
            value = -value;
            // One visit more, one descent in flight less.
            let n = (e.stats.fetch_add(ONE_VISIT - 1, Ordering::Relaxed) >> 32) as u32 + 1;
            let q = match e.child() {
                Some(c) => {
                    let c = graph.node(c);
                    let p = c.proof();
                    if p != Proof::Unknown {
                        e.set_proof(p);
                    }
                    -c.q()
                }
                None => e.q() + (value - e.q()) / n as f32,
            };
            e.q.store(q.to_bits(), Ordering::Relaxed);
            node.visits.fetch_add(1, Ordering::Relaxed);
            node.value
                .fetch_add((value * VALUE_ONE) as i64, Ordering::Relaxed);
            // A node's proof can only change when one of its edges gets one, and edges get
            // theirs in iterations through them: the edge just taken is proven, or the node
            // is not looked at again (the root is: a shorter win may turn up).
            if (node.proof() == Proof::Unknown && e.proof() != Proof::Unknown)
                || self.path.is_empty()
            {
                let proof = prove(graph, node);
                if proof != Proof::Unknown {
                    node.proof.store(proof.pack(), Ordering::Relaxed);
                }
            }
        }
    }
}

/// The proof of a finished game for its side to move (lost, or drawn when both queens are
/// surrounded), `None` while it goes on.
fn end_proof(game: &Game) -> Option<Proof> {
    let state = game.state();
    state.is_over().then(|| match state {
        GameState::WhiteWins | GameState::BlackWins => {
            let mover_won =
                (state == GameState::WhiteWins) == (game.side_to_move().opponent() == Color::White);
            if mover_won {
                Proof::Loss(0)
            } else {
                Proof::Win(0)
            }
        }
        _ => Proof::Draw,
    })
}

/// A sort key that orders finite floats from the highest to the lowest.
fn descending_key(x: f32) -> u32 {
    let bits = x.to_bits();
    // Flipping all bits of a negative float and the sign bit of a positive one orders them
    // as unsigned integers; the complement turns that order around.
    !if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

/// The proof of `node` from its edges' proofs (`Unknown` when they do not settle it).
fn prove(graph: &Graph, node: &Node) -> Proof {
    let legal = node.legal();
    let mut shortest_win = None;
    let mut longest_loss = 0;
    let mut all_proven = true;
    let mut all_lost = true;
    let len = graph.each_edge(node, |_, e| {
        match e.proof() {
            Proof::Loss(d) => shortest_win = Some(shortest_win.map_or(d, |w: u32| w.min(d))),
            Proof::Win(d) => longest_loss = longest_loss.max(d),
            Proof::Draw => all_lost = false,
            Proof::Unknown => {
                all_proven = false;
                all_lost = false;
            }
        }
        true
    });
    let complete = legal != 0 && len == legal;
    let (all_proven, all_lost) = (all_proven && complete, all_lost && complete);
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
    let visits = e.visits() as i64;
    match e.proof() {
        Proof::Loss(d) => (2, -(d as i64)),
        Proof::Win(d) => (0, d as i64),
        _ => (1, visits),
    }
}

/// The best of `edges` (see [`rank`]), `None` when there are none.
fn best_edge<'g>(graph: &'g Graph, edges: &[&'g Edge]) -> Option<&'g Edge> {
    (0..edges.len())
        .max_by(|&a, &b| {
            let (ea, eb) = (edges[a], edges[b]);
            let qa = ea.child().map_or(-1.0, |c| -graph.node(c).q());
            let qb = eb.child().map_or(-1.0, |c| -graph.node(c).q());
            rank(ea)
                .cmp(&rank(eb))
                .then(qa.total_cmp(&qb))
                // Earlier (higher prior) first on a full tie.
                .then(b.cmp(&a))
        })
        .map(|i| edges[i])
}

/// The report of the search so far: the best root move, its value, the principal line.
fn summary(sh: &Shared, depth: u32) -> SearchInfo {
    let graph = &sh.graph;
    let iterations = sh.iterations.load(Ordering::Relaxed);
    let mut pv = Vec::new();
    let mut score = 0;
    let mut share = 0.0;
    let mut game = sh.root_game.clone();
    game.set_repetition_draw(false);
    let mut node = sh.root();
    let mut edges = Vec::new();
    while pv.len() < 32 {
        edges.clear();
        edges.extend(graph.edges_of(node).map(|(_, e)| e));
        let Some(e) = best_edge(graph, &edges) else {
            break;
        };
        let Some(m) = e.resolve(&game) else {
            break;
        };
        if pv.is_empty() {
            let total: u32 = edges.iter().map(|e| e.visits()).sum();
            share = if total > 0 {
                e.visits() as f32 / total as f32
            } else {
                0.0
            };
            score = match e.proof() {
                Proof::Loss(d) => WIN - d as i32 - 1,
                Proof::Win(d) => -WIN + d as i32 + 1,
                Proof::Draw => 0,
                Proof::Unknown => {
                    let q = e
                        .child()
                        .map_or(0.0, |c| -graph.node(c).q())
                        .clamp(-0.999, 0.999);
                    (sh.params.eval_scale * q.atanh()) as i32
                }
            };
        }
        if e.visits() == 0 && !pv.is_empty() {
            break;
        }
        pv.push(m);
        game.play_unchecked(m);
        match e.child() {
            Some(c) if !game.state().is_over() && !game.is_repetition() => node = graph.node(c),
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
pub fn search<'e>(
    game: &Game,
    limits: &Limits,
    stop: &AtomicBool,
    threads: usize,
    memory_mb: usize,
    params: MctsParams,
    eval: &(dyn Fn() -> LeafEval<'e> + Sync),
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
    let root_value = (eval()(game) as f32 / params.eval_scale).tanh();
    let (root, _) = graph
        .get_or_insert(position_key(game), root_value, Proof::Unknown, true)
        .expect("the root is made even in a full graph");
    let sh = Shared {
        graph,
        root,
        root_game: game,
        params,
        iterations: Apart(AtomicU64::new(0)),
        max_iterations: limits.depth.map(visits_for_depth),
        stop,
        clock: TimeManager::new(limits, start),
        done: AtomicBool::new(false),
    };
    let run = |main: Option<&mut dyn FnMut(&SearchInfo)>| {
        let mut w = Worker::new(&sh, eval());
        let mut main = main;
        let mut reported = 0;
        let mut count = 0u64;
        let mut left = 0;
        while !sh.over() {
            if count.is_multiple_of(64) && sh.clock.hard_expired() {
                sh.done.store(true, Ordering::Relaxed);
                break;
            }
            if !sh.start_iteration(&mut left) {
                break;
            }
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
        sh.give_back(left);
    };
    let threads = threads.min(MAX_THREADS);
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
    if sh.root().proof() != Proof::Unknown {
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
        crate::eval::evaluate(
            game,
            crate::eval::WeightSets::default().for_type(game.game_type()),
        )
    }

    /// A search's shared state: a graph of `memory_mb` with the root `game` in it.
    fn shared<'a>(
        game: &'a Game,
        params: MctsParams,
        max_iterations: Option<u64>,
        memory_mb: usize,
        stop: &'a AtomicBool,
    ) -> Shared<'a> {
        let graph = Graph::new(memory_mb);
        let root = graph
            .get_or_insert(position_key(game), 0.0, Proof::Unknown, true)
            .map(|r| r.0)
            .expect("room for the root");
        Shared {
            graph,
            root,
            root_game: game,
            params,
            iterations: Apart(AtomicU64::new(0)),
            max_iterations,
            stop,
            clock: TimeManager::new(&Limits::default(), Instant::now()),
            done: AtomicBool::new(false),
        }
    }

    /// Runs `iterations` iterations from `game` on `threads` threads and hands back the graph.
    fn grow(game: &Game, iterations: u64, threads: usize, memory_mb: usize) -> Graph {
        let stop = AtomicBool::new(false);
        let params = MctsParams::default();
        let sh = shared(game, params, Some(iterations), memory_mb, &stop);
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    let mut w = Worker::new(&sh, Box::new(evaluate));
                    let mut left = 0;
                    while !sh.over() && sh.start_iteration(&mut left) {
                        w.iterate();
                    }
                    sh.give_back(left);
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
        let mut parents: std::collections::HashMap<u32, usize> = Default::default();
        for entry in graph.map.iter() {
            let node = graph.node(*entry.value());
            let mut children: Vec<u32> = graph
                .edges_of(node)
                .filter_map(|(_, e)| e.child())
                .collect();
            children.sort();
            children.dedup();
            for c in children {
                *parents.entry(c).or_default() += 1;
            }
        }
        let merged = parents.values().filter(|&&n| n >= 2).count();
        assert!(merged > 100, "{merged} nodes with two parents or more");
        assert!(parents.values().all(|&n| n <= graph.map.len()));
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
            let e = Edge::default();
            e.set(m, from, 0.0);
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
        assert!(graph.map.len() > 1000);
        for entry in graph.map.iter() {
            let node = graph.node(*entry.value());
            let through: u64 = graph.edges_of(node).map(|(_, e)| e.visits() as u64).sum();
            assert!(
                graph
                    .edges_of(node)
                    .all(|(_, e)| e.stats.load(Ordering::Relaxed) & 0xff == 0)
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
        // What is really held: the chunks of nodes and edges, their directories, the map.
        assert_eq!(
            (std::mem::size_of::<Node>(), EDGE_BYTES, MAP_BYTES),
            (64, 24, 51)
        );
        let real = graph.nodes.chunks_made() * (std::mem::size_of::<Node>() << graph.nodes.shift)
            + graph.edges.chunks_made() * (EDGE_BYTES << graph.edges.shift)
            + graph.nodes.directory_bytes()
            + graph.edges.directory_bytes()
            + MAP_SHARDS * SHARD_BYTES
            + graph.map.capacity() * (std::mem::size_of::<(u64, u32)>() + 1);
        assert!(real <= budget, "holds {real} bytes of {budget}");
        // It filled up (what is left is less than a chunk of nodes and one of edges) and the
        // search went on refining: far more iterations than nodes.
        assert!(budget - counted < graph.nodes.chunk_bytes + graph.edges.chunk_bytes);
        assert!(graph.map.len() * 4 < 60_000);
    }

    #[test]
    fn priors_follow_the_one_ply_values() {
        let game = midgame();
        let stop = AtomicBool::new(false);
        let params = MctsParams {
            // The ordering's part of the priors out of the way: they follow the values alone.
            prior_temperature: 1e30,
            prior_eval: 150.0,
            first_play_eval: true,
            ..MctsParams::default()
        };
        let sh = shared(&game, params, None, 64, &stop);
        let mut w = Worker::new(&sh, Box::new(evaluate));
        let node = sh.root();
        w.widen(node, usize::MAX, true);
        let legal = game.legal_moves().len();
        assert_eq!(node.legal(), legal);
        // Each edge's prior and first value against its move's value one ply on.
        let edges: Vec<(f32, f32, i32)> = sh
            .graph
            .edges_of(node)
            .map(|(_, e)| {
                let mut child = game.clone();
                child
                    .play(e.resolve(&game).expect("a move"))
                    .expect("legal");
                let v = if child.state().is_over() {
                    WIN
                } else {
                    -evaluate(&child)
                };
                (e.prior(), e.q(), v)
            })
            .collect();
        assert_eq!(edges.len(), legal);
        let total: f32 = edges.iter().map(|e| e.0).sum();
        assert!((total - 1.0).abs() < 1e-4, "priors sum to {total}");
        let best = edges[0].2;
        let scale = params.prior_eval as f64;
        let norm: f64 = edges
            .iter()
            .map(|e| ((e.2 - best) as f64 / scale).exp())
            .sum();
        for (i, &(prior, q, v)) in edges.iter().enumerate() {
            assert!(i == 0 || v <= edges[i - 1].2, "highest value first");
            let want = ((v - best) as f64 / scale).exp() / norm;
            assert!(
                (prior as f64 - want).abs() < 1e-4,
                "prior {prior}, want {want}"
            );
            let want = (v as f32 / params.eval_scale).tanh();
            assert!((q - want).abs() < 1e-5, "first value {q}, want {want}");
        }
        assert!(edges[0].2 > edges[legal - 1].2, "the values differ");
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
