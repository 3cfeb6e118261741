//! Serving an axum app on a loopback listener with the limits every server of the project keeps
//! (the embedded gateway and the mock provider).
//!
//! `axum::serve` sets no timer, so a client that sends half a header, or a body one byte a
//! minute, holds its connection (and a file descriptor) forever. Here every connection is served
//! by hyper's HTTP/1 builder with a header read timeout, every request body has a deadline
//! (tower-http), and an accept error such as `EMFILE` makes the loop pause and go on rather than
//! stop: a server that is short of file descriptors for a moment must not stop listening for good.

use std::future::Future;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, StatusCode};
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower_http::timeout::RequestBodyDeadline;

/// How long a client may take over its part of an exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// From the connection's first byte (or the end of the previous response) to the end of the
    /// request's headers; past it the connection is closed.
    pub header_read: Duration,
    /// From the end of the headers to the end of the body; past it the body read fails and the
    /// route answers with an error.
    pub body_read: Duration,
    /// How long a stop waits for exchanges in flight before it drops them.
    pub drain: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_read: Duration::from_secs(10),
            body_read: Duration::from_secs(30),
            drain: Duration::from_secs(5),
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then lets exchanges in flight finish
/// for at most [`Limits::drain`].
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    pause_after(&e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service =
            TowerToHyperService::new(RequestBodyDeadline::new(app.clone(), limits.body_read));
        // One request per connection: hyper's header read timeout also runs while a kept-alive
        // connection waits for its next request, and a client that reuses a pooled connection
        // just as the server closes it loses its POST (seen as rare 502s under load).
        let connection = http1::Builder::new()
            .keep_alive(false)
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that goes away or breaks the protocol ends its own connection only.
            let _ = connection.await;
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(limits.drain, graceful.shutdown()).await;
}

/// After a failed accept: a short pause when the process or the system is out of file
/// descriptors or memory (it passes as connections close), none otherwise (the peer gave up).
async fn pause_after(error: &std::io::Error) {
    let scarce = matches!(
        error.raw_os_error(),
        Some(code) if code == rustix::io::Errno::MFILE.raw_os_error()
            || code == rustix::io::Errno::NFILE.raw_os_error()
            || code == rustix::io::Errno::NOBUFS.raw_os_error()
            || code == rustix::io::Errno::NOMEM.raw_os_error()
    );
    if scarce {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Reads a request body of at most `limit` bytes. A `Content-Length` above the limit is refused
/// before a byte of the body is read (413); so is a body that grows past it. A body that is not
/// complete within [`Limits::body_read`] is 408, one broken off is 400. The message says which.
pub async fn read_body(
    headers: &HeaderMap,
    body: Body,
    limit: usize,
) -> Result<Bytes, (StatusCode, String)> {
    let too_large = || {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request body is larger than {limit} bytes"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(too_large());
    }
    axum::body::to_bytes(body, limit).await.map_err(|error| {
        let causes = || std::iter::successors(std::error::Error::source(&error), |e| e.source());
        if causes().any(|e| e.is::<http_body_util::LengthLimitError>()) {
            too_large()
        } else if causes().any(|e| e.is::<tower_http::timeout::TimeoutError>()) {
            (
                StatusCode::REQUEST_TIMEOUT,
                "request body did not arrive in time".to_string(),
            )
        } else {
            (
                StatusCode::BAD_REQUEST,
                format!("cannot read the request body: {error}"),
            )
        }
    })
}
