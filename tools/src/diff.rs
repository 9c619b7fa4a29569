//! Checking another UHP engine's move generation against waggle's rules.
//!
//! Random-game mode: seeded random games (waggle picks uniformly among the moves both sides
//! agree on) are played in waggle and, incrementally with `newgame <GameType>` and `play`, in
//! the engine. At every position the engine's `validmoves` is parsed with waggle's
//! [`parse_move`] against the position and compared with waggle's legal moves as sets of
//! (piece, destination cell); after every move the state, turn and move count of the
//! engine's echoed GameString are compared with waggle's.
//!
//! Perft mode: from given positions, waggle's perft count is compared with the engine's, taken
//! from its `perft N` extension (the number after `nodes`, or the only number of the reply's
//! last line) or counted through the protocol (`validmoves`, `play`, `undo` down the tree,
//! comparing the move sets at every node on the way).

use crate::error::ToolError;
use crate::openings::rng_for;
use crate::process::{EngineSpec, UhpError, UhpProcess, echoed_game, failure_line};
use rand::Rng;
use std::collections::HashSet;
use std::time::Duration;
use waggle::core::perft::perft;
use waggle::core::{Game, GameType, Move, MoveGen, MoveList};
use waggle::notation::{format_move, game_string, parse_game_string, parse_move, turn_string};

/// One disagreement between the engine and waggle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Where: `game 3 ply 17`, `position 2`, ...
    pub place: String,
    /// The position's GameString (before the move, for move-set differences).
    pub game_string: String,
    /// What differs.
    pub what: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}\n  at {}",
            self.place, self.what, self.game_string
        )
    }
}

/// Time-outs and rules for a diff run.
#[derive(Clone, Copy, Debug)]
pub struct DiffSettings {
    /// Time allowed for start-up and for each reply.
    pub reply_timeout: Duration,
    /// Whether threefold repetition draws (waggle's rules: yes).
    pub repetition_draw: bool,
}

/// Totals of a diff run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffSummary {
    /// Games (random mode) or positions (perft mode) examined.
    pub items: usize,
    /// Positions whose move lists were compared.
    pub positions: u64,
    /// Differences found.
    pub differences: usize,
}

/// An engine's `validmoves` list: each move as written, with the waggle move it names when
/// that move is legal.
type Listed = Vec<(String, Option<Move>)>;

struct Session<'a> {
    spec: &'a EngineSpec,
    process: UhpProcess,
    settings: DiffSettings,
    summary: DiffSummary,
    report: &'a mut dyn FnMut(&Difference),
    moves: MoveList,
    /// The move generator's scratch, kept between positions.
    movegen: MoveGen,
}

impl Session<'_> {
    fn start<'a>(
        spec: &'a EngineSpec,
        settings: DiffSettings,
        report: &'a mut dyn FnMut(&Difference),
    ) -> Result<Session<'a>, ToolError> {
        let process =
            UhpProcess::start(spec, settings.reply_timeout).map_err(|error| ToolError::Engine {
                name: spec.name.clone(),
                error,
            })?;
        Ok(Session {
            spec,
            process,
            settings,
            summary: DiffSummary::default(),
            report,
            moves: MoveList::new(),
            movegen: MoveGen::new(),
        })
    }

    fn engine_error(&self, error: UhpError) -> ToolError {
        ToolError::Protocol {
            name: self.spec.name.clone(),
            detail: format!("{error}\n{}", self.process.last_output()),
        }
    }

    fn command(&mut self, cmd: &str) -> Result<Vec<String>, ToolError> {
        self.process
            .command(cmd, self.settings.reply_timeout)
            .map_err(|e| self.engine_error(e))
    }

    fn differ(&mut self, place: &str, game: &Game, what: String) {
        self.summary.differences += 1;
        (self.report)(&Difference {
            place: place.to_string(),
            game_string: game_string(game),
            what,
        });
    }

    /// Compares the engine's `validmoves` with waggle's moves. Returns the engine's move
    /// strings paired with the waggle move each names (`None` when it names none that is
    /// legal), or `None` when the engine refused.
    fn compare_moves(&mut self, place: &str, game: &mut Game) -> Result<Option<Listed>, ToolError> {
        let reply = self.command("validmoves")?;
        self.summary.positions += 1;
        if let Some(line) = failure_line(&reply) {
            self.differ(place, game, format!("validmoves answered '{line}'"));
            return Ok(None);
        }
        let line = reply
            .iter()
            .rev()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string();
        self.movegen.generate(game, &mut self.moves);
        let legal: HashSet<Move> = self.moves.iter().copied().collect();
        let mut seen: HashSet<Move> = HashSet::new();
        let mut listed = Vec::new();
        let mut problems = Vec::new();
        for text in line.split(';').map(str::trim).filter(|t| !t.is_empty()) {
            match parse_move(game, text) {
                Ok(m) => {
                    if !seen.insert(m) {
                        problems.push(format!("'{text}' is listed twice"));
                    }
                    if legal.contains(&m) {
                        listed.push((text.to_string(), Some(m)));
                    } else {
                        let canonical = format_move(game, m);
                        let why = match game.check_move(m) {
                            Err(e) => e.to_string(),
                            Ok(()) => "not generated by waggle".into(),
                        };
                        problems.push(format!("extra '{text}' ({canonical}): {why}"));
                        listed.push((text.to_string(), None));
                    }
                }
                Err(e) => {
                    problems.push(format!("unreadable '{text}': {e}"));
                    listed.push((text.to_string(), None));
                }
            }
        }
        let mut missing: Vec<String> = self
            .moves
            .iter()
            .filter(|m| !seen.contains(m))
            .map(|&m| format_move(game, m))
            .collect();
        missing.sort();
        if !missing.is_empty() {
            problems.push(format!(
                "missing {} of waggle's {} moves: {}",
                missing.len(),
                legal.len(),
                missing.join(";")
            ));
        }
        if !problems.is_empty() {
            self.differ(place, game, problems.join("; "));
        }
        Ok(Some(listed))
    }

    /// Sends `play <text>` (waggle has already played it in `game`) and compares the echoed
    /// state; false when the engine refused or disagrees (the game cannot go on).
    fn play_and_compare(
        &mut self,
        place: &str,
        game: &Game,
        text: &str,
    ) -> Result<bool, ToolError> {
        let reply = self.command(&format!("play {text}"))?;
        if let Some(line) = failure_line(&reply) {
            self.differ(
                place,
                game,
                format!("'play {text}' (legal for waggle) answered '{line}'"),
            );
            return Ok(false);
        }
        match state_difference(&reply, game) {
            Some(what) => {
                self.differ(place, game, format!("after '{text}': {what}"));
                Ok(false)
            }
            None => Ok(true),
        }
    }

    fn newgame(&mut self, place: &str, game: &Game, arg: &str) -> Result<bool, ToolError> {
        let reply = self.command(&format!("newgame {arg}"))?;
        if let Some(line) = failure_line(&reply) {
            self.differ(place, game, format!("'newgame {arg}' answered '{line}'"));
            return Ok(false);
        }
        if let Some(what) = state_difference(&reply, game) {
            self.differ(place, game, format!("after 'newgame': {what}"));
            return Ok(false);
        }
        Ok(true)
    }
}

/// How the engine's echoed GameString (the reply's last line) disagrees with `game` on the
/// state, the turn or the number of moves, if it does.
fn state_difference(reply: &[String], game: &Game) -> Option<String> {
    let Some((state, turn, moves)) = echoed_game(reply) else {
        let line = reply.last().map(|l| l.trim()).unwrap_or("");
        return Some(format!("the reply '{line}' is not a GameString"));
    };
    let ours = (game.state().name(), turn_string(game), game.ply() as usize);
    let same =
        state.eq_ignore_ascii_case(ours.0) && turn.eq_ignore_ascii_case(&ours.1) && moves == ours.2;
    (!same).then(|| {
        format!(
            "engine has {state};{turn} with {moves} moves, waggle {};{} with {} moves",
            ours.0, ours.1, ours.2
        )
    })
}

/// Plays `games` seeded random games of up to `plies` plies (game `i` of type
/// `types[i % len]`) and reports every difference to `report`.
pub fn diff_random_games(
    spec: &EngineSpec,
    games: usize,
    plies: u32,
    seed: u64,
    types: &[GameType],
    settings: DiffSettings,
    report: &mut dyn FnMut(&Difference),
) -> Result<DiffSummary, ToolError> {
    if types.is_empty() {
        return Err(ToolError::Config("no game type given".into()));
    }
    let mut s = Session::start(spec, settings, report)?;
    for g in 0..games {
        s.summary.items += 1;
        let game_type = types[g % types.len()];
        let mut rng = rng_for(seed, g as u64);
        let mut game = Game::new(game_type);
        game.set_repetition_draw(settings.repetition_draw);
        if !s.newgame(&format!("game {g} start"), &game, &game_type.to_string())? {
            continue;
        }
        for ply in 0..plies {
            if game.state().is_over() {
                break;
            }
            let place = format!("game {g} ply {ply}");
            let Some(listed) = s.compare_moves(&place, &mut game)? else {
                break;
            };
            // Choose among the moves both agree on, in waggle's order (reproducible).
            let agreed: HashSet<Move> = listed.iter().filter_map(|(_, m)| *m).collect();
            let choices: Vec<Move> = s
                .moves
                .iter()
                .copied()
                .filter(|m| agreed.contains(m))
                .collect();
            if choices.is_empty() {
                break;
            }
            let m = choices[rng.gen_range(0..choices.len())];
            let text = format_move(&game, m);
            game.play_unchecked(m);
            if !s.play_and_compare(&place, &game, &text)? {
                break;
            }
        }
    }
    Ok(s.summary)
}

/// How the engine's perft counts are obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerftMethod {
    /// The engine's `perft N` extension.
    Extension,
    /// Walking the tree through the protocol with `validmoves`, `play` and `undo`.
    ValidMoves,
    /// The extension when the engine has it (tried once), the walk otherwise.
    Auto,
}

/// A perft position: the game, the depth, and optionally a count known in advance.
#[derive(Clone)]
pub struct PerftPosition {
    /// The position.
    pub game: Game,
    /// Depth to count.
    pub depth: u32,
    /// A count given with the position (checked against waggle's too).
    pub expected: Option<u64>,
}

/// Reads perft positions: one per line, `GameString [TAB depth [TAB nodes]]` (the format of
/// `perft-positions.tsv` and Mzinga's perft files); `#` comments and blank lines skipped.
/// `depth` overrides the file's depth (then the file's count is only used when the depths
/// agree).
pub fn parse_perft_positions(
    text: &str,
    depth: Option<u32>,
    repetition_draw: bool,
) -> Result<Vec<PerftPosition>, ToolError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}').trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
        let bad = |what: String| ToolError::Config(format!("line {}: {what}", n + 1));
        let gs = if cols[0].contains(';') {
            cols[0].to_string()
        } else {
            format!("{};NotStarted;White[1]", cols[0])
        };
        let game = parse_game_string(&gs, repetition_draw).map_err(|e| bad(e.to_string()))?;
        let file_depth = match cols.get(1) {
            Some(d) => Some(
                d.parse::<u32>()
                    .map_err(|_| bad(format!("'{d}' is not a depth")))?,
            ),
            None => None,
        };
        let expected = match cols.get(2) {
            Some(c) => Some(
                c.parse::<u64>()
                    .map_err(|_| bad(format!("'{c}' is not a count")))?,
            ),
            None => None,
        };
        let Some(d) = depth.or(file_depth) else {
            return Err(bad("no depth (give --depth)".into()));
        };
        out.push(PerftPosition {
            game,
            depth: d,
            expected: expected.filter(|_| file_depth == Some(d)),
        });
    }
    Ok(out)
}

/// Reads a perft count from a `perft N` reply: the number after `nodes` on the last line, else
/// the count of a last line that starts with the depth and the count (`3 1440 ...`, `3: 1,440`,
/// as waggle's UHP reply and the `uhp-utils` tools have them), else that line's only number
/// other than the depth.
pub fn parse_perft_reply(reply: &[String], depth: u32) -> Option<u64> {
    let line = reply
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())?;
    let lower = line.to_ascii_lowercase();
    if let Some(i) = lower.find("nodes") {
        let digits: String = lower[i + 5..]
            .trim_start_matches(|c: char| !c.is_ascii_digit())
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        return digits.parse().ok();
    }
    let mut words = lower.split_whitespace();
    if let (Some(d), Some(n)) = (words.next(), words.next())
        && d.trim_end_matches(':').parse::<u32>() == Ok(depth)
        && let Ok(n) = n.replace(',', "").parse()
    {
        return Some(n);
    }
    let numbers: Vec<u64> = lower
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|t| t.parse().ok())
        .collect();
    match numbers.as_slice() {
        [n] => Some(*n),
        [a, b] if *a == u64::from(depth) => Some(*b),
        [a, b] if *b == u64::from(depth) => Some(*a),
        _ => None,
    }
}

/// Compares perft counts at every position; a count mismatch and every move-set difference
/// met on a protocol walk are reported.
pub fn diff_perft(
    spec: &EngineSpec,
    positions: &[PerftPosition],
    method: PerftMethod,
    settings: DiffSettings,
    report: &mut dyn FnMut(&Difference),
    log: &mut dyn FnMut(&str),
) -> Result<DiffSummary, ToolError> {
    let mut s = Session::start(spec, settings, report)?;
    let mut method = method;
    for (i, pos) in positions.iter().enumerate() {
        s.summary.items += 1;
        let place = format!("position {i}");
        let mut game = pos.game.clone();
        let ours = perft(&mut game.clone(), pos.depth);
        if let Some(e) = pos.expected
            && e != ours
        {
            s.differ(
                &place,
                &game,
                format!("waggle counts {ours} at depth {}, the file {e}", pos.depth),
            );
        }
        let gs = game_string(&game);
        if !s.newgame(&place, &game, &gs)? {
            continue;
        }
        let mut theirs = None;
        if method != PerftMethod::ValidMoves {
            let reply = s.command(&format!("perft {}", pos.depth))?;
            match (failure_line(&reply), parse_perft_reply(&reply, pos.depth)) {
                (None, Some(n)) => {
                    theirs = Some(n);
                    method = PerftMethod::Extension;
                }
                _ if method == PerftMethod::Auto => {
                    log("the engine has no readable 'perft N': counting through validmoves");
                    method = PerftMethod::ValidMoves;
                }
                (line, _) => {
                    let detail = line.map_or_else(|| reply.join(" | "), str::to_string);
                    return Err(ToolError::Protocol {
                        name: spec.name.clone(),
                        detail: format!("cannot read its perft reply: {detail}"),
                    });
                }
            }
        }
        let theirs = match theirs {
            Some(n) => n,
            None => walk(&mut s, &place, &mut game, pos.depth)?,
        };
        log(&format!(
            "{place}: depth {} waggle {ours} engine {theirs}{}",
            pos.depth,
            if ours == theirs { "" } else { "  DIFFERENT" }
        ));
        if ours != theirs {
            s.differ(
                &place,
                &pos.game,
                format!(
                    "perft({}) waggle {ours}, engine {theirs} ({})",
                    pos.depth,
                    if method == PerftMethod::Extension {
                        "its perft extension"
                    } else {
                        "counted through validmoves"
                    }
                ),
            );
        }
    }
    Ok(s.summary)
}

/// The engine's perft count through the protocol, comparing move sets on the way. Moves the
/// engine lists but waggle cannot follow are reported and counted at depth 1 only.
fn walk(s: &mut Session<'_>, place: &str, game: &mut Game, depth: u32) -> Result<u64, ToolError> {
    if depth == 0 {
        return Ok(1);
    }
    if game.state().is_over() {
        return Ok(0);
    }
    let Some(listed) = s.compare_moves(place, game)? else {
        return Ok(0);
    };
    if depth == 1 {
        return Ok(listed.len() as u64);
    }
    let mut total = 0;
    for (text, m) in listed {
        let Some(m) = m else { continue };
        game.play_unchecked(m);
        if s.play_and_compare(place, game, &text)? {
            total += walk(s, place, game, depth - 1)?;
            let reply = s.command("undo")?;
            if let Some(line) = failure_line(&reply) {
                return Err(ToolError::Protocol {
                    name: s.spec.name.clone(),
                    detail: format!("'undo' answered '{line}'"),
                });
            }
        } else {
            // Put the engine back on the position, whatever it made of the move.
            game.undo();
            let gs = game_string(game);
            s.newgame(place, game, &gs)?;
            continue;
        }
        game.undo();
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &[&str]) -> Vec<String> {
        s.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn perft_replies_are_read() {
        assert_eq!(parse_perft_reply(&lines(&["nodes=360"]), 2), Some(360));
        assert_eq!(
            parse_perft_reply(
                &lines(&["depth=1 nodes=4", "depth=2 nodes=96 time_ms=0"]),
                2
            ),
            Some(96)
        );
        assert_eq!(
            parse_perft_reply(
                &lines(&["1 4 time_ms=0 nps=0", "2 96 time_ms=0 nps=96000"]),
                2
            ),
            Some(96)
        );
        assert_eq!(parse_perft_reply(&lines(&["3: 1,440"]), 3), Some(1440));
        assert_eq!(parse_perft_reply(&lines(&["Nodes: 1234"]), 3), Some(1234));
        assert_eq!(parse_perft_reply(&lines(&["1234"]), 3), Some(1234));
        assert_eq!(
            parse_perft_reply(&lines(&["perft(3) = 1234"]), 3),
            Some(1234)
        );
        assert_eq!(parse_perft_reply(&lines(&["1 2 3"]), 3), None);
        assert_eq!(parse_perft_reply(&[], 3), None);
    }

    #[test]
    fn echoed_states_are_compared() {
        let g = parse_game_string("Base;InProgress;Black[1];wS1", true).unwrap();
        assert_eq!(
            state_difference(&lines(&["Base;InProgress;Black[1];wS1"]), &g),
            None
        );
        assert!(state_difference(&lines(&["Base;InProgress;White[2];wS1"]), &g).is_some());
        assert!(state_difference(&lines(&["Base;WhiteWins;Black[1];wS1"]), &g).is_some());
        assert!(state_difference(&lines(&["Base;InProgress;Black[1]"]), &g).is_some());
        assert!(state_difference(&lines(&["ok?"]), &g).is_some());
    }

    #[test]
    fn perft_position_files_are_read() {
        let text = "# c\nBase+M;NotStarted;White[1]\t2\t100\nBase\t3\n";
        let p = parse_perft_positions(text, None, true).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!((p[0].depth, p[0].expected), (2, Some(100)));
        assert_eq!((p[1].depth, p[1].expected), (3, None));
        let p = parse_perft_positions(text, Some(1), true).unwrap();
        assert_eq!((p[0].depth, p[0].expected), (1, None));
        assert!(parse_perft_positions("Base\n", None, true).is_err());
        assert!(parse_perft_positions("Base\tx\n", None, true).is_err());
    }
}
