// The decoder worker: Parquet and Puffin decoding runs off the page (bin/icescope-decoder), so a
// panic in the `parquet` crate ends the worker, not the app. The table is a real one (PyIceberg's
// add_files, tests/fuzz/make_known_tables.py) whose one data file is the fuzz-found page that
// panicked the crate (tests/fuzz/known/parquet-definition-levels-panic.parquet).
//
// By default the pre-validation (decode/parquet_levels.rs) refuses the page before the crate sees
// it. With the test switch `?decoders=unchecked` the worker skips it: the crate really panics (the
// same bytes natively: tests/decode_jobs.rs), the worker ends, the app names the file, keeps the
// report, starts a fresh worker and the next action works.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, waitReady, sel, REPO, screenshotOnFailure, SCREENSHOT_DIR, TIMEOUT_MS } from './lib/harness.mjs';

const TABLE = path.join(REPO, 'tests', 'fuzz', 'known-tables', 'parquet-definition-levels-panic');
const KEY = 'existing_data_files';

let target;
let browser;

before(async () => {
  target = await appTarget();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await target?.close();
});

/** The table copied to a fresh folder (its data file's bytes replaced by `data`, when given),
 * picked in the app; what the report shows once ready. */
async function pick(page, errors, query, data) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'icescope-worker-'));
  const folder = path.join(dir, 'panic-table');
  fs.cpSync(TABLE, folder, { recursive: true });
  if (data) fs.writeFileSync(path.join(folder, 'data', 'part-00000.parquet'), data);
  await openGallery(page, `${target.url}${query}`);
  await page.locator(sel.folderInput).setInputFiles(folder);
  await waitReady(page, errors);
  return { dir, shown: await report(page) };
}

/** Waits (up to 10 s) until `ok()` holds. */
async function waitFor(ok, what) {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(ok(), what);
}

async function report(page) {
  return {
    count: (await page.locator(sel.count).first().textContent()).trim(),
    rows: await page.locator(sel.row).count(),
    charts: await page.locator(sel.chart).count(),
    findings: await page.locator('[data-testid="findings"]').count(),
    ready: await page.locator(sel.ready).count(),
  };
}

async function countDuplicates(page) {
  const panel = page.locator('[data-testid="duplicates-panel"]');
  if (!(await panel.getAttribute('open').then((v) => v !== null))) await panel.locator('> summary').click();
  await page.locator('[data-testid="duplicate-keys"]').fill(KEY);
  await page.locator('[data-testid="count-duplicates"]').click();
  const out = page.locator('[data-testid="duplicates-error"], [data-testid="duplicates-result"]').first();
  await out.waitFor({ timeout: TIMEOUT_MS * 2 });
  return { error: await page.locator('[data-testid="duplicates-error"]').allTextContents() };
}

async function checkFooters(page) {
  const panel = page.locator('[data-testid="footers-panel"]');
  if (!(await panel.getAttribute('open').then((v) => v !== null))) await panel.locator('> summary').click();
  await page.locator('[data-testid="check-footers"]').click();
  await page.locator('[data-testid="footers-result"], [data-testid="footers-error"]').first().waitFor({ timeout: TIMEOUT_MS * 2 });
  assert.deepEqual(await page.locator('[data-testid="footers-error"]').allTextContents(), [], 'no footers error');
  const r = page.locator('[data-testid="footers-result"]');
  return { files: Number(await r.getAttribute('data-files')), read: Number(await r.getAttribute('data-footers-read')), unreadable: Number(await r.getAttribute('data-unreadable')) };
}

test('a page that panics the parquet crate ends the decoder worker, not the app: the file is named, the report stays, the next action works', { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  let dir;
  try {
    await screenshotOnFailure(page, 'worker-panic', async () => {
      const picked = await pick(page, errors, '?decoders=unchecked');
      dir = picked.dir;
      assert.deepEqual([picked.shown.ready, picked.shown.rows > 0, picked.shown.charts > 0], [1, true, true], JSON.stringify(picked.shown));
      // The page runs a worker per core, two at most (decoder.rs POOL).
      const pool = await page.evaluate(() => Math.min(navigator.hardwareConcurrency, 2));
      assert.equal(workers.length, pool, 'the metadata.json was decoded in a worker of the pool');

      const { error } = await countDuplicates(page);
      assert.equal(error.length, 1, 'one error');
      assert.match(error[0], /parquet-definition-levels-panic\/data\/part-00000\.parquet: the decoder stopped on this file: it panicked: .*panicked at/);
      assert.match(error[0], /a fresh decoder takes the next file/);
      await waitFor(() => workers.length === pool + 1, 'a fresh worker takes the stopped one\'s place');
      assert.ok(workers.every((w) => w.endsWith('/icescope-decoder_loader.js')), workers.join());

      // The app is still up, with the report it had.
      assert.equal(await page.locator('[data-testid="stopped-banner"]').count(), 0, 'no stopped banner');
      assert.deepEqual(await report(page), picked.shown, 'the report is as it was');
      assert.deepEqual(errors.pageErrors, [], 'the page itself raised nothing');

      // A fresh worker reads the footer (well-formed: only a page is hostile).
      assert.deepEqual(await checkFooters(page), { files: 1, read: 1, unreadable: 0 });
      assert.equal(workers.length, pool + 1, 'no other worker was started');
      assert.equal(await page.locator('[data-testid="footer-row"]').count(), 1);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'worker-panic.png') });
    });
  } finally {
    await context.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('by default the pre-validation refuses the same page in the worker, naming file, column and page', { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  let dir;
  try {
    await screenshotOnFailure(page, 'worker-checked', async () => {
      const picked = await pick(page, errors, '');
      dir = picked.dir;
      const { error } = await countDuplicates(page);
      assert.equal(error.length, 1);
      assert.match(error[0], /parquet-definition-levels-panic\/data\/part-00000\.parquet: field `page_header`: row group 0 column `existing_data_files`: page 1 at byte 530: definition levels: a bit-packed run at byte 0 holds 14 values in 2 bytes with 0 left/);
      assert.deepEqual(await checkFooters(page), { files: 1, read: 1, unreadable: 0 });
      assert.equal(workers.length, await page.evaluate(() => Math.min(navigator.hardwareConcurrency, 2)), 'the pool, never restarted');
      assert.deepEqual(errors.panics(), [], 'no panic anywhere');
      assert.deepEqual(await report(page), picked.shown);
    });
  } finally {
    await context.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a footer that keeps the parquet crate busy (a fuzz-found hang) is given up after its allowance: the worker is ended, the file named, a fresh worker reads on', { timeout: 120000 }, async () => {
  // tests/fuzz/known/parquet-footer-typed-field-timeout.bin as a data file's footer: the
  // pre-validation refuses it at once; without it the crate skips for seconds (3 s natively,
  // more in wasm). That file's allowance, and only its, is set to 1 s by the test switches
  // `decoder-ms` and `decoder-ms-for`.
  const footer = fs.readFileSync(path.join(REPO, 'tests', 'fuzz', 'known', 'parquet-footer-typed-field-timeout.bin'));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(footer.length);
  const file = Buffer.concat([Buffer.from('PAR1'), footer, len, Buffer.from('PAR1')]);
  const { context, page, errors } = await newPage(browser);
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  let dir;
  try {
    await screenshotOnFailure(page, 'worker-hang', async () => {
      const picked = await pick(page, errors, '?decoders=unchecked&decoder-ms=1000&decoder-ms-for=part-00000.parquet', file);
      dir = picked.dir;
      const started = Date.now();
      const r = await checkFooters(page);
      assert.deepEqual([r.files, r.read, r.unreadable], [1, 0, 1], JSON.stringify(r));
      const row = (await page.locator('[data-testid="footer-row"]').first().textContent()).trim();
      assert.match(row, /parquet-definition-levels-panic\/data\/part-00000\.parquet: the decoder stopped on this file: no answer within 1 s; a fresh decoder takes the next file/);
      assert.ok(Date.now() - started < 30000, 'given up after its allowance, not after the crate finished');
      const pool = await page.evaluate(() => Math.min(navigator.hardwareConcurrency, 2));
      await waitFor(() => workers.length === pool + 1, 'a fresh worker takes the ended one\'s place');
      // The next job goes to the pool, whole again: the table's older metadata file, opened in the picker.
      const picker = page.locator('[data-testid="metadata-picker"]');
      const options = await picker.locator('option').evaluateAll((os) => os.map((o) => o.value));
      const current = await picker.inputValue();
      await picker.selectOption(options.find((o) => o !== current));
      await waitReady(page, errors);
      assert.equal(workers.length, pool + 1, 'the pool decoded the older metadata file, no other worker started');
      assert.notEqual((await page.locator(sel.count).first().textContent()).trim(), picked.shown.count, 'the table before its first snapshot');
      assert.deepEqual(await page.locator(sel.loadError).allTextContents(), []);
      assert.equal(await page.locator('[data-testid="stopped-banner"]').count(), 0);
      assert.deepEqual(errors.pageErrors, []);
    });
  } finally {
    await context.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
});
