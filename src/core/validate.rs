//! Checking a move that came from outside, and naming the rule it breaks.

use super::error::RuleError;
use super::game::Game;
use super::mv::Move;
use super::piece::Bug;

impl Game {
    /// Checks that `m` is legal here; otherwise names the first rule it breaks.
    pub fn check_move(&self, m: Move) -> Result<(), RuleError> {
        if self.state().is_over() {
            return Err(RuleError::GameOver);
        }
        let legal = self.legal_moves();
        let Some(piece) = m.piece() else {
            return if legal.contains(&Move::PASS) {
                Ok(())
            } else {
                Err(RuleError::PassWithMoves)
            };
        };
        if !self.is_enabled(piece) {
            return Err(RuleError::PieceNotEnabled(piece));
        }
        if legal.contains(&m) {
            return Ok(());
        }
        let me = self.side_to_move();
        let board = self.board();
        let occupied = board.is_occupied(m.to());
        match board.position(piece) {
            None => Err(if piece.color() != me {
                RuleError::NotYourTurn(piece)
            } else if piece.bug() == Bug::Queen && self.turn_number() == 1 {
                RuleError::QueenOnFirstTurn
            } else if self.turn_number() == 4 && !self.queen_placed(me) && piece.bug() != Bug::Queen
            {
                RuleError::QueenByFourthTurn
            } else if self.next_in_hand(me, piece.bug()) != Some(piece) {
                RuleError::OutOfOrder(piece)
            } else if occupied {
                RuleError::DestinationOccupied(piece)
            } else {
                RuleError::BadPlacement(piece)
            }),
            Some(at) => {
                let pinned = board.height(at) == 1 && self.pinned().contains(piece);
                Err(if self.turn_number() == 4 && !self.queen_placed(me) {
                    RuleError::QueenByFourthTurn
                } else if !self.queen_placed(me) && piece.color() == me {
                    RuleError::QueenNotPlaced(piece)
                } else if !board.is_top(piece) {
                    RuleError::Covered(piece)
                } else if self.frozen() == Some(piece) {
                    RuleError::Frozen(piece)
                } else if piece.color() != me && !self.game_type().has(Bug::Pillbug) {
                    RuleError::NotYourTurn(piece)
                } else if pinned {
                    RuleError::BreaksHive(piece)
                } else if occupied {
                    RuleError::DestinationOccupied(piece)
                } else {
                    RuleError::CannotReach(piece)
                })
            }
        }
    }
}
