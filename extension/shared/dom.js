// The few element builders the extension's pages share.

export function element(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A button (not a form's submit) that calls `onClick`; `label` names it for screen readers
 * where its text alone does not say enough. */
export function button(className, text, onClick, label) {
  const el = element('button', className, text);
  el.type = 'button';
  if (label) el.setAttribute('aria-label', label);
  el.addEventListener('click', onClick);
  return el;
}

/** Saves `text` (or bytes) as a file named `name`. */
export function download(name, text, type) {
  const link = element('a');
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  // Revoked only once the browser has surely started the download.
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}
