//! Openings for matches: random ones from a seed, or GameStrings read from a file.

use crate::error::ToolError;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use waggle::core::{Game, GameType, MoveGen, MoveList};
use waggle::notation::{game_string, parse_game_string, parse_game_type};

/// A start position for a game pair: a game type and the moves played so far.
#[derive(Clone)]
pub struct Opening {
    /// The position, with its history.
    pub game: Game,
}

impl Opening {
    /// The opening's GameString.
    pub fn game_string(&self) -> String {
        game_string(&self.game)
    }

    /// What follows `newgame` to set the opening up in an engine: the bare GameTypeString
    /// when no move has been played, the GameString otherwise.
    pub fn newgame_argument(&self) -> String {
        if self.game.ply() == 0 {
            self.game.game_type().to_string()
        } else {
            self.game_string()
        }
    }
}

/// Parses a comma-separated list of GameTypeStrings; `all` stands for the eight types.
pub fn parse_game_types(s: &str) -> Result<Vec<GameType>, ToolError> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok(GameType::all().to_vec());
    }
    let types = s
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| parse_game_type(t).map_err(|e| ToolError::Config(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    if types.is_empty() {
        return Err(ToolError::Config("no game type given".into()));
    }
    Ok(types)
}

/// A random number generator for item `index` of a run seeded with `seed`: the same pair
/// always gives the same sequence, whatever else the run does.
pub fn rng_for(seed: u64, index: u64) -> StdRng {
    // SplitMix64 finaliser, so that neighbouring indices give unrelated seeds.
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    StdRng::seed_from_u64(z ^ (z >> 31))
}

/// Plays `plies` uniformly random legal moves from `game`, retrying (with further random
/// numbers) whenever the game would end on the way. Gives up after 100 tries and returns the
/// last attempt cut short before its end, so the result is always unfinished.
pub fn random_continuation(start: &Game, plies: u32, rng: &mut impl Rng) -> Game {
    let mut moves = MoveList::new();
    let mut movegen = MoveGen::new();
    let mut best = start.clone();
    for _ in 0..100 {
        let mut game = start.clone();
        let mut ok = true;
        for _ in 0..plies {
            movegen.generate(&game, &mut moves);
            if moves.is_empty() {
                ok = false;
                break;
            }
            let m = moves[rng.gen_range(0..moves.len())];
            game.play_unchecked(m);
            if game.state().is_over() {
                game.undo();
                ok = false;
                break;
            }
        }
        if ok {
            return game;
        }
        if game.ply() > best.ply() {
            best = game;
        }
    }
    best
}

/// `count` random openings of `plies` plies from `seed`; opening `i` has game type
/// `types[i % types.len()]`.
pub fn random_openings(
    count: usize,
    plies: u32,
    seed: u64,
    types: &[GameType],
    repetition_draw: bool,
) -> Vec<Opening> {
    (0..count)
        .map(|i| {
            let game_type = types
                .get(i % types.len().max(1))
                .copied()
                .unwrap_or_default();
            let mut start = Game::new(game_type);
            start.set_repetition_draw(repetition_draw);
            let mut rng = rng_for(seed, i as u64);
            Opening {
                game: random_continuation(&start, plies, &mut rng),
            }
        })
        .collect()
}

/// Reads openings, one per line: a GameString, or a bare GameTypeString for an empty board.
/// Blank lines and lines starting with `#` are skipped; a UTF-8 byte-order mark is ignored;
/// only the first TAB-separated column is read. Finished games are refused.
pub fn parse_openings(text: &str, repetition_draw: bool) -> Result<Vec<Opening>, ToolError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}');
        let line = line.split('\t').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let text = if line.contains(';') {
            line.to_string()
        } else {
            format!("{line};NotStarted;White[1]")
        };
        let game = parse_game_string(&text, repetition_draw)
            .map_err(|e| ToolError::Config(format!("opening on line {}: {e}", n + 1)))?;
        if game.state().is_over() {
            return Err(ToolError::Config(format!(
                "opening on line {} is a finished game",
                n + 1
            )));
        }
        out.push(Opening { game });
    }
    if out.is_empty() {
        return Err(ToolError::Config("the openings file has no opening".into()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_openings_are_reproducible_legal_and_cover_the_types() {
        let types = GameType::all();
        let a = random_openings(16, 6, 42, &types, true);
        let b = random_openings(16, 6, 42, &types, true);
        let c = random_openings(16, 6, 43, &types, true);
        assert_eq!(a.len(), 16);
        for (i, o) in a.iter().enumerate() {
            assert_eq!(o.game.ply(), 6);
            assert_eq!(o.game.game_type(), types[i % 8]);
            assert!(!o.game.state().is_over());
            assert_eq!(o.game_string(), b[i].game_string());
            // Replaying the GameString with the rules gives the same game.
            let again = parse_game_string(&o.game_string(), true).unwrap();
            assert_eq!(game_string(&again), o.game_string());
        }
        let differ = a
            .iter()
            .zip(&c)
            .filter(|(x, y)| x.game_string() != y.game_string())
            .count();
        assert!(differ > 8, "another seed should give other openings");
    }

    #[test]
    fn openings_files_are_read() {
        let text = "\u{feff}# comment\n\nBase+M\nBase;InProgress;White[2];wS1;bS1 wS1-\t4\t99\n";
        let o = parse_openings(text, true).unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].newgame_argument(), "Base+M");
        assert_eq!(
            o[1].newgame_argument(),
            "Base;InProgress;White[2];wS1;bS1 wS1-"
        );
        assert!(parse_openings("Base;InProgress;White[2];wS1;wS2 wS1-", true).is_err());
        assert!(parse_openings("# nothing\n", true).is_err());
        assert!(parse_openings("Base+X", true).is_err());
    }

    #[test]
    fn game_type_lists() {
        assert_eq!(parse_game_types("all").unwrap().len(), 8);
        assert_eq!(
            parse_game_types("Base, base+mlp").unwrap(),
            vec![GameType::BASE, GameType::MLP]
        );
        assert!(parse_game_types("Base+Q").is_err());
        assert!(parse_game_types(" , ").is_err());
    }
}
