//! Legal move generation.
//!
//! Generation reads the board's neighbour words (which neighbours of a cell are occupied) for
//! slides, gates and placements. Pieces whose moves can pass next to their own cell (Spider,
//! Ant, Ladybug, Mosquito) see the hive through a [`Lifted`] view, in which their own cell
//! reads as empty; one-step movers and Grasshoppers need none. The one-hive rule is settled by
//! the runs of occupied cells around a piece where it can be: with at most one run a piece is
//! free, and in a hive without holes (the board counts them) two runs mean pinned. Only a hive
//! with a hole needs a search: one articulation-point pass per position
//! ([`topology::pinned`](super::topology::pinned)), shared with the evaluation through [`Game::pinned`].
//!
//! The board is never changed: [`MoveGen`] owns the scratch that generation writes (destination
//! marks and the lifted view's corrections), so listing moves needs only `&Game`.

// Loops over direction indices use the index for the gate cells as well as the neighbour.
#![allow(clippy::needless_range_loop)]

use super::board::{Board, color_shift};
use super::cell_set::CellSet;
use super::game::Game;
use super::hex::{CELLS, Cell};
use super::move_list::MoveList;
use super::mv::Move;
use super::piece::{Bug, Color, PIECES_PER_COLOR, Piece};
use super::piece_set::PieceSet;
use super::topology::{direction_count, directions, neighbour_runs, slides_out};

/// What move generation reads of the hive: the board itself, or the board with one ground
/// piece lifted off ([`Lifted`]).
trait Hive {
    /// The occupied neighbours of `cell` as six bits (bit `k` for direction `k`).
    fn occupied_neighbours(&self, cell: Cell) -> u32;
    /// Number of pieces in `cell`.
    fn height(&self, cell: Cell) -> u32;
    /// Whether `cell` holds at least one piece.
    #[inline(always)]
    fn is_occupied(&self, cell: Cell) -> bool {
        self.height(cell) != 0
    }
}

impl Hive for Board {
    #[inline(always)]
    fn occupied_neighbours(&self, cell: Cell) -> u32 {
        Board::occupied_neighbours(self, cell)
    }
    #[inline(always)]
    fn height(&self, cell: Cell) -> u32 {
        Board::height(self, cell)
    }
}

/// The board as seen while a piece standing alone on its cell is lifted off: that cell reads
/// as empty, in its own height and in its neighbours' words. The corrections of the words live
/// in the generator's `fix` table (set for the six neighbours, cleared when the view ends), so
/// a read costs one extra load.
struct Lifted<'a> {
    board: &'a Board,
    /// The lifted piece's cell.
    cell: Cell,
    fix: &'a [u8; CELLS],
}

impl Hive for Lifted<'_> {
    #[inline(always)]
    fn occupied_neighbours(&self, cell: Cell) -> u32 {
        self.board.occupied_neighbours(cell) ^ self.fix[cell.index()] as u32
    }
    #[inline(always)]
    fn height(&self, cell: Cell) -> u32 {
        self.board.height(cell) - (cell == self.cell) as u32
    }
}

/// Sets (or, called again, clears) the corrections of a [`Lifted`] view of `cell`.
#[inline(always)]
fn toggle_lift(fix: &mut [u8; CELLS], cell: Cell) {
    // `cell` lies in direction `k + 3` from its neighbour in direction `k`.
    const BACK: [u8; 6] = [1 << 3, 1 << 4, 1 << 5, 1, 1 << 1, 1 << 2];
    let n = cell.neighbours();
    for k in 0..6 {
        fix[n[k].index()] ^= BACK[k];
    }
}

/// Whether a ground slide from `a` in direction `k` fits: exactly one of the two cells beside
/// the step is occupied (both: it does not fit through; neither: it would leave the hive).
#[inline(always)]
fn slide_ok<H: Hive>(hive: &H, a: Cell, k: usize) -> bool {
    let o = hive.occupied_neighbours(a);
    ((o >> ((k + 5) % 6)) ^ (o >> ((k + 1) % 6))) & 1 != 0
}

/// The directions in which a ground piece can slide out of `cell` (see
/// [`slide_out_mask`](super::topology::slide_out_mask)).
#[inline(always)]
fn slides_from<H: Hive>(hive: &H, cell: Cell) -> u32 {
    slides_out(hive.occupied_neighbours(cell))
}

/// Whether a step from `a` in direction `k` passes the height gate, for any step that starts or
/// ends above the ground (and also the ground case, where it means "not both occupied").
#[inline(always)]
fn gate_ok<H: Hive>(hive: &H, a: Cell, k: usize) -> bool {
    gate_ok_at(hive, a, hive.height(a), k)
}

/// [`gate_ok`] for a step from `a` taken at height `h` (the height of `a` without the mover).
#[inline(always)]
fn gate_ok_at<H: Hive>(hive: &H, a: Cell, h: u32, k: usize) -> bool {
    let n = a.neighbours();
    let level = h.max(hive.height(n[k])) + 1;
    hive.height(n[(k + 5) % 6]) < level || hive.height(n[(k + 1) % 6]) < level
}

/// Whether a climbing step (Beetle-like) from `a`, taken at height `h` (the height of `a`
/// without the mover), in direction `k` is legal: the height gate, plus the contact rule when
/// both ends are on the ground.
#[inline(always)]
fn climb_ok<H: Hive>(hive: &H, a: Cell, h: u32, k: usize) -> bool {
    if h == 0 && hive.height(a.neighbours()[k]) == 0 {
        slide_ok(hive, a, k)
    } else {
        gate_ok_at(hive, a, h, k)
    }
}

/// For a placement of `color` on the empty cell in direction `k` of a friendly top piece: the
/// bits of the cell's neighbour word that must all be clear. Any enemy neighbour forbids the
/// cell, and a friendly one in a lower direction than the piece (which lies in direction
/// `k + 3` from the cell) means the cell is taken from that one instead.
const PLACEMENT_REJECT: [[u32; 6]; 2] = {
    let mut t = [[0u32; 6]; 2];
    let mut color = 0;
    while color < 2 {
        let mut k = 0;
        while k < 6 {
            let me = if color == 0 {
                Color::White
            } else {
                Color::Black
            };
            let lower = (1u32 << ((k + 3) % 6)) - 1;
            t[color][k] = 63 << color_shift(me.opponent()) | lower << color_shift(me);
            k += 1;
        }
        color += 1;
    }
    t
};

/// The first copy of every bug of both colours.
const FIRST_COPIES: PieceSet = {
    let mut m = 0u32;
    let mut i = 0;
    while i < Bug::ALL.len() {
        let f = Bug::ALL[i].first_index();
        m |= 1 << f | 1 << (f as usize + PIECES_PER_COLOR);
        i += 1;
    }
    PieceSet::from_bits(m)
};

/// Where generated moves go: a list, or just a count (perft's last ply).
trait MoveSink {
    /// Takes one move.
    fn push(&mut self, m: Move);
    /// Takes the placement on `cell` of each piece of `pieces` (which has `count` pieces).
    fn push_placements(&mut self, pieces: PieceSet, count: usize, cell: Cell);
    /// Takes, for each direction `k` set in the six-bit mask `dirs`, the move of each piece of
    /// `pieces` (which has `count` pieces) to `dest(k)` (a counting sink never asks for the
    /// cells).
    #[inline(always)]
    fn push_directions(
        &mut self,
        pieces: PieceSet,
        count: usize,
        dirs: u32,
        dest: impl Fn(usize) -> Cell,
    ) {
        for k in directions(dirs) {
            self.push_placements(pieces, count, dest(k));
        }
    }
    /// Whether a piece on `from` that moves at most `steps` cells may have a move the sink
    /// takes (false lets generation skip the piece).
    #[inline(always)]
    fn may_reach(&self, _from: Cell, _steps: u32) -> bool {
        true
    }
    /// How many moves have been taken.
    fn taken(&self) -> usize;
    /// Whether a flood over empty cells that started when [`MoveSink::taken`] was `since` has
    /// already given every move the sink can take from it, so it may stop.
    #[inline(always)]
    fn flood_done(&self, _since: usize) -> bool {
        false
    }
}

/// How many cells a ground piece of each bug can end up from where it starts (a Grasshopper,
/// Ant or Mosquito: any number).
const MOST_STEPS: [u32; 8] = {
    let mut t = [u32::MAX; 8];
    t[Bug::Queen as usize] = 1;
    t[Bug::Beetle as usize] = 1;
    t[Bug::Pillbug as usize] = 1;
    t[Bug::Spider as usize] = 3;
    t[Bug::Ladybug as usize] = 3;
    t
};

/// A list that takes only moves ending next to `centre` (and no pass).
struct NextTo<'a> {
    centre: Cell,
    /// The neighbours of `centre`.
    ring: CellSet,
    /// How many of them are empty.
    open: usize,
    list: &'a mut MoveList,
}

impl MoveSink for NextTo<'_> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        if !m.is_pass() && self.ring.contains(m.to()) {
            self.list.push(m);
        }
    }
    #[inline(always)]
    fn push_placements(&mut self, pieces: PieceSet, count: usize, cell: Cell) {
        if self.ring.contains(cell) {
            self.list.push_placements(pieces, count, cell);
        }
    }
    #[inline(always)]
    fn may_reach(&self, from: Cell, steps: u32) -> bool {
        from.distance(self.centre) <= steps.saturating_add(1)
    }
    #[inline(always)]
    fn taken(&self) -> usize {
        self.list.len()
    }
    #[inline(always)]
    fn flood_done(&self, since: usize) -> bool {
        self.list.len() - since >= self.open
    }
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        MoveList::push(self, m);
    }
    #[inline(always)]
    fn push_placements(&mut self, pieces: PieceSet, _: usize, cell: Cell) {
        for p in pieces {
            MoveList::push(self, Move::new(p, cell));
        }
    }
    #[inline(always)]
    fn taken(&self) -> usize {
        self.len()
    }
}

/// Counts moves without storing them.
struct MoveCount(usize);

impl MoveSink for MoveCount {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn push_placements(&mut self, _: PieceSet, count: usize, _: Cell) {
        self.0 += count;
    }
    #[inline(always)]
    fn push_directions(&mut self, _: PieceSet, count: usize, dirs: u32, _: impl Fn(usize) -> Cell) {
        self.0 += count * direction_count(dirs) as usize;
    }
    #[inline(always)]
    fn taken(&self) -> usize {
        self.0
    }
}

/// Collects destinations of one piece, each once: a cell counts as seen when its mark holds
/// this piece's stamp (so nothing needs clearing between pieces).
struct Dests<'a, S: MoveSink> {
    piece: Piece,
    stamp: u16,
    marks: &'a mut [u16; CELLS],
    out: &'a mut S,
}

impl<S: MoveSink> Dests<'_, S> {
    /// Marks `to` as seen without adding a move; returns whether it was new.
    #[inline(always)]
    fn mark(&mut self, to: Cell) -> bool {
        let m = &mut self.marks[to.index()];
        if *m == self.stamp {
            return false;
        }
        *m = self.stamp;
        true
    }

    /// Adds the move to `to` unless that cell was seen already.
    #[inline(always)]
    fn add(&mut self, to: Cell) {
        if self.mark(to) {
            self.out.push(Move::new(self.piece, to));
        }
    }
}

/// A move generator: the scratch that generation writes, kept between calls so that nothing
/// needs clearing. Hold one per thread where moves are generated often (search, perft); the
/// [`Game`] methods of the same names make a fresh one for an occasional list.
#[derive(Clone)]
pub struct MoveGen {
    /// Destination marks (see [`Dests`]).
    marks: Box<[u16; CELLS]>,
    /// The stamp of the piece whose destinations are being collected.
    stamp: u16,
    /// Corrections of the [`Lifted`] view: all zero between views.
    fix: Box<[u8; CELLS]>,
}

impl Default for MoveGen {
    fn default() -> Self {
        MoveGen::new()
    }
}

impl MoveGen {
    /// A generator with clear scratch.
    pub fn new() -> MoveGen {
        MoveGen {
            marks: Box::new([0; CELLS]),
            stamp: 0,
            fix: Box::new([0; CELLS]),
        }
    }

    /// Generates every legal move of the side to move into `out` (cleared first). A finished
    /// game has no moves; `pass` is generated only when nothing else is legal. Each (piece,
    /// destination) appears once.
    pub fn generate(&mut self, game: &Game, out: &mut MoveList) {
        out.clear();
        self.generate_into(game, out);
    }

    /// The number of legal moves; the same as generating them and taking the length.
    pub fn count(&mut self, game: &Game) -> usize {
        let mut count = MoveCount(0);
        self.generate_into(game, &mut count);
        count.0
    }

    /// The legal moves of the side to move that end on a neighbour of `centre` (none for a
    /// finished game, and never a pass), in the order [`MoveGen::generate`] lists them.
    /// Cheaper than generating every move and filtering: pieces too far away are skipped.
    pub fn generate_next_to(&mut self, game: &Game, centre: Cell, out: &mut MoveList) {
        out.clear();
        if game.state().is_over() {
            return;
        }
        let mut ring = CellSet::new();
        for &c in centre.neighbours() {
            ring.insert(c);
        }
        let open = 6 - direction_count(game.board().occupied_neighbours(centre));
        let mut near = NextTo {
            centre,
            ring,
            open: open as usize,
            list: out,
        };
        self.placements_and_movements(game, &mut near);
    }

    fn generate_into<S: MoveSink>(&mut self, game: &Game, out: &mut S) {
        if game.state().is_over() {
            return;
        }
        self.placements_and_movements(game, out);
        if out.taken() == 0 {
            out.push(Move::PASS);
        }
    }

    /// Every placement and movement of the side to move (the game is not over).
    #[inline(always)]
    fn placements_and_movements<S: MoveSink>(&mut self, game: &Game, out: &mut S) {
        let me = game.side_to_move();
        placements(game, me, out);
        if game.queen_placed(me) {
            self.movements(game, me, out);
        }
    }

    /// A fresh value for `marks`: cells marked with it are those seen in this pass.
    #[inline(always)]
    fn next_stamp(&mut self) -> u16 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.marks.fill(0);
            self.stamp = 1;
        }
        self.stamp
    }

    fn movements<S: MoveSink>(&mut self, game: &Game, me: Color, out: &mut S) {
        let board = game.board();
        let frozen = game.frozen().map_or(PieceSet::EMPTY, PieceSet::single);

        // Pillbug throws first, so that a piece's own moves skip those destinations. A user
        // has at most 3 x 3 (target, destination) pairs, so two users fit in 18.
        let mut throws = [(Piece::queen(Color::White), Cell::ORIGIN); 18];
        let mut nthrows = 0;
        let users = PieceSet::of(me, Bug::Pillbug) | PieceSet::of(me, Bug::Mosquito);
        if game.game_type().has(Bug::Pillbug) && !(board.pieces() & users).is_empty() {
            nthrows = self.collect_throws(game, me, frozen, &mut throws);
        }
        let throws = &throws[..nthrows];

        for piece in board.pieces_of(me) - frozen {
            let at = board.cell_of(piece);
            if board.top_id(at) as usize != piece.id() {
                continue;
            }
            let height = board.height(at);
            let elevated = height > 1;
            let bug = piece.bug();
            let steps = if elevated {
                1
            } else {
                MOST_STEPS[bug as usize]
            };
            if !out.may_reach(at, steps) || (!elevated && is_pinned_at(game, at, piece)) {
                continue;
            }
            let one_step = elevated || matches!(bug, Bug::Queen | Bug::Pillbug | Bug::Beetle);
            let thrown = throws.iter().any(|&(t, _)| t == piece);
            let n = at.neighbours();
            if (one_step || bug == Bug::Grasshopper) && !thrown {
                // One destination per direction and none of them thrown to: no marks needed.
                let me = PieceSet::single(piece);
                if elevated || bug == Bug::Beetle {
                    out.push_directions(me, 1, beetle_directions(board, at, height - 1), |k| n[k]);
                } else if bug == Bug::Grasshopper {
                    out.push_directions(me, 1, board.occupied_neighbours(at), |k| {
                        jump_end(board, n[k], k)
                    });
                } else {
                    out.push_directions(me, 1, slides_from(board, at), |k| n[k]);
                }
                continue;
            }
            let stamp = self.next_stamp();
            let mut dests = Dests {
                piece,
                stamp,
                marks: &mut self.marks,
                out: &mut *out,
            };
            dests.mark(at);
            for &(t, c) in throws {
                if t == piece {
                    dests.mark(c);
                }
            }
            // A one-step mover or a Grasshopper never passes its own cell, so it needs no lift
            // (neither does a piece on top of the hive: its cell stays occupied).
            match bug {
                _ if elevated => beetle_moves(board, at, height - 1, &mut dests),
                Bug::Queen | Bug::Pillbug => step_moves(board, at, &mut dests),
                Bug::Beetle => beetle_moves(board, at, 0, &mut dests),
                Bug::Grasshopper => grasshopper_moves(board, at, &mut dests),
                Bug::Spider | Bug::Ant | Bug::Ladybug | Bug::Mosquito => {
                    toggle_lift(&mut self.fix, at);
                    let hive = Lifted {
                        board,
                        cell: at,
                        fix: &self.fix,
                    };
                    match bug {
                        Bug::Spider => spider_moves(&hive, at, &mut dests),
                        Bug::Ant => ant_moves(&hive, at, &mut dests, !thrown),
                        Bug::Ladybug => ladybug_moves(&hive, at, &mut dests),
                        _ => mosquito_moves(board, &hive, at, &mut dests),
                    }
                    toggle_lift(&mut self.fix, at);
                }
            }
        }
        for &(piece, c) in throws {
            out.push(Move::new(piece, c));
        }
    }

    /// Finds every Pillbug throw available to `me` (by a Pillbug, or a Mosquito next to one),
    /// each (piece, destination) once. Pieces of `frozen` may neither be thrown nor throw;
    /// pinned pieces may not be thrown either.
    fn collect_throws(
        &mut self,
        game: &Game,
        me: Color,
        frozen: PieceSet,
        throws: &mut [(Piece, Cell); 18],
    ) -> usize {
        let board = game.board();
        let mut n = 0;
        let users = [
            Piece::new(me, Bug::Pillbug, 1),
            Piece::new(me, Bug::Mosquito, 1),
        ];
        for user in users.into_iter().flatten() {
            let Some(p) = board.position(user) else {
                continue;
            };
            if !game.game_type().has(user.bug()) || frozen.contains(user) || board.height(p) != 1 {
                continue;
            }
            let pn = *p.neighbours();
            if user.bug() == Bug::Mosquito
                && !pn
                    .iter()
                    .any(|&c| board.top(c).is_some_and(|t| t.bug() == Bug::Pillbug))
            {
                continue;
            }
            for (k, &from) in pn.iter().enumerate() {
                if board.height(from) != 1 {
                    continue;
                }
                let Some(target) = board.top(from) else {
                    continue;
                };
                if frozen.contains(target) || is_pinned_at(game, from, target) {
                    continue;
                }
                toggle_lift(&mut self.fix, from);
                let hive = Lifted {
                    board,
                    cell: from,
                    fix: &self.fix,
                };
                // Up from `from` onto the user: the step from `from` towards `p`.
                let up = (k + 3) % 6;
                if gate_ok(&hive, from, up) {
                    for (j, &to) in pn.iter().enumerate() {
                        if to == from || hive.is_occupied(to) || !gate_ok(&hive, p, j) {
                            continue;
                        }
                        if !throws[..n].contains(&(target, to)) && n < throws.len() {
                            throws[n] = (target, to);
                            n += 1;
                        }
                    }
                }
                toggle_lift(&mut self.fix, from);
            }
        }
        n
    }
}

impl Game {
    /// Generates every legal move of the side to move into `out` (see [`MoveGen::generate`];
    /// this one makes a fresh generator, so hold a [`MoveGen`] where moves are generated often).
    pub fn generate_moves(&self, out: &mut MoveList) {
        MoveGen::new().generate(self, out);
    }

    /// The legal moves here, as a new list (see [`Game::generate_moves`]).
    pub fn legal_moves(&self) -> MoveList {
        let mut out = MoveList::new();
        self.generate_moves(&mut out);
        out
    }
}

/// The placements of `me` (the game is not over).
fn placements<S: MoveSink>(game: &Game, me: Color, out: &mut S) {
    let board = game.board();
    let turn = game.turn_number();
    // Copies of a bug enter in order, so the next one in hand is the lowest in hand: the first
    // copy, or one whose predecessor is on the board.
    let in_hand = (game.game_type().pieces() & (PieceSet::of_color(me) - board.pieces())).bits();
    let mut next = PieceSet::from_bits(in_hand & (!(in_hand << 1) | FIRST_COPIES.bits()));
    let queen = Piece::queen(me);
    if turn == 1 {
        next.remove(queen);
    } else if turn == 4 && next.contains(queen) {
        next = PieceSet::single(queen);
    }
    if next.is_empty() {
        return;
    }
    let count = next.len();
    match game.ply() {
        0 => out.push_placements(next, count, Cell::ORIGIN),
        1 => {
            for &c in Cell::ORIGIN.neighbours() {
                out.push_placements(next, count, c);
            }
        }
        _ => {
            // Each free cell next to a friendly top piece and no enemy one, taken from its
            // friendly neighbour in the lowest direction only, so that it comes once.
            let reject = &PLACEMENT_REJECT[me as usize];
            for own in board.pieces_of(me) {
                let at = board.cell_of(own);
                if board.top_id(at) as usize != own.id() {
                    continue;
                }
                // All six directions without branches (about half the candidates pass, which
                // no branch predictor guesses well).
                let n = at.neighbours();
                let mut cells = !board.occupied_neighbours(at) & 63;
                for k in 0..6 {
                    let rejected = board.neighbour_word(n[k]) & reject[k] != 0;
                    cells &= !((rejected as u32) << k);
                }
                out.push_directions(next, count, cells, |k| n[k]);
            }
        }
    }
}

/// The one-hive test for `piece` standing alone in `at`: whether lifting it would split the
/// hive. The runs of its neighbours settle it unless the hive has a hole; then the
/// articulation-point pass (once per position) does.
#[inline(always)]
fn is_pinned_at(game: &Game, at: Cell, piece: Piece) -> bool {
    let board = game.board();
    if neighbour_runs(board.occupied_neighbours(at)) <= 1 {
        return false;
    }
    // Without a hole, two runs always means pinned (see `topology::pinned`).
    board.holes() == 0 || game.pinned().contains(piece)
}

/// One slide (Queen, Pillbug).
#[inline]
fn step_moves<H: Hive, S: MoveSink>(hive: &H, at: Cell, d: &mut Dests<S>) {
    let n = at.neighbours();
    for k in directions(slides_from(hive, at)) {
        d.add(n[k]);
    }
}

/// The directions of one step, onto or off the hive (Beetle, Mosquito as Beetle), from `at` at
/// height `h` (without the mover).
#[inline]
fn beetle_directions<H: Hive>(hive: &H, at: Cell, h: u32) -> u32 {
    let mut dirs = 0;
    for k in 0..6 {
        dirs |= (climb_ok(hive, at, h, k) as u32) << k;
    }
    dirs
}

#[inline]
fn beetle_moves<H: Hive, S: MoveSink>(hive: &H, at: Cell, h: u32, d: &mut Dests<S>) {
    let n = at.neighbours();
    for k in directions(beetle_directions(hive, at, h)) {
        d.add(n[k]);
    }
}

/// Where a Grasshopper jumping in direction `k` over the occupied cell `first` lands.
#[inline]
fn jump_end<H: Hive>(hive: &H, first: Cell, k: usize) -> Cell {
    let mut c = first;
    while hive.is_occupied(c) {
        c = c.neighbours()[k];
    }
    c
}

#[inline]
fn grasshopper_moves<H: Hive, S: MoveSink>(hive: &H, at: Cell, d: &mut Dests<S>) {
    let n = at.neighbours();
    for k in directions(hive.occupied_neighbours(at)) {
        d.add(jump_end(hive, n[k], k));
    }
}

fn spider_moves<H: Hive, S: MoveSink>(hive: &H, at: Cell, d: &mut Dests<S>) {
    let n0 = at.neighbours();
    for k0 in directions(slides_from(hive, at)) {
        let c1 = n0[k0];
        let n1 = c1.neighbours();
        for k1 in directions(slides_from(hive, c1)) {
            let c2 = n1[k1];
            if c2 == at {
                continue;
            }
            let n2 = c2.neighbours();
            for k2 in directions(slides_from(hive, c2)) {
                let c3 = n2[k2];
                if c3 != c1 && c3 != at {
                    d.add(c3);
                }
            }
        }
    }
}

/// What a flood does with a cell it slides into.
enum Step {
    /// Already visited: do not walk on from it.
    Seen,
    /// Newly visited: walk on from it.
    Walk,
    /// Enough found: end the flood.
    Stop,
}

/// Visits every empty cell reachable from `at` by sliding around the hive, as long as `visit`
/// says to walk on.
#[inline(always)]
fn slide_flood<H: Hive>(hive: &H, at: Cell, mut visit: impl FnMut(Cell) -> Step) {
    // At most 2 * 27 + 4 empty cells touch a hive of 27 cells, and each is pushed once.
    let mut stack = [Cell::ORIGIN; 64];
    let mut len = 1;
    stack[0] = at;
    while len > 0 {
        len -= 1;
        let a = stack[len & 63];
        let n = a.neighbours();
        for k in directions(slides_from(hive, a)) {
            let b = n[k];
            match visit(b) {
                Step::Seen => {}
                Step::Walk => {
                    stack[len & 63] = b;
                    len += 1;
                }
                Step::Stop => return,
            }
        }
    }
}

/// Ant moves: every cell reachable by sliding around the hive. `marked_only` says that no
/// cell but `at` is marked yet (a plain Ant that is not thrown anywhere), so the destination
/// marks can serve as the visited set.
fn ant_moves<H: Hive, S: MoveSink>(hive: &H, at: Cell, d: &mut Dests<S>, marked_only: bool) {
    let since = d.out.taken();
    if marked_only {
        slide_flood(hive, at, |b| {
            if !d.mark(b) {
                Step::Seen
            } else {
                d.out.push(Move::new(d.piece, b));
                if d.out.flood_done(since) {
                    Step::Stop
                } else {
                    Step::Walk
                }
            }
        });
        return;
    }
    // Its own visited set: cells already reached by another way of moving (a Mosquito's other
    // bugs, a Pillbug throw) must still be walked through.
    let mut visited = CellSet::new();
    visited.insert(at);
    slide_flood(hive, at, |b| {
        if !visited.insert(b) {
            Step::Seen
        } else {
            d.add(b);
            if d.out.flood_done(since) {
                Step::Stop
            } else {
                Step::Walk
            }
        }
    });
}

fn ladybug_moves<H: Hive, S: MoveSink>(hive: &H, at: Cell, d: &mut Dests<S>) {
    let n0 = at.neighbours();
    for k0 in directions(hive.occupied_neighbours(at)) {
        if !gate_ok(hive, at, k0) {
            continue;
        }
        let c1 = n0[k0];
        let n1 = c1.neighbours();
        for k1 in directions(hive.occupied_neighbours(c1)) {
            if !gate_ok(hive, c1, k1) {
                continue;
            }
            let c2 = n1[k1];
            let n2 = c2.neighbours();
            for k2 in directions(!hive.occupied_neighbours(c2) & 63) {
                if gate_ok(hive, c2, k2) {
                    d.add(n2[k2]);
                }
            }
        }
    }
}

/// A Mosquito on the ground moves as every non-Mosquito bug on top of a neighbouring cell;
/// `hive` is `board` with the Mosquito lifted off.
fn mosquito_moves<S: MoveSink>(board: &Board, hive: &Lifted, at: Cell, d: &mut Dests<S>) {
    let mut bugs = 0u8;
    for p in board.tops_around(at) {
        bugs |= 1 << p.bug() as u8;
    }
    bugs &= !(1 << Bug::Mosquito as u8);
    if bugs & (1 << Bug::Beetle as u8) != 0 {
        beetle_moves(hive, at, 0, d);
    } else if bugs & (1 << Bug::Queen as u8 | 1 << Bug::Pillbug as u8) != 0 {
        // A Beetle's steps include every slide, so only without one do slides add anything.
        step_moves(hive, at, d);
    }
    if bugs & (1 << Bug::Ant as u8) != 0 {
        ant_moves(hive, at, d, false);
    } else if bugs & (1 << Bug::Spider as u8) != 0 {
        // Every Spider destination is an Ant destination too.
        spider_moves(hive, at, d);
    }
    if bugs & (1 << Bug::Grasshopper as u8) != 0 {
        grasshopper_moves(hive, at, d);
    }
    if bugs & (1 << Bug::Ladybug as u8) != 0 {
        ladybug_moves(hive, at, d);
    }
}
