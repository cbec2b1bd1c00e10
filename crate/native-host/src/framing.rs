//! Chrome's native messaging framing: each message is a 32-bit length in native byte order, then
//! that many bytes of UTF-8 JSON. The same framing carries messages over the host's Unix socket,
//! so one reader and one writer serve both links.

use serde_json::Value;
use std::fmt;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Chrome refuses a message from a host larger than 1 MB.
pub const MAX_TO_CHROME: usize = 1024 * 1024;
/// Chrome sends a host at most 64 MiB in one message; nothing larger is read, on either link.
pub const MAX_FROM_CHROME: usize = 64 * 1024 * 1024;

#[derive(Debug)]
pub enum FrameError {
    /// The link broke (or closed in the middle of a message).
    Io(std::io::Error),
    /// A message longer than the limit; when reading, its bytes were skipped, so the link stays
    /// usable.
    TooLarge { length: usize, limit: usize },
    /// A message that is not JSON; its bytes were read, so the link stays usable.
    BadJson(serde_json::Error),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Io(err) => write!(f, "the connection failed ({err})"),
            FrameError::TooLarge { length, limit } => {
                write!(f, "a message of {length} bytes is larger than the limit of {limit} bytes")
            }
            FrameError::BadJson(err) => write!(f, "a message was not valid JSON ({err})"),
        }
    }
}

impl FrameError {
    /// Whether the link can still be read after this error.
    pub fn is_recoverable(&self) -> bool {
        !matches!(self, FrameError::Io(_))
    }
}

/// Reads one message; `Ok(None)` when the link closed cleanly between messages.
pub async fn read_message<R: AsyncRead + Unpin>(reader: &mut R, limit: usize) -> Result<Option<Value>, FrameError> {
    let mut prefix = [0u8; 4];
    let mut filled = 0;
    while filled < prefix.len() {
        match reader.read(&mut prefix[filled..]).await.map_err(FrameError::Io)? {
            0 if filled == 0 => return Ok(None),
            0 => return Err(FrameError::Io(std::io::ErrorKind::UnexpectedEof.into())),
            read => filled += read,
        }
    }
    let length = u32::from_ne_bytes(prefix) as usize;
    if length > limit {
        let skipped = tokio::io::copy(&mut (&mut *reader).take(length as u64), &mut tokio::io::sink())
            .await
            .map_err(FrameError::Io)?;
        if skipped < length as u64 {
            return Err(FrameError::Io(std::io::ErrorKind::UnexpectedEof.into()));
        }
        return Err(FrameError::TooLarge { length, limit });
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).await.map_err(FrameError::Io)?;
    serde_json::from_slice(&body).map(Some).map_err(FrameError::BadJson)
}

/// Writes one message, refusing (before writing anything) one longer than `limit`.
pub async fn write_message<W: AsyncWrite + Unpin>(
    writer: &mut W,
    message: &Value,
    limit: usize,
) -> Result<(), FrameError> {
    let body = serde_json::to_vec(message).map_err(FrameError::BadJson)?;
    if body.len() > limit {
        return Err(FrameError::TooLarge { length: body.len(), limit });
    }
    let length = u32::try_from(body.len()).map_err(|_| FrameError::TooLarge { length: body.len(), limit })?;
    writer.write_all(&length.to_ne_bytes()).await.map_err(FrameError::Io)?;
    writer.write_all(&body).await.map_err(FrameError::Io)?;
    writer.flush().await.map_err(FrameError::Io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut bytes = (body.len() as u32).to_ne_bytes().to_vec();
        bytes.extend_from_slice(body);
        bytes
    }

    #[tokio::test]
    async fn a_message_is_its_native_endian_length_then_its_json() {
        let mut written = Vec::new();
        write_message(&mut written, &json!({"type": "call", "id": 1}), MAX_TO_CHROME).await.unwrap();
        let body = br#"{"type":"call","id":1}"#;
        assert_eq!(written, frame(body));
        assert_eq!(&written[..4], &(body.len() as u32).to_ne_bytes());
        let mut reader = written.as_slice();
        assert_eq!(read_message(&mut reader, MAX_FROM_CHROME).await.unwrap(), Some(json!({"type": "call", "id": 1})));
        assert!(read_message(&mut reader, MAX_FROM_CHROME).await.unwrap().is_none(), "clean end after a message");
    }

    #[tokio::test]
    async fn a_message_over_the_limit_is_refused_before_anything_is_written() {
        let mut written = Vec::new();
        let big = json!({"text": "x".repeat(MAX_TO_CHROME)});
        let err = write_message(&mut written, &big, MAX_TO_CHROME).await.unwrap_err();
        assert!(matches!(err, FrameError::TooLarge { limit: MAX_TO_CHROME, .. }), "{err}");
        assert!(err.to_string().contains("larger than the limit of 1048576 bytes"));
        assert!(written.is_empty());
        // Exactly at the limit is allowed.
        let body_len = serde_json::to_vec(&json!({"t": ""})).unwrap().len();
        let at_limit = json!({"t": "y".repeat(MAX_TO_CHROME - body_len)});
        write_message(&mut written, &at_limit, MAX_TO_CHROME).await.unwrap();
        assert_eq!(written.len(), MAX_TO_CHROME + 4);
    }

    #[tokio::test]
    async fn an_oversized_incoming_message_is_skipped_and_the_next_one_read() {
        let mut bytes = frame(&[b' '; 100]);
        bytes.extend(frame(br#"{"ok":true}"#));
        let mut reader = bytes.as_slice();
        let err = read_message(&mut reader, 50).await.unwrap_err();
        assert!(matches!(err, FrameError::TooLarge { length: 100, limit: 50 }));
        assert!(err.is_recoverable());
        assert_eq!(read_message(&mut reader, 50).await.unwrap(), Some(json!({"ok": true})));
    }

    #[tokio::test]
    async fn bad_json_is_an_error_that_leaves_the_link_usable() {
        let mut bytes = frame(b"{not json");
        bytes.extend(frame(b"\xff\xfe"));
        bytes.extend(frame(b"[1]"));
        let mut reader = bytes.as_slice();
        let err = read_message(&mut reader, MAX_FROM_CHROME).await.unwrap_err();
        assert!(matches!(err, FrameError::BadJson(_)) && err.to_string().starts_with("a message was not valid JSON"));
        assert!(matches!(read_message(&mut reader, MAX_FROM_CHROME).await, Err(FrameError::BadJson(_))));
        assert_eq!(read_message(&mut reader, MAX_FROM_CHROME).await.unwrap(), Some(json!([1])));
    }

    #[tokio::test]
    async fn a_message_cut_short_breaks_the_link() {
        let mut bytes = frame(br#"{"a":1}"#);
        bytes.truncate(6);
        let err = read_message(&mut bytes.as_slice(), MAX_FROM_CHROME).await.unwrap_err();
        assert!(matches!(err, FrameError::Io(_)) && !err.is_recoverable());
        // A length prefix cut short is a clean end only when nothing of it arrived.
        assert!(matches!(read_message(&mut [1u8, 0].as_slice(), MAX_FROM_CHROME).await, Err(FrameError::Io(_))));
        assert!(read_message(&mut [0u8; 0].as_slice(), MAX_FROM_CHROME).await.unwrap().is_none());
        // An oversized message cut short breaks the link too.
        let mut oversized = 1000u32.to_ne_bytes().to_vec();
        oversized.extend([b' '; 10]);
        assert!(matches!(read_message(&mut oversized.as_slice(), 50).await, Err(FrameError::Io(_))));
    }
}
