// Workflows in the panel: a successful run saved with its inputs as parameters (the core proposes
// them; the user renames or drops them), listed under Workflows, run again with new values,
// scheduled, exported and imported as JSON. The worker checks every workflow and schedule, keeps
// the store bounded and keeps an alarm for each schedule (crate/core/src/saved.rs,
// crate/core/src/workflow/); this file only shows them and asks it.

import { t, said } from '../shared/i18n.js';
import { element, button, download } from '../shared/dom.js';
import { ask } from '../shared/worker.js';

const REPEATS = ['once', 'hourly', 'daily', 'weekly'];
const REPEAT_TEXTS = { once: 'schedule_once', hourly: 'schedule_hourly', daily: 'schedule_daily', weekly: 'schedule_weekly' };

const view = document.getElementById('workflows');
const openButton = document.getElementById('workflows-button');
const list = document.getElementById('workflow-list');
const status = document.getElementById('workflows-status');
const importFile = document.getElementById('workflow-import-file');

/** Starts a workflow run in the chat (set by the panel). */
let runRequest = () => {};

export function onRunWorkflow(run) {
  runRequest = run;
}

/** Asks the worker `request`; throws the problem its answer names, if any. */
async function change(request) {
  const { problem } = await ask(request);
  if (problem) throw new Error(said(problem.message, problem.localizable));
}

/** Adds `workflow` as `name` with its parameters renamed by `names` (null in it drops one; null
 * keeps them all as they are). */
function add(workflow, name, names) {
  return change({ type: 'save_workflow', workflow, name, names });
}

/** "Save as workflow" under a successful answer: a form with the proposed parameters. */
export function saveAsWorkflowButton(record, card) {
  return button('save-workflow', t('workflow_save_as'), async (e) => {
    e.currentTarget.disabled = true;
    let proposed;
    try {
      const answer = await ask({ type: 'propose_workflow', record });
      if (answer.problem) throw new Error(answer.problem.message);
      proposed = answer.workflow;
    } catch (err) {
      card.append(element('p', 'status-error', String(err.message)));
      return;
    }
    card.append(saveForm(proposed));
    card.querySelector('.workflow-form input').focus();
  });
}

function saveForm(proposed) {
  const form = element('form', 'workflow-form');
  form.setAttribute('aria-label', t('workflow_save_as'));
  const nameLabel = element('label', null, t('workflow_name'));
  const name = element('input', 'workflow-name');
  name.value = proposed.name;
  nameLabel.append(name);
  form.append(nameLabel);
  const rows = proposed.params.map((param, i) => {
    const row = element('div', 'workflow-param');
    const keep = element('input');
    keep.type = 'checkbox';
    keep.checked = true;
    keep.id = `workflow-keep-${i}`;
    keep.setAttribute('aria-label', t('workflow_keep_param', param.value));
    const paramName = element('input', 'param-name');
    paramName.value = param.name;
    paramName.setAttribute('aria-label', t('workflow_param_name', param.value));
    row.append(keep, paramName, element('span', 'param-value', param.value));
    form.append(row);
    return { keep, paramName };
  });
  if (!rows.length) form.append(element('p', 'hint', t('workflow_no_params')));
  const say = element('p', 'workflow-form-status');
  say.setAttribute('role', 'status');
  form.append(button('cancel', t('panel_cancel'), () => form.remove()), element('button', 'save', t('saved_save')), say);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const names = rows.map(({ keep, paramName }) => (keep.checked ? paramName.value.trim() : null));
    try {
      await add(proposed, name.value, names);
      form.replaceChildren(element('p', 'decision', t('workflow_saved')));
    } catch (err) {
      say.textContent = String(err.message);
    }
  });
  return form;
}

/** A date and time in the user's way. */
function when(ms) {
  return new Date(ms).toLocaleString(chrome.i18n.getUILanguage(), { dateStyle: 'medium', timeStyle: 'short' });
}

/** `ms` as a datetime-local field takes it (the user's local time). */
function localInput(ms) {
  const date = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 19);
}

/** What a workflow's schedule does, and when it next runs (`next`, as the worker says). */
function scheduleLine(schedule) {
  const text = schedule.next ? t('schedule_next', t(REPEAT_TEXTS[schedule.repeat]), when(schedule.next)) : t('schedule_over');
  return element('p', 'schedule-line', text);
}

/** The schedule form of a workflow: how often, the first run, Save and Remove; the values are
 * those in the workflow's fields (`values()`). */
function scheduleForm(workflow, schedule, values) {
  const form = element('form', 'schedule-form');
  form.setAttribute('aria-label', t('schedule_label', workflow.name));
  const repeatLabel = element('label', null, t('schedule_repeat'));
  const repeat = element('select', 'schedule-repeat');
  for (const value of REPEATS) {
    const option = element('option', null, t(REPEAT_TEXTS[value]));
    option.value = value;
    repeat.append(option);
  }
  repeat.value = schedule?.repeat ?? 'daily';
  repeatLabel.append(repeat);
  const firstLabel = element('label', null, t('schedule_first_run'));
  const first = element('input', 'schedule-first');
  first.type = 'datetime-local';
  first.step = 1;
  first.value = localInput(schedule?.first_ms ?? Math.ceil(Date.now() / 3_600_000) * 3_600_000);
  firstLabel.append(first);
  const say = element('p', 'schedule-status');
  say.setAttribute('role', 'status');
  form.append(repeatLabel, firstLabel, element('button', 'save-schedule', t('schedule_save')));
  if (schedule) {
    form.append(button('remove-schedule', t('schedule_remove'), async () => {
      try {
        await change({ type: 'remove_schedule', workflow: workflow.name });
        show(t('schedule_removed', workflow.name));
      } catch (err) {
        say.textContent = String(err.message);
      }
    }));
  }
  form.append(say);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const wanted = { workflow: workflow.name, values: values(), repeat: repeat.value, first_ms: new Date(first.value).getTime() || 0 };
    try {
      await change({ type: 'set_schedule', schedule: wanted });
      show(t('schedule_saved', workflow.name));
    } catch (err) {
      say.textContent = t('schedule_not_saved', String(err.message));
    }
  });
  return form;
}

/** One stored workflow: its name and task, a field per parameter, its schedule, Run, Schedule,
 * Export and Delete. */
function workflowItem(workflow, schedules) {
  const item = element('li', 'workflow');
  item.append(element('h3', null, workflow.name), element('p', 'workflow-task', workflow.task));
  const fields = workflow.params.map((param) => {
    const label = element('label', null, param.name);
    const input = element('input');
    input.value = param.value;
    input.name = param.name;
    label.append(input);
    item.append(label);
    return input;
  });
  const values = () => Object.fromEntries(fields.map((input) => [input.name, input.value]));
  const run = () => {
    close();
    runRequest({ type: 'run_workflow', workflow, values: values() });
  };
  const schedule = schedules.find((s) => s.workflow === workflow.name);
  if (schedule) item.append(scheduleLine(schedule));
  const toggleSchedule = (e) => {
    const open = item.querySelector('.schedule-form');
    e.currentTarget.setAttribute('aria-expanded', String(!open));
    if (open) return open.remove();
    item.append(scheduleForm(workflow, schedule, values));
    return item.querySelector('.schedule-repeat').focus();
  };
  const file = workflow.name.replace(/[^\w-]+/g, '-').slice(0, 40) || 'workflow';
  const exportIt = () => download(`${file}.json`, `${JSON.stringify(workflow, null, 2)}\n`, 'application/json');
  const script = async () => {
    const answer = await ask({ type: 'workflow_script', workflow });
    if (answer.problem) return show(answer.problem.message);
    return download(`${file}.mjs`, answer.script, 'text/javascript');
  };
  const remove = async () => {
    try {
      await change({ type: 'delete_workflow', name: workflow.name });
      show();
    } catch (err) {
      show(String(err.message));
    }
  };
  const actions = element('div', 'workflow-actions');
  actions.append(
    button('run', t('workflow_run'), run, t('workflow_run_label', workflow.name)),
    button('schedule', t('workflow_schedule'), toggleSchedule, t('workflow_schedule_label', workflow.name)),
    button('export', t('workflow_export'), exportIt, t('workflow_export_label', workflow.name)),
    button('script', t('workflow_script'), script, t('workflow_script_label', workflow.name)),
    button('delete', t('panel_delete'), remove, t('workflow_delete_label', workflow.name)),
  );
  item.append(actions);
  return item;
}

async function show(message) {
  const { workflows, schedules, problem } = await ask({ type: 'list_workflows' });
  list.replaceChildren(...workflows.map((workflow) => workflowItem(workflow, schedules)));
  const state = problem ? said(problem.message, problem.localizable) : (workflows.length ? '' : t('workflow_none'));
  status.textContent = message ?? state;
}

function open() {
  view.hidden = false;
  document.body.classList.add('workflows-open');
  openButton.setAttribute('aria-expanded', 'true');
  document.getElementById('workflows-title').focus();
  show();
}

function close() {
  view.hidden = true;
  document.body.classList.remove('workflows-open');
  openButton.setAttribute('aria-expanded', 'false');
}

openButton.addEventListener('click', () => (view.hidden ? open() : close()));
document.getElementById('workflows-back').addEventListener('click', () => {
  close();
  openButton.focus();
});
document.getElementById('workflow-import').addEventListener('click', () => importFile.click());
importFile.addEventListener('change', async () => {
  const [file] = importFile.files;
  importFile.value = '';
  if (!file) return;
  try {
    const workflow = JSON.parse(await file.text());
    await add(workflow, String(workflow.name ?? ''), null);
    show(t('workflow_imported'));
  } catch (err) {
    show(t('workflow_import_failed', String(err.message ?? err)));
  }
});
