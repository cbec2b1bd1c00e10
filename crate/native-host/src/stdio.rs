//! The MCP server's stdio, one JSON-RPC message a line. rmcp reads lines of at most 16 MiB and
//! drops a longer one without a word, so a client that waits for the answer waits for ever.
//! Lines are read here first: one within the limit goes on to rmcp as it came; in place of a
//! longer one (its bytes skipped, never held), rmcp gets a small request with the same id, which
//! the server answers with an error saying how large the request was and what the limit is.

use serde_json::{json, Value};
use std::io;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The longest line (one message, its newline included) read: rmcp's own limit.
pub const MAX_REQUEST_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
/// The request that stands for one too large to read.
pub const TOO_LARGE_METHOD: &str = "rust-browser-agent/request-too-large";

/// The MCP transport over stdin and stdout, with stdin's lines checked as above; `ended` runs
/// once stdin has ended (the client closed it, or quit).
pub fn transport(
    ended: impl std::future::Future<Output = ()> + Send + 'static,
) -> (tokio::io::DuplexStream, tokio::io::Stdout) {
    let (lines, rmcp_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Err(err) = pass_lines(tokio::io::stdin(), lines, MAX_REQUEST_BYTES).await {
            eprintln!("rust-browser-agent-mcp: reading the MCP client's messages failed: {err}");
        }
        ended.await;
    });
    (rmcp_side, tokio::io::stdout())
}

/// Copies `input` to `output` line by line; a line longer than `limit` becomes the request
/// [`TOO_LARGE_METHOD`] with its id (a message without one, a notification, is only logged).
/// Ends when `input` ends, closing `output`.
pub async fn pass_lines<R, W>(input: R, mut output: W, limit: usize) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    let mut length = 0usize;
    let mut fields = TopFields::default();
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            // A last line without its newline goes on as it is (rmcp ignores it too).
            if length <= limit {
                output.write_all(&line).await?;
            }
            return output.shutdown().await;
        }
        let newline = available.iter().position(|&byte| byte == b'\n');
        let taken = newline.map_or(available.len(), |at| at + 1);
        let chunk = &available[..taken];
        fields.read(chunk);
        length += taken;
        if length <= limit {
            line.extend_from_slice(chunk);
        } else if !line.is_empty() {
            line = Vec::new();
        }
        input.consume(taken);
        if newline.is_none() {
            continue;
        }
        if length <= limit {
            output.write_all(&line).await?;
        } else {
            match fields.stand_in(length, limit) {
                Some(request) => output.write_all(format!("{request}\n").as_bytes()).await?,
                None => eprintln!(
                    "rust-browser-agent-mcp: ignored a message of {length} bytes without an id (the limit is {limit} bytes)"
                ),
            }
        }
        line.clear();
        length = 0;
        fields = TopFields::default();
    }
}

/// The `id` and `method` of a JSON object read a piece at a time, without keeping the rest: the
/// raw text of each value at the top level, short ones only.
#[derive(Default)]
struct TopFields {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The text of the current key or value at the top level, up to `SHORT` bytes.
    token: Vec<u8>,
    /// The current value is longer than `SHORT` bytes, or an object or array.
    long: bool,
    /// The key whose value is being read (at the top level).
    key: Option<Vec<u8>>,
    id: Option<Vec<u8>>,
    method: Option<Vec<u8>>,
}

/// The longest id or method kept (longer ones are not of MCP's making).
const SHORT: usize = 256;

impl TopFields {
    fn read(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.byte(byte);
        }
    }

    fn keep(&mut self, byte: u8) {
        if self.depth == 1 {
            if self.token.len() < SHORT {
                self.token.push(byte);
            } else {
                self.long = true;
            }
        }
    }

    fn byte(&mut self, byte: u8) {
        if self.in_string {
            self.keep(byte);
            match (self.escaped, byte) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.in_string = false,
                _ => {}
            }
            return;
        }
        match byte {
            b'"' => {
                self.in_string = true;
                self.keep(byte);
            }
            b'{' | b'[' => {
                if self.depth == 1 {
                    self.long = true;
                }
                self.depth += 1;
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.end_value();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b':' if self.depth == 1 => {
                self.key = Some(std::mem::take(&mut self.token));
                self.long = false;
            }
            b',' if self.depth == 1 => self.end_value(),
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => self.keep(byte),
        }
    }

    fn end_value(&mut self) {
        let value = std::mem::take(&mut self.token);
        let long = std::mem::take(&mut self.long);
        match self.key.take().as_deref() {
            Some(b"\"id\"") if !long => self.id = Some(value),
            Some(b"\"method\"") if !long => self.method = Some(value),
            _ => {}
        }
    }

    /// The request that stands for this message, `length` bytes long: with its id, a number or
    /// a string, and its method when it had one.
    fn stand_in(&self, length: usize, limit: usize) -> Option<Value> {
        let id: Value = serde_json::from_slice(self.id.as_deref()?).ok()?;
        if !(id.is_number() || id.is_string()) {
            return None;
        }
        let method = self.method.as_deref().and_then(|raw| serde_json::from_slice::<Value>(raw).ok());
        let method = method.filter(Value::is_string).unwrap_or(Value::Null);
        Some(json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": TOO_LARGE_METHOD,
            "params": {"bytes": length, "limit": limit, "method": method},
        }))
    }
}

/// What the client is told about a request too large to read.
pub fn too_large(bytes: u64, limit: u64, method: Option<&str>) -> String {
    let thousands = |n: u64| agent_core::text::thousands(n as usize);
    let what = match method {
        Some("tools/call") => "The tool call".to_string(),
        Some(method) => format!("The request {method}"),
        None => "The request".to_string(),
    };
    format!(
        "{what} is {} bytes long, more than the {} bytes ({} MiB) the browser agent's MCP server reads in one message, so it was not read. Send less: a tool call reaches the browser only within {} bytes (1 MiB); type a long text in parts (type with \"clear\": false appends).",
        thousands(bytes),
        thousands(limit),
        limit / (1024 * 1024),
        thousands(crate::framing::MAX_TO_CHROME as u64),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn passed(input: &[u8], limit: usize) -> String {
        let mut output = Vec::new();
        pass_lines(input, &mut output, limit).await.unwrap();
        String::from_utf8(output).unwrap()
    }

    fn request(id: &str, text_bytes: usize) -> String {
        // As the TypeScript SDK writes it: the id after the params.
        format!(
            r#"{{"method":"tools/call","params":{{"name":"type","arguments":{{"index":1,"text":"{}","nested":[{{"id":99}}]}}}},"jsonrpc":"2.0","id":{id}}}"#,
            "x".repeat(text_bytes)
        ) + "\n"
    }

    #[tokio::test]
    async fn lines_within_the_limit_pass_unchanged() {
        let input = format!("{}\n{}", request("1", 10), request("2", 20));
        assert_eq!(passed(input.as_bytes(), 1000).await, input);
        // Exactly at the limit, its newline included, is within it.
        let line = request("3", 10);
        assert_eq!(passed(line.as_bytes(), line.len()).await, line);
    }

    #[tokio::test]
    async fn a_longer_line_becomes_a_request_with_its_id_and_the_next_line_passes() {
        let big = request("7", 5000);
        let input = format!("{big}{}", request("8", 10));
        let output = passed(input.as_bytes(), 1000).await;
        let mut lines = output.lines();
        let stand_in: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        assert_eq!(
            stand_in,
            json!({"jsonrpc": "2.0", "id": 7, "method": TOO_LARGE_METHOD,
                   "params": {"bytes": big.len(), "limit": 1000, "method": "tools/call"}})
        );
        assert_eq!(format!("{}\n", lines.next().unwrap()), request("8", 10));
        assert_eq!(lines.next(), None);
    }

    /// The id of the request standing for `line`, shortened to the limit of 30 bytes.
    async fn stand_in_id(line: String) -> Option<Value> {
        let output = passed(format!("{line}\n").as_bytes(), 30).await;
        serde_json::from_str::<Value>(output.trim()).ok().map(|request| request["id"].clone())
    }

    #[tokio::test]
    async fn the_id_is_found_at_the_top_level_only_whatever_its_kind_and_place() {
        let text = "y".repeat(100);
        let line = format!(r#"{{"jsonrpc":"2.0","id":"a\"b","params":{{"id":5,"t":"{text}"}}}}"#);
        assert_eq!(stand_in_id(line).await, Some(json!("a\"b")));
        let line = format!(r#"{{ "params" : {{"id":5}}, "t":"{text} \"id\":6", "id" : 12 }}"#);
        assert_eq!(stand_in_id(line).await, Some(json!(12)));
        // A notification (no id) has no answer; an id that is not a number or string is none.
        assert_eq!(
            stand_in_id(format!(r#"{{"method":"notifications/x","params":{{"id":5,"t":"{text}"}}}}"#)).await,
            None
        );
        assert_eq!(stand_in_id(format!(r#"{{"id":{{"n":1}},"t":"{text}"}}"#)).await, None);
        assert_eq!(stand_in_id(format!(r#"{{"id":null,"t":"{text}"}}"#)).await, None);
    }

    #[tokio::test]
    async fn a_long_line_read_in_pieces_is_one_line() {
        // Read in small pieces, as a pipe gives it; the limit applies to the line, not the piece.
        let (mut client, server) = tokio::io::duplex(1024);
        let writer = tokio::spawn(async move {
            client.write_all(request("9", 200_000).as_bytes()).await.unwrap();
            client.write_all(request("10", 10).as_bytes()).await.unwrap();
        });
        let output = passed_from(server, 100_000).await;
        writer.await.unwrap();
        let lines: Vec<Value> = output.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        assert_eq!((lines[0]["id"].clone(), lines[0]["method"].clone()), (json!(9), json!(TOO_LARGE_METHOD)));
        assert_eq!((lines[1]["id"].clone(), lines[1]["method"].clone()), (json!(10), json!("tools/call")));
    }

    async fn passed_from(input: tokio::io::DuplexStream, limit: usize) -> String {
        let mut output = Vec::new();
        pass_lines(input, &mut output, limit).await.unwrap();
        String::from_utf8(output).unwrap()
    }

    #[test]
    fn the_client_is_told_the_size_the_limit_and_what_to_do() {
        assert_eq!(
            too_large(17_000_000, MAX_REQUEST_BYTES as u64, Some("tools/call")),
            "The tool call is 17,000,000 bytes long, more than the 16,777,216 bytes (16 MiB) the browser agent's MCP server reads in one message, so it was not read. Send less: a tool call reaches the browser only within 1,048,576 bytes (1 MiB); type a long text in parts (type with \"clear\": false appends)."
        );
        assert!(too_large(20, 10, None).starts_with("The request is 20 bytes long"));
    }
}
