// Structured answers through MCP, with the official MCP client as an AI app runs it: run_task
// with an output_schema returns the answer's data in structuredContent.data, checked against the
// schema; a schema the agent cannot check is refused, saying what to change. (The host's setup is
// as in mcp.test.mjs; needs `cargo build --release -p agent-native-host`.)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { launchAgentBrowser, applySettings, openTarget, openPanel, EXTENSION_DIR } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';
import { waitUntil } from '../support/fixtures.mjs';

const HOST = join(EXTENSION_DIR, 'target/debug/rust-browser-agent-mcp');
const TIMEOUT = 60_000;
let runtimeDir;
let agent;
let site;

before(async () => {
  await access(HOST).catch(() => {
    throw new Error(`${HOST} is missing: run ./build.sh test or cargo build -p agent-native-host, which build it`);
  });
  runtimeDir = await mkdtemp(join(tmpdir(), 'mcp-'));
  site = await startSiteServer();
  agent = await launchAgentBrowser({ nativeHost: HOST, env: { XDG_RUNTIME_DIR: runtimeDir }, grant: ['nativeMessaging'] });
});

after(async () => {
  await agent?.close();
  await site?.close();
  if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
});

const MUGS_SCHEMA = {
  type: 'object',
  properties: { mugs: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name', 'price'] } } },
  required: ['mugs'],
};

const text = (result) => result.content.filter((part) => part.type === 'text').map((part) => part.text).join('\n');

test('run_task with an output_schema returns the data in structuredContent; a schema it cannot check is refused', async () => {
  const { page } = await openTarget(agent, `${site.origin}/shop/mugs.html`);
  const mugs = await page.evaluate(() => [...document.querySelectorAll('[data-name]')]
    .map((mug) => ({ name: mug.dataset.name, price: Number(mug.textContent.match(/\$([0-9.]+)/)[1]) })));
  assert.equal(mugs.length, 3);
  const llm = await startLlmServer([{ actions: [{ done: { text: 'Three mugs', success: true, data: { mugs } } }] }]);
  const app = new Client({ name: 'Data App', version: '1.0.0' });
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-test', maxSteps: 5, planningInterval: 0, mcp: true });
    await waitUntil(() => stat(join(runtimeDir, 'rust-browser-agent', 'mcp.sock')).then(() => true, () => false), TIMEOUT);
    await app.connect(new StdioClientTransport({
      command: HOST, args: [], env: { ...process.env, XDG_RUNTIME_DIR: runtimeDir, XDG_CONFIG_HOME: join(runtimeDir, 'config') }, stderr: 'pipe',
    }));
    const { tools } = await app.listTools();
    assert.ok(tools.find((tool) => tool.name === 'run_task').inputSchema.properties.output_schema, 'run_task offers output_schema');

    // The app's first call is put to the user in the side panel.
    const panel = await openPanel(agent, (await openTarget(agent, 'about:blank')).tabId);
    const call = app.callTool(
      { name: 'run_task', arguments: { task: 'list the mugs with their prices', url: `${site.origin}/shop/mugs.html`, output_schema: MUGS_SCHEMA } },
      undefined,
      { timeout: TIMEOUT },
    );
    await panel.locator('#app-pairing').getByRole('button', { name: 'Allow once', exact: true }).click({ timeout: TIMEOUT });
    const result = await call;
    assert.ok(!result.isError, text(result));
    assert.equal(result.structuredContent.answer, 'Three mugs');
    assert.deepEqual(result.structuredContent.data, { mugs });
    // The model was held to the schema in done's data.
    const done = llm.requests[0].raw.response_format.json_schema.schema.properties.action.items.anyOf.find((v) => v.properties.do.enum.includes('done'));
    assert.deepEqual(done.properties.data.properties.mugs.items.required, ['name', 'price']);

    const refused = await app.callTool({ name: 'run_task', arguments: { task: 'x', output_schema: { type: 'string', format: 'email', pattern: '@' } } }, undefined, { timeout: TIMEOUT });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /output_schema cannot be used: the output schema uses "pattern" \(at its root\), which the agent cannot check: leave it out/);
    await panel.close();
  } finally {
    await app.close();
    await llm.close();
  }
});
