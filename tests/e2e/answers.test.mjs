// Structured answers end to end, with a scripted model held to each request's schema: the panel's
// "Answer as a table" shown as a table with CSV (quoted, formulas defused) and JSON downloads;
// the runner's --output-schema printing the data (an answer that breaks the schema sent back to
// the model once, saying where); ./build.sh eval with --output-schema and a `data` check, one run
// passing and one failing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applySettings, openTarget, openPanel } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { withSiteAndBrowser, runRunner } from '../support/fixtures.mjs';
import { runEval } from '../support/eval-cli.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TIMEOUT = 30_000;
let agent;
let site;

withSiteAndBrowser((started) => ({ site, agent } = started));

/** The mugs the shop's page lists, read from the page itself: the truth the answers must equal. */
async function mugsOnPage(page) {
  return page.evaluate(() => [...document.querySelectorAll('[data-name]')].map((mug) => ({
    name: mug.dataset.name,
    price: mug.textContent.match(/\$[0-9.]+/)[0],
  })));
}

/** The navigator request's schema for `done`, from the request the scripted model received. */
function doneSchema(request) {
  const { anyOf } = request.raw.response_format.json_schema.schema.properties.action.items;
  return anyOf.find((variant) => variant.properties.do.enum.includes('done'));
}

test('the panel answers as a table with the columns the user names, downloadable as CSV and JSON', async () => {
  const { page, tabId } = await openTarget(agent, `${site.origin}/shop/mugs.html`);
  const truth = await mugsOnPage(page);
  assert.equal(truth.length, 3);
  const rows = truth.map(({ name, price }) => ({ Mug: name, Price: price }));
  const llm = await startLlmServer([{ next_goal: 'Report the mugs', actions: [{ done: { text: 'Three mugs', success: true, data: rows } }] }]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-test', maxSteps: 5, planningInterval: 0 });
    const panel = await openPanel(agent, tabId);
    await panel.fill('#task', 'list the mugs with their prices');
    // The columns are asked for only once a table is.
    assert.equal(await panel.isVisible('#answer-columns'), false);
    // A table with no column named is refused in the form, and nothing is sent.
    await panel.check('#answer-table');
    assert.equal(await panel.isVisible('#answer-columns'), true);
    await panel.press('#task', 'Enter');
    assert.equal(await panel.inputValue('#task'), 'list the mugs with their prices');
    assert.match(await panel.$eval('#answer-columns', (field) => field.validationMessage), /Name at least one column/);
    await panel.fill('#answer-columns', 'Mug, Price, Mug');
    await panel.press('#task', 'Enter');
    await panel.locator('.data-table').waitFor({ timeout: TIMEOUT });

    // The model was held to a list of rows with those columns, each required.
    const done = doneSchema(llm.requests[0]);
    assert.ok(done.required.includes('data'));
    assert.deepEqual(done.properties.data.items.required, ['Mug', 'Price']);
    assert.match(llm.requests[0].messages.find((m) => m.content.includes('Your task:')).content, /done's "data" field/);

    const table = await panel.$eval('.data-table', (t) => [...t.rows].map((r) => [...r.cells].map((c) => c.textContent)));
    assert.deepEqual(table, [['Mug', 'Price'], ...truth.map(({ name, price }) => [name, price])]);
    assert.equal(await panel.locator('.answer').textContent(), 'Three mugs');

    const [csv] = await Promise.all([panel.waitForEvent('download'), panel.click('.data-card button.csv')]);
    assert.match(csv.suggestedFilename(), /^agent-answer-[\dT-]+\.csv$/);
    assert.equal(await readFile(await csv.path(), 'utf8'), `Mug,Price\r\n${truth.map(({ name, price }) => `${name},${price}\r\n`).join('')}`);
    const [json] = await Promise.all([panel.waitForEvent('download'), panel.click('.data-card button.json')]);
    assert.deepEqual(JSON.parse(await readFile(await json.path(), 'utf8')), rows);
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('the CSV quotes commas, quotes and line breaks, and a page\'s formula opens as text', async () => {
  const { tabId } = await openTarget(agent, `${site.origin}/shop/mugs.html`);
  const rows = [
    { Name: 'Mug, "large"', Note: 'two\nlines' },
    { Name: '=HYPERLINK("http://evil.test","x")', Note: '-5' },
  ];
  const llm = await startLlmServer([{ actions: [{ done: { text: 'Two rows', success: true, data: rows } }] }]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-test', maxSteps: 5, planningInterval: 0 });
    const panel = await openPanel(agent, tabId);
    await panel.check('#answer-table');
    await panel.fill('#answer-columns', 'Name, Note');
    await panel.fill('#task', 'list the odd rows');
    await panel.press('#task', 'Enter');
    await panel.locator('.data-table').waitFor({ timeout: TIMEOUT });
    // The table shows the cells as they are.
    assert.equal(await panel.locator('.data-table tbody tr').nth(1).locator('td').first().textContent(), rows[1].Name);
    const [csv] = await Promise.all([panel.waitForEvent('download'), panel.click('.data-card button.csv')]);
    assert.equal(await readFile(await csv.path(), 'utf8'),
      'Name,Note\r\n"Mug, ""large""","two\nlines"\r\n"\'=HYPERLINK(""http://evil.test"",""x"")",-5\r\n');
    await panel.close();
  } finally {
    await llm.close();
  }
});

const MUGS_SCHEMA = {
  type: 'object',
  properties: {
    mugs: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, price: { type: 'number', minimum: 0 }, note: { type: 'string' } },
        required: ['name', 'price'],
        additionalProperties: false,
      },
    },
  },
  required: ['mugs'],
  additionalProperties: false,
};

const priced = (truth) => truth.map(({ name, price }) => ({ name, price: Number(price.slice(1)) }));

test('the runner takes --output-schema and prints the data; an answer that breaks it is sent back once', async () => {
  const { page } = await openTarget(agent, `${site.origin}/shop/mugs.html`);
  const mugs = priced(await mugsOnPage(page));
  await page.close();
  const work = await mkdtemp(join(tmpdir(), 'agent-answers-'));
  const schemaFile = join(work, 'mugs.schema.json');
  await writeFile(schemaFile, JSON.stringify(MUGS_SCHEMA));
  // A price below zero is what the provider cannot hold the model to (the bound is the core's).
  const wrong = mugs.map((mug, i) => (i === 1 ? { ...mug, price: -mug.price } : mug));
  const llm = await startLlmServer([
    { actions: [{ done: { text: 'Three mugs', success: true, data: { mugs: wrong } } }] },
    { actions: [{ done: { text: 'Three mugs', success: true, data: { mugs } } }] },
  ]);
  try {
    const { code, stdout, stderr } = await runRunner(['--task', 'list the mugs with their prices', '--url', `${site.origin}/shop/mugs.html`,
      '--base-url', llm.baseUrl, '--model', 'scripted', '--planning-interval', '0', '--no-validator', '--output-schema', schemaFile]);
    assert.equal(code, 0, stderr);
    const printed = stdout.slice(stdout.indexOf('Data:\n') + 'Data:\n'.length, stdout.indexOf('\nAnswer: Three mugs'));
    assert.deepEqual(JSON.parse(printed), { mugs }, stdout);
    const told = llm.requests[1].messages.map((m) => m.content).join('\n');
    assert.ok(told.includes(`done's "data" does not fit the output schema: at /mugs/1/price: ${-mugs[1].price} is less than 0`), told);

    // A schema the core cannot check is refused, saying what to change.
    await writeFile(schemaFile, JSON.stringify({ type: 'string', pattern: '^[A-Z]' }));
    const refused = await runRunner(['--task', 'x', '--base-url', llm.baseUrl, '--model', 'scripted', '--output-schema', schemaFile]);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /The output schema cannot be used: the output schema uses "pattern" \(at its root\), which the agent cannot check: leave it out/);
  } finally {
    await llm.close();
  }
});

const evaluate = (args, cwd) => runEval(args, { cwd });

test('./build.sh eval checks the answer\'s data field by field: one run passes, one fails saying where', async () => {
  const { page } = await openTarget(agent, `${site.origin}/shop/mugs.html`);
  const mugs = priced(await mugsOnPage(page));
  await page.close();
  const work = await mkdtemp(join(tmpdir(), 'agent-answers-eval-'));
  const schemaFile = join(work, 'mugs.schema.json');
  await writeFile(schemaFile, JSON.stringify(MUGS_SCHEMA));
  const line = (id, task) => JSON.stringify({ id, task, serve: join(ROOT, 'tests', 'sites'), start_url: '/shop/mugs.html', max_steps: 3, check: { data: { mugs } } });
  const suite = join(work, 'answers.jsonl');
  await writeFile(suite, `${line('right', 'list the mugs')}\n${line('wrong', 'list the mugs and their prices')}\n`);
  const misread = mugs.map((mug, i) => (i === 2 ? { ...mug, price: mug.price + 1 } : mug));
  const llm = await startLlmServer({ tasks: {
    'list the mugs': [{ actions: [{ done: { text: 'Three mugs', success: true, data: { mugs } } }] }],
    'list the mugs and their prices': [{ actions: [{ done: { text: 'Three mugs', success: true, data: { mugs: misread } } }] }],
  } });
  try {
    const out = join(work, 'out');
    const run = await evaluate(['--suite', suite, '--output-schema', schemaFile, '--base-url', llm.baseUrl, '--model', 'scripted',
      '--planning-interval', '0', '--no-validator', '--out', out], work);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^1\/2 runs succeeded/m);
    const byId = Object.fromEntries((await readFile(join(out, 'results.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l)).map((r) => [r.id, r]));
    assert.deepEqual(byId.right.checks, { data: { ok: true, detail: 'matched' } });
    assert.deepEqual(byId.right.data, { mugs });
    assert.deepEqual(byId.wrong.checks.data, { ok: false, detail: `/mugs/2/price: expected ${mugs[2].price}, got ${mugs[2].price + 1}` });
    assert.equal(byId.wrong.failure.category, 'wrong_answer');

    // A data check without an output schema is refused before anything runs.
    const bad = await evaluate(['--suite', suite, '--base-url', llm.baseUrl, '--model', 'scripted', '--out', join(work, 'bad')], work);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /answers\.jsonl line 1: "check\.data" needs an "output_schema" \(or --output-schema\)/);
  } finally {
    await llm.close();
  }
});
