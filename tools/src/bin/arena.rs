//! `arena`: matches between UHP engines, with statistics, SPRT, saved games and shards.
//!
//! ```text
//! arena -e 'new=./target/release/waggle' -e 'old=./waggle-old' --depth 2 --openings 50
//! arena merge shard1/results.tsv shard2/results.tsv
//! arena spsa -e ./target/release/waggle --param lmp_base=4,1,10,0.5 --clock 4+0.04
//! ```

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;
use waggle_tools::arena::game::{GameSettings, Limit};
use waggle_tools::arena::html::{HtmlReport, render};
use waggle_tools::arena::record::results_text;
use waggle_tools::arena::report::{Sprt, SprtModel};
use waggle_tools::arena::runner::{ArenaConfig, merge_results, run_arena};
use waggle_tools::arena::{Mode, Shard};
use waggle_tools::openings::{parse_game_types, parse_openings, random_openings};
use waggle_tools::process::{EngineSpec, parse_engines};
use waggle_tools::spsa::{Spsa, SpsaConfig, SpsaParam, run_spsa};
use waggle_tools::stats::{SprtDecision, SprtParams};

/// Defaults of the game settings (also those of `arena spsa`).
const MAX_MOVES: u32 = 200;
const GRACE_MS: u64 = 1000;
const REPLY_TIMEOUT_MS: u64 = 10_000;
const DEPTH_TIMEOUT_MS: u64 = 300_000;

#[derive(Parser)]
#[command(
    name = "arena",
    about = "Plays matches between UHP engines and reports W/D/L, Elo, LOS and SPRT",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    play: PlayArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Combines result files (`results.tsv` of several shards) into one report.
    Merge {
        /// The result files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also evaluate this SPRT over the merged games (elo0=..,elo1=..,alpha=..,beta=..).
        #[arg(long)]
        sprt: Option<String>,
        /// SPRT outcome model.
        #[arg(long, value_enum, default_value = "pentanomial")]
        sprt_model: ModelArg,
        /// Also write the merged report with charts to this HTML file.
        #[arg(long, value_name = "PATH")]
        html: Option<PathBuf>,
        /// Also write the merged games, in game-number order, as one result file.
        #[arg(long, value_name = "PATH")]
        write: Option<PathBuf>,
        /// With --write: store `-` instead of each game's GameString (a small record that
        /// still holds every result, as kept in engine-tests/sprt/).
        #[arg(long, requires = "write")]
        without_games: bool,
    },
    /// Tunes numeric parameters of an engine by SPSA: game pairs between the engine with the
    /// values pushed up and down at random, each given as `--search NAME=VALUE`.
    Spsa(SpsaArgs),
}

#[derive(Args)]
struct SpsaArgs {
    /// The engine: `[NAME=]PROGRAM [ARGS...]` (quote it as one argument).
    #[arg(short, long = "engine", value_name = "CMD")]
    engine: String,
    /// A parameter to tune, `NAME=START,MIN,MAX,C_END` (C_END: its perturbation at the
    /// last iteration); repeat for each.
    #[arg(long = "param", value_name = "SPEC", required = true)]
    params: Vec<String>,
    /// Game pairs to play.
    #[arg(long, default_value_t = 2000)]
    iterations: usize,
    /// Learning rate at the last iteration (steps are `a_k * result / c_k`, with
    /// `a_N = r_end * C_END^2`).
    #[arg(long, default_value_t = 0.002)]
    r_end: f64,
    #[command(flatten)]
    limit: LimitArgs,
    /// Plies of each random opening (one opening per iteration).
    #[arg(long, value_name = "N", default_value_t = 4)]
    opening_plies: u32,
    /// Seed of the random openings and of the perturbations.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Game types of the openings, comma-separated, or `all`.
    #[arg(long, default_value = "Base+MLP")]
    game_types: String,
    /// Game pairs played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// The log: one line per iteration with the values after it.
    #[arg(long, default_value = "spsa.tsv")]
    log: PathBuf,
    /// Take up the iterations and values of an existing log.
    #[arg(long)]
    resume: bool,
}

/// How long each move may think: exactly one of these.
#[derive(Args)]
struct LimitArgs {
    /// Seconds per move (`bestmove time`).
    #[arg(long, value_name = "SECS", group = "limit")]
    move_time: Option<f64>,
    /// Search depth per move (`bestmove depth N`).
    #[arg(long, value_name = "N", group = "limit")]
    depth: Option<u32>,
    /// Game clock per side, `BASE+INC` in seconds (`60+0.5`).
    #[arg(long, value_name = "BASE+INC", group = "limit")]
    clock: Option<String>,
}

impl LimitArgs {
    fn limit(&self) -> Result<Limit> {
        Ok(match (self.move_time, self.depth, &self.clock) {
            (Some(t), _, _) => match Duration::try_from_secs_f64(t) {
                Ok(d) if !d.is_zero() => Limit::MoveTime(d),
                _ => bail!("--move-time {t}: must be a positive number of seconds"),
            },
            (_, Some(d), _) => Limit::Depth(d),
            (_, _, Some(c)) => Limit::parse_clock(c)
                .with_context(|| format!("--clock '{c}': expected BASE+INC in seconds"))?,
            _ => bail!("give a limit: --move-time, --depth or --clock"),
        })
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum ModelArg {
    /// Game pairs: LL, LD, DD/WL, WD, WW.
    Pentanomial,
    /// Single games: W, D, L.
    Trinomial,
}

impl From<ModelArg> for SprtModel {
    fn from(m: ModelArg) -> SprtModel {
        match m {
            ModelArg::Pentanomial => SprtModel::Pentanomial,
            ModelArg::Trinomial => SprtModel::Trinomial,
        }
    }
}

#[derive(Args)]
struct PlayArgs {
    /// An engine: `[NAME=]PROGRAM [ARGS...]` (quote it as one argument). Give two or more.
    #[arg(short, long = "engine", value_name = "CMD")]
    engines: Vec<String>,
    /// Every engine plays every other one (default: a gauntlet of the first against the rest).
    #[arg(long)]
    round_robin: bool,
    #[command(flatten)]
    limit: LimitArgs,
    /// Number of openings (random ones; with --openings-file, at most this many lines).
    /// Every opening is played twice per pairing, colours swapped.
    #[arg(long, value_name = "N")]
    openings: Option<usize>,
    /// Plies of each random opening.
    #[arg(long, value_name = "N", default_value_t = 4)]
    opening_plies: u32,
    /// Read openings from this file: one GameString (or GameTypeString) per line.
    #[arg(long, value_name = "PATH")]
    openings_file: Option<PathBuf>,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Game types of the random openings, comma-separated, or `all`; opening i gets type
    /// i modulo the list.
    #[arg(long, default_value = "Base+MLP")]
    game_types: String,
    /// A game not over after this many moves per side is a draw.
    #[arg(long, default_value_t = MAX_MOVES)]
    max_moves: u32,
    /// Games played at once (each with its own two engine processes).
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Extra milliseconds allowed past a time limit before an engine counts as hung.
    #[arg(long, default_value_t = GRACE_MS)]
    grace_ms: u64,
    /// Milliseconds allowed for start-up and for `newgame`/`play` replies.
    #[arg(long, default_value_t = REPLY_TIMEOUT_MS)]
    reply_timeout_ms: u64,
    /// Milliseconds allowed for a `bestmove depth N` reply.
    #[arg(long, default_value_t = DEPTH_TIMEOUT_MS)]
    depth_timeout_ms: u64,
    /// Do not end games by threefold repetition (waggle's rules do).
    #[arg(long)]
    no_repetition_draw: bool,
    /// Stop when this SPRT decides: `elo0=0,elo1=10,alpha=0.05,beta=0.05` (two engines).
    #[arg(long, value_name = "SPEC")]
    sprt: Option<String>,
    /// SPRT outcome model.
    #[arg(long, value_enum, default_value = "pentanomial")]
    sprt_model: ModelArg,
    /// Play only part `i` of `n` of the schedule (whole game pairs), e.g. `2/4`.
    #[arg(long, value_name = "i/n")]
    shard: Option<String>,
    /// Stop cleanly as soon as this file exists (a driver of many shards writes it when the
    /// merged SPRT decides); the games in progress are abandoned.
    #[arg(long, value_name = "PATH")]
    stop_file: Option<PathBuf>,
    /// Keep the games already in the output directory's results.tsv (of the same match and
    /// shard) and play only the missing ones.
    #[arg(long)]
    resume: bool,
    /// Output directory (results.tsv, games.txt, pgn/, failures.log, report.txt,
    /// report.html).
    #[arg(long, default_value = "arena-out")]
    out: PathBuf,
}

fn parse_sprt(spec: Option<&str>, model: ModelArg) -> Result<Option<Sprt>> {
    spec.map(|s| {
        Ok(Sprt {
            params: SprtParams::parse(s)?,
            model: model.into(),
        })
    })
    .transpose()
}

/// The `SPRT result: ...` text (scripts look for `H1 accepted` / `H0 accepted`).
fn decision_text(d: SprtDecision) -> &'static str {
    match d {
        SprtDecision::AcceptH1 => "H1 accepted",
        SprtDecision::AcceptH0 => "H0 accepted",
        SprtDecision::Continue => "no bound crossed",
    }
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Merge {
            files,
            sprt,
            sprt_model,
            html,
            write: write_path,
            without_games,
        }) => {
            let sprt = parse_sprt(sprt.as_deref(), sprt_model)?;
            let merged = merge_results(&files, sprt.as_ref())?;
            let mut out = std::io::stdout();
            let _ = write!(out, "{}", merged.report);
            if let Some(sprt) = &sprt {
                let _ = writeln!(
                    out,
                    "SPRT result: {}",
                    decision_text(merged.tally.sprt_decision(sprt))
                );
            }
            if let Some(path) = html {
                let engines = &merged.tally.engines;
                let title = format!("waggle arena (merged): {}", engines.join(" vs "));
                let page = render(&HtmlReport {
                    title: &title,
                    engines,
                    mode: merged.mode,
                    records: &merged.records,
                    sprt: sprt.as_ref(),
                    text: &merged.report,
                });
                std::fs::write(&path, page)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            if let Some(path) = write_path {
                if merged.settings.len() > 1 {
                    bail!("the files come from matches with different settings: not written");
                }
                let text = results_text(
                    merged.mode,
                    &merged.tally.engines,
                    merged.settings.first().map(String::as_str),
                    &merged.records,
                    !without_games,
                );
                std::fs::write(&path, text)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            Ok(())
        }
        Some(Command::Spsa(a)) => spsa(a),
        None => play(cli.play),
    }
}

/// The game settings of `limit` with the default timeouts and waggle's rules.
fn default_settings(limit: Limit) -> GameSettings {
    GameSettings {
        limit,
        grace: Duration::from_millis(GRACE_MS),
        reply_timeout: Duration::from_millis(REPLY_TIMEOUT_MS),
        depth_timeout: Duration::from_millis(DEPTH_TIMEOUT_MS),
        max_moves: MAX_MOVES,
        repetition_draw: true,
    }
}

fn spsa(a: SpsaArgs) -> Result<()> {
    let engine = EngineSpec::parse(&a.engine)?;
    let params = a
        .params
        .iter()
        .map(|p| SpsaParam::parse(p))
        .collect::<Result<Vec<_>, _>>()?;
    if !(a.r_end.is_finite() && a.r_end > 0.0) {
        bail!("--r-end {}: must be above 0", a.r_end);
    }
    let types = parse_game_types(&a.game_types)?;
    let iterations = a.iterations.max(1);
    let config = SpsaConfig {
        engine,
        spsa: Spsa::new(params, iterations, a.r_end),
        openings: random_openings(iterations, a.opening_plies, a.seed, &types, true),
        settings: default_settings(a.limit.limit()?),
        concurrency: a.concurrency.max(1),
        seed: a.seed,
        log_path: a.log,
        resume: a.resume,
    };
    let theta = run_spsa(&config, &mut std::io::stderr())?;
    let mut out = std::io::stdout();
    for (p, t) in config.spsa.params.iter().zip(theta) {
        let _ = writeln!(out, "--search {}={}", p.name, t.round() as i64);
    }
    Ok(())
}

fn play(a: PlayArgs) -> Result<()> {
    if a.engines.len() < 2 {
        bail!("give at least two engines with -e/--engine");
    }
    let engines = parse_engines(&a.engines)?;
    let limit = a.limit.limit()?;
    let repetition_draw = !a.no_repetition_draw;
    let (openings, openings_note) = match &a.openings_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let mut o = parse_openings(&text, repetition_draw)?;
            if let Some(n) = a.openings {
                o.truncate(n);
            }
            let note = format!("{} from {}", o.len(), path.display());
            (o, note)
        }
        None => {
            let types = parse_game_types(&a.game_types)?;
            let n = a.openings.unwrap_or(10);
            let o = random_openings(n, a.opening_plies, a.seed, &types, repetition_draw);
            let names: Vec<String> = types.iter().map(|t| t.to_string()).collect();
            let note = format!(
                "{n} random of {} plies, seed {}, types {}",
                a.opening_plies,
                a.seed,
                names.join(",")
            );
            (o, note)
        }
    };
    let config = ArenaConfig {
        engines,
        mode: if a.round_robin {
            Mode::RoundRobin
        } else {
            Mode::Gauntlet
        },
        openings,
        openings_note,
        settings: GameSettings {
            limit,
            grace: Duration::from_millis(a.grace_ms),
            reply_timeout: Duration::from_millis(a.reply_timeout_ms),
            depth_timeout: Duration::from_millis(a.depth_timeout_ms),
            max_moves: a.max_moves,
            repetition_draw,
        },
        concurrency: a.concurrency.max(1),
        shard: a.shard.as_deref().map(Shard::parse).transpose()?,
        sprt: parse_sprt(a.sprt.as_deref(), a.sprt_model)?,
        out_dir: a.out,
        stop_file: a.stop_file,
        resume: a.resume,
        live_progress: std::io::stderr().is_terminal(),
    };
    let outcome = run_arena(&config, &mut std::io::stderr())?;
    let mut out = std::io::stdout();
    let _ = write!(out, "{}", outcome.report);
    if let Some(d) = outcome.decision {
        let _ = writeln!(out, "SPRT result: {}", decision_text(d));
    }
    Ok(())
}
