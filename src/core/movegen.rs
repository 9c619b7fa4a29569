//! Legal move generation.
//!
//! Generation reads the board's neighbour words (which neighbours of a cell are occupied) for
//! slides, gates and placements. Pieces whose moves can pass next to their own cell (Spider,
//! Ant, Ladybug, Mosquito) are lifted off the board (their cell's height lowered) while their
//! destinations are found, so every test sees the hive without the mover; one-step movers and
//! Grasshoppers need no lift. The one-hive rule is settled by the runs of occupied cells around
//! a piece where it can be: with at most one run a piece is free, and in a hive without holes
//! (the board counts them) two runs mean pinned. Only a hive with a hole needs a search: one
//! articulation-point pass per position, shared with the evaluation.

// Loops over direction indices use the index for the gate cells as well as the neighbour.
#![allow(clippy::needless_range_loop)]

use super::board::{Board, color_shift};
use super::cell_set::CellSet;
use super::game::{Game, queen};
use super::hex::{CELLS, Cell};
use super::move_list::MoveList;
use super::mv::Move;
use super::piece::{Bug, Color, PIECES_PER_COLOR, Piece};

/// Whether a ground slide from `a` in direction `k` fits: exactly one of the two cells beside
/// the step is occupied (both: it does not fit through; neither: it would leave the hive).
#[inline(always)]
fn slide_ok(board: &Board, a: Cell, k: usize) -> bool {
    let o = board.occupied_neighbors(a);
    ((o >> ((k + 5) % 6)) ^ (o >> ((k + 1) % 6))) & 1 != 0
}

/// Directions (as six bits) in which a ground piece can slide out of a cell whose occupied
/// neighbours are `occ`: the target is empty and exactly one of the two cells beside the step
/// is occupied.
#[inline(always)]
pub const fn slide_out_mask(occ: u32) -> u32 {
    let left = ((occ << 1) | (occ >> 5)) & 63; // bit k = neighbour k - 1 occupied
    let right = ((occ >> 1) | (occ << 5)) & 63; // bit k = neighbour k + 1 occupied
    !occ & (left ^ right) & 63
}

/// [`slide_out_mask`] of every six-bit occupancy.
const SLIDE_OUT: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut m = 0;
    while m < 64 {
        t[m] = slide_out_mask(m as u32) as u8;
        m += 1;
    }
    t
};

/// The directions in which a ground piece can slide out of `cell` (see [`slide_out_mask`]).
#[inline(always)]
fn slides_from(board: &Board, cell: Cell) -> u32 {
    SLIDE_OUT[board.occupied_neighbors(cell) as usize & 63] as u32
}

/// The directions set in a six-bit mask, lowest first.
#[inline(always)]
fn directions(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let k = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(k)
    })
}

/// Whether a step from `a` in direction `k` passes the height gate, for any step that starts or
/// ends above the ground (and also the ground case, where it means "not both occupied").
#[inline(always)]
fn gate_ok(board: &Board, a: Cell, k: usize) -> bool {
    gate_ok_at(board, a, board.height(a), k)
}

/// [`gate_ok`] for a step from `a` taken at height `h` (the height of `a` without the mover).
#[inline(always)]
fn gate_ok_at(board: &Board, a: Cell, h: u32, k: usize) -> bool {
    let n = a.neighbors();
    let level = h.max(board.height(n[k])) + 1;
    board.height(n[(k + 5) % 6]) < level || board.height(n[(k + 1) % 6]) < level
}

/// Whether a climbing step (Beetle-like) from `a`, taken at height `h` (the height of `a`
/// without the mover), in direction `k` is legal: the height gate, plus the contact rule when
/// both ends are on the ground.
#[inline(always)]
fn climb_ok(board: &Board, a: Cell, h: u32, k: usize) -> bool {
    if h == 0 && board.height(a.neighbors()[k]) == 0 {
        slide_ok(board, a, k)
    } else {
        gate_ok_at(board, a, h, k)
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

/// Mask (by piece id) of the first copy of every bug of both colours.
const FIRST_COPIES: u32 = {
    let mut m = 0u32;
    let mut i = 0;
    while i < Bug::ALL.len() {
        let f = Bug::ALL[i].first_index();
        m |= 1 << f | 1 << (f as usize + PIECES_PER_COLOR);
        i += 1;
    }
    m
};

/// Where generated moves go: a list, or just a count (perft's last ply).
pub(crate) trait MoveSink {
    /// Takes one move.
    fn push(&mut self, m: Move);
    /// Takes the placement on `cell` of each piece of `pieces` (a mask by id with `count`
    /// pieces).
    fn push_placements(&mut self, pieces: u32, count: usize, cell: Cell);
    /// Takes, for each direction `k` set in the six-bit mask `dirs`, the move of each piece of
    /// `pieces` (a mask by id with `count` pieces) to `dest(k)` (a counting sink never asks
    /// for the cells).
    #[inline(always)]
    fn push_directions(
        &mut self,
        pieces: u32,
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
    fn push_placements(&mut self, pieces: u32, count: usize, cell: Cell) {
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

/// Number of set bits of each six-bit mask (a table: the default x86-64 target has no popcount
/// instruction, and the software one costs more than the lookup).
pub const DIRECTION_COUNT: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut m = 0;
    while m < 64 {
        t[m] = (m as u32).count_ones() as u8;
        m += 1;
    }
    t
};

impl MoveSink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        MoveList::push(self, m);
    }
    #[inline(always)]
    fn push_placements(&mut self, mut pieces: u32, _: usize, cell: Cell) {
        while pieces != 0 {
            let p =
                Piece::from_id(pieces.trailing_zeros() as usize).unwrap_or_else(|| unreachable!());
            pieces &= pieces - 1;
            MoveList::push(self, Move::new(p, cell));
        }
    }
    #[inline(always)]
    fn taken(&self) -> usize {
        self.len()
    }
}

/// Counts moves without storing them.
pub(crate) struct MoveCount(pub usize);

impl MoveSink for MoveCount {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn push_placements(&mut self, _: u32, count: usize, _: Cell) {
        self.0 += count;
    }
    #[inline(always)]
    fn push_directions(&mut self, _: u32, count: usize, dirs: u32, _: impl Fn(usize) -> Cell) {
        self.0 += count * DIRECTION_COUNT[dirs as usize & 63] as usize;
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
        let new = *m != self.stamp;
        *m = self.stamp;
        new
    }
}

impl<S: MoveSink> Dests<'_, S> {
    #[inline(always)]
    fn add(&mut self, to: Cell) {
        if self.mark(to) {
            self.out.push(Move::new(self.piece, to));
        }
    }
}

impl Game {
    /// Generates every legal move of the side to move into `out` (cleared first). A finished
    /// game has no moves; `pass` is generated only when nothing else is legal. Each (piece,
    /// destination) appears once.
    pub fn generate_moves(&mut self, out: &mut MoveList) {
        out.clear();
        self.generate_into(out);
    }

    /// The number of legal moves here; the same as generating them and taking the length.
    pub fn count_moves(&mut self) -> usize {
        let mut count = MoveCount(0);
        self.generate_into(&mut count);
        count.0
    }

    /// The legal moves of the side to move that end on a neighbour of `centre` (none for a
    /// finished game, and never a pass), in the order [`Game::generate_moves`] lists them.
    /// Cheaper than generating every move and filtering: pieces too far away are skipped.
    pub fn generate_moves_next_to(&mut self, centre: Cell, out: &mut MoveList) {
        out.clear();
        if self.state().is_over() {
            return;
        }
        let mut ring = CellSet::new();
        for &c in centre.neighbors() {
            ring.insert(c);
        }
        let open = 6 - DIRECTION_COUNT[self.board.occupied_neighbors(centre) as usize & 63];
        let mut near = NextTo {
            centre,
            ring,
            open: open as usize,
            list: out,
        };
        self.generate_placements_and_movements(&mut near);
    }

    fn generate_into<S: MoveSink>(&mut self, out: &mut S) {
        if self.state().is_over() {
            return;
        }
        self.generate_placements_and_movements(out);
        if out.taken() == 0 {
            out.push(Move::PASS);
        }
    }

    /// Every placement and movement of the side to move (the game is not over).
    #[inline(always)]
    fn generate_placements_and_movements<S: MoveSink>(&mut self, out: &mut S) {
        let me = self.side_to_move();
        self.generate_placements(me, out);
        if self.queen_placed(me) {
            self.generate_movements(me, out);
        }
    }

    fn generate_placements<S: MoveSink>(&mut self, me: Color, out: &mut S) {
        let turn = self.turn_number();
        // Copies of a bug enter in order, so the next one in hand is the lowest in hand: the
        // first copy, or one whose predecessor is on the board.
        let in_hand = !self.board.on_board_mask() & self.game_type().piece_mask() & me.ids();
        let mut next = in_hand & (!(in_hand << 1) | FIRST_COPIES);
        let queen_bit = 1 << queen(me).id();
        if turn == 1 {
            next &= !queen_bit;
        } else if turn == 4 && next & queen_bit != 0 {
            next = queen_bit;
        }
        if next == 0 {
            return;
        }
        let (pieces, count) = (next, next.count_ones() as usize);
        let board = &self.board;
        match self.ply() {
            0 => out.push_placements(pieces, count, Cell::ORIGIN),
            1 => {
                for &c in Cell::ORIGIN.neighbors() {
                    out.push_placements(pieces, count, c);
                }
            }
            _ => {
                // Each free cell next to a friendly top piece and no enemy one, taken from its
                // friendly neighbour in the lowest direction only, so that it comes once.
                let reject = &PLACEMENT_REJECT[me as usize];
                let mut own = board.color_mask(me);
                while own != 0 {
                    let id = own.trailing_zeros() as usize;
                    own &= own - 1;
                    let at = board.pos[id];
                    if board.top_id(at) as usize != id {
                        continue;
                    }
                    // All six directions without branches (about half the candidates pass,
                    // which no branch predictor guesses well).
                    let n = at.neighbors();
                    let mut cells = !board.occupied_neighbors(at) & 63;
                    for k in 0..6 {
                        let rejected = board.neighbor_word(n[k]) & reject[k] != 0;
                        cells &= !((rejected as u32) << k);
                    }
                    out.push_directions(pieces, count, cells, |k| n[k]);
                }
            }
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

    fn generate_movements<S: MoveSink>(&mut self, me: Color, out: &mut S) {
        let frozen_mask = self.frozen.map_or(0, |p| 1u32 << p.id());

        // Pillbug throws first, so that a piece's own moves skip those destinations. A user
        // has at most 3 x 3 (target, destination) pairs, so two users fit in 18.
        let mut throws = [(0u8, Cell::ORIGIN); 18];
        let mut nthrows = 0;
        let users = [Bug::Pillbug, Bug::Mosquito]
            .into_iter()
            .filter_map(|bug| Piece::new(me, bug, 1))
            .fold(0u32, |m, p| m | 1 << p.id());
        if self.game_type().has(Bug::Pillbug) && self.board.on_board_mask() & users != 0 {
            nthrows = self.collect_throws(me, frozen_mask, &mut throws);
        }
        let throws = &throws[..nthrows];

        let mut own = self.board.color_mask(me) & !frozen_mask;
        while own != 0 {
            let id = own.trailing_zeros() as usize;
            own &= own - 1;
            let piece = Piece::from_id(id).unwrap_or_else(|| unreachable!());
            if !self.board.is_top(piece) {
                continue;
            }
            let at = self.board.position(piece).unwrap_or_else(|| unreachable!());
            let height = self.board.height(at);
            let elevated = height > 1;
            let bug = piece.bug();
            let steps = if elevated {
                1
            } else {
                MOST_STEPS[bug as usize]
            };
            if !out.may_reach(at, steps) || (!elevated && self.is_pinned_at(at, id)) {
                continue;
            }
            let one_step = elevated || matches!(bug, Bug::Queen | Bug::Pillbug | Bug::Beetle);
            let thrown = throws.iter().any(|&(t, _)| t as usize == id);
            if (one_step || bug == Bug::Grasshopper) && !thrown {
                // One destination per direction and none of them thrown to: no marks needed,
                // and the mover need not be lifted (its own cell is never a gate of its moves).
                let board = &self.board;
                let n = at.neighbors();
                if elevated || bug == Bug::Beetle {
                    out.push_directions(
                        1 << id,
                        1,
                        beetle_directions(board, at, height - 1),
                        |k| n[k],
                    );
                } else if bug == Bug::Grasshopper {
                    out.push_directions(1 << id, 1, board.occupied_neighbors(at), |k| {
                        jump_end(board, n[k], k)
                    });
                } else {
                    let dirs = slides_from(board, at);
                    out.push_directions(1 << id, 1, dirs, |k| n[k]);
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
                if t as usize == id {
                    dests.mark(c);
                }
            }
            self.board.lift(at);
            if elevated {
                beetle_moves(&self.board, at, height - 1, &mut dests);
            } else {
                match bug {
                    Bug::Queen | Bug::Pillbug => step_moves(&self.board, at, &mut dests),
                    Bug::Beetle => beetle_moves(&self.board, at, 0, &mut dests),
                    Bug::Grasshopper => grasshopper_moves(&self.board, at, &mut dests),
                    Bug::Spider => spider_moves(&self.board, at, &mut dests),
                    Bug::Ant => ant_moves(&self.board, at, &mut dests, !thrown),
                    Bug::Ladybug => ladybug_moves(&self.board, at, &mut dests),
                    Bug::Mosquito => mosquito_moves(&self.board, at, &mut dests),
                }
            }
            self.board.unlift(at);
        }
        for &(t, c) in throws {
            let piece = Piece::from_id(t as usize).unwrap_or_else(|| unreachable!());
            out.push(Move::new(piece, c));
        }
    }

    /// Finds every Pillbug throw available to `me` (by a Pillbug, or a Mosquito next to one),
    /// each (piece, destination) once. `frozen` holds the piece that may neither be thrown nor
    /// throw; pinned pieces may not be thrown either.
    fn collect_throws(&mut self, me: Color, frozen: u32, throws: &mut [(u8, Cell); 18]) -> usize {
        let mut n = 0;
        let users = [
            Piece::new(me, Bug::Pillbug, 1),
            Piece::new(me, Bug::Mosquito, 1),
        ];
        for user in users.into_iter().flatten() {
            let Some(p) = self.board.position(user) else {
                continue;
            };
            if !self.game_type().has(user.bug())
                || self.frozen == Some(user)
                || self.board.height(p) != 1
            {
                continue;
            }
            let pn = *p.neighbors();
            if user.bug() == Bug::Mosquito
                && !pn
                    .iter()
                    .any(|&c| self.board.top(c).is_some_and(|t| t.bug() == Bug::Pillbug))
            {
                continue;
            }
            for (k, &from) in pn.iter().enumerate() {
                if self.board.height(from) != 1 {
                    continue;
                }
                let target = self.board.top_id(from);
                if frozen & (1 << target) != 0 || self.is_pinned_at(from, target as usize) {
                    continue;
                }
                self.board.lift(from);
                // Up from `from` onto the user: the step from `from` towards `p`.
                let up = (k + 3) % 6;
                if gate_ok(&self.board, from, up) {
                    for (j, &to) in pn.iter().enumerate() {
                        if to == from || self.board.is_occupied(to) || !gate_ok(&self.board, p, j) {
                            continue;
                        }
                        if !throws[..n].contains(&(target, to)) && n < throws.len() {
                            throws[n] = (target, to);
                            n += 1;
                        }
                    }
                }
                self.board.unlift(from);
            }
        }
        n
    }
}

/// One slide (Queen, Pillbug).
#[inline]
fn step_moves<S: MoveSink>(board: &Board, at: Cell, d: &mut Dests<S>) {
    let n = at.neighbors();
    for k in directions(slides_from(board, at)) {
        d.add(n[k]);
    }
}

/// The directions of one step, onto or off the hive (Beetle, Mosquito as Beetle), from `at` at
/// height `h` (without the mover).
#[inline]
fn beetle_directions(board: &Board, at: Cell, h: u32) -> u32 {
    let mut dirs = 0;
    for k in 0..6 {
        dirs |= (climb_ok(board, at, h, k) as u32) << k;
    }
    dirs
}

#[inline]
fn beetle_moves<S: MoveSink>(board: &Board, at: Cell, h: u32, d: &mut Dests<S>) {
    let n = at.neighbors();
    for k in directions(beetle_directions(board, at, h)) {
        d.add(n[k]);
    }
}

/// Where a Grasshopper jumping in direction `k` over the occupied cell `first` lands.
#[inline]
fn jump_end(board: &Board, first: Cell, k: usize) -> Cell {
    let mut c = first;
    while board.is_occupied(c) {
        c = c.neighbors()[k];
    }
    c
}

#[inline]
fn grasshopper_moves<S: MoveSink>(board: &Board, at: Cell, d: &mut Dests<S>) {
    let n = at.neighbors();
    for k in directions(board.occupied_neighbors(at)) {
        d.add(jump_end(board, n[k], k));
    }
}

fn spider_moves<S: MoveSink>(board: &Board, at: Cell, d: &mut Dests<S>) {
    let n0 = at.neighbors();
    for k0 in directions(slides_from(board, at)) {
        let c1 = n0[k0];
        let n1 = c1.neighbors();
        for k1 in directions(slides_from(board, c1)) {
            let c2 = n1[k1];
            if c2 == at {
                continue;
            }
            let n2 = c2.neighbors();
            for k2 in directions(slides_from(board, c2)) {
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
fn slide_flood(board: &Board, at: Cell, mut visit: impl FnMut(Cell) -> Step) {
    // At most 2 * 27 + 4 empty cells touch a hive of 27 cells, and each is pushed once.
    let mut stack = [Cell::ORIGIN; 64];
    let mut len = 1;
    stack[0] = at;
    while len > 0 {
        len -= 1;
        let a = stack[len & 63];
        let n = a.neighbors();
        for k in directions(slides_from(board, a)) {
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
fn ant_moves<S: MoveSink>(board: &Board, at: Cell, d: &mut Dests<S>, marked_only: bool) {
    let since = d.out.taken();
    if marked_only {
        slide_flood(board, at, |b| {
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
    slide_flood(board, at, |b| {
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

fn ladybug_moves<S: MoveSink>(board: &Board, at: Cell, d: &mut Dests<S>) {
    let n0 = at.neighbors();
    for k0 in directions(board.occupied_neighbors(at)) {
        if !gate_ok(board, at, k0) {
            continue;
        }
        let c1 = n0[k0];
        let n1 = c1.neighbors();
        for k1 in directions(board.occupied_neighbors(c1)) {
            if !gate_ok(board, c1, k1) {
                continue;
            }
            let c2 = n1[k1];
            let n2 = c2.neighbors();
            for k2 in directions(!board.occupied_neighbors(c2) & 63) {
                if gate_ok(board, c2, k2) {
                    d.add(n2[k2]);
                }
            }
        }
    }
}

/// A Mosquito on the ground moves as every non-Mosquito bug on top of a neighbouring cell.
fn mosquito_moves<S: MoveSink>(board: &Board, at: Cell, d: &mut Dests<S>) {
    let mut bugs = 0u8;
    for &c in at.neighbors() {
        if let Some(t) = board.top(c) {
            bugs |= 1 << t.bug() as u8;
        }
    }
    bugs &= !(1 << Bug::Mosquito as u8);
    if bugs & (1 << Bug::Beetle as u8) != 0 {
        beetle_moves(board, at, 0, d);
    } else if bugs & (1 << Bug::Queen as u8 | 1 << Bug::Pillbug as u8) != 0 {
        // A Beetle's steps include every slide, so only without one do slides add anything.
        step_moves(board, at, d);
    }
    if bugs & (1 << Bug::Ant as u8) != 0 {
        ant_moves(board, at, d, false);
    } else if bugs & (1 << Bug::Spider as u8) != 0 {
        // Every Spider destination is an Ant destination too.
        spider_moves(board, at, d);
    }
    if bugs & (1 << Bug::Grasshopper as u8) != 0 {
        grasshopper_moves(board, at, d);
    }
    if bugs & (1 << Bug::Ladybug as u8) != 0 {
        ladybug_moves(board, at, d);
    }
}

/// Number of separate runs of occupied cells around a cell, by the 6-bit occupancy of its
/// neighbours (bit k = direction k). With at most one run, the neighbours stay connected to each
/// other around the cell, so lifting it cannot split the hive.
const RUNS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut m = 0;
    while m < 64 {
        let mut runs = 0;
        let mut k = 0;
        while k < 6 {
            if m >> k & 1 == 1 && m >> ((k + 5) % 6) & 1 == 0 {
                runs += 1;
            }
            k += 1;
        }
        t[m] = runs;
        m += 1;
    }
    t
};

/// Number of separate runs of occupied cells around a cell, by the 6-bit occupancy of its
/// neighbours (bit k = direction k): with at most one, lifting the cell's piece cannot split
/// the hive.
#[inline(always)]
pub fn neighbour_runs(occupancy: usize) -> u8 {
    RUNS[occupancy & 63]
}

impl Game {
    /// The one-hive test for the piece `id` standing alone in `at`: whether lifting it would
    /// split the hive. The runs of its neighbours settle it unless the hive has a hole; then
    /// the articulation-point pass (once per position) does.
    #[inline(always)]
    fn is_pinned_at(&self, at: Cell, id: usize) -> bool {
        if neighbour_runs(self.board.occupied_neighbors(at) as usize) <= 1 {
            return false;
        }
        // Without a hole, two runs always means pinned (see [`pinned_mask`]).
        self.board.holes() == 0 || self.pinned() & (1 << id) != 0
    }
}

/// Mask (by id of the top piece) of the cells whose emptying would split the hive: the
/// articulation points of the graph of occupied cells.
///
/// A cell with at most one run of occupied neighbours never splits the hive. With two or more
/// runs it does unless the gaps between them open onto different empty regions, which needs a
/// hole: an empty region enclosed by the hive (the board counts them, see [`Board::holes`]).
/// Without a hole the cells with two runs are the answer; with one, a depth-first pass over
/// the neighbour masks finds it.
pub fn pinned_mask(board: &Board) -> u32 {
    let mut split = 0u32;
    let mut tops = 0u32;
    let mut m = board.on_board_mask();
    while m != 0 {
        let id = m.trailing_zeros() as usize;
        m &= m - 1;
        let at = board.pos[id];
        if board.top_id(at) as usize != id {
            continue;
        }
        tops |= 1 << id;
        split |= ((neighbour_runs(board.occupied_neighbors(at) as usize) > 1) as u32) << id;
    }
    if split == 0 || board.holes() == 0 {
        return split;
    }
    // Tables of 32 entries, indexed by ids masked to five bits, need no bounds checks.
    let mut adj = [0u32; 32];
    let mut m = tops;
    while m != 0 {
        let id = m.trailing_zeros() as usize;
        m &= m - 1;
        let at = board.pos[id];
        let n = at.neighbors();
        let mut a = 0u32;
        for k in directions(board.occupied_neighbors(at)) {
            a |= 1 << (board.top_id(n[k]) & 31);
        }
        adj[id & 31] = a;
    }
    articulation_points(&adj, tops)
}

/// The articulation points of the graph on the nodes of `nodes` (a non-empty mask is
/// connected) with neighbour masks `adj`: an iterative Tarjan pass.
fn articulation_points(adj: &[u32; 32], nodes: u32) -> u32 {
    if nodes == 0 {
        return 0;
    }
    let root = nodes.trailing_zeros() as usize & 31;
    // Discovery times and low points; only entries of discovered nodes are read.
    let mut disc = [0u8; 32];
    let mut low = [0u8; 32];
    // The depth-first path: each node with the neighbours it has still to try.
    let mut path_node = [0u8; 32];
    let mut path_rest = [0u32; 32];
    let mut len = 1;
    path_node[0] = root as u8;
    path_rest[0] = adj[root];
    let mut visited = 1u32 << root;
    let mut time = 1u8;
    disc[root] = 1;
    low[root] = 1;
    let mut pinned = 0u32;
    let mut root_children = 0;
    while len > 0 {
        let top = (len - 1) & 31;
        let v = path_node[top] as usize & 31;
        let fresh = path_rest[top] & !visited;
        if fresh != 0 {
            let u = fresh.trailing_zeros() as usize & 31;
            path_rest[top] = fresh & (fresh - 1);
            visited |= 1 << u;
            time += 1;
            disc[u] = time;
            // Visited neighbours other than the parent are ancestors (back edges).
            let mut lowest = time;
            let mut back = adj[u] & visited & !(1 << v);
            while back != 0 {
                lowest = lowest.min(disc[back.trailing_zeros() as usize & 31]);
                back &= back - 1;
            }
            low[u] = lowest;
            path_node[len & 31] = u as u8;
            path_rest[len & 31] = adj[u] & !visited;
            len += 1;
        } else {
            len -= 1;
            if len > 0 {
                let p = path_node[(len - 1) & 31] as usize & 31;
                low[p] = low[p].min(low[v]);
                if len == 1 {
                    root_children += 1;
                } else if low[v] >= disc[p] {
                    pinned |= 1 << p;
                }
            }
        }
    }
    if root_children > 1 {
        pinned |= 1 << root;
    }
    pinned
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slide_out_mask_matches_the_slide_rule() {
        for occ in 0u32..64 {
            let m = slide_out_mask(occ);
            for k in 0..6 {
                let expect = occ & (1 << k) == 0
                    && ((occ >> ((k + 5) % 6)) & 1) != ((occ >> ((k + 1) % 6)) & 1);
                assert_eq!(m >> k & 1 == 1, expect, "occ={occ:06b} k={k}");
            }
        }
    }

    /// Hives grown cell by cell at random (a tiny linear congruential generator keeps the
    /// test free of dependencies), including rings around one and two empty cells.
    fn random_hives() -> Vec<Vec<Cell>> {
        let mut state = 0x9E37_79B9_u64;
        let mut next = |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) as usize % n
        };
        let mut hives = Vec::new();
        for size in 1..=crate::core::piece::PIECE_COUNT {
            for _ in 0..200 {
                let mut cells = vec![Cell::ORIGIN];
                while cells.len() < size {
                    let c = cells[next(cells.len())].neighbors()[next(6)];
                    if !cells.contains(&c) {
                        cells.push(c);
                    }
                }
                hives.push(cells);
            }
        }
        let ring = |centre: Cell| centre.neighbors().to_vec();
        hives.push(ring(Cell::ORIGIN));
        let mut with_tail = ring(Cell::ORIGIN);
        with_tail.push(Cell::from_axial(2, 0));
        hives.push(with_tail);
        // Two empty cells, (0,0) and (1,0), inside a ring of eight.
        let mut two = ring(Cell::ORIGIN);
        two.retain(|&c| c != Cell::from_axial(1, 0));
        two.extend([(2, 0), (2, -1), (1, 1)].map(|(q, r)| Cell::from_axial(q, r)));
        hives.push(two);
        hives
    }

    /// The holes of a board found by brute force: components of empty cells other than the
    /// one around a far-away cell.
    fn holes_by_flood(board: &Board) -> i32 {
        let mut seen = vec![false; CELLS];
        let mut components = 0;
        let far = Cell::from_axial(16, 16);
        for start in std::iter::once(far).chain((0..CELLS).filter_map(Cell::from_index)) {
            if seen[start.index()] || board.is_occupied(start) {
                continue;
            }
            components += 1;
            seen[start.index()] = true;
            let mut stack = vec![start];
            while let Some(c) = stack.pop() {
                for &x in c.neighbors() {
                    if !seen[x.index()] && !board.is_occupied(x) {
                        seen[x.index()] = true;
                        stack.push(x);
                    }
                }
            }
        }
        components - 1
    }

    /// Whether `cells` form one group of neighbours (plain flood fill).
    fn connected(cells: &[Cell]) -> bool {
        let mut seen = vec![cells[0]];
        let mut todo = vec![cells[0]];
        while let Some(c) = todo.pop() {
            for x in c.neighbors() {
                if cells.contains(x) && !seen.contains(x) {
                    seen.push(*x);
                    todo.push(*x);
                }
            }
        }
        seen.len() == cells.len()
    }

    #[test]
    fn pinned_mask_and_holes_agree_with_flood_fills() {
        for cells in random_hives() {
            let mut game = Game::new(crate::core::GameType::MLP);
            for (id, &c) in cells.iter().enumerate() {
                let piece = Piece::from_id(id).unwrap();
                game.board.push(piece, c);
            }
            assert_eq!(game.board.holes(), holes_by_flood(&game.board), "{cells:?}");
            let pinned = pinned_mask(&game.board);
            for (id, &c) in cells.iter().enumerate() {
                if neighbour_runs(game.board.occupied_neighbors(c) as usize) < 2 {
                    assert_eq!(pinned & (1 << id), 0, "{cells:?}");
                    continue;
                }
                let rest: Vec<Cell> = cells.iter().copied().filter(|&x| x != c).collect();
                assert_eq!(
                    pinned & (1 << id) != 0,
                    !connected(&rest),
                    "{cells:?} at {c:?}"
                );
            }
        }
    }

    #[test]
    fn run_counts() {
        assert_eq!(neighbour_runs(0), 0);
        assert_eq!(neighbour_runs(0b111111), 0);
        assert_eq!(neighbour_runs(0b000111), 1);
        assert_eq!(neighbour_runs(0b100001), 1);
        assert_eq!(neighbour_runs(0b010101), 3);
    }
}
