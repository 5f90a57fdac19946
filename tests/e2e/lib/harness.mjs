// Shared plumbing for the e2e tests: the browser, the server, the DOM contract, error capture.

import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer, REPO, DEFAULT_DIST } from '../serve.mjs';
import { parseJsonBig, metadataText, isMetadataName, newestOf, snapshotIds, snapshotIdsByRegex } from './iceberg.mjs';

export { REPO };
export const OUT_DIR = path.join(REPO, 'tests', 'out');

/** The icescope CLI every e2e file runs: `ICESCOPE_BIN` (tests/run.sh exports the one it built),
 * else the debug build under `CARGO_TARGET_DIR` or the checkout's `target/`. Under CI a missing
 * binary fails the file that needs it, naming the path; it is never skipped. */
export const ICESCOPE_BIN = process.env.ICESCOPE_BIN || path.join(process.env.CARGO_TARGET_DIR || path.join(REPO, 'target'), 'debug', 'icescope');

/** The shared corpus of other engines' tables (`ICESCOPE_CORPUS`: the corpus folder or its
 * public/; else <repo>/../shared/corpus). `skip`: why a test that needs it is skipped when run alone;
 * under CI (tests/run.sh sets CI=true) it is never skipped: `need()` fails the test, naming it. */
export function corpus() {
  const root = path.resolve(process.env.ICESCOPE_CORPUS || path.join(REPO, '..', 'shared', 'corpus'));
  const PUBLIC = fs.existsSync(path.join(root, 'public')) ? path.join(root, 'public') : root;
  const missing = fs.existsSync(PUBLIC) ? null : `corpus not found at ${PUBLIC} (no <repo>/../shared here; set ICESCOPE_CORPUS to the corpus folder)`;
  return {
    PUBLIC,
    skip: missing && !process.env.CI ? missing : false,
    need() {
      if (missing) throw new Error(`missing under CI: ${missing}`);
    },
  };
}

/** ICESCOPE_BIN, after checking it is there. */
export function cliPath() {
  if (!fs.existsSync(ICESCOPE_BIN)) throw new Error(`no icescope binary at ${ICESCOPE_BIN}: run \`cargo build --bin icescope\` or set ICESCOPE_BIN`);
  return ICESCOPE_BIN;
}
export const SCREENSHOT_DIR = path.join(OUT_DIR, 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const VIEWPORT = { width: 1280, height: 800 };
export const TIMEOUT_MS = Number(process.env.ICESCOPE_E2E_TIMEOUT_MS || 30000);
/** Share of the chart's pixels that must differ from its top-left (background) pixel. */
export const MIN_PAINTED_FRACTION = 0.02;

export const sel = {
  gallery: '[data-testid="gallery"]',
  card: '[data-testid="example-card"]',
  tableView: '[data-testid="table-view"]',
  ready: '[data-testid="table-view"][data-state="ready"]',
  location: '[data-testid="table-location"]',
  count: '[data-testid="snapshot-count"]',
  row: 'tr[data-testid="snapshot-row"]',
  chart: 'canvas[data-testid="growth-chart"]',
  loadError: '[data-testid="load-error"]',
  dropzone: '[data-testid="dropzone"]',
  folderInput: 'input[type=file][data-testid="folder-input"]',
  fileInput: 'input[type=file][data-testid="file-input"]',
  savePng: 'button[data-testid="save-png"]',
  back: 'button[data-testid="back"]',
  progress: '[data-testid="progress"]',
  cancel: '[data-testid="cancel"]',
};

/** The catalog panel's DOM contract (see tests/e2e/catalog.test.mjs). */
export const catalogSel = {
  panel: 'details[data-testid="catalog-panel"]',
  summary: 'details[data-testid="catalog-panel"] > summary',
  uri: '[data-testid="catalog-uri"]',
  warehouse: '[data-testid="catalog-warehouse"]',
  auth: 'select[data-testid="catalog-auth"]',
  token: '[data-testid="catalog-token"]',
  clientId: '[data-testid="catalog-client-id"]',
  clientSecret: '[data-testid="catalog-client-secret"]',
  tokenUri: '[data-testid="catalog-token-uri"]',
  scope: '[data-testid="catalog-scope"]',
  s3Endpoint: '[data-testid="s3-endpoint"]',
  s3Region: '[data-testid="s3-region"]',
  s3AccessKeyId: '[data-testid="s3-access-key-id"]',
  s3SecretAccessKey: '[data-testid="s3-secret-access-key"]',
  s3SessionToken: '[data-testid="s3-session-token"]',
  s3PathStyle: '[data-testid="s3-path-style"]',
  remember: '[data-testid="remember"]',
  connect: '[data-testid="catalog-connect"]',
  tables: '[data-testid="catalog-tables"]',
  namespace: '[data-testid="namespace"]',
  table: '[data-testid="catalog-table"]',
};

/**
 * Launch the system Chromium. Playwright refuses `--user-data-dir` in `args` for launch();
 * it creates a fresh temporary profile per launch itself and removes it on close().
 */
export async function launchBrowser() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60000 });
}

/**
 * Where the app is: ICESCOPE_URL if set, else a server of our own over ICESCOPE_DIST (default <repo>/dist).
 * Resolves to { url (ends with '/'), dist (null for ICESCOPE_URL), close() }.
 */
export async function appTarget() {
  if (process.env.ICESCOPE_URL) {
    const url = process.env.ICESCOPE_URL.endsWith('/') ? process.env.ICESCOPE_URL : `${process.env.ICESCOPE_URL}/`;
    return { url, dist: null, close: async () => {} };
  }
  const dist = path.resolve(process.env.ICESCOPE_DIST || DEFAULT_DIST);
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    throw new Error(
      `no built app at ${dist} (index.html missing): run \`trunk build --release\` first, ` +
        'or set ICESCOPE_DIST to a built dist/, or ICESCOPE_URL to a running server',
    );
  }
  const srv = await startServer({ root: dist });
  return { url: srv.url, dist, close: srv.close };
}

/** Records page errors and console errors (a wasm panic lands in one of them). */
export function collectErrors(page) {
  const c = { pageErrors: [], consoleErrors: [], all: [] };
  page.on('pageerror', (e) => {
    const t = `pageerror: ${e?.stack || e?.message || e}`;
    c.pageErrors.push(t);
    c.all.push(t);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') {
      const loc = m.location();
      const t = `console.error: ${m.text()}${loc?.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`;
      c.consoleErrors.push(t);
      c.all.push(t);
    }
  });
  page.on('crash', () => {
    c.pageErrors.push('page crashed');
    c.all.push('page crashed');
  });
  c.panics = () => c.all.filter((t) => /panicked at|RuntimeError|unreachable/i.test(t));
  return c;
}

/** A fresh context + page at 1280x800 with downloads accepted and errors collected. */
export async function newPage(browser) {
  const context = await browser.newContext({ viewport: VIEWPORT, acceptDownloads: true, deviceScaleFactor: 1 });
  context.setDefaultTimeout(TIMEOUT_MS);
  const page = await context.newPage();
  const errors = collectErrors(page);
  return { context, page, errors };
}

export async function openGallery(page, url) {
  await page.goto(url, { waitUntil: 'load' });
  await page.locator(sel.gallery).waitFor({ state: 'visible' });
}

/**
 * Run fn(); if it throws, keep a screenshot of the page as tests/out/screenshots/<label>-FAILED.png
 * (the path is appended to the error) before rethrowing.
 */
export async function screenshotOnFailure(page, label, fn) {
  try {
    return await fn();
  } catch (e) {
    const file = path.join(SCREENSHOT_DIR, `${label.replace(/[^\w.-]+/g, '_')}-FAILED.png`);
    try {
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: file, timeout: 5000 });
      e.message += `\n(screenshot: ${file})`;
    } catch {
      // the page may be gone or hung; the original error matters more
    }
    throw e;
  }
}

/** Wait until at least n elements match (the gallery fills in after index.json arrives). */
export async function waitCount(page, selector, n) {
  await page.waitForFunction(({ selector, n }) => document.querySelectorAll(selector).length >= n, { selector, n }, { timeout: TIMEOUT_MS });
}

/** Wait for data-state=ready; on failure say what the page showed instead. */
export async function waitReady(page, errors) {
  try {
    await page.locator(sel.ready).waitFor({ state: 'attached' });
  } catch (e) {
    const state = await page
      .locator(sel.tableView)
      .first()
      .getAttribute('data-state', { timeout: 1000 })
      .catch(() => '(no table-view)');
    const loadErrors = await page.locator(sel.loadError).allTextContents().catch(() => []);
    throw new Error(
      `table view never reached data-state=ready (state: ${state}); ` +
        `load-errors: ${JSON.stringify(loadErrors)}; page errors: ${JSON.stringify(errors?.all ?? [])}\n${e.message}`,
    );
  }
}

/**
 * Everything the page started has ended: its counted tasks (`data-tasks` on the root element,
 * view/app/tasks.rs) are none, and two frames have been drawn since with none started again. After
 * this no late error can come from that work; a test checks errors here instead of after a sleep.
 * Not for a page with Live on (its follow loop is not counted, and keeps starting reads).
 */
export async function settled(page, ms = TIMEOUT_MS) {
  const idle = () => page.waitForFunction(() => (document.documentElement.dataset.tasks ?? '0') === '0', null, { timeout: ms });
  for (;;) {
    await idle();
    const still = await page.evaluate(
      () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r((document.documentElement.dataset.tasks ?? '0') === '0')))),
    );
    if (still) return;
  }
}

/**
 * page.evaluate has no timeout of its own: a page stuck in a loop (or a wasm busy-wait) would hang
 * the test until the runner kills it, with no hint why. This says so instead.
 */
export function inPage(page, fn, arg, what = 'page.evaluate', ms = TIMEOUT_MS) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: page did not answer within ${ms} ms (main thread blocked? infinite loop?)`)),
      ms,
    );
  });
  return Promise.race([page.evaluate(fn, arg), limit]).finally(() => clearTimeout(timer));
}

/** Everything the table view shows, read from the DOM contract. */
export async function readTableView(page) {
  return inPage(page, (s) => {
    const text = (q) => document.querySelector(q)?.textContent?.trim() ?? null;
    const rows = [...document.querySelectorAll(s.row)].map((tr) => ({
      id: tr.getAttribute('data-snapshot-id'),
      records: tr.getAttribute('data-records'),
      dataFiles: tr.getAttribute('data-data-files'),
      manifests: tr.getAttribute('data-manifests'),
      countsFrom: tr.getAttribute('data-counts-from'),
    }));
    const chart = document.querySelector(s.chart);
    return {
      location: text(s.location),
      count: text(s.count),
      rows,
      chartPoints: chart ? chart.getAttribute('data-points') : null,
      chartSize: chart ? [chart.width, chart.height] : null,
      loadErrors: [...document.querySelectorAll(s.loadError)].map((e) => e.textContent.trim()),
    };
  }, sel, 'reading the table view');
}

/** Fraction of the chart canvas's pixels whose colour differs from the top-left pixel. */
export async function chartPaintedFraction(page) {
  return inPage(page, (q) => {
    const c = document.querySelector(q);
    if (!c || !c.width || !c.height) return { fraction: 0, width: c?.width ?? 0, height: c?.height ?? 0 };
    const ctx = c.getContext('2d');
    if (!ctx) return { fraction: 0, width: c.width, height: c.height, note: 'no 2d context' };
    const { data } = ctx.getImageData(0, 0, c.width, c.height);
    const [r0, g0, b0, a0] = [data[0], data[1], data[2], data[3]];
    let differ = 0;
    for (let i = 0; i < data.length; i += 4) {
      const d = Math.abs(data[i] - r0) + Math.abs(data[i + 1] - g0) + Math.abs(data[i + 2] - b0) + Math.abs(data[i + 3] - a0);
      if (d > 24) differ++;
    }
    return { fraction: differ / (data.length / 4), width: c.width, height: c.height };
  }, sel.chart, 'reading the chart pixels');
}

/** Poll until the chart is painted past the threshold (it may be drawn a frame or two after ready). */
export async function waitChartPainted(page, minFraction = MIN_PAINTED_FRACTION, ms = 5000) {
  const end = Date.now() + ms;
  let last;
  do {
    last = await chartPaintedFraction(page);
    if (last.fraction > minFraction) return last;
    await page.waitForTimeout(100);
  } while (Date.now() < end);
  return last;
}

/**
 * Synthesize a drag-and-drop of files onto the dropzone: dragenter, dragover, drop, each carrying
 * a DataTransfer built in the page from the bytes given. Returns whether the page called
 * preventDefault() on dragover (a real browser only fires drop when it did) and on drop.
 * files: [{ name, bytes (Buffer|Uint8Array|string), type? }]
 */
export async function dropFiles(page, files, target = sel.dropzone) {
  const payload = files.map((f) => ({
    name: f.name,
    type: f.type ?? '',
    b64: Buffer.from(f.bytes).toString('base64'),
  }));
  await page.locator(target).first().waitFor({ state: 'attached' });
  return inPage(
    page,
    ({ payload, target }) => {
      const el = document.querySelector(target);
      const dt = new DataTransfer();
      for (const f of payload) {
        const bin = atob(f.b64);
        const u8 = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
        dt.items.add(new File([u8], f.name, { type: f.type, lastModified: Date.now() }));
      }
      const fire = (type) => {
        const ev = new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: dt });
        el.dispatchEvent(ev);
        return ev.defaultPrevented;
      };
      fire('dragenter');
      const overPrevented = fire('dragover');
      const dropPrevented = fire('drop');
      return { overPrevented, dropPrevented, files: dt.files.length };
    },
    { payload, target },
    'dispatching the drop',
  );
}

/**
 * Drops folders or files from disk on the dropzone as a person's drag does: Chromium's own drag
 * (CDP Input.dispatchDragEvent with their paths), so a dropped folder comes with its entries and
 * its handle, as from a file manager. paths: absolute paths.
 */
export async function dropFromDisk(page, paths, target = sel.dropzone) {
  const box = await page.locator(target).first().boundingBox();
  if (!box) throw new Error(`${target}: not on screen to drop on`);
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  const cdp = await page.context().newCDPSession(page);
  try {
    const data = { items: [], files: paths.map((p) => path.resolve(p)), dragOperationsMask: 1 };
    for (const type of ['dragEnter', 'dragOver', 'drop']) await cdp.send('Input.dispatchDragEvent', { type, x, y, data });
  } finally {
    await cdp.detach();
  }
}

async function fetchOk(url) {
  const r = await fetch(url);
  if (!r.ok) return null;
  return Buffer.from(await r.arrayBuffer());
}

/**
 * The examples the app should offer, from <app>/fixtures/index.json and <app>/examples/index.json, each with its newest
 * metadata parsed here: [{ name, title, entry, newestUrl, meta, text, ids }].
 * Paths in index.json are tried relative to examples/<name>/, examples/, then the site root.
 */
export async function loadExamples(appUrl) {
  // The lab's fixtures (Trunk copies tests/fixtures to fixtures/) and the bundled examples.
  const entries = [];
  for (const rel of ['fixtures/index.json', 'examples/index.json']) {
    const indexUrl = new URL(rel, appUrl).href;
    const raw = await fetchOk(indexUrl);
    if (!raw) throw new Error(`${indexUrl} not served`);
    const index = JSON.parse(raw.toString('utf8'));
    if (!Array.isArray(index.examples)) throw new Error(`${indexUrl}: no "examples" array`);
    entries.push(...index.examples);
  }
  const out = [];
  for (const ex of entries) {
    const own = ex.base ? new URL(`${ex.base}/`, appUrl) : new URL(`examples/${encodeURIComponent(ex.name)}/`, appUrl);
    const bases = [own, new URL('examples/', appUrl), new URL(appUrl)];
    const resolve = async (p) => {
      for (const b of bases) {
        const u = new URL(p, b).href;
        const bytes = await fetchOk(u);
        if (bytes) return { url: u, bytes };
      }
      return null;
    };
    const names = new Set([...(ex.metadata ? [ex.metadata] : []), ...(ex.files ?? []).filter((f) => isMetadataName(f))]);
    const metas = [];
    for (const n of names) {
      const hit = await resolve(n);
      if (!hit) throw new Error(`example ${ex.name}: ${n} listed in index.json but not served`);
      const text = metadataText(hit.bytes, n);
      metas.push({ name: n, url: hit.url, text, meta: parseJsonBig(text) });
    }
    if (metas.length === 0) throw new Error(`example ${ex.name}: no metadata.json in index.json`);
    const newest = newestOf(metas);
    out.push({
      name: ex.name,
      title: ex.title,
      entry: ex,
      newestUrl: newest.url,
      meta: newest.meta,
      text: newest.text,
      ids: snapshotIds(newest.meta),
      idsByRegex: snapshotIdsByRegex(newest.text),
    });
  }
  return out;
}

/** PNG signature + IHDR + IDAT consistency; throws on anything malformed. */
export function inspectPng(buf) {
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (buf.length < 33 || !buf.subarray(0, 8).equals(sig)) throw new Error('not a PNG (bad signature)');
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (b) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  let p = 8;
  let ihdr = null;
  const idat = [];
  let sawEnd = false;
  while (p + 8 <= buf.length) {
    const len = buf.readUInt32BE(p);
    const type = buf.toString('latin1', p + 4, p + 8);
    if (p + 12 + len > buf.length) throw new Error(`PNG chunk ${type} truncated`);
    const data = buf.subarray(p + 8, p + 8 + len);
    if (crc32(buf.subarray(p + 4, p + 8 + len)) !== buf.readUInt32BE(p + 8 + len)) throw new Error(`PNG chunk ${type}: bad CRC`);
    if (type === 'IHDR') {
      ihdr = {
        width: data.readUInt32BE(0),
        height: data.readUInt32BE(4),
        bitDepth: data[8],
        colorType: data[9],
        interlace: data[12],
      };
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') {
      sawEnd = true;
      break;
    }
    p += 12 + len;
  }
  if (!ihdr) throw new Error('PNG without IHDR');
  if (!sawEnd) throw new Error('PNG without IEND');
  return { ...ihdr, idat: Buffer.concat(idat) };
}

/** Clicks the `data-testid` button and returns the file it downloads: { name, bytes }. */
export async function download(page, testid) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.locator(`[data-testid="${testid}"]`).click()]);
  if (await d.failure()) throw new Error(`${testid}: download failed: ${await d.failure()}`);
  return { name: d.suggestedFilename(), bytes: fs.readFileSync(await d.path()) };
}
