// A downloaded file's Show in folder, in the task's files' list (task-files.js): the browser shows
// the file where it saved it (chrome.downloads.show), or the panel says it is gone.

import { t } from '../shared/i18n.js';
import { element, button } from '../shared/dom.js';

/** Shows download `downloadId` in its folder, or says in `item` that it is gone (the user removed
 * or deleted it). */
async function show(name, downloadId, item) {
  const [found] = await chrome.downloads.search({ id: downloadId });
  if (found?.exists) return chrome.downloads.show(downloadId);
  item.querySelector('.download-gone')?.remove();
  item.append(element('span', 'download-gone', t('panel_download_gone', name)));
}

/** The Show in folder button of the downloaded file `name`, shown in list item `item`. */
export function showInFolderButton(name, downloadId, item) {
  return button('download-show', t('panel_download_show'), () => show(name, downloadId, item), t('panel_download_show_label', name));
}
