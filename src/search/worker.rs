//! One search thread: principal variation search over its own copy of the game, with its own
//! killer and history tables, sharing the transposition table and the stop flags.

use super::SearchParams;
use super::time::{CHECK_INTERVAL, TimeManager};
use super::tt::{self, Bound, TranspositionTable};
use crate::core::{
    Board, CELLS, Cell, Color, Game, MAX_MOVES, Move, MoveGen, MoveList, PIECE_COUNT, Piece,
    PieceSet,
};
use crate::eval::{self, EvalWeights, PreparedWeights, WIN, WIN_THRESHOLD};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Deepest ply the search can reach (main search and quiescence together).
pub const MAX_PLY: usize = 128;
/// Larger than every score.
pub const INF: i32 = WIN + 1;

/// Shallowest depth at which a PV node shares its moves among the threads. Shallower splits
/// cost more in hand-offs than they gain now that nodes are cheap: time to depth 8 over the
/// bench positions with two threads was 3.5-4.1 s at 4, 4.1-4.6 s at 2 and 4.1-4.3 s at 6.
const SPLIT_DEPTH: i32 = 4;

/// The helper workers of a parallel search: `helpers[0]` is used by the calling (main) thread
/// when it joins a split, `helpers[i + 1]` by pool thread `i`.
pub struct Split<'a> {
    /// The pool, with one thread fewer than the search.
    pub pool: &'a rayon::ThreadPool,
    /// One worker per search thread.
    pub helpers: &'a [Mutex<Worker>],
}

/// What the helpers found for the moves of a split node.
pub struct SplitResult {
    /// Best score (fail-soft; `-INF` when no move was finished).
    pub best: i32,
    /// The move that raised alpha the most, with the principal variation below it.
    pub best_move: Option<(Move, Vec<Move>)>,
}

/// Locks a worker (a poisoned lock only means another thread panicked; the worker is usable).
pub fn lock(w: &Mutex<Worker>) -> MutexGuard<'_, Worker> {
    w.lock().unwrap_or_else(|e| e.into_inner())
}

impl Split<'_> {
    /// Runs `f` once on every search thread (the calling one included), each with its own
    /// helper worker, and returns when all are done.
    pub fn run<F: Fn(&mut Worker) + Sync>(&self, f: F) {
        self.pool.in_place_scope(|scope| {
            scope.spawn_broadcast(|_, ctx| {
                if let Some(slot) = self.helpers.get(ctx.index() + 1) {
                    f(&mut lock(slot));
                }
            });
            if let Some(slot) = self.helpers.first() {
                f(&mut lock(slot));
            }
        });
    }

    /// Searches `moves` (ordered, with their ordering scores; move `k` is the `k + 1`-th of the
    /// node) of the PV node `game` at `ply` in parallel: each helper copies the position and
    /// takes the next unsearched move, searching it with a null window against the best score
    /// so far and again with the full window when it beats it. A move reaching `beta` stops the
    /// sharing out (searches already running finish).
    #[allow(clippy::too_many_arguments)]
    pub fn search(
        &self,
        sh: &Shared,
        game: &Game,
        moves: &[(Move, i32)],
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> SplitResult {
        let next = AtomicUsize::new(0);
        let bound = AtomicI32::new(alpha);
        let result = Mutex::new(SplitResult {
            best: -INF,
            best_move: None,
        });
        self.run(|w| {
            w.load(game);
            loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let a = bound.load(Ordering::Relaxed);
                if k >= moves.len() || a >= beta || sh.aborted() {
                    break;
                }
                let (m, order) = moves[k];
                let s = w.search_move(sh, m, order, k + 1, depth, a, beta, ply, true);
                if sh.aborted() {
                    break;
                }
                let mut r = result.lock().unwrap_or_else(|e| e.into_inner());
                r.best = r.best.max(s);
                if s > a && s > bound.load(Ordering::Relaxed) {
                    bound.store(s, Ordering::Relaxed);
                    r.best_move = Some((m, w.pv_below(ply).to_vec()));
                }
            }
        });
        result.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// State shared by every thread of one search.
pub struct Shared<'a> {
    /// The helper threads, in a parallel search.
    pub split: Option<Split<'a>>,
    /// The transposition table.
    pub tt: &'a TranspositionTable,
    /// Search settings.
    pub params: &'a SearchParams,
    /// Deadlines.
    pub time: TimeManager,
    /// The caller's stop flag.
    pub external_stop: &'a AtomicBool,
    /// Raised to make every thread unwind now: the search is over, or the current root search
    /// has become pointless (a root move failed high).
    pub abort: AtomicBool,
    /// Raised when the whole search is over (time or the caller's stop).
    pub stopped: AtomicBool,
    /// The searches leave the transposition table as it is (they still read it): the extra
    /// ranks of a multi-line search, so that the best move's search is the one-line search.
    pub read_only_tt: AtomicBool,
    /// A thread stops the search when its node count reaches this (`u64::MAX`: no limit):
    /// the playing levels' node budget, armed once the first iteration is complete.
    pub node_limit: AtomicU64,
}

impl<'a> Shared<'a> {
    /// The shared state of a new search: no flag raised, no node limit, the table written.
    pub fn new(
        split: Option<Split<'a>>,
        tt: &'a TranspositionTable,
        params: &'a SearchParams,
        time: TimeManager,
        external_stop: &'a AtomicBool,
    ) -> Shared<'a> {
        Shared {
            split,
            tt,
            params,
            time,
            external_stop,
            abort: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
            read_only_tt: AtomicBool::new(false),
            node_limit: AtomicU64::new(u64::MAX),
        }
    }

    /// Looks at the clock and the caller's flag; raises `stopped` and `abort` when it is time.
    pub fn poll(&self) {
        if self.external_stop.load(Ordering::Relaxed) || self.time.hard_expired() {
            self.stopped.store(true, Ordering::Relaxed);
            self.abort.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the threads must unwind.
    #[inline(always)]
    pub fn aborted(&self) -> bool {
        self.abort.load(Ordering::Relaxed)
    }
}

/// The moves of one node and their ordering keys.
struct PlyData {
    moves: MoveList,
    /// Sort keys: ordering score in the high half, `MAX_MOVES - index` in the low half.
    keys: [u64; MAX_MOVES],
    /// How many keys at the front are known to be the best ones in order.
    ready: usize,
}

/// Scores of the ordering classes (higher is tried first). History scores stay within
/// `-HISTORY_MAX..=HISTORY_MAX`, below every bonus.
const HISTORY_MAX: i32 = 8_000;
const ORDER_TT: i32 = 1 << 30;
const ORDER_ON_QUEEN: i32 = 60_000;
const ORDER_PRESSURE: i32 = 40_000;
const ORDER_KILLER: [i32; 2] = [30_000, 29_000];
const ORDER_COUNTER: i32 = 28_000;
const ORDER_RELIEF: i32 = 20_000;
/// Moves whose queen bonus and history reach this get no killer, counter-move or own-queen
/// bonus; by default they are neither reduced nor pruned ([`SearchParams::reduce_below`]).
pub(super) const ORDER_TACTICAL: i32 = ORDER_RELIEF;
const ORDER_LOOSEN: i32 = -10_000;
const ORDER_SELF_PRESSURE: i32 = -12_000;

/// A worker's killer, history and counter-move tables, saved while the extra ranks of a
/// multi-line search run so that they do not change the best move's search.
pub struct OrderingTables {
    killers: Box<[[Move; 2]; MAX_PLY]>,
    history: Box<[i16; HISTORY_LEN]>,
    counters: Box<[Move; HISTORY_LEN]>,
}

/// A search thread.
pub struct Worker {
    /// The game, at the node being searched (made and unmade along the way).
    pub game: Game,
    /// Nodes searched since the last reset.
    pub nodes: u64,
    stack: Vec<Option<Box<PlyData>>>,
    killers: Box<[[Move; 2]; MAX_PLY]>,
    /// History by piece kind (colour and bug) and destination.
    history: Box<[i16; HISTORY_LEN]>,
    /// The quiet move that last caused a cutoff in reply to a move, by the replied-to move's
    /// piece kind and destination (see [`SearchParams::countermove`]).
    counters: Box<[Move; HISTORY_LEN]>,
    /// Triangular principal-variation table.
    pv: Box<[[Move; MAX_PLY]; MAX_PLY]>,
    pv_len: [usize; MAX_PLY],
    /// Late-move reductions by depth and move number, in 1/256 plies.
    reductions: Box<[[u16; 64]; 64]>,
    /// Whether this is the main thread of a parallel search, which shares out the moves of
    /// PV nodes among the helpers.
    pub main: bool,
    /// Recent evaluations by position hash (the evaluation depends on nothing else): the leaves
    /// of one iteration come back as the shallow nodes of the next.
    eval_cache: Vec<(u64, i32)>,
    /// Correction history: by [`Worker::correction_index`], the running average of the
    /// search's score less the static evaluation, in 1/[`CORRECTION_GRAIN`] units.
    correction: Box<[i32; CORRECTION]>,
    /// The evaluation weights of the search, prepared for its game type.
    weights: PreparedWeights,
    /// Marks around the queens while [`Worker::score_moves`] runs (all zero otherwise).
    zone: Box<[u8; CELLS]>,
    /// The move generator's scratch.
    movegen: MoveGen,
}

/// Entries of the evaluation cache (a power of two).
const EVAL_CACHE: usize = 1 << 15;
/// Entries of the correction history (a power of two).
const CORRECTION: usize = 1 << 16;
/// Fixed-point scale of the correction history's entries.
const CORRECTION_GRAIN: i32 = 256;
/// Largest correction, in evaluation units.
const CORRECTION_MAX: i32 = 200;

impl Worker {
    /// A worker with empty tables, searching `game` with the evaluation weights `weights`.
    pub fn new(game: Game, weights: &EvalWeights) -> Worker {
        let mut reductions = Box::new([[0u16; 64]; 64]);
        for (d, row) in reductions.iter_mut().enumerate().skip(1) {
            for (i, r) in row.iter_mut().enumerate().skip(1) {
                *r = (256.0 * (0.5 + (d as f64).ln() * (i as f64).ln() / 2.2)) as u16;
            }
        }
        Worker {
            nodes: 0,
            stack: (0..MAX_PLY)
                .map(|_| {
                    Some(Box::new(PlyData {
                        moves: MoveList::new(),
                        keys: [0; MAX_MOVES],
                        ready: 0,
                    }))
                })
                .collect(),
            killers: Box::new([[Move::PASS; 2]; MAX_PLY]),
            history: Box::new([0; HISTORY_LEN]),
            counters: Box::new([Move::PASS; HISTORY_LEN]),
            pv: Box::new([[Move::PASS; MAX_PLY]; MAX_PLY]),
            pv_len: [0; MAX_PLY],
            reductions,
            main: false,
            eval_cache: vec![(0, 0); EVAL_CACHE],
            correction: Box::new([0; CORRECTION]),
            weights: PreparedWeights::new(weights, game.game_type()),
            zone: Box::new([0; CELLS]),
            movegen: MoveGen::new(),
            game,
        }
    }

    /// A copy of the move-ordering tables that searches change (killers, history and counter
    /// moves).
    pub fn ordering_tables(&self) -> OrderingTables {
        OrderingTables {
            killers: self.killers.clone(),
            history: self.history.clone(),
            counters: self.counters.clone(),
        }
    }

    /// Puts back tables saved by [`Worker::ordering_tables`].
    pub fn restore_ordering_tables(&mut self, saved: &OrderingTables) {
        self.killers.clone_from(&saved.killers);
        self.history.clone_from(&saved.history);
        self.counters.clone_from(&saved.counters);
    }

    /// Forgets killers, history, counter moves and cached evaluations, as if newly made.
    pub fn reset(&mut self) {
        self.killers.fill([Move::PASS; 2]);
        self.history.fill(0);
        self.counters.fill(Move::PASS);
        self.eval_cache.fill((0, 0));
        self.correction.fill(0);
        self.nodes = 0;
    }

    /// Sets the position to search from. The search scores any repeated position as a draw
    /// ([`Worker::terminal`]), which covers threefold repetition, so its copy of the game skips
    /// the threefold test after every move.
    pub fn load(&mut self, game: &Game) {
        self.game.clone_from(game);
        self.game.set_repetition_draw(false);
    }

    /// Prepares for a new search from `game` with the evaluation weights `weights`: history is
    /// kept but halved, counter moves kept, killers cleared; cached evaluations are kept unless
    /// the weights or the game type (on which the evaluation depends) changed.
    pub fn prepare(&mut self, game: &Game, weights: &EvalWeights) {
        self.load(game);
        if game.game_type() != self.weights.game_type() || weights != self.weights.weights() {
            self.weights = PreparedWeights::new(weights, game.game_type());
            self.eval_cache.fill((0, 0));
        }
        self.killers.fill([Move::PASS; 2]);
        for h in self.history.iter_mut() {
            *h /= 2;
        }
        self.nodes = 0;
    }

    /// The static evaluation of the current position, through the cache.
    #[inline]
    fn evaluate(&mut self) -> i32 {
        let key = self.game.hash();
        let slot = &mut self.eval_cache[key as usize & (EVAL_CACHE - 1)];
        if slot.0 == key && key != 0 {
            return slot.1;
        }
        let e = eval::evaluate_prepared(&self.game, &self.weights);
        *slot = (key, e);
        e
    }

    /// The correction history's entry for the current position: the side to move and, for
    /// each queen, what tops its six neighbours (nothing, a friend or an enemy of the side to
    /// move) and whether something covers it.
    fn correction_index(&self) -> usize {
        let board = self.game.board();
        let me = self.game.side_to_move();
        // Per queen one of twice 3^6 codes (the second half when covered), or the next code
        // while in hand: 11 bits each.
        const PATTERNS: u64 = 729;
        let mut key = me as u64;
        for color in [me, me.opponent()] {
            let code = match board.position(Piece::queen(color)) {
                None => 2 * PATTERNS,
                Some(q) => {
                    let mut code = u64::from(board.height(q) > 1) * PATTERNS;
                    let mut unit = 1;
                    for &c in q.neighbours() {
                        code += unit
                            * match board.top(c) {
                                None => 0,
                                Some(p) if p.color() == me => 1,
                                Some(_) => 2,
                            };
                        unit *= 3;
                    }
                    code
                }
            };
            key = key * 2048 + code;
        }
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - CORRECTION.trailing_zeros())) as usize
    }

    /// The static evaluation corrected by `percent`% of the correction history, and when
    /// `percent` is not 0 the entry used with the uncorrected evaluation (to update it with).
    fn corrected_eval(&mut self, percent: u32) -> (i32, Option<(usize, i32)>) {
        let e = self.evaluate();
        if percent == 0 {
            return (e, None);
        }
        let idx = self.correction_index();
        let c = self.correction[idx] * percent as i32 / (100 * CORRECTION_GRAIN);
        (e + c, Some((idx, e)))
    }

    /// Moves the correction history's entry `idx` toward `diff` (a search's score less the
    /// static evaluation), by more for a deeper search.
    fn update_correction(&mut self, idx: usize, diff: i32, depth: i32) {
        let target = diff.clamp(-CORRECTION_MAX, CORRECTION_MAX) * CORRECTION_GRAIN;
        let w = (depth + 1).min(16);
        let entry = &mut self.correction[idx];
        *entry += (target - *entry) * w / 256;
    }

    /// The principal variation below the root move just searched (from ply 1).
    pub fn child_pv(&self) -> &[Move] {
        self.pv_below(0)
    }

    /// Searches the root move `m` (legal in `self.game`) to `depth` with window
    /// `(alpha, beta)` from the root's view; `full` searches with the whole window at once
    /// (the first move), otherwise a null window is tried first. Returns the score from the
    /// root's view (meaningless when the search was aborted).
    pub fn search_root_move(
        &mut self,
        sh: &Shared,
        m: Move,
        depth: i32,
        alpha: i32,
        beta: i32,
        full: bool,
    ) -> i32 {
        // Root moves are never reduced: they go in with the table move's score.
        self.search_move(
            sh,
            m,
            ORDER_TT,
            usize::from(!full),
            depth,
            alpha,
            beta,
            0,
            true,
        )
    }

    #[inline(always)]
    fn count_node(&mut self, sh: &Shared) {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_INTERVAL) {
            sh.poll();
        }
        if self.nodes >= sh.node_limit.load(Ordering::Relaxed) {
            sh.stopped.store(true, Ordering::Relaxed);
            sh.abort.store(true, Ordering::Relaxed);
        }
    }

    /// Exact score of a finished game, or the draw score of a repeated position.
    #[inline(always)]
    fn terminal(&self, ply: usize) -> Option<i32> {
        if let Some(s) = eval::final_score(&self.game) {
            return Some(match s.signum() {
                1 => WIN - ply as i32,
                -1 => -WIN + ply as i32,
                _ => 0,
            });
        }
        if self.game.is_repetition() {
            return Some(0);
        }
        None
    }

    /// At a PV node whose first move has set a bound: shares out the other moves of `data`
    /// among the threads of `split`. Returns the best score among them and, when it beats
    /// `alpha`, its move (the principal variation is updated); `None` when the search was
    /// aborted.
    #[allow(clippy::too_many_arguments)]
    fn search_split(
        &mut self,
        sh: &Shared,
        split: &Split,
        data: &mut PlyData,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> Option<(i32, Option<Move>)> {
        let n = data.moves.len();
        let moves: Vec<(Move, i32)> = (1..n).map(|j| pick(data, j, n)).collect();
        let r = split.search(sh, &self.game, &moves, depth, alpha, beta, ply);
        if sh.aborted() {
            return None;
        }
        let mut best_move = None;
        if let Some((m, pv)) = r.best_move
            && r.best > alpha
        {
            best_move = Some(m);
            self.set_pv(ply, m, &pv);
        }
        Some((r.best, best_move))
    }

    /// Negamax principal variation search of the current position to `depth` plies, from the
    /// side to move's view. Fail-soft: the result may lie outside `(alpha, beta)`.
    pub fn negamax(
        &mut self,
        sh: &Shared,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        self.pv_len[ply] = ply;
        self.count_node(sh);
        if sh.aborted() {
            return 0;
        }
        if let Some(s) = self.terminal(ply) {
            return s;
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiesce(sh, alpha, beta, ply, 0);
        }
        // Mate distance pruning: no score here can beat a win at the next ply.
        alpha = alpha.max(-WIN + ply as i32);
        beta = beta.min(WIN - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        let key = self.game.hash();
        let mut tt_move = None;
        if let Some(e) = sh.tt.probe(key) {
            tt_move = e.mv;
            if !pv_node && e.depth as i32 >= depth {
                let s = score_from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }

        // Static evaluation for the pruning decisions of shallow non-PV nodes, unless the side
        // to move's queen is nearly surrounded (then the position is too sharp to judge).
        let prm = sh.params;
        let mut static_eval = None;
        // The correction history's entry and the uncorrected evaluation, to update it with.
        let mut corrected = None;
        if !pv_node
            && depth <= 3
            && (prm.rfp_margin > 0 || prm.futility_margin > 0 || prm.lmp_base > 0)
            && beta.abs() < WIN_THRESHOLD
            && self.game.queen_pressure(self.game.side_to_move()) < 4
        {
            let (e, entry) = self.corrected_eval(prm.correction);
            corrected = entry;
            if prm.rfp_margin > 0 && e - prm.rfp_margin * depth >= beta {
                return e;
            }
            static_eval = Some(e);
        }
        // Null-move pruning: if passing still leaves a score of beta after a shallower
        // search, a real move would too (Hive has almost no zugzwang). Never twice in a row,
        // and not before one's queen is placed or while it is nearly surrounded.
        if prm.null_move > 0
            && !pv_node
            && depth >= 3
            && beta.abs() < WIN_THRESHOLD
            && self.game.last_move().is_some_and(|m| !m.is_pass())
            && self.game.queen_placed(self.game.side_to_move())
            && self.game.queen_pressure(self.game.side_to_move()) < 4
            && static_eval.unwrap_or_else(|| self.corrected_eval(prm.correction).0) >= beta
        {
            let r = prm.null_move as i32 + depth / 4;
            self.game.play_unchecked(Move::PASS);
            let s = -self.negamax(sh, depth - 1 - r, -beta, -beta + 1, ply + 1, false);
            self.game.undo();
            if sh.aborted() {
                return 0;
            }
            if s >= beta {
                return if s >= WIN_THRESHOLD { beta } else { s };
            }
        }
        let futile = prm.futility_margin > 0
            && depth <= prm.futility_depth as i32
            && static_eval.is_some_and(|e| e + prm.futility_margin * depth <= alpha);
        let late = if prm.lmp_base > 0 && static_eval.is_some() {
            (prm.lmp_base * (depth * depth) as u32) as usize
        } else {
            usize::MAX
        };

        let Some(mut data) = self.stack[ply].take() else {
            return self.evaluate();
        };
        self.movegen.generate(&self.game, &mut data.moves);
        let n = data.moves.len();
        // The table's move (if legal here) goes first; the others are scored only if it does
        // not cut off.
        let mut first = 0;
        if let Some(tm) = tt_move
            && let Some(pos) = data.moves.as_slice().iter().position(|&m| m == tm)
        {
            data.moves.as_mut_slice().swap(0, pos);
            data.keys[0] = key_of(ORDER_TT, 0);
            first = 1;
        }
        data.ready = first;

        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        for i in 0..n {
            if i == first {
                self.score_moves(&mut data, first, ply, prm.countermove);
            }
            if i == 1
                && pv_node
                && self.main
                && depth >= SPLIT_DEPTH
                && n > 2
                && let Some(split) = &sh.split
            {
                // The first move has set a bound: share out the others.
                let Some((score, m)) =
                    self.search_split(sh, split, &mut data, depth, alpha, beta, ply)
                else {
                    self.stack[ply] = Some(data);
                    return 0;
                };
                best = best.max(score);
                if m.is_some() {
                    best_move = m;
                }
                break;
            }
            let (m, order) = pick(&mut data, i, n);
            if i > 0 && order < prm.prune_below && (futile || i >= late) && best > -WIN_THRESHOLD {
                // Every later move comes with a lower ordering score, so it would be pruned too.
                break;
            }
            let score = self.search_move(sh, m, order, i, depth, alpha, beta, ply, pv_node);
            if sh.aborted() {
                self.stack[ply] = Some(data);
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        self.reward(&data, i, m, order, depth, ply, prm.countermove);
                        break;
                    }
                }
            }
        }
        self.stack[ply] = Some(data);

        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // A bound on the wrong side of the evaluation says nothing about its error.
        if let Some((idx, e)) = corrected
            && best.abs() < WIN_THRESHOLD
            && !(bound == Bound::Lower && best <= e)
            && !(bound == Bound::Upper && best >= e)
        {
            self.update_correction(idx, best - e, depth);
        }
        if !sh.read_only_tt.load(Ordering::Relaxed) {
            sh.tt.store(
                key,
                best_move,
                score_to_tt(best, ply),
                depth.clamp(0, 255) as u8,
                bound,
            );
        }
        best
    }

    /// Quiescence search: the static evaluation, unless a queen is nearly surrounded; then
    /// the side to move may also try the moves that add pressure to the enemy queen, so that
    /// a win on the next move is not missed at the horizon. With `quiescence_evasions`, a
    /// [threatened](Worker::threatened) side at the horizon [evades](Worker::evade) instead.
    fn quiesce(&mut self, sh: &Shared, mut alpha: i32, beta: i32, ply: usize, qply: u32) -> i32 {
        if sh.params.quiescence_evasions
            && sh.params.quiescence
            && qply == 0
            && sh.params.quiescence_plies > 0
            && ply < MAX_PLY - 2
            && self.threatened(ply)
        {
            return self.evade(sh, alpha, beta, ply);
        }
        let stand = self.evaluate();
        if !sh.params.quiescence || qply >= sh.params.quiescence_plies || ply >= MAX_PLY - 1 {
            return stand;
        }
        let me = self.game.side_to_move();
        let Some(eq) = self.game.board().position(Piece::queen(me.opponent())) else {
            return stand;
        };
        if self.game.queen_pressure(me.opponent()) < sh.params.quiescence_pressure {
            return stand;
        }
        if stand >= beta {
            return stand;
        }
        alpha = alpha.max(stand);
        let Some(mut data) = self.stack[ply].take() else {
            return stand;
        };
        self.movegen
            .generate_next_to(&self.game, eq, &mut data.moves);
        let kept = self.keep_queen_attacks(&mut data.moves, eq);
        let mut best = stand;
        for i in 0..kept {
            let m = data.moves.as_slice()[i];
            let score = self.quiesce_move(sh, m, alpha, beta, ply, qply + 1);
            if sh.aborted() || raise(&mut best, &mut alpha, beta, score) {
                break;
            }
        }
        self.stack[ply] = Some(data);
        best
    }

    /// Plays `m` at the quiescence node at `ply` and returns its score from this node's view:
    /// the finished game's, or the child's quiescence search at quiescence ply `qply`.
    fn quiesce_move(
        &mut self,
        sh: &Shared,
        m: Move,
        alpha: i32,
        beta: i32,
        ply: usize,
        qply: u32,
    ) -> i32 {
        self.game.play_unchecked(m);
        self.count_node(sh);
        let score = match self.terminal(ply + 1) {
            Some(s) => -s,
            None => -self.quiesce(sh, -beta, -alpha, ply + 1, qply),
        };
        self.game.undo();
        score
    }

    /// Whether the side to move's queen has one free neighbour left that the enemy could fill
    /// with its next move, if it were its turn (Hive's check).
    fn threatened(&mut self, ply: usize) -> bool {
        let board = self.game.board();
        let Some(q) = board.position(Piece::queen(self.game.side_to_move())) else {
            return false;
        };
        let occupied = board.occupied_neighbours(q);
        if occupied.count_ones() != 5 {
            return false;
        }
        let free = q.neighbours()[(!occupied & 0x3f).trailing_zeros() as usize];
        let Some(mut data) = self.stack[ply].take() else {
            return false;
        };
        self.game.play_unchecked(Move::PASS);
        self.movegen
            .generate_next_to(&self.game, q, &mut data.moves);
        let kept = self.keep_queen_attacks(&mut data.moves, q);
        let hit = data.moves.as_slice()[..kept].iter().any(|m| m.to() == free);
        self.game.undo();
        self.stack[ply] = Some(data);
        hit
    }

    /// The quiescence search of a [threatened](Worker::threatened) side, which may not stand
    /// pat: the moves that end next to the enemy queen, its queen's moves and those of its
    /// pieces alone next to its queen first; the others only when each of those loses, so that
    /// a loss is claimed only when every move loses (to a win found by the enemy's quiescence
    /// search at the next ply).
    fn evade(&mut self, sh: &Shared, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        let Some(mut data) = self.stack[ply].take() else {
            return self.evaluate();
        };
        self.movegen.generate(&self.game, &mut data.moves);
        let me = self.game.side_to_move();
        let board = self.game.board();
        let q = board.cell_of(Piece::queen(me));
        let eq = board.position(Piece::queen(me.opponent()));
        // Either colour's: a Pillbug may move an enemy piece away.
        let leaves = alone_next_to(board, q);
        let moves = data.moves.as_mut_slice();
        let mut first = 0;
        for j in 0..moves.len() {
            let m = moves[j];
            if m.piece().is_some_and(|p| {
                p == Piece::queen(me)
                    || leaves.contains(p)
                    || eq.is_some_and(|e| m.to().distance(e) == 1)
            }) {
                moves.swap(first, j);
                first += 1;
            }
        }
        let mut best = -INF;
        for i in 0..data.moves.len() {
            if i == first && best > -WIN_THRESHOLD {
                break;
            }
            let m = data.moves.as_slice()[i];
            let score = self.quiesce_move(sh, m, alpha, beta, ply, 1);
            if sh.aborted() || raise(&mut best, &mut alpha, beta, score) {
                break;
            }
        }
        self.stack[ply] = Some(data);
        best
    }

    /// Of `moves`, which all end next to the queen on `eq`, keeps at the front and in their
    /// order those that fill a cell there: not by a piece that leaves a cell next to the queen
    /// empty. Returns how many.
    fn keep_queen_attacks(&self, moves: &mut MoveList, eq: Cell) -> usize {
        let leaves = alone_next_to(self.game.board(), eq);
        let moves = moves.as_mut_slice();
        let mut kept = 0;
        for j in 0..moves.len() {
            let m = moves[j];
            if m.piece().is_some_and(|p| !leaves.contains(p)) {
                moves[kept] = m;
                kept += 1;
            }
        }
        kept
    }

    /// Searches move `m` (the `i`-th tried here, with ordering score `order`) of the node at
    /// `ply`: the first with the full window, the others with a null window (reduced when late
    /// and quiet), re-searched when they beat alpha. Returns the score from this node's view.
    #[allow(clippy::too_many_arguments)]
    pub fn search_move(
        &mut self,
        sh: &Shared,
        m: Move,
        order: i32,
        i: usize,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        self.game.play_unchecked(m);
        // The child's table bucket and cached evaluation are both read soon, from memory that
        // is rarely in the cache: start loading them now.
        let key = self.game.hash();
        sh.tt.prefetch(key);
        tt::prefetch(&self.eval_cache[key as usize & (EVAL_CACHE - 1)]);
        let mut score;
        if i == 0 {
            score = -self.negamax(sh, depth - 1, -beta, -alpha, ply + 1, pv_node);
        } else {
            let mut r = 0;
            if sh.params.lmr && depth >= 3 && order < sh.params.reduce_below && i >= 2 {
                let base = self.reductions[(depth as usize).min(63)][i.min(63)] as i32;
                r = base * sh.params.lmr_percent as i32 / 25_600;
                if pv_node {
                    r -= 1;
                }
                r = r.clamp(0, depth - 2);
            }
            score = -self.negamax(sh, depth - 1 - r, -alpha - 1, -alpha, ply + 1, false);
            if r > 0 && score > alpha && !sh.aborted() {
                score = -self.negamax(sh, depth - 1, -alpha - 1, -alpha, ply + 1, false);
            }
            if pv_node && score > alpha && score < beta && !sh.aborted() {
                score = -self.negamax(sh, depth - 1, -beta, -alpha, ply + 1, true);
            }
        }
        self.game.undo();
        score
    }

    /// The principal variation below the node at `ply`, after [`Worker::search_move`] of a
    /// move that raised alpha at a PV node.
    pub fn pv_below(&self, ply: usize) -> &[Move] {
        let len = self.pv_len[ply + 1].max(ply + 1);
        &self.pv[ply + 1][ply + 1..len]
    }

    /// Sets the principal variation at `ply` to `m` followed by `rest`.
    fn set_pv(&mut self, ply: usize, m: Move, rest: &[Move]) {
        let len = (ply + 1 + rest.len()).min(MAX_PLY);
        let row = &mut self.pv[ply];
        row[ply] = m;
        row[ply + 1..len].copy_from_slice(&rest[..len - ply - 1]);
        self.pv_len[ply] = len;
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let row = &mut head[ply];
        row[ply] = m;
        row[ply + 1..child_len].copy_from_slice(&tail[0][ply + 1..child_len]);
        self.pv_len[ply] = child_len;
    }

    /// Killer and history updates after move `i` (`m`) caused a cutoff, and with
    /// `countermove` the counter move of the last move.
    #[allow(clippy::too_many_arguments)]
    fn reward(
        &mut self,
        data: &PlyData,
        i: usize,
        m: Move,
        order: i32,
        depth: i32,
        ply: usize,
        countermove: bool,
    ) {
        if order >= ORDER_PRESSURE || m.is_pass() {
            return;
        }
        let k = &mut self.killers[ply];
        if k[0] != m {
            k[1] = k[0];
            k[0] = m;
        }
        let bonus = (depth * depth).min(400);
        update_history(&mut self.history[..], m, bonus);
        if countermove && let Some(slot) = self.counter_slot() {
            self.counters[slot] = m;
        }
        for j in 0..i {
            let other =
                data.moves.as_slice()[(MAX_MOVES as u64 - (data.keys[j] & 0xffff_ffff)) as usize];
            if other != m && !other.is_pass() {
                update_history(&mut self.history[..], other, -bonus);
            }
        }
    }

    /// `moves` (legal in `self.game`) in the order a node search would try them: the table's
    /// move first, then by the ordering heuristics.
    pub fn order_root(&mut self, sh: &Shared, moves: &MoveList) -> Vec<Move> {
        let tt_move = sh.tt.probe(self.game.hash()).and_then(|e| e.mv);
        let Some(mut data) = self.stack[0].take() else {
            return moves.to_vec();
        };
        data.moves.clone_from(moves);
        let mut first = 0;
        if let Some(pos) = moves.iter().position(|&m| Some(m) == tt_move) {
            data.moves.as_mut_slice().swap(0, pos);
            data.keys[0] = key_of(ORDER_TT, 0);
            first = 1;
        }
        self.score_moves(&mut data, first, 0, sh.params.countermove);
        let n = data.moves.len();
        data.keys[..n].sort_unstable_by(|a, b| b.cmp(a));
        let ordered = data.keys[..n]
            .iter()
            .map(|&k| data.moves.as_slice()[MAX_MOVES - (k & 0xffff_ffff) as usize])
            .collect();
        self.stack[0] = Some(data);
        ordered
    }

    /// Fills the ordering keys of `data.moves[from..]`.
    ///
    /// Per move this is a few table lookups: the cells on and around both queens and the
    /// destinations of the killers and the counter move are marked in `self.zone` for the
    /// duration of the call, the pieces whose leaving empties a cell next to either queen are
    /// flagged once, and the bonuses come from [`BONUS`].
    fn score_moves(&mut self, data: &mut PlyData, from: usize, ply: usize, countermove: bool) {
        let counter = match countermove.then(|| self.counter_slot()).flatten() {
            Some(slot) => self.counters[slot],
            None => Move::PASS,
        };
        let me = self.game.side_to_move();
        let board = self.game.board();
        let enemy_q = board.position(Piece::queen(me.opponent()));
        let my_q = board.position(Piece::queen(me));
        let zone = &mut self.zone;
        let flags = queen_rings(board, me, enemy_q, my_q, |c, mark| zone[c.index()] |= mark);
        let killers = self.killers[ply];
        for k in killers {
            if !k.is_pass() {
                zone[k.to().index()] |= KILLER_TARGET;
            }
        }
        if !counter.is_pass() {
            zone[counter.to().index()] |= COUNTER_TARGET;
        }
        let n = data.moves.len();
        let moves = &data.moves.as_slice()[from..n];
        let keys = &mut data.keys[from..n];
        // The best key, to be put in front (saving [`pick`] a pass).
        let (mut best, mut top) = (0, 0);
        for i in 0..moves.len().min(keys.len()) {
            let m = moves[i];
            let score = if let Some(piece) = m.piece() {
                let (id, to) = (piece.id(), m.to().index());
                let z = zone[to & (CELLS - 1)];
                let (enemy_bonus, own_bonus) = BONUS[(z & 7 | flags[id]) as usize & 63];
                let row = HISTORY_ROW[id] as usize;
                let mut s = self.history[(row + to) & (HISTORY_LEN - 1)] as i32 + enemy_bonus;
                if s < ORDER_TACTICAL {
                    if z & KILLER_TARGET != 0 && killers[0] == m {
                        s = s.max(ORDER_KILLER[0]);
                    } else if z & KILLER_TARGET != 0 && killers[1] == m {
                        s = s.max(ORDER_KILLER[1]);
                    } else if z & COUNTER_TARGET != 0 && counter == m {
                        s = s.max(ORDER_COUNTER);
                    } else {
                        s += own_bonus;
                    }
                }
                s
            } else {
                0
            };
            let key = key_of(score, from + i);
            keys[i] = key;
            if key > top {
                (best, top) = (i, key);
            }
        }
        if !keys.is_empty() {
            keys[best] = keys[0];
            keys[0] = top;
            data.ready = from + 1;
        }
        for q in [enemy_q, my_q].into_iter().flatten() {
            zone[q.index()] = 0;
            for &c in q.neighbours() {
                zone[c.index()] = 0;
            }
        }
        for k in [killers[0], killers[1], counter] {
            zone[k.to().index()] = 0;
        }
    }

    /// The entry of [`Worker::counters`] for the last move played (none after a pass or at
    /// the start).
    #[inline]
    fn counter_slot(&self) -> Option<usize> {
        let last = self.game.last_move()?;
        Some(history_index(last.piece()?, last.to()))
    }
}

/// The history-free part of the move ordering, for the Monte Carlo search's priors: for each
/// of `moves` (legal in `game`) the bonus [`Worker`]'s ordering gives it for the queens'
/// neighbourhoods (onto or next to the enemy queen, leaving it, relieving or crowding the own
/// queen), written to `out`; no killers or history, so the result depends on the position only.
pub(super) fn queen_bonus(game: &Game, moves: &[Move], out: &mut Vec<i32>) {
    out.clear();
    let me = game.side_to_move();
    let board = game.board();
    let enemy_q = board.position(Piece::queen(me.opponent()));
    let my_q = board.position(Piece::queen(me));
    // The queen's cell and the two rings: at most 13 marked cells.
    let mut marks: Vec<(Cell, u8)> = Vec::with_capacity(13);
    let flags = queen_rings(board, me, enemy_q, my_q, |c, mark| marks.push((c, mark)));
    for &m in moves {
        let Some(piece) = m.piece() else {
            out.push(0);
            continue;
        };
        let to = m.to();
        let z = marks
            .iter()
            .filter(|&&(c, _)| c == to)
            .fold(0, |z, &(_, mark)| z | mark);
        let (enemy_bonus, own_bonus) = BONUS[(z | flags[piece.id() & 31]) as usize & 63];
        out.push(if enemy_bonus < ORDER_TACTICAL {
            enemy_bonus + own_bonus
        } else {
            enemy_bonus
        });
    }
}

/// One pass over the cells of both queens' rings: hands `mark` each cell with its
/// [`Worker::zone`] mark (the enemy queen's cell, its neighbours, the own queen's neighbours),
/// and returns per piece id bits 3 to 5 of the index into [`BONUS`] for a move of that piece:
/// it stands alone on a cell next to the enemy queen (`enemy_q`) or the own queen (`my_q`), so
/// moving it empties that cell, or it is the own queen (which gets no bonus or penalty for its
/// own neighbourhood). `me` is the side to move.
fn queen_rings(
    board: &Board,
    me: Color,
    enemy_q: Option<Cell>,
    my_q: Option<Cell>,
    mut mark: impl FnMut(Cell, u8),
) -> [u8; 32] {
    let mut flags = [0u8; 32];
    if let Some(q) = enemy_q {
        mark(q, ON_ENEMY_QUEEN);
    }
    let rings = [
        (enemy_q, NEXT_TO_ENEMY_QUEEN, LEAVES_ENEMY_QUEEN),
        (my_q, NEXT_TO_OWN_QUEEN, LEAVES_OWN_QUEEN),
    ];
    for (q, zone_mark, flag) in rings {
        for &c in q.iter().flat_map(|q| q.neighbours()) {
            mark(c, zone_mark);
            if board.height(c) == 1
                && let Some(p) = board.top(c)
            {
                flags[p.id() & 31] |= flag;
            }
        }
    }
    flags[Piece::queen(me).id()] |= IS_OWN_QUEEN;
    flags
}

/// Takes `score` of a move into a fail-soft search's `best` and `alpha`; true when it
/// reaches `beta` (a cutoff).
fn raise(best: &mut i32, alpha: &mut i32, beta: i32, score: i32) -> bool {
    if score > *best {
        *best = score;
        if score > *alpha {
            *alpha = score;
            return score >= beta;
        }
    }
    false
}

/// The pieces alone on a cell next to `cell` (either colour's): moving one empties a cell
/// there.
fn alone_next_to(board: &Board, cell: Cell) -> PieceSet {
    let mut alone = PieceSet::EMPTY;
    for &c in cell.neighbours() {
        if board.height(c) == 1
            && let Some(p) = board.top(c)
        {
            alone.insert(p);
        }
    }
    alone
}

/// Marks of [`Worker::zone`]: the enemy queen's cell, its neighbours, the own queen's
/// neighbours.
const ON_ENEMY_QUEEN: u8 = 1;
const NEXT_TO_ENEMY_QUEEN: u8 = 2;
const NEXT_TO_OWN_QUEEN: u8 = 4;
/// A [`Worker::zone`] mark: the destination of a killer move.
const KILLER_TARGET: u8 = 64;
/// A [`Worker::zone`] mark: the destination of the counter move.
const COUNTER_TARGET: u8 = 128;
/// Bits of a piece in the index into [`BONUS`].
const LEAVES_ENEMY_QUEEN: u8 = 8;
const LEAVES_OWN_QUEEN: u8 = 16;
const IS_OWN_QUEEN: u8 = 32;

/// Ordering bonuses (for the enemy queen, for the own queen) by the [`Worker::zone`] marks of
/// the destination (bits 0 to 2), whether the piece leaves a cell next to the enemy queen
/// (bit 3) or next to its own queen (bit 4), and whether it is the own queen (bit 5).
const BONUS: [(i32, i32); 64] = {
    let mut t = [(0, 0); 64];
    let mut i = 0;
    while i < 64 {
        let on_eq = i & 1 != 0;
        let near_eq = i & 2 != 0;
        let near_mq = i & 4 != 0;
        let leaves_eq = i & 8 != 0;
        let leaves_mq = i & 16 != 0;
        let is_my_queen = i & 32 != 0;
        t[i].0 = if on_eq {
            ORDER_ON_QUEEN
        } else if near_eq {
            if leaves_eq { 0 } else { ORDER_PRESSURE }
        } else if leaves_eq {
            ORDER_LOOSEN
        } else {
            0
        };
        t[i].1 = if is_my_queen {
            0
        } else if leaves_mq && !near_mq {
            ORDER_RELIEF
        } else if near_mq && !leaves_mq {
            ORDER_SELF_PRESSURE
        } else {
            0
        };
        i += 1;
    }
    t
};

/// Entries of the history table (a power of two).
const HISTORY_LEN: usize = 16 * CELLS;

/// Start of each piece's row in the history table (by colour and bug, see [`history_index`]).
const HISTORY_ROW: [u32; PIECE_COUNT] = {
    let mut t = [0; PIECE_COUNT];
    let mut id = 0;
    while id < PIECE_COUNT {
        if let Some(p) = Piece::from_id(id) {
            t[id] = ((p.color() as usize * 8 + p.bug() as usize) * CELLS) as u32;
        }
        id += 1;
    }
    t
};

/// The sort key of move `index` with ordering score `score`.
#[inline(always)]
fn key_of(score: i32, index: usize) -> u64 {
    ((score as i64 - i32::MIN as i64) as u64) << 32 | (MAX_MOVES - index) as u64
}

/// Puts the `i`-th best move at position `i` (the moves before it in place) and returns it with
/// its ordering score. The first few are selected one by one (a cutoff usually comes early, and
/// late-move pruning stops shallow nodes after a few quiet moves); after that the rest is
/// sorted.
#[inline]
fn pick(data: &mut PlyData, i: usize, n: usize) -> (Move, i32) {
    const SELECT: usize = 8;
    let keys = &mut data.keys[..n];
    if i < data.ready {
        // Already in place.
    } else if i < SELECT {
        let (mut best, mut top) = (i, keys[i]);
        for (j, &k) in keys[i + 1..].iter().enumerate() {
            if k > top {
                (best, top) = (i + 1 + j, k);
            }
        }
        keys[best] = keys[i];
        keys[i] = top;
    } else if i == SELECT {
        keys[i..].sort_unstable_by(|a, b| b.cmp(a));
    }
    let key = keys[i];
    let index = MAX_MOVES - (key & 0xffff_ffff) as usize;
    let score = ((key >> 32) as i64 + i32::MIN as i64) as i32;
    (data.moves.as_slice()[index], score)
}

#[inline(always)]
fn history_index(piece: Piece, to: Cell) -> usize {
    (piece.color() as usize * 8 + piece.bug() as usize) * CELLS + to.index()
}

/// History with gravity: values stay within `±HISTORY_MAX`.
fn update_history(history: &mut [i16], m: Move, bonus: i32) {
    let Some(piece) = m.piece() else {
        return;
    };
    let h = &mut history[history_index(piece, m.to())];
    let v = *h as i32;
    *h = (v + bonus - v * bonus.abs() / HISTORY_MAX) as i16;
}

/// A score as stored in the table: win scores counted from the node instead of the root.
#[inline(always)]
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_THRESHOLD {
        score + ply as i32
    } else if score <= -WIN_THRESHOLD {
        score - ply as i32
    } else {
        score
    }
}

/// The inverse of [`score_to_tt`].
#[inline(always)]
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_THRESHOLD {
        score - ply as i32
    } else if score <= -WIN_THRESHOLD {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_game_string;

    /// The ordering score [`Worker::score_moves`] gives each move of the worker's position at
    /// `ply`, by move.
    fn scores(w: &mut Worker, ply: usize, countermove: bool) -> Vec<(Move, i32)> {
        let mut data = w.stack[ply].take().expect("a free ply");
        w.movegen.generate(&w.game, &mut data.moves);
        w.score_moves(&mut data, 0, ply, countermove);
        let n = data.moves.len();
        let out = (0..n).map(|i| pick(&mut data, i, n)).collect();
        w.stack[ply] = Some(data);
        out
    }

    /// A Base game after 14 moves, both queens placed.
    fn middle_game() -> Game {
        parse_game_string(
            "Base;InProgress;White[8];wG1;bA1 \\wG1;wS1 /wG1;bB1 \\bA1;wQ wG1-;bQ \\bB1;\
             wA1 wS1-;bA2 bA1/;wA1 bA2/;bQ -wA1;wG2 /wS1;bA3 -bA1;wG2 \\wQ;bA3 wQ/",
            true,
        )
        .expect("a valid game")
    }

    #[test]
    fn a_refutation_comes_right_after_the_killers_when_its_move_is_played_again() {
        let mut w = Worker::new(middle_game(), &EvalWeights::default());
        // The quietest move of the position: the one ordered last.
        let before = scores(&mut w, 1, true);
        let &(m, order) = before.last().expect("moves");
        assert!(order < ORDER_COUNTER, "{order}");
        // It refutes the last move (bA3 wQ/) at ply 1; ply 2 has no killers, so only the
        // counter move can lift it there.
        let mut data = w.stack[1].take().expect("a free ply");
        w.movegen.generate(&w.game, &mut data.moves);
        w.reward(&data, 0, m, order, 3, 1, true);
        w.stack[1] = Some(data);
        let after = scores(&mut w, 2, true);
        let lifted = after.iter().find(|&&(x, _)| x == m).expect("m is legal").1;
        assert_eq!(lifted, ORDER_COUNTER);
        assert!(after.iter().all(|&(x, s)| x == m || s != ORDER_COUNTER));
        // Without counter moves it keeps its history score, below the counter moves' class.
        let plain = scores(&mut w, 2, false);
        let kept = plain.iter().find(|&&(x, _)| x == m).expect("m is legal").1;
        assert!(kept < ORDER_COUNTER, "{kept}");
        // After another last move it is no counter move.
        w.game.undo();
        let other = scores(&mut w, 2, true);
        assert!(other.iter().all(|&(_, s)| s != ORDER_COUNTER));
    }

    #[test]
    fn the_correction_history_is_kept_by_the_neighbourhoods_of_both_queens() {
        let game = middle_game();
        let mut w = Worker::new(game.clone(), &EvalWeights::default());
        let board = game.board();
        let near_queen = |c: Cell| {
            [Color::White, Color::Black].iter().any(|&color| {
                board
                    .position(Piece::queen(color))
                    .is_some_and(|q| q == c || q.distance(c) == 1)
            })
        };
        // A move that neither leaves nor reaches a cell on or around a queen.
        let mut moves = MoveList::new();
        w.movegen.generate(&game, &mut moves);
        let far = moves
            .as_slice()
            .iter()
            .copied()
            .find(|m| {
                m.piece()
                    .is_some_and(|p| board.position(p).is_some_and(|from| !near_queen(from)))
                    && !near_queen(m.to())
            })
            .expect("a move away from the queens");
        let here = w.correction_index();
        w.game.play_unchecked(far);
        let after_far = w.correction_index();
        w.game.undo();
        w.game.play_unchecked(Move::PASS);
        let after_pass = w.correction_index();
        w.game.undo();
        assert_eq!(after_far, after_pass);
        assert_ne!(here, after_pass, "the side to move is part of the key");

        // The entry moves toward the errors it is given, clamped, and corrects the evaluation.
        let e = w.evaluate();
        assert_eq!(w.corrected_eval(100), (e, Some((here, e))));
        for _ in 0..200 {
            w.update_correction(here, 80, 15);
        }
        assert!((79..=80).contains(&(w.corrected_eval(100).0 - e)));
        assert!((39..=40).contains(&(w.corrected_eval(50).0 - e)));
        assert_eq!(w.corrected_eval(0), (e, None));
        for _ in 0..200 {
            w.update_correction(here, -5_000, 15);
        }
        assert!((-CORRECTION_MAX..=-CORRECTION_MAX + 1).contains(&(w.corrected_eval(100).0 - e)));
        w.reset();
        assert_eq!(w.corrected_eval(100).0, e);
    }
}
