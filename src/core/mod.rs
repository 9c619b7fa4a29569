//! The rules of Hive: no I/O, only positions and moves. `docs/rules.md` states the rules as
//! implemented.
//!
//! This module is the rules' one front door: everything other modules may use is re-exported
//! here, and the submodules are private.
//!
//! - Geometry: [`Cell`] (a cell of the wrapping hex grid) and [`Direction`].
//! - Pieces: [`Color`], [`Bug`], [`Piece`], sets of pieces ([`PieceSet`]), and the
//!   [`GameType`] that says which bugs take part.
//! - The position: [`Board`] (stacks of pieces, with read-only accessors and the Zobrist hash)
//!   and [`Game`] (the board, the side to move, the history; `play`, `undo`, the result).
//! - Moves: [`Move`], [`MoveList`], and [`MoveGen`] (legal move generation, with its scratch
//!   held by the caller); checked play reports a [`RuleError`].
//! - The hive's shape: [`topology`] (neighbour masks, slides, the pinned pieces).
//! - [`perft`]: counting move sequences.

mod board;
mod cell_set;
mod error;
mod game;
mod game_type;
mod hex;
mod move_list;
mod movegen;
mod mv;
pub mod perft;
mod piece;
mod piece_set;
pub mod topology;
mod validate;
mod zobrist;

pub use board::Board;
pub use error::RuleError;
pub use game::{Game, GameState};
pub use game_type::GameType;
pub use hex::{CELLS, Cell, Direction};
pub use move_list::{MAX_MOVES, MoveList};
pub use movegen::MoveGen;
pub use mv::Move;
pub use piece::{Bug, Color, PIECE_COUNT, PIECES_PER_COLOR, Piece};
pub use piece_set::{PieceSet, PieceSetIter};
