//! The Universal Hive Protocol server: the engine's front door.
//!
//! [`Server`] keeps one game (none before the first `newgame`), one search [`Engine`] and the
//! options, and answers one command line at a time. It is generic over its output, and
//! [`Server::run`] over its input, so tests drive it in memory while [`run_stdio`] drives it over
//! standard input and output with SIGINT wired to the search's stop flag, reading the input on a
//! thread of its own ([`Server::run_pondering`]) so that it can search while idle
//! (`PonderDuringIdle`).
//!
//! Framing, as `docs/protocol.md` describes it: every reply ends with a line `ok`; a failure is a
//! single line `err <message>` or `invalidmove <message>` before it, and changes nothing.
//!
//! [`Engine`]: crate::search::Engine

// Bad input must get an answer, never a crash: no unwrap, expect or panic outside the tests.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod board_view;
mod input;
mod options;
mod server;
mod stdio;

pub use input::{MAX_LINE_BYTES, sanitize};
pub use server::{Flow, Server};
pub use stdio::run_stdio;
