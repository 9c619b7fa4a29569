//! Result files: one TAB-separated line per game, self-describing, so that `arena merge` can
//! rebuild the report from the files of several shards.
//!
//! ```text
//! # waggle arena results v1
//! # mode<TAB>gauntlet
//! # engines<TAB>new<TAB>old
//! # match<TAB>depth 2; openings: 50 random of 4 plies, seed 1, types Base+MLP; ...
//! id  pair  opening  white  black  result  plies  termination  reason  gamestring
//! 0   0     0        new    old    WhiteWins  57  queen-surrounded  Black's queen ...  Base;...
//! ```

use super::Mode;
use crate::error::ToolError;
use waggle::core::GameState;
use waggle::notation::parse_game_state;

/// First line of a result file.
pub const MAGIC: &str = "# waggle arena results v1";
/// The column header line.
pub const COLUMNS: &str =
    "id\tpair\topening\twhite\tblack\tresult\tplies\ttermination\treason\tgamestring";

/// One finished game as stored in a result file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Game number in the schedule.
    pub id: usize,
    /// Game-pair number in the schedule.
    pub pair: usize,
    /// Opening index.
    pub opening: usize,
    /// Name of the engine playing White.
    pub white: String,
    /// Name of the engine playing Black.
    pub black: String,
    /// `WhiteWins`, `BlackWins` or `Draw`.
    pub result: GameState,
    /// Plies played, the opening's included.
    pub plies: u32,
    /// Short category of how the game ended (see [`super::game::PlayedGame::termination`]).
    pub termination: String,
    /// Readable reason.
    pub reason: String,
    /// The game's GameString (the board's state, which is `InProgress` for an adjudicated
    /// or forfeited game).
    pub game_string: String,
}

/// Replaces the characters that would break a TAB-separated line.
pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c == '\t' || c == '\n' || c == '\r' {
                ' '
            } else {
                c
            }
        })
        .collect()
}

impl GameRecord {
    /// The result's half-points for White (2, 1 or 0).
    pub fn white_half_points(&self) -> u8 {
        match self.result {
            GameState::WhiteWins => 2,
            GameState::BlackWins => 0,
            _ => 1,
        }
    }

    /// The same record with `-` in place of its GameString (see [`results_text`]).
    pub fn without_game(&self) -> GameRecord {
        GameRecord {
            game_string: "-".into(),
            ..self.clone()
        }
    }

    /// The record as one line (no line end).
    pub fn to_line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            self.id,
            self.pair,
            self.opening,
            sanitize(&self.white),
            sanitize(&self.black),
            self.result.name(),
            self.plies,
            sanitize(&self.termination),
            sanitize(&self.reason),
            sanitize(&self.game_string)
        )
    }

    /// Reads a line written by [`GameRecord::to_line`].
    pub fn parse_line(line: &str) -> Result<GameRecord, String> {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 10 {
            return Err(format!("{} fields instead of 10", f.len()));
        }
        let num = |i: usize| {
            f[i].trim()
                .parse::<usize>()
                .map_err(|_| format!("'{}' is not a number", f[i]))
        };
        let result = parse_game_state(f[5]).map_err(|e| e.to_string())?;
        if !result.is_over() {
            return Err(format!("'{}' is not a result", f[5]));
        }
        Ok(GameRecord {
            id: num(0)?,
            pair: num(1)?,
            opening: num(2)?,
            white: f[3].to_string(),
            black: f[4].to_string(),
            result,
            plies: num(6)? as u32,
            termination: f[7].to_string(),
            reason: f[8].to_string(),
            game_string: f[9].to_string(),
        })
    }
}

/// The start of the header line with the match's settings.
pub const SETTINGS_PREFIX: &str = "# match\t";

/// The header line with the match's settings (see [`ResultFile::settings`]).
pub fn settings_line(settings: &str) -> String {
    format!("{SETTINGS_PREFIX}{}\n", sanitize(settings))
}

/// The header of a result file.
pub fn header(mode: Mode, engines: &[String]) -> String {
    let names: Vec<String> = engines.iter().map(|n| sanitize(n)).collect();
    format!(
        "{MAGIC}\n# mode\t{mode}\n# engines\t{}\n{COLUMNS}\n",
        names.join("\t")
    )
}

/// A whole result file: the header, the settings line when there is one, and the records.
/// Without `games` each GameString is written as `-`, for a small file that still holds
/// every result (what `engine-tests/sprt/` keeps).
pub fn results_text(
    mode: Mode,
    engines: &[String],
    settings: Option<&str>,
    records: &[GameRecord],
    games: bool,
) -> String {
    let mut text = header(mode, engines);
    if let Some(s) = settings {
        text.push_str(&settings_line(s));
    }
    for r in records {
        let line = if games {
            r.to_line()
        } else {
            r.without_game().to_line()
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// A result file read back.
#[derive(Clone, Debug, Default)]
pub struct ResultFile {
    /// The mode, when the header names one.
    pub mode: Option<Mode>,
    /// Engine names from the header, in schedule order.
    pub engines: Vec<String>,
    /// The match's settings (limit, openings, move limit), when the header has them: files
    /// of one match agree on it.
    pub settings: Option<String>,
    /// The games.
    pub records: Vec<GameRecord>,
}

/// Parses a result file's text; `name` is used in error messages.
pub fn parse_results(text: &str, name: &str) -> Result<ResultFile, ToolError> {
    let mut out = ResultFile::default();
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some(MAGIC) {
        return Err(ToolError::Config(format!(
            "{name}: not an arena result file"
        )));
    }
    // A last line without its line end may have been cut short by a writer that died (or is
    // still writing): it is ignored when it does not read as a record.
    let cut = !text.ends_with('\n');
    let count = text.lines().count();
    for (n, line) in lines.enumerate() {
        if line.trim().is_empty() || line == COLUMNS {
            continue;
        }
        if cut && n + 2 == count && GameRecord::parse_line(line).is_err() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# mode\t") {
            out.mode = Mode::parse(rest);
        } else if let Some(rest) = line.strip_prefix("# engines\t") {
            out.engines = rest.split('\t').map(str::to_string).collect();
        } else if let Some(rest) = line.strip_prefix(SETTINGS_PREFIX) {
            out.settings = Some(rest.to_string());
        } else if line.starts_with('#') {
            continue;
        } else {
            let r = GameRecord::parse_line(line)
                .map_err(|e| ToolError::Config(format!("{name} line {}: {e}", n + 2)))?;
            out.records.push(r);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> GameRecord {
        GameRecord {
            id: 7,
            pair: 3,
            opening: 1,
            white: "new".into(),
            black: "old\tone".into(),
            result: GameState::BlackWins,
            plies: 42,
            termination: "crash".into(),
            reason: "crash of new: exited\n(signal 9)".into(),
            game_string: "Base;InProgress;White[1]".into(),
        }
    }

    #[test]
    fn records_round_trip_through_files() {
        let r = record();
        let text = format!(
            "{}{}\n",
            header(Mode::Gauntlet, &["new".into(), "old\tone".into()]),
            r.to_line()
        );
        let file = parse_results(&text, "x").unwrap();
        assert_eq!(file.mode, Some(Mode::Gauntlet));
        assert_eq!(file.engines, vec!["new", "old one"]);
        assert_eq!(file.records.len(), 1);
        let back = &file.records[0];
        assert_eq!(back.black, "old one");
        assert_eq!(back.reason, "crash of new: exited (signal 9)");
        assert_eq!(back.white_half_points(), 0);
        assert_eq!((back.id, back.pair, back.plies), (7, 3, 42));
    }

    #[test]
    fn whole_files_round_trip_with_or_without_their_games() {
        let engines = vec!["new".to_string(), "old".to_string()];
        let mut second = record();
        second.id = 8;
        second.black = "old".into();
        second.reason = "White's queen surrounded".into();
        let records = vec![second.clone()];
        for games in [true, false] {
            let text = results_text(Mode::Gauntlet, &engines, Some("depth 2"), &records, games);
            let file = parse_results(&text, "x").unwrap();
            assert_eq!(file.mode, Some(Mode::Gauntlet));
            assert_eq!(file.engines, engines);
            assert_eq!(file.settings.as_deref(), Some("depth 2"));
            let expected = if games {
                second.clone()
            } else {
                second.without_game()
            };
            assert_eq!(file.records, vec![expected]);
            assert_eq!(file.records[0].game_string == "-", !games);
        }
    }

    #[test]
    fn bad_files_are_refused() {
        assert!(parse_results("hello\n", "x").is_err());
        let text = format!("{MAGIC}\n1\t2\n");
        assert!(parse_results(&text, "x").is_err());
        // A last line cut short is ignored, one in the middle is an error.
        let line = record().to_line();
        let half = &line[..line.len() / 2];
        let text = format!("{MAGIC}\n{line}\n{half}");
        assert_eq!(parse_results(&text, "x").unwrap().records.len(), 1);
        let text = format!("{MAGIC}\n{half}\n{line}\n");
        assert!(parse_results(&text, "x").is_err());
        let mut r = record();
        r.result = GameState::InProgress;
        let text = format!("{MAGIC}\n{}\n", r.to_line());
        assert!(parse_results(&text, "x").is_err());
    }
}
