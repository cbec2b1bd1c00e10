// What the model is told of a navigation, through the whole extension in Chromium: a refused
// connection, a port the browser will not use, an error status, a download (in the tab and in a
// new tab), a redirect. Each outcome is checked where the model reads it: in the state of its
// next request.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { launchAgentBrowser, applySettings, openTarget, openPanel, runTask } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';

let agent;
let site;
let files;
/** An address nothing listens on: a port the system gave and took back. */
let closedPort;

/** A server that answers with a file to download, an empty error, or a redirect to the site. */
async function startFileServer() {
  const served = [];
  const server = createServer((req, res) => {
    served.push(req.url);
    if (req.url === '/report') {
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="report 2024.pdf"' });
      res.end('%PDF-1.4 not really');
    } else if (req.url === '/moved') {
      res.writeHead(302, { location: `${site.origin}/actions/article.html` }).end();
    } else {
      res.writeHead(500).end();
    }
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { origin: `http://127.0.0.1:${server.address().port}`, served, close: () => new Promise((done) => server.close(done)) };
}

before(async () => {
  site = await startSiteServer();
  files = await startFileServer();
  const probe = createServer();
  await new Promise((done) => probe.listen(0, '127.0.0.1', done));
  closedPort = probe.address().port;
  await new Promise((done) => probe.close(done));
  agent = await launchAgentBrowser();
});

after(async () => {
  await agent?.close();
  await site?.close();
  await files?.close();
});

const done = { actions: [{ done: { text: 'finished', success: true } }] };

/** Runs `steps` (each a list of actions) from the steps page, then done; what the model was told. */
async function run(steps, sites = []) {
  const llm = await startLlmServer([...steps.map((actions) => ({ actions })), done]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 10, highlights: false });
    const target = await openTarget(agent, `${site.origin}/actions/steps.html`);
    const panel = await openPanel(agent, target.tabId);
    const events = [];
    // The task names the file server: addresses the agent writes for a site the user did not choose would wait for the user.
    const task = `open the pages of ${[new URL(files.origin).host, ...sites].join(' and ')}`;
    const end = await runTask(panel, { task, tabId: target.tabId, onEvent: (e) => events.push(e) });
    await panel.close();
    const actions = events.filter((e) => e.type === 'step').flatMap((e) => e.actions);
    const states = llm.requests.map((r) => r.messages.at(-1).content);
    return { end, actions, states };
  } finally {
    await llm.close();
  }
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('a refused connection, a blocked port and an error status are said as such, and fail the action', async () => {
  const refused = `http://127.0.0.1:${closedPort}/`;
  const missing = `${site.origin}/actions/no-such-page.html`;
  // The task names the addresses: a port the agent wrote itself would wait for the user.
  const { end, actions, states } = await run([
    [{ go_to_url: { url: refused } }],
    [{ go_to_url: { url: 'http://127.0.0.1:1/' } }],
    [{ go_to_url: { url: `${site.origin}/actions/steps.html` } }],
    [{ go_to_url: { url: missing } }],
  ], [`127.0.0.1:${closedPort}`, '127.0.0.1:1']);
  assert.equal(end.type, 'result', JSON.stringify(end));

  assert.equal(actions[0].outcome, `Could not open ${refused}: the server refused the connection (net::ERR_CONNECTION_REFUSED); the tab shows the browser's error page. Check the address (its host and port), or try another site.`);
  assert.equal(actions[0].ok, false);
  assert.ok(states[1].includes(`go_to_url: ${actions[0].outcome}`), states[1]);
  assert.match(states[1], /The current page cannot be read: the page did not load: the tab shows the browser's error page\./);

  // Port 1 is on Chromium's list of ports it never connects to: no connection is even tried.
  assert.equal(actions[1].outcome, 'Could not open http://127.0.0.1:1/: the browser does not connect to this port, which it blocks as unsafe (net::ERR_UNSAFE_PORT); the tab shows the browser\'s error page. Use the site\'s usual address, without this port.');
  assert.ok(states[2].includes(actions[1].outcome), states[2]);

  assert.equal(actions[2].outcome, `Opened ${site.origin}/actions/steps.html.`);
  assert.equal(actions[2].ok, true);

  assert.equal(actions[3].outcome, `Opened ${missing}, but the server answered 404 (Not Found): there is no page at this address. Check the address, or find the page from the site's home page or with a search.`);
  assert.equal(actions[3].ok, false);
  assert.ok(states[4].includes(actions[3].outcome), states[4]);
});

test('a file is reported as downloaded, with its name, in the tab and in a new tab; a redirect names where it led', async () => {
  const report = `${files.origin}/report`;
  const { end, actions, states } = await run([
    [{ go_to_url: { url: report } }, { scroll: { direction: 'down', pages: 1 } }],
    [{ open_tab: { url: report } }],
    [{ go_to_url: { url: `${files.origin}/moved` } }],
    [{ go_to_url: { url: `${files.origin}/empty` } }],
  ]);
  assert.equal(end.type, 'result', JSON.stringify(end));
  const steps = `${site.origin}/actions/steps.html`;
  const downloaded = 'it is a file, "report 2024.pdf", which the browser downloaded instead of showing it';
  const named = 'The files the task downloaded are named after this, with whether the agent can read them.';
  const kept = (name) => `Downloaded ${name} (application/pdf, 19 bytes); read_file reads it.`;

  assert.equal(actions[0].outcome, `${report} did not open as a page: ${downloaded}; the tab still shows ${steps}. ${named} ${kept('report 2024.pdf')}`);
  assert.equal(actions[0].ok, true);
  // The page stayed: the step's next action ran on it.
  assert.equal(actions[1].name, 'scroll');
  assert.ok(states[1].includes(actions[0].outcome), states[1]);
  assert.match(states[1], new RegExp(`Current URL: ${escape(steps)}\\n`));

  // Chrome closes a tab it opened only for a download; the task stays where it was.
  assert.equal(actions[2].outcome, `${report} did not open as a page: ${downloaded}; the browser closed the new tab again, and the current tab is still t1. ${named} ${kept('report 2024 (2).pdf')}`);
  assert.ok(states[2].includes(actions[2].outcome), states[2]);
  assert.match(states[2], new RegExp(`Current URL: ${escape(steps)}\\n`));
  // Each asked for twice: by the browser, then by the agent for the file's bytes.
  assert.equal(files.served.filter((path) => path === '/report').length, 4);

  assert.equal(actions[3].outcome, `Opened ${files.origin}/moved, which redirected to ${site.origin}/actions/article.html.`);
  assert.ok(states[3].includes(actions[3].outcome), states[3]);

  // An error status without a page: Chrome shows its own error page, and the status is known.
  assert.equal(actions[4].outcome, `Opened ${files.origin}/empty, but the server answered 500 (Internal Server Error): the site failed to make the page. Try again later, or find the information on another site.`);
  assert.ok(states[4].includes(actions[4].outcome), states[4]);
});
