//! What in a text is the user's data worth following: e-mail addresses, long numbers (cards,
//! accounts, phones, codes sent to the user), labelled codes and passwords, names and postal
//! addresses. Common words are not: they travel in every search.

use super::Kind;
use crate::safety::mentioned_sites;
use rustc_hash::FxHashMap as HashMap;

/// Words that announce a code or a private number after them ("booking reference: X7K9P2").
const CODE_LABELS: &[&str] = &[
    "code",
    "reference",
    "ref",
    "booking",
    "confirmation",
    "pin",
    "password",
    "passcode",
    "passphrase",
    "token",
    "key",
    "account",
    "member",
    "membership",
    "ticket",
    "order",
    "id",
    "voucher",
    "coupon",
    "iban",
    "ssn",
    "passport",
    "licence",
    "license",
    "policy",
    "customer",
    "invoice",
];
/// Words that say a number on a page is private ("Account number 12-3456-78").
const NUMBER_LABELS: &[&str] = &[
    "code",
    "pin",
    "account",
    "acct",
    "card",
    "iban",
    "number",
    "no",
    "nr",
    "phone",
    "tel",
    "mobile",
    "order",
    "ref",
    "reference",
    "booking",
    "confirmation",
    "ticket",
    "member",
    "customer",
    "policy",
    "invoice",
    "passport",
    "ssn",
    "id",
    "tracking",
    "balance",
];
/// Labels after which any word is taken, digits or not.
const PASSWORD_LABELS: &[&str] = &["password", "passcode", "passphrase", "pin"];
/// Words between a label and its value.
const FILLERS: &[&str] = &["is", "was", "number", "no", "nr", "num", "code", "of", "the", "your", "my", "-", "=", "#"];
/// Phrases after which a person's name follows (lower case).
const NAME_CUES: &[&[&str]] =
    &[&["name", "is"], &["name"], &["named"], &["i", "am"], &["i'm"], &["signed", "in", "as"], &["call", "me"]];
/// Phrases after which a postal address follows (lower case).
const ADDRESS_CUES: &[&[&str]] = &[
    &["address", "is"],
    &["address"],
    &["live", "at"],
    &["lives", "at"],
    &["ship", "to"],
    &["deliver", "to"],
    &["send", "it", "to"],
    &["located", "at"],
];
const STREET_WORDS: &[&str] = &[
    "street",
    "st",
    "road",
    "rd",
    "avenue",
    "ave",
    "lane",
    "ln",
    "boulevard",
    "blvd",
    "drive",
    "dr",
    "way",
    "court",
    "ct",
    "place",
    "pl",
    "square",
    "sq",
    "terrace",
    "close",
    "crescent",
    "highway",
    "hwy",
    "parkway",
    "row",
    "strasse",
    "straße",
    "rue",
    "via",
    "calle",
];
/// Digits a number needs to be followed (fewer are quantities, prices, years).
const MIN_NUMBER_DIGITS: usize = 6;
const MAX_NUMBER_DIGITS: usize = 24;

/// One piece of the user's data found in a text, as written there.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub kind: Kind,
    pub text: String,
}

/// The pieces of data in `text` worth following: in what the user or the agent wrote, every long
/// number is.
pub fn pieces(text: &str) -> Vec<Piece> {
    scan(&words_of(text), Numbers::All)
}

/// The pieces of data in page text: there long numbers abound (ISBNs, article ids, prices), so
/// only those that say what they are ("code", "account", "card"...), phone numbers written with
/// their country code, and card numbers are followed.
pub fn page_pieces(text: &str) -> Vec<Piece> {
    scan(&words_of(text), Numbers::Private)
}

/// Every piece of data in a page text, each with whether it is followed (see [`page_pieces`]):
/// the rest only shows where a detail the agent wrote down came from.
fn page_text_pieces(text: &str) -> Vec<(Piece, bool)> {
    let words = words_of(text);
    let followed = scan(&words, Numbers::Private);
    scan(&words, Numbers::All)
        .into_iter()
        .map(|piece| {
            let is_followed = followed.contains(&piece);
            (piece, is_followed)
        })
        .collect()
}

/// Beyond this many characters of page text remembered, the scans are forgotten and begin again.
const MAX_SCANNED_CHARS: usize = 1 << 22;

/// The scans of the page texts read so far in a task, by text: a page keeps most of its texts
/// from one step to the next, and scanning every text of a long page again cost tens of
/// milliseconds a step. (The pieces of a text depend on nothing else, so a scan stays true.)
#[derive(Default)]
pub struct PageScans {
    scans: HashMap<String, Scan>,
    chars: usize,
}

/// What one page text holds.
pub struct Scan {
    /// The pieces of data in it, each with whether it is followed.
    pub pieces: Vec<(Piece, bool)>,
    /// The web addresses it writes out.
    pub addresses: Vec<String>,
    /// The sites it names (host, port).
    pub sites: Vec<(String, Option<u16>)>,
}

impl PageScans {
    /// What `text` holds.
    pub fn of(&mut self, text: &str) -> &Scan {
        if !self.scans.contains_key(text) {
            if self.chars + text.len() > MAX_SCANNED_CHARS {
                self.scans.clear();
                self.chars = 0;
            }
            self.chars += text.len();
            self.scans.insert(text.to_string(), Scan::of(text));
        }
        &self.scans[text]
    }
}

impl Scan {
    fn of(text: &str) -> Scan {
        let addresses = text
            .split_whitespace()
            .filter(|word| word.starts_with("http://") || word.starts_with("https://"))
            .map(|word| word.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', '"', '\'']).to_string())
            .collect();
        let sites = if text.contains('.') || text.contains("localhost") { mentioned_sites(text) } else { Vec::new() };
        Scan { pieces: page_text_pieces(text), addresses, sites }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Numbers {
    All,
    Private,
}

fn scan(words: &[&str], numbers_wanted: Numbers) -> Vec<Piece> {
    let mut found = Vec::new();
    emails(words, &mut found);
    numbers(words, numbers_wanted, &mut found);
    codes(words, &mut found);
    names(words, &mut found);
    addresses(words, &mut found);
    birth_dates(words, &mut found);
    found
}

/// A date after "born", "date of birth", "birthday" or "DOB": a date is no one's in general (an
/// order's, a trip's), a date of birth is the user's.
fn birth_dates(words: &[&str], found: &mut Vec<Piece>) {
    for (i, word) in words.iter().enumerate() {
        let cue = word.to_lowercase();
        if !matches!(cue.trim_end_matches(['.', ',']), "born" | "birth" | "birthday" | "dob") {
            continue;
        }
        let after = words[i + 1..].iter().take(4).skip_while(|w| !w.chars().any(|c| c.is_ascii_digit()));
        let run: Vec<&str> = after.take(3).copied().collect();
        let date = run.first().is_some_and(|first| looks_like_date(first))
            || (run.len() == 3 && run.iter().any(|w| looks_like_year(w.trim_end_matches(['.', ',']))));
        if date {
            let text = if looks_like_date(run[0]) { run[0].to_string() } else { run.join(" ") };
            push(found, Kind::Number, text.trim_end_matches(['.', ',']).to_string());
        }
    }
}

/// The text's words: split at spaces, quotes and brackets; web addresses and paths are left out
/// (the agent's own navigations are not the user's data), and colons, equals signs and the like
/// end a word.
fn words_of(text: &str) -> Vec<&str> {
    let is_break = |c: char| c.is_whitespace() || matches!(c, '"' | '`' | '<' | '>' | '[' | ']' | '{' | '}');
    text.split(is_break)
        .filter(|word| !is_address(word))
        .flat_map(|word| word.split(['(', ')', ';', '!', '?', '=', '|', '\\']))
        .flat_map(split_label_colon)
        .map(|word| word.trim_matches(|c: char| matches!(c, ',' | '.' | ':' | '*' | '_' | '\'')))
        .filter(|word| !word.is_empty())
        .collect()
}

/// A web address or path ("https://a.test/x", "a.test/x?id=1", "/x"): where the agent goes, not what
/// the user said.
fn is_address(word: &str) -> bool {
    let host = word.split(['/', '?', '#']).next().unwrap_or("");
    word.contains("://")
        || word.starts_with('/')
        || word.starts_with("www.")
        || (host.len() < word.len() && host.contains('.') && !host.contains('@'))
}

/// "Ref:X7K9" is two words; "10:30" stays one.
fn split_label_colon(word: &str) -> Vec<&str> {
    match word.find(':') {
        Some(at) if word[..at].chars().any(char::is_alphabetic) => vec![&word[..at], &word[at + 1..]],
        _ => vec![word],
    }
}

fn push(found: &mut Vec<Piece>, kind: Kind, text: String) {
    if !found.iter().any(|piece| piece.text == text) {
        found.push(Piece { kind, text });
    }
}

fn emails(words: &[&str], found: &mut Vec<Piece>) {
    for word in words {
        let Some(at) = word.find('@') else { continue };
        let local_start = word[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_alphanumeric() || matches!(c, '.' | '_' | '%' | '+' | '-'))
            .last()
            .map_or(at, |(i, _)| i);
        let domain_end = word[at + 1..]
            .char_indices()
            .take_while(|(_, c)| c.is_alphanumeric() || matches!(c, '.' | '-'))
            .last()
            .map_or(at + 1, |(i, c)| at + 1 + i + c.len_utf8());
        let local = word[local_start..at].trim_start_matches('.');
        let domain = word[at + 1..domain_end].trim_end_matches(['.', '-']);
        let tld_ok = domain
            .rsplit_once('.')
            .is_some_and(|(name, tld)| !name.is_empty() && tld.len() >= 2 && tld.chars().all(char::is_alphabetic));
        if !local.is_empty() && tld_ok {
            push(found, Kind::Email, format!("{local}@{domain}").to_lowercase());
        }
    }
}

/// A word made of digits and the separators numbers are written with.
fn numeric(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
        && word.chars().all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | ',' | '/'))
}

/// Runs of numeric words ("4111 1111 1111 1111", "+1 555-010-2233") with enough digits, dates aside.
fn numbers(words: &[&str], wanted: Numbers, found: &mut Vec<Piece>) {
    let mut i = 0;
    while i < words.len() {
        if !numeric(words[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < words.len() && numeric(words[i]) {
            i += 1;
        }
        let run = words[start..i].join(" ");
        let digits: String = run.chars().filter(char::is_ascii_digit).collect();
        let private = wanted == Numbers::All
            || run.starts_with('+')
            || luhn(&digits)
            || words[start.saturating_sub(3)..start].iter().any(|w| NUMBER_LABELS.contains(&w.to_lowercase().as_str()));
        if (MIN_NUMBER_DIGITS..=MAX_NUMBER_DIGITS).contains(&digits.len()) && !looks_like_date(&run) && private {
            push(found, Kind::Number, run);
        }
    }
}

/// A card number: 13 to 19 digits whose Luhn check holds.
fn luhn(digits: &str) -> bool {
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            match i % 2 {
                1 if d * 2 > 9 => d * 2 - 9,
                1 => d * 2,
                _ => d,
            }
        })
        .sum();
    sum % 10 == 0
}

/// 2024-01-15, 15/01/2024, 2024.01.15: a year among day and month numbers.
fn looks_like_date(run: &str) -> bool {
    let groups: Vec<&str> = run.split(|c: char| !c.is_ascii_digit()).filter(|g| !g.is_empty()).collect();
    let years = groups.iter().filter(|g| looks_like_year(g)).count();
    groups.len() == 3 && years == 1 && groups.iter().all(|g| looks_like_year(g) || g.len() <= 2)
}

fn looks_like_year(word: &str) -> bool {
    word.len() == 4 && (word.starts_with("19") || word.starts_with("20"))
}

/// A value after a label such as "booking reference", "order no." or "password is".
fn codes(words: &[&str], found: &mut Vec<Piece>) {
    for (i, word) in words.iter().enumerate() {
        let label = word.to_lowercase();
        if !CODE_LABELS.contains(&label.as_str()) {
            continue;
        }
        let Some(value) = words[i + 1..].iter().take(4).find(|w| !FILLERS.contains(&w.to_lowercase().as_str())) else {
            continue;
        };
        let plain = value.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, '-' | '_' | '/' | '.' | '+' | '@' | '#' | '$' | '%' | '&' | '!')
        });
        let alnum = value.chars().filter(|c| c.is_alphanumeric()).count();
        let has_digit = value.chars().any(|c| c.is_ascii_digit());
        let capitals = value.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()) && alnum >= 5;
        let any_word = PASSWORD_LABELS.contains(&label.as_str());
        let short_number = numeric(value) && !looks_like_year(value);
        if plain && alnum >= 4 && (has_digit || capitals || any_word) && (!numeric(value) || short_number) {
            push(found, Kind::Code, value.to_string());
        }
    }
}

fn capitalized(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase) && chars.all(|c| c.is_alphabetic() || matches!(c, '\'' | '-' | '.'))
}

/// Where one of `cues` ends in `words` at `i` (the index after it).
fn cue_at(words: &[&str], i: usize, cues: &[&[&str]]) -> Option<usize> {
    cues.iter().find_map(|cue| {
        let fits =
            cue.iter().enumerate().all(|(k, part)| words.get(i + k).is_some_and(|w| w.eq_ignore_ascii_case(part)));
        fits.then_some(i + cue.len())
    })
}

/// Capitalized words after "my name is", "Name:", "signed in as"...
fn names(words: &[&str], found: &mut Vec<Piece>) {
    for i in 0..words.len() {
        let Some(start) = cue_at(words, i, NAME_CUES) else { continue };
        let name: Vec<&str> = words[start..].iter().take(3).take_while(|w| capitalized(w)).copied().collect();
        let letters = name.iter().map(|w| w.chars().filter(|c| c.is_alphabetic()).count()).sum::<usize>();
        if !name.is_empty() && letters >= 6 {
            push(found, Kind::Name, name.join(" "));
        }
    }
}

/// Postal addresses: what follows "my address is", "ship to"... up to the end of the sentence (when
/// it has a number in it), and street lines such as "12 Main Street".
fn addresses(words: &[&str], found: &mut Vec<Piece>) {
    for i in 0..words.len() {
        if let Some(start) = cue_at(words, i, ADDRESS_CUES) {
            let line: Vec<&str> = words[start..].iter().take(8).copied().collect();
            if line.first().is_some_and(|w| w.chars().any(|c| c.is_ascii_digit())) {
                let street_end = line.iter().position(|w| STREET_WORDS.contains(&w.to_lowercase().as_str()));
                let end = street_end.map_or(line.len().min(4), |at| at + 1);
                push(found, Kind::Address, line[..end].join(" "));
                continue;
            }
        }
        let house = words[i].len() <= 5 && words[i].chars().all(|c| c.is_ascii_digit());
        if !house {
            continue;
        }
        let street: Vec<&str> = words[i + 1..].iter().take(4).copied().collect();
        let Some(at) = street.iter().position(|w| STREET_WORDS.contains(&w.to_lowercase().as_str())) else { continue };
        if at >= 1 && street[..at].iter().all(|w| capitalized(w)) {
            push(found, Kind::Address, words[i..=i + at + 1].join(" "));
        } else if at == 0 && street.get(1).is_some_and(|w| capitalized(w)) {
            // The street word first, as French, Italian and Spanish write it: "12 Rue Lepic".
            push(found, Kind::Address, words[i..=i + 2].join(" "));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{PageScans, MAX_SCANNED_CHARS};

    #[test]
    fn the_scans_remembered_are_bounded_and_forgetting_them_changes_no_answer() {
        let mut scans = PageScans::default();
        let code = "Your one-time code is 482913";
        let first = scans.of(code).pieces.to_vec();
        let filler = "words ".repeat(MAX_SCANNED_CHARS / 6);
        assert!(scans.of(&filler).pieces.is_empty());
        assert!(scans.chars <= MAX_SCANNED_CHARS && !scans.scans.contains_key(code), "forgotten past the bound");
        assert_eq!(scans.of(code).pieces, first);
    }
}
