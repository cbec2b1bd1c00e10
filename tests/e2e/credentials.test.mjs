// The API key and the secret values out of the content scripts' reach: kept in the extension's own
// IndexedDB, not in chrome.storage.local (which content scripts can read in browsers before 140,
// and which is closed to them where the browser allows it). A script in the extension's isolated
// world of a page (where the sensor runs) looks everywhere it can and finds neither; the key still
// reaches the provider in a task; and settings stored by an earlier version, with the key in
// chrome.storage.local, are moved, also from the state a worker stopped midway leaves.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applySettings, openTarget, openPanel, runTask, storedSettings } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { SHOP_TASK, shopScript, withSiteAndBrowser } from '../support/fixtures.mjs';

let agent;
let site;

withSiteAndBrowser((started) => ({ site, agent } = started));

const SECRETS = [{ name: 'pin', value: 'pin-value-8642', domains: ['bank.example'] }];

/**
 * Everything a script in the extension's isolated world of the tab can find: each storage area
 * (or why it was refused), and what a database of the extension's name holds in that origin.
 */
async function contentScriptFinds(tabId) {
  const found = await agent.worker.evaluate(async (tab) => {
    const [{ result }] = await chrome.scripting.executeScript({
      target: { tabId: tab },
      world: 'ISOLATED',
      func: async () => {
        const seen = { ranIn: location.origin };
        for (const area of ['local', 'sync', 'session']) {
          try {
            seen[area] = await chrome.storage[area].get(null);
          } catch (err) {
            seen[area] = `refused: ${err.message}`;
          }
        }
        const db = await new Promise((resolve, reject) => {
          const request = indexedDB.open('agent-credentials');
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
        seen.stores = [...db.objectStoreNames];
        db.close();
        return JSON.stringify(seen);
      },
    });
    return result;
  }, tabId);
  return JSON.parse(found);
}

/** All of chrome.storage.local, as the worker reads it. */
const localStorageText = async () => JSON.stringify(await agent.worker.evaluate(() => chrome.storage.local.get(null)));

async function runShopTask(llm) {
  const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
  const panel = await openPanel(agent, tabId);
  try {
    return await runTask(panel, { task: SHOP_TASK, tabId });
  } finally {
    await panel.close();
  }
}

test('the key works for a task, and a content script finds neither the key nor a secret value', async () => {
  const llm = await startLlmServer(shopScript(site.origin));
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-kept-apart-1357', maxSteps: 10, secrets: SECRETS });
    const end = await runShopTask(llm);
    assert.equal(end.type, 'result', JSON.stringify(end));
    assert.equal(llm.headers[0].authorization, 'Bearer sk-kept-apart-1357');

    // The extension's own pages read them back.
    const settings = await storedSettings(agent);
    assert.equal(settings.apiKey, 'sk-kept-apart-1357');
    assert.deepEqual(settings.secrets, SECRETS);
    // Nowhere in chrome.storage.local, the History of the task included.
    const local = await localStorageText();
    assert.match(local, /scripted-model/);
    assert.equal(local.includes('sk-kept-apart-1357'), false, local);
    assert.equal(local.includes('pin-value-8642'), false, local);

    const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
    const closedToContentScripts = await agent.worker.evaluate(() => typeof chrome.storage.local.setAccessLevel === 'function');
    if (closedToContentScripts) {
      // This browser closes chrome.storage.local to content scripts: nothing of it is read.
      const found = await contentScriptFinds(tabId);
      assert.equal(found.ranIn, site.origin);
      assert.match(found.local, /^refused: /);
      assert.match(found.session, /^refused: /);
      assert.deepEqual(found.stores, [], 'the page origin has no credentials database');
      // As in a browser before Chrome 140, where it stays open to them.
      await agent.worker.evaluate(() => chrome.storage.local.setAccessLevel({ accessLevel: 'TRUSTED_AND_UNTRUSTED_CONTEXTS' }));
    }
    try {
      const found = await contentScriptFinds(tabId);
      assert.equal(found.local.settings.model, 'scripted-model', 'the content script reads chrome.storage.local');
      assert.deepEqual(found.stores, []);
      const text = JSON.stringify(found);
      assert.equal(text.includes('sk-kept-apart-1357'), false, text);
      assert.equal(text.includes('pin-value-8642'), false, text);
    } finally {
      if (closedToContentScripts) await agent.worker.evaluate(() => chrome.storage.local.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' }));
    }
  } finally {
    await llm.close();
  }
});

test('a key and secrets stored by an earlier version move out of chrome.storage.local, after a worker stopped midway too', async () => {
  const llm = await startLlmServer(shopScript(site.origin));
  const legacy = { baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-old-layout-2468', maxSteps: 10, secrets: SECRETS };
  const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
  const panel = await openPanel(agent, tabId);
  const page = await agent.context.newPage();
  try {
    await page.goto(agent.extensionUrl('extension/options/options.html'));
    await page.locator('#fields:not([disabled])').waitFor();
    // The worker stopped, as the browser stops an idle one: the next one starts from what follows.
    const cdp = await agent.context.newCDPSession(page);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    // What a move stopped midway leaves: the credentials written to the database, the settings in
    // chrome.storage.local still as the earlier version stored them. Written while holding the
    // settings' lock, so that no context of the extension reads the settings in between.
    await page.evaluate((settings) => navigator.locks.request('agent-settings', async () => {
      const db = await new Promise((resolve, reject) => {
        const request = indexedDB.open('agent-credentials', 1);
        request.onupgradeneeded = () => request.result.createObjectStore('credentials');
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      await new Promise((resolve, reject) => {
        const tx = db.transaction('credentials', 'readwrite');
        tx.objectStore('credentials').put({ apiKey: settings.apiKey, secrets: settings.secrets }, 'written-before-the-stop');
        tx.oncomplete = resolve;
        tx.onerror = () => reject(tx.error);
      });
      db.close();
      await chrome.storage.local.clear();
      await chrome.storage.local.set({ settings });
    }), legacy);
    // A new worker up: it answers a panel (a task sent before its core loaded would be lost).
    const hello = await panel.evaluate(() => new Promise((resolve) => {
      const port = chrome.runtime.connect({ name: 'agent-panel' });
      port.onMessage.addListener((message) => { port.disconnect(); resolve(message.type); });
    }));
    assert.equal(hello, 'hello');

    const end = await runTask(panel, { task: SHOP_TASK, tabId });
    assert.equal(end.type, 'result', JSON.stringify(end));
    assert.equal(llm.headers[0].authorization, 'Bearer sk-old-layout-2468');

    const local = await localStorageText();
    assert.equal(local.includes('sk-old-layout-2468'), false, local);
    assert.equal(local.includes('pin-value-8642'), false, local);
    assert.deepEqual(await storedSettings(agent), legacy);
    // One record is left, the one the settings name.
    const { records, named } = await page.evaluate(async () => {
      const db = await new Promise((resolve, reject) => {
        const request = indexedDB.open('agent-credentials');
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const keys = await new Promise((resolve) => {
        const request = db.transaction('credentials').objectStore('credentials').getAllKeys();
        request.onsuccess = () => resolve(request.result);
      });
      db.close();
      return { records: keys, named: (await chrome.storage.local.get('settings')).settings.credentials };
    });
    assert.deepEqual(records, [named]);
  } finally {
    await page.close();
    await panel.close();
    await llm.close();
  }
});
