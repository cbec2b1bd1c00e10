// The evaluation as a user runs it (./build.sh eval ...), for the end-to-end tests of its suites.

import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs `./build.sh eval ARGS` in `cwd`, with `env`; `onStderr(text, child)` sees its progress
 * (all of stderr so far) as it comes. Resolves to `{code, stdout, stderr}`. */
export function runEval(args, { cwd, env = process.env, onStderr = () => {} } = {}) {
  return new Promise((done) => {
    const child = spawn(join(ROOT, 'build.sh'), ['eval', ...args], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; onStderr(stderr, child); });
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** The runs an evaluation wrote to `dir`/results.jsonl. */
export async function evalResults(dir) {
  return (await readFile(join(dir, 'results.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
}
