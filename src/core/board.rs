//! The hive: stacks of pieces on the wrapping grid, with an incremental Zobrist hash.

use super::hex::{CELLS, Cell};
use super::piece::{Color, PIECE_COUNT, Piece};
use super::piece_set::PieceSet;
use super::zobrist;

const NONE: u8 = u8::MAX;

/// Stacks of pieces on cells. The board knows nothing of turns or rules; it only keeps the
/// pieces where they are put, and the Zobrist hash of the pieces (not of the side to move).
#[derive(Clone)]
pub struct Board {
    /// Id of the top piece of each cell, `NONE` when empty.
    top: [u8; CELLS],
    /// Number of pieces in each cell.
    height: [u8; CELLS],
    /// For each cell, which of its neighbours have a white top piece (bit `k` for direction
    /// `k`), a black one (bit `8 + k`) and any piece (bit `16 + k`); kept up to date on every
    /// push, pop and lift, so placement, slide and one-hive tests read one word instead of six
    /// cells.
    adjacent: [u32; CELLS],
    /// Cell of each piece (meaningful only for pieces on the board).
    pos: [Cell; PIECE_COUNT],
    /// The piece directly beneath each piece, `NONE` when it stands on the ground.
    below: [u8; PIECE_COUNT],
    /// Bit `id` set when piece `id` is on the board.
    on_board: u32,
    hash: u64,
    /// Over the occupied cells: pairs of neighbours - cells - triangles of mutual neighbours.
    /// By Euler's formula a non-empty connected hive has `euler + 1` holes (empty regions it
    /// encloses).
    euler: i32,
}

impl Default for Board {
    fn default() -> Self {
        Board::new()
    }
}

impl Board {
    /// An empty board.
    pub fn new() -> Board {
        Board {
            top: [NONE; CELLS],
            height: [0; CELLS],
            adjacent: [0; CELLS],
            pos: [Cell::ORIGIN; PIECE_COUNT],
            below: [NONE; PIECE_COUNT],
            on_board: 0,
            hash: 0,
            euler: 0,
        }
    }

    /// Number of pieces in `cell`.
    #[inline(always)]
    pub fn height(&self, cell: Cell) -> u32 {
        self.height[cell.index()] as u32
    }

    /// Whether `cell` holds at least one piece.
    #[inline(always)]
    pub fn is_occupied(&self, cell: Cell) -> bool {
        self.height[cell.index()] != 0
    }

    /// The top piece of `cell`, if any.
    #[inline(always)]
    pub fn top(&self, cell: Cell) -> Option<Piece> {
        Piece::from_id(self.top[cell.index()] as usize)
    }

    /// Where `piece` stands, or `None` while it is in hand.
    #[inline(always)]
    pub fn position(&self, piece: Piece) -> Option<Cell> {
        if self.on_board & (1 << piece.id()) != 0 {
            Some(self.pos[piece.id()])
        } else {
            None
        }
    }

    /// Where `piece` stands, for a piece known to be on the board (for one in hand the answer
    /// means nothing): the form for loops over [`Board::pieces`].
    #[inline(always)]
    pub fn cell_of(&self, piece: Piece) -> Cell {
        debug_assert!(self.is_on_board(piece));
        self.pos[piece.id()]
    }

    /// Whether `piece` is on the board.
    #[inline(always)]
    pub fn is_on_board(&self, piece: Piece) -> bool {
        self.on_board & (1 << piece.id()) != 0
    }

    /// The pieces on the board.
    #[inline(always)]
    pub fn pieces(&self) -> PieceSet {
        PieceSet::from_bits(self.on_board)
    }

    /// The pieces of `color` on the board.
    #[inline(always)]
    pub fn pieces_of(&self, color: Color) -> PieceSet {
        self.pieces() & PieceSet::of_color(color)
    }

    /// The top pieces of the six cells around `cell`.
    #[inline(always)]
    pub fn tops_around(&self, cell: Cell) -> PieceSet {
        // An empty cell's id (`NONE`) lands on bit 31, above every piece id, dropped at the end.
        const _: () = assert!(PIECE_COUNT < 32);
        let mut a = 0;
        for &c in cell.neighbours() {
            a |= 1 << (self.top[c.index()] as u32 & 31);
        }
        PieceSet::from_bits(a)
    }

    /// Whether `piece` is on the board and nothing stands on it.
    #[inline(always)]
    pub fn is_top(&self, piece: Piece) -> bool {
        self.is_on_board(piece) && self.top[self.pos[piece.id()].index()] as usize == piece.id()
    }

    /// The piece directly beneath `piece`, if any.
    pub fn below(&self, piece: Piece) -> Option<Piece> {
        Piece::from_id(self.below[piece.id()] as usize)
    }

    /// The pieces of `cell` from the bottom up.
    pub fn stack(&self, cell: Cell) -> Vec<Piece> {
        let mut out = Vec::new();
        let mut p = self.top(cell);
        while let Some(piece) = p {
            out.push(piece);
            p = self.below(piece);
        }
        out.reverse();
        out
    }

    /// Zobrist hash of the pieces (without the side to move).
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Puts `piece` (which must not be on the board) on top of `cell`.
    #[inline(always)]
    pub fn push(&mut self, piece: Piece, cell: Cell) {
        let h = self.push_unhashed(piece, cell);
        self.hash ^= zobrist::piece_key(piece, cell, h);
    }

    /// Takes the top piece off `cell` (which must be occupied) and returns it.
    #[inline(always)]
    pub fn pop(&mut self, cell: Cell) -> Piece {
        let (piece, h) = self.pop_unhashed(cell);
        self.hash ^= zobrist::piece_key(piece, cell, h);
        piece
    }

    /// [`Board::push`] without updating the hash; returns the height the piece stands at.
    #[inline(always)]
    fn push_unhashed(&mut self, piece: Piece, cell: Cell) -> u32 {
        debug_assert!(!self.is_on_board(piece));
        let c = cell.index();
        let h = self.height[c];
        self.below[piece.id()] = self.top[c];
        let old = self.top[c];
        self.top[c] = piece.id() as u8;
        self.height[c] = h + 1;
        self.recolor(cell, old, piece.id() as u8);
        self.pos[piece.id()] = cell;
        self.on_board |= 1 << piece.id();
        h as u32
    }

    /// [`Board::pop`] without updating the hash; returns the piece and the height it stood at.
    #[inline(always)]
    fn pop_unhashed(&mut self, cell: Cell) -> (Piece, u32) {
        let c = cell.index();
        let id = self.top[c] as usize;
        debug_assert!(id < PIECE_COUNT);
        let h = self.height[c] - 1;
        self.height[c] = h;
        let under = self.below[id];
        self.top[c] = under;
        self.recolor(cell, id as u8, under);
        self.below[id] = NONE;
        self.on_board &= !(1 << id);
        let piece = Piece::from_set_bit(id);
        (piece, h as u32)
    }

    /// Takes back a move of `piece` from `from` (`None`: it was placed) to `to`, setting the
    /// hash to `hash`, the one recorded before the move (cheaper than recomputing keys).
    #[inline(always)]
    pub(super) fn unmove(&mut self, piece: Piece, from: Option<Cell>, to: Cell, hash: u64) {
        self.pop_unhashed(to);
        if let Some(from) = from {
            self.push_unhashed(piece, from);
        }
        self.hash = hash;
    }

    /// Whether any of the six neighbours of `cell` has a top piece of `color`.
    #[inline(always)]
    pub fn touches_color(&self, cell: Cell, color: Color) -> bool {
        (self.adjacent[cell.index()] >> color_shift(color)) & 63 != 0
    }

    /// The occupied neighbours of `cell` as six bits (bit `k` for direction `k`).
    #[inline(always)]
    pub fn occupied_neighbours(&self, cell: Cell) -> u32 {
        self.adjacent[cell.index()] >> OCCUPIED_SHIFT
    }

    /// The number of holes of the hive: empty regions it encloses (0 for an empty board).
    /// Maintained by pushes and pops.
    #[inline(always)]
    pub fn holes(&self) -> i32 {
        if self.on_board == 0 {
            0
        } else {
            self.euler + 1
        }
    }

    /// The whole neighbour word of `cell` (see `Board::adjacent`).
    #[inline(always)]
    pub(super) fn neighbour_word(&self, cell: Cell) -> u32 {
        self.adjacent[cell.index()]
    }

    /// Updates the neighbour words after the top of `cell` changed from `old` to `new` (raw
    /// ids, `NONE` for empty).
    #[inline(always)]
    fn recolor(&mut self, cell: Cell, old: u8, new: u8) {
        let change = PATTERN[old as usize] ^ PATTERN[new as usize];
        if change == 0 {
            return;
        }
        if change & 1 << OCCUPIED_SHIFT != 0 {
            // The cell was filled or emptied: it brings or takes its pairs and triangles.
            let delta = EULER_DELTA[self.occupied_neighbours(cell) as usize & 63] as i32;
            self.euler += if new == NONE { -delta } else { delta };
        }
        for (k, &n) in cell.neighbours().iter().enumerate() {
            // `cell` lies in direction `k + 3` from its neighbour `n`.
            self.adjacent[n.index()] ^= change << ((k + 3) % 6);
        }
    }

    /// Id of the top piece of `cell` as a raw byte (`u8::MAX` when empty), for hot loops.
    #[inline(always)]
    pub(super) fn top_id(&self, cell: Cell) -> u8 {
        self.top[cell.index()]
    }

    /// The hash recomputed from scratch, for checking the incremental one.
    pub fn recompute_hash(&self) -> u64 {
        let mut h = 0;
        for p in Piece::all() {
            if let Some(cell) = self.position(p) {
                let mut depth = 0;
                let mut b = self.below(p);
                while let Some(q) = b {
                    depth += 1;
                    b = self.below(q);
                }
                h ^= zobrist::piece_key(p, cell, depth);
            }
        }
        h
    }
}

/// Where the occupied-neighbour bits start in a word of `Board::adjacent`.
const OCCUPIED_SHIFT: u32 = 16;

/// For a cell filled with occupied neighbours `occ`: the neighbour pairs it adds, minus one
/// cell, minus the triangles it closes (neighbours `k` and `k + 1` are neighbours).
const EULER_DELTA: [i8; 64] = {
    let mut t = [0i8; 64];
    let mut m = 0;
    while m < 64 {
        let next = ((m << 5) | (m >> 1)) & 63; // bit k = neighbour k + 1 occupied
        t[m] = (m as u32).count_ones() as i8 - 1 - ((m & next) as u32).count_ones() as i8;
        m += 1;
    }
    t
};

/// Where the bits of `color`'s neighbours start in a word of `Board::adjacent`.
#[inline(always)]
pub(crate) const fn color_shift(color: Color) -> u32 {
    8 * color as u32
}

/// The bits a top piece sets in the word of the neighbour it lies east of (direction 0), by
/// raw top id (none for an empty cell); other directions shift them.
const PATTERN: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut id = 0;
    while id < PIECE_COUNT {
        let color = if id < PIECE_COUNT / 2 { 0 } else { 8 };
        t[id] = 1 << color | 1 << OCCUPIED_SHIFT;
        id += 1;
    }
    t
};

impl PartialEq for Board {
    /// Two boards are equal when every piece stands in the same place of the same stack.
    fn eq(&self, other: &Board) -> bool {
        self.on_board == other.on_board
            && self.hash == other.hash
            && Piece::all().all(|p| {
                !self.is_on_board(p)
                    || (self.pos[p.id()] == other.pos[p.id()]
                        && self.below[p.id()] == other.below[p.id()])
            })
    }
}

impl Eq for Board {}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut m = f.debug_map();
        for p in Piece::all() {
            if let Some(c) = self.position(p) {
                m.entry(&p, &c);
            }
        }
        m.finish()
    }
}
