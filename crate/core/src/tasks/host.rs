//! What the task manager needs from the worker around it, besides the [`Browser`]: storage, the
//! panels and notifications, the tabs outside a task's reach, and the runtime (spawning, random
//! ids, HTTP clients for the models, token counters).

use crate::browser::{Browser, BrowserError, GroupId, TabId};
use crate::chats::{Chat, ChatIndex};
use crate::i18n::Message;
use crate::llm::{HttpClient, Provider};
use crate::saved::Store;
use crate::settings::Settings;
use crate::tokens::TokenCounter;
use crate::workflow::LocalZone;
use futures::future::LocalBoxFuture;
use serde_json::Value;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Where an answer to one request goes (a panel's port, an app's server), as a message in its
/// wire form; one whose receiver has gone drops it.
pub type Reply = Rc<dyn Fn(&Value)>;

/// Also the store of the user's saved things ([`Store`]) and the browser's time zone
/// ([`LocalZone`]), for the pages' requests about them.
#[allow(async_fn_in_trait)] // One thread (wasm): futures need not be Send.
pub trait Host: Store + LocalZone + 'static {
    type Browser: Browser + 'static;
    type Http: HttpClient + Clone + 'static;

    /// The browser tasks act in.
    fn browser(&self) -> &Self::Browser;

    /// Runs `work` on the worker's thread, for work that outlives the call that starts it.
    fn spawn(&self, work: LocalBoxFuture<'static, ()>);
    /// Resolves after `milliseconds` (the time limits on the user's answers, a highlight shown).
    async fn sleep(&self, milliseconds: u32);
    /// A random number, for new ids.
    fn random(&self) -> u32;
    /// An HTTP client for a model, which gives up on a request after `timeout_ms`.
    fn http(&self, timeout_ms: u32) -> Self::Http;
    /// The token counter of a provider's model (its vocabulary loaded; an estimate without it).
    async fn token_counter(&self, provider: Provider, model: &str) -> TokenCounter;

    /// Sends a message in its wire form to every open panel.
    fn emit(&self, message: &Value);
    /// Tells the user, in a notification, what a scheduled run of `workflow` needs or how it ended
    /// (`event`, as the panel gets it); also that an AI app's task (`workflow` is then the app's
    /// name) waits for them to take over.
    fn notify(&self, workflow: &str, event: &Value);

    /// The active tab of the focused window.
    async fn active_tab(&self) -> Result<TabId, Message>;
    /// Opens `url` in a new tab that stays in the background, opened by no tab.
    async fn open_background_tab(&self, url: &str) -> Result<TabId, Message>;
    /// The tabs shared with AI apps, the active tab of the focused window first.
    async fn shared_tabs(&self) -> Vec<TabId>;
    /// Shares the tabs with AI apps (they join the shared group of their window); the group.
    async fn share_tabs(&self, tabs: &[TabId]) -> Result<GroupId, BrowserError>;
    /// Whether the user allowed the app named `client` "Always", and `token` is the one it was given.
    async fn app_remembered(&self, client: &str, token: &str) -> bool;
    /// Remembers the app as allowed "Always"; the token its server is to keep.
    async fn remember_app(&self, client: &str) -> Result<String, String>;

    /// The user's settings (the defaults when none are stored).
    async fn load_settings(&self) -> Result<Settings, Message>;
    /// Saves what a restarted worker needs of chat `chat`'s task (a checkpoint, or its place in
    /// line), or clears it with `None`. Losing it only costs resuming, so failures are not told.
    async fn save_task(&self, chat: &str, saved: Option<Value>);
    /// Every saved task, by chat.
    async fn load_tasks(&self) -> Result<BTreeMap<String, Value>, String>;
    /// The History's index: the stored chats' summaries.
    async fn load_chat_index(&self) -> Result<ChatIndex, String>;
    /// One stored chat, if it is stored.
    async fn load_chat(&self, id: &str) -> Result<Option<Chat>, String>;
    /// Keeps the bytes of a file the user attached to a task; the handle `Browser::read_file`
    /// reads them by.
    async fn hold_file(&self, name: &str, mime: &str, bytes: &[u8]) -> Result<String, String>;
    /// Lets go of the files held under these handles.
    async fn release_files(&self, handles: &[String]);
    /// Writes the index and a chat together, then removes the chats named in `removed`.
    async fn save_chats(&self, index: &ChatIndex, chat: Option<&Chat>, removed: &[String]) -> Result<(), String>;
}
