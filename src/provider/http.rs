//! The mock provider's HTTP layer: an axum app whose one fallback hands every request to the
//! responder ([`super::routes`]) as plain data, and turns its [`Reply`] into a response.
//!
//! It is here, not in a mocking library's server, for the limits: a body larger than
//! [`MAX_BODY_BYTES`] is refused with 413 before it is buffered (and is not journaled), a body
//! that does not arrive within the body deadline is 408, a client that does not finish its
//! headers is cut off, and the server keeps accepting when the process is short of file
//! descriptors (see [`crate::server`]).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::routes::Router;
use crate::protocol::response_object::ErrorBody;
use crate::server::read_body;

/// Largest request body the mock reads: a direct request declares every tool with its schema,
/// about 5.5 KB a fake tool, so the largest catalogue a scenario may have
/// ([`crate::catalog::fake::MAX_FAKE_TOOLS`]) fits, with room to spare.
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// One request, as the responder sees it.
pub(crate) struct Incoming<'a> {
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    pub(crate) query: Option<&'a str>,
    pub(crate) body: &'a [u8],
}

/// One response: status, content type, body (and whether caches must keep out). The body is
/// shared, not copied, with the journal that keeps it: a direct answer at 10,000 tools echoes
/// megabytes of declarations.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    status: u16,
    content_type: &'static str,
    no_cache: bool,
    body: Arc<str>,
}

/// A shared body as the bytes the response sends.
struct SharedBody(Arc<str>);

impl AsRef<[u8]> for SharedBody {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl Reply {
    pub(crate) fn new(status: u16) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            no_cache: false,
            body: Arc::from(""),
        }
    }

    /// With `cache-control: no-cache` (event streams).
    pub(crate) fn no_cache(mut self) -> Reply {
        self.no_cache = true;
        self
    }

    /// The body text (shared).
    pub(crate) fn body(&self) -> Arc<str> {
        self.body.clone()
    }

    pub(crate) fn set_body_raw(mut self, body: String, content_type: &'static str) -> Reply {
        self.body = Arc::from(body);
        self.content_type = content_type;
        self
    }
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = Body::from(axum::body::Bytes::from_owner(SharedBody(self.body)));
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(self.content_type),
        );
        if self.no_cache {
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        }
        response
    }
}

/// The app: every method and path goes to the responder.
pub(crate) fn app(router: Arc<Router>) -> axum::Router {
    axum::Router::new().fallback(handle).with_state(router)
}

async fn handle(
    State(router): State<Arc<Router>>,
    method: Method,
    uri: Uri,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let body = match read_body(&headers, body, MAX_BODY_BYTES).await {
        Ok(body) => body,
        Err((status, message)) => {
            let error = ErrorBody::new("invalid_request_error", message);
            return Reply::new(status.as_u16())
                .set_body_raw(json!(error).to_string(), "application/json")
                .into_response();
        }
    };
    let incoming = Incoming {
        method: method.as_str(),
        path: uri.path(),
        query: query.as_deref(),
        body: &body,
    };
    router.respond(&incoming).into_response()
}
