// "Save PNG" downloads a real PNG of the growth chart: the 800 px ticket picture at twice its pixels.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { appTarget, launchBrowser, newPage, openGallery, waitReady, loadExamples, inspectPng, sel, OUT_DIR } from './lib/harness.mjs';

let target;
let browser;
let examples;

before(async () => {
  target = await appTarget();
  browser = await launchBrowser();
  examples = await loadExamples(target.url);
});

after(async () => {
  await browser?.close();
  await target?.close();
});

test('save-png downloads a decodable PNG of the 800 px picture at twice its pixels', { timeout: 120000 }, async () => {
  assert.ok(examples.length > 0, 'no examples to open');
  const ex = examples[0];
  const { context, page, errors } = await newPage(browser);
  try {
    await openGallery(page, target.url);
    await page.locator(`${sel.card}[data-example="${ex.name}"]`).click();
    await waitReady(page, errors);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator(sel.savePng).click()]);
    assert.equal(await download.failure(), null, 'download failed');
    const name = download.suggestedFilename();
    assert.match(name, /\.png$/i, `download file name ${name}`);
    const bytes = fs.readFileSync(await download.path());
    fs.mkdirSync(OUT_DIR, { recursive: true });
    fs.writeFileSync(path.join(OUT_DIR, `save-png-${ex.name}.png`), bytes);

    const png = inspectPng(bytes); // signature, chunk CRCs, IHDR, IEND
    const [svgDownload] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid="save-svg"]').click()]);
    const svgHeight = Number(fs.readFileSync(await svgDownload.path(), 'utf8').match(/^<svg[^>]* height="(\d+)"/)[1]);
    assert.deepEqual([png.width, png.height], [2 * 800, 2 * svgHeight], 'a 2x PNG of the 800 px picture');
    assert.ok(png.height >= 300, `PNG is ${png.width}x${png.height}, want a usable height`);
    // the pixel data must inflate to exactly height rows of (filter byte + width pixels)
    const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[png.colorType];
    assert.ok(channels, `unknown PNG colour type ${png.colorType}`);
    assert.equal(png.interlace, 0, 'interlaced PNG not expected from a canvas');
    const raw = zlib.inflateSync(png.idat);
    const stride = 1 + Math.ceil((png.width * channels * png.bitDepth) / 8);
    assert.equal(raw.length, stride * png.height, 'inflated IDAT size vs IHDR');
    assert.deepEqual(errors.all, [], 'page or console errors');
  } finally {
    await context.close();
  }
});

test('save-svg on every tab downloads an SVG stamped with table, snapshot, metadata file and version', { timeout: 120000 }, async () => {
  const ex = examples[0];
  const version = fs.readFileSync(path.join(OUT_DIR, '..', '..', 'Cargo.toml'), 'utf8').match(/^version = "([^"]+)"/m)[1];
  const snapshot = String(ex.meta['current-snapshot-id']);
  const file = ex.newestUrl.split('/').pop();
  const { context, page, errors } = await newPage(browser);
  try {
    await openGallery(page, target.url);
    await page.locator(`${sel.card}[data-example="${ex.name}"]`).click();
    await waitReady(page, errors);
    for (const tab of ['tab-growth', 'tab-jobs', 'tab-partitions', 'tab-deletes', 'tab-projection']) {
      await page.locator(`[data-testid="${tab}"]`).click();
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid="save-svg"]').click()]);
      assert.equal(await download.failure(), null, `${tab}: download failed`);
      assert.match(download.suggestedFilename(), new RegExp(`-${snapshot}-[a-z]+\\.svg$`), download.suggestedFilename());
      const svg = fs.readFileSync(await download.path(), 'utf8');
      fs.mkdirSync(OUT_DIR, { recursive: true });
      fs.writeFileSync(path.join(OUT_DIR, `save-svg-${ex.name}-${tab}.svg`), svg);
      assert.match(svg, /^<svg[^>]* width="800" height="(\d+)"/, `${tab}: not an 800 px SVG root`);
      assert.ok(Number(svg.match(/^<svg[^>]* height="(\d+)"/)[1]) >= 200, `${tab}: too short a picture`);
      // At 800 px the stamp may take two lines: which table, then when and by which icescope.
      const stamp = `${ex.title} · snapshot ${snapshot} · ${file}`;
      assert.ok(svg.includes(stamp), `${tab}: no stamp "${stamp}…"`);
      assert.match(svg, /drawn \d{4}-\d\d-\d\dT/, `${tab}: the stamp has no time`);
      assert.ok(svg.includes(`icescope ${version}`), `${tab}: the stamp has no version`);
      assert.ok(svg.trimEnd().endsWith('</svg>'), `${tab}: truncated SVG`);
    }
    assert.deepEqual(errors.all, [], 'page or console errors');
  } finally {
    await context.close();
  }
});
