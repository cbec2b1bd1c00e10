// The settings for AI apps (MCP): Chrome's nativeMessaging permission, asked for when the user
// turns MCP on (a user gesture) and given back when it is turned off; and the apps the user
// allowed "Always" in the side panel, each revocable (the worker keeps them: background/apps-host.js
// remembers them, crate/core/src/saved.rs lists and revokes them).

import { t, localize, said } from '../shared/i18n.js';
import { element } from '../shared/dom.js';
import { ask, onChanged } from '../shared/worker.js';
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

/** Lists `apps` (`{ name, since }`), each with its Revoke button. */
function showApps(apps) {
  list.replaceChildren(...apps.map((app) => {
    const since = new Date(app.since).toLocaleDateString(undefined, { dateStyle: 'medium' });
    const revoke = element('button', 'danger', t('options_mcp_revoke'));
    revoke.type = 'button';
    revoke.setAttribute('aria-label', `${t('options_mcp_revoke')}: ${app.name}`);
    revoke.addEventListener('click', async () => {
      try {
        const answer = await ask({ type: 'revoke_mcp_app', name: app.name });
        showApps(answer.apps);
        status.textContent = answer.problem ? said(answer.problem.message, answer.problem.localizable) : t('options_mcp_revoked', app.name);
      } catch (err) {
        status.textContent = err.message;
      }
    });
    const item = element('li', 'mcp-app', t('options_mcp_app_since', app.name, since));
    item.append(' ', revoke);
    return item;
  }));
  if (apps.length === 0) list.append(element('li', 'hint', t('options_mcp_apps_none')));
}

async function listApps() {
  const { apps, problem } = await ask({ type: 'list_mcp_apps' });
  showApps(apps);
  if (problem) status.textContent = said(problem.message, problem.localizable);
}

onChanged((what) => { if (what === 'mcpApps') listApps(); });
listApps();

// Turned on before the permission was optional (or the permission taken back in Chrome): say so.
ask({ type: 'get_settings' }).then(async ({ settings }) => {
  if (settings?.mcp && !(await chrome.permissions.contains({ permissions: ['nativeMessaging'] }).catch(() => false))) {
    status.textContent = t('options_mcp_denied');
  }
}).catch(() => {});
