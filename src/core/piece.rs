//! Colours, bugs and the 28 individual pieces.

use std::fmt;

/// A player's colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Moves first.
    White = 0,
    /// Moves second.
    Black = 1,
}

impl Color {
    /// The other colour.
    #[inline(always)]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// The one-letter prefix used in piece names (`w` or `b`).
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// The UHP name (`White` or `Black`).
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }
}

/// A kind of bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bug {
    /// Queen Bee.
    Queen = 0,
    /// Spider.
    Spider = 1,
    /// Beetle.
    Beetle = 2,
    /// Grasshopper.
    Grasshopper = 3,
    /// Soldier Ant.
    Ant = 4,
    /// Mosquito (expansion).
    Mosquito = 5,
    /// Ladybug (expansion).
    Ladybug = 6,
    /// Pillbug (expansion).
    Pillbug = 7,
}

impl Bug {
    /// Every bug, in the order used for piece numbering.
    pub const ALL: [Bug; 8] = [
        Bug::Queen,
        Bug::Spider,
        Bug::Beetle,
        Bug::Grasshopper,
        Bug::Ant,
        Bug::Mosquito,
        Bug::Ladybug,
        Bug::Pillbug,
    ];

    /// The letter used in piece names.
    pub const fn letter(self) -> char {
        match self {
            Bug::Queen => 'Q',
            Bug::Spider => 'S',
            Bug::Beetle => 'B',
            Bug::Grasshopper => 'G',
            Bug::Ant => 'A',
            Bug::Mosquito => 'M',
            Bug::Ladybug => 'L',
            Bug::Pillbug => 'P',
        }
    }

    /// The bug for a piece-name letter (case-insensitive).
    pub fn from_letter(c: char) -> Option<Bug> {
        Bug::ALL
            .into_iter()
            .find(|b| b.letter() == c.to_ascii_uppercase())
    }

    /// How many copies each player has.
    pub const fn count(self) -> u8 {
        match self {
            Bug::Queen | Bug::Mosquito | Bug::Ladybug | Bug::Pillbug => 1,
            Bug::Spider | Bug::Beetle => 2,
            Bug::Grasshopper | Bug::Ant => 3,
        }
    }

    /// Index of this bug's first copy within a colour's 14 pieces.
    pub const fn first_index(self) -> u8 {
        match self {
            Bug::Queen => 0,
            Bug::Spider => 1,
            Bug::Beetle => 3,
            Bug::Grasshopper => 5,
            Bug::Ant => 8,
            Bug::Mosquito => 11,
            Bug::Ladybug => 12,
            Bug::Pillbug => 13,
        }
    }
}

/// Number of pieces per colour.
pub const PIECES_PER_COLOR: usize = 14;
/// Number of pieces in the game (both colours, all expansions).
pub const PIECE_COUNT: usize = 2 * PIECES_PER_COLOR;

/// The bug of each piece id (both colours, so that no division is needed).
const BUG_OF_ID: [Bug; PIECE_COUNT] = {
    let per_color = [
        Bug::Queen,
        Bug::Spider,
        Bug::Spider,
        Bug::Beetle,
        Bug::Beetle,
        Bug::Grasshopper,
        Bug::Grasshopper,
        Bug::Grasshopper,
        Bug::Ant,
        Bug::Ant,
        Bug::Ant,
        Bug::Mosquito,
        Bug::Ladybug,
        Bug::Pillbug,
    ];
    let mut t = [Bug::Queen; PIECE_COUNT];
    let mut i = 0;
    while i < PIECE_COUNT {
        t[i] = per_color[i % PIECES_PER_COLOR];
        i += 1;
    }
    t
};

/// One of the 28 pieces: colour, bug and copy number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece(u8);

impl Piece {
    /// The piece with id `id` (`0..PIECE_COUNT`), or `None`.
    pub const fn from_id(id: usize) -> Option<Piece> {
        if id < PIECE_COUNT {
            Some(Piece(id as u8))
        } else {
            None
        }
    }

    /// The `number`-th copy (1-based) of `bug` for `color`, or `None` if there is no such copy.
    pub const fn new(color: Color, bug: Bug, number: u8) -> Option<Piece> {
        if number == 0 || number > bug.count() {
            return None;
        }
        Some(Piece(
            color as u8 * PIECES_PER_COLOR as u8 + bug.first_index() + number - 1,
        ))
    }

    /// The piece of a bit found in a [`PieceSet`](super::PieceSet) (`id` below 28).
    #[inline(always)]
    pub(super) const fn from_set_bit(id: usize) -> Piece {
        debug_assert!(id < PIECE_COUNT);
        Piece(id as u8)
    }

    /// The queen of `color`.
    #[inline(always)]
    pub const fn queen(color: Color) -> Piece {
        Piece(color as u8 * PIECES_PER_COLOR as u8)
    }

    /// Dense id in `0..PIECE_COUNT`.
    #[inline(always)]
    pub const fn id(self) -> usize {
        self.0 as usize
    }

    /// Owner of the piece.
    #[inline(always)]
    pub const fn color(self) -> Color {
        if (self.0 as usize) < PIECES_PER_COLOR {
            Color::White
        } else {
            Color::Black
        }
    }

    /// Kind of bug.
    #[inline(always)]
    pub const fn bug(self) -> Bug {
        BUG_OF_ID[self.0 as usize]
    }

    /// Copy number, starting at 1.
    pub const fn number(self) -> u8 {
        (self.0 as usize % PIECES_PER_COLOR) as u8 - self.bug().first_index() + 1
    }

    /// Iterator over all 28 pieces.
    pub fn all() -> impl Iterator<Item = Piece> {
        (0..PIECE_COUNT as u8).map(Piece)
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.color().letter(), self.bug().letter())?;
        if self.bug().count() > 1 {
            write!(f, "{}", self.number())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        for p in Piece::all() {
            assert_eq!(Piece::new(p.color(), p.bug(), p.number()), Some(p));
        }
        assert_eq!(Piece::all().count(), PIECE_COUNT);
        assert_eq!(
            Piece::new(Color::Black, Bug::Ant, 3).unwrap().to_string(),
            "bA3"
        );
        assert_eq!(
            Piece::new(Color::White, Bug::Queen, 1).unwrap().to_string(),
            "wQ"
        );
        assert_eq!(Piece::new(Color::White, Bug::Queen, 2), None);
    }
}
