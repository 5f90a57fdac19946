// "Count duplicates" in the browser, on the lab's savepoint-twice fixture: served beside the app
// (HTTP Range requests observed: only 206 answers, a fraction of the files' bytes) and picked as a
// folder (File.slice). The numbers are Spark's, read from facts.json here, never typed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, waitReady, screenshotOnFailure, sel, REPO, TIMEOUT_MS } from './lib/harness.mjs';

const NAME = 'savepoint-twice';
const DIR = path.join(REPO, 'tests', 'fixtures', NAME);
const facts = JSON.parse(fs.readFileSync(path.join(DIR, 'facts.json'), 'utf8'));

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

const n = (s) => Number(s.replaceAll(',', ''));

async function countDuplicates(page) {
  await page.locator('[data-testid="duplicates-panel"] > summary').click();
  await page.locator('[data-testid="duplicate-keys"]').fill('id');
  await page.locator('[data-testid="count-duplicates"]').click();
  await page.locator('[data-testid="duplicates-summary"], [data-testid="duplicates-error"]').first().waitFor({ timeout: TIMEOUT_MS * 2 });
  const error = await page.locator('[data-testid="duplicates-error"]').allTextContents();
  assert.deepEqual(error, [], 'no error');
  const summary = await page.locator('[data-testid="duplicates-summary"]').textContent();
  const m = summary.match(/([\d,]+) live rows .* ([\d,]+) distinct keys, ([\d,]+) keys present more than once/);
  assert.ok(m, summary);
  const splits = await page.locator('[data-testid="duplicates-split"]').allTextContents();
  return { rows: n(m[1]), distinct: n(m[2]), duplicated: n(m[3]), splits };
}

function assertSpark(got) {
  const spark = facts.after_second_resume;
  assert.deepEqual([got.rows, got.distinct, got.duplicated], [spark.rows, spark.distinct_ids, spark.duplicates]);
  assert.equal(got.splits.length, 1, JSON.stringify(got.splits));
  const [, second, third] = facts.jobs.map((j) => j.job_id);
  assert.ok(got.splits[0].startsWith(`${spark.duplicates.toLocaleString('en-US')} keys:`), got.splits[0]);
  assert.ok(got.splits[0].includes(`1× by ${second}`) && got.splits[0].includes(`1× by ${third}`), got.splits[0]);
}

test('served fixture: duplicates counted with HTTP Range requests only', { timeout: 180000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  const parquet = [];
  page.on('response', async (r) => {
    if (!r.url().endsWith('.parquet')) return;
    const body = await r.body().catch(() => Buffer.alloc(0));
    parquet.push({ url: r.url(), status: r.status(), range: r.request().headers().range, bytes: body.length });
  });
  try {
    await screenshotOnFailure(page, 'duplicates-served', async () => {
      await openGallery(page, target.url);
      await page.locator(`${sel.card}[data-example="${NAME}"]`).click();
      await waitReady(page, errors);
      assert.equal(parquet.length, 0, 'opening a table reads no Parquet');
      assertSpark(await countDuplicates(page));
      assert.ok(parquet.length > 0);
      assert.deepEqual(parquet.filter((r) => r.status !== 206 || !r.range), [], 'every Parquet read is a 206 answer to a Range request');
      const files = new Set(parquet.map((r) => decodeURIComponent(new URL(r.url).pathname).split(`/fixtures/${NAME}/`)[1]));
      const inFiles = [...files].reduce((sum, f) => sum + fs.statSync(path.join(DIR, f)).size, 0);
      const fetched = parquet.reduce((sum, r) => sum + r.bytes, 0);
      console.log(`served ${NAME}: ${parquet.length} range requests, ${fetched} bytes of ${inFiles} in ${files.size} files`);
      assert.ok(fetched * 2 < inFiles, `${fetched} bytes fetched of ${inFiles}`);
      assert.deepEqual(errors.panics(), [], 'wasm panic');
    });
  } finally {
    await context.close();
  }
});

test('picked folder: the same numbers through File.slice', { timeout: 180000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'duplicates-folder', async () => {
      await openGallery(page, target.url);
      await page.locator(sel.folderInput).setInputFiles(DIR);
      await waitReady(page, errors);
      assertSpark(await countDuplicates(page));
      assert.deepEqual(errors.panics(), [], 'wasm panic');
    });
  } finally {
    await context.close();
  }
});
