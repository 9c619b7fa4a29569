//! Why the rules refuse a move.

use super::piece::Piece;
use std::fmt;

/// A rule that a move breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleError {
    /// The game has ended.
    GameOver,
    /// The piece belongs to the player who is not to move.
    NotYourTurn(Piece),
    /// The piece's bug is not part of this game type.
    PieceNotEnabled(Piece),
    /// The queen may not be placed on a player's first turn.
    QueenOnFirstTurn,
    /// The queen must be placed by the player's fourth turn.
    QueenByFourthTurn,
    /// No piece may move before its owner's queen is on the board.
    QueenNotPlaced(Piece),
    /// Numbered copies of a bug must enter in order.
    OutOfOrder(Piece),
    /// The destination is occupied and the piece cannot climb there.
    DestinationOccupied(Piece),
    /// A placement must touch a friendly piece and no enemy piece.
    BadPlacement(Piece),
    /// The piece is covered by another piece.
    Covered(Piece),
    /// Moving the piece would split the hive.
    BreaksHive(Piece),
    /// The piece was moved by the opponent's last move.
    Frozen(Piece),
    /// The piece cannot reach that cell by its way of moving.
    CannotReach(Piece),
    /// Passing is only legal when no other move is.
    PassWithMoves,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleError::GameOver => write!(f, "the game is over"),
            RuleError::NotYourTurn(p) => write!(f, "it is not {}'s turn", p.color().name()),
            RuleError::PieceNotEnabled(p) => write!(f, "{p} is not part of this game type"),
            RuleError::QueenOnFirstTurn => {
                write!(f, "the Queen may not be placed on a player's first turn")
            }
            RuleError::QueenByFourthTurn => {
                write!(
                    f,
                    "the Queen must be placed on or before a player's fourth turn"
                )
            }
            RuleError::QueenNotPlaced(p) => {
                write!(f, "{p} cannot move before its Queen is on the board")
            }
            RuleError::OutOfOrder(p) => write!(
                f,
                "{p} cannot be placed before the lower-numbered copies of its bug"
            ),
            RuleError::DestinationOccupied(p) => {
                write!(f, "{p} cannot move there: a piece already stands there")
            }
            RuleError::BadPlacement(p) => write!(
                f,
                "{p} must be placed next to a friendly piece and away from enemy pieces"
            ),
            RuleError::Covered(p) => write!(f, "{p} is covered by another piece"),
            RuleError::BreaksHive(p) => write!(f, "moving {p} would break the hive"),
            RuleError::Frozen(p) => write!(f, "{p} was moved by the last move and cannot move"),
            RuleError::CannotReach(p) => write!(f, "{p} cannot move there"),
            RuleError::PassWithMoves => write!(f, "cannot pass while other moves are legal"),
        }
    }
}

impl std::error::Error for RuleError {}
