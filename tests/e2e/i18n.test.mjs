// Every user-facing text of the extension's pages goes through chrome.i18n: each language has
// every message, with the same substitutions; every key the pages use exists and every message
// is used; the pages' HTML holds no text of its own. The core's texts (errors, approval
// questions, warnings) are the `core_` messages, named in its Rust sources. Then the panel, the
// core's texts in it, and the settings in German.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTENSION_DIR, launchAgentBrowser, applySettings, openTarget, openPanel } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';
import { shopScript } from '../support/fixtures.mjs';

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');

const LANGUAGES = ['en', 'de'];
/** Keys the manifest uses (`__MSG_key__`). */
const MANIFEST_KEYS = /__MSG_(\w+)__/g;

async function messages(language) {
  return JSON.parse(await readFile(join(EXTENSION_DIR, '_locales', language, 'messages.json'), 'utf8'));
}

/** The extension's own scripts and pages (not the generated core). */
async function sources(dir = join(EXTENSION_DIR, 'extension')) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && !['core', 'vocab'].includes(entry.name)) found.push(...(await sources(path)));
    else if (/\.(js|html)$/.test(entry.name)) found.push({ path: relative(EXTENSION_DIR, path), text: await readFile(path, 'utf8') });
  }
  return found;
}

/** The Rust sources of the core and of its wasm shim. */
async function rustSources(dir = join(EXTENSION_DIR, 'crate')) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await rustSources(path)));
    else if (entry.name.endsWith('.rs')) found.push({ path: relative(EXTENSION_DIR, path), text: await readFile(path, 'utf8') });
  }
  return found;
}

/** The `core_` keys the core's sources name, as string literals ("core_llm_unauthorized"). */
async function coreKeys() {
  const keys = new Map();
  for (const { path, text } of await rustSources()) {
    for (const [, key] of text.matchAll(/"(core_\w+)"/g)) keys.set(key, path);
  }
  return keys;
}

/** `$1`… in a message, sorted. */
const substitutions = (message) =>
  [...new Set([...message.matchAll(/\$\$|\$[1-9]/g)].map(([found]) => found).filter((found) => found !== '$$'))].sort();

/** The keys a page or script asks for: data-i18n attributes and t('key') calls. */
function askedKeys(text) {
  const keys = [];
  for (const [, key] of text.matchAll(/data-i18n(?:-[\w-]+)?="(\w+)"/g)) keys.push(key);
  for (const [, key] of text.matchAll(/\bt\(\s*'(\w+)'/g)) keys.push(key);
  return keys;
}

/** Quoted words in a script: a key chosen by a condition (`t(done ? 'a' : 'b')`) is used too. */
const quotedWords = (text) => [...text.matchAll(/'(\w+)'/g)].map((m) => m[1]);

test('every language has every message, with the same substitutions', async () => {
  const english = await messages('en');
  for (const language of LANGUAGES.slice(1)) {
    const other = await messages(language);
    assert.deepEqual(Object.keys(other).sort(), Object.keys(english).sort(), `${language} has the same keys as en`);
    for (const [key, { message }] of Object.entries(english)) {
      assert.deepEqual(substitutions(other[key].message), substitutions(message), `${language}/${key} substitutes what en does`);
      assert.ok(other[key].message.trim(), `${language}/${key} is not empty`);
    }
  }
});

test('every key the pages and the manifest use exists, and every message is used', async () => {
  const english = await messages('en');
  const used = new Set([...(await readFile(join(EXTENSION_DIR, 'manifest.json'), 'utf8')).matchAll(MANIFEST_KEYS)].map((m) => m[1]));
  for (const { path, text } of await sources()) {
    for (const key of askedKeys(text)) {
      assert.ok(english[key], `${path} uses "${key}", which _locales/en/messages.json lacks`);
      used.add(key);
    }
    for (const word of quotedWords(text)) if (english[word]) used.add(word);
  }
  const unused = Object.keys(english).filter((key) => !used.has(key) && !key.startsWith('core_'));
  assert.deepEqual(unused, [], 'messages no page or script uses');
});

test('every core_ key the Rust core uses exists, and every core_ message is used by the core', async () => {
  const english = await messages('en');
  const used = await coreKeys();
  for (const [key, path] of used) assert.ok(english[key], `${path} uses "${key}", which _locales/en/messages.json lacks`);
  const unused = Object.keys(english).filter((key) => key.startsWith('core_') && !used.has(key));
  assert.deepEqual(unused, [], 'core_ messages the core does not use');
  assert.ok(used.size > 50, `${used.size} core_ keys found`);
});

test('the pages hold no text of their own: every text and label comes from a message', async () => {
  for (const { path, text } of await sources()) {
    if (!path.endsWith('.html')) continue;
    // Text between tags, outside scripts and styles and elements marked translate="no" (names).
    const body = text.replace(/<(script|style)\b[\s\S]*?<\/\1>/g, '').replace(/<(\w+)[^>]*translate="no"[^>]*>[\s\S]*?<\/\1>/g, '');
    for (const [, own] of body.matchAll(/>([^<]*\p{L}[^<]*)</gu)) {
      assert.fail(`${path} has its own text "${own.trim()}": give its element data-i18n="key"`);
    }
    for (const [, attribute, value] of body.matchAll(/\s(placeholder|title|aria-label|alt)="([^"]*\p{L}[^"]*)"/gu)) {
      assert.fail(`${path} has its own ${attribute} "${value}": use data-i18n-${attribute}="key"`);
    }
  }
});

/** The English texts of `prefixes`' messages that German writes differently, long enough that
 * finding one on a German page means it was left untranslated. */
async function englishOnly(prefixes) {
  const [english, german] = [await messages('en'), await messages('de')];
  return Object.entries(english)
    .filter(([key, { message }]) => prefixes.some((p) => key.startsWith(p)) && message !== german[key].message)
    .flatMap(([, { message }]) => message.split(/\$[1-9]/).map((part) => part.trim()))
    .filter((part) => part.length >= 12);
}

/** Fails on any English text of `prefixes`' messages shown on `page`. */
async function assertNoEnglish(page, prefixes) {
  const shown = await page.evaluate(() => document.body.innerText);
  for (const english of await englishOnly(prefixes)) assert.ok(!shown.includes(english), `"${english}" is shown untranslated`);
}

test('in German, the panel speaks German and the model is asked to answer in German', async () => {
  const site = await startSiteServer();
  const script = shopScript(site.origin);
  script.at(-1).actions[0].done.text = 'Der Warenkorb kostet {{Cart total: (\\$[0-9.]+)}}';
  const llm = await startLlmServer(script);
  const agent = await launchAgentBrowser({ locale: 'de-DE' });
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-test', maxSteps: 10 });
    const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
    const panel = await openPanel(agent, tabId);
    assert.equal(await panel.evaluate(() => document.documentElement.lang), 'de-DE');
    assert.equal(await panel.locator('#history-button').textContent(), 'Verlauf');
    assert.equal(await panel.locator('#send').textContent(), 'Senden');
    assert.match(await panel.locator('#task').getAttribute('placeholder'), /^Was soll der Agent tun\?/);

    await panel.fill('#task', 'Lege die blaue Tasse in den Warenkorb und nenne mir die Summe');
    await panel.press('#task', 'Enter');
    await panel.locator('.answer').waitFor({ timeout: 30_000 });
    assert.equal(await panel.locator('.answer').textContent(), 'Der Warenkorb kostet $14.50');
    assert.equal(await panel.locator('.answer-card h2').textContent(), 'Antwort');
    assert.equal(await panel.locator('.step-toggle').first().textContent(), 'Schritt 1 von 10');
    assert.ok(llm.requests[0].messages[1].content.endsWith(
      'write the final answer for the user in German, unless the task asks for another language.'));

    await assertNoEnglish(panel, ['panel_', 'setup_', 'saved_']);
    await mkdir(ARTIFACTS, { recursive: true });
    await panel.setViewportSize({ width: 420, height: 900 });
    await panel.screenshot({ path: join(ARTIFACTS, 'run-view-de.png') });
  } finally {
    await agent.close();
    await llm.close();
    await site.close();
  }
});

test('in German, the core\'s errors and approval questions are German, with the fix in the settings', async () => {
  const german = await messages('de');
  const site = await startSiteServer();
  const refusing = await startLlmServer([{ status: 401, body: { error: { message: 'Incorrect API key provided' } } }]);
  const checkout = await startLlmServer([
    { actions: [{ click_element: { target: 'Place order' } }] },
    { actions: [{ done: { text: 'Nicht bestellt.', success: true } }] },
  ]);
  const agent = await launchAgentBrowser({ locale: 'de-DE' });
  try {
    await applySettings(agent, { baseUrl: refusing.baseUrl, model: 'scripted-model', apiKey: 'sk-wrong', maxSteps: 5 });
    const { tabId } = await openTarget(agent, `${site.origin}/attacks/checkout.html`);
    const panel = await openPanel(agent, tabId);
    await panel.fill('#task', 'Bestelle den Warenkorb');
    await panel.press('#task', 'Enter');
    const error = panel.locator('.error');
    await error.waitFor({ timeout: 30_000 });
    assert.equal(await error.locator('.error-text').textContent(), german.core_llm_unauthorized.message
      .replace('$1', '401').replace('$2', 'Incorrect API key provided'));
    assert.equal(await error.locator('button.fix').textContent(), 'In den Einstellungen beheben');

    await applySettings(agent, { baseUrl: checkout.baseUrl, model: 'scripted-model', apiKey: '', maxSteps: 5, highlights: false });
    await panel.fill('#task', 'Bestelle den Warenkorb');
    await panel.press('#task', 'Enter');
    const approval = panel.locator('.approval');
    await approval.waitFor({ timeout: 30_000 });
    assert.match(await approval.locator('.question').textContent(),
      /^Der Agent möchte etwas kaufen oder bezahlen: Klick auf <button> "Place order" \[\d+\] mit der Aufschrift „place order“\. Erlauben\?$/);
    await approval.locator('button.refuse').click();
    await panel.locator('.answer').waitFor({ timeout: 30_000 });
    assert.equal(await approval.locator('.decision').textContent(), german.panel_not_allowed.message);
  } finally {
    await agent.close();
    await checkout.close();
    await refusing.close();
    await site.close();
  }
});

test('the settings page in German: its headings, labels, buttons and messages, no English left (screenshot in tests/artifacts)', async () => {
  const german = await messages('de');
  const agent = await launchAgentBrowser({ locale: 'de-DE' });
  try {
    const page = await agent.context.newPage();
    await page.goto(agent.extensionUrl('extension/options/options.html'));
    await page.locator('#fields:not([disabled])').waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de-DE');
    assert.equal(await page.title(), 'Agent-Einstellungen');
    assert.equal(await page.locator('h1').textContent(), 'Agent-Einstellungen');
    assert.equal(await page.locator('label[for=provider]').textContent(), 'Anbieter');
    assert.equal(await page.locator('label[for=apiKey]').textContent(), 'API-Schlüssel');
    assert.equal(await page.locator('#secrets > legend').textContent(), 'Geheimnisse');
    assert.equal(await page.locator('#test-connection').textContent(), 'Verbindung testen');
    assert.equal(await page.locator('button[type=submit]').textContent(), 'Speichern');
    assert.equal(await page.locator('#baseUrl').getAttribute('placeholder'), german.options_base_url_placeholder.message);
    // A secret's row and a status message, written by the script.
    await page.click('#add-secret');
    assert.equal(await page.getByLabel('Name von Geheimnis 1', { exact: true }).getAttribute('placeholder'), 'z. B. bank_pin');
    assert.equal(await page.getByRole('button', { name: 'Wert von Geheimnis 1 anzeigen' }).textContent(), 'Anzeigen');
    await page.click('#export-settings');
    // The click's handler reads the settings first (from the store, asynchronously).
    await page.locator('#backup-status:not(:empty)').waitFor();
    assert.equal(await page.locator('#backup-status').textContent(), german.options_nothing_to_export.message);

    await assertNoEnglish(page, ['options_']);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'options-de.png'), fullPage: true });
  } finally {
    await agent.close();
  }
});
