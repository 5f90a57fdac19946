// "Check footers" in the browser, on the lab's savepoint-twice fixture: served beside the app (HTTP
// Range requests only, a fraction of the files' bytes) and picked as a folder (File.slice). Every
// live Parquet file's footer is read; the files, rows and bytes are Spark's (facts.json
// `files_by_partition`), never typed; no manifest disagrees with its file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, waitReady, screenshotOnFailure, sel, REPO, TIMEOUT_MS } from './lib/harness.mjs';

const NAME = 'savepoint-twice';
const DIR = path.join(REPO, 'tests', 'fixtures', NAME);
const facts = JSON.parse(fs.readFileSync(path.join(DIR, 'facts.json'), 'utf8'));
const spark = facts.final_table.files_by_partition.filter((p) => p.content === 'data');
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

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

async function checkFooters(page) {
  await page.locator('[data-testid="footers-panel"] > summary').click();
  await page.locator('[data-testid="check-footers"]').click();
  await page.locator('[data-testid="footers-result"], [data-testid="footers-error"]').first().waitFor({ timeout: TIMEOUT_MS * 2 });
  assert.deepEqual(await page.locator('[data-testid="footers-error"]').allTextContents(), [], 'no error');
  const r = page.locator('[data-testid="footers-result"]');
  const attr = async (k) => Number(await r.getAttribute(`data-${k}`));
  const rows = await page.locator('[data-testid="footer-row"]').evaluateAll((trs) => trs.map((t) => ({
    path: t.dataset.path, manifest: Number(t.dataset.manifestRows), footer: Number(t.dataset.footerRows),
  })));
  return {
    files: await attr('files'), read: await attr('footers-read'), recordMismatches: await attr('record-mismatches'),
    sizeMismatches: await attr('size-mismatches'), unreadable: await attr('unreadable'), fetched: await attr('bytes-fetched'),
    inFiles: await attr('bytes-in-files'), rows,
  };
}

function assertSpark(got) {
  const files = sum(spark.map((p) => p.files));
  assert.deepEqual([got.files, got.read, got.recordMismatches, got.sizeMismatches, got.unreadable], [files, files, 0, 0, 0]);
  assert.equal(got.rows.length, files);
  // Rows from the footers themselves add up to Spark's count of the table.
  assert.equal(sum(got.rows.map((r) => r.footer)), facts.final_table.rows);
  assert.ok(got.rows.every((r) => r.footer === r.manifest));
  assert.equal(got.inFiles, sum(spark.map((p) => p.bytes)));
  assert.ok(got.fetched * 4 < got.inFiles, `${got.fetched} bytes fetched of ${got.inFiles}`);
}

test('served fixture: every footer read with HTTP Range requests only', { timeout: 180000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  const parquet = [];
  page.on('response', (r) => {
    if (r.url().endsWith('.parquet')) parquet.push({ status: r.status(), range: r.request().headers().range });
  });
  try {
    await screenshotOnFailure(page, 'footers-served', async () => {
      await openGallery(page, target.url);
      await page.locator(`${sel.card}[data-example="${NAME}"]`).click();
      await waitReady(page, errors);
      assert.equal(parquet.length, 0, 'opening a table reads no Parquet');
      assertSpark(await checkFooters(page));
      assert.ok(parquet.length > 0);
      assert.deepEqual(parquet.filter((r) => r.status !== 206 || !r.range), [], 'every Parquet read is a 206 answer to a Range request');
      await page.screenshot({ path: path.join(REPO, 'tests', 'out', 'screenshots', 'footers-served.png'), fullPage: false });
      assert.deepEqual(errors.panics(), [], 'wasm panic');
    });
  } finally {
    await context.close();
  }
});

test('picked folder: the same footers through File.slice', { timeout: 180000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'footers-folder', async () => {
      await openGallery(page, target.url);
      await page.locator(sel.folderInput).setInputFiles(DIR);
      await waitReady(page, errors);
      assertSpark(await checkFooters(page));
      assert.deepEqual(errors.panics(), [], 'wasm panic');
    });
  } finally {
    await context.close();
  }
});

test('format v3: every deletion vector checked against its Puffin footer, as Spark counted them', { timeout: 180000 }, async () => {
  const V3 = 'v3-deletion-vectors';
  const dv = JSON.parse(fs.readFileSync(path.join(REPO, 'tests', 'fixtures', V3, 'facts.json'), 'utf8')).deletion_vectors;
  const { context, page, errors } = await newPage(browser);
  const puffin = [];
  page.on('response', (r) => {
    if (r.url().endsWith('.puffin')) puffin.push({ status: r.status(), range: r.request().headers().range });
  });
  try {
    await screenshotOnFailure(page, 'footers-v3', async () => {
      await openGallery(page, target.url);
      await page.locator(`${sel.card}[data-example="${V3}"]`).click();
      await waitReady(page, errors);
      await page.locator('[data-testid="footers-panel"] > summary').click();
      await page.locator('[data-testid="check-footers"]').click();
      const v = page.locator('[data-testid="vectors-result"]');
      await v.waitFor({ timeout: TIMEOUT_MS * 2 });
      const attr = async (k) => Number(await v.getAttribute(`data-${k}`));
      assert.deepEqual(
        [await attr('vectors'), await attr('puffin-files'), await attr('puffin-footers-read'), await attr('mismatches'), await attr('unchecked')],
        [dv.live_deletion_vectors, dv.puffin_files, dv.puffin_files, 0, 0],
      );
      const rows = await page.locator('[data-testid="vector-row"]').evaluateAll((trs) => trs.map((t) => [Number(t.dataset.manifestCardinality), Number(t.dataset.footerCardinality)]));
      assert.equal(rows.length, dv.live_deletion_vectors);
      assert.ok(rows.every(([m, f]) => m === f));
      assert.equal(sum(rows.map(([, f]) => f)), dv.dv_cardinality_sum);
      // Two ranged reads per Puffin file (tail, footer), each a 206.
      assert.equal(puffin.length, 2 * dv.puffin_files);
      assert.deepEqual(puffin.filter((r) => r.status !== 206 || !r.range), []);
      await v.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(REPO, 'tests', 'out', 'screenshots', 'footers-v3.png'), fullPage: false });
      assert.deepEqual(errors.panics(), [], 'wasm panic');
    });
  } finally {
    await context.close();
  }
});
