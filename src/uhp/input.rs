//! Reading command lines from untrusted bytes.

use std::io::{self, BufRead};

/// The longest input line the server reads, in bytes (a GameString of a very long game is a few
/// tens of kilobytes). Longer lines are skipped whole and answered with `err`, so a runaway host
/// cannot make the engine hold gigabytes.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LineRead {
    /// A line is in the buffer (without its `\n`).
    Line,
    /// A line longer than the limit was read and thrown away.
    TooLong,
    /// The input has ended.
    Eof,
}

/// Reads one `\n`-terminated line (the last line may lack the `\n`) into `buf`, keeping at most
/// `max` bytes. Interrupted reads (a signal arriving while the engine waits for input) are retried.
pub(crate) fn read_line<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    buf.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (read_any, too_long) {
                (false, _) => LineRead::Eof,
                (true, true) => LineRead::TooLong,
                (true, false) => LineRead::Line,
            });
        }
        read_any = true;
        let newline = available.iter().position(|&b| b == b'\n');
        let chunk = &available[..newline.unwrap_or(available.len())];
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let used = newline.map_or(available.len(), |i| i + 1);
        reader.consume(used);
        if newline.is_some() {
            return Ok(if too_long {
                LineRead::TooLong
            } else {
                LineRead::Line
            });
        }
    }
}

/// Makes a line safe to parse and to echo in messages: tabs, carriage returns and other
/// whitespace controls become spaces, every other control character (and the Unicode line and
/// paragraph separators, which some hosts treat as line breaks) becomes U+FFFD, and a leading
/// byte-order mark is dropped. Nothing the server prints can then break the line framing.
pub fn sanitize(line: &str) -> String {
    line.trim_start_matches('\u{feff}')
        .chars()
        .map(|c| match c {
            '\t' | '\r' | '\n' | '\u{b}' | '\u{c}' => ' ',
            '\u{2028}' | '\u{2029}' => '\u{fffd}',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<(LineRead, Vec<u8>)> {
        let mut reader = io::BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let r = read_line(&mut reader, &mut buf, max).unwrap();
            if r == LineRead::Eof {
                return out;
            }
            out.push((r, buf.clone()));
        }
    }

    #[test]
    fn splits_lines_across_buffer_refills_and_skips_long_ones() {
        let got = lines(b"info\nvalidmoves\r\n0123456789\nlast", 8);
        assert_eq!(
            got,
            vec![
                (LineRead::Line, b"info".to_vec()),
                (LineRead::TooLong, Vec::new()),
                (LineRead::TooLong, Vec::new()),
                (LineRead::Line, b"last".to_vec()),
            ]
        );
        let got = lines(b"validmoves\r\n\n", 64);
        assert_eq!(got[0], (LineRead::Line, b"validmoves\r".to_vec()));
        assert_eq!(got[1], (LineRead::Line, Vec::new()));
        assert!(lines(b"", 8).is_empty());
    }

    #[test]
    fn sanitize_removes_everything_that_could_break_framing() {
        assert_eq!(sanitize("\u{feff}play\twS1\r"), "play wS1 ");
        assert_eq!(
            sanitize("a\u{0}b\u{85}c\u{2028}d"),
            "a\u{fffd}b\u{fffd}c\u{fffd}d"
        );
    }
}
