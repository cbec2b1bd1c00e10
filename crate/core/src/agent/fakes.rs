//! A fake browser and a scripted model for the agent's native tests.

use super::limits::{Limits, LiveLimits};
use super::navigator::run_task;
use super::task_config::{Budgets, Models, Review, TaskConfig, UserGate};
use super::AgentEvent;
use crate::actions::SearchEngine;
use crate::browser::trusted_input::InputCommand;
use crate::browser::Download;
use crate::browser::DragReport;
use crate::browser::{
    Browser, BrowserError, FoundText, GroupId, HeldWrite, Highlight, HistoryStep, Navigation, OpOutcome, PageOp,
    ScrollState, Submission, TabId, TabInfo, WriteHold,
};
use crate::cancel::CancelToken;
use crate::dom_map::tests::{node, page};
use crate::dom_map::{ElementRef, MapOptions, RawFrame, RawNode};
use crate::llm::{ChatModel, ChatReply, ChatRequest, LlmError};
use crate::messages::{Budget, RequestStyle};
use crate::tokens::TokenCounter;
use futures::executor::block_on;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};

/// What the fake network answers at an address; an address it does not know serves a page (200).
#[derive(Debug, Clone)]
pub enum Served {
    /// A page with this status.
    Page(u16),
    /// An error status without a body (Chrome shows its own error page for it).
    EmptyError(u16),
    /// A redirect to this address.
    Redirect(String),
    /// A network error, as Chrome names it (`net::ERR_CONNECTION_REFUSED`).
    Fails(&'static str),
    /// A file with this `Content-Disposition` (`None`: a type the browser does not show).
    File(Option<String>),
}

/// What a tab shows after a navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shows {
    Page,
    ErrorPage,
    /// What it showed before.
    Same,
}

/// What a test does as an operation is performed.
pub type OnPerform = Box<dyn Fn(&PageOp)>;

/// A one-page shop: a button adds a mug (12 each), the total is shown as text, a field holds a
/// note, a custom dropdown chooses a colour, a link opens a new tab.
pub struct FakeShop {
    pub cart: Cell<u32>,
    pub note: RefCell<String>,
    pub url: RefCell<String>,
    pub ops: RefCell<Vec<PageOp>>,
    pub closed: Cell<bool>,
    /// The indices highlighted, per call.
    pub highlights: RefCell<Vec<Vec<u32>>>,
    pub dropdown_open: Cell<bool>,
    pub color: RefCell<String>,
    /// When set, the add button is replaced by an identical-looking new element (a new id).
    pub button_generation: Cell<u32>,
    /// The window's tabs (shared, so that a test's user can drag one out of a group meanwhile).
    pub tabs: std::rc::Rc<RefCell<Vec<TabInfo>>>,
    pub current_tab: Cell<TabId>,
    /// The last tab id given (like Chrome, the fake never gives an id twice).
    last_tab_id: Cell<TabId>,
    pub slept_ms: Cell<u32>,
    clock_ms: Cell<u32>,
    pub input_commands: RefCell<Vec<InputCommand>>,
    pub finished: Cell<bool>,
    /// Called with each operation as it is performed (a test's user may stop the task then).
    pub on_perform: RefCell<Option<OnPerform>>,
    /// Every call to `restrict`: the tabs, and the rules written there.
    pub restricted: RefCell<Vec<(Vec<TabId>, Vec<serde_json::Value>)>>,
    /// Replaces the add button's label (say, with a purchase).
    pub buy_label: RefCell<Option<String>>,
    /// Where the Reviews link leads.
    pub reviews_href: RefCell<String>,
    /// The reviews link's words (none: an icon link, whose address the map shows).
    pub reviews_text: RefCell<String>,
    /// Where the Reviews link leads once the page's click handler ran, when it asks for a new
    /// tab as a synthetic click makes it (the core opens it); none: the browser opens it.
    pub reviews_new_tab: RefCell<Option<String>>,
    /// The form the add button and Enter submit, if any.
    pub form: RefCell<Option<Submission>>,
    /// Pages read.
    pub observes: Cell<u32>,
    /// Whether the fake answers `element_unchanged` as the extension does (true when nothing was
    /// done to the page since it was read), rather than never being sure.
    pub tracks_changes: Cell<bool>,
    /// The page's state when it was last read: operations performed, add button generation.
    read_at: Cell<(usize, u32)>,
    /// What addresses answer, by address.
    pub network: RefCell<HashMap<String, Served>>,
    /// Whether the tab shows the browser's error page (which extensions cannot script).
    pub error_page: Cell<bool>,
    /// The names given to tab groups, in order: (group, title).
    pub group_names: RefCell<Vec<(GroupId, String)>>,
    /// The last group id given; the first group made is [`FIRST_GROUP`].
    last_group: Cell<GroupId>,
    /// Whether the window can group tabs (a popup window cannot).
    pub groups_work: Cell<bool>,
    /// The bytes of the files the host holds for the task, by handle.
    pub held_files: RefCell<HashMap<String, Vec<u8>>>,
    /// Whether the page has a file input (a CV's, accepting PDF).
    pub file_input: Cell<bool>,
    /// Downloads the next `downloads` call reports (the host held their bytes in `held_files`),
    /// and the size bound each call gave.
    pub pending_downloads: RefCell<Vec<Download>>,
    pub download_bounds: RefCell<Vec<u64>>,
    /// The PDF the tab shows in the browser's viewer, if it shows one.
    pub shown_pdf: RefCell<Option<Vec<u8>>>,
    /// More elements at the end of the page (a sign-in form...), and more frames (a CAPTCHA's).
    pub extra_nodes: RefCell<Vec<RawNode>>,
    pub extra_frames: RefCell<Vec<RawFrame>>,
    /// Frames the browser knows that the sensor never reads (one that hangs, or keeps it out).
    pub unread_frames: RefCell<Vec<String>>,
    /// The size of the tab's viewport, when a test sets one.
    pub viewport: Cell<Option<(f64, f64)>>,
    /// The request a click on the add button makes, when it makes one (a POST to the cart):
    /// held while the host holds the tab's changes, sent (and the cart filled) otherwise.
    pub add_sends: RefCell<Option<HeldWrite>>,
    /// Times the page, once reloaded, sends that request again (an outbox retried), one as each
    /// moment passes (`sleep`); those left when the task ends are sent then (the page lives on).
    pub resends: Cell<u32>,
    /// The request a page sends as it loads, in a new tab or the task's: held while the host
    /// holds the tab, sent otherwise.
    pub load_sends: RefCell<Option<HeldWrite>>,
    /// The request typing into the note field or putting a file into the file input makes (a
    /// field that saves itself as it is typed, an input that uploads at once): as `add_sends`.
    pub field_sends: RefCell<Option<HeldWrite>>,
    /// The request a page sends as its tab is closed (`pagehide`): as `add_sends`.
    pub leave_sends: RefCell<Option<HeldWrite>>,
    /// The note as the site has it (what a reload shows): as typed, once its save went.
    saved_note: RefCell<String>,
    reloaded: Cell<bool>,
    /// The hold in force, as the extension's rules take it.
    holding: RefCell<Option<WriteHold>>,
    held: RefCell<Vec<HeldWrite>>,
    /// The browser cannot hold the tab's changes back (its rules fail).
    pub hold_fails: Cell<bool>,
    /// The requests the page sent that changed something.
    pub sent: RefCell<Vec<HeldWrite>>,
}

/// The node id of the page's file input, when it has one.
pub const FILE_INPUT_ID: u32 = 12;

/// The id of the first tab group the fake browser makes (the task's, in most tests).
pub const FIRST_GROUP: GroupId = 1;

impl FakeShop {
    pub fn new() -> Self {
        Self {
            cart: Cell::new(0),
            note: RefCell::default(),
            url: RefCell::new("http://shop.test/".into()),
            ops: RefCell::default(),
            closed: Cell::new(false),
            highlights: RefCell::default(),
            dropdown_open: Cell::new(false),
            color: RefCell::new("Choose".into()),
            button_generation: Cell::new(0),
            tabs: std::rc::Rc::new(RefCell::new(vec![TabInfo {
                id: 1,
                url: "http://shop.test/".into(),
                title: "Shop".into(),
                group: None,
            }])),
            current_tab: Cell::new(1),
            last_tab_id: Cell::new(1),
            slept_ms: Cell::new(0),
            clock_ms: Cell::new(0),
            input_commands: RefCell::default(),
            finished: Cell::new(false),
            on_perform: RefCell::default(),
            restricted: RefCell::default(),
            buy_label: RefCell::default(),
            reviews_href: RefCell::new("/reviews".into()),
            reviews_text: RefCell::new("Reviews".into()),
            reviews_new_tab: RefCell::default(),
            form: RefCell::default(),
            observes: Cell::new(0),
            tracks_changes: Cell::new(false),
            read_at: Cell::new((0, 0)),
            network: RefCell::default(),
            held_files: RefCell::default(),
            file_input: Cell::new(false),
            pending_downloads: RefCell::default(),
            download_bounds: RefCell::default(),
            shown_pdf: RefCell::default(),
            error_page: Cell::new(false),
            group_names: RefCell::default(),
            last_group: Cell::new(FIRST_GROUP - 1),
            groups_work: Cell::new(true),
            extra_nodes: RefCell::default(),
            extra_frames: RefCell::default(),
            unread_frames: RefCell::default(),
            viewport: Cell::default(),
            add_sends: RefCell::default(),
            resends: Cell::new(0),
            load_sends: RefCell::default(),
            field_sends: RefCell::default(),
            saved_note: RefCell::default(),
            leave_sends: RefCell::default(),
            reloaded: Cell::new(false),
            holding: RefCell::default(),
            held: RefCell::default(),
            hold_fails: Cell::new(false),
            sent: RefCell::default(),
        }
    }

    /// The string parameter `key` of each trusted-input command `method` sent, in order.
    pub fn input_params(&self, method: &str, key: &str) -> Vec<String> {
        let commands = self.input_commands.borrow();
        let sent = commands.iter().filter(|c| c.method == method);
        sent.map(|c| c.params[key].as_str().unwrap().to_string()).collect()
    }

    /// Loads `url` as Chrome does, following redirects, and reports it as the extension's host
    /// does (the tab's address afterwards, whether a document took the tab, the last response's
    /// status and `Content-Disposition`, the top frame's error), with what the tab then shows: the
    /// page, the browser's error page at the address that failed, or (a download commits
    /// nothing) still the page at `showing`.
    fn load(&self, url: &str, showing: &str) -> (Navigation, Shows) {
        let mut url = url.to_string();
        for _ in 0..20 {
            // The rules last written for the task's tabs are the session's (one task a fake).
            let rules = self.restricted.borrow().last().map(|(_, rules)| rules.clone()).unwrap_or_default();
            if blocks_page(&rules, &url) {
                let error = Some("net::ERR_BLOCKED_BY_CLIENT".into());
                return (Navigation { url, error, ..Navigation::default() }, Shows::ErrorPage);
            }
            let served = self.network.borrow().get(&url).cloned().unwrap_or(Served::Page(200));
            return match served {
                Served::Redirect(to) => {
                    url = to;
                    continue;
                }
                Served::Page(status) => {
                    (Navigation { url, committed: true, status: Some(status), ..Navigation::default() }, Shows::Page)
                }
                Served::EmptyError(status) => {
                    let error = Some("net::ERR_HTTP_RESPONSE_CODE_FAILURE".into());
                    (Navigation { url, status: Some(status), error, ..Navigation::default() }, Shows::ErrorPage)
                }
                Served::Fails(error) => {
                    (Navigation { url, error: Some(error.into()), ..Navigation::default() }, Shows::ErrorPage)
                }
                Served::File(disposition) => {
                    let url = showing.to_string();
                    let error = Some("net::ERR_ABORTED".into());
                    (Navigation { url, status: Some(200), error, disposition, ..Navigation::default() }, Shows::Same)
                }
            };
        }
        let error = Some("net::ERR_TOO_MANY_REDIRECTS".to_string());
        (Navigation { url, error, ..Navigation::default() }, Shows::ErrorPage)
    }

    fn page_state(&self) -> (usize, u32) {
        (self.ops.borrow().len(), self.button_generation.get())
    }

    /// A request the page sends (if any): held while the host holds, else sent; whether it went.
    fn send(&self, write: Option<HeldWrite>) -> bool {
        let held = |write: &HeldWrite| {
            let host = url::Url::parse(&write.url).ok().and_then(|url| url.host_str().map(str::to_string));
            self.holding.borrow().as_ref().is_some_and(|hold| {
                hold.everywhere
                    || host.is_some_and(|host| {
                        hold.sites.iter().any(|site| host == *site || host.ends_with(&format!(".{site}")))
                    })
            })
        };
        match write {
            Some(write) if held(&write) => {
                self.held.borrow_mut().push(write);
                false
            }
            write => {
                self.sent.borrow_mut().extend(write);
                true
            }
        }
    }

    /// The add button's work: its request sent as `send` does, the cart filled when it went.
    fn send_add(&self) {
        if self.send(self.add_sends.borrow().clone()) {
            self.cart.set(self.cart.get() + 1);
        }
    }

    /// The reloaded page sends the add request again, while it has resends left; whether it did.
    fn resend(&self) -> bool {
        let again = self.reloaded.get() && self.resends.get() > 0;
        if again {
            self.resends.set(self.resends.get() - 1);
            self.send_add();
        }
        again
    }

    fn add_button_id(&self) -> u32 {
        2 + 100 * self.button_generation.get()
    }

    fn with_attrs(mut node: RawNode, attrs: &[(&str, &str)]) -> RawNode {
        node.attrs = attrs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        node
    }
}

impl Browser for FakeShop {
    async fn observe(&self, _tab: TabId) -> Result<Vec<RawFrame>, BrowserError> {
        if self.closed.get() {
            return Err(BrowserError::TabClosed);
        }
        if self.error_page.get() {
            // What the extension's host makes of chrome.scripting's answer there.
            return Err(BrowserError::Navigation("the tab shows the browser's error page".into()));
        }
        self.observes.set(self.observes.get() + 1);
        self.read_at.set(self.page_state());
        let mut note = node(3, Some(0), "textarea", "");
        note.value = Some(self.note.borrow().clone());
        let mut nodes = vec![
            node(1, None, "body", ""),
            node(self.add_button_id(), Some(0), "button", self.buy_label.borrow().as_deref().unwrap_or("Add blue mug")),
            note,
            node(4, Some(0), "p", &format!("Cart total: ${}.00", self.cart.get() * 12)),
            Self::with_attrs(
                node(5, Some(0), "div", &format!("Color: {}", self.color.borrow())),
                &[("role", "combobox")],
            ),
            Self::with_attrs(
                node(9, Some(0), "a", &self.reviews_text.borrow()),
                &[("href", &self.reviews_href.borrow()), ("target", "_blank")],
            ),
        ];
        if self.dropdown_open.get() {
            nodes.push(Self::with_attrs(node(6, Some(0), "div", "Red"), &[("role", "option")]));
            nodes.push(Self::with_attrs(node(7, Some(0), "div", "Blue"), &[("role", "option")]));
        }
        if self.file_input.get() {
            nodes
                .push(Self::with_attrs(node(FILE_INPUT_ID, Some(0), "input", ""), &[("type", "file"), ("name", "cv")]));
        }
        nodes.extend(self.extra_nodes.borrow().iter().cloned());
        let mut raw = page(nodes);
        raw.url = self.url.borrow().clone();
        if let Some(size) = self.viewport.get() {
            (raw.viewport.width, raw.viewport.height) = size;
        }
        let frames = std::iter::once(RawFrame { frame_id: 0, page: Ok(raw) });
        Ok(frames.chain(self.extra_frames.borrow().iter().cloned()).collect())
    }

    async fn element_unchanged(&self, _tab: TabId, _element: &ElementRef) -> Result<bool, BrowserError> {
        Ok(self.tracks_changes.get() && self.page_state() == self.read_at.get())
    }

    async fn frame_urls(&self, _tab: TabId) -> Result<Vec<String>, BrowserError> {
        let read = self
            .extra_frames
            .borrow()
            .iter()
            .filter_map(|frame| Some(frame.page.as_ref().ok()?.url.clone()))
            .collect::<Vec<_>>();
        let top = std::iter::once(self.url.borrow().clone());
        Ok(top.chain(read).chain(self.unread_frames.borrow().iter().cloned()).collect())
    }

    async fn navigate(&self, tab: TabId, url: &str) -> Result<Navigation, BrowserError> {
        let showing = self.url.borrow().clone();
        let (navigation, shows) = self.load(url, &showing);
        if shows != Shows::Same {
            *self.url.borrow_mut() = navigation.url.clone();
            self.error_page.set(shows == Shows::ErrorPage);
            if shows != Shows::ErrorPage {
                self.send(self.load_sends.borrow().clone());
            }
            // The tab's address is the page's, or the one its error page is for.
            for info in self.tabs.borrow_mut().iter_mut().filter(|info| info.id == tab) {
                info.url = navigation.url.clone();
            }
        }
        Ok(navigation)
    }

    async fn history(&self, tab: TabId, step: HistoryStep) -> Result<Navigation, BrowserError> {
        self.reloaded.set(step == HistoryStep::Reload);
        if step == HistoryStep::Reload {
            self.note.replace(self.saved_note.borrow().clone());
        }
        let to = match step {
            HistoryStep::Reload => self.url.borrow().clone(),
            _ => "http://shop.test/previous".into(),
        };
        self.navigate(tab, &to).await
    }

    async fn highlight(&self, _tab: TabId, marks: &[Highlight]) -> Result<(), BrowserError> {
        self.highlights.borrow_mut().push(marks.iter().map(|mark| mark.index).collect());
        Ok(())
    }

    async fn perform(&self, _tab: TabId, op: &PageOp) -> Result<OpOutcome, BrowserError> {
        self.ops.borrow_mut().push(op.clone());
        if let Some(hook) = self.on_perform.borrow().as_ref() {
            hook(op);
        }
        let ok = OpOutcome { ok: true, ..OpOutcome::default() };
        Ok(match op {
            PageOp::Click { target, .. } if target.id == self.add_button_id() => {
                self.send_add();
                ok
            }
            PageOp::Click { target, .. } if target.id == 5 => {
                self.dropdown_open.set(true);
                ok
            }
            PageOp::Click { target, .. } if target.id == 6 || target.id == 7 => {
                *self.color.borrow_mut() = if target.id == 6 { "Red" } else { "Blue" }.into();
                self.dropdown_open.set(false);
                ok
            }
            PageOp::Click { target, .. } if target.id == 9 && self.reviews_new_tab.borrow().is_some() => {
                OpOutcome { new_tab_url: self.reviews_new_tab.borrow().clone(), ..ok }
            }
            PageOp::Click { target, .. } if target.id == 9 => {
                self.tabs.borrow_mut().push(TabInfo {
                    id: 2,
                    url: "http://shop.test/reviews".into(),
                    title: "Reviews".into(),
                    group: None,
                });
                OpOutcome { opened_tab: Some(2), ..ok }
            }
            PageOp::Type { target, text, clear, .. } if target.id == 3 => {
                let mut note = self.note.borrow_mut();
                if *clear {
                    note.clear();
                }
                note.push_str(text);
                if self.send(self.field_sends.borrow().clone()) {
                    self.saved_note.replace(note.clone());
                }
                OpOutcome { value: Some(note.clone()), ..ok }
            }
            PageOp::Keys { .. } | PageOp::Hover { .. } | PageOp::Focus { .. } => ok,
            PageOp::Upload { target, files, .. } if target.id == FILE_INPUT_ID => {
                let names: Vec<&str> = files.iter().map(|file| file.name.as_str()).collect();
                self.send(self.field_sends.borrow().clone());
                OpOutcome { value: Some(names.join(", ")), ..ok }
            }
            // Any other element takes a drop, as a page that cancels dragover there does.
            PageOp::Upload { .. } => ok,
            // A drag moves the element from first to second place; aimed only, it goes from its
            // point to the drop element's (rects are 10 px per id).
            PageOp::Drag { target, to, aim_only: true, .. } => {
                let y = |id: u32| 10.0 * f64::from(id) + 5.0;
                let to = y(to.as_ref().map_or(target.id, |to| to.id));
                let dragged = DragReport { from: [50.0, y(target.id)], to: [50.0, to], ..DragReport::default() };
                OpOutcome { dragged: Some(dragged), ..ok }
            }
            PageOp::Drag { .. } | PageOp::Dragged { .. } => {
                let dragged =
                    DragReport { changed: true, place_before: Some([1, 3]), place_after: Some([2, 3]), ..DragReport::default() };
                OpOutcome { dragged: Some(dragged), ..ok }
            }
            PageOp::Locate { target, .. } => {
                // The add button sits at y 20..30 in the fake page (node rects are 10 px per id).
                OpOutcome { point: Some([50.0, 10.0 * f64::from(target.id) + 5.0]), ..ok }
            }
            PageOp::Value { .. } => OpOutcome { value: Some(self.note.borrow().clone()), ..ok },
            PageOp::Submission { target, .. } if target.id == self.add_button_id() => {
                OpOutcome { submission: self.form.borrow().clone(), ..ok }
            }
            PageOp::FocusedSubmission { .. } => OpOutcome { submission: self.form.borrow().clone(), ..ok },
            PageOp::ScrollPage { direction, .. } => {
                let after = if *direction == "up" { 0.0 } else { 600.0 };
                OpOutcome { scroll: Some(ScrollState { before: 0.0, after, max: 1200.0, viewport: 600.0 }), ..ok }
            }
            PageOp::Find { text, .. } => {
                let count = if text == "mug" { 2 } else { 0 };
                OpOutcome { found: Some(FoundText { count, snippets: vec!["Add blue mug".into()] }), ..ok }
            }
            PageOp::Content { .. } if self.shown_pdf.borrow().is_some() => OpOutcome {
                content: Some(r#"{"url":"http://shop.test/invoice.pdf","title":"invoice.pdf","contentType":"application/pdf","blocks":[]}"#.into()),
                ..ok
            },
            PageOp::Content { .. } => OpOutcome {
                content: Some(
                    r#"{"url":"http://shop.test/","title":"Shop","blocks":[{"tag":"p","landmark":"main","parts":[{"text":"Shipping takes 2 days."}]}]}"#
                        .into(),
                ),
                ..ok
            },
            _ => OpOutcome { ok: false, message: "not clickable".into(), ..OpOutcome::default() },
        })
    }

    async fn tabs(&self, _tab: TabId) -> Result<Vec<TabInfo>, BrowserError> {
        Ok(self.tabs.borrow().clone())
    }

    async fn open_tab(&self, _tab: TabId, url: &str) -> Result<(TabId, Navigation), BrowserError> {
        let id = self.tabs.borrow().iter().map(|t| t.id).max().unwrap_or(0).max(self.last_tab_id.get()) + 1;
        self.last_tab_id.set(id);
        let (mut navigation, shows) = self.load(url, "about:blank");
        if shows == Shows::Same {
            // Chrome closes a tab opened only for a download; the host reports the address asked.
            navigation.url = url.into();
            return Ok((id, navigation));
        }
        self.tabs.borrow_mut().push(TabInfo { id, url: navigation.url.clone(), title: String::new(), group: None });
        self.current_tab.set(id);
        self.send(self.load_sends.borrow().clone());
        Ok((id, navigation))
    }

    async fn switch_tab(&self, tab: TabId) -> Result<(), BrowserError> {
        self.current_tab.set(tab);
        Ok(())
    }

    async fn close_tab(&self, tab: TabId) -> Result<(), BrowserError> {
        self.send(self.leave_sends.borrow().clone());
        self.tabs.borrow_mut().retain(|t| t.id != tab);
        Ok(())
    }

    /// As Chrome: a group with no tab left is gone.
    async fn group_tabs(&self, tabs: &[TabId], group: Option<GroupId>) -> Result<GroupId, BrowserError> {
        if !self.groups_work.get() {
            return Err(BrowserError::Script("Tabs can only be moved to and from normal windows.".into()));
        }
        let id = match group {
            Some(id) if self.tabs.borrow().iter().any(|tab| tab.group == Some(id)) => id,
            Some(id) => return Err(BrowserError::Script(format!("No group with id: {id}."))),
            None => {
                self.last_group.set(self.last_group.get() + 1);
                self.last_group.get()
            }
        };
        for tab in self.tabs.borrow_mut().iter_mut().filter(|tab| tabs.contains(&tab.id)) {
            tab.group = Some(id);
        }
        Ok(id)
    }

    async fn name_group(&self, group: GroupId, title: &crate::i18n::Text) -> Result<(), BrowserError> {
        self.group_names.borrow_mut().push((group, title.english()));
        Ok(())
    }

    async fn ungroup_tabs(&self, tabs: &[TabId]) -> Result<(), BrowserError> {
        for tab in self.tabs.borrow_mut().iter_mut().filter(|tab| tabs.contains(&tab.id)) {
            tab.group = None;
        }
        Ok(())
    }

    async fn sleep(&self, milliseconds: u32) {
        self.slept_ms.set(self.slept_ms.get() + milliseconds);
        self.resend();
    }

    /// A clock that moves 5 ms at every look, and by every sleep.
    fn now_ms(&self) -> f64 {
        self.clock_ms.set(self.clock_ms.get() + 5);
        f64::from(self.clock_ms.get() + self.slept_ms.get())
    }

    async fn screenshot(&self, _tab: TabId) -> Result<crate::browser::Screenshot, BrowserError> {
        Ok(crate::browser::Screenshot {
            image: crate::llm::Image { media_type: "image/jpeg".into(), base64: "AAAA".into() },
            thumbnail: Some("data:image/jpeg;base64,BBBB".into()),
        })
    }

    async fn input(&self, _tab: TabId, commands: &[InputCommand]) -> Result<OpOutcome, BrowserError> {
        self.input_commands.borrow_mut().extend(commands.iter().cloned());
        // The fake page has one trusted-input listener: a press over the add button (x 0..100, y 20..30).
        let pressed_add = commands.iter().any(|c| {
            c.params["type"] == "mousePressed" && c.params["y"].as_f64().is_some_and(|y| (20.0..30.0).contains(&y))
        });
        if pressed_add {
            self.cart.set(self.cart.get() + 1);
        }
        Ok(OpOutcome { ok: true, ..OpOutcome::default() })
    }

    async fn restrict(&self, tabs: &[TabId], rules: &[serde_json::Value]) -> Result<(), BrowserError> {
        self.restricted.borrow_mut().push((tabs.to_vec(), rules.to_vec()));
        Ok(())
    }

    async fn hold_writes(&self, _tab: TabId, hold: Option<&WriteHold>) -> Result<Vec<HeldWrite>, BrowserError> {
        if hold.is_some() && self.hold_fails.get() {
            return Err(BrowserError::Script("the session rules could not be written".into()));
        }
        // As the extension's host: asked again while holding, what was held so far.
        let held = self.held.take();
        self.holding.replace(hold.cloned());
        Ok(held)
    }

    async fn finish(&self, _tabs: &[TabId]) {
        while self.resend() {}
        self.highlights.borrow_mut().push(Vec::new());
        self.finished.set(true);
    }

    async fn read_file(&self, handle: &str) -> Result<Vec<u8>, BrowserError> {
        let gone = || BrowserError::Script(format!("no file {handle}"));
        self.held_files.borrow().get(handle).cloned().ok_or_else(gone)
    }

    async fn downloads(&self, _tabs: &[TabId], _since_ms: f64, max_bytes: u64) -> Result<Vec<Download>, BrowserError> {
        self.download_bounds.borrow_mut().push(max_bytes);
        Ok(std::mem::take(&mut *self.pending_downloads.borrow_mut()))
    }

    async fn shown_file(&self, _tab: TabId, _max_bytes: u64) -> Result<Vec<u8>, BrowserError> {
        self.shown_pdf.borrow().clone().ok_or_else(|| BrowserError::Script("the tab shows no file".into()))
    }
}

/// A user who answers every approval request the same way, and the ids asked.
pub struct FakeUser {
    pub approves: bool,
    pub asked: RefCell<Vec<u32>>,
    /// Decisions on reviewed steps, in order (then Run).
    pub reviews: RefCell<VecDeque<Review>>,
}

impl UserGate for FakeUser {
    async fn approve(&self, id: u32) -> bool {
        self.asked.borrow_mut().push(id);
        self.approves
    }

    async fn review(&self, id: u32) -> Review {
        self.asked.borrow_mut().push(id);
        self.reviews.borrow_mut().pop_front().unwrap_or(Review::Run)
    }

    /// No one takes over: the tests of hand-overs use a user of their own.
    async fn hand_over(&self, id: u32) -> crate::agent::HandOver {
        self.asked.borrow_mut().push(id);
        crate::agent::HandOver::Unanswered
    }
}

/// Replies from a queue and records every request.
pub struct ScriptedModel {
    replies: RefCell<VecDeque<Result<String, LlmError>>>,
    pub requests: RefCell<Vec<ChatRequest>>,
    /// Whether the model is held to each request's schema, as a provider with structured output
    /// holds it; every reply is then checked against the schema before it is sent.
    held_to_schema: bool,
}

impl ScriptedModel {
    /// A model held to the schema, like every provider the agent asks for structured output.
    pub fn new(replies: Vec<Result<String, LlmError>>) -> Self {
        Self { replies: RefCell::new(replies.into()), requests: RefCell::new(Vec::new()), held_to_schema: true }
    }

    /// A model nothing holds to the schema (a server in JSON or prompt-only mode): its replies
    /// may be anything, for the tests of reading malformed output.
    pub fn unconstrained(replies: Vec<Result<String, LlmError>>) -> Self {
        Self { held_to_schema: false, ..Self::new(replies) }
    }

    /// The last state message sent in request `n`.
    pub fn state(&self, n: usize) -> String {
        self.requests.borrow()[n].messages.last().unwrap().content.clone()
    }
}

impl ChatModel for ScriptedModel {
    async fn complete(&self, request: &ChatRequest) -> Result<ChatReply, LlmError> {
        self.requests.borrow_mut().push(request.clone());
        let reply = self.replies.borrow_mut().pop_front().expect("the script ran out of replies");
        if let (Ok(content), true) = (&reply, self.held_to_schema) {
            crate::llm::testing::assert_obeys_schema(&request.schema, content);
        }
        reply.map(|content| ChatReply {
            content,
            usage: Some(crate::llm::Usage { input_tokens: 100, output_tokens: 20 }),
        })
    }
}

/// A navigator reply with these actions (JSON array text).
pub fn reply(actions: &str) -> Result<String, LlmError> {
    Ok(format!(
        r#"{{"current_state":{{"evaluation_previous_goal":"ok","memory":"m","next_goal":"g"}},"action":{actions}}}"#
    ))
}

/// The critic's verdict on an act that changes something (`agent/critic.rs`).
pub fn critic(asked: bool) -> Result<String, LlmError> {
    Ok(format!(
        r#"{{"reason":"the user's words {} it","asked":{asked}}}"#,
        if asked { "ask for" } else { "do not ask for" }
    ))
}

pub fn config(max_steps: u32) -> TaskConfig {
    TaskConfig {
        task: "add the blue mug and tell me the total".into(),
        tab: 1,
        max_steps,
        map: MapOptions::default(),
        highlights: true,
        search_engine: SearchEngine::DuckDuckGo,
        limits: LiveLimits::new(Limits::default()),
        price: None,
        validator_rejections: None,
        planning_interval: None,
        vision: false,
        memory_interval: None,
        budgets: Budgets::single(Budget { counter: TokenCounter::estimate(), max_input_tokens: 1_000_000 }),
        style: RequestStyle::Full,
        conversation: Default::default(),
        resume: None,
        on_checkpoint: None,
        on_end_tab: None,
        replay: None,
        answer_language: String::new(),
        files: Default::default(),
        output_schema: None,
        film: false,
    }
}

pub fn run(shop: &FakeShop, model: &ScriptedModel, max_steps: u32) -> (AgentEvent, Vec<AgentEvent>) {
    run_with(&config(max_steps), shop, model)
}

pub fn run_with(config: &TaskConfig, shop: &FakeShop, model: &ScriptedModel) -> (AgentEvent, Vec<AgentEvent>) {
    run_as(config, shop, model, &FakeUser { approves: false, asked: RefCell::default(), reviews: RefCell::default() })
}

pub fn run_as(
    config: &TaskConfig,
    shop: &FakeShop,
    model: &ScriptedModel,
    user: &FakeUser,
) -> (AgentEvent, Vec<AgentEvent>) {
    let events = RefCell::new(Vec::new());
    let emit = |event: AgentEvent| events.borrow_mut().push(event);
    let end = block_on(run_task(config, shop, Models::single(model), user, &CancelToken::new(), &emit));
    (end, events.into_inner())
}

/// The outcome sentences of the actions of every step, in order.
pub fn outcomes(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Step { actions, .. } => Some(actions.iter().map(|a| a.outcome.clone()).collect::<Vec<_>>()),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Whether `declarativeNetRequest` session `rules` block a page at `url`, as Chrome decides: the
/// matching rule of the highest priority wins, an allow over a block of the same priority. Knows
/// the conditions the core writes: `requestDomains` (a host and its subdomains), `urlFilter`
/// anchored with `||` (a host, its subdomains, then the rest) or `|` (a prefix), `resourceTypes`.
fn blocks_page(rules: &[serde_json::Value], url: &str) -> bool {
    let Ok(parsed) = url::Url::parse(url) else { return false };
    let host = parsed.host_str().unwrap_or_default();
    let on_host = |domain: &str| host == domain || host.ends_with(&format!(".{domain}"));
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let matches = |rule: &serde_json::Value| {
        let condition = &rule["condition"];
        let types = condition["resourceTypes"].as_array();
        let pages = types.is_none_or(|types| types.iter().any(|t| t == "main_frame"));
        // Without resource types a rule covers every type but pages.
        let pages = pages && types.is_some();
        let domains = condition["requestDomains"]
            .as_array()
            .is_none_or(|domains| domains.iter().filter_map(|d| d.as_str()).any(on_host));
        let filter = match condition["urlFilter"].as_str() {
            None => true,
            Some(filter) => match filter.strip_prefix("||") {
                Some(rest) => {
                    let labels: Vec<usize> =
                        std::iter::once(0).chain(after_scheme.match_indices('.').map(|(i, _)| i + 1)).collect();
                    labels
                        .into_iter()
                        .any(|at| after_scheme[at..].starts_with(rest) && !after_scheme[..at].contains('/'))
                }
                None => filter.strip_prefix('|').is_some_and(|prefix| url.starts_with(prefix)),
            },
        };
        pages && domains && filter
    };
    let winner = rules.iter().filter(|rule| matches(rule)).max_by_key(|rule| {
        let priority = rule["priority"].as_u64().unwrap_or(1);
        (priority, rule["action"]["type"] == "allow")
    });
    winner.is_some_and(|rule| rule["action"]["type"] == "block")
}
