//! Chat models: the messages the agent sends, and the providers that carry them.
//!
//! Providers speak HTTP through [`HttpClient`], so that their request building and reply parsing
//! are tested natively; the extension supplies a `fetch`-based client.

pub mod anthropic;
pub mod built_in;
pub mod context;
mod error;
pub mod gemini;
pub mod local;
mod openai;
pub mod pricing;
mod provider;
#[cfg(test)]
mod providers_tests;
pub mod repair;
pub mod retry;
#[cfg(test)]
mod schema_rules_tests;
pub mod sse;
#[cfg(test)]
pub(crate) mod testing;

pub use error::LlmError;
pub use openai::{parse_reply as parse_openai_reply, OpenAiCompatible, OutputMode};
pub use provider::{AnyModel, Provider};

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
    /// Pictures shown with the text (screenshots, when vision is on).
    pub images: Vec<Image>,
}

/// A picture, base64-encoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// `image/jpeg` or `image/png`.
    pub media_type: String,
    pub base64: String,
}

impl Image {
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.media_type, self.base64)
    }
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> Self {
        Self { role: Role::System, content: content.into(), images: Vec::new() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self { role: Role::User, content: content.into(), images: Vec::new() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self { role: Role::Assistant, content: content.into(), images: Vec::new() }
    }
    pub fn with_images(mut self, images: Vec<Image>) -> Self {
        self.images = images;
        self
    }
}

/// OpenAI's chat-completions form: the text alone, or text and `image_url` parts.
impl Serialize for ChatMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("role", &self.role)?;
        if self.images.is_empty() {
            map.serialize_entry("content", &self.content)?;
        } else {
            let mut parts = vec![serde_json::json!({ "type": "text", "text": self.content })];
            parts.extend(
                self.images
                    .iter()
                    .map(|image| serde_json::json!({ "type": "image_url", "image_url": { "url": image.data_url() } })),
            );
            map.serialize_entry("content", &parts)?;
        }
        map.end()
    }
}

/// The system message apart, and the rest with consecutive messages of one role merged: the
/// form APIs that require alternating turns (Anthropic, Gemini) accept.
pub fn alternating(messages: &[ChatMessage]) -> (Option<String>, Vec<ChatMessage>) {
    let mut system = None;
    let mut turns: Vec<ChatMessage> = Vec::new();
    for message in messages {
        if message.role == Role::System {
            system = Some(message.content.clone());
            continue;
        }
        match turns.last_mut() {
            Some(last) if last.role == message.role => {
                last.content.push_str("\n\n");
                last.content.push_str(&message.content);
                last.images.extend(message.images.iter().cloned());
            }
            _ => turns.push(message.clone()),
        }
    }
    if turns.first().is_some_and(|m| m.role == Role::Assistant) {
        turns.insert(0, ChatMessage::user("(The conversation so far follows.)"));
    }
    (system, turns)
}

/// How hard a reasoning model should think.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    Low,
    Medium,
    High,
}

impl Effort {
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
        }
    }
}

/// Per-model request options the user may set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelOptions {
    pub temperature: Option<f64>,
    pub reasoning_effort: Option<Effort>,
    /// Azure OpenAI's `api-version` query parameter.
    pub api_version: Option<String>,
}

/// One request to a model: the conversation and the JSON schema its reply must follow.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    pub schema_name: String,
    pub schema: Value,
    /// Whether `schema` is the reply's whole shape, for the provider to enforce strictly; when
    /// false it only outlines the reply (a compact request, whose instructions give the rest),
    /// and providers that cannot take a loose schema are asked for plain JSON instead.
    pub strict: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatReply {
    /// The reply's text, expected to be JSON following the request's schema.
    pub content: String,
    pub usage: Option<Usage>,
}

#[allow(async_fn_in_trait)]
pub trait ChatModel {
    async fn complete(&self, request: &ChatRequest) -> Result<ChatReply, LlmError>;

    /// Like `complete`, calling `on_text` with the reply so far as it streams in, where the
    /// provider streams; others answer all at once.
    async fn complete_streaming(&self, request: &ChatRequest, on_text: &dyn Fn(&str)) -> Result<ChatReply, LlmError> {
        let _ = on_text;
        self.complete(request).await
    }
}

/// The `id`s of a `{"data": [{"id": ...}]}` model list (OpenAI and Anthropic).
pub(crate) fn ids_in_data(list: &serde_json::Value) -> Vec<String> {
    list["data"]
        .as_array()
        .map(|models| models.iter().filter_map(|m| m["id"].as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// What every provider needs to reach its model: the API root, the model, the key, the HTTP
/// client, the retry policy and the user's options.
pub(crate) struct Connection<H> {
    pub base_url: String,
    pub model: String,
    pub api_key: String,
    pub http: H,
    pub retry: retry::RetryPolicy,
    pub options: ModelOptions,
}

impl<H> Connection<H> {
    /// `base_url` is the user's (trimmed, without a trailing slash), else `default`.
    pub fn new(base_url: &str, default: &str, model: &str, api_key: &str, http: H) -> Self {
        Connection {
            base_url: api_root(base_url, default),
            model: model.trim().to_string(),
            api_key: api_key.trim().to_string(),
            http,
            retry: retry::RetryPolicy::default(),
            options: ModelOptions::default(),
        }
    }
}

impl<H: HttpClient> Connection<H> {
    /// POSTs a request body with the retry policy; `Err` when no response came at all.
    pub async fn post(&self, url: &str, headers: &[(String, String)], body: &str) -> Result<HttpResponse, LlmError> {
        retry::post_with_retries(&self.http, &self.retry, url, headers, body)
            .await
            .map_err(|detail| LlmError::Unreachable { url: url.to_string(), detail })
    }

    /// [`Connection::post`] for a successful response's body; any other status is the error it
    /// stands for.
    pub async fn post_for_body(&self, url: &str, headers: &[(String, String)], body: &str) -> Result<String, LlmError> {
        let response = self.post(url, headers, body).await?;
        if !(200..300).contains(&response.status) {
            return Err(LlmError::from_response(response.status, &response.body, &self.model));
        }
        Ok(response.body)
    }

    /// GETs the provider's model list at `url` and reads the names out of it with `names`.
    pub async fn model_list(
        &self,
        url: &str,
        headers: &[(String, String)],
        names: impl Fn(&serde_json::Value) -> Vec<String>,
    ) -> Result<Vec<String>, LlmError> {
        let response = self
            .http
            .get(url, headers)
            .await
            .map_err(|detail| LlmError::Unreachable { url: url.to_string(), detail })?;
        if !(200..300).contains(&response.status) {
            return Err(LlmError::from_response(response.status, &response.body, &self.model));
        }
        let value: serde_json::Value = serde_json::from_str(&response.body)
            .map_err(|_| LlmError::MalformedResponse { detail: "the model list is not JSON".into() })?;
        let mut list = names(&value);
        list.sort();
        list.dedup();
        Ok(list)
    }
}

/// The API root to use: the user's, else the provider's public one, without a trailing slash.
pub(crate) fn api_root(base_url: &str, default: &str) -> String {
    let base = if base_url.trim().is_empty() { default } else { base_url.trim() };
    base.trim_end_matches('/').to_string()
}

/// A finished HTTP exchange, whatever its status.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HttpResponse {
    pub status: u16,
    pub body: String,
    /// The `Retry-After` header, when the server sent one.
    pub retry_after: Option<String>,
}

#[allow(async_fn_in_trait)]
pub trait HttpClient {
    /// POSTs a JSON body; `Err` only when no response arrived at all (refused, DNS, CORS, timeout).
    async fn post_json(&self, url: &str, headers: &[(String, String)], body: String) -> Result<HttpResponse, String>;
    /// GETs a resource, with the same meaning of `Err`.
    async fn get(&self, url: &str, headers: &[(String, String)]) -> Result<HttpResponse, String>;
    /// POSTs and hands the body to `on_chunk` as it arrives; the response holds the whole body.
    async fn post_stream(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: String,
        on_chunk: &dyn Fn(&str),
    ) -> Result<HttpResponse, String>;
    /// Waits between tries.
    async fn sleep(&self, milliseconds: u32);
    /// A number in 0..1 to spread retries out.
    fn jitter(&self) -> f64;
    /// Runs a request shaped by [`built_in::BuiltIn`] on the browser's built-in model (the
    /// worker's `LanguageModel`); answers `{"content": ...}` or `{"error": ...}`, `Err` when
    /// the browser has no such model.
    async fn prompt_built_in(&self, request: String) -> Result<String, String> {
        let _ = request;
        Err("no built-in model here".into())
    }
}
