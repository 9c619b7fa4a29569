//! A tiny UHP engine built on waggle's rules, for testing hosts: it plays uniformly random
//! legal moves, and can misbehave on purpose.
//!
//! Modes (`--mode`):
//! - `random`: a correct engine that plays random legal moves (a "random mover" opponent);
//! - `crash`: exits with status 3 instead of answering its N-th `bestmove` of a game;
//! - `illegal`: answers its N-th `bestmove` of a game with a move the rules forbid;
//! - `hang`: never answers its N-th `bestmove` of a game;
//! - `malformed`: answers its N-th `bestmove` of a game with text that is not a move;
//! - `err`: answers its N-th `bestmove` of a game with `err`;
//! - `missing-move`: plays correctly but leaves one move out of every `validmoves` list that
//!   has at least two.
//!
//! N is `--after` (default 3). `--delay-ms` makes every `bestmove` wait that long first.
//!
//! Flags that stay within the protocol but differ from waggle's habits:
//! - `--whole-seconds`: refuses a `bestmove time` with a fraction of a second (answers
//!   `err UnrecognizedCommand("time 00:00:00.500")`, as some engines do), accepting only
//!   `hh:mm:ss`;
//! - `--quirky`: spells moves with another reference piece when there is one, lists
//!   `validmoves` in a shuffled order, and prints extra lines before its replies.
//!
//! With `--seed`, the move choice is seeded afresh at every `newgame` from the seed and the
//! `newgame` argument, so a game's moves depend only on its opening and its players, not on
//! the games the process played before.
//! Commands: `info`, `newgame [GameType|GameString]`, `play`, `pass`, `validmoves`,
//! `bestmove ...`, `undo [N]`, `options`, `perft N` (extension: prints `nodes=<count>`; off
//! with `--no-perft`), `exit`.

use clap::{Parser, ValueEnum};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::{BufRead, Write};
use std::time::Duration;
use waggle::core::perft::perft;
use waggle::core::{Cell, Game, Move, MoveGen, MoveList, Piece};
use waggle::notation::{format_move, game_string, parse_game_string, parse_move};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Mode {
    Random,
    Crash,
    Illegal,
    Hang,
    Malformed,
    Err,
    MissingMove,
}

/// A UHP test engine: random legal moves, or a chosen misbehaviour.
#[derive(Parser)]
#[command(name = "test-engine")]
struct Args {
    /// How to behave.
    #[arg(long, value_enum, default_value = "random")]
    mode: Mode,
    /// Which `bestmove` of each game misbehaves (1 = the first).
    #[arg(long, default_value_t = 3)]
    after: u32,
    /// Wait this long before answering each `bestmove`.
    #[arg(long, default_value_t = 0)]
    delay_ms: u64,
    /// Seed of the move choice (default: from the clock and process id).
    #[arg(long)]
    seed: Option<u64>,
    /// Answer `perft` with `err`, like an engine without the extension.
    #[arg(long)]
    no_perft: bool,
    /// Refuse `bestmove time` with fractions of a second.
    #[arg(long)]
    whole_seconds: bool,
    /// Other move spellings, shuffled `validmoves`, extra output lines.
    #[arg(long)]
    quirky: bool,
    /// Name in the `id` line.
    #[arg(long, default_value = "test-engine")]
    name: String,
}

struct Engine {
    args: Args,
    seed: u64,
    game: Option<Game>,
    rng: StdRng,
    /// `bestmove` commands since the last `newgame`.
    asked: u32,
    moves: MoveList,
    /// The move generator's scratch, kept between positions.
    movegen: MoveGen,
}

fn main() {
    let args = Args::parse();
    let seed = args.seed.unwrap_or_else(|| {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        t ^ (u64::from(std::process::id()) << 32)
    });
    let mut engine = Engine {
        args,
        seed,
        game: None,
        rng: StdRng::seed_from_u64(seed),
        asked: 0,
        moves: MoveList::new(),
        movegen: MoveGen::new(),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = write!(out, "{}", engine.info());
    let _ = writeln!(out, "ok");
    let _ = out.flush();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.eq_ignore_ascii_case("exit") {
            break;
        }
        let reply = engine.handle(line);
        let _ = write!(out, "{reply}");
        let _ = writeln!(out, "ok");
        let _ = out.flush();
    }
}

impl Engine {
    fn info(&self) -> String {
        format!("id {} 0.1\nMosquito;Ladybug;Pillbug\n", self.args.name)
    }

    /// The reply to one command, each line ended, without the final `ok`.
    fn handle(&mut self, line: &str) -> String {
        let (cmd, rest) = match line.split_once(char::is_whitespace) {
            Some((c, r)) => (c.to_ascii_lowercase(), r.trim()),
            None => (line.to_ascii_lowercase(), ""),
        };
        match cmd.as_str() {
            "info" => self.info(),
            "newgame" => self.newgame(rest),
            "play" => self.play(rest),
            "pass" => self.play("pass"),
            "validmoves" => self.validmoves(),
            "bestmove" => self.bestmove(rest),
            "undo" => self.undo(rest),
            "options" => String::new(),
            "perft" if !self.args.no_perft => self.perft(rest),
            _ => format!("err unknown command '{cmd}'\n"),
        }
    }

    fn newgame(&mut self, arg: &str) -> String {
        let text = if arg.is_empty() {
            "Base;NotStarted;White[1]".to_string()
        } else if arg.contains(';') {
            arg.to_string()
        } else {
            format!("{arg};NotStarted;White[1]")
        };
        match parse_game_string(&text, true) {
            Ok(g) => {
                let s = format!("{}{}\n", self.extra("new game"), game_string(&g));
                self.game = Some(g);
                self.asked = 0;
                if self.args.seed.is_some() {
                    self.rng = StdRng::seed_from_u64(self.seed ^ fnv1a(arg));
                }
                s
            }
            Err(e) => format!("err {e}\n"),
        }
    }

    fn play(&mut self, text: &str) -> String {
        let Some(game) = self.game.as_mut() else {
            return "err no game\n".into();
        };
        if game.state().is_over() {
            return "err the game is over\n".into();
        }
        match parse_move(game, text) {
            Ok(m) => match game.play(m) {
                Ok(()) => {
                    let extra = if self.args.quirky { "played it\n" } else { "" };
                    format!("{extra}{}\n", game_string(game))
                }
                Err(e) => format!("invalidmove {e}\n"),
            },
            Err(e) => format!("invalidmove {e}\n"),
        }
    }

    fn validmoves(&mut self) -> String {
        let Some(game) = self.game.as_mut() else {
            return "err no game\n".into();
        };
        if game.state().is_over() {
            return "err the game is over\n".into();
        }
        self.movegen.generate(game, &mut self.moves);
        let quirky = self.args.quirky;
        let mut list: Vec<String> = self
            .moves
            .iter()
            .map(|&m| {
                if quirky {
                    other_spelling(game, m)
                } else {
                    format_move(game, m)
                }
            })
            .collect();
        list.sort();
        if self.args.mode == Mode::MissingMove && list.len() >= 2 {
            list.pop();
        }
        if self.args.quirky {
            for i in (1..list.len()).rev() {
                list.swap(i, self.rng.gen_range(0..=i));
            }
        }
        format!("{}\n", list.join(";"))
    }

    /// An extra line before a reply, with `--quirky`.
    fn extra(&self, what: &str) -> String {
        if self.args.quirky {
            format!("note: {what}\n")
        } else {
            String::new()
        }
    }

    fn bestmove(&mut self, arg: &str) -> String {
        if self.args.whole_seconds
            && let Some(time) = arg.strip_prefix("time")
            && time.contains('.')
        {
            return format!("err UnrecognizedCommand(\"time {}\")\n", time.trim());
        }
        let quirky = self.args.quirky;
        let Some(game) = self.game.as_mut() else {
            return "err no game\n".into();
        };
        if game.state().is_over() {
            return "err the game is over\n".into();
        }
        if self.args.delay_ms > 0 {
            std::thread::sleep(Duration::from_millis(self.args.delay_ms));
        }
        self.asked += 1;
        let misbehave = self.asked == self.args.after;
        match self.args.mode {
            Mode::Crash if misbehave => {
                eprintln!("test-engine: crashing on purpose");
                std::process::exit(3);
            }
            Mode::Hang if misbehave => {
                eprintln!("test-engine: hanging on purpose");
                loop {
                    std::thread::sleep(Duration::from_secs(3600));
                }
            }
            Mode::Malformed if misbehave => return "this is not a move\n".into(),
            Mode::Err if misbehave => return "err refusing on purpose\n".into(),
            Mode::Illegal if misbehave => return format!("{}\n", illegal_move(game)),
            _ => {}
        }
        self.movegen.generate(game, &mut self.moves);
        if self.moves.is_empty() {
            return "err no legal move\n".into();
        }
        let m = self.moves[self.rng.gen_range(0..self.moves.len())];
        if quirky {
            // Mzinga-style intermediate lines, then the move in another spelling.
            let first = format_move(game, self.moves[0]);
            return format!(
                "thinking\n{first};1;0.00;{first}\n\n{}\n",
                other_spelling(game, m)
            );
        }
        format!("{}\n", format_move(game, m))
    }

    fn undo(&mut self, arg: &str) -> String {
        let Some(game) = self.game.as_mut() else {
            return "err no game\n".into();
        };
        let n: usize = if arg.is_empty() {
            1
        } else {
            match arg.parse() {
                Ok(n) => n,
                Err(_) => return format!("err '{arg}' is not a number\n"),
            }
        };
        if n > game.ply() as usize {
            return "err not that many moves\n".into();
        }
        for _ in 0..n {
            game.undo();
        }
        format!("{}\n", game_string(game))
    }

    fn perft(&mut self, arg: &str) -> String {
        let Some(game) = self.game.as_mut() else {
            return "err no game\n".into();
        };
        match arg.parse::<u32>() {
            Ok(d) => format!("nodes={}\n", perft(game, d)),
            Err(_) => format!("err '{arg}' is not a depth\n"),
        }
    }
}

/// FNV-1a hash of a text, to derive a game's seed from its `newgame` argument.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `m` spelt with the last usable reference piece around its destination (the canonical
/// spelling uses the first), when that spelling reads back as the same move.
fn other_spelling(game: &Game, m: Move) -> String {
    let canonical = format_move(game, m);
    let (Some(piece), board) = (m.piece(), game.board()) else {
        return canonical;
    };
    if board.pieces().is_empty() || board.is_occupied(m.to()) {
        return canonical;
    }
    // Direction::ALL order: the suffix or prefix that puts `to` on that side of `reference`.
    let sides: [(&str, &str); 6] = [
        ("", "-"),
        ("", "\\"),
        ("/", ""),
        ("-", ""),
        ("\\", ""),
        ("", "/"),
    ];
    let mut best = canonical.clone();
    for (d, &at) in m.to().neighbours().iter().enumerate() {
        let mut reference = board.top(at);
        if reference == Some(piece) {
            reference = board.below(piece);
        }
        let Some(r) = reference else { continue };
        // `to` is the neighbour of `at` in the opposite direction.
        let (pre, post) = sides[(d + 3) % 6];
        let text = format!("{piece} {pre}{r}{post}");
        if parse_move(game, &text) == Ok(m) {
            best = text;
        }
    }
    best
}

/// A move that parses in this position but that the rules forbid: a piece of the side not
/// to move, placed or moved next to the hive (on an empty board: the queen, which may not
/// open the game).
fn illegal_move(game: &mut Game) -> String {
    let legal = game.legal_moves();
    let targets: Vec<Cell> = Piece::all()
        .filter_map(|p| game.board().position(p))
        .flat_map(|c| c.neighbours().to_vec())
        .filter(|&c| !game.board().is_occupied(c))
        .collect();
    let own = game.side_to_move();
    for piece in Piece::all().filter(|p| p.color() != own && game.is_enabled(*p)) {
        for &to in &targets {
            let m = Move::new(piece, to);
            if !legal.contains(&m) && parse_move(game, &format_move(game, m)) == Ok(m) {
                return format_move(game, m);
            }
        }
    }
    format!("{}Q", own.letter())
}
