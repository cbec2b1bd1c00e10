use super::*;
use crate::llm::{ChatMessage, HttpResponse};
use futures::executor::block_on;
use std::cell::RefCell;

/// Answers every request with one canned response and records what was sent.
struct CannedHttp {
    response: Result<HttpResponse, String>,
    sent: RefCell<Vec<SentRequest>>,
}

struct SentRequest {
    url: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl CannedHttp {
    fn new(response: Result<HttpResponse, String>) -> Self {
        Self { response, sent: RefCell::new(Vec::new()) }
    }
}

impl HttpClient for &CannedHttp {
    async fn post_json(&self, url: &str, headers: &[(String, String)], body: String) -> Result<HttpResponse, String> {
        self.sent.borrow_mut().push(SentRequest { url: url.to_string(), headers: headers.to_vec(), body });
        self.response.clone()
    }
}

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::system("sys"), ChatMessage::user("hi")],
        schema_name: "navigator_output".into(),
        schema: json!({"type": "object"}),
    }
}

fn ok(body: &str) -> Result<HttpResponse, String> {
    Ok(HttpResponse { status: 200, body: body.into() })
}

#[test]
fn sends_the_chat_completions_request_with_a_json_schema() {
    let http = CannedHttp::new(ok(r#"{"choices":[{"message":{"role":"assistant","content":"{}"}}]}"#));
    let model = OpenAiCompatible::new("http://127.0.0.1:9/v1/", "gpt-test", "sk-1", &http);
    block_on(model.complete(&request())).unwrap();
    let sent = http.sent.borrow();
    let SentRequest { url, headers, body } = &sent[0];
    assert_eq!(url, "http://127.0.0.1:9/v1/chat/completions");
    assert!(headers.contains(&("Authorization".into(), "Bearer sk-1".into())));
    let body: Value = serde_json::from_str(body).unwrap();
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(body["messages"][0], json!({"role": "system", "content": "sys"}));
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["name"], "navigator_output");
    assert_eq!(body["response_format"]["json_schema"]["schema"], json!({"type": "object"}));
}

#[test]
fn omits_the_authorization_header_without_a_key() {
    let http = CannedHttp::new(ok(r#"{"choices":[{"message":{"content":"{}"}}]}"#));
    block_on(OpenAiCompatible::new("http://localhost:11434/v1", "llama", " ", &http).complete(&request())).unwrap();
    assert!(http.sent.borrow()[0].headers.iter().all(|(name, _)| name != "Authorization"));
}

#[test]
fn reads_content_and_usage() {
    let reply = parse_reply(
        r#"{"choices":[{"message":{"content":"{\"a\":1}"}}],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#,
    )
    .unwrap();
    assert_eq!(reply.content, "{\"a\":1}");
    assert_eq!(reply.usage, Some(Usage { input_tokens: 12, output_tokens: 3 }));
}

#[test]
fn reads_a_tool_call_when_the_server_answers_with_one() {
    let reply = parse_reply(r#"{"choices":[{"message":{"content":null,"tool_calls":[{"function":{"name":"x","arguments":"{\"b\":2}"}}]}}]}"#).unwrap();
    assert_eq!(reply.content, "{\"b\":2}");
}

#[test]
fn maps_statuses_to_errors_the_user_can_act_on() {
    let cases = [
        (401, r#"{"error":{"message":"Incorrect API key provided"}}"#, "refused the API key"),
        (404, r#"{"error":{"message":"model not found"}}"#, "does not know the model \"m\""),
        (429, "slow down", "rate limiting"),
        (500, "", "no details given"),
    ];
    for (status, body, expected) in cases {
        let http = CannedHttp::new(Ok(HttpResponse { status, body: body.into() }));
        let err =
            block_on(OpenAiCompatible::new("http://x.test/v1", "m", "k", &http).complete(&request())).unwrap_err();
        assert!(err.to_string().contains(expected), "{status}: {err}");
    }
}

#[test]
fn reports_an_unreachable_server_with_its_address() {
    let http = CannedHttp::new(Err("Failed to fetch".into()));
    let err =
        block_on(OpenAiCompatible::new("http://127.0.0.1:1/v1", "m", "", &http).complete(&request())).unwrap_err();
    assert!(matches!(err, LlmError::Unreachable { .. }));
    assert!(err.to_string().contains("http://127.0.0.1:1/v1/chat/completions"), "{err}");
}

#[test]
fn rejects_bodies_that_are_not_chat_replies() {
    assert!(matches!(parse_reply("<html>"), Err(LlmError::MalformedResponse { .. })));
    assert!(matches!(parse_reply(r#"{"choices":[]}"#), Err(LlmError::MalformedResponse { .. })));
    let refusal = parse_reply(r#"{"choices":[{"message":{"content":null,"refusal":"no"}}]}"#).unwrap_err();
    assert!(refusal.to_string().contains("refused: no"));
}
