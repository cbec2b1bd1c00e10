// A fake of Chrome's built-in model (the Prompt API's `LanguageModel`) for the end-to-end tests,
// whose Chromium has none. Written from the API's documentation
// (https://github.com/webmachinelearning/prompt-api, https://developer.chrome.com/docs/ai/prompt-api):
//   - `LanguageModel.availability(options)`: 'unavailable', 'downloadable', 'downloading' or
//     'available'; languages other than en, es and ja are not supported;
//   - `LanguageModel.create({initialPrompts, monitor, expectedInputs, expectedOutputs})`: refused
//     with NotAllowedError when the model must be downloaded and the page has had no user
//     activation (a worker never has), with NotSupportedError when unavailable; downloads with
//     `downloadprogress` events (`loaded` from 0 to 1, at least 0 and 1 even with nothing to
//     download); refused with QuotaExceededError when the initial prompts exceed the window;
//   - a session's window and usage under one spelling: the new (`contextWindow`, `contextUsage`,
//     `measureContextUsage`) or the legacy (`inputQuota`, `inputUsage`, `measureInputUsage`);
//   - `session.prompt(text, {responseConstraint, omitResponseConstraintInput, signal})`: the schema
//     counts in the window unless omitted (TypeError when omitted without one); over the window it
//     throws QuotaExceededError (with `requested` and `quota`) and nothing is kept; an aborted
//     `signal` (also taken by `create`) rejects with its reason and ends the model's work;
// Its "model" is the scripted one (llm-server.mjs): a prompt is asked of it as an
// OpenAI-compatible request carrying the responseConstraint as its JSON schema, so the fake
// replies only what the script says and only what the schema allows (the scripted server refuses
// any reply that breaks it, and the test then fails).
//
// The model's state is the browser's, shared by every extension context: it lives here, in the
// test, and the fakes installed in the worker and in the pages ask for it over loopback.

import { createServer } from 'node:http';
import { startLlmServer } from './llm-server.mjs';

/** The in-browser fake, installed by running it with its settings in a context. */
function installFakeLanguageModel({ stateUrl, llmUrl, spelling, roomAfterInitialPrompts }) {
  const SUPPORTED_LANGUAGES = ['en', 'es', 'ja'];
  // Gemini Nano's tokenizer is not at hand: about four characters a token, plus a message's framing.
  const tokens = (text) => Math.ceil(text.length / 4) + 4;
  const post = (path, body) => fetch(`${stateUrl}${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) });
  const state = async () => (await fetch(`${stateUrl}/state`)).json();

  class QuotaExceededError extends DOMException {
    constructor(requested, quota) {
      super(`The input is too large: ${requested} tokens for a window of ${quota}.`, 'QuotaExceededError');
      this.requested = requested;
      this.quota = quota;
    }
  }

  function checkLanguages(options) {
    const languages = [...(options.expectedInputs ?? []), ...(options.expectedOutputs ?? [])].flatMap((e) => e.languages ?? []);
    const unsupported = languages.find((language) => !SUPPORTED_LANGUAGES.includes(language));
    if (unsupported) throw new DOMException(`The language ${unsupported} is not supported.`, 'NotSupportedError');
  }

  function measure(input, options = {}) {
    if (options.omitResponseConstraintInput && !options.responseConstraint) {
      throw new TypeError('omitResponseConstraintInput needs a responseConstraint');
    }
    const schema = options.responseConstraint && !options.omitResponseConstraintInput ? tokens(JSON.stringify(options.responseConstraint)) : 0;
    return tokens(input) + schema;
  }

  class LanguageModel extends EventTarget {
    #messages;
    #usage;
    #window;
    #destroyed = false;

    constructor(messages, window) {
      super();
      this.#messages = messages;
      this.#usage = messages.reduce((sum, m) => sum + tokens(m.content), 0);
      this.#window = window;
    }

    static async availability(options = {}) {
      checkLanguages(options);
      return (await state()).availability;
    }

    static async create(options = {}) {
      options.signal?.throwIfAborted();
      checkLanguages(options);
      const { availability, contextWindow } = await state();
      if (availability === 'unavailable') throw new DOMException('The model is not available on this device.', 'NotSupportedError');
      if (availability === 'downloadable' && !globalThis.navigator?.userActivation?.hasBeenActive) {
        throw new DOMException('Downloading the model requires a user activation.', 'NotAllowedError');
      }
      const monitor = new EventTarget();
      options.monitor?.(monitor);
      // A ProgressEvent where the context has one (a service worker has not): `loaded` of 1.
      const progress = (loaded) => {
        const event = globalThis.ProgressEvent ? new ProgressEvent('downloadprogress', { loaded, total: 1 }) : Object.assign(new Event('downloadprogress'), { loaded, total: 1 });
        monitor.dispatchEvent(event);
      };
      if (availability === 'available') {
        progress(0);
        progress(1);
      } else {
        // Each step is the browser's (the test may hold one to look at the progress shown).
        for (const loaded of [0, 0.25, 0.5, 0.75, 1]) {
          await post('/download', { loaded });
          progress(loaded);
        }
      }
      const initial = options.initialPrompts ?? [];
      if (initial.some((m, i) => m.role === 'system' && i > 0)) throw new TypeError('A system prompt must come first.');
      const messages = initial.map(({ role, content }) => ({ role, content }));
      const usage = messages.reduce((sum, m) => sum + tokens(m.content), 0);
      const window = roomAfterInitialPrompts === null ? contextWindow : usage + roomAfterInitialPrompts;
      if (usage > window) throw new QuotaExceededError(usage, window);
      return new LanguageModel(messages, window);
    }

    #alive() {
      if (this.#destroyed) throw new DOMException('The session has been destroyed.', 'InvalidStateError');
    }

    get #spent() {
      this.#alive();
      return this.#usage;
    }

    async prompt(input, options = {}) {
      options.signal?.throwIfAborted();
      const needed = measure(input, options);
      if (this.#spent + needed > this.#window) {
        // Told to the test: a caller that measures first never gets here.
        await post('/overflow', { requested: this.#spent + needed });
        throw new QuotaExceededError(this.#spent + needed, this.#window);
      }
      const schema = options.responseConstraint;
      const request = {
        model: 'gemini-nano',
        messages: [...this.#messages, { role: 'user', content: input }],
        ...(schema && { response_format: { type: 'json_schema', json_schema: { name: 'response', strict: true, schema } } }),
      };
      const response = await fetch(`${llmUrl}/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request), signal: options.signal,
      });
      if (!response.ok) throw new DOMException(`The model failed: ${await response.text()}`, 'UnknownError');
      const content = (await response.json()).choices[0].message.content;
      this.#messages.push({ role: 'user', content: input }, { role: 'assistant', content });
      this.#usage += needed + tokens(content);
      return content;
    }

    destroy() {
      this.#destroyed = true;
    }

    static spell(names) {
      const [window, usage, measureName] = names;
      Object.defineProperty(LanguageModel.prototype, window, { get() { return this.#window; } });
      Object.defineProperty(LanguageModel.prototype, usage, { get() { return this.#spent; } });
      LanguageModel.prototype[measureName] = async function measureUsage(input, options) {
        this.#alive();
        return measure(input, options);
      };
    }
  }
  LanguageModel.spell(spelling === 'legacy' ? ['inputQuota', 'inputUsage', 'measureInputUsage'] : ['contextWindow', 'contextUsage', 'measureContextUsage']);
  globalThis.LanguageModel = LanguageModel;
}

/**
 * Starts the browser's side of the fake (its model's state) and the scripted model behind it.
 * `availability`: the model's state at first; `contextWindow`: a session's window in tokens, or
 * `roomAfterInitialPrompts`: a window of each session's initial prompts and that many tokens more
 * (what the initial prompts take depends on the build's instructions; the prompt then overflows);
 * `spelling`: 'new' or 'legacy' names for it. Returns:
 *   - `install(agent)`: installs the fake in the extension's worker and in every page opened after;
 *   - `llm`: the scripted server (its `requests`, `validations`...);
 *   - `downloads`: the progress steps the browser went through;
 *   - `overflows`: the tokens of each prompt sent over the window (and refused by the session);
 *   - `holdDownloadAt(loaded)`: holds the download at that step until the returned function is called;
 *   - `setAvailability(state)`, `close()`.
 */
export async function startFakeLanguageModel(script, { availability = 'available', contextWindow = 9216, spelling = 'new', roomAfterInitialPrompts = null } = {}) {
  const llm = await startLlmServer(script);
  const model = { availability, contextWindow };
  const downloads = [];
  const overflows = [];
  const holds = new Map();
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (chunk) => { data += chunk; });
    req.on('end', async () => {
      const send = (body) => {
        res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/state') return send(model);
      if (req.url === '/overflow') return send(overflows.push(JSON.parse(data).requested));
      if (req.url === '/download') {
        const { loaded } = JSON.parse(data);
        model.availability = 'downloading';
        await holds.get(loaded);
        downloads.push(loaded);
        if (loaded === 1) model.availability = 'available';
        return send({});
      }
      res.writeHead(404).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const settings = { stateUrl: `http://127.0.0.1:${server.address().port}`, llmUrl: llm.baseUrl, spelling, roomAfterInitialPrompts };
  const source = `(${installFakeLanguageModel})(${JSON.stringify(settings)});`;
  return {
    llm,
    downloads,
    overflows,
    async install(agent) {
      await agent.context.addInitScript(source);
      await agent.worker.evaluate(source);
    },
    holdDownloadAt(loaded) {
      let release;
      holds.set(loaded, new Promise((resolve) => { release = resolve; }));
      return () => release();
    },
    setAvailability(state) {
      model.availability = state;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await llm.close();
    },
  };
}
