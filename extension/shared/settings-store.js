// Where the user's settings live, read and written by the service worker alone (the pages ask it:
// background/saved-host.js, crate/core/src/saved.rs). The credentials (the API key, and the secrets with their values)
// are kept in this extension's own IndexedDB, which only the extension's pages and worker can
// open: a content script runs in its page's origin and opens that page's databases. Everything
// else is in chrome.storage.local under `settings` (never sync), with the id of the credentials'
// record. chrome.storage.local itself is readable by this extension's content scripts, and its
// onChanged event shows them every change, unless it is closed to them (Chrome 140 and later,
// done here where the browser can); none of them uses it.
//
// Settings stored by earlier versions, with the credentials in chrome.storage.local, are moved on
// their first load: written to the database, the settings
// rewritten without them, older records deleted. Each step leaves a state that loads the same
// (the settings name a record that exists), so a worker stopped midway finishes at the next load.

import { objectStore } from './object-store.js';

const SETTINGS_KEY = 'settings';
/** In the stored settings: the id of the database record that completes them. */
const CREDENTIALS = 'credentials';
const CREDENTIAL_FIELDS = ['apiKey', 'secrets'];
const DATABASE = 'agent-credentials';
const STORE = 'credentials';
/** A Web Lock held by one context at a time while it reads or writes the settings. */
const LOCK = 'agent-settings';

// Written to disk before a transaction completes: the settings then name the record it wrote.
const transaction = objectStore(DATABASE, STORE, { durability: 'strict' });

const readRecord = (id) => transaction('readonly', (store) => store.get(id));
const recordIds = () => transaction('readonly', (store) => store.getAllKeys());
const writeRecord = (id, record) => transaction('readwrite', (store) => { store.put(record, id); });
const deleteRecords = (ids) => transaction('readwrite', (store) => { for (const id of ids) store.delete(id); });

/** chrome.storage.local closed to content scripts where the browser allows it (Chrome 140+). */
let closed = null;
function closeLocalStorage() {
  closed ??= Promise.resolve()
    .then(() => chrome.storage.local.setAccessLevel?.({ accessLevel: 'TRUSTED_CONTEXTS' }))
    .catch(() => {}); // An older browser: the credentials are out of its reach all the same.
  return closed;
}

/** Runs `work` while no other context of the extension reads or writes the settings. */
function exclusively(work) {
  return navigator.locks ? navigator.locks.request(LOCK, work) : work();
}

const hasCredentials = (settings) => CREDENTIAL_FIELDS.some((field) => field in settings);

/** Stores `settings`: their credentials in a new record, the rest naming it, then older records deleted. */
async function store(settings) {
  const { [CREDENTIALS]: _previous, ...all } = settings;
  const record = {};
  const rest = {};
  for (const [name, value] of Object.entries(all)) {
    if (value === undefined) continue;
    (CREDENTIAL_FIELDS.includes(name) ? record : rest)[name] = value;
  }
  const id = crypto.randomUUID();
  await writeRecord(id, record);
  const stored = { ...rest, [CREDENTIALS]: id };
  await chrome.storage.local.set({ [SETTINGS_KEY]: stored });
  await deleteRecords((await recordIds()).filter((other) => other !== id));
  return stored;
}

/** The stored settings with their credentials, or null when none were saved. */
export function loadSettings() {
  return exclusively(async () => {
    await closeLocalStorage();
    let stored = (await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] ?? null;
    if (!stored) return null;
    // Credentials in chrome.storage.local: an earlier version's settings, or a move not finished.
    if (hasCredentials(stored)) stored = await store(stored);
    const { [CREDENTIALS]: id, ...settings } = stored;
    const record = id ? await readRecord(id) : undefined;
    if (id && !record) console.warn('The API key and the secrets of the settings are missing: enter them again in the settings.');
    return { ...settings, ...(record ?? {}) };
  });
}

/** Stores `settings` in place of the stored ones (the credentials with them). */
export function saveSettings(settings) {
  return exclusively(async () => {
    await closeLocalStorage();
    await store(settings);
  });
}
