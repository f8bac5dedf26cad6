//! The client side of the TCP channel, for `clawcraft cmd`, `clawcraft events --tcp`, tests and
//! benches.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Why a round trip failed; [`code`](Self::code) is ClawCraft's `cmd.js` error name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientError {
    /// The argument is not JSON.
    InvalidJson(String),
    /// Nothing listens on the port.
    BotNotRunning(String),
    /// No response line within the timeout.
    Timeout,
    /// The response is not JSON.
    InvalidResponse(String),
    /// Any other socket failure.
    ConnectionError(String),
}

impl ClientError {
    /// The stable code printed as the `code` of `clawcraft cmd`'s error response.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidJson(_) => "INVALID_JSON",
            Self::BotNotRunning(_) => "BOT_NOT_RUNNING",
            // Not the bot's `TIMEOUT` (a `cmd` the server did not answer): no response reached us.
            Self::Timeout => "CLIENT_TIMEOUT",
            Self::InvalidResponse(_) => "INVALID_RESPONSE",
            Self::ConnectionError(_) => "CONNECTION_ERROR",
        }
    }

    /// Human detail.
    pub fn message(&self) -> String {
        match self {
            Self::InvalidJson(m) | Self::BotNotRunning(m) | Self::InvalidResponse(m) | Self::ConnectionError(m) => {
                m.clone()
            }
            Self::Timeout => "no response in time".into(),
        }
    }
}

/// Adds `token` to a request object that has none (so `CLAWCRAFT_TOKEN` just works).
pub fn with_token(request: &str, token: Option<&str>) -> Result<String, ClientError> {
    let mut v: Value = serde_json::from_str(request).map_err(|e| ClientError::InvalidJson(e.to_string()))?;
    if let (Some(t), Value::Object(m)) = (token, &mut v)
        && !m.contains_key("token")
    {
        m.insert("token".into(), Value::String(t.to_owned()));
    }
    Ok(v.to_string())
}

/// Connects, mapping "refused" to [`ClientError::BotNotRunning`].
pub fn connect(addr: SocketAddr, timeout: Duration) -> Result<TcpStream, ClientError> {
    let stream = TcpStream::connect_timeout(&addr, timeout).map_err(|e| match e.kind() {
        std::io::ErrorKind::ConnectionRefused => ClientError::BotNotRunning(format!("nothing listens on {addr}")),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => ClientError::Timeout,
        _ => ClientError::ConnectionError(e.to_string()),
    })?;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// One request, one response line (ClawCraft's one-shot use). `request` must be JSON.
pub fn round_trip(addr: SocketAddr, request: &str, timeout: Duration) -> Result<String, ClientError> {
    serde_json::from_str::<Value>(request).map_err(|e| ClientError::InvalidJson(e.to_string()))?;
    let deadline = Instant::now() + timeout;
    let mut stream = connect(addr, timeout)?;
    let io_err = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => ClientError::Timeout,
        _ => ClientError::ConnectionError(e.to_string()),
    };
    let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
    stream.set_read_timeout(Some(left)).map_err(io_err)?;
    stream.set_write_timeout(Some(left)).map_err(io_err)?;
    stream.write_all(format!("{request}\n").as_bytes()).map_err(io_err)?;
    // Half-close: we send nothing more, and the server closes after answering.
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut line = String::new();
    let n = BufReader::new(stream).read_line(&mut line).map_err(io_err)?;
    if n == 0 {
        return Err(ClientError::InvalidResponse("the connection closed without a response".into()));
    }
    let line = line.trim_end().to_owned();
    serde_json::from_str::<Value>(&line).map_err(|e| ClientError::InvalidResponse(format!("{e}: {line}")))?;
    Ok(line)
}

/// A persistent connection: many requests, responses in order.
pub struct Session {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Session {
    /// Connects and opts in to a persistent connection (`{"action":"session"}` as the first
    /// line), with a read timeout for each response.
    pub fn open(addr: SocketAddr, timeout: Duration) -> Result<Self, ClientError> {
        Self::open_with_token(addr, timeout, None)
    }

    /// Like [`open`](Self::open) for a bot with `CLAWCRAFT_TOKEN` set.
    pub fn open_with_token(addr: SocketAddr, timeout: Duration, token: Option<&str>) -> Result<Self, ClientError> {
        let mut s = Self::connect(addr, timeout)?;
        let line = with_token(r#"{"action":"session"}"#, token)?;
        let resp = s.request(&line)?;
        if resp.get("session") != Some(&Value::Bool(true)) {
            return Err(ClientError::InvalidResponse(format!("no session: {resp}")));
        }
        Ok(s)
    }

    /// Connects without opting in: the server treats the first line as one-shot unless it is
    /// `session` or `watch`.
    pub fn connect(addr: SocketAddr, timeout: Duration) -> Result<Self, ClientError> {
        let stream = connect(addr, timeout)?;
        stream.set_read_timeout(Some(timeout)).map_err(|e| ClientError::ConnectionError(e.to_string()))?;
        let writer = stream.try_clone().map_err(|e| ClientError::ConnectionError(e.to_string()))?;
        Ok(Self { reader: BufReader::new(stream), writer })
    }

    /// Sends one line (a newline is added).
    pub fn send(&mut self, line: &str) -> Result<(), ClientError> {
        self.writer.write_all(format!("{line}\n").as_bytes()).map_err(|e| ClientError::ConnectionError(e.to_string()))
    }

    /// The next line from the server as text, without its newline (`None` at end of stream).
    pub fn recv_line(&mut self) -> Result<Option<String>, ClientError> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => Ok(None),
            Ok(_) => {
                line.truncate(line.trim_end().len());
                Ok(Some(line))
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) => {
                Err(ClientError::Timeout)
            }
            Err(e) => Err(ClientError::ConnectionError(e.to_string())),
        }
    }

    /// The next line from the server, parsed (`None` at end of stream).
    pub fn recv(&mut self) -> Result<Option<Value>, ClientError> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => Ok(None),
            Ok(_) => serde_json::from_str(line.trim_end())
                .map(Some)
                .map_err(|e| ClientError::InvalidResponse(format!("{e}: {line}"))),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) => {
                Err(ClientError::Timeout)
            }
            Err(e) => Err(ClientError::ConnectionError(e.to_string())),
        }
    }

    /// Sends `request` and returns the next line.
    pub fn request(&mut self, request: &str) -> Result<Value, ClientError> {
        self.send(request)?;
        self.recv()?.ok_or_else(|| ClientError::InvalidResponse("the connection closed".into()))
    }

    /// A second handle on the socket for writing from another thread (pipelining).
    pub fn try_clone_writer(&self) -> Result<TcpStream, ClientError> {
        self.writer.try_clone().map_err(|e| ClientError::ConnectionError(e.to_string()))
    }

    /// Changes the per-line read timeout (`None` waits forever, for `watch`).
    pub fn set_timeout(&mut self, timeout: Option<Duration>) {
        let _ = self.reader.get_ref().set_read_timeout(timeout);
    }
}
