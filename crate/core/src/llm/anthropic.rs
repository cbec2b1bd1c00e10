//! The Anthropic Messages API: structured output through a forced tool call.

use super::sse::SseParser;
use super::{alternating, ChatModel, ChatReply, ChatRequest, Connection, HttpClient, LlmError, ModelOptions, Usage};
use serde_json::{json, Value};
use std::cell::RefCell;

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com/v1";
const API_VERSION: &str = "2023-06-01";
/// Room for the reply; the navigator's replies are short, extraction answers a little longer.
const MAX_TOKENS: u32 = 4096;

pub struct Anthropic<H> {
    connection: Connection<H>,
}

impl<H: HttpClient> Anthropic<H> {
    pub fn new(base_url: &str, model: &str, api_key: &str, http: H) -> Self {
        Self { connection: Connection::new(base_url, DEFAULT_BASE_URL, model, api_key, http) }
    }

    /// Temperature applies; reasoning effort does not (extended thinking cannot be combined with
    /// the forced tool that gives structured output).
    pub fn with_options(mut self, options: ModelOptions) -> Self {
        self.connection.options = options;
        self
    }

    /// The models the key may use (`GET /models`).
    pub async fn list_models(&self) -> Result<Vec<String>, LlmError> {
        let url = format!("{}/models?limit=1000", self.connection.base_url);
        self.connection.model_list(&url, &self.headers(), super::ids_in_data).await
    }

    pub fn endpoint(&self) -> String {
        format!("{}/messages", self.connection.base_url)
    }

    pub fn headers(&self) -> Vec<(String, String)> {
        vec![
            ("Content-Type".into(), "application/json".into()),
            ("x-api-key".into(), self.connection.api_key.clone()),
            ("anthropic-version".into(), API_VERSION.into()),
            // The request comes from the extension, which the user has given the key to.
            ("anthropic-dangerous-direct-browser-access".into(), "true".into()),
        ]
    }

    pub fn request_body(&self, request: &ChatRequest) -> Value {
        let (system, messages) = alternating(&request.messages);
        let messages: Vec<Value> = messages
            .iter()
            .map(|m| {
                if m.images.is_empty() {
                    return json!({ "role": m.role, "content": m.content });
                }
                let mut content = vec![json!({ "type": "text", "text": m.content })];
                content.extend(m.images.iter().map(|image| {
                    json!({ "type": "image", "source": { "type": "base64", "media_type": image.media_type, "data": image.base64 } })
                }));
                json!({ "role": m.role, "content": content })
            })
            .collect();
        let mut body = json!({
            "model": self.connection.model,
            "max_tokens": MAX_TOKENS,
            "messages": messages,
            "tools": [{
                "name": request.schema_name,
                "description": "Give your reply by calling this tool with arguments that follow its schema.",
                "input_schema": request.schema,
            }],
            "tool_choice": { "type": "tool", "name": request.schema_name },
        });
        if let Some(system) = system {
            body["system"] = json!(system);
        }
        if let Some(temperature) = self.connection.options.temperature {
            body["temperature"] = json!(temperature.clamp(0.0, 1.0));
        }
        body
    }
}

impl<H: HttpClient> ChatModel for Anthropic<H> {
    /// Streams the forced tool call's input as it is written (`input_json_delta` events).
    async fn complete_streaming(&self, request: &ChatRequest, on_text: &dyn Fn(&str)) -> Result<ChatReply, LlmError> {
        let url = self.endpoint();
        let mut body = self.request_body(request);
        body["stream"] = json!(true);
        let state = RefCell::new((SseParser::default(), String::new(), Usage::default(), None::<String>));
        let on_chunk = |chunk: &str| {
            let mut state = state.borrow_mut();
            let events = state.0.push(chunk);
            let before = state.1.len();
            for event in events {
                let Ok(value) = serde_json::from_str::<Value>(&event.data) else { continue };
                match value["type"].as_str() {
                    Some("message_start") => {
                        state.2.input_tokens =
                            value.pointer("/message/usage/input_tokens").and_then(Value::as_u64).unwrap_or(0);
                    }
                    Some("content_block_delta") => {
                        let delta = &value["delta"];
                        let piece =
                            delta["partial_json"].as_str().or_else(|| delta["text"].as_str()).unwrap_or_default();
                        state.1.push_str(piece);
                    }
                    Some("message_delta") => {
                        state.2.output_tokens =
                            value.pointer("/usage/output_tokens").and_then(Value::as_u64).unwrap_or(0);
                        state.3 = value.pointer("/delta/stop_reason").and_then(Value::as_str).map(str::to_string);
                    }
                    _ => {}
                }
            }
            if state.1.len() > before {
                on_text(&state.1);
            }
        };
        let response = self.connection.http.post_stream(&url, &self.headers(), body.to_string(), &on_chunk).await;
        let Ok(response) = response else {
            // No answer at all: the plain path tries again, with its backoff, and reports.
            return self.complete(request).await;
        };
        if !(200..300).contains(&response.status) {
            // Retries and error messages are the plain path's.
            return self.complete(request).await;
        }
        let (_, text, usage, stop) = state.into_inner();
        match (text.is_empty(), stop.as_deref()) {
            (_, Some("max_tokens")) => {
                Err(LlmError::MalformedResponse { detail: "the reply was cut off at the token limit".into() })
            }
            (true, _) => Err(LlmError::MalformedResponse { detail: "the streamed reply was empty".into() }),
            (false, _) => Ok(ChatReply { content: text, usage: Some(usage) }),
        }
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatReply, LlmError> {
        let body = self.request_body(request).to_string();
        parse_reply(&self.connection.post_for_body(&self.endpoint(), &self.headers(), &body).await?)
    }
}

/// Reads the forced tool call's input (or, failing that, the text) and the usage.
pub fn parse_reply(body: &str) -> Result<ChatReply, LlmError> {
    let malformed = |detail: &str| LlmError::MalformedResponse { detail: detail.to_string() };
    let value: Value = serde_json::from_str(body).map_err(|_| malformed("the body is not JSON"))?;
    let blocks = value.get("content").and_then(Value::as_array).ok_or_else(|| malformed("it has no content"))?;
    let tool_input = blocks.iter().find(|b| b["type"] == "tool_use").map(|b| b["input"].to_string());
    let text: String = blocks.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect();
    let content = match (tool_input, value["stop_reason"].as_str()) {
        (Some(input), _) => input,
        (None, Some("max_tokens")) => return Err(malformed("the reply was cut off at the token limit")),
        (None, _) if !text.trim().is_empty() => text,
        (None, _) => return Err(malformed("the reply has neither a tool call nor text")),
    };
    let usage = value.get("usage").map(|u| Usage {
        input_tokens: u["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
    });
    Ok(ChatReply { content, usage })
}
