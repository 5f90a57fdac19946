// Where the page's memory goes after a picked folder is charted: the wasm linear memory (never
// shrinks: its size is the app's peak heap), the JS heap, DOM counters and the renderer's RSS.
//
//   node tests/bench/memory_pick.mjs [--dist dist] <table-folder>
// With a `--features heap-stats` build (tests/bench/LOG.md), the wasm heap's live and peak bytes
// at each performance mark are printed too.
import fs from 'node:fs';
import path from 'node:path';
import { commandLine, launch, startServer } from './diag.mjs';

const { args, dist } = commandLine();
const table = path.resolve(args[0]);

const mib = (b) => (b / 1048576).toFixed(1);
function rendererRss() {
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
const browser = await launch();
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
