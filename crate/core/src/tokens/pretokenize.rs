//! The split patterns that cut text into pieces before byte-pair merging, written out by hand.
//!
//! tiktoken splits text with a regular expression per encoding and merges bytes inside each piece
//! only. Those expressions need a lookahead (`\s+(?!\S)`) and Unicode category tables, which in
//! Rust means `fancy-regex` over `regex`: all of regex's Unicode tables in the wasm, and slower
//! (tiktoken-rs counts 200 KB of HTML in 16 ms natively, this module and `bpe.rs` in 10 ms). The
//! expressions are small, so each one is implemented here as the match a leftmost-first regex
//! engine finds at each position, alternative by alternative in order, with the same backtracking
//! outcome. The tests in `bpe.rs` compare the resulting counts with tiktoken-rs (which runs the
//! regular expressions) on hard strings, fuzzed text and real pages.
//!
//! o200k_base (tiktoken `openai_public.py`):
//! ```text
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//! ```
//! cl100k_base (the current tiktoken form, possessive quantifiers):
//! ```text
//! '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s
//! ```

use super::unicode_table::RUNS;
use super::Encoding;

/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`: o200k's "upper" letters.
const UPPER: u8 = 1;
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`: o200k's "lower" letters.
const LOWER: u8 = 2;
/// `\p{L}`.
const LETTER: u8 = 4;
/// `\p{N}`.
const NUMBER: u8 = 8;
/// `\s` (Unicode White_Space, as in regex).
const SPACE: u8 = 16;
/// `[\r\n]`.
const NEWLINE: u8 = 32;

/// The flags of each class in the generated table.
const CLASS_FLAGS: [u8; 6] = [
    0,                      // other
    UPPER | LETTER,         // Lu, Lt
    LOWER | LETTER,         // Ll
    UPPER | LOWER | LETTER, // Lm, Lo
    UPPER | LOWER,          // M
    NUMBER,                 // N
];

const fn ascii_flags() -> [u8; 128] {
    let mut table = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        table[i] = if b.is_ascii_uppercase() {
            UPPER | LETTER
        } else if b.is_ascii_lowercase() {
            LOWER | LETTER
        } else if b.is_ascii_digit() {
            NUMBER
        } else if b == b'\r' || b == b'\n' {
            SPACE | NEWLINE
        } else if b == b' ' || b == b'\t' || b == 0x0b || b == 0x0c {
            SPACE
        } else {
            0
        };
        i += 1;
    }
    table
}

static ASCII_FLAGS: [u8; 128] = ascii_flags();

fn flags(c: char) -> u8 {
    let cp = c as u32;
    if cp < 128 {
        return ASCII_FLAGS[cp as usize];
    }
    // The last run starting at or before `cp`.
    let index = RUNS.partition_point(|&run| (run >> 3) <= cp) - 1;
    let class = CLASS_FLAGS[(RUNS[index] & 7) as usize];
    if class == 0 && c.is_whitespace() {
        SPACE
    } else {
        class
    }
}

/// The character at byte `i` of `s` and its flags and length, if `i` is inside `s`.
#[inline]
fn at(s: &str, i: usize) -> Option<(char, u8, usize)> {
    let b = *s.as_bytes().get(i)?;
    if b < 0x80 {
        return Some((b as char, ASCII_FLAGS[b as usize], 1));
    }
    let c = s[i..].chars().next()?;
    Some((c, flags(c), c.len_utf8()))
}

/// The end of the longest run from `i` of characters having any of `wanted`.
#[inline]
fn run(s: &str, mut i: usize, wanted: u8) -> usize {
    while let Some((_, f, len)) = at(s, i) {
        if f & wanted == 0 {
            break;
        }
        i += len;
    }
    i
}

/// The end of a run from `i` of characters with none of `unwanted`.
#[inline]
fn run_without(s: &str, mut i: usize, unwanted: u8) -> usize {
    while let Some((_, f, len)) = at(s, i) {
        if f & unwanted != 0 {
            break;
        }
        i += len;
    }
    i
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`: where it ends, if it matches. Case-insensitive matching
/// in regex also takes `ſ` (U+017F) for `s`; no other letter here has such a fold.
fn contraction(s: &str, i: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    if bytes.get(i) != Some(&b'\'') {
        return None;
    }
    let (c, _, len) = at(s, i + 1)?;
    let second = |wanted: u8| bytes.get(i + 2).is_some_and(|b| b.to_ascii_lowercase() == wanted);
    match c {
        's' | 'S' | 'ſ' | 't' | 'T' | 'm' | 'M' | 'd' | 'D' => Some(i + 1 + len),
        'r' | 'R' | 'v' | 'V' if second(b'e') => Some(i + 3),
        'l' | 'L' if second(b'l') => Some(i + 3),
        _ => None,
    }
}

/// `[U]*[W]+C?` at `start` (U upper, W lower, C the contractions), as a backtracking engine
/// matches it: `[U]*` gives characters back until a `W` character follows it, so `[W]+` starts at
/// the character after the whole `U` run if that is `W` (`Ll`), else at the last character of the
/// run that is also `W` (`Lm`, `Lo`, `M`).
fn upper_then_lower(s: &str, start: usize) -> Option<usize> {
    let mut i = start;
    let mut last_lower = None;
    while let Some((_, f, len)) = at(s, i) {
        if f & UPPER == 0 {
            break;
        }
        if f & LOWER != 0 {
            last_lower = Some(i);
        }
        i += len;
    }
    let lower_start = match at(s, i) {
        Some((_, f, _)) if f & LOWER != 0 => i,
        _ => last_lower?,
    };
    let end = run(s, lower_start, LOWER);
    Some(contraction(s, end).unwrap_or(end))
}

/// `[U]+[W]*C?` at `start`.
fn upper_run(s: &str, start: usize) -> Option<usize> {
    let upper_end = run(s, start, UPPER);
    if upper_end == start {
        return None;
    }
    let end = run(s, upper_end, LOWER);
    Some(contraction(s, end).unwrap_or(end))
}

/// `\p{N}{1,3}` at `i` (whose character is a number).
fn digits(s: &str, mut i: usize) -> usize {
    for _ in 0..3 {
        match at(s, i) {
            Some((_, f, len)) if f & NUMBER != 0 => i += len,
            _ => break,
        }
    }
    i
}

/// ` ?[^\s\p{L}\p{N}]+` at `i`: where the punctuation run ends, if it matches.
fn punctuation(s: &str, i: usize, c: char, f: u8) -> Option<usize> {
    let first = if c == ' ' { i + 1 } else { i };
    match at(s, first) {
        Some((_, f, _)) if f & (SPACE | LETTER | NUMBER) == 0 => Some(run_without(s, first, SPACE | LETTER | NUMBER)),
        _ if f & (SPACE | LETTER | NUMBER) == 0 => Some(run_without(s, i, SPACE | LETTER | NUMBER)),
        _ => None,
    }
}

/// The whitespace run from `i`: its end, the end of its last `\r` or `\n`, and the start of its
/// last character.
fn whitespace(s: &str, i: usize) -> (usize, Option<usize>, usize) {
    let (mut end, mut newline_end, mut last) = (i, None, i);
    while let Some((c, f, len)) = at(s, end) {
        if f & SPACE == 0 {
            break;
        }
        if c == '\r' || c == '\n' {
            newline_end = Some(end + len);
        }
        last = end;
        end += len;
    }
    (end, newline_end, last)
}

fn o200k_piece_end(s: &str, i: usize) -> usize {
    let Some((c, f, len)) = at(s, i) else { return i };
    if f & (NEWLINE | LETTER | NUMBER) == 0 {
        // `[^\r\n\p{L}\p{N}]?` takes this character first; only a mark can also start the rest.
        if let Some(end) = upper_then_lower(s, i + len) {
            return end;
        }
        if f & LOWER != 0 {
            if let Some(end) = upper_then_lower(s, i) {
                return end;
            }
        }
        if let Some(end) = upper_run(s, i + len) {
            return end;
        }
    } else if f & LETTER != 0 {
        if let Some(end) = upper_then_lower(s, i).or_else(|| upper_run(s, i)) {
            return end;
        }
    }
    if f & NUMBER != 0 {
        return digits(s, i);
    }
    if let Some(end) = punctuation(s, i, c, f) {
        return newlines_and_slashes(s, end);
    }
    let (end, newline_end, last) = whitespace(s, i);
    if let Some(newline_end) = newline_end {
        newline_end // \s*[\r\n]+
    } else if end == s.len() || last == i {
        end // \s+(?!\S) at the end of the text, or \s+ for a single character
    } else {
        last // \s+(?!\S): all but the last, which goes with what follows
    }
}

/// `[\r\n/]*` at `i`: where it ends.
fn newlines_and_slashes(s: &str, mut i: usize) -> usize {
    while matches!(s.as_bytes().get(i), Some(b'\r' | b'\n' | b'/')) {
        i += 1;
    }
    i
}

fn cl100k_piece_end(s: &str, i: usize) -> usize {
    let Some((c, f, len)) = at(s, i) else { return i };
    if let Some(end) = contraction(s, i) {
        return end;
    }
    if f & (NEWLINE | LETTER | NUMBER) == 0 {
        if let Some((_, next, _)) = at(s, i + len) {
            if next & LETTER != 0 {
                return run(s, i + len, LETTER);
            }
        }
    } else if f & LETTER != 0 {
        return run(s, i, LETTER);
    }
    if f & NUMBER != 0 {
        return digits(s, i);
    }
    if let Some(end) = punctuation(s, i, c, f) {
        return run(s, end, NEWLINE);
    }
    let (end, newline_end, last) = whitespace(s, i);
    if end == s.len() {
        end // \s++$
    } else if let Some(newline_end) = newline_end {
        newline_end // \s*[\r\n]
    } else if last == i {
        end // \s
    } else {
        last // \s+(?!\S)
    }
}

/// The pieces of `text` in order; together they are the whole text.
pub(super) fn pieces(text: &str, encoding: Encoding) -> impl Iterator<Item = &str> {
    let piece_end = match encoding {
        Encoding::O200k => o200k_piece_end,
        Encoding::Cl100k => cl100k_piece_end,
    };
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = piece_end(text, start);
        debug_assert!(end > start, "no progress at byte {start}");
        let piece = &text[start..end];
        start = end;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str, encoding: Encoding) -> Vec<&str> {
        pieces(text, encoding).collect()
    }

    #[test]
    fn splits_like_the_o200k_pattern() {
        let o = |t| split(t, Encoding::O200k);
        assert_eq!(o("Hello world"), ["Hello", " world"]);
        assert_eq!(o("HELLOworld AbC"), ["HELLOworld", " Ab", "C"]);
        assert_eq!(o("don't I'LL"), ["don't", " I'LL"]);
        assert_eq!(o("12345 x"), ["123", "45", " x"]);
        assert_eq!(o("a  b\n\n  c   "), ["a", " ", " b", "\n\n", " ", " c", "   "]);
        assert_eq!(o("x !!\n/y"), ["x", " !!\n/", "y"]);
        assert_eq!(o("<|endoftext|>"), ["<|", "endoftext", "|>"]);
        assert_eq!(o("你好世界"), ["你好世界"]);
        // A mark opens its own piece when upper-case letters follow it.
        assert_eq!(o("\u{301}HELLO"), ["\u{301}", "HELLO"]);
    }

    #[test]
    fn splits_like_the_cl100k_pattern() {
        let c = |t| split(t, Encoding::Cl100k);
        assert_eq!(c("Hello world"), ["Hello", " world"]);
        assert_eq!(c("'sa 'x"), ["'s", "a", " '", "x"]);
        assert_eq!(c("12345"), ["123", "45"]);
        assert_eq!(c("a  b\n  c"), ["a", " ", " b", "\n", " ", " c"]);
        // \s++$ keeps trailing whitespace whole, newlines and all.
        assert_eq!(c("x \n  "), ["x", " \n  "]);
        assert_eq!(c("x!!\n\ny"), ["x", "!!\n\n", "y"]);
    }

    #[test]
    fn every_character_is_classified_like_the_table() {
        assert_eq!(flags('A'), UPPER | LETTER);
        assert_eq!(flags('ǅ'), UPPER | LETTER); // Lt
        assert_eq!(flags('é'), LOWER | LETTER);
        assert_eq!(flags('ʰ'), UPPER | LOWER | LETTER); // Lm
        assert_eq!(flags('中'), UPPER | LOWER | LETTER); // Lo
        assert_eq!(flags('\u{301}'), UPPER | LOWER); // Mn
        assert_eq!(flags('٣'), NUMBER);
        assert_eq!(flags('½'), NUMBER);
        assert_eq!(flags('\u{3000}'), SPACE);
        assert_eq!(flags('\u{85}'), SPACE);
        assert_eq!(flags('😀'), 0);
        assert_eq!(flags('\u{10FFFF}'), 0);
    }
}
