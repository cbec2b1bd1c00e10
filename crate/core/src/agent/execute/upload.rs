//! `upload_file`: one of the task's files into a file input, or dropped onto a drop zone. Only
//! the files the user attached and the agent's own notebook files may go, never one the task
//! downloaded (it is not the user's to send); the file goes to the page's site, so what it
//! carries is checked as any data leaving is (`flow`): an attached file is the user's data, a
//! notebook file's text is checked as typed text.

use super::flow::Outbound;
use super::{report, Done, Outcome};
use crate::agent::navigator::{Navigator, StepError};
use crate::agent::task_config::UserGate;
use crate::browser::{Browser, PageOp, UploadedFile};
use crate::dom_map::MapElement;
use crate::files::{size_words, MAX_FILE_BYTES};
use crate::files::{Source, TaskFile};
use crate::llm::ChatModel;
use crate::safety::{Carried, Site};
use crate::text;
use base64::Engine;

const NAME: &str = "upload_file";

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Refuses an upload of a file that is not the task's to send, or too large; then checks where
    /// it goes. The report when it must not run.
    pub(super) async fn guard_upload(
        &self,
        name: &str,
        element: &MapElement,
        page_url: &str,
    ) -> Result<Option<Done>, StepError> {
        let target = element.describe();
        let file = match self.uploadable(name) {
            Ok(file) => file,
            Err(refusal) => return Ok(Some(report(NAME, Some(&target), false, refusal))),
        };
        if !may_take_files(element) {
            let refusal = format!("{target} is a field of another kind, not a file input or a drop zone: upload into the page's file input (<input type=file>, or the button or area that says to choose or drop a file).");
            return Ok(Some(report(NAME, Some(&target), false, refusal)));
        }
        // A file input in a frame of another site gives the file to that site.
        let to = element.frame_url.as_deref().unwrap_or(page_url);
        let site = Site::of(to).map(|site| site.to_string()).unwrap_or_default();
        let doing = text!("core_doing_uploading", &target, site);
        let carried = match (&file.source, &file.text) {
            (Source::Notebook, Some(text)) => Carried::Typed(text),
            _ => Carried::File(&file.name),
        };
        self.guard_flow(&Outbound { name: NAME, target: Some(&target), to, carried, doing }).await
    }

    /// The task's file `name`, if it may be uploaded; else why not, for the model.
    fn uploadable(&self, name: &str) -> Result<TaskFile, String> {
        let files = self.files.borrow();
        let Some(file) = files.get(name) else {
            let names: Vec<String> = files
                .iter()
                .filter(|file| file.source != Source::Downloaded)
                .map(|file| format!("\"{}\"", file.name))
                .collect();
            return Err(match names.is_empty() {
                true => format!("There is no file \"{name}\": the user attached no file to this task, and your notebook has none. Do not upload anything; finish and tell the user which file the page asks for."),
                false => format!("There is no file \"{name}\" among the task's files; the files you may upload are {}.", names.join(", ")),
            });
        };
        if file.source == Source::Downloaded {
            return Err(format!("\"{name}\" was downloaded by the task: it is not the user's to send. Only the files the user attached and your notebook's files can be uploaded."));
        }
        if file.size > MAX_FILE_BYTES {
            return Err(format!(
                "\"{name}\" is {}; an upload takes at most {}. Tell the user the file is too large to upload.",
                size_words(file.size),
                size_words(MAX_FILE_BYTES)
            ));
        }
        Ok(file.clone())
    }

    /// Puts the file into the element (checked by [`Self::guard_upload`]).
    pub(super) async fn upload(&self, element: &MapElement, name: &str) -> Outcome {
        let target = element.describe();
        let file = match self.uploadable(name) {
            Ok(file) => file,
            Err(refusal) => return Ok(report(NAME, Some(&target), false, refusal)),
        };
        let (bytes, mime) = match (&file.source, &file.text, &file.handle) {
            (Source::Notebook, Some(text), _) => (text.clone().into_bytes(), file.mime.clone()),
            (_, _, Some(handle)) => match self.browser.read_file(handle).await {
                Ok(bytes) => (bytes, file.mime.clone()),
                Err(err) => {
                    let problem = format!("Could not read \"{name}\": {err}. Tell the user to attach it again.");
                    return Ok(report(NAME, Some(&target), false, problem));
                }
            },
            _ => return Ok(report(NAME, Some(&target), false, format!("\"{name}\" has no content to upload."))),
        };
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let files = vec![UploadedFile { name: file.name.clone(), mime, data }];
        let op = PageOp::Upload { target: element.target.clone(), tag: element.tag.clone(), files };
        let outcome = self.perform(&op).await?;
        // A file input reports the files it holds; a drop zone, nothing (the page took the drop).
        let success = match outcome.value.as_deref() {
            None => format!("Dropped \"{name}\" onto {target}."),
            Some(all) if all != file.name => format!("Put \"{name}\" into {target}, which now holds {all}."),
            Some(_) => format!("Put \"{name}\" into {target}."),
        };
        self.after_op(NAME, Some(&target), outcome, success, &format!("Could not upload \"{name}\" to {target}")).await
    }
}

/// Whether the element may be a file input or a drop zone: not a field of another kind (whether
/// any other element takes a drop, only the page can tell).
fn may_take_files(element: &MapElement) -> bool {
    let kind = element.attrs.iter().find(|(name, _)| name == "type").map(|(_, kind)| kind.to_ascii_lowercase());
    match element.tag.as_str() {
        "input" => kind.as_deref() == Some("file"),
        "textarea" | "select" | "option" => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests;
