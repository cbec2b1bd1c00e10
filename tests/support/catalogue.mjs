// The catalogue fixture (tests/sites/list: 200 items, 20 a page, a Next link) and a scripted model
// that collects it the way a model reading each page map would: into a CSV file of the notebook
// with append_file, or, for comparison, in its memory field.

import assert from 'node:assert/strict';
import { ITEMS } from '../sites/list/items.js';

export const CATALOGUE_TASK = 'collect every item of this catalogue (all pages) into a CSV file with number, name and price';
export const CATALOGUE_FILE = 'items.csv';
const HEADER = 'number,name,price';

/** A CSV field, quoted when it holds a comma, a quote or a line break. */
const field = (text) => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
const row = (values) => values.map(field).join(',');

/** The CSV the page's data makes: what the extraction must equal. */
export const CATALOGUE_CSV = [HEADER, ...ITEMS.map((item) => row([item.number, item.name, item.price]))].join('\n');

/** The page a state shows, of how many, and its items as CSV rows, read from the page map. */
function readPage(state) {
  const [, page, pages] = state.match(/Page (\d+) of (\d+)/).map(Number);
  const rows = [...state.matchAll(/#(\d{3}) · (.+?) · (\d+\.\d{2})/g)].map(([, number, name, price]) => row([number, name, price]));
  assert.ok(rows.length > 0, `no items in the page map:\n${state}`);
  return { page, pages, rows };
}

/** Next, or done with `text` on the last page. */
const onward = ({ page, pages }, text) => (page < pages ? { click_element: { target: 'Next' } } : { done: { text, success: true } });

/** One step of a model that appends the page's items to the CSV file (the header first, on page
 * 1), then goes on. Nothing comes from the fixture's data. */
export function appendPage(state) {
  const seen = readPage(state);
  const text = (seen.page === 1 ? [HEADER, ...seen.rows] : seen.rows).join('\n');
  return {
    memory: `Pages 1 to ${seen.page} of ${seen.pages} are in ${CATALOGUE_FILE}.`,
    next_goal: 'Go on with the next page',
    actions: [{ append_file: { name: CATALOGUE_FILE, text } }, onward(seen, `All the items are in ${CATALOGUE_FILE}.`)],
  };
}

/** One step of a model without a notebook: it keeps every item so far in its memory field (its
 * last memory read from the conversation it is sent) and answers with them all. */
export function rememberPage(state, request) {
  const seen = readPage(state);
  const outputs = request.messages.filter((m) => m.role === 'assistant').map((m) => JSON.parse(m.content));
  const before = outputs.at(-1)?.current_state.memory ?? HEADER;
  const memory = [before, ...seen.rows].join('\n');
  return { memory, next_goal: 'Go on with the next page', actions: [onward(seen, memory)] };
}

/** The last state message of a navigator request: the page map the model sees. */
const stateOf = (request) => request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';

/** `count` scripted replies, each `decide` applied to the state of the request it answers. */
export const steps = (count, decide = appendPage) => Array.from({ length: count }, () => (request) => decide(stateOf(request), request));
