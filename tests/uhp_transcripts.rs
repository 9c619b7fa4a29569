//! Runs the UHP transcripts of `engine-tests/uhp/` against the built binary over real pipes.
//! The format is described in `engine-tests/README.md`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// One expected reply line.
#[derive(Debug)]
enum Expect {
    /// The line, with `<any>` standing for any text (possibly empty).
    Line(String),
    /// Any number of lines, none of them `ok`.
    AnyLines,
    /// A `;`-separated list (a `validmoves` reply) whose items may come in any order: UHP
    /// does not fix the order of the moves.
    Unordered(Vec<String>),
}

/// The items of a `;`-separated list, sorted.
fn sorted_items(line: &str) -> Vec<String> {
    let mut items: Vec<String> = line.split(';').map(str::to_string).collect();
    items.sort();
    items
}

/// A command of the transcript and the reply it must get.
#[derive(Debug)]
struct Block {
    /// Line in the transcript file.
    line_no: usize,
    /// The command as written (for messages).
    command: String,
    expected: Vec<Expect>,
}

/// Turns `\xHH` escapes into bytes; every other character is sent as written.
fn decode_command(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && bytes.get(i + 1) == Some(&b'x')
            && let Some(hex) = text.get(i + 2..i + 4)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 4;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// The input to send and the blocks to check.
fn parse_transcript(text: &str) -> (Vec<u8>, Vec<Block>) {
    let version = env!("CARGO_PKG_VERSION");
    let mut input = Vec::new();
    let mut blocks = vec![Block {
        line_no: 0,
        command: "<start-up>".to_string(),
        expected: Vec::new(),
    }];
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(command) = line.strip_prefix('>') {
            let command = command.strip_prefix(' ').unwrap_or(command);
            input.extend(decode_command(command));
            input.push(b'\n');
            blocks.push(Block {
                line_no: i + 1,
                command: command.to_string(),
                expected: Vec::new(),
            });
        } else {
            let block = blocks.last_mut().expect("there is always a block");
            block.expected.push(if line == "<any-lines>" {
                Expect::AnyLines
            } else if let Some(list) = line.strip_prefix("<unordered> ") {
                Expect::Unordered(sorted_items(list))
            } else {
                Expect::Line(line.replace("<version>", version))
            });
        }
    }
    (input, blocks)
}

/// Whether `actual` matches `pattern`, where `<any>` matches any text (but a wildcard never
/// matches the `ok` that ends a reply).
fn line_matches(pattern: &str, actual: &str) -> bool {
    if actual == "ok" {
        return pattern == "ok";
    }
    let parts: Vec<&str> = pattern.split("<any>").collect();
    if parts.len() == 1 {
        return pattern == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether the reply lines match the expected lines (`<any-lines>` backtracks).
fn block_matches(expected: &[Expect], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((Expect::AnyLines, rest)) => (0..=actual.len())
            .take_while(|&k| k == 0 || actual[k - 1] != "ok")
            .any(|k| block_matches(rest, &actual[k..])),
        Some((Expect::Line(p), rest)) => {
            !actual.is_empty() && line_matches(p, &actual[0]) && block_matches(rest, &actual[1..])
        }
        Some((Expect::Unordered(items), rest)) => {
            !actual.is_empty()
                && actual[0] != "ok"
                && sorted_items(&actual[0]) == *items
                && block_matches(rest, &actual[1..])
        }
    }
}

/// Runs the binary with `args` and `input` on stdin (closed afterwards) and returns its output
/// lines. `paced` writes one line every few milliseconds instead of all at once, so that a
/// pondering engine searches between the commands.
fn run_engine(input: Vec<u8>, args: &[&str], paced: bool) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_waggle"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("cannot start waggle");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = thread::spawn(move || {
        // The engine may exit (on `exit`) before reading everything: ignore a broken pipe.
        if paced {
            for line in input.split_inclusive(|&b| b == b'\n') {
                thread::sleep(Duration::from_millis(3));
                if stdin.write_all(line).and_then(|()| stdin.flush()).is_err() {
                    break;
                }
            }
        } else {
            let _ = stdin.write_all(&input);
        }
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).expect("cannot read stdout");
        out
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the engine did not finish the transcript within 120 s");
        }
        thread::sleep(Duration::from_millis(5));
    };
    writer.join().expect("writer thread");
    let out = reader.join().expect("reader thread");
    assert!(status.success(), "the engine exited with {status}");
    let text = String::from_utf8(out).expect("the engine's output is not UTF-8");
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "output ends mid-line"
    );
    text.lines().map(str::to_string).collect()
}

/// The option line of `PonderDuringIdle` at its default, and as it reads in the pondering run.
const PONDER_OFF: &str = "PonderDuringIdle;enum;Disabled;Disabled;";
const PONDER_ON: &str = "PonderDuringIdle;enum;MultiThreaded;Disabled;";

/// Checks one transcript; returns a description of the first difference. With `ponder` the
/// engine is started with `PonderDuringIdle` `MultiThreaded` and fed one line at a time, and
/// must give the same replies, except that the option's own line shows that value where the
/// transcript expects the default (transcripts never set the option back to `Disabled`).
fn check_transcript(path: &Path, ponder: bool) -> Result<usize, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let (input, mut blocks) = parse_transcript(&text);
    let output = if ponder {
        for block in &mut blocks {
            for e in &mut block.expected {
                if let Expect::Line(l) = e {
                    *l = l.replace(PONDER_OFF, PONDER_ON);
                }
            }
        }
        run_engine(input, &["--option", "PonderDuringIdle=MultiThreaded"], true)
    } else {
        run_engine(input, &[], false)
    };
    let mut at = 0;
    for block in &blocks {
        if block.expected.is_empty() {
            continue;
        }
        // One reply: the lines up to and including the next `ok`.
        let end = output[at..]
            .iter()
            .position(|l| l == "ok")
            .map(|k| at + k + 1)
            .ok_or_else(|| {
                format!(
                    "line {}: '{}': no reply (remaining output {:?})",
                    block.line_no,
                    block.command,
                    &output[at..]
                )
            })?;
        let reply = &output[at..end];
        if !block_matches(&block.expected, reply) {
            return Err(format!(
                "line {}: '{}':\n  expected {:?}\n  got      {:?}",
                block.line_no, block.command, block.expected, reply
            ));
        }
        at = end;
    }
    if at != output.len() {
        return Err(format!("unexpected extra output {:?}", &output[at..]));
    }
    Ok(blocks.len())
}

fn transcripts() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("engine-tests/uhp");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("engine-tests/uhp is missing")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_transcript_gets_exactly_its_expected_replies() {
    let files = transcripts();
    assert!(
        files.len() >= 5,
        "expected the transcripts, found {files:?}"
    );
    let mut failures = Vec::new();
    for path in &files {
        match check_transcript(path, false) {
            Ok(n) => assert!(n > 1, "{} has no commands", path.display()),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn pondering_changes_no_reply() {
    let mut failures = Vec::new();
    for path in &transcripts() {
        if let Err(e) = check_transcript(path, true) {
            failures.push(format!("{} (pondering): {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_matcher_can_fail() {
    assert!(line_matches("a<any>c", "abbc"));
    assert!(line_matches("<any>", ""));
    assert!(!line_matches("a<any>c", "abb"));
    assert!(!line_matches("ab<any>bc", "abc"));
    assert!(!line_matches("ok", "ok "));
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let exp = [
        Expect::AnyLines,
        Expect::Line("<any>".to_string()),
        Expect::Line("ok".to_string()),
    ];
    assert!(block_matches(&exp, &lines(&["x", "y", "ok"])));
    assert!(block_matches(&exp, &lines(&["y", "ok"])));
    assert!(!block_matches(&exp, &lines(&["ok"])));
    assert!(!block_matches(&exp, &lines(&["y", "ok", "ok"])));
    assert_eq!(decode_command("a\\xffb\\wS1\\xZZ"), b"a\xffb\\wS1\\xZZ");
}
