//! The task's files, one list the model knows by name:
//! - the notebook: text files the agent writes as the task goes (`todo.md`, results), whose text
//!   the core keeps (in the checkpoint and with the chat);
//! - the files the user attached to the task (a CV to upload, a list to work through);
//! - the files the task downloaded.
//!
//! Attached and downloaded files' bytes stay with the host, named by a handle
//! (`Browser::read_file` gives them back); the core keeps their name, type and size.

pub mod attach;
mod downloads;
mod notebook;
mod outline;
mod pdf;
mod read;

pub use downloads::{downloaded_sentence, media_type, too_large_to_read};
pub use notebook::{MAX_FILE_CHARS, MAX_NAME_CHARS, MAX_NOTEBOOK_CHARS, MAX_NOTEBOOK_FILES, TODO};
pub use outline::size_words;
pub use read::{page_of, text_of, text_of_pdf, Page, READ_PAGE_CHARS};

use serde::{Deserialize, Serialize};

/// The largest file whose bytes the worker holds for a task: one the user attaches (a CV, a scan,
/// a spreadsheet; one page operation carries it to the page in base64, and Chrome's messages take
/// 64 MiB), or one the task downloads (the user gets larger downloads all the same, unread).
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// Where a task's file came from, which says what may be done with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Written by the agent: it may write, append to and read it.
    Notebook,
    /// Given by the user with the task: read-only, and the only files that may be uploaded besides
    /// the notebook's.
    Attached,
    /// Downloaded by the task: read-only.
    Downloaded,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskFile {
    /// The name the model and the user know it by, unique in the task.
    pub name: String,
    pub source: Source,
    /// Its media type (`text/csv`, `application/pdf`...).
    pub mime: String,
    /// Its size in bytes.
    pub size: u64,
    /// A notebook file's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The host's name for an attached or downloaded file's bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
}

/// A task's files, in the order they came.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskFiles {
    files: Vec<TaskFile>,
    /// `todo.md` as the planner's plan last wrote it, while that plan is in the navigator's
    /// conversation: the state then leaves the file out, which would say the plan's steps again.
    #[serde(skip)]
    plan_copy: Option<String>,
}

impl TaskFiles {
    /// Adds a file the host holds (attached or downloaded) under a name no other file has: a
    /// second `invoice.pdf` becomes `invoice (2).pdf`. Returns the name given.
    pub fn add_held(&mut self, name: &str, source: Source, mime: &str, size: u64, handle: &str) -> String {
        let name = self.free_name(name);
        self.files.push(TaskFile {
            name: name.clone(),
            source,
            mime: mime.to_string(),
            size,
            text: None,
            handle: Some(handle.to_string()),
        });
        name
    }

    pub fn get(&self, name: &str) -> Option<&TaskFile> {
        self.files.iter().find(|file| file.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &TaskFile> {
        self.files.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// These files and the held ones of `other` (each under a name of its own).
    pub fn with_held(mut self, other: &TaskFiles) -> TaskFiles {
        for file in &other.files {
            if let Some(handle) = &file.handle {
                self.add_held(&file.name, file.source, &file.mime, file.size, handle);
            }
        }
        self
    }

    /// The handles of the files from `source` the host holds.
    pub fn handles(&self, source: Source) -> Vec<String> {
        self.files.iter().filter(|file| file.source == source).filter_map(|file| file.handle.clone()).collect()
    }

    /// `name`, or `stem (2).ext`, `stem (3).ext`... when a file has it.
    fn free_name(&self, name: &str) -> String {
        let name = if name.trim().is_empty() { "file" } else { name.trim() };
        let (stem, extension) = match name.rfind('.') {
            Some(dot) if dot > 0 => name.split_at(dot),
            _ => (name, ""),
        };
        (1..)
            .map(|n| if n == 1 { name.to_string() } else { format!("{stem} ({n}){extension}") })
            .find(|candidate| self.get(candidate).is_none())
            .expect("some name is free")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_files_get_names_of_their_own() {
        let mut files = TaskFiles::default();
        assert_eq!(files.add_held("invoice.pdf", Source::Downloaded, "application/pdf", 10, "d1"), "invoice.pdf");
        assert_eq!(files.add_held("invoice.pdf", Source::Downloaded, "application/pdf", 12, "d2"), "invoice (2).pdf");
        assert_eq!(files.add_held("invoice.pdf", Source::Downloaded, "application/pdf", 12, "d3"), "invoice (3).pdf");
        assert_eq!(files.add_held(" ", Source::Attached, "text/plain", 1, "a1"), "file");
        assert_eq!(files.get("invoice (2).pdf").and_then(|file| file.handle.as_deref()), Some("d2"));
        assert_eq!(files.handles(Source::Attached), ["a1"]);
        let saved = serde_json::to_value(&files).unwrap();
        assert_eq!(serde_json::from_value::<TaskFiles>(saved).unwrap(), files);
    }
}
