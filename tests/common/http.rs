//! A minimal HTTP/1.1 client over `std::net` for the live map's tests (and chromedriver's
//! WebDriver API): one request per connection, `Connection: close`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::Value;

/// An answer: status, headers (lower-case names), body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("JSON body ({e}): {}", self.text()))
    }
}

fn parse(raw: &[u8]) -> Answer {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| {
        panic!("no end of head in {:?}", String::from_utf8_lossy(raw));
    });
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).expect("status line");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Answer { status, headers, body: raw[end + 4..].to_vec() }
}

/// Sends `raw` bytes as they are and reads the answer to the end.
pub fn raw(addr: SocketAddr, raw: &[u8]) -> Answer {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(70))).expect("timeout");
    // The server may answer (and close) before it read everything of an oversized request.
    let _ = s.write_all(raw);
    // To the end of the body: `Content-Length` when given (a server may keep the connection
    // open), else until the server closes.
    let mut out = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        if let Some(end) = out.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&out[..end]).to_ascii_lowercase();
            let length = head
                .split("\r\n")
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            if length.is_some_and(|n| out.len() >= end + 4 + n) {
                break;
            }
        }
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
    parse(&out)
}

/// A request with a body (`Content-Length`), `Host` set to the address.
pub fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    if !body.is_empty() || method == "POST" || method == "DELETE" {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    raw(addr, &bytes)
}

pub fn get(addr: SocketAddr, path: &str) -> Answer {
    request(addr, "GET", path, &[], b"")
}

pub fn post_json(addr: SocketAddr, path: &str, body: &str) -> Answer {
    request(addr, "POST", path, &[("Content-Type", "application/json")], body.as_bytes())
}

/// One Server-Sent Event.
#[derive(Debug, Clone)]
pub struct Sse {
    pub event: String,
    pub data: String,
}

/// Opens an event stream: its status and head, and its events as they come (read on a thread
/// until the stream ends or the receiver is dropped).
pub fn sse(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> (u16, Receiver<Sse>) {
    let mut s = TcpStream::connect(addr).expect("connect");
    let mut head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n");
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).expect("write");
    let mut reader = BufReader::new(s);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).expect("status line");
    let status = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    loop {
        let mut l = String::new();
        if reader.read_line(&mut l).unwrap_or(0) == 0 || l == "\r\n" {
            break;
        }
    }
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let (mut event, mut data) = (String::new(), String::new());
        loop {
            let mut l = String::new();
            if reader.read_line(&mut l).unwrap_or(0) == 0 {
                return;
            }
            let l = l.trim_end_matches(['\r', '\n']);
            if l.is_empty() {
                if !data.is_empty()
                    && tx.send(Sse { event: std::mem::take(&mut event), data: std::mem::take(&mut data) }).is_err()
                {
                    return;
                }
                event.clear();
            } else if let Some(v) = l.strip_prefix("event: ") {
                event = v.to_owned();
            } else if let Some(v) = l.strip_prefix("data: ") {
                data.push_str(v);
            }
        }
    });
    (status, rx)
}
