// A small static file server for the e2e tests: no dependencies, 127.0.0.1 only,
// ephemeral port by default. Serves ICESCOPE_DIST (default <repo>/dist).
//
//   import { startServer } from './serve.mjs';
//   const srv = await startServer({ root }); ... srv.url ... await srv.close();
//
// or from a shell:  node tests/e2e/serve.mjs [dir] [port]   (prints the URL)

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '..', '..');
export const DEFAULT_DIST = path.join(REPO, 'dist');

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.avro': 'application/octet-stream',
  '.parquet': 'application/octet-stream',
  '.puffin': 'application/octet-stream',
  '.bin': 'application/octet-stream',
  '.gz': 'application/gzip',
  '.txt': 'text/plain; charset=utf-8',
  '.text': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
};

export function mimeFor(file) {
  return MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

function statOrNull(p) {
  try {
    return fs.statSync(p);
  } catch {
    return null;
  }
}

/**
 * Start serving `root`. Resolves to { url, port, root, close() }; url ends with '/'.
 * Paths without an extension that match no file fall back to index.html (client-side routes).
 */
export function startServer({ root = process.env.ICESCOPE_DIST || DEFAULT_DIST, port = 0, host = '127.0.0.1', log = false, proxy = {} } = {}) {
  root = path.resolve(root);
  const server = http.createServer((req, res) => {
    // Same-origin reverse proxy, as `trunk serve` does for /catalog/: { '/catalog/': 'http://127.0.0.1:8181/' }.
    const prefix = Object.keys(proxy).find((p) => req.url.startsWith(p));
    if (prefix) {
      const target = new URL(req.url.slice(prefix.length), proxy[prefix]);
      const up = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      });
      up.on('error', (e) => {
        res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(`proxy: ${e.message}\n`);
      });
      req.pipe(up);
      return;
    }
    const send = (status, headers, body) => {
      res.writeHead(status, { 'Cache-Control': 'no-store', ...headers });
      if (req.method === 'HEAD' || body == null) res.end();
      else res.end(body);
      if (log) console.error(`${status} ${req.method} ${req.url}`);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }, 'method not allowed\n');
      return;
    }
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      send(400, { 'Content-Type': 'text/plain' }, 'bad request\n');
      return;
    }
    if (rel.includes('\0')) {
      send(400, { 'Content-Type': 'text/plain' }, 'bad request\n');
      return;
    }
    let file = path.join(root, rel);
    if (file !== root && !file.startsWith(root + path.sep)) {
      send(403, { 'Content-Type': 'text/plain' }, 'forbidden\n');
      return;
    }
    let st = statOrNull(file);
    if (st && st.isDirectory()) {
      file = path.join(file, 'index.html');
      st = statOrNull(file);
    }
    if (!st && path.extname(rel) === '') {
      // client-side route: hand back the app shell
      file = path.join(root, 'index.html');
      st = statOrNull(file);
    }
    if (!st || !st.isFile()) {
      send(404, { 'Content-Type': 'text/plain' }, 'not found\n');
      return;
    }
    let body;
    try {
      body = fs.readFileSync(file);
    } catch {
      send(500, { 'Content-Type': 'text/plain' }, 'read error\n');
      return;
    }
    // Single byte ranges (`bytes=a-b`, `bytes=a-`, `bytes=-n`), as static servers and object stores
    // answer them: the app reads Parquet footers and key columns this way.
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range || '');
    if (range && (range[1] || range[2])) {
      const size = body.length;
      let start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
      let end = range[1] ? (range[2] ? Math.min(Number(range[2]), size - 1) : size - 1) : size - 1;
      if (start >= size || start > end) {
        send(416, { 'Content-Range': `bytes */${size}` }, null);
        return;
      }
      const part = body.subarray(start, end + 1);
      send(206, { 'Content-Type': mimeFor(file), 'Content-Length': String(part.length), 'Content-Range': `bytes ${start}-${end}/${size}`, 'Accept-Ranges': 'bytes' }, part);
      return;
    }
    send(200, { 'Content-Type': mimeFor(file), 'Content-Length': String(body.length), 'Accept-Ranges': 'bytes' }, body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: p } = server.address();
      resolve({
        url: `http://${host}:${p}/`,
        port: p,
        root,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] || process.env.ICESCOPE_DIST || DEFAULT_DIST;
  const port = Number(process.argv[3] || 0);
  if (!statOrNull(root)?.isDirectory()) {
    console.error(`serve.mjs: ${root} is not a directory (build with trunk first, or pass a dir)`);
    process.exit(2);
  }
  const srv = await startServer({ root, port, log: true });
  console.log(`serving ${srv.root} at ${srv.url}`);
  const stop = () => srv.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
