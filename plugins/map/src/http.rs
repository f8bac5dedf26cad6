//! The map's HTTP server: plain `std::net` threads, one request per connection.
//!
//! - `GET /` (the page), `GET /map.js`, `GET /map.css`: the embedded page ([`crate::page`]).
//! - `GET /stream`: Server-Sent Events — `init` (the whole map), then `frame` a few times a
//!   second and `events` as they happen.
//! - `POST /command`: the body is one command line, parsed and run exactly as a stdin or TCP
//!   line; the answer is the response line.
//!
//! A token, when set, must come as `Authorization: Bearer <token>` or `?token=<token>` (an
//! `EventSource` cannot send headers). On loopback the `Host` must be a loopback name, so a web
//! page elsewhere cannot reach the bot through DNS rebinding. Anything malformed, too large or
//! unknown gets a JSON error with a stable `code`; the server keeps serving.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use clawcraft_core::parse_request;
use serde_json::json;

use crate::frames::Hub;
use crate::{MapSettings, Shared, page};

/// Request line and headers at most.
pub const MAX_HEAD: usize = 16 * 1024;
/// A command line at most.
pub const MAX_BODY: usize = 64 * 1024;
/// Connections served at once (pages hold one each for their event stream).
pub const MAX_CONNECTIONS: usize = 64;
/// How long a client may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a command may take to be answered.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);
/// A comment line keeps an idle event stream (and any proxy) open.
const KEEPALIVE: Duration = Duration::from_secs(15);

/// Starts the accepting thread.
pub fn spawn(listener: TcpListener, settings: MapSettings, shared: Arc<Shared>, hub: Arc<Hub>) -> std::io::Result<()> {
    let addr = listener.local_addr()?;
    let server = Arc::new(Server { settings, addr, shared, hub, open: AtomicUsize::new(0) });
    std::thread::Builder::new().name("map-http".into()).spawn(move || server.accept(&listener))?;
    Ok(())
}

struct Server {
    settings: MapSettings,
    addr: SocketAddr,
    shared: Arc<Shared>,
    hub: Arc<Hub>,
    open: AtomicUsize,
}

/// A parsed request.
#[derive(Debug, PartialEq)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// A query parameter, percent-decoded.
    pub fn param(&self, name: &str) -> Option<String> {
        self.query.split('&').filter_map(|kv| kv.split_once('=')).find(|(k, _)| *k == name).map(|(_, v)| decode(v))
    }
}

/// An error answer: HTTP status, stable code, message.
#[derive(Debug, PartialEq)]
pub struct Refusal {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
}

fn refuse(status: u16, code: &'static str, message: impl Into<String>) -> Refusal {
    Refusal { status, code, message: message.into() }
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'%' if i + 2 < b.len() && hex(b[i + 1]).is_some() && hex(b[i + 2]).is_some() => {
                out.push(b[i + 1..i + 3].iter().fold(0u8, |v, c| v * 16 + hex(*c).unwrap_or(0) as u8));
                i += 3;
                continue;
            }
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads one request: the head up to [`MAX_HEAD`], a body of `Content-Length` up to
/// [`MAX_BODY`].
pub fn read_request(stream: &mut impl Read) -> Result<Request, Refusal> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEAD {
            return Err(refuse(431, "HEADERS_TOO_LARGE", format!("request line and headers over {MAX_HEAD} bytes")));
        }
        let n = stream.read(&mut chunk).map_err(|e| refuse(408, "TIMEOUT", format!("reading the request: {e}")))?;
        if n == 0 {
            return Err(refuse(400, "BAD_REQUEST", "the connection closed before the request ended"));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    if head_end > MAX_HEAD {
        return Err(refuse(431, "HEADERS_TOO_LARGE", format!("request line and headers over {MAX_HEAD} bytes")));
    }
    let head =
        std::str::from_utf8(&buf[..head_end]).map_err(|_| refuse(400, "BAD_REQUEST", "the head is not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(refuse(400, "BAD_REQUEST", "the request line must be METHOD TARGET HTTP/1.1"));
    };
    if !version.starts_with("HTTP/1.") || method.is_empty() || !method.bytes().all(|c| c.is_ascii_uppercase()) {
        return Err(refuse(400, "BAD_REQUEST", "the request line must be METHOD TARGET HTTP/1.1"));
    }
    if !target.starts_with('/') {
        return Err(refuse(400, "BAD_REQUEST", "the target must be a path"));
    }
    let mut headers = Vec::new();
    for l in lines {
        let Some((name, value)) = l.split_once(':') else {
            return Err(refuse(400, "BAD_REQUEST", "a header line without ':'"));
        };
        if name.is_empty() || name.bytes().any(|c| c.is_ascii_whitespace()) {
            return Err(refuse(400, "BAD_REQUEST", "a malformed header name"));
        }
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut req = Request {
        method: method.to_owned(),
        path: path.to_owned(),
        query: query.to_owned(),
        headers,
        body: Vec::new(),
    };
    if req.header("transfer-encoding").is_some() {
        return Err(refuse(411, "LENGTH_REQUIRED", "send the body with Content-Length (no chunked encoding)"));
    }
    let length = match req.header("content-length") {
        None => 0,
        Some(v) => v.parse::<usize>().map_err(|_| refuse(400, "BAD_REQUEST", "Content-Length is not a number"))?,
    };
    if length > MAX_BODY {
        return Err(refuse(413, "TOO_LARGE", format!("a command is at most {MAX_BODY} bytes (got {length})")));
    }
    let mut body = buf.split_off(head_end + 4);
    body.truncate(length);
    while body.len() < length {
        let n = stream.read(&mut chunk).map_err(|e| refuse(408, "TIMEOUT", format!("reading the body: {e}")))?;
        if n == 0 {
            return Err(refuse(400, "BAD_REQUEST", "the connection closed before the body ended"));
        }
        body.extend_from_slice(&chunk[..n.min(length - body.len())]);
    }
    req.body = body;
    Ok(req)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Error",
    }
}

fn respond(stream: &mut TcpStream, status: u16, content_type: &str, body: &[u8], extra: &str) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n{extra}\r\n",
        reason(status),
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

fn respond_error(stream: &mut TcpStream, r: &Refusal) -> std::io::Result<()> {
    let body = json!({"error": r.message, "code": r.code}).to_string();
    let extra = if r.status == 401 { "WWW-Authenticate: Bearer\r\n" } else { "" };
    respond(stream, r.status, "application/json", body.as_bytes(), extra)
}

/// Whether `host` (a `Host` header) names this machine's loopback.
pub fn loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    matches!(name.to_ascii_lowercase().as_str(), "localhost" | "127.0.0.1" | "::1")
}

/// Checks the `Host` (on loopback) and the token.
pub fn admit(settings: &MapSettings, loopback: bool, req: &Request) -> Result<(), Refusal> {
    if loopback && !req.header("host").is_some_and(loopback_host) {
        return Err(refuse(403, "FORBIDDEN_HOST", "on loopback the map answers only to localhost / 127.0.0.1 / [::1]"));
    }
    if let Some(token) = settings.token.as_deref().filter(|t| !t.is_empty()) {
        let header = req.header("authorization").and_then(|v| v.strip_prefix("Bearer ")).map(str::to_owned);
        if header.or_else(|| req.param("token")).as_deref() != Some(token) {
            return Err(refuse(
                401,
                "UNAUTHORIZED",
                "send Authorization: Bearer <CLAWCRAFT_TOKEN> or ?token=<CLAWCRAFT_TOKEN>",
            ));
        }
    }
    Ok(())
}

impl Server {
    fn accept(self: Arc<Self>, listener: &TcpListener) {
        for stream in listener.incoming() {
            let mut stream = match stream {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!(error = %e, "map: accept failed");
                    std::thread::sleep(Duration::from_millis(50));
                    continue;
                }
            };
            if self.open.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
                self.open.fetch_sub(1, Ordering::AcqRel);
                let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
                let _ = respond_error(
                    &mut stream,
                    &refuse(503, "BUSY", format!("{MAX_CONNECTIONS} connections are open; try again later")),
                );
                continue;
            }
            let server = self.clone();
            let spawned = std::thread::Builder::new().name("map-conn".into()).spawn(move || {
                server.serve(stream);
                server.open.fetch_sub(1, Ordering::AcqRel);
            });
            if let Err(e) = spawned {
                self.open.fetch_sub(1, Ordering::AcqRel);
                tracing::warn!(error = %e, "map: cannot start a connection thread");
            }
        }
    }

    fn serve(&self, mut stream: TcpStream) {
        let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
        let _ = stream.set_write_timeout(Some(READ_TIMEOUT));
        let _ = stream.set_nodelay(true);
        let result = match read_request(&mut stream) {
            Ok(req) => match admit(&self.settings, self.addr.ip().is_loopback(), &req) {
                Ok(()) => self.route(&mut stream, &req),
                Err(r) => respond_error(&mut stream, &r),
            },
            Err(r) => respond_error(&mut stream, &r),
        };
        if let Err(e) = result {
            tracing::debug!(error = %e, "map: connection ended");
        }
    }

    fn route(&self, stream: &mut TcpStream, req: &Request) -> std::io::Result<()> {
        let asset = match req.path.as_str() {
            "/" | "/index.html" => Some(("text/html; charset=utf-8", page::HTML)),
            "/map.js" => Some(("text/javascript; charset=utf-8", page::JS)),
            "/map.css" => Some(("text/css; charset=utf-8", page::CSS)),
            _ => None,
        };
        let allowed = match req.path.as_str() {
            "/command" => "POST",
            _ if asset.is_some() => "GET",
            "/stream" => "GET",
            _ => {
                let r = refuse(404, "NOT_FOUND", format!("no {}: the map is at /", req.path));
                return respond_error(stream, &r);
            }
        };
        if req.method != allowed {
            let r = refuse(405, "METHOD_NOT_ALLOWED", format!("{} takes {allowed}", req.path));
            return respond_error(stream, &r);
        }
        if let Some((content_type, body)) = asset {
            return respond(stream, 200, content_type, body.as_bytes(), "");
        }
        match req.path.as_str() {
            "/stream" => self.stream(stream),
            _ => self.command(stream, req),
        }
    }

    fn command(&self, stream: &mut TcpStream, req: &Request) -> std::io::Result<()> {
        let Ok(line) = std::str::from_utf8(&req.body) else {
            return respond_error(stream, &refuse(400, "BAD_REQUEST", "the command is not UTF-8"));
        };
        let origin = self.shared.origin();
        let request = match parse_request(origin, line.trim()) {
            Ok(r) => r,
            // Answered as any channel answers a line it cannot read.
            Err(response) => return respond(stream, 200, "application/json", response.line.as_bytes(), ""),
        };
        let answer = self.shared.send(request);
        match answer.recv_timeout(ANSWER_TIMEOUT) {
            Ok(line) => respond(stream, 200, "application/json", line.as_bytes(), ""),
            Err(_) => {
                self.shared.forget(origin);
                let r = refuse(504, "TIMEOUT", format!("no answer within {} s", ANSWER_TIMEOUT.as_secs()));
                respond_error(stream, &r)
            }
        }
    }

    fn stream(&self, stream: &mut TcpStream) -> std::io::Result<()> {
        stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\
              X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\nretry: 1000\n\n",
        )?;
        let messages = self.hub.subscribe();
        loop {
            match messages.recv_timeout(KEEPALIVE) {
                Ok(m) => stream.write_all(m.as_bytes())?,
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => stream.write_all(b": keep-alive\n\n")?,
                // Dropped by the hub (too far behind): the page reconnects.
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return Ok(()),
            }
            stream.flush()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &[u8]) -> Result<Request, Refusal> {
        read_request(&mut std::io::Cursor::new(raw.to_vec()))
    }

    #[test]
    fn requests_parse_and_bad_ones_are_refused_with_a_code() {
        let r = parse(b"POST /command?token=a%20b HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Length: 3\r\n\r\nabcdef")
            .expect("parses");
        assert_eq!((r.method.as_str(), r.path.as_str(), r.body.as_slice()), ("POST", "/command", &b"abc"[..]));
        assert_eq!(r.param("token").as_deref(), Some("a b"));
        assert_eq!(r.header("HOST"), Some("127.0.0.1:1"));
        let code = |raw: &[u8]| parse(raw).map(|_| "ok").unwrap_or_else(|r| r.code);
        assert_eq!(code(b"garbage\r\n\r\n"), "BAD_REQUEST");
        assert_eq!(code(b"GET / HTTP/1.1\r\nno colon\r\n\r\n"), "BAD_REQUEST");
        assert_eq!(code(b"GET http://x/ HTTP/1.1\r\n\r\n"), "BAD_REQUEST");
        assert_eq!(code(b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n"), "BAD_REQUEST");
        assert_eq!(code(b"POST / HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n"), "TOO_LARGE");
        assert_eq!(code(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), "LENGTH_REQUIRED");
        assert_eq!(code(b"GET / HTTP/1.1\r\nHost: x"), "BAD_REQUEST", "cut short");
        let mut huge = b"GET / HTTP/1.1\r\nX: ".to_vec();
        huge.extend(std::iter::repeat_n(b'a', MAX_HEAD + 10));
        huge.extend_from_slice(b"\r\n\r\n");
        assert_eq!(code(&huge), "HEADERS_TOO_LARGE");
        assert_eq!(decode("%zz%4"), "%zz%4", "a broken escape stays as it is");
    }

    #[test]
    fn loopback_needs_a_loopback_host_and_a_token_when_one_is_set() {
        for h in ["localhost", "localhost:8080", "127.0.0.1:4", "[::1]:80", "LOCALHOST"] {
            assert!(loopback_host(h), "{h}");
        }
        for h in ["evil.example", "evil.example:80", "127.0.0.2", "[::2]:1"] {
            assert!(!loopback_host(h), "{h}");
        }
        let req = |host: &str, auth: Option<&str>, query: &str| Request {
            method: "GET".into(),
            path: "/".into(),
            query: query.into(),
            headers: [Some(("Host".to_owned(), host.to_owned())), auth.map(|a| ("Authorization".into(), a.into()))]
                .into_iter()
                .flatten()
                .collect(),
            body: Vec::new(),
        };
        let open = MapSettings { addr: "127.0.0.1:0".parse().expect("addr"), token: None };
        assert_eq!(admit(&open, true, &req("127.0.0.1:9", None, "")), Ok(()));
        assert_eq!(admit(&open, true, &req("evil.example", None, "")).map_err(|r| r.code), Err("FORBIDDEN_HOST"));
        let guarded = MapSettings { addr: "0.0.0.0:0".parse().expect("addr"), token: Some("s3cret".into()) };
        assert_eq!(admit(&guarded, false, &req("pod:80", None, "")).map_err(|r| r.status), Err(401));
        assert_eq!(admit(&guarded, false, &req("pod:80", Some("Bearer nope"), "")).map_err(|r| r.status), Err(401));
        assert_eq!(admit(&guarded, false, &req("pod:80", Some("Bearer s3cret"), "")), Ok(()));
        assert_eq!(admit(&guarded, false, &req("pod:80", None, "x=1&token=s3cret")), Ok(()));
        // Off loopback without a token: refused before anything is served.
        let bare = MapSettings { addr: "0.0.0.0:4200".parse().expect("addr"), token: None };
        assert!(bare.check().is_err_and(|e| e.contains("CLAWCRAFT_TOKEN")), "{:?}", bare.check());
        assert!(MapSettings { token: Some(String::new()), ..bare.clone() }.check().is_err(), "an empty token is none");
        assert!(MapSettings { token: Some("t".into()), ..bare }.check().is_ok());
        assert!(open.check().is_ok());
    }
}
