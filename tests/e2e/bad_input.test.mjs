// A metadata file that is not Iceberg metadata yields a readable load-error, not a crash.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appTarget, launchBrowser, newPage, openGallery, dropFiles, sel, settled } from './lib/harness.mjs';

const NAME = 'broken.metadata.json';
const BODY = '{"table-uuid":"x"}';

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

async function expectLoadError(page, errors) {
  const err = page.locator(sel.loadError).filter({ hasText: NAME }).filter({ hasText: 'format-version' });
  try {
    await err.first().waitFor({ state: 'visible' });
  } catch (e) {
    const shown = await page.locator(sel.loadError).allTextContents();
    throw new Error(`no visible load-error naming ${NAME} and format-version; load-errors: ${JSON.stringify(shown)}; errors: ${JSON.stringify(errors.all)}\n${e.message}`);
  }
  await settled(page); // every task the drop started has ended: no late panic can come
  assert.deepEqual(errors.pageErrors, [], 'page errors');
  assert.deepEqual(errors.panics(), [], 'wasm panic');
}

test(`dropping ${NAME} shows a load-error naming the file and format-version`, { timeout: 60000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await openGallery(page, target.url);
    const r = await dropFiles(page, [{ name: NAME, bytes: BODY, type: 'application/json' }]);
    assert.ok(r.overPrevented, 'dropzone did not preventDefault() on dragover');
    await expectLoadError(page, errors);
  } finally {
    await context.close();
  }
});

test(`choosing ${NAME} in the file input shows the same load-error`, { timeout: 60000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await openGallery(page, target.url);
    await page.locator(sel.fileInput).setInputFiles({ name: NAME, mimeType: 'application/json', buffer: Buffer.from(BODY) });
    await expectLoadError(page, errors);
  } finally {
    await context.close();
  }
});
