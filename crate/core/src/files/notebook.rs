//! The agent's notebook: small text files it writes, appends to and reads as the task goes
//! (`todo.md`, a `results.csv` that grows page by page). Bounded in the number of files and in
//! characters, per file and in all, so that it always fits the checkpoint and the chat it is kept
//! with; every refusal says the limit and what to do instead.

use super::{Source, TaskFile, TaskFiles};
use crate::text::thousands;

/// At most this many notebook files in a task.
pub const MAX_NOTEBOOK_FILES: usize = 20;
/// One notebook file holds at most this many characters (some 2,000 rows of a CSV).
pub const MAX_FILE_CHARS: usize = 100_000;
/// The notebook holds at most this many characters in all: well inside a chat's store bound.
pub const MAX_NOTEBOOK_CHARS: usize = 200_000;
/// A notebook file's name is at most this long.
pub const MAX_NAME_CHARS: usize = 64;
/// The plan the planner and the navigator keep as a checklist.
pub const TODO: &str = "todo.md";

/// The kinds of text a notebook file may hold, by extension, with their media type.
const EXTENSIONS: &[(&str, &str)] =
    &[("md", "text/markdown"), ("txt", "text/plain"), ("csv", "text/csv"), ("json", "application/json")];

impl TaskFiles {
    /// Writes `text` as the notebook file `name`, replacing what it held; creates it if need be.
    pub fn write(&mut self, name: &str, text: &str) -> Result<&TaskFile, String> {
        self.put(name, |_| text.to_string())
    }

    /// Writes the plan's checklist into `todo.md`, which the state then leaves out while the
    /// plan is in the conversation (see [`Self::forget_plan_copy`]).
    pub fn write_plan(&mut self, text: &str) -> Result<&TaskFile, String> {
        self.plan_copy = Some(text.to_string());
        self.write(TODO, text)
    }

    /// The plan has left the conversation (summarised): `todo.md` is shown again.
    pub fn forget_plan_copy(&mut self) {
        self.plan_copy = None;
    }

    /// Whether `todo.md` is still the plan's checklist as the plan wrote it.
    pub(super) fn todo_is_plan_copy(&self) -> bool {
        self.plan_copy.is_some() && self.plan_copy.as_deref() == self.notebook_text(TODO)
    }

    /// Adds `text` at the end of the notebook file `name`, on a line of its own (a row appended to
    /// a CSV stays a row); creates the file if need be.
    pub fn append(&mut self, name: &str, text: &str) -> Result<&TaskFile, String> {
        self.put(name, |old| match old.is_empty() || old.ends_with('\n') {
            true => format!("{old}{text}"),
            false => format!("{old}\n{text}"),
        })
    }

    /// The text of the notebook file `name`.
    pub fn notebook_text(&self, name: &str) -> Option<&str> {
        self.get(name).filter(|file| file.source == Source::Notebook).and_then(|file| file.text.as_deref())
    }

    /// Sets the notebook file `name` to `new(old text)`, within the notebook's bounds.
    fn put(&mut self, name: &str, new: impl FnOnce(&str) -> String) -> Result<&TaskFile, String> {
        let position = self.files.iter().position(|file| file.name == name);
        if let Some(file) = position.map(|at| &self.files[at]).filter(|file| file.source != Source::Notebook) {
            return Err(format!(
                "{name} is a file {}, which cannot be changed: write to a file of another name, such as {}-notes.md",
                match file.source {
                    Source::Attached => "the user attached",
                    _ => "the task downloaded",
                },
                name.rsplit_once('.').map_or(name, |(stem, _)| stem)
            ));
        }
        let mime = notebook_mime(name)?;
        if position.is_none() && self.notebook().count() >= MAX_NOTEBOOK_FILES {
            return Err(format!(
                "the notebook holds at most {MAX_NOTEBOOK_FILES} files and has that many: write into one of them ({}) instead",
                self.notebook().map(|file| file.name.as_str()).collect::<Vec<_>>().join(", ")
            ));
        }
        let old = position.and_then(|at| self.files[at].text.as_deref()).unwrap_or_default();
        let text = new(old);
        let chars = text.chars().count();
        if chars > MAX_FILE_CHARS {
            return Err(format!(
                "{name} would hold {} characters; a notebook file holds at most {}: put the rest in another file, such as {}",
                thousands(chars),
                thousands(MAX_FILE_CHARS),
                next_part_name(name)
            ));
        }
        let others: usize =
            self.notebook().filter(|file| file.name != name).map(|file| chars_of(file.text.as_deref())).sum();
        if others + chars > MAX_NOTEBOOK_CHARS {
            return Err(format!(
                "the notebook would hold {} characters; it holds at most {} in all: shorten a file by writing it again with write_file, or finish with what the notebook has",
                thousands(others + chars),
                thousands(MAX_NOTEBOOK_CHARS)
            ));
        }
        let file = TaskFile {
            name: name.to_string(),
            source: Source::Notebook,
            mime: mime.to_string(),
            size: text.len() as u64,
            text: Some(text),
            handle: None,
        };
        let at = match position {
            Some(at) => {
                self.files[at] = file;
                at
            }
            None => {
                self.files.push(file);
                self.files.len() - 1
            }
        };
        Ok(&self.files[at])
    }

    /// The notebook files of `files` (a chat's last list, for the chat's next task to go on with);
    /// the others are left out: their bytes went with the task that had them.
    pub fn notebook_of(files: impl IntoIterator<Item = TaskFile>) -> TaskFiles {
        TaskFiles { files: files.into_iter().filter(|file| file.source == Source::Notebook).collect(), plan_copy: None }
    }

    fn notebook(&self) -> impl Iterator<Item = &TaskFile> {
        self.files.iter().filter(|file| file.source == Source::Notebook)
    }
}

fn chars_of(text: Option<&str>) -> usize {
    text.map_or(0, |text| text.chars().count())
}

/// The media type of a notebook file named `name`, or why it cannot be one.
fn notebook_mime(name: &str) -> Result<&'static str, String> {
    let kinds = || EXTENSIONS.iter().map(|(extension, _)| format!(".{extension}")).collect::<Vec<_>>().join(", ");
    if name.trim().is_empty() {
        return Err(format!("a notebook file needs a name, such as results.csv or notes.md (ending in {})", kinds()));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "the name \"{name}\" is longer than the {MAX_NAME_CHARS} characters a notebook file's name may have: choose a shorter one"
        ));
    }
    if name.contains(['/', '\\', ':'])
        || name.starts_with('.')
        || name != name.trim()
        || name.chars().any(char::is_control)
    {
        return Err(format!(
            "\"{name}\" cannot name a notebook file: a name is a plain file name, without folders, slashes, colons or a leading dot, such as results.csv"
        ));
    }
    let extension = name.rsplit_once('.').map(|(_, extension)| extension.to_ascii_lowercase()).unwrap_or_default();
    EXTENSIONS.iter().find(|(known, _)| *known == extension).map(|(_, mime)| *mime).ok_or_else(|| {
        format!("\"{name}\" cannot name a notebook file: notebook files are text, with a name ending in {}", kinds())
    })
}

/// `results-2.csv` after `results.csv`, `results-3.csv` after `results-2.csv`.
fn next_part_name(name: &str) -> String {
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name, "txt"));
    let (base, part) = match stem.rsplit_once('-').map(|(base, n)| (base, n.parse::<u32>())) {
        Some((base, Ok(n))) => (base, n + 1),
        _ => (stem, 2),
    };
    format!("{base}-{part}.{extension}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_appends_on_a_line_of_its_own_and_reads_back() {
        let mut files = TaskFiles::default();
        assert_eq!(files.write("results.csv", "name,price").unwrap().mime, "text/csv");
        files.append("results.csv", "mug,4").unwrap();
        files.append("results.csv", "cup,3\n").unwrap();
        let file = files.append("results.csv", "plate,5").unwrap();
        assert_eq!(file.text.as_deref(), Some("name,price\nmug,4\ncup,3\nplate,5"));
        assert_eq!(file.size, 30);
        files.write("results.csv", "new").unwrap();
        assert_eq!(files.notebook_text("results.csv"), Some("new"));
        assert_eq!(files.append("todo.md", "- [ ] a").unwrap().mime, "text/markdown");
        assert_eq!(files.iter().count(), 2, "a file written again stays one file");
    }

    #[test]
    fn names_are_plain_file_names_of_text_kinds() {
        let mut files = TaskFiles::default();
        for name in ["../x.md", "a/b.csv", "C:x.txt", ".hidden.md", " x.md", "x.md\n", "", "data.xlsx", "notes"] {
            let refusal = files.write(name, "x").unwrap_err();
            assert!(refusal.contains("name"), "{name:?}: {refusal}");
        }
        assert!(files.write("data.xlsx", "x").unwrap_err().ends_with("ending in .md, .txt, .csv, .json"));
        let long = format!("{}.md", "a".repeat(MAX_NAME_CHARS));
        assert!(files.write(&long, "x").unwrap_err().contains("longer than the 64 characters"));
        assert!(files.write("Notes (2).TXT", "x").is_ok());
        assert!(files.is_empty() || files.iter().count() == 1);
    }

    #[test]
    fn held_files_cannot_be_written() {
        let mut files = TaskFiles::default();
        files.add_held("cv.txt", Source::Attached, "text/plain", 3, "a1");
        let refusal = files.append("cv.txt", "more").unwrap_err();
        assert_eq!(
            refusal,
            "cv.txt is a file the user attached, which cannot be changed: write to a file of another name, such as cv-notes.md"
        );
        assert_eq!(files.notebook_text("cv.txt"), None);
    }

    #[test]
    fn a_file_and_the_notebook_are_bounded_with_a_way_on() {
        let mut files = TaskFiles::default();
        files.write("rows.csv", &"x".repeat(MAX_FILE_CHARS - 1)).unwrap();
        let refusal = files.append("rows.csv", "yy").unwrap_err();
        assert_eq!(
            refusal,
            "rows.csv would hold 100,002 characters; a notebook file holds at most 100,000: put the rest in another file, such as rows-2.csv"
        );
        assert_eq!(chars_of(files.notebook_text("rows.csv")), MAX_FILE_CHARS - 1, "a refused append changes nothing");
        files.write("rows-2.csv", &"x".repeat(MAX_FILE_CHARS)).unwrap();
        let refusal = files.write("rows-3.csv", "xx").unwrap_err();
        assert!(
            refusal.starts_with("the notebook would hold 200,001 characters; it holds at most 200,000"),
            "{refusal}"
        );
        // Writing a file again counts its new text, not the old one too.
        files.write("rows.csv", "short").unwrap();
        assert_eq!(next_part_name("rows-2.csv"), "rows-3.csv");
    }

    #[test]
    fn the_number_of_files_is_bounded() {
        let mut files = TaskFiles::default();
        for n in 0..MAX_NOTEBOOK_FILES {
            files.write(&format!("f{n}.txt"), "x").unwrap();
        }
        let refusal = files.write("one-more.txt", "x").unwrap_err();
        assert!(
            refusal.starts_with(
                "the notebook holds at most 20 files and has that many: write into one of them (f0.txt, f1.txt"
            ),
            "{refusal}"
        );
        assert!(files.append("f3.txt", "y").is_ok(), "the files it has can still grow");
    }
}
