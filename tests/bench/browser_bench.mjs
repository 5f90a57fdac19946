// icescope in headless Chromium: how long from choosing a table folder to the first chart and to
// all charts, and the renderer's peak memory. Called by tests/bench/bench.py; runs on its own too:
//
//   node tests/bench/browser_bench.mjs [--runs 5] [--timeout-ms 120000] [--dist dist] [--url URL] <table-folder> …
//
// Per table and run: a fresh Chromium (Debian's /usr/bin/chromium, driven by the playwright-core
// installed in tests/e2e/node_modules), the app served from dist/ on 127.0.0.1 (tests/e2e/serve.mjs),
// the folder set on the folder input with setInputFiles (a directory works for webkitdirectory
// inputs), then the app's performance marks are read:
//   icescope:files-chosen  the input's change event handled
//   icescope:metadata-read metadata.json read (reported when present)
//   icescope:first-chart   the growth chart first drawn
//   icescope:all-charts    loading finished, charts drawn
// Times are reported from icescope:files-chosen and from just before setInputFiles (page clock).
// A missing mark gives null (printed n/a) after --timeout-ms; the run then stops cleanly. As a
// fallback that needs no marks, the node-side time until [data-testid=table-view][data-state=ready]
// appears is reported too (polled every 100 ms).
// Memory: VmRSS of Chromium's processes sampled from /proc every 100 ms: the peak of the largest
// renderer (the page's; wasm memory is inside its RSS), of all renderers summed and of all Chromium
// processes summed, and the page renderer's RSS just before the folder is set (app idle on its start page).
//
// --floor-list FILE (a JSON array of the absolute paths icescope reads, one table only): also the
// browser's own floor, in the same Chromium build: the folder holding those files set on a bare
// webkitdirectory input, then each of them read with File.arrayBuffer(), as many in flight as the
// app keeps (24), nothing decoded or drawn. Median of up to 3 runs.
//
// --action footers|duplicates: once all charts are drawn, also "Check footers" (every live Parquet
// footer of the current snapshot) or "Count duplicates" (key `id`) is clicked, and the time until
// its result and the longest main-thread task meanwhile are reported (action_s,
// action_longest_task_s): the Parquet decoding runs in the decoder worker, not on the page.
//
// --picker drop: the folder dropped on the app from disk as a person's drag does (Chromium's own
// drag through CDP, tests/e2e/lib/harness.mjs dropFromDisk): Chromium hands the app the folder's
// handle with the drop. Times from just before the drop. --picker drop-walk: the same drop with
// getAsFileSystemHandle taken away, so the app walks the folder's entries whole (its fallback).
//
// --picker disk: as --picker handle, with the handle on the folder where it is on disk (what a
// person's pick gives), had by dropping the folder on the page through CDP (diskHandle): nothing
// is copied, and the times are from just before the click as well.
//
// --picker handle: the folder is opened through "Choose folder…" as a File System Access handle
// (the app's path where showDirectoryPicker exists) instead of the folder input. The dialog cannot
// be driven, so before the clock starts the table's metadata/ (only: the app never lists data/ to
// open a table) is copied into the origin-private file system and showDirectoryPicker answers its
// handle; times are then from just before the click (first_from_before_s, all_from_before_s).
//
// Each run also reports the CPU seconds of Chromium's threads by name from the click to the last
// mark (cpu_s_by_thread: the page's main thread is renderer:chromium, the decoder workers
// renderer:DedicatedWorker). --profile PATTERN samples the page's main thread over the same span
// and prints the functions matching PATTERN with their callees (use a build that keeps names, as
// profile_pick.mjs describes).
//
// Prints progress to stderr and one JSON array (one object per table) as the last line of stdout.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startServer } from '../e2e/serve.mjs';
import { dropFromDisk } from '../e2e/lib/harness.mjs';
import { threads, threadsSince } from './proc_cpu.mjs';
import { summarise } from './diag.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const require = createRequire(path.join(REPO, 'tests', 'e2e', 'package.json'));
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// As tests/e2e/lib/harness.mjs launches it.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SEL = {
  gallery: '[data-testid="gallery"]',
  folderInput: 'input[type=file][data-testid="folder-input"]',
  ready: '[data-testid="table-view"][data-state="ready"]',
  loadError: '[data-testid="load-error"]',
};
const MARKS = { chosen: 'icescope:files-chosen', metadata: 'icescope:metadata-read', first: 'icescope:first-chart', all: 'icescope:all-charts' };

function parseArgs(argv) {
  const a = { runs: 5, timeoutMs: 120000, dist: path.join(REPO, 'dist'), url: null, tables: [], floorList: null, action: null, picker: 'input' };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i];
    if (v === '--runs') a.runs = Number(argv[++i]);
    else if (v === '--timeout-ms') a.timeoutMs = Number(argv[++i]);
    else if (v === '--dist') a.dist = path.resolve(argv[++i]);
    else if (v === '--url') a.url = argv[++i];
    else if (v === '--floor-list') a.floorList = path.resolve(argv[++i]);
    else if (v === '--action') a.action = argv[++i];
    else if (v === '--picker') a.picker = argv[++i];
    else if (v === '--profile') a.profile = argv[++i];
    else if (v === '-h' || v === '--help') {
      console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').filter((l) => l.startsWith('//')).join('\n'));
      process.exit(0);
    } else a.tables.push(path.resolve(v));
  }
  return a;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** pid → { ppid, cmdline } for every process we can see. */
function processTable() {
  const t = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ');
      t.set(Number(d), { ppid, cmdline });
    } catch {
      // gone
    }
  }
  return t;
}

/** Our descendants (Chromium's processes): [{ pid, renderer }]. */
function chromiumProcesses() {
  const t = processTable();
  const mine = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, p] of t) {
      if (!mine.has(pid) && mine.has(p.ppid)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  mine.delete(process.pid);
  return [...mine].map((pid) => ({ pid, renderer: t.get(pid).cmdline.includes('--type=renderer') }));
}

function rssKiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Samples every 100 ms until stop(); returns { renderer, total } peaks in MiB. */
function memorySampler() {
  let procs = chromiumProcesses();
  let ticks = 0;
  // renderer = the largest renderer process (the page's; Chromium keeps spare renderers too),
  // renderers = all renderer processes summed, total = every Chromium process summed.
  const peak = { renderer: 0, renderers: 0, total: 0, rendererBefore: 0, totalBefore: 0, count: 0 };
  const sample = () => {
    let one = 0;
    let r = 0;
    let t = 0;
    for (const p of procs) {
      const k = rssKiB(p.pid);
      t += k;
      if (p.renderer) {
        r += k;
        one = Math.max(one, k);
      }
    }
    peak.renderer = Math.max(peak.renderer, one / 1024);
    peak.renderers = Math.max(peak.renderers, r / 1024);
    peak.total = Math.max(peak.total, t / 1024);
    peak.count = Math.max(peak.count, procs.filter((p) => p.renderer).length);
    return [one / 1024, t / 1024];
  };
  [peak.rendererBefore, peak.totalBefore] = sample(); // the app on its start page, before the folder
  const timer = setInterval(() => {
    if (++ticks % 10 === 0) procs = chromiumProcesses(); // renderers come and go; refresh each second
    sample();
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** page.evaluate that gives up after ms (the page's main thread may be busy in wasm). */
function evalWithin(page, fn, arg, ms) {
  let timer;
  return Promise.race([
    page.evaluate(fn, arg).catch(() => null),
    new Promise((r) => {
      timer = setTimeout(() => r(null), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Clicks the footers or duplicates action and waits for its result: seconds, longest task meanwhile. */
async function runAction(page, action, timeoutMs) {
  const ids = {
    footers: { panel: 'footers-panel', button: 'check-footers', done: '[data-testid="footers-result"], [data-testid="footers-error"]', error: 'footers-error' },
    duplicates: { panel: 'duplicates-panel', button: 'count-duplicates', done: '[data-testid="duplicates-result"], [data-testid="duplicates-error"]', error: 'duplicates-error' },
  }[action];
  if (!ids) throw new Error(`--action footers|duplicates, not ${action}`);
  await page.locator(`[data-testid="${ids.panel}"] > summary`).click();
  if (action === 'duplicates') await page.locator('[data-testid="duplicate-keys"]').fill('id');
  const t0 = await page.evaluate(() => performance.now());
  await page.locator(`[data-testid="${ids.button}"]`).click();
  await page.locator(ids.done).first().waitFor({ timeout: timeoutMs });
  return page.evaluate(
    ({ t0, error }) => {
      const t1 = performance.now();
      const during = (window.__longtasks || []).filter(([t, d]) => t + d >= t0 && t <= t1).map(([, d]) => d);
      return { action_s: (t1 - t0) / 1000, action_longest_task_s: Math.max(0, ...during) / 1000, action_error: document.querySelector(`[data-testid="${error}"]`)?.textContent ?? null };
    },
    { t0, error: ids.error },
  );
}

/** The table's metadata/ into the origin-private file system: set on an input of the page's own
 * (not timed), each File then written by the page to the origin-private folder, no copy in between. */
async function copyToOpfs(page, table) {
  const root = path.basename(table);
  await page.evaluate(() => {
    const i = document.createElement('input');
    i.type = 'file';
    i.multiple = true;
    i.webkitdirectory = true;
    i.id = 'bench-opfs-source';
    i.style.display = 'none';
    document.body.append(i);
  });
  await page.locator('#bench-opfs-source').setInputFiles(path.join(table, 'metadata'), { timeout: 600000 });
  const copied = await page.evaluate(async (root) => {
    const top = await (await navigator.storage.getDirectory()).getDirectoryHandle(root, { create: true });
    await top.getDirectoryHandle('data', { create: true });
    const dir = await top.getDirectoryHandle('metadata', { create: true });
    const input = document.getElementById('bench-opfs-source');
    let n = 0;
    for (const f of input.files) {
      const w = await (await dir.getFileHandle(f.name, { create: true })).createWritable();
      await w.write(f);
      await w.close();
      n++;
    }
    input.remove();
    window.showDirectoryPicker = async () => (await navigator.storage.getDirectory()).getDirectoryHandle(root);
    return n;
  }, root);
  return copied;
}

/** A handle on the table's folder where it is on disk, as showDirectoryPicker gives one, with
 * nothing copied: the folder is dropped on the page through CDP (Input.dispatchDragEvent with its
 * path), the drop caught before the app sees it and its item's getAsFileSystemHandle() kept, and
 * the picker then answers that handle. */
async function diskHandle(page, table) {
  await page.evaluate(() => {
    window.__benchDrop = new Promise((resolve) => {
      const stop = (e) => { e.preventDefault(); e.stopImmediatePropagation(); };
      const drop = (e) => {
        stop(e);
        window.removeEventListener('dragenter', stop, true);
        window.removeEventListener('dragover', stop, true);
        window.removeEventListener('drop', drop, true);
        resolve(e.dataTransfer.items[0]?.getAsFileSystemHandle() ?? null);
      };
      window.addEventListener('dragenter', stop, true);
      window.addEventListener('dragover', stop, true);
      window.addEventListener('drop', drop, true);
    });
  });
  const cdp = await page.context().newCDPSession(page);
  const data = { items: [], files: [path.resolve(table)], dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop']) await cdp.send('Input.dispatchDragEvent', { type, x: 20, y: 20, data });
  await cdp.detach();
  const name = await page.evaluate(async () => {
    const h = await window.__benchDrop;
    window.showDirectoryPicker = async () => h;
    return h?.kind === 'directory' ? h.name : null;
  });
  if (name !== path.basename(table)) throw new Error(`the dropped folder came as ${name}, not ${path.basename(table)}`);
}

async function oneRun(url, table, timeoutMs, action, picker = 'input', profileOf = undefined) {
  // The handle's files live in the origin-private file system: an off-the-record context (what
  // newContext makes) keeps it in memory under a small quota, a profile on disk does not.
  const profile = picker === 'handle' ? fs.mkdtempSync(path.join(os.tmpdir(), 'icescope-bench-profile-')) : null;
  const options = { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 };
  const browser = profile
    ? await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60000, ...options })
    : await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60000 });
  const errors = [];
  try {
    const context = profile ? browser : await browser.newContext(options);
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e?.message || e).slice(0, 200)));
    page.on('crash', () => errors.push('page crashed'));
    // Long tasks (> 50 ms on the main thread) from page start: how long the page froze at most.
    await page.addInitScript(() => {
      window.__longtasks = [];
      new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__longtasks.push([e.startTime, e.duration]))).observe({ type: 'longtask', buffered: true });
    });
    // The drop as a browser without DataTransferItem.getAsFileSystemHandle has it: the folder's
    // entries walked whole (the app's fallback, and its only way before handles).
    if (picker === 'drop-walk') await page.addInitScript(() => { delete DataTransferItem.prototype.getAsFileSystemHandle; });
    await page.goto(url, { waitUntil: 'load', timeout: 60000 });
    await page.locator(SEL.gallery).waitFor({ state: 'visible', timeout: 60000 });
    const copied = picker === 'handle' ? await copyToOpfs(page, table) : null;
    if (picker === 'disk') await diskHandle(page, table);
    const sampler = memorySampler();
    const threads0 = threads();
    const cdp = profileOf === undefined ? null : await page.context().newCDPSession(page);
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
      await cdp.send('Profiler.start');
    }
    const before = await page.evaluate(() => performance.now());
    const tNode = Date.now();
    if (picker === 'handle' || picker === 'disk') await page.locator(`label:has(${SEL.folderInput})`).click({ timeout: timeoutMs });
    else if (picker === 'drop' || picker === 'drop-walk') await dropFromDisk(page, [table]);
    else await page.locator(SEL.folderInput).setInputFiles(table, { timeout: timeoutMs });
    const setInputMs = Date.now() - tNode;
    let marks = { chosen: null, metadata: null, first: null, all: null };
    let readyMs = null;
    let loadError = null;
    let longtasks = [];
    let phases = [];
    const deadline = tNode + timeoutMs;
    while (Date.now() < deadline) {
      const left = Math.max(1000, deadline - Date.now());
      const s = await evalWithin(
        page,
        ({ MARKS, SEL }) => {
          const at = (n) => performance.getEntriesByName(n)[0]?.startTime ?? null;
          return {
            longtasks: window.__longtasks || [],
            phases: performance.getEntriesByType('mark').filter((m) => m.name.startsWith('icescope:')).map((m) => [m.name.replace('icescope:', ''), Math.round(m.startTime)]),
            chosen: at(MARKS.chosen),
            metadata: at(MARKS.metadata),
            first: at(MARKS.first),
            all: at(MARKS.all),
            ready: !!document.querySelector(SEL.ready),
            loadError: document.querySelector(SEL.loadError)?.textContent?.slice(0, 200) ?? null,
          };
        },
        { MARKS, SEL },
        left,
      );
      if (s) {
        marks = { chosen: s.chosen, metadata: s.metadata, first: s.first, all: s.all };
        longtasks = s.longtasks;
        phases = s.phases;
        if (s.ready && readyMs == null) readyMs = Date.now() - tNode;
        loadError = s.loadError;
        if (s.all != null) break;
        // The app reached its ready state without ever marking: the marks are not there (yet).
        if (s.ready && s.chosen == null && s.first == null && Date.now() - tNode - readyMs > 2000) break;
        if (s.ready && Date.now() - tNode - readyMs > 10000) break;
      }
      if (errors.includes('page crashed')) break;
      await sleep(100);
    }
    // CPU seconds by thread from the click to the last mark (or the timeout), read before any action.
    const cpuByThread = threadsSince(threads0);
    if (cdp) {
      const { profile: p } = await cdp.send('Profiler.stop');
      for (const line of summarise(p, { top: 40, pattern: profileOf })) process.stderr.write(`${line}\n`);
    }
    const acted = action && marks.all != null ? await runAction(page, action, timeoutMs) : {};
    const peak = sampler.stop();
    const sec = (a, b) => (a != null && b != null ? (a - b) / 1000 : null);
    return {
      picker,
      opfs_files: copied,
      set_input_s: setInputMs / 1000,
      metadata_from_chosen_s: sec(marks.metadata, marks.chosen),
      first_from_chosen_s: sec(marks.first, marks.chosen),
      all_from_chosen_s: sec(marks.all, marks.chosen),
      first_from_before_s: sec(marks.first, before),
      all_from_before_s: sec(marks.all, before),
      ready_from_before_s: readyMs != null ? readyMs / 1000 : null,
      // Only tasks after the folder was chosen: the app's own work, not Chromium listing files.
      longest_task_s: Math.max(0, ...longtasks.filter(([t]) => marks.chosen == null || t >= marks.chosen).map(([, d]) => d)) / 1000,
      // The five longest, as [start after files-chosen, duration] in seconds: which phase froze.
      longest_tasks: longtasks.filter(([t]) => marks.chosen == null || t >= marks.chosen).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([t, d]) => [+((t - (marks.chosen ?? 0)) / 1000).toFixed(3), +(d / 1000).toFixed(3)]),
      phases,
      long_tasks_s: longtasks.filter(([t]) => marks.chosen == null || t >= marks.chosen).reduce((a, [, d]) => a + d, 0) / 1000,
      peak_renderer_rss_mib: peak.renderer,
      peak_renderers_sum_rss_mib: peak.renderers,
      peak_total_rss_mib: peak.total,
      renderer_rss_before_mib: peak.rendererBefore,
      total_rss_before_mib: peak.totalBefore,
      renderer_processes: peak.count,
      cpu_s_by_thread: cpuByThread,
      marks_seen: Object.entries(marks).filter(([, v]) => v != null).map(([k]) => MARKS[k]),
      load_error: loadError,
      page_errors: errors,
      ...acted,
    };
  } finally {
    await browser.close().catch(() => {});
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  }
}

/** Seconds for Chromium alone to read `files` (absolute paths) from a picked folder: no app. */
async function floorRun(files, timeoutMs) {
  const top = files.map((f) => path.dirname(f)).reduce((a, b) => {
    while (!(b + path.sep).startsWith(a + path.sep)) a = path.dirname(a);
    return a;
  });
  const wanted = files.map((f) => path.relative(path.dirname(top), f).split(path.sep).join('/'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60000 });
  try {
    const page = await browser.newPage();
    await page.setContent('<input type=file webkitdirectory id=f>');
    await page.locator('#f').setInputFiles(top, { timeout: timeoutMs });
    return await page.evaluate(async (wanted) => {
      const byPath = new Map([...document.getElementById('f').files].map((f) => [f.webkitRelativePath, f]));
      const files = wanted.map((w) => byPath.get(w)).filter(Boolean);
      const t = performance.now();
      let i = 0;
      let bytes = 0;
      const reader = async () => {
        while (i < files.length) {
          const b = await files[i++].arrayBuffer();
          bytes += new Uint8Array(b).length;
        }
      };
      await Promise.all(Array.from({ length: 24 }, reader));
      return { seconds: (performance.now() - t) / 1000, files: files.length, missing: wanted.length - files.length, bytes };
    }, wanted);
  } finally {
    await browser.close().catch(() => {});
  }
}

function median(xs) {
  const v = xs.filter((x) => x != null && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

const fmt = (x) => (x == null ? 'n/a' : `${x.toFixed(3)} s`);

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (a.tables.length === 0) throw new Error('usage: node tests/bench/browser_bench.mjs [--runs N] [--timeout-ms MS] [--dist DIR | --url URL] <table-folder> …');
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (set CHROMIUM_PATH)`);
  let srv = null;
  let url = a.url;
  if (!url) {
    if (!fs.existsSync(path.join(a.dist, 'index.html'))) throw new Error(`no built app at ${a.dist} (trunk build --release)`);
    srv = await startServer({ root: a.dist });
    url = srv.url;
  }
  const out = [];
  try {
    for (const table of a.tables) {
      const runs = [];
      for (let i = 0; i < a.runs; i++) {
        let r;
        try {
          r = await oneRun(url, table, a.timeoutMs, a.action, a.picker, a.profile);
        } catch (e) {
          r = { error: String(e?.message || e).split('\n')[0].slice(0, 200) };
        }
        runs.push(r);
        console.error(
          `${path.basename(table)} run ${i + 1}/${a.runs}: ` +
            (r.error
              ? `error: ${r.error}`
              : `first chart ${fmt(r.first_from_chosen_s)}, all charts ${fmt(r.all_from_chosen_s)} (from files-chosen); longest task ${fmt(r.longest_task_s)} ${JSON.stringify(r.longest_tasks)}, long tasks ${fmt(r.long_tasks_s)}; marks ${JSON.stringify(r.phases)}; ` +
                `ready seen ${fmt(r.ready_from_before_s)}; setInputFiles ${fmt(r.set_input_s)}; ` +
                `peak renderer ${r.peak_renderer_rss_mib.toFixed(0)} MiB (${r.renderer_rss_before_mib.toFixed(0)} before the folder; ${r.renderer_processes} renderer processes, ${r.peak_renderers_sum_rss_mib.toFixed(0)} MiB together), all Chromium ${r.peak_total_rss_mib.toFixed(0)} MiB; ` +
                `marks: ${r.marks_seen.join(', ') || 'none'}${r.load_error ? `; load error: ${r.load_error}` : ''}` +
                (r.action_s != null ? `; ${a.action}: ${fmt(r.action_s)}, longest task meanwhile ${fmt(r.action_longest_task_s)}${r.action_error ? `, error: ${r.action_error.slice(0, 200)}` : ''}` : '')),
        );
        // Nothing to learn from repeating a run that never saw a chart or the ready state.
        if (r.error || (r.all_from_chosen_s == null && r.ready_from_before_s == null)) break;
      }
      const ok = runs.filter((r) => !r.error);
      const keys = ['set_input_s', 'metadata_from_chosen_s', 'first_from_chosen_s', 'all_from_chosen_s', 'first_from_before_s', 'all_from_before_s', 'ready_from_before_s', 'longest_task_s', 'long_tasks_s', 'action_s', 'action_longest_task_s'];
      const med = Object.fromEntries(keys.map((k) => [k, median(ok.map((r) => r[k]))]));
      med.peak_renderer_rss_mib = ok.length ? Math.max(...ok.map((r) => r.peak_renderer_rss_mib)) : null;
      med.peak_total_rss_mib = ok.length ? Math.max(...ok.map((r) => r.peak_total_rss_mib)) : null;
      med.renderer_rss_before_mib = median(ok.map((r) => r.renderer_rss_before_mib));
      let floor = null;
      if (a.floorList) {
        const files = JSON.parse(fs.readFileSync(a.floorList, 'utf8')).filter((f) => f.startsWith(table + path.sep));
        const f = [];
        for (let i = 0; i < Math.min(3, a.runs) && files.length; i++) {
          try {
            f.push(await floorRun(files, a.timeoutMs));
          } catch (e) {
            f.push({ error: String(e?.message || e).split('\n')[0].slice(0, 200) });
          }
          console.error(`${path.basename(table)} browser read floor ${i + 1}: ${JSON.stringify(f[f.length - 1])}`);
        }
        floor = { runs: f, seconds: median(f.map((r) => r.seconds)), files: f.find((r) => r.files != null)?.files ?? null };
        med.read_floor_s = floor.seconds;
      }
      out.push({ table: path.basename(table), folder: table, runs, median: med, floor, error: ok.length ? null : runs[0]?.error ?? 'no run' });
    }
  } finally {
    await srv?.close();
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e?.stack || String(e));
  process.exit(1);
});
