//! A canned HTTP client and a sample request for the providers' contract tests.

use super::{ChatMessage, ChatRequest, HttpClient, HttpResponse};
use serde_json::json;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

/// Answers requests from a queue (repeating the last answer), or by URL when given routes, and
/// records what was sent and waited.
pub struct CannedHttp {
    pub responses: RefCell<VecDeque<Result<HttpResponse, String>>>,
    /// Answers by URL; with routes, any other URL has nothing listening.
    pub routes: HashMap<&'static str, Result<HttpResponse, String>>,
    pub sent: RefCell<Vec<SentRequest>>,
    pub slept: RefCell<Vec<u32>>,
}

pub struct SentRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl CannedHttp {
    pub fn new(response: Result<HttpResponse, String>) -> Self {
        Self::sequence(vec![response])
    }

    pub fn sequence(responses: Vec<Result<HttpResponse, String>>) -> Self {
        Self {
            responses: RefCell::new(responses.into()),
            routes: HashMap::new(),
            sent: RefCell::default(),
            slept: RefCell::default(),
        }
    }

    /// Answers each URL of `routes` as given; nothing listens at any other.
    pub fn routes(routes: impl IntoIterator<Item = (&'static str, Result<HttpResponse, String>)>) -> Self {
        Self { routes: routes.into_iter().collect(), ..Self::sequence(Vec::new()) }
    }
}

impl HttpClient for &CannedHttp {
    async fn post_json(&self, url: &str, headers: &[(String, String)], body: String) -> Result<HttpResponse, String> {
        self.sent.borrow_mut().push(SentRequest { url: url.to_string(), headers: headers.to_vec(), body });
        if !self.routes.is_empty() {
            return self.routes.get(url).cloned().unwrap_or_else(|| Err("connection refused".into()));
        }
        let mut queue = self.responses.borrow_mut();
        if queue.len() > 1 {
            queue.pop_front().unwrap()
        } else {
            queue.front().cloned().unwrap()
        }
    }

    async fn get(&self, url: &str, headers: &[(String, String)]) -> Result<HttpResponse, String> {
        self.post_json(url, headers, String::new()).await
    }

    async fn post_stream(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: String,
        on_chunk: &dyn Fn(&str),
    ) -> Result<HttpResponse, String> {
        let response = self.post_json(url, headers, body).await?;
        // Deliver the body in small pieces, as a network would: 7 bytes split most characters
        // outside ASCII, which the decoder must carry over whole.
        let mut decoder = StreamDecoder::default();
        for piece in response.body.as_bytes().chunks(7) {
            on_chunk(&decoder.decode(piece));
        }
        Ok(response)
    }

    async fn sleep(&self, milliseconds: u32) {
        self.slept.borrow_mut().push(milliseconds);
    }

    fn jitter(&self) -> f64 {
        1.0
    }
}

/// UTF-8 arriving in pieces, decoded as the product decodes a streamed body (the browser's
/// `TextDecoder` with `{stream: true}`, in crate/wasm/src/fetch.rs): the bytes of a character
/// split between pieces wait for the rest of it, and only bytes that can never be part of a
/// character become U+FFFD (one for each maximal invalid run, as the WHATWG decoder does).
#[derive(Default)]
pub struct StreamDecoder {
    /// The start of a character whose last bytes have not come yet.
    pending: Vec<u8>,
}

impl StreamDecoder {
    /// The text `piece` completes.
    pub fn decode(&mut self, piece: &[u8]) -> String {
        self.pending.extend_from_slice(piece);
        let mut text = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(valid) => {
                    text.push_str(valid);
                    self.pending.clear();
                    return text;
                }
                Err(error) => {
                    let valid = error.valid_up_to();
                    text.push_str(std::str::from_utf8(&self.pending[..valid]).expect("checked up to here"));
                    match error.error_len() {
                        // A character cut short by the end of the piece: the next piece ends it.
                        None => {
                            self.pending.drain(..valid);
                            return text;
                        }
                        Some(invalid) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            self.pending.drain(..valid + invalid);
                        }
                    }
                }
            }
        }
    }
}

pub fn status(status: u16, body: &str) -> Result<HttpResponse, String> {
    Ok(HttpResponse { status, body: body.into(), retry_after: None })
}

pub fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::system("sys"), ChatMessage::user("hi")],
        schema_name: "navigator_output".into(),
        strict: true,
        schema: json!({"type": "object"}),
    }
}

pub fn ok(body: &str) -> Result<HttpResponse, String> {
    status(200, body)
}

/// What is wrong with `reply` as an answer to a request with `schema`, as a model held to the
/// schema (OpenAI strict mode, Ollama's `format`, a llama.cpp grammar) could never send it:
/// `None` when it obeys. Test doubles check every reply they send with it, so that no test proves
/// a reply no real model could give.
pub fn schema_breaches(schema: &serde_json::Value, reply: &str) -> Option<String> {
    let value: serde_json::Value = match serde_json::from_str(reply) {
        Ok(value) => value,
        Err(error) => return Some(format!("the reply is not JSON ({error})")),
    };
    let validator = jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("the schema itself is invalid: {e}"));
    let breaches: Vec<String> =
        validator.iter_errors(&value).map(|error| format!("at {}: {error}", error.instance_path())).collect();
    (!breaches.is_empty()).then(|| breaches.join("; "))
}

/// Panics, saying why, when `reply` breaks `schema` (see [`schema_breaches`]).
pub fn assert_obeys_schema(schema: &serde_json::Value, reply: &str) {
    if let Some(breaches) = schema_breaches(schema, reply) {
        panic!("a scripted reply breaks the request's schema, so no model held to it could send it: {breaches}\nreply: {reply}\nschema: {schema}");
    }
}

/// Any reply a model held to `schema` could send: every branch of `anyOf`, null wherever the
/// type admits it, each enum value, strings empty, short, long and non-ASCII, integers and
/// numbers at their bounds, arrays from their least length to a few items. An object's optional
/// properties (in an outline schema) may be absent.
pub fn replies_obeying(schema: &serde_json::Value) -> proptest::strategy::BoxedStrategy<serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::Value;
    if let Some(variants) = schema.get("anyOf").and_then(Value::as_array) {
        let strategies: Vec<_> = variants.iter().map(replies_obeying).collect();
        return proptest::strategy::Union::new(strategies).boxed();
    }
    if let Some(words) = schema.get("enum").and_then(Value::as_array) {
        return proptest::sample::select(words.clone()).boxed();
    }
    let types: Vec<String> = match &schema["type"] {
        Value::String(t) => vec![t.clone()],
        Value::Array(ts) => ts.iter().filter_map(|t| t.as_str().map(str::to_string)).collect(),
        _ => vec!["object".into()],
    };
    let strategies: Vec<BoxedStrategy<Value>> = types
        .iter()
        .map(|kind| match kind.as_str() {
            "null" => Just(Value::Null).boxed(),
            "boolean" => any::<bool>().prop_map(Value::from).boxed(),
            "integer" => {
                prop_oneof![Just(-1i64), Just(i64::from(u32::MAX) + 1), Just(i64::MAX), Just(i64::MIN), 0i64..50]
                    .prop_map(Value::from)
                    .boxed()
            }
            "number" => {
                prop_oneof![Just(0.0), Just(-1.0), Just(1e300), Just(-1e300), Just(f64::MIN_POSITIVE), -20.0f64..20.0]
                    .prop_map(Value::from)
                    .boxed()
            }
            "string" => prop_oneof![
                Just(String::new()),
                Just("N/A".to_string()),
                "[a-z ]{1,12}",
                "\\PC{1,40}",
                Just("long text ".repeat(200)),
            ]
            .prop_map(Value::from)
            .boxed(),
            "array" => {
                let least = schema["minItems"].as_u64().unwrap_or(0) as usize;
                let most = schema["maxItems"].as_u64().map_or(least + 4, |m| m as usize);
                proptest::collection::vec(replies_obeying(&schema["items"]), least..=most.max(least))
                    .prop_map(Value::Array)
                    .boxed()
            }
            _ => {
                let required: Vec<&str> =
                    schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = schema["properties"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(name, sub)| {
                        let is_required = required.contains(&name.as_str());
                        let name = name.clone();
                        let present = replies_obeying(sub).prop_map(move |value| Some((name.clone(), value)));
                        match is_required {
                            true => present.boxed(),
                            false => prop_oneof![Just(None), present].boxed(),
                        }
                    })
                    .collect();
                fields.prop_map(|fields| Value::Object(fields.into_iter().flatten().collect())).boxed()
            }
        })
        .collect();
    proptest::strategy::Union::new(strategies).boxed()
}

#[cfg(test)]
mod tests {
    use super::StreamDecoder;
    use proptest::prelude::*;

    proptest! {
        /// However the bytes are cut, the pieces add up to the text decoded whole; a character
        /// cut short at the very end waits (the product never flushes it).
        #[test]
        fn pieces_decode_as_the_whole(text in "\\PC{0,40}", noise in proptest::collection::vec(any::<u8>(), 0..6), size in 1usize..9) {
            let mut bytes = text.into_bytes();
            bytes.extend(&noise);
            let mut decoder = StreamDecoder::default();
            let decoded: String = bytes.chunks(size).map(|piece| decoder.decode(piece)).collect();
            let complete = bytes.len() - decoder.pending.len();
            prop_assert_eq!(decoded, String::from_utf8_lossy(&bytes[..complete]));
            prop_assert!(decoder.pending.len() < 4);
        }
    }

    #[test]
    fn a_split_character_waits_for_its_last_byte() {
        let mut decoder = StreamDecoder::default();
        let euro = "€".as_bytes();
        assert_eq!(decoder.decode(&[b'a', euro[0]]), "a");
        assert_eq!(decoder.decode(&euro[1..2]), "");
        assert_eq!(decoder.decode(&[euro[2], 0xff, b'b']), "€\u{FFFD}b");
    }
}
