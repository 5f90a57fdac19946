// Where the page's main thread spends its time while a picked folder loads: Chromium's sampling
// profiler (CDP Profiler) from the pick until "all charts", self time summed by function name.
// Diagnostic for the benchmark's long-task numbers:
//
//   node tests/bench/profile_pick.mjs [--dist dist] [--top 40] <table-folder>
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startServer } from '../e2e/serve.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const require = createRequire(path.join(REPO, 'tests', 'e2e', 'package.json'));
const { chromium } = require('playwright-core');

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args.splice(args.indexOf(k), 2)[1] : d);
const dist = opt('--dist', path.join(REPO, 'dist'));
const top = Number(opt('--top', '40'));
const until = opt('--until', 'icescope:all-charts');
const table = path.resolve(args[0]);

const srv = await startServer({ root: dist });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(srv.url, { waitUntil: 'load' });
  await page.locator('[data-testid="gallery"]').waitFor();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
  // Started before the files are set: the app begins on the input's change event, which can come
  // long before setInputFiles returns on a folder of 100,000 files.
  await cdp.send('Profiler.start');
  await page.locator('input[type=file][data-testid="folder-input"]').setInputFiles(table, { timeout: 300000 });
  await page.waitForFunction((m) => performance.getEntriesByName(m).length > 0, until, { timeout: 300000, polling: 200 });
  const { profile } = await cdp.send('Profiler.stop');
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url ? path.basename(f.url) : ''}`;
    self.set(name, (self.get(name) || 0) + (dt[i] || 0) / 1000);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`sampled ${(total / 1000).toFixed(2)} s`);
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${v.toFixed(0).padStart(7)} ms  ${k}`);
} finally {
  await browser.close();
  await srv.close?.();
}
