// Chrome's built-in model (the Prompt API's `LanguageModel`, Gemini Nano), as the worker and the
// panel both use it. Chrome renamed the session's window and usage (`inputQuota`, `inputUsage`,
// `measureInputUsage` became `contextWindow`, `contextUsage`, `measureContextUsage`) and keeps
// the old names for extensions only for a while: both spellings are read here.

/** The settings that choose it: no server, no key. */
export const BUILT_IN_SETTINGS = { provider: 'chrome-built-in', baseUrl: '', model: 'chrome-built-in', apiKey: '' };

/** What a session reads and writes: text, in English (the instructions' and the replies' language).
 * `availability()` must be asked with the options `create()` gets. */
const inEnglish = (type) => [{ type, languages: ['en'] }];
export const SESSION_OPTIONS = { expectedInputs: inEnglish('text'), expectedOutputs: inEnglish('text') };

/** The Prompt API in this context, or null (a browser without it). */
export const languageModel = () => globalThis.LanguageModel ?? null;

/** `unavailable`, `downloadable`, `downloading` or `available`. */
export async function availability() {
  const api = languageModel();
  if (!api) return 'unavailable';
  try {
    return await api.availability(SESSION_OPTIONS);
  } catch {
    return 'unavailable';
  }
}

/** The session's context window, in tokens. */
export const contextWindow = (session) => session.contextWindow ?? session.inputQuota;

/** The tokens the session holds already (its initial prompts). */
export const contextUsage = (session) => session.contextUsage ?? session.inputUsage ?? 0;

/** The tokens `input` would take with these prompt options. */
export function measureContextUsage(session, input, options) {
  const measure = session.measureContextUsage ?? session.measureInputUsage;
  return measure.call(session, input, options);
}
