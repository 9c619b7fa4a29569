//! Helpers shared by the integration tests: reading the test data of `engine-tests/data/`, and a
//! plain connectivity check of cells.

#![allow(dead_code)]

use std::collections::HashSet;
use std::path::PathBuf;
use waggle::core::Cell;

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
