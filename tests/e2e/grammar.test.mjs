// A real constrained decoder on every reply schema the core sends: each schema, as the core lists
// it (the example request_schemas, see request-schemas.mjs), is compiled with llama.cpp's own
// JSON-schema-to-grammar (the converter of llama.cpp's server and of Ollama) and loaded by
// llama.cpp's grammar parser; llama.cpp's grammar engine (the sampler's code-point check, no model
// needed) then judges replies: every choice the schema leaves must be writable (a single plain
// click, no `clear`, no `seconds`), and the grammar must admit exactly what the schema allows. See
// tests/support/llama-cpp.mjs for how node-llama-cpp's binaries are reached.
//
// A grammar also fixes the order of the keys: the schema's `properties` order. So the replies here
// are written in that order, as a model held to the grammar writes them.

import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import { requestSchemas } from '../support/request-schemas.mjs';
import { admits, jsonSchemaToGrammar, loadLlama, prepareJsonSchemaToGrammar } from '../support/llama-cpp.mjs';

const FULL_STEP = 'navigator, full request, a step';
const FULL_LAST_STEP = 'navigator, full request, the last step';

let llama;
/** label → { entry: {label, name, schema, strict}, gbnf, grammar }, for the schemas that compiled. */
const compiled = new Map();
/** label → why the schema did not compile. */
const failures = new Map();

before(async () => {
  llama = await loadLlama();
  await prepareJsonSchemaToGrammar();
  for (const entry of requestSchemas()) {
    try {
      const gbnf = jsonSchemaToGrammar(entry.schema);
      try {
        compiled.set(entry.label, { entry, gbnf, grammar: await llama.createGrammar({ grammar: gbnf }) });
      } catch (err) {
        failures.set(entry.label, `llama.cpp's grammar parser refused its grammar (${err.message}):\n${gbnf}`);
      }
    } catch (err) {
      failures.set(entry.label, err.message);
    }
  }
});

function compiledSchema(label) {
  const found = compiled.get(label);
  if (!found) assert.fail(`the schema "${label}" ${failures.has(label) ? 'did not compile' : 'is not among the core\'s request schemas'}`);
  return found;
}

/** `value` with its object keys in the order its schema declares them (the branch of an anyOf
 * whose enum names its action, else that names all its keys), keys the schema does not know last. */
function inSchemaOrder(value, schema = {}) {
  if (Array.isArray(value)) return value.map((item) => inSchemaOrder(item, schema.items));
  if (value === null || typeof value !== 'object') return value;
  const named = (b) => ('do' in value ? b.properties?.do?.enum?.includes(value.do) : Object.keys(value).every((k) => k in (b.properties ?? {})));
  const branch = schema.anyOf?.find(named) ?? schema;
  const properties = branch.properties ?? {};
  const keys = [...Object.keys(properties).filter((k) => k in value), ...Object.keys(value).filter((k) => !(k in properties))];
  return Object.fromEntries(keys.map((k) => [k, inSchemaOrder(value[k], properties[k])]));
}

// What each type may hold, in the replies made from a schema: bounds, quotes, escapes, non-ASCII.
const SAMPLES = {
  string: ['', 'Add "Blue mug" – ünïcödé\n\t{}[]\\'],
  integer: [3, 0, -12],
  number: [1.5, 0, -0.25],
  boolean: [true, false],
  null: [null],
};

/** Values `schema` allows, together covering each of its choices once at least: each branch of
 * an anyOf, each enum member, each type of a type list (null among them), an optional property
 * absent, an array empty, with one item of each kind, and full. Objects keep the schema's order. */
function choices(schema = {}) {
  if (schema.anyOf) return schema.anyOf.flatMap(choices);
  if (schema.enum) return [...schema.enum];
  if ('const' in schema) return [schema.const];
  return [schema.type ?? []].flat().flatMap((type) => {
    if (type === 'object') return objectChoices(schema);
    if (type === 'array') return arrayChoices(schema);
    if (!(type in SAMPLES)) throw new Error(`no sample values for the type "${type}": add them to SAMPLES`);
    return SAMPLES[type];
  });
}

function objectChoices(schema) {
  const properties = Object.entries(schema.properties ?? {});
  const each = properties.map(([key, property]) => [key, choices(property)]);
  const base = Object.fromEntries(each.map(([key, values]) => [key, values[0]]));
  const out = [base];
  for (const [key, values] of each) {
    for (const value of values.slice(1)) out.push({ ...base, [key]: value });
    if (!(schema.required ?? []).includes(key)) out.push(Object.fromEntries(Object.entries(base).filter(([k]) => k !== key)));
  }
  return out;
}

function arrayChoices(schema) {
  const items = schema.items ? choices(schema.items) : [];
  const min = schema.minItems ?? 0;
  const max = schema.maxItems ?? Infinity;
  const out = items.map((item) => Array(Math.max(1, min)).fill(item)).filter((a) => a.length <= max);
  if (min === 0) out.unshift([]);
  if (items.length > 1) out.push(items.slice(0, max));
  return out;
}

/** `value` changed in one place each: a key dropped, a key added, a value replaced by null, by
 * another type, or by a string no enum lists. Whether each is still allowed is the schema's call. */
function mutants(value) {
  const replacements = [];
  if (value !== null) replacements.push(null);
  replacements.push(typeof value === 'string' ? 7 : 'not-a-choice');
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      for (const m of mutants(item)) replacements.push(value.map((v, j) => (j === i ? m : v)));
    });
    if (value.length) replacements.push(value.slice(1));
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      replacements.push(Object.fromEntries(Object.entries(value).filter(([k]) => k !== key)));
      for (const m of mutants(value[key])) replacements.push(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === key ? m : v])));
    }
    replacements.push({ ...value, unexpected_key: 1 });
  }
  return replacements;
}

const CURRENT_STATE = { evaluation_previous_goal: 'Success', memory: 'On the mugs page.', next_goal: 'Add the blue mug' };
/** A navigator reply with these actions, written {name: {parameters}} here and in the reply as the
 * schema has them: the name in "do" beside the parameters. */
const navigatorReply = (...actions) => ({
  current_state: CURRENT_STATE,
  action: actions.map((action) => Object.entries(action).map(([name, params]) => ({ do: name, ...params }))[0]),
});

test('every reply schema the core sends compiles with llama.cpp\'s JSON-schema-to-grammar and loads in its grammar parser', (t) => {
  const labels = requestSchemas().map((s) => s.label);
  assert.ok(labels.includes(FULL_STEP) && labels.includes(FULL_LAST_STEP), `the core's request schemas: ${labels.join(', ')}`);
  for (const { entry, gbnf } of compiled.values()) {
    const order = Object.keys(entry.schema.properties ?? {}).join(', ');
    t.diagnostic(`${entry.label} (${entry.name}, strict ${entry.strict}): ${gbnf.split('\n').filter(Boolean).length} grammar rules; keys in the order ${order}`);
  }
  const refused = [...failures].map(([label, why]) => `- "${label}": ${why}`);
  assert.equal(refused.length, 0, `llama.cpp cannot use these request schemas:\n${refused.join('\n')}`);
});

test('the navigator\'s grammar admits a single plain click and every optional field left null', () => {
  const { entry, grammar } = compiledSchema(FULL_STEP);
  const replies = {
    'a single plain click (click: null)': navigatorReply({ click_element: { index: 3, click: null } }),
    'a double click': navigatorReply({ click_element: { index: 3, click: 'double' } }),
    'typing without clear (clear: null)': navigatorReply({ input_text: { index: 5, text: 'blue', clear: null } }),
    'a wait of the default length (seconds: null)': navigatorReply({ wait: { seconds: null } }),
    'a scroll of the page by the default amount (pages and index null)': navigatorReply({ scroll: { direction: 'down', pages: null, index: null } }),
    'several actions': navigatorReply({ input_text: { index: 5, text: 'blue', clear: true } }, { click_element: { index: 7, click: null } }),
  };
  for (const [what, reply] of Object.entries(replies)) {
    const text = JSON.stringify(inSchemaOrder(reply, entry.schema));
    assert.ok(admits(grammar, text), `the grammar refuses ${what}: ${text}`);
  }
  // Models often write JSON indented, which the grammar's whitespace allows.
  const indented = JSON.stringify(inSchemaOrder(replies['a single plain click (click: null)'], entry.schema), null, 2);
  assert.ok(admits(grammar, indented), `the grammar refuses an indented single click:\n${indented}`);
});

test('the navigator\'s grammar refuses a click without its click key, as the strict schema requires it, and a click kind it does not list', () => {
  const { entry, grammar } = compiledSchema(FULL_STEP);
  const branch = entry.schema.properties.action.items.anyOf.find((b) => b.properties?.do?.enum?.includes('click_element'));
  assert.ok(branch, 'the navigator\'s schema has a click_element action');
  const required = branch.required.includes('click');
  if (entry.strict) assert.ok(required, 'strict mode requires every key, click too');
  const bare = JSON.stringify(inSchemaOrder(navigatorReply({ click_element: { index: 3 } }), entry.schema));
  assert.equal(admits(grammar, bare), !required, `${required ? 'admits' : 'refuses'} a click without "click": ${bare}`);
  const triple = JSON.stringify(inSchemaOrder(navigatorReply({ click_element: { index: 3, click: 'triple' } }), entry.schema));
  assert.equal(admits(grammar, triple), false, `admits a click kind the schema does not list: ${triple}`);
  // Nor an unfinished reply: the grammar may not end there.
  assert.equal(admits(grammar, bare.slice(0, -3)), false, 'admits a cut-off reply');
});

test('the last step\'s grammar admits done and nothing else', () => {
  const { entry, grammar } = compiledSchema(FULL_LAST_STEP);
  const done = JSON.stringify(inSchemaOrder(navigatorReply({ done: { text: 'The cart total is $12.00', success: true } }), entry.schema));
  assert.ok(admits(grammar, done), `refuses done: ${done}`);
  const click = JSON.stringify(inSchemaOrder(navigatorReply({ click_element: { index: 3, click: null } }), entry.schema));
  assert.equal(admits(grammar, click), false, `admits a click on the last step: ${click}`);
});

test('each grammar admits every choice its schema leaves and nothing the schema forbids', (t) => {
  const ajv = new Ajv({ strict: false, allErrors: false });
  const disagreements = [];
  let checked = 0;
  for (const { entry, grammar } of compiled.values()) {
    const validate = ajv.compile(entry.schema);
    const replies = choices(entry.schema);
    for (const reply of replies) {
      assert.ok(validate(reply), `the test made a reply that "${entry.label}" does not allow (${ajv.errorsText(validate.errors)}): ${JSON.stringify(reply)}`);
    }
    const seen = new Set();
    for (const candidate of [...replies, ...replies.flatMap(mutants)]) {
      const text = JSON.stringify(inSchemaOrder(candidate, entry.schema));
      if (seen.has(text)) continue;
      seen.add(text);
      const allowed = validate(JSON.parse(text));
      if (admits(grammar, text) !== allowed) {
        disagreements.push(`- "${entry.label}" ${allowed ? 'refuses what the schema allows' : 'admits what the schema forbids'}: ${text}`);
      }
    }
    checked += seen.size;
    t.diagnostic(`${entry.label}: ${replies.length} replies covering its choices, ${seen.size - replies.length} changed ones`);
  }
  assert.ok(checked > 0, 'no reply checked');
  assert.equal(disagreements.length, 0, `llama.cpp's grammar and the JSON schema disagree:\n${disagreements.slice(0, 40).join('\n')}`);
});

test('a model held to the navigator\'s schema writes its reasoning (current_state) before its actions, an action\'s name before its parameters, a click\'s element before its kind', () => {
  // The order the agent's prompt shows and reads: a grammar (and OpenAI's strict mode) makes the
  // model write the keys in the schema's order, so the schema must keep it (serde_json's
  // preserve_order; sorted keys would put "action" first and "click" before "do" and "index").
  const { grammar } = compiledSchema(FULL_STEP);
  const text = JSON.stringify(navigatorReply({ click_element: { index: 3, click: null } }));
  assert.ok(admits(grammar, text), `the grammar refuses the reply in the order the agent reads it: ${text}`);
});
