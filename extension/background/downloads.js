// The files a task downloads (chrome.downloads): which downloads are the task's, and their bytes,
// held with task-files.js for the core to read (Browser::downloads in crate/core/src/browser).
//
// A download is the task's when it started after the task did and came from one of its tabs:
// - its address was asked for by one of the task's tabs (a link or an address that turned out to
//   be a file: a top-level navigation of that tab, seen by webRequest), or
// - the page it came from (its referrer, else a blob: address's own origin) is of the site one of
//   the task's tabs shows, and no other tab asked for its address.
// A download the user starts in another tab is not the task's. Chrome does not say which tab a
// download came from, hence these signs.
//
// Its bytes are asked for again, as the download was: http(s) addresses from this worker with the
// browser's cookies, blob: addresses in the page that made them (they live only there, and only
// while the page keeps them), data: addresses decoded here. A file fetched with POST (a form
// sent) cannot be asked for again and is listed without its bytes.

import { heldFile, holdFile, releaseFilesWhere } from './task-files.js';

/** How long a download under way is waited for before this call gives up on it (a later call
 * takes it up once finished). */
const FINISH_TIMEOUT_MS = 20_000;
/** The top-level addresses each tab asked for, newest last, this many at most. */
const REMEMBERED_PER_TAB = 30;

/** tabId -> [{url, method}]: what each tab's top frame asked for. */
const asked = new Map();
/** Downloads already waited for once: a later call only looks whether they have ended. */
const waitedFor = new Set();

/** Notes each tab's top-level requests; called once, when the worker starts. */
export function watchTabRequests() {
  chrome.webRequest.onBeforeRequest.addListener((details) => {
    if (details.tabId < 0) return;
    const list = asked.get(details.tabId) ?? [];
    list.push({ url: details.url, method: details.method });
    if (list.length > REMEMBERED_PER_TAB) list.shift();
    asked.set(details.tabId, list);
  }, { urls: ['<all_urls>'], types: ['main_frame', 'sub_frame'] });
  chrome.tabs.onRemoved.addListener((tabId) => {
    // Kept a little: Chrome closes a tab it opened only for a download before it is looked at.
    setTimeout(() => asked.delete(tabId), FINISH_TIMEOUT_MS);
  });
}

const originOf = (url) => {
  try {
    const parsed = new URL(url.startsWith('blob:') ? url.slice(5) : url);
    return parsed.origin === 'null' ? null : parsed.origin;
  } catch {
    return null;
  }
};

/** The tab of `tabIds` the download came from, or undefined when it is not theirs. */
function taskTabOf(item, tabIds, tabUrls) {
  const addresses = [item.url, item.finalUrl].filter(Boolean);
  const askedBy = (tabId) => (asked.get(tabId) ?? []).some((request) => addresses.includes(request.url));
  const byRequest = tabIds.find(askedBy);
  if (byRequest !== undefined) return byRequest;
  if ([...asked.keys()].some((tabId) => !tabIds.includes(tabId) && askedBy(tabId))) return undefined;
  const from = originOf(item.referrer || '') ?? originOf(item.url);
  return from ? tabIds.find((tabId) => originOf(tabUrls.get(tabId) ?? '') === from) : undefined;
}

/** The download once it has ended (complete or interrupted), or null if it is still under way
 * after `timeoutMs`. */
function ended(id, timeoutMs) {
  return new Promise((resolve) => {
    const done = (item) => {
      clearTimeout(timer);
      chrome.downloads.onChanged.removeListener(onChanged);
      resolve(item);
    };
    const check = async () => {
      const [item] = await chrome.downloads.search({ id });
      if (!item || item.state !== 'in_progress') done(item ?? null);
    };
    const onChanged = (delta) => delta.id === id && delta.state && check();
    const timer = timeoutMs > 0 ? setTimeout(() => done(null), timeoutMs) : null;
    chrome.downloads.onChanged.addListener(onChanged);
    check().then(() => timer === null && done(null));
  });
}

const baseName = (path) => path.split(/[\\/]/).pop();

/** The file's name from a Content-Disposition header, if it gives one. */
function dispositionName(disposition) {
  if (!disposition) return null;
  const encoded = disposition.match(/filename\*\s*=\s*[^']*'[^']*'([^;]+)/i);
  if (encoded) {
    try { return decodeURIComponent(encoded[1].trim()); } catch { /* the plain name below */ }
  }
  return disposition.match(/filename\s*=\s*"([^"]+)"|filename\s*=\s*([^;]+)/i)?.slice(1).find(Boolean)?.trim() ?? null;
}

class Unread extends Error {}

/** Reads a blob: address in a frame of the tab that made it: a data: URL of its bytes, or why not. */
async function readBlobInPage(tabId, url, maxBytes) {
  const [{ result } = {}] = await chrome.scripting.executeScript({
    target: { tabId, allFrames: true },
    injectImmediately: true,
    args: [url, maxBytes],
    func: async (address, max) => {
      if (!address.startsWith(`blob:${location.origin}/`)) return null;
      try {
        const blob = await (await fetch(address)).blob();
        if (blob.size > max) return { size: blob.size };
        return await new Promise((resolve, reject) => {
          const reader = new FileReader();
          reader.onload = () => resolve({ size: blob.size, data: reader.result });
          reader.onerror = () => reject(reader.error);
          reader.readAsDataURL(blob);
        });
      } catch (err) {
        return { problem: `the page no longer has it (${err.message})` };
      }
    },
  }).then((results) => results.filter((frame) => frame.result)).catch(() => []);
  if (!result) throw new Unread('the page that made it is gone');
  if (result.problem) throw new Unread(result.problem);
  if (!result.data) return { size: result.size, bytes: null };
  return { size: result.size, bytes: new Uint8Array(await (await fetch(result.data)).arrayBuffer()) };
}

/** The download's bytes asked for again (null when larger than `maxBytes`), its size, and the
 * name the server gives it. Throws Unread when they cannot be had. */
async function fetchBytes(item, tabId, maxBytes) {
  const url = item.finalUrl || item.url;
  if (url.startsWith('blob:')) return readBlobInPage(tabId, url, maxBytes);
  const request = (asked.get(tabId) ?? []).findLast((seen) => seen.url === url || seen.url === item.url);
  if (request && request.method !== 'GET') throw new Unread(`it came of a form sent with ${request.method}, which is not sent again`);
  let response;
  try {
    response = await fetch(url, { credentials: 'include' });
  } catch (err) {
    throw new Unread(`asking for it again failed (${err.message})`);
  }
  if (!response.ok) throw new Unread(`the server answered ${response.status} when it was asked for again`);
  const name = dispositionName(response.headers.get('content-disposition'));
  const length = Number(response.headers.get('content-length'));
  if (length > maxBytes) {
    response.body?.cancel();
    return { size: length, bytes: null, name };
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { size: bytes.length, bytes: bytes.length > maxBytes ? null : bytes, name };
}

/** Holds what can be had of a download under `download-<id>`: its bytes once it is complete,
 * unless it is larger than `maxBytes` (held without them, finished or not); the core's Download. */
async function hold(item, tabId, maxBytes) {
  const handle = `download-${item.id}`;
  const known = item.fileSize > 0 ? item.fileSize : item.totalBytes;
  let fetched = { size: known, bytes: null, name: null };
  let unread = null;
  if (item.state === 'interrupted') {
    unread = `the browser's download failed (${item.error ?? 'interrupted'})`;
  } else if (!(known > maxBytes)) {
    try {
      fetched = await fetchBytes(item, tabId, maxBytes);
    } catch (err) {
      if (!(err instanceof Unread)) throw err;
      unread = err.message;
    }
  }
  const size = known > 0 ? known : fetched.size ?? 0;
  const name = fetched.name || baseName(item.filename) || baseName(new URL(item.finalUrl || item.url).pathname) || 'download';
  const mime = item.mime || '';
  await holdFile({ name, mime, bytes: fetched.bytes, unread, downloadId: item.id, tabId }, handle);
  return { name, mime, size, handle, unread, downloadId: item.id };
}

/**
 * The downloads of tabs `tabIds` that started at or after `sinceMs` and were not reported before
 * (the Download list of crate/core/src/browser), each once ended; one still under way after
 * FINISH_TIMEOUT_MS is left for a later call, which does not wait for it again. One known to be
 * larger than `maxBytes` is reported at once, without its bytes.
 */
export async function taskDownloads(tabIds, sinceMs, maxBytes) {
  const items = await chrome.downloads.search({ startedAfter: new Date(sinceMs - 1).toISOString() });
  const tabUrls = new Map();
  for (const tabId of tabIds) {
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    if (tab) tabUrls.set(tabId, tab.url);
  }
  const reported = [];
  for (const found of items.sort((a, b) => a.id - b.id)) {
    const tabId = taskTabOf(found, tabIds, tabUrls);
    if (tabId === undefined || (await heldFile(`download-${found.id}`))) continue;
    const tooLarge = found.totalBytes > maxBytes;
    const item = tooLarge ? found : await ended(found.id, waitedFor.has(found.id) ? 0 : FINISH_TIMEOUT_MS);
    waitedFor.add(found.id);
    if (item) reported.push(await hold(item, tabId, maxBytes));
  }
  return reported;
}

/** Lets go of the bytes of the downloads of these tabs, whose task is over (the files stay where
 * the browser saved them: the panel shows them from there). */
export function releaseDownloads(tabIds) {
  return releaseFilesWhere((file) => file.downloadId !== undefined && tabIds.includes(file.tabId));
}

/** The bytes of the file tab `tabId` shows in the browser's own viewer (a PDF), asked for again
 * with the browser's cookies; throws why not. */
export async function shownFileBytes(tabId, maxBytes) {
  const { url } = await chrome.tabs.get(tabId);
  const tooLarge = () => new Error(`it is larger than the ${maxBytes / (1024 * 1024)} MB the agent reads`);
  const response = await fetch(url, { credentials: 'include' });
  if (!response.ok) throw new Error(`the server answered ${response.status} when it was asked for again`);
  if (Number(response.headers.get('content-length')) > maxBytes) {
    response.body?.cancel();
    throw tooLarge();
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > maxBytes) throw tooLarge();
  return bytes;
}
