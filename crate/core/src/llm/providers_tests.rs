//! Contract tests for the Anthropic and Gemini wire formats: request shape, reply parsing,
//! errors and retries, against canned responses in each provider's documented format.

use super::anthropic::{self, Anthropic};
use super::gemini::{self, Gemini};
use super::testing::{ok, request, status, CannedHttp};
use super::{alternating, ChatMessage, ChatModel, ChatRequest, LlmError, Role, Usage};
use futures::executor::block_on;
use serde_json::{json, Value};

fn conversation() -> ChatRequest {
    ChatRequest {
        messages: vec![
            ChatMessage::system("sys"),
            ChatMessage::user("task"),
            ChatMessage::assistant("step 1"),
            ChatMessage::assistant("step 2"),
            ChatMessage::user("state"),
        ],
        schema_name: "navigator_output".into(),
        strict: true,
        schema: json!({"type": "object", "properties": {"i": {"type": ["integer", "null"]}}, "additionalProperties": false}),
    }
}

fn sent_body(http: &CannedHttp) -> Value {
    serde_json::from_str(&http.sent.borrow()[0].body).unwrap()
}

#[test]
fn turns_are_made_alternating_with_the_system_message_apart() {
    let (system, turns) = alternating(&conversation().messages);
    assert_eq!(system.as_deref(), Some("sys"));
    let roles: Vec<Role> = turns.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::User]);
    assert_eq!(turns[1].content, "step 1\n\nstep 2");
}

const ANTHROPIC_REPLY: &str = r#"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"tu_1","name":"navigator_output","input":{"action":[]}}],"stop_reason":"tool_use","usage":{"input_tokens":120,"output_tokens":9}}"#;

#[test]
fn anthropic_requests_force_the_tool_with_the_browser_headers() {
    let http = CannedHttp::new(ok(ANTHROPIC_REPLY));
    let reply = block_on(Anthropic::new("", "claude-x", "sk-ant", &http).complete(&conversation())).unwrap();
    assert_eq!(reply.content, r#"{"action":[]}"#);
    assert_eq!(reply.usage, Some(Usage { input_tokens: 120, output_tokens: 9 }));
    let sent = &http.sent.borrow()[0];
    assert_eq!(sent.url, "https://api.anthropic.com/v1/messages");
    for header in [
        ("x-api-key", "sk-ant"),
        ("anthropic-version", "2023-06-01"),
        ("anthropic-dangerous-direct-browser-access", "true"),
    ] {
        assert!(sent.headers.contains(&(header.0.into(), header.1.into())), "missing {header:?}");
    }
    let body = sent_body(&http);
    assert_eq!(body["system"], "sys");
    assert_eq!(body["messages"].as_array().unwrap().len(), 3);
    assert_eq!(body["tool_choice"], json!({"type": "tool", "name": "navigator_output"}));
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
    assert!(body["max_tokens"].as_u64().unwrap() > 0);
}

#[test]
fn anthropic_replies_that_are_cut_off_or_empty_are_malformed() {
    let cut = r#"{"content":[{"type":"text","text":"{\"act"}],"stop_reason":"max_tokens"}"#;
    assert!(anthropic::parse_reply(cut).unwrap_err().to_string().contains("cut off"));
    let text = r#"{"content":[{"type":"text","text":"{\"action\":[]}"}],"stop_reason":"end_turn"}"#;
    assert_eq!(anthropic::parse_reply(text).unwrap().content, r#"{"action":[]}"#);
    assert!(anthropic::parse_reply(r#"{"content":[]}"#).is_err());
    assert!(anthropic::parse_reply("<html>").is_err());
}

#[test]
fn anthropic_errors_are_classified_and_overload_is_retried() {
    let auth = status(401, r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#);
    let http = CannedHttp::new(auth);
    let err = block_on(Anthropic::new("", "m", "k", &http).complete(&request())).unwrap_err();
    assert!(matches!(err, LlmError::Unauthorized { .. }) && err.to_string().contains("invalid x-api-key"), "{err}");

    let overloaded = status(529, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
    let http = CannedHttp::sequence(vec![overloaded, ok(ANTHROPIC_REPLY)]);
    assert!(block_on(Anthropic::new("", "m", "k", &http).complete(&request())).is_ok());
    assert_eq!(http.sent.borrow().len(), 2);

    let long = status(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
    );
    let http = CannedHttp::new(long);
    assert!(matches!(
        block_on(Anthropic::new("", "m", "k", &http).complete(&request())),
        Err(LlmError::ContextTooLong { .. })
    ));
}

const GEMINI_REPLY: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"action\":[]}"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":88,"candidatesTokenCount":7}}"#;

#[test]
fn gemini_requests_carry_the_schema_in_its_dialect() {
    let http = CannedHttp::new(ok(GEMINI_REPLY));
    let reply = block_on(Gemini::new("", "models/gemini-x", "g-key", &http).complete(&conversation())).unwrap();
    assert_eq!(reply.content, r#"{"action":[]}"#);
    assert_eq!(reply.usage, Some(Usage { input_tokens: 88, output_tokens: 7 }));
    let sent = &http.sent.borrow()[0];
    assert_eq!(sent.url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-x:generateContent");
    assert!(sent.headers.contains(&("x-goog-api-key".into(), "g-key".into())));
    let body = sent_body(&http);
    assert_eq!(body["systemInstruction"]["parts"][0]["text"], "sys");
    let roles: Vec<&str> = body["contents"].as_array().unwrap().iter().map(|c| c["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "model", "user"]);
    let schema = &body["generationConfig"]["responseSchema"];
    assert_eq!(body["generationConfig"]["responseMimeType"], "application/json");
    assert!(schema.get("additionalProperties").is_none());
    assert_eq!(schema["properties"]["i"], json!({"type": "integer", "nullable": true}));
}

#[test]
fn an_outline_schema_is_sent_loose_and_gemini_gets_json_mode_instead() {
    use super::{AnyModel, ModelOptions, Provider};
    let outline = ChatRequest { strict: false, ..conversation() };
    let http = CannedHttp::new(ok(r#"{"choices":[{"message":{"content":"{}"}}]}"#));
    block_on(AnyModel::new(Provider::OpenAi, "", "m", "k", ModelOptions::default(), &http).complete(&outline)).unwrap();
    let format = &sent_body(&http)["response_format"];
    assert_eq!(format["json_schema"]["strict"], json!(false));
    assert_eq!(format["json_schema"]["schema"], outline.schema);
    let http = CannedHttp::new(ok(GEMINI_REPLY));
    block_on(Gemini::new("", "gemini-x", "k", &http).complete(&outline)).unwrap();
    let config = &sent_body(&http)["generationConfig"];
    assert_eq!(config["responseMimeType"], "application/json");
    assert!(config.get("responseSchema").is_none(), "{config}");
}

#[test]
fn gemini_blocked_or_empty_replies_are_malformed() {
    let blocked = r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#;
    assert!(gemini::parse_reply(blocked).unwrap_err().to_string().contains("blocked the request (SAFETY)"));
    let empty = r#"{"candidates":[{"content":{"parts":[]},"finishReason":"MAX_TOKENS"}]}"#;
    assert!(gemini::parse_reply(empty).unwrap_err().to_string().contains("finish reason MAX_TOKENS"));
}

#[test]
fn gemini_errors_are_classified_and_rate_limits_retried() {
    let bad_key = status(
        400,
        r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}"#,
    );
    let http = CannedHttp::new(bad_key);
    assert!(matches!(
        block_on(Gemini::new("", "m", "k", &http).complete(&request())),
        Err(LlmError::Unauthorized { .. })
    ));

    let limited = status(
        429,
        r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#,
    );
    let http = CannedHttp::sequence(vec![limited, ok(GEMINI_REPLY)]);
    assert!(block_on(Gemini::new("", "m", "k", &http).complete(&request())).is_ok());
}

#[test]
fn options_reach_each_provider_in_its_own_words() {
    use super::{AnyModel, Effort, ModelOptions, Provider};
    let options = ModelOptions { temperature: Some(0.2), reasoning_effort: Some(Effort::High), api_version: None };
    let http = CannedHttp::new(ok(r#"{"choices":[{"message":{"content":"{}"}}]}"#));
    block_on(AnyModel::new(Provider::OpenAi, "", "o4-mini", "k", options.clone(), &http).complete(&request())).unwrap();
    let body = sent_body(&http);
    assert_eq!(body["temperature"], 0.2);
    assert_eq!(body["reasoning_effort"], "high");
    assert_eq!(http.sent.borrow()[0].url, "https://api.openai.com/v1/chat/completions");

    let http = CannedHttp::new(ok(GEMINI_REPLY));
    block_on(AnyModel::new(Provider::Gemini, "", "g", "k", options.clone(), &http).complete(&request())).unwrap();
    let body = sent_body(&http);
    assert_eq!(body["generationConfig"]["temperature"], 0.2);
    assert_eq!(body["generationConfig"]["thinkingConfig"]["thinkingBudget"], 16384);

    let http = CannedHttp::new(ok(ANTHROPIC_REPLY));
    block_on(AnyModel::new(Provider::Anthropic, "", "c", "k", options, &http).complete(&request())).unwrap();
    let body = sent_body(&http);
    assert_eq!(body["temperature"], 0.2);
    assert!(body.get("thinking").is_none(), "thinking cannot be combined with a forced tool");
}

#[test]
fn azure_deployments_get_the_api_version_and_key_header() {
    use super::{AnyModel, ModelOptions, Provider};
    let http = CannedHttp::new(ok(r#"{"choices":[{"message":{"content":"{}"}}]}"#));
    let base = "https://res.openai.azure.com/openai/deployments/agent";
    block_on(
        AnyModel::new(Provider::Azure, base, "gpt-4o", "az-key", ModelOptions::default(), &http).complete(&request()),
    )
    .unwrap();
    let sent = &http.sent.borrow()[0];
    assert_eq!(sent.url, format!("{base}/chat/completions?api-version=2024-10-21"));
    assert!(sent.headers.contains(&("api-key".into(), "az-key".into())));
    assert!(sent.headers.iter().all(|(name, _)| name != "Authorization"));
}

#[test]
fn a_local_server_refusing_the_extension_is_explained() {
    use super::{AnyModel, ModelOptions, Provider};
    let http = CannedHttp::new(status(403, ""));
    let err = block_on(
        AnyModel::new(
            Provider::OpenAiCompatible,
            "http://localhost:11434/v1",
            "llama3.1",
            "",
            ModelOptions::default(),
            &http,
        )
        .complete(&request()),
    )
    .unwrap_err();
    assert!(matches!(err, LlmError::OriginRefused { .. }));
    assert!(err.to_string().contains("OLLAMA_ORIGINS=chrome-extension://*"), "{err}");
}

#[test]
fn model_lists_are_read_from_each_provider() {
    use super::{AnyModel, ModelOptions, Provider};
    let cases = [
        (
            Provider::OpenAiCompatible,
            "http://x.test/v1",
            r#"{"object":"list","data":[{"id":"llama3.1"},{"id":"qwen2.5"}]}"#,
            "http://x.test/v1/models",
            vec!["llama3.1", "qwen2.5"],
        ),
        (
            Provider::Anthropic,
            "",
            r#"{"data":[{"id":"claude-sonnet-4-5","type":"model"}],"has_more":false}"#,
            "https://api.anthropic.com/v1/models?limit=1000",
            vec!["claude-sonnet-4-5"],
        ),
        (
            Provider::Gemini,
            "",
            r#"{"models":[{"name":"models/gemini-2.5-flash","supportedGenerationMethods":["generateContent"]},{"name":"models/embedding-001","supportedGenerationMethods":["embedContent"]}]}"#,
            "https://generativelanguage.googleapis.com/v1beta/models?pageSize=1000",
            vec!["gemini-2.5-flash"],
        ),
    ];
    for (provider, base, body, url, expected) in cases {
        let http = CannedHttp::new(ok(body));
        let models =
            block_on(AnyModel::new(provider, base, "m", "k", ModelOptions::default(), &http).list_models()).unwrap();
        assert_eq!(models, expected, "{provider:?}");
        assert_eq!(http.sent.borrow()[0].url, url);
    }
}

#[test]
fn openai_compatible_replies_stream_in_and_add_up() {
    use super::{AnyModel, ModelOptions, Provider};
    let chunks = [
        r#"{"choices":[{"delta":{"role":"assistant","content":""}}]}"#,
        r#"{"choices":[{"delta":{"content":"{\"action\": "}}]}"#,
        r#"{"choices":[{"delta":{"content":"[]}"}}]}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":50,"completion_tokens":6}}"#,
        "[DONE]",
    ];
    let body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    let http = CannedHttp::new(ok(&body));
    let seen = std::cell::RefCell::new(Vec::new());
    let model = AnyModel::new(Provider::OpenAiCompatible, "http://x.test/v1", "m", "", ModelOptions::default(), &http);
    let reply =
        block_on(model.complete_streaming(&request(), &|text| seen.borrow_mut().push(text.to_string()))).unwrap();
    assert_eq!(reply.content, r#"{"action": []}"#);
    assert_eq!(reply.usage, Some(Usage { input_tokens: 50, output_tokens: 6 }));
    assert_eq!(seen.borrow().last().map(String::as_str), Some(r#"{"action": []}"#));
    assert!(seen.borrow().len() >= 2, "partial text was shown as it came");
    assert_eq!(sent_body(&http)["stream"], true);
}

#[test]
fn a_server_that_cannot_stream_is_asked_again_without_and_not_again() {
    use super::{AnyModel, ModelOptions, Provider};
    let refuse = status(400, r#"{"error":{"message":"Unrecognized request argument supplied: stream_options"}}"#);
    let http = CannedHttp::sequence(vec![refuse, ok(r#"{"choices":[{"message":{"content":"{}"}}]}"#)]);
    let model = AnyModel::new(Provider::OpenAiCompatible, "http://x.test/v1", "m", "", ModelOptions::default(), &http);
    assert_eq!(block_on(model.complete_streaming(&request(), &|_| {})).unwrap().content, "{}");
    assert_eq!(block_on(model.complete_streaming(&request(), &|_| {})).unwrap().content, "{}");
    let bodies: Vec<Value> = http.sent.borrow().iter().map(|s| serde_json::from_str(&s.body).unwrap()).collect();
    assert_eq!(bodies.len(), 3);
    assert!(bodies[1].get("stream").is_none() && bodies[2].get("stream").is_none());
}

#[test]
fn anthropic_tool_input_streams_in() {
    let events = [
        ("message_start", r#"{"type":"message_start","message":{"usage":{"input_tokens":70,"output_tokens":1}}}"#),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"navigator_output","input":{}}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"action\": "}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"[]}"}}"#,
        ),
        ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ];
    let body: String = events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect();
    let http = CannedHttp::new(ok(&body));
    let seen = std::cell::RefCell::new(Vec::new());
    let reply = block_on(
        Anthropic::new("", "c", "k", &http).complete_streaming(&request(), &|t| seen.borrow_mut().push(t.to_string())),
    )
    .unwrap();
    assert_eq!(reply.content, r#"{"action": []}"#);
    assert_eq!(reply.usage, Some(Usage { input_tokens: 70, output_tokens: 9 }));
    assert_eq!(seen.borrow().len(), 2);
    assert_eq!(sent_body(&http)["stream"], true);
}

#[test]
fn gemini_text_streams_in() {
    let chunks = [
        r#"{"candidates":[{"content":{"parts":[{"text":"{\"action\": "}],"role":"model"}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"[]}"}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":5}}"#,
    ];
    let body: String = chunks.iter().map(|c| format!("data: {c}\r\n\r\n")).collect();
    let http = CannedHttp::new(ok(&body));
    let reply = block_on(Gemini::new("", "g", "k", &http).complete_streaming(&request(), &|_| {})).unwrap();
    assert_eq!(reply.content, r#"{"action": []}"#);
    assert_eq!(reply.usage, Some(Usage { input_tokens: 40, output_tokens: 5 }));
    assert!(http.sent.borrow()[0].url.ends_with("/models/g:streamGenerateContent?alt=sse"));
}

/// Whether the canned stream's 7-byte pieces cut a character of `body` in two.
fn pieces_split_a_character(body: &str) -> bool {
    (7..body.len()).step_by(7).any(|cut| !body.is_char_boundary(cut))
}

#[test]
fn text_outside_ascii_streams_in_whole_when_pieces_split_its_characters() {
    use super::{AnyModel, ModelOptions, Provider};
    // Two, three and four bytes a character, so that 7-byte pieces cut several of them.
    let text = "Größe: 42 € — 日本語のテキスト 🙂👍 Ünïcödé";
    let escaped = |text: &str| serde_json::to_string(text).unwrap();
    let (first, second) = text.split_at(text.find('日').unwrap());

    let openai: String = [
        format!(r#"{{"choices":[{{"delta":{{"content":{}}}}}]}}"#, escaped(first)),
        format!(r#"{{"choices":[{{"delta":{{"content":{}}}}}]}}"#, escaped(second)),
        "[DONE]".to_string(),
    ]
    .iter()
    .map(|data| format!("data: {data}\n\n"))
    .collect();
    let anthropic: String = [first, second]
        .iter()
        .map(|piece| {
            let delta =
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}});
            format!("event: content_block_delta\ndata: {delta}\n\n")
        })
        .collect();
    let gemini: String = [first, second]
        .iter()
        .map(|piece| format!("data: {}\r\n\r\n", json!({"candidates": [{"content": {"parts": [{"text": piece}]}}]})))
        .collect();

    for (name, body) in [("openai", &openai), ("anthropic", &anthropic), ("gemini", &gemini)] {
        assert!(pieces_split_a_character(body), "{name}: no character is split, so this proves nothing");
        let http = CannedHttp::new(ok(body));
        let shown = std::cell::RefCell::new(Vec::new());
        let on_text = |partial: &str| shown.borrow_mut().push(partial.to_string());
        let reply = match name {
            "openai" => {
                let model = AnyModel::new(
                    Provider::OpenAiCompatible,
                    "http://x.test/v1",
                    "m",
                    "",
                    ModelOptions::default(),
                    &http,
                );
                block_on(model.complete_streaming(&request(), &on_text))
            }
            "anthropic" => block_on(Anthropic::new("", "c", "k", &http).complete_streaming(&request(), &on_text)),
            _ => block_on(Gemini::new("", "g", "k", &http).complete_streaming(&request(), &on_text)),
        }
        .unwrap();
        assert_eq!(reply.content, text, "{name}");
        assert_eq!(shown.borrow().first().map(String::as_str), Some(first), "{name}: the first piece as it came");
        assert_eq!(shown.borrow().last().map(String::as_str), Some(text), "{name}");
    }
}

#[test]
fn screenshots_travel_in_each_provider_s_image_format() {
    use super::{AnyModel, Image, ModelOptions, Provider};
    let image = Image { media_type: "image/jpeg".into(), base64: "QUJD".into() };
    let with_image = ChatRequest {
        messages: vec![ChatMessage::system("sys"), ChatMessage::user("state").with_images(vec![image])],
        ..request()
    };
    let http = CannedHttp::new(ok(r#"{"choices":[{"message":{"content":"{}"}}]}"#));
    block_on(AnyModel::new(Provider::OpenAi, "", "m", "k", ModelOptions::default(), &http).complete(&with_image))
        .unwrap();
    assert_eq!(
        sent_body(&http)["messages"][1]["content"][1],
        json!({"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,QUJD"}})
    );

    let http = CannedHttp::new(ok(ANTHROPIC_REPLY));
    block_on(Anthropic::new("", "c", "k", &http).complete(&with_image)).unwrap();
    assert_eq!(
        sent_body(&http)["messages"][0]["content"][1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "QUJD"}})
    );

    let http = CannedHttp::new(ok(GEMINI_REPLY));
    block_on(Gemini::new("", "g", "k", &http).complete(&with_image)).unwrap();
    assert_eq!(
        sent_body(&http)["contents"][0]["parts"][1],
        json!({"inline_data": {"mime_type": "image/jpeg", "data": "QUJD"}})
    );
}

/// The OpenAI-compatible servers, each with what its documentation says about addresses, keys,
/// structured output and errors.
#[test]
fn openai_compatible_servers_behave_as_documented() {
    use super::{AnyModel, ModelOptions, OpenAiCompatible, OutputMode, Provider};
    let reply = r#"{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}"#;
    struct Server {
        name: &'static str,
        base: &'static str,
        key: &'static str,
        /// The server's documented answer to a json_schema request it cannot honour, if any.
        schema_refusal: Option<&'static str>,
        expected_mode: OutputMode,
    }
    let servers = [
        Server {
            name: "Ollama",
            base: "http://localhost:11434/v1",
            key: "",
            schema_refusal: None,
            expected_mode: OutputMode::JsonSchema,
        },
        Server {
            name: "LM Studio",
            base: "http://localhost:1234/v1",
            key: "lm-studio",
            schema_refusal: None,
            expected_mode: OutputMode::JsonSchema,
        },
        Server {
            name: "llama.cpp",
            base: "http://127.0.0.1:8080/v1",
            key: "",
            schema_refusal: None,
            expected_mode: OutputMode::JsonSchema,
        },
        Server {
            name: "vLLM",
            base: "http://gpu.local:8000/v1",
            key: "token",
            schema_refusal: Some(
                r#"{"object":"error","message":"response_format json_schema requires guided decoding","type":"BadRequestError","code":400}"#,
            ),
            expected_mode: OutputMode::FunctionCall,
        },
        Server {
            name: "OpenRouter",
            base: "https://openrouter.ai/api/v1",
            key: "sk-or",
            schema_refusal: None,
            expected_mode: OutputMode::JsonSchema,
        },
        Server {
            name: "Groq",
            base: "https://api.groq.com/openai/v1",
            key: "gsk",
            schema_refusal: Some(
                r#"{"error":{"message":"response_format` json_schema` is not supported with this model","type":"invalid_request_error"}}"#,
            ),
            expected_mode: OutputMode::FunctionCall,
        },
        Server {
            name: "DeepSeek",
            base: "https://api.deepseek.com/v1",
            key: "sk-ds",
            schema_refusal: Some(
                r#"{"error":{"message":"This response_format type is unavailable now","type":"invalid_request_error"}}"#,
            ),
            expected_mode: OutputMode::FunctionCall,
        },
    ];
    for server in servers {
        let mut responses = Vec::new();
        if let Some(refusal) = server.schema_refusal {
            responses.push(status(400, refusal));
        }
        responses.push(ok(reply));
        let http = CannedHttp::sequence(responses);
        let model = OpenAiCompatible::new(server.base, "m", server.key, &http);
        let answer = block_on(model.complete(&request())).unwrap();
        assert_eq!(answer.content, "{}", "{}", server.name);
        assert_eq!(model.output_mode(), server.expected_mode, "{}", server.name);
        let sent = &http.sent.borrow()[0];
        assert_eq!(sent.url, format!("{}/chat/completions", server.base), "{}", server.name);
        let auth = sent.headers.iter().find(|(name, _)| name == "Authorization").map(|(_, v)| v.clone());
        assert_eq!(auth, (!server.key.is_empty()).then(|| format!("Bearer {}", server.key)), "{}", server.name);
    }

    // OpenRouter's out-of-credits answer and vLLM's error body say what to do.
    let http = CannedHttp::new(status(402, r#"{"error":{"code":402,"message":"Insufficient credits"}}"#));
    let err = block_on(
        AnyModel::new(
            Provider::OpenAiCompatible,
            "https://openrouter.ai/api/v1",
            "m",
            "k",
            ModelOptions::default(),
            &http,
        )
        .complete(&request()),
    )
    .unwrap_err();
    assert!(
        matches!(err, LlmError::QuotaExhausted { .. }) && err.to_string().contains("Insufficient credits"),
        "{err}"
    );
    let http = CannedHttp::new(status(
        400,
        r#"{"object":"error","message":"max_tokens is too large","type":"BadRequestError","code":400}"#,
    ));
    let err =
        block_on(OpenAiCompatible::new("http://gpu.local:8000/v1", "m", "", &http).complete(&request())).unwrap_err();
    assert!(err.to_string().contains("max_tokens is too large"), "{err}");
}
