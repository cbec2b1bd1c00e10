//! The files the user attaches to a task: checked (`files::attach`), held by the worker until the
//! task has ended (its bytes are needed only for its uploads), then let go. A task stopped while
//! waiting, or refused, lets go of them at once. Its chat keeps their names in its events, not
//! their bytes: a follow-up task is given its own files.

use super::host::Host;
use super::job::Job;
use super::TaskManager;
use crate::agent::AgentEvent;
use crate::files::attach::{self, Attachment, NewFile};
use crate::files::{Source, TaskFiles};
use crate::i18n::Message;
use crate::text;

impl<H: Host> TaskManager<H> {
    /// Starts the job `job` makes of the files, once they are held; a file that cannot be
    /// attached ends it with the reason, in its chat `chat`.
    pub(super) fn start_attached(
        &self,
        chat: String,
        files: Vec<NewFile>,
        job: impl FnOnce(TaskFiles) -> Job + 'static,
    ) {
        if files.is_empty() {
            return self.start(job(TaskFiles::default()));
        }
        let files = match attach::decode(&files) {
            Ok(files) => files,
            Err(problem) => return self.emit_to(&chat, AgentEvent::Error { message: problem.into(), steps: 0 }),
        };
        let manager = self.share();
        self.spawn(async move {
            match manager.hold_attached(files).await {
                Ok(files) => manager.start(job(files)),
                Err(message) => manager.emit_to(&chat, AgentEvent::Error { message, steps: 0 }),
            }
        });
    }

    /// The files held by the worker, as the task knows them; none when one cannot be held.
    pub(super) async fn hold_attached(&self, files: Vec<Attachment>) -> Result<TaskFiles, Message> {
        let mut held = TaskFiles::default();
        for file in files {
            match self.host.hold_file(&file.name, &file.mime, &file.bytes).await {
                Ok(handle) => {
                    held.add_held(&file.name, Source::Attached, &file.mime, file.bytes.len() as u64, &handle);
                }
                Err(err) => {
                    self.host.release_files(&held.handles(Source::Attached)).await;
                    return Err(text!("core_attach_not_kept", &file.name, err).into());
                }
            }
        }
        Ok(held)
    }

    /// Lets go of the files the user attached to `job`, which no longer needs them.
    pub(super) fn release_attached(&self, job: &Job) {
        let handles = job.attached_handles();
        if handles.is_empty() {
            return;
        }
        let host = std::rc::Rc::clone(&self.host);
        self.spawn(async move { host.release_files(&handles).await });
    }
}
