// Serves the test sites in tests/sites on loopback under a strict CSP, with the project's
// node_modules under /node_modules/ (see runner/serve.mjs).

import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveFolder, STRICT_CSP } from '../../runner/serve.mjs';

const SITES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'sites');

export { STRICT_CSP };

export const startSiteServer = () => serveFolder(SITES);
