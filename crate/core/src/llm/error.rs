use super::retry::is_quota_exhausted;
use crate::i18n::Text;
use crate::text;
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
    /// The request is longer than the built-in model's session can read.
    BuiltInTooLong { requested: u64, window: u64 },
    /// The browser has no built-in model ready (`availability` as the Prompt API says it).
    BuiltInUnavailable { availability: String },
    /// The built-in model failed otherwise (the browser's exception).
    BuiltInFailed { detail: String },
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text().english())
    }
}

impl LlmError {
    /// What went wrong and what to do, for the user.
    pub fn text(&self) -> Text {
        match self {
            LlmError::Unreachable { url, detail } => text!("core_llm_unreachable", url, detail),
            LlmError::OriginRefused { url } => text!("core_llm_origin_refused", url),
            LlmError::Unauthorized { status, detail } => text!("core_llm_unauthorized", *status, detail),
            LlmError::NotFound { model, detail } => text!("core_llm_not_found", model, detail),
            LlmError::RateLimited { detail } => text!("core_llm_rate_limited", detail),
            LlmError::QuotaExhausted { detail } => text!("core_llm_quota_exhausted", detail),
            LlmError::ContextTooLong { detail } => text!("core_llm_context_too_long", detail),
            LlmError::Http { status, detail } => text!("core_llm_http", *status, detail),
            LlmError::MalformedResponse { detail } => text!("core_llm_malformed_response", detail),
            LlmError::BuiltInTooLong { requested, window } => text!("core_built_in_too_long", *requested, *window),
            LlmError::BuiltInUnavailable { availability } => text!("core_built_in_unavailable", availability),
            LlmError::BuiltInFailed { detail } => text!("core_built_in_failed", detail),
        }
    }

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
