// Every user-facing text comes from `_locales/<language>/messages.json` through chrome.i18n, so
// the panel and the settings speak the browser's language. Pages mark their static text with
// data-i18n attributes; scripts call `t`.

/** The message `key` in the user's language, `$1`… replaced by `substitutions`. A missing key
 * shows as itself, and a test keeps every used key defined in every language. */
export function t(key, ...substitutions) {
  return chrome.i18n.getMessage(key, substitutions.map(String)) || key;
}

/** A text the core wrote, `{key, args}` (each argument a string or such a text in turn: the
 * core's `i18n::Text`), in the user's language; the core's messages are the `core_` ones. */
function localized(text) {
  return t(text.key, ...text.args.map((arg) => (typeof arg === 'string' ? arg : localized(arg))));
}

/** What the core told the user, in the user's language: its text when it sent one (events and
 * problems carry it as `localizable`), else the English it sent (events stored before texts were
 * sent, and words from elsewhere such as a host's error). */
export function said(english, localizable) {
  return localizable ? localized(localizable) : english;
}

/** Attributes filled from messages: `data-i18n-placeholder` names the key of `placeholder`, and so on. */
const ATTRIBUTES = ['placeholder', 'title', 'aria-label', 'alt'];

/** Fills the page's static text (an element's `data-i18n` names the key of its text) and names
 * its language. */
export function localize() {
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const attribute of ATTRIBUTES) {
    for (const el of document.querySelectorAll(`[data-i18n-${attribute}]`)) {
      el.setAttribute(attribute, t(el.getAttribute(`data-i18n-${attribute}`)));
    }
  }
  document.documentElement.lang = chrome.i18n.getUILanguage();
  document.documentElement.dir = chrome.i18n.getMessage('@@bidi_dir');
}
