//! Choosing a move: the interface the UHP server talks to, and the alpha-beta search behind it.
//!
//! The server owns one [`Engine`] for the life of the process; it passes each `bestmove` the
//! game, the limits, a stop flag (raised by SIGINT) and a sink for intermediate reports.
//!
//! The search is a negamax principal variation search with iterative deepening, aspiration
//! windows, a shared lock-free transposition table ([`tt`]), move ordering (table move, moves
//! adding pressure to the enemy queen, killers, history), late-move reductions and a small
//! quiescence search for queens about to be surrounded. Repeated positions (game history plus
//! search path) score as draws; a forced pass is searched like any other move.
//!
//! Shallow non-PV nodes are pruned: reverse futility (static evaluation far above beta),
//! futility at the frontier (far below alpha) and late-move pruning of quiet moves; together
//! they won about +110 Elo in self-play at 100 ms per move. Each search thread caches
//! evaluations by position hash.
//!
//! Parallelism is principal-variation splitting, the root included: at the root and at every
//! PV node at least four plies from the horizon, the first move is searched
//! alone to establish a bound, then the remaining moves are shared out among the threads (the
//! calling thread and a rayon pool of `threads - 1`), each thread taking the next unsearched
//! move, searching it with a null window against the best score found so far (shared through an
//! atomic and the transposition table) and re-searching with the full window when it beats it.
//! Only the main thread splits, so splits do not nest. With one thread no pool is used and the
//! search is deterministic.

pub mod time;
pub mod tt;
mod worker;

pub mod mcts;
pub mod skill;

use crate::core::{Game, GameType, Move};
use crate::eval::{self, EvalWeights, WIN_THRESHOLD, WeightSets};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use time::TimeManager;
use tt::{Bound, TranspositionTable};
use worker::{INF, Shared, Split, Worker, lock};

pub use worker::MAX_PLY;

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
    /// How many best moves the alpha-beta search ranks (`MultiPV`): 1 searches for the best
    /// move only; `K > 1` finds the best `K` moves and reports each of them.
    pub multi_pv: usize,
    /// Playing level, from [`skill::MIN_SKILL_LEVEL`] to [`skill::MAX_SKILL_LEVEL`] (full
    /// strength); below the top the alpha-beta search plays weaker (see [`skill`]).
    pub skill_level: u32,
    /// Seed of the random choices of the lower levels.
    pub seed: u64,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            threads: 1,
            hash_mb: 64,
            algorithm: Algorithm::AlphaBeta,
            multi_pv: 1,
            skill_level: skill::MAX_SKILL_LEVEL,
            seed: 0,
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

/// An intermediate report: the best move so far after a completed iteration, or with
/// [`EngineOptions::multi_pv`] above 1 one of the ranked moves (one report per rank, best first).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// Depth of the completed iteration.
    pub depth: u32,
    /// The move's rank in this iteration: 1 for the best move, 2 for the second best, ...
    pub rank: usize,
    /// Score from the side to move's view, in evaluation units.
    pub score: i32,
    /// The principal variation, best move first (never empty).
    pub pv: Vec<Move>,
    /// Nodes searched so far (MCTS: iterations).
    pub nodes: u64,
    /// MCTS only: the share of root visits that went to the best move.
    pub visit_share: Option<f32>,
}

/// Tuning knobs of the searches (not UHP options; for tests, tuning and matches).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchParams {
    /// Evaluation weights (the set for the game's type is used).
    pub weights: WeightSets,
    /// Search each iteration first with a narrow window around the previous score.
    pub aspiration: bool,
    /// Reduce the depth of late, quiet moves (re-searched at full depth when they fail high).
    /// Not value-preserving; it never applies at depths below 3.
    pub lmr: bool,
    /// Strength of the reductions in percent of `0.5 + ln(depth) * ln(move number) / 2.2`
    /// plies.
    pub lmr_percent: u32,
    /// At the horizon, let the side to move try moves next to an enemy queen that has at least
    /// `quiescence_pressure` occupied neighbours (so that a win in one at the horizon is not
    /// missed).
    pub quiescence: bool,
    /// Occupied neighbours of the enemy queen from which quiescence moves are tried.
    pub quiescence_pressure: u32,
    /// Longest quiescence line, in plies.
    pub quiescence_plies: u32,
    /// Quiescence evasions: at the horizon, a side whose queen has one free neighbour left
    /// that the enemy could fill with its next move (Hive's check) may not stand pat; it
    /// tries first the moves that end next to the enemy queen, its queen's moves and those of
    /// its pieces alone next to its queen, and only when each of them loses, the rest. Off
    /// until its SPRT ends (see `docs/search-experiments.md`).
    pub quiescence_evasions: bool,
    /// Reverse futility pruning: at a non-PV node of depth 1 to 3 whose static evaluation
    /// exceeds beta by this much per ply of depth, return the evaluation (0 = off).
    pub rfp_margin: i32,
    /// Futility pruning: at a non-PV node of depth `d <= futility_depth` whose static
    /// evaluation plus `futility_margin * d` cannot reach alpha, quiet moves are skipped
    /// (0 = off).
    pub futility_margin: i32,
    /// Deepest node where futility pruning applies (1 to 3; the static evaluation is only
    /// taken at depths up to 3).
    pub futility_depth: u32,
    /// Late-move pruning: at a non-PV node of depth `d <= 3`, quiet moves after the first
    /// `lmp_base * d * d` are skipped (0 = off).
    pub lmp_base: u32,
    /// Order the quiet move that last refuted the opponent's previous move (by its piece kind
    /// and destination) right after the killers. Off until its SPRT ends (see
    /// `docs/search-experiments.md`).
    pub countermove: bool,
    /// Correction history (0 = off): the static evaluation that shallow non-PV nodes use for
    /// pruning is corrected by this percentage of the running average of how far the searches
    /// of positions with the same neighbourhoods of both queens (and the same side to move)
    /// ended from their static evaluation. Off until a longer match at 1 s per move confirms
    /// its SPRT (see `docs/search-experiments.md`).
    pub correction: u32,
    /// Null-move pruning (0 = off; 2 by default, proven by SPRT, see
    /// `docs/search-experiments.md`): at a non-PV node of depth 3 or more whose static
    /// evaluation reaches beta, the side to move passes and the opponent's reply is searched
    /// this many plies plus a quarter of the depth shallower with a null window; when even
    /// that fails high, the node does.
    pub null_move: u32,
    /// Half-width of the first aspiration window (doubled after each failure).
    pub aspiration_delta: i32,
    /// Late-move reductions apply to moves whose ordering score (the `ORDER_*` classes of
    /// `src/search/worker.rs` plus the move's history) is below this; the default, the
    /// tactical threshold, reduces the quiet moves only.
    pub reduce_below: i32,
    /// Futility and late-move pruning skip moves whose ordering score is below this (the
    /// same scale and default as `reduce_below`).
    pub prune_below: i32,
    /// With a time limit, no iteration starts after this percentage of the usable time.
    pub soft_percent: u32,
    /// The Monte Carlo search's constants (set by name with the prefix `mcts_`:
    /// `mcts_eval_scale`, `mcts_exploration`, ...).
    pub mcts: mcts::MctsParams,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            weights: WeightSets::default(),
            aspiration: true,
            lmr: true,
            lmr_percent: 100,
            quiescence: true,
            quiescence_pressure: 4,
            quiescence_plies: 2,
            quiescence_evasions: false,
            rfp_margin: 60,
            futility_margin: 150,
            futility_depth: 1,
            lmp_base: 4,
            countermove: false,
            correction: 0,
            null_move: 2,
            aspiration_delta: 30,
            reduce_below: worker::ORDER_TACTICAL,
            prune_below: worker::ORDER_TACTICAL,
            soft_percent: time::SOFT_PERCENT,
            mcts: mcts::MctsParams::default(),
        }
    }
}

impl SearchParams {
    /// Only value-preserving techniques: the score of a depth-`d` search equals a plain
    /// minimax to depth `d` over [`eval::evaluate`] (win and draw scores included).
    pub fn exact() -> SearchParams {
        SearchParams {
            lmr: false,
            quiescence: false,
            rfp_margin: 0,
            futility_margin: 0,
            lmp_base: 0,
            null_move: 0,
            ..SearchParams::default()
        }
    }

    /// Sets the parameter named like its field (`lmr_percent`, `rfp_margin`, ...) to `value`,
    /// for tuning matches run from the command line. An evaluation weight is named
    /// `WEIGHT@GAMETYPE`, with the weight's name as `tune` prints it (`queen_ring[3]`,
    /// `tempo`): it changes the set that game type's games use (which becomes a set of its
    /// own). On error nothing changes.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        fn parse<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, String> {
            value
                .trim()
                .parse()
                .map_err(|_| format!("bad value '{value}' for search parameter {name}"))
        }
        // The Monte Carlo constants are finite and not negative; some must be above zero.
        fn non_negative(name: &str, value: &str) -> Result<f32, String> {
            let v: f32 = parse(name, value)?;
            if v.is_finite() && v >= 0.0 {
                Ok(v)
            } else {
                Err(format!(
                    "search parameter {name} must be a number of at least 0, not '{value}'"
                ))
            }
        }
        fn positive(name: &str, value: &str) -> Result<f32, String> {
            let v = non_negative(name, value)?;
            if v > 0.0 {
                Ok(v)
            } else {
                Err(format!(
                    "search parameter {name} must be above 0, not '{value}'"
                ))
            }
        }
        if let Some((weight, game_type)) = name.trim().split_once('@') {
            let game_type = GameType::parse(game_type)
                .ok_or_else(|| format!("unknown game type in search parameter {name}"))?;
            let index = EvalWeights::value_names()
                .iter()
                .position(|n| n == weight)
                .ok_or_else(|| format!("unknown evaluation weight in search parameter {name}"))?;
            let v: i32 = parse(name, value)?;
            let mut w = self.weights.for_type(game_type).clone();
            let mut i = index;
            for group in w.groups_mut() {
                if i < group.len() {
                    group[i] = v;
                    break;
                }
                i -= group.len();
            }
            self.weights.set_own(game_type, w);
            return Ok(());
        }
        match name.trim() {
            "aspiration" => self.aspiration = parse(name, value)?,
            "lmr" => self.lmr = parse(name, value)?,
            "lmr_percent" => self.lmr_percent = parse(name, value)?,
            "quiescence" => self.quiescence = parse(name, value)?,
            "quiescence_pressure" => self.quiescence_pressure = parse(name, value)?,
            "quiescence_plies" => self.quiescence_plies = parse(name, value)?,
            "quiescence_evasions" => self.quiescence_evasions = parse(name, value)?,
            "rfp_margin" => self.rfp_margin = parse(name, value)?,
            "futility_margin" => self.futility_margin = parse(name, value)?,
            "futility_depth" => self.futility_depth = parse(name, value)?,
            "lmp_base" => self.lmp_base = parse(name, value)?,
            "countermove" => self.countermove = parse(name, value)?,
            "correction" => self.correction = parse(name, value)?,
            "null_move" => self.null_move = parse(name, value)?,
            "aspiration_delta" => match parse(name, value)? {
                d if d > 0 => self.aspiration_delta = d,
                _ => {
                    return Err(format!(
                        "search parameter {name} must be above 0, not '{value}'"
                    ));
                }
            },
            "soft_percent" => self.soft_percent = parse(name, value)?,
            "reduce_below" => self.reduce_below = parse(name, value)?,
            "prune_below" => self.prune_below = parse(name, value)?,
            "mcts_exploration" => self.mcts.exploration = non_negative(name, value)?,
            "mcts_eval_scale" => self.mcts.eval_scale = positive(name, value)?,
            "mcts_first_play_reduction" => {
                self.mcts.first_play_reduction = non_negative(name, value)?
            }
            "mcts_prior_temperature" => self.mcts.prior_temperature = positive(name, value)?,
            "mcts_prior_eval" => self.mcts.prior_eval = non_negative(name, value)?,
            "mcts_first_play_eval" => self.mcts.first_play_eval = parse(name, value)?,
            "mcts_widen_base" => self.mcts.widen_base = positive(name, value)?,
            "mcts_widen_factor" => self.mcts.widen_factor = non_negative(name, value)?,
            "mcts_virtual_loss" => self.mcts.virtual_loss = non_negative(name, value)?,
            "mcts_leaf_probe" => self.mcts.leaf_probe = parse(name, value)?,
            _ => return Err(format!("unknown search parameter '{name}'")),
        }
        Ok(())
    }
}

/// The search engine: options plus state kept between searches (the transposition table).
pub struct Engine {
    options: EngineOptions,
    params: SearchParams,
    /// Allocated on the first search (so that start-up stays fast) and when the size changes.
    tt: Option<TranspositionTable>,
    /// One per thread; kept between searches for their history tables.
    workers: Vec<Mutex<Worker>>,
    pool: Option<rayon::ThreadPool>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(EngineOptions::default())
    }
}

/// One root move and what the current iteration learnt about it.
#[derive(Clone, Debug)]
struct RootMove {
    mv: Move,
    /// Score in the last search of this move (a bound when it failed low or high).
    score: i32,
    /// Principal variation starting with `mv`.
    pv: Vec<Move>,
}

/// The outcome of one root search at a given depth and window.
struct RootResult {
    /// Index in the root list of the best move: the first one, or a later one whose search
    /// proved it better than every move searched before it.
    best: usize,
    /// Best score found (a bound when it lies outside the window).
    score: i32,
    /// The first move's search completed, so `best` is trustworthy even if later moves were
    /// cut short.
    first_done: bool,
}

impl Engine {
    /// An engine with the given options; large tables are allocated on the first search.
    pub fn new(options: EngineOptions) -> Engine {
        Engine {
            options,
            params: SearchParams::default(),
            tt: None,
            workers: Vec::new(),
            pool: None,
        }
    }

    /// The current options.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// Changes the options (takes effect at the next search).
    pub fn set_options(&mut self, options: EngineOptions) {
        if options.hash_mb != self.options.hash_mb {
            self.tt = None;
        }
        if options.threads != self.options.threads {
            self.pool = None;
        }
        self.options = options;
    }

    /// The search settings.
    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    /// Changes the search settings (takes effect at the next search).
    pub fn set_params(&mut self, params: SearchParams) {
        if params.weights != self.params.weights {
            // The workers cache evaluations.
            self.workers.clear();
        }
        self.params = params;
    }

    /// Forgets everything learnt from earlier searches (for `newgame`): the table is emptied,
    /// killers, history and cached evaluations are cleared. Memory is kept.
    pub fn clear(&mut self) {
        if let Some(tt) = &mut self.tt {
            tt.clear();
        }
        for w in &self.workers {
            lock(w).reset();
        }
    }

    /// Chooses a move for the side to move in `game`, which must not be over (for a finished
    /// game `pass` is returned and nothing reported). Returns as soon as `stop` is raised or the
    /// limits are reached, with the best move found so far; `report` receives a [`SearchInfo`]
    /// after each completed iteration. The move returned is always legal.
    ///
    /// With [`Algorithm::Mcts`] the Monte Carlo graph search of [`mcts`] chooses instead (its
    /// threads share one graph; `depth N` means [`mcts::visits_for_depth`]`(N)` iterations).
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchInfo),
    ) -> Move {
        if self.options.algorithm == Algorithm::Mcts {
            return self.monte_carlo(game, limits, stop, report);
        }
        if self.options.skill_level < skill::MAX_SKILL_LEVEL {
            let level = self.options.skill_level;
            return self.weakened(game, limits, level, stop, report);
        }
        let shape = Shape {
            threads: self.options.threads,
            lines: self.options.multi_pv,
            node_budget: None,
        };
        self.alpha_beta(game, limits, shape, stop, report)
    }

    /// Searches the position while the engine waits for its host (pondering), until `stop` is
    /// raised or the search ends by itself: nothing is reported and no move is chosen; the
    /// transposition table, killers and history are left warm for the next search. One line
    /// (whatever `MultiPV`), on one thread when `single_thread`, else on the engine's threads.
    /// The Monte Carlo graph search keeps nothing between searches, and the lower playing
    /// levels start from cleared tables, so with them this does nothing.
    pub fn ponder(&mut self, game: &Game, single_thread: bool, stop: &AtomicBool) {
        if self.options.algorithm == Algorithm::Mcts
            || self.options.skill_level < skill::MAX_SKILL_LEVEL
            || game.state().is_over()
        {
            return;
        }
        let threads = if single_thread {
            1
        } else {
            self.options.threads
        };
        let shape = Shape {
            threads,
            lines: 1,
            node_budget: None,
        };
        self.alpha_beta(game, &Limits::default(), shape, stop, &mut |_| {});
    }

    /// The Monte Carlo graph search, its leaves valued by the static evaluation or, with
    /// `mcts_leaf_probe` set, by a shallow alpha-beta search per thread (sharing a table of a
    /// quarter of the memory budget; the graph gets the rest).
    fn monte_carlo(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchInfo),
    ) -> Move {
        let params = &self.params;
        let weights = params.weights.for_type(game.game_type());
        let prepared = eval::PreparedWeights::new(weights, game.game_type());
        let prepared = &prepared;
        let probe = params.mcts.leaf_probe;
        // With a probe, its table takes a quarter of the memory budget.
        let table_mb = if probe > 0 {
            (self.options.hash_mb / 4).max(1)
        } else {
            0
        };
        let tt = (probe > 0).then(|| TranspositionTable::new(table_mb));
        let shared = tt.as_ref().map(|tt| {
            let time = TimeManager::new(&Limits::default(), Instant::now());
            Shared::new(None, tt, params, time, stop)
        });
        let leaf_eval = || -> mcts::LeafEval<'_> {
            match &shared {
                Some(shared) => {
                    let mut w = Worker::new(game.clone(), weights);
                    Box::new(move |g: &Game| {
                        w.load(g);
                        w.negamax(shared, probe as i32 - 1, -INF, INF, 0, true)
                    })
                }
                None => Box::new(|g: &Game| eval::evaluate_prepared(g, prepared)),
            }
        };
        mcts::search(
            game,
            limits,
            stop,
            self.options.threads,
            self.options.hash_mb.saturating_sub(table_mb).max(1),
            params.mcts,
            &leaf_eval,
            report,
        )
    }

    /// The alpha-beta search of the given shape.
    fn alpha_beta(
        &mut self,
        game: &Game,
        limits: &Limits,
        shape: Shape,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchInfo),
    ) -> Move {
        let start = Instant::now();
        let threads = shape.threads.max(1);
        let hash_mb = self.options.hash_mb;
        let tt = self
            .tt
            .get_or_insert_with(|| TranspositionTable::new(hash_mb));
        tt.new_search();
        if threads > 1 && self.pool.is_none() {
            // The calling thread searches too.
            self.pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads - 1)
                .thread_name(|i| format!("waggle-search-{i}"))
                .build()
                .ok();
        }
        let threads = if self.pool.is_some() { threads } else { 1 };
        // The main worker, plus one helper per pool thread in a parallel search.
        let count = if threads > 1 { threads + 1 } else { 1 };
        while self.workers.len() < count {
            self.workers.push(Mutex::new(Worker::new(
                game.clone(),
                self.params.weights.for_type(game.game_type()),
            )));
        }
        for (i, w) in self.workers[..count].iter().enumerate() {
            let mut w = lock(w);
            w.prepare(game, self.params.weights.for_type(game.game_type()));
            w.main = i == 0 && threads > 1;
        }

        let split = self
            .pool
            .as_ref()
            .filter(|_| threads > 1)
            .map(|pool| Split {
                pool,
                helpers: &self.workers[1..count],
            });
        let time = TimeManager::with_soft_percent(limits, start, self.params.soft_percent);
        let shared = Shared::new(split, tt, &self.params, time, stop);
        let search = RootSearch {
            shared: &shared,
            game,
            workers: &self.workers[..count],
            multi_pv: shape.lines.max(1),
            node_budget: shape.node_budget,
        };
        search.run(game, limits, report)
    }
}

/// How an alpha-beta search is run, besides its limits.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// Threads: 1, or the engine's thread count (whose pool is kept).
    threads: usize,
    /// Moves ranked (`MultiPV`).
    lines: usize,
    /// Nodes a thread may search once the first iteration is complete (the playing levels).
    node_budget: Option<u64>,
}

/// A root move searched by a helper thread: its index, score and principal variation.
type Searched = (usize, i32, Vec<Move>);

/// Everything one search needs at the root.
struct RootSearch<'a> {
    shared: &'a Shared<'a>,
    /// The position searched.
    game: &'a Game,
    /// The main worker first, then the helpers of a parallel search.
    workers: &'a [Mutex<Worker>],
    /// How many best moves to rank.
    multi_pv: usize,
    /// Nodes a thread may search once the first iteration is complete.
    node_budget: Option<u64>,
}

impl RootSearch<'_> {
    fn nodes(&self) -> u64 {
        self.workers.iter().map(|w| lock(w).nodes).sum()
    }

    /// Iterative deepening with aspiration windows.
    ///
    /// With `multi_pv` = K above 1, each iteration first searches for the best move exactly as
    /// a one-line search does, then ranks the other moves: the best of the rest, then the best
    /// of those left, and so on (each a root search of the moves not ranked yet). These extra
    /// searches read the transposition table but do not write it, and the killer and history
    /// tables are put back after them, so the best move's search is the one-line search and
    /// the answer is the one K = 1 gives.
    fn run(&self, game: &Game, limits: &Limits, report: &mut dyn FnMut(&SearchInfo)) -> Move {
        let sh = self.shared;
        let mut root = self.root_moves(game);
        if root.is_empty() {
            return Move::PASS;
        }
        let lines = self.multi_pv.min(root.len());
        let max_depth = limits.depth.map_or(MAX_PLY as i32 - 8, |d| {
            (d as i32).clamp(1, MAX_PLY as i32 - 8)
        });
        let forced = root.len() == 1 && limits.depth.is_none();
        let mut best = root[0].mv;
        let mut prev_score: i32 = 0;
        // The moves other than the best, ranked by the extra searches of the last iteration.
        let mut others: Vec<RootMove> = Vec::new();
        for depth in 1..=max_depth {
            if depth > 1 && (!sh.time.may_start_iteration() || forced) {
                break;
            }
            let result = self.aspiration_search(&mut root, depth, prev_score, Some(&mut best));
            if sh.stopped.load(Ordering::Relaxed) {
                // Keep the last completed iteration's move unless this one already proved
                // another move better (or no iteration completed at all).
                if result.first_done || depth == 1 {
                    best = root[result.best].mv;
                }
                break;
            }
            // Best move first, then the others by their score in this iteration.
            root[..].swap(0, result.best);
            root[1..].sort_by_key(|r| std::cmp::Reverse(r.score));
            best = root[0].mv;
            prev_score = result.score;
            sh.tt.store(
                game.hash(),
                Some(best),
                result.score,
                depth as u8,
                Bound::Exact,
            );
            let mut top = root[0].clone();
            top.score = result.score;
            let ranked = if lines > 1 {
                match self.rank_others(&root, &mut others, lines - 1, depth) {
                    Some(()) => &others[..lines - 1],
                    // Out of time: the best move stands; the ranking of this depth is lost.
                    None => break,
                }
            } else {
                &[]
            };
            let nodes = self.nodes();
            for (i, r) in std::iter::once(&top).chain(ranked).enumerate() {
                report(&SearchInfo {
                    depth: depth as u32,
                    rank: i + 1,
                    score: r.score,
                    pv: r.pv.clone(),
                    nodes,
                    visit_share: None,
                });
            }
            // A proven result cannot change with more depth.
            if limits.depth.is_none()
                && std::iter::once(&top)
                    .chain(ranked)
                    .all(|r| r.score.abs() >= WIN_THRESHOLD && eval::WIN - r.score.abs() <= depth)
            {
                break;
            }
            // The first iteration (all ranks) is complete: the node budget starts now.
            if depth == 1
                && let Some(budget) = self.node_budget
            {
                sh.node_limit
                    .store(nodes.saturating_add(budget), Ordering::Relaxed);
            }
        }
        best
    }

    /// Ranks the best `count` moves of `root` after its first (the best move) at `depth`, in
    /// `others` (the ranking of the previous iteration, reused for its order and scores),
    /// without changing the transposition table or the ordering tables. `None` when the search
    /// was stopped. A move scores at most as much as the one ranked above it: the extra
    /// searches see fewer moves and a different table, and the ranking follows the best
    /// move's search, so a later rank that comes out higher is shown at the score above it.
    fn rank_others(
        &self,
        root: &[RootMove],
        others: &mut Vec<RootMove>,
        count: usize,
        depth: i32,
    ) -> Option<()> {
        let sh = self.shared;
        // Last iteration's ranking first, then the rest in the best move's search order.
        let mut order: Vec<RootMove> = others
            .iter()
            .filter(|o| o.mv != root[0].mv)
            .cloned()
            .collect();
        for r in &root[1..] {
            if !order.iter().any(|o| o.mv == r.mv) {
                order.push(RootMove {
                    score: -INF,
                    ..r.clone()
                });
            }
        }
        let saved: Vec<_> = self
            .workers
            .iter()
            .map(|w| lock(w).ordering_tables())
            .collect();
        sh.read_only_tt.store(true, Ordering::Relaxed);
        let mut ceiling = root[0].score;
        let mut done = true;
        for rank in 0..count {
            let rest = &mut order[rank..];
            let prev = if rest[0].score > -INF {
                rest[0].score
            } else {
                ceiling
            };
            let result = self.aspiration_search(rest, depth, prev, None);
            if sh.stopped.load(Ordering::Relaxed) {
                done = false;
                break;
            }
            rest.swap(0, result.best);
            rest[1..].sort_by_key(|r| std::cmp::Reverse(r.score));
            rest[0].score = result.score.min(ceiling);
            ceiling = rest[0].score;
        }
        sh.read_only_tt.store(false, Ordering::Relaxed);
        for (w, t) in self.workers.iter().zip(&saved) {
            lock(w).restore_ordering_tables(t);
        }
        *others = order;
        done.then_some(())
    }

    /// One iteration's search of the root moves `root` (all of them, or those not ranked yet)
    /// at `depth`, with aspiration windows around `prev_score` that widen until the score
    /// falls inside. On a fail high by a later move, that move is put first, and for the top
    /// rank written to `top`, the move to answer if time runs out during the re-search.
    fn aspiration_search(
        &self,
        root: &mut [RootMove],
        depth: i32,
        prev_score: i32,
        mut top: Option<&mut Move>,
    ) -> RootResult {
        let sh = self.shared;
        let mut delta = sh.params.aspiration_delta;
        let (mut alpha, mut beta) =
            if sh.params.aspiration && depth >= 4 && prev_score.abs() < WIN_THRESHOLD {
                (prev_score - delta, prev_score + delta)
            } else {
                (-INF, INF)
            };
        loop {
            let r = self.search_root(root, depth, alpha, beta);
            if sh.stopped.load(Ordering::Relaxed) {
                return r;
            }
            if r.score <= alpha && alpha > -INF {
                beta = (alpha + beta) / 2;
                alpha = (r.score - delta).max(-INF);
            } else if r.score >= beta && beta < INF {
                if r.best != 0 {
                    // Proven better than the first move: search it first.
                    root.swap(0, r.best);
                    if let Some(best) = top.as_deref_mut() {
                        *best = root[0].mv;
                    }
                }
                beta = (r.score + delta).min(INF);
            } else {
                return r;
            }
            delta = delta.saturating_mul(2);
            if delta > 1000 {
                (alpha, beta) = (-INF, INF);
            }
        }
    }

    /// The legal root moves, in the order the node search would try them first.
    fn root_moves(&self, game: &Game) -> Vec<RootMove> {
        let moves = game.legal_moves();
        let mut w = lock(&self.workers[0]);
        let ordered = w.order_root(self.shared, &moves);
        ordered
            .into_iter()
            .map(|mv| RootMove {
                mv,
                score: -INF,
                pv: vec![mv],
            })
            .collect()
    }

    /// Searches every root move at `depth` within `(alpha, beta)`.
    fn search_root(&self, root: &mut [RootMove], depth: i32, alpha: i32, beta: i32) -> RootResult {
        let sh = self.shared;
        let mut result = RootResult {
            best: 0,
            score: -INF,
            first_done: false,
        };
        let mut a = alpha;
        {
            let mut w = lock(&self.workers[0]);
            let s = w.search_root_move(sh, root[0].mv, depth, a, beta, true);
            if sh.aborted() {
                return result;
            }
            root[0].score = s;
            root[0].pv = [root[0].mv]
                .into_iter()
                .chain(w.child_pv().iter().copied())
                .collect();
            result.score = s;
            result.first_done = true;
            if s >= beta {
                return result;
            }
            a = a.max(s);
        }
        match &sh.split {
            None => {
                let mut w = lock(&self.workers[0]);
                for (i, rm) in root.iter_mut().enumerate().skip(1) {
                    let s = w.search_root_move(sh, rm.mv, depth, a, beta, false);
                    if sh.aborted() {
                        break;
                    }
                    rm.score = s;
                    result.score = result.score.max(s);
                    if s > a {
                        result.best = i;
                        rm.pv = [rm.mv]
                            .into_iter()
                            .chain(w.child_pv().iter().copied())
                            .collect();
                        a = s;
                        if s >= beta {
                            break;
                        }
                    }
                }
            }
            Some(split) => {
                let next = AtomicUsize::new(1);
                let shared_alpha = AtomicI32::new(a);
                let moves: Vec<Move> = root.iter().map(|r| r.mv).collect();
                let found: Mutex<(Vec<Searched>, RootResult)> = Mutex::new((Vec::new(), result));
                split.run(|w| {
                    // The helper may have been left at some PV node by a split.
                    w.load(self.game);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= moves.len() || sh.aborted() {
                            break;
                        }
                        let a = shared_alpha.load(Ordering::Relaxed);
                        let s = w.search_root_move(sh, moves[i], depth, a, beta, false);
                        if sh.aborted() {
                            break;
                        }
                        let mut f = found.lock().unwrap_or_else(|e| e.into_inner());
                        let pv = [moves[i]].into_iter().chain(w.child_pv().iter().copied());
                        f.0.push((i, s, pv.collect()));
                        f.1.score = f.1.score.max(s);
                        // Better than every move finished so far (`a` may be stale).
                        if s > a && s > shared_alpha.load(Ordering::Relaxed) {
                            f.1.best = i;
                            shared_alpha.store(s, Ordering::Relaxed);
                            if s >= beta {
                                // The window is refuted: stop this root search.
                                sh.abort.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                });
                let (scores, r) = found.into_inner().unwrap_or_else(|e| e.into_inner());
                for (i, s, pv) in scores {
                    root[i].score = s;
                    root[i].pv = pv;
                }
                result = r;
                if !sh.stopped.load(Ordering::Relaxed) {
                    // Only a fail high raised the flag: clear it for the next search.
                    sh.abort.store(false, Ordering::Relaxed);
                }
            }
        }
        result
    }
}
