//! Helpers for the UHP tests: driving the built `waggle` binary over real pipes, and checking
//! that a move is legal.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};
use waggle::notation::{parse_game_string, parse_move};

/// Generous bound for replies that should come at once (the machine is shared and may be busy).
pub const PROMPT: Duration = Duration::from_secs(20);

/// A running engine process: its input, and its output lines with their arrival times.
pub struct Engine {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    lines: Receiver<(String, Instant)>,
    /// When the process was spawned.
    pub started: Instant,
}

impl Engine {
    /// Starts the built binary with no arguments (the UHP engine).
    pub fn spawn() -> Engine {
        Engine::spawn_with(&[])
    }

    /// Starts the UHP engine with command-line arguments (such as `--option Name=Value`).
    pub fn spawn_with(args: &[&str]) -> Engine {
        let started = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_waggle"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot start the waggle binary");
        let stdout = child.stdout.take().expect("no stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send((line, Instant::now())).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
            started,
        }
    }

    /// The process id, for signals.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes raw bytes to the engine's input.
    pub fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        stdin.write_all(bytes).expect("cannot write to the engine");
        stdin.flush().expect("cannot flush the engine's input");
    }

    /// Sends one command line.
    pub fn send(&mut self, command: &str) {
        self.write(format!("{command}\n").as_bytes());
    }

    /// Closes the engine's input (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next output line and when it arrived; `None` on time-out or end of output.
    pub fn line(&self, timeout: Duration) -> Option<(String, Instant)> {
        self.lines.recv_timeout(timeout).ok()
    }

    /// The lines of one reply, up to and including `ok`, and when the `ok` arrived. Panics if
    /// the reply does not end within `timeout`.
    pub fn reply(&self, timeout: Duration) -> (Vec<String>, Instant) {
        let deadline = Instant::now() + timeout;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some((line, at)) = self.line(left) else {
                panic!("no complete reply within {timeout:?}; got {lines:?}");
            };
            let done = line == "ok";
            lines.push(line);
            if done {
                return (lines, at);
            }
        }
    }

    /// Sends a command and returns its reply lines (without the final `ok`).
    pub fn ask(&mut self, command: &str) -> Vec<String> {
        self.send(command);
        let (mut lines, _) = self.reply(PROMPT);
        lines.pop();
        lines
    }

    /// Sends SIGINT to the engine.
    pub fn interrupt(&self) {
        let status = Command::new("kill")
            .args(["-INT", &self.pid().to_string()])
            .status()
            .expect("cannot run kill");
        assert!(status.success(), "kill -INT failed");
    }

    /// Waits up to `timeout` for the process to end; `None` if it is still running (then it is
    /// killed so that no test leaves a process behind).
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<(ExitStatus, Instant)> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait failed") {
                return Some((status, Instant::now()));
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return None;
            }
            thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Whether `move_text` names a legal move in the game of `game_text` (moves are compared as
/// piece and destination, never as strings).
pub fn is_legal(game_text: &str, move_text: &str) -> bool {
    let Ok(game) = parse_game_string(game_text, true) else {
        panic!("bad GameString {game_text}");
    };
    match parse_move(&game, move_text) {
        Ok(m) => game.legal_moves().contains(&m),
        Err(_) => false,
    }
}
