// A folder of Spark's metadata tables (`icescope spark-export`, written by real Spark 3.5.7 in the
// lab: tests/spark-exports/<fixture>/, with the metadata.json Spark read copied in) picked in the
// app: the view says Spark read the manifests, and the snapshots and findings exported from it
// equal those exported from the same table opened from its own files (the gallery example).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, waitReady, sel, REPO, screenshotOnFailure, download } from './lib/harness.mjs';

const NAME = 'savepoint-twice';
const DIR = path.join(REPO, 'tests', 'spark-exports', NAME);
const facts = JSON.parse(fs.readFileSync(path.join(REPO, 'tests', 'fixtures', NAME, 'facts.json'), 'utf8'));

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


/** The CSV's rows as objects, without the column that says where counts came from. */
function rows(csv) {
  const [head, ...lines] = csv.trimEnd().split('\n');
  const cols = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v]).filter(([k]) => !['"counts_from"', '"read"'].includes(k))));
}

async function exports(page) {
  await page.locator('[data-testid="catalog-name"]').fill('lab');
  return { snapshots: (await download(page, 'export-snapshots')).bytes.toString('utf8'), findings: (await download(page, 'export-findings')).bytes.toString('utf8') };
}

test(`${NAME}: Spark's metadata tables picked as a folder chart the table as its own files do`, { timeout: 180000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, `spark-export-${NAME}`, async () => {
      await openGallery(page, target.url);
      await page.locator(sel.folderInput).setInputFiles(DIR);
      await waitReady(page, errors);
      const sources = await page.locator('[data-testid="count-sources"]').textContent();
      assert.ok(sources.startsWith('Read by Spark (icescope spark-export)'), sources);
      assert.equal(await page.locator('[data-testid="read-all"]').count(), 0, 'nothing more to read: Spark read the manifests');
      // The data files are not in an export: the panels that read them say so instead of failing per file.
      assert.equal(await page.locator('[data-testid="data-not-here"]').count(), 2);
      assert.ok(await page.locator('[data-testid="check-footers"]').isDisabled());
      assert.ok(await page.locator('[data-testid="count-duplicates"]').isDisabled());
      assert.equal(Number(await page.locator(sel.count).textContent()), facts.final_table.snapshots.length);
      // The current snapshot's rows, counted from Spark's entries, are Spark's count of the table.
      // As text: ids pass 2^53.
      const metadata = fs.readdirSync(DIR).find((f) => f.endsWith('.metadata.json'));
      const current = fs.readFileSync(path.join(DIR, metadata), 'utf8').match(/"current-snapshot-id"\s*:\s*(\d+)/)[1];
      const row = page.locator(`[data-testid="snapshot-row"][data-snapshot-id="${current}"]`);
      assert.equal(await row.getAttribute('data-counts-from'), 'manifests');
      assert.equal(Number(await row.getAttribute('data-records')), facts.final_table.rows);
      await page.screenshot({ path: path.join(REPO, 'tests', 'out', 'screenshots', `spark-export-${NAME}.png`), fullPage: false });
      const fromSpark = await exports(page);

      await openGallery(page, target.url);
      await page.locator(`${sel.card}[data-example="${NAME}"]`).click();
      await waitReady(page, errors);
      const direct = await exports(page);
      assert.deepEqual(rows(fromSpark.snapshots), rows(direct.snapshots));
      assert.equal(fromSpark.findings, direct.findings);
      assert.ok(direct.findings.includes('CALL lab.system.'), 'findings carry statements');
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});
