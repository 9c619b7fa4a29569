//! [`WeightSets`]: the evaluation's weights for every game type, as one file.
//!
//! A weights file holds one complete set of [`EvalWeights`] (the format of the `weights`
//! module) used for every game type, optionally followed by sections for particular game
//! types: a line `[Base]` (any GameTypeString in brackets) starts a section, which holds a
//! complete set of its own that replaces the general one in games of that type. Each game type
//! has at most one section. The games differ enough for this to pay: with the Mosquito,
//! Ladybug and Pillbug in play the bugs' values and the queen's dangers are not those of the
//! base game (measured: weights fitted to Base games alone beat the general ones in Base).

use super::EvalWeights;
use super::weights::{DEFAULT_WEIGHTS_TEXT, WeightsError};
use crate::core::GameType;
use std::sync::LazyLock;

/// The default weight sets, parsed once.
pub(super) static DEFAULT: LazyLock<WeightSets> = LazyLock::new(|| {
    WeightSets::from_text(DEFAULT_WEIGHTS_TEXT)
        .unwrap_or_else(|e| panic!("weights/default.txt does not parse: {e}"))
});

/// The evaluation's weights for every game type: a general set, and sets replacing it for
/// particular game types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightSets {
    general: EvalWeights,
    /// At most one set per game type, in the order they were added.
    by_type: Vec<(GameType, EvalWeights)>,
}

impl Default for WeightSets {
    /// The weights of `weights/default.txt` (a unit test checks that it parses).
    fn default() -> Self {
        DEFAULT.clone()
    }
}

impl WeightSets {
    /// `general` for every game type.
    pub fn new(general: EvalWeights) -> WeightSets {
        WeightSets {
            general,
            by_type: Vec::new(),
        }
    }

    /// The set used for the game types without a set of their own.
    pub fn general(&self) -> &EvalWeights {
        &self.general
    }

    /// The set of its own of `game_type`, if it has one.
    pub fn own(&self, game_type: GameType) -> Option<&EvalWeights> {
        self.by_type
            .iter()
            .find(|(t, _)| *t == game_type)
            .map(|(_, w)| w)
    }

    /// The set the evaluation uses in games of type `game_type`.
    pub fn for_type(&self, game_type: GameType) -> &EvalWeights {
        self.own(game_type).unwrap_or(&self.general)
    }

    /// The game types with a set of their own.
    pub fn own_types(&self) -> impl Iterator<Item = GameType> + '_ {
        self.by_type.iter().map(|(t, _)| *t)
    }

    /// Replaces the general set.
    pub fn set_general(&mut self, weights: EvalWeights) {
        self.general = weights;
    }

    /// Gives `game_type` the set `weights` of its own (replacing the one it had).
    pub fn set_own(&mut self, game_type: GameType, weights: EvalWeights) {
        match self.by_type.iter_mut().find(|(t, _)| *t == game_type) {
            Some((_, w)) => *w = weights,
            None => self.by_type.push((game_type, weights)),
        }
    }

    /// Reads the format of this module's documentation.
    pub fn from_text(text: &str) -> Result<WeightSets, WeightsError> {
        let mut general = Vec::new();
        // The sections: game type, number of its first line, its lines.
        let mut sections: Vec<(GameType, usize, Vec<&str>)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let l = i + 1;
            let code = line.split('#').next().unwrap_or("").trim();
            let Some(name) = code.strip_prefix('[') else {
                sections
                    .last_mut()
                    .map_or(&mut general, |s| &mut s.2)
                    .push(line);
                continue;
            };
            let name = name
                .strip_suffix(']')
                .ok_or(WeightsError::Syntax(l))?
                .trim();
            let t = GameType::parse(name)
                .ok_or_else(|| WeightsError::UnknownSection(l, name.to_string()))?;
            if sections.iter().any(|s| s.0 == t) {
                return Err(WeightsError::RepeatedSection(l, t.to_string()));
            }
            sections.push((t, l + 1, Vec::new()));
        }
        let mut sets = WeightSets::new(EvalWeights::from_lines(1, &general)?);
        for (t, first, lines) in sections {
            sets.set_own(t, EvalWeights::from_lines(first, &lines)?);
        }
        Ok(sets)
    }

    /// The sets as text that [`WeightSets::from_text`] reads back to equal sets.
    pub fn to_text(&self) -> String {
        let mut text = self.general.to_text();
        for (t, w) in &self.by_type {
            text.push_str(&format!("\n[{t}]\n{}", w.to_text()));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_replace_the_general_set_for_their_game_type() {
        let general = EvalWeights::default();
        let base = EvalWeights {
            tempo: general.tempo + 5,
            ..general.clone()
        };
        let mut sets = WeightSets::new(general.clone());
        let b = GameType::BASE;
        let mlp = GameType::parse("Base+MLP").expect("a game type");
        sets.set_own(b, base.clone());
        assert_eq!(sets.for_type(b), &base);
        assert_eq!(sets.for_type(mlp), &general);
        assert_eq!(sets.own(mlp), None);
        assert_eq!(sets.own_types().collect::<Vec<_>>(), [b]);
        let text = sets.to_text();
        assert!(text.contains("\n[Base]\n"), "{text}");
        assert_eq!(WeightSets::from_text(&text), Ok(sets.clone()));
        // A file without sections is the general set alone.
        assert_eq!(
            WeightSets::from_text(&general.to_text()),
            Ok(WeightSets::new(general.clone()))
        );
        // Replacing a section keeps one per type.
        sets.set_own(b, general.clone());
        assert_eq!(sets.own_types().count(), 1);
        assert_eq!(sets.for_type(b), &general);
    }

    #[test]
    fn bad_sections_are_refused_with_the_line() {
        let set = EvalWeights::default().to_text();
        let lines = set.lines().count();
        let cases = [
            (
                format!("{set}[Base+Q]\n{set}"),
                WeightsError::UnknownSection(lines + 1, "Base+Q".into()),
            ),
            (
                format!("{set}[Base\n{set}"),
                WeightsError::Syntax(lines + 1),
            ),
            (
                format!("{set}[Base]\n{set}[base]\n{set}"),
                WeightsError::RepeatedSection(2 * lines + 2, "Base".into()),
            ),
            (
                format!("{set}[Base]\n{}", set.replace("tempo", "tempi")),
                WeightsError::UnknownName(2 * lines + 1, "tempi".into()),
            ),
            (
                format!("{set}[Base]\n"),
                WeightsError::Missing(EvalWeights::GROUPS[0]),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(WeightSets::from_text(&text), Err(want), "{text}");
        }
    }
}
