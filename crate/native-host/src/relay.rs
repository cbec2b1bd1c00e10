//! The host Chrome starts: it relays messages between the extension (stdin/stdout) and the one
//! MCP server connected on the socket at a time. It reads every message (so that a malformed or
//! oversized one becomes an error message for the other side, never a crash), but decides
//! nothing: what a message means is up to the extension's core and the MCP server.

use crate::framing::{read_message, write_message, FrameError, MAX_FROM_CHROME, MAX_TO_CHROME};
use crate::socket;
use serde_json::{json, Value};
use tokio::io::AsyncWrite;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::mpsc;

/// What the relay hears, from either side.
enum Heard {
    Chrome(Result<Option<Value>, FrameError>),
    /// From the MCP server connected as `connection`.
    Client(u64, Result<Option<Value>, FrameError>),
}

/// An error message for either side, with the request id it concerns when known.
pub fn error_message(id: Option<&Value>, message: &str) -> Value {
    let mut error = json!({"type": "error", "message": message});
    if let Some(id) = id {
        error["id"] = id.clone();
    }
    error
}

/// Relays until Chrome closes the port (the extension disconnected, or the setting was turned off).
pub async fn run() -> Result<(), String> {
    let listener = socket::listen().await.map_err(|err| format!("cannot listen for MCP servers: {err}"))?;
    let result = relay(listener).await;
    socket::remove();
    result
}

async fn relay(listener: tokio::net::UnixListener) -> Result<(), String> {
    let (heard, mut hearing) = mpsc::unbounded_channel();
    let from_chrome = heard.clone();
    tokio::spawn(async move {
        let mut stdin = tokio::io::stdin();
        loop {
            let message = read_message(&mut stdin, MAX_FROM_CHROME).await;
            let last = !matches!(message, Ok(Some(_))) && !message.as_ref().is_err_and(FrameError::is_recoverable);
            if from_chrome.send(Heard::Chrome(message)).is_err() || last {
                break;
            }
        }
    });
    let mut chrome = tokio::io::stdout();
    let mut client: Option<(u64, OwnedWriteHalf)> = None;
    let mut connections = 0u64;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let (mut reader, mut writer) = stream.into_split();
                if client.is_some() {
                    let busy = error_message(None, "Another AI app is already using the browser agent. Close it (or its MCP server) and try again.");
                    let _ = write_message(&mut writer, &busy, MAX_TO_CHROME).await;
                    continue;
                }
                connections += 1;
                let connection = connections;
                client = Some((connection, writer));
                let from_client = heard.clone();
                tokio::spawn(async move {
                    loop {
                        let message = read_message(&mut reader, MAX_FROM_CHROME).await;
                        let last = !matches!(message, Ok(Some(_))) && !message.as_ref().is_err_and(FrameError::is_recoverable);
                        if from_client.send(Heard::Client(connection, message)).is_err() || last {
                            break;
                        }
                    }
                });
            }
            Some(heard) = hearing.recv() => match heard {
                Heard::Chrome(message) => {
                    let message = match message {
                        Ok(Some(message)) => message,
                        Ok(None) => return Ok(()),
                        Err(err) if !err.is_recoverable() => return Err(format!("the link to Chrome broke: {err}")),
                        Err(err) => error_message(None, &format!("The browser extension sent a message the host could not read: {err}.")),
                    };
                    if let Some((_, writer)) = client.as_mut() {
                        if write_message(writer, &message, MAX_FROM_CHROME).await.is_err() {
                            client = None;
                        }
                    }
                }
                Heard::Client(connection, message) => {
                    if client.as_ref().is_none_or(|(current, _)| *current != connection) {
                        continue;
                    }
                    match message {
                        Ok(Some(message)) => to_chrome(&mut chrome, &mut client, message).await?,
                        Err(err) if err.is_recoverable() => {
                            let error = error_message(None, &format!("The browser agent's host refused a message: {err}."));
                            if let Some((_, writer)) = client.as_mut() {
                                let _ = write_message(writer, &error, MAX_TO_CHROME).await;
                            }
                        }
                        // The MCP server went away: the extension ends what it was doing for it.
                        Ok(None) | Err(_) => {
                            client = None;
                            write_message(&mut chrome, &json!({"type": "disconnected"}), MAX_TO_CHROME)
                                .await
                                .map_err(|err| format!("the link to Chrome broke: {err}"))?;
                        }
                    }
                }
            },
        }
    }
}

/// Passes a message on to the extension; one too large for Chrome is answered with an error.
async fn to_chrome<W: AsyncWrite + Unpin>(
    chrome: &mut W,
    client: &mut Option<(u64, OwnedWriteHalf)>,
    message: Value,
) -> Result<(), String> {
    match write_message(chrome, &message, MAX_TO_CHROME).await {
        Ok(()) => Ok(()),
        Err(err @ FrameError::TooLarge { .. }) => {
            let error = error_message(message.get("id"), &format!("The request was not sent to the browser: {err}."));
            if let Some((_, writer)) = client.as_mut() {
                let _ = write_message(writer, &error, MAX_TO_CHROME).await;
            }
            Ok(())
        }
        Err(err) => Err(format!("the link to Chrome broke: {err}")),
    }
}
