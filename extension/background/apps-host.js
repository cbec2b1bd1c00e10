// What the core asks of the browser for AI apps (MCP), beside the browser host: the tabs shared
// with apps (../shared/shared-tabs.js), and the apps the user allowed "Always". Those are kept in
// chrome.storage.local under `mcpApps` as [{name, tokenHash, since}]: the app's name (MCP's
// clientInfo), the SHA-256 of the token its MCP server keeps (the token itself is not stored
// here), and when it was allowed. The settings page lists them and revokes them through the
// worker (crate/core/src/saved.rs).

import { sharedTabIds, shareTabs } from '../shared/shared-tabs.js';

const APPS_KEY = 'mcpApps';

async function sha256(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export async function rememberedApps() {
  const { [APPS_KEY]: apps } = await chrome.storage.local.get(APPS_KEY);
  return Array.isArray(apps) ? apps : [];
}

export function createAppsHost() {
  return {
    sharedTabs: sharedTabIds,
    shareTabs,
    async appRemembered(name, token) {
      const app = (await rememberedApps()).find((known) => known.name === name);
      return Boolean(app) && app.tokenHash === await sha256(token);
    },
    async rememberApp(name) {
      const bytes = crypto.getRandomValues(new Uint8Array(32));
      const token = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
      const others = (await rememberedApps()).filter((known) => known.name !== name);
      const app = { name, tokenHash: await sha256(token), since: Date.now() };
      await chrome.storage.local.set({ [APPS_KEY]: [...others, app] });
      return token;
    },
  };
}
