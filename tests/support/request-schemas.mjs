// Every reply schema the core can send to a model, as the core itself lists them
// (agent::request_schemas, printed by the core's example `request_schemas`).
//
// The example is built as ./build.sh test builds it, for the whole workspace: that shares what
// `cargo test --workspace` compiled, where `cargo run -p agent-core` (the core's features alone)
// would compile the core and its dependencies again, minutes on a 2-core machine. Built already,
// it is a no-op.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
let cached;

/** `[{label, name, schema, strict}]`, read once per process. */
export function requestSchemas() {
  if (!cached) {
    execFileSync('cargo', ['build', '--quiet', '--workspace', '--bins', '--examples'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    const example = join(root, 'target', 'debug', 'examples', 'request_schemas');
    cached = JSON.parse(execFileSync(example, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
  }
  return cached;
}

/** The schema whose label is `label` (see the example's output). */
export function requestSchema(label) {
  const found = requestSchemas().find((s) => s.label === label);
  if (!found) throw new Error(`no request schema labelled "${label}"; the core lists: ${requestSchemas().map((s) => s.label).join(', ')}`);
  return found;
}
