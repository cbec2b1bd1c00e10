//! The MCP server's link to the extension: through the socket of the host Chrome started, one
//! request per tool call, answered by progress messages and one result.

use crate::framing::{read_message, write_message, FrameError, MAX_FROM_CHROME, MAX_TO_CHROME};
use crate::pairing::Tokens;
use crate::socket;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::mpsc;

/// What the extension says about a call while it runs, and how it ends.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// A step done (`progress` of `total`), described.
    Progress { progress: f64, total: Option<f64>, message: String },
    /// The call waits for the user's answer in the side panel.
    Waiting { message: String },
    /// The call's outcome: text for the model, an optional picture, structured data.
    Result { ok: bool, text: String, image: Option<(String, String)>, data: Option<Value> },
}

impl Update {
    /// Reads a message from the extension (or the relay) about a call.
    pub fn from_message(message: &Value) -> Option<Update> {
        let text = |field: &str| message.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
        Some(match message.get("type")?.as_str()? {
            "progress" => Update::Progress {
                progress: message.get("progress").and_then(Value::as_f64).unwrap_or_default(),
                total: message.get("total").and_then(Value::as_f64),
                message: text("message"),
            },
            "waiting" => Update::Waiting { message: text("message") },
            "result" => Update::Result {
                ok: message.get("ok").and_then(Value::as_bool).unwrap_or(false),
                text: text("text"),
                image: message.get("image").and_then(|image| {
                    Some((image.get("mediaType")?.as_str()?.to_string(), image.get("base64")?.as_str()?.to_string()))
                }),
                data: message.get("data").filter(|data| data.is_object()).cloned(),
            },
            "error" => Update::Result { ok: false, text: text("message"), image: None, data: None },
            _ => return None,
        })
    }
}

/// Said of a call too large for Chrome to take from the host.
pub fn too_large_for_chrome(length: usize, limit: usize) -> String {
    let thousands = agent_core::text::thousands;
    format!(
        "The call was not sent to the browser: it is {} bytes long, and Chrome takes at most {} bytes (1 MiB) in one message from the agent's host. Send less: a shorter task or text, fewer or smaller files; type a long text in parts (type with \"clear\": false appends).",
        thousands(length),
        thousands(limit)
    )
}

/// Said when the extension cannot be reached: what to do about it.
pub fn not_connected(reason: &str) -> String {
    format!(
        "The browser agent is not reachable ({reason}). Open Chrome or Chromium with the Rust Browser Agent extension, and turn on \"Let AI apps use the agent (MCP)\" in its settings; if it is on, run ./build.sh install-mcp again and restart the browser."
    )
}

type Pending = Arc<Mutex<HashMap<u64, mpsc::UnboundedSender<Update>>>>;

struct Connection {
    writer: tokio::sync::Mutex<OwnedWriteHalf>,
    pending: Pending,
    /// Cleared when the socket closes, so that the next call connects again.
    open: Arc<std::sync::atomic::AtomicBool>,
}

/// Connects on first use, and again after the browser went away.
#[derive(Default)]
pub struct Link {
    connection: tokio::sync::Mutex<Option<Arc<Connection>>>,
    next_id: AtomicU64,
    /// The socket to connect to; the usual one when `None`.
    socket: Option<std::path::PathBuf>,
    /// The tokens the browser gave apps the user allowed "Always".
    tokens: Tokens,
}

/// A call in flight: its updates, and its id to cancel it by.
pub struct Call {
    pub id: u64,
    pub updates: mpsc::UnboundedReceiver<Update>,
    connection: Arc<Connection>,
}

impl Call {
    /// Asks the extension to stop this call (the client cancelled it).
    pub async fn cancel(&self) {
        let message = json!({"type": "cancel", "id": self.id});
        let _ = write_message(&mut *self.connection.writer.lock().await, &message, MAX_TO_CHROME).await;
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        self.connection.pending.lock().expect("pending calls").remove(&self.id);
    }
}

impl Link {
    /// A link to the socket at `path`.
    #[cfg(test)]
    pub fn at(path: std::path::PathBuf) -> Link {
        Link { socket: Some(path), ..Link::default() }
    }

    /// A link to the socket at `path`, keeping the apps' tokens in `tokens`.
    #[cfg(test)]
    pub fn with_tokens(path: std::path::PathBuf, tokens: Tokens) -> Link {
        Link { socket: Some(path), tokens, ..Link::default() }
    }

    async fn connection(&self) -> Result<Arc<Connection>, String> {
        let mut current = self.connection.lock().await;
        if let Some(connection) = current.as_ref().filter(|c| c.open.load(Ordering::SeqCst)) {
            return Ok(Arc::clone(connection));
        }
        let stream = socket::connect(self.socket.as_deref()).await.map_err(|err| not_connected(&err.to_string()))?;
        let (mut reader, writer) = stream.into_split();
        greeting(&mut reader).await?;
        let pending: Pending = Arc::default();
        let open = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let connection = Arc::new(Connection {
            writer: tokio::sync::Mutex::new(writer),
            pending: Arc::clone(&pending),
            open: Arc::clone(&open),
        });
        let tokens = self.tokens.clone();
        tokio::spawn(async move {
            loop {
                match read_message(&mut reader, MAX_FROM_CHROME).await {
                    Ok(Some(message)) if message.get("type").and_then(Value::as_str) == Some("paired") => {
                        keep_token(&tokens, &message)
                    }
                    Ok(Some(message)) => dispatch(&pending, &message),
                    Err(err) if err.is_recoverable() => {
                        let problem = format!("The browser agent's host sent a message that could not be read: {err}.");
                        dispatch(&pending, &json!({"type": "error", "message": problem}));
                    }
                    Ok(None) | Err(_) => break,
                }
            }
            open.store(false, Ordering::SeqCst);
            let gone = Update::Result {
                ok: false,
                text: "The browser closed the connection: the extension's MCP setting was turned off, or the browser quit.".into(),
                image: None,
                data: None,
            };
            for (_, updates) in pending.lock().expect("pending calls").drain() {
                let _ = updates.send(gone.clone());
            }
        });
        *current = Some(Arc::clone(&connection));
        Ok(connection)
    }

    /// The app went away: the connection to the browser closes, so that the extension ends what
    /// the app's calls have under way there (withdrawing what they wait for), they end here too,
    /// and the next app is let in.
    pub async fn close(&self) {
        let Some(connection) = self.connection.lock().await.take() else { return };
        let _ = connection.writer.lock().await.shutdown().await;
    }

    /// Sends a tool call to the extension, with the app's token when the user allowed it "Always".
    pub async fn call(&self, tool: &str, args: Value, client: &str) -> Result<Call, String> {
        let connection = self.connection().await?;
        let id = self.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        let (sender, updates) = mpsc::unbounded_channel();
        connection.pending.lock().expect("pending calls").insert(id, sender);
        let call = Call { id, updates, connection: Arc::clone(&connection) };
        let mut message = json!({"type": "call", "id": id, "tool": tool, "args": args, "client": client});
        if let Some(token) = self.tokens.get(client) {
            message["token"] = Value::from(token);
        }
        write_message(&mut *connection.writer.lock().await, &message, MAX_TO_CHROME).await.map_err(
            |err| match err {
                FrameError::TooLarge { length, limit } => too_large_for_chrome(length, limit),
                err => format!("The call could not be sent to the browser: {err}."),
            },
        )?;
        Ok(call)
    }
}

/// How long the browser's host may take to greet a new connection.
const GREETING_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Reads the relay's first word on a new connection: ready, or busy with another app (said as
/// the relay says it).
async fn greeting<R: tokio::io::AsyncRead + Unpin>(reader: &mut R) -> Result<(), String> {
    let greeting = tokio::time::timeout(GREETING_WAIT, read_message(reader, MAX_FROM_CHROME)).await.map_err(|_| {
        not_connected("its host did not answer within 10 s; if it was just updated, an older version may still run: turn the setting off and on again")
    })?;
    match greeting {
        Ok(Some(message)) => match message.get("type").and_then(Value::as_str) {
            Some("ready") => Ok(()),
            Some("busy") => {
                Err(message.get("message").and_then(Value::as_str).unwrap_or(crate::relay::BUSY).to_string())
            }
            other => Err(not_connected(&format!(
                "its host answered with {} instead of a greeting",
                other.unwrap_or("a message without a type")
            ))),
        },
        Ok(None) => Err(not_connected("its host closed the connection at once")),
        Err(err) => Err(not_connected(&err.to_string())),
    }
}

/// Keeps the token the browser gave an app the user allowed "Always" (`{"type": "paired",
/// "client": ..., "token": ...}`); a token that cannot be kept means the user is asked again.
fn keep_token(tokens: &Tokens, message: &Value) {
    let field = |name: &str| message.get(name).and_then(Value::as_str).filter(|value| !value.is_empty());
    if let (Some(client), Some(token)) = (field("client"), field("token")) {
        if let Err(err) = tokens.save(client, token) {
            eprintln!("rust-browser-agent-mcp: the browser's token for {client} could not be kept ({err}); the browser will ask again");
        }
    }
}

/// Hands a message to the call it is about; one about no call in particular goes to every call.
fn dispatch(pending: &Pending, message: &Value) {
    let Some(update) = Update::from_message(message) else { return };
    let pending = pending.lock().expect("pending calls");
    match message.get("id").and_then(Value::as_u64) {
        Some(id) => {
            if let Some(updates) = pending.get(&id) {
                let _ = updates.send(update);
            }
        }
        None => {
            for updates in pending.values() {
                let _ = updates.send(update.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_extensions_updates() {
        assert_eq!(
            Update::from_message(
                &json!({"type": "progress", "id": 1, "progress": 2, "total": 10, "message": "Step 2"})
            ),
            Some(Update::Progress { progress: 2.0, total: Some(10.0), message: "Step 2".into() })
        );
        assert_eq!(
            Update::from_message(
                &json!({"type": "result", "id": 1, "ok": true, "text": "done", "image": {"mediaType": "image/jpeg", "base64": "AA=="}})
            ),
            Some(Update::Result {
                ok: true,
                text: "done".into(),
                image: Some(("image/jpeg".into(), "AA==".into())),
                data: None
            })
        );
        // The relay's errors end the call they name, as a failed result.
        assert_eq!(
            Update::from_message(&json!({"type": "error", "id": 3, "message": "too large"})),
            Some(Update::Result { ok: false, text: "too large".into(), image: None, data: None })
        );
        assert_eq!(Update::from_message(&json!({"type": "surprise"})), None);
        assert_eq!(Update::from_message(&json!("not an object")), None);
    }

    #[test]
    fn a_message_without_a_call_goes_to_every_call() {
        let pending: Pending = Arc::default();
        let (first, mut first_updates) = mpsc::unbounded_channel();
        let (second, mut second_updates) = mpsc::unbounded_channel();
        pending.lock().unwrap().extend([(1, first), (2, second)]);
        dispatch(&pending, &json!({"type": "waiting", "id": 2, "message": "Waiting"}));
        dispatch(&pending, &json!({"type": "error", "message": "bad frame"}));
        assert!(matches!(first_updates.try_recv(), Ok(Update::Result { ok: false, .. })));
        assert_eq!(second_updates.try_recv().unwrap(), Update::Waiting { message: "Waiting".into() });
        assert!(matches!(second_updates.try_recv(), Ok(Update::Result { ok: false, .. })));
    }
}
