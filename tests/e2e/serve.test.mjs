// The app through `icescope serve`, in headless Chromium: SeaweedFS's Iceberg REST catalog, whose
// port sends no CORS headers, opened with no proxy and nothing typed. serve holds the OAuth2 client
// credential and the S3 keys (given in its environment); the page opens the printed address, lists
// the catalog and opens a table through the relay. Expected numbers are PyIceberg's, from
// tests/py/catalog/serve_for_e2e.py, as in catalog.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_DIST } from './serve.mjs';
import { startCatalog } from './lib/catalog_server.mjs';
import { REPO, SCREENSHOT_DIR, TIMEOUT_MS, cliPath, launchBrowser, newPage, readTableView, screenshotOnFailure, sel, waitReady } from './lib/harness.mjs';


let catalog; // { facts, stop() }
let serve; // { url, origin, output(), stop() }
let browser;

/** `icescope serve` for the catalog, secrets in its environment; resolves once it prints its address. */
async function startServe(facts, dist) {
  const args = ['serve', '--dist', dist, '--catalog', facts.catalog_uri, '--warehouse', facts.warehouse, '--scope', facts.scope,
    '--s3-endpoint', facts.s3_endpoint, '--s3-region', facts.region, '--s3-path-style-access'];
  const env = { ...process.env, ICESCOPE_CREDENTIAL: `${facts.key}:${facts.secret}`, AWS_ACCESS_KEY_ID: facts.key, AWS_SECRET_ACCESS_KEY: facts.secret };
  const child = spawn(cliPath(), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`icescope serve printed no address:\n${out}`)), 20000);
    child.stdout.on('data', () => {
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\/#relay=[0-9a-f]+/);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
    child.once('exit', (code) => reject(new Error(`icescope serve exited ${code}:\n${out}`)));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
  };
  return { url, origin: new URL(url).origin, output: () => out, stop };
}

before(async () => {
  const dist = path.resolve(process.env.ICESCOPE_DIST || DEFAULT_DIST);
  if (!fs.existsSync(path.join(dist, 'index.html'))) throw new Error(`no built app at ${dist}: run \`trunk build --release\` first, or set ICESCOPE_DIST`);
  catalog = await startCatalog();
  serve = await startServe(catalog.facts, dist);
  browser = await launchBrowser();
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  await catalog?.stop();
});

test('a catalog without CORS opens through icescope serve: PyIceberg\'s counts, every request to the page\'s own origin, no secret in the page', async () => {
  const { facts } = catalog;
  const { page, errors } = await newPage(browser);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await screenshotOnFailure(page, 'serve-relay', async () => {
    await page.goto(serve.url, { waitUntil: 'load' });
    await page.locator('[data-testid="relay-panel"]').waitFor({ state: 'attached' });
    // The first listing through the relay waits for an OAuth2 token and the catalog's pages.
    await page.locator('[data-testid="catalog-table"]').first().waitFor({ state: 'attached', timeout: 3 * TIMEOUT_MS });
    // The token is taken out of the address at once: a link copied from the bar never carries it.
    assert.ok(!page.url().includes('relay='), `the token stayed in the address: ${page.url()}`);
    const listed = await page.locator('[data-testid="catalog-table"]').evaluateAll((bs) => bs.map((b) => b.dataset.table).sort());
    const want = Object.entries(facts.listing).flatMap(([ns, ts]) => ts.map((t) => `${ns}.${t}`)).sort();
    assert.deepEqual(listed, want, 'the relay\'s listing vs PyIceberg\'s');
    assert.equal(await page.locator('[data-testid="catalog-client-secret"]').count(), 0, 'no credential field in the page');

    const table = 'scope_ns.events';
    await page.locator(`[data-testid="catalog-table"][data-table="${table}"]`).click();
    await waitReady(page, errors).catch((e) => {
      e.message += `\nicescope serve said:\n${serve.output().replaceAll(catalog.facts.secret, '<secret>')}`;
      throw e;
    });
    const view = await readTableView(page);
    const t = facts.tables[table];
    assert.equal(view.count, String(t.snapshots.length));
    assert.equal(view.location, t.location);
    const rows = new Map(view.rows.map((r) => [r.id, r]));
    for (const s of t.snapshots) {
      const r = rows.get(s.snapshot_id);
      assert.ok(r, `snapshot ${s.snapshot_id} shown`);
      assert.deepEqual({ dataFiles: r.dataFiles, records: r.records }, { dataFiles: String(s.total_data_files), records: String(s.total_records) }, `snapshot ${s.snapshot_id}`);
    }
    assert.deepEqual(view.loadErrors, [], 'no load errors');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'serve-relay.png') });

    // Every request the page made went to icescope serve: the catalog's and S3's ports saw none.
    const elsewhere = requests.filter((u) => new URL(u).origin !== serve.origin && !u.startsWith('data:') && !u.startsWith('blob:'));
    assert.deepEqual(elsewhere, [], 'requests past the relay');
    // Whole files come in batches (`/relay/files`, one request for many); none one by one.
    const batches = requests.filter((u) => u.includes('/relay/files?')).map((u) => new URL(u).searchParams.getAll('ref'));
    const refs = batches.flat();
    assert.ok(refs.some((r) => r.endsWith('.metadata.json')) && refs.some((r) => r.includes('/snap-')), `the table's files came through the relay: ${refs}`);
    assert.deepEqual(requests.filter((u) => u.includes('/relay/file?')), [], 'no whole file read one a request');
    assert.ok(Math.max(...batches.map((b) => b.length)) > 1, `some batch carried several files: ${batches.map((b) => b.length)}`);
    assert.equal(new Set(refs).size, refs.length, 'no file asked for twice');
    // The page narrowed itself to its own origin.
    const csp = await page.locator('meta[data-testid="narrowed-csp"]').getAttribute('content');
    assert.equal(csp, "connect-src 'self'");

    // A reload keeps the relay (the token in this tab's sessionStorage) and the link reopens the table.
    assert.ok(page.url().includes(`table=${table}`), `the link names the table: ${page.url()}`);
    await page.reload({ waitUntil: 'load' });
    await waitReady(page, errors);
    assert.equal((await readTableView(page)).count, String(t.snapshots.length), 'the table reopened from the link');

    const dump = await page.evaluate(() => document.documentElement.outerHTML + location.href + JSON.stringify(sessionStorage) + JSON.stringify(localStorage));
    assert.ok(!dump.includes(facts.secret), 'the secret reached the page');
    assert.ok(!serve.output().includes(facts.secret), 'the secret in icescope serve\'s output');
  });
});

/** PyIceberg appends `n` batches to `table` in the e2e catalog (append_for_e2e.py): the table's snapshot ids after. */
function append(table, n, create = false) {
  const python = process.env.ICESCOPE_PYTHON || path.join(REPO, 'tests', '.venv', 'bin', 'python');
  const script = path.join(REPO, 'tests', 'py', 'catalog', 'append_for_e2e.py');
  const r = spawnSync(python, [script, JSON.stringify(catalog.facts), table, String(n), ...(create ? ['--create'] : [])], { encoding: 'utf8', timeout: 120000 });
  if (r.status !== 0) throw new Error(`append_for_e2e.py: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

test('Live through icescope serve: the relay asks the catalog again, the chart grows with what PyIceberg appends', { timeout: 180000 }, async () => {
  const table = 'scope_ns.live';
  const before = append(table, 2, true);
  const { page, errors } = await newPage(browser);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await screenshotOnFailure(page, 'serve-live', async () => {
    await page.goto(serve.url, { waitUntil: 'load' });
    await page.locator(`[data-testid="catalog-table"][data-table="${table}"]`).waitFor({ state: 'attached', timeout: 3 * TIMEOUT_MS });
    await page.locator(`[data-testid="catalog-table"][data-table="${table}"]`).click();
    await waitReady(page, errors);
    assert.equal((await readTableView(page)).count, String(before.snapshot_ids.length));
    await page.locator('[data-testid="live-every"]').selectOption('2');
    await page.locator('[data-testid="live-switch"]').click();
    await page.locator('[data-testid="live-badge"]').waitFor({ timeout: TIMEOUT_MS });
    const after = append(table, 3);
    const want = after.snapshot_ids.length;
    await page.waitForFunction((n) => document.querySelector('[data-testid="snapshot-count"]')?.textContent === String(n), want, { timeout: TIMEOUT_MS });
    await page.waitForFunction((n) => document.querySelector('canvas[data-testid="growth-chart"]')?.dataset.points === String(n), want, { timeout: TIMEOUT_MS });
    const commits = await page.locator('[data-testid="live-events"] li[data-kind="commit"]').allTextContents();
    const added = after.snapshot_ids.slice(before.snapshot_ids.length);
    assert.equal(commits.length, added.length, commits.join('\n'));
    for (const id of added) assert.ok(commits.some((c) => c.includes(id)), `commit ${id} is an event`);
    // Each look went to the relay (the same table id, asked of the catalog again), nowhere else.
    const reloads = requests.filter((u) => u.includes('/relay/reload?'));
    assert.ok(reloads.length >= 2, `looks through the relay: ${reloads.length}`);
    assert.deepEqual(requests.filter((u) => new URL(u).origin !== serve.origin && !u.startsWith('data:') && !u.startsWith('blob:')), []);
    assert.equal(requests.filter((u) => u.includes('/relay/open?')).length, 1, 'the table was opened once');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'serve-live.png') });
  });
  await page.context().close();
});

test('a page on another origin cannot use the relay, even with the token', async () => {
  const { page } = await newPage(browser);
  const token = serve.url.split('#relay=')[1];
  // A hostile page at another origin (the catalog's own port serves as one) tries the relay.
  await page.goto(`${catalog.facts.catalog_uri}/v1/config`).catch(() => {});
  const answer = await page.evaluate(async ({ origin, token }) => {
    try {
      const r = await fetch(`${origin}/relay/catalog`, { headers: { 'X-Icescope-Relay': token } });
      return `status ${r.status}`;
    } catch (e) {
      return `blocked: ${e.message}`;
    }
  }, { origin: serve.origin, token });
  // The browser sends a preflight (the custom header), which serve refuses (Origin), and no
  // CORS header ever allows the read: either way the page learns nothing.
  assert.match(answer, /^blocked/, answer);
}, { timeout: TIMEOUT_MS * 2 });

test('a location through icescope serve: the s3:// metadata file opens with PyIceberg\'s counts; a host serve was not given is refused', async () => {
  const { facts } = catalog;
  const t = facts.tables['scope_ns.events'];
  const { page, errors } = await newPage(browser);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await screenshotOnFailure(page, 'serve-location', async () => {
    await page.goto(serve.url, { waitUntil: 'load' });
    await page.locator('[data-testid="relay-panel"] [data-testid="location"]').waitFor({ state: 'attached' });
    // A host neither the catalog's nor the S3 endpoint's: the relay refuses to go there.
    await page.locator('[data-testid="location"]').fill('http://127.0.0.2:9/db/t/metadata/v1.metadata.json');
    await page.locator('[data-testid="location-open"]').click();
    const refused = page.locator(sel.loadError).filter({ hasText: '127.0.0.2' });
    await refused.waitFor({ state: 'attached', timeout: TIMEOUT_MS });
    assert.match(await refused.textContent(), /reads only from the hosts named on its command line/);

    await page.locator('[data-testid="location"]').fill(t.metadata_location);
    await page.locator('[data-testid="location-open"]').click();
    await waitReady(page, errors);
    const view = await readTableView(page);
    assert.equal(view.count, String(t.snapshots.length));
    assert.equal(view.location, t.location);
    const rows = new Map(view.rows.map((r) => [r.id, r]));
    for (const s of t.snapshots) {
      assert.deepEqual({ dataFiles: rows.get(s.snapshot_id)?.dataFiles, records: rows.get(s.snapshot_id)?.records },
        { dataFiles: String(s.total_data_files), records: String(s.total_records) }, `snapshot ${s.snapshot_id}`);
    }
    const elsewhere = requests.filter((u) => new URL(u).origin !== serve.origin && !u.startsWith('data:') && !u.startsWith('blob:'));
    assert.deepEqual(elsewhere, [], 'requests past the relay');
    const hash = Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.slice(1)));
    assert.equal(hash.url, t.metadata_location, 'the link carries the location');
    // The link reopens it through the relay with nothing typed.
    await page.reload({ waitUntil: 'load' });
    await waitReady(page, errors);
    assert.equal((await readTableView(page)).count, String(t.snapshots.length), 'the table reopened from the link');
    assert.ok(!serve.output().includes(facts.secret), 'the secret in icescope serve\'s output');
  });
});
