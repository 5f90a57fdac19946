// The app loads cleanly, offers every bundled example, and opens each one with the right numbers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  appTarget,
  launchBrowser,
  newPage,
  openGallery,
  waitReady,
  readTableView,
  waitChartPainted,
  loadExamples,
  screenshotOnFailure,
  waitCount,
  sel,
  SCREENSHOT_DIR,
  MIN_PAINTED_FRACTION,
  settled,
} from './lib/harness.mjs';

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

test('index.json lists at least one example and its metadata parses', () => {
  assert.ok(examples.length > 0, 'examples/index.json has no examples');
  for (const ex of examples) {
    // two independent readings of the ids must agree before we hold the app to them
    assert.deepEqual(ex.ids, ex.idsByRegex, `${ex.name}: BigInt JSON parse and regex disagree on snapshot ids`);
    assert.equal(new Set(ex.ids).size, ex.ids.length, `${ex.name}: duplicate snapshot ids in metadata`);
  }
});

test('page loads without errors and the gallery shows one card per example', { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await openGallery(page, target.url);
    await waitCount(page, sel.card, examples.length).catch(() => {}); // the count is asserted below
    await settled(page); // every fetch and task the page started has ended: no late error can come
    const cards = await page.locator(sel.card).evaluateAll((els) => els.map((e) => e.getAttribute('data-example')));
    assert.equal(cards.length, examples.length, `cards ${JSON.stringify(cards)} vs index.json`);
    assert.deepEqual([...cards].sort(), examples.map((e) => e.name).sort());
    for (const c of await page.locator(sel.card).all()) {
      assert.equal(await c.evaluate((e) => e.tagName), 'BUTTON', 'example-card must be a button');
    }
    assert.deepEqual(errors.all, [], 'page or console errors on load');
  } finally {
    await context.close();
  }
});

test('each example opens with the snapshots of its newest metadata.json and a painted chart', { timeout: 600000 }, async (t) => {
  const { context, page, errors } = await newPage(browser);
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // Offline: with the network cut but for the app's own origin, every example still opens.
  const origin = new URL(target.url).origin;
  const elsewhere = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (new URL(u).origin === origin || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
    elsewhere.push(u);
    return route.abort('internetdisconnected');
  });
  try {
    await openGallery(page, target.url);
    for (const ex of examples) {
      await t.test(ex.name, () => screenshotOnFailure(page, ex.name, async () => {
        const e0 = errors.all.length;
        if (!(await page.locator(sel.gallery).isVisible())) await openGallery(page, target.url); // after a failed example
        await page.locator(sel.gallery).waitFor({ state: 'visible' });
        await page.locator(`${sel.card}[data-example="${ex.name}"]`).click();
        await waitReady(page, errors);
        const painted = await waitChartPainted(page);
        const view = await readTableView(page);
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${ex.name}.png`) });

        const n = ex.ids.length;
        assert.equal(view.count, String(n), `snapshot-count (metadata ${ex.newestUrl} has ${n} snapshots)`);
        assert.equal(view.rows.length, n, 'snapshot rows');
        const shown = view.rows.map((r) => r.id);
        assert.deepEqual([...shown].sort(), [...ex.ids].sort(), 'data-snapshot-id of the rows vs metadata snapshot ids');
        assert.ok(view.location && view.location.length > 0, 'table-location is empty');
        assert.equal(view.chartPoints, String(n), 'growth-chart data-points');
        assert.ok(
          painted.fraction > MIN_PAINTED_FRACTION,
          `growth chart looks blank: ${(painted.fraction * 100).toFixed(2)}% of ${painted.width}x${painted.height} pixels differ from the background`,
        );
        assert.deepEqual(view.loadErrors, [], 'load-error shown for a bundled example');
        assert.deepEqual(errors.all.slice(e0), [], 'page or console errors');

        await page.locator(sel.back).click();
        await page.locator(sel.gallery).waitFor({ state: 'visible' });
      }));
    }
    assert.deepEqual(elsewhere, [], 'requests that left the app\'s origin while opening every example');
  } finally {
    await context.close();
  }
});
