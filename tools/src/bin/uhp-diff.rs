//! `uhp-diff`: compares another UHP engine's move generation with waggle's rules.
//!
//! ```text
//! uhp-diff -e ./other-engine --games 100 --plies 80 --game-types all
//! uhp-diff perft -e ./other-engine --positions engine-tests/data/perft-positions.tsv --depth 2
//! ```
//!
//! Exit status: 0 when no difference was found, 1 when some were (each is printed with its
//! GameString), 2 when the comparison could not be carried out.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use waggle_tools::ToolError;
use waggle_tools::diff::{
    DiffSettings, DiffSummary, Difference, PerftMethod, PerftPosition, diff_perft,
    diff_random_games, parse_perft_positions,
};
use waggle_tools::openings::parse_game_types;
use waggle_tools::process::EngineSpec;

#[derive(Parser)]
#[command(
    name = "uhp-diff",
    about = "Compares another UHP engine's moves and game states with waggle's rules",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    random: RandomArgs,
}

#[derive(Args)]
struct Common {
    /// The engine: `PROGRAM [ARGS...]` (quote it as one argument).
    #[arg(short, long, value_name = "CMD")]
    engine: Option<String>,
    /// Milliseconds allowed for start-up and for each reply.
    #[arg(long, default_value_t = 10_000)]
    reply_timeout_ms: u64,
    /// Do not end games by threefold repetition (for engines that do not apply it).
    #[arg(long)]
    no_repetition_draw: bool,
}

#[derive(Args)]
struct RandomArgs {
    #[command(flatten)]
    common: Common,
    /// Random games to play.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Plies per game at most (a game also stops when it ends).
    #[arg(long, default_value_t = 60)]
    plies: u32,
    /// Seed of the random games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Game types, comma-separated, or `all`; game i gets type i modulo the list.
    #[arg(long, default_value = "all")]
    game_types: String,
}

#[derive(Subcommand)]
enum Command {
    /// Compares perft counts from given positions.
    Perft {
        #[command(flatten)]
        common: Common,
        /// Depth to count (overrides the positions file's depth column).
        #[arg(long)]
        depth: Option<u32>,
        /// File of positions: `GameString [TAB depth [TAB nodes]]` per line.
        #[arg(long, value_name = "PATH")]
        positions: Option<PathBuf>,
        /// A position (GameString or GameTypeString); may be repeated.
        #[arg(long = "game", value_name = "GAMESTRING")]
        games: Vec<String>,
        /// How the engine's counts are obtained.
        #[arg(long, value_enum, default_value = "auto")]
        method: MethodArg,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum MethodArg {
    /// The `perft N` extension if the engine has it, else validmoves.
    Auto,
    /// The engine's `perft N` extension.
    Extension,
    /// validmoves/play/undo down the tree.
    Validmoves,
}

/// The engine of `c`, which must be given.
fn engine(c: &Common) -> Result<EngineSpec, ToolError> {
    let text = c
        .engine
        .as_deref()
        .ok_or_else(|| ToolError::Config("give the engine with -e/--engine".into()))?;
    EngineSpec::parse(text).map_err(|e| ToolError::Config(e.to_string()))
}

fn settings(c: &Common) -> DiffSettings {
    DiffSettings {
        reply_timeout: Duration::from_millis(c.reply_timeout_ms),
        repetition_draw: !c.no_repetition_draw,
    }
}

/// Prints a line on standard output, ignoring a closed pipe (`uhp-diff ... | head`).
fn say(text: &str) {
    let _ = writeln!(std::io::stdout(), "{text}");
}

fn print_difference(d: &Difference) {
    say(&format!("DIFF {d}"));
}

fn run(cli: Cli) -> Result<DiffSummary, ToolError> {
    match cli.command {
        None => {
            let a = cli.random;
            let common = a.common;
            let spec = engine(&common)?;
            let types = parse_game_types(&a.game_types)?;
            diff_random_games(
                &spec,
                a.games,
                a.plies,
                a.seed,
                &types,
                settings(&common),
                &mut print_difference,
            )
        }
        Some(Command::Perft {
            common,
            depth,
            positions,
            games,
            method,
        }) => {
            let spec = engine(&common)?;
            let s = settings(&common);
            let mut list: Vec<PerftPosition> = Vec::new();
            if let Some(path) = positions {
                let text = std::fs::read_to_string(&path).map_err(|e| ToolError::io(&path, e))?;
                list.extend(parse_perft_positions(&text, depth, s.repetition_draw)?);
            }
            if !games.is_empty() {
                let Some(d) = depth else {
                    return Err(ToolError::Config("--game needs --depth".into()));
                };
                let text: String = games.iter().map(|g| format!("{g}\t{d}\n")).collect();
                list.extend(parse_perft_positions(&text, None, s.repetition_draw)?);
            }
            if list.is_empty() {
                return Err(ToolError::Config("give --positions or --game".into()));
            }
            let method = match method {
                MethodArg::Auto => PerftMethod::Auto,
                MethodArg::Extension => PerftMethod::Extension,
                MethodArg::Validmoves => PerftMethod::ValidMoves,
            };
            diff_perft(
                &spec,
                &list,
                method,
                s,
                &mut print_difference,
                &mut |line| eprintln!("{line}"),
            )
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(summary) => {
            say(&format!(
                "{} items, {} positions compared, {} differences",
                summary.items, summary.positions, summary.differences
            ));
            if summary.differences == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("uhp-diff: {e}");
            ExitCode::from(2)
        }
    }
}
