// A hostile Parquet page the `parquet` crate panicked on (found by fuzzing, tests/fuzz/known/): in
// wasm a panic aborts the app. Its level blocks are now walked before the crate reads them
// (decode/parquet_levels.rs): picked as a Spark export's snapshots table it is a load-error naming
// the file, column and page, the app stays up (no stopped banner). The
// banner itself, for a panic nobody has found yet, is tested in tests/wasm_browser.rs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, sel, REPO, screenshotOnFailure, SCREENSHOT_DIR } from './lib/harness.mjs';

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

test('a page that panicked the Parquet decoder is a load-error naming it, and the app stays up', { timeout: 60000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'icescope-stopped-'));
  const folder = path.join(dir, 'hostile-export');
  fs.mkdirSync(path.join(folder, 'snapshots'), { recursive: true });
  fs.copyFileSync(path.join(REPO, 'tests', 'fuzz', 'known', 'parquet-definition-levels-panic.parquet'), path.join(folder, 'snapshots', 'part-00000.snappy.parquet'));
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'stopped-banner', async () => {
      await openGallery(page, target.url);
      await page.locator(sel.folderInput).setInputFiles(folder);
      const error = page.locator(sel.loadError).filter({ hasText: 'part-00000.snappy.parquet' });
      await error.first().waitFor({ state: 'visible' });
      const text = (await error.first().textContent()).trim();
      assert.ok(text.includes('hostile-export/snapshots/part-00000.snappy.parquet: field `page_header`: row group 0 column `existing_data_files`: page 1 at byte 530: definition levels: a bit-packed run at byte 0 holds 14 values in 2 bytes with 0 left'), text);
      assert.equal(await page.locator('[data-testid="stopped-banner"]').count(), 0, 'no stopped banner');
      assert.deepEqual(errors.panics(), [], 'no panic reached the console');
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'hostile-export-error.png') });
    });
  } finally {
    await context.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
