// What the end-to-end tests share: the fixture site with a browser, the shop task, its script,
// and a port surely closed.

import { before, after } from 'node:test';
import { createServer } from 'node:net';
import { spawn } from 'node:child_process';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { launchAgentBrowser } from '../../runner/launch.mjs';
import { startSiteServer } from './site-server.mjs';

const BUILD_SH = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'build.sh');

/**
 * Starts the fixture site and an agent browser before a test file's tests and closes both after
 * them; `use({ site, agent })` receives them once started.
 */
export function withSiteAndBrowser(use) {
  const started = {};
  before(async () => {
    started.site = await startSiteServer();
    started.agent = await launchAgentBrowser();
    use(started);
  });
  after(async () => {
    await started.agent?.close();
    await started.site?.close();
  });
}

export const SHOP_TASK = 'add the blue mug to the cart, then tell me the cart total';

/** The scripted model's replies for the shop task, starting from the shop's home page. */
export function shopScript(origin) {
  return [
    { next_goal: 'Open the mugs page', actions: [{ go_to_url: { url: `${origin}/shop/mugs.html` } }] },
    { next_goal: 'Filter for the blue mug', actions: [{ input_text: { target: 'Filter mugs', text: 'blue' } }] },
    { next_goal: 'Add the blue mug to the cart', actions: [{ click_element: { target: 'Add Blue mug to cart' } }] },
    {
      next_goal: 'Report the cart total',
      actions: [{ done: { text: 'The cart total is {{Cart total: (\\$[0-9.]+)}}', success: true } }],
    },
  ];
}

export const ROWS_TASK = 'order 3 of item 1234 on this page';

/** The scripted model's replies for the rows task, on `memory/rows.html?rows=1500`. */
export function rowsScript() {
  return [
    { next_goal: 'Find item 1234', actions: [{ scroll_to_text: { text: 'Item 1234' } }] },
    { next_goal: 'Order 3 of item 1234', actions: [{ input_text: { target: 'Qty 1234', text: '3' } }, { click_element: { target: 'Add 1234' } }] },
    { next_goal: 'Report', actions: [{ done: { text: 'Added 3 of {{(Item 1234)}}', success: true } }] },
  ];
}

/** A loopback port with nothing listening, for an unreachable provider. */
export async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `./build.sh run ARGS` as a user would; resolves to its exit code and output. */
export function runRunner(args, env = {}) {
  return new Promise((resolvePromise) => {
    const child = spawn(BUILD_SH, ['run', ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** Resolves once `condition()` holds, checking every 50 ms; throws after `timeout` ms (long
 * enough for a 2-core machine running other tests beside). */
export async function waitUntil(condition, timeout = 15_000) {
  const end = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
