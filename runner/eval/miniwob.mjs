// MiniWoB++ (Farama Foundation, MIT licence) as an evaluation suite: ./build.sh eval --suite miniwob.
//
// build.sh installs the pages of the wheel pinned in miniwob-pin.txt (version, SHA-256) from PyPI
// into .tmp/miniwob/VERSION/; they are served on loopback as written (their scripts are inline, so
// without the strict CSP of a suite's `serve` folder). A run is one episode of one task family with
// one seed, started before the agent sees the page as the benchmark's own environment starts it
// (Math.seedrandom(seed), then core.startEpisodeReal()), with three changes for repeatable runs:
// the episode clock is stretched to a day (the step and time limits end a run, not the page's 10 to
// 30 s, which a model's think time would eat), the reward display is hidden (the agent is not told
// its reward), and no next episode follows the first (the "START" cover would begin another). The
// task is the page's own instruction (#query, core.getUtterance()); the run is judged by the page's
// own raw reward, without its time penalty (WOB_RAW_REWARD_GLOBAL; solved = 1).

import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveFolder } from '../serve.mjs';
import { SuiteError } from './suite.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [VERSION, SHA256] = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'miniwob-pin.txt'), 'utf8').trim().split('\n');
export const PACKAGE = { name: 'miniwob', version: VERSION, sha256: SHA256 };
/** Where build.sh unpacks the wheel (its TMPDIR is the repository's .tmp/). */
export const HTML_DIR = join(ROOT, '.tmp', 'miniwob', VERSION, 'miniwob', 'html');
export const DEFAULT_SEEDS = '1-5';
const MAX_STEPS = 15;
const EPISODE_MS = 24 * 3600 * 1000;

const SHAPES = 'shapes drawn in SVG or on a canvas: only a picture tells them apart';
const COLOURS = 'told apart by colour alone';
const POINTER = 'a pointer position or gesture, not an element (coordinates, a path, a resize handle)';
/** The families left out, each with why: what our page map and actions cannot do from the DOM. */
export const LEFT_OUT = {
  'ascending-numbers': SHAPES,
  'bisect-angle': SHAPES,
  'chase-circle': SHAPES,
  'circle-center': SHAPES,
  'click-pie': SHAPES,
  'click-pie-nodelay': SHAPES,
  'click-shape': SHAPES,
  'count-shape': SHAPES,
  'count-sides': SHAPES,
  'drag-circle': SHAPES,
  'drag-shapes': SHAPES,
  'drag-shapes-2': SHAPES,
  'drag-single-shape': SHAPES,
  'draw-circle': SHAPES,
  'draw-line': SHAPES,
  'find-midpoint': SHAPES,
  'grid-coordinate': SHAPES,
  'hover-shape': SHAPES,
  'identify-shape': SHAPES,
  'moving-items': SHAPES,
  'right-angle': SHAPES,
  'click-color': COLOURS,
  'click-shades': COLOURS,
  'use-colorwheel': COLOURS,
  'use-colorwheel-2': COLOURS,
  'visual-addition': 'counting blocks in a picture',
  'number-checkboxes': 'a digit drawn as a pattern of checkboxes: only a picture shows it',
  'drag-box': POINTER,
  'drag-cube': POINTER,
  'hot-cold': POINTER,
  'resize-textarea': POINTER,
  'daily-calendar': POINTER,
  'use-slider': 'a jQuery UI slider, which tells no value (no ARIA state): a drag by eye',
  'use-slider-2': 'jQuery UI sliders, which tell no value (no ARIA state): a drag by eye',
  'form-sequence': 'a jQuery UI slider, which tells no value (no ARIA state): a drag by eye',
  'highlight-text': 'selecting text with the pointer, which no action does',
  'highlight-text-2': 'selecting text with the pointer, which no action does',
  'simon-says': 'remembering a sequence of flashing colours',
};

/** The seeds written as `1-5`, `3,7` or both (`1-3,10`): a sorted list of whole numbers. */
export function parseSeeds(text) {
  const seeds = new Set();
  for (const part of String(text).split(',').map((p) => p.trim()).filter(Boolean)) {
    const [, from, to] = part.match(/^(\d+)(?:-(\d+))?$/) ?? [];
    if (from === undefined || Number(to ?? from) < Number(from) || Number(to ?? from) - Number(from) >= 1000) {
      throw new SuiteError(`--seeds takes whole numbers and ranges such as 1-5 or 1,4,9, not "${part}"`);
    }
    for (let seed = Number(from); seed <= Number(to ?? from); seed++) seeds.add(seed);
  }
  if (!seeds.size) throw new SuiteError('--seeds names no seed (e.g. --seeds 1-5)');
  return [...seeds].sort((a, b) => a - b);
}

/** Every family the installed wheel has, and those run (the others are in LEFT_OUT). */
export function families() {
  if (!existsSync(join(HTML_DIR, 'core', 'core.js'))) {
    throw new SuiteError(`MiniWoB++ ${VERSION}'s pages are not installed in ${HTML_DIR}: run the evaluation as ./build.sh eval --suite miniwob, which installs them from PyPI`);
  }
  const all = readdirSync(join(HTML_DIR, 'miniwob')).filter((f) => f.endsWith('.html')).map((f) => f.slice(0, -'.html'.length)).sort();
  const unknown = Object.keys(LEFT_OUT).filter((f) => !all.includes(f));
  if (unknown.length) throw new SuiteError(`the families left out are not all in MiniWoB++ ${VERSION}: ${unknown.join(', ')}`);
  return { all, run: all.filter((f) => !(f in LEFT_OUT)) };
}

/** The page expression that starts the episode of `seed` before the agent sees the page. */
const startEpisode = (seed) => `(async () => {
  core.EPISODE_MAX_TIME = ${EPISODE_MS};
  core.startEpisode = () => {};
  Math.seedrandom(${seed});
  core.startEpisodeReal();
  core.clearTimer();
  core.hideDisplay();
  for (const until = Date.now() + 10000; !WOB_TASK_READY;) {
    if (Date.now() > until) throw new Error('the MiniWoB++ task was not ready within 10 s (WOB_TASK_READY)');
    await new Promise((resolve) => { setTimeout(resolve, 50); });
  }
})()`;

/** The instruction (a few families give it with the fields the benchmark's environment reads). */
const UTTERANCE = '((said) => (typeof said === "string" ? said : said.utterance))(core.getUtterance())';

/** True when the episode ended with the full raw reward; else what the page said. */
const REWARD_CHECK = 'WOB_DONE_GLOBAL ? (WOB_RAW_REWARD_GLOBAL >= 1 || `raw reward ${WOB_RAW_REWARD_GLOBAL}${WOB_REWARD_REASON ? ` (${WOB_REWARD_REASON})` : ""}`) : "no reward: the episode did not end"';

/**
 * The MiniWoB++ suite: a task per family run (or `only`, a comma-separated list of families) and
 * seed, its pages served on loopback until `close()`; `meta` says what was run and left out.
 */
export async function miniwobSuite({ seeds = DEFAULT_SEEDS, only } = {}) {
  const chosenSeeds = parseSeeds(seeds);
  const { all, run } = families();
  let chosen = run;
  if (only) {
    chosen = only.split(',').map((f) => f.trim()).filter(Boolean);
    const problems = chosen.map((f) => (f in LEFT_OUT ? `${f} is left out (${LEFT_OUT[f]})` : all.includes(f) ? null : `${f} is no MiniWoB++ family`)).filter(Boolean);
    if (problems.length) throw new SuiteError(`--families: ${problems.join('; ')}`);
  }
  const server = await serveFolder(HTML_DIR, { csp: null });
  const tasks = chosen.flatMap((family) => chosenSeeds.map((seed) => ({
    id: `${family}.${seed}`,
    group: family,
    task: `the instruction of MiniWoB++ ${family}, seed ${seed}`,
    task_from_page: UTTERANCE,
    start_url: `${server.origin}/miniwob/${family}.html`,
    setup: startEpisode(seed),
    max_steps: MAX_STEPS,
    check: { page: REWARD_CHECK },
  })));
  return {
    tasks,
    meta: {
      benchmark: 'MiniWoB++',
      group_label: 'family',
      package: `${PACKAGE.name}==${VERSION}`,
      sha256: SHA256,
      seeds: chosenSeeds,
      families: chosen,
      left_out: LEFT_OUT,
    },
    // The instruction is the user's, on pages made for the test: what the agent asks is allowed
    // (a password typed, a "purchase"), as a user giving that instruction would allow it.
    approve: true,
    close: () => server.close(),
  };
}
