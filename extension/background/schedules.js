// Scheduled workflows in the worker: one alarm per stored schedule, for its next run only (the
// core says when, on the local clock: crate/core/src/workflow/schedule.rs), a run started by its
// alarm, which sets the next, and the notifications that tell a user who may be away what a
// scheduled run needs and how it ended. No alarm repeats by itself: a fixed `periodInMinutes`
// would drift an hour off the local clock at each daylight-saving change.

import { scheduleAlarm } from '../core/agent_wasm.js';
import { t, said } from '../shared/i18n.js';
import { PROTOCOL_VERSION } from '../shared/worker.js';

const SCHEDULES_KEY = 'schedules';
const WORKFLOWS_KEY = 'workflows';
const ALARM_PREFIX = 'schedule:';
/** Notification ids: `question|CHAT|ID` for a question (its buttons answer it), `end|CHAT`. */
const SEPARATOR = '|';
const ICON = chrome.runtime.getURL('extension/icons/icon-128.png');

async function stored() {
  const found = await chrome.storage.local.get([SCHEDULES_KEY, WORKFLOWS_KEY]);
  const list = (key) => (Array.isArray(found[key]) ? found[key] : []);
  return { schedules: list(SCHEDULES_KEY), workflows: list(WORKFLOWS_KEY) };
}

/**
 * Sets an alarm for each stored schedule's next run after `now`, and clears the others (and any
 * repeating one an earlier version set): as the worker starts, after a run, and after the worker
 * wrote the workflows or the schedules.
 */
export async function syncAlarms(now = Date.now()) {
  const { schedules, workflows } = await stored();
  const wanted = new Map();
  for (const schedule of schedules) {
    const alarm = scheduleAlarm(schedule, workflows, now);
    if (alarm) wanted.set(ALARM_PREFIX + schedule.workflow, alarm);
  }
  for (const alarm of await chrome.alarms.getAll()) {
    if (!alarm.name.startsWith(ALARM_PREFIX)) continue;
    const next = wanted.get(alarm.name);
    if (next && !alarm.periodInMinutes && alarm.scheduledTime === next.when) wanted.delete(alarm.name);
    else await chrome.alarms.clear(alarm.name);
  }
  for (const [name, { when }] of wanted) await chrome.alarms.create(name, { when });
}

/**
 * A schedule's alarm: its workflow runs, and the alarm is set for the run after this one (a
 * single run's schedule is done instead).
 */
async function runDue(core, alarm) {
  if (!alarm.name.startsWith(ALARM_PREFIX)) return;
  const name = alarm.name.slice(ALARM_PREFIX.length);
  const { schedules, workflows } = await stored();
  const schedule = schedules.find((s) => s.workflow === name);
  const workflow = workflows.find((w) => w.name === name);
  if (!schedule || !workflow) return;
  if (schedule.repeat === 'once') {
    await chrome.storage.local.set({ [SCHEDULES_KEY]: schedules.filter((s) => s !== schedule) });
  }
  try {
    (await core).runScheduled(workflow, schedule.values ?? {});
  } catch (err) {
    notifyEnd(name, { chat: name, type: 'error', message: String(err) });
  }
  // The next run's alarm: after the run this one was for, even should the clock read a little
  // earlier than it.
  if (schedule.repeat !== 'once') await core.then(() => syncAlarms(Math.max(Date.now(), alarm.scheduledTime)));
}

function notifyEnd(workflow, event) {
  const title = t(event.type === 'result' && event.success ? 'schedule_notify_done' : 'schedule_notify_failed', workflow);
  const message = event.type === 'result' ? event.text
    : event.type === 'stopped' ? t('schedule_notify_stopped')
      : said(event.message, event.localizable);
  chrome.notifications.create(['end', event.chat].join(SEPARATOR), { type: 'basic', iconUrl: ICON, title, message });
}

/**
 * Tells the user what a scheduled run of `workflow` needs (a question, answered by the
 * notification's buttons or in the side panel) or how it ended (`event`, as the panel gets it);
 * also that an AI app's task (`workflow` is then the app's name) waits for them to take over.
 */
export function notifyUser(workflow, event) {
  if (event.type === 'hand_over_needed') return notifyHandOver(workflow, event);
  if (event.type !== 'approval_needed' && event.type !== 'review_needed') return notifyEnd(workflow, event);
  const question = event.type === 'approval_needed'
    ? said(event.question, event.localizable)
    : t('panel_review_question', event.step, event.next_goal || t('panel_next_actions'));
  chrome.notifications.create([event.type, event.chat, event.id].join(SEPARATOR), {
    type: 'basic',
    iconUrl: ICON,
    title: t('schedule_notify_waits', workflow),
    message: question,
    buttons: [{ title: t('panel_allow') }, { title: t('panel_refuse') }],
    requireInteraction: true,
  });
  return undefined;
}

/** A scheduled run or an app's task waits for the user to take over in its tab (a sign-in, a
 * CAPTCHA): Take over brings the tab forward (the side panel's Continue goes on), Stop ends the
 * run; without an answer, the core ends it after its time limit. */
function notifyHandOver(workflow, event) {
  chrome.notifications.create([event.type, event.chat, event.id, event.tab].join(SEPARATOR), {
    type: 'basic',
    iconUrl: ICON,
    title: t('schedule_notify_hand_over', workflow),
    message: said(event.question, event.localizable),
    buttons: [{ title: t('panel_take_over') }, { title: t('panel_hand_over_stop') }],
    requireInteraction: true,
  });
}

/** Sets the alarms of the stored schedules (each set again as the worker starts), runs what is
 * due, and takes the answers given in notifications. Called once, as the worker starts (so that
 * an alarm wakes it); `core()` is the core as it is now (a fresh one after a panic). */
export function watchSchedules(core) {
  chrome.alarms.onAlarm.addListener((alarm) => runDue(core(), alarm));
  core().then(() => syncAlarms());
  chrome.notifications.onButtonClicked.addListener(async (id, button) => {
    const [type, chat, question, tab] = id.split(SEPARATOR);
    const allowed = button === 0;
    if (type === 'hand_over_needed') {
      // Take over leaves the question open: the user continues in the side panel.
      if (allowed) await chrome.tabs.update(Number(tab), { active: true }).then((shown) => chrome.windows.update(shown.windowId, { focused: true })).catch(() => {});
      else (await core()).handlePanelMessage({ v: PROTOCOL_VERSION, type: 'hand_over', id: Number(question), decision: 'stop', chat });
      chrome.notifications.clear(id);
      return;
    }
    const answer = type === 'approval_needed'
      ? { type: 'approve', id: Number(question), approved: allowed, chat }
      : { type: 'review', id: Number(question), decision: allowed ? 'run' : 'skip', chat };
    (await core()).handlePanelMessage({ v: PROTOCOL_VERSION, ...answer });
    chrome.notifications.clear(id);
  });
}
