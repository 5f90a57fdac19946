// The catalog panel against a real Iceberg REST catalog and S3 store (SeaweedFS `weed mini`), in
// headless Chromium. tests/py/catalog/serve_for_e2e.py starts the server, writes the tables with
// PyIceberg and hands back PyIceberg's facts as JSON: every expected number below comes from there.
//
// The REST port sends no CORS headers, so the app is served with a same-origin proxy
// (<app>/catalog/ -> the REST port), as `trunk serve` does in development; the S3 port answers
// CORS for any origin and is typed into the form directly. SeaweedFS vends no storage config with
// the vended-credentials header, so the S3 endpoint, keys and path-style are typed too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startServer, DEFAULT_DIST } from './serve.mjs';
import { startCatalog } from './lib/catalog_server.mjs';
import {
  REPO,
  SCREENSHOT_DIR,
  TIMEOUT_MS,
  catalogSel as cs,
  settled,
  cliPath,
  inPage,
  launchBrowser,
  newPage,
  readTableView,
  screenshotOnFailure,
  sel,
  waitReady,
} from './lib/harness.mjs';

const WRONG_CLIENT_SECRET = 'wr0ng-client-s3cr3t-Xq81';
const WRONG_S3_SECRET = 'wr0ng-s3-s3cr3t-Jv27';

let catalog; // { facts, stop() }
let app; // startServer(...)
let browser;
let facts;


before(async () => {
  const dist = path.resolve(process.env.ICESCOPE_DIST || DEFAULT_DIST);
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    throw new Error(`no built app at ${dist} (index.html missing): run \`trunk build --release\` first, or set ICESCOPE_DIST`);
  }
  catalog = await startCatalog();
  facts = catalog.facts;
  app = await startServer({ root: dist, proxy: { '/catalog/': `${facts.catalog_uri}/` } });
  browser = await launchBrowser();
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
});

after(async () => {
  await browser?.close();
  await app?.close();
  await catalog?.stop();
});

// ---------------------------------------------------------------- helpers

const proxied = () => `${app.url}catalog`;
const appOrigin = () => new URL(app.url).origin;
const shot = (page, name) => page.screenshot({ path: path.join(SCREENSHOT_DIR, `catalog-${name}.png`) });

/** The form as a user would fill it: the right keys everywhere unless a field says otherwise. */
function form(over = {}) {
  return {
    uri: proxied(),
    warehouse: facts.warehouse,
    auth: 'oauth2',
    clientId: facts.key,
    clientSecret: facts.secret,
    scope: facts.scope,
    s3Endpoint: facts.s3_endpoint,
    s3Region: facts.region,
    s3AccessKeyId: facts.key,
    s3SecretAccessKey: facts.secret,
    pathStyle: true,
    remember: false,
    ...over,
  };
}

/** A fresh page that also records every console message and request URL (for the secret checks). */
async function freshPage() {
  const p = await newPage(browser);
  p.console = [];
  p.requests = [];
  p.page.on('console', (m) => p.console.push(`${m.type()}: ${m.text()}`));
  p.page.on('request', (r) => p.requests.push(r.url()));
  return p;
}

/**
 * Open the app, fill the catalog form, press Connect; resolves when tables or an error show, to
 * the number of page/console errors recorded before the click (the gallery's own come earlier).
 */
async function connect(page, f, errors, timeout = TIMEOUT_MS) {
  await page.goto(app.url, { waitUntil: 'load' });
  await page.locator(cs.panel).waitFor({ state: 'attached' });
  if (!(await page.locator(cs.panel).evaluate((d) => d.open))) await page.locator(cs.summary).click();
  await page.locator(cs.uri).fill(f.uri);
  await page.locator(cs.warehouse).fill(f.warehouse);
  await page.locator(cs.auth).selectOption(f.auth);
  if (f.auth === 'oauth2') {
    await page.locator(cs.clientId).fill(f.clientId);
    await page.locator(cs.clientSecret).fill(f.clientSecret);
    await page.locator(cs.scope).fill(f.scope);
  } else if (f.auth === 'token') {
    await page.locator(cs.token).fill(f.token);
  }
  await page.locator(cs.s3Endpoint).fill(f.s3Endpoint);
  await page.locator(cs.s3Region).fill(f.s3Region);
  await page.locator(cs.s3AccessKeyId).fill(f.s3AccessKeyId);
  await page.locator(cs.s3SecretAccessKey).fill(f.s3SecretAccessKey);
  await page.locator(cs.s3PathStyle).setChecked(f.pathStyle);
  await page.locator(cs.remember).setChecked(f.remember);
  // The gallery loads its indexes beside the panel: let it finish, so its errors count as before.
  await page
    .waitForFunction((g) => !document.querySelector(g)?.textContent.includes('Loading…'), sel.gallery, { timeout: 5000 })
    .catch(() => {});
  await markStaleErrors(page);
  const before = errors.all.length;
  await page.locator(cs.connect).click();
  await page.waitForFunction(
    ({ tables, err }) => document.querySelector(tables) || [...document.querySelectorAll(err)].some((e) => !e.closest('[data-testid="gallery"]') && !e.hasAttribute('data-e2e-stale')),
    { tables: cs.tables, err: sel.loadError },
    { timeout },
  );
  return before;
}

/**
 * Tag the load-errors on show now, so that a wait after the next click only counts new ones.
 * (The app clears its errors on connect and on opening a table; this guards against reading the
 * previous ones in the instant before the page redraws.)
 */
async function markStaleErrors(page) {
  await inPage(page, (err) => document.querySelectorAll(err).forEach((e) => e.setAttribute('data-e2e-stale', '')), sel.loadError, 'marking old load-errors');
}

/** What the panel lists: namespaces (dotted) and tables ("ns.table"), each sorted. */
async function readListing(page) {
  return inPage(page, (cs) => ({
    namespaces: [...document.querySelectorAll(cs.namespace)].map((e) => e.getAttribute('data-namespace')).sort(),
    tables: [...document.querySelectorAll(cs.table)].map((e) => e.getAttribute('data-table')).sort(),
  }), cs, 'reading the catalog listing');
}

function expectedListing() {
  return {
    namespaces: facts.namespaces.map((n) => n.join('.')).sort(),
    tables: Object.entries(facts.listing).flatMap(([ns, ts]) => ts.map((t) => `${ns}.${t}`)).sort(),
  };
}

/**
 * The load-errors of the catalog flow: at the top of the page and in the table view. The gallery
 * shows its own (an examples index that failed to load) and connecting does not clear those; they
 * are app.test.mjs's business, not these tests'.
 */
const loadErrors = (page) =>
  inPage(page, (err) => [...document.querySelectorAll(err)].filter((e) => !e.closest('[data-testid="gallery"]')).map((e) => e.textContent.trim()), sel.loadError, 'reading load-errors');

/**
 * Click a table; resolves to 'ready' when the table view is ready, or 'failed' when load-errors
 * show and no table view came (an unreadable metadata file stops the load before the view).
 */
async function openTable(page, ident) {
  await markStaleErrors(page);
  await page.locator(`${cs.table}[data-table="${ident}"]`).click();
  const h = await page.waitForFunction(
    ({ ready, view, err }) => {
      if (document.querySelector(ready)) return 'ready';
      const fresh = [...document.querySelectorAll(err)].some((e) => !e.closest('[data-testid="gallery"]') && !e.hasAttribute('data-e2e-stale'));
      if (fresh && !document.querySelector(view)) return 'failed';
      return false;
    },
    { ready: sel.ready, view: sel.tableView, err: sel.loadError },
    { timeout: TIMEOUT_MS },
  );
  return h.jsonValue();
}

/** The table view equals PyIceberg: count, location, and per snapshot id, data files and records. */
function assertMatchesPyIceberg(view, t, only = null) {
  const want = only ? t.snapshots.filter((s) => only.includes(s.snapshot_id)) : t.snapshots;
  assert.equal(view.count, String(t.snapshots.length), `snapshot-count vs PyIceberg's ${t.snapshots.length} snapshots`);
  assert.equal(view.location, t.location, 'table-location vs PyIceberg');
  assert.equal(view.rows.length, t.snapshots.length, 'snapshot rows vs PyIceberg');
  const rows = new Map(view.rows.map((r) => [r.id, r]));
  assert.deepEqual([...rows.keys()].sort(), t.snapshots.map((s) => s.snapshot_id).sort(), 'data-snapshot-id of the rows vs PyIceberg');
  for (const s of want) {
    const r = rows.get(s.snapshot_id);
    assert.deepEqual(
      { dataFiles: r.dataFiles, records: r.records },
      { dataFiles: String(s.total_data_files), records: String(s.total_records) },
      `snapshot ${s.snapshot_id} (${s.operation}): data-data-files / data-records vs PyIceberg's total-data-files / total-records`,
    );
  }
}

/**
 * No secret anywhere the page shows or keeps: visible and hidden text, markup (attributes
 * included), other inputs' values, the URL, local/session storage, console messages, request URLs.
 * The field the secret was typed into is the one place it may be.
 */
/**
 * Every file the page lets a user save after an OAuth2 + S3-key session — each export table as CSV
 * and Parquet, the chart as PNG and SVG on every tab, the Markdown summary — holds no secret (nor
 * the access token the catalog issued, which the page never shows).
 */
async function assertNoSecretsInDownloads(page, secret) {
  const saved = [];
  const save = async (testid) => {
    const [d] = await Promise.all([
      page.waitForEvent('download', { timeout: 15000 }).catch(async (e) => {
        const alerts = await page.locator('[data-testid="load-error"]').allTextContents().catch(() => []);
        throw new Error(`${testid}: no download (${e.message.split('\n')[0]}); alerts: ${JSON.stringify(alerts)}`);
      }),
      page.locator(`[data-testid="${testid}"]`).first().click(),
    ]);
    assert.equal(await d.failure(), null, `${testid}: download failed`);
    saved.push({ what: `${testid} ${d.suggestedFilename()}`, bytes: fs.readFileSync(await d.path()) });
    // Chromium drops a download that follows ten others within a few seconds (no error, no
    // event): spaced out, as a person's clicks are.
    await page.waitForTimeout(1000);
  };
  const exports = await page.locator('[data-testid^="export-"]:not([data-testid="export-format"])').evaluateAll((bs) => bs.map((b) => b.dataset.testid));
  assert.ok(exports.length >= 3, `export buttons: ${exports}`);
  for (const format of ['csv', 'parquet']) {
    await page.locator('[data-testid="export-format"]').selectOption(format);
    for (const e of exports) await save(e);
  }
  // The stamp (table, snapshot, metadata file) is the same on every tab: the growth chart's.
  await save('save-png');
  await save('save-svg');
  const markdown = await page.locator('[data-testid="markdown"]').inputValue();
  assert.ok(markdown.includes('scope_ns'), 'the Markdown summary names the table');
  saved.push({ what: 'markdown', bytes: Buffer.from(markdown ?? '') });
  assert.ok(saved.length >= exports.length * 2 + 2, `${saved.length} files saved`);
  for (const f of saved) {
    assert.ok(!f.bytes.includes(Buffer.from(secret)), `a secret is in the saved ${f.what}`);
    assert.ok(!f.bytes.toString('latin1').toLowerCase().includes('bearer '), `a token is in the saved ${f.what}`);
  }
}

async function assertNoSecrets(p, secrets, typedInto = []) {
  const { page } = p;
  const dump = await inPage(page, (typedInto) => ({
    innerText: document.body.innerText,
    textContent: document.documentElement.textContent,
    html: document.documentElement.outerHTML,
    title: document.title,
    href: location.href,
    values: [...document.querySelectorAll('input, textarea, select')]
      .filter((e) => !typedInto.includes(e.getAttribute('data-testid')))
      .map((e) => `${e.getAttribute('data-testid')}=${e.value}`),
    local: Object.entries(localStorage),
    session: Object.entries(sessionStorage),
  }), typedInto, 'reading the page for secrets');
  for (const s of secrets) {
    for (const where of ['innerText', 'textContent', 'html', 'title', 'href']) {
      assert.ok(!dump[where].includes(s), `a secret appears in the page's ${where}`);
    }
    assert.ok(!page.url().includes(s), `a secret appears in the URL bar: ${page.url()}`);
    assert.deepEqual(dump.values.filter((v) => v.includes(s)), [], 'a secret appears in another form field');
    assert.deepEqual(dump.local.filter(([k, v]) => k.includes(s) || v.includes(s)).map(([k]) => k), [], 'a secret is in localStorage');
    assert.deepEqual(dump.session.filter(([k, v]) => k.includes(s) || v.includes(s)).map(([k]) => k), [], 'a secret is in sessionStorage');
    assert.deepEqual(p.console.filter((m) => m.includes(s)), [], 'a secret appears in a console message');
    assert.deepEqual(p.requests.filter((u) => u.includes(s)), [], 'a secret appears in a request URL');
  }
  return dump;
}

// ---------------------------------------------------------------- the tests

test('the server under test: PyIceberg wrote every table and the damage took', () => {
  assert.ok(facts.tables['scope_ns.events'], 'no scope_ns.events in the facts');
  for (const [name, t] of Object.entries(facts.tables)) {
    assert.ok(t.snapshots.length > 0, `${name}: no snapshots`);
    for (const s of t.snapshots) {
      assert.ok(Number.isInteger(s.total_data_files) && Number.isInteger(s.total_records), `${name} ${s.snapshot_id}: no totals in the summary`);
    }
  }
  const d = facts.damaged;
  assert.equal(d.deleted_get_status, 404, 'S3 must answer 404 for the deleted manifest');
  assert.ok(d.broken_snapshot_ids.length > 0 && d.intact_snapshot_ids.length > 0, 'the damage must split the snapshots');
});

test('OAuth2: the listing equals PyIceberg (nested namespace too) and scope_ns.events opens with its numbers', { timeout: 180000 }, async (t) => {
  const p = await freshPage();
  const { page, errors } = p;
  try {
    await screenshotOnFailure(page, 'catalog-oauth2', async () => {
      const e0 = await connect(page, form(), errors);
      assert.deepEqual(await loadErrors(page), [], 'load-error after connecting');
      const listing = await readListing(page);
      assert.deepEqual(listing, expectedListing(), 'namespaces / tables listed vs PyIceberg');
      if (facts.nested_namespaces) assert.ok(listing.namespaces.includes('scope_ns.inner'), 'the nested namespace is listed');
      await shot(page, 'listing');

      const events = facts.tables['scope_ns.events'];
      assert.equal(await openTable(page, 'scope_ns.events'), 'ready', `load-errors: ${JSON.stringify(await loadErrors(page))}`);
      const view = await readTableView(page);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'catalog-events.png') });
      assertMatchesPyIceberg(view, events);
      assert.deepEqual(view.loadErrors, [], 'load-error while opening scope_ns.events');
      assert.equal(await page.locator(sel.progress).count(), 0, 'progress still shown when ready');
      assert.deepEqual(errors.all.slice(e0), [], 'page or console errors since Connect');
      await assertNoSecrets(p, [facts.secret], ['catalog-client-secret', 's3-secret-access-key']);
      await assertNoSecretsInDownloads(page, facts.secret);

      // The page now allows connections only to itself, the catalog and the S3 endpoint: the
      // browser refuses any other host, whatever the code asks.
      const policy = await page.locator('meta[data-testid="narrowed-csp"]').getAttribute('content');
      const origin = (u) => new URL(u).origin;
      const expected = [...new Set([origin(proxied()), origin(form().s3Endpoint)])].sort();
      assert.equal(policy, `connect-src 'self' ${expected.join(' ')}`);
      const elsewhere = await page.evaluate(async () => {
        const seen = [];
        // The refusal's violation event is waited for, not a time.
        const said = new Promise((r) => document.addEventListener('securitypolicyviolation', (e) => { seen.push(`${e.effectiveDirective} ${e.blockedURI}`); r(); }));
        let outcome;
        try { await fetch('http://127.0.0.2:9/x'); outcome = 'fetched'; } catch (e) { outcome = 'refused'; }
        if (outcome === 'refused') await said;
        return { outcome, seen };
      });
      assert.equal(elsewhere.outcome, 'refused');
      assert.deepEqual(elsewhere.seen, ['connect-src http://127.0.0.2:9/x']);

      // The permalink names the catalog, its non-secret settings and the table; opened in a fresh
      // profile it fills the form, asks for the secrets and, once connected, opens the table.
      const link = page.url();
      const hash = Object.fromEntries(new URLSearchParams(new URL(link).hash.slice(1)));
      assert.equal(hash.catalog, proxied());
      assert.equal(hash.table, 'scope_ns.events');
      assert.equal(hash.client_id, facts.key);
      assert.equal(hash.s3_endpoint, form().s3Endpoint);
      for (const v of Object.values(hash)) assert.ok(!v.includes(facts.secret), 'a secret in the permalink');
      const q = await freshPage();
      try {
        await q.page.goto(link, { waitUntil: 'load' });
        await q.page.locator('[data-testid="link-hint"]').waitFor();
        assert.match(await q.page.locator('[data-testid="link-hint"]').textContent(), /scope_ns\.events/);
        assert.equal(await q.page.locator(cs.uri).inputValue(), proxied());
        assert.equal(await q.page.locator(cs.clientId).inputValue(), facts.key);
        assert.equal(await q.page.locator(cs.clientSecret).inputValue(), '', 'a secret came with the link');
        assert.equal(await q.page.locator(cs.s3SecretAccessKey).inputValue(), '', 'a secret came with the link');
        await q.page.locator(cs.clientSecret).fill(facts.secret);
        await q.page.locator(cs.s3AccessKeyId).fill(facts.key);
        await q.page.locator(cs.s3SecretAccessKey).fill(facts.secret);
        await q.page.locator(cs.connect).click();
        await waitReady(q.page, q.errors);
        assertMatchesPyIceberg(await readTableView(q.page), events);
        assert.equal(Object.fromEntries(new URLSearchParams(new URL(q.page.url()).hash.slice(1))).table, 'scope_ns.events');
        await assertNoSecrets(q, [facts.secret], ['catalog-client-secret', 's3-secret-access-key']);
      } finally {
        await q.context.close();
      }
    });
  } finally {
    await p.context.close();
  }
});

test('wrong client secret: 401, the token URL and the credential are named; the secret is nowhere', { timeout: 120000 }, async (t) => {
  const p = await freshPage();
  const { page, errors } = p;
  try {
    await screenshotOnFailure(page, 'catalog-bad-secret', async () => {
      await connect(page, form({ clientSecret: WRONG_CLIENT_SECRET }), errors);
      await settled(page); // every task the connect started has ended: no late message can come
      const errs = await loadErrors(page);
      await shot(page, 'bad-secret');
      assert.equal(await page.locator(cs.tables).count(), 0, 'tables listed with a wrong secret');
      const tokenUrl = `${proxied()}/v1/oauth/tokens`;
      const hit = errs.find((e) => e.includes('401') && e.includes(tokenUrl) && /credential/i.test(e));
      assert.ok(hit, `a load-error with 401, ${tokenUrl} and "credential"; got ${JSON.stringify(errs)}`);
      t.diagnostic(`shown: ${hit}`);
      assert.ok(hit.includes(`\`${facts.key}\``), `the error names the client id \`${facts.key}\`: ${hit}`);
      const dump = await assertNoSecrets(p, [WRONG_CLIENT_SECRET, facts.secret], ['catalog-client-secret', 's3-secret-access-key']);
      assert.equal(dump.local.find(([k]) => k === 'icescope.catalog'), undefined, 'form saved to localStorage with "remember" unticked');
      // The control: ticked, the form is kept under that key (so "absent" above is not vacuous).
      await page.locator(cs.remember).setChecked(true);
      await page.locator(cs.connect).click();
      await page.waitForFunction(() => localStorage.getItem('icescope.catalog') !== null, null, { timeout: TIMEOUT_MS });
      // Remembered: the settings, never a secret.
      const saved = JSON.parse(await page.evaluate(() => localStorage.getItem('icescope.catalog')));
      assert.equal(saved.client_id, facts.key, 'the remembered form keeps the client id');
      assert.equal(saved.uri, proxied(), 'the remembered form keeps the catalog URI');
      for (const s of [WRONG_CLIENT_SECRET, facts.secret]) {
        assert.ok(!JSON.stringify(saved).includes(s), 'a secret was stored by "remember"');
      }
      assert.deepEqual(errors.pageErrors, [], 'page errors');
      assert.deepEqual(errors.panics(), [], 'panics');
    });
  } finally {
    await p.context.close();
  }
});

test('a deleted manifest: the table opens, the error names the file and 404, earlier snapshots keep their counts', { timeout: 180000 }, async (t) => {
  const p = await freshPage();
  const { page, errors } = p;
  const d = facts.damaged;
  const table = facts.tables[d.table];
  try {
    await screenshotOnFailure(page, 'catalog-damaged', async () => {
      await connect(page, form(), errors);
      assert.equal(await openTable(page, d.table), 'ready', `load-errors: ${JSON.stringify(await loadErrors(page))}`);
      const view = await readTableView(page);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'catalog-damaged.png'), fullPage: true });
      const hit = view.loadErrors.find((e) => e.includes(d.deleted_manifest_name) && e.includes('404'));
      assert.ok(hit, `a load-error naming ${d.deleted_manifest_name} and 404; got ${JSON.stringify(view.loadErrors)}`);
      t.diagnostic(`shown: ${hit}`);
      assertMatchesPyIceberg(view, table, d.intact_snapshot_ids);
      for (const id of d.broken_snapshot_ids) {
        const r = view.rows.find((x) => x.id === id);
        const stated = table.snapshots.find((s) => s.snapshot_id === id);
        // Not a partial count passed off as counted: the manifest list's own rows, marked as such.
        assert.equal(r.countsFrom, 'manifest list', `snapshot ${id} lists the deleted manifest: its numbers must say where they come from`);
        assert.equal(r.dataFiles, String(stated.total_data_files), `snapshot ${id}: data files as its summary states`);
        assert.equal(r.records, String(stated.total_records), `snapshot ${id}: records as its summary states`);
      }
      for (const id of d.intact_snapshot_ids) {
        assert.equal(view.rows.find((x) => x.id === id).countsFrom, 'manifests', `snapshot ${id}: every manifest is there`);
      }
      assert.deepEqual(errors.pageErrors, [], 'page errors');
      assert.deepEqual(errors.panics(), [], 'panics');
    });
  } finally {
    await p.context.close();
  }
});

test('a catalog without CORS (no proxy, another origin): the error says CORS and names the origin to allow', { timeout: 120000 }, async (t) => {
  const p = await freshPage();
  const { page, errors } = p;
  try {
    await screenshotOnFailure(page, 'catalog-cors', async () => {
      await connect(page, form({ uri: facts.catalog_uri }), errors);
      const errs = await loadErrors(page);
      await shot(page, 'cors');
      assert.equal(await page.locator(cs.tables).count(), 0, 'tables listed through a CORS-less catalog');
      const hit = errs.find((e) => e.includes('CORS') && e.includes(appOrigin()));
      assert.ok(hit, `a load-error with "CORS" and the page origin ${appOrigin()}; got ${JSON.stringify(errs)}`);
      t.diagnostic(`shown: ${hit}`);
      assert.ok(hit.includes(facts.catalog_uri), `the error names the catalog ${facts.catalog_uri}: ${hit}`);
      assert.deepEqual(errors.pageErrors, [], 'page errors');
      assert.deepEqual(errors.panics(), [], 'panics');
    });
  } finally {
    await p.context.close();
  }
});

/** A loopback HTTP server; `requests` lists every request it got ("METHOD path"). */
async function loopback(handle) {
  const requests = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    handle(req, res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, requests, close: () => new Promise((r) => server.close(r)) };
}

/** CORS headers that let the app's origin read a loopback server's answers. */
const cors = (req) => ({
  'Access-Control-Allow-Origin': req.headers.origin || '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] || '*',
});

/** A loopback server the page may call: preflights answered, every other request handed to `handle`. */
const browsable = (handle) => loopback((req, res) => {
  if (req.method === 'OPTIONS') {
    res.writeHead(204, cors(req));
    return res.end();
  }
  handle(req, res);
});

test('a catalog that redirects to a host nobody named: not followed, the error says so, nothing reaches that host', { timeout: 120000 }, async (t) => {
  // Would answer as a catalog does, so that a followed redirect would list tables.
  const elsewhere = await loopback((req, res) => {
    res.writeHead(200, { ...cors(req), 'Content-Type': 'application/json' });
    res.end(req.method === 'OPTIONS' ? '' : JSON.stringify({ defaults: {}, overrides: {}, namespaces: [] }));
  });
  const named = await browsable((req, res) => {
    res.writeHead(302, { ...cors(req), Location: `${elsewhere.url}${req.url}` });
    res.end();
  });
  const p = await freshPage();
  const { page, errors } = p;
  try {
    await screenshotOnFailure(page, 'catalog-redirect', async () => {
      await connect(page, form({ uri: named.url, auth: 'token', token: 'tok-redirect-5521' }), errors);
      const errs = await loadErrors(page);
      await shot(page, 'redirect');
      assert.equal(await page.locator(cs.tables).count(), 0, 'tables listed through a redirect');
      const hit = errs.find((e) => e.includes(`${named.url}/v1/config`) && e.includes('redirect; not followed'));
      assert.ok(hit, `a load-error naming ${named.url}/v1/config and the refused redirect; got ${JSON.stringify(errs)}`);
      t.diagnostic(`shown: ${hit}`);
      assert.ok(named.requests.some((r) => r.startsWith('GET /v1/config')), `the named catalog was asked: ${named.requests}`);
      // The server's own log, not the page's: DevTools lists a refused redirect's target as a request.
      assert.deepEqual(elsewhere.requests, [], 'a request reached a host nobody named');
      assert.deepEqual(errors.pageErrors, [], 'page errors');
      assert.deepEqual(errors.panics(), [], 'panics');
    });
  } finally {
    await p.context.close();
    await named.close();
    await elsewhere.close();
  }
});

test('a catalog that nests namespaces without end and repeats a page token: listed to the bound, and the page says what is missing', { timeout: 120000 }, async (t) => {
  // Every namespace has a child one level deeper; every table page points at itself again.
  const hostile = await browsable((req, res) => {
    const url = new URL(req.url, 'http://x');
    const parent = url.searchParams.get('parent');
    const depth = parent === null ? 0 : parent.split('\x1f').length;
    const body = url.pathname === '/v1/config' ? { defaults: {}, overrides: {} }
      : url.pathname.endsWith('/tables') ? { identifiers: [{ namespace: [], name: 'events' }], 'next-page-token': 'same' }
      : { namespaces: [Array.from({ length: depth + 1 }, (_, i) => `n${i}`)] };
    res.writeHead(200, { ...cors(req), 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  const p = await freshPage();
  const { page, errors } = p;
  try {
    await screenshotOnFailure(page, 'catalog-incomplete', async () => {
      await connect(page, form({ uri: hostile.url, auth: 'token', token: 'tok-incomplete-7731' }), errors);
      await page.locator(cs.tables).waitFor({ timeout: 60000 });
      const notes = await page.getByTestId('catalog-incomplete').locator('li').allTextContents();
      await shot(page, 'incomplete');
      assert.deepEqual(notes, [
        '1 namespace nested deeper than 32 levels not listed',
        'the catalog answered a page token with the same next-page-token (32 times); those lists end at that page',
        '32 table names listed more than once in a namespace, shown once',
      ]);
      assert.equal(await page.getByTestId('namespace').count(), 32);
      assert.equal(await page.locator(cs.tables).locator('.hint').first().textContent(), '32 namespaces, 32 tables (incomplete)');
      // config, the top level, and for each of 32 namespaces: its children and two table pages.
      assert.equal(hostile.requests.filter((r) => r.startsWith('GET ')).length, 2 + 3 * 32);
      assert.deepEqual(errors.pageErrors, [], 'page errors');
      assert.deepEqual(errors.panics(), [], 'panics');
    });
  } finally {
    await p.context.close();
    await hostile.close();
  }
});

test('a catalog that answers without end, or stalls: refused at 512 MiB, given up after 60 s without a byte, and the tab lives', { timeout: 240000 }, async (t) => {
  let sent = 0;
  const chunk = Buffer.alloc(1 << 20, 0x20);
  const endless = await browsable((req, res) => {
    res.writeHead(200, { ...cors(req), 'Content-Type': 'application/json' });
    const pump = () => {
      while (sent < 2 ** 31) {
        sent += chunk.length;
        if (!res.write(chunk)) return res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => { sent = Math.max(sent, 0); });
    pump();
  });
  // Sends its headers and one byte, then nothing.
  const stalled = await browsable((req, res) => {
    res.writeHead(200, { ...cors(req), 'Content-Type': 'application/json' });
    res.write('{');
  });
  const p = await freshPage();
  const { page, errors } = p;
  try {
    await screenshotOnFailure(page, 'catalog-endless', async () => {
      await connect(page, form({ uri: endless.url, auth: 'token', token: 'tok-endless-3301' }), errors);
      const errs = await loadErrors(page);
      const hit = errs.find((e) => e.includes(`${endless.url}/v1/config`) && e.includes('the response went on past that; icescope reads at most 512 MiB of one response'));
      assert.ok(hit, `an error naming the config URL and the bound; got ${JSON.stringify(errs)}`);
      t.diagnostic(`shown: ${hit}; the server wrote ${sent >> 20} MiB`);
      assert.ok(sent < 2 ** 31, `the tab read on past the bound: ${sent} bytes written`);
      assert.deepEqual(errors.pageErrors, [], 'page errors');
      assert.deepEqual(errors.panics(), [], 'panics');
    });
    await screenshotOnFailure(page, 'catalog-stalled', async () => {
      const started = Date.now();
      await connect(page, form({ uri: stalled.url, auth: 'token', token: 'tok-stalled-3302' }), errors, 120000);
      const errs = await loadErrors(page);
      await shot(page, 'stalled');
      const hit = errs.find((e) => e.includes(`${stalled.url}/v1/config`) && e.includes('nothing arrived for 60 s; gave up'));
      assert.ok(hit, `an error naming the config URL and the 60 s; got ${JSON.stringify(errs)}`);
      t.diagnostic(`shown after ${Math.round((Date.now() - started) / 1000)} s: ${hit}`);
      assert.deepEqual(errors.pageErrors, [], 'page errors');
      assert.deepEqual(errors.panics(), [], 'panics');
    });
  } finally {
    await p.context.close();
    await endless.close();
    await stalled.close();
  }
});

test('wrong S3 secret: 403 and the object URL are shown; the secret is nowhere', { timeout: 120000 }, async (t) => {
  const p = await freshPage();
  const { page, errors } = p;
  const [bucket, key] = facts.tables['scope_ns.events'].metadata_location.replace(/^s3:\/\//, '').split(/\/(.*)/s);
  const objectUrl = `${facts.s3_endpoint}/${bucket}/${key}`; // path-style
  try {
    await screenshotOnFailure(page, 'catalog-s3-403', async () => {
      await connect(page, form({ s3SecretAccessKey: WRONG_S3_SECRET }), errors);
      assert.deepEqual(await loadErrors(page), [], 'the catalog itself accepts the right client secret');
      await openTable(page, 'scope_ns.events');
      const errs = await loadErrors(page);
      await shot(page, 's3-403');
      const hit = errs.find((e) => e.includes('403') && e.includes(objectUrl));
      assert.ok(hit, `a load-error with 403 and ${objectUrl}; got ${JSON.stringify(errs)}`);
      t.diagnostic(`shown: ${hit}`);
      await assertNoSecrets(p, [WRONG_S3_SECRET, facts.secret], ['catalog-client-secret', 's3-secret-access-key']);
      assert.deepEqual(errors.pageErrors, [], 'page errors');
      assert.deepEqual(errors.panics(), [], 'panics');
    });
  } finally {
    await p.context.close();
  }
});

test('bearer token: a token from the catalog lists the same tables and opens the nested one', { timeout: 180000 }, async (t) => {
  const r = await fetch(facts.token_url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: facts.key, client_secret: facts.secret, scope: facts.scope }),
  });
  assert.equal(r.status, 200, `POST ${facts.token_url}`);
  const token = (await r.json()).access_token;
  assert.ok(token, 'no access_token');
  const p = await freshPage();
  const { page, errors } = p;
  try {
    await screenshotOnFailure(page, 'catalog-token', async () => {
      const e0 = await connect(page, form({ auth: 'token', token }), errors);
      assert.deepEqual(await loadErrors(page), [], 'load-error after connecting with a token');
      assert.deepEqual(await readListing(page), expectedListing(), 'namespaces / tables listed vs PyIceberg');
      await shot(page, 'token');
      const nested = Object.keys(facts.tables).find((n) => n.split('.').length > 2);
      if (nested) {
        assert.equal(await openTable(page, nested), 'ready', `load-errors: ${JSON.stringify(await loadErrors(page))}`);
        const view = await readTableView(page);
        assertMatchesPyIceberg(view, facts.tables[nested]);
        assert.deepEqual(view.loadErrors, [], `load-error while opening ${nested}`);
      }
      assert.deepEqual(errors.all.slice(e0), [], 'page or console errors since Connect');
      await assertNoSecrets(p, [token, facts.secret], ['catalog-token', 's3-secret-access-key']);
    });
  } finally {
    await p.context.close();
  }
});

/** Open the app, fill the object store fields, type a location and press Open. */
async function openLocation(page, errors, location, link = null) {
  await page.goto(link ?? app.url, { waitUntil: 'load' });
  await page.locator(cs.panel).waitFor({ state: 'attached' });
  if (!(await page.locator(cs.panel).evaluate((d) => d.open))) await page.locator(cs.summary).click();
  const f = form();
  await page.locator(cs.s3Endpoint).fill(f.s3Endpoint);
  await page.locator(cs.s3Region).fill(f.s3Region);
  await page.locator(cs.s3AccessKeyId).fill(f.s3AccessKeyId);
  await page.locator(cs.s3SecretAccessKey).fill(f.s3SecretAccessKey);
  await page.locator(cs.s3PathStyle).setChecked(f.pathStyle);
  if (location !== null) await page.locator('[data-testid="location"]').fill(location);
  const typed = await page.locator('[data-testid="location"]').inputValue();
  await page.locator('[data-testid="location-open"]').click();
  await waitReady(page, errors);
  return typed;
}

test('a location: s3:// metadata.json and the table folder (listed) open with PyIceberg\'s numbers; the link carries the location, no secret', { timeout: 180000 }, async () => {
  const events = facts.tables['scope_ns.events'];
  const p = await freshPage();
  const { page, errors } = p;
  try {
    await screenshotOnFailure(page, 'catalog-location', async () => {
      await openLocation(page, errors, events.metadata_location);
      assertMatchesPyIceberg(await readTableView(page), events);
      assert.deepEqual(await page.locator(sel.loadError).allTextContents(), [], 'load-error');
      const link = page.url();
      const hash = Object.fromEntries(new URLSearchParams(new URL(link).hash.slice(1)));
      assert.equal(hash.url, events.metadata_location);
      assert.equal(hash.s3_endpoint, form().s3Endpoint);
      assert.equal(hash.catalog, undefined, 'no catalog was used');
      await assertNoSecrets(p, [facts.secret], ['s3-secret-access-key']);
      // Only the S3 endpoint (and the page itself) may be reached from now on.
      const policy = await page.locator('meta[data-testid="narrowed-csp"]').getAttribute('content');
      assert.equal(policy, `connect-src 'self' ${new URL(form().s3Endpoint).origin}`);

      // The table's folder: listed (ListObjectsV2), the newest metadata picked, as a dropped folder's.
      const q = await freshPage();
      try {
        await openLocation(q.page, q.errors, `${events.location}/`);
        assertMatchesPyIceberg(await readTableView(q.page), events);
        assert.equal(await q.page.locator('[data-testid="metadata-file"], [data-testid="metadata-picker"]').first().evaluate((e) => e.value ?? e.textContent),
          events.metadata_location, 'the newest metadata file, as the catalog names it');
      } finally {
        await q.context.close();
      }

      // The link in a fresh profile: the location and endpoint filled, the keys asked for.
      const r = await freshPage();
      try {
        assert.equal(await openLocation(r.page, r.errors, null, link), events.metadata_location, 'the location filled from the link');
        assertMatchesPyIceberg(await readTableView(r.page), events);
      } finally {
        await r.context.close();
      }
    });
  } finally {
    await p.context.close();
  }
});

test('savepoints on the table\'s store: the lab\'s savepoint-resume table and Flink\'s savepoints, opened by location, judged as the CLI judges the local copies', { timeout: 180000 }, async () => {
  const lab = facts.lab.savepoint_resume;
  const { execFileSync } = await import('node:child_process');
  const { parseJsonBig } = await import('./lib/iceberg.mjs');
  const local = (...p) => path.join(REPO, 'tests', ...p);
  const expected = parseJsonBig(execFileSync(cliPath(), ['savepoint', local('savepoints', 'savepoint-resume'), '--table', local('fixtures', 'savepoint-resume'),
    '--metadata', lab.metadata_file, '--format', 'json'], { encoding: 'utf8', cwd: REPO })).savepoints;
  const p = await freshPage();
  const { page, errors } = p;
  try {
    await screenshotOnFailure(page, 'catalog-savepoints-on-store', async () => {
      await openLocation(page, errors, lab.metadata_location);
      await page.locator('[data-testid="savepoint-location"]').fill(lab.savepoints);
      await page.locator('[data-testid="savepoint-location-read"]').click();
      await page.locator(`[data-testid="resume-panel"][data-savepoints="${expected.length}"]`).waitFor({ timeout: TIMEOUT_MS });
      const rows = await page.locator('[data-testid="savepoint-row"]').evaluateAll((els) => els.map((e) => ({
        path: e.dataset.path, kind: e.dataset.kind, checkpoint: e.dataset.checkpoint, job: e.dataset.jobId, rows: e.dataset.rowsAfter })));
      assert.deepEqual(rows.map((r) => r.path.split('/').at(-2)), expected.map((e) => e.savepoint.path.split('/').at(-2)), 'the same savepoints, newest first');
      rows.forEach((r, i) => {
        const e = expected[i];
        assert.ok(r.path.startsWith(lab.savepoints), r.path);
        assert.deepEqual({ kind: r.kind, checkpoint: r.checkpoint, job: r.job, rows: r.rows },
          { kind: e.verdict.kind, checkpoint: String(e.savepoint.checkpoint_id), job: e.committer.job_id, rows: e.verdict.rows_committed_after == null ? '' : String(e.verdict.rows_committed_after) }, r.path);
      });
      assert.deepEqual(errors.all, [], 'page or console errors');
      await assertNoSecrets(p, [facts.secret], ['s3-secret-access-key']);
    });
  } finally {
    await p.context.close();
  }
});
