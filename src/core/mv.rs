//! A move: which piece goes to which cell, or a pass.

use super::hex::Cell;
use super::piece::Piece;

const PASS: u8 = u8::MAX;

/// A move as the rules see it: a piece and its destination cell (placement and movement alike;
/// which one it is follows from whether the piece is in hand), or a pass. Two paths to the same
/// cell are one move, so this is also the identity used to compare moves between engines.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    piece: u8,
    to: Cell,
}

impl Move {
    /// The pass move.
    pub const PASS: Move = Move {
        piece: PASS,
        to: Cell::ORIGIN,
    };

    /// `piece` goes to `to`.
    #[inline(always)]
    pub const fn new(piece: Piece, to: Cell) -> Move {
        Move {
            piece: piece.id() as u8,
            to,
        }
    }

    /// Whether this is a pass.
    #[inline(always)]
    pub const fn is_pass(self) -> bool {
        self.piece == PASS
    }

    /// The moving piece, `None` for a pass.
    #[inline(always)]
    pub const fn piece(self) -> Option<Piece> {
        Piece::from_id(self.piece as usize)
    }

    /// The destination cell (meaningless for a pass).
    #[inline(always)]
    pub const fn to(self) -> Cell {
        self.to
    }
}

impl std::fmt::Debug for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.piece() {
            None => f.write_str("pass"),
            Some(p) => write!(f, "{p}@{:?}", self.to),
        }
    }
}
