//! The interface between the core and the browser it drives.
//!
//! The extension implements it over `chrome.tabs` and `chrome.scripting` with the page-side sensor;
//! tests implement it with fakes. Each method is one primitive; decisions stay in the core: the
//! operations on a page ([`PageOp`], with its [`KeyPress`]es) and the trusted input
//! ([`trusted_input`]) are what the core asks of the page-side sensor and of `chrome.debugger`.

mod drag;
mod keys;
mod page_op;
pub mod trusted_input;

pub use drag::{DragReport, DropOn};
pub use keys::{backspace, parse_keys, KeyPress};
pub use page_op::{Click, PageOp, UploadedFile};

use crate::dom_map::{ElementRef, RawFrame};
use crate::i18n::Text;
use crate::llm::Image;
use crate::text;
use serde::{Deserialize, Serialize};
use std::fmt;

pub type TabId = i32;
/// A tab group's id (`chrome.tabGroups`).
pub type GroupId = i32;

#[allow(async_fn_in_trait)] // The core runs on one thread (wasm); futures need not be Send.
pub trait Browser {
    /// Reads every frame of the page in the tab with the sensor. A frame that cannot be read is
    /// reported in its `RawFrame`; `Err` means the tab itself cannot be read.
    async fn observe(&self, tab: TabId) -> Result<Vec<RawFrame>, BrowserError>;
    /// Whether the element is as the last `observe` found it, for acting on it: still in its page,
    /// nothing in it or about it changed, still shown and not covered (the rest of the page may
    /// have changed). False when unsure; far cheaper than `observe` on a large page.
    async fn element_unchanged(&self, tab: TabId, element: &ElementRef) -> Result<bool, BrowserError>;
    /// The address of every frame of the tab's page as the browser knows it, the frames that do
    /// not answer the sensor (or keep it out) included: where an act on the whole page lands.
    async fn frame_urls(&self, tab: TabId) -> Result<Vec<String>, BrowserError>;
    /// Loads `url` in the tab and waits for it to finish loading (bounded), or for the navigation
    /// to end without a page (a download); reports what came of it.
    async fn navigate(&self, tab: TabId, url: &str) -> Result<Navigation, BrowserError>;
    /// Goes back, forward or reloads, and waits for the page (bounded); reports what came of it.
    async fn history(&self, tab: TabId, step: HistoryStep) -> Result<Navigation, BrowserError>;
    /// Performs one operation in one frame, then, if it may change the page, waits for the page to
    /// settle (bounded): navigation finished, or the DOM quiet.
    async fn perform(&self, tab: TabId, op: &PageOp) -> Result<OpOutcome, BrowserError>;
    /// Draws numbered boxes over these elements, replacing earlier ones; an empty list clears them.
    async fn highlight(&self, tab: TabId, marks: &[Highlight]) -> Result<(), BrowserError>;
    /// The tabs of the tab's window, in order.
    async fn tabs(&self, tab: TabId) -> Result<Vec<TabInfo>, BrowserError>;
    /// Opens `url` in a new tab of the tab's window, makes it active, and waits for it to load;
    /// the new tab's id and what came of its navigation. A tab Chrome opened only for what turned
    /// out to be a download is closed again by Chrome before this returns.
    async fn open_tab(&self, tab: TabId, url: &str) -> Result<(TabId, Navigation), BrowserError>;
    /// Makes the tab the active one of its window.
    async fn switch_tab(&self, tab: TabId) -> Result<(), BrowserError>;
    /// Puts the tabs into tab group `group`, or into a new group of their window when `None`;
    /// the group's id. Fails when the group is gone (closed, or emptied by the user).
    async fn group_tabs(&self, tabs: &[TabId], group: Option<GroupId>) -> Result<GroupId, BrowserError>;
    /// Names a tab group (the title in the user's language; Chrome picks its colour).
    async fn name_group(&self, group: GroupId, title: &Text) -> Result<(), BrowserError>;
    /// Takes the tabs out of whatever group they are in; they stay open where they are.
    async fn ungroup_tabs(&self, tabs: &[TabId]) -> Result<(), BrowserError>;
    async fn close_tab(&self, tab: TabId) -> Result<(), BrowserError>;
    /// Waits, for the `wait` action.
    async fn sleep(&self, milliseconds: u32);
    /// The clock, in milliseconds, for the run's record of where time went.
    fn now_ms(&self) -> f64;
    /// A picture of what the tab shows (for vision).
    async fn screenshot(&self, tab: TabId) -> Result<Screenshot, BrowserError>;
    /// Sends trusted input (DevTools Protocol `Input` commands) to the tab, then waits for the
    /// page to settle as `perform` does. Only used when the user turned trusted input on.
    async fn input(&self, tab: TabId, commands: &[trusted_input::InputCommand]) -> Result<OpOutcome, BrowserError>;
    /// Installs the browser's blocking rules for the task's `tabs` (`declarativeNetRequest`
    /// session rules, replacing the earlier ones there; none removes them).
    async fn restrict(&self, tabs: &[TabId], rules: &[serde_json::Value]) -> Result<(), BrowserError>;
    /// With `Some(hold)`, from now on holds back the tab's requests that would change something
    /// on a site (every method but the reading ones, by a script, a form or a frame) as `hold`
    /// says, and notes each; asked again while holding, returns those held so far and goes on
    /// holding; with `None`, lets them go again and returns those held since. A held request
    /// fails for the page as a network error does (`agent/execute/consequences.rs`).
    async fn hold_writes(&self, tab: TabId, hold: Option<&WriteHold>) -> Result<Vec<HeldWrite>, BrowserError>;
    /// Ends the task's presence in the tabs it worked in: highlights removed, trusted input
    /// released, its blocking rules removed (other tasks' stay), the bytes of its downloads let go
    /// of (the files stay where the browser saved them), the browser free to discard them again
    /// (a tab is kept loaded from the task's first look at it).
    async fn finish(&self, tabs: &[TabId]);
    /// The bytes of a file the host holds for the task (attached by the user, or downloaded), by
    /// its handle (`files::TaskFile::handle`).
    async fn read_file(&self, handle: &str) -> Result<Vec<u8>, BrowserError>;
    /// The files downloaded from these tabs that started at or after `since_ms` (`now_ms`'s clock)
    /// and were not reported before, each once finished (the host waits, bounded, for one under
    /// way). The host holds each one's bytes under its handle, unless it is larger than
    /// `max_bytes` or they could not be had (`Download::unread`).
    async fn downloads(&self, tabs: &[TabId], since_ms: f64, max_bytes: u64) -> Result<Vec<Download>, BrowserError>;
    /// The bytes of the file the tab shows in the browser's own viewer (a PDF), asked for again as
    /// the tab loaded it (with the browser's cookies); fails when it is larger than `max_bytes`.
    async fn shown_file(&self, tab: TabId, max_bytes: u64) -> Result<Vec<u8>, BrowserError>;
}

/// Which changing requests a hold holds back, those of the tab and of every tab opened while it
/// holds (a popup its page opens): those to `sites` (their hosts; with their subdomains), and
/// with `everywhere`, those to any site, beacons and sockets opened included. The sites' service
/// workers' too, which belong to no tab.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WriteHold {
    pub sites: Vec<String>,
    pub everywhere: bool,
}

/// A request that would have changed something on a site, held back (`Browser::hold_writes`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct HeldWrite {
    /// POST, PUT, PATCH or DELETE.
    pub method: String,
    pub url: String,
    /// What sent it, as Chrome names it: `xmlhttprequest` (a script), `main_frame` or
    /// `sub_frame` (a form), `ping` (a beacon), `websocket` (a socket opened: its GET), `other`.
    pub kind: String,
    /// The start of its body when it is text (a form's fields, JSON) and the browser gives it
    /// (Chrome gives none for PATCH), for telling a query sent by POST (GraphQL's `query`) from a
    /// change, and for showing what it carries.
    pub body: String,
}

/// A file the browser downloaded for the task, as the host reports it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Download {
    /// Its name as saved, without the folder.
    pub name: String,
    /// Its media type as the server gave it (`application/pdf`), empty when none was given.
    pub mime: String,
    /// Its size in bytes.
    pub size: u64,
    /// The host's name for what it holds of it (`Browser::read_file`).
    pub handle: String,
    /// Why its bytes are not held (the page no longer had them, the server refused them again),
    /// in words for the model; none when they are, or when it is too large to be read.
    pub unread: Option<String>,
    /// The browser's id of the download (`chrome.downloads`), for the user to find the file.
    pub download_id: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HistoryStep {
    Back,
    Forward,
    Reload,
}

/// What the browser reported of a top-frame navigation (`webNavigation` and `webRequest` events,
/// as Chrome gives them); the core words it for the model (`agent::execute::navigation`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Navigation {
    /// The tab's address once the navigation ended: the final one after redirects, the address
    /// that failed when the browser shows its error page, the page it stayed on when nothing was
    /// shown (a download).
    pub url: String,
    /// Whether a new document took the tab (`webNavigation.onCommitted`); the browser's error page,
    /// a download and a same-document navigation do not.
    pub committed: bool,
    /// The HTTP status of the last response (after redirects), when the browser saw one: not for
    /// a page restored from the back-forward cache or an address that never answered.
    pub status: Option<u16>,
    /// The top frame's network error (`webNavigation.onErrorOccurred`): `net::ERR_CONNECTION_REFUSED`
    /// and the like when the browser shows its error page, `net::ERR_ABORTED` when the navigation
    /// ended without a page (a download, a response with nothing to show, a navigation cancelled).
    pub error: Option<String>,
    /// The last response's `Content-Disposition` header.
    pub disposition: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct TabInfo {
    pub id: TabId,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub title: String,
    /// The tab group it is in (Chrome's `groupId`: -1, or none given, is no group).
    #[serde(default, deserialize_with = "group_id")]
    pub group: Option<GroupId>,
}

fn group_id<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<GroupId>, D::Error> {
    let id = Option::<f64>::deserialize(deserializer)?;
    Ok(id.filter(|&id| id >= 0.0).map(|id| id as GroupId))
}

/// What the tab shows: the picture for the model, and a small one for the panel when the host
/// made one.
#[derive(Debug, Clone, PartialEq)]
pub struct Screenshot {
    pub image: Image,
    /// A data URL.
    pub thumbnail: Option<String>,
}

/// A numbered box over an element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Highlight {
    #[serde(flatten)]
    pub target: ElementRef,
    pub index: u32,
}

/// What the sensor reports after an operation.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct OpOutcome {
    pub ok: bool,
    /// Why the operation failed, or a note on what happened.
    pub message: String,
    /// The element's value after typing or choosing.
    pub value: Option<String>,
    /// A tab the operation opened (a link with target=_blank), found by the host.
    pub opened_tab: Option<TabId>,
    /// Where a link the page let open in a new tab leads, as it was once the page's handlers ran:
    /// the core checks it before the tab is opened.
    pub new_tab_url: Option<String>,
    /// A native select's option texts.
    pub options: Option<Vec<String>>,
    /// Where a scroll left its scroller.
    pub scroll: Option<ScrollState>,
    /// What a text search found.
    pub found: Option<FoundText>,
    /// The frame's content for extraction, as the sensor's JSON text.
    pub content: Option<String>,
    /// Where to click an element, in its frame's viewport (for trusted input).
    pub point: Option<[f64; 2]>,
    /// The form an action would submit.
    pub submission: Option<Submission>,
    /// The options now chosen in a multiple select.
    pub selected: Option<Vec<String>>,
    /// A slider's or spinner's number, as it shows it.
    pub control: Option<NumberState>,
    /// What a drag did (or, aimed only, where it would go).
    pub dragged: Option<DragReport>,
}

/// The number a slider or spinner holds, and its bounds and step where it tells them.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct NumberState {
    pub value: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub step: Option<f64>,
    /// The value in words, where the control gives them (`aria-valuetext`: "20 °C").
    pub text: String,
}

/// A form as it would be sent: its action URL, method and fields (name, value).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct Submission {
    pub action: String,
    pub method: String,
    pub fields: Vec<(String, String)>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct ScrollState {
    pub before: f64,
    pub after: f64,
    /// The largest scroll offset.
    pub max: f64,
    /// The scroller's visible height.
    pub viewport: f64,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct FoundText {
    pub count: u32,
    /// Text around the first few occurrences.
    pub snippets: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum BrowserError {
    /// The tab was closed or never existed.
    TabClosed,
    /// The page cannot be scripted by extensions (chrome://, the Web Store, other extensions).
    Restricted { url: String },
    /// A navigation did not finish in time or failed.
    Navigation(String),
    /// The sensor could not run or failed.
    Script(String),
}

impl fmt::Display for BrowserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text().english())
    }
}

impl BrowserError {
    /// What went wrong, as part of a sentence (it starts in lower case).
    pub fn text(&self) -> Text {
        match self {
            BrowserError::TabClosed => text!("core_browser_tab_closed"),
            BrowserError::Restricted { url } if url.is_empty() => text!("core_browser_restricted_this_page"),
            BrowserError::Restricted { url } => text!("core_browser_restricted", url),
            BrowserError::Navigation(detail) => text!("core_browser_navigation", detail),
            BrowserError::Script(detail) => text!("core_browser_script", detail),
        }
    }
}
