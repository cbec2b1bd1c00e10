// The Film (GIF) button of a finished run that has a film (the film setting): the worker makes
// the GIF from the frames it kept (extension/background/film.js).

import { t } from '../shared/i18n.js';
import { element, button, download } from '../shared/dom.js';

/** The button that downloads run `record`'s film of chat `chat`, or none when it has no film. */
export function filmButton(chat, record) {
  if (!record?.film || !chat) return [];
  const saving = button('export film', t('panel_export_film'), async () => {
    saving.disabled = true;
    saving.parentElement?.querySelector('.film-error')?.remove();
    try {
      const { gif, error } = await chrome.runtime.sendMessage({ film: { chat, film: record.film } });
      if (!gif) throw new Error(error ?? t('panel_film_empty'));
      const bytes = Uint8Array.from(atob(gif), (c) => c.charCodeAt(0));
      const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
      download(`agent-run-${stamp}.gif`, bytes, 'image/gif');
    } catch (err) {
      saving.after(element('p', 'film-error', t('panel_film_failed', err.message ?? String(err))));
    } finally {
      saving.disabled = false;
    }
  }, t('panel_export_film_label'));
  return [saving];
}

