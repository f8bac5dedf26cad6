//! A small blocking HTTP(S) layer over `ureq`: JSON or form bodies in, status + JSON out. Errors
//! name the service and never include bodies, headers or query strings (they may hold tokens).

use std::time::Duration;

use serde_json::Value;

use crate::AuthError;

/// Largest response body read (the biggest, a certificate chain, is a few KiB).
const MAX_BODY: u64 = 1 << 20;

/// A request body.
pub(crate) enum Body<'a> {
    /// `application/json`.
    Json(&'a Value),
    /// `application/json`, already serialized (signed requests send exactly what they signed).
    RawJson(&'a str),
    /// `application/x-www-form-urlencoded`.
    Form(&'a [(&'a str, &'a str)]),
}

/// What came back: the status, the body parsed as JSON (`Null` if it was not JSON) and the
/// `x-err` header Xbox uses for its error codes.
#[derive(Debug)]
pub(crate) struct Reply {
    pub status: u16,
    pub body: Value,
    pub x_err: Option<String>,
}

impl Reply {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// A string field of the body, if present.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.body.get(key).and_then(Value::as_str)
    }
}

/// One agent (connection pool) per sign-in.
#[derive(Clone)]
pub(crate) struct Http {
    agent: ureq::Agent,
}

impl Http {
    pub fn new(timeout: Duration) -> Self {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .user_agent("clawcraft")
            .build();
        Self { agent: ureq::Agent::new_with_config(config) }
    }

    /// POSTs `body` with extra `headers` to `url`.
    pub fn post(
        &self,
        service: &'static str,
        url: &str,
        headers: &[(&str, &str)],
        body: Body<'_>,
    ) -> Result<Reply, AuthError> {
        let mut req = self.agent.post(url).header("Accept", "application/json");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let result = match body {
            Body::Json(v) => req.header("Content-Type", "application/json").send(v.to_string()),
            Body::RawJson(text) => req.header("Content-Type", "application/json").send(text),
            Body::Form(fields) => {
                req.header("Content-Type", "application/x-www-form-urlencoded").send(form_urlencode(fields))
            }
        };
        Self::reply(service, result)
    }

    fn reply(
        service: &'static str,
        result: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Reply, AuthError> {
        let mut resp = result.map_err(|e| AuthError::Network { service, detail: describe(&e) })?;
        let status = resp.status().as_u16();
        let x_err = resp.headers().get("x-err").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let text = resp
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
            .map_err(|e| AuthError::Network { service, detail: describe(&e) })?;
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Ok(Reply { status, body, x_err })
    }
}

/// A network error without the URL (ureq's messages may quote it, query string included).
fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Io(io) => io.kind().to_string(),
        ureq::Error::Timeout(t) => format!("timed out ({t})"),
        ureq::Error::HostNotFound => "host not found".to_owned(),
        ureq::Error::ConnectionFailed => "connection failed".to_owned(),
        ureq::Error::BodyExceedsLimit(n) => format!("response larger than {n} bytes"),
        ureq::Error::Tls(msg) => format!("TLS error: {msg}"),
        ureq::Error::Rustls(e) => format!("TLS error: {e}"),
        other => other.to_string().split(" for url").next().unwrap_or("request failed").to_owned(),
    }
}

/// `application/x-www-form-urlencoded` (RFC 1866: space as `+`, unreserved kept).
pub(crate) fn form_urlencode(fields: &[(&str, &str)]) -> String {
    let enc = |s: &str| {
        let mut out = String::with_capacity(s.len());
        for b in s.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => out.push(b as char),
                b' ' => out.push('+'),
                _ => out.push_str(&format!("%{b:02X}")),
            }
        }
        out
    };
    fields.iter().map(|(k, v)| format!("{}={}", enc(k), enc(v))).collect::<Vec<_>>().join("&")
}

/// Decodes a form body (the fake reads what [`form_urlencode`] wrote).
#[cfg_attr(not(feature = "fake"), allow(dead_code))]
pub(crate) fn form_urldecode(body: &str) -> Vec<(String, String)> {
    let dec = |s: &str| {
        let bytes = s.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'+' => out.push(b' '),
                b'%' if i + 2 < bytes.len() => {
                    match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16) {
                        Ok(v) => {
                            out.push(v);
                            i += 2;
                        }
                        Err(_) => out.push(b'%'),
                    }
                }
                c => out.push(c),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    body.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (dec(k), dec(v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_round_trip() {
        let fields = [("scope", "service::user.auth.xboxlive.com::MBI_SSL"), ("a b", "x&y=z%"), ("e", "")];
        let encoded = form_urlencode(&fields);
        assert_eq!(encoded, "scope=service%3A%3Auser.auth.xboxlive.com%3A%3AMBI_SSL&a+b=x%26y%3Dz%25&e=");
        let decoded = form_urldecode(&encoded);
        let expected: Vec<(String, String)> = fields.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(decoded, expected);
        // Truncated escapes don't panic.
        assert_eq!(form_urldecode("a=%4"), vec![("a".to_string(), "%4".to_string())]);
    }
}
