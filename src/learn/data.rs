//! The training data's line format: one position a line,
//!
//! ```text
//! GameString<TAB>score<TAB>result
//! ```
//!
//! `GameString` is the position as UHP writes it (with its moves), `score` the search's score
//! for the side to move in evaluation units (an integer), and `result` the game's result for
//! the side to move: `1` (won), `0.5` (drawn) or `0` (lost).

use std::fmt;

/// How a game ended for one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Lost.
    Loss,
    /// Drawn (including games stopped at the ply limit).
    Draw,
    /// Won.
    Win,
}

impl Outcome {
    /// 0, 0.5 or 1: the score of the outcome.
    pub fn value(self) -> f64 {
        match self {
            Outcome::Loss => 0.0,
            Outcome::Draw => 0.5,
            Outcome::Win => 1.0,
        }
    }

    /// The outcome for the other side.
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
            Outcome::Win => Outcome::Loss,
        }
    }

    /// How the outcome is written in a data line.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Loss => "0",
            Outcome::Draw => "0.5",
            Outcome::Win => "1",
        }
    }
}

/// One position of the training data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The position as a GameString.
    pub game: String,
    /// The search's score for the side to move.
    pub score: i32,
    /// The game's result for the side to move.
    pub result: Outcome,
}

/// Why a data line was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DataError {
    /// The line does not have three tab-separated fields (it has this many).
    FieldCount(usize),
    /// The score is not an integer.
    BadScore(String),
    /// The result is not `1`, `0.5` or `0`.
    BadResult(String),
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::FieldCount(n) => write!(f, "expected 3 tab-separated fields, found {n}"),
            DataError::BadScore(s) => write!(f, "score '{s}' is not an integer"),
            DataError::BadResult(s) => write!(f, "result '{s}' is not 1, 0.5 or 0"),
        }
    }
}

impl std::error::Error for DataError {}

impl Sample {
    /// The sample as a data line (without the line end).
    pub fn to_line(&self) -> String {
        format!("{}\t{}\t{}", self.game, self.score, self.result.as_str())
    }

    /// Reads a data line (the GameString is not checked here).
    pub fn parse_line(line: &str) -> Result<Sample, DataError> {
        let fields: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('\t').collect();
        let [game, score, result] = fields[..] else {
            return Err(DataError::FieldCount(fields.len()));
        };
        let score = score
            .parse()
            .map_err(|_| DataError::BadScore(score.to_string()))?;
        let result = match result {
            "1" => Outcome::Win,
            "0.5" => Outcome::Draw,
            "0" => Outcome::Loss,
            other => return Err(DataError::BadResult(other.to_string())),
        };
        Ok(Sample {
            game: game.to_string(),
            score,
            result,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_bad_lines_are_refused() {
        let s = Sample {
            game: "Base;InProgress;Black[1];wS1".into(),
            score: -12,
            result: Outcome::Draw,
        };
        assert_eq!(s.to_line(), "Base;InProgress;Black[1];wS1\t-12\t0.5");
        assert_eq!(Sample::parse_line(&s.to_line()), Ok(s));
        assert_eq!(Sample::parse_line("Base\t3"), Err(DataError::FieldCount(2)));
        assert_eq!(
            Sample::parse_line("Base\tx\t1"),
            Err(DataError::BadScore("x".into()))
        );
        assert_eq!(
            Sample::parse_line("Base\t3\t0.7"),
            Err(DataError::BadResult("0.7".into()))
        );
        assert_eq!(Outcome::Win.flip(), Outcome::Loss);
        assert_eq!(Outcome::Draw.flip().value(), 0.5);
    }
}
