//! Driving a UHP engine as a child process: start it, send command lines, read replies up to
//! their `ok` with a deadline, and keep its last output for failure reports.

use std::collections::VecDeque;
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Lines of standard output and standard error kept for failure reports.
const TAIL_LINES: usize = 12;

/// How to start an engine: a display name, a program and its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Name shown in tables and saved games.
    pub name: String,
    /// The program to run.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
}

/// Why an engine command line could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad engine command line: {}", self.0)
    }
}

impl std::error::Error for SpecError {}

impl EngineSpec {
    /// Parses `[NAME=]PROGRAM [ARGS...]`. Words are split on white space; `'...'` and `"..."`
    /// quote, and a backslash outside single quotes escapes the next character. A first word
    /// of the form `NAME=...` (a name without `/`) names the engine; otherwise the name is
    /// the program's file name.
    pub fn parse(text: &str) -> Result<EngineSpec, SpecError> {
        let mut words = split_words(text)?;
        if words.is_empty() {
            return Err(SpecError("empty".into()));
        }
        let mut name = None;
        if let Some((n, rest)) = words[0].split_once('=')
            && !n.is_empty()
            && !n.contains('/')
            && !n.contains('\\')
        {
            name = Some(n.to_string());
            let rest = rest.to_string();
            if rest.is_empty() {
                words.remove(0);
            } else {
                words[0] = rest;
            }
        }
        if words.is_empty() {
            return Err(SpecError(format!("'{text}' names no program")));
        }
        let program = words.remove(0);
        let name = name.unwrap_or_else(|| {
            std::path::Path::new(&program)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| program.clone())
        });
        Ok(EngineSpec {
            name,
            program,
            args: words,
        })
    }

    /// The command line as it would be typed (for reports).
    pub fn command_line(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|w| {
                if w.is_empty() || w.contains(char::is_whitespace) {
                    format!("'{w}'")
                } else {
                    w.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Parses engine command lines (see [`EngineSpec::parse`]) and makes their names distinct
/// ([`dedup_names`]).
pub fn parse_engines(texts: &[String]) -> Result<Vec<EngineSpec>, SpecError> {
    let mut specs = texts
        .iter()
        .map(|t| EngineSpec::parse(t))
        .collect::<Result<Vec<_>, _>>()?;
    dedup_names(&mut specs);
    Ok(specs)
}

/// Makes the names of `specs` distinct by appending `-2`, `-3`... to repeats.
pub fn dedup_names(specs: &mut [EngineSpec]) {
    let mut seen: Vec<String> = Vec::new();
    for spec in specs.iter_mut() {
        let base = spec.name.clone();
        let mut k = 1;
        while seen.contains(&spec.name) {
            k += 1;
            spec.name = format!("{base}-{k}");
        }
        seen.push(spec.name.clone());
    }
}

fn split_words(text: &str) -> Result<Vec<String>, SpecError> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(q) => current.push(q),
                        None => return Err(SpecError(format!("unclosed quote in '{text}'"))),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e) => current.push(e),
                            None => return Err(SpecError(format!("dangling \\ in '{text}'"))),
                        },
                        Some(q) => current.push(q),
                        None => return Err(SpecError(format!("unclosed quote in '{text}'"))),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(e) => current.push(e),
                    None => return Err(SpecError(format!("dangling \\ in '{text}'"))),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    Ok(words)
}

/// What went wrong talking to an engine.
#[derive(Debug)]
pub enum UhpError {
    /// The program could not be started.
    Spawn(std::io::Error),
    /// The engine closed its output: it exited or crashed (with this status, when known).
    Exited(Option<ExitStatus>),
    /// No complete reply within the allowed time.
    Timeout(Duration),
    /// A command could not be written (the engine stopped reading).
    Write(std::io::Error),
}

impl fmt::Display for UhpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UhpError::Spawn(e) => write!(f, "could not start: {e}"),
            UhpError::Exited(Some(s)) => write!(f, "exited ({s})"),
            UhpError::Exited(None) => write!(f, "closed its output"),
            UhpError::Timeout(d) => write!(f, "no reply within {:.3} s", d.as_secs_f64()),
            UhpError::Write(e) => write!(f, "stopped reading its input: {e}"),
        }
    }
}

impl std::error::Error for UhpError {}

/// A running UHP engine.
pub struct UhpProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stdout_tail: VecDeque<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    last_command: String,
    info: Vec<String>,
}

impl UhpProcess {
    /// Starts the engine and waits up to `timeout` for its unprompted start-up reply (the
    /// `info` lines and `ok`).
    pub fn start(spec: &EngineSpec, timeout: Duration) -> Result<UhpProcess, UhpError> {
        let mut child = Command::new(&spec.program)
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(UhpError::Spawn)?;
        let (tx, lines) = channel();
        if let Some(out) = child.stdout.take() {
            spawn_line_reader(out, LineSink::Channel(tx));
        }
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(err) = child.stderr.take() {
            spawn_line_reader(err, LineSink::Tail(Arc::clone(&stderr_tail)));
        }
        let stdin = child.stdin.take();
        let mut process = UhpProcess {
            child,
            stdin,
            lines,
            stdout_tail: VecDeque::new(),
            stderr_tail,
            last_command: "(start-up)".into(),
            info: Vec::new(),
        };
        process.info = process.read_reply(deadline_after(Instant::now(), timeout))?;
        Ok(process)
    }

    /// The start-up reply, without its `ok`.
    pub fn info(&self) -> &[String] {
        &self.info
    }

    /// Writes one command line.
    pub fn send(&mut self, command: &str) -> Result<(), UhpError> {
        self.last_command = command.to_string();
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(UhpError::Write(std::io::Error::from(
                std::io::ErrorKind::BrokenPipe,
            )));
        };
        stdin
            .write_all(command.as_bytes())
            .and_then(|_| stdin.write_all(b"\n"))
            .and_then(|_| stdin.flush())
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    UhpError::Exited(self.child.try_wait().ok().flatten())
                } else {
                    UhpError::Write(e)
                }
            })
    }

    /// Reads reply lines until a line that is exactly `ok` (which is not returned), or until
    /// `deadline`.
    pub fn read_reply(&mut self, deadline: Instant) -> Result<Vec<String>, UhpError> {
        let start = Instant::now();
        let mut reply = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if self.stdout_tail.len() == TAIL_LINES {
                        self.stdout_tail.pop_front();
                    }
                    self.stdout_tail.push_back(line.clone());
                    if line.trim() == "ok" {
                        return Ok(reply);
                    }
                    reply.push(line);
                }
                Err(RecvTimeoutError::Timeout) => return Err(UhpError::Timeout(start.elapsed())),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(UhpError::Exited(self.exit_status()));
                }
            }
        }
    }

    /// Sends `command` and reads its reply, allowing `timeout` for it.
    pub fn command(&mut self, command: &str, timeout: Duration) -> Result<Vec<String>, UhpError> {
        self.send(command)?;
        self.read_reply(deadline_after(Instant::now(), timeout))
    }

    /// The last command sent, the last lines the engine wrote to standard output and standard
    /// error, for a failure report (several lines, each indented).
    pub fn last_output(&self) -> String {
        let mut s = format!("    last command: {}\n", self.last_command);
        s.push_str("    last stdout lines:\n");
        for line in &self.stdout_tail {
            s.push_str("      | ");
            s.push_str(line);
            s.push('\n');
        }
        let err = match self.stderr_tail.lock() {
            Ok(t) => t.iter().cloned().collect::<Vec<_>>(),
            Err(_) => Vec::new(),
        };
        if !err.is_empty() {
            s.push_str("    last stderr lines:\n");
            for line in err {
                s.push_str("      ! ");
                s.push_str(&line);
                s.push('\n');
            }
        }
        s
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the process at once.
    pub fn kill(mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The exit status, waiting briefly for a process that has closed its output to end.
    fn exit_status(&mut self) -> Option<ExitStatus> {
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        None
    }
}

impl Drop for UhpProcess {
    /// Asks the engine to exit, gives it a moment, then kills it.
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"exit\n");
            let _ = stdin.flush();
        }
        for _ in 0..40 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

enum LineSink {
    Channel(Sender<String>),
    Tail(Arc<Mutex<VecDeque<String>>>),
}

/// Reads `source` line by line on its own thread (lossy UTF-8, line ends removed) into `sink`,
/// until end of file or until the receiving side is gone.
fn spawn_line_reader(source: impl Read + Send + 'static, sink: LineSink) {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(source);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let line = String::from_utf8_lossy(&buf)
                .trim_end_matches(['\n', '\r'])
                .to_string();
            match &sink {
                LineSink::Channel(tx) => {
                    if tx.send(line).is_err() {
                        return;
                    }
                }
                LineSink::Tail(tail) => {
                    if let Ok(mut t) = tail.lock() {
                        if t.len() == TAIL_LINES {
                            t.pop_front();
                        }
                        t.push_back(line);
                    }
                }
            }
        }
    });
}

/// `start + wait`, or a time far in the future when that cannot be represented.
pub fn deadline_after(start: Instant, wait: Duration) -> Instant {
    start
        .checked_add(wait)
        .or_else(|| start.checked_add(Duration::from_secs(u64::from(u32::MAX))))
        .unwrap_or(start)
}

/// Formats a duration as UHP's `hh:mm:ss`, with milliseconds (`hh:mm:ss.mmm`) when it has
/// any; at least one millisecond.
pub fn uhp_time(d: Duration) -> String {
    let ms = d.as_millis().max(1);
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, ms) = (rest / 1000, rest % 1000);
    if ms == 0 {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}.{ms:03}")
    }
}

/// The state, turn and number of moves of the GameString that a reply ends with (its last
/// non-empty line, as `newgame`, `play`, `pass` and `undo` answer), or `None` when that line
/// has fewer than three fields.
pub fn echoed_game(reply: &[String]) -> Option<(&str, &str, usize)> {
    let line = reply
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let fields: Vec<&str> = line.split(';').map(str::trim).collect();
    if fields.len() < 3 {
        return None;
    }
    let moves = fields[3..].iter().filter(|f| !f.is_empty()).count();
    Some((fields[1], fields[2], moves))
}

/// The line of a reply that reports a failure (`err ...` or `invalidmove ...`), if any.
pub fn failure_line(reply: &[String]) -> Option<&str> {
    reply.iter().map(|l| l.trim()).find(|l| {
        let lower = l.to_ascii_lowercase();
        lower == "err"
            || lower.starts_with("err ")
            || lower == "invalidmove"
            || lower.starts_with("invalidmove ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs_parse_names_and_quotes() {
        let s = EngineSpec::parse("new=./target/release/waggle --hash 64").unwrap();
        assert_eq!(s.name, "new");
        assert_eq!(s.program, "./target/release/waggle");
        assert_eq!(s.args, vec!["--hash", "64"]);
        let s = EngineSpec::parse("  /usr/bin/engine 'a b' \"c \\\"d\\\"\" e\\ f ").unwrap();
        assert_eq!(s.name, "engine");
        assert_eq!(s.args, vec!["a b", "c \"d\"", "e f"]);
        let s = EngineSpec::parse("old= /opt/x").unwrap();
        assert_eq!((s.name.as_str(), s.program.as_str()), ("old", "/opt/x"));
        assert!(EngineSpec::parse("   ").is_err());
        assert!(EngineSpec::parse("x 'open").is_err());
        assert!(EngineSpec::parse("name=").is_err());
        assert_eq!(
            EngineSpec::parse("e 'a b' c").unwrap().command_line(),
            "e 'a b' c"
        );
    }

    #[test]
    fn duplicate_names_are_numbered() {
        let texts: Vec<String> = ["w", "w", "x", "w"].map(String::from).to_vec();
        let specs = parse_engines(&texts).unwrap();
        let names: Vec<_> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["w", "w-2", "x", "w-3"]);
        assert!(parse_engines(&["ok".into(), "x 'open".into()]).is_err());
    }

    #[test]
    fn echoed_games_give_state_turn_and_moves() {
        let reply = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        let played = reply(&["an extra line", "Base;InProgress;White[2];wS1;bS1 wS1-", ""]);
        assert_eq!(echoed_game(&played), Some(("InProgress", "White[2]", 2)));
        let fresh = reply(&["Base+MLP;NotStarted;White[1]"]);
        assert_eq!(echoed_game(&fresh), Some(("NotStarted", "White[1]", 0)));
        assert_eq!(echoed_game(&reply(&["wS1;bS1 wS1-"])), None);
        assert_eq!(echoed_game(&[]), None);
    }

    #[test]
    fn times_format_as_uhp_wants() {
        assert_eq!(uhp_time(Duration::from_secs(5)), "00:00:05");
        assert_eq!(uhp_time(Duration::from_millis(1500)), "00:00:01.500");
        assert_eq!(uhp_time(Duration::from_millis(3_723_004)), "01:02:03.004");
        assert_eq!(uhp_time(Duration::ZERO), "00:00:00.001");
    }

    #[test]
    fn failure_lines_are_found() {
        let r = vec!["Base;InProgress;White[1]".to_string()];
        assert_eq!(failure_line(&r), None);
        let r = vec!["invalidmove nope".to_string()];
        assert_eq!(failure_line(&r), Some("invalidmove nope"));
        let r = vec!["ERR bad".to_string()];
        assert_eq!(failure_line(&r), Some("ERR bad"));
        let r = vec!["errata".to_string()];
        assert_eq!(failure_line(&r), None);
    }
}
