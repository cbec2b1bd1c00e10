// The pages' one way to the service worker: the port the core names (crate/core/src/protocol.rs),
// over which the side panel and the settings page send requests and hear the worker's messages
// (docs/protocol.md). The worker alone writes the user's settings, workflows, schedules, saved
// tasks and AI apps; the pages ask it. `ask` sends a request and resolves with its answer (matched
// by `ref`); `listen` hears the rest, `onChanged` what was saved.

import { t } from './i18n.js';

export const PROTOCOL_VERSION = 1;
const PORT_NAME = 'agent-panel';

let port = null;
let nextRef = 1;
/** The requests waiting for their answer (`{ resolve, reject }` of `ask`'s promise), by `ref`. */
const waiting = new Map();
const listeners = [];
const changeListeners = [];
let reconnecting = false;

function connect() {
  port = chrome.runtime.connect({ name: PORT_NAME });
  port.onMessage.addListener((message) => {
    if (message?.v !== PROTOCOL_VERSION) return;
    const asked = waiting.get(message.ref);
    if (asked) {
      waiting.delete(message.ref);
      // An error answers a request the worker could not read.
      if (message.type === 'error') asked.reject(new Error(message.message));
      else asked.resolve(message);
    } else if (message.type === 'changed') {
      for (const listener of changeListeners) listener(message.what);
    } else {
      for (const listener of listeners) listener(message);
    }
  });
  port.onDisconnect.addListener(() => {
    // The worker went away (stopped by the browser, or the extension reloaded): what it had not
    // answered fails, to be asked again.
    port = null;
    for (const asked of waiting.values()) asked.reject(new Error(t('page_worker_gone')));
    waiting.clear();
    // A page that hears the worker reconnects, which restarts it, and learns from its hello.
    if (reconnecting) setTimeout(connect, 100);
  });
}

/** Sends a request that needs no answer of its own (a task's events follow it). */
export function send(request) {
  if (!port) connect();
  port.postMessage({ v: PROTOCOL_VERSION, ...request });
}

/**
 * Sends a request and resolves with the worker's answer to it; rejects with an Error saying what
 * happened when the worker could not read it or went away before answering.
 */
export function ask(request) {
  const ref = nextRef++;
  return new Promise((resolve, reject) => {
    waiting.set(ref, { resolve, reject });
    send({ ...request, ref });
  });
}

/** Hears every message that answers no `ask` (the tasks' events, the History, hello), and stays
 * connected: reconnects when the worker goes away. */
export function listen(listener) {
  listeners.push(listener);
  reconnecting = true;
  if (!port) connect();
}

/** Hears what the worker saved (`settings`, `workflows`, `schedules`, `savedTasks`, `mcpApps`). */
export function onChanged(listener) {
  changeListeners.push(listener);
  if (!port) connect();
}
