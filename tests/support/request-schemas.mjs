// Every reply schema the core can send to a model, as the core itself lists them
// (agent::request_schemas, printed by `cargo run -p agent-core --example request_schemas`).

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
let cached;

/** `[{label, name, schema, strict}]`, read once per process. */
export function requestSchemas() {
  cached ??= JSON.parse(
    execFileSync('cargo', ['run', '--quiet', '-p', 'agent-core', '--example', 'request_schemas'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    }),
  );
  return cached;
}

/** The schema whose label is `label` (see the example's output). */
export function requestSchema(label) {
  const found = requestSchemas().find((s) => s.label === label);
  if (!found) throw new Error(`no request schema labelled "${label}"; the core lists: ${requestSchemas().map((s) => s.label).join(', ')}`);
  return found;
}
