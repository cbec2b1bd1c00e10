// Saved tasks: task texts the user runs often, with optional {placeholders}, kept in
// chrome.storage.local apart from the settings (and exported with them), at most MAX_SAVED_TASKS.

import { t } from './i18n.js';

const KEY = 'savedTasks';
export const MAX_SAVED_TASKS = 50;
const MAX_TASK_CHARS = 4000;

/** The saved task texts, in the user's order. */
export async function loadSavedTasks() {
  const stored = (await chrome.storage.local.get(KEY))[KEY];
  return Array.isArray(stored) ? stored.filter((text) => typeof text === 'string') : [];
}

/** Stores `texts` as the saved tasks; throws an Error saying what is wrong with them. */
export async function storeSavedTasks(texts) {
  const problem = savedTasksProblem(texts);
  if (problem) throw new Error(problem);
  await chrome.storage.local.set({ [KEY]: texts.map((text) => text.trim()) });
}

/** What makes `texts` unfit to be the saved tasks, or null. */
export function savedTasksProblem(texts) {
  if (!Array.isArray(texts) || !texts.every((text) => typeof text === 'string' && text.trim())) return t('saved_problem_not_texts');
  if (texts.length > MAX_SAVED_TASKS) return t('saved_problem_too_many', MAX_SAVED_TASKS);
  if (texts.some((text) => text.length > MAX_TASK_CHARS)) return t('saved_problem_too_long', MAX_TASK_CHARS);
  return null;
}
