// The service worker: loads the Rust core once and connects it to the panel port and the browser.
// Everything that decides lives in the core; this file only wires contexts together.

import init, { Core } from './core/agent_wasm.js';
import { createBrowserHost } from './background/browser-host.js';
import { watchTabRequests } from './background/downloads.js';
import { createAppsHost } from './background/apps-host.js';
import { createSavedHost } from './background/saved-host.js';
import { notifyUser, syncAlarms, watchSchedules } from './background/schedules.js';
import { restartAfterPanic, runningTasks } from './background/core-restart.js';
import { holdFile, releaseFiles } from './background/task-files.js';
import { filmBase64, filmScreenshots, keepFilmFrame } from './background/film.js';
import './background/built-in-model.js';
import { loadSettings } from './shared/settings-store.js';
import { t } from './shared/i18n.js';
import { PROTOCOL_VERSION } from './shared/worker.js';

const PANEL_PORT_NAME = 'agent-panel';

/** Ports of the open panels (side panel, or the runner's panel tab). */
const panels = new Set();
/** The tasks under way, for the panels to be told if the core panics. */
const running = runningTasks();

function broadcast(event) {
  // A film's frames are the worker's to keep (background/film.js), for no page.
  if (event.type === 'film_frame') return void keepFilmFrame(event);
  running.note(event);
  for (const port of panels) port.postMessage(event);
}

const browserHost = createBrowserHost(broadcast);
// Which tab asked for what, so that a download is known to be a task's (background/downloads.js).
watchTabRequests();

// The worker alone writes the user's saved things (the pages ask it); what follows a change is
// done here: the new limits applied to the running tasks before the save is answered, the MCP
// host connected or not, the schedules' alarms set again, an app revoked in the settings asked
// again on its next call.
const saved = createSavedHost(async (key) => {
  if (key === 'settings') {
    await core.then((agent) => agent.settingsSaved());
    await syncHost();
  }
  if (key === 'workflows' || key === 'schedules') await core.then(() => syncAlarms());
  if (key === 'mcpApps') await core.then((agent) => agent.appsRevoked());
});

/** The core, ready; a fresh one after a panic (background/core-restart.js). Read it anew for
 * each use. */
let core = startCore();

// Tasks the browser interrupted by stopping this worker are resumed before any panel is answered,
// so that a reconnecting panel learns that its tasks are still running.
function startCore() {
  return init().then(async () => {
    const host = { ...browserHost, ...createAppsHost(), ...saved, holdFile, releaseFiles, notify: notifyUser, corePanicked };
    const agent = new Core(host);
    await agent.resumeInterrupted();
    // Reachable from the worker's own console and from the runner, benchmark and tests (which
    // evaluate in this worker); pages and other extensions cannot reach a worker's globals.
    globalThis.agentCore = agent;
    return agent;
  });
}
/** The saved things as stored, unchecked: for the runner and the tests to set up a browser. */
globalThis.agentStorage = { read: saved.readSaved, write: saved.writeSaved };
/** A run's film as a base64 GIF (or null): for the runner and the tests. */
globalThis.agentFilm = (chat, film) => core.then(() => filmBase64(chat, film));
globalThis.agentFilmScreenshots = (chat, film) => core.then(() => filmScreenshots(chat, film));
// The panel asks for a run's film here, beside the core's protocol: the worker makes it.
chrome.runtime.onMessage.addListener((message, sender, answer) => {
  if (!message?.film || sender.id !== chrome.runtime.id || !sender.url?.startsWith(chrome.runtime.getURL(''))) return false;
  const { chat, film } = message.film;
  core.then(() => filmBase64(chat, film)).then((gif) => answer({ gif }), (err) => answer({ error: String(err?.message ?? err) }));
  return true;
});
/** The answer to a request, as a page asking over the port gets it: for the runner and the tests. */
globalThis.askAgent = (request) => core.then((agent) => new Promise((resolve) => {
  agent.handlePanelMessage({ v: PROTOCOL_VERSION, ...request }, resolve);
}));

/** From the core's panic hook, before its instance traps. */
function corePanicked(panic) {
  const replaceInstance = () => Core.replacePanickedInstance();
  core = restartAfterPanic({ panic, running, host: browserHost, broadcast, replaceInstance, start: startCore });
  // An AI app's session was in the old core: the fresh one starts without the host.
  hostPort?.disconnect();
  hostPort = null;
  syncHost();
}

watchSchedules(() => core);

chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch((err) => {
  console.warn('Could not make the toolbar button open the side panel:', err);
});

chrome.runtime.onConnect.addListener((port) => {
  const sender = port.sender ?? {};
  if (port.name !== PANEL_PORT_NAME) return port.disconnect();
  const accepted = core.then((agent) => (Core.isTrustedSender(chrome.runtime.id, sender.id, sender.url) ? agent : null));
  // Answers meant for this page alone (the History, the saved things) come back through `reply`,
  // with the `ref` of the request they answer, when it had one.
  const replyTo = (message) => (answer) => {
    try {
      port.postMessage(message?.ref === undefined ? answer : { ...answer, ref: message.ref });
    } catch {
      // The page closed meanwhile.
    }
  };
  // Listening at once: what a page sends while a just-started worker loads the core waits for
  // it, in order, after the greeting below.
  // (To the core as it is then: a fresh one after a panic.)
  port.onMessage.addListener((message) => accepted.then((trusted) => trusted && core.then((agent) => agent.handlePanelMessage(message, replyTo(message)))));
  accepted.then((agent) => {
    if (!agent) return port.disconnect();
    panels.add(port);
    port.onDisconnect.addListener(() => panels.delete(port));
    // Each task under way or waiting, with its chat's events so far.
    port.postMessage(agent.hello());
    // An AI app waiting for the user's answer whether it may use the agent.
    const pairing = agent.pairingQuestion();
    if (pairing) port.postMessage(pairing);
  }, (err) => {
    port.postMessage({ v: PROTOCOL_VERSION, type: 'error', steps: 0, message: t('worker_core_failed', err) });
    port.disconnect();
  });
});

// AI apps (MCP): while the user allows it (the setting, and the nativeMessaging permission the
// settings page asks for when it is turned on), the worker holds a port to the native host, which
// Chrome starts for it and which carries the apps' tool calls; the port also keeps this worker
// alive. Turning the setting off closes the port, and Chrome ends the host.
let hostPort = null;

async function connectHostIfAllowed() {
  const permitted = await chrome.permissions.contains({ permissions: ['nativeMessaging'] }).catch(() => false);
  const allowed = permitted && Boolean((await loadSettings())?.mcp);
  if (allowed === Boolean(hostPort)) return;
  const agent = await core;
  if (!allowed) {
    try {
      hostPort.disconnect();
    } catch {
      // The permission was taken back: the port is gone already.
    }
    hostPort = null;
    agent.hostDisconnected();
    return;
  }
  // The native messaging host that lets AI apps use the agent (crate/native-host).
  const port = chrome.runtime.connectNative(Core.mcpHostName());
  hostPort = port;
  const reply = (message) => {
    try {
      port.postMessage(message);
    } catch {
      // The host ended meanwhile.
    }
  };
  port.onMessage.addListener((message) => agent.handleHostMessage(message, reply));
  port.onDisconnect.addListener(() => {
    // Not installed (./build.sh install-mcp), or it ended: said in the worker's console.
    console.warn('The MCP host disconnected:', chrome.runtime.lastError?.message ?? 'it ended');
    if (hostPort === port) hostPort = null;
    agent.hostDisconnected();
  });
}

// One change at a time, so that a quick on-off-on cannot open two ports.
let hostSync = Promise.resolve();
function syncHost() {
  hostSync = hostSync.then(connectHostIfAllowed).catch((err) => console.warn('The MCP host could not be connected:', err));
  return hostSync;
}
syncHost();
chrome.permissions.onAdded.addListener(syncHost);
chrome.permissions.onRemoved.addListener(syncHost);
