//! Running the server on standard input and output, with SIGINT as the stop signal.

use super::server::Server;
use crate::search::SearchParams;
use std::io::{self, BufWriter};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Runs the UHP engine on standard input and output until `exit` or the end of input, after
/// applying `options` (name, value) as `options set` would, with the evaluation weights and
/// search parameters `params` (the defaults when `None`).
///
/// SIGINT raises the search's stop flag instead of killing the process: during `bestmove` the
/// engine answers at once with its best move so far; while idle (pondering or not) it is
/// ignored. Standard input is read on a thread of its own, so that a line stops pondering at
/// once. A host that
/// closes standard output is treated like one that closed standard input.
pub fn run_stdio(options: &[(String, String)], params: Option<SearchParams>) -> io::Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&stop)) {
        eprintln!("waggle: cannot catch SIGINT, so it cannot stop a search: {e}");
    }
    let stdin = io::BufReader::new(io::stdin());
    let stdout = BufWriter::new(io::stdout().lock());
    let mut server = Server::new(stdout, stop);
    if let Some(params) = params {
        server.set_search_params(params);
    }
    for (name, value) in options {
        server
            .set_option(name, value)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    }
    match server.run_pondering(stdin) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
