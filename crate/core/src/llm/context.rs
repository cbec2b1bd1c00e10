//! How much a model can read: its context window, and the input budget left once the reply's
//! reserve is set aside. The windows are the providers' published figures when this table was
//! written; the user can set their own budget in the settings.

use super::built_in::{is_built_in, BUILT_IN_WINDOW};
use super::Provider;

/// Tokens kept free for the reply (the navigator's JSON is small, but reasoning models think
/// within the same window).
pub const REPLY_RESERVE: usize = 8_192;

/// The window assumed for a model this table does not know: small enough for the common local
/// models (Llama 3.1, Qwen 2.5 and Mistral servers are often run at 32k).
pub const UNKNOWN_CONTEXT_WINDOW: usize = 32_768;

/// Context windows by model name prefix; the longest matching prefix wins.
const CONTEXT_WINDOWS: &[(&str, usize)] = &[
    ("gpt-3.5-turbo", 16_385),
    ("gpt-4", 8_192),
    ("gpt-4-turbo", 128_000),
    ("gpt-4o", 128_000),
    ("chatgpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4.5", 128_000),
    // GPT-5 takes 400k tokens in all, of which at most 272k input.
    ("gpt-5", 272_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("claude", 200_000),
    ("gemini-1.5", 1_048_576),
    ("gemini-2", 1_048_576),
    ("gemini-3", 1_048_576),
    ("deepseek", 64_000),
];

/// The model's context window, when known.
pub fn context_window(provider: Provider, model: &str) -> Option<usize> {
    if is_built_in(provider, model) {
        return Some(BUILT_IN_WINDOW);
    }
    let model = model.trim().to_ascii_lowercase();
    let model = model.rsplit('/').next().unwrap_or(&model); // "openai/gpt-4o" on OpenRouter
    let known = CONTEXT_WINDOWS
        .iter()
        .filter(|(prefix, _)| model.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, window)| *window);
    known.or(match provider {
        Provider::Anthropic => Some(200_000),
        Provider::Gemini => Some(1_048_576),
        _ => None,
    })
}

/// The most input tokens a request to `model` may carry: the user's limit when set, otherwise
/// the context window less the reply's reserve.
pub fn input_budget(provider: Provider, model: &str, user_limit: Option<u32>) -> usize {
    let window = context_window(provider, model).unwrap_or(UNKNOWN_CONTEXT_WINDOW);
    let fits = window.saturating_sub(REPLY_RESERVE.min(window / 4));
    match user_limit.filter(|&limit| limit > 0) {
        // The built-in model's window is fixed by the browser: a larger limit cannot be met.
        Some(limit) if is_built_in(provider, model) => fits.min(limit as usize),
        Some(limit) => limit as usize,
        None => fits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_the_common_windows_and_leaves_room_for_the_reply() {
        assert_eq!(context_window(Provider::OpenAi, "gpt-4o-mini"), Some(128_000));
        assert_eq!(context_window(Provider::OpenAi, "gpt-4-0613"), Some(8_192));
        assert_eq!(context_window(Provider::OpenAiCompatible, "openai/gpt-4.1-mini"), Some(1_047_576));
        assert_eq!(context_window(Provider::Anthropic, "some-future-model"), Some(200_000));
        assert_eq!(context_window(Provider::OpenAiCompatible, "llama3.1:8b"), None);
        assert_eq!(input_budget(Provider::OpenAi, "gpt-4o", None), 128_000 - REPLY_RESERVE);
        assert_eq!(input_budget(Provider::OpenAi, "gpt-4", None), 8_192 - 2_048);
        assert_eq!(
            input_budget(Provider::OpenAiCompatible, "llama3.1:8b", None),
            UNKNOWN_CONTEXT_WINDOW - REPLY_RESERVE
        );
        assert_eq!(input_budget(Provider::OpenAi, "gpt-4o", Some(6_000)), 6_000);
        assert_eq!(input_budget(Provider::OpenAi, "gpt-4o", Some(0)), 128_000 - REPLY_RESERVE);
    }
}
