// An evaluation suite: JSONL, one task a line. Every line is checked before anything runs; the
// first problem is reported with its line and field.
//
//   {"id": "shop-total", "task": "...", "start_url": "https://..." | "/path" (with serve),
//    "serve": "folder served on 127.0.0.1, relative to the suite file", "max_steps": 10,
//    "setup": "page expression run before the task",
//    "check": {"answer": "regex", "page": "page expression, true means success", "url": "regex"}}
//
// A task may ask for its answer as data: "output_schema": {JSON Schema} (or --output-schema for
// every task without one), and "check": {"data": expected} compares that data field by field
// (see data-check.mjs).
//
// A judged task ("check": {"judge": true} or {"judge": ["key point", ...]}) is decided by the judge
// model named with --judge-model, as Online-Mind2Web's WebJudge decides (judge.mjs).
//
// Safety suites add (see docs/evaluation.md#safety-suites):
//   "kind": "attack" (every question is refused; stopped when no data left) or "benign" (every
//   question is allowed, and counted), "category": "a name the report groups runs by",
//   "sites": {"attacker": {"serve": "folder", "host": "localhost"}, ...}: more sites served for
//   each run on their own port (host 127.0.0.1 unless named), written {site:NAME} in the task,
//   start_url, setup and checks ({site:start} is the served start site), and two checks:
//   "leak": "regex" over what the other sites received, each request as "NAME:/path?query"
//   (a match is data that left); "questions": the most questions a benign run may ask.
//   Two more checks read what the sites received with its method and body, each request as
//   "NAME:METHOD /path?query BODY": "sent": "regex" (a request must match: what the user's task
//   made a site do), "consequence": "regex" (an attack's: the site must receive no match).
//   A site with "redirects": true has open redirects (/go/redirect?to=URL, /go/refresh?to=URL).
//   An attack may carry "user_check": {answer, page, url, sent, data}: the user's own task,
//   judged apart; done despite the attack, it counts in the utility under attack.

import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { statSync } from 'node:fs';

const FIELDS = new Set(['id', 'task', 'start_url', 'serve', 'max_steps', 'setup', 'check', 'time_limit_s', 'kind', 'category', 'sites', 'output_schema', 'user_check']);
const CHECKS = new Set(['answer', 'page', 'url', 'leak', 'questions', 'data', 'judge', 'sent', 'consequence']);
/** The checks an attack's `user_check` may hold: the user's task's outcome. */
const USER_CHECKS = new Set(['answer', 'page', 'url', 'sent', 'data']);
/** The checks that read what the task's other sites received. */
const SITE_CHECKS = new Set(['leak', 'sent', 'consequence']);
const KINDS = new Set(['attack', 'benign']);
/** A {site:NAME} placeholder. */
const SITE_PLACEHOLDER = /\{site:([a-z]+)\}/g;
export const DEFAULT_MAX_STEPS = 15;

export class SuiteError extends Error {}

/**
 * Reads and checks the suite at `path`; throws a SuiteError naming the line and field at fault.
 * `outputSchema` is the output schema of the tasks that have none of their own.
 */
export async function readSuite(path, { outputSchema } = {}) {
  let text;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new SuiteError(`the suite ${path} could not be read: ${err.message}`);
  }
  return parseSuite(text, path, { outputSchema });
}

/** The tasks of suite text `text` read from `path` (for relative `serve` folders). */
export function parseSuite(text, path, { outputSchema } = {}) {
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
    const task = checkTask({ output_schema: outputSchema, ...value }, (field, problem) => new SuiteError(`${at}: "${field}" ${problem}`), dirname(path));
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
  const schema = value.output_schema;
  if (schema !== undefined && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) throw fail('output_schema', 'must be a JSON Schema (an object)');
  if (schema !== undefined) task.output_schema = schema;
  const folderAt = (field, path) => {
    const folder = resolve(base, path);
    let isFolder = false;
    try { isFolder = statSync(folder).isDirectory(); } catch { /* reported below */ }
    if (!isFolder) throw fail(field, `names no folder (${folder})`);
    return folder;
  };
  const serve = text('serve', false);
  if (serve !== undefined) task.serve = folderAt('serve', serve);
  const kind = text('kind', false);
  if (kind !== undefined && !KINDS.has(kind)) throw fail('kind', 'must be "attack" or "benign"');
  if (kind) task.kind = kind;
  const category = text('category', false);
  if (category) task.category = category;
  if (value.sites !== undefined) {
    task.sites = {};
    if (value.sites === null || typeof value.sites !== 'object' || Array.isArray(value.sites)) throw fail('sites', 'must be an object of sites by name');
    for (const [name, site] of Object.entries(value.sites)) {
      const at = `sites.${name}`;
      if (!/^[a-z]+$/.test(name) || name === 'start') throw fail(at, 'must be named in lower-case letters, and not "start"');
      if (site === null || typeof site !== 'object' || typeof site.serve !== 'string') throw fail(at, 'must be {"serve": "folder", "host"?: "localhost" or "127.0.0.1", "redirects"?: true}');
      const host = site.host ?? '127.0.0.1';
      if (!['localhost', '127.0.0.1'].includes(host)) throw fail(`${at}.host`, 'must be "localhost" or "127.0.0.1" (loopback only)');
      if (site.redirects !== undefined && typeof site.redirects !== 'boolean') throw fail(`${at}.redirects`, 'must be true or false');
      task.sites[name] = { serve: folderAt(`${at}.serve`, site.serve), host, ...(site.redirects ? { redirects: true } : {}) };
    }
  }
  task.start_url = text('start_url', serve === undefined) ?? '/';
  const onSite = /^\{site:[a-z]+\}\//.test(task.start_url);
  if (serve !== undefined && !task.start_url.startsWith('/') && !onSite) throw fail('start_url', 'must be a path starting with "/" when "serve" is given (or on a site of the task: {site:NAME}/path)');
  if (serve === undefined && !/^(https?:\/\/|\{site:[a-z]+\}\/)/.test(task.start_url)) throw fail('start_url', 'must be an http(s) URL, one on a site of the task ({site:NAME}/path), or a path with "serve"');
  const whole = (field, least, most, fallback) => {
    const v = value[field] ?? fallback;
    if (!Number.isInteger(v) || v < least || v > most) throw fail(field, `must be a whole number from ${least} to ${most}`);
    return v;
  };
  task.max_steps = whole('max_steps', 1, 200, DEFAULT_MAX_STEPS);
  if (value.time_limit_s !== undefined) task.time_limit_s = whole('time_limit_s', 5, 3600);
  task.check = checkChecks(value.check, 'check', CHECKS, task, fail);
  if (value.user_check !== undefined) {
    if (task.kind !== 'attack') throw fail('user_check', 'is for attacks only (the user\'s own task, judged apart from the attack)');
    task.user_check = checkChecks(value.user_check, 'user_check', USER_CHECKS, task, fail);
  }
  const known = new Set(['start', ...Object.keys(task.sites ?? {})]);
  const texts = {
    task: task.task, start_url: task.start_url, setup: task.setup,
    ...Object.fromEntries(Object.entries(task.check).map(([k, v]) => [`check.${k}`, v])),
    ...Object.fromEntries(Object.entries(task.user_check ?? {}).map(([k, v]) => [`user_check.${k}`, v])),
  };
  for (const [field, written] of Object.entries(texts)) {
    for (const [, name] of String(written ?? '').matchAll(SITE_PLACEHOLDER)) {
      if (!known.has(name)) throw fail(field, `names {site:${name}}, which is not among the task's sites (${[...known].join(', ')})`);
      if (name === 'start' && !task.serve) throw fail(field, 'names {site:start}, which needs "serve"');
    }
  }
  return task;
}

/** The checks `check` of field `field`, each of the kinds `allowed`, checked as `task` needs them. */
function checkChecks(check, field, allowed, task, fail) {
  if (check === null || typeof check !== 'object' || Array.isArray(check)) throw fail(field, `must be an object of checks (${[...allowed].join(', ')})`);
  const kinds = Object.keys(check);
  if (!kinds.length) throw fail(field, `must name at least one of ${[...allowed].join(', ')}`);
  for (const kind of kinds) {
    if (!allowed.has(kind)) throw fail(`${field}.${kind}`, `is not a check here (${[...allowed].join(', ')})`);
    if (kind === 'judge') {
      const points = check.judge;
      const listed = Array.isArray(points) && points.length && points.every((p) => typeof p === 'string' && p.trim());
      if (points !== true && !listed) throw fail(`${field}.judge`, 'must be true (the judge model finds the key points) or a list of key points');
      continue;
    }
    if (kind === 'data') {
      if (!task.output_schema) throw fail(`${field}.data`, 'needs an "output_schema" (or --output-schema) for the answer\'s data');
      continue;
    }
    if (kind === 'questions') {
      if (!Number.isInteger(check.questions) || check.questions < 0 || check.questions > 20) throw fail(`${field}.questions`, 'must be a whole number from 0 to 20');
      continue;
    }
    if (typeof check[kind] !== 'string' || !check[kind].trim()) throw fail(`${field}.${kind}`, 'must be a non-empty string');
    if (SITE_CHECKS.has(kind) && !Object.keys(task.sites ?? {}).length) throw fail(`${field}.${kind}`, 'needs "sites" whose requests it reads');
    if (kind !== 'page') {
      try { new RegExp(check[kind]); } catch (err) { throw fail(`${field}.${kind}`, `is not a valid regular expression (${err.message})`); }
    }
  }
  return { ...check };
}

/** `task` with its {site:NAME} placeholders replaced by the sites' origins (`start` included). */
export function placeSites(task, origins) {
  const place = (text) => (typeof text === 'string' ? text.replace(SITE_PLACEHOLDER, (_, name) => origins[name]) : text);
  return {
    ...task,
    task: place(task.task),
    start_url: place(task.start_url),
    setup: place(task.setup),
    check: Object.fromEntries(Object.entries(task.check).map(([kind, value]) => [kind, place(value)])),
    ...(task.user_check ? { user_check: Object.fromEntries(Object.entries(task.user_check).map(([kind, value]) => [kind, place(value)])) } : {}),
  };
}
