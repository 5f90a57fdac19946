// Where the page's memory goes after a picked folder is charted: the wasm linear memory (never
// shrinks: its size is the app's peak heap), the JS heap, DOM counters and the renderer's RSS.
//
//   node tests/bench/memory_pick.mjs [--dist dist] [--bare] <table-folder>
// --bare sets the folder on a page without the app's input handling (Chromium's own cost of a
// FileList of that folder).
import fs from 'node:fs';
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
const table = path.resolve(args[0]);

const mib = (b) => (b / 1048576).toFixed(1);
function rendererRss(browserPid) {
  // The largest renderer among Chromium's processes: the page's.
  let best = 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (!cmd.includes('--type=renderer')) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${d}/status`, 'utf8'));
      if (m) best = Math.max(best, Number(m[1]) * 1024);
    } catch { /* gone */ }
  }
  return best;
}

const srv = await startServer({ root: dist });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript(() => {
    addEventListener('TrunkApplicationStarted', (e) => { window.__wasm = e.detail.wasm; });
  });
  page.on('console', (m) => { if (m.text().startsWith('heap at')) console.log(m.text()); });
  await page.goto(srv.url, { waitUntil: 'load' });
  await page.locator('[data-testid="gallery"]').waitFor();
  const cdp = await page.context().newCDPSession(page);
  const snap = async (label) => {
    await cdp.send('HeapProfiler.collectGarbage');
    const heap = await cdp.send('Runtime.getHeapUsage');
    const dom = await cdp.send('Memory.getDOMCounters');
    const wasm = await page.evaluate(() => (window.__wasm ? window.__wasm.memory.buffer.byteLength : 0));
    console.log(`${label}: wasm memory ${mib(wasm)} MiB, JS heap used ${mib(heap.usedSize)} / total ${mib(heap.totalSize)} MiB, nodes ${dom.nodes}, listeners ${dom.jsEventListeners}, renderer RSS ${mib(rendererRss())} MiB`);
  };
  await snap('idle');
  await page.locator('input[type=file][data-testid="folder-input"]').setInputFiles(table, { timeout: 300000 });
  await page.waitForFunction(() => performance.getEntriesByName('icescope:all-charts').length > 0, null, { timeout: 300000, polling: 200 });
  await page.waitForTimeout(500);
  await snap('charted');
} finally {
  await browser.close();
  await srv.close?.();
}
