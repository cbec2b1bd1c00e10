// Runs the core's requests on Chrome's built-in model. Chrome exposes `LanguageModel` to
// extension service workers as well as to extension pages, so tasks run here, where the core
// is, whether or not a panel is open. Only the model's download needs a user's click (user
// activation), which a worker never has: the panel's setup starts it (panel/built-in-setup.js).
// Each request is one session: the system message and the earlier turns as its initial prompts,
// the last turn as its prompt, the reply held to the request's schema (`responseConstraint`).

import { SESSION_OPTIONS, availability, contextUsage, contextWindow, languageModel, measureContextUsage } from '../shared/built-in-model.js';

/** The browser's exception as the core reads it (llm/built_in.rs). */
function refusal(err, session) {
  if (err?.name === 'QuotaExceededError') {
    return { name: err.name, requested: err.requested ?? null, window: err.quota ?? (session ? contextWindow(session) : null) };
  }
  return { name: err?.name ?? 'Error', message: err?.message ?? String(err) };
}

/** `request`: `{system, history, prompt, schema, omitSchemaInput}` as JSON; answers
 * `{content}` or `{error}` as JSON. `signal` (the task stopped) ends the session's work. */
async function prompt(request, signal) {
  const { system, history, prompt: text, schema, omitSchemaInput } = JSON.parse(request);
  const state = await availability();
  if (state !== 'available') return JSON.stringify({ error: { name: 'unavailable', availability: state } });
  const initialPrompts = [...(system ? [{ role: 'system', content: system }] : []), ...history];
  const options = { responseConstraint: schema, omitResponseConstraintInput: omitSchemaInput, signal };
  let session;
  try {
    session = await languageModel().create({ ...SESSION_OPTIONS, initialPrompts, signal });
    // Measured first, so that a request over the window is refused with what it needs.
    const requested = contextUsage(session) + (await measureContextUsage(session, text, options));
    const window = contextWindow(session);
    if (requested > window) return JSON.stringify({ error: { name: 'QuotaExceededError', requested, window } });
    return JSON.stringify({ content: await session.prompt(text, options) });
  } catch (err) {
    return JSON.stringify({ error: refusal(err, session) });
  } finally {
    session?.destroy();
  }
}

/** Called by the core's wasm (crate/wasm/src/fetch.rs). */
globalThis.builtInModel = { prompt };
