//! The stdin channel: which stdin the process has, and a reader thread that hands complete lines
//! to the ECS side through a bounded queue.
//!
//! - stdin is `/dev/null` (a service, a container, `nohup … &`, `< /dev/null`) or closed: there is
//!   no stdin channel; the bot runs on TCP until SIGTERM, as ClawCraft does.
//! - a pipe, a terminal or a file: requests are read from it, and its end (EOF) ends the bot
//!   cleanly, because the agent that owned it is gone.
//! - `CLAWCRAFT_NO_STDIN` turns the channel off whatever stdin is.
//!
//! A line over the limit is answered with `LINE_TOO_LONG` and skipped without being kept whole.

use std::io::{BufRead, ErrorKind};

use clawcraft_core::CommandWaker;
use crossbeam_channel::Sender;

/// What stdin is connected to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdinSource {
    /// A pipe, terminal or file: a channel whose EOF ends the bot.
    Stream,
    /// `/dev/null` (opened in any mode): nothing will ever come; no channel.
    Null,
    /// File descriptor 0 is not open.
    Closed,
}

impl StdinSource {
    /// Whether commands can come from it.
    pub fn is_stream(self) -> bool {
        self == Self::Stream
    }
}

/// Looks at file descriptor 0. Call it early (before the process opens files), since a closed
/// descriptor 0 is reused by the next `open`.
pub fn detect() -> StdinSource {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() else { return StdinSource::Closed };
        let Ok(meta) = std::fs::File::from(fd).metadata() else { return StdinSource::Closed };
        let null = std::fs::metadata("/dev/null").ok();
        if meta.file_type().is_char_device() && null.is_some_and(|n| n.rdev() == meta.rdev()) {
            return StdinSource::Null;
        }
        StdinSource::Stream
    }
    #[cfg(not(unix))]
    {
        StdinSource::Stream
    }
}

/// What the reader thread hands over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StdinLine {
    /// One line without its line ending (invalid UTF-8 replaced, so it still gets an answer).
    Line(String),
    /// A line over the limit was skipped.
    TooLong,
    /// End of input: the agent is gone.
    Eof,
}

/// Reads `input` line by line into `tx` (blocking when the queue is full, which holds back the
/// agent, never the game loop), waking the runner after each line. Lines longer than `max_line`
/// bytes become [`StdinLine::TooLong`] and are skipped as they stream by. A read error other than
/// EOF stops reading without ending the bot (stdin was unusable, not closed).
pub fn read_lines(mut input: impl BufRead, max_line: usize, tx: &Sender<StdinLine>, waker: &CommandWaker) {
    loop {
        let line = match next_line(&mut input, max_line) {
            Ok(Some(line)) => line,
            Ok(None) => {
                let _ = tx.send(StdinLine::Eof);
                waker.wake();
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot read stdin; reading no more from it");
                return;
            }
        };
        if tx.send(line).is_err() {
            return;
        }
        waker.wake();
    }
}

/// The next line, `Ok(None)` at EOF.
fn next_line(input: &mut impl BufRead, max_line: usize) -> std::io::Result<Option<StdinLine>> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if !any {
                return Ok(None);
            }
            break;
        }
        any = true;
        let (chunk, used, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        if !too_long {
            // "\r" of a "\r\n" ending does not count against the limit.
            let limit = max_line.saturating_add(1);
            if line.len().saturating_add(chunk.len()) > limit {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        input.consume(used);
        if end {
            break;
        }
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if too_long || line.len() > max_line {
        return Ok(Some(StdinLine::TooLong));
    }
    Ok(Some(StdinLine::Line(String::from_utf8(line).unwrap_or_else(|_| "\u{FFFD}".to_owned()))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn lines(input: &[u8], max: usize) -> Vec<StdinLine> {
        // A tiny buffer makes long lines arrive in many pieces, as from a pipe.
        let mut r = BufReader::with_capacity(7, input);
        let mut out = Vec::new();
        while let Some(l) = next_line(&mut r, max).expect("read") {
            out.push(l);
        }
        out
    }

    #[test]
    fn splits_lines_and_skips_long_ones_without_losing_the_next() {
        let mut input = b"{\"a\":1}\r\n".to_vec();
        input.extend(vec![b'x'; 100]);
        input.extend(b"\nshort\n\xff\xfe\nlast-without-newline");
        let got = lines(&input, 20);
        assert_eq!(
            got,
            vec![
                StdinLine::Line("{\"a\":1}".into()),
                StdinLine::TooLong,
                StdinLine::Line("short".into()),
                StdinLine::Line("\u{FFFD}".into()),
                StdinLine::Line("last-without-newline".into()),
            ]
        );
        assert_eq!(lines(&[b'y'; 20], 20), vec![StdinLine::Line("y".repeat(20))], "exactly the limit is fine");
        assert_eq!(lines(&[b'y'; 21], 20), vec![StdinLine::TooLong]);
        assert_eq!(lines(b"", 20), vec![]);
    }
}
