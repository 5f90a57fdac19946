// A day over a network (issue 29, point 4): tests/bench/network_day.py serves a table the generator
// wrote at an s3:// location from SeaweedFS's S3 behind Apache Iceberg's REST reference server, each
// behind a relay adding DELAY ms each way. The default load is timed three ways, from what the user
// does: the CLI (`icescope inspect --catalog …`, from its start), Chromium opening the table's
// metadata.json by location straight from the store (from the click on Open), and Chromium through
// `icescope serve` (from the click on the catalog's table). For each: the seconds to the first
// chart, to every chart but the partitions (`icescope:charts-before-files`), to all charts, the
// requests sent and the bytes the relays carried back.
//
//   node tests/bench/network_bench.mjs BIN DIST TABLE_DIR [DELAY_MS=20] [--only cli,direct,serve] [--repeat N] [--profile PATTERN]
//
// --repeat N runs the CLI and the path through serve N times each on the one upload.
//
// Each Chromium run also reports the CPU seconds of every process the bench started (the store,
// the catalog, the relays, icescope serve, Chromium), summed by thread name, from the click to all
// charts. --profile PATTERN samples the page's main thread over the same span (a build that keeps
// names: profile_pick.mjs).
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import { appTarget, launchBrowser, newPage } from '../e2e/lib/harness.mjs';
import { fillLocation } from './open_location.mjs';
import { threads, threadsSince } from './proc_cpu.mjs';
import { summarise } from './diag.mjs';

const args = process.argv.slice(2);
const profileOf = args.includes('--profile') ? args.splice(args.indexOf('--profile'), 2)[1] : undefined;
const repeat = args.includes('--repeat') ? Number(args.splice(args.indexOf('--repeat'), 2)[1]) : 1;
const only = args.includes('--only') ? args.splice(args.indexOf('--only'), 2)[1].split(',') : ['cli', 'direct', 'serve'];
const [bin, dist, tableDir, delay = '20'] = args;
const MARKS = { first: 'icescope:first-chart', before_files: 'icescope:charts-before-files', all: 'icescope:all-charts' };

const store = spawn('tests/.venv/bin/python', ['tests/bench/network_day.py', tableDir, delay], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = readline.createInterface({ input: store.stdout });
const next = () => new Promise((resolve) => lines.once('line', resolve));
const f = JSON.parse(await next());
const stats = async (cmd) => {
  store.stdin.write(`${cmd}\n`);
  return cmd === 'stats' ? JSON.parse(await next()) : null;
};
const carried = (s) => ({ s3_bytes: s.s3.bytes_to_client, s3_connections: s.s3.connections, catalog_bytes: s.catalog.bytes_to_client });
const s3Args = ['--s3-endpoint', f.s3_endpoint, '--s3-region', f.region, '--s3-path-style-access'];
const results = { table: f.table, delay_ms_each_way: f.delay_ms_each_way, metadata_location: f.metadata_location, uploaded: f.uploaded, runs: [] };

/** TCP retransmission timeouts so far, as the kernel counts them (nstat's TcpExtTCPTimeouts). */
function tcpTimeouts() {
  const lines = fs.readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((l) => l.startsWith('TcpExt:'));
  const [names, values] = lines.map((l) => l.split(' '));
  return Number(values[names.indexOf('TCPTimeouts')]);
}

/** Starts sampling the page's main thread (with --profile) and counting CPU by thread; the
 * returned function stops both and gives the CPU seconds by thread. */
async function measure(page) {
  const cdp = profileOf === undefined ? null : await page.context().newCDPSession(page);
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
    await cdp.send('Profiler.start');
  }
  const t0 = threads();
  return async () => {
    const byThread = threadsSince(t0);
    if (cdp) {
      const { profile } = await cdp.send('Profiler.stop');
      for (const line of summarise(profile, { top: 40, pattern: profileOf })) process.stderr.write(`${line}\n`);
    }
    return byThread;
  };
}

/** Seconds from `before` (page clock) to each mark, polled until all charts are drawn. */
/** Also the megabytes the store's relay carried back by each whole second (a stall shows as a run
 * of zeros) and the kernel's TCP retransmission timeouts meanwhile. */
async function marksFrom(page, before, timeoutMs = 900000) {
  const t0 = Date.now();
  const rto0 = tcpTimeouts();
  const mb_by_second = [];
  for (;;) {
    const m = await page.evaluate((names) => Object.fromEntries(Object.entries(names).map(([k, n]) => [k, performance.getEntriesByName(n)[0]?.startTime ?? null])), MARKS);
    if (Date.now() - t0 >= (mb_by_second.length + 1) * 1000) mb_by_second.push((await stats('stats')).s3.bytes_to_client);
    if (m.all != null || Date.now() - t0 > timeoutMs) {
      const marks = Object.fromEntries(Object.entries(m).map(([k, v]) => [`${k}_s`, v == null ? null : +((v - before) / 1000).toFixed(2)]));
      const mb = mb_by_second.map((b, i) => +((b - (mb_by_second[i - 1] ?? 0)) / 1e6).toFixed(1));
      return { ...marks, s3_mb_by_second: mb, tcp_timeouts: tcpTimeouts() - rto0 };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

try {
  for (let round = 0; round < repeat && only.includes('cli'); round++) {
    await stats('reset');
    const t0 = Date.now();
    const out = execFileSync(bin, ['inspect', '--catalog', f.catalog_uri, '--table', f.table, ...s3Args, '--format', 'json'], {
      env: { ...process.env, AWS_ACCESS_KEY_ID: f.key, AWS_SECRET_ACCESS_KEY: f.secret }, maxBuffer: 1 << 30,
    });
    const seconds = (Date.now() - t0) / 1000;
    const load = JSON.parse(out).load;
    results.runs.push({ how: 'cli', seconds, requests: load.requests, files_read: load.files_read, phases: load.phases, ...carried(await stats('stats')) });
  }
  const browser = only.some((o) => o !== 'cli') ? await launchBrowser() : null;
  try {
    if (only.includes('direct')) {
      const app = await appTarget();
      const { page, context } = await newPage(browser);
      let requests = 0;
      page.on('request', (r) => { if (r.url().startsWith(f.s3_endpoint)) requests += 1; });
      await fillLocation(page, app.url, f);
      await stats('reset');
      const done = await measure(page);
      const before = await page.evaluate(() => performance.now());
      await page.locator('[data-testid="location-open"]').click();
      const m = await marksFrom(page, before);
      results.runs.push({ how: 'chromium direct (by location)', ...m, requests, ...carried(await stats('stats')), cpu_s_by_thread: await done() });
      await context.close();
      await app.close();
    }
    for (let round = 0; round < repeat && only.includes('serve'); round++) {
      const child = spawn(bin, ['serve', '--dist', dist, '--catalog', f.catalog_uri, ...s3Args], {
        env: { ...process.env, AWS_ACCESS_KEY_ID: f.key, AWS_SECRET_ACCESS_KEY: f.secret }, stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        let out = '';
        const url = await new Promise((resolve) => child.stdout.on('data', (d) => {
          out += d;
          const u = out.match(/http:\/\/127\.0\.0\.1:\d+\/#relay=[0-9a-f]{64}/);
          if (u) resolve(u[0]);
        }));
        const { page, context } = await newPage(browser);
        let requests = 0;
        page.on('request', (r) => { if (r.url().includes('/relay/')) requests += 1; });
        await page.goto(url, { waitUntil: 'load' });
        const button = page.locator(`[data-testid="catalog-table"][data-table="${f.table}"]`);
        await button.waitFor({ state: 'attached', timeout: 120000 });
        await stats('reset');
        requests = 0;
        const done = await measure(page);
        const before = await page.evaluate(() => performance.now());
        await button.click();
        const m = await marksFrom(page, before);
        results.runs.push({ how: 'chromium through icescope serve', ...m, requests, ...carried(await stats('stats')), cpu_s_by_thread: await done() });
        await context.close();
      } finally {
        child.kill('SIGTERM');
      }
    }
  } finally {
    await browser?.close();
  }
} finally {
  store.stdin.end();
}
console.log(JSON.stringify(results, null, 1));
