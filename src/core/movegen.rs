//! Legal move generation.
//!
//! Generation lifts the moving piece off the board (by lowering its cell's height) while it
//! looks for destinations, so every slide and gate test sees the hive without the mover. The
//! one-hive rule is settled by the runs of occupied cells around a piece where it can be, and
//! otherwise by one articulation-point pass per position, run only when first needed.

// Loops over direction indices use the index for the gate cells as well as the neighbour.
#![allow(clippy::needless_range_loop)]

use super::board::Board;
use super::cell_set::CellSet;
use super::game::{Game, queen};
use super::hex::{CELLS, Cell};
use super::move_list::MoveList;
use super::mv::Move;
use super::piece::{Bug, Color, PIECE_COUNT, Piece};

/// Whether a ground slide from `a` in direction `k` fits: exactly one of the two cells beside
/// the step is occupied (both: it does not fit through; neither: it would leave the hive).
#[inline(always)]
fn slide_ok(board: &Board, a: Cell, k: usize) -> bool {
    let n = a.neighbors();
    board.is_occupied(n[(k + 5) % 6]) != board.is_occupied(n[(k + 1) % 6])
}

/// Whether a step from `a` in direction `k` passes the height gate, for any step that starts or
/// ends above the ground (and also the ground case, where it means "not both occupied").
#[inline(always)]
fn gate_ok(board: &Board, a: Cell, k: usize) -> bool {
    let n = a.neighbors();
    let level = board.height(a).max(board.height(n[k])) + 1;
    board.height(n[(k + 5) % 6]) < level || board.height(n[(k + 1) % 6]) < level
}

/// Whether a climbing step (Beetle-like) from `a` in direction `k` is legal: the height gate,
/// plus the contact rule when both ends are on the ground.
#[inline(always)]
fn climb_ok(board: &Board, a: Cell, k: usize) -> bool {
    if board.height(a) == 0 && board.height(a.neighbors()[k]) == 0 {
        slide_ok(board, a, k)
    } else {
        gate_ok(board, a, k)
    }
}

/// Where generated moves go: a list, or just a count (perft's last ply).
pub(crate) trait MoveSink {
    /// Takes one move.
    fn push(&mut self, m: Move);
    /// Takes the placement of each of `pieces` on `cell`.
    fn push_placements(&mut self, pieces: &[Piece], cell: Cell);
    /// Whether nothing has been taken.
    fn is_empty(&self) -> bool;
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        MoveList::push(self, m);
    }
    #[inline(always)]
    fn push_placements(&mut self, pieces: &[Piece], cell: Cell) {
        for &p in pieces {
            MoveList::push(self, Move::new(p, cell));
        }
    }
    #[inline(always)]
    fn is_empty(&self) -> bool {
        MoveList::is_empty(self)
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
    fn push_placements(&mut self, pieces: &[Piece], _: Cell) {
        self.0 += pieces.len();
    }
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.0 == 0
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

    fn generate_into<S: MoveSink>(&mut self, out: &mut S) {
        if self.state().is_over() {
            return;
        }
        let me = self.side_to_move();
        self.generate_placements(me, out);
        if self.queen_placed(me) {
            self.generate_movements(me, out);
        }
        if out.is_empty() {
            out.push(Move::PASS);
        }
    }

    fn generate_placements<S: MoveSink>(&mut self, me: Color, out: &mut S) {
        let turn = self.turn_number();
        let mut pieces = [Piece::from_id(0).unwrap_or_else(|| unreachable!()); 8];
        let mut n = 0;
        if turn == 4 && !self.queen_placed(me) {
            pieces[0] = queen(me);
            n = 1;
        } else {
            for bug in Bug::ALL {
                if bug == Bug::Queen && turn == 1 {
                    continue;
                }
                if let Some(p) = self.next_in_hand(me, bug) {
                    pieces[n] = p;
                    n += 1;
                }
            }
        }
        if n == 0 {
            return;
        }
        let pieces = &pieces[..n];
        let stamp = self.next_stamp();
        let board = &self.board;
        match self.ply() {
            0 => out.push_placements(pieces, Cell::ORIGIN),
            1 => {
                for &c in Cell::ORIGIN.neighbors() {
                    out.push_placements(pieces, c);
                }
            }
            _ => {
                // Each free cell next to a friendly top piece and no enemy one, once.
                let mut own = board.color_mask(me);
                while own != 0 {
                    let id = own.trailing_zeros() as usize;
                    own &= own - 1;
                    let piece = Piece::from_id(id).unwrap_or_else(|| unreachable!());
                    if !board.is_top(piece) {
                        continue;
                    }
                    let at = board.position(piece).unwrap_or_else(|| unreachable!());
                    for &c in at.neighbors() {
                        if board.is_occupied(c) || self.marks[c.index()] == stamp {
                            continue;
                        }
                        self.marks[c.index()] = stamp;
                        if !board.touches_color(c, me.opponent()) {
                            out.push_placements(pieces, c);
                        }
                    }
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
        let mut pins = Pins::default();
        let frozen_mask = self.frozen.map_or(0, |p| 1u32 << p.id());

        // Pillbug throws first, so that a piece's own moves skip those destinations.
        let mut throws = [(0u8, Cell::ORIGIN); 64];
        let mut nthrows = 0;
        if self.game_type().has(Bug::Pillbug) {
            nthrows = self.collect_throws(me, frozen_mask, &mut pins, &mut throws);
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
            let elevated = self.board.height(at) > 1;
            if !elevated && pins.is_pinned(&self.board, at, id) {
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
                beetle_moves(&self.board, at, &mut dests);
            } else {
                match piece.bug() {
                    Bug::Queen | Bug::Pillbug => step_moves(&self.board, at, &mut dests),
                    Bug::Beetle => beetle_moves(&self.board, at, &mut dests),
                    Bug::Grasshopper => grasshopper_moves(&self.board, at, &mut dests),
                    Bug::Spider => spider_moves(&self.board, at, &mut dests),
                    Bug::Ant => ant_moves(&self.board, at, &mut dests),
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
    fn collect_throws(
        &mut self,
        me: Color,
        frozen: u32,
        pins: &mut Pins,
        throws: &mut [(u8, Cell); 64],
    ) -> usize {
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
                if frozen & (1 << target) != 0 || pins.is_pinned(&self.board, from, target as usize)
                {
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
    for (k, &b) in n.iter().enumerate() {
        if !board.is_occupied(b) && slide_ok(board, at, k) {
            d.add(b);
        }
    }
}

/// One step in any direction, onto or off the hive (Beetle, Mosquito as Beetle).
#[inline]
fn beetle_moves<S: MoveSink>(board: &Board, at: Cell, d: &mut Dests<S>) {
    for k in 0..6 {
        if climb_ok(board, at, k) {
            d.add(at.neighbors()[k]);
        }
    }
}

#[inline]
fn grasshopper_moves<S: MoveSink>(board: &Board, at: Cell, d: &mut Dests<S>) {
    for k in 0..6 {
        let mut c = at.neighbors()[k];
        if !board.is_occupied(c) {
            continue;
        }
        while board.is_occupied(c) {
            c = c.neighbors()[k];
        }
        d.add(c);
    }
}

fn spider_moves<S: MoveSink>(board: &Board, at: Cell, d: &mut Dests<S>) {
    let n0 = at.neighbors();
    for k0 in 0..6 {
        let c1 = n0[k0];
        if board.is_occupied(c1) || !slide_ok(board, at, k0) {
            continue;
        }
        let n1 = c1.neighbors();
        for k1 in 0..6 {
            let c2 = n1[k1];
            if c2 == at || board.is_occupied(c2) || !slide_ok(board, c1, k1) {
                continue;
            }
            let n2 = c2.neighbors();
            for k2 in 0..6 {
                let c3 = n2[k2];
                if c3 == c1 || c3 == at || board.is_occupied(c3) || !slide_ok(board, c2, k2) {
                    continue;
                }
                d.add(c3);
            }
        }
    }
}

fn ant_moves<S: MoveSink>(board: &Board, at: Cell, d: &mut Dests<S>) {
    // Its own visited set: cells already reached by another way of moving (a Mosquito's other
    // bugs, a Pillbug throw) must still be walked through.
    let mut visited = CellSet::new();
    visited.insert(at);
    let mut stack = [Cell::ORIGIN; 256];
    let mut len = 1;
    stack[0] = at;
    while len > 0 {
        len -= 1;
        let a = stack[len];
        let n = a.neighbors();
        for k in 0..6 {
            let b = n[k];
            if board.is_occupied(b) || !slide_ok(board, a, k) || !visited.insert(b) {
                continue;
            }
            d.add(b);
            if len < stack.len() {
                stack[len] = b;
                len += 1;
            }
        }
    }
}

fn ladybug_moves<S: MoveSink>(board: &Board, at: Cell, d: &mut Dests<S>) {
    let n0 = at.neighbors();
    for k0 in 0..6 {
        let c1 = n0[k0];
        if !board.is_occupied(c1) || !gate_ok(board, at, k0) {
            continue;
        }
        let n1 = c1.neighbors();
        for k1 in 0..6 {
            let c2 = n1[k1];
            if !board.is_occupied(c2) || !gate_ok(board, c1, k1) {
                continue;
            }
            let n2 = c2.neighbors();
            for k2 in 0..6 {
                let c3 = n2[k2];
                if board.is_occupied(c3) || !gate_ok(board, c2, k2) {
                    continue;
                }
                d.add(c3);
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
        beetle_moves(board, at, d);
    } else if bugs & (1 << Bug::Queen as u8 | 1 << Bug::Pillbug as u8) != 0 {
        // A Beetle's steps include every slide, so only without one do slides add anything.
        step_moves(board, at, d);
    }
    if bugs & (1 << Bug::Ant as u8) != 0 {
        ant_moves(board, at, d);
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

/// The one-hive test for ground pieces, computed lazily: most pieces are settled by the
/// neighbour runs alone, and the full articulation-point pass runs at most once per position.
#[derive(Default)]
struct Pins {
    mask: Option<u32>,
}

impl Pins {
    /// Whether lifting the piece `id` standing alone in `at` would split the hive.
    #[inline(always)]
    fn is_pinned(&mut self, board: &Board, at: Cell, id: usize) -> bool {
        let n = at.neighbors();
        let mut occ = 0usize;
        for (k, &c) in n.iter().enumerate() {
            occ |= (board.is_occupied(c) as usize) << k;
        }
        if neighbour_runs(occ) <= 1 {
            return false;
        }
        let mask = *self.mask.get_or_insert_with(|| pinned_mask(board));
        mask & (1 << id) != 0
    }
}

/// Mask (by id of the top piece) of the cells whose emptying would split the hive: the
/// articulation points of the graph of occupied cells, found by one depth-first pass.
pub fn pinned_mask(board: &Board) -> u32 {
    let any = board.on_board_mask();
    if any == 0 {
        return 0;
    }
    let Some(root) = Piece::from_id(any.trailing_zeros() as usize).and_then(|p| board.position(p))
    else {
        return 0;
    };
    let mut ctx = Tarjan {
        board,
        disc: [0; PIECE_COUNT],
        time: 0,
        pinned: 0,
    };
    ctx.visit(root, None);
    ctx.pinned
}

struct Tarjan<'a> {
    board: &'a Board,
    disc: [u8; PIECE_COUNT],
    time: u8,
    pinned: u32,
}

impl Tarjan<'_> {
    fn visit(&mut self, cell: Cell, parent: Option<Cell>) -> u8 {
        let id = self.board.top_id(cell) as usize;
        self.time += 1;
        self.disc[id] = self.time;
        let mut low = self.time;
        let mut children = 0;
        for &c in cell.neighbors() {
            let cid = self.board.top_id(c) as usize;
            if cid >= PIECE_COUNT || Some(c) == parent {
                continue;
            }
            if self.disc[cid] == 0 {
                children += 1;
                let child_low = self.visit(c, Some(cell));
                low = low.min(child_low);
                if parent.is_some() && child_low >= self.disc[id] {
                    self.pinned |= 1 << id;
                }
            } else {
                low = low.min(self.disc[cid]);
            }
        }
        if parent.is_none() && children > 1 {
            self.pinned |= 1 << id;
        }
        low
    }
}
