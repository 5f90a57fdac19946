// Comfort: dark theme (system preference and toggle), projector mode, a print stylesheet, and the
// chart tabs by keyboard alone. Screenshots of each mode go to tests/out/screenshots/comfort-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, waitReady, loadExamples, sel, SCREENSHOT_DIR } from './lib/harness.mjs';

let target;
let browser;
let example;

before(async () => {
  target = await appTarget();
  browser = await launchBrowser();
  // A lab fixture with findings, so that every styled part of the report is on the page.
  example = (await loadExamples(target.url)).find((e) => e.name === 'savepoint-twice');
});

after(async () => {
  await browser?.close();
  await target?.close();
});

const background = (page) => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
const LIGHT = 'rgb(246, 247, 249)';
const DARK = 'rgb(21, 24, 28)';

async function openExample(page, errors) {
  await openGallery(page, target.url);
  await page.locator(`${sel.card}[data-example="${example.name}"]`).click();
  await waitReady(page, errors);
}

test('dark follows the system, the toggle overrides it and is remembered; projector enlarges the type', { timeout: 120000 }, async () => {
  assert.ok(example, 'the savepoint-twice fixture is not in the gallery');
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'comfort-themes', async () => {
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.emulateMedia({ colorScheme: 'dark' });
      await openExample(page, errors);
      assert.equal(await background(page), DARK, 'theme auto on a dark system');
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'comfort-dark.png') });
      // The teaching views, dark too.
      await page.locator('[data-testid="walk"] > summary').click();
      await page.locator('[data-testid="walk-next"]').click();
      await page.locator('[data-testid="walk"]').screenshot({ path: path.join(SCREENSHOT_DIR, 'comfort-dark-walk.png') });
      await page.locator('[data-testid="diff-run"]').click();
      await page.locator('[data-testid="diff"]').waitFor();
      await page.locator('[data-testid="compare"]').screenshot({ path: path.join(SCREENSHOT_DIR, 'comfort-dark-compare.png') });
      const toggle = page.locator('[data-testid="theme"]');
      assert.equal(await toggle.textContent(), 'theme: auto');
      await toggle.click(); // dark
      await toggle.click(); // light, whatever the system says
      assert.equal(await toggle.textContent(), 'theme: light');
      assert.equal(await background(page), LIGHT);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'comfort-light.png') });
      const base = await page.evaluate(() => parseFloat(getComputedStyle(document.documentElement).fontSize));
      await page.locator('[data-testid="projector"]').click();
      const big = await page.evaluate(() => parseFloat(getComputedStyle(document.documentElement).fontSize));
      assert.ok(big >= base * 1.3, `projector type ${big}px vs ${base}px`);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'comfort-projector.png') });
      await page.locator('[data-testid="walk"]').screenshot({ path: path.join(SCREENSHOT_DIR, 'comfort-projector-walk.png') });
      // Remembered on reload: light and projector, on a dark system.
      // (The permalink reopens the example.)
      await page.reload({ waitUntil: 'load' });
      await waitReady(page, errors);
      assert.equal(await background(page), LIGHT);
      assert.equal(await page.locator('[data-testid="projector"]').getAttribute('aria-pressed'), 'true');
      // The preference is all that is stored.
      assert.deepEqual(await page.evaluate(() => Object.keys(localStorage)), ['icescope.theme']);
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});

test('print: no controls, the chart and findings kept whole, A4 pages', { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'comfort-print', async () => {
      await openExample(page, errors);
      await page.emulateMedia({ media: 'print' });
      for (const s of ['.topbar', sel.dropzone, '.chart-actions', '.tabs', '[data-testid="back"]']) {
        assert.equal(await page.locator(s).first().isVisible(), false, `${s} is printed`);
      }
      assert.ok(await page.locator('.chart-box canvas').isVisible(), 'the chart is printed');
      assert.ok((await page.locator('.finding').count()) > 0 && (await page.locator('.finding').first().isVisible()), 'findings are printed');
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'comfort-print.png'), fullPage: true });
      const pdf = await page.pdf({ format: 'A4', printBackground: true });
      const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) || []).length;
      assert.ok(pages >= 1 && pages <= 12, `${pages} A4 pages`);
    });
  } finally {
    await context.close();
  }
});

test('keyboard: arrow keys, Home and End move between chart tabs, findings and snapshot rows; one of each is in the Tab order', { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'comfort-keyboard', async () => {
      await openExample(page, errors);
      const selected = () => page.evaluate(() => [...document.querySelectorAll('[role="tab"]')].filter((t) => t.getAttribute('aria-selected') === 'true').map((t) => t.dataset.testid));
      const focused = () => page.evaluate(() => document.activeElement?.dataset?.testid);
      const tabbable = () => page.evaluate(() => [...document.querySelectorAll('[role="tab"]')].filter((t) => t.tabIndex === 0).map((t) => t.dataset.testid));
      assert.deepEqual(await tabbable(), ['tab-growth']);
      await page.locator('[data-testid="tab-growth"]').focus();
      await page.keyboard.press('ArrowRight');
      assert.deepEqual(await selected(), ['tab-jobs']);
      assert.equal(await focused(), 'tab-jobs');
      await page.locator('[data-testid="jobs-chart"]').waitFor();
      await page.keyboard.press('End');
      assert.deepEqual(await selected(), ['tab-projection']);
      await page.keyboard.press('ArrowRight'); // wraps
      assert.deepEqual(await selected(), ['tab-growth']);
      await page.keyboard.press('ArrowLeft');
      assert.deepEqual(await selected(), ['tab-projection']);
      await page.keyboard.press('Home');
      assert.deepEqual(await selected(), ['tab-growth']);
      assert.deepEqual(await tabbable(), ['tab-growth']);
      // Findings and snapshot rows: one in the Tab order, the arrows move between them.
      const ids = (sel2) => page.evaluate((s) => [...document.querySelectorAll(s)].map((e) => e.tabIndex), sel2);
      const findings = await ids('article.finding');
      assert.ok(findings.length >= 2, 'savepoint-twice has several findings');
      assert.deepEqual(findings, findings.map((_, i) => (i === 0 ? 0 : -1)));
      await page.locator('article.finding').first().focus();
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.evaluate(() => [...document.querySelectorAll('article.finding')].indexOf(document.activeElement)), 1);
      await page.keyboard.press('End');
      assert.equal(await page.evaluate(() => [...document.querySelectorAll('article.finding')].indexOf(document.activeElement)), findings.length - 1);
      const rows = await ids('tr[data-testid="snapshot-row"]');
      assert.equal(rows.filter((t) => t === 0).length, 1, 'one snapshot row in the Tab order');
      await page.locator('tr[data-testid="snapshot-row"]').first().focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.evaluate(() => document.activeElement?.dataset?.snapshotId), await page.locator('tr[data-testid="snapshot-row"]').nth(2).getAttribute('data-snapshot-id'));
      // Each tab names the chart it controls.
      const controls = await page.locator('[data-testid="tab-growth"]').getAttribute('aria-controls');
      assert.equal(await page.locator(`#${controls}`).getAttribute('data-testid'), 'growth-chart');
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});

test('keyboard: the pickers are in the Tab order, and opening a card by Enter leaves the focus on the table, not the body', { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'comfort-keyboard-open', async () => {
      await openGallery(page, target.url);
      // Tab from the top of the page until both file inputs have had the focus.
      const reached = new Set();
      for (let i = 0; i < 40 && reached.size < 2; i++) {
        await page.keyboard.press('Tab');
        const id = await page.evaluate(() => document.activeElement?.dataset?.testid);
        if (id === 'folder-input' || id === 'file-input') reached.add(id);
      }
      assert.deepEqual([...reached].sort(), ['file-input', 'folder-input']);
      // The label shows where the focus is.
      const ring = await page.evaluate(() => getComputedStyle(document.activeElement.closest('label')).outlineStyle);
      assert.equal(ring, 'solid');
      await page.locator(`${sel.card}[data-example="savepoint-twice"]`).focus();
      await page.keyboard.press('Enter');
      await waitReady(page, errors);
      assert.equal(await page.evaluate(() => document.activeElement?.dataset?.testid), 'table-name');
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});
