// A scripted model for tests, on loopback, speaking the OpenAI chat-completions wire format.
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
// Every request body is recorded in `requests`. Past the end of the script it answers HTTP 500.

import { createServer } from 'node:http';

/** The last state message: the page the model is looking at. */
function lastState(request) {
  const users = request.messages.filter((m) => m.role === 'user');
  return users.at(-1)?.content ?? '';
}

function resolveTarget(state, target) {
  const line = state.split('\n').find((l) => /^\*?\[\d+\]</.test(l) && l.includes(target));
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

function respond(step, request, previousState) {
  if (step.status) return { status: step.status, body: JSON.stringify(step.body ?? {}), headers: step.headers };
  if ('raw' in step) return { status: 200, body: JSON.stringify(completion(step.raw)) };
  const state = lastState(request);
  const reply = {
    current_state: {
      evaluation_previous_goal: step.evaluation ?? 'Unknown',
      memory: step.memory ?? '',
      next_goal: step.next_goal ?? '',
    },
    action: step.actions.map((action) => resolveAction(state, previousState, action)),
  };
  return { status: 200, body: JSON.stringify(completion(JSON.stringify(reply))) };
}

export async function startLlmServer(script) {
  const requests = [];
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
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) return send(404, '{"error":{"message":"not found"}}');
      let request;
      try {
        request = JSON.parse(data);
      } catch {
        return send(400, '{"error":{"message":"body is not JSON"}}');
      }
      requests.push(request);
      headers.push(req.headers);
      const step = script[requests.length - 1];
      if (!step) return send(500, JSON.stringify({ error: { message: `script exhausted after ${script.length} replies` } }));
      if (step.hang) {
        res.on('close', () => { stats.aborted += 1; });
        return;
      }
      try {
        const previousState = requests.length > 1 ? lastState(requests[requests.length - 2]) : '';
        const { status, body, headers: extra } = respond(step, request, previousState);
        send(status, body, extra);
      } catch (err) {
        send(500, JSON.stringify({ error: { message: `script error: ${err.message}` } }));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    headers,
    stats,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
