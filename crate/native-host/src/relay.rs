//! The host Chrome starts: it relays messages between the extension (stdin/stdout) and the one
//! MCP server connected on the socket at a time. It reads every message (so that a malformed or
//! oversized one becomes an error message for the other side, never a crash), but decides
//! nothing: what a message means is up to the extension's core and the MCP server.

use crate::framing::{read_message, write_message, FrameError, MAX_FROM_CHROME, MAX_TO_CHROME};
use crate::socket;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::UnixListener;
use tokio::sync::mpsc;

/// How long a new MCP server waits, when another is connected, for the relay to hear that the
/// other has gone: an app that reconnects at once must not be turned away by its own last
/// connection, whose end the relay may not have read yet.
const CLOSE_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// Why a second MCP server is turned away.
pub const BUSY: &str = "Another AI app is already using the browser agent. Close it (or its MCP server) and try again.";

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
    let result = relay(listener, tokio::io::stdin(), tokio::io::stdout()).await;
    socket::remove();
    result
}

/// Relays between Chrome (what it sends on `chrome_in`, what it is sent on `chrome`) and the MCP
/// server connected to `listener`.
async fn relay<I, O>(listener: UnixListener, mut chrome_in: I, mut chrome: O) -> Result<(), String>
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin,
{
    let (heard, mut hearing) = mpsc::unbounded_channel();
    let from_chrome = heard.clone();
    tokio::spawn(async move {
        loop {
            let message = read_message(&mut chrome_in, MAX_FROM_CHROME).await;
            let last = !matches!(message, Ok(Some(_))) && !message.as_ref().is_err_and(FrameError::is_recoverable);
            if from_chrome.send(Heard::Chrome(message)).is_err() || last {
                break;
            }
        }
    });
    let mut client: Option<(u64, OwnedWriteHalf)> = None;
    let mut connections = 0u64;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let (mut reader, mut writer) = stream.into_split();
                // The MCP server reads this greeting before it sends anything, so that a refusal
                // always reaches it (a call it wrote to a socket closed meanwhile would fail as a
                // broken pipe instead).
                let grace = tokio::time::sleep(CLOSE_GRACE);
                tokio::pin!(grace);
                while client.is_some() {
                    tokio::select! {
                        _ = &mut grace => break,
                        Some(heard) = hearing.recv() => {
                            if serve(heard, &mut client, &mut chrome).await? {
                                return Ok(());
                            }
                        }
                    }
                }
                if client.is_some() {
                    let _ = write_message(&mut writer, &json!({"type": "busy", "message": BUSY}), MAX_TO_CHROME).await;
                    continue;
                }
                if write_message(&mut writer, &json!({"type": "ready"}), MAX_TO_CHROME).await.is_err() {
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
            Some(heard) = hearing.recv() => {
                if serve(heard, &mut client, &mut chrome).await? {
                    return Ok(());
                }
            }
        }
    }
}

/// Acts on what the relay heard; true when Chrome closed the port (the relay is done).
async fn serve<O: AsyncWrite + Unpin>(
    heard: Heard,
    client: &mut Option<(u64, OwnedWriteHalf)>,
    chrome: &mut O,
) -> Result<bool, String> {
    match heard {
        Heard::Chrome(message) => {
            let message = match message {
                Ok(Some(message)) => message,
                Ok(None) => return Ok(true),
                Err(err) if !err.is_recoverable() => return Err(format!("the link to Chrome broke: {err}")),
                Err(err) => error_message(
                    None,
                    &format!("The browser extension sent a message the host could not read: {err}."),
                ),
            };
            if let Some((_, writer)) = client.as_mut() {
                if write_message(writer, &message, MAX_FROM_CHROME).await.is_err() {
                    *client = None;
                }
            }
        }
        // From a connection that is no longer the one served: nothing to do.
        Heard::Client(connection, _) if client.as_ref().is_none_or(|(current, _)| *current != connection) => {}
        Heard::Client(_, message) => match message {
            Ok(Some(message)) => to_chrome(chrome, client, message).await?,
            Err(err) if err.is_recoverable() => {
                let error = error_message(None, &format!("The browser agent's host refused a message: {err}."));
                if let Some((_, writer)) = client.as_mut() {
                    let _ = write_message(writer, &error, MAX_TO_CHROME).await;
                }
            }
            // The MCP server went away: the extension ends what it was doing for it.
            Ok(None) | Err(_) => {
                *client = None;
                write_message(chrome, &json!({"type": "disconnected"}), MAX_TO_CHROME)
                    .await
                    .map_err(|err| format!("the link to Chrome broke: {err}"))?;
            }
        },
    }
    Ok(false)
}

/// Passes a message on to the extension; one too large for Chrome is answered with an error.
async fn to_chrome<W: AsyncWrite + Unpin>(
    chrome: &mut W,
    client: &mut Option<(u64, OwnedWriteHalf)>,
    message: Value,
) -> Result<(), String> {
    match write_message(chrome, &message, MAX_TO_CHROME).await {
        Ok(()) => Ok(()),
        Err(FrameError::TooLarge { length, limit }) => {
            let error = error_message(message.get("id"), &crate::link::too_large_for_chrome(length, limit));
            if let Some((_, writer)) = client.as_mut() {
                let _ = write_message(writer, &error, MAX_TO_CHROME).await;
            }
            Ok(())
        }
        Err(err) => Err(format!("the link to Chrome broke: {err}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::{Link, Update};
    use tokio::io::DuplexStream;

    /// A relay on a socket in a fresh folder; the socket's path and the extension's end of the
    /// link to Chrome (what the relay sends Chrome, and what Chrome answers).
    fn relay_on_socket(
        name: &str,
    ) -> (std::path::PathBuf, tokio::io::ReadHalf<DuplexStream>, tokio::io::WriteHalf<DuplexStream>) {
        let dir = std::env::temp_dir().join(format!("rba-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mcp.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let (extension, host) = tokio::io::duplex(1 << 16);
        let (chrome_in, chrome_out) = tokio::io::split(host);
        tokio::spawn(relay(listener, chrome_in, chrome_out));
        let (from_host, to_host) = tokio::io::split(extension);
        (path, from_host, to_host)
    }

    /// A relay with a stand-in for the extension that answers every call with "served"; the
    /// socket's path.
    fn relay_with_extension(name: &str) -> std::path::PathBuf {
        let (path, mut from_host, mut to_host) = relay_on_socket(name);
        tokio::spawn(async move {
            while let Ok(Some(message)) = read_message(&mut from_host, MAX_TO_CHROME).await {
                if message["type"] == "call" {
                    let served = json!({"type": "result", "id": message["id"], "ok": true, "text": "served"});
                    write_message(&mut to_host, &served, MAX_FROM_CHROME).await.unwrap();
                }
            }
        });
        path
    }

    async fn outcome(link: &Link) -> Result<String, String> {
        let mut call = link.call("list_tabs", json!({}), "An app").await?;
        match call.updates.recv().await {
            Some(Update::Result { ok: true, text, .. }) => Ok(text),
            Some(Update::Result { ok: false, text, .. }) => Err(text),
            other => Err(format!("no result: {other:?}")),
        }
    }

    /// The second app's host connects and sends its call at once, while the relay answers that
    /// it is busy and closes: the refusal must arrive, every time, never a broken pipe.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_second_app_is_always_told_that_another_app_uses_the_agent() {
        let path = relay_with_extension("busy");
        let first = Link::at(path.clone());
        assert_eq!(outcome(&first).await, Ok("served".to_string()));
        // (Each refusal waits the grace in which the first could be found gone.)
        for attempt in 1..=50 {
            let second = Link::at(path.clone());
            let refused = outcome(&second).await.expect_err("the second app is refused");
            assert!(
                refused.starts_with("Another AI app is already using the browser agent."),
                "attempt {attempt}: {refused}"
            );
        }
        // The first app is still served.
        assert_eq!(outcome(&first).await, Ok("served".to_string()));
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// An app that closes and connects again at once is served, never turned away by its own
    /// last connection, however soon it comes back.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_app_that_reconnects_at_once_is_served_not_told_it_is_busy() {
        let path = relay_with_extension("again");
        for attempt in 1..=100 {
            let link = Link::at(path.clone());
            assert_eq!(outcome(&link).await, Ok("served".to_string()), "attempt {attempt}");
            drop(link);
        }
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// The extension gives the app a token when the user allows it "Always": the app's server
    /// keeps it, and shows it with its calls from then on, on a new connection too.
    #[tokio::test]
    async fn the_token_the_browser_gives_an_app_is_kept_and_shown_with_its_next_calls() {
        let (path, mut from_host, mut to_host) = relay_on_socket("paired");
        let dir = path.parent().unwrap().to_path_buf();
        // Told when the relay says an app went away, so that the next one is not turned away as busy.
        let (gone, mut departures) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(Some(message)) = read_message(&mut from_host, MAX_TO_CHROME).await {
                if message["type"] == "disconnected" {
                    let _ = gone.send(());
                }
                if message["type"] != "call" {
                    continue;
                }
                let text = match message["token"].as_str() {
                    Some(token) => format!("token {token}"),
                    None => {
                        let paired = json!({"type": "paired", "client": message["client"], "token": "t0ken"});
                        write_message(&mut to_host, &paired, MAX_FROM_CHROME).await.unwrap();
                        "no token".to_string()
                    }
                };
                let served = json!({"type": "result", "id": message["id"], "ok": true, "text": text});
                write_message(&mut to_host, &served, MAX_FROM_CHROME).await.unwrap();
            }
        });
        let tokens = crate::pairing::Tokens::at(dir.join("apps.json"));
        let first = Link::with_tokens(path.clone(), tokens.clone());
        assert_eq!(outcome(&first).await, Ok("no token".to_string()));
        assert_eq!(outcome(&first).await, Ok("token t0ken".to_string()));
        drop(first);
        departures.recv().await.expect("the relay tells the extension that the app went away");
        let again = Link::with_tokens(path.clone(), tokens.clone());
        assert_eq!(outcome(&again).await, Ok("token t0ken".to_string()));
        // Another app has a token of its own, or none.
        let mut call = again.call("list_tabs", json!({}), "Other app").await.unwrap();
        assert!(matches!(call.updates.recv().await, Some(Update::Result { text, .. }) if text == "no token"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// An app whose server closes its link while a call waits for the user (its app went away):
    /// the extension hears at once that it is gone, the call ends, and the next app is served.
    #[tokio::test]
    async fn an_app_gone_while_its_call_waits_is_told_to_the_extension_at_once_and_the_next_is_served() {
        let (path, mut from_host, mut to_host) = relay_on_socket("gone");
        let (heard, mut hearing) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(Some(message)) = read_message(&mut from_host, MAX_TO_CHROME).await {
                // The first app's call waits for the user, who does not answer; the next app's is served.
                if message["type"] == "call" && message["client"] == "Next app" {
                    let served = json!({"type": "result", "id": message["id"], "ok": true, "text": "served"});
                    write_message(&mut to_host, &served, MAX_FROM_CHROME).await.unwrap();
                }
                let _ = heard.send(message["type"].as_str().unwrap_or_default().to_string());
            }
        });
        let first = Link::at(path.clone());
        let mut waiting = first.call("click", json!({"index": 1}), "First app").await.unwrap();
        assert_eq!(hearing.recv().await.as_deref(), Some("call"));
        first.close().await;
        /// What `what` gives, which must come at once (not after a wait for the call).
        async fn at_once<F: std::future::Future>(what: F) -> F::Output {
            tokio::time::timeout(std::time::Duration::from_secs(2), what).await.expect("at once")
        }
        assert_eq!(at_once(hearing.recv()).await.as_deref(), Some("disconnected"));
        let ended = at_once(waiting.updates.recv()).await;
        assert!(matches!(ended, Some(Update::Result { ok: false, .. })), "{ended:?}");
        let next = Link::at(path.clone());
        let mut call = next.call("list_tabs", json!({}), "Next app").await.unwrap();
        let served = at_once(call.updates.recv()).await;
        assert!(matches!(served, Some(Update::Result { ok: true, .. })), "{served:?}");
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[tokio::test]
    async fn a_call_too_large_for_chrome_is_refused_with_the_limit_and_the_next_one_served() {
        let path = relay_with_extension("large");
        let link = Link::at(path.clone());
        let refused = link.call("run_task", json!({"task": "x".repeat(MAX_TO_CHROME)}), "An app").await.err();
        let refused = refused.expect("refused before it is sent");
        assert!(
            refused.starts_with("The call was not sent to the browser: it is 1,048,6")
                && refused.contains(
                    "Chrome takes at most 1,048,576 bytes (1 MiB) in one message from the agent's host. Send less"
                ),
            "{refused}"
        );
        assert_eq!(outcome(&link).await, Ok("served".to_string()));
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
