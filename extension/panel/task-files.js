// The task's files as the panel shows them (the core's `files` event, docs/protocol.md): each by
// name, where it came from and its size; the notebook's, whose text the event carries, can be
// viewed and downloaded.

import { t } from '../shared/i18n.js';
import { element, button, download } from '../shared/dom.js';

/** A size as people say it. */
function sizeText(bytes) {
  if (bytes < 1024) return t('panel_file_bytes', bytes);
  if (bytes < 1024 * 1024) return t('panel_file_kb', Math.ceil(bytes / 1024));
  return t('panel_file_mb', (bytes / (1024 * 1024)).toFixed(1));
}

/** What the list says of a file besides its name. */
function about(file) {
  if (file.source === 'notebook') {
    const text = file.text ?? '';
    const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    return t('panel_file_notebook', lines, sizeText(file.size));
  }
  return t(file.source === 'attached' ? 'panel_file_attached' : 'panel_file_downloaded', sizeText(file.size));
}

/** One file of the list, with View and Download when the panel has its text. */
function fileItem(file) {
  const item = element('li', 'task-file');
  item.dataset.name = file.name;
  const head = element('div', 'task-file-head');
  head.append(element('span', 'task-file-name', file.name), element('span', 'task-file-about', about(file)));
  item.append(head);
  if (typeof file.text !== 'string') return item;
  const view = element('pre', 'task-file-text', file.text);
  view.hidden = true;
  const toggle = button('view', t('panel_file_view'), () => {
    view.hidden = !view.hidden;
    toggle.textContent = t(view.hidden ? 'panel_file_view' : 'panel_file_hide');
    toggle.setAttribute('aria-expanded', String(!view.hidden));
  }, t('panel_file_view_label', file.name));
  toggle.setAttribute('aria-expanded', 'false');
  const save = button('download', t('panel_file_download'),
    () => download(file.name, file.text, file.mime || 'text/plain'),
    t('panel_file_download_label', file.name));
  head.append(toggle, save);
  item.append(view);
  return item;
}

/** The card listing a task's files as the `files` event gives them. */
export function renderFiles(event) {
  const card = element('section', 'message task-files');
  const title = t('panel_files');
  card.setAttribute('aria-label', title);
  const list = element('ul', 'task-file-list');
  list.append(...event.files.map(fileItem));
  card.append(element('h3', null, title), list);
  return card;
}
