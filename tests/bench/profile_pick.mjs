// Where the page's main thread spends its time while a picked folder loads: Chromium's sampling
// profiler (CDP Profiler) from the pick until "all charts", self time summed by function name.
// Diagnostic for the benchmark's long-task numbers:
//
//   node tests/bench/profile_pick.mjs [--dist dist] [--top 40] [--from-chosen] <table-folder>
// --from-chosen starts sampling at the app's `icescope:files-chosen` mark; --inclusive icescope
// also sums each matching function's time with its callees'. Names need a build that keeps them
// (app/index.html: data-wasm-opt="0" data-keep-debug="true", trunk build --dist /tmp/distprof).
import path from 'node:path';
import { commandLine, launch, startServer } from './diag.mjs';

const { args, opt, dist } = commandLine();
const top = Number(opt('--top', '40'));
const until = opt('--until', 'icescope:all-charts');
const pattern = opt('--inclusive', '');
const fromChosen = args.includes('--from-chosen') && Boolean(args.splice(args.indexOf('--from-chosen'), 1));
const table = path.resolve(args[0]);

const srv = await startServer({ root: dist });
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(srv.url, { waitUntil: 'load' });
  await page.locator('[data-testid="gallery"]').waitFor();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
  // Started before the files are set: the app begins on the input's change event, which can come
  // long before setInputFiles returns on a folder of 100,000 files.
  if (!fromChosen) await cdp.send('Profiler.start');
  const picking = page.locator('input[type=file][data-testid="folder-input"]').setInputFiles(table, { timeout: 300000 });
  if (fromChosen) {
    // Only the app's own work: Chromium building the FileList of a large folder is left out.
    await page.waitForFunction(() => performance.getEntriesByName('icescope:files-chosen').length > 0, null, { timeout: 300000, polling: 50 });
    await cdp.send('Profiler.start');
  }
  await picking;
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
  // Inclusive time of the app's own functions (`--inclusive PATTERN`): a node's samples plus its children's.
  if (pattern) {
    const own = new Map();
    profile.samples.forEach((id, i) => own.set(id, (own.get(id) || 0) + (dt[i] || 0) / 1000));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
    const incl = new Map();
    for (const [id, ms] of own) {
      const seen = new Set();
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const name = (byId.get(at).callFrame.functionName || '').replace(/::h[0-9a-f]{16}$/, '');
        if (name.includes(pattern) && !seen.has(name)) {
          seen.add(name);
          incl.set(name, (incl.get(name) || 0) + ms);
        }
      }
    }
    console.log(`inclusive, functions matching ${pattern}:`);
    for (const [k, v] of [...incl.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${v.toFixed(0).padStart(7)} ms  ${k}`);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`sampled ${(total / 1000).toFixed(2)} s`);
  const group = (k) => (k.includes('_bg.wasm') ? 'wasm' : k.startsWith('(') ? k.split(' ')[0] : k.includes('__wbg_arrayBuffer') ? 'File.arrayBuffer' : 'js + dom');
  const groups = new Map();
  for (const [k, v] of self) groups.set(group(k), (groups.get(group(k)) || 0) + v);
  console.log('by kind: ' + [...groups.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`).join(', '));
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${v.toFixed(0).padStart(7)} ms  ${k}`);
} finally {
  await browser.close();
  await srv.close?.();
}
