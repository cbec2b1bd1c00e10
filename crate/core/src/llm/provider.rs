//! The provider the user chose, behind one interface.

use super::anthropic::Anthropic;
use super::built_in::{BuiltIn, BUILT_IN_MODEL};
use super::gemini::Gemini;
use super::{ChatModel, ChatReply, ChatRequest, HttpClient, LlmError, ModelOptions, OpenAiCompatible};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    #[serde(rename = "openai")]
    OpenAi,
    Anthropic,
    Gemini,
    /// Any server speaking OpenAI's chat-completions format at the given base URL.
    #[default]
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
    /// An Azure OpenAI deployment: the base URL ends in `/openai/deployments/NAME`.
    Azure,
    /// Chrome's built-in model (the Prompt API), run by the worker: no server, no key.
    ChromeBuiltIn,
}

pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

impl Provider {
    /// Whether the user must give a base URL (the others have a default one).
    pub fn needs_base_url(self) -> bool {
        matches!(self, Provider::OpenAiCompatible | Provider::Azure)
    }

    /// Whether `model` is Chrome's built-in model: this provider's only one, or the name that
    /// stands for it with any provider (an agent of its own on it).
    pub fn is_built_in(self, model: &str) -> bool {
        self == Provider::ChromeBuiltIn || model.trim().eq_ignore_ascii_case(BUILT_IN_MODEL)
    }
}

pub enum AnyModel<H> {
    OpenAi(OpenAiCompatible<H>),
    Anthropic(Anthropic<H>),
    Gemini(Gemini<H>),
    BuiltIn(BuiltIn<H>),
}

impl<H: HttpClient> AnyModel<H> {
    pub fn new(provider: Provider, base_url: &str, model: &str, api_key: &str, options: ModelOptions, http: H) -> Self {
        if provider.is_built_in(model) {
            return AnyModel::BuiltIn(BuiltIn::new(http));
        }
        match provider {
            Provider::OpenAi => {
                let base = if base_url.trim().is_empty() { OPENAI_BASE_URL } else { base_url };
                AnyModel::OpenAi(OpenAiCompatible::new(base, model, api_key, http).with_options(options))
            }
            Provider::OpenAiCompatible => {
                AnyModel::OpenAi(OpenAiCompatible::new(base_url, model, api_key, http).with_options(options))
            }
            Provider::Azure => AnyModel::OpenAi(
                OpenAiCompatible::new(base_url, model, api_key, http).with_options(options).for_azure(),
            ),
            Provider::Anthropic => {
                AnyModel::Anthropic(Anthropic::new(base_url, model, api_key, http).with_options(options))
            }
            Provider::Gemini => AnyModel::Gemini(Gemini::new(base_url, model, api_key, http).with_options(options)),
            Provider::ChromeBuiltIn => AnyModel::BuiltIn(BuiltIn::new(http)),
        }
    }
}

impl<H: HttpClient> AnyModel<H> {
    /// The models the provider offers, for the settings page.
    pub async fn list_models(&self) -> Result<Vec<String>, LlmError> {
        match self {
            AnyModel::OpenAi(model) => model.list_models().await,
            AnyModel::Anthropic(model) => model.list_models().await,
            AnyModel::Gemini(model) => model.list_models().await,
            AnyModel::BuiltIn(_) => Ok(vec![BUILT_IN_MODEL.to_string()]),
        }
    }
}

impl<H: HttpClient> ChatModel for AnyModel<H> {
    async fn complete_streaming(&self, request: &ChatRequest, on_text: &dyn Fn(&str)) -> Result<ChatReply, LlmError> {
        match self {
            AnyModel::OpenAi(model) => model.complete_streaming(request, on_text).await,
            AnyModel::Anthropic(model) => model.complete_streaming(request, on_text).await,
            AnyModel::Gemini(model) => model.complete_streaming(request, on_text).await,
            AnyModel::BuiltIn(model) => model.complete_streaming(request, on_text).await,
        }
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatReply, LlmError> {
        match self {
            AnyModel::OpenAi(model) => model.complete(request).await,
            AnyModel::Anthropic(model) => model.complete(request).await,
            AnyModel::Gemini(model) => model.complete(request).await,
            AnyModel::BuiltIn(model) => model.complete(request).await,
        }
    }
}
