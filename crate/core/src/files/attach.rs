//! Files the user attaches to a task (in the panel, with the runner's `--file`, in an AI app's
//! `run_task`): their bytes come inline, in base64, and are checked against bounds here before the
//! worker holds them (`tasks::Host::hold_file`). The same bounds are the panel's
//! (`extension/shared/attachments.js`, which a test keeps equal).

use super::{size_words, MAX_FILE_BYTES};
use crate::i18n::Text;
use crate::text;
use base64::Engine;
use serde::Deserialize;

/// The largest file one may attach (see [`MAX_FILE_BYTES`]).
const MAX_ATTACHED_FILE_BYTES: usize = MAX_FILE_BYTES as usize;
/// All the files of one task together.
pub const MAX_ATTACHED_BYTES: usize = 25 * 1024 * 1024;
/// How many files one task may carry.
pub const MAX_ATTACHED_FILES: usize = 10;
/// Longest file name kept.
const MAX_NAME_CHARS: usize = 200;

/// A file as a request brings it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewFile {
    pub name: String,
    /// Its media type; `application/octet-stream` when none is given.
    #[serde(default)]
    pub mime: String,
    /// Its bytes, in standard base64.
    pub data: String,
}

/// A file read from a request, to be held.
#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    pub name: String,
    pub mime: String,
    pub bytes: Vec<u8>,
}

/// The files decoded, if they are within the bounds; else what is wrong, for the user.
pub fn decode(files: &[NewFile]) -> Result<Vec<Attachment>, Text> {
    if files.len() > MAX_ATTACHED_FILES {
        return Err(text!("core_attach_too_many", files.len(), MAX_ATTACHED_FILES));
    }
    let mut total = 0;
    let mut decoded = Vec::with_capacity(files.len());
    for file in files {
        let name = file_name(&file.name);
        // Base64 is 4 characters for 3 bytes: a text that long cannot be within the bound.
        if file.data.len() / 4 * 3 > MAX_ATTACHED_FILE_BYTES + 3 {
            return Err(too_large(&name, file.data.len() / 4 * 3));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(file.data.trim())
            .map_err(|err| text!("core_attach_unreadable", &name, err.to_string()))?;
        if bytes.len() > MAX_ATTACHED_FILE_BYTES {
            return Err(too_large(&name, bytes.len()));
        }
        total += bytes.len();
        if total > MAX_ATTACHED_BYTES {
            return Err(text!("core_attach_too_much", size_words(MAX_ATTACHED_BYTES as u64)));
        }
        let mime = match file.mime.trim() {
            "" => "application/octet-stream".to_string(),
            mime => mime.to_ascii_lowercase(),
        };
        decoded.push(Attachment { name, mime, bytes });
    }
    Ok(decoded)
}

fn too_large(name: &str, bytes: usize) -> Text {
    text!("core_attach_too_large", name, size_words(bytes as u64), size_words(MAX_FILE_BYTES))
}

/// The file's own name, without any folder a client put before it, bounded.
fn file_name(name: &str) -> String {
    let name = name.rsplit(['/', '\\']).next().unwrap_or_default().trim();
    text::truncate_chars(name, MAX_NAME_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, bytes: &[u8]) -> NewFile {
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        NewFile { name: name.into(), mime: String::new(), data }
    }

    #[test]
    fn attached_files_are_decoded_with_their_own_names() {
        let files = decode(&[file("C:\\Users\\ada\\cv.pdf", b"%PDF-1.4"), file("../notes.txt", b"hi")]).unwrap();
        assert_eq!(
            files[0],
            Attachment { name: "cv.pdf".into(), mime: "application/octet-stream".into(), bytes: b"%PDF-1.4".to_vec() }
        );
        assert_eq!(files[1].name, "notes.txt");
    }

    #[test]
    fn attachments_beyond_the_bounds_are_refused_saying_which() {
        let big = vec![0u8; MAX_ATTACHED_FILE_BYTES + 1];
        let refused = decode(&[file("scan.tiff", &big)]).unwrap_err();
        assert_eq!(refused.key, "core_attach_too_large");
        assert!(refused.english().contains("scan.tiff"), "{}", refused.english());
        let nine = vec![0u8; 9 * 1024 * 1024];
        let three: Vec<NewFile> = (0..3).map(|i| file(&format!("part{i}.bin"), &nine)).collect();
        assert_eq!(decode(&three).unwrap_err().key, "core_attach_too_much");
        let many: Vec<NewFile> = (0..=MAX_ATTACHED_FILES).map(|i| file(&format!("{i}.txt"), b"x")).collect();
        assert_eq!(decode(&many).unwrap_err().key, "core_attach_too_many");
        let broken = NewFile { name: "a.pdf".into(), mime: "application/pdf".into(), data: "not base64!".into() };
        assert_eq!(decode(&[broken]).unwrap_err().key, "core_attach_unreadable");
    }

    #[test]
    fn the_panel_knows_the_same_bounds() {
        let panel = include_str!("../../../../extension/shared/attachments.js");
        for (name, value) in [
            ("MAX_ATTACHED_FILE_BYTES", MAX_ATTACHED_FILE_BYTES),
            ("MAX_ATTACHED_BYTES", MAX_ATTACHED_BYTES),
            ("MAX_ATTACHED_FILES", MAX_ATTACHED_FILES),
        ] {
            let line = panel.lines().find(|line| line.contains(&format!("const {name} = "))).unwrap_or_default();
            let number: String =
                line.split('=').nth(1).unwrap_or_default().chars().filter(char::is_ascii_digit).collect();
            let product = line
                .split('=')
                .nth(1)
                .unwrap_or_default()
                .split('*')
                .map(|part| part.chars().filter(char::is_ascii_digit).collect::<String>().parse::<usize>().unwrap_or(1))
                .product::<usize>();
            assert!(!number.is_empty() && product == value, "{name} in attachments.js is not {value}: {line}");
        }
    }
}
