//! Reading a task's file as text: a held file's bytes decoded when it is of a kind read as text,
//! and any file's text shown a page at a time, so that one read never floods the model's request.

use super::TaskFile;
use crate::text::{thousands, truncate_chars};

/// One read shows at most this many characters (about a thousand tokens).
pub const READ_PAGE_CHARS: usize = 4_000;

/// Media types read as text besides `text/*`.
const TEXT_TYPES: &[&str] = &["application/json", "application/csv", "application/xml", "application/x-ndjson"];
/// Extensions read as text whatever type the file was given (downloads are often
/// `application/octet-stream`).
const TEXT_EXTENSIONS: &[&str] = &["txt", "md", "csv", "tsv", "json", "ndjson", "xml", "log"];

/// The text of a held file's `bytes`, when it is of a kind read as text (UTF-8, or Latin-1 when
/// not valid UTF-8); otherwise why it cannot be read.
pub fn text_of(file: &TaskFile, bytes: &[u8]) -> Result<String, String> {
    let mime = file.mime.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    let extension = file.name.rsplit_once('.').map(|(_, extension)| extension.to_ascii_lowercase());
    let textual = mime.starts_with("text/")
        || TEXT_TYPES.contains(&mime.as_str())
        || extension.as_deref().is_some_and(|extension| TEXT_EXTENSIONS.contains(&extension));
    if !textual {
        return Err(format!(
            "{} is {}, which read_file cannot read: it reads text, CSV and JSON files",
            file.name,
            if mime.is_empty() { "of an unknown type" } else { &mime }
        ));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    Ok(match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => bytes.iter().map(|&byte| char::from(byte)).collect(),
    })
}

/// A part of a file's text, in whole lines.
#[derive(Debug, PartialEq)]
pub struct Page {
    pub text: String,
    /// The first and last line shown, from 1.
    pub first_line: usize,
    pub last_line: usize,
    pub total_lines: usize,
    /// The one line shown was longer than a page, and was cut.
    pub cut: bool,
}

impl Page {
    /// The line to read from next, if the file goes on.
    pub fn next_line(&self) -> Option<usize> {
        (self.last_line < self.total_lines).then_some(self.last_line + 1)
    }
}

/// The lines of `text` from `start_line` (from 1) that fit in [`READ_PAGE_CHARS`], at least one
/// (cut when longer than that); or why there is no such line.
pub fn page_of(name: &str, text: &str, start_line: usize) -> Result<Page, String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total_lines = lines.len();
    if total_lines == 0 {
        return Ok(Page { text: String::new(), first_line: 0, last_line: 0, total_lines, cut: false });
    }
    if start_line == 0 || start_line > total_lines {
        return Err(format!(
            "{name} has {} lines: start_line must be from 1 to {}",
            thousands(total_lines),
            thousands(total_lines)
        ));
    }
    let mut page = String::new();
    let mut chars = 0;
    let mut last_line = start_line - 1;
    for line in &lines[start_line - 1..] {
        let length = line.chars().count();
        if chars + length > READ_PAGE_CHARS {
            break;
        }
        page.push_str(line);
        chars += length;
        last_line += 1;
    }
    let cut = last_line < start_line;
    if cut {
        page = truncate_chars(lines[start_line - 1], READ_PAGE_CHARS);
        last_line = start_line;
    }
    Ok(Page { text: page, first_line: start_line, last_line, total_lines, cut })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::Source;

    fn held(name: &str, mime: &str) -> TaskFile {
        TaskFile { name: name.into(), source: Source::Downloaded, mime: mime.into(), size: 0, text: None, handle: None }
    }

    #[test]
    fn text_kinds_are_decoded_and_others_refused() {
        assert_eq!(text_of(&held("a.csv", "text/csv"), b"\xEF\xBB\xBFa,b\n").unwrap(), "a,b\n");
        assert_eq!(text_of(&held("a.json", "application/json; charset=utf-8"), b"{}").unwrap(), "{}");
        assert_eq!(text_of(&held("a.csv", "application/octet-stream"), b"x").unwrap(), "x");
        assert_eq!(text_of(&held("a.txt", "text/plain"), b"caf\xE9").unwrap(), "café", "Latin-1 when not UTF-8");
        assert_eq!(
            text_of(&held("photo.png", "image/png"), b"\x89PNG").unwrap_err(),
            "photo.png is image/png, which read_file cannot read: it reads text, CSV and JSON files"
        );
        assert!(text_of(&held("blob", ""), b"x").unwrap_err().contains("of an unknown type"));
    }

    #[test]
    fn long_texts_are_read_in_pages_of_whole_lines() {
        let text: String = (1..=500).map(|n| format!("row {n:03},{}\n", "x".repeat(40))).collect();
        let first = page_of("rows.csv", &text, 1).unwrap();
        assert_eq!((first.first_line, first.total_lines), (1, 500));
        assert!(first.text.chars().count() <= READ_PAGE_CHARS && first.text.ends_with('\n'));
        assert!(first.text.starts_with("row 001,"));
        let next = page_of("rows.csv", &text, first.next_line().unwrap()).unwrap();
        assert!(next.text.starts_with(&format!("row {:03},", first.last_line + 1)), "{}", &next.text[..20]);
        let mut line = 1;
        let mut whole = String::new();
        loop {
            let page = page_of("rows.csv", &text, line).unwrap();
            whole.push_str(&page.text);
            match page.next_line() {
                Some(next) => line = next,
                None => break,
            }
        }
        assert_eq!(whole, text, "the pages together are the whole text");
        assert_eq!(
            page_of("rows.csv", &text, 501).unwrap_err(),
            "rows.csv has 500 lines: start_line must be from 1 to 500"
        );
    }

    #[test]
    fn a_line_longer_than_a_page_is_cut() {
        let text = format!("{}\nshort\n", "y".repeat(READ_PAGE_CHARS * 2));
        let page = page_of("one.txt", &text, 1).unwrap();
        assert!(page.cut && page.last_line == 1 && page.next_line() == Some(2));
        assert_eq!(page.text.chars().count(), READ_PAGE_CHARS + 1, "the page and the ellipsis");
        assert_eq!(page_of("empty.txt", "", 1).unwrap().total_lines, 0);
    }
}
