use super::retry::is_quota_exhausted;
use serde_json::Value;
use std::fmt;

/// Longest piece of an error body quoted back to the user.
const MAX_DETAIL_CHARS: usize = 300;

/// Phrases with which servers reject a request longer than the model's context.
const CONTEXT_TOO_LONG: &[&str] =
    &["context_length_exceeded", "maximum context length", "context length", "too many tokens", "prompt is too long"];

/// What went wrong talking to a model, phrased for the user with what to do about it.
#[derive(Debug, Clone, PartialEq)]
pub enum LlmError {
    /// No response at all: server down, wrong address, or the request was refused (CORS).
    Unreachable { url: String, detail: String },
    /// 403 from a server on this computer: it refuses requests from extensions (Ollama's origins).
    OriginRefused { url: String },
    /// 401 or 403: the key is missing, wrong or lacks access.
    Unauthorized { status: u16, detail: String },
    /// 404: usually an unknown model or a base URL without the API path.
    NotFound { model: String, detail: String },
    /// 429 that persisted through the retries.
    RateLimited { detail: String },
    /// 429 because the account's quota or credit is used up.
    QuotaExhausted { detail: String },
    /// The conversation is longer than the model's context window.
    ContextTooLong { detail: String },
    /// Any other non-success status.
    Http { status: u16, detail: String },
    /// A success status whose body is not a chat-completions reply.
    MalformedResponse { detail: String },
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LlmError::Unreachable { url, detail } => write!(
                f,
                "Could not reach the model provider at {url} ({detail}). Check the base URL in the settings and that the server is running; for Ollama, start it with OLLAMA_ORIGINS=chrome-extension://* so that it accepts the extension."
            ),
            LlmError::OriginRefused { url } => write!(
                f,
                "The server at {url} refused the extension (HTTP 403). Ollama accepts browser extensions only when started with OLLAMA_ORIGINS=chrome-extension://* — set it and restart Ollama; other local servers have a similar CORS or origin setting."
            ),
            LlmError::Unauthorized { status, detail } => write!(
                f,
                "The model provider refused the API key (HTTP {status}: {detail}). Open the settings and enter a valid key for this provider."
            ),
            LlmError::NotFound { model, detail } => write!(
                f,
                "The model provider does not know the model \"{model}\" or the address is wrong (HTTP 404: {detail}). Check the model name and the base URL (it usually ends in /v1) in the settings."
            ),
            LlmError::RateLimited { detail } => write!(
                f,
                "The model provider kept refusing requests as too many, even after waiting (HTTP 429: {detail}). Wait a minute and try again, or check your plan's rate limits."
            ),
            LlmError::QuotaExhausted { detail } => write!(
                f,
                "The model provider's quota or credit for this key is used up ({detail}). Add credit or raise the limit in the provider's billing settings, or use another key."
            ),
            LlmError::ContextTooLong { detail } => write!(
                f,
                "The conversation is longer than the model can read ({detail}). Start a new task, or choose a model with a larger context window."
            ),
            LlmError::Http { status, detail } => write!(f, "The model provider answered with an error (HTTP {status}: {detail}). Try again; if it persists, check the provider's status."),
            LlmError::MalformedResponse { detail } => write!(
                f,
                "The model provider's answer was not a chat-completions reply ({detail}). Check that the base URL points to an OpenAI-compatible API."
            ),
        }
    }
}

impl LlmError {
    /// The error an unsuccessful response stands for. Every provider's error body puts its
    /// message at `error.message` (OpenAI, Anthropic, Gemini and the compatible servers).
    pub fn from_response(status: u16, body: &str, model: &str) -> LlmError {
        let detail = error_detail(body);
        let lower = body.to_ascii_lowercase();
        match status {
            401 | 403 => LlmError::Unauthorized { status, detail },
            400 if lower.contains("api key not valid") || lower.contains("api_key_invalid") => {
                LlmError::Unauthorized { status, detail }
            }
            404 => LlmError::NotFound { model: model.to_string(), detail },
            429 if is_quota_exhausted(body) => LlmError::QuotaExhausted { detail },
            402 => LlmError::QuotaExhausted { detail }, // OpenRouter: out of credits
            429 => LlmError::RateLimited { detail },
            400 | 413 if CONTEXT_TOO_LONG.iter().any(|phrase| lower.contains(phrase)) => {
                LlmError::ContextTooLong { detail }
            }
            _ => LlmError::Http { status, detail },
        }
    }
}

/// The detail of an error response whose body says nothing.
pub(crate) const NO_DETAILS: &str = "no details given";

/// The provider's own error message when the body has one.
fn error_detail(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|value| {
        let message = match value.get("error") {
            Some(error) => error.get("message").and_then(Value::as_str).or_else(|| error.as_str()),
            None => value.get("message").and_then(Value::as_str), // vLLM: {"object": "error", "message": ...}
        };
        message.map(str::to_string)
    });
    let detail = from_json.unwrap_or_else(|| body.trim().to_string());
    if detail.is_empty() {
        NO_DETAILS.to_string()
    } else {
        crate::text::truncate_chars(&detail, MAX_DETAIL_CHARS)
    }
}
