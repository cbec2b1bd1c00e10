//! What the task downloaded, as the model is told of it.

use super::outline::size_words;
use super::read::readable_as;
use super::{TaskFile, MAX_FILE_BYTES};
use crate::browser::Download;

/// Why a held file cannot be read for its size: the host keeps no bytes of a file larger than
/// [`MAX_FILE_BYTES`].
pub fn too_large_to_read(file: &TaskFile) -> Option<String> {
    (file.text.is_none() && file.size > MAX_FILE_BYTES).then(|| {
        format!(
            "it is {}, larger than the {} the agent reads; the user has the file, tell them if the task needs it",
            size_words(file.size),
            size_words(MAX_FILE_BYTES)
        )
    })
}

/// The download's media type as the server gave it, `application/octet-stream` when it gave none
/// (read_file still reads a text or PDF file by its name).
pub fn media_type(download: &Download) -> String {
    match download.mime.as_str() {
        "" => "application/octet-stream".to_string(),
        mime => mime.to_string(),
    }
}

/// What the model is told of a download kept as the task's file `name`: `Downloaded invoice.pdf
/// (application/pdf, 12 KB).`, with why it cannot be read when it cannot.
pub fn downloaded_sentence(name: &str, download: &Download) -> String {
    let said = format!("Downloaded {name} ({}, {})", media_type(download), size_words(download.size));
    if download.size > MAX_FILE_BYTES {
        format!(
            "{said}; it is too large for the agent to read (at most {}), but the user has it.",
            size_words(MAX_FILE_BYTES)
        )
    } else if let Some(problem) = &download.unread {
        format!("{said}; the agent could not read it ({problem}), but the user has it.")
    } else if readable_as(name, &download.mime).is_none() {
        format!("{said}; read_file does not read this kind of file (it reads text, CSV, JSON and PDF), but the user has it.")
    } else {
        format!("{said}; read_file reads it.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn download(name: &str, mime: &str, size: u64) -> Download {
        Download { name: name.into(), mime: mime.into(), size, handle: "d1".into(), ..Download::default() }
    }

    #[test]
    fn a_download_is_said_with_its_type_and_size_and_whether_it_can_be_read() {
        let invoice = download("invoice.pdf", "application/pdf", 12 * 1024);
        assert_eq!(
            downloaded_sentence("invoice.pdf", &invoice),
            "Downloaded invoice.pdf (application/pdf, 12 KB); read_file reads it."
        );
        // A type the server did not give is said as such.
        let list = download("list.csv", "", 300);
        assert_eq!(
            downloaded_sentence("list (2).csv", &list),
            "Downloaded list (2).csv (application/octet-stream, 300 bytes); read_file reads it."
        );
        let huge = download("video.zip", "application/zip", 30 * 1024 * 1024);
        assert_eq!(
            downloaded_sentence("video.zip", &huge),
            "Downloaded video.zip (application/zip, 30.0 MB); it is too large for the agent to read (at most 10.0 MB), but the user has it."
        );
        let archive = download("photos.zip", "application/zip", 2048);
        assert_eq!(
            downloaded_sentence("photos.zip", &archive),
            "Downloaded photos.zip (application/zip, 2 KB); read_file does not read this kind of file (it reads text, CSV, JSON and PDF), but the user has it."
        );
        let gone = Download { unread: Some("the page no longer had it".into()), ..download("a.txt", "text/plain", 10) };
        assert_eq!(
            downloaded_sentence("a.txt", &gone),
            "Downloaded a.txt (text/plain, 10 bytes); the agent could not read it (the page no longer had it), but the user has it."
        );
    }
}
