//! What a task costs: token usage summed over its model calls, priced per model from a table the
//! user can edit (the defaults are list prices when this table was written, in US dollars).

use serde::{Deserialize, Serialize};

/// Dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

/// Prices by model name prefix; the longest matching prefix wins.
const DEFAULT_PRICES: &[(&str, Price)] = &[
    ("gpt-4o-mini", Price { input: 0.15, output: 0.60 }),
    ("gpt-4o", Price { input: 2.50, output: 10.00 }),
    ("gpt-4.1-nano", Price { input: 0.10, output: 0.40 }),
    ("gpt-4.1-mini", Price { input: 0.40, output: 1.60 }),
    ("gpt-4.1", Price { input: 2.00, output: 8.00 }),
    ("o4-mini", Price { input: 1.10, output: 4.40 }),
    ("claude-3-5-haiku", Price { input: 0.80, output: 4.00 }),
    ("claude-haiku-4", Price { input: 1.00, output: 5.00 }),
    ("claude-sonnet-4", Price { input: 3.00, output: 15.00 }),
    ("claude-opus-4", Price { input: 15.00, output: 75.00 }),
    ("gemini-2.5-flash-lite", Price { input: 0.10, output: 0.40 }),
    ("gemini-2.5-flash", Price { input: 0.30, output: 2.50 }),
    ("gemini-2.5-pro", Price { input: 1.25, output: 10.00 }),
    ("deepseek-chat", Price { input: 0.27, output: 1.10 }),
];

/// The user's prices (exact model names) before the defaults (prefixes); `None` when unknown.
pub fn price_of(model: &str, user_prices: &[(String, Price)]) -> Option<Price> {
    let model = model.trim().to_ascii_lowercase();
    let model = model.rsplit('/').next().unwrap_or(&model).to_string(); // "openai/gpt-4o" on OpenRouter
    if let Some((_, price)) = user_prices.iter().find(|(name, _)| name.trim().eq_ignore_ascii_case(&model)) {
        return Some(*price);
    }
    DEFAULT_PRICES
        .iter()
        .filter(|(prefix, _)| model.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, p)| *p)
}

/// The dollars `input` and `output` tokens cost at `price`.
pub fn cost(price: Price, input: u64, output: u64) -> f64 {
    (input as f64 * price.input + output as f64 * price.output) / 1_000_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_most_specific_default_and_prefers_the_user_s() {
        assert_eq!(price_of("gpt-4o-mini-2024-07-18", &[]).unwrap().input, 0.15);
        assert_eq!(price_of("gpt-4o", &[]).unwrap().input, 2.50);
        assert_eq!(price_of("openai/gpt-4.1-mini", &[]).unwrap().output, 1.60);
        assert_eq!(price_of("llama3.1", &[]), None);
        let mine = vec![("llama3.1".to_string(), Price { input: 0.0, output: 0.0 })];
        assert_eq!(price_of("llama3.1", &mine), Some(Price { input: 0.0, output: 0.0 }));
    }

    #[test]
    fn prices_tokens_per_million() {
        let price = Price { input: 2.5, output: 10.0 };
        assert!((cost(price, 12_000, 800) - 0.038).abs() < 1e-9);
    }
}
