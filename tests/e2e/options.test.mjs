// The options page in headless Chromium: testing the provider connection with the form's unsaved
// values, the secrets editor (values masked, never in the page's text), exporting the settings
// without secrets and importing them back, and how the page looks in light and dark themes.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchAgentBrowser, storedSettings as loadStoredSettings } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { closedPort, waitUntil } from '../support/fixtures.mjs';

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


/** The settings as the extension reads them back (the key and the secrets are kept apart). */
const storedSettings = () => loadStoredSettings(agent);

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

/** Adds a secret through the editor as a user does: Add secret, then its name, value and sites. */
async function addSecret(page, { name, value, sites }) {
  await page.click('#add-secret');
  const n = await page.locator('.secret-row').count();
  await page.getByLabel(`Name of secret ${n}`, { exact: true }).fill(name);
  await page.getByLabel(`Value of secret ${n}`, { exact: true }).fill(value);
  await page.getByLabel(`Sites for secret ${n}`, { exact: true }).fill(sites);
}

/** Whether `text` is anywhere in the page's text or markup (attributes included; an input's value property is not markup). */
const pageShows = (page, text) => page.evaluate((t) => document.body.innerText.includes(t) || document.documentElement.outerHTML.includes(t), text);

/** The id of the focused element. */
const focusedId = (page) => page.evaluate(() => document.activeElement?.id ?? '');

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

test('the secrets editor: values masked and never in the page, Show, Remove, and the core judges them', async () => {
  await setStoredSettings({ baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 25 });
  let page = await openOptions();
  try {
    assert.equal(await page.locator('.secret-row').count(), 0);
    assert.equal(await page.locator('#secrets-empty').isVisible(), true);
    assert.equal(await page.locator('#secrets > legend').textContent(), 'Secrets');

    // From the keyboard: Add secret, then name, value, Show, sites and Remove in tab order.
    await page.focus('#add-secret');
    await page.keyboard.press('Enter');
    const first = {
      name: page.getByLabel('Name of secret 1', { exact: true }),
      value: page.getByLabel('Value of secret 1', { exact: true }),
      sites: page.getByLabel('Sites for secret 1', { exact: true }),
    };
    assert.equal(await focusedId(page), await first.name.getAttribute('id'));
    await page.keyboard.type('work_password');
    await page.keyboard.press('Tab');
    assert.equal(await focusedId(page), await first.value.getAttribute('id'));
    await page.keyboard.type('hunter2-secret');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Show value of secret 1');
    await page.keyboard.press('Tab');
    assert.equal(await focusedId(page), await first.sites.getAttribute('id'));
    await page.keyboard.type('login.example.com sso.example.com'); // Space-separated sites.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Remove secret 1');
    assert.equal(await page.locator('#secrets-empty').isVisible(), false);

    await addSecret(page, { name: 'pin', value: 'pin-4321', sites: 'bank.example,' });
    // A row left empty is no secret.
    await page.click('#add-secret');
    await page.click('button[type=submit]');
    await waitUntil(async () => (await page.locator('#status').textContent()) === 'Saved.');
    assert.deepEqual((await storedSettings()).secrets, [
      { name: 'work_password', value: 'hunter2-secret', domains: ['login.example.com', 'sso.example.com'] },
      { name: 'pin', value: 'pin-4321', domains: ['bank.example'] },
    ]);
    await page.close();

    // Reopened: both secrets, their values in password fields only, in no text and no attribute.
    page = await openOptions();
    assert.equal(await page.locator('.secret-row').count(), 2);
    const values = [1, 2].map((n) => page.getByLabel(`Value of secret ${n}`, { exact: true }));
    for (const value of values) assert.equal(await value.getAttribute('type'), 'password');
    assert.equal(await values[0].inputValue(), 'hunter2-secret');
    assert.equal(await values[1].inputValue(), 'pin-4321');
    assert.equal(await page.getByLabel('Sites for secret 1', { exact: true }).inputValue(), 'login.example.com, sso.example.com');
    assert.equal(await page.evaluate(() => document.body.innerText.includes('hunter2-secret') || document.body.innerText.includes('pin-4321')), false);
    assert.equal(await pageShows(page, 'hunter2-secret'), false);
    assert.equal(await pageShows(page, 'pin-4321'), false);

    // Show reveals that one value only, and hides it again.
    const showPin = page.getByRole('button', { name: 'Show value of secret 2' });
    assert.equal(await showPin.getAttribute('aria-pressed'), 'false');
    await showPin.click();
    assert.equal(await showPin.getAttribute('aria-pressed'), 'true');
    assert.equal(await values[1].getAttribute('type'), 'text');
    assert.equal(await values[0].getAttribute('type'), 'password');
    assert.equal(await page.evaluate(() => document.documentElement.outerHTML.includes('pin-4321')), false);
    await showPin.press('Space');
    assert.equal(await showPin.getAttribute('aria-pressed'), 'false');
    assert.equal(await values[1].getAttribute('type'), 'password');

    // Remove takes the first one away; the focus goes to the row that takes its place.
    await page.getByRole('button', { name: 'Remove secret 1' }).click();
    assert.equal(await page.locator('.secret-row').count(), 1);
    const pinName = page.getByLabel('Name of secret 1', { exact: true });
    assert.equal(await pinName.inputValue(), 'pin');
    assert.equal(await focusedId(page), await pinName.getAttribute('id'));
    await page.click('button[type=submit]');
    await waitUntil(async () => (await page.locator('#status').textContent()) === 'Saved.');
    assert.deepEqual((await storedSettings()).secrets, [{ name: 'pin', value: 'pin-4321', domains: ['bank.example'] }]);

    // A secret without a name: the core's message, the section and the name marked, nothing saved.
    await addSecret(page, { name: '', value: 'orphan-value', sites: 'example.com' });
    await page.click('button[type=submit]');
    await page.locator('#status.error').waitFor();
    assert.equal(await page.locator('#status').textContent(), 'A secret is not usable: the secret name "" may only use letters, digits, _ - and .. Correct it in the settings.');
    assert.equal(await page.locator('#secrets').evaluate((box) => box.classList.contains('invalid')), true);
    const orphanName = page.getByLabel('Name of secret 2', { exact: true });
    assert.equal(await orphanName.getAttribute('aria-invalid'), 'true');
    assert.equal(await focusedId(page), await orphanName.getAttribute('id'));
    assert.equal(await page.getByLabel('Name of secret 1', { exact: true }).getAttribute('aria-invalid'), null);
    assert.equal(await pageShows(page, 'orphan-value'), false);

    // A name without a value: the value is marked.
    await orphanName.fill('orphan');
    await page.getByLabel('Value of secret 2', { exact: true }).fill('');
    await page.click('button[type=submit]');
    await waitUntil(async () => (await page.locator('#status').textContent()).includes('the secret "orphan" has no value'));
    assert.equal(await orphanName.getAttribute('aria-invalid'), null);
    assert.equal(await page.getByLabel('Value of secret 2', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.deepEqual((await storedSettings()).secrets, [{ name: 'pin', value: 'pin-4321', domains: ['bank.example'] }]);

    // Corrected, it saves and the marks go.
    await page.getByLabel('Value of secret 2', { exact: true }).fill('orphan-value');
    await page.click('button[type=submit]');
    await waitUntil(async () => (await page.locator('#status').textContent()) === 'Saved.');
    assert.equal(await page.locator('#secrets').evaluate((box) => box.classList.contains('invalid')), false);
    assert.equal(await page.locator('#secrets [aria-invalid]').count(), 0);
    assert.deepEqual((await storedSettings()).secrets, [
      { name: 'pin', value: 'pin-4321', domains: ['bank.example'] },
      { name: 'orphan', value: 'orphan-value', domains: ['example.com'] },
    ]);
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
    await addSecret(page, { name: 'work_password', value: 'hunter2-secret', sites: 'login.example.com, sso.example.com' });
    await addSecret(page, { name: 'pin', value: '9876', sites: 'bank.example' });
    await page.fill('#prices', 'scripted-model | 1 | 2');
    await page.click('button[type=submit]');
    await waitUntil(async () => (await page.locator('#status').textContent()) === 'Saved.');
    await agent.worker.evaluate(() => chrome.storage.local.set({ savedTasks: ['find the opening hours of {shop}'] }));

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
    // The secrets section is marked, and the missing value is marked and focused (the known one is kept).
    assert.equal(await page.locator('#secrets').evaluate((box) => box.classList.contains('invalid')), true);
    const pinValue = page.getByLabel('Value of secret 2', { exact: true });
    assert.equal(await pinValue.getAttribute('aria-invalid'), 'true');
    assert.equal(await pinValue.inputValue(), '');
    assert.equal(await focusedId(page), await pinValue.getAttribute('id'));
    assert.equal(await page.getByLabel('Name of secret 2', { exact: true }).inputValue(), 'pin');
    assert.equal(await page.getByLabel('Value of secret 1', { exact: true }).inputValue(), 'kept-password');
    assert.equal(await page.getByLabel('Value of secret 1', { exact: true }).getAttribute('aria-invalid'), null);
    assert.equal(await pageShows(page, 'kept-password'), false);
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
      if (!['format', 'secrets', 'savedTasks'].includes(name)) assert.deepEqual(stored[name], value, name);
    }
    // The saved tasks travel with the settings, stored apart from them.
    assert.deepEqual(exported.savedTasks, ['find the opening hours of {shop}']);
    assert.deepEqual((await agent.worker.evaluate(() => chrome.storage.local.get('savedTasks'))).savedTasks, exported.savedTasks);
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
      ['choice.json', JSON.stringify({ ...valid, provider: 'mystery' }), /^Nothing was imported \(Provider\): Provider: its value "mystery" is not one of openai-compatible, openai, anthropic, gemini, azure, chrome-built-in\.$/],
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
      // A stored secret and one typed in: both masked, neither value anywhere in the page.
      await addSecret(page, { name: 'pin', value: 'pin-4321', sites: 'bank.example' });
      for (const value of ['hunter2', 'pin-4321']) assert.equal(await pageShows(page, value), false, value);
      assert.deepEqual(await page.locator('.secret-value').evaluateAll((inputs) => inputs.map((i) => i.type)), ['password', 'password']);
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
