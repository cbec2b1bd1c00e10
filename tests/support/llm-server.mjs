// A scripted model for tests, on loopback, speaking three wire formats by path: OpenAI
// chat-completions (/chat/completions), Anthropic Messages (/messages) and Gemini generateContent
// (/models/NAME:generateContent), each with its own reply, error and usage shapes.
//
// A script is a list of replies, one per request, in order. A reply is one of:
//   { actions: [...], next_goal?, memory?, evaluation? }  a navigator reply. Actions may name their
//       element by visible text instead of index: {click_element: {target: "Add Blue mug"}} becomes
//       {click_element: {index: N}} for the first line of the page map containing that text
//       (add from: "previous" to use the map of the step before, as a model with stale memory would).
//       In done.text, {{regex}} is replaced by the regex's first capture group in the page map.
//   { raw: "text" }                                      reply content sent as is (malformed output)
//   { status: 401, body: {...}, headers?: {...} }        an HTTP error with that JSON body (and headers)
//   { hang: true }                                       never answers; counts in `aborted` when the client gives up
// Any reply may carry `delay: ms`, the time the model takes to answer it.
//   { validate: { is_valid, reason, answer } }           the validator's verdict on the next claimed success
//       (without one, a validator request is accepted automatically)
//   { plan: { ... } }                                     the planner's next plan (else a plain one is made up)
//   { memory: "text" }                                    the next summary of older steps (else one is made up)
// A script may instead be { tasks: { "task text": [replies] } }, for many tasks at once (in parallel,
// repeated): each navigator request gets the reply for its task ("Your task: ...") and its step (the
// state's "Current step: N" or "Step N/"), whatever came before.
// Validator, planner and summary requests are recorded apart, in `validations`, `plans` and `summaries`. Every other request is recorded in `requests` as { format, model, messages: [{role, content}], raw },
// whatever its wire format. Past the end of the script it answers HTTP 500.

import { createServer } from 'node:http';

/** The last state message: the page the model is looking at. */
function lastState(request) {
  const users = request.messages.filter((m) => m.role === 'user');
  return users.at(-1)?.content ?? '';
}

function resolveTarget(state, target) {
  const line = state.split('\n').find((l) => /^\t*\*?\[\d+\]</.test(l) && l.includes(target));
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

function resolveAction(state, previousState, action) {
  const [[name, params]] = Object.entries(action);
  const resolved = { ...params };
  if ('target' in resolved) {
    resolved.index = resolveTarget(resolved.from === 'previous' ? previousState : state, resolved.target);
    delete resolved.target;
    delete resolved.from;
  }
  if (name === 'done') resolved.text = fillTemplate(state, resolved.text);
  return { [name]: resolved };
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

function respond(step, request, previousState) {
  const { format } = request;
  if (step.status) {
    const body = step.empty ? '' : JSON.stringify(failure(format, step.status, step.body));
    return { status: step.status, body, headers: step.headers };
  }
  if ('raw' in step) return { status: 200, body: JSON.stringify(success(format, step.raw, false)) };
  const state = lastState(request);
  const reply = {
    current_state: {
      evaluation_previous_goal: step.evaluation ?? 'Unknown',
      memory: step.memory ?? '',
      next_goal: step.next_goal ?? '',
    },
    action: step.actions.map((action) => resolveAction(state, previousState, action)),
  };
  return { status: 200, body: JSON.stringify(success(format, JSON.stringify(reply), true)) };
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
  const replies = tasks[task?.content.slice('Your task: '.length)];
  const step = Number(lastState(request).match(/^(?:Current step: |Step )(\d+)/)?.[1]);
  return replies?.[step - 1];
}

/** Starts the scripted model on 127.0.0.1 (at `port`, else any free one). */
export async function startLlmServer(script, { port: wanted = 0 } = {}) {
  const requests = [];
  const validations = [];
  const plans = [];
  const summaries = [];
  const headers = [];
  const stats = { aborted: 0 };
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
        const verdict = scripted ?? { is_valid: true, reason: 'the page supports the answer', answer: '' };
        return answer(res, request, 200, JSON.stringify(success(request.format, JSON.stringify(verdict), true)));
      }
      if (request.messages[0]?.content?.startsWith('You are the planner')) {
        plans.push(request);
        const scripted = script[requests.length]?.plan;
        if (scripted) script.splice(requests.length, 1);
        const plan = scripted ?? {
          analysis: 'Following the task', progress: 'In progress', challenges: 'None so far',
          next_steps: ['Continue with the task'], steps_done: 0, reasoning: 'scripted', web_task: true, answer: '',
        };
        return answer(res, request, 200, JSON.stringify(success(request.format, JSON.stringify(plan), true)));
      }
      if (request.messages[0]?.content?.startsWith('You keep the memory of a browser agent')) {
        summaries.push(request);
        const scripted = script[requests.length]?.memory;
        if (scripted) script.splice(requests.length, 1);
        const memory = scripted ?? `Summary ${summaries.length} of the earlier steps.`;
        return answer(res, request, 200, JSON.stringify(success(request.format, JSON.stringify({ memory }), true)));
      }
      requests.push(request);
      headers.push(req.headers);
      const step = script.tasks ? replyForTask(script.tasks, request) : script[requests.length - 1];
      if (!step) return send(500, JSON.stringify({ error: { message: script.tasks ? 'no scripted reply for this task and step' : `script exhausted after ${script.length} replies` } }));
      if (step.hang) {
        res.on('close', () => { stats.aborted += 1; });
        return;
      }
      const previousState = requests.length > 1 ? lastState(requests[requests.length - 2]) : '';
      const reply = () => {
        try {
          const { status, body, headers: extra } = respond(step, request, previousState);
          answer(res, request, status, body, extra);
        } catch (err) {
          send(500, JSON.stringify({ error: { message: `script error: ${err.message}` } }));
        }
      };
      if (step.delay) setTimeout(reply, step.delay);
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
    headers,
    stats,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
