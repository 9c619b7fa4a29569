//! `uhp-latency`: how long UHP engines take to answer quick commands, measured over pipes as
//! a host sees it (from sending the command to reading its `ok`).
//!
//! ```text
//! uhp-latency -e "off=waggle --option PonderDuringIdle=Disabled" \
//!             -e "multi=waggle --option PonderDuringIdle=MultiThreaded" --commands 1000
//! ```
//!
//! Every engine gets the same game and the same commands, each after the same pause (0 to
//! 4 ms, long enough for a pondering engine to be searching again): `validmoves`, a `play` of
//! the first valid move, `validmoves`, `undo`, `options`, `info`, round and round. Each reply
//! must end with `ok` and hold no `err`, and the game must end where it began (the GameString
//! after the last `undo` has the state, turn and number of moves it had after `newgame`). The
//! report gives the worst, 99th percentile and median reply time of each engine, and how much
//! later each engine's worst reply came than the first engine's. Engines are measured one after
//! the other.
//!
//! Exit status: 0 when every engine answered every command, 2 otherwise.

use anyhow::{Context, Result, bail};
use clap::Parser;
use std::process::ExitCode;
use std::thread;
use std::time::{Duration, Instant};
use waggle_tools::process::{EngineSpec, UhpProcess, echoed_game, failure_line, parse_engines};

/// A Base+MLP middle game with plenty for a pondering engine to think about.
const MIDDLE_GAME: &str = "Base+MLP;InProgress;;wS1;bG1 -wS1;wQ wS1/;bQ -bG1;wA1 wQ\\;bA1 \\bQ";

#[derive(Parser)]
#[command(
    name = "uhp-latency",
    about = "Measures how quickly UHP engines answer quick commands (worst case, 99th percentile, median)"
)]
struct Cli {
    /// An engine: `[NAME=]PROGRAM [ARGS...]` (quote it as one argument). Give one or more; the
    /// first is the baseline the others are compared with.
    #[arg(short, long = "engine", value_name = "CMD", required = true)]
    engines: Vec<String>,
    /// Commands sent to each engine.
    #[arg(long, default_value_t = 1000)]
    commands: usize,
    /// The game the commands are sent in (a GameString).
    #[arg(long, default_value = MIDDLE_GAME)]
    game: String,
    /// Milliseconds allowed for start-up and for each reply.
    #[arg(long, default_value_t = 10_000)]
    reply_timeout_ms: u64,
}

/// One engine's reply times, sorted.
struct Measured {
    name: String,
    times: Vec<Duration>,
}

impl Measured {
    /// The reply time at `fraction` (0 to 1) of the sorted times.
    fn at(&self, fraction: f64) -> Duration {
        let last = self.times.len() - 1;
        self.times[((last as f64) * fraction).round() as usize]
    }
}

fn main() -> ExitCode {
    match run(&Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("uhp-latency: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> Result<()> {
    if cli.commands == 0 {
        bail!("--commands must be at least 1");
    }
    let specs = parse_engines(&cli.engines)?;
    let timeout = Duration::from_millis(cli.reply_timeout_ms);
    let mut results = Vec::new();
    for spec in &specs {
        let mut times = measure(spec, &cli.game, cli.commands, timeout)
            .with_context(|| format!("engine {}", spec.name))?;
        times.sort();
        results.push(Measured {
            name: spec.name.clone(),
            times,
        });
    }
    let width = results.iter().map(|m| m.name.len()).max().unwrap_or(0);
    println!(
        "{:width$}  {:>8}  {:>10}  {:>10}  {:>10}  {:>12}",
        "engine", "commands", "worst", "99%", "median", "worst - 1st"
    );
    let baseline = results[0].at(1.0);
    for m in &results {
        let worst = m.at(1.0);
        let later = worst.as_secs_f64() - baseline.as_secs_f64();
        println!(
            "{:width$}  {:>8}  {:>8.2}ms  {:>8.2}ms  {:>8.2}ms  {:>+10.2}ms",
            m.name,
            m.times.len(),
            ms(worst),
            ms(m.at(0.99)),
            ms(m.at(0.5)),
            later * 1e3
        );
    }
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Starts the engine, loads `game`, sends `count` commands and returns each reply's time.
fn measure(
    spec: &EngineSpec,
    game: &str,
    count: usize,
    timeout: Duration,
) -> Result<Vec<Duration>> {
    let mut engine = UhpProcess::start(spec, timeout)?;
    let ask = |engine: &mut UhpProcess, command: &str| -> Result<Vec<String>> {
        let reply = engine
            .command(command, timeout)
            .with_context(|| format!("`{command}`\n{}", engine.last_output()))?;
        if let Some(line) = failure_line(&reply) {
            bail!("`{command}` was answered `{line}`");
        }
        Ok(reply)
    };
    let start = ask(&mut engine, &format!("newgame {game}"))?;
    if echoed_game(&start).is_none() {
        bail!("`newgame` was not answered with a GameString: {start:?}");
    }
    let moves = ask(&mut engine, "validmoves")?;
    let Some(first) = moves
        .last()
        .and_then(|l| l.split(';').next())
        .map(str::trim)
        .filter(|m| !m.is_empty() && *m != "pass")
    else {
        bail!("the game has no move to play: {moves:?}");
    };
    let commands = [
        "validmoves".to_string(),
        format!("play {first}"),
        "validmoves".to_string(),
        "undo".to_string(),
        "options".to_string(),
        "info".to_string(),
    ];
    let mut times = Vec::with_capacity(count);
    let mut played = false;
    let mut end = start.clone();
    for i in 0..count {
        // A pause that varies from 0 to 4 ms, the same for every engine.
        thread::sleep(Duration::from_micros((i as u64 * 1_237) % 4_000));
        let command = &commands[i % commands.len()];
        let sent = Instant::now();
        let reply = ask(&mut engine, command)?;
        times.push(sent.elapsed());
        if command.starts_with("play") {
            played = true;
        } else if command == "undo" {
            played = false;
            end = reply;
        }
    }
    if played {
        end = ask(&mut engine, "undo")?;
    }
    if echoed_game(&end) != echoed_game(&start) {
        bail!("the game did not end where it began: {start:?} then {end:?}");
    }
    engine.kill();
    Ok(times)
}
