//! The tabs a task works in: the tab it starts in, the tab group it keeps them in, and letting
//! them go when it ends.

use super::Navigator;
use crate::agent::task_config::UserGate;
use crate::browser::{Browser, TabId, TabInfo};
use crate::i18n::Text;
use crate::llm::ChatModel;
use crate::tabs::task_tabs;
use crate::text;

/// How much of the task the title of its tab group shows.
const GROUP_TITLE_TASK_CHARS: usize = 24;

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Makes `tab` the one the agent works in, extending the site policy's browser rules to it.
    /// The tab joins the task's tab group.
    pub(in crate::agent) async fn adopt_tab(&self, tab: TabId) -> Result<(), Text> {
        self.tab.set(tab);
        self.focus_frame.set(0);
        self.focus_moved.set(false);
        self.focus_frame_url.replace(None);
        self.join_group(tab).await;
        if self.task_tabs.borrow().contains(&tab) {
            return Ok(());
        }
        self.task_tabs.borrow_mut().push(tab);
        self.sync_tab_rules().await
    }

    /// Gives the browser the rules of the task's tabs as they now stand: the site lists', and the
    /// firewall's (pages load only from the sites the task may reach).
    pub(in crate::agent) async fn sync_tab_rules(&self) -> Result<(), Text> {
        let tabs = self.task_tabs.borrow().clone();
        let enforced = self.config.limits.enforce_in(&tabs, Some(self.firewall()), self.browser).await;
        enforced.map_err(|err| text!("core_task_policy_not_enforced", err.text()))
    }

    /// Puts `tab` into the task's tab group, making the group (named after the task) with the
    /// first tab. A tab the browser cannot group (in a popup window, say) stays the task's all
    /// the same; a tab taken from a group of the user's goes back there when the task ends.
    pub(in crate::agent) async fn join_group(&self, tab: TabId) {
        let tabs = self.browser.tabs(tab).await.unwrap_or_default();
        let Some(info) = tabs.iter().find(|info| info.id == tab) else { return };
        let mut group = self.group.borrow().clone();
        if info.group.is_some() && info.group == group.id {
            return;
        }
        let joined = match group.id {
            // The user may have emptied the group, which closes it: the tab starts a new one.
            Some(id) => match self.browser.group_tabs(&[tab], Some(id)).await {
                Ok(id) => Ok(id),
                Err(_) => self.browser.group_tabs(&[tab], None).await,
            },
            None => self.browser.group_tabs(&[tab], None).await,
        };
        let Ok(id) = joined else { return };
        if group.id != Some(id) {
            let task = self.config.task.split_whitespace().collect::<Vec<_>>().join(" ");
            let title = crate::text::truncate_chars(&task, GROUP_TITLE_TASK_CHARS);
            let _ = self.browser.name_group(id, &text!("core_tab_group_title", title)).await;
            // Cosmetic.
        }
        if let Some(former) = info.group.filter(|&former| Some(former) != group.id) {
            group.former.push((tab, former));
        }
        group.id = Some(id);
        *self.group.borrow_mut() = group;
    }

    /// The task is over: its group is dissolved, its tabs left open where they are, and each tab
    /// it took from a group of the user's put back there (if that group is still open).
    pub(in crate::agent) async fn release_group(&self) {
        let group = self.group.take();
        let Some(id) = group.id else { return };
        let mut tabs = Vec::new();
        for tab in self.worked_tabs() {
            if let Ok(window) = self.browser.tabs(tab).await {
                tabs = window;
                break;
            }
        }
        let members: Vec<TabId> = tabs.iter().filter(|tab| tab.group == Some(id)).map(|tab| tab.id).collect();
        if !members.is_empty() {
            let _ = self.browser.ungroup_tabs(&members).await;
        }
        for (tab, former) in group.former {
            if tabs.iter().any(|open| open.id == tab) {
                let _ = self.browser.group_tabs(&[tab], Some(former)).await;
            }
        }
    }

    /// The task's tabs, among those of the agent's window (see [`task_tabs`]), and the window's.
    pub(in crate::agent) async fn own_tabs(&self) -> (Vec<TabInfo>, Vec<TabInfo>) {
        let window = self.browser.tabs(self.tab.get()).await.unwrap_or_default();
        let own = task_tabs(&window, self.group.borrow().id, &self.task_tabs.borrow(), self.tab.get());
        (own, window)
    }

    /// The tabs the task worked in, the current one included.
    pub(in crate::agent) fn worked_tabs(&self) -> Vec<TabId> {
        let mut tabs = self.task_tabs.borrow().clone();
        if !tabs.contains(&self.tab.get()) {
            tabs.push(self.tab.get());
        }
        tabs
    }
}
