// The first run: a fresh profile's panel offers a model instead of the chat. A scripted server
// poses as Ollama on its own port on loopback: refusing the extension first (the panel explains
// OLLAMA_ORIGINS), then serving; three clicks choose it, and the shop task runs on it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openTarget, openPanel, runTask } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { SHOP_TASK, shopScript, waitUntil, withSiteAndBrowser } from '../support/fixtures.mjs';

const OLLAMA_PORT = 11434;
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
let agent;
let site;

withSiteAndBrowser((started) => ({ site, agent } = started));

/** Ollama as it answers an extension it was not told to accept: 403, no body. */
async function refusingOllama() {
  const server = createServer((req, res) => res.writeHead(403).end());
  await new Promise((resolve) => server.listen(OLLAMA_PORT, '127.0.0.1', resolve));
  return { close: () => { server.closeAllConnections(); return new Promise((resolve) => server.close(resolve)); } };
}

test('a fresh profile sets up a local model in three clicks and runs a task on it', async () => {
  const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
  const panel = await openPanel(agent, tabId);
  await panel.locator('#setup:not([hidden])').waitFor();
  assert.equal(await panel.locator('#composer').isVisible(), false, 'no chat before a model is chosen');

  const refusing = await refusingOllama();
  try {
    await panel.click('#setup-local'); // 1
    await panel.locator('.server .problem').waitFor();
    assert.match(await panel.locator('.server').textContent(), /Ollama.*http:\/\/127\.0\.0\.1:11434\/v1.*OLLAMA_ORIGINS=chrome-extension:\/\/\*/s);
  } finally {
    await refusing.close();
  }

  const llm = await startLlmServer(shopScript(site.origin), { port: OLLAMA_PORT });
  try {
    await panel.click('#setup-look-again');
    await panel.locator('button', { hasText: 'Use Ollama' }).waitFor();
    assert.deepEqual(await panel.locator('#model-Ollama option').allTextContents(), ['other-model', 'scripted-model']);
    await panel.selectOption('#model-Ollama', 'scripted-model'); // 2
    await mkdir(ARTIFACTS, { recursive: true });
    await panel.screenshot({ path: join(ARTIFACTS, 'setup.png') });
    await panel.click('button:has-text("Use Ollama")'); // 3
    await panel.locator('#setup').waitFor({ state: 'hidden' });
    assert.equal(await panel.locator('#composer').isVisible(), true);
    const { settings } = await agent.worker.evaluate(() => chrome.storage.local.get('settings'));
    assert.deepEqual({ provider: settings.provider, baseUrl: settings.baseUrl, model: settings.model },
      { provider: 'openai-compatible', baseUrl: `http://127.0.0.1:${OLLAMA_PORT}/v1`, model: 'scripted-model' });

    const end = await runTask(panel, { task: SHOP_TASK, tabId });
    assert.equal(end.type, 'result', JSON.stringify(end));
    assert.equal(end.text, 'The cart total is $14.50');
    assert.ok(llm.requests.every((r) => r.model === 'scripted-model'));
  } finally {
    await llm.close();
  }
});

test('no server on this computer is said plainly, with the ports looked at', async () => {
  await agent.worker.evaluate(() => chrome.storage.local.clear());
  const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
  const panel = await openPanel(agent, tabId);
  await panel.click('#setup-local');
  await panel.waitForFunction(() => document.getElementById('setup-local-status').textContent.startsWith('No model server answered'));
  assert.match(await panel.locator('#setup-local-status').textContent(), /Ollama on port 11434, LM Studio 1234, llama\.cpp 8080, vLLM 8000, Jan 1337/);
  // A cloud provider instead: a first model is offered, the key is asked for.
  await panel.click('#setup-cloud');
  assert.equal(await panel.inputValue('#setup-model'), 'gpt-4o-mini');
  await panel.selectOption('#setup-provider', 'anthropic');
  assert.equal(await panel.inputValue('#setup-model'), 'claude-sonnet-4-5');
});

test('a saved task with a placeholder is inserted with / and run; saved tasks are edited, reordered and deleted', async () => {
  const llm = await startLlmServer(shopScript(site.origin));
  try {
    await agent.worker.evaluate((baseUrl) => chrome.storage.local.set({ settings: { baseUrl, model: 'scripted-model', maxSteps: 10 } }), llm.baseUrl);
    const { page, tabId } = await openTarget(agent, `${site.origin}/shop/`);
    const panel = await openPanel(agent, tabId);
    const input = panel.locator('#task');
    for (const text of ['add the {colour} mug to the cart, then tell me the cart total', 'find the opening hours of {shop}']) {
      await input.fill(text);
      await panel.click('#save-task');
    }
    assert.match(await panel.locator('#saved-status').textContent(), /Type \/ in the input/);
    // "/" lists them; what follows filters; the arrows move; Enter inserts, its placeholder selected.
    await input.fill('');
    await input.pressSequentially('/');
    assert.equal(await panel.locator('#saved-list [role=option]').count(), 2);
    await input.pressSequentially('mug');
    assert.deepEqual(await panel.locator('#saved-list .saved-text').allTextContents(), ['add the {colour} mug to the cart, then tell me the cart total']);
    await mkdir(ARTIFACTS, { recursive: true });
    await panel.screenshot({ path: join(ARTIFACTS, 'saved-tasks.png') });
    await input.press('Enter');
    assert.equal(await panel.locator('#saved-list').isHidden(), true);
    assert.equal(await input.evaluate((el) => el.value.slice(el.selectionStart, el.selectionEnd)), '{colour}');
    await input.pressSequentially('blue');
    assert.equal(await input.inputValue(), 'add the blue mug to the cart, then tell me the cart total');
    await input.press('Enter'); // Now Enter sends.
    await panel.locator('.answer').waitFor({ timeout: 30_000 });
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $14.50');
    assert.equal(await page.locator('#cart-count').textContent(), 'Cart: 1 item');
    assert.match(llm.requests[0].messages.find((m) => m.content.startsWith('Your task:')).content, /add the blue mug/);

    // Edit, move up, delete: stored in that order, the changes kept.
    await input.fill('/');
    await panel.click('button[aria-label^="Edit: find the opening hours"]');
    await input.fill('find the opening hours of {shop} on {day}');
    await panel.click('#save-task');
    await input.fill('/');
    await panel.click('button[aria-label^="Move up: find the opening hours"]');
    // The worker writes each change after the click that asked for it: wait for it, then compare.
    const stored = async () => (await agent.worker.evaluate(() => chrome.storage.local.get('savedTasks'))).savedTasks;
    const storedAs = async (expected) => {
      await waitUntil(async () => JSON.stringify(await stored()) === JSON.stringify(expected)).catch(() => {});
      assert.deepEqual(await stored(), expected);
    };
    await storedAs(['find the opening hours of {shop} on {day}', 'add the {colour} mug to the cart, then tell me the cart total']);
    await panel.click('button[aria-label^="Delete: add the"]');
    await storedAs(['find the opening hours of {shop} on {day}']);
    await input.press('Escape');
    assert.equal(await panel.locator('#saved-list').isHidden(), true);
    // Ctrl+K goes back to the input from anywhere in the panel.
    await panel.locator('#history-button').focus();
    await panel.keyboard.press('Control+K');
    assert.equal(await panel.evaluate(() => document.activeElement.id), 'task');
  } finally {
    await llm.close();
  }
});
