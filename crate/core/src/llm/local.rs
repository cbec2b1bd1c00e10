//! Model servers on this computer: where the common OpenAI-compatible ones listen, and which of
//! them answer, with their models, for a first-run setup that needs no typing.

use super::{AnyModel, HttpClient, LlmError, ModelOptions, Provider};
use futures::future::join_all;
use serde::Serialize;

/// A local server the setup looks for.
pub struct LocalServer {
    pub name: &'static str,
    pub base_url: &'static str,
}

/// The common servers at their default ports.
pub const LOCAL_SERVERS: &[LocalServer] = &[
    LocalServer { name: "Ollama", base_url: "http://127.0.0.1:11434/v1" },
    LocalServer { name: "LM Studio", base_url: "http://127.0.0.1:1234/v1" },
    LocalServer { name: "llama.cpp", base_url: "http://127.0.0.1:8080/v1" },
    LocalServer { name: "vLLM", base_url: "http://127.0.0.1:8000/v1" },
    LocalServer { name: "Jan", base_url: "http://127.0.0.1:1337/v1" },
];

/// A server that answered: its models, or why it could not be used (say, Ollama refusing the
/// extension, with what to do about it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FoundServer {
    pub name: &'static str,
    pub base_url: &'static str,
    pub models: Vec<String>,
    pub problem: Option<String>,
}

/// Asks every server of [`LOCAL_SERVERS`] for its models at once. A server that does not answer
/// at all is not running and is left out; one that answers with an error is listed with it.
pub async fn find_local_servers<H: HttpClient + Clone>(http: H) -> Vec<FoundServer> {
    let asked = LOCAL_SERVERS.iter().map(|server| {
        let model =
            AnyModel::new(Provider::OpenAiCompatible, server.base_url, "", "", ModelOptions::default(), http.clone());
        async move { (server, model.list_models().await) }
    });
    join_all(asked)
        .await
        .into_iter()
        .filter_map(|(server, answer)| {
            let (models, problem) = match answer {
                Err(LlmError::Unreachable { .. }) => return None,
                Ok(models) if models.is_empty() => {
                    (models, Some(format!("{} offers no models yet: download one first.", server.name)))
                }
                Ok(models) => (models, None),
                Err(err) => (Vec::new(), Some(err.to_string())),
            };
            Some(FoundServer { name: server.name, base_url: server.base_url, models, problem })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::testing::{ok, status, CannedHttp};
    use futures::executor::block_on;

    #[test]
    fn servers_that_answer_are_listed_with_their_models_or_what_to_do() {
        let loopback = CannedHttp::routes([
            ("http://127.0.0.1:11434/v1/models", status(403, "")),
            ("http://127.0.0.1:1234/v1/models", ok(r#"{"object":"list","data":[{"id":"qwen2.5-7b-instruct"}]}"#)),
            ("http://127.0.0.1:8000/v1/models", ok(r#"{"object":"list","data":[]}"#)),
        ]);
        let found = block_on(find_local_servers(&loopback));
        let names: Vec<&str> = found.iter().map(|server| server.name).collect();
        assert_eq!(names, ["Ollama", "LM Studio", "vLLM"], "llama.cpp and Jan are not running");
        assert!(found[0].problem.as_deref().unwrap().contains("OLLAMA_ORIGINS=chrome-extension://*"));
        assert_eq!(found[1].models, ["qwen2.5-7b-instruct"]);
        assert_eq!(found[1].problem, None);
        assert_eq!(found[2].problem.as_deref(), Some("vLLM offers no models yet: download one first."));
    }
}
