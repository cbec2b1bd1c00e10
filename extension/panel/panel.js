// The side panel: sends tasks to the service worker over one port and shows what the agent does.
// Message types are defined by the core (crate/core/src/protocol.rs); this file only renders them.

import { t, localize, said } from '../shared/i18n.js';
import { element, button, download } from '../shared/dom.js';
import { onRunWorkflow, saveAsWorkflowButton } from './workflows.js';

localize();

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


function append(el) {
  log.append(el);
  el.scrollIntoView({ block: 'end' });
  return el;
}

let paused = false;

function setPaused(value) {
  paused = value;
  pauseButton.textContent = t(value ? 'panel_resume' : 'panel_pause');
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
  progress.text = t('panel_starting');
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
  box.setAttribute('aria-label', t('panel_step', event.step));
  const heading = element('h2');
  const toggle = button('step-toggle', t('panel_step_of', event.step, event.max_steps), () => expandStep(box, box.classList.contains('collapsed')));
  toggle.setAttribute('aria-expanded', 'true');
  heading.append(toggle);
  const failed = event.actions.some((action) => !action.ok);
  const summary = element('p', 'summary', `${failed ? '✗' : '✓'} ${event.next_goal || t('panel_no_goal')} · ${event.actions.map((a) => a.name).join(', ')}`);
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
        `${action.outcome} ${t('panel_show_element')}`);
      show.title = t('panel_show_element');
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
    picture.alt = t('panel_step_screenshot', event.step);
    box.append(picture);
  }
  return box;
}

/** An error, with its fix one click away: the setting to change, or the task tried again. */
function renderError(event) {
  const box = element('div', 'message error');
  box.append(element('p', 'error-text', said(event.message, event.localizable)));
  if (replaying) return box;
  if (event.setting) {
    box.append(button('fix', t('panel_fix_in_settings'), () => chrome.tabs.create({
      url: chrome.runtime.getURL(`extension/options/options.html#${event.setting}`),
    })));
  } else if (lastTask) {
    const task = lastTask;
    box.append(button('retry', t('panel_try_again'), () => {
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
  box.setAttribute('aria-label', t('panel_approval'));
  box.append(markedText(element('p', 'question'), said(event.question, event.localizable), event.data ?? []),
    element('p', 'url', event.url));
  const buttons = element('div', 'buttons');
  const answer = (approved) => {
    send({ type: 'approve', id: event.id, approved });
    for (const button of buttons.querySelectorAll('button')) button.disabled = true;
    box.append(element('p', 'decision', t(approved ? 'panel_allowed' : 'panel_not_allowed')));
  };
  buttons.append(button('refuse', t('panel_refuse'), () => answer(false)), button('allow', t('panel_allow'), () => answer(true)));
  box.append(buttons);
  if (past) {
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', t('panel_approval_past'));
    disableAll(box, t('panel_asked_in_past_task'));
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

/** A cost in US dollars, written the user's way; small ones to a hundredth of a cent. */
function dollars(cost) {
  const digits = cost < 0.1 ? 4 : 2;
  return new Intl.NumberFormat(chrome.i18n.getUILanguage(), { style: 'currency', currency: 'USD', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(cost);
}

function renderUsage(event) {
  const line = t('panel_tokens', tokens(event.input_tokens), tokens(event.output_tokens));
  usageLine.textContent = event.cost === null || event.cost === undefined
    ? line
    : `${line} · ${dollars(event.cost)}`;
  usageLine.hidden = false;
}

/** The decisions on a step in review, in the order of their buttons: each button's label and
 * what the panel says once it is taken. */
const REVIEW_DECISIONS = {
  cancel: { label: t('panel_review_cancel'), done: t('panel_review_cancelled') },
  skip: { label: t('panel_review_skip'), done: t('panel_review_skipped') },
  retry: { label: t('panel_review_retry'), done: t('panel_review_sent_back') },
  run: { label: t('panel_review_run'), done: t('panel_review_running') },
};

/** In ask-before-acting mode: the step's actions, and Run / Skip / Retry with feedback / Cancel. */
function renderReview(event) {
  const past = replaying;
  const box = element('section', `message approval review${past ? ' past' : ''}`);
  box.setAttribute('role', 'alertdialog');
  box.setAttribute('aria-label', t('panel_review', event.step));
  box.append(element('p', 'question', t('panel_review_question', event.step, event.next_goal || t('panel_next_actions'))));
  const list = element('ul');
  for (const action of event.actions) list.append(element('li', null, action));
  box.append(list);
  const feedback = element('input', 'feedback');
  feedback.placeholder = t('panel_feedback_placeholder');
  feedback.setAttribute('aria-label', t('panel_feedback'));
  const buttons = element('div', 'buttons');
  const decide = (decision) => {
    send({ type: 'review', id: event.id, decision, feedback: feedback.value });
    for (const control of box.querySelectorAll('button, input')) control.disabled = true;
    box.append(element('p', 'decision', REVIEW_DECISIONS[decision].done));
  };
  for (const [decision, { label }] of Object.entries(REVIEW_DECISIONS)) {
    buttons.append(button(decision, label, () => decide(decision)));
  }
  box.append(feedback, buttons);
  if (past) {
    box.setAttribute('role', 'group');
    disableAll(box, t('panel_reviewed_in_past_task'));
  }
  return box;
}

/** The task's plan as a checklist, one card per task: the steps the planner counts as done are
 * ticked, the others give way to its new next steps, and a success ticks them all. */
let checklist = null;

function updateChecklist(event) {
  if (!checklist) {
    const box = element('section', 'message plan');
    box.setAttribute('aria-label', t('panel_plan'));
    checklist = { box, progress: element('p', 'progress'), list: element('ul', 'checklist'), items: [] };
    box.append(element('h2', null, t('panel_plan')), checklist.progress, checklist.list);
  }
  const open = checklist.items.filter((item) => !item.done);
  for (const item of open.slice(0, event.steps_done ?? 0)) item.done = true;
  checklist.items = [...checklist.items.filter((item) => item.done), ...event.next_steps.map((text) => ({ text, done: false }))];
  checklist.progress.textContent = event.progress;
  showChecklist();
  // The plan moves to where the planner last spoke, near the step it guides.
  append(checklist.box);
}

function tickChecklist() {
  if (!checklist) return;
  for (const item of checklist.items) item.done = true;
  showChecklist();
}

function showChecklist() {
  checklist.list.replaceChildren(...checklist.items.map(({ text, done }) => {
    const item = element('li', done ? 'done' : 'open');
    const mark = element('span', 'tick', done ? '✓' : '○');
    mark.setAttribute('aria-hidden', 'true');
    item.append(mark, element('span', 'visually-hidden', t(done ? 'panel_plan_step_done' : 'panel_plan_step_open')), text);
    return item;
  }));
}

/** The answer, prominent, with Copy (its markdown) and, once the run is recorded, the exports. */
function renderAnswer(event) {
  const title = t(event.success ? 'panel_answer' : 'panel_answer_failed');
  const card = element('section', `message answer-card ${event.success ? 'succeeded' : 'failed'}`);
  card.setAttribute('aria-label', title);
  const answer = element('div', `answer ${event.success ? 'succeeded' : 'failed'}`);
  // The core's own answer (the steps ran out) in the user's language. Otherwise the core rendered
  // the model's markdown to HTML with raw HTML escaped and only http(s) and mailto links kept
  // (crate/core/src/markdown.rs), so it is safe to insert.
  const text = said(event.text, event.localizable);
  if (event.html !== undefined && !event.localizable) answer.innerHTML = event.html;
  else answer.textContent = text;
  answer.setAttribute('role', 'status');
  const actions = element('div', 'answer-actions');
  actions.append(copyButton(text));
  card.append(element('h2', null, title), answer, actions);
  return card;
}

function copyButton(text) {
  const copy = button('copy', t('panel_copy'), async () => {
    try {
      await navigator.clipboard.writeText(text);
      copy.textContent = t('panel_copied');
    } catch {
      copy.textContent = t('panel_copy_failed');
    }
    setTimeout(() => { copy.textContent = t('panel_copy'); }, 2000);
  }, t('panel_copy_label'));
  return copy;
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
      checklist = null;
      if (!replaying) {
        startClock();
        setRunning(true);
      }
      append(element('div', 'message user', event.task));
      break;
    case 'task_resumed':
      clearThinking();
      checklist = null;
      if (!replaying) {
        startClock();
        setRunning(true);
      }
      append(element('div', 'message notice resumed',
        t('panel_task_resumed', event.step)));
      break;
    case 'step_started':
      if (replaying) break;
      progress.text = t('panel_step_of', event.step, event.max_steps);
      showProgress();
      clearThinking();
      thinking = append(element('div', 'message thinking', t('panel_thinking', event.step, event.max_steps)));
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
    case 'result':
      clearThinking();
      if (!replaying) setRunning(false);
      if (event.success) tickChecklist();
      append(renderAnswer(event));
      break;
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
    case 'plan':
      updateChecklist(event);
      break;
    case 'memory': {
      const box = element('details', 'message notice memory');
      box.append(element('summary', null,
        t('panel_memory', event.tokens_before, event.tokens_after)),
      element('p', null, event.summary));
      append(box);
      break;
    }
    case 'validation':
      append(element('div', `message notice validation ${event.valid ? 'accepted' : 'rejected'}`,
        t(event.valid ? 'panel_validation_accepted' : 'panel_validation_rejected', event.reason)));
      break;
    case 'paused':
      clearThinking();
      if (!replaying) setPaused(true);
      append(element('div', 'message notice paused', t('panel_paused', event.step)));
      break;
    case 'resumed':
      if (!replaying) setPaused(false);
      append(element('div', 'message notice', t('panel_resumed', event.step)));
      break;
    case 'warning':
      append(element('div', 'message warning', said(event.message, event.localizable))).setAttribute('role', 'alert');
      break;
    case 'stopped':
      clearThinking();
      if (!replaying) setRunning(false);
      append(element('div', 'message notice', t(event.steps === 1 ? 'panel_stopped_one' : 'panel_stopped', event.steps)));
      break;
    case 'app_driving':
      // An AI app's task or session follows; the Stop button ends it like any task.
      append(element('div', 'message notice app-driving', t('panel_app_driving', event.client || 'An AI app'))).setAttribute('role', 'status');
      break;
    case 'trimmed':
      // Where the History left out the oldest part of a long chat (crate/core/src/chats.rs).
      append(element('div', 'message notice trimmed', t('panel_trimmed')));
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
        append(element('div', 'message error', t('panel_task_interrupted'))).setAttribute('role', 'alert');
      }
      setRunning(event.running);
      break;
  }
  if (['result', 'error', 'stopped'].includes(event.type) && pendingRun) {
    // A past run whose record the History left out to save room has nothing to export. An
    // answer keeps them on its card.
    if (pendingRun.record) {
      const card = event.type === 'result' ? log.lastElementChild : null;
      if (card) {
        const { replayed_steps: replayed, steps } = pendingRun.record;
        if (replayed) card.querySelector('.answer').after(element('p', 'replayed', t('panel_replayed', replayed, steps.length)));
        card.querySelector('.answer-actions').append(...exportButtons(pendingRun));
        if (event.success) card.querySelector('.answer-actions').append(saveAsWorkflowButton(pendingRun.record, card));
      } else {
        append(element('div', 'exports')).append(...exportButtons(pendingRun));
      }
    }
    pendingRun = null;
  }
}

/** Buttons that save the run's record as JSON or as a markdown report (secrets already redacted
 * by the core), and replay it. */
function exportButtons({ record, report }) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const json = button('export json', t('panel_export_json'),
    () => download(`agent-run-${stamp}.json`, JSON.stringify(record, null, 2), 'application/json'),
    t('panel_export_json_label'));
  const markdown = button('export markdown', t('panel_export_report'),
    () => download(`agent-run-${stamp}.md`, report, 'text/markdown'),
    t('panel_export_report_label'));
  // Runs the recorded actions again in a new chat, the model asked only where the page changed
  // and for the answer (crate/core/src/agent/replay.rs).
  const replay = button('replay', t('panel_replay'), () => startAfresh({ type: 'replay', record }), t('panel_replay_label'));
  return [json, markdown, replay];
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

/** Starts `request` (a replay, a workflow) in a new chat on the target tab. */
async function startAfresh(request) {
  if (running) return;
  resetChat();
  closeHistory(false);
  send({ ...request, tabId: await targetTabId() });
}

onRunWorkflow(startAfresh);

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
  historyStatus.textContent = t('panel_loading');
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
  return new Date(ms).toLocaleString(chrome.i18n.getUILanguage(), { dateStyle: 'medium', timeStyle: 'short' });
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
  if (runningHere) info.append(element('span', 'chat-badge', t('panel_chat_running')));
  else if (chat.id === listing.current) info.append(element('span', 'chat-badge', t('panel_chat_current')));
  const actions = element('div', 'chat-actions');
  const open = button('open', t('panel_open'), () => send({ type: 'open_chat', id: chat.id }),
    t('panel_open_chat', chat.title, formatDate(chat.updated)));
  open.disabled = running;
  if (running) open.title = t('panel_wait_for_task');
  const remove = button('delete', t('panel_delete'), () => {
    send({ type: 'delete_chat', id: chat.id });
    // Focus stays in the list: on the next chat, or the heading when none is left.
    const next = item.nextElementSibling ?? item.previousElementSibling;
    deleting = { id: chat.id, focus: next?.dataset.id ?? null };
  }, t('panel_delete_chat', chat.title));
  remove.disabled = runningHere;
  if (runningHere) remove.title = t('panel_chat_running_stop_first');
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
  const counted = count === 0 ? t('panel_no_chats') : count === 1 ? t('panel_one_chat') : t('panel_chats', count);
  historyStatus.textContent = event.message ?? counted;
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
    t('panel_past_chat', formatDate(listing.chats.find((c) => c.id === event.id)?.updated ?? Date.now()))));
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
