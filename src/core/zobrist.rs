//! Zobrist keys.
//!
//! Keys are per (colour, bug, cell, height) rather than per numbered piece, so that swapping two
//! copies of a bug (`wS1` and `wS2`) gives the same hash: threefold repetition needs exactly
//! that.

use super::hex::{CELLS, Cell};
use super::piece::{Color, Piece};

/// Key xored in when Black is to move.
pub const BLACK_TO_MOVE: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function: a bijective mix with good avalanche.
#[inline(always)]
const fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The key of `piece` standing at `height` (0 = on the ground) in `cell`: a strong 64-bit mix
/// of (colour, bug, cell, height). Ground keys, nearly all of those a game uses, come from a
/// table built at compile time (the cells of one hive are few, so the entries in use stay in
/// the cache); keys of stacked pieces are computed.
#[inline(always)]
pub fn piece_key(piece: Piece, cell: Cell, height: u32) -> u64 {
    let kind = kind(piece);
    if height == 0 {
        GROUND[kind][cell.index()]
    } else {
        key(kind, cell.index(), height)
    }
}

/// Colour and bug as one number below 16.
#[inline(always)]
fn kind(piece: Piece) -> usize {
    (piece.color() as usize) << 3 | piece.bug() as usize
}

/// The key of a piece of `kind` at `height` in cell number `cell`.
#[inline(always)]
const fn key(kind: usize, cell: usize, height: u32) -> u64 {
    // A stack holds at most 7 pieces, so the height fits in three bits.
    let x = (kind as u64) << 16 | (cell as u64) << 3 | height as u64;
    mix(x ^ 0x5741_4747_4C45)
}

/// The keys of ground pieces, by kind and cell.
static GROUND: [[u64; CELLS]; 16] = {
    let mut t = [[0u64; CELLS]; 16];
    let mut kind = 0;
    while kind < 16 {
        let mut cell = 0;
        while cell < CELLS {
            t[kind][cell] = key(kind, cell, 0);
            cell += 1;
        }
        kind += 1;
    }
    t
};

/// The key for the side to move.
#[inline(always)]
pub const fn side_key(color: Color) -> u64 {
    match color {
        Color::White => 0,
        Color::Black => BLACK_TO_MOVE,
    }
}
