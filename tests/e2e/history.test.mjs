// The History in the side panel: past chats listed by title and date, opened read-only,
// continued, deleted, cleared, and bounded; kept by the core in chrome.storage.local.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { launchAgentBrowser, applySettings, openTarget, openPanel, EXTENSION_DIR } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';
import { SHOP_TASK, shopScript } from '../support/fixtures.mjs';

const TIMEOUT = 30_000;
const ARTIFACTS = join(EXTENSION_DIR, 'tests', 'artifacts');
let agent;
let site;

before(async () => {
  site = await startSiteServer();
  agent = await launchAgentBrowser();
  await mkdir(ARTIFACTS, { recursive: true });
});

after(async () => {
  await agent?.close();
  await site?.close();
});

async function useModel(baseUrl, extra = {}) {
  await applySettings(agent, {
    baseUrl,
    model: 'scripted-model',
    apiKey: 'sk-test-key',
    maxSteps: 10,
    prices: [{ model: 'scripted-model', input: 1, output: 2 }],
    ...extra,
  });
}

async function sendTask(panel, task) {
  await panel.fill('#task', task);
  await panel.press('#task', 'Enter');
}

/** A panel the size of Chrome's side panel, bound to a tab showing the shop. */
async function openShopPanel() {
  const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
  const panel = await openPanel(agent, tabId);
  await panel.setViewportSize({ width: 400, height: 760 });
  return panel;
}

async function openHistory(panel) {
  await panel.click('#history-button');
  await panel.waitForFunction(() => document.getElementById('history-status').textContent !== 'Loading…', null, { timeout: TIMEOUT });
}

/** What chrome.storage.local holds of the History. */
function storedHistory() {
  return agent.worker.evaluate(async () => {
    const all = await chrome.storage.local.get(null);
    return {
      index: all.chatIndex ?? [],
      chats: Object.keys(all).filter((key) => key.startsWith('chat:')).sort(),
    };
  });
}

/** Empties the History, as a fresh profile would have it. */
async function forgetHistory() {
  await agent.worker.evaluate(async () => {
    const keys = Object.keys(await chrome.storage.local.get(null)).filter((key) => key === 'chatIndex' || key.startsWith('chat:'));
    await chrome.storage.local.remove(keys);
  });
}

/** Stores chats through the worker's core, as finished tasks would be stored. */
function storeChats(chats) {
  return agent.worker.evaluate(async (list) => {
    for (const chat of list) await globalThis.agentCore.storeChat(chat);
  }, chats);
}

function pastChat(id, title, updated, extraEvents = []) {
  return {
    id,
    title,
    created: updated - 1000,
    updated,
    events: [
      { v: 1, type: 'task_started', task: title },
      ...extraEvents,
      { v: 1, type: 'result', success: true, text: `${title}: done`, html: `<p>${title}: done</p>`, steps: 1 },
    ],
    conversation: [{ kind: 'task', assistant: false, content: `Your task: ${title}` }],
  };
}

async function screenshot(panel, name, colorScheme) {
  await panel.emulateMedia({ colorScheme });
  await panel.screenshot({ path: join(ARTIFACTS, `${name}-${colorScheme}.png`) });
}

test('a finished chat is listed by title and date, opens read-only, and continues with its conversation', async () => {
  await forgetHistory();
  const llm = await startLlmServer([
    ...shopScript(site.origin),
    { actions: [{ done: { text: 'Hello.', success: true } }] },
    { actions: [{ done: { text: 'I added the **blue mug**.', success: true } }] },
  ]);
  try {
    await useModel(llm.baseUrl);
    const panel = await openShopPanel();
    const startedAt = Date.now();
    await sendTask(panel, SHOP_TASK);
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $14.50');
    await panel.locator('.answer-card .export.json').waitFor();
    for (const scheme of ['light', 'dark']) await screenshot(panel, 'panel', scheme);
    await panel.emulateMedia({ colorScheme: 'light' });

    // A second chat, so that the first is no longer the worker's current one.
    await panel.click('#new-chat');
    await sendTask(panel, 'say hello');
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });

    // The History lists both, newest first, by title with a date.
    await openHistory(panel);
    assert.equal(await panel.locator('#history-button').getAttribute('aria-expanded'), 'true');
    assert.equal(await panel.locator('#log').isHidden(), true);
    assert.equal(await panel.locator('#composer').isHidden(), true);
    const items = panel.locator('.chat-item');
    assert.equal(await items.count(), 2);
    assert.deepEqual(await items.locator('.chat-title').allTextContents(), ['say hello', SHOP_TASK]);
    assert.equal(await panel.locator('#history-status').textContent(), '2 past chats');
    const when = Date.parse(await items.nth(1).locator('time').getAttribute('datetime'));
    assert.ok(when >= startedAt - 1000 && when <= Date.now(), `the date is the chat's (${new Date(when).toISOString()})`);
    assert.match(await items.nth(1).locator('time').textContent(), new RegExp(String(new Date().getFullYear())));
    assert.equal(await items.nth(1).locator('.open').getAttribute('aria-label'), `Open chat: ${SHOP_TASK}, ${await items.nth(1).locator('time').textContent()}`);
    assert.equal(await items.nth(1).locator('.delete').getAttribute('aria-label'), `Delete chat: ${SHOP_TASK}`);
    for (const scheme of ['light', 'dark']) await screenshot(panel, 'history', scheme);
    await panel.emulateMedia({ colorScheme: 'light' });

    // What is stored: an index of summaries, and each chat under its own key.
    const stored = await storedHistory();
    assert.deepEqual(stored.index.map((chat) => chat.title), ['say hello', SHOP_TASK]);
    assert.deepEqual(Object.keys(stored.index[0]).sort(), ['bytes', 'created', 'id', 'title', 'updated']);
    assert.deepEqual(stored.chats, stored.index.map((chat) => `chat:${chat.id}`).sort());
    const shopChat = await agent.worker.evaluate((key) => chrome.storage.local.get(key).then((all) => all[key]), `chat:${stored.index[1].id}`);
    const types = shopChat.events.map((event) => event.type);
    assert.ok(!types.includes('model_output'), 'streamed replies are not kept');
    assert.equal(types.filter((type) => type === 'usage').length, 1, 'one usage per task');
    assert.equal(types.at(-1), 'result');
    // Measured by the core's serialization (UTF-8, floats as 1.0): about JSON.stringify's length.
    const length = JSON.stringify(shopChat).length;
    assert.ok(Math.abs(stored.index[1].bytes - length) < length * 0.02, `${stored.index[1].bytes} bytes for ${length} characters`);

    // Opened in a panel of its own: the steps and the answer, read-only.
    const reader = await openShopPanel();
    await openHistory(reader);
    await reader.locator('.chat-item').nth(1).locator('.open').click();
    await reader.locator('.history-notice').waitFor({ timeout: TIMEOUT });
    assert.equal(await reader.locator('#history').isHidden(), true);
    assert.equal(await reader.locator('.user').textContent(), SHOP_TASK);
    assert.equal(await reader.locator('.step').count(), 4);
    assert.match(await reader.locator('.step').nth(2).textContent(), /Clicked <button> "Add Blue mug to cart"/);
    assert.equal(await reader.locator('.answer').textContent(), 'The cart total is $14.50');
    assert.equal(await reader.locator('.thinking').count(), 0);
    assert.equal(await reader.locator('#stop').isHidden(), true);
    assert.equal(await reader.locator('#send').isDisabled(), false);
    assert.match(await reader.locator('.history-notice').textContent(), /shown read-only\. Sending a message continues this chat\./);
    assert.equal(await reader.locator('#usage').textContent(), 'Tokens: 800 in · 160 out · $0.0011');
    assert.equal(await reader.locator('.export.json').count(), 1, 'the past run can still be exported');
    await reader.screenshot({ path: join(ARTIFACTS, 'chat-read-only-light.png') });

    // Sending continues it: the model is given the earlier conversation, not the other chat's.
    const before = llm.requests.length;
    await sendTask(reader, 'which mug did you add?');
    await reader.locator('.answer').nth(1).waitFor({ timeout: TIMEOUT });
    assert.equal(await reader.locator('.answer').nth(1).textContent(), 'I added the blue mug.');
    assert.equal(await reader.locator('.history-notice').count(), 0);
    assert.equal(llm.requests.length, before + 1);
    const sent = llm.requests.at(-1).messages.map((m) => m.content);
    assert.ok(sent.includes(`Your task: ${SHOP_TASK}`), 'the first task is in the request');
    assert.ok(sent.some((content) => content.includes('The cart total is $14.50')), 'so is the earlier answer');
    assert.ok(sent.some((content) => content.startsWith('Your follow-up task') && content.endsWith('which mug did you add?')));
    assert.ok(!sent.some((content) => content.includes('say hello')), 'the other chat is not');

    // The same chat, updated: it is listed first, with both tasks.
    await openHistory(reader);
    assert.deepEqual(await reader.locator('.chat-item .chat-title').allTextContents(), [SHOP_TASK, 'say hello']);
    await reader.locator('.chat-item').first().locator('.open').click();
    await reader.locator('.history-notice').waitFor({ timeout: TIMEOUT });
    assert.deepEqual(await reader.locator('.user').allTextContents(), [SHOP_TASK, 'which mug did you add?']);
    assert.equal(await reader.locator('.answer').count(), 2);
    assert.equal((await storedHistory()).index.length, 2);
    await reader.close();
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('past approvals are shown but cannot be answered', async () => {
  await forgetHistory();
  await storeChats([pastChat('a-1', 'buy the mug', Date.now(), [
    { v: 1, type: 'approval_needed', id: 1, question: 'Allow clicking "Buy now"?', url: 'https://shop.test/' },
    { v: 1, type: 'review_needed', id: 2, step: 2, next_goal: 'Pay', actions: ['click_element 4'] },
  ])]);
  const panel = await openShopPanel();
  await openHistory(panel);
  await panel.locator('.chat-item .open').click();
  await panel.locator('.history-notice').waitFor({ timeout: TIMEOUT });
  assert.equal(await panel.locator('.approval').count(), 2);
  for (const button of await panel.locator('.approval button, .approval input').all()) {
    assert.equal(await button.isDisabled(), true);
  }
  assert.equal(await panel.locator('[role=alertdialog]:visible').count(), 0, 'nothing asks to be answered');
  assert.equal(await panel.locator('.answer').textContent(), 'buy the mug: done');
  await panel.close();
});

test('a chat is deleted, the History cleared after a confirmation, and a running chat is kept', async () => {
  await forgetHistory();
  const now = Date.now();
  await storeChats([pastChat('c-1', 'first chat', now - 3000), pastChat('c-2', 'second chat', now - 2000), pastChat('c-3', 'third chat', now - 1000)]);
  const panel = await openShopPanel();
  await openHistory(panel);
  assert.deepEqual(await panel.locator('.chat-title').allTextContents(), ['third chat', 'second chat', 'first chat']);

  // Delete: gone from the list and from storage; focus stays in the list.
  await panel.locator('.chat-item', { hasText: 'second chat' }).locator('.delete').click();
  await panel.waitForFunction(() => document.querySelectorAll('.chat-item').length === 2);
  assert.deepEqual(await panel.locator('.chat-title').allTextContents(), ['third chat', 'first chat']);
  assert.equal(await panel.evaluate(() => document.activeElement.closest('.chat-item')?.dataset.id), 'c-1');
  assert.deepEqual((await storedHistory()).chats, ['chat:c-1', 'chat:c-3']);

  // Opened, then deleted: the panel no longer shows it.
  await panel.locator('.chat-item', { hasText: 'first chat' }).locator('.open').click();
  await panel.locator('.history-notice').waitFor({ timeout: TIMEOUT });
  await openHistory(panel);
  await panel.locator('.chat-item', { hasText: 'first chat' }).locator('.delete').click();
  await panel.waitForFunction(() => document.querySelectorAll('.chat-item').length === 1);
  await panel.click('#history-back');
  assert.equal(await panel.locator('#log .message').count(), 0);

  // Clear all asks first; Cancel keeps everything, Escape too.
  await openHistory(panel);
  await panel.click('#clear-all');
  assert.equal(await panel.locator('#clear-confirm').isVisible(), true);
  assert.equal(await panel.evaluate(() => document.activeElement.id), 'clear-cancel');
  await panel.click('#clear-cancel');
  assert.equal(await panel.locator('#clear-confirm').isHidden(), true);
  await panel.click('#clear-all');
  await panel.keyboard.press('Escape');
  assert.equal(await panel.locator('#clear-confirm').isHidden(), true);
  assert.equal(await panel.locator('#history').isVisible(), true, 'Escape closed the confirmation only');
  assert.equal(await panel.locator('.chat-item').count(), 1);
  await panel.click('#clear-all');
  await panel.click('#clear-yes');
  await panel.locator('#history-status', { hasText: 'No past chats yet.' }).waitFor({ timeout: TIMEOUT });
  assert.equal(await panel.locator('.chat-item').count(), 0);
  assert.equal(await panel.locator('#clear-all').isHidden(), true);
  assert.deepEqual(await storedHistory(), { index: [], chats: [] });
  await panel.keyboard.press('Escape');
  assert.equal(await panel.locator('#history').isHidden(), true);
  assert.equal(await panel.evaluate(() => document.activeElement.id), 'history-button');

  // A running chat is listed at once, and can be neither deleted nor cleared.
  await storeChats([pastChat('c-9', 'an older chat', now - 5000)]);
  const llm = await startLlmServer([{ hang: true }]);
  try {
    await useModel(llm.baseUrl, { planningInterval: 0 });
    await sendTask(panel, 'wait for ever');
    await panel.locator('.thinking').waitFor({ timeout: TIMEOUT });
    await openHistory(panel);
    const runningItem = panel.locator('.chat-item', { hasText: 'wait for ever' });
    assert.equal(await runningItem.locator('.delete').isDisabled(), true);
    assert.equal(await runningItem.locator('.chat-badge').textContent(), 'Running now');
    // Opening it shows its task live, as the list of tasks does.
    assert.equal(await runningItem.locator('.open').isDisabled(), false);
    const runningId = await runningItem.getAttribute('data-id');
    // Asked anyway (another panel's stale list), the worker refuses.
    await panel.evaluate((id) => {
      const port = chrome.runtime.connect({ name: 'agent-panel' });
      port.postMessage({ v: 1, type: 'delete_chat', id });
    }, runningId);
    await panel.click('#clear-all');
    await panel.click('#clear-yes');
    await panel.waitForFunction(() => document.querySelectorAll('.chat-item').length === 1);
    assert.deepEqual(await panel.locator('.chat-title').allTextContents(), ['wait for ever']);
    assert.deepEqual((await storedHistory()).chats, [`chat:${runningId}`]);
    await panel.click('#history-back');
    await panel.click('#stop');
    await panel.locator('.notice', { hasText: 'Stopped' }).waitFor({ timeout: TIMEOUT });
    await openHistory(panel);
    assert.equal(await panel.locator('.chat-item .delete').isDisabled(), false);
    await panel.locator('.chat-item .open').click();
    await panel.locator('.history-notice').waitFor({ timeout: TIMEOUT });
    assert.match(await panel.locator('#log').textContent(), /wait for ever.*Stopped after 1 step/s);
  } finally {
    await llm.close();
    await panel.close();
  }
});

test('the History keeps the newest 50 chats', async () => {
  await forgetHistory();
  const now = Date.now();
  const chats = Array.from({ length: 55 }, (_, n) => pastChat(`bound-${n}`, `chat number ${n}`, now - 100_000 + n * 1000));
  await storeChats(chats);
  const stored = await storedHistory();
  assert.equal(stored.index.length, 50);
  assert.equal(stored.chats.length, 50);
  assert.equal(stored.index[0].id, 'bound-54');
  assert.equal(stored.index.at(-1).id, 'bound-5');
  for (let n = 0; n < 5; n++) assert.ok(!stored.chats.includes(`chat:bound-${n}`), `chat ${n} was dropped`);

  const panel = await openShopPanel();
  await openHistory(panel);
  assert.equal(await panel.locator('.chat-item').count(), 50);
  assert.equal(await panel.locator('.chat-title').first().textContent(), 'chat number 54');
  assert.equal(await panel.locator('#history-status').textContent(), '50 past chats');
  await panel.close();
});
