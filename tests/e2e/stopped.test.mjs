// A hostile Parquet page the `parquet` crate panics on (found by fuzzing, tests/fuzz/known/): in
// wasm a panic aborts the app. Picked as a Spark export's snapshots table, it must leave a banner
// saying the app stopped and what to do — the message as text — never a silently frozen page.
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

test('a page that panics the Parquet decoder leaves a banner saying the app stopped', { timeout: 60000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'icescope-stopped-'));
  const folder = path.join(dir, 'hostile-export');
  fs.mkdirSync(path.join(folder, 'snapshots'), { recursive: true });
  fs.copyFileSync(path.join(REPO, 'tests', 'fuzz', 'known', 'parquet-definition-levels-panic.parquet'), path.join(folder, 'snapshots', 'part-00000.snappy.parquet'));
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'stopped-banner', async () => {
      await openGallery(page, target.url);
      await page.locator(sel.folderInput).setInputFiles(folder);
      const banner = page.locator('[data-testid="stopped-banner"]');
      await banner.waitFor({ state: 'visible' });
      const text = await banner.textContent();
      assert.ok(text.startsWith('icescope stopped: an internal error ended the app while it was working (nothing was sent anywhere). Reload the page'), text);
      assert.ok(text.includes('while reading hostile-export/snapshots/part-00000.snappy.parquet: '), text);
      assert.ok(text.includes('offset + len out of bounds'), text);
      assert.equal(await banner.getAttribute('role'), 'alert');
      assert.ok(errors.panics().length > 0, 'the panic reached the console');
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'stopped-banner.png') });
    });
  } finally {
    await context.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
