// Chrome's built-in model in the first-run setup, offered first under "On this computer": used
// at once when the browser has it, downloaded first when it can. The download runs here, in the
// panel: Chrome starts it only after the user's click (user activation), and shows its progress
// to the page that asked. The tasks then run on it in the worker (background/built-in-model.js).

import { t } from '../shared/i18n.js';
import { element, button } from '../shared/dom.js';
import { SESSION_OPTIONS, availability, languageModel } from '../shared/built-in-model.js';

function say(status, text, error = false) {
  status.textContent = text;
  status.classList.toggle('status-error', error);
}

/** Downloads the model (or follows Chrome's download under way) with its progress shown, then
 * calls `use`. */
async function download(control, progress, status, use) {
  control.disabled = true;
  progress.hidden = false;
  try {
    const session = await languageModel().create({
      ...SESSION_OPTIONS,
      monitor(monitor) {
        monitor.addEventListener('downloadprogress', (e) => {
          progress.value = e.loaded;
          say(status, t('setup_built_in_downloading', Math.round(e.loaded * 100)));
        });
      },
    });
    session.destroy();
  } catch (err) {
    control.disabled = false;
    return say(status, t('setup_built_in_download_failed', err.message), true);
  }
  return use();
}

/** The setup's item for the built-in model, and whether it can be used (now or once downloaded).
 * `use` saves it as the model. */
export async function builtInItem(use) {
  const item = element('li', 'built-in');
  item.id = 'setup-built-in';
  item.append(element('h3', null, t('setup_built_in_name')), element('p', 'about', t('setup_built_in_about')));
  const state = await availability();
  if (state === 'unavailable') {
    item.append(element('p', 'problem', t('setup_built_in_unavailable')));
    return { item, usable: false };
  }
  if (state === 'available') {
    item.append(button(null, t('setup_built_in_use'), use));
    return { item, usable: true };
  }
  const progress = element('progress');
  progress.max = 1;
  progress.value = 0;
  progress.hidden = true;
  progress.setAttribute('aria-label', t('setup_built_in_name'));
  const status = element('p', 'status');
  status.setAttribute('role', 'status');
  const label = state === 'downloading' ? t('setup_built_in_follow') : t('setup_built_in_download');
  const control = button(null, label, () => download(control, progress, status, use));
  item.append(element('p', null, t('setup_built_in_download_note')), control, progress, status);
  return { item, usable: true };
}
