// The agent's notebook in the whole extension: a list longer than the page (200 items on 10 pages)
// collected into a CSV file row by row with append_file, by a scripted model that reads each page's
// items from the page map it is sent; the CSV the user gets equals the page's data, also when the
// browser stops the service worker mid-extraction; and the requests do not grow with the file.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applySettings, openTarget, openPanel, EXTENSION_DIR } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { requestTokens } from '../support/tokens.mjs';
import { withSiteAndBrowser, waitUntil } from '../support/fixtures.mjs';
import { ITEMS } from '../sites/list/items.js';
import { CATALOGUE_CSV, CATALOGUE_FILE, CATALOGUE_TASK, steps } from '../support/catalogue.mjs';

const TIMEOUT = 60_000;
const ARTIFACTS = join(EXTENSION_DIR, 'tests', 'artifacts');
const TASK = CATALOGUE_TASK;
const FILE = CATALOGUE_FILE;
const TRUTH = CATALOGUE_CSV;
let agent;
let site;

withSiteAndBrowser((started) => ({ site, agent } = started));

async function start(llm) {
  // Older steps are summarised every 4 steps, as they are every 10 by default.
  await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-test-key', maxSteps: 20, memoryInterval: 4 });
  const target = await openTarget(agent, `${site.origin}/list/?page=1`);
  const panel = await openPanel(agent, target.tabId);
  await panel.fill('#task', TASK);
  await panel.press('#task', 'Enter');
  return { ...target, panel };
}

/** The stored chats of the History, from the worker's storage. */
function storedChats() {
  return agent.worker.evaluate(async () => {
    const all = await chrome.storage.local.get(null);
    return Object.entries(all).filter(([key]) => key.startsWith('chat:')).map(([, chat]) => chat);
  });
}

/** The text of `name` in the last `files` event of the chat whose task is `task`. */
async function storedFile(task, name) {
  const chat = (await storedChats()).find((c) => c.events.some((e) => e.type === 'task_started' && e.task === task));
  const files = chat?.events.filter((e) => e.type === 'files') ?? [];
  return files.at(-1)?.files.find((file) => file.name === name)?.text;
}

test('200 items on 10 pages end up in a CSV equal to the page data, and requests do not grow with it', { timeout: 180_000 }, async () => {
  const llm = await startLlmServer(steps(10));
  try {
    const { panel, tabId } = await start(llm);
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), `All the items are in ${FILE}.`);
    assert.equal(llm.requests.length, 10);

    // The user downloads the file from the panel's list of the task's files.
    const item = panel.locator(`.task-files .task-file[data-name="${FILE}"]`);
    assert.match(await item.locator('.task-file-about').textContent(), /^written by the agent, 201 lines, /);
    const [download] = await Promise.all([panel.waitForEvent('download'), item.locator('button.download').click()]);
    assert.equal(download.suggestedFilename(), FILE);
    assert.equal(await readFile(await download.path(), 'utf8'), TRUTH);
    // Viewing it shows the same text.
    await item.locator('button.view').click();
    assert.equal(await item.locator('.task-file-text').textContent(), TRUTH);
    // The chat keeps it: the History has the same file, and shows it in a past chat opened.
    assert.equal(await storedFile(TASK, FILE), TRUTH);
    const reader = await openPanel(agent, tabId);
    await reader.click('#history-button');
    await reader.locator('.chat-item').first().locator('.open').click();
    await reader.locator('.history-notice').waitFor({ timeout: TIMEOUT });
    const kept = reader.locator(`.task-files .task-file[data-name="${FILE}"]`);
    await kept.locator('button.view').click();
    assert.equal(await kept.locator('.task-file-text').textContent(), TRUTH);
    await mkdir(ARTIFACTS, { recursive: true });
    await reader.screenshot({ path: join(ARTIFACTS, 'notebook-files.png') });
    await reader.close();

    // Each step's request shows the file's outline, never its rows; its size stays flat as the
    // file grows (the figures: items collected before each step, and its tokens).
    const figures = llm.requests.map((request, i) => ({ step: i + 1, items: i * 20, tokens: requestTokens(request) }));
    console.log(`tokens per step against items collected: ${JSON.stringify(figures)}`);
    for (const [i, request] of llm.requests.entries()) {
      if (i > 0) assert.match(request.messages.at(-1).content, new RegExp(`- ${FILE}: notebook, ${i * 20 + 1} lines, `));
    }
    // The conversation keeps only the start of each text appended: of page 9's items, the last
    // request carries the first, not the eleventh, which is in the file alone.
    const history = llm.requests.at(-1).messages.slice(0, -1).map((m) => m.content).join('\n');
    assert.ok(history.includes(ITEMS[160].name) && !history.includes(ITEMS[170].name), history);
    const [, second, ...rest] = figures;
    for (const later of rest) assert.ok(later.tokens < second.tokens * 1.5, `step ${later.step}: ${later.tokens} tokens against ${second.tokens} at step 2`);
  } finally {
    await llm.close();
  }
});

/** Stops the extension's service worker, as Chrome does to an idle one. */
async function stopWorker(page) {
  const cdp = await agent.context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
}

test('the service worker stopped mid-extraction: the task resumes and the CSV is still exactly the page data', { timeout: 180_000 }, async () => {
  // Pages 1 to 4 are collected; the request for step 5 never returns, and the worker is stopped
  // while it waits: the new worker asks for step 5 again.
  const script = [...steps(4), { hang: true }, ...steps(6)];
  const llm = await startLlmServer(script);
  const task = `${TASK} (resumed)`;
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-test-key', maxSteps: 20 });
    const target = await openTarget(agent, `${site.origin}/list/?page=1`);
    const panel = await openPanel(agent, target.tabId);
    await panel.fill('#task', task);
    await panel.press('#task', 'Enter');
    await waitUntil(async () => llm.requests.length === 5, TIMEOUT);
    await stopWorker(panel);

    await panel.locator('.resumed').waitFor({ timeout: TIMEOUT });
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), `All the items are in ${FILE}.`);
    assert.equal(await panel.locator('.error').count(), 0);
    // The step asked again carries the notebook of the checkpoint: four pages and the header.
    assert.match(llm.requests[5].messages.at(-1).content, /^Current step: 5 of 20\n/);
    assert.match(llm.requests[5].messages.at(-1).content, new RegExp(`- ${FILE}: notebook, 81 lines, `));
    await waitUntil(async () => (await storedFile(task, FILE)) !== undefined, TIMEOUT);
    assert.equal(await storedFile(task, FILE), TRUTH);
    const item = panel.locator(`.task-files .task-file[data-name="${FILE}"]`);
    await item.locator('button.view').click();
    assert.equal(await item.locator('.task-file-text').textContent(), TRUTH);
  } finally {
    await llm.close();
  }
});
