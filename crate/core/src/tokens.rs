//! Token counts for budgeting and reports.
//!
//! An estimate shaped like a BPE tokenizer's behaviour on English text and markup: a short word is
//! one token, longer words and identifiers one per ~5 characters, every other symbol one token,
//! whitespace free (it merges into the following word). Exact counts for OpenAI-family models
//! arrive with the BPE tokenizer.
pub fn estimate_tokens(text: &str) -> usize {
    let mut tokens = 0;
    let mut word_len = 0usize;
    let flush = |word_len: &mut usize, tokens: &mut usize| {
        if *word_len > 0 {
            *tokens += (*word_len).div_ceil(5).max(1);
            *word_len = 0;
        }
    };
    for ch in text.chars() {
        if ch.is_alphanumeric() {
            word_len += 1;
        } else {
            flush(&mut word_len, &mut tokens);
            if !ch.is_whitespace() {
                tokens += 1;
            }
        }
    }
    flush(&mut word_len, &mut tokens);
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_symbols_and_long_identifiers() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("Add to cart"), 3);
        assert_eq!(estimate_tokens("[12]<button>Add />"), 10);
        assert_eq!(estimate_tokens("internationalization"), 4);
    }
}
