//! The Streamable HTTP transport on `http://ADDR/mcp`: `rmcp`'s service behind a small hyper
//! server that checks the bearer token first.

use std::convert::Infallible;
use std::net::TcpListener;
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::HttpSettings;
use crate::hub::Hub;
use crate::server::ClawcraftMcp;

/// The path the MCP endpoint answers on.
pub const PATH: &str = "/mcp";

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;
type Service = StreamableHttpService<ClawcraftMcp, LocalSessionManager>;

/// Accepts connections until the process ends; each is served on its own task.
pub async fn serve(hub: Arc<Hub>, settings: HttpSettings, listener: TcpListener) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let addr = listener.local_addr()?;
    let config = host_check(addr);
    let service: Service = StreamableHttpService::new(
        move || Ok(ClawcraftMcp::new(hub.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token: Option<Arc<str>> = settings.token.as_deref().map(Arc::from);
    tracing::info!(url = %format!("http://{addr}{PATH}"), token = token.is_some(), "MCP Streamable HTTP server listening");
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "MCP HTTP accept failed");
                continue;
            }
        };
        // Answers go out in several writes (headers, then SSE events): without this, Nagle's
        // algorithm meets the client's delayed ACK and a call takes 40 ms instead of < 1 ms.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(%peer, error = %e, "cannot set TCP_NODELAY");
        }
        let service = service.clone();
        let token = token.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |req| {
                let service = service.clone();
                let token = token.clone();
                async move { Ok::<_, Infallible>(handle(&service, token.as_deref(), req).await) }
            });
            if let Err(e) =
                hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), handler).await
            {
                tracing::debug!(%peer, error = %e, "MCP HTTP connection ended");
            }
        });
    }
}

/// On loopback, rmcp refuses requests whose `Host` is not loopback: without a token, that is what
/// stops a web page from reaching the bot through DNS rebinding. Off loopback a token is required
/// (checked before rmcp sees the request, and a rebinding page cannot know it), and clients come
/// by names the bot cannot know (a Kubernetes Service, a load balancer), so any `Host` passes.
fn host_check(addr: std::net::SocketAddr) -> StreamableHttpServerConfig {
    let config = StreamableHttpServerConfig::default();
    if addr.ip().is_loopback() {
        config.with_allowed_hosts(["localhost", "127.0.0.1", "::1"])
    } else {
        config.disable_allowed_hosts()
    }
}

async fn handle(service: &Service, token: Option<&str>, req: Request<Incoming>) -> Response<Body> {
    if req.uri().path() != PATH {
        return plain(StatusCode::NOT_FOUND, "NOT_FOUND", &format!("the MCP endpoint is {PATH}"));
    }
    if let Some(token) = token {
        let given = req.headers().get(hyper::header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        if given.and_then(|v| v.strip_prefix("Bearer ")) != Some(token) {
            return plain(StatusCode::UNAUTHORIZED, "UNAUTHORIZED", "send Authorization: Bearer <CLAWCRAFT_TOKEN>");
        }
    }
    service.handle(req).await
}

/// A JSON error body with a stable `code`, as the other channels answer.
fn plain(status: StatusCode, code: &str, message: &str) -> Response<Body> {
    let body = serde_json::json!({"error": message, "code": code}).to_string();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
    if status == StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(hyper::header::WWW_AUTHENTICATE, hyper::header::HeaderValue::from_static("Bearer"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_checks_the_host_and_an_address_behind_a_token_does_not() {
        let on_loopback = host_check("127.0.0.1:4100".parse().expect("addr"));
        assert_eq!(on_loopback.allowed_hosts, ["localhost", "127.0.0.1", "::1"]);
        let in_a_pod = host_check("0.0.0.0:4100".parse().expect("addr"));
        assert!(in_a_pod.allowed_hosts.is_empty(), "a Service name reaches it: {:?}", in_a_pod.allowed_hosts);
    }
}
