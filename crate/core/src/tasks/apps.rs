//! AI apps using the agent through the MCP host (crate/native-host, reached over the native
//! messaging port the worker holds while the user allows it): each tool call is checked against
//! the user's setting and pairing, then runs as a task or as one command of a session the app
//! drives.

use super::app_call::AppCall;
use super::chats::Start;
use super::gate::TimedGate;
use super::host::{Host, Reply};
use super::job::Job;
use super::prepare::Prepared;
use super::queue::{Asker, Task};
use super::shared_tabs::SharedTabs;
use super::TaskManager;
use crate::agent::{drive_session, AgentEvent, DriveCommand, DriveReply, DriveRequest, TaskConfig};
use crate::browser::Browser;
use crate::i18n::Message;
use crate::mcp::{self, HostMessage, Pairing, Tool};
use crate::protocol;
use crate::settings::Settings;
use futures::channel::{mpsc, oneshot};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// What apps have under way: the session one drives (its commands go to `session`) and the call
/// whose command it is serving. (Their tasks are among the core's, marked by who asked.)
#[derive(Default)]
pub struct Apps {
    session: RefCell<Option<mpsc::UnboundedSender<DriveRequest>>>,
    serving: RefCell<Option<Rc<AppCall>>>,
    /// The calls sent to the session and not answered yet, by id.
    commands: RefCell<Vec<u64>>,
    /// The tab the app's last task or session ended in: its next session starts there (a task
    /// may have opened or switched to another tab than the active one).
    tab: Cell<Option<i32>>,
    /// Counts the apps gone: a task or session that ends after its app went away leaves no tab
    /// for the next app.
    departures: Cell<u64>,
    /// Whether the connected app may use the agent (the user's answer holds for the connection).
    pairing: RefCell<PairState>,
}

/// The connected app's standing with the user.
#[derive(Default)]
struct PairState {
    state: Paired,
    /// The app as it named itself (MCP's clientInfo).
    client: String,
    /// Allowed by a remembered "Always" (revoking it in the settings ends that).
    always: bool,
    /// The calls waiting for the user's answer.
    waiting: Vec<oneshot::Sender<Result<(), String>>>,
    /// Where messages to the app's server go (the token of an "Always").
    reply: Option<Reply>,
}

#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
enum Paired {
    /// Not asked yet on this connection.
    #[default]
    Unknown,
    Asking,
    Allowed,
    Denied,
}

/// What a task or session is to do with the tab it ends in: it holds it no more, and when an app
/// asked for it (`for_app`), the app's next session starts there.
pub fn on_end_tab(apps: &Rc<Apps>, task: &Rc<Task>, for_app: bool) -> Rc<dyn Fn(i32)> {
    let (apps, task) = (Rc::clone(apps), Rc::clone(task));
    let departures = apps.departures.get();
    Rc::new(move |tab| {
        task.tab.set(None);
        if for_app && apps.departures.get() == departures {
            apps.tab.set(Some(tab));
        }
    })
}

/// Opens `url` for a task an app asked for, in a new tab next to `tab`, if the site settings
/// allow it; the tab is shared with apps (it joins the group).
pub async fn open_start_page(host: &impl Host, settings: &Settings, tab: i32, url: &str) -> Result<i32, String> {
    let policy = settings.site_policy().map_err(|err| err.to_string())?;
    let url = policy.check(url).map_err(|refusal| format!("The task's page {url} was not opened: {refusal}."))?;
    let opened = host.browser().open_tab(tab, &url).await;
    let (id, _) = opened.map_err(|err| format!("The task's page {url} could not be opened: {err}."))?;
    host.share_tabs(&[id])
        .await
        .map_err(|err| format!("The task's page {url} was opened but could not be shared with AI apps: {err}."))?;
    Ok(id)
}

impl<H: Host> TaskManager<H> {
    /// Handles one message from the MCP host (or why it could not be read); answers go to `reply`.
    pub fn handle_host_message(&self, message: Result<Value, String>, reply: Reply) {
        let parsed = message
            .map_err(|err| mcp::Refusal { id: None, message: format!("an unreadable message ({err})") })
            .and_then(|value| HostMessage::parse(&value));
        match parsed {
            Err(refusal) => AppCall::new(0, String::new(), None, reply).send(&mcp::refusal(&refusal)),
            Ok(HostMessage::Call { id, client, token, tool }) => {
                let manager = self.share();
                let call = AppCall::new(id, client, token, reply);
                self.spawn(async move { manager.call(call, tool).await });
            }
            Ok(HostMessage::Cancel { id }) => {
                if let Some(task) = self.tasks.find(|task| task.asker == Asker::AppTask(id)) {
                    self.stop(Some(&task.chat));
                } else if self.apps.commands.borrow().contains(&id) {
                    // A command of the session the app drives: the session stops at once (a long
                    // typing between two of its pieces), as Stop in the panel stops it, and lets
                    // go of the tab; the app's next call opens a new one.
                    self.apps.session.borrow_mut().take();
                    if let Some(task) = self.tasks.find(|task| task.asker == Asker::AppSession) {
                        self.stop(Some(&task.chat));
                    }
                }
            }
            Ok(HostMessage::Disconnected) => self.host_disconnected(),
            Ok(HostMessage::HostError(message)) => self.emit(&AgentEvent::Warning {
                message: format!("A message between the browser and an AI app could not be read: {message}").into(),
            }),
        }
    }

    /// The question whether an app may use the agent, while it is asked (for a panel that opens
    /// meanwhile); `None` when none is.
    pub fn pairing_question(&self) -> Option<Value> {
        let pairing = self.apps.pairing.borrow();
        (pairing.state == Paired::Asking).then(|| mcp::pairing_question(Some(&pairing.client)))
    }

    /// The user revoked remembered apps in the settings: an app let in by its "Always" is asked
    /// again on its next call.
    pub fn apps_revoked(&self) {
        let mut pairing = self.apps.pairing.borrow_mut();
        if pairing.state == Paired::Allowed && pairing.always {
            *pairing = PairState::default();
        }
    }
}

impl<H: Host> TaskManager<H> {
    /// The user's answer in the panel to whether the app asking may use the agent.
    pub(super) fn answer_pairing(&self, decision: Pairing) {
        let (client, reply) = {
            let pairing = self.apps.pairing.borrow();
            if pairing.state != Paired::Asking {
                return;
            }
            (pairing.client.clone(), pairing.reply.clone())
        };
        self.host.emit(&mcp::pairing_question(None));
        let core = self.share();
        self.spawn(async move {
            let outcome = match decision {
                Pairing::Deny => Err(mcp::pairing_denied(&client)),
                Pairing::Once => Ok(false),
                Pairing::Always => match core.host.remember_app(&client).await {
                    Ok(token) => {
                        // To the app's server before the answer to its call, so that it keeps the token.
                        if let Some(reply) = &reply {
                            let paired = serde_json::json!({"type": "paired", "client": client, "token": token});
                            reply(&paired);
                        }
                        Ok(true)
                    }
                    // Allowed all the same, for this connection.
                    Err(_) => Ok(false),
                },
            };
            let mut pairing = core.apps.pairing.borrow_mut();
            if pairing.state != Paired::Asking {
                return;
            }
            pairing.state = if outcome.is_ok() { Paired::Allowed } else { Paired::Denied };
            pairing.always = outcome == Ok(true);
            let answer = outcome.map(drop);
            for waiting in pairing.waiting.drain(..) {
                let _ = waiting.send(answer.clone());
            }
        });
    }

    /// Whether the app of `call` may use the agent: allowed on this connection, or "Always" by the
    /// token it shows; else the user is asked in the panel (the app hears that it waits), once for
    /// all the calls it sends meanwhile.
    async fn paired(&self, call: &AppCall) -> Result<(), String> {
        let state = self.apps.pairing.borrow().state;
        match state {
            Paired::Allowed => return Ok(()),
            Paired::Denied => return Err(mcp::pairing_denied(&call.client)),
            Paired::Asking => {}
            Paired::Unknown => {
                if let Some(token) = &call.token {
                    if self.host.app_remembered(&call.client, token).await {
                        let mut pairing = self.apps.pairing.borrow_mut();
                        if pairing.state == Paired::Unknown {
                            *pairing = PairState {
                                state: Paired::Allowed,
                                client: call.client.clone(),
                                always: true,
                                ..PairState::default()
                            };
                        }
                        return Ok(());
                    }
                }
            }
        }
        let (answer, answered) = oneshot::channel();
        {
            let mut pairing = self.apps.pairing.borrow_mut();
            match pairing.state {
                Paired::Allowed => return Ok(()),
                Paired::Denied => return Err(mcp::pairing_denied(&call.client)),
                Paired::Asking => pairing.waiting.push(answer),
                Paired::Unknown => {
                    *pairing = PairState {
                        state: Paired::Asking,
                        client: call.client.clone(),
                        always: false,
                        waiting: vec![answer],
                        reply: Some(call.reply.clone()),
                    };
                    self.host.emit(&mcp::pairing_question(Some(&call.client)));
                }
            }
        }
        let waiting =
            serde_json::json!({"type": "waiting", "id": call.id, "message": mcp::pairing_waiting(&call.client)});
        call.send(&waiting);
        let timeout = self.host.sleep(mcp::APPROVAL_TIMEOUT_MS);
        futures::pin_mut!(timeout);
        match futures::future::select(answered, timeout).await {
            futures::future::Either::Left((Ok(answer), _)) => answer,
            // The app went away meanwhile.
            futures::future::Either::Left((Err(_), _)) => Err("The app disconnected before the user answered.".into()),
            futures::future::Either::Right(_) => {
                let unanswered = mcp::pairing_unanswered(&call.client);
                let mut pairing = self.apps.pairing.borrow_mut();
                if pairing.state == Paired::Asking {
                    for waiting in std::mem::take(&mut *pairing).waiting {
                        let _ = waiting.send(Err(unanswered.clone()));
                    }
                    self.host.emit(&mcp::pairing_question(None));
                }
                Err(unanswered)
            }
        }
    }

    /// The tab an app's call acts in when it names none: where its last task or session ended,
    /// else the active tab, else the first tab shared; each only while shared with apps.
    pub(super) async fn app_tab(&self) -> Result<i32, String> {
        let shared = self.host.shared_tabs().await;
        let ended_in = self.apps.tab.get().filter(|tab| shared.contains(tab));
        let active = self.host.active_tab().await.ok().filter(|tab| shared.contains(tab));
        ended_in.or(active).or(shared.first().copied()).ok_or_else(mcp::no_shared_tab)
    }
}

impl<H: Host> TaskManager<H> {
    /// The MCP host went away (the setting was turned off, or it ended), or the app did: what
    /// apps started ends.
    pub fn host_disconnected(&self) {
        // The answer held for the connection; a question still open is withdrawn.
        let pairing = std::mem::take(&mut *self.apps.pairing.borrow_mut());
        if pairing.state == Paired::Asking {
            self.host.emit(&mcp::pairing_question(None));
        }
        // Dropping the session's sender ends the session, once a question it waits on is
        // withdrawn (an action no app waits for any more is not done).
        self.apps.session.borrow_mut().take();
        self.apps.tab.take();
        self.apps.departures.set(self.apps.departures.get() + 1);
        for task in self.tasks.select(None) {
            match task.asker {
                Asker::AppSession => task.user.withdraw(None),
                Asker::AppTask(_) => self.stop(Some(&task.chat)),
                Asker::Panel => {}
            }
        }
    }

    async fn call(&self, mut call: AppCall, tool: Tool) {
        let id = call.id;
        let allowed = self.host.load_settings().await.and_then(|settings| match settings.mcp {
            true => Ok(settings),
            false => Err(mcp::turned_off().into()),
        });
        let settings = match allowed {
            Ok(settings) => settings,
            Err(message) => return call.send(&mcp::result(id, false, &message)),
        };
        if let Err(message) = self.paired(&call).await {
            return call.send(&mcp::result(id, false, &message));
        }
        match tool {
            Tool::RunTask { task, url, max_steps, output_schema, files } => {
                let files = match self.hold_attached(files).await {
                    Ok(files) => files,
                    Err(message) => return call.send(&mcp::result(id, false, &message)),
                };
                self.end_session().await;
                (call.url, call.max_steps) = (url, max_steps);
                let app = Some(Rc::new(call));
                let chat = self.new_chat_id();
                self.start(Job::New { task, tab_id: None, follow_up: false, chat, app, output_schema, files });
            }
            Tool::Drive(command) => {
                let call = Rc::new(call);
                let reply = self.command(&call, settings, command).await;
                call.send(&mcp::drive_result(id, reply));
            }
        }
    }

    /// Serves one command in the app's session, opening the session first if needed.
    async fn command(&self, call: &Rc<AppCall>, settings: Settings, command: DriveCommand) -> DriveReply {
        if self.apps.session.borrow().is_none() {
            // A session stopped a moment ago (its app cancelled a call) is still letting go of the tab.
            self.session_gone().await;
            // Where the app's last task or session ended, while that tab is shared; else the
            // active tab, else a tab shared with apps.
            let tab = match self.app_tab().await {
                Ok(tab) => tab,
                Err(message) => return DriveReply::Failed(message),
            };
            if self.tasks.owner_of(tab, "").is_some() {
                return DriveReply::Failed("The browser agent is working on another task in the shared tab the app would use. Wait for it to end, ask the user to stop it in the side panel, or to share another tab.".into());
            }
            self.open_session(&call.client, settings, tab);
        }
        let Some(session) = self.apps.session.borrow().clone() else {
            return DriveReply::Failed("The session ended.".into());
        };
        let switching = matches!(
            &command,
            DriveCommand::State { tab: Some(_) } | DriveCommand::Act(crate::actions::Action::SwitchTab { .. })
        );
        let (answer, answered) = oneshot::channel();
        *self.apps.serving.borrow_mut() = Some(Rc::clone(call));
        if session.unbounded_send((command, answer)).is_err() {
            return DriveReply::Failed(
                "The session ended (stopped in the browser); call the tool again to start a new one.".into(),
            );
        }
        self.apps.commands.borrow_mut().push(call.id);
        let reply = answered.await.unwrap_or_else(|_| {
            DriveReply::Failed(
                "The session ended before answering (stopped in the browser, or it could not start).".into(),
            )
        });
        self.apps.commands.borrow_mut().retain(|&id| id != call.id);
        // A tab named that the app may not see is none of its tabs: say how to share one.
        match (reply, switching) {
            // The tab the session is in is no longer shared: what it says of it is a failure.
            (DriveReply::Text(text), _) if text.contains(mcp::HOW_TO_SHARE) => DriveReply::Failed(text),
            (DriveReply::Failed(text), true) if !text.contains(mcp::HOW_TO_SHARE) => DriveReply::Failed(format!(
                "{text} The app sees only the tabs shared with AI apps. {}",
                mcp::HOW_TO_SHARE
            )),
            (reply, _) => reply,
        }
    }

    /// Starts a session an app drives in `tab`, shown in the panel as a running task (Stop ends it).
    fn open_session(&self, client: &str, settings: Settings, tab: i32) {
        let (sender, mut requests) = mpsc::unbounded::<DriveRequest>();
        *self.apps.session.borrow_mut() = Some(sender);
        let chat = self.new_chat_id();
        let session = self.tasks.run(chat.clone(), Asker::AppSession);
        session.tab.set(Some(tab));
        let core = self.share();
        let client = client.to_string();
        self.spawn(async move {
            let TaskManager { host, chats, apps, .. } = &core;
            let task = mcp::session_task(&client);
            let open = match chats.begin(&task, Start::New(&chat)).await {
                Ok(open) => open,
                Err(message) => {
                    refuse_waiting(&mut requests, &message);
                    core.emit_to(&chat, AgentEvent::Error { message, steps: 0 });
                    return core.session_over(&chat);
                }
            };
            // An approval the session asks for tells the app it waits.
            let emit = |event: AgentEvent| {
                let waits = matches!(event, AgentEvent::ApprovalNeeded { .. } | AgentEvent::HandOverNeeded { .. });
                if let (true, Some(call)) = (waits, apps.serving.borrow().as_ref()) {
                    call.on_event(&event);
                }
                if matches!(event, AgentEvent::HandOverNeeded { .. }) {
                    host.notify(&client, &protocol::encode_chat_event(&chat, &event));
                }
                open.emit(&event);
            };
            open.emit(&AgentEvent::AppDriving { client: client.clone() });
            match Prepared::new(host.as_ref(), &settings, task, tab, Rc::default(), &session.limits).await {
                Ok(prepared) => {
                    let config = TaskConfig {
                        on_end_tab: Some(on_end_tab(&core.apps, &session, true)),
                        ..prepared.config.clone()
                    };
                    let gate = TimedGate {
                        user: &session.user,
                        host: host.as_ref(),
                        emit: &emit,
                        time_limit_ms: Some(mcp::APPROVAL_TIMEOUT_MS),
                        hand_over_limit_ms: Some(mcp::HAND_OVER_TIMEOUT_MS),
                    };
                    let models = prepared.models();
                    let browser = SharedTabs { host: host.as_ref() };
                    drive_session(&config, &client, &browser, models, &gate, &session.cancel, &emit, requests).await;
                }
                Err(message) => {
                    refuse_waiting(&mut requests, &message);
                    emit(AgentEvent::Error { message, steps: 0 });
                }
            }
            open.finish();
            session.user.withdraw(None);
            core.session_over(&chat);
        });
    }

    /// The session in chat `chat` has ended: its place goes to a waiting task.
    fn session_over(&self, chat: &str) {
        self.apps.session.borrow_mut().take();
        self.apps.serving.borrow_mut().take();
        self.tasks.end(chat);
        self.start_waiting();
    }

    /// Ends the app's session, if one is open, and waits until it has released the browser.
    async fn end_session(&self) {
        if self.apps.session.borrow_mut().take().is_none() {
            return;
        }
        self.session_gone().await;
    }

    /// Waits (5 s at most) until no session an app drove holds a tab any more.
    async fn session_gone(&self) {
        for _ in 0..100 {
            if self.tasks.find(|task| task.asker == Asker::AppSession).is_none() {
                return;
            }
            self.host.sleep(50).await;
        }
    }
}

/// A session that could not start: the commands sent meanwhile learn why, and no more are taken.
fn refuse_waiting(requests: &mut mpsc::UnboundedReceiver<DriveRequest>, why: &Message) {
    requests.close();
    while let Ok((_, answer)) = requests.try_recv() {
        let _ = answer.send(DriveReply::Failed(why.to_string()));
    }
}
