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
        // Deliver the body in small pieces, as a network would.
        for piece in response.body.as_bytes().chunks(7) {
            on_chunk(&String::from_utf8_lossy(piece));
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
