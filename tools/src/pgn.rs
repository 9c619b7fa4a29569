//! Mzinga-style PGN: the tag lines `[GameType "..."]`, `[Date ...]`, `[Event ...]`,
//! `[Site ...]`, `[Round ...]`, `[White ...]`, `[Black ...]`, `[Result "..."]` (a
//! GameStateString), any further tags, a blank line, one UHP MoveString per numbered line
//! (`1. wS1`, `2. bS1 wS1-`, ... numbered by ply), and, when the game is over, a blank line
//! and the result again. MzingaViewer opens such a file and replays the game.

use crate::error::ToolError;
use waggle::core::{Game, GameState, GameType};
use waggle::notation::{format_move, parse_game_state, parse_game_type, parse_move};

/// The tags of a saved game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnHeader {
    /// `Event`.
    pub event: String,
    /// `Site`.
    pub site: String,
    /// `Date`, as `yyyy.mm.dd`.
    pub date: String,
    /// `Round`.
    pub round: String,
    /// `White`: the player of the white pieces.
    pub white: String,
    /// `Black`: the player of the black pieces.
    pub black: String,
    /// `Result`: the result of the game (which may differ from the board's state when a
    /// game ends by adjudication or by an engine failure).
    pub result: GameState,
    /// Further tags, written after the mandatory ones.
    pub extra: Vec<(String, String)>,
}

/// A tag value as Mzinga reads it: no double quotes and no line breaks.
fn clean(value: &str) -> String {
    value
        .chars()
        .map(|c| match c {
            '"' => '\'',
            '\n' | '\r' | '\t' => ' ',
            c => c,
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// Writes `game` (its whole history, from the empty board) as a PGN text.
pub fn write_pgn(game: &Game, header: &PgnHeader) -> String {
    let mut out = String::new();
    let mut tag = |k: &str, v: &str| out.push_str(&format!("[{k} \"{}\"]\n", clean(v)));
    tag("GameType", &game.game_type().to_string());
    tag("Date", &header.date);
    tag("Event", &header.event);
    tag("Site", &header.site);
    tag("Round", &header.round);
    tag("White", &header.white);
    tag("Black", &header.black);
    tag("Result", header.result.name());
    for (k, v) in &header.extra {
        let key: String = k.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        tag(&key, v);
    }
    let mut replay = Game::new(game.game_type());
    replay.set_repetition_draw(game.repetition_draw());
    if game.ply() > 0 {
        out.push('\n');
        for (i, m) in game.moves().enumerate() {
            out.push_str(&format!("{}. {}\n", i + 1, format_move(&replay, m)));
            replay.play_unchecked(m);
        }
    }
    if header.result.is_over() {
        out.push('\n');
        out.push_str(header.result.name());
        out.push('\n');
    }
    out
}

/// A game read back from PGN.
pub struct PgnGame {
    /// Every tag, in file order (`GameType` and `Result` included).
    pub tags: Vec<(String, String)>,
    /// The game, every move replayed and checked with waggle's rules.
    pub game: Game,
    /// The result given by the file (the `Result` tag or the result line), if any.
    pub result: Option<GameState>,
}

impl PgnGame {
    /// The value of tag `key`, if present.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

/// Reads one PGN game and replays its moves with waggle's rules; an unreadable or illegal
/// move is an error naming its line.
pub fn parse_pgn(text: &str, repetition_draw: bool) -> Result<PgnGame, ToolError> {
    let bad = |n: usize, what: String| ToolError::Config(format!("PGN line {}: {what}", n + 1));
    let mut tags = Vec::new();
    let mut moves: Vec<(usize, String)> = Vec::new();
    let mut result = None;
    let mut game_type = GameType::BASE;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_start_matches('\u{feff}').trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('[') && line.ends_with(']') {
            let inner = &line[1..line.len() - 1];
            let (key, value) = inner
                .split_once(' ')
                .ok_or_else(|| bad(n, format!("'{line}' is not a tag")))?;
            let value = value.trim().trim_matches('"').to_string();
            if key.eq_ignore_ascii_case("GameType") {
                game_type = parse_game_type(&value).map_err(|e| bad(n, e.to_string()))?;
            } else if key.eq_ignore_ascii_case("Result") {
                result = parse_game_state(&value).ok();
            }
            tags.push((key.to_string(), value));
        } else if let Ok(state) = parse_game_state(line) {
            result = Some(state);
        } else {
            let text = line.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            moves.push((n, text.trim().to_string()));
        }
    }
    let mut game = Game::new(game_type);
    game.set_repetition_draw(repetition_draw);
    for (n, text) in moves {
        let m = parse_move(&game, &text).map_err(|e| bad(n, format!("'{text}': {e}")))?;
        game.play(m)
            .map_err(|e| bad(n, format!("'{text}' is illegal: {e}")))?;
    }
    Ok(PgnGame { tags, game, result })
}

/// Today's date (UTC) as PGN writes it, `yyyy.mm.dd`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_date(secs / 86_400);
    format!("{y:04}.{m:02}.{d:02}")
}

/// The Gregorian date `days` days after 1970-01-01.
fn civil_date(mut days: u64) -> (u64, u64, u64) {
    let leap = |y: u64| (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    let mut year = 1970;
    loop {
        let len = if leap(year) { 366 } else { 365 };
        if days < len {
            break;
        }
        days -= len;
        year += 1;
    }
    let feb = if leap(year) { 29 } else { 28 };
    let months = [31, feb, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut month = 1;
    for len in months {
        if days < len {
            break;
        }
        days -= len;
        month += 1;
    }
    (year, month, days + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use waggle::notation::{game_string, parse_game_string};

    fn header(result: GameState) -> PgnHeader {
        PgnHeader {
            event: "test".into(),
            site: String::new(),
            date: "2024.02.29".into(),
            round: "3".into(),
            white: "alpha \"a\"".into(),
            black: "beta".into(),
            result,
            extra: vec![("Termination".into(), "flag\nfall".into())],
        }
    }

    #[test]
    fn pgn_round_trips_and_looks_like_mzinga() {
        let g = parse_game_string(
            "Base+MLP;InProgress;White[3];wS1;bG1 -wS1;wQ wS1/;bQ /bG1",
            true,
        )
        .unwrap();
        let text = write_pgn(&g, &header(GameState::BlackWins));
        let expected = "[GameType \"Base+MLP\"]\n[Date \"2024.02.29\"]\n[Event \"test\"]\n\
            [Site \"\"]\n[Round \"3\"]\n[White \"alpha 'a'\"]\n[Black \"beta\"]\n\
            [Result \"BlackWins\"]\n[Termination \"flag fall\"]\n\n1. wS1\n2. bG1 -wS1\n\
            3. wQ wS1/\n4. bQ /bG1\n\nBlackWins\n";
        assert_eq!(text, expected);
        let back = parse_pgn(&text, true).unwrap();
        assert_eq!(game_string(&back.game), game_string(&g));
        assert_eq!(back.result, Some(GameState::BlackWins));
        assert_eq!(back.tag("white"), Some("alpha 'a'"));
        assert_eq!(back.tag("Termination"), Some("flag fall"));
    }

    #[test]
    fn illegal_pgn_moves_are_refused() {
        let text = "[GameType \"Base\"]\n\n1. wS1\n2. wS2 wS1-\n";
        let err = parse_pgn(text, true).err().unwrap().to_string();
        assert!(err.contains("line 4"), "{err}");
        assert!(parse_pgn("[GameType \"Base+Z\"]\n", true).is_err());
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
        assert_eq!(civil_date(19_782), (2024, 2, 29));
        assert_eq!(civil_date(20_089), (2025, 1, 1));
    }
}
