//! waggle: a Hive engine. The rules live in [`core`], UHP text in [`notation`], the protocol
//! server in [`uhp`], pictures of positions in [`svg`], learning the evaluation from self-play
//! in [`learn`].

pub mod core;
pub mod eval;
pub mod learn;
pub mod notation;
pub mod search;
pub mod svg;
pub mod uhp;
