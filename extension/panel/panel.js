// The side panel: sends tasks to the service worker over one port and shows what the agent does.
// Message types are defined by the core (crate/core/src/protocol.rs); this file only renders them.

const PROTOCOL_VERSION = 1;
const PORT_NAME = 'agent-panel';

const log = document.getElementById('log');
const form = document.getElementById('composer');
const input = document.getElementById('task');
const stopButton = document.getElementById('stop');
const pauseButton = document.getElementById('pause');
const sendButton = document.getElementById('send');
const usageLine = document.getElementById('usage');

/** Set by the runner and tests (`panel.html?tab=ID`); otherwise the active tab of this window. */
const fixedTabId = Number(new URLSearchParams(location.search).get('tab')) || null;

let port = null;
let running = false;
let thinking = null;
/** The record of the task that just ended, until its export buttons are shown. */
let pendingRun = null;
/** While a past chat's events are rendered: nothing they show may act or change the panel's state. */
let replaying = false;
/** The stored chat this panel shows, opened from the History: sending continues it. */
let openedChat = null;
/** The task last sent, for an error's "Try again". */
let lastTask = null;

function element(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A button (not a form's submit) that calls `onClick`; `label` names it for screen readers
 * where its text alone does not say enough. */
function button(className, text, onClick, label) {
  const el = element('button', className, text);
  el.type = 'button';
  if (label) el.setAttribute('aria-label', label);
  el.addEventListener('click', onClick);
  return el;
}

function append(el) {
  log.append(el);
  el.scrollIntoView({ block: 'end' });
  return el;
}

let paused = false;

function setPaused(value) {
  paused = value;
  pauseButton.textContent = value ? 'Resume' : 'Pause';
}

/** Where the task stands: its step and the time it has taken. */
const progress = { line: document.getElementById('progress'), started: 0, text: '', clock: null };

function showProgress() {
  const seconds = Math.round((Date.now() - progress.started) / 1000);
  progress.line.textContent = `${progress.text} · ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  progress.line.hidden = false;
}

function startClock() {
  progress.started = Date.now();
  progress.text = 'Starting';
  clearInterval(progress.clock);
  progress.clock = setInterval(showProgress, 1000);
  showProgress();
}

function setRunning(value) {
  running = value;
  if (!value) clearInterval(progress.clock);
  stopButton.hidden = !value;
  pauseButton.hidden = !value;
  if (!value) setPaused(false);
  sendButton.disabled = value;
}

function clearThinking() {
  thinking?.remove();
  thinking = null;
}

/** Shows a step whole, or as its one-line summary. */
function expandStep(box, expanded) {
  box.classList.toggle('collapsed', !expanded);
  box.querySelector('.step-toggle').setAttribute('aria-expanded', String(expanded));
}

/** Earlier steps fold to one line each when a new one arrives; each unfolds on request. */
function collapseEarlierSteps() {
  for (const box of log.querySelectorAll('.step:not(.collapsed)')) expandStep(box, false);
}

function renderStep(event) {
  const box = element('section', 'message step');
  box.setAttribute('aria-label', `Step ${event.step}`);
  const heading = element('h2');
  const toggle = button('step-toggle', `Step ${event.step} of ${event.max_steps}`, () => expandStep(box, box.classList.contains('collapsed')));
  toggle.setAttribute('aria-expanded', 'true');
  heading.append(toggle);
  const failed = event.actions.some((action) => !action.ok);
  const summary = element('p', 'summary', `${failed ? '✗' : '✓'} ${event.next_goal || 'no goal given'} · ${event.actions.map((a) => a.name).join(', ')}`);
  box.append(heading, summary);
  if (event.evaluation) box.append(element('p', 'evaluation', event.evaluation));
  if (event.next_goal) box.append(element('p', 'goal', event.next_goal));
  const list = element('ul');
  for (const action of event.actions) {
    const item = element('li', action.ok ? 'done' : 'failed');
    item.dataset.action = action.name;
    if (action.element) {
      // The element acted on, pointed out on the page while it is still there.
      const show = button('show-element', action.outcome,
        async () => send({ type: 'highlight', tabId: await targetTabId(), element: action.element }),
        `${action.outcome} Show this element on the page.`);
      show.title = 'Show this element on the page';
      item.append(show);
    } else {
      item.textContent = action.outcome;
    }
    list.append(item);
  }
  box.append(list);
  if (event.screenshot) {
    const picture = element('img', 'step-screenshot');
    picture.src = event.screenshot;
    picture.alt = `The page the model saw at step ${event.step}`;
    box.append(picture);
  }
  return box;
}

/** An error, with its fix one click away: the setting to change, or the task tried again. */
function renderError(event) {
  const box = element('div', 'message error');
  box.append(element('p', 'error-text', event.message));
  if (replaying) return box;
  if (event.setting) {
    box.append(button('fix', 'Fix in settings', () => chrome.tabs.create({
      url: chrome.runtime.getURL(`extension/options/options.html#${event.setting}`),
    })));
  } else if (lastTask) {
    const task = lastTask;
    box.append(button('retry', 'Try again', () => {
      if (running) return;
      input.value = task;
      form.requestSubmit();
    }));
  }
  return box;
}

/** `el` holding `text` with each of `marked` in it highlighted (the user's data an action would send). */
function markedText(el, text, marked) {
  const wanted = marked.filter(Boolean);
  let rest = text;
  while (rest) {
    const hits = wanted.map((m) => [rest.indexOf(m), m]).filter(([at]) => at >= 0).sort((a, b) => a[0] - b[0]);
    if (!hits.length) break;
    const [at, found] = hits[0];
    el.append(rest.slice(0, at), element('mark', 'data', found));
    rest = rest.slice(at + found.length);
  }
  el.append(rest);
  return el;
}

/** A consequential action waiting for the user: the question (the data it would send
 * highlighted), the page, Allow / Don't allow. */
function renderApproval(event) {
  const past = replaying;
  const box = element('section', `message approval${past ? ' past' : ''}`);
  box.setAttribute('role', 'alertdialog');
  box.setAttribute('aria-label', 'The agent asks for your approval');
  box.append(markedText(element('p', 'question'), event.question, event.data ?? []), element('p', 'url', event.url));
  const buttons = element('div', 'buttons');
  const answer = (approved) => {
    send({ type: 'approve', id: event.id, approved });
    for (const button of buttons.querySelectorAll('button')) button.disabled = true;
    box.append(element('p', 'decision', approved ? 'You allowed this.' : 'You did not allow this.'));
  };
  buttons.append(button('refuse', "Don't allow", () => answer(false)), button('allow', 'Allow', () => answer(true)));
  box.append(buttons);
  if (past) {
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', 'The agent asked for your approval (past)');
    disableAll(box, 'Asked during this past task.');
  } else {
    queueMicrotask(() => refuse.focus());
  }
  return box;
}

/** A past request, shown but not actionable. */
function disableAll(box, note) {
  for (const control of box.querySelectorAll('button, input')) control.disabled = true;
  box.append(element('p', 'decision', note));
}

/** "12.3k" for a token count. */
function tokens(count) {
  return count >= 1000 ? `${(count / 1000).toFixed(1)}k` : String(count);
}

function renderUsage(event) {
  const cost = event.cost === null || event.cost === undefined
    ? ''
    : ` · $${event.cost.toFixed(event.cost < 0.1 ? 4 : 2)}`;
  usageLine.textContent = `Tokens: ${tokens(event.input_tokens)} in · ${tokens(event.output_tokens)} out${cost}`;
  usageLine.hidden = false;
}

/** In ask-before-acting mode: the step's actions, and Run / Skip / Retry with feedback / Cancel. */
function renderReview(event) {
  const past = replaying;
  const box = element('section', `message approval review${past ? ' past' : ''}`);
  box.setAttribute('role', 'alertdialog');
  box.setAttribute('aria-label', `Step ${event.step}: run these actions?`);
  box.append(element('p', 'question', `Step ${event.step}: ${event.next_goal || 'next actions'}`));
  const list = element('ul');
  for (const action of event.actions) list.append(element('li', null, action));
  box.append(list);
  const feedback = element('input', 'feedback');
  feedback.placeholder = 'Feedback for Retry (optional)';
  feedback.setAttribute('aria-label', 'Feedback for the agent');
  const buttons = element('div', 'buttons');
  const decide = (decision) => {
    send({ type: 'review', id: event.id, decision, feedback: feedback.value });
    for (const control of box.querySelectorAll('button, input')) control.disabled = true;
    box.append(element('p', 'decision', { run: 'Running.', skip: 'Skipped.', retry: 'Sent back.', cancel: 'Cancelled.' }[decision]));
  };
  for (const [decision, label] of [['cancel', 'Cancel'], ['skip', 'Skip'], ['retry', 'Retry'], ['run', 'Run']]) {
    buttons.append(button(decision, label, () => decide(decision)));
  }
  box.append(feedback, buttons);
  if (past) {
    box.setAttribute('role', 'group');
    disableAll(box, 'Reviewed during this past task.');
  }
  return box;
}

/** Renders one event from the worker. */
function render(event) {
  switch (event.type) {
    case 'usage':
      renderUsage(event);
      break;
    case 'model_output':
      // The reply as it streams in, in the step's thinking line.
      if (thinking) {
        let stream = thinking.querySelector('.stream');
        if (!stream) {
          stream = element('pre', 'stream');
          thinking.append(stream);
        }
        stream.textContent = event.text.length > 400 ? `…${event.text.slice(-400)}` : event.text;
      }
      break;
    case 'task_started':
      if (!replaying) {
        startClock();
        setRunning(true);
      }
      append(element('div', 'message user', event.task));
      break;
    case 'task_resumed':
      clearThinking();
      if (!replaying) {
        startClock();
        setRunning(true);
      }
      append(element('div', 'message notice resumed',
        `The browser restarted the extension's background worker; the task continues from step ${event.step}.`));
      break;
    case 'step_started':
      if (replaying) break;
      progress.text = `Step ${event.step} of ${event.max_steps}`;
      showProgress();
      clearThinking();
      thinking = append(element('div', 'message thinking', `Step ${event.step} of ${event.max_steps}: thinking…`));
      break;
    case 'step':
      clearThinking();
      collapseEarlierSteps();
      append(renderStep(event));
      break;
    case 'run_recorded':
      // Offered once the final event is shown, below it.
      pendingRun = event;
      break;
    case 'result': {
      clearThinking();
      if (!replaying) setRunning(false);
      const answer = append(element('div', `message answer ${event.success ? 'succeeded' : 'failed'}`));
      // The core rendered the model's markdown to HTML with raw HTML escaped and only http(s) and
      // mailto links kept (crate/core/src/markdown.rs), so it is safe to insert.
      if (event.html !== undefined) answer.innerHTML = event.html;
      else answer.textContent = event.text;
      answer.setAttribute('role', 'status');
      break;
    }
    case 'error':
      clearThinking();
      if (!replaying) setRunning(false);
      append(renderError(event)).setAttribute('role', 'alert');
      break;
    case 'review_needed':
      clearThinking();
      append(renderReview(event));
      break;
    case 'approval_needed':
      clearThinking();
      append(renderApproval(event));
      break;
    case 'plan': {
      const box = element('section', 'message plan');
      box.setAttribute('aria-label', 'Plan');
      box.append(element('h2', null, 'Plan'), element('p', 'progress', event.progress));
      const list = element('ol');
      for (const next of event.next_steps) list.append(element('li', null, next));
      box.append(list);
      append(box);
      break;
    }
    case 'memory': {
      const box = element('details', 'message notice memory');
      box.append(element('summary', null,
        `Older steps summarised to save tokens (${event.tokens_before} → ${event.tokens_after} tokens)`),
      element('p', null, event.summary));
      append(box);
      break;
    }
    case 'validation':
      append(element('div', `message notice validation ${event.valid ? 'accepted' : 'rejected'}`,
        `${event.valid ? 'Checked' : 'Not accepted yet'}: ${event.reason}`));
      break;
    case 'paused':
      clearThinking();
      if (!replaying) setPaused(true);
      append(element('div', 'message notice paused', `Paused at step ${event.step}. Resume when you are ready.`));
      break;
    case 'resumed':
      if (!replaying) setPaused(false);
      append(element('div', 'message notice', `Resumed at step ${event.step}.`));
      break;
    case 'warning':
      append(element('div', 'message warning', event.message)).setAttribute('role', 'alert');
      break;
    case 'stopped':
      clearThinking();
      if (!replaying) setRunning(false);
      append(element('div', 'message notice', `Stopped after ${event.steps} step${event.steps === 1 ? '' : 's'}.`));
      break;
    case 'trimmed':
      // Where the History left out the oldest part of a long chat (crate/core/src/chats.rs).
      append(element('div', 'message notice trimmed', 'The oldest part of this chat was left out to keep the history small.'));
      break;
    case 'chats':
      showHistoryList(event);
      break;
    case 'chat':
      showChat(event);
      break;
    case 'hello':
      // Sent on every connect. A panel opened mid-task catches up; a panel that was following a
      // task the worker no longer has (the worker was stopped by the browser) says so.
      // A task resumed by a restarted worker: everything since the restart is new to this panel.
      if (log.childElementCount === 0 || event.events[0]?.type === 'task_resumed') {
        for (const past of event.events) render(past);
      } else if (running && !event.running) {
        clearThinking();
        append(element('div', 'message error', 'The task was interrupted because the extension\'s background worker was restarted by the browser. Send the task again to continue.')).setAttribute('role', 'alert');
      }
      setRunning(event.running);
      break;
  }
  if (['result', 'error', 'stopped'].includes(event.type) && pendingRun) {
    // A past run whose record the History left out to save room has nothing to export.
    if (pendingRun.record) append(exportButtons(pendingRun));
    pendingRun = null;
  }
}

/** Saves `text` as a file named `name`. */
function download(name, text, type) {
  const link = element('a');
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

/** Buttons that save the run's record as JSON or as a markdown report (secrets already redacted
 * by the core). */
function exportButtons({ record, report }) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const box = element('div', 'exports');
  const json = button('export json', 'Export run (JSON)',
    () => download(`agent-run-${stamp}.json`, JSON.stringify(record, null, 2), 'application/json'),
    'Export run (JSON): this run as a JSON file');
  const markdown = button('export markdown', 'Report (Markdown)',
    () => download(`agent-run-${stamp}.md`, report, 'text/markdown'),
    'Report (Markdown): this run as a readable report');
  // Runs the recorded actions again in a new chat, the model asked only where the page changed
  // and for the answer (crate/core/src/agent/replay.rs).
  const replay = button('replay', 'Replay', async () => {
    if (running) return;
    resetChat();
    closeHistory(false);
    send({ type: 'replay', record, tabId: await targetTabId() });
  }, 'Replay: run this task again with the recorded actions, asking the model only where the page changed');
  box.append(json, markdown, replay);
  return box;
}

function connect() {
  port = chrome.runtime.connect({ name: PORT_NAME });
  port.onMessage.addListener((event) => {
    if (event?.v === PROTOCOL_VERSION) render(event);
  });
  port.onDisconnect.addListener(() => {
    // The worker went away (stopped by the browser, or the extension reloaded): reconnect, which
    // restarts it, and learn from its hello whether our task survived.
    port = null;
    setTimeout(connect, 100);
  });
}

function send(message) {
  if (!port) connect();
  port.postMessage({ v: PROTOCOL_VERSION, ...message });
}

async function targetTabId() {
  if (fixedTabId) return fixedTabId;
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab?.id ?? null;
}

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  const task = input.value.trim();
  if (!task || running) return;
  input.value = '';
  lastTask = task;
  // A task sent after another in this chat continues its conversation.
  const followUp = log.querySelector('.user') !== null;
  // A chat opened from the History continues where it was stored.
  const chatId = openedChat?.id;
  log.querySelector('.history-notice')?.remove();
  send({ type: 'start_task', task, tabId: await targetTabId(), followUp, ...(chatId ? { chatId } : {}) });
});

input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    form.requestSubmit();
  }
});

stopButton.addEventListener('click', () => send({ type: 'stop' }));
pauseButton.addEventListener('click', () => send({ type: paused ? 'resume' : 'pause' }));
/** An empty chat: the next task starts a new conversation. */
function resetChat() {
  log.replaceChildren();
  clearThinking();
  pendingRun = null;
  openedChat = null;
  usageLine.hidden = true;
  progress.line.hidden = true;
}

document.getElementById('new-chat').addEventListener('click', () => {
  if (running) return;
  resetChat();
  closeHistory(false);
  input.focus();
});
document.addEventListener('keydown', (e) => {
  // Ctrl+K (Cmd+K) goes to the task input from anywhere in the panel.
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
    e.preventDefault();
    input.focus();
    return;
  }
  if (e.key !== 'Escape') return;
  if (!clearConfirm.hidden) {
    confirmClear(false);
    clearAll.focus();
  } else if (!historyView.hidden) {
    closeHistory(true);
  } else if (running) {
    send({ type: 'stop' });
  }
});

// The History: past chats, listed by the worker (crate/core/src/chats.rs keeps them), opened
// read-only into the log, continued by sending, deleted.
const historyView = document.getElementById('history');
const historyButton = document.getElementById('history-button');
const historyList = document.getElementById('history-list');
const historyStatus = document.getElementById('history-status');
const clearAll = document.getElementById('clear-all');
const clearConfirm = document.getElementById('clear-confirm');
/** The last list the worker sent, and a deletion waiting for its answer. */
let listing = { chats: [], current: null, running: false };
let deleting = null;

function openHistory() {
  historyView.hidden = false;
  document.body.classList.add('history-open');
  historyButton.setAttribute('aria-expanded', 'true');
  historyStatus.textContent = 'Loading…';
  confirmClear(false);
  send({ type: 'list_chats' });
  document.getElementById('history-title').focus();
}

function closeHistory(returnFocus) {
  if (historyView.hidden) return;
  historyView.hidden = true;
  document.body.classList.remove('history-open');
  historyButton.setAttribute('aria-expanded', 'false');
  if (returnFocus) historyButton.focus();
}

function formatDate(ms) {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

function chatItem(chat) {
  const runningHere = listing.running && chat.id === listing.current;
  const item = element('li', `chat-item${chat.id === listing.current ? ' current' : ''}`);
  item.dataset.id = chat.id;
  const info = element('div', 'chat-info');
  const title = element('span', 'chat-title', chat.title);
  title.title = chat.title;
  const date = element('time', null, formatDate(chat.updated));
  date.dateTime = new Date(chat.updated).toISOString();
  info.append(title, date);
  if (runningHere) info.append(element('span', 'chat-badge', 'Running now'));
  else if (chat.id === listing.current) info.append(element('span', 'chat-badge', 'Current chat'));
  const actions = element('div', 'chat-actions');
  const open = button('open', 'Open', () => send({ type: 'open_chat', id: chat.id }),
    `Open chat: ${chat.title}, ${formatDate(chat.updated)}`);
  open.disabled = running;
  if (running) open.title = 'Wait for the running task to end';
  const remove = button('delete', 'Delete', () => {
    send({ type: 'delete_chat', id: chat.id });
    // Focus stays in the list: on the next chat, or the heading when none is left.
    const next = item.nextElementSibling ?? item.previousElementSibling;
    deleting = { id: chat.id, focus: next?.dataset.id ?? null };
  }, `Delete chat: ${chat.title}`);
  remove.disabled = runningHere;
  if (runningHere) remove.title = 'This chat is running: stop its task first';
  actions.append(open, remove);
  item.append(info, actions);
  return item;
}

/** The worker's `chats`: the list, after listing, deleting or clearing. */
function showHistoryList(event) {
  const before = listing;
  listing = event;
  // The chat this panel shows was deleted (an opened one, or the worker's current one, which
  // it forgot): it can no longer be continued, so the panel starts afresh.
  const shownGone = openedChat
    ? !event.chats.some((chat) => chat.id === openedChat.id)
    : Boolean(before.current) && event.current === null && log.querySelector('.user') !== null;
  if (shownGone && !running) resetChat();
  historyList.replaceChildren(...event.chats.map(chatItem));
  const count = event.chats.length;
  historyStatus.textContent = event.message ?? (count ? `${count} past chat${count === 1 ? '' : 's'}` : 'No past chats yet.');
  clearAll.hidden = count === 0;
  if (count === 0) confirmClear(false);
  if (deleting) {
    const focus = historyList.querySelector(`[data-id="${CSS.escape(deleting.focus ?? '')}"] .open`);
    (focus ?? document.getElementById('history-title')).focus();
    deleting = null;
  }
}

/** The worker's `chat`: a past chat, shown read-only; sending a message continues it. */
function showChat(event) {
  resetChat();
  closeHistory(false);
  openedChat = { id: event.id, title: event.title };
  replaying = true;
  try {
    for (const past of event.events) render(past);
  } finally {
    replaying = false;
    clearThinking();
    pendingRun = null;
  }
  const notice = append(element('div', 'message notice history-notice',
    `A past chat from ${formatDate(listing.chats.find((c) => c.id === event.id)?.updated ?? Date.now())}, shown read-only. Sending a message continues this chat.`));
  notice.setAttribute('role', 'status');
  input.focus();
}

function confirmClear(show) {
  clearConfirm.hidden = !show;
  clearAll.hidden = show || listing.chats.length === 0;
  if (show) document.getElementById('clear-cancel').focus();
}

historyButton.addEventListener('click', () => (historyView.hidden ? openHistory() : closeHistory(true)));
document.getElementById('history-back').addEventListener('click', () => closeHistory(true));
clearAll.addEventListener('click', () => confirmClear(true));
document.getElementById('clear-cancel').addEventListener('click', () => {
  confirmClear(false);
  clearAll.focus();
});
document.getElementById('clear-yes').addEventListener('click', () => {
  confirmClear(false);
  deleting = { id: null, focus: null };
  send({ type: 'clear_chats' });
});

// Links in answers open in a tab of their own, never in the panel.
log.addEventListener('click', (e) => {
  const link = e.target.closest('.answer a[href]');
  if (!link) return;
  e.preventDefault();
  chrome.tabs.create({ url: link.href });
});

connect();
input.focus();
