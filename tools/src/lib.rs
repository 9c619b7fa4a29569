//! Tools around UHP engines: an arena that plays matches between engines with proper
//! statistics (and tunes an engine's parameters by SPSA), and a differ that checks another
//! engine's move generation against waggle's.
//!
//! Every rule question (is this move legal, is the game over) is answered by the `waggle`
//! library itself.

pub mod arena;
pub mod diff;
pub mod error;
pub mod openings;
pub mod pgn;
pub mod process;
pub mod spsa;
pub mod stats;

pub use error::ToolError;
