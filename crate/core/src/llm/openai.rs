//! The OpenAI chat-completions wire format, spoken by OpenAI and most self-hosted servers.

use super::retry::is_passing;
use super::sse::{SseEvent, SseParser};
use super::{ChatModel, ChatReply, ChatRequest, Connection, HttpClient, HttpResponse, LlmError, ModelOptions, Usage};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};

/// How the reply's JSON shape is requested. Servers that refuse one way get the next, and the
/// model keeps the way that worked for the rest of the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// `response_format: json_schema` (strict): OpenAI, vLLM, LM Studio, llama.cpp, Ollama.
    JsonSchema,
    /// A forced function call whose parameters are the schema.
    FunctionCall,
    /// `response_format: json_object`: servers without schema support (DeepSeek, Groq's older models).
    JsonObject,
    /// No `response_format`; the prompt alone asks for JSON, and replies are parsed defensively.
    PromptOnly,
}

pub struct OpenAiCompatible<H> {
    connection: Connection<H>,
    mode: Cell<OutputMode>,
    /// Azure OpenAI: the key goes in an `api-key` header and the URL carries the API version.
    azure: bool,
    /// Off once the server shows it cannot stream.
    streaming: Cell<bool>,
}

/// The reply assembled from streamed chunks.
#[derive(Default)]
struct StreamState {
    parser: RefCell<SseParser>,
    text: RefCell<String>,
    usage: RefCell<Option<Usage>>,
}

impl StreamState {
    fn push(&self, chunk: &str, on_text: &dyn Fn(&str)) {
        let events = self.parser.borrow_mut().push(chunk);
        self.take(events, on_text);
    }

    fn take(&self, events: Vec<SseEvent>, on_text: &dyn Fn(&str)) {
        let mut grew = false;
        for event in events.iter().filter(|e| e.data != "[DONE]") {
            let Ok(value) = serde_json::from_str::<Value>(&event.data) else { continue };
            if let Some(delta) = value.pointer("/choices/0/delta/content").and_then(Value::as_str) {
                self.text.borrow_mut().push_str(delta);
                grew = true;
            }
            if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
                *self.usage.borrow_mut() = Some(Usage {
                    input_tokens: usage["prompt_tokens"].as_u64().unwrap_or(0),
                    output_tokens: usage["completion_tokens"].as_u64().unwrap_or(0),
                });
            }
        }
        if grew {
            on_text(&self.text.borrow());
        }
    }

    /// The whole reply; a server that answered without streaming is read as a plain reply.
    fn finish(&self, body: &str) -> Result<ChatReply, LlmError> {
        if let Some(event) = self.parser.borrow_mut().finish() {
            self.take(vec![event], &|_| {});
        }
        let text = self.text.borrow().clone();
        if text.is_empty() && body.trim_start().starts_with('{') {
            return parse_reply(body);
        }
        if text.is_empty() {
            return Err(LlmError::MalformedResponse { detail: "the streamed reply was empty".into() });
        }
        Ok(ChatReply { content: text, usage: *self.usage.borrow() })
    }
}

impl<H: HttpClient> OpenAiCompatible<H> {
    pub fn new(base_url: &str, model: &str, api_key: &str, http: H) -> Self {
        Self {
            connection: Connection::new(base_url, "", model, api_key, http),
            mode: Cell::new(OutputMode::JsonSchema),
            azure: false,
            streaming: Cell::new(true),
        }
    }

    pub fn with_options(mut self, options: ModelOptions) -> Self {
        self.connection.options = options;
        self
    }

    /// Speaks to an Azure OpenAI deployment (`base_url` ends in `/openai/deployments/NAME`).
    pub fn for_azure(mut self) -> Self {
        self.azure = true;
        self
    }

    /// The models the server offers (`GET /models`).
    pub async fn list_models(&self) -> Result<Vec<String>, LlmError> {
        let url = format!("{}/models", self.connection.base_url);
        match self.connection.model_list(&url, &self.headers(), super::ids_in_data).await {
            // A bare 403 from this computer is a server refusing extensions (Ollama's origins), not a key.
            Err(LlmError::Unauthorized { status: 403, detail })
                if is_local(&self.connection.base_url) && detail == super::error::NO_DETAILS =>
            {
                Err(LlmError::OriginRefused { url: self.connection.base_url.clone() })
            }
            listed => listed,
        }
    }

    /// An unsuccessful response: the error to report, or `Ok` when the next output mode should be
    /// tried (the server refused the one asked for).
    fn after_failure(&self, response: &HttpResponse) -> Result<(), LlmError> {
        if response.status == 403 && is_local(&self.connection.base_url) && !response.body.contains("\"error\"") {
            return Err(LlmError::OriginRefused { url: self.connection.base_url.clone() });
        }
        match next_mode(self.mode.get()).filter(|_| rejects_output_format(response.status, &response.body)) {
            Some(next) => {
                self.mode.set(next);
                Ok(())
            }
            None => Err(LlmError::from_response(response.status, &response.body, &self.connection.model)),
        }
    }

    pub fn output_mode(&self) -> OutputMode {
        self.mode.get()
    }

    pub fn endpoint(&self) -> String {
        match (&self.connection.options.api_version, self.azure) {
            (Some(version), true) => format!("{}/chat/completions?api-version={version}", self.connection.base_url),
            (None, true) => format!("{}/chat/completions?api-version={AZURE_API_VERSION}", self.connection.base_url),
            _ => format!("{}/chat/completions", self.connection.base_url),
        }
    }

    pub fn request_body(&self, request: &ChatRequest, mode: OutputMode) -> Value {
        let mut body = json!({ "model": self.connection.model, "messages": request.messages });
        if let Some(temperature) = self.connection.options.temperature {
            body["temperature"] = json!(temperature);
        }
        if let Some(effort) = self.connection.options.reasoning_effort {
            body["reasoning_effort"] = json!(effort.as_str());
        }
        match mode {
            OutputMode::JsonSchema => {
                body["response_format"] = json!({
                    "type": "json_schema",
                    "json_schema": { "name": request.schema_name, "strict": request.strict, "schema": request.schema }
                });
            }
            OutputMode::FunctionCall => {
                body["tools"] = json!([{
                    "type": "function",
                    "function": { "name": request.schema_name, "description": "Give your reply as this call's arguments.", "parameters": request.schema }
                }]);
                body["tool_choice"] = json!({ "type": "function", "function": { "name": request.schema_name } });
            }
            OutputMode::JsonObject => body["response_format"] = json!({ "type": "json_object" }),
            OutputMode::PromptOnly => {}
        }
        body
    }

    fn headers(&self) -> Vec<(String, String)> {
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        if self.azure {
            headers.push(("api-key".to_string(), self.connection.api_key.clone()));
        } else if !self.connection.api_key.is_empty() {
            headers.push(("Authorization".to_string(), format!("Bearer {}", self.connection.api_key)));
        }
        headers
    }
}

/// Whether a 400 says the server does not accept the requested `response_format`.
fn rejects_output_format(status: u16, body: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    const FORMAT_WORDS: &[&str] = &[
        "response_format",
        "json_schema",
        "json_object",
        "structured output",
        "tool_choice",
        "tools",
        "function call",
    ];
    matches!(status, 400 | 422 | 500) && FORMAT_WORDS.iter().any(|word| lower.contains(word))
}

/// Azure OpenAI's current generally available API version.
const AZURE_API_VERSION: &str = "2024-10-21";

/// A server on this computer (Ollama, LM Studio, llama.cpp...).
fn is_local(base_url: &str) -> bool {
    url::Url::parse(base_url)
        .ok()
        .and_then(|url| url.host_str().map(|h| matches!(h, "localhost" | "127.0.0.1" | "[::1]" | "::1")))
        .unwrap_or(false)
}

fn next_mode(mode: OutputMode) -> Option<OutputMode> {
    match mode {
        OutputMode::JsonSchema => Some(OutputMode::FunctionCall),
        OutputMode::FunctionCall => Some(OutputMode::JsonObject),
        OutputMode::JsonObject => Some(OutputMode::PromptOnly),
        OutputMode::PromptOnly => None,
    }
}

impl<H: HttpClient> ChatModel for OpenAiCompatible<H> {
    async fn complete_streaming(&self, request: &ChatRequest, on_text: &dyn Fn(&str)) -> Result<ChatReply, LlmError> {
        let url = self.endpoint();
        let headers = self.headers();
        while self.streaming.get() {
            let mut body = self.request_body(request, self.mode.get());
            body["stream"] = json!(true);
            body["stream_options"] = json!({ "include_usage": true });
            let stream = StreamState::default();
            let on_chunk = |chunk: &str| stream.push(chunk, on_text);
            let Ok(response) = self.connection.http.post_stream(&url, &headers, body.to_string(), &on_chunk).await
            else {
                break; // No answer at all: the plain path tries again, with its backoff, and reports.
            };
            if (200..300).contains(&response.status) {
                return stream.finish(&response.body);
            }
            if is_passing(response.status, &response.body) {
                break; // Retries, with their backoff, are the plain path's.
            }
            if matches!(response.status, 400 | 422) && response.body.contains("stream") {
                self.streaming.set(false); // This server cannot stream (or take stream_options).
                break;
            }
            self.after_failure(&response)?;
        }
        self.complete(request).await
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatReply, LlmError> {
        let url = self.endpoint();
        let headers = self.headers();
        loop {
            let body = self.request_body(request, self.mode.get()).to_string();
            let response = self.connection.post(&url, &headers, &body).await?;
            if (200..300).contains(&response.status) {
                return parse_reply(&response.body);
            }
            self.after_failure(&response)?;
        }
    }
}

/// Reads `choices[0].message.content` and the usage from a chat-completions body.
pub fn parse_reply(body: &str) -> Result<ChatReply, LlmError> {
    let malformed = |detail: &str| LlmError::MalformedResponse { detail: detail.to_string() };
    let value: Value = serde_json::from_str(body).map_err(|_| malformed("the body is not JSON"))?;
    let message = value.pointer("/choices/0/message").ok_or_else(|| malformed("it has no choices[0].message"))?;
    let content = match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        // Some servers return the structured reply as a tool call when they ignore response_format.
        _ => {
            message.pointer("/tool_calls/0/function/arguments").and_then(Value::as_str).map(str::to_string).ok_or_else(
                || match message.get("refusal").and_then(Value::as_str) {
                    Some(refusal) => malformed(&format!("the model refused: {refusal}")),
                    None => malformed("the message has no content"),
                },
            )?
        }
    };
    let usage = value.get("usage").map(|usage| Usage {
        input_tokens: usage.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: usage.get("completion_tokens").and_then(Value::as_u64).unwrap_or(0),
    });
    Ok(ChatReply { content, usage })
}

#[cfg(test)]
mod tests;
