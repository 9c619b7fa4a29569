//! A game in progress: the board plus whose turn it is, the frozen piece, the result and the
//! history needed to undo moves and detect threefold repetition.

use super::board::Board;
use super::error::RuleError;
use super::game_type::GameType;
use super::hex::Cell;
use super::mv::Move;
use super::piece::{Bug, Color, Piece};
use super::piece_set::PieceSet;
use super::topology;
use super::zobrist;
use std::sync::atomic::{AtomicU32, Ordering};

/// The state of a game, as UHP names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameState {
    /// No move has been played yet.
    NotStarted,
    /// Moves have been played and nobody has won.
    InProgress,
    /// Both queens surrounded at once, or threefold repetition.
    Draw,
    /// Black's queen is surrounded.
    WhiteWins,
    /// White's queen is surrounded.
    BlackWins,
}

impl GameState {
    /// Whether the game has ended.
    #[inline(always)]
    pub const fn is_over(self) -> bool {
        matches!(
            self,
            GameState::Draw | GameState::WhiteWins | GameState::BlackWins
        )
    }

    /// The UHP name.
    pub const fn name(self) -> &'static str {
        match self {
            GameState::NotStarted => "NotStarted",
            GameState::InProgress => "InProgress",
            GameState::Draw => "Draw",
            GameState::WhiteWins => "WhiteWins",
            GameState::BlackWins => "BlackWins",
        }
    }
}

/// What [`Game::undo`] needs to take a move back.
#[derive(Clone, Copy, Debug)]
struct Undo {
    mv: Move,
    /// Where the piece came from; `None` for a placement or a pass.
    from: Option<Cell>,
    frozen: Option<Piece>,
    state: GameState,
    last_irreversible: u16,
    /// The full hash of the position before the move.
    hash: u64,
}

/// A game of Hive: position, side to move and history.
#[derive(Clone)]
pub struct Game {
    board: Board,
    game_type: GameType,
    /// Plies played so far (passes included).
    ply: u32,
    /// The piece moved or placed by the previous move; it may not move or be thrown now.
    frozen: Option<Piece>,
    state: GameState,
    /// Whether threefold repetition ends the game in a draw.
    repetition_draw: bool,
    /// The moves played, with what undoing them needs and the hash of the position before
    /// each: position `i` of the game is the one before `history[i]`, the current one is
    /// position `history.len()`.
    history: Vec<Undo>,
    /// Index of the first position after the last placement: no earlier position
    /// can repeat, since pieces never return to the hand.
    last_irreversible: u16,
    /// The pinned mask of the current position once computed (see [`Game::pinned`]), or
    /// `UNKNOWN`: move generation and the evaluation of one position share one pass.
    pinned: PinnedCache,
}

/// `Game::pinned` not computed for the current position (masks use only the low 28 bits).
const UNKNOWN: u32 = u32::MAX;

/// A cached pinned mask, written through a shared reference. An atomic rather than a `Cell`
/// keeps `Game` shareable between threads; relaxed loads and stores cost plain moves.
struct PinnedCache(AtomicU32);

impl PinnedCache {
    #[inline(always)]
    fn get(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }

    #[inline(always)]
    fn set(&self, mask: u32) {
        self.0.store(mask, Ordering::Relaxed);
    }
}

impl Clone for PinnedCache {
    fn clone(&self) -> Self {
        PinnedCache(AtomicU32::new(self.get()))
    }
}

impl Game {
    /// A new game of the given type, with threefold repetition on.
    pub fn new(game_type: GameType) -> Game {
        Game {
            board: Board::new(),
            game_type,
            ply: 0,
            frozen: None,
            state: GameState::NotStarted,
            repetition_draw: true,
            history: Vec::with_capacity(256),
            last_irreversible: 0,
            pinned: PinnedCache(AtomicU32::new(UNKNOWN)),
        }
    }

    /// Sets whether threefold repetition ends the game (it does by default). Applies to moves
    /// played from now on.
    pub fn set_repetition_draw(&mut self, on: bool) {
        self.repetition_draw = on;
    }

    /// Whether threefold repetition ends the game.
    pub fn repetition_draw(&self) -> bool {
        self.repetition_draw
    }

    /// The board.
    #[inline(always)]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The game type.
    #[inline(always)]
    pub fn game_type(&self) -> GameType {
        self.game_type
    }

    /// Plies played so far.
    #[inline(always)]
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        if self.ply & 1 == 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The side to move's turn number, starting at 1 (UHP's `White[n]`).
    #[inline(always)]
    pub fn turn_number(&self) -> u32 {
        self.ply / 2 + 1
    }

    /// The state of the game.
    #[inline(always)]
    pub fn state(&self) -> GameState {
        self.state
    }

    /// The piece that may not move or be thrown this turn.
    #[inline(always)]
    pub fn frozen(&self) -> Option<Piece> {
        self.frozen
    }

    /// Hash of the position: the stacks and the side to move.
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.board.hash() ^ zobrist::side_key(self.side_to_move())
    }

    /// The hash recomputed from scratch.
    pub fn recompute_hash(&self) -> u64 {
        self.board.recompute_hash() ^ zobrist::side_key(self.side_to_move())
    }

    /// The moves played so far, oldest first.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = Move> + '_ {
        self.history.iter().map(|u| u.mv)
    }

    /// The last move played, if any.
    #[inline]
    pub fn last_move(&self) -> Option<Move> {
        self.history.last().map(|u| u.mv)
    }

    /// Whether `piece` takes part in this game type.
    #[inline(always)]
    pub fn is_enabled(&self, piece: Piece) -> bool {
        self.game_type.has(piece.bug())
    }

    /// The lowest-numbered copy of `bug` that `color` still has in hand, if any (and if the bug
    /// is in this game type).
    #[inline(always)]
    pub fn next_in_hand(&self, color: Color, bug: Bug) -> Option<Piece> {
        if !self.game_type.has(bug) {
            return None;
        }
        (PieceSet::of(color, bug) - self.board.pieces()).first()
    }

    /// Whether `color`'s queen is on the board.
    #[inline(always)]
    pub fn queen_placed(&self, color: Color) -> bool {
        self.board.is_on_board(Piece::queen(color))
    }

    /// How many of the six cells around `color`'s queen are occupied (0 while in hand).
    pub fn queen_pressure(&self, color: Color) -> u32 {
        match self.board.position(Piece::queen(color)) {
            Some(c) => self.board.occupied_neighbours(c).count_ones(),
            None => 0,
        }
    }

    /// The top pieces whose cell holds the hive together: emptying it would split the hive
    /// (see [`topology::pinned`]). Computed once per position.
    #[inline]
    pub fn pinned(&self) -> PieceSet {
        let cached = self.pinned.get();
        if cached != UNKNOWN {
            return PieceSet::from_bits(cached);
        }
        let m = topology::pinned(&self.board);
        self.pinned.set(m.bits());
        m
    }

    /// Plays `m`, which must be legal here (generated by [`MoveGen`](super::MoveGen) for this
    /// position). Use [`Game::play`] for a move that has not been checked.
    #[inline(always)]
    pub fn play_unchecked(&mut self, m: Move) {
        let mut undo = Undo {
            mv: m,
            from: None,
            frozen: self.frozen,
            state: self.state,
            last_irreversible: self.last_irreversible,
            hash: self.hash(),
        };
        match m.piece() {
            None => self.frozen = None,
            Some(piece) => {
                if let Some(from) = self.board.position(piece) {
                    self.board.pop(from);
                    undo.from = Some(from);
                } else {
                    self.last_irreversible = self.history.len() as u16 + 1;
                }
                self.board.push(piece, m.to());
                self.frozen = Some(piece);
            }
        }
        self.history.push(undo);
        self.pinned.set(UNKNOWN);
        self.ply += 1;
        self.state = self.compute_state(undo.from.is_none() && !m.is_pass());
    }

    /// Plays `m` after checking that it is legal; on error nothing changes.
    pub fn play(&mut self, m: Move) -> Result<(), RuleError> {
        self.check_move(m)?;
        self.play_unchecked(m);
        Ok(())
    }

    /// Takes back the last move; returns it, or `None` when no move has been played.
    #[inline(always)]
    pub fn undo(&mut self) -> Option<Move> {
        let u = self.history.pop()?;
        self.ply -= 1;
        if let Some(piece) = u.mv.piece() {
            let pieces_hash = u.hash ^ zobrist::side_key(self.side_to_move());
            self.board.unmove(piece, u.from, u.mv.to(), pieces_hash);
        }
        self.pinned.set(UNKNOWN);
        self.frozen = u.frozen;
        self.state = u.state;
        self.last_irreversible = u.last_irreversible;
        Some(u.mv)
    }

    /// The state after a move; a placement (`placed`) cannot repeat an earlier position.
    fn compute_state(&self, placed: bool) -> GameState {
        let white = self.queen_surrounded(Color::White);
        let black = self.queen_surrounded(Color::Black);
        match (white, black) {
            (true, true) => GameState::Draw,
            (true, false) => GameState::BlackWins,
            (false, true) => GameState::WhiteWins,
            (false, false) if !placed && self.repetition_draw && self.is_threefold() => {
                GameState::Draw
            }
            (false, false) => GameState::InProgress,
        }
    }

    #[inline(always)]
    fn queen_surrounded(&self, color: Color) -> bool {
        match self.board.position(Piece::queen(color)) {
            Some(c) => self.board.occupied_neighbours(c) == 63,
            None => false,
        }
    }

    /// Whether the current position has occurred at least twice before in this game.
    pub fn is_threefold(&self) -> bool {
        self.repetitions() >= 3
    }

    /// How often the current position has occurred in this game, counting this occurrence.
    pub fn repetitions(&self) -> usize {
        let n = self.history.len();
        let current = self.hash();
        let start = self.last_irreversible as usize;
        // Same side to move means an even distance back; the current position counts too.
        1 + (start..n)
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|&i| self.history[i].hash == current)
            .count()
    }

    /// Whether the current position already occurred earlier in this game (with the same side
    /// to move); the search treats such a position as a draw.
    pub fn is_repetition(&self) -> bool {
        self.repetitions() >= 2
    }
}
