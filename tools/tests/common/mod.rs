//! Helpers shared by the integration tests: temporary directories, running the binaries, and
//! checking a match's output files against waggle's rules.

#![allow(dead_code)] // each test file uses its own subset

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use waggle::core::GameState;
use waggle::notation::{game_string, parse_game_string};
use waggle_tools::arena::record::{GameRecord, parse_results};
use waggle_tools::pgn::parse_pgn;

/// The test engine binary.
pub fn test_engine() -> &'static str {
    env!("CARGO_BIN_EXE_test-engine")
}

/// The `waggle` binary next to this package's binaries (built by `cargo build`), if present.
pub fn waggle_binary() -> PathBuf {
    let path = Path::new(env!("CARGO_BIN_EXE_arena")).with_file_name("waggle");
    assert!(
        path.exists(),
        "{} not found: build it first (cargo build --release -p waggle, or without \
         --release for a debug test run)",
        path.display()
    );
    path
}

/// A fresh, empty directory for one test.
pub fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs a binary with arguments and returns its output.
pub fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin).args(args).output().unwrap()
}

/// Runs the arena; panics with its output when it fails.
pub fn arena(args: &[&str]) -> Output {
    let out = run(env!("CARGO_BIN_EXE_arena"), args);
    assert!(
        out.status.success(),
        "arena failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Reads `dir/results.tsv`.
pub fn records(dir: &Path) -> Vec<GameRecord> {
    let text = std::fs::read_to_string(dir.join("results.tsv")).unwrap();
    parse_results(&text, "results.tsv").unwrap().records
}

/// Checks a finished match in `dir` played between `names` (engine order) with
/// `openings` openings and the given number of pairings:
/// - every scheduled game is there once, the two games of each pair swap colours;
/// - games.txt and every PGN replay legally with waggle's rules to the recorded game;
/// - a game ended by the rules has the board's result, others are wins by forfeit or draws
///   by adjudication;
/// - per engine, wins + draws + losses equals its games, and the table printed on standard
///   output agrees.
///
/// Returns the records.
pub fn check_match(dir: &Path, stdout: &str, names: &[&str], games: usize) -> Vec<GameRecord> {
    let recs = records(dir);
    assert_eq!(recs.len(), games, "games recorded");
    let mut ids: Vec<usize> = recs.iter().map(|r| r.id).collect();
    ids.sort();
    assert_eq!(ids, (0..games).collect::<Vec<_>>());
    let mut pairs: BTreeMap<usize, Vec<&GameRecord>> = BTreeMap::new();
    for r in &recs {
        pairs.entry(r.pair).or_default().push(r);
    }
    assert_eq!(pairs.len(), games / 2);
    for p in pairs.values() {
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].white, p[1].black);
        assert_eq!(p[0].black, p[1].white);
        assert_eq!(p[0].opening, p[1].opening);
    }
    let games_txt = std::fs::read_to_string(dir.join("games.txt")).unwrap();
    assert_eq!(games_txt.lines().count(), games);
    for line in games_txt.lines() {
        let g = parse_game_string(line, true).unwrap();
        assert_eq!(game_string(&g), line);
    }
    let mut wdl: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    for r in &recs {
        assert!(
            games_txt.lines().any(|l| l == r.game_string),
            "games.txt lacks game {}",
            r.id
        );
        let pgn_path = dir.join(format!("pgn/game-{:06}.pgn", r.id));
        let pgn = parse_pgn(&std::fs::read_to_string(&pgn_path).unwrap(), true).unwrap();
        assert_eq!(
            game_string(&pgn.game),
            r.game_string,
            "PGN of game {}",
            r.id
        );
        assert_eq!(pgn.game.ply(), r.plies);
        assert_eq!(pgn.result, Some(r.result));
        assert_eq!(pgn.tag("White"), Some(r.white.as_str()));
        assert_eq!(pgn.tag("Black"), Some(r.black.as_str()));
        let by_rules = matches!(
            r.termination.as_str(),
            "queen-surrounded" | "both-queens" | "repetition"
        );
        if by_rules {
            assert_eq!(
                pgn.game.state(),
                r.result,
                "game {} ended by the rules",
                r.id
            );
        } else {
            assert_eq!(pgn.game.state(), GameState::InProgress, "game {}", r.id);
        }
        let (w, b) = match r.result {
            GameState::WhiteWins => (0, 2),
            GameState::BlackWins => (2, 0),
            _ => (1, 1),
        };
        wdl.entry(r.white.as_str()).or_default()[w] += 1;
        wdl.entry(r.black.as_str()).or_default()[b] += 1;
    }
    let total_games: usize = wdl.values().map(|c| c.iter().sum::<usize>()).sum();
    assert_eq!(total_games, 2 * games, "each game counts for both players");
    let wins: usize = wdl.values().map(|c| c[0]).sum();
    let losses: usize = wdl.values().map(|c| c[2]).sum();
    assert_eq!(wins, losses);
    for name in names {
        assert!(wdl.contains_key(name), "{name} played no game");
    }
    // The first engine's row of the printed table agrees (gauntlet: it plays every game).
    if names.len() == 2 {
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(names[0]))
            .unwrap_or_else(|| panic!("no table row for {} in\n{stdout}", names[0]));
        let cells: Vec<&str> = row.split_whitespace().collect();
        let [w, d, l] = wdl[names[0]];
        assert_eq!(
            cells[2..6],
            [
                games.to_string(),
                w.to_string(),
                d.to_string(),
                l.to_string()
            ],
            "{row}"
        );
    }
    recs
}

/// Parses an HTML report as XML and checks that it has exactly the sections `ids`, in order,
/// each with one chart (`<svg>`) drawing something. Returns the page.
pub fn check_html(path: &Path, ids: &[&str]) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse_with_options(
        &text,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{} is not well-formed: {e}", path.display()));
    let sections: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("section"))
        .collect();
    let found: Vec<&str> = sections
        .iter()
        .map(|s| s.attribute("id").unwrap_or(""))
        .collect();
    assert_eq!(found, ids, "{}", path.display());
    for s in &sections {
        let charts: Vec<roxmltree::Node> =
            s.descendants().filter(|n| n.has_tag_name("svg")).collect();
        assert_eq!(charts.len(), 1, "section {:?}", s.attribute("id"));
        let marks = charts[0]
            .descendants()
            .filter(|n| {
                ["polyline", "polygon", "rect"]
                    .iter()
                    .any(|t| n.has_tag_name(*t))
            })
            .count();
        assert!(marks > 1, "empty chart in section {:?}", s.attribute("id"));
    }
    assert_eq!(
        doc.descendants().filter(|n| n.has_tag_name("svg")).count(),
        ids.len()
    );
    text
}
