//! Fuzzing the UHP server in memory with real commands, damaged commands, garbage bytes, very
//! long lines and invalid UTF-8. Every reply must end with `ok`, a failure must be a single
//! `err`/`invalidmove` line, and a failed command must leave the game and the options unchanged.
//!
//! The normal run feeds 100,000 lines; the ignored `long_fuzz` feeds `WAGGLE_FUZZ_CASES` lines
//! (default 2,000,000) from seed `WAGGLE_FUZZ_SEED`.

mod common;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::cell::RefCell;
use std::io::{Cursor, Write};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use waggle::core::{Game, Move};
use waggle::notation::{format_move, game_string};
use waggle::uhp::Server;

/// An output buffer the test can read and clear while the server owns a handle to it.
#[derive(Clone, Default)]
struct SharedBuf(Rc<RefCell<Vec<u8>>>);

impl Write for SharedBuf {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Finished games and special positions to load, besides the shared mid-game positions.
const SPECIAL_GAMES: [&str; 4] = [
    // White wins (Black surrounded its own Queen).
    "Base;InProgress;;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wS2 -wQ;bS2 bQ-;wB1 -wS2;bB1 bQ/;wB2 -wB1;bB2 \\bQ;wG1 -wB2;bG1 bQ\\;wG2 -wG1;bG2 /bQ",
    // Draw by threefold repetition (or still in progress with the option off).
    "Base;InProgress;;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wQ \\wS1;bQ bS1/;wQ -wS1;bQ bS1-;wQ \\wS1;bQ bS1/;wQ -wS1;bQ bS1-",
    // Black has only a pass.
    "Base+L;InProgress;;wL;bL -wL;wA1 wL-;bA1 -bL;wQ \\wA1;bQ \\bL;wA1 /bA1;bA2 -bQ;wA2 wQ\\;bA2 wQ/;wA2 \\bA2;bA3 bQ/;wA2 \\bA3;bA2 wA2/;wA3 wQ\\;bA2 wA3\\;wS1 wQ/;bA2 -bQ;wA3 -bA2",
    "Base+MLP;InProgress;;wS1;bG1 -wS1",
];

const GAME_TYPES: [&str; 9] = [
    "Base", "Base+M", "Base+L", "Base+P", "Base+ML", "Base+MP", "Base+LP", "Base+MLP", "base+plm",
];

const OPTION_SETS: [&str; 12] = [
    "MaxHelperThreads 0",
    "MaxHelperThreads 1",
    "TranspositionTableSizeMB 1",
    "TranspositionTableSizeMB 4",
    "SearchAlgorithm AlphaBeta",
    "SearchAlgorithm MCTS",
    "ReportIntermediateBestMoves True",
    "ReportIntermediateBestMoves false",
    "ThreefoldRepetitionDraw False",
    "ThreefoldRepetitionDraw TRUE",
    "maxhelperthreads 0",
    "Ponder True",
];

const WORDS: [&str; 32] = [
    "newgame",
    "play",
    "pass",
    "validmoves",
    "bestmove",
    "undo",
    "options",
    "get",
    "set",
    "info",
    "help",
    "board",
    "perft",
    "exit",
    "time",
    "depth",
    "Base",
    "Base+MLP",
    ";",
    "wQ",
    "bS1",
    "wA3",
    "-wQ",
    "bG2/",
    "\\wB1",
    "pass",
    "00:00:00.01",
    "1",
    "-1",
    "99999999999999999999",
    "InProgress",
    "White[3]",
];

/// Bytes that stress parsing: separators, marks, controls, invalid UTF-8, Unicode oddities.
const NASTY: [&[u8]; 16] = [
    b" ",
    b";",
    b"-",
    b"/",
    b"\\",
    b"\t",
    b"\r",
    b"\x00",
    b"\x1b",
    b"\xff",
    b"\xc3",
    b"\xe2\x80\xa8",
    "é".as_bytes(),
    "\u{feff}".as_bytes(),
    "\u{85}".as_bytes(),
    b"0",
];

struct Fuzzer {
    rng: StdRng,
    positions: Vec<String>,
}

impl Fuzzer {
    fn new(seed: u64) -> Fuzzer {
        let mut positions = common::perft_positions();
        positions.extend(SPECIAL_GAMES.iter().map(|s| s.to_string()));
        Fuzzer {
            rng: StdRng::seed_from_u64(seed),
            positions,
        }
    }

    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.rng.gen_range(0..items.len())]
    }

    /// A well-formed command, often one that succeeds in the current game.
    fn real_command(&mut self, game: Option<&Game>) -> String {
        match self.rng.gen_range(0..100) {
            0..=9 => {
                let i = self.rng.gen_range(0..self.positions.len());
                let gs = self.positions[i].clone();
                // Web bots empty the turn field; sometimes cut the game short.
                let mut fields: Vec<&str> = gs.split(';').collect();
                if self.rng.gen_bool(0.5) && fields.len() > 2 {
                    fields[2] = "";
                }
                if self.rng.gen_bool(0.3) && fields.len() > 3 {
                    let keep = self.rng.gen_range(3..=fields.len());
                    fields.truncate(keep);
                }
                format!("newgame {}", fields.join(";"))
            }
            10..=13 => format!("newgame {}", self.pick(&GAME_TYPES)),
            14 => "newgame".to_string(),
            15..=44 => match game {
                Some(g) if !g.state().is_over() => {
                    let moves = g.legal_moves();
                    let m = moves.as_slice().choose(&mut self.rng).copied();
                    format!("play {}", format_move(g, m.unwrap_or(Move::PASS)))
                }
                _ => format!(
                    "play {} {}",
                    self.pick(&WORDS[19..24]),
                    self.pick(&WORDS[19..24])
                ),
            },
            45..=47 => "pass".to_string(),
            48..=55 => "validmoves".to_string(),
            56..=62 => match self.rng.gen_range(0..3) {
                0 => "undo".to_string(),
                _ => format!("undo {}", self.rng.gen_range(0..5)),
            },
            63 => "bestmove depth 1".to_string(),
            64 => "bestmove time 00:00:00.002".to_string(),
            65..=74 => format!("options set {}", self.pick(&OPTION_SETS)),
            75..=77 => "options".to_string(),
            78..=79 => format!(
                "options get {}",
                self.pick(&["MaxHelperThreads", "ThreefoldRepetitionDraw", "Hash"])
            ),
            80..=84 => "board".to_string(),
            85..=86 => format!("perft {}", self.rng.gen_range(1..=2)),
            87..=89 => "info".to_string(),
            90..=92 => format!("help {}", self.pick(&["", "play", "options", "perft", "x"])),
            93 => "exit".to_string(),
            _ => {
                let n = self.rng.gen_range(1..6);
                (0..n)
                    .map(|_| self.pick(&WORDS))
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        }
    }

    /// Damages a line: deletions, insertions of nasty bytes, duplications, case flips.
    fn mutate(&mut self, line: &mut Vec<u8>) {
        for _ in 0..self.rng.gen_range(1..=4) {
            let len = line.len();
            match self.rng.gen_range(0..7) {
                0 if len > 0 => {
                    let a = self.rng.gen_range(0..len);
                    let b = self.rng.gen_range(a..=len.min(a + 4));
                    line.drain(a..b);
                }
                1 => {
                    let at = self.rng.gen_range(0..=len);
                    let nasty = NASTY[self.rng.gen_range(0..NASTY.len())];
                    line.splice(at..at, nasty.iter().copied());
                }
                2 => {
                    let at = self.rng.gen_range(0..=len);
                    let b: u8 = self.rng.r#gen();
                    line.insert(at, b);
                }
                3 if len > 0 => {
                    let a = self.rng.gen_range(0..len);
                    let b = self.rng.gen_range(a..=len);
                    let copy = line[a..b].to_vec();
                    line.splice(b..b, copy);
                }
                4 if len > 0 => {
                    let at = self.rng.gen_range(0..len);
                    line[at] = if line[at].is_ascii_lowercase() {
                        line[at].to_ascii_uppercase()
                    } else {
                        line[at].to_ascii_lowercase()
                    };
                }
                5 if len > 0 => line.truncate(self.rng.gen_range(0..len)),
                _ => {
                    let at = self.rng.gen_range(0..=len);
                    let word = self.pick(&WORDS).as_bytes().to_vec();
                    line.splice(at..at, word);
                }
            }
        }
    }

    /// One input line (without its newline).
    fn line(&mut self, game: Option<&Game>) -> Vec<u8> {
        match self.rng.gen_range(0..1000) {
            0..=449 => self.real_command(game).into_bytes(),
            450..=849 => {
                let mut line = self.real_command(game).into_bytes();
                self.mutate(&mut line);
                line
            }
            850..=969 => {
                let n = self.rng.gen_range(0..48);
                (0..n).map(|_| self.rng.r#gen::<u8>()).collect()
            }
            970..=994 => {
                let n = self.rng.gen_range(0..4);
                let mut line: Vec<u8> = b" \t\r".repeat(n);
                if self.rng.gen_bool(0.3) {
                    line.extend("\u{feff}".as_bytes());
                }
                line
            }
            _ => {
                // A very long line: a command followed by a flood of text.
                let mut line = self.real_command(game).into_bytes();
                let n = self.rng.gen_range(1_000..100_000);
                let fill = NASTY[self.rng.gen_range(0..NASTY.len())];
                for _ in 0..n / fill.len().max(1) {
                    line.extend_from_slice(fill);
                }
                line
            }
        }
    }
}

/// Whether a line would start a slow search or count (a damaged `bestmove depth 1` can become
/// `bestmove depth 19`); such lines are skipped, and options that would make the search slow
/// (huge tables, many threads) are not set.
fn too_slow(line: &str) -> bool {
    let normal = waggle::uhp::sanitize(line);
    let words: Vec<&str> = normal.split_whitespace().collect();
    let is = |i: usize, w: &str| words.get(i).is_some_and(|x| x.eq_ignore_ascii_case(w));
    if is(0, "bestmove") && words.len() == 3 {
        if is(1, "depth") {
            return words[2].parse::<u32>().is_ok_and(|d| d > 1);
        }
        if is(1, "time") {
            let parts: Vec<&str> = words[2].split(':').collect();
            if parts.len() != 3 {
                return false;
            }
            let secs = |p: &str| p.parse::<f64>().unwrap_or(0.0);
            let total = secs(parts[0]) * 3600.0 + secs(parts[1]) * 60.0 + secs(parts[2]);
            return total >= 0.01;
        }
    }
    if is(0, "perft") && words.len() == 2 {
        return words[1].parse::<u32>().is_ok_and(|d| d > 2);
    }
    if is(0, "options") && is(1, "set") && words.len() == 4 {
        let value = words[3].parse::<i64>();
        if is(2, "TranspositionTableSizeMB") {
            return value.is_ok_and(|v| v > 4);
        }
        if is(2, "MaxHelperThreads") {
            return value.is_ok_and(|v| v > 1);
        }
    }
    false
}

/// What a failed command must leave as it was.
#[derive(PartialEq, Debug)]
struct Snapshot {
    game: Option<String>,
    options: Vec<String>,
}

fn snapshot(server: &Server<SharedBuf>) -> Snapshot {
    Snapshot {
        game: server.game().map(game_string),
        options: server.option_lines(),
    }
}

#[derive(Default, Debug)]
struct Stats {
    lines: usize,
    skipped: usize,
    silent: usize,
    ok: usize,
    err: usize,
    invalidmove: usize,
    long_lines: usize,
    invalid_utf8: usize,
    finished_games: usize,
}

/// Feeds `cases` lines to one server and checks every reply.
fn fuzz(seed: u64, cases: usize) -> Stats {
    let mut fuzzer = Fuzzer::new(seed);
    let out = SharedBuf::default();
    let mut server = Server::new(out.clone(), Arc::new(AtomicBool::new(false)));
    let mut stats = Stats::default();
    // Small tables: `newgame` may clear them thousands of times.
    server
        .handle_line("options set TranspositionTableSizeMB 1")
        .unwrap();
    while stats.lines < cases {
        let mut bytes = fuzzer.line(server.game());
        // `run` splits the input at newlines; a line never contains one.
        bytes.retain(|&b| b != b'\n');
        if std::str::from_utf8(&bytes).is_err() {
            stats.invalid_utf8 += 1;
        }
        let line = String::from_utf8_lossy(&bytes).into_owned();
        if too_slow(&line) {
            stats.skipped += 1;
            continue;
        }
        stats.lines += 1;
        if line.len() > 1000 {
            stats.long_lines += 1;
        }
        let before = snapshot(&server);
        out.0.borrow_mut().clear();
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| server.handle_line(&line)));
        let context = || format!("seed {seed}, line {}: {:?}", stats.lines, line);
        let flow = result.unwrap_or_else(|_| panic!("panic on {}", context()));
        flow.unwrap_or_else(|e| panic!("I/O error {e} on {}", context()));
        let reply = String::from_utf8(out.0.borrow().clone())
            .unwrap_or_else(|_| panic!("non-UTF-8 reply to {}", context()));
        let lines: Vec<&str> = reply.lines().collect();
        if waggle::uhp::sanitize(&line).trim().is_empty() {
            assert!(reply.is_empty(), "blank {} got {reply:?}", context());
            stats.silent += 1;
            continue;
        }
        assert!(reply.ends_with("ok\n"), "{}: {reply:?}", context());
        assert!(
            lines[..lines.len() - 1]
                .iter()
                .all(|l| !l.is_empty() && *l != "ok"),
            "{}: {reply:?}",
            context()
        );
        let failed = lines[0].starts_with("err ") || lines[0].starts_with("invalidmove ");
        if failed {
            assert_eq!(lines.len(), 2, "{}: {reply:?}", context());
            assert_eq!(snapshot(&server), before, "{} changed state", context());
            if lines[0].starts_with("err ") {
                stats.err += 1;
            } else {
                stats.invalidmove += 1;
            }
        } else {
            // MzingaViewer treats any line starting with `err`/`invalidmove` as a failure.
            assert!(
                lines
                    .iter()
                    .all(|l| !l.starts_with("err") && !l.starts_with("invalidmove")),
                "{}: {reply:?}",
                context()
            );
            stats.ok += 1;
        }
        if server.game().is_some_and(|g| g.state().is_over()) {
            stats.finished_games += 1;
        }
    }
    stats
}

#[test]
fn fuzz_100k_lines() {
    let stats = fuzz(0x5eed_0001, 100_000);
    eprintln!("{stats:?}");
    // The generator must really reach every kind of reply, or the fuzz proves little.
    assert!(stats.ok > 20_000, "{stats:?}");
    assert!(stats.err > 20_000, "{stats:?}");
    assert!(stats.invalidmove > 1_000, "{stats:?}");
    assert!(stats.silent > 500, "{stats:?}");
    assert!(stats.long_lines > 100, "{stats:?}");
    assert!(stats.invalid_utf8 > 5_000, "{stats:?}");
    assert!(stats.finished_games > 100, "{stats:?}");
    assert!(stats.skipped < stats.lines / 20, "{stats:?}");
}

/// Whole random byte streams through `Server::run`, as the binary reads standard input.
#[test]
fn fuzz_input_streams() {
    let mut fuzzer = Fuzzer::new(0x5eed_0002);
    for _ in 0..300 {
        let mut input = Vec::new();
        for _ in 0..fuzzer.rng.gen_range(0..30) {
            let bytes = fuzzer.line(None);
            if too_slow(&String::from_utf8_lossy(&bytes)) {
                continue;
            }
            input.extend(bytes);
            input.push(if fuzzer.rng.gen_bool(0.9) {
                b'\n'
            } else {
                b'\r'
            });
        }
        let out = SharedBuf::default();
        let mut server = Server::new(out.clone(), Arc::new(AtomicBool::new(false)));
        server.run(Cursor::new(input.clone())).expect("memory I/O");
        let reply = String::from_utf8(out.0.borrow().clone()).expect("UTF-8 output");
        assert!(reply.ends_with("ok\n"), "{input:?}: {reply:?}");
        let lines: Vec<&str> = reply.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            assert!(!l.is_empty(), "{input:?}: {reply:?}");
            if l.starts_with("err ") || l.starts_with("invalidmove ") {
                assert_eq!(lines.get(i + 1), Some(&"ok"), "{input:?}: {reply:?}");
            }
        }
    }
}

/// The long run: `WAGGLE_FUZZ_CASES=5000000 WAGGLE_FUZZ_SEED=7 cargo test --release --test
/// uhp_fuzz -- --ignored`.
#[test]
#[ignore]
fn long_fuzz() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(default)
    };
    let cases = env("WAGGLE_FUZZ_CASES", 2_000_000) as usize;
    let seed = env("WAGGLE_FUZZ_SEED", 1);
    let stats = fuzz(seed, cases);
    eprintln!("{stats:?}");
}
