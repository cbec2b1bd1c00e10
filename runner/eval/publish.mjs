// --publish DIR: an evaluation as a folder anyone can read and check, self-contained: the reports,
// every run's result line, record, screenshots (and film, with --films), the exact suite that ran,
// the agent's version and settings (no keys), and the command that reproduces it.

import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { EXTENSION_DIR } from '../launch.mjs';
import { RESULTS, META } from './run.mjs';

/** Flags that say where results go, not what ran: left out of the command that reproduces it. */
const PLACE_FLAGS = new Set(['--out', '--publish']);
const PLACE_SWITCHES = new Set(['--resume']);

/** The repository's commit, and whether the working tree had changes (null outside git). */
function commitOf(dir) {
  try {
    const commit = execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return { commit, changed };
  } catch {
    return null;
  }
}

/** `argv` without the flags that only place the output (`--out DIR`, `--publish DIR`, `--resume`),
 * and a benchmark's task file (`--tasks`) named as its copy in the published folder. */
export function reproducingArgs(argv) {
  const kept = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = argv[i].split(/=(.*)/);
    if (PLACE_SWITCHES.has(flag)) continue;
    if (PLACE_FLAGS.has(flag)) {
      if (value === undefined) i += 1;
      continue;
    }
    if (flag === '--tasks') {
      kept.push('--tasks', `PUBLISHED/${basename(value ?? argv[++i])}`);
      continue;
    }
    kept.push(argv[i]);
  }
  return kept;
}

const quoted = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`);

/**
 * Writes the published folder `dir` from the evaluation in `outDir`: `results` its result lines,
 * `tasks` the suite as it ran, `suiteFile` the suite's file (none for a built-in benchmark),
 * `settings` the agent's (its key is left out), `argv` the evaluation's arguments.
 */
export async function publish(dir, { outDir, results, tasks, suiteFile, settings, argv }) {
  await mkdir(dir, { recursive: true });
  for (const name of ['report.md', 'report.html', RESULTS, META]) await cp(join(outDir, name), join(dir, name));
  for (const folder of ['records', 'films', 'screenshots']) {
    if (existsSync(join(outDir, folder))) await cp(join(outDir, folder), join(dir, folder), { recursive: true });
  }
  await writeFile(join(dir, 'suite.jsonl'), tasks.map((t) => `${JSON.stringify(t)}\n`).join(''));
  if (suiteFile) await cp(suiteFile, join(dir, basename(suiteFile) === 'suite.jsonl' ? 'suite-file.jsonl' : basename(suiteFile)));
  const { apiKey, ...kept } = settings;
  const manifest = JSON.parse(await readFile(join(EXTENSION_DIR, 'manifest.json'), 'utf8'));
  // The manifest's name is an i18n key (__MSG_ext_name__): its English text.
  const messages = JSON.parse(await readFile(join(EXTENSION_DIR, '_locales', 'en', 'messages.json'), 'utf8'));
  manifest.name = manifest.name.replace(/^__MSG_(\w+)__$/, (_, key) => messages[key]?.message ?? key);
  const source = commitOf(EXTENSION_DIR);
  const agent = { name: manifest.name, version: manifest.version, ...(source ?? {}), settings: { ...kept, apiKey: apiKey ? '(given, not published)' : '' } };
  await writeFile(join(dir, 'agent.json'), `${JSON.stringify(agent, null, 2)}\n`);
  const command = ['./build.sh', 'eval', ...reproducingArgs(argv)].map(quoted).join(' ');
  const lines = [
    '# How to reproduce this evaluation',
    '',
    `${results.length} runs. The agent: ${manifest.name} ${manifest.version}${source ? `, commit ${source.commit}${source.changed ? ' (with changes not committed: the figures may not be reproducible from the commit alone)' : ''}` : ''}; its settings in agent.json (no key).`,
    '',
    '```sh',
    ...(source ? [`git checkout ${source.commit}`] : []),
    `${command} --out eval-again`,
    '```',
    '',
    ...(argv.some((a) => a.startsWith('--tasks')) ? ['PUBLISHED is this folder: the task file ran is here.', ''] : []),
    'The key, if the model needs one, is read from the environment variable named by --api-key-env (and --judge-api-key-env); set it first.',
    'suite.jsonl is the suite exactly as it ran (one task a line); results.jsonl, records/ and screenshots/ hold every run; report.md and report.html the figures.',
    '',
  ];
  await writeFile(join(dir, 'REPRODUCE.md'), lines.join('\n'));
}
