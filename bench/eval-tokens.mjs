// Tokens per task on the evaluation suite: the built-in suite (tests/eval/suite.jsonl) run by the
// scripted model that does each task right (tests/eval/perfect.json), named gpt-4o so that the
// extension counts every request exactly in o200k, in full and in compact requests. The sizes are
// the agent's own (what it sends for a task done in the fewest steps), not a real model's.
// Usage: ./build.sh bench eval-tokens [--parallel N (2)]
// Prints, per style, the evaluation's input-token table by agent and its headline; each
// evaluation's folder stays under .tmp/eval-tokens/ until the next measurement.

import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startLlmServer } from '../tests/support/llm-server.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SUITE = join(ROOT, 'tests', 'eval', 'suite.jsonl');
const OUT = join(ROOT, '.tmp', 'eval-tokens');
const STYLES = ['full', 'compact'];

/** Runs the evaluation CLI; resolves to its stdout, or fails with its stderr. */
function evaluate(args) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(ROOT, 'runner', 'eval', 'cli.mjs'), ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => (code === 0 ? done(stdout) : fail(new Error(`the evaluation exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

const { values } = parseArgs({ options: { parallel: { type: 'string', default: '2' } } });
const suite = (await readFile(SUITE, 'utf8')).split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
const scripts = JSON.parse(await readFile(join(ROOT, 'tests', 'eval', 'perfect.json'), 'utf8'));
for (const style of STYLES) {
  const llm = await startLlmServer({ tasks: Object.fromEntries(suite.map((t) => [t.task, scripts[t.id]])) });
  try {
    const out = join(OUT, style);
    await rm(out, { recursive: true, force: true }); // the last measurement's, which the evaluation would not overwrite
    const stdout = await evaluate(['--suite', SUITE, '--base-url', llm.baseUrl, '--model', 'gpt-4o', '--request-style', style,
      '--parallel', values.parallel, '--out', out]);
    const report = await readFile(join(out, 'report.md'), 'utf8');
    const blocks = report.split('\n\n');
    const at = blocks.findIndex((block) => block.startsWith('Input tokens by agent'));
    const table = at < 0 ? null : blocks.slice(at, at + 2).join('\n\n');
    process.stdout.write(`## ${style} requests\n\n${stdout.trim()}\n\n${table ?? 'no input-token table in the report'}\n\n`);
  } finally {
    await llm.close();
  }
}
