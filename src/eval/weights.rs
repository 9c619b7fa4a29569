//! [`EvalWeights`] as text: the default weights live in `weights/default.txt`, compiled in, and
//! the tuner writes files of the same form.
//!
//! The format of one set is one line `name = v1 v2 ...` per weight group (the field names of
//! [`EvalWeights`]), every group exactly once, in any order, each with as many integers as the
//! field holds. Blank lines are ignored and `#` starts a comment. A set may also give a network
//! that corrects its sum, as the three lines `net_w1`, `net_b1` and `net_w2` (all or none; see
//! [`Net`]). A file may add sets for particular game types in sections (see
//! [`WeightSets`](super::WeightSets)).

use super::EvalWeights;
use super::net::Net;
use std::fmt;
use std::sync::Arc;

/// The default weights file, compiled into the engine.
pub const DEFAULT_WEIGHTS_TEXT: &str = include_str!("../../weights/default.txt");

impl Default for EvalWeights {
    /// The general set of `weights/default.txt` (see [`WeightSets`](super::WeightSets); a unit
    /// test checks that the file parses).
    fn default() -> Self {
        super::weight_sets::DEFAULT.general().clone()
    }
}

/// Why a weights text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsError {
    /// A line is not of the form `name = v1 v2 ...` (1-based line number).
    Syntax(usize),
    /// A line names no weight group (line number, name).
    UnknownName(usize, String),
    /// A group appears a second time (line number, name).
    Repeated(usize, String),
    /// A value is not an integer (line number, the text).
    BadValue(usize, String),
    /// A group has the wrong number of values (line number, name, expected, found).
    WrongCount(usize, String, usize, usize),
    /// A group is missing from the text (or from a section of it).
    Missing(&'static str),
    /// A section header names no game type (line number, the name).
    UnknownSection(usize, String),
    /// A game type has a second section (line number, the game type).
    RepeatedSection(usize, String),
    /// The network's lines do not agree on its size, or it has too many hidden units (line
    /// number of `net_w2`).
    NetShape(usize),
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::Syntax(l) => write!(f, "line {l}: expected 'name = v1 v2 ...'"),
            WeightsError::UnknownName(l, n) => write!(f, "line {l}: no weight group '{n}'"),
            WeightsError::Repeated(l, n) => write!(f, "line {l}: '{n}' given twice"),
            WeightsError::BadValue(l, v) => write!(f, "line {l}: '{v}' is not an integer"),
            WeightsError::WrongCount(l, n, want, got) => {
                write!(f, "line {l}: '{n}' needs {want} values, found {got}")
            }
            WeightsError::Missing(n) => write!(f, "weight group '{n}' is missing"),
            WeightsError::UnknownSection(l, n) => write!(f, "line {l}: '{n}' is no game type"),
            WeightsError::RepeatedSection(l, t) => {
                write!(f, "line {l}: a second section for {t}")
            }
            WeightsError::NetShape(l) => write!(
                f,
                "line {l}: net_w1, net_b1 and net_w2 need {} x h, h and h values (1 <= h <= {})",
                super::NET_INPUTS,
                super::NET_MAX_HIDDEN
            ),
        }
    }
}

impl std::error::Error for WeightsError {}

impl EvalWeights {
    /// The names of the weight groups (the fields), in the order of [`EvalWeights::groups`]
    /// and of the files [`EvalWeights::to_text`] writes.
    pub const GROUPS: [&'static str; 17] = [
        "queen_ring",
        "queen_enemy",
        "queen_stuck",
        "queen_mobile",
        "queen_covered",
        "movable_opening",
        "movable_endgame",
        "reach",
        "pinned",
        "covered",
        "in_hand_opening",
        "in_hand_endgame",
        "beetle_on_queen",
        "beetle_near_queen",
        "pillbug_defense",
        "pillbug_attack",
        "tempo",
    ];

    /// Every field's values, in the order of [`EvalWeights::GROUPS`].
    pub fn groups(&self) -> [&[i32]; 17] {
        [
            &self.queen_ring,
            std::slice::from_ref(&self.queen_enemy),
            std::slice::from_ref(&self.queen_stuck),
            std::slice::from_ref(&self.queen_mobile),
            std::slice::from_ref(&self.queen_covered),
            &self.movable_opening,
            &self.movable_endgame,
            &self.reach,
            &self.pinned,
            &self.covered,
            &self.in_hand_opening,
            &self.in_hand_endgame,
            std::slice::from_ref(&self.beetle_on_queen),
            std::slice::from_ref(&self.beetle_near_queen),
            std::slice::from_ref(&self.pillbug_defense),
            std::slice::from_ref(&self.pillbug_attack),
            std::slice::from_ref(&self.tempo),
        ]
    }

    /// Every field's values, mutable, in the order of [`EvalWeights::GROUPS`].
    pub fn groups_mut(&mut self) -> [&mut [i32]; 17] {
        [
            &mut self.queen_ring,
            std::slice::from_mut(&mut self.queen_enemy),
            std::slice::from_mut(&mut self.queen_stuck),
            std::slice::from_mut(&mut self.queen_mobile),
            std::slice::from_mut(&mut self.queen_covered),
            &mut self.movable_opening,
            &mut self.movable_endgame,
            &mut self.reach,
            &mut self.pinned,
            &mut self.covered,
            &mut self.in_hand_opening,
            &mut self.in_hand_endgame,
            std::slice::from_mut(&mut self.beetle_on_queen),
            std::slice::from_mut(&mut self.beetle_near_queen),
            std::slice::from_mut(&mut self.pillbug_defense),
            std::slice::from_mut(&mut self.pillbug_attack),
            std::slice::from_mut(&mut self.tempo),
        ]
    }

    /// Every weight as one flat list, group after group in the order of
    /// [`EvalWeights::GROUPS`] (the tuner's parameters).
    pub fn to_vec(&self) -> Vec<i32> {
        self.groups().concat()
    }

    /// Sets every weight from a flat list in the order of [`EvalWeights::to_vec`], without a
    /// network; `None` when `values` does not hold exactly that many.
    pub fn from_slice(values: &[i32]) -> Option<EvalWeights> {
        let mut w = EvalWeights {
            net: None,
            ..EvalWeights::default()
        };
        if values.len() != w.to_vec().len() {
            return None;
        }
        let mut rest = values;
        for group in w.groups_mut() {
            let (head, tail) = rest.split_at(group.len());
            group.copy_from_slice(head);
            rest = tail;
        }
        Some(w)
    }

    /// A name for each weight of [`EvalWeights::to_vec`]: the group's name, with `[i]` for
    /// groups of more than one value.
    pub fn value_names() -> Vec<String> {
        let w = EvalWeights::default();
        let mut names = Vec::new();
        for (name, group) in EvalWeights::GROUPS.iter().zip(w.groups()) {
            if group.len() == 1 {
                names.push(name.to_string());
            } else {
                names.extend((0..group.len()).map(|i| format!("{name}[{i}]")));
            }
        }
        names
    }

    /// Reads one set of weights in the format of this module's documentation (a file with
    /// sections for game types is read by
    /// [`WeightSets::from_text`](super::WeightSets::from_text)).
    pub fn from_text(text: &str) -> Result<EvalWeights, WeightsError> {
        EvalWeights::from_lines(1, &text.lines().collect::<Vec<_>>())
    }

    /// [`EvalWeights::from_text`] of `lines`, the first of which is line `first` of its file.
    pub(super) fn from_lines(first: usize, lines: &[&str]) -> Result<EvalWeights, WeightsError> {
        let mut w = EvalWeights {
            queen_ring: [0; 6],
            queen_enemy: 0,
            queen_stuck: 0,
            queen_mobile: 0,
            queen_covered: 0,
            movable_opening: [0; 8],
            movable_endgame: [0; 8],
            reach: [0; 8],
            pinned: [0; 8],
            covered: [0; 8],
            in_hand_opening: [0; 8],
            in_hand_endgame: [0; 8],
            beetle_on_queen: 0,
            beetle_near_queen: 0,
            pillbug_defense: 0,
            pillbug_attack: 0,
            tempo: 0,
            net: None,
        };
        let mut seen = [false; 17];
        let mut net_lines: [Option<(usize, Vec<i32>)>; 3] = [None, None, None];
        let mut groups = w.groups_mut();
        for (i, line) in lines.iter().enumerate() {
            let l = first + i;
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let (name, values) = line.split_once('=').ok_or(WeightsError::Syntax(l))?;
            let name = name.trim();
            let values = values
                .split_whitespace()
                .map(|v| {
                    v.parse::<i32>()
                        .map_err(|_| WeightsError::BadValue(l, v.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()?;
            if let Some(k) = Net::LINES.iter().position(|&n| n == name) {
                if net_lines[k].replace((l, values)).is_some() {
                    return Err(WeightsError::Repeated(l, name.to_string()));
                }
                continue;
            }
            let g = EvalWeights::GROUPS
                .iter()
                .position(|&n| n == name)
                .ok_or_else(|| WeightsError::UnknownName(l, name.to_string()))?;
            if std::mem::replace(&mut seen[g], true) {
                return Err(WeightsError::Repeated(l, name.to_string()));
            }
            let group = &mut groups[g];
            if values.len() != group.len() {
                return Err(WeightsError::WrongCount(
                    l,
                    name.to_string(),
                    group.len(),
                    values.len(),
                ));
            }
            group.copy_from_slice(&values);
        }
        if let Some(g) = seen.iter().position(|s| !s) {
            return Err(WeightsError::Missing(EvalWeights::GROUPS[g]));
        }
        w.net = Net::from_lines(net_lines)?.map(Arc::new);
        Ok(w)
    }

    /// The weights as text that [`EvalWeights::from_text`] reads back to equal weights: one
    /// line per group, in the order of [`EvalWeights::GROUPS`].
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        for (name, group) in EvalWeights::GROUPS.iter().zip(self.groups()) {
            text.push_str(&value_line(name, group));
        }
        if let Some(net) = &self.net {
            text.push_str(&net.to_text());
        }
        text
    }
}

/// One line `name = v1 v2 ...` of a weights file, with its line feed.
pub(super) fn value_line(name: &str, values: &[i32]) -> String {
    let values: Vec<String> = values.iter().map(i32::to_string).collect();
    format!("{name} = {}\n", values.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{NET_INPUTS, WeightSets};

    #[test]
    fn the_embedded_file_is_the_default_and_makes_sense() {
        let parsed = WeightSets::from_text(DEFAULT_WEIGHTS_TEXT).expect("the embedded file");
        assert_eq!(parsed, WeightSets::default());
        assert_eq!(parsed.general(), &EvalWeights::default());
        // Whatever a fit makes of the rest, the queen's danger must rise with every occupied
        // cell around it and a Beetle on the enemy queen must count for its owner.
        let sets = parsed.own_types().map(|t| parsed.for_type(t));
        for w in std::iter::once(parsed.general()).chain(sets) {
            assert!(w.queen_ring.windows(2).all(|p| p[0] < p[1]), "{w:?}");
            assert!(w.beetle_on_queen > 0 && w.queen_enemy >= 0, "{w:?}");
        }
    }

    #[test]
    fn text_round_trips() {
        let mut w = EvalWeights::default();
        w.queen_ring[3] = -7;
        w.reach[5] = 123;
        w.tempo = 0;
        let text = w.to_text();
        assert_eq!(EvalWeights::from_text(&text), Ok(w.clone()));
        let values = w.to_vec();
        assert_eq!(values.len(), EvalWeights::value_names().len());
        assert_eq!(EvalWeights::from_slice(&values), Some(w.clone()));
        assert_eq!(EvalWeights::from_slice(&values[1..]), None);
        // With a network: its three lines round-trip too; the flat list leaves it out.
        let w1 = (0..2 * NET_INPUTS as i32).map(|i| i * 3 - 40).collect();
        let net = Net::new(w1, vec![5, -6], vec![70, -80]).expect("consistent");
        let with_net = EvalWeights {
            net: Some(Arc::new(net)),
            ..w.clone()
        };
        let text = with_net.to_text();
        assert!(
            text.contains("\nnet_b1 = 5 -6\nnet_w2 = 70 -80\n"),
            "{text}"
        );
        assert_eq!(EvalWeights::from_text(&text), Ok(with_net.clone()));
        assert_eq!(EvalWeights::from_slice(&with_net.to_vec()), Some(w));
    }

    #[test]
    fn bad_networks_are_refused() {
        let good = EvalWeights::default().to_text();
        let w1 = vec!["1"; NET_INPUTS].join(" ");
        let cases = [
            (
                format!("{good}net_w1 = {w1}\nnet_b1 = 0\n"),
                WeightsError::Missing("net_w2"),
            ),
            (
                format!("{good}net_w1 = {w1}\nnet_b1 = 0\nnet_w2 = 1 2\n"),
                WeightsError::NetShape(20),
            ),
            (
                format!("{good}net_w1 = {w1} 1\nnet_b1 = 0\nnet_w2 = 1\n"),
                WeightsError::NetShape(20),
            ),
            (
                format!("{good}net_b1 = 0\nnet_w2 = 1\nnet_b1 = 0\n"),
                WeightsError::Repeated(20, "net_b1".into()),
            ),
            (
                format!("{good}net_w2 = x\n"),
                WeightsError::BadValue(18, "x".into()),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(EvalWeights::from_text(&text), Err(want), "{text}");
        }
    }

    #[test]
    fn bad_texts_are_refused_with_the_line() {
        let good = EvalWeights::default().to_text();
        let tempo = format!("tempo = {}", EvalWeights::default().tempo);
        let cases = [
            (good.replace(&tempo, "tempo 6"), WeightsError::Syntax(17)),
            (
                good.replace("tempo", "tempi"),
                WeightsError::UnknownName(17, "tempi".into()),
            ),
            (
                format!("{good}tempo = 1\n"),
                WeightsError::Repeated(18, "tempo".into()),
            ),
            (
                good.replace(&tempo, "tempo = six"),
                WeightsError::BadValue(17, "six".into()),
            ),
            (
                // The reach line with its last value dropped.
                good.lines()
                    .map(|l| match l.strip_prefix("reach = ") {
                        Some(v) => format!("reach = {}", v.rsplit_once(' ').expect("8 values").0),
                        None => l.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                WeightsError::WrongCount(8, "reach".into(), 8, 7),
            ),
            (
                good.replace(&tempo, "# tempo = 6"),
                WeightsError::Missing("tempo"),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(EvalWeights::from_text(&text), Err(want));
        }
    }
}
