// Where the page's main thread spends its time while a picked folder loads: Chromium's sampling
// profiler (CDP Profiler) from the pick until "all charts", self time summed by function name.
// Diagnostic for the benchmark's long-task numbers:
//
//   node tests/bench/profile_pick.mjs [--dist dist] [--top 40] [--from-chosen] <table-folder>
// --from-chosen starts sampling at the app's `icescope:files-chosen` mark; --inclusive icescope
// also sums each matching function's time with its callees'. Names need a build that keeps them
// (app/index.html with data-wasm-opt="s" replaced by data-wasm-opt="0" data-keep-debug="true": wasm-opt
// drops the names; trunk build --dist /tmp/distprof).
import path from 'node:path';
import { commandLine, launch, startServer, summarise } from './diag.mjs';

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
  for (const line of summarise(profile, { top, pattern })) console.log(line);
} finally {
  await browser.close();
  await srv.close?.();
}
