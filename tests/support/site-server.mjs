// Serves the test sites in tests/sites on loopback, every page under a strict CSP
// (script-src 'self', no 'wasm-unsafe-eval'), as many real sites do. Real component libraries
// are served from the project's node_modules under /node_modules/, read-only.

import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const SITES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'sites');
const NODE_MODULES = resolve(SITES, '..', '..', 'node_modules');
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.map': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.gif': 'image/gif',
  '.woff': 'font/woff', '.woff2': 'font/woff2', '.ttf': 'font/ttf',
};

/** The file a request path names, inside its root, or null for a path that tries to leave it. */
function fileFor(path) {
  const [root, rest] = path.startsWith('/node_modules/') ? [NODE_MODULES, path.slice('/node_modules'.length)] : [SITES, path];
  const file = normalize(join(root, rest.endsWith('/') ? `${rest}index.html` : rest));
  return file.startsWith(`${root}/`) ? file : null;
}
export const STRICT_CSP = "script-src 'self'; object-src 'none'";

export async function startSiteServer() {
  const requests = [];
  const server = createServer(async (req, res) => {
    requests.push(req.url);
    const file = fileFor(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-security-policy': STRICT_CSP });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    /** Every path requested, in order (an attacker's server must see none). */
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
