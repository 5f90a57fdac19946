// The metadata picker: a folder holding several metadata files opens the newest by content, says
// why, and lets the user open an older version (time travel). Numbers from the Spark run's facts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { snapshotIdsByRegex } from './lib/iceberg.mjs';
import { appTarget, launchBrowser, newPage, openGallery, waitReady, readTableView, screenshotOnFailure, sel, REPO } from './lib/harness.mjs';

const DIR = path.join(REPO, 'tests', 'fixtures', 'v3-deletion-vectors');
// A picked folder's paths start with the folder's own name.
const P = 'v3-deletion-vectors/metadata';
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

test('a folder opens its newest metadata file by content, and an older one on request', { timeout: 120000 }, async () => {
  const metadataFiles = fs.readdirSync(path.join(DIR, 'metadata')).filter((f) => f.endsWith('.metadata.json'));
  const snapshots = facts.final_table.snapshots;
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'metadata-picker', async () => {
      await openGallery(page, target.url);
      await page.locator(sel.folderInput).setInputFiles(DIR);
      await waitReady(page, errors);
      const picker = page.locator('[data-testid="metadata-picker"]');
      const options = await picker.locator('option').allTextContents();
      assert.equal(options.length, metadataFiles.length, 'one option per metadata file');
      // Newest first. Only v8's own head was read: the others are in its metadata-log, which gives
      // each one's time (its last-updated-ms) but not its sequence number.
      const v8 = JSON.parse(fs.readFileSync(path.join(DIR, 'metadata', 'v8.metadata.json'), 'utf8'));
      const v8Seq = v8['last-sequence-number'];
      const logged = v8['metadata-log'].map((e) => `${P}/${path.basename(e['metadata-file'])} — ${new Date(e['timestamp-ms']).toISOString()}`);
      assert.deepEqual(options.slice(1), logged.reverse());
      assert.equal(options[0], `${P}/v8.metadata.json — ${new Date(v8['last-updated-ms']).toISOString()}, sequence ${v8Seq} (newest)`);
      assert.equal(await picker.inputValue(), `${P}/v8.metadata.json`);
      assert.ok((await page.locator('[data-testid="metadata-why"]').textContent()).includes(`the newest of ${metadataFiles.length} metadata files by content (last-sequence-number ${v8Seq},`));
      let view = await readTableView(page);
      assert.equal(view.count, String(snapshots.length));
      // v5 is the table as the first DELETE left it. Snapshot ids are past 2^53: read as text from
      // the metadata file, not as JSON numbers.
      const v5 = snapshotIdsByRegex(fs.readFileSync(path.join(DIR, 'metadata', 'v5.metadata.json'), 'utf8'));
      await picker.selectOption(`${P}/v5.metadata.json`);
      await page.waitForFunction((n) => document.querySelector('[data-testid="snapshot-count"]')?.textContent === String(n), v5.length, { timeout: 60000 });
      await waitReady(page, errors);
      view = await readTableView(page);
      assert.deepEqual(view.rows.map((r) => r.id), [...v5].reverse());
      assert.equal(await page.locator('[data-testid="metadata-picker"]').inputValue(), `${P}/v5.metadata.json`);
      assert.match(await page.locator('[data-testid="metadata-why"]').textContent(), new RegExp(`chosen in the app \\(the newest by content is ${P}/v8\\.metadata\\.json\\)`));
      assert.deepEqual(errors.pageErrors, [], 'page errors');
      assert.deepEqual(errors.panics(), [], 'wasm panic');
    });
  } finally {
    await context.close();
  }
});
