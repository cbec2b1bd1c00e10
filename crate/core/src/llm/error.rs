use std::fmt;

/// What went wrong talking to a model, phrased for the user with what to do about it.
#[derive(Debug, Clone, PartialEq)]
pub enum LlmError {
    /// No response at all: server down, wrong address, or the request was refused (CORS).
    Unreachable { url: String, detail: String },
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
