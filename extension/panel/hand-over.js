// The task handing the tab over to the user (a `hand_over_needed` event): what is needed, Take
// over (brings the task's tab forward), Continue (with an optional answer or note) and Stop.

import { t, said } from '../shared/i18n.js';
import { element, button } from '../shared/dom.js';

const HEADINGS = {
  ask: 'panel_hand_over_ask', login: 'panel_hand_over_login', captcha: 'panel_hand_over_captcha', code: 'panel_hand_over_code',
};

/** Brings the task's tab forward in its window, and the window in front of the others. */
export async function takeOver(tabId) {
  const tab = await chrome.tabs.update(tabId, { active: true });
  await chrome.windows.update(tab.windowId, { focused: true });
}

/**
 * The hand-over's card. `answer(decision, note)` sends the user's `continue` or `stop`; a past
 * hand-over (`past`: from an earlier task or the History) is shown, not actionable.
 */
export function renderHandOver(event, { past, answer }) {
  const box = element('section', `message approval hand-over${past ? ' past' : ''}`);
  box.dataset.handOver = String(event.id);
  box.setAttribute('role', past ? 'group' : 'alertdialog');
  box.setAttribute('aria-label', t(past ? 'panel_hand_over_past' : 'panel_hand_over'));
  const heading = element('h2', 'hand-over-reason', t(HEADINGS[event.reason] ?? 'panel_hand_over'));
  const question = element('p', 'question', said(event.question, event.localizable));
  const note = element('input', 'feedback hand-over-note');
  note.setAttribute('aria-label', t('panel_hand_over_note'));
  note.placeholder = t('panel_hand_over_note');
  const problem = element('p', 'hand-over-problem');
  problem.setAttribute('role', 'status');
  const close = (decided) => {
    for (const control of box.querySelectorAll('button, input')) control.disabled = true;
    if (decided) box.append(element('p', 'decision', decided));
  };
  const decide = (decision) => {
    close(t(decision === 'continue' ? 'panel_hand_over_continued' : 'panel_hand_over_stopped'));
    answer(decision, note.value);
  };
  const take = button('take-over', t('panel_take_over'), () => takeOver(event.tab).then(
    () => { problem.textContent = ''; },
    (err) => { problem.textContent = t('panel_hand_over_tab_gone', err.message); },
  ), t('panel_take_over_label'));
  const buttons = element('div', 'buttons');
  buttons.append(button('stop-task', t('panel_hand_over_stop'), () => decide('stop')), take,
    button('continue', t('panel_hand_over_continue'), () => decide('continue')));
  box.append(heading, question, element('p', 'url', event.url), note, buttons, problem);
  if (past) close(t('panel_asked_in_past_task'));
  else queueMicrotask(() => take.focus());
  return box;
}
