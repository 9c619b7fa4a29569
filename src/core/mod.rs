//! The rules of Hive: no I/O, only positions and moves.
//!
//! `docs/rules.md` states the rules as implemented here.

pub mod board;
mod cell_set;
pub mod error;
pub mod game;
pub mod game_type;
pub mod hex;
pub mod move_list;
pub mod movegen;
pub mod mv;
pub mod perft;
pub mod piece;
mod validate;
pub mod zobrist;

pub use board::Board;
pub use error::RuleError;
pub use game::{Game, GameState};
pub use game_type::GameType;
pub use hex::{Cell, Direction};
pub use move_list::MoveList;
pub use mv::Move;
pub use piece::{Bug, Color, Piece};
