// The scripted model is held to each request's schema like a real provider with structured
// output: a parameter the script leaves out is written as null where the schema requires it, and
// a reply that breaks the schema is refused and fails the test that scripted it. Without this,
// a schema no constrained model could answer with a plain click went unnoticed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startLlmServer } from '../support/llm-server.mjs';
import { requestSchema } from '../support/request-schemas.mjs';

const navigator = () => requestSchema('navigator, full request, a step');
const state = { role: 'user', content: 'Current step: 1 of 10\n[3]button Add blue mug' };

/** Sends one navigator request in OpenAI's form; returns the status and the reply's content. */
async function ask(llm, schema) {
  const response = await fetch(`${llm.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'scripted',
      messages: [{ role: 'system', content: 'You are a browser agent.' }, state],
      response_format: { type: 'json_schema', json_schema: { name: 'navigator_output', strict: true, schema } },
    }),
  });
  const body = await response.json();
  return { status: response.status, content: body.choices?.[0]?.message?.content, error: body.error?.message };
}

test('a click the script leaves plain is sent as a strict model sends it: click null', async () => {
  const llm = await startLlmServer([{ actions: [{ click_element: { index: 3 } }] }]);
  const { status, content } = await ask(llm, navigator().schema);
  assert.equal(status, 200);
  assert.deepEqual(JSON.parse(content).action, [{ do: 'click_element', index: 3, click: null }]);
  await llm.close();
});

test('a reply that breaks the schema is refused, and closing the server fails the test', async () => {
  const llm = await startLlmServer([{ actions: [{ click_element: { index: 3, click: 'single' } }] }]);
  const { status, error } = await ask(llm, navigator().schema);
  assert.equal(status, 500);
  assert.match(error, /breaks the request's schema/);
  assert.equal(llm.breaches.length, 1);
  await assert.rejects(llm.close(), /1 scripted replies broke their request's schema/);
});

test('the schema that forced a double click is caught: an enum without null refuses a plain click', async () => {
  const schema = structuredClone(navigator().schema);
  const click = schema.properties.action.items.anyOf.find((v) => v.properties.do.enum.includes('click_element')).properties.click;
  click.enum = click.enum.filter((word) => word !== null);
  const llm = await startLlmServer([{ actions: [{ click_element: { index: 3 } }] }]);
  const { status, error } = await ask(llm, schema);
  assert.equal(status, 500);
  assert.match(error, /\/action\/0\/click must be equal to one of the allowed values/);
  await assert.rejects(llm.close());
});

test('Anthropic tool input and Gemini response schemas hold the reply too', async () => {
  const llm = await startLlmServer([
    { actions: [{ click_element: { index: 3 } }] },
    { actions: [{ click_element: { index: 3, click: 'single' } }] },
  ]);
  const anthropic = await fetch(`${llm.baseUrl}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'scripted', max_tokens: 100, messages: [state],
      tools: [{ name: 'navigator_output', input_schema: navigator().schema }],
      tool_choice: { type: 'tool', name: 'navigator_output' },
    }),
  });
  assert.equal(anthropic.status, 200);
  assert.deepEqual((await anthropic.json()).content[0].input.action, [{ do: 'click_element', index: 3, click: null }]);
  // Gemini's dialect: a nullable enum of strings.
  const responseSchema = {
    type: 'object',
    properties: { action: { type: 'array', items: { type: 'object', properties: { do: { type: 'string', enum: ['click_element'] }, index: { type: 'integer' }, click: { type: 'string', nullable: true, enum: ['double', 'right'] } }, required: ['do', 'index', 'click'] } } },
    required: ['action'],
  };
  const gemini = await fetch(`${llm.baseUrl}/models/scripted:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: state.content }] }], generationConfig: { responseMimeType: 'application/json', responseSchema } }),
  });
  assert.equal(gemini.status, 500, 'a click Gemini\'s enum does not list is refused');
  await assert.rejects(llm.close(), /click must be equal to one of the allowed values/);
});
