use super::*;
use crate::llm::testing::{ok, request, status, CannedHttp, SentRequest};
use crate::llm::HttpResponse;
use futures::executor::block_on;

const REPLY: &str = r#"{"choices":[{"message":{"content":"{}"}}]}"#;

fn model(http: &CannedHttp) -> OpenAiCompatible<&CannedHttp> {
    OpenAiCompatible::new("http://x.test/v1", "m", "k", http)
}

#[test]
fn retries_passing_failures_with_backoff() {
    let http = CannedHttp::sequence(vec![status(503, "busy"), status(502, ""), ok(REPLY)]);
    assert!(block_on(model(&http).complete(&request())).is_ok());
    assert_eq!(http.sent.borrow().len(), 3);
    assert_eq!(*http.slept.borrow(), vec![1000, 2000]);
}

#[test]
fn waits_as_long_as_retry_after_says() {
    let limited = Ok(HttpResponse { status: 429, body: "slow down".into(), retry_after: Some("3".into()) });
    let http = CannedHttp::sequence(vec![limited, ok(REPLY)]);
    assert!(block_on(model(&http).complete(&request())).is_ok());
    assert_eq!(*http.slept.borrow(), vec![3000]);
}

#[test]
fn gives_up_after_the_last_try_with_a_clear_error() {
    let http = CannedHttp::new(status(429, r#"{"error":{"message":"Rate limit reached"}}"#));
    let err = block_on(model(&http).complete(&request())).unwrap_err();
    assert!(matches!(err, LlmError::RateLimited { .. }), "{err:?}");
    assert_eq!(http.sent.borrow().len(), 4);

    let http = CannedHttp::new(Err("Failed to fetch".into()));
    assert!(matches!(block_on(model(&http).complete(&request())), Err(LlmError::Unreachable { .. })));
    assert_eq!(http.sent.borrow().len(), 2, "a refused connection is tried twice, not four times");
}

#[test]
fn an_exhausted_quota_is_not_retried() {
    let http = CannedHttp::new(status(
        429,
        r#"{"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}}"#,
    ));
    let err = block_on(model(&http).complete(&request())).unwrap_err();
    assert!(matches!(err, LlmError::QuotaExhausted { .. }), "{err:?}");
    assert!(err.to_string().contains("billing"));
    assert_eq!(http.sent.borrow().len(), 1);
}

#[test]
fn falls_back_when_the_server_refuses_json_schema_and_remembers() {
    let refuse = status(400, r#"{"error":{"message":"response_format type json_schema is not supported"}}"#);
    let no_tools = status(400, r#"{"error":{"message":"This model does not support tools"}}"#);
    let http = CannedHttp::sequence(vec![refuse, no_tools, ok(REPLY), ok(REPLY)]);
    let m = model(&http);
    block_on(m.complete(&request())).unwrap();
    assert_eq!(m.output_mode(), OutputMode::JsonObject);
    assert!(block_on(m.complete(&request())).is_ok());
    let bodies: Vec<Value> = http.sent.borrow().iter().map(|s| serde_json::from_str(&s.body).unwrap()).collect();
    assert_eq!(bodies[0]["response_format"]["type"], "json_schema");
    assert_eq!(bodies[1]["tool_choice"]["function"]["name"], "navigator_output", "then a forced function call");
    assert_eq!(bodies[1]["tools"][0]["function"]["parameters"], json!({"type": "object"}));
    assert_eq!(bodies[2]["response_format"], json!({"type": "json_object"}));
    assert_eq!(bodies[3]["response_format"], json!({"type": "json_object"}), "the working mode is kept");
}

#[test]
fn a_context_overflow_says_so() {
    let http = CannedHttp::new(status(
        400,
        r#"{"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 8192 tokens"}}"#,
    ));
    let err = block_on(model(&http).complete(&request())).unwrap_err();
    assert!(matches!(err, LlmError::ContextTooLong { .. }), "{err:?}");
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
        (429, "slow down", "too many"),
        (500, "", "no details given"),
    ];
    for (status, body, expected) in cases {
        let http = CannedHttp::new(Ok(HttpResponse { status, body: body.into(), retry_after: None }));
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
