//! The product's gateway methods (`tools.effective`) over the gateway's own WebSocket protocol,
//! spoken from the harness: one loopback connection per call, no Node process. Starting the
//! product's CLI for a call (`openclaw gateway call`) cost 3 s of Node start a call; a call
//! here costs tens of milliseconds.
//!
//! The protocol, as the product's `dist/` has it (its gateway client and its connect handler):
//! the gateway opens with a `connect.challenge` event; the client answers with a `connect`
//! request (its protocol range, who it is, its role and scopes) and gets a `hello-ok` naming the
//! protocol agreed on; after that each request `{type: "req", id, method, params}` is answered
//! by `{type: "res", id, ok, payload | error}`, with events in between. A gateway started with
//! `--auth none` admits a local backend client without a device identity or a token and keeps
//! the scopes it asks for. What may differ between releases (the protocol version, the client
//! id and mode the gateway knows) is release data: [`GatewayRpc`], each release file's
//! `[gateway_rpc]` table.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio_tungstenite::tungstenite::Message;

/// How long one call may take, connection and handshake included.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(90);

/// The role and scope the harness asks for: an operator with every method (the product's own
/// CLI asks for the same by default).
const ROLE: &str = "operator";
const SCOPE: &str = "operator.admin";

/// How a release's gateway is spoken to: what its connect request must say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewayRpc {
    /// The protocol version the gateway speaks (its `PROTOCOL_VERSION`; the harness asks for
    /// exactly this one, as minimum and maximum).
    pub protocol: u32,
    /// The client id the harness connects as (one of the ids the gateway knows).
    pub client_id: String,
    /// The client mode: a local backend client needs no device identity with `--auth none`.
    pub client_mode: String,
}

/// Why a call got no answer.
#[derive(Debug, thiserror::Error)]
pub enum RpcError {
    #[error("cannot connect to the gateway's WebSocket at {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("the gateway refused the connect request ({code}): {message}")]
    Refused { code: String, message: String },
    #[error("the gateway agreed on protocol {got}, the release data says {expected}")]
    Protocol { expected: u32, got: u32 },
    #[error("{method} failed ({code}): {message}")]
    Failed {
        method: String,
        code: String,
        message: String,
    },
    #[error("{method}: the connection closed before the answer")]
    Closed { method: String },
    #[error("{method}: no answer within {seconds} s")]
    Timeout { method: String, seconds: u64 },
    #[error("{method}: a frame not in the protocol's shape ({reason}): {frame}")]
    Malformed {
        method: String,
        reason: String,
        frame: String,
    },
}

/// A frame the harness sends.
#[derive(Serialize)]
struct Request<'a, P> {
    #[serde(rename = "type")]
    kind: FrameKind,
    id: &'a str,
    method: &'a str,
    params: P,
}

/// A frame the gateway sends, read only as far as the harness needs.
#[derive(Deserialize)]
struct Incoming {
    #[serde(rename = "type")]
    kind: FrameKind,
    /// A response's request id.
    #[serde(default)]
    id: Option<String>,
    /// An event's name.
    #[serde(default)]
    event: Option<String>,
    #[serde(default)]
    ok: bool,
    #[serde(default)]
    payload: Option<Box<RawValue>>,
    #[serde(default)]
    error: Option<Failure>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum FrameKind {
    Req,
    Res,
    Event,
    #[serde(other)]
    Other,
}

/// A failed response's reason.
#[derive(Deserialize)]
struct Failure {
    #[serde(default)]
    code: String,
    #[serde(default)]
    message: String,
}

/// The `connect` request's parameters.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConnectParams<'a> {
    min_protocol: u32,
    max_protocol: u32,
    client: ClientInfo<'a>,
    role: &'a str,
    scopes: [&'a str; 1],
}

#[derive(Serialize)]
struct ClientInfo<'a> {
    id: &'a str,
    version: &'a str,
    platform: &'a str,
    mode: &'a str,
}

/// The `connect` answer: the protocol the gateway agreed on.
#[derive(Deserialize)]
struct Hello {
    protocol: u32,
}

/// Calls `method` with `params` on the gateway listening on `127.0.0.1:port` and reads its
/// answer as `T`: connect, handshake, one request, close.
pub async fn call<T: DeserializeOwned>(
    port: u16,
    rpc: &GatewayRpc,
    method: &str,
    params: &impl Serialize,
) -> Result<T, RpcError> {
    let seconds = CALL_TIMEOUT.as_secs();
    tokio::time::timeout(CALL_TIMEOUT, call_now(port, rpc, method, params))
        .await
        .unwrap_or_else(|_| {
            Err(RpcError::Timeout {
                method: method.to_string(),
                seconds,
            })
        })
}

async fn call_now<T: DeserializeOwned>(
    port: u16,
    rpc: &GatewayRpc,
    method: &str,
    params: &impl Serialize,
) -> Result<T, RpcError> {
    let url = format!("ws://127.0.0.1:{port}");
    let refused = |reason: String| RpcError::Connect {
        url: url.clone(),
        reason,
    };
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .map_err(|e| refused(e.to_string()))?;
    let (mut socket, _) = tokio_tungstenite::client_async(url.as_str(), stream)
        .await
        .map_err(|e| refused(e.to_string()))?;
    let connect = ConnectParams {
        min_protocol: rpc.protocol,
        max_protocol: rpc.protocol,
        client: ClientInfo {
            id: &rpc.client_id,
            version: env!("CARGO_PKG_VERSION"),
            platform: std::env::consts::OS,
            mode: &rpc.client_mode,
        },
        role: ROLE,
        scopes: [SCOPE],
    };
    // The challenge's nonce only matters to a client that signs with a device identity.
    await_frame(&mut socket, "connect", |f| {
        f.kind == FrameKind::Event && f.event.as_deref() == Some("connect.challenge")
    })
    .await?;
    send(&mut socket, "connect", "connect", &connect).await?;
    let hello: Hello = answer(&mut socket, "connect", "connect")
        .await
        .map_err(|e| match e {
            RpcError::Failed { code, message, .. } => RpcError::Refused { code, message },
            other => other,
        })?;
    if hello.protocol != rpc.protocol {
        return Err(RpcError::Protocol {
            expected: rpc.protocol,
            got: hello.protocol,
        });
    }
    send(&mut socket, "call", method, params).await?;
    let result = answer(&mut socket, "call", method).await;
    let _ = socket.close(None).await;
    result
}

type Socket = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

async fn send(
    socket: &mut Socket,
    id: &str,
    method: &str,
    params: &impl Serialize,
) -> Result<(), RpcError> {
    let request = Request {
        kind: FrameKind::Req,
        id,
        method,
        params,
    };
    let text = serde_json::to_string(&request).map_err(|e| RpcError::Malformed {
        method: method.to_string(),
        reason: e.to_string(),
        frame: String::new(),
    })?;
    socket
        .send(Message::text(text))
        .await
        .map_err(|_| RpcError::Closed {
            method: method.to_string(),
        })
}

/// The response to request `id`, its payload read as `T`.
async fn answer<T: DeserializeOwned>(
    socket: &mut Socket,
    id: &str,
    method: &str,
) -> Result<T, RpcError> {
    let (frame, text) = await_frame(socket, method, |f| {
        f.kind == FrameKind::Res && f.id.as_deref() == Some(id)
    })
    .await?;
    if !frame.ok {
        let failure = frame.error.unwrap_or(Failure {
            code: String::new(),
            message: "no error given".into(),
        });
        return Err(RpcError::Failed {
            method: method.to_string(),
            code: failure.code,
            message: failure.message,
        });
    }
    let payload = frame.payload.as_deref().map_or("null", RawValue::get);
    serde_json::from_str(payload).map_err(|e| RpcError::Malformed {
        method: method.to_string(),
        reason: e.to_string(),
        frame: text,
    })
}

/// Reads frames until one `wanted` accepts (others, e.g. events, are passed over); the frame
/// and its text.
async fn await_frame(
    socket: &mut Socket,
    method: &str,
    wanted: impl Fn(&Incoming) -> bool,
) -> Result<(Incoming, String), RpcError> {
    let closed = || RpcError::Closed {
        method: method.to_string(),
    };
    loop {
        let message = socket
            .next()
            .await
            .ok_or_else(closed)?
            .map_err(|_| closed())?;
        let text = match message {
            Message::Text(text) => text.to_string(),
            Message::Close(_) => return Err(closed()),
            _ => continue,
        };
        let frame: Incoming = serde_json::from_str(&text).map_err(|e| RpcError::Malformed {
            method: method.to_string(),
            reason: e.to_string(),
            frame: text.clone(),
        })?;
        if wanted(&frame) {
            return Ok((frame, text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_the_protocols() {
        let connect = ConnectParams {
            min_protocol: 4,
            max_protocol: 4,
            client: ClientInfo {
                id: "gateway-client",
                version: "0.1.0",
                platform: "linux",
                mode: "backend",
            },
            role: ROLE,
            scopes: [SCOPE],
        };
        let request = Request {
            kind: FrameKind::Req,
            id: "connect",
            method: "connect",
            params: &connect,
        };
        assert_eq!(
            serde_json::to_string(&request).unwrap(),
            r#"{"type":"req","id":"connect","method":"connect","params":{"minProtocol":4,"maxProtocol":4,"client":{"id":"gateway-client","version":"0.1.0","platform":"linux","mode":"backend"},"role":"operator","scopes":["operator.admin"]}}"#
        );
        let res: Incoming = serde_json::from_str(
            r#"{"type":"res","id":"call","ok":false,"error":{"code":"INVALID_REQUEST","message":"unknown agent id"}}"#,
        )
        .unwrap();
        assert_eq!(res.kind, FrameKind::Res);
        assert_eq!(res.id.as_deref(), Some("call"));
        assert!(!res.ok);
        assert_eq!(res.error.unwrap().code, "INVALID_REQUEST");
        let event: Incoming = serde_json::from_str(
            r#"{"type":"event","event":"connect.challenge","payload":{"nonce":"n","ts":1}}"#,
        )
        .unwrap();
        assert_eq!(event.kind, FrameKind::Event);
        assert_eq!(event.event.as_deref(), Some("connect.challenge"));
        let other: Incoming = serde_json::from_str(r#"{"type":"ping"}"#).unwrap();
        assert_eq!(other.kind, FrameKind::Other);
    }

    fn rpc() -> GatewayRpc {
        GatewayRpc {
            protocol: 4,
            client_id: "gateway-client".into(),
            client_mode: "backend".into(),
        }
    }

    /// A one-connection gateway on loopback: challenge, then `hello-ok` with `protocol`, then
    /// `answer` to the call (an event first, which the client must pass over); the connect
    /// request it got.
    async fn gateway(
        protocol: u32,
        answer: &'static str,
    ) -> (u16, tokio::task::JoinHandle<String>) {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        let served = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(stream).await.unwrap();
            let challenge =
                r#"{"type":"event","event":"connect.challenge","payload":{"nonce":"n"}}"#;
            ws.send(Message::text(challenge)).await.unwrap();
            let connect = ws
                .next()
                .await
                .unwrap()
                .unwrap()
                .into_text()
                .unwrap()
                .to_string();
            let hello = format!(
                r#"{{"type":"res","id":"connect","ok":true,"payload":{{"type":"hello-ok","protocol":{protocol}}}}}"#
            );
            ws.send(Message::text(hello)).await.unwrap();
            if let Some(Ok(_call)) = ws.next().await {
                ws.send(Message::text(r#"{"type":"event","event":"tick","seq":1}"#))
                    .await
                    .unwrap();
                ws.send(Message::text(answer)).await.unwrap();
            }
            connect
        });
        (port, served)
    }

    #[tokio::test]
    async fn a_call_is_one_handshake_and_one_request() {
        let (port, served) = gateway(
            4,
            r#"{"type":"res","id":"call","ok":true,"payload":{"n":7}}"#,
        )
        .await;
        #[derive(Deserialize)]
        struct N {
            n: u32,
        }
        let got: N = call(port, &rpc(), "tools.effective", &serde_json::json!({}))
            .await
            .unwrap();
        assert_eq!(got.n, 7);
        let connect: serde_json::Value = serde_json::from_str(&served.await.unwrap()).unwrap();
        assert_eq!(connect["params"]["minProtocol"], 4);
        assert_eq!(connect["params"]["client"]["mode"], "backend");

        let (port, _) = gateway(
            4,
            r#"{"type":"res","id":"call","ok":false,"error":{"code":"INVALID_REQUEST","message":"unknown session key"}}"#,
        )
        .await;
        let err = call::<N>(port, &rpc(), "tools.effective", &())
            .await
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "tools.effective failed (INVALID_REQUEST): unknown session key"
        );

        let (port, _) = gateway(3, "").await;
        let err = call::<N>(port, &rpc(), "tools.effective", &())
            .await
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "the gateway agreed on protocol 3, the release data says 4"
        );
    }
}
