// What reading a table's manifests through a folder handle costs Chromium itself, nothing decoded:
// the floor under the app's load from "Choose folder…" (browser_bench.mjs --picker handle).
//
//   node tests/bench/handle_floor.mjs TABLE [--suffix -m0.avro] [--in-flight 24] [--rounds 2] [--disk]
//
// The files of TABLE/metadata/ whose names end in SUFFIX (a fast-append table's manifests) are
// copied into the origin-private file system of a fresh profile on disk (not timed); with --disk,
// nothing is copied: TABLE/metadata/ is dropped on the page from disk (Chromium's own drag through
// CDP, as browser_bench.mjs --picker disk does) and its handle is read where it lies. Then, each
// round, they are read whole three ways, IN_FLIGHT at a time, as the app's handle source would:
//   by name      getFileHandle(name) → getFile() → arrayBuffer(), on the page (what the app does)
//   listed       the folder's values() once, then getFile() → arrayBuffer() on each handle
//   in a worker  "by name" in a dedicated worker the folder's handle was posted to
// For each: the seconds, the bytes, and the CPU seconds of Chromium's threads by name (the browser
// process's threads are other:*, the page's renderer:*).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { REPO, startServer } from '../e2e/serve.mjs';
import { threads, threadsSince } from './proc_cpu.mjs';

const require = createRequire(path.join(REPO, 'tests', 'e2e', 'package.json'));
const { chromium } = require('playwright-core');

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args.splice(args.indexOf(k), 2)[1] : d);
const suffix = opt('--suffix', '-m0.avro');
const inFlight = Number(opt('--in-flight', '24'));
const rounds = Number(opt('--rounds', '2'));
const disk = args.includes('--disk') && Boolean(args.splice(args.indexOf('--disk'), 1));
const [table] = args;
if (!table) throw new Error('usage: node tests/bench/handle_floor.mjs TABLE [--suffix S] [--in-flight N] [--rounds N]');
const names = fs.readdirSync(path.join(table, 'metadata')).filter((n) => n.endsWith(suffix));

// The same loop on the page and in the worker: IN_FLIGHT readers taking the next name in turn.
const READ_BY_NAME = `async function readByName(dir, names, inFlight) {
  let bytes = 0;
  let i = 0;
  async function reader() {
    while (i < names.length) {
      const f = await (await dir.getFileHandle(names[i++])).getFile();
      const b = (await f.arrayBuffer()).byteLength;
      bytes += b;
    }
  }
  await Promise.all(Array.from({ length: inFlight }, reader));
  return bytes;
}`;

const www = fs.mkdtempSync(path.join(os.tmpdir(), 'icescope-handle-floor-www-'));
fs.writeFileSync(path.join(www, 'index.html'), `<!doctype html><script>${READ_BY_NAME}</script>`);
fs.writeFileSync(path.join(www, 'worker.js'), `${READ_BY_NAME}
onmessage = async (e) => postMessage(await readByName(e.data.dir, e.data.names, e.data.inFlight));`);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'icescope-handle-floor-'));
const srv = await startServer({ root: www });
const ctx = await chromium.launchPersistentContext(profile, { executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await ctx.newPage();
  await page.goto(srv.url);
  let folder = 'navigator.storage.getDirectory().then((r) => r.getDirectoryHandle("metadata"))';
  if (disk) {
    await page.evaluate(() => {
      window.__dropped = new Promise((resolve) => {
        const stop = (e) => e.preventDefault();
        window.addEventListener('dragenter', stop);
        window.addEventListener('dragover', stop);
        window.addEventListener('drop', (e) => { stop(e); resolve(e.dataTransfer.items[0]?.getAsFileSystemHandle() ?? null); });
      });
    });
    const cdp = await page.context().newCDPSession(page);
    const data = { items: [], files: [path.resolve(table, 'metadata')], dragOperationsMask: 1 };
    for (const type of ['dragEnter', 'dragOver', 'drop']) await cdp.send('Input.dispatchDragEvent', { type, x: 5, y: 5, data });
    await cdp.detach();
    const kind = await page.evaluate(async () => (await window.__dropped)?.kind ?? null);
    if (kind !== 'directory') throw new Error(`the dropped metadata/ came as ${kind}, not a directory handle`);
    folder = 'window.__dropped';
  } else {
    await page.evaluate(() => document.body.append(Object.assign(document.createElement('input'), { type: 'file', multiple: true, id: 'src' })));
    await page.locator('#src').setInputFiles(names.map((n) => path.join(table, 'metadata', n)), { timeout: 600000 });
    await page.evaluate(async () => {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('metadata', { create: true });
      for (const f of document.getElementById('src').files) {
        const w = await (await dir.getFileHandle(f.name, { create: true })).createWritable();
        await w.write(f);
        await w.close();
      }
    });
  }
  const ways = {
    by_name: () => page.evaluate(async ({ names, inFlight, folder }) => readByName(await eval(folder), names, inFlight), { names, inFlight, folder }),
    listed: () => page.evaluate(async ({ inFlight, folder, suffix }) => {
      const handles = [];
      for await (const h of (await eval(folder)).values()) if (h.name.endsWith(suffix)) handles.push(h);
      let bytes = 0;
      let i = 0;
      async function reader() {
        while (i < handles.length) {
          const b = (await (await handles[i++].getFile()).arrayBuffer()).byteLength;
          bytes += b;
        }
      }
      await Promise.all(Array.from({ length: inFlight }, reader));
      return bytes;
    }, { inFlight, folder, suffix }),
    in_a_worker: () => page.evaluate(async ({ names, inFlight, folder }) => {
      const w = new Worker('worker.js');
      const dir = await eval(folder);
      const bytes = await new Promise((resolve) => {
        w.onmessage = (e) => resolve(e.data);
        w.postMessage({ dir, names, inFlight });
      });
      w.terminate();
      return bytes;
    }, { names, inFlight, folder }),
  };
  const out = { table: path.basename(table), where: disk ? 'disk' : 'origin-private file system', files: names.length, in_flight: inFlight, runs: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const [way, read] of Object.entries(ways)) {
      const t0 = threads();
      const start = Date.now();
      const bytes = await read();
      const seconds = (Date.now() - start) / 1000;
      const cpu = Object.fromEntries(Object.entries(threadsSince(t0)).filter(([, v]) => v >= 0.05));
      out.runs.push({ round, way, seconds, bytes, cpu_s_by_thread: cpu });
      process.stderr.write(`${round} ${way}: ${seconds.toFixed(2)} s, ${bytes} bytes, ${JSON.stringify(cpu)}\n`);
    }
  }
  console.log(JSON.stringify(out));
} finally {
  await ctx.close();
  await srv.close();
  fs.rmSync(profile, { recursive: true, force: true });
  fs.rmSync(www, { recursive: true, force: true });
}
