//! A session driven from outside (an AI app through MCP) one command at a time instead of by the
//! navigator's model: the same page map, the same action execution and the same guards (site
//! policy, untrusted-text warnings, secrets, the data-flow check, approvals) as a task's steps.

use super::events::{ActionReport, AgentEvent};
use super::navigator::{result_line, Navigator, StepError};
use super::prompt::{state_message, tab_lines};
use super::record::Recorder;
use super::task_config::{Models, TaskConfig, UserGate};
use crate::actions::Action;
use crate::browser::Browser;
use crate::cancel::CancelToken;
use crate::dom_map::PageMap;
use crate::llm::ChatModel;
use crate::tabs::TabAlias;
use futures::channel::{mpsc, oneshot};
use futures::StreamExt;
use std::cell::RefCell;

/// What the outside client asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum DriveCommand {
    /// The page map of the current tab (after switching to `tab`, a tab alias, when given).
    State {
        tab: Option<TabAlias>,
    },
    /// One action, as the navigator would run it.
    Act(Action),
    Screenshot,
    ListTabs,
}

/// The answer to a command.
#[derive(Debug, Clone, PartialEq)]
pub enum DriveReply {
    Text(String),
    Image {
        media_type: String,
        base64: String,
    },
    /// The command did not do what was asked: why, for the client's model.
    Failed(String),
}

/// Longest action the panel shows as a step's goal.
const GOAL_CHARS: usize = 300;

/// The app driving a session as the user knows it; an app that gave no name is "An AI app".
pub fn app_name(client: &str) -> &str {
    match client.trim() {
        "" => "An AI app",
        name => name,
    }
}

/// A command with the channel its answer goes back on.
pub type DriveRequest = (DriveCommand, oneshot::Sender<DriveReply>);

/// Serves commands until the client goes away (`requests` ends) or the user stops the session,
/// then releases the tab as a finished task does; returns the final event (also emitted).
/// `client` names the app in the panel.
#[allow(clippy::too_many_arguments)]
pub async fn drive_session<B: Browser, M: ChatModel, G: UserGate>(
    config: &TaskConfig,
    client: &str,
    browser: &B,
    models: Models<'_, M>,
    gate: &G,
    cancel: &CancelToken,
    emit: &dyn Fn(AgentEvent),
    mut requests: mpsc::UnboundedReceiver<DriveRequest>,
) -> AgentEvent {
    let redact = |text: &str| config.limits.now().secrets.redact(text);
    let recorder = RefCell::new(Recorder::new(&config.task, config.price, browser.now_ms()));
    let emit = &|event: AgentEvent| emit(event.redacted(&redact));
    let navigator = Navigator::new(config, browser, models, gate, cancel, emit, &recorder);
    emit(AgentEvent::TaskStarted { task: config.task.clone() });
    let mut session = Session { navigator: &navigator, seen: None, commands: 0 };
    let end = match navigator.adopt_tab(config.tab).await {
        Err(text) => AgentEvent::Error { message: text.into(), steps: 0 },
        Ok(()) => loop {
            if session.commands == 0 {
                navigator.choose_start_site().await;
            }
            let Some(request) = cancel.guard(requests.next()).await else {
                break AgentEvent::Stopped { steps: session.commands };
            };
            let Some((command, answer)) = request else {
                break AgentEvent::Result {
                    success: true,
                    text: format!("{} stopped driving the browser.", app_name(client)),
                    steps: session.commands,
                };
            };
            match session.serve(command).await {
                Ok(reply) => {
                    let _ = answer.send(reply);
                }
                Err(StepError::Cancelled) => {
                    let _ = answer.send(DriveReply::Failed("The user stopped the session in the browser.".into()));
                    break AgentEvent::Stopped { steps: session.commands };
                }
                Err(StepError::Fatal(text)) => {
                    let _ = answer.send(DriveReply::Failed(text.english()));
                    break AgentEvent::Error { message: text.into(), steps: session.commands };
                }
            }
        },
    };
    navigator.release_group().await;
    config.limits.release();
    browser.finish(&navigator.worked_tabs()).await;
    if let Some(on_end_tab) = &config.on_end_tab {
        on_end_tab(navigator.tab.get());
    }
    emit(end.clone());
    end
}

struct Session<'n, 'a, B, M, G> {
    navigator: &'n Navigator<'a, B, M, G>,
    /// The page map the client saw last: actions on its elements are checked against it.
    seen: Option<PageMap>,
    /// Commands served, shown as the session's steps.
    commands: u32,
}

impl<B: Browser, M: ChatModel, G: UserGate> Session<'_, '_, B, M, G> {
    async fn serve(&mut self, command: DriveCommand) -> Result<DriveReply, StepError> {
        self.commands += 1;
        let navigator = self.navigator;
        // With the secrets as they are when the answer is written.
        let redact = |text: &str| navigator.config.limits.now().secrets.redact(text);
        match command {
            DriveCommand::State { tab } => {
                if let Some(tab) = tab {
                    let reports = self.act(Action::SwitchTab { tab }).await?;
                    if let Some(failed) = reports.iter().find(|report| !report.ok) {
                        return Ok(DriveReply::Failed(redact(&failed.outcome)));
                    }
                }
                let (page, tabs) = navigator.look().await?;
                let config = navigator.config;
                let seen = page.as_ref().map_err(Clone::clone);
                let files = navigator.files.borrow();
                let state = state_message(0, 1, seen, &[], &tabs, &files, &config.map, config.style);
                // The first line counts the navigator's steps; a session has none.
                let state = state.split_once('\n').map_or("", |(_, rest)| rest);
                self.seen = page.ok();
                Ok(DriveReply::Text(redact(state)))
            }
            DriveCommand::Act(action) => {
                let reports = self.act(action).await?;
                let text = reports.iter().map(result_line).collect::<Vec<_>>().join("\n");
                let text = redact(&text);
                Ok(match reports.iter().all(|report| report.ok) {
                    true => DriveReply::Text(text),
                    false => DriveReply::Failed(text),
                })
            }
            DriveCommand::Screenshot => match navigator.browser.screenshot(navigator.tab.get()).await {
                Ok(shot) => Ok(DriveReply::Image { media_type: shot.image.media_type, base64: shot.image.base64 }),
                Err(err) => Ok(DriveReply::Failed(format!("The screenshot could not be taken: {err}."))),
            },
            DriveCommand::ListTabs => {
                let tabs = navigator.listed_tabs().await;
                Ok(DriveReply::Text(redact(&tab_lines(&tabs, navigator.config.style))))
            }
        }
    }

    /// Runs one action as a step would, shown in the panel as a step of the session.
    async fn act(&mut self, action: Action) -> Result<Vec<ActionReport>, StepError> {
        let navigator = self.navigator;
        // What the panel shows of it: a long text to type is cut short there.
        let goal = crate::text::truncate_chars(&action.to_json().to_string(), GOAL_CHARS);
        let (reports, _) = navigator.run_actions(std::slice::from_ref(&action), self.seen.as_ref()).await?;
        (navigator.emit)(AgentEvent::Step {
            step: self.commands,
            max_steps: navigator.config.max_steps,
            evaluation: String::new(),
            memory: String::new(),
            next_goal: goal,
            actions: reports.clone(),
            screenshot: None,
        });
        Ok(reports)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::fakes::{config, FakeShop, FakeUser, ScriptedModel};
    use futures::executor::block_on;

    /// Runs a session on the fake shop, `client` sending commands (and reading the answers)
    /// while it serves; returns the session's events.
    fn session<F: std::future::Future<Output = ()>>(
        shop: &FakeShop,
        user: &FakeUser,
        client: impl FnOnce(mpsc::UnboundedSender<DriveRequest>) -> F,
    ) -> Vec<AgentEvent> {
        let events = RefCell::new(Vec::new());
        // The app is the navigator; the user's model is the critic of acts that change something
        // ("Driven by claude-code" asks for none of them).
        let model = ScriptedModel::new(vec![crate::agent::fakes::critic(false)]);
        let (requests, serving) = mpsc::unbounded();
        let config = TaskConfig { task: "Driven by claude-code".into(), ..config(100) };
        let emit = |event: AgentEvent| events.borrow_mut().push(event);
        let cancel = CancelToken::new();
        let served = drive_session(&config, "claude-code", shop, Models::single(&model), user, &cancel, &emit, serving);
        block_on(futures::future::join(served, client(requests)));
        events.into_inner()
    }

    #[test]
    fn the_tab_a_session_ends_in_is_told_after_the_client_switched_tabs() {
        let shop = FakeShop::new();
        shop.tabs.borrow_mut().push(crate::browser::TabInfo {
            id: 5,
            url: "http://shop.test/reviews".into(),
            title: "Reviews".into(),
            // The user dragged it into the session's tab group.
            group: Some(crate::agent::fakes::FIRST_GROUP),
        });
        shop.tabs.borrow_mut().push(crate::browser::TabInfo {
            id: 6,
            url: "https://bank.test/".into(),
            title: "Bank".into(),
            group: None,
        });
        let ended = std::rc::Rc::new(RefCell::new(Vec::new()));
        let sink = std::rc::Rc::clone(&ended);
        let config = TaskConfig {
            task: "Driven by claude-code".into(),
            on_end_tab: Some(std::rc::Rc::new(move |tab| sink.borrow_mut().push(tab))),
            ..config(100)
        };
        let model = ScriptedModel::new(vec![]);
        let (requests, serving) = mpsc::unbounded();
        let user = user(true);
        let cancel = CancelToken::new();
        let served =
            drive_session(&config, "claude-code", &shop, Models::single(&model), &user, &cancel, &|_| {}, serving);
        let client = async move {
            // The client learns the tabs' names first, as an app does from list_tabs.
            let DriveReply::Text(tabs) = ask(&requests, DriveCommand::ListTabs).await else { panic!() };
            assert!(tabs.contains("t2: Reviews"), "{tabs}");
            // The user's other tabs are private to an app as to the navigator's model.
            assert!(!tabs.contains("bank.test") && !tabs.contains("t3"), "{tabs}");
            let reply = ask(&requests, DriveCommand::State { tab: Some(TabAlias(2)) }).await;
            assert!(matches!(&reply, DriveReply::Text(state) if state.contains("shop.test/reviews")), "{reply:?}");
        };
        block_on(futures::future::join(served, client));
        assert_eq!(*ended.borrow(), [5]);
    }

    async fn ask(requests: &mpsc::UnboundedSender<DriveRequest>, command: DriveCommand) -> DriveReply {
        let (answer, reply) = oneshot::channel();
        requests.unbounded_send((command, answer)).unwrap();
        reply.await.unwrap()
    }

    fn user(approves: bool) -> FakeUser {
        FakeUser { approves, asked: Default::default(), reviews: Default::default() }
    }

    #[test]
    fn a_client_reads_the_navigators_page_map_and_acts_on_its_indices() {
        let shop = FakeShop::new();
        let events = session(&shop, &user(false), |requests| async move {
            let DriveReply::Text(state) = ask(&requests, DriveCommand::State { tab: None }).await else { panic!() };
            assert!(state.starts_with("Current URL: http://shop.test/\n"), "{state}");
            assert!(state.contains("[1]button Add blue mug"), "{state}");
            assert!(!state.contains("Current step"), "no navigator step header: {state}");
            let click = DriveCommand::Act(Action::ClickElement { index: 1, click: crate::browser::Click::Single });
            let DriveReply::Text(outcome) = ask(&requests, click).await else { panic!() };
            assert!(outcome.starts_with("click_element: Clicked <button> \"Add blue mug\" [1]"), "{outcome}");
            let DriveReply::Text(state) = ask(&requests, DriveCommand::State { tab: None }).await else { panic!() };
            assert!(state.contains("Cart total: $12.00"), "{state}");
            let DriveReply::Failed(missing) = ask(&requests, DriveCommand::Act(Action::Hover { index: 99 })).await
            else {
                panic!()
            };
            assert!(missing.contains("[99]"), "{missing}");
        });
        assert_eq!(shop.cart.get(), 1);
        assert_eq!(events.first(), Some(&AgentEvent::TaskStarted { task: "Driven by claude-code".into() }));
        let steps = events.iter().filter(|event| matches!(event, AgentEvent::Step { .. })).count();
        assert_eq!(steps, 2, "each action is shown as a step: {events:?}");
        assert_eq!(
            events.last(),
            Some(&AgentEvent::Result {
                success: true,
                text: "claude-code stopped driving the browser.".into(),
                steps: 4
            })
        );
        assert!(shop.finished.get(), "the tab is released when the client goes away");
    }

    #[test]
    fn a_consequential_action_waits_for_the_user_who_may_refuse_it() {
        let shop = FakeShop::new();
        *shop.buy_label.borrow_mut() = Some("Buy now".into());
        let refusing = user(false);
        let events = session(&shop, &refusing, |requests| async move {
            ask(&requests, DriveCommand::State { tab: None }).await;
            let buy = DriveCommand::Act(Action::ClickElement { index: 1, click: crate::browser::Click::Single });
            let DriveReply::Failed(outcome) = ask(&requests, buy).await else { panic!() };
            assert!(outcome.contains("The user did not allow clicking <button> \"Buy now\" [1]"), "{outcome}");
        });
        assert_eq!(shop.cart.get(), 0, "nothing was bought");
        assert_eq!(*refusing.asked.borrow(), vec![1]);
        assert!(events.iter().any(|event| matches!(event, AgentEvent::ApprovalNeeded { .. })));

        let shop = FakeShop::new();
        *shop.buy_label.borrow_mut() = Some("Buy now".into());
        session(&shop, &user(true), |requests| async move {
            ask(&requests, DriveCommand::State { tab: None }).await;
            let buy = DriveCommand::Act(Action::ClickElement { index: 1, click: crate::browser::Click::Single });
            assert!(matches!(ask(&requests, buy).await, DriveReply::Text(_)));
        });
        assert_eq!(shop.cart.get(), 1, "bought once allowed");
    }

    #[test]
    fn the_site_policy_and_secrets_hold_for_a_client() {
        use crate::agent::{Limits, LiveLimits};
        use crate::safety::{Secret, Secrets};
        let shop = FakeShop::new();
        *shop.note.borrow_mut() = "my pin is 9876".into();
        let secrets =
            Secrets::new(vec![Secret { name: "pin".into(), value: "9876".into(), domains: vec!["shop.test".into()] }]);
        let limits = Limits {
            secrets: secrets.unwrap(),
            policy: crate::safety::SitePolicy::new(&[], &["blocked.test".into()]).unwrap(),
            ..Limits::default()
        };
        let config = TaskConfig { limits: LiveLimits::new(limits), ..config(100) };
        let events = RefCell::new(Vec::new());
        let model = ScriptedModel::new(vec![]);
        let (requests, serving) = mpsc::unbounded();
        let emit = |event: AgentEvent| events.borrow_mut().push(event);
        let cancel = CancelToken::new();
        let refusing = user(false);
        let served = drive_session(&config, "app", &shop, Models::single(&model), &refusing, &cancel, &emit, serving);
        let client = async move {
            let DriveReply::Text(state) = ask(&requests, DriveCommand::State { tab: None }).await else { panic!() };
            assert!(!state.contains("9876") && state.contains("<secret>pin</secret>"), "{state}");
            let go = DriveCommand::Act(Action::GoToUrl { url: "https://blocked.test/".into() });
            let DriveReply::Failed(refused) = ask(&requests, go).await else { panic!() };
            assert!(refused.contains("blocked.test"), "{refused}");
        };
        block_on(futures::future::join(served, client));
        assert_eq!(*shop.url.borrow(), "http://shop.test/");
    }

    #[test]
    fn a_long_text_typed_for_a_client_is_shown_and_answered_in_short() {
        let shop = FakeShop::new();
        let text = "z".repeat(crate::actions::MAX_TYPED_CHARS);
        let typed = text.clone();
        let events = session(&shop, &user(false), |requests| async move {
            ask(&requests, DriveCommand::State { tab: None }).await;
            let command = DriveCommand::Act(Action::InputText { index: 2, text: typed, clear: true });
            let DriveReply::Text(answer) = ask(&requests, command).await else { panic!() };
            assert!(answer.starts_with("input_text: Typed 100,000 characters (\"zzz"), "{answer}");
            assert!(answer.len() < 400, "{answer}");
        });
        assert_eq!(*shop.note.borrow(), text);
        let goal = events.iter().find_map(|event| match event {
            AgentEvent::Step { next_goal, .. } => Some(next_goal.clone()),
            _ => None,
        });
        assert!(goal
            .is_some_and(|goal| goal.starts_with("{\"do\":\"input_text\"") && goal.chars().count() <= GOAL_CHARS + 1));
    }

    #[test]
    fn the_user_stops_a_session_from_the_panel() {
        let shop = FakeShop::new();
        let model = ScriptedModel::new(vec![]);
        let (_requests, serving) = mpsc::unbounded::<DriveRequest>();
        let cancel = CancelToken::new();
        cancel.cancel();
        let end = block_on(drive_session(
            &config(100),
            "app",
            &shop,
            Models::single(&model),
            &user(false),
            &cancel,
            &|_| {},
            serving,
        ));
        assert_eq!(end, AgentEvent::Stopped { steps: 0 });
    }
}
