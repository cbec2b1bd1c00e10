// Saved tasks in the panel: Save keeps the task in the input; "/" in the input lists the saved
// ones, filtered by what follows it (arrows move, Enter inserts, Escape closes), each with Edit,
// Move up and Delete. An inserted task's first {placeholder} is selected, to be typed over.

import { said, t } from '../shared/i18n.js';
import { element, button } from '../shared/dom.js';
import { ask } from '../shared/worker.js';

const input = document.getElementById('task');
const saveButton = document.getElementById('save-task');
const list = document.getElementById('saved-list');
const status = document.getElementById('saved-status');

let tasks = [];
let active = 0;
/** The index of the saved task being edited in the input, if any. */
let editing = null;

function say(text) {
  status.textContent = text;
  status.hidden = !text;
}

/** The saved tasks matching what follows "/" in the input, with their indices. */
function matches() {
  const query = input.value.slice(1).trim().toLowerCase();
  return tasks.map((text, index) => ({ text, index })).filter(({ text }) => text.toLowerCase().includes(query));
}

const isOpen = () => !list.hidden;

function close() {
  list.hidden = true;
  input.setAttribute('aria-expanded', 'false');
  input.removeAttribute('aria-activedescendant');
}

function itemButton(label, action, name) {
  const el = button(null, label, (e) => {
    e.stopPropagation();
    action();
  }, name);
  el.addEventListener('mousedown', (e) => e.preventDefault()); // Keep the input's focus.
  return el;
}

function render() {
  const shown = matches();
  if (!input.value.startsWith('/')) return close();
  active = Math.min(active, Math.max(0, shown.length - 1));
  list.replaceChildren(...(shown.length ? shown.map(({ text, index }, i) => {
    const option = element('li');
    option.id = `saved-${index}`;
    option.setAttribute('role', 'option');
    option.setAttribute('aria-selected', String(i === active));
    option.append(element('span', 'saved-text', text),
      itemButton(t('saved_edit'), () => edit(index), t('saved_edit_label', text)),
      itemButton('↑', () => move(index), t('saved_move_up_label', text)),
      itemButton('✕', () => remove(index), t('saved_delete_label', text)));
    option.addEventListener('mousedown', (e) => e.preventDefault());
    option.addEventListener('click', () => insert(text));
    return option;
  }) : [element('li', 'saved-empty', t(tasks.length ? 'saved_no_match' : 'saved_none'))]));
  list.hidden = false;
  input.setAttribute('aria-expanded', 'true');
  if (shown.length) input.setAttribute('aria-activedescendant', `saved-${shown[active].index}`);
}

/** Puts `text` in the input, its first {placeholder} selected. */
function insert(text) {
  close();
  input.value = text;
  input.focus();
  const placeholder = /\{[^{}]+\}/.exec(text);
  if (placeholder) input.setSelectionRange(placeholder.index, placeholder.index + placeholder[0].length);
  else input.setSelectionRange(text.length, text.length);
}

/** Asks the worker to keep `next` as the saved tasks (it checks them); says how it went. */
async function update(next, message) {
  try {
    const { problem } = await ask({ type: 'save_saved_tasks', tasks: next });
    if (problem) {
      say(said(problem.message, problem.localizable));
    } else {
      tasks = next.map((text) => text.trim());
      say(message);
    }
  } catch (err) {
    say(err.message);
  }
  render();
}

function edit(index) {
  editing = index;
  saveButton.textContent = t('saved_save_changes');
  insert(tasks[index]);
  say(t('saved_editing'));
}

const move = (index) => index > 0 && update([...tasks.slice(0, index - 1), tasks[index], tasks[index - 1], ...tasks.slice(index + 1)], t('saved_moved_up'));
const remove = (index) => update(tasks.filter((_, i) => i !== index), t('saved_deleted'));

function stopEditing() {
  editing = null;
  saveButton.textContent = t('saved_save');
}

saveButton.addEventListener('click', async () => {
  const text = input.value.trim();
  if (!text || text.startsWith('/')) return say(t('saved_write_first'));
  if (editing !== null) {
    const next = tasks.map((t, i) => (i === editing ? text : t));
    stopEditing();
    return update(next, t('saved_changes_saved'));
  }
  if (tasks.includes(text)) return say(t('saved_already'));
  return update([...tasks, text], t('saved_saved'));
});

input.addEventListener('input', () => {
  active = 0;
  render();
});

// Capture: these keys belong to the list while it is open, before the panel's own (Enter sends).
input.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && editing !== null && !isOpen()) {
    stopEditing();
    say('');
    return;
  }
  if (!isOpen()) return;
  const shown = matches();
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    active = (active + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % Math.max(1, shown.length);
  } else if (e.key === 'Enter' && !e.shiftKey) {
    if (shown[active]) insert(shown[active].text);
  } else if (e.key === 'Escape') {
    close();
  } else {
    return;
  }
  e.preventDefault();
  e.stopImmediatePropagation();
  if (isOpen()) render();
}, true);

input.addEventListener('blur', () => setTimeout(() => { if (document.activeElement !== input) close(); }, 150));

({ tasks } = await ask({ type: 'get_saved_tasks' }));
