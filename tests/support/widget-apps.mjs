// Bundles the React widget pages in tests/sites/widgets/src with esbuild (pinned in
// package-lock.json) into tests/sites/widgets/build/, which is not committed: pages under a
// strict CSP load them as ordinary scripts.

import { build } from 'esbuild';
import { readdir } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const WIDGETS = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'sites', 'widgets');

export async function bundleWidgetApps() {
  const sources = (await readdir(join(WIDGETS, 'src'))).filter((name) => name.endsWith('.jsx'));
  await build({
    entryPoints: sources.map((name) => join(WIDGETS, 'src', name)),
    outdir: join(WIDGETS, 'build'),
    bundle: true,
    format: 'iife',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
}
