//! One task's run: its chat opened, its tab chosen, the agent prepared from the settings, its
//! events sent where they go, and its place given to a waiting task when it ends.

use super::app_call::AppCall;
use super::apps;
use super::built_in_note;
use super::gate::{self, TimedGate};
use super::host::Host;
use super::job::Job;
use super::prepare::Prepared;
use super::queue::{Asker, Task};
use super::shared_tabs::SharedTabs;
use super::TaskManager;
use crate::agent::{run_task, AgentEvent, Checkpoint, TaskConfig, UserGate};
use crate::browser::Browser;
use crate::i18n::Message;
use crate::mcp;
use crate::messages::History;
use crate::protocol;
use crate::text;
use std::cell::RefCell;
use std::rc::Rc;

/// What of a scheduled run the user hears in a notification: a question, and the end.
fn needs_notice(event: &AgentEvent) -> bool {
    matches!(
        event,
        AgentEvent::ApprovalNeeded { .. }
            | AgentEvent::ReviewNeeded { .. }
            | AgentEvent::HandOverNeeded { .. }
            | AgentEvent::Result { .. }
            | AgentEvent::Error { .. }
            | AgentEvent::Stopped { .. }
    )
}

impl<H: Host> TaskManager<H> {
    /// Runs a task now, in its chat.
    pub(super) fn launch(&self, chat: String, job: Job) {
        let app = job.app();
        let scheduled = job.scheduled();
        let attached = job.attached_handles();
        let asker = app.as_ref().map_or(Asker::Panel, |app| Asker::AppTask(app.id));
        let task = self.tasks.run(chat.clone(), asker);
        let manager = self.share();
        self.spawn(async move {
            let TaskManager { host, tasks, chats, .. } = &manager;
            match chats.begin(job.task(), job.chat()).await {
                // Not the chat's: it stays as it was.
                Err(message) => {
                    let error = AgentEvent::Error { message, steps: 0 };
                    if let Some(app) = &app {
                        app.on_event(&error);
                    }
                    manager.emit_to(&chat, error);
                }
                Ok(open) => {
                    // The events go to the panels and the chat, and those an app follows to the app.
                    let emit = |event: AgentEvent| {
                        if let Some(app) = &app {
                            app.on_event(&event);
                        }
                        if let Some(workflow) = scheduled.as_deref().filter(|_| needs_notice(&event)) {
                            host.notify(workflow, &protocol::encode_chat_event(&chat, &event));
                        } else if let Some(app) =
                            app.as_ref().filter(|_| matches!(event, AgentEvent::HandOverNeeded { .. }))
                        {
                            // The user may be in the app, not the browser: the notification's Take
                            // over brings the tab forward.
                            host.notify(&app.client, &protocol::encode_chat_event(&chat, &event));
                        }
                        open.emit(&event);
                    };
                    if let Some(app) = &app {
                        open.emit(&AgentEvent::AppDriving { client: app.client.clone() });
                    }
                    let time_limit_ms = app.as_ref().map(|_| mcp::APPROVAL_TIMEOUT_MS);
                    // Runs no one watches end when no one takes over in time.
                    let hand_over_limit_ms = match (&app, &scheduled) {
                        (Some(_), _) => Some(mcp::HAND_OVER_TIMEOUT_MS),
                        (None, Some(_)) => Some(gate::SCHEDULED_HAND_OVER_MS),
                        (None, None) => None,
                    };
                    let gate = TimedGate {
                        user: &task.user,
                        host: host.as_ref(),
                        emit: &emit,
                        time_limit_ms,
                        hand_over_limit_ms,
                    };
                    let conversation = Rc::clone(&open.conversation);
                    if let Err(message) = manager.run(&task, &gate, conversation, job, &emit).await {
                        emit(AgentEvent::Error { message, steps: 0 });
                    }
                    open.finish();
                }
            }
            manager.save_task(&chat, None).await;
            // The task's end: the files the user attached to it are needed no more.
            if !attached.is_empty() {
                host.release_files(&attached).await;
            }
            task.user.withdraw(None);
            tasks.end(&chat);
            manager.start_waiting();
        });
    }

    /// The tab a task starts in: the one asked for, or the active one; when another task works
    /// there, a new background tab with the same page, so that each task has its own.
    async fn own_tab(&self, task: &Task, tab: i32, emit: &dyn Fn(AgentEvent)) -> Result<i32, Message> {
        if self.tasks.owner_of(tab, &task.chat).is_none() {
            return Ok(tab);
        }
        let tabs = self.host.browser().tabs(tab).await.map_err(|err| err.text())?;
        let url = tabs.iter().find(|info| info.id == tab).map_or("about:blank", |info| info.url.as_str());
        // In the background, and opened by no tab: another task's action that opens a tab from
        // `tab` must not take it for its own.
        let opened = self.host.open_background_tab(url).await?;
        emit(AgentEvent::Warning { message: text!("core_task_own_tab").into() });
        Ok(opened)
    }

    /// Prepares and runs one task; `Err` is a problem found before the first step.
    async fn run(
        &self,
        task: &Rc<Task>,
        gate: &impl UserGate,
        conversation: Rc<RefCell<History>>,
        job: Job,
        emit: &dyn Fn(AgentEvent),
    ) -> Result<(), Message> {
        let host = &self.host;
        let settings = host.load_settings().await?;
        let tab_or_active = |tab_id: Option<i32>| async move {
            let tab = match tab_id {
                Some(tab) => tab,
                None => host.active_tab().await?,
            };
            self.own_tab(task, tab, emit).await
        };
        let mut max_steps = settings.max_steps;
        let app: Option<Rc<AppCall>> = job.app();
        let files = match &job {
            Job::New { files, .. } => files.clone(),
            _ => Default::default(),
        };
        let output_schema = job.output_schema();
        let (description, tab, resume, replay) = match job {
            Job::New { task: description, app: Some(app), .. } => {
                max_steps = app.max_steps.unwrap_or(max_steps);
                let tab = match &app.url {
                    // A tab of its own, shared with apps.
                    Some(url) => apps::open_start_page(host.as_ref(), &settings, host.active_tab().await?, url).await?,
                    // Only a tab the user shared with apps.
                    None => self.own_tab(task, self.app_tab().await?, emit).await?,
                };
                (description, tab, None, None)
            }
            Job::New { task, tab_id, app: None, .. } => (task, tab_or_active(tab_id).await?, None, None),
            Job::Replay { replay, tab_id, .. } => {
                (replay.task.clone(), tab_or_active(tab_id).await?, None, Some(replay))
            }
            Job::Resume { checkpoint, .. } => {
                let replay = checkpoint.replay.as_ref().map(|(replay, _)| replay.clone());
                (checkpoint.task.clone(), checkpoint.tab, Some(*checkpoint), replay)
            }
        };
        task.tab.set(Some(tab));
        let (saver, chat) = (self.share(), task.chat.clone());
        let on_checkpoint = move |mut checkpoint: Checkpoint| {
            checkpoint.saved_at_ms = saver.now_ms();
            drop(saver.save_task(&chat, serde_json::to_value(&checkpoint).ok()));
        };
        let prepared = Prepared::new(host.as_ref(), &settings, description, tab, conversation, &task.limits).await?;
        let config = TaskConfig {
            max_steps,
            resume,
            on_checkpoint: Some(Rc::new(on_checkpoint)),
            on_end_tab: Some(apps::on_end_tab(&self.apps, task, app.is_some())),
            replay,
            // A follow-up goes on with the notebook its chat's last task left; the files attached
            // to this task come with it.
            files: self.chats.open_chat(&task.chat).map(|open| open.notebook()).unwrap_or_default().with_held(&files),
            output_schema,
            ..prepared.config.clone()
        };
        let (models, cancel) = (prepared.models(), &task.cancel);
        let on_built_in = built_in_note::navigator_on_built_in(&settings);
        let emit = &|event: AgentEvent| {
            if let Some(note) = on_built_in.then(|| built_in_note::beyond_capability(&event)).flatten() {
                emit(note);
            }
            emit(event)
        };
        match app {
            // An app's task sees and acts only in the tabs shared with apps.
            Some(_) => run_task(&config, &SharedTabs { host: host.as_ref() }, models, gate, cancel, emit).await,
            None => run_task(&config, host.browser(), models, gate, cancel, emit).await,
        };
        Ok(())
    }
}
