//! Command-line interface: no subcommand runs the UHP engine; subcommands are tools (perft,
//! bench, svg, and datagen, tune and tune-net for learning the evaluation).

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use waggle::core::GameType;
use waggle::core::perft::{perft, perft_divide};
use waggle::eval::{EvalWeights, WeightSets};
use waggle::learn::datagen::{DatagenConfig, generate};
use waggle::learn::net::{NetData, NetOptions, train};
use waggle::learn::texel::{Dataset, TuneOptions, tune};
use waggle::notation::{format_move, parse_game_string};
use waggle::search::{Engine, EngineOptions, Limits, SearchParams};

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
    /// The UHP engine (no subcommand) searches with the evaluation weights of this file (the
    /// format of `weights/default.txt`) instead of the compiled-in ones; `bench` and `datagen`
    /// take their own `--weights`.
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
    /// The UHP engine (no subcommand) searches with this search parameter changed
    /// (repeatable; the field names of `SearchParams`, e.g. `--search lmr_percent=120`, and
    /// those of `MctsParams` after `mcts_`, e.g. `--search mcts_eval_scale=250`), for tuning
    /// matches; `bench` takes its own `--search`.
    #[arg(long = "search", value_name = "NAME=VALUE", value_parser = parse_option)]
    search: Vec<(String, String)>,
    #[command(subcommand)]
    command: Option<Command>,
}

fn parse_option(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| format!("expected NAME=VALUE, got '{s}'"))
}

/// A list of game types from the command line (one argument, so not a `Vec` to clap).
#[derive(Clone, Debug)]
struct GameTypeList(Vec<GameType>);

/// A game type (`Base`, `Base+ML`, ...).
fn game_type(s: &str) -> Result<GameType, String> {
    GameType::parse(s).ok_or_else(|| format!("unknown game type '{}'", s.trim()))
}

/// A comma-separated list of game types (`Base`, `Base+ML`, ...) or `all`.
fn game_types(s: &str) -> Result<GameTypeList, String> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok(GameTypeList(GameType::all().to_vec()));
    }
    s.split(',')
        .map(game_type)
        .collect::<Result<_, _>>()
        .map(GameTypeList)
}

/// A number from 0 to 1.
fn fraction(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("expected a number from 0 to 1, got '{s}'")),
    }
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
    /// Writes an SVG picture of a position: hexagons, bug letters, colours, stack heights
    /// and the last move marked.
    Svg {
        /// A GameString (or a GameTypeString for an empty board).
        #[arg(long)]
        game: String,
        /// Write the picture to this file instead of standard output.
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
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
        /// Evaluation weights file (the format of `weights/default.txt`) instead of the
        /// compiled-in weights.
        #[arg(long, value_name = "FILE")]
        weights: Option<PathBuf>,
        /// A search parameter changed (repeatable; see the engine's `--search`).
        #[arg(long = "search", value_name = "NAME=VALUE", value_parser = parse_option)]
        search: Vec<(String, String)>,
    },
    /// Plays self-play games at a fixed depth from random openings (half of them Base+MLP, the
    /// rest spread over all eight game types) and writes their quiet positions, one a line:
    /// `GameString<TAB>score<TAB>result`, score and result (1, 0.5, 0) for the side to move.
    Datagen {
        /// Number of games.
        #[arg(long, default_value_t = 100)]
        games: u32,
        /// Search depth of every move.
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// Games played at once (default: the number of cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Seed of the openings and game types (the output depends only on the settings).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Fewest random plies of an opening.
        #[arg(long, default_value_t = 2)]
        min_random_plies: u32,
        /// Most random plies of an opening.
        #[arg(long, default_value_t = 8)]
        max_random_plies: u32,
        /// Plies after which a game is stopped and scored as a draw.
        #[arg(long, default_value_t = 300)]
        max_plies: u32,
        /// Largest gap between the search's score and the static evaluation of a position
        /// kept (others are not quiet).
        #[arg(long, default_value_t = 60)]
        quiet_margin: i32,
        /// Transposition table size of each game's engine, in MiB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
        /// Evaluation weights file to play with instead of the compiled-in weights.
        #[arg(long, value_name = "FILE")]
        weights: Option<PathBuf>,
        /// Game types to play, drawn uniformly, comma-separated (`Base,Base+MLP`) or `all`
        /// (default: half Base+MLP, the rest uniform over all eight).
        #[arg(long, value_name = "TYPES", value_parser = game_types)]
        game_types: Option<GameTypeList>,
        /// The data file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Fits the evaluation weights to the results of a `datagen` file (Texel method: logistic
    /// regression, then coordinate descent over the integer weights) and writes a weights file.
    Tune {
        #[command(flatten)]
        fit: FitArgs,
        /// Weights to start from instead of the compiled-in weights; the written file keeps
        /// every set that is not fitted (the fitted set loses any network it had, which was
        /// fitted to its old sum).
        #[arg(long, value_name = "FILE")]
        start: Option<PathBuf>,
        /// Fit the set of this game type (`Base`, ...) to its positions alone, and give the
        /// type that set of its own (default: fit the general set to the positions of the
        /// types without a set of their own).
        #[arg(long, value_name = "TYPE", value_parser = game_type)]
        game_type: Option<GameType>,
        /// Most passes of coordinate descent.
        #[arg(long, default_value_t = 100)]
        iterations: u32,
        /// Fit only these weight groups (comma-separated names as in the weights file, such as
        /// `queen_ring,tempo`); the others keep their starting values.
        #[arg(long, value_name = "GROUPS", value_delimiter = ',')]
        only: Vec<String>,
    },
    /// Fits a small network that corrects the linear evaluation of one game type's weights to
    /// a `datagen` file (minibatch Adam, early stopping on held-out positions) and writes the
    /// weights with that network.
    TuneNet {
        #[command(flatten)]
        fit: FitArgs,
        /// Weights to start from instead of the compiled-in weights (a network they have for
        /// the game type is replaced).
        #[arg(long, value_name = "FILE")]
        start: Option<PathBuf>,
        /// The game type whose set gets the network; it is fitted to that type's positions.
        #[arg(long, value_name = "TYPE", value_parser = game_type)]
        game_type: GameType,
        /// Hidden units (1 to 64).
        #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=64))]
        hidden: u32,
        /// Passes over the data.
        #[arg(long, default_value_t = 20)]
        epochs: u32,
        /// Adam's step size (from 0 to 1).
        #[arg(long, default_value_t = 0.001, value_parser = fraction)]
        learning_rate: f64,
        /// Seed of the starting weights and the order of the positions.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

/// What `tune` and `tune-net` both read.
#[derive(clap::Args)]
struct FitArgs {
    /// The data file (`waggle datagen`'s format).
    #[arg(long, value_name = "FILE")]
    data: PathBuf,
    /// The weights file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Share of the search's score in the target (0 = the game's result only, 1 = the score
    /// only).
    #[arg(long, default_value_t = 0.0, value_parser = fraction)]
    lambda: f64,
    /// Share of the positions (the last ones of the file) held out of the fit to judge it
    /// (0 = none): `tune` stops at the first pass that does not lower their loss, `tune-net`
    /// keeps the epoch with the lowest.
    #[arg(long, default_value_t = 0.1, value_parser = fraction)]
    holdout: f64,
}

impl FitArgs {
    /// The data file's text.
    fn read_data(&self) -> Result<String> {
        std::fs::read_to_string(&self.data)
            .with_context(|| format!("cannot read {}", self.data.display()))
    }

    /// Writes the fitted weights file.
    fn write_out(&self, text: &str) -> Result<()> {
        std::fs::write(&self.out, text)
            .with_context(|| format!("cannot write {}", self.out.display()))?;
        eprintln!("wrote {}", self.out.display());
        Ok(())
    }
}

/// The bench positions: GameStrings, one a line, `#` comments.
const BENCH_POSITIONS: &str = include_str!("../engine-tests/bench/positions.txt");
/// Default bench depth.
const BENCH_DEPTH: u32 = 8;

/// Parses the arguments and runs the chosen command.
pub fn run() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        None => {
            let params = if cli.weights.is_some() || !cli.search.is_empty() {
                Some(search_params(cli.weights.as_deref(), &cli.search)?)
            } else {
                None
            };
            waggle::uhp::run_stdio(&cli.options, params).context("UHP engine input/output failed")
        }
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
            weights,
            search,
        }) => run_bench(
            depth,
            threads,
            hash,
            multi_pv,
            search_params(weights.as_deref(), &search)?,
        ),
        Some(Command::Svg { game, out }) => run_svg(&game, out.as_deref()),
        Some(Command::Datagen {
            games,
            depth,
            threads,
            seed,
            min_random_plies,
            max_random_plies,
            max_plies,
            quiet_margin,
            hash,
            weights,
            game_types,
            out,
        }) => {
            let config = DatagenConfig {
                games,
                depth,
                threads: threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
                seed,
                min_random_plies,
                max_random_plies,
                max_plies,
                quiet_margin,
                hash_mb: hash,
                weights: load_weights(weights.as_deref())?,
                game_types: game_types.map_or_else(Vec::new, |l| l.0),
            };
            run_datagen(&config, &out)
        }
        Some(Command::Tune {
            fit,
            start,
            game_type,
            iterations,
            only,
        }) => {
            let options = TuneOptions {
                max_passes: iterations,
                lambda: fit.lambda,
                free: free_weights(&only)?,
            };
            run_tune(&fit, load_weights(start.as_deref())?, game_type, options)
        }
        Some(Command::TuneNet {
            fit,
            start,
            game_type,
            hidden,
            epochs,
            learning_rate,
            seed,
        }) => {
            let options = NetOptions {
                hidden: hidden as usize,
                epochs,
                lambda: fit.lambda,
                learning_rate,
                batch: 256,
                seed,
            };
            run_tune_net(&fit, load_weights(start.as_deref())?, game_type, options)
        }
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

fn run_svg(game: &str, out: Option<&Path>) -> Result<()> {
    let text = if game.contains(';') {
        game.to_string()
    } else {
        format!("{game};NotStarted;White[1]")
    };
    let game = parse_game_string(&text, true).with_context(|| format!("bad game '{text}'"))?;
    let svg = waggle::svg::render(&game);
    match out {
        Some(path) => {
            std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))
        }
        None => Ok(std::io::stdout().lock().write_all(svg.as_bytes())?),
    }
}

/// The default search parameters with the weights of `weights` (see [`load_weights`]) and the
/// parameters of `changes` (name, value) changed.
fn search_params(weights: Option<&Path>, changes: &[(String, String)]) -> Result<SearchParams> {
    let mut params = SearchParams {
        weights: load_weights(weights)?,
        ..SearchParams::default()
    };
    for (name, value) in changes {
        params.set(name, value).map_err(anyhow::Error::msg)?;
    }
    Ok(params)
}

/// The weights of `path`, or the compiled-in ones without a path.
fn load_weights(path: Option<&Path>) -> Result<WeightSets> {
    let Some(path) = path else {
        return Ok(WeightSets::default());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read weights file {}", path.display()))?;
    WeightSets::from_text(&text).with_context(|| format!("bad weights file {}", path.display()))
}

fn run_bench(
    depth: u32,
    threads: usize,
    hash_mb: usize,
    multi_pv: usize,
    params: SearchParams,
) -> Result<()> {
    let mut engine = Engine::new(EngineOptions {
        threads: threads.max(1),
        hash_mb,
        multi_pv: multi_pv.max(1),
        ..EngineOptions::default()
    });
    engine.set_params(params);
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

fn run_datagen(config: &DatagenConfig, out: &Path) -> Result<()> {
    let file =
        std::fs::File::create(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut file = std::io::BufWriter::new(file);
    let start = Instant::now();
    let (mut games, mut kept, mut searched) = (0u32, 0u64, 0u64);
    let mut last_report = Instant::now();
    let mut failed = None;
    let stop = AtomicBool::new(false);
    eprintln!(
        "datagen: {} games at depth {} on {} threads, seed {}",
        config.games, config.depth, config.threads, config.seed
    );
    generate(config, &stop, &mut |record| {
        for s in &record.samples {
            if let Err(e) = writeln!(file, "{}", s.to_line()) {
                failed.get_or_insert(e);
            }
        }
        games += 1;
        kept += record.samples.len() as u64;
        searched += u64::from(record.searched);
        if failed.is_some() {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if games == config.games || last_report.elapsed() >= Duration::from_secs(1) {
            last_report = Instant::now();
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            let eta = secs / f64::from(games) * f64::from(config.games - games);
            eprintln!(
                "games {games}/{} positions {kept} kept of {searched} searched, \
                 {:.1} positions/s searched ({:.1} kept/s), elapsed {:.0} s, ETA {:.0} s",
                config.games,
                searched as f64 / secs,
                kept as f64 / secs,
                secs,
                eta
            );
        }
    });
    if let Some(e) = failed {
        return Err(e).with_context(|| format!("cannot write {}", out.display()));
    }
    file.flush()
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote {kept} positions to {}", out.display());
    Ok(())
}

/// The weights `tune --only` lets change (`None` for all when no group is named).
fn free_weights(groups: &[String]) -> Result<Option<Vec<bool>>> {
    if groups.is_empty() {
        return Ok(None);
    }
    for g in groups {
        if !EvalWeights::GROUPS.contains(&g.as_str()) {
            bail!(
                "no weight group '{g}' (the groups: {})",
                EvalWeights::GROUPS.join(", ")
            );
        }
    }
    let free = EvalWeights::GROUPS
        .iter()
        .zip(EvalWeights::default().groups())
        .flat_map(|(name, values)| {
            let free = groups.iter().any(|g| g == name);
            std::iter::repeat_n(free, values.len())
        })
        .collect();
    Ok(Some(free))
}

/// Fits one set of `sets` (the general one, or `game_type`'s) and writes all the sets to `--out`.
fn run_tune(
    fit: &FitArgs,
    mut sets: WeightSets,
    game_type: Option<GameType>,
    options: TuneOptions,
) -> Result<()> {
    let (data, holdout) = (&fit.data, fit.holdout);
    let t = Instant::now();
    let text = fit.read_data()?;
    // The positions the fitted set evaluates in play.
    let own: Vec<GameType> = sets.own_types().collect();
    let keep = |t: GameType| game_type.map_or(!own.contains(&t), |g| g == t);
    let mut dataset = Dataset::from_text_where(&text, keep)
        .with_context(|| format!("bad data file {}", data.display()))?;
    let start = match game_type {
        Some(t) => sets.for_type(t).clone(),
        None => sets.general().clone(),
    };
    let held_out = dataset.split_off(holdout);
    eprintln!(
        "loaded {} positions ({} held out, {} finished games left out) in {:.1} s",
        dataset.len() + held_out.len(),
        held_out.len(),
        dataset.skipped(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let lambda = options.lambda;
    let result = tune(&dataset, Some(&held_out), &start, options, &mut |p| {
        let held = p
            .held_out
            .map_or(String::new(), |l| format!(", held out {l:.6}"));
        eprintln!(
            "pass {}: loss {:.6}{held}, {} weights changed",
            p.pass, p.loss, p.changed
        );
    })
    .with_context(|| format!("cannot tune on {}", data.display()))?;
    let held = result.held_out.map_or(String::new(), |(a, b)| {
        format!(", held out {a:.6} -> {b:.6}")
    });
    eprintln!(
        "K = {:.6}, loss {:.6} -> {:.6}{held} in {} passes, {:.1} s",
        result.k,
        result.initial_loss,
        result.final_loss,
        result.passes,
        t.elapsed().as_secs_f64()
    );
    let fitted = match game_type {
        Some(t) => {
            sets.set_own(t, result.weights);
            format!("the set of {t}")
        }
        None => {
            sets.set_general(result.weights);
            "the general set".to_string()
        }
    };
    let text = format!(
        "# {fitted} fitted by `waggle tune` to {} ({} positions, lambda {}): K = {:.6}, loss {:.6} -> {:.6}{held}.\n{}",
        data.display(),
        dataset.len(),
        lambda,
        result.k,
        result.initial_loss,
        result.final_loss,
        sets.to_text()
    );
    fit.write_out(&text)?;
    Ok(())
}

/// Fits a network for `game_type`'s set of `sets` and writes all the sets to `--out`.
fn run_tune_net(
    fit: &FitArgs,
    mut sets: WeightSets,
    game_type: GameType,
    options: NetOptions,
) -> Result<()> {
    let (data, holdout) = (&fit.data, fit.holdout);
    let t = Instant::now();
    let text = fit.read_data()?;
    let mut weights = sets.for_type(game_type).clone();
    let mut dataset = NetData::from_text_where(&text, &weights, |t| t == game_type)
        .with_context(|| format!("bad data file {}", data.display()))?;
    let held_out = dataset.split_off(holdout);
    eprintln!(
        "loaded {} positions of {game_type} ({} held out) in {:.1} s",
        dataset.len() + held_out.len(),
        held_out.len(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let result = train(&dataset, Some(&held_out), options, &mut |e| {
        let held = e
            .held_out
            .map_or(String::new(), |l| format!(", held out {l:.6}"));
        eprintln!("epoch {}: loss {:.6}{held}", e.epoch, e.loss);
    })
    .with_context(|| format!("cannot train on {}", data.display()))?;
    let held = result.held_out.map_or(String::new(), |(a, b)| {
        format!(", held out {a:.6} -> {b:.6}")
    });
    let summary = format!(
        "K = {:.6}, loss {:.6} -> {:.6}{held}, epoch {} of {} kept",
        result.k, result.loss.0, result.loss.1, result.best_epoch, options.epochs
    );
    eprintln!("{summary}, {:.1} s", t.elapsed().as_secs_f64());
    weights.net = Some(std::sync::Arc::new(result.net));
    sets.set_own(game_type, weights);
    let text = format!(
        "# A network of {} hidden units for {game_type} fitted by `waggle tune-net` to {} ({} positions, lambda {}, learning rate {}, seed {}): {summary}.\n{}",
        options.hidden,
        data.display(),
        dataset.len(),
        options.lambda,
        options.learning_rate,
        options.seed,
        sets.to_text()
    );
    fit.write_out(&text)?;
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
