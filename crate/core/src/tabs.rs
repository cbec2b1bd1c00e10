//! How the model names tabs: short aliases (`t1`, `t2`, ...) instead of the browser's tab ids,
//! and which tabs it is shown at all.
//!
//! A task gives each tab an alias the first time it sees it (its own tab first, then the others
//! in window order, then tabs as they are opened) and keeps it for the whole task; the alias of a
//! closed tab is never given to another. The model reads and writes only aliases, so it never
//! copies a nine-digit id, and an id it makes up cannot reach a tab it was not shown.
//!
//! The model is shown only the task's own tabs ([`task_tabs`]): the tab it started in, the tabs it
//! opened, and tabs the user dragged into the task's tab group. The user's other tabs are private:
//! they get no alias, and their titles and addresses never reach the model. A tab that left the
//! task (the user dragged it out of the group) keeps its alias, but reaching it asks the user.
//!
//! Extension pages (`chrome-extension://`, this extension's panel opened as a tab among them)
//! and DevTools are never shown, never named and never switched to: they are not web pages the
//! task is about, and they cannot be operated anyway.

use crate::browser::{GroupId, TabId, TabInfo};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A tab as the model names it: `t1` is `TabAlias(1)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TabAlias(pub u32);

impl TabAlias {
    /// Reads what the model wrote: `t2` (any case, spaces around), or a bare `2` meaning `t2`. A
    /// bare number is only ever an alias, never a browser tab id.
    pub fn parse(text: &str) -> Option<TabAlias> {
        let text = text.trim();
        let digits = text.strip_prefix(['t', 'T']).unwrap_or(text);
        // `parse` alone would take `+2`.
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok().filter(|&n| n > 0).map(TabAlias)
    }
}

impl fmt::Display for TabAlias {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}", self.0)
    }
}

/// Whether a tab showing `url` is kept from the model: extension pages and DevTools. Browser
/// pages (`chrome://`) stay listed; the model is told when one cannot be read.
pub fn hidden_from_model(url: &str) -> bool {
    let scheme = url.split_once(':').map_or("", |(scheme, _)| scheme).to_ascii_lowercase();
    matches!(scheme.as_str(), "chrome-extension" | "devtools")
}

/// The task's tab group: the task's tabs are kept together in it, and a tab the user drags in
/// joins the task. Saved with the task's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskGroup {
    /// The group, once made (none where the browser could not group the tabs).
    pub id: Option<GroupId>,
    /// Tabs the task took out of a group of the user's (the tab it started in, say), with that
    /// group: they go back to it when the task ends.
    pub former: Vec<(TabId, GroupId)>,
}

/// The task's tabs among the window's `tabs`, in window order: the one it works in (`current`),
/// and those in its group; while it has no group (the browser could not make one), those it
/// worked in (`own`). Nothing else of the window is the task's.
pub fn task_tabs(tabs: &[TabInfo], group: Option<GroupId>, own: &[TabId], current: TabId) -> Vec<TabInfo> {
    tabs.iter()
        .filter(|tab| match group {
            _ if tab.id == current => true,
            Some(group) => tab.group == Some(group),
            None => own.contains(&tab.id),
        })
        .cloned()
        .collect()
}

/// A tab as the state message lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTab {
    pub alias: TabAlias,
    pub title: String,
    pub url: String,
    pub current: bool,
}

/// The task's aliases: alias `tN` is the N-th tab the task saw. Saved with the task's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TabAliases {
    /// The tab of each alias, in order: `ids[0]` is `t1`.
    ids: Vec<TabId>,
}

impl TabAliases {
    /// The tab's alias, given now if the tab has none yet.
    pub fn alias(&mut self, tab: TabId) -> TabAlias {
        let position = match self.ids.iter().position(|&id| id == tab) {
            Some(position) => position,
            None => {
                self.ids.push(tab);
                self.ids.len() - 1
            }
        };
        TabAlias(position as u32 + 1)
    }

    /// The tabs the model is shown, with their aliases (given now to tabs seen for the first
    /// time), in window order; `current` is the tab the agent works in.
    pub fn list(&mut self, tabs: &[TabInfo], current: TabId) -> Vec<ListedTab> {
        // The task's own tab is named first, whatever its place in the window.
        if tabs.iter().any(|tab| tab.id == current && !hidden_from_model(&tab.url)) {
            self.alias(current);
        }
        tabs.iter()
            .filter(|tab| !hidden_from_model(&tab.url))
            .map(|tab| ListedTab {
                alias: self.alias(tab.id),
                title: tab.title.clone(),
                url: tab.url.clone(),
                current: tab.id == current,
            })
            .collect()
    }

    /// The open tab the model means by `alias`, among `tabs` (the window's tabs now), or what to
    /// tell the model when there is none (the names of the open tabs it knows, nothing more).
    pub fn resolve<'t>(&self, alias: TabAlias, tabs: &'t [TabInfo]) -> Result<&'t TabInfo, String> {
        let found = (alias.0 as usize)
            .checked_sub(1)
            .and_then(|i| self.ids.get(i))
            .and_then(|&id| tabs.iter().find(|tab| tab.id == id && !hidden_from_model(&tab.url)));
        found.ok_or_else(|| {
            let open: Vec<String> = tabs
                .iter()
                .filter(|tab| !hidden_from_model(&tab.url))
                .filter_map(|tab| self.ids.iter().position(|&id| id == tab.id))
                .map(|position| TabAlias(position as u32 + 1).to_string())
                .collect();
            match open.is_empty() {
                true => format!("There is no open tab {alias}."),
                false => format!("There is no open tab {alias}; the open tabs are {}.", open.join(", ")),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(id: TabId, url: &str) -> TabInfo {
        TabInfo { id, url: url.into(), title: format!("Tab {id}"), group: None }
    }

    fn grouped(id: TabId, group: GroupId) -> TabInfo {
        TabInfo { group: Some(group), ..tab(id, &format!("https://{id}.test/")) }
    }

    #[test]
    fn the_task_s_tabs_are_its_group_and_the_tab_it_works_in_never_the_user_s_others() {
        let ids = |tabs: Vec<TabInfo>| tabs.iter().map(|tab| tab.id).collect::<Vec<_>>();
        // The user's bank (1), a tab of the user's own group (2), the task's group 7 (3, 5).
        let window =
            [tab(1, "https://bank.test/"), grouped(2, 9), grouped(3, 7), tab(4, "https://a.test/"), grouped(5, 7)];
        assert_eq!(ids(task_tabs(&window, Some(7), &[3, 1], 3)), [3, 5], "a tab dragged out of the group (1) left");
        assert_eq!(ids(task_tabs(&window, Some(7), &[3], 4)), [3, 4, 5], "the tab the agent works in is the task's");
        // Without a group (the browser could not make one), the tabs the task worked in.
        assert_eq!(ids(task_tabs(&window, None, &[4, 1], 4)), [1, 4]);
        assert_eq!(ids(task_tabs(&window, Some(8), &[], 4)), [4]);
    }

    fn aliases(listed: &[ListedTab]) -> Vec<String> {
        listed.iter().map(|tab| tab.alias.to_string()).collect()
    }

    const PANEL: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/extension/panel/panel.html?tab=7";

    #[test]
    fn aliases_are_read_as_the_model_writes_them() {
        assert_eq!(TabAlias::parse("t2"), Some(TabAlias(2)));
        assert_eq!(TabAlias::parse(" T12 "), Some(TabAlias(12)));
        assert_eq!(TabAlias::parse("3"), Some(TabAlias(3)));
        for wrong in ["", "t", "t0", "0", "tab", "t-1", "+1", "t2x", "x2", "99999999999"] {
            assert_eq!(TabAlias::parse(wrong), None, "{wrong}");
        }
        assert_eq!(TabAlias(4).to_string(), "t4");
    }

    #[test]
    fn the_task_s_tab_is_t1_and_the_others_follow_in_window_order() {
        let mut map = TabAliases::default();
        let tabs = [tab(500, "https://a.test/"), tab(900, "https://b.test/"), tab(700, "https://c.test/")];
        let listed = map.list(&tabs, 900);
        assert_eq!(aliases(&listed), ["t2", "t1", "t3"]);
        assert!(listed[1].current && !listed[0].current && !listed[2].current);
        assert_eq!(listed[0].url, "https://a.test/");
    }

    #[test]
    fn aliases_stay_and_a_closed_tab_s_alias_is_never_reused() {
        let mut map = TabAliases::default();
        map.list(&[tab(10, "https://a.test/"), tab(20, "https://b.test/")], 10);
        // t2 closes, a new tab opens: it is t3, and t1 keeps its name though it moved.
        let now = [tab(30, "https://c.test/"), tab(10, "https://a.test/")];
        assert_eq!(aliases(&map.list(&now, 30)), ["t3", "t1"]);
        assert_eq!(map.alias(10), TabAlias(1));
        assert_eq!(map.resolve(TabAlias(3), &now).unwrap().id, 30);
        let gone = map.resolve(TabAlias(2), &now).unwrap_err();
        assert_eq!(gone, "There is no open tab t2; the open tabs are t3, t1.");
        let unknown = map.resolve(TabAlias(123_456_789), &now).unwrap_err();
        assert!(unknown.starts_with("There is no open tab t123456789;"), "{unknown}");
    }

    #[test]
    fn extension_pages_and_devtools_are_never_listed_named_or_resolved() {
        let mut map = TabAliases::default();
        let tabs = [
            tab(1, "https://shop.test/"),
            tab(2, PANEL),
            tab(3, "devtools://devtools/bundled/inspector.html"),
            tab(4, "chrome-extension://otherextensionid/options.html"),
            tab(5, "chrome://settings/"),
        ];
        let listed = map.list(&tabs, 1);
        assert_eq!(aliases(&listed), ["t1", "t2"]);
        assert_eq!(listed[1].url, "chrome://settings/", "browser pages stay listed");
        // No alias reaches a hidden tab, even one that had an alias before it became hidden.
        assert_eq!(map.resolve(TabAlias(3), &tabs).unwrap_err(), "There is no open tab t3; the open tabs are t1, t2.");
        let mut map = TabAliases::default();
        map.list(&[tab(1, "https://shop.test/"), tab(2, "https://b.test/")], 1);
        let now = [tab(1, "https://shop.test/"), tab(2, PANEL)];
        assert!(map.resolve(TabAlias(2), &now).is_err());
        assert_eq!(aliases(&map.list(&now, 1)), ["t1"]);
        // The task's own tab, when it is an extension page, is not named either.
        assert_eq!(aliases(&TabAliases::default().list(&[tab(2, PANEL), tab(1, "https://a.test/")], 2)), ["t1"]);
        assert!(hidden_from_model("Chrome-Extension://x/y") && !hidden_from_model("https://chrome-extension.test/"));
    }

    #[test]
    fn the_map_survives_saving() {
        let mut map = TabAliases::default();
        map.list(&[tab(123_456_789, "https://a.test/"), tab(42, "https://b.test/")], 42);
        let text = serde_json::to_string(&map).unwrap();
        assert_eq!(text, r#"{"ids":[42,123456789]}"#);
        let mut back: TabAliases = serde_json::from_str(&text).unwrap();
        assert_eq!(back, map);
        assert_eq!(back.alias(123_456_789), TabAlias(2));
        assert_eq!(back.alias(77), TabAlias(3));
    }
}
