// The files the user attaches to the next task: the attach button beside the task box, a chip per
// file (its name and size, × removes it), bounded in number and size (shared/attachments.js, which
// the core checks again). The task's start request carries them; they are cleared once sent.

import { t } from '../shared/i18n.js';
import { element, button } from '../shared/dom.js';
import { attachment, attachmentProblem, megabytes } from '../shared/attachments.js';

const picker = document.getElementById('attach-input');
const chips = document.getElementById('attached');
const problem = document.getElementById('attach-error');

/** The files attached so far, in order. */
let attached = [];

function size(bytes) {
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.ceil(bytes / 1024))} KB` : megabytes(bytes);
}

function show() {
  chips.replaceChildren(...attached.map((file, at) => {
    const chip = element('li', 'attached-file');
    chip.append(element('span', 'attached-name', file.name), element('span', 'attached-size', size(file.size)));
    chip.append(button('attached-remove', '×', () => {
      attached.splice(at, 1);
      say(null);
      show();
    }, t('panel_attach_remove', file.name)));
    return chip;
  }));
  chips.hidden = attached.length === 0;
}

function say(reason) {
  problem.textContent = reason ? t(...reason) : '';
  problem.hidden = !reason;
}

document.getElementById('attach').addEventListener('click', () => picker.click());

picker.addEventListener('change', () => {
  const chosen = [...picker.files];
  picker.value = '';
  // A file of the same name replaces the one attached before.
  const all = [...attached.filter((file) => !chosen.some((added) => added.name === file.name)), ...chosen];
  const refused = attachmentProblem(all);
  say(refused);
  if (refused) return;
  attached = all;
  show();
});

/** The attached files as the start request carries them, and cleared from the task box. */
export async function takeAttachments() {
  const files = await Promise.all(attached.map(attachment));
  attached = [];
  say(null);
  show();
  return files;
}
