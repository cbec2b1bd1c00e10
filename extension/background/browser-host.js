// The browser host: the primitive browser operations the Rust core calls (see crate/wasm/src/host.rs).
// Failures throw an Error with a `code`: tab_closed, restricted, navigation or script.

import { loadSettings } from '../shared/settings-store.js';
import { heldFile } from './task-files.js';
import { releaseDownloads, shownFileBytes, taskDownloads } from './downloads.js';
import { releaseFilms } from './film.js';
import { duringDrag } from './trusted-drags.js';

const SENSOR_FILE = 'extension/page/sensor.js';
// Every injection uses injectImmediately: waiting for document_idle would stall on frames that
// never finish loading (blocked ads, broken embeds), and the sensor needs no idle document.
/** A frame that takes longer to answer is left out of the page map (the top frame: an error). */
const FRAME_TIMEOUT_MS = 3000;
/** Chrome's limit on captureVisibleTab is two calls a second. */
const CAPTURE_INTERVAL_MS = 550;
let lastCapture = 0;
/** Going back or forward that has not started by then had nowhere to go. */
const HISTORY_TIMEOUT_MS = 5000;
/** Upper bound for a page load after go_to_url or a click that navigates. */
const LOAD_TIMEOUT_MS = 15000;
/** The page counts as settled after this long without DOM changes (unless the core asks for
 * another quiet time)... */
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

/** The error a failed script injection into the tab means (see hostError). */
async function scriptError(tabId, frameId, err) {
  const message = String(err?.message ?? err);
  if (/No tab with id/i.test(message)) return hostError('tab_closed', message);
  if (/showing error page/i.test(message)) return hostError('navigation', 'the tab shows the browser\'s error page');
  if (/Cannot access|cannot be scripted|extensions gallery|chrome:\/\//i.test(message)) {
    const tab = await getTab(tabId);
    return hostError('restricted', frameId === 0 ? (tab.url || tab.pendingUrl || '') : message);
  }
  return hostError('script', message);
}

/** The sensor's `method(...args)`, in the page, as `{ value }`; null where the sensor is not there yet. */
async function callSensor(method, args) {
  const sensor = globalThis.agentSensor;
  return sensor ? { value: await sensor[method](...args) } : null;
}

/** Calls the sensor's `method(...args)` in one frame of the tab, installing the sensor only
 * where it is missing (one round trip where it is there). */
async function inFrame(tabId, frameId, method, args = []) {
  const target = { tabId, frameIds: [frameId] };
  const call = async () => {
    const [frame] = await chrome.scripting.executeScript({ target, func: callSensor, args: [method, args], injectImmediately: true });
    if (frame?.error) throw new Error(String(frame.error.message ?? frame.error));
    return frame?.result;
  };
  try {
    let answer = await call();
    if (answer === null) {
      await chrome.scripting.executeScript({ target, files: [SENSOR_FILE], injectImmediately: true });
      answer = await call();
    }
    return answer?.value;
  } catch (err) {
    throw await scriptError(tabId, frameId, err);
  }
}

/** One frame's record as JSON text and how long reading took, once it has told its child frames
 * who their parent is and learnt where it is shown itself; `{ unchanged: doc }` if the frame's
 * document is one of `docs` (read before) and has not changed since; null where the sensor is not
 * there yet. */
async function readFrame(docs) {
  const sensor = globalThis.agentSensor;
  if (!sensor) return null;
  const unchanged = sensor.unchangedDoc(docs);
  if (unchanged) return { unchanged };
  sensor.announce();
  await sensor.placed(250);
  const started = performance.now();
  const json = sensor.collect();
  return { json, collectMs: performance.now() - started, doc: sensor.doc };
}

/** Reads the frames of `target`, injecting the sensor where it is missing: one round trip for
 * the whole tab once the sensor is everywhere (frames are read side by side). */
async function readFrames(tabId, target, docs) {
  const run = async (injection) => {
    try {
      return await withTimeout(chrome.scripting.executeScript({ ...injection, injectImmediately: true }), FRAME_TIMEOUT_MS,
        `a frame did not answer within ${FRAME_TIMEOUT_MS / 1000} s`);
    } catch (err) {
      throw err.code ? err : await scriptError(tabId, 0, err);
    }
  };
  const first = await run({ target, func: readFrame, args: [docs] });
  const missing = first.filter((frame) => frame.result === null).map((frame) => frame.frameId);
  if (!missing.length) return first;
  const rest = { tabId, frameIds: missing };
  await run({ target: rest, files: [SENSOR_FILE] });
  return [...first.filter((frame) => frame.result !== null), ...await run({ target: rest, func: readFrame, args: [[]] })];
}

/** Per tab, the last record of each document read there (by document id): a frame that has not
 * changed since answers with its id, and its record is used again. */
const lastRecords = new Map();
chrome.tabs.onRemoved.addListener((tabId) => lastRecords.delete(tabId));

/** Each frame's record as JSON text, or why it could not be read; the top frame must answer.
 * When the frames cannot all be read together (one hangs), only the top frame is. */
async function collectFrames(tabId) {
  const known = lastRecords.get(tabId) ?? new Map();
  const docs = [...known.keys()];
  let results;
  let note = null;
  try {
    results = await readFrames(tabId, { tabId, allFrames: true }, docs);
  } catch (err) {
    if (err.code === 'tab_closed') throw err;
    note = `frames were left out: ${err.message}`;
    results = await readFrames(tabId, { tabId, frameIds: [0] }, docs);
  }
  const read = new Map();
  const frames = results.map(({ frameId, result, error }) => {
    if (!result) return { frameId, error: String(error?.message ?? error ?? 'the frame did not answer') };
    const record = result.unchanged ? { json: known.get(result.unchanged), collectMs: 0, doc: result.unchanged } : result;
    read.set(record.doc, record.json);
    return { frameId, json: record.json, collectMs: record.collectMs, reused: Boolean(result.unchanged) };
  });
  lastRecords.set(tabId, read);
  const top = frames.find((frame) => frame.frameId === 0);
  if (!top || top.error) throw hostError('script', top?.error ?? 'the page\'s top frame did not answer');
  if (note) frames.push({ frameId: -1, error: note });
  return frames;
}

/** Resolves when the tab finishes loading, or when `until` resolves (a navigation that ended
 * without a page: no load will finish); rejects on timeout or when the tab closes. */
function waitForLoad(tabId, alreadyLoading, until = null) {
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
    until?.then(() => done(resolve));
    if (!alreadyLoading) {
      chrome.tabs.get(tabId).then((tab) => tab.status === 'complete' && done(resolve), () => {});
    }
  });
}

/** The browser's code for a navigation that ended without a page of its own. */
const ABORTED = 'net::ERR_ABORTED';
/** How long Chrome may take to close a tab it opened only for what became a download. */
const DOWNLOAD_TAB_CLOSE_MS = 1000;

/**
 * Watches the next top-frame navigation of a tab, from before it starts, and reports the facts
 * as `Navigation` in crate/core/src/browser.rs has them (the core decides what they mean): the
 * tab's address once it ended, whether a new document took the tab (webNavigation.onCommitted),
 * the last response's status and Content-Disposition (webRequest.onHeadersReceived; none for a
 * page from the back-forward cache), and the top frame's network error
 * (webNavigation.onErrorOccurred). `ended` resolves if the navigation ends without a page
 * (net::ERR_ABORTED before any commit: a download, a response with nothing to show, a cancelled
 * navigation), as then no load will finish. The tab may be named later, with `follow(id)`, for a
 * tab being created: until then events are kept for every tab.
 */
function watchNavigation(tabId = null) {
  let watched = tabId;
  const byTab = new Map();
  const factsOf = (id) => {
    if (!byTab.has(id)) {
      byTab.set(id, { url: '', committed: false, status: null, error: null, disposition: null, started: false });
    }
    return byTab.get(id);
  };
  let endWithoutPage;
  const ended = new Promise((resolve) => { endWithoutPage = resolve; });
  const endedWithoutPage = () => {
    const facts = byTab.get(watched);
    return Boolean(facts && !facts.committed && facts.error === ABORTED);
  };
  const check = () => endedWithoutPage() && endWithoutPage();
  const onHeaders = (details) => {
    if (details.frameId !== 0 || details.tabId < 0) return;
    const disposition = details.responseHeaders?.find((header) => header.name.toLowerCase() === 'content-disposition');
    Object.assign(factsOf(details.tabId), { url: details.url, status: details.statusCode, disposition: disposition?.value ?? null });
  };
  const onStart = (details) => {
    if (details.frameId === 0) factsOf(details.tabId).started = true;
  };
  const onCommitted = (details) => {
    if (details.frameId === 0) Object.assign(factsOf(details.tabId), { url: details.url, committed: true });
  };
  const onError = (details) => {
    if (details.frameId !== 0) return;
    const facts = factsOf(details.tabId);
    // Only this navigation's (a navigation it cut short ends before it starts), and the first:
    // Chrome may try an error page's address again by itself.
    if (!facts.started || facts.error) return;
    facts.error = details.error;
    facts.url ||= details.url;
    if (details.tabId === watched) check();
  };
  const listening = [
    [chrome.webNavigation.onBeforeNavigate, onStart],
    [chrome.webNavigation.onCommitted, onCommitted],
    [chrome.webNavigation.onErrorOccurred, onError],
  ];
  chrome.webRequest.onHeadersReceived.addListener(onHeaders, { urls: ['<all_urls>'], types: ['main_frame'] }, ['responseHeaders']);
  for (const [event, listener] of listening) event.addListener(listener);
  return {
    ended,
    endedWithoutPage,
    follow(id) {
      watched = id;
      check();
    },
    /** What was seen, with the tab's address as it now is (if the tab is still open). */
    async report() {
      const { started, ...facts } = factsOf(watched);
      const tab = await chrome.tabs.get(watched).catch(() => null);
      return { ...facts, url: tab?.url || facts.url };
    },
    stop() {
      chrome.webRequest.onHeadersReceived.removeListener(onHeaders);
      for (const [event, listener] of listening) event.removeListener(listener);
    },
  };
}

/** Runs `start`, which navigates tab `tabId`, and waits for the page (bounded) or for the
 * navigation to end without one; resolves to what came of it (see watchNavigation). */
async function followNavigation(tabId, start) {
  const watch = watchNavigation(tabId);
  try {
    const loaded = waitForLoad(tabId, true, watch.ended);
    loaded.catch(() => {}); // Awaited below, once the navigation is under way.
    await start();
    await loaded;
    return await watch.report();
  } finally {
    watch.stop();
  }
}

/** Resolves once tab `tabId` is closed, or after `ms`. */
function closedWithin(tabId, ms) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      chrome.tabs.onRemoved.removeListener(onRemoved);
      resolve();
    };
    const onRemoved = (id) => id === tabId && done();
    const timer = setTimeout(done, ms);
    chrome.tabs.onRemoved.addListener(onRemoved);
    chrome.tabs.get(tabId).catch(done);
  });
}

/** Resolves true when the tab starts loading a page, false after `timeoutMs` without one. */
function waitForNavigationStart(tabId, timeoutMs) {
  return new Promise((resolve) => {
    const done = (started) => {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(onUpdated);
      resolve(started);
    };
    const onUpdated = (id, change) => {
      if (id === tabId && (change.status === 'loading' || change.url)) done(true);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    chrome.tabs.onUpdated.addListener(onUpdated);
  });
}

/** Waits until the page is quiet for `quietMs`, or has navigated and finished loading. */
async function settle(tabId, quietMs = QUIET_MS) {
  let outcome;
  try {
    outcome = await inFrame(tabId, 0, 'settle', [quietMs, SETTLE_TIMEOUT_MS]);
  } catch (err) {
    if (err.code === 'tab_closed') throw err;
    outcome = 'navigating'; // The document went away while we waited.
  }
  const tab = await getTab(tabId);
  if (outcome === 'navigating' || tab.status === 'loading') await waitForLoad(tabId, false);
}

/** Notes tabs opened from `tabId` (a link with target=_blank, window.open) until stopped: by the
 * navigation that names its source, as a tab's opener may be another (the active tab). */
function watchOpenedTabs(tabId) {
  const opened = [];
  const onTarget = (details) => {
    if (details.sourceTabId === tabId && !opened.includes(details.tabId)) opened.push(details.tabId);
  };
  chrome.webNavigation.onCreatedNavigationTarget.addListener(onTarget);
  return { first: () => opened[0], stop: () => chrome.webNavigation.onCreatedNavigationTarget.removeListener(onTarget) };
}

/**
 * Runs `act`, an operation on `tabId` that resolves to its outcome. A tab the operation opened is
 * waited for and named in the outcome as `openedTab`. A tab a synthetic click asked for
 * (`newTabUrl`: it cannot open one itself) is left to the core, which checks where it leads
 * before opening it.
 */
async function followingOpenedTab(tabId, act) {
  const opened = watchOpenedTabs(tabId);
  try {
    const outcome = await act();
    const openedTab = opened.first();
    if (openedTab === undefined) return outcome;
    await waitForLoad(openedTab, false).catch(() => {});
    return { ...outcome, openedTab };
  } finally {
    opened.stop();
  }
}

/** Above the site policy's rules (an allow list's are 2 and 3). */
const HOLD_PRIORITY = 100;

/**
 * Runs `act`, trusted input on `tabId`, with new tabs held: a tab Chrome opens itself (a real
 * click on a target=_blank link, a page's window.open) would load its page before the core could
 * check where it leads, so while the input runs no tab that did not exist before loads a page (a
 * session rule). A tab the input opened is closed again and its address handed to the core as
 * `newTabUrl`, as a synthetic click's is: the core checks it, then opens it. Your own new tabs are
 * held only while trusted input runs (a click and the settling after it).
 */
async function holdingNewTabs(tabId, act) {
  const existing = (await chrome.tabs.query({})).map((tab) => tab.id);
  // Where each new tab was to go; which the task's tab opened (a link's target=_blank leaves no
  // opener on the tab, but the navigation names its source).
  const wanted = new Map();
  const opened = [];
  const onBefore = (details) => {
    if (details.frameId === 0 && !existing.includes(details.tabId)) wanted.set(details.tabId, details.url);
  };
  const onTarget = (details) => {
    if (details.sourceTabId !== tabId) return;
    opened.push(details.tabId);
    if (!wanted.has(details.tabId)) wanted.set(details.tabId, details.url);
  };
  chrome.webNavigation.onBeforeNavigate.addListener(onBefore);
  chrome.webNavigation.onCreatedNavigationTarget.addListener(onTarget);
  const rule = await ruleChanges(async () => {
    const id = nextRuleId(await chrome.declarativeNetRequest.getSessionRules());
    await chrome.declarativeNetRequest.updateSessionRules({
      addRules: [{ id, priority: HOLD_PRIORITY, action: { type: 'block' }, condition: { resourceTypes: ['main_frame'], excludedTabIds: existing } }],
    });
    return id;
  });
  try {
    const outcome = await act();
    const openedTab = outcome?.openedTab ?? opened[0];
    if (openedTab === undefined) return outcome;
    const tab = await chrome.tabs.get(openedTab).catch(() => null);
    const newTabUrl = wanted.get(openedTab) ?? tab?.pendingUrl ?? tab?.url;
    await Promise.all([openedTab, ...opened].map((id) => chrome.tabs.remove(id).catch(() => {})));
    return { ...outcome, openedTab: undefined, newTabUrl };
  } finally {
    chrome.webNavigation.onBeforeNavigate.removeListener(onBefore);
    chrome.webNavigation.onCreatedNavigationTarget.removeListener(onTarget);
    await ruleChanges(() => chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: [rule] }));
  }
}

/** Tab `id` once its page has loaded (or is taking too long to: the task sees it as it is). */
async function loadedTab(id) {
  await waitForLoad(id, false).catch((err) => {
    if (err.code === 'tab_closed') throw err;
  });
  return id;
}

/** Opens `url` in a new active tab right after `tabId`, in its window. */
async function createTabNextTo(tabId, url) {
  const tab = await getTab(tabId);
  const created = await chrome.tabs.create({
    url, windowId: tab.windowId, index: tab.index + 1, openerTabId: tabId, active: true,
  });
  return created.id;
}

/**
 * Opens `url` in a new tab next to `tabId`, the task's, under the session rules of that tab from
 * its first request: a redirect the new tab's page takes at once is stopped as it would be in the
 * task's tab (the firewall, the site lists). Until the tab exists its id is unknown, so the rules
 * are copied for every tab not open yet, then for the new tab alone (the core writes them again
 * for all the task's tabs when it adopts it). Your own new tabs are under them only meanwhile.
 */
async function createTabUnderRulesOf(tabId, url) {
  const existing = [-1, ...(await chrome.tabs.query({})).map((tab) => tab.id)];
  const copyRules = (condition) => ruleChanges(async () => {
    const rules = await chrome.declarativeNetRequest.getSessionRules();
    const own = rules.filter((rule) => (rule.condition.tabIds ?? []).includes(tabId));
    let next = nextRuleId(rules);
    const copies = own.map((rule) => {
      const { tabIds, ...rest } = rule.condition;
      return { ...rule, id: next++, condition: { ...rest, ...condition } };
    });
    await chrome.declarativeNetRequest.updateSessionRules({ addRules: copies });
    return copies;
  });
  const held = await copyRules({ excludedTabIds: existing });
  try {
    const id = await createTabNextTo(tabId, url);
    if (held.length) await copyRules({ tabIds: [id] });
    // The tab is this task's: another task's hold lets it go.
    await Promise.all([...writeHolds].filter(([held]) => held !== tabId).map(([, hold]) => hold.letGo(id)));
    return id;
  } finally {
    if (held.length) await ruleChanges(() => chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: held.map((rule) => rule.id) }));
  }
}

// Trusted input: the DevTools Protocol through chrome.debugger, attached to a tab for the rest of
// a task once needed (Chrome shows its "started debugging this browser" bar meanwhile).
const DEBUGGER_VERSION = '1.3';
const attachedTabs = new Set();

async function attachDebugger(tabId) {
  if (attachedTabs.has(tabId)) return;
  if (!chrome.debugger || !(await chrome.permissions.contains({ permissions: ['debugger'] }))) {
    throw hostError('script', 'trusted input needs the debugger permission: turn trusted input off and on again in the settings to grant it');
  }
  try {
    await chrome.debugger.attach({ tabId }, DEBUGGER_VERSION);
  } catch (err) {
    if (!/already attached/i.test(err.message)) throw hostError('script', `the debugger could not attach (${err.message})`);
  }
  attachedTabs.add(tabId);
}

async function detachDebugger(tabId) {
  if (!attachedTabs.delete(tabId)) return;
  await chrome.debugger.detach({ tabId }).catch(() => {});
}

chrome.debugger?.onDetach.addListener((source) => attachedTabs.delete(source.tabId));

/** Tabs a task works in are kept from being discarded: Chrome unloads background tabs to save
 * memory, which would take the page, and what the task typed there, from under a task running
 * in the background. The tabs this host changed are noted in session storage, so that the task's
 * end gives them back even after the worker was restarted; a tab kept by someone else stays so. */
const KEPT_PREFIX = 'keptTab:';
const keptTabs = new Set();

async function keepLoaded(tabId) {
  if (keptTabs.has(tabId)) return;
  keptTabs.add(tabId);
  const tab = await getTab(tabId);
  if (!tab.autoDiscardable) return;
  await chrome.tabs.update(tabId, { autoDiscardable: false });
  await chrome.storage.session.set({ [KEPT_PREFIX + tabId]: true });
}

async function releaseKept(tabIds) {
  const keys = tabIds.map((tabId) => KEPT_PREFIX + tabId);
  const kept = await chrome.storage.session.get(keys);
  for (const tabId of tabIds) keptTabs.delete(tabId);
  await Promise.all(tabIds.filter((tabId) => kept[KEPT_PREFIX + tabId])
    .map((tabId) => chrome.tabs.update(tabId, { autoDiscardable: true }).catch(() => {})));
  await chrome.storage.session.remove(keys);
}

/** A line of work done one at a time: `inTurn(work)` runs `work` once the work before it is
 * done (failed or not) and resolves as it does. */
function oneAtATime() {
  let last = Promise.resolve();
  return (work) => {
    const turn = last.then(work);
    last = turn.catch(() => {});
    return turn;
  };
}

/** Rule changes, one at a time (ids are given from what is there). */
const ruleChanges = oneAtATime();

/** The first id above those of the session's `rules`. */
const nextRuleId = (rules) => Math.max(0, ...rules.map((rule) => rule.id)) + 1;

// A worker stopped during trusted input leaves its hold on new tabs behind: it goes at start.
ruleChanges(async () => {
  const held = (await chrome.declarativeNetRequest.getSessionRules()).filter((rule) => rule.priority === HOLD_PRIORITY);
  if (held.length) await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: held.map((rule) => rule.id) });
}).catch(() => {});

/** Methods of requests that change something on a site, as session rules name them: `other` is
 * every method but the reading ones (WebDAV's MOVE, COPY, PROPPATCH...). */
const WRITE_METHODS = ['post', 'put', 'patch', 'delete', 'other'];
/** Methods that only read. */
const READ_METHODS = ['get', 'head', 'options', 'connect'];
/** A socket is opened by a GET, but what it then sends no rule can see: opening one is held as a
 * change is. */
const changes = (details) => details.type === 'websocket' || !READ_METHODS.includes(details.method.toLowerCase());
/** What may carry such a request: a script, a form (in the page or a frame), a beacon
 * (`navigator.sendBeacon`, a link's `ping`), the rest. */
const WRITE_TYPES = ['xmlhttprequest', 'main_frame', 'sub_frame', 'object', 'ping', 'other'];
/** Sent by the browser for the page: held only to the held sites. */
const REPORT_TYPES = ['csp_report'];
/** Opened by an act: held wherever it goes, as everything an act sends (`hold.everywhere`). */
const SOCKET_TYPES = ['websocket'];
/** How much of a held request's text body is kept for the core to read. */
const HELD_BODY_CHARS = 2000;
/** The write holds under way, by the tab held: their rules, the tabs they hold (that tab and
 * those it opened meanwhile) and what they held. */
const writeHolds = new Map();

/** The start of a request's body as text (webRequest's `requestBody`): form fields or raw bytes. */
function bodyText(requestBody) {
  if (!requestBody) return '';
  if (requestBody.formData) return new URLSearchParams(Object.entries(requestBody.formData).flatMap(([k, vs]) => vs.map((v) => [k, v]))).toString().slice(0, HELD_BODY_CHARS);
  const bytes = requestBody.raw?.find((part) => part.bytes)?.bytes;
  return bytes ? new TextDecoder().decode(bytes.slice(0, HELD_BODY_CHARS * 4)).slice(0, HELD_BODY_CHARS) : '';
}

/** A host's site, as far as holding needs it: its last two labels (`api.bank.test` and
 * `www.bank.test` are `bank.test`'s); an IP address or a one-label host is itself. */
function siteOfHost(host) {
  if (/^[\d.]+$/.test(host) || host.includes(':')) return host;
  return host.split('.').slice(-2).join('.');
}

/** Holds back tab `tabId`'s requests that would change something on a site, noting each (session
 * rules above every other, and webRequest, which sees what they blocked), as `hold` says
 * (crate/core/src/browser/mod.rs, `WriteHold`): the tab's to its `sites` (to any site with
 * `everywhere`), its beacons to those sites, and their service workers' (which belong to no tab). */
async function holdWrites(tabId, hold) {
  await releaseWrites(tabId);
  const sites = [...new Set(hold.sites.map(siteOfHost).filter(Boolean))];
  const held = [];
  const bodies = new Map();
  // The tabs held: this one and every tab opened while it is held (a popup its page opens with
  // window.open, a tab the core opens), from their first request: the rules name the tabs NOT
  // held, those open before (and requests of no tab, held by the sites' rule below). A tab
  // another task opens, or a page of a tab not held opens, is let go as soon as it is known.
  const others = new Set((await chrome.tabs.query({})).map((tab) => tab.id).filter((id) => id !== tabId));
  const heldTab = (id) => id !== -1 && !others.has(id);
  const onSites = (url) => { try { return sites.includes(siteOfHost(new URL(url).hostname)); } catch { return false; } };
  const ours = (details) => (heldTab(details.tabId) && (hold.everywhere || onSites(details.url)))
    || (details.tabId === -1 && onSites(details.initiator ?? ''));
  const filter = { urls: ['<all_urls>'], types: [...WRITE_TYPES, ...REPORT_TYPES, ...SOCKET_TYPES] };
  const onBefore = (details) => {
    if (ours(details) && changes(details)) bodies.set(details.requestId, bodyText(details.requestBody));
  };
  const onError = (details) => {
    if (details.error !== 'net::ERR_BLOCKED_BY_CLIENT' || !ours(details) || !changes(details)) return;
    held.push({ method: details.method.toUpperCase(), url: details.url, kind: details.type, body: bodies.get(details.requestId) ?? '' });
  };
  chrome.webRequest.onBeforeRequest.addListener(onBefore, filter, ['requestBody']);
  chrome.webRequest.onErrorOccurred.addListener(onError, filter);
  // The rules' conditions on tabs: every tab but those not held.
  const tabsHeld = () => ({ excludedTabIds: [-1, ...others] });
  const rule = (id, condition) => ({ id, priority: HOLD_PRIORITY, action: { type: 'block' }, condition });
  const writes = { requestMethods: WRITE_METHODS };
  const conditions = [
    hold.everywhere && { ...writes, resourceTypes: WRITE_TYPES },
    hold.everywhere && { resourceTypes: SOCKET_TYPES },
    sites.length && { ...writes, resourceTypes: [...WRITE_TYPES, ...REPORT_TYPES], requestDomains: sites },
  ].filter(Boolean);
  const entry = { rules: [], held };
  const writeRules = async () => {
    const id = nextRuleId(await chrome.declarativeNetRequest.getSessionRules());
    const rules = conditions.map((condition, n) => rule(id + n, { ...condition, ...tabsHeld() }));
    // The sites' workers' writes (a worker belongs to no tab). A socket a shared worker opens
    // is not seen by the browser's rules at all (red team 7, X13): not covered.
    if (sites.length) rules.push(rule(id + rules.length, { ...writes, tabIds: [-1], initiatorDomains: sites, resourceTypes: [...WRITE_TYPES, ...REPORT_TYPES] }));
    await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: entry.rules, addRules: rules });
    entry.rules = rules.map((r) => r.id);
  };
  // A tab a tab not held opens (a link of another task's page) is not held.
  const letGo = (id) => {
    others.add(id);
    return ruleChanges(() => writeHolds.get(tabId) === entry && writeRules());
  };
  const onTarget = (details) => {
    if (others.has(details.sourceTabId)) letGo(details.tabId).catch(() => {});
  };
  chrome.webNavigation.onCreatedNavigationTarget.addListener(onTarget);
  await ruleChanges(writeRules);
  writeHolds.set(tabId, Object.assign(entry, { letGo, stop: () => {
    chrome.webRequest.onBeforeRequest.removeListener(onBefore);
    chrome.webRequest.onErrorOccurred.removeListener(onError);
    chrome.webNavigation.onCreatedNavigationTarget.removeListener(onTarget);
  } }));
}

/** Ends tab `tabId`'s write hold, if any; what it held. */
async function releaseWrites(tabId) {
  const hold = writeHolds.get(tabId);
  if (!hold) return [];
  writeHolds.delete(tabId);
  await ruleChanges(() => chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: hold.rules }));
  // The last error events of what the page sent as the act ended.
  await new Promise((resolve) => setTimeout(resolve, 0));
  hold.stop();
  return hold.held;
}

/**
 * Replaces the session rules of `tabIds` with `rules`. Tasks running side by side share the
 * session rules: each task's rules name its tabs (`condition.tabIds`) and replace only the rules
 * of those tabs; their ids are given here, unique among all.
 */
function replaceTabRules(rules, tabIds) {
  return ruleChanges(async () => {
    const existing = await chrome.declarativeNetRequest.getSessionRules();
    const replaced = existing.filter((rule) => rule.priority !== HOLD_PRIORITY && (rule.condition.tabIds ?? []).some((id) => tabIds.includes(id)));
    let next = nextRuleId(existing);
    await chrome.declarativeNetRequest.updateSessionRules({
      removeRuleIds: replaced.map((rule) => rule.id),
      addRules: rules.map((rule) => ({ ...rule, id: next++ })),
    });
  });
}

/** Where each running task's checkpoint is kept, by its chat: session storage outlives a stopped
 * worker, but not the browser session (a task is not resumed after the browser restarts). */
const TASK_PREFIX = 'task:';

/** The History in chrome.storage.local: an index of summaries under one key (so that listing
 * reads no chat), each chat under its own key. The core decides what is kept (crate/core/src/chats.rs). */
const CHAT_INDEX_KEY = 'chatIndex';
const chatKey = (id) => `chat:${id}`;

/** A small JPEG of a captured tab, as a data URL, for the panel's step list. */
async function thumbnailOf(dataUrl) {
  const WIDTH = 320;
  const bitmap = await createImageBitmap(await (await fetch(dataUrl)).blob());
  const canvas = new OffscreenCanvas(WIDTH, Math.max(1, Math.round((bitmap.height * WIDTH) / bitmap.width)));
  canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  const bytes = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.6 })).arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:image/jpeg;base64,${btoa(binary)}`;
}

/** Screenshots, one at a time. */
const captures = oneAtATime();

/** A picture of tab `tabId`, brought forward for it, checked to still be the one on screen. */
async function captureTab(tabId) {
  // Chrome allows two captures a second; a tab just brought forward needs a frame or two.
  for (let attempt = 0; ; attempt++) {
    const tab = await getTab(tabId);
    if (!tab.active) await chrome.tabs.update(tabId, { active: true });
    const wait = lastCapture + CAPTURE_INTERVAL_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => { setTimeout(resolve, wait); });
    lastCapture = Date.now();
    try {
      const dataUrl = await chrome.tabs.captureVisibleTab(tab.windowId, { format: 'jpeg', quality: 60 });
      // The user (or a task's own tab switch) may have brought another tab forward meanwhile.
      if (!(await getTab(tabId)).active) throw new Error('another tab came forward');
      const thumbnail = await thumbnailOf(dataUrl).catch(() => null); // Only for the panel.
      return { mediaType: 'image/jpeg', base64: dataUrl.slice(dataUrl.indexOf(',') + 1), thumbnail };
    } catch (err) {
      if (attempt >= 3) throw hostError('script', `the screenshot failed (${err.message})`);
    }
  }
}

export function createBrowserHost(emit) {
  return {
    emit,
    /** The stored settings; the answer comes in the browser's language unless they say otherwise. */
    async loadSettings() {
      const settings = await loadSettings();
      return settings && { answerLanguage: chrome.i18n.getUILanguage(), ...settings };
    },

    saveTask(chat, checkpoint) {
      const key = TASK_PREFIX + chat;
      return checkpoint ? chrome.storage.session.set({ [key]: checkpoint }) : chrome.storage.session.remove(key);
    },

    async loadTasks() {
      const saved = await chrome.storage.session.get(null);
      return Object.fromEntries(Object.entries(saved)
        .filter(([key]) => key.startsWith(TASK_PREFIX))
        .map(([key, checkpoint]) => [key.slice(TASK_PREFIX.length), checkpoint]));
    },

    async loadChatIndex() {
      return (await chrome.storage.local.get(CHAT_INDEX_KEY))[CHAT_INDEX_KEY];
    },

    async loadChat(id) {
      return (await chrome.storage.local.get(chatKey(id)))[chatKey(id)] ?? null;
    },

    /** The index and the chat in one write, so that neither is saved without the other. */
    async saveChats(index, chat, removed) {
      await chrome.storage.local.set(chat ? { [CHAT_INDEX_KEY]: index, [chatKey(chat.id)]: chat } : { [CHAT_INDEX_KEY]: index });
      if (removed.length) {
        await chrome.storage.local.remove(removed.map(chatKey));
        await releaseFilms(removed).catch((err) => console.warn("The removed chats' films could not be let go of:", err));
      }
    },

    async activeTab() {
      const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
      return tab?.id;
    },

    async observe(tabId) {
      await keepLoaded(tabId);
      return collectFrames(tabId);
    },

    /** Loads `url` in the tab; what came of it (see watchNavigation). */
    async navigate(tabId, url) {
      await getTab(tabId);
      return followNavigation(tabId, () => chrome.tabs.update(tabId, { url }));
    },

    /** Numbered boxes, drawn by each frame's sensor for its own elements; [] clears them all. */
    async highlight(tabId, marks) {
      if (marks.length === 0) {
        await chrome.scripting.executeScript({
          target: { tabId, allFrames: true },
          func: () => globalThis.agentSensor?.clearHighlights(),
          injectImmediately: true,
        });
        return;
      }
      const byFrame = Map.groupBy(marks, (mark) => mark.frame);
      await Promise.all([...byFrame].map(([frameId, items]) =>
        inFrame(tabId, frameId, 'highlight', [items])));
    },

    /** The address of every frame of the tab's page, as the browser knows them (a frame that
     * never answers the sensor, or keeps it out, too). */
    async frameUrls(tabId) {
      await getTab(tabId);
      return ((await chrome.webNavigation.getAllFrames({ tabId })) ?? []).map((frame) => frame.url);
    },

    /** Whether the element is as the page was last read, for acting on it (see the sensor's `untouched`). */
    async elementUnchanged(tabId, target) {
      return Boolean(await inFrame(tabId, target.frame, 'untouched', [target.doc, target.id]));
    },

    perform(tabId, op) {
      return followingOpenedTab(tabId, async () => {
        let outcome;
        try {
          outcome = await inFrame(tabId, op.frame, 'perform', [op]);
        } catch (err) {
          // The operation unloaded the document before it could answer: it did act.
          if (err.code !== 'script' || !/removed|unloaded|navigat/i.test(err.message)) throw err;
          outcome = { ok: true, message: 'the page navigated' };
        }
        if (outcome?.ok && op.settle) await settle(tabId, op.settle);
        return outcome;
      });
    },

    /** Back, forward or reload; what came of it (see watchNavigation). */
    async history(tabId, step) {
      await getTab(tabId);
      if (step === 'reload') return followNavigation(tabId, () => chrome.tabs.reload(tabId));
      return followNavigation(tabId, async () => {
        const started = waitForNavigationStart(tabId, HISTORY_TIMEOUT_MS);
        try {
          await (step === 'back' ? chrome.tabs.goBack(tabId) : chrome.tabs.goForward(tabId));
        } catch {
          // Chrome's back button skips entries made without a user gesture, as the agent's are;
          // the page's own history does not.
          await chrome.scripting.executeScript({
            target: { tabId, frameIds: [0] },
            func: (s) => (s === 'back' ? history.back() : history.forward()),
            args: [step],
            injectImmediately: true,
          }).catch(() => {});
        }
        if (!(await started)) throw hostError('navigation', `there is no page to go ${step} to`);
      });
    },


    /** Every tab of the window, as it is, with its tab group (-1: none); the core decides which
     * are the task's, which the model sees, and names them. */
    async tabs(tabId) {
      const tab = await getTab(tabId);
      const tabs = await chrome.tabs.query({ windowId: tab.windowId });
      return tabs.map(({ id, url, title, groupId }) => ({ id, url: url ?? '', title: title ?? '', group: groupId ?? -1 }));
    },

    /** Puts the tabs into group `groupId`, or a new group when it is null; the group's id. */
    async groupTabs(ids, groupId) {
      const tabIds = Array.from(ids);
      try {
        return await chrome.tabs.group(groupId == null ? { tabIds } : { tabIds, groupId });
      } catch (err) {
        throw hostError('script', `the tabs could not be grouped (${err.message})`);
      }
    },

    /** Names a group with a core text (`{key, args}`) in the user's language. */
    async nameGroup(groupId, title) {
      await chrome.tabGroups.update(groupId, { title: chrome.i18n.getMessage(title.key, title.args.map(String)) || title.key });
    },

    async ungroupTabs(ids) {
      await chrome.tabs.ungroup(Array.from(ids)).catch((err) => {
        throw hostError('script', `the tabs could not be ungrouped (${err.message})`);
      });
    },

    /** Opens `url` in a new tab next to `tabId`: `{ id, navigation }` (see watchNavigation).
     * Chrome closes a tab it opened only for what became a download: that is waited for, and
     * the tab is gone when this returns. */
    async openTab(tabId, url) {
      const watch = watchNavigation();
      try {
        const id = await createTabUnderRulesOf(tabId, url);
        watch.follow(id);
        await waitForLoad(id, false, watch.ended).catch((err) => {
          // A slow page is seen as it is; a tab closed for a download is reported as such.
          if (err.code === 'tab_closed' && !watch.endedWithoutPage()) throw err;
        });
        if (watch.endedWithoutPage()) await closedWithin(id, DOWNLOAD_TAB_CLOSE_MS);
        return { id, navigation: await watch.report() };
      } finally {
        watch.stop();
      }
    },

    async openBackgroundTab(url) {
      return loadedTab((await chrome.tabs.create({ url, active: false })).id);
    },

    async switchTab(tabId) {
      try {
        await chrome.tabs.update(tabId, { active: true });
      } catch {
        throw hostError('tab_closed', `tab ${tabId} is closed`);
      }
    },

    async closeTab(tabId) {
      try {
        await chrome.tabs.remove(tabId);
      } catch {
        throw hostError('tab_closed', `tab ${tabId} is closed`);
      }
    },

    sleep(milliseconds) {
      return new Promise((resolve) => { setTimeout(resolve, milliseconds); });
    },

    /** What the tab shows, as a JPEG. Chrome captures only the tab on screen in its window: the
     * tab is brought forward, and captures wait for each other, so that tasks running side by
     * side each get their own page. */
    screenshot(tabId) {
      return captures(() => captureTab(tabId));
    },

    /** Trusted input commands (built by the core), then the same settling and tab following as perform. */
    async input(tabId, commands) {
      await getTab(tabId);
      await attachDebugger(tabId);
      return holdingNewTabs(tabId, () => followingOpenedTab(tabId, async () => {
        for (const command of commands) {
          // Each in turn: a drag intercepted meanwhile changes what the next ones are.
          for (const { method, params } of duringDrag(tabId, command)) {
            await chrome.debugger.sendCommand({ tabId }, method, params);
          }
        }
        await settle(tabId);
        return { ok: true, message: '' };
      }));
    },

    /** The site policy's blocking rules (built by the core) for the task's tabs, replacing the
     * earlier ones there (none: the policy is open now). The core gives the ids as an Int32Array. */
    async restrict(ids, rules) {
      await replaceTabRules(rules, Array.from(ids));
    },

    /** Holds back the tab's requests that would change something on a site as `hold` says (when
     * already holding, gives what was held so far and keeps holding), or, without one, lets them
     * go again and gives what was held meanwhile (crate/core/src/browser/mod.rs, `hold_writes`). */
    async holdWrites(tabId, hold) {
      if (hold === undefined || hold === null) return releaseWrites(tabId);
      // Already holding: what was held so far, the hold kept (no gap a retry could slip through).
      const holding = writeHolds.get(tabId);
      if (holding) return holding.held.splice(0);
      await getTab(tabId);
      await holdWrites(tabId, hold);
      return [];
    },

    /** The task is over in its tabs: highlights off, the debugger released, its rules gone, the
     * bytes of its downloads let go of, the browser free to discard them again. The core gives the ids as an Int32Array, whose map
     * would make numbers of what it returns. */
    async finish(ids) {
      const tabIds = Array.from(ids);
      await Promise.all(tabIds.map((tabId) => releaseWrites(tabId).catch(() => {})));
      await replaceTabRules([], tabIds).catch(() => {});
      await releaseKept(tabIds);
      await Promise.all(tabIds.map((tabId) => chrome.scripting.executeScript({
        target: { tabId, allFrames: true },
        func: () => globalThis.agentSensor?.clearHighlights(),
        injectImmediately: true,
      }).catch(() => {})));
      await Promise.all(tabIds.filter((tabId) => attachedTabs.has(tabId)).map(detachDebugger));
      await releaseDownloads(tabIds).catch(() => {});
    },

    /** The bytes of a file held for a task (task-files.js), by handle. */
    async readFile(handle) {
      const file = await heldFile(handle);
      if (!file) throw hostError('script', `the file ${handle} is no longer held`);
      if (!file.bytes) {
        throw hostError('script', file.unread ? `the agent could not read ${file.name}: ${file.unread}` : `${file.name} is too large for the agent to read`);
      }
      return file.bytes;
    },

    /** The task's downloads not reported before (background/downloads.js). */
    downloads(tabIds, sinceMs, maxBytes) {
      return taskDownloads(tabIds, sinceMs, maxBytes);
    },

    /** The bytes of the file the tab shows in the browser's viewer (a PDF). */
    async shownFile(tabId, maxBytes) {
      try {
        return await shownFileBytes(tabId, maxBytes);
      } catch (err) {
        throw hostError(/No tab with id/i.test(err.message) ? 'tab_closed' : 'script', err.message);
      }
    },

  };
}
