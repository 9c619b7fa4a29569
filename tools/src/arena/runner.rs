//! Running a match: worker threads play games concurrently (each owning the engine processes
//! of the game it plays), the calling thread records results, prints progress and watches the
//! SPRT.
//!
//! Output directory:
//! - `results.tsv`: one line per game (see [`super::record`]); `arena merge` reads these;
//! - `games.txt`: one GameString per game;
//! - `pgn/game-NNNNNN.pgn`: every game as Mzinga-style PGN (see [`crate::pgn`]);
//! - `failures.log`: every engine failure with the engine's last command and output;
//! - `report.txt`: the final report;
//! - `report.html`: the report with charts (see [`super::html`]), refreshed during the match.

use super::game::{GameSettings, Limit, PlayedGame, Seat, TimeFormat, play_game};
use super::html;
use super::progress::Progress;
use super::record::{GameRecord, header, settings_line};
use super::report::{Sprt, Tally};
use super::{GameSpec, Mode, Shard, schedule};
use crate::error::ToolError;
use crate::openings::Opening;
use crate::pgn::{PgnHeader, today, write_pgn};
use crate::process::{EngineSpec, UhpProcess, failure_line};
use crate::stats::SprtDecision;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};
use waggle::notation::game_string;

/// A match to play.
pub struct ArenaConfig {
    /// The engines (at least two, with distinct names).
    pub engines: Vec<EngineSpec>,
    /// Gauntlet or round robin.
    pub mode: Mode,
    /// The openings; each is played twice per pairing, colours swapped.
    pub openings: Vec<Opening>,
    /// How the openings were made, for the report.
    pub openings_note: String,
    /// Limits and time-outs.
    pub settings: GameSettings,
    /// Games played at once.
    pub concurrency: usize,
    /// Only this part of the schedule, if set.
    pub shard: Option<Shard>,
    /// Stop early when this test decides (two engines only).
    pub sprt: Option<Sprt>,
    /// Where to write the files.
    pub out_dir: PathBuf,
    /// Stop cleanly (abandoning the games in progress) as soon as this file exists: how a
    /// driver running many shards stops them all once the merged SPRT has decided.
    pub stop_file: Option<PathBuf>,
    /// Keep the games already in `results.tsv` of the output directory and play only the
    /// rest of the schedule (for a shard that died).
    pub resume: bool,
    /// Show progress as a live line redrawn in place (for a terminal) rather than one line
    /// per game.
    pub live_progress: bool,
}

/// What a match produced.
pub struct ArenaOutcome {
    /// The tallied results.
    pub tally: Tally,
    /// The final report (also written to `report.txt`).
    pub report: String,
    /// Games in this run's part of the schedule.
    pub scheduled: usize,
    /// The SPRT's decision, when one was run.
    pub decision: Option<SprtDecision>,
}

struct Outputs {
    dir: PathBuf,
    results: File,
    games: File,
    failures: File,
    date: String,
}

fn create(path: &Path) -> Result<File, ToolError> {
    File::create(path).map_err(|e| ToolError::io(path, e))
}

impl Outputs {
    /// Creates the files, or with `append` (resuming) adds to them.
    fn open(
        dir: &Path,
        mode: Mode,
        names: &[String],
        settings: &str,
        append: bool,
    ) -> Result<Outputs, ToolError> {
        let pgn = dir.join("pgn");
        std::fs::create_dir_all(&pgn).map_err(|e| ToolError::io(&pgn, e))?;
        let open = |name: &str| {
            let path = dir.join(name);
            if append {
                std::fs::OpenOptions::new()
                    .append(true)
                    .create(true)
                    .open(&path)
                    .map_err(|e| ToolError::io(&path, e))
            } else {
                create(&path)
            }
        };
        let mut results = open("results.tsv")?;
        if !append {
            results
                .write_all((header(mode, names) + &settings_line(settings)).as_bytes())
                .map_err(|e| ToolError::io(dir.join("results.tsv"), e))?;
        }
        Ok(Outputs {
            dir: dir.to_path_buf(),
            results,
            games: open("games.txt")?,
            failures: open("failures.log")?,
            date: today(),
        })
    }

    fn write(
        &mut self,
        record: &GameRecord,
        played: &PlayedGame,
        config: &ArenaConfig,
    ) -> Result<(), ToolError> {
        let io = |name: &str| {
            let path = self.dir.join(name);
            move |e| ToolError::io(path, e)
        };
        // One write per line, so that a reader sees whole lines (or a last partial one, which
        // it ignores).
        self.results
            .write_all(format!("{}\n", record.to_line()).as_bytes())
            .map_err(io("results.tsv"))?;
        self.results.flush().map_err(io("results.tsv"))?;
        writeln!(self.games, "{}", record.game_string).map_err(io("games.txt"))?;
        let opening_plies = config.openings[record.opening].game.ply();
        let pgn = write_pgn(
            &played.game,
            &PgnHeader {
                event: "waggle arena".into(),
                site: String::new(),
                date: self.date.clone(),
                round: (record.id + 1).to_string(),
                white: record.white.clone(),
                black: record.black.clone(),
                result: record.result,
                extra: vec![
                    ("Termination".into(), record.reason.clone()),
                    ("OpeningPlies".into(), opening_plies.to_string()),
                    ("TimeControl".into(), config.settings.limit.describe()),
                ],
            },
        );
        let name = format!("pgn/game-{:06}.pgn", record.id);
        std::fs::write(self.dir.join(&name), pgn).map_err(io(&name))?;
        if let Some(f) = &played.failure {
            let loser = match f.side {
                waggle::core::Color::White => &record.white,
                waggle::core::Color::Black => &record.black,
            };
            let restart = if f.kind == super::game::FailureKind::FlagFall {
                "the process is kept"
            } else {
                "the process was killed; a fresh one starts for its next game"
            };
            write!(
                self.failures,
                "game {} (pair {}, opening {}), {} vs {}: {} lost: {}\n  {}\n  GameString: {}\n{}",
                record.id,
                record.pair,
                record.opening,
                record.white,
                record.black,
                loser,
                record.reason,
                restart,
                record.game_string,
                f.last_output
            )
            .and_then(|_| self.failures.flush())
            .map_err(io("failures.log"))?;
        }
        Ok(())
    }
}

/// What the start-up check learnt about an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCheck {
    /// Its `id` line.
    pub id: String,
    /// What it accepts in `bestmove time`.
    pub time_format: TimeFormat,
}

/// The time sent by the probe: a fraction of a second.
const PROBE_TIME: &str = "00:00:00.100";

/// Finds out whether the engine `p` accepts fractions of a second in `bestmove time`: on a
/// fresh `newgame Base` it is asked `bestmove time 00:00:00.100`; a move means fractions, an
/// `err`/`invalidmove` means whole seconds, confirmed with `bestmove time 00:00:01`. The
/// process is thrown away afterwards, so the probe's game disturbs nothing.
fn probe_time_format(
    p: &mut UhpProcess,
    spec: &EngineSpec,
    timeout: Duration,
) -> Result<TimeFormat, ToolError> {
    let engine = |error| ToolError::Engine {
        name: spec.name.clone(),
        error,
    };
    let protocol = |detail: String| ToolError::Protocol {
        name: spec.name.clone(),
        detail,
    };
    let reply = p.command("newgame Base", timeout).map_err(engine)?;
    if let Some(line) = failure_line(&reply) {
        return Err(protocol(format!("'newgame Base' answered '{line}'")));
    }
    let ask = format!("bestmove time {PROBE_TIME}");
    let reply = p
        .command(&ask, timeout.saturating_add(Duration::from_millis(100)))
        .map_err(engine)?;
    if failure_line(&reply).is_none() {
        return Ok(TimeFormat::Fractions);
    }
    let reply = p
        .command(
            "bestmove time 00:00:01",
            timeout.saturating_add(Duration::from_secs(1)),
        )
        .map_err(engine)?;
    match failure_line(&reply) {
        None => Ok(TimeFormat::WholeSeconds),
        Some(line) => Err(protocol(format!(
            "refuses both '{ask}' and 'bestmove time 00:00:01' (answered '{line}')"
        ))),
    }
}

/// Starts every engine once and checks that it answers its start-up `info`, so that a wrong
/// command line stops the match at once; with a time limit, also finds out whether it takes
/// fractions of a second in `bestmove time` (see [`probe_time_format`]).
pub fn preflight(config: &ArenaConfig) -> Result<Vec<EngineCheck>, ToolError> {
    let timed = !matches!(config.settings.limit, Limit::Depth(_));
    config
        .engines
        .iter()
        .map(|spec| {
            let mut p =
                UhpProcess::start(spec, config.settings.reply_timeout).map_err(|error| {
                    ToolError::Engine {
                        name: spec.name.clone(),
                        error,
                    }
                })?;
            let id = p
                .info()
                .iter()
                .find(|l| l.trim_start().starts_with("id "))
                .cloned()
                .ok_or_else(|| ToolError::Protocol {
                    name: spec.name.clone(),
                    detail: format!("no 'id' line in its start-up reply {:?}", p.info()),
                })?;
            let time_format = if timed {
                probe_time_format(&mut p, spec, config.settings.reply_timeout)?
            } else {
                TimeFormat::Fractions
            };
            Ok(EngineCheck { id, time_format })
        })
        .collect()
}

/// Plays the match (or this shard of it) and writes every output file; `log` receives a
/// line per finished game (or, with [`ArenaConfig::live_progress`], the live line goes to
/// standard error instead).
pub fn run_arena(config: &ArenaConfig, log: &mut dyn Write) -> Result<ArenaOutcome, ToolError> {
    let n = config.engines.len();
    if n < 2 {
        return Err(ToolError::Config(
            "a match needs at least two engines".into(),
        ));
    }
    if config.sprt.is_some() && n != 2 {
        return Err(ToolError::Config("SPRT needs exactly two engines".into()));
    }
    if config.openings.is_empty() {
        return Err(ToolError::Config("no openings".into()));
    }
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(ToolError::Config(format!("two engines are named '{name}'")));
        }
    }
    let checks = preflight(config)?;
    for (spec, check) in config.engines.iter().zip(&checks) {
        let _ = writeln!(
            log,
            "{}: {} ({}){}",
            spec.name,
            check.id,
            spec.command_line(),
            whole_seconds_note(check)
        );
    }
    let games: Vec<GameSpec> = schedule(n, config.mode, config.openings.len())
        .into_iter()
        .filter(|g| config.shard.is_none_or(|s| s.contains(g)))
        .collect();
    std::fs::create_dir_all(&config.out_dir).map_err(|e| ToolError::io(&config.out_dir, e))?;
    let settings = match_settings(config);
    let previous = if config.resume {
        resumed_records(config, &names, &settings, &games)?
    } else {
        None
    };
    // A report marks a finished run: drop one left by an earlier run in this directory.
    for name in ["report.txt", "report.html"] {
        let _ = std::fs::remove_file(config.out_dir.join(name));
    }
    let mut outputs = Outputs::open(
        &config.out_dir,
        config.mode,
        &names,
        &settings,
        previous.is_some(),
    )?;
    let previous = previous.unwrap_or_default();
    let mut tally = Tally::new(names, config.mode);
    for r in &previous {
        tally.add(r);
    }
    let done: std::collections::HashSet<usize> = previous.iter().map(|r| r.id).collect();
    let to_play: Vec<GameSpec> = games
        .iter()
        .filter(|g| !done.contains(&g.id))
        .copied()
        .collect();
    let mut progress = if config.live_progress {
        Progress::live(games.len())
    } else {
        Progress::Plain(log)
    };
    let started = Instant::now();
    let mut counted: Vec<GameRecord> = previous;
    if !counted.is_empty() {
        progress.println(&format!(
            "Resuming: {} of {} games already in results.tsv",
            counted.len(),
            games.len()
        ));
    }
    let stop_file_seen = || config.stop_file.as_ref().is_some_and(|p| p.exists());
    let mut stopped_by_file = stop_file_seen();
    let mut html_written = Instant::now();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(stopped_by_file);
    let mut decision = None;
    let mut write_error = None;
    let workers = config.concurrency.clamp(1, to_play.len().max(1));
    std::thread::scope(|scope| {
        let (tx, rx) = channel::<(GameSpec, PlayedGame)>();
        for _ in 0..workers {
            let tx = tx.clone();
            let (games, next, stop, checks) = (&to_play, &next, &stop, &checks);
            scope.spawn(move || {
                let mut procs: Vec<Option<UhpProcess>> = (0..n).map(|_| None).collect();
                loop {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let Some(&spec) = games.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        return;
                    };
                    // Keep only the processes this game needs.
                    for (i, slot) in procs.iter_mut().enumerate() {
                        if i != spec.white && i != spec.black {
                            *slot = None;
                        }
                    }
                    let mut white = procs[spec.white].take();
                    let mut black = procs[spec.black].take();
                    let mut seats = [
                        Seat {
                            spec: &config.engines[spec.white],
                            time_format: checks[spec.white].time_format,
                            process: &mut white,
                        },
                        Seat {
                            spec: &config.engines[spec.black],
                            time_format: checks[spec.black].time_format,
                            process: &mut black,
                        },
                    ];
                    let played = play_game(
                        &config.openings[spec.opening],
                        &mut seats,
                        &config.settings,
                        stop,
                    );
                    procs[spec.white] = white;
                    procs[spec.black] = black;
                    match played {
                        Some(p) => {
                            if tx.send((spec, p)).is_err() {
                                return;
                            }
                        }
                        None => return,
                    }
                }
            });
        }
        drop(tx);
        let mut stop_file_checked = Instant::now();
        loop {
            let received = rx.recv_timeout(STOP_FILE_POLL);
            if !stopped_by_file && stop_file_checked.elapsed() >= STOP_FILE_POLL {
                stop_file_checked = Instant::now();
                if stop_file_seen() {
                    stopped_by_file = true;
                    stop.store(true, Ordering::Relaxed);
                    progress.println("Stop file found: stopping");
                }
            }
            let (spec, played) = match received {
                Ok(x) => x,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let record = GameRecord {
                id: spec.id,
                pair: spec.pair,
                opening: spec.opening,
                white: config.engines[spec.white].name.clone(),
                black: config.engines[spec.black].name.clone(),
                result: played.result,
                plies: played.game.ply(),
                termination: played.termination.to_string(),
                reason: played.reason.clone(),
                game_string: game_string(&played.game),
            };
            if let Err(e) = outputs.write(&record, &played, config) {
                write_error = Some(e);
                stop.store(true, Ordering::Relaxed);
                break;
            }
            let key = tally.add(&record);
            counted.push(record);
            if html_written.elapsed() >= HTML_REFRESH {
                html_written = Instant::now();
                let text = tally.report(config.sprt.as_ref());
                let _ = write_html(config, &tally.engines, &counted, &text);
            }
            progress.game(
                &tally,
                key,
                (games.len(), done.len()),
                config.sprt.as_ref(),
                started,
            );
            if let Some(sprt) = &config.sprt {
                let d = tally.sprt_decision(sprt);
                if d != SprtDecision::Continue && decision.is_none() {
                    decision = Some(d);
                    stop.store(true, Ordering::Relaxed);
                    progress.println("SPRT bound crossed: stopping");
                }
            }
        }
    });
    progress.finish();
    if let Some(e) = write_error {
        return Err(e);
    }
    let mut report = String::new();
    report.push_str("Engines:\n");
    for (spec, check) in config.engines.iter().zip(&checks) {
        report.push_str(&format!(
            "  {}: {} [{}]{}\n",
            spec.name,
            spec.command_line(),
            check.id,
            whole_seconds_note(check)
        ));
    }
    report.push_str(&format!("Limit: {}\n", match_settings(config)));
    if let Some(s) = config.shard {
        report.push_str(&format!(
            "Shard {s}: {} games of the schedule\n",
            games.len()
        ));
    }
    if !done.is_empty() {
        report.push_str(&format!(
            "Resumed: {} games were already in results.tsv\n",
            done.len()
        ));
    }
    if stopped_by_file && let Some(p) = &config.stop_file {
        report.push_str(&format!(
            "Stopped: the stop file {} appeared\n",
            p.display()
        ));
    }
    if tally.games < games.len() {
        report.push_str(&format!(
            "Played {} of {} scheduled games\n",
            tally.games,
            games.len()
        ));
    }
    report.push_str(&tally.report(config.sprt.as_ref()));
    let path = config.out_dir.join("report.txt");
    std::fs::write(&path, &report).map_err(|e| ToolError::io(&path, e))?;
    write_html(config, &tally.engines, &counted, &report)?;
    Ok(ArenaOutcome {
        tally,
        report,
        scheduled: games.len(),
        decision: config
            .sprt
            .map(|_| decision.unwrap_or(SprtDecision::Continue)),
    })
}

/// The settings that make games of one match comparable: limit, openings, move limit and
/// repetition rule (written in the result file's header).
fn match_settings(config: &ArenaConfig) -> String {
    format!(
        "{}; openings: {}; max {} moves each; repetition draw: {}",
        config.settings.limit.describe(),
        config.openings_note,
        config.settings.max_moves,
        if config.settings.repetition_draw {
            "on"
        } else {
            "off"
        }
    )
}

/// How often the stop file is looked for while games run.
const STOP_FILE_POLL: Duration = Duration::from_millis(200);

/// The games already in `results.tsv` of the output directory, for `--resume`: `None` when
/// there is no such file. A last line cut short (the process died while writing it) is
/// dropped from the file; a file of another match is refused.
fn resumed_records(
    config: &ArenaConfig,
    names: &[String],
    settings: &str,
    games: &[GameSpec],
) -> Result<Option<Vec<GameRecord>>, ToolError> {
    let path = config.out_dir.join("results.tsv");
    let Ok(mut text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    if !text.ends_with('\n') {
        text.truncate(text.rfind('\n').map_or(0, |i| i + 1));
        std::fs::write(&path, &text).map_err(|e| ToolError::io(&path, e))?;
    }
    if text.is_empty() {
        return Ok(None);
    }
    let file = super::record::parse_results(&text, &path.display().to_string())?;
    if file.engines != names || file.mode != Some(config.mode) {
        return Err(ToolError::Config(format!(
            "{}: a result file of another match ({} {}), cannot resume",
            path.display(),
            file.mode.map_or("?", Mode::name),
            file.engines.join(",")
        )));
    }
    if let Some(theirs) = &file.settings
        && *theirs != super::record::sanitize(settings)
    {
        return Err(ToolError::Config(format!(
            "{}: played with other settings ({theirs}), cannot resume with ({settings})",
            path.display()
        )));
    }
    let mut seen = std::collections::HashSet::new();
    for r in &file.records {
        let Some(g) = games.iter().find(|g| g.id == r.id) else {
            return Err(ToolError::Config(format!(
                "{}: game {} is not in this part of the schedule, cannot resume",
                path.display(),
                r.id
            )));
        };
        if !seen.insert(r.id) || r.pair != g.pair || r.opening != g.opening {
            return Err(ToolError::Config(format!(
                "{}: game {} does not fit the schedule, cannot resume",
                path.display(),
                r.id
            )));
        }
    }
    Ok(Some(file.records))
}

/// How often `report.html` is rewritten during a match.
const HTML_REFRESH: Duration = Duration::from_secs(10);

/// Writes `report.html` of a match.
fn write_html(
    config: &ArenaConfig,
    engines: &[String],
    records: &[GameRecord],
    text: &str,
) -> Result<(), ToolError> {
    let title = format!("waggle arena: {}", engines.join(" vs "));
    let page = html::render(&html::HtmlReport {
        title: &title,
        engines,
        mode: config.mode,
        records,
        sprt: config.sprt.as_ref(),
        text,
    });
    let path = config.out_dir.join("report.html");
    std::fs::write(&path, page).map_err(|e| ToolError::io(&path, e))
}

/// The report's note on an engine that got whole seconds.
fn whole_seconds_note(check: &EngineCheck) -> &'static str {
    match check.time_format {
        TimeFormat::Fractions => "",
        TimeFormat::WholeSeconds => {
            "; whole seconds: it refuses fractions in 'bestmove time', so it is asked for \
             whole seconds (rounded down, at least 1 s) and charged the wall time it uses"
        }
    }
}

/// What `arena merge` read: the tally, the text report, and the games counted (by game
/// number), for [`super::html`].
pub struct Merged {
    /// The tallied results.
    pub tally: Tally,
    /// The report text.
    pub report: String,
    /// The games counted, ordered by game number.
    pub records: Vec<GameRecord>,
    /// The mode of the files.
    pub mode: Mode,
    /// The match settings named by the files, each once (more than one when files of
    /// different matches were merged).
    pub settings: Vec<String>,
}

/// Reads result files and builds the combined report (`arena merge`). A game number seen
/// twice is counted once (the first time) and reported.
pub fn merge_results(paths: &[PathBuf], sprt: Option<&Sprt>) -> Result<Merged, ToolError> {
    let mut engines: Option<(Vec<String>, Mode)> = None;
    let mut by_id = std::collections::BTreeMap::new();
    let mut duplicates = 0;
    let mut settings: Vec<String> = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|e| ToolError::io(path, e))?;
        let file = super::record::parse_results(&text, &path.display().to_string())?;
        if let Some(s) = &file.settings
            && !settings.contains(s)
        {
            settings.push(s.clone());
        }
        engines.get_or_insert_with(|| (file.engines.clone(), file.mode.unwrap_or(Mode::Gauntlet)));
        for r in file.records {
            match by_id.entry(r.id) {
                std::collections::btree_map::Entry::Occupied(_) => duplicates += 1,
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(r);
                }
            }
        }
    }
    let (engines, mode) =
        engines.ok_or_else(|| ToolError::Config("no result files given".into()))?;
    let mut tally = Tally::new(engines, mode);
    let records: Vec<GameRecord> = by_id.into_values().collect();
    for r in &records {
        tally.add(r);
    }
    let mut report = format!("Merged {} result files\n", paths.len());
    match settings.as_slice() {
        [] => {}
        [one] => report.push_str(&format!("Limit: {one}\n")),
        many => {
            report.push_str("WARNING: the files come from matches with different settings:\n");
            for s in many {
                report.push_str(&format!("  {s}\n"));
            }
        }
    }
    if duplicates > 0 {
        report.push_str(&format!(
            "{duplicates} games appeared in more than one file and were counted once\n"
        ));
    }
    report.push_str(&tally.report(sprt));
    Ok(Merged {
        tally,
        report,
        records,
        mode,
        settings,
    })
}
