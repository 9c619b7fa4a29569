//! Static evaluation: how good a position is for the side to move, from Hive knowledge.
//!
//! The score is a sum of named terms, each computed for both colours and taken as "side to move
//! minus opponent". Every weight lives in [`EvalWeights`] so that it can be tuned in one place.
//! [`evaluate`] is the fast path used by the search; [`breakdown`] returns the same terms by
//! name (for the UHP `eval` command and for tuning).
//!
//! Mobility is the expensive part of a Hive evaluation: generating every move of both sides at
//! every leaf would cost several times more than the rest of the search. Instead a cheap proxy
//! is used. One pass over the pieces on the board records which are covered and, for each piece
//! alone on its cell, a six-bit mask of its occupied neighbours; the core's articulation-point
//! pass finds the pinned pieces. The neighbour mask then says (by one table lookup per bug)
//! whether, and in how many directions, a free piece can leave its cell: exact for "can this
//! piece move at all" in nearly every position, and a measure of the local freedom of sliders
//! (see [`EvalWeights::reach`]). Only the cells around the two queens (and around ground
//! Mosquitoes) are scanned for the ids of their pieces. One evaluation costs about 2,000
//! instructions besides the articulation pass.
//!
//! The default weights are fitted to self-play data by `waggle tune` (see `crate::learn`),
//! starting from weights set by hand; the file's header says how, and what the fit won in a
//! match. They live in `weights/default.txt`, compiled in ([`WeightSets::default`]): a
//! general set and sets of their own for some game types (see [`WeightSets`]);
//! [`WeightSets::from_text`] and [`WeightSets::to_text`] read and write that format. A set may
//! carry a small network ([`Net`], fitted by `waggle tune-net`) that adds a correction to the
//! sum of the terms, computed from the terms of both sides and the game phase.

mod net;
mod weight_sets;
mod weights;
pub use net::{NET_INPUTS, NET_MAX_HIDDEN, NET_ONE, Net};
pub use weight_sets::WeightSets;
pub use weights::{DEFAULT_WEIGHTS_TEXT, WeightsError};

use crate::core::topology::{direction_count, neighbour_runs, slide_out_mask};
use crate::core::{
    Board, Bug, Cell, Color, Game, GameState, GameType, PIECE_COUNT, Piece, PieceSet,
};
use std::sync::Arc;

/// The score of a win found at the root; a win `p` plies from the root scores `WIN - p`, so that
/// a faster win scores higher and a slower loss (`-(WIN - p)`) scores higher than a faster one.
pub const WIN: i32 = 1_000_000;

/// Every evaluation lies in `-MAX_EVAL..=MAX_EVAL`, far below any win score.
pub const MAX_EVAL: i32 = 100_000;

/// Scores at or beyond this (in absolute value) are wins or losses, not evaluations.
pub const WIN_THRESHOLD: i32 = WIN - 10_000;

/// Tunable weights of the evaluation, in centi-pieces (about 100 for a freely moving Ant).
/// Arrays indexed by bug follow the order of [`Bug::ALL`]: Queen, Spider, Beetle, Grasshopper,
/// Ant, Mosquito, Ladybug, Pillbug.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalWeights {
    /// Penalty for a colour's own queen, by the number of occupied cells around it (0..=5; six
    /// is a lost game and never evaluated).
    pub queen_ring: [i32; 6],
    /// Extra penalty for each enemy piece next to one's own queen.
    pub queen_enemy: i32,
    /// Extra penalty for each piece next to one's own queen that cannot move away (pinned,
    /// covered or walled in), since that pressure is lasting.
    pub queen_stuck: i32,
    /// Bonus when one's own queen can move.
    pub queen_mobile: i32,
    /// Penalty when one's own queen is covered by a piece on top of it.
    pub queen_covered: i32,
    /// Bonus for each piece able to move, by bug, at the start of the game (phase 0).
    pub movable_opening: [i32; 8],
    /// Bonus for each piece able to move, by bug, once every piece is on the board (phase 1).
    pub movable_endgame: [i32; 8],
    /// Bonus for each direction in which a movable piece can leave its cell, by bug (a cheap
    /// measure of reach: slides out for walkers, pieces to jump over or climb for the others).
    pub reach: [i32; 8],
    /// Penalty for each piece that may not move because it holds the hive together, by bug.
    pub pinned: [i32; 8],
    /// Penalty for each piece with another piece on top of it, by bug.
    pub covered: [i32; 8],
    /// Value of each piece still in hand, by bug, at the start of the game.
    pub in_hand_opening: [i32; 8],
    /// Value of each piece still in hand, by bug, late in the game.
    pub in_hand_endgame: [i32; 8],
    /// Bonus for a Beetle (or Mosquito) of one's own on top of the enemy queen.
    pub beetle_on_queen: i32,
    /// Bonus for a Beetle (or Mosquito on the hive) of one's own next to the enemy queen, able
    /// to climb onto it.
    pub beetle_near_queen: i32,
    /// Bonus for a Pillbug (or a Mosquito next to a Pillbug) of one's own next to one's own
    /// movable queen, which it can throw out of danger.
    pub pillbug_defense: i32,
    /// Bonus for a Pillbug (or a Mosquito next to a Pillbug) of one's own next to the enemy
    /// queen, which it can throw or feed pieces next to.
    pub pillbug_attack: i32,
    /// Bonus for having the move.
    pub tempo: i32,
    /// A network that corrects the sum of the terms, if any (see [`Net`]).
    pub net: Option<Arc<Net>>,
}

/// The named terms of the evaluation, in the order [`breakdown`] reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Occupied, enemy and stuck cells around one's own queen (a penalty).
    QueenPressure,
    /// One's own queen able to move, or covered.
    QueenSafety,
    /// Pieces able to move, by bug and game phase.
    Mobility,
    /// Directions in which movable pieces can leave their cells.
    Reach,
    /// Pinned and covered pieces (a penalty).
    Immobile,
    /// Pieces still in hand, by bug and game phase.
    InHand,
    /// Beetles on or next to the enemy queen.
    BeetleAttack,
    /// Pillbugs (and Mosquitoes acting as Pillbugs) next to either queen.
    Pillbug,
    /// Having the move.
    Tempo,
    /// The network's correction (see [`Net`]), counted for the side to move.
    Network,
}

impl Term {
    /// Every term, in report order.
    pub const ALL: [Term; 10] = [
        Term::QueenPressure,
        Term::QueenSafety,
        Term::Mobility,
        Term::Reach,
        Term::Immobile,
        Term::InHand,
        Term::BeetleAttack,
        Term::Pillbug,
        Term::Tempo,
        Term::Network,
    ];

    /// A short name for printing.
    pub const fn name(self) -> &'static str {
        match self {
            Term::QueenPressure => "queen_pressure",
            Term::QueenSafety => "queen_safety",
            Term::Mobility => "mobility",
            Term::Reach => "reach",
            Term::Immobile => "immobile",
            Term::InHand => "in_hand",
            Term::BeetleAttack => "beetle_attack",
            Term::Pillbug => "pillbug",
            Term::Tempo => "tempo",
            Term::Network => "network",
        }
    }
}

/// One term of a [`Breakdown`]: its value for each colour (each from that colour's view).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TermValue {
    /// Which term.
    pub term: Term,
    /// White's part.
    pub white: i32,
    /// Black's part.
    pub black: i32,
}

/// The evaluation of a position, term by term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakdown {
    /// Every term, in the order of [`Term::ALL`] ([`Term::Network`] only when the weights have
    /// a network).
    pub terms: Vec<TermValue>,
    /// Game phase from 0 (nothing placed) to 256 (every piece on the board).
    pub phase: i32,
    /// The side to move, whose view `total` takes.
    pub side_to_move: Color,
    /// The score [`evaluate`] returns: side to move minus opponent, clamped; or a win or loss
    /// score when the game is over.
    pub total: i32,
}

/// Score of the position for the side to move. The game should not be over (the search scores
/// finished games itself); if it is, a win, loss or draw score is returned.
#[inline]
pub fn evaluate(game: &Game, w: &EvalWeights) -> i32 {
    if let Some(s) = final_score(game) {
        return s;
    }
    let values = PhaseValues::new(w, phase(game));
    if let Some(net) = &w.net {
        return with_net(game, w, &values, game.game_type().pieces(), net);
    }
    let mut acc = Sum([0; 2]);
    accumulate(game, w, &values, game.game_type().pieces(), &mut acc);
    let me = game.side_to_move() as usize;
    (acc.0[me] - acc.0[1 - me]).clamp(-MAX_EVAL, MAX_EVAL)
}

/// [`EvalWeights`] prepared for the games of one type: the values that depend on the game phase
/// are looked up by the number of pieces on the board instead of blended on every call.
#[derive(Clone, Debug)]
pub struct PreparedWeights {
    weights: EvalWeights,
    game_type: GameType,
    /// The pieces in play (see [`GameType::pieces`]).
    in_play: PieceSet,
    /// By number of pieces on the board.
    by_count: [PhaseValues; PIECE_COUNT + 1],
}

impl PreparedWeights {
    /// `weights` prepared for games of type `game_type`.
    pub fn new(weights: &EvalWeights, game_type: GameType) -> PreparedWeights {
        let total = total_pieces(game_type);
        PreparedWeights {
            weights: weights.clone(),
            game_type,
            in_play: game_type.pieces(),
            by_count: std::array::from_fn(|n| {
                PhaseValues::new(weights, (n as u32 * 256 / total) as i32)
            }),
        }
    }

    /// The weights.
    pub fn weights(&self) -> &EvalWeights {
        &self.weights
    }

    /// The game type prepared for.
    pub fn game_type(&self) -> GameType {
        self.game_type
    }
}

/// [`evaluate`] with prepared weights: the same score, a little faster. A game of another type
/// than the weights were prepared for is evaluated the slower way.
#[inline]
pub fn evaluate_prepared(game: &Game, w: &PreparedWeights) -> i32 {
    if game.game_type() != w.game_type {
        return evaluate(game, &w.weights);
    }
    if let Some(s) = final_score(game) {
        return s;
    }
    let count = game.board().pieces().len();
    let values = &w.by_count[count.min(PIECE_COUNT)];
    if let Some(net) = &w.weights.net {
        return with_net(game, &w.weights, values, w.in_play, net);
    }
    let mut acc = Sum([0; 2]);
    accumulate(game, &w.weights, values, w.in_play, &mut acc);
    let me = game.side_to_move() as usize;
    (acc.0[me] - acc.0[1 - me]).clamp(-MAX_EVAL, MAX_EVAL)
}

/// The score with a network: the terms by colour, their sum for the side to move, and the
/// network's correction of it.
fn with_net(
    game: &Game,
    w: &EvalWeights,
    values: &PhaseValues,
    in_play: PieceSet,
    net: &Net,
) -> i32 {
    let mut acc = ByTerm([[0; 2]; Term::ALL.len()]);
    accumulate(game, w, values, in_play, &mut acc);
    let me = game.side_to_move() as usize;
    let linear: i32 = acc.0.iter().map(|t| t[me] - t[1 - me]).sum();
    (linear + net.forward(&acc.net_inputs(me, phase(game)))).clamp(-MAX_EVAL, MAX_EVAL)
}

/// The inputs of the network (see [`Net`]) of `game` with weights `w`.
pub fn net_inputs(game: &Game, w: &EvalWeights) -> [i32; NET_INPUTS] {
    let mut acc = ByTerm([[0; 2]; Term::ALL.len()]);
    let phase = phase(game);
    accumulate(
        game,
        w,
        &PhaseValues::new(w, phase),
        game.game_type().pieces(),
        &mut acc,
    );
    acc.net_inputs(game.side_to_move() as usize, phase)
}

/// The evaluation of `game` term by term (see [`Breakdown`]).
pub fn breakdown(game: &Game, w: &EvalWeights) -> Breakdown {
    let mut acc = ByTerm([[0; 2]; Term::ALL.len()]);
    let values = PhaseValues::new(w, phase(game));
    accumulate(game, w, &values, game.game_type().pieces(), &mut acc);
    if let Some(net) = &w.net {
        let me = game.side_to_move() as usize;
        acc.0[Term::Network as usize][me] = net.forward(&acc.net_inputs(me, phase(game)));
    }
    let terms = Term::ALL
        .iter()
        .filter(|&&term| term != Term::Network || w.net.is_some())
        .map(|&term| TermValue {
            term,
            white: acc.0[term as usize][0],
            black: acc.0[term as usize][1],
        })
        .collect();
    Breakdown {
        terms,
        phase: phase(game),
        side_to_move: game.side_to_move(),
        total: evaluate(game, w),
    }
}

/// The exact score of a finished game for the side to move, as seen at the root (a win is
/// [`WIN`], a loss `-WIN`, a draw 0); `None` while the game goes on.
pub fn final_score(game: &Game) -> Option<i32> {
    let me = game.side_to_move();
    match game.state() {
        GameState::Draw => Some(0),
        GameState::WhiteWins => Some(if me == Color::White { WIN } else { -WIN }),
        GameState::BlackWins => Some(if me == Color::Black { WIN } else { -WIN }),
        GameState::NotStarted | GameState::InProgress => None,
    }
}

/// Game phase from 0 (nothing placed) to 256 (every piece of the game type on the board).
pub fn phase(game: &Game) -> i32 {
    (game.board().pieces().len() as u32 * 256 / total_pieces(game.game_type())) as i32
}

/// Where term values go: a plain sum for the search, or per term for [`breakdown`].
trait Acc {
    fn add(&mut self, term: Term, color: Color, value: i32);
}

struct Sum([i32; 2]);

impl Acc for Sum {
    #[inline(always)]
    fn add(&mut self, _term: Term, color: Color, value: i32) {
        self.0[color as usize] += value;
    }
}

struct ByTerm([[i32; 2]; Term::ALL.len()]);

impl ByTerm {
    /// The network's inputs: the terms before the tempo for the side to move `me`, the same
    /// for the opponent, and the phase.
    #[inline(always)]
    fn net_inputs(&self, me: usize, phase: i32) -> [i32; NET_INPUTS] {
        const TERMS: usize = Term::Tempo as usize;
        const _: () = assert!(2 * TERMS + 1 == NET_INPUTS);
        std::array::from_fn(|i| match i {
            i if i < TERMS => self.0[i][me],
            i if i < 2 * TERMS => self.0[i - TERMS][1 - me],
            _ => phase,
        })
    }
}

impl Acc for ByTerm {
    fn add(&mut self, term: Term, color: Color, value: i32) {
        self.0[term as usize][color as usize] += value;
    }
}

/// Number of directions in which a ground piece can slide out, by the six-bit occupancy of its
/// neighbours.
const SLIDES: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut m = 0;
    while m < 64 {
        t[m] = slide_out_mask(m as u32).count_ones() as u8;
        m += 1;
    }
    t
};

/// Number of pieces of a set known to have few of them.
#[inline(always)]
fn sparse_count(set: PieceSet) -> i32 {
    let mut m = set.bits();
    let mut n = 0;
    while m != 0 {
        m &= m - 1;
        n += 1;
    }
    n
}

#[inline(always)]
fn lerp(opening: i32, endgame: i32, phase: i32) -> i32 {
    (opening * (256 - phase) + endgame * phase) / 256
}

/// The weights that depend on the game phase, blended for one phase.
#[derive(Clone, Debug)]
struct PhaseValues {
    /// [`EvalWeights::movable_opening`] to [`EvalWeights::movable_endgame`].
    movable: [i32; 8],
    /// [`EvalWeights::in_hand_opening`] to [`EvalWeights::in_hand_endgame`].
    in_hand: [i32; 8],
}

impl PhaseValues {
    #[inline(always)]
    fn new(w: &EvalWeights, phase: i32) -> PhaseValues {
        PhaseValues {
            movable: std::array::from_fn(|b| {
                lerp(w.movable_opening[b], w.movable_endgame[b], phase)
            }),
            in_hand: std::array::from_fn(|b| {
                lerp(w.in_hand_opening[b], w.in_hand_endgame[b], phase)
            }),
        }
    }
}

/// Number of pieces in a game of this type (both colours).
fn total_pieces(t: GameType) -> u32 {
    22 + 2 * (t.has(Bug::Mosquito) as u32 + t.has(Bug::Ladybug) as u32 + t.has(Bug::Pillbug) as u32)
}

/// Stands for the occupancy of a piece on top of the hive in [`REACH`].
const ON_HIVE: u8 = 64;
/// [`REACH`] of a piece that cannot leave its cell.
const STUCK: u8 = u8::MAX;
/// [`REACH`] of a Mosquito on the ground, which moves as the bugs it touches.
const ASK_NEIGHBOURS: u8 = u8::MAX - 1;

/// For a free top piece, by bug and by the six-bit occupancy of its neighbours when it stands
/// alone on its cell (or [`ON_HIVE`]): the number of directions in which it can leave its cell
/// (see [`EvalWeights::reach`]), or [`STUCK`] when it cannot move at all, or
/// [`ASK_NEIGHBOURS`] for a Mosquito on the ground (see [`mosquito_reach`]). Rows span every
/// byte so that indexing by a `u8` needs no bounds check; entries past [`ON_HIVE`] are unused.
const REACH: [[u8; 256]; 8] = {
    let mut t = [[STUCK; 256]; 8];
    let mut o = 0;
    while o < 64 {
        let (slides, climbs) = (SLIDES[o], direction_count(o as u32) as u8);
        let walker = if slides > 0 { slides } else { STUCK };
        t[Bug::Queen as usize][o] = walker;
        t[Bug::Spider as usize][o] = walker;
        t[Bug::Ant as usize][o] = walker;
        t[Bug::Pillbug as usize][o] = walker;
        t[Bug::Beetle as usize][o] = slides + climbs;
        t[Bug::Grasshopper as usize][o] = climbs;
        t[Bug::Ladybug as usize][o] = climbs;
        t[Bug::Mosquito as usize][o] = ASK_NEIGHBOURS;
        o += 1;
    }
    let mut b = 0;
    while b < 8 {
        t[b][ON_HIVE as usize] = 6;
        b += 1;
    }
    t
};

/// [`REACH`] of the Mosquito `mosquito` standing alone on its cell with occupied neighbours
/// `occ`.
#[inline(never)]
fn mosquito_reach(board: &Board, mosquito: Piece, occ: u32) -> u8 {
    let Some(at) = board.position(mosquito) else {
        return STUCK;
    };
    let mut bugs = 0u32;
    for p in board.tops_around(at) {
        bugs |= 1 << p.bug() as u32;
    }
    let has = |b: Bug| bugs & (1 << b as u32) != 0;
    let (slides, climbs) = (SLIDES[occ as usize & 63], direction_count(occ) as u8);
    if has(Bug::Beetle) {
        slides + climbs
    } else if has(Bug::Grasshopper) || has(Bug::Ladybug) {
        climbs.max(slides)
    } else if (has(Bug::Ant) || has(Bug::Spider) || has(Bug::Queen) || has(Bug::Pillbug))
        && slides > 0
    {
        slides
    } else {
        STUCK
    }
}

/// What one pass over the pieces on the board finds.
struct Scan {
    /// For each piece alone on its cell (on the ground), its occupied neighbours as six bits;
    /// [`ON_HIVE`] for a piece on top of the hive; 0 for the others. By piece id.
    occ: [u8; PIECE_COUNT],
    /// Pieces alone on their cell.
    ground: PieceSet,
    /// Pieces with another piece on top.
    covered: PieceSet,
    /// Pieces alone on their cell with two or more runs of occupied neighbours: the pinned
    /// pieces when the hive has no holes.
    split: PieceSet,
}

/// The pass over the pieces on the board (kept out of line: with few values live, the loop
/// keeps everything in registers).
#[inline(never)]
fn scan(board: &Board) -> Scan {
    let mut occ = [0; PIECE_COUNT];
    let (mut ground, mut covered, mut split) = (0u32, 0u32, 0u32);
    for p in board.pieces() {
        let (at, id) = (board.cell_of(p), p.id());
        if board.height(at) == 1 {
            let o = board.occupied_neighbours(at);
            occ[id] = o as u8;
            ground |= 1 << id;
            split |= ((neighbour_runs(o) > 1) as u32) << id;
        } else if board.top(at) == Some(p) {
            occ[id] = ON_HIVE;
        } else {
            covered |= 1 << id;
        }
    }
    Scan {
        occ,
        ground: PieceSet::from_bits(ground),
        covered: PieceSet::from_bits(covered),
        split: PieceSet::from_bits(split),
    }
}

/// What the terms read of one position, found once.
struct Context<'a> {
    board: &'a Board,
    /// The scan's neighbour masks by piece id (see [`Scan::occ`]).
    occ: [u8; PIECE_COUNT],
    /// Pieces alone on their cell.
    ground: PieceSet,
    /// Pieces with another piece on top.
    covered: PieceSet,
    /// Top pieces.
    tops: PieceSet,
    /// Pieces that hold the hive together.
    pinned: PieceSet,
    /// Each colour's queen's cell, while on the board.
    queen_cell: [Option<Cell>; 2],
    /// The top pieces around each colour's queen.
    around_queen: [PieceSet; 2],
}

impl<'a> Context<'a> {
    #[inline(always)]
    fn new(game: &'a Game) -> Context<'a> {
        let board = game.board();
        let Scan {
            occ,
            ground,
            covered,
            split,
        } = scan(board);
        // In a hive without holes the pinned pieces are those with two or more runs of
        // occupied neighbours; otherwise the core's pass (shared with move generation) does.
        let pinned = if board.holes() == 0 {
            split
        } else {
            game.pinned() & ground
        };
        let queen_cell = [Color::White, Color::Black].map(|c| board.position(Piece::queen(c)));
        let around_queen = queen_cell.map(|q| q.map_or(PieceSet::EMPTY, |q| board.tops_around(q)));
        Context {
            board,
            occ,
            ground,
            covered,
            tops: board.pieces() - covered,
            pinned,
            queen_cell,
            around_queen,
        }
    }
}

/// The terms of the evaluation, with the phase-dependent weights `values` and the pieces in play
/// `in_play` (see [`GameType::pieces`]) of this position.
#[inline(always)]
fn accumulate<A: Acc>(
    game: &Game,
    w: &EvalWeights,
    values: &PhaseValues,
    in_play: PieceSet,
    acc: &mut A,
) {
    let cx = Context::new(game);
    let movable = mobility_and_reach(&cx, w, values, acc);
    immobile(&cx, w, acc);
    in_hand(&cx, values, in_play, acc);
    queen_pressure(&cx, w, movable, acc);
    queen_safety(&cx, w, movable, acc);
    beetle_attack(&cx, w, acc);
    pillbug(&cx, w, acc);
    acc.add(Term::Tempo, game.side_to_move(), w.tempo);
}

/// [`Term::Mobility`] and [`Term::Reach`], which come from one look at each free top piece
/// whose owner has placed the queen. Returns the pieces able to move.
#[inline(always)]
fn mobility_and_reach<A: Acc>(
    cx: &Context,
    w: &EvalWeights,
    values: &PhaseValues,
    acc: &mut A,
) -> PieceSet {
    let mut movable = PieceSet::EMPTY;
    for color in [Color::White, Color::Black] {
        let (mut mobility, mut reach) = (0, 0);
        if cx.queen_cell[color as usize].is_some() {
            for p in cx.tops & (cx.board.pieces_of(color) - cx.pinned) {
                let b = p.bug() as usize;
                let occ = cx.occ[p.id()];
                let r = match REACH[b][occ as usize] {
                    ASK_NEIGHBOURS => mosquito_reach(cx.board, p, occ as u32),
                    r => r,
                };
                if r != STUCK {
                    movable.insert(p);
                    mobility += values.movable[b];
                    reach += w.reach[b] * r as i32;
                }
            }
        }
        acc.add(Term::Mobility, color, mobility);
        acc.add(Term::Reach, color, reach);
    }
    movable
}

/// [`Term::Immobile`]: covered and pinned pieces.
#[inline(always)]
fn immobile<A: Acc>(cx: &Context, w: &EvalWeights, acc: &mut A) {
    for color in [Color::White, Color::Black] {
        let mine = cx.board.pieces_of(color);
        let mut immobile = 0;
        for p in cx.covered & mine {
            immobile -= w.covered[p.bug() as usize];
        }
        for p in cx.pinned & mine {
            immobile -= w.pinned[p.bug() as usize];
        }
        acc.add(Term::Immobile, color, immobile);
    }
}

/// [`Term::InHand`]: the pieces still in hand.
#[inline(always)]
fn in_hand<A: Acc>(cx: &Context, values: &PhaseValues, in_play: PieceSet, acc: &mut A) {
    for color in [Color::White, Color::Black] {
        let mut hand = 0;
        for p in (in_play & PieceSet::of_color(color)) - cx.board.pieces() {
            hand += values.in_hand[p.bug() as usize];
        }
        acc.add(Term::InHand, color, hand);
    }
}

/// [`Term::QueenPressure`]: occupied, enemy and stuck cells around one's own queen (each
/// occupied neighbour cell has one top piece).
#[inline(always)]
fn queen_pressure<A: Acc>(cx: &Context, w: &EvalWeights, movable: PieceSet, acc: &mut A) {
    for color in [Color::White, Color::Black] {
        if cx.queen_cell[color as usize].is_none() {
            continue;
        }
        let around = cx.around_queen[color as usize];
        let count = sparse_count(around) as usize;
        let enemies = sparse_count(around & cx.board.pieces_of(color.opponent()));
        let stuck = sparse_count(around - movable);
        let ring = w.queen_ring[count.min(5)];
        acc.add(
            Term::QueenPressure,
            color,
            -(ring + enemies * w.queen_enemy + stuck * w.queen_stuck),
        );
    }
}

/// [`Term::QueenSafety`]: one's own queen covered, or able to move.
#[inline(always)]
fn queen_safety<A: Acc>(cx: &Context, w: &EvalWeights, movable: PieceSet, acc: &mut A) {
    for color in [Color::White, Color::Black] {
        let Some(q) = cx.queen_cell[color as usize] else {
            continue;
        };
        let queen = Piece::queen(color);
        if cx.board.top(q) != Some(queen) {
            acc.add(Term::QueenSafety, color, -w.queen_covered);
        } else if movable.contains(queen) {
            acc.add(Term::QueenSafety, color, w.queen_mobile);
        }
    }
}

/// [`Term::BeetleAttack`]: Beetles (and Mosquitoes on the hive) on or next to the enemy queen;
/// a climber is a top piece, so it is next to the queen's cell when it is among the tops
/// around it.
#[inline(always)]
fn beetle_attack<A: Acc>(cx: &Context, w: &EvalWeights, acc: &mut A) {
    for color in [Color::White, Color::Black] {
        let enemy = color.opponent() as usize;
        let Some(eq) = cx.queen_cell[enemy] else {
            continue;
        };
        let climbers = cx.tops
            & (PieceSet::of(color, Bug::Beetle) | (PieceSet::of(color, Bug::Mosquito) - cx.ground));
        let on_queen = cx.board.top(eq).is_some_and(|t| climbers.contains(t));
        let v = if on_queen { w.beetle_on_queen } else { 0 }
            + sparse_count(climbers & cx.around_queen[enemy]) * w.beetle_near_queen;
        acc.add(Term::BeetleAttack, color, v);
    }
}

/// [`Term::Pillbug`]: Pillbugs, and Mosquitoes next to a Pillbug, next to either queen.
#[inline(always)]
fn pillbug<A: Acc>(cx: &Context, w: &EvalWeights, acc: &mut A) {
    let pillbugs = cx.ground
        & (PieceSet::of(Color::White, Bug::Pillbug) | PieceSet::of(Color::Black, Bug::Pillbug));
    for color in [Color::White, Color::Black] {
        let me = color as usize;
        let mut users = pillbugs & PieceSet::of(color, Bug::Pillbug);
        if !pillbugs.is_empty() {
            for m in cx.ground & PieceSet::of(color, Bug::Mosquito) {
                if !(cx.board.tops_around(cx.board.cell_of(m)) & pillbugs).is_empty() {
                    users.insert(m);
                }
            }
        }
        let mut v = 0;
        if !users.is_empty() {
            // Throwing the own queen needs it free on the ground, and a free cell to throw to.
            if (cx.ground - cx.pinned).contains(Piece::queen(color)) {
                for p in users & cx.around_queen[me] {
                    if cx.occ[p.id()] != 63 {
                        v += w.pillbug_defense;
                    }
                }
            }
            v += sparse_count(users & cx.around_queen[1 - me]) * w.pillbug_attack;
        }
        acc.add(Term::Pillbug, color, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_game_string;

    fn game(s: &str) -> Game {
        parse_game_string(s, true).expect("valid game string")
    }

    #[test]
    fn start_is_symmetric_and_breakdown_sums_to_total() {
        let w = EvalWeights::default();
        let g = game("Base;NotStarted;White[1]");
        assert_eq!(evaluate(&g, &w), w.tempo);
        let g = game("Base+MLP;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-");
        let b = breakdown(&g, &w);
        let sum: i32 = b.terms.iter().map(|t| t.white - t.black).sum();
        assert_eq!(b.total, sum);
        assert_eq!(b.total, evaluate(&g, &w));
    }

    #[test]
    fn prepared_weights_give_the_same_scores() {
        let odd = EvalWeights {
            movable_opening: [3, 17, 5, 29, 1, 8, 13, 40],
            in_hand_endgame: [7, 2, 19, 11, 3, 23, 5, 31],
            ..EvalWeights::default()
        };
        // A network whose units are active in some positions and clamped in others.
        let w1 = (0..4 * NET_INPUTS as i32)
            .map(|i| (i * 7919 % 61 - 30) * 40)
            .collect();
        let net = Net::new(w1, vec![9000, -3000, 40000, 0], vec![25, -40, 13, 60]);
        let with_net = EvalWeights {
            net: net.map(Arc::new),
            ..odd.clone()
        };
        let mut compared = 0;
        let mut corrected = 0;
        for w in [EvalWeights::default(), odd, with_net] {
            for name in ["Base", "Base+M", "Base+L", "Base+P", "Base+MLP"] {
                let t = GameType::parse(name).expect("valid game type");
                let prepared = PreparedWeights::new(&w, t);
                // Prepared for another type: the slow way, same scores.
                let other = PreparedWeights::new(&w, GameType::BASE);
                let mut g = Game::new(t);
                let mut seed = 0x9e37_79b9_u64;
                for _ in 0..120 {
                    assert_eq!(evaluate_prepared(&g, &prepared), evaluate(&g, &w));
                    assert_eq!(evaluate_prepared(&g, &other), evaluate(&g, &w));
                    compared += 1;
                    if !g.state().is_over() {
                        // The breakdown's terms add up to the total, the network's included.
                        let b = breakdown(&g, &w);
                        let me = g.side_to_move();
                        let sum: i32 = b
                            .terms
                            .iter()
                            .map(|t| match me {
                                Color::White => t.white - t.black,
                                Color::Black => t.black - t.white,
                            })
                            .sum();
                        assert_eq!(sum.clamp(-MAX_EVAL, MAX_EVAL), b.total);
                        let network = b.terms.iter().find(|t| t.term == Term::Network);
                        assert_eq!(network.is_some(), w.net.is_some());
                        corrected += usize::from(network.is_some_and(|t| t.white != t.black));
                    }
                    if g.state().is_over() {
                        break;
                    }
                    let moves = g.legal_moves();
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    g.play_unchecked(moves[(seed >> 33) as usize % moves.len()]);
                }
            }
        }
        assert!(compared > 500, "{compared}");
        assert!(corrected > 100, "{corrected}");
    }

    #[test]
    fn pressure_on_a_queen_is_bad_for_its_owner() {
        let w = EvalWeights::default();
        // Black's queen has four neighbours, two of them white Ants; White's has two.
        let g = game(
            "Base;InProgress;White[5];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 /wQ;bA1 bQ-;wA1 bQ/;bA2 bA1-;wA2 /wQ;bA2 bQ\\",
        );
        let b = breakdown(&g, &w);
        let qp = b.terms[Term::QueenPressure as usize];
        assert!(qp.black < qp.white, "{b:?}");
        assert!(b.total > 0, "{b:?}");
    }

    #[test]
    fn finished_games_score_beyond_every_evaluation() {
        // White to move must block Black's win; any other move lets Black surround it.
        let mut g = game(
            "Base;InProgress;White[14];wS1;bS1 wS1-;wQ \\wS1;bQ bS1/;wB1 /wS1;bB1 bS1\\;wB1 wS1;bB1 bS1;wB1 wQ;bB1 -bQ;wS1 bQ\\;bS1 -wB1;wS1 bS1\\;bA1 bQ-;wS1 bQ\\;bA1 bS1\\;wS1 bA1\\;bA2 \\bQ;wS1 -bS1;bA2 \\wB1;wS1 bA2/;bQ bB1/;wB1 bB1;bQ wS1\\;wS1 wB1-;bA3 bA1\\",
        );
        let w = EvalWeights::default();
        assert!(final_score(&g).is_none());
        assert!(evaluate(&g, &w).abs() <= MAX_EVAL);
        let mut finished = false;
        'search: for m in g.legal_moves().to_vec() {
            g.play_unchecked(m);
            for r in g.legal_moves().to_vec() {
                g.play_unchecked(r);
                if g.state() == GameState::BlackWins {
                    // White to move has lost.
                    assert_eq!(final_score(&g), Some(-WIN));
                    assert_eq!(evaluate(&g, &w), -WIN);
                    finished = true;
                    break 'search;
                }
                g.undo();
            }
            g.undo();
        }
        assert!(finished, "no winning reply for Black found");
    }
}
