// Online-Mind2Web (Xue et al., 2025; CC BY 4.0) as an evaluation suite: 300 tasks on live websites,
// each judged by the judge model as WebJudge judges it (judge.mjs). The user downloads the task
// file (Online_Mind2Web.json from huggingface.co/datasets/osunlp/Online-Mind2Web, which needs a
// Hugging Face login) and names it: ./build.sh eval --suite online-mind2web --tasks FILE
// --judge-model M. Its format is checked before anything runs, naming the task and field at fault.
// Each task starts on its website (as the benchmark asks: not on a search engine).

import { readFile } from 'node:fs/promises';
import { SuiteError } from './suite.mjs';

const MAX_STEPS = 30;
const TIME_LIMIT_S = 900;
const LEVELS = new Set(['easy', 'medium', 'hard']);
const WHERE = 'Online-Mind2Web\'s task file is a JSON list of {"task_id", "confirmed_task", "website", "reference_length", "level"}, '
  + 'as downloaded from https://huggingface.co/datasets/osunlp/Online-Mind2Web';

/** The suite's tasks from the task file's text (`path` names it in errors). */
export function parseOnlineMind2Web(text, path) {
  let list;
  try {
    list = JSON.parse(text);
  } catch (err) {
    throw new SuiteError(`${path} is not JSON (${err.message}): ${WHERE}`);
  }
  if (!Array.isArray(list) || !list.length) throw new SuiteError(`${path} holds no list of tasks: ${WHERE}`);
  const ids = new Set();
  return list.map((item, i) => {
    const fail = (field, problem) => new SuiteError(`${path} task ${i + 1}${item?.task_id ? ` (${item.task_id})` : ''}: "${field}" ${problem}; ${WHERE}`);
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw fail('(the task)', 'must be a JSON object');
    for (const field of ['task_id', 'confirmed_task', 'website']) {
      if (typeof item[field] !== 'string' || !item[field].trim()) throw fail(field, 'must be a non-empty string');
    }
    if (!/^[\w.-]+$/.test(item.task_id)) throw fail('task_id', 'may hold only letters, digits, ".", "_" and "-"');
    if (ids.has(item.task_id)) throw fail('task_id', 'is used by an earlier task');
    ids.add(item.task_id);
    if (!/^https?:\/\/\S+$/.test(item.website)) throw fail('website', 'must be an http(s) URL');
    if (item.level !== undefined && !LEVELS.has(item.level)) throw fail('level', 'must be "easy", "medium" or "hard"');
    if (item.reference_length !== undefined && !(Number.isInteger(item.reference_length) && item.reference_length > 0)) throw fail('reference_length', 'must be a whole number of steps');
    return {
      id: item.task_id,
      ...(item.level ? { group: item.level } : {}),
      task: item.confirmed_task,
      start_url: item.website,
      max_steps: MAX_STEPS,
      time_limit_s: TIME_LIMIT_S,
      check: { judge: true },
    };
  });
}

/** The suite from the task file at `path`. */
export async function onlineMind2WebSuite(path) {
  if (!path) throw new SuiteError(`--suite online-mind2web needs --tasks FILE: ${WHERE}`);
  let text;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new SuiteError(`the task file ${path} could not be read (${err.message}): ${WHERE}`);
  }
  return { tasks: parseOnlineMind2Web(text, path), meta: { benchmark: 'Online-Mind2Web', group_label: 'level' }, close: async () => {} };
}
