// The files a task downloaded, offered to the user once the task ends: each with its size and a
// button that shows it in its folder (chrome.downloads.show). The worker sends a `downloaded`
// event for each (docs/protocol.md).

import { t } from '../shared/i18n.js';
import { element, button } from '../shared/dom.js';

/** A size in the user's language: 512 byte, 12 kB, 3.4 MB. */
function sizeText(bytes) {
  const [unit, value] = bytes < 1024 ? ['byte', bytes] : bytes < 1024 * 1024 ? ['kilobyte', bytes / 1024] : ['megabyte', bytes / 1024 / 1024];
  return new Intl.NumberFormat(chrome.i18n.getUILanguage(), { style: 'unit', unit, maximumFractionDigits: unit === 'megabyte' ? 1 : 0 }).format(value);
}

/** Shows the download in its folder, or says it is gone (the user removed or deleted it). */
async function show(file, line) {
  const [item] = await chrome.downloads.search({ id: file.download_id });
  if (item?.exists) return chrome.downloads.show(file.download_id);
  line.querySelector('.download-gone')?.remove();
  line.append(element('span', 'download-gone', t('panel_download_gone', file.name)));
}

/** The list of a task's downloads (`downloaded` events), for the end of the task. */
export function downloadsList(files) {
  const box = element('section', 'message downloads');
  const title = t('panel_downloads_title');
  box.setAttribute('aria-label', title);
  const list = element('ul');
  for (const file of files) {
    const line = element('li');
    line.append(element('span', 'download-name', file.name), ' ', element('span', 'download-size', sizeText(file.size)));
    if (file.download_id != null) {
      line.append(' ', button('download-show', t('panel_download_show'), () => show(file, line), t('panel_download_show_label', file.name)));
    }
    list.append(line);
  }
  box.append(element('h3', null, title), list);
  return box;
}
