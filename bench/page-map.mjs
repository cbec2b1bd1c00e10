// Page-map benchmark: the full build (page-side collection, transfer to the worker, Rust
// processing, serialization) timed inside the service worker, on the shared corpus.
// Each map's size in exact o200k and cl100k tokens (js-tiktoken, the same counts as the core's
// BPE) beside the core's vocabulary-free estimates of them, at a stated window size.
// Usage: ./build.sh bench [--runs N] [--filter TEXT] [--window WIDTHxHEIGHT] [--save-maps DIR]
// (--save-maps: each page's map text into DIR, for counting with other tokenizers: bench/gemma-tokens.mjs)
// Writes bench/results/page-map.json and prints a table.

import { createServer } from 'node:http';
import { readFile, readdir, writeFile, mkdir, access } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchAgentBrowser, openTarget } from '../runner/launch.mjs';
import { median } from '../runner/eval/stats.mjs';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base';

const HERE = dirname(fileURLToPath(import.meta.url));
const CORPUS = resolve(process.env.AGENT_CORPUS ?? join(HERE, '..', '..', 'shared', 'corpus'));
const RESULTS = join(HERE, 'results', 'page-map.json');

/** Floors shorter than this are below what the page's clock can time. */
const MIN_FLOOR_MS = 1;

/** Playwright's default viewport, at which the figures before issue 33 were taken. */
const DEFAULT_WINDOW = '1280x720';

const o200k = new Tiktoken(o200kRanks);
const cl100k = new Tiktoken(cl100kRanks);
/** Exact token counts of `text`: o200k (gpt-4o and later) and cl100k (gpt-4, gpt-3.5). */
export const exactTokens = (text) => ({ o200k: o200k.encode(text, [], []).length, cl100k: cl100k.encode(text, [], []).length });

async function corpusPages(filter) {
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
  return pages.filter((p) => p.page.includes(filter));
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

const round = (x) => Math.round(x * 10) / 10;

/**
 * Measures the page map of the tab: its first read (the sensor injected, as a task's first look at
 * a page), then `runs` later reads with the floor measured as many times in the same page between
 * them: medians of the whole build, of the floor, their ratio, and of each part of the build
 * (collection in the page, transfer to the worker, parsing, building and serializing in Rust).
 */
export async function measurePage(agent, tabId, runs) {
  const measured = await agent.worker.evaluate(async ({ tabId, runs }) => {
    // The floor: one plain pass reading every element's computed style and box, the work no
    // page map can avoid, timed in the page itself.
    const floor = () => {
      // A change, so that the next map reads the page again rather than reusing its record.
      document.documentElement.dataset.agentBenchRun = String(performance.now());
      const started = performance.now();
      for (const el of document.querySelectorAll('*')) {
        void getComputedStyle(el).display;
        el.getBoundingClientRect();
      }
      return performance.now() - started;
    };
    // The core loads asynchronously when the worker starts.
    while (!globalThis.agentCore) await new Promise((done) => { setTimeout(done, 20); });
    // The first read: what a task pays on a page it has just opened, the sensor injected and its
    // code not yet optimized by the JavaScript engine. The runs below are later reads.
    const firstStarted = performance.now();
    const first = await globalThis.agentCore.describePage(tabId);
    const firstMs = performance.now() - firstStarted;
    const times = [];
    const floors = [];
    const parts = [];
    let last;
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      last = await globalThis.agentCore.describePage(tabId);
      times.push(performance.now() - start);
      parts.push(last.timing);
      const [pass] = await chrome.scripting.executeScript({ target: { tabId }, func: floor });
      floors.push(pass.result);
    }
    return { times, floors, parts, firstMs, firstCollectMs: first.timing.collect_ms, elements: last.elements,
      indexed: last.indexed, text: last.text, estimate: globalThis.agentCore.estimateTokens(last.text) };
  }, { tabId, runs });
  const part = (name) => round(median(measured.parts.map((p) => p[name])));
  const ms = median(measured.times);
  const floor = median(measured.floors);
  const exact = exactTokens(measured.text);
  return {
    text: measured.text,
    elements: measured.elements,
    indexed: measured.indexed,
    // Exact counts, and the core's vocabulary-free estimates of each (`estimate` of o200k,
    // `estimate_cl100k` of cl100k as for gpt-4).
    o200k: exact.o200k,
    estimate: measured.estimate.o200k,
    cl100k: exact.cl100k,
    estimate_cl100k: measured.estimate.cl100k,
    first_ms: round(measured.firstMs),
    first_collect_ms: round(measured.firstCollectMs),
    ms_median: round(ms),
    ms_min: round(Math.min(...measured.times)),
    ms_max: round(Math.max(...measured.times)),
    floor_ms: round(floor),
    // Below a millisecond the page's clock cannot time the floor: no ratio then.
    ratio: floor >= MIN_FLOOR_MS ? Math.round((ms / floor) * 100) / 100 : null,
    split_ms: {
      collect: part('collect_ms'),
      transfer: part('transfer_ms'),
      parse: part('parse_ms'),
      build: part('build_ms'),
      serialize: part('serialize_ms'),
    },
  };
}

/** `WIDTHxHEIGHT` as `{ width, height }`. */
function parseWindow(text) {
  const match = /^(\d+)x(\d+)$/.exec(text);
  if (!match) throw new Error(`--window takes WIDTHxHEIGHT, such as ${DEFAULT_WINDOW}: not ${text}`);
  return { width: Number(match[1]), height: Number(match[2]) };
}

/** The median and range of `values`, rounded to two places: `median (min–max)`. */
const spread = (values) => {
  const r = (x) => Math.round(x * 100) / 100;
  return { median: r(median(values)), min: r(Math.min(...values)), max: r(Math.max(...values)) };
};
const spreadText = ({ median: m, min, max }) => `median ${m} (${min}–${max})`;

/** The figures of a set of rows: exact map tokens (median and worst) and the estimates' ratios. */
export function tokenSummary(rows) {
  const worst = rows.reduce((a, b) => (b.o200k > a.o200k ? b : a));
  return {
    pages: rows.length,
    o200k_median: median(rows.map((r) => r.o200k)),
    o200k_worst: worst.o200k,
    worst_page: worst.page,
    cl100k_median: median(rows.map((r) => r.cl100k)),
    estimate_median: median(rows.map((r) => r.estimate)),
    estimate_over_o200k: spread(rows.map((r) => r.estimate / Math.max(1, r.o200k))),
    estimate_cl100k_over_cl100k: spread(rows.map((r) => r.estimate_cl100k / Math.max(1, r.cl100k))),
  };
}

async function main() {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' }, filter: { type: 'string', default: '' },
    window: { type: 'string', default: DEFAULT_WINDOW }, 'save-maps': { type: 'string' } } });
  const saveMaps = values['save-maps'];
  if (saveMaps) await mkdir(saveMaps, { recursive: true });
  const runs = Number(values.runs);
  const window = parseWindow(values.window);
  const server = await serveCorpus();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const agent = await launchAgentBrowser();
  // Saved pages reference the live web: only loopback may be reached.
  await agent.context.route((url) => !url.href.startsWith(origin), (route) => route.abort());

  const results = [];
  const columns = [['page', 44], ['elements', 8], ['indexed', 7], ['o200k', 6], ['est.', 6], ['first', 7], ['median', 7], ['max', 7], ['floor', 6],
    ['ratio', 5], ['collect', 7], ['transfer', 8], ['parse', 6], ['build', 6], ['serial', 6]];
  const line = (values) => values.map((v) => v ?? '-').map((v, i) => (i === 0 ? String(v).padEnd(columns[i][1]) : String(v).padStart(columns[i][1]))).join(' ');
  const header = line(columns.map(([name]) => name));
  let viewport;
  try {
    const { page: tab, tabId } = await openTarget(agent, `${origin}/synthetic/rows-200.html`);
    await tab.setViewportSize(window);
    viewport = await tab.evaluate(() => ({ width: innerWidth, height: innerHeight }));
    process.stdout.write(`window ${viewport.width}×${viewport.height}; map tokens: o200k exact (js-tiktoken), est. = the core's vocabulary-free estimate of o200k\n`);
    process.stdout.write(`${header}\n${'-'.repeat(header.length)}\n`);
    for (const { page, path } of await corpusPages(values.filter)) {
      await tab.goto(`${origin}/${path}`, { waitUntil: 'load', timeout: 30000 }).catch(() => {});
      const { text, ...row } = { page, ...await measurePage(agent, tabId, runs) };
      results.push(row);
      if (saveMaps) await writeFile(join(saveMaps, `${page.replace(/\//g, '_')}.txt`), text);
      const s = row.split_ms;
      process.stdout.write(`${line([page, row.elements, row.indexed, row.o200k, row.estimate, row.first_ms, row.ms_median, row.ms_max, row.floor_ms,
        row.ratio, s.collect, s.transfer, s.parse, s.build, s.serialize])}\n`);
    }
  } finally {
    await agent.close();
    server.close();
  }

  const readability = results.filter((r) => r.page.startsWith('readability/'));
  const tokens = readability.length ? tokenSummary(readability) : null;
  await mkdir(dirname(RESULTS), { recursive: true });
  await writeFile(RESULTS, `${JSON.stringify({
    window: viewport,
    tokens: 'o200k and cl100k: exact (js-tiktoken); estimate, estimate_cl100k: the core\'s vocabulary-free estimates of them',
    readability: tokens,
    pages: results,
  }, null, 2)}\n`);
  if (readability.length) {
    const timed = readability.filter((r) => r.ratio !== null);
    const ratios = timed.map((r) => r.ratio);
    const worst = timed.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    console.log(`\nreadability corpus: ${readability.length} pages, median of medians ${round(median(readability.map((r) => r.ms_median)))} ms, slowest median ${Math.max(...readability.map((r) => r.ms_median))} ms, max single run ${Math.max(...readability.map((r) => r.ms_max))} ms`);
    console.log(`map tokens at ${viewport.width}×${viewport.height}, exact o200k: median ${tokens.o200k_median}, worst ${tokens.o200k_worst} (${tokens.worst_page}); exact cl100k: median ${tokens.cl100k_median}`);
    console.log(`the vocabulary-free estimate: median ${tokens.estimate_median}; estimate / o200k ${spreadText(tokens.estimate_over_o200k)}; gpt-4 estimate / cl100k ${spreadText(tokens.estimate_cl100k_over_cl100k)}`);
    const firstTimes = readability.map((r) => r.first_ms / r.ms_median);
    console.log(`first read of a page: median ${round(median(readability.map((r) => r.first_ms)))} ms, a median ${round(median(firstTimes))} times a later read`);
    console.log(`ratio to the floor (${timed.length} pages with a floor of at least ${MIN_FLOOR_MS} ms): median ${round(median(ratios))}, worst ${worst.ratio} (${worst.page})`);
    for (const name of ['synthetic/rows-1000', 'synthetic/rows-3000', 'readability/wikipedia-2', 'readability/archive-of-our-own']) {
      const row = results.find((r) => r.page === name);
      if (row) console.log(`  ${name}: ${row.ms_median} ms, floor ${row.floor_ms} ms, ratio ${row.ratio}, ${row.o200k} o200k tokens (estimate ${row.estimate})`);
    }
  }
  console.log(`wrote ${RESULTS}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
