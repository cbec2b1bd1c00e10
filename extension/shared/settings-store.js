// Where the user's settings live: chrome.storage.local only (never sync: it holds the API key).

const SETTINGS_KEY = 'settings';

export async function loadSettings() {
  const stored = await chrome.storage.local.get(SETTINGS_KEY);
  return stored[SETTINGS_KEY] ?? null;
}

export async function saveSettings(settings) {
  await chrome.storage.local.set({ [SETTINGS_KEY]: settings });
}
