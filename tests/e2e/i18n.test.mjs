// Every user-facing text of the extension's pages goes through chrome.i18n: each language has
// every message, with the same substitutions; every key the pages use exists and every message
// is used; the pages' HTML holds no text of its own. Then the panel in German, in the browser.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { EXTENSION_DIR } from '../../runner/launch.mjs';

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

/** `$1`… in a message, sorted. */
const substitutions = (message) => [...new Set(message.match(/(?<!\$)\$[1-9]/g) ?? [])].sort();

/** The keys a page or script uses: data-i18n attributes and t('key') calls. */
function usedKeys(text) {
  const keys = [];
  for (const [, key] of text.matchAll(/data-i18n(?:-[\w-]+)?="(\w+)"/g)) keys.push(key);
  for (const [, key] of text.matchAll(/\bt\(\s*'(\w+)'/g)) keys.push(key);
  return keys;
}

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
    for (const key of usedKeys(text)) {
      assert.ok(english[key], `${path} uses "${key}", which _locales/en/messages.json lacks`);
      used.add(key);
    }
  }
  const unused = Object.keys(english).filter((key) => !used.has(key));
  assert.deepEqual(unused, [], 'messages no page or script uses');
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
