//! The browser as an AI app sees it: only the tabs the user shared with apps, the tabs of the tab
//! group "Shared with AI apps" (extension/shared/shared-tabs.js keeps it). Tabs an app's task or
//! session opens join the group; every other tab is invisible (never listed) and unusable (every
//! operation on it is refused, saying how to share it). The user's own tasks use the browser as
//! it is; this wraps it for what apps start.

use crate::host::{BrowserHost, HostBrowser};
use agent_core::browser::trusted_input::InputCommand;
use agent_core::browser::PageOp;
use agent_core::browser::{
    Browser, BrowserError, GroupId, Highlight, HistoryStep, Navigation, OpOutcome, Screenshot, TabId, TabInfo,
};
use agent_core::dom_map::{ElementRef, RawFrame};
use agent_core::i18n::Text;
use agent_core::mcp;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The ids of the tabs shared with apps, the active tab of the focused window first.
    #[wasm_bindgen(method, catch, js_name = sharedTabs)]
    async fn shared_tabs(this: &BrowserHost) -> Result<JsValue, JsValue>;
    /// Puts the tabs into the shared group of their window (made and named if there is none);
    /// the group's id.
    #[wasm_bindgen(method, catch, js_name = shareTabs)]
    async fn share_tabs(this: &BrowserHost, tabs: Vec<TabId>) -> Result<JsValue, JsValue>;
    /// Whether the user allowed the app named `client` "Always", and `token` is the one it was given.
    #[wasm_bindgen(method, catch, js_name = appRemembered)]
    async fn app_remembered(this: &BrowserHost, client: &str, token: &str) -> Result<JsValue, JsValue>;
    /// Remembers the app named `client` as allowed "Always"; the new token for its server to keep.
    #[wasm_bindgen(method, catch, js_name = rememberApp)]
    async fn remember_app(this: &BrowserHost, client: &str) -> Result<JsValue, JsValue>;
}

fn js_error(err: JsValue) -> String {
    js_sys::Reflect::get(&err, &"message".into())
        .ok()
        .and_then(|message| message.as_string())
        .or_else(|| err.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// The tabs shared with apps now.
pub async fn shared(browser: &HostBrowser) -> Vec<TabId> {
    let ids = browser.js().shared_tabs().await.ok();
    ids.and_then(|ids| serde_wasm_bindgen::from_value::<Vec<TabId>>(ids).ok()).unwrap_or_default()
}

/// Shares the tabs with apps (a tab an app's task opened).
pub async fn share(browser: &HostBrowser, tabs: &[TabId]) -> Result<GroupId, BrowserError> {
    let group = browser.js().share_tabs(tabs.to_vec()).await.map_err(|err| BrowserError::Script(js_error(err)))?;
    group.as_f64().map(|id| id as GroupId).ok_or_else(|| BrowserError::Script("no tab group was made".into()))
}

/// Whether the app named `client` shows the token the user's "Always" gave it.
pub async fn remembered(browser: &HostBrowser, client: &str, token: &str) -> bool {
    browser.js().app_remembered(client, token).await.ok().and_then(|known| known.as_bool()) == Some(true)
}

/// Remembers the app as allowed "Always"; the token its server is to keep.
pub async fn remember(browser: &HostBrowser, client: &str) -> Result<String, String> {
    let token = browser.js().remember_app(client).await.map_err(js_error)?;
    token.as_string().filter(|token| !token.is_empty()).ok_or_else(|| "no token was made".into())
}

/// The browser for what an app started: the shared tabs only.
pub struct SharedTabs<'a> {
    pub browser: &'a HostBrowser,
}

impl SharedTabs<'_> {
    /// Refuses an operation on a tab that is not shared (any more).
    async fn check(&self, tab: TabId) -> Result<(), BrowserError> {
        match shared(self.browser).await.contains(&tab) {
            true => Ok(()),
            false => Err(BrowserError::Script(mcp::not_shared("This tab"))),
        }
    }
}

impl Browser for SharedTabs<'_> {
    async fn observe(&self, tab: TabId) -> Result<Vec<RawFrame>, BrowserError> {
        self.check(tab).await?;
        self.browser.observe(tab).await
    }

    async fn element_unchanged(&self, tab: TabId, element: &ElementRef) -> Result<bool, BrowserError> {
        self.check(tab).await?;
        self.browser.element_unchanged(tab, element).await
    }

    async fn navigate(&self, tab: TabId, url: &str) -> Result<Navigation, BrowserError> {
        self.check(tab).await?;
        self.browser.navigate(tab, url).await
    }

    async fn history(&self, tab: TabId, step: HistoryStep) -> Result<Navigation, BrowserError> {
        self.check(tab).await?;
        self.browser.history(tab, step).await
    }

    async fn perform(&self, tab: TabId, op: &PageOp) -> Result<OpOutcome, BrowserError> {
        self.check(tab).await?;
        self.browser.perform(tab, op).await
    }

    async fn highlight(&self, tab: TabId, marks: &[Highlight]) -> Result<(), BrowserError> {
        // Clearing the boxes is always allowed (a tab the user stopped sharing keeps none).
        if !marks.is_empty() {
            self.check(tab).await?;
        }
        self.browser.highlight(tab, marks).await
    }

    /// The shared tabs of the tab's window: the others are not the app's to see.
    async fn tabs(&self, tab: TabId) -> Result<Vec<TabInfo>, BrowserError> {
        let shared = shared(self.browser).await;
        let tabs = self.browser.tabs(tab).await?;
        Ok(tabs.into_iter().filter(|info| shared.contains(&info.id)).collect())
    }

    /// A tab the app's task opens is shared: it joins the group.
    async fn open_tab(&self, tab: TabId, url: &str) -> Result<(TabId, Navigation), BrowserError> {
        self.check(tab).await?;
        let (opened, navigation) = self.browser.open_tab(tab, url).await?;
        share(self.browser, &[opened]).await?;
        Ok((opened, navigation))
    }

    async fn switch_tab(&self, tab: TabId) -> Result<(), BrowserError> {
        self.check(tab).await?;
        self.browser.switch_tab(tab).await
    }

    /// The task's group is the shared group: the tabs stay shared.
    async fn group_tabs(&self, tabs: &[TabId], _group: Option<GroupId>) -> Result<GroupId, BrowserError> {
        share(self.browser, tabs).await
    }

    /// The shared group keeps its name.
    async fn name_group(&self, _group: GroupId, _title: &Text) -> Result<(), BrowserError> {
        Ok(())
    }

    /// A task over leaves the shared tabs shared: only the user takes a tab out of the group.
    async fn ungroup_tabs(&self, _tabs: &[TabId]) -> Result<(), BrowserError> {
        Ok(())
    }

    async fn close_tab(&self, tab: TabId) -> Result<(), BrowserError> {
        self.check(tab).await?;
        self.browser.close_tab(tab).await
    }

    async fn sleep(&self, milliseconds: u32) {
        self.browser.sleep(milliseconds).await;
    }

    fn now_ms(&self) -> f64 {
        self.browser.now_ms()
    }

    async fn screenshot(&self, tab: TabId) -> Result<Screenshot, BrowserError> {
        self.check(tab).await?;
        self.browser.screenshot(tab).await
    }

    async fn input(&self, tab: TabId, commands: &[InputCommand]) -> Result<OpOutcome, BrowserError> {
        self.check(tab).await?;
        self.browser.input(tab, commands).await
    }

    async fn restrict(&self, rules: &[serde_json::Value]) -> Result<(), BrowserError> {
        self.browser.restrict(rules).await
    }

    async fn finish(&self, tabs: &[TabId]) {
        self.browser.finish(tabs).await;
    }
}
