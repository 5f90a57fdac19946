// The lab's live-browser scenario, the browser's side (started by tests/lab/lab.py, live_browser()):
// `icescope serve` for the lab's REST catalog and SeaweedFS, Debian's Chromium through Playwright
// (tests/e2e/lib/harness.mjs) on the address serve prints, the table opened from the catalog's
// listing, the Live switch on. After every look the app takes (its performance mark
// `icescope:live:looked`, read once the look is published, `icescope:live:look`) one JSON line
// goes to LB_OUT: when it looked (wall clock), the growth chart's data-points, the snapshot count,
// the metadata file shown, and the live events. Runs until SIGTERM; then a last screenshot, and
// everything it started is stopped. It stops when the file LB_STOP appears (Playwright closes the
// browser itself on SIGTERM, before a last look could be taken), or on SIGTERM/SIGINT.
//
// Environment: LB_TABLE (namespace.table), LB_CATALOG, LB_WAREHOUSE, LB_SCOPE, LB_S3_ENDPOINT,
// LB_S3_REGION, LB_EVERY (seconds, one of the app's choices), LB_OUT (the JSON lines), LB_SHOTS
// (a folder for PNGs), LB_SUMMARY (a JSON file written at the end), LB_STOP (the stop file),
// ICESCOPE_BIN, ICESCOPE_DIST.
// The secrets are only in the environment serve inherits: ICESCOPE_CREDENTIAL, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY. The relay token serve prints stays in this process and the page.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_DIST } from '../e2e/serve.mjs';
import { REPO, TIMEOUT_MS, launchBrowser, newPage, waitReady } from '../e2e/lib/harness.mjs';

const env = (k, d) => {
  const v = process.env[k] ?? d;
  if (v === undefined) throw new Error(`${k} is not set`);
  return v;
};
const TABLE = env('LB_TABLE');
const OUT = env('LB_OUT');
const SHOTS = env('LB_SHOTS');
const SUMMARY = env('LB_SUMMARY');
const STOP = env('LB_STOP');
const EVERY = env('LB_EVERY', '2');
const BIN = env('ICESCOPE_BIN', path.join(REPO, 'target', 'debug', 'icescope'));
const DIST = path.resolve(env('ICESCOPE_DIST', DEFAULT_DIST));
const WIDTH = 800;

const log = (...a) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} live_browser: ${a.join(' ')}\n`);

let stopping = false;
process.on('SIGTERM', () => { stopping = true; });
process.on('SIGINT', () => { stopping = true; });

/** `icescope serve`, secrets from the inherited environment; resolves with the printed address. */
function startServe() {
  const args = ['serve', '--dist', DIST, '--catalog', env('LB_CATALOG'), '--warehouse', env('LB_WAREHOUSE'), '--scope', env('LB_SCOPE'),
    '--s3-endpoint', env('LB_S3_ENDPOINT'), '--s3-region', env('LB_S3_REGION', 'us-east-1'), '--s3-path-style-access'];
  const child = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`icescope serve printed no address:\n${out}`)), 20000);
    child.stdout.on('data', () => {
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\/#relay=[0-9a-f]+/);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[0], args, output: () => out });
      }
    });
    child.once('exit', (code) => reject(new Error(`icescope serve exited ${code}:\n${out}`)));
  });
}

async function stopChild(child) {
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
}

// In the page: each `looked` mark, read back once that look is published (two frames later, so
// that the chart's effect has run), queued on window.__looks for this process to take.
function observeLooks() {
  window.__looks = [];
  let looked = null;
  let n = 0;
  const read = (at) => {
    const q = (s) => document.querySelector(s);
    const meta = q('[data-testid="metadata-file"], [data-testid="metadata-picker"]');
    const events = [...document.querySelectorAll('[data-testid="live-events"] li')].map((e) => e.dataset.kind);
    window.__looks.push({
      look: ++n,
      looked_wall_ms: Math.round(performance.timeOrigin + at),
      read_wall_ms: Date.now(),
      points: Number(q('canvas[data-testid="growth-chart"]')?.dataset.points ?? NaN),
      snapshot_count: Number(q('[data-testid="snapshot-count"]')?.textContent ?? NaN),
      metadata: meta ? (meta.value ?? meta.textContent) : null,
      problem: q('[data-testid="live-problem"]')?.textContent?.trim() || null,
      events: { commit: events.filter((k) => k === 'commit').length, new_job: events.filter((k) => k === 'new_job').length,
        finding: events.filter((k) => k === 'finding').length, all: events.length },
    });
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name === 'icescope:live:looked') looked = e.startTime;
      if (e.name === 'icescope:live:look' && looked !== null) {
        const at = looked;
        looked = null;
        requestAnimationFrame(() => requestAnimationFrame(() => read(at)));
      }
    }
  }).observe({ type: 'mark', buffered: false });
}

const summary = { table: TABLE, every_s: Number(EVERY), width_px: WIDTH, chromium: null, serve: null, looks: 0, shots: [], errors: [], started_wall_ms: Date.now() };
let serve;
let browser;
try {
  fs.mkdirSync(SHOTS, { recursive: true });
  fs.writeFileSync(OUT, '');
  serve = await startServe();
  summary.serve = { command: ['icescope', ...serve.args], dist: path.relative(REPO, DIST) };
  browser = await launchBrowser();
  summary.chromium = browser.version();
  const { page, errors } = await newPage(browser);
  await page.setViewportSize({ width: WIDTH, height: 1000 });
  await page.goto(serve.url, { waitUntil: 'load' });
  const entry = page.locator(`[data-testid="catalog-table"][data-table="${TABLE}"]`);
  await entry.waitFor({ state: 'attached', timeout: 3 * TIMEOUT_MS });
  await entry.click();
  await waitReady(page, errors);
  summary.opened_wall_ms = Date.now();
  await page.evaluate(observeLooks);
  await page.locator('[data-testid="live-every"]').selectOption(EVERY);
  await page.locator('[data-testid="live-switch"]').click();
  await page.locator('[data-testid="live-badge"]').waitFor({ timeout: TIMEOUT_MS });
  summary.live_on_wall_ms = Date.now();
  log(`Live on for ${TABLE}`);
  const shoot = async (name) => {
    const file = path.join(SHOTS, `${name}.png`);
    await page.screenshot({ path: file });
    summary.shots.push({ file: path.basename(file), bytes: fs.statSync(file).size, wall_ms: Date.now() });
  };
  let jobsSeen = 0;
  let shotFirst = false;
  while (!stopping) {
    const looks = await page.evaluate(() => window.__looks.splice(0));
    for (const l of looks) {
      fs.appendFileSync(OUT, `${JSON.stringify(l)}\n`);
      summary.looks += 1;
    }
    const last = looks.at(-1);
    if (last && !shotFirst) {
      shotFirst = true;
      await shoot('first-look');
    }
    if (last && last.events.new_job > jobsSeen) {
      jobsSeen = last.events.new_job;
      await shoot(`new-job-${jobsSeen}`);
    }
    await new Promise((r) => setTimeout(r, 250));
    if (fs.existsSync(STOP)) stopping = true;
  }
  await new Promise((r) => setTimeout(r, 200));
  for (const l of await page.evaluate(() => window.__looks.splice(0))) {
    fs.appendFileSync(OUT, `${JSON.stringify(l)}\n`);
    summary.looks += 1;
  }
  await shoot('last-look');
  summary.errors = errors.all;
} catch (e) {
  summary.failure = String(e?.stack || e);
  log(summary.failure);
} finally {
  summary.stopped_wall_ms = Date.now();
  await browser?.close().catch(() => {});
  await stopChild(serve?.child);
  fs.writeFileSync(SUMMARY, `${JSON.stringify(summary, null, 1)}\n`);
  log(`${summary.looks} looks recorded`);
}
process.exit(summary.failure ? 1 : 0);
