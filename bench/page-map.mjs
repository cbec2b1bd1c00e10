// Page-map benchmark: the full build (page-side collection, transfer to the worker, Rust
// processing, serialization) timed inside the service worker, on the shared corpus.
// Usage: ./build.sh bench [--runs N] [--filter TEXT]
// Writes bench/results/page-map.json and prints a table.

import { createServer } from 'node:http';
import { readFile, readdir, writeFile, mkdir, access } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchAgentBrowser, openTarget } from '../runner/launch.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CORPUS = resolve(process.env.AGENT_CORPUS ?? join(HERE, '..', '..', 'shared', 'corpus'));
const RESULTS = join(HERE, 'results', 'page-map.json');

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' }, filter: { type: 'string', default: '' } } });
const RUNS = Number(values.runs);

async function corpusPages() {
  const pages = [];
  for (const name of ['rows-200', 'rows-1000', 'rows-3000']) pages.push({ page: `synthetic/${name}`, path: `synthetic/${name}.html` });
  const dirs = (await readdir(join(CORPUS, 'readability'), { withFileTypes: true })).filter((d) => d.isDirectory());
  for (const dir of dirs.map((d) => d.name).sort()) {
    const path = `readability/${dir}/source.html`;
    try {
      await access(join(CORPUS, path));
      pages.push({ page: `readability/${dir}`, path });
    } catch { /* a folder without a page */ }
  }
  return pages.filter((p) => p.page.includes(values.filter));
}

function serveCorpus() {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '');
    if (path.includes('..')) return res.writeHead(403).end();
    try {
      const body = await readFile(join(CORPUS, path));
      res.writeHead(200, { 'content-type': path.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x) => Math.round(x * 10) / 10;

const server = await serveCorpus();
const origin = `http://127.0.0.1:${server.address().port}`;
const agent = await launchAgentBrowser();
// Saved pages reference the live web: only loopback may be reached.
await agent.context.route((url) => !url.href.startsWith(origin), (route) => route.abort());

const results = [];
const header = `${'page'.padEnd(48)} ${'elements'.padStart(8)} ${'indexed'.padStart(7)} ${'tokens'.padStart(7)} ${'median'.padStart(8)} ${'min'.padStart(8)} ${'max'.padStart(8)}`;
process.stdout.write(`${header}\n${'-'.repeat(header.length)}\n`);
try {
  const { page: tab, tabId } = await openTarget(agent, `${origin}/synthetic/rows-200.html`);
  await agent.worker.evaluate(() => new Promise((done) => {
    const wait = () => (globalThis.agentCore ? done() : setTimeout(wait, 20));
    wait();
  }));
  for (const { page, path } of await corpusPages()) {
    await tab.goto(`${origin}/${path}`, { waitUntil: 'load', timeout: 30000 }).catch(() => {});
    const measured = await agent.worker.evaluate(async ({ tabId, runs }) => {
      await globalThis.agentCore.describePage(tabId); // warm-up: sensor injection, JIT
      const times = [];
      let last;
      for (let i = 0; i < runs; i++) {
        const start = performance.now();
        last = await globalThis.agentCore.describePage(tabId);
        times.push(performance.now() - start);
      }
      return { times, elements: last.elements, indexed: last.indexed, tokens: last.tokens };
    }, { tabId, runs: RUNS });
    const row = {
      page,
      elements: measured.elements,
      indexed: measured.indexed,
      tokens: measured.tokens,
      ms_median: round(median(measured.times)),
      ms_min: round(Math.min(...measured.times)),
      ms_max: round(Math.max(...measured.times)),
    };
    results.push(row);
    process.stdout.write(`${page.padEnd(48)} ${String(row.elements).padStart(8)} ${String(row.indexed).padStart(7)} ${String(row.tokens).padStart(7)} ${String(row.ms_median).padStart(8)} ${String(row.ms_min).padStart(8)} ${String(row.ms_max).padStart(8)}\n`);
  }
} finally {
  await agent.close();
  server.close();
}

await mkdir(dirname(RESULTS), { recursive: true });
await writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
const readability = results.filter((r) => r.page.startsWith('readability/'));
if (readability.length) {
  console.log(`\nreadability corpus: ${readability.length} pages, median of medians ${round(median(readability.map((r) => r.ms_median)))} ms, slowest median ${Math.max(...readability.map((r) => r.ms_median))} ms, max single run ${Math.max(...readability.map((r) => r.ms_max))} ms, median map ${median(readability.map((r) => r.tokens))} tokens`);
}
console.log(`wrote ${RESULTS}`);
