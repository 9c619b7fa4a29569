//! Playing one game between two UHP engines, every move checked with waggle's rules.
//!
//! Protocol, per engine: `newgame <GameTypeString>` (or `newgame <GameString>` for an opening
//! with moves); then every move, once chosen and checked, is sent to both engines as
//! `play <MoveString>` (canonical spelling), so each engine keeps the game incrementally. The
//! side to move is asked with `bestmove time ...` or `bestmove depth N`; of its reply the
//! LAST line before `ok` is the move (a `;` and what follows, as in Mzinga's intermediate
//! `move;depth;score;pv` lines, is ignored).
//!
//! An engine that crashes, exceeds its time (plus a grace), answers `err`/`invalidmove`,
//! answers something that is not a move, plays an illegal move, or echoes a game with a
//! different number of moves loses the game; its process is then killed (and started afresh
//! for its next game). A flag fall on a game clock also loses, without a restart.

use super::super::openings::Opening;
use crate::process::{EngineSpec, UhpError, UhpProcess, deadline_after, failure_line, uhp_time};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use waggle::core::{Color, Game, GameState};
use waggle::notation::{NotationError, format_move, parse_game_string, parse_move};

/// How much thinking an engine is allowed per move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// `bestmove time` with this much time per move.
    MoveTime(Duration),
    /// `bestmove depth N`.
    Depth(u32),
    /// A clock per side: `base` to start with, `increment` added after each move. The
    /// engine is asked for a slice of what it has left (see [`clock_slice`]) and charged the
    /// wall time it really used.
    Clock {
        /// Starting time.
        base: Duration,
        /// Added after every move.
        increment: Duration,
    },
}

impl Limit {
    /// Parses a clock `BASE+INC` in seconds (`60+0.5`; `+INC` may be left out).
    pub fn parse_clock(s: &str) -> Option<Limit> {
        let (base, inc) = s.split_once('+').unwrap_or((s, "0"));
        let secs = |t: &str| {
            t.trim()
                .parse::<f64>()
                .ok()
                .and_then(|v| Duration::try_from_secs_f64(v).ok())
        };
        let (base, increment) = (secs(base)?, secs(inc)?);
        (!base.is_zero()).then_some(Limit::Clock { base, increment })
    }

    /// A short description (`move time 0.1 s`, `depth 2`, `clock 60+0.5 s`).
    pub fn describe(&self) -> String {
        match self {
            Limit::MoveTime(t) => format!("move time {} s", t.as_secs_f64()),
            Limit::Depth(d) => format!("depth {d}"),
            Limit::Clock { base, increment } => {
                format!("clock {}+{} s", base.as_secs_f64(), increment.as_secs_f64())
            }
        }
    }
}

/// What an engine accepts in `bestmove time hh:mm:ss`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimeFormat {
    /// Fractions of a second (`00:00:00.500`).
    #[default]
    Fractions,
    /// Whole seconds only (`00:00:01`): the protocol's text read strictly.
    WholeSeconds,
}

impl TimeFormat {
    /// The time to ask for when `t` is meant: `t` itself, or for a whole-seconds engine `t`
    /// rounded down to whole seconds but at least one second (the arena's clock charges the
    /// wall time really used, so the clock stays honest either way).
    pub fn ask(self, t: Duration) -> Duration {
        match self {
            TimeFormat::Fractions => t,
            TimeFormat::WholeSeconds => Duration::from_secs(t.as_secs().max(1)),
        }
    }
}

/// The time asked of an engine with `remaining` on its clock: a 25th of it plus the
/// increment, but never more than half of it.
pub fn clock_slice(remaining: Duration, increment: Duration) -> Duration {
    (remaining / 25)
        .saturating_add(increment)
        .min(remaining / 2)
}

/// Everything that governs a game besides the players and the opening.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// Thinking limit.
    pub limit: Limit,
    /// Extra wall time allowed past a time limit before the engine is declared hung.
    pub grace: Duration,
    /// Time allowed for start-up and for replies to `newgame` and `play`.
    pub reply_timeout: Duration,
    /// Time allowed for a `bestmove depth N` reply.
    pub depth_timeout: Duration,
    /// A game still running after this many moves per side is adjudicated a draw.
    pub max_moves: u32,
    /// Whether threefold repetition draws (waggle's rules: yes).
    pub repetition_draw: bool,
}

/// What kind of failure lost an engine the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The engine could not be started or did not finish its start-up reply.
    StartUp,
    /// The process exited or closed its output.
    Crash,
    /// No reply within the limit plus the grace.
    Timeout,
    /// Its game clock ran out.
    FlagFall,
    /// A move the rules forbid.
    Illegal,
    /// A reply that is not what UHP prescribes.
    Malformed,
    /// An `err` or `invalidmove` reply to a valid command.
    ErrorReply,
    /// The engine's game has a different number of moves than the arena's.
    Desync,
}

impl FailureKind {
    /// The short name used in result files (`crash`, `flag-fall`, ...).
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::StartUp => "start-up",
            FailureKind::Crash => "crash",
            FailureKind::Timeout => "timeout",
            FailureKind::FlagFall => "flag-fall",
            FailureKind::Illegal => "illegal-move",
            FailureKind::Malformed => "malformed-reply",
            FailureKind::ErrorReply => "error-reply",
            FailureKind::Desync => "desync",
        }
    }

    /// Every kind.
    pub const ALL: [FailureKind; 8] = [
        FailureKind::StartUp,
        FailureKind::Crash,
        FailureKind::Timeout,
        FailureKind::FlagFall,
        FailureKind::Illegal,
        FailureKind::Malformed,
        FailureKind::ErrorReply,
        FailureKind::Desync,
    ];
}

/// An engine failure that decided a game.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The colour of the engine that failed (and lost).
    pub side: Color,
    /// What happened.
    pub kind: FailureKind,
    /// Details (the offending reply, the rule broken, ...).
    pub detail: String,
    /// The engine's last command and output, for the log.
    pub last_output: String,
}

/// A finished game.
pub struct PlayedGame {
    /// The moves, from the empty board (the opening included), checked with waggle's rules.
    pub game: Game,
    /// The result: `WhiteWins`, `BlackWins` or `Draw`.
    pub result: GameState,
    /// A short category: `queen-surrounded`, `both-queens`, `repetition`, `max-moves`, or a
    /// [`FailureKind::name`].
    pub termination: &'static str,
    /// A readable reason.
    pub reason: String,
    /// The failure that decided the game, if one did.
    pub failure: Option<Failure>,
}

/// One player of a game: its command line and its process slot (`None`: not started).
pub struct Seat<'a> {
    /// How to start it.
    pub spec: &'a EngineSpec,
    /// What it accepts in `bestmove time`.
    pub time_format: TimeFormat,
    /// Its process, started on demand and killed (left `None`) after a failure.
    pub process: &'a mut Option<UhpProcess>,
}

fn kind_of(e: &UhpError) -> FailureKind {
    match e {
        UhpError::Timeout(_) => FailureKind::Timeout,
        UhpError::Spawn(_) => FailureKind::StartUp,
        UhpError::Exited(_) | UhpError::Write(_) => FailureKind::Crash,
    }
}

/// Whether `e` means the text is not a MoveString at all (rather than a move that does not
/// fit the position).
fn is_malformed(e: &NotationError) -> bool {
    matches!(
        e,
        NotationError::Empty
            | NotationError::BadPiece(_)
            | NotationError::BadReference(_)
            | NotationError::TooManyWords(_)
    )
}

/// The number of moves in a GameString reply line, if the line looks like a GameString.
fn echoed_moves(reply: &[String]) -> Option<usize> {
    let line = reply
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())?;
    let fields: Vec<&str> = line.split(';').collect();
    (fields.len() >= 3).then(|| fields[3..].iter().filter(|f| !f.trim().is_empty()).count())
}

/// The running process of `slot`, started afresh when there is none or it has exited.
fn ensure_started<'p>(
    slot: &'p mut Option<UhpProcess>,
    spec: &EngineSpec,
    timeout: Duration,
) -> Result<&'p mut UhpProcess, UhpError> {
    let running = slot.take().and_then(|mut p| p.is_running().then_some(p));
    let p = match running {
        Some(p) => p,
        None => UhpProcess::start(spec, timeout)?,
    };
    Ok(slot.insert(p))
}

/// Plays the game from `opening` between `seats[0]` (White) and `seats[1]` (Black). Returns
/// `None` when `stop` was raised before the game ended (the game is abandoned).
pub fn play_game(
    opening: &Opening,
    seats: &mut [Seat<'_>; 2],
    settings: &GameSettings,
    stop: &AtomicBool,
) -> Option<PlayedGame> {
    let mut game = opening.game.clone();
    game.set_repetition_draw(settings.repetition_draw);
    let outcome = {
        let [white, black] = &mut *seats;
        let started = ensure_started(white.process, white.spec, settings.reply_timeout)
            .map_err(|e| (Color::White, e))
            .and_then(|w| {
                ensure_started(black.process, black.spec, settings.reply_timeout)
                    .map(|b| (w, b))
                    .map_err(|e| (Color::Black, e))
            });
        match started {
            Ok((w, b)) => {
                let formats = [white.time_format, black.time_format];
                run(&mut game, opening, [w, b], formats, settings, stop)?
            }
            Err((side, e)) => Err(Failure {
                side,
                kind: FailureKind::StartUp,
                detail: format!("start-up: {e}"),
                last_output: String::new(),
            }),
        }
    };
    let (result, termination, reason, failure) = match outcome {
        Ok(()) if game.state().is_over() => {
            let (termination, reason) = describe_end(&game);
            (game.state(), termination, reason, None)
        }
        Ok(()) => (
            GameState::Draw,
            "max-moves",
            format!("adjudicated a draw after {} moves each", settings.max_moves),
            None,
        ),
        Err(f) => {
            let seat = &mut seats[f.side as usize];
            if f.kind != FailureKind::FlagFall
                && let Some(p) = seat.process.take()
            {
                p.kill();
            }
            let result = match f.side {
                Color::White => GameState::BlackWins,
                Color::Black => GameState::WhiteWins,
            };
            let reason = format!("{} of {}: {}", f.kind.name(), seat.spec.name, f.detail);
            (result, f.kind.name(), reason, Some(f))
        }
    };
    Some(PlayedGame {
        game,
        result,
        termination,
        reason,
        failure,
    })
}

/// Why a finished game ended.
fn describe_end(game: &Game) -> (&'static str, String) {
    let surrounded = |c: Color| game.queen_pressure(c) == 6;
    match game.state() {
        GameState::WhiteWins => ("queen-surrounded", "Black's queen surrounded".into()),
        GameState::BlackWins => ("queen-surrounded", "White's queen surrounded".into()),
        _ if surrounded(Color::White) && surrounded(Color::Black) => {
            ("both-queens", "both queens surrounded".into())
        }
        _ => ("repetition", "threefold repetition".into()),
    }
}

/// The moves of the game; `Ok` when it ended by the rules or by the move limit, `Err` on a
/// failure, `None` when stopped.
fn run(
    game: &mut Game,
    opening: &Opening,
    procs: [&mut UhpProcess; 2],
    formats: [TimeFormat; 2],
    settings: &GameSettings,
    stop: &AtomicBool,
) -> Option<Result<(), Failure>> {
    let fail = |side: Color, kind, detail: String, p: &UhpProcess| Failure {
        side,
        kind,
        detail,
        last_output: p.last_output(),
    };
    // Set the opening up.
    let newgame = format!("newgame {}", opening.newgame_argument());
    for side in [Color::White, Color::Black] {
        let p = &mut *procs[side as usize];
        let reply = match p.command(&newgame, settings.reply_timeout) {
            Ok(r) => r,
            Err(e) => return Some(Err(fail(side, kind_of(&e), format!("{newgame}: {e}"), p))),
        };
        if let Some(line) = failure_line(&reply) {
            let detail = format!("'{newgame}' answered '{line}'");
            return Some(Err(fail(side, FailureKind::ErrorReply, detail, p)));
        }
        let echoed = reply.iter().rev().map(|l| l.trim()).find(|l| !l.is_empty());
        let same = echoed
            .and_then(|l| parse_game_string(l, settings.repetition_draw).ok())
            .is_some_and(|g| g.moves().eq(game.moves()));
        if !same {
            let detail = format!(
                "'{newgame}' answered '{}', not the opening's GameString",
                echoed.unwrap_or("")
            );
            return Some(Err(fail(side, FailureKind::Malformed, detail, p)));
        }
    }
    let mut clocks = match settings.limit {
        Limit::Clock { base, .. } => [base, base],
        _ => [Duration::ZERO; 2],
    };
    let max_plies = settings.max_moves.saturating_mul(2);
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        if game.state().is_over() || game.ply() >= max_plies {
            return Some(Ok(()));
        }
        let side = game.side_to_move();
        let format = formats[side as usize];
        let (ask, wait) = match settings.limit {
            Limit::MoveTime(t) => {
                let t = format.ask(t);
                (
                    format!("bestmove time {}", uhp_time(t)),
                    t.saturating_add(settings.grace),
                )
            }
            Limit::Depth(d) => (format!("bestmove depth {d}"), settings.depth_timeout),
            Limit::Clock { increment, .. } => {
                let left = clocks[side as usize];
                let slice = format.ask(clock_slice(left, increment));
                (
                    format!("bestmove time {}", uhp_time(slice)),
                    left.saturating_add(settings.grace),
                )
            }
        };
        let p = &mut *procs[side as usize];
        let started = Instant::now();
        let reply = p
            .send(&ask)
            .and_then(|_| p.read_reply(deadline_after(started, wait)));
        let used = started.elapsed();
        let reply = match reply {
            Ok(r) => r,
            Err(e) => return Some(Err(fail(side, kind_of(&e), format!("{ask}: {e}"), p))),
        };
        if let Some(line) = failure_line(&reply) {
            let detail = format!("'{ask}' answered '{line}'");
            return Some(Err(fail(side, FailureKind::ErrorReply, detail, p)));
        }
        let Some(last) = reply.iter().rev().map(|l| l.trim()).find(|l| !l.is_empty()) else {
            let detail = format!("'{ask}' answered no move");
            return Some(Err(fail(side, FailureKind::Malformed, detail, p)));
        };
        let text = last.split(';').next().unwrap_or("").trim().to_string();
        if let Limit::Clock { increment, .. } = settings.limit {
            let clock = &mut clocks[side as usize];
            if used > *clock {
                let detail = format!(
                    "used {:.3} s with {:.3} s left",
                    used.as_secs_f64(),
                    clock.as_secs_f64()
                );
                return Some(Err(fail(side, FailureKind::FlagFall, detail, p)));
            }
            *clock = (*clock - used).saturating_add(increment);
        }
        let m = match parse_move(game, &text) {
            Ok(m) => m,
            Err(e) => {
                let kind = if is_malformed(&e) {
                    FailureKind::Malformed
                } else {
                    FailureKind::Illegal
                };
                return Some(Err(fail(side, kind, format!("'{text}': {e}"), p)));
            }
        };
        let canonical = format_move(game, m);
        if let Err(e) = game.play(m) {
            let detail = format!("'{text}' ({canonical}): {e}");
            return Some(Err(fail(side, FailureKind::Illegal, detail, p)));
        }
        if game.state().is_over() {
            continue;
        }
        let play = format!("play {canonical}");
        for c in [side, side.opponent()] {
            let p = &mut *procs[c as usize];
            let reply = match p.command(&play, settings.reply_timeout) {
                Ok(r) => r,
                Err(e) => return Some(Err(fail(c, kind_of(&e), format!("{play}: {e}"), p))),
            };
            if let Some(line) = failure_line(&reply) {
                let detail = format!("'{play}' (a legal move) answered '{line}'");
                return Some(Err(fail(c, FailureKind::ErrorReply, detail, p)));
            }
            if let Some(n) = echoed_moves(&reply)
                && n != game.ply() as usize
            {
                let detail = format!(
                    "after '{play}' its game has {n} moves, the arena's {}",
                    game.ply()
                );
                return Some(Err(fail(c, FailureKind::Desync, detail, p)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_parse_and_slices_stay_within_the_clock() {
        assert_eq!(
            Limit::parse_clock("60+0.5"),
            Some(Limit::Clock {
                base: Duration::from_secs(60),
                increment: Duration::from_millis(500)
            })
        );
        assert_eq!(
            Limit::parse_clock("10"),
            Some(Limit::Clock {
                base: Duration::from_secs(10),
                increment: Duration::ZERO
            })
        );
        assert_eq!(Limit::parse_clock("0+1"), None);
        assert_eq!(Limit::parse_clock("a+1"), None);
        assert_eq!(Limit::parse_clock("5+-1"), None);
        let s = clock_slice(Duration::from_secs(50), Duration::from_secs(1));
        assert_eq!(s, Duration::from_secs(3));
        let s = clock_slice(Duration::from_secs(1), Duration::from_secs(5));
        assert_eq!(s, Duration::from_millis(500));
    }

    #[test]
    fn whole_seconds_round_down_to_at_least_one() {
        let w = TimeFormat::WholeSeconds;
        assert_eq!(w.ask(Duration::from_millis(500)), Duration::from_secs(1));
        assert_eq!(w.ask(Duration::from_millis(2999)), Duration::from_secs(2));
        assert_eq!(w.ask(Duration::from_secs(7)), Duration::from_secs(7));
        let f = TimeFormat::Fractions;
        assert_eq!(
            f.ask(Duration::from_millis(500)),
            Duration::from_millis(500)
        );
    }

    #[test]
    fn echoed_games_are_counted() {
        let r = |s: &str| vec![s.to_string()];
        assert_eq!(
            echoed_moves(&r("Base;InProgress;White[2];wS1;bS1 wS1-")),
            Some(2)
        );
        assert_eq!(echoed_moves(&r("Base;NotStarted;White[1]")), Some(0));
        assert_eq!(echoed_moves(&r("whatever")), None);
        assert_eq!(echoed_moves(&[]), None);
    }
}
