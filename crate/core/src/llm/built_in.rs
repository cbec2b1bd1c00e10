//! Chrome's built-in model (the Prompt API, Gemini Nano on the user's computer): each request
//! shaped for one session of it, and its answer or the browser's refusal read back. The service
//! worker runs the session (`extension/background/built-in-model.js`); nothing leaves the machine.

use super::{alternating, ChatModel, ChatReply, ChatRequest, HttpClient, LlmError, Role};
use serde::Deserialize;
use serde_json::{json, Value};

/// The model name that stands for the built-in model, whatever the provider: an agent (the
/// planner, the validator) may run on it while the navigator runs on another model.
pub const BUILT_IN_MODEL: &str = "chrome-built-in";

/// The context window Chrome documents for the built-in model. A session reports its own (as
/// `contextWindow`, or `inputQuota` in older Chromes); the worker refuses a request over it.
pub const BUILT_IN_WINDOW: usize = 9_216;

/// The built-in model, reached through the worker's half of `http`.
pub struct BuiltIn<H> {
    http: H,
}

/// What the worker answers: the model's reply, or why there is none.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Answer {
    Content(String),
    Error(Refusal),
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Refusal {
    /// The DOMException's name (`QuotaExceededError`, `NotAllowedError`...), or `unavailable`
    /// when the browser has no model ready.
    name: String,
    #[serde(default)]
    message: String,
    /// For `unavailable`: the API's availability (`unavailable`, `downloadable`, `downloading`).
    #[serde(default)]
    availability: Option<String>,
    /// For `QuotaExceededError`: the tokens the request needs and the session's window.
    #[serde(default)]
    requested: Option<u64>,
    #[serde(default)]
    window: Option<u64>,
}

impl<H: HttpClient> BuiltIn<H> {
    pub fn new(http: H) -> Self {
        Self { http }
    }

    /// One session's worth: the system message and the earlier turns become the session's
    /// initial prompts, the last user turn its prompt, the schema its `responseConstraint`. A
    /// compact request's instructions already describe the reply, so its outline schema is not
    /// also written into the window (`omitResponseConstraintInput`). Images are left out: the
    /// session is created for text only.
    pub fn request_body(request: &ChatRequest) -> Value {
        let (system, mut turns) = alternating(&request.messages);
        let prompt = match turns.last() {
            Some(last) if last.role == Role::User => turns.pop().map(|m| m.content).unwrap_or_default(),
            _ => String::new(),
        };
        let history: Vec<Value> = turns.iter().map(|m| json!({ "role": m.role, "content": m.content })).collect();
        json!({
            "system": system.unwrap_or_default(),
            "history": history,
            "prompt": prompt,
            "schema": request.schema,
            "omitSchemaInput": !request.strict,
        })
    }
}

/// The worker's answer as the reply, or as the error it stands for.
fn read_answer(answer: &str) -> Result<ChatReply, LlmError> {
    let answer: Answer = serde_json::from_str(answer)
        .map_err(|_| LlmError::MalformedResponse { detail: "the built-in model's answer is not JSON".into() })?;
    let refusal = match answer {
        Answer::Content(content) => return Ok(ChatReply { content, usage: None }),
        Answer::Error(refusal) => refusal,
    };
    Err(match refusal.name.as_str() {
        "QuotaExceededError" => LlmError::BuiltInTooLong {
            requested: refusal.requested.unwrap_or_default(),
            window: refusal.window.unwrap_or(BUILT_IN_WINDOW as u64),
        },
        "unavailable" => {
            LlmError::BuiltInUnavailable { availability: refusal.availability.unwrap_or_else(|| "unavailable".into()) }
        }
        _ => LlmError::BuiltInFailed { detail: format!("{}: {}", refusal.name, refusal.message) },
    })
}

impl<H: HttpClient> ChatModel for BuiltIn<H> {
    async fn complete(&self, request: &ChatRequest) -> Result<ChatReply, LlmError> {
        let body = Self::request_body(request).to_string();
        match self.http.prompt_built_in(body).await {
            Ok(answer) => read_answer(&answer),
            // No answer in time, or no runner: the worker answers a missing model as unavailable.
            Err(detail) => Err(LlmError::BuiltInFailed { detail }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{ChatMessage, HttpResponse};
    use futures::executor::block_on;
    use std::cell::RefCell;

    /// The worker's half: records the request and gives the canned answer.
    struct Worker {
        answer: Result<String, String>,
        sent: RefCell<Vec<Value>>,
    }

    impl HttpClient for &Worker {
        async fn post_json(&self, _: &str, _: &[(String, String)], _: String) -> Result<HttpResponse, String> {
            Err("the built-in model makes no HTTP requests".into())
        }
        async fn get(&self, _: &str, _: &[(String, String)]) -> Result<HttpResponse, String> {
            Err("the built-in model makes no HTTP requests".into())
        }
        async fn post_stream(
            &self,
            _: &str,
            _: &[(String, String)],
            _: String,
            _: &dyn Fn(&str),
        ) -> Result<HttpResponse, String> {
            Err("the built-in model makes no HTTP requests".into())
        }
        async fn sleep(&self, _: u32) {}
        fn jitter(&self) -> f64 {
            0.0
        }
        async fn prompt_built_in(&self, request: String) -> Result<String, String> {
            self.sent.borrow_mut().push(serde_json::from_str(&request).unwrap());
            self.answer.clone()
        }
    }

    fn worker(answer: Result<&str, &str>) -> Worker {
        Worker { answer: answer.map(str::to_string).map_err(str::to_string), sent: RefCell::default() }
    }

    fn request(strict: bool) -> ChatRequest {
        ChatRequest {
            messages: vec![
                ChatMessage::system("You are a browser agent."),
                ChatMessage::user("Task: buy a mug"),
                ChatMessage::assistant(r#"{"actions":[]}"#),
                ChatMessage::user("Step 2. The page:"),
                ChatMessage::user("[1] Add Blue mug to cart"),
            ],
            schema_name: "navigator".into(),
            schema: json!({"type": "object", "required": ["actions"]}),
            strict,
        }
    }

    #[test]
    fn a_request_becomes_one_session_with_the_last_turn_as_its_prompt() {
        let worker = worker(Ok(r#"{"content":"{\"actions\":[]}"}"#));
        let reply = block_on(BuiltIn::new(&worker).complete(&request(false))).unwrap();
        assert_eq!(reply.content, r#"{"actions":[]}"#);
        let sent = worker.sent.borrow()[0].clone();
        assert_eq!(sent["system"], "You are a browser agent.");
        assert_eq!(
            sent["history"],
            json!([{"role": "user", "content": "Task: buy a mug"}, {"role": "assistant", "content": "{\"actions\":[]}"}])
        );
        assert_eq!(sent["prompt"], "Step 2. The page:\n\n[1] Add Blue mug to cart");
        assert_eq!(sent["schema"], json!({"type": "object", "required": ["actions"]}));
        assert_eq!(sent["omitSchemaInput"], true, "a compact request's instructions describe the reply");
        block_on(BuiltIn::new(&worker).complete(&request(true))).unwrap();
        assert_eq!(worker.sent.borrow()[1]["omitSchemaInput"], false, "a strict schema is the whole reply");
    }

    #[test]
    fn the_browser_s_refusals_say_what_happened_and_what_to_do() {
        let too_long = worker(Ok(r#"{"error":{"name":"QuotaExceededError","requested":9800,"window":9216}}"#));
        let err = block_on(BuiltIn::new(&too_long).complete(&request(false))).unwrap_err();
        assert_eq!(err, LlmError::BuiltInTooLong { requested: 9_800, window: 9_216 });
        let english = err.to_string();
        assert!(english.contains("9800") && english.contains("9216"), "{english}");
        assert!(english.contains("larger model"), "{english}");

        let downloading = worker(Ok(r#"{"error":{"name":"unavailable","availability":"downloading"}}"#));
        let err = block_on(BuiltIn::new(&downloading).complete(&request(false))).unwrap_err();
        assert_eq!(err, LlmError::BuiltInUnavailable { availability: "downloading".into() });

        let absent = worker(Ok(r#"{"error":{"name":"unavailable","availability":"unavailable"}}"#));
        let err = block_on(BuiltIn::new(&absent).complete(&request(false))).unwrap_err();
        assert!(err.to_string().contains("Chrome 138"), "{err}");

        let slow = worker(Err("no answer within 120 s"));
        let err = block_on(BuiltIn::new(&slow).complete(&request(false))).unwrap_err();
        assert_eq!(err, LlmError::BuiltInFailed { detail: "no answer within 120 s".into() });

        let failed = worker(Ok(r#"{"error":{"name":"NotSupportedError","message":"unsupported language"}}"#));
        let err = block_on(BuiltIn::new(&failed).complete(&request(false))).unwrap_err();
        assert!(err.to_string().contains("NotSupportedError: unsupported language"), "{err}");
    }
}
