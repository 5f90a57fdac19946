// A publish (here: the answer to a comparison) updates what changed and leaves every other part
// of the page as the person left it: the same nodes, an opened <details>, the walk's level, the
// catalog name typed, the chart tab chosen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, waitReady, sel, TIMEOUT_MS } from './lib/harness.mjs';

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

test('savepoint-twice: a comparison answered leaves the findings, walk, shape and chart tab as they were', { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'publish-keeps', async () => {
      await openGallery(page, target.url);
      await page.locator(`${sel.card}[data-example="savepoint-twice"]`).click();
      await waitReady(page, errors);
      const findings = await page.locator('[data-testid="finding"]').count();
      // What a person did before asking for the comparison.
      await page.locator('[data-testid="tab-jobs"]').click();
      await page.locator('[data-testid="shape"] > summary').click();
      await page.locator('[data-testid="walk"] > summary').click();
      await page.locator('[data-testid="walk-next"]').click();
      await page.locator('[data-testid="catalog-name"]').fill('prod');
      await page.evaluate(() => {
        window.__kept = Object.fromEntries(['findings', 'shape', 'walk', 'compare', 'footers-panel'].map((t) => [t, document.querySelector(`[data-testid="${t}"]`)]));
        window.__kept.firstFinding = document.querySelector('[data-testid="finding"]');
      });
      await page.locator('[data-testid="diff-to"]').fill('current');
      await page.locator('[data-testid="diff-from"]').fill('parent');
      await page.locator('[data-testid="diff-run"]').click();
      await page.locator('[data-testid="diff"]').waitFor({ timeout: TIMEOUT_MS });
      // The diff reaches the page only in a new report (`loader::publish`).
      const same = await page.evaluate(() => Object.fromEntries(Object.entries(window.__kept).map(([k, el]) => [k, el !== null && el === (k === 'firstFinding' ? document.querySelector('[data-testid="finding"]') : document.querySelector(`[data-testid="${k}"]`))])));
      assert.deepEqual(same, { findings: true, shape: true, walk: true, compare: true, 'footers-panel': true, firstFinding: true }, 'the same nodes');
      assert.equal(await page.locator('[data-testid="shape"]').evaluate((d) => d.open), true, 'the shape stays open');
      assert.equal(await page.locator('[data-testid="walk"]').evaluate((d) => d.open), true, 'the walk stays open');
      assert.equal(await page.locator('[data-testid="walk-level"]').getAttribute('data-level'), '1');
      assert.equal(await page.locator('[data-testid="catalog-name"]').inputValue(), 'prod');
      assert.equal(await page.locator('[data-testid="tab-jobs"]').getAttribute('aria-selected'), 'true');
      assert.equal(await page.locator('[data-testid="finding"]').count(), findings);
      assert.match(await page.locator('[data-testid="statement"]').first().textContent(), /CALL prod\./);
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});
