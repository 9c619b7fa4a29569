//! Command-line interface: no subcommand runs the UHP engine; subcommands are tools.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use waggle::core::perft::{perft, perft_divide};
use waggle::notation::{format_move, parse_game_string};
use waggle::search::{Engine, EngineOptions, Limits};

#[derive(Parser)]
#[command(
    name = "waggle",
    version,
    about = "A Hive engine speaking the Universal Hive Protocol"
)]
struct Cli {
    /// Sets a UHP option before the engine starts, as `options set NAME VALUE` would
    /// (repeatable), e.g. `--option SearchAlgorithm=MCTS`.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = parse_option)]
    options: Vec<(String, String)>,
    #[command(subcommand)]
    command: Option<Command>,
}

fn parse_option(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| format!("expected NAME=VALUE, got '{s}'"))
}

#[derive(Subcommand)]
enum Command {
    /// Counts move sequences: one line `depth=D nodes=N time_ms=T nps=R` per depth 1..=N.
    Perft {
        /// A GameTypeString (`Base+MLP`) or a GameString.
        #[arg(long, default_value = "Base")]
        game: String,
        /// Deepest depth to count.
        #[arg(long)]
        depth: u32,
        /// First print `<MoveString>: <count>` for every root move at the deepest depth.
        #[arg(long)]
        divide: bool,
        /// Threads splitting the root moves.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Searches fixed positions to a fixed depth: one line per position, then
    /// `nodes=N time_ms=T nps=R` (the time spent searching, without clearing the tables
    /// between positions). With one thread the node count is the search's signature.
    Bench {
        /// Search depth in plies.
        #[arg(long, default_value_t = BENCH_DEPTH)]
        depth: u32,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
        /// Best moves ranked per position (the `MultiPV` option); above 1 the node count is
        /// not the signature.
        #[arg(long, default_value_t = 1)]
        multi_pv: usize,
    },
}

/// The bench positions: GameStrings, one a line, `#` comments.
const BENCH_POSITIONS: &str = include_str!("../engine-tests/bench/positions.txt");
/// Default bench depth.
const BENCH_DEPTH: u32 = 8;

/// Parses the arguments and runs the chosen command.
pub fn run() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        None => waggle::uhp::run_stdio(&cli.options).context("UHP engine input/output failed"),
        Some(Command::Perft {
            game,
            depth,
            divide,
            threads,
        }) => run_perft(&game, depth, divide, threads),
        Some(Command::Bench {
            depth,
            threads,
            hash,
            multi_pv,
        }) => run_bench(depth, threads, hash, multi_pv),
    }
}

fn run_perft(game: &str, depth: u32, divide: bool, threads: usize) -> Result<()> {
    let text = if game.contains(';') {
        game.to_string()
    } else {
        format!("{game};NotStarted;White[1]")
    };
    let game = parse_game_string(&text, true).with_context(|| format!("bad game '{text}'"))?;
    let threads = threads.max(1);
    let mut out = std::io::stdout().lock();
    if divide && depth > 0 {
        for (m, n) in perft_divide(&game, depth, threads) {
            writeln!(out, "{}: {n}", format_move(&game, m))?;
        }
    }
    for d in 1..=depth {
        let start = Instant::now();
        let nodes = if threads == 1 {
            perft(&mut game.clone(), d)
        } else {
            perft_divide(&game, d, threads)
                .iter()
                .map(|&(_, n)| n)
                .sum()
        };
        writeln!(
            out,
            "depth={d} nodes={nodes} {}",
            rate(nodes, start.elapsed())
        )?;
        out.flush()?;
    }
    Ok(())
}

fn run_bench(depth: u32, threads: usize, hash_mb: usize, multi_pv: usize) -> Result<()> {
    let mut engine = Engine::new(EngineOptions {
        threads: threads.max(1),
        hash_mb,
        multi_pv: multi_pv.max(1),
        ..EngineOptions::default()
    });
    let stop = AtomicBool::new(false);
    let limits = Limits {
        depth: Some(depth),
        time: None,
    };
    let mut out = std::io::stdout().lock();
    let mut total_nodes = 0;
    let mut searching = Duration::ZERO;
    let positions = BENCH_POSITIONS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    for (i, text) in positions.enumerate() {
        let game = parse_game_string(text, true)
            .with_context(|| format!("bad bench position '{text}'"))?;
        // Each position starts from a fresh engine, so the count does not depend on the order.
        engine.clear();
        let t = Instant::now();
        let mut nodes = 0;
        let mut score = 0;
        let best = engine.search(&game, &limits, &stop, &mut |info| {
            nodes = info.nodes;
            if info.rank == 1 {
                score = info.score;
            }
        });
        let elapsed = t.elapsed();
        searching += elapsed;
        total_nodes += nodes;
        writeln!(
            out,
            "position {:2} {:<9} nodes={nodes:>10} time_ms={:>6} score={score:>6} best={}",
            i + 1,
            game.game_type().to_string(),
            elapsed.as_millis(),
            format_move(&game, best)
        )?;
        out.flush()?;
    }
    writeln!(out, "nodes={total_nodes} {}", rate(total_nodes, searching))?;
    Ok(())
}

/// `time_ms=<elapsed> nps=<nodes per second>` for `nodes` counted in `elapsed`.
fn rate(nodes: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    let nps = if secs > 0.0 {
        (nodes as f64 / secs) as u64
    } else {
        0
    };
    format!("time_ms={} nps={nps}", (secs * 1000.0).round() as u64)
}
