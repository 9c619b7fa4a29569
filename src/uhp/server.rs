//! The protocol server: command parsing, the game, the options and the replies.

use super::board_view;
use super::input::{self, LineRead, MAX_LINE_BYTES};
use super::options::{OptionId, Ponder, Settings};
use crate::core::perft::perft_with_stop;
use crate::core::{Game, GameType, Move};
use crate::eval;
use crate::notation::{format_move, game_string, parse_game_string, parse_game_type, parse_move};
use crate::search::skill::MAX_SKILL_LEVEL;
use crate::search::{Engine, Limits, SearchInfo, SearchParams};
use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, TryRecvError};
use std::thread;
use std::time::{Duration, Instant};

/// The capability line of `info`: every expansion bug is supported.
const CAPABILITIES: &str = "Mosquito;Ladybug;Pillbug";
/// Deepest `bestmove depth N` accepted.
const MAX_SEARCH_DEPTH: u32 = 100;
/// Deepest `perft N` accepted (deeper counts would run for ages; SIGINT cancels any of them).
const MAX_PERFT_DEPTH: u32 = 20;
/// Longest echo of the host's input inside an error message, in characters.
const MAX_ECHO_CHARS: usize = 200;

const NO_GAME: &str = "No game in progress. Try 'newgame' to start a new game.";

/// Whether the server wants more input after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep reading commands.
    Continue,
    /// `exit` was received.
    Exit,
}

/// Why a command failed; printed as `err <message>` or `invalidmove <message>`.
enum Failure {
    Err(String),
    InvalidMove(String),
}

type Reply = Result<Vec<String>, Failure>;

fn err(message: impl Into<String>) -> Failure {
    Failure::Err(message.into())
}

/// A UHP engine session: one game (none until the first `newgame`), one search engine and the
/// options. Feed it lines with [`Server::handle_line`] or a whole input with [`Server::run`].
pub struct Server<W: Write> {
    out: W,
    game: Option<Game>,
    engine: Engine,
    settings: Settings,
    /// Raised by SIGINT (or a test) to make a running `bestmove` or `perft` answer now.
    stop: Arc<AtomicBool>,
}

impl<W: Write> Server<W> {
    /// A server writing its replies to `out`. Raising `stop` while a `bestmove` (or `perft`)
    /// runs makes it answer at once; the server lowers it before each such command.
    pub fn new(out: W, stop: Arc<AtomicBool>) -> Server<W> {
        let settings = Settings::default();
        Server {
            out,
            game: None,
            engine: Engine::new(settings.engine.clone()),
            settings,
            stop,
        }
    }

    /// The current game, if any.
    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    /// The option lines, as `options` prints them.
    pub fn option_lines(&self) -> Vec<String> {
        let default = Settings::default();
        OptionId::ALL
            .iter()
            .map(|o| o.line(&self.settings, &default))
            .collect()
    }

    /// The output, for tests that drive the server in memory.
    pub fn output(&self) -> &W {
        &self.out
    }

    /// Prints the `info` reply unprompted, as hosts expect at start-up.
    pub fn greet(&mut self) -> io::Result<()> {
        let lines = info_lines();
        self.finish(Ok(lines))
    }

    /// Greets, then answers every line of `input` until it ends or `exit` arrives. Lines longer
    /// than [`MAX_LINE_BYTES`] are answered with `err`; bytes that are not UTF-8 are replaced.
    pub fn run<R: BufRead>(&mut self, mut input: R) -> io::Result<()> {
        self.greet()?;
        let mut buf = Vec::new();
        loop {
            match input::read_line(&mut input, &mut buf, MAX_LINE_BYTES)? {
                LineRead::Eof => return Ok(()),
                LineRead::TooLong => self.finish(Err(err(format!(
                    "The command line is longer than {MAX_LINE_BYTES} bytes and was ignored."
                ))))?,
                LineRead::Line => {
                    let line = String::from_utf8_lossy(&buf);
                    if self.handle_line(&line)? == Flow::Exit {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// Like [`Server::run`], with the input read on a thread of its own, so that the engine
    /// can search while it waits (`PonderDuringIdle`): when no command is waiting, the current
    /// position is searched in the background until the next line (or the end of input)
    /// arrives, which stops that search at once. Nothing is printed while pondering, and the
    /// stop flag of [`Server::new`] (SIGINT) does not touch it.
    pub fn run_pondering<R: BufRead + Send + 'static>(&mut self, mut input: R) -> io::Result<()> {
        self.greet()?;
        let (tx, rx) = mpsc::channel();
        // Raised by the reader whenever it has passed on a line: stops the pondering.
        let arrived = Arc::new(AtomicBool::new(false));
        let reader_arrived = Arc::clone(&arrived);
        thread::Builder::new()
            .name("waggle-input".to_string())
            .spawn(move || {
                let mut buf = Vec::new();
                loop {
                    let read = input::read_line(&mut input, &mut buf, MAX_LINE_BYTES);
                    let end = !matches!(read, Ok(LineRead::Line | LineRead::TooLong));
                    let sent = tx.send((read, std::mem::take(&mut buf)));
                    reader_arrived.store(true, Ordering::SeqCst);
                    if end || sent.is_err() {
                        return;
                    }
                }
            })?;
        loop {
            arrived.store(false, Ordering::SeqCst);
            let next = match rx.try_recv() {
                Ok(next) => next,
                Err(TryRecvError::Disconnected) => return Ok(()),
                Err(TryRecvError::Empty) => {
                    // A line arriving from now on raises `arrived`, which stops this search.
                    self.ponder(&arrived);
                    match rx.recv() {
                        Ok(next) => next,
                        Err(_) => return Ok(()),
                    }
                }
            };
            match next {
                (Err(e), _) => return Err(e),
                (Ok(LineRead::Eof), _) => return Ok(()),
                (Ok(LineRead::TooLong), _) => self.finish(Err(err(format!(
                    "The command line is longer than {MAX_LINE_BYTES} bytes and was ignored."
                ))))?,
                (Ok(LineRead::Line), bytes) => {
                    let line = String::from_utf8_lossy(&bytes);
                    if self.handle_line(&line)? == Flow::Exit {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// Searches the current game until `stop` is raised, if `PonderDuringIdle` says so and
    /// the game is in progress.
    fn ponder(&mut self, stop: &AtomicBool) {
        let single_thread = match self.settings.ponder {
            Ponder::Disabled => return,
            Ponder::SingleThreaded => true,
            Ponder::MultiThreaded => false,
        };
        if let Some(game) = &self.game {
            self.engine.ponder(game, single_thread, stop);
        }
    }

    /// Answers one command line. Blank lines get no reply; every other line gets its reply
    /// lines and then `ok`. Errors are only those of writing the output.
    pub fn handle_line(&mut self, line: &str) -> io::Result<Flow> {
        let line = input::sanitize(line);
        let line = line.trim();
        if line.is_empty() {
            return Ok(Flow::Continue);
        }
        let (keyword, args) = match line.split_once(char::is_whitespace) {
            Some((k, rest)) => (k, rest.trim()),
            None => (line, ""),
        };
        let mut flow = Flow::Continue;
        let reply = match keyword.to_ascii_lowercase().as_str() {
            "info" => no_args("info", args).map(|()| info_lines()),
            "newgame" => self.newgame(args),
            "play" => self.play(args),
            "pass" => no_args("pass", args).and_then(|()| self.play("pass")),
            "validmoves" => no_args("validmoves", args).and_then(|()| self.validmoves()),
            "bestmove" => self.bestmove(args),
            "analyse" | "analyze" => self.analyse(args),
            "undo" => self.undo(args),
            "options" => self.options(args),
            "board" => no_args("board", args).and_then(|()| self.board()),
            "eval" => no_args("eval", args).and_then(|()| self.eval()),
            "perft" => self.perft(args),
            "help" => help(args),
            "exit" => no_args("exit", args).map(|()| {
                flow = Flow::Exit;
                Vec::new()
            }),
            _ => Err(err(format!(
                "Invalid command '{}'. Try 'help' to see a list of valid commands.",
                keyword
            ))),
        };
        self.finish(reply)?;
        Ok(flow)
    }

    /// Writes the reply lines or the failure line, then `ok`, and flushes.
    fn finish(&mut self, reply: Reply) -> io::Result<()> {
        match reply {
            Ok(lines) => {
                for l in lines {
                    writeln!(self.out, "{l}")?;
                }
            }
            Err(Failure::Err(m)) => writeln!(self.out, "err {}", shorten(&m))?,
            Err(Failure::InvalidMove(m)) => writeln!(self.out, "invalidmove {}", shorten(&m))?,
        }
        writeln!(self.out, "ok")?;
        self.out.flush()
    }

    fn game_mut(&mut self) -> Result<&mut Game, Failure> {
        self.game.as_mut().ok_or_else(|| err(NO_GAME))
    }

    /// The game, which must exist and not be over (for play, validmoves and bestmove).
    fn live_game(&mut self) -> Result<&mut Game, Failure> {
        let game = self.game_mut()?;
        let state = game.state();
        if state.is_over() {
            return Err(err(format!(
                "The game is over ({}). Try 'undo' or 'newgame'.",
                state.name()
            )));
        }
        Ok(game)
    }

    fn newgame(&mut self, args: &str) -> Reply {
        let repetition = self.settings.repetition_draw;
        let game = if args.is_empty() {
            new_game(GameType::BASE, repetition)
        } else if args.contains(';') {
            parse_game_string(args, repetition)
                .map_err(|e| err(format!("Unable to load the GameString: {e}")))?
        } else {
            let game_type = parse_game_type(args).map_err(|e| {
                err(format!(
                    "Unable to start a game: {e}. Expected Base, Base+M, ... Base+MLP or a GameString."
                ))
            })?;
            new_game(game_type, repetition)
        };
        self.engine.clear();
        let text = game_string(&game);
        self.game = Some(game);
        Ok(vec![text])
    }

    fn play(&mut self, args: &str) -> Reply {
        let game = self.live_game()?;
        if args.is_empty() {
            return Err(err("Missing MoveString. Usage: play <MoveString>"));
        }
        let m = parse_move(game, args)
            .map_err(|e| Failure::InvalidMove(format!("Unable to parse '{args}': {e}")))?;
        game.play(m)
            .map_err(|e| Failure::InvalidMove(format!("Unable to play '{args}': {e}")))?;
        Ok(vec![game_string(game)])
    }

    fn validmoves(&mut self) -> Reply {
        let game = self.live_game()?;
        let moves = game.legal_moves();
        let texts: Vec<String> = moves.iter().map(|&m| format_move(game, m)).collect();
        Ok(vec![texts.join(";")])
    }

    fn bestmove(&mut self, args: &str) -> Reply {
        self.live_game()?;
        let limits = parse_limits(args)?;
        let report_on = self.settings.report_intermediate;
        self.search_and_report(&limits, "the search reports", |game, info| {
            if report_on {
                info_line(game, info)
            } else {
                None
            }
        })
    }

    /// Searches the current game, writing `line(game, info)` (when it gives one) after every
    /// completed iteration, and answers with the chosen move. When a line cannot be written
    /// the host has gone away: the search ends early and the answer is `err Cannot write
    /// <what>`.
    fn search_and_report(
        &mut self,
        limits: &Limits,
        what: &str,
        mut line: impl FnMut(&Game, &SearchInfo) -> Option<String>,
    ) -> Reply {
        self.stop.store(false, Ordering::SeqCst);
        let Server {
            out,
            game,
            engine,
            stop,
            ..
        } = self;
        let game = game.as_ref().ok_or_else(|| err(NO_GAME))?;
        let stop: &AtomicBool = stop;
        let mut write_error = None;
        let chosen = engine.search(game, limits, stop, &mut |info| {
            if write_error.is_none()
                && let Some(text) = line(game, info)
                && let Err(e) = writeln!(out, "{text}").and_then(|()| out.flush())
            {
                // Nobody reads the answer any more: end the search early.
                stop.store(true, Ordering::SeqCst);
                write_error = Some(e);
            }
        });
        if let Some(e) = write_error {
            return Err(err(format!("Cannot write {what}: {e}")));
        }
        Ok(vec![format_move(game, legal_or_first(game, chosen))])
    }

    /// `analyse [depth N | time hh:mm:ss] [lines K]`: a search for people at a terminal,
    /// printing a readable line per ranked move after every completed iteration, then the
    /// best move. Without a limit it runs until SIGINT (or until the result is proven). It
    /// searches at full strength whatever the `SkillLevel`.
    fn analyse(&mut self, args: &str) -> Reply {
        self.live_game()?;
        let (limits, lines) = parse_analyse(args)?;
        // Analysis is at full strength, whatever the playing level.
        let mut options = self.settings.engine.clone();
        options.multi_pv = lines.unwrap_or(options.multi_pv);
        options.skill_level = MAX_SKILL_LEVEL;
        self.engine.set_options(options);
        let start = Instant::now();
        let reply = self.search_and_report(&limits, "the analysis", |game, info| {
            Some(analysis_line(game, info, start.elapsed()))
        });
        self.engine.set_options(self.settings.engine.clone());
        reply
    }

    fn undo(&mut self, args: &str) -> Reply {
        let game = self.game_mut()?;
        let n = if args.is_empty() {
            1
        } else {
            match args.parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    return Err(err(format!(
                        "Invalid number of moves to undo '{args}'. Usage: undo [N], N >= 1"
                    )));
                }
            }
        };
        if n > game.ply() {
            return Err(err(format!(
                "Unable to undo {}: only {} played so far.",
                count(n, "move"),
                count(game.ply(), "move")
            )));
        }
        for _ in 0..n {
            game.undo();
        }
        Ok(vec![game_string(game)])
    }

    fn options(&mut self, args: &str) -> Reply {
        let words: Vec<&str> = args.split_whitespace().collect();
        let usage = "Usage: options | options get <Name> | options set <Name> <Value>";
        let find = |name: &str| {
            OptionId::find(name).ok_or_else(|| {
                err(format!(
                    "Unknown option '{name}'. Try 'options' to list them all."
                ))
            })
        };
        let default = Settings::default();
        match words.as_slice() {
            [] => Ok(self.option_lines()),
            [get, name] if get.eq_ignore_ascii_case("get") => {
                let id = find(name)?;
                Ok(vec![id.line(&self.settings, &default)])
            }
            [set, name, value] if set.eq_ignore_ascii_case("set") => {
                let id = find(name)?;
                let mut settings = self.settings.clone();
                id.set(value, &mut settings).map_err(err)?;
                self.apply_settings(settings);
                Ok(vec![id.line(&self.settings, &default)])
            }
            [sub, ..] if sub.eq_ignore_ascii_case("get") || sub.eq_ignore_ascii_case("set") => {
                Err(err(format!("Wrong number of arguments. {usage}")))
            }
            [sub, ..] => Err(err(format!("Unknown options subcommand '{sub}'. {usage}"))),
        }
    }

    /// Searches and evaluates (the `eval` command too) with `params` (evaluation weights and
    /// search parameters) instead of the defaults. For start-up settings from the command
    /// line.
    pub fn set_search_params(&mut self, params: SearchParams) {
        self.engine.set_params(params);
    }

    /// Sets option `name` to `value` as `options set` does, without replying; the error is the
    /// message `options set` would print. For start-up settings from the command line.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let id = OptionId::find(name).ok_or_else(|| format!("unknown option '{name}'"))?;
        let mut settings = self.settings.clone();
        id.set(value, &mut settings)?;
        self.apply_settings(settings);
        Ok(())
    }

    fn apply_settings(&mut self, settings: Settings) {
        if settings.engine != self.settings.engine {
            self.engine.set_options(settings.engine.clone());
        }
        if settings.repetition_draw != self.settings.repetition_draw
            && let Some(game) = self.game.as_mut()
        {
            *game = replay(game, settings.repetition_draw);
        }
        self.settings = settings;
    }

    /// The static evaluation of the current position, term by term.
    fn eval(&mut self) -> Reply {
        let game = self.game.as_ref().ok_or_else(|| err(NO_GAME))?;
        let b = crate::eval::breakdown(
            game,
            self.engine.params().weights.for_type(game.game_type()),
        );
        let mut lines = vec![format!(
            "total {} for {} (phase {}/256)",
            b.total,
            b.side_to_move.name(),
            b.phase
        )];
        lines.extend(b.terms.iter().map(|t| {
            format!(
                "{:<16} white {:>6}  black {:>6}",
                t.term.name(),
                t.white,
                t.black
            )
        }));
        Ok(lines)
    }

    fn board(&mut self) -> Reply {
        let game = self.game_mut()?;
        Ok(board_view::render(game))
    }

    fn perft(&mut self, args: &str) -> Reply {
        let depth = match args.parse::<u32>() {
            Ok(d) if (1..=MAX_PERFT_DEPTH).contains(&d) => d,
            _ => {
                return Err(err(format!(
                    "Invalid perft depth '{args}'. Usage: perft <N>, N from 1 to {MAX_PERFT_DEPTH}"
                )));
            }
        };
        self.game_mut()?;
        self.stop.store(false, Ordering::SeqCst);
        let Server {
            out, game, stop, ..
        } = self;
        let game = game.as_mut().ok_or_else(|| err(NO_GAME))?;
        for d in 1..=depth {
            let start = Instant::now();
            let Some(nodes) = perft_with_stop(game, d, stop) else {
                break;
            };
            let secs = start.elapsed().as_secs_f64();
            let nps = if secs > 0.0 {
                (nodes as f64 / secs) as u64
            } else {
                0
            };
            let written = writeln!(
                out,
                "{d} {nodes} time_ms={} nps={nps}",
                (secs * 1000.0).round() as u64
            )
            .and_then(|()| out.flush());
            if let Err(e) = written {
                return Err(err(format!("Cannot write the perft results: {e}")));
            }
        }
        Ok(Vec::new())
    }
}

/// `chosen` if it is legal in `game`; otherwise (the search broke its contract) the first legal
/// move, so that the answer is never a wrong move.
fn legal_or_first(game: &Game, chosen: Move) -> Move {
    let legal = game.legal_moves();
    if legal.contains(&chosen) {
        chosen
    } else {
        eprintln!("waggle: the search returned an illegal move {chosen:?}");
        legal.first().copied().unwrap_or(Move::PASS)
    }
}

fn new_game(game_type: GameType, repetition_draw: bool) -> Game {
    let mut game = Game::new(game_type);
    game.set_repetition_draw(repetition_draw);
    game
}

/// The same moves replayed under another threefold-repetition setting, so that the game's
/// state (and any later undo) follows the new rule.
fn replay(game: &Game, repetition_draw: bool) -> Game {
    let mut fresh = new_game(game.game_type(), repetition_draw);
    for m in game.moves() {
        // Every move was legal in this very position when it was played; only the end-of-game
        // verdict depends on the setting.
        fresh.play_unchecked(m);
    }
    fresh
}

/// `1 move`, `2 moves`.
fn count(n: u32, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn info_lines() -> Vec<String> {
    vec![
        format!("id waggle {}", env!("CARGO_PKG_VERSION")),
        CAPABILITIES.to_string(),
    ]
}

fn no_args(command: &str, args: &str) -> Result<(), Failure> {
    if args.is_empty() {
        Ok(())
    } else {
        Err(err(format!(
            "'{command}' takes no arguments, but got '{args}'."
        )))
    }
}

/// Cuts an over-long message (one that echoes a huge input line) to a readable length.
fn shorten(message: &str) -> String {
    match message.char_indices().nth(MAX_ECHO_CHARS) {
        Some((i, _)) => format!("{}...", &message[..i]),
        None => message.to_string(),
    }
}

/// `time hh:mm:ss[.fff]` or `depth N`.
fn parse_limits(args: &str) -> Result<Limits, Failure> {
    let usage = "Usage: bestmove time hh:mm:ss[.fff] | bestmove depth <N>";
    let words: Vec<&str> = args.split_whitespace().collect();
    match words.as_slice() {
        [kind, value] if kind.eq_ignore_ascii_case("time") => {
            let time = parse_time(value).ok_or_else(|| {
                err(format!(
                    "Invalid time '{value}': expected hh:mm:ss with an optional fraction of a second, e.g. 00:00:05 or 00:00:00.5."
                ))
            })?;
            Ok(Limits {
                depth: None,
                time: Some(time),
            })
        }
        [kind, value] if kind.eq_ignore_ascii_case("depth") => match value.parse::<u32>() {
            Ok(d) if (1..=MAX_SEARCH_DEPTH).contains(&d) => Ok(Limits {
                depth: Some(d),
                time: None,
            }),
            _ => Err(err(format!(
                "Invalid depth '{value}': expected an integer from 1 to {MAX_SEARCH_DEPTH}."
            ))),
        },
        [] => Err(err(format!("bestmove needs a limit. {usage}"))),
        _ => Err(err(format!("Invalid bestmove arguments '{args}'. {usage}"))),
    }
}

/// Most lines `analyse ... lines K` ranks.
const MAX_ANALYSE_LINES: usize = 32;

/// `[depth N | time hh:mm:ss] [lines K]`, in either order: the limits (none: until stopped)
/// and the number of lines, if given.
fn parse_analyse(args: &str) -> Result<(Limits, Option<usize>), Failure> {
    let usage = "Usage: analyse [depth <N> | time hh:mm:ss[.fff]] [lines <K>]";
    let words: Vec<&str> = args.split_whitespace().collect();
    let mut limits = Limits::default();
    let mut lines = None;
    let mut rest = words.as_slice();
    while let [kind, value, tail @ ..] = rest {
        if kind.eq_ignore_ascii_case("lines") && lines.is_none() {
            match value.parse::<usize>() {
                Ok(k) if (1..=MAX_ANALYSE_LINES).contains(&k) => lines = Some(k),
                _ => {
                    return Err(err(format!(
                        "Invalid number of lines '{value}': expected an integer from 1 to {MAX_ANALYSE_LINES}."
                    )));
                }
            }
        } else if (kind.eq_ignore_ascii_case("depth") || kind.eq_ignore_ascii_case("time"))
            && limits == Limits::default()
        {
            limits = parse_limits(&format!("{kind} {value}"))?;
        } else {
            return Err(err(format!("Invalid analyse arguments '{args}'. {usage}")));
        }
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(err(format!("Invalid analyse arguments '{args}'. {usage}")));
    }
    Ok((limits, lines))
}

/// Parses `hh:mm:ss[.fff]` (hours of any width up to 9999, minutes and seconds below 60).
fn parse_time(text: &str) -> Option<Duration> {
    let mut parts = text.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let number = |t: &str, max: u64| -> Option<u64> {
        if t.is_empty() || t.len() > 4 || !t.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        t.parse::<u64>().ok().filter(|&v| v <= max)
    };
    let (whole, fraction) = match s.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (s, None),
    };
    let nanos = match fraction {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) => {
            let digits: u32 = f.parse().ok()?;
            digits * 10u32.pow(9 - f.len() as u32)
        }
        Some(_) => return None,
    };
    let secs = number(h, 9999)? * 3600 + number(m, 59)? * 60 + number(whole, 59)?;
    Some(Duration::new(secs, nanos))
}

/// The MoveStrings of a principal variation from `game`, cut at the first move that is not
/// legal in its position.
fn pv_strings(game: &Game, moves: &[Move]) -> Vec<String> {
    let mut scratch = game.clone();
    let mut pv = Vec::new();
    for &m in moves {
        if !scratch.legal_moves().contains(&m) {
            break;
        }
        pv.push(format_move(&scratch, m));
        scratch.play_unchecked(m);
    }
    pv
}

/// Mzinga's intermediate line `move;depth;score`, followed by the principal variation (best
/// move first), and for MCTS the best move's share of the root visits (`visits=62.5%`). The
/// variation is cut at the first move that is not legal in its position.
fn info_line(game: &Game, info: &SearchInfo) -> Option<String> {
    let pv = pv_strings(game, &info.pv);
    let first = pv.first()?;
    let mut line = format!("{first};{};{};{}", info.depth, info.score, pv.join(";"));
    if let Some(share) = info.visit_share {
        // MCTS: the share of root visits the move received, after the variation.
        line.push_str(&format!(";visits={:.1}%", share * 100.0));
    }
    Some(line)
}

/// A readable analysis line: depth, rank, score, nodes, speed, time and the principal
/// variation (moves separated by commas). The score is in pieces (100 evaluation units, about
/// the worth of a freely moving Soldier Ant) from the side to move's view, or `win in N` /
/// `loss in N` for a forced result: the side to move wins with its N-th move from now, or
/// loses to the opponent's N-th.
fn analysis_line(game: &Game, info: &SearchInfo, elapsed: Duration) -> String {
    let plies = eval::WIN - info.score.abs();
    let score = if info.score >= eval::WIN_THRESHOLD {
        format!("win in {}", (plies + 1) / 2)
    } else if info.score <= -eval::WIN_THRESHOLD {
        format!("loss in {}", (plies / 2).max(1))
    } else {
        format!("{:+.2}", info.score as f64 / 100.0)
    };
    let secs = elapsed.as_secs_f64();
    let nps = if secs > 0.0 {
        (info.nodes as f64 / secs) as u64
    } else {
        0
    };
    let pv = pv_strings(game, &info.pv);
    format!(
        "depth {} line {} score {score} nodes {} nps {nps} time {:.2}s pv {}",
        info.depth,
        info.rank,
        info.nodes,
        secs,
        pv.join(", ")
    )
}

/// The `help` text: every command with its arguments, or the details of one.
fn help(args: &str) -> Reply {
    const COMMANDS: [(&str, &str, &str); 14] = [
        (
            "info",
            "info",
            "Shows the engine's name, version and supported expansions.",
        ),
        (
            "newgame",
            "newgame [GameTypeString|GameString]",
            "Starts a Base game, an empty game of the given type (e.g. Base+MLP), or loads a GameString with its moves.",
        ),
        (
            "play",
            "play <MoveString>",
            "Plays a move in the current game (e.g. play wS1, play bG1 -wS1).",
        ),
        ("pass", "pass", "Passes; legal only when no other move is."),
        (
            "validmoves",
            "validmoves",
            "Lists every legal move, separated by ';'.",
        ),
        (
            "bestmove",
            "bestmove time hh:mm:ss[.fff] | bestmove depth <N>",
            "Searches for the best move within the time or to the depth; SIGINT answers at once with the best move so far.",
        ),
        (
            "undo",
            "undo [N]",
            "Takes back the last N moves (default 1; a pass counts).",
        ),
        (
            "options",
            "options | options get <Name> | options set <Name> <Value>",
            "Lists the options as Name;type;value;default[;min;max|;choices], shows one, or changes one.",
        ),
        ("exit", "exit", "Quits the engine."),
        (
            "help",
            "help [Command]",
            "Lists the commands, or explains one.",
        ),
        (
            "analyse",
            "analyse [depth <N> | time hh:mm:ss[.fff]] [lines <K>]",
            "Extension: analyses the position for a person: after each completed iteration, one line per ranked move (K lines, default the MultiPV option): depth, line (rank), score in pieces (100 evaluation units, about a freely moving Soldier Ant; 'win in N'/'loss in N' when forced), nodes, nps, time and the principal variation. Without a limit it runs until SIGINT, which (like the time limit) ends it with the best move, as bestmove does.",
        ),
        (
            "perft",
            "perft <N>",
            "Extension: counts the move sequences of 1 to N plies from the current position, one line per depth: depth, count, time_ms=<milliseconds> nps=<positions per second>; SIGINT stops it.",
        ),
        (
            "board",
            "board",
            "Extension: draws the hive on a hex grid, with the side to move and the pieces in hand.",
        ),
        (
            "eval",
            "eval",
            "Extension: the static evaluation of the position for the side to move, with each term for each colour.",
        ),
    ];
    if args.is_empty() {
        let mut lines = vec!["Commands (Universal Hive Protocol):".to_string()];
        lines.extend(COMMANDS[..10].iter().map(|c| format!("  {}", c.1)));
        lines.push("Extensions:".to_string());
        lines.extend(COMMANDS[10..].iter().map(|c| format!("  {}", c.1)));
        lines.push("Try 'help <Command>' for the details of one command.".to_string());
        return Ok(lines);
    }
    let found = COMMANDS
        .iter()
        .find(|c| c.0.eq_ignore_ascii_case(args))
        .ok_or_else(|| err(format!("Unknown command '{args}'. Try 'help'.")))?;
    let mut lines = vec![format!("  {}", found.1), format!("  {}", found.2)];
    if found.0 == "options" {
        lines.extend(
            OptionId::ALL
                .iter()
                .map(|o| format!("  {}: {}", o.name(), o.help())),
        );
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_strictly() {
        assert_eq!(parse_time("00:00:05"), Some(Duration::from_secs(5)));
        assert_eq!(parse_time("0:0:0.5"), Some(Duration::from_millis(500)));
        assert_eq!(
            parse_time("01:02:03.004"),
            Some(Duration::new(3723, 4_000_000))
        );
        assert_eq!(parse_time("00:00:00"), Some(Duration::ZERO));
        for bad in [
            "",
            "5",
            "00:05",
            "00:00:60",
            "00:60:00",
            "-1:00:00",
            "00:00:05.",
            "00:00:.5",
            "00:00:05.1234567890",
            "a:b:c",
            "00:00:05:00",
            "+1:00:00",
            "99999:00:00",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }

    #[test]
    fn shorten_cuts_on_a_char_boundary() {
        let long = "é".repeat(500);
        let s = shorten(&long);
        assert_eq!(s.chars().count(), MAX_ECHO_CHARS + 3);
        assert_eq!(shorten("short"), "short");
    }
}
