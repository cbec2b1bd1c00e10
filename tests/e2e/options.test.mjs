// The options page in headless Chromium: testing the provider connection with the form's unsaved
// values, exporting the settings without secrets and importing them back, and how the page
// looks in light and dark themes.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchAgentBrowser } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { closedPort } from '../support/fixtures.mjs';

const OPTIONS_PATH = 'extension/options/options.html';
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
let agent;
let llm;

before(async () => {
  agent = await launchAgentBrowser();
  llm = await startLlmServer([]);
});

after(async () => {
  await agent?.close();
  await llm?.close();
});

async function waitUntil(condition, timeout = 5000) {
  const end = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const storedSettings = async () => (await agent.worker.evaluate(() => chrome.storage.local.get('settings'))).settings ?? null;

async function setStoredSettings(settings) {
  await agent.worker.evaluate(async (s) => {
    await chrome.storage.local.clear();
    if (s) await chrome.storage.local.set({ settings: s });
  }, settings);
}

/** Opens the options page once it has read the stored settings (its fields are enabled then). */
async function openOptions() {
  const page = await agent.context.newPage();
  await page.goto(agent.extensionUrl(OPTIONS_PATH));
  await page.locator('#fields:not([disabled])').waitFor();
  await page.locator('#import-settings:not([disabled])').waitFor();
  return page;
}

/** Waits for a status region to hold a final message (not a "…" progress one) and returns it. */
async function finalStatus(page, selector) {
  let text = '';
  await waitUntil(async () => {
    text = (await page.locator(selector).textContent()).trim();
    return text !== '' && !text.endsWith('…');
  }, 15_000);
  return { text, error: (await page.locator(selector).getAttribute('class')).split(' ').includes('error') };
}

/** Chooses a file through the Import settings button, as a user does (the button opens the picker). */
async function importFile(page, name, contents) {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#import-settings')]);
  await chooser.setFiles({ name, mimeType: 'application/json', buffer: Buffer.from(contents) });
  return finalStatus(page, '#backup-status');
}

/** A /v1/models endpoint that answers only when released, to see the page while a test runs. */
async function startHeldServer() {
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  const server = createServer(async (req, res) => {
    await released;
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'held-model' }] }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
    release,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

test('Test connection asks the provider for its models with the unsaved form and says what it found', async () => {
  await setStoredSettings(null);
  const page = await openOptions();
  try {
    const status = page.locator('#connection-status');
    assert.equal(await status.getAttribute('role'), 'status');
    assert.equal(await status.getAttribute('aria-live'), 'polite');

    // The scripted server lists scripted-model and other-model.
    await page.fill('#baseUrl', llm.baseUrl);
    await page.fill('#model', 'scripted-model');
    await page.fill('#apiKey', 'sk-test-key');
    await page.click('#test-connection');
    let result = await finalStatus(page, '#connection-status');
    assert.equal(result.text, 'Connected: 2 models available; the model scripted-model is available.');
    assert.equal(result.error, false);
    // The list also becomes the model field's suggestions.
    const suggested = await page.locator('#model-list option').evaluateAll((list) => list.map((o) => o.value));
    assert.deepEqual(suggested, ['other-model', 'scripted-model']);

    // Changing a provider field clears the result; a model the provider does not list is named.
    await page.fill('#model', 'scripted-modle');
    assert.equal(await status.textContent(), '');
    // From the keyboard: the button is a real button.
    await page.focus('#test-connection');
    await page.keyboard.press('Enter');
    result = await finalStatus(page, '#connection-status');
    assert.equal(result.text, "Connected: 2 models available, but the model scripted-modle is not in the provider's list; check its name.");
    assert.equal(result.error, true);

    // An address where nothing listens: the core's explanation.
    const port = await closedPort();
    await page.fill('#baseUrl', `http://127.0.0.1:${port}/v1`);
    assert.equal(await status.textContent(), '');
    await page.click('#test-connection');
    result = await finalStatus(page, '#connection-status');
    assert.equal(result.error, true);
    assert.match(result.text, new RegExp(`^Could not reach the model provider at http://127\\.0\\.0\\.1:${port}/v1/models .*Check the base URL in the settings and that the server is running`));

    // A base URL that is not an address is the core's validation message, the field marked.
    await page.fill('#baseUrl', 'ftp://example.com');
    await page.click('#test-connection');
    result = await finalStatus(page, '#connection-status');
    assert.equal(result.error, true);
    assert.match(result.text, /not an http\(s\) address/);
    assert.equal(await page.locator('#baseUrl').getAttribute('aria-invalid'), 'true');

    // The button is disabled while the test runs, and a result for values since changed is not shown.
    const held = await startHeldServer();
    try {
      await page.fill('#baseUrl', held.baseUrl);
      await page.fill('#model', 'held-model');
      await page.click('#test-connection');
      await waitUntil(async () => (await status.textContent()) === 'Testing the connection…');
      assert.equal(await page.locator('#test-connection').isDisabled(), true);
      held.release();
      result = await finalStatus(page, '#connection-status');
      assert.equal(result.text, 'Connected: 1 model available; the model held-model is available.');
      assert.equal(await page.locator('#test-connection').isDisabled(), false);
    } finally {
      await held.close();
    }

    // None of it was saved, so there is nothing to export yet.
    assert.equal(await storedSettings(), null);
    await page.click('#export-settings');
    result = await finalStatus(page, '#backup-status');
    assert.deepEqual(result, { text: 'Nothing to export yet: save your settings first, then export them.', error: true });
  } finally {
    await page.close();
  }
});

test('Export writes the settings without the key or secret values; Import restores them and keeps the key saved here', async () => {
  await setStoredSettings(null);
  let page = await openOptions();
  let exported;
  let exportedText;
  try {
    await page.fill('#baseUrl', llm.baseUrl);
    await page.fill('#apiKey', 'sk-exported-key');
    await page.fill('#model', 'scripted-model');
    await page.fill('#maxSteps', '12');
    await page.selectOption('#searchEngine', 'bing');
    await page.uncheck('#highlights');
    await page.fill('#denyList', 'evil.example\nhttps://bad.example/path');
    await page.fill('#secrets', 'work_password | hunter2-secret | login.example.com, sso.example.com\npin | 9876 | bank.example');
    await page.fill('#prices', 'scripted-model | 1 | 2');
    await page.click('button[type=submit]');
    await waitUntil(async () => (await page.locator('#status').textContent()) === 'Saved.');

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-settings')]);
    assert.equal(download.suggestedFilename(), 'agent-settings.json');
    exportedText = await readFile(await download.path(), 'utf8');
    exported = JSON.parse(exportedText);
    const message = await finalStatus(page, '#backup-status');
    assert.equal(message.error, false);
    assert.match(message.text, /^Exported the saved settings to agent-settings\.json, without your API key and secret values\.$/);

    // What is exported is what is saved; the page says when the form holds more.
    await page.fill('#maxSteps', '13');
    const [again] = await Promise.all([page.waitForEvent('download'), page.click('#export-settings')]);
    assert.equal(JSON.parse(await readFile(await again.path(), 'utf8')).maxSteps, 12);
    await waitUntil(async () => /Changes not yet saved in the form are not in it: save first to include them\.$/.test(await page.locator('#backup-status').textContent()));
  } finally {
    await page.close();
  }

  // No key, no secret value anywhere in the file; the format marker and every other setting.
  assert.doesNotMatch(exportedText, /sk-exported-key|hunter2-secret|9876/);
  assert.equal('apiKey' in exported, false);
  assert.equal(exported.format, 'browser-agent-settings/1');
  assert.deepEqual(exported.secrets, [
    { name: 'work_password', value: '', domains: ['login.example.com', 'sso.example.com'] },
    { name: 'pin', value: '', domains: ['bank.example'] },
  ]);
  const { baseUrl, model, maxSteps, searchEngine, highlights, denyList, prices, validator, planningInterval } = exported;
  assert.deepEqual(
    { baseUrl, model, maxSteps, searchEngine, highlights, denyList, prices, validator, planningInterval },
    {
      baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 12, searchEngine: 'bing', highlights: false,
      denyList: ['evil.example', 'https://bad.example/path'], prices: [{ model: 'scripted-model', input: 1, output: 2 }],
      validator: true, planningInterval: 3,
    },
  );

  // Another browser's state: a different key and setup, one of the two secrets already known.
  await setStoredSettings({
    baseUrl: 'http://localhost:11434/v1', model: 'llama3.1', apiKey: 'sk-kept-key', maxSteps: 30,
    secrets: [{ name: 'work_password', value: 'kept-password', domains: ['old.example.com'] }],
  });
  page = await openOptions();
  try {
    // A secret with no value here yet: the form is filled, nothing is saved, the user is told what to enter.
    let result = await importFile(page, 'agent-settings.json', exportedText);
    assert.equal(result.error, true);
    assert.match(result.text, /^Imported agent-settings\.json into the form, not yet saved: enter the value of the secret pin in Secrets/);
    assert.equal(await page.locator('#secrets').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#model').inputValue(), 'scripted-model');
    assert.equal((await storedSettings()).model, 'llama3.1');
    await page.close();

    // With that secret known here too, the import saves at once, keeping the key and the values.
    await setStoredSettings({
      baseUrl: 'http://localhost:11434/v1', model: 'llama3.1', apiKey: 'sk-kept-key', maxSteps: 30,
      secrets: [
        { name: 'work_password', value: 'kept-password', domains: ['old.example.com'] },
        { name: 'pin', value: '1234', domains: [] },
      ],
    });
    page = await openOptions();
    result = await importFile(page, 'agent-settings.json', exportedText);
    assert.equal(result.error, false);
    assert.equal(result.text, 'Imported and saved the settings from agent-settings.json. Your saved API key was kept.');
    assert.equal(await page.locator('#status').textContent(), 'Saved.');
    const stored = await storedSettings();
    assert.equal(stored.apiKey, 'sk-kept-key');
    assert.deepEqual(stored.secrets, [
      { name: 'work_password', value: 'kept-password', domains: ['login.example.com', 'sso.example.com'] },
      { name: 'pin', value: '1234', domains: ['bank.example'] },
    ]);
    for (const [name, value] of Object.entries(exported)) {
      if (name !== 'format' && name !== 'secrets') assert.deepEqual(stored[name], value, name);
    }
    // The form shows what was imported.
    assert.equal(await page.locator('#maxSteps').inputValue(), '12');
    assert.equal(await page.locator('#apiKey').inputValue(), 'sk-kept-key');
    assert.equal(await page.locator('#highlights').isChecked(), false);
  } finally {
    await page.close();
  }
});

test('Import refuses what is not a valid settings export, says why, and changes nothing', async () => {
  const before = {
    baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-unchanged', maxSteps: 7,
    secrets: [{ name: 'pin', value: '1234', domains: ['bank.example'] }],
  };
  await setStoredSettings(before);
  const page = await openOptions();
  try {
    const valid = { format: 'browser-agent-settings/1', baseUrl: 'http://localhost:11434/v1', model: 'llama3.1', maxSteps: 20 };
    const cases = [
      ['notes.txt', 'model: llama3.1\nmaxSteps: 20', /^Nothing was imported: notes\.txt is not a JSON file\. Choose a file made by Export settings \(agent-settings\.json\)\.$/],
      ['other.json', JSON.stringify({ ...valid, format: undefined }), /^Nothing was imported: other\.json is not a settings file: it has no "format": "browser-agent-settings\/1"/],
      ['newer.json', JSON.stringify({ ...valid, format: 'browser-agent-settings/9' }), /^Nothing was imported: newer\.json has the format "browser-agent-settings\/9", which this version does not read/],
      ['zero.json', JSON.stringify({ ...valid, maxSteps: 0 }), /^Nothing was imported \(Max steps per task\): Max steps must be between 1 and 200, not 0\./],
      ['site.json', JSON.stringify({ ...valid, denyList: ['not a site'] }), /^Nothing was imported \(Denied sites\): A site list entry is not usable: "not a site" is neither a domain/],
      ['kind.json', JSON.stringify({ ...valid, maxSteps: 'twenty' }), /^Nothing was imported \(Max steps per task\): Max steps per task: its value "twenty" is not a whole number\.$/],
      ['choice.json', JSON.stringify({ ...valid, provider: 'mystery' }), /^Nothing was imported \(Provider\): Provider: its value "mystery" is not one of openai-compatible, openai, anthropic, gemini, azure\.$/],
    ];
    for (const [name, contents, expected] of cases) {
      const result = await importFile(page, name, contents);
      assert.equal(result.error, true, name);
      assert.match(result.text, expected, name);
      assert.equal(await page.locator('#backup-status').getAttribute('role'), 'status');
      assert.deepEqual(await storedSettings(), before, name);
      assert.equal(await page.locator('#maxSteps').inputValue(), '7', name);
      assert.equal(await page.locator('#model').inputValue(), 'scripted-model', name);
    }
  } finally {
    await page.close();
  }
});

test('the options page in light and dark themes (screenshots in tests/artifacts)', async () => {
  await setStoredSettings({
    baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-test-key', maxSteps: 25,
    secrets: [{ name: 'work_password', value: 'hunter2', domains: ['login.example.com'] }],
  });
  await mkdir(ARTIFACTS, { recursive: true });
  for (const colorScheme of ['light', 'dark']) {
    const page = await openOptions();
    try {
      await page.setViewportSize({ width: 760, height: 900 });
      await page.emulateMedia({ colorScheme });
      await page.click('#test-connection');
      const result = await finalStatus(page, '#connection-status');
      assert.equal(result.error, false);
      await page.fill('#maxSteps', '0');
      await page.click('button[type=submit]');
      await page.locator('#status.error').waitFor();
      await importFile(page, 'notes.txt', 'not json');
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(background, colorScheme === 'dark' ? 'rgb(27, 28, 31)' : 'rgb(255, 255, 255)');
      await page.screenshot({ path: join(ARTIFACTS, `options-${colorScheme}.png`), fullPage: true });
    } finally {
      await page.close();
    }
  }
});
