// AI apps (MCP) in the side panel: the question whether an app that connects may use the agent
// (Allow once, Always, Deny), and the button that shares the panel's tab with apps.

import { t } from '../shared/i18n.js';
import { ask, onChanged } from '../shared/worker.js';
import { isShared, shareTabs, unshareTab } from '../shared/shared-tabs.js';

const pairingBox = document.getElementById('app-pairing');
const pairingText = document.getElementById('app-pairing-text');
const shareBar = document.getElementById('app-share');
const shareStatus = document.getElementById('app-share-status');
const shareButton = document.getElementById('app-share-button');

let send = () => {};
let targetTabId = async () => null;

/** An `app_pairing` event: the question for `client`, or (client null) that it is over. */
export function showPairing(event) {
  pairingBox.hidden = !event?.client;
  if (event?.client) {
    pairingText.textContent = t('panel_app_pairing', event.client);
    pairingBox.querySelector('button')?.focus();
  }
}

for (const [id, decision] of [['app-allow-once', 'once'], ['app-allow-always', 'always'], ['app-deny', 'deny']]) {
  document.getElementById(id).addEventListener('click', () => {
    pairingBox.hidden = true;
    send({ type: 'pair_app', decision });
  });
}

/** Shows whether the panel's tab is shared, when the user lets apps use the agent. */
async function refreshShare() {
  const on = Boolean((await ask({ type: 'get_settings' }).catch(() => ({}))).settings?.mcp);
  const tabId = on ? await targetTabId() : null;
  shareBar.hidden = !tabId;
  if (!tabId) return;
  const shared = await isShared(tabId);
  shareBar.classList.toggle('shared', shared);
  shareStatus.textContent = t(shared ? 'panel_tab_shared' : 'panel_tab_not_shared');
  shareButton.textContent = t(shared ? 'panel_unshare_tab' : 'panel_share_tab');
  shareButton.dataset.shared = String(shared);
}

shareButton.addEventListener('click', async () => {
  const tabId = await targetTabId();
  if (!tabId) return;
  try {
    if (shareButton.dataset.shared === 'true') await unshareTab(tabId);
    else await shareTabs([tabId]);
  } catch (err) {
    shareStatus.textContent = t('panel_share_failed', err?.message ?? String(err));
    return;
  }
  await refreshShare();
});

/** Wires the panel's AI-app parts to its port (`sendMessage`) and its tab (`tabOf`). */
export function setupApps({ sendMessage, tabOf }) {
  send = sendMessage;
  targetTabId = tabOf;
  refreshShare();
  // The user drags tabs in and out of the group, switches tabs, or turns MCP on or off.
  chrome.tabs.onUpdated.addListener((_id, change) => { if ('groupId' in change) refreshShare(); });
  chrome.tabs.onActivated.addListener(() => refreshShare());
  chrome.tabGroups.onUpdated.addListener(() => refreshShare());
  onChanged((what) => { if (what === 'settings') refreshShare(); });
}
