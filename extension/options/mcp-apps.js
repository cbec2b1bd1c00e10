// The settings for AI apps (MCP): Chrome's nativeMessaging permission, asked for when the user
// turns MCP on (a user gesture) and given back when it is turned off; and the apps the user
// allowed "Always" in the side panel, each revocable (background/apps-host.js keeps them).

import { t, localize } from '../shared/i18n.js';
import { loadSettings } from '../shared/settings-store.js';
import { element } from '../shared/dom.js';

const APPS_KEY = 'mcpApps';
const box = document.getElementById('mcp');
const list = document.getElementById('mcp-apps-list');
const status = document.getElementById('mcp-apps-status');

localize(document.getElementById('mcp-apps'));

box.addEventListener('change', async () => {
  if (box.checked) {
    const granted = await chrome.permissions.request({ permissions: ['nativeMessaging'] }).catch(() => false);
    if (!granted) {
      box.checked = false;
      status.textContent = t('options_mcp_denied');
    }
  } else {
    await chrome.permissions.remove({ permissions: ['nativeMessaging'] }).catch(() => {});
  }
});

async function remembered() {
  const { [APPS_KEY]: apps } = await chrome.storage.local.get(APPS_KEY);
  return Array.isArray(apps) ? apps : [];
}

async function showApps() {
  const apps = await remembered();
  list.replaceChildren(...apps.map((app) => {
    const since = new Date(app.since).toLocaleDateString(undefined, { dateStyle: 'medium' });
    const revoke = element('button', 'danger', t('options_mcp_revoke'));
    revoke.type = 'button';
    revoke.setAttribute('aria-label', `${t('options_mcp_revoke')}: ${app.name}`);
    revoke.addEventListener('click', async () => {
      const left = (await remembered()).filter((known) => known.name !== app.name);
      await chrome.storage.local.set({ [APPS_KEY]: left });
      status.textContent = t('options_mcp_revoked', app.name);
    });
    const item = element('li', 'mcp-app', t('options_mcp_app_since', app.name, since));
    item.append(' ', revoke);
    return item;
  }));
  if (apps.length === 0) list.append(element('li', 'hint', t('options_mcp_apps_none')));
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && changes[APPS_KEY]) showApps();
});
showApps();

// Turned on before the permission was optional (or the permission taken back in Chrome): say so.
loadSettings().then(async (settings) => {
  if (settings?.mcp && !(await chrome.permissions.contains({ permissions: ['nativeMessaging'] }).catch(() => false))) {
    status.textContent = t('options_mcp_denied');
  }
}).catch(() => {});
