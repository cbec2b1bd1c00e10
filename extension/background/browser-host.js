// The browser host: the primitive browser operations the Rust core calls (see crate/wasm/src/host.rs).
// Failures throw an Error with a `code`: tab_closed, restricted, navigation or script.

import { loadSettings } from '../shared/settings-store.js';

const SENSOR_FILE = 'extension/page/sensor.js';
/** A frame that takes longer to answer is left out of the page map (the top frame: an error). */
const FRAME_TIMEOUT_MS = 3000;
/** Upper bound for a page load after go_to_url or a click that navigates. */
const LOAD_TIMEOUT_MS = 15000;
/** The page counts as settled after this long without DOM changes... */
const QUIET_MS = 150;
/** ...or after this long in any case. */
const SETTLE_TIMEOUT_MS = 3000;

function hostError(code, message) {
  return Object.assign(new Error(message), { code });
}

async function getTab(tabId) {
  try {
    return await chrome.tabs.get(tabId);
  } catch {
    throw hostError('tab_closed', `tab ${tabId} is closed`);
  }
}

function withTimeout(promise, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(hostError('script', message)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs `func(...args)` in one frame of the tab, with the sensor installed first. */
async function inFrame(tabId, frameId, func, args = []) {
  const target = { tabId, frameIds: [frameId] };
  try {
    await chrome.scripting.executeScript({ target, files: [SENSOR_FILE] });
    const [frame] = await chrome.scripting.executeScript({ target, func, args });
    if (frame?.error) throw new Error(String(frame.error.message ?? frame.error));
    return frame?.result;
  } catch (err) {
    const message = String(err?.message ?? err);
    if (/No tab with id/i.test(message)) throw hostError('tab_closed', message);
    if (/Cannot access|cannot be scripted|extensions gallery|chrome:\/\//i.test(message)) {
      const tab = await getTab(tabId);
      throw hostError('restricted', frameId === 0 ? (tab.url || tab.pendingUrl || 'this page') : message);
    }
    throw hostError('script', message);
  }
}

/** Collects a frame and, in parallel, the frames it shows; a child frame's failure is recorded. */
async function collectFrames(tabId, frameId, out) {
  const answer = await withTimeout(
    inFrame(tabId, frameId, () => globalThis.agentSensor.collect()),
    FRAME_TIMEOUT_MS,
    `the frame did not answer within ${FRAME_TIMEOUT_MS / 1000} s`,
  );
  out.push({ frameId, json: answer.json });
  await Promise.all(answer.frames.map((child) => collectFrames(tabId, child, out).catch((err) => {
    out.push({ frameId: child, error: err.message });
  })));
}

/** Resolves when the tab finishes loading; rejects on timeout or when the tab closes. */
function waitForLoad(tabId, alreadyLoading) {
  return new Promise((resolve, reject) => {
    const done = (fn, value) => {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(onUpdated);
      chrome.tabs.onRemoved.removeListener(onRemoved);
      fn(value);
    };
    const onUpdated = (id, change) => {
      if (id === tabId && change.status === 'complete') done(resolve);
    };
    const onRemoved = (id) => {
      if (id === tabId) done(reject, hostError('tab_closed', `tab ${tabId} was closed`));
    };
    const timer = setTimeout(
      () => done(reject, hostError('navigation', `it was still loading after ${LOAD_TIMEOUT_MS / 1000} s`)),
      LOAD_TIMEOUT_MS,
    );
    chrome.tabs.onUpdated.addListener(onUpdated);
    chrome.tabs.onRemoved.addListener(onRemoved);
    if (!alreadyLoading) {
      chrome.tabs.get(tabId).then((tab) => tab.status === 'complete' && done(resolve), () => {});
    }
  });
}

/** Waits until the page is quiet, or has navigated and finished loading. */
async function settle(tabId) {
  let outcome;
  try {
    outcome = await inFrame(tabId, 0, (quiet, max) => globalThis.agentSensor.settle(quiet, max), [QUIET_MS, SETTLE_TIMEOUT_MS]);
  } catch (err) {
    if (err.code === 'tab_closed') throw err;
    outcome = 'navigating'; // The document went away while we waited.
  }
  const tab = await getTab(tabId);
  if (outcome === 'navigating' || tab.status === 'loading') await waitForLoad(tabId, false);
}

export function createBrowserHost(emit) {
  return {
    emit,
    loadSettings,

    async activeTab() {
      const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
      return tab?.id;
    },

    async observe(tabId) {
      await getTab(tabId);
      const frames = [];
      await collectFrames(tabId, 0, frames);
      return frames;
    },

    async navigate(tabId, url) {
      await getTab(tabId);
      const loaded = waitForLoad(tabId, true);
      await chrome.tabs.update(tabId, { url });
      await loaded;
    },

    async perform(tabId, op) {
      let outcome;
      try {
        outcome = await inFrame(tabId, op.frame, (o) => globalThis.agentSensor.perform(o), [op]);
      } catch (err) {
        // The operation unloaded the document before it could answer: it did act.
        if (err.code !== 'script' || !/removed|unloaded|navigat/i.test(err.message)) throw err;
        outcome = { ok: true, message: 'the page navigated' };
      }
      if (outcome?.ok) await settle(tabId);
      return outcome;
    },
  };
}
