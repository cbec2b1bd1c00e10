// Serves the test sites in tests/sites on loopback under a strict CSP, with the project's
// node_modules under /node_modules/ (see runner/serve.mjs).
//
// Besides the files, every site has the open redirects many real sites have, for the attack
// suite: /go/redirect?to=URL answers 302 to URL, /go/refresh?to=URL is a page whose meta refresh
// goes there (a page whose script does it is tests/sites/exfil/continue.html). And a site can be
// reached at more loopback addresses and ports than its own (`alsoOn`), as an attacker's server
// that answers on every address of 127.0.0.0/8 and on a port of its choosing would be.

import { createServer, connect } from 'node:net';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveFolder, STRICT_CSP } from '../../runner/serve.mjs';

const SITES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'sites');

export { STRICT_CSP };

const attribute = (text) => text.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The open redirects: a server's 302, and a meta refresh. */
function openRedirect(url) {
  const to = url.searchParams.get('to');
  if (!to) return null;
  if (url.pathname === '/go/redirect') return { status: 302, headers: { location: to } };
  if (url.pathname === '/go/refresh') {
    return { body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${attribute(to)}"><title>Redirecting</title></head><body><p>Redirecting...</p></body></html>` };
  }
  return null;
}

/** Resolves to a site server: `origin`, `requests` (every path asked of it, at any of its
 * addresses), `alsoOn(host, port)` and `close()`. */
export async function startSiteServer() {
  const server = await serveFolder(SITES, { get: openRedirect });
  const { port } = new URL(server.origin);
  const listeners = [];
  const sockets = new Set();
  return {
    origin: server.origin,
    requests: server.requests,
    /** Makes the site answer at `host`:`port` too (another loopback address, another port; its
     * own port unless told), passing each connection on to it; resolves to that origin. Fails
     * when the address cannot be listened on (a port taken). */
    async alsoOn(host, at = Number(port)) {
      const listener = createServer((socket) => {
        const upstream = connect(Number(port), '127.0.0.1');
        for (const end of [socket, upstream]) {
          sockets.add(end);
          end.on('close', () => sockets.delete(end));
          end.on('error', () => { socket.destroy(); upstream.destroy(); });
        }
        socket.pipe(upstream).pipe(socket);
      });
      await new Promise((done, fail) => {
        listener.once('error', fail);
        listener.listen(at, host, done);
      });
      listeners.push(listener);
      return `http://${host}:${at}`;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(listeners.map((listener) => new Promise((done) => { listener.close(done); })));
      await server.close();
    },
  };
}
