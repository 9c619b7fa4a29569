//! Helpers shared by the integration tests: reading the test data of `engine-tests/data/`, and a
//! plain connectivity check of cells.

#![allow(dead_code)]

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use waggle::core::Cell;
use waggle::uhp::Server;

/// Path of a file under `engine-tests/data/` (the test data from other engines, see its README).
pub fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("engine-tests/data")
        .join(rel)
}

/// A data line: its `#` comment group (the last comment above it) and its tab-separated fields.
pub struct Row {
    pub group: String,
    pub fields: Vec<String>,
}

/// Reads a Mzinga-style data file: UTF-8 with an optional BOM, `#` comments, TAB-separated.
pub fn read_rows(rel: &str) -> Vec<Row> {
    let path = data(rel);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut group = String::new();
    let mut rows = Vec::new();
    for line in text.trim_start_matches('\u{feff}').lines() {
        let line = line.trim_end_matches('\r');
        if let Some(comment) = line.strip_prefix('#') {
            group = comment.trim().to_string();
        } else if !line.trim().is_empty() {
            rows.push(Row {
                group: group.clone(),
                fields: line.split('\t').map(str::to_string).collect(),
            });
        }
    }
    rows
}

/// The distinct GameStrings of `perft-positions.tsv` (40 mid-game positions, 5 per game type),
/// in file order.
pub fn perft_positions() -> Vec<String> {
    let mut out: Vec<String> = read_rows("perft-positions.tsv")
        .into_iter()
        .map(|row| row.fields[0].clone())
        .collect();
    out.dedup();
    out
}

/// Whether `cells` form one group of neighbours (plain flood fill; true when empty).
pub fn is_connected(cells: &HashSet<Cell>) -> bool {
    let Some(&start) = cells.iter().next() else {
        return true;
    };
    let mut seen = HashSet::from([start]);
    let mut todo = vec![start];
    while let Some(c) = todo.pop() {
        for &n in c.neighbours() {
            if cells.contains(&n) && seen.insert(n) {
                todo.push(n);
            }
        }
    }
    seen.len() == cells.len()
}

/// A UHP server writing to memory, with its own stop flag.
pub fn server() -> Server<Vec<u8>> {
    Server::new(Vec::new(), Arc::new(AtomicBool::new(false)))
}

/// Sends one line and returns the reply lines (checked to end with `ok`, which is removed).
pub fn ask(server: &mut Server<Vec<u8>>, line: &str) -> Vec<String> {
    let start = server.output().len();
    server
        .handle_line(line)
        .expect("writing to memory cannot fail");
    let text = String::from_utf8(server.output()[start..].to_vec()).expect("UTF-8 output");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(lines.pop().as_deref(), Some("ok"), "{line}: {text}");
    lines
}
