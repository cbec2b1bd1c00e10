// Serves a folder on loopback, every page under a strict CSP (script-src 'self', no
// 'wasm-unsafe-eval'), as many real sites do. The project's node_modules are served under
// /node_modules/, read-only, so that pages can use real component libraries. Used by the
// end-to-end tests' sites and by the evaluation's `serve` folders.

import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE_MODULES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules');
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.map': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.gif': 'image/gif',
  '.woff': 'font/woff', '.woff2': 'font/woff2', '.ttf': 'font/ttf',
};
export const STRICT_CSP = "script-src 'self'; object-src 'none'";

/** The file a request path names inside `root`, or null for a path that tries to leave it. */
function fileFor(root, path) {
  const [base, rest] = path.startsWith('/node_modules/') ? [NODE_MODULES, path.slice('/node_modules'.length)] : [root, path];
  const file = normalize(join(base, rest.endsWith('/') ? `${rest}index.html` : rest));
  return file.startsWith(`${base}/`) ? file : null;
}

/** The request's body, whole. */
async function bodyOf(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Serves `root` on 127.0.0.1 at a free port; resolves to its origin, the paths requested, the
 * requests with their methods and bodies (`log`) and `close()`.
 * With `post`, a POST, PUT, PATCH or DELETE is answered by `post(path, headers, body)`:
 * `{ status?, type?, body }` (a form's receiver, a site's API); `null`, or no `post`, gets the
 * file as a GET would. With `get`, a GET is first put
 * to `get(url)` (the request's URL, parsed): an answer `{ status?, headers?, type?, body? }` is sent
 * as it is (a redirect, a page made for the query), `null` serves the file. `csp: null` serves
 * without a CSP (a benchmark's pages as they were written, inline scripts and all). */
export async function serveFolder(root, { post, get, csp = STRICT_CSP } = {}) {
  const base = resolve(root);
  const requests = [];
  const log = [];
  const server = createServer(async (req, res) => {
    requests.push(req.url);
    const changing = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(req.method);
    const body = changing ? await bodyOf(req) : null;
    log.push({ method: req.method, url: req.url, body: body?.toString('utf8').slice(0, 4000) ?? '' });
    const answer = changing && post ? await post(new URL(req.url, 'http://x').pathname, req.headers, body) : null;
    if (answer) {
      res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'text/html; charset=utf-8', 'content-security-policy': STRICT_CSP });
      res.end(answer.body);
      return;
    }
    const made = req.method === 'GET' && get ? get(new URL(req.url, 'http://x')) : null;
    if (made) {
      res.writeHead(made.status ?? 200, { 'content-type': made.type ?? 'text/html; charset=utf-8', ...(csp ? { 'content-security-policy': csp } : {}), ...made.headers });
      res.end(made.body ?? '');
      return;
    }
    const file = fileFor(base, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', ...(csp ? { 'content-security-policy': csp } : {}) });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    /** Every path requested, in order (an attacker's server must see none). */
    requests,
    /** Every request as `{ method, url, body }` (the body of a POST, PUT, PATCH or DELETE, as text). */
    log,
    close: () => {
      server.closeAllConnections();
      return new Promise((done) => server.close(done));
    },
  };
}
