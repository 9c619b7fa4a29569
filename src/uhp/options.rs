//! The engine options, in UHP's option-line format `Name;type;value;default[;min;max]` (or
//! `[;v1;v2…]` for enums). Names follow Mzinga's where Mzinga has the option.

use crate::search::skill::{MAX_SKILL_LEVEL, MIN_SKILL_LEVEL};
use crate::search::{Algorithm, EngineOptions};
use std::thread;

/// Every setting the host can change.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Settings {
    /// What the search engine is given.
    pub engine: EngineOptions,
    /// `MaxHelperThreads`: `None` for `Auto` (the available cores minus one), else the
    /// number of helper threads (the engine's threads are one more).
    pub helpers: Option<usize>,
    /// Print a `move;depth;score;pv…` line for each completed iteration of `bestmove`.
    pub report_intermediate: bool,
    /// Whether threefold repetition ends the game in a draw.
    pub repetition_draw: bool,
    /// Search the position while waiting for the host.
    pub ponder: Ponder,
}

/// `PonderDuringIdle`: whether, and on how many threads, the engine searches while it waits
/// for the next command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ponder {
    /// No search while idle.
    Disabled,
    /// One thread.
    SingleThreaded,
    /// The threads of `MaxHelperThreads`.
    MultiThreaded,
}

/// The values of `PonderDuringIdle`, as Mzinga spells them.
const PONDER: [(&str, Ponder); 3] = [
    ("Disabled", Ponder::Disabled),
    ("SingleThreaded", Ponder::SingleThreaded),
    ("MultiThreaded", Ponder::MultiThreaded),
];

impl Default for Settings {
    fn default() -> Self {
        Settings {
            engine: EngineOptions {
                threads: auto_helpers() + 1,
                ..EngineOptions::default()
            },
            helpers: None,
            report_intermediate: false,
            repetition_draw: true,
            ponder: Ponder::Disabled,
        }
    }
}

/// Most helper threads (search threads besides the main one).
const MAX_HELPER_THREADS: usize = 63;

/// The helper threads of `MaxHelperThreads Auto`: one fewer than the cores this process may
/// use (at least 0, at most [`MAX_HELPER_THREADS`]).
pub(crate) fn auto_helpers() -> usize {
    thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_sub(1)
        .min(MAX_HELPER_THREADS)
}
/// Most moves `MultiPV` ranks.
const MAX_MULTI_PV: i64 = 32;
/// Largest `RandomSeed` (a 32-bit signed integer, which every host can hold).
const MAX_RANDOM_SEED: i64 = i32::MAX as i64;
/// Transposition-table size range, MiB.
const HASH_MB_RANGE: (i64, i64) = (1, 4096);
/// The search algorithms, as the enum option spells them.
const ALGORITHMS: [(&str, Algorithm); 2] = [
    ("AlphaBeta", Algorithm::AlphaBeta),
    ("MCTS", Algorithm::Mcts),
];

/// One option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OptionId {
    /// Search threads besides the main one (int).
    MaxHelperThreads,
    /// Transposition-table size in MiB (int).
    TranspositionTableSizeMB,
    /// `AlphaBeta` or `MCTS` (enum).
    SearchAlgorithm,
    /// Intermediate best-move lines during `bestmove` (bool).
    ReportIntermediateBestMoves,
    /// How many best moves the search ranks and reports (int).
    MultiPV,
    /// Threefold repetition is a draw (bool).
    ThreefoldRepetitionDraw,
    /// `Disabled`, `SingleThreaded` or `MultiThreaded` (enum).
    PonderDuringIdle,
    /// Playing level, full strength at the top (int).
    SkillLevel,
    /// Seed of the lower levels' random choices (int).
    RandomSeed,
}

impl OptionId {
    /// All options, in the order `options` lists them.
    pub(crate) const ALL: [OptionId; 9] = [
        OptionId::MaxHelperThreads,
        OptionId::TranspositionTableSizeMB,
        OptionId::SearchAlgorithm,
        OptionId::ReportIntermediateBestMoves,
        OptionId::MultiPV,
        OptionId::ThreefoldRepetitionDraw,
        OptionId::PonderDuringIdle,
        OptionId::SkillLevel,
        OptionId::RandomSeed,
    ];

    /// The option's name.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            OptionId::MaxHelperThreads => "MaxHelperThreads",
            OptionId::TranspositionTableSizeMB => "TranspositionTableSizeMB",
            OptionId::SearchAlgorithm => "SearchAlgorithm",
            OptionId::ReportIntermediateBestMoves => "ReportIntermediateBestMoves",
            OptionId::MultiPV => "MultiPV",
            OptionId::ThreefoldRepetitionDraw => "ThreefoldRepetitionDraw",
            OptionId::PonderDuringIdle => "PonderDuringIdle",
            OptionId::SkillLevel => "SkillLevel",
            OptionId::RandomSeed => "RandomSeed",
        }
    }

    /// What the option does, for `help options`.
    pub(crate) const fn help(self) -> &'static str {
        match self {
            OptionId::MaxHelperThreads => {
                "search threads besides the main one: Auto (the default: the available cores minus one), None (0) or a number; match runners pin one thread with None"
            }
            OptionId::TranspositionTableSizeMB => {
                "memory for the transposition table (or the MCTS graph) in MiB"
            }
            OptionId::SearchAlgorithm => "AlphaBeta (the default) or MCTS",
            OptionId::ReportIntermediateBestMoves => {
                "True prints move;depth;score;pv... after every completed iteration of bestmove, one line per ranked move"
            }
            OptionId::MultiPV => {
                "how many best moves the search ranks (1 to 32); each iteration then reports them best first, and the answer is the best"
            }
            OptionId::ThreefoldRepetitionDraw => {
                "True: the third occurrence of a position draws the game"
            }
            OptionId::PonderDuringIdle => {
                "Disabled (the default), SingleThreaded or MultiThreaded: search the position while waiting for the next command"
            }
            OptionId::SkillLevel => {
                "playing level from 1 (weakest) to 10 (full strength, the default): lower levels search less and choose at random among good moves, always taking a win in one"
            }
            OptionId::RandomSeed => {
                "seed of the lower levels' random choices: the same seed replays the same game"
            }
        }
    }

    /// The option called `name` (case-insensitive).
    pub(crate) fn find(name: &str) -> Option<OptionId> {
        OptionId::ALL
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(name))
    }

    /// The option's line: `Name;type;value;default` plus the range or the choices.
    pub(crate) fn line(self, current: &Settings, default: &Settings) -> String {
        let name = self.name();
        match self {
            OptionId::MaxHelperThreads => {
                // As Mzinga: an enum of Auto, None (0) and every explicit count.
                let counts: Vec<String> = (1..=MAX_HELPER_THREADS).map(|n| n.to_string()).collect();
                format!(
                    "{name};enum;{};{};Auto;None;{}",
                    helpers_name(current.helpers),
                    helpers_name(default.helpers),
                    counts.join(";")
                )
            }
            OptionId::TranspositionTableSizeMB => format!(
                "{name};int;{};{};{};{}",
                current.engine.hash_mb, default.engine.hash_mb, HASH_MB_RANGE.0, HASH_MB_RANGE.1
            ),
            OptionId::SearchAlgorithm => {
                let choices: Vec<&str> = ALGORITHMS.iter().map(|&(n, _)| n).collect();
                format!(
                    "{name};enum;{};{};{}",
                    algorithm_name(current.engine.algorithm),
                    algorithm_name(default.engine.algorithm),
                    choices.join(";")
                )
            }
            OptionId::ReportIntermediateBestMoves => format!(
                "{name};bool;{};{}",
                bool_name(current.report_intermediate),
                bool_name(default.report_intermediate)
            ),
            OptionId::MultiPV => format!(
                "{name};int;{};{};1;{MAX_MULTI_PV}",
                current.engine.multi_pv, default.engine.multi_pv
            ),
            OptionId::ThreefoldRepetitionDraw => format!(
                "{name};bool;{};{}",
                bool_name(current.repetition_draw),
                bool_name(default.repetition_draw)
            ),
            OptionId::SkillLevel => format!(
                "{name};int;{};{};{MIN_SKILL_LEVEL};{MAX_SKILL_LEVEL}",
                current.engine.skill_level, default.engine.skill_level
            ),
            OptionId::RandomSeed => format!(
                "{name};int;{};{};0;{MAX_RANDOM_SEED}",
                current.engine.seed, default.engine.seed
            ),
            OptionId::PonderDuringIdle => {
                let choices: Vec<&str> = PONDER.iter().map(|&(n, _)| n).collect();
                format!(
                    "{name};enum;{};{};{}",
                    ponder_name(current.ponder),
                    ponder_name(default.ponder),
                    choices.join(";")
                )
            }
        }
    }

    /// Sets the option from its text value; on error `settings` is unchanged and the message
    /// says what values are allowed.
    pub(crate) fn set(self, value: &str, settings: &mut Settings) -> Result<(), String> {
        let value = value.trim();
        let name = self.name();
        match self {
            OptionId::MaxHelperThreads => {
                let helpers = if value.eq_ignore_ascii_case("auto") {
                    None
                } else if value.eq_ignore_ascii_case("none") {
                    Some(0)
                } else {
                    match value.parse::<usize>() {
                        Ok(n) if n <= MAX_HELPER_THREADS => Some(n),
                        _ => {
                            return Err(format!(
                                "Invalid value '{value}' for {name}: expected Auto, None or an integer from 0 to {MAX_HELPER_THREADS}"
                            ));
                        }
                    }
                };
                settings.helpers = helpers;
                settings.engine.threads = helpers.unwrap_or_else(auto_helpers) + 1;
            }
            OptionId::TranspositionTableSizeMB => {
                let n = parse_int(name, value, HASH_MB_RANGE.0, HASH_MB_RANGE.1)?;
                settings.engine.hash_mb = n as usize;
            }
            OptionId::SearchAlgorithm => {
                let found = ALGORITHMS
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(value))
                    .ok_or_else(|| {
                        format!("Invalid value '{value}' for {name}: expected AlphaBeta or MCTS")
                    })?;
                settings.engine.algorithm = found.1;
            }
            OptionId::ReportIntermediateBestMoves => {
                settings.report_intermediate = parse_bool(name, value)?;
            }
            OptionId::MultiPV => {
                settings.engine.multi_pv = parse_int(name, value, 1, MAX_MULTI_PV)? as usize;
            }
            OptionId::ThreefoldRepetitionDraw => {
                settings.repetition_draw = parse_bool(name, value)?;
            }
            OptionId::SkillLevel => {
                let level = parse_int(
                    name,
                    value,
                    i64::from(MIN_SKILL_LEVEL),
                    i64::from(MAX_SKILL_LEVEL),
                )?;
                settings.engine.skill_level = level as u32;
            }
            OptionId::RandomSeed => {
                settings.engine.seed = parse_int(name, value, 0, MAX_RANDOM_SEED)? as u64;
            }
            OptionId::PonderDuringIdle => {
                let found = PONDER
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(value))
                    .ok_or_else(|| {
                        format!(
                            "Invalid value '{value}' for {name}: expected Disabled, SingleThreaded or MultiThreaded"
                        )
                    })?;
                settings.ponder = found.1;
            }
        }
        Ok(())
    }
}

/// `Auto`, `None` (no helpers) or the count.
fn helpers_name(helpers: Option<usize>) -> String {
    match helpers {
        None => "Auto".to_string(),
        Some(0) => "None".to_string(),
        Some(n) => n.to_string(),
    }
}

fn ponder_name(p: Ponder) -> &'static str {
    PONDER
        .iter()
        .find(|&&(_, x)| x == p)
        .map_or("Disabled", |&(n, _)| n)
}

fn algorithm_name(a: Algorithm) -> &'static str {
    ALGORITHMS
        .iter()
        .find(|&&(_, x)| x == a)
        .map_or("AlphaBeta", |&(n, _)| n)
}

/// UHP (and MzingaViewer, which parses with .NET) writes booleans as `True`/`False`.
fn bool_name(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

fn parse_bool(name: &str, value: &str) -> Result<bool, String> {
    if value.eq_ignore_ascii_case("true") {
        Ok(true)
    } else if value.eq_ignore_ascii_case("false") {
        Ok(false)
    } else {
        Err(format!(
            "Invalid value '{value}' for {name}: expected True or False"
        ))
    }
}

fn parse_int(name: &str, value: &str, min: i64, max: i64) -> Result<i64, String> {
    match value.parse::<i64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "Invalid value '{value}' for {name}: expected an integer from {min} to {max}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_show_value_default_and_range() {
        let default = Settings::default();
        let mut s = default.clone();
        assert_eq!(default.engine.threads, auto_helpers() + 1);
        OptionId::MaxHelperThreads.set("3", &mut s).unwrap();
        assert_eq!(s.engine.threads, 4);
        let line = OptionId::MaxHelperThreads.line(&s, &default);
        assert!(
            line.starts_with("MaxHelperThreads;enum;3;Auto;Auto;None;1;2;"),
            "{line}"
        );
        assert!(line.ends_with(";62;63"), "{line}");
        OptionId::MaxHelperThreads.set("0", &mut s).unwrap();
        assert_eq!(s.engine.threads, 1);
        assert_eq!(s.helpers, Some(0));
        OptionId::MaxHelperThreads.set("auto", &mut s).unwrap();
        assert_eq!(s.engine.threads, default.engine.threads);
        OptionId::SearchAlgorithm.set("mcts", &mut s).unwrap();
        assert_eq!(
            OptionId::SearchAlgorithm.line(&s, &default),
            "SearchAlgorithm;enum;MCTS;AlphaBeta;AlphaBeta;MCTS"
        );
        OptionId::ThreefoldRepetitionDraw
            .set("FALSE", &mut s)
            .unwrap();
        assert_eq!(
            OptionId::ThreefoldRepetitionDraw.line(&s, &default),
            "ThreefoldRepetitionDraw;bool;False;True"
        );
    }

    #[test]
    fn bad_values_change_nothing() {
        let mut s = Settings::default();
        for (id, v) in [
            (OptionId::MaxHelperThreads, "-1"),
            (OptionId::MaxHelperThreads, "64"),
            (OptionId::MaxHelperThreads, "Automatic"),
            (OptionId::TranspositionTableSizeMB, "0"),
            (OptionId::TranspositionTableSizeMB, "1e3"),
            (OptionId::SearchAlgorithm, "Random"),
            (OptionId::ReportIntermediateBestMoves, "yes"),
            (OptionId::MultiPV, "0"),
            (OptionId::PonderDuringIdle, "True"),
            (OptionId::SkillLevel, "0"),
            (OptionId::SkillLevel, "11"),
            (OptionId::RandomSeed, "-1"),
            (OptionId::RandomSeed, "2147483648"),
            (OptionId::MultiPV, "33"),
            (OptionId::ThreefoldRepetitionDraw, ""),
        ] {
            assert!(id.set(v, &mut s).is_err(), "{id:?} {v}");
        }
        assert_eq!(s, Settings::default());
        assert_eq!(
            OptionId::find("transpositiontablesizemb"),
            Some(OptionId::TranspositionTableSizeMB)
        );
        assert_eq!(OptionId::find("Hash"), None);
    }
}
