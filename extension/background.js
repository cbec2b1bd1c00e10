// The service worker: loads the Rust core once and connects it to the panel port and the browser.
// Everything that decides lives in the core; this file only wires contexts together.

import init, { Core } from './core/agent_wasm.js';
import { createBrowserHost } from './background/browser-host.js';
import { createAppsHost, APPS_KEY } from './background/apps-host.js';
import { notifyScheduledRun, watchSchedules } from './background/schedules.js';
import { restartAfterPanic, runningTasks } from './background/core-restart.js';
import { loadSettings } from './shared/settings-store.js';
import { t } from './shared/i18n.js';

const PANEL_PORT_NAME = 'agent-panel';

/** Ports of the open panels (side panel, or the runner's panel tab). */
const panels = new Set();
/** The tasks under way, for the panels to be told if the core panics. */
const running = runningTasks();

function broadcast(event) {
  running.note(event);
  for (const port of panels) port.postMessage(event);
}

const browserHost = createBrowserHost(broadcast);

/** The core, ready; a fresh one after a panic (background/core-restart.js). Read it anew for
 * each use. */
let core = startCore();

// Tasks the browser interrupted by stopping this worker are resumed before any panel is answered,
// so that a reconnecting panel learns that its tasks are still running.
function startCore() {
  return init().then(async () => {
    const agent = new Core({ ...browserHost, ...createAppsHost(), notify: notifyScheduledRun, corePanicked });
    await agent.resumeInterrupted();
    // Reachable from the worker's own console and from the runner, benchmark and tests (which
    // evaluate in this worker); pages and other extensions cannot reach a worker's globals.
    globalThis.agentCore = agent;
    return agent;
  });
}

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
  // Answers meant for this panel alone (the History) come back through `reply`.
  const reply = (answer) => {
    try {
      port.postMessage(answer);
    } catch {
      // The panel closed meanwhile.
    }
  };
  // Listening at once: what a panel sends while a just-started worker loads the core waits for
  // it, in order, after the greeting below.
  // (To the core as it is then: a fresh one after a panic.)
  port.onMessage.addListener((message) => accepted.then((trusted) => trusted && core.then((agent) => agent.handlePanelMessage(message, reply))));
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
    port.postMessage({ v: 1, type: 'error', steps: 0, message: t('worker_core_failed', err) });
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
}
syncHost();
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && changes.settings) syncHost();
  // An app the user revoked in the settings is asked again on its next call.
  const apps = changes[APPS_KEY];
  if (area === 'local' && apps && (apps.oldValue?.length ?? 0) > (apps.newValue?.length ?? 0)) {
    core.then((agent) => agent.appsRevoked());
  }
});
chrome.permissions.onAdded.addListener(syncHost);
chrome.permissions.onRemoved.addListener(syncHost);
