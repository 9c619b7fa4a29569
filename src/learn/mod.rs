//! Learning the evaluation from self-play: [`datagen`] plays games of the engine against itself
//! and keeps quiet positions with the search's score and the game's result ([`data`] is their
//! line format); [`texel`] fits [`EvalWeights`](crate::eval::EvalWeights) to those results by
//! logistic regression, and [`net`] fits a small network that corrects them. The binary's
//! `datagen`, `tune` and `tune-net` commands drive them.

pub mod data;
pub mod datagen;
pub mod net;
pub mod texel;
