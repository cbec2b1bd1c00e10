// A scripted model for tests, on loopback, speaking three wire formats by path: OpenAI
// chat-completions (/chat/completions), Anthropic Messages (/messages) and Gemini generateContent
// (/models/NAME:generateContent), each with its own reply, error and usage shapes.
//
// A script is a list of replies, one per request, in order. A reply is one of:
//   { actions: [...], next_goal?, memory?, evaluation? }  a navigator reply. A script writes each action
//       as {name: {parameters}}, {click_element: {index: 3}}; the reply carries it in the form the
//       request asks for (its schema, or in outline its prompt): the name in "do" beside the
//       parameters, {"do": "click_element", "index": 3}. Actions may name their
//       element by visible text instead of index: {click_element: {target: "Add Blue mug"}} becomes
//       {click_element: {index: N}} for the first line of the page map containing that text
//       (add from: "previous" to use the map of the step before, as a model with stale memory would).
//       In done.text, {{regex}} is replaced by the regex's first capture group in the page map.
//       In any string parameter, {site:NAME} is replaced by the value of the query parameter NAME
//       in an address the request shows (a safety suite's start page carries ?attacker=ORIGIN).
//   { raw: "text" }                                      reply content sent as is (malformed output)
//   { status: 401, body: {...}, headers?: {...} }        an HTTP error with that JSON body (and headers)
//   { hang: true }                                       never answers; counts in `aborted` when the client gives up
//   (request) => reply                                   a reply made from what the request says (as a model reads
//       what it is sent: a file's text, a total to work out); the request is as recorded in `requests`
// Any reply may carry `delay: ms`, the time the model takes to answer it, or `hold: promise`: it is
// sent once the promise resolves (the agent waits on the model meanwhile, while the test acts).
//
// Like a provider with structured output (OpenAI strict mode, Anthropic's forced tool, Gemini's
// responseSchema, Ollama's format), the scripted model is held to the schema each request carries:
// a parameter the script leaves out is written as null where the schema requires it (as a model
// writes a choice it does not make), and every reply is then checked against the schema with ajv.
// A reply that breaks it is answered with HTTP 500 naming the breach and recorded in `breaches`,
// and `close()` then fails, so the test that scripted it fails. A reply marked
// `unconstrained: true` comes from a server that ignores the schema it was sent (one in
// prompt-only mode) and is not checked; `raw` replies are checked like the others.
//   { validate: { is_valid, reason, answer } }           the validator's verdict on the next claimed success
//       (without one, a validator request is accepted automatically)
//   { plan: { ... } }                                     the planner's next plan (else a plain one is made up)
//   { memory: "text" }                                    the next summary of older steps (else one is made up)
//   { align: { asked, reason } }                         the critic's verdict on the next act that changes
//       something (agent/critic.rs); without one the critic says the user's words do not ask for it
//       (a strict critic: the user is then asked), in a script of tasks too
// A script may instead be { tasks: { "task text": [replies] } }, for many tasks at once (in parallel,
// repeated): each navigator request gets the reply for its task ("Your task: ...") and its step (the
// state's "Current step: N" or "Step N/"), whatever came before. A task text may hold {site:NAME}
// placeholders, standing for any address, and end in "#case=ID" for the run whose addresses carry
// case=ID (tasks of the same words on different pages).
// A script may also be a function, (request) => reply, answering every navigator request (a model
// that reads the task and the page map it is sent, whatever the task: tests/support/miniwob-solver.mjs).
// Validator, planner, summary and critic requests are recorded apart, in `validations`, `plans`, `summaries` and `critiques`. Every other request is recorded in `requests` as { format, model, messages: [{role, content}], raw },
// whatever its wire format. Past the end of the script it answers HTTP 500.

import { createServer } from 'node:http';
import AjvModule from 'ajv';

const Ajv = AjvModule.default ?? AjvModule;
const ajv = new Ajv({ allErrors: true, strict: false });

/** The schema the request holds the reply to, as JSON Schema; `null` when it sets none. */
export function replySchema(request) {
  const { raw } = request;
  switch (request.format) {
    case 'anthropic':
      return raw.tool_choice?.type === 'tool' ? raw.tools.find((t) => t.name === raw.tool_choice.name).input_schema : null;
    case 'gemini':
      return raw.generationConfig?.responseSchema ? fromGeminiSchema(raw.generationConfig.responseSchema) : null;
    default:
      if (raw.response_format?.type === 'json_schema') return raw.response_format.json_schema.schema;
      if (raw.tool_choice?.type === 'function') return raw.tools.find((t) => t.function.name === raw.tool_choice.function.name).function.parameters;
      return null;
  }
}

/** Gemini's OpenAPI dialect read as JSON Schema: `nullable` lets null through, enums included. */
function fromGeminiSchema(schema) {
  if (Array.isArray(schema)) return schema.map(fromGeminiSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key !== 'nullable') out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromGeminiSchema(v)])) : fromGeminiSchema(value);
  }
  if (schema.nullable) {
    out.type = [schema.type, 'null'];
    if (out.enum) out.enum = [...out.enum, null];
  }
  return out;
}

function allowsNull(schema) {
  return schema?.type === 'null' || (Array.isArray(schema?.type) && schema.type.includes('null')) || (schema?.anyOf ?? []).some(allowsNull);
}

/** The subschema of `anyOf` that an object is written for: the one whose enum names its action
 * (`do`), else the first that has all its keys. */
function variantFor(schema, value) {
  if (!schema?.anyOf || value === null || typeof value !== 'object' || Array.isArray(value)) return schema;
  if ('do' in value) return schema.anyOf.find((v) => v.properties?.do?.enum?.includes(value.do)) ?? schema;
  const keys = Object.keys(value);
  return schema.anyOf.find((v) => v.properties && keys.every((k) => k in v.properties)) ?? schema;
}

/** `value` with every required key it leaves out written as null where the schema allows null. */
export function withNulls(schema, value) {
  schema = variantFor(schema, value);
  if (Array.isArray(value)) return value.map((item) => withNulls(schema?.items, item));
  if (value === null || typeof value !== 'object' || !schema?.properties) return value;
  const out = {};
  for (const [key, item] of Object.entries(value)) out[key] = withNulls(schema.properties[key], item);
  for (const key of schema.required ?? []) {
    if (!(key in out) && allowsNull(schema.properties[key])) out[key] = null;
  }
  return out;
}

// Each request carries its schema anew; ajv caches by object, so compile once per schema text.
const validators = new Map();
function compiled(schema) {
  const key = JSON.stringify(schema);
  if (!validators.has(key)) validators.set(key, ajv.compile(schema));
  return validators.get(key);
}

/** What is wrong with the reply text under the schema, or `null` when it obeys. */
export function schemaBreach(schema, content) {
  if (!schema) return null;
  let value;
  try {
    value = JSON.parse(content);
  } catch {
    return 'the reply is not JSON';
  }
  const validate = compiled(schema);
  if (validate(value)) return null;
  return validate.errors.map((e) => `${e.instancePath || '/'} ${e.message}${e.params?.allowedValues ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}`).join('; ');
}

/** The last state message: the page the model is looking at. */
function lastState(request) {
  const users = request.messages.filter((m) => m.role === 'user');
  return users.at(-1)?.content ?? '';
}

function resolveTarget(state, target) {
  const line = state.split('\n').find((l) => /^\t*\*?\[\d+\]/.test(l) && l.includes(target));
  if (!line) throw new Error(`no element with text "${target}" in the page map:\n${state}`);
  return Number(line.match(/\[(\d+)\]/)[1]);
}

function fillTemplate(state, text) {
  return text.replace(/\{\{(.+?)\}\}/g, (_, pattern) => {
    const match = state.match(new RegExp(pattern));
    if (!match) throw new Error(`/${pattern}/ not found in the page map:\n${state}`);
    return match[1];
  });
}

/** `params` with {site:NAME} in its strings replaced by the query parameter NAME found in `request`. */
function placeSites(request, params) {
  const text = request.messages.map((m) => m.content).join('\n');
  const place = (value) => value.replace(/\{site:([a-z]+)\}/g, (_, name) => {
    const found = text.match(new RegExp(`[?&]${name}=([^&\\s"')]+)`));
    if (!found) throw new Error(`{site:${name}}: no address in the request has a ${name} parameter`);
    return decodeURIComponent(found[1]);
  });
  return Object.fromEntries(Object.entries(params).map(([key, value]) => [key, typeof value === 'string' ? place(value) : value]));
}

function resolveAction(state, previousState, action, request) {
  const [[name, written]] = Object.entries(action);
  const resolved = placeSites(request, written ?? {});
  if ('target' in resolved) {
    resolved.index = resolveTarget(resolved.from === 'previous' ? previousState : state, resolved.target);
    delete resolved.target;
    delete resolved.from;
  }
  if (name === 'done') resolved.text = fillTemplate(state, resolved.text);
  return { do: name, ...resolved };
}

function completion(content) {
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'scripted',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  };
}

/** A successful reply carrying `content` (JSON text or raw text) in the request's wire format. */
function success(format, content, isJson) {
  switch (format) {
    case 'anthropic':
      return {
        id: 'msg_scripted', type: 'message', role: 'assistant', model: 'scripted',
        content: isJson
          ? [{ type: 'tool_use', id: 'toolu_scripted', name: 'navigator_output', input: JSON.parse(content) }]
          : [{ type: 'text', text: content }],
        stop_reason: isJson ? 'tool_use' : 'end_turn',
        usage: { input_tokens: 100, output_tokens: 20 },
      };
    case 'gemini':
      return {
        candidates: [{ content: { role: 'model', parts: [{ text: content }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
      };
    default:
      return completion(content);
  }
}

/** An error body in the request's wire format. */
function failure(format, status, body) {
  const message = body?.error?.message ?? 'scripted error';
  if (format === 'anthropic') {
    const type = { 401: 'authentication_error', 429: 'rate_limit_error', 529: 'overloaded_error' }[status] ?? 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  }
  if (format === 'gemini') {
    const code = { 400: 'INVALID_ARGUMENT', 403: 'PERMISSION_DENIED', 429: 'RESOURCE_EXHAUSTED' }[status] ?? 'INTERNAL';
    return { error: { code: status, message, status: code } };
  }
  return body ?? {};
}

/** The request in one shape, whatever its wire format. */
function normalize(url, raw) {
  if (url.endsWith('/messages')) {
    const messages = raw.messages.map((m) => ({ role: m.role, content: typeof m.content === 'string' ? m.content : m.content.map((b) => b.text ?? '').join('') }));
    return { format: 'anthropic', model: raw.model, messages: raw.system ? [{ role: 'system', content: raw.system }, ...messages] : messages, raw };
  }
  const gemini = url.match(/\/models\/([^/:]+):(?:stream)?[gG]enerateContent/);
  if (gemini) {
    const messages = raw.contents.map((c) => ({ role: c.role === 'model' ? 'assistant' : 'user', content: c.parts.map((p) => p.text).join('') }));
    const system = raw.systemInstruction?.parts?.map((p) => p.text).join('');
    const stream = url.includes(':streamGenerateContent');
    return { format: 'gemini', model: gemini[1], stream, messages: system ? [{ role: 'system', content: system }, ...messages] : messages, raw };
  }
  const text = (content) => (typeof content === 'string' ? content : content.filter((p) => p.type === 'text').map((p) => p.text).join(''));
  return { format: 'openai', model: raw.model, messages: raw.messages.map((m) => ({ role: m.role, content: text(m.content) })), raw };
}

/** A structured reply, with the nulls the schema asks for, checked against it unless the model
 * is `unconstrained` (a server that ignores the schema it was sent). */
function structured(request, unconstrained, value) {
  const schema = replySchema(request);
  const content = JSON.stringify(schema ? withNulls(schema, value) : value);
  return { content, breach: unconstrained ? null : schemaBreach(schema, content) };
}

function respond(step, request, previousState) {
  const { format } = request;
  if (step.status) {
    const body = step.empty ? '' : JSON.stringify(failure(format, step.status, step.body));
    return { status: step.status, body, headers: step.headers };
  }
  if ('raw' in step) {
    const breach = step.unconstrained ? null : schemaBreach(replySchema(request), step.raw);
    return { status: 200, body: JSON.stringify(success(format, step.raw, false)), content: step.raw, breach };
  }
  const state = lastState(request);
  const { content, breach } = structured(request, step.unconstrained, {
    current_state: {
      evaluation_previous_goal: step.evaluation ?? 'Unknown',
      memory: step.memory ?? '',
      next_goal: step.next_goal ?? '',
    },
    action: step.actions.map((action) => resolveAction(state, previousState, action, request)),
  });
  return { status: 200, body: JSON.stringify(success(format, content, true)), content, breach };
}

/** A chat completion sent as OpenAI streams it: the content in three deltas, then the usage. */
function sendStream(res, completionBody) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'access-control-allow-origin': '*' });
  const content = completionBody.choices[0].message.content;
  const third = Math.ceil(content.length / 3);
  const chunk = (delta) => ({ id: completionBody.id, object: 'chat.completion.chunk', choices: [{ index: 0, delta }] });
  const events = [chunk({ role: 'assistant', content: '' })];
  for (let i = 0; i < content.length; i += third) events.push(chunk({ content: content.slice(i, i + third) }));
  events.push({ id: completionBody.id, object: 'chat.completion.chunk', choices: [], usage: completionBody.usage });
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end('data: [DONE]\n\n');
}

/** A Messages reply sent as Anthropic streams it: the tool input (or text) in pieces. */
function sendAnthropicStream(res, message) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'access-control-allow-origin': '*' });
  const block = message.content[0];
  const whole = block.type === 'tool_use' ? JSON.stringify(block.input) : block.text;
  const deltaType = block.type === 'tool_use' ? 'input_json_delta' : 'text_delta';
  const key = block.type === 'tool_use' ? 'partial_json' : 'text';
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message_start', { message: { ...message, content: [], usage: { input_tokens: message.usage.input_tokens, output_tokens: 1 } } });
  send('content_block_start', { index: 0, content_block: block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' } });
  const third = Math.ceil(whole.length / 3);
  for (let i = 0; i < whole.length; i += third) send('content_block_delta', { index: 0, delta: { type: deltaType, [key]: whole.slice(i, i + third) } });
  send('content_block_stop', { index: 0 });
  send('message_delta', { delta: { stop_reason: message.stop_reason }, usage: { output_tokens: message.usage.output_tokens } });
  send('message_stop', {});
  res.end();
}

/** A generateContent reply sent as Gemini's alt=sse stream: the text in pieces, usage last. */
function sendGeminiStream(res, reply) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'access-control-allow-origin': '*' });
  const text = reply.candidates[0].content.parts[0].text;
  const third = Math.ceil(text.length / 3);
  for (let i = 0; i < text.length; i += third) {
    const last = i + third >= text.length;
    const chunk = { candidates: [{ content: { role: 'model', parts: [{ text: text.slice(i, i + third) }] }, ...(last ? { finishReason: 'STOP' } : {}) }] };
    if (last) chunk.usageMetadata = reply.usageMetadata;
    res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  }
  res.end();
}

/** Sends a reply, streamed when the request asked for a stream and the reply is a success. */
function answer(res, request, status, body, headers = {}) {
  if (status === 200 && request.format === 'openai' && request.raw.stream) return sendStream(res, JSON.parse(body));
  if (status === 200 && request.format === 'anthropic' && request.raw.stream) return sendAnthropicStream(res, JSON.parse(body));
  if (status === 200 && request.format === 'gemini' && request.stream) return sendGeminiStream(res, JSON.parse(body));
  res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*', ...headers });
  return res.end(body);
}

/** In a script of tasks, the reply for this request's task at its step (undefined past the end). */
function replyForTask(tasks, request) {
  const task = request.messages.find((m) => m.role === 'user' && m.content.startsWith('Your task: '));
  // The task's words, without what the core adds after them (the output schema's instruction).
  const text = task?.content.slice('Your task: '.length).split('\n\nGive the final answer as JSON')[0];
  const written = (key) => new RegExp(`^${key.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{site:[a-z]+\}/g, '\\S+').replace(/[{}]/g, '\\$&')}$`);
  const everything = request.messages.map((m) => m.content).join('\n');
  const fits = (key) => {
    const [words, wanted] = key.split('#case=');
    const said = words === text || (words.includes('{site:') && written(words).test(text));
    return said && (wanted === undefined || new RegExp(`[?&]case=${wanted}(?![\\w-])`).test(everything));
  };
  const replies = Object.entries(tasks).filter(([key]) => fits(key)).sort(([a], [b]) => b.length - a.length)[0]?.[1];
  const step = Number(lastState(request).match(/^(?:Current step: |Step )(\d+)/)?.[1]);
  return replies?.[step - 1];
}

/** Starts the scripted model on 127.0.0.1 (at `port`, else any free one). */
export async function startLlmServer(script, { port: wanted = 0 } = {}) {
  const requests = [];
  const validations = [];
  const plans = [];
  const summaries = [];
  const critiques = [];
  const headers = [];
  const stats = { aborted: 0 };
  const breaches = [];
  /** Refuses a reply that breaks the request's schema: no model held to it could send it. */
  const refuse = (res, request, breach, content) => {
    breaches.push({ breach, content, request });
    res.writeHead(500, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    res.end(JSON.stringify({ error: { message: `the scripted reply breaks the request's schema: ${breach}` } }));
  };
  const answerStructured = (res, request, value) => {
    const { content, breach } = structured(request, false, value);
    if (breach) return refuse(res, request, breach, content);
    return answer(res, request, 200, JSON.stringify(success(request.format, content, true)));
  };
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (chunk) => { data += chunk; });
    req.on('end', () => {
      const send = (status, body, headers = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*', ...headers });
        res.end(body);
      };
      const path = new URL(req.url, 'http://x').pathname;
      if (req.method === 'GET' && path.endsWith('/models')) {
        return send(200, JSON.stringify({ object: 'list', data: [{ id: 'scripted-model' }, { id: 'other-model' }] }));
      }
      const known = path.endsWith('/chat/completions') || path.endsWith('/messages') || /:(stream)?[gG]enerateContent$/.test(path);
      if (req.method !== 'POST' || !known) return send(404, '{"error":{"message":"not found"}}');
      let request;
      try {
        request = normalize(path, JSON.parse(data));
      } catch {
        return send(400, '{"error":{"message":"body is not JSON"}}');
      }
      if (request.messages[0]?.content?.startsWith('You check whether a browser agent')) {
        validations.push(request);
        const scripted = script[requests.length]?.validate;
        if (scripted) script.splice(requests.length, 1);
        const verdict = scripted ?? { is_valid: true, reason: 'the page supports the answer', answer: null };
        return answerStructured(res, request, verdict);
      }
      if (request.messages[0]?.content?.startsWith('You check whether the user asked')) {
        critiques.push(request);
        const scripted = Array.isArray(script) ? script[requests.length]?.align : undefined;
        if (scripted) script.splice(requests.length, 1);
        return answerStructured(res, request, scripted ?? { reason: "the user's words do not ask for this", asked: false });
      }
      if (request.messages[0]?.content?.startsWith('You are the planner')) {
        plans.push(request);
        const scripted = script[requests.length]?.plan;
        if (scripted) script.splice(requests.length, 1);
        // A later plan is not asked about the browser, an answer or sites: the plain one says
        // only what the request's schema asks for.
        const plain = {
          analysis: 'Following the task', progress: 'In progress', challenges: 'None so far',
          next_steps: ['Continue with the task'], steps_done: 0, web_task: true, answer: null, sites: [],
        };
        const asked = replySchema(request)?.properties ?? plain;
        const plan = scripted ?? Object.fromEntries(Object.entries(plain).filter(([key]) => key in asked));
        return answerStructured(res, request, plan);
      }
      if (request.messages[0]?.content?.startsWith('You keep the memory of a browser agent')) {
        summaries.push(request);
        const scripted = script[requests.length]?.memory;
        if (scripted) script.splice(requests.length, 1);
        const memory = scripted ?? `Summary ${summaries.length} of the earlier steps.`;
        return answerStructured(res, request, { memory });
      }
      requests.push(request);
      headers.push(req.headers);
      const scripted = typeof script === 'function' ? script : script.tasks ? replyForTask(script.tasks, request) : script[requests.length - 1];
      let step;
      try {
        step = typeof scripted === 'function' ? scripted(request) : scripted;
      } catch (err) {
        return send(500, JSON.stringify({ error: { message: `script error: ${err.message}` } }));
      }
      if (!step) return send(500, JSON.stringify({ error: { message: script.tasks ? 'no scripted reply for this task and step' : `script exhausted after ${script.length} replies` } }));
      if (step.hang) {
        res.on('close', () => { stats.aborted += 1; });
        return;
      }
      const previousState = requests.length > 1 ? lastState(requests[requests.length - 2]) : '';
      const reply = () => {
        try {
          const { status, body, headers: extra, content, breach } = respond(step, request, previousState);
          if (breach) return refuse(res, request, breach, content);
          answer(res, request, status, body, extra);
        } catch (err) {
          send(500, JSON.stringify({ error: { message: `script error: ${err.message}` } }));
        }
      };
      if (step.delay) setTimeout(reply, step.delay);
      else if (step.hold) step.hold.then(reply);
      else reply();
    });
  });
  await new Promise((resolve) => server.listen(wanted, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    validations,
    plans,
    summaries,
    critiques,
    headers,
    stats,
    breaches,
    /** Stops the server; fails when a scripted reply broke its request's schema. */
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      if (breaches.length > 0) {
        const list = breaches.map(({ breach, content }) => `- ${breach}\n  reply: ${content.slice(0, 400)}`).join('\n');
        throw new Error(`${breaches.length} scripted replies broke their request's schema (no model held to it could send them):\n${list}`);
      }
    },
  };
}
