// The walk from metadata.json to a file's fields, on a v2 and a v3 (deletion vectors) lab table:
// every value the app shows equals the CLI's (`icescope walk`, the same decode over the same files).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, cliPath, launchBrowser, newPage, openGallery, screenshotOnFailure, waitReady, sel, REPO, SCREENSHOT_DIR, TIMEOUT_MS } from './lib/harness.mjs';

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

const cli = (name, ...args) => JSON.parse(execFileSync(cliPath(), ['walk', path.join(REPO, 'tests', 'fixtures', name), ...args], { encoding: 'utf8', maxBuffer: 64 << 20 }));
const byName = (rows) => Object.fromEntries(rows.map((f) => [f.name, f.value]));
const shown = (page) => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.walk-fields tr[data-field]')].map((tr) => [tr.dataset.field, tr.lastElementChild.textContent])));
const level = (page) => page.locator('[data-testid="walk-level"]').getAttribute('data-level');

async function walkTo(page, errors, name) {
  await openGallery(page, target.url);
  await page.locator(`${sel.card}[data-example="${name}"]`).click();
  await waitReady(page, errors);
  await page.locator('[data-testid="walk"] > summary').click();
}

for (const [name, deletes] of [['savepoint-twice', false], ['v3-deletion-vectors', true]]) {
  test(`${name}: metadata.json → snapshot → manifest list → manifest → file, equal to the CLI`, { timeout: 120000 }, async () => {
    const { context, page, errors } = await newPage(browser);
    try {
      await screenshotOnFailure(page, `walk-${name}`, async () => {
        await walkTo(page, errors, name);
        const first = cli(name);
        assert.equal(await level(page), '0');
        assert.deepEqual(await page.locator('[data-testid="walk-level"] button').allTextContents(), ['metadata.json', 'snapshot', 'manifest list', 'manifest', 'file']);
        assert.deepEqual(await shown(page), byName(first.metadata), 'metadata.json fields');
        await page.locator('[data-testid="walk-next"]').click();
        assert.deepEqual(await shown(page), byName(first.snapshot), 'snapshot fields');
        await page.locator('[data-testid="walk-next"]').click();
        assert.equal(await level(page), '2');
        const rows = page.locator('[data-testid="walk-manifest"]');
        assert.equal(await rows.count(), first.total_manifests, 'manifest list rows');
        // Into a delete manifest on the v3 table (its deletion vectors), else the first manifest.
        const pick = deletes ? first.manifests.findIndex((r) => byName(r).content === '1 (deletes)') : 0;
        assert.ok(pick >= 0, 'a delete manifest in the v3 list');
        const manifestPath = byName(first.manifests[pick]).manifest_path;
        const detail = cli(name, '--manifest', manifestPath);
        await rows.nth(pick).locator('[data-testid="walk-open-manifest"]').click();
        await page.locator('[data-testid="walk-entry"]').first().waitFor({ timeout: TIMEOUT_MS });
        assert.equal(await page.locator('[data-testid="walk-entry"]').count(), detail.manifest.total_entries, 'manifest entries');
        await page.locator('[data-testid="walk-open-file"]').first().click();
        assert.equal(await level(page), '4');
        const file = await shown(page);
        assert.deepEqual(file, byName(detail.manifest.entries[0]), 'the file\'s fields');
        if (deletes) {
          assert.equal(file['data_file.file_format'], 'PUFFIN');
          assert.match(file['data_file.referenced_data_file'], /\.parquet$/);
          assert.ok(Number(file['data_file.content_size_in_bytes']) > 0 && Number(file['data_file.content_offset']) >= 4, 'the vector\'s place in the Puffin file');
        }
        fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
        await page.locator('[data-testid="walk"]').screenshot({ path: path.join(SCREENSHOT_DIR, `walk-${name}.png`) });
        // Step back to the list.
        await page.locator('[data-testid="walk-previous"]').click();
        await page.locator('[data-testid="walk-previous"]').click();
        assert.equal(await level(page), '2');
        assert.deepEqual(errors.all, [], 'page or console errors');
      });
    } finally {
      await context.close();
    }
  });
}

test('schema-on-the-wire: the shape panel and the job timeline show the column added and the one dropped', { timeout: 120000 }, async () => {
  const facts = JSON.parse(fs.readFileSync(path.join(REPO, 'tests', 'fixtures', 'schema-on-the-wire', 'facts.json'), 'utf8'));
  const [add, drop] = facts.schema_changes;
  const added = add.statements[0].match(/ADD COLUMN (\w+)/)[1];
  const dropped = add.columns_after.filter((c) => !drop.columns_after.includes(c));
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'shape', async () => {
      await openGallery(page, target.url);
      await page.locator(`${sel.card}[data-example="schema-on-the-wire"]`).click();
      await waitReady(page, errors);
      await page.locator('[data-testid="shape"] > summary').click();
      const rows = await page.locator('[data-testid="shape-schema"]').evaluateAll((rs) => rs.map((r) => [r.dataset.schemaId, r.querySelector('[data-testid="shape-change"]').textContent]));
      assert.deepEqual(rows.map((r) => Number(r[0])), [add.schema_id_before, add.schema_id_after, drop.schema_id_after]);
      assert.match(rows[1][1], new RegExp(`^added ${added} `));
      assert.match(rows[2][1], new RegExp(`^dropped ${dropped[0]} `));
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.locator('[data-testid="shape"]').screenshot({ path: path.join(SCREENSHOT_DIR, 'shape-schema-on-the-wire.png') });
      await page.locator('[data-testid="tab-jobs"]').click();
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid="save-svg"]').click()]);
      const svg = fs.readFileSync(await download.path(), 'utf8');
      assert.ok(svg.includes(`schema ${add.schema_id_after}→${drop.schema_id_after} −${dropped[0]}`), 'the drop is marked on the job timeline');
      await page.locator('.chart-box').screenshot({ path: path.join(SCREENSHOT_DIR, 'jobs-schema-on-the-wire.png') });
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});
