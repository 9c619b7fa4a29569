//! Game types: the base game plus any of the three expansion bugs.

use super::piece::{Bug, PIECES_PER_COLOR};
use super::piece_set::PieceSet;
use std::fmt;

/// Which expansion bugs are in play.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GameType {
    mosquito: bool,
    ladybug: bool,
    pillbug: bool,
}

impl GameType {
    /// The base game.
    pub const BASE: GameType = GameType::new(false, false, false);
    /// All three expansions.
    pub const MLP: GameType = GameType::new(true, true, true);

    /// A game type with the given expansions.
    pub const fn new(mosquito: bool, ladybug: bool, pillbug: bool) -> GameType {
        GameType {
            mosquito,
            ladybug,
            pillbug,
        }
    }

    /// All eight game types, in the UHP order.
    pub fn all() -> [GameType; 8] {
        [
            GameType::new(false, false, false),
            GameType::new(true, false, false),
            GameType::new(false, true, false),
            GameType::new(false, false, true),
            GameType::new(true, true, false),
            GameType::new(true, false, true),
            GameType::new(false, true, true),
            GameType::new(true, true, true),
        ]
    }

    /// Whether `bug` takes part in this game type.
    #[inline(always)]
    pub const fn has(self, bug: Bug) -> bool {
        match bug {
            Bug::Mosquito => self.mosquito,
            Bug::Ladybug => self.ladybug,
            Bug::Pillbug => self.pillbug,
            _ => true,
        }
    }

    /// The pieces in play (both colours).
    #[inline(always)]
    pub const fn pieces(self) -> PieceSet {
        // Queen to Ants, then the expansion bugs (without branches: this is on every
        // placement generation's path).
        let per_color = ((1u32 << 11) - 1)
            | (self.mosquito as u32) << Bug::Mosquito.first_index()
            | (self.ladybug as u32) << Bug::Ladybug.first_index()
            | (self.pillbug as u32) << Bug::Pillbug.first_index();
        PieceSet::from_bits(per_color | per_color << PIECES_PER_COLOR)
    }

    /// Parses a GameTypeString (`Base`, `Base+M`, ..., `Base+MLP`), case-insensitively; the
    /// expansion letters may come in any order but not twice.
    pub fn parse(s: &str) -> Option<GameType> {
        let s = s.trim();
        let (base, exp) = match s.split_once('+') {
            Some((b, e)) => (b, Some(e)),
            None => (s, None),
        };
        if !base.eq_ignore_ascii_case("base") {
            return None;
        }
        let mut t = GameType::BASE;
        if let Some(exp) = exp {
            if exp.is_empty() {
                return None;
            }
            for c in exp.chars() {
                let flag = match c.to_ascii_uppercase() {
                    'M' => &mut t.mosquito,
                    'L' => &mut t.ladybug,
                    'P' => &mut t.pillbug,
                    _ => return None,
                };
                if *flag {
                    return None;
                }
                *flag = true;
            }
        }
        Some(t)
    }
}

impl fmt::Display for GameType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Base")?;
        if self.mosquito || self.ladybug || self.pillbug {
            f.write_str("+")?;
            for (on, c) in [
                (self.mosquito, "M"),
                (self.ladybug, "L"),
                (self.pillbug, "P"),
            ] {
                if on {
                    f.write_str(c)?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Debug for GameType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print_round_trip() {
        for t in GameType::all() {
            assert_eq!(GameType::parse(&t.to_string()), Some(t));
        }
        assert_eq!(GameType::parse(" base+plm "), Some(GameType::MLP));
        assert_eq!(GameType::parse("Base+"), None);
        assert_eq!(GameType::parse("Base+MM"), None);
        assert_eq!(GameType::parse("Base+X"), None);
        assert_eq!(GameType::parse("Bas"), None);
    }
}
