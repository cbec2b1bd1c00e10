// Chrome's built-in model (the Prompt API) as the model that needs no setup. The test Chromium has
// none, so a fake `LanguageModel` written from the API's documentation stands in for it
// (tests/support/fake-language-model.mjs), installed in the extension's worker and pages by the
// test only: its state is the browser's, its window and schema enforced, its replies scripted.
// No real built-in model runs here.

import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { applySettings, openTarget, openPanel, runTask, storedSettings } from '../../runner/launch.mjs';
import { startFakeLanguageModel } from '../support/fake-language-model.mjs';
import { BUILT_IN_SETTINGS } from '../../extension/shared/built-in-model.js';
import { startLlmServer } from '../support/llm-server.mjs';
import { SHOP_TASK, shopScript, waitUntil, withSiteAndBrowser } from '../support/fixtures.mjs';

/** A window the first session's initial prompts fit, but not its prompt. */
const TOO_SMALL = { roomAfterInitialPrompts: 10 };
let agent;
let site;
/** The fakes a test started, closed after it whatever its outcome. */
const fakes = [];

withSiteAndBrowser((started) => ({ site, agent } = started));

afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

/** A fake built-in model, installed in the extension: its worker and the pages opened after. */
async function installFake(script, options) {
  const fake = await startFakeLanguageModel(script, options);
  fakes.push(fake);
  await fake.install(agent);
  return fake;
}

/** A fresh profile's panel on the shop, the fake installed, "On this computer" chosen. */
async function setupOnThisComputer(options, script = []) {
  await agent.worker.evaluate(() => chrome.storage.local.clear());
  const fake = await installFake(script, options);
  const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
  const panel = await openPanel(agent, tabId);
  await panel.locator('#setup:not([hidden])').waitFor();
  await panel.click('#setup-local');
  return { fake, panel, tabId };
}

test('the setup says plainly when the browser has no built-in model, and downloads it with its progress when it can', async () => {
  const { fake, panel } = await setupOnThisComputer({ availability: 'unavailable' });
  const item = panel.locator('#setup-built-in');
  await item.locator('.problem').waitFor();
  assert.match(await item.textContent(), /not available in this browser: it needs Chrome 138 or later on a desktop/);
  assert.equal(await item.locator('button').count(), 0, 'nothing to use');

  // The browser can download it: offered first, before any server found.
  fake.setAvailability('downloadable');
  await panel.click('#setup-look-again');
  const download = item.locator('button', { hasText: 'Download and use it' });
  await download.waitFor();
  assert.equal(await panel.locator('#setup-servers > li').first().getAttribute('id'), 'setup-built-in');
  assert.match(await item.textContent(), /Private, free.*Slower and less capable than large models/s);

  const release = fake.holdDownloadAt(0.5);
  await download.click(); // the user's click: Chrome starts a download only after one
  await panel.waitForFunction(() => document.querySelector('#setup-built-in [role=status]')?.textContent === 'Downloading the model: 25%');
  assert.equal(await item.locator('progress').evaluate((p) => p.value), 0.25);
  assert.equal(await download.isDisabled(), true, 'one download at a time');
  release();
  await panel.locator('#setup').waitFor({ state: 'hidden' });
  assert.deepEqual(fake.downloads, [0, 0.25, 0.5, 0.75, 1]);
  const settings = await storedSettings(agent);
  assert.deepEqual({ provider: settings.provider, model: settings.model }, { provider: 'chrome-built-in', model: 'chrome-built-in' });
});

test('a shop task runs on the built-in model chosen in the setup, its replies held to the schema', async () => {
  const { fake, panel, tabId } = await setupOnThisComputer({ availability: 'available' }, shopScript(site.origin));
  await panel.click('button:has-text("Use Chrome\'s built-in model")');
  await panel.locator('#setup').waitFor({ state: 'hidden' });

  const end = await runTask(panel, { task: SHOP_TASK, tabId });
  assert.equal(end.type, 'result', JSON.stringify(end));
  assert.equal(end.text, 'The cart total is $14.50');
  const { requests, validations } = fake.llm;
  assert.equal(requests.length, 4);
  assert.ok(requests.every((r) => r.model === 'gemini-nano' && r.raw.response_format?.json_schema?.schema), 'every prompt carried its schema');
  assert.equal(requests[0].messages[0].role, 'system', "the task's instructions are the session's system prompt");
  assert.equal(validations.length, 1, 'the validator ran on it too');
});

test('the settings page offers it as the provider, named for the user, and saves it', async () => {
  await agent.worker.evaluate(() => chrome.storage.local.clear());
  const page = await agent.context.newPage();
  await page.goto(agent.extensionUrl('extension/options/options.html'));
  await page.locator('#fields:not([disabled])').waitFor();
  assert.equal(await page.locator('#provider option[value="chrome-built-in"]').textContent(), "Chrome's built-in model (on this computer)");
  await page.selectOption('#provider', 'chrome-built-in');
  assert.equal(await page.inputValue('#model'), 'chrome-built-in', 'its one name, filled in');
  await page.click('button[type=submit]');
  await waitUntil(async () => (await page.locator('#status').textContent()) === 'Saved.');
  const settings = await storedSettings(agent);
  assert.deepEqual({ provider: settings.provider, model: settings.model }, { provider: 'chrome-built-in', model: 'chrome-built-in' });
  await page.close();
});

test('one agent runs on the built-in model: the validator on it, the navigator on another model', async () => {
  const fake = await installFake([]);
  const cloud = await startLlmServer(shopScript(site.origin));
  try {
    await applySettings(agent, { provider: 'openai-compatible', baseUrl: cloud.baseUrl, model: 'scripted-model', apiKey: '', validatorModel: 'chrome-built-in', planningInterval: 0 });
    const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
    const panel = await openPanel(agent, tabId);
    const end = await runTask(panel, { task: SHOP_TASK, tabId });
    assert.equal(end.type, 'result', JSON.stringify(end));
    assert.equal(end.text, 'The cart total is $14.50');
    assert.equal(cloud.requests.length, 4, 'the navigator asked the other model');
    assert.equal(cloud.validations.length, 0);
    assert.equal(fake.llm.validations.length, 1, 'the validator asked the built-in model');
    assert.equal(fake.llm.requests.length, 0);
  } finally {
    await cloud.close();
  }
});

test('the legacy names of the window (inputQuota, inputUsage, measureInputUsage) are read as the new ones', async () => {
  const script = [{ next_goal: 'Report', actions: [{ done: { text: 'This is the {{(Mug Shop)}}', success: true } }] }];
  for (const spelling of ['legacy', 'new']) {
    // A window the first session's initial prompts fit but its prompt does not: refused by the
    // worker, which measured under this spelling, before the session had to refuse it.
    const small = await installFake([], { ...TOO_SMALL, spelling });
    await applySettings(agent, BUILT_IN_SETTINGS);
    const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
    const panel = await openPanel(agent, tabId);
    const refused = await runTask(panel, { task: 'what is this shop called?', tabId });
    assert.equal(refused.type, 'error', JSON.stringify(refused));
    const [, requested, window] = refused.message.match(/needs (\d+) tokens, but Chrome's built-in model reads at most (\d+) at a time/);
    assert.ok(Number(requested) > Number(window), `${spelling}: ${refused.message}`);
    assert.deepEqual(small.overflows, [], `${spelling}: measured and refused before prompting`);

    const fake = await installFake(structuredClone(script), { spelling });
    const end = await runTask(panel, { task: 'what is this shop called?', tabId });
    assert.equal(end.type, 'result', `${spelling}: ${JSON.stringify(end)}`);
    assert.equal(end.text, 'This is the Mug Shop');
    assert.equal(fake.llm.requests.length, 1);
    await panel.close();
  }
});

test('a request over the window is refused before the model, saying what to do, and the panel says the task was beyond it', async () => {
  const fake = await installFake(shopScript(site.origin), TOO_SMALL);
  await applySettings(agent, BUILT_IN_SETTINGS);
  const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
  const panel = await openPanel(agent, tabId);
  const events = [];
  const end = await runTask(panel, { task: SHOP_TASK, tabId, onEvent: (e) => events.push(e) });
  assert.equal(end.type, 'error', JSON.stringify(end));
  const [, requested, window] = end.message.match(/^This request needs (\d+) tokens, but Chrome's built-in model reads at most (\d+) at a time on this computer\. Set a token budget well below \2 in the settings/);
  assert.ok(Number(requested) > Number(window));
  assert.deepEqual(fake.overflows, [], 'refused by the worker, not by the session');
  assert.equal(fake.llm.requests.length + fake.llm.plans.length, 0, 'nothing reached the model');
  const note = events.find((e) => e.type === 'warning');
  assert.match(note?.message ?? '', /ran on Chrome's built-in model, a small model on this computer: it may be beyond what that model can do/);
  await waitUntil(async () => (await panel.locator('#log').textContent()).includes('beyond what that model can do'));
});

test("stopping a task ends the built-in model's work on the prompt in flight", async () => {
  const fake = await installFake([{ hang: true }]);
  await applySettings(agent, { ...BUILT_IN_SETTINGS, planningInterval: 0 });
  const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
  const panel = await openPanel(agent, tabId);
  const end = runTask(panel, { task: SHOP_TASK, tabId });
  await waitUntil(() => fake.llm.requests.length === 1);
  await panel.locator('#stop').click();
  assert.equal((await end).type, 'stopped', 'the task ends as stopped');
  await waitUntil(() => fake.llm.stats.aborted === 1);
  await panel.close();
});
