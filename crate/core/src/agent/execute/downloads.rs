//! The files the task's actions downloaded: kept as the task's files and said in the action's
//! result, so that the model knows them by name and can read them.

use super::super::events::{ActionReport, AgentEvent};
use super::super::navigator::Navigator;
use super::super::task_config::UserGate;
use crate::browser::{Browser, Download};
use crate::files::{downloaded_sentence, media_type, Source, MAX_FILE_BYTES};
use crate::llm::ChatModel;

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Adds what the task's tabs downloaded since the task started, and was not yet reported, to
    /// the task's files and to the action's result.
    pub(super) async fn note_downloads(&self, report: &mut ActionReport) {
        let since = self.recorder.borrow().started_ms();
        let downloads = match self.browser.downloads(&self.worked_tabs(), since, MAX_FILE_BYTES).await {
            Ok(downloads) => downloads,
            Err(err) => {
                report.outcome.push_str(&format!(" The browser's downloads could not be looked at: {err}."));
                return;
            }
        };
        for download in downloads {
            if let Some(sentence) = self.keep_download(download) {
                report.outcome.push(' ');
                report.outcome.push_str(&sentence);
            }
        }
    }

    /// Keeps a download as a task file, tells the panel, and says it for the model; nothing when
    /// the task already has it.
    fn keep_download(&self, download: Download) -> Option<String> {
        let mut files = self.files.borrow_mut();
        if files.iter().any(|file| file.handle.as_deref() == Some(download.handle.as_str())) {
            return None;
        }
        let mime = media_type(&download);
        let name = files.add_held(&download.name, Source::Downloaded, &mime, download.size, &download.handle);
        drop(files);
        (self.emit)(AgentEvent::Downloaded {
            name: name.clone(),
            mime,
            size: download.size,
            download_id: download.download_id,
        });
        Some(downloaded_sentence(&name, &download))
    }
}

#[cfg(test)]
mod tests;
