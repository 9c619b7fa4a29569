//! The arena: matches between UHP engines.
//!
//! The schedule is deterministic: for every opening, in order, and for every pairing of the
//! mode (gauntlet: the first engine against each other one; round robin: every two engines),
//! a *game pair* is played, the first engine of the pairing White in the first game and Black
//! in the second. Games and pairs are numbered in that order, so shards (`--shard i/n` plays
//! the pairs whose number is `i-1` modulo `n`) and merged result files agree on them.

pub mod game;
pub mod html;
pub mod progress;
pub mod record;
pub mod report;
pub mod runner;

use crate::error::ToolError;
use std::fmt;

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The first engine against every other one.
    Gauntlet,
    /// Every engine against every other one.
    RoundRobin,
}

impl Mode {
    /// The name used in result files.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Gauntlet => "gauntlet",
            Mode::RoundRobin => "round-robin",
        }
    }

    /// Parses [`Mode::name`].
    pub fn parse(s: &str) -> Option<Mode> {
        match s.trim() {
            "gauntlet" => Some(Mode::Gauntlet),
            "round-robin" => Some(Mode::RoundRobin),
            _ => None,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSpec {
    /// Game number in the whole schedule (0-based).
    pub id: usize,
    /// Number of its game pair in the whole schedule (0-based).
    pub pair: usize,
    /// Index of its opening.
    pub opening: usize,
    /// Engine index playing White.
    pub white: usize,
    /// Engine index playing Black.
    pub black: usize,
}

/// The pairings of `engines` engines: (first, second) with first < second.
pub fn pairings(engines: usize, mode: Mode) -> Vec<(usize, usize)> {
    match mode {
        Mode::Gauntlet => (1..engines).map(|j| (0, j)).collect(),
        Mode::RoundRobin => (0..engines)
            .flat_map(|i| (i + 1..engines).map(move |j| (i, j)))
            .collect(),
    }
}

/// The whole schedule: `openings` x pairings x two colours.
pub fn schedule(engines: usize, mode: Mode, openings: usize) -> Vec<GameSpec> {
    let pairs = pairings(engines, mode);
    let mut out = Vec::with_capacity(openings * pairs.len() * 2);
    let mut pair = 0;
    for opening in 0..openings {
        for &(a, b) in &pairs {
            for (white, black) in [(a, b), (b, a)] {
                out.push(GameSpec {
                    id: out.len(),
                    pair,
                    opening,
                    white,
                    black,
                });
            }
            pair += 1;
        }
    }
    out
}

/// A part of a schedule: shard `index` (0-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which part, from 0.
    pub index: usize,
    /// How many parts.
    pub count: usize,
}

impl Shard {
    /// Parses `i/n` with 1 <= i <= n (1-based, as typed on the command line).
    pub fn parse(s: &str) -> Result<Shard, ToolError> {
        let bad = || ToolError::Config(format!("bad shard '{s}': expected i/n with 1 <= i <= n"));
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i: usize = i.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if i == 0 || i > n {
            return Err(bad());
        }
        Ok(Shard {
            index: i - 1,
            count: n,
        })
    }

    /// Whether game `spec` belongs to this shard (whole pairs go to one shard).
    pub fn contains(&self, spec: &GameSpec) -> bool {
        spec.pair % self.count == self.index
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_pair_colours_and_number_games() {
        let s = schedule(3, Mode::RoundRobin, 2);
        assert_eq!(s.len(), 2 * 3 * 2);
        for (i, g) in s.iter().enumerate() {
            assert_eq!(g.id, i);
            assert_eq!(g.pair, i / 2);
            assert_ne!(g.white, g.black);
        }
        // The two games of a pair swap colours.
        assert_eq!((s[0].white, s[0].black), (0, 1));
        assert_eq!((s[1].white, s[1].black), (1, 0));
        assert_eq!((s[4].white, s[4].black), (1, 2));
        assert_eq!(s[6].opening, 1);
        let g = schedule(4, Mode::Gauntlet, 5);
        assert_eq!(g.len(), 5 * 3 * 2);
        assert!(g.iter().all(|x| x.white == 0 || x.black == 0));
    }

    #[test]
    fn shards_split_by_pairs_and_cover_everything() {
        let s = schedule(2, Mode::Gauntlet, 7);
        let shards: Vec<Shard> = (1..=3)
            .map(|i| Shard::parse(&format!("{i}/3")).unwrap())
            .collect();
        for g in &s {
            assert_eq!(shards.iter().filter(|sh| sh.contains(g)).count(), 1);
        }
        let first: Vec<_> = s.iter().filter(|g| shards[0].contains(g)).collect();
        assert_eq!(first.len(), 6); // pairs 0, 3, 6
        assert!(Shard::parse("0/3").is_err());
        assert!(Shard::parse("4/3").is_err());
        assert!(Shard::parse("x").is_err());
        assert_eq!(Shard::parse("2/5").unwrap().to_string(), "2/5");
    }
}
