// The side panel: sends tasks to the service worker over one port and shows what the agent does.
// Message types are defined by the core (crate/core/src/protocol.rs); this file only renders them.

import { t, localize, said } from '../shared/i18n.js';
import { element, button, download } from '../shared/dom.js';
import { tableRequest, renderData } from './answer-table.js';
import { onRunWorkflow, saveAsWorkflowButton } from './workflows.js';
import { setupApps, showPairing } from './apps.js';
import { listen, send } from '../shared/worker.js';
import { takeAttachments } from './attachments.js';
import { renderFiles } from './task-files.js';
import { filmButton } from './film.js';
import { renderHandOver } from './hand-over.js';

localize();

const log = document.getElementById('log');
const form = document.getElementById('composer');
const input = document.getElementById('task');
const stopButton = document.getElementById('stop');
const pauseButton = document.getElementById('pause');
const usageLine = document.getElementById('usage');
const progressLine = document.getElementById('progress');
const taskList = document.getElementById('task-list');

/** Set by the runner and tests (`panel.html?tab=ID`); otherwise the active tab of this window. */
const fixedTabId = Number(new URLSearchParams(location.search).get('tab')) || null;

/** While a past chat's events are rendered: nothing they show may act or change the panel's state. */
let replaying = false;

/** A new chat's id, in the core's form (crate/core/src/chats.rs). */
function newChatId() {
  const random = crypto.getRandomValues(new Uint32Array(1))[0].toString(16).padStart(8, '0');
  return `${Date.now().toString(16)}-${random}`;
}

/**
 * One chat as this panel shows it: its log, and where its task stands. Several tasks run at once,
 * each in its own chat; the panel shows one and lists the others (`#task-list`).
 */
class ChatView {
  constructor(chat = newChatId()) {
    this.chat = chat;
    this.box = element('div', 'chat-log');
    /** Whether a task of this chat has started, so that the next one continues it. */
    this.started = false;
    /** 'idle', 'queued', 'running', 'paused', 'asking', 'done', 'failed' or 'stopped'. */
    this.state = 'idle';
    this.title = '';
    this.position = 0;
    this.step = null;
    this.thinking = null;
    this.checklist = null;
    /** The list of the current task's files, when it has any. */
    this.files = null;
    /** The record of the task that just ended, until its export buttons are shown. */
    this.pendingRun = null;
    /** The task last sent, for an error's "Try again". */
    this.lastTask = null;
    this.progress = { started: 0, text: '' };
    this.usage = '';
    /** Whether the user has seen it since its task ended (then it leaves the task list). */
    this.seen = true;
  }

  get running() {
    return ['queued', 'running', 'paused', 'asking'].includes(this.state);
  }

  append(el) {
    this.box.append(el);
    if (this === shown) el.scrollIntoView({ block: 'end' });
    return el;
  }

  clearThinking() {
    this.thinking?.remove();
    this.thinking = null;
  }

  /** Empties the log, for a chat rendered again from its events. */
  reset() {
    this.box.replaceChildren();
    this.clearThinking();
    this.checklist = null;
    this.pendingRun = null;
    this.usage = '';
  }
}

/** The chats of this panel, by id, in the order they were opened; `shown` is the one on screen. */
const views = new Map();
let shown = null;

function viewOf(chat) {
  let view = views.get(chat);
  if (!view) {
    view = new ChatView(chat);
    views.set(chat, view);
  }
  return view;
}

/** Puts `view` on screen: its log, its progress and usage, its buttons. */
function show(view) {
  const before = shown;
  shown = view;
  views.set(view.chat, view);
  // A chat without a task under way that the user leaves leaves the list (it is in the History).
  if (before && before !== view && !before.running) views.delete(before.chat);
  if (!view.running) view.seen = true;
  log.replaceChildren(view.box);
  view.box.lastElementChild?.scrollIntoView({ block: 'end' });
  showState();
}

/** The shown chat's buttons, progress and usage, and the list of tasks. */
function showState() {
  const view = shown;
  const running = view.running && view.state !== 'queued';
  stopButton.hidden = !view.running;
  pauseButton.hidden = !running;
  pauseButton.textContent = t(view.state === 'paused' ? 'panel_resume' : 'panel_pause');
  usageLine.textContent = view.usage;
  usageLine.hidden = !view.usage;
  showProgress();
  showTaskList();
}

function showProgress() {
  const view = shown;
  const { started, text } = view.progress;
  if (!view.running || !started) {
    progressLine.hidden = true;
    return;
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  progressLine.textContent = `${text} · ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  progressLine.hidden = false;
}
setInterval(showProgress, 1000);

/** What a task's entry in the list says of it, by its state. */
const STATE_TEXTS = {
  idle: 'panel_status_idle',
  paused: 'panel_status_paused',
  asking: 'panel_status_asking',
  done: 'panel_status_done',
  failed: 'panel_status_failed',
  stopped: 'panel_status_stopped',
};

function stateText(view) {
  switch (view.state) {
    case 'queued': return t('panel_status_queued', view.position);
    case 'running': return view.step ? t('panel_status_step', view.step) : t('panel_starting');
    default: return t(STATE_TEXTS[view.state]);
  }
}

/** Every task this panel follows, to switch between. */
function showTaskList() {
  const listed = [...views.values()].filter((view) => view.running || !view.seen || (view === shown && view.started));
  const list = document.getElementById('tasks');
  // Shown while there is another task to switch to.
  list.hidden = !listed.some((view) => view !== shown);
  taskList.replaceChildren(...listed.map((view) => {
    const item = element('li', `task-item${view === shown ? ' shown' : ''}`);
    item.dataset.chat = view.chat;
    item.dataset.state = view.state;
    const label = view.title || t('panel_new_chat');
    const open = button('task-switch', null, () => show(view), t('panel_task_switch', label, stateText(view)));
    open.append(element('span', 'task-title', label), element('span', 'task-state', stateText(view)));
    if (view === shown) open.setAttribute('aria-current', 'true');
    item.append(open);
    return item;
  }));
}

/** Whether nothing was sent or shown in `view` yet. */
function isBlank(view) {
  return !view.started && !view.lastTask && !view.title && view.box.childElementCount === 0;
}

/** Sets where a chat's task stands, and shows it. A task started elsewhere (an AI app, the
 * runner, a schedule) comes on screen in place of an empty chat. */
function setState(view, state) {
  if (replaying) return;
  view.state = state;
  if (state !== 'asking') closeQuestions(view.box);
  if (!view.running && view !== shown) view.seen = false;
  if (view.running && view !== shown && isBlank(shown)) show(view);
  else if (view === shown) showState();
  else showTaskList();
}

function startClock(view) {
  view.progress = { started: Date.now(), text: t('panel_starting') };
}

/** Shows a step whole, or as its one-line summary. */
function expandStep(box, expanded) {
  box.classList.toggle('collapsed', !expanded);
  box.querySelector('.step-toggle').setAttribute('aria-expanded', String(expanded));
}

/** Earlier steps fold to one line each when a new one arrives; each unfolds on request. */
function collapseEarlierSteps(view) {
  for (const box of view.box.querySelectorAll('.step:not(.collapsed)')) expandStep(box, false);
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
function renderError(view, event) {
  const box = element('div', 'message error');
  box.append(element('p', 'error-text', said(event.message, event.localizable)));
  if (replaying) return box;
  if (event.setting) {
    box.append(button('fix', t('panel_fix_in_settings'), () => chrome.tabs.create({
      url: chrome.runtime.getURL(`extension/options/options.html#${event.setting}`),
    })));
  } else if (view.lastTask) {
    const task = view.lastTask;
    box.append(button('retry', t('panel_try_again'), () => {
      if (view.running) return;
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
function renderApproval(view, event) {
  const past = replaying;
  const box = element('section', `message approval${past ? ' past' : ''}`);
  box.setAttribute('role', 'alertdialog');
  box.setAttribute('aria-label', t('panel_approval'));
  box.append(markedText(element('p', 'question'), said(event.question, event.localizable), event.data ?? []),
    element('p', 'url', event.url));
  const buttons = element('div', 'buttons');
  const answer = (approved) => {
    send({ type: 'approve', id: event.id, approved, chat: view.chat });
    for (const button of buttons.querySelectorAll('button')) button.disabled = true;
    box.append(element('p', 'decision', t(approved ? 'panel_allowed' : 'panel_not_allowed')));
    if (view.state === 'asking') setState(view, 'running');
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

/** The questions in `root` still open are no longer asked: the task went on without an answer
 * (none came in time, or the AI app that asked went away), or it ended. */
function closeQuestions(root) {
  for (const box of root.querySelectorAll('.message.approval')) {
    if (box.querySelector('button:enabled, input:enabled')) disableAll(box, t('panel_question_withdrawn'));
  }
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

function renderUsage(view, event) {
  const line = t('panel_tokens', tokens(event.input_tokens), tokens(event.output_tokens));
  view.usage = event.cost === null || event.cost === undefined ? line : `${line} · ${dollars(event.cost)}`;
  if (view === shown) showState();
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
function renderReview(view, event) {
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
    send({ type: 'review', id: event.id, decision, feedback: feedback.value, chat: view.chat });
    for (const control of box.querySelectorAll('button, input')) control.disabled = true;
    box.append(element('p', 'decision', REVIEW_DECISIONS[decision].done));
    if (view.state === 'asking') setState(view, 'running');
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
function updateChecklist(view, event) {
  if (!view.checklist) {
    const box = element('section', 'message plan');
    box.setAttribute('aria-label', t('panel_plan'));
    view.checklist = { box, progress: element('p', 'progress'), list: element('ul', 'checklist'), items: [] };
    box.append(element('h2', null, t('panel_plan')), view.checklist.progress, view.checklist.list);
  }
  const { checklist } = view;
  const open = checklist.items.filter((item) => !item.done);
  for (const item of open.slice(0, event.steps_done ?? 0)) item.done = true;
  checklist.items = [...checklist.items.filter((item) => item.done), ...event.next_steps.map((text) => ({ text, done: false }))];
  checklist.progress.textContent = event.progress;
  showChecklist(checklist);
  // The plan moves to where the planner last spoke, near the step it guides.
  view.append(checklist.box);
}

function tickChecklist({ checklist }) {
  if (!checklist) return;
  for (const item of checklist.items) item.done = true;
  showChecklist(checklist);
}

function showChecklist(checklist) {
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

/** Handles one message from the worker: an event of a chat's task goes to that chat. */
function receive(event) {
  switch (event.type) {
    case 'chats':
      return showHistoryList(event);
    case 'chat':
      return showChat(event);
    case 'hello':
      return greet(event);
    case 'app_pairing':
      return showPairing(event);
    default:
      // Only a request the worker could not read has no chat: the shown chat sent it.
      return render(event.chat ? viewOf(event.chat) : shown, event);
  }
}

/** Sent on every connect: each task under way or waiting, with its chat's events. A panel opened
 * mid-task catches up; a chat whose task the worker no longer has (the browser stopped the
 * worker, and it could not resume it) says so. */
function greet(event) {
  const chats = new Set(event.tasks.map((task) => task.chat));
  for (const view of views.values()) {
    if (view.running && !chats.has(view.chat)) {
      view.clearThinking();
      view.append(element('div', 'message error', t('panel_task_interrupted'))).setAttribute('role', 'alert');
      setState(view, 'failed');
    }
  }
  for (const task of event.tasks) {
    const view = viewOf(task.chat);
    // The chat's events so far (none yet from a task the restarted worker is still resuming).
    if (task.events.length) {
      view.reset();
      for (const past of task.events) render(view, past);
    }
    setState(view, task.state);
  }
  // A panel just opened shows the latest task.
  if (!shown.started && shown.box.childElementCount === 0 && event.tasks.length) show(viewOf(event.tasks.at(-1).chat));
  showState();
}

/** Renders one event of `view`'s chat. */
function render(view, event) {
  switch (event.type) {
    case 'usage':
      renderUsage(view, event);
      break;
    case 'model_output':
      // The reply as it streams in, in the step's thinking line.
      if (view.thinking) {
        let stream = view.thinking.querySelector('.stream');
        if (!stream) {
          stream = element('pre', 'stream');
          view.thinking.append(stream);
        }
        stream.textContent = event.text.length > 400 ? `…${event.text.slice(-400)}` : event.text;
      }
      break;
    case 'task_queued':
      view.title ||= event.task;
      view.position = event.position;
      view.box.querySelector('.queued')?.remove();
      if (!replaying) view.append(element('div', 'message notice queued', t('panel_task_queued', event.position))).setAttribute('role', 'status');
      setState(view, 'queued');
      break;
    case 'task_started':
      view.box.querySelector('.queued')?.remove();
      view.checklist = null;
      view.files = null;
      view.started = true;
      view.title ||= event.task;
      view.step = null;
      if (!replaying) startClock(view);
      setState(view, 'running');
      view.append(element('div', 'message user', event.task));
      break;
    case 'task_resumed':
      view.clearThinking();
      view.checklist = null;
      view.started = true;
      view.title ||= event.task;
      if (!replaying) startClock(view);
      setState(view, 'running');
      view.append(element('div', 'message notice resumed', t('panel_task_resumed', event.step)));
      break;
    case 'step_started':
      if (replaying) break;
      view.step = event.step;
      view.progress.text = t('panel_step_of', event.step, event.max_steps);
      view.clearThinking();
      view.thinking = view.append(element('div', 'message thinking', t('panel_thinking', event.step, event.max_steps)));
      if (view === shown) showProgress();
      showTaskList();
      break;
    case 'step':
      view.clearThinking();
      // Reported: nothing of the step waits for the user any more.
      if (view.state === 'asking') setState(view, 'running');
      collapseEarlierSteps(view);
      view.append(renderStep(event));
      break;
    case 'run_recorded':
      // Offered once the final event is shown, below it.
      view.pendingRun = event;
      break;
    case 'answer':
      view.append(renderData(event));
      break;
    case 'result':
      view.clearThinking();
      setState(view, event.success ? 'done' : 'failed');
      if (event.success) tickChecklist(view);
      view.append(renderAnswer(event));
      break;
    case 'error':
      view.clearThinking();
      if (view.running || !view.started) setState(view, 'failed');
      view.append(renderError(view, event)).setAttribute('role', 'alert');
      break;
    case 'review_needed':
      view.clearThinking();
      setState(view, 'asking');
      view.append(renderReview(view, event));
      break;
    case 'approval_needed':
      view.clearThinking();
      setState(view, 'asking');
      view.append(renderApproval(view, event));
      break;
    case 'hand_over_needed':
      view.clearThinking();
      setState(view, 'asking');
      view.append(renderHandOver(event, {
        past: replaying,
        answer(decision, note) {
          send({ type: 'hand_over', id: event.id, decision, note, chat: view.chat });
          if (view.state === 'asking') setState(view, 'running');
        },
      }));
      break;
    case 'plan':
      updateChecklist(view, event);
      break;
    case 'memory': {
      const box = element('details', 'message notice memory');
      box.append(element('summary', null,
        t('panel_memory', event.tokens_before, event.tokens_after)),
      element('p', null, event.summary));
      view.append(box);
      break;
    }
    case 'validation':
      view.append(element('div', `message notice validation ${event.valid ? 'accepted' : 'rejected'}`,
        t(event.valid ? 'panel_validation_accepted' : 'panel_validation_rejected', event.reason)));
      break;
    case 'paused':
      view.clearThinking();
      setState(view, 'paused');
      view.append(element('div', 'message notice paused', t('panel_paused', event.step)));
      break;
    case 'resumed':
      setState(view, 'running');
      view.append(element('div', 'message notice', t('panel_resumed', event.step)));
      break;
    case 'warning':
      view.append(element('div', 'message warning', said(event.message, event.localizable))).setAttribute('role', 'alert');
      break;
    case 'stopped':
      view.clearThinking();
      view.box.querySelector('.queued')?.remove();
      setState(view, 'stopped');
      view.append(element('div', 'message notice', t(event.steps === 1 ? 'panel_stopped_one' : 'panel_stopped', event.steps)));
      break;
    case 'app_driving':
      // An AI app's task or session follows; the Stop button ends it like any task.
      view.append(element('div', 'message notice app-driving', t('panel_app_driving', event.client || 'An AI app'))).setAttribute('role', 'status');
      break;
    case 'trimmed':
      // Where the History left out the oldest part of a long chat (crate/core/src/chats.rs).
      view.append(element('div', 'message notice trimmed', t('panel_trimmed')));
      break;
    case 'files':
      // One list per task, where its latest files are, replacing the one before.
      view.files?.remove();
      view.files = view.append(renderFiles(event, view.downloadIds));
      break;
    case 'downloaded':
      // The browser's id of each download, for its Show in folder in the files' list.
      (view.downloadIds ??= new Map()).set(event.name, event.download_id);
      break;
  }
  const { pendingRun } = view;
  if (['result', 'error', 'stopped'].includes(event.type) && pendingRun) {
    // A past run whose record the History left out to save room has nothing to export. An
    // answer keeps them on its card.
    if (pendingRun.record) {
      const card = event.type === 'result' ? view.box.lastElementChild : null;
      if (card) {
        const { replayed_steps: replayed, steps } = pendingRun.record;
        if (replayed) card.querySelector('.answer').after(element('p', 'replayed', t('panel_replayed', replayed, steps.length)));
        card.querySelector('.answer-actions').append(...exportButtons(pendingRun));
        if (event.success) card.querySelector('.answer-actions').append(saveAsWorkflowButton(pendingRun.record, card));
      } else {
        view.append(element('div', 'exports')).append(...exportButtons(pendingRun));
      }
    }
    view.pendingRun = null;
  }
}

/** Buttons that save the run's record as JSON or as a markdown report (secrets already redacted
 * by the core), and replay it. */
function exportButtons({ record, report, chat }) {
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
  return [json, markdown, ...filmButton(chat, record), replay];
}

/** A chat of its own for a new task, on screen, unless the shown one is still empty. */
function freshView() {
  if (shown.started || shown.running || shown.box.childElementCount > 0) show(new ChatView());
  return shown;
}

/** Starts `request` (a replay, a workflow) in a new chat on the target tab. */
async function startAfresh(request) {
  closeHistory(false);
  const view = freshView();
  view.title = request.workflow?.name ?? request.record?.task ?? '';
  send({ ...request, tabId: await targetTabId(), chatId: view.chat });
}

onRunWorkflow(startAfresh);

async function targetTabId() {
  if (fixedTabId) return fixedTabId;
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab?.id ?? null;
}

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  const task = input.value.trim();
  if (!task) return;
  const table = tableRequest();
  if (!table) return;
  input.value = '';
  // A task sent while the shown chat's task runs is a new one, beside it.
  const view = shown.running ? freshView() : shown;
  view.lastTask = task;
  view.title ||= task;
  view.box.querySelector('.history-notice')?.remove();
  // A task sent after another in this chat continues its conversation (a chat opened from the
  // History continues where it was stored).
  const files = await takeAttachments();
  send({ type: 'start_task', task, tabId: await targetTabId(), followUp: view.started, chatId: view.chat, ...table, ...(files.length ? { files } : {}) });
});

input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    form.requestSubmit();
  }
});

stopButton.addEventListener('click', () => send({ type: 'stop', chat: shown.chat }));
pauseButton.addEventListener('click', () => send(shown.state === 'paused' ? { type: 'resume', chat: shown.chat } : { type: 'pause', chat: shown.chat }));

document.getElementById('new-chat').addEventListener('click', () => {
  closeHistory(false);
  freshView();
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
  } else if (shown.running) {
    send({ type: 'stop', chat: shown.chat });
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
let listing = { chats: [], running: [] };
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
  const runningHere = listing.running.includes(chat.id);
  const current = chat.id === shown.chat;
  const item = element('li', `chat-item${current ? ' current' : ''}`);
  item.dataset.id = chat.id;
  const info = element('div', 'chat-info');
  const title = element('span', 'chat-title', chat.title);
  title.title = chat.title;
  const date = element('time', null, formatDate(chat.updated));
  date.dateTime = new Date(chat.updated).toISOString();
  info.append(title, date);
  if (runningHere) info.append(element('span', 'chat-badge', t('panel_chat_running')));
  else if (current) info.append(element('span', 'chat-badge', t('panel_chat_current')));
  const actions = element('div', 'chat-actions');
  // A chat whose task runs is followed live; another is read from the History.
  const open = button('open', t('panel_open'), () => {
    const view = views.get(chat.id);
    if (view?.running) {
      closeHistory(false);
      show(view);
    } else {
      send({ type: 'open_chat', id: chat.id });
    }
  }, t('panel_open_chat', chat.title, formatDate(chat.updated)));
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
  listing = event;
  // The chat this panel shows was deleted: it can no longer be continued, so the panel starts
  // afresh.
  if (shown.started && !shown.running && !event.chats.some((chat) => chat.id === shown.chat)) show(new ChatView());
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
  closeHistory(false);
  const view = new ChatView(event.id);
  view.title = event.title;
  view.started = true;
  replaying = true;
  try {
    for (const past of event.events) render(view, past);
  } finally {
    replaying = false;
    view.clearThinking();
    view.pendingRun = null;
  }
  const notice = view.append(element('div', 'message notice history-notice',
    t('panel_past_chat', formatDate(listing.chats.find((c) => c.id === event.id)?.updated ?? Date.now()))));
  notice.setAttribute('role', 'status');
  show(view);
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

show(new ChatView());
// Reconnects when the worker goes away, and learns from its hello whether our tasks survived.
listen(receive);
setupApps({ sendMessage: send, tabOf: targetTabId });
input.focus();
