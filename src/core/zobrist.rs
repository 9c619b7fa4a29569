//! Zobrist keys.
//!
//! Keys are per (colour, bug, cell) rather than per numbered piece, so that swapping two copies
//! of a bug (`wS1` and `wS2`) gives the same hash: threefold repetition needs exactly that. A
//! piece at height `h` uses its ground key rotated by `7 * h` bits, which keeps the table at
//! 128 KiB while still telling stacks apart.

use super::hex::{CELLS, Cell};
use super::piece::{Color, Piece};

/// Key xored in when Black is to move.
pub const BLACK_TO_MOVE: u64 = 0x9E37_79B9_7F4A_7C15;

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const KINDS: usize = 16;

const fn build_keys() -> [[u64; CELLS]; KINDS] {
    let mut keys = [[0u64; CELLS]; KINDS];
    let mut state = 0x5741_4747_4C45_u64; // "WAGGLE"
    let mut k = 0;
    while k < KINDS {
        let mut c = 0;
        while c < CELLS {
            let (s, v) = splitmix(state);
            state = s;
            keys[k][c] = v;
            c += 1;
        }
        k += 1;
    }
    keys
}

static KEYS: [[u64; CELLS]; KINDS] = build_keys();

/// The key of `piece` standing at `height` (0 = on the ground) in `cell`.
#[inline(always)]
pub fn piece_key(piece: Piece, cell: Cell, height: u32) -> u64 {
    let kind = piece.color() as usize * 8 + piece.bug() as usize;
    KEYS[kind][cell.index()].rotate_left(7 * height)
}

/// The key for the side to move.
#[inline(always)]
pub const fn side_key(color: Color) -> u64 {
    match color {
        Color::White => 0,
        Color::Black => BLACK_TO_MOVE,
    }
}
