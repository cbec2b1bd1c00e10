//! The browser as an AI app sees it: only the tabs the user shared with apps, the tabs of the tab
//! group "Shared with AI apps" (the host keeps it). Tabs an app's task or session opens join the
//! group; every other tab is invisible (never listed) and unusable (every operation on it is
//! refused, saying how to share it). The user's own tasks use the browser as it is; this wraps it
//! for what apps start.

use super::host::Host;
use crate::browser::trusted_input::InputCommand;
use crate::browser::PageOp;
use crate::browser::{
    Browser, BrowserError, GroupId, Highlight, HistoryStep, Navigation, OpOutcome, Screenshot, TabId, TabInfo,
};
use crate::browser::{Download, HeldWrite, WriteHold};
use crate::dom_map::{ElementRef, RawFrame};
use crate::i18n::Text;
use crate::mcp;

/// The browser for what an app started: the shared tabs only.
pub struct SharedTabs<'a, H> {
    pub host: &'a H,
}

impl<H: Host> SharedTabs<'_, H> {
    /// Refuses an operation on a tab that is not shared (any more).
    async fn check(&self, tab: TabId) -> Result<(), BrowserError> {
        match self.host.shared_tabs().await.contains(&tab) {
            true => Ok(()),
            false => Err(BrowserError::Script(mcp::not_shared("This tab"))),
        }
    }
}

impl<H: Host> Browser for SharedTabs<'_, H> {
    async fn observe(&self, tab: TabId) -> Result<Vec<RawFrame>, BrowserError> {
        self.check(tab).await?;
        self.host.browser().observe(tab).await
    }

    async fn element_unchanged(&self, tab: TabId, element: &ElementRef) -> Result<bool, BrowserError> {
        self.check(tab).await?;
        self.host.browser().element_unchanged(tab, element).await
    }

    async fn frame_urls(&self, tab: TabId) -> Result<Vec<String>, BrowserError> {
        self.check(tab).await?;
        self.host.browser().frame_urls(tab).await
    }

    async fn navigate(&self, tab: TabId, url: &str) -> Result<Navigation, BrowserError> {
        self.check(tab).await?;
        self.host.browser().navigate(tab, url).await
    }

    async fn history(&self, tab: TabId, step: HistoryStep) -> Result<Navigation, BrowserError> {
        self.check(tab).await?;
        self.host.browser().history(tab, step).await
    }

    async fn perform(&self, tab: TabId, op: &PageOp) -> Result<OpOutcome, BrowserError> {
        self.check(tab).await?;
        self.host.browser().perform(tab, op).await
    }

    async fn highlight(&self, tab: TabId, marks: &[Highlight]) -> Result<(), BrowserError> {
        // Clearing the boxes is always allowed (a tab the user stopped sharing keeps none).
        if !marks.is_empty() {
            self.check(tab).await?;
        }
        self.host.browser().highlight(tab, marks).await
    }

    /// The shared tabs of the tab's window: the others are not the app's to see.
    async fn tabs(&self, tab: TabId) -> Result<Vec<TabInfo>, BrowserError> {
        let shared = self.host.shared_tabs().await;
        let tabs = self.host.browser().tabs(tab).await?;
        Ok(tabs.into_iter().filter(|info| shared.contains(&info.id)).collect())
    }

    /// A tab the app's task opens is shared: it joins the group.
    async fn open_tab(&self, tab: TabId, url: &str) -> Result<(TabId, Navigation), BrowserError> {
        self.check(tab).await?;
        let (opened, navigation) = self.host.browser().open_tab(tab, url).await?;
        self.host.share_tabs(&[opened]).await?;
        Ok((opened, navigation))
    }

    async fn switch_tab(&self, tab: TabId) -> Result<(), BrowserError> {
        self.check(tab).await?;
        self.host.browser().switch_tab(tab).await
    }

    /// The task's group is the shared group: the tabs stay shared.
    async fn group_tabs(&self, tabs: &[TabId], _group: Option<GroupId>) -> Result<GroupId, BrowserError> {
        self.host.share_tabs(tabs).await
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
        self.host.browser().close_tab(tab).await
    }

    async fn sleep(&self, milliseconds: u32) {
        self.host.browser().sleep(milliseconds).await;
    }

    fn now_ms(&self) -> f64 {
        self.host.browser().now_ms()
    }

    async fn screenshot(&self, tab: TabId) -> Result<Screenshot, BrowserError> {
        self.check(tab).await?;
        self.host.browser().screenshot(tab).await
    }

    async fn input(&self, tab: TabId, commands: &[InputCommand]) -> Result<OpOutcome, BrowserError> {
        self.check(tab).await?;
        self.host.browser().input(tab, commands).await
    }

    async fn restrict(&self, tabs: &[TabId], rules: &[serde_json::Value]) -> Result<(), BrowserError> {
        self.host.browser().restrict(tabs, rules).await
    }

    async fn hold_writes(&self, tab: TabId, hold: Option<&WriteHold>) -> Result<Vec<HeldWrite>, BrowserError> {
        self.check(tab).await?;
        self.host.browser().hold_writes(tab, hold).await
    }

    async fn finish(&self, tabs: &[TabId]) {
        self.host.browser().finish(tabs).await;
    }

    async fn read_file(&self, handle: &str) -> Result<Vec<u8>, BrowserError> {
        self.host.browser().read_file(handle).await
    }

    async fn downloads(&self, tabs: &[TabId], since_ms: f64, max_bytes: u64) -> Result<Vec<Download>, BrowserError> {
        self.host.browser().downloads(tabs, since_ms, max_bytes).await
    }

    async fn shown_file(&self, tab: TabId, max_bytes: u64) -> Result<Vec<u8>, BrowserError> {
        self.host.browser().shown_file(tab, max_bytes).await
    }
}
