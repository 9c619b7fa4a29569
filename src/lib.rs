//! waggle: a Hive engine. The rules live in [`core`], UHP text in [`notation`], the protocol
//! server in [`uhp`].

pub mod core;
pub mod eval;
pub mod notation;
pub mod search;
pub mod uhp;
