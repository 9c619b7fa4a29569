//! UHP text: MoveString, GameTypeString and GameString to and from the core types.
//!
//! Parsing is lenient (case, extra spaces, any neighbour as reference); printing is canonical.

// Bad input must get an answer, never a crash: no unwrap, expect or panic outside the tests.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::core::{Bug, Cell, Color, Direction, Game, GameState, GameType, Move, Piece, RuleError};
use std::fmt;

/// Why a piece of UHP text could not be understood or applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// Nothing was given.
    Empty,
    /// Not a piece name such as `wQ`, `bS1` or `wM`.
    BadPiece(String),
    /// Not a reference such as `wS1-`, `/bQ` or `wB2`.
    BadReference(String),
    /// The reference piece is not on the board.
    ReferenceNotOnBoard(Piece),
    /// A move other than the first needs a reference piece.
    MissingReference(Piece),
    /// The first move of a game is the bare piece name.
    FirstMoveHasReference,
    /// A side mark (`-`, `/`, `\`) names a cell that is occupied; climbing is written by naming
    /// the piece climbed on, without a mark.
    SideOfOccupied(Piece),
    /// More words than a MoveString has.
    TooManyWords(String),
    /// Not a GameTypeString.
    BadGameType(String),
    /// Not a GameStateString.
    BadGameState(String),
    /// A move of a GameString could not be read.
    BadMoveInGame {
        /// 1-based position of the move in the GameString.
        index: usize,
        /// The move as written.
        text: String,
        /// What was wrong with it.
        error: Box<NotationError>,
    },
    /// A move of a GameString breaks the rules.
    IllegalMoveInGame {
        /// 1-based position of the move in the GameString.
        index: usize,
        /// The move as written.
        text: String,
        /// The rule it breaks.
        error: RuleError,
    },
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Empty => write!(f, "empty input"),
            NotationError::BadPiece(s) => write!(f, "'{s}' is not a piece name"),
            NotationError::BadReference(s) => write!(f, "'{s}' is not a valid reference"),
            NotationError::ReferenceNotOnBoard(p) => {
                write!(f, "the reference piece {p} is not on the board")
            }
            NotationError::MissingReference(p) => {
                write!(f, "a move of {p} needs a reference piece")
            }
            NotationError::FirstMoveHasReference => {
                write!(f, "the first move of a game is a piece name alone")
            }
            NotationError::SideOfOccupied(p) => write!(
                f,
                "a piece already exists at that position (to climb onto {p}, write it without a mark)"
            ),
            NotationError::TooManyWords(s) => write!(f, "'{s}' has too many words for a move"),
            NotationError::BadGameType(s) => write!(f, "'{s}' is not a game type"),
            NotationError::BadGameState(s) => write!(f, "'{s}' is not a game state"),
            NotationError::BadMoveInGame { index, text, error } => {
                write!(f, "move {index} '{text}': {error}")
            }
            NotationError::IllegalMoveInGame { index, text, error } => {
                write!(f, "move {index} '{text}' is illegal: {error}")
            }
        }
    }
}

impl std::error::Error for NotationError {}

/// Parses a piece name (`wQ`, `bS1`, `WM`, `wq1`), case-insensitively.
pub fn parse_piece(s: &str) -> Result<Piece, NotationError> {
    let bad = || NotationError::BadPiece(s.to_string());
    let mut chars = s.chars();
    let color = match chars.next().map(|c| c.to_ascii_lowercase()) {
        Some('w') => Color::White,
        Some('b') => Color::Black,
        _ => return Err(bad()),
    };
    let bug = chars.next().and_then(Bug::from_letter).ok_or_else(bad)?;
    let rest = chars.as_str();
    let number = match rest {
        "" if bug.count() == 1 => 1,
        "" => return Err(bad()),
        "1" | "2" | "3" => rest.parse::<u8>().map_err(|_| bad())?,
        _ => return Err(bad()),
    };
    Piece::new(color, bug, number).ok_or_else(bad)
}

/// Parses a MoveString against `game`'s position: the piece and the cell it names. Whether the
/// move is legal is for the rules to say ([`Game::play`]).
pub fn parse_move(game: &Game, s: &str) -> Result<Move, NotationError> {
    let mut words = s.split_whitespace();
    let first = words.next().ok_or(NotationError::Empty)?;
    if first.eq_ignore_ascii_case("pass") {
        return match words.next() {
            None => Ok(Move::PASS),
            Some(_) => Err(NotationError::TooManyWords(s.trim().to_string())),
        };
    }
    let piece = parse_piece(first)?;
    let reference = words.next();
    if words.next().is_some() {
        return Err(NotationError::TooManyWords(s.trim().to_string()));
    }
    let board = game.board();
    let board_empty = board.pieces().is_empty();
    let Some(reference) = reference else {
        return if board_empty {
            Ok(Move::new(piece, Cell::ORIGIN))
        } else {
            Err(NotationError::MissingReference(piece))
        };
    };
    if board_empty {
        return Err(NotationError::FirstMoveHasReference);
    }
    let bad = || NotationError::BadReference(reference.to_string());
    let (lead, rest) = split_mark(reference, true);
    let (trail, name) = split_mark(rest, false);
    let dir = match (lead, trail) {
        (Some(_), Some(_)) => return Err(bad()),
        (Some('-'), None) => Some(Direction::West),
        (Some('/'), None) => Some(Direction::SouthWest),
        (Some(_), None) => Some(Direction::NorthWest),
        (None, Some('-')) => Some(Direction::East),
        (None, Some('/')) => Some(Direction::NorthEast),
        (None, Some(_)) => Some(Direction::SouthEast),
        (None, None) => None,
    };
    let ref_piece = parse_piece(name).map_err(|_| bad())?;
    let at = board
        .position(ref_piece)
        .ok_or(NotationError::ReferenceNotOnBoard(ref_piece))?;
    let to = match dir {
        None => at,
        Some(d) => at.neighbour(d),
    };
    if dir.is_some()
        && let Some(top) = board.top(to)
    {
        return Err(NotationError::SideOfOccupied(top));
    }
    Ok(Move::new(piece, to))
}

/// Splits a direction mark (`-`, `/`, `\`) off the front (`lead`) or back of `s`.
fn split_mark(s: &str, lead: bool) -> (Option<char>, &str) {
    let is_mark = |c: char| matches!(c, '-' | '/' | '\\');
    if lead {
        match s.chars().next() {
            Some(c) if is_mark(c) => (Some(c), &s[1..]),
            _ => (None, s),
        }
    } else {
        match s.chars().last() {
            Some(c) if is_mark(c) => (Some(c), &s[..s.len() - 1]),
            _ => (None, s),
        }
    }
}

/// The order in which [`format_move`] looks for a reference around the destination: the
/// direction from the destination to the neighbour, starting at the upper left and going
/// clockwise. It is the reference engine's (Mzinga's) order, so both spell a move alike.
const REFERENCE_ORDER: [Direction; 6] = [
    Direction::NorthWest,
    Direction::NorthEast,
    Direction::East,
    Direction::SouthEast,
    Direction::SouthWest,
    Direction::West,
];

/// Prints `m` as the canonical MoveString in `game`'s position (before the move is played).
///
/// The spelling is the reference engine's, so that tools comparing move strings see the same
/// text from both:
/// - the first move of a game is the piece name alone;
/// - a move onto a piece (a climb) names the top piece there, without a mark;
/// - any other move names the top piece of the first occupied neighbour of the destination in
///   [`REFERENCE_ORDER`] (upper left, upper right, right, lower right, lower left, left),
///   with the mark that puts the destination on that side of it. When that top piece is the
///   moving piece itself (a beetle stepping down off a stack), the piece under it is named;
///   the moving piece's own cell is skipped when nothing is under it.
pub fn format_move(game: &Game, m: Move) -> String {
    let Some(piece) = m.piece() else {
        return "pass".to_string();
    };
    let board = game.board();
    let to = m.to();
    if board.pieces().is_empty() {
        return piece.to_string();
    }
    if let Some(top) = board.top(to) {
        return format!("{piece} {top}");
    }
    let reference = REFERENCE_ORDER.into_iter().find_map(|d| {
        let top = board.top(to.neighbour(d))?;
        let r = if top == piece {
            board.below(piece)?
        } else {
            top
        };
        Some((d, r))
    });
    let Some((d, r)) = reference else {
        // Not reachable for a legal move: every destination touches another piece.
        return piece.to_string();
    };
    // `to` lies in direction `d.opposite()` from the reference.
    match d.opposite() {
        Direction::East => format!("{piece} {r}-"),
        Direction::West => format!("{piece} -{r}"),
        Direction::NorthEast => format!("{piece} {r}/"),
        Direction::SouthWest => format!("{piece} /{r}"),
        Direction::SouthEast => format!("{piece} {r}\\"),
        Direction::NorthWest => format!("{piece} \\{r}"),
    }
}

/// The UHP turn string (`White[3]`).
pub fn turn_string(game: &Game) -> String {
    format!("{}[{}]", game.side_to_move().name(), game.turn_number())
}

/// Parses a GameStateString, case-insensitively.
pub fn parse_game_state(s: &str) -> Result<GameState, NotationError> {
    [
        GameState::NotStarted,
        GameState::InProgress,
        GameState::Draw,
        GameState::WhiteWins,
        GameState::BlackWins,
    ]
    .into_iter()
    .find(|st| st.name().eq_ignore_ascii_case(s.trim()))
    .ok_or_else(|| NotationError::BadGameState(s.trim().to_string()))
}

/// Parses a GameTypeString.
pub fn parse_game_type(s: &str) -> Result<GameType, NotationError> {
    GameType::parse(s).ok_or_else(|| NotationError::BadGameType(s.trim().to_string()))
}

/// Prints the GameString of `game`: type, state, turn, then every move in canonical form.
pub fn game_string(game: &Game) -> String {
    let mut replay = Game::new(game.game_type());
    replay.set_repetition_draw(game.repetition_draw());
    let mut out = format!(
        "{};{};{}",
        game.game_type(),
        game.state().name(),
        turn_string(game)
    );
    for m in game.moves() {
        out.push(';');
        out.push_str(&format_move(&replay, m));
        replay.play_unchecked(m);
    }
    out
}

/// Loads a GameString (`Base+M;InProgress;White[3];wS1;bS1 wS1-;...`), replaying every move with
/// full legality checks. The state and turn fields are recomputed: an empty or wrong turn field
/// is accepted, as web hosts send one; a state field, when present, must be a state name.
pub fn parse_game_string(s: &str, repetition_draw: bool) -> Result<Game, NotationError> {
    let mut fields = s.split(';');
    let game_type = parse_game_type(fields.next().unwrap_or(""))?;
    if let Some(state) = fields.next()
        && !state.trim().is_empty()
    {
        parse_game_state(state)?;
    }
    let _turn = fields.next();
    let mut game = Game::new(game_type);
    game.set_repetition_draw(repetition_draw);
    for (i, text) in fields.map(str::trim).filter(|t| !t.is_empty()).enumerate() {
        let index = i + 1;
        let m = parse_move(&game, text).map_err(|e| NotationError::BadMoveInGame {
            index,
            text: text.to_string(),
            error: Box::new(e),
        })?;
        game.play(m)
            .map_err(|error| NotationError::IllegalMoveInGame {
                index,
                text: text.to_string(),
                error,
            })?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_parse_leniently_and_print_canonically() {
        assert_eq!(parse_piece("WS1").unwrap().to_string(), "wS1");
        assert_eq!(parse_piece("bq").unwrap().to_string(), "bQ");
        assert_eq!(parse_piece("wQ1").unwrap().to_string(), "wQ");
        assert!(parse_piece("wS").is_err());
        assert!(parse_piece("wS3").is_err());
        assert!(parse_piece("xQ").is_err());
        assert!(parse_piece("w").is_err());
        assert!(parse_piece("wA10").is_err());
    }

    #[test]
    fn game_string_round_trips_with_lenient_input() {
        let g = parse_game_string("base;;;  WS1 ; bS1   wS1- ;wQ -ws1;", true).unwrap();
        assert_eq!(
            game_string(&g),
            "Base;InProgress;Black[2];wS1;bS1 wS1-;wQ -wS1"
        );
        let again = parse_game_string(&game_string(&g), true).unwrap();
        assert_eq!(game_string(&again), game_string(&g));
    }

    #[test]
    fn bad_game_strings_are_named() {
        assert!(matches!(
            parse_game_string("Base+X;NotStarted;White[1]", true),
            Err(NotationError::BadGameType(_))
        ));
        assert!(matches!(
            parse_game_string("Base;Sideways;White[1]", true),
            Err(NotationError::BadGameState(_))
        ));
        assert!(matches!(
            parse_game_string("Base;InProgress;White[2];wS1;bS1 wS1-;wS1 wS1", true),
            Err(NotationError::IllegalMoveInGame { index: 3, .. })
        ));
        assert!(matches!(
            parse_game_string("Base;InProgress;White[2];wS1;bS1 wQ-", true),
            Err(NotationError::BadMoveInGame { index: 2, .. })
        ));
    }
}
