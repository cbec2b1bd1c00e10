//! How much a model can read: its context window, and the input budget left once the reply's
//! reserve is set aside. The windows are the providers' published figures when this table was
//! written; the user can set their own budget in the settings.

use super::built_in::BUILT_IN_WINDOW;
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
    if provider.is_built_in(model) {
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
        Some(limit) if provider.is_built_in(model) => fits.min(limit as usize),
        Some(limit) => limit as usize,
        None => fits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::built_in::BUILT_IN_MODEL;

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

    #[test]
    fn its_requests_are_compact_and_fit_its_window_with_room_for_the_reply() {
        use crate::agent::minimum_budget;
        use crate::messages::{RequestStyle, StyleChoice};
        use crate::tokens::TokenCounter;
        let budget = input_budget(Provider::ChromeBuiltIn, BUILT_IN_MODEL, None);
        let style = StyleChoice::Auto.style(budget);
        assert_eq!(style, RequestStyle::Compact);
        let counter = TokenCounter::new(Provider::ChromeBuiltIn, BUILT_IN_MODEL, None);
        let fixed = minimum_budget(&counter, style, None);
        // The least a request needs: instructions, schema, an empty page's outline and room to work.
        assert!(fixed < budget, "the minimum request takes {fixed} of {budget} tokens");
        assert!(budget + BUILT_IN_WINDOW / 4 <= BUILT_IN_WINDOW, "the reply has its room in the window");
    }

    #[test]
    fn its_window_bounds_every_budget_even_one_the_user_set_higher() {
        assert!(Provider::ChromeBuiltIn.is_built_in(""));
        assert!(Provider::OpenAi.is_built_in("chrome-built-in"), "an agent of its own on it");
        assert!(!Provider::OpenAi.is_built_in("gpt-4o"));
        assert_eq!(context_window(Provider::ChromeBuiltIn, "anything"), Some(BUILT_IN_WINDOW));
        assert_eq!(context_window(Provider::Anthropic, BUILT_IN_MODEL), Some(BUILT_IN_WINDOW));
        let budget = input_budget(Provider::ChromeBuiltIn, BUILT_IN_MODEL, None);
        assert_eq!(budget, BUILT_IN_WINDOW - BUILT_IN_WINDOW / 4, "a quarter kept for the reply");
        assert_eq!(input_budget(Provider::ChromeBuiltIn, BUILT_IN_MODEL, Some(40_000)), budget);
        assert_eq!(input_budget(Provider::ChromeBuiltIn, BUILT_IN_MODEL, Some(4_000)), 4_000);
        assert_eq!(input_budget(Provider::OpenAi, "gpt-4o", Some(40_000)), 40_000);
    }
}
