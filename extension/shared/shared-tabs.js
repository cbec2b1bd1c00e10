// The tabs the user shares with AI apps (MCP): the tabs of the tab group "Shared with AI apps"
// (in the user's language), one per window. The panel's button puts a tab there; the user may
// also drag tabs in and out. Apps see and act in these tabs only (crate/wasm/src/shared_tabs.rs).
// Used by the side panel and the service worker; kept apart from the groups tasks make for
// themselves (background/browser-host.js).

import { t } from './i18n.js';

/** The shared group's title: how the user and this module know it. */
export function sharedTitle() {
  return t('shared_tabs_group');
}

/** The shared groups, one per window at most that has one. */
async function sharedGroups() {
  const title = sharedTitle();
  const groups = await chrome.tabGroups.query({});
  return groups.filter((group) => group.title === title);
}

/** The ids of the tabs shared with apps, the active tab of the focused window first. */
export async function sharedTabIds() {
  const groups = new Set((await sharedGroups()).map((group) => group.id));
  if (groups.size === 0) return [];
  const tabs = (await chrome.tabs.query({})).filter((tab) => groups.has(tab.groupId));
  const [active] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  const first = tabs.filter((tab) => tab.id === active?.id);
  return [...first, ...tabs.filter((tab) => tab.id !== active?.id)].map((tab) => tab.id);
}

/** Whether the tab is shared with apps. */
export async function isShared(tabId) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab || tab.groupId === chrome.tabGroups.TAB_GROUP_ID_NONE) return false;
  const group = await chrome.tabGroups.get(tab.groupId).catch(() => null);
  return group?.title === sharedTitle();
}

/** Puts the tabs into their window's shared group, making and naming it if there is none; the
 * group's id. (All the tabs are in one window: those of one task or the one the user shares.) */
export async function shareTabs(tabIds) {
  tabIds = Array.from(tabIds);
  const [first] = tabIds;
  const tab = await chrome.tabs.get(first);
  const existing = (await sharedGroups()).find((group) => group.windowId === tab.windowId);
  if (existing) return chrome.tabs.group({ tabIds, groupId: existing.id });
  const groupId = await chrome.tabs.group({ tabIds, createProperties: { windowId: tab.windowId } });
  await chrome.tabGroups.update(groupId, { title: sharedTitle(), color: 'purple', collapsed: false });
  return groupId;
}

/** Takes the tab out of the shared group: apps no longer see it. */
export async function unshareTab(tabId) {
  if (await isShared(tabId)) await chrome.tabs.ungroup(tabId);
}
