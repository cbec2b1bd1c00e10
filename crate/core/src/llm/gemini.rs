//! Google Gemini's generateContent: structured output through a response schema.

use super::sse::SseParser;
use super::{
    alternating, ChatModel, ChatReply, ChatRequest, Connection, Effort, HttpClient, LlmError, ModelOptions, Role, Usage,
};
use serde_json::{json, Map, Value};
use std::cell::RefCell;

pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

pub struct Gemini<H> {
    connection: Connection<H>,
}

impl<H: HttpClient> Gemini<H> {
    pub fn new(base_url: &str, model: &str, api_key: &str, http: H) -> Self {
        Self {
            connection: Connection::new(
                base_url,
                DEFAULT_BASE_URL,
                model.trim().trim_start_matches("models/"),
                api_key,
                http,
            ),
        }
    }

    pub fn with_options(mut self, options: ModelOptions) -> Self {
        self.connection.options = options;
        self
    }

    /// The models that can generate content (`GET /models`).
    pub async fn list_models(&self) -> Result<Vec<String>, LlmError> {
        let url = format!("{}/models?pageSize=1000", self.connection.base_url);
        self.connection
            .model_list(&url, &self.headers(), |v| {
                let models = v["models"].as_array().cloned().unwrap_or_default();
                models
                    .iter()
                    .filter(|m| {
                        m["supportedGenerationMethods"]
                            .as_array()
                            .is_none_or(|ms| ms.iter().any(|x| x == "generateContent"))
                    })
                    .filter_map(|m| m["name"].as_str().map(|n| n.trim_start_matches("models/").to_string()))
                    .collect()
            })
            .await
    }

    pub fn endpoint(&self) -> String {
        format!("{}/models/{}:generateContent", self.connection.base_url, self.connection.model)
    }

    pub fn headers(&self) -> Vec<(String, String)> {
        vec![
            ("Content-Type".into(), "application/json".into()),
            ("x-goog-api-key".into(), self.connection.api_key.clone()),
        ]
    }

    pub fn request_body(&self, request: &ChatRequest) -> Value {
        let (system, messages) = alternating(&request.messages);
        let contents: Vec<Value> =
            messages
                .iter()
                .map(|m| {
                    let role = if m.role == Role::Assistant { "model" } else { "user" };
                    let mut parts = vec![json!({ "text": m.content })];
                    parts.extend(m.images.iter().map(
                        |image| json!({ "inline_data": { "mime_type": image.media_type, "data": image.base64 } }),
                    ));
                    json!({ "role": role, "parts": parts })
                })
                .collect();
        let mut body = json!({
            "contents": contents,
            "generationConfig": { "responseMimeType": "application/json" },
        });
        // Gemini refuses objects without properties, which an outline schema has: JSON mode then.
        if request.strict {
            body["generationConfig"]["responseSchema"] = gemini_schema(&request.schema);
        }
        if let Some(system) = system {
            body["systemInstruction"] = json!({ "parts": [{ "text": system }] });
        }
        if let Some(temperature) = self.connection.options.temperature {
            body["generationConfig"]["temperature"] = json!(temperature);
        }
        if let Some(effort) = self.connection.options.reasoning_effort {
            let budget = match effort {
                Effort::Low => 1024,
                Effort::Medium => 4096,
                Effort::High => 16384,
            };
            body["generationConfig"]["thinkingConfig"] = json!({ "thinkingBudget": budget });
        }
        body
    }
}

/// A JSON schema in the OpenAPI subset Gemini accepts: no `additionalProperties`, and nullable
/// types written as `nullable: true` rather than a type list. (Gemini also refuses an object
/// without properties: the schemas sent strict have none, `schema_rules_tests` checks.)
pub fn gemini_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(object) => {
            let mut out = Map::new();
            for (key, value) in object {
                match (key.as_str(), value) {
                    ("additionalProperties", _) => {}
                    // Gemini's enums are strings only; `nullable` says that null is allowed.
                    ("enum", Value::Array(words)) => {
                        out.insert(key.clone(), words.iter().filter(|w| !w.is_null()).cloned().collect());
                    }
                    ("type", Value::Array(types)) => {
                        let concrete = types.iter().find(|t| *t != "null").cloned().unwrap_or(json!("string"));
                        out.insert("type".into(), concrete);
                        if types.iter().any(|t| t == "null") {
                            out.insert("nullable".into(), json!(true));
                        }
                    }
                    _ => {
                        out.insert(key.clone(), gemini_schema(value));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(gemini_schema).collect()),
        other => other.clone(),
    }
}

impl<H: HttpClient> ChatModel for Gemini<H> {
    /// Streams with `streamGenerateContent?alt=sse`: each event carries the next piece of text.
    async fn complete_streaming(&self, request: &ChatRequest, on_text: &dyn Fn(&str)) -> Result<ChatReply, LlmError> {
        let url =
            format!("{}/models/{}:streamGenerateContent?alt=sse", self.connection.base_url, self.connection.model);
        let body = self.request_body(request).to_string();
        let state = RefCell::new((SseParser::default(), String::new(), None::<Usage>));
        let on_chunk = |chunk: &str| {
            let mut state = state.borrow_mut();
            let events = state.0.push(chunk);
            let before = state.1.len();
            for event in events {
                let Ok(value) = serde_json::from_str::<Value>(&event.data) else { continue };
                if let Some(parts) = value.pointer("/candidates/0/content/parts").and_then(Value::as_array) {
                    let piece: String = parts.iter().filter_map(|p| p["text"].as_str()).collect();
                    state.1.push_str(&piece);
                }
                if let Some(u) = value.get("usageMetadata") {
                    state.2 = Some(Usage {
                        input_tokens: u["promptTokenCount"].as_u64().unwrap_or(0),
                        output_tokens: u["candidatesTokenCount"].as_u64().unwrap_or(0),
                    });
                }
            }
            if state.1.len() > before {
                on_text(&state.1);
            }
        };
        let response = self.connection.http.post_stream(&url, &self.headers(), body, &on_chunk).await;
        let Ok(response) = response else {
            // No answer at all: the plain path tries again, with its backoff, and reports.
            return self.complete(request).await;
        };
        let (_, text, usage) = state.into_inner();
        if !(200..300).contains(&response.status) || text.trim().is_empty() {
            // Errors, retries and blocked replies are the plain path's to report.
            return self.complete(request).await;
        }
        Ok(ChatReply { content: text, usage })
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatReply, LlmError> {
        let body = self.request_body(request).to_string();
        parse_reply(&self.connection.post_for_body(&self.endpoint(), &self.headers(), &body).await?)
    }
}

/// Reads the first candidate's text and the usage.
pub fn parse_reply(body: &str) -> Result<ChatReply, LlmError> {
    let malformed = |detail: String| LlmError::MalformedResponse { detail };
    let value: Value = serde_json::from_str(body).map_err(|_| malformed("the body is not JSON".into()))?;
    if let Some(reason) = value.pointer("/promptFeedback/blockReason").and_then(Value::as_str) {
        return Err(malformed(format!("the provider blocked the request ({reason})")));
    }
    let candidate = value.pointer("/candidates/0").ok_or_else(|| malformed("it has no candidates".into()))?;
    let text: String = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .map(|parts| parts.iter().filter_map(|p| p["text"].as_str()).collect())
        .unwrap_or_default();
    if text.trim().is_empty() {
        let reason = candidate["finishReason"].as_str().unwrap_or("no text");
        return Err(malformed(format!("the reply has no text (finish reason {reason})")));
    }
    let usage = value.get("usageMetadata").map(|u| Usage {
        input_tokens: u["promptTokenCount"].as_u64().unwrap_or(0),
        output_tokens: u["candidatesTokenCount"].as_u64().unwrap_or(0),
    });
    Ok(ChatReply { content: text, usage })
}
