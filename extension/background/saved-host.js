// The user's saved things in the extension's storage, as the core reads and writes them
// (crate/core/src/saved.rs): the settings through settings-store.js (their credentials apart),
// the rest in chrome.storage.local under the core's names. Only the worker writes them; after a
// write, `afterWrite(key)` does what follows from the change.

import { loadSettings, saveSettings } from '../shared/settings-store.js';

export function createSavedHost(afterWrite) {
  return {
    /** The thing stored under `key`, or null. */
    async readSaved(key) {
      if (key === 'settings') return loadSettings();
      return (await chrome.storage.local.get(key))[key] ?? null;
    },

    async writeSaved(key, value) {
      if (key === 'settings') await saveSettings(value);
      else await chrome.storage.local.set({ [key]: value });
      await afterWrite(key);
    },
  };
}
