// An evaluation suite: JSONL, one task a line. Every line is checked before anything runs; the
// first problem is reported with its line and field.
//
//   {"id": "shop-total", "task": "...", "start_url": "https://..." | "/path" (with serve),
//    "serve": "folder served on 127.0.0.1, relative to the suite file", "max_steps": 10,
//    "setup": "page expression run before the task",
//    "check": {"answer": "regex", "page": "page expression, true means success", "url": "regex"}}

import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { statSync } from 'node:fs';

const FIELDS = new Set(['id', 'task', 'start_url', 'serve', 'max_steps', 'setup', 'check', 'time_limit_s']);
const CHECKS = new Set(['answer', 'page', 'url']);
export const DEFAULT_MAX_STEPS = 15;

export class SuiteError extends Error {}

/** Reads and checks the suite at `path`; throws a SuiteError naming the line and field at fault. */
export async function readSuite(path) {
  let text;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new SuiteError(`the suite ${path} could not be read: ${err.message}`);
  }
  return parseSuite(text, path);
}

/** The tasks of suite text `text` read from `path` (for relative `serve` folders). */
export function parseSuite(text, path) {
  const tasks = [];
  const ids = new Set();
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('//')) return;
    const at = `${path} line ${i + 1}`;
    let value;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new SuiteError(`${at}: not a JSON object (${err.message})`);
    }
    const task = checkTask(value, (field, problem) => new SuiteError(`${at}: "${field}" ${problem}`), dirname(path));
    if (ids.has(task.id)) throw new SuiteError(`${at}: "id" ${JSON.stringify(task.id)} is used by an earlier line`);
    ids.add(task.id);
    tasks.push(task);
  });
  if (!tasks.length) throw new SuiteError(`${path}: no tasks (one JSON object a line)`);
  return tasks;
}

function checkTask(value, fail, base) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail('(the line)', 'must be a JSON object');
  for (const field of Object.keys(value)) if (!FIELDS.has(field)) throw fail(field, `is not a suite field (fields: ${[...FIELDS].join(', ')})`);
  const text = (field, required) => {
    const v = value[field];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string' || !v.trim()) throw fail(field, 'must be a non-empty string');
    return v;
  };
  const id = text('id', true);
  if (!/^[\w.-]+$/.test(id)) throw fail('id', 'may hold only letters, digits, ".", "_" and "-"');
  const task = { id, task: text('task', true), setup: text('setup', false) };
  const serve = text('serve', false);
  if (serve !== undefined) {
    task.serve = resolve(base, serve);
    let folder = false;
    try { folder = statSync(task.serve).isDirectory(); } catch { /* reported below */ }
    if (!folder) throw fail('serve', `names no folder (${task.serve})`);
  }
  task.start_url = text('start_url', serve === undefined) ?? '/';
  if (serve !== undefined && !task.start_url.startsWith('/')) throw fail('start_url', 'must be a path starting with "/" when "serve" is given');
  if (serve === undefined && !/^https?:\/\//.test(task.start_url)) throw fail('start_url', 'must be an http(s) URL (or a path, with "serve")');
  const whole = (field, least, most, fallback) => {
    const v = value[field] ?? fallback;
    if (!Number.isInteger(v) || v < least || v > most) throw fail(field, `must be a whole number from ${least} to ${most}`);
    return v;
  };
  task.max_steps = whole('max_steps', 1, 200, DEFAULT_MAX_STEPS);
  if (value.time_limit_s !== undefined) task.time_limit_s = whole('time_limit_s', 5, 3600);
  const check = value.check;
  if (check === null || typeof check !== 'object' || Array.isArray(check)) throw fail('check', 'must be an object with answer, page and/or url');
  const kinds = Object.keys(check);
  if (!kinds.length) throw fail('check', 'must name at least one of answer, page, url');
  for (const kind of kinds) {
    if (!CHECKS.has(kind)) throw fail(`check.${kind}`, 'is not a check (answer, page or url)');
    if (typeof check[kind] !== 'string' || !check[kind].trim()) throw fail(`check.${kind}`, 'must be a non-empty string');
    if (kind !== 'page') {
      try { new RegExp(check[kind]); } catch (err) { throw fail(`check.${kind}`, `is not a valid regular expression (${err.message})`); }
    }
  }
  task.check = { ...check };
  return task;
}
