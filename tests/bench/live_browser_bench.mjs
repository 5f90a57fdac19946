// The app's Live switch on a day-sized table in headless Chromium: what a commit costs the tab, and
// how long from the commit landing until the chart shows it.
//
//   node tests/bench/live_browser_bench.mjs TABLE [--steps 5] [--every 5] [--dist dist] [--no-hint] [--control]
//                                      [--profile PATTERN]
//
// TABLE's metadata/ is linked into a shadow folder with its newest STEPS metadata files held back,
// and copied from there into the origin-private file system (a profile on disk; not timed). The
// app opens it through "Choose folder…" (showDirectoryPicker answers that folder's handle), the
// Live switch is set to look every EVERY seconds, and then, one every EVERY seconds, each held-back
// file is written into the folder, as a commit lands. Per file: the time from the end of its write
// until the snapshot count shows it, and until the growth chart's points do (the page's clock).
// CPU: utime + stime of every Chromium process from /proc, over the live part, as a share of one
// core, and by thread name (the page's main thread, the decoder workers, the browser's threads);
// the renderer's resident memory at the switch and at the end, and after each commit its resident
// set, JS heap and (a build with --features heap-stats) the wasm heap's live bytes and linear memory. Prints one JSON object. --control
// makes the same landings with the Live switch off: what writing the files costs Chromium, which
// is the bench's cost, not the app's. --profile samples the page's main thread over the live part
// (stderr: self time by function, and the inclusive time of functions matching PATTERN; names need
// the build profile_pick.mjs describes).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startServer, DEFAULT_DIST } from '../e2e/serve.mjs';
import { summarise } from './diag.mjs';
import { descendants, cpu, threads } from './proc_cpu.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const require = createRequire(path.join(REPO, 'tests', 'e2e', 'package.json'));
const { chromium } = require('playwright-core');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--enable-precise-memory-info'];

const a = { steps: 5, every: 5, dist: DEFAULT_DIST, table: null, hint: true };
for (let i = 2; i < process.argv.length; i++) {
  const v = process.argv[i];
  if (v === '--steps') a.steps = Number(process.argv[++i]);
  else if (v === '--every') a.every = Number(process.argv[++i]);
  else if (v === '--dist') a.dist = path.resolve(process.argv[++i]);
  else if (v === '--no-hint') a.hint = false;
  else if (v === '--control') a.control = true;
  else if (v === '--profile') a.profile = process.argv[++i];
  else a.table = path.resolve(v);
}
const version = (n) => Number(/^v?(\d+)/.exec(n)?.[1] ?? -1);
const src = path.join(a.table, 'metadata');
const names = fs.readdirSync(src).filter((n) => n.endsWith('.metadata.json')).sort((x, y) => version(x) - version(y));
const held = names.slice(-a.steps);
const shadow = path.join(path.dirname(a.table), 'live-shadow', path.basename(a.table));
fs.rmSync(path.dirname(shadow), { recursive: true, force: true });
fs.mkdirSync(path.join(shadow, 'metadata'), { recursive: true });
for (const n of fs.readdirSync(src)) if (!held.includes(n)) fs.linkSync(path.join(src, n), path.join(shadow, 'metadata', n));
const snapshotsOf = (n) => JSON.parse(fs.readFileSync(path.join(src, n), 'utf8')).snapshots.length;

const rendererRss = () => Math.max(0, ...descendants().filter((p) => p.renderer).map((p) => {
  try { return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p.pid}/status`, 'utf8'))[1]) / 1024; } catch { return 0; }
}));

const srv = await startServer({ root: a.dist });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'icescope-live-bench-'));
const ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 800 } });
const out = { table: a.table, every_s: a.every, steps: [] };
try {
  const page = await ctx.newPage();
  await page.goto(srv.url, { waitUntil: 'load' });
  await page.locator('[data-testid="gallery"]').waitFor({ state: 'visible', timeout: 60000 });
  await page.evaluate(() => {
    const i = Object.assign(document.createElement('input'), { type: 'file', multiple: true, webkitdirectory: true, id: 'src' });
    i.style.display = 'none';
    document.body.append(i);
  });
  await page.locator('#src').setInputFiles(path.join(shadow, 'metadata'), { timeout: 900000 });
  const root = path.basename(a.table);
  await page.evaluate(async (root) => {
    const top = await (await navigator.storage.getDirectory()).getDirectoryHandle(root, { create: true });
    const dir = await top.getDirectoryHandle('metadata', { create: true });
    for (const f of document.getElementById('src').files) {
      const w = await (await dir.getFileHandle(f.name, { create: true })).createWritable();
      await w.write(f);
      await w.close();
    }
    document.getElementById('src').remove();
    window.showDirectoryPicker = async () => (await navigator.storage.getDirectory()).getDirectoryHandle(root);
  }, root);
  // A Hadoop table's writer rewrites version-hint.text after each commit (HadoopTableOperations):
  // the shadow's says the newest version present, and each landing below rewrites it. --no-hint
  // leaves it out (a catalog's folder: every look lists metadata/).
  const hint = async (n) => page.evaluate(async ({ root, v }) => {
    const dir = await (await (await navigator.storage.getDirectory()).getDirectoryHandle(root)).getDirectoryHandle('metadata');
    if (v === null) return dir.removeEntry('version-hint.text').catch(() => {});
    const w = await (await dir.getFileHandle('version-hint.text', { create: true })).createWritable();
    await w.write(String(v));
    await w.close();
  }, { root, v: a.hint ? version(n) : null });
  await hint(names[names.length - a.steps - 1]);
  const t0 = Date.now();
  await page.locator('label:has([data-testid="folder-input"])').click();
  await page.locator('[data-testid="table-view"][data-state="ready"]').waitFor({ state: 'attached', timeout: 600000 });
  out.opened_s = (Date.now() - t0) / 1000;
  if (!a.control) {
    await page.locator('[data-testid="live-every"]').selectOption(String(a.every));
    await page.locator('[data-testid="live-switch"]').click();
    await page.locator('[data-testid="live-badge"]').waitFor({ timeout: 120000 });
  }
  out.rss_mib = { at_switch: Math.round(rendererRss()) };
  // Where the renderer's memory is, per commit: its resident set, the JS heap V8 reports, and (a
  // build with --features heap-stats) the wasm heap's live bytes and its linear memory, which
  // never shrinks: the last such line the page logged.
  let heapLine = null;
  page.on('console', (m) => { if (m.text().startsWith('heap at icescope:live:look')) heapLine = m.text(); });
  const memoryNow = async () => {
    const js = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
    const wasm = heapLine && /live ([0-9.]+) MiB.*linear memory ([0-9.]+) MiB/.exec(heapLine);
    return { rss: Math.round(rendererRss()), js_heap: js == null ? null : Math.round(js / 1048576), wasm_live: wasm ? +wasm[1] : null, wasm_linear: wasm ? +wasm[2] : null };
  };
  const cdp = a.profile === undefined ? null : await page.context().newCDPSession(page);
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
    await cdp.send('Profiler.start');
  }
  const cpu0 = cpu();
  const threads0 = threads();
  const wall0 = Date.now();
  for (const n of held) {
    await new Promise((r) => setTimeout(r, a.every * 1000));
    // The file is read by the page from disk into the folder, as a writer's upload lands whole.
    await page.evaluate(() => {
      const i = Object.assign(document.createElement('input'), { type: 'file', id: 'one' });
      i.style.display = 'none';
      document.body.append(i);
    });
    await page.locator('#one').setInputFiles(path.join(src, n));
    const landed = await page.evaluate(async ({ root, n }) => {
      const dir = await (await (await navigator.storage.getDirectory()).getDirectoryHandle(root)).getDirectoryHandle('metadata');
      const f = document.getElementById('one').files[0];
      const tmp = await dir.getFileHandle(n, { create: true });
      const w = await tmp.createWritable();
      await w.write(f);
      await w.close();
      document.getElementById('one').remove();
      return performance.now();
    }, { root, n });
    if (a.hint) await hint(n);
    if (a.control) {
      out.steps.push({ file: n });
      continue;
    }
    const want = snapshotsOf(n);
    // Waited for by a MutationObserver, not by polling: the bench's own looking is not the tab's cost.
    const when = (sel, attr) => page.evaluate(({ sel, attr, want }) => new Promise((resolve, reject) => {
      const shown = () => {
        const e = document.querySelector(sel);
        const v = e && (attr ? e.dataset[attr] : e.textContent);
        return v === String(want);
      };
      if (shown()) return resolve(performance.now());
      const o = new MutationObserver(() => {
        if (shown()) {
          o.disconnect();
          resolve(performance.now());
        }
      });
      o.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      setTimeout(() => { o.disconnect(); reject(new Error(`${sel} never showed ${want}`)); }, 120000);
    }), { sel, attr, want });
    const [counted, charted] = await Promise.all([when('[data-testid="snapshot-count"]', null), when('canvas[data-testid="growth-chart"]', 'points')]);
    // The look that found it, phase by phase (the app's marks), from the landing.
    const phases = await page.evaluate((landed) => {
      const after = (name) => performance.getEntriesByName(name).map((m) => m.startTime).filter((t) => t > landed);
      const newer = after('icescope:live:newer')[0];
      if (newer === undefined) return null;
      const asking = performance.getEntriesByName('icescope:live:asking').map((m) => m.startTime).filter((t) => t < newer).at(-1);
      const next = (name) => after(name).find((t) => t >= newer);
      const ms = (t) => (t === undefined ? null : Math.round(t - landed));
      return { asking: ms(asking), newer: ms(newer), advanced: ms(next('icescope:live:advanced')), looked: ms(next('icescope:live:looked')), published: ms(next('icescope:live:look')) };
    }, landed);
    out.steps.push({ file: n, snapshots: want, to_count_s: +((counted - landed) / 1000).toFixed(2), to_chart_s: +((charted - landed) / 1000).toFixed(2), phases_ms: phases, memory_mib: await memoryNow() });
    process.stderr.write(`${n}: chart after ${((charted - landed) / 1000).toFixed(2)} s\n`);
  }
  await new Promise((r) => setTimeout(r, a.every * 1000));
  const wall = (Date.now() - wall0) / 1000;
  if (cdp) {
    const { profile } = await cdp.send('Profiler.stop');
    for (const line of summarise(profile, { top: 40, pattern: a.profile })) process.stderr.write(`${line}\n`);
  }
  out.cpu_share_of_one_core = +((cpu() - cpu0) / wall).toFixed(3);
  const t1 = threads();
  out.cpu_share_by_thread = Object.fromEntries(Object.entries(t1).map(([k, v]) => [k, +((v - (threads0[k] ?? 0)) / wall).toFixed(3)]).filter(([, v]) => v >= 0.002).sort((x, y) => y[1] - x[1]));
  out.rss_mib.end = Math.round(rendererRss());
  const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  if (!a.control) out.landing_to_chart_s = { median: med(out.steps.map((s) => s.to_chart_s)), max: Math.max(...out.steps.map((s) => s.to_chart_s)) };
} finally {
  await ctx.close();
  await srv.close();
  fs.rmSync(profile, { recursive: true, force: true });
  fs.rmSync(path.dirname(shadow), { recursive: true, force: true });
}
console.log(JSON.stringify(out, null, 2));
