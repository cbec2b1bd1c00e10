//! Server-sent events, as chat APIs stream them: `data:` lines, events separated by blank lines,
//! arriving in chunks that split lines anywhere.

#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseParser {
    buffer: String,
    event: Option<String>,
    data: Vec<String>,
}

impl SseParser {
    /// Feeds a chunk; returns the events it completed.
    pub fn push(&mut self, chunk: &str) -> Vec<SseEvent> {
        self.buffer.push_str(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.buffer.find('\n') {
            let line: String = self.buffer.drain(..=end).collect();
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if !self.data.is_empty() {
                    events.push(SseEvent { event: self.event.take(), data: self.data.join("\n") });
                    self.data.clear();
                }
                self.event = None;
            } else if let Some(data) = line.strip_prefix("data:") {
                self.data.push(data.strip_prefix(' ').unwrap_or(data).to_string());
            } else if let Some(event) = line.strip_prefix("event:") {
                self.event = Some(event.trim().to_string());
            }
        }
        events
    }

    /// The event left when the stream ends without a final blank line.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let rest = std::mem::take(&mut self.buffer);
        let mut events = self.push(&format!("{rest}\n\n"));
        events.pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_survive_any_chunking() {
        let stream = "event: delta\ndata: {\"a\":1}\n\ndata: line one\ndata: line two\n\r\ndata: [DONE]\n\n";
        for size in 1..stream.len() {
            let mut parser = SseParser::default();
            let mut events = Vec::new();
            let bytes = stream.as_bytes();
            for chunk in bytes.chunks(size) {
                events.extend(parser.push(std::str::from_utf8(chunk).unwrap()));
            }
            assert_eq!(
                events,
                vec![
                    SseEvent { event: Some("delta".into()), data: "{\"a\":1}".into() },
                    SseEvent { event: None, data: "line one\nline two".into() },
                    SseEvent { event: None, data: "[DONE]".into() },
                ],
                "chunks of {size}"
            );
        }
    }

    #[test]
    fn a_last_event_without_a_blank_line_is_kept() {
        let mut parser = SseParser::default();
        assert!(parser.push("data: x").is_empty());
        assert_eq!(parser.finish(), Some(SseEvent { event: None, data: "x".into() }));
    }
}
